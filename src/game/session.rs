//! A game at a real table (`servitor play`): the setup and the commands the player typed,
//! each with the dice it used. The game is whatever replaying them gives, so a save is small,
//! `undo` is "replay one fewer", `redo` puts the same command (and dice) back, and both work
//! the same after a resume. Replays are cheap: a whole game plays in about a millisecond.

use super::Game;
use super::host::{GameError, Host, Setup};
use crate::dice::rng::Forced;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

pub const SESSION_FORMAT: &str = "servitor-play";
pub const SESSION_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// What the player typed.
    pub line: String,
    /// Every die the command rolled, as face positions from 1 (manual dice only: with
    /// automatic dice the seed gives them again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<u64>,
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
        if self.format != SESSION_FORMAT || self.version != SESSION_VERSION {
            return Err(format!(
                "this is a `{}` file, version {}; servitor play reads `{SESSION_FORMAT}` version {SESSION_VERSION}",
                self.format, self.version
            ));
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

    /// The game as the session's commands leave it. Everything the save says is checked by
    /// the replay: the game, mission, seed and options as a new game checks them, the side
    /// against the game's sides, and every saved die against the die the replay rolls with
    /// it (a face it has, and as many dice as it rolls: with manual dice each command keeps
    /// its own, with automatic dice the seed gives them and none are saved).
    pub fn replay(&self, host: &mut Host) -> Result<Game, GameError> {
        let sides = &host.game_def(self.game.as_deref())?.sides;
        if !sides.contains(&self.side) {
            return Err(GameError::Save(format!(
                "the save plays side `{}`, which is not a side of this game (sides: {})",
                self.side,
                sides.join(", ")
            )));
        }
        let saved_dice = self.entries.iter().chain(&self.redo).any(|e| !e.dice.is_empty());
        if !self.manual_dice && (saved_dice || !self.start_dice.is_empty()) {
            return Err(GameError::Save(
                "the save has dice for its commands, but its dice are rolled by servitor (`manual_dice` is false)"
                    .into(),
            ));
        }
        let mut game = host.start(&self.setup(), Some(0))?;
        let dice: Dice = Arc::new(Mutex::new(Forced::default()));
        self.force(&dice, &self.start_dice, &self.start_choices);
        game.forced = Some(dice.clone());
        game = host.advance_to(game, &self.side)?;
        check_dice(&dice, &self.start_dice, "the setup").map_err(GameError::Save)?;
        check_choices(&dice, "the setup").map_err(GameError::Save)?;
        for (n, entry) in self.entries.iter().enumerate() {
            self.force(&dice, &entry.dice, &entry.choices);
            let what = || format!("command {} (`{}`)", n + 1, entry.line);
            game = run_line(host, game, &entry.line, &self.side).map_err(|e| match e {
                GameError::Refused(m) => GameError::Save(format!("{} no longer plays: {m}", what())),
                other => other,
            })?;
            check_dice(&dice, &entry.dice, &what()).map_err(GameError::Save)?;
            check_choices(&dice, &what()).map_err(GameError::Save)?;
        }
        Ok(game)
    }

    /// Sets `dice` to give `values` next, recording what is rolled (manual dice), and the
    /// answers `choices` to the questions asked.
    fn force(&self, dice: &Dice, values: &[u64], choices: &[u64]) {
        let mut d = lock(dice);
        d.values = values.iter().copied().collect();
        d.misfits.clear();
        d.record = self.manual_dice.then(Vec::new);
        d.choices = choices.iter().copied().collect();
    }
}

/// After a command was replayed with its saved answers: every one was asked for.
pub fn check_choices(dice: &Dice, what: &str) -> Result<(), String> {
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
            "a command is at most {} bytes (`MAX_COMMAND_BYTES`, see \"Limits\" in grammar/README.md); this one has {}",
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
    host.command(game, &first, words.collect())
}
