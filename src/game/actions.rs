//! Action points, facings and watches: the kernel of games whose pieces spend points per
//! action, point one way and react during another side's turn. Costs are data: a piece's
//! stats record gives them (`ap-forward`, `ap-turn`, … — docs/games.md "Action points,
//! facing and watches"); [`crate::board::facing`] finds the cheapest plan. Scripts reach these
//! through `api/actions.rs`.
//!
//! - Points are handed out from the stats field the game item names; the `ap-…` fields of
//!   each stats record are read once a game ([`StatCosts`]). They are spent from the piece,
//!   then from its side's `reserve` pool; a spend it cannot pay is refused with what it costs
//!   and what is left.
//! - A priced plan ([`Game::priced_plan`]) is the cheapest by those fields, guided by the
//!   shared distance field to the goal and cut to what the points pay. Under
//!   `door-opener front` a step through a closed door is a step forward
//!   (`facing::Guide::front_doors`), and [`Game::priced_step`] opens the door first, as an
//!   action of its own the watches answer ([`PricedStep::Opened`]).
//!   [`Game::plan_facing_shunning`] goes round the squares a mover shuns unless every way
//!   crosses one.
//! - Watches are kept and stopped here; whether one fires is tested natively after each step,
//!   turn and spend (`Game` in `mod.rs`), so only a valid target costs a script call.
//! - [`Game::squares_at`] gives ambush squares: so many steps away, unseen by a side.

use super::Game;
use super::state::{Action, footprint};
use crate::board::Square;
use crate::board::facing::{self, Costs, FACING_NAMES, StepKind};
use crate::board::moves::UNREACHABLE;
use crate::value::Value;
use indexmap::IndexMap;
use std::collections::HashMap;

/// Where a priced move goes.
#[derive(Debug, Clone)]
pub enum Goal {
    /// The nearest (cheapest) of these squares, any facing.
    Squares(Vec<Square>),
    /// A square beside piece `usize` (on one of its four sides, nothing between), facing it.
    Engage(usize),
}

/// The stats fields that price a facing piece's actions, in `StepKind` order (with the others
/// `StatCosts` reads, in `ruleset::ENGINE_STATS_FIELDS`, which `check` counts as read).
pub const STEP_COST_FIELDS: [&str; 5] = [
    "ap-forward",
    "ap-forward-diagonal",
    "ap-sideways",
    "ap-backward",
    "ap-backward-diagonal",
];

/// The action-point fields of one stats record, read once a game (a plan is priced many times
/// a turn): the step kinds (`STEP_COST_FIELDS`), `ap-turn`, `ap-turn-with-move`, `ap-step`
/// and `ap-door`; `None` where the record leaves a field out.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatCosts {
    steps: [Option<u32>; 5],
    turn: Option<u32>,
    turn_with_move: Option<u32>,
    step: Option<u32>,
    door: Option<u32>,
}

/// [`StatCosts`] of every record of the game's stats kind, by record id.
pub fn stat_costs(ruleset: &crate::Ruleset, stats: Option<&str>) -> HashMap<String, StatCosts> {
    let number = |fields: &IndexMap<String, Value>, field: &str| match fields.get(field) {
        Some(Value::Number(n)) if *n >= 0 => Some((*n).min(i64::from(u32::MAX)) as u32),
        _ => None,
    };
    let Some(records) = stats.and_then(|kind| ruleset.records.get(kind)) else {
        return HashMap::new();
    };
    records
        .iter()
        .map(|(id, record)| {
            let f = &record.fields;
            let costs = StatCosts {
                steps: STEP_COST_FIELDS.map(|field| number(f, field)),
                turn: number(f, "ap-turn"),
                turn_with_move: number(f, "ap-turn-with-move"),
                step: number(f, "ap-step"),
                door: number(f, "ap-door"),
            };
            (id.clone(), costs)
        })
        .collect()
}

impl Game {
    fn stat_number(&self, i: usize, field: &str) -> Option<u32> {
        match self.stat(i, field) {
            Some(Value::Number(n)) if *n >= 0 => Some((*n).min(i64::from(u32::MAX)) as u32),
            _ => None,
        }
    }

    fn stat_costs_of(&self, i: usize) -> StatCosts {
        self.stat_costs
            .get(&self.state.pieces[i].kind)
            .copied()
            .unwrap_or_default()
    }

    /// What piece `i`'s actions cost, from its stats record. A piece with a facing pays by
    /// step kind (`ap-forward` …; a field left out: it may not take that step) and turns
    /// (`ap-turn` on the spot, `ap-turn-with-move` as part of a step, else `ap-turn`); a
    /// piece with no facing pays `ap-step` (default 1) for a step any way.
    pub fn costs_of(&self, i: usize) -> Costs {
        let p = &self.state.pieces[i];
        let stats = self.stat_costs_of(i);
        let mut costs = Costs::default();
        if p.facing.is_some() {
            costs.steps = stats.steps;
            costs.turn = stats.turn;
            costs.turn_with_move = stats.turn_with_move.or(costs.turn);
        } else {
            costs.steps = [Some(stats.step.unwrap_or(1)); 5];
        }
        if !p.diagonal {
            costs.steps[StepKind::ForwardDiagonal as usize] = None;
            costs.steps[StepKind::BackwardDiagonal as usize] = None;
        }
        costs
    }

    /// Extra action points a step through a closed door costs piece `i` (`ap-door`, default 0).
    pub fn door_cost(&self, i: usize) -> u32 {
        self.stat_costs_of(i).door.unwrap_or(0)
    }

    /// The cheapest plan for piece `i` to reach `goal`: its actions and their total cost.
    /// Doors count as passable when a step opens them (`doors open-on-step`); other sides'
    /// pieces block, the piece's own side may be passed; the plan ends on a square it may
    /// stand on. With `through`, when other sides' pieces bar every way, the plan is the way as
    /// if they were not there (the walk stops where one of them blocks it). `None`: no way.
    pub fn plan_facing(&self, i: usize, goal: &Goal, through: bool) -> Option<(u64, Vec<facing::Action>)> {
        self.plan_facing_shunning(i, goal, through, &[])
            .map(|(cost, plan, _)| (cost, plan))
    }

    /// [`Game::plan_facing`] that goes round the squares of `shun` (ground the mover should
    /// not step onto — a burning room, a pit): the cheapest plan stepping onto none of them,
    /// else, when every way crosses one, the cheapest plan as if they were not there. The third
    /// value says whether the plan crosses shunned ground (`true`: no way round).
    pub fn plan_facing_shunning(
        &self,
        i: usize,
        goal: &Goal,
        through: bool,
        shun: &[Square],
    ) -> Option<(u64, Vec<facing::Action>, bool)> {
        if !shun.is_empty() {
            let grid = &self.view.grid;
            let mut shunned = vec![false; grid.len()];
            for &s in shun {
                if grid.contains(s) {
                    shunned[grid.index(s)] = true;
                }
            }
            if let Some((cost, plan)) = self.plan_within(i, goal, false, &|s| !shunned[grid.index(s)]) {
                return Some((cost, plan, false));
            }
        }
        self.plan_within(i, goal, through, &|_| true)
            .map(|(cost, plan)| (cost, plan, !shun.is_empty()))
    }

    /// The game's door rule for piece `i`'s walks when doors open only from in front
    /// (`door-opener front`): whether it may open the door ahead of square `s` facing `d`.
    fn front_door_rule(&self, i: usize) -> Option<impl Fn(Square, usize) -> bool + '_> {
        self.view
            .doors
            .from_front
            .then_some(move |s: Square, d: usize| self.door_in_front_only(i, s, d))
    }

    /// Whether piece `i` stepping from `at` in direction `d` (of [`crate::board::DIRECTIONS`])
    /// meets a closed door it may open only from in front (`door-opener front`, pieces with a
    /// facing, doors that open on a step).
    fn door_in_front_only(&self, i: usize, at: Square, d: usize) -> bool {
        let (dx, dy) = crate::board::DIRECTIONS[d];
        let p = &self.state.pieces[i];
        p.facing.is_some() && self.view.doors.open_on_step && self.view.door_on_step(at, p.size, dx, dy)
    }

    /// [`Game::plan_facing`] stepping only onto squares `allowed` lets it.
    fn plan_within(
        &self,
        i: usize,
        goal: &Goal,
        through: bool,
        allowed: &dyn Fn(Square) -> bool,
    ) -> Option<(u64, Vec<facing::Action>)> {
        let p = &self.state.pieces[i];
        let from = p.at?;
        let front = self.front_door_rule(i);
        let front_doors = front.as_ref().map(|f| f as &dyn Fn(Square, usize) -> bool);
        let pieces = &self.state.pieces;
        let view = &self.view;
        let grid = view.step_grid();
        let costs = self.costs_of(i);
        let passable = |s: Square| allowed(s) && view.may_pass(pieces, i, s);
        let faced = p.facing.is_some();
        let may_end = |s: Square| view.may_end(pieces, i, s) && !self.shares_at(i, s);
        let engage_squares: Vec<(Square, usize)> = match goal {
            Goal::Engage(t) => {
                let mut out = Vec::new();
                for ts in pieces[*t].squares() {
                    for (f, &(dx, dy)) in facing::FACINGS.iter().enumerate() {
                        // Standing at ts - (dx, dy), facing f, looks at ts.
                        let s = ts.offset(-dx, -dy);
                        if view.grid.contains(s) && !view.grid.edge(s, ts).blocks() {
                            out.push((s, f));
                        }
                    }
                }
                out
            }
            Goal::Squares(_) => Vec::new(),
        };
        // The goal as a mask a state: bit f of a square's byte is set when standing there
        // facing f ends the plan (worked out once, not at every state the search settles).
        let mark = |mask: &mut Vec<u8>, check_end: bool| match goal {
            Goal::Squares(list) => {
                for &s in list {
                    if grid.contains(s) && (!check_end || may_end(s)) {
                        mask[grid.index(s)] = 0b1111;
                    }
                }
            }
            Goal::Engage(_) => {
                for &(e, ef) in &engage_squares {
                    if grid.contains(e) && (!check_end || may_end(e)) {
                        mask[grid.index(e)] |= if faced { 1 << ef } else { 0b1111 };
                    }
                }
            }
        };
        let mut ends = vec![0u8; grid.len()];
        mark(&mut ends, true);
        let goal_fn = |s: Square, f: usize| ends[grid.index(s)] & (1 << f) != 0;
        // The guide: steps to the goal with every door open, pieces ignored (a shared field;
        // for an engagement the target's squares, one step short of a square beside it).
        let (sources, short) = match goal {
            Goal::Squares(list) => (list.clone(), 0),
            Goal::Engage(t) => (pieces[*t].squares().iter().copied().collect(), 1),
        };
        let field = view.field_to(p, &sources);
        let guide: std::borrow::Cow<[u16]> = if short == 0 {
            std::borrow::Cow::Borrowed(&field)
        } else {
            field
                .iter()
                .map(|&d| if d == UNREACHABLE { d } else { d.saturating_sub(short) })
                .collect()
        };
        let start = usize::from(p.facing.unwrap_or(0));
        // No square of the goal free to end on, or none the mover can get to past the pieces
        // in the way (a queue in a corridor): no search to fail.
        let reachable =
            ends.iter().any(|&m| m != 0) && facing::could_reach(grid, from, &passable, &|s| ends[grid.index(s)] != 0);
        let plan = if reachable {
            facing::cheapest_plan_guided(
                grid,
                from,
                start,
                &goal_fn,
                &costs,
                &passable,
                facing::Guide {
                    steps_left: &guide,
                    front_doors,
                },
            )
        } else {
            None
        };
        if plan.is_some() || !through {
            return plan;
        }
        {
            // Other sides' pieces bar every way: the way as if they were not there, which the
            // walk follows until one of them stops it (`stopped: "blocked"`).
            let mut anywhere = vec![0u8; grid.len()];
            mark(&mut anywhere, false);
            let anywhere_fn = |s: Square, f: usize| anywhere[grid.index(s)] & (1 << f) != 0;
            facing::cheapest_plan_guided(
                grid,
                from,
                start,
                &anywhere_fn,
                &costs,
                allowed,
                facing::Guide {
                    steps_left: &guide,
                    front_doors,
                },
            )
        }
    }

    /// The longest start of `plan` piece `i` can pay for out of `budget` action points (a step
    /// through a closed door costs its `ap-door` more) that ends on a square it may stand on:
    /// how many actions, and what they cost.
    pub fn affordable(&self, i: usize, plan: &[facing::Action], budget: i64) -> (usize, i64) {
        let Some(mut at) = self.state.pieces[i].at else {
            return (0, 0);
        };
        let costs = self.costs_of(i);
        let door = i64::from(self.door_cost(i));
        let size = self.state.pieces[i].size;
        let (mut spent, mut best) = (0i64, (0usize, 0i64));
        for (k, action) in plan.iter().enumerate() {
            let mut price = i64::from(costs.of(action).unwrap_or(0));
            if let facing::Action::Step { to, .. } = action {
                if self.view.door_on_step(at, size, to.x - at.x, to.y - at.y) {
                    price += door;
                }
                at = *to;
            }
            if spent + price > budget {
                break;
            }
            spent += price;
            // A turn made as part of the step after it is priced with that step: the plan may
            // not stop between them (else a quarter turn with a move would be made with no
            // move, at its price).
            let before_step = matches!(
                action,
                facing::Action::Turn {
                    made: facing::TurnMade::BeforeStep,
                    ..
                }
            );
            if !before_step && self.view.may_end(&self.state.pieces, i, at) && !self.shares_at(i, at) {
                best = (k + 1, spent);
            }
        }
        best
    }

    /// The pieces of `side` on the board that piece `i` can engage (a square beside one, on
    /// one of its four sides with nothing between, that `i` may stand on, facing it when `i`
    /// has a facing) for at most `max` action points, with the cheapest cost each; cheapest
    /// first, then in placement order. One search for every target.
    pub fn in_reach(&self, i: usize, side: &str, max: u64) -> Vec<(usize, u64)> {
        let p = &self.state.pieces[i];
        let Some(from) = p.at else { return Vec::new() };
        let pieces = &self.state.pieces;
        let view = &self.view;
        let grid = view.step_grid();
        let passable = |s: Square| view.may_pass(pieces, i, s);
        // The squares to engage from: (target, square, facing that looks at the target).
        let mut ends: Vec<(usize, Square, usize)> = Vec::new();
        for (t, target) in pieces.iter().enumerate() {
            if t == i || !target.on_board() || target.side != side {
                continue;
            }
            for ts in target.squares() {
                for (f, &(dx, dy)) in facing::FACINGS.iter().enumerate() {
                    let s = ts.offset(-dx, -dy);
                    if view.grid.contains(s)
                        && !view.grid.edge(s, ts).blocks()
                        && view.may_end(pieces, i, s)
                        && !self.shares_at(i, s)
                    {
                        ends.push((t, s, f));
                    }
                }
            }
        }
        // Too far for the points: every step costs at least the cheapest step, and a way
        // takes at least the steps of the shared field (doors open, pieces ignored): no search.
        let costs = self.costs_of(i);
        if let Some(cheapest) = costs.steps.iter().flatten().copied().min().filter(|&c| c > 0) {
            let most = max / u64::from(cheapest);
            let field = view.field_from(p);
            if ends
                .iter()
                .all(|&(_, s, _)| u64::from(field[view.grid.index(s)]) > most)
            {
                return Vec::new();
            }
        }
        // None the mover can get to past the pieces in the way, at any price: no search.
        let mut end_mask = vec![false; grid.len()];
        for &(_, s, _) in &ends {
            end_mask[grid.index(s)] = true;
        }
        if ends.is_empty() || !facing::could_reach(grid, from, &passable, &|s| end_mask[grid.index(s)]) {
            return Vec::new();
        }
        let start = usize::from(p.facing.unwrap_or(0));
        let front = self.front_door_rule(i);
        let front_doors = front.as_ref().map(|f| f as &dyn Fn(Square, usize) -> bool);
        let best = facing::cheapest_costs(grid, from, start, &costs, &passable, max, front_doors);
        let faced = p.facing.is_some();
        let mut cheapest: Vec<(usize, u64)> = Vec::new();
        for &(t, s, f) in &ends {
            let k = grid.index(s) * 4;
            let c = if faced {
                best[k + f]
            } else {
                (0..4).map(|g| best[k + g]).min().unwrap_or(u64::MAX)
            };
            match cheapest.iter_mut().find(|(u, _)| *u == t) {
                Some(entry) => entry.1 = entry.1.min(c),
                None => cheapest.push((t, c)),
            }
        }
        let mut out: Vec<(usize, u64)> = cheapest.into_iter().filter(|&(_, c)| c <= max).collect();
        out.sort_by_key(|&(t, c)| (c, t));
        out
    }

    /// Whether piece `i`, standing on `s`, would share it with another piece.
    fn shares_at(&self, i: usize, s: Square) -> bool {
        self.state
            .pieces
            .iter()
            .enumerate()
            .any(|(j, p)| j != i && p.on_board() && p.squares().contains(&s))
    }

    /// The side pool piece `i` may draw on now (its side's `reserve`, during its side's
    /// phases) and what is in it.
    fn reserve_of(&self, i: usize) -> Option<(String, i64)> {
        let side = &self.state.pieces[i].side;
        if *side != self.state.side {
            return None;
        }
        let pool = self.def.reserves.get(side)?;
        let total = self.state.pools.get(pool).map_or(0, |e| e.values().sum());
        Some((pool.clone(), total))
    }

    /// How many action points piece `i` may spend now: its own and its side's reserve.
    pub fn ap_available(&self, i: usize) -> Option<i64> {
        let own = self.state.pieces[i].ap?;
        Some(own + self.reserve_of(i).map_or(0, |(_, n)| n))
    }

    /// Piece `i` pays `n` action points for `what`: its own first, then its side's reserve.
    /// Refused, with what it costs and what is left, when short.
    pub fn spend_ap(&mut self, i: usize, n: i64, what: &str) -> Result<(), String> {
        let id = self.state.pieces[i].id.clone();
        if n < 0 {
            return Err(format!("{id} cannot spend {n} action points"));
        }
        let Some(own) = self.state.pieces[i].ap else {
            return Err(format!(
                "{id} has no action points: the game item declares `action-points FIELD`, and `game.refresh_ap(side)` hands them out"
            ));
        };
        let reserve = self.reserve_of(i);
        let extra = reserve.as_ref().map_or(0, |(_, n)| *n);
        if own + extra < n {
            let and = match &reserve {
                Some((pool, left)) => format!(", and {left} left in the side's {pool}"),
                None => String::new(),
            };
            return Err(format!(
                "{id} cannot {what}: it costs {n} AP and {id} has {own} AP left{and}"
            ));
        }
        let from_own = own.min(n);
        self.act(
            "ap",
            format!("{id} spends {n} AP to {what} ({} AP left)", own - from_own),
            Some(&id),
            Action::Ap {
                values: IndexMap::from([(id.clone(), own - from_own)]),
            },
        );
        if let Some((pool, _)) = reserve {
            self.take_reserve(&pool, n - from_own, &id);
        }
        Ok(())
    }

    /// Takes `n` from the reserve pool's counts, in order.
    fn take_reserve(&mut self, pool: &str, mut n: i64, by: &str) {
        let entries: Vec<(String, i64)> = self
            .state
            .pools
            .get(pool)
            .map(|e| e.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default();
        for (entry, count) in entries {
            if n <= 0 {
                break;
            }
            let take = count.min(n);
            if take <= 0 {
                continue;
            }
            n -= take;
            self.act(
                "ap",
                format!("{by} draws {take} from {pool}"),
                Some(by),
                Action::Take {
                    pool: pool.to_string(),
                    entry,
                    n: take,
                },
            );
        }
    }

    /// Sets action points without spending (the move walk's total, a rule that gives some).
    pub fn set_ap(&mut self, values: IndexMap<String, i64>, text: String) {
        if values.is_empty() {
            return;
        }
        self.act("ap", text, None, Action::Ap { values });
    }

    /// Every piece of `side` on the board gets the action points its stats give
    /// (`action-points FIELD` of the game item).
    pub fn refresh_ap(&mut self, side: &str) -> Result<(), String> {
        let Some(field) = self.def.action_points.clone() else {
            return Err("the game item declares no `action-points FIELD`".into());
        };
        let mut values = IndexMap::new();
        for (i, p) in self.state.pieces.iter().enumerate() {
            if p.on_board()
                && p.side == side
                && let Some(n) = self.stat_number(i, &field)
            {
                values.insert(p.id.clone(), i64::from(n));
            }
        }
        let listed: Vec<String> = values.iter().map(|(id, n)| format!("{id} {n}")).collect();
        self.set_ap(values, format!("action points for {side}: {}", listed.join(", ")));
        Ok(())
    }

    /// Piece `i` turns to face `facing` (logged).
    pub fn face(&mut self, i: usize, facing: usize) {
        let id = self.state.pieces[i].id.clone();
        self.act(
            "face",
            format!("{id} faces {}", FACING_NAMES[facing % 4]),
            Some(&id),
            Action::Face {
                id: id.clone(),
                facing: (facing % 4) as u8,
            },
        );
        // What it faces now may show it a hidden piece.
        self.check_sightings(Some(i));
    }

    /// Free squares exactly `n` steps from piece `i` (walls counted, doors passable, stepping
    /// as the piece steps) that no piece of `unseen_by` can see, in reading order.
    pub fn squares_at(&self, i: usize, n: u16, unseen_by: &str) -> Vec<Square> {
        let p = &self.state.pieces[i];
        let field = self.view.field_from(p);
        let grid = &self.view.grid;
        (0..grid.len())
            .filter(|&k| field[k] == n && field[k] != UNREACHABLE)
            .map(|k| grid.square(k))
            .filter(|&s| self.view.square_free(s))
            .filter(|&s| unseen_by.is_empty() || self.view.unseen(&self.state.pieces, s, unseen_by))
            .collect()
    }
}

/// What one priced step of a walk came to.
pub enum PricedStep {
    /// The piece stepped from `from`, paying `paid` (a door it opened included);
    /// `interrupted` when the step queued triggers.
    Took { from: Square, paid: i64, interrupted: bool },
    /// The piece opened the door(s) in its way, paying `paid`, and a watch answered that
    /// action (an overwatch shot, a reaction): the triggers run before the step is tried again
    /// (the doors now open).
    Opened { paid: i64 },
    /// The walk stops before this step: `"sight"`, `"shunned"`, `"ap"` or `"blocked"`.
    Stopped(&'static str),
}

/// What holds for every step of one priced walk.
#[derive(Clone, Copy)]
pub struct PricedWalk<'a> {
    /// What opening a door costs the walker, on top of the step.
    pub door: u32,
    /// The points the walk may spend.
    pub budget: i64,
    /// The side whose sight the walk never steps into.
    pub avoid: Option<&'a str>,
    /// The side whose pieces the walk never steps next to (the eight squares round them).
    pub apart: Option<&'a str>,
    /// Squares the walk stops before (shunned, unless told to cross).
    pub refused: &'a [Square],
}

/// A priced plan as far as the points pay: its full cost, the actions paid for, whether
/// the points ran short of the whole plan, and whether every way crossed a shunned square.
pub struct PricedPlan {
    pub total: u64,
    pub plan: Vec<facing::Action>,
    pub short: bool,
    pub crossed: bool,
}

impl Game {
    /// Piece `i` sets a watch of mode `mode` (one the game item declares).
    pub fn keep_watch(&mut self, i: usize, mode: &str) -> Result<(), String> {
        if !self.def.watches.contains_key(mode) {
            let modes: Vec<&str> = self.def.watches.keys().map(String::as_str).collect();
            return Err(format!(
                "no watch `{mode}` in the game item (watches: {})",
                if modes.is_empty() {
                    "none".to_string()
                } else {
                    modes.join(", ")
                }
            ));
        }
        let id = self.state.pieces[i].id.clone();
        self.act(
            "watch",
            format!("{id} keeps {mode}"),
            Some(&id),
            Action::Watch {
                id: id.clone(),
                mode: Some(mode.to_string()),
            },
        );
        Ok(())
    }

    /// Piece `i` no longer keeps its watch (nothing happens without one).
    pub fn stop_watch(&mut self, i: usize) {
        let p = &self.state.pieces[i];
        let Some(mode) = p.watch.clone() else { return };
        let id = p.id.clone();
        self.act(
            "watch",
            format!("{id} no longer keeps {mode}"),
            Some(&id),
            Action::Watch {
                id: id.clone(),
                mode: None,
            },
        );
    }

    /// Whether any square of piece `o` is in piece `i`'s front quarter.
    pub fn has_in_arc(&self, i: usize, o: usize) -> bool {
        let p = &self.state.pieces[i];
        self.state.pieces[o]
            .squares()
            .iter()
            .any(|&s| super::view::in_arc(p, s))
    }

    /// Piece `i` has `n` action points from now on.
    pub fn give_ap(&mut self, i: usize, n: i64) -> Result<(), String> {
        if !(0..=1_000_000).contains(&n) {
            return Err(format!("{n} action points: give 0 to 1000000"));
        }
        let id = self.state.pieces[i].id.clone();
        self.set_ap(IndexMap::from([(id.clone(), n)]), format!("{id} has {n} AP"));
        Ok(())
    }

    /// The cheapest priced plan for piece `i` to `goal`, round the squares it `shun`s,
    /// truncated to what `budget` points pay and to the last square on the way it may stop on.
    pub fn priced_plan(&self, i: usize, goal: &Goal, budget: i64, shun: &[Square]) -> Option<PricedPlan> {
        self.plan_facing_shunning(i, goal, true, shun)
            .map(|(total, mut plan, crossed)| {
                let (n, _) = self.affordable(i, &plan, budget);
                let short = n < plan.len();
                plan.truncate(n);
                PricedPlan {
                    total,
                    plan,
                    short,
                    crossed,
                }
            })
    }

    /// One step of `walk`'s piece `i` to `to`, at `price` (a door it opens costs the
    /// walk's door price more), `spent` points already spent. It stops before a step into
    /// the sight of the walk's `avoid` side, onto a `refused` square from one that is not,
    /// past the budget, or onto a square no longer open.
    pub fn priced_step(&mut self, walk: &PricedWalk, i: usize, to: Square, price: i64, spent: i64) -> PricedStep {
        let PricedWalk {
            door,
            budget,
            avoid,
            apart,
            refused,
        } = *walk;
        let from = self.state.pieces[i].at.expect("on the board");
        if let Some(side) = apart {
            let near = footprint(Some(to), self.state.pieces[i].size);
            let beside = self.state.pieces.iter().enumerate().any(|(o, p)| {
                o != i
                    && p.on_board()
                    && p.side == side
                    && p.squares().iter().any(|s| near.iter().any(|n| n.chebyshev(*s) <= 1))
            });
            if beside {
                return PricedStep::Stopped("apart");
            }
        }
        if let Some(side) = avoid
            && !self.view.unseen_by(&self.state.pieces, to, side, Some(i))
        {
            return PricedStep::Stopped("sight");
        }
        if refused.contains(&to) && !refused.contains(&from) {
            return PricedStep::Stopped("shunned");
        }
        let size = self.state.pieces[i].size;
        let opens = self.view.door_on_step(from, size, to.x - from.x, to.y - from.y);
        let paid = price + if opens { i64::from(door) } else { 0 };
        if spent + paid > budget {
            return PricedStep::Stopped("ap");
        }
        if self.view.check_step(&self.state.pieces, i, from, to).is_err() {
            return PricedStep::Stopped("blocked");
        }
        // Opening a door is an action of its own that watches answer (an overwatch shot at
        // the model in the doorway), before the model steps through.
        if opens && !self.def.watches.is_empty() && self.state.pieces[i].hidden.is_none() {
            self.open_doors_on_step(i, from, to);
            self.check_reactions(i);
            if !self.pending.is_empty() {
                return PricedStep::Opened { paid };
            }
        }
        // The step's line says whose sight the walk keeps out of (see `Game::walk_unseen_by`).
        if let Some(side) = avoid {
            self.walk_unseen_by = Some(side.to_string());
        }
        self.step(i, to);
        self.walk_unseen_by = None;
        PricedStep::Took {
            from,
            paid,
            interrupted: !self.pending.is_empty(),
        }
    }
}

/// The steps of a priced plan and the facing its last turn leaves (`None`: no turn).
pub fn plan_shape(plan: &[facing::Action]) -> (usize, Option<u8>) {
    let steps = plan.iter().filter(|a| matches!(a, facing::Action::Step { .. })).count();
    let end = plan.iter().rev().find_map(|a| match a {
        facing::Action::Turn { to, .. } => Some(*to as u8),
        _ => None,
    });
    (steps, end)
}
