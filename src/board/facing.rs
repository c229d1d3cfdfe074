//! Facing: pieces that point one way and pay per action (step forward, sideways, back, turn),
//! and the cheapest way for such a piece to reach a square. Costs are data from the package.
//!
//! The plan found is the cheapest to any square and facing the goal accepts, through the
//! squares the caller lets it pass: fewest points, then fewest diagonals, then fewest turns; a
//! turn is made on the spot or as part of a step. [`cheapest_plan_guided`] settles the states
//! nearest the goal first, by a distance field that never overestimates (A*). Each search
//! keeps one packed back-pointer word per state, and `step_moves` works out once per search
//! the cheapest way to end each step in each facing, so settling a state only adds numbers.

use super::{DIRECTIONS, Grid, Square};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Up the map, right, down, left.
pub const FACINGS: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];
pub const FACING_NAMES: [&str; 4] = ["up", "right", "down", "left"];

pub fn facing_from_name(name: &str) -> Option<usize> {
    FACING_NAMES.iter().position(|n| *n == name)
}

/// What a step is, seen from the way the piece faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    Forward,
    ForwardDiagonal,
    Sideways,
    Backward,
    BackwardDiagonal,
}

impl StepKind {
    pub const NAMES: [&'static str; 5] = [
        "forward",
        "forward-diagonal",
        "sideways",
        "backward",
        "backward-diagonal",
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn of(facing: usize, dx: i32, dy: i32) -> StepKind {
        let (fx, fy) = FACINGS[facing];
        let along = dx * fx + dy * fy;
        let diagonal = dx != 0 && dy != 0;
        match (along.signum(), diagonal) {
            (1, false) => StepKind::Forward,
            (1, true) => StepKind::ForwardDiagonal,
            (0, _) => StepKind::Sideways,
            (_, false) => StepKind::Backward,
            (_, true) => StepKind::BackwardDiagonal,
        }
    }
}

/// What each action costs; `None` means the piece may not do it.
#[derive(Debug, Clone, Default)]
pub struct Costs {
    pub steps: [Option<u32>; 5],
    /// A quarter turn on the spot.
    pub turn: Option<u32>,
    /// A quarter turn made as part of a step, just before or just after it (at most one per
    /// step); `None`: such a turn costs what a turn on the spot does.
    pub turn_with_move: Option<u32>,
}

/// One action of a planned path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A quarter turn, on the spot or as part of the step before or after it.
    Turn {
        to: usize,
        made: TurnMade,
    },
    Step {
        kind: StepKind,
        to: Square,
    },
}

/// Where a quarter turn is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnMade {
    OnTheSpot,
    /// As part of the step just before it.
    AfterStep,
    /// As part of the step just after it.
    BeforeStep,
}

impl Costs {
    /// The price of one action (in whole points), as the plan pays it.
    pub fn of(&self, action: &Action) -> Option<u32> {
        match action {
            Action::Turn {
                made: TurnMade::OnTheSpot,
                ..
            } => self.turn,
            Action::Turn { .. } => self.turn_with_move,
            Action::Step { kind, .. } => self.steps[*kind as usize],
        }
    }
}

/// Costs are searched in fine units: among equally cheap plans, fewer diagonal steps win, so
/// plans walk straight down corridors instead of zigzagging, and fewer turns (a free turn is
/// still not made for nothing). Searched in `u64`: a package's
/// costs go up to `u32::MAX`, times `FINE`, times every square of the largest grid, fit.
const FINE: u64 = 1024;
/// What a turn adds in fine units, to break ties against plans that turn for nothing.
const TURN_TIE: u64 = 2;

/// The cheapest actions that bring a piece on `from`, facing `facing`, to `to` (any final
/// facing), with their total cost; `None` if it cannot get there. Pieces do not block.
pub fn cheapest_path(
    grid: &Grid,
    from: Square,
    facing: usize,
    to: Square,
    costs: &Costs,
) -> Option<(u64, Vec<Action>)> {
    if !grid.contains(to) {
        return None;
    }
    cheapest_plan(grid, from, facing, &|s, _| s == to, costs, &|_| true)
}

/// The cheapest actions that bring a piece on `from`, facing `facing`, to a square and facing
/// that `goal` accepts, stepping only onto squares `passable` allows; with their total cost.
/// Among equally cheap plans the one with fewest diagonal steps wins, then the one found first
/// (the search order is fixed, so the same board gives the same plan).
pub fn cheapest_plan(
    grid: &Grid,
    from: Square,
    facing: usize,
    goal: &dyn Fn(Square, usize) -> bool,
    costs: &Costs,
    passable: &dyn Fn(Square) -> bool,
) -> Option<(u64, Vec<Action>)> {
    search(grid, from, facing, goal, costs, passable, Bounds::default()).1
}

/// [`cheapest_plan`] guided by `steps_left`: for every square, a number of steps no plan from
/// there to the goal can take fewer of (a distance field to the goal squares with every door
/// open and pieces ignored; `moves::UNREACHABLE` where no way leads). The search settles the
/// states nearest the goal first (A*: each step costs at least the cheapest step), so a plan
/// across the board does not search the whole board; it finds a plan as cheap as
/// `cheapest_plan` does, and among equally cheap ones (same points, diagonal steps and turns)
/// possibly another one.
pub fn cheapest_plan_guided(
    grid: &Grid,
    from: Square,
    facing: usize,
    goal: &dyn Fn(Square, usize) -> bool,
    costs: &Costs,
    passable: &dyn Fn(Square) -> bool,
    guide: Guide,
) -> Option<(u64, Vec<Action>)> {
    let Guide {
        steps_left,
        front_doors,
    } = guide;
    search(
        grid,
        from,
        facing,
        goal,
        costs,
        passable,
        Bounds {
            limit: None,
            steps_left: Some(steps_left),
            front_doors,
        },
    )
    .1
}

/// Whether a piece on `from` could reach any square `target` accepts, stepping only onto
/// squares `passable` allows, whatever its facing and its costs: a flood over squares that
/// stops at the first target. A priced search that cannot end finds it out only after
/// settling every state it can reach, four facings a square; this answers the same "no" for
/// a fraction of that, so a caller skips searches that would fail. `true` does not promise a
/// plan (the costs may forbid a step or a turn): it only says the search is worth running.
pub fn could_reach(
    grid: &Grid,
    from: Square,
    passable: &dyn Fn(Square) -> bool,
    target: &dyn Fn(Square) -> bool,
) -> bool {
    if !grid.contains(from) {
        return false;
    }
    let mut seen = vec![false; grid.len()];
    seen[grid.index(from)] = true;
    let mut stack = vec![from];
    while let Some(square) = stack.pop() {
        if target(square) {
            return true;
        }
        let mask = grid.step_mask(square);
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            if mask & (1 << d) == 0 {
                continue;
            }
            let next = square.offset(dx, dy);
            let k = grid.index(next);
            if !seen[k] && passable(next) {
                seen[k] = true;
                stack.push(next);
            }
        }
    }
    false
}

/// What the cheapest plan to each state (square × facing, index `square * 4 + facing`) costs,
/// for every state reachable for at most `limit` points (`u64::MAX` for the others): one
/// search answers "whom can it reach this turn" for every target at once.
pub fn cheapest_costs(
    grid: &Grid,
    from: Square,
    facing: usize,
    costs: &Costs,
    passable: &dyn Fn(Square) -> bool,
    limit: u64,
    front_doors: Option<&dyn Fn(Square, usize) -> bool>,
) -> Vec<u64> {
    let bounds = Bounds {
        limit: Some(limit),
        steps_left: None,
        front_doors,
    };
    let (best, _) = search(grid, from, facing, &|_, _| false, costs, passable, bounds);
    best.into_iter()
        .map(|c| {
            if c == u64::MAX || c / FINE > limit {
                u64::MAX
            } else {
                c / FINE
            }
        })
        .collect()
}

/// What guides [`cheapest_plan_guided`]: `steps_left`, and the doors a piece may open only
/// from in front (see `Bounds`).
#[derive(Clone, Copy)]
pub struct Guide<'a> {
    pub steps_left: &'a [u16],
    pub front_doors: Option<&'a dyn Fn(Square, usize) -> bool>,
}

/// What bounds a search: the most points it looks at (`cheapest_costs`), and the guide that
/// settles states nearest the goal first (`cheapest_plan_guided`).
#[derive(Default, Clone, Copy)]
struct Bounds<'a> {
    limit: Option<u64>,
    steps_left: Option<&'a [u16]>,
    /// Steps (square, direction) through a door that opens only from in front: such a step
    /// must be a step forward as the piece faces when it takes it.
    front_doors: Option<&'a dyn Fn(Square, usize) -> bool>,
}

/// How a state was reached, in the low three bits of its back word (see `search`).
const HOW_START: u32 = 0;
const HOW_TURN: u32 = 1;
const HOW_STEP: u32 = 2;
const HOW_STEP_TURN: u32 = 3;
const HOW_TURN_STEP: u32 = 4;

/// No way to make the move (a slot of `step_moves` left empty).
const HOW_NONE: u32 = 7;

/// One way to end a step in a facing: the facing, what it adds in fine units and how (`HOW_…`).
type StepMove = (usize, u64, u32);

/// For a piece facing `f` stepping in direction `DIRECTIONS[d]`, the cheapest way to end the
/// step in each facing it can end in: keeping its facing (the plain step), or a quarter turn
/// either way made with the step — the step then the turn, or the turn then the step as the new
/// facing sees it, the first of the two when they cost the same (the order the plan is searched
/// in). Worked out once a search from the piece's costs, so settling a state only adds numbers.
fn step_moves(costs: &Costs) -> [[[StepMove; 3]; 8]; 4] {
    let none = (0, 0, HOW_NONE);
    let mut table = [[[none; 3]; 8]; 4];
    for (f, by_direction) in table.iter_mut().enumerate() {
        for (d, slots) in by_direction.iter_mut().enumerate() {
            let (dx, dy) = DIRECTIONS[d];
            let diagonal = u64::from(dx != 0 && dy != 0);
            let kind = StepKind::of(f, dx, dy);
            if let Some(c) = costs.steps[kind as usize] {
                slots[0] = (f, u64::from(c) * FINE + diagonal, HOW_STEP);
            }
            let Some(t) = costs.turn_with_move else { continue };
            let with_turn = |c: u32| (u64::from(c) + u64::from(t)) * FINE + diagonal + TURN_TIE;
            for (k, nf) in [(f + 1) % 4, (f + 3) % 4].into_iter().enumerate() {
                let step_then_turn = costs.steps[kind as usize].map(|c| (nf, with_turn(c), HOW_STEP_TURN));
                let turn_then_step =
                    costs.steps[StepKind::of(nf, dx, dy) as usize].map(|c| (nf, with_turn(c), HOW_TURN_STEP));
                slots[1 + k] = match (step_then_turn, turn_then_step) {
                    (Some(a), Some(b)) if b.1 < a.1 => b,
                    (Some(a), _) => a,
                    (None, Some(b)) => b,
                    (None, None) => none,
                };
            }
        }
    }
    table
}

/// The search both answer from: Dijkstra over (square, facing) in fine units, stopping at the
/// first state `goal` accepts (its plan) or once every state within `limit` points is settled.
#[allow(clippy::type_complexity)]
fn search(
    grid: &Grid,
    from: Square,
    facing: usize,
    goal: &dyn Fn(Square, usize) -> bool,
    costs: &Costs,
    passable: &dyn Fn(Square) -> bool,
    bounds: Bounds,
) -> (Vec<u64>, Option<(u64, Vec<Action>)>) {
    let Bounds {
        limit,
        steps_left,
        front_doors,
    } = bounds;
    if !grid.contains(from) || facing > 3 {
        return (vec![u64::MAX; grid.len() * 4], None);
    }
    // The least a step costs, in fine units: what each step still to take adds at least.
    let cheapest_step = costs.steps.iter().flatten().min().map_or(0, |&c| u64::from(c) * FINE);
    let guide = steps_left.filter(|f| f.len() == grid.len() && cheapest_step > 0);
    // What the plan still costs at least from state `st`; `None`: no way leads to the goal.
    let estimate = |st: usize| -> Option<u64> {
        match guide {
            None => Some(0),
            Some(f) => {
                let d = f[st / 4];
                (d != crate::board::moves::UNREACHABLE).then(|| u64::from(d) * cheapest_step)
            }
        }
    };
    let state = |s: Square, f: usize| grid.index(s) * 4 + f;
    let n = grid.len() * 4;
    let mut best = vec![u64::MAX; n];
    // How each state was reached, packed in one word: the state before times 8 plus how
    // (`HOW_…`); the actions are rebuilt from the two states when a plan is found (no action
    // kept per state: a plan is searched many times a turn).
    let mut back: Vec<u32> = vec![0; n];
    let moves = step_moves(costs);
    let mut heap = BinaryHeap::new();
    best[state(from, facing)] = 0;
    let Some(h0) = estimate(state(from, facing)) else {
        return (best, None);
    };
    heap.push(Reverse((h0, state(from, facing))));
    while let Some(Reverse((key, st))) = heap.pop() {
        // The key is the cost so far plus the estimate of what is left (0 unguided).
        let cost = key.saturating_sub(estimate(st).unwrap_or(0));
        if cost > best[st] {
            continue;
        }
        if limit.is_some_and(|l| cost / FINE > l) {
            break;
        }
        let (square, f) = (grid.square(st / 4), st % 4);
        if goal(square, f) {
            let mut actions = Vec::new();
            let mut at = st;
            while back[at] & 7 != HOW_START {
                let (prev, how) = ((back[at] >> 3) as usize, back[at] & 7);
                let (to, nf) = (grid.square(at / 4), at % 4);
                let (was, pf) = (grid.square(prev / 4), prev % 4);
                let (dx, dy) = (to.x - was.x, to.y - was.y);
                // Pushed last first: the list is reversed at the end.
                match how {
                    HOW_TURN => actions.push(Action::Turn {
                        to: nf,
                        made: TurnMade::OnTheSpot,
                    }),
                    HOW_STEP => actions.push(Action::Step {
                        kind: StepKind::of(pf, dx, dy),
                        to,
                    }),
                    HOW_STEP_TURN => {
                        actions.push(Action::Turn {
                            to: nf,
                            made: TurnMade::AfterStep,
                        });
                        actions.push(Action::Step {
                            kind: StepKind::of(pf, dx, dy),
                            to,
                        });
                    }
                    _ => {
                        actions.push(Action::Step {
                            kind: StepKind::of(nf, dx, dy),
                            to,
                        });
                        actions.push(Action::Turn {
                            to: nf,
                            made: TurnMade::BeforeStep,
                        });
                    }
                }
                at = prev;
            }
            actions.reverse();
            return (best, Some((cost / FINE, actions)));
        }
        let packed = |how: u32| ((st as u32) << 3) | how;
        let mut relax = |next: usize, extra: u64, how: u32, heap: &mut BinaryHeap<Reverse<(u64, usize)>>| {
            let c = cost.saturating_add(extra);
            if c < best[next] {
                let Some(h) = estimate(next) else { return };
                best[next] = c;
                back[next] = packed(how);
                heap.push(Reverse((c.saturating_add(h), next)));
            }
        };
        if let Some(t) = costs.turn {
            for nf in [(f + 1) % 4, (f + 3) % 4] {
                relax(state(square, nf), u64::from(t) * FINE + TURN_TIE, HOW_TURN, &mut heap);
            }
        }
        let mask = grid.step_mask(square);
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            if mask & (1 << d) == 0 {
                continue;
            }
            let next = square.offset(dx, dy);
            if !passable(next) {
                continue;
            }
            let at = grid.index(next) * 4;
            if front_doors.is_some_and(|door| door(square, d)) {
                // A door opened from in front: a step forward as the piece faces when it
                // takes it — now, or after a quarter turn made with the step.
                let Some(w) = FACINGS.iter().position(|&v| v == (dx, dy)) else {
                    continue;
                };
                if w == f {
                    for &(nf, extra, how) in &moves[f][d] {
                        if how == HOW_STEP || how == HOW_STEP_TURN {
                            relax(at + nf, extra, how, &mut heap);
                        }
                    }
                } else if (w == (f + 1) % 4 || w == (f + 3) % 4)
                    && let (Some(t), Some(c)) = (costs.turn_with_move, costs.steps[StepKind::Forward as usize])
                {
                    let extra = (u64::from(c) + u64::from(t)) * FINE + TURN_TIE;
                    relax(at + w, extra, HOW_TURN_STEP, &mut heap);
                }
                continue;
            }
            for &(nf, extra, how) in &moves[f][d] {
                if how != HOW_NONE {
                    relax(at + nf, extra, how, &mut heap);
                }
            }
        }
    }
    (best, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_classified_from_the_facing() {
        assert_eq!(StepKind::of(0, 0, -1), StepKind::Forward);
        assert_eq!(StepKind::of(0, 1, -1), StepKind::ForwardDiagonal);
        assert_eq!(StepKind::of(0, 1, 0), StepKind::Sideways);
        assert_eq!(StepKind::of(0, 0, 1), StepKind::Backward);
        assert_eq!(StepKind::of(1, -1, 1), StepKind::BackwardDiagonal);
    }
}
