//! Binds pieces coming, going and changing, and doors a rule opens or shuts
//! (`game/pieces.rs`).

use super::{Api, GameRef, Res, json_fields, new_fields, piece_count, side_len, sightings_cost, square, to_json};
use crate::board::Square;
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};

pub(super) fn register(engine: &mut Engine, api: &Api) {
    register_pieces(engine, api);
    register_doors(engine, api);
}

fn register_pieces(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("add", move |_: GameRef, kind: &str, side: &str| {
        a.with(|g, _| g.add_piece(kind, side, Default::default()))
    });
    let a = api.clone();
    engine.register_fn("add", move |_: GameRef, kind: &str, side: &str, fields: Map| {
        a.with(|g, _| g.add_piece(kind, side, new_fields(&fields)?))
    });
    let place = |a: &Api, ctx: &NativeCallContext, kind: &str, side: &str, at: &Dynamic, fields: &Map| -> Res<String> {
        let id = a.with(|g, _| {
            let at = square(g, at)?;
            g.place_new(kind, side, at, new_fields(fields)?)
        })?;
        a.triggers(ctx)?;
        Ok(id)
    };
    let a = api.clone();
    engine.register_fn(
        "place",
        move |ctx: NativeCallContext, _: GameRef, kind: &str, side: &str, at: Dynamic| -> Res<String> {
            place(&a, &ctx, kind, side, &at, &Map::new())
        },
    );
    let a = api.clone();
    engine.register_fn(
        "place",
        move |ctx: NativeCallContext, _: GameRef, kind: &str, side: &str, at: Dynamic, fields: Map| -> Res<String> {
            place(&a, &ctx, kind, side, &at, &fields)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "place_hidden",
        move |ctx: NativeCallContext,
              _: GameRef,
              token: &str,
              identity: &str,
              side: &str,
              at: Dynamic|
              -> Res<String> {
            let id = a.with(|g, _| {
                let at = square(g, &at)?;
                g.place_hidden(token, identity, side, at)
            })?;
            a.triggers(&ctx)?;
            Ok(id)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "reveal",
        move |ctx: NativeCallContext, _: GameRef, id: &str| -> Res<String> {
            let kind = a.with(|g, _| {
                let i = g.index(id)?;
                a.cost(sightings_cost(g))?;
                g.reveal(i)
            })?;
            a.triggers(&ctx)?;
            Ok(kind)
        },
    );
    let a = api.clone();
    engine.register_fn("fits", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            g.fits_revealed(i)
        })
    });
    let a = api.clone();
    engine.register_fn(
        "enter",
        move |ctx: NativeCallContext, _: GameRef, id: &str, at: Dynamic| -> Res<()> {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.index(id)?;
                let at = square(g, &at)?;
                g.enter(i, at)
            })?;
            a.triggers(&ctx)
        },
    );
    // A piece set at once on another square (a set-up's or a scenario's change of the board):
    // no steps, no AP, no `moved` trigger.
    let a = api.clone();
    engine.register_fn(
        "move_piece",
        move |ctx: NativeCallContext, _: GameRef, id: &str, at: Dynamic| -> Res<()> {
            a.with(|g, _| {
                let i = g.on_board(id)?;
                let at = square(g, &at)?;
                g.set_on(i, at)
            })?;
            a.triggers(&ctx)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "leave",
        move |ctx: NativeCallContext, _: GameRef, id: &str, status: &str| {
            a.activate(&ctx, id)?;
            a.with(|g, _| {
                let i = g.on_board(id)?;
                g.leave(i, status)
            })
        },
    );
    let damage = |a: &Api, ctx: &NativeCallContext, id: &str, n: INT, reason: &str, by: &str, fields: Option<&Map>| {
        let left = a.with(|g, _| {
            let fields = fields.map(json_fields).transpose()?;
            let i = g.on_board(id)?;
            g.damage(i, n, reason, by, fields)
        })?;
        a.triggers(ctx)?;
        Ok(left)
    };
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str| -> Res<INT> {
            damage(&a, &ctx, id, n, reason, "", None)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str, by: &str| -> Res<INT> {
            damage(&a, &ctx, id, n, reason, by, None)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "damage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, n: INT, reason: &str, by: &str, fields: Map| -> Res<INT> {
            damage(&a, &ctx, id, n, reason, by, Some(&fields))
        },
    );
    let a = api.clone();
    engine.register_fn(
        "remove",
        move |ctx: NativeCallContext, _: GameRef, id: &str, reason: &str| -> Res<()> {
            remove(&a, &ctx, id, reason, "")
        },
    );
    // With the piece credited for it (the `removed` trigger's `by`): a unit broken by
    // another's attack and lost as a result.
    let a = api.clone();
    engine.register_fn(
        "remove",
        move |ctx: NativeCallContext, _: GameRef, id: &str, reason: &str, by: &str| -> Res<()> {
            remove(&a, &ctx, id, reason, by)
        },
    );
    let a = api.clone();
    engine.register_fn("set", move |_: GameRef, id: &str, field: &str, value: Dynamic| {
        a.with(|g, _| {
            let i = g.index(id)?;
            g.set_field(i, field, to_json(&value)?);
            Ok(())
        })
    });
}

/// Doors a rule opens or shuts (an action), and the board questions about doors.
fn register_doors(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn(
        "open_door",
        move |ctx: NativeCallContext, _: GameRef, from: Dynamic, to: Dynamic| -> Res<()> {
            a.with(|g, _| {
                let (x, y) = (square(g, &from)?, square(g, &to)?);
                a.cost(sightings_cost(g))?;
                g.open_door(x, y)
            })?;
            a.triggers(&ctx)
        },
    );
    let a = api.clone();
    engine.register_fn("close_door", move |_: GameRef, from: Dynamic, to: Dynamic| -> Res<()> {
        a.with(|g, _| {
            let (x, y) = (square(g, &from)?, square(g, &to)?);
            g.close_door(x, y)
        })
    });
    let a = api.clone();
    // What stands between two squares side by side: "open" or "closed" for a door, () for
    // anything else (no door, a wall, a square off the board or solid).
    engine.register_fn("door", move |_: GameRef, from: Dynamic, to: Dynamic| -> Res<Dynamic> {
        a.with(|g, _| {
            let parse = |v: &Dynamic| {
                let text = v.to_string();
                Square::parse(&text).ok_or_else(|| format!("`{text}` is not a square: write \"x,y\" counted from 1"))
            };
            let (x, y) = (parse(&from)?, parse(&to)?);
            Ok(match g.door_between(x, y) {
                Some(true) => "open".into(),
                Some(false) => "closed".into(),
                None => Dynamic::UNIT,
            })
        })
    });
    let a = api.clone();
    engine.register_fn("doors_cutting_sight", move |_: GameRef, side: &str, other: &str| {
        a.with(|g, _| {
            let doors = g.view.grid.doors().len() as u64;
            let pairs = piece_count(g).saturating_mul(piece_count(g));
            a.cost(super::area(g).saturating_add(doors.saturating_mul(pairs).saturating_mul(side_len(g))))?;
            Ok(g.doors_cutting_sight(side, other)
                .into_iter()
                .map(|(x, y)| {
                    let pair: Array = vec![x.to_string().into(), y.to_string().into()];
                    Dynamic::from_array(pair)
                })
                .collect::<Array>())
        })
    });
}

/// `game.remove`: the piece leaves the board, eliminated; `by` (a piece's id, or "") is
/// credited in the `removed` trigger.
fn remove(a: &Api, ctx: &NativeCallContext, id: &str, reason: &str, by: &str) -> Res<()> {
    a.with(|g, _| {
        let i = g.on_board(id)?;
        if !by.is_empty() {
            g.index(by)?;
        }
        g.eliminate(i, reason, by);
        Ok(())
    })?;
    a.triggers(ctx)
}
