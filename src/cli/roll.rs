//! `servitor roll <package> <what>`: one roll (or a series) of a table, shown step by step; or
//! dice — a constant, a record's dice and rolls, `--dice` — rolled and read as `odds` reads
//! them (one definition: the readings of one dice field see one roll of it).

use super::AvailabilityArgs;
use super::odds::{Declared, Subject, find_subject};
use clap::Args;
use servitor::dice::Rng;
use servitor::dice::read::{self, Rolled};
use servitor::tables::roll::roll_series;

#[derive(Args)]
pub struct RollArgs {
    /// Package folder or bare name
    package: String,
    /// A table id, a constant that holds dice, or a record's dice and rolls as kind.id (or
    /// kind.id.field)
    #[arg(value_name = "WHAT")]
    table: Option<String>,
    /// Roll dice instead, read with the package's dice: a total ('2d6+4') or dice read die by
    /// die ('any 6 in 2d6', 'highest of 3d6 vs highest of d6'; see docs/dice.md)
    #[arg(long, value_name = "EXPR", conflicts_with = "table", allow_hyphen_values = true)]
    dice: Option<String>,
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
    if args.table.is_none() && args.dice.is_none() {
        return Err(super::usage(format!(
            "error: say what to roll: a table, a constant that holds dice, kind.id for a record's dice, or --dice EXPR\n  tables: {}\n",
            ruleset.tables.keys().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    let subject = match (&args.table, &args.dice) {
        // A table first, as `roll` always took one (its error names the tables there are).
        (Some(id), None) if ruleset.tables.contains_key(id) || !looks_like_dice(ruleset, id) => {
            let table = super::find_table(ruleset, id)?;
            return roll_table(ruleset, table, &args);
        }
        (what, dice) => find_subject(ruleset, what.as_deref(), dice.as_deref()).map_err(super::usage)?,
    };
    let (name, declared) = match subject {
        Subject::Table(table) => return roll_table(ruleset, table, &args),
        Subject::Dice { name, expr } => (
            name,
            vec![Declared {
                field: String::new(),
                roll: servitor::dice::Roll::Read(servitor::dice::Reading::Total(expr)),
                reads: None,
            }],
        ),
        Subject::Rolls { name, rolls } => (name, rolls),
    };
    if !args.availability.unavailable.is_empty() || !args.availability.available.is_empty() {
        return Err(super::usage(
            "error: --unavailable and --available are for tables' results; dice have none\n",
        ));
    }
    let times = args.availability.times;
    if times == 0 || times as u64 > servitor::limits::MAX_TABLE_ROLLS {
        return Err(super::usage(format!(
            "error: --times {times}: roll dice 1 to {} times in one request (`MAX_TABLE_ROLLS`, see \"Limits\" in docs/limits.md)\n",
            servitor::diagnostic::thousands(servitor::limits::MAX_TABLE_ROLLS)
        )));
    }
    let seed = super::seed_or_fresh(args.seed);
    let mut rng = Rng::seeded(seed);
    let together: Vec<read::Declared> = declared
        .iter()
        .map(|d| read::Declared {
            name: &d.field,
            roll: &d.roll,
            reads: d.reads.as_deref(),
        })
        .collect();
    let rolls: Vec<Vec<(String, Rolled)>> = (0..times).map(|_| read::roll_declared(&together, &mut rng)).collect();
    if args.json {
        let series: Vec<serde_json::Value> = rolls
            .iter()
            .map(|one| {
                serde_json::Value::Array(
                    one.iter()
                        .map(|(field, rolled)| {
                            let mut v = serde_json::to_value(rolled).unwrap_or_default();
                            if !field.is_empty() {
                                v["field"] = field.clone().into();
                            }
                            v
                        })
                        .collect(),
                )
            })
            .collect();
        let mut json = serde_json::json!({ "seed": seed, "rolls": series });
        if !name.is_empty() {
            json["what"] = name.into();
        }
        super::emitln(&json.to_string());
    } else {
        let mut out = format!("seed {seed}\n");
        if !name.is_empty() {
            out.push_str(&format!("{name}\n"));
        }
        for (round, one) in rolls.iter().enumerate() {
            if times > 1 {
                out.push_str(&format!("roll {} of {times}\n", round + 1));
            }
            for line in read::describe_declared(&together, one) {
                out.push_str(&format!("  {line}\n"));
            }
        }
        super::emit(&out);
    }
    Ok(())
}

/// Whether `what` names dice rather than a table: a constant, or `kind.id`.
fn looks_like_dice(ruleset: &servitor::Ruleset, what: &str) -> bool {
    ruleset.consts.contains_key(what) || what.contains('.')
}

fn roll_table(
    ruleset: &servitor::Ruleset,
    table: &servitor::tables::Table,
    args: &RollArgs,
) -> Result<(), super::Failure> {
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
