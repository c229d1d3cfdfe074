//! `servitor game <package> --mission M --seed N`: one headless game, printed turn by turn as
//! a player can follow it (or `--json`); `--save`/`--resume` stop and go on; `--svg` draws the
//! final board.

use clap::Args;
use servitor::board::render::{self, Overlay};
use servitor::game::{Event, Game, GameError, Host, Save, Setup, host};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args)]
pub struct GameArgs {
    /// Package folder or bare name
    package: String,
    /// Mission id (`servitor tables <package>` lists them)
    #[arg(long)]
    mission: Option<String>,
    /// Seed of the game; the same seed plays the same game
    #[arg(long)]
    seed: Option<u64>,
    /// Which `game` item, when the package has several
    #[arg(long)]
    game: Option<String>,
    /// A game option, as name=value (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = super::run::parse_arg)]
    options: Vec<(String, String)>,
    /// Stop after this many phases (setup counts as one) and write --save
    #[arg(long, value_name = "N")]
    phases: Option<u32>,
    /// Write the game, as it stands at the end, to this file
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Go on with a game written by --save
    #[arg(long, value_name = "FILE", conflicts_with_all = ["mission", "seed", "game", "options"])]
    resume: Option<PathBuf>,
    /// Play a whole campaign instead (the package's `campaign` item, or the one named), every
    /// mission headless; --json prints the campaign as its file keeps it
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "",
          conflicts_with_all = ["mission", "game", "resume", "save", "phases", "svg"])]
    campaign: Option<String>,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Draw the final board as SVG
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Also show the engine's bookkeeping in the account (variables, piece fields, pool
    /// counters); --json always has everything
    #[arg(long)]
    verbose: bool,
}

pub fn run(args: GameArgs) -> Result<(), super::Failure> {
    // Where the save goes is checked, and held, before anything is played.
    let _lock = match &args.save {
        Some(path) => {
            super::savefile::target(path).map_err(super::usage)?;
            Some(super::savefile::lock(path)?)
        }
        None => None,
    };
    let loaded = super::load(&args.package)?;
    let ruleset = Arc::new(loaded.ruleset);
    if let Some(id) = &args.campaign {
        let id = Some(id.as_str()).filter(|i| !i.is_empty());
        return super::campaign::game(&ruleset, id, super::seed_or_fresh(args.seed), &args.options, args.json);
    }
    let mut host = Host::new(&ruleset);
    let seed;
    let played = match &args.resume {
        Some(path) => {
            let text = super::read_named(path, servitor::limits::MAX_SAVE_BYTES, "MAX_SAVE_BYTES")?;
            let save: Save = serde_json::from_str(&text)
                .map_err(|e| format!("error: {} is not a saved game: {e}", path.display()))?;
            seed = Some(save.seed);
            host.load(save).and_then(|g| host.advance(g, args.phases))
        }
        None => {
            let Some(mission) = args.mission.clone() else {
                return Err(super::usage(format!(
                    "error: say which mission to play with --mission\n  missions: {}",
                    ruleset.playable_missions().join(", ")
                )));
            };
            let setup = Setup {
                game: args.game.clone(),
                mission,
                seed: super::seed_or_fresh(args.seed),
                options: args.options.clone(),
            };
            seed = Some(setup.seed);
            host.start(&setup, args.phases)
        }
    };
    let game = match played {
        Ok(game) => game,
        Err(error) => {
            if args.json {
                // A front end gets something to parse: the error, and the log up to it.
                super::emit_json(&failure_json(&ruleset, &error, seed));
            }
            return Err(failure(&ruleset, error, args.json));
        }
    };
    if let Some(path) = &args.save {
        let text = host::encode(&host.save(&game)).map_err(|e| format!("error: {e}"))?;
        super::savefile::write_atomically(path, text.as_bytes())?;
    }
    if let (Some(path), Some((field, _))) = (&args.svg, game.field_picture()) {
        let title = format!("{} — seed {}", game.mission, game.seed);
        std::fs::write(path, render::battlefield_svg(&field, &title, &[]))
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    } else if let Some(path) = &args.svg {
        let (grid, overlay) = final_board(&game);
        std::fs::write(
            path,
            render::svg(&grid, &format!("{} — seed {}", game.mission, game.seed), &overlay),
        )
        .map_err(|e| format!("error: cannot write {}: {e}", path.display()))?;
    }
    let board = match game.battlefield() {
        // A battlefield game: the table, and where the pieces and the game's marks ended.
        Ok(b) => {
            let mut json = super::show::battlefield_json(b);
            let pieces: Vec<_> = game
                .state
                .pieces
                .iter()
                .filter(|p| p.on_board())
                .filter_map(|p| {
                    p.point
                        .map(|at| serde_json::json!({ "id": p.id, "side": p.side, "at": at }))
                })
                .collect();
            let marks: Vec<_> = game
                .state
                .marks
                .iter()
                .map(|(name, at)| serde_json::json!({ "name": name, "at": at }))
                .collect();
            json["pieces"] = pieces.into();
            json["marks"] = marks.into();
            Some(json)
        }
        Err(_) => ruleset
            .missions
            .get(&game.mission)
            .map(|m| super::show::grid_json(&m.grid)),
    };
    let (package, game_id, mission) = (ruleset.name().to_string(), game.def.id.clone(), game.mission.clone());
    let options = game.options.clone();
    let record = host::record(game);
    if args.json {
        // The referee's log: every event with its structured fields, and the board as the
        // mission lays it out (doors as they start), so that a program outside servitor can
        // check each rule (docs/event-log.md, "The event log").
        let json = serde_json::json!({
            "log_version": servitor::game::event::LOG_VERSION,
            "package": package,
            "game": game_id,
            "mission": mission,
            "seed": record.seed,
            "options": options,
            "board": board,
            "result": record.result,
            "events": servitor::game::event::annotate(&record.events),
        });
        super::emit_json(&json);
    } else {
        super::emit(&account(&record.events, args.verbose));
        let r = &record.result;
        let scores: Vec<String> = r.scores.iter().map(|(s, p)| format!("{s} {p}")).collect();
        super::emitln(&format!(
            "\nResult: {} — {} ({}; {} turns; seed {})",
            match r.winner.as_str() {
                "none" => "no winner".to_string(),
                "unfinished" => "not finished".to_string(),
                w => format!("{w} wins"),
            },
            r.reason,
            scores.join(", "),
            r.turns,
            record.seed
        ));
    }
    Ok(())
}

/// `game --json` when the game fails: the seed, the error (a script's as a diagnostic, with
/// its file and line) and the log up to it.
fn failure_json(ruleset: &servitor::Ruleset, error: &GameError, seed: Option<u64>) -> serde_json::Value {
    match error {
        GameError::Script {
            diagnostic,
            events,
            turn,
        } => serde_json::json!({
            "seed": seed, "turn": turn, "error": diagnostic.to_json(&ruleset.sources), "events": events,
        }),
        GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m) => {
            serde_json::json!({ "seed": seed, "error": { "message": m }, "events": [] })
        }
    }
}

/// The log as a player reads it: a heading per phase, one line per event, sources in brackets;
/// the engine's bookkeeping only when `verbose`.
pub fn account(events: &[Event], verbose: bool) -> String {
    let mut out = String::new();
    for e in events.iter().filter(|e| verbose || !e.is_bookkeeping()) {
        match e.kind.as_str() {
            // A scenario started from the game's set-up: its own changes under their heading.
            "phase" if e.turn == 0 && e.phase == "scenario" && !out.is_empty() => {
                out.push_str("\nThe scenario's changes\n")
            }
            "phase" if e.turn == 0 => out.push_str("Setup\n"),
            "phase" => out.push_str(&format!("\nTurn {} · {} · {}\n", e.turn, e.side, e.phase)),
            kind => {
                let mark = match kind {
                    "decision" => "→ ",
                    "roll" | "table" => "⚄ ",
                    _ => "  ",
                };
                let source = e.source.as_deref().map(|s| format!("  [{s}]")).unwrap_or_default();
                out.push_str(&format!("  {mark}{}{source}\n", e.text));
            }
        }
    }
    out
}

pub fn failure(ruleset: &servitor::Ruleset, error: GameError, json: bool) -> super::Failure {
    let text = |m: &str| format!("error: {}", servitor::escape::visible(m));
    match error {
        GameError::Usage(m) => super::usage(text(&m)),
        GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m) => text(&m).into(),
        GameError::Script {
            diagnostic,
            events,
            turn,
        } => {
            let report = servitor::diagnostic::Report {
                diagnostics: vec![*diagnostic],
            };
            let tail: Vec<&Event> = events.iter().rev().take(12).collect();
            let mut text = String::new();
            if !json {
                text.push_str(&format!("the game stopped in turn {turn}; its last events:\n"));
                for e in tail.iter().rev() {
                    // Made visible here: the diagnostic below may be coloured, so this text
                    // reaches a colour terminal past the escaping of its colour sequences.
                    text.push_str(&format!("  {}\n", servitor::escape::one_line(&e.text)));
                }
            }
            text.push_str(&report.render(&ruleset.sources, super::color()));
            text.into()
        }
    }
}

/// The board as the game left it: doors, and a letter per piece (its side's initial; lower
/// case while face down).
fn final_board(game: &Game) -> (servitor::board::Grid, Overlay) {
    let mut overlay = Overlay::default();
    for p in game.state.pieces.iter().filter(|p| p.on_board()) {
        let letter = p.side.chars().next().unwrap_or('?');
        let letter = if p.hidden.is_some() {
            letter.to_ascii_lowercase()
        } else {
            letter.to_ascii_uppercase()
        };
        for s in p.squares() {
            overlay.labels.insert(s, letter);
        }
    }
    (game.view.grid.clone(), overlay)
}
