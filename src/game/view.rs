//! The board during a game: the mission grid with its doors as they are now, who stands
//! where, and the questions behaviours ask of it (distances, sight, adjacency, lines, blasts,
//! where a piece may move). All in Rust: a script makes one call per question.
//!
//! Every sight question (to shoot, to reveal) goes through [`View::line`], the one test under
//! the game's declared `SightRule`: arc, diagonals, doors, which models and tokens block. A
//! move is `board::moves::Reach` walked over [`View::step_grid`] with `may_step` as its step
//! test (`may_pass` alone for one square) and ended by `Reach::choose` with `may_end`, the
//! footprint's nearest square as its score: no search of its own. `step_grid` and `may_pass`
//! are also the passable test of the priced plans in `actions.rs`.
//!
//! [`OpenBoard`] is the grid with every door open and the distance fields asked of it. They
//! depend only on their sources and how a piece steps, so one mission's fields serve every
//! game a host plays; they are kept in two generations of at most 4 MB each, a field found in
//! the old one moving to the new, so a long `sim`'s memory stays flat.

use super::state::{Piece, footprint};
use crate::board::moves::{self, Steps, UNREACHABLE};
use crate::board::{DIRECTIONS, Edge, Grid, Square, area, los};
use crate::dice::Rng;
use crate::ruleset::{DoorRules, Purpose, SightRule};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most bytes of distance fields one generation of an [`OpenBoard`]'s cache keeps (it
/// keeps two): 4 MB holds every single-square field of a 32 × 32 board twice over.
const MAX_CACHED_FIELD_BYTES: usize = 4 << 20;

/// The mission grid with every door open, and the distance fields asked of it.
pub struct OpenBoard {
    pub grid: Grid,
    fields: Mutex<FieldCache>,
}

/// Distance fields by their sources, in two generations. A host plays game after game on one
/// board, and most fields (from where one game's pieces stood) never come back; those that do
/// (an objective, the claws) are asked in every game. A field found in the old generation
/// moves to the new one; when the new one is full it becomes the old one and the oldest is
/// dropped. So a long `sim` keeps its memory flat (at most two generations) and keeps the
/// fields it reuses (a cache that stopped filling once full kept the first games' fields and
/// nothing after).
#[derive(Default)]
struct FieldCache {
    new: HashMap<(bool, Vec<Square>), Arc<[u16]>>,
    old: HashMap<(bool, Vec<Square>), Arc<[u16]>>,
    new_bytes: usize,
}

impl FieldCache {
    fn get(&mut self, key: &(bool, Vec<Square>)) -> Option<Arc<[u16]>> {
        if let Some(field) = self.new.get(key) {
            return Some(field.clone());
        }
        let (key, field) = self.old.remove_entry(key)?;
        self.insert(key, field.clone());
        Some(field)
    }

    fn insert(&mut self, key: (bool, Vec<Square>), field: Arc<[u16]>) {
        let bytes = field.len() * 2 + key.1.len() * 8;
        if bytes > MAX_CACHED_FIELD_BYTES {
            return;
        }
        if self.new_bytes + bytes > MAX_CACHED_FIELD_BYTES {
            self.old = std::mem::take(&mut self.new);
            self.new_bytes = 0;
        }
        self.new_bytes += bytes;
        self.new.insert(key, field);
    }
}

impl OpenBoard {
    /// The mission grid with every door open.
    pub fn new(grid: &Grid) -> OpenBoard {
        let mut open = grid.clone();
        for (a, b, is_open) in grid.doors() {
            if !is_open {
                open.set_door(a, b, true);
            }
        }
        OpenBoard {
            grid: open,
            fields: Mutex::new(FieldCache::default()),
        }
    }

    /// Steps to the nearest of `sources` from every square, for a piece that steps `steps`;
    /// the same numbers as [`moves::distance_field`], kept in the cache for the next asker.
    pub fn field(&self, sources: &[Square], steps: Steps) -> Arc<[u16]> {
        let key = (matches!(steps, Steps::Eight), sources.to_vec());
        let mut cache = self.fields.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(field) = cache.get(&key) {
            return field;
        }
        let field: Arc<[u16]> = moves::distance_field(&self.grid, sources, steps).into();
        cache.insert(key, field.clone());
        field
    }
}

/// Which way a move goes.
#[derive(Clone, Copy)]
pub enum Goal<'a> {
    /// Nearer to the squares of this distance field.
    Towards(&'a [u16]),
    /// Farther from them.
    Away(&'a [u16]),
    /// With its top-left square nearer to the squares of this distance field: a piece bigger
    /// than a square walks until it stands on the square chosen, not as soon as its base
    /// covers it.
    Onto(&'a [u16]),
}

#[derive(Clone)]
pub struct View {
    /// Doors as they are now.
    pub grid: Grid,
    /// Every door open: distances for choosing where to go count doors as passable.
    open: Arc<OpenBoard>,
    /// Per square: index + 1 of the piece standing there, 0 when empty.
    occ: Vec<u32>,
    /// How the game's doors open and are crossed.
    pub doors: DoorRules,
    /// The game's line of sight (`sight …` in the game item): the one rule of every sight
    /// question below.
    pub sight: SightRule,
    /// Pieces never step through their own side's (`friends block`).
    pub friends_block: bool,
}

/// Whether square `to` lies in the front quarter of `p` (ahead of it, no farther to a side
/// than ahead); always for a piece with no facing.
pub fn in_arc(p: &Piece, to: Square) -> bool {
    let (Some(f), Some(at)) = (p.facing, p.at) else {
        return true;
    };
    let (fx, fy) = crate::board::facing::FACINGS[usize::from(f) % 4];
    p.squares().iter().any(|s| {
        let (dx, dy) = (to.x - s.x, to.y - s.y);
        let along = dx * fx + dy * fy;
        let across = (dx * fy - dy * fx).abs();
        along >= 1 && across <= along
    }) || at == to
}

/// The best area shot found.
pub struct Shot {
    pub square: Square,
    pub dx: i32,
    pub dy: i32,
    pub hits: Vec<usize>,
    pub own: Vec<usize>,
}

impl View {
    pub fn new(grid: Grid, open: Arc<OpenBoard>, doors: DoorRules) -> View {
        let occ = vec![0; grid.len()];
        View {
            grid,
            open,
            occ,
            doors,
            sight: SightRule::default(),
            friends_block: false,
        }
    }

    /// The board with every door open (what planning counts doors as).
    pub fn open_grid(&self) -> &Grid {
        &self.open.grid
    }

    /// Whether `p` may see square `to` at all as its facing goes (`sight front-arc`).
    pub fn faces(&self, p: &Piece, to: Square) -> bool {
        !self.sight.front_arc || in_arc(p, to)
    }

    /// The one line-of-sight test of a game: whether a looker whose squares are `from` sees
    /// square `to` for `purpose`, through `grid` (the doors as they are, or as a question
    /// supposes them), under the game's declared rule — diagonal neighbours, closed doors, and
    /// the models standing on the line where the rule says they block (pieces `passes` lets
    /// through never do: the looker, its target, a mover not yet where it is asked about).
    /// The front arc is the caller's, who knows how the looker faces ([`Self::faces`]).
    pub fn line(
        &self,
        grid: &Grid,
        pieces: &[Piece],
        from: &[Square],
        to: Square,
        purpose: Purpose,
        passes: &dyn Fn(usize) -> bool,
    ) -> bool {
        let models = self.sight.models_block(purpose);
        let tokens = !self.sight.tokens_pass;
        let blocks = |s: Square| {
            models
                && s != to
                && self
                    .occupant(s)
                    .is_some_and(|o| !passes(o) && (tokens || pieces[o].hidden.is_none()))
        };
        los::from_footprint_by(self.sight.los, grid, from, to, &blocks).is_some()
    }

    pub fn rebuild(&mut self, pieces: &[Piece]) {
        self.occ.iter_mut().for_each(|o| *o = 0);
        for (i, p) in pieces.iter().enumerate().filter(|(_, p)| p.on_board()) {
            for s in p.squares() {
                if self.grid.contains(s) {
                    let at = self.grid.index(s);
                    self.occ[at] = i as u32 + 1;
                }
            }
        }
    }

    /// Whether the occupancy kept step by step agrees with one built afresh (for tests).
    pub fn occupancy_is_fresh(&self, pieces: &[Piece]) -> bool {
        let mut fresh = View::new(self.grid.clone(), self.open.clone(), self.doors);
        fresh.sight = self.sight;
        fresh.friends_block = self.friends_block;
        fresh.rebuild(pieces);
        fresh.occ == self.occ
    }

    /// Piece `i` stepped from `from` to its current squares: only those squares change.
    pub fn moved(&mut self, pieces: &[Piece], i: usize, from: Square) {
        let now = pieces[i].squares();
        for s in footprint(Some(from), pieces[i].size) {
            if now.contains(&s) || !self.grid.contains(s) {
                continue;
            }
            // A piece passing through a friend's square leaves the friend there.
            let other = pieces
                .iter()
                .enumerate()
                .find(|(j, p)| *j != i && p.on_board() && p.squares().contains(&s))
                .map_or(0, |(j, _)| j as u32 + 1);
            let at = self.grid.index(s);
            self.occ[at] = other;
        }
        for s in now {
            if self.grid.contains(s) {
                let at = self.grid.index(s);
                self.occ[at] = i as u32 + 1;
            }
        }
    }

    pub fn occupant(&self, s: Square) -> Option<usize> {
        if !self.grid.contains(s) {
            return None;
        }
        match self.occ[self.grid.index(s)] {
            0 => None,
            n => Some(n as usize - 1),
        }
    }

    pub fn square_free(&self, s: Square) -> bool {
        self.grid.contains(s) && !self.grid.is_solid(s) && self.occupant(s).is_none()
    }

    fn steps(p: &Piece) -> Steps {
        if p.diagonal { Steps::Eight } else { Steps::Four }
    }

    /// Steps from the squares of `p` to every square (doors passable, pieces ignored).
    pub fn field_from(&self, p: &Piece) -> Arc<[u16]> {
        self.open.field(&p.squares(), Self::steps(p))
    }

    /// Steps to any square of `to` from every square, for a piece that steps like `mover`.
    pub fn field_to(&self, mover: &Piece, to: &[Square]) -> Arc<[u16]> {
        self.open.field(to, Self::steps(mover))
    }

    fn nearest_in(&self, field: &[u16], p: &Piece) -> u16 {
        p.squares()
            .iter()
            .filter(|s| self.grid.contains(**s))
            .map(|&s| field[self.grid.index(s)])
            .min()
            .unwrap_or(UNREACHABLE)
    }

    /// The steps a distance field gives the nearest square of `p`; `None` if unreachable.
    pub fn steps_in(&self, field: &[u16], p: &Piece) -> Option<u16> {
        let d = self.nearest_in(field, p);
        (d != UNREACHABLE).then_some(d)
    }

    /// Steps between two pieces, `None` if no way leads from one to the other.
    pub fn distance(&self, pieces: &[Piece], a: usize, b: usize) -> Option<u16> {
        let field = self.field_from(&pieces[a]);
        let d = self.nearest_in(&field, &pieces[b]);
        (d != UNREACHABLE).then_some(d)
    }

    /// Pieces of `side` on the board other than `a`, nearest first (placement order on ties).
    pub fn by_distance(&self, pieces: &[Piece], a: usize, side: &str) -> Vec<(usize, u16)> {
        let field = self.field_from(&pieces[a]);
        let mut out: Vec<(usize, u16)> = pieces
            .iter()
            .enumerate()
            .filter(|(i, p)| *i != a && p.on_board() && (side.is_empty() || p.side == side))
            .map(|(i, p)| (i, self.nearest_in(&field, p)))
            .filter(|(_, d)| *d != UNREACHABLE)
            .collect();
        out.sort_by_key(|&(i, d)| (d, i));
        out
    }

    /// Whether `a` can see `b`, for `purpose` (to shoot, or to see it: a reveal), by
    /// [`Self::line`] and `a`'s arc.
    pub fn sees(&self, pieces: &[Piece], a: usize, b: usize, purpose: Purpose) -> bool {
        let (from, to) = (pieces[a].squares(), pieces[b].squares());
        if from.is_empty() || to.is_empty() {
            return false;
        }
        let passes = |o: usize| o == a || o == b;
        to.iter()
            .any(|&t| self.faces(&pieces[a], t) && self.line(&self.grid, pieces, &from, t, purpose, &passes))
    }

    /// Whether a piece on `from` can see square `to` to shoot at it.
    pub fn sees_square(&self, pieces: &[Piece], a: usize, to: Square) -> bool {
        let from = pieces[a].squares();
        self.faces(&pieces[a], to) && self.line(&self.grid, pieces, &from, to, Purpose::Shoot, &|o| o == a)
    }

    /// Every square piece `a` can see (as [`Self::sees_square`] judges each), for a picture
    /// of its sight. One line of sight per open square of the map: a question asked at the
    /// table, not in a decision loop.
    pub fn squares_seen(&self, pieces: &[Piece], a: usize) -> std::collections::BTreeSet<Square> {
        let own = pieces[a].squares();
        (0..self.grid.height)
            .flat_map(|y| (0..self.grid.width).map(move |x| Square::new(x, y)))
            .filter(|&s| !self.grid.is_solid(s) && !own.contains(&s) && self.sees_square(pieces, a, s))
            .collect()
    }

    /// Pieces of `side` that `a` can see to shoot at, nearest first.
    pub fn visible(&self, pieces: &[Piece], a: usize, side: &str) -> Vec<(usize, u16)> {
        self.by_distance(pieces, a, side)
            .into_iter()
            .filter(|&(b, _)| self.sees(pieces, a, b, Purpose::Shoot))
            .collect()
    }

    /// Pieces of `side` on the four squares beside `a`, with no wall or closed door between.
    pub fn adjacent(&self, pieces: &[Piece], a: usize, side: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for s in pieces[a].squares() {
            for (dx, dy) in &DIRECTIONS[..4] {
                let n = s.offset(*dx, *dy);
                if let Some(o) = self.occupant(n)
                    && o != a
                    && !out.contains(&o)
                    && pieces[o].side == side
                    && !self.grid.edge(s, n).blocks()
                {
                    out.push(o);
                }
            }
        }
        out
    }

    /// True when no piece of another side can be reached from `a` without opening a door.
    pub fn shut_in(&self, pieces: &[Piece], a: usize) -> bool {
        let field = moves::distance_field(&self.grid, &pieces[a].squares(), Steps::Eight);
        !pieces
            .iter()
            .any(|p| p.on_board() && p.side != pieces[a].side && self.nearest_in(&field, p) != UNREACHABLE)
    }

    /// Whether no piece of `side` on the board can see square `s` (the sight that reveals:
    /// [`Self::line`] for `Purpose::Spot`, each watcher's arc).
    pub fn unseen(&self, pieces: &[Piece], s: Square, side: &str) -> bool {
        self.unseen_by(pieces, s, side, None)
    }

    /// The same for a piece `mover` that would stand on `s`: where models block sight, it does
    /// not hide the square it is stepping to from where it stands now.
    pub fn unseen_by(&self, pieces: &[Piece], s: Square, side: &str, mover: Option<usize>) -> bool {
        !pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.on_board() && p.side == side)
            .any(|(w, p)| {
                let from = p.squares();
                self.faces(p, s)
                    && self.line(&self.grid, pieces, &from, s, Purpose::Spot, &|o| {
                        o == w || Some(o) == mover
                    })
            })
    }

    /// The pieces along each of the 8 straight lines from `a`, nearest first.
    pub fn lines(&self, pieces: &[Piece], a: usize) -> Vec<(i32, i32, Vec<usize>)> {
        let Some(from) = pieces[a].at else { return Vec::new() };
        DIRECTIONS
            .iter()
            .map(|&(dx, dy)| {
                let mut hit = Vec::new();
                for s in area::line(&self.grid, from, dx, dy, usize::MAX) {
                    if let Some(o) = self.occupant(s).filter(|o| *o != a && !hit.contains(o)) {
                        hit.push(o);
                    }
                }
                (dx, dy, hit)
            })
            .collect()
    }

    /// The piece on the square, and the other pieces a blast there reaches.
    pub fn blast_at(&self, s: Square) -> (Option<usize>, Vec<usize>) {
        let centre = self.occupant(s);
        let mut around = Vec::new();
        for n in area::blast(&self.grid, s).into_iter().skip(1) {
            if let Some(o) = self.occupant(n).filter(|o| Some(*o) != centre && !around.contains(o)) {
                around.push(o);
            }
        }
        (centre, around)
    }

    /// Of the squares `a` can see on and around `side`'s visible pieces, the one whose blast
    /// hits most of them without catching `a` (then one with such a piece on it, which takes
    /// the whole roll, then fewest of `a`'s side, then nearest).
    pub fn best_blast(&self, pieces: &[Piece], a: usize, side: &str) -> Option<Shot> {
        self.best_blast_sparing(pieces, a, side, false)
    }

    /// The same, and with `spare_own` only among the blasts that catch none of `a`'s side.
    pub fn best_blast_sparing(&self, pieces: &[Piece], a: usize, side: &str, spare_own: bool) -> Option<Shot> {
        let from = pieces[a].at?;
        let mut candidates: Vec<Square> = Vec::new();
        for (v, _) in self.visible(pieces, a, side) {
            for s in pieces[v].squares() {
                for n in area::blast(&self.grid, s) {
                    if !candidates.contains(&n) {
                        candidates.push(n);
                    }
                }
            }
        }
        candidates.sort_by_key(|s| (s.y, s.x));
        let mut best: Option<(Shot, (usize, bool, usize, i32))> = None;
        for s in candidates {
            if !self.sees_square(pieces, a, s) {
                continue;
            }
            let (centre, around) = self.blast_at(s);
            let all: Vec<usize> = centre.into_iter().chain(around).collect();
            if all.contains(&a) {
                continue;
            }
            let hits: Vec<usize> = all.iter().copied().filter(|&o| pieces[o].side == side).collect();
            let own: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&o| pieces[o].side == pieces[a].side)
                .collect();
            if hits.is_empty() || (spare_own && !own.is_empty()) {
                continue;
            }
            // Bigger is better: most hits, a target on the square itself, fewest own, nearest.
            let on_target = centre.is_some_and(|c| pieces[c].side == side);
            let key = (hits.len(), on_target, usize::MAX - own.len(), -from.chebyshev(s));
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((
                    Shot {
                        square: s,
                        dx: 0,
                        dy: 0,
                        hits,
                        own,
                    },
                    key,
                ));
            }
        }
        best.map(|(shot, _)| shot)
    }

    /// The straight line from `a` that hits most of `side` (then fewest of its own side).
    pub fn best_line(&self, pieces: &[Piece], a: usize, side: &str) -> Option<Shot> {
        self.best_line_sparing(pieces, a, side, false)
    }

    /// The same, and with `spare_own` only among the lines that catch none of `a`'s side.
    pub fn best_line_sparing(&self, pieces: &[Piece], a: usize, side: &str, spare_own: bool) -> Option<Shot> {
        let from = pieces[a].at?;
        let mut best: Option<(Shot, (usize, usize))> = None;
        for (dx, dy, on_line) in self.lines(pieces, a) {
            let hits: Vec<usize> = on_line.iter().copied().filter(|&o| pieces[o].side == side).collect();
            let own: Vec<usize> = on_line
                .iter()
                .copied()
                .filter(|&o| pieces[o].side == pieces[a].side)
                .collect();
            if hits.is_empty() || (spare_own && !own.is_empty()) {
                continue;
            }
            let key = (hits.len(), usize::MAX - own.len());
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((
                    Shot {
                        square: from.offset(dx, dy),
                        dx,
                        dy,
                        hits,
                        own,
                    },
                    key,
                ));
            }
        }
        best.map(|(shot, _)| shot)
    }

    /// Whether piece `a` may step its footprint by (dx, dy) onto squares it may pass. Where
    /// a step opens the doors it meets, closed doors count as open; where doors open by an
    /// action, a closed one stops the step.
    fn may_step(&self, pieces: &[Piece], a: usize, at: Square, dx: i32, dy: i32) -> bool {
        let grid = self.step_grid();
        footprint(Some(at), pieces[a].size)
            .iter()
            .all(|&s| grid.can_step(s, dx, dy) && self.may_pass(pieces, a, s.offset(dx, dy)))
    }

    /// The grid whose walls and doors a step meets: every door open where a step opens the
    /// doors it meets, the doors as they are where they open by an action.
    pub fn step_grid(&self) -> &Grid {
        if self.doors.open_on_step {
            &self.open.grid
        } else {
            &self.grid
        }
    }

    /// Whether piece `a` may pass over square `s` as far as pieces go: nobody there, itself,
    /// or its own side (unless `friends block`).
    #[inline]
    pub fn may_pass(&self, pieces: &[Piece], a: usize, s: Square) -> bool {
        self.occupant(s)
            .is_none_or(|o| o == a || (!self.friends_block && pieces[o].side == pieces[a].side))
    }

    /// Whether piece `a` may end its move with its top-left square on `at`.
    pub fn may_end(&self, pieces: &[Piece], a: usize, at: Square) -> bool {
        let squares = footprint(Some(at), pieces[a].size);
        squares
            .iter()
            .all(|&s| self.grid.contains(s) && !self.grid.is_solid(s) && self.occupant(s).is_none_or(|o| o == a))
            && (squares.len() == 1 || !moves::footprint_split(&self.grid, &squares))
    }

    /// Where piece `a`, growing to a `size` × `size` footprint with no wall or door across
    /// it, can stand so that its
    /// footprint still covers its square `at` (a revealed token that hid a larger model):
    /// the candidate top-left squares nearest the token first, in reading order.
    pub fn grown_at(&self, a: usize, at: Square, size: i32) -> Option<Square> {
        (0..size)
            .flat_map(|dy| (0..size).map(move |dx| at.offset(-dx, -dy)))
            .find(|&top_left| {
                let squares = footprint(Some(top_left), size);
                squares.iter().all(|&s| {
                    self.grid.contains(s) && !self.grid.is_solid(s) && self.occupant(s).is_none_or(|o| o == a)
                }) && !moves::footprint_split(&self.grid, &squares)
            })
    }

    /// Where piece `a` can get within `max` steps: the one breadth-first walk of
    /// [`moves::Reach`], through the walls of the grid its steps see, each step one
    /// [`View::may_step`] lets (its footprint, the pieces in its way).
    fn reach(&self, pieces: &[Piece], a: usize, max: u16) -> moves::Reach {
        let start = pieces[a].at.expect("moving pieces are on the board");
        let steps = if pieces[a].diagonal { Steps::Eight } else { Steps::Four };
        let single = pieces[a].size == 1;
        moves::Reach::new(self.step_grid(), start, steps, max, |i, d| {
            let (dx, dy) = DIRECTIONS[d];
            let at = self.grid.square(i);
            // One square: the walk asked the walls already, only who stands there is left.
            if single {
                self.may_pass(pieces, a, at.offset(dx, dy))
            } else {
                self.may_step(pieces, a, at, dx, dy)
            }
        })
    }

    /// Where piece `a` may end a move of up to `max` steps, with the steps each takes, in the
    /// order a breadth-first walk finds them (its own square first).
    pub fn reachable(&self, pieces: &[Piece], a: usize, max: u16) -> Vec<(Square, u16)> {
        let reach = self.reach(pieces, a, max);
        let start = reach.start();
        reach
            .order
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| i == start || self.may_end(pieces, a, self.grid.square(i)))
            .map(|i| (self.grid.square(i), reach.dist[i]))
            .collect()
    }

    /// Of the squares `a` can reach in `max` steps, the one from which it sees (to shoot) the
    /// most pieces of `side`; ties go to fewer steps, then reading order. `None` when no square
    /// sees any.
    pub fn vantage(&self, pieces: &[Piece], a: usize, max: u16, side: &str) -> Option<(Square, u16, Vec<usize>)> {
        let targets: Vec<usize> = (0..pieces.len())
            .filter(|&t| pieces[t].on_board() && pieces[t].side == side && pieces[t].hidden.is_none())
            .collect();
        let mut best: Option<(Square, u16, Vec<usize>)> = None;
        for (at, steps) in self.reachable(pieces, a, max) {
            let from = footprint(Some(at), pieces[a].size);
            let seen: Vec<usize> = targets
                .iter()
                .copied()
                .filter(|&t| {
                    pieces[t]
                        .squares()
                        .iter()
                        .any(|&ts| self.line(&self.grid, pieces, &from, ts, Purpose::Shoot, &|o| o == a))
                })
                .collect();
            if seen.is_empty() {
                continue;
            }
            let better = match &best {
                None => true,
                Some((b_at, b_steps, b_seen)) => {
                    (seen.len(), std::cmp::Reverse(steps), std::cmp::Reverse((at.y, at.x)))
                        > (
                            b_seen.len(),
                            std::cmp::Reverse(*b_steps),
                            std::cmp::Reverse((b_at.y, b_at.x)),
                        )
                }
            };
            if better {
                best = Some((at, steps, seen));
            }
        }
        best
    }

    /// The squares piece `a` walks (its top-left square after each step) to get as near to
    /// (or far from) the goal as `max` steps allow; among equally good ends, the fewest steps,
    /// then the RNG picks in reading order. `None` when it cannot do better than stay.
    pub fn plan(&self, pieces: &[Piece], a: usize, goal: Goal, max: u16, rng: &mut Rng) -> Option<Vec<Square>> {
        let size = pieces[a].size;
        let field = match goal {
            Goal::Towards(f) | Goal::Away(f) | Goal::Onto(f) => f,
        };
        // A footprint is as near as its nearest square (`Onto`: its top-left square).
        let score = |i: usize| -> Option<i32> {
            let size = if matches!(goal, Goal::Onto(_)) { 1 } else { size };
            let d = footprint(Some(self.grid.square(i)), size)
                .iter()
                .filter(|s| self.grid.contains(**s))
                .map(|&s| field[self.grid.index(s)])
                .min()
                .filter(|d| *d != UNREACHABLE)?;
            Some(match goal {
                Goal::Towards(_) | Goal::Onto(_) => d as i32,
                Goal::Away(_) => -(d as i32),
            })
        };
        let reach = self.reach(pieces, a, max);
        // From where no way leads to the goal, any square that has one is better.
        let here = score(reach.start());
        reach.choose(
            &self.grid,
            here,
            score,
            |i| self.may_end(pieces, a, self.grid.square(i)),
            rng,
        )
    }

    /// Whether `a` may take the step from `from` to `to` (one square, 8 or 4 ways as it
    /// moves, doors passable); the reason when it may not.
    pub fn check_step(&self, pieces: &[Piece], a: usize, from: Square, to: Square) -> Result<(), String> {
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        if dx.abs() > 1 || dy.abs() > 1 || (dx, dy) == (0, 0) {
            return Err(format!("{to} is not next to {from}"));
        }
        if dx != 0 && dy != 0 && !pieces[a].diagonal {
            return Err(format!("{} may not move diagonally ({from} to {to})", pieces[a].id));
        }
        if !self.grid.contains(to) || self.grid.is_solid(to) {
            return Err(format!("{to} is not a square of the board"));
        }
        if !self.may_step(pieces, a, from, dx, dy) {
            let blocker = footprint(Some(to), pieces[a].size)
                .into_iter()
                .find_map(|s| self.occupant(s).filter(|&o| o != a && pieces[o].side != pieces[a].side));
            return Err(match blocker {
                Some(o) => format!(
                    "{} stands on {to}: a piece may not pass through the other side",
                    pieces[o].id
                ),
                None => format!("a wall is in the way from {from} to {to}"),
            });
        }
        Ok(())
    }

    /// The closed doors a footprint must open to step by (dx, dy) from `at`.
    pub fn doors_on_step(&self, at: Square, size: i32, dx: i32, dy: i32) -> Vec<(Square, Square)> {
        let mut doors = Vec::new();
        self.each_door_on_step(at, size, dx, dy, &mut |a, b| {
            if !doors.contains(&(a, b)) {
                doors.push((a, b));
            }
            true
        });
        doors
    }

    /// Whether a footprint must open a closed door to step by (dx, dy) from `at`: what
    /// [`View::doors_on_step`] answers by being non-empty, without making the list (a plan's
    /// search asks it at every step it weighs).
    pub fn door_on_step(&self, at: Square, size: i32, dx: i32, dy: i32) -> bool {
        !self.each_door_on_step(at, size, dx, dy, &mut |_, _| false)
    }

    /// Calls `door` with each closed door (its two squares) a footprint meets stepping by
    /// (dx, dy) from `at`, in the order [`View::doors_on_step`] lists them, until it answers
    /// false; false when it did.
    fn each_door_on_step(
        &self,
        at: Square,
        size: i32,
        dx: i32,
        dy: i32,
        door: &mut dyn FnMut(Square, Square) -> bool,
    ) -> bool {
        let mut add = |a: Square, b: Square| self.grid.edge(a, b) != (Edge::Door { open: false }) || door(a, b);
        for s in footprint(Some(at), size) {
            if self.grid.can_step(s, dx, dy) {
                continue;
            }
            if dx == 0 || dy == 0 {
                if !add(s, s.offset(dx, dy)) {
                    return false;
                }
                continue;
            }
            // A diagonal step: go round by whichever L-shaped way is open with doors opened.
            let (via_x, via_y) = (s.offset(dx, 0), s.offset(0, dy));
            let (first, corner) = if self.open.grid.can_step(s, dx, 0) && self.open.grid.can_step(via_x, 0, dy) {
                (via_x, via_x.offset(0, dy))
            } else {
                (via_y, via_y.offset(dx, 0))
            };
            if !add(s, first) || !add(first, corner) {
                return false;
            }
        }
        true
    }
}
