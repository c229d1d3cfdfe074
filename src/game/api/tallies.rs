//! Binds variables, scores, tokens, pools, decks and the end (`game/tallies.rs`).

use super::{Api, GameRef, Res, to_json};
use indexmap::IndexMap;
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};

/// A script's pool: each entry's count, a whole number.
fn counts(id: &str, entries: Map) -> Result<IndexMap<String, i64>, String> {
    entries
        .into_iter()
        .map(|(k, v)| {
            let n = v
                .as_int()
                .map_err(|_| format!("pool `{id}`: the count of `{k}` is not a whole number"))?;
            Ok((k.to_string(), n))
        })
        .collect()
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("set_var", move |_: GameRef, name: &str, value: Dynamic| {
        a.with(|g, _| {
            g.set_var(name, to_json(&value)?);
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("set_entered", move |_: GameRef, section: &str| {
        a.with(|g, _| g.set_entered(section))
    });
    let a = api.clone();
    engine.register_fn("score", move |_: GameRef, side: &str, points: INT, reason: &str| {
        a.with(|g, _| g.score(side, points, reason))
    });
    let a = api.clone();
    engine.register_fn("collect", move |_: GameRef, side: &str, token: &str| {
        a.with(|g, _| {
            g.collect(side, token);
            Ok(())
        })
    });
    for (name, secret) in [("new_pool", false), ("new_secret_pool", true)] {
        let a = api.clone();
        engine.register_fn(name, move |_: GameRef, id: &str, entries: Map| {
            a.with(|g, _| g.new_pool(id, counts(id, entries)?, secret))
        });
    }
    let a = api.clone();
    engine.register_fn("pool", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            Ok(g.pool(id)?
                .iter()
                .map(|(k, v)| (k.as_str().into(), Dynamic::from_int(*v)))
                .collect::<Map>())
        })
    });
    let a = api.clone();
    engine.register_fn("take", move |_: GameRef, id: &str, entry: &str, n: INT| {
        a.with(|g, _| g.take(id, entry, n))
    });
    let a = api.clone();
    engine.register_fn("give", move |_: GameRef, id: &str, entry: &str, n: INT| {
        a.with(|g, _| g.give(id, entry, n))
    });
    let a = api.clone();
    engine.register_fn("take_random", move |_: GameRef, id: &str| {
        a.with(|g, run| Ok(g.take_random(&mut run.rng, id)?.map_or(Dynamic::UNIT, Dynamic::from)))
    });
    let a = api.clone();
    engine.register_fn("new_deck", move |_: GameRef, id: &str, cards: Array| {
        a.with(|g, run| {
            g.new_deck(&mut run.rng, id, cards.iter().map(|c| c.to_string()).collect());
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("cards_left", move |_: GameRef, id: &str| {
        a.with(|g, _| Ok(g.cards_left(id)? as INT))
    });
    let draw = |a: &Api, ctx: &NativeCallContext, id: &str, wanted: Option<&str>| -> Res<Dynamic> {
        let card = a.with(|g, _| g.draw(id, wanted))?;
        a.triggers(ctx)?;
        Ok(card.map_or(Dynamic::UNIT, Dynamic::from))
    };
    let a = api.clone();
    engine.register_fn(
        "draw",
        move |ctx: NativeCallContext, _: GameRef, id: &str| -> Res<Dynamic> { draw(&a, &ctx, id, None) },
    );
    let a = api.clone();
    engine.register_fn(
        "draw",
        move |ctx: NativeCallContext, _: GameRef, id: &str, card: &str| -> Res<Dynamic> {
            draw(&a, &ctx, id, Some(card))
        },
    );
    let a = api.clone();
    engine.register_fn("end", move |_: GameRef, winner: &str, reason: &str| {
        a.with(|g, _| g.end(winner, reason))
    });
}
