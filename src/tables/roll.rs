//! Rolling a table through the seeded RNG: dice, row, policies, amount and follow-ups; and
//! series of rolls. A reroll that finds no usable result in `MAX_REROLLS_SHOWN` rolls stops
//! showing rolls and draws the total from the exact odds of the totals that give one.

use super::{Availability, Resolution, Table};
use crate::diagnostic::thousands;
use crate::dice::{DiceRoll, Rng};
use crate::limits::{MAX_FOLLOW_UP_DEPTH, MAX_TABLE_ROLLS};
use crate::value::Value;
use indexmap::IndexMap;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// Rolls shown one by one before a reroll is drawn straight from the exact odds of the totals
/// that give a usable row (renormalised): reached only when usable rows are all but impossible.
use crate::limits::MAX_REROLLS_SHOWN as REROLLS_SHOWN;

/// Everything that happened in one roll on a table, for display, logs and scripts.
#[derive(Debug, Clone, Serialize)]
pub struct TableRoll {
    pub table: String,
    pub title: String,
    /// The first roll, then any rerolls.
    pub rolls: Vec<DiceRoll>,
    /// Shifts, rerolls and ignores, in words.
    pub notes: Vec<String>,
    /// `None` when the roll was ignored or no usable result was left.
    pub outcome: Option<Landed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Whose roll it is and what it decides, as the script said (`roll_table`'s `who`, `why`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piece: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
}

/// The row a roll ended on and what it yielded.
#[derive(Debug, Clone, Serialize)]
pub struct Landed {
    pub row: String,
    pub result: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount: Option<DiceRoll>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub fields: IndexMap<String, Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub follow: Vec<TableRoll>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl TableRoll {
    /// The result name, or "ignored" / "nothing".
    pub fn result_name(&self) -> &str {
        self.outcome.as_ref().map_or("ignored", |o| o.result.as_str())
    }
}

/// The most table rolls one roll on `table` may cause, itself and its follow-ups (with their
/// largest `times`) included; saturating. The loader has refused cycles and follow-ups
/// deeper than [`MAX_FOLLOW_UP_DEPTH`], so the walk is short.
pub fn max_rolls(tables: &IndexMap<String, Table>, table: &Table) -> u64 {
    fn walk(tables: &IndexMap<String, Table>, table: &Table, depth: usize, memo: &mut HashMap<String, u64>) -> u64 {
        if let Some(&n) = memo.get(&table.id) {
            return n;
        }
        if depth > MAX_FOLLOW_UP_DEPTH {
            return u64::MAX;
        }
        let mut most: u64 = 1;
        for row in &table.rows {
            let mut here: u64 = 1;
            for then in &row.then {
                let Some(next) = tables.get(&then.table) else { continue };
                let times = then
                    .times
                    .as_ref()
                    .map_or(1, |t| t.bounds().map_or(u64::MAX, |(_, hi)| hi.max(0) as u64));
                here = here.saturating_add(times.saturating_mul(walk(tables, next, depth + 1, memo)));
            }
            most = most.max(here);
        }
        memo.insert(table.id.clone(), most);
        most
    }
    walk(tables, table, 0, &mut HashMap::new())
}

/// Rolls `table` `times` times in one series: results already taken are handled by the
/// table's `duplicates` policy. Refused (before any roll) when the series with all its
/// follow-ups could come to more than [`MAX_TABLE_ROLLS`] table rolls.
pub fn roll_series(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
    rng: &mut Rng,
) -> Result<Vec<TableRoll>, String> {
    let most = max_rolls(tables, table).saturating_mul(times as u64);
    if most > MAX_TABLE_ROLLS {
        return Err(format!(
            "{times} rolls on `{}` could come to {} table rolls with their follow-ups: one request rolls at most {} (`MAX_TABLE_ROLLS`, see \"Limits\" in docs/limits.md)",
            table.id,
            if most == u64::MAX {
                "too many".to_string()
            } else {
                thousands(most)
            },
            thousands(MAX_TABLE_ROLLS)
        ));
    }
    let mut taken = BTreeSet::new();
    let mut rolls = Vec::with_capacity(times);
    for _ in 0..times {
        let roll = roll_once(tables, table, avail, &taken, rng, 0);
        if let Some(outcome) = &roll.outcome {
            taken.insert(outcome.result.clone());
        }
        rolls.push(roll);
    }
    Ok(rolls)
}

fn roll_once(
    tables: &IndexMap<String, Table>,
    table: &Table,
    avail: &Availability,
    taken: &BTreeSet<String>,
    rng: &mut Rng,
    depth: usize,
) -> TableRoll {
    let mut rolls = Vec::new();
    let mut notes = Vec::new();
    let mut resolution = Resolution::NothingLeft;
    let mut tries = 0;
    loop {
        tries += 1;
        let roll = if tries > REROLLS_SHOWN {
            match draw_usable(table, avail, taken, rng) {
                Some(total) => {
                    notes.push(format!(
                        "{REROLLS_SHOWN} rolls without a usable result: the total is drawn from the exact odds of the totals that give one"
                    ));
                    DiceRoll {
                        expr: table.dice.to_string().into(),
                        dice: Vec::new(),
                        modifier: 0,
                        total,
                    }
                }
                None => break,
            }
        } else {
            // The dice layer says which table a die is for (a player asked for it knows why).
            let before = rng.rolling_table(Some(&table.id));
            let roll = table.dice.roll(rng);
            rng.restore_table(before);
            roll
        };
        let Some(row) = table.row_for(roll.total) else {
            // The checker proves every total has a row; a table that escaped it yields nothing.
            notes.push(format!("no row for {}", roll.total));
            rolls.push(roll);
            break;
        };
        rolls.push(roll);
        let (resolved, path) = table.resolve(row, avail, taken);
        let landed = &table.rows[row].result;
        let why = if avail.allows(landed) {
            "already taken"
        } else {
            "unavailable"
        };
        match resolved {
            Resolution::Row(r) if r != row => {
                // From the policy, not the path: with two rows, up and down land on the same row.
                let policy = if why == "unavailable" {
                    table.unavailable
                } else {
                    table.duplicates
                };
                let direction = if policy == crate::tables::Policy::ShiftUp {
                    "up"
                } else {
                    "down"
                };
                let through: Vec<&str> = path.iter().map(|&i| table.rows[i].result.as_str()).collect();
                notes.push(format!(
                    "{landed} is {why}: shifted {direction} to {}",
                    through.join(" → ")
                ));
            }
            Resolution::Row(_) => {}
            Resolution::Ignored => notes.push(format!("{landed} is {why}: the roll is ignored")),
            Resolution::Reroll => {
                notes.push(format!("{landed} is {why}: roll again"));
                continue;
            }
            Resolution::NothingLeft => notes.push(format!("{landed} is {why} and no other result is left")),
        }
        resolution = resolved;
        break;
    }
    let outcome = match resolution {
        Resolution::Row(r) => Some(land(tables, table, r, avail, rng, depth)),
        _ => None,
    };
    TableRoll {
        table: table.id.clone(),
        title: table.title().to_string(),
        rolls,
        notes,
        outcome,
        source: table.source.clone(),
        piece: None,
        purpose: None,
    }
}

/// A total drawn from the exact odds of the table's dice, among the totals whose row does not
/// send the roll round again (`None` if there is none: `resolve` says so before a reroll).
fn draw_usable(table: &Table, avail: &Availability, taken: &BTreeSet<String>, rng: &mut Rng) -> Option<i64> {
    use num_bigint::BigInt;
    use num_integer::Integer;
    let usable: Vec<(i64, num_rational::BigRational)> = table
        .dice
        .distribution()
        .weights
        .into_iter()
        .filter(|(total, _)| {
            table
                .row_for(*total)
                .is_none_or(|row| table.resolve(row, avail, taken).0 != Resolution::Reroll)
        })
        .collect();
    let common = usable.iter().fold(BigInt::from(1), |d, (_, p)| d.lcm(p.denom()));
    let weights: Vec<(i64, num_bigint::BigUint)> = usable
        .iter()
        .filter_map(|(t, p)| (p.numer() * (&common / p.denom())).to_biguint().map(|w| (*t, w)))
        .collect();
    let total: num_bigint::BigUint = weights.iter().map(|(_, w)| w).sum();
    let mut pick = rng.below_big(&total);
    for (t, w) in &weights {
        if &pick < w {
            return Some(*t);
        }
        pick -= w;
    }
    None
}

fn land(
    tables: &IndexMap<String, Table>,
    table: &Table,
    r: usize,
    avail: &Availability,
    rng: &mut Rng,
    depth: usize,
) -> Landed {
    let row = &table.rows[r];
    let amount = row.amount.as_ref().map(|a| a.roll(rng));
    let mut follow = Vec::new();
    if depth < MAX_FOLLOW_UP_DEPTH {
        for then in &row.then {
            let Some(next) = tables.get(&then.table) else { continue };
            let times = then.times.as_ref().map_or(1, |t| t.roll(rng).total.max(0) as usize);
            let mut taken = BTreeSet::new();
            for _ in 0..times {
                let roll = roll_once(tables, next, avail, &taken, rng, depth + 1);
                if let Some(o) = &roll.outcome {
                    taken.insert(o.result.clone());
                }
                follow.push(roll);
            }
        }
    }
    Landed {
        row: row.key_text(),
        result: row.result.clone(),
        label: row.label.clone(),
        text: row.text.clone(),
        amount,
        fields: row.fields.clone(),
        follow,
        source: row.source.clone(),
    }
}
