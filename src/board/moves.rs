//! Distances and moves: breadth-first distance fields over the step rule, and "move up to N
//! squares towards / away from the nearest X" with ties broken by the seeded RNG.

use super::{DIRECTIONS, Grid, Square};
use crate::dice::Rng;

/// Which steps a piece may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steps {
    /// The 8 neighbours.
    Eight,
    /// Only straight steps (e.g. a piece that may not move diagonally).
    Four,
}

impl Steps {
    fn directions(self) -> &'static [(i32, i32)] {
        match self {
            Steps::Eight => &DIRECTIONS,
            Steps::Four => &DIRECTIONS[..4],
        }
    }

    /// The step bits this kind of piece may use (see `Grid::step_bits`).
    fn mask(self) -> u8 {
        match self {
            Steps::Eight => 0xff,
            Steps::Four => 0x0f,
        }
    }
}

/// Index offsets of the eight directions on a grid `width` wide.
fn offsets(width: i32) -> [isize; 8] {
    DIRECTIONS.map(|(dx, dy)| (dy * width + dx) as isize)
}

/// Breadth-first over the step bits from the squares already in `queue` (with `dist` set for
/// them), going no further than `limit` steps; `parent` records the way back when given.
fn spread(
    grid: &Grid,
    steps: Steps,
    dist: &mut [u16],
    queue: &mut Vec<u32>,
    limit: u16,
    mut parent: Option<&mut [u32]>,
) {
    let offsets = offsets(grid.width);
    let mask = steps.mask();
    let mut head = 0;
    while head < queue.len() {
        let i = queue[head] as usize;
        head += 1;
        if dist[i] >= limit {
            continue;
        }
        let mut bits = grid.step_bits(i) & mask;
        while bits != 0 {
            let d = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let n = (i as isize + offsets[d]) as usize;
            if dist[n] == UNREACHABLE {
                dist[n] = dist[i] + 1;
                if let Some(p) = parent.as_deref_mut() {
                    p[n] = i as u32;
                }
                queue.push(n as u32);
            }
        }
    }
}

pub const UNREACHABLE: u16 = u16::MAX;

/// Steps from the nearest of `sources` to every square (`UNREACHABLE` where none leads).
/// Pieces do not block: moves may pass through them.
pub fn distance_field(grid: &Grid, sources: &[Square], steps: Steps) -> Vec<u16> {
    let mut dist = vec![UNREACHABLE; grid.len()];
    let mut queue: Vec<u32> = Vec::with_capacity(grid.len());
    for &s in sources {
        if !grid.is_solid(s) && dist[grid.index(s)] == UNREACHABLE {
            dist[grid.index(s)] = 0;
            queue.push(grid.index(s) as u32);
        }
    }
    spread(grid, steps, &mut dist, &mut queue, UNREACHABLE - 1, None);
    dist
}

/// Whether to close in or back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    Towards,
    Away,
}

/// A piece about to move: where it stands, how far it may go, how it steps, which way it
/// wants to go, and which squares it may pass but not end on.
pub struct Mover<'a> {
    pub from: Square,
    pub max: u16,
    pub steps: Steps,
    pub goal: Goal,
    pub occupied: &'a dyn Fn(Square) -> bool,
}

/// Where the piece ends after moving up to `max` squares towards (or away from) the nearest of
/// `targets`, and the squares it walks through. It may pass occupied squares but not end on
/// one; among equally good ends the RNG picks. `None` if it cannot get closer (or further)
/// than where it stands.
pub fn move_towards(grid: &Grid, mover: &Mover, targets: &[Square], rng: &mut Rng) -> Option<Vec<Square>> {
    move_by_field(grid, mover, &distance_field(grid, targets, mover.steps), rng)
}

/// [`move_towards`] with the targets' distance field already made: many pieces moving towards
/// the same targets share one field.
pub fn move_by_field(grid: &Grid, mover: &Mover, to_target: &[u16], rng: &mut Rng) -> Option<Vec<Square>> {
    let Mover {
        from,
        max,
        steps,
        goal,
        occupied,
    } = *mover;
    // Breadth-first from the piece, up to `max` steps, remembering how each square was reached.
    let mut reach = vec![UNREACHABLE; grid.len()];
    let mut parent = vec![u32::MAX; grid.len()];
    let mut queue = vec![grid.index(from) as u32];
    reach[grid.index(from)] = 0;
    spread(grid, steps, &mut reach, &mut queue, max, Some(&mut parent));
    let score = |i: usize| -> Option<i32> {
        let d = to_target[i];
        (d != UNREACHABLE).then_some(match goal {
            Goal::Towards => d as i32,
            Goal::Away => -(d as i32),
        })
    };
    let here = score(grid.index(from))?;
    // Candidates in reading order (queue order is deterministic), best score, then fewest steps.
    let mut best: Option<(i32, u16)> = None;
    let mut ties: Vec<usize> = Vec::new();
    for &q in &queue {
        let i = q as usize;
        if i != grid.index(from) && occupied(grid.square(i)) {
            continue;
        }
        let Some(sc) = score(i) else { continue };
        let key = (sc, reach[i]);
        match best {
            Some(b) if key > b => {}
            Some(b) if key == b => ties.push(i),
            _ => {
                best = Some(key);
                ties = vec![i];
            }
        }
    }
    let (best_score, _) = best?;
    if best_score >= here {
        return None;
    }
    ties.sort_unstable();
    let end = ties[rng.below(ties.len() as u64) as usize];
    let mut path = vec![grid.square(end)];
    let mut at = end;
    while parent[at] != u32::MAX {
        at = parent[at] as usize;
        path.push(grid.square(at));
    }
    path.reverse();
    Some(path)
}

/// Squares reachable from `from` without crossing a wall or a closed door: the "enclosed by
/// unbroken walls and unopened doors" test asks whether a target is among them.
pub fn region(grid: &Grid, from: Square, steps: Steps) -> Vec<Square> {
    let dist = distance_field(grid, &[from], steps);
    (0..grid.len())
        .filter(|&i| dist[i] != UNREACHABLE)
        .map(|i| grid.square(i))
        .collect()
}

/// Whether a piece covering `squares` may step by (dx, dy): every one of its squares must.
pub fn footprint_can_step(grid: &Grid, squares: &[Square], dx: i32, dy: i32) -> bool {
    squares.iter().all(|&s| grid.can_step(s, dx, dy))
}

/// Whether a wall or door runs between two squares of a footprint: a model's base cannot
/// stand across either.
pub fn footprint_split(grid: &Grid, squares: &[Square]) -> bool {
    squares.iter().any(|&a| {
        [(1, 0), (0, 1)].iter().any(|&(dx, dy)| {
            let b = a.offset(dx, dy);
            squares.contains(&b) && !matches!(grid.edge(a, b), super::Edge::Open)
        })
    })
}

/// Steps for a `width × height` piece with its top-left square on `from` to bring its
/// top-left square to `to`, moving only straight; `None` if it cannot get there.
pub fn footprint_distance(grid: &Grid, from: Square, width: i32, height: i32, to: Square) -> Option<u16> {
    let cover = |at: Square| -> Vec<Square> {
        (0..height)
            .flat_map(|dy| (0..width).map(move |dx| at.offset(dx, dy)))
            .collect()
    };
    let mut seen = vec![UNREACHABLE; grid.len()];
    let mut queue = vec![from];
    seen[grid.index(from)] = 0;
    let mut head = 0;
    while head < queue.len() {
        let at = queue[head];
        head += 1;
        if at == to {
            return Some(seen[grid.index(at)]);
        }
        for &(dx, dy) in Steps::Four.directions() {
            let next = at.offset(dx, dy);
            if grid.contains(next)
                && seen[grid.index(next)] == UNREACHABLE
                && footprint_can_step(grid, &cover(at), dx, dy)
            {
                seen[grid.index(next)] = seen[grid.index(at)] + 1;
                queue.push(next);
            }
        }
    }
    None
}
