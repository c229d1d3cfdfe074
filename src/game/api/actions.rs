//! The binding of action points, facings and watches ([`crate::game::actions`]): arguments
//! checked, work charged, priced moves walked step by step with the watches' reactions
//! between steps (`move_priced`, whose walk pays per action through `Game::priced_step`).
//! docs/games.md, "Action points, facing and watches", is the reference.

use super::moves::{AfterStep, after_step};
use super::{Api, GameRef, Res, area, piece_count, side_len, square, squares};
use crate::board::Square;
use crate::board::facing::{self, FACING_NAMES, TurnMade, facing_from_name};
use crate::game::Game;
use crate::game::actions::{Goal, PricedPlan, PricedStep, PricedWalk, plan_shape};
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};

/// A move's goal: a square, a list of squares, or `#{ engage: id }`.
fn goal(g: &Game, value: &Dynamic) -> Result<Goal, String> {
    if let Some(m) = value.read_lock::<Map>() {
        let Some(target) = m.get("engage") else {
            return Err("a goal map names the piece to engage: #{ engage: \"scout-1\" }".into());
        };
        let t = g.on_board(&target.to_string())?;
        return Ok(Goal::Engage(t));
    }
    Ok(Goal::Squares(squares(g, value)?))
}

fn facing_name(f: Option<u8>) -> Dynamic {
    f.map_or(Dynamic::UNIT, |f| FACING_NAMES[usize::from(f) % 4].into())
}

fn no_ap(id: &str) -> String {
    format!(
        "{id} has no action points: the game item declares `action-points FIELD`, and `game.refresh_ap(side)` hands them out"
    )
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn(
        "face",
        move |ctx: NativeCallContext, _: GameRef, id: &str, to: &str| -> Res<()> {
            let pending = a.with(|g, _| {
                let i = g.on_board(id)?;
                let Some(f) = facing_from_name(to) else {
                    return Err(format!("`{to}` is not a facing: use up, right, down or left"));
                };
                g.face(i, f);
                Ok(!g.pending.is_empty())
            })?;
            if pending {
                a.triggers(&ctx)?;
            }
            Ok(())
        },
    );
    let a = api.clone();
    engine.register_fn("facing", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(facing_name(g.state.pieces[g.index(id)?].facing)))
    });
    let a = api.clone();
    engine.register_fn("ap", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.state.pieces[g.index(id)?].ap.map_or(Dynamic::UNIT, Dynamic::from_int)))
    });
    let a = api.clone();
    engine.register_fn("ap_available", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.ap_available(g.index(id)?).map_or(Dynamic::UNIT, Dynamic::from_int)))
    });
    let a = api.clone();
    engine.register_fn("refresh_ap", move |_: GameRef, side: &str| {
        a.with(|g, _| g.refresh_ap(side))
    });
    let a = api.clone();
    engine.register_fn("set_ap", move |_: GameRef, id: &str, n: INT| {
        a.with(|g, _| {
            let i = g.index(id)?;
            g.give_ap(i, n)
        })
    });
    let a = api.clone();
    engine.register_fn(
        "spend",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, what: &str| -> Res<bool> {
            a.activate(&ctx, id)?;
            let react = a.with(|g, _| {
                let i = g.on_board(id)?;
                g.spend_ap(i, n, what)?;
                a.cost(piece_count(g).saturating_mul(side_len(g)))?;
                g.check_reactions(i);
                Ok(!g.pending.is_empty())
            })?;
            if react {
                a.triggers(&ctx)?;
            }
            a.with(|g, _| Ok(g.state.piece(id).is_some_and(|p| p.on_board())))
        },
    );
    let a = api.clone();
    engine.register_fn(
        "react",
        move |ctx: NativeCallContext, _: GameRef, id: &str| -> Res<bool> {
            let react = a.with(|g, _| {
                let i = g.on_board(id)?;
                a.cost(piece_count(g).saturating_mul(side_len(g)))?;
                g.check_reactions(i);
                Ok(!g.pending.is_empty())
            })?;
            if react {
                a.triggers(&ctx)?;
            }
            a.with(|g, _| Ok(g.state.piece(id).is_some_and(|p| p.on_board())))
        },
    );
    let a = api.clone();
    engine.register_fn("watch", move |_: GameRef, id: &str, mode: &str| {
        a.with(|g, _| {
            let i = g.on_board(id)?;
            g.keep_watch(i, mode)
        })
    });
    let a = api.clone();
    engine.register_fn("unwatch", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.index(id)?;
            g.stop_watch(i);
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("watching", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            Ok(g.state.pieces[g.index(id)?]
                .watch
                .clone()
                .map_or(Dynamic::UNIT, Dynamic::from))
        })
    });
    let a = api.clone();
    engine.register_fn("in_arc", move |_: GameRef, id: &str, other: &str| {
        a.with(|g, _| {
            let (i, o) = (g.on_board(id)?, g.on_board(other)?);
            Ok(g.has_in_arc(i, o))
        })
    });
    let a = api.clone();
    engine.register_fn("squares_at", move |_: GameRef, id: &str, n: INT, unseen_by: &str| {
        a.with(|g, _| {
            let i = g.on_board(id)?;
            let n = super::max_steps(n)?;
            a.cost(area(g).saturating_mul(piece_count(g).saturating_add(1)))?;
            Ok(g.squares_at(i, n, unseen_by)
                .into_iter()
                .map(|s| Dynamic::from(s.to_string()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("in_reach", move |_: GameRef, id: &str, side: &str, ap: INT| {
        a.with(|g, _| {
            let i = g.on_board(id)?;
            a.cost(area(g).saturating_mul(40))?;
            let max = u64::try_from(ap.max(0)).unwrap_or(0);
            Ok(g.in_reach(i, side, max)
                .into_iter()
                .map(|(t, c)| {
                    let mut m = Map::new();
                    m.insert("id".into(), g.state.pieces[t].id.clone().into());
                    m.insert("cost".into(), Dynamic::from_int(c as INT));
                    Dynamic::from_map(m)
                })
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("plan_cost", move |_: GameRef, id: &str, to: Dynamic| {
        a.with(|g, _| {
            let i = g.on_board(id)?;
            let goal = goal(g, &to)?;
            a.cost(area(g).saturating_mul(40))?;
            Ok(match g.plan_facing(i, &goal, false) {
                None => Dynamic::UNIT,
                Some((cost, plan)) => {
                    let mut m = Map::new();
                    let (steps, end) = plan_shape(&plan);
                    m.insert("cost".into(), Dynamic::from_int(cost.min(i64::MAX as u64) as INT));
                    m.insert("steps".into(), Dynamic::from_int(steps as INT));
                    m.insert("facing".into(), facing_name(end.or(g.state.pieces[i].facing)));
                    Dynamic::from_map(m)
                }
            })
        })
    });
    for arity in [2, 3] {
        let a = api.clone();
        let f = move |ctx: NativeCallContext, id: &str, to: Dynamic, opts: Map| -> Res<Map> {
            move_priced(&a, &ctx, id, &to, &opts)
        };
        if arity == 2 {
            let f = f.clone();
            engine.register_fn(
                "move_priced",
                move |ctx: NativeCallContext, _: GameRef, id: &str, to: Dynamic| f(ctx, id, to, Map::new()),
            );
        } else {
            engine.register_fn(
                "move_priced",
                move |ctx: NativeCallContext, _: GameRef, id: &str, to: Dynamic, opts: Map| f(ctx, id, to, opts),
            );
        }
    }
}

/// Walks piece `id` along the cheapest priced plan to `to`, paying each action out of its
/// action points; stops when the next action costs more than is left (`stopped: "ap"`), before
/// a step into the sight of `opts.avoid`'s pieces (`"sight"`), when a reaction removes it
/// (`"removed"`), reveals it (`"revealed"`) or shuts the way (`"blocked"`). With `opts.shun`
/// (squares), the plan goes round them; when every way crosses one (`shunned: true`) the walk
/// stops before the first (`"shunned"`), or with `opts.cross` goes through. With `opts.halt`
/// (a side), the walk ends after a step that leaves it beside a piece of that side
/// (`"beside"`), where it may stand.
fn move_priced(a: &Api, ctx: &NativeCallContext, id: &str, to: &Dynamic, opts: &Map) -> Res<Map> {
    a.activate(ctx, id)?;
    let avoid = opts
        .get("avoid")
        .map(|v| v.to_string())
        .filter(|s| !s.is_empty() && s != "()");
    let apart = opts
        .get("apart")
        .map(|v| v.to_string())
        .filter(|s| !s.is_empty() && s != "()");
    // `halt`: the walk ends after a step that leaves it beside a piece of that side.
    let halt = opts
        .get("halt")
        .map(|v| v.to_string())
        .filter(|s| !s.is_empty() && s != "()");
    let shun = opts.get("shun").filter(|v| !v.is_unit()).cloned();
    let cross = match opts.get("cross") {
        None => false,
        Some(v) => v
            .as_bool()
            .map_err(|_| "`cross` in a move's options is true or false".to_string())?,
    };
    let limit = match opts.get("ap") {
        None => None,
        Some(v) => Some(
            v.as_int()
                .map_err(|_| "`ap` in a move's options is a number of action points".to_string())?,
        ),
    };
    let (planned, costs, door, budget, refused) = a.with(|g, _| {
        let i = g.on_board(id)?;
        let goal = goal(g, to)?;
        a.cost(area(g).saturating_mul(40))?;
        let available = g.ap_available(i).ok_or_else(|| no_ap(id))?;
        let budget = limit.map_or(available, |l| l.min(available)).max(0);
        // Only as far as the points go, to the last square on the way it may stop on.
        let shun = match &shun {
            None => Vec::new(),
            Some(v) => match v.read_lock::<Array>() {
                Some(list) => list.iter().map(|s| square(g, s)).collect::<Result<Vec<_>, _>>()?,
                None => return Err("`shun` in a move's options is a list of squares".to_string()),
            },
        };
        a.cost(shun.len() as u64)?;
        let planned = g.priced_plan(i, &goal, budget, &shun);
        let shunned: Vec<Square> = if cross { Vec::new() } else { shun };
        Ok((planned, g.costs_of(i), g.door_cost(i), budget, shunned))
    })?;
    let mut out = Map::new();
    let Some(PricedPlan {
        total,
        plan,
        short,
        crossed,
    }) = planned
    else {
        a.with(|g, _| {
            g.stays(id, "no way leads to where it is going");
            Ok(())
        })?;
        out.insert("steps".into(), Dynamic::from_int(0));
        out.insert("stopped".into(), "stuck".into());
        out.insert("spent".into(), Dynamic::from_int(0));
        out.insert("cost".into(), Dynamic::from_int(-1));
        return Ok(out);
    };
    let walk = PricedWalk {
        door,
        budget,
        avoid: avoid.as_deref(),
        apart: apart.as_deref(),
        refused: &refused,
    };
    let mut spent: i64 = 0;
    let mut steps: INT = 0;
    let mut stopped = "";
    let mut behind: Vec<Square> = Vec::new();
    for action in plan {
        let price = i64::from(costs.of(&action).unwrap_or(0));
        match action {
            facing::Action::Turn { to, made } => {
                if spent + price > budget {
                    stopped = "ap";
                    break;
                }
                let react = a.with(|g, _| {
                    let i = g.on_board(id)?;
                    g.face(i, to);
                    if made == TurnMade::OnTheSpot {
                        g.check_reactions(i);
                    }
                    Ok(!g.pending.is_empty() && !g.state.shares_a_square(i))
                })?;
                spent += price;
                if react {
                    a.triggers(ctx)?;
                    if !a.with(|g, _| Ok(g.state.piece(id).is_some_and(|p| p.on_board())))? {
                        stopped = "removed";
                        break;
                    }
                }
            }
            facing::Action::Step { to, .. } => {
                let mut step = a.with(|g, _| {
                    let i = g.on_board(id)?;
                    a.cost(piece_count(g).saturating_mul(side_len(g)))?;
                    Ok(g.priced_step(&walk, i, to, price, spent))
                })?;
                // A door opened and a watch answered it: the triggers, then the step again
                // (a reaction may have shut the door again: it is opened again, if paid for).
                let mut removed = false;
                while let PricedStep::Opened { paid } = step {
                    spent += paid - price;
                    a.triggers(ctx)?;
                    if !a.with(|g, _| Ok(g.state.piece(id).is_some_and(|p| p.on_board())))? {
                        removed = true;
                        break;
                    }
                    step = a.with(|g, _| {
                        let i = g.on_board(id)?;
                        a.cost(piece_count(g).saturating_mul(side_len(g)))?;
                        Ok(g.priced_step(&walk, i, to, price, spent))
                    })?;
                }
                if removed {
                    stopped = "removed";
                    break;
                }
                let (from, paid, interrupted) = match step {
                    PricedStep::Stopped(why) => {
                        stopped = why;
                        a.with(|g, _| {
                            g.step_back(id, &mut behind);
                            Ok(())
                        })?;
                        break;
                    }
                    PricedStep::Took {
                        from,
                        paid,
                        interrupted,
                    } => (from, paid, interrupted),
                    PricedStep::Opened { .. } => continue,
                };
                behind.push(from);
                spent += paid;
                steps += 1;
                if let AfterStep::Stop(why) = after_step(a, ctx, id, interrupted)? {
                    stopped = why;
                    break;
                }
                if let Some(side) = &halt {
                    let beside = a.with(|g, _| {
                        let i = g.on_board(id)?;
                        Ok(!g.state.shares_a_square(i) && !g.view.adjacent(&g.state.pieces, i, side).is_empty())
                    })?;
                    if beside {
                        stopped = "beside";
                        break;
                    }
                }
            }
        }
    }
    if stopped.is_empty() && short {
        stopped = "ap";
    }
    let (at, left, facing) = a.with(|g, _| {
        g.end_move();
        let i = g.index(id)?;
        if spent > 0 {
            g.spend_ap(i, spent, "move")?;
        }
        let p = &g.state.pieces[i];
        Ok((p.at, p.ap, p.facing))
    })?;
    a.triggers(ctx)?;
    out.insert("steps".into(), Dynamic::from_int(steps));
    out.insert("at".into(), at.map_or(Dynamic::UNIT, |s| s.to_string().into()));
    out.insert("stopped".into(), stopped.into());
    out.insert("spent".into(), Dynamic::from_int(spent));
    out.insert("ap".into(), left.map_or(Dynamic::UNIT, Dynamic::from_int));
    out.insert("facing".into(), facing_name(facing));
    out.insert("cost".into(), Dynamic::from_int(total.min(i64::MAX as u64) as INT));
    out.insert("shunned".into(), crossed.into());
    Ok(out)
}
