//! Open battlefields measured in inches: points, polygons (zones, impassable terrain), scatter
//! that must stay on the table and off impassable ground, and the shortest route round terrain.
//!
//! A route goes round impassable terrain and the zones a battlefield `avoid`s, by Dijkstra
//! over the visibility graph of their corners. [`Battlefield::sight`] counts the lines to a
//! base that terrain (but the pieces listed `see-through`) and the zones the battlefield
//! `hides` leave clear, and says what hid the rest. For a piece that faces a way, [`Point::bearing_to`] (degrees clockwise from up
//! the table) and [`Point::footprint_side`] (which side of a rectangular footprint a point is
//! in, the arcs drawn through its corners); what a side means is the package's.

use crate::source::Span;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    pub fn distance(self, other: Point) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }

    /// The point `distance` inches away on `bearing` degrees clockwise from "up the table".
    pub fn towards_bearing(self, bearing: f64, distance: f64) -> Point {
        let radians = bearing.to_radians();
        Point::new(self.x + distance * radians.sin(), self.y - distance * radians.cos())
    }

    pub fn lerp(self, other: Point, t: f64) -> Point {
        Point::new(self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t)
    }

    /// The bearing of `other` from here, in degrees clockwise from "up the table" (0 up, 90
    /// right, 180 down, 270 left), in `0..360`; 0 for the same point.
    pub fn bearing_to(self, other: Point) -> f64 {
        let (dx, dy) = (other.x - self.x, other.y - self.y);
        if dx == 0.0 && dy == 0.0 {
            return 0.0;
        }
        dx.atan2(-dy).to_degrees().rem_euclid(360.0)
    }

    /// Which side of a rectangular footprint centred here the point `p` lies in: the
    /// footprint heads `facing` degrees (as [`Point::bearing_to`]), is `length` inches along
    /// that heading and `width` across, and its four sides' arcs are drawn from the centre
    /// through its corners. A point on a diagonal counts for the front or rear; the centre
    /// itself for the front.
    pub fn footprint_side(self, facing: f64, length: f64, width: f64, p: Point) -> Side {
        let rad = facing.to_radians();
        let (dx, dy) = (p.x - self.x, p.y - self.y);
        // Along the heading (forward) and across it (to the right).
        let ahead = dx * rad.sin() - dy * rad.cos();
        let right = dx * rad.cos() + dy * rad.sin();
        let (half_l, half_w) = (length.max(1e-9) / 2.0, width.max(1e-9) / 2.0);
        // Inside the front or rear arc: |right| / half_w <= |ahead| / half_l.
        if right.abs() * half_l <= ahead.abs() * half_w {
            if ahead >= 0.0 { Side::Front } else { Side::Rear }
        } else if right > 0.0 {
            Side::Right
        } else {
            Side::Left
        }
    }
}

/// A side of a footprint ([`Point::footprint_side`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Front,
    Right,
    Rear,
    Left,
}

impl Side {
    pub fn word(self) -> &'static str {
        match self {
            Side::Front => "front",
            Side::Right => "right",
            Side::Rear => "rear",
            Side::Left => "left",
        }
    }
}

/// A named polygon: its corners in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Polygon {
    pub name: String,
    pub corners: Vec<Point>,
}

impl Polygon {
    /// Strictly inside (ray casting; points on the boundary may go either way).
    pub fn contains(&self, p: Point) -> bool {
        let mut inside = false;
        let n = self.corners.len();
        for i in 0..n {
            let (a, b) = (self.corners[i], self.corners[(i + 1) % n]);
            if (a.y > p.y) != (b.y > p.y) {
                let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
                if p.x < x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    fn edges(&self) -> impl Iterator<Item = (Point, Point)> + '_ {
        let n = self.corners.len();
        (0..n).map(move |i| (self.corners[i], self.corners[(i + 1) % n]))
    }

    /// Whether the segment a–b passes through the inside of the polygon.
    fn blocks(&self, a: Point, b: Point) -> bool {
        if self.edges().any(|(c, d)| crosses(a, b, c, d)) {
            return true;
        }
        // A segment can slip in and out through corners only: sample along it.
        (1..16).any(|k| self.contains(a.lerp(b, k as f64 / 16.0)))
    }
}

fn orient(a: Point, b: Point, c: Point) -> f64 {
    (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
}

/// Proper crossing of segments a–b and c–d (touching at an end does not count).
fn crosses(a: Point, b: Point, c: Point, d: Point) -> bool {
    const EPS: f64 = 1e-9;
    let (o1, o2) = (orient(a, b, c), orient(a, b, d));
    let (o3, o4) = (orient(c, d, a), orient(c, d, b));
    ((o1 > EPS && o2 < -EPS) || (o1 < -EPS && o2 > EPS)) && ((o3 > EPS && o4 < -EPS) || (o3 < -EPS && o4 > EPS))
}

/// Why a scatter did not land.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Miss {
    OffTable,
    Impassable,
}

#[derive(Debug, Clone)]
pub struct Battlefield {
    pub id: String,
    pub label: Option<String>,
    pub width: f64,
    pub height: f64,
    pub zones: Vec<Polygon>,
    pub terrain: Vec<Polygon>,
    /// Zones (by name) that routes go round like terrain, though a piece may stand in one.
    pub avoid: Vec<String>,
    /// Zones (by name) that block sight, though pieces walk through them (woods, ruins,
    /// smoke): a line of sight that crosses one is blocked, unless the viewer or the target
    /// stands in it (then it hides the target only partly: see [`Battlefield::sight`]).
    pub hides: Vec<String>,
    /// Terrain (by name) that stops a move but not a line of sight (a chasm, a low wall).
    pub see_through: Vec<String>,
    pub markers: Vec<(String, Point)>,
    pub source: Option<String>,
    pub text: Option<String>,
    pub span: Span,
}

/// What a piece sees of a base ([`Battlefield::sight`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sight {
    /// Lines of [`SIGHT_LINES`] no blocker crosses.
    pub lines: usize,
    /// The terrain and hiding zones that block at least one line, in the order met.
    pub hidden_by: Vec<String>,
    /// The hiding zones the target stands in.
    pub standing_in: Vec<String>,
}

/// Lines `sight_lines` draws to a base: its centre and two points each side.
pub const SIGHT_LINES: usize = 5;

/// How far outside a terrain corner a route passes, in inches.
const CLEARANCE: f64 = 0.05;

impl Battlefield {
    pub fn on_table(&self, p: Point) -> bool {
        p.x >= 0.0 && p.y >= 0.0 && p.x <= self.width && p.y <= self.height
    }

    pub fn terrain_at(&self, p: Point) -> Option<&Polygon> {
        self.terrain.iter().find(|t| t.contains(p))
    }

    pub fn zones_at(&self, p: Point) -> Vec<&str> {
        self.zones
            .iter()
            .filter(|z| z.contains(p))
            .map(|z| z.name.as_str())
            .collect()
    }

    pub fn marker(&self, name: &str) -> Option<Point> {
        self.markers.iter().find(|(n, _)| n == name).map(|(_, p)| *p)
    }

    /// Where a scatter from `from` lands, or why it may not land there (the caller rerolls).
    pub fn scatter(&self, from: Point, bearing: f64, distance: f64) -> Result<Point, Miss> {
        let to = from.towards_bearing(bearing, distance);
        if !self.on_table(to) {
            Err(Miss::OffTable)
        } else if self.terrain_at(to).is_some() {
            Err(Miss::Impassable)
        } else {
            Ok(to)
        }
    }

    /// Whether the straight segment a–b passes through no impassable terrain.
    pub fn clear(&self, a: Point, b: Point) -> bool {
        !self.terrain.iter().any(|t| t.blocks(a, b))
    }

    /// Lines of sight from `from` to a round base of diameter `base` centred on `to`: the
    /// number of [`SIGHT_LINES`] lines (to the centre and to points spread evenly across the
    /// base, at right angles to the line) that no terrain blocks. Every line clear: in the
    /// open; none: out of sight; some: partly hidden.
    pub fn sight_lines(&self, from: Point, to: Point, base: f64) -> usize {
        self.sight(from, to, base).lines
    }

    /// [`Battlefield::sight_lines`] with what hides the target: the lines that neither sight-
    /// blocking terrain (every piece but those `see_through` lists) nor a zone that `hides`
    /// blocks, the names of those that block at least one line, and the hiding zones the
    /// target stands in (they never block a line, but hide part of the target: the package
    /// says how much that counts for).
    pub fn sight(&self, from: Point, to: Point, base: f64) -> Sight {
        let d = from.distance(to).max(1e-9);
        // The unit vector at right angles to the line.
        let (nx, ny) = (-(to.y - from.y) / d, (to.x - from.x) / d);
        let half = (SIGHT_LINES as f64 - 1.0) / 2.0;
        let blockers: Vec<&Polygon> = self
            .terrain
            .iter()
            .filter(|t| !self.see_through.contains(&t.name))
            .chain(
                self.zones
                    .iter()
                    .filter(|z| self.hides.contains(&z.name) && !z.contains(from) && !z.contains(to)),
            )
            .collect();
        let mut out = Sight {
            standing_in: self
                .zones
                .iter()
                .filter(|z| self.hides.contains(&z.name) && z.contains(to))
                .map(|z| z.name.clone())
                .collect(),
            ..Sight::default()
        };
        for k in 0..SIGHT_LINES {
            let off = if half > 0.0 {
                (k as f64 - half) / half * base / 2.0
            } else {
                0.0
            };
            let end = Point::new(to.x + nx * off, to.y + ny * off);
            let mut clear = true;
            for b in blockers.iter().filter(|b| b.blocks(from, end)) {
                clear = false;
                if !out.hidden_by.contains(&b.name) {
                    out.hidden_by.push(b.name.clone());
                }
            }
            if clear {
                out.lines += 1;
            }
        }
        out
    }

    /// What a route from `from` to `to` goes round: the terrain, and each zone the battlefield
    /// avoids unless the route starts or ends in it (a piece in one walks straight out).
    fn obstacles(&self, from: Point, to: Point) -> Vec<&Polygon> {
        let mut out: Vec<&Polygon> = self.terrain.iter().collect();
        out.extend(
            self.zones
                .iter()
                .filter(|z| self.avoid.contains(&z.name) && !z.contains(from) && !z.contains(to)),
        );
        out
    }

    /// Corners a shortest route may bend round: each convex corner of `obstacles`, pushed just
    /// outside.
    fn waypoints(&self, obstacles: &[&Polygon]) -> Vec<Point> {
        let inside = |p: Point| obstacles.iter().any(|o| o.contains(p));
        let mut out = Vec::new();
        for t in obstacles {
            let n = t.corners.len();
            for i in 0..n {
                let (prev, v, next) = (t.corners[(i + n - 1) % n], t.corners[i], t.corners[(i + 1) % n]);
                let unit = |p: Point| {
                    let d = p.distance(Point::new(0.0, 0.0)).max(1e-12);
                    Point::new(p.x / d, p.y / d)
                };
                let a = unit(Point::new(v.x - prev.x, v.y - prev.y));
                let b = unit(Point::new(v.x - next.x, v.y - next.y));
                let out_dir = unit(Point::new(a.x + b.x, a.y + b.y));
                let w = Point::new(v.x + out_dir.x * CLEARANCE, v.y + out_dir.y * CLEARANCE);
                if self.on_table(w) && !inside(w) {
                    out.push(w);
                }
            }
        }
        out
    }

    /// The shortest route from `from` to `to` round impassable terrain and the zones the
    /// battlefield avoids (Dijkstra over the visibility graph of their corners); when the
    /// avoided zones shut every way, round the terrain alone; `None` if there is none.
    pub fn route(&self, from: Point, to: Point) -> Option<Vec<Point>> {
        let obstacles = self.obstacles(from, to);
        if obstacles.len() > self.terrain.len()
            && let Some(r) = self.route_among(from, to, &obstacles)
        {
            return Some(r);
        }
        let terrain: Vec<&Polygon> = self.terrain.iter().collect();
        self.route_among(from, to, &terrain)
    }

    fn route_among(&self, from: Point, to: Point, obstacles: &[&Polygon]) -> Option<Vec<Point>> {
        let clear = |a: Point, b: Point| !obstacles.iter().any(|t| t.blocks(a, b));
        if clear(from, to) {
            return Some(vec![from, to]);
        }
        let mut nodes = vec![from, to];
        nodes.extend(self.waypoints(obstacles));
        let n = nodes.len();
        let mut dist = vec![f64::INFINITY; n];
        let mut prev = vec![usize::MAX; n];
        let mut done = vec![false; n];
        dist[0] = 0.0;
        for _ in 0..n {
            let Some(u) = (0..n)
                .filter(|&i| !done[i] && dist[i].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
            else {
                break;
            };
            if u == 1 {
                break;
            }
            done[u] = true;
            for v in 0..n {
                if done[v] || v == u {
                    continue;
                }
                let d = dist[u] + nodes[u].distance(nodes[v]);
                if d < dist[v] && clear(nodes[u], nodes[v]) {
                    dist[v] = d;
                    prev[v] = u;
                }
            }
        }
        if !dist[1].is_finite() {
            return None;
        }
        let mut path = vec![nodes[1]];
        let mut at = 1;
        while prev[at] != usize::MAX {
            at = prev[at];
            path.push(nodes[at]);
        }
        path.reverse();
        Some(path)
    }

    /// Moves from `from` towards `to` along the shortest route, at most `max` inches. Returns
    /// the route walked (ending where the move ends), or `None` if `to` cannot be reached.
    pub fn advance(&self, from: Point, to: Point, max: f64) -> Option<Vec<Point>> {
        let route = self.route(from, to)?;
        let mut walked = vec![from];
        let mut left = max;
        for pair in route.windows(2) {
            let leg = pair[0].distance(pair[1]);
            if leg <= left {
                walked.push(pair[1]);
                left -= leg;
            } else {
                walked.push(pair[0].lerp(pair[1], left / leg));
                break;
            }
        }
        Some(walked)
    }
}

/// Length of a route.
pub fn length(route: &[Point]) -> f64 {
    route.windows(2).map(|p| p[0].distance(p[1])).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearings_and_footprint_sides() {
        let c = Point::new(10.0, 10.0);
        assert_eq!(c.bearing_to(Point::new(10.0, 0.0)), 0.0);
        assert!((c.bearing_to(Point::new(20.0, 10.0)) - 90.0).abs() < 1e-9);
        assert!((c.bearing_to(Point::new(10.0, 20.0)) - 180.0).abs() < 1e-9);
        assert!((c.bearing_to(Point::new(0.0, 10.0)) - 270.0).abs() < 1e-9);
        // Heading up the table, 6" long and 2" wide: the diagonals are steep, so a point
        // ahead and a little aside is in front, one level with the centre is a side.
        let side = |facing: f64, x: f64, y: f64| c.footprint_side(facing, 6.0, 2.0, Point::new(x, y));
        assert_eq!(side(0.0, 10.5, 0.0), Side::Front);
        assert_eq!(side(0.0, 20.0, 10.0), Side::Right);
        assert_eq!(side(0.0, 0.0, 10.0), Side::Left);
        assert_eq!(side(0.0, 10.0, 30.0), Side::Rear);
        // Ahead 3, aside 2: past the corner's diagonal (3 : 1): a side.
        assert_eq!(side(0.0, 12.0, 7.0), Side::Right);
        // Turned to face right (90): what was the right side is now in front.
        assert_eq!(side(90.0, 20.0, 10.0), Side::Front);
        assert_eq!(side(90.0, 10.0, 0.0), Side::Left);
        assert_eq!(side(90.0, 0.0, 10.0), Side::Rear);
        // A square footprint: the arcs are quarters.
        let sq = |x: f64, y: f64| c.footprint_side(180.0, 4.0, 4.0, Point::new(x, y));
        assert_eq!(sq(10.0, 20.0), Side::Front);
        assert_eq!(sq(14.0, 15.0), Side::Front);
        assert_eq!(sq(15.0, 14.0), Side::Left);
        assert_eq!(sq(10.0, 10.0), Side::Front);
    }

    fn square_terrain() -> Battlefield {
        Battlefield {
            id: "t".into(),
            label: None,
            width: 72.0,
            height: 48.0,
            zones: Vec::new(),
            terrain: vec![Polygon {
                name: "block".into(),
                corners: vec![
                    Point::new(30.0, 10.0),
                    Point::new(40.0, 10.0),
                    Point::new(40.0, 30.0),
                    Point::new(30.0, 30.0),
                ],
            }],
            avoid: Vec::new(),
            hides: Vec::new(),
            see_through: Vec::new(),
            markers: Vec::new(),
            text: None,
            source: None,
            span: Span::default(),
        }
    }

    #[test]
    fn zones_that_hide_block_sight_not_moves_and_see_through_terrain_the_reverse() {
        let mut b = square_terrain();
        b.zones.push(Polygon {
            name: "woods".into(),
            corners: vec![
                Point::new(10.0, 36.0),
                Point::new(20.0, 36.0),
                Point::new(20.0, 44.0),
                Point::new(10.0, 44.0),
            ],
        });
        let (left, right, inside) = (Point::new(4.0, 40.0), Point::new(26.0, 40.0), Point::new(15.0, 40.0));
        // A plain zone blocks nothing.
        assert_eq!(b.sight(left, right, 2.0).lines, SIGHT_LINES);
        b.hides.push("woods".into());
        let across = b.sight(left, right, 2.0);
        assert_eq!((across.lines, across.hidden_by.clone()), (0, vec!["woods".to_string()]));
        assert!(across.standing_in.is_empty());
        // Standing in it: seen, but in it; a viewer in it sees out.
        let into = b.sight(left, inside, 2.0);
        assert_eq!((into.lines, into.standing_in), (SIGHT_LINES, vec!["woods".to_string()]));
        assert_eq!(b.sight(inside, right, 2.0).lines, SIGHT_LINES);
        // It stops no move.
        assert_eq!(b.route(left, right).unwrap().len(), 2);
        // The block hides what is behind it until it is declared see-through; it still stops moves.
        let (above, below) = (Point::new(35.0, 5.0), Point::new(35.0, 35.0));
        assert_eq!(b.sight(above, below, 2.0).hidden_by, vec!["block".to_string()]);
        b.see_through.push("block".into());
        assert_eq!(b.sight(above, below, 2.0).lines, SIGHT_LINES);
        assert!(b.route(above, below).unwrap().len() > 2);
    }

    #[test]
    fn a_route_goes_round_an_avoided_zone_unless_it_starts_in_it() {
        let mut b = square_terrain();
        b.zones.push(Polygon {
            name: "pool".into(),
            corners: vec![
                Point::new(10.0, 36.0),
                Point::new(20.0, 36.0),
                Point::new(20.0, 44.0),
                Point::new(10.0, 44.0),
            ],
        });
        let (from, to) = (Point::new(5.0, 40.0), Point::new(25.0, 40.0));
        assert_eq!(b.route(from, to).unwrap().len(), 2, "not avoided: straight through");
        b.avoid.push("pool".into());
        let round = b.route(from, to).unwrap();
        assert!(round.len() > 2 && length(&round) > 20.0, "avoided: round it");
        let out = b.route(Point::new(15.0, 40.0), to).unwrap();
        assert_eq!(out.len(), 2, "from inside it: straight out");
    }

    #[test]
    fn a_clear_route_is_a_straight_line() {
        let b = square_terrain();
        let r = b.route(Point::new(10.0, 40.0), Point::new(60.0, 40.0)).unwrap();
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn a_blocked_route_goes_round_the_nearer_corners() {
        let b = square_terrain();
        let (from, to) = (Point::new(20.0, 20.0), Point::new(50.0, 20.0));
        let r = b.route(from, to).unwrap();
        assert!(r.len() >= 3, "{r:?}");
        // Round the top: up to y≈10 and back: 2 × sqrt(10² + 10²) + 10 ≈ 38.28.
        assert!(
            (length(&r) - (2.0 * 200f64.sqrt() + 10.0)).abs() < 0.3,
            "{}",
            length(&r)
        );
        for pair in r.windows(2) {
            assert!(b.clear(pair[0], pair[1]));
        }
    }

    #[test]
    fn advance_stops_after_max_inches() {
        let b = square_terrain();
        let walked = b.advance(Point::new(20.0, 20.0), Point::new(50.0, 20.0), 6.0).unwrap();
        assert!((length(&walked) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn sight_lines_count_the_lines_terrain_leaves_open() {
        let b = square_terrain();
        // Straight across the open table: every line clear.
        assert_eq!(
            b.sight_lines(Point::new(10.0, 40.0), Point::new(60.0, 40.0), 4.0),
            SIGHT_LINES
        );
        // Square behind the block: none.
        assert_eq!(b.sight_lines(Point::new(20.0, 20.0), Point::new(50.0, 20.0), 4.0), 0);
        // A base half hidden by the block's corner: some lines, not all.
        let some = b.sight_lines(Point::new(20.0, 31.0), Point::new(50.0, 31.0), 4.0);
        assert!(some > 0 && some < SIGHT_LINES, "{some}");
    }

    #[test]
    fn scatter_misses_off_table_and_into_terrain() {
        let b = square_terrain();
        assert_eq!(b.scatter(Point::new(2.0, 2.0), 0.0, 5.0), Err(Miss::OffTable));
        assert_eq!(b.scatter(Point::new(35.0, 40.0), 0.0, 20.0), Err(Miss::Impassable));
        let landed = b.scatter(Point::new(10.0, 10.0), 90.0, 7.0).unwrap();
        assert!((landed.x - 17.0).abs() < 1e-9 && (landed.y - 10.0).abs() < 1e-9);
    }
}
