//! Dice: expressions (`2d6+4`, `d66`, `2 red + 1 white`), dice defined by their faces,
//! rolling through the seeded [`Rng`], and exact distributions as fractions.
//!
//! A [`DiceExpr`] is numbered dice, `d3` (a d6 halved), `d66` (tens and units), dice by
//! faces, and modifiers. Its [`Distribution`] is exact (`BigRational`): the dice are
//! convolved as whole counts over one denominator, over the totals they can really reach.
//! `odds_cost` says the work before any is done; the loader checks it against `limits.rs`.
//! Dice read die by die are [`read`] (rolled) and [`exact`] (their odds); [`rng`] is the one
//! source of randomness. `faces_shown` lists which face one die with named faces shows, each
//! with its chance (`odds --dice scatter`).

mod big;
pub mod exact;
pub mod float;
pub mod read;
pub mod rng;

pub use exact::Odds;
pub use float::to_f64;
pub use read::{Pool, PoolRead, Read, Reading, Reroll, Roll, Rolled, Target, Test};
pub use rng::Rng;

use num_bigint::BigInt;
use num_rational::BigRational;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// One face of a die defined by its faces: a number, a symbol, or a symbol carrying a
/// number (`arrow(90)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Face {
    pub name: Option<String>,
    pub value: Option<i64>,
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, self.value) {
            (Some(n), Some(v)) => write!(f, "{n}({v})"),
            (Some(n), None) => f.write_str(n),
            (None, Some(v)) => write!(f, "{v}"),
            (None, None) => f.write_str("?"),
        }
    }
}

/// What kind of die a dice term rolls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DieKind {
    /// A fair die numbered 1..=sides.
    Numbered(u32),
    /// `d3`: a d6 halved, rounding up.
    Halved,
    /// `d66`: two d6, the first read as tens and the second as units.
    Tens,
    /// A die declared with `die`, by its faces.
    Custom { id: String, faces: Arc<[Face]> },
}

impl DieKind {
    pub fn name(&self) -> String {
        match self {
            DieKind::Numbered(s) => format!("d{s}"),
            DieKind::Halved => "d3".into(),
            DieKind::Tens => "d66".into(),
            DieKind::Custom { id, .. } => id.clone(),
        }
    }

    /// Each possible value with its weight (faces of equal probability).
    pub(crate) fn values(&self) -> Vec<i64> {
        match self {
            DieKind::Numbered(s) => (1..=*s as i64).collect(),
            DieKind::Halved => vec![1, 1, 2, 2, 3, 3],
            DieKind::Tens => (1..=6).flat_map(|t| (1..=6).map(move |u| 10 * t + u)).collect(),
            DieKind::Custom { faces, .. } => faces.iter().map(|f| f.value.unwrap_or(0)).collect(),
        }
    }

    /// Each face as a reading sees it (its number and its name), one entry per face.
    pub(crate) fn shown_faces(&self) -> Vec<Shown> {
        match self {
            DieKind::Custom { faces, .. } => faces
                .iter()
                .map(|f| Shown {
                    value: f.value,
                    name: f.name.as_deref().map(Arc::from),
                })
                .collect(),
            _ => self.values().into_iter().map(Shown::number).collect(),
        }
    }

    pub(crate) fn roll(&self, rng: &mut Rng) -> RolledDie {
        self.roll_shown(rng).0
    }

    /// One die rolled, and its face as a reading sees it.
    pub(crate) fn roll_shown(&self, rng: &mut Rng) -> (RolledDie, Shown) {
        let die = self.name();
        match self {
            DieKind::Numbered(s) => {
                let value = rng.die(*s as u64) as i64 + 1;
                (RolledDie::plain(die, value), Shown::number(value))
            }
            DieKind::Halved => {
                let d6 = rng.die(6) as i64 + 1;
                let value = (d6 + 1) / 2;
                let rolled = RolledDie {
                    die,
                    value,
                    face: None,
                    raw: vec![d6],
                    negative: false,
                };
                (rolled, Shown::number(value))
            }
            DieKind::Tens => {
                let tens = rng.die(6) as i64 + 1;
                let units = rng.die(6) as i64 + 1;
                let rolled = RolledDie {
                    die,
                    value: tens * 10 + units,
                    face: None,
                    raw: vec![tens, units],
                    negative: false,
                };
                (rolled, Shown::number(tens * 10 + units))
            }
            DieKind::Custom { faces, .. } => {
                let describe = || crate::dice::rng::DieAsk {
                    die: die.clone(),
                    faces: faces.iter().map(|f| f.to_string()).collect(),
                    ..Default::default()
                };
                let face = &faces[rng.die_asking(faces.len() as u64, &describe) as usize];
                // A named face shows its number too: `arrow(0)`, but plain `hit`.
                let shown = face.name.as_ref().map(|_| face.to_string());
                let rolled = RolledDie {
                    die,
                    value: face.value.unwrap_or(0),
                    face: shown,
                    raw: Vec::new(),
                    negative: false,
                };
                let read = Shown {
                    value: face.value,
                    name: face.name.as_deref().map(Arc::from),
                };
                (rolled, read)
            }
        }
    }
}

/// One face as a reading sees it: its number (a face may have none) and its name (a face may
/// have none). Ordered by number, faces without one first, then by name: "highest" and
/// "lowest" follow this order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shown {
    pub value: Option<i64>,
    pub name: Option<Arc<str>>,
}

impl Shown {
    pub fn number(value: i64) -> Self {
        Shown {
            value: Some(value),
            name: None,
        }
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.name, self.value) {
            (Some(n), Some(v)) => write!(f, "{n}({v})"),
            (Some(n), None) => f.write_str(n),
            (None, Some(v)) => write!(f, "{v}"),
            (None, None) => f.write_str("?"),
        }
    }
}

/// `count` dice of one kind, or a constant modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Dice { count: u32, kind: DieKind },
    Modifier(i64),
}

/// A sum of dice and modifiers, each added or subtracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceExpr {
    pub parts: Vec<(bool, Part)>,
    /// The canonical text (`2d6+4`), made once: every roll carries it.
    text: Arc<str>,
}

/// One die as it landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RolledDie {
    pub die: String,
    pub value: i64,
    /// The face's symbol, for dice with named faces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub face: Option<String>,
    /// The physical dice behind a `d3` (one d6) or a `d66` (two d6).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub raw: Vec<i64>,
    /// Taken away from the total (`-d6+7`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub negative: bool,
}

impl RolledDie {
    fn plain(die: String, value: i64) -> Self {
        RolledDie {
            die,
            value,
            face: None,
            raw: Vec::new(),
            negative: false,
        }
    }
}

/// A rolled dice expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiceRoll {
    pub expr: Arc<str>,
    pub dice: Vec<RolledDie>,
    pub modifier: i64,
    pub total: i64,
}

impl DiceRoll {
    /// A number drawn between `lo` and `hi` (a script's `random(lo, hi)`, a tie broken by the
    /// dice), logged as a roll of one die with those faces: `random 1-4: 3`.
    pub fn random(lo: i64, hi: i64, value: i64) -> DiceRoll {
        DiceRoll {
            expr: format!("random {lo}-{hi}").into(),
            dice: vec![RolledDie {
                die: format!("{lo}-{hi}"),
                value,
                face: None,
                raw: Vec::new(),
                negative: false,
            }],
            modifier: 0,
            total: value,
        }
    }
}

impl fmt::Display for DiceRoll {
    /// `2d6: 3 + 5 = 8`, `d66: 3,5 → 35`, `d3: 5 → 3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.expr)?;
        if self.dice.is_empty() && self.modifier == 0 {
            // A total drawn from the exact odds, with no dice to show.
            return write!(f, "{} (drawn)", self.total);
        }
        for (i, d) in self.dice.iter().enumerate() {
            match (i, d.negative) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            f.write_str(&describe_die(d))?;
        }
        if self.modifier != 0 {
            let sign = if self.modifier < 0 { '-' } else { '+' };
            write!(f, " {sign} {}", self.modifier.abs())?;
        }
        if self.dice.len() > 1 || self.modifier != 0 {
            write!(f, " = {}", self.total)?;
        }
        Ok(())
    }
}

impl fmt::Display for RolledDie {
    /// The face shown (`5`, `hit`, `[3,5→35]`), without its sign.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_die(self))
    }
}

fn describe_die(d: &RolledDie) -> String {
    let mut s = match &d.face {
        Some(face) => face.clone(),
        None => d.value.to_string(),
    };
    if !d.raw.is_empty() {
        let raw: Vec<String> = d.raw.iter().map(i64::to_string).collect();
        s = format!("[{}→{}]", raw.join(","), s);
    }
    s
}

impl DiceExpr {
    pub fn new(parts: Vec<(bool, Part)>) -> Self {
        let text = Arc::from(render(&parts));
        DiceExpr { parts, text }
    }

    pub fn constant(n: i64) -> Self {
        DiceExpr::new(vec![(false, Part::Modifier(n))])
    }

    /// True when the expression rolls at least one die.
    pub fn has_dice(&self) -> bool {
        self.parts.iter().any(|(_, p)| matches!(p, Part::Dice { .. }))
    }

    /// Custom dice with a face that has no number cannot give a total.
    pub fn symbolic_faces(&self) -> Option<&str> {
        self.parts.iter().find_map(|(_, p)| match p {
            Part::Dice {
                kind: DieKind::Custom { id, faces },
                ..
            } if faces.iter().any(|f| f.value.is_none()) => Some(id.as_str()),
            _ => None,
        })
    }

    /// One die alone (no modifier): each face it can show, as a player names it (`hit`,
    /// `arrow(90)`, `3`), with its chance — equal faces once, their chances added, in the
    /// die's order. `None` for anything but a single die.
    pub fn faces_shown(&self) -> Option<Vec<(Shown, BigRational)>> {
        let [(false, Part::Dice { count: 1, kind })] = self.parts.as_slice() else {
            return None;
        };
        let faces = kind.shown_faces();
        let all = faces.len() as i64;
        let mut out: Vec<(Shown, i64)> = Vec::new();
        for f in faces {
            match out.iter_mut().find(|(g, _)| *g == f) {
                Some((_, n)) => *n += 1,
                None => out.push((f, 1)),
            }
        }
        Some(
            out.into_iter()
                .map(|(f, n)| (f, BigRational::new(BigInt::from(n), BigInt::from(all))))
                .collect(),
        )
    }

    pub fn roll(&self, rng: &mut Rng) -> DiceRoll {
        let physical: usize = self
            .parts
            .iter()
            .map(|(_, p)| match p {
                Part::Dice { count, kind } => *count as usize * if matches!(kind, DieKind::Tens) { 2 } else { 1 },
                Part::Modifier(_) => 0,
            })
            .sum();
        rng.rolling(Some((&self.text, physical)));
        let rolled = self.roll_dice(rng);
        rng.rolling(None);
        rolled
    }

    fn roll_dice(&self, rng: &mut Rng) -> DiceRoll {
        let mut dice = Vec::new();
        let mut modifier = 0;
        let mut total = 0;
        for (negative, part) in &self.parts {
            let sign: i64 = if *negative { -1 } else { 1 };
            match part {
                // The loader bounds dice, faces and modifiers (`limits.rs`): no sum comes near
                // the ends of an i64, and these saturate rather than wrap if one ever did.
                Part::Modifier(n) => {
                    modifier = sign.saturating_mul(*n).saturating_add(modifier);
                    total = sign.saturating_mul(*n).saturating_add(total);
                }
                Part::Dice { count, kind } => {
                    for _ in 0..*count {
                        let mut die = kind.roll(rng);
                        total = sign.saturating_mul(die.value).saturating_add(total);
                        die.negative = *negative;
                        dice.push(die);
                    }
                }
            }
        }
        DiceRoll {
            expr: self.text.clone(),
            dice,
            modifier,
            total,
        }
    }

    /// How many dice the expression rolls (saturating).
    pub fn dice_count(&self) -> u64 {
        self.parts
            .iter()
            .map(|(_, p)| match p {
                Part::Dice { count, .. } => u64::from(*count),
                Part::Modifier(_) => 0,
            })
            .fold(0, u64::saturating_add)
    }

    /// Smallest and largest possible totals; `None` if they do not fit in an `i64`.
    pub fn bounds(&self) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (0i64, 0i64);
        for (negative, part) in &self.parts {
            let (a, b) = match part {
                Part::Modifier(n) => (*n, *n),
                Part::Dice { count, kind } => {
                    let values = kind.values();
                    let min = values.iter().copied().min().unwrap_or(0);
                    let max = values.iter().copied().max().unwrap_or(0);
                    let n = i64::from(*count);
                    (min.checked_mul(n)?, max.checked_mul(n)?)
                }
            };
            let (a, b) = if *negative {
                (b.checked_neg()?, a.checked_neg()?)
            } else {
                (a, b)
            };
            lo = lo.checked_add(a)?;
            hi = hi.checked_add(b)?;
        }
        Some((lo, hi))
    }

    /// What the exact distribution costs to compute, before any of it: the steps (dice are
    /// added one by one, each step one running total and one face) and how many different
    /// totals it can have at most. Totals are counted as the dice can really make them: the
    /// fewer of the totals on the dice's common step (a die with faces 0 and 20,000 makes two,
    /// not 20,001) and the multisets of faces the dice can show. Both saturate; `None` when
    /// the totals do not fit in an `i64`.
    pub fn odds_cost(&self) -> Option<(u64, u64)> {
        self.bounds()?;
        let (dice, _) = self.sum_dice();
        let plan = exact::sum_plan(&dice);
        Some((plan.work, plan.totals))
    }

    /// The exact distribution of the total. The work is bounded by [`DiceExpr::odds_cost`],
    /// which the loader checks against the limits before any distribution is asked for.
    pub fn distribution(&self) -> Distribution {
        let (dice, offset) = self.sum_dice();
        let (counts, denominator) = exact::sum_counts(&dice);
        let counts = counts
            .into_iter()
            .map(|(total, c)| (total.saturating_add(offset), c))
            .collect();
        exact::distribution_of(counts, &denominator)
    }
}

impl fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `2d6+4`, `d66`, `2 red + 1 white`: custom dice are written with spaces around them.
fn render(parts: &[(bool, Part)]) -> String {
    let is_custom = |p: &Part| {
        matches!(
            p,
            Part::Dice {
                kind: DieKind::Custom { .. },
                ..
            }
        )
    };
    let mut out = String::new();
    for (i, (negative, part)) in parts.iter().enumerate() {
        if i == 0 {
            if *negative {
                out.push('-');
            }
        } else {
            let op = if *negative { "-" } else { "+" };
            if is_custom(part) || is_custom(&parts[i - 1].1) {
                out.push_str(&format!(" {op} "));
            } else {
                out.push_str(op);
            }
        }
        match part {
            Part::Modifier(n) => out.push_str(&n.to_string()),
            Part::Dice {
                count,
                kind: DieKind::Custom { id, .. },
            } => out.push_str(&format!("{count} {id}")),
            Part::Dice { count: 1, kind } => out.push_str(&kind.name()),
            Part::Dice { count, kind } => out.push_str(&format!("{count}{}", kind.name())),
        }
    }
    out
}

/// Exact probabilities of integer totals, as fractions.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    pub weights: BTreeMap<i64, BigRational>,
}

impl Distribution {
    pub fn certain(value: i64) -> Self {
        Distribution {
            weights: BTreeMap::from([(value, BigRational::from_integer(1.into()))]),
        }
    }

    pub fn uniform(values: impl IntoIterator<Item = i64>) -> Self {
        let values: Vec<i64> = values.into_iter().collect();
        let each = BigRational::new(BigInt::from(1), BigInt::from(values.len().max(1)));
        let mut weights = BTreeMap::new();
        for v in values {
            *weights.entry(v).or_insert_with(zero) += &each;
        }
        Distribution { weights }
    }
}

pub fn zero() -> BigRational {
    BigRational::from_integer(0.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(count: u32, sides: u32) -> (bool, Part) {
        (
            false,
            Part::Dice {
                count,
                kind: DieKind::Numbered(sides),
            },
        )
    }

    #[test]
    fn two_d6_plus_four() {
        let expr = DiceExpr::new(vec![numbered(2, 6), (false, Part::Modifier(4))]);
        assert_eq!(expr.to_string(), "2d6+4");
        assert_eq!(expr.bounds(), Some((6, 16)));
        let p = &expr.distribution().weights[&11];
        assert_eq!(p.to_string(), "1/6");
    }

    #[test]
    fn d66_has_36_results() {
        let expr = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 1,
                kind: DieKind::Tens,
            },
        )]);
        let dist = expr.distribution();
        assert_eq!(dist.weights.len(), 36);
        assert!(dist.weights.values().all(|p| p.to_string() == "1/36"));
        assert!(dist.weights.contains_key(&11) && dist.weights.contains_key(&66));
    }

    #[test]
    fn d3_is_a_halved_d6() {
        let expr = DiceExpr::new(vec![(
            false,
            Part::Dice {
                count: 1,
                kind: DieKind::Halved,
            },
        )]);
        let dist = expr.distribution();
        assert_eq!(dist.weights.keys().copied().collect::<Vec<_>>(), vec![1, 2, 3]);
        let mut rng = Rng::seeded(3);
        for _ in 0..100 {
            let roll = expr.roll(&mut rng);
            assert_eq!(roll.total, (roll.dice[0].raw[0] + 1) / 2);
        }
    }

    /// The exact distribution agrees with counting every way the dice can fall.
    #[test]
    fn distribution_matches_enumeration() {
        let white = DieKind::Custom {
            id: "white".into(),
            faces: [0, 0, 0, 1, 2, 2]
                .iter()
                .map(|&v| Face {
                    name: None,
                    value: Some(v),
                })
                .collect(),
        };
        let expr = DiceExpr::new(vec![
            (
                false,
                Part::Dice {
                    count: 2,
                    kind: white.clone(),
                },
            ),
            (
                false,
                Part::Dice {
                    count: 1,
                    kind: DieKind::Halved,
                },
            ),
            (
                true,
                Part::Dice {
                    count: 1,
                    kind: DieKind::Numbered(4),
                },
            ),
            (false, Part::Modifier(2)),
        ]);
        let mut counts: BTreeMap<i64, u32> = BTreeMap::new();
        let w = white.values();
        let h = DieKind::Halved.values();
        for a in &w {
            for b in &w {
                for c in &h {
                    for d in 1..=4 {
                        *counts.entry(a + b + c - d + 2).or_default() += 1;
                    }
                }
            }
        }
        let all = 36 * 6 * 4;
        let expected: BTreeMap<i64, BigRational> = counts
            .into_iter()
            .map(|(t, c)| (t, BigRational::new(BigInt::from(c), BigInt::from(all))))
            .collect();
        assert_eq!(expr.distribution().weights, expected);
        assert_eq!(expr.bounds(), Some((-1, 8)));
        let (work, totals) = expr.odds_cost().unwrap();
        assert_eq!(totals, 10);
        assert!(work > 0 && work < 100);
    }
}
