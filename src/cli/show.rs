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
}

pub fn run(args: ShowArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
    if let Some(id) = &args.battlefield {
        let b = super::find_named(r, &r.battlefields, "battlefield", "battlefields", id)?;
        let title = format!("{} — {}", b.id, b.label.as_deref().unwrap_or(""));
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
    let (id, title, grid, overlay) = match (&args.mission, &args.board) {
        (Some(id), _) => {
            let m = super::find_mission(r, id)?;
            let mut overlay = Overlay::default();
            for piece in &m.pieces {
                let letter = piece.id.chars().next().map_or('?', |c| c.to_ascii_uppercase());
                for s in piece.squares() {
                    overlay.labels.insert(s, letter);
                }
            }
            (m.id.clone(), m.label.clone(), m.grid.clone(), overlay)
        }
        (None, Some(id)) => {
            let b = super::find_named(r, &r.boards, "board", "boards", id)?;
            (b.id.clone(), b.label.clone(), b.grid.clone(), Overlay::default())
        }
        (None, None) => return Err(super::usage(what_to_show(r))),
    };
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    super::emitln(&format!(
        "{id} — {} ({} × {} squares)",
        title.as_deref().unwrap_or(""),
        grid.width,
        grid.height
    ));
    super::emit_painted(&render::text(&grid, &overlay, color));
    super::emit(&render::legend(&grid));
    if let Some(path) = &args.svg {
        write_svg(
            path,
            &grid,
            &format!("{id} — {}", title.as_deref().unwrap_or("")),
            &overlay,
        )?;
    }
    Ok(())
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
