//! The game layer: the state of one game, the actions that change it, the event log, random
//! streams by purpose, and the turn runner. It knows no game by name: a package's `game` item
//! says which sides play which phases with which script functions.
//!
//! Start at [`host::Host`] (the turn loop and save/load), then [`Game`] (actions, validated
//! and logged), [`api`] (what scripts may ask and do) and [`view`] (board questions).
//!
//! [`Game`] validates and logs actions ([`Game::act`]), draws dice from streams by purpose,
//! and queues triggers: every `on` of the event, in declaration order, each through its
//! `beside` and `while` filters (`triggers_for`). A trigger is queued as a typed event
//! ([`Pending`] with [`TriggerArgs`]: texts, points, routes), made into a script's map only
//! when a script runs. A script run's steps come into the log through [`Game::absorb`];
//! `tee` copies each event as it is logged (for `play`'s screen); [`Game::ask`] puts a
//! question to the player (a replay's answer first, then the player's, else the script's
//! default). `piece_view` keeps the view of a piece a script was given until an action or a
//! step changes that piece.
//!
//! Every file here but `host.rs` is the kernel: plain Rust methods on `Game` with typed
//! arguments, no Rhai and nothing of `script/` (a run's dice come in as the `Rng` they are);
//! `api/` is the binding.

pub mod actions;
pub mod api;
pub mod combat;
pub mod corrections;
pub mod event;
pub mod field;
pub mod host;
pub mod pieces;
pub mod questions;
pub mod session;
pub mod state;
pub mod table;
pub mod tallies;
pub mod verbs;
pub mod view;
pub mod zones;

pub use event::Event;
pub use host::{GameError, GameRecord, Host, Played, Save, Scenario, Setup};
pub use state::{Action, GameState, Outcome, Piece};

use crate::board::Square;
use crate::dice::Rng;
use crate::ruleset::{GameDef, Ruleset, TriggerEvent, TriggerTiming};
use crate::steps::Step;
use crate::tables::roll::TableRoll;
use indexmap::IndexMap;
use serde_json::Value as Json;
use state::{ON_BOARD, apply};
use std::collections::VecDeque;
use std::sync::Arc;
use view::View;

/// A trigger function waiting to run, with the stream it rolls on and what it is told of
/// its event.
#[derive(Clone)]
pub struct Pending {
    pub function: String,
    pub stream: String,
    pub event: TriggerArgs,
}

/// One value a trigger function is told of its event.
#[derive(Debug, Clone, PartialEq)]
pub enum TriggerValue {
    Text(String),
    /// A point on a battlefield, in inches.
    Point(crate::board::field::Point),
    /// A route on a battlefield: its points in order.
    Points(Vec<crate::board::field::Point>),
}

/// What a trigger function is told of its event, as named values in the order the script
/// sees them. Plain data: the binding (`api::trigger_map`) makes the script's map of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TriggerArgs(pub Vec<(&'static str, TriggerValue)>);

impl TriggerArgs {
    pub fn text(mut self, name: &'static str, value: impl Into<String>) -> TriggerArgs {
        self.0.push((name, TriggerValue::Text(value.into())));
        self
    }

    pub fn with(mut self, name: &'static str, value: TriggerValue) -> TriggerArgs {
        self.0.push((name, value));
        self
    }

    /// The text named `name`, if the event has one.
    pub fn get_text(&self, name: &str) -> Option<&str> {
        self.0.iter().find_map(|(k, v)| match v {
            TriggerValue::Text(t) if *k == name => Some(t.as_str()),
            _ => None,
        })
    }
}

/// One game being played: its state, its log, its board view and its random streams.
#[derive(Clone)]
pub struct Game {
    pub ruleset: Arc<Ruleset>,
    pub def: GameDef,
    pub mission: String,
    pub seed: u64,
    pub options: IndexMap<String, Json>,
    pub state: GameState,
    pub events: Vec<Event>,
    pub view: View,
    /// Where the turn loop goes on: (turn, index of the next phase).
    pub next: (u32, usize),
    /// The phase at `next` has begun and waits for a player's commands (`servitor play`).
    pub awaiting: bool,
    /// Parked streams; the one in use sits in the script run's `rng`.
    streams: IndexMap<String, Rng>,
    current: String,
    pub pending: VecDeque<Pending>,
    /// Dice given from outside, shared by every stream (scenarios; companion play).
    pub forced: Option<Arc<std::sync::Mutex<crate::dice::rng::Forced>>>,
    /// While a front end shows a command's events as they come (a die asked mid-turn comes
    /// after the events before it): a copy of every event as it is logged.
    pub tee: Option<Arc<std::sync::Mutex<Vec<Event>>>>,
    /// What the game's script runs spent so far, against the `MAX_GAME_*` limits: kept with
    /// the game, so a game its host put down (a session between two commands) goes on adding
    /// up where it was.
    pub spent: crate::limits::Spent,
    /// `entered-section` triggers wait until the move that caused them ends.
    after_move: Vec<Pending>,
    /// … or, declared `after-activation`, until the piece that caused them has finished
    /// acting: another piece of its side acts, or the phase ends.
    after_activation: Vec<Pending>,
    /// The piece of the side whose phase it is that acted last (enter, move, leave).
    acting: Option<usize>,
    /// The piece walking now, where its segment began, the squares walked since its last
    /// logged segment, and the side whose sight the walk keeps out of.
    segment: Option<(usize, Square, Vec<Square>, Option<String>)>,
    /// The side whose sight the steps taken now keep out of (a priced walk's `avoid`): its
    /// segments' lines say so (`unseen_by`), for a reader to check them by its own sight.
    pub walk_unseen_by: Option<String>,
    /// Why the walk about to start goes where it goes (a decision verb's reason): said on
    /// the walk's first line.
    pub move_reason: Option<String>,
    /// The piece the next move heads for (a verb's plan), the `target` of its first segment.
    pub move_target: Option<String>,
    /// Per piece index, what the binding last made of the piece for scripts (`game.piece(id)`:
    /// a shared, read-only handle), until the piece changes: behaviours ask for the same
    /// pieces many times between two actions. Opaque here: the kernel only forgets it.
    piece_views: Vec<Option<Arc<dyn std::any::Any + Send + Sync>>>,
    /// The action-point fields of the stats records, read once (`actions::stat_costs`).
    stat_costs: std::collections::HashMap<String, actions::StatCosts>,
}

pub const IDLE_STREAM: &str = "idle";

impl Game {
    pub fn new(
        ruleset: Arc<Ruleset>,
        def: GameDef,
        mission: &str,
        seed: u64,
        options: IndexMap<String, Json>,
        view: View,
    ) -> Game {
        let stat_costs = actions::stat_costs(&ruleset, def.stats.as_deref());
        Game {
            stat_costs,
            ruleset,
            def,
            mission: mission.to_string(),
            seed,
            options,
            state: GameState::default(),
            events: Vec::new(),
            view,
            next: (1, 0),
            awaiting: false,
            streams: IndexMap::new(),
            current: IDLE_STREAM.into(),
            pending: VecDeque::new(),
            forced: None,
            tee: None,
            spent: Default::default(),
            after_move: Vec::new(),
            after_activation: Vec::new(),
            acting: None,
            segment: None,
            walk_unseen_by: None,
            move_reason: None,
            move_target: None,
            piece_views: Vec::new(),
        }
    }

    // ----- random streams -------------------------------------------------------------

    fn take_stream(&mut self, name: &str) -> Rng {
        let rng = self
            .streams
            .shift_remove(name)
            .unwrap_or_else(|| Rng::derived(self.seed, name));
        match &self.forced {
            Some(f) => rng.with_forced(f.clone()),
            None => rng,
        }
    }

    /// Makes `name` the stream the script rolls on (`rng`, the run's); returns the one it
    /// replaces.
    pub fn enter_stream(&mut self, rng: &mut Rng, name: &str) -> String {
        if self.current == name {
            return name.to_string();
        }
        let fresh = self.take_stream(name);
        let parked = std::mem::replace(rng, fresh);
        let previous = std::mem::replace(&mut self.current, name.to_string());
        self.streams.insert(previous.clone(), parked);
        previous
    }

    /// Puts back the stream `enter_stream` replaced.
    pub fn leave_stream(&mut self, rng: &mut Rng, previous: String) {
        self.enter_stream(rng, &previous);
    }

    /// Stream positions, for a save (taken between phases, when no stream is in use).
    pub fn stream_positions(&self) -> IndexMap<String, String> {
        self.streams
            .iter()
            .filter(|(name, _)| name.as_str() != IDLE_STREAM)
            .map(|(name, rng)| (name.clone(), rng.word_pos().to_string()))
            .collect()
    }

    pub fn restore_streams(&mut self, positions: &IndexMap<String, String>) -> Result<(), String> {
        for (name, pos) in positions {
            let pos: u128 = pos
                .parse()
                .map_err(|_| format!("stream `{name}`: `{pos}` is not a position"))?;
            let mut rng = Rng::derived(self.seed, name);
            rng.set_word_pos(pos);
            self.streams.insert(name.clone(), rng);
        }
        Ok(())
    }

    // ----- the log ----------------------------------------------------------------------

    fn event(&self, kind: &str, text: String) -> Event {
        Event {
            turn: self.state.turn,
            side: self.state.side.clone(),
            phase: self.state.phase.clone(),
            kind: kind.into(),
            text,
            ..Event::default()
        }
    }

    /// Adds an event to the log (and to the tee, while one watches the log grow).
    pub(crate) fn push_event(&mut self, e: Event) {
        if let Some(tee) = &self.tee {
            tee.lock().unwrap_or_else(|p| p.into_inner()).push(e.clone());
        }
        self.events.push(e);
    }

    /// Logs an action with its text and carries it out.
    pub fn act(&mut self, kind: &str, text: String, piece: Option<&str>, action: Action) {
        self.flush_segment();
        let e = self.commit(kind, text, piece, action);
        self.push_event(e);
    }

    /// [`Game::act`] with the event finished by `finish` before it is logged (fields only
    /// the caller knows); what `finish` returns is returned, the action carried out and
    /// logged either way.
    pub fn act_finished<T>(
        &mut self,
        kind: &str,
        text: String,
        piece: Option<&str>,
        action: Action,
        finish: impl FnOnce(&mut Event) -> T,
    ) -> T {
        self.flush_segment();
        let mut e = self.commit(kind, text, piece, action);
        let out = finish(&mut e);
        self.push_event(e);
        out
    }

    /// Carries out an action: the event that logs it, to be pushed.
    fn commit(&mut self, kind: &str, text: String, piece: Option<&str>, action: Action) -> Event {
        if let Some(i) = action.piece_id().and_then(|id| self.state.index_of(id)) {
            self.forget_piece_view(i);
        }
        let applied = apply(&mut self.state, &action);
        debug_assert!(applied, "validated actions always apply: {action:?}");
        match &action {
            Action::Door { a, b, open } => {
                self.view.grid.set_door(*a, *b, *open);
            }
            Action::Add { .. }
            | Action::Enter { .. }
            | Action::Leave { .. }
            | Action::Move { .. }
            | Action::Remove { .. }
            | Action::Reveal { .. } => self.view.rebuild(&self.state.pieces),
            _ => {}
        }
        let mut e = self.event(kind, text);
        e.piece = piece.map(str::to_string);
        e.action = Some(action);
        e
    }

    /// A decision or remark, with its citation.
    pub fn say(&mut self, text: String, source: Option<String>) {
        self.flush_segment();
        let mut e = self.event("decision", text);
        e.source = source;
        e.piece = self.subject_of(&e.text);
        self.push_event(e);
    }

    /// The piece a decision is about when its text opens with a piece's id ("blip-3 is walled
    /// in…"), so the referee's log names it in the `piece` field too.
    fn subject_of(&self, text: &str) -> Option<String> {
        let first = text.split([' ', ':', ',', '\'']).next()?;
        let i = self.state.index_of(first)?;
        Some(self.state.pieces[i].id.clone())
    }

    /// A question put to the player (`game.ask`): `choices` to pick one of, `default` the
    /// answer when nobody is asked (a headless game: the stand-in player's), or when the
    /// player leaves it to servitor. The answer comes from the forced answers first (a
    /// replayed session), then the player at the table (`Forced::choose`); it is recorded
    /// when the session records answers, and logged as a decision saying who gave it.
    pub fn ask(&mut self, question: &str, choices: &[String], default: &str) -> Result<String, String> {
        if choices.is_empty() {
            return Err(format!(
                "`ask` needs at least one choice to offer (question: {question})"
            ));
        }
        let Some(fallback) = choices.iter().position(|c| c == default) else {
            return Err(format!(
                "`ask`: the default `{default}` is not one of the choices ({})",
                choices.join(", ")
            ));
        };
        let n = choices.len() as u64;
        let mut answered = None;
        if let Some(forced) = &self.forced {
            let mut f = forced.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(v) = f.choices.pop_front() {
                if v > n {
                    return Err(format!(
                        "an answer saved as {v} was given to a question with {n} choices ({question})"
                    ));
                }
                // 0: the player left it to servitor.
                answered = (v > 0).then(|| v as usize - 1);
            } else if f.strict_choices {
                f.choices_short = true;
            } else if let Some(choose) = f.choose.as_mut() {
                let asking = crate::dice::rng::ChoiceAsk {
                    question: question.to_string(),
                    choices: choices.to_vec(),
                    default: fallback,
                };
                answered = choose(&asking).filter(|v| (1..=n).contains(v)).map(|v| v as usize - 1);
            }
            let pick = answered.unwrap_or(fallback);
            if let Some(record) = f.choice_record.as_mut() {
                // 0: left to servitor (the default), so a replay asks nobody and takes it again.
                record.push(answered.map_or(0, |_| pick as u64 + 1));
            }
        }
        let pick = answered.unwrap_or(fallback);
        let who = if answered.is_some() {
            "the player's answer"
        } else {
            "the stand-in player's answer"
        };
        self.flush_segment();
        let text = format!(
            "{question} {} ({who}; the choices: {})",
            choices[pick],
            choices.join(", ")
        );
        let mut e = self.event("decision", text);
        e.piece = self.subject_of(&e.text);
        // The question as data too: a program reading the log need not parse the sentence.
        e.fields.insert("choices".into(), serde_json::json!(choices));
        e.fields.insert("answer".into(), serde_json::json!(choices[pick]));
        let by = if answered.is_some() { "player" } else { "stand-in" };
        e.fields.insert("answered_by".into(), serde_json::json!(by));
        self.push_event(e);
        Ok(choices[pick].clone())
    }

    /// A choice made natively (a verb's target) by piece `chooser`: a `choice` event with
    /// what it was made among. Bookkeeping at the table (shown with `--verbose`); the
    /// referee's log keeps it.
    pub fn choice(&mut self, chooser: &str, text: String, candidates: Vec<event::Candidate>) {
        self.flush_segment();
        let mut e = self.event("choice", text);
        e.piece = Some(chooser.to_string());
        e.candidates = candidates;
        self.push_event(e);
    }

    /// [`Game::say`] with structured fields (`game.say(text, source, #{ … })`, see
    /// [`Event::attach`]); a field of the wrong type refuses the whole line.
    pub fn say_with(
        &mut self,
        text: String,
        source: Option<String>,
        fields: IndexMap<String, Json>,
    ) -> Result<(), String> {
        let mut e = self.event("decision", text);
        e.source = source;
        e.attach(fields)?;
        if e.piece.is_none() {
            e.piece = self.subject_of(&e.text);
        }
        self.flush_segment();
        self.push_event(e);
        Ok(())
    }

    /// Turns the script run's steps (rolls, table rolls, notes) into log events, in order.
    pub fn absorb(&mut self, steps: Vec<Step>) {
        if steps.is_empty() {
            return;
        }
        self.flush_segment();
        for step in steps {
            let e = match step {
                Step::Roll { roll, why, piece } => {
                    let about: Vec<&str> = [piece.as_deref(), why.as_deref()].into_iter().flatten().collect();
                    let text = match about.is_empty() {
                        false => format!("{roll} ({})", about.join(", ")),
                        true => roll.to_string(),
                    };
                    let mut e = self.event("roll", text);
                    e.piece = piece;
                    e.purpose = why;
                    e.dice = roll.dice.iter().map(Into::into).collect();
                    e.total = Some(roll.total);
                    e
                }
                Step::Table(t) => {
                    // The table's line, then each follow-up roll its row asked for, each a
                    // table event of its own (rolled dice a player at the table saw).
                    let mut lines = Vec::new();
                    self.table_events(&t, None, &mut lines);
                    for e in lines {
                        self.push_event(e);
                    }
                    continue;
                }
                Step::Note { text, source } => {
                    let mut e = self.event("note", text);
                    e.source = source;
                    e
                }
                Step::Read {
                    roll,
                    text,
                    why,
                    piece,
                    source,
                } => {
                    let mut e = self.event("roll", text);
                    e.piece = piece;
                    e.purpose = why;
                    e.source = source;
                    e.dice = roll.dice.iter().map(Into::into).collect();
                    e.total = Some(roll.total);
                    e
                }
            };
            self.push_event(e);
        }
    }

    /// The events of a table roll: its own, then its follow-ups' in order, each follow-up's
    /// purpose naming the row that asked for it (`after`: the table and result above).
    fn table_events(&self, t: &TableRoll, after: Option<(&str, &str)>, out: &mut Vec<Event>) {
        let dice: Vec<String> = t.rolls.iter().map(|r| r.to_string()).collect();
        let (result, text) = match &t.outcome {
            Some(o) => {
                let label = o.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
                let amount = o.amount.as_ref().map(|a| format!(", amount {a}")).unwrap_or_default();
                (Some(o.result.clone()), format!("{}{label}{amount}", o.result))
            }
            None => (None, "no result".to_string()),
        };
        let notes = if t.notes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", t.notes.join("; "))
        };
        let mut e = self.event(
            "table",
            format!("{}: {} → {text}{notes}", t.title, dice.join(", then ")),
        );
        e.table = Some(t.table.clone());
        e.result = result;
        if let Some((last, earlier)) = t.rolls.split_last() {
            e.dice = last.dice.iter().map(Into::into).collect();
            e.total = Some(last.total);
            e.rerolled = earlier
                .iter()
                .map(|r| event::Rerolled {
                    dice: r.dice.iter().map(Into::into).collect(),
                    total: r.total,
                })
                .collect();
        }
        e.piece = t.piece.clone();
        e.purpose = t
            .purpose
            .clone()
            .or_else(|| after.map(|(title, result)| format!("what the {result} row of {title} rolls next")));
        e.source = t.outcome.as_ref().and_then(|o| o.source.clone()).or(t.source.clone());
        let piece = e.piece.clone();
        out.push(e);
        if let Some(o) = &t.outcome {
            for f in &o.follow {
                let before = out.len();
                self.table_events(f, Some((&t.title, &o.result)), out);
                if out[before].piece.is_none() {
                    out[before].piece.clone_from(&piece);
                }
            }
        }
    }

    // ----- pieces -----------------------------------------------------------------------

    /// What the binding makes of piece `i` for scripts, built by `build` at most once between
    /// two changes of the piece (`T` is cheap to clone: a handle sharing one view).
    pub fn piece_view<T: Clone + Send + Sync + 'static>(
        &mut self,
        i: usize,
        build: impl FnOnce(&state::Piece) -> T,
    ) -> T {
        if self.piece_views.len() < self.state.pieces.len() {
            self.piece_views.resize(self.state.pieces.len(), None);
        }
        if let Some(view) = self.piece_views[i].as_ref().and_then(|v| v.downcast_ref::<T>()) {
            return view.clone();
        }
        let view = build(&self.state.pieces[i]);
        self.piece_views[i] = Some(Arc::new(view.clone()));
        view
    }

    fn forget_piece_view(&mut self, i: usize) {
        if let Some(m) = self.piece_views.get_mut(i) {
            *m = None;
        }
    }

    pub fn index(&self, id: &str) -> Result<usize, String> {
        self.state.index_of(id).ok_or_else(|| {
            let ids = self.state.pieces.iter().map(|p| p.id.as_str());
            let hint = crate::diagnostic::did_you_mean(id, ids)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            format!("no piece `{id}`{hint}")
        })
    }

    pub fn on_board(&self, id: &str) -> Result<usize, String> {
        let i = self.index(id)?;
        match self.state.pieces[i].status.as_str() {
            ON_BOARD => Ok(i),
            status => Err(format!("{id} is not on the board (it is {status})")),
        }
    }

    /// [`Game::on_board`], on a square: the grid's moves and questions ask this, so a piece
    /// standing at a point of a battlefield gets a clear refusal instead.
    pub fn on_grid(&self, id: &str) -> Result<usize, String> {
        let i = self.on_board(id)?;
        if self.state.pieces[i].at.is_none() {
            return Err(format!(
                "{id} stands at a point of a battlefield, not on a square: use the battlefield calls (move_at, close_in, gap, nearest_unit, …)"
            ));
        }
        Ok(i)
    }

    /// A new piece's stats: (life, size, diagonal) from its stats record, if it has one.
    pub fn stats(&self, kind: &str) -> (i64, i32, bool) {
        let record = self
            .def
            .stats
            .as_ref()
            .and_then(|k| self.ruleset.records.get(k))
            .and_then(|records| records.get(kind));
        let number = |f: &str| match record.and_then(|r| r.fields.get(f)) {
            Some(crate::value::Value::Number(n)) => Some(*n),
            _ => None,
        };
        let diagonal = !matches!(
            record.and_then(|r| r.fields.get("diagonal")),
            Some(crate::value::Value::Flag(false))
        );
        (
            number("life").unwrap_or(1),
            number("size").unwrap_or(1).clamp(1, 8) as i32,
            diagonal,
        )
    }

    /// Field `field` of piece `i`'s stats record (the game's `stats` kind, by its kind).
    pub fn stat(&self, i: usize, field: &str) -> Option<&crate::value::Value> {
        let kind = self.def.stats.as_ref()?;
        self.ruleset
            .records
            .get(kind)?
            .get(&self.state.pieces[i].kind)?
            .fields
            .get(field)
    }

    pub fn is_stats_kind(&self, kind: &str) -> bool {
        match self.def.stats.as_ref() {
            None => true,
            Some(k) => self.ruleset.records.get(k).is_some_and(|r| r.contains_key(kind)),
        }
    }

    pub fn new_id(&self, kind: &str) -> String {
        let mut n = self.state.counters.get(kind).copied().unwrap_or(0) + 1;
        loop {
            let id = format!("{kind}-{n}");
            if self.state.index_of(&id).is_none() {
                return id;
            }
            n += 1;
        }
    }

    // ----- triggers ---------------------------------------------------------------------

    /// The triggers `event`, caused by a piece of `side`, calls now, in the order the game
    /// item declares them: each whose filters let it. `mover` is the piece that stepped, for
    /// `beside`; a filter the game cannot answer (no piece on the grid) lets the trigger run,
    /// so a filter only ever saves calls the script would have returned from.
    fn triggers_for(&self, event: TriggerEvent, side: &str, mover: Option<usize>) -> Vec<&crate::ruleset::TriggerDef> {
        self.def
            .triggers
            .iter()
            .filter(|t| t.event == event && t.side.as_deref().is_none_or(|s| s == side))
            .filter(|t| t.while_var.as_deref().is_none_or(|v| self.var_holds(v)))
            .filter(|t| {
                let on_grid = mover.filter(|&i| self.state.pieces[i].at.is_some());
                match (t.beside.as_deref(), on_grid) {
                    (Some(other), Some(i)) => !self.view.adjacent(&self.state.pieces, i, other).is_empty(),
                    _ => true,
                }
            })
            .collect()
    }

    /// Whether game variable `name` holds something: set, and not `false`, `0`, `""`, an
    /// empty list or an empty map (a trigger's `while`).
    fn var_holds(&self, name: &str) -> bool {
        use serde_json::Value as Json;
        match self.state.vars.get(name) {
            None | Some(Json::Null) | Some(Json::Bool(false)) => false,
            Some(Json::Number(n)) => n.as_f64() != Some(0.0),
            Some(Json::String(t)) => !t.is_empty(),
            Some(Json::Array(list)) => !list.is_empty(),
            Some(Json::Object(map)) => !map.is_empty(),
            Some(Json::Bool(true)) => true,
        }
    }

    /// Piece `i` is about to act (enter, move, leave). When it is of the side whose phase it
    /// is and another piece acted before it, that piece's activation is over: the triggers
    /// waiting for it are queued to run now, before `i` acts.
    pub fn begin_activation(&mut self, i: usize) {
        if self.acting == Some(i) || self.state.pieces[i].side != self.state.side {
            return;
        }
        self.acting = Some(i);
        self.pending.extend(self.after_activation.drain(..));
    }

    /// The phase is over (or a script said the piece acting is done): what waited for the
    /// piece acting to finish is queued to run now.
    pub fn end_activation(&mut self) {
        self.flush_segment();
        self.acting = None;
        self.pending.extend(self.after_activation.drain(..));
    }

    pub fn queue(&mut self, event: TriggerEvent, side: &str, args: TriggerArgs) {
        self.queue_by(event, side, None, args);
    }

    /// [`Game::queue`] for an event piece `mover` caused by a step (the `beside` filter).
    fn queue_by(&mut self, event: TriggerEvent, side: &str, mover: Option<usize>, args: TriggerArgs) {
        let functions: Vec<String> = self
            .triggers_for(event, side, mover)
            .iter()
            .map(|t| t.function.clone())
            .collect();
        for function in functions {
            self.pending.push_back(Pending {
                function,
                stream: format!("on-{}", event.name()),
                event: args.clone(),
            });
        }
    }

    /// Looks for hidden pieces that `moved` (or, with `None`, any piece) now sees or is seen
    /// by; queues one `sighted` trigger per hidden piece.
    pub fn check_sightings(&mut self, moved: Option<usize>) {
        let pieces = &self.state.pieces;
        let mut found: Vec<(usize, usize)> = Vec::new();
        let hidden: Vec<usize> = (0..pieces.len())
            .filter(|&i| pieces[i].on_board() && pieces[i].hidden.is_some())
            .filter(|&i| moved.is_none_or(|m| m == i || pieces[m].hidden.is_none()))
            .collect();
        for h in hidden {
            let sees = |w: usize| {
                pieces[w].on_board()
                    && pieces[w].hidden.is_none()
                    && pieces[w].side != pieces[h].side
                    && self.view.sees(pieces, w, h, crate::ruleset::Purpose::Spot)
            };
            // The piece that moved is the only watcher to ask, unless it is the hidden one.
            let watcher = match moved {
                Some(m) if m != h => Some(m).filter(|&m| sees(m)),
                _ => (0..pieces.len()).find(|&w| sees(w)),
            };
            if let Some(w) = watcher {
                found.push((h, w));
            }
        }
        for (h, w) in found {
            let (piece, by, side) = (
                self.state.pieces[h].id.clone(),
                self.state.pieces[w].id.clone(),
                self.state.pieces[w].side.clone(),
            );
            if self
                .pending
                .iter()
                .any(|p| p.event.get_text("piece") == Some(piece.as_str()))
            {
                continue;
            }
            self.queue(
                TriggerEvent::Sighted,
                &side,
                TriggerArgs::default().text("piece", piece).text("by", by),
            );
        }
    }

    /// Piece `i` acted (a step, a turn, an action that cost it action points): every piece of
    /// another side keeping a watch (`watch` in the game item) for which `i` is a valid target
    /// — face up, within the watch's range, in its front quarter when the watch says `front`,
    /// and in its sight to shoot — queues one call of the watch's function. Only those calls
    /// reach a script; the test is native.
    pub fn check_reactions(&mut self, i: usize) {
        if self.def.watches.is_empty() {
            return;
        }
        let pieces = &self.state.pieces;
        let target = &pieces[i];
        let Some(at) = target.at else { return };
        if !target.on_board() || target.hidden.is_some() {
            return;
        }
        let mut found = Vec::new();
        for (w, p) in pieces.iter().enumerate() {
            let Some(mode) = p.watch.as_deref() else { continue };
            let Some(def) = self.def.watches.get(mode) else {
                continue;
            };
            let Some(from) = p.at else { continue };
            if w == i || !p.on_board() || p.hidden.is_some() || p.side == target.side {
                continue;
            }
            let range = (at.x - from.x).abs().max((at.y - from.y).abs());
            if range > def.range as i32 || (def.front && !view::in_arc(p, at)) {
                continue;
            }
            if !self.view.sees(pieces, w, i, crate::ruleset::Purpose::Shoot) {
                continue;
            }
            found.push((p.id.clone(), mode.to_string(), def.function.clone()));
        }
        let target = self.state.pieces[i].id.clone();
        for (watcher, mode, function) in found {
            self.pending.push_back(Pending {
                function,
                stream: format!("watch-{mode}"),
                event: TriggerArgs::default()
                    .text("piece", watcher)
                    .text("target", target.clone())
                    .text("mode", mode),
            });
        }
    }

    // ----- moving -----------------------------------------------------------------------

    /// One step of piece `i` to `to` (its top-left square), opening doors on the way; checks
    /// sightings and section entries. The caller validated the step.
    /// Opens the closed doors piece `i` meets stepping from `from` to `to` (logged, each
    /// followed by what comes into sight).
    pub fn open_doors_on_step(&mut self, i: usize, from: Square, to: Square) {
        let size = self.state.pieces[i].size;
        let doors = self.view.doors_on_step(from, size, to.x - from.x, to.y - from.y);
        for (a, b) in doors {
            let id = self.state.pieces[i].id.clone();
            self.act(
                "door",
                format!("{id} opens the door between {a} and {b}"),
                Some(&id),
                Action::Door { a, b, open: true },
            );
            self.check_sightings(None);
        }
    }

    pub fn step(&mut self, i: usize, to: Square) {
        let from = self.state.pieces[i].at.expect("a walking piece is on the board");
        self.open_doors_on_step(i, from, to);
        // Walk: the state follows every step; the log gets one line per segment.
        self.forget_piece_view(i);
        self.state.pieces[i].at = Some(to);
        self.view.moved(&self.state.pieces, i, from);
        match &mut self.segment {
            Some((who, _, path, unseen_by)) if *who == i && *unseen_by == self.walk_unseen_by => path.push(to),
            _ => {
                self.flush_segment();
                self.segment = Some((i, from, vec![to], self.walk_unseen_by.clone()));
            }
        }
        self.check_entries(i);
        self.check_sightings(Some(i));
        self.check_reactions(i);
        let side = self.state.pieces[i].side.clone();
        if !self.triggers_for(TriggerEvent::Moved, &side, Some(i)).is_empty() {
            let args = TriggerArgs::default()
                .text("piece", self.state.pieces[i].id.clone())
                .text("from", from.to_string())
                .text("to", to.to_string());
            self.queue_by(TriggerEvent::Moved, &side, Some(i), args);
        }
    }

    /// Records the sections a piece stands in as entered by its side; with `fire`, queues
    /// `entered-section` for when the move ends (a placed piece enters without a trigger).
    pub fn check_entries(&mut self, i: usize) {
        self.entries(i, true);
    }

    pub fn entries(&mut self, i: usize, fire: bool) {
        let p = &self.state.pieces[i];
        let side = p.side.clone();
        let sections: Vec<String> = p
            .squares()
            .iter()
            .filter_map(|&s| self.view.grid.section_of(s).map(str::to_string))
            .collect();
        for section in sections {
            let known = self.state.entered.get(&side).is_some_and(|l| l.contains(&section));
            if known {
                continue;
            }
            let id = self.state.pieces[i].id.clone();
            self.state_entered(&side, &section, Some(&id));
            if !fire {
                continue;
            }
            let triggers: Vec<(String, TriggerTiming)> = self
                .triggers_for(TriggerEvent::EnteredSection, &side, None)
                .iter()
                .map(|t| (t.function.clone(), t.timing))
                .collect();
            for (function, timing) in triggers {
                let pending = Pending {
                    function,
                    stream: format!("on-{}", TriggerEvent::EnteredSection.name()),
                    event: TriggerArgs::default()
                        .text("piece", id.clone())
                        .text("section", section.clone()),
                };
                match timing {
                    TriggerTiming::AfterMove => self.after_move.push(pending),
                    TriggerTiming::AfterActivation => self.after_activation.push(pending),
                }
            }
        }
    }

    fn state_entered(&mut self, side: &str, section: &str, by: Option<&str>) {
        let text = match by {
            Some(id) => format!("{id} enters {section}: the {side} side's first piece there"),
            None => format!("{section} counts as entered"),
        };
        // Logged through `commit` so a segment in progress stays in one line.
        let mut e = self.event("entered", text);
        e.piece = by.map(str::to_string);
        let action = Action::Entered {
            side: side.to_string(),
            section: section.to_string(),
        };
        apply(&mut self.state, &action);
        e.action = Some(action);
        if self.segment.is_some() {
            // Keep the walk's line before this one: it happened first.
            self.flush_segment();
        }
        self.push_event(e);
    }

    pub fn mark_entered(&mut self, section: &str) {
        self.flush_segment();
        let sides = self.def.sides.clone();
        for side in sides {
            if !self
                .state
                .entered
                .get(&side)
                .is_some_and(|l| l.iter().any(|s| s == section))
            {
                self.state_entered(&side, section, None);
            }
        }
    }

    /// Logs the squares walked since the last line as one `move` event.
    pub fn flush_segment(&mut self) {
        let Some((i, from, path, unseen_by)) = self.segment.take() else {
            return;
        };
        let id = self.state.pieces[i].id.clone();
        let route: Vec<String> = path.iter().map(Square::to_string).collect();
        let n = path.len();
        let why = self.move_reason.take().map(|w| format!(" ({w})")).unwrap_or_default();
        let mut e = self.event(
            "move",
            format!(
                "{id} moves {n} square{}: {from} → {}{why}",
                if n == 1 { "" } else { "s" },
                route.join(" → ")
            ),
        );
        e.piece = Some(id.clone());
        e.target = self.move_target.take();
        e.action = Some(Action::Move { id, path });
        if let Some(side) = unseen_by {
            e.fields.insert("unseen_by".into(), side.into());
        }
        self.push_event(e);
    }

    /// The move is over: its `entered-section` triggers may run now.
    pub fn end_move(&mut self) {
        self.flush_segment();
        self.pending.extend(self.after_move.drain(..));
    }

    // ----- eliminations -----------------------------------------------------------------

    pub fn eliminate(&mut self, i: usize, reason: &str, by: &str) {
        let p = &self.state.pieces[i];
        let (id, kind, side) = (p.id.clone(), p.kind.clone(), p.side.clone());
        let because = if reason.is_empty() {
            String::new()
        } else {
            format!(": {reason}")
        };
        self.act(
            "remove",
            format!("{id} ({kind}) is eliminated{because}"),
            Some(&id),
            Action::Remove { id: id.clone() },
        );
        let args = TriggerArgs::default()
            .text("piece", id)
            .text("kind", kind)
            .text("side", side.clone())
            .text("reason", reason)
            .text("by", by);
        self.queue(TriggerEvent::Removed, &side, args);
    }
}
