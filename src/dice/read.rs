//! Dice read die by die: the highest or lowest of a pool, how many dice meet a target, doubles,
//! re-rolls, one roll against another, and chains whose successes feed the next roll.
//!
//! A [`Roll`] is plain data. It is rolled here, through the one seeded [`Rng`], and its exact
//! odds are computed in [`exact`](super::exact); both follow the rules written on each type
//! below (which die a re-roll takes, when a forced re-roll happens, what a tie does), so a roll
//! and its odds agree by construction.
//!
//! [`roll_declared`] reads a record's rolls from one roll of each of its dice fields, so the
//! readings of one field see the same dice.

use super::{DiceExpr, DiceRoll, DieKind, Part, Rng, RolledDie, Shown};
use serde::Serialize;
use std::fmt;

/// Which faces count: `5+`, `6`, `1..2`, a face's name (`skull`), a tagged face (`arrow(90)`),
/// or none at all (a chart's `none`); `fail` turns it round (`fail 3+`: the dice that do not
/// reach 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub test: Test,
    pub fail: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Test {
    /// `5+`: the face's number is at least this.
    AtLeast(i64),
    /// `6` (both ends equal) or `1..2`.
    Between(i64, i64),
    /// `skull`: the face has this name (with any number: `arrow` is every `arrow(n)`).
    Named(String),
    /// `arrow(90)`: the face has this name and carries this number (a tagged face).
    Tagged(String, i64),
    /// No face (`none`, e.g. a chart's "cannot wound").
    Never,
}

impl Target {
    pub fn accepts(&self, face: &Shown) -> bool {
        let meets = match &self.test {
            Test::AtLeast(n) => face.value.is_some_and(|v| v >= *n),
            Test::Between(lo, hi) => face.value.is_some_and(|v| *lo <= v && v <= *hi),
            Test::Named(name) => face.name.as_deref() == Some(name.as_str()),
            Test::Tagged(name, n) => face.name.as_deref() == Some(name.as_str()) && face.value == Some(*n),
            Test::Never => false,
        };
        meets != self.fail
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.fail {
            f.write_str("fail ")?;
        }
        match &self.test {
            Test::AtLeast(n) => write!(f, "{n}+"),
            Test::Between(lo, hi) if lo == hi => write!(f, "{lo}"),
            Test::Between(lo, hi) => write!(f, "{lo}..{hi}"),
            Test::Named(name) => f.write_str(name),
            Test::Tagged(name, n) => write!(f, "{name}({n})"),
            Test::Never => f.write_str("none"),
        }
    }
}

/// A pool's one re-roll rule. A die is never rolled a third time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reroll {
    /// `reroll 1`: every die meeting the target is rolled again, once; the new face stands.
    Each(Target),
    /// `reroll one 0`: one die meeting the target is rolled again — the lowest such face (of
    /// the dice showing it, one of the kind [`Pool::reroll_rank`] puts first).
    One(Target),
    /// `reroll highest` / `reroll lowest`: the highest (lowest) die is rolled again — among
    /// equals, one of the kind [`Pool::reroll_rank`] puts first.
    Highest,
    Lowest,
    /// `reroll failed`: when the reading comes to nothing (no, or 0), the whole pool is rolled
    /// again, once.
    Failed,
}

impl fmt::Display for Reroll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reroll::Each(t) => write!(f, "reroll {t}"),
            Reroll::One(t) => write!(f, "reroll one {t}"),
            Reroll::Highest => f.write_str("reroll highest"),
            Reroll::Lowest => f.write_str("reroll lowest"),
            Reroll::Failed => f.write_str("reroll failed"),
        }
    }
}

/// Dice rolled together and read die by die: `3d6`, `2 red + 1 white`, each kind with its
/// count, and at most one re-roll rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    pub dice: Vec<(u32, DieKind)>,
    pub reroll: Option<Reroll>,
}

impl Pool {
    pub fn dice_count(&self) -> u64 {
        self.dice.iter().map(|(n, _)| u64::from(*n)).sum()
    }

    /// The dice as an expression (`2 red + 1 white`), for their text.
    fn as_expr(&self) -> DiceExpr {
        DiceExpr::new(
            self.dice
                .iter()
                .map(|(count, kind)| {
                    (
                        false,
                        Part::Dice {
                            count: *count,
                            kind: kind.clone(),
                        },
                    )
                })
                .collect(),
        )
    }

    /// Which kind of die a re-roll of one die takes when dice of several kinds show the face
    /// it takes (`reroll one`, `highest`, `lowest`, a forced re-roll): the kind whose faces
    /// average highest — the die a player re-rolls for the best new face —, then by the die's
    /// name; never the order the pool is written in. Each kind's place in that order.
    pub fn reroll_rank(&self) -> Vec<usize> {
        let mean = |k: &DieKind| {
            let v = k.values();
            (v.iter().map(|x| i128::from(*x)).sum::<i128>(), v.len().max(1) as i128)
        };
        let mut order: Vec<usize> = (0..self.dice.len()).collect();
        order.sort_by(|&a, &b| {
            let ((sa, na), (sb, nb)) = (mean(&self.dice[a].1), mean(&self.dice[b].1));
            (sb * na)
                .cmp(&(sa * nb))
                .then_with(|| self.dice[a].1.name().cmp(&self.dice[b].1.name()))
                .then(a.cmp(&b))
        });
        let mut rank = vec![0; order.len()];
        for (place, kind) in order.into_iter().enumerate() {
            rank[kind] = place;
        }
        rank
    }

    /// Whether a die of the pool has a face by this name (`hit`, `arrow` of `arrow(90)`).
    pub fn has_face_named(&self, name: &str) -> bool {
        self.dice
            .iter()
            .any(|(_, k)| k.shown_faces().iter().any(|f| f.name.as_deref() == Some(name)))
    }

    /// A die kind whose faces include one without a number, if any.
    pub fn symbolic_die(&self) -> Option<String> {
        self.dice.iter().find_map(|(_, k)| match k {
            DieKind::Custom { id, faces } if faces.iter().any(|f| f.value.is_none()) => Some(id.clone()),
            _ => None,
        })
    }
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_expr())?;
        if let Some(r) = &self.reroll {
            write!(f, " {r}")?;
        }
        Ok(())
    }
}

/// How a pool is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// The total of every die (`2d6 reroll 1`).
    Sum,
    /// `highest 2 of 3d6` / `lowest of 2d6`: the total of the `n` highest (lowest) dice.
    Keep { highest: bool, n: u32 },
    /// `count 5+ in 3d6`: how many dice meet the target.
    Count(Target),
    /// `any 6 in 2d6`: yes when at least one die meets the target.
    Any(Target),
    /// `all 1 in 2d6`: yes when every die meets it.
    All(Target),
    /// `double in 2d6` (2), `triple in 3d6` (3), `same 4 in 6d6`: yes when at least `n` dice
    /// show the same face.
    Same(u32),
    /// `total 10+ in 2d6`: yes when the dice's total meets the target (a 10 or more).
    Total(Target),
    /// `d6 explode`, `2d6 explode 3`: the total, each die showing its highest face rolled
    /// again and added, at most `depth` times a die (the last roll's highest face stands).
    Explode(u32),
}

/// How many times `explode` alone rolls a die again, at most (the mean of an
/// exploding d6, 84652645/20155392, is this depth's).
pub const EXPLODE_DEPTH: u32 = 9;

impl Read {
    /// Yes or no (1 or 0), rather than a number.
    pub fn is_flag(&self) -> bool {
        matches!(self, Read::Any(_) | Read::All(_) | Read::Same(_) | Read::Total(_))
    }

    /// Whether the faces' numbers matter (every face then needs one).
    pub fn needs_numbers(&self) -> bool {
        matches!(self, Read::Sum | Read::Keep { .. } | Read::Total(_) | Read::Explode(_))
    }
}

/// A pool and how it is read, plus a modifier added to a number (`highest of d6 + 1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRead {
    pub pool: Pool,
    pub read: Read,
    pub modifier: i64,
}

impl PoolRead {
    /// The reading as written with `pool` for its dice: `any 6 in dice` for a record's field.
    pub fn text_with_pool(&self, pool: &str) -> String {
        let body = match &self.read {
            Read::Sum => pool.to_string(),
            Read::Keep { highest, n } => {
                let word = if *highest { "highest" } else { "lowest" };
                if *n == 1 {
                    format!("{word} of {pool}")
                } else {
                    format!("{word} {n} of {pool}")
                }
            }
            Read::Count(t) => format!("count {t} in {pool}"),
            Read::Any(t) => format!("any {t} in {pool}"),
            Read::All(t) => format!("all {t} in {pool}"),
            Read::Same(2) => format!("double in {pool}"),
            Read::Same(3) => format!("triple in {pool}"),
            Read::Same(n) => format!("same {n} in {pool}"),
            Read::Total(t) => format!("total {t} in {pool}"),
            Read::Explode(EXPLODE_DEPTH) => format!("{pool} explode"),
            Read::Explode(depth) => format!("{pool} explode {depth}"),
        };
        match self.modifier {
            0 => body,
            m if m < 0 => format!("{body} - {}", m.unsigned_abs()),
            m => format!("{body} + {m}"),
        }
    }
}

impl fmt::Display for PoolRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_with_pool(&self.pool.to_string()))
    }
}

/// One side of a roll: a plain dice total, or a pool read die by die.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    Total(DiceExpr),
    Pool(PoolRead),
}

impl Reading {
    pub fn is_flag(&self) -> bool {
        matches!(self, Reading::Pool(p) if p.read.is_flag())
    }
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reading::Total(e) => write!(f, "{e}"),
            Reading::Pool(p) => write!(f, "{p}"),
        }
    }
}

/// What an equal result does in an opposed roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ties {
    /// `ties none`: nobody wins (the default).
    Stand,
    /// `ties first` / `ties second`: that side wins a tie.
    First,
    Second,
    /// `ties reroll`: both sides roll again until the results differ.
    Reroll,
}

impl Ties {
    pub const NAMES: [&'static str; 4] = ["none", "first", "second", "reroll"];

    pub fn parse(word: &str) -> Option<Ties> {
        Some(match word {
            "none" => Ties::Stand,
            "first" => Ties::First,
            "second" => Ties::Second,
            "reroll" => Ties::Reroll,
            _ => return None,
        })
    }
}

impl fmt::Display for Ties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ties::Stand => "none",
            Ties::First => "first",
            Ties::Second => "second",
            Ties::Reroll => "reroll",
        })
    }
}

/// `second forces reroll highest`: when the other side (here the first) would win, this side
/// makes it roll its highest (or lowest) die again, once; the new die stands (a parry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Force {
    /// The side that forces the re-roll: the second (true) or the first.
    pub by_second: bool,
    pub highest: bool,
    /// `second rerolls lowest`: when the other side would win, this side rolls its *own*
    /// highest (lowest) die again, once (a guard), rather than making the other roll.
    pub own: bool,
}

impl Force {
    /// Whether the die rolled again is the first side's.
    pub fn rerolls_first(&self) -> bool {
        self.by_second != self.own
    }
}

/// Who won an opposed roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    First,
    Second,
    Tie,
}

impl Winner {
    pub fn word(self) -> &'static str {
        match self {
            Winner::First => "first",
            Winner::Second => "second",
            Winner::Tie => "tie",
        }
    }
}

/// The winner of `first` against `second` under a tie rule (`ties reroll` reads a tie as a tie:
/// the caller rolls again).
pub fn winner(first: i64, second: i64, ties: Ties) -> Winner {
    match first.cmp(&second) {
        std::cmp::Ordering::Greater => Winner::First,
        std::cmp::Ordering::Less => Winner::Second,
        std::cmp::Ordering::Equal => match ties {
            Ties::First => Winner::First,
            Ties::Second => Winner::Second,
            Ties::Stand | Ties::Reroll => Winner::Tie,
        },
    }
}

/// A stage of a chain: each success of the stage before rolls one die (of the chain's kind)
/// against this target; `reroll` applies to the stage's dice as to a pool's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    pub target: Target,
    pub reroll: Option<Reroll>,
    /// `unless 6`: each die of the stage before that came through showing this comes through
    /// this stage unrolled (a 6 to wound ignores the save).
    pub unless: Option<Target>,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "then {}", self.target)?;
        if let Some(r) = &self.reroll {
            write!(f, " {r}")?;
        }
        if let Some(u) = &self.unless {
            write!(f, " unless {u}")?;
        }
        Ok(())
    }
}

/// A roll and how it is read: everything `odds` computes exactly and `roll` rolls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roll {
    Read(Reading),
    /// `highest of 3d6 vs highest of d6 ties none`: win, lose or tie, with the margin
    /// (first − second).
    Opposed {
        first: Reading,
        second: Reading,
        ties: Ties,
        force: Option<Force>,
    },
    /// `count 3+ in 10d6 then 4+ then fail 3+`: the dice that meet the first target go on, each
    /// rolled again against the next; the result is how many come out of the last.
    Chain {
        first: PoolRead,
        stages: Vec<Stage>,
    },
    /// `2d6 - 4 at least 0`: a number read, held within bounds (a value under the least
    /// reads as the least, over the most as the most).
    Clamp {
        inner: Reading,
        least: Option<i64>,
        most: Option<i64>,
    },
    /// `d12 * d12`: one number read times another, each rolled on its own.
    Product {
        first: Reading,
        second: Reading,
    },
    /// `any 6 in 2d6 then any 5+ in 2d6`: yes or no readings made one after another while each
    /// before came to no (shots at one target until one kills); yes when one comes to yes.
    Sequence(Vec<Reading>),
    /// `count 3+ in 10d6 then 4+ then fail 3+ times d3`: the first roll read as a number, then
    /// the second made that many times and added up (D3 wounds for each unsaved wound).
    Times {
        count: Box<Roll>,
        each: Reading,
    },
    /// `total 10+ in 2d6 given any 6 in 2d6`: a pool's reading, among the rolls of it whose
    /// `condition` (a yes or no read from the same dice) holds; rolled, the pool is rolled
    /// again until it does.
    Given {
        first: PoolRead,
        condition: Read,
    },
}

/// A number held within bounds.
pub fn clamp(value: i64, least: Option<i64>, most: Option<i64>) -> i64 {
    let v = least.map_or(value, |lo| value.max(lo));
    most.map_or(v, |hi| v.min(hi))
}

impl Roll {
    /// Yes or no, rather than a number or a contest.
    pub fn is_flag(&self) -> bool {
        matches!(self, Roll::Read(r) if r.is_flag())
            || matches!(self, Roll::Sequence(_))
            || matches!(self, Roll::Given { first, .. } if first.read.is_flag())
    }

    /// A `given` roll's condition as written (`any 6 in 2d6`); empty for any other roll.
    pub fn condition_text(&self) -> String {
        match self {
            Roll::Given { first, condition } => PoolRead {
                pool: first.pool.clone(),
                read: condition.clone(),
                modifier: 0,
            }
            .to_string(),
            _ => String::new(),
        }
    }

    /// The die every stage of a chain rolls: the first pool's one kind.
    pub fn chain_die(first: &PoolRead) -> Option<&DieKind> {
        match first.pool.dice.as_slice() {
            [(_, kind)] => Some(kind),
            _ => None,
        }
    }
}

impl fmt::Display for Roll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Roll::Read(r) => write!(f, "{r}"),
            Roll::Opposed {
                first,
                second,
                ties,
                force,
            } => {
                write!(f, "{first} vs {second}")?;
                if *ties != Ties::Stand {
                    write!(f, " ties {ties}")?;
                }
                if let Some(force) = force {
                    let side = if force.by_second { "second" } else { "first" };
                    let die = if force.highest { "highest" } else { "lowest" };
                    if force.own {
                        write!(f, " {side} rerolls {die}")?;
                    } else {
                        write!(f, " {side} forces reroll {die}")?;
                    }
                }
                Ok(())
            }
            Roll::Chain { first, stages } => {
                write!(f, "{first}")?;
                for s in stages {
                    write!(f, " {s}")?;
                }
                Ok(())
            }
            Roll::Clamp { inner, least, most } => {
                write!(f, "{inner}")?;
                if let Some(lo) = least {
                    write!(f, " at least {lo}")?;
                }
                if let Some(hi) = most {
                    write!(f, " at most {hi}")?;
                }
                Ok(())
            }
            Roll::Product { first, second } => write!(f, "{first} * {second}"),
            Roll::Times { count, each } => write!(f, "{count} times {each}"),
            Roll::Given { first, condition } => {
                let cond = PoolRead {
                    pool: first.pool.clone(),
                    read: condition.clone(),
                    modifier: 0,
                };
                write!(f, "{first} given {cond}")
            }
            Roll::Sequence(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" then ")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

// --- rolling -----------------------------------------------------------------------------

/// A pool as it landed: every die as it finally lies, what was rolled again, and the reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PoolRoll {
    /// The reading's text (`highest of 3d6`).
    pub read: String,
    /// Every die as it finally lies, in the pool's order.
    pub dice: Vec<RolledDie>,
    /// Dice rolled again: where in `dice`, and the face each showed before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rerolled: Vec<(usize, RolledDie)>,
    /// `reroll failed`: the whole first roll, which came to nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_first: Option<Vec<RolledDie>>,
    /// The reading: a number, or 1 / 0 for yes / no.
    pub value: i64,
    pub flag: bool,
}

/// A reading as it landed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ReadingRoll {
    Total(DiceRoll),
    Pool(PoolRoll),
}

impl ReadingRoll {
    pub fn value(&self) -> i64 {
        match self {
            ReadingRoll::Total(r) => r.total,
            ReadingRoll::Pool(p) => p.value,
        }
    }

    /// Every die as it finally lies.
    pub fn dice(&self) -> &[RolledDie] {
        match self {
            ReadingRoll::Total(r) => &r.dice,
            ReadingRoll::Pool(p) => &p.dice,
        }
    }
}

/// One stage of a chain as it landed: the dice rolled and how many went on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageRoll {
    pub target: String,
    pub dice: Vec<RolledDie>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rerolled: Vec<(usize, RolledDie)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_first: Option<Vec<RolledDie>>,
    /// `unless`: the dice of the stage before that came through unrolled.
    #[serde(skip_serializing_if = "is_zero")]
    pub through: i64,
    pub passed: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// A roll as it landed, ready to show, log or hand to a script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Rolled {
    Read {
        roll: String,
        reading: ReadingRoll,
        value: i64,
        flag: bool,
    },
    Opposed {
        roll: String,
        /// Each round: ties rerolled come first, the deciding round last.
        rounds: Vec<(ReadingRoll, ReadingRoll)>,
        /// The forced re-roll, if one was made: which side (`first` / `second`), the die's
        /// place in that side's dice, and its face before.
        #[serde(skip_serializing_if = "Option::is_none")]
        forced: Option<(Winner, usize, RolledDie)>,
        /// The forced re-roll was the side's own (`second rerolls highest`, a guard).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        own: bool,
        /// When ties went on past [`MAX_TIE_ROUNDS`]: drawn from the exact odds instead.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        drawn: bool,
        first: i64,
        second: i64,
        winner: Winner,
        margin: i64,
    },
    Chain {
        roll: String,
        /// The first pool, then each stage.
        stages: Vec<StageRoll>,
        value: i64,
    },
    /// A product (both readings) or a sequence (the readings made, up to the first yes).
    Parts {
        roll: String,
        /// ` × ` for a product, `; then ` for a sequence.
        joiner: &'static str,
        parts: Vec<ReadingRoll>,
        value: i64,
        flag: bool,
    },
    /// `… given …`: the rolls of the pool the condition turned down, then the one it took.
    Given {
        roll: String,
        /// The condition as written (`any 6 in 2d6`).
        condition: String,
        /// Each roll turned down: its dice.
        discarded: Vec<Vec<RolledDie>>,
        /// After [`MAX_TIE_ROUNDS`] rolls turned down: the reading drawn from its exact odds.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        drawn: bool,
        reading: PoolRoll,
        value: i64,
        flag: bool,
    },
    /// `… times …`: the first roll, then each roll made for it, added up.
    Times {
        roll: String,
        count: Box<Rolled>,
        each: Vec<ReadingRoll>,
        value: i64,
    },
}

pub use crate::limits::MAX_TIE_ROUNDS;

impl Rolled {
    /// The roll as written.
    pub fn expression(&self) -> &str {
        match self {
            Rolled::Read { roll, .. }
            | Rolled::Opposed { roll, .. }
            | Rolled::Chain { roll, .. }
            | Rolled::Parts { roll, .. }
            | Rolled::Given { roll, .. }
            | Rolled::Times { roll, .. } => roll,
        }
    }

    /// Every die that was thrown, in the order thrown: an opposed roll's rounds (the first
    /// side's dice, then the second's, ties first), a chain's stages, a product's parts.
    pub fn all_dice(&self) -> Vec<RolledDie> {
        match self {
            Rolled::Read { reading, .. } => reading.dice().to_vec(),
            Rolled::Opposed { rounds, .. } => rounds
                .iter()
                .flat_map(|(a, b)| a.dice().iter().chain(b.dice()))
                .cloned()
                .collect(),
            Rolled::Chain { stages, .. } => stages.iter().flat_map(|s| s.dice.iter()).cloned().collect(),
            Rolled::Parts { parts, .. } => parts.iter().flat_map(|p| p.dice().iter()).cloned().collect(),
            Rolled::Given { discarded, reading, .. } => {
                discarded.iter().flatten().chain(&reading.dice).cloned().collect()
            }
            Rolled::Times { count, each, .. } => {
                let mut dice = count.all_dice();
                dice.extend(each.iter().flat_map(|p| p.dice().iter()).cloned());
                dice
            }
        }
    }

    /// The result: the number read, 1 / 0 for yes / no, the margin of an opposed roll.
    pub fn value(&self) -> i64 {
        match self {
            Rolled::Read { value, .. }
            | Rolled::Chain { value, .. }
            | Rolled::Parts { value, .. }
            | Rolled::Given { value, .. }
            | Rolled::Times { value, .. } => *value,
            Rolled::Opposed { margin, .. } => *margin,
        }
    }
}

/// One die of the pool as it lies: its kind (index into the pool's dice), what it showed.
#[derive(Debug, Clone)]
struct Lying {
    kind: usize,
    die: RolledDie,
    shown: Shown,
}

fn roll_kinds(pool: &Pool, rng: &mut Rng) -> Vec<Lying> {
    // A player asked for these dice is told what they are (`3d6`, die 2 of 3), as for a total.
    let told = rng.has_forced();
    if told {
        rng.rolling(Some((&pool.as_expr().to_string(), pool.dice_count() as usize)));
    }
    let mut out = Vec::new();
    for (k, (count, kind)) in pool.dice.iter().enumerate() {
        for _ in 0..*count {
            let (die, shown) = kind.roll_shown(rng);
            out.push(Lying { kind: k, die, shown });
        }
    }
    if told {
        rng.rolling(None);
    }
    out
}

/// The reading of dice as they lie (numbers only from faces that have one).
pub(crate) fn evaluate(read: &Read, shown: &[&Shown]) -> i64 {
    let value = |s: &Shown| s.value.unwrap_or(0);
    match read {
        Read::Sum => shown.iter().map(|s| value(s)).sum(),
        Read::Keep { highest, n } => {
            let mut sorted: Vec<&Shown> = shown.to_vec();
            sorted.sort();
            if *highest {
                sorted.reverse();
            }
            sorted.iter().take(*n as usize).map(|s| value(s)).sum()
        }
        Read::Count(t) => shown.iter().filter(|s| t.accepts(s)).count() as i64,
        Read::Total(t) => i64::from(t.accepts(&Shown::number(shown.iter().map(|s| value(s)).sum()))),
        // The dice as they lie, explosions among them.
        Read::Explode(_) => shown.iter().map(|s| value(s)).sum(),
        Read::Any(t) => i64::from(shown.iter().any(|s| t.accepts(s))),
        Read::All(t) => i64::from(shown.iter().all(|s| t.accepts(s))),
        Read::Same(n) => {
            let mut sorted: Vec<&Shown> = shown.to_vec();
            sorted.sort();
            let mut best = 0;
            let mut run = 0;
            for (i, s) in sorted.iter().enumerate() {
                run = if i > 0 && sorted[i - 1] == *s { run + 1 } else { 1 };
                best = best.max(run);
            }
            i64::from(best >= *n as usize)
        }
    }
}

/// Which die a pool-level re-roll takes, as [`Reroll`] says: the lowest face meeting the
/// target (`One`), the highest or lowest face; among dice showing it, the kind first in
/// [`Pool::reroll_rank`], then the first die of that kind.
fn reroll_pick(reroll: &Reroll, dice: &[Lying], rank: &[usize]) -> Option<usize> {
    let candidates = dice.iter().enumerate().filter(|(_, d)| match reroll {
        Reroll::One(t) => t.accepts(&d.shown),
        _ => true,
    });
    // Among equal faces, the better-ranked kind, then the first die.
    let tie = |a: &(usize, &Lying), b: &(usize, &Lying)| rank[a.1.kind].cmp(&rank[b.1.kind]).then(a.0.cmp(&b.0));
    match reroll {
        Reroll::One(_) | Reroll::Lowest => candidates
            .min_by(|a, b| a.1.shown.cmp(&b.1.shown).then_with(|| tie(a, b)))
            .map(|(i, _)| i),
        Reroll::Highest => candidates
            .max_by(|a, b| a.1.shown.cmp(&b.1.shown).then_with(|| tie(b, a)))
            .map(|(i, _)| i),
        Reroll::Each(_) | Reroll::Failed => None,
    }
}

/// Rolls a pool, applies its re-roll rule, reads it.
/// A pool as it lies after its re-roll rule: its dice, the dice rolled again (where, and
/// their faces before), the first roll when it failed and was rolled again, and the reading.
type PoolLies = (Vec<Lying>, Vec<(usize, RolledDie)>, Option<Vec<RolledDie>>, i64);

fn roll_pool(pr: &PoolRead, rng: &mut Rng) -> PoolLies {
    let pool = &pr.pool;
    let mut dice = roll_kinds(pool, rng);
    if let Read::Explode(depth) = pr.read {
        // Each die at its highest face rolls again, and again, at most `depth` times.
        let mut out = Vec::with_capacity(dice.len());
        for d in dice {
            let kind = &pool.dice[d.kind].1;
            let top = kind.values().into_iter().max().unwrap_or(0);
            let mut last = d.shown.value;
            let k = d.kind;
            out.push(d);
            for _ in 0..depth {
                if last != Some(top) {
                    break;
                }
                let (die, shown) = kind.roll_shown(rng);
                last = shown.value;
                out.push(Lying { kind: k, die, shown });
            }
        }
        dice = out;
    }
    let mut rerolled = Vec::new();
    let mut failed_first = None;
    let read_now = |dice: &[Lying]| {
        let shown: Vec<&Shown> = dice.iter().map(|d| &d.shown).collect();
        evaluate(&pr.read, &shown)
    };
    match &pool.reroll {
        None => {}
        Some(Reroll::Each(t)) => {
            for (i, d) in dice.iter_mut().enumerate() {
                if t.accepts(&d.shown) {
                    let (die, shown) = pool.dice[d.kind].1.roll_shown(rng);
                    rerolled.push((i, std::mem::replace(&mut d.die, die)));
                    d.shown = shown;
                }
            }
        }
        Some(Reroll::Failed) if read_now(&dice) == 0 => {
            failed_first = Some(dice.iter().map(|d| d.die.clone()).collect());
            dice = roll_kinds(pool, rng);
        }
        Some(Reroll::Failed) => {}
        Some(r) => {
            if let Some(i) = reroll_pick(r, &dice, &pool.reroll_rank()) {
                let (die, shown) = pool.dice[dice[i].kind].1.roll_shown(rng);
                rerolled.push((i, std::mem::replace(&mut dice[i].die, die)));
                dice[i].shown = shown;
            }
        }
    }
    let value = read_now(&dice);
    (dice, rerolled, failed_first, value)
}

impl PoolRead {
    /// The reading's value with the modifier added (a yes / no takes none).
    pub(crate) fn finish(&self, value: i64) -> i64 {
        if self.read.is_flag() {
            value
        } else {
            value.saturating_add(self.modifier)
        }
    }

    pub fn roll(&self, rng: &mut Rng) -> PoolRoll {
        let (dice, rerolled, failed_first, value) = roll_pool(self, rng);
        let value = self.finish(value);
        PoolRoll {
            read: self.to_string(),
            dice: dice.into_iter().map(|d| d.die).collect(),
            rerolled,
            failed_first,
            value,
            flag: self.read.is_flag(),
        }
    }
}

impl Reading {
    pub fn roll(&self, rng: &mut Rng) -> ReadingRoll {
        match self {
            Reading::Total(e) => ReadingRoll::Total(e.roll(rng)),
            Reading::Pool(p) => ReadingRoll::Pool(p.roll(rng)),
        }
    }
}

impl Roll {
    /// Rolls the dice and reads them. Rolling follows the same rules as the exact odds; where a
    /// roll could go on without end (`ties reroll`), it goes on for [`MAX_TIE_ROUNDS`] rounds
    /// and then draws the decided round from its exact odds, which is the same answer.
    pub fn roll(&self, rng: &mut Rng) -> Rolled {
        let text = self.to_string();
        match self {
            Roll::Read(r) => {
                let reading = r.roll(rng);
                Rolled::Read {
                    roll: text,
                    value: reading.value(),
                    flag: r.is_flag(),
                    reading,
                }
            }
            Roll::Clamp { inner, least, most } => {
                let reading = inner.roll(rng);
                Rolled::Read {
                    roll: text,
                    value: clamp(reading.value(), *least, *most),
                    flag: false,
                    reading,
                }
            }
            Roll::Given { first, condition } => {
                let mut discarded = Vec::new();
                loop {
                    let (dice, rerolled, failed_first, value) = roll_pool(first, rng);
                    let shown: Vec<&Shown> = dice.iter().map(|d| &d.shown).collect();
                    let dice: Vec<RolledDie> = dice.iter().map(|d| d.die.clone()).collect();
                    if evaluate(condition, &shown) != 0 {
                        let value = first.finish(value);
                        return Rolled::Given {
                            roll: text,
                            condition: self.condition_text(),
                            discarded,
                            drawn: false,
                            reading: PoolRoll {
                                read: first.to_string(),
                                dice,
                                rerolled,
                                failed_first,
                                value,
                                flag: first.read.is_flag(),
                            },
                            value,
                            flag: first.read.is_flag(),
                        };
                    }
                    discarded.push(dice);
                    if discarded.len() >= MAX_TIE_ROUNDS {
                        // Draw the reading from its exact odds: the same answer.
                        let value = super::exact::draw_given(self, rng);
                        return Rolled::Given {
                            roll: text,
                            condition: self.condition_text(),
                            discarded,
                            drawn: true,
                            reading: PoolRoll {
                                read: first.to_string(),
                                dice: Vec::new(),
                                rerolled: Vec::new(),
                                failed_first: None,
                                value,
                                flag: first.read.is_flag(),
                            },
                            value,
                            flag: first.read.is_flag(),
                        };
                    }
                }
            }
            Roll::Times { count, each } => {
                let count = count.roll(rng);
                let made: Vec<ReadingRoll> = (0..count.value().max(0)).map(|_| each.roll(rng)).collect();
                let value = made.iter().fold(0i64, |s, r| s.saturating_add(r.value()));
                Rolled::Times {
                    roll: text,
                    count: Box::new(count),
                    each: made,
                    value,
                }
            }
            Roll::Product { first, second } => {
                let (a, b) = (first.roll(rng), second.roll(rng));
                Rolled::Parts {
                    roll: text,
                    joiner: " × ",
                    value: a.value().saturating_mul(b.value()),
                    parts: vec![a, b],
                    flag: false,
                }
            }
            Roll::Sequence(readings) => {
                let mut parts = Vec::new();
                let mut value = 0;
                for r in readings {
                    let made = r.roll(rng);
                    value = i64::from(made.value() != 0);
                    parts.push(made);
                    if value == 1 {
                        break;
                    }
                }
                Rolled::Parts {
                    roll: text,
                    joiner: "; then ",
                    parts,
                    value,
                    flag: true,
                }
            }
            Roll::Opposed {
                first,
                second,
                ties,
                force,
            } => {
                let mut rounds = Vec::new();
                loop {
                    let (mut a, mut lying_a) = roll_side(first, rng);
                    let (mut b, mut lying_b) = roll_side(second, rng);
                    let mut forced = None;
                    if let Some(force) = force {
                        // When the other side would win, the side that would win is made to
                        // roll again by the other (or, `rerolls`, the other rolls its own).
                        let trigger = if force.by_second { Winner::First } else { Winner::Second };
                        let made = if force.rerolls_first() {
                            Winner::First
                        } else {
                            Winner::Second
                        };
                        if winner(a.value(), b.value(), *ties) == trigger {
                            let (reading, rolled, lying) = if force.rerolls_first() {
                                (first, &mut a, &mut lying_a)
                            } else {
                                (second, &mut b, &mut lying_b)
                            };
                            if let (Reading::Pool(pr), ReadingRoll::Pool(pool_roll)) = (reading, rolled) {
                                forced =
                                    force_reroll(pr, pool_roll, lying, force.highest, rng).map(|(i, d)| (made, i, d));
                            }
                        }
                    }
                    let w = winner(a.value(), b.value(), *ties);
                    let (av, bv) = (a.value(), b.value());
                    rounds.push((a, b));
                    if w != Winner::Tie || *ties != Ties::Reroll {
                        return Rolled::Opposed {
                            roll: text,
                            rounds,
                            forced,
                            own: force.is_some_and(|f| f.own),
                            drawn: false,
                            first: av,
                            second: bv,
                            winner: w,
                            margin: av.saturating_sub(bv),
                        };
                    }
                    if rounds.len() >= MAX_TIE_ROUNDS {
                        // Draw the decided round from its exact odds.
                        let (fv, sv) = super::exact::draw_decided(self, rng);
                        return Rolled::Opposed {
                            roll: text,
                            rounds,
                            forced: None,
                            own: false,
                            drawn: true,
                            first: fv,
                            second: sv,
                            winner: winner(fv, sv, *ties),
                            margin: fv.saturating_sub(sv),
                        };
                    }
                }
            }
            Roll::Chain { first, stages } => {
                let start = first.roll(rng);
                let mut passed = start.value;
                // The dice of the stage before that came through (for `unless`).
                let through_dice = |dice: &[RolledDie], target: &Target| -> Vec<Shown> {
                    dice.iter()
                        .map(|d| Shown {
                            value: Some(d.value),
                            name: d.face.as_deref().map(std::sync::Arc::from),
                        })
                        .filter(|s| target.accepts(s))
                        .collect()
                };
                let mut came = match &first.read {
                    Read::Count(t) => through_dice(&start.dice, t),
                    _ => Vec::new(),
                };
                let mut out = vec![StageRoll {
                    target: first.to_string(),
                    dice: start.dice,
                    rerolled: start.rerolled,
                    failed_first: start.failed_first,
                    through: 0,
                    passed,
                }];
                let Some(kind) = Roll::chain_die(first) else {
                    return Rolled::Chain {
                        roll: text,
                        stages: out,
                        value: passed,
                    };
                };
                for stage in stages {
                    let through = match &stage.unless {
                        Some(u) => came.iter().filter(|s| u.accepts(s)).count() as i64,
                        None => 0,
                    };
                    let pr = stage_read(kind, (passed - through).max(0) as u32, stage);
                    let r = pr.roll(rng);
                    passed = r.value + through;
                    came = through_dice(&r.dice, &stage.target);
                    out.push(StageRoll {
                        target: stage.to_string(),
                        dice: r.dice,
                        rerolled: r.rerolled,
                        failed_first: r.failed_first,
                        through,
                        passed,
                    });
                }
                Rolled::Chain {
                    roll: text,
                    stages: out,
                    value: passed,
                }
            }
        }
    }
}

/// A chain's stage as a pool: `count` dice of the chain's kind, counted against the target.
pub(crate) fn stage_read(kind: &DieKind, count: u32, stage: &Stage) -> PoolRead {
    PoolRead {
        pool: Pool {
            dice: if count == 0 {
                Vec::new()
            } else {
                vec![(count, kind.clone())]
            },
            reroll: stage.reroll.clone(),
        },
        read: Read::Count(stage.target.clone()),
        modifier: 0,
    }
}

/// A side of an opposed roll rolled, with its dice as they lie (for a forced re-roll).
fn roll_side(reading: &Reading, rng: &mut Rng) -> (ReadingRoll, Vec<Lying>) {
    match reading {
        Reading::Total(e) => (ReadingRoll::Total(e.roll(rng)), Vec::new()),
        Reading::Pool(pr) => {
            let (lying, rerolled, failed_first, value) = roll_pool(pr, rng);
            let roll = PoolRoll {
                read: pr.to_string(),
                dice: lying.iter().map(|d| d.die.clone()).collect(),
                rerolled,
                failed_first,
                value: pr.finish(value),
                flag: pr.read.is_flag(),
            };
            (ReadingRoll::Pool(roll), lying)
        }
    }
}

/// The forced re-roll of a side's highest (lowest) die, made on the dice as they lie; the pool
/// is read again. Returns the die's place and its face before.
fn force_reroll(
    pr: &PoolRead,
    rolled: &mut PoolRoll,
    lying: &mut [Lying],
    highest: bool,
    rng: &mut Rng,
) -> Option<(usize, RolledDie)> {
    let rule = if highest { Reroll::Highest } else { Reroll::Lowest };
    let i = reroll_pick(&rule, lying, &pr.pool.reroll_rank())?;
    let (die, shown) = pr.pool.dice[lying[i].kind].1.roll_shown(rng);
    let before = std::mem::replace(&mut lying[i].die, die.clone());
    lying[i].shown = shown;
    rolled.dice[i] = die;
    let shown: Vec<&Shown> = lying.iter().map(|d| &d.shown).collect();
    rolled.value = pr.finish(evaluate(&pr.read, &shown));
    Some((i, before))
}

fn dice_words(dice: &[RolledDie]) -> String {
    let words: Vec<String> = dice.iter().map(super::describe_die).collect();
    words.join(", ")
}

fn reading_words(r: &ReadingRoll) -> String {
    match r {
        ReadingRoll::Total(t) => t.to_string(),
        ReadingRoll::Pool(p) => {
            let mut s = format!("{}: ", p.read);
            if let Some(first) = &p.failed_first {
                s.push_str(&format!("{} (came to nothing: rolled again) ", dice_words(first)));
            }
            s.push_str(&dice_words(&p.dice));
            for (i, before) in &p.rerolled {
                s.push_str(&format!(
                    " (die {} rolled again: {} before)",
                    i + 1,
                    super::describe_die(before)
                ));
            }
            let value = if p.flag {
                if p.value != 0 { "yes" } else { "no" }.to_string()
            } else {
                p.value.to_string()
            };
            format!("{s} → {value}")
        }
    }
}

/// A roll's dice and result without its expression (`[5→3]`, `3 + 4 = 7`, `2, 6 → 1`).
fn made_words(r: &ReadingRoll) -> String {
    let full = reading_words(r);
    let expr = match r {
        ReadingRoll::Total(t) => t.expr.to_string(),
        ReadingRoll::Pool(p) => p.read.clone(),
    };
    full.strip_prefix(&format!("{expr}: "))
        .map_or(full.clone(), str::to_string)
}

impl fmt::Display for Rolled {
    /// `any 6 in 2d6: 3, 6 → yes`; `highest of 3d6: 2, 5, 4 → 5 vs highest of d6: 3 → 3: first
    /// wins by 2`; a chain stage by stage.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rolled::Read { reading, value, .. } => {
                f.write_str(&reading_words(reading))?;
                if *value != reading.value() {
                    // Held within bounds.
                    write!(f, ", held at {value}")?;
                }
                Ok(())
            }
            Rolled::Opposed {
                rounds,
                forced,
                own,
                drawn,
                winner,
                margin,
                ..
            } => {
                for (i, (a, b)) in rounds.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{} vs {}", reading_words(a), reading_words(b))?;
                    if i + 1 < rounds.len() || *drawn {
                        f.write_str(": a tie, rolled again")?;
                    }
                }
                if let Some((side, i, before)) = forced {
                    let how = if *own { "rolls its" } else { "made to roll" };
                    write!(
                        f,
                        " ({} side {how} die {} again: {} before)",
                        side.word(),
                        i + 1,
                        super::describe_die(before)
                    )?;
                }
                if *drawn {
                    write!(
                        f,
                        "; after {MAX_TIE_ROUNDS} ties the decided round is drawn from its exact odds"
                    )?;
                }
                match winner {
                    Winner::Tie => f.write_str(": a tie"),
                    w => write!(f, ": {} wins by {}", w.word(), margin.unsigned_abs()),
                }
            }
            Rolled::Chain { stages, value, .. } => {
                for (i, s) in stages.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{}: ", s.target)?;
                    if s.through > 0 {
                        write!(f, "{} through unrolled, then ", s.through)?;
                    }
                    f.write_str(&dice_words(&s.dice))?;
                    if let Some(first) = &s.failed_first {
                        write!(f, " (after {} came to nothing)", dice_words(first))?;
                    }
                    for (j, before) in &s.rerolled {
                        write!(
                            f,
                            " (die {} rolled again: {} before)",
                            j + 1,
                            super::describe_die(before)
                        )?;
                    }
                    write!(f, " → {}", s.passed)?;
                }
                write!(f, "; {value} in all")
            }
            Rolled::Parts {
                joiner,
                parts,
                value,
                flag,
                ..
            } => {
                let words: Vec<String> = parts.iter().map(reading_words).collect();
                f.write_str(&words.join(joiner))?;
                if !*flag && parts.len() > 1 {
                    write!(f, " = {value}")?;
                }
                Ok(())
            }
            Rolled::Given {
                condition,
                discarded,
                drawn,
                reading,
                ..
            } => {
                for dice in discarded {
                    write!(f, "{} (not {condition}: rolled again); ", dice_words(dice))?;
                }
                if *drawn {
                    write!(
                        f,
                        "after {MAX_TIE_ROUNDS} rolls turned down, drawn from its exact odds: {}",
                        if reading.flag {
                            if reading.value != 0 { "yes" } else { "no" }.to_string()
                        } else {
                            reading.value.to_string()
                        }
                    )
                } else {
                    f.write_str(&reading_words(&ReadingRoll::Pool(reading.clone())))
                }
            }
            Rolled::Times {
                roll,
                count,
                each,
                value,
            } => {
                // As a player says it: the count's roll (none when it is a plain number), then
                // the roll made for it, once, twice, or N times, and the whole.
                if !count.all_dice().is_empty() {
                    write!(f, "{count}; ")?;
                }
                let what = roll.rsplit_once(" times ").map_or("", |(_, e)| e);
                let n = count.value().max(0);
                if each.is_empty() {
                    return write!(f, "no {what} to roll = 0");
                }
                let how = match n {
                    1 => "once".to_string(),
                    2 => "twice".to_string(),
                    n => format!("{n} times"),
                };
                // Each roll's dice without its expression, written once before them.
                let words: Vec<String> = each.iter().map(made_words).collect();
                let one_die = each.iter().all(|r| r.dice().len() <= 1);
                write!(
                    f,
                    "{what} {how}: {} = {value}",
                    words.join(if one_die { ", " } else { "; " })
                )
            }
        }
    }
}

/// One of several rolls declared together (a record's rolls): its name, the roll, and the
/// dice field it reads, if any.
pub struct Declared<'a> {
    pub name: &'a str,
    pub roll: &'a Roll,
    pub reads: Option<&'a str>,
}

/// Rolls declared together, rolled: the readings of one dice field see one roll of it (a
/// gun's "kill" and "jam" are read from the same two dice); the others are rolled each
/// on its own, in order. Returns each roll's result, in the order given.
pub fn roll_declared(rolls: &[Declared], rng: &mut Rng) -> Vec<(String, Rolled)> {
    let mut shared: Vec<(&str, Vec<Lying>)> = Vec::new();
    let mut out = Vec::new();
    for d in rolls {
        let rolled = match (d.reads, d.roll) {
            (Some(field), Roll::Read(Reading::Pool(pr))) => {
                if !shared.iter().any(|(f, _)| *f == field) {
                    shared.push((field, roll_kinds(&pr.pool, rng)));
                }
                let lying = &shared.iter().find(|(f, _)| *f == field).expect("rolled above").1;
                let shown: Vec<&Shown> = lying.iter().map(|l| &l.shown).collect();
                let value = pr.finish(evaluate(&pr.read, &shown));
                Rolled::Read {
                    roll: d.roll.to_string(),
                    reading: ReadingRoll::Pool(PoolRoll {
                        read: pr.to_string(),
                        dice: lying.iter().map(|l| l.die.clone()).collect(),
                        rerolled: Vec::new(),
                        failed_first: None,
                        value,
                        flag: pr.read.is_flag(),
                    }),
                    value,
                    flag: pr.read.is_flag(),
                }
            }
            _ => d.roll.roll(rng),
        };
        out.push((d.name.to_string(), rolled));
    }
    out
}

/// What a roll came to, in a word or a number: `yes`, `no`, `3`, `first wins by 2`, `a tie`.
pub fn value_words(rolled: &Rolled) -> String {
    match rolled {
        Rolled::Read { flag: true, value, .. } | Rolled::Given { flag: true, value, .. } => {
            if *value != 0 { "yes" } else { "no" }.into()
        }
        Rolled::Opposed { winner, margin, .. } => match winner {
            Winner::Tie => "a tie".into(),
            w => format!("{} wins by {}", w.word(), margin.unsigned_abs()),
        },
        other => other.value().to_string(),
    }
}

/// Rolls declared together and rolled ([`roll_declared`]), in words, one line each: the
/// readings of one dice field on one line with its dice (`dice 2d6: 3, 5 → kill no, jam no`),
/// every other roll as `field: …`.
pub fn describe_declared(declared: &[Declared], rolled: &[(String, Rolled)]) -> Vec<String> {
    declared_lines(declared, rolled).into_iter().map(|l| l.text).collect()
}

/// One line of [`describe_declared`], with the dice a pool's readings read (its pool as the
/// expression, each die as it lay, their sum) for a log that keeps dice apart from words.
pub struct DeclaredLine {
    pub text: String,
    pub dice: Option<DiceRoll>,
}

/// [`describe_declared`]'s lines with their dice.
pub fn declared_lines(declared: &[Declared], rolled: &[(String, Rolled)]) -> Vec<DeclaredLine> {
    let mut lines = Vec::new();
    let mut shown: Vec<&str> = Vec::new();
    for (d, (field, result)) in declared.iter().zip(rolled) {
        match (d.reads, d.roll, result) {
            (Some(f), Roll::Read(Reading::Pool(pr)), Rolled::Read { reading, .. }) => {
                if shown.contains(&f) {
                    continue;
                }
                shown.push(f);
                let readings: Vec<String> = declared
                    .iter()
                    .zip(rolled)
                    .filter(|(d, _)| d.reads == Some(f))
                    .map(|(d, (_, r))| format!("{} {}", d.name, value_words(r)))
                    .collect();
                let dice = reading.dice().to_vec();
                let total = dice.iter().map(|d| if d.negative { -d.value } else { d.value }).sum();
                lines.push(DeclaredLine {
                    text: format!("{f} {}: {} → {}", pr.pool, dice_words(&dice), readings.join(", ")),
                    dice: Some(DiceRoll {
                        expr: pr.pool.to_string().into(),
                        dice,
                        modifier: 0,
                        total,
                    }),
                });
            }
            _ => {
                let text = match field.is_empty() {
                    true => result.to_string(),
                    false => format!("{field}: {result}"),
                };
                let dice = result.all_dice();
                let dice = (!dice.is_empty()).then(|| DiceRoll {
                    expr: result.expression().into(),
                    dice,
                    modifier: 0,
                    total: result.value(),
                });
                lines.push(DeclaredLine { text, dice });
            }
        }
    }
    lines
}
