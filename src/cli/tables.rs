//! `servitor tables <package> [item]`: everything a package declares, by kind; or one item
//! in full (`describe`). `--entry-points` lists each game's set-up, its phases and the entry
//! points it declares (`entry` lines: the functions a scenario or a variant may call).

use clap::Args;
use servitor::Ruleset;

#[derive(Args)]
pub struct TablesArgs {
    /// Package folder or bare name
    package: String,
    /// Items to show in full, with every text: an id, or kind.id (e.g. `arrivals`,
    /// `weapon.sword`, `mission.first`)
    #[arg(value_name = "ITEM")]
    items: Vec<String>,
    /// Print JSON grouped by kind
    #[arg(long)]
    json: bool,
    /// List the functions a scenario (`// call:`) or a variant may call on their own: each
    /// game's set-up, its phases and the entry points it declares (`entry FUNCTION "text"`)
    #[arg(long)]
    entry_points: bool,
}

pub fn run(args: TablesArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
    if args.entry_points {
        super::emit(&entry_points(r));
        return Ok(());
    }
    if !args.items.is_empty() {
        let mut found = Vec::new();
        for name in &args.items {
            found.extend(super::describe::find(r, name).map_err(super::usage)?);
        }
        if args.json {
            let items: Vec<_> = found.iter().map(|(k, id)| super::describe::json(r, k, id)).collect();
            super::emit_json(&serde_json::json!({ "package": r.name(), "items": items }));
        } else {
            let texts: Vec<String> = found.iter().map(|(k, id)| super::describe::text(r, k, id)).collect();
            super::emit(&texts.join("\n"));
        }
        return Ok(());
    }
    if args.json {
        super::emit_json(&json(r));
    } else {
        super::emit(&super::render::listing(r));
    }
    Ok(())
}

fn json(r: &Ruleset) -> serde_json::Value {
    use serde_json::json;
    let tables: Vec<_> = r
        .tables
        .values()
        .map(|t| {
            json!({
                "id": t.id, "title": t.label, "dice": t.dice.to_string(),
                "unavailable": t.unavailable.to_string(), "duplicates": t.duplicates.to_string(),
                "results": t.results(), "source": t.source,
            })
        })
        .collect();
    let dice: Vec<_> = r
        .dice
        .values()
        .map(|d| json!({ "id": d.id, "title": d.label, "faces": d.faces.iter().map(|f| f.to_string()).collect::<Vec<_>>(), "source": d.source }))
        .collect();
    let records: serde_json::Map<String, serde_json::Value> = r
        .records
        .iter()
        .map(|(kind, recs)| {
            let list: Vec<_> = recs
                .values()
                .map(|rec| json!({ "id": rec.id, "title": rec.label, "fields": rec.fields, "source": rec.source, "provisional": rec.provisional }))
                .collect();
            (kind.clone(), serde_json::Value::Array(list))
        })
        .collect();
    let pools: Vec<_> = r
        .pools
        .values()
        .map(|p| json!({ "id": p.id, "kind": p.kind, "title": p.label, "entries": p.entries, "source": p.source }))
        .collect();
    let consts: serde_json::Map<String, serde_json::Value> = r
        .consts
        .values()
        .map(|c| (c.id.clone(), serde_json::to_value(&c.value).unwrap_or_default()))
        .collect();
    let procedures: Vec<_> = r
        .procedures
        .values()
        .map(|p| {
            let args: Vec<_> = p
                .args
                .iter()
                .map(|a| json!({ "name": a.name, "default": a.default, "help": a.help, "choices": r.arg_choices(a) }))
                .collect();
            json!({ "id": p.id, "title": p.label, "args": args, "source": p.source })
        })
        .collect();
    let boards: Vec<_> = r
        .boards
        .values()
        .map(|b| json!({ "id": b.id, "title": b.label, "width": b.grid.width, "height": b.grid.height, "source": b.source }))
        .collect();
    let missions: Vec<_> = r
        .missions
        .values()
        .map(|m| json!({ "id": m.id, "title": m.label, "width": m.grid.width, "height": m.grid.height, "boards": m.grid.sections, "source": m.source }))
        .collect();
    let battlefields: Vec<_> = r
        .battlefields
        .values()
        .map(|b| json!({ "id": b.id, "title": b.label, "width": b.width, "height": b.height, "source": b.source }))
        .collect();
    let games: Vec<_> = r
        .games
        .values()
        .map(|g| json!({ "id": g.id, "title": g.label, "sides": g.sides, "source": g.source }))
        .collect();
    let campaigns: Vec<_> = r
        .campaigns
        .values()
        .map(|c| json!({ "id": c.id, "title": c.label, "game": c.game, "missions": c.missions, "source": c.source }))
        .collect();
    json!({
        "package": r.name(),
        "extends": r.packages.iter().rev().skip(1).map(|p| p.name.clone()).collect::<Vec<_>>(),
        "tables": tables, "dice": dice, "records": records, "pools": pools,
        "constants": consts, "procedures": procedures,
        "boards": boards, "missions": missions, "battlefields": battlefields, "games": games,
        "campaigns": campaigns,
    })
}

/// Each game's set-up, phases and declared entry points, with their parameters as the
/// package's scripts name them.
fn entry_points(r: &Ruleset) -> String {
    // Every overload, fewest parameters first (the scripts' own order is not kept).
    let signature = |function: &str| -> String {
        let mut forms: Vec<Vec<String>> = r
            .scripts
            .iter()
            .flat_map(|s| s.ast.iter_functions())
            .filter(|f| f.name == function)
            .map(|f| f.params.iter().map(|p| p.to_string()).collect())
            .collect();
        forms.sort_by_key(Vec::len);
        forms.dedup();
        if forms.is_empty() {
            return function.to_string();
        }
        let forms: Vec<String> = forms.iter().map(|p| format!("{function}({})", p.join(", "))).collect();
        forms.join(" or ")
    };
    let mut out = String::new();
    for g in r.games.values() {
        out.push_str(&format!(
            "Entry points of game `{}` (a scenario's `// call:` or a script may call each):\n",
            g.id
        ));
        let mut rows: Vec<(String, String)> = Vec::new();
        if let Some(setup) = &g.setup {
            rows.push((signature(setup), "the set-up (`// from: setup` plays it first)".into()));
        }
        for p in &g.phases {
            let first = if p.first_turn { ", turn 1 only" } else { "" };
            rows.push((
                signature(&p.function),
                format!("the phase `{}` ({}{first})", p.id, p.side),
            ));
        }
        for e in &g.entries {
            rows.push((signature(&e.function), e.text.clone()));
        }
        let width = rows.iter().map(|(s, _)| s.chars().count()).max().unwrap_or(0);
        for (sig, text) in rows {
            out.push_str(&format!("  {sig:<width$}  {text}\n"));
        }
        if g.entries.is_empty() {
            out.push_str("  (no `entry` declared: only the set-up and the phases)\n");
        }
    }
    if r.games.is_empty() {
        out.push_str("no game in this package: nothing to call\n");
    }
    out
}
