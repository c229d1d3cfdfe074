//! Binds moves on a square grid: planned towards or away from a piece or squares, or along
//! a path the script gives, and the walk that takes them a step at a time with the
//! triggers between (`Game::walk_step`, `Game::plan_move`, `Game::check_path`).

use super::{Api, GameRef, Res, area, max_steps, piece_count, side_len, square, squares, stuck};
use crate::board::Square;
use crate::game::pieces::Stepped;
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};

/// Walks piece `id` along `path`, one step at a time; triggers run as they come up. Stops
/// early when the piece itself is revealed or removed by a trigger, or when a trigger
/// changed the board so that the rest of the way is shut (`stopped: "blocked"`; a piece
/// that may not stop where it stands then walks back to where it may).
pub(super) fn walk(api: &Api, ctx: &NativeCallContext, id: &str, path: Vec<Square>) -> Res<Map> {
    let mut steps = 0;
    let mut stopped = "";
    let mut triggered = false;
    let mut behind: Vec<Square> = Vec::new();
    for to in path {
        let step = api.with(|g, _| {
            api.cost(piece_count(g).saturating_mul(side_len(g)))?;
            g.walk_step(id, to, triggered)
        })?;
        let (from, interrupted) = match step {
            Stepped::From { from, interrupted } => (from, interrupted),
            Stepped::Blocked => {
                stopped = "blocked";
                api.with(|g, _| {
                    g.step_back(id, &mut behind);
                    Ok(())
                })?;
                break;
            }
        };
        behind.push(from);
        steps += 1;
        match after_step(api, ctx, id, interrupted)? {
            AfterStep::Quiet => {}
            AfterStep::Ran => triggered = true,
            AfterStep::Stop(why) => {
                stopped = why;
                break;
            }
        }
    }
    let (at, now) = api.with(|g, _| {
        g.end_move();
        let p = g.state.piece(id).expect("pieces are never deleted");
        Ok((p.at, p.id.clone()))
    })?;
    api.triggers(ctx)?;
    let mut m = Map::new();
    m.insert("id".into(), now.into());
    m.insert("steps".into(), Dynamic::from_int(steps));
    m.insert("at".into(), at.map_or(Dynamic::UNIT, |s| s.to_string().into()));
    m.insert("stopped".into(), stopped.into());
    Ok(m)
}

/// What the triggers a step queued came to.
pub(super) enum AfterStep {
    /// None ran: the step queued none, or the piece may not stop where it stands.
    Quiet,
    /// They ran, and the walk goes on.
    Ran,
    /// They ran and ended the walk: the piece was `"removed"` or `"revealed"`.
    Stop(&'static str),
}

/// After a step of piece `id` that queued triggers (`interrupted`): they run where the piece
/// may stand. A piece passing over one of its own side's models is seen (or sets off anything
/// else) where it can stand: the triggers wait for the next square it may end on. The walk's
/// line is written when a trigger logs something (or the move ends). Both walks (`walk`,
/// `move_priced`) go through here.
pub(super) fn after_step(api: &Api, ctx: &NativeCallContext, id: &str, interrupted: bool) -> Res<AfterStep> {
    let may_stop_here = interrupted
        && api.with(|g, _| {
            let i = g.on_grid(id)?;
            Ok(!g.state.shares_a_square(i))
        })?;
    if !may_stop_here {
        return Ok(AfterStep::Quiet);
    }
    let (was_hidden, _) = api.with(|g, _| Ok(g.hidden_and_on_board(id)))?;
    api.triggers(ctx)?;
    let (now_hidden, on_board) = api.with(|g, _| Ok(g.hidden_and_on_board(id)))?;
    Ok(if !on_board {
        AfterStep::Stop("removed")
    } else if was_hidden && !now_hidden {
        AfterStep::Stop("revealed")
    } else {
        AfterStep::Ran
    })
}

/// A planned move: the piece acts (its activation's waiting triggers first), `plan` finds
/// the way, and the piece walks it, or stays when there is none.
fn plan_then_walk(
    a: &Api,
    ctx: &NativeCallContext,
    id: &str,
    plan: impl FnOnce(&mut crate::game::Game, &mut crate::script::RunState) -> Result<Option<Vec<Square>>, String>,
) -> Res<Map> {
    a.activate(ctx, id)?;
    match a.with(plan)? {
        Some(path) => walk(a, ctx, id, path),
        None => Ok(stuck()),
    }
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    for (name, towards) in [("move_towards", true), ("move_away", false)] {
        let a = api.clone();
        engine.register_fn(
            name,
            move |ctx: NativeCallContext, _: GameRef, id: &str, other: &str, n: INT| -> Res<Map> {
                plan_then_walk(&a, &ctx, id, |g, run| {
                    let i = g.on_grid(id)?;
                    let j = g.on_grid(other)?;
                    let max = max_steps(n)?;
                    a.cost(area(g).saturating_mul(9))?;
                    Ok(g.plan_move(i, &g.state.pieces[j].squares(), towards, max, &mut run.rng))
                })
            },
        );
    }
    let a = api.clone();
    engine.register_fn(
        "move_to",
        move |ctx: NativeCallContext, _: GameRef, id: &str, to: Dynamic, n: INT| -> Res<Map> {
            plan_then_walk(&a, &ctx, id, |g, run| {
                let i = g.on_grid(id)?;
                let targets = squares(g, &to)?;
                let max = max_steps(n)?;
                a.cost(area(g).saturating_mul(9))?;
                Ok(g.plan_move(i, &targets, true, max, &mut run.rng))
            })
        },
    );
    // A question: the shortest way a piece would walk to a square (its steps, the square it
    // stands on left out), or () when it cannot end there; nothing moves. For a command that
    // takes a destination, which checks the length against what the piece may move.
    let a = api.clone();
    engine.register_fn("path_to", move |_: GameRef, id: &str, to: Dynamic| -> Res<Dynamic> {
        a.with(|g, run| {
            let i = g.on_grid(id)?;
            let target = super::square(g, &to)?;
            a.cost(area(g).saturating_mul(9))?;
            let Some(path) = g.plan_move(i, &[target], true, u16::MAX, &mut run.rng) else {
                return Ok(Dynamic::UNIT);
            };
            if path.last() != Some(&target) {
                return Ok(Dynamic::UNIT);
            }
            Ok(Dynamic::from_array(
                path.iter().map(|s| Dynamic::from(s.to_string())).collect(),
            ))
        })
    });
    let a = api.clone();
    engine.register_fn(
        "move_path",
        move |ctx: NativeCallContext, _: GameRef, id: &str, path: Array| -> Res<Map> {
            a.activate(&ctx, id)?;
            let path = a.with(|g, _| {
                let i = g.on_grid(id)?;
                let path: Vec<Square> = path.iter().map(|s| square(g, s)).collect::<Result<_, _>>()?;
                g.check_path(i, &path)?;
                Ok(path)
            })?;
            walk(&a, &ctx, id, path)
        },
    );
}
