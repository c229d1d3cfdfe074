//! `servitor tables <package> [item]`: everything a package declares, by kind; or one item
//! in full (`describe`).

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
}

pub fn run(args: TablesArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
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
