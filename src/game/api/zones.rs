//! The game API's bulk questions about points and zones of a battlefield (`game.gap_to_point`,
//! `game.holder_at`, `game.marker_held`, `game.numbered_markers`, `game.zone_crossed`) and
//! `game.add_zone` (a zone added during play), answered by
//! [`crate::game::zones`].

use super::field::{num, point_map};
use super::{Api, GameRef, piece_count};
use crate::board::field::Point;
use crate::game::zones::MAX_SAMPLES_A_LEG;
use rhai::{Array, Dynamic, Engine, INT, Map};

/// A point from a script: a map with numbers `x` and `y` (other keys are left alone).
/// A numbered marker for a script: `#{ n, x, y }`.
fn marker_map(n: u32, p: Point) -> Dynamic {
    let mut m = Map::new();
    m.insert("n".into(), Dynamic::from_int(INT::from(n)));
    m.extend(point_map(p));
    Dynamic::from_map(m)
}

/// A count of numbered markers from a script (0 to 1000).
fn marker_count(last: INT, what: &str) -> Result<u32, String> {
    u32::try_from(last)
        .ok()
        .filter(|&n| n <= 1_000)
        .ok_or_else(|| format!("{what}: {last} is not a count of markers from 0 to 1000"))
}

fn point_arg(value: &Dynamic, what: &str) -> Result<Point, String> {
    let map = value
        .read_lock::<Map>()
        .ok_or_else(|| format!("{what}: expected a point #{{ x, y }}, found {}", value.type_name()))?;
    let coord = |k: &str| match map.get(k) {
        Some(v) => num(v, what),
        None => Err(format!("{what}: a point needs `{k}`")),
    };
    Ok(Point::new(coord("x")?, coord("y")?))
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("gap_to_point", move |_: GameRef, id: &str, x: Dynamic, y: Dynamic| {
        a.with(|g, _| {
            let i = g.index(id)?;
            g.gap_to_point(i, Point::new(num(&x, "x")?, num(&y, "y")?))
        })
    });
    let a = api.clone();
    engine.register_fn(
        "holder_at",
        move |_: GameRef, x: Dynamic, y: Dynamic, range: Dynamic| {
            a.with(|g, _| {
                a.cost(piece_count(g))?;
                let at = Point::new(num(&x, "x")?, num(&y, "y")?);
                Ok(g.holder_at(at, num(&range, "range")?)?.unwrap_or("").to_string())
            })
        },
    );
    let a = api.clone();
    engine.register_fn("numbered_markers", move |_: GameRef, prefix: &str, last: INT| {
        a.with(|g, _| {
            let last = marker_count(last, "numbered_markers")?;
            a.cost(u64::from(last))?;
            Ok(g.numbered_markers(prefix, last)?
                .into_iter()
                .map(|(n, p)| marker_map(n, p))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "marker_held",
        move |_: GameRef, id: &str, prefix: &str, last: INT, range: Dynamic| {
            a.with(|g, _| {
                let i = g.index(id)?;
                let last = marker_count(last, "marker_held")?;
                // Each marker against each piece.
                a.cost(u64::from(last).saturating_mul(piece_count(g).max(1)))?;
                Ok(match g.marker_held(i, prefix, last, num(&range, "range")?)? {
                    Some((n, p)) => marker_map(n, p),
                    None => Dynamic::UNIT,
                })
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "add_zone",
        move |_: GameRef, name: &str, corners: Array, hides: bool| {
            a.with(|g, _| {
                a.cost(corners.len() as u64)?;
                let corners = corners
                    .iter()
                    .map(|p| point_arg(p, "add_zone's corners"))
                    .collect::<Result<Vec<_>, _>>()?;
                g.add_zone(name, corners, hides)
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "zone_crossed",
        move |_: GameRef, prefix: &str, route: Array, per_inch: Dynamic| {
            a.with(|g, _| {
                let per_inch = num(&per_inch, "zone_crossed's samples an inch")?;
                if per_inch <= 0.0 {
                    return Err(format!(
                        "zone_crossed: {per_inch} samples an inch is not a positive number"
                    ));
                }
                let route = route
                    .iter()
                    .map(|p| point_arg(p, "zone_crossed's route"))
                    .collect::<Result<Vec<_>, _>>()?;
                // Each sample point against each zone.
                let legs = route.len() as u64;
                let zones = g.battlefield()?.zones.len() as u64;
                a.cost(legs.saturating_mul(MAX_SAMPLES_A_LEG + 1).saturating_mul(zones))?;
                Ok(g.zone_crossed(prefix, &route, per_inch)?.unwrap_or_default())
            })
        },
    );
}
