//! The turn runner: one sandboxed engine per host (a host plays many games, one after the
//! other; `sim` keeps a host per thread), setup, turns of phases, the end of the game, and
//! save / load.
//!
//! - Each mission's grid under the game's doorway rule, and its open board (`OpenBoard`, with
//!   its distance fields), are built once per host and shared by its games.
//! - The turn loop skips a `first-turn` phase after turn 1, without logging it or counting it
//!   as a phase.
//! - [`Host::status_lines`] runs the package's `status` function on a copy of the game: what
//!   the player's `status` adds.
//! - [`Host::scenario`] plays a scenario: from an empty board, or (`from_setup`) after the
//!   game's own set-up.
//! - A save is untrusted. [`Host::load`] checks its options as `--set`'s are checked, replays
//!   its log to its state, and plays the game again from its mission, seed and options for
//!   as many phases as its log began: the save must be that game — log, state, next phase and
//!   streams — or it is refused. [`encode`] writes a save as compact JSON within
//!   `MAX_SAVE_BYTES` that reads back, or refuses before anything is written.

use super::api::{self, GameRef, SharedGame};
use super::state::{Action, GameState, Outcome};
use super::view::OpenBoard;
use super::view::View;
use super::{Event, Game};
use crate::board::Square;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::dice::Rng;
use crate::ruleset::{GameDef, Ruleset};
use crate::script::RunState;
use indexmap::IndexMap;
use rhai::{CallFnOptions, Dynamic, Scope};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The save format's name and version: a save of another version is refused, not guessed at.
pub const SAVE_FORMAT: &str = "servitor-game";
pub const SAVE_VERSION: u32 = 1;

/// What a new game needs.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The `game` item; `None` when the package has exactly one.
    pub game: Option<String>,
    pub mission: String,
    pub seed: u64,
    /// `name=value` texts over the game's options.
    pub options: Vec<(String, String)>,
}

/// A board laid out by a script, dice forced, functions to play: a behaviour's test case.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub game: Option<String>,
    pub mission: String,
    pub seed: u64,
    /// Rhai text defining `fn scenario(game)`, which lays out the pieces.
    pub script: String,
    /// Forced dice, in the order they are rolled (face positions from 1).
    pub dice: Vec<u64>,
    /// Functions to play after the layout, in order.
    pub calls: Vec<String>,
    /// The game's options (`// set: name=value`), checked as `--set` is.
    pub options: Vec<(String, String)>,
    /// The player's answers to the game's questions (`game.ask`), in order, as positions from
    /// 1 among the choices (0: the default); a question past them gets its default.
    pub answers: Vec<u64>,
    /// Values forced by kind and stream (`// dice: tie@alien-turn=2 random=4`).
    pub named: Vec<crate::dice::rng::Queue>,
    /// The turn the calls play in (`// turn: 3`; 1 unless given).
    pub turn: u32,
    /// Keep every random draw of the run, for `--explain`.
    pub explain: bool,
    /// Start from the game's own set-up (`// from: setup`): its setup function plays first, as
    /// in a game, and `fn scenario(game)` (optional then) only changes what the case needs.
    pub from_setup: bool,
}

/// What a scenario played: the game, the forced values that did not fit their draw (value,
/// among how many), and with `explain` every random draw of the run.
pub struct Played {
    pub game: Game,
    pub misfits: Vec<(u64, u64)>,
    pub draws: Vec<crate::dice::rng::Drawn>,
}

/// Why a game could not be played.
#[derive(Debug)]
pub enum GameError {
    /// The command line was wrong (unknown game, mission or option).
    Usage(String),
    /// A script failed: a diagnostic at its line, with the log up to there.
    Script {
        diagnostic: Box<Diagnostic>,
        events: Vec<Event>,
        turn: u32,
    },
    /// A save could not be read.
    Save(String),
    /// A scenario's own script failed to compile or run (its file is not one of the
    /// package's sources, so this is a message, not a diagnostic).
    Scenario(String),
    /// A player's command was refused (a one-line reason); nothing it did counts.
    Refused(String),
}

impl GameError {
    /// Why a player's command was not done, on one line: the refusal's own words, or, when
    /// the package's script failed on it, that it could not, why and where (for its author).
    pub fn refusal_line(self, ruleset: &Ruleset) -> String {
        match self {
            GameError::Refused(m) | GameError::Usage(m) | GameError::Save(m) | GameError::Scenario(m) => {
                crate::escape::one_line(&m).into_owned()
            }
            GameError::Script { diagnostic, .. } => format!(
                "the package's script could not do this ({}, at {})",
                crate::escape::one_line(&diagnostic.message),
                ruleset.sources.locate(diagnostic.span)
            ),
        }
    }
}

/// A finished (or stopped) game: how it ended and everything that happened.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GameRecord {
    pub seed: u64,
    pub result: Summary,
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// The winning side, `none` for no winner, or `unfinished`.
    pub winner: String,
    pub reason: String,
    pub scores: IndexMap<String, i64>,
    pub turns: u32,
}

/// A game between two phases, as one versioned JSON document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Save {
    pub format: String,
    pub version: u32,
    pub package: String,
    pub game: String,
    pub mission: String,
    pub seed: u64,
    pub options: IndexMap<String, Json>,
    /// The turn and the index of the phase to play next.
    pub next: (u32, usize),
    pub state: GameState,
    /// Stream name → position (a decimal text: positions exceed JSON's safe integers).
    pub streams: IndexMap<String, String>,
    pub events: Vec<Event>,
}

/// Plays games of one package. Building the engine costs more than a short game, so a host
/// is made once per thread and reused.
pub struct Host {
    ruleset: Arc<Ruleset>,
    engine: rhai::Engine,
    /// What the engine's runs spend; a game's runs add up (`MAX_GAME_*` limits).
    budget: Arc<crate::script::Budget>,
    game: SharedGame,
    run: Arc<Mutex<RunState>>,
    /// Mission → its grid with every door open (for distances).
    open_grids: HashMap<(String, bool), Arc<OpenBoard>>,
    /// Mission and doorway rule → the mission's grid under that rule, each game's copy.
    grids: HashMap<(String, bool), crate::board::Grid>,
}

impl Host {
    pub fn new(ruleset: &Arc<Ruleset>) -> Host {
        let run = Arc::new(Mutex::new(RunState {
            rng: Rng::seeded(0),
            steps: Vec::new(),
            dice_cache: Default::default(),
            show: None,
        }));
        let (mut engine, budget) = crate::script::engine_and_budget_for(ruleset, &run);
        let game: SharedGame = Arc::new(Mutex::new(None));
        api::register(&mut engine, &game, &run, &budget);
        Host {
            ruleset: ruleset.clone(),
            engine,
            budget,
            game,
            run,
            open_grids: HashMap::new(),
            grids: HashMap::new(),
        }
    }

    pub fn ruleset(&self) -> &Arc<Ruleset> {
        &self.ruleset
    }

    /// What the current game's script runs have spent so far (operations, work, log, time).
    pub fn spent(&self) -> crate::script::Spent {
        self.budget.spent()
    }

    /// The `game` item a setup names (or the package's only one).
    pub fn game_def(&self, id: Option<&str>) -> Result<&GameDef, GameError> {
        let games = &self.ruleset.games;
        match id {
            Some(id) => games.get(id).ok_or_else(|| {
                let hint = did_you_mean(id, games.keys().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                GameError::Usage(format!("no game `{id}` in {}{hint}", self.ruleset.name()))
            }),
            None => match games.len() {
                1 => Ok(&games[0]),
                0 => Err(GameError::Usage(format!(
                    "{} declares no `game`: it has tables and procedures but cannot be played whole",
                    self.ruleset.name()
                ))),
                _ => Err(GameError::Usage(format!(
                    "{} declares several games: choose one with --game ({})",
                    self.ruleset.name(),
                    games.keys().cloned().collect::<Vec<_>>().join(", ")
                ))),
            },
        }
    }

    /// The game `setup` describes, before anything is played (its set-up function has not
    /// run: [`Host::advance`] with `Some(0)` runs it).
    pub fn new_game(&mut self, setup: &Setup) -> Result<Game, GameError> {
        let def = self.game_def(setup.game.as_deref())?.clone();
        let options = options(&self.ruleset, &def, &setup.options)?;
        self.make_game(def, &setup.mission, setup.seed, options)
    }

    fn make_game(
        &mut self,
        def: GameDef,
        mission: &str,
        seed: u64,
        options: IndexMap<String, Json>,
    ) -> Result<Game, GameError> {
        let mut grid = match self.ruleset.missions.get(mission) {
            Some(m) if !m.grid.is_empty() => m.grid.clone(),
            // A data-only mission of a package with battlefields is played on the battlefield
            // its setup chooses (`game.use_battlefield`): no grid.
            _ if self.ruleset.battlefield_mission(mission) => crate::board::Grid::new(0, 0),
            Some(_) => return Err(GameError::Usage(format!("mission `{mission}` has no map to play on"))),
            None => {
                let missions = self.ruleset.playable_missions();
                let hint = did_you_mean(mission, missions.iter().copied())
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                return Err(GameError::Usage(format!(
                    "no mission `{mission}` in {}{hint}\nmissions: {}",
                    self.ruleset.name(),
                    missions.join(", ")
                )));
            }
        };
        if !grid.is_empty() {
            // The mission's grid under the game's doorway rule, set up once a thread: setting
            // the rule works out every square's steps again.
            grid = self
                .grids
                .entry((mission.to_string(), def.doors.straight))
                .or_insert_with(|| {
                    grid.set_straight_doorways(def.doors.straight);
                    grid
                })
                .clone();
        }
        let open = self
            .open_grids
            .entry((mission.to_string(), def.doors.straight))
            .or_insert_with(|| Arc::new(OpenBoard::new(&grid)))
            .clone();
        let mut view = View::new(grid, open, def.doors);
        view.sight = def.sight;
        view.friends_block = def.friends_block;
        self.budget.begin_game();
        Ok(Game::new(self.ruleset.clone(), def, mission, seed, options, view))
    }

    /// Plays a new game to its end.
    pub fn play(&mut self, setup: &Setup) -> Result<GameRecord, GameError> {
        let game = self.new_game(setup)?;
        let game = self.advance(game, None)?;
        Ok(record(game))
    }

    /// Starts a game and plays at most `phases` phases (setup counts as one): for saving
    /// mid-game.
    pub fn start(&mut self, setup: &Setup, phases: Option<u32>) -> Result<Game, GameError> {
        let game = self.new_game(setup)?;
        self.advance(game, phases)
    }

    /// Plays on from where `game` stands, for at most `phases` phases, or to the end.
    pub fn advance(&mut self, game: Game, phases: Option<u32>) -> Result<Game, GameError> {
        self.run(game, phases, None)
    }

    /// Plays on until the game ends or a phase of the side `human` is due: that phase begins
    /// and waits for the player's commands ([`Host::command`], [`Host::end_phase`]).
    pub fn advance_to(&mut self, game: Game, human: &str) -> Result<Game, GameError> {
        self.run(game, None, Some(human))
    }

    /// Runs one of the waiting phase's commands: `words` are what the player typed after it.
    /// A refusal (the script's `throw`) is `GameError::Refused`; the caller restores the game.
    pub fn command(&mut self, game: Game, name: &str, words: Vec<String>) -> Result<Game, GameError> {
        if !game.awaiting {
            return Err(GameError::Refused("it is not your turn".into()));
        }
        let Some(command) = game.def.commands.get(name).cloned() else {
            let mut names: Vec<&str> = game.def.commands.keys().map(String::as_str).collect();
            names.push("end");
            let hint = did_you_mean(name, names.iter().copied())
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(GameError::Refused(format!(
                "no command `{name}`{hint} (type `help` for the list)"
            )));
        };
        // A command acts with a piece of the side whose phase it is: the first piece it names
        // must be one of theirs (the others it names may be anyone's: a target, a foe).
        let side = &game.def.phases[game.next.1].side;
        if !command.any_piece
            && let Some(piece) = words.iter().find_map(|w| game.state.piece(w))
            && piece.side != *side
        {
            return Err(GameError::Refused(format!(
                "{} is not yours: you play the {side} side, and a command acts with one of your pieces",
                piece.id
            )));
        }
        let stream = game.state.phase.clone();
        let words: rhai::Array = words.into_iter().map(Dynamic::from).collect();
        let ruleset = self.ruleset.clone();
        let args = vec![Dynamic::from(GameRef), Dynamic::from_array(words)];
        self.call_args(&ruleset.program, game, &command.function, &stream, args, true)
    }

    /// Ends the waiting phase and plays on until the player's side is due again.
    pub fn end_phase(&mut self, mut game: Game, human: &str) -> Result<Game, GameError> {
        if !game.awaiting {
            return Err(GameError::Refused("it is not your turn".into()));
        }
        game = self.finish_activations(game)?;
        game.awaiting = false;
        let (turn, index) = game.next;
        game.next = if index + 1 < game.def.phases.len() {
            (turn, index + 1)
        } else {
            (turn + 1, 0)
        };
        self.run(game, None, Some(human))
    }

    fn run(&mut self, mut game: Game, phases: Option<u32>, human: Option<&str>) -> Result<Game, GameError> {
        let mut budget = phases.unwrap_or(u32::MAX);
        if game.next == (1, 0) && game.events.is_empty() {
            if budget == 0 {
                return Ok(game);
            }
            budget -= 1;
            game.act(
                "phase",
                "setup".into(),
                None,
                Action::Begin {
                    turn: 0,
                    side: String::new(),
                    phase: "setup".into(),
                },
            );
            if let Some(setup) = game.def.setup.clone() {
                game = self.call(game, &setup, "setup")?;
            }
        }
        while game.state.over.is_none() && budget > 0 {
            let (turn, index) = game.next;
            if turn > game.def.max_turns {
                let reason = format!("no side won within {} turns", game.def.max_turns);
                game.act(
                    "end",
                    format!("the game ends with no winner ({reason})"),
                    None,
                    Action::End { winner: None, reason },
                );
                break;
            }
            let phase = game.def.phases[index].clone();
            if phase.first_turn && turn > 1 {
                // A set-up step of turn 1 (deploying): not played again, and not counted.
                game.next = if index + 1 < game.def.phases.len() {
                    (turn, index + 1)
                } else {
                    (turn + 1, 0)
                };
                continue;
            }
            if human == Some(phase.side.as_str()) {
                if !game.awaiting {
                    game.act(
                        "phase",
                        format!("turn {turn}: {} ({})", phase.id, phase.side),
                        None,
                        Action::Begin {
                            turn,
                            side: phase.side.clone(),
                            phase: phase.id.clone(),
                        },
                    );
                    game.awaiting = true;
                }
                return Ok(game);
            }
            game.act(
                "phase",
                format!("turn {turn}: {} ({})", phase.id, phase.side),
                None,
                Action::Begin {
                    turn,
                    side: phase.side.clone(),
                    phase: phase.id.clone(),
                },
            );
            game = self.call(game, &phase.function, &phase.id)?;
            game = self.finish_activations(game)?;
            game.next = if index + 1 < game.def.phases.len() {
                (turn, index + 1)
            } else {
                (turn + 1, 0)
            };
            budget -= 1;
        }
        Ok(game)
    }

    /// The phase is over: the triggers that waited for its last piece to finish acting
    /// (`after-activation`) run now, each on its own stream.
    fn finish_activations(&mut self, mut game: Game) -> Result<Game, GameError> {
        game.end_activation();
        let waiting: Vec<super::Pending> = game.pending.drain(..).collect();
        let ruleset = self.ruleset.clone();
        for p in waiting {
            if game.state.over.is_some() {
                break;
            }
            let args = vec![
                Dynamic::from(GameRef),
                Dynamic::from_map(super::api::trigger_map(&p.event)),
            ];
            game = self.call_args(&ruleset.program, game, &p.function, &p.stream, args, false)?;
        }
        Ok(game)
    }

    /// Calls a phase (or setup) function with the game installed on the engine, rolling on
    /// the stream named `stream`.
    fn call(&mut self, game: Game, function: &str, stream: &str) -> Result<Game, GameError> {
        let ruleset = self.ruleset.clone();
        self.call_in(&ruleset.program, game, function, stream)
    }

    fn call_in(&mut self, program: &rhai::AST, game: Game, function: &str, stream: &str) -> Result<Game, GameError> {
        self.call_args(program, game, function, stream, vec![Dynamic::from(GameRef)], false)
    }

    /// The lines the package's `status` function adds to the player's `status` (none when the
    /// game declares none). It runs on a copy of the game: whatever it changes is dropped. A
    /// failure is one line in the list, never the end of the session.
    pub fn status_lines(&mut self, game: &Game) -> Vec<String> {
        let Some(function) = game.def.status.clone() else {
            return Vec::new();
        };
        let ruleset = self.ruleset.clone();
        let copy = game.clone();
        let args = vec![Dynamic::from(GameRef)];
        match self.call_value(&ruleset.program, copy, &function, super::IDLE_STREAM, args, true) {
            Ok((_, value)) => match value.try_cast::<rhai::Array>() {
                Some(lines) => lines.into_iter().map(|l| l.to_string()).collect(),
                None => vec![format!("(`{function}` returns a list of lines)")],
            },
            Err(e) => vec![format!(
                "(the package's status could not be read: {})",
                e.refusal_line(&ruleset)
            )],
        }
    }

    fn call_args(
        &mut self,
        program: &rhai::AST,
        game: Game,
        function: &str,
        stream: &str,
        args: Vec<Dynamic>,
        refusable: bool,
    ) -> Result<Game, GameError> {
        self.call_value(program, game, function, stream, args, refusable)
            .map(|(game, _)| game)
    }

    /// [`Host::call_args`] with what the function returned.
    fn call_value(
        &mut self,
        program: &rhai::AST,
        game: Game,
        function: &str,
        stream: &str,
        args: Vec<Dynamic>,
        refusable: bool,
    ) -> Result<(Game, Dynamic), GameError> {
        // The game's totals go on from where its last run left them, whatever the host ran
        // in between (another game, a placeholder while a command waits).
        self.budget.resume_game(game.spent);
        *lock(&self.game) = Some(Box::new(game));
        {
            let mut g = lock(&self.game);
            let g = g.as_mut().expect("just installed");
            let mut run = lock(&self.run);
            run.steps.clear();
            g.enter_stream(&mut run.rng, stream);
        }
        let options = CallFnOptions::new().eval_ast(false);
        let mut scope = Scope::new();
        let outcome = self
            .engine
            .call_fn_with_options::<Dynamic>(options, &mut scope, program, function, args);
        if crate::script::profile::enabled() {
            crate::script::profile::end();
        }
        let mut game = *lock(&self.game).take().expect("the game stays installed during a call");
        game.spent = self.budget.spent();
        {
            let mut run = lock(&self.run);
            let steps = std::mem::take(&mut run.steps);
            game.absorb(steps);
            game.leave_stream(&mut run.rng, super::IDLE_STREAM.into());
            game.end_move();
            game.pending.clear();
        }
        match outcome {
            Ok(value) => Ok((game, value)),
            Err(error) if refusable && refusal(&error).is_some() => {
                Err(GameError::Refused(refusal(&error).unwrap_or_default()))
            }
            Err(error) if !self.in_package(&error, function) => {
                // A scenario's own function: its file is not part of the package's sources.
                Err(GameError::Scenario(format!("in the scenario script: {error}")))
            }
            Err(error) => {
                let what = format!("`{function}` (turn {}, {})", game.state.turn, game.state.phase);
                let diagnostic = crate::script::script_failure(*error, &self.ruleset, function, &what);
                Err(GameError::Script {
                    diagnostic: Box::new(diagnostic),
                    turn: game.state.turn,
                    events: game.events,
                })
            }
        }
    }

    /// Plays a scenario: the board laid out by the scenario's `fn scenario(game)` instead of
    /// the game's setup, dice forced, then the named functions in order (a phase function
    /// plays as its phase). Returns the game and the forced dice that did not fit a die.
    pub fn scenario(&mut self, sc: &Scenario) -> Result<Played, GameError> {
        let def = self.game_def(sc.game.as_deref())?.clone();
        let options = options(&self.ruleset, &def, &sc.options)?;
        let mut game = self.make_game(def, &sc.mission, sc.seed, options)?;
        let forced = Arc::new(Mutex::new(crate::dice::rng::Forced {
            values: sc.dice.iter().copied().collect(),
            choices: sc.answers.iter().copied().collect(),
            named: sc.named.clone(),
            explain: sc.explain.then(Vec::new),
            ..Default::default()
        }));
        game.forced = Some(forced.clone());
        let ast = self
            .engine
            .compile(&sc.script)
            .map_err(|e| GameError::Scenario(format!("scenario script: {e}")))?;
        let program = self.ruleset.program.merge(&ast);
        if sc.from_setup {
            // The package's own set-up, on the stream a game's runs on: the same board, pools
            // and variables a game of this mission and seed starts with.
            game.act(
                "phase",
                "setup".into(),
                None,
                Action::Begin {
                    turn: 0,
                    side: String::new(),
                    phase: "setup".into(),
                },
            );
            if let Some(setup) = game.def.setup.clone() {
                game = self.call_in(&program, game, &setup, "setup")?;
            }
        }
        let has_layout = ast
            .iter_functions()
            .any(|f| f.name == "scenario" && f.params.len() == 1);
        if has_layout || !sc.from_setup {
            game.act(
                "phase",
                "setup".into(),
                None,
                Action::Begin {
                    turn: 0,
                    side: String::new(),
                    phase: "scenario".into(),
                },
            );
            game = self.call_in(&program, game, "scenario", "scenario")?;
        }
        for function in &sc.calls {
            let (side, phase) = game
                .def
                .phases
                .iter()
                .find(|p| &p.function == function)
                .map_or((String::new(), function.clone()), |p| (p.side.clone(), p.id.clone()));
            game.act(
                "phase",
                format!("turn {}: {phase} ({side})", sc.turn),
                None,
                Action::Begin {
                    turn: sc.turn,
                    side,
                    phase: phase.clone(),
                },
            );
            game = self.call_in(&program, game, function, &phase)?;
            // A call plays as a phase: what waits for its last piece to finish acting runs now.
            game = self.finish_activations(game)?;
        }
        let misfits = std::mem::take(&mut lock(&forced).misfits);
        let draws = lock(&forced).explain.take().unwrap_or_default();
        let left = lock(&forced).left_over();
        if !left.is_empty() {
            return Err(GameError::Usage(format!(
                "the scenario forced more than was drawn: {} left over",
                left.join(" ")
            )));
        }
        if !lock(&forced).values.is_empty() {
            let left: Vec<String> = lock(&forced).values.iter().map(u64::to_string).collect();
            return Err(GameError::Usage(format!(
                "the scenario forced more dice than were rolled: {} left over",
                left.join(" ")
            )));
        }
        if !lock(&forced).choices.is_empty() {
            let left: Vec<String> = lock(&forced).choices.iter().map(u64::to_string).collect();
            return Err(GameError::Usage(format!(
                "the scenario gave more answers than questions were asked: {} left over",
                left.join(" ")
            )));
        }
        Ok(Played { game, misfits, draws })
    }

    /// Whether the innermost function of a failure belongs to the package's scripts.
    /// Whether the error arose in the package's scripts rather than a scenario's own: some
    /// function on its call chain is the package's (the innermost may be one of Rhai's own,
    /// `filter` or `some`, called with a closure).
    fn in_package(&self, error: &rhai::EvalAltResult, entry: &str) -> bool {
        let ours = |f: &str| {
            self.ruleset
                .scripts
                .iter()
                .any(|s| s.functions.iter().any(|(n, _)| n == f))
        };
        let mut found = ours(entry);
        let mut e = error;
        while let rhai::EvalAltResult::ErrorInFunctionCall(name, _, inner, _) = e {
            found |= ours(name);
            e = inner;
        }
        found
    }

    /// A game between phases as a save document.
    pub fn save(&self, game: &Game) -> Save {
        Save {
            format: SAVE_FORMAT.into(),
            version: SAVE_VERSION,
            package: self.ruleset.name().to_string(),
            game: game.def.id.clone(),
            mission: game.mission.clone(),
            seed: game.seed,
            options: game.options.clone(),
            next: game.next,
            state: game.state.clone(),
            streams: game.stream_positions(),
            events: game.events.clone(),
        }
    }

    /// A saved game, ready to play on. A save is a file anyone may edit, so nothing in it is
    /// taken on trust: its options go through the checks the command line's do, its log must
    /// replay to its state, and then the whole game is played again from its mission, seed
    /// and options for as many phases as the log has begun — the save must be exactly that
    /// game (log, state, next phase, the position of every random stream). The game returned
    /// is the one played again, so it goes on as the game that never stopped would.
    pub fn load(&mut self, save: Save) -> Result<Game, GameError> {
        if save.format != SAVE_FORMAT || save.version != SAVE_VERSION {
            return Err(GameError::Save(format!(
                "this is a `{}` save, version {}; this servitor reads `{SAVE_FORMAT}` version {SAVE_VERSION}",
                save.format, save.version
            )));
        }
        if save.package != self.ruleset.name() {
            return Err(GameError::Save(format!(
                "the save is a game of `{}`, not of `{}`",
                save.package,
                self.ruleset.name()
            )));
        }
        // What the save names wrongly is the save's fault, not the command line's.
        let in_save = |e: GameError| match e {
            GameError::Usage(m) => GameError::Save(format!("the save names {m}")),
            other => other,
        };
        let def = self.game_def(Some(&save.game)).map_err(in_save)?.clone();
        let options = saved_options(&self.ruleset, &def, &save.options)?;
        // Rebuild by replaying the log's actions: the save's state must agree.
        let mut replayed = GameState::default();
        for e in &save.events {
            if let Some(action) = &e.action
                && !super::state::apply(&mut replayed, action)
            {
                return Err(GameError::Save(format!(
                    "the log does not replay: the action {} cannot be done there",
                    crate::escape::one_line(&serde_json::to_string(action).unwrap_or_default())
                )));
            }
        }
        if replayed != save.state {
            return Err(GameError::Save("the saved state is not what its log replays to".into()));
        }
        let game = self
            .make_game(def, &save.mission, save.seed, options)
            .map_err(in_save)?;
        check_save(&game, save.next, &save.state)?;
        let phases = save
            .events
            .iter()
            .filter(|e| matches!(e.action, Some(Action::Begin { .. })))
            .count();
        let phases = u32::try_from(phases).unwrap_or(u32::MAX);
        let mut game = self.advance(game, Some(phases))?;
        if game.state.over.is_none() && save.state.over.is_some() {
            // The end past the last turn begins no phase of its own.
            game = self.advance(game, Some(1))?;
        }
        same_game(&self.save(&game), &save)?;
        Ok(game)
    }
}

/// The save's options, each through the same checks as `--set name=value` (its value written
/// as the command line would give it, read back by the type of the option's default and its
/// `of …`); an option the save leaves out has its default, one the game lacks is refused.
fn saved_options(
    ruleset: &Ruleset,
    def: &GameDef,
    saved: &IndexMap<String, Json>,
) -> Result<IndexMap<String, Json>, GameError> {
    let mut given = Vec::new();
    for (name, value) in saved {
        if !def.options.contains_key(name) {
            return Err(GameError::Save(format!(
                "the save sets option `{name}`, which game `{}` does not have",
                def.id
            )));
        }
        let refused = |why: String| GameError::Save(format!("the save's option `{name}` = {value}: {why}"));
        let text = option_text(value).ok_or_else(|| refused("not a value an option takes".into()))?;
        given.push((name.clone(), text));
    }
    let options = options(ruleset, def, &given).map_err(|e| match e {
        GameError::Usage(m) => GameError::Save(format!("the save's options: {m}")),
        other => other,
    })?;
    for (name, value) in saved {
        if options.get(name) != Some(value) {
            return Err(GameError::Save(format!(
                "the save's option `{name}` = {value} is not what its text reads as ({})",
                options.get(name).map_or("nothing".into(), |v| v.to_string())
            )));
        }
    }
    Ok(options)
}

/// An option's saved value as `--set` would give it, if it is one an option can have.
fn option_text(value: &Json) -> Option<String> {
    let item = |v: &Json| match v {
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) if crate::script::args::is_name(s) => Some(s.clone()),
        Json::String(s) => Some(format!(
            "\"{}\"",
            s.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\t', "\\t")
        )),
        _ => None,
    };
    match value {
        Json::Bool(b) => Some(if *b { "yes" } else { "no" }.into()),
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) => Some(s.clone()),
        Json::Array(items) => Some(format!(
            "[{}]",
            items.iter().map(item).collect::<Option<Vec<_>>>()?.join(", ")
        )),
        _ => None,
    }
}

/// The save, field by field, against the game its mission, seed and options play: the first
/// difference refuses it.
fn same_game(played: &Save, saved: &Save) -> Result<(), GameError> {
    let refuse = |what: String| {
        Err(GameError::Save(format!(
            "the save is not the game that mission `{}`, seed {} and its options play: {what}",
            saved.mission, saved.seed
        )))
    };
    if let Some(n) =
        (0..played.events.len().max(saved.events.len())).find(|&n| played.events.get(n) != saved.events.get(n))
    {
        let line = |e: Option<&Event>| {
            e.map_or("nothing".into(), |e| {
                format!("`{}` (turn {})", crate::escape::one_line(&e.text), e.turn)
            })
        };
        let (a, b) = (saved.events.get(n), played.events.get(n));
        let same_words = matches!((a, b), (Some(a), Some(b)) if a.text == b.text);
        return refuse(format!(
            "line {} of its log is {}, where the game has {}{}",
            n + 1,
            line(a),
            line(b),
            if same_words {
                " (the same words, but not the same record: its action, table, result or source differ)"
            } else {
                ""
            }
        ));
    }
    if played.state != saved.state {
        return refuse("its state differs".into());
    }
    if played.next != saved.next {
        return refuse(format!(
            "its next phase is {:?}, where the game's is {:?}",
            saved.next, played.next
        ));
    }
    if played.streams != saved.streams {
        let name = saved
            .streams
            .keys()
            .chain(played.streams.keys())
            .find(|k| saved.streams.get(*k) != played.streams.get(*k))
            .cloned()
            .unwrap_or_default();
        let at = |s: &Save| s.streams.get(&name).map_or("nowhere".into(), |p| format!("at {p}"));
        return refuse(format!(
            "its random stream `{}` stands {}, where the game's stands {}",
            crate::escape::one_line(&name),
            at(saved),
            at(played)
        ));
    }
    Ok(())
}

/// A save (a game's, or a `play` session's) as servitor writes it: compact JSON — indentation
/// grows with nesting, and a game may keep deep values — of at most [`MAX_SAVE_BYTES`], and
/// one that reads back as JSON. Checked before anything is written, so a save servitor writes
/// is always one it can read; over the limit, the caller keeps the previous save.
///
/// [`MAX_SAVE_BYTES`]: crate::limits::MAX_SAVE_BYTES
pub fn encode<T: Serialize + serde::de::DeserializeOwned>(value: &T) -> Result<String, String> {
    use crate::limits::MAX_SAVE_BYTES;
    /// Stops the encoding as soon as it passes the limit: nothing past it is ever held.
    struct Bounded(Vec<u8>);
    impl std::io::Write for Bounded {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if (self.0.len() + buf.len()) as u64 > MAX_SAVE_BYTES {
                return Err(std::io::Error::other("too large"));
            }
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Bounded(Vec::new());
    if let Err(e) = serde_json::to_writer(&mut out, value) {
        return Err(if e.is_io() {
            format!(
                "the save would be larger than {} bytes (`MAX_SAVE_BYTES`, see \"Limits\" in docs/limits.md), which servitor could not read back: it was not written",
                crate::diagnostic::thousands(MAX_SAVE_BYTES)
            )
        } else {
            format!("the game cannot be saved: {e}")
        });
    }
    let text = String::from_utf8(out.0).map_err(|e| format!("the game cannot be saved: {e}"))?;
    // Read back as what it is (a JSON reader stops 128 levels deep, wherever the nesting is).
    serde_json::from_str::<T>(&text).map_err(|e| format!("the save would not read back ({e}): it was not written"))?;
    Ok(text)
}

/// A save is a file anyone may edit, and its log replays whatever it says: what the turn
/// loop and the board index by must fit this game (the next phase, where pieces stand and how
/// big they are), or the save is refused.
fn check_save(game: &Game, next: (u32, usize), state: &GameState) -> Result<(), GameError> {
    let refuse = |m: String| Err(GameError::Save(m));
    let phases = game.def.phases.len();
    if next.1 >= phases {
        return refuse(format!(
            "the save's next phase is number {} of game `{}`, which has {phases}",
            next.1 + 1,
            game.def.id
        ));
    }
    let grid = &game.view.grid;
    let field = state
        .battlefield
        .as_ref()
        .map(|id| {
            game.ruleset
                .battlefields
                .get(id)
                .ok_or_else(|| GameError::Save(format!("the save's battlefield `{id}` is not in this package")))
        })
        .transpose()?;
    for p in &state.pieces {
        // A piece on the board stands on a square or at a point of the battlefield, never both.
        if p.at.is_some() && p.point.is_some() {
            return refuse(format!("piece `{}` stands on a square and at a point", p.id));
        }
        if let Some(point) = p.point {
            let Some(field) = field else {
                return refuse(format!(
                    "piece `{}` stands at a point, but the game has no battlefield",
                    p.id
                ));
            };
            if !p.on_board() {
                return refuse(format!("piece `{}` is `{}` but stands at a point", p.id, p.status));
            }
            if let Err(e) = super::field::may_stand(field, point) {
                return refuse(format!("piece `{}`: {e}", p.id));
            }
            continue;
        }
        if p.on_board() != p.at.is_some() {
            return refuse(format!(
                "piece `{}` is `{}` but stands on {}",
                p.id,
                p.status,
                p.at.map_or("no square".into(), |s| s.to_string())
            ));
        }
        let Some(at) = p.at else { continue };
        if !(1..=8).contains(&p.size) {
            return refuse(format!("piece `{}` has size {}: sizes are 1 to 8", p.id, p.size));
        }
        if !grid.contains(at) || !grid.contains(Square::new(at.x + p.size - 1, at.y + p.size - 1)) {
            return refuse(format!("piece `{}` stands on {at}, off the board", p.id));
        }
    }
    Ok(())
}

/// The message of a script's own `throw "…"` (however deep), which a command uses to refuse.
fn refusal(error: &rhai::EvalAltResult) -> Option<String> {
    let mut e = error;
    while let rhai::EvalAltResult::ErrorInFunctionCall(_, _, inner, _) = e {
        e = inner;
    }
    match e {
        rhai::EvalAltResult::ErrorRuntime(value, _) if value.is_string() => Some(value.to_string()),
        _ => None,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The game's options with `name=value` texts applied, typed by their defaults and checked
/// against their `of …` as a procedure's args are.
fn options(ruleset: &Ruleset, def: &GameDef, given: &[(String, String)]) -> Result<IndexMap<String, Json>, GameError> {
    let mut out: IndexMap<String, Json> = def
        .options
        .iter()
        .map(|(k, o)| (k.clone(), serde_json::to_value(&o.default).unwrap_or(Json::Null)))
        .collect();
    for (name, text) in given {
        let Some(option) = def.options.get(name) else {
            let hint = did_you_mean(name, def.options.keys().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            let list: Vec<&str> = def.options.keys().map(String::as_str).collect();
            return Err(GameError::Usage(format!(
                "game `{}` has no option `{name}`{hint}\noptions: {}",
                def.id,
                if list.is_empty() {
                    "(none)".into()
                } else {
                    list.join(", ")
                }
            )));
        };
        let value = crate::script::args::typed_value(ruleset, option, text, "option").map_err(GameError::Usage)?;
        let value = serde_json::to_value(&value).unwrap_or(Json::Null);
        out.insert(name.clone(), value);
    }
    Ok(out)
}

/// How a game stands, in one line's worth of data.
pub fn summary(game: &Game) -> Summary {
    let (winner, reason) = match &game.state.over {
        Some(Outcome { winner, reason }) => (winner.clone().unwrap_or_else(|| "none".into()), reason.clone()),
        None => ("unfinished".into(), "stopped before the end".into()),
    };
    Summary {
        winner,
        reason,
        scores: game
            .def
            .sides
            .iter()
            .map(|s| (s.clone(), game.state.scores.get(s).copied().unwrap_or(0)))
            .collect(),
        turns: game.state.turn,
    }
}

pub fn record(game: Game) -> GameRecord {
    GameRecord {
        seed: game.seed,
        result: summary(&game),
        events: game.events,
    }
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn a_save_past_the_limit_is_refused_before_anything_is_written() {
        let big = vec!["x".repeat(1 << 20); (crate::limits::MAX_SAVE_BYTES >> 20) as usize + 1];
        let refused = encode(&big).unwrap_err();
        assert!(refused.contains("`MAX_SAVE_BYTES`"), "{refused}");
        // Compact: no indentation, whatever the nesting.
        let deep = serde_json::json!({ "a": [[[[1, 2]]]] });
        assert_eq!(encode(&deep).unwrap(), r#"{"a":[[[[1,2]]]]}"#);
    }

    #[test]
    fn a_save_that_would_not_read_back_is_refused() {
        let mut deep = serde_json::json!(0);
        for _ in 0..200 {
            deep = serde_json::json!([deep]);
        }
        let refused = encode(&deep).unwrap_err();
        assert!(refused.contains("would not read back"), "{refused}");
    }
}
