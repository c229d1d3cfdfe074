//! What `servitor play` has shown the player: the player's view of the log, kept up as the
//! game grows — between commands, and while one runs, from a copy of each event as the game
//! logs it (`Game::tee`) — so that a die or a question asked in the middle of the enemy's turn
//! comes right after the events before it, never before them. With `--pace activation` the
//! turn is shown one enemy activation at a time, the player pressing Enter between them.
//!
//! The player's view is a `PlayerLog` kept up event by event; with `--json` what is shown
//! mid-command is a `"partial"` answer that the command's own answer repeats. Activations are
//! `game::table::activations`; the pause comes when the table has something to do, before
//! the next piece's first die ([`Screen::before_die`], told whose die by `DieAsk::piece`).

use servitor::game::event::{Event, PlayerLog};
use servitor::game::{Game, table};
use std::sync::{Arc, Mutex};

/// How the enemy's turn is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pace {
    /// All of it at once (the events still come before any die asked in the middle)
    Turn,
    /// One enemy activation (one piece's move, attack, …) at a time: Enter shows the next
    Activation,
}

pub struct Screen {
    human: String,
    verbose: bool,
    json: bool,
    state: Mutex<Shown>,
}

#[derive(Default)]
struct Shown {
    log: PlayerLog,
    /// How many of `log.seen` the player has been shown.
    printed: usize,
    pace: Option<Pace>,
    /// The command running: its line, the events the game logged since it began, how many
    /// of them `log` has seen, its steps' numbering, the piece acting last, whether the
    /// table has something to do since the last pause (a model moved, placed, removed…), and
    /// whether the player asked for the rest of it without pauses (`all`).
    line: String,
    tee: Option<Arc<Mutex<Vec<Event>>>>,
    teed: usize,
    number: usize,
    actor: Option<String>,
    to_do: bool,
    all: bool,
    /// The names pieces went by, so a token revealed acts on as the same piece.
    aliases: table::Aliases,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Screen {
    pub fn new(human: &str, verbose: bool, json: bool, pace: Pace) -> Arc<Screen> {
        Arc::new(Screen {
            human: human.to_string(),
            verbose,
            json,
            state: Mutex::new(Shown {
                pace: Some(pace),
                ..Shown::default()
            }),
        })
    }

    pub fn pace(&self) -> Pace {
        lock(&self.state).pace.unwrap_or(Pace::Turn)
    }

    pub fn set_pace(&self, pace: Pace) {
        lock(&self.state).pace = Some(pace);
    }

    /// The game as it stands, all of it taken as shown but the last `unshown` events (a
    /// resume shows the last turns again; a restored game shows nothing new).
    pub fn caught_up(&self, game: &Game, unshown: usize) {
        let mut s = lock(&self.state);
        s.log = PlayerLog::default();
        s.log.catch_up(&game.events);
        s.printed = s.log.seen.len().saturating_sub(unshown);
        s.tee = None;
        // Who is who in what was shown (what is shown next is followed as it is printed).
        let mut aliases = table::Aliases::default();
        for e in &s.log.seen[..s.printed] {
            aliases.follow(e);
        }
        s.aliases = aliases;
    }

    /// A command (or a new game's setup, `fresh`) begins on `game`: its events are followed
    /// as they are logged.
    pub fn begin(&self, line: &str, game: &mut Game, fresh: bool) {
        let mut s = lock(&self.state);
        if fresh {
            s.log = PlayerLog::default();
            s.printed = 0;
        }
        s.log.catch_up(&game.events);
        let tee = Arc::new(Mutex::new(Vec::new()));
        game.tee = Some(tee.clone());
        s.line = line.to_string();
        s.tee = Some(tee);
        s.teed = 0;
        s.number = 0;
        s.actor = None;
        s.to_do = false;
        s.all = false;
    }

    /// Shows what the running command logged so far (before a die or a question is asked).
    pub fn flush(&self) {
        let mut s = lock(&self.state);
        let Some(tee) = s.tee.clone() else { return };
        let teed: Vec<Event> = lock(&tee)[s.teed..].to_vec();
        s.teed += teed.len();
        for e in &teed {
            s.log.see_next(e);
        }
        self.print_unshown(&mut s, true);
    }

    /// Before a die is asked: what happened before it is shown, and with `--pace activation`
    /// the pause comes before the die when the table has something to do — a die of an enemy
    /// piece other than the one acting last begins that piece's activation, and a die of no
    /// piece is rolled once the table caught up.
    pub fn before_die(&self, piece: Option<&str>) {
        self.flush();
        let mut s = lock(&self.state);
        if self.json || s.pace != Some(Pace::Activation) || s.all || !s.to_do {
            return;
        }
        // The set-up is read as it comes.
        if s.log.seen.last().is_none_or(|e| e.turn == 0) {
            return;
        }
        match piece {
            // A die of no piece (a placement, a test of a whole section): the table does what
            // it has to before it is rolled.
            None => {}
            // The player's own pieces' dice (a shot at a piece moving) belong to the activation
            // they react to, and the acting piece's to its own.
            Some(piece) => {
                let enemy = s.aliases.side_of(piece).is_some_and(|side| side != self.human);
                let first = s.aliases.first_name(piece);
                if !enemy || s.actor.as_deref() == Some(first.as_str()) {
                    return;
                }
                s.actor = Some(first);
            }
        }
        s.all = wait_for_enter();
        s.to_do = false;
    }

    /// The command is over (or refused, `game` then put back as it was): its events are
    /// followed no more; [`Screen::show`] shows what is left of them.
    pub fn end(&self, game: &mut Game) {
        game.tee = None;
        let mut s = lock(&self.state);
        s.tee = None;
        s.log.catch_up(&game.events);
    }

    /// Shows the events not shown yet (as text; with `--json` they go in the command's answer).
    pub fn show(&self, game: &Game) {
        let mut s = lock(&self.state);
        s.log.catch_up(&game.events);
        if self.json {
            s.printed = s.log.seen.len();
        } else {
            self.print_unshown(&mut s, false);
        }
    }

    /// The player's view of the log from event `from` on.
    pub fn seen_from(&self, game: &Game, from: usize) -> Vec<Event> {
        let mut s = lock(&self.state);
        s.log.catch_up(&game.events);
        s.log.seen[from.min(s.log.seen.len())..].to_vec()
    }

    /// Prints the events not shown yet: as JSON, a partial answer (`"partial": true`) while
    /// the command runs; as text, the instructions, paced by activation if asked.
    fn print_unshown(&self, s: &mut Shown, running: bool) {
        let events: Vec<Event> = s.log.seen[s.printed.min(s.log.seen.len())..].to_vec();
        s.printed = s.log.seen.len();
        let events = if self.json {
            events
        } else {
            table::without_empty_phases(events, self.verbose)
        };
        if events.is_empty() {
            return;
        }
        if self.json {
            if running {
                super::emit_json(&serde_json::json!({
                    "command": s.line,
                    "ok": true,
                    "partial": true,
                    "log_version": servitor::game::event::LOG_VERSION,
                    "events": events,
                }));
            }
            return;
        }
        let paced = s.pace == Some(Pace::Activation);
        let mut last = s.actor.clone();
        let mut aliases = s.aliases.clone();
        let groups = table::activations(&events, &self.human, &mut last, &mut aliases);
        for group in groups {
            // The set-up is read as it comes: it is the turns that are played piece by piece.
            let owners: Vec<Option<String>> = group
                .iter()
                .map(|e| {
                    s.aliases.follow(e);
                    s.aliases.actor(e, &self.human).filter(|_| e.turn > 0)
                })
                .collect();
            let actors: Vec<&String> = owners.iter().flatten().collect();
            let first = actors.first().map(|a| a.to_string());
            // The pause lets the player carry out what the table has to do (a model moved,
            // placed, removed) before reading on: none after a piece that only decided (it
            // stays, it holds its fire) or only had a die rolled.
            if paced && !s.all && s.to_do && first.is_some() && first != s.actor {
                s.all = wait_for_enter();
                s.to_do = false;
            }
            // What the group's pieces do at the table, from the first of them on (what comes
            // before is the end of the activation before, or the phase's own: a card drawn).
            let from = owners.iter().position(Option::is_some).unwrap_or(group.len());
            let acts = group[from..].iter().any(|e| {
                e.action.is_some()
                    && !e.is_bookkeeping()
                    && !matches!(e.kind.as_str(), "ap" | "pool" | "score" | "collect" | "phase")
            });
            super::emit(&table::instructions_numbered(
                group,
                &self.human,
                self.verbose,
                &mut s.number,
            ));
            s.to_do |= acts;
            if let Some(a) = actors.last() {
                s.actor = Some(a.to_string());
            }
        }
    }
}

/// Between two activations: Enter shows the next, `all` the rest of the command at once.
/// Whether the player asked for the rest (or input ended).
fn wait_for_enter() -> bool {
    loop {
        super::eprint_safe("  (Enter: the next activation · all: the rest of the turn) ");
        let line = servitor::script::outside_the_deadline(super::play::read_stdin_line);
        match line {
            None => return true,
            Some(Ok(l)) if l.trim().is_empty() => return false,
            Some(Ok(l)) if l.trim() == "all" => return true,
            Some(Ok(l)) => super::eprint_safe(&servitor::escape::visible(&format!(
                "`{}`: the enemy's turn is still being read out: Enter shows the next activation, `all` the rest\n",
                l.trim()
            ))),
            Some(Err(why)) => super::eprint_safe(&format!("{why}\n")),
        }
    }
}
