//! Line of sight: a straight line from square centre to square centre, walked exactly with
//! integer arithmetic. The rule, including lines through corners, is in docs/boards.md.
//! Pieces with footprints see from any of their squares. A game declares what diagonal
//! neighbours and closed doors do ([`LosRule`]). [`clear`] answers yes or no; [`line_of_sight`]
//! also keeps the path and where it stopped, for drawing.

use super::{Edge, Grid, Square};
use serde::Serialize;

/// What a game's line of sight makes of the board (declared in its `game` item, see
/// `ruleset::SightRule`): whether diagonal neighbours see each other and whether a closed
/// door stops a line. The default is the rule every board had before games declared theirs:
/// diagonal neighbours never see each other, closed doors block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LosRule {
    /// Two diagonally adjacent squares see each other (the corner between them judged as any
    /// line through a corner is).
    pub diagonals: bool,
    /// A closed door stops a line as a wall does.
    pub doors_block: bool,
}

impl Default for LosRule {
    fn default() -> Self {
        LosRule {
            diagonals: false,
            doors_block: true,
        }
    }
}

impl LosRule {
    /// Whether an edge stops a line under this rule.
    fn blocks(self, e: Edge) -> bool {
        match e {
            Edge::Door { open: false } => self.doors_block,
            e => e.blocks(),
        }
    }
}

/// The answer, with the squares the line crosses (for drawing it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sight {
    pub visible: bool,
    /// Squares strictly between the two ends, in order.
    pub path: Vec<Square>,
    /// Where the line was stopped, and why.
    pub blocked_at: Option<(Square, &'static str)>,
}

/// Can `from` see `to`? `occupied` says which squares hold a piece that blocks (pass
/// `|_| false` when revealing, where pieces do not block).
pub fn line_of_sight(grid: &Grid, from: Square, to: Square, occupied: &dyn Fn(Square) -> bool) -> Sight {
    line_of_sight_by(LosRule::default(), grid, from, to, occupied)
}

/// [`line_of_sight`] under a game's declared rule.
pub fn line_of_sight_by(
    rule: LosRule,
    grid: &Grid,
    from: Square,
    to: Square,
    occupied: &dyn Fn(Square) -> bool,
) -> Sight {
    let mut path = Vec::new();
    let blocked_at = walk(rule, grid, from, to, occupied, &mut |s| path.push(s)).err();
    Sight {
        visible: blocked_at.is_none(),
        path,
        blocked_at,
    }
}

/// Whether `from` sees `to`, as [`line_of_sight`] judges it, without keeping the squares
/// between (the question every decision asks; the path is for drawing).
pub fn clear(grid: &Grid, from: Square, to: Square, occupied: &dyn Fn(Square) -> bool) -> bool {
    clear_by(LosRule::default(), grid, from, to, occupied)
}

/// [`clear`] under a game's declared rule.
pub fn clear_by(rule: LosRule, grid: &Grid, from: Square, to: Square, occupied: &dyn Fn(Square) -> bool) -> bool {
    walk(rule, grid, from, to, occupied, &mut |_| {}).is_ok()
}

/// The line from `from` to `to`, each square strictly between given to `visit` in order;
/// where and why it is stopped, if it is.
fn walk(
    rule: LosRule,
    grid: &Grid,
    from: Square,
    to: Square,
    occupied: &dyn Fn(Square) -> bool,
    visit: &mut dyn FnMut(Square),
) -> Result<(), (Square, &'static str)> {
    let (dx, dy) = (to.x - from.x, to.y - from.y);
    if dx.abs() == 1 && dy.abs() == 1 && !rule.diagonals {
        return Err((to, "diagonally adjacent squares never see each other"));
    }
    if grid.is_solid(from) || grid.is_solid(to) {
        return Err((
            if grid.is_solid(from) { from } else { to },
            "not a square one can stand on",
        ));
    }
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs() as i64, dy.abs() as i64);
    let (mut i, mut j) = (0i64, 0i64);
    let mut at = from;
    let blocked_here = |s: Square| s != to && (grid.is_solid(s) || occupied(s));
    while at != to {
        // The next vertical grid line is crossed at t = (2i+1)/(2ax), the next horizontal one
        // at t = (2j+1)/(2ay): compare without dividing.
        let step_x = (2 * i + 1) * ay;
        let step_y = (2 * j + 1) * ax;
        let next;
        if ay == 0 || (ax != 0 && step_x < step_y) {
            next = at.offset(sx, 0);
            if rule.blocks(grid.edge(at, next)) {
                return Err((next, "a wall or closed door is in the way"));
            }
            i += 1;
        } else if ax == 0 || step_y < step_x {
            next = at.offset(0, sy);
            if rule.blocks(grid.edge(at, next)) {
                return Err((next, "a wall or closed door is in the way"));
            }
            j += 1;
        } else {
            // Exactly through a corner: blocked only if both ways round are blocked.
            next = at.offset(sx, sy);
            let round = |side: Square| {
                !blocked_here(side) && !rule.blocks(grid.edge(at, side)) && !rule.blocks(grid.edge(side, next))
            };
            if !round(at.offset(sx, 0)) && !round(at.offset(0, sy)) {
                return Err((next, "both ways round the corner are blocked"));
            }
            i += 1;
            j += 1;
        }
        at = next;
        if at != to {
            if grid.is_solid(at) {
                return Err((at, "solid rock is in the way"));
            }
            if occupied(at) {
                return Err((at, "a piece is in the way"));
            }
            visit(at);
        }
    }
    Ok(())
}

/// Line of sight from any square of a footprint (a piece bigger than one square); the
/// footprint's own squares never block. Returns the first square that sees, if any.
pub fn from_footprint(
    grid: &Grid,
    footprint: &[Square],
    to: Square,
    occupied: &dyn Fn(Square) -> bool,
) -> Option<Square> {
    from_footprint_by(LosRule::default(), grid, footprint, to, occupied)
}

/// [`from_footprint`] under a game's declared rule.
pub fn from_footprint_by(
    rule: LosRule,
    grid: &Grid,
    footprint: &[Square],
    to: Square,
    occupied: &dyn Fn(Square) -> bool,
) -> Option<Square> {
    let blocks = |s: Square| !footprint.contains(&s) && occupied(s);
    footprint
        .iter()
        .copied()
        .find(|&f| f == to || clear_by(rule, grid, f, to, &blocks))
}
