//! The resolved model of a package and everything it extends: plain data, names resolved,
//! every item with its span. Built by [`crate::package`]; read by every layer after it.

use crate::dice::{DiceExpr, Face};
use crate::script::Script;
use crate::source::{SourceMap, Span};
use crate::tables::Table;
use indexmap::IndexMap;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

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

impl Value {
    /// The value as plain text, the way `tables` and logs show it.
    pub fn show(&self) -> String {
        match self {
            Value::Number(n) => n.to_string(),
            Value::Flag(b) => if *b { "yes" } else { "no" }.into(),
            Value::Text(t) => format!("{t:?}"),
            Value::Name(n) => n.clone(),
            Value::Dice(d) => d.text.clone(),
            Value::List(items) => format!("[{}]", items.iter().map(Value::show).collect::<Vec<_>>().join(", ")),
            Value::Map(m) => {
                let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k} {}", v.show())).collect();
                format!("{{ {} }}", inner.join("; "))
            }
        }
    }
}

/// A package in the `extends` chain, base first.
#[derive(Debug, Clone, Serialize)]
pub struct PackageInfo {
    pub name: String,
    pub title: Option<String>,
    pub version: Option<String>,
    pub source: Option<String>,
    #[serde(skip)]
    pub folder: PathBuf,
}

#[derive(Debug, Clone)]
pub struct Die {
    pub id: String,
    pub label: Option<String>,
    pub faces: Arc<[Face]>,
    pub source: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Const {
    pub id: String,
    pub value: Value,
    pub span: Span,
}

/// A pool or a deck: named entries with counts.
#[derive(Debug, Clone)]
pub struct Pool {
    pub id: String,
    pub kind: String,
    pub label: Option<String>,
    pub entries: IndexMap<String, i64>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub provisional: Option<String>,
    pub span: Span,
}

/// The type of a record field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    Number,
    Text,
    Name,
    Dice,
    Flag,
    List(Box<FieldType>),
    /// A reference to an item of this kind (`weapon`, `table`, …).
    Ref(String),
}

impl std::fmt::Display for FieldType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldType::Number => f.write_str("number"),
            FieldType::Text => f.write_str("text"),
            FieldType::Name => f.write_str("name"),
            FieldType::Dice => f.write_str("dice"),
            FieldType::Flag => f.write_str("flag"),
            FieldType::List(t) => write!(f, "list {t}"),
            FieldType::Ref(k) => f.write_str(k),
        }
    }
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub ty: FieldType,
    pub optional: bool,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Schema {
    pub kind: String,
    pub label: Option<String>,
    pub fields: IndexMap<String, FieldDef>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Record {
    pub kind: String,
    pub id: String,
    pub label: Option<String>,
    pub fields: IndexMap<String, Value>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub provisional: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct ProcArg {
    pub name: String,
    pub default: Value,
    pub help: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Procedure {
    pub id: String,
    pub label: Option<String>,
    pub function: String,
    /// Index into `Ruleset::scripts` of the script defining `function`.
    pub script: usize,
    pub args: Vec<ProcArg>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// A loaded package with everything it extends, checked and resolved.
#[derive(Debug)]
pub struct Ruleset {
    /// Base first, this package last.
    pub packages: Vec<PackageInfo>,
    pub dice: IndexMap<String, Die>,
    pub tables: IndexMap<String, Table>,
    pub boards: IndexMap<String, crate::board::Board>,
    pub missions: IndexMap<String, crate::board::Mission>,
    pub battlefields: IndexMap<String, crate::board::field::Battlefield>,
    pub consts: IndexMap<String, Const>,
    pub pools: IndexMap<String, Pool>,
    pub schemas: IndexMap<String, Schema>,
    /// kind → id → record, in declaration order.
    pub records: IndexMap<String, IndexMap<String, Record>>,
    pub procedures: IndexMap<String, Procedure>,
    pub scripts: Vec<Script>,
    /// All scripts merged, base first: a later script's function replaces an earlier one of
    /// the same name, so a variant can redefine a base's helper.
    pub program: rhai::AST,
    pub sources: SourceMap,
}

impl Ruleset {
    pub fn name(&self) -> &str {
        self.packages.last().map_or("", |p| p.name.as_str())
    }

    pub fn info(&self) -> &PackageInfo {
        self.packages.last().expect("a ruleset has at least its own package")
    }
}
