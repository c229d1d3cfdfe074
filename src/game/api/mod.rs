//! The binding: what behaviours may ask and do during a game, as `game.method(…)` calls on
//! the handle every phase and trigger function receives. This layer only converts a
//! script's values to typed ones and back, charges each call's work to the run's
//! [`Budget`], maps a refusal to a script error at the script's line, and runs the triggers
//! an action queued; what a call decides, asks or changes is a kernel method on [`Game`]
//! (`game/*.rs`, no Rhai). One file per family of calls, each with one `register`:
//! `reads.rs`, `board.rs`, `pieces.rs`, `moves.rs`, `tallies.rs`, `verbs.rs`, `actions.rs`,
//! `field.rs`, `zones.rs`, `combat.rs`. The reference is docs/games.md, "Games".
//!
//! Here: `Api::with`, through which every call reaches the game (the run's rolls moved into
//! the log first, so the log keeps the order things happened in; each line the call logs
//! charged to the run's `Budget`); `Api::cost`, a board question's work charged before it is
//! done; the conversions (squares from `"x,y"`, values to and from JSON, pieces to
//! `PieceView`s); [`function_names`], every name registered, for the load-time script check;
//! and [`register`], which also sets `RunState::show` so a die the player may be asked for
//! comes after the run's rolls and notes so far reach the log.
//!
//! Game calls take the `game` handle by value (it holds nothing: the state is in the host),
//! so a closure may use `game` too. One rule remains for authors: do not chain a call on
//! `game` into a method whose closure uses `game` (`game.pieces(s).filter(|id|
//! game.piece(id)…)`): the script engine locks `game` for the chain and reports a data race.
//! Assign the list first.

use super::pieces::NewFields;
use super::state::Piece;
use super::{Game, Pending};
use crate::board::Square;
use crate::script::{Budget, RunState};
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, Map, NativeCallContext};
use serde_json::Value as Json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

mod actions;
mod board;
mod combat;
mod field;
mod moves;
mod pieces;
mod reads;
mod tallies;
mod verbs;
mod zones;

type Res<T> = Result<T, Box<EvalAltResult>>;
pub type SharedGame = Arc<Mutex<Option<Box<Game>>>>;

/// The handle scripts hold; every call goes to the game being played on this engine.
#[derive(Debug, Clone, Copy)]
pub struct GameRef;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Clone)]
struct Api {
    game: SharedGame,
    run: Arc<Mutex<RunState>>,
    /// The run's budget: every line the game logs is charged to it, and every board question
    /// its work (squares visited), so that a loop of either stops at a limit, the same way
    /// on every machine.
    budget: Arc<Budget>,
    /// Set while triggers run: an action inside a trigger leaves the triggers it queues to
    /// the loop already running, so they run in the order they were queued.
    dispatching: Arc<AtomicBool>,
}

/// Clears the dispatching flag however the trigger loop ends.
struct Dispatch<'a>(&'a AtomicBool);

impl Drop for Dispatch<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl Api {
    /// Runs `f` on the game with the run's rolls so far moved into the log first, so the log
    /// keeps the order in which things happened.
    /// The lines the call adds to the game's log are charged to the run's budget.
    fn with<T>(&self, f: impl FnOnce(&mut Game, &mut RunState) -> Result<T, String>) -> Res<T> {
        let mut guard = lock(&self.game);
        let Some(game) = guard.as_mut() else {
            return Err("no game is being played".into());
        };
        let mut run = lock(&self.run);
        let steps = std::mem::take(&mut run.steps);
        // The steps were charged when the script made them.
        game.absorb(steps);
        let before = game.events.len();
        let out = f(game, &mut run);
        let bytes: usize = game.events[before..].iter().map(json_len).sum();
        self.budget.try_log(bytes)?;
        out.map_err(Into::into)
    }

    /// Charges a board question's work to the run, before it is done, and [`QUESTION_BASE`]
    /// for the call itself (so that a loop of questions on a tiny board stops at the work
    /// limit too, not at the time limit).
    fn cost(&self, units: u64) -> Result<(), String> {
        self.budget.try_charge(units.saturating_add(QUESTION_BASE))
    }

    /// Piece `id` is about to act: the triggers that waited for the piece that acted before
    /// it to finish (`after-activation`) run first.
    fn activate(&self, ctx: &NativeCallContext, id: &str) -> Res<()> {
        let flushed = self.with(|g, _| {
            let i = g.index(id)?;
            let before = g.pending.len();
            g.begin_activation(i);
            Ok(g.pending.len() > before)
        })?;
        if flushed {
            self.triggers(ctx)?;
        }
        Ok(())
    }

    /// Runs the trigger functions that actions queued, each on its own stream. Runs after
    /// the action's lock is released: triggers call the API themselves.
    fn triggers(&self, ctx: &NativeCallContext) -> Res<()> {
        if self.dispatching.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let _dispatch = Dispatch(&self.dispatching);
        loop {
            let next: Option<Pending> = lock(&self.game).as_mut().and_then(|g| g.pending.pop_front());
            let Some(p) = next else { return Ok(()) };
            let previous = self.with(|g, run| Ok(g.enter_stream(&mut run.rng, &p.stream)))?;
            let result = ctx.call_fn::<Dynamic>(&p.function, (GameRef, trigger_map(&p.event)));
            self.with(|g, run| {
                g.leave_stream(&mut run.rng, previous);
                Ok(())
            })?;
            result.map(|_| ())?;
        }
    }
}

/// The map a trigger function is given for its event.
pub fn trigger_map(args: &super::TriggerArgs) -> Map {
    use super::TriggerValue;
    args.0
        .iter()
        .map(|(name, value)| {
            let value = match value {
                TriggerValue::Text(t) => t.clone().into(),
                TriggerValue::Point(p) => Dynamic::from_map(field::point_map(*p)),
                TriggerValue::Points(list) => list
                    .iter()
                    .map(|p| Dynamic::from_map(field::point_map(*p)))
                    .collect::<Array>()
                    .into(),
            };
            ((*name).into(), value)
        })
        .collect()
}

/// Bytes of an event as JSON (what it costs in a save and in `--json` output), counted
/// without building the text.
fn json_len(event: &super::Event) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, event);
    count.0
}

/// What any board question costs besides its squares, in work units.
const QUESTION_BASE: u64 = 1_000;

/// Work units of board questions (as `MAX_SCRIPT_WORK` counts them): a question over every
/// square of the mission costs its area; a line of sight, its longest side.
fn area(g: &Game) -> u64 {
    g.view.grid.len() as u64
}

fn side_len(g: &Game) -> u64 {
    g.view.grid.width.max(g.view.grid.height).max(1) as u64
}

fn piece_count(g: &Game) -> u64 {
    g.state.pieces.len() as u64
}

/// Lines of sight to look for face-down pieces: every hidden piece from every piece that
/// might see it.
fn sightings_cost(g: &Game) -> u64 {
    let on_board = g.state.pieces.iter().filter(|p| p.on_board());
    let hidden = on_board.clone().filter(|p| p.hidden.is_some()).count() as u64;
    let open = on_board.filter(|p| p.hidden.is_none()).count() as u64;
    hidden.saturating_mul(open).saturating_mul(side_len(g))
}

fn square(game: &Game, value: &Dynamic) -> Result<Square, String> {
    // A text is read where it lies (lists of squares run to a whole section a move).
    let parsed = match value.read_lock::<rhai::ImmutableString>() {
        Some(text) => Square::parse(&text),
        None => Square::parse(&value.to_string()),
    };
    match parsed {
        Some(s) if game.view.grid.contains(s) && !game.view.grid.is_solid(s) => Ok(s),
        Some(s) => Err(format!("{s} is not a square of the board")),
        None => Err(format!("`{value}` is not a square: write \"x,y\" counted from 1")),
    }
}

/// One square ("x,y") or an array of them: the targets of `move_to` and `distance_to`.
fn squares(game: &Game, value: &Dynamic) -> Result<Vec<Square>, String> {
    match value.read_lock::<Array>() {
        Some(list) if list.is_empty() => Err("an empty list of squares: give at least one".into()),
        Some(list) => list.iter().map(|s| square(game, s)).collect(),
        None => Ok(vec![square(game, value)?]),
    }
}

fn to_json(value: &Dynamic) -> Result<Json, String> {
    // A record or piece view is kept as the map it reads as.
    let plain = crate::script::handles::plain(value);
    let json = rhai::serde::from_dynamic(plain.as_ref().unwrap_or(value))
        .map_err(|e| format!("cannot keep this value in the game: {e}"))?;
    super::state::check_depth(&json)?;
    Ok(json)
}

fn from_json(value: &Json) -> Dynamic {
    // The values scripts keep on pieces are mostly flags, counts and names: made directly,
    // as the serde path makes them, without it.
    match value {
        Json::Null => Dynamic::UNIT,
        Json::Bool(b) => Dynamic::from_bool(*b),
        Json::String(text) => text.as_str().into(),
        Json::Number(n) if n.is_i64() => n.as_i64().map_or(Dynamic::UNIT, |i| Dynamic::from_int(i as INT)),
        _ => rhai::serde::to_dynamic(value).unwrap_or(Dynamic::UNIT),
    }
}

fn piece_map(p: &Piece) -> Map {
    let mut m = Map::new();
    m.insert("id".into(), p.id.clone().into());
    m.insert("kind".into(), p.kind.clone().into());
    m.insert("side".into(), p.side.clone().into());
    m.insert("status".into(), p.status.clone().into());
    m.insert("at".into(), p.at.map_or(Dynamic::UNIT, |s| s.to_string().into()));
    if let Some(at) = p.point {
        m.insert("point".into(), field::point_map(at).into());
    }
    let squares: Array = p.squares().iter().map(|s| Dynamic::from(s.to_string())).collect();
    m.insert("squares".into(), squares.into());
    m.insert("life".into(), Dynamic::from_int(p.life));
    m.insert("hidden".into(), p.hidden.is_some().into());
    let fields: Map = p
        .fields
        .iter()
        .map(|(k, v)| (k.as_str().into(), from_json(v)))
        .collect();
    m.insert("fields".into(), fields.into());
    m
}

fn ids(game: &Game, list: impl IntoIterator<Item = usize>) -> Array {
    list.into_iter()
        .map(|i| Dynamic::from(game.state.pieces[i].id.clone()))
        .collect()
}

fn id_distances(game: &Game, list: Vec<(usize, u16)>) -> Array {
    list.into_iter()
        .map(|(i, d)| {
            let mut m = Map::new();
            m.insert("id".into(), game.state.pieces[i].id.clone().into());
            m.insert("distance".into(), Dynamic::from_int(d as INT));
            Dynamic::from_map(m)
        })
        .collect()
}

/// A script's map of structured fields for an event (`game.say(…, #{ … })`), as JSON.
fn json_fields(fields: &Map) -> Result<indexmap::IndexMap<String, Json>, String> {
    fields.iter().map(|(k, v)| Ok((k.to_string(), to_json(v)?))).collect()
}

/// Squares as the script's list of "x,y" texts.
fn square_list(list: Vec<Square>) -> Array {
    list.into_iter().map(|s| Dynamic::from(s.to_string())).collect()
}

/// A new piece's fields as a script gave them (`add`, `place`): `id` the one it wants.
fn new_fields(fields: &Map) -> Result<NewFields, String> {
    let mut new = NewFields::default();
    for (k, v) in fields {
        if k.as_str() == "id" {
            new.id = Some(v.to_string());
        } else {
            new.fields.insert(k.to_string(), to_json(v)?);
        }
    }
    Ok(new)
}

fn stuck() -> Map {
    let mut m = Map::new();
    m.insert("steps".into(), Dynamic::from_int(0));
    m.insert("stopped".into(), "stuck".into());
    m
}

fn max_steps(n: INT) -> Result<u16, String> {
    if (0..=1000).contains(&n) {
        Ok(n as u16)
    } else {
        Err(format!("a move of {n} squares: give 0 to 1000"))
    }
}

/// The names of the `game.…` functions (for checking scripts at load). Made once.
pub fn function_names() -> &'static std::collections::HashSet<String> {
    static NAMES: std::sync::OnceLock<std::collections::HashSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut engine = Engine::new_raw();
        let run = Arc::new(Mutex::new(RunState {
            rng: crate::dice::Rng::seeded(0),
            steps: Vec::new(),
            dice_cache: Default::default(),
            show: None,
        }));
        register(
            &mut engine,
            &Arc::new(Mutex::new(None)),
            &run,
            &Arc::new(Budget::default()),
        );
        crate::script::check::names_of(&engine)
    })
}

pub fn register(engine: &mut Engine, game: &SharedGame, run: &Arc<Mutex<RunState>>, budget: &Arc<Budget>) {
    engine.register_type_with_name::<GameRef>("Game");
    // A die a player may be asked for comes after the rolls and notes before it are in the
    // log (and so on the player's screen); they were charged when the script made them.
    let shown = game.clone();
    lock(run).show = Some(Arc::new(move |steps| match shown.try_lock() {
        Ok(mut g) => match g.as_mut() {
            Some(g) => {
                g.absorb(steps);
                Vec::new()
            }
            None => steps,
        },
        Err(_) => steps,
    }));
    let api = Api {
        game: game.clone(),
        run: run.clone(),
        budget: budget.clone(),
        dispatching: Arc::new(AtomicBool::new(false)),
    };
    reads::register(engine, &api);
    board::register(engine, &api);
    pieces::register(engine, &api);
    moves::register(engine, &api);
    tallies::register(engine, &api);
    verbs::register(engine, &api);
    field::register(engine, &api);
    actions::register(engine, &api);
    zones::register(engine, &api);
    combat::register(engine, &api);
}
