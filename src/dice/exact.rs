//! Exact odds of rolls read die by die, as fractions, by algorithms that grow with the pool
//! and its faces, never with faces^dice:
//!
//! - totals: dice added one by one over the totals they can really reach (a die with faces 0
//!   and 20,000 adds two, not 20,001);
//! - how many dice meet a target (`count`, `any`, `all`): a binomial per kind of die;
//! - the highest or lowest N, and doubles: face by face from the best, choosing how many dice
//!   of each kind show that face (order statistics);
//! - re-rolling one die, the highest or the lowest, and a forced re-roll: every multiset of
//!   faces the pool can show, each with its multinomial weight;
//! - chains: one binomial when every stage reads each die on its own, else stage by stage;
//! - one roll against another (`vs`): the margins of the two as one product;
//! - several yes-or-no readings of the same roll together ([`joint_flags`]): every multiset
//!   of faces read once.
//!
//! Everything is counted in whole numbers over one denominator (u128 while it fits, then big
//! integers) and reduced to fractions once, at the end. Each computation has a cost estimate
//! (`odds_cost`), made before any of it, that callers check against `MAX_DICE_WORK`.
//!
//! The unit tests enumerate every way the rolling code (`read.rs`) can go on small pools and
//! compare the counts with these.

use super::big::{Smooth, fraction};
use super::read::*;
use super::{DiceExpr, Distribution, Part, Rng, Shown};
use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Zero};
use std::collections::{BTreeMap, HashMap};

/// The exact odds of a roll.
#[derive(Debug, Clone, PartialEq)]
pub enum Odds {
    /// A number (a total, a kept sum, a count, a chain's result): each value's chance.
    Number(Distribution),
    /// Yes or no: the chance of yes.
    Flag(BigRational),
    /// One roll against another: each side's chance of winning, of a tie, and the margin
    /// (first − second) with its chances.
    Opposed {
        first: BigRational,
        second: BigRational,
        tie: BigRational,
        margin: Distribution,
    },
}

/// Word operations on big numbers as steps of `MAX_DICE_WORK`.
pub(crate) fn steps(word_ops: f64) -> u64 {
    let s = (word_ops / WORD_OPS_PER_STEP).ceil();
    if s.is_finite() && s < u64::MAX as f64 {
        s as u64
    } else {
        u64::MAX
    }
}

/// A step of `MAX_DICE_WORK` is worth this many word operations of big numbers (measured: one
/// step of the counting loops takes about as long as this many word operations).
const WORD_OPS_PER_STEP: f64 = 8.0;

// --- whole-number weights --------------------------------------------------------------

/// Counts over a common denominator: `u128` (checked: `None` on overflow, and the caller
/// starts again with big integers) or `BigUint`.
trait Weight: Clone + std::fmt::Debug {
    fn zero() -> Self;
    fn from_u64(n: u64) -> Self;
    fn is_zero(&self) -> bool;
    fn add(&mut self, other: &Self) -> Option<()>;
    fn mul(&self, other: &Self) -> Option<Self>;
    /// `self − other`, `other` being at most `self`.
    fn minus(&self, other: &Self) -> Self;
    /// Exact division (the caller knows it divides).
    fn div_u64(&self, d: u64) -> Self;
    fn big(&self) -> BigUint;
}

impl Weight for u128 {
    fn zero() -> Self {
        0
    }
    fn from_u64(n: u64) -> Self {
        u128::from(n)
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn add(&mut self, other: &Self) -> Option<()> {
        *self = self.checked_add(*other)?;
        Some(())
    }
    fn mul(&self, other: &Self) -> Option<Self> {
        self.checked_mul(*other)
    }
    fn minus(&self, other: &Self) -> Self {
        self.saturating_sub(*other)
    }
    fn div_u64(&self, d: u64) -> Self {
        self / u128::from(d.max(1))
    }
    fn big(&self) -> BigUint {
        BigUint::from(*self)
    }
}

impl Weight for BigUint {
    fn zero() -> Self {
        BigUint::default()
    }
    fn from_u64(n: u64) -> Self {
        BigUint::from(n)
    }
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn add(&mut self, other: &Self) -> Option<()> {
        *self += other;
        Some(())
    }
    fn mul(&self, other: &Self) -> Option<Self> {
        Some(self * other)
    }
    fn minus(&self, other: &Self) -> Self {
        if other > self { BigUint::default() } else { self - other }
    }
    fn div_u64(&self, d: u64) -> Self {
        self / d.max(1)
    }
    fn big(&self) -> BigUint {
        self.clone()
    }
}

fn pow<T: Weight>(base: u64, exp: u32) -> Option<T> {
    let mut out = T::from_u64(1);
    let b = T::from_u64(base);
    for _ in 0..exp {
        out = out.mul(&b)?;
    }
    Some(out)
}

/// b^0 ..= b^n.
fn powers<T: Weight>(base: u64, n: u32) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(n as usize + 1);
    let b = T::from_u64(base);
    let mut p = T::from_u64(1);
    out.push(p.clone());
    for _ in 0..n {
        p = p.mul(&b)?;
        out.push(p.clone());
    }
    Some(out)
}

/// C(n, 0) ..= C(n, n).
fn binomial_row<T: Weight>(n: u32) -> Option<Vec<T>> {
    let mut row = vec![T::from_u64(1)];
    for k in 0..n {
        let next = row[k as usize]
            .mul(&T::from_u64(u64::from(n - k)))?
            .div_u64(u64::from(k + 1));
        row.push(next);
    }
    Some(row)
}

/// Pascal's triangle up to row `n`.
fn pascal<T: Weight>(n: u32) -> Option<Vec<Vec<T>>> {
    (0..=n).map(binomial_row).collect()
}

/// Saturating C(n + k − 1, k): the multisets of `n` dice over `k` faces.
fn multisets(n: u64, faces: u64) -> u64 {
    if faces == 0 {
        return u64::from(n == 0);
    }
    let mut c: u128 = 1;
    for i in 1..=n {
        c = c * u128::from(i + faces - 1) / u128::from(i);
        if c > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    c as u64
}

// --- a pool's faces --------------------------------------------------------------------

/// One kind of die in a pool: how many, and its weight on each face of the pool's alphabet.
#[derive(Debug, Clone)]
pub(crate) struct Kind {
    pub n: u32,
    pub weights: Vec<u64>,
    pub total: u64,
}

/// The distinct faces of a pool's dice, in order, and each kind's weights on them.
#[derive(Debug, Clone)]
pub(crate) struct Alphabet {
    pub faces: Vec<Shown>,
    pub kinds: Vec<Kind>,
    /// The kinds in the order a re-roll of one die prefers them ([`Pool::reroll_rank`]).
    pub preferred: Vec<usize>,
}

impl Alphabet {
    fn dice(&self) -> u32 {
        self.kinds.iter().map(|k| k.n).sum()
    }

    /// Faces some kind can show.
    fn support(&self, kind: usize) -> impl Iterator<Item = usize> + '_ {
        self.kinds[kind]
            .weights
            .iter()
            .enumerate()
            .filter(|(_, w)| **w > 0)
            .map(|(i, _)| i)
    }

    fn value(&self, face: usize) -> i64 {
        self.faces[face].value.unwrap_or(0)
    }

    /// Π total^n.
    fn denominator<T: Weight>(&self) -> Option<T> {
        let mut d = T::from_u64(1);
        for k in &self.kinds {
            d = d.mul(&pow(k.total, k.n)?)?;
        }
        Some(d)
    }
}

impl Pool {
    /// The pool's alphabet; `reroll N` (each die meeting a target rolled again once) is folded
    /// into each die's weights: a face keeps its own weight when it is not rerolled, and every
    /// face gains the rerolled faces' weight times its own (over total²).
    pub(crate) fn alphabet(&self) -> Alphabet {
        let mut faces: Vec<Shown> = self.dice.iter().flat_map(|(_, k)| k.shown_faces()).collect();
        faces.sort();
        faces.dedup();
        let kinds: Vec<Kind> = self
            .dice
            .iter()
            .map(|(n, kind)| {
                let mut weights = vec![0u64; faces.len()];
                let own = kind.shown_faces();
                for f in &own {
                    if let Ok(i) = faces.binary_search(f) {
                        weights[i] += 1;
                    }
                }
                let total = own.len() as u64;
                match &self.reroll {
                    Some(Reroll::Each(t)) => {
                        let again: u64 = (0..faces.len())
                            .filter(|&i| t.accepts(&faces[i]))
                            .map(|i| weights[i])
                            .sum();
                        let folded = (0..faces.len())
                            .map(|i| {
                                let kept = if t.accepts(&faces[i]) { 0 } else { weights[i] * total };
                                kept + again * weights[i]
                            })
                            .collect();
                        Kind {
                            n: *n,
                            weights: folded,
                            total: total * total,
                        }
                    }
                    _ => Kind { n: *n, weights, total },
                }
            })
            .collect();
        let rank = self.reroll_rank();
        let mut preferred: Vec<usize> = (0..kinds.len()).collect();
        preferred.sort_by_key(|&k| rank[k]);
        Alphabet {
            faces,
            kinds,
            preferred,
        }
    }
}

// --- totals --------------------------------------------------------------------------------

/// A die added to a total: its values (with their weights) and how many such dice.
#[derive(Debug, Clone)]
pub(crate) struct SumDie {
    pub faces: Vec<(i64, u64)>,
    pub total: u64,
    pub count: u32,
}

/// How a total is computed, and what it costs, decided before any of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SumPlan {
    /// Every total is `lo + step · i`.
    pub lo: i64,
    pub step: u64,
    /// Totals at most (saturating): the smaller of the lattice's size and the multisets.
    pub totals: u64,
    /// Steps: one running total and one face each.
    pub work: u64,
    /// Totals kept in an array over the lattice, or in a map of the totals reached.
    pub dense: bool,
    /// Each kind's dice by repeated squaring of its polynomial, the kinds multiplied: cheaper
    /// than adding dice one by one once the dice are many.
    pub squaring: bool,
}

pub(crate) fn sum_plan(dice: &[SumDie]) -> SumPlan {
    let mut lo: i64 = 0;
    let mut step: u64 = 0;
    for d in dice {
        let min = d.faces.first().map_or(0, |f| f.0);
        lo = lo.saturating_add(min.saturating_mul(i64::from(d.count)));
        for (v, _) in &d.faces {
            step = step.gcd(&v.abs_diff(min));
        }
    }
    let step = step.max(1);
    let mut spread: u64 = 0;
    let mut work: u64 = 0;
    let mut kinds: Vec<u64> = vec![1; dice.len()];
    let mut bound = 1u64;
    // Each step adds a count that grows with the denominator: a step costs a word of it.
    let mut bits: f64 = 0.0;
    for (k, d) in dice.iter().enumerate() {
        let width = d
            .faces
            .last()
            .map_or(0, |f| f.0)
            .abs_diff(d.faces.first().map_or(0, |f| f.0))
            / step;
        for m in 1..=u64::from(d.count) {
            let words = 1 + (bits / 64.0) as u64;
            work = work.saturating_add(bound.saturating_mul(d.faces.len() as u64).saturating_mul(words));
            bits += (d.total.max(1) as f64).log2();
            spread = spread.saturating_add(width);
            kinds[k] = multisets(m, d.faces.len() as u64);
            let product = kinds.iter().fold(1u64, |a, b| a.saturating_mul(*b));
            bound = spread.saturating_add(1).min(product);
        }
    }
    let lattice = spread.saturating_add(1);
    let dense = lattice <= 4096 || (lattice <= 1 << 22 && lattice <= bound.saturating_mul(4));
    // By squaring: each kind's power, then the kinds' product, all over the lattice.
    let mut squared = 0.0f64;
    if dense {
        let (mut len, mut bits) = (1u64, 0.0f64);
        for d in dice {
            let min = d.faces.first().map_or(0, |f| f.0);
            let width = d.faces.last().map_or(0, |f| f.0).abs_diff(min) / step;
            let wbits = d.faces.iter().map(|f| f.1).max().unwrap_or(1).max(1) as f64;
            let (plen, pbits) = (
                width.saturating_mul(u64::from(d.count)).saturating_add(1),
                f64::from(d.count) * (d.total.max(1) as f64).log2(),
            );
            squared += super::big::poly_pow_cost(width + 1, wbits.log2() + 1.0, d.count);
            squared += super::big::poly_mul_cost(len, bits, plen, pbits);
            len = len.saturating_add(plen);
            bits += pbits;
        }
        // The counts written into the map of totals.
        squared += lattice as f64 * super::big::words(bits);
    }
    let by_squares = steps(squared);
    let squaring = dense && by_squares < work;
    SumPlan {
        lo,
        step,
        totals: bound,
        work: if squaring { by_squares } else { work },
        dense,
        squaring,
    }
}

/// Each total's count over Π total^count, by squaring: a kind's dice are its polynomial (a
/// face's weight at its place on the lattice) to the power of their count.
fn sum_counts_squared(dice: &[SumDie], plan: &SumPlan) -> Counts {
    let mut total = vec![BigUint::one()];
    let mut denominator = BigUint::one();
    for d in dice {
        let min = d.faces.first().map_or(0, |f| f.0);
        let width = (d.faces.last().map_or(0, |f| f.0).abs_diff(min) / plan.step) as usize;
        let mut poly = vec![<BigUint as Zero>::zero(); width + 1];
        for (v, w) in &d.faces {
            poly[(v.abs_diff(min) / plan.step) as usize] += *w;
        }
        total = super::big::poly_mul(&total, &super::big::poly_pow(&poly, d.count));
        denominator *= BigUint::from(d.total).pow(d.count);
    }
    let step = plan.step as i64;
    let counts = total
        .into_iter()
        .enumerate()
        .filter(|(_, c)| !Zero::is_zero(c))
        .map(|(i, c)| (plan.lo.saturating_add(step.saturating_mul(i as i64)), c))
        .collect();
    (counts, denominator)
}

/// Each total's count over Π total^count.
pub(crate) fn sum_counts(dice: &[SumDie]) -> (BTreeMap<i64, BigUint>, BigUint) {
    let plan = sum_plan(dice);
    if plan.squaring {
        return sum_counts_squared(dice, &plan);
    }
    // Whole numbers of 128 bits while the denominator fits (20d6 does), big ones after.
    match sum_counts_in::<u128>(dice) {
        Some((m, d)) => to_big(m, d),
        None => sum_counts_in::<BigUint>(dice).unwrap_or_else(|| (BTreeMap::new(), BigUint::one())),
    }
}

fn sum_counts_in<T: Weight>(dice: &[SumDie]) -> Option<(BTreeMap<i64, T>, T)> {
    let plan = sum_plan(dice);
    let mut denominator = T::from_u64(1);
    for d in dice {
        denominator = denominator.mul(&pow(d.total, d.count)?)?;
    }
    let step = plan.step as i64;
    let mut out = BTreeMap::new();
    if plan.dense {
        let mut counts: Vec<T> = vec![T::from_u64(1)];
        for d in dice {
            let min = d.faces.first().map_or(0, |f| f.0);
            let offsets: Vec<(usize, T)> = d
                .faces
                .iter()
                .map(|(v, w)| ((v.abs_diff(min) / plan.step) as usize, T::from_u64(*w)))
                .collect();
            let width = offsets.last().map_or(0, |o| o.0);
            for _ in 0..d.count {
                let mut next = vec![T::zero(); counts.len() + width];
                for (i, c) in counts.iter().enumerate() {
                    if c.is_zero() {
                        continue;
                    }
                    for (o, w) in &offsets {
                        next[i + o].add(&c.mul(w)?)?;
                    }
                }
                counts = next;
            }
        }
        for (i, c) in counts.into_iter().enumerate() {
            if !c.is_zero() {
                out.insert(plan.lo.saturating_add(step.saturating_mul(i as i64)), c);
            }
        }
    } else {
        let mut counts: HashMap<i64, T> = HashMap::from([(0, T::from_u64(1))]);
        for d in dice {
            let faces: Vec<(i64, T)> = d.faces.iter().map(|(v, w)| (*v, T::from_u64(*w))).collect();
            for _ in 0..d.count {
                let mut next: HashMap<i64, T> = HashMap::with_capacity(counts.len() * 2);
                for (t, c) in &counts {
                    for (v, w) in &faces {
                        next.entry(t.saturating_add(*v))
                            .or_insert_with(T::zero)
                            .add(&c.mul(w)?)?;
                    }
                }
                counts = next;
            }
        }
        out.extend(counts);
    }
    Some((out, denominator))
}

impl DiceExpr {
    /// The dice of the expression as totals' terms, signs applied; the modifiers' sum apart.
    pub(crate) fn sum_dice(&self) -> (Vec<SumDie>, i64) {
        let mut offset: i64 = 0;
        let mut dice = Vec::new();
        for (negative, part) in &self.parts {
            let sign = if *negative { -1 } else { 1 };
            match part {
                Part::Modifier(n) => offset = offset.saturating_add(n.saturating_mul(sign)),
                Part::Dice { count, kind } => {
                    let values = kind.values();
                    let mut faces: BTreeMap<i64, u64> = BTreeMap::new();
                    for v in &values {
                        *faces.entry(v.saturating_mul(sign)).or_default() += 1;
                    }
                    dice.push(SumDie {
                        faces: faces.into_iter().collect(),
                        total: values.len().max(1) as u64,
                        count: *count,
                    });
                }
            }
        }
        (dice, offset)
    }
}

// --- count, any, all ---------------------------------------------------------------------

/// How many dice meet the target: each count's weight over the alphabet's denominator.
fn count_counts<T: Weight>(a: &Alphabet, target: &Target) -> Option<Vec<T>> {
    let mut dist: Vec<T> = vec![T::from_u64(1)];
    for kind in &a.kinds {
        let yes: u64 = (0..a.faces.len())
            .filter(|&i| target.accepts(&a.faces[i]))
            .map(|i| kind.weights[i])
            .sum();
        let no = kind.total - yes;
        let row = binomial_row::<T>(kind.n)?;
        let ys = powers::<T>(yes, kind.n)?;
        let ns = powers::<T>(no, kind.n)?;
        let mut next = vec![T::zero(); dist.len() + kind.n as usize];
        for (i, d) in dist.iter().enumerate() {
            if d.is_zero() {
                continue;
            }
            for k in 0..=kind.n as usize {
                let w = row[k].mul(&ys[k])?.mul(&ns[kind.n as usize - k])?;
                next[i + k].add(&d.mul(&w)?)?;
            }
        }
        dist = next;
    }
    Some(dist)
}

// --- highest and lowest, doubles: face by face ---------------------------------------------

/// The remaining dice of each kind, as one index (mixed radix).
struct Radix {
    sizes: Vec<u32>,
    strides: Vec<u64>,
}

impl Radix {
    fn new(a: &Alphabet) -> Radix {
        let sizes: Vec<u32> = a.kinds.iter().map(|k| k.n).collect();
        let mut strides = Vec::new();
        let mut s = 1u64;
        for n in &sizes {
            strides.push(s);
            s = s.saturating_mul(u64::from(*n) + 1);
        }
        Radix { sizes, strides }
    }

    fn decode(&self, index: u64) -> Vec<u32> {
        self.sizes
            .iter()
            .zip(&self.strides)
            .map(|(n, s)| ((index / s) % (u64::from(*n) + 1)) as u32)
            .collect()
    }

    fn encode(&self, r: &[u32]) -> u64 {
        r.iter().zip(&self.strides).map(|(c, s)| u64::from(*c) * s).sum()
    }

    fn full(&self) -> Vec<u32> {
        self.sizes.clone()
    }
}

/// Every vector `c` with `c ≤ r` (and, if given, Σc ≤ `most`), with its weight
/// Π C(r_j, c_j) · w_j^c_j, for dice showing one face.
fn choices<T: Weight>(
    r: &[u32],
    face: usize,
    a: &Alphabet,
    pascal: &[Vec<T>],
    pows: &[Vec<Vec<T>>],
    most: Option<u32>,
) -> Option<Vec<(Vec<u32>, T)>> {
    let mut out: Vec<(Vec<u32>, T)> = vec![(Vec::new(), T::from_u64(1))];
    for (j, &rj) in r.iter().enumerate() {
        let mut next = Vec::new();
        for (c, w) in &out {
            let used: u32 = c.iter().sum();
            let top = if a.kinds[j].weights[face] == 0 { 0 } else { rj };
            for k in 0..=top {
                if most.is_some_and(|m| used + k > m) {
                    break;
                }
                let mut c = c.clone();
                c.push(k);
                let weight = w
                    .mul(&pascal[rj as usize][k as usize])?
                    .mul(&pows[j][face][k as usize])?;
                next.push((c, weight));
            }
        }
        out = next;
    }
    Some(out)
}

/// Each kind's weight on each face, to the powers 0..=n.
fn face_powers<T: Weight>(a: &Alphabet) -> Option<Vec<Vec<Vec<T>>>> {
    a.kinds
        .iter()
        .map(|k| k.weights.iter().map(|w| powers(*w, k.n)).collect::<Option<Vec<_>>>())
        .collect()
}

/// The total of the `keep` highest (or lowest) dice, face by face from the best: at each face
/// choose how many dice of each kind show it; once `keep` dice are placed the kept total is
/// known and the rest lie on worse faces, whose weight is a power.
fn keep_counts<T: Weight>(a: &Alphabet, highest: bool, keep: u32) -> Option<BTreeMap<i64, T>> {
    let radix = Radix::new(a);
    let total_dice = a.dice();
    let max_n = a.kinds.iter().map(|k| k.n).max().unwrap_or(0);
    let pascal = pascal::<T>(max_n)?;
    let pows = face_powers::<T>(a)?;
    let order: Vec<usize> = if highest {
        (0..a.faces.len()).rev().collect()
    } else {
        (0..a.faces.len()).collect()
    };
    let mut out: BTreeMap<i64, T> = BTreeMap::new();
    let mut states: HashMap<(u64, i64), T> = HashMap::from([((radix.encode(&radix.full()), 0), T::from_u64(1))]);
    for (pos, &face) in order.iter().enumerate() {
        // Each kind's weight on the faces after this one.
        let rest: Vec<u64> = a
            .kinds
            .iter()
            .map(|k| order[pos + 1..].iter().map(|&f| k.weights[f]).sum())
            .collect();
        let rest_pows: Vec<Vec<T>> = rest
            .iter()
            .zip(&a.kinds)
            .map(|(w, k)| powers(*w, k.n))
            .collect::<Option<_>>()?;
        let value = a.value(face);
        let mut next: HashMap<(u64, i64), T> = HashMap::new();
        for ((index, sum), w) in states {
            let r = radix.decode(index);
            let placed = total_dice - r.iter().sum::<u32>();
            for (c, cw) in choices(&r, face, a, &pascal, &pows, None)? {
                let k: u32 = c.iter().sum();
                let taken = k.min(keep - placed);
                let sum = sum.saturating_add(value.saturating_mul(i64::from(taken)));
                let weight = w.mul(&cw)?;
                let left: Vec<u32> = r.iter().zip(&c).map(|(r, c)| r - c).collect();
                if placed + k >= keep {
                    let mut tail = weight;
                    for (j, l) in left.iter().enumerate() {
                        tail = tail.mul(&rest_pows[j][*l as usize])?;
                    }
                    if !tail.is_zero() {
                        out.entry(sum).or_insert_with(T::zero).add(&tail)?;
                    }
                } else if !weight.is_zero() {
                    next.entry((radix.encode(&left), sum))
                        .or_insert_with(T::zero)
                        .add(&weight)?;
                }
            }
        }
        states = next;
    }
    Some(out)
}

/// Whether the best two of dice of one kind are summed by prefix sums ([`keep_counts_one_kind`]):
/// two kept, every face equally likely and the faces' values one apart (a plain die), so the
/// rolls whose second best die shows t are added into each total as one range of faces t.
fn best_two_by_ranges(a: &Alphabet, keep: u32) -> bool {
    let kind = &a.kinds[0];
    keep == 2
        && kind.n >= 3
        && kind.weights.iter().all(|w| *w == kind.weights[0] && *w > 0)
        && a.faces.iter().all(|f| f.value.is_some())
        && a.faces.windows(2).all(|p| p[1].value == p[0].value.map(|v| v + 1))
}

/// The total of the `keep` highest (or lowest) of dice of one kind, in closed form over the
/// faces: for each face t and each j < keep, the rolls whose keep-th best die shows t with j
/// dice better than t are C(n, j) · (the j better dice's sums) · (the n − j others all at t or
/// worse, at least keep − j of them at t) — the last a power less a few terms. Each face
/// costs a few powers of big numbers and one product per sum of the better dice.
fn keep_counts_one_kind(a: &Alphabet, highest: bool, keep: u32) -> Counts {
    let kind = &a.kinds[0];
    let n = kind.n;
    let order: Vec<usize> = if highest {
        (0..a.faces.len()).rev().collect()
    } else {
        (0..a.faces.len()).collect()
    };
    let choose = binomial_row::<BigUint>(n).unwrap_or_default();
    // The kept totals in a row from the lowest (keep · the lowest face).
    let lo = i64::from(keep).saturating_mul(a.faces.first().and_then(|f| f.value).unwrap_or(0));
    let hi = i64::from(keep).saturating_mul(a.faces.last().and_then(|f| f.value).unwrap_or(0));
    let mut totals: Vec<BigUint> =
        vec![<BigUint as Zero>::zero(); (hi.abs_diff(lo) as usize).saturating_add(1).min(1 << 22)];
    // The faces better than t as a polynomial of their values, to the powers 0..keep (the
    // sums of j dice better than t), brought up to date face by face.
    // C(n − j, c) for c < keep − j: the few terms taken from each power.
    let first_ways: Vec<Vec<BigUint>> = (0..keep)
        .map(|j| {
            let m = n - j;
            let mut row = vec![BigUint::one()];
            for c in 0..(keep - j).min(m) {
                let next = row[c as usize].clone() * (m - c) / (c + 1);
                row.push(next);
            }
            row
        })
        .collect();
    let mut powers: Vec<BTreeMap<i64, BigUint>> = vec![BTreeMap::new(); keep as usize];
    powers[0].insert(0, BigUint::one());
    let mut below: u64 = kind.weights.iter().sum();
    // The big powers base^(n − k), k < keep, each worked out once: face t's "t or worse" is
    // the next face's "worse than t" (a plain die's bases are 0..=f).
    let mut big_powers: HashMap<(u64, u32), BigUint> = HashMap::new();
    let mut big_pow = |base: u64, exp: u32| -> BigUint {
        big_powers
            .entry((base, exp))
            .or_insert_with(|| BigUint::from(base).pow(exp))
            .clone()
    };
    let ranges = best_two_by_ranges(a, keep);
    // With ranges: the rolls whose second best die shows face t (one die better), by t.
    let mut second: Vec<BigUint> = vec![<BigUint as Zero>::zero(); if ranges { a.faces.len() } else { 0 }];
    for &t in &order {
        let w = kind.weights[t];
        below -= w;
        if w == 0 {
            continue;
        }
        let value = a.value(t);
        let bw = BigUint::from(w);
        for (j, power) in powers.iter().enumerate() {
            let j = j as u32;
            let (m, need) = (n - j, keep - j);
            if (power.is_empty() && !(ranges && j == 1)) || m < need {
                continue;
            }
            // m dice at t or worse, at least `need` of them at t.
            let mut g = big_pow(w + below, m);
            for c in 0..need {
                g -= &first_ways[j as usize][c as usize] * bw.pow(c) * big_pow(below, m - c);
            }
            if Zero::is_zero(&g) {
                continue;
            }
            let g = g * &choose[j as usize];
            if ranges && j == 1 {
                second[t] = g;
                continue;
            }
            let kept = i64::from(need).saturating_mul(value);
            for (sum, ways) in power {
                let at = sum.saturating_add(kept).abs_diff(lo) as usize;
                if let Some(cell) = totals.get_mut(at) {
                    if ways.is_one() {
                        *cell += &g;
                    } else {
                        *cell += ways * &g;
                    }
                }
            }
        }
        // Face t joins the better faces: (P + w·x^v)^j = Σ_c C(j, c) (w·x^v)^c P^(j−c), the
        // highest powers first so that the lower ones are still the old.
        for j in (1..keep as usize).rev() {
            let row = binomial_row::<BigUint>(j as u32).unwrap_or_default();
            for c in 1..=j {
                let factor = &row[c] * bw.pow(c as u32);
                let shift = (c as i64).saturating_mul(value);
                let add: Vec<(i64, BigUint)> = powers[j - c]
                    .iter()
                    .map(|(s, x)| (s.saturating_add(shift), x * &factor))
                    .collect();
                for (s, x) in add {
                    *powers[j].entry(s).or_default() += x;
                }
            }
        }
    }
    if ranges {
        // Face indices b (the best die) and t (the second): b + t = k with b above t (highest)
        // or below it (lowest); each such b has weight w, so the total of k is w times the
        // rolls of a range of t, read from prefix sums. Totals are values: index k + 2 · the
        // lowest face, less `lo`.
        let f = a.faces.len();
        let mut prefix = Vec::with_capacity(f + 1);
        prefix.push(<BigUint as Zero>::zero());
        for g in &second {
            let next = prefix.last().cloned().unwrap_or_default() + g;
            prefix.push(next);
        }
        let w = BigUint::from(kind.weights[0]);
        let least = a.value(0);
        for k in 1..(2 * f).saturating_sub(2) {
            let (from, to) = if highest {
                (k.saturating_sub(f - 1), (k - 1) / 2)
            } else {
                (k / 2 + 1, (f - 1).min(k))
            };
            if from > to {
                continue;
            }
            let ways = &prefix[to + 1] - &prefix[from];
            let total = (k as i64).saturating_add(least.saturating_mul(2));
            if let Some(cell) = totals.get_mut(total.abs_diff(lo) as usize) {
                *cell += ways * &w;
            }
        }
    }
    let den = BigUint::from(kind.total).pow(n);
    let out = totals
        .into_iter()
        .enumerate()
        .filter(|(_, c)| !Zero::is_zero(c))
        .map(|(i, c)| (lo.saturating_add(i as i64), c))
        .collect();
    (out, den)
}

/// The steps of [`keep_counts_one_kind`]: per face, each power of the better dice's sums (at
/// most keep · spread + 1 of them) times a big product, and the powers of big numbers.
fn keep_one_kind_cost(a: &Alphabet, keep: u32) -> u64 {
    use super::big::{mul_cost, words};
    let kind = &a.kinds[0];
    let n = kind.n;
    let bits = f64::from(n) * (kind.total.max(1) as f64).log2();
    let w = words(bits);
    let faces = a.faces.len() as u64;
    let mut cost = 0.0f64;
    let mut seen = 0u64;
    let mut spread = 0u64;
    let first = a.faces.first().and_then(|f| f.value).unwrap_or(0);
    let ranges = best_two_by_ranges(a, keep);
    if ranges {
        // The second best die's rolls face by face, their prefix sums and one range a total:
        // a big subtraction, product and addition each.
        cost += faces as f64 * 6.0 * (w + 64.0);
    }
    for f in &a.faces {
        seen += 1;
        spread = spread.max(f.value.unwrap_or(0).abs_diff(first));
        let mut size = 1u64;
        for j in 0..u64::from(keep) {
            if ranges && j == 1 {
                continue;
            }
            // A big number added into the row of totals, one loop step of its own; and the
            // powers brought up to date, a small product and a map entry each.
            cost += size as f64 * (w + 64.0);
            cost += size as f64 * u64::from(keep).saturating_sub(j + 1) as f64 * 400.0;
            // The next power's sums: bounded by the spread and by the multisets.
            size = (j + 1)
                .saturating_mul(spread)
                .saturating_add(1)
                .min(multisets(j + 1, seen));
        }
    }
    // Powers by squaring, each base^(n − k) (k < keep) once: a base is a face's "t or worse" or
    // "worse than t", and about two products of the final size each.
    let mut bases = std::collections::BTreeSet::new();
    let mut below: u64 = kind.weights.iter().sum();
    for &w in &kind.weights {
        bases.insert(below);
        below = below.saturating_sub(w);
        bases.insert(below);
    }
    let mut below: u64 = kind.weights.iter().sum();
    for &w in kind.weights.iter().rev() {
        bases.insert(below);
        below = below.saturating_sub(w);
        bases.insert(below);
    }
    cost += bases.len() as f64 * f64::from(keep) * 2.0 * mul_cost(w, w);
    steps(cost).saturating_add(faces)
}

/// The weight of rolls where no face shows on `n` or more dice.
fn no_match_weight<T: Weight>(a: &Alphabet, n: u32) -> Option<T> {
    let radix = Radix::new(a);
    let max_n = a.kinds.iter().map(|k| k.n).max().unwrap_or(0);
    let pascal = pascal::<T>(max_n)?;
    let pows = face_powers::<T>(a)?;
    let mut states: HashMap<u64, T> = HashMap::from([(radix.encode(&radix.full()), T::from_u64(1))]);
    for face in 0..a.faces.len() {
        let mut next: HashMap<u64, T> = HashMap::new();
        for (index, w) in states {
            let r = radix.decode(index);
            for (c, cw) in choices(&r, face, a, &pascal, &pows, Some(n.saturating_sub(1)))? {
                let weight = w.mul(&cw)?;
                if weight.is_zero() {
                    continue;
                }
                let left: Vec<u32> = r.iter().zip(&c).map(|(r, c)| r - c).collect();
                next.entry(radix.encode(&left)).or_insert_with(T::zero).add(&weight)?;
            }
        }
        states = next;
    }
    Some(states.remove(&0).unwrap_or_else(T::zero))
}

// --- every multiset ------------------------------------------------------------------------

/// Calls `visit` with every multiset the pool can show — each kind's count on each face — and
/// its weight (multinomial × Π weight^count).
/// A visitor of multisets: each kind's counts on the alphabet, and their weight.
type MultisetVisit<'v, T> = dyn FnMut(&[Vec<u32>], &T) -> Option<()> + 'v;

/// A visitor of a multiset's reading, its weight, and its readings after a re-roll.
type RerolledVisit<'v, T> = dyn FnMut(i64, &T, Option<Vec<(i64, u64)>>) -> Option<()> + 'v;

/// An opposed roll's counts of each (first, second), over their denominator.
type Joint = (BTreeMap<(i64, i64), BigUint>, BigUint);

fn each_multiset<T: Weight>(a: &Alphabet, visit: &mut MultisetVisit<T>) -> Option<()> {
    // Each kind's multisets on its own, then every combination of them.
    let mut per_kind: Vec<Vec<(Vec<u32>, T)>> = Vec::new();
    for (j, kind) in a.kinds.iter().enumerate() {
        let support: Vec<usize> = a.support(j).collect();
        let row = pascal::<T>(kind.n)?;
        let mut out = Vec::new();
        let mut counts = vec![0u32; a.faces.len()];
        fill(&support, 0, kind.n, T::from_u64(1), &mut counts, kind, &row, &mut out)?;
        per_kind.push(out);
    }
    let mut chosen: Vec<usize> = vec![0; per_kind.len()];
    if per_kind.iter().any(Vec::is_empty) {
        return Some(());
    }
    loop {
        let mut weight = T::from_u64(1);
        let mut sets: Vec<Vec<u32>> = Vec::with_capacity(per_kind.len());
        for (j, &c) in chosen.iter().enumerate() {
            weight = weight.mul(&per_kind[j][c].1)?;
            sets.push(per_kind[j][c].0.clone());
        }
        visit(&sets, &weight)?;
        // The next combination.
        let mut j = 0;
        loop {
            if j == chosen.len() {
                return Some(());
            }
            chosen[j] += 1;
            if chosen[j] < per_kind[j].len() {
                break;
            }
            chosen[j] = 0;
            j += 1;
        }
    }
}

/// The multisets of `left` dice over `support[at..]`.
#[allow(clippy::too_many_arguments)]
fn fill<T: Weight>(
    support: &[usize],
    at: usize,
    left: u32,
    weight: T,
    counts: &mut Vec<u32>,
    kind: &Kind,
    pascal: &[Vec<T>],
    out: &mut Vec<(Vec<u32>, T)>,
) -> Option<()> {
    if at + 1 >= support.len() {
        if let Some(&last) = support.get(at) {
            counts[last] = left;
            let w = weight.mul(&pow(kind.weights[last], left)?)?;
            out.push((counts.clone(), w));
            counts[last] = 0;
        } else if left == 0 {
            out.push((counts.clone(), weight));
        }
        return Some(());
    }
    let face = support[at];
    let mut p = T::from_u64(1);
    for c in 0..=left {
        counts[face] = c;
        let w = weight.mul(&pascal[left as usize][c as usize])?.mul(&p)?;
        fill(support, at + 1, left - c, w, counts, kind, pascal, out)?;
        p = p.mul(&T::from_u64(kind.weights[face]))?;
    }
    counts[face] = 0;
    Some(())
}

/// The reading of a multiset given as counts on the alphabet.
fn read_counts(read: &Read, a: &Alphabet, counts: &[u32]) -> i64 {
    let n: u32 = counts.iter().sum();
    match read {
        Read::Sum => counts.iter().enumerate().map(|(i, c)| a.value(i) * i64::from(*c)).sum(),
        Read::Keep { highest, n: keep } => {
            let mut left = *keep;
            let mut sum = 0i64;
            let mut visit = |i: usize| {
                let take = counts[i].min(left);
                left -= take;
                sum += a.value(i) * i64::from(take);
            };
            if *highest {
                (0..counts.len()).rev().for_each(&mut visit);
            } else {
                (0..counts.len()).for_each(&mut visit);
            }
            sum
        }
        Read::Count(t) => counts
            .iter()
            .enumerate()
            .filter(|(i, _)| t.accepts(&a.faces[*i]))
            .map(|(_, c)| i64::from(*c))
            .sum(),
        Read::Any(t) => i64::from(counts.iter().enumerate().any(|(i, c)| *c > 0 && t.accepts(&a.faces[i]))),
        Read::All(t) => i64::from(
            counts
                .iter()
                .enumerate()
                .all(|(i, c)| *c == 0 || t.accepts(&a.faces[i])),
        ),
        Read::Same(m) => i64::from(n > 0 && counts.iter().any(|c| c >= m)),
        Read::Explode(_) => 0, // never read from a multiset (refused where it would be)
        Read::Total(t) => {
            let sum: i64 = counts.iter().enumerate().map(|(i, c)| a.value(i) * i64::from(*c)).sum();
            i64::from(t.accepts(&Shown::number(sum)))
        }
    }
}

/// The face and kind a pool-level re-roll takes from a multiset, as `read::reroll_pick` takes
/// it from dice as they lie: the lowest face meeting the target, the highest or the lowest
/// face; among dice showing that face, the kind `Pool::reroll_rank` puts first.
fn multiset_pick(reroll: &Reroll, a: &Alphabet, sets: &[Vec<u32>]) -> Option<(usize, usize)> {
    let shows = |i: usize| sets.iter().any(|s| s[i] > 0);
    let face = match reroll {
        Reroll::One(t) => (0..a.faces.len()).find(|&i| shows(i) && t.accepts(&a.faces[i]))?,
        Reroll::Lowest => (0..a.faces.len()).find(|&i| shows(i))?,
        Reroll::Highest => (0..a.faces.len()).rev().find(|&i| shows(i))?,
        Reroll::Each(_) | Reroll::Failed => return None,
    };
    let kind = a.preferred.iter().copied().find(|&k| sets[k][face] > 0)?;
    Some((face, kind))
}

/// lcm of the kinds' totals: one denominator for a die rolled again, whichever kind it is.
fn totals_lcm(a: &Alphabet) -> u64 {
    a.kinds.iter().fold(1u64, |l, k| l.lcm(&k.total.max(1)))
}

/// For each multiset: the reading, and the readings after re-rolling the die `reroll` takes
/// (each weighted over the totals' lcm; `None` when no die is taken).
fn multiset_rerolled<T: Weight>(
    a: &Alphabet,
    read: &Read,
    reroll: &Reroll,
    visit: &mut RerolledVisit<T>,
) -> Option<()> {
    let l = totals_lcm(a);
    each_multiset::<T>(a, &mut |sets, w| {
        let mut combined = vec![0u32; a.faces.len()];
        for s in sets {
            for (c, x) in combined.iter_mut().zip(s) {
                *c += x;
            }
        }
        let before = read_counts(read, a, &combined);
        let after = multiset_pick(reroll, a, sets).map(|(face, kind)| {
            combined[face] -= 1;
            let k = &a.kinds[kind];
            let scale = l / k.total.max(1);
            let mut out: BTreeMap<i64, u64> = BTreeMap::new();
            for (u, wu) in k.weights.iter().enumerate() {
                if *wu == 0 {
                    continue;
                }
                combined[u] += 1;
                *out.entry(read_counts(read, a, &combined)).or_default() += wu * scale;
                combined[u] -= 1;
            }
            combined[face] += 1;
            out.into_iter().collect()
        });
        visit(before, w, after)
    })
}

// --- a pool read ---------------------------------------------------------------------------

/// Counts over a denominator.
type Counts = (BTreeMap<i64, BigUint>, BigUint);

fn to_big<T: Weight>(m: BTreeMap<i64, T>, d: T) -> Counts {
    (m.into_iter().map(|(k, v)| (k, v.big())).collect(), d.big())
}

impl PoolRead {
    /// The reading's counts, before its modifier and before `reroll failed`.
    fn raw_counts<T: Weight>(&self) -> Option<(BTreeMap<i64, T>, T)> {
        let a = self.pool.alphabet();
        let den = a.denominator::<T>()?;
        let n = a.dice();
        if let Some(reroll @ (Reroll::One(_) | Reroll::Highest | Reroll::Lowest)) = &self.pool.reroll {
            let l = totals_lcm(&a);
            let mut out: BTreeMap<i64, T> = BTreeMap::new();
            multiset_rerolled::<T>(&a, &self.read, reroll, &mut |before, w, after| match after {
                None => out.entry(before).or_insert_with(T::zero).add(&w.mul(&T::from_u64(l))?),
                Some(after) => {
                    for (v, c) in after {
                        out.entry(v).or_insert_with(T::zero).add(&w.mul(&T::from_u64(c))?)?;
                    }
                    Some(())
                }
            })?;
            return Some((out, den.mul(&T::from_u64(l))?));
        }
        let mut out: BTreeMap<i64, T> = BTreeMap::new();
        match &self.read {
            Read::Sum | Read::Total(_) | Read::Explode(_) => return None, // computed by `sum_counts`
            Read::Keep { highest, n: keep } => {
                if *keep >= n {
                    return None;
                }
                if *keep == 0 {
                    out.insert(0, den.clone());
                } else {
                    out = keep_counts::<T>(&a, *highest, *keep)?;
                }
            }
            Read::Count(t) | Read::Any(t) | Read::All(t) => {
                let dist = count_counts::<T>(&a, t)?;
                for (k, w) in dist.into_iter().enumerate() {
                    if w.is_zero() {
                        continue;
                    }
                    let key = match &self.read {
                        Read::Count(_) => k as i64,
                        Read::Any(_) => i64::from(k > 0),
                        _ => i64::from(k as u32 == n),
                    };
                    out.entry(key).or_insert_with(T::zero).add(&w)?;
                }
            }
            Read::Same(m) => {
                let no = if *m <= 1 {
                    if n == 0 { den.clone() } else { T::zero() }
                } else if *m > n {
                    den.clone()
                } else {
                    no_match_weight::<T>(&a, *m)?
                };
                let yes = den.minus(&no);
                if !no.is_zero() {
                    out.insert(0, no);
                }
                if !yes.is_zero() {
                    out.insert(1, yes);
                }
            }
        }
        Some((out, den))
    }

    /// The reading's counts with `reroll failed` and the modifier applied.
    fn counts(&self) -> Counts {
        let (mut counts, mut den) = match (&self.read, &self.pool.reroll) {
            (Read::Sum, None | Some(Reroll::Each(_)) | Some(Reroll::Failed)) => self.sum_counts(),
            (Read::Explode(depth), _) => explode_counts(&self.pool, *depth),
            (Read::Total(t), None | Some(Reroll::Each(_)) | Some(Reroll::Failed)) => {
                // The totals, each read as yes or no.
                let (totals, den) = self.sum_counts();
                let mut flags: BTreeMap<i64, BigUint> = BTreeMap::new();
                for (v, c) in totals {
                    *flags.entry(i64::from(t.accepts(&Shown::number(v)))).or_default() += c;
                }
                (flags, den)
            }
            (Read::Keep { n: keep, .. }, None | Some(Reroll::Each(_)) | Some(Reroll::Failed))
                if *keep >= self.pool.alphabet().dice() =>
            {
                self.sum_counts()
            }
            (Read::Keep { highest, n: keep }, None | Some(Reroll::Each(_))) if self.keep_in_closed_form() => {
                keep_counts_one_kind(&self.pool.alphabet(), *highest, *keep)
            }
            _ => match self.raw_counts::<u128>() {
                Some((m, d)) => to_big(m, d),
                None => {
                    let (m, d) = self
                        .raw_counts::<BigUint>()
                        .unwrap_or_else(|| (BTreeMap::new(), BigUint::one()));
                    (m, d)
                }
            },
        };
        if self.pool.reroll == Some(Reroll::Failed) {
            let zero = counts.get(&0).cloned().unwrap_or_default();
            let mut next = BTreeMap::new();
            for (v, c) in counts {
                let c = if v == 0 { &zero * &zero } else { c * (&den + &zero) };
                next.insert(v, c);
            }
            counts = next;
            den = &den * &den;
        }
        if !self.read.is_flag() && self.modifier != 0 {
            counts = counts
                .into_iter()
                .map(|(v, c)| (v.saturating_add(self.modifier), c))
                .collect();
        }
        (counts, den)
    }

    /// Every die's faces summed, through the totals' algorithm.
    fn sum_counts(&self) -> Counts {
        let a = self.pool.alphabet();
        let dice: Vec<SumDie> = a
            .kinds
            .iter()
            .map(|k| {
                let mut faces: BTreeMap<i64, u64> = BTreeMap::new();
                for (i, w) in k.weights.iter().enumerate() {
                    if *w > 0 {
                        *faces.entry(a.value(i)).or_default() += w;
                    }
                }
                SumDie {
                    faces: faces.into_iter().collect(),
                    total: k.total,
                    count: k.n,
                }
            })
            .collect();
        sum_counts(&dice)
    }

    /// The steps the exact odds take, estimated before any of them (saturating).
    pub fn odds_cost(&self) -> u64 {
        let a = self.pool.alphabet();
        let n = u64::from(a.dice());
        let faces = a.faces.len() as u64;
        let radix: u64 = a.kinds.iter().fold(1u64, |p, k| p.saturating_mul(u64::from(k.n) + 1));
        if let Read::Explode(depth) = self.read {
            return explode_cost(&self.pool, depth);
        }
        let per_pool = match (&self.pool.reroll, &self.read) {
            (Some(Reroll::One(_) | Reroll::Highest | Reroll::Lowest), _) => {
                let sets = a.kinds.iter().enumerate().fold(1u64, |p, (j, k)| {
                    p.saturating_mul(multisets(u64::from(k.n), a.support(j).count() as u64))
                });
                sets.saturating_mul(faces.saturating_add(1))
                    .saturating_mul(faces.saturating_add(n))
            }
            (_, Read::Sum | Read::Total(_)) => self.sum_plan().work,
            (_, Read::Keep { n: keep, .. }) if u64::from(*keep) >= n => self.sum_plan().work,
            (_, Read::Keep { n: keep, .. }) if self.keep_in_closed_form() => {
                return keep_one_kind_cost(&a, *keep).saturating_add(n);
            }
            (_, Read::Keep { n: keep, .. }) => {
                let spread = a
                    .faces
                    .last()
                    .and_then(|f| f.value)
                    .unwrap_or(0)
                    .abs_diff(a.faces.first().and_then(|f| f.value).unwrap_or(0));
                let sums = u64::from(*keep).saturating_mul(spread).saturating_add(1);
                faces.saturating_mul(radix).saturating_mul(radix).saturating_mul(sums)
            }
            (_, Read::Count(_) | Read::Any(_) | Read::All(_)) => {
                // Each kind's binomial, convolved onto the counts of the kinds before it.
                let mut before: u64 = 0;
                let mut steps: u64 = 0;
                for k in &a.kinds {
                    let nk = u64::from(k.n);
                    steps = steps
                        .saturating_add((nk + 1).saturating_mul(before + 1))
                        .saturating_add(nk.saturating_mul(3));
                    before += nk;
                }
                steps
            }
            (_, Read::Same(_)) => faces.saturating_mul(radix).saturating_mul(radix),
            (_, Read::Explode(_)) => 0, // costed above
        };
        // Counts beyond 128 bits are big numbers: a step costs a word of the denominator.
        let bits: f64 = a
            .kinds
            .iter()
            .map(|k| f64::from(k.n) * (k.total.max(1) as f64).log2())
            .sum();
        let words = if bits < 120.0 { 1 } else { 1 + (bits / 64.0) as u64 };
        let per_pool = match (&self.pool.reroll, &self.read) {
            (_, Read::Sum | Read::Total(_)) => per_pool,
            (_, Read::Keep { n: keep, .. }) if u64::from(*keep) >= n => per_pool,
            _ => per_pool.saturating_mul(words),
        };
        per_pool.saturating_add(n).saturating_add(faces)
    }

    fn sum_plan(&self) -> SumPlan {
        let a = self.pool.alphabet();
        let dice: Vec<SumDie> = a
            .kinds
            .iter()
            .map(|k| {
                let mut faces: BTreeMap<i64, u64> = BTreeMap::new();
                for (i, w) in k.weights.iter().enumerate() {
                    if *w > 0 {
                        *faces.entry(a.value(i)).or_default() += w;
                    }
                }
                SumDie {
                    faces: faces.into_iter().collect(),
                    total: k.total,
                    count: k.n,
                }
            })
            .collect();
        sum_plan(&dice)
    }

    /// Whether the kept total is computed in closed form over the faces (dice of one kind,
    /// no re-roll of one die, fewer kept than rolled, and cheaper so than face by face).
    fn keep_in_closed_form(&self) -> bool {
        let Read::Keep { n: keep, .. } = self.read else {
            return false;
        };
        let a = self.pool.alphabet();
        let row = u64::from(keep).saturating_mul(
            a.faces
                .last()
                .and_then(|f| f.value)
                .unwrap_or(0)
                .abs_diff(a.faces.first().and_then(|f| f.value).unwrap_or(0)),
        );
        if a.kinds.len() != 1
            || row >= 1 << 22
            || keep == 0
            || keep >= a.dice()
            || !matches!(self.pool.reroll, None | Some(Reroll::Each(_)))
        {
            return false;
        }
        let faces = a.faces.len() as u64;
        let radix = u64::from(a.dice()) + 1;
        let spread = a
            .faces
            .last()
            .and_then(|f| f.value)
            .unwrap_or(0)
            .abs_diff(a.faces.first().and_then(|f| f.value).unwrap_or(0));
        let sums = u64::from(keep).saturating_mul(spread).saturating_add(1);
        let by_faces = faces.saturating_mul(radix).saturating_mul(radix).saturating_mul(sums);
        keep_one_kind_cost(&a, keep) <= by_faces
    }

    /// Bits of the denominator the reading's counts are over: no count is bigger.
    pub(crate) fn den_bits(&self) -> f64 {
        if let Read::Explode(depth) = self.read {
            return self
                .pool
                .dice
                .iter()
                .map(|(n, k)| f64::from(*n) * f64::from(depth + 1) * (k.values().len().max(1) as f64).log2())
                .sum();
        }
        let a = self.pool.alphabet();
        let base: f64 = a
            .kinds
            .iter()
            .map(|k| f64::from(k.n) * (k.total.max(1) as f64).log2())
            .sum();
        match &self.pool.reroll {
            Some(Reroll::One(_) | Reroll::Highest | Reroll::Lowest) => base + (totals_lcm(&a) as f64).log2(),
            Some(Reroll::Failed) => 2.0 * base,
            _ => base,
        }
    }

    /// The lowest value to the highest the reading can take, plus one (saturating).
    pub(crate) fn range_bound(&self) -> u64 {
        if self.read.is_flag() {
            return 2;
        }
        if let Read::Explode(depth) = self.read {
            return explode_values(&self.pool, depth);
        }
        let a = self.pool.alphabet();
        let n = a.dice();
        let spread = |k: &Kind| {
            let mut vals = k
                .weights
                .iter()
                .enumerate()
                .filter(|(_, w)| **w > 0)
                .map(|(i, _)| a.value(i));
            let first = vals.next().unwrap_or(0);
            let (lo, hi) = vals.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)));
            hi.abs_diff(lo)
        };
        match &self.read {
            Read::Count(_) => u64::from(n) + 1,
            Read::Keep { n: keep, .. } if *keep < n => {
                let widest = a.kinds.iter().map(spread).max().unwrap_or(0);
                let all = a
                    .faces
                    .last()
                    .and_then(|f| f.value)
                    .unwrap_or(0)
                    .abs_diff(a.faces.first().and_then(|f| f.value).unwrap_or(0));
                u64::from(*keep).saturating_mul(all.max(widest)).saturating_add(1)
            }
            _ => a
                .kinds
                .iter()
                .fold(1u64, |r, k| r.saturating_add(u64::from(k.n).saturating_mul(spread(k)))),
        }
    }

    /// How many different values the reading can have, at most (saturating).
    pub fn values_bound(&self) -> u64 {
        if self.read.is_flag() {
            return 2;
        }
        if let Read::Explode(depth) = self.read {
            return explode_values(&self.pool, depth);
        }
        let a = self.pool.alphabet();
        match &self.read {
            Read::Count(_) => u64::from(a.dice()) + 1,
            Read::Keep { n: keep, .. } if *keep < a.dice() => {
                let spread = a
                    .faces
                    .last()
                    .and_then(|f| f.value)
                    .unwrap_or(0)
                    .abs_diff(a.faces.first().and_then(|f| f.value).unwrap_or(0));
                u64::from(*keep).saturating_mul(spread).saturating_add(1)
            }
            _ => self.sum_plan().totals,
        }
    }

    /// The exact distribution of the reading (a yes / no as 1 / 0).
    pub fn distribution(&self) -> Distribution {
        let (counts, den) = self.counts();
        distribution_of(counts, &den)
    }
}

/// Yes-or-no readings of one roll of one pool, taken together (a gun's kill and jam from the
/// same two dice): each combination of their answers that can come up, in the order given,
/// with its exact chance. Every multiset of the pool's faces is read by each reading; `None`
/// when the pool re-rolls one die or the whole pool (then a reading is not one multiset's),
/// when a reading is not a yes or no, or past `MAX_DICE_WORK` (the multisets times the readings).
pub fn joint_flags(pool: &Pool, reads: &[&Read]) -> Option<Vec<(Vec<bool>, BigRational)>> {
    if matches!(
        pool.reroll,
        Some(Reroll::One(_) | Reroll::Highest | Reroll::Lowest | Reroll::Failed)
    ) || !reads.iter().all(|r| r.is_flag())
    {
        return None;
    }
    let a = pool.alphabet();
    let sets = a
        .kinds
        .iter()
        .map(|k| multisets(u64::from(k.n), a.faces.len() as u64))
        .fold(1u64, u64::saturating_mul);
    let work = sets.saturating_mul(a.faces.len() as u64 + reads.len() as u64 * 4);
    if work > crate::limits::MAX_DICE_WORK {
        return None;
    }
    let mut out: BTreeMap<Vec<bool>, BigUint> = BTreeMap::new();
    each_multiset::<BigUint>(&a, &mut |sets, w| {
        let mut combined = vec![0u32; a.faces.len()];
        for s in sets {
            for (c, x) in combined.iter_mut().zip(s) {
                *c += x;
            }
        }
        let key: Vec<bool> = reads.iter().map(|r| read_counts(r, &a, &combined) != 0).collect();
        *out.entry(key).or_default() += w;
        Some(())
    })?;
    let den = BigInt::from(a.denominator::<BigUint>()?);
    let mut rows: Vec<(Vec<bool>, BigRational)> = out
        .into_iter()
        .filter(|(_, c)| !Zero::is_zero(c))
        .map(|(k, c)| (k, BigRational::new(BigInt::from(c), den.clone())))
        .collect();
    // Every yes first, then as the answers go from the first reading on.
    rows.sort_by(|x, y| y.0.cmp(&x.0));
    Some(rows)
}

pub(crate) fn distribution_of(counts: BTreeMap<i64, BigUint>, den: &BigUint) -> Distribution {
    // Reduced by the small primes the denominator is made of: no gcd of big numbers.
    let smooth = Smooth::of(den);
    Distribution {
        weights: counts
            .into_iter()
            .filter(|(_, c)| !Zero::is_zero(c))
            .map(|(v, c)| (v, fraction(c, den, smooth.as_ref())))
            .collect(),
    }
}

impl Reading {
    fn counts(&self) -> Counts {
        match self {
            Reading::Total(e) => {
                let (dice, offset) = e.sum_dice();
                let (counts, den) = sum_counts(&dice);
                (
                    counts.into_iter().map(|(v, c)| (v.saturating_add(offset), c)).collect(),
                    den,
                )
            }
            Reading::Pool(p) => p.counts(),
        }
    }

    /// The steps of the reading's counts, before they are made fractions.
    pub fn odds_cost(&self) -> u64 {
        match self {
            Reading::Total(e) => e.odds_cost().map_or(u64::MAX, |(w, _)| w),
            Reading::Pool(p) => p.odds_cost(),
        }
    }

    pub fn values_bound(&self) -> u64 {
        match self {
            Reading::Total(e) => e.odds_cost().map_or(u64::MAX, |(_, t)| t),
            Reading::Pool(p) => p.values_bound(),
        }
    }

    /// Bits of the denominator the reading's counts are over.
    pub(crate) fn den_bits(&self) -> f64 {
        match self {
            Reading::Total(e) => e
                .sum_dice()
                .0
                .iter()
                .map(|d| f64::from(d.count) * (d.total.max(1) as f64).log2())
                .sum(),
            Reading::Pool(p) => p.den_bits(),
        }
    }

    /// The lowest value to the highest, plus one (saturating).
    pub(crate) fn range_bound(&self) -> u64 {
        match self {
            Reading::Total(e) => e
                .bounds()
                .map_or(u64::MAX, |(lo, hi)| hi.abs_diff(lo).saturating_add(1)),
            Reading::Pool(p) => p.range_bound(),
        }
    }

    /// The steps of the reading's own counts and of its fractions.
    fn full_cost(&self) -> u64 {
        self.odds_cost().saturating_add(steps(super::big::fractions_cost(
            self.values_bound(),
            self.den_bits(),
            true,
        )))
    }
}

// --- rolls ---------------------------------------------------------------------------------

impl Roll {
    /// What the rules forbid, checked by the loader and again here: a forced re-roll needs a
    /// pool of numbered faces with no re-roll of its own; a chain rolls one kind of die.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Roll::Read(_) | Roll::Clamp { .. } | Roll::Product { .. } => Ok(()),
            Roll::Given { first, condition } => {
                if matches!(
                    first.pool.reroll,
                    Some(Reroll::One(_) | Reroll::Highest | Reroll::Lowest | Reroll::Failed)
                ) {
                    return Err(format!(
                        "`given` reads the dice as they lie, and `{}` re-rolls one die or the whole pool: drop that re-roll, or re-roll each die (`reroll 1`)",
                        first.pool
                    ));
                }
                if !condition.is_flag() {
                    return Err("`given` takes a yes or no after it (`any 6 in 2d6`)".into());
                }
                if matches!(first.read, Read::Explode(_)) {
                    return Err(format!(
                        "`{first}` rolls more dice as they explode, and `given` reads the dice rolled once: read the condition from dice that do not explode"
                    ));
                }
                let work = given_cost(first);
                if work > crate::limits::MAX_DICE_WORK {
                    return Err(format!(
                        "`given` reads every way the dice can fall, about {} steps here; servitor takes at most {} (`MAX_DICE_WORK`, see \"Limits\" in grammar/README.md): fewer dice",
                        crate::diagnostic::thousands(work),
                        crate::diagnostic::thousands(crate::limits::MAX_DICE_WORK)
                    ));
                }
                let (counts, _) = given_counts(first, condition);
                if counts.is_empty() {
                    return Err(format!(
                        "`{}` never comes up, so `given` has no roll to read",
                        self.condition_text()
                    ));
                }
                Ok(())
            }
            Roll::Times { count, .. } => match **count {
                Roll::Opposed { .. } => Err(format!(
                    "`{count}` is a contest, and `times` makes its roll once for each the first reads: read a number before `times` (a total, a count, a chain)"
                )),
                _ => count.check(),
            },
            Roll::Sequence(parts) => match parts.iter().find(|r| !r.is_flag()) {
                Some(r) => Err(format!(
                    "`{r}` is a number, and a sequence (`… then …`) is of yes-or-no rolls, each made while those before came to no: read it as a yes or no (`any …`, `all …`, `double in …`)"
                )),
                None => Ok(()),
            },
            Roll::Opposed {
                first,
                second,
                force,
                ties,
            } => {
                if let Some(force) = force {
                    let (side, reading) = if force.rerolls_first() {
                        ("first", first)
                    } else {
                        ("second", second)
                    };
                    match reading {
                        Reading::Pool(p) if matches!(p.read, Read::Explode(_)) => {
                            return Err(format!(
                                "the {side} side is made to re-roll a die, and its dice explode: a forced re-roll reads dice rolled once (`highest of …`)"
                            ));
                        }
                        Reading::Pool(p) if p.pool.reroll.is_none() => {}
                        Reading::Pool(_) => {
                            return Err(format!(
                                "the {side} side is made to re-roll a die, so its pool may not have a re-roll of its own (a die is rolled again at most once)"
                            ));
                        }
                        Reading::Total(_) => {
                            return Err(format!(
                                "the {side} side is made to re-roll its highest or lowest die: read it die by die (`highest of …`), not as a total"
                            ));
                        }
                    }
                }
                if *ties == Ties::Reroll {
                    // Rolling goes on while the sides tie: the rolls must be able to differ, and
                    // the exact odds of a decided round (drawn after many ties) must be affordable.
                    let work = self.odds_cost();
                    if work > crate::limits::MAX_DICE_WORK {
                        return Err(format!(
                            "`ties reroll` draws a decided round from the exact odds after {MAX_TIE_ROUNDS} ties, and those would take about {} steps; servitor takes at most {} (`MAX_DICE_WORK`, see \"Limits\" in docs/limits.md): use `ties none`, `first` or `second`, or fewer dice",
                            crate::diagnostic::thousands(work),
                            crate::diagnostic::thousands(crate::limits::MAX_DICE_WORK)
                        ));
                    }
                    let (margin, _) = self.margin_unchecked()?;
                    if margin.keys().all(|m| *m == 0) {
                        return Err("these two rolls always tie, so `ties reroll` would roll for ever: use `ties none`, `first` or `second`".into());
                    }
                }
                Ok(())
            }
            Roll::Chain { first, .. } => {
                if Roll::chain_die(first).is_none() {
                    return Err("a chain rolls one kind of die at every stage: its first pool must be one kind (`10d6`, `5 red`)".into());
                }
                Ok(())
            }
        }
    }

    /// The steps the exact odds take, estimated before any of them (saturating): the counts,
    /// the products of big numbers they take (by the words of those numbers) and the
    /// fractions they end as.
    pub fn odds_cost(&self) -> u64 {
        use super::big::{fractions_cost, mul_cost, words};
        match self {
            Roll::Read(r) | Roll::Clamp { inner: r, .. } => r.full_cost(),
            Roll::Given { first, .. } => {
                given_cost(first).saturating_add(steps(fractions_cost(first.values_bound(), first.den_bits(), true)))
            }
            Roll::Product { first, second } => {
                // Every value of one side times every value of the other: a product of counts
                // each, then the fractions of the products.
                let (abits, bbits) = (first.den_bits(), second.den_bits());
                let pairs = first.values_bound().saturating_mul(second.values_bound());
                first
                    .odds_cost()
                    .saturating_add(second.odds_cost())
                    .saturating_add(steps(pairs as f64 * mul_cost(words(abits), words(bbits)).max(1.0)))
                    .saturating_add(steps(fractions_cost(pairs, abits + bbits, true)))
            }
            Roll::Times { count, each } => {
                // The first roll's odds, then for each number k it can read up to its most, M:
                // the roll made k times as one more product of its counts (k × V values by V,
                // numbers of k words of its denominator), and each total of each k once as a
                // product of big numbers (M² × V of them).
                let first = count.odds_cost();
                if first > crate::limits::MAX_DICE_WORK {
                    return u64::MAX;
                }
                let (most, kbits) = match count.odds() {
                    Ok(Odds::Number(d)) => (
                        d.weights.keys().next_back().copied().unwrap_or(0).max(0) as f64,
                        d.weights.values().map(|p| p.denom().bits()).max().unwrap_or(0) as f64,
                    ),
                    Ok(Odds::Flag(p)) => (1.0, p.denom().bits() as f64),
                    _ => return u64::MAX,
                };
                let (v, bits) = (each.values_bound() as f64, each.den_bits());
                let big = mul_cost(words(most * bits), words(bits)).max(1.0);
                first
                    .saturating_add(each.odds_cost())
                    .saturating_add(steps(most * most * v * v * big / 2.0))
                    .saturating_add(steps(most * most * v * big))
                    .saturating_add(steps(fractions_cost((most * v) as u64 + 1, most * bits + kbits, true)))
            }
            Roll::Sequence(parts) => {
                // Each part's chance of yes, then one product of big numbers a part.
                let bits: f64 = parts.iter().map(|r| r.den_bits()).sum();
                parts
                    .iter()
                    .fold(0u64, |c, r| c.saturating_add(r.odds_cost()))
                    .saturating_add(steps(
                        parts.len() as f64 * 2.0 * mul_cost(words(bits), words(bits)).max(1.0),
                    ))
                    .saturating_add(steps(fractions_cost(1, bits, true)))
            }
            Roll::Opposed {
                first,
                second,
                force,
                ties,
            } => {
                let (abits, bbits) = (first.den_bits(), second.den_bits());
                let (ra, rb) = (first.range_bound(), second.range_bound());
                let mut base = first.odds_cost().saturating_add(second.odds_cost());
                let margins = ra.saturating_add(rb);
                let fractions = steps(fractions_cost(margins, abits + bbits, *ties != Ties::Reroll));
                match (force, force.map(|f| if f.rerolls_first() { first } else { second })) {
                    (Some(_), Some(Reading::Pool(p))) => {
                        let a = p.pool.alphabet();
                        let sets = a.kinds.iter().enumerate().fold(1u64, |s, (j, k)| {
                            s.saturating_mul(multisets(u64::from(k.n), a.support(j).count() as u64))
                        });
                        let faces = a.faces.len() as u64 + 1;
                        let other = if force.is_some_and(|f| f.rerolls_first()) {
                            second.values_bound()
                        } else {
                            first.values_bound()
                        };
                        let product = steps(mul_cost(words(abits), words(bbits))).max(1);
                        base.saturating_add(
                            sets.saturating_mul(faces)
                                .saturating_mul(faces.saturating_add(a.dice().into()))
                                .saturating_add(sets.saturating_mul(other).saturating_mul(faces))
                                .saturating_mul(product),
                        )
                        .saturating_add(fractions)
                    }
                    _ => {
                        let (_, combine) =
                            margin_cost(first.values_bound(), ra, abits, second.values_bound(), rb, bbits);
                        // `ties reroll` is checked (its margins computed) before it is read.
                        let times = if *ties == Ties::Reroll { 2 } else { 1 };
                        base = base.saturating_mul(times);
                        base.saturating_add(steps(combine * times as f64))
                            .saturating_add(fractions)
                    }
                }
            }
            Roll::Chain { first, stages } => {
                let n = first.pool.dice_count();
                let mut cost = first.odds_cost().saturating_add(n);
                if let Some(kind) = Roll::chain_die(first) {
                    // Every count is over the product of the stages' denominators.
                    let per_die = |r: &Option<Reroll>| matches!(r, None | Some(Reroll::Each(_)));
                    let mut bits = first.den_bits();
                    for stage in stages {
                        bits += stage_read(kind, n.min(u64::from(u32::MAX)) as u32, stage).den_bits();
                    }
                    let w = words(bits);
                    if per_die(&first.pool.reroll) && first.modifier == 0 && stages.iter().all(|s| per_die(&s.reroll)) {
                        // The binomial: a power and two products of big numbers per count.
                        cost = cost.saturating_add(steps(n as f64 * 3.0 * mul_cost(w, w)));
                    } else {
                        for stage in stages {
                            if !per_die(&stage.reroll) {
                                for k in 0..=n.min(u64::from(u32::MAX)) {
                                    cost = cost.saturating_add(stage_read(kind, k as u32, stage).odds_cost());
                                    if cost == u64::MAX {
                                        break;
                                    }
                                }
                            }
                            // Fractions multiplied and added, each with a gcd of their size.
                            let pairs = n.saturating_add(1).saturating_mul(n.saturating_add(2)) / 2;
                            cost = cost.saturating_add(steps(pairs as f64 * 2.0 * bits.max(64.0) * w));
                        }
                    }
                    cost = cost.saturating_add(steps(fractions_cost(n + 1, bits, true)));
                }
                cost
            }
        }
    }

    /// The exact odds. The work is what [`Roll::odds_cost`] says; callers check it first.
    /// Refused when the rules allow no answer (`ties reroll` on rolls that always tie).
    pub fn odds(&self) -> Result<Odds, String> {
        self.check()?;
        match self {
            Roll::Read(r) => {
                let (counts, den) = r.counts();
                if r.is_flag() {
                    let yes = counts.get(&1).cloned().unwrap_or_default();
                    Ok(Odds::Flag(fraction(yes, &den, Smooth::of(&den).as_ref())))
                } else {
                    Ok(Odds::Number(distribution_of(counts, &den)))
                }
            }
            Roll::Opposed { ties, .. } => {
                let (margin, den) = self.margin_unchecked()?;
                let mut first = BigUint::default();
                let mut second = BigUint::default();
                let mut tie = BigUint::default();
                for (m, c) in &margin {
                    match winner(*m, 0, *ties) {
                        Winner::First => first += c,
                        Winner::Second => second += c,
                        Winner::Tie => tie += c,
                    }
                }
                let mut margin = margin;
                let mut den = den;
                if *ties == Ties::Reroll {
                    // Ties roll again until one side wins: the decided rounds, renormalised.
                    if tie == den {
                        return Err(format!(
                            "`{self}` always ties, so `ties reroll` would roll for ever: use `ties none`, `first` or `second`"
                        ));
                    }
                    margin.remove(&0);
                    den -= &tie;
                    tie = BigUint::default();
                }
                let smooth = Smooth::of(&den);
                let frac = |c: BigUint| fraction(c, &den, smooth.as_ref());
                Ok(Odds::Opposed {
                    first: frac(first),
                    second: frac(second),
                    tie: frac(tie),
                    margin: distribution_of(margin, &den),
                })
            }
            Roll::Chain { first, stages } => Ok(Odds::Number(chain(first, stages))),
            Roll::Product { first, second } => {
                let (a, da) = first.counts();
                let (b, db) = second.counts();
                let mut product: BTreeMap<i64, BigUint> = BTreeMap::new();
                for (x, cx) in &a {
                    for (y, cy) in &b {
                        *product.entry(x.saturating_mul(*y)).or_default() += cx * cy;
                    }
                }
                Ok(Odds::Number(distribution_of(product, &(da * db))))
            }
            Roll::Times { count, each } => {
                // How often each number k comes up (over one denominator), times each total of
                // the roll made k times, over the roll's denominator to the most times.
                let ks: Vec<(i64, BigRational)> = match count.odds()? {
                    Odds::Number(d) => d.weights.into_iter().collect(),
                    Odds::Flag(yes) => vec![(0, BigRational::one() - &yes), (1, yes)],
                    Odds::Opposed { .. } => return Err("`times` needs a number before it".into()),
                };
                let den_k = ks.iter().fold(BigInt::one(), |l, (_, p)| l.lcm(p.denom()));
                let most = ks.iter().map(|(k, _)| (*k).max(0)).max().unwrap_or(0);
                let (each_counts, de) = each.counts();
                let mut power: BTreeMap<i64, BigUint> = BTreeMap::from([(0, BigUint::one())]);
                let mut total: BTreeMap<i64, BigUint> = BTreeMap::new();
                let mut k = 0i64;
                for (n, p) in &ks {
                    let n = (*n).max(0);
                    while k < n {
                        let mut next: BTreeMap<i64, BigUint> = BTreeMap::new();
                        for (x, cx) in &power {
                            for (y, cy) in &each_counts {
                                *next.entry(x.saturating_add(*y)).or_default() += cx * cy;
                            }
                        }
                        power = next;
                        k += 1;
                    }
                    let weight = (p * BigRational::from_integer(den_k.clone())).to_integer();
                    let weight = weight.to_biguint().unwrap_or_default() * de.pow((most - n) as u32);
                    for (v, c) in &power {
                        *total.entry(*v).or_default() += &weight * c;
                    }
                }
                let den = den_k.to_biguint().unwrap_or_default() * de.pow(most as u32);
                Ok(Odds::Number(distribution_of(total, &den)))
            }
            Roll::Sequence(parts) => {
                // No, every time: the product of each part's chance of no.
                let mut none = BigUint::one();
                let mut den = BigUint::one();
                for r in parts {
                    let (counts, d) = r.counts();
                    let yes = counts.get(&1).cloned().unwrap_or_default();
                    none *= &d - yes;
                    den *= d;
                }
                let yes = &den - none;
                Ok(Odds::Flag(fraction(yes, &den, Smooth::of(&den).as_ref())))
            }
            Roll::Given { first, condition } => {
                let (counts, den) = given_counts(first, condition);
                if first.read.is_flag() {
                    let yes = counts.get(&1).cloned().unwrap_or_default();
                    Ok(Odds::Flag(fraction(yes, &den, Smooth::of(&den).as_ref())))
                } else {
                    Ok(Odds::Number(distribution_of(counts, &den)))
                }
            }
            Roll::Clamp { inner, least, most } => {
                let (counts, den) = inner.counts();
                let mut held: BTreeMap<i64, BigUint> = BTreeMap::new();
                for (v, c) in counts {
                    *held.entry(clamp(v, *least, *most)).or_default() += c;
                }
                Ok(Odds::Number(distribution_of(held, &den)))
            }
        }
    }

    /// An opposed roll's counts of each margin (first − second) over one denominator, forced
    /// re-rolls made (ties not yet re-rolled): without a forced re-roll the sides are
    /// independent, and the margins are one product of polynomials. The caller has checked the
    /// roll.
    fn margin_unchecked(&self) -> Result<Counts, String> {
        match self {
            Roll::Opposed {
                first,
                second,
                force: None,
                ..
            } => Ok(margin_counts(&first.counts(), &second.counts())),
            _ => {
                let (joint, den) = self.joint_unchecked()?;
                let mut margin: BTreeMap<i64, BigUint> = BTreeMap::new();
                for ((a, b), c) in joint {
                    *margin.entry(a.saturating_sub(b)).or_default() += c;
                }
                Ok((margin, den))
            }
        }
    }

    /// An opposed roll's joint counts of (first, second) over one denominator, forced re-rolls
    /// made (ties not yet re-rolled). The caller has checked the roll.
    fn joint_unchecked(&self) -> Result<Joint, String> {
        let Roll::Opposed {
            first,
            second,
            ties,
            force,
        } = self
        else {
            return Err("not an opposed roll".into());
        };
        let mut joint: BTreeMap<(i64, i64), BigUint> = BTreeMap::new();
        let Some(force) = force else {
            let (a, da) = first.counts();
            let (b, db) = second.counts();
            for (x, cx) in &a {
                for (y, cy) in &b {
                    *joint.entry((*x, *y)).or_default() += cx * cy;
                }
            }
            return Ok((joint, da * db));
        };
        let made_first = force.rerolls_first();
        let (made, other) = if made_first { (first, second) } else { (second, first) };
        let Reading::Pool(pr) = made else {
            return Err("a forced re-roll needs a pool read die by die".into());
        };
        let (o, d_other) = other.counts();
        let a = pr.pool.alphabet();
        let rule = if force.highest { Reroll::Highest } else { Reroll::Lowest };
        let l = totals_lcm(&a);
        // Group the multisets by (reading, readings after the re-roll).
        let mut groups: BTreeMap<(i64, Vec<(i64, u64)>), BigUint> = BTreeMap::new();
        multiset_rerolled::<BigUint>(&a, &pr.read, &rule, &mut |before, w, after| {
            let after = after
                .unwrap_or_default()
                .into_iter()
                .map(|(v, c)| (pr.finish(v), c))
                .collect();
            *groups.entry((pr.finish(before), after)).or_default() += w;
            Some(())
        });
        let d_made = a.denominator::<BigUint>().unwrap_or_else(BigUint::one) * l;
        for ((v, after), w) in &groups {
            for (ov, oc) in &o {
                let (fv, sv) = if made_first { (*v, *ov) } else { (*ov, *v) };
                let would = winner(fv, sv, *ties);
                // The forcing side's other would win.
                let trigger =
                    (force.by_second && would == Winner::First) || (!force.by_second && would == Winner::Second);
                if trigger && !after.is_empty() {
                    for (nv, nc) in after {
                        let key = if made_first { (*nv, *ov) } else { (*ov, *nv) };
                        *joint.entry(key).or_default() += w * oc * *nc;
                    }
                } else {
                    *joint.entry((fv, sv)).or_default() += w * oc * l;
                }
            }
        }
        Ok((joint, d_made * d_other))
    }
}

/// The decided round of an opposed roll drawn from its exact odds: (first, second). Used by
/// rolling after [`MAX_TIE_ROUNDS`] ties in a row, so that rolling never disagrees with the
/// odds however unlikely a decision is.
pub(crate) fn draw_decided(roll: &Roll, rng: &mut Rng) -> (i64, i64) {
    let Roll::Opposed {
        first,
        second,
        ties,
        force,
    } = roll
    else {
        return (0, 0);
    };
    if force.is_none() {
        // The sides are independent: the first side's value drawn from the decided rounds
        // (its chance times the other's of not tying with it), then the second's from what
        // does not tie with it.
        let (a, _) = first.counts();
        let (b, db) = second.counts();
        let decides = |x: i64, y: i64| winner(x, y, *ties) != Winner::Tie;
        let weights: Vec<(i64, BigUint)> = a
            .iter()
            .map(|(x, cx)| {
                let tying: BigUint = b.iter().filter(|(y, _)| !decides(*x, **y)).map(|(_, c)| c).sum();
                (*x, cx * (&db - tying))
            })
            .collect();
        let Some(x) = draw(&weights, rng) else {
            return (0, 0);
        };
        let others: Vec<(i64, BigUint)> = b
            .iter()
            .filter(|(y, _)| decides(x, **y))
            .map(|(y, c)| (*y, c.clone()))
            .collect();
        return (x, draw(&others, rng).unwrap_or(0));
    }
    let Ok((joint, _)) = roll.joint_unchecked() else {
        return (0, 0);
    };
    let decided: Vec<((i64, i64), BigUint)> = joint
        .into_iter()
        .filter(|((a, b), _)| winner(*a, *b, *ties) != Winner::Tie)
        .collect();
    draw(&decided, rng).unwrap_or((0, 0))
}

/// One die exploding at most `depth` times: the counts of each total over faces^(depth + 1).
fn explode_die(values: &[i64], depth: u32) -> BTreeMap<i64, BigUint> {
    let f = BigUint::from(values.len() as u64);
    let top = values.iter().copied().max().unwrap_or(0);
    // The last roll: its faces as they are.
    let mut counts: BTreeMap<i64, BigUint> = BTreeMap::new();
    for v in values {
        *counts.entry(*v).or_default() += 1u32;
    }
    let mut scale = BigUint::one();
    for _ in 0..depth {
        // One roll before: a face under the top stands (weighed as the rolls after it), the
        // top adds the rolls after it.
        let mut next: BTreeMap<i64, BigUint> = BTreeMap::new();
        scale *= &f;
        for v in values {
            if *v == top {
                for (x, c) in &counts {
                    *next.entry(top.saturating_add(*x)).or_default() += c;
                }
            } else {
                *next.entry(*v).or_default() += &scale;
            }
        }
        counts = next;
    }
    counts
}

/// A pool of exploding dice: each die's counts, added die by die.
fn explode_counts(pool: &Pool, depth: u32) -> Counts {
    let mut total: BTreeMap<i64, BigUint> = BTreeMap::from([(0, BigUint::one())]);
    let mut den = BigUint::one();
    for (n, kind) in &pool.dice {
        let values = kind.values();
        let one = explode_die(&values, depth);
        let d = BigUint::from(values.len() as u64).pow(depth + 1);
        for _ in 0..*n {
            let mut next: BTreeMap<i64, BigUint> = BTreeMap::new();
            for (x, cx) in &total {
                for (y, cy) in &one {
                    *next.entry(x.saturating_add(*y)).or_default() += cx * cy;
                }
            }
            total = next;
            den *= &d;
        }
    }
    (total, den)
}

/// The totals a pool of exploding dice can reach, at most (saturating).
fn explode_values(pool: &Pool, depth: u32) -> u64 {
    pool.dice.iter().fold(1u64, |s, (n, k)| {
        let v = k.values();
        let spread = v.iter().max().unwrap_or(&0).abs_diff(*v.iter().min().unwrap_or(&0));
        s.saturating_add(
            u64::from(*n)
                .saturating_mul(u64::from(depth) + 1)
                .saturating_mul(spread.saturating_add(1)),
        )
    })
}

/// The steps of a pool of exploding dice: each die's counts (depth × faces × its totals), then
/// each die added to the running totals (its totals × the running totals), in big numbers.
fn explode_cost(pool: &Pool, depth: u32) -> u64 {
    let words = |bits: f64| if bits < 120.0 { 1.0 } else { 1.0 + bits / 64.0 };
    let bits: f64 = pool
        .dice
        .iter()
        .map(|(n, k)| f64::from(*n) * f64::from(depth + 1) * (k.values().len().max(1) as f64).log2())
        .sum();
    let mut cost = 0.0f64;
    let mut running = 1.0f64;
    for (n, k) in &pool.dice {
        let faces = k.values().len() as f64;
        let die = f64::from(depth + 1) * faces;
        cost += f64::from(depth) * faces * die;
        for _ in 0..(*n).min(100_000) {
            cost += running * die;
            running += die;
        }
    }
    let s = cost * words(bits) + explode_values(pool, depth) as f64;
    if s.is_finite() && s < u64::MAX as f64 {
        s as u64
    } else {
        u64::MAX
    }
}

/// A pool of exploding dice: the chance some die shows its highest face on its last roll, and
/// so would roll again past the depth (that face then stands).
pub fn explode_rest(pool: &Pool, depth: u32) -> BigRational {
    let mut none = BigRational::one();
    for (n, kind) in &pool.dice {
        let values = kind.values();
        let top = values.iter().copied().max().unwrap_or(0);
        let tops = values.iter().filter(|v| **v == top).count();
        let p = BigRational::new(BigInt::from(tops), BigInt::from(values.len())).pow((depth + 1) as i32);
        none *= (BigRational::one() - p).pow(*n as i32);
    }
    BigRational::one() - none
}

/// The steps of a `given` roll's counts: every multiset of the pool's faces, each read twice.
fn given_cost(first: &PoolRead) -> u64 {
    let a = first.pool.alphabet();
    let sets = a
        .kinds
        .iter()
        .map(|k| multisets(u64::from(k.n), a.faces.len() as u64))
        .fold(1u64, u64::saturating_mul);
    let bits = first.den_bits();
    let words = if bits < 120.0 { 1 } else { 1 + (bits / 64.0) as u64 };
    sets.saturating_mul(a.faces.len() as u64 + 8).saturating_mul(words)
}

/// A `given` roll's counts of each reading over the rolls whose condition holds (their count
/// the denominator): every multiset of the pool's faces, read by the condition and the reading.
fn given_counts(first: &PoolRead, condition: &Read) -> Counts {
    let a = first.pool.alphabet();
    let mut out: BTreeMap<i64, BigUint> = BTreeMap::new();
    let mut den = BigUint::default();
    each_multiset::<BigUint>(&a, &mut |sets, w| {
        let mut combined = vec![0u32; a.faces.len()];
        for s in sets {
            for (c, x) in combined.iter_mut().zip(s) {
                *c += x;
            }
        }
        if read_counts(condition, &a, &combined) != 0 {
            *out.entry(first.finish(read_counts(&first.read, &a, &combined)))
                .or_default() += w;
            den += w;
        }
        Some(())
    });
    out.retain(|_, c| !Zero::is_zero(c));
    (out, den)
}

/// A `given` roll's reading drawn from its exact odds (rolling, after many rolls turned down).
pub(crate) fn draw_given(roll: &Roll, rng: &mut Rng) -> i64 {
    let Roll::Given { first, condition } = roll else {
        return 0;
    };
    let (counts, _) = given_counts(first, condition);
    let weights: Vec<(i64, BigUint)> = counts.into_iter().collect();
    draw(&weights, rng).unwrap_or(0)
}

/// One key drawn by its weight.
fn draw<K: Copy>(weights: &[(K, BigUint)], rng: &mut Rng) -> Option<K> {
    let total: BigUint = weights.iter().map(|(_, c)| c).sum();
    let mut pick = rng.below_big(&total);
    for (key, c) in weights {
        if pick < *c {
            return Some(*key);
        }
        pick -= c;
    }
    weights.last().map(|(k, _)| *k)
}

/// The counts of each margin (a − b) of two independent readings, over the product of their
/// denominators: one product of polynomials (the second's reversed) when their values lie
/// close enough together to be laid in a row, else pair by pair — whichever costs less.
fn margin_counts(a: &Counts, b: &Counts) -> Counts {
    let (am, ad) = a;
    let (bm, bd) = b;
    let den = ad * bd;
    let mut out: BTreeMap<i64, BigUint> = BTreeMap::new();
    let (Some((&alo, _)), Some((&ahi, _)), Some((&blo, _)), Some((&bhi, _))) = (
        am.first_key_value(),
        am.last_key_value(),
        bm.first_key_value(),
        bm.last_key_value(),
    ) else {
        return (out, den);
    };
    let abits = am.values().map(BigUint::bits).max().unwrap_or(0) as f64;
    let bbits = bm.values().map(BigUint::bits).max().unwrap_or(0) as f64;
    let ra = ahi.abs_diff(alo).saturating_add(1);
    let rb = bhi.abs_diff(blo).saturating_add(1);
    if dense_is_cheaper(am.len() as u64, ra, abits, bm.len() as u64, rb, bbits) {
        let mut pa = vec![<BigUint as Zero>::zero(); ra as usize];
        for (v, c) in am {
            pa[v.abs_diff(alo) as usize] = c.clone();
        }
        let mut pb = vec![<BigUint as Zero>::zero(); rb as usize];
        for (v, c) in bm {
            pb[bhi.abs_diff(*v) as usize] = c.clone();
        }
        let base = alo.saturating_sub(bhi);
        for (i, c) in super::big::poly_mul(&pa, &pb).into_iter().enumerate() {
            if !Zero::is_zero(&c) {
                out.insert(base.saturating_add(i as i64), c);
            }
        }
    } else {
        for (x, cx) in am {
            for (y, cy) in bm {
                *out.entry(x.saturating_sub(*y)).or_default() += cx * cy;
            }
        }
    }
    (out, den)
}

/// Whether two readings' margins cost less as one product of polynomials (over the rows of
/// their values, `ra` and `rb` long) than pair by pair (`la` × `lb` products), and what the
/// cheaper costs, in word operations.
fn margin_cost(la: u64, ra: u64, abits: f64, lb: u64, rb: u64, bbits: f64) -> (bool, f64) {
    use super::big::{mul_cost, poly_mul_cost, words};
    let pairs = la as f64 * lb as f64 * (mul_cost(words(abits), words(bbits)) + words(abits + bbits));
    let dense = if ra.max(rb) > 1 << 26 {
        f64::INFINITY
    } else {
        poly_mul_cost(ra, abits, rb, bbits)
    };
    if dense < pairs { (true, dense) } else { (false, pairs) }
}

fn dense_is_cheaper(la: u64, ra: u64, abits: f64, lb: u64, rb: u64, bbits: f64) -> bool {
    margin_cost(la, ra, abits, lb, rb, bbits).0
}

/// A chain's distribution: one binomial when every stage reads each die on its own (an
/// attack comes through with the product of the stages' chances), else stage by stage.
fn chain(first: &PoolRead, stages: &[Stage]) -> Distribution {
    let Some(kind) = Roll::chain_die(first) else {
        return first.distribution();
    };
    let n = first.pool.dice_count() as u32;
    let per_die = |r: &Option<Reroll>| matches!(r, None | Some(Reroll::Each(_)));
    if per_die(&first.pool.reroll) && first.modifier == 0 && stages.iter().all(|s| per_die(&s.reroll)) {
        // Each stage's chance as yes / total, its re-roll folded in; a stage's faces that
        // meet the next stage's `unless` come through that stage unrolled.
        let chance = |pool: &Pool, target: &Target, unless: Option<&Target>| {
            let a = pool.alphabet();
            let k = &a.kinds[0];
            let (mut y, mut through) = (0u64, 0u64);
            for i in (0..a.faces.len()).filter(|&i| target.accepts(&a.faces[i])) {
                if unless.is_some_and(|u| u.accepts(&a.faces[i])) {
                    through += k.weights[i];
                } else {
                    y += k.weights[i];
                }
            }
            (y, through, k.total)
        };
        let Read::Count(t) = &first.read else {
            return first.distribution();
        };
        let mut parts: Vec<(&Pool, &Target)> = Vec::new();
        let pools: Vec<Pool> = stages.iter().map(|s| stage_read(kind, 1, s).pool).collect();
        parts.push((&first.pool, t));
        for (s, p) in stages.iter().zip(&pools) {
            parts.push((p, &s.target));
        }
        let mut p = BigRational::one();
        let mut i = 0;
        while i < parts.len() {
            let unless = stages.get(i).and_then(|s| s.unless.as_ref());
            let (y, through, t) = chance(parts[i].0, parts[i].1, unless);
            let mut step = BigRational::new(BigInt::from(y), BigInt::from(t));
            if unless.is_some() {
                // Through unrolled, or on to the next stage's roll.
                let (y2, _, t2) = chance(parts[i + 1].0, parts[i + 1].1, None);
                step = BigRational::new(BigInt::from(through), BigInt::from(t))
                    + step * BigRational::new(BigInt::from(y2), BigInt::from(t2));
                i += 1;
            }
            p *= step;
            i += 1;
        }
        let mut yes = p.numer().to_biguint().unwrap_or_default();
        let mut total = p.denom().to_biguint().unwrap_or_else(BigUint::one);
        // In lowest terms: the counts then share no factor with the denominator but the
        // binomial's, and are reduced cheaply.
        let g = yes.gcd(&total);
        if !Zero::is_zero(&g) {
            yes /= &g;
            total /= &g;
        }
        let no = &total - &yes;
        let row = binomial_row::<BigUint>(n).unwrap_or_default();
        let mut counts = BTreeMap::new();
        let mut yk = BigUint::one();
        let nos: Vec<BigUint> = (0..=n)
            .scan(BigUint::one(), |p, _| {
                let out = p.clone();
                *p *= &no;
                Some(out)
            })
            .collect();
        for k in 0..=n {
            let c = &row[k as usize] * &yk * &nos[(n - k) as usize];
            counts.insert(i64::from(k), c);
            yk *= &yes;
        }
        let den = num_traits::pow(total, n as usize);
        return distribution_of(counts, &den);
    }
    // Stage by stage, as fractions.
    let mut dist: BTreeMap<i64, BigRational> = first.distribution().weights;
    for s in stages {
        let mut next: BTreeMap<i64, BigRational> = BTreeMap::new();
        for (k, p) in &dist {
            let stage = stage_read(kind, (*k).max(0) as u32, s);
            for (j, q) in stage.distribution().weights {
                *next.entry(j).or_insert_with(super::zero) += p * q;
            }
        }
        dist = next;
    }
    Distribution { weights: dist }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::rng::{DieAsk, Forced};
    use crate::dice::{DieKind, Face};
    use num_bigint::BigInt;
    use std::sync::{Arc, Mutex};

    /// Every way the rolling code can go, each with its chance: the dice it asks for are given
    /// one path at a time, odometer-fashion, so the odds computed here are those of `roll`
    /// itself. Returns each result's exact chance.
    fn enumerate<K: Ord + Clone>(mut run: impl FnMut(&mut Rng) -> K) -> BTreeMap<K, BigRational> {
        #[derive(Default)]
        struct Path {
            chosen: Vec<u64>,
            sizes: Vec<u64>,
            at: usize,
        }
        let path = Arc::new(Mutex::new(Path::default()));
        let mut out: BTreeMap<K, BigRational> = BTreeMap::new();
        let mut leaves = 0;
        loop {
            path.lock().unwrap().at = 0;
            let p = path.clone();
            let forced = Forced {
                ask: Some(Box::new(move |ask: &DieAsk| {
                    let mut p = p.lock().unwrap();
                    let i = p.at;
                    p.at += 1;
                    if i == p.chosen.len() {
                        p.chosen.push(0);
                        p.sizes.push(ask.faces.len() as u64);
                    }
                    Some(p.chosen[i] + 1)
                })),
                ..Forced::default()
            };
            let mut rng = Rng::seeded(0).with_forced(Arc::new(Mutex::new(forced)));
            let result = run(&mut rng);
            let mut p = path.lock().unwrap();
            let used = p.at;
            p.chosen.truncate(used);
            p.sizes.truncate(used);
            let weight = p.sizes.iter().fold(BigInt::one(), |w, s| w * BigInt::from(*s));
            *out.entry(result).or_insert_with(crate::dice::zero) += BigRational::new(BigInt::one(), weight);
            leaves += 1;
            assert!(leaves < 2_000_000, "too many ways to enumerate");
            // The next path.
            loop {
                let Some(last) = p.chosen.last_mut() else {
                    return out;
                };
                *last += 1;
                let size = *p.sizes.last().unwrap();
                if *p.chosen.last().unwrap() < size {
                    break;
                }
                p.chosen.pop();
                p.sizes.pop();
            }
        }
    }

    fn d(n: u32) -> DieKind {
        match n {
            3 => DieKind::Halved,
            n => DieKind::Numbered(n),
        }
    }

    fn custom(id: &str, faces: &[(Option<&str>, Option<i64>)]) -> DieKind {
        DieKind::Custom {
            id: id.into(),
            faces: faces
                .iter()
                .map(|(n, v)| Face {
                    name: n.map(str::to_string),
                    value: *v,
                })
                .collect(),
        }
    }

    fn at_least(n: i64) -> Target {
        Target {
            test: Test::AtLeast(n),
            fail: false,
        }
    }

    fn exactly(n: i64) -> Target {
        Target {
            test: Test::Between(n, n),
            fail: false,
        }
    }

    fn pool(dice: Vec<(u32, DieKind)>, reroll: Option<Reroll>) -> Pool {
        Pool { dice, reroll }
    }

    fn pr(pool: &Pool, read: Read, modifier: i64) -> PoolRead {
        PoolRead {
            pool: pool.clone(),
            read,
            modifier,
        }
    }

    /// The exact engine against every way `roll` can go, for one reading.
    fn agrees(read: &PoolRead) {
        let exact = read.distribution().weights;
        let rolled = enumerate(|rng| read.roll(rng).value);
        assert_eq!(exact, rolled, "{read}");
        let cost = read.odds_cost();
        assert!(cost > 0 && cost < 10_000_000, "{read}: cost {cost}");
    }

    fn reads(n: u32) -> Vec<Read> {
        let mut out = vec![
            Read::Sum,
            Read::Count(at_least(5)),
            Read::Count(Target {
                test: Test::AtLeast(3),
                fail: true,
            }),
            Read::Any(exactly(6)),
            Read::All(Target {
                test: Test::Between(1, 2),
                fail: false,
            }),
            Read::Same(2),
            Read::Same(3),
        ];
        for k in 0..=n + 1 {
            out.push(Read::Keep { highest: true, n: k });
            out.push(Read::Keep { highest: false, n: k });
        }
        out
    }

    fn rerolls() -> Vec<Option<Reroll>> {
        vec![
            None,
            Some(Reroll::Each(exactly(1))),
            Some(Reroll::Each(Target {
                test: Test::AtLeast(4),
                fail: true,
            })),
            Some(Reroll::One(Target {
                test: Test::AtLeast(3),
                fail: true,
            })),
            Some(Reroll::Highest),
            Some(Reroll::Lowest),
            Some(Reroll::Failed),
        ]
    }

    /// Every reading, every re-roll rule, on pools of one kind, of two kinds, with a d3 and
    /// with a die by faces: the exact odds equal the enumeration of the rolling code.
    #[test]
    fn every_reading_and_reroll_agrees_with_rolling() {
        let white = custom(
            "white",
            &[(None, Some(0)), (None, Some(0)), (None, Some(1)), (None, Some(2))],
        );
        let pools = vec![
            vec![(3, d(6))],
            vec![(2, d(4)), (1, d(6))],
            vec![(2, d(3))],
            vec![(2, white.clone()), (1, d(4))],
            vec![(1, d(6))],
        ];
        let mut checked = 0;
        for dice in &pools {
            let n: u32 = dice.iter().map(|(c, _)| c).sum();
            for reroll in rerolls() {
                let p = pool(dice.clone(), reroll.clone());
                for read in reads(n) {
                    if matches!(reroll, Some(Reroll::Failed))
                        && !matches!(read, Read::Count(_) | Read::Any(_) | Read::All(_) | Read::Same(_))
                    {
                        continue;
                    }
                    agrees(&pr(&p, read, 0));
                    checked += 1;
                }
            }
        }
        agrees(&pr(&pool(vec![(3, d(6))], None), Read::Keep { highest: true, n: 1 }, 2));
        assert!(checked > 300, "{checked}");
    }

    /// Which die a re-roll of one die takes, among dice of several kinds showing the same face,
    /// is declared (`Pool::reroll_rank`), never the order the pool is written in: every reading
    /// and re-roll rule gives the same odds, and the same rolls, either way round.
    #[test]
    fn the_die_a_reroll_takes_does_not_depend_on_the_order_written() {
        let white = custom(
            "white",
            &[(None, Some(0)), (None, Some(0)), (None, Some(1)), (None, Some(2))],
        );
        for reroll in rerolls() {
            for read in reads(3) {
                if matches!(reroll, Some(Reroll::Failed)) && matches!(read, Read::Sum | Read::Keep { .. }) {
                    continue;
                }
                let a = pr(
                    &pool(vec![(2, d(3)), (1, white.clone())], reroll.clone()),
                    read.clone(),
                    0,
                );
                let b = pr(&pool(vec![(1, white.clone()), (2, d(3))], reroll.clone()), read, 0);
                assert_eq!(a.distribution(), b.distribution(), "{a} / {b}");
                assert_eq!(
                    enumerate(|rng| a.roll(rng).value),
                    enumerate(|rng| b.roll(rng).value),
                    "{a} / {b}"
                );
            }
        }
    }

    /// The kept total in closed form over the faces equals the face-by-face walk, for dice
    /// numbered, halved, by faces with repeated numbers, and with `reroll N` folded in.
    #[test]
    fn kept_totals_in_closed_form_equal_the_walk_face_by_face() {
        let white = custom(
            "white",
            &[(None, Some(0)), (None, Some(0)), (None, Some(1)), (None, Some(2))],
        );
        for kind in [d(6), d(3), white, d(10)] {
            for reroll in [None, Some(Reroll::Each(exactly(1)))] {
                for n in 1..=6u32 {
                    for keep in 1..n {
                        for highest in [true, false] {
                            let p = pool(vec![(n, kind.clone())], reroll.clone());
                            let a = p.alphabet();
                            let walk = keep_counts::<BigUint>(&a, highest, keep).unwrap();
                            let (closed, den) = keep_counts_one_kind(&a, highest, keep);
                            assert_eq!(den, a.denominator::<BigUint>().unwrap());
                            let walk: BTreeMap<i64, BigUint> =
                                walk.into_iter().filter(|(_, c)| !Zero::is_zero(c)).collect();
                            assert_eq!(closed, walk, "{n} {kind:?} keep {keep} highest {highest}");
                        }
                    }
                }
            }
        }
        // The highest of 235d6 is 6 unless every die shows 5 or less: 1 − (5/6)^235.
        let big = pr(&pool(vec![(235, d(6))], None), Read::Keep { highest: true, n: 1 }, 0);
        assert!(big.keep_in_closed_form());
        let six = BigRational::one() - num_traits::pow(BigRational::new(5.into(), 6.into()), 235);
        assert_eq!(big.distribution().weights[&6], six);
    }

    /// Totals by squaring equal dice added one by one.
    #[test]
    fn totals_by_squaring_equal_dice_added_one_by_one() {
        let dice = vec![
            SumDie {
                faces: vec![(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)],
                total: 6,
                count: 40,
            },
            SumDie {
                faces: vec![(0, 2), (5, 1)],
                total: 3,
                count: 7,
            },
        ];
        let plan = sum_plan(&dice);
        let (squared, den) = sum_counts_squared(&dice, &plan);
        let (added, den2) = sum_counts_in::<BigUint>(&dice).unwrap();
        assert_eq!(den, den2);
        assert_eq!(squared, added);
        // 10d1000 is worked out by squaring: 1 way in 1000^10 to roll 10.
        let ten = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 10,
                kind: d(1000),
            },
        )]);
        let (dice, _) = ten.sum_dice();
        assert!(sum_plan(&dice).squaring);
        let dist = ten.distribution().weights;
        assert_eq!(
            dist[&10],
            BigRational::new(1.into(), num_traits::pow(BigInt::from(1000), 10))
        );
        assert_eq!(dist.len(), 9991);
    }

    /// Faces with names: counted by name, doubles by face (two faces named alike with
    /// different numbers are different faces).
    #[test]
    fn faces_by_name() {
        let scatter = custom(
            "scatter",
            &[
                (Some("hit"), None),
                (Some("hit"), None),
                (Some("arrow"), Some(0)),
                (Some("arrow"), Some(90)),
                (Some("arrow"), Some(180)),
                (Some("arrow"), Some(270)),
            ],
        );
        let hit = Target {
            test: Test::Named("hit".into()),
            fail: false,
        };
        for reroll in [None, Some(Reroll::One(hit.clone())), Some(Reroll::Each(hit.clone()))] {
            let p = pool(vec![(3, scatter.clone())], reroll);
            for read in [
                Read::Count(hit.clone()),
                Read::Any(hit.clone()),
                Read::All(hit.clone()),
                Read::Same(2),
                Read::Same(3),
            ] {
                agrees(&pr(&p, read, 0));
            }
        }
        // Two scatter dice: a double is two hits (4/36) or the same arrow (4/36).
        let double = pr(&pool(vec![(2, scatter)], None), Read::Same(2), 0);
        assert_eq!(double.distribution().weights[&1].to_string(), "2/9");
    }

    fn opposed_agrees(roll: &Roll) {
        let Ok(Odds::Opposed {
            first,
            second,
            tie,
            margin,
        }) = roll.odds()
        else {
            panic!("{roll}: not opposed odds");
        };
        let rolled = enumerate(|rng| match roll.roll(rng) {
            Rolled::Opposed { winner, margin, .. } => (winner.word(), margin),
            _ => unreachable!(),
        });
        let mut by_winner: BTreeMap<&str, BigRational> = BTreeMap::new();
        let mut by_margin: BTreeMap<i64, BigRational> = BTreeMap::new();
        for ((w, m), p) in &rolled {
            *by_winner.entry(w).or_insert_with(crate::dice::zero) += p;
            *by_margin.entry(*m).or_insert_with(crate::dice::zero) += p;
        }
        let get = |w: &str| by_winner.get(w).cloned().unwrap_or_else(crate::dice::zero);
        assert_eq!(
            (get("first"), get("second"), get("tie")),
            (first, second, tie),
            "{roll}"
        );
        assert_eq!(by_margin, margin.weights, "{roll}");
    }

    #[test]
    fn opposed_rolls_with_every_tie_rule_and_forced_rerolls_agree_with_rolling() {
        let highest =
            |n: u32, m: i64| Reading::Pool(pr(&pool(vec![(n, d(6))], None), Read::Keep { highest: true, n: 1 }, m));
        for ties in [Ties::Stand, Ties::First, Ties::Second] {
            for force in [
                None,
                Some(Force {
                    by_second: true,
                    highest: true,
                    own: false,
                }),
                Some(Force {
                    by_second: false,
                    highest: false,
                    own: false,
                }),
                Some(Force {
                    by_second: true,
                    highest: true,
                    own: true,
                }),
                Some(Force {
                    by_second: false,
                    highest: false,
                    own: true,
                }),
            ] {
                let roll = Roll::Opposed {
                    first: highest(3, 0),
                    second: highest(1, 1),
                    ties,
                    force,
                };
                opposed_agrees(&roll);
            }
            let sums = Roll::Opposed {
                first: Reading::Total(DiceExpr::new(vec![(false, Part::Dice { count: 2, kind: d(4) })])),
                second: highest(2, 1),
                ties,
                force: None,
            };
            opposed_agrees(&sums);
        }
    }

    /// The close assault of the issue: three dice against one, highest die each, a tie kills
    /// nobody. By hand: P(max of 3d6 = m) = (m³ − (m−1)³)/216; the single die beats it with
    /// Σ_m P(m)·(6 − m)/6 = 25/144, ties with Σ_m P(m)/6 = 1/6, so the three dice win 95/144.
    #[test]
    fn three_dice_against_one_highest_wins() {
        let roll = Roll::Opposed {
            first: Reading::Pool(pr(&pool(vec![(3, d(6))], None), Read::Keep { highest: true, n: 1 }, 0)),
            second: Reading::Pool(pr(&pool(vec![(1, d(6))], None), Read::Keep { highest: true, n: 1 }, 0)),
            ties: Ties::Stand,
            force: None,
        };
        let Ok(Odds::Opposed { first, second, tie, .. }) = roll.odds() else {
            panic!()
        };
        assert_eq!(
            (first.to_string(), second.to_string(), tie.to_string()),
            ("95/144".into(), "25/144".into(), "1/6".into())
        );
    }

    /// Ties rolled again: rolling goes on until the sides differ; the odds are the decided
    /// rounds' renormalised. Checked on rolls where a tie is likely (enumeration stops after
    /// two rounds of ties by making the third round certain: d1 against d1 never ends, so
    /// that one is refused).
    #[test]
    fn ties_rerolled_are_renormalised_and_endless_ties_refused() {
        let one = |n: u32| Reading::Pool(pr(&pool(vec![(1, d(n))], None), Read::Sum, 0));
        let roll = Roll::Opposed {
            first: one(2),
            second: one(3),
            ties: Ties::Reroll,
            force: None,
        };
        let Ok(Odds::Opposed { first, second, tie, .. }) = roll.odds() else {
            panic!()
        };
        // d2 vs d3: first wins (2>1) 1/6, second wins 3/6, ties 2/6; renormalised 1/4, 3/4.
        assert_eq!(
            (first.to_string(), second.to_string(), tie.to_string()),
            ("1/4".into(), "3/4".into(), "0".into())
        );
        let never = Roll::Opposed {
            first: one(1),
            second: one(1),
            ties: Ties::Reroll,
            force: None,
        };
        assert!(never.odds().unwrap_err().contains("always tie"));
    }

    fn chain_agrees(roll: &Roll) {
        let Ok(Odds::Number(dist)) = roll.odds() else {
            panic!("{roll}")
        };
        let rolled = enumerate(|rng| roll.roll(rng).value());
        assert_eq!(dist.weights, rolled, "{roll}");
    }

    #[test]
    fn chains_agree_with_rolling() {
        let stage = |t: Target, reroll: Option<Reroll>| Stage {
            target: t,
            reroll,
            unless: None,
        };
        let fail3 = Target {
            test: Test::AtLeast(3),
            fail: true,
        };
        for first_reroll in [
            None,
            Some(Reroll::Each(exactly(1))),
            Some(Reroll::Failed),
            Some(Reroll::One(fail3.clone())),
        ] {
            for second_reroll in [None, Some(Reroll::Each(exactly(1))), Some(Reroll::Failed)] {
                let roll = Roll::Chain {
                    first: pr(
                        &pool(vec![(2, d(4))], first_reroll.clone()),
                        Read::Count(at_least(3)),
                        0,
                    ),
                    stages: vec![stage(at_least(2), second_reroll), stage(fail3.clone(), None)],
                };
                chain_agrees(&roll);
            }
        }
    }

    /// Ten shots hitting on 3+, wounding on 4+, saved on 3+: each shot comes through with
    /// (2/3)(1/2)(1/3) = 1/9, so none does with (8/9)^10 = 1073741824/3486784401 and the mean
    /// is 10/9.
    #[test]
    fn the_three_stage_chain_of_the_issue() {
        let roll = Roll::Chain {
            first: pr(&pool(vec![(10, d(6))], None), Read::Count(at_least(3)), 0),
            stages: vec![
                Stage {
                    target: at_least(4),
                    reroll: None,
                    unless: None,
                },
                Stage {
                    target: Target {
                        test: Test::AtLeast(3),
                        fail: true,
                    },
                    reroll: None,
                    unless: None,
                },
            ],
        };
        let Ok(Odds::Number(dist)) = roll.odds() else { panic!() };
        assert_eq!(dist.weights[&0].to_string(), "1073741824/3486784401");
        let mean = dist
            .weights
            .iter()
            .fold(crate::dice::zero(), |m, (v, p)| m + p * BigInt::from(*v));
        assert_eq!(mean.to_string(), "10/9");
    }

    /// A hit on any 6 of 2d6 is 1 − (5/6)² = 11/36; a double is 6/36 = 1/6.
    #[test]
    fn any_six_and_doubles_on_two_dice() {
        let two = pool(vec![(2, d(6))], None);
        assert_eq!(
            pr(&two, Read::Any(exactly(6)), 0).distribution().weights[&1].to_string(),
            "11/36"
        );
        assert_eq!(pr(&two, Read::Same(2), 0).distribution().weights[&1].to_string(), "1/6");
    }

    /// Totals are counted as they fall: two faces far apart make two totals per die, and a
    /// hundred such dice 101, not millions.
    #[test]
    fn totals_are_counted_as_they_really_fall() {
        let big = custom("big", &[(None, Some(0)), (None, Some(1_000_000))]);
        let one = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 1,
                kind: big.clone(),
            },
        )]);
        assert_eq!(one.odds_cost().unwrap().1, 2);
        let hundred = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 100,
                kind: big.clone(),
            },
        )]);
        let (work, totals) = hundred.odds_cost().unwrap();
        assert_eq!(totals, 101);
        assert!(work < 50_000, "{work}");
        assert_eq!(hundred.distribution().weights.len(), 101);
        let spread = custom("spread", &[(None, Some(0)), (None, Some(1)), (None, Some(1_000_000))]);
        let three = DiceExpr::new(vec![(false, Part::Dice { count: 3, kind: spread })]);
        assert_eq!(three.odds_cost().unwrap().1, 10);
        assert_eq!(three.distribution().weights.len(), 10);
        // 3d1000: 2,998 totals.
        let d1000 = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 3,
                kind: d(1000),
            },
        )]);
        assert_eq!(d1000.odds_cost().unwrap().1, 2998);
    }

    #[test]
    fn drawing_big_numbers_stays_below() {
        let mut rng = Rng::seeded(5);
        let n = num_traits::pow(BigUint::from(6u8), 40) + 7u8;
        for _ in 0..200 {
            assert!(rng.below_big(&n) < n);
        }
        assert_eq!(rng.below_big(&BigUint::default()), BigUint::default());
    }

    /// The best two of 1000d1000 (the grammar README's example) come within the limit by
    /// prefix sums, and its extremes are what a hand says: 2000 when two dice or more show
    /// 1000, 1 − (999/1000)^1000 − 1000 · (1/1000) · (999/1000)^999; 2 only when all show 1.
    #[test]
    fn best_two_of_a_thousand_thousand_sided_dice() {
        for highest in [true, false] {
            let r = Roll::Read(Reading::Pool(pr(
                &pool(vec![(1000, d(1000))], None),
                Read::Keep { highest, n: 2 },
                0,
            )));
            assert!(r.odds_cost() <= crate::limits::MAX_DICE_WORK, "{}", r.odds_cost());
            let Ok(Odds::Number(dist)) = r.odds() else {
                panic!("a number")
            };
            let q = BigRational::new(999.into(), 1000.into());
            let at_top = BigRational::one() - num_traits::pow(q.clone(), 1000) - num_traits::pow(q, 999);
            let all = num_traits::pow(BigRational::new(1.into(), 1000.into()), 1000);
            let (top, bottom) = if highest { (&at_top, &all) } else { (&all, &at_top) };
            assert_eq!(&dist.weights[&2000], top);
            assert_eq!(&dist.weights[&2], bottom);
            assert_eq!(dist.weights.len(), 1999);
            let sum = dist.weights.values().fold(BigRational::zero(), |a, p| a + p);
            assert!(sum.is_one());
        }
    }

    /// Yes-or-no readings of one roll taken together equal every ordered way the dice can
    /// fall, each read by the rolling code's own `evaluate`.
    #[test]
    fn joint_flags_equal_every_way_the_dice_fall() {
        let white = custom(
            "white",
            &[(None, Some(0)), (None, Some(0)), (None, Some(1)), (None, Some(2))],
        );
        let pools = [
            pool(vec![(2, d(6))], None),
            pool(vec![(3, d(6))], None),
            pool(vec![(2, d(6)), (1, white.clone())], None),
            pool(vec![(1, white), (2, d(3))], None),
        ];
        let reads = [
            Read::Any(at_least(6)),
            Read::Same(2),
            Read::All(at_least(2)),
            Read::Any(exactly(1)),
        ];
        let refs: Vec<&Read> = reads.iter().collect();
        for p in &pools {
            let joint = joint_flags(p, &refs).unwrap();
            let ways = enumerate(|rng| {
                let shown: Vec<Shown> = p
                    .dice
                    .iter()
                    .flat_map(|(n, kind)| (0..*n).map(|_| kind.roll_shown(rng).1).collect::<Vec<_>>())
                    .collect();
                let shown: Vec<&Shown> = shown.iter().collect();
                reads.iter().map(|r| evaluate(r, &shown) != 0).collect::<Vec<bool>>()
            });
            let ways: BTreeMap<Vec<bool>, BigRational> = ways.into_iter().filter(|(_, c)| !c.is_zero()).collect();
            let joint: BTreeMap<Vec<bool>, BigRational> = joint.into_iter().collect();
            assert_eq!(joint, ways, "{p}");
        }
        // A pool that re-rolls one die is not one multiset's reading: refused.
        assert!(joint_flags(&pool(vec![(2, d(6))], Some(Reroll::Highest)), &refs).is_none());
        // A number is not a yes or no.
        assert!(joint_flags(&pool(vec![(2, d(6))], None), &[&Read::Sum]).is_none());
    }
}
