//! Rule invariants, checked from each game's own log (issue 20, "the class fix"): every
//! mission of every bundled package that can be played is played a few hundred times in
//! process, and each game's log is replayed on a fresh state while a checker holds every
//! action to the rules the seeds state. Each violation is reported with the command that
//! plays the game again and the turn it happened in.
//!
//! Generic invariants hold for any game (occupancy, legal steps, doors, placements out of
//! sight, attacks); the ones particular to a game read what its package declares (its
//! `target-priority` constant, its event cards' effects) and stay silent for a package that
//! declares nothing of the kind. New playable packages are picked up as they land.
//!
//! `SERVITOR_INVARIANT_GAMES=N` plays N games a mission (default 100: well under a minute in a
//! debug build; raise it in release, e.g. `SERVITOR_INVARIANT_GAMES=2000 cargo test --release
//! --test invariants`).

mod common;

use servitor::board::moves::{Steps, UNREACHABLE, distance_field};
use servitor::board::{Edge, Grid, Square, los};
use servitor::game::{Action, Event, GameError, GameState, Host, Piece, Setup};
use servitor::ruleset::{ArgChoice, Ruleset};
use servitor::value::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Violations today's code is known to make: the invariant, in at most what share of the
/// games played (percent: a known bug that spreads is a new one), and the issue item that will
/// fix it. The test passes while these occur within their share and fails on any other; it
/// also fails when one of these no longer occurs, so that its entry is deleted as the fix
/// lands.
#[rustfmt::skip]
const KNOWN: &[(&str, usize, &str)] = &[
    // Issue 20, items 1-4 (a blip revealed on its own side's model, doors opened from beside
    // them and crossed diagonally, a section scanned while the entering model still moved, the
    // re-roll card outliving its turn) were listed here until their fixes landed. A rule
    // found broken goes here with its issue until it is fixed.
];

/// One broken rule in one game.
#[derive(Debug, Clone)]
struct Violation {
    invariant: &'static str,
    turn: u32,
    message: String,
}

/// What a package declares that the game-specific invariants read.
#[derive(Debug, Default)]
struct Declared {
    /// `const target-priority`: the kinds a shooter targeting their side picks among, in
    /// order, after the nearest in sight (seed 000, Targets).
    target_priority: Option<Vec<String>>,
    /// The `effect` of each `event` record (an event card): a game variable of that name
    /// set `true` by the card's side lasts that side's turn only.
    card_effects: BTreeSet<String>,
    /// Cards that let a model attack twice in a turn (`chapter-card` records with the effect
    /// `attack-twice`): played, their log line names the card and the model (or none: the
    /// whole side).
    second_attack_cards: BTreeSet<String>,
    /// Whether pieces are placed when a side first enters a section (`on entered-section`).
    scans: bool,
    /// The game's declared line of sight (`sight …`): the arc, diagonals, doors, and which
    /// sight models block — the rule every sight check below holds the game to.
    sight: servitor::ruleset::SightRule,
    /// A game declares `action-points`: every attack is paid for, so a piece may make as many
    /// in a turn as its points pay (Space Hulk), and one attack a turn does not hold.
    action_points: bool,
    /// `door-opener front`: a piece with a facing opens a door only facing it.
    doors_faced: bool,
    /// A face-down piece never ends a move on one of the eight squares round a face-up
    /// piece of another side (FACTS.md, Space Hulk: a blip never moves next to a Marine).
    /// No declaration says it (the package's script walks with `apart`): set here for the
    /// packages whose rules say it, by name.
    hidden_apart: bool,
    /// A game with action points: each kind's `ap-…` fields of its stats record, read here
    /// from the package (not through the engine) to price every walk again.
    costs: HashMap<String, KindCosts>,
    /// The watch modes that always answer (their function logs a line by the watcher each
    /// time the engine calls it), with their reach: range in squares and front arc only.
    answering_watches: HashMap<String, (u32, bool)>,
    /// Blips come on at the squares marked `entry`, at most this many lurking at one (its
    /// `lurk-limit` constant), and one is lost only when every entry has had one this phase
    /// or is full (seed 004, Reinforcement Blips; FACTS.md, lurking).
    entry_limit: Option<i64>,
}

/// The packages whose blips come on at entry areas (`Declared::entry_limit`): the rule is the
/// script's, its words ("every entry area has had its blip this phase") and its `lurking`
/// variable too, so it is named here.
const ENTRY_BLIPS: &[&str] = &["space-hulk-solo"];

/// Watch modes whose function always answers with a line by the watcher (a shot, or why it
/// cannot shoot), by package: which ones do is the script's, not declared (`ready` asks the
/// player and may say nothing), so it is set here.
const ANSWERING_WATCHES: &[(&str, &str)] = &[("space-hulk-solo", "overwatch")];

/// What one kind of piece pays to walk (its stats record's `ap-…` fields; `None`: left out).
#[derive(Debug, Default, Clone)]
struct KindCosts {
    faces: bool,
    /// forward, forward-diagonal, sideways, backward, backward-diagonal.
    steps: [Option<i64>; 5],
    step: Option<i64>,
    turn: Option<i64>,
    turn_with_move: Option<i64>,
    door: Option<i64>,
}

/// What a piece did since its action points last changed hands: the walk an `ap` event
/// "spends N AP to move" pays for.
#[derive(Debug, Default)]
struct Walk {
    /// Quarter turns before each step, then after the last: `turns[k]` before step `k`.
    turns: Vec<i64>,
    /// Each step's price (`None`: a step the piece may not take, named).
    steps: Vec<Result<i64, String>>,
    doors: i64,
}

/// The packages whose face-down pieces keep apart from the other side (`Declared::hidden_apart`).
const HIDDEN_APART: &[&str] = &["space-hulk-solo"];

/// Each kind's walking costs, for a game with action points (see [`Declared::costs`]).
fn kind_costs(ruleset: &Ruleset) -> HashMap<String, KindCosts> {
    let Some(def) = ruleset.games.values().find(|g| g.action_points.is_some()) else {
        return HashMap::new();
    };
    let Some(records) = def.stats.as_deref().and_then(|k| ruleset.records.get(k)) else {
        return HashMap::new();
    };
    let number = |r: &servitor::ruleset::Record, f: &str| match r.fields.get(f) {
        Some(Value::Number(n)) => Some(*n),
        _ => None,
    };
    records
        .iter()
        .map(|(id, r)| {
            let steps = [
                "ap-forward",
                "ap-forward-diagonal",
                "ap-sideways",
                "ap-backward",
                "ap-backward-diagonal",
            ]
            .map(|f| number(r, f));
            let costs = KindCosts {
                faces: matches!(r.fields.get("facing"), Some(Value::Flag(true))),
                steps,
                step: number(r, "ap-step"),
                turn: number(r, "ap-turn"),
                turn_with_move: number(r, "ap-turn-with-move"),
                door: number(r, "ap-door"),
            };
            (id.clone(), costs)
        })
        .collect()
}

fn declared(ruleset: &Ruleset) -> Declared {
    let names = |v: &Value| match v {
        Value::List(items) => Some(
            items
                .iter()
                .filter_map(|i| match i {
                    Value::Name(n) | Value::Text(n) => Some(n.clone()),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    };
    let card_effects = ruleset
        .records
        .get("event")
        .into_iter()
        .flat_map(|r| r.values())
        .filter_map(|r| match r.fields.get("effect") {
            Some(Value::Name(n) | Value::Text(n)) => Some(n.clone()),
            _ => None,
        })
        .collect();
    let second_attack_cards = ruleset
        .records
        .get("chapter-card")
        .into_iter()
        .flat_map(|r| r.iter())
        .filter(|(_, r)| matches!(r.fields.get("effect"), Some(Value::Name(n) | Value::Text(n)) if n == "attack-twice"))
        .map(|(id, _)| id.clone())
        .collect();
    Declared {
        second_attack_cards,
        target_priority: ruleset.consts.get("target-priority").and_then(|c| names(&c.value)),
        card_effects,
        sight: ruleset.games.values().next().map(|g| g.sight).unwrap_or_default(),
        action_points: ruleset.games.values().any(|g| g.action_points.is_some()),
        doors_faced: ruleset.games.values().any(|g| g.doors.from_front),
        hidden_apart: false,
        costs: kind_costs(ruleset),
        answering_watches: HashMap::new(),
        entry_limit: None,
        scans: ruleset.games.values().any(|g| {
            g.triggers
                .iter()
                .any(|t| t.event == servitor::ruleset::TriggerEvent::EnteredSection)
        }),
    }
}

/// The log replayed on a fresh state, with what the checks need besides the state.
struct Checker<'a> {
    declared: &'a Declared,
    state: GameState,
    /// The board with its doors as they are now.
    grid: Grid,
    /// The board with every door open: distances count doors as passable.
    open: Grid,
    /// The piece of the side whose phase it is whose attack goes on now (its strikes,
    /// whatever they set off); any piece's move, entry, exit or door ends it.
    attacking: Option<String>,
    /// (turn, piece) → attacks begun, in that side's own phases.
    attacks: HashMap<(u32, String), u32>,
    /// (turn, piece) → attacks a card allows it this turn; (turn, "") for the whole side.
    allowed_attacks: HashMap<(u32, String), u32>,
    /// Card variable → the side whose phase set it `true`.
    card_side: HashMap<String, String>,
    /// The piece whose first entry into a section is being answered (pieces placed), and
    /// whether anything was placed for it yet.
    entering: Option<(String, bool)>,
    /// Pairs of pieces on one square now (reported once when they meet).
    overlapping: BTreeSet<(String, String)>,
    /// The piece whose walk may go on: it may stand on its own side's models until its walk
    /// ends (another piece moves, enters or is placed, or the phase ends), never after.
    walker: Option<String>,
    /// The side whose token was just turned over: the models it hid are placed around it,
    /// where the token was seen (until another kind of action).
    revealing: Option<String>,
    /// Piece → what it did since its action points last changed (a game with action points).
    walks: HashMap<String, Walk>,
    /// The piece that just stepped into reach of answering watches, and the watchers that
    /// owe it an answer before it acts again.
    owed: Option<(String, Vec<String>)>,
    /// The entry squares that had a blip this phase (placed there, or lurking there).
    entries_used: BTreeSet<Square>,
    found: Vec<Violation>,
}

fn passable(e: Edge) -> bool {
    matches!(e, Edge::Open | Edge::Door { open: true })
}

fn footprint(at: Square, size: i32) -> Vec<Square> {
    (0..size)
        .flat_map(|dy| (0..size).map(move |dx| at.offset(dx, dy)))
        .collect()
}

impl<'a> Checker<'a> {
    fn new(declared: &'a Declared, grid: &Grid) -> Self {
        let mut open = grid.clone();
        for (a, b, _) in grid.doors() {
            open.set_door(a, b, true);
        }
        Checker {
            declared,
            state: GameState::default(),
            grid: grid.clone(),
            open,
            attacking: None,
            attacks: HashMap::new(),
            allowed_attacks: HashMap::new(),
            card_side: HashMap::new(),
            entering: None,
            overlapping: BTreeSet::new(),
            walker: None,
            revealing: None,
            walks: HashMap::new(),
            owed: None,
            entries_used: BTreeSet::new(),
            found: Vec::new(),
        }
    }

    fn violate(&mut self, invariant: &'static str, message: String) {
        self.found.push(Violation {
            invariant,
            turn: self.state.turn,
            message,
        });
    }

    fn piece(&self, id: &str) -> Option<&Piece> {
        self.state.piece(id)
    }

    fn on_board(&self) -> impl Iterator<Item = &Piece> {
        self.state.pieces.iter().filter(|p| p.on_board())
    }

    /// The squares that block a line for `purpose` under the game's declared rule: those of
    /// the pieces on the board but `a` and `b`, where models block that sight (a token only
    /// where tokens do).
    fn blockers(&self, a: &str, b: &str, purpose: servitor::ruleset::Purpose) -> BTreeSet<Square> {
        let rule = self.declared.sight;
        if !rule.models_block(purpose) {
            return BTreeSet::new();
        }
        self.on_board()
            .filter(|p| p.id != a && p.id != b && (!rule.tokens_pass || p.hidden.is_none()))
            .flat_map(|p| p.squares())
            .collect()
    }

    /// Whether any on-board piece of another side than `side` sees square `s` (the sight that
    /// reveals, as the game declares it).
    fn seen_by_others(&self, s: Square, side: &str) -> Option<String> {
        let rule = self.declared.sight;
        self.on_board()
            .filter(|p| p.side != side)
            .filter(|p| !rule.front_arc || servitor::game::view::in_arc(p, s))
            .find(|p| {
                let occupied = self.blockers(&p.id, "", servitor::ruleset::Purpose::Spot);
                los::from_footprint_by(rule.los, &self.grid, &p.squares(), s, &|q| occupied.contains(&q)).is_some()
            })
            .map(|p| p.id.clone())
    }

    /// Which piece of `side`, if any, sees square `s` as the game declares its sight (the sight
    /// that reveals), the piece `mover` walking there hiding nothing from it on the way.
    fn seen_by_side(&self, s: Square, side: &str, mover: &str) -> Option<String> {
        let rule = self.declared.sight;
        self.on_board()
            .filter(|p| p.side == side)
            .filter(|p| !rule.front_arc || servitor::game::view::in_arc(p, s))
            .find(|p| {
                let occupied = self.blockers(&p.id, mover, servitor::ruleset::Purpose::Spot);
                los::from_footprint_by(rule.los, &self.grid, &p.squares(), s, &|q| occupied.contains(&q)).is_some()
            })
            .map(|p| p.id.clone())
    }

    /// Whether `a` sees `b` to shoot at it, as the game declares its sight.
    fn sees_to_shoot(&self, a: &Piece, b: &Piece) -> bool {
        let rule = self.declared.sight;
        let occupied = self.blockers(&a.id, &b.id, servitor::ruleset::Purpose::Shoot);
        let blocks = |s: Square| occupied.contains(&s);
        let from = a.squares();
        b.squares().iter().any(|&t| {
            (!rule.front_arc || servitor::game::view::in_arc(a, t))
                && los::from_footprint_by(rule.los, &self.grid, &from, t, &blocks).is_some()
        })
    }

    /// Steps from `a` to the nearest square of `b`, doors passable, pieces ignored.
    fn distance(&self, a: &Piece, b: &Piece) -> Option<u16> {
        let steps = if a.diagonal { Steps::Eight } else { Steps::Four };
        let field = distance_field(&self.open, &a.squares(), steps);
        b.squares()
            .iter()
            .filter(|s| self.open.contains(**s))
            .map(|&s| field[self.open.index(s)])
            .min()
            .filter(|&d| d != UNREACHABLE)
    }

    /// Face-up pieces of another side on the four squares beside `a`, no wall or closed door
    /// between (where a fight is fought).
    fn beside_a_foe(&self, a: &Piece) -> bool {
        let around: BTreeSet<Square> = a
            .squares()
            .iter()
            .flat_map(|&s| {
                [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    .into_iter()
                    .map(move |(dx, dy)| (s, s.offset(dx, dy)))
            })
            .filter(|&(s, n)| passable(self.grid.edge(s, n)))
            .map(|(_, n)| n)
            .collect();
        self.on_board()
            .filter(|p| p.side != a.side && p.hidden.is_none())
            .any(|p| p.squares().iter().any(|s| around.contains(s)))
    }

    /// One step of a footprint: adjacent, diagonal only if the piece may, through no wall or
    /// closed door, and through a door never diagonally (seed 002, Opening Doors).
    fn check_step(&mut self, p: &Piece, from: Square, to: Square) {
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        if dx.abs() > 1 || dy.abs() > 1 || (dx, dy) == (0, 0) {
            return self.violate("steps-legal", format!("{} jumps from {from} to {to}", p.id));
        }
        if dx != 0 && dy != 0 && !p.diagonal {
            return self.violate("steps-legal", format!("{} steps diagonally {from} → {to}", p.id));
        }
        for s in footprint(from, p.size) {
            let t = s.offset(dx, dy);
            if !self.grid.contains(t) || self.grid.is_solid(t) {
                return self.violate("steps-legal", format!("{} steps off the board at {t}", p.id));
            }
            if dx == 0 || dy == 0 {
                if !passable(self.grid.edge(s, t)) {
                    return self.violate(
                        "steps-legal",
                        format!("{} steps through a wall or shut door {s} → {t}", p.id),
                    );
                }
                continue;
            }
            let ways = [(s.offset(dx, 0)), (s.offset(0, dy))];
            let edges = |via: Square| [self.grid.edge(s, via), self.grid.edge(via, t)];
            let clear = ways
                .iter()
                .any(|&v| !self.grid.is_solid(v) && edges(v).iter().all(|&e| e == Edge::Open));
            let through_door = ways
                .iter()
                .any(|&v| !self.grid.is_solid(v) && edges(v).iter().all(|&e| passable(e)));
            if !clear && through_door {
                return self.violate(
                    "doors-never-diagonally",
                    format!("{} crosses a door diagonally {from} → {to}", p.id),
                );
            }
            if !clear && !through_door {
                return self.violate(
                    "steps-legal",
                    format!("{} steps diagonally round a wall {from} → {to}", p.id),
                );
            }
        }
    }

    /// Walks priced (issue 35 item 8): in a game with action points, what a piece spends "to
    /// move" is what its steps, turns and doors since its points last changed cost by its
    /// kind's `ap-…` fields — a step kind the record leaves out never taken, a quarter turn
    /// made with a step (at most one a step, before or after it) at `ap-turn-with-move`, any
    /// other at `ap-turn`, a door opened on the way `ap-door`.
    fn price_walks(&mut self, e: &Event) {
        if self.declared.costs.is_empty() {
            return;
        }
        let Some(action) = &e.action else { return };
        match action {
            Action::Begin { .. } => self.walks.clear(),
            Action::Move { id, path } => {
                let Some(p) = self.piece(id).cloned() else { return };
                let Some(mut at) = p.at else { return };
                let costs = self.declared.costs.get(&p.kind).cloned().unwrap_or_default();
                let walk = self.walks.entry(id.clone()).or_default();
                if walk.turns.is_empty() {
                    walk.turns.push(0);
                }
                for &to in path {
                    let (dx, dy) = (to.x - at.x, to.y - at.y);
                    let price = match (costs.faces, p.facing) {
                        (true, Some(f)) => {
                            let (fx, fy) = servitor::board::facing::FACINGS[usize::from(f)];
                            let along = (dx * fx + dy * fy).signum();
                            let kind = match (along, dx != 0 && dy != 0) {
                                (1, false) => 0,
                                (1, true) => 1,
                                (0, _) => 2,
                                (_, false) => 3,
                                (_, true) => 4,
                            };
                            const NAMES: [&str; 5] = [
                                "forward",
                                "forward-diagonal",
                                "sideways",
                                "backward",
                                "backward-diagonal",
                            ];
                            costs.steps[kind].ok_or_else(|| {
                                format!(
                                    "a {} step {at} → {to} facing {}, which its kind may not take",
                                    NAMES[kind],
                                    servitor::board::facing::FACING_NAMES[usize::from(f)]
                                )
                            })
                        }
                        _ => Ok(costs.step.unwrap_or(1)),
                    };
                    walk.steps.push(price);
                    walk.turns.push(0);
                    at = to;
                }
            }
            Action::Face { id, facing } => {
                let Some(old) = self.piece(id).and_then(|p| p.facing) else {
                    return;
                };
                let d = (i64::from(*facing) - i64::from(old)).rem_euclid(4);
                let walk = self.walks.entry(id.clone()).or_default();
                if walk.turns.is_empty() {
                    walk.turns.push(0);
                }
                *walk.turns.last_mut().unwrap() += d.min(4 - d);
            }
            Action::Door { open: true, .. } => {
                if let Some(id) = &e.piece {
                    self.walks.entry(id.clone()).or_default().doors += 1;
                }
            }
            Action::Ap { values } => {
                for id in values.keys() {
                    let spent = e
                        .text
                        .strip_prefix(&format!("{id} spends "))
                        .and_then(|rest| rest.split_once(" AP to move"))
                        .and_then(|(n, _)| n.parse::<i64>().ok());
                    let walk = self.walks.remove(id).unwrap_or_default();
                    if let Some(spent) = spent {
                        self.check_walk_price(id, spent, &walk);
                    }
                }
            }
            _ => {}
        }
    }

    fn check_walk_price(&mut self, id: &str, spent: i64, walk: &Walk) {
        let kind = self.piece(id).map(|p| p.kind.clone()).unwrap_or_default();
        let costs = self.declared.costs.get(&kind).cloned().unwrap_or_default();
        let mut total = 0;
        for step in &walk.steps {
            match step {
                Ok(n) => total += n,
                Err(why) => return self.violate("walks-priced", format!("{id} takes {why}")),
            }
        }
        total += walk.doors * costs.door.unwrap_or(0);
        // Turns: as many as the steps can carry (one each, from the turns just before or just
        // after it; the ones before first, which no later step can take) at the with-a-move
        // price, the rest on the spot.
        let mut left = walk.turns.clone();
        let mut carried = 0;
        for k in 0..walk.steps.len() {
            if left[k] > 0 {
                left[k] -= 1;
                carried += 1;
            } else if left[k + 1] > 0 {
                left[k + 1] -= 1;
                carried += 1;
            }
        }
        let turns: i64 = walk.turns.iter().sum();
        let on_spot = costs.turn.unwrap_or(0);
        let with_move = costs.turn_with_move.unwrap_or(on_spot).min(on_spot);
        total += carried * with_move + (turns - carried) * on_spot;
        if spent != total {
            let steps: Vec<String> = walk
                .steps
                .iter()
                .map(|s| s.clone().unwrap_or_default().to_string())
                .collect();
            self.violate(
                "walks-priced",
                format!(
                    "{id} spends {spent} AP to move; its walk costs {total} (steps {}, quarter turns {turns} of which {carried} with a step, doors {})",
                    steps.join("+"),
                    walk.doors
                ),
            );
        }
    }

    /// The watchers keeping an answering watch that `mover`, standing on `at`, is in reach of:
    /// within the mode's range (squares, the larger of across and down), in the watcher's
    /// front arc if the mode says so, and in its sight to shoot.
    fn watchers_reaching(&self, mover: &Piece, at: Square) -> Vec<String> {
        let mut there = mover.clone();
        there.at = Some(at);
        self.on_board()
            .filter(|w| w.side != mover.side && w.hidden.is_none())
            .filter_map(|w| {
                let (range, front) = *self.declared.answering_watches.get(w.watch.as_deref()?)?;
                let from = w.at?;
                let far = (at.x - from.x).abs().max((at.y - from.y).abs());
                let reached = far <= range as i32
                    && (!front || servitor::game::view::in_arc(w, at))
                    && self.sees_to_shoot(w, &there);
                reached.then(|| w.id.clone())
            })
            .collect()
    }

    /// Watches answer every action in their reach (issue 35 item 8): a face-up piece's step
    /// into reach of a watcher keeping an answering watch is answered by a line of that
    /// watcher's before the piece acts again; a walk logged as one line was in no such reach
    /// before its last square (an answer would have ended the line).
    fn watches_answer(&mut self, e: &Event) {
        if self.declared.answering_watches.is_empty() {
            return;
        }
        if let Some((mover, watchers)) = &mut self.owed {
            let by = e.piece.clone().or_else(|| e.text.split(' ').next().map(str::to_string));
            watchers.retain(|w| by.as_deref() != Some(w.as_str()) && !e.text.starts_with(&format!("{w}'s ")));
            let acts_again = match &e.action {
                Some(Action::Move { id, .. } | Action::Face { id, .. }) => id == mover,
                Some(Action::Door { .. }) => e.piece.as_deref() == Some(mover.as_str()),
                Some(Action::Begin { .. }) => true,
                _ => false,
            };
            if acts_again || watchers.is_empty() {
                let (mover, watchers) = self.owed.take().unwrap();
                for w in watchers {
                    self.violate(
                        "watches-answer",
                        format!(
                            "{mover} acts in the reach of {w}'s watch and {w} does not answer before: {}",
                            e.text
                        ),
                    );
                }
            }
        }
        let Some(Action::Move { id, path }) = &e.action else {
            return;
        };
        let Some(p) = self.piece(id).filter(|p| p.hidden.is_none()).cloned() else {
            return;
        };
        for (k, &at) in path.iter().enumerate() {
            let watchers = self.watchers_reaching(&p, at);
            if watchers.is_empty() {
                continue;
            }
            if k + 1 < path.len() {
                let message = format!(
                    "{id} steps onto {at} in the reach of {} and walks on unanswered: {}",
                    watchers.join(", "),
                    e.text
                );
                return self.violate("watches-answer", message);
            }
            self.owed = Some((id.clone(), watchers));
        }
    }

    /// A blip is lost only when every entry area has had one this phase or is full (issue 35
    /// item 6): checked at each line saying so, against the entries used this phase and the
    /// blips lurking at each (the script's `lurking` variable, entry → count).
    fn entries_before_lost(&mut self, e: &Event) {
        let Some(limit) = self.declared.entry_limit else { return };
        let lurking = |state: &GameState, s: Square| -> i64 {
            state
                .vars
                .get("lurking")
                .and_then(|v| v.get(s.to_string()))
                .and_then(|n| n.as_i64())
                .unwrap_or(0)
        };
        match &e.action {
            Some(Action::Begin { .. }) => self.entries_used.clear(),
            Some(Action::SetVar { name, .. }) if name == "lurking" => {
                let mut after = self.state.clone();
                servitor::game::state::apply(&mut after, e.action.as_ref().unwrap());
                for s in self.grid.marked("entry") {
                    if lurking(&after, s) > lurking(&self.state, s) {
                        self.entries_used.insert(s);
                    }
                }
            }
            Some(Action::Add { piece }) if piece.hidden.is_some() => {
                if let Some(at) = piece.at.filter(|s| self.grid.mark(*s) == Some("entry")) {
                    self.entries_used.insert(at);
                }
            }
            None if e.text.contains("every entry area has had its blip this phase") => {
                let free: Vec<String> = self
                    .grid
                    .marked("entry")
                    .into_iter()
                    .filter(|s| !self.entries_used.contains(s) && lurking(&self.state, *s) < limit)
                    .map(|s| s.to_string())
                    .collect();
                if !free.is_empty() {
                    let message = format!(
                        "{} — but {} had no blip this phase and are not full",
                        e.text,
                        free.join(", ")
                    );
                    self.violate("entries-before-lost", message);
                }
            }
            _ => {}
        }
    }

    /// Every check an event calls for, then its action applied.
    fn event(&mut self, e: &Event) {
        self.price_walks(e);
        self.entries_before_lost(e);
        self.watches_answer(e);
        if e.attacker.is_some() {
            self.attack(e);
        }
        if let Some(card) = e.fields.get("card").and_then(|c| c.as_str())
            && self.declared.second_attack_cards.contains(card)
        {
            let piece = e.fields.get("piece").and_then(|p| p.as_str()).unwrap_or_default();
            self.allowed_attacks.insert((self.state.turn, piece.to_string()), 2);
        }
        let Some(action) = &e.action else { return };
        let goes_on = matches!(action, Action::Move { id, .. } if Some(id) == self.walker.as_ref());
        let ends_walks = matches!(
            action,
            Action::Move { .. }
                | Action::Enter { .. }
                | Action::Add { .. }
                | Action::Leave { .. }
                | Action::Begin { .. }
                | Action::End { .. }
        );
        if ends_walks && !goes_on {
            self.end_walk();
        }
        match action {
            Action::Reveal { id, .. } => self.revealing = self.piece(id).map(|p| p.side.clone()),
            Action::Add { .. } | Action::Face { .. } | Action::Take { .. } | Action::Set { .. } => {}
            _ => self.revealing = None,
        }
        match action {
            Action::Begin { .. } => {
                self.attacking = None;
                self.entering = None;
            }
            Action::Move { id, path } => {
                let Some(p) = self.piece(id).cloned() else { return };
                let Some(mut at) = p.at else {
                    return self.violate("steps-legal", format!("{id} moves while off the board"));
                };
                self.acts(id);
                self.walker = Some(id.clone());
                // A walk that keeps out of a side's sight (its line says `unseen_by`) steps
                // only where that side's pieces do not see it, by the sight that reveals and
                // shoots: one sight test for moving, placing and firing (issue 35 item 2).
                let unseen_by = e.fields.get("unseen_by").and_then(|v| v.as_str()).map(str::to_string);
                for (n, &to) in path.iter().enumerate() {
                    self.check_step(&p, at, to);
                    if let Some(side) = &unseen_by
                        && let Some(w) = self.seen_by_side(to, side, id)
                    {
                        self.violate(
                            "walks-out-of-sight",
                            format!(
                                "{id} steps onto {to} in sight of {w}, on a walk kept out of the {side} side's sight"
                            ),
                        );
                    }
                    let last = n + 1 == path.len();
                    if !last {
                        let squares = footprint(to, p.size);
                        let through = self
                            .on_board()
                            .find(|o| {
                                o.id != p.id && o.side != p.side && o.squares().iter().any(|s| squares.contains(s))
                            })
                            .map(|o| o.id.clone());
                        if let Some(o) = through {
                            self.violate(
                                "never-through-the-other-side",
                                format!("{id} passes through {o} on {to}"),
                            );
                        }
                    }
                    at = to;
                }
            }
            Action::Door { a, b, open: true } => {
                let openers: Vec<&Piece> = match e.piece.as_deref() {
                    Some(id) => self.piece(id).into_iter().collect(),
                    None => self.on_board().filter(|p| p.side == self.state.side).collect(),
                };
                let in_front = openers.iter().any(|p| p.squares().iter().any(|s| s == a || s == b));
                if !in_front {
                    let stands = e.piece.as_deref().and_then(|id| self.piece(id)).and_then(|p| p.at);
                    let message = match (&e.piece, stands) {
                        (Some(id), Some(at)) => format!(
                            "{id} opens the door between {a} and {b} from {at}, not from a square in front of it"
                        ),
                        _ => format!(
                            "the door between {a} and {b} opens with no {} piece on a square in front of it",
                            self.state.side
                        ),
                    };
                    self.violate("doors-from-front", message);
                }
                // Facing the door (issue 35 item 8): its front square is across the door.
                let opener = e.piece.as_deref().and_then(|id| self.piece(id));
                if self.declared.doors_faced
                    && let Some(p) = opener
                    && let (Some(f), Some(at)) = (p.facing, p.at)
                    && (at == *a || at == *b)
                {
                    let across = if at == *a { *b } else { *a };
                    let (fx, fy) = servitor::board::facing::FACINGS[usize::from(f)];
                    if at.offset(fx, fy) != across {
                        let message = format!(
                            "{} opens the door between {a} and {b} facing {}, not the door",
                            p.id,
                            servitor::board::facing::FACING_NAMES[usize::from(f)]
                        );
                        self.violate("doors-faced", message);
                    }
                }
                if let Some(id) = e.piece.clone() {
                    self.acts(&id);
                }
            }
            Action::Add { piece } if piece.on_board() && self.state.turn >= 1 => {
                let from_token = piece.hidden.is_none() && self.revealing.as_deref() == Some(piece.side.as_str());
                for s in piece.squares().into_iter().filter(|_| !from_token) {
                    if let Some(w) = self.seen_by_others(s, &piece.side) {
                        self.violate(
                            "placed-out-of-sight",
                            format!("{} is placed on {s}, in sight of {w}", piece.id),
                        );
                        break;
                    }
                }
                if let Some((_, placed)) = &mut self.entering {
                    *placed = true;
                }
            }
            Action::Enter { id, .. } | Action::Leave { id, .. } => self.acts(id),
            Action::Entered { side, .. } if *side == self.state.side && self.declared.scans => {
                if let Some(id) = &e.piece {
                    self.entering = Some((id.clone(), false));
                }
            }
            Action::SetVar { name, value } if self.declared.card_effects.contains(name) => {
                let was = self.state.vars.get(name) == Some(&serde_json::Value::Bool(true));
                if *value == serde_json::Value::Bool(true) {
                    self.card_side.insert(name.clone(), self.state.side.clone());
                } else if was && self.card_side.get(name).is_some_and(|s| *s != self.state.side) {
                    self.violate(
                        "card-effects-within-their-turn",
                        format!(
                            "`{name}`, played in the {} turn, is used in the {} phase",
                            self.card_side[name], self.state.phase
                        ),
                    );
                }
            }
            _ => {}
        }
        if let Action::Door { a, b, open } = action {
            self.grid.set_door(*a, *b, *open);
        }
        if let Action::Reveal {
            id, rename: Some(new), ..
        } = action
        {
            self.renamed(id, new);
        }
        servitor::game::state::apply(&mut self.state, action);
        self.occupancy();
    }

    /// A piece revealed under a new id (`reveal-ids by-kind`) is the same piece: what the
    /// checker follows by its old id follows the new one.
    fn renamed(&mut self, old: &str, new: &str) {
        for held in [&mut self.walker, &mut self.attacking] {
            if held.as_deref() == Some(old) {
                *held = Some(new.to_string());
            }
        }
        if let Some((entering, _)) = &mut self.entering
            && entering == old
        {
            *entering = new.to_string();
        }
        if let Some(w) = self.walks.remove(old) {
            self.walks.insert(new.to_string(), w);
        }
        let rename = |id: &String| if id == old { new.to_string() } else { id.clone() };
        self.overlapping = self.overlapping.iter().map(|(a, b)| (rename(a), rename(b))).collect();
        self.attacks = self
            .attacks
            .drain()
            .map(|((turn, id), n)| ((turn, rename(&id)), n))
            .collect();
    }

    /// Piece `id` acts (moves, enters, leaves, opens a door, attacks). Acting again after pieces were placed
    /// for its entry into a section breaks the order of play: they go on after its activation.
    fn acts(&mut self, id: &str) {
        if let Some((entering, placed)) = &self.entering {
            if entering == id && *placed {
                let message = format!("{id} acts on after the section it entered was filled");
                self.entering = None;
                self.violate("placed-after-the-activation", message);
            } else if entering != id && self.piece(id).is_some_and(|p| p.side == self.state.side) {
                self.entering = None;
            }
        }
        self.attacking = None;
    }

    /// An event naming an attacker: a strike, a shot announced, a fight.
    fn attack(&mut self, e: &Event) {
        let attacker = e.attacker.clone().unwrap_or_default();
        if e.target.as_deref() == Some(attacker.as_str()) {
            self.violate("never-strikes-itself", format!("{attacker} strikes itself: {}", e.text));
        }
        let caught = e.fields.get("caught").and_then(|c| c.as_array());
        if caught.is_some_and(|c| c.iter().any(|x| x.as_str() == Some(attacker.as_str()))) {
            self.violate(
                "blasts-spare-the-shooter",
                format!("{attacker}'s own shot catches it: {}", e.text),
            );
        }
        let Some(shooter) = self.piece(&attacker).cloned() else {
            return;
        };
        // A defender striking back attacks nobody; a strike of the attack going on is part
        // of it.
        if shooter.side != self.state.side || self.attacking.as_deref() == Some(attacker.as_str()) {
            return;
        }
        self.acts(&attacker);
        self.attacking = Some(attacker.clone());
        // A new attack by a piece of the side whose phase it is.
        let n = self.attacks.entry((self.state.turn, attacker.clone())).or_default();
        *n += 1;
        let n = *n;
        let turn = self.state.turn;
        let allowed = [attacker.clone(), String::new()]
            .into_iter()
            .filter_map(|who| self.allowed_attacks.get(&(turn, who)).copied())
            .max()
            .unwrap_or(1);
        if n > allowed && !self.declared.action_points {
            self.violate("one-attack-a-turn", format!("{attacker} attacks again: {}", e.text));
        }
        self.target_choice(&shooter, e);
    }

    /// Seed 000, Targets: the first target of a shot at a side whose kinds the package's
    /// `target-priority` lists is the nearest in sight, ties to the first in that order.
    /// (Fights, area weapons and the assault cannon's share choose otherwise.)
    fn target_choice(&mut self, shooter: &Piece, e: &Event) {
        let Some(order) = &self.declared.target_priority else {
            return;
        };
        let Some(target) = e.target.as_deref().and_then(|t| self.piece(t)).cloned() else {
            return;
        };
        if e.fields.contains_key("area") || !order.contains(&target.kind) || self.beside_a_foe(shooter) {
            return;
        }
        let rank = |p: &Piece| order.iter().position(|k| *k == p.kind).unwrap_or(usize::MAX);
        let seen: Vec<(u16, usize, String)> = self
            .on_board()
            .filter(|p| p.side == target.side && p.hidden.is_none())
            .filter(|p| self.sees_to_shoot(shooter, p))
            .filter_map(|p| self.distance(shooter, p).map(|d| (d, rank(p), p.id.clone())))
            .collect();
        let Some(best) = seen.iter().min_by_key(|(d, r, _)| (*d, *r)) else {
            return self.violate(
                "target-nearest-in-sight",
                format!("{} shoots at {}, which it cannot see", shooter.id, target.id),
            );
        };
        let chosen = seen.iter().find(|(_, _, id)| *id == target.id);
        let ok = chosen.is_some_and(|(d, r, _)| (*d, *r) == (best.0, best.1));
        if !ok {
            let list: Vec<String> = seen.iter().map(|(d, _, id)| format!("{id} at {d}")).collect();
            self.violate(
                "target-nearest-in-sight",
                format!(
                    "{} shoots at {}; in sight: {} (the rule picks {})",
                    shooter.id,
                    target.id,
                    list.join(", "),
                    best.2
                ),
            );
        }
    }

    /// Ties are a die (issue 35 item 1): a piece's pick among candidates as near, settled by
    /// the dice, comes right after the roll of that die, its piece the picker's and its faces
    /// as many as the tied candidates; settled otherwise, only where the text says by what.
    fn ties_rolled(&mut self, e: &Event, before: Option<&Event>) {
        if e.kind != "choice" {
            return;
        }
        let tied = e
            .candidates
            .iter()
            .filter(|c| c.why.as_deref() == Some("as near: not picked"))
            .count();
        if tied == 0 {
            return;
        }
        if e.text.contains("by the order of play") {
            return;
        }
        let n = tied + 1;
        let rolled = before.is_some_and(|r| {
            r.kind == "roll" && r.piece == e.piece && r.dice.len() == 1 && r.dice[0].die == format!("1-{n}")
        });
        if !rolled {
            let message = format!(
                "{} (among {n} as near) follows no die of {n} faces: {:?}",
                e.text,
                before.map(|b| &b.text)
            );
            self.violate("ties-rolled", message);
        }
    }

    /// The walk of the piece that walked last is over: it stands on no other model.
    fn end_walk(&mut self) {
        let Some(id) = self.walker.take() else { return };
        let Some(p) = self.piece(&id).filter(|p| p.on_board()).cloned() else {
            return;
        };
        if self.declared.hidden_apart && p.hidden.is_some() {
            let round: BTreeSet<Square> = p
                .squares()
                .iter()
                .flat_map(|&s| (-1..=1).flat_map(move |dx| (-1..=1).map(move |dy| s.offset(dx, dy))))
                .collect();
            let near = self
                .on_board()
                .find(|o| o.side != p.side && o.hidden.is_none() && o.squares().iter().any(|s| round.contains(s)))
                .map(|o| o.id.clone());
            if let Some(o) = near {
                let at = p.at.map(|s| s.to_string()).unwrap_or_default();
                self.violate(
                    "hidden-apart",
                    format!("{id}, face down, ends its move on {at}, next to {o}"),
                );
            }
        }
        let squares = p.squares();
        let under: Vec<String> = self
            .on_board()
            .filter(|o| o.id != id && o.squares().iter().any(|s| squares.contains(s)))
            .map(|o| o.id.clone())
            .collect();
        for o in under {
            let at = p.at.map(|s| s.to_string()).unwrap_or_default();
            self.overlapping.insert(if o < id {
                (o.clone(), id.clone())
            } else {
                (id.clone(), o.clone())
            });
            self.violate(
                "one-model-per-square",
                format!("{id} ends its move on {at}, where {o} stands"),
            );
        }
    }

    /// One model per square, footprints included, after every action (a walk going on may
    /// pass over its own side's models: see [`Self::end_walk`]).
    fn occupancy(&mut self) {
        let mut owner: HashMap<Square, &str> = HashMap::new();
        let mut now = BTreeSet::new();
        let mut off = Vec::new();
        for p in self.state.pieces.iter().filter(|p| p.on_board()) {
            for s in p.squares() {
                if !self.grid.contains(s) || self.grid.is_solid(s) {
                    off.push(format!("{} stands on {s}, not a square of the board", p.id));
                }
                if let Some(o) = owner.insert(s, &p.id) {
                    now.insert((o.to_string(), p.id.clone(), s));
                }
            }
        }
        for m in off {
            self.violate("one-model-per-square", m);
        }
        let walker = self.walker.clone().unwrap_or_default();
        let side = |id: &str| self.state.piece(id).map(|p| p.side.clone());
        now.retain(|(a, b, _)| !((*a == walker || *b == walker) && side(a) == side(b)));
        let pairs: BTreeSet<(String, String)> = now.iter().map(|(a, b, _)| (a.clone(), b.clone())).collect();
        for (a, b, s) in &now {
            if !self.overlapping.contains(&(a.clone(), b.clone())) {
                self.found.push(Violation {
                    invariant: "one-model-per-square",
                    turn: self.state.turn,
                    message: format!("{a} and {b} both stand on {s}"),
                });
            }
        }
        self.overlapping = pairs;
    }
}

/// Checks one game's log; a game that stopped on a script error is a violation too.
fn check(declared: &Declared, grid: &Grid, events: &[Event], error: Option<String>) -> Vec<Violation> {
    let mut c = Checker::new(declared, grid);
    for (k, e) in events.iter().enumerate() {
        c.ties_rolled(e, k.checked_sub(1).map(|j| &events[j]));
        c.event(e);
    }
    c.end_walk();
    if let Some(message) = error {
        c.violate("plays-without-a-script-error", message);
    }
    c.found
}

/// One game to play.
#[derive(Clone)]
struct Job {
    package: usize,
    mission: String,
    seed: u64,
    options: Vec<(String, String)>,
}

impl Job {
    fn command(&self, package: &str) -> String {
        let sets: String = self.options.iter().map(|(k, v)| format!(" --set {k}={v}")).collect();
        format!(
            "servitor game {package} --mission {} --seed {}{sets}",
            self.mission, self.seed
        )
    }
}

/// Every combination of the game's options that name their choices (`of [a, b]`).
fn option_sets(ruleset: &Ruleset) -> Vec<Vec<(String, String)>> {
    let mut sets = vec![Vec::new()];
    let Some(def) = ruleset.games.values().next() else {
        return sets;
    };
    for (name, option) in &def.options {
        // A list option (the squad's heavy weapons) names its items' choices, not whole
        // values: it keeps its default.
        if matches!(option.default, Value::List(_)) {
            continue;
        }
        let choices: Vec<String> = option
            .of
            .iter()
            .flat_map(|c| match c {
                ArgChoice::Values(vs) => vs
                    .iter()
                    .filter_map(|v| match v {
                        Value::Name(n) | Value::Text(n) => Some(n.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        if choices.is_empty() {
            continue;
        }
        sets = sets
            .into_iter()
            .flat_map(|set| {
                choices.iter().map(move |c| {
                    let mut s = set.clone();
                    s.push((name.clone(), c.clone()));
                    s
                })
            })
            .collect();
    }
    sets
}

/// Plays every job on `threads` threads (each with its own hosts), returning each job's
/// violations in job order.
fn play_all(rulesets: &[(String, Arc<Ruleset>, Declared)], jobs: &[Job], threads: usize) -> Vec<Vec<Violation>> {
    let results = std::sync::Mutex::new(vec![Vec::new(); jobs.len()]);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let results = &results;
            std::thread::Builder::new()
                .stack_size(servitor::script::STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let mut hosts: HashMap<usize, Host> = HashMap::new();
                    for (k, job) in jobs.iter().enumerate().skip(t).step_by(threads) {
                        let (_, ruleset, declared) = &rulesets[job.package];
                        let host = hosts.entry(job.package).or_insert_with(|| Host::new(ruleset));
                        let setup = Setup {
                            game: None,
                            mission: job.mission.clone(),
                            seed: job.seed,
                            options: job.options.clone(),
                        };
                        let (events, error) = match host.play(&setup) {
                            Ok(record) => (record.events, None),
                            Err(GameError::Script { diagnostic, events, .. }) => {
                                (events, Some(diagnostic.message.clone()))
                            }
                            Err(_) => (Vec::new(), Some("the game could not start".to_string())),
                        };
                        let grid = &ruleset.missions[&job.mission].grid;
                        // The referee's view of the log: what `servitor game --json` prints.
                        let events = servitor::game::event::annotate(&events);
                        let found = check(declared, grid, &events, error);
                        results.lock().unwrap()[k] = found;
                    }
                })
                .unwrap();
        }
    });
    results.into_inner().unwrap()
}

/// The bundled packages with a `game`, loaded, with what they declare.
fn playable() -> Vec<(String, Arc<Ruleset>, Declared)> {
    common::bundled_packages()
        .into_iter()
        .filter_map(|name| {
            let ruleset = common::load(&name);
            if ruleset.games.is_empty() {
                return None;
            }
            let mut declared = declared(&ruleset);
            declared.hidden_apart = HIDDEN_APART.contains(&name.as_str());
            if ENTRY_BLIPS.contains(&name.as_str()) {
                declared.entry_limit = match ruleset.consts.get("lurk-limit").map(|c| &c.value) {
                    Some(Value::Number(n)) => Some(*n),
                    _ => panic!("{name} declares its lurk-limit"),
                };
            }
            let def = ruleset.games.values().next();
            for (_, mode) in ANSWERING_WATCHES.iter().filter(|(p, _)| *p == name) {
                if let Some(w) = def.and_then(|d| d.watches.get(*mode)) {
                    declared.answering_watches.insert(mode.to_string(), (w.range, w.front));
                }
            }
            Some((name, Arc::new(ruleset), declared))
        })
        .collect()
}

fn games_a_mission() -> u64 {
    std::env::var("SERVITOR_INVARIANT_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

#[test]
fn every_bundled_mission_keeps_the_rules() {
    let rulesets = playable();
    assert!(
        rulesets.iter().any(|(n, _, _)| n == "space-crusade-solo"),
        "the bundled game is found among the playable packages"
    );
    let n = games_a_mission();
    let mut jobs = Vec::new();
    for (i, (_, ruleset, _)) in rulesets.iter().enumerate() {
        let sets = option_sets(ruleset);
        for (mission, m) in &ruleset.missions {
            if m.grid.is_empty() {
                continue;
            }
            for k in 0..n {
                jobs.push(Job {
                    package: i,
                    mission: mission.clone(),
                    seed: k / sets.len() as u64,
                    options: sets[k as usize % sets.len()].clone(),
                });
            }
        }
    }
    let found = play_all(&rulesets, &jobs, 2);
    // By invariant: in how many games, and the first violation of each of the first few
    // games, with the command that plays it again.
    let mut by: BTreeMap<&str, (usize, Vec<String>)> = BTreeMap::new();
    for (job, violations) in jobs.iter().zip(&found) {
        let mut seen_here = BTreeSet::new();
        for v in violations {
            if !seen_here.insert(v.invariant) {
                continue;
            }
            let entry = by.entry(v.invariant).or_default();
            entry.0 += 1;
            if entry.1.len() < 4 {
                entry.1.push(format!(
                    "{}, turn {}: {}",
                    job.command(&rulesets[job.package].0),
                    v.turn,
                    v.message
                ));
            }
        }
    }
    let mut report = format!("{} games ({n} a mission):\n", jobs.len());
    for (invariant, (games, examples)) in &by {
        let known = KNOWN.iter().find(|(k, _, _)| k == invariant).map(|(_, _, why)| *why);
        report.push_str(&format!(
            "\n{invariant}: in {games} games{}\n",
            known.map(|w| format!(" (known: {w})")).unwrap_or_default()
        ));
        for e in examples {
            report.push_str(&format!("  {e}\n"));
        }
    }
    eprintln!("{report}");
    let new: Vec<String> = by
        .iter()
        .filter_map(|(k, (games, _))| match KNOWN.iter().find(|(n, _, _)| n == k) {
            None => Some(k.to_string()),
            Some((_, share, _)) if games * 100 > share * jobs.len() => Some(format!(
                "{k} (in {games} of {} games, more than the {share}% known)",
                jobs.len()
            )),
            Some(_) => None,
        })
        .collect();
    assert!(new.is_empty(), "rules broken: {new:?}\n{report}");
    let gone: Vec<&str> = KNOWN
        .iter()
        .map(|(k, _, _)| *k)
        .filter(|k| !by.contains_key(k))
        .collect();
    assert!(
        gone.is_empty() || n < 100,
        "no game breaks {gone:?} any more: delete it from KNOWN in tests/invariants.rs\n{report}"
    );
}

/// The checker is no test that cannot fail: a fixture game whose script breaks rules on
/// purpose (tests/games/broken-rules) is reported, rule by rule, with the turn.
#[test]
fn the_checker_reports_a_game_that_breaks_the_rules() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/broken-rules");
    let ruleset = Arc::new(
        servitor::load(dir.to_str().unwrap())
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
            .ruleset,
    );
    let declared = declared(&ruleset);
    let rulesets = vec![("broken-rules".to_string(), ruleset, declared)];
    let job = Job {
        package: 0,
        mission: "yard".into(),
        seed: 1,
        options: Vec::new(),
    };
    let found = play_all(&rulesets, std::slice::from_ref(&job), 1).remove(0);
    let text: Vec<String> = found
        .iter()
        .map(|v| format!("{} (turn {}): {}", v.invariant, v.turn, v.message))
        .collect();
    insta::assert_snapshot!(text.join("\n"));
}

/// Games on a battlefield in inches (a data-only mission of a package with battlefields) are
/// held to the table's rules, replayed action by action from the log: every point a piece
/// stands at or walks to is on the table and outside impassable terrain, every leg of a walk
/// passes through no terrain, a charge walks no farther along its route than its charge roll,
/// no piece stands on a square and at a point, the log replays,
/// and every game ends with a result and no script error. The grid invariants above do not
/// apply to these games (their missions have no map).
#[test]
fn every_battlefield_game_keeps_to_the_table() {
    use servitor::game::state::apply;
    let n = games_a_mission().min(40);
    let mut checked = 0;
    let mut charges = 0;
    for (name, ruleset, _) in playable() {
        let missions: Vec<String> = ruleset
            .records
            .get("mission")
            .map(|r| r.keys().filter(|m| ruleset.battlefield_mission(m)).cloned().collect())
            .unwrap_or_default();
        let mut host = Host::new(&ruleset);
        for mission in &missions {
            for seed in 0..n {
                let setup = Setup {
                    game: None,
                    mission: mission.clone(),
                    seed,
                    options: Vec::new(),
                };
                let again = format!("servitor game {name} --mission {mission} --seed {seed}");
                let record = host.play(&setup).unwrap_or_else(|e| panic!("{again} fails: {e:?}"));
                assert_ne!(record.result.winner, "unfinished", "{again}");
                let mut state = GameState::default();
                // Piece → the inches its last charge roll gave it.
                let mut charge_rolls: HashMap<String, i64> = HashMap::new();
                for e in &record.events {
                    if e.kind == "roll"
                        && e.purpose.as_deref().is_some_and(|p| p.starts_with("its charge range"))
                        && let (Some(piece), Some(total)) = (&e.piece, e.total)
                    {
                        charge_rolls.insert(piece.clone(), total);
                    }
                    let Some(action) = &e.action else { continue };
                    // A charge is measured along the route it walks (issue 35 item 18): never
                    // farther than its roll.
                    if let Action::Walk { id, route } = action
                        && e.text.ends_with("(charging)")
                    {
                        let start = state
                            .piece(id)
                            .and_then(|p| p.point)
                            .expect("a charging unit stands somewhere");
                        let mut walked = 0.0;
                        let mut at = start;
                        for &p in route {
                            walked += ((p.x - at.x).powi(2) + (p.y - at.y).powi(2)).sqrt();
                            at = p;
                        }
                        let rolled = charge_rolls.remove(id).unwrap_or_else(|| {
                            panic!(
                                "{again}, turn {}: {id} charges with no charge roll before: {}",
                                e.turn, e.text
                            )
                        });
                        assert!(
                            walked <= rolled as f64 + 0.05,
                            "{again}, turn {}: {id} charges {walked:.2}\" on a roll of {rolled}\": {}",
                            e.turn,
                            e.text
                        );
                        charges += 1;
                    }
                    assert!(
                        apply(&mut state, action),
                        "{again}: the log does not replay at {action:?}"
                    );
                    let Some(field) = state.battlefield.as_ref().map(|b| &ruleset.battlefields[b]) else {
                        continue;
                    };
                    let inside = |p: servitor::board::field::Point| field.on_table(p) && field.terrain_at(p).is_none();
                    if let Action::Walk { route, .. } = action {
                        for leg in route.windows(2) {
                            assert!(
                                field.clear(leg[0], leg[1]),
                                "{again}, turn {}: a walk crosses terrain: {}",
                                e.turn,
                                e.text
                            );
                        }
                    }
                    for p in &state.pieces {
                        assert!(
                            p.at.is_none() || p.point.is_none(),
                            "{again}: {} on a square and at a point",
                            p.id
                        );
                        if let Some(point) = p.point {
                            assert!(
                                inside(point),
                                "{again}, turn {}: {} stands off the table or in terrain at {point:?}",
                                e.turn,
                                p.id
                            );
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no battlefield game was found among the playable packages");
    assert!(charges > 0, "no charge was walked in {checked} games on a battlefield");
}

/// The ties-rolled check on logs made by hand: a pick among pieces as near with the die of
/// its tie before it passes; the same pick without it, or after a die of other faces, is
/// reported; a pick the package settles by the order of play says so and passes.
#[test]
fn a_tie_without_its_die_is_reported() {
    let grid = Grid::new(4, 4);
    let declared = Declared::default();
    let candidate = |piece: &str, why: &str| servitor::game::event::Candidate {
        piece: Some(piece.into()),
        distance: Some(2),
        why: Some(why.into()),
        ..Default::default()
    };
    let choice = |text: &str| Event {
        kind: "choice".into(),
        piece: Some("hunter".into()),
        text: text.into(),
        candidates: vec![candidate("a", "chosen"), candidate("b", "as near: not picked")],
        ..Event::default()
    };
    let die = |faces: &str| Event {
        kind: "roll".into(),
        piece: Some("hunter".into()),
        text: format!("random {faces}: 1"),
        dice: vec![servitor::game::event::Die {
            die: faces.into(),
            value: 1,
            face: None,
            raw: Vec::new(),
        }],
        ..Event::default()
    };
    let picked = choice("hunter picks a: one of 2 as near, picked by the dice");
    let found = |events: &[Event]| -> Vec<&'static str> {
        check(&declared, &grid, events, None)
            .iter()
            .map(|v| v.invariant)
            .collect()
    };
    assert!(found(&[die("1-2"), picked.clone()]).is_empty());
    assert_eq!(found(std::slice::from_ref(&picked)), ["ties-rolled"]);
    assert_eq!(found(&[die("1-3"), picked]), ["ties-rolled"]);
    assert!(found(&[choice("hunter picks a: one of 2 as near, picked by the order of play")]).is_empty());
}

/// The hidden-apart check on logs made by hand: a face-down piece whose walk ends on one of
/// the eight squares round a face-up piece of the other side is reported; one that stops a
/// square further is not, nor a face-up piece beside it.
#[test]
fn a_face_down_piece_ending_next_to_the_other_side_is_reported() {
    let grid = open_grid(6, 6);
    let declared = Declared {
        hidden_apart: true,
        ..Declared::default()
    };
    let piece = |id: &str, side: &str, hidden: Option<&str>, at: &str| Piece {
        id: id.into(),
        kind: "model".into(),
        hidden: hidden.map(Into::into),
        side: side.into(),
        status: "board".into(),
        at: Square::parse(at),
        point: None,
        size: 1,
        diagonal: true,
        life: 1,
        fields: Default::default(),
        facing: None,
        ap: None,
        watch: None,
        models: Vec::new(),
        model_records: Vec::new(),
    };
    let act = |action: Action| Event {
        kind: "action".into(),
        turn: 1,
        text: String::new(),
        action: Some(action),
        ..Event::default()
    };
    let game = |hidden: Option<&str>, path: &[&str]| {
        let events = [
            act(Action::Add {
                piece: Box::new(piece("guard", "us", None, "2,2")),
            }),
            act(Action::Add {
                piece: Box::new(piece("token", "them", hidden, "5,2")),
            }),
            act(Action::Move {
                id: "token".into(),
                path: path.iter().map(|s| Square::parse(s).unwrap()).collect(),
            }),
        ];
        let found = check(&declared, &grid, &events, None);
        found.iter().filter(|v| v.invariant == "hidden-apart").count()
    };
    assert_eq!(game(Some("three"), &["4,2", "3,3"]), 1);
    assert_eq!(game(Some("three"), &["4,2"]), 0);
    assert_eq!(game(None, &["4,2", "3,3"]), 0);
}

/// The walks-priced check on logs made by hand, for a kind that pays 1 a step forward, 2
/// back, may not step sideways, and 1 a quarter turn: a turn and a step forward cost 2; a walk
/// charged 1 for them, or a sideways step, is reported.
#[test]
fn a_walk_charged_other_than_its_price_is_reported() {
    let grid = open_grid(6, 6);
    let costs = KindCosts {
        faces: true,
        steps: [Some(1), Some(1), None, Some(2), None],
        turn: Some(1),
        turn_with_move: Some(1),
        door: Some(1),
        step: None,
    };
    let declared = Declared {
        costs: HashMap::from([("model".to_string(), costs)]),
        ..Declared::default()
    };
    let event = |text: &str, action: Action| Event {
        kind: "action".into(),
        turn: 1,
        text: text.into(),
        action: Some(action),
        ..Event::default()
    };
    let walker = Piece {
        id: "walker".into(),
        kind: "model".into(),
        hidden: None,
        side: "us".into(),
        status: "board".into(),
        at: Square::parse("2,3"),
        point: None,
        size: 1,
        diagonal: true,
        life: 1,
        fields: Default::default(),
        facing: Some(0),
        ap: None,
        watch: None,
        models: Vec::new(),
        model_records: Vec::new(),
    };
    let game = |turn_to: u8, step_to: &str, spent: i64| {
        let events = [
            event(
                "",
                Action::Add {
                    piece: Box::new(walker.clone()),
                },
            ),
            event(
                "",
                Action::Face {
                    id: "walker".into(),
                    facing: turn_to,
                },
            ),
            event(
                "",
                Action::Move {
                    id: "walker".into(),
                    path: vec![Square::parse(step_to).unwrap()],
                },
            ),
            event(
                &format!("walker spends {spent} AP to move (0 AP left)"),
                Action::Ap {
                    values: [("walker".to_string(), 0)].into_iter().collect(),
                },
            ),
        ];
        let found = check(&declared, &grid, &events, None);
        found
            .into_iter()
            .filter(|v| v.invariant == "walks-priced")
            .map(|v| v.message)
            .collect::<Vec<_>>()
    };
    // Turned right, a step right: forward.
    assert_eq!(game(1, "3,3", 2), Vec::<String>::new());
    assert_eq!(game(1, "3,3", 1).len(), 1, "{:?}", game(1, "3,3", 1));
    // Turned right, a step up: sideways, which the kind may not take.
    let sideways = game(1, "2,2", 2);
    assert!(
        sideways.len() == 1 && sideways[0].contains("a sideways step"),
        "{sideways:?}"
    );
}

/// The watches-answer check on logs made by hand: a watcher on 4,3 facing right keeps an
/// answering watch (range 12, front arc); a piece stepping into its arc is answered by a line
/// of the watcher's before it steps again; unanswered, or walking on through the arc in one
/// line, it is reported.
#[test]
fn a_step_in_reach_of_a_watch_unanswered_is_reported() {
    let grid = open_grid(8, 6);
    let declared = Declared {
        answering_watches: HashMap::from([("overwatch".to_string(), (12, true))]),
        ..Declared::default()
    };
    let piece = |id: &str, side: &str, at: &str, facing: Option<u8>, watch: Option<&str>| Piece {
        id: id.into(),
        kind: "model".into(),
        hidden: None,
        side: side.into(),
        status: "board".into(),
        at: Square::parse(at),
        point: None,
        size: 1,
        diagonal: true,
        life: 1,
        fields: Default::default(),
        facing,
        ap: None,
        watch: watch.map(Into::into),
        models: Vec::new(),
        model_records: Vec::new(),
    };
    let event = |piece: Option<&str>, text: &str, action: Option<Action>| Event {
        kind: if action.is_some() { "action" } else { "decision" }.into(),
        turn: 1,
        piece: piece.map(Into::into),
        text: text.into(),
        action,
        ..Event::default()
    };
    let step = |path: &[&str]| {
        event(
            Some("runner"),
            "runner moves",
            Some(Action::Move {
                id: "runner".into(),
                path: path.iter().map(|s| Square::parse(s).unwrap()).collect(),
            }),
        )
    };
    let setup = || {
        vec![
            event(
                None,
                "",
                Some(Action::Add {
                    piece: Box::new(piece("watcher", "us", "4,3", Some(1), Some("overwatch"))),
                }),
            ),
            // Behind the watcher's front: out of its arc.
            event(
                None,
                "",
                Some(Action::Add {
                    piece: Box::new(piece("runner", "them", "1,1", None, None)),
                }),
            ),
        ]
    };
    let found = |events: Vec<Event>| -> usize {
        check(&declared, &grid, &events, None)
            .iter()
            .filter(|v| v.invariant == "watches-answer")
            .count()
    };
    let fires = || event(Some("watcher"), "watcher fires at runner", None);
    // Along the top, out of the arc, into it at 6,2, answered, then on.
    let mut answered = setup();
    answered.extend([
        step(&["2,1", "3,1", "4,1", "5,1", "6,2"]),
        fires(),
        step(&["7,2"]),
        fires(),
    ]);
    assert_eq!(found(answered), 0);
    let mut silent = setup();
    silent.extend([step(&["2,1", "3,1", "4,1", "5,1", "6,2"]), step(&["7,2"])]);
    assert_eq!(found(silent), 1);
    let mut through = setup();
    through.extend([step(&["2,1", "3,1", "4,1", "5,1", "6,2", "7,2"]), fires()]);
    assert_eq!(found(through), 1);
}

/// The walks-out-of-sight check on logs made by hand: a watcher on 4,3 facing right sees its
/// front quarter, and a model of a third side on 6,3 stops every line (`sight-models always`). A
/// walk kept out of the watcher's side's sight (`unseen_by`) that steps into the quarter is
/// reported; one that stays behind the watcher, or steps onto 7,3 behind the model, is not;
/// the same steps on a walk that keeps out of no one's sight are not.
#[test]
fn a_walk_kept_out_of_sight_stepping_into_it_is_reported() {
    let grid = open_grid(8, 6);
    let declared = Declared {
        sight: servitor::ruleset::SightRule {
            front_arc: true,
            models: servitor::ruleset::ModelsBlock::Always,
            ..Default::default()
        },
        ..Declared::default()
    };
    let piece = |id: &str, side: &str, at: &str, facing: Option<u8>| Piece {
        id: id.into(),
        kind: "model".into(),
        hidden: None,
        side: side.into(),
        status: "board".into(),
        at: Square::parse(at),
        point: None,
        size: 1,
        diagonal: true,
        life: 1,
        fields: Default::default(),
        facing,
        ap: None,
        watch: None,
        models: Vec::new(),
        model_records: Vec::new(),
    };
    let add = |p: Piece| Event {
        kind: "action".into(),
        action: Some(Action::Add { piece: Box::new(p) }),
        ..Event::default()
    };
    let walk = |path: &[&str], unseen_by: Option<&str>| {
        let mut e = Event {
            kind: "move".into(),
            turn: 1,
            piece: Some("runner".into()),
            text: "runner moves".into(),
            action: Some(Action::Move {
                id: "runner".into(),
                path: path.iter().map(|s| Square::parse(s).unwrap()).collect(),
            }),
            ..Event::default()
        };
        if let Some(side) = unseen_by {
            e.fields.insert("unseen_by".into(), side.into());
        }
        e
    };
    let found = |start: &str, last: Event| -> Vec<String> {
        let events = vec![
            add(piece("watcher", "us", "4,3", Some(1))),
            // A model of a third side: it stops lines, and watches for no one.
            add(piece("wall-of-one", "props", "6,3", None)),
            add(piece("runner", "them", start, None)),
            last,
        ];
        check(&declared, &grid, &events, None)
            .into_iter()
            .filter(|v| v.invariant == "walks-out-of-sight")
            .map(|v| v.message)
            .collect()
    };
    // Behind the watcher: out of its quarter.
    assert_eq!(found("1,1", walk(&["2,1", "3,1"], Some("us"))), Vec::<String>::new());
    // Into the quarter at 6,2.
    let seen = found("4,1", walk(&["5,1", "6,2"], Some("us")));
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].contains("onto 6,2 in sight of watcher"), "{seen:?}");
    // Behind the model on 6,3, straight along the watcher's row: hidden.
    assert_eq!(found("7,4", walk(&["7,3"], Some("us"))), Vec::<String>::new());
    // A walk that keeps out of no one's sight may step anywhere.
    assert_eq!(found("4,1", walk(&["5,1", "6,2"], None)), Vec::<String>::new());
}

/// A board of `width` × `height` floor squares and no walls, for logs made by hand.
fn open_grid(width: usize, height: usize) -> Grid {
    let row = ".".repeat(width);
    grid_of(&vec![row.as_str(); height], &[])
}

/// A board with no walls from its rows of cells (`.` floor, or a `legend` letter: a marked
/// floor square), for logs made by hand.
fn grid_of(rows: &[&str], legend: &[(char, &str)]) -> Grid {
    let width = rows[0].len();
    let edge = format!("+{}\n", "-+".repeat(width));
    let inner = format!("+{}\n", " +".repeat(width));
    let mut map = String::from("\n");
    for (y, cells) in rows.iter().enumerate() {
        map.push_str(if y == 0 { &edge } else { &inner });
        let spaced: Vec<String> = cells.chars().map(String::from).collect();
        map.push_str(&format!("|{}|\n", spaced.join(" ")));
    }
    map.push_str(&edge);
    let text = servitor::board::map::MapText {
        text: &map,
        file: servitor::source::FileId(0),
        start: 0,
    };
    let legend = legend.iter().map(|&(c, name)| (c, name.to_string())).collect();
    servitor::board::map::read(&text, &legend).unwrap_or_else(|e| panic!("{}", e[0].message))
}

/// The entries-before-lost check on logs made by hand: two entries, 1,1 and 4,1; a blip is
/// lost "every entry area has had its blip this phase" after one came on at 1,1 only — 4,1
/// was free: reported; after a blip lurked at 4,1 too (the `lurking` count went up): not;
/// with 4,1 already full of lurkers from before: not.
#[test]
fn a_blip_lost_while_an_entry_is_free_is_reported() {
    let grid = grid_of(&["E..E", "...."], &[('E', "entry")]);
    let declared = Declared {
        entry_limit: Some(3),
        ..Declared::default()
    };
    let event = |text: &str, action: Option<Action>| Event {
        kind: if action.is_some() { "action" } else { "decision" }.into(),
        turn: 1,
        text: text.into(),
        action,
        ..Event::default()
    };
    let blip = Piece {
        id: "blip-1".into(),
        kind: "blip".into(),
        hidden: Some("one".into()),
        side: "alien".into(),
        status: "board".into(),
        at: Square::parse("1,1"),
        point: None,
        size: 1,
        diagonal: true,
        life: 1,
        fields: Default::default(),
        facing: None,
        ap: None,
        watch: None,
        models: Vec::new(),
        model_records: Vec::new(),
    };
    let begin = event(
        "",
        Some(Action::Begin {
            turn: 1,
            side: "alien".into(),
            phase: "alien-turn".into(),
        }),
    );
    let lurking = |n: i64| {
        event(
            "",
            Some(Action::SetVar {
                name: "lurking".into(),
                value: serde_json::json!({ "4,1": n }),
            }),
        )
    };
    let lost = event(
        "every entry area has had its blip this phase: this one is lost and is no kill",
        None,
    );
    let placed = event("", Some(Action::Add { piece: Box::new(blip) }));
    let found = |events: Vec<Event>| -> usize {
        check(&declared, &grid, &events, None)
            .iter()
            .filter(|v| v.invariant == "entries-before-lost")
            .count()
    };
    assert_eq!(found(vec![begin.clone(), placed.clone(), lost.clone()]), 1);
    assert_eq!(found(vec![begin.clone(), placed.clone(), lurking(1), lost.clone()]), 0);
    assert_eq!(found(vec![lurking(3), begin, placed, lost]), 0);
}
