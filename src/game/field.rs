//! Pieces on an open battlefield measured in inches (`board::field`): where a piece stands
//! (its centre, [`Piece::point`]), how far apart two pieces are (base to base), who is
//! nearest, what a piece sees, and where a move of so many inches along the shortest route
//! round impassable terrain ends. The questions behind `game.by_range`, `game.nearest_unit`,
//! `game.towards` and the other battlefield calls of the game API (docs/games.md,
//! "Pieces on a battlefield"); the actions that change a point are in `api/field.rs`.
//!
//! A piece's point is its centre, rounded to 0.01"; distances run base edge to base edge,
//! from the stats record's `base`; ties for nearest go to the dice. A move may stop short of
//! a target or of whatever it meets first on the way ([`Game::towards_halting`]);
//! [`Game::route_gap`] is how far that route is to base contact; [`Game::free_spot`] is the
//! nearest free spot round a point (ties by the dice). [`Game::battlefield`] is the
//! package's battlefield, or, once zones were added during play (`zones.rs`), it with them,
//! built once into the state's `field_cache` (never saved).
//!
//! A unit is its models ([`Piece::models`], offsets from the point, so a move keeps the
//! formation): laid out in formation the first time a unit whose stats give `models` and
//! `model-base` stands (`formation`, the action `Models`); distances run closest model to
//! closest model (`closest_models`, which `gap` and the moves towards a piece use: the
//! closest model walks, `towards_lead`); casualties come off closest first
//! (`remove_models`); a blast hits the models under it (`models_under`); `coherent` checks
//! coherency and `set_models` takes a player's models by points.
//!
//! Models with a record of their own ([`Piece::model_records`], beside the offsets): a
//! stats record's `own-models` names records of the same kind, each one of its models with
//! its own profile (a character inside a squad). They take the first slots of the formation,
//! are removed last (`remove_models`), keep their record through every `Models` action, and
//! `set_models` says which point each stands at; what the profile does is the package's.

use super::pieces::NewFields;
use super::state::{Action, ON_BOARD};
use super::{Game, TriggerArgs, TriggerValue};
use crate::board::field::{Battlefield, Point, length};
use crate::dice::Rng;
use crate::limits::MAX_GAME_PIECES;

/// Positions are kept to a hundredth of an inch: logs and saves read cleanly, and a move
/// rounded so is never longer than asked by more than the rounding.
pub fn rounded(p: Point) -> Point {
    Point::new((p.x * 100.0).round() / 100.0, (p.y * 100.0).round() / 100.0)
}

/// [`rounded`], unless rounding would put the point inside impassable terrain or off the
/// table (a point just outside an edge rounded onto it): then the point as it was.
pub fn settle(field: &Battlefield, p: Point) -> Point {
    let r = rounded(p);
    let ok = |q: Point| field.on_table(q) && field.terrain_at(q).is_none();
    if !ok(r) && ok(p) { p } else { r }
}

/// Distances closer than this are equal (ties go to the dice).
const TIE: f64 = 1e-6;

/// Where a move towards a point ends.
#[derive(Debug, Clone)]
pub struct Towards {
    /// The route walked, from where the piece stands to where it stops.
    pub route: Vec<Point>,
    /// The straight distance from the end to the target point.
    pub left: f64,
    /// The move got as close as it was asked to (within `stop` of the target).
    pub reached: bool,
    /// No route leads there (the target is inside terrain or shut in).
    pub blocked: bool,
    /// Which of the stops the move ended at (an index into the stops it was given: 0 is the
    /// target's own), if it ended at one.
    pub halted: Option<usize>,
}

impl Game {
    /// The battlefield the game is played on (`game.use_battlefield`).
    pub fn battlefield(&self) -> Result<&Battlefield, String> {
        let Some(id) = self.state.battlefield.as_deref() else {
            return Err(
                "this game is not played on a battlefield yet: call game.use_battlefield(\"id\") in setup".into(),
            );
        };
        let base = self
            .ruleset
            .battlefields
            .get(id)
            .ok_or_else(|| format!("no battlefield `{id}` in this package"))?;
        if self.state.added_zones.is_empty() {
            return Ok(base);
        }
        Ok(self.state.field_cache.0.get_or_init(|| {
            let mut b = base.clone();
            for z in &self.state.added_zones {
                b.zones.push(crate::board::field::Polygon {
                    name: z.name.clone(),
                    corners: z.corners.clone(),
                });
                if z.hides && !b.hides.contains(&z.name) {
                    b.hides.push(z.name.clone());
                }
            }
            std::sync::Arc::new(b)
        }))
    }

    /// Work units of a question over the battlefield's terrain: its corners, at least 1.
    pub fn field_corners(&self) -> u64 {
        self.battlefield()
            .map(|b| {
                b.terrain
                    .iter()
                    .chain(b.zones.iter().filter(|z| b.avoid.contains(&z.name)))
                    .map(|t| t.corners.len() as u64)
                    .sum::<u64>()
            })
            .unwrap_or(0)
            .max(1)
    }

    /// A piece's base diameter in inches: its stats record's `base` (default 0, a point).
    pub fn base(&self, i: usize) -> f64 {
        match self.stat(i, "base") {
            Some(crate::value::Value::Number(n)) => (*n).clamp(0, 240) as f64,
            _ => 0.0,
        }
    }

    /// Where piece `i` stands, if it is on the board at a point.
    pub fn point_of(&self, i: usize) -> Result<Point, String> {
        let p = &self.state.pieces[i];
        match (p.on_board(), p.point) {
            (true, Some(at)) => Ok(at),
            (false, _) => Err(format!("{} is not on the board (it is {})", p.id, p.status)),
            (true, None) => Err(format!("{} stands on a square, not at a point of a battlefield", p.id)),
        }
    }

    /// Inches between two pieces, base edge to base edge (0 when the bases touch or overlap):
    /// closest model to closest model, for units of several.
    pub fn gap(&self, i: usize, j: usize) -> Result<f64, String> {
        Ok(self.closest_models(i, j)?.gap)
    }

    /// The pieces of `side` (every side but `i`'s for `""`) standing at points, nearest to
    /// `i` first, base to base; equally near ones in an order the dice decide.
    pub fn by_range(&self, i: usize, side: &str, rng: &mut Rng) -> Result<Vec<(usize, f64)>, String> {
        self.point_of(i)?;
        let mut list: Vec<(usize, f64)> = Vec::new();
        for (j, p) in self.state.pieces.iter().enumerate() {
            let wanted = if side.is_empty() {
                p.side != self.state.pieces[i].side
            } else {
                p.side == side
            };
            if j != i && wanted && p.on_board() && p.point.is_some() {
                list.push((j, self.gap(i, j)?));
            }
        }
        list.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        super::verbs::shuffle_ties(&mut list, |first, b| b.1 - first.1 < TIE, rng);
        Ok(list)
    }

    /// How many of [`crate::board::field::SIGHT_LINES`] lines from `i`'s centre to `j`'s base no terrain blocks.
    pub fn sight_lines(&self, i: usize, j: usize) -> Result<usize, String> {
        let (a, b) = (self.point_of(i)?, self.point_of(j)?);
        Ok(self.battlefield()?.sight_lines(a, b, self.base(j)))
    }

    /// [`crate::board::field::Battlefield::sight`] from `i`'s centre to `j`'s base.
    pub fn sight_of(&self, i: usize, j: usize) -> Result<crate::board::field::Sight, String> {
        let (a, b) = (self.point_of(i)?, self.point_of(j)?);
        Ok(self.battlefield()?.sight(a, b, self.base(j)))
    }

    /// Whether `i` sees any part of `j`'s base.
    pub fn sees_point(&self, i: usize, j: usize) -> Result<bool, String> {
        Ok(self.sight_lines(i, j)? > 0)
    }

    /// The move of piece `i` towards `target`: at most `max` inches along the shortest route
    /// round impassable terrain, ending as soon as it is within `stop` inches (straight) of it.
    pub fn towards(&self, i: usize, target: Point, max: f64, stop: f64) -> Result<Towards, String> {
        self.towards_halting(i, target, max, stop, &[])
    }

    /// [`Game::towards`], the move also ending as soon as it comes within `radius` inches
    /// (straight) of any of `halts`' points, on the way: a piece that stops near whatever it
    /// meets first. `halted` says which ended it (0 the target, k the halt k − 1).
    pub fn towards_halting(
        &self,
        i: usize,
        target: Point,
        max: f64,
        stop: f64,
        halts: &[(Point, f64)],
    ) -> Result<Towards, String> {
        self.towards_from(self.point_of(i)?, target, target, max, stop, halts)
    }

    /// [`Game::towards_halting`] walked by one model of unit `i` (the one at offset `lead`
    /// from its point), the unit following in formation: the route is the unit's point's, the
    /// lead's shifted back by its offset; `left` and the stops are the lead's. When that
    /// shifted route would cross impassable terrain or leave the table, the unit's point walks
    /// its own route instead, to the target and stops shifted back by the lead's offset (so
    /// the stops still measure the lead).
    pub fn towards_lead(
        &self,
        i: usize,
        lead: Point,
        target: Point,
        max: f64,
        stop: f64,
        halts: &[(Point, f64)],
    ) -> Result<Towards, String> {
        let at = self.point_of(i)?;
        if lead == Point::new(0.0, 0.0) {
            return self.towards_from(at, target, target, max, stop, halts);
        }
        let from = Point::new(at.x + lead.x, at.y + lead.y);
        let mut t = self.towards_from(from, target, target, max, stop, halts)?;
        t.route = t
            .route
            .iter()
            .map(|p| rounded(Point::new(p.x - lead.x, p.y - lead.y)))
            .collect();
        t.route[0] = at;
        let field = self.battlefield()?;
        let fits = t.route.iter().all(|&p| may_stand(field, p).is_ok())
            && t.route.windows(2).all(|leg| field.clear(leg[0], leg[1]));
        if fits {
            return Ok(t);
        }
        let back = |p: Point| Point::new(p.x - lead.x, p.y - lead.y);
        let halts: Vec<(Point, f64)> = halts.iter().map(|&(c, r)| (back(c), r)).collect();
        // The point's own way to where the lead's target puts it, or, when that spot is no
        // place to stand, to the target itself (the stops still measured by the lead).
        let aim = if may_stand(field, back(target)).is_ok() {
            back(target)
        } else {
            target
        };
        let t = self.towards_from(at, aim, back(target), max, stop, &halts)?;
        if t.blocked && aim != target {
            return self.towards_from(at, target, back(target), max, stop, &halts);
        }
        Ok(t)
    }

    /// The walk from `from` along the shortest way to `aim`, the stops measured to `target`
    /// (usually `aim` itself).
    fn towards_from(
        &self,
        from: Point,
        aim: Point,
        target: Point,
        max: f64,
        stop: f64,
        halts: &[(Point, f64)],
    ) -> Result<Towards, String> {
        let field = self.battlefield()?;
        let stops: Vec<(Point, f64)> = std::iter::once((target, stop)).chain(halts.iter().copied()).collect();
        let at_start = stops.iter().position(|&(c, r)| from.distance(c) <= r + TIE);
        if at_start.is_some() {
            return Ok(Towards {
                route: vec![from],
                left: from.distance(target),
                reached: from.distance(target) <= stop + TIE,
                blocked: false,
                halted: at_start,
            });
        }
        let Some(route) = field.route(from, aim) else {
            return Ok(Towards {
                route: vec![from],
                left: from.distance(target),
                reached: false,
                blocked: true,
                halted: None,
            });
        };
        let mut walked = vec![from];
        let mut budget = max.max(0.0);
        let mut halted = None;
        for leg in route.windows(2) {
            let (a, b) = (leg[0], leg[1]);
            let len = a.distance(b);
            // Where along this leg the move first comes within a stop's distance of it.
            let mut t_stop: Option<f64> = None;
            for (k, &(c, r)) in stops.iter().enumerate() {
                if let Some(t) = first_within(a, b, c, r)
                    && t_stop.is_none_or(|s| t < s - TIE)
                {
                    t_stop = Some(t);
                    halted = Some(k);
                }
            }
            let t_budget = if len > 0.0 { budget / len } else { 1.0 };
            let t = t_stop.unwrap_or(1.0).min(t_budget).min(1.0);
            let exact = a.lerp(b, t);
            let prev = *walked.last().expect("the route starts where the piece stands");
            // Rounded, unless rounding would make the leg graze a terrain corner.
            let end = match settle(field, exact) {
                r if field.clear(prev, r) => r,
                _ => exact,
            };
            if end != prev {
                walked.push(end);
            }
            budget -= len * t;
            let stopped = t_stop.is_some_and(|s| s <= t + TIE);
            if !stopped {
                halted = None;
            }
            if stopped || t < 1.0 || budget <= TIE {
                break;
            }
        }
        let end = *walked.last().expect("never empty");
        let left = end.distance(target);
        Ok(Towards {
            reached: left <= stop + 0.01,
            left,
            route: walked,
            blocked: false,
            halted,
        })
    }

    /// How far piece `i` must move along the shortest route round impassable terrain for its
    /// base to touch `j`'s (a charge's distance), or `None` when no route leads there.
    /// For units of several models, the closest model's way to the closest model of `j`.
    pub fn route_gap(&self, i: usize, j: usize) -> Result<Option<f64>, String> {
        let c = self.closest_models(i, j)?;
        let t = self.towards_lead(i, c.lead, c.to, f64::INFINITY, c.reach, &[])?;
        Ok((!t.blocked).then(|| inches(&t.route)))
    }

    /// The nearest point to `at` where a base `base` inches across stands on the table,
    /// outside impassable terrain, at least `gap` inches from every other piece's base (piece
    /// `except` aside): `at` itself when it is free, else the first ring of points round it
    /// (a quarter inch apart, rings a quarter inch out, as far as `reach` inches) that has a
    /// free one, the dice choosing among that ring's free points. `None` when none is free.
    pub fn free_spot(
        &self,
        at: Point,
        base: f64,
        gap: f64,
        reach: f64,
        except: Option<usize>,
        rng: &mut Rng,
    ) -> Result<Option<Point>, String> {
        let field = self.battlefield()?;
        let mut others: Vec<(Point, f64)> = Vec::new();
        for (j, p) in self.state.pieces.iter().enumerate() {
            if Some(j) != except && p.on_board() && p.point.is_some() {
                others.extend(self.models_at(j)?);
            }
        }
        let free = |p: Point| {
            let p = settle(field, p);
            may_stand(field, p).is_ok()
                && others
                    .iter()
                    .all(|&(q, b)| p.distance(q) - base / 2.0 - b / 2.0 >= gap - TIE)
        };
        if free(at) {
            return Ok(Some(settle(field, at)));
        }
        const STEP: f64 = 0.25;
        let rings = (reach.clamp(0.0, 1000.0) / STEP).ceil() as usize;
        for k in 1..=rings {
            let r = k as f64 * STEP;
            // Points about STEP apart round the ring, from up the table clockwise.
            let n = ((2.0 * std::f64::consts::PI * r / STEP).ceil() as usize).max(4);
            let ring: Vec<Point> = (0..n)
                .map(|m| settle(field, at.towards_bearing(360.0 * m as f64 / n as f64, r)))
                .filter(|&p| free(p))
                .collect();
            if !ring.is_empty() {
                let n = ring.len() as u64;
                let pick = rng.choose(crate::dice::rng::Kind::Tie, n, &|| {
                    format!("a free spot among {n} as near, clockwise from up the table")
                }) as usize;
                return Ok(Some(ring[pick]));
            }
        }
        Ok(None)
    }
}

/// A unit's models are laid out this far apart, base edge to base edge: well inside 7th
/// edition's 2" coherency.
pub const FORMATION_GAP: f64 = 0.5;

/// The closest pair of models of two units (`Game::closest_models`).
#[derive(Debug, Clone, Copy)]
pub struct Closest {
    /// Base edge to base edge, 0 when they touch.
    pub gap: f64,
    /// The first unit's closest model, as an offset from its point.
    pub lead: Point,
    /// Where the second unit's closest model stands.
    pub to: Point,
    /// Centre to centre when their bases touch: the two radii.
    pub reach: f64,
}

impl Game {
    /// The base of each of piece `i`'s models: its stats record's `model-base` (inches) when it
    /// is a unit of several models, else its `base`.
    pub fn model_base(&self, i: usize) -> f64 {
        if self.state.pieces[i].models.is_empty() {
            return self.base(i);
        }
        match self.stat(i, "model-base") {
            Some(crate::value::Value::Number(n)) => (*n).clamp(0, 240) as f64,
            _ => 0.0,
        }
    }

    /// How many models piece `i` is laid out as when it first stands on a battlefield: its
    /// stats record's `models`, when the record gives its models a `model-base`; else one.
    pub fn declared_models(&self, i: usize) -> usize {
        let number = |f: &str| match self.stat(i, f) {
            Some(crate::value::Value::Number(n)) => *n,
            _ => 0,
        };
        if number("model-base") > 0 {
            number("models").clamp(1, crate::limits::MAX_UNIT_MODELS as i64) as usize
        } else {
            1
        }
    }

    /// The models of piece `i` with a record of their own, as its stats record declares them:
    /// `own-models`, a list of ids of records of the same kind (each one model of the unit
    /// with its own profile and weapons: a character inside a squad), at most `models` − 1 of
    /// them (a unit keeps one model of its own record at least).
    pub fn declared_own_models(&self, i: usize) -> Vec<String> {
        let n = self.declared_models(i);
        match self.stat(i, "own-models") {
            Some(crate::value::Value::List(list)) if n > 1 => list
                .iter()
                .filter_map(|v| match v {
                    crate::value::Value::Name(s) | crate::value::Value::Text(s) => Some(s.clone()),
                    _ => None,
                })
                .take(n - 1)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Beside `models_at`, each model's own record: the id of the stats record that gives it
    /// its own profile, or `""` for the piece's own (every one `""` when none has its own).
    pub fn model_records(&self, i: usize) -> Result<Vec<String>, String> {
        let n = self.models_at(i)?.len();
        let r = &self.state.pieces[i].model_records;
        Ok(if r.len() == n {
            r.clone()
        } else {
            vec![String::new(); n]
        })
    }

    /// Every model of piece `i`: where it stands and its base (one, at its point, with the
    /// piece's `base`, for a piece of one model).
    pub fn models_at(&self, i: usize) -> Result<Vec<(Point, f64)>, String> {
        let at = self.point_of(i)?;
        let p = &self.state.pieces[i];
        if p.models.is_empty() {
            return Ok(vec![(at, self.base(i))]);
        }
        let b = self.model_base(i);
        Ok(p.models
            .iter()
            .map(|o| (Point::new(at.x + o.x, at.y + o.y), b))
            .collect())
    }

    /// The gap, base edge to base edge and closest model to closest model, between piece `j`
    /// and piece `i` were its point at `to` (its models keeping their places round it): the
    /// question a move asks before it is made ("would it end within 1" of that unit?").
    pub fn gap_if_at(&self, i: usize, to: Point, j: usize) -> Result<f64, String> {
        let at = self.point_of(i)?;
        let (dx, dy) = (to.x - at.x, to.y - at.y);
        let theirs = self.models_at(j)?;
        let mut gap = f64::INFINITY;
        for (a, ra) in self.models_at(i)? {
            let moved = Point::new(a.x + dx, a.y + dy);
            for &(b, rb) in &theirs {
                gap = gap.min(moved.distance(b) - ra / 2.0 - rb / 2.0);
            }
        }
        Ok(gap.max(0.0))
    }

    /// The closest models of two pieces, base edge to base edge (the first pair found of
    /// equally close ones, in the order the models are kept).
    pub fn closest_models(&self, i: usize, j: usize) -> Result<Closest, String> {
        let (mine, theirs) = (self.models_at(i)?, self.models_at(j)?);
        let at = self.point_of(i)?;
        let mut best: Option<(f64, Closest)> = None;
        for &(a, ra) in &mine {
            for &(b, rb) in &theirs {
                let centre = a.distance(b);
                let edge = centre - ra / 2.0 - rb / 2.0;
                if best.as_ref().is_none_or(|(e, _)| edge < *e - TIE) {
                    let c = Closest {
                        gap: edge.max(0.0),
                        lead: Point::new(a.x - at.x, a.y - at.y),
                        to: b,
                        reach: ra / 2.0 + rb / 2.0,
                    };
                    best = Some((edge, c));
                }
            }
        }
        Ok(best.expect("a piece at a point has a model").1)
    }

    /// Where the `n` models of a unit whose models have bases `base` inches across stand round
    /// `at`, as offsets from it: on a square lattice `base` + [`FORMATION_GAP`] apart, nearest
    /// the centre first (then clockwise from up the table), on the table and outside
    /// impassable terrain where the lattice has room.
    pub fn formation(&self, at: Point, n: usize, base: f64) -> Result<Vec<Point>, String> {
        let field = self.battlefield()?;
        let s = base + FORMATION_GAP;
        let k = ((n as f64).sqrt().ceil() as i64) * 2 + 2;
        let mut slots: Vec<(f64, f64, Point)> = Vec::new();
        for a in -k..=k {
            for b in -k..=k {
                let o = Point::new(a as f64 * s, b as f64 * s);
                let d = (o.x * o.x + o.y * o.y).sqrt();
                let bearing = Point::new(0.0, 0.0).bearing_to(o);
                slots.push((d, if d == 0.0 { 0.0 } else { bearing }, rounded(o)));
            }
        }
        slots.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
        let free = |o: &Point| may_stand(field, Point::new(at.x + o.x, at.y + o.y)).is_ok();
        let mut chosen: Vec<Point> = slots.iter().map(|t| t.2).filter(free).take(n).collect();
        // No room for them all: the rest where the lattice goes on, as a player would squeeze in.
        for t in &slots {
            if chosen.len() >= n {
                break;
            }
            if !chosen.contains(&t.2) {
                chosen.push(t.2);
            }
        }
        Ok(chosen)
    }

    /// Lays out piece `i`'s models in formation round its point when it is a unit of several
    /// models standing at a point with none laid out yet (the first time it stands).
    fn lay_out(&mut self, i: usize) -> Result<(), String> {
        let n = self.declared_models(i);
        if n < 2 || !self.state.pieces[i].models.is_empty() {
            return Ok(());
        }
        let at = self.point_of(i)?;
        let base = match self.stat(i, "model-base") {
            Some(crate::value::Value::Number(b)) => (*b).clamp(0, 240) as f64,
            _ => 0.0,
        };
        let offsets = self.formation(at, n, base)?;
        let id = self.state.pieces[i].id.clone();
        // The models with a record of their own take the first slots: the middle of the unit.
        let own = self.declared_own_models(i);
        let records = if own.is_empty() {
            Vec::new()
        } else {
            let mut r = own.clone();
            r.resize(n, String::new());
            r
        };
        self.act(
            "models",
            format!(
                "{id}'s {n} models stand in formation round {}{}",
                show(at),
                named_models(&own, &offsets, at)
            ),
            Some(&id),
            Action::Models {
                id: id.clone(),
                offsets,
                records,
            },
        );
        Ok(())
    }

    /// Piece `i`'s models stand at `points` (a unit's models set where the table has them): its
    /// point moves to the first of them, the others kept as offsets from it. Each must stand on
    /// the table outside impassable terrain. `records` says which model each point is (its own
    /// record, `""` for the piece's): only models with a record of their own it still has, each
    /// once, and those it leaves out are lost. With no `records`, the models with a record of
    /// their own are kept, at the first points.
    pub fn set_models(
        &mut self,
        i: usize,
        points: &[Point],
        records: Option<&[String]>,
        why: &str,
    ) -> Result<(), String> {
        self.point_of(i)?;
        let now: Vec<String> = self.model_records(i)?.into_iter().filter(|r| !r.is_empty()).collect();
        let records: Vec<String> = match records {
            None => {
                let mut r: Vec<String> = now.iter().take(points.len()).cloned().collect();
                r.resize(points.len(), String::new());
                r
            }
            Some(given) => {
                if given.len() != points.len() {
                    return Err(format!(
                        "{} point(s) but {} model(s) named: one name (\"\" for none) a point",
                        points.len(),
                        given.len()
                    ));
                }
                let mut left = now.clone();
                for r in given.iter().filter(|r| !r.is_empty()) {
                    match left.iter().position(|x| x == r) {
                        Some(k) => {
                            left.remove(k);
                        }
                        None => {
                            return Err(format!(
                                "{} has no model {r} of its own on the table{}",
                                self.state.pieces[i].id,
                                if now.is_empty() {
                                    String::new()
                                } else {
                                    format!(" (it has: {})", now.join(", "))
                                }
                            ));
                        }
                    }
                }
                given.to_vec()
            }
        };
        let records = if records.iter().all(String::is_empty) {
            Vec::new()
        } else {
            records
        };
        if points.is_empty() || points.len() > crate::limits::MAX_UNIT_MODELS {
            return Err(format!(
                "a unit has 1 to {} models (`MAX_UNIT_MODELS`)",
                crate::limits::MAX_UNIT_MODELS
            ));
        }
        let field = self.battlefield()?;
        let points: Vec<Point> = points.iter().map(|&p| settle(field, p)).collect();
        for &p in &points {
            may_stand(field, p)?;
        }
        let id = self.state.pieces[i].id.clone();
        let first = points[0];
        let offsets: Vec<Point> = points
            .iter()
            .map(|p| rounded(Point::new(p.x - first.x, p.y - first.y)))
            .collect();
        let list = points.iter().map(|&p| show(p)).collect::<Vec<_>>().join(" ");
        let lost: Vec<String> = {
            let mut left = now.clone();
            for r in records.iter().filter(|r| !r.is_empty()) {
                if let Some(k) = left.iter().position(|x| x == r) {
                    left.remove(k);
                }
            }
            left
        };
        let named = named_models(&records, &offsets, first);
        let lost = if lost.is_empty() {
            String::new()
        } else {
            format!("; {} lost", lost.join(", "))
        };
        self.act(
            "place",
            format!("{id} is set down at {}{}", show(first), because(why)),
            Some(&id),
            Action::Stand {
                id: id.clone(),
                point: first,
            },
        );
        self.act(
            "models",
            format!("{id}'s {} model(s) stand at {list}{named}{lost}", points.len()),
            Some(&id),
            Action::Models {
                id: id.clone(),
                offsets,
                records,
            },
        );
        Ok(())
    }

    /// Takes `n` of unit `i`'s models away as casualties, those closest to `from` first (base
    /// edge to the nearest of `from`'s points; equally close ones in the order kept; with no
    /// `from`, the last kept first); the models with a record of their own last of all (a
    /// character is the last of its squad to fall); a unit keeps at least one model (its life
    /// removes it). The models taken, where they stood.
    pub fn remove_models(&mut self, i: usize, n: usize, from: &[Point], why: &str) -> Result<Vec<Point>, String> {
        let models = self.models_at(i)?;
        if models.len() < 2 || n == 0 {
            return Ok(Vec::new());
        }
        let n = n.min(models.len() - 1);
        let near = |p: Point, b: f64| {
            from.iter()
                .map(|&f| p.distance(f) - b / 2.0)
                .fold(f64::INFINITY, f64::min)
        };
        let mut order: Vec<(usize, f64)> = models.iter().enumerate().map(|(k, &(p, b))| (k, near(p, b))).collect();
        if from.is_empty() {
            // Nothing to be closest to: the last kept first (a formation's outermost).
            order.reverse();
        } else {
            order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        }
        let records = self.model_records(i)?;
        // A stable sort: the models of the piece's own record first, in the order above.
        order.sort_by_key(|&(k, _)| !records[k].is_empty());
        let gone: Vec<usize> = order[..n].iter().map(|&(k, _)| k).collect();
        let p = &self.state.pieces[i];
        let offsets: Vec<Point> = p
            .models
            .iter()
            .enumerate()
            .filter(|(k, _)| !gone.contains(k))
            .map(|(_, o)| *o)
            .collect();
        let kept: Vec<String> = if p.model_records.is_empty() {
            Vec::new()
        } else {
            records
                .iter()
                .enumerate()
                .filter(|(k, _)| !gone.contains(k))
                .map(|(_, r)| r.clone())
                .collect()
        };
        let fallen: Vec<&str> = gone
            .iter()
            .filter(|&&k| !records[k].is_empty())
            .map(|&k| records[k].as_str())
            .collect();
        let taken: Vec<Point> = gone.iter().map(|&k| models[k].0).collect();
        let id = p.id.clone();
        let list = taken.iter().map(|&q| show(q)).collect::<Vec<_>>().join(" ");
        self.act(
            "models",
            format!(
                "{id} loses {n} model(s), {}: {list}{}{}",
                if from.is_empty() {
                    "the outermost first"
                } else {
                    "the closest first"
                },
                if fallen.is_empty() {
                    String::new()
                } else {
                    format!(" ({} among them)", fallen.join(", "))
                },
                because(why)
            ),
            Some(&id),
            Action::Models {
                id: id.clone(),
                offsets,
                records: kept,
            },
        );
        Ok(taken)
    }

    /// How many of piece `i`'s models have a base touching the circle `diameter` inches across
    /// round `at` (a blast or a template's footprint).
    pub fn models_under(&self, i: usize, at: Point, diameter: f64) -> Result<usize, String> {
        Ok(self
            .models_at(i)?
            .into_iter()
            .filter(|&(p, b)| p.distance(at) - b / 2.0 <= diameter / 2.0 + TIE)
            .count())
    }

    /// Whether piece `i`'s models are in coherency: each within `within` inches (base edge to
    /// base edge) of another, in one group.
    pub fn coherent(&self, i: usize, within: f64) -> Result<bool, String> {
        let models = self.models_at(i)?;
        let mut joined = vec![false; models.len()];
        joined[0] = true;
        let mut queue = vec![0];
        while let Some(k) = queue.pop() {
            for m in 0..models.len() {
                let (a, ra) = models[k];
                let (b, rb) = models[m];
                if !joined[m] && a.distance(b) - ra / 2.0 - rb / 2.0 <= within + TIE {
                    joined[m] = true;
                    queue.push(m);
                }
            }
        }
        Ok(joined.iter().all(|&j| j))
    }
}

/// `; NAME at (x, y)` for each model with a record of its own (`records` beside `offsets`
/// from `at`), for a log line; `""` when none has one.
fn named_models(records: &[String], offsets: &[Point], at: Point) -> String {
    records
        .iter()
        .zip(offsets)
        .filter(|(r, _)| !r.is_empty())
        .map(|(r, o)| format!("; {r} at {}", show(Point::new(at.x + o.x, at.y + o.y))))
        .collect()
}

/// The least t in 0..=1 at which the point a + t·(b − a) lies within `r` of `c`.
fn first_within(a: Point, b: Point, c: Point, r: f64) -> Option<f64> {
    if a.distance(c) <= r {
        return Some(0.0);
    }
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (fx, fy) = (a.x - c.x, a.y - c.y);
    let qa = dx * dx + dy * dy;
    if qa < 1e-12 {
        return None;
    }
    let qb = 2.0 * (fx * dx + fy * dy);
    let qc = fx * fx + fy * fy - r * r;
    let disc = qb * qb - 4.0 * qa * qc;
    if disc < 0.0 {
        return None;
    }
    let t = (-qb - disc.sqrt()) / (2.0 * qa);
    (0.0..=1.0).contains(&t).then_some(t)
}

impl Game {
    /// The game's battlefield with its pieces drawn as markers, lettered A, B, … in the order
    /// they were placed, for a picture (`play`'s `board`, `game --svg`); with the legend.
    pub fn field_picture(&self) -> Option<(Battlefield, Vec<String>)> {
        let mut b = self.battlefield().ok()?.clone();
        let mut legend = Vec::new();
        let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".chars().chain(std::iter::repeat('*'));
        let on_table = self.state.pieces.iter().filter(|p| p.on_board() && p.point.is_some());
        for (p, letter) in on_table.zip(letters) {
            let at = p.point.expect("filtered");
            b.markers.push((format!("{} {letter}", p.id), at));
            legend.push(format!("{letter} {} ({}) at {}", p.id, p.side, show(at)));
        }
        // The game's own marks (`game.mark_at`), lettered a, b, c, …
        let small = "abcdefghijklmnopqrstuvwxyz".chars().chain(std::iter::repeat('+'));
        for ((name, at), letter) in self.state.marks.iter().zip(small) {
            b.markers.push((format!("{name} {letter}"), *at));
            legend.push(format!("{letter} {name} at {}", show(*at)));
        }
        Some((b, legend))
    }
}

/// A point as the log writes it: `(12.5, 30.0)`; a coordinate no table reaches (a million
/// inches or more) in exponent form, `(1e308, 41.0)`, not in its 309 digits.
pub fn show(p: Point) -> String {
    let one = |x: f64| {
        if x.abs() < 1e6 {
            format!("{x:.1}")
        } else {
            format!("{x:e}")
        }
    };
    format!("({}, {})", one(p.x), one(p.y))
}

/// The length of a walked route, to a tenth of an inch, for the log.
pub fn inches(route: &[Point]) -> f64 {
    length(route)
}

/// Whether a point is somewhere a piece may stand: on the table, outside impassable terrain.
pub fn may_stand(field: &Battlefield, p: Point) -> Result<(), String> {
    if !p.x.is_finite() || !p.y.is_finite() {
        return Err("a point needs finite numbers".into());
    }
    if !field.on_table(p) {
        return Err(format!(
            "{} is off the table ({} is {} × {} inches)",
            show(p),
            field.id,
            field.width,
            field.height
        ));
    }
    if let Some(t) = field.terrain_at(p) {
        return Err(format!("{} is inside impassable terrain `{}`", show(p), t.name));
    }
    Ok(())
}

/// What `nearest_unit` looks for: within so many inches, in sight or not, among some ids.
pub struct NearestRule {
    pub within: f64,
    pub sight: bool,
    pub among: Option<Vec<String>>,
}

impl Game {
    /// The game is played on battlefield `id` from now on (set once).
    pub fn use_battlefield(&mut self, id: &str) -> Result<(), String> {
        if !self.ruleset.battlefields.contains_key(id) {
            let hint = crate::diagnostic::did_you_mean(id, self.ruleset.battlefields.keys().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            return Err(format!("no battlefield `{id}` in this package{hint}"));
        }
        match self.state.battlefield.as_deref() {
            Some(now) if now == id => return Ok(()),
            Some(now) => return Err(format!("the game is already played on battlefield `{now}`")),
            None => {}
        }
        self.act(
            "battlefield",
            format!("the game is played on battlefield {id}"),
            None,
            Action::UseBattlefield { id: id.into() },
        );
        Ok(())
    }

    /// The game's named point `name` stands at `at` (a new mark, or one moved).
    pub fn mark_at(&mut self, name: &str, at: Point) -> Result<(), String> {
        let b = self.battlefield()?;
        if !at.x.is_finite() || !at.y.is_finite() || !b.on_table(at) {
            return Err(format!("{} is off the {} × {} table", show(at), b.width, b.height));
        }
        if name.is_empty() || name.len() > 64 {
            return Err("a mark's name is 1 to 64 characters".into());
        }
        if !self.state.marks.contains_key(name) && self.state.marks.len() >= MAX_GAME_PIECES {
            return Err(format!(
                "a game holds at most {MAX_GAME_PIECES} marks (`MAX_GAME_PIECES`)"
            ));
        }
        self.act(
            "mark",
            format!("mark {name} at {}", show(at)),
            None,
            Action::Mark {
                name: name.into(),
                point: Some(at),
            },
        );
        Ok(())
    }

    pub fn unmark(&mut self, name: &str) -> Result<(), String> {
        if !self.state.marks.contains_key(name) {
            return Err(format!("no mark `{name}` on the battlefield"));
        }
        self.act(
            "mark",
            format!("mark {name} taken away"),
            None,
            Action::Mark {
                name: name.into(),
                point: None,
            },
        );
        Ok(())
    }

    /// A new piece placed at `at` on the battlefield (settled to 0.01"): its id.
    pub fn place_at(&mut self, kind: &str, side: &str, at: Point, new: NewFields) -> Result<String, String> {
        let at = settle(self.battlefield()?, at);
        may_stand(self.battlefield()?, at)?;
        let mut piece = self.new_piece(kind, side, new)?;
        piece.point = Some(at);
        piece.status = ON_BOARD.into();
        let id = piece.id.clone();
        self.act(
            "place",
            format!("{id} ({side}) placed at {}", show(at)),
            Some(&id),
            Action::Add { piece: Box::new(piece) },
        );
        let i = self.index(&id)?;
        self.lay_out(i)?;
        Ok(id)
    }

    /// Piece `i` (not on a square) is set down, or enters, at `at`; `why` goes on its line.
    pub fn stand(&mut self, i: usize, at: Point, why: &str) -> Result<(), String> {
        let at = settle(self.battlefield()?, at);
        may_stand(self.battlefield()?, at)?;
        let p = &self.state.pieces[i];
        let id = p.id.clone();
        if p.at.is_some() {
            return Err(format!(
                "{id} stands on a square; a piece stands on a square or at a point"
            ));
        }
        let verb = if p.on_board() { "is set down" } else { "enters" };
        self.act(
            "place",
            format!("{id} {verb} at {}{}", show(at), because(why)),
            Some(&id),
            Action::Stand {
                id: id.clone(),
                point: at,
            },
        );
        self.lay_out(i)
    }

    /// The nearest piece of `side` to piece `i` that `rule` lets through (ties by `rng`).
    pub fn nearest_unit(
        &self,
        i: usize,
        side: &str,
        rule: &NearestRule,
        rng: &mut Rng,
    ) -> Result<Option<usize>, String> {
        for (j, d) in self.by_range(i, side, rng)? {
            if d > rule.within {
                break;
            }
            if rule
                .among
                .as_ref()
                .is_some_and(|l| !l.contains(&self.state.pieces[j].id))
            {
                continue;
            }
            if rule.sight && !self.sees_point(i, j)? {
                continue;
            }
            return Ok(Some(j));
        }
        Ok(None)
    }

    /// Walks piece `i` along `t`'s route (one logged action), with the reason on its line;
    /// queues `moved` once, with its ends and every corner of its route.
    pub fn walk_route(&mut self, i: usize, t: &Towards, why: &str) {
        let id = self.state.pieces[i].id.clone();
        let from = t.route[0];
        let end = *t.route.last().expect("never empty");
        if t.route.len() < 2 {
            self.say(format!("{id} stays at {}{}", show(from), because(why)), None);
            return;
        }
        self.act(
            "move",
            format!(
                "{id} moves {:.1}\": {} → {}{}",
                inches(&t.route),
                show(from),
                show(end),
                because(why)
            ),
            Some(&id),
            Action::Walk {
                id: id.clone(),
                route: t.route.clone(),
            },
        );
        let side = self.state.pieces[i].side.clone();
        let args = TriggerArgs::default()
            .text("piece", id)
            .with("from", TriggerValue::Point(from))
            .with("to", TriggerValue::Point(end))
            .with("route", TriggerValue::Points(t.route.clone()));
        self.queue(crate::ruleset::TriggerEvent::Moved, &side, args);
    }
}

/// A reason for the log, in brackets after the line, or nothing.
fn because(why: &str) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_within_finds_the_entry_point() {
        let t = first_within(Point::new(0.0, 0.0), Point::new(10.0, 0.0), Point::new(10.0, 0.0), 6.0).unwrap();
        assert!((t - 0.4).abs() < 1e-9);
        assert!(first_within(Point::new(0.0, 0.0), Point::new(10.0, 0.0), Point::new(5.0, 9.0), 6.0).is_none());
    }

    /// A point of 1e308 inches was printed with its 309 digits.
    #[test]
    fn a_point_no_table_reaches_is_shown_short() {
        assert_eq!(show(Point::new(12.5, 30.0)), "(12.5, 30.0)");
        assert_eq!(show(Point::new(1e308, 41.0)), "(1e308, 41.0)");
        assert_eq!(show(Point::new(-2.5e6, 999_999.0)), "(-2.5e6, 999999.0)");
    }
}
