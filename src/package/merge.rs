//! Layering: each package's items are applied over the merged items of its bases.
//! `override` replaces entries by name and paints rows over rows; `remove` deletes.
//! Variants merge here, at the syntax level, and are resolved once after, so an `override`
//! row is checked exactly as a base row and an error points at whichever file wrote it. A
//! table keeps the rolls each `remove` took out, so a gap one leaves is reported at that
//! `remove`; every override is kept (`Ruleset::overrides`) for `check`'s warnings on what
//! changes nothing.

use crate::diagnostic::{Diagnostic, Report, did_you_mean};
use crate::source::Span;
use crate::syntax::ast::{self, Entry, RemoveTarget, RowKey};
use indexmap::IndexMap;

/// Properties an item may hold several of, each keyed by what it is, with the values that
/// name it: `(item kind, property, the places of its naming values)`. An override replaces the
/// entry of the same key and adds the others; `remove NAME` drops the one a single-value key
/// names. Any other property is keyed by its name alone.
const KEYED: [(Option<&str>, &str, &[usize]); 7] = [
    (None, "arg", &[0]),
    (Some("game"), "on", &[0, 1]),
    (Some("game"), "command", &[0]),
    (Some("game"), "option", &[0]),
    (Some("game"), "watch", &[0]),
    (Some("game"), "reserve", &[0]),
    (Some("game"), "phase", &[1]),
];

/// What an entry of an item of `kind` is: its property name and, for a keyed property, the
/// values that name it (`on moved react` → `on`, [moved, react]; `phase aliens alien-turn f`
/// → `phase`, [alien-turn]). A keyed property missing a naming value is keyed by all its
/// values, spans and all (so it matches no other entry and is added): lowering reports it.
fn entry_key(kind: &str, p: &ast::Property) -> (String, Option<Vec<String>>) {
    let places = KEYED
        .iter()
        .find(|(k, name, _)| k.is_none_or(|k| k == kind) && *name == p.key.text)
        .map(|(_, _, places)| *places);
    let naming = places.map(|places| {
        places
            .iter()
            .map(|&i| p.values.get(i).and_then(ast::Value::as_name).map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .unwrap_or_else(|| p.values.iter().map(|v| format!("{v:?}")).collect())
    });
    (p.key.text.clone(), naming)
}

/// An item after merging: its latest label and entries, and where it was defined.
#[derive(Debug, Clone)]
pub struct MergedItem {
    pub kind: ast::Name,
    pub id: ast::Name,
    pub label: Option<ast::Text>,
    pub entries: Vec<Entry>,
    pub span: Span,
    pub package: String,
    /// Rolls a later package's `remove <key>` took out of a table's rows, with the span of
    /// that `remove`: a gap it leaves is that line's doing, not the base's.
    pub removed: Vec<(i64, i64, Span)>,
}

#[derive(Debug, Clone)]
pub struct MergedConst {
    pub id: ast::Name,
    pub value: ast::Value,
    pub span: Span,
    pub package: String,
}

#[derive(Debug, Default)]
pub struct Merged {
    /// (kind, id) → item, in definition order.
    pub items: IndexMap<(String, String), MergedItem>,
    pub consts: IndexMap<String, MergedConst>,
    /// What the `override`s changed, for `check`'s warnings.
    pub overrides: Vec<crate::ruleset::Overridden>,
}

impl Merged {
    /// Applies one package's items over what its bases defined.
    pub fn apply(&mut self, package: &str, items: Vec<ast::Item>, report: &mut Report) {
        for item in items {
            match item {
                ast::Item::Define(def) => self.define(package, def, report),
                ast::Item::Remove { kind, id, .. } => {
                    let key = (kind.text.clone(), id.text.clone());
                    if self.items.shift_remove(&key).is_none() {
                        report.push(self.missing(&kind, &id, id.span, "remove"));
                    }
                }
                ast::Item::Const {
                    is_override,
                    id,
                    value,
                    span,
                } => {
                    let existing = self.consts.get(&id.text);
                    match (is_override, existing) {
                        (false, Some(old)) => report.push(redefined("const", &id, &old.package, old.span)),
                        (true, None) => report.push(
                            Diagnostic::error(
                                id.span,
                                format!("no const `{}` to override", id.text),
                                "not defined by a base",
                            )
                            .with_help(
                                did_you_mean(&id.text, self.consts.keys().map(String::as_str))
                                    .unwrap_or_else(|| "to add a new const, leave out `override`".into()),
                            ),
                        ),
                        _ => {
                            if is_override {
                                self.overrides.push(crate::ruleset::Overridden {
                                    kind: "const".into(),
                                    id: id.text.clone(),
                                    entry: None,
                                    span: id.span,
                                    package: package.to_string(),
                                });
                            }
                            let package = package.to_string();
                            self.consts.insert(
                                id.text.clone(),
                                MergedConst {
                                    id,
                                    value,
                                    span,
                                    package,
                                },
                            );
                        }
                    }
                }
            }
        }
    }

    fn define(&mut self, package: &str, def: ast::ItemDef, report: &mut Report) {
        let key = (def.kind.text.clone(), def.id.text.clone());
        if !def.is_override {
            if let Some(old) = self.items.get(&key) {
                report.push(redefined(&def.kind.text, &def.id, &old.package, old.span));
                return;
            }
            let item = MergedItem {
                kind: def.kind,
                id: def.id,
                label: def.label,
                entries: def.body.entries,
                span: def.span,
                package: package.to_string(),
                removed: Vec::new(),
            };
            self.items.insert(key, item);
            return;
        }
        let Some(base) = self.items.get_mut(&key) else {
            report.push(self.missing(&def.kind, &def.id, def.id.span, "override"));
            return;
        };
        if def.label.is_some() {
            base.label = def.label;
        }
        for entry in def.body.entries {
            match entry {
                Entry::Property(prop) => {
                    self.overrides.push(crate::ruleset::Overridden {
                        kind: def.kind.text.clone(),
                        id: def.id.text.clone(),
                        entry: Some(prop.key.text.clone()),
                        span: prop.key.span,
                        package: package.to_string(),
                    });
                    override_property(&def.kind.text, &mut base.entries, prop)
                }
                Entry::Row(row) => {
                    self.overrides.push(crate::ruleset::Overridden {
                        kind: def.kind.text.clone(),
                        id: def.id.text.clone(),
                        entry: Some("rows".into()),
                        span: row.span,
                        package: package.to_string(),
                    });
                    // Painted over: no longer a removal's gap.
                    base.removed
                        .retain(|(lo, hi, _)| !(row.key.lo <= *lo && *hi <= row.key.hi));
                    cut_rows(&mut base.entries, row.key);
                    base.entries.push(Entry::Row(row));
                }
                Entry::Remove(RemoveTarget::Rows(key), span) => {
                    base.removed.push((key.lo, key.hi, span));
                    if !cut_rows(&mut base.entries, key) {
                        report.push(Diagnostic::error(
                            span,
                            "no row covers these rolls",
                            "nothing to remove",
                        ));
                    }
                }
                Entry::Remove(RemoveTarget::Entry(name), span) => {
                    let before = base.entries.len();
                    let kind = def.kind.text.as_str();
                    base.entries.retain(|e| match e {
                        Entry::Property(p) => {
                            p.key.text != name.text
                                && entry_key(kind, p).1.is_none_or(|naming| naming != [name.text.as_str()])
                        }
                        _ => true,
                    });
                    if base.entries.len() == before {
                        let keys: Vec<&str> = base
                            .entries
                            .iter()
                            .filter_map(|e| match e {
                                Entry::Property(p) => Some(p.key.text.as_str()),
                                _ => None,
                            })
                            .collect();
                        report.push(
                            Diagnostic::error(
                                span,
                                format!("`{}` has no entry `{}`", key.1, name.text),
                                "nothing to remove",
                            )
                            .with_help_opt(did_you_mean(&name.text, keys)),
                        );
                    }
                }
            }
        }
    }

    fn missing(&self, kind: &ast::Name, id: &ast::Name, span: Span, verb: &str) -> Diagnostic {
        let same_kind = self
            .items
            .keys()
            .filter(|(k, _)| *k == kind.text)
            .map(|(_, i)| i.as_str());
        let help = did_you_mean(&id.text, same_kind).or_else(|| {
            let other = self.items.keys().find(|(_, i)| *i == id.text).map(|(k, _)| k.clone());
            other.map(|k| format!("`{}` is a {k}, not a {}", id.text, kind.text))
        });
        let help = help.or_else(|| (verb == "override").then(|| "to add a new item, leave out `override`".to_string()));
        Diagnostic::error(
            span,
            format!(
                "no {} `{}` to {verb} in the packages this one extends",
                kind.text, id.text
            ),
            "not defined by a base",
        )
        .with_help_opt(help)
    }
}

fn redefined(kind: &str, id: &ast::Name, package: &str, old: Span) -> Diagnostic {
    Diagnostic::error(
        id.span,
        format!("{kind} `{}` is already defined by package `{package}`", id.text),
        "defined again",
    )
    .with_note(old, "first defined here")
    .with_help(if kind == "const" {
        format!("to change it, write `override const {} = …`", id.text)
    } else {
        format!(
            "to change it, write `override {kind} {} {{ … }}`; to replace it, `remove` it first",
            id.text
        )
    })
}

/// Replaces the base entry of the same key (`entry_key`), or adds the entry when none has it.
fn override_property(kind: &str, entries: &mut Vec<Entry>, prop: ast::Property) {
    let key = entry_key(kind, &prop);
    let matches = |e: &Entry| matches!(e, Entry::Property(p) if entry_key(kind, p) == key);
    match entries.iter().position(matches) {
        Some(at) => {
            entries.retain(|e| !matches(e));
            entries.insert(at.min(entries.len()), Entry::Property(prop));
        }
        None => entries.push(Entry::Property(prop)),
    }
}

/// Removes the rolls `key` covers from every row; a row cut in two keeps both parts.
/// Returns whether any row was touched.
fn cut_rows(entries: &mut Vec<Entry>, key: RowKey) -> bool {
    let mut touched = false;
    let mut out = Vec::with_capacity(entries.len() + 1);
    for entry in entries.drain(..) {
        match entry {
            Entry::Row(row) if row.key.lo <= key.hi && key.lo <= row.key.hi => {
                touched = true;
                if row.key.lo < key.lo {
                    let mut left = row.clone();
                    left.key.hi = key.lo - 1;
                    out.push(Entry::Row(left));
                }
                if row.key.hi > key.hi {
                    let mut right = row;
                    right.key.lo = key.hi + 1;
                    out.push(Entry::Row(right));
                }
            }
            other => out.push(other),
        }
    }
    *entries = out;
    touched
}
