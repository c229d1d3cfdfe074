//! Plain values shared by every layer (records, rows, constants, board fields, game state):
//! kept apart from `ruleset` so that `board`, `tables` and `ruleset` only point down.

use crate::dice::{DiceExpr, Roll};
use indexmap::IndexMap;
use serde::Serialize;

/// A field value of a record, a row or a constant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Number(i64),
    Flag(bool),
    Text(String),
    /// A name (an identifier); serialised as a string.
    Name(String),
    /// A dice expression, kept as its text (`2d6+4`); `Ruleset::dice_of` parses it.
    Dice(DiceText),
    /// Dice read die by die (`any 6 in 2d6`), kept as its text and the roll.
    Roll(Box<RollText>),
    List(Vec<Value>),
    Map(IndexMap<String, Value>),
}

/// A dice expression in a value: its canonical text and the parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct DiceText {
    pub text: String,
    pub expr: DiceExpr,
}

impl Serialize for DiceText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// Dice read die by die in a value: its canonical text and the roll.
#[derive(Debug, Clone, PartialEq)]
pub struct RollText {
    pub text: String,
    pub roll: Roll,
    /// The record's own dice field the roll reads (`kill any 6 in dice`), if any: the readings
    /// of one field are read from one roll of it.
    pub reads: Option<String>,
}

impl Serialize for RollText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl Value {
    /// The value as plain text, the way `tables` and logs show it.
    pub fn show(&self) -> String {
        match self {
            Value::Number(n) => n.to_string(),
            Value::Flag(b) => if *b { "yes" } else { "no" }.into(),
            Value::Text(t) => format!("{t:?}"),
            Value::Name(n) => n.clone(),
            Value::Dice(d) => d.text.clone(),
            Value::Roll(r) => match (&r.reads, &r.roll) {
                (Some(field), Roll::Read(crate::dice::Reading::Pool(p))) => p.text_with_pool(field),
                _ => r.text.clone(),
            },
            Value::List(items) => format!("[{}]", items.iter().map(Value::show).collect::<Vec<_>>().join(", ")),
            Value::Map(m) => {
                let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k} {}", v.show())).collect();
                format!("{{ {} }}", inner.join("; "))
            }
        }
    }
}
