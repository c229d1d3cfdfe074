//! Lowering dice: `die` items (faces, tags) and dice expressions built from their syntax; and
//! rolls read die by die: pools, targets, charts read from constants, and a record's own dice
//! fields.

use super::Lower;
use crate::diagnostic::{Diagnostic, did_you_mean, thousands};
use crate::dice::read::{Force, Stage, Ties};
use crate::dice::{DiceExpr, DieKind, Face, Part, Pool, PoolRead, Read, Reading, Reroll, Roll, Shown, Target, Test};
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
                    "a die has at most {} faces (`MAX_DIE_FACES`, see \"Limits\" in docs/limits.md)",
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
                    "a number on a face is at most {} either way (`MAX_DICE_VALUE`, see \"Limits\" in docs/limits.md)",
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

/// A number with a decimal point where dice or a whole number belong.
fn whole_number(span: crate::source::Span) -> Diagnostic {
    Diagnostic::error(span, "a whole number is wanted here", "a decimal point").with_help(
        "numbers with a decimal point are inches on a battlefield (corners and markers); dice and modifiers are whole",
    )
}

/// Builds a dice expression from its syntax; custom dice are looked up in `dice`.
pub fn dice_from_ast(expr: &ast::Expr, dice: &IndexMap<String, Die>) -> Result<DiceExpr, Vec<Diagnostic>> {
    let mut parts = Vec::new();
    let mut errors = Vec::new();
    for t in &expr.terms {
        let part = match &t.term {
            Term::Number(n) => Ok(Part::Modifier(*n)),
            Term::Decimal(_) => Err(whole_number(t.span)),
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
                "a number in dice is at most {} either way (`MAX_DICE_VALUE`, see \"Limits\" in docs/limits.md)",
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
                    "a die has at most {} faces (`MAX_DIE_FACES`, see \"Limits\" in docs/limits.md)",
                    thousands(MAX_DIE_FACES)
                )),
            ),
            Part::Dice { count: n, .. } => {
                count = count.saturating_add(u64::from(*n));
                if count > MAX_DICE && count - u64::from(*n) <= MAX_DICE {
                    errors.push(
                        Diagnostic::error(t.span, format!("{count} dice in one expression"), "too many dice").with_help(
                            format!(
                                "one dice expression rolls at most {} dice (`MAX_DICE`, see \"Limits\" in docs/limits.md): roll several times instead", thousands(MAX_DICE)
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
    // No dice (`0d6`) roll nothing: a total of 0, a pool read as no dice (as `0 red`).
    if sides == 0 {
        return Err(
            Diagnostic::error(span, "a die needs at least one side", "nothing to roll")
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

/// Reads a chart's cell: its name, its keys, where the roll reads it.
pub type ChartLookup<'a> = dyn Fn(&ast::Name, &[i64], Span) -> Result<Test, Diagnostic> + 'a;

/// What a roll read die by die may refer to besides the package's dice: a record's own dice
/// fields (`kill any 6 in dice`) and the package's charts (`then to-wound(4, 5)`).
#[derive(Default)]
pub struct RollNames<'a> {
    pub fields: Option<&'a IndexMap<String, DiceExpr>>,
    pub chart: Option<&'a ChartLookup<'a>>,
}

/// Builds a roll read die by die from its syntax; the second value is the record's own dice
/// field it reads, if any.
pub fn roll_from_ast(
    expr: &ast::RollExpr,
    dice: &IndexMap<String, Die>,
    names: &RollNames,
) -> Result<(Roll, Option<String>), Vec<Diagnostic>> {
    let mut cx = RollLower {
        dice,
        names,
        errors: Vec::new(),
        reads: None,
    };
    let roll = cx.roll(expr);
    // A record's dice field is read as it lies: one roll, seen by every reading of it.
    if let (Some(field), Some(roll)) = (&cx.reads, &roll) {
        let plain = match roll {
            Roll::Read(Reading::Pool(p)) => {
                p.pool.reroll.is_none() && !matches!(p.read, Read::Explode(_)) && expr_pool_terms(expr) == 1
            }
            _ => false,
        };
        if !plain {
            cx.errors.push(
                Diagnostic::error(
                    expr_span(expr),
                    format!("field `{field}` is read here with more than itself"),
                    "not a reading of the field alone",
                )
                .with_help(format!(
                    "the readings of `{field}` see one roll of it, as it lies: read it alone (`any 6 in {field}`, `highest of {field}`), with no re-roll, other dice, `vs` or `then`; write the dice out (`any 6 in 2d6 reroll 1`) for a roll of its own"
                )),
            );
        }
    }
    match roll {
        Some(r) if cx.errors.is_empty() => Ok((r, cx.reads)),
        _ => Err(cx.errors),
    }
}

struct RollLower<'a> {
    dice: &'a IndexMap<String, Die>,
    names: &'a RollNames<'a>,
    errors: Vec<Diagnostic>,
    reads: Option<String>,
}

fn limit_help(limit: &str, what: String) -> String {
    format!("{what} (`{limit}`, see \"Limits\" in docs/limits.md)")
}

impl RollLower<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.errors.push(d);
    }

    fn roll(&mut self, expr: &ast::RollExpr) -> Option<Roll> {
        match expr {
            ast::RollExpr::Read(r) => Some(Roll::Read(Reading::Pool(self.read(r)?))),
            ast::RollExpr::Opposed {
                first,
                second,
                ties,
                force,
            } => {
                let a = self.side(first);
                let b = self.side(second);
                let ties = match ties {
                    None => Ties::Stand,
                    Some(name) => match Ties::parse(&name.text) {
                        Some(t) => t,
                        None => {
                            let help = did_you_mean(&name.text, Ties::NAMES).unwrap_or_else(|| {
                                "write `ties none`, `ties first`, `ties second` or `ties reroll`".into()
                            });
                            self.err(
                                Diagnostic::error(
                                    name.span,
                                    format!("`ties {}` is not a tie rule", name.text),
                                    "unknown tie rule",
                                )
                                .with_help(help),
                            );
                            return None;
                        }
                    },
                };
                let whole = expr_span(&ast::RollExpr::Opposed {
                    first: first.clone(),
                    second: second.clone(),
                    ties: None,
                    force: None,
                });
                let check_span = force.as_ref().map_or(whole, |f| f.span);
                let force = force.as_ref().map(|f| Force {
                    by_second: f.by_second,
                    highest: f.highest,
                    own: f.own,
                });
                let roll = Roll::Opposed {
                    first: a?,
                    second: b?,
                    ties,
                    force,
                };
                if let Err(why) = roll.check() {
                    let label = if force.is_some() {
                        "cannot force this re-roll"
                    } else {
                        "no answer"
                    };
                    self.err(Diagnostic::error(check_span, why, label));
                    return None;
                }
                Some(roll)
            }
            ast::RollExpr::Clamp {
                inner,
                least,
                most,
                span,
            } => {
                let reading = self.side(inner)?;
                if reading.is_flag() {
                    self.err(
                        Diagnostic::error(*span, "a yes or no has no bounds", "not a number")
                            .with_help("`at least` and `at most` bound a number: a total, a kept total, a count"),
                    );
                    return None;
                }
                if let (Some(lo), Some(hi)) = (least, most)
                    && lo > hi
                {
                    self.err(Diagnostic::error(
                        *span,
                        format!("at least {lo} and at most {hi} leave no number"),
                        "empty bounds",
                    ));
                    return None;
                }
                Some(Roll::Clamp {
                    inner: reading,
                    least: *least,
                    most: *most,
                })
            }
            ast::RollExpr::Product { first, second, span } => {
                let (a, b) = (self.side(first), self.side(second));
                let (a, b) = (a?, b?);
                if a.is_flag() || b.is_flag() {
                    self.err(
                        Diagnostic::error(*span, "a yes or no is not multiplied", "not a number")
                            .with_help("`*` multiplies two numbers: totals, kept totals, counts"),
                    );
                    return None;
                }
                Some(Roll::Product { first: a, second: b })
            }
            ast::RollExpr::Times { count, each, span } => {
                // A plain first side (read as a clamp with no bounds) may be a yes or no: 1 or 0 times.
                let count = match &**count {
                    ast::RollExpr::Clamp {
                        inner,
                        least: None,
                        most: None,
                        ..
                    } => self.side(inner).map(Roll::Read),
                    other => self.roll(other),
                };
                let (count, each) = (count, self.side(each));
                let (count, each) = (count?, each?);
                let roll = Roll::Times {
                    count: Box::new(count),
                    each,
                };
                if let Err(why) = roll.check() {
                    self.err(
                        Diagnostic::error(*span, why, "not a number").with_help(
                            "`times` makes a roll once for each the first counts: `count 3+ in 10d6 then 4+ then fail 3+ times d3`",
                        ),
                    );
                    return None;
                }
                Some(roll)
            }
            ast::RollExpr::Given { first, condition, span } => {
                // A plain dice total is its pool read as a total.
                let first = match first {
                    ast::Side::Read(r) => self.read(r),
                    ast::Side::Total(e, tspan) => match self.side(first)? {
                        Reading::Total(d) => match own_dice(&d) {
                            Some(dice) => Some(PoolRead {
                                pool: Pool { dice, reroll: None },
                                read: Read::Sum,
                                modifier: 0,
                            }),
                            None => {
                                self.err(
                                    Diagnostic::error(*tspan, format!("`{d}` is not dice only"), "not a pool")
                                        .with_help("`given` reads dice as they lie: write the dice alone (`2d6 given any 6 in 2d6`), or a reading (`total 10+ in 2d6`)"),
                                );
                                let _ = e;
                                None
                            }
                        },
                        Reading::Pool(p) => Some(p),
                    },
                };
                let condition = self.read(condition);
                let (first, condition) = (first?, condition?);
                let roll = Roll::Given {
                    first,
                    condition: condition.read.clone(),
                };
                let same = match &roll {
                    Roll::Given { first, .. } => first.pool == condition.pool,
                    _ => false,
                };
                if !same {
                    self.err(
                        Diagnostic::error(
                            *span,
                            format!(
                                "`given` reads the same dice, and `{}` rolls {} where the roll before it rolls {}",
                                condition,
                                condition.pool,
                                match &roll {
                                    Roll::Given { first, .. } => first.pool.to_string(),
                                    _ => String::new(),
                                }
                            ),
                            "other dice",
                        )
                        .with_help("write the same dice on both sides: `total 10+ in 2d6 given any 6 in 2d6`"),
                    );
                    return None;
                }
                if !condition.read.is_flag() {
                    self.err(
                        Diagnostic::error(
                            *span,
                            format!("`{condition}` is a number, and `given` takes a yes or no"),
                            "not a yes or no",
                        )
                        .with_help(
                            "read the condition as a yes or no: `any 6 in 2d6`, `double in 2d6`, `total 7+ in 2d6`",
                        ),
                    );
                    return None;
                }
                if let Err(why) = roll.check() {
                    self.err(Diagnostic::error(*span, why, "no answer"));
                    return None;
                }
                Some(roll)
            }
            ast::RollExpr::Sequence { parts, span } => {
                let mut out = Vec::new();
                for p in parts {
                    out.push(Reading::Pool(self.read(p)?));
                }
                let roll = Roll::Sequence(out);
                if let Err(why) = roll.check() {
                    self.err(
                        Diagnostic::error(*span, why, "not a yes or no")
                            .with_help("a sequence reads yes or no rolls: `any 6 in 2d6 then any 5+ in 2d6`"),
                    );
                    return None;
                }
                Some(roll)
            }
            ast::RollExpr::Chain { first, stages } => {
                let first_read = self.read(first)?;
                let Some(kind) = Roll::chain_die(&first_read).cloned() else {
                    self.err(
                        Diagnostic::error(
                            first.pool.span,
                            "a chain rolls one kind of die at every stage",
                            "several kinds",
                        )
                        .with_help("start the chain with dice of one kind (`10d6`, `5 red`)"),
                    );
                    return None;
                };
                let pool_faces = Pool {
                    dice: vec![(1, kind)],
                    reroll: None,
                };
                let mut out = Vec::new();
                for s in stages {
                    let target = self.target(&s.target, &pool_faces);
                    let reroll = match &s.reroll {
                        None => Some(None),
                        Some(r) => self.reroll(r, &pool_faces, true).flatten().map(Some),
                    };
                    let unless = match &s.unless {
                        None => Some(None),
                        Some(u) => self.target(u, &pool_faces).map(Some),
                    };
                    if let (Some(target), Some(reroll), Some(unless)) = (target, reroll, unless) {
                        out.push(Stage { target, reroll, unless });
                    }
                }
                // `unless`: once a chain, not on the first stage after a stage skipped, and
                // every stage reading each die on its own.
                let unlesses = out.iter().filter(|s| s.unless.is_some()).count();
                let per_die = |r: &Option<Reroll>| matches!(r, None | Some(Reroll::Each(_)));
                if unlesses > 0
                    && (unlesses > 1
                        || first_read.modifier != 0
                        || !per_die(&first_read.pool.reroll)
                        || !out.iter().all(|s| per_die(&s.reroll)))
                {
                    let span = stages
                        .iter()
                        .find(|s| s.unless.is_some())
                        .map_or(first.span, |s| s.span);
                    self.err(
                        Diagnostic::error(span, "`unless` lets a die of the stage before through unrolled: one `unless` a chain, every stage reading each die on its own", "cannot read this")
                            .with_help("write one `unless`, with no `reroll one`, `highest`, `lowest` or `failed` in the chain: `count 3+ in 10d6 then 4+ then fail 3+ unless 6`"),
                    );
                    return None;
                }
                (out.len() == stages.len()).then_some(Roll::Chain {
                    first: first_read,
                    stages: out,
                })
            }
        }
    }

    fn side(&mut self, side: &ast::Side) -> Option<Reading> {
        match side {
            ast::Side::Read(r) => self.read(r).map(Reading::Pool),
            ast::Side::Total(e, span) => match dice_from_ast(e, self.dice) {
                Ok(d) => match d.symbolic_faces() {
                    Some(die) => {
                        self.err(Diagnostic::error(
                            *span,
                            format!("`{d}` has no total: die `{die}` has faces without a number"),
                            "no total",
                        ));
                        None
                    }
                    None => Some(Reading::Total(d)),
                },
                Err(errors) => {
                    self.errors.extend(errors);
                    None
                }
            },
        }
    }

    fn pool(&mut self, p: &ast::PoolExpr) -> Option<Pool> {
        let mut kinds: Vec<(u32, DieKind)> = Vec::new();
        let mut ok = true;
        let mut total: u64 = 0;
        for t in &p.dice {
            let part = match &t.term {
                Term::Die { count, sides } => numbered(*count, *sides, t.span),
                Term::Pool { count, die } => custom(self.dice, *count, die, t.span),
                Term::Name(name) => {
                    // A record's own dice field (`in dice`) before a die of that name.
                    if let Some(expr) = self.names.fields.and_then(|f| f.get(name)) {
                        match own_dice(expr) {
                            Some(parts) => {
                                self.reads = Some(name.clone());
                                for (n, k) in parts {
                                    total = total.saturating_add(u64::from(n));
                                    merge(&mut kinds, n, k);
                                }
                                continue;
                            }
                            None => Err(Diagnostic::error(
                                t.span,
                                format!("field `{name}` is `{expr}`, which cannot be read die by die"),
                                "not a pool",
                            )
                            .with_help("read a field that holds dice only (`2d6`, `2 red + 1 white`), with no modifier and nothing taken away")),
                        }
                    } else {
                        custom(self.dice, 1, name, t.span)
                    }
                }
                Term::Decimal(_) => Err(whole_number(t.span)),
                Term::Number(_) => Err(Diagnostic::error(t.span, "a pool holds dice only", "a number")
                    .with_help("add a modifier after the reading instead: `highest of 2d6 + 1`")),
                Term::Tagged { .. } => Err(Diagnostic::error(t.span, "a tagged value is not a die", "not a die")),
            };
            match part {
                Ok(Part::Dice { count, kind }) => {
                    if let DieKind::Numbered(sides) = kind
                        && u64::from(sides) > MAX_DIE_FACES
                    {
                        self.err(
                            Diagnostic::error(t.span, format!("a die with {sides} sides"), "too many sides").with_help(
                                limit_help(
                                    "MAX_DIE_FACES",
                                    format!("a die has at most {} faces", thousands(MAX_DIE_FACES)),
                                ),
                            ),
                        );
                        ok = false;
                        continue;
                    }
                    total = total.saturating_add(u64::from(count));
                    merge(&mut kinds, count, kind);
                }
                Ok(Part::Modifier(_)) => {}
                Err(d) => {
                    self.err(d);
                    ok = false;
                }
            }
        }
        if total > MAX_DICE {
            self.err(
                Diagnostic::error(p.span, format!("{total} dice in one pool"), "too many dice").with_help(limit_help(
                    "MAX_DICE",
                    format!("one pool rolls at most {} dice", thousands(MAX_DICE)),
                )),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        let mut pool = Pool {
            dice: kinds,
            reroll: None,
        };
        if let Some(r) = &p.reroll {
            pool.reroll = self.reroll(r, &pool, false)?;
        }
        Some(pool)
    }

    /// A re-roll rule; `None` inside when it is refused (already reported).
    fn reroll(&mut self, r: &ast::RerollExpr, pool: &Pool, stage: bool) -> Option<Option<Reroll>> {
        let rule = match &r.how {
            ast::RerollHow::Each(t) => Reroll::Each(self.target(t, pool)?),
            ast::RerollHow::One(t) => Reroll::One(self.target(t, pool)?),
            ast::RerollHow::Highest | ast::RerollHow::Lowest => {
                if let Some(die) = pool.symbolic_die() {
                    self.err(Diagnostic::error(
                        r.span,
                        format!("die `{die}` has faces without a number: it has no highest or lowest die"),
                        "no order",
                    ));
                    return Some(None);
                }
                if matches!(r.how, ast::RerollHow::Highest) {
                    Reroll::Highest
                } else {
                    Reroll::Lowest
                }
            }
            ast::RerollHow::Failed => Reroll::Failed,
        };
        let _ = stage;
        Some(Some(rule))
    }

    fn target(&mut self, t: &ast::TargetExpr, pool: &Pool) -> Option<Target> {
        let test = match &t.test {
            ast::TestExpr::AtLeast(n) => Test::AtLeast(*n),
            ast::TestExpr::Between(lo, hi) => Test::Between(*lo, *hi),
            ast::TestExpr::Face(name) => {
                let faces: Vec<String> = pool
                    .dice
                    .iter()
                    .flat_map(|(_, k)| k.shown_faces())
                    .filter_map(|f| f.name.map(|n| n.to_string()))
                    .collect();
                if !faces.contains(name) {
                    let mut names = faces.clone();
                    names.dedup();
                    let help = did_you_mean(name, names.iter().map(String::as_str)).unwrap_or_else(|| {
                        if names.is_empty() {
                            "these dice have numbered faces only: write a number (`6`, `5+`, `1..2`)".into()
                        } else {
                            format!("their named faces: {}", names.join(", "))
                        }
                    });
                    self.err(
                        Diagnostic::error(
                            t.span,
                            format!("no face of these dice is named `{name}`"),
                            "no such face",
                        )
                        .with_help(help),
                    );
                    return None;
                }
                Test::Named(name.clone())
            }
            // A face these dice carry by that name reads before a chart: `arrow(90)` on a
            // scatter die is its tagged face, whatever constants the package has.
            ast::TestExpr::Chart { chart, keys } if pool.has_face_named(&chart.text) => {
                let tagged: Vec<Shown> = pool
                    .dice
                    .iter()
                    .flat_map(|(_, k)| k.shown_faces())
                    .filter(|f| f.name.as_deref() == Some(chart.text.as_str()) && f.value.is_some())
                    .collect();
                match keys.as_slice() {
                    [n] if tagged.iter().any(|f| f.value == Some(*n)) => Test::Tagged(chart.text.clone(), *n),
                    _ => {
                        let mut shown: Vec<String> = tagged.iter().map(Shown::to_string).collect();
                        shown.dedup();
                        let help = if shown.is_empty() {
                            format!("the face `{}` carries no number: write it alone", chart.text)
                        } else {
                            format!("its faces: {}; `{}` alone is any of them", shown.join(", "), chart.text)
                        };
                        self.err(
                            Diagnostic::error(
                                t.span,
                                format!(
                                    "no face of these dice is `{}({})`",
                                    chart.text,
                                    keys.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                                ),
                                "no such face",
                            )
                            .with_help(help),
                        );
                        return None;
                    }
                }
            }
            ast::TestExpr::Chart { chart, keys } => match self.names.chart {
                Some(look) => match look(chart, keys, t.span) {
                    Ok(test) => test,
                    Err(d) => {
                        self.err(d);
                        return None;
                    }
                },
                None => {
                    self.err(Diagnostic::error(
                        t.span,
                        format!("chart `{}`: charts are read only in a package's rules", chart.text),
                        "no chart here",
                    ));
                    return None;
                }
            },
        };
        Some(Target { test, fail: t.fail })
    }

    fn read(&mut self, r: &ast::ReadExpr) -> Option<PoolRead> {
        let pool = self.pool(&r.pool);
        let dice_count = pool.as_ref().map_or(0, |p| p.dice_count() as u32);
        let read = match &r.how {
            ast::How::Keep { highest, drop, n } => {
                let (k, kspan) = n.map_or((1, r.span), |(k, s)| (k, s));
                // A pool of no dice keeps nothing, whatever it keeps: it reads 0.
                let empty = pool.is_some() && dice_count == 0;
                if k == 0 || (!empty && pool.is_some() && (k > dice_count || (*drop && k >= dice_count))) {
                    let word = if *drop { "drop" } else { "keep" };
                    self.err(
                        Diagnostic::error(kspan, format!("cannot {word} {k} of {dice_count} dice"), "out of range")
                            .with_help(if *drop {
                                format!("drop from 1 to {} dice", dice_count.saturating_sub(1))
                            } else {
                                format!("keep from 1 to {dice_count} dice")
                            }),
                    );
                    return None;
                }
                if empty {
                    Read::Keep {
                        highest: *highest,
                        n: 0,
                    }
                } else if *drop {
                    Read::Keep {
                        highest: !highest,
                        n: dice_count - k,
                    }
                } else {
                    Read::Keep {
                        highest: *highest,
                        n: k,
                    }
                }
            }
            ast::How::Count(t) | ast::How::Any(t) | ast::How::All(t) => {
                let target = self.target(t, pool.as_ref()?)?;
                match &r.how {
                    ast::How::Count(_) => Read::Count(target),
                    ast::How::Any(_) => Read::Any(target),
                    _ => Read::All(target),
                }
            }
            ast::How::Same(n, span) => {
                if *n < 2 {
                    self.err(
                        Diagnostic::error(
                            *span,
                            format!("`same {n}`: at least two dice show the same face"),
                            "too few",
                        )
                        .with_help("write `double in …`, `triple in …` or `same N in …` with N of 2 or more"),
                    );
                    return None;
                }
                Read::Same(*n)
            }
            ast::How::Total(t) => {
                let target = self.target(t, pool.as_ref()?)?;
                if let Test::Named(_) | Test::Tagged(..) = &target.test {
                    self.err(
                        Diagnostic::error(
                            t.span,
                            format!("a total is a number, not the face `{target}`"),
                            "not a number",
                        )
                        .with_help("a total meets a number: `total 10+ in 2d6`, `total 7 in 2d6`, `total 2..4 in 2d6`"),
                    );
                    return None;
                }
                Read::Total(target)
            }
            ast::How::Explode(depth) => match depth {
                None => Read::Explode(crate::dice::read::EXPLODE_DEPTH),
                Some((d, span)) if *d == 0 || *d > 1000 => {
                    self.err(
                        Diagnostic::error(
                            *span,
                            format!("`explode {d}`: a die rolls again from 1 to 1000 times"),
                            "out of range",
                        )
                        .with_help(format!(
                            "write `explode` alone for {} times, or a depth from 1 to 1000",
                            crate::dice::read::EXPLODE_DEPTH
                        )),
                    );
                    return None;
                }
                Some((d, _)) => Read::Explode(*d),
            },
            ast::How::Sum => Read::Sum,
        };
        let pool = pool?;
        if read.needs_numbers()
            && let Some(die) = pool.symbolic_die()
        {
            self.err(
                Diagnostic::error(
                    r.pool.span,
                    format!("die `{die}` has faces without a number: they cannot be added up or ranked"),
                    "no numbers",
                )
                .with_help("count them instead: `count <face> in …`, `any <face> in …`"),
            );
            return None;
        }
        if pool.reroll == Some(Reroll::Failed)
            && !matches!(
                read,
                Read::Count(_) | Read::Any(_) | Read::All(_) | Read::Same(_) | Read::Total(_)
            )
        {
            self.err(
                Diagnostic::error(r.pool.span, "`reroll failed` rolls again a reading that comes to nothing", "no failure to roll again")
                    .with_help("use it with `count`, `any`, `all`, `double`, `triple` or `same`; for a total, `reroll 1` or `reroll lowest`"),
            );
            return None;
        }
        let mut modifier: i64 = 0;
        for (m, span) in &r.modifiers {
            if read.is_flag() {
                self.err(
                    Diagnostic::error(*span, "a yes-or-no reading has no number to add to", "not a number")
                        .with_help("use `count …` for a number of dice"),
                );
                return None;
            }
            if m.unsigned_abs() > MAX_DICE_VALUE {
                self.err(
                    Diagnostic::error(*span, format!("the modifier {m} is too large"), "too large").with_help(
                        limit_help(
                            "MAX_DICE_VALUE",
                            format!("a number in dice is at most {} either way", thousands(MAX_DICE_VALUE)),
                        ),
                    ),
                );
                return None;
            }
            modifier = modifier.saturating_add(*m);
        }
        Some(PoolRead { pool, read, modifier })
    }
}

/// A chart's cell: `chart` is a constant holding a list of numbers (`to-hit(4)`: the 4th) or a
/// list of such lists (`to-wound(4, 5)`: row 4, column 5), counted from 1; a number `n` is the
/// target `n+`, the name `none` a target no face meets.
pub fn chart_cell(
    consts: &IndexMap<String, ast::Value>,
    chart: &ast::Name,
    keys: &[i64],
    span: Span,
) -> Result<Test, Diagnostic> {
    let Some(value) = consts.get(&chart.text) else {
        let charts = consts
            .iter()
            .filter(|(_, v)| matches!(v.kind, ValueKind::List(_)))
            .map(|(k, _)| k.as_str());
        let help = did_you_mean(&chart.text, charts).unwrap_or_else(|| {
            format!(
                "declare it: `const {} = [ … ]` (a list of numbers, or of lists)",
                chart.text
            )
        });
        return Err(
            Diagnostic::error(chart.span, format!("no chart `{}`", chart.text), "not a constant").with_help(help),
        );
    };
    let mut at = value;
    for (depth, key) in keys.iter().enumerate() {
        let ValueKind::List(items) = &at.kind else {
            let what = if depth == 0 {
                "is not a list".to_string()
            } else {
                format!("has {depth} key{}", if depth == 1 { "" } else { "s" })
            };
            return Err(Diagnostic::error(
                span,
                format!("chart `{}` {what}, read here with {}", chart.text, keys.len()),
                "too many keys",
            )
            .with_note(value.span, "the chart")
            .with_help(
                "a chart is a list of numbers (`const to-hit = [6, 5, 4]`: one key) or a list of such lists (two keys)",
            ));
        };
        match usize::try_from(*key)
            .ok()
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| items.get(k))
        {
            Some(v) => at = v,
            None => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "chart `{}` has no entry {key} here (it counts from 1 to {})",
                        chart.text,
                        items.len()
                    ),
                    "off the chart",
                )
                .with_note(value.span, "the chart"));
            }
        }
    }
    if let Some(n) = at.as_number() {
        return Ok(Test::AtLeast(n));
    }
    if at.as_name() == Some("none") {
        return Ok(Test::Never);
    }
    Err(Diagnostic::error(
        span,
        format!(
            "chart `{}` at {} holds {}, not a score to roll",
            chart.text,
            keys.iter().map(i64::to_string).collect::<Vec<_>>().join(", "),
            at.describe()
        ),
        "not a score",
    )
    .with_note(at.span, "this entry")
    .with_help("a chart's entries are numbers (`4`: a 4 or more) or `none` (no roll can), one list per row"))
}

/// [`chart_cell`] over the loaded constants (for dice given as text: scripts, the command line).
pub fn chart_cell_loaded(
    consts: &IndexMap<String, crate::ruleset::Const>,
    chart: &ast::Name,
    keys: &[i64],
    span: Span,
) -> Result<Test, Diagnostic> {
    let Some(c) = consts.get(&chart.text) else {
        let charts = consts
            .iter()
            .filter(|(_, c)| matches!(c.value, Value::List(_)))
            .map(|(k, _)| k.as_str());
        let help = did_you_mean(&chart.text, charts).unwrap_or_else(|| {
            format!(
                "declare it: `const {} = [ … ]` (a list of numbers, or of lists)",
                chart.text
            )
        });
        return Err(
            Diagnostic::error(chart.span, format!("no chart `{}`", chart.text), "not a constant").with_help(help),
        );
    };
    let mut at = &c.value;
    for key in keys {
        let Value::List(items) = at else {
            return Err(Diagnostic::error(
                span,
                format!(
                    "chart `{}` is read here with {} keys, more than it has",
                    chart.text,
                    keys.len()
                ),
                "too many keys",
            ));
        };
        match usize::try_from(*key)
            .ok()
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| items.get(k))
        {
            Some(v) => at = v,
            None => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "chart `{}` has no entry {key} here (it counts from 1 to {})",
                        chart.text,
                        items.len()
                    ),
                    "off the chart",
                ));
            }
        }
    }
    match at {
        Value::Number(n) => Ok(Test::AtLeast(*n)),
        Value::Name(n) if n == "none" => Ok(Test::Never),
        other => Err(Diagnostic::error(
            span,
            format!(
                "chart `{}` holds {} there, not a score to roll",
                chart.text,
                other.show()
            ),
            "not a score",
        )),
    }
}

/// How many dice terms the first pool of a roll has (a record's field must be read alone).
fn expr_pool_terms(expr: &ast::RollExpr) -> usize {
    match expr {
        ast::RollExpr::Read(r) => r.pool.dice.len(),
        _ => usize::MAX,
    }
}

fn expr_span(expr: &ast::RollExpr) -> Span {
    match expr {
        ast::RollExpr::Read(r) => r.span,
        ast::RollExpr::Opposed { first, second, .. } => {
            let span = |s: &ast::Side| match s {
                ast::Side::Read(r) => r.span,
                ast::Side::Total(_, span) => *span,
            };
            span(first).to(span(second))
        }
        ast::RollExpr::Chain { first, stages } => stages.last().map_or(first.span, |s| first.span.to(s.span)),
        ast::RollExpr::Clamp { span, .. }
        | ast::RollExpr::Product { span, .. }
        | ast::RollExpr::Times { span, .. }
        | ast::RollExpr::Given { span, .. }
        | ast::RollExpr::Sequence { span, .. } => *span,
    }
}

/// Dice of one kind are one kind in the pool, whatever order they are written in.
fn merge(kinds: &mut Vec<(u32, DieKind)>, count: u32, kind: DieKind) {
    match kinds.iter_mut().find(|(_, k)| *k == kind) {
        Some((n, _)) => *n = n.saturating_add(count),
        None => kinds.push((count, kind)),
    }
}

/// A record's dice field as a pool's dice: dice only, all added.
fn own_dice(expr: &DiceExpr) -> Option<Vec<(u32, DieKind)>> {
    expr.parts
        .iter()
        .map(|(negative, part)| match part {
            Part::Dice { count, kind } if !negative => Some((*count, kind.clone())),
            _ => None,
        })
        .collect()
}
