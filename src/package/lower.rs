//! Resolving merged items into the [`Ruleset`] model, checking as it goes: known kinds and
//! entries, value types, dice, table coverage (every roll lands in exactly one row),
//! references between items, and procedures bound to script functions.

use super::entry_span;
use super::merge::{Merged, MergedItem};
use crate::board::field::{Battlefield, Point, Polygon};
use crate::board::map::{self, MapText};
use crate::board::{Board, Grid, Mission, Piece, Square};
use crate::diagnostic::{Diagnostic, Report, did_you_mean, thousands};
use crate::dice::{DiceExpr, DieKind, Face, Part};
use crate::limits::*;
use crate::ruleset::*;
use crate::script::Script;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{self, Entry, Term, ValueKind};
use crate::tables::{FollowUp, Policy, Row, Table};
use indexmap::IndexMap;
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::sync::Arc;

mod game;

/// Item kinds the engine itself understands; records add the kinds their schemas declare.
const BUILTIN_KINDS: [&str; 9] = [
    "die",
    "table",
    "pool",
    "deck",
    "schema",
    "procedure",
    "board",
    "mission",
    "game",
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
        program: scripts
            .iter()
            .fold(rhai::AST::empty(), |program, s| program.merge(&s.ast)),
        scripts,
        sources: SourceMap::default(),
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
            "die" | "schema" | "board" | "mission" => {}
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
    check_follow_ups(&ruleset, cx.report);
    check_references(&ruleset, cx.report);
    check_arg_choices(&ruleset, cx.report);
    ruleset
}

/// An arg's `of …` must name tables and kinds that exist, and its default must be one of them.
fn check_arg_choices(ruleset: &Ruleset, report: &mut Report) {
    for procedure in ruleset.procedures.values() {
        for arg in &procedure.args {
            let mut known = true;
            for choice in &arg.of {
                let (missing, candidates) = match choice {
                    ArgChoice::Results(table) if !ruleset.tables.contains_key(table) => (
                        format!("no table `{table}`"),
                        ruleset.tables.keys().map(String::as_str).collect(),
                    ),
                    ArgChoice::Ids(kind) if ruleset.ids_of(kind).is_none() => {
                        (format!("no kind of item `{kind}`"), ruleset.kinds())
                    }
                    _ => continue,
                };
                known = false;
                let help = did_you_mean(
                    match choice {
                        ArgChoice::Results(t) | ArgChoice::Ids(t) => t,
                        ArgChoice::Values(_) => "",
                    },
                    candidates.iter().copied(),
                )
                .unwrap_or_else(|| format!("choose from: {}", candidates.join(", ")));
                report.push(
                    Diagnostic::error(
                        arg.span,
                        format!("arg `{}` of procedure `{}`: {missing}", arg.name, procedure.id),
                        "after `of`",
                    )
                    .with_help(help),
                );
            }
            let Some(choices) = ruleset.arg_choices(arg).filter(|_| known) else {
                continue;
            };
            let defaults = match &arg.default {
                Value::List(items) => items.clone(),
                one => vec![one.clone()],
            };
            for value in defaults.iter().filter(|v| !choices.contains(v)) {
                report.push(
                    Diagnostic::error(
                        arg.span,
                        format!(
                            "the default of arg `{}` names `{}`, which is not one of its choices",
                            arg.name,
                            value.show()
                        ),
                        "default outside `of`",
                    )
                    .with_help(format!(
                        "choices: {}",
                        choices.iter().map(Value::show).collect::<Vec<_>>().join(", ")
                    )),
                );
            }
        }
    }
}

struct Lower<'r> {
    report: &'r mut Report,
    /// A script failed to compile: its functions are unknown, so "no such function" would mislead.
    scripts_failed: bool,
    dice: IndexMap<String, Die>,
    /// Boards that failed to load: missions naming them say nothing more.
    broken_boards: BTreeSet<String>,
}

/// The properties of one item, checked against the entries its kind allows.
struct Props<'e> {
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
                    "servitor computes the exact odds of every table, amount and follow-up count, so their dice give at most {} different totals (`MAX_ODDS_TOTALS`, see \"Limits\" in grammar/README.md): use fewer or smaller dice",
                    thousands(MAX_ODDS_TOTALS)
                ),
            )),
            Some((work, _)) if work > MAX_ODDS_WORK => self.err(refuse(
                format!("the exact odds of `{dice}` take {} steps to compute", thousands(work)),
                format!(
                    "servitor computes the exact odds of every table, amount and follow-up count, at most {} steps each (`MAX_ODDS_WORK`: dice added one by one, each step one running total and one face; see \"Limits\" in grammar/README.md): use fewer dice or dice with fewer faces",
                    thousands(MAX_ODDS_WORK)
                ),
            )),
            Some(_) => return Some(dice),
        }
        None
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
            ValueKind::Expr(expr) => match expr.terms.as_slice() {
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

    fn die(&mut self, item: &MergedItem) -> Option<Die> {
        let props = self.props(
            &item.entries,
            "a die",
            &["faces", "source", "text", "label"],
            &[],
            false,
        );
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let Some(faces_prop) = props.get("faces") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("die `{}` has no faces", item.id.text),
                    "no `faces`",
                )
                .with_help("add `faces [1, 2, 3, 4, 5, 6]`"),
            );
            return None;
        };
        let value = self.one(faces_prop, "[faces]")?;
        let ValueKind::List(items) = &value.kind else {
            self.err(Diagnostic::error(
                value.span,
                "`faces` takes a list `[ … ]`",
                value.describe(),
            ));
            return None;
        };
        let mut faces = Vec::new();
        for v in items {
            let face = match v.as_expr().map(|e| e.terms.as_slice()) {
                Some([t]) => match &t.term {
                    Term::Number(n) => Some(Face {
                        name: None,
                        value: Some(if t.negative { -n } else { *n }),
                    }),
                    Term::Name(n) if !t.negative => Some(Face {
                        name: Some(n.clone()),
                        value: None,
                    }),
                    Term::Tagged { name, number } => Some(Face {
                        name: Some(name.clone()),
                        value: Some(*number),
                    }),
                    _ => None,
                },
                _ => None,
            };
            match face {
                Some(f) => faces.push(f),
                None => self.err(
                    Diagnostic::error(v.span, "a face is a number, a name or `name(number)`", "not a face")
                        .with_help("for example `faces [hit, hit, arrow(0), arrow(90), arrow(180), arrow(270)]`"),
                ),
            }
        }
        if faces.is_empty() {
            self.err(Diagnostic::error(
                value.span,
                "a die needs at least one face",
                "no faces",
            ));
            return None;
        }
        if faces.len() as u64 > MAX_DIE_FACES {
            self.err(
                Diagnostic::error(
                    value.span,
                    format!("a die with {} faces", faces.len()),
                    "too many faces",
                )
                .with_help(format!(
                    "a die has at most {} faces (`MAX_DIE_FACES`, see \"Limits\" in grammar/README.md)",
                    thousands(MAX_DIE_FACES)
                )),
            );
            return None;
        }
        if let Some((v, face)) = items
            .iter()
            .zip(&faces)
            .find(|(_, f)| f.value.is_some_and(|n| n.unsigned_abs() > MAX_DICE_VALUE))
        {
            self.err(
                Diagnostic::error(v.span, format!("the face {face} is too large"), "too large").with_help(format!(
                    "a number on a face is at most {} either way (`MAX_DICE_VALUE`, see \"Limits\" in grammar/README.md)",
                    thousands(MAX_DICE_VALUE)
                )),
            );
            return None;
        }
        Some(Die {
            id: item.id.text.clone(),
            label,
            faces: Arc::from(faces),
            source,
            text: self.text(props.get("text")),
            span: item.span,
        })
    }

    fn schema(&mut self, item: &MergedItem) -> Option<Schema> {
        let mut fields = IndexMap::new();
        for entry in &item.entries {
            let Entry::Property(p) = entry else {
                self.err(Diagnostic::error(
                    entry_span(entry),
                    "a schema lists fields: `name type`",
                    "not a field",
                ));
                continue;
            };
            if RECORD_META.contains(&p.key.text.as_str()) {
                if p.key.text == "source" || p.key.text == "text" || p.key.text == "label" {
                    continue;
                }
                self.err(Diagnostic::error(
                    p.key.span,
                    format!("`{}` is built into every record", p.key.text),
                    "reserved",
                ));
                continue;
            }
            let words: Vec<&str> = p.values.iter().filter_map(|v| v.as_name()).collect();
            if words.len() != p.values.len() || words.is_empty() {
                self.err(
                    Diagnostic::error(p.span, format!("field `{}` needs a type", p.key.text), "expected a type")
                        .with_help("types: number, text, name, dice, flag, list <type>, or an item kind; add `optional` if it may be left out"),
                );
                continue;
            }
            let optional = words.last() == Some(&"optional");
            let type_words = if optional {
                &words[..words.len() - 1]
            } else {
                &words[..]
            };
            let Some(ty) = parse_type(type_words) else {
                self.err(
                    Diagnostic::error(
                        p.values[0].span,
                        format!("`{}` is not a field type", type_words.join(" ")),
                        "unknown type",
                    )
                    .with_help(
                        did_you_mean(
                            type_words.first().copied().unwrap_or(""),
                            ["number", "text", "name", "dice", "flag", "list"],
                        )
                        .unwrap_or_else(|| {
                            "types: number, text, name, dice, flag, list <type>, or an item kind".into()
                        }),
                    ),
                );
                continue;
            };
            fields.insert(
                p.key.text.clone(),
                FieldDef {
                    name: p.key.text.clone(),
                    ty,
                    optional,
                    span: p.span,
                },
            );
        }
        let label = item.label.as_ref().map(|l| l.text.clone());
        Some(Schema {
            kind: item.id.text.clone(),
            label,
            fields,
            span: item.span,
        })
    }

    fn record(&mut self, item: &MergedItem, schema: &Schema) -> Option<Record> {
        let mut known: Vec<&str> = schema.fields.keys().map(String::as_str).collect();
        known.extend(RECORD_META);
        let what = format!("a {}", schema.kind);
        let props = self.props(&item.entries, &what, &known, &[], false);
        let mut fields = IndexMap::new();
        for (name, def) in &schema.fields {
            match props.get(name) {
                Some(p) => {
                    let value = match p.values.as_slice() {
                        [v] => self.typed(v, &def.ty, name),
                        [] if def.ty == FieldType::Flag => Some(Value::Flag(true)),
                        _ => self.one(p, &def.ty.to_string()).and(None),
                    };
                    if let Some(v) = value {
                        fields.insert(name.clone(), v);
                    }
                }
                None if !def.optional => self.err(
                    Diagnostic::error(
                        item.id.span,
                        format!("{} `{}` has no `{name}`", schema.kind, item.id.text),
                        "missing field",
                    )
                    .with_note(def.span, "declared here")
                    .with_help(format!(
                        "add `{name} <{}>`, or mark the field `optional` in the schema",
                        def.ty
                    )),
                ),
                None => {}
            }
        }
        Some(Record {
            kind: schema.kind.clone(),
            id: item.id.text.clone(),
            label: self.label(item, &props),
            fields,
            source: self.text(props.get("source")),
            text: self.text(props.get("text")),
            provisional: self.text(props.get("provisional")),
            span: item.span,
        })
    }

    fn pool(&mut self, item: &MergedItem) -> Option<Pool> {
        let mut entries = IndexMap::new();
        let mut meta: Vec<&ast::Property> = Vec::new();
        for entry in &item.entries {
            let Entry::Property(p) = entry else {
                self.err(Diagnostic::error(
                    entry_span(entry),
                    format!("a {} lists `name count` entries", item.kind.text),
                    "not an entry",
                ));
                continue;
            };
            if ["source", "text", "provisional", "label"].contains(&p.key.text.as_str()) {
                meta.push(p);
                continue;
            }
            let Some(value) = self.one(p, "count") else { continue };
            match value.as_number() {
                Some(n) if n >= 0 => {
                    if entries.insert(p.key.text.clone(), n).is_some() {
                        self.err(Diagnostic::error(
                            p.span,
                            format!("`{}` is listed twice", p.key.text),
                            "again here",
                        ));
                    }
                }
                _ => self.err(
                    Diagnostic::error(
                        value.span,
                        format!("`{}` needs a count (0 or more)", p.key.text),
                        value.describe(),
                    )
                    .with_help(format!("write `{} 3`", p.key.text)),
                ),
            }
        }
        let props = Props { found: meta };
        Some(Pool {
            id: item.id.text.clone(),
            kind: item.kind.text.clone(),
            label: self.label(item, &props),
            entries,
            source: self.text(props.get("source")),
            text: self.text(props.get("text")),
            provisional: self.text(props.get("provisional")),
            span: item.span,
        })
    }

    fn table(&mut self, item: &MergedItem) -> Option<Table> {
        let known = ["dice", "unavailable", "duplicates", "source", "text", "label"];
        let props = self.props(&item.entries, "a table", &known, &[], true);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let unavailable = self.policy(props.get("unavailable"), Policy::Ignore, false);
        let duplicates = self.policy(props.get("duplicates"), Policy::Allow, true);
        let Some(dice_prop) = props.get("dice") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("table `{}` does not say what to roll", item.id.text),
                    "no `dice`",
                )
                .with_help("add `dice 2d6` (or any dice expression)"),
            );
            return None;
        };
        let dice_value = self.one(dice_prop, "dice")?;
        let dice = self.dice_with_odds(dice_value)?;
        if let Some(die) = dice.symbolic_faces() {
            self.err(
                Diagnostic::error(
                    dice_value.span,
                    format!("die `{die}` has faces without numbers"),
                    "cannot give a total",
                )
                .with_help("a table needs a total: give every face a number, e.g. `arrow(90)`"),
            );
            return None;
        }
        let mut rows: Vec<Row> = item
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Row(r) => Some(r),
                _ => None,
            })
            .filter_map(|r| self.row(r))
            .collect();
        rows.sort_by_key(|r| r.lo);
        let table = Table {
            id: item.id.text.clone(),
            label,
            dice,
            unavailable,
            duplicates,
            rows,
            source,
            text,
            span: item.span,
        };
        self.coverage(&table, dice_value.span);
        Some(table)
    }

    fn policy(&mut self, prop: Option<&ast::Property>, default: Policy, allow: bool) -> Policy {
        let Some(prop) = prop else { return default };
        let Some((name, span)) = self.name(prop) else {
            return default;
        };
        let names: Vec<&str> = Policy::NAMES
            .iter()
            .copied()
            .filter(|n| allow || *n != "allow")
            .collect();
        match Policy::parse(&name).filter(|p| allow || *p != Policy::Allow) {
            Some(p) => p,
            None => {
                self.err(
                    Diagnostic::error(
                        span,
                        format!("`{name}` is not a policy for `{}`", prop.key.text),
                        "unknown policy",
                    )
                    .with_help(
                        did_you_mean(&name, names.iter().copied())
                            .unwrap_or_else(|| format!("one of: {}", names.join(", "))),
                    ),
                );
                default
            }
        }
    }

    fn row(&mut self, row: &ast::Row) -> Option<Row> {
        let entries: &[Entry] = row.body.as_ref().map_or(&[], |b| &b.entries);
        let known = ["text", "amount", "then", "fields", "source", "label"];
        let props = self.props(entries, "a row", &known, &["then"], false);
        let amount = match props.get("amount") {
            Some(p) => Some(self.one(p, "dice").and_then(|v| self.dice_with_odds(v))?),
            None => None,
        };
        let mut then = Vec::new();
        for p in props.all("then") {
            let table = p.values.first().and_then(|v| v.as_name());
            let times = match p.values.as_slice() {
                [_] => Some(None),
                [_, word, count] if word.as_name() == Some("times") => self.dice_with_odds(count).map(Some),
                _ => None,
            };
            match (table, times) {
                (Some(table), Some(times)) => then.push(FollowUp {
                    table: table.to_string(),
                    times,
                    span: p.values[0].span,
                }),
                _ => self.err(
                    Diagnostic::error(p.span, "`then` takes a table and an optional count", "not understood")
                        .with_help("write `then other-table` or `then other-table times 1d6`"),
                ),
            }
        }
        let fields = match props.get("fields") {
            Some(p) => match self.one(p, "{ … }").map(|v| (v.span, self.untyped(v))) {
                Some((_, Some(Value::Map(m)))) => m,
                Some((span, Some(_))) => {
                    self.err(Diagnostic::error(
                        span,
                        "`fields` takes a block `{ name value; … }`",
                        "not a block",
                    ));
                    IndexMap::new()
                }
                _ => IndexMap::new(),
            },
            None => IndexMap::new(),
        };
        Some(Row {
            lo: row.key.lo,
            hi: row.key.hi,
            result: row.result.text.clone(),
            label: self
                .text(props.get("label"))
                .or_else(|| row.label.as_ref().map(|l| l.text.clone())),
            text: self.text(props.get("text")),
            amount,
            then,
            fields,
            source: self.text(props.get("source")),
            span: row.span,
        })
    }

    /// Every possible total must land in exactly one row, and every row must be reachable.
    fn coverage(&mut self, table: &Table, dice_span: Span) {
        let totals: Vec<i64> = table.dice.distribution().weights.into_keys().collect();
        let (lo, hi) = (
            totals.first().copied().unwrap_or(0),
            totals.last().copied().unwrap_or(0),
        );
        let range = if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
        // Rows are sorted by their low end; one sweep finds the gaps and the overlaps, so a
        // table of many rows over many totals costs (rows + totals) × log, not their product.
        let rows = &table.rows;
        let first_total_in = |lo: i64, hi: i64| -> Option<i64> {
            let at = totals.partition_point(|&t| t < lo);
            totals.get(at).copied().filter(|&t| t <= hi)
        };
        let mut gaps = Vec::new();
        let mut next = 0; // rows[..next] start at or below the total looked at
        let mut reach: Option<usize> = None; // of those, the row reaching highest
        for &t in &totals {
            while next < rows.len() && rows[next].lo <= t {
                if reach.is_none_or(|r| rows[next].hi > rows[r].hi) {
                    reach = Some(next);
                }
                next += 1;
            }
            if reach.is_none_or(|r| rows[r].hi < t) {
                gaps.push(t);
            }
        }
        let mut widest: Option<usize> = None;
        for (i, b) in rows.iter().enumerate() {
            if let Some(w) = widest {
                let a = &rows[w];
                if let Some(t) = first_total_in(b.lo, a.hi.min(b.hi)) {
                    self.err(
                        Diagnostic::error(
                            b.span,
                            format!("rows {} and {} both cover {t}", a.key_text(), b.key_text()),
                            "overlaps an earlier row",
                        )
                        .with_note(a.span, "this row covers it too")
                        .with_help("every roll must land in exactly one row: narrow one of the ranges"),
                    );
                }
            }
            if widest.is_none_or(|w| b.hi > rows[w].hi) {
                widest = Some(i);
            }
        }
        if !gaps.is_empty() {
            let runs = runs_of(&gaps, &totals);
            let plural = if gaps.len() == 1 { "" } else { "s" };
            self.err(
                Diagnostic::error(
                    dice_span,
                    format!("table `{}` has no row for the roll{plural} {runs}", table.id),
                    format!("{} rolls {range}", table.dice),
                )
                .with_note(table.span, "in this table")
                .with_help(format!("add rows for {runs}, or widen a neighbouring row's range")),
            );
        }
        for row in &table.rows {
            if first_total_in(row.lo, row.hi).is_none() {
                self.err(
                    Diagnostic::error(
                        row.span,
                        format!("row {} can never come up", row.key_text()),
                        format!("{} rolls {range}", table.dice),
                    )
                    .with_help("remove the row or change the table's `dice`"),
                );
            }
        }
    }

    /// `arg <name> <default> ["help"] [of <choice>…]`: a choice is a list of values, a record
    /// or item kind (its ids), or `table <id>` (that table's results).
    fn proc_arg(&mut self, p: &ast::Property) -> Option<ProcArg> {
        let mut values = p.values.iter().peekable();
        let name = values.next().and_then(|v| v.as_name());
        let default = values.next();
        let help = values.next_if(|v| v.as_text().is_some()).and_then(|v| v.as_text());
        let of = values.next_if(|v| v.as_name() == Some("of")).is_some();
        let rest: Vec<&ast::Value> = values.collect();
        let (Some(name), Some(default), true) = (name, default, of != rest.is_empty()) else {
            self.err(
                Diagnostic::error(
                    p.span,
                    "`arg` takes a name, a default value, an optional help text and an optional `of …`",
                    "not understood",
                )
                .with_help(
                    "write `arg boards-left 4 \"board sections not yet scanned\"`, or \
                     `arg model base \"which table\" of [base, mission]`",
                ),
            );
            return None;
        };
        let default = self.untyped(default)?;
        let mut choices = Vec::new();
        let mut rest = rest.into_iter().peekable();
        while let Some(v) = rest.next() {
            match (&v.kind, v.as_name()) {
                (ValueKind::List(items), _) => {
                    choices.push(ArgChoice::Values(
                        items.iter().map(|i| self.untyped(i)).collect::<Option<_>>()?,
                    ));
                }
                (_, Some("table")) if rest.peek().is_some_and(|n| n.as_name().is_some()) => {
                    let table = rest.next().and_then(|n| n.as_name()).unwrap_or_default();
                    choices.push(ArgChoice::Results(table.to_string()));
                }
                (_, Some(kind)) => choices.push(ArgChoice::Ids(kind.to_string())),
                _ => {
                    self.err(
                        Diagnostic::error(
                            v.span,
                            "after `of`, expected a list, a kind or `table <id>`",
                            "not a choice",
                        )
                        .with_help("e.g. `of [2, 4]`, `of mission`, `of table reinforcement-type [none]`"),
                    );
                    return None;
                }
            }
        }
        Some(ProcArg {
            name: name.to_string(),
            default,
            help: help.map(str::to_string),
            of: choices,
            span: p.span,
        })
    }

    fn procedure(&mut self, item: &MergedItem, scripts: &[Script], sources: &SourceMap) -> Option<Procedure> {
        let known = ["function", "arg", "source", "text", "label"];
        let props = self.props(&item.entries, "a procedure", &known, &["arg"], false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let mut args = Vec::new();
        for p in props.all("arg") {
            if let Some(arg) = self.proc_arg(p) {
                args.push(arg);
            }
        }
        let Some(function_prop) = props.get("function") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("procedure `{}` names no script function", item.id.text),
                    "no `function`",
                )
                .with_help(
                    "add `function my_function` naming a `fn my_function(args)` in one of the package's scripts",
                ),
            );
            return None;
        };
        let (function, span) = self.name(function_prop)?;
        // A later script (a variant's) wins over an earlier one (its base's).
        let found = scripts.iter().enumerate().rev().find_map(|(i, s)| {
            s.functions
                .iter()
                .find(|(name, _)| *name == function)
                .map(|(_, arity)| (i, *arity))
        });
        match found {
            Some((script, 1)) => Some(Procedure {
                id: item.id.text.clone(),
                label,
                function,
                script,
                args,
                source,
                text,
                span: item.span,
            }),
            Some((script, arity)) => {
                let file = sources.get(scripts[script].file).name.clone();
                self.err(
                    Diagnostic::error(
                        span,
                        format!("`{function}` in {file} takes {arity} parameters; a procedure takes one"),
                        "wrong arity",
                    )
                    .with_help(format!(
                        "declare it as `fn {function}(args)`; `args` is a map of the procedure's args"
                    )),
                );
                None
            }
            None if self.scripts_failed => None,
            None => {
                let names: Vec<&str> = scripts
                    .iter()
                    .flat_map(|s| s.functions.iter().map(|(n, _)| n.as_str()))
                    .collect();
                let help = did_you_mean(&function, names.iter().copied()).unwrap_or_else(|| {
                    if scripts.is_empty() {
                        "this package has no scripts: add `script \"scripts/….rhai\"` to package.rules".into()
                    } else {
                        format!("define `fn {function}(args) {{ … }}` in one of the package's scripts")
                    }
                });
                self.err(
                    Diagnostic::error(span, format!("no script function `{function}`"), "not found").with_help(help),
                );
                None
            }
        }
    }
}

/// Builds a dice expression from its syntax; custom dice are looked up in `dice`.
pub fn dice_from_ast(expr: &ast::Expr, dice: &IndexMap<String, Die>) -> Result<DiceExpr, Vec<Diagnostic>> {
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    for t in &expr.terms {
        let part = match &t.term {
            Term::Number(n) => Ok(Part::Modifier(*n)),
            Term::Die { count, sides } => numbered(*count, *sides, t.span),
            Term::Pool { count, die } => custom(dice, *count, die, t.span),
            Term::Name(die) => custom(dice, 1, die, t.span),
            Term::Tagged { .. } => Err(Diagnostic::error(t.span, "a tagged value is not a die", "not a die")),
        };
        match part {
            Ok(p) => parts.push((t.negative, p)),
            Err(d) => errors.push(d),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // Limits: so many dice, faces and such numbers that no total comes near the ends of an
    // i64 and every roll is quick.
    let mut count: u64 = 0;
    for (t, (_, part)) in expr.terms.iter().zip(&parts) {
        let too_big = |what: String| {
            Diagnostic::error(t.span, what, "too large").with_help(format!(
                "a number in dice is at most {} either way (`MAX_DICE_VALUE`, see \"Limits\" in grammar/README.md)",
                thousands(MAX_DICE_VALUE)
            ))
        };
        match part {
            Part::Modifier(n) if n.unsigned_abs() > MAX_DICE_VALUE => {
                errors.push(too_big(format!("the modifier {n} is too large")))
            }
            Part::Dice {
                kind: DieKind::Numbered(sides),
                ..
            } if u64::from(*sides) > MAX_DIE_FACES => errors.push(
                Diagnostic::error(t.span, format!("a die with {sides} sides"), "too many sides").with_help(format!(
                    "a die has at most {} faces (`MAX_DIE_FACES`, see \"Limits\" in grammar/README.md)",
                    thousands(MAX_DIE_FACES)
                )),
            ),
            Part::Dice { count: n, .. } => {
                count = count.saturating_add(u64::from(*n));
                if count > MAX_DICE && count - u64::from(*n) <= MAX_DICE {
                    errors.push(
                        Diagnostic::error(t.span, format!("{count} dice in one expression"), "too many dice").with_help(
                            format!(
                                "one dice expression rolls at most {MAX_DICE} dice (`MAX_DICE`, see \"Limits\" in grammar/README.md): roll several times instead"
                            ),
                        ),
                    );
                }
            }
            Part::Modifier(_) => {}
        }
    }
    if errors.is_empty() {
        Ok(DiceExpr::new(parts))
    } else {
        Err(errors)
    }
}

fn numbered(count: u32, sides: u32, span: Span) -> Result<Part, Diagnostic> {
    if count == 0 || sides == 0 {
        return Err(
            Diagnostic::error(span, "a die needs at least one die and one side", "nothing to roll")
                .with_help("write `d6`, `2d6`, …"),
        );
    }
    let kind = match sides {
        3 => DieKind::Halved,
        66 => DieKind::Tens,
        s => DieKind::Numbered(s),
    };
    Ok(Part::Dice { count, kind })
}

fn custom(dice: &IndexMap<String, Die>, count: u32, id: &str, span: Span) -> Result<Part, Diagnostic> {
    match dice.get(id) {
        Some(die) => Ok(Part::Dice {
            count,
            kind: DieKind::Custom {
                id: id.to_string(),
                faces: die.faces.clone(),
            },
        }),
        None => {
            let help = did_you_mean(id, dice.keys().map(String::as_str))
                .unwrap_or_else(|| format!("declare it with `die {id} {{ faces [ … ] }}`"));
            Err(Diagnostic::error(span, format!("unknown die `{id}`"), "not a declared die").with_help(help))
        }
    }
}

impl Lower<'_> {
    fn board(&mut self, item: &MergedItem, sources: &SourceMap) -> Option<Board> {
        let known = ["map", "legend", "size", "source", "text", "label"];
        let props = self.props(&item.entries, "a board", &known, &[], false);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let mut legend = BTreeMap::new();
        if let Some(p) = props.get("legend") {
            match self.one(p, "{ X name; … }").map(|v| &v.kind) {
                Some(ValueKind::Block(block)) => {
                    for entry in &block.entries {
                        let Entry::Property(mark) = entry else { continue };
                        let letter = mark
                            .key
                            .text
                            .chars()
                            .next()
                            .filter(|_| mark.key.text.chars().count() == 1);
                        let name = mark
                            .values
                            .first()
                            .and_then(|v| v.as_name())
                            .filter(|_| mark.values.len() == 1);
                        match (letter, name) {
                            (Some(c), Some(n)) if !matches!(c, 'D' | 'd') => {
                                legend.insert(c, n.to_string());
                            }
                            _ => self.err(
                                Diagnostic::error(
                                    mark.span,
                                    "a legend entry is one letter and a name",
                                    "not understood",
                                )
                                .with_help("for example `R reinforcement`; `D` and `d` are taken by doors"),
                            ),
                        }
                    }
                }
                Some(_) => self.err(Diagnostic::error(
                    p.span,
                    "`legend` takes a block `{ R reinforcement; … }`",
                    "not a block",
                )),
                None => {}
            }
        }
        let Some(map_prop) = props.get("map") else {
            self.err(
                Diagnostic::error(item.id.span, format!("board `{}` has no `map`", item.id.text), "no map")
                    .with_help("add `map \"…\"` with the board drawn in ASCII (see grammar/README.md)"),
            );
            return None;
        };
        let value = self.one(map_prop, "\"map\"")?;
        if value.as_text().is_none() {
            self.err(Diagnostic::error(
                value.span,
                "`map` takes the drawing as a text in quotes",
                value.describe(),
            ));
            return None;
        }
        let raw = sources.text_of(value.span);
        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
        if inner.contains('\\') {
            self.err(Diagnostic::error(
                value.span,
                "a map may not contain `\\`",
                "escape in a map",
            ));
            return None;
        }
        let text = MapText {
            text: inner,
            file: value.span.file,
            start: value.span.start + 1,
        };
        let grid = match map::read(&text, &legend) {
            Ok(grid) => grid,
            Err(errors) => {
                self.report.diagnostics.extend(errors);
                return None;
            }
        };
        if let Some(p) = props.get("size") {
            let numbers: Vec<i64> = p.values.iter().filter_map(|v| v.as_number()).collect();
            match numbers.as_slice() {
                [w, h] if p.values.len() == 2 => {
                    if (*w, *h) != (grid.width as i64, grid.height as i64) {
                        self.err(
                            Diagnostic::error(
                                value.span,
                                format!(
                                    "the map is {} × {} squares, but `size` says {w} × {h}",
                                    grid.width, grid.height
                                ),
                                "wrong size",
                            )
                            .with_note(p.span, "size declared here")
                            .with_help("redraw the map or correct `size`"),
                        );
                    }
                }
                _ => self.err(
                    Diagnostic::error(p.span, "`size` takes a width and a height", "not understood")
                        .with_help("write `size 12 12`"),
                ),
            }
        }
        Some(Board {
            id: item.id.text.clone(),
            label,
            grid,
            source,
            text: self.text(props.get("text")),
            span: item.span,
        })
    }

    /// A mission places boards (a `Mission`) and, when the package declares `schema mission`,
    /// is also a record of that schema — so data-only missions (no map) work too.
    fn mission_item(&mut self, item: &MergedItem, ruleset: &mut Ruleset) {
        let is_placement =
            |e: &Entry| matches!(e, Entry::Property(p) if ["board", "piece", "fields"].contains(&p.key.text.as_str()));
        let places_boards = item
            .entries
            .iter()
            .any(|e| matches!(e, Entry::Property(p) if p.key.text == "board"));
        let Some(schema) = ruleset.schemas.get("mission") else {
            if let Some(m) = self.mission(item, &ruleset.boards, None) {
                ruleset.missions.insert(m.id.clone(), m);
            }
            return;
        };
        let data = MergedItem {
            entries: item.entries.iter().filter(|e| !is_placement(e)).cloned().collect(),
            ..item.clone()
        };
        let Some(record) = self.record(&data, schema) else {
            return;
        };
        if places_boards {
            let map_only = ["board", "piece", "fields", "source", "text", "label"];
            let keep = |e: &&Entry| matches!(e, Entry::Property(p) if map_only.contains(&p.key.text.as_str()));
            let layout = MergedItem {
                entries: item.entries.iter().filter(keep).cloned().collect(),
                ..item.clone()
            };
            if let Some(mut m) = self.mission(&layout, &ruleset.boards, None) {
                // Free-form `fields { }` and the schema's typed fields together.
                m.fields.extend(record.fields.clone());
                ruleset.missions.insert(m.id.clone(), m);
            }
        }
        ruleset
            .records
            .entry("mission".into())
            .or_default()
            .insert(record.id.clone(), record);
    }

    fn mission(
        &mut self,
        item: &MergedItem,
        boards: &IndexMap<String, Board>,
        data: Option<IndexMap<String, Value>>,
    ) -> Option<Mission> {
        let known = ["board", "piece", "fields", "source", "text", "label"];
        let props = self.props(&item.entries, "a mission", &known, &["board", "piece"], false);
        // `<name> at <x> <y> [size <w> <h>]`, all numbers from 1.
        let placement = |p: &ast::Property| -> Option<(String, Span, i32, i32, i32, i32)> {
            let v = &p.values;
            let name = v.first()?.as_name()?.to_string();
            if v.get(1)?.as_name()? != "at" {
                return None;
            }
            let (x, y) = (v.get(2)?.as_number()?, v.get(3)?.as_number()?);
            let (w, h) = match v.len() {
                4 => (1, 1),
                7 if v[4].as_name() == Some("size") => (v[5].as_number()?, v[6].as_number()?),
                _ => return None,
            };
            let ok = |n: i64| (1..=1000).contains(&n);
            (ok(x) && ok(y) && ok(w) && ok(h))
                .then(|| (name, v[0].span, x as i32 - 1, y as i32 - 1, w as i32, h as i32))
        };
        let mut placed: Vec<(&Board, Square, Span)> = Vec::new();
        for p in props.all("board") {
            let Some((name, span, x, y, ..)) = placement(p) else {
                self.err(
                    Diagnostic::error(p.span, "`board` takes a board and where it goes", "not understood")
                        .with_help("write `board section-a at 1 1` (its top-left square, counted from 1)"),
                );
                continue;
            };
            match boards.get(&name) {
                Some(board) => placed.push((board, Square::new(x, y), span)),
                None if self.broken_boards.contains(&name) => return None,
                None => self.err(
                    Diagnostic::error(span, format!("no board `{name}`"), "not a board").with_help(
                        did_you_mean(&name, boards.keys().map(String::as_str))
                            .unwrap_or_else(|| "declare it with `board <id> { map \"…\" }`".into()),
                    ),
                ),
            }
        }
        if placed.is_empty() {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("mission `{}` places no board", item.id.text),
                    "no boards",
                )
                .with_help("add `board <id> at 1 1`"),
            );
            return None;
        }
        let width = placed.iter().map(|(b, at, _)| at.x + b.grid.width).max().unwrap_or(0);
        let height = placed.iter().map(|(b, at, _)| at.y + b.grid.height).max().unwrap_or(0);
        let side = MAX_GRID_SIDE as i32;
        if width > side || height > side {
            let (board, at, span) = placed
                .iter()
                .find(|(b, at, _)| at.x + b.grid.width > side || at.y + b.grid.height > side)
                .expect("one board reaches that far");
            self.err(
                Diagnostic::error(
                    *span,
                    format!(
                        "board `{}` placed here reaches square {}, {}: the mission would be {width} × {height} squares",
                        board.id,
                        at.x + board.grid.width,
                        at.y + board.grid.height
                    ),
                    "too far",
                )
                .with_help(format!(
                    "a mission is at most {MAX_GRID_SIDE} squares wide and high (`MAX_GRID_SIDE`, see \"Limits\" in grammar/README.md): place its boards closer to 1 1"
                )),
            );
            return None;
        }
        let mut owner: Vec<Option<usize>> = vec![None; (width * height) as usize];
        let index = |s: Square| (s.y * width + s.x) as usize;
        for (k, (board, at, span)) in placed.iter().enumerate() {
            let mut clash = None;
            for y in 0..board.grid.height {
                for x in 0..board.grid.width {
                    let i = index(at.offset(x, y));
                    if let Some(other) = owner[i] {
                        clash.get_or_insert(other);
                    }
                    owner[i] = Some(k);
                }
            }
            if let Some(other) = clash {
                self.err(
                    Diagnostic::error(
                        *span,
                        format!("board `{}` overlaps board `{}`", board.id, placed[other].0.id),
                        "overlaps",
                    )
                    .with_note(placed[other].2, "placed here")
                    .with_help("boards are placed by their top-left square; move one of them"),
                );
            }
        }
        let layout: Vec<(&Grid, Square, &str)> =
            placed.iter().map(|(b, at, _)| (&b.grid, *at, b.id.as_str())).collect();
        let grid = Grid::assemble(width, height, &layout);
        let mut pieces = Vec::new();
        for p in props.all("piece") {
            let Some((id, span, x, y, w, h)) = placement(p) else {
                self.err(
                    Diagnostic::error(
                        p.span,
                        "`piece` takes a name, where it stands and maybe its size",
                        "not understood",
                    )
                    .with_help("write `piece walker at 5 5 size 2 2`"),
                );
                continue;
            };
            let piece = Piece {
                id,
                at: Square::new(x, y),
                width: w,
                height: h,
            };
            if let Some(bad) = piece.squares().into_iter().find(|&s| grid.is_solid(s)) {
                self.err(Diagnostic::error(
                    span,
                    format!("piece `{}` would stand on {bad}, which is not a floor square", piece.id),
                    "cannot stand there",
                ));
                continue;
            }
            pieces.push(piece);
        }
        let fields = match props
            .get("fields")
            .and_then(|p| self.one(p, "{ … }"))
            .map(|v| self.untyped(v))
        {
            Some(Some(Value::Map(m))) => m,
            _ => data.unwrap_or_default(),
        };
        Some(Mission {
            id: item.id.text.clone(),
            label: self.label(item, &props),
            grid,
            pieces,
            fields,
            text: self.text(props.get("text")),
            source: self.text(props.get("source")),
            span: item.span,
        })
    }
}

impl Lower<'_> {
    fn battlefield(&mut self, item: &MergedItem) -> Option<Battlefield> {
        let known = ["size", "zone", "marker", "terrain", "source", "text", "label"];
        let props = self.props(
            &item.entries,
            "a battlefield",
            &known,
            &["zone", "marker", "terrain"],
            false,
        );
        let size: Option<(i64, i64)> = props.get("size").and_then(|p| match p.values.as_slice() {
            [w, h] => match (w.as_number(), h.as_number()) {
                (Some(w), Some(h)) if w > 0 && h > 0 => Some((w, h)),
                _ => None,
            },
            _ => None,
        });
        let Some((width, height)) = size else {
            let span = props.get("size").map_or(item.id.span, |p| p.span);
            self.err(
                Diagnostic::error(span, "a battlefield needs its `size` in inches", "no size")
                    .with_help("write `size 72 48`"),
            );
            return None;
        };
        if width > MAX_BATTLEFIELD_INCHES as i64 || height > MAX_BATTLEFIELD_INCHES as i64 {
            let span = props.get("size").map_or(item.id.span, |p| p.span);
            self.err(
                Diagnostic::error(span, format!("a battlefield of {width} × {height} inches"), "too large").with_help(
                    format!(
                        "a battlefield is at most {MAX_BATTLEFIELD_INCHES} inches wide and high (`MAX_BATTLEFIELD_INCHES`, see \"Limits\" in grammar/README.md)"
                    ),
                ),
            );
            return None;
        }
        let (width, height) = (width as f64, height as f64);
        let mut corners_left = MAX_BATTLEFIELD_CORNERS;
        let mut names = BTreeSet::new();
        let mut polygon = |this: &mut Self, p: &ast::Property| -> Option<Polygon> {
            let name = p.values.first().and_then(|v| v.as_name());
            let numbers: Option<Vec<i64>> = match p.values.get(1).map(|v| &v.kind) {
                Some(ValueKind::List(items)) if p.values.len() == 2 => items.iter().map(|v| v.as_number()).collect(),
                _ => None,
            };
            let reach = MAX_BATTLEFIELD_INCHES as i64;
            match (name, numbers) {
                (Some(_), Some(n)) if n.iter().any(|c| c.abs() > reach) || n.len() / 2 > corners_left => {
                    let many = n.len() / 2 > corners_left;
                    corners_left = 0;
                    this.err(
                        Diagnostic::error(
                            p.span,
                            if many {
                                format!("this battlefield's zones and terrain have more than {MAX_BATTLEFIELD_CORNERS} corners in all")
                            } else {
                                format!("a corner lies more than {reach} inches from the table's top-left corner")
                            },
                            "too large",
                        )
                        .with_help(format!(
                            "a battlefield's zones and terrain have at most {MAX_BATTLEFIELD_CORNERS} corners in all (`MAX_BATTLEFIELD_CORNERS`), each within {reach} inches (`MAX_BATTLEFIELD_INCHES`) of the top-left corner (see \"Limits\" in grammar/README.md): draw terrain with fewer corners"
                        )),
                    );
                    None
                }
                (Some(name), Some(n)) if n.len() >= 6 && n.len() % 2 == 0 => {
                    corners_left -= n.len() / 2;
                    if !names.insert(name.to_string()) {
                        this.err(Diagnostic::error(
                            p.values[0].span,
                            format!("`{name}` is named twice on this battlefield"),
                            "again here",
                        ));
                    }
                    let corners = n.chunks(2).map(|c| Point::new(c[0] as f64, c[1] as f64)).collect();
                    Some(Polygon {
                        name: name.to_string(),
                        corners,
                    })
                }
                _ => {
                    this.err(
                        Diagnostic::error(
                            p.span,
                            format!(
                                "`{}` takes a name and a list of x, y corners (at least three)",
                                p.key.text
                            ),
                            "not a polygon",
                        )
                        .with_help(format!("write `{} ruin-a [20, 20, 28, 20, 28, 26]`", p.key.text)),
                    );
                    None
                }
            }
        };
        let zones: Vec<Polygon> = props.all("zone").filter_map(|p| polygon(self, p)).collect();
        let terrain: Vec<Polygon> = props.all("terrain").filter_map(|p| polygon(self, p)).collect();
        let mut markers = Vec::new();
        for p in props.all("marker") {
            let v = &p.values;
            let parsed = match v.as_slice() {
                [name, at, x, y] if at.as_name() == Some("at") => name.as_name().zip(x.as_number().zip(y.as_number())),
                _ => None,
            };
            let Some((name, (x, y))) = parsed else {
                self.err(
                    Diagnostic::error(p.span, "`marker` takes a name and where it stands", "not understood")
                        .with_help("write `marker objective-1 at 12 24`"),
                );
                continue;
            };
            let point = Point::new(x as f64, y as f64);
            if !(0.0..=width).contains(&point.x) || !(0.0..=height).contains(&point.y) {
                self.err(Diagnostic::error(
                    p.span,
                    format!("marker `{name}` at {x}, {y} is off the {width} × {height} table"),
                    "off the table",
                ));
                continue;
            }
            if let Some(t) = terrain.iter().find(|t| t.contains(point)) {
                self.err(Diagnostic::error(
                    p.span,
                    format!("marker `{name}` stands inside impassable terrain `{}`", t.name),
                    "in terrain",
                ));
                continue;
            }
            if !names.insert(name.to_string()) {
                self.err(Diagnostic::error(
                    v[0].span,
                    format!("`{name}` is named twice on this battlefield"),
                    "again here",
                ));
            }
            markers.push((name.to_string(), point));
        }
        Some(Battlefield {
            id: item.id.text.clone(),
            label: self.label(item, &props),
            width,
            height,
            zones,
            terrain,
            markers,
            source: self.text(props.get("source")),
            text: self.text(props.get("text")),
            span: item.span,
        })
    }
}

fn parse_type(words: &[&str]) -> Option<FieldType> {
    match words {
        ["number"] => Some(FieldType::Number),
        ["text"] => Some(FieldType::Text),
        ["name"] => Some(FieldType::Name),
        ["dice"] => Some(FieldType::Dice),
        ["flag"] => Some(FieldType::Flag),
        ["list", rest @ ..] if !rest.is_empty() => parse_type(rest).map(|t| FieldType::List(Box::new(t))),
        [kind] if *kind != "list" && *kind != "optional" => Some(FieldType::Ref(kind.to_string())),
        _ => None,
    }
}

/// "7, 9-10": gaps grouped into runs of consecutive possible totals.
fn runs_of(gaps: &[i64], totals: &[i64]) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    let position = |t: i64| totals.binary_search(&t).unwrap_or(0);
    for &g in gaps {
        match runs.last_mut() {
            Some((_, hi)) if position(*hi) + 1 == position(g) => *hi = g,
            _ => runs.push((g, g)),
        }
    }
    runs.iter()
        .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `then` must name a table, and follow-ups may not loop back.
fn check_follow_ups(ruleset: &Ruleset, report: &mut Report) {
    for table in ruleset.tables.values() {
        for row in &table.rows {
            for then in &row.then {
                if !ruleset.tables.contains_key(&then.table) {
                    report.push(
                        Diagnostic::error(then.span, format!("no table `{}`", then.table), "not a table")
                            .with_help_opt(did_you_mean(&then.table, ruleset.tables.keys().map(String::as_str))),
                    );
                }
            }
        }
    }
    // Without recursion (a chain of thousands of tables must not exhaust the stack): peel
    // off tables whose follow-ups are all settled, each time working out how deep its
    // follow-ups go and how many rolls one roll on it may cause. What is left goes round in a
    // circle.
    let tables = &ruleset.tables;
    let index = |id: &str| tables.get_index_of(id);
    let edges: Vec<Vec<usize>> = tables
        .values()
        .map(|t| {
            t.rows
                .iter()
                .flat_map(|r| &r.then)
                .filter_map(|then| index(&then.table))
                .collect()
        })
        .collect();
    let mut waiting: Vec<usize> = edges.iter().map(Vec::len).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); tables.len()];
    for (from, to) in edges.iter().enumerate() {
        for &t in to {
            callers[t].push(from);
        }
    }
    let mut ready: Vec<usize> = (0..tables.len()).filter(|&i| waiting[i] == 0).collect();
    // For each settled table: follow-up depth, table rolls per roll (saturating), and the
    // `then` that makes either largest.
    type Settled = (usize, Option<Span>, u64, Option<Span>);
    let mut settled: Vec<Option<Settled>> = vec![None; tables.len()];
    while let Some(i) = ready.pop() {
        let table = &tables[i];
        let (mut depth, mut deepest, mut rolls, mut most) = (1usize, None, 1u64, None);
        for row in &table.rows {
            let mut row_rolls: u64 = 1;
            for then in &row.then {
                let Some((d, _, r, _)) = index(&then.table).and_then(|j| settled[j]) else {
                    continue;
                };
                let times = then
                    .times
                    .as_ref()
                    .map_or(1, |t| t.bounds().map_or(u64::MAX, |(_, hi)| hi.max(0) as u64));
                row_rolls = row_rolls.saturating_add(times.saturating_mul(r));
                if d + 1 > depth {
                    depth = d + 1;
                    deepest = Some(then.span);
                }
                if row_rolls > rolls {
                    rolls = row_rolls;
                    most = Some(then.span);
                }
            }
        }
        settled[i] = Some((depth, deepest, rolls, most));
        for &c in &callers[i] {
            // One decrement per edge: a table listed twice waits twice.
            waiting[c] -= edges[c].iter().filter(|&&t| t == i).count().min(waiting[c]);
            if waiting[c] == 0 && settled[c].is_none() && !ready.contains(&c) {
                ready.push(c);
            }
        }
    }
    if let Some(start) = (0..tables.len()).find(|&i| settled[i].is_none()) {
        // Walk unsettled follow-ups until a table comes round again.
        let mut path = vec![start];
        loop {
            let here = *path.last().expect("the path starts with a table");
            let (next, span) = tables[here]
                .rows
                .iter()
                .flat_map(|r| &r.then)
                .find_map(|then| {
                    index(&then.table)
                        .filter(|&j| settled[j].is_none())
                        .map(|j| (j, then.span))
                })
                .expect("an unsettled table waits on another unsettled table");
            if let Some(at) = path.iter().position(|&p| p == next) {
                let mut cycle: Vec<&str> = path[at..].iter().map(|&i| tables[i].id.as_str()).collect();
                cycle.push(&tables[next].id);
                report.push(
                    Diagnostic::error(
                        span,
                        format!("follow-up rolls go round in a circle: {}", cycle.join(" → ")),
                        "loops back",
                    )
                    .with_help("a table may not lead back to itself through `then`"),
                );
                return;
            }
            path.push(next);
        }
    }
    for (i, table) in tables.values().enumerate() {
        let Some((depth, deepest, rolls, most)) = settled[i] else {
            continue;
        };
        if let Some(span) = deepest
            && depth > MAX_FOLLOW_UP_DEPTH
        {
            report.push(
                Diagnostic::error(
                    span,
                    format!("a roll on `{}` leads to follow-ups {depth} tables deep", table.id),
                    "too deep",
                )
                .with_help(format!(
                    "follow-ups go at most {MAX_FOLLOW_UP_DEPTH} tables deep (`MAX_FOLLOW_UP_DEPTH`, see \"Limits\" in grammar/README.md)"
                )),
            );
            return;
        }
        if let Some(span) = most
            && rolls > MAX_TABLE_ROLLS
        {
            let shown = if rolls == u64::MAX {
                "too many".to_string()
            } else {
                thousands(rolls)
            };
            report.push(
                Diagnostic::error(
                    span,
                    format!("one roll on `{}` may cause {shown} table rolls with its follow-ups", table.id),
                    "too many rolls",
                )
                .with_help(format!(
                    "one roll with all its follow-ups rolls at most {} tables (`MAX_TABLE_ROLLS`, see \"Limits\" in grammar/README.md): roll fewer `times`",
                    thousands(MAX_TABLE_ROLLS)
                )),
            );
            return;
        }
    }
}

/// Record fields typed as another item kind must name an existing item of that kind.
fn check_references(ruleset: &Ruleset, report: &mut Report) {
    for records in ruleset.records.values() {
        for record in records.values() {
            let Some(schema) = ruleset.schemas.get(&record.kind) else {
                continue;
            };
            for (name, value) in &record.fields {
                let Some(def) = schema.fields.get(name) else { continue };
                check_ref(ruleset, record, value, &def.ty, report);
            }
        }
    }
}

fn check_ref(ruleset: &Ruleset, record: &Record, value: &Value, ty: &FieldType, report: &mut Report) {
    match (ty, value) {
        (FieldType::List(inner), Value::List(items)) => {
            for item in items {
                check_ref(ruleset, record, item, inner, report);
            }
        }
        (FieldType::Ref(kind), Value::Name(name)) => {
            let ids: Vec<&str> = match kind.as_str() {
                "table" => ruleset.tables.keys().map(String::as_str).collect(),
                "die" => ruleset.dice.keys().map(String::as_str).collect(),
                "pool" | "deck" => ruleset.pools.keys().map(String::as_str).collect(),
                "procedure" => ruleset.procedures.keys().map(String::as_str).collect(),
                k => match ruleset.records.get(k) {
                    Some(r) => r.keys().map(String::as_str).collect(),
                    None if ruleset.schemas.contains_key(k) => Vec::new(),
                    None => {
                        let span = ruleset
                            .schemas
                            .get(&record.kind)
                            .and_then(|s| {
                                s.fields
                                    .values()
                                    .find(|f| f.ty == *ty || matches!(&f.ty, FieldType::List(t) if **t == *ty))
                            })
                            .map_or(record.span, |f| f.span);
                        report.push(
                            Diagnostic::error(span, format!("`{k}` is not a kind of item"), "unknown kind").with_help(
                                "use number, text, name, dice, flag, list <type>, or the kind of a declared schema",
                            ),
                        );
                        return;
                    }
                },
            };
            if !ids.contains(&name.as_str()) {
                report.push(
                    Diagnostic::error(
                        record.span,
                        format!(
                            "{} `{}` refers to {kind} `{name}`, which does not exist",
                            record.kind, record.id
                        ),
                        format!("unknown {kind}"),
                    )
                    .with_help(
                        did_you_mean(name, ids.iter().copied())
                            .unwrap_or_else(|| format!("declare `{kind} {name} {{ … }}` or fix the name")),
                    ),
                );
            }
        }
        _ => {}
    }
}
