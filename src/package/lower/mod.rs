//! Resolving merged items into the [`Ruleset`] model, checking as it goes: known kinds and
//! entries, value types, dice, table coverage (every roll lands in exactly one row),
//! references between items, and procedures bound to script functions.
//!
//! This file is the entry point and holds the value readers every item kind shares; each kind
//! has a file of its own. Campaigns are lowered last, once every game is, since they name
//! games and missions.

use super::entry_span;
use super::merge::{Merged, MergedItem};
use crate::diagnostic::{Diagnostic, Report, did_you_mean, thousands};
use crate::dice::DiceExpr;
use crate::limits::*;
use crate::ruleset::*;
use crate::script::Script;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{self, Entry, Term, ValueKind};
use indexmap::IndexMap;
use std::collections::BTreeSet;

mod battlefield;
mod board;
mod campaign;
mod dice;
mod game;
mod procedure;
mod records;
mod tables;

pub use dice::{RollNames, chart_cell_loaded, dice_from_ast, roll_from_ast};

/// Item kinds the engine itself understands; records add the kinds their schemas declare.
const BUILTIN_KINDS: [&str; 10] = [
    "die",
    "table",
    "pool",
    "deck",
    "schema",
    "procedure",
    "board",
    "mission",
    "game",
    "campaign",
];
/// Entries every record may carry besides its schema's fields.
const RECORD_META: [&str; 4] = ["source", "text", "provisional", "label"];

pub fn lower(
    merged: Merged,
    packages: Vec<PackageInfo>,
    scripts: Vec<Script>,
    scripts_failed: bool,
    sources: &mut SourceMap,
    report: &mut Report,
) -> Ruleset {
    let mut cx = Lower {
        report,
        scripts_failed,
        dice: IndexMap::new(),
        broken_boards: BTreeSet::new(),
        charts: merged
            .consts
            .iter()
            .map(|(k, c)| (k.clone(), c.value.clone()))
            .collect(),
    };
    let mut ruleset = Ruleset {
        packages,
        dice: IndexMap::new(),
        tables: IndexMap::new(),
        boards: IndexMap::new(),
        missions: IndexMap::new(),
        battlefields: IndexMap::new(),
        consts: IndexMap::new(),
        pools: IndexMap::new(),
        schemas: IndexMap::new(),
        records: IndexMap::new(),
        procedures: IndexMap::new(),
        games: IndexMap::new(),
        campaigns: IndexMap::new(),
        program: scripts
            .iter()
            .fold(rhai::AST::empty(), |program, s| program.merge(&s.ast)),
        scripts,
        sources: SourceMap::default(),
        overrides: merged.overrides.clone(),
    };
    let items: Vec<&MergedItem> = merged.items.values().collect();
    for item in items.iter().filter(|i| i.kind.text == "die") {
        if let Some(die) = cx.die(item) {
            cx.dice.insert(die.id.clone(), die);
        }
    }
    for item in items.iter().filter(|i| i.kind.text == "board") {
        match cx.board(item, sources) {
            Some(board) => {
                ruleset.boards.insert(board.id.clone(), board);
            }
            None => {
                cx.broken_boards.insert(item.id.text.clone());
            }
        }
    }
    for item in items.iter().filter(|i| i.kind.text == "schema") {
        if let Some(schema) = cx.schema(item) {
            ruleset.schemas.insert(schema.kind.clone(), schema);
        }
    }
    for item in items.iter().filter(|i| i.kind.text == "mission") {
        cx.mission_item(item, &mut ruleset);
    }
    for item in &items {
        match item.kind.text.as_str() {
            "die" | "schema" | "board" | "mission" | "campaign" => {}
            "battlefield" => {
                if let Some(b) = cx.battlefield(item) {
                    ruleset.battlefields.insert(b.id.clone(), b);
                }
            }
            "table" => {
                if let Some(t) = cx.table(item) {
                    ruleset.tables.insert(t.id.clone(), t);
                }
            }
            "pool" | "deck" => {
                if let Some(p) = cx.pool(item) {
                    ruleset.pools.insert(p.id.clone(), p);
                }
            }
            "game" => {
                if let Some(g) = cx.game(item, &ruleset.scripts, sources) {
                    ruleset.games.insert(g.id.clone(), g);
                }
            }
            "procedure" => {
                if let Some(p) = cx.procedure(item, &ruleset.scripts, sources) {
                    ruleset.procedures.insert(p.id.clone(), p);
                }
            }
            kind => match ruleset.schemas.get(kind) {
                Some(schema) => {
                    if let Some(r) = cx.record(item, schema) {
                        ruleset
                            .records
                            .entry(kind.to_string())
                            .or_default()
                            .insert(r.id.clone(), r);
                    }
                }
                None => {
                    let mut kinds: Vec<&str> = BUILTIN_KINDS.to_vec();
                    kinds.extend(ruleset.schemas.keys().map(String::as_str));
                    let help = did_you_mean(kind, kinds.iter().copied()).unwrap_or_else(|| {
                        format!(
                            "known kinds: {}; declare a new one with `schema {kind} {{ … }}`",
                            kinds.join(", ")
                        )
                    });
                    cx.report.push(
                        Diagnostic::error(item.kind.span, format!("unknown item kind `{kind}`"), "unknown kind")
                            .with_help(help),
                    );
                }
            },
        }
    }
    // Campaigns name games and missions: lowered once every game is.
    for item in items.iter().filter(|i| i.kind.text == "campaign") {
        if let Some(c) = cx.campaign(item, &ruleset, sources) {
            ruleset.campaigns.insert(c.id.clone(), c);
        }
    }
    for c in merged.consts.values() {
        if let Some(value) = cx.untyped(&c.value) {
            ruleset.consts.insert(
                c.id.text.clone(),
                Const {
                    id: c.id.text.clone(),
                    value,
                    span: c.span,
                },
            );
        }
    }
    ruleset.dice = std::mem::take(&mut cx.dice);
    board::check_needed_marks(&ruleset, cx.report);
    tables::check_follow_ups(&ruleset, cx.report);
    records::check_references(&ruleset, cx.report);
    procedure::check_arg_choices(&ruleset, cx.report);
    ruleset
}

struct Lower<'r> {
    report: &'r mut Report,
    /// A script failed to compile: its functions are unknown, so "no such function" would mislead.
    scripts_failed: bool,
    dice: IndexMap<String, Die>,
    /// Boards that failed to load: missions naming them say nothing more.
    broken_boards: BTreeSet<String>,
    /// Every constant as written, for the charts rolls read (`then to-wound(4, 5)`).
    charts: IndexMap<String, ast::Value>,
}

/// The properties of one item, checked against the entries its kind allows.
pub(super) struct Props<'e> {
    found: Vec<&'e ast::Property>,
}

impl<'e> Props<'e> {
    fn get(&self, key: &str) -> Option<&'e ast::Property> {
        self.found.iter().copied().find(|p| p.key.text == key)
    }

    fn all(&self, key: &'e str) -> impl Iterator<Item = &'e ast::Property> + '_ {
        self.found.iter().copied().filter(move |p| p.key.text == key)
    }
}

impl Lower<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.report.push(d);
    }

    /// Checks entry names: unknown ones get "did you mean", repeated ones an error. Rows and
    /// `remove` entries are errors unless `rows` is set.
    fn props<'e>(
        &mut self,
        entries: &'e [Entry],
        what: &str,
        known: &[&str],
        repeatable: &[&str],
        rows: bool,
    ) -> Props<'e> {
        let mut found: Vec<&ast::Property> = Vec::new();
        for entry in entries {
            match entry {
                Entry::Property(p) => {
                    let key = p.key.text.as_str();
                    if !known.contains(&key) {
                        let help = did_you_mean(key, known.iter().copied())
                            .unwrap_or_else(|| format!("{what} takes: {}", known.join(", ")));
                        self.err(
                            Diagnostic::error(p.key.span, format!("unknown entry `{key}` in {what}"), "unknown entry")
                                .with_help(help),
                        );
                    } else if let Some(first) = found
                        .iter()
                        .find(|f| f.key.text == key)
                        .filter(|_| !repeatable.contains(&key))
                    {
                        let first = first.span;
                        self.err(
                            Diagnostic::error(p.span, format!("`{key}` is given twice"), "again here")
                                .with_note(first, "first given here")
                                .with_help("keep one of them"),
                        );
                    } else {
                        found.push(p);
                    }
                }
                Entry::Row(r) if !rows => self.err(
                    Diagnostic::error(r.span, format!("{what} has no rows"), "a row")
                        .with_help("rows (`2-5 => result`) belong in a `table`"),
                ),
                Entry::Row(_) => {}
                Entry::Remove(_, span) => self.err(
                    Diagnostic::error(*span, "`remove` only works inside an `override`", "not in an override")
                        .with_help("to drop an entry of an inherited item, write `override <kind> <id> { remove … }`"),
                ),
            }
        }
        Props { found }
    }

    fn one<'v>(&mut self, prop: &'v ast::Property, expected: &str) -> Option<&'v ast::Value> {
        match prop.values.as_slice() {
            [v] => Some(v),
            [] => {
                self.err(
                    Diagnostic::error(prop.span, format!("`{}` needs a value", prop.key.text), "no value")
                        .with_help(format!("write `{} <{expected}>`", prop.key.text)),
                );
                None
            }
            [_, second, ..] => {
                self.err(
                    Diagnostic::error(
                        second.span,
                        format!("`{}` takes one value", prop.key.text),
                        "one too many",
                    )
                    .with_help(format!("`{}` expects {expected}", prop.key.text)),
                );
                None
            }
        }
    }

    fn text(&mut self, prop: Option<&ast::Property>) -> Option<String> {
        let prop = prop?;
        let value = self.one(prop, "\"text\"")?;
        match value.as_text() {
            Some(t) => Some(t.to_string()),
            None => {
                self.err(
                    Diagnostic::error(
                        value.span,
                        format!("`{}` takes a text in quotes", prop.key.text),
                        value.describe(),
                    )
                    .with_help(format!("write `{} \"…\"`", prop.key.text)),
                );
                None
            }
        }
    }

    fn name(&mut self, prop: &ast::Property) -> Option<(String, Span)> {
        let value = self.one(prop, "name")?;
        match value.as_name() {
            Some(n) => Some((n.to_string(), value.span)),
            None => {
                self.err(Diagnostic::error(
                    value.span,
                    format!("`{}` takes a name", prop.key.text),
                    value.describe(),
                ));
                None
            }
        }
    }

    fn label(&mut self, item: &MergedItem, props: &Props) -> Option<String> {
        self.text(props.get("label"))
            .or_else(|| item.label.as_ref().map(|l| l.text.clone()))
    }

    /// A dice expression; custom dice must be declared.
    fn dice(&mut self, value: &ast::Value) -> Option<DiceExpr> {
        let Some(expr) = value.as_expr() else {
            self.err(
                Diagnostic::error(
                    value.span,
                    format!("expected a dice expression, found {}", value.describe()),
                    "not dice",
                )
                .with_help("for example `2d6+4`, `d66`, `2 red + 1 white`"),
            );
            return None;
        };
        match dice_from_ast(expr, &self.dice) {
            Ok(d) => Some(d),
            Err(diagnostics) => {
                self.report.diagnostics.extend(diagnostics);
                None
            }
        }
    }

    /// A dice expression whose exact distribution servitor computes (a table's dice, an
    /// amount, a follow-up's count): its cost is checked against the limits here, once.
    fn dice_with_odds(&mut self, value: &ast::Value) -> Option<DiceExpr> {
        let dice = self.dice(value)?;
        let refuse = |what: String, help: String| Diagnostic::error(value.span, what, "too costly").with_help(help);
        match dice.odds_cost() {
            None => self.err(refuse(
                format!("the totals of `{dice}` do not fit in a number"),
                "use smaller dice and modifiers".into(),
            )),
            Some((_, totals)) if totals > MAX_ODDS_TOTALS => self.err(refuse(
                format!("`{dice}` can give {} different totals", thousands(totals)),
                format!(
                    "servitor computes the exact odds of every table, amount and follow-up count, so their dice give at most {} different totals (`MAX_ODDS_TOTALS`, see \"Limits\" in docs/limits.md): use fewer or smaller dice",
                    thousands(MAX_ODDS_TOTALS)
                ),
            )),
            Some((work, _)) if work > MAX_DICE_WORK => self.err(refuse(
                format!("the exact odds of `{dice}` take {} steps to compute", thousands(work)),
                format!(
                    "servitor computes the exact odds of every table, amount and follow-up count, at most {} steps each (`MAX_DICE_WORK`: dice added one by one, each step one running total and one face; see \"Limits\" in docs/limits.md): use fewer dice or dice with fewer faces",
                    thousands(MAX_DICE_WORK)
                ),
            )),
            Some(_) => return Some(dice),
        }
        None
    }

    /// Dice read die by die, or a plain dice expression read as its total; `fields` are a
    /// record's own dice fields, which the roll may read (`kill any 6 in dice`).
    pub(super) fn roll_value(
        &mut self,
        value: &ast::Value,
        fields: Option<&IndexMap<String, DiceExpr>>,
    ) -> Option<Value> {
        match &value.kind {
            ValueKind::Roll(expr) => {
                let charts = &self.charts;
                let look = |chart: &ast::Name, keys: &[i64], span: Span| dice::chart_cell(charts, chart, keys, span);
                let names = RollNames {
                    fields,
                    chart: Some(&look),
                };
                match roll_from_ast(expr, &self.dice, &names) {
                    Ok((roll, reads)) => Some(Value::Roll(Box::new(RollText {
                        text: roll.to_string(),
                        roll,
                        reads,
                    }))),
                    Err(diagnostics) => {
                        self.report.diagnostics.extend(diagnostics);
                        None
                    }
                }
            }
            ValueKind::Expr(_) => {
                let expr = self.dice(value)?;
                let roll = crate::dice::Roll::Read(crate::dice::Reading::Total(expr));
                Some(Value::Roll(Box::new(RollText {
                    text: roll.to_string(),
                    roll,
                    reads: None,
                })))
            }
            _ => {
                self.err(
                    Diagnostic::error(
                        value.span,
                        format!("expected dice, found {}", value.describe()),
                        "not dice",
                    )
                    .with_help("for example `2d6`, `highest of 3d6`, `any 6 in 2d6`"),
                );
                None
            }
        }
    }

    /// Any value, typed by its own shape.
    fn untyped(&mut self, value: &ast::Value) -> Option<Value> {
        Some(match &value.kind {
            ValueKind::Text(t) => Value::Text(t.clone()),
            ValueKind::List(items) => Value::List(items.iter().map(|v| self.untyped(v)).collect::<Option<_>>()?),
            ValueKind::Block(block) => {
                let mut map = IndexMap::new();
                for entry in &block.entries {
                    let Entry::Property(p) = entry else {
                        self.err(Diagnostic::error(
                            entry_span(entry),
                            "expected `name value` here",
                            "not a field",
                        ));
                        return None;
                    };
                    let v = match p.values.as_slice() {
                        [] => Value::Flag(true),
                        [one] => self.untyped(one)?,
                        many => Value::List(many.iter().map(|v| self.untyped(v)).collect::<Option<_>>()?),
                    };
                    map.insert(p.key.text.clone(), v);
                }
                Value::Map(map)
            }
            ValueKind::Roll(_) => return self.roll_value(value, None),
            ValueKind::Expr(expr) => match expr.terms.as_slice() {
                [t] if matches!(t.term, Term::Decimal(_)) => {
                    self.err(
                        Diagnostic::error(t.span, "a whole number is wanted here", "a decimal point").with_help(
                            "numbers with a decimal point are inches on a battlefield (corners and markers); elsewhere write whole numbers",
                        ),
                    );
                    return None;
                }
                [t] if !matches!(t.term, Term::Die { .. } | Term::Pool { .. }) => match &t.term {
                    Term::Number(n) => Value::Number(if t.negative { -n } else { *n }),
                    Term::Name(n) if n == "yes" || n == "true" => Value::Flag(true),
                    Term::Name(n) if n == "no" || n == "false" => Value::Flag(false),
                    Term::Name(n) => Value::Name(n.clone()),
                    Term::Tagged { name, number } => Value::Text(format!("{name}({number})")),
                    _ => unreachable!(),
                },
                _ => {
                    let expr = self.dice(value)?;
                    Value::Dice(DiceText {
                        text: expr.to_string(),
                        expr,
                    })
                }
            },
        })
    }

    /// A value checked against a field type; references are checked later, once every item exists.
    fn typed(&mut self, value: &ast::Value, ty: &FieldType, field: &str) -> Option<Value> {
        let mismatch = |this: &mut Self, what: &str| {
            this.err(
                Diagnostic::error(
                    value.span,
                    format!("`{field}` expects {what}, found {}", value.describe()),
                    "wrong type",
                )
                .with_help(format!("`{field}` is declared `{ty}` in the schema")),
            );
            None
        };
        match ty {
            FieldType::Number => value
                .as_number()
                .map(Value::Number)
                .or_else(|| mismatch(self, "a number")),
            FieldType::Text => value
                .as_text()
                .map(|t| Value::Text(t.into()))
                .or_else(|| mismatch(self, "a text")),
            FieldType::Name | FieldType::Ref(_) => value
                .as_name()
                .map(|n| Value::Name(n.into()))
                .or_else(|| mismatch(self, "a name")),
            FieldType::Flag => match value.as_name() {
                Some("yes" | "true") => Some(Value::Flag(true)),
                Some("no" | "false") => Some(Value::Flag(false)),
                _ => mismatch(self, "`yes` or `no`"),
            },
            FieldType::Roll => self.roll_value(value, None),
            FieldType::Dice if matches!(value.kind, ValueKind::Roll(_)) => {
                self.err(
                    Diagnostic::error(
                        value.span,
                        format!(
                            "`{field}` expects a dice expression (a total), found {}",
                            value.describe()
                        ),
                        "wrong type",
                    )
                    .with_help(format!(
                        "`{field}` is declared `dice` in the schema: declare it `roll` to read its dice die by die"
                    )),
                );
                None
            }
            FieldType::Dice => {
                let expr = self.dice(value)?;
                Some(Value::Dice(DiceText {
                    text: expr.to_string(),
                    expr,
                }))
            }
            FieldType::List(inner) => match &value.kind {
                ValueKind::List(items) => {
                    let items: Option<Vec<Value>> = items.iter().map(|v| self.typed(v, inner, field)).collect();
                    items.map(Value::List)
                }
                _ => mismatch(self, "a list `[ … ]`"),
            },
        }
    }
}
