//! Board questions for scripts (read-only): line of sight, distances, moves, areas and marks
//! on a mission's grid. Squares are `"x,y"` texts counted from 1, as on the command line.
//! Each question is charged to the run's `Budget` by the squares and corners it works
//! through. Also the battlefield's geometry a script may need: `scatter`, `bearing` and
//! `footprint_side` (`board::field`).

use super::api::RunState;
use super::run::Step;
use super::sandbox::Budget;
use crate::board::moves::{self, Goal, Steps, UNREACHABLE};
use crate::board::{Mission, Square, area, los};
use crate::diagnostic::find;
use crate::ruleset::Ruleset;
use rhai::{Array, Dynamic, Engine, EvalAltResult, INT, Map};
use std::sync::{Arc, Mutex};

type Res<T> = Result<T, Box<EvalAltResult>>;

fn mission<'r>(r: &'r Ruleset, id: &str) -> Res<&'r Mission> {
    Ok(find(&r.missions, "mission", id)?)
}

fn square(m: &Mission, value: &Dynamic) -> Res<Square> {
    let text = value.to_string();
    match Square::parse(&text) {
        Some(s) if m.grid.contains(s) => Ok(s),
        Some(s) => Err(format!(
            "square {s} is off mission `{}` ({} × {})",
            m.id, m.grid.width, m.grid.height
        )
        .into()),
        None => Err(format!("`{text}` is not a square: write \"x,y\" counted from 1").into()),
    }
}

fn squares(m: &Mission, values: &Array) -> Res<Vec<Square>> {
    values.iter().map(|v| square(m, v)).collect()
}

fn to_array(list: impl IntoIterator<Item = Square>) -> Array {
    list.into_iter().map(|s| Dynamic::from(s.to_string())).collect()
}

/// What a question over every square of a mission costs, in [`Budget::charge`] units.
fn area(m: &Mission) -> u64 {
    m.grid.len() as u64
}

/// What a walk across a mission costs.
fn side(m: &Mission) -> u64 {
    (m.grid.width + m.grid.height).max(1) as u64
}

fn steps_of(diagonal: bool) -> Steps {
    if diagonal { Steps::Eight } else { Steps::Four }
}

pub fn register(engine: &mut Engine, ruleset: &Arc<Ruleset>, state: &Arc<Mutex<RunState>>, budget: &Arc<Budget>) {
    let r = ruleset.clone();
    engine.register_fn("mission", move |id: &str| -> Res<Map> {
        let m = mission(&r, id)?;
        let mut map: Map = m
            .fields
            .iter()
            .map(|(k, v)| (k.as_str().into(), super::api::to_dynamic(v)))
            .collect();
        map.insert("id".into(), m.id.clone().into());
        map.insert("width".into(), Dynamic::from_int(m.grid.width as INT));
        map.insert("height".into(), Dynamic::from_int(m.grid.height as INT));
        let pieces: Array = m
            .pieces
            .iter()
            .map(|p| {
                let mut pm = Map::new();
                pm.insert("id".into(), p.id.clone().into());
                pm.insert("squares".into(), to_array(p.squares()).into());
                Dynamic::from_map(pm)
            })
            .collect();
        map.insert("pieces".into(), pieces.into());
        Ok(map)
    });
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn("marked", move |id: &str, mark: &str| -> Res<Array> {
        let m = mission(&r, id)?;
        b.charge(area(m))?;
        Ok(to_array(m.grid.marked(mark)))
    });
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn("los", move |id: &str, from: Dynamic, to: Dynamic| -> Res<bool> {
        let m = mission(&r, id)?;
        b.charge(side(m))?;
        Ok(los::clear(&m.grid, square(m, &from)?, square(m, &to)?, &|_| false))
    });
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "los",
        move |id: &str, from: Dynamic, to: Dynamic, occupied: Array| -> Res<bool> {
            let m = mission(&r, id)?;
            b.charge(side(m).saturating_mul(1 + occupied.len() as u64))?;
            let occupied = squares(m, &occupied)?;
            Ok(los::clear(&m.grid, square(m, &from)?, square(m, &to)?, &|s| {
                occupied.contains(&s)
            }))
        },
    );
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "visible_from",
        move |id: &str, from: Dynamic, targets: Array, occupied: Array| -> Res<Array> {
            let m = mission(&r, id)?;
            b.charge(
                side(m)
                    .saturating_mul(targets.len() as u64)
                    .saturating_mul(1 + occupied.len() as u64),
            )?;
            let from = square(m, &from)?;
            let occupied = squares(m, &occupied)?;
            let seen = squares(m, &targets)?
                .into_iter()
                .filter(|&t| los::clear(&m.grid, from, t, &|s| occupied.contains(&s)));
            Ok(to_array(seen))
        },
    );
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "distance",
        move |id: &str, from: Dynamic, to: Dynamic, diagonal: bool| -> Res<INT> {
            let m = mission(&r, id)?;
            b.charge(area(m))?;
            let field = moves::distance_field(&m.grid, &[square(m, &to)?], steps_of(diagonal));
            let d = field[m.grid.index(square(m, &from)?)];
            Ok(if d == UNREACHABLE { -1 } else { d as INT })
        },
    );
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "nearest",
        move |id: &str, from: Dynamic, targets: Array| -> Res<Dynamic> {
            let m = mission(&r, id)?;
            b.charge(area(m).saturating_add(targets.len() as u64))?;
            let field = moves::distance_field(&m.grid, &[square(m, &from)?], Steps::Eight);
            let best = squares(m, &targets)?
                .into_iter()
                .filter(|&t| field[m.grid.index(t)] != UNREACHABLE)
                .min_by_key(|&t| (field[m.grid.index(t)], t.y, t.x));
            Ok(best.map_or(Dynamic::UNIT, |s| s.to_string().into()))
        },
    );
    for (name, goal) in [("move_towards", Goal::Towards), ("move_away", Goal::Away)] {
        let (r, st, b) = (ruleset.clone(), state.clone(), budget.clone());
        engine.register_fn(
            name,
            move |id: &str, from: Dynamic, targets: Array, max: INT, occupied: Array| -> Res<Array> {
                let m = mission(&r, id)?;
                b.charge(area(m).saturating_mul(2 + occupied.len() as u64))?;
                let from = square(m, &from)?;
                let targets = squares(m, &targets)?;
                let occupied = squares(m, &occupied)?;
                let mut state = st.lock().unwrap_or_else(|p| p.into_inner());
                let max = max.clamp(0, u16::MAX as INT - 1) as u16;
                let blocked = |s: Square| occupied.contains(&s);
                let mover = moves::Mover {
                    from,
                    max,
                    steps: Steps::Eight,
                    goal,
                    occupied: &blocked,
                };
                let path = moves::move_towards(&m.grid, &mover, &targets, &mut state.rng);
                let path = path.unwrap_or_else(|| vec![from]);
                let text = format!(
                    "{} {from} → {} ({} squares)",
                    if goal == Goal::Towards {
                        "move towards"
                    } else {
                        "move away"
                    },
                    path.last().copied().unwrap_or(from),
                    path.len() - 1
                );
                super::api::push(&mut state, &b, Step::Note { text, source: None })?;
                Ok(to_array(path))
            },
        );
    }
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn("line", move |id: &str, from: Dynamic, dx: INT, dy: INT| -> Res<Array> {
        let m = mission(&r, id)?;
        b.charge(side(m))?;
        if !(-1..=1).contains(&dx) || !(-1..=1).contains(&dy) || (dx == 0 && dy == 0) {
            return Err("line(mission, from, dx, dy): dx and dy are -1, 0 or 1, not both 0".into());
        }
        Ok(to_array(area::line(
            &m.grid,
            square(m, &from)?,
            dx as i32,
            dy as i32,
            usize::MAX,
        )))
    });
    let r = ruleset.clone();
    engine.register_fn("blast", move |id: &str, target: Dynamic| -> Res<Array> {
        let m = mission(&r, id)?;
        Ok(to_array(area::blast(&m.grid, square(m, &target)?)))
    });
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn("region", move |id: &str, from: Dynamic| -> Res<Array> {
        let m = mission(&r, id)?;
        b.charge(area(m))?;
        Ok(to_array(moves::region(&m.grid, square(m, &from)?, Steps::Eight)))
    });
}

use crate::board::field::{Battlefield, Miss, Point};
use rhai::FLOAT;

/// Corners of a battlefield's zones and terrain, in [`Budget::charge`] units.
fn corners(b: &Battlefield) -> u64 {
    b.zones
        .iter()
        .chain(&b.terrain)
        .map(|p| p.corners.len() as u64)
        .sum::<u64>()
        + 1
}

fn battlefield<'r>(r: &'r Ruleset, id: &str) -> Res<&'r Battlefield> {
    Ok(find(&r.battlefields, "battlefield", id)?)
}

/// A number from a script, whole or not.
/// A number under `key` of a map a script gave.
fn map_num(m: &Map, key: &str) -> Res<f64> {
    match m.get(key) {
        Some(v) => num(v),
        None => Err(format!("`footprint_side`: a map without `{key}`").into()),
    }
}

fn num(value: &Dynamic) -> Res<f64> {
    value
        .as_float()
        .or_else(|_| value.as_int().map(|i| i as f64))
        .map_err(|t| format!("expected a number, found {t}").into())
}

fn point_map(p: Point) -> Map {
    let mut m = Map::new();
    m.insert("x".into(), Dynamic::from_float(p.x as FLOAT));
    m.insert("y".into(), Dynamic::from_float(p.y as FLOAT));
    m
}

/// Battlefield questions: markers, scatter, routes round terrain, distances, zones.
pub fn register_field(engine: &mut Engine, ruleset: &Arc<Ruleset>, budget: &Arc<Budget>) {
    let r = ruleset.clone();
    engine.register_fn("battlefield", move |id: &str| -> Res<Map> {
        let b = battlefield(&r, id)?;
        let mut map = Map::new();
        map.insert("id".into(), b.id.clone().into());
        map.insert("width".into(), Dynamic::from_float(b.width));
        map.insert("height".into(), Dynamic::from_float(b.height));
        let markers: Map = b
            .markers
            .iter()
            .map(|(n, p)| (n.as_str().into(), Dynamic::from_map(point_map(*p))))
            .collect();
        map.insert("markers".into(), markers.into());
        let names = |list: &[crate::board::field::Polygon]| -> Array {
            list.iter().map(|z| Dynamic::from(z.name.clone())).collect()
        };
        map.insert("zones".into(), names(&b.zones).into());
        map.insert("terrain".into(), names(&b.terrain).into());
        let listed = |list: &[String]| -> Array { list.iter().map(|n| Dynamic::from(n.clone())).collect() };
        map.insert("hides".into(), listed(&b.hides).into());
        map.insert("see_through".into(), listed(&b.see_through).into());
        Ok(map)
    });
    let (r, bu) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "scatter",
        move |id: &str, x: Dynamic, y: Dynamic, bearing: Dynamic, distance: Dynamic| -> Res<Map> {
            let b = battlefield(&r, id)?;
            bu.charge(corners(b))?;
            let from = Point::new(num(&x)?, num(&y)?);
            let (bearing, distance) = (num(&bearing)?, num(&distance)?);
            let landed = b.scatter(from, bearing, distance);
            let mut m = point_map(from.towards_bearing(bearing, distance));
            m.insert("landed".into(), landed.is_ok().into());
            let miss = match landed {
                Ok(_) => Dynamic::UNIT,
                Err(Miss::OffTable) => "off-table".into(),
                Err(Miss::Impassable) => "impassable".into(),
            };
            m.insert("miss".into(), miss);
            Ok(m)
        },
    );
    let (r, bu) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "advance",
        move |id: &str, x: Dynamic, y: Dynamic, tx: Dynamic, ty: Dynamic, max: Dynamic| -> Res<Map> {
            let b = battlefield(&r, id)?;
            // A visibility graph over the corners: each pair of corners against each edge.
            let v = corners(b) + 2;
            bu.charge(v.saturating_mul(v).saturating_mul(v))?;
            let (from, to) = (Point::new(num(&x)?, num(&y)?), Point::new(num(&tx)?, num(&ty)?));
            let walked = b.advance(from, to, num(&max)?.max(0.0));
            let mut m = match walked.as_ref().and_then(|w| w.last()) {
                Some(end) => point_map(*end),
                None => point_map(from),
            };
            let route: Array = walked
                .iter()
                .flatten()
                .map(|p| Dynamic::from_map(point_map(*p)))
                .collect();
            m.insert("route".into(), route.into());
            let reached = walked
                .and_then(|w| w.last().copied())
                .is_some_and(|end| end.distance(to) < 1e-6);
            m.insert("reached".into(), reached.into());
            Ok(m)
        },
    );
    engine.register_fn(
        "inches",
        |x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| -> Res<FLOAT> {
            Ok(Point::new(num(&x1)?, num(&y1)?).distance(Point::new(num(&x2)?, num(&y2)?)))
        },
    );
    engine.register_fn(
        "bearing",
        |x1: Dynamic, y1: Dynamic, x2: Dynamic, y2: Dynamic| -> Res<FLOAT> {
            Ok(Point::new(num(&x1)?, num(&y1)?).bearing_to(Point::new(num(&x2)?, num(&y2)?)))
        },
    );
    // `footprint_side(#{x, y}, facing, #{length, width}, #{x, y})`: which side of a
    // rectangular footprint a point is in (`Point::footprint_side`).
    engine.register_fn(
        "footprint_side",
        |centre: Map, facing: Dynamic, size: Map, at: Map| -> Res<String> {
            let c = Point::new(map_num(&centre, "x")?, map_num(&centre, "y")?);
            let p = Point::new(map_num(&at, "x")?, map_num(&at, "y")?);
            let side = c.footprint_side(num(&facing)?, map_num(&size, "length")?, map_num(&size, "width")?, p);
            Ok(side.word().to_string())
        },
    );
    let r = ruleset.clone();
    engine.register_fn(
        "in_zone",
        move |id: &str, zone: &str, x: Dynamic, y: Dynamic| -> Res<bool> {
            let b = battlefield(&r, id)?;
            Ok(b.zones_at(Point::new(num(&x)?, num(&y)?)).contains(&zone))
        },
    );
    let r = ruleset.clone();
    engine.register_fn("in_terrain", move |id: &str, x: Dynamic, y: Dynamic| -> Res<bool> {
        Ok(battlefield(&r, id)?
            .terrain_at(Point::new(num(&x)?, num(&y)?))
            .is_some())
    });
}

/// `facing_path(mission, from, facing, to, costs)`: the cheapest actions for a piece that
/// faces one way; `costs` maps `forward`, `forward-diagonal`, `sideways`, `backward`,
/// `backward-diagonal`, `turn` (a quarter turn on the spot) and `turn-with-move` (a quarter turn
/// made as part of a step, before or after it) to action points (leave a step or `turn` out:
/// not allowed; leave `turn-with-move` out: such a turn costs a `turn`).
pub fn register_facing(engine: &mut Engine, ruleset: &Arc<Ruleset>, budget: &Arc<Budget>) {
    use crate::board::facing::{Action, Costs, FACING_NAMES, StepKind, TurnMade, cheapest_path, facing_from_name};
    let (r, b) = (ruleset.clone(), budget.clone());
    engine.register_fn(
        "facing_path",
        move |id: &str, from: Dynamic, facing: &str, to: Dynamic, costs: Map| -> Res<Dynamic> {
            let m = mission(&r, id)?;
            // Four facings a square, eight steps and two turns from each.
            b.charge(area(m).saturating_mul(40))?;
            let Some(f) = facing_from_name(facing) else {
                return Err(format!("`{facing}` is not a facing: use up, right, down or left").into());
            };
            let mut table = Costs::default();
            for (key, value) in &costs {
                let cost = value
                    .as_int()
                    .map_err(|_| format!("cost of `{key}` must be a whole number"))?;
                let cost = u32::try_from(cost).map_err(|_| format!("cost of `{key}` must not be negative"))?;
                match (key.as_str(), StepKind::NAMES.iter().position(|n| *n == key.as_str())) {
                    ("turn", _) => table.turn = Some(cost),
                    ("turn-with-move", _) => table.turn_with_move = Some(cost),
                    (_, Some(i)) => table.steps[i] = Some(cost),
                    _ => {
                        return Err(format!(
                            "unknown action `{key}`: use {}, turn or turn-with-move",
                            StepKind::NAMES.join(", ")
                        )
                        .into());
                    }
                }
            }
            let Some((cost, actions)) = cheapest_path(&m.grid, square(m, &from)?, f, square(m, &to)?, &table) else {
                return Ok(Dynamic::UNIT);
            };
            let mut facing_now = f;
            let list: Array = actions
                .iter()
                .map(|a| {
                    Dynamic::from(match a {
                        Action::Turn { to, made } => {
                            facing_now = *to;
                            let part = match made {
                                TurnMade::OnTheSpot => "",
                                TurnMade::AfterStep => " as part of that step",
                                TurnMade::BeforeStep => " as part of the next step",
                            };
                            format!("turn to face {}{part}", FACING_NAMES[*to])
                        }
                        Action::Step { kind, to } => format!("{} to {to}", kind.name()),
                    })
                })
                .collect();
            let mut out = Map::new();
            out.insert(
                "cost".into(),
                Dynamic::from_int(INT::try_from(cost).unwrap_or(INT::MAX)),
            );
            out.insert("actions".into(), list.into());
            out.insert("facing".into(), FACING_NAMES[facing_now].into());
            Ok(Dynamic::from_map(out))
        },
    );
    engine.register_fn("range", |a: &str, b: &str| -> Res<INT> {
        match (Square::parse(a), Square::parse(b)) {
            (Some(a), Some(b)) => Ok(a.chebyshev(b) as INT),
            _ => Err(format!("range(\"{a}\", \"{b}\"): squares are \"x,y\" from 1").into()),
        }
    });
    let r = ruleset.clone();
    engine.register_fn("section", move |id: &str, at: Dynamic| -> Res<Dynamic> {
        let m = mission(&r, id)?;
        Ok(m.grid
            .section_of(square(m, &at)?)
            .map_or(Dynamic::UNIT, |s| s.to_string().into()))
    });
}

/// A unit on an open table as scripts give it: `#{ x, y }` with an optional `base` diameter.
fn unit_of(value: &Dynamic) -> Res<(Point, f64)> {
    let map = value
        .clone()
        .try_cast::<Map>()
        .ok_or("a unit is a map #{ x, y } (with `base`: its base diameter)")?;
    let get = |k: &str| map.get(k).map(num).transpose();
    let (Some(x), Some(y)) = (get("x")?, get("y")?) else {
        return Err("a unit needs `x` and `y`".into());
    };
    Ok((Point::new(x, y), get("base")?.unwrap_or(0.0)))
}

/// Edge-to-edge distance between two units' bases.
fn gap(a: (Point, f64), b: (Point, f64)) -> f64 {
    (a.0.distance(b.0) - a.1 / 2.0 - b.1 / 2.0).max(0.0)
}

/// Nearest-unit and within-distance questions on open tables, base to base.
pub fn register_units(engine: &mut Engine) {
    engine.register_fn("nearest_unit", |from: Dynamic, units: Array| -> Res<Dynamic> {
        let from = unit_of(&from)?;
        let mut best: Option<(f64, usize)> = None;
        for (i, u) in units.iter().enumerate() {
            let d = gap(from, unit_of(u)?);
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, i));
            }
        }
        Ok(best.map_or(Dynamic::UNIT, |(_, i)| Dynamic::from_int(i as INT)))
    });
    engine.register_fn(
        "within",
        |from: Dynamic, units: Array, distance: Dynamic| -> Res<Array> {
            let from = unit_of(&from)?;
            let limit = num(&distance)?;
            let mut out = Array::new();
            for (i, u) in units.iter().enumerate() {
                if gap(from, unit_of(u)?) <= limit {
                    out.push(Dynamic::from_int(i as INT));
                }
            }
            Ok(out)
        },
    );
    engine.register_fn("gap", |a: Dynamic, b: Dynamic| -> Res<FLOAT> {
        Ok(gap(unit_of(&a)?, unit_of(&b)?))
    });
}
