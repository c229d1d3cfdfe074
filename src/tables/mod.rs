//! Rolled tables: rows keyed by roll ranges, results with amounts and follow-up rolls, and the
//! policies for unavailable and duplicate results. [`roll`] rolls them through the seeded RNG;
//! [`odds`] computes the exact distribution of outcomes. Both settle a row through the one
//! `Table::resolve` (the unavailable and duplicate policies), so a roll and its odds agree by
//! construction.

pub mod odds;
pub mod roll;

use crate::dice::DiceExpr;
use crate::source::Span;
use crate::value::Value;
use indexmap::IndexMap;
use std::collections::BTreeSet;
use std::fmt;

/// What to do when the row rolled cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Use it anyway (only meaningful for duplicates).
    Allow,
    /// The roll yields nothing.
    Ignore,
    /// Roll again until a usable row comes up.
    Reroll,
    /// Take the next row (higher key), wrapping to the first.
    ShiftDown,
    /// Take the previous row (lower key), wrapping to the last.
    ShiftUp,
}

impl Policy {
    pub const NAMES: [&'static str; 5] = ["allow", "ignore", "reroll", "shift-down", "shift-up"];

    pub fn parse(name: &str) -> Option<Policy> {
        Some(match name {
            "allow" => Policy::Allow,
            "ignore" => Policy::Ignore,
            "reroll" => Policy::Reroll,
            "shift-down" => Policy::ShiftDown,
            "shift-up" => Policy::ShiftUp,
            _ => return None,
        })
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Policy::Allow => "allow",
            Policy::Ignore => "ignore",
            Policy::Reroll => "reroll",
            Policy::ShiftDown => "shift-down",
            Policy::ShiftUp => "shift-up",
        })
    }
}

#[derive(Debug, Clone)]
pub struct Table {
    pub id: String,
    pub label: Option<String>,
    pub dice: DiceExpr,
    pub unavailable: Policy,
    pub duplicates: Policy,
    pub rows: Vec<Row>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub lo: i64,
    pub hi: i64,
    pub result: String,
    pub label: Option<String>,
    pub text: Option<String>,
    pub amount: Option<DiceExpr>,
    pub then: Vec<FollowUp>,
    pub fields: IndexMap<String, Value>,
    pub source: Option<String>,
    pub span: Span,
}

impl Row {
    pub fn key_text(&self) -> String {
        if self.lo == self.hi {
            self.lo.to_string()
        } else {
            format!("{}-{}", self.lo, self.hi)
        }
    }

    pub fn contains(&self, total: i64) -> bool {
        self.lo <= total && total <= self.hi
    }
}

/// A roll on another table that a row triggers, once or `times` times.
#[derive(Debug, Clone)]
pub struct FollowUp {
    pub table: String,
    pub times: Option<DiceExpr>,
    pub span: Span,
}

impl Table {
    pub fn title(&self) -> &str {
        self.label.as_deref().unwrap_or(&self.id)
    }

    pub fn row_for(&self, total: i64) -> Option<usize> {
        // Rows are sorted by their low end and, once checked, do not overlap: the last row
        // starting at or below the total is the only one that can hold it.
        let at = self.rows.partition_point(|r| r.lo <= total);
        match at.checked_sub(1) {
            Some(i) if self.rows[i].contains(total) && (i == 0 || self.rows[i - 1].hi < total) => Some(i),
            _ => self.rows.iter().position(|r| r.contains(total)),
        }
    }

    /// Result names in row order, each once.
    pub fn results(&self) -> Vec<&str> {
        let mut seen = BTreeSet::new();
        self.rows
            .iter()
            .map(|r| r.result.as_str())
            .filter(|r| seen.insert(*r))
            .collect()
    }

    /// Index of the first row giving `result`: the order outcomes are listed in.
    pub fn result_order(&self, result: &str) -> usize {
        self.rows.iter().position(|r| r.result == result).unwrap_or(usize::MAX)
    }
}

/// Which results the current situation rules out, as given by the caller.
#[derive(Debug, Clone, Default)]
pub struct Availability {
    pub unavailable: BTreeSet<String>,
    /// When set, only these results may be used.
    pub available: Option<BTreeSet<String>>,
}

impl Availability {
    pub fn allows(&self, result: &str) -> bool {
        !self.unavailable.contains(result) && self.available.as_ref().is_none_or(|a| a.contains(result))
    }
}

/// Why a landed row cannot be used, or that it can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Usable {
    Yes,
    Unavailable,
    Duplicate,
}

/// What a landed row turns into under the table's policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolution {
    Row(usize),
    Ignored,
    Reroll,
    NothingLeft,
}

impl Table {
    fn usable(&self, row: usize, avail: &Availability, taken: &BTreeSet<String>) -> Usable {
        let result = &self.rows[row].result;
        if !avail.allows(result) {
            Usable::Unavailable
        } else if self.duplicates != Policy::Allow && taken.contains(result) {
            Usable::Duplicate
        } else {
            Usable::Yes
        }
    }

    /// Applies the policies to the row a roll landed on. Pure: the same for rolling and odds.
    fn resolve(&self, row: usize, avail: &Availability, taken: &BTreeSet<String>) -> (Resolution, Vec<usize>) {
        let policy = match self.usable(row, avail, taken) {
            Usable::Yes => return (Resolution::Row(row), Vec::new()),
            Usable::Unavailable => self.unavailable,
            Usable::Duplicate => self.duplicates,
        };
        let n = self.rows.len();
        match policy {
            Policy::Allow => (Resolution::Row(row), Vec::new()),
            Policy::Ignore => (Resolution::Ignored, Vec::new()),
            Policy::Reroll => {
                if (0..n).any(|r| self.usable(r, avail, taken) == Usable::Yes) {
                    (Resolution::Reroll, Vec::new())
                } else {
                    (Resolution::NothingLeft, Vec::new())
                }
            }
            Policy::ShiftDown | Policy::ShiftUp => {
                let mut path = Vec::new();
                let mut at = row;
                for _ in 1..n {
                    at = if policy == Policy::ShiftDown {
                        (at + 1) % n
                    } else {
                        (at + n - 1) % n
                    };
                    path.push(at);
                    if self.usable(at, avail, taken) == Usable::Yes {
                        return (Resolution::Row(at), path);
                    }
                }
                (Resolution::NothingLeft, path)
            }
        }
    }
}
