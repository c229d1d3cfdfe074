//! The binding of the decision verbs ([`crate::game::verbs`]) and of the piece getters:
//! arguments converted and checked, work charged, moves walked. The decisions themselves are
//! kernel methods on `Game`.

use super::moves::walk;
use super::{Api, GameRef, Res, area, max_steps, piece_count, side_len, stuck};
use crate::game::Game;
use crate::game::event::Candidate;
use crate::game::verbs::{
    Advance, Aim, Criterion, Filter, Order, Plan, RankMode, Ranked, Rung, Sight, TargetChoice, TargetRule,
};
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};

pub(super) fn register(engine: &mut Engine, api: &Api) {
    register_getters(engine, api);
    let a = api.clone();
    engine.register_fn("units", move |_: GameRef, side: &str, filter: &str, order: &str| {
        a.with(|g, run| {
            let (filter, order) = (Filter::parse(filter)?, Order::parse(order)?);
            a.cost(area(g))?;
            let ids: Array = g
                .units(side, filter, order, &mut run.rng)
                .into_iter()
                .map(|i| Dynamic::from(g.state.pieces[i].id.clone()))
                .collect();
            Ok(ids)
        })
    });
    let a = api.clone();
    engine.register_fn("target", move |_: GameRef, id: &str, side: &str, rule: Map| {
        a.with(|g, run| {
            let i = g.on_grid(id)?;
            let rule = target_rule(&rule)?;
            a.cost(area(g).saturating_add(piece_count(g).saturating_mul(side_len(g))))?;
            let Some(choice) = g.target_choice(i, side, &rule, &mut run.rng) else {
                return Ok(Dynamic::UNIT);
            };
            if let Some(die) = choice.die {
                log_tie_die(g, i, die, "as near a target");
            }
            log_choice(g, i, &rule, &choice);
            Ok(g.state.pieces[choice.chosen].id.clone().into())
        })
    });
    let a = api.clone();
    engine.register_fn(
        "rank",
        move |_: GameRef, candidates: Array, rules: Array, mover: Dynamic, mode: &str| -> Res<Dynamic> {
            let ranked = rank(&a, &candidates, &rules, &mover, mode, false)?;
            Ok(ranked.first().map_or(Dynamic::UNIT, |(id, r)| {
                let mut m = Map::new();
                m.insert("id".into(), id.clone().into());
                m.insert("why".into(), r.why.clone().into());
                m.insert("tied".into(), Dynamic::from_int(r.tied as INT));
                Dynamic::from_map(m)
            }))
        },
    );
    let a = api.clone();
    engine.register_fn(
        "rank_all",
        move |_: GameRef, candidates: Array, rules: Array, mover: Dynamic, mode: &str| -> Res<Array> {
            let ranked = rank(&a, &candidates, &rules, &mover, mode, true)?;
            Ok(ranked.into_iter().map(|(id, _)| Dynamic::from(id)).collect())
        },
    );
    let a = api.clone();
    engine.register_fn(
        "advance",
        move |ctx: NativeCallContext, _: GameRef, id: &str, side: &str, n: INT, how: &str| -> Res<Map> {
            a.activate(&ctx, id)?;
            let plan = a.with(|g, run| {
                let i = g.on_grid(id)?;
                let (max, how) = (max_steps(n)?, Advance::parse(how)?);
                a.cost(area(g).saturating_mul(18))?;
                Ok(g.plan_advance(i, side, max, how, &mut run.rng))
            })?;
            follow(&a, &ctx, id, plan)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "withdraw",
        move |ctx: NativeCallContext, _: GameRef, id: &str, side: &str, n: INT| -> Res<Map> {
            a.activate(&ctx, id)?;
            let plan = a.with(|g, run| {
                let i = g.on_grid(id)?;
                let max = max_steps(n)?;
                a.cost(area(g).saturating_mul(9))?;
                Ok(g.plan_withdraw(i, side, max, &mut run.rng))
            })?;
            follow(&a, &ctx, id, plan)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "aim",
        move |ctx: NativeCallContext, _: GameRef, id: &str, side: &str, n: INT, how: &str| -> Res<Map> {
            a.activate(&ctx, id)?;
            let plan = a.with(|g, run| {
                let i = g.on_board(id)?;
                let (max, aim) = (max_steps(n)?, Aim::parse(how)?);
                let targets = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
                a.cost(area(g).saturating_mul(18 + targets.saturating_mul(side_len(g))))?;
                Ok(g.plan_aim(i, side, max, aim, &mut run.rng))
            })?;
            follow(&a, &ctx, id, plan)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "take_cover",
        move |ctx: NativeCallContext, _: GameRef, id: &str, side: &str, n: INT| -> Res<Map> {
            a.activate(&ctx, id)?;
            let plan = a.with(|g, run| {
                let i = g.on_board(id)?;
                let max = max_steps(n)?;
                let watchers = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
                a.cost(area(g).saturating_mul(18 + watchers.saturating_mul(side_len(g))))?;
                Ok(g.plan_cover(i, side, max, &mut run.rng))
            })?;
            follow(&a, &ctx, id, plan)
        },
    );
}

/// `game.rank` / `game.rank_all`: the candidates and the list converted and checked, the work
/// charged (candidates × rungs, once per pick for the whole order), each die rolled logged as
/// the roll a script's `random(1, n)` logs.
fn rank(
    a: &Api,
    candidates: &Array,
    rules: &Array,
    mover: &Dynamic,
    mode: &str,
    all: bool,
) -> Res<Vec<(String, Ranked)>> {
    let mode = RankMode::parse(mode)?;
    let rungs = rules
        .iter()
        .enumerate()
        .map(|(k, r)| rung(k, r))
        .collect::<Result<Vec<Rung>, String>>()?;
    a.with(|g, run| {
        let ids = candidates
            .iter()
            .map(|c| {
                let id = c
                    .clone()
                    .into_immutable_string()
                    .map_err(|_| format!("rank: a candidate is a piece's id, not `{c}`"))?;
                g.on_board(&id)
            })
            .collect::<Result<Vec<usize>, String>>()?;
        let mover = if mover.is_unit() {
            None
        } else {
            let id = mover
                .clone()
                .into_immutable_string()
                .map_err(|_| format!("rank: the mover is a piece's id or (), not `{mover}`"))?;
            Some(g.on_board(&id)?)
        };
        let tests: u64 = rungs.iter().map(|r| r.test.len().max(1) as u64).sum();
        let picks = if all { ids.len() as u64 } else { 1 };
        a.cost((ids.len() as u64).saturating_mul(tests).saturating_mul(picks))?;
        let ranked = if all {
            g.rank_all(&ids, &rungs, mover, mode, &mut run.rng)
        } else {
            g.rank(&ids, &rungs, mover, mode, &mut run.rng).into_iter().collect()
        };
        let mut out = Vec::with_capacity(ranked.len());
        for r in ranked {
            if let Some((n, value)) = r.die {
                let roll = crate::dice::DiceRoll::random(1, n, value);
                let step = crate::script::Step::Roll {
                    roll,
                    why: Some(format!("a die among {n} as high on the priority list")),
                    piece: mover.map(|m| g.state.pieces[m].id.clone()),
                };
                a.budget.try_log(step.log_bytes())?;
                run.steps.push(step);
            }
            out.push((g.state.pieces[r.chosen].id.clone(), r));
        }
        Ok(out)
    })
}

/// One rung of `rank`'s list: `#{ why, field, equals, watching, not_watching, faces }`.
fn rung(k: usize, value: &Dynamic) -> Result<Rung, String> {
    const KEYS: [&str; 6] = ["why", "field", "equals", "watching", "not_watching", "faces"];
    let n = k + 1;
    let map = value.clone().try_cast::<Map>().ok_or_else(|| {
        format!(
            "rank: rung {n} is a map such as #{{ why: \"holding the objective\", field: \"objective\", equals: true }}"
        )
    })?;
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None => Ok(None),
            Some(v) => v
                .clone()
                .into_immutable_string()
                .map(|s| Some(s.to_string()))
                .map_err(|_| format!("rank: rung {n}'s `{key}` is a text")),
        }
    };
    let mut test = Vec::new();
    for key in map.keys() {
        if !KEYS.contains(&key.as_str()) {
            let hint = crate::diagnostic::did_you_mean(key, KEYS.iter().copied())
                .unwrap_or_else(|| format!("a rung has: {}", KEYS.join(", ")));
            return Err(format!("rank: rung {n} has no `{key}`; {hint}"));
        }
    }
    let why = text("why")?.ok_or_else(|| format!("rank: rung {n} needs a `why`, the reason the log gives"))?;
    if let Some(field) = text("field")? {
        let is = map
            .get("equals")
            .map_or(Ok(serde_json::Value::Bool(true)), super::to_json)?;
        test.push(Criterion::Field(field, is));
    } else if map.contains_key("equals") {
        return Err(format!("rank: rung {n} has `equals` but no `field` to compare"));
    }
    match map.get("watching") {
        None => {}
        Some(v) if v.is_unit() => test.push(Criterion::Watching(None)),
        Some(_) => test.push(Criterion::Watching(text("watching")?)),
    }
    if let Some(w) = text("not_watching")? {
        test.push(Criterion::NotWatching(w));
    }
    if let Some(v) = map.get("faces") {
        let faces = v
            .as_bool()
            .map_err(|_| format!("rank: rung {n}'s `faces` is true or false"))?;
        test.push(Criterion::Faces(faces));
    }
    Ok(Rung { why, test })
}

/// A target chosen goes in the referee's log as a `choice` (an account shows it with
/// `--verbose`): what it was chosen among, each with its distance and why it lost.
/// The die that broke a tie among pieces `how` near piece `i` (`die`: among how many, what
/// it showed), a roll in the log like any other: a player at the table rolled it.
fn log_tie_die(g: &mut Game, i: usize, (n, value): (u64, u64), how: &str) {
    let step = crate::script::Step::Roll {
        roll: crate::dice::DiceRoll::random(1, n as i64, value as i64),
        why: Some(format!("a die among {n} {how}")),
        piece: Some(g.state.pieces[i].id.clone()),
    };
    g.absorb(vec![step]);
}

fn log_choice(g: &mut Game, i: usize, rule: &TargetRule, choice: &TargetChoice) {
    let pieces = &g.state.pieces;
    let (who, chosen) = (&pieces[i].id, &pieces[choice.chosen].id);
    let best = choice.candidates[0];
    let measure = if rule.adjacent {
        "beside it".to_string()
    } else {
        let sight = if rule.sight == Sight::Shoot { " in sight" } else { "" };
        format!("the nearest{sight}, {} away", best.1)
    };
    let mut text = format!("{who} picks {chosen}: {measure}");
    if choice.tied > 1 {
        let how = if rule.random_ties {
            "the dice"
        } else {
            "the order of play"
        };
        text.push_str(&format!(", one of {} as near, picked by {how}", choice.tied));
    } else if choice.candidates.len() > 1 && best.1 == choice.candidates[1].1 {
        text.push_str(", first in the rank of kinds");
    }
    let candidates = choice
        .candidates
        .iter()
        .enumerate()
        .map(|(n, &(b, d, rank))| Candidate {
            piece: Some(pieces[b].id.clone()),
            distance: Some(i64::from(d)),
            visible: (rule.sight == Sight::Shoot).then_some(true),
            why: Some(if b == choice.chosen {
                "chosen".into()
            } else if n < choice.tied {
                "as near: not picked".into()
            } else if d == best.1 && rank > best.2 {
                "as near, lower in the rank".into()
            } else {
                "farther".into()
            }),
            ..Candidate::default()
        })
        .collect();
    let who = who.clone();
    g.choice(&who, text, candidates);
}

/// Walks a verb's plan; the reason goes on the move's line, or on a line of its own when the
/// piece stays.
fn follow(a: &Api, ctx: &NativeCallContext, id: &str, plan: Plan) -> Res<Map> {
    let Plan {
        path,
        why,
        door,
        toward,
        die,
    } = plan;
    if let Some(die) = die {
        a.with(|g, _| {
            let i = g.index(id)?;
            log_tie_die(g, i, die, "as near");
            Ok(())
        })?;
    }
    let mut m = if path.is_empty() {
        a.with(|g, _| {
            let id = g.state.pieces[g.index(id)?].id.clone();
            g.stays(&id, &why);
            Ok(())
        })?;
        stuck()
    } else {
        a.with(|g, _| {
            g.move_reason = Some(why.clone());
            g.move_target = toward;
            Ok(())
        })?;
        let end = path.last().copied();
        let m = walk(a, ctx, id, path)?;
        // A walk refused before its first step logs no segment: its reason and target go.
        a.with(|g, _| {
            g.move_reason = None;
            g.move_target = None;
            Ok(())
        })?;
        // The door is opened only from where the plan said it would stand.
        let arrived = a.with(|g, _| Ok(g.state.pieces[g.index(id)?].at == end))?;
        if !arrived {
            let mut m = m;
            m.insert("why".into(), why.into());
            return Ok(m);
        }
        m
    };
    if let Some((x, y)) = door {
        let open = a.with(|g, _| Ok(g.door_between(x, y) == Some(false)))?;
        if open {
            a.with(|g, _| {
                a.cost(super::sightings_cost(g))?;
                g.open_door(x, y)
            })?;
            a.triggers(ctx)?;
            m.insert(
                "door".into(),
                Dynamic::from_array(vec![x.to_string().into(), y.to_string().into()]),
            );
        }
    }
    m.insert("why".into(), why.into());
    Ok(m)
}

fn target_rule(map: &Map) -> Result<TargetRule, String> {
    const KEYS: [&str; 5] = ["sight", "adjacent", "face_up", "rank", "ties"];
    let mut rule = TargetRule::default();
    for (key, value) in map {
        let bad = |what: &str| format!("target rule `{key}`: {what}");
        match key.as_str() {
            "sight" => {
                rule.sight = match value.clone().into_immutable_string().as_deref() {
                    Ok("shoot") => Sight::Shoot,
                    Ok("any") => Sight::Any,
                    _ => return Err(bad("give \"shoot\" (in sight to shoot at) or \"any\"")),
                }
            }
            "adjacent" => rule.adjacent = value.as_bool().map_err(|_| bad("give true or false"))?,
            "face_up" => rule.face_up = value.as_bool().map_err(|_| bad("give true or false"))?,
            "rank" => {
                let kinds = value
                    .clone()
                    .try_cast::<Array>()
                    .ok_or_else(|| bad("give a list of kinds, first preferred"))?;
                rule.rank = kinds.into_iter().map(|k| k.to_string()).collect();
            }
            "ties" => {
                rule.random_ties = match value.clone().into_immutable_string().as_deref() {
                    Ok("random") => true,
                    Ok("order") => false,
                    _ => {
                        return Err(bad(
                            "give \"random\" (the dice decide, the default) or \"order\" (placement order)",
                        ));
                    }
                }
            }
            other => {
                let hint = crate::diagnostic::did_you_mean(other, KEYS.iter().copied())
                    .unwrap_or_else(|| format!("a rule has: {}", KEYS.join(", ")));
                return Err(format!("no target rule `{other}`; {hint}"));
            }
        }
    }
    Ok(rule)
}

/// What scripts ask of one piece most often, each a plain value: no map of the piece is built.
fn register_getters(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    // The id the piece goes by now: a piece revealed under `reveal-ids by-kind` took a new
    // one (the old still finds it, but the log names it by the new).
    engine.register_fn("id", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].id.clone()))
    });
    let a = api.clone();
    engine.register_fn("kind", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].kind.clone()))
    });
    let a = api.clone();
    engine.register_fn("side_of", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].side.clone()))
    });
    let a = api.clone();
    engine.register_fn("status", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].status.clone()))
    });
    let a = api.clone();
    engine.register_fn("hidden", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].hidden.is_some()))
    });
    let a = api.clone();
    engine.register_fn("life", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].life as INT))
    });
    let a = api.clone();
    engine.register_fn("at", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            Ok(g.state.pieces[g.index(id)?]
                .at
                .map_or(Dynamic::UNIT, |s| s.to_string().into()))
        })
    });
    let a = api.clone();
    engine.register_fn("stat", move |_: GameRef, id: &str, field: &str| {
        a.with(|g, _| {
            let i = g.index(id)?;
            g.stat(i, field)
                .map(crate::script::to_dynamic)
                .ok_or_else(|| format!("{id} ({}) has no stat `{field}`", g.state.pieces[i].kind))
        })
    });
}
