//! Exact outcome distributions of tables, as reduced fractions. Follows amounts and
//! follow-up rolls, applies the unavailable / duplicate policies for a given availability,
//! and groups repeated rolls into multisets: independent rolls by the multinomial, dependent
//! ones (a result taken is gone) roll by roll; and each result's totals over a series.
//! A series is costed from one roll's odds before any of it is computed ([`series_cost`],
//! [`totals_cost`]) and charged again as it goes; past `MAX_ODDS_OUTCOMES` or
//! `MAX_ODDS_WORK` it is refused with a message saying why.

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

/// Work refused before any of it is done: what it would cost, and how many rolls fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooMany {
    /// Outcomes of one roll.
    pub per_roll: usize,
    /// What passes its limit: outcomes to list, or steps to take.
    pub estimate: u128,
    /// The limit passed: `MAX_ODDS_OUTCOMES` (outcomes) or `MAX_ODDS_WORK` (steps).
    pub limit: &'static str,
    /// Its value.
    pub budget: u128,
    /// The largest number of rolls that fits both limits (at least 1).
    pub fits: usize,
}

/// Per result (then `None`: nothing), the distribution of its total over a series.
pub type Totals = Vec<(Option<String>, BTreeMap<i64, BigRational>)>;

/// Why `table_odds_within` or `table_totals_within` computed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The estimate, made before any work, passes a limit.
    TooMany(TooMany),
    /// One roll's own odds pass a limit while computed (the message says which).
    Limit(String),
}

/// Largest `t` in 1..`times` with `cost(t)` within its limits (costs grow with `t`); 1 if none.
fn largest_fit(times: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (1, times);
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// The first of (`MAX_ODDS_OUTCOMES`, outcomes) and (`MAX_ODDS_WORK`, steps) that passes its
/// limit, as (name, limit, estimate).
fn over(outcomes: u128, steps: u128) -> Option<(&'static str, u128, u128)> {
    if outcomes > MAX_ODDS_OUTCOMES as u128 {
        Some(("MAX_ODDS_OUTCOMES", MAX_ODDS_OUTCOMES as u128, outcomes))
    } else if steps > u128::from(MAX_ODDS_WORK) {
        Some(("MAX_ODDS_WORK", u128::from(MAX_ODDS_WORK), steps))
    } else {
        None
    }
}

/// The cost of listing `times` rolls of a table whose one roll gives `one_roll`, before any of
/// it is done: (outcomes listed, steps). Independent rolls (duplicates allowed) list every
/// multiset of one roll's outcomes, `series_size(per_roll, times)`, in
/// `series_size(per_roll, times + 1)` steps (each multiset and each partial one). Rolls whose
/// results may not repeat hold each result at most once, with one of its outcomes, beside
/// any number of the two outcomes with no result (ignored, nothing): at most
/// Π (1 + outcomes of r) × (n + 1) multisets after n rolls, each combined with one roll's
/// outcomes (and those two) in a step. Upper bounds; saturating.
pub fn series_cost(one_roll: &Dist, independent: bool, times: usize) -> (u128, u128) {
    let per_roll = one_roll.len();
    if times <= 1 {
        return (per_roll as u128, 0);
    }
    if independent {
        return (series_size(per_roll, times), series_size(per_roll, times + 1));
    }
    let mut variants: HashMap<&str, u128> = HashMap::new();
    for (o, _) in one_roll {
        if let Some(r) = &o.result {
            *variants.entry(r).or_default() += 1;
        }
    }
    let sets = variants.values().fold(1u128, |a, v| a.saturating_mul(v + 1));
    let bags = |n: usize| series_size(per_roll + 2, n).min(sets.saturating_mul(n as u128 + 1));
    let steps = (0..times).fold(0u128, |a, n| {
        a.saturating_add(bags(n).saturating_mul(per_roll as u128 + 2))
    });
    (bags(times), steps)
}

/// `table_odds` for `times` rolls, refused before any of the series is computed when its
/// outcomes would pass `MAX_ODDS_OUTCOMES` or its steps `MAX_ODDS_WORK` (`series_cost`). The
/// same limits are also charged while computing (follow-ups' own series are not estimated):
/// that refusal is `Refused::Limit`.
pub fn table_odds_within(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
) -> Result<Dist, Refused> {
    let one_roll = table_odds(tables, table, 1, avail).map_err(Refused::Limit)?;
    let per_roll = one_roll.len();
    let independent = table.duplicates == Policy::Allow;
    let cost = |t: usize| {
        let (outcomes, steps) = series_cost(&one_roll, independent, t);
        over(outcomes, steps)
    };
    if let Some((limit, budget, estimate)) = cost(times) {
        return Err(Refused::TooMany(TooMany {
            per_roll,
            estimate,
            limit,
            budget,
            fits: largest_fit(times, |t| cost(t).is_none()),
        }));
    }
    table_odds(tables, table, times, avail).map_err(Refused::Limit)
}

/// The steps `table_totals` takes for `times` rolls, before any of it is done: for each of
/// `keys` results, for each roll, every running state (a total, and for a table without
/// duplicates the set of results taken so far) combined with each of the `per_roll`
/// outcomes. After n rolls the totals lie in a range of `span` × n + 1 and the sets taken are
/// those of at most n of the `results` (counted only when `taken` is true). An upper bound.
pub fn totals_cost(keys: usize, per_roll: usize, span: u64, results: usize, taken: bool, times: usize) -> u128 {
    let mut steps: u128 = 0;
    let mut sets: u128 = 1; // Σ_{k ≤ n} C(results, k)
    let mut choose: u128 = 1; // C(results, n)
    for n in 0..times as u128 {
        let totals = u128::from(span).saturating_mul(n).saturating_add(1);
        let states = if taken { totals.saturating_mul(sets) } else { totals };
        steps = steps.saturating_add(states.saturating_mul(per_roll as u128));
        if steps == u128::MAX {
            break;
        }
        if taken && n < results as u128 {
            choose = choose.saturating_mul(results as u128 - n) / (n + 1);
            sets = sets.saturating_add(choose);
        }
    }
    steps.saturating_mul(keys as u128)
}

/// `table_totals`, refused before any of it is computed when its steps would pass
/// `MAX_ODDS_WORK` (`totals_cost`).
pub fn table_totals_within(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
) -> Result<Totals, Refused> {
    totals_fit(tables, table, times, avail)?;
    table_totals(tables, table, times, avail).map_err(Refused::Limit)
}

/// Whether `table_totals_within` would compute `times` rolls (Ok), judged from one roll's
/// odds only.
pub fn totals_fit(
    tables: &IndexMap<String, Table>,
    table: &Table,
    times: usize,
    avail: &Availability,
) -> Result<(), Refused> {
    let first = table_odds(tables, table, 1, avail).map_err(Refused::Limit)?;
    let amounts = first.iter().map(|(o, _)| o.amount.unwrap_or(1));
    let (lo, hi) = amounts.fold((0i64, 0i64), |(lo, hi), a| (lo.min(a), hi.max(a)));
    let span = hi.abs_diff(lo);
    let results = table.results().len();
    let independent = table.duplicates == Policy::Allow;
    // Independent rolls combine one result's (at most `span + 1`) values, not every outcome.
    let per_step = if independent {
        first.len().min(span as usize + 1)
    } else {
        first.len()
    };
    let cost = |t: usize| {
        let steps = totals_cost(results + 1, per_step, span, results, !independent, t);
        over(0, steps)
    };
    match cost(times) {
        None => Ok(()),
        Some((limit, budget, estimate)) => Err(Refused::TooMany(TooMany {
            per_roll: first.len(),
            estimate,
            limit,
            budget,
            fits: largest_fit(times, |t| cost(t).is_none()),
        })),
    }
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
    if table.duplicates == Policy::Allow {
        // Independent rolls: each result's share of one roll, added to itself `times` times.
        for key in keys {
            let mut each: BTreeMap<i64, BigRational> = BTreeMap::new();
            for (o, p) in &first {
                let add = if o.result == key { o.amount.unwrap_or(1) } else { 0 };
                *each.entry(add).or_insert_with(zero) += p;
            }
            out.push((key, power_of(&each, times)));
        }
        return Ok(out);
    }
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

/// The distribution of the sum of `times` independent draws from `each`. Whole numbers over
/// a common denominator until the end: fractions reduced at every step cost far more.
fn power_of(each: &BTreeMap<i64, BigRational>, times: usize) -> BTreeMap<i64, BigRational> {
    use num_integer::Integer;
    let denominator = each.values().fold(BigInt::from(1), |d, p| d.lcm(p.denom()));
    let lo = each.keys().next().copied().unwrap_or(0);
    // Weights of each value above the smallest, as numerators over `denominator`.
    let weights: Vec<(usize, BigInt)> = each
        .iter()
        .map(|(v, p)| ((v - lo) as usize, p.numer() * (&denominator / p.denom())))
        .collect();
    let span = weights.iter().map(|(o, _)| *o).max().unwrap_or(0);
    let mut dist: Vec<BigInt> = vec![BigInt::from(1)];
    for _ in 0..times {
        let mut next = vec![BigInt::from(0); dist.len() + span];
        for (a, wa) in dist.iter().enumerate() {
            if wa.is_zero() {
                continue;
            }
            for (o, wb) in &weights {
                next[a + o] += wa * wb;
            }
        }
        dist = next;
    }
    let primes = factors(&denominator);
    let whole = num_traits::pow(denominator, times);
    dist.into_iter()
        .enumerate()
        .filter(|(_, w)| !w.is_zero())
        .map(|(i, w)| {
            let p = match &primes {
                Some(primes) => over_power(w, primes, times),
                None => BigRational::new(w, whole.clone()),
            };
            (lo * times as i64 + i as i64, p)
        })
        .collect()
}

/// The prime factors of `d` with their exponents, when `d` fits 64 bits and has no prime
/// factor above 2^20 but one (found by trial division); otherwise `None`.
fn factors(d: &BigInt) -> Option<Vec<(u64, usize)>> {
    use num_traits::ToPrimitive;
    let mut d = d.to_u64()?;
    let mut out = Vec::new();
    let mut p = 2u64;
    while p <= 1 << 20 && p * p <= d {
        let mut e = 0;
        while d.is_multiple_of(p) {
            d /= p;
            e += 1;
        }
        if e > 0 {
            out.push((p, e));
        }
        p += 1;
    }
    if d > 1 {
        if d > 1 << 40 {
            return None; // it might not be prime
        }
        out.push((d, 1));
    }
    Some(out)
}

/// `w` / d^`times` reduced, with d given by its prime `factors`: each prime divided out of `w`
/// as often as it goes (a few small divisions) instead of a gcd of two long numbers.
fn over_power(mut w: BigInt, factors: &[(u64, usize)], times: usize) -> BigRational {
    let mut denominator = BigInt::from(1);
    for &(p, e) in factors {
        let mut left = e * times;
        while left > 0 && (&w % p).is_zero() {
            w /= p;
            left -= 1;
        }
        denominator *= num_traits::pow(BigInt::from(p), left);
    }
    BigRational::new_raw(w, denominator)
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
                "the exact odds of `{}` take more than {} steps (`MAX_ODDS_WORK`, see \"Limits\" in docs/limits.md): roll it instead, or ask for fewer rolls in the series",
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
            "the exact odds of `{}` have more than {} different outcomes (`MAX_ODDS_OUTCOMES`, see \"Limits\" in docs/limits.md): roll it instead, or ask for fewer rolls in the series",
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
            let n = n.max(0) as usize;
            let bags = if n == 1 && times.len() == 1 {
                self.once(table, &BTreeSet::new(), depth)?
            } else if table.duplicates == Policy::Allow {
                self.independent(table, n, depth)?
            } else {
                self.dependent(table, n, depth)?
            };
            for (o, p) in bags {
                *out.entry(o).or_insert_with(zero) += p * pn;
            }
        }
        self.bounded(out.into_iter().collect())
    }

    /// `n` independent rolls: every multiset of one roll's outcomes with its multinomial
    /// chance n! / (c1! c2! …) · p1^c1 · p2^c2 …, in whole numbers over one denominator. One
    /// step per multiset (and per partial one), so the work is about twice the outcomes.
    fn independent(&mut self, table: &Table, n: usize, depth: usize) -> Result<Dist, String> {
        use num_integer::Integer;
        let one_roll = self.once(table, &BTreeSet::new(), depth)?;
        if series_size(one_roll.len(), n) > MAX_ODDS_OUTCOMES as u128 {
            return Err(self.too_many());
        }
        let denominator = one_roll.iter().fold(BigInt::from(1), |d, (_, p)| d.lcm(p.denom()));
        let weights: Vec<BigInt> = one_roll
            .iter()
            .map(|(_, p)| p.numer() * (&denominator / p.denom()))
            .collect();
        let whole = num_traits::pow(denominator, n);
        let mut factorial = vec![BigInt::from(1)];
        for i in 1..=n {
            let next = &factorial[i - 1] * BigInt::from(i);
            factorial.push(next);
        }
        let mut out = Vec::new();
        let mut counts = vec![0usize; one_roll.len()];
        let mut walk = Walk {
            weights: &weights,
            factorial: &factorial,
            counts: &mut counts,
            out: &mut out,
        };
        walk.go(self, 0, n, BigInt::from(1))?;
        Ok(out
            .into_iter()
            .map(|(counts, numer)| {
                let parts = one_roll.iter().zip(&counts).map(|((o, _), c)| (o, *c));
                (multiset(parts), BigRational::new(numer, whole.clone()))
            })
            .collect())
    }

    /// `n` rolls of a table whose results may not repeat: the chance of each multiset of
    /// outcomes so far (as counts by outcome), roll after roll; what one roll can give depends
    /// on the results the multiset has taken.
    fn dependent(&mut self, table: &Table, n: usize, depth: usize) -> Result<Dist, String> {
        let mut seen: Vec<Outcome> = Vec::new();
        let mut index: HashMap<Outcome, usize> = HashMap::new();
        let mut states: BTreeMap<Vec<(usize, usize)>, BigRational> = BTreeMap::from([(Vec::new(), one())]);
        for _ in 0..n {
            let mut next: BTreeMap<Vec<(usize, usize)>, BigRational> = BTreeMap::new();
            for (bag, p) in states {
                let taken: BTreeSet<String> = bag.iter().filter_map(|(i, _)| seen[*i].result.clone()).collect();
                let outcomes = self.once(table, &taken, depth)?;
                self.charge(outcomes.len().saturating_mul(bag.len() + 1))?;
                for (o, q) in outcomes {
                    let i = *index.entry(o.clone()).or_insert_with(|| {
                        seen.push(o);
                        seen.len() - 1
                    });
                    let mut bag = bag.clone();
                    match bag.binary_search_by_key(&i, |(j, _)| *j) {
                        Ok(at) => bag[at].1 += 1,
                        Err(at) => bag.insert(at, (i, 1)),
                    }
                    *next.entry(bag).or_insert_with(zero) += &p * q;
                }
                if next.len() > MAX_ODDS_OUTCOMES {
                    return Err(self.too_many());
                }
            }
            states = next;
        }
        Ok(states
            .into_iter()
            .map(|(bag, p)| (multiset(bag.iter().map(|(i, c)| (&seen[*i], *c))), p))
            .collect())
    }
}

/// The multisets of `n` rolls for `independent`, one outcome's count at a time.
struct Walk<'w> {
    weights: &'w [BigInt],
    factorial: &'w [BigInt],
    counts: &'w mut Vec<usize>,
    out: &'w mut Vec<(Vec<usize>, BigInt)>,
}

impl Walk<'_> {
    /// Outcomes from `at` on share `left` rolls; `product` is Π weight^count / count! so far
    /// times n!, kept whole by dividing out each count! exactly at the end.
    fn go(&mut self, cx: &mut Odds, at: usize, left: usize, product: BigInt) -> Result<(), String> {
        cx.charge(1)?;
        if at + 1 == self.weights.len() {
            self.counts[at] = left;
            let powered = product * num_traits::pow(self.weights[at].clone(), left);
            let divisor = self.counts.iter().fold(BigInt::from(1), |d, c| d * &self.factorial[*c]);
            let n: usize = self.counts.iter().sum();
            self.out
                .push((self.counts.clone(), powered * &self.factorial[n] / divisor));
            return Ok(());
        }
        let mut power = BigInt::from(1);
        for c in 0..=left {
            self.counts[at] = c;
            self.go(cx, at + 1, left - c, &product * &power)?;
            power *= &self.weights[at];
        }
        self.counts[at] = 0;
        Ok(())
    }
}

/// "a x2, b x1" from outcomes and their counts, in outcome order (counts of 0 left out).
fn multiset<'o>(parts: impl Iterator<Item = (&'o Outcome, usize)>) -> Outcome {
    let mut parts: Vec<(&Outcome, usize)> = parts.filter(|(_, c)| *c > 0).collect();
    if parts.is_empty() {
        return nothing("nothing");
    }
    parts.sort();
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
