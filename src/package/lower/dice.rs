//! Lowering dice: `die` items (faces, tags) and dice expressions built from their syntax.

use super::Lower;
use crate::diagnostic::{Diagnostic, did_you_mean, thousands};
use crate::dice::{DiceExpr, DieKind, Face, Part};
use crate::limits::*;
use crate::package::merge::MergedItem;
use crate::ruleset::*;
use crate::source::Span;
use crate::syntax::ast::{self, Term, ValueKind};
use indexmap::IndexMap;
use std::sync::Arc;

impl Lower<'_> {
    pub(super) fn die(&mut self, item: &MergedItem) -> Option<Die> {
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

pub(super) fn numbered(count: u32, sides: u32, span: Span) -> Result<Part, Diagnostic> {
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

pub(super) fn custom(dice: &IndexMap<String, Die>, count: u32, id: &str, span: Span) -> Result<Part, Diagnostic> {
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
