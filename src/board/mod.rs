//! Square grids: board sections drawn in ASCII, missions that put sections together, and the
//! questions the automated enemy asks of them — line of sight ([`los`]), distances and moves
//! ([`moves`]), and area effects ([`area`]). Knows no game: marks are names a package gives.
//!
//! A [`Grid`] is solid squares, marks, and edges that carry walls and doors; a mission's grid
//! is its board sections joined by `place`. Facing pieces ([`facing`]) and open battlefields
//! in inches ([`field`]) live here too; [`render`] draws a grid.

pub mod area;
pub mod facing;
pub mod field;
pub mod los;
pub mod map;
pub mod moves;
pub mod render;

use crate::source::Span;
use crate::value::Value;
use indexmap::IndexMap;
use std::fmt;

/// What lies on the edge between two squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Open,
    Wall,
    Door { open: bool },
}

impl Edge {
    /// Walls and closed doors stop movement and sight.
    pub fn blocks(self) -> bool {
        matches!(self, Edge::Wall | Edge::Door { open: false })
    }

    /// Where two boards meet, an edge is open only if both sides leave it open.
    fn join(self, other: Edge) -> Edge {
        match (self, other) {
            (Edge::Wall, _) | (_, Edge::Wall) => Edge::Wall,
            (Edge::Door { open: a }, Edge::Door { open: b }) => Edge::Door { open: a && b },
            (Edge::Door { open }, Edge::Open) | (Edge::Open, Edge::Door { open }) => Edge::Door { open },
            (Edge::Open, Edge::Open) => Edge::Open,
        }
    }
}

/// A square, 0-based inside the engine; users see `x,y` from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    pub x: i32,
    pub y: i32,
}

impl Square {
    pub fn new(x: i32, y: i32) -> Self {
        Square { x, y }
    }

    /// Reads `x,y` counted from 1.
    pub fn parse(text: &str) -> Option<Square> {
        let (x, y) = text.trim().split_once(',')?;
        let (x, y): (i32, i32) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
        (x >= 1 && y >= 1).then(|| Square::new(x - 1, y - 1))
    }

    pub fn offset(self, dx: i32, dy: i32) -> Square {
        Square::new(self.x + dx, self.y + dy)
    }

    /// Steps needed on an 8-way grid with nothing in the way.
    pub fn chebyshev(self, other: Square) -> i32 {
        (self.x - other.x).abs().max((self.y - other.y).abs())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x + 1, self.y + 1)
    }
}

/// Squares travel as their `x,y` text in saves and JSON.
impl serde::Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Square::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a square")))
    }
}

/// The eight directions, straight ones first.
pub const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)];

/// A rectangular grid of squares with edges between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub width: i32,
    pub height: i32,
    solid: Vec<bool>,
    /// Index into `mark_names`, or `NO_MARK`.
    marks: Vec<u16>,
    pub mark_names: Vec<String>,
    /// Which placed board each square came from (index into `sections`), or `NO_MARK`.
    section: Vec<u16>,
    pub sections: Vec<String>,
    /// Per placed board, the least column and row of its squares (`assemble` works them out
    /// once: a section's corner is asked for at every blip placed).
    section_corners: Vec<(i32, i32)>,
    /// The edge above square (x, y): `(height + 1) × width`.
    h_edges: Vec<Edge>,
    /// The edge left of square (x, y): `height × (width + 1)`.
    v_edges: Vec<Edge>,
    /// Per square, bit `d` set when a step in `DIRECTIONS[d]` is allowed: derived from the
    /// above by `rebuild_steps` after every change, so the hot loops test one bit.
    steps: Vec<u8>,
    /// A diagonal step may not pass a door's edge, open or shut (a game's `doorways
    /// straight`): doorways are crossed by a straight step only.
    straight_doorways: bool,
}

const NO_MARK: u16 = u16::MAX;

// Sections and marks are indexed by u16: a mission has at most one board per square, and
// `MAX_GRID_SIDE` keeps its squares (so its boards) below `NO_MARK`; the index never wraps.
const _: () = assert!(crate::limits::MAX_GRID_SIDE * crate::limits::MAX_GRID_SIDE < NO_MARK as usize);

impl Grid {
    /// An empty grid: every square solid, every edge open.
    pub fn new(width: i32, height: i32) -> Self {
        let n = (width * height) as usize;
        Grid {
            width,
            height,
            solid: vec![true; n],
            marks: vec![NO_MARK; n],
            mark_names: Vec::new(),
            section: vec![NO_MARK; n],
            sections: Vec::new(),
            section_corners: Vec::new(),
            h_edges: vec![Edge::Open; ((height + 1) * width) as usize],
            v_edges: vec![Edge::Open; (height * (width + 1)) as usize],
            steps: vec![0; n],
            straight_doorways: false,
        }
    }

    /// Makes doorways crossed by straight steps only (a game's `doorways straight`), or not.
    pub fn set_straight_doorways(&mut self, straight: bool) {
        if self.straight_doorways != straight {
            self.straight_doorways = straight;
            self.rebuild_steps();
        }
    }

    /// Recomputes the step bits from squares and edges; every change to them ends here.
    pub(crate) fn rebuild_steps(&mut self) {
        for i in 0..self.len() {
            self.steps[i] = self.step_bits_slow(self.square(i));
        }
    }

    fn step_bits_slow(&self, s: Square) -> u8 {
        let mut bits = 0u8;
        for (d, &(dx, dy)) in DIRECTIONS.iter().enumerate() {
            if !self.is_solid(s) && self.can_step_slow(s, dx, dy) {
                bits |= 1 << d;
            }
        }
        bits
    }

    /// After one edge changed between `a` and `b`: only the steps of squares touching either
    /// can change (a diagonal step tests the edges around its corner).
    fn rebuild_steps_near(&mut self, a: Square, b: Square) {
        for centre in [a, b] {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let s = centre.offset(dx, dy);
                    if self.contains(s) {
                        let i = self.index(s);
                        self.steps[i] = self.step_bits_slow(s);
                    }
                }
            }
        }
    }

    /// The step bits of square `i` (bit `d` for `DIRECTIONS[d]`).
    pub fn step_bits(&self, i: usize) -> u8 {
        self.steps[i]
    }

    pub fn contains(&self, s: Square) -> bool {
        s.x >= 0 && s.y >= 0 && s.x < self.width && s.y < self.height
    }

    pub fn index(&self, s: Square) -> usize {
        (s.y * self.width + s.x) as usize
    }

    pub fn square(&self, index: usize) -> Square {
        Square::new(index as i32 % self.width, index as i32 / self.width)
    }

    pub fn len(&self) -> usize {
        self.solid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.solid.is_empty()
    }

    /// Outside the grid counts as solid.
    pub fn is_solid(&self, s: Square) -> bool {
        !self.contains(s) || self.solid[self.index(s)]
    }

    pub fn mark(&self, s: Square) -> Option<&str> {
        if !self.contains(s) {
            return None;
        }
        let m = self.marks[self.index(s)];
        (m != NO_MARK).then(|| self.mark_names[m as usize].as_str())
    }

    pub fn section_of(&self, s: Square) -> Option<&str> {
        if !self.contains(s) {
            return None;
        }
        let m = self.section[self.index(s)];
        (m != NO_MARK).then(|| self.sections[m as usize].as_str())
    }

    /// Every square carrying `mark`, in reading order.
    pub fn marked(&self, mark: &str) -> Vec<Square> {
        let Some(m) = self.mark_names.iter().position(|n| n == mark) else {
            return Vec::new();
        };
        (0..self.len())
            .filter(|&i| self.marks[i] == m as u16)
            .map(|i| self.square(i))
            .collect()
    }

    /// The edge between two orthogonally adjacent squares; outside the grid is a wall.
    pub fn edge(&self, a: Square, b: Square) -> Edge {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        match (dx, dy) {
            (1, 0) | (-1, 0) => {
                let (x, y) = (a.x.max(b.x), a.y);
                if y < 0 || y >= self.height || x < 0 || x > self.width {
                    return Edge::Wall;
                }
                self.v_edges[(y * (self.width + 1) + x) as usize]
            }
            (0, 1) | (0, -1) => {
                let (x, y) = (a.x, a.y.max(b.y));
                if x < 0 || x >= self.width || y < 0 || y > self.height {
                    return Edge::Wall;
                }
                self.h_edges[(y * self.width + x) as usize]
            }
            _ => Edge::Wall,
        }
    }

    fn edge_slot(&mut self, a: Square, b: Square) -> Option<&mut Edge> {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        match (dx, dy) {
            (1, 0) | (-1, 0) => {
                let (x, y) = (a.x.max(b.x), a.y);
                (y >= 0 && y < self.height && x >= 0 && x <= self.width)
                    .then(|| &mut self.v_edges[(y * (self.width + 1) + x) as usize])
            }
            (0, 1) | (0, -1) => {
                let (x, y) = (a.x, a.y.max(b.y));
                (x >= 0 && x < self.width && y >= 0 && y <= self.height)
                    .then(|| &mut self.h_edges[(y * self.width + x) as usize])
            }
            _ => None,
        }
    }

    /// Opens or closes a door; false if there is no door there.
    pub fn set_door(&mut self, a: Square, b: Square, open: bool) -> bool {
        match self.edge_slot(a, b) {
            Some(e @ Edge::Door { .. }) => {
                *e = Edge::Door { open };
                self.rebuild_steps_near(a, b);
                true
            }
            _ => false,
        }
    }

    /// Every door: the two squares it stands between (top/left first) and whether it is open.
    pub fn doors(&self) -> Vec<(Square, Square, bool)> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let s = Square::new(x, y);
                for (dx, dy) in [(1, 0), (0, 1)] {
                    if let Edge::Door { open } = self.edge(s, s.offset(dx, dy)) {
                        out.push((s, s.offset(dx, dy), open));
                    }
                }
            }
        }
        out
    }

    /// A straight step (one of dx, dy zero) from `a`: the target is a square and no wall or
    /// closed door is in the way.
    fn straight_open(&self, a: Square, dx: i32, dy: i32) -> bool {
        let b = a.offset(dx, dy);
        !self.is_solid(b) && !self.edge(a, b).blocks()
    }

    /// Whether a piece on `a` may step by (dx, dy). A diagonal step needs one of its two
    /// L-shaped ways round to be open (docs/boards.md, "Movement and distance").
    /// The directions a piece on `a` can step in, bit `d` for `DIRECTIONS[d]` (0 off the grid):
    /// what `can_step` answers, for all eight at once.
    pub fn step_mask(&self, a: Square) -> u8 {
        if self.contains(a) { self.steps[self.index(a)] } else { 0 }
    }

    pub fn can_step(&self, a: Square, dx: i32, dy: i32) -> bool {
        match DIRECTIONS.iter().position(|&d| d == (dx, dy)) {
            Some(d) if self.contains(a) => self.steps[self.index(a)] & (1 << d) != 0,
            _ => false,
        }
    }

    fn can_step_slow(&self, a: Square, dx: i32, dy: i32) -> bool {
        if dx == 0 || dy == 0 {
            return self.straight_open(a, dx, dy);
        }
        let b = a.offset(dx, dy);
        if self.is_solid(b) {
            return false;
        }
        let via_x = a.offset(dx, 0);
        let via_y = a.offset(0, dy);
        let passes = |from: Square, dx: i32, dy: i32| {
            self.straight_open(from, dx, dy)
                && !(self.straight_doorways && matches!(self.edge(from, from.offset(dx, dy)), Edge::Door { .. }))
        };
        (passes(a, dx, 0) && passes(via_x, 0, dy)) || (passes(a, 0, dy) && passes(via_y, dx, 0))
    }

    /// Puts boards together: each with its top-left square on its `Square`, joining edges where
    /// boards touch. Squares no board covers are solid.
    pub fn assemble(width: i32, height: i32, boards: &[(&Grid, Square, &str)]) -> Grid {
        let mut grid = Grid::new(width, height);
        for (board, at, section) in boards {
            grid.place(board, *at, section);
        }
        let mut corners = vec![(i32::MAX, i32::MAX); grid.sections.len()];
        for i in 0..grid.len() {
            if let Some(corner) = corners.get_mut(grid.section[i] as usize) {
                let s = grid.square(i);
                *corner = (corner.0.min(s.x), corner.1.min(s.y));
            }
        }
        grid.section_corners = corners;
        grid.rebuild_steps();
        grid
    }

    /// The least column and row of the squares of board section `name` (every board placed
    /// under that name), or `None` when it has none.
    pub fn section_corner(&self, name: &str) -> Option<(i32, i32)> {
        let corner = self
            .sections
            .iter()
            .zip(&self.section_corners)
            .filter(|(n, _)| n.as_str() == name)
            .fold((i32::MAX, i32::MAX), |(x, y), (_, c)| (x.min(c.0), y.min(c.1)));
        (corner != (i32::MAX, i32::MAX)).then_some(corner)
    }

    /// Places one board (see `assemble`); the step bits are rebuilt by the caller.
    fn place(&mut self, board: &Grid, at: Square, section: &str) {
        let sid = self.sections.len() as u16;
        self.sections.push(section.to_string());
        for y in 0..board.height {
            for x in 0..board.width {
                let from = Square::new(x, y);
                let to = at.offset(x, y);
                if !self.contains(to) {
                    continue;
                }
                let i = self.index(to);
                self.solid[i] = board.is_solid(from);
                self.section[i] = sid;
                self.marks[i] = match board.mark(from) {
                    Some(name) => self.mark_id(name),
                    None => NO_MARK,
                };
            }
        }
        // Edges: the right and bottom edge of every square, plus the left / top border.
        for y in 0..board.height {
            for x in -1..board.width {
                let (a, b) = (Square::new(x, y), Square::new(x + 1, y));
                let e = board.edge(a, b);
                let (ga, gb) = (at.offset(a.x, a.y), at.offset(b.x, b.y));
                let first_touch = x == -1 || x == board.width - 1;
                if let Some(slot) = self.edge_slot(ga, gb) {
                    *slot = if first_touch { slot.join(e) } else { e };
                }
            }
        }
        for y in -1..board.height {
            for x in 0..board.width {
                let (a, b) = (Square::new(x, y), Square::new(x, y + 1));
                let e = board.edge(a, b);
                let (ga, gb) = (at.offset(a.x, a.y), at.offset(b.x, b.y));
                let border = y == -1 || y == board.height - 1;
                if let Some(slot) = self.edge_slot(ga, gb) {
                    *slot = if border { slot.join(e) } else { e };
                }
            }
        }
    }

    fn mark_id(&mut self, name: &str) -> u16 {
        match self.mark_names.iter().position(|n| n == name) {
            Some(i) => i as u16,
            None => {
                self.mark_names.push(name.to_string());
                (self.mark_names.len() - 1) as u16
            }
        }
    }
}

/// A board section from a package, as drawn.
#[derive(Debug, Clone)]
pub struct Board {
    pub id: String,
    pub label: Option<String>,
    pub grid: Grid,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// A piece placed by a mission, with its footprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub id: String,
    pub at: Square,
    pub width: i32,
    pub height: i32,
}

impl Piece {
    pub fn squares(&self) -> Vec<Square> {
        let mut out = Vec::new();
        for dy in 0..self.height {
            for dx in 0..self.width {
                out.push(self.at.offset(dx, dy));
            }
        }
        out
    }
}

/// A mission: boards put together into one grid, pieces, and data for scripts.
#[derive(Debug, Clone)]
pub struct Mission {
    pub id: String,
    pub label: Option<String>,
    pub grid: Grid,
    pub pieces: Vec<Piece>,
    pub fields: IndexMap<String, Value>,
    pub text: Option<String>,
    pub source: Option<String>,
    pub span: Span,
}

#[cfg(test)]
mod tests {
    /// Opening or closing one door updates the step bits near it only; the result must be
    /// what a rebuild of the whole grid gives, door after door.
    #[test]
    fn a_door_updates_the_same_steps_as_a_whole_rebuild() {
        // Every mission of every bundled package (the engine names none of them).
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets");
        let mut missions = Vec::new();
        for entry in std::fs::read_dir(root).expect("rulesets/ is there") {
            let dir = entry.expect("a folder entry").path();
            if dir.join("package.rules").is_file() {
                let ruleset = crate::load(&dir.display().to_string())
                    .expect("the bundled package loads")
                    .ruleset;
                missions.extend(ruleset.missions.into_values());
            }
        }
        assert!(
            missions.iter().any(|m| !m.grid.doors().is_empty()),
            "no mission has a door"
        );
        for mission in &missions {
            let mut grid = mission.grid.clone();
            for (a, b, open) in mission.grid.doors() {
                for now in [!open, open, !open] {
                    grid.set_door(a, b, now);
                    let mut whole = grid.clone();
                    whole.rebuild_steps();
                    assert_eq!(grid.steps, whole.steps, "door {a}-{b} set to {now}");
                }
            }
        }
    }
}
