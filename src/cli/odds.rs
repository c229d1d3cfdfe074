//! `servitor odds <package> <table>`: the exact distribution of outcomes.

use super::AvailabilityArgs;
use clap::Args;
use num_traits::ToPrimitive;
use servitor::tables::odds::table_odds;

#[derive(Args)]
pub struct OddsArgs {
    /// Package folder or bare name
    package: String,
    /// Table id
    table: String,
    #[command(flatten)]
    availability: AvailabilityArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

pub fn run(args: OddsArgs) -> Result<(), String> {
    let loaded = super::load(&args.package)?;
    let ruleset = &loaded.ruleset;
    let table = super::find_table(ruleset, &args.table)?;
    super::check_results(table, &args.availability)?;
    let odds = table_odds(
        &ruleset.tables,
        table,
        args.availability.times,
        &args.availability.availability(),
    )
    .map_err(|e| format!("error: {e}"))?;
    if args.json {
        let outcomes: Vec<serde_json::Value> = odds
            .iter()
            .map(|(o, p)| {
                serde_json::json!({
                    "result": o.label,
                    "numerator": p.numer().to_u64(),
                    "denominator": p.denom().to_u64(),
                    "probability": probability(p),
                })
            })
            .collect();
        let json = serde_json::json!({ "table": table.id, "dice": table.dice.to_string(), "outcomes": outcomes });
        super::emitln(&format!("{json}"));
    } else {
        super::emit(&super::render::odds(table, &args.availability, &odds));
    }
    Ok(())
}

pub fn probability(p: &num_rational::BigRational) -> f64 {
    p.numer().to_f64().unwrap_or(0.0) / p.denom().to_f64().unwrap_or(1.0)
}
