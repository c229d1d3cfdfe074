//! `servitor tables <package> <item>`: one item of a package in full — a table's rows, a
//! record's fields, a procedure's args — with every `text`, `label` and `source` the package
//! wrote, and where it was written (and where a variant's `override` changed it).

use serde_json::json;
use servitor::Ruleset;
use servitor::diagnostic::did_you_mean;
use servitor::ruleset::Value;
use std::fmt::Write;

/// The kinds every package may have, besides its record kinds.
const ENGINE_KINDS: [&str; 11] = [
    "table",
    "die",
    "pool",
    "deck",
    "const",
    "procedure",
    "board",
    "mission",
    "battlefield",
    "game",
    "campaign",
];

/// Every item `name` names: `kind.id`, or a bare id (every kind that has it), as
/// (kind, id) pairs. Nothing found is an error with "did you mean" and what exists.
pub fn find(r: &Ruleset, name: &str) -> Result<Vec<(String, String)>, String> {
    let mut kinds: Vec<String> = ENGINE_KINDS.iter().map(|k| k.to_string()).collect();
    for kind in r.records.keys() {
        if !kinds.contains(kind) {
            kinds.push(kind.clone());
        }
    }
    // A mission is a map, a record (`schema mission`), or both.
    let ids = |kind: &str| -> Vec<&str> {
        let mut ids = r.ids_of(kind).unwrap_or_default();
        for id in r.records.get(kind).into_iter().flat_map(|recs| recs.keys()) {
            if !ids.contains(&id.as_str()) {
                ids.push(id);
            }
        }
        ids
    };
    let has = |kind: &str, id: &str| ids(kind).contains(&id);
    if let Some((kind, id)) = name.split_once('.')
        && kinds.iter().any(|k| k == kind)
    {
        if has(kind, id) {
            return Ok(vec![(kind.to_string(), id.to_string())]);
        }
        let ids = ids(kind);
        let hint = did_you_mean(id, ids.iter().copied())
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        return Err(format!(
            "error: no {kind} `{id}` in {}{hint}\n  {kind} ids: {}\n",
            r.name(),
            if ids.is_empty() {
                "(none)".to_string()
            } else {
                ids.join(", ")
            }
        ));
    }
    let found: Vec<(String, String)> = kinds
        .iter()
        .filter(|k| has(k, name))
        .map(|k| (k.clone(), name.to_string()))
        .collect();
    if !found.is_empty() {
        return Ok(found);
    }
    let mut every: Vec<String> = Vec::new();
    for kind in &kinds {
        for id in ids(kind) {
            every.push(id.to_string());
            every.push(format!("{kind}.{id}"));
        }
    }
    let hint = did_you_mean(name, every.iter().map(String::as_str))
        .map(|h| format!("\n  help: {h}"))
        .unwrap_or_default();
    Err(format!(
        "error: nothing called `{name}` in {}{hint}\n  `servitor tables {}` lists what it has; name an item by its id, or as kind.id\n",
        r.name(),
        r.name()
    ))
}

/// Wraps `text` to lines of at most `width` characters (a longer word stands alone), each
/// starting with `pad`.
fn wrap(text: &str, pad: &str, width: usize) -> String {
    let mut out = String::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && pad.len() + line.chars().count() + 1 + word.chars().count() > width {
                let _ = writeln!(out, "{pad}{line}");
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        let _ = writeln!(out, "{pad}{line}");
    }
    out
}

const WIDTH: usize = 92;

/// The lines every item may have: its source, where it is written, and its text.
fn about(out: &mut String, r: &Ruleset, span: servitor::source::Span, source: Option<&str>, text: Option<&str>) {
    about_item(out, r, span, source, text, None);
}

/// [`about`], and for an item a variant changed (`(kind, id)`), where it did.
fn about_item(
    out: &mut String,
    r: &Ruleset,
    span: servitor::source::Span,
    source: Option<&str>,
    text: Option<&str>,
    item: Option<(&str, &str)>,
) {
    if let Some(s) = source {
        let _ = writeln!(out, "  source: {s}");
    }
    let _ = writeln!(out, "  written at {}", r.sources.locate(span));
    if let Some((kind, id)) = item {
        changes(out, r, kind, id);
    }
    if let Some(t) = text {
        let _ = writeln!(out);
        out.push_str(&wrap(t, "  ", WIDTH));
    }
}

/// Where a variant's `override` changed the item, one line per file: "changed at FILE:L:C
/// (move, notes)".
fn changes(out: &mut String, r: &Ruleset, kind: &str, id: &str) {
    let mut by_file: Vec<(servitor::source::Span, Vec<&str>)> = Vec::new();
    for o in r.overrides.iter().filter(|o| o.kind == kind && o.id == id) {
        let entry = o.entry.as_deref().unwrap_or("value");
        match by_file.iter_mut().find(|(span, _)| span.file == o.span.file) {
            Some((_, entries)) => {
                if !entries.contains(&entry) {
                    entries.push(entry);
                }
            }
            None => by_file.push((o.span, vec![entry])),
        }
    }
    for (span, entries) in by_file {
        let _ = writeln!(
            out,
            "  changed at {} ({})",
            r.sources.locate(span),
            servitor::escape::one_line(&entries.join(", "))
        );
    }
}

/// Where variants changed the item, one place per file (for `--json`).
fn changed_at(r: &Ruleset, kind: &str, id: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut out = Vec::new();
    for o in r.overrides.iter().filter(|o| o.kind == kind && o.id == id) {
        if !files.contains(&o.span.file) {
            files.push(o.span.file);
            out.push(r.sources.locate(o.span));
        }
    }
    out
}

fn heading(kind: &str, id: &str, label: Option<&str>) -> String {
    match label {
        Some(l) => format!("{kind} {id} — {l}\n"),
        None => format!("{kind} {id}\n"),
    }
}

/// One item in full, as text.
pub fn text(r: &Ruleset, kind: &str, id: &str) -> String {
    let mut out = String::new();
    match kind {
        "table" => {
            let t = &r.tables[id];
            out.push_str(&heading("table", id, t.label.as_deref()));
            let _ = writeln!(
                out,
                "  dice {} · unavailable {} · duplicates {}",
                t.dice, t.unavailable, t.duplicates
            );
            about_item(
                &mut out,
                r,
                t.span,
                t.source.as_deref(),
                t.text.as_deref(),
                Some(("table", id)),
            );
            let _ = writeln!(out);
            let kw = t.rows.iter().map(|row| row.key_text().len()).max().unwrap_or(0).max(4);
            let rw = t
                .rows
                .iter()
                .map(|row| row.result.chars().count())
                .max()
                .unwrap_or(0)
                .max(6);
            let _ = writeln!(out, "  {:<kw$}  {:<rw$}  label", "roll", "result");
            for row in &t.rows {
                let line = format!(
                    "  {:<kw$}  {:<rw$}  {}",
                    row.key_text(),
                    row.result,
                    row.label.as_deref().unwrap_or("")
                );
                let _ = writeln!(out, "{}", line.trim_end());
                let pad = " ".repeat(kw + rw + 6);
                if let Some(a) = &row.amount {
                    let _ = writeln!(out, "{pad}amount {a}");
                }
                for then in &row.then {
                    match &then.times {
                        Some(times) => {
                            let _ = writeln!(out, "{pad}then roll {} {times} times", then.table);
                        }
                        None => {
                            let _ = writeln!(out, "{pad}then roll {}", then.table);
                        }
                    }
                }
                for (k, v) in &row.fields {
                    let _ = writeln!(out, "{pad}{k}: {}", v.show());
                }
                if let Some(s) = &row.source {
                    let _ = writeln!(out, "{pad}source: {s}");
                }
                if let Some(text) = &row.text {
                    out.push_str(&wrap(text, &pad, WIDTH));
                }
            }
        }
        "die" => {
            let d = &r.dice[id];
            out.push_str(&heading("die", id, d.label.as_deref()));
            let faces: Vec<String> = d.faces.iter().map(|f| f.to_string()).collect();
            let _ = writeln!(out, "  faces [{}]", faces.join(", "));
            about(&mut out, r, d.span, d.source.as_deref(), d.text.as_deref());
        }
        "pool" | "deck" => {
            let p = &r.pools[id];
            out.push_str(&heading(&p.kind, id, p.label.as_deref()));
            for (entry, count) in &p.entries {
                let _ = writeln!(out, "  {entry} {count}");
            }
            if let Some(why) = &p.provisional {
                let _ = writeln!(out, "  provisional: {why}");
            }
            about(&mut out, r, p.span, p.source.as_deref(), p.text.as_deref());
        }
        "const" => {
            let c = &r.consts[id];
            out.push_str(&heading("const", id, None));
            let _ = writeln!(out, "  = {}", c.value.show());
            about(&mut out, r, c.span, None, None);
        }
        "procedure" => {
            let p = &r.procedures[id];
            out.push_str(&heading("procedure", id, p.label.as_deref()));
            let _ = writeln!(out, "  runs fn {}", p.function);
            about(&mut out, r, p.span, p.source.as_deref(), p.text.as_deref());
            if !p.args.is_empty() {
                let _ = writeln!(out, "\n  args:");
            }
            for a in &p.args {
                let _ = writeln!(out, "    --arg {}={}", a.name, a.default.show());
                if let Some(h) = &a.help {
                    out.push_str(&wrap(h, "        ", WIDTH));
                }
                if let Some(choices) = r.arg_choices(a) {
                    let choices: Vec<String> = choices.iter().map(Value::show).collect();
                    out.push_str(&wrap(&format!("one of: {}", choices.join(", ")), "        ", WIDTH));
                }
            }
            let _ = writeln!(out, "\n  servitor run {} {id}", r.name());
        }
        "board" => {
            let b = &r.boards[id];
            out.push_str(&heading("board", id, b.label.as_deref()));
            let _ = writeln!(out, "  {} × {} squares", b.grid.width, b.grid.height);
            about(&mut out, r, b.span, b.source.as_deref(), b.text.as_deref());
            let _ = writeln!(out, "\n  servitor show {} --board {id}", r.name());
        }
        "mission" if r.missions.contains_key(id) => {
            let m = &r.missions[id];
            out.push_str(&heading("mission", id, m.label.as_deref()));
            let _ = writeln!(
                out,
                "  {} × {} squares · boards {}",
                m.grid.width,
                m.grid.height,
                m.grid.sections.join(", ")
            );
            for (k, v) in &m.fields {
                let _ = writeln!(out, "  {k}: {}", v.show());
            }
            about(&mut out, r, m.span, m.source.as_deref(), m.text.as_deref());
            let _ = writeln!(out, "\n  servitor show {} --mission {id}", r.name());
        }
        "battlefield" => {
            let b = &r.battlefields[id];
            out.push_str(&heading("battlefield", id, b.label.as_deref()));
            let _ = writeln!(out, "  {} × {} inches", b.width, b.height);
            let names = |polygons: &[servitor::board::field::Polygon]| {
                polygons.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", ")
            };
            if !b.zones.is_empty() {
                let _ = writeln!(out, "  zones: {}", names(&b.zones));
            }
            if !b.terrain.is_empty() {
                let _ = writeln!(out, "  terrain: {}", names(&b.terrain));
            }
            if !b.markers.is_empty() {
                let markers: Vec<&str> = b.markers.iter().map(|(n, _)| n.as_str()).collect();
                let _ = writeln!(out, "  markers: {}", markers.join(", "));
            }
            about(&mut out, r, b.span, b.source.as_deref(), b.text.as_deref());
            let _ = writeln!(out, "\n  servitor show {} --battlefield {id}", r.name());
        }
        "game" => {
            let g = &r.games[id];
            out.push_str(&heading("game", id, g.label.as_deref()));
            let _ = writeln!(out, "  sides: {}", g.sides.join(", "));
            for phase in &g.phases {
                let once = if phase.first_turn { " (turn 1 only)" } else { "" };
                let _ = writeln!(out, "  phase {} {} → fn {}{once}", phase.side, phase.id, phase.function);
            }
            for (name, option) in &g.options {
                let choices = r
                    .arg_choices(option)
                    .map(|c| {
                        format!(
                            "  (one of {})",
                            c.iter().map(|v| v.show()).collect::<Vec<_>>().join(", ")
                        )
                    })
                    .unwrap_or_default();
                let _ = writeln!(out, "  --set {name}={}{choices}", option.default.show());
                if let Some(h) = &option.help {
                    out.push_str(&wrap(h, "      ", WIDTH));
                }
            }
            about(&mut out, r, g.span, g.source.as_deref(), g.text.as_deref());
        }
        "campaign" => {
            let c = &r.campaigns[id];
            out.push_str(&heading("campaign", id, c.label.as_deref()));
            if let Some(game) = &c.game {
                let _ = writeln!(out, "  game: {game}");
            }
            let _ = writeln!(out, "  missions in order: {}", c.missions.join(", "));
            for (hook, f) in [("before", &c.before), ("after", &c.after), ("end", &c.end)] {
                if let Some(f) = f {
                    let _ = writeln!(out, "  {hook} → fn {f}");
                }
            }
            about(&mut out, r, c.span, c.source.as_deref(), c.text.as_deref());
        }
        record_kind => {
            // A record (a mission without a map is one too).
            let rec = &r.records[record_kind][id];
            out.push_str(&heading(record_kind, id, rec.label.as_deref()));
            let kw = rec.fields.keys().map(String::len).max().unwrap_or(0);
            for (k, v) in &rec.fields {
                let value = v.show();
                if kw + value.chars().count() + 4 <= WIDTH {
                    let _ = writeln!(out, "  {k:<kw$}  {value}");
                } else {
                    let _ = writeln!(out, "  {k}:");
                    let shown = match v {
                        Value::Text(t) => t.clone(),
                        other => other.show(),
                    };
                    out.push_str(&wrap(&shown, "      ", WIDTH));
                }
            }
            if let Some(why) = &rec.provisional {
                let _ = writeln!(out, "  provisional: {why}");
            }
            about_item(
                &mut out,
                r,
                rec.span,
                rec.source.as_deref(),
                rec.text.as_deref(),
                Some((&rec.kind, id)),
            );
        }
    }
    out
}

/// One item in full, as JSON.
pub fn json(r: &Ruleset, kind: &str, id: &str) -> serde_json::Value {
    let at = |span| r.sources.locate(span);
    match kind {
        "table" => {
            let t = &r.tables[id];
            let rows: Vec<_> = t
                .rows
                .iter()
                .map(|row| {
                    let then: Vec<_> = row
                        .then
                        .iter()
                        .map(|f| json!({ "table": f.table, "times": f.times.as_ref().map(|t| t.to_string()) }))
                        .collect();
                    json!({
                        "low": row.lo, "high": row.hi, "result": row.result, "label": row.label,
                        "text": row.text, "amount": row.amount.as_ref().map(|a| a.to_string()),
                        "then": then, "fields": row.fields, "source": row.source,
                    })
                })
                .collect();
            json!({
                "kind": "table", "id": id, "title": t.label, "dice": t.dice.to_string(),
                "unavailable": t.unavailable.to_string(), "duplicates": t.duplicates.to_string(),
                "source": t.source, "text": t.text, "at": at(t.span), "changed_at": changed_at(r, "table", id), "rows": rows,
            })
        }
        "die" => {
            let d = &r.dice[id];
            let faces: Vec<String> = d.faces.iter().map(|f| f.to_string()).collect();
            json!({ "kind": "die", "id": id, "title": d.label, "faces": faces, "source": d.source, "text": d.text, "at": at(d.span) })
        }
        "pool" | "deck" => {
            let p = &r.pools[id];
            json!({ "kind": p.kind, "id": id, "title": p.label, "entries": p.entries, "source": p.source, "text": p.text, "provisional": p.provisional, "at": at(p.span) })
        }
        "const" => {
            let c = &r.consts[id];
            json!({ "kind": "const", "id": id, "value": c.value, "at": at(c.span) })
        }
        "procedure" => {
            let p = &r.procedures[id];
            let args: Vec<_> = p
                .args
                .iter()
                .map(|a| json!({ "name": a.name, "default": a.default, "help": a.help, "choices": r.arg_choices(a) }))
                .collect();
            json!({ "kind": "procedure", "id": id, "title": p.label, "function": p.function, "args": args, "source": p.source, "text": p.text, "at": at(p.span) })
        }
        "board" => {
            let b = &r.boards[id];
            json!({ "kind": "board", "id": id, "title": b.label, "width": b.grid.width, "height": b.grid.height, "source": b.source, "text": b.text, "at": at(b.span) })
        }
        "mission" if r.missions.contains_key(id) => {
            let m = &r.missions[id];
            json!({ "kind": "mission", "id": id, "title": m.label, "width": m.grid.width, "height": m.grid.height, "boards": m.grid.sections, "fields": m.fields, "source": m.source, "text": m.text, "at": at(m.span) })
        }
        "battlefield" => {
            let b = &r.battlefields[id];
            let names = |polygons: &[servitor::board::field::Polygon]| {
                polygons.iter().map(|p| p.name.clone()).collect::<Vec<_>>()
            };
            let markers: Vec<&str> = b.markers.iter().map(|(n, _)| n.as_str()).collect();
            json!({ "kind": "battlefield", "id": id, "title": b.label, "width": b.width, "height": b.height, "zones": names(&b.zones), "terrain": names(&b.terrain), "markers": markers, "source": b.source, "text": b.text, "at": at(b.span) })
        }
        "game" => {
            let g = &r.games[id];
            let phases: Vec<_> = g
                .phases
                .iter()
                .map(|p| {
                    let mut j = json!({ "side": p.side, "id": p.id, "function": p.function });
                    if p.first_turn {
                        j["first_turn"] = json!(true);
                    }
                    j
                })
                .collect();
            let options: serde_json::Map<String, serde_json::Value> = g
                .options
                .iter()
                .map(|(k, o)| {
                    (
                        k.clone(),
                        json!({ "default": o.default, "help": o.help, "choices": r.arg_choices(o) }),
                    )
                })
                .collect();
            json!({ "kind": "game", "id": id, "title": g.label, "sides": g.sides, "phases": phases, "options": options, "source": g.source, "text": g.text, "at": at(g.span) })
        }
        "campaign" => {
            let c = &r.campaigns[id];
            json!({ "kind": "campaign", "id": id, "title": c.label, "game": c.game, "missions": c.missions, "before": c.before, "after": c.after, "end": c.end, "source": c.source, "text": c.text, "at": at(c.span) })
        }
        record_kind => {
            let rec = &r.records[record_kind][id];
            json!({ "kind": record_kind, "id": id, "title": rec.label, "fields": rec.fields, "source": rec.source, "text": rec.text, "provisional": rec.provisional, "at": at(rec.span), "changed_at": changed_at(r, record_kind, id) })
        }
    }
}
