//! The game API on an open battlefield (inches): choosing the battlefield, putting pieces at
//! points, moving them so many inches along the shortest route round impassable terrain, and
//! the questions an enemy's choices need (nearest, within, sight, where a move ends), answered
//! by [`crate::game::field`]. Every call is charged to the run's budget like the grid's.

use super::{Api, GameRef, Res, new_fields, piece_count};
use crate::board::field::{Point, SIGHT_LINES};
use crate::game::field::{NearestRule, Towards, inches, may_stand, settle};
use rhai::{Array, Dynamic, Engine, FLOAT, INT, Map, NativeCallContext};

/// A number from a script, whole or not.
pub(super) fn num(value: &Dynamic, what: &str) -> Result<f64, String> {
    let n = value
        .as_float()
        .or_else(|_| value.as_int().map(|i| i as f64))
        .map_err(|t| format!("{what}: expected a number of inches, found {t}"))?;
    if n.is_finite() {
        Ok(n)
    } else {
        Err(format!("{what}: {n} is not a number of inches"))
    }
}

pub(super) fn point_map(p: Point) -> Map {
    let mut m = Map::new();
    m.insert("x".into(), Dynamic::from_float(p.x as FLOAT));
    m.insert("y".into(), Dynamic::from_float(p.y as FLOAT));
    m
}

/// Work units of a shortest route: a visibility graph over the terrain's corners.
fn route_cost(corners: u64) -> u64 {
    let v = corners.saturating_add(2);
    v.saturating_mul(v).saturating_mul(v)
}

fn towards_map(t: &Towards) -> Map {
    let end = *t.route.last().expect("a route is never empty");
    let mut m = point_map(end);
    m.insert("inches".into(), Dynamic::from_float(inches(&t.route)));
    m.insert("left".into(), Dynamic::from_float(t.left));
    m.insert("reached".into(), t.reached.into());
    m.insert("blocked".into(), t.blocked.into());
    m
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("use_battlefield", move |_: GameRef, id: &str| {
        a.with(|g, _| g.use_battlefield(id))
    });
    let a = api.clone();
    engine.register_fn("mark_at", move |_: GameRef, name: &str, x: Dynamic, y: Dynamic| {
        a.with(|g, _| g.mark_at(name, Point::new(num(&x, "x")?, num(&y, "y")?)))
    });
    let a = api.clone();
    engine.register_fn("unmark", move |_: GameRef, name: &str| a.with(|g, _| g.unmark(name)));
    let a = api.clone();
    engine.register_fn("battlefield", move |_: GameRef| {
        a.with(|g, _| {
            let b = g.battlefield()?;
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
        })
    });
    for with_fields in [false, true] {
        let a = api.clone();
        let place = move |kind: &str, side: &str, x: Dynamic, y: Dynamic, fields: Map| {
            a.with(|g, _| {
                let at = Point::new(num(&x, "x")?, num(&y, "y")?);
                g.place_at(kind, side, at, new_fields(&fields)?)
            })
        };
        if with_fields {
            engine.register_fn(
                "place_at",
                move |_: GameRef, kind: &str, side: &str, x: Dynamic, y: Dynamic, fields: Map| {
                    place(kind, side, x, y, fields)
                },
            );
        } else {
            engine.register_fn(
                "place_at",
                move |_: GameRef, kind: &str, side: &str, x: Dynamic, y: Dynamic| place(kind, side, x, y, Map::new()),
            );
        }
    }
    let a = api.clone();
    engine.register_fn(
        "stand",
        move |ctx: NativeCallContext, _: GameRef, id: &str, x: Dynamic, y: Dynamic, why: &str| -> Res<()> {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.index(id)?;
                g.stand(i, Point::new(num(&x, "x")?, num(&y, "y")?), why)
            })
        },
    );
    let a = api.clone();
    engine.register_fn("point", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let p = &g.state.pieces[g.index(id)?];
            Ok(match (p.on_board(), p.point) {
                (true, Some(at)) => Dynamic::from_map(point_map(at)),
                _ => Dynamic::UNIT,
            })
        })
    });
    let a = api.clone();
    engine.register_fn("gap", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.index(from)?, g.index(to)?);
            g.gap(i, j)
        })
    });
    let a = api.clone();
    engine.register_fn("by_range", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, run| {
            let i = g.index(id)?;
            a.cost(piece_count(g))?;
            Ok(g.by_range(i, side, &mut run.rng)?
                .into_iter()
                .map(|(j, d)| {
                    let mut m = Map::new();
                    m.insert("id".into(), g.state.pieces[j].id.clone().into());
                    m.insert("inches".into(), Dynamic::from_float(d));
                    Dynamic::from_map(m)
                })
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "units_within",
        move |_: GameRef, id: &str, side: &str, limit: Dynamic| {
            a.with(|g, run| {
                let i = g.index(id)?;
                let limit = num(&limit, "units_within")?;
                a.cost(piece_count(g))?;
                Ok(g.by_range(i, side, &mut run.rng)?
                    .into_iter()
                    .filter(|&(_, d)| d <= limit)
                    .map(|(j, _)| Dynamic::from(g.state.pieces[j].id.clone()))
                    .collect::<Array>())
            })
        },
    );
    let a = api.clone();
    engine.register_fn("nearest_unit", move |_: GameRef, id: &str, side: &str, rule_map: Map| {
        a.with(|g, run| {
            let i = g.index(id)?;
            let mut rule = NearestRule {
                within: f64::INFINITY,
                sight: false,
                among: None,
            };
            for (k, v) in &rule_map {
                match k.as_str() {
                    "within" => rule.within = num(v, "nearest_unit's `within`")?,
                    "sight" => {
                        rule.sight = v
                            .as_bool()
                            .map_err(|t| format!("nearest_unit's `sight`: expected true or false, found {t}"))?
                    }
                    "among" => {
                        let list = v
                            .read_lock::<Array>()
                            .ok_or("nearest_unit's `among`: expected a list of piece ids")?
                            .iter()
                            .map(|d| d.to_string())
                            .collect();
                        rule.among = Some(list);
                    }
                    other => {
                        return Err(format!(
                            "nearest_unit: no rule `{other}` (a rule has `within` inches, `sight` true or false, `among` a list of ids)"
                        ));
                    }
                }
            }
            let lines = if rule.sight { SIGHT_LINES as u64 * 20 * g.field_corners() } else { 0 };
            a.cost(piece_count(g).saturating_mul(1 + lines))?;
            Ok(g.nearest_unit(i, side, &rule, &mut run.rng)?
                .map_or(Dynamic::UNIT, |j| Dynamic::from(g.state.pieces[j].id.clone())))
        })
    });
    let a = api.clone();
    engine.register_fn("sight", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.index(from)?, g.index(to)?);
            a.cost(SIGHT_LINES as u64 * 20 * g.field_corners())?;
            let sight = g.sight_of(i, j)?;
            let lines = sight.lines;
            let mut m = Map::new();
            let names = |list: Vec<String>| -> Array { list.into_iter().map(Dynamic::from).collect() };
            m.insert("hidden_by".into(), names(sight.hidden_by).into());
            m.insert("standing_in".into(), names(sight.standing_in).into());
            m.insert("lines".into(), Dynamic::from_int(lines as INT));
            m.insert("of".into(), Dynamic::from_int(SIGHT_LINES as INT));
            m.insert("sees".into(), (lines > 0).into());
            m.insert(
                "obscured".into(),
                Dynamic::from_float((SIGHT_LINES - lines) as f64 / SIGHT_LINES as f64),
            );
            Ok(m)
        })
    });
    let a = api.clone();
    engine.register_fn(
        "towards",
        move |_: GameRef, id: &str, x: Dynamic, y: Dynamic, max: Dynamic, stop: Dynamic| {
            a.with(|g, _| {
                let i = g.index(id)?;
                a.cost(route_cost(g.field_corners()))?;
                let target = Point::new(num(&x, "x")?, num(&y, "y")?);
                let t = g.towards(i, target, num(&max, "max")?, num(&stop, "stop")?.max(0.0))?;
                Ok(towards_map(&t))
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "towards_piece",
        move |_: GameRef, id: &str, target: &str, max: Dynamic, stop: Dynamic| {
            a.with(|g, _| {
                let (i, j) = (g.index(id)?, g.index(target)?);
                a.cost(route_cost(g.field_corners()))?;
                let c = g.closest_models(i, j)?;
                let stop = num(&stop, "stop")?.max(0.0) + c.reach;
                let t = g.towards_lead(i, c.lead, c.to, num(&max, "max")?, stop, &[])?;
                Ok(towards_map(&t))
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "move_at",
        move |ctx: NativeCallContext,
              _: GameRef,
              id: &str,
              x: Dynamic,
              y: Dynamic,
              max: Dynamic,
              why: &str|
              -> Res<Map> {
            a.activate(&ctx, id)?;
            let m = a.with(|g, _| {
                let i = g.on_board(id)?;
                a.cost(route_cost(g.field_corners()))?;
                let target = Point::new(num(&x, "x")?, num(&y, "y")?);
                may_stand(g.battlefield()?, settle(g.battlefield()?, target))?;
                let t = g.towards(i, target, num(&max, "max")?, 0.0)?;
                g.walk_route(i, &t, why);
                Ok(towards_map(&t))
            })?;
            a.triggers(&ctx)?;
            Ok(m)
        },
    );
    for with_halts in [false, true] {
        let a = api.clone();
        let close_in = move |ctx: NativeCallContext,
                             id: &str,
                             target: &str,
                             max: Dynamic,
                             stop: Dynamic,
                             why: &str,
                             halts: Array|
              -> Res<Map> {
            a.activate(&ctx, id)?;
            let m = a.with(|g, _| {
                let (i, j) = (g.on_board(id)?, g.on_board(target)?);
                let stop = num(&stop, "stop")?.max(0.0);
                let c = g.closest_models(i, j)?;
                // Every model of the mover against every model of a unit it stops near, as
                // circles round the lead model's way (the unit moves in formation): the move
                // ends when any of its models comes that close to any of theirs.
                let at = g.point_of(i)?;
                let offsets: Vec<Point> = g
                    .models_at(i)?
                    .into_iter()
                    .map(|(p, _)| Point::new(p.x - at.x, p.y - at.y))
                    .collect();
                let mine = g.model_base(i) / 2.0;
                let mut near: Vec<(Point, f64)> = Vec::new();
                let mut names: Vec<String> = Vec::new();
                let mut stops_near = |k: usize, name: &str| -> Result<(), String> {
                    for (m, b) in g.models_at(k)? {
                        for o in &offsets {
                            let centre = Point::new(m.x - o.x + c.lead.x, m.y - o.y + c.lead.y);
                            near.push((centre, stop + mine + b / 2.0));
                            names.push(name.to_string());
                        }
                    }
                    Ok(())
                };
                if offsets.len() > 1 || g.state.pieces[j].models.len() > 1 {
                    stops_near(j, target)?;
                }
                for h in &halts {
                    let name = h.to_string();
                    let k = g.on_board(&name)?;
                    if k == i || k == j {
                        continue;
                    }
                    stops_near(k, &name)?;
                }
                a.cost(route_cost(g.field_corners()).saturating_add(near.len() as u64))?;
                let t = g.towards_lead(i, c.lead, c.to, num(&max, "max")?, stop + c.reach, &near)?;
                g.walk_route(i, &t, why);
                let mut m = towards_map(&t);
                m.insert("gap".into(), Dynamic::from_float(g.gap(i, j)?));
                let by = match t.halted {
                    Some(0) => Dynamic::from(target.to_string()),
                    Some(k) => Dynamic::from(names[k - 1].clone()),
                    None => Dynamic::UNIT,
                };
                m.insert("halted_by".into(), by);
                Ok(m)
            })?;
            a.triggers(&ctx)?;
            Ok(m)
        };
        if with_halts {
            engine.register_fn(
                "close_in",
                move |ctx: NativeCallContext,
                      _: GameRef,
                      id: &str,
                      target: &str,
                      max: Dynamic,
                      stop: Dynamic,
                      why: &str,
                      halts: Array|
                      -> Res<Map> { close_in(ctx, id, target, max, stop, why, halts) },
            );
        } else {
            engine.register_fn(
                "close_in",
                move |ctx: NativeCallContext,
                      _: GameRef,
                      id: &str,
                      target: &str,
                      max: Dynamic,
                      stop: Dynamic,
                      why: &str|
                      -> Res<Map> { close_in(ctx, id, target, max, stop, why, Array::new()) },
            );
        }
    }
    register_models(engine, api);
    let a = api.clone();
    engine.register_fn("route_gap", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.index(from)?, g.index(to)?);
            a.cost(route_cost(g.field_corners()))?;
            Ok(g.route_gap(i, j)?.map_or(Dynamic::UNIT, Dynamic::from_float))
        })
    });
    let a = api.clone();
    engine.register_fn(
        "free_spot",
        move |_: GameRef, id: &str, x: Dynamic, y: Dynamic, gap: Dynamic, reach: Dynamic| {
            a.with(|g, run| {
                let i = g.index(id)?;
                let at = Point::new(num(&x, "x")?, num(&y, "y")?);
                let reach = num(&reach, "reach")?;
                let rings = (reach.clamp(0.0, 1000.0) * 4.0).ceil() as u64;
                // Every ring's points against every piece.
                a.cost(piece_count(g).saturating_mul(rings.saturating_mul(rings).saturating_mul(4).saturating_add(1)))?;
                let spot = g.free_spot(at, g.base(i), num(&gap, "gap")?.max(0.0), reach, Some(i), &mut run.rng)?;
                Ok(spot.map_or(Dynamic::UNIT, |p| Dynamic::from_map(point_map(p))))
            })
        },
    );
}

/// Points from a script: a piece's models (its id), one point (`#{x, y}`), or a list of points.
fn points_of(g: &crate::game::Game, from: &Dynamic) -> Result<Vec<Point>, String> {
    if from.is_unit() {
        return Ok(Vec::new());
    }
    if let Some(id) = from.read_lock::<rhai::ImmutableString>() {
        let j = g.on_board(id.as_str())?;
        return Ok(g.models_at(j)?.into_iter().map(|(p, _)| p).collect());
    }
    let one = |v: &Dynamic| -> Result<Point, String> {
        let m = v
            .read_lock::<Map>()
            .ok_or_else(|| format!("expected a point #{{x, y}}, found {}", v.type_name()))?;
        let get = |k: &str| {
            m.get(k)
                .ok_or_else(|| format!("a point needs `{k}`"))
                .and_then(|d| num(d, k))
        };
        Ok(Point::new(get("x")?, get("y")?))
    };
    if let Some(list) = from.read_lock::<Array>() {
        if list.len() > crate::limits::MAX_UNIT_MODELS {
            return Err(format!("at most {} points", crate::limits::MAX_UNIT_MODELS));
        }
        return list.iter().map(one).collect();
    }
    Ok(vec![one(from)?])
}

/// Units of models: where they stand, which a blast covers, the casualties taken, coherency,
/// and a unit's models set where the table has them.
fn register_models(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("models", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.index(id)?;
            if !g.state.pieces[i].on_board() || g.state.pieces[i].point.is_none() {
                return Ok(Array::new());
            }
            let records = g.model_records(i)?;
            Ok(g.models_at(i)?
                .into_iter()
                .zip(records)
                .map(|((p, b), r)| {
                    let mut m = point_map(p);
                    m.insert("base".into(), Dynamic::from_float(b));
                    if !r.is_empty() {
                        m.insert("record".into(), r.into());
                    }
                    Dynamic::from_map(m)
                })
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "gap_if_at",
        move |_: GameRef, id: &str, x: Dynamic, y: Dynamic, other: &str| {
            a.with(|g, _| {
                let (i, j) = (g.on_board(id)?, g.on_board(other)?);
                g.gap_if_at(i, Point::new(num(&x, "x")?, num(&y, "y")?), j)
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "models_under",
        move |_: GameRef, id: &str, x: Dynamic, y: Dynamic, diameter: Dynamic| {
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let at = Point::new(num(&x, "x")?, num(&y, "y")?);
                Ok(g.models_under(i, at, num(&diameter, "diameter")?.max(0.0))? as INT)
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "remove_models",
        move |_: GameRef, id: &str, n: INT, from: Dynamic, why: &str| {
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let from = points_of(g, &from)?;
                a.cost(from.len() as u64 * crate::limits::MAX_UNIT_MODELS as u64)?;
                let taken = g.remove_models(i, n.max(0) as usize, &from, why)?;
                Ok(taken
                    .into_iter()
                    .map(|p| Dynamic::from_map(point_map(p)))
                    .collect::<Array>())
            })
        },
    );
    let a = api.clone();
    engine.register_fn("coherent", move |_: GameRef, id: &str, within: Dynamic| {
        a.with(|g, _| {
            let i = g.on_board(id)?;
            a.cost(crate::limits::MAX_UNIT_MODELS as u64)?;
            g.coherent(i, num(&within, "within")?)
        })
    });
    let a = api.clone();
    engine.register_fn(
        "set_models",
        move |ctx: NativeCallContext, _: GameRef, id: &str, points: Array, why: &str| -> Res<()> {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let points = points_of(g, &Dynamic::from_array(points))?;
                g.set_models(i, &points, None, why)
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "set_models",
        move |ctx: NativeCallContext, _: GameRef, id: &str, points: Array, records: Array, why: &str| -> Res<()> {
            a.activate(&ctx, id)?;
            let records = records
                .into_iter()
                .map(|r| {
                    r.into_immutable_string()
                        .map(|s| s.to_string())
                        .map_err(|t| format!("set_models: each model's record is a string (\"\" for none), not {t}"))
                })
                .collect::<Result<Vec<String>, String>>()?;
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let points = points_of(g, &Dynamic::from_array(points))?;
                g.set_models(i, &points, Some(&records), why)
            })
        },
    );
}
