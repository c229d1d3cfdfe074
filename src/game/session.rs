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

    /// Checks a session read from a file before replaying it.
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
        Ok(())
    }

    /// The game as the session's commands leave it.
    pub fn replay(&self, host: &mut Host) -> Result<Game, GameError> {
        let mut game = host.start(&self.setup(), Some(0))?;
        let dice: Dice = Arc::new(Mutex::new(Forced {
            values: self.start_dice.iter().copied().collect(),
            ..Forced::default()
        }));
        game.forced = Some(dice.clone());
        game = host.advance_to(game, &self.side)?;
        for (n, entry) in self.entries.iter().enumerate() {
            lock(&dice).values = entry.dice.iter().copied().collect();
            game = run_line(host, game, &entry.line, &self.side).map_err(|e| match e {
                GameError::Refused(m) => {
                    GameError::Save(format!("command {} (`{}`) no longer plays: {m}", n + 1, entry.line))
                }
                other => other,
            })?;
        }
        Ok(game)
    }
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
