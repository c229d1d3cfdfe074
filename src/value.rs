//! Plain values shared by every layer (records, rows, constants, board fields, game state):
//! kept apart from `ruleset` so that `board`, `tables` and `ruleset` only point down.
//! [`words_of_json`] shows a kept value (JSON) in the words a script would write it in; the
//! kernel and the script host both use it, which is why it lives here.

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

/// A value kept in a game (a variable, a piece's field) in the same words as a list or map a
/// script puts into a string: `[section-1, section-2]`, `[6,1; 7,1]`, `red 2, blue 4`, `none`.
pub fn words_of_json(value: &serde_json::Value) -> String {
    use serde_json::Value as Json;
    fn item(value: &Json) -> String {
        match value {
            Json::Object(map) if !map.is_empty() => format!("({})", words_of_json(value)),
            other => words_of_json(other),
        }
    }
    match value {
        Json::Null => "none".into(),
        Json::String(s) => s.clone(),
        Json::Array(list) if list.is_empty() => "none".into(),
        Json::Array(list) => {
            let items: Vec<String> = list.iter().map(item).collect();
            let sep = if items.iter().any(|i| i.contains(',')) {
                "; "
            } else {
                ", "
            };
            format!("[{}]", items.join(sep))
        }
        Json::Object(map) if map.is_empty() => "none".into(),
        Json::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k} {}", item(v)))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
