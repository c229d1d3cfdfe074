//! The random `play` session the property test (`tests/sessions.rs`) and the fuzzer's `play`
//! target (`tests/fuzz.rs`) both play: a seeded player types commands of the game (and now and
//! then nonsense), types most dice and leaves some to servitor, answers some questions, takes
//! commands back and puts them back, switches who rolls; after every step the session is
//! written as a save, read back and replayed, and must be the live game.

use serde_json::Value as Json;
use servitor::dice::rng::{ChoiceAsk, DieAsk, Forced, Rng};
use servitor::game::session::{self, SESSION_FORMAT, SESSION_VERSION, Session};
use servitor::game::{Game, GameError, Host, Setup};
use std::sync::{Arc, Mutex};

/// Steps (commands, undos, redos, switches) in one session.
pub const STEPS: usize = 24;

pub fn sessions_wanted() -> usize {
    std::env::var("SERVITOR_SESSIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24)
}

/// Every playable (package, game, mission) of the bundle.
pub fn missions() -> Vec<(Arc<servitor::Ruleset>, Option<String>, String)> {
    let mut out = Vec::new();
    for name in super::bundled_packages() {
        let ruleset = Arc::new(super::load(&name));
        if ruleset.games.is_empty() {
            continue;
        }
        for mission in ruleset.missions.keys() {
            out.push((ruleset.clone(), None, mission.clone()));
        }
    }
    assert!(out.len() >= 10, "the bundle's missions: {}", out.len());
    out
}

/// The player at the table, played by a seeded stream: types most dice, leaves some to
/// servitor, answers some questions and leaves the rest.
pub fn player(manual: bool, rng: Arc<Mutex<Rng>>) -> session::Dice {
    let mut forced = Forced {
        record: manual.then(Vec::new),
        choice_record: Some(Vec::new()),
        asks_picks: true,
        ..Forced::default()
    };
    if manual {
        let r = rng.clone();
        forced.ask = Some(Box::new(move |die: &DieAsk| -> Option<u64> {
            let mut r = r.lock().unwrap();
            let faces = die.faces.len() as u64;
            (r.below(4) > 0).then(|| r.below(faces) + 1)
        }));
    }
    forced.choose = Some(Box::new(move |q: &ChoiceAsk| -> Option<u64> {
        let mut r = rng.lock().unwrap();
        (r.below(2) == 0).then(|| r.below(q.choices.len() as u64) + 1)
    }));
    Arc::new(Mutex::new(forced))
}

/// A command as a player might type it: one of the game's commands, its example with the
/// pieces and squares swapped for some of this game's; sometimes `end`, sometimes nonsense.
pub fn command(game: &Game, side: &str, rng: &mut Rng, hostile: bool) -> String {
    if hostile && rng.below(5) == 0 {
        return hostile_line(game, side, rng);
    }
    let roll = rng.below(100);
    if roll < 30 {
        return "end".into();
    }
    if roll < 33 {
        return "fly marine-9 to the moon".into();
    }
    if roll < 36 {
        // A correction at the table.
        let mine: Vec<&String> = game
            .state
            .pieces
            .iter()
            .filter(|p| p.side == side)
            .map(|p| &p.id)
            .collect();
        if let Some(id) = mine.get(rng.below(mine.len().max(1) as u64) as usize) {
            return format!("fix {id} life {} because the table says so", 1 + rng.below(3));
        }
    }
    let commands: Vec<(&String, &servitor::ruleset::CommandDef)> = game.def.commands.iter().collect();
    if commands.is_empty() {
        return "end".into();
    }
    let (name, def) = commands[rng.below(commands.len() as u64) as usize];
    let example = def
        .help
        .as_deref()
        .and_then(|h| h.split("e.g. ").nth(1))
        .map(|e| e.split([';', '(']).next().unwrap_or(e).trim().to_string())
        .filter(|e| e.starts_with(name.as_str()))
        .unwrap_or_else(|| name.clone());
    let mine: Vec<&servitor::game::state::Piece> = game.state.pieces.iter().filter(|p| p.side == side).collect();
    let others: Vec<&servitor::game::state::Piece> = game.state.pieces.iter().filter(|p| p.side != side).collect();
    let pick = |rng: &mut Rng, list: &[&servitor::game::state::Piece]| -> Option<String> {
        (!list.is_empty()).then(|| list[rng.below(list.len() as u64) as usize].id.clone())
    };
    let near = pick(rng, &mine)
        .and_then(|id| game.state.piece(&id).cloned())
        .and_then(|p| p.at.map(|s| (s.x as i64, s.y as i64)));
    let mut first_piece = true;
    let words: Vec<String> = example
        .split_whitespace()
        .map(|w| {
            let is_piece =
                w.contains('-') && w.rsplit('-').next().is_some_and(|n| n.parse::<u32>().is_ok()) || w == "commander";
            let is_square = w
                .split_once(',')
                .is_some_and(|(a, b)| a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok());
            if is_piece {
                let list = if first_piece { &mine } else { &others };
                first_piece = false;
                pick(rng, list).unwrap_or_else(|| w.to_string())
            } else if is_square {
                match near {
                    Some((x, y)) => format!("{},{}", x + rng.range(-2, 2), y + rng.range(-2, 2)),
                    None => w.to_string(),
                }
            } else {
                w.to_string()
            }
        })
        .collect();
    words.join(" ")
}

/// The whole game as data, to compare two games field for field.
pub fn as_data(game: &Game) -> (Json, Json) {
    (
        serde_json::to_value(&game.events).unwrap(),
        serde_json::to_value(&game.state).unwrap(),
    )
}

/// The session written and read back as a save, then replayed: it must be `live`.
pub fn resumes_to(host: &mut Host, s: &Session, live: &Game, what: &str) {
    let text = servitor::game::host::encode(s).unwrap_or_else(|e| panic!("{what}: the save cannot be written: {e}"));
    let back: Session = serde_json::from_str(&text).unwrap();
    back.check(&s.package).unwrap_or_else(|e| panic!("{what}: {e}"));
    back.check_redo(host)
        .unwrap_or_else(|e| panic!("{what}: the redo list: {}", text_of(e)));
    let again = back
        .replay(host)
        .unwrap_or_else(|e| panic!("{what}: the save does not resume: {}", text_of(e)));
    let (events, state) = as_data(&again);
    let (live_events, live_state) = as_data(live);
    if events != live_events {
        let n = events.as_array().map_or(0, Vec::len);
        let m = live_events.as_array().map_or(0, Vec::len);
        let first = (0..n.min(m)).find(|&k| events[k] != live_events[k]).unwrap_or(n.min(m));
        panic!(
            "{what}: the resumed game differs from the one played at event {first} of {m}:\nplayed:  {}\nresumed: {}",
            live_events.get(first).unwrap_or(&Json::Null),
            events.get(first).unwrap_or(&Json::Null)
        );
    }
    assert_eq!(state, live_state, "{what}: the resumed state differs");
}

pub fn text_of(e: GameError) -> String {
    match e {
        GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m) => m,
        GameError::Script { diagnostic, .. } => diagnostic.message.clone(),
    }
}

/// One random session: returns how many commands were accepted.
pub fn one_session(
    ruleset: &Arc<servitor::Ruleset>,
    game: Option<String>,
    mission: &str,
    seed: u64,
    hostile: bool,
    steps: usize,
) -> usize {
    let mut rng = Rng::seeded(seed);
    let player_rng = Arc::new(Mutex::new(Rng::seeded(seed ^ 0x5eed)));
    let mut host = Host::new(ruleset);
    let def = host.game_def(game.as_deref()).unwrap().clone();
    let side = def.sides[0].clone();
    let manual = rng.below(2) == 0;
    let mut s = Session {
        format: SESSION_FORMAT.into(),
        version: SESSION_VERSION,
        package: ruleset.name().to_string(),
        found_at: None,
        game,
        mission: mission.to_string(),
        seed: rng.below(1 << 20),
        options: Vec::new(),
        side: side.clone(),
        manual_dice: manual,
        start_dice: Vec::new(),
        start_choices: Vec::new(),
        entries: Vec::new(),
        redo: Vec::new(),
    };
    let what = |s: &Session, step: &str| {
        format!(
            "{} mission {} seed {} ({} commands, then `{step}`)",
            s.package,
            s.mission,
            s.seed,
            s.entries.len()
        )
    };
    // The start, as `servitor play` starts a game: the setup's dice asked too.
    let setup = Setup {
        game: s.game.clone(),
        mission: s.mission.clone(),
        seed: s.seed,
        options: Vec::new(),
    };
    let started = host.start(&setup, Some(0)).unwrap();
    let dice = player(manual, player_rng.clone());
    let mut started = started;
    started.forced = Some(dice.clone());
    let mut live = host.advance_to(started, &side).unwrap();
    s.start_dice = dice.lock().unwrap().record.take().unwrap_or_default();
    s.start_choices = dice.lock().unwrap().choice_record.take().unwrap_or_default();
    resumes_to(&mut host, &s, &live, &what(&s, "the start"));
    let mut accepted = 0;
    for _ in 0..steps {
        if live.state.over.is_some() {
            break;
        }
        let r = rng.below(100);
        let line = if r < 8 {
            "undo".to_string()
        } else if r < 13 {
            "redo".to_string()
        } else if r < 17 {
            format!("dice {}", if s.manual_now() { "auto" } else { "manual" })
        } else {
            command(&live, &side, &mut rng, hostile)
        };
        let step = what(&s, &line);
        match line.as_str() {
            "undo" => {
                let Some(entry) = s.entries.pop() else { continue };
                s.redo.push(entry);
                live = s.replay(&mut host).unwrap_or_else(|e| panic!("{step}: {}", text_of(e)));
            }
            "redo" => {
                let Some(entry) = s.redo.pop() else { continue };
                let dice = Arc::new(Mutex::new(Forced::default()));
                match session::play_line(&mut host, live, &s, &entry.line, &dice, Some(&entry)) {
                    Ok((game, entry)) => {
                        live = game;
                        s.entries.push(entry);
                    }
                    Err(e) => panic!("{step}: a command taken back does not play again: {}", text_of(e)),
                }
            }
            _ => {
                let dice = player(s.manual_now(), player_rng.clone());
                match session::play_line(&mut host, live, &s, &line, &dice, None) {
                    Ok((game, entry)) => {
                        live = game;
                        s.entries.push(entry);
                        s.redo.clear();
                        accepted += 1;
                    }
                    Err(GameError::Refused(_)) => live = s.replay(&mut host).unwrap(),
                    Err(e) => panic!("{step}: {}", text_of(e)),
                }
            }
        }
        resumes_to(&mut host, &s, &live, &step);
    }
    accepted
}

/// A line a careless or hostile player might type: a command of the game with its words cut,
/// repeated, swapped for huge numbers, unknown or foreign pieces, odd characters, or squares
/// off the board; the session must refuse it in words or play it, and resume to it either way.
fn hostile_line(game: &Game, side: &str, rng: &mut Rng) -> String {
    const WORDS: [&str; 14] = [
        "99999999999999999999",
        "-1",
        "0,0",
        "-3,-3",
        "1e308",
        "１,２",
        "\u{202e}marine-1",
        "all",
        "auto",
        "because",
        "nothing-here",
        "x,y",
        "",
        "end",
    ];
    let base = command(game, side, rng, false);
    let mut words: Vec<String> = base.split_whitespace().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let k = rng.below(words.len().max(1) as u64 + 1) as usize;
        match rng.below(4) {
            0 if k < words.len() => {
                words.remove(k);
            }
            1 => words.insert(
                k.min(words.len()),
                WORDS[rng.below(WORDS.len() as u64) as usize].to_string(),
            ),
            2 if k < words.len() => words[k] = WORDS[rng.below(WORDS.len() as u64) as usize].to_string(),
            _ => {
                let other: Vec<&String> = game.state.pieces.iter().map(|p| &p.id).collect();
                if let Some(id) = other.get(rng.below(other.len().max(1) as u64) as usize) {
                    words.insert(k.min(words.len()), id.to_string());
                }
            }
        }
    }
    if rng.below(10) == 0 {
        return words.join(" ").repeat(1 + rng.below(50) as usize);
    }
    words.join(" ")
}
