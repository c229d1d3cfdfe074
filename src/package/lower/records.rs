//! Lowering typed data: `schema`, the records of each schema, pools and decks; references
//! between records checked once everything is lowered. A record's `roll` fields are lowered
//! last, so they may read the record's own dice fields.

use super::{Lower, Props, RECORD_META};
use crate::diagnostic::{Diagnostic, Report, did_you_mean};
use crate::package::entry_span;
use crate::package::merge::MergedItem;
use crate::ruleset::*;
use crate::syntax::ast::{self, Entry};
use indexmap::IndexMap;

impl Lower<'_> {
    pub(super) fn schema(&mut self, item: &MergedItem) -> Option<Schema> {
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
                        .with_help("types: number, text, name, dice, roll, flag, list <type>, or an item kind; add `optional` if it may be left out"),
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
                    .with_help(type_help(type_words)),
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

    pub(super) fn record(&mut self, item: &MergedItem, schema: &Schema) -> Option<Record> {
        let mut known: Vec<&str> = schema.fields.keys().map(String::as_str).collect();
        known.extend(RECORD_META);
        let what = format!("a {}", schema.kind);
        let props = self.props(&item.entries, &what, &known, &[], false);
        let mut fields = IndexMap::new();
        // Rolls last: they may read the record's own dice fields (`kill any 6 in dice`).
        let mut own_dice: IndexMap<String, crate::dice::DiceExpr> = IndexMap::new();
        let mut rolls = Vec::new();
        for (name, def) in &schema.fields {
            match props.get(name) {
                Some(p) if def.ty == FieldType::Roll && p.values.len() == 1 => rolls.push((name, &p.values[0])),
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
        for (name, value) in &fields {
            if let Value::Dice(d) = value {
                own_dice.insert(name.clone(), d.expr.clone());
            }
        }
        for (name, v) in rolls {
            if let Some(value) = self.roll_value(v, Some(&own_dice)) {
                fields.insert(name.clone(), value);
            }
        }
        // In the schema's order.
        fields.sort_by_cached_key(|k, _| schema.fields.get_index_of(k).unwrap_or(usize::MAX));
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

    pub(super) fn pool(&mut self, item: &MergedItem) -> Option<Pool> {
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
}

/// The help for a field type that does not parse: a bare `list` is told to say what it holds
/// (never "did you mean `list`?"), a near-miss of a type word gets its suggestion.
fn type_help(words: &[&str]) -> String {
    const TYPES: [&str; 7] = ["number", "text", "name", "dice", "roll", "flag", "list"];
    let all = || "types: number, text, name, dice, roll, flag, list <type>, or an item kind".to_string();
    match words {
        ["list", ..] => "a list says what it holds: `list number`, `list text`, `list name`, or \
                         `list KIND` for a list of items of a kind (`weapons list weapon`)"
            .into(),
        [first, ..] if TYPES.contains(first) => all(),
        _ => did_you_mean(words.first().copied().unwrap_or(""), TYPES).unwrap_or_else(all),
    }
}

pub(super) fn parse_type(words: &[&str]) -> Option<FieldType> {
    match words {
        ["number"] => Some(FieldType::Number),
        ["text"] => Some(FieldType::Text),
        ["name"] => Some(FieldType::Name),
        ["dice"] => Some(FieldType::Dice),
        ["roll"] => Some(FieldType::Roll),
        ["flag"] => Some(FieldType::Flag),
        ["list", rest @ ..] if !rest.is_empty() => parse_type(rest).map(|t| FieldType::List(Box::new(t))),
        [kind] if *kind != "list" && *kind != "optional" => Some(FieldType::Ref(kind.to_string())),
        _ => None,
    }
}

/// Record fields typed as another item kind must name an existing item of that kind.
pub(super) fn check_references(ruleset: &Ruleset, report: &mut Report) {
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

pub(super) fn check_ref(ruleset: &Ruleset, record: &Record, value: &Value, ty: &FieldType, report: &mut Report) {
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
