//! `servitor show <package> --mission <id>`: draw a mission (or one board) in the terminal,
//! and with `--svg FILE` as an SVG picture.

use clap::Args;
use servitor::board::render::{self, Overlay};
use servitor::board::{Grid, Square};
use std::io::IsTerminal;

#[derive(Args)]
pub struct ShowArgs {
    /// Package folder or bare name
    package: String,
    /// Mission id (without one of --mission, --board, --battlefield, lists what there is)
    #[arg(long, conflicts_with_all = ["board", "battlefield"])]
    mission: Option<String>,
    /// A single board (section) instead of a mission
    #[arg(long, conflicts_with = "battlefield")]
    board: Option<String>,
    /// An open battlefield (measured in inches)
    #[arg(long)]
    battlefield: Option<String>,
    /// Also write the picture as SVG to this file
    #[arg(long, value_name = "FILE")]
    svg: Option<std::path::PathBuf>,
    /// Print one JSON object instead of the picture: size, solid squares, marks, walls, doors
    /// and pieces (squares as "x,y" from 1); for a battlefield, its zones, terrain and markers
    #[arg(long)]
    json: bool,
}

/// `id — title`, or the id alone when there is no title.
fn heading(id: &str, title: Option<&str>) -> String {
    match title {
        Some(t) if !t.is_empty() => format!("{id} — {t}"),
        _ => id.to_string(),
    }
}

pub fn run(args: ShowArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
    if let Some(id) = &args.battlefield {
        let b = super::find_named(r, &r.battlefields, "battlefield", "battlefields", id)?;
        if args.json {
            super::emit_json(&battlefield_json(b));
            return Ok(());
        }
        let title = heading(&b.id, b.label.as_deref());
        super::emitln(&title);
        super::emit(&render::battlefield_text(b));
        super::emit(&render::battlefield_legend(b));
        if let Some(path) = &args.svg {
            std::fs::write(path, render::battlefield_svg(b, &title, &[]))
                .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
            super::emitln(&format!("wrote {}", path.display()));
        }
        return Ok(());
    }
    let mut pieces: Vec<String> = Vec::new();
    let (kind, id, title, grid, overlay) = match (&args.mission, &args.board) {
        (Some(id), _) => {
            let m = super::find_mission(r, id)?;
            // Small letters, in order: the map's marks are capitals.
            let mut overlay = Overlay::default();
            let mut letters = "abcdefghijklmnopqrstuvwxyz".chars();
            for piece in &m.pieces {
                let letter = letters.next().unwrap_or('*');
                for s in piece.squares() {
                    overlay.labels.insert(s, letter);
                }
                pieces.push(format!(
                    "{letter} {} on {}",
                    servitor::escape::one_line(&piece.id),
                    piece.at
                ));
            }
            ("mission", m.id.clone(), m.label.clone(), m.grid.clone(), overlay)
        }
        (None, Some(id)) => {
            let b = super::find_named(r, &r.boards, "board", "boards", id)?;
            (
                "board",
                b.id.clone(),
                b.label.clone(),
                b.grid.clone(),
                Overlay::default(),
            )
        }
        (None, None) => return Err(super::usage(what_to_show(r))),
    };
    if args.json {
        let mut json = grid_json(&grid);
        json["kind"] = kind.into();
        json["id"] = id.clone().into();
        json["title"] = title.clone().into();
        let pieces = args.mission.as_ref().and_then(|m| r.missions.get(m)).map(|m| {
            m.pieces
                .iter()
                .map(|p| serde_json::json!({ "id": p.id, "squares": p.squares() }))
                .collect::<Vec<_>>()
        });
        json["pieces"] = pieces.unwrap_or_default().into();
        super::emit_json(&json);
        return Ok(());
    }
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    super::emitln(&format!(
        "{} ({} × {} squares)",
        heading(&id, title.as_deref()),
        grid.width,
        grid.height
    ));
    super::emit_painted(&render::text(&grid, &overlay, color));
    if !pieces.is_empty() {
        super::emitln(&pieces.join("; "));
    }
    super::emit(&render::legend(&grid));
    if let Some(path) = &args.svg {
        write_svg(path, &grid, &heading(&id, title.as_deref()), &overlay)?;
    }
    Ok(())
}

/// A grid as data: what the picture shows, square by square. Walls are listed between two
/// squares of the grid (the outer edge is always a wall), not between two solid squares.
pub(super) fn grid_json(grid: &Grid) -> serde_json::Value {
    use servitor::board::Edge;
    let mut solid = Vec::new();
    let mut marks: indexmap::IndexMap<&str, Vec<Square>> = indexmap::IndexMap::new();
    let mut walls = Vec::new();
    let mut doors = Vec::new();
    for y in 0..grid.height {
        for x in 0..grid.width {
            let s = Square::new(x, y);
            if grid.is_solid(s) {
                solid.push(s);
            }
            if let Some(mark) = grid.mark(s) {
                marks.entry(mark).or_default().push(s);
            }
            for next in [Square::new(x + 1, y), Square::new(x, y + 1)] {
                if !grid.contains(next) || (grid.is_solid(s) && grid.is_solid(next)) {
                    continue;
                }
                match grid.edge(s, next) {
                    Edge::Wall => walls.push([s, next]),
                    Edge::Door { open } => doors.push(serde_json::json!({ "between": [s, next], "open": open })),
                    Edge::Open => {}
                }
            }
        }
    }
    serde_json::json!({
        "width": grid.width, "height": grid.height, "boards": grid.sections,
        "solid": solid, "marks": marks, "walls": walls, "doors": doors,
    })
}

/// A battlefield as data: inches, zones, terrain and markers.
pub(super) fn battlefield_json(b: &servitor::board::field::Battlefield) -> serde_json::Value {
    let markers: Vec<_> = b
        .markers
        .iter()
        .map(|(name, p)| serde_json::json!({ "name": name, "at": p }))
        .collect();
    serde_json::json!({
        "kind": "battlefield", "id": b.id, "title": b.label, "width": b.width, "height": b.height,
        "zones": b.zones, "terrain": b.terrain, "markers": markers,
    })
}

/// Asked to show nothing in particular: what the package has to show, and how to ask.
fn what_to_show(r: &servitor::Ruleset) -> String {
    let mut ways = Vec::new();
    for (flag, ids) in [
        ("--mission", r.ids_of("mission").unwrap_or_default()),
        ("--board", r.ids_of("board").unwrap_or_default()),
        ("--battlefield", r.ids_of("battlefield").unwrap_or_default()),
    ] {
        if !ids.is_empty() {
            ways.push(format!("  {flag} ID, one of: {}", ids.join(", ")));
        }
    }
    if ways.is_empty() {
        return format!(
            "error: {} has no missions with a map, boards or battlefields to draw\n",
            r.name()
        );
    }
    format!("error: say what to show from {}:\n{}\n", r.name(), ways.join("\n"))
}

pub fn write_svg(path: &std::path::Path, grid: &Grid, title: &str, overlay: &Overlay) -> Result<(), String> {
    std::fs::write(path, render::svg(grid, title, overlay))
        .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    super::emitln(&format!("wrote {}", path.display()));
    Ok(())
}

/// Reads a square given as `x,y` (from 1) and checks it is on the grid.
pub fn square(grid: &Grid, text: &str) -> Result<Square, super::Failure> {
    let s = Square::parse(text).ok_or_else(|| {
        super::usage(format!(
            "error: `{text}` is not a square; write column,row from 1, e.g. 3,7"
        ))
    })?;
    if !grid.contains(s) {
        return Err(super::usage(format!(
            "error: square {s} is off the map ({} × {})",
            grid.width, grid.height
        )));
    }
    Ok(s)
}
