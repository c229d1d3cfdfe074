//! `servitor odds <package> <what>`: exact odds of a table, a constant that holds dice or a
//! roll, a record's dice and rolls (what a weapon's dice mean: `kill any 6 in dice`), or dice
//! given with `--dice` (a dice expression, or dice read die by die); `--vs` puts another
//! package beside it. A table's odds may be of `--times N` rolls (listed) or of each
//! result's total over them (`--sum`). `hover` and `hover_dice` give the same text to the
//! language server's hover.

use super::AvailabilityArgs;
use clap::Args;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use servitor::Ruleset;
use servitor::diagnostic::did_you_mean;
use servitor::diagnostic::thousands;
use servitor::dice::{DiceExpr, Odds, Roll, to_f64};
use servitor::limits::{MAX_DICE_WORK, MAX_ODDS_TOTALS};
use servitor::ruleset::Value;
use servitor::tables::Table;
use servitor::tables::odds::{Dist, Refused, table_odds_within, table_totals_within, totals_fit};
use std::collections::BTreeMap;

#[derive(Args)]
pub struct OddsArgs {
    /// Package folder or bare name
    package: String,
    /// A table id, a constant that holds dice, or a record's dice as kind.id (or kind.id.field)
    what: Option<String>,
    /// The odds of dice instead, read with the package's dice: a total ('2d6+4', '-d6+7') or
    /// dice read die by die ('highest of 3d6', 'any 6 in 2d6', '… vs …'; see docs/dice.md)
    #[arg(long, value_name = "EXPR", conflicts_with = "what", allow_hyphen_values = true)]
    dice: Option<String>,
    /// Another package (a variant, or its base) beside this one, row by row, with the difference
    #[arg(long, value_name = "PACKAGE")]
    vs: Option<String>,
    /// With --times: each result's total over the rolls (its amounts summed; a row with no
    /// amount counts 1), instead of every combination of outcomes
    #[arg(long)]
    sum: bool,
    #[command(flatten)]
    availability: AvailabilityArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

/// What the odds are of (or what `roll` rolls), as found in one package.
pub(super) enum Subject<'r> {
    Table(&'r Table),
    /// A dice total: `name` says where it came from (`const tokens-per-scan`, `--dice`).
    Dice {
        name: String,
        expr: DiceExpr,
    },
    /// Rolls read die by die, each with its field (empty for `--dice` and constants): a
    /// record's dice and rolls, a constant that holds a roll, `--dice` with a reading.
    Rolls {
        name: String,
        rolls: Vec<Declared>,
    },
}

/// One roll of a subject: its field, the roll, and the dice field it reads (`in dice`).
pub(super) struct Declared {
    pub field: String,
    pub roll: Roll,
    pub reads: Option<String>,
}

/// One block of rows: a table's outcomes, or a total's values (`value` set).
#[derive(Clone)]
struct Section {
    /// With --sum, the result totalled (printed with a colon; `result` in JSON).
    heading: Option<String>,
    rows: Vec<Row>,
    /// For a total: the chance of each value or more, as a float (only ever printed as one;
    /// summing thousands of long exact fractions would cost seconds).
    tails: BTreeMap<i64, f64>,
}

#[derive(Clone)]
struct Row {
    label: String,
    value: Option<i64>,
    p: BigRational,
}

impl Section {
    fn numeric(&self) -> bool {
        self.rows.iter().all(|r| r.value.is_some()) && !self.rows.is_empty()
    }

    /// Exact. Numerators are summed by denominator first: the chances of many rolls share a
    /// few long denominators, and each exact sum of two fractions costs a gcd of them.
    fn mean(&self) -> Option<BigRational> {
        self.numeric().then(|| {
            // Over one common denominator (the chances of a roll are counts over one
            // denominator, reduced: each divides the largest), one gcd at the end.
            let common = common_denominator(self.rows.iter().map(|r| &r.p));
            let mut sum = BigInt::zero();
            for r in &self.rows {
                sum += r.p.numer() * (&common / r.p.denom()) * r.value.unwrap_or(0);
            }
            BigRational::new(sum, common)
        })
    }

    /// The chance of `value` or more.
    fn at_least(&self, value: i64) -> f64 {
        self.tails.range(value..).next().map_or(0.0, |(_, p)| *p)
    }

    fn of_distribution(heading: Option<String>, dist: &BTreeMap<i64, BigRational>) -> Section {
        // "At least v" for every v, summed once from the top, exactly: every chance as a
        // numerator over the denominators' lcm (one division each, no gcd), then each running
        // sum correctly rounded to a float.
        let common = common_denominator(dist.values());
        let mut tails = BTreeMap::new();
        let mut sum = BigInt::zero();
        for (v, p) in dist.iter().rev() {
            sum += p.numer() * (&common / p.denom());
            tails.insert(*v, to_f64(&BigRational::new_raw(sum.clone(), common.clone())));
        }
        Section {
            heading,
            tails,
            rows: dist
                .iter()
                .map(|(v, p)| Row {
                    label: v.to_string(),
                    value: Some(*v),
                    p: p.clone(),
                })
                .collect(),
        }
    }
}

/// A denominator every chance's divides: the largest of them when it will do (the chances of a
/// roll are counts over one denominator, each reduced), else their lcm.
fn common_denominator<'a>(chances: impl Iterator<Item = &'a BigRational> + Clone) -> BigInt {
    let largest = chances
        .clone()
        .map(|p| p.denom())
        .max()
        .cloned()
        .unwrap_or_else(BigInt::one);
    let mut common = largest;
    for p in chances {
        if !(&common % p.denom()).is_zero() {
            common = num_integer::Integer::lcm(&common, p.denom());
        }
    }
    common
}

/// The odds of one subject in one package, ready to print.
struct Computed {
    /// `arrivals — Who arrives this turn`, or `const tokens-per-scan`.
    title: String,
    /// `dice 2d6 · …`, `source: …`.
    lines: Vec<String>,
    sections: Vec<Section>,
    /// For rolls read die by die: the JSON, made with the sections.
    json: Option<serde_json::Value>,
}

pub fn run(args: OddsArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let ruleset = &loaded.ruleset;
    let subject = subject_in(ruleset, &args).map_err(super::usage)?;
    let Some(vs) = &args.vs else {
        if let (Subject::Table(table), false, false) = (&subject, args.json, args.sum) {
            // The plain listing of a table, as it always was.
            super::check_results(table, &args.availability)?;
            let odds = listing(ruleset, table, &args.availability)?;
            super::emit(&super::render::odds(table, &args.availability, &odds));
            return Ok(());
        }
        let computed = compute(ruleset, &subject, &args)?;
        if args.json {
            super::emit_json(&json_one(&subject, &computed));
        } else {
            super::emit(&render_one(&computed));
        }
        return Ok(());
    };
    let other = super::load(vs)?;
    let in_vs = |e: super::Failure| e.map(|m| m.replacen("error: ", &format!("error: in --vs {vs}: "), 1));
    let other_subject = subject_in(&other.ruleset, &args).map_err(super::usage).map_err(in_vs)?;
    let a = compute(ruleset, &subject, &args)?;
    let b = compute(&other.ruleset, &other_subject, &args).map_err(in_vs)?;
    let names = distinct_names(
        [ruleset.name().to_string(), other.ruleset.name().to_string()],
        [args.package.clone(), vs.clone()],
    );
    if args.json {
        super::emit_json(&json_vs(&names, &a, &b));
    } else {
        super::emit(&render_vs(&names, &a, &b));
    }
    Ok(())
}

/// The odds of `what` (a table, a constant that holds dice, a record's dice as `kind.id`) as
/// `odds` prints them, for an editor's hover (`servitor lsp`); `None` when `what` names none
/// of them or its odds are refused.
pub(super) fn hover(ruleset: &Ruleset, what: &str) -> Option<String> {
    let args = hover_args(Some(what), None);
    let subject = subject_in(ruleset, &args).ok()?;
    if let Subject::Table(table) = &subject {
        let odds = listing(ruleset, table, &args.availability).ok()?;
        return Some(super::render::odds(table, &args.availability, &odds));
    }
    compute(ruleset, &subject, &args).ok().map(|c| render_one(&c))
}

/// The odds of dice written as text (a string in a script or a rules file, as `odds --dice`
/// reads it), for an editor's hover; `None` when the text is no roll, or a plain number.
pub(super) fn hover_dice(ruleset: &Ruleset, text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() || text.parse::<i64>().is_ok() {
        return None;
    }
    let args = hover_args(None, Some(text));
    let subject = subject_in(ruleset, &args).ok()?;
    compute(ruleset, &subject, &args).ok().map(|c| render_one(&c))
}

/// `odds` asked about one thing, as text, as the command line's defaults ask it.
fn hover_args(what: Option<&str>, dice: Option<&str>) -> OddsArgs {
    OddsArgs {
        package: String::new(),
        what: what.map(str::to_string),
        dice: dice.map(str::to_string),
        vs: None,
        sum: false,
        availability: AvailabilityArgs {
            times: 1,
            ..AvailabilityArgs::default()
        },
        json: false,
    }
}

/// The two packages' names as columns, never the same twice (a JSON object would keep one):
/// equal names become the packages as written on the command line, and those, if equal too,
/// get ` (A)` and ` (B)`.
fn distinct_names(names: [String; 2], written: [String; 2]) -> [String; 2] {
    if names[0] != names[1] {
        names
    } else if written[0] != written[1] {
        written
    } else {
        [format!("{} (A)", names[0]), format!("{} (B)", names[1])]
    }
}

/// Finds what `args` asks about in `ruleset`.
fn subject_in<'r>(ruleset: &'r Ruleset, args: &OddsArgs) -> Result<Subject<'r>, String> {
    find_subject(ruleset, args.what.as_deref(), args.dice.as_deref())
}

/// A table, a constant, a record's dice and rolls (`kind.id`, `kind.id.field`), or dice given
/// as text.
pub(super) fn find_subject<'r>(
    ruleset: &'r Ruleset,
    what: Option<&str>,
    dice: Option<&str>,
) -> Result<Subject<'r>, String> {
    if let Some(text) = dice {
        let roll = ruleset.parse_roll(text).map_err(|e| format!("error: {e}\n"))?;
        return match roll {
            Roll::Read(servitor::dice::Reading::Total(expr)) => dice_subject(String::new(), expr),
            roll => Ok(Subject::Rolls {
                name: String::new(),
                rolls: vec![Declared {
                    field: String::new(),
                    roll,
                    reads: None,
                }],
            }),
        };
    }
    let Some(what) = what else {
        return Err(format!(
            "error: say what to count: a table, a constant that holds dice, kind.id for a record's dice, or --dice EXPR\n  {}\n",
            what_exists(ruleset)
        ));
    };
    if let Some(table) = ruleset.tables.get(what) {
        return Ok(Subject::Table(table));
    }
    if let Some(c) = ruleset.consts.get(what) {
        return match &c.value {
            Value::Dice(d) => dice_subject(format!("const {what}"), d.expr.clone()),
            Value::Roll(r) => Ok(Subject::Rolls {
                name: format!("const {what}"),
                rolls: vec![Declared {
                    field: String::new(),
                    roll: r.roll.clone(),
                    reads: None,
                }],
            }),
            other => Err(format!(
                "error: constant `{what}` is {}, not dice: there are no odds to compute\n",
                other.show()
            )),
        };
    }
    if what.contains('.') {
        return record_dice(ruleset, what);
    }
    let mut names: Vec<&str> = ruleset.tables.keys().map(String::as_str).collect();
    names.extend(dice_consts(ruleset));
    let hint = did_you_mean(what, names.iter().copied())
        .map(|h| format!("\n  help: {h}"))
        .unwrap_or_default();
    Err(format!(
        "error: no table or dice constant `{what}` in {}{hint}\n  {}\n",
        ruleset.name(),
        what_exists(ruleset)
    ))
}

fn dice_subject<'r>(name: String, expr: DiceExpr) -> Result<Subject<'r>, String> {
    if let Some(die) = expr.symbolic_faces()
        && expr.faces_shown().is_none()
    {
        return Err(format!(
            "error: `{expr}` has no total: die `{die}` has faces without a number\n  help: one such die alone lists its faces (`{die}`); several are read by a face: `count <face> in {expr}`, `any <face> in {expr}`\n"
        ));
    }
    Ok(Subject::Dice { name, expr })
}

fn dice_consts(ruleset: &Ruleset) -> Vec<&str> {
    ruleset
        .consts
        .values()
        .filter(|c| matches!(c.value, Value::Dice(_) | Value::Roll(_)))
        .map(|c| c.id.as_str())
        .collect()
}

fn what_exists(ruleset: &Ruleset) -> String {
    let tables: Vec<&str> = ruleset.tables.keys().map(String::as_str).collect();
    let consts = dice_consts(ruleset);
    let list = |v: &[&str]| {
        if v.is_empty() {
            "(none)".to_string()
        } else {
            v.join(", ")
        }
    };
    format!("tables: {}\n  dice constants: {}", list(&tables), list(&consts))
}

/// `kind.id` (the record's one dice field) or `kind.id.field`.
fn record_dice<'r>(ruleset: &'r Ruleset, what: &str) -> Result<Subject<'r>, String> {
    let parts: Vec<&str> = what.split('.').collect();
    let (kind, id, field) = match parts.as_slice() {
        [kind, id] => (*kind, *id, None),
        [kind, id, field] => (*kind, *id, Some(*field)),
        _ => {
            return Err(format!(
                "error: `{what}`: write a record's dice as kind.id or kind.id.field\n"
            ));
        }
    };
    let Some(records) = ruleset.records.get(kind) else {
        let kinds: Vec<&str> = ruleset.records.keys().map(String::as_str).collect();
        let hint = did_you_mean(kind, kinds.iter().copied())
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        return Err(format!(
            "error: no record kind `{kind}`{hint}\n  kinds: {}\n",
            kinds.join(", ")
        ));
    };
    let Some(record) = records.get(id) else {
        let ids: Vec<&str> = records.keys().map(String::as_str).collect();
        let hint = did_you_mean(id, ids.iter().copied())
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        return Err(format!("error: no {kind} `{id}`{hint}\n  {kind}: {}\n", ids.join(", ")));
    };
    // Its dice and its rolls, in the schema's order.
    let fields: Vec<(&String, &Value)> = record
        .fields
        .iter()
        .filter(|(_, v)| matches!(v, Value::Dice(_) | Value::Roll(_)))
        .collect();
    let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
    let chosen: Vec<(&String, &Value)> = match field {
        Some(f) => vec![*fields.iter().find(|(k, _)| k.as_str() == f).ok_or_else(|| {
            let hint = did_you_mean(f, names.iter().copied())
                .map(|h| format!("\n  help: {h}"))
                .unwrap_or_default();
            format!(
                "error: {kind} `{id}` has no dice field `{f}`{hint}\n  dice fields: {}\n",
                if names.is_empty() {
                    "(none)".into()
                } else {
                    names.join(", ")
                }
            )
        })?],
        None if fields.is_empty() => return Err(format!("error: {kind} `{id}` has no dice field\n")),
        None => {
            // A record whose dice are read by its rolls answers with the rolls (a weapon's
            // `dice 2d6` is never added up when `kill any 6 in dice` says what it means).
            let read: Vec<&str> = fields
                .iter()
                .filter_map(|(_, v)| match v {
                    Value::Roll(r) => r.reads.as_deref(),
                    _ => None,
                })
                .collect();
            fields
                .iter()
                .filter(|(k, v)| !(matches!(v, Value::Dice(_)) && read.contains(&k.as_str())))
                .copied()
                .collect()
        }
    };
    if let [(name, Value::Dice(d))] = chosen.as_slice() {
        return dice_subject(format!("{kind}.{id}.{name}"), d.expr.clone());
    }
    let mut rolls = Vec::new();
    for (name, value) in chosen {
        let (roll, reads) = match value {
            Value::Dice(d) => {
                if let Some(die) = d.expr.symbolic_faces() {
                    return Err(format!(
                        "error: {kind} `{id}`: `{name}` has no total: die `{die}` has faces without a number; ask for its rolls instead, e.g. {kind}.{id}.<roll field>\n"
                    ));
                }
                (Roll::Read(servitor::dice::Reading::Total(d.expr.clone())), None)
            }
            Value::Roll(r) => (r.roll.clone(), r.reads.clone()),
            _ => continue,
        };
        rolls.push(Declared {
            field: name.clone(),
            roll,
            reads,
        });
    }
    Ok(Subject::Rolls {
        name: format!("{kind}.{id}"),
        rolls,
    })
}

fn compute(ruleset: &Ruleset, subject: &Subject, args: &OddsArgs) -> Result<Computed, super::Failure> {
    match subject {
        // One die with faces that carry no number: which face it shows, each with its chance.
        Subject::Dice { name, expr } if expr.symbolic_faces().is_some() => {
            dice_only(args)?;
            let faces = expr.faces_shown().unwrap_or_default();
            let title = if name.is_empty() {
                format!("die {expr}")
            } else {
                name.clone()
            };
            let lines = if name.is_empty() {
                Vec::new()
            } else {
                vec![format!("die {expr}")]
            };
            Ok(Computed {
                title,
                lines,
                sections: vec![Section {
                    heading: None,
                    tails: BTreeMap::new(),
                    rows: faces
                        .into_iter()
                        .map(|(face, p)| Row {
                            label: face.to_string(),
                            value: None,
                            p,
                        })
                        .collect(),
                }],
                json: None,
            })
        }
        Subject::Dice { name, expr } => {
            dice_only(args)?;
            // Costed before the work, like every distribution the loader checks.
            match expr.odds_cost() {
                Some((work, totals)) if work <= MAX_DICE_WORK && totals <= MAX_ODDS_TOTALS => {}
                Some((work, totals)) => return Err(too_costly(&expr.to_string(), work, totals).into()),
                None => {
                    return Err(format!(
                        "error: the totals of `{expr}` do not fit in a number: use smaller dice and modifiers\n"
                    )
                    .into());
                }
            }
            // `--dice` needs no title of its own: the dice are the subject.
            let (title, lines) = if name.is_empty() {
                (format!("dice {expr}"), Vec::new())
            } else {
                (name.clone(), vec![format!("dice {expr}")])
            };
            Ok(Computed {
                title,
                lines,
                sections: vec![Section::of_distribution(None, &expr.distribution().weights)],
                json: None,
            })
        }
        Subject::Rolls { name, rolls } => {
            dice_only(args)?;
            for d in rolls {
                let bound = match &d.roll {
                    Roll::Read(r) => r.values_bound(),
                    _ => 0,
                };
                let work = d.roll.odds_cost();
                if work > MAX_DICE_WORK || bound > MAX_ODDS_TOTALS {
                    // `--dice` as the player wrote it (`same 2`, not the `double` it reads as).
                    let what = match (&args.dice, name.is_empty()) {
                        (Some(text), true) => text.trim().to_string(),
                        _ => d.roll.to_string(),
                    };
                    return Err(too_costly(&what, work, bound).into());
                }
            }
            let mut lines = Vec::new();
            let mut sections = Vec::new();
            let mut json = Vec::new();
            let single = name.is_empty() || (rolls.len() == 1 && rolls[0].field.is_empty());
            for d in rolls {
                let odds = d.roll.odds().map_err(|e| format!("error: {e}\n"))?;
                if !single {
                    let text = match (&d.reads, &d.roll) {
                        (Some(f), Roll::Read(servitor::dice::Reading::Pool(p))) => p.text_with_pool(f),
                        _ => d.roll.to_string(),
                    };
                    lines.push(format!("{}: {text}", d.field));
                }
                let mut entry = serde_json::json!({ "roll": d.roll.to_string() });
                if !d.field.is_empty() {
                    entry["field"] = d.field.clone().into();
                }
                if let Some(f) = &d.reads {
                    entry["reads"] = f.clone().into();
                }
                let field = (!d.field.is_empty()).then(|| d.field.clone());
                let made = roll_sections(field.as_deref(), &odds);
                match (&odds, made.as_slice()) {
                    (Odds::Opposed { .. }, [who, margin]) => {
                        let who_json = section_json(who);
                        entry["outcomes"] = who_json["outcomes"].clone();
                        entry["margin"] = section_json(margin);
                    }
                    (_, [one]) => {
                        let one_json = section_json(one);
                        entry["outcomes"] = one_json["outcomes"].clone();
                        if let Some(mean) = one_json.get("mean") {
                            entry["mean"] = mean.clone();
                        }
                    }
                    _ => {}
                }
                // Exploding dice: the chance a die would roll again past its depth.
                let mut rest = None;
                if let Roll::Read(servitor::dice::Reading::Pool(p)) = &d.roll
                    && let servitor::dice::Read::Explode(depth) = p.read
                {
                    let p = servitor::dice::exact::explode_rest(&p.pool, depth);
                    entry["past_depth"] = serde_json::json!({ "depth": depth, "chance": fraction_json(&p) });
                    rest = Some(Section {
                        heading: Some(format!(
                            "past depth {depth}: a die shows its highest face on its last roll (it stands)"
                        )),
                        rows: vec![Row {
                            label: "would roll again".into(),
                            value: None,
                            p,
                        }],
                        tails: BTreeMap::new(),
                    });
                }
                json.push(entry);
                sections.extend(made);
                sections.extend(rest);
            }
            // Readings of one field are read from one roll of it.
            let mut together: Vec<serde_json::Value> = Vec::new();
            let mut shared: BTreeMap<&str, (String, Vec<&str>)> = BTreeMap::new();
            for d in rolls {
                if let (Some(f), Roll::Read(servitor::dice::Reading::Pool(p))) = (&d.reads, &d.roll) {
                    let entry = shared
                        .entry(f.as_str())
                        .or_insert_with(|| (p.pool.to_string(), Vec::new()));
                    entry.1.push(&d.field);
                }
            }
            for (field, (dice, readers)) in &shared {
                lines.push(format!("`{field}` is {dice}, rolled once for {}", and_list(readers)));
            }
            // Two or more yes-or-no readings of one field, taken together (kill and jam).
            for field in shared.keys() {
                let flags: Vec<(&str, &servitor::dice::PoolRead)> = rolls
                    .iter()
                    .filter_map(|d| match (&d.reads, &d.roll) {
                        (Some(f), Roll::Read(servitor::dice::Reading::Pool(p))) if f == field && p.read.is_flag() => {
                            Some((d.field.as_str(), p))
                        }
                        _ => None,
                    })
                    .collect();
                if flags.len() < 2 {
                    continue;
                }
                let reads: Vec<&servitor::dice::Read> = flags.iter().map(|(_, p)| &p.read).collect();
                let Some(joint) = servitor::dice::exact::joint_flags(&flags[0].1.pool, &reads) else {
                    continue;
                };
                let names: Vec<&str> = flags.iter().map(|(n, _)| *n).collect();
                let rows: Vec<Row> = joint
                    .into_iter()
                    .map(|(answers, p)| {
                        let yes: Vec<&str> = names
                            .iter()
                            .zip(&answers)
                            .filter(|(_, a)| **a)
                            .map(|(n, _)| *n)
                            .collect();
                        let label = if yes.is_empty() {
                            "none".to_string()
                        } else if yes.len() == names.len() {
                            format!("{} (all)", yes.join(" + "))
                        } else {
                            format!("{} only", yes.join(" + "))
                        };
                        Row { label, value: None, p }
                    })
                    .collect();
                let outcomes: Vec<serde_json::Value> = rows
                    .iter()
                    .map(|r| serde_json::json!({ "outcome": r.label, "chance": fraction_json(&r.p) }))
                    .collect();
                together.push(serde_json::json!({ "reads": field, "rolls": names, "outcomes": outcomes }));
                sections.push(Section {
                    heading: Some(format!("{} together (one roll of `{field}`)", and_list(&names))),
                    rows,
                    tails: BTreeMap::new(),
                });
            }
            let title = if name.is_empty() {
                format!("dice {}", rolls.first().map(|d| d.roll.to_string()).unwrap_or_default())
            } else if single {
                lines.insert(0, format!("dice {}", rolls[0].roll));
                name.clone()
            } else {
                name.clone()
            };
            let mut out = Computed {
                title,
                lines,
                sections,
                json: None,
            };
            let mut whole = serde_json::json!({ "rolls": json });
            if !together.is_empty() {
                whole["together"] = serde_json::Value::Array(together);
            }
            if !name.is_empty() {
                whole["what"] = name.clone().into();
            }
            out.json = Some(whole);
            Ok(out)
        }
        Subject::Table(table) if args.sum => {
            super::check_results(table, &args.availability)?;
            let times = args.availability.times;
            let totals = table_totals_within(&ruleset.tables, table, times, &args.availability.availability())
                .map_err(|refused| refusal(table, times, true, false, refused))?;
            let rolls = if times == 1 {
                "1 roll".to_string()
            } else {
                format!("{times} rolls")
            };
            Ok(Computed {
                title: format!("{} — {}", table.id, table.title()),
                lines: vec![format!(
                    "dice {} · each result's total over {rolls} (amounts summed; a row with no amount counts 1)",
                    table.dice
                )],
                sections: totals
                    .iter()
                    .map(|(key, dist)| {
                        let name = key.as_deref().unwrap_or("nothing (ignored or none left)");
                        Section::of_distribution(Some(name.to_string()), dist)
                    })
                    .collect(),
                json: None,
            })
        }
        Subject::Table(table) => {
            super::check_results(table, &args.availability)?;
            let odds = listing(ruleset, table, &args.availability)?;
            let text = super::render::odds(table, &args.availability, &odds);
            let mut lines = text.lines().map(str::to_string);
            let title = lines.next().unwrap_or_default();
            let lines: Vec<String> = lines.take_while(|l| !l.starts_with("  ")).collect();
            Ok(Computed {
                title,
                lines,
                sections: vec![Section {
                    heading: None,
                    tails: BTreeMap::new(),
                    rows: odds
                        .into_iter()
                        .map(|(o, p)| Row {
                            label: o.label,
                            value: None,
                            p,
                        })
                        .collect(),
                }],
                json: None,
            })
        }
    }
}

/// Dice take no table flags.
fn dice_only(args: &OddsArgs) -> Result<(), super::Failure> {
    if args.availability.times != 1 {
        return Err(super::usage(
            "error: --times is for tables; write the dice you want, e.g. --dice '3d6'\n",
        ));
    }
    if args.sum {
        return Err(super::usage(
            "error: --sum is for tables rolled --times N; dice already give a total\n",
        ));
    }
    if !args.availability.unavailable.is_empty() || !args.availability.available.is_empty() {
        return Err(super::usage(
            "error: --unavailable and --available are for tables' results; dice have none\n",
        ));
    }
    Ok(())
}

/// Why the odds of some dice were not computed: the estimate, made before any work, and the
/// limits it passes.
fn too_costly(what: &str, work: u64, values: u64) -> String {
    if work > MAX_DICE_WORK {
        format!(
            "error: the exact odds of {} would take about {} steps; servitor takes at most {} (`MAX_DICE_WORK`, see \"Limits\" in docs/limits.md)\n  help: use fewer dice or dice with fewer faces\n",
            servitor::escape::quoted(what),
            thousands(work),
            thousands(MAX_DICE_WORK)
        )
    } else {
        format!(
            "error: {} can come to {} different values; servitor lists at most {} (`MAX_ODDS_TOTALS`, see \"Limits\" in docs/limits.md)\n  help: use fewer dice or dice with fewer faces\n",
            servitor::escape::quoted(what),
            thousands(values),
            thousands(MAX_ODDS_TOTALS)
        )
    }
}

/// A roll's odds as sections: a number's values; yes and no; who wins, then the margin.
fn roll_sections(field: Option<&str>, odds: &Odds) -> Vec<Section> {
    let heading = |what: &str| match (field, what) {
        (None, "") => None,
        (None, w) => Some(w.to_string()),
        (Some(f), "") => Some(f.to_string()),
        (Some(f), w) => Some(format!("{f}, {w}")),
    };
    let labelled = |heading: Option<String>, rows: Vec<(&str, &BigRational)>| Section {
        heading,
        tails: BTreeMap::new(),
        rows: rows
            .into_iter()
            .map(|(label, p)| Row {
                label: label.to_string(),
                value: None,
                p: p.clone(),
            })
            .collect(),
    };
    match odds {
        Odds::Number(d) => vec![Section::of_distribution(heading(""), &d.weights)],
        Odds::Flag(yes) => {
            let no = BigRational::one() - yes;
            vec![labelled(heading(""), vec![("yes", yes), ("no", &no)])]
        }
        Odds::Opposed {
            first,
            second,
            tie,
            margin,
        } => {
            let mut rows = vec![("first wins", first), ("second wins", second)];
            if !tie.is_zero() {
                rows.push(("tie", tie));
            }
            vec![
                labelled(heading("who wins"), rows),
                Section::of_distribution(heading("margin (first - second)"), &margin.weights),
            ]
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A table's outcomes over `--times` rolls, refused before computing when they are too many.
fn listing(ruleset: &Ruleset, table: &Table, args: &AvailabilityArgs) -> Result<Dist, String> {
    let times = args.times;
    let avail = args.availability();
    table_odds_within(&ruleset.tables, table, times, &avail).map_err(|refused| {
        // --sum is offered only when it would itself be computed.
        let sum = totals_fit(&ruleset.tables, table, times, &avail).is_ok();
        refusal(table, times, false, sum, refused)
    })
}

/// Why the odds of `times` rolls (their totals with `sum`) were not computed, and how to ask
/// for less.
fn refusal(table: &Table, times: usize, sum: bool, offer_sum: bool, refused: Refused) -> String {
    let too = match refused {
        Refused::Limit(message) => return format!("error: {message}\n"),
        Refused::TooMany(too) => too,
    };
    let what = if too.limit == "MAX_ODDS_OUTCOMES" {
        format!(
            "would list up to {} combinations of its {} outcomes a roll; servitor lists at most {}",
            thousands(too.estimate),
            too.per_roll,
            thousands(too.budget)
        )
    } else {
        format!(
            "would take about {} steps; servitor takes at most {}",
            thousands(too.estimate),
            thousands(too.budget)
        )
    };
    let flags = if sum {
        format!("--sum --times {times}")
    } else {
        format!("--times {times}")
    };
    let instead = if offer_sum {
        format!(", or add --sum for each result's total over {times} rolls")
    } else {
        String::new()
    };
    format!(
        "error: the odds of {flags} on `{}` {what} (`{}`, see \"Limits\" in docs/limits.md)\n  help: ask for less: --times {} or fewer{instead}\n",
        table.id, too.limit, too.fits
    )
}

fn percent(p: &BigRational) -> f64 {
    probability(p) * 100.0
}

/// The longest fraction printed in text; longer ones show as percentages only.
const MAX_FRACTION: usize = 32;

/// A mean as `11` or `3.50 (7/2)`.
fn show_mean(mean: &BigRational) -> String {
    let exact = mean.to_string();
    if mean.is_integer() {
        exact
    } else if exact.len() > MAX_FRACTION {
        format!("{:.2}", probability(mean))
    } else {
        format!("{:.2} ({exact})", probability(mean))
    }
}

fn render_one(c: &Computed) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{}", c.title);
    for line in &c.lines {
        let _ = writeln!(out, "{line}");
    }
    for section in &c.sections {
        if let Some(h) = &section.heading {
            let _ = writeln!(out, "{h}:");
        }
        let lw = section
            .rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        // Exact fractions, unless they have grown too long to read (many rolls).
        let fractions: Vec<String> = section.rows.iter().map(|r| r.p.to_string()).collect();
        let fw = fractions.iter().map(String::len).max().unwrap_or(0).max(6);
        let numeric = section.numeric();
        let exact = fw <= MAX_FRACTION;
        // Without exact fractions, the rows that round to nothing at either end say little.
        let tiny = |r: &Row| !exact && numeric && percent(&r.p) < 0.005;
        let first = section.rows.iter().position(|r| !tiny(r)).unwrap_or(0);
        let last = section.rows.iter().rposition(|r| !tiny(r)).unwrap_or(0);
        if !exact {
            let _ = writeln!(
                out,
                "  (exact fractions have too many digits to print here; --json has every row)"
            );
        }
        if numeric && exact {
            let _ = writeln!(
                out,
                "  {:>lw$}  {:>fw$}  {:>8}  {:>8}",
                "total", "chance", "", "at least"
            );
        } else if numeric {
            let _ = writeln!(out, "  {:>lw$}  {:>8}  {:>8}", "total", "chance", "at least");
        }
        let range = |from: usize, to: usize| -> String {
            let (a, b) = (&section.rows[from].label, &section.rows[to].label);
            if from == to { a.clone() } else { format!("{a} to {b}") }
        };
        if first > 0 {
            let _ = writeln!(out, "  totals {}: each under 0.005 %", range(0, first - 1));
        }
        for (r, fraction) in section.rows.iter().zip(&fractions).take(last + 1).skip(first) {
            let at_least = r
                .value
                .filter(|_| numeric)
                .map(|v| format!("  {:>6.2} %", section.at_least(v) * 100.0))
                .unwrap_or_default();
            let fraction = if exact {
                format!("  {fraction:>fw$}")
            } else {
                String::new()
            };
            let _ = writeln!(out, "  {:>lw$}{fraction}  {:>6.2} %{at_least}", r.label, percent(&r.p));
        }
        if last + 1 < section.rows.len() {
            let _ = writeln!(
                out,
                "  totals {}: each under 0.005 %",
                range(last + 1, section.rows.len() - 1)
            );
        }
        if let Some(mean) = section.mean() {
            let _ = writeln!(out, "  mean {}", show_mean(&mean));
        }
    }
    out
}

fn difference(a: &BigRational, b: &BigRational) -> String {
    let d = to_f64(&(b - a)) * 100.0;
    if d.abs() < 0.005 {
        "0.00".into()
    } else {
        format!("{d:+.2}")
    }
}

/// `b` − `a` in percentage points, two probabilities.
fn difference_of(a: f64, b: f64) -> String {
    let d = (b - a) * 100.0;
    if d.abs() < 0.005 {
        "0.00".into()
    } else {
        format!("{d:+.2}")
    }
}

/// Rows of both packages by label, in the first package's order, then the second's new ones.
fn paired<'a>(a: &'a Section, b: &'a Section) -> Vec<(&'a str, Option<i64>, BigRational, BigRational)> {
    let mut labels: Vec<(&str, Option<i64>)> = a.rows.iter().map(|r| (r.label.as_str(), r.value)).collect();
    for r in &b.rows {
        if !labels.iter().any(|(l, _)| *l == r.label) {
            labels.push((r.label.as_str(), r.value));
        }
    }
    if a.numeric() && b.numeric() {
        labels.sort_by_key(|(_, v)| *v);
    }
    let p = |s: &Section, l: &str| {
        s.rows
            .iter()
            .find(|r| r.label == l)
            .map_or_else(BigRational::zero, |r| r.p.clone())
    };
    labels.into_iter().map(|(l, v)| (l, v, p(a, l), p(b, l))).collect()
}

fn render_vs(names: &[String; 2], a: &Computed, b: &Computed) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{}", a.title);
    for ((letter, name), c) in ["A", "B"].iter().zip(names).zip([a, b]) {
        let what: Vec<&str> = c.lines.iter().map(String::as_str).collect();
        let what = if what.is_empty() {
            String::new()
        } else {
            format!(" · {}", what.join(" · "))
        };
        let _ = writeln!(out, "{letter} = {name}{what}");
    }
    for (sa, sb) in &paired_sections(a, b) {
        if let Some(h) = &sa.heading {
            let _ = writeln!(out, "{h}:");
        }
        let rows = paired(sa, sb);
        let numeric = sa.numeric() && sb.numeric();
        let lw = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0).max(5);
        if numeric {
            let _ = writeln!(out, "  {:lw$}  {:<26}  at least", "", "chance");
            let _ = writeln!(
                out,
                "  {:>lw$}  {:>8}  {:>8}  {:>6}  {:>8}  {:>8}  {:>6}",
                "total", "A", "B", "B - A", "A", "B", "B - A"
            );
        } else {
            let _ = writeln!(out, "  {:lw$}  {:>8}  {:>8}  {:>6}", "", "A", "B", "B - A");
        }
        for (label, value, pa, pb) in &rows {
            let mut line = if numeric {
                format!("  {label:>lw$}")
            } else {
                format!("  {label:<lw$}")
            };
            let _ = write!(
                line,
                "  {:>6.2} %  {:>6.2} %  {:>6}",
                percent(pa),
                percent(pb),
                difference(pa, pb)
            );
            if let (true, Some(v)) = (numeric, value) {
                let (la, lb) = (sa.at_least(*v), sb.at_least(*v));
                let _ = write!(
                    line,
                    "  {:>6.2} %  {:>6.2} %  {:>6}",
                    la * 100.0,
                    lb * 100.0,
                    difference_of(la, lb)
                );
            }
            let _ = writeln!(out, "{line}");
        }
        if let (Some(ma), Some(mb)) = (sa.mean(), sb.mean()) {
            let d = to_f64(&(&mb - &ma));
            let _ = writeln!(
                out,
                "  {:>lw$}  {:>8.2}  {:>8.2}  {:>6}",
                "mean",
                probability(&ma),
                probability(&mb),
                if d.abs() < 0.005 {
                    "0.00".into()
                } else {
                    format!("{d:+.2}")
                }
            );
        }
    }
    out
}

/// A fraction's numerator and denominator as JSON numbers, or as strings of digits when they
/// are too long for a 64-bit number (many rolls).
fn fraction_json(p: &BigRational) -> serde_json::Value {
    let whole = |n: &BigInt| match n.to_u64() {
        Some(n) => serde_json::Value::from(n),
        None => n.to_string().into(),
    };
    serde_json::json!({
        "numerator": whole(p.numer()),
        "denominator": whole(p.denom()),
        "probability": probability(p),
    })
}

/// The sections of two packages side by side, paired by heading (a --sum's results may differ
/// between a variant and its base): the first package's order, then the second's new ones. A
/// result one package lacks always totals 0 there.
fn paired_sections(a: &Computed, b: &Computed) -> Vec<(Section, Section)> {
    let find = |c: &Computed, h: &Option<String>| match c.sections.iter().find(|s| &s.heading == h) {
        Some(s) => s.clone(),
        None => Section::of_distribution(h.clone(), &BTreeMap::from([(0, BigRational::one())])),
    };
    let mut out: Vec<(Section, Section)> = a.sections.iter().map(|sa| (sa.clone(), find(b, &sa.heading))).collect();
    for sb in &b.sections {
        if !a.sections.iter().any(|sa| sa.heading == sb.heading) {
            out.push((find(a, &sb.heading), sb.clone()));
        }
    }
    out
}

fn section_json(s: &Section) -> serde_json::Value {
    let numeric = s.numeric();
    let outcomes: Vec<serde_json::Value> = s
        .rows
        .iter()
        .map(|r| {
            let mut o = fraction_json(&r.p);
            match r.value.filter(|_| numeric) {
                Some(v) => {
                    o["value"] = v.into();
                    o["at_least"] = s.at_least(v).into();
                }
                None => o["result"] = r.label.clone().into(),
            }
            o
        })
        .collect();
    let mut out = serde_json::json!({ "outcomes": outcomes });
    if let Some(h) = &s.heading {
        out["result"] = h.clone().into();
    }
    if let Some(mean) = s.mean() {
        out["mean"] = probability(&mean).into();
    }
    out
}

fn json_one(subject: &Subject, c: &Computed) -> serde_json::Value {
    match subject {
        Subject::Table(table) if c.sections.len() == 1 && c.sections[0].heading.is_none() => {
            // The table form as it always was: one object, its outcomes.
            let mut out = section_json(&c.sections[0]);
            out["table"] = table.id.clone().into();
            out["dice"] = table.dice.to_string().into();
            out
        }
        Subject::Table(table) => {
            // --sum: one section a result, each with its heading.
            let sections: Vec<serde_json::Value> = c.sections.iter().map(section_json).collect();
            serde_json::json!({ "table": table.id, "dice": table.dice.to_string(), "sections": sections })
        }
        Subject::Rolls { .. } => c.json.clone().unwrap_or_default(),
        Subject::Dice { name, expr } => {
            let mut out = section_json(&c.sections[0]);
            if !name.is_empty() {
                out["what"] = name.clone().into();
            }
            out["dice"] = expr.to_string().into();
            out
        }
    }
}

fn json_vs(names: &[String; 2], a: &Computed, b: &Computed) -> serde_json::Value {
    let sections: Vec<serde_json::Value> = paired_sections(a, b)
        .iter()
        .map(|(sa, sb)| {
            let rows: Vec<serde_json::Value> = paired(sa, sb)
                .into_iter()
                .map(|(label, value, pa, pb)| {
                    let mut row = serde_json::json!({
                        "label": label,
                        names[0].clone(): probability(&pa),
                        names[1].clone(): probability(&pb),
                        "difference": to_f64(&(&pb - &pa)),
                    });
                    if let Some(v) = value {
                        row["value"] = v.into();
                    }
                    row
                })
                .collect();
            let mut out = serde_json::json!({ "rows": rows });
            if let Some(h) = &sa.heading {
                out["result"] = h.clone().into();
            }
            if let (Some(ma), Some(mb)) = (sa.mean(), sb.mean()) {
                out["mean"] =
                    serde_json::json!({ names[0].clone(): probability(&ma), names[1].clone(): probability(&mb) });
            }
            out
        })
        .collect();
    serde_json::json!({ "what": a.title, "packages": names, "sections": sections })
}

/// A fraction as a float: the nearest one, however long its numerator and denominator.
pub fn probability(p: &BigRational) -> f64 {
    to_f64(p)
}
