//! Embedding servitor: load a bundled package and roll one of its tables with a seed.
//!
//! `cargo run --example embed -- space-crusade-solo reinforcements 42`

use servitor::dice::Rng;
use servitor::tables::Availability;
use servitor::tables::roll::roll_series;

fn main() {
    let mut args = std::env::args().skip(1);
    let package = args.next().unwrap_or_else(|| "space-crusade-solo".into());
    let table_id = args.next().unwrap_or_else(|| "reinforcements".into());
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(42);

    let loaded = match servitor::load(&package) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprint!("{}", error.render(false));
            std::process::exit(1);
        }
    };
    let ruleset = loaded.ruleset;
    let Some(table) = ruleset.tables.get(&table_id) else {
        eprintln!("no table `{table_id}` in {package}");
        std::process::exit(1);
    };
    let mut rng = Rng::seeded(seed);
    let rolls = roll_series(&ruleset.tables, table, 1, &Availability::default(), &mut rng).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    for roll in rolls {
        let dice: Vec<String> = roll.rolls.iter().map(|r| r.to_string()).collect();
        println!("{}: {} → {}", roll.title, dice.join(", then "), roll.result_name());
        if let Some(source) = &roll.source {
            println!("  (source: {source})");
        }
    }
}
