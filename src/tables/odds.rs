//! Exact outcome distributions of tables, as reduced fractions. Follows amounts and
//! follow-up rolls, applies the unavailable / duplicate policies for a given availability,
//! and groups repeated rolls into multisets.

use super::{Availability, Policy, Resolution, Table};
use crate::diagnostic::thousands;
use crate::dice::zero;
use crate::limits::{MAX_FOLLOW_UP_DEPTH, MAX_ODDS_OUTCOMES, MAX_ODDS_WORK};
use indexmap::IndexMap;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One distinct outcome: a sort key (row order, amounts) and the label users see.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Outcome {
    pub order: Vec<i64>,
    pub label: String,
    /// The result name that counts as "taken" for duplicate checks; `None` if nothing.
    pub result: Option<String>,
}

pub type Dist = Vec<(Outcome, BigRational)>;

/// The odds of one table rolled `times` times in a series (1 for a single roll). Refused,
/// with a message that says why, when the outcomes would be more than [`MAX_ODDS_OUTCOMES`]
/// or their combinations more than [`MAX_ODDS_WORK`] steps.
pub fn table_odds(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
) -> Result<Dist, String> {
    let mut cx = Odds {
        tables,
        avail,
        memo: HashMap::new(),
        table: &table.id,
        work: 0,
    };
    cx.series(table, &BTreeMap::from([(times as i64, one())]), 0)
}

struct Odds<'a> {
    tables: &'a IndexMap<String, Table>,
    avail: &'a Availability,
    memo: HashMap<(String, BTreeSet<String>), Dist>,
    /// The table asked about, for messages.
    table: &'a str,
    /// Combination steps taken so far.
    work: u64,
}

fn one() -> BigRational {
    BigRational::from_integer(BigInt::from(1))
}

fn nothing(label: &str) -> Outcome {
    Outcome {
        order: vec![i64::MAX],
        label: label.to_string(),
        result: None,
    }
}

impl Odds<'_> {
    /// Charges `pairs` combination steps that would make up to `pairs` outcomes, before they
    /// are taken.
    fn charge(&mut self, pairs: usize) -> Result<(), String> {
        self.work = self.work.saturating_add(pairs as u64);
        if self.work > MAX_ODDS_WORK {
            return Err(format!(
                "the exact odds of `{}` take more than {} steps (`MAX_ODDS_WORK`, see \"Limits\" in grammar/README.md): roll it instead, or ask for fewer rolls in the series",
                self.table,
                thousands(MAX_ODDS_WORK)
            ));
        }
        Ok(())
    }

    fn bounded(&self, dist: Dist) -> Result<Dist, String> {
        if dist.len() > MAX_ODDS_OUTCOMES {
            return Err(self.too_many());
        }
        Ok(dist)
    }

    fn too_many(&self) -> String {
        format!(
            "the exact odds of `{}` have more than {} different outcomes (`MAX_ODDS_OUTCOMES`, see \"Limits\" in grammar/README.md): roll it instead, or ask for fewer rolls in the series",
            self.table,
            thousands(MAX_ODDS_OUTCOMES as u64)
        )
    }

    /// One roll, with results in `taken` already used in this series.
    fn once(&mut self, table: &Table, taken: &BTreeSet<String>, depth: usize) -> Result<Dist, String> {
        // Results taken so far matter only to a table whose duplicates are not allowed.
        let none = BTreeSet::new();
        let taken = if table.duplicates == Policy::Allow {
            &none
        } else {
            taken
        };
        let key = (table.id.clone(), taken.clone());
        if let Some(d) = self.memo.get(&key) {
            return Ok(d.clone());
        }
        let totals = table.dice.distribution().weights;
        self.charge(totals.len())?;
        let mut finals: BTreeMap<Resolution2, BigRational> = BTreeMap::new();
        let mut reroll = zero();
        for (total, p) in totals {
            let resolution = match table.row_for(total) {
                Some(row) => table.resolve(row, self.avail, taken).0,
                None => Resolution::NothingLeft,
            };
            match resolution {
                Resolution::Reroll => reroll += p,
                Resolution::Row(r) => *finals.entry(Resolution2::Row(r)).or_insert_with(zero) += p,
                Resolution::Ignored => *finals.entry(Resolution2::Ignored).or_insert_with(zero) += p,
                Resolution::NothingLeft => *finals.entry(Resolution2::Nothing).or_insert_with(zero) += p,
            }
        }
        let kept = one() - &reroll;
        let mut out: BTreeMap<Outcome, BigRational> = BTreeMap::new();
        if kept.is_zero() {
            out.insert(nothing("nothing"), one());
        }
        for (resolution, p) in finals {
            let p = p / &kept;
            match resolution {
                Resolution2::Ignored => *out.entry(nothing("ignored")).or_insert_with(zero) += p,
                Resolution2::Nothing => *out.entry(nothing("nothing")).or_insert_with(zero) += p,
                Resolution2::Row(r) => {
                    for (o, q) in self.expand_row(table, r, depth)? {
                        *out.entry(o).or_insert_with(zero) += &p * q;
                    }
                }
            }
        }
        let dist: Dist = self.bounded(out.into_iter().collect())?;
        self.memo.insert(key, dist.clone());
        Ok(dist)
    }

    /// A landed row's outcomes: its amount values, then its follow-up rolls.
    fn expand_row(&mut self, table: &Table, r: usize, depth: usize) -> Result<Dist, String> {
        let row = &table.rows[r];
        let order = table.result_order(&row.result) as i64;
        let mut dist: Dist = match &row.amount {
            None => vec![(
                Outcome {
                    order: vec![order],
                    label: row.result.clone(),
                    result: Some(row.result.clone()),
                },
                one(),
            )],
            Some(amount) => amount
                .distribution()
                .weights
                .into_iter()
                .map(|(n, p)| {
                    let label = format!("{} x{n}", row.result);
                    (
                        Outcome {
                            order: vec![order, n],
                            label,
                            result: Some(row.result.clone()),
                        },
                        p,
                    )
                })
                .collect(),
        };
        if depth >= MAX_FOLLOW_UP_DEPTH {
            return Ok(dist);
        }
        for (i, then) in row.then.iter().enumerate() {
            let Some(next) = self.tables.get(&then.table) else {
                continue;
            };
            let times = match &then.times {
                Some(t) => t.distribution().weights,
                None => BTreeMap::from([(1, one())]),
            };
            let follow = self.series(next, &times, depth + 1)?;
            self.charge(dist.len().saturating_mul(follow.len()))?;
            if dist.len().saturating_mul(follow.len()) > MAX_ODDS_OUTCOMES {
                return Err(self.too_many());
            }
            let mut combined = Vec::new();
            for (o, p) in &dist {
                for (f, q) in &follow {
                    let joiner = if i == 0 { ": " } else { "; " };
                    let mut order = o.order.clone();
                    order.extend(&f.order);
                    let label = format!("{}{joiner}{}", o.label, f.label);
                    combined.push((
                        Outcome {
                            order,
                            label,
                            result: o.result.clone(),
                        },
                        p * q,
                    ));
                }
            }
            dist = combined;
        }
        Ok(dist)
    }

    /// `times` rolls (itself a distribution) on `table`, grouped as multisets of outcomes.
    fn series(&mut self, table: &Table, times: &BTreeMap<i64, BigRational>, depth: usize) -> Result<Dist, String> {
        let mut out: BTreeMap<Outcome, BigRational> = BTreeMap::new();
        for (&n, pn) in times {
            if n == 1 && times.len() == 1 {
                for (o, p) in self.once(table, &BTreeSet::new(), depth)? {
                    *out.entry(o).or_insert_with(zero) += p * pn;
                }
                continue;
            }
            // state: (outcomes so far as a sorted multiset, results taken) → probability
            let mut states: BTreeMap<(Vec<Outcome>, BTreeSet<String>), BigRational> =
                BTreeMap::from([((Vec::new(), BTreeSet::new()), one())]);
            for _ in 0..n.max(0) {
                let mut next = BTreeMap::new();
                for ((bag, taken), p) in states {
                    let outcomes = self.once(table, &taken, depth)?;
                    self.charge(outcomes.len())?;
                    for (o, q) in outcomes {
                        let mut bag = bag.clone();
                        let at = bag.partition_point(|b| b < &o);
                        bag.insert(at, o.clone());
                        let mut taken = taken.clone();
                        if let Some(r) = &o.result {
                            taken.insert(r.clone());
                        }
                        *next.entry((bag, taken)).or_insert_with(zero) += &p * q;
                    }
                    if next.len() > MAX_ODDS_OUTCOMES {
                        return Err(self.too_many());
                    }
                }
                states = next;
            }
            for ((bag, _), p) in states {
                *out.entry(multiset(&bag)).or_insert_with(zero) += p * pn;
            }
        }
        self.bounded(out.into_iter().collect())
    }
}

/// "a x2, b x1" from a sorted bag of outcomes.
fn multiset(bag: &[Outcome]) -> Outcome {
    if bag.is_empty() {
        return nothing("nothing");
    }
    let mut parts: Vec<(Outcome, usize)> = Vec::new();
    for o in bag {
        match parts.last_mut() {
            Some((last, count)) if last == o => *count += 1,
            _ => parts.push((o.clone(), 1)),
        }
    }
    let label = parts
        .iter()
        .map(|(o, c)| format!("{} x{c}", o.label))
        .collect::<Vec<_>>()
        .join(", ");
    let order = parts
        .iter()
        .flat_map(|(o, c)| o.order.iter().copied().chain([-(*c as i64)]))
        .collect();
    Outcome {
        order,
        label,
        result: None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Resolution2 {
    Row(usize),
    Ignored,
    Nothing,
}
