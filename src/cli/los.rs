//! `servitor los <package> --mission <id> <from> <to>`: can this square see that one? Draws
//! the line and says what stopped it.

use super::show::{square, write_svg};
use clap::Args;
use servitor::board::Square;
use servitor::board::los::{from_footprint_by, line_of_sight_by};
use servitor::board::render::{self, Overlay};
use servitor::ruleset::{Purpose, SightRule};
use std::io::IsTerminal;

#[derive(Args)]
pub struct LosArgs {
    /// Package folder or bare name
    package: String,
    /// Mission id
    #[arg(long)]
    mission: String,
    /// The square looking, as column,row from 1
    from: String,
    /// The square looked at
    to: String,
    /// For revealing hidden tokens (the sight a piece keeps out of): pieces block as the
    /// package's game declares (`sight-models`; by default they block only when firing)
    #[arg(long)]
    reveal: bool,
    /// Another occupied square that blocks firing (repeatable)
    #[arg(long = "occupied", value_name = "X,Y")]
    occupied: Vec<String>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
    /// Also write the picture as SVG
    #[arg(long, value_name = "FILE")]
    svg: Option<std::path::PathBuf>,
}

/// The two squares' marks: not letters, which the map uses for its marks.
const LOOKS: char = '@';
const LOOKED_AT: char = '*';

pub fn run(args: LosArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let mission = super::find_mission(&loaded.ruleset, &args.mission)?;
    let grid = &mission.grid;
    let (from, to) = (square(grid, &args.from)?, square(grid, &args.to)?);
    let mut occupied: Vec<Square> = args
        .occupied
        .iter()
        .map(|o| square(grid, o))
        .collect::<Result<_, _>>()?;
    // The looking piece's own footprint: a mission piece standing on `from`.
    let footprint: Vec<Square> = mission
        .pieces
        .iter()
        .find(|p| p.squares().contains(&from))
        .map_or_else(|| vec![from], |p| p.squares());
    for piece in &mission.pieces {
        occupied.extend(piece.squares());
    }
    // The package's game's line of sight (its `sight …` lines; the default rule without one).
    let rule: SightRule = loaded
        .ruleset
        .games
        .values()
        .next()
        .map(|g| g.sight)
        .unwrap_or_default();
    let purpose = if args.reveal { Purpose::Spot } else { Purpose::Shoot };
    let models = rule.models_block(purpose);
    let blocks = |s: Square| models && occupied.contains(&s);
    let seen_from = from_footprint_by(rule.los, grid, &footprint, to, &blocks);
    let start = seen_from.unwrap_or(from);
    let sight = line_of_sight_by(rule.los, grid, start, to, &|s| blocks(s) && !footprint.contains(&s));
    let visible = seen_from.is_some();
    if args.json {
        let json = serde_json::json!({
            "mission": mission.id, "from": from.to_string(), "to": to.to_string(),
            "visible": visible, "seen_from": seen_from.map(|s| s.to_string()),
            "path": sight.path, "blocked_at": sight.blocked_at.map(|(s, why)| serde_json::json!({"square": s.to_string(), "why": why})),
        });
        super::emit_json(&json);
        return Ok(());
    }
    let overlay = Overlay {
        line: std::iter::once(start)
            .chain(sight.path.iter().copied())
            .chain([to])
            .collect(),
        labels: [(start, LOOKS), (to, LOOKED_AT)].into_iter().collect(),
        blocked: sight.blocked_at.map(|(s, _)| s),
        ..Overlay::default()
    };
    let color = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    let verdict = match (visible, sight.blocked_at) {
        (true, _) if start != from => {
            format!("{from} → {to}: visible (from {start}, another square of the same piece)")
        }
        (true, _) => format!("{from} → {to}: visible"),
        (false, Some((at, why))) => format!("{from} → {to}: not visible — stopped at {at}: {why}"),
        (false, None) => format!("{from} → {to}: not visible"),
    };
    super::emitln(&verdict);
    super::emit_painted(&render::text(grid, &overlay, color));
    let mut key = format!("{LOOKS} {start} looks   {LOOKED_AT} {to} is looked at   • the line");
    if let Some((at, _)) = sight.blocked_at {
        key.push_str(&format!("   ✗ stopped at {at}"));
    }
    super::emitln(&key);
    super::emit(&render::legend(grid));
    if let Some(path) = &args.svg {
        write_svg(
            path,
            grid,
            &format!("{} — line of sight {from} → {to}", mission.id),
            &overlay,
        )?;
    }
    Ok(())
}
