//! What behaviours may ask and do during a game: `game.method(…)` calls on the handle every
//! phase and trigger function receives. Questions are answered in Rust ([`super::view`]);
//! actions are validated, logged and applied by [`Game`]. A refused action is a script error
//! at the script's line, never a silent fix. The reference is grammar/README.md, "Games".

use super::state::{Action, ON_BOARD, Piece};
use super::view::Goal;
use super::{Game, Pending};
use crate::board::Square;
use crate::limits::MAX_GAME_PIECES;
use crate::script::{Budget, RunState};
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, Map, NativeCallContext};
use serde_json::Value as Json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

mod actions;
mod field;
mod verbs;

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
            let previous = self.with(|g, run| Ok(g.enter_stream(run, &p.stream)))?;
            let result = ctx.call_fn::<Dynamic>(&p.function, (GameRef, p.event));
            self.with(|g, run| {
                g.leave_stream(run, previous);
                Ok(())
            })?;
            result.map(|_| ())?;
        }
    }
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

/// Pool counts must add up to a whole number (`take_random` draws from their total).
fn pool_total(entries: &indexmap::IndexMap<String, i64>) -> Option<i64> {
    entries.values().try_fold(0i64, |total, &n| total.checked_add(n))
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

fn new_piece(game: &Game, kind: &str, side: &str, fields: &Map) -> Result<Piece, String> {
    if game.state.pieces.len() >= MAX_GAME_PIECES {
        return Err(format!(
            "a game may have at most {MAX_GAME_PIECES} pieces, on the board or off (`MAX_GAME_PIECES`, see \"Limits\" in grammar/README.md): reuse pieces that left the board with `enter`"
        ));
    }
    if !game.def.sides.iter().any(|s| s == side) {
        return Err(format!(
            "`{side}` is not a side of this game (sides: {})",
            game.def.sides.join(", ")
        ));
    }
    if !game.is_stats_kind(kind) {
        let kinds = game
            .def
            .stats
            .as_ref()
            .and_then(|k| game.ruleset.records.get(k))
            .map(|r| r.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        let hint = crate::diagnostic::did_you_mean(kind, kinds.iter().map(String::as_str))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        return Err(format!(
            "no {} `{kind}`{hint}",
            game.def.stats.as_deref().unwrap_or("kind")
        ));
    }
    let (life, size, diagonal) = game.stats(kind);
    let mut piece_fields = indexmap::IndexMap::new();
    let mut id = None;
    for (k, v) in fields {
        if k.as_str() == "id" {
            let wanted = v.to_string();
            if game.state.index_of(&wanted).is_some() {
                return Err(format!("a piece `{wanted}` already exists"));
            }
            id = Some(wanted);
        } else {
            piece_fields.insert(k.to_string(), to_json(v)?);
        }
    }
    Ok(Piece {
        id: id.unwrap_or_else(|| game.new_id(kind)),
        kind: kind.to_string(),
        hidden: None,
        side: side.to_string(),
        status: super::state::OFF_BOARD.into(),
        at: None,
        point: None,
        size,
        diagonal,
        life,
        fields: piece_fields,
        facing: None,
        ap: None,
        watch: None,
    })
}

/// Puts a new piece on a free square (validated), logs it, looks for sightings.
fn place_piece(game: &mut Game, mut piece: Piece, at: Square, text: String) -> Result<String, String> {
    for s in super::state::footprint(Some(at), piece.size) {
        if !game.view.square_free(s) {
            return Err(match game.view.occupant(s) {
                Some(o) => format!("{s} is taken by {}", game.state.pieces[o].id),
                None => format!("{s} is not a square of the board"),
            });
        }
    }
    piece.at = Some(at);
    piece.status = ON_BOARD.into();
    let id = piece.id.clone();
    game.act("place", text, Some(&id), Action::Add { piece: Box::new(piece) });
    let i = game.state.pieces.len() - 1;
    game.entries(i, false);
    game.check_sightings(Some(i));
    Ok(id)
}

/// Walks piece `id` along `path`, one step at a time; triggers run as they come up. Stops
/// early when the piece itself is revealed or removed by a trigger, or when a trigger
/// changed the board so that the rest of the way is shut (`stopped: "blocked"`; a piece
/// that may not stop where it stands then walks back to where it may).
fn walk(api: &Api, ctx: &NativeCallContext, id: &str, path: Vec<Square>) -> Res<Map> {
    let mut steps = 0;
    let mut stopped = "";
    let mut triggered = false;
    let mut behind: Vec<Square> = Vec::new();
    for to in path {
        let step = api.with(|g, _| {
            let i = g.on_grid(id)?;
            api.cost(piece_count(g).saturating_mul(side_len(g)))?;
            let from = g.state.pieces[i].at.expect("on the board");
            match g.view.check_step(&g.state.pieces, i, from, to) {
                Ok(()) => {}
                Err(_) if triggered => return Ok(None),
                Err(e) => return Err(e),
            }
            g.step(i, to);
            Ok(Some((from, !g.pending.is_empty())))
        })?;
        let Some((from, interrupted)) = step else {
            stopped = "blocked";
            api.with(|g, _| {
                step_back(g, id, &mut behind);
                Ok(())
            })?;
            break;
        };
        behind.push(from);
        steps += 1;
        // A piece passing over one of its own side's models is seen (or sets off anything
        // else) where it can stand: the triggers wait for the next square it may end on.
        let may_stop_here = interrupted
            && api.with(|g, _| {
                let i = g.on_grid(id)?;
                Ok(!g.state.shares_a_square(i))
            })?;
        if interrupted && may_stop_here {
            triggered = true;
            // The walk's line is written when a trigger logs something (or the move ends).
            let was_hidden = api.with(|g, _| Ok(g.state.piece(id).is_some_and(|p| p.hidden.is_some())))?;
            api.triggers(ctx)?;
            let (now_hidden, on_board) = api.with(|g, _| {
                let p = g.state.piece(id).expect("pieces are never deleted");
                Ok((p.hidden.is_some(), p.on_board()))
            })?;
            if !on_board {
                stopped = "removed";
                break;
            }
            if was_hidden && !now_hidden {
                stopped = "revealed";
                break;
            }
        }
    }
    let (at, now) = api.with(|g, _| {
        g.end_move();
        let p = g.state.piece(id).expect("pieces are never deleted");
        Ok((p.at, p.id.clone()))
    })?;
    api.triggers(ctx)?;
    let mut m = Map::new();
    m.insert("id".into(), now.into());
    m.insert("steps".into(), Dynamic::from_int(steps));
    m.insert("at".into(), at.map_or(Dynamic::UNIT, |s| s.to_string().into()));
    m.insert("stopped".into(), stopped.into());
    Ok(m)
}

/// `n` life off piece `id`, `by` the piece that struck (or ""); at 0 it is eliminated.
fn damage(api: &Api, ctx: &NativeCallContext, id: &str, n: INT, reason: &str, by: &str) -> Res<INT> {
    damage_with(api, ctx, id, n, reason, by, None)
}

/// A script's map of structured fields for an event (`game.say(…, #{ … })`), as JSON.
fn json_fields(fields: &Map) -> Result<indexmap::IndexMap<String, Json>, String> {
    fields.iter().map(|(k, v)| Ok((k.to_string(), to_json(v)?))).collect()
}

/// [`damage`], with the structured fields a script attaches to the `damage` event (the
/// striker `by` is its `attacker`).
fn damage_with(
    api: &Api,
    ctx: &NativeCallContext,
    id: &str,
    n: INT,
    reason: &str,
    by: &str,
    fields: Option<&Map>,
) -> Res<INT> {
    let left = api.with(|g, _| {
        let fields = fields.map(json_fields).transpose()?;
        if let Some(f) = &fields {
            // Checked before the action: a refused call changes nothing.
            super::Event::default().attach(f.clone())?;
        }
        let i = g.on_board(id)?;
        let id = &g.state.pieces[i].id.clone();
        if n < 0 {
            return Err(format!("damage of {n}: give 0 or more"));
        }
        if n == 0 {
            return Ok(g.state.pieces[i].life);
        }
        let left = g.state.pieces[i].life.saturating_sub(n);
        g.act(
            "damage",
            format!("{id} loses {n} life ({} left): {reason}", left.max(0)),
            Some(id),
            Action::Damage {
                id: id.into(),
                amount: n,
            },
        );
        if let Some(e) = g.events.last_mut() {
            if !by.is_empty() {
                e.attacker = Some(by.to_string());
            }
            if let Some(fields) = fields {
                e.attach(fields)?;
            }
        }
        if left <= 0 {
            g.eliminate(i, reason, by);
        }
        Ok(left.max(0))
    })?;
    api.triggers(ctx)?;
    Ok(left)
}

fn new_pool(g: &mut Game, id: &str, entries: Map, secret: bool) -> Result<(), String> {
    let mut counts = indexmap::IndexMap::new();
    for (k, v) in entries {
        let n = v
            .as_int()
            .map_err(|_| format!("pool `{id}`: the count of `{k}` is not a whole number"))?;
        if n < 0 {
            return Err(format!("pool `{id}`: `{k}` has {n}, below zero"));
        }
        counts.insert(k.to_string(), n);
    }
    let Some(total) = pool_total(&counts) else {
        return Err(format!("pool `{id}`: its counts add up to more than {}", i64::MAX));
    };
    let text = if secret {
        format!("pool {id}: {} face down", plural(total as usize, "token"))
    } else {
        let list: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!(
            "pool {id}: {}",
            if list.is_empty() {
                "none".into()
            } else {
                list.join(", ")
            }
        )
    };
    g.act(
        "pool",
        text,
        None,
        Action::NewPool {
            id: id.into(),
            entries: counts,
            secret,
        },
    );
    Ok(())
}

/// What the log may say of `n` `entry` of pool `id`: a secret pool's entries go unnamed.
fn pool_entry(g: &Game, id: &str, entry: &str, n: i64) -> String {
    if g.state.secret_pools.contains(id) {
        plural(n.unsigned_abs() as usize, "token")
    } else {
        format!("{n} {entry}")
    }
}

/// After a blocked walk: back along the squares walked until the piece may stop.
fn step_back(g: &mut Game, id: &str, behind: &mut Vec<Square>) {
    let Some(i) = g.state.pieces.iter().position(|p| p.id == id) else {
        return;
    };
    while let (Some(at), Some(&back)) = (g.state.pieces[i].at, behind.last()) {
        let may_stop = g.view.may_end(&g.state.pieces, i, at) && !g.state.shares_a_square(i);
        if may_stop || g.view.check_step(&g.state.pieces, i, at, back).is_err() {
            break;
        }
        behind.pop();
        g.step(i, back);
    }
}

/// The article before a word in the log: "an owl", "a cat".
fn a_or_an(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// `1 card`, `3 cards`.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
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
    let api = Api {
        game: game.clone(),
        run: run.clone(),
        budget: budget.clone(),
        dispatching: Arc::new(AtomicBool::new(false)),
    };
    register_reads(engine, &api);
    register_board(engine, &api);
    register_pieces(engine, &api);
    register_moves(engine, &api);
    register_door_rules(engine, &api);
    register_counters(engine, &api);
    verbs::register(engine, &api);
    field::register(engine, &api);
    actions::register(engine, &api);
}

fn register_reads(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("turn", move |_: GameRef| a.with(|g, _| Ok(g.state.turn as INT)));
    let a = api.clone();
    engine.register_fn("side", move |_: GameRef| a.with(|g, _| Ok(g.state.side.clone())));
    let a = api.clone();
    engine.register_fn("phase", move |_: GameRef| a.with(|g, _| Ok(g.state.phase.clone())));
    let a = api.clone();
    engine.register_fn("over", move |_: GameRef| a.with(|g, _| Ok(g.state.over.is_some())));
    let a = api.clone();
    let views = crate::script::handles::MissionViews::default();
    engine.register_fn("mission", move |_: GameRef| {
        a.with(|g, _| views.get(&g.ruleset, &g.mission))
    });
    let a = api.clone();
    engine.register_fn("option", move |_: GameRef, name: &str| {
        a.with(|g, _| match g.options.get(name) {
            Some(v) => Ok(from_json(v)),
            None => Err(format!(
                "no option `{name}`{}",
                crate::diagnostic::did_you_mean(name, g.options.keys().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default()
            )),
        })
    });
    let a = api.clone();
    engine.register_fn("pieces", move |_: GameRef, side: &str| {
        a.with(|g, _| {
            let list = (0..g.state.pieces.len()).filter(|&i| {
                let p = &g.state.pieces[i];
                p.on_board() && (side.is_empty() || p.side == side)
            });
            Ok(ids(g, list))
        })
    });
    let a = api.clone();
    engine.register_fn("pieces_with", move |_: GameRef, side: &str, status: &str| {
        a.with(|g, _| {
            let list = (0..g.state.pieces.len()).filter(|&i| {
                let p = &g.state.pieces[i];
                p.status == status && (side.is_empty() || p.side == side)
            });
            Ok(ids(g, list))
        })
    });
    let a = api.clone();
    engine.register_fn("piece", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.index(id)?;
            Ok(g.piece_map(i, |p| {
                Dynamic::from(crate::script::handles::PieceView::new(piece_map(p)))
            }))
        })
    });
    let a = api.clone();
    engine.register_fn("get", move |_: GameRef, id: &str, field: &str| {
        a.with(|g, _| {
            let p = &g.state.pieces[g.index(id)?];
            Ok(p.fields.get(field).map_or(Dynamic::UNIT, from_json))
        })
    });
    let a = api.clone();
    engine.register_fn("get_var", move |_: GameRef, name: &str| {
        a.with(|g, _| Ok(g.state.vars.get(name).map_or(Dynamic::UNIT, from_json)))
    });
    let a = api.clone();
    engine.register_fn("scores", move |_: GameRef| {
        a.with(|g, _| {
            Ok(g.def
                .sides
                .iter()
                .map(|s| {
                    (
                        s.as_str().into(),
                        Dynamic::from_int(*g.state.scores.get(s).unwrap_or(&0)),
                    )
                })
                .collect::<Map>())
        })
    });
    let a = api.clone();
    engine.register_fn("collected", move |_: GameRef, side: &str| {
        a.with(|g, _| {
            Ok(g.state
                .collected
                .get(side)
                .map(|l| l.iter().map(|t| Dynamic::from(t.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str| {
        a.with(|g, _| {
            g.say(text.to_string(), None);
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str, source: &str| {
        a.with(|g, _| {
            g.say(text.to_string(), Some(source.to_string()));
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str, source: &str, fields: Map| {
        a.with(|g, _| g.say_with(text.to_string(), Some(source.to_string()), json_fields(&fields)?))
    });
    let a = api.clone();
    engine.register_fn(
        "ask",
        move |_: GameRef, question: &str, choices: Array, default: &str| {
            a.with(|g, _| {
                let choices: Vec<String> = choices
                    .iter()
                    .map(|c| {
                        c.clone()
                            .into_string()
                            .map_err(|t| format!("`ask` offers choices as strings; one is a {t}"))
                    })
                    .collect::<Result<_, _>>()?;
                a.cost(choices.len() as u64)?;
                g.ask(question, &choices, default)
            })
        },
    );
    let a = api.clone();
    engine.register_fn("use_stream", move |_: GameRef, name: &str| {
        a.with(|g, run| {
            if name.is_empty() || name == super::IDLE_STREAM {
                return Err(format!("`{name}` cannot name a stream"));
            }
            // A stream is kept for the rest of the game (and in its saves): charged as a line.
            a.budget.try_log(64 + name.len())?;
            g.enter_stream(run, name);
            Ok(())
        })
    });
}

fn register_board(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("distance", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.on_grid(from)?, g.on_grid(to)?);
            a.cost(area(g))?;
            Ok(g.view.distance(&g.state.pieces, i, j).map_or(-1, |d| d as INT))
        })
    });
    let a = api.clone();
    engine.register_fn("by_distance", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g))?;
            Ok(id_distances(g, g.view.by_distance(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    engine.register_fn("visible", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
            Ok(id_distances(g, g.view.visible(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    // The same, only the pieces whose identity is known (`"face-up"`), or all (`"all"`): one
    // call instead of a script filter over the list.
    engine.register_fn("visible", move |_: GameRef, id: &str, side: &str, which: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            let face_up = match which {
                "face-up" => true,
                "all" => false,
                _ => return Err(format!("`{which}`: say \"face-up\" or \"all\"")),
            };
            a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
            let mut seen = g.view.visible(&g.state.pieces, i, side);
            if face_up {
                seen.retain(|&(j, _)| g.state.pieces[j].hidden.is_none());
            }
            Ok(id_distances(g, seen))
        })
    });
    let a = api.clone();
    // Whether square `at` is within `n` squares of one of `squares`, counted as a king moves
    // (diagonals count one) and through walls: "on or beside" is `near(at, list, 1)`.
    engine.register_fn("near", move |_: GameRef, at: Dynamic, list: Dynamic, n: INT| {
        a.with(|g, _| {
            let at = square(g, &at)?;
            let list = squares(g, &list)?;
            a.cost(list.len() as u64)?;
            Ok(list
                .iter()
                .any(|s| INT::from((s.x - at.x).abs().max((s.y - at.y).abs())) <= n))
        })
    });
    let a = api.clone();
    engine.register_fn("sees", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.on_grid(from)?, g.on_grid(to)?);
            a.cost(side_len(g))?;
            Ok(g.view.sees(&g.state.pieces, i, j, true))
        })
    });
    let a = api.clone();
    // A square a piece could shoot at (a blast's centre a player names): pieces in the way
    // block, the one on the square does not.
    engine.register_fn("sees_square", move |_: GameRef, from: &str, to: Dynamic| {
        a.with(|g, _| {
            let i = g.on_grid(from)?;
            let to = square(g, &to)?;
            a.cost(side_len(g))?;
            Ok(g.view.sees_square(&g.state.pieces, i, to))
        })
    });
    let a = api.clone();
    engine.register_fn("reachable", move |_: GameRef, id: &str, n: INT| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g).saturating_mul(8))?;
            let list = g.view.reachable(&g.state.pieces, i, max_steps(n)?);
            Ok(list
                .into_iter()
                .map(|(s, _)| Dynamic::from(s.to_string()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("vantage", move |_: GameRef, id: &str, n: INT, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            let targets = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
            a.cost(area(g).saturating_mul(8 + targets.saturating_mul(side_len(g))))?;
            Ok(match g.view.vantage(&g.state.pieces, i, max_steps(n)?, side) {
                None => Dynamic::UNIT,
                Some((at, steps, seen)) => {
                    let mut m = Map::new();
                    m.insert("square".into(), at.to_string().into());
                    m.insert("steps".into(), Dynamic::from_int(steps as INT));
                    m.insert("sees".into(), ids(g, seen).into());
                    Dynamic::from_map(m)
                }
            })
        })
    });
    let a = api.clone();
    engine.register_fn("adjacent", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            Ok(ids(g, g.view.adjacent(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    engine.register_fn("shut_in", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g))?;
            Ok(g.view.shut_in(&g.state.pieces, i))
        })
    });
    let a = api.clone();
    engine.register_fn("free_squares", move |_: GameRef, mark: &str, side: &str| {
        a.with(|g, _| {
            if !g.view.grid.mark_names.iter().any(|m| m == mark) {
                let hint = crate::diagnostic::did_you_mean(mark, g.view.grid.mark_names.iter().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                return Err(format!("no square is marked `{mark}` on this mission{hint}"));
            }
            let watchers = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
            a.cost(area(g).saturating_mul(1 + watchers.saturating_mul(side_len(g))))?;
            let list: Array = g
                .view
                .grid
                .marked(mark)
                .into_iter()
                .filter(|&s| g.view.square_free(s) && g.view.unseen(&g.state.pieces, s, side))
                .map(|s| Dynamic::from(s.to_string()))
                .collect();
            Ok(list)
        })
    });
    let a = api.clone();
    engine.register_fn("marked", move |_: GameRef, mark: &str| {
        a.with(|g, _| {
            if !g.view.grid.mark_names.iter().any(|m| m == mark) {
                let hint = crate::diagnostic::did_you_mean(mark, g.view.grid.mark_names.iter().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                return Err(format!("no square is marked `{mark}` on this mission{hint}"));
            }
            a.cost(area(g))?;
            Ok(g.view
                .grid
                .marked(mark)
                .into_iter()
                .map(|s| Dynamic::from(s.to_string()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "section_square",
        move |_: GameRef, section: &str, column: INT, row: INT| {
            a.with(|g, _| {
                let grid = &g.view.grid;
                if !grid.sections.iter().any(|s| s == section) {
                    return Err(format!("no board section `{section}` in this mission"));
                }
                a.cost(area(g))?;
                // The section's top-left corner: the least column and row of its squares.
                let (mut left, mut top) = (i32::MAX, i32::MAX);
                for i in 0..grid.len() {
                    let s = grid.square(i);
                    if grid.section_of(s) == Some(section) {
                        (left, top) = (left.min(s.x), top.min(s.y));
                    }
                }
                let (Ok(dx), Ok(dy)) = (i32::try_from(column - 1), i32::try_from(row - 1)) else {
                    return Ok(Dynamic::UNIT);
                };
                let s = Square {
                    x: left.saturating_add(dx),
                    y: top.saturating_add(dy),
                };
                Ok(
                    if column >= 1
                        && row >= 1
                        && grid.contains(s)
                        && !grid.is_solid(s)
                        && grid.section_of(s) == Some(section)
                    {
                        Dynamic::from(s.to_string())
                    } else {
                        Dynamic::UNIT
                    },
                )
            })
        },
    );
    let a = api.clone();
    engine.register_fn("fits", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            let p = &g.state.pieces[i];
            let Some(identity) = p.hidden.clone() else {
                return Ok(true);
            };
            let (_, size, _) = g.stats(&identity);
            let at = p.at.ok_or_else(|| format!("{id} is not on the board"))?;
            Ok(size <= 1 || g.view.grown_at(i, at, size).is_some())
        })
    });
    let a = api.clone();
    engine.register_fn("distance_to", move |_: GameRef, id: &str, to: Dynamic| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g))?;
            let field = g.view.field_to(&g.state.pieces[i], &squares(g, &to)?);
            Ok(g.view.steps_in(&field, &g.state.pieces[i]).map_or(-1, INT::from))
        })
    });
    let a = api.clone();
    engine.register_fn("square_free", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| Ok(g.view.square_free(square(g, &at)?)))
    });
    let a = api.clone();
    engine.register_fn("unseen", move |_: GameRef, at: Dynamic, side: &str| {
        a.with(|g, _| {
            a.cost(piece_count(g).saturating_mul(side_len(g)))?;
            Ok(g.view.unseen(&g.state.pieces, square(g, &at)?, side))
        })
    });
    let a = api.clone();
    engine.register_fn("sections", move |_: GameRef| {
        a.with(|g, _| {
            Ok(g.view
                .grid
                .sections
                .iter()
                .map(|s| Dynamic::from(s.clone()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("section_of", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| {
            let s = square(g, &at)?;
            Ok(g.view
                .grid
                .section_of(s)
                .map_or(Dynamic::UNIT, |n| n.to_string().into()))
        })
    });
    let a = api.clone();
    engine.register_fn("section_squares", move |_: GameRef, section: &str| {
        a.with(|g, _| {
            if !g.view.grid.sections.iter().any(|s| s == section) {
                return Err(format!("no board section `{section}` in this mission"));
            }
            a.cost(area(g))?;
            let grid = &g.view.grid;
            Ok((0..grid.len())
                .map(|i| grid.square(i))
                .filter(|&s| !grid.is_solid(s) && grid.section_of(s) == Some(section))
                .map(|s| Dynamic::from(s.to_string()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("entered", move |_: GameRef, section: &str| {
        a.with(|g, _| Ok(g.state.has_entered(section)))
    });
    let a = api.clone();
    engine.register_fn("lines", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(side_len(g).saturating_mul(8))?;
            Ok(g.view
                .lines(&g.state.pieces, i)
                .into_iter()
                .map(|(dx, dy, on)| {
                    let mut m = Map::new();
                    m.insert("dx".into(), Dynamic::from_int(dx as INT));
                    m.insert("dy".into(), Dynamic::from_int(dy as INT));
                    m.insert("pieces".into(), ids(g, on).into());
                    Dynamic::from_map(m)
                })
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("blast_at", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| {
            let (centre, around) = g.view.blast_at(square(g, &at)?);
            let mut m = Map::new();
            m.insert(
                "centre".into(),
                centre.map_or(Dynamic::UNIT, |c| g.state.pieces[c].id.clone().into()),
            );
            m.insert("around".into(), ids(g, around).into());
            Ok(m)
        })
    });
    for (name, line) in [("best_blast", false), ("best_line", true)] {
        // `game.best_blast(id, side)`, and `game.best_blast(id, side, spare_own)`: with
        // `spare_own` true, only the shots that catch none of the shooter's own side.
        let area_shot = move |a: &Api, id: &str, side: &str, spare_own: bool| {
            a.with(|g, _| {
                let i = g.on_grid(id)?;
                // A blast is looked for round every piece in sight: sight, then nine squares each.
                a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)).saturating_mul(10))?;
                let shot = if line {
                    g.view.best_line_sparing(&g.state.pieces, i, side, spare_own)
                } else {
                    g.view.best_blast_sparing(&g.state.pieces, i, side, spare_own)
                };
                Ok(shot.map_or(Dynamic::UNIT, |s| {
                    let mut m = Map::new();
                    m.insert("square".into(), s.square.to_string().into());
                    m.insert("dx".into(), Dynamic::from_int(s.dx as INT));
                    m.insert("dy".into(), Dynamic::from_int(s.dy as INT));
                    m.insert("hits".into(), ids(g, s.hits).into());
                    m.insert("own".into(), ids(g, s.own).into());
                    Dynamic::from_map(m)
                }))
            })
        };
        let a = api.clone();
        engine.register_fn(name, move |_: GameRef, id: &str, side: &str| {
            area_shot(&a, id, side, false)
        });
        let a = api.clone();
        engine.register_fn(name, move |_: GameRef, id: &str, side: &str, spare_own: bool| {
            area_shot(&a, id, side, spare_own)
        });
    }
}

fn register_pieces(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("add", move |_: GameRef, kind: &str, side: &str| {
        a.with(|g, _| add(g, kind, side, &Map::new()))
    });
    let a = api.clone();
    engine.register_fn("add", move |_: GameRef, kind: &str, side: &str, fields: Map| {
        a.with(|g, _| add(g, kind, side, &fields))
    });
    let a = api.clone();
    engine.register_fn(
        "place",
        move |ctx: NativeCallContext, _: GameRef, kind: &str, side: &str, at: Dynamic| -> Res<String> {
            let id = a.with(|g, _| place(g, kind, side, &at, &Map::new()))?;
            a.triggers(&ctx)?;
            Ok(id)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "place",
        move |ctx: NativeCallContext, _: GameRef, kind: &str, side: &str, at: Dynamic, fields: Map| -> Res<String> {
            let id = a.with(|g, _| place(g, kind, side, &at, &fields))?;
            a.triggers(&ctx)?;
            Ok(id)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "place_hidden",
        move |ctx: NativeCallContext,
              _: GameRef,
              token: &str,
              identity: &str,
              side: &str,
              at: Dynamic|
              -> Res<String> {
            let id = a.with(|g, _| {
                let at = square(g, &at)?;
                let mut piece = new_piece(g, identity, side, &Map::new())?;
                piece.id = g.new_id(token);
                piece.hidden = Some(identity.to_string());
                piece.kind = token.to_string();
                // A face-down token stands on one square and steps any way, whatever it hides;
                // `reveal` gives it the identity's base and movement.
                (piece.size, piece.diagonal) = (1, true);
                let text = format!("{} ({side}) placed face down on {at}", piece.id);
                place_piece(g, piece, at, text)
            })?;
            a.triggers(&ctx)?;
            Ok(id)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "reveal",
        move |ctx: NativeCallContext, _: GameRef, id: &str| -> Res<String> {
            let kind = a.with(|g, _| {
                let i = g.index(id)?;
                let Some(identity) = g.state.pieces[i].hidden.clone() else {
                    return Err(format!("{id} is not face down"));
                };
                let (life, size, diagonal) = g.stats(&identity);
                let label = label_of(g, &identity);
                // A larger model covers the token's square; where its base does not fit
                // there at all, it is not placed (the log says so and the script decides).
                let token_at = g.state.pieces[i].at;
                let mut at = None;
                let id = g.state.pieces[i].id.clone();
                let rename = g.def.reveal_renames.then(|| g.new_id(&identity));
                let mut text = match &rename {
                    Some(new) => format!("{id} is revealed: {label}, {new} from now on"),
                    None => format!("{id} is revealed: {label}"),
                };
                if let (Some(token_at), true) = (token_at, size > 1) {
                    match g.view.grown_at(i, token_at, size) {
                        Some(top_left) if top_left != token_at => {
                            at = Some(top_left);
                            text = format!("{text}, its base set on {top_left} to cover {token_at}");
                        }
                        Some(_) => {}
                        None => {
                            return Err(format!(
                                "{id} hides a {label} whose {size} x {size} base cannot cover {token_at}: \
                                 take the token off with `leave` instead (test with `game.fits(id)`)"
                            ));
                        }
                    }
                }
                a.cost(sightings_cost(g))?;
                g.act(
                    "reveal",
                    text,
                    Some(&id),
                    Action::Reveal {
                        id: id.clone(),
                        life,
                        size,
                        diagonal,
                        at,
                        rename,
                    },
                );
                g.check_sightings(None);
                Ok(identity)
            })?;
            a.triggers(&ctx)?;
            Ok(kind)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "enter",
        move |ctx: NativeCallContext, _: GameRef, id: &str, at: Dynamic| -> Res<()> {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.index(id)?;
                let id = &g.state.pieces[i].id.clone();
                if g.state.pieces[i].on_board() {
                    return Err(format!("{id} is already on the board"));
                }
                let at = square(g, &at)?;
                for s in super::state::footprint(Some(at), g.state.pieces[i].size) {
                    if !g.view.square_free(s) {
                        return Err(format!("{s} is not free for {id}"));
                    }
                }
                g.act(
                    "enter",
                    format!("{id} enters the board on {at}"),
                    Some(id),
                    Action::Enter { id: id.into(), at },
                );
                g.check_entries(i);
                g.end_move();
                g.check_sightings(Some(i));
                Ok(())
            })?;
            a.triggers(&ctx)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "leave",
        move |ctx: NativeCallContext, _: GameRef, id: &str, status: &str| {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let id = &g.state.pieces[i].id.clone();
                if [ON_BOARD, super::state::REMOVED, ""].contains(&status) {
                    return Err(format!("`{status}` cannot be the status of a piece leaving the board"));
                }
                let p = &g.state.pieces[i];
                let from = match (p.at, p.point) {
                    (Some(at), _) => at.to_string(),
                    (None, Some(point)) => super::field::show(point),
                    (None, None) => "nowhere".into(),
                };
                g.act(
                    "leave",
                    format!("{id} leaves the board from {from} ({status})"),
                    Some(id),
                    Action::Leave {
                        id: id.into(),
                        status: status.into(),
                    },
                );
                Ok(())
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str| -> Res<INT> {
            damage(&a, &ctx, id, n, reason, "")
        },
    );
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str, by: &str| -> Res<INT> {
            damage(&a, &ctx, id, n, reason, by)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str, by: &str, fields: Map| -> Res<INT> {
            damage_with(&a, &ctx, id, n, reason, by, Some(&fields))
        },
    );
    let a = api.clone();
    engine.register_fn(
        "remove",
        move |ctx: NativeCallContext, _: GameRef, id: &str, reason: &str| -> Res<()> {
            a.with(|g, _| {
                let i = g.on_board(id)?;
                g.eliminate(i, reason, "");
                Ok(())
            })?;
            a.triggers(&ctx)
        },
    );
    let a = api.clone();
    engine.register_fn("set", move |_: GameRef, id: &str, field: &str, value: Dynamic| {
        a.with(|g, _| {
            let i = g.index(id)?;
            let id = &g.state.pieces[i].id.clone();
            let value = to_json(&value)?;
            g.act(
                "set",
                format!("{id}: {field} = {}", crate::script::words_of_json(&value)),
                Some(id),
                Action::Set {
                    id: id.into(),
                    field: field.into(),
                    value,
                },
            );
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "open_door",
        move |ctx: NativeCallContext, _: GameRef, from: Dynamic, to: Dynamic| -> Res<()> {
            a.with(|g, _| {
                let (x, y) = (square(g, &from)?, square(g, &to)?);
                if g.view.grid.edge(x, y) != (crate::board::Edge::Door { open: false }) {
                    return Err(format!("there is no closed door between {x} and {y}"));
                }
                a.cost(sightings_cost(g))?;
                g.act(
                    "door",
                    format!("the door between {x} and {y} opens"),
                    None,
                    Action::Door { a: x, b: y, open: true },
                );
                g.check_sightings(None);
                Ok(())
            })?;
            a.triggers(&ctx)
        },
    );
}

/// Doors shut by a rule (an action), and the board question that finds which ones cut sight.
fn register_door_rules(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("close_door", move |_: GameRef, from: Dynamic, to: Dynamic| -> Res<()> {
        a.with(|g, _| {
            let (x, y) = (square(g, &from)?, square(g, &to)?);
            if g.view.grid.edge(x, y) != (crate::board::Edge::Door { open: true }) {
                return Err(format!("there is no open door between {x} and {y}"));
            }
            g.act(
                "door",
                format!("the door between {x} and {y} shuts"),
                None,
                Action::Door {
                    a: x,
                    b: y,
                    open: false,
                },
            );
            Ok(())
        })
    });
    let a = api.clone();
    // What stands between two squares side by side: "open" or "closed" for a door, () for
    // anything else (no door, a wall, a square off the board or solid).
    engine.register_fn("door", move |_: GameRef, from: Dynamic, to: Dynamic| -> Res<Dynamic> {
        a.with(|g, _| {
            let parse = |v: &Dynamic| {
                let text = v.to_string();
                Square::parse(&text).ok_or_else(|| format!("`{text}` is not a square: write \"x,y\" counted from 1"))
            };
            let (x, y) = (parse(&from)?, parse(&to)?);
            let grid = &g.view.grid;
            if !grid.contains(x) || !grid.contains(y) {
                return Ok(Dynamic::UNIT);
            }
            Ok(match grid.edge(x, y) {
                crate::board::Edge::Door { open: true } => "open".into(),
                crate::board::Edge::Door { open: false } => "closed".into(),
                _ => Dynamic::UNIT,
            })
        })
    });
    let a = api.clone();
    engine.register_fn("doors_cutting_sight", move |_: GameRef, side: &str, other: &str| {
        a.with(|g, _| {
            let doors = g.view.grid.doors().len() as u64;
            let pairs = piece_count(g).saturating_mul(piece_count(g));
            a.cost(area(g).saturating_add(doors.saturating_mul(pairs).saturating_mul(side_len(g))))?;
            Ok(g.doors_cutting_sight(side, other)
                .into_iter()
                .map(|(x, y)| {
                    let pair: Array = vec![x.to_string().into(), y.to_string().into()];
                    Dynamic::from_array(pair)
                })
                .collect::<Array>())
        })
    });
}

fn label_of(g: &Game, kind: &str) -> String {
    g.def
        .stats
        .as_ref()
        .and_then(|k| g.ruleset.records.get(k))
        .and_then(|r| r.get(kind))
        .and_then(|r| r.label.clone())
        .map_or_else(|| kind.to_string(), |l| format!("{l} ({kind})"))
}

fn add(g: &mut Game, kind: &str, side: &str, fields: &Map) -> Result<String, String> {
    let piece = new_piece(g, kind, side, fields)?;
    let id = piece.id.clone();
    let text = format!("{id}: {} joins the {side} side, off the board", label_of(g, kind));
    g.act("add", text, Some(&id), Action::Add { piece: Box::new(piece) });
    Ok(id)
}

fn place(g: &mut Game, kind: &str, side: &str, at: &Dynamic, fields: &Map) -> Result<String, String> {
    let at = square(g, at)?;
    let piece = new_piece(g, kind, side, fields)?;
    let text = format!("{}: {} ({side}) placed on {at}", piece.id, label_of(g, kind));
    place_piece(g, piece, at, text)
}

fn register_moves(engine: &mut Engine, api: &Api) {
    for (name, towards) in [("move_towards", true), ("move_away", false)] {
        let a = api.clone();
        engine.register_fn(
            name,
            move |ctx: NativeCallContext, _: GameRef, id: &str, other: &str, n: INT| -> Res<Map> {
                a.activate(&ctx, id)?;
                let path = a.with(|g, run| {
                    let i = g.on_grid(id)?;
                    let j = g.on_grid(other)?;
                    let max = max_steps(n)?;
                    a.cost(area(g).saturating_mul(9))?;
                    let field = g.view.field_to(&g.state.pieces[i], &g.state.pieces[j].squares());
                    let goal = if towards {
                        Goal::Towards(&field)
                    } else {
                        Goal::Away(&field)
                    };
                    Ok(g.view.plan(&g.state.pieces, i, goal, max, &mut run.rng))
                })?;
                match path {
                    Some(path) => walk(&a, &ctx, id, path),
                    None => Ok(stuck()),
                }
            },
        );
    }
    let a = api.clone();
    engine.register_fn(
        "move_to",
        move |ctx: NativeCallContext, _: GameRef, id: &str, to: Dynamic, n: INT| -> Res<Map> {
            a.activate(&ctx, id)?;
            let path = a.with(|g, run| {
                let i = g.on_grid(id)?;
                let targets = squares(g, &to)?;
                let max = max_steps(n)?;
                a.cost(area(g).saturating_mul(9))?;
                let field = g.view.field_to(&g.state.pieces[i], &targets);
                Ok(g.view
                    .plan(&g.state.pieces, i, Goal::Towards(&field), max, &mut run.rng))
            })?;
            match path {
                Some(path) => walk(&a, &ctx, id, path),
                None => Ok(stuck()),
            }
        },
    );
    let a = api.clone();
    engine.register_fn(
        "move_path",
        move |ctx: NativeCallContext, _: GameRef, id: &str, squares: Array| -> Res<Map> {
            a.activate(&ctx, id)?;
            let path = a.with(|g, _| {
                let i = g.on_grid(id)?;
                let path: Vec<Square> = squares.iter().map(|s| square(g, s)).collect::<Result<_, _>>()?;
                // Check the whole path before taking a step: a refused move changes nothing.
                let mut at = g.state.pieces[i].at.expect("on the board");
                for &to in &path {
                    g.view.check_step(&g.state.pieces, i, at, to)?;
                    at = to;
                }
                if !path.is_empty() && !g.view.may_end(&g.state.pieces, i, at) {
                    return Err(format!(
                        "{id} may not end its move on {at}: it is taken or under a door"
                    ));
                }
                Ok(path)
            })?;
            walk(&a, &ctx, id, path)
        },
    );
}

fn register_counters(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("set_var", move |_: GameRef, name: &str, value: Dynamic| {
        a.with(|g, _| {
            let value = to_json(&value)?;
            g.act(
                "var",
                format!("{name} = {}", crate::script::words_of_json(&value)),
                None,
                Action::SetVar {
                    name: name.into(),
                    value,
                },
            );
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("set_entered", move |_: GameRef, section: &str| {
        a.with(|g, _| {
            if !g.view.grid.sections.iter().any(|s| s == section) {
                return Err(format!("no board section `{section}` in this mission"));
            }
            g.mark_entered(section);
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("score", move |_: GameRef, side: &str, points: INT, reason: &str| {
        a.with(|g, _| {
            if !g.def.sides.iter().any(|s| s == side) {
                return Err(format!("`{side}` is not a side of this game"));
            }
            let Some(total) = g.state.scores.get(side).copied().unwrap_or(0).checked_add(points) else {
                return Err(format!("the score of {side} would pass {}", i64::MAX));
            };
            let verb = if points < 0 { "loses" } else { "scores" };
            g.act(
                "score",
                format!("{side} {verb} {} ({total} in all): {reason}", points.unsigned_abs()),
                None,
                Action::Score {
                    side: side.into(),
                    points,
                },
            );
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("collect", move |_: GameRef, side: &str, token: &str| {
        a.with(|g, _| {
            g.act(
                "collect",
                format!("{side} collects {} {token} token", a_or_an(token)),
                None,
                Action::Collect {
                    side: side.into(),
                    token: token.into(),
                },
            );
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("new_pool", move |_: GameRef, id: &str, entries: Map| {
        a.with(|g, _| new_pool(g, id, entries, false))
    });
    let a = api.clone();
    engine.register_fn("new_secret_pool", move |_: GameRef, id: &str, entries: Map| {
        a.with(|g, _| new_pool(g, id, entries, true))
    });
    let a = api.clone();
    engine.register_fn("pool", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let p = g
                .state
                .pools
                .get(id)
                .ok_or_else(|| format!("no game pool `{id}`: make it with new_pool"))?;
            Ok(p.iter()
                .map(|(k, v)| (k.as_str().into(), Dynamic::from_int(*v)))
                .collect::<Map>())
        })
    });
    let a = api.clone();
    engine.register_fn("take", move |_: GameRef, id: &str, entry: &str, n: INT| {
        a.with(|g, _| {
            let p = g
                .state
                .pools
                .get(id)
                .ok_or_else(|| format!("no game pool `{id}`: make it with new_pool"))?;
            let Some(&have) = p.get(entry) else {
                let hint = crate::diagnostic::did_you_mean(entry, p.keys().map(String::as_str))
                    .map(|h| format!("; {h}"))
                    .unwrap_or_default();
                return Err(format!("pool `{id}` has no `{entry}`{hint}"));
            };
            if n < 0 {
                return Err(format!("take {n}: give 0 or more"));
            }
            let taken = n.min(have);
            // A secret pool's log counts the whole pool, never one of its names.
            let left = if g.state.secret_pools.contains(id) {
                pool_total(p).unwrap_or(have) - taken
            } else {
                have - taken
            };
            if taken > 0 {
                g.act(
                    "take",
                    format!("{} taken from {id} ({left} left)", pool_entry(g, id, entry, taken)),
                    None,
                    Action::Take {
                        pool: id.into(),
                        entry: entry.into(),
                        n: taken,
                    },
                );
            }
            Ok(taken)
        })
    });
    let a = api.clone();
    engine.register_fn("give", move |_: GameRef, id: &str, entry: &str, n: INT| {
        a.with(|g, _| {
            let p = g
                .state
                .pools
                .get(id)
                .ok_or_else(|| format!("no game pool `{id}`: make it with new_pool"))?;
            if n < 0 {
                return Err(format!("give {n}: give 0 or more (take removes)"));
            }
            let have = p.get(entry).copied().unwrap_or(0);
            if have.checked_add(n).is_none() || pool_total(p).and_then(|t| t.checked_add(n)).is_none() {
                return Err(format!("pool `{id}` cannot hold more `{entry}`"));
            }
            let now = if g.state.secret_pools.contains(id) {
                pool_total(p).unwrap_or(have) + n
            } else {
                have + n
            };
            if n > 0 {
                g.act(
                    "give",
                    format!("{} returned to {id} ({now} now)", pool_entry(g, id, entry, n)),
                    None,
                    Action::Take {
                        pool: id.into(),
                        entry: entry.into(),
                        n: -n,
                    },
                );
            }
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("take_random", move |_: GameRef, id: &str| {
        a.with(|g, run| {
            let p = g
                .state
                .pools
                .get(id)
                .ok_or_else(|| format!("no game pool `{id}`: make it with new_pool"))?;
            let total = pool_total(p).ok_or_else(|| format!("pool `{id}` holds more than {} in all", i64::MAX))?;
            if total <= 0 {
                return Ok(Dynamic::UNIT);
            }
            let stream = format!("pool-{id}");
            let previous = g.enter_stream(run, &stream);
            let mut pick = run.rng.below(total as u64) as i64;
            g.leave_stream(run, previous);
            let p = &g.state.pools[id];
            let entry = p
                .iter()
                .find(|(_, n)| {
                    pick = pick.saturating_sub(**n);
                    pick < 0
                })
                .map(|(k, _)| k.clone())
                .ok_or_else(|| format!("pool `{id}` has a count below zero"))?;
            let left = p[&entry] - 1;
            g.act(
                "draw",
                if g.state.secret_pools.contains(id) {
                    format!("a token drawn at random from {id} ({} left)", total - 1)
                } else {
                    format!("one {entry} drawn at random from {id} ({left} left)")
                },
                None,
                Action::Take {
                    pool: id.into(),
                    entry: entry.clone(),
                    n: 1,
                },
            );
            Ok(Dynamic::from(entry))
        })
    });
    let a = api.clone();
    engine.register_fn("new_deck", move |_: GameRef, id: &str, cards: Array| {
        a.with(|g, run| {
            let mut cards: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
            let previous = g.enter_stream(run, &format!("deck-{id}"));
            run.rng.shuffle(&mut cards);
            g.leave_stream(run, previous);
            g.act(
                "deck",
                format!("deck {id}: {} shuffled", plural(cards.len(), "card")),
                None,
                Action::NewDeck { id: id.into(), cards },
            );
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("cards_left", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let d = g
                .state
                .decks
                .get(id)
                .ok_or_else(|| format!("no deck `{id}`: make it with new_deck"))?;
            Ok(d.len() as INT)
        })
    });
    for named in [false, true] {
        let a = api.clone();
        let draw = move |ctx: &NativeCallContext, id: &str, wanted: Option<&str>| -> Res<Dynamic> {
            let card = a.with(|g, _| {
                let d = g
                    .state
                    .decks
                    .get(id)
                    .ok_or_else(|| format!("no deck `{id}`: make it with new_deck"))?;
                let card = match wanted {
                    None => d.last().cloned(),
                    // A card named that the deck no longer holds is not drawn: the script decides.
                    Some(w) => d.iter().rfind(|c| *c == w).cloned(),
                };
                let Some(card) = card else {
                    return Ok(Dynamic::UNIT);
                };
                let left = d.len() - 1;
                let text = match wanted {
                    None => format!("{card} drawn from {id} ({left} left)"),
                    Some(_) => format!("{card}, the card named, taken from {id} ({left} left)"),
                };
                g.act(
                    "draw",
                    text,
                    None,
                    Action::Draw {
                        deck: id.into(),
                        card: wanted.map(str::to_string),
                    },
                );
                if left == 0 {
                    let mut map = Map::new();
                    map.insert("deck".into(), id.into());
                    let side = g.state.side.clone();
                    g.queue(crate::ruleset::TriggerEvent::DeckEmpty, &side, map);
                }
                Ok(Dynamic::from(card))
            })?;
            a.triggers(ctx)?;
            Ok(card)
        };
        if named {
            engine.register_fn(
                "draw",
                move |ctx: NativeCallContext, _: GameRef, id: &str, card: &str| -> Res<Dynamic> {
                    draw(&ctx, id, Some(card))
                },
            );
        } else {
            engine.register_fn(
                "draw",
                move |ctx: NativeCallContext, _: GameRef, id: &str| -> Res<Dynamic> { draw(&ctx, id, None) },
            );
        }
    }
    let a = api.clone();
    engine.register_fn("end", move |_: GameRef, winner: &str, reason: &str| {
        a.with(|g, _| {
            if g.state.over.is_some() {
                return Err("the game is already over".into());
            }
            let winner = if winner.is_empty() {
                None
            } else if g.def.sides.iter().any(|s| s == winner) {
                Some(winner.to_string())
            } else {
                return Err(format!(
                    "`{winner}` is not a side of this game (sides: {})",
                    g.def.sides.join(", ")
                ));
            };
            let text = match &winner {
                Some(w) => format!("the game ends: {w} wins ({reason})"),
                None => format!("the game ends with no winner ({reason})"),
            };
            g.act(
                "end",
                text,
                None,
                Action::End {
                    winner,
                    reason: reason.into(),
                },
            );
            Ok(())
        })
    });
}
