//! `servitor roll <package> <table>`: one roll (or a series), shown step by step.

use super::AvailabilityArgs;
use clap::Args;
use servitor::dice::Rng;
use servitor::tables::roll::roll_series;

#[derive(Args)]
pub struct RollArgs {
    /// Package folder or bare name
    package: String,
    /// Table id
    table: String,
    #[command(flatten)]
    availability: AvailabilityArgs,
    /// Seed for the dice; the same seed gives the same rolls
    #[arg(long)]
    seed: Option<u64>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

pub fn run(args: RollArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let ruleset = &loaded.ruleset;
    let table = super::find_table(ruleset, &args.table)?;
    super::check_results(table, &args.availability)?;
    let seed = super::seed_or_fresh(args.seed);
    let mut rng = Rng::seeded(seed);
    let rolls = roll_series(
        &ruleset.tables,
        table,
        args.availability.times,
        &args.availability.availability(),
        &mut rng,
    )
    .map_err(|e| format!("error: {e}"))?;
    if args.json {
        let json = serde_json::json!({ "table": table.id, "seed": seed, "rolls": rolls });
        super::emit_json(&json);
    } else {
        super::emitln(&format!("seed {seed}"));
        for roll in &rolls {
            super::emit(&super::render::table_roll(roll, 0));
        }
    }
    Ok(())
}
