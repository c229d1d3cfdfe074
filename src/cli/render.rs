//! Text rendering of rolls, odds, procedure logs and listings: what a user reads at the table.

use super::AvailabilityArgs;
use num_rational::BigRational;
use servitor::Ruleset;
use servitor::ruleset::Value;
use servitor::script::{RunOutput, Step};
use servitor::tables::Table;
use servitor::tables::odds::Outcome;
use servitor::tables::roll::TableRoll;
use std::fmt::Write;

/// One table roll with its follow-ups, indented by `depth`.
pub fn table_roll(roll: &TableRoll, depth: usize) -> String {
    let pad = "  ".repeat(depth);
    let mut out = String::new();
    let _ = writeln!(out, "{pad}{} — {}", roll.table, roll.title);
    for (i, dice) in roll.rolls.iter().enumerate() {
        let word = if i == 0 { "roll" } else { "reroll" };
        let _ = writeln!(out, "{pad}  {word} {dice}");
    }
    for note in &roll.notes {
        let _ = writeln!(out, "{pad}  {note}");
    }
    match &roll.outcome {
        None => {
            let _ = writeln!(out, "{pad}  result: nothing");
        }
        Some(o) => {
            let label = o.label.as_deref().map(|l| format!(" \"{l}\"")).unwrap_or_default();
            let _ = writeln!(out, "{pad}  row {} → {}{label}", o.row, o.result);
            if let Some(amount) = &o.amount {
                let _ = writeln!(out, "{pad}  amount {amount}");
            }
            if let Some(text) = &o.text {
                let _ = writeln!(out, "{pad}  {text}");
            }
            for (k, v) in &o.fields {
                let _ = writeln!(out, "{pad}  {k}: {}", v.show());
            }
            for follow in &o.follow {
                out.push_str(&table_roll(follow, depth + 1));
            }
            let amount = o.amount.as_ref().map(|a| format!(" x{}", a.total)).unwrap_or_default();
            let _ = writeln!(out, "{pad}  result: {}{amount}", o.result);
        }
    }
    let source = roll
        .outcome
        .as_ref()
        .and_then(|o| o.source.as_ref())
        .or(roll.source.as_ref());
    if let Some(source) = source {
        let _ = writeln!(out, "{pad}  source: {source}");
    }
    out
}

pub fn odds(table: &Table, args: &AvailabilityArgs, odds: &[(Outcome, BigRational)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", table.id, table.title());
    let mut line = format!("dice {}", table.dice);
    if args.times > 1 {
        let _ = write!(
            line,
            " · {} rolls in a series (duplicates: {})",
            args.times, table.duplicates
        );
    }
    if !args.unavailable.is_empty() || !args.available.is_empty() {
        let _ = write!(line, " · unavailable: {}", table.unavailable);
        if !args.unavailable.is_empty() {
            let _ = write!(line, " · ruled out: {}", args.unavailable.join(", "));
        }
        if !args.available.is_empty() {
            let _ = write!(line, " · only: {}", args.available.join(", "));
        }
    }
    let _ = writeln!(out, "{line}");
    if let Some(source) = &table.source {
        let _ = writeln!(out, "source: {source}");
    }
    let width = odds.iter().map(|(o, _)| o.label.chars().count()).max().unwrap_or(0);
    let fwidth = odds.iter().map(|(_, p)| p.to_string().len()).max().unwrap_or(0);
    for (o, p) in odds {
        let percent = super::odds::probability(p) * 100.0;
        let _ = writeln!(
            out,
            "  {:<width$}  {:>fwidth$}  {:>6.2} %",
            o.label,
            p.to_string(),
            percent
        );
    }
    out
}

pub fn run_output(ruleset: &Ruleset, output: &RunOutput) -> String {
    let mut out = String::new();
    let title = ruleset.procedures.get(&output.procedure).and_then(|p| p.label.clone());
    match title.as_deref() {
        Some(t) => writeln!(out, "{} — {t} (seed {})", output.procedure, output.seed),
        None => writeln!(out, "{} (seed {})", output.procedure, output.seed),
    }
    .ok();
    if !output.args.is_empty() {
        let args: Vec<String> = output.args.iter().map(|(k, v)| format!("{k}={}", v.show())).collect();
        let _ = writeln!(out, "args: {}", args.join(" "));
    }
    for step in &output.steps {
        match step {
            Step::Roll { roll, why, piece } => {
                let why = roll_why(why.as_deref(), piece.as_deref());
                let _ = writeln!(out, "• roll {roll}{why}");
            }
            Step::Table(roll) => {
                let text = table_roll(roll, 0);
                for (i, line) in text.lines().enumerate() {
                    let _ = writeln!(out, "{}{line}", if i == 0 { "• " } else { "  " });
                }
            }
            Step::Note { text, source } | Step::Read { text, source, .. } => {
                let source = source.as_deref().map(|s| format!("  [{s}]")).unwrap_or_default();
                let _ = writeln!(out, "• {text}{source}");
            }
        }
    }
    match &output.result {
        serde_json::Value::Null => {}
        serde_json::Value::Object(map) if !map.is_empty() => {
            let _ = writeln!(out, "result:");
            for (key, value) in map {
                let _ = writeln!(out, "  {key}: {}", in_words(value));
            }
        }
        value => {
            let _ = writeln!(out, "result: {}", in_words(value));
        }
    }
    out
}

/// A result in words, as the sandbox puts lists and maps into text: texts bare, yes / no,
/// `none` for nothing, lists as `a, b`, maps as `key value, key value`; a list or map inside
/// another in brackets. `--json` keeps the JSON.
pub fn in_words(value: &serde_json::Value) -> String {
    use serde_json::Value as J;
    let inner = |v: &J| match v {
        J::Array(items) if !items.is_empty() => format!("[{}]", in_words(v)),
        J::Object(map) if !map.is_empty() => format!("({})", in_words(v)),
        _ => in_words(v),
    };
    match value {
        J::Null => "none".into(),
        J::Bool(true) => "yes".into(),
        J::Bool(false) => "no".into(),
        J::Number(n) => n.to_string(),
        J::String(s) => s.clone(),
        J::Array(items) if items.is_empty() => "none".into(),
        J::Array(items) => items.iter().map(inner).collect::<Vec<_>>().join(", "),
        J::Object(map) if map.is_empty() => "none".into(),
        J::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k} {}", inner(v)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

pub fn listing(r: &Ruleset) -> String {
    let mut out = String::new();
    let info = r.info();
    let chain: Vec<&str> = r.packages.iter().map(|p| p.name.as_str()).collect();
    let _ = writeln!(out, "{} — {}", info.name, info.title.as_deref().unwrap_or(""));
    if chain.len() > 1 {
        let _ = writeln!(out, "extends: {}", chain[..chain.len() - 1].join(" → "));
    }
    if !r.tables.is_empty() {
        let _ = writeln!(out, "\ntables:");
        let w = r.tables.keys().map(String::len).max().unwrap_or(0);
        for t in r.tables.values() {
            let _ = writeln!(out, "  {:<w$}  {:<8} {}", t.id, t.dice.to_string(), t.title());
        }
    }
    if !r.dice.is_empty() {
        let _ = writeln!(out, "\ndice:");
        for d in r.dice.values() {
            let faces: Vec<String> = d.faces.iter().map(|f| f.to_string()).collect();
            let _ = writeln!(
                out,
                "  {}  [{}]  {}",
                d.id,
                faces.join(", "),
                d.label.as_deref().unwrap_or("")
            );
        }
    }
    if !r.boards.is_empty() {
        let _ = writeln!(out, "\nboards:");
        let w = r.boards.keys().map(String::len).max().unwrap_or(0);
        for b in r.boards.values() {
            let size = format!("{} × {}", b.grid.width, b.grid.height);
            let _ = writeln!(out, "  {:<w$}  {size:<9} {}", b.id, b.label.as_deref().unwrap_or(""));
        }
    }
    // Missions with a map, or records of `schema mission`, or both: one list.
    let mission_records = r.records.get("mission");
    let mut missions: Vec<&str> = r.missions.keys().map(String::as_str).collect();
    for id in mission_records.into_iter().flat_map(|m| m.keys()) {
        if !missions.contains(&id.as_str()) {
            missions.push(id);
        }
    }
    if !missions.is_empty() {
        let _ = writeln!(out, "\nmissions:");
        let w = missions.iter().map(|m| m.len()).max().unwrap_or(0);
        for id in missions {
            let map = r.missions.get(id);
            let size = map.map_or("(no map)".to_string(), |m| {
                format!("{} × {}", m.grid.width, m.grid.height)
            });
            let record = mission_records.and_then(|m| m.get(id));
            let label = map
                .and_then(|m| m.label.as_deref())
                .or(record.and_then(|r| r.label.as_deref()))
                .unwrap_or("");
            let fields: Vec<String> = record
                .map(|rec| rec.fields.iter().map(|(k, v)| format!("{k} {}", short(v))).collect())
                .unwrap_or_default();
            let fields = if fields.is_empty() {
                String::new()
            } else {
                format!("  {}", fields.join(", "))
            };
            let line = format!("  {id:<w$}  {size:<9} {label}{fields}");
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    if !r.battlefields.is_empty() {
        let _ = writeln!(out, "\nbattlefields:");
        let w = r.battlefields.keys().map(String::len).max().unwrap_or(0);
        for b in r.battlefields.values() {
            let size = format!("{} × {} in", b.width, b.height);
            let _ = writeln!(out, "  {:<w$}  {size:<12} {}", b.id, b.label.as_deref().unwrap_or(""));
        }
    }
    if !r.games.is_empty() {
        let _ = writeln!(out, "\ngames:");
        for g in r.games.values() {
            let _ = writeln!(
                out,
                "  {}  {} (sides {})",
                g.id,
                g.label.as_deref().unwrap_or(""),
                g.sides.join(", ")
            );
        }
    }
    if !r.campaigns.is_empty() {
        let _ = writeln!(out, "\ncampaigns:");
        for c in r.campaigns.values() {
            let _ = writeln!(
                out,
                "  {}  {} ({} missions)",
                c.id,
                c.label.as_deref().unwrap_or(""),
                c.missions.len()
            );
        }
    }
    for (kind, records) in r.records.iter().filter(|(kind, _)| kind.as_str() != "mission") {
        let _ = writeln!(out, "\n{kind}:");
        for rec in records.values() {
            let fields: Vec<String> = rec.fields.iter().map(|(k, v)| format!("{k} {}", short(v))).collect();
            let mark = if rec.provisional.is_some() {
                "  (provisional)"
            } else {
                ""
            };
            let _ = writeln!(out, "  {}  {}{mark}", rec.id, fields.join(", "));
        }
    }
    if !r.pools.is_empty() {
        let _ = writeln!(out, "\npools and decks:");
        for p in r.pools.values() {
            let entries: Vec<String> = p.entries.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let _ = writeln!(out, "  {} ({})  {}", p.id, p.kind, entries.join(", "));
        }
    }
    if !r.consts.is_empty() {
        let _ = writeln!(out, "\nconstants:");
        for c in r.consts.values() {
            let _ = writeln!(out, "  {} = {}", c.id, c.value.show());
        }
    }
    if !r.procedures.is_empty() {
        let _ = writeln!(out, "\nprocedures:");
        for p in r.procedures.values() {
            let args: Vec<String> = p
                .args
                .iter()
                .map(|a| format!("--arg {}={}", a.name, short(&a.default)))
                .collect();
            let _ = writeln!(
                out,
                "  {}  {}  {}",
                p.id,
                p.label.as_deref().unwrap_or(""),
                args.join(" ")
            );
        }
    }
    let _ = writeln!(
        out,
        "\n`servitor tables {} ID` shows one item in full, with its text (ID, or kind.ID for a record).",
        r.name()
    );
    out
}

/// A value shortened for one-line listings.
fn short(v: &Value) -> String {
    let s = v.show();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(39).collect::<String>())
    } else {
        s
    }
}

/// What a roll is for, as the log says it after the dice: ` (raider-2, to hit)`.
pub fn roll_why(why: Option<&str>, piece: Option<&str>) -> String {
    let parts: Vec<&str> = [piece, why].into_iter().flatten().collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}
