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
    /// The landed row's amount (`None`: the row has none, or the outcome is a series).
    pub amount: Option<i64>,
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

/// How many distinct outcomes `times` rolls can list at most when one roll has `outcomes`:
/// the multisets of that size, C(outcomes + times - 1, times). Exact when the rolls are
/// independent (duplicates allowed), an upper bound otherwise. Saturates.
pub fn series_size(outcomes: usize, times: usize) -> u128 {
    if outcomes == 0 || times == 0 {
        return 1;
    }
    // C(n + k - 1, k) with k the smaller side, one factor at a time (each step stays whole).
    let (n, k) = (outcomes as u128 + times as u128 - 1, times.min(outcomes - 1) as u128);
    let mut c: u128 = 1;
    for i in 1..=k {
        c = match c.checked_mul(n - k + i) {
            Some(v) => v / i,
            None => return u128::MAX,
        };
    }
    c
}

/// What a series of rolls would cost to list, refused before any of it is computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooMany {
    /// Outcomes of one roll.
    pub per_roll: usize,
    /// Outcomes the series could list (`series_size`).
    pub estimate: u128,
    /// The largest number of rolls whose listing fits the budget.
    pub fits: usize,
}

/// Per result (then `None`: nothing), the distribution of its total over a series.
pub type Totals = Vec<(Option<String>, BTreeMap<i64, BigRational>)>;

/// Why `table_odds_within` computed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The listing would pass the caller's budget.
    TooMany(TooMany),
    /// The work would pass `MAX_ODDS_WORK` (the message says so).
    Limit(String),
}

/// `table_odds`, unless listing the series would take more than `budget` outcomes.
pub fn table_odds_within(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
    budget: u128,
) -> Result<Dist, Refused> {
    let per_roll = table_odds(tables, table, 1, avail).map_err(Refused::Limit)?.len();
    let estimate = series_size(per_roll, times);
    if times > 1 && estimate > budget {
        let fits = (1..times)
            .rev()
            .find(|&t| series_size(per_roll, t) <= budget)
            .unwrap_or(1);
        return Err(Refused::TooMany(TooMany {
            per_roll,
            estimate,
            fits,
        }));
    }
    table_odds(tables, table, times, avail).map_err(Refused::Limit)
}

/// Over `times` rolls of `table`, the distribution of each result's total: the sum of its
/// amounts (a row with no amount counts 1 per roll), in the table's result order, then
/// `None` for rolls that gave nothing (ignored or none left) when that can happen. The
/// duplicates policy applies as in a series.
pub fn table_totals(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
) -> Result<Totals, String> {
    let mut cx = Odds {
        tables,
        avail,
        memo: HashMap::new(),
        table: &table.id,
        work: 0,
    };
    let first = cx.once(table, &BTreeSet::new(), 0)?;
    let mut keys: Vec<Option<String>> = table.results().into_iter().map(|r| Some(r.to_string())).collect();
    if first.iter().any(|(o, _)| o.result.is_none()) {
        keys.push(None);
    }
    let mut out = Vec::new();
    for key in keys {
        let mut states: BTreeMap<(BTreeSet<String>, i64), BigRational> =
            BTreeMap::from([((BTreeSet::new(), 0), one())]);
        for _ in 0..times {
            let mut next = BTreeMap::new();
            for ((taken, total), p) in states {
                for (o, q) in cx.once(table, &taken, 0)? {
                    let add = if o.result == key { o.amount.unwrap_or(1) } else { 0 };
                    let mut taken = taken.clone();
                    if let Some(r) = &o.result {
                        taken.insert(r.clone());
                    }
                    *next.entry((taken, total + add)).or_insert_with(zero) += &p * q;
                }
            }
            states = next;
        }
        let mut dist: BTreeMap<i64, BigRational> = BTreeMap::new();
        for ((_, total), p) in states {
            *dist.entry(total).or_insert_with(zero) += p;
        }
        out.push((key, dist));
    }
    Ok(out)
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
        amount: None,
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
                    amount: None,
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
                            amount: Some(n),
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
                            amount: o.amount,
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
        amount: None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Resolution2 {
    Row(usize),
    Ignored,
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::series_size;

    #[test]
    fn series_size_counts_multisets() {
        assert_eq!(series_size(25, 1), 25);
        assert_eq!(series_size(25, 2), 325);
        assert_eq!(series_size(25, 6), 593_775);
        assert_eq!(series_size(1, 1000), 1);
        assert_eq!(series_size(3, 2), 6);
        assert_eq!(series_size(1000, 1000), u128::MAX);
    }
}
