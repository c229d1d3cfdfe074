//! Points and zones of an open battlefield asked about in bulk: the gap from a piece's base to
//! a point, which side alone has pieces near a point, the numbered markers of a kind, the
//! marker a piece holds, and the first zone of a kind a route crosses (sampled along it); and
//! the one change of a battlefield a game may make, a zone added during play
//! ([`Game::add_zone`], the action `AddZone`: a wreck left where a vehicle died). Each
//! answers in one call what a script would otherwise loop over pieces, markers or sample
//! points for (`game.gap_to_point`, `game.holder_at`, `game.marker_held`,
//! `game.numbered_markers`, `game.zone_crossed`; docs/games.md, "Pieces on a battlefield");
//! the binding is `api/zones.rs`. The state keeps the zones added (`added_zones`), and
//! `Game::battlefield` (`field.rs`) answers with the package's battlefield plus them.

use super::Game;
use crate::board::field::Point;

/// At most this many sample points a leg of a route (`zone_crossed`).
pub const MAX_SAMPLES_A_LEG: u64 = 200;

/// At most this many corners a zone added during play (`game.add_zone`).
pub const MAX_ADDED_ZONE_CORNERS: usize = 64;

impl Game {
    /// Inches from piece `i`'s base edge to a point (0 when the point is under the base): of
    /// its closest model, for a unit of several.
    pub fn gap_to_point(&self, i: usize, to: Point) -> Result<f64, String> {
        let d = self
            .models_at(i)?
            .into_iter()
            .map(|(at, base)| at.distance(to) - base / 2.0)
            .fold(f64::INFINITY, f64::min);
        Ok(if d < 0.0 { 0.0 } else { d })
    }

    /// The one side that has pieces on the board within `range` inches (base edge) of a
    /// point, or `None` when no side or more than one has.
    pub fn holder_at(&self, at: Point, range: f64) -> Result<Option<&str>, String> {
        let mut found: Option<&str> = None;
        let mut contested = false;
        for i in self.pieces_on_board("") {
            if self.gap_to_point(i, at)? <= range {
                let side = self.state.pieces[i].side.as_str();
                match found {
                    None => found = Some(side),
                    Some(s) if s != side => contested = true,
                    Some(_) => {}
                }
            }
        }
        Ok(if contested { None } else { found })
    }

    /// The first of the markers `PREFIX-1` to `PREFIX-last` (in number order) within `range`
    /// inches of piece `i`'s base edge whose holder ([`Game::holder_at`], same range) is the
    /// piece's side: the marker the piece holds, with its number. `None` when it holds none.
    pub fn marker_held(&self, i: usize, prefix: &str, last: u32, range: f64) -> Result<Option<(u32, Point)>, String> {
        for (n, at) in self.numbered_markers(prefix, last)? {
            if self.gap_to_point(i, at)? <= range
                && self.holder_at(at, range)?.unwrap_or("") == self.state.pieces[i].side
            {
                return Ok(Some((n, at)));
            }
        }
        Ok(None)
    }

    /// The battlefield's markers named `PREFIX-1` to `PREFIX-last`, in number order, each with
    /// its number (those missing left out).
    pub fn numbered_markers(&self, prefix: &str, last: u32) -> Result<Vec<(u32, Point)>, String> {
        let b = self.battlefield()?;
        let mut out = Vec::new();
        for n in 1..=last {
            let name = format!("{prefix}-{n}");
            // The last marker of a name wins, as in the battlefield's map of markers.
            if let Some((_, p)) = b.markers.iter().rev().find(|(m, _)| *m == name) {
                out.push((n, *p));
            }
        }
        Ok(out)
    }

    /// Adds a zone to the battlefield from now on (`game.add_zone`): `corners` in order (3 to
    /// [`MAX_ADDED_ZONE_CORNERS`], on the table), a name no zone of the battlefield has, and
    /// whether it hides what is behind it (as a battlefield's `hides` zones).
    pub fn add_zone(&mut self, name: &str, corners: Vec<Point>, hides: bool) -> Result<(), String> {
        let b = self.battlefield()?;
        if name.is_empty() || name.len() > 64 {
            return Err("add_zone: a zone's name is 1 to 64 characters".into());
        }
        if b.zones.iter().any(|z| z.name == name) {
            return Err(format!("add_zone: the battlefield has a zone `{name}` already"));
        }
        if corners.len() < 3 || corners.len() > MAX_ADDED_ZONE_CORNERS {
            return Err(format!(
                "add_zone: a zone has 3 to {MAX_ADDED_ZONE_CORNERS} corners, not {}",
                corners.len()
            ));
        }
        if let Some(p) = corners
            .iter()
            .find(|p| !p.x.is_finite() || !p.y.is_finite() || !b.on_table(**p))
        {
            return Err(format!(
                "add_zone: corner {:.2},{:.2} is off the {} × {} table",
                p.x, p.y, b.width, b.height
            ));
        }
        if self.state.added_zones.len() >= crate::limits::MAX_GAME_PIECES {
            return Err(format!(
                "add_zone: a game adds at most {} zones (`MAX_GAME_PIECES`)",
                crate::limits::MAX_GAME_PIECES
            ));
        }
        let shown: Vec<String> = corners.iter().map(|p| format!("({:.1}, {:.1})", p.x, p.y)).collect();
        let what = if hides { ", which hides what is behind it" } else { "" };
        self.act(
            "zone",
            format!("zone {name} added to the battlefield{what}: {}", shown.join(" ")),
            None,
            super::state::Action::AddZone {
                name: name.into(),
                corners,
                hides,
            },
        );
        Ok(())
    }

    /// The first of the battlefield's zones named `PREFIX-…` (in the battlefield's order) that a
    /// route's straight legs cross or touch, sampled `per_inch` times an inch (at least once and
    /// at most [`MAX_SAMPLES_A_LEG`] times a leg, both ends included; the last point is a leg of
    /// its own). `None` when no zone of the kind is crossed.
    pub fn zone_crossed(&self, prefix: &str, route: &[Point], per_inch: f64) -> Result<Option<String>, String> {
        let b = self.battlefield()?;
        let wanted = format!("{prefix}-");
        let zones: Vec<&str> = b
            .zones
            .iter()
            .map(|z| z.name.as_str())
            .filter(|n| n.starts_with(&wanted))
            .collect();
        if zones.is_empty() || route.is_empty() {
            return Ok(None);
        }
        let step = 1.0 / per_inch;
        for (i, &a) in route.iter().enumerate() {
            let b_end = route.get(i + 1).copied().unwrap_or(a);
            let len = a.distance(b_end);
            let n = ((len / step).ceil()).clamp(1.0, MAX_SAMPLES_A_LEG as f64) as u64;
            for k in 0..=n {
                let t = k as f64 / n as f64;
                let at = Point::new(a.x + (b_end.x - a.x) * t, a.y + (b_end.y - a.y) * t);
                for z in &zones {
                    if b.zones.iter().any(|p| p.name == *z && p.contains(at)) {
                        return Ok(Some(z.to_string()));
                    }
                }
            }
        }
        Ok(None)
    }
}
