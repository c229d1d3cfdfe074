//! Area effects: a straight line of squares that stops at walls (plasma-style), and a blast
//! on a square and its neighbours that does not pass walls or closed doors.

use super::{DIRECTIONS, Grid, Square};

/// Squares from `from` (not included) in direction (dx, dy), until a wall, a closed door,
/// solid rock or the edge of the grid; at most `max` squares.
pub fn line(grid: &Grid, from: Square, dx: i32, dy: i32, max: usize) -> Vec<Square> {
    let mut out = Vec::new();
    let mut at = from;
    while out.len() < max && grid.can_step(at, dx, dy) {
        at = at.offset(dx, dy);
        out.push(at);
    }
    out
}

/// The target square first, then each neighbour the blast can reach from it.
pub fn blast(grid: &Grid, target: Square) -> Vec<Square> {
    let mut out = vec![target];
    for (dx, dy) in DIRECTIONS {
        if grid.can_step(target, dx, dy) {
            out.push(target.offset(dx, dy));
        }
    }
    out
}
