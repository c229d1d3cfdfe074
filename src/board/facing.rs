//! Facing: pieces that point one way and pay per action (step forward, sideways, back, turn),
//! and the cheapest way for such a piece to reach a square. Costs are data from the package.

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
    /// A quarter turn.
    pub turn: Option<u32>,
}

/// One action of a planned path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Turn { to: usize },
    Step { kind: StepKind, to: Square },
}

/// Costs are searched in fine units: among equally cheap plans, fewer diagonal steps win, so
/// plans walk straight down corridors instead of zigzagging. Searched in `u64`: a package's
/// costs go up to `u32::MAX`, times `FINE`, times every square of the largest grid, fit.
const FINE: u64 = 1024;

/// The cheapest actions that bring a piece on `from`, facing `facing`, to `to` (any final
/// facing), with their total cost; `None` if it cannot get there. Pieces do not block.
pub fn cheapest_path(
    grid: &Grid,
    from: Square,
    facing: usize,
    to: Square,
    costs: &Costs,
) -> Option<(u64, Vec<Action>)> {
    if !grid.contains(from) || !grid.contains(to) {
        return None;
    }
    let state = |s: Square, f: usize| grid.index(s) * 4 + f;
    let n = grid.len() * 4;
    let mut best = vec![u64::MAX; n];
    let mut back: Vec<Option<(usize, Action)>> = vec![None; n];
    let mut heap = BinaryHeap::new();
    best[state(from, facing)] = 0;
    heap.push(Reverse((0u64, state(from, facing))));
    while let Some(Reverse((cost, st))) = heap.pop() {
        if cost > best[st] {
            continue;
        }
        let (square, f) = (grid.square(st / 4), st % 4);
        if square == to {
            let mut actions = Vec::new();
            let mut at = st;
            while let Some((prev, action)) = back[at].clone() {
                actions.push(action);
                at = prev;
            }
            actions.reverse();
            return Some((cost / FINE, actions));
        }
        let mut relax = |next: usize, extra: u64, action: Action, heap: &mut BinaryHeap<Reverse<(u64, usize)>>| {
            let c = cost.saturating_add(extra);
            if c < best[next] {
                best[next] = c;
                back[next] = Some((st, action));
                heap.push(Reverse((c, next)));
            }
        };
        if let Some(t) = costs.turn {
            for nf in [(f + 1) % 4, (f + 3) % 4] {
                relax(
                    state(square, nf),
                    u64::from(t) * FINE,
                    Action::Turn { to: nf },
                    &mut heap,
                );
            }
        }
        for &(dx, dy) in &DIRECTIONS {
            let kind = StepKind::of(f, dx, dy);
            let Some(c) = costs.steps[kind as usize] else { continue };
            if grid.can_step(square, dx, dy) {
                let next = square.offset(dx, dy);
                let diagonal = u64::from(dx != 0 && dy != 0);
                relax(
                    state(next, f),
                    u64::from(c) * FINE + diagonal,
                    Action::Step { kind, to: next },
                    &mut heap,
                );
            }
        }
    }
    None
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
