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

    /// Inches between two pieces, base edge to base edge (0 when the bases touch or overlap).
    pub fn gap(&self, i: usize, j: usize) -> Result<f64, String> {
        let (a, b) = (self.point_of(i)?, self.point_of(j)?);
        Ok((a.distance(b) - self.base(i) / 2.0 - self.base(j) / 2.0).max(0.0))
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
        let from = self.point_of(i)?;
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
        let Some(route) = field.route(from, target) else {
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
    pub fn route_gap(&self, i: usize, j: usize) -> Result<Option<f64>, String> {
        let at = self.point_of(j)?;
        let t = self.towards(i, at, f64::INFINITY, self.base(i) / 2.0 + self.base(j) / 2.0)?;
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
        let others: Vec<(Point, f64)> = self
            .state
            .pieces
            .iter()
            .enumerate()
            .filter(|&(j, p)| Some(j) != except && p.on_board() && p.point.is_some())
            .map(|(j, p)| (p.point.expect("filtered"), self.base(j)))
            .collect();
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
        Ok(())
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
