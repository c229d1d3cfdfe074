//! A game at a real table (`servitor play`): the setup and the commands the player typed,
//! each with the dice it used. The game is whatever replaying them gives, so a save is small,
//! `undo` is "replay one fewer", `redo` puts the same command (and dice) back, and both work
//! the same after a resume. Replays are cheap: a whole game plays in about a millisecond.
//!
//! A [`Session`] (format `servitor-play`, version 2) keeps the setup and the typed commands
//! with their dice and the player's answers to `game.ask`. [`play_line`] runs one command the
//! same way for every front end: `dice manual|auto` switches who rolls from the next command
//! on, `fix` is a correction (`corrections.rs`), anything else is the game's.
//! [`Session::manual_now`] says who rolls now, [`Session::check_redo`] what `redo` would put
//! back, [`took_back`] what `undo` says (the moves to set back, last first, in the player's
//! view). A replay checks the side, each command's length and every saved die against the
//! die it is given to and the number rolled. [`Session::replay_again`] (for `play`'s
//! `reload`) replays the session on a package loaded again beside the game played, step by
//! step, and gives the new game only when every step's events and state are the same; else a
//! [`Parting`]: the first step that differs (0: the set-up) and what differs, in the player's
//! view.

use super::host::{GameError, Host, Setup};
use super::{Event, Game};
use crate::dice::rng::Forced;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

pub const SESSION_FORMAT: &str = "servitor-play";
/// 2: every die moves the game's stream whoever gives its face (see `Rng::die_asking`), and
/// `dice manual` / `dice auto` entries switch who rolls. A version 1 save with servitor's dice
/// plays the same under version 2 and is read; one with typed dice may not, and is refused.
pub const SESSION_VERSION: u32 = 2;

/// The command that switches who rolls the dice from the next command on.
pub const DICE_COMMAND: &str = "dice";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// What the player typed.
    pub line: String,
    /// Every die the command rolled, as face positions from 1 (manual dice only: with
    /// automatic dice the seed gives them again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<u64>,
    /// Which of `dice` servitor rolled at the player's word (`auto` at a die's prompt), as
    /// positions from 1; the others the player typed. A replay gives them all alike.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servitor_rolled: Vec<u64>,
    /// The player's answer to every question the command asked (`game.ask`), as positions
    /// from 1 among the choices (0: left to servitor), with manual and automatic dice alike.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub format: String,
    pub version: u32,
    pub package: String,
    /// Where the package was found (an absolute folder), so that `play --resume FILE` needs
    /// no package argument; absent for a bundled package, which its name finds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub mission: String,
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<(String, String)>,
    /// The side the player plays; the engine plays the others.
    pub side: String,
    /// Who rolls the dice at the start: the player (true) or servitor. A `dice manual` or
    /// `dice auto` entry switches it from the next command on ([`Session::manual_now`]).
    pub manual_dice: bool,
    /// The dice of the setup and of the phases before the player's first turn (manual dice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_dice: Vec<u64>,
    /// The answers to the questions of the setup and of the phases before the player's first turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_choices: Vec<u64>,
    pub entries: Vec<Entry>,
    /// Commands taken back by `undo`, last first out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redo: Vec<Entry>,
}

/// Where the log ended and the state, after a step of a replay.
struct Step {
    events: usize,
    state: super::GameState,
}

/// Where a replay on the package loaded again parts from the game played: the step (0: the
/// set-up and the phases before the player's first turn; n: command n, typed as `line`) and
/// what differs there.
#[derive(Debug, Clone, PartialEq)]
pub struct Parting {
    pub step: usize,
    pub line: Option<String>,
    pub what: String,
}

fn to_json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// Where two states differ: the first place, with the values when they are a face-up
/// piece's (the rest may be secret: face-down identities, pools, the order of decks).
fn state_difference(a: &super::GameState, b: &super::GameState) -> String {
    let said = first_difference(&to_json(a), &to_json(b), "the game's");
    let face_up = |i: usize| {
        a.pieces.get(i).is_some_and(|p| p.hidden.is_none()) && b.pieces.get(i).is_some_and(|p| p.hidden.is_none())
    };
    let piece = said
        .strip_prefix("the game's `pieces[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|i| i.parse::<usize>().ok());
    match piece {
        Some(i) if face_up(i) => said,
        _ => match said.split_once(" was ") {
            Some((place, _)) => format!("{place} differs"),
            None => said,
        },
    }
}

/// The first place two JSON values differ, as `{whose} PATH was A, now B`.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, whose: &str) -> String {
    use serde_json::Value;
    fn walk(a: &Value, b: &Value, path: &mut String) -> Option<(String, String)> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (k, v) in x {
                    let len = path.len();
                    path.push_str(&if path.is_empty() { k.clone() } else { format!(".{k}") });
                    let found = match y.get(k) {
                        Some(w) => walk(v, w, path),
                        None => Some((v.to_string(), "absent".into())),
                    };
                    if found.is_some() {
                        return found;
                    }
                    path.truncate(len);
                }
                let k = y.keys().find(|k| !x.contains_key(*k))?;
                path.push_str(&if path.is_empty() { k.clone() } else { format!(".{k}") });
                Some(("absent".into(), y[k].to_string()))
            }
            (Value::Array(x), Value::Array(y)) => {
                for (i, (v, w)) in x.iter().zip(y).enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    if let Some(found) = walk(v, w, path) {
                        return Some(found);
                    }
                    path.truncate(len);
                }
                (x.len() != y.len()).then(|| (format!("{} long", x.len()), format!("{} long", y.len())))
            }
            _ => (a != b).then(|| (a.to_string(), b.to_string())),
        }
    }
    let mut path = String::new();
    match walk(a, b, &mut path) {
        Some((was, now)) => format!("{whose} `{path}` was {was}, now {now}"),
        None => format!("{whose} record differs"),
    }
}

/// The dice of a command in progress: asked of the player in manual mode, and recorded.
pub type Dice = Arc<Mutex<Forced>>;

impl Session {
    pub fn setup(&self) -> Setup {
        Setup {
            game: self.game.clone(),
            mission: self.mission.clone(),
            seed: self.seed,
            options: self.options.clone(),
        }
    }

    /// Checks a session read from a file before replaying it: its format, its package, and
    /// that each command is one a player could have typed (one line of at most
    /// [`MAX_COMMAND_BYTES`]).
    ///
    /// [`MAX_COMMAND_BYTES`]: crate::limits::MAX_COMMAND_BYTES
    pub fn check(&self, package: &str) -> Result<(), String> {
        if self.format != SESSION_FORMAT || !(1..=SESSION_VERSION).contains(&self.version) {
            return Err(format!(
                "this is a `{}` file, version {}; servitor play reads `{SESSION_FORMAT}` versions 1 to {SESSION_VERSION}",
                self.format, self.version
            ));
        }
        if self.version == 1 && self.manual_dice {
            // Version 1 replayed a typed die without moving the game's stream, so what came
            // after a die servitor rolled in the same game may come out otherwise now.
            return Err(
                "this save was written by an older servitor (save version 1) for a game with dice typed at \
                 the table, and this servitor cannot promise to replay it as it was played: start a new game \
                 (the commands played are listed in the file under `entries`)"
                    .into(),
            );
        }
        if self.package != package {
            return Err(format!(
                "the session is a game of `{}`, not of `{package}`",
                self.package
            ));
        }
        for (n, entry) in self.entries.iter().chain(self.redo.iter().rev()).enumerate() {
            check_line(&entry.line).map_err(|e| format!("command {} of the save: {e}", n + 1))?;
        }
        Ok(())
    }

    /// Whether the player rolls the dice of the next command: the start's way, switched by
    /// each `dice` entry.
    pub fn manual_now(&self) -> bool {
        self.entries
            .iter()
            .fold(self.manual_dice, |manual, e| dice_switch(&e.line).unwrap_or(manual))
    }

    /// The game as the session's commands leave it. Everything the save says is checked by
    /// the replay: the game, mission, seed and options as a new game checks them, the side
    /// against the game's sides, and every saved die against the die the replay rolls with
    /// it (a face it has, and as many dice as it rolls: with manual dice each command keeps
    /// its own, with automatic dice the seed gives them and none are saved).
    pub fn replay(&self, host: &mut Host) -> Result<Game, GameError> {
        self.replay_steps(host, false).map(|(game, _)| game).map_err(|(_, e)| e)
    }

    /// [`Self::replay`], keeping (with `keep`) where the log ended and the state after each
    /// step (0: the set-up and the phases before the player's first turn; n: command n); an
    /// error names the step it came at.
    fn replay_steps(&self, host: &mut Host, keep: bool) -> Result<(Game, Vec<Step>), (usize, GameError)> {
        let mut steps = Vec::new();
        let mut mark = |game: &Game| {
            if keep {
                steps.push(Step {
                    events: game.events.len(),
                    state: game.state.clone(),
                });
            }
        };
        let sides = &host.game_def(self.game.as_deref()).map_err(|e| (0, e))?.sides;
        if !sides.contains(&self.side) {
            return Err((
                0,
                GameError::Save(format!(
                    "the save plays side `{}`, which is not a side of this game (sides: {})",
                    self.side,
                    sides.join(", ")
                )),
            ));
        }
        if !self.manual_dice && !self.start_dice.is_empty() {
            return Err((
                0,
                GameError::Save(
                    "the save has dice for its setup, but its dice are rolled by servitor (`manual_dice` is false)"
                        .into(),
                ),
            ));
        }
        let at_start = |e| (0, e);
        let mut game = host.start(&self.setup(), Some(0)).map_err(at_start)?;
        let dice: Dice = Arc::new(Mutex::new(Forced::default()));
        force(&dice, self.manual_dice, &self.start_dice, &self.start_choices);
        game.forced = Some(dice.clone());
        game = host.advance_to(game, &self.side).map_err(at_start)?;
        check_dice(&dice, &self.start_dice, "the setup").map_err(|m| at_start(GameError::Save(m)))?;
        check_choices(&dice, "the setup").map_err(|m| at_start(GameError::Save(m)))?;
        mark(&game);
        let mut manual = self.manual_dice;
        for (n, entry) in self.entries.iter().enumerate() {
            let what = || format!("command {} (`{}`)", n + 1, entry.line);
            let at = |e| (n + 1, e);
            if let Some(switch) = dice_switch(&entry.line) {
                if !entry.dice.is_empty() || !entry.choices.is_empty() {
                    return Err(at(GameError::Save(format!(
                        "{}: it rolls no dice and asks nothing",
                        what()
                    ))));
                }
                manual = switch;
                mark(&game);
                continue;
            }
            if !manual && !entry.dice.is_empty() {
                return Err(at(GameError::Save(format!(
                    "{}: the save has dice for it, but servitor rolled its dice (no `dice manual` before it)",
                    what()
                ))));
            }
            force(&dice, manual, &entry.dice, &entry.choices);
            game = run_line(host, game, &entry.line, &self.side).map_err(|e| {
                at(match e {
                    GameError::Refused(m) => GameError::Save(format!("{} no longer plays: {m}", what())),
                    other => other,
                })
            })?;
            check_dice(&dice, &entry.dice, &what()).map_err(|m| at(GameError::Save(m)))?;
            check_choices(&dice, &what()).map_err(|m| at(GameError::Save(m)))?;
            mark(&game);
        }
        Ok((game, steps))
    }

    /// Replays the session on `other` (its package loaded again) beside the game `host`
    /// plays, step by step: the game `other` gives when every step comes out the same
    /// (events and state), else where it first parts from the game played and how.
    pub fn replay_again(&self, host: &mut Host, other: &mut Host) -> Result<Result<Game, Parting>, GameError> {
        let (was_game, was) = self.replay_steps(host, true).map_err(|(_, e)| e)?;
        let parting = |step: usize, what: String| Parting {
            step,
            line: step
                .checked_sub(1)
                .and_then(|n| self.entries.get(n))
                .map(|e| e.line.clone()),
            what,
        };
        let (game, now) = match self.replay_steps(other, true) {
            Ok(replayed) => replayed,
            Err((step, error)) => {
                let why = error.refusal_line(other.ruleset());
                return Ok(Err(parting(step, format!("it no longer plays: {why}"))));
            }
        };
        for (step, (a, b)) in was.iter().zip(&now).enumerate() {
            // The steps before came out the same, so both logs are alike up to here.
            let from = step.checked_sub(1).map_or(0, |s| was[s].events);
            let (old, new) = (&was_game.events[from..a.events], &game.events[from..b.events]);
            if let Some(k) = (0..old.len().max(new.len())).find(|&k| old.get(k) != new.get(k)) {
                // Said in the player's view: a reload never shows what the player may not know.
                let (old, new) = (
                    super::event::player_log(&was_game.events[..a.events]),
                    super::event::player_log(&game.events[..b.events]),
                );
                let what = match (old.get(from + k), new.get(from + k)) {
                    (Some(o), Some(n)) if o.text != n.text => {
                        format!("its log said \"{}\", now \"{}\"", o.text, n.text)
                    }
                    (Some(o), Some(n)) if o != n => format!(
                        "its log says \"{}\" as before, but {}",
                        o.text,
                        first_difference(&to_json(o), &to_json(n), "the event's")
                    ),
                    (Some(o), Some(_)) => format!(
                        "its log says \"{}\" as before, but something the player does not see of it differs",
                        o.text
                    ),
                    (Some(o), None) => format!("its log said \"{}\", now nothing more", o.text),
                    (None, Some(n)) => format!("its log now goes on with \"{}\"", n.text),
                    (None, None) => "its log differs".into(),
                };
                return Ok(Err(parting(step, what)));
            }
            if a.state != b.state {
                let what = state_difference(&a.state, &b.state);
                return Ok(Err(parting(step, format!("the same log, but {what}"))));
            }
        }
        Ok(Ok(game))
    }

    /// Checks what `redo` would put back: the commands taken back play, in turn, on the game
    /// the session's commands leave (a resume reads them from an untrusted file).
    pub fn check_redo(&self, host: &mut Host) -> Result<(), GameError> {
        if self.redo.is_empty() {
            return Ok(());
        }
        let mut whole = self.clone();
        whole.entries.extend(self.redo.iter().rev().cloned());
        whole.redo.clear();
        whole.replay(host).map(|_| ()).map_err(|e| match e {
            GameError::Save(m) => GameError::Save(format!("what `redo` would put back: {m}")),
            other => other,
        })
    }
}

/// Plays one command of a session on `game`: a line the player typed, its dice and answers
/// coming from `dice` as the front end set it up (asked at the table, or servitor's), or a
/// redone command (`saved`), given its saved dice and answers again. Returns the game and the
/// entry that replays the command: with manual dice every die as the face it showed, whoever
/// rolled it, and every answer. `dice manual` and `dice auto` switch who rolls from the next
/// command on. Every front end goes through here, so a command is kept the same way in all.
pub fn play_line(
    host: &mut Host,
    game: Game,
    session: &Session,
    line: &str,
    dice: &Dice,
    saved: Option<&Entry>,
) -> Result<(Game, Entry), GameError> {
    let manual = session.manual_now();
    if line.split_whitespace().next() == Some(DICE_COMMAND) {
        let Some(switch) = dice_switch(line) else {
            return Err(GameError::Refused(
                "`dice manual` lets you roll every die from the next command on, `dice auto` lets servitor roll them"
                    .into(),
            ));
        };
        if switch == manual {
            return Err(GameError::Refused(format!(
                "the dice are {} already",
                if manual { "manual" } else { "auto" }
            )));
        }
        let entry = Entry {
            line: line.split_whitespace().collect::<Vec<_>>().join(" "),
            ..Entry::default()
        };
        return Ok((game, entry));
    }
    {
        let mut d = lock(dice);
        if let Some(entry) = saved {
            d.values = entry.dice.iter().copied().collect();
            d.choices = entry.choices.iter().copied().collect();
        }
        d.misfits.clear();
        d.record = manual.then(Vec::new);
        d.servitor_rolled.clear();
        d.choice_record = Some(Vec::new());
        d.asks_picks = true;
    }
    let mut game = game;
    game.forced = Some(dice.clone());
    let game = run_line(host, game, line, &session.side)?;
    if let Some(entry) = saved {
        // A redone command's saved dice must fit the dice it rolls, as on a resume.
        if manual {
            check_dice(dice, &entry.dice, &format!("`{line}`")).map_err(GameError::Refused)?;
        }
        return Ok((game, entry.clone()));
    }
    let mut d = lock(dice);
    let entry = Entry {
        line: line.to_string(),
        dice: d.record.take().unwrap_or_default(),
        servitor_rolled: if manual {
            d.servitor_rolled.iter().map(|&k| k as u64 + 1).collect()
        } else {
            Vec::new()
        },
        choices: d.choice_record.take().unwrap_or_default(),
    };
    Ok((game, entry))
}

/// `dice manual` or `dice auto`: whether it switches to the player's dice; `None` for any
/// other line.
pub fn dice_switch(line: &str) -> Option<bool> {
    let mut words = line.split_whitespace();
    if words.next() != Some(DICE_COMMAND) {
        return None;
    }
    let switch = match words.next() {
        Some("manual") => true,
        Some("auto") => false,
        _ => return None,
    };
    words.next().is_none().then_some(switch)
}

/// Sets `dice` to give `values` next, recording what is rolled (manual dice), and the
/// answers `choices` to the questions asked; a question past them is an error of the save.
fn force(dice: &Dice, manual: bool, values: &[u64], choices: &[u64]) {
    let mut d = lock(dice);
    d.values = values.iter().copied().collect();
    d.misfits.clear();
    d.record = manual.then(Vec::new);
    d.servitor_rolled.clear();
    d.choices = choices.iter().copied().collect();
    d.strict_choices = true;
    d.choices_short = false;
    d.asks_picks = true;
}

/// After a command was replayed with its saved answers: every one was asked for.
pub fn check_choices(dice: &Dice, what: &str) -> Result<(), String> {
    if lock(dice).choices_short {
        return Err(format!("{what}: the save has fewer answers than it asks questions"));
    }
    let left = lock(dice).choices.len();
    if left > 0 {
        return Err(format!(
            "{what}: the save has {left} more answer{} than it asks questions",
            if left == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

/// A command as a player may type it: one line of at most [`MAX_COMMAND_BYTES`].
///
/// [`MAX_COMMAND_BYTES`]: crate::limits::MAX_COMMAND_BYTES
pub fn check_line(line: &str) -> Result<(), String> {
    use crate::limits::MAX_COMMAND_BYTES;
    if line.len() as u64 > MAX_COMMAND_BYTES {
        return Err(format!(
            "a command is at most {} bytes (`MAX_COMMAND_BYTES`, see \"Limits\" in docs/limits.md); this one has {}",
            crate::diagnostic::thousands(MAX_COMMAND_BYTES),
            crate::diagnostic::thousands(line.len() as u64)
        ));
    }
    if line.contains(['\n', '\r']) {
        return Err("a command is one line".into());
    }
    Ok(())
}

/// After a command was played with `saved` as its dice (see [`Session::replay`]): each die
/// given fitted the die it was given to, every one was used, and none was rolled past them.
pub fn check_dice(dice: &Dice, saved: &[u64], what: &str) -> Result<(), String> {
    let d = lock(dice);
    if let Some((value, faces)) = d.misfits.first() {
        return Err(format!(
            "{what}: a die saved as {value} was given to a die with {faces} faces (face positions are 1 to {faces})"
        ));
    }
    let rolled = match &d.record {
        Some(record) => record.len(),
        None => saved.len() - d.values.len(),
    };
    if rolled != saved.len() {
        return Err(format!(
            "{what}: the save has {} dice for it, but it rolls {rolled}",
            saved.len()
        ));
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs one typed line: `end`, or a command of the game with its words.
pub fn run_line(host: &mut Host, game: Game, line: &str, side: &str) -> Result<Game, GameError> {
    let mut words = line.split_whitespace().map(str::to_string);
    let Some(first) = words.next() else {
        return Err(GameError::Refused("type a command (`help` lists them)".into()));
    };
    if first == "end" {
        return host.end_phase(game, side);
    }
    if first == "fix" {
        // The player's correction: the table is the truth.
        let words: Vec<String> = words.collect();
        let mut game = game;
        game.correct(&words).map_err(GameError::Refused)?;
        return Ok(game);
    }
    host.command(game, &first, words.collect())
}

/// What `undo` says: the command taken back and, in the player's view, what to put back on
/// the table, last first (the pieces that moved, came, went or were revealed since
/// `kept` events); an `end` taken back says its enemy turn will play the same again.
pub fn took_back(line: &str, before: &[Event], kept: usize) -> String {
    const ON_THE_TABLE: [&str; 10] = [
        "move",
        "place",
        "enter",
        "leave",
        "remove",
        "reveal",
        "damage",
        "door",
        "face",
        "correction",
    ];
    let seen = super::event::player_log(before);
    let undone: Vec<&Event> = seen
        .iter()
        .skip(kept)
        .filter(|e| ON_THE_TABLE.contains(&e.kind.as_str()))
        .collect();
    let mut out = format!("took back `{line}`");
    if !undone.is_empty() {
        out.push_str(&format!(
            "; set the table back by undoing these, last first ({}):",
            undone.len()
        ));
        for e in undone.iter().rev().take(MAX_UNDONE_SHOWN) {
            out.push_str(&format!("\n  - {}", e.text));
        }
        if undone.len() > MAX_UNDONE_SHOWN {
            out.push_str(&format!(
                "\n  - … and {} more before them",
                undone.len() - MAX_UNDONE_SHOWN
            ));
        }
    }
    if line.split_whitespace().next() == Some("end") {
        out.push_str(
            "\nwith servitor's dice, `end` again plays the same enemy turn (its dice come from the game's seed: not a new roll); `redo` puts this one back as it was",
        );
    }
    out
}

/// How many of the moves an `undo` takes back it lists.
const MAX_UNDONE_SHOWN: usize = 20;
