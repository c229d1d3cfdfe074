//! Distances and moves: breadth-first distance fields over the step rule, and "move up to N
//! squares towards / away from the nearest X" with ties broken by the seeded RNG.
//!
//! There is one breadth-first walk, `spread`: a loop over the grid's step bits with an
//! `admit` test by which a caller may refuse a step. Distance fields pass none; a game's
//! pieces pass `View::may_step`. A [`Reach`] is that walk from one square with the way back
//! ([`Reach::walk`]), and [`Reach::choose`] is the one choice of where a move ends: best
//! score, then fewest steps, then a die among the equal squares in reading order ([`Ties`],
//! also behind the decision verbs' best reachable square). [`Mover`] moves towards or away on
//! a bare map; `View::plan` does it in a game. Footprints and regions are here too.

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

/// The one breadth-first walk every distance and every move is measured by: from the squares
/// already in `queue` (with `dist` set for them), over the grid's step bits, going no further
/// than `limit` steps. `admit(i, d)` may refuse a step the walls allow, from square index `i`
/// in direction `DIRECTIONS[d]` (a piece's footprint, the pieces in its way); a distance field
/// passes `|_, _| true`, which compiles away and leaves the bare bit-mask loop. `parent`
/// records the way back when given. Squares are found in a fixed order: by steps, then in the
/// order of their parents, then in the order of `DIRECTIONS`.
fn spread(
    grid: &Grid,
    steps: Steps,
    dist: &mut [u16],
    queue: &mut Vec<u32>,
    limit: u16,
    mut parent: Option<&mut [u32]>,
    mut admit: impl FnMut(usize, usize) -> bool,
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
            if dist[n] == UNREACHABLE && admit(i, d) {
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
    spread(grid, steps, &mut dist, &mut queue, UNREACHABLE - 1, None, |_, _| true);
    dist
}

/// Where a mover can get from one square within a number of steps, and how: the
/// breadth-first walk of [`spread`] from a single square, with the way back to each square.
/// Moves on a bare map and moves of pieces in a game both start here.
pub struct Reach {
    /// Steps to each square by index (`UNREACHABLE` where the walk did not get).
    pub dist: Vec<u16>,
    /// The square each was reached from (`u32::MAX` for the start and the squares not reached).
    parent: Vec<u32>,
    /// The squares reached, in the order the walk found them: the start first.
    pub order: Vec<u32>,
}

impl Reach {
    /// The walk from `from` of at most `max` steps, each a step `steps` allows through the
    /// walls of `grid` that `admit(i, d)` also lets (from square index `i` in direction
    /// `DIRECTIONS[d]`).
    pub fn new(grid: &Grid, from: Square, steps: Steps, max: u16, admit: impl FnMut(usize, usize) -> bool) -> Reach {
        let start = grid.index(from);
        let mut dist = vec![UNREACHABLE; grid.len()];
        let mut parent = vec![u32::MAX; grid.len()];
        let mut order = vec![start as u32];
        dist[start] = 0;
        spread(grid, steps, &mut dist, &mut order, max, Some(&mut parent), admit);
        Reach { dist, parent, order }
    }

    /// The index of the square the walk started from.
    pub fn start(&self) -> usize {
        self.order[0] as usize
    }

    /// The squares a mover steps onto, one a step, to go from the start to square index `end`
    /// (the start left out; empty when `end` is the start).
    pub fn walk(&self, grid: &Grid, end: usize) -> Vec<Square> {
        let mut walk = Vec::with_capacity(usize::from(self.dist[end]));
        let mut at = end;
        while at != self.start() && self.parent[at] != u32::MAX {
            walk.push(grid.square(at));
            at = self.parent[at] as usize;
        }
        walk.reverse();
        walk
    }

    /// How a mover chooses where to go: of the squares reached (not the start) that
    /// `may_end` lets it end on and `score` scores (smaller is better: a distance to close,
    /// or a negated distance to open), the best score, then the fewest steps; among equal
    /// ones the RNG picks in reading order. The walk there (see [`Reach::walk`]), or `None`
    /// when no square scores better than `here` (where it stands; `None`: any score does).
    pub fn choose(
        &self,
        grid: &Grid,
        here: Option<i32>,
        score: impl Fn(usize) -> Option<i32>,
        may_end: impl Fn(usize) -> bool,
        rng: &mut Rng,
    ) -> Option<Vec<Square>> {
        let mut best = Ties::default();
        for &q in &self.order[1..] {
            let i = q as usize;
            if !may_end(i) {
                continue;
            }
            let Some(sc) = score(i) else { continue };
            best.offer((sc, self.dist[i]), i);
        }
        let (best_score, _) = best.key()?;
        if here.is_some_and(|h| best_score >= h) {
            return None;
        }
        let (_, end) = best.pick(rng)?;
        Some(self.walk(grid, end))
    }
}

/// The smallest key offered and every square (by index) offered with it: the "best, then the
/// dice among the equal ones" every choice of where to go ends with.
pub struct Ties<K> {
    best: Option<K>,
    squares: Vec<usize>,
}

impl<K> Default for Ties<K> {
    fn default() -> Self {
        Ties {
            best: None,
            squares: Vec::new(),
        }
    }
}

impl<K: Ord + Copy> Ties<K> {
    /// Square index `i` with `key`: it joins the best when its key is as small, replaces them
    /// when smaller.
    pub fn offer(&mut self, key: K, i: usize) {
        match self.best {
            Some(b) if key > b => {}
            Some(b) if key == b => self.squares.push(i),
            _ => {
                self.best = Some(key);
                self.squares.clear();
                self.squares.push(i);
            }
        }
    }

    /// The best key offered; `None` when none was.
    pub fn key(&self) -> Option<K> {
        self.best
    }

    /// Whether square index `i` is among the best.
    pub fn contains(&self, i: usize) -> bool {
        self.squares.contains(&i)
    }

    /// The best key and one of its squares: the RNG picks among them in reading order (one
    /// die even when there is only one, so a game's dice do not depend on how many tied).
    pub fn pick(mut self, rng: &mut Rng) -> Option<(K, usize)> {
        let key = self.best?;
        self.squares.sort_unstable();
        let n = self.squares.len() as u64;
        let k = rng.choose(crate::dice::rng::Kind::Tie, n, &|| {
            format!("a square among {n} as good, in reading order")
        });
        Some((key, self.squares[k as usize]))
    }
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
/// the same targets share one field. The path starts with the square it stands on.
pub fn move_by_field(grid: &Grid, mover: &Mover, to_target: &[u16], rng: &mut Rng) -> Option<Vec<Square>> {
    let Mover {
        from,
        max,
        steps,
        goal,
        occupied,
    } = *mover;
    let score = |i: usize| -> Option<i32> {
        let d = to_target[i];
        (d != UNREACHABLE).then_some(match goal {
            Goal::Towards => d as i32,
            Goal::Away => -(d as i32),
        })
    };
    // With no way to the targets from where it stands, no square is nearer (or farther).
    let here = score(grid.index(from))?;
    // Pieces do not block the way; it only may not end on one.
    let reach = Reach::new(grid, from, steps, max, |_, _| true);
    let walk = reach.choose(grid, Some(here), score, |i| !occupied(grid.square(i)), rng)?;
    Some(std::iter::once(from).chain(walk).collect())
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
    if !grid.contains(to) {
        return None;
    }
    let cover = |at: Square| -> Vec<Square> {
        (0..height)
            .flat_map(|dy| (0..width).map(move |dx| at.offset(dx, dy)))
            .collect()
    };
    let reach = Reach::new(grid, from, Steps::Four, UNREACHABLE - 1, |i, d| {
        let (dx, dy) = DIRECTIONS[d];
        footprint_can_step(grid, &cover(grid.square(i)), dx, dy)
    });
    let d = reach.dist[grid.index(to)];
    (d != UNREACHABLE).then_some(d)
}
