//! `servitor odds <package> <what>`: exact odds of a table, a constant that holds dice, a
//! record's dice field, or a dice expression (`--dice`); `--vs` puts another package beside it.

use super::AvailabilityArgs;
use clap::Args;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use servitor::Ruleset;
use servitor::diagnostic::did_you_mean;
use servitor::dice::DiceExpr;
use servitor::ruleset::Value;
use servitor::tables::Table;
use servitor::tables::odds::table_odds;
use std::collections::BTreeMap;

#[derive(Args)]
pub struct OddsArgs {
    /// Package folder or bare name
    package: String,
    /// A table id, a constant that holds dice, or a record's dice as kind.id (or kind.id.field)
    what: Option<String>,
    /// The odds of a dice expression instead, read with the package's dice, e.g. '2d6+4'
    #[arg(long, value_name = "EXPR", conflicts_with = "what")]
    dice: Option<String>,
    /// Another package (a variant, or its base) beside this one, row by row, with the difference
    #[arg(long, value_name = "PACKAGE")]
    vs: Option<String>,
    #[command(flatten)]
    availability: AvailabilityArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

/// What the odds are of, as found in one package.
enum Subject<'r> {
    Table(&'r Table),
    /// A dice total: `name` says where it came from (`const blips-per-scan`, `--dice`).
    Dice {
        name: String,
        expr: DiceExpr,
    },
}

/// One block of rows: a table's outcomes, or a total's values (`value` set).
struct Section {
    heading: Option<String>,
    rows: Vec<Row>,
}

struct Row {
    label: String,
    value: Option<i64>,
    p: BigRational,
}

impl Section {
    fn numeric(&self) -> bool {
        self.rows.iter().all(|r| r.value.is_some()) && !self.rows.is_empty()
    }

    fn mean(&self) -> Option<BigRational> {
        self.numeric().then(|| {
            self.rows
                .iter()
                .map(|r| BigRational::from_integer(r.value.unwrap_or(0).into()) * &r.p)
                .fold(BigRational::zero(), |a, b| a + b)
        })
    }

    /// The chance of `value` or more.
    fn at_least(&self, value: i64) -> BigRational {
        self.rows
            .iter()
            .filter(|r| r.value.is_some_and(|v| v >= value))
            .fold(BigRational::zero(), |a, r| a + &r.p)
    }

    fn of_distribution(heading: Option<String>, dist: &BTreeMap<i64, BigRational>) -> Section {
        Section {
            heading,
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

/// The odds of one subject in one package, ready to print.
struct Computed {
    /// `reinforcements — Reinforcements while aliens remain`, or `const blips-per-scan`.
    title: String,
    /// `dice 2d6 · …`, `source: …`.
    lines: Vec<String>,
    sections: Vec<Section>,
}

pub fn run(args: OddsArgs) -> Result<(), String> {
    let loaded = super::load(&args.package)?;
    let ruleset = &loaded.ruleset;
    let subject = subject_in(ruleset, &args)?;
    let Some(vs) = &args.vs else {
        if let (Subject::Table(table), false) = (&subject, args.json) {
            // The plain listing of a table, as it always was.
            super::check_results(table, &args.availability)?;
            let odds = table_odds(
                &ruleset.tables,
                table,
                args.availability.times,
                &args.availability.availability(),
            )
            .map_err(|e| format!("error: {e}"))?;
            super::emit(&super::render::odds(table, &args.availability, &odds));
            return Ok(());
        }
        let computed = compute(ruleset, &subject, &args)?;
        if args.json {
            super::emitln(&json_one(&subject, &computed).to_string());
        } else {
            super::emit(&render_one(&computed));
        }
        return Ok(());
    };
    let other = super::load(vs)?;
    let in_vs = |e: String| e.replacen("error: ", &format!("error: in --vs {vs}: "), 1);
    let other_subject = subject_in(&other.ruleset, &args).map_err(in_vs)?;
    let a = compute(ruleset, &subject, &args)?;
    let b = compute(&other.ruleset, &other_subject, &args).map_err(in_vs)?;
    let names = [ruleset.name().to_string(), other.ruleset.name().to_string()];
    if args.json {
        super::emitln(&json_vs(&names, &a, &b).to_string());
    } else {
        super::emit(&render_vs(&names, &a, &b));
    }
    Ok(())
}

/// Finds what `args` asks about in `ruleset`.
fn subject_in<'r>(ruleset: &'r Ruleset, args: &OddsArgs) -> Result<Subject<'r>, String> {
    if let Some(text) = &args.dice {
        let expr = ruleset.parse_dice(text).map_err(|e| format!("error: {e}\n"))?;
        return dice_subject(String::new(), expr);
    }
    let Some(what) = &args.what else {
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
    if let Some(die) = expr.symbolic_faces() {
        return Err(format!(
            "error: `{expr}` has no total: die `{die}` has faces without a number\n"
        ));
    }
    Ok(Subject::Dice { name, expr })
}

fn dice_consts(ruleset: &Ruleset) -> Vec<&str> {
    ruleset
        .consts
        .values()
        .filter(|c| matches!(c.value, Value::Dice(_)))
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
    let dice: Vec<(&String, &servitor::value::DiceText)> = record
        .fields
        .iter()
        .filter_map(|(k, v)| match v {
            Value::Dice(d) => Some((k, d)),
            _ => None,
        })
        .collect();
    let fields: Vec<&str> = dice.iter().map(|(k, _)| k.as_str()).collect();
    let chosen = match field {
        Some(f) => dice.iter().find(|(k, _)| k.as_str() == f).ok_or_else(|| {
            let hint = did_you_mean(f, fields.iter().copied())
                .map(|h| format!("\n  help: {h}"))
                .unwrap_or_default();
            format!(
                "error: {kind} `{id}` has no dice field `{f}`{hint}\n  dice fields: {}\n",
                if fields.is_empty() {
                    "(none)".into()
                } else {
                    fields.join(", ")
                }
            )
        })?,
        None => match dice.as_slice() {
            [one] => one,
            [] => return Err(format!("error: {kind} `{id}` has no dice field\n")),
            _ => {
                return Err(format!(
                    "error: {kind} `{id}` has several dice fields: say which, e.g. {what}.{}\n",
                    fields[0]
                ));
            }
        },
    };
    dice_subject(format!("{kind}.{id}.{}", chosen.0), chosen.1.expr.clone())
}

fn compute(ruleset: &Ruleset, subject: &Subject, args: &OddsArgs) -> Result<Computed, String> {
    match subject {
        Subject::Dice { name, expr } => {
            if args.availability.times != 1 {
                return Err("error: --times is for tables; write the dice you want, e.g. --dice '3d6'\n".into());
            }
            // Costed before the work, like every distribution the loader checks.
            match expr.odds_cost() {
                Some((work, totals))
                    if work <= servitor::limits::MAX_ODDS_WORK && totals <= servitor::limits::MAX_ODDS_TOTALS => {}
                _ => {
                    return Err(format!(
                        "error: the exact odds of `{expr}` are past servitor's limits (`MAX_ODDS_WORK`, `MAX_ODDS_TOTALS`; see \"Limits\" in grammar/README.md): use fewer dice or dice with fewer faces\n"
                    ));
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
            })
        }
        Subject::Table(table) => {
            super::check_results(table, &args.availability)?;
            let times = args.availability.times;
            let odds = table_odds(&ruleset.tables, table, times, &args.availability.availability())
                .map_err(|e| format!("error: {e}"))?;
            let text = super::render::odds(table, &args.availability, &odds);
            let mut lines = text.lines().map(str::to_string);
            let title = lines.next().unwrap_or_default();
            let lines: Vec<String> = lines.take_while(|l| !l.starts_with("  ")).collect();
            Ok(Computed {
                title,
                lines,
                sections: vec![Section {
                    heading: None,
                    rows: odds
                        .into_iter()
                        .map(|(o, p)| Row {
                            label: o.label,
                            value: None,
                            p,
                        })
                        .collect(),
                }],
            })
        }
    }
}

fn percent(p: &BigRational) -> f64 {
    probability(p) * 100.0
}

/// A mean as `11` or `3.50 (7/2)`.
fn show_mean(mean: &BigRational) -> String {
    if mean.is_integer() {
        mean.to_string()
    } else {
        format!("{:.2} ({mean})", probability(mean))
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
            let _ = writeln!(out, "{h}");
        }
        let lw = section
            .rows
            .iter()
            .map(|r| r.label.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let fw = section
            .rows
            .iter()
            .map(|r| r.p.to_string().len())
            .max()
            .unwrap_or(0)
            .max(6);
        let numeric = section.numeric();
        if numeric {
            let _ = writeln!(
                out,
                "  {:>lw$}  {:>fw$}  {:>8}  {:>8}",
                "total", "chance", "", "at least"
            );
        }
        for r in &section.rows {
            let at_least = r
                .value
                .filter(|_| numeric)
                .map(|v| format!("  {:>6.2} %", percent(&section.at_least(v))))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:>lw$}  {:>fw$}  {:>6.2} %{at_least}",
                r.label,
                r.p.to_string(),
                percent(&r.p)
            );
        }
        if let Some(mean) = section.mean() {
            let _ = writeln!(out, "  mean {}", show_mean(&mean));
        }
    }
    out
}

fn difference(a: &BigRational, b: &BigRational) -> String {
    let d = percent(b) - percent(a);
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
    for (sa, sb) in a.sections.iter().zip(&b.sections) {
        if let Some(h) = &sa.heading {
            let _ = writeln!(out, "{h}");
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
                    percent(&la),
                    percent(&lb),
                    difference(&la, &lb)
                );
            }
            let _ = writeln!(out, "{line}");
        }
        if let (Some(ma), Some(mb)) = (sa.mean(), sb.mean()) {
            let d = probability(&mb) - probability(&ma);
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

fn fraction_json(p: &BigRational) -> serde_json::Value {
    serde_json::json!({
        "numerator": p.numer().to_u64(),
        "denominator": p.denom().to_u64(),
        "probability": probability(p),
    })
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
                    o["at_least"] = probability(&s.at_least(v)).into();
                }
                None => o["result"] = r.label.clone().into(),
            }
            o
        })
        .collect();
    let mut out = serde_json::json!({ "outcomes": outcomes });
    if let Some(h) = &s.heading {
        out["heading"] = h.clone().into();
    }
    if let Some(mean) = s.mean() {
        out["mean"] = probability(&mean).into();
    }
    out
}

fn json_one(subject: &Subject, c: &Computed) -> serde_json::Value {
    match subject {
        Subject::Table(table) => {
            // The table form as it always was: one object, its outcomes.
            let mut out = section_json(&c.sections[0]);
            out["table"] = table.id.clone().into();
            out["dice"] = table.dice.to_string().into();
            out
        }
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
    let sections: Vec<serde_json::Value> = a
        .sections
        .iter()
        .zip(&b.sections)
        .map(|(sa, sb)| {
            let rows: Vec<serde_json::Value> = paired(sa, sb)
                .into_iter()
                .map(|(label, value, pa, pb)| {
                    let mut row = serde_json::json!({
                        "label": label,
                        names[0].clone(): probability(&pa),
                        names[1].clone(): probability(&pb),
                        "difference": probability(&pb) - probability(&pa),
                    });
                    if let Some(v) = value {
                        row["value"] = v.into();
                    }
                    row
                })
                .collect();
            let mut out = serde_json::json!({ "rows": rows });
            if let Some(h) = &sa.heading {
                out["heading"] = h.clone().into();
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

pub fn probability(p: &BigRational) -> f64 {
    p.numer().to_f64().unwrap_or(0.0) / p.denom().to_f64().unwrap_or(1.0)
}
