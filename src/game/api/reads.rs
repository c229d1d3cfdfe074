//! Binds what a script reads of the game: turn, side, phase, mission, options, pieces and
//! their fields, variables, scores, tokens; and the log lines it writes (`say`), its
//! questions to the player (`ask`), its streams. `game.is_set(id, field)` is a piece's flag
//! test in one call (absent, `()` and `false` are not set), with no value made for the script.

use super::{Api, GameRef, from_json, ids, json_fields, piece_map};
use rhai::{Array, Dynamic, Engine, INT, Map};

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("turn", move |_: GameRef| a.with(|g, _| Ok(g.state.turn as INT)));
    let a = api.clone();
    engine.register_fn("side", move |_: GameRef| a.with(|g, _| Ok(g.state.side.clone())));
    let a = api.clone();
    engine.register_fn("phase", move |_: GameRef| a.with(|g, _| Ok(g.state.phase.clone())));
    let a = api.clone();
    engine.register_fn("over", move |_: GameRef| a.with(|g, _| Ok(g.state.over.is_some())));
    let a = api.clone();
    let views = crate::script::handles::MissionViews::default();
    engine.register_fn("mission", move |_: GameRef| {
        a.with(|g, _| views.get(&g.ruleset, &g.mission))
    });
    let a = api.clone();
    engine.register_fn("option", move |_: GameRef, name: &str| {
        a.with(|g, _| Ok(from_json(g.option(name)?)))
    });
    let a = api.clone();
    engine.register_fn("pieces", move |_: GameRef, side: &str| {
        a.with(|g, _| Ok(ids(g, g.pieces_on_board(side))))
    });
    let a = api.clone();
    engine.register_fn("pieces_with", move |_: GameRef, side: &str, status: &str| {
        a.with(|g, _| Ok(ids(g, g.pieces_with(side, status))))
    });
    let a = api.clone();
    engine.register_fn("piece", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.index(id)?;
            let view = g.piece_view(i, |p| crate::script::handles::PieceView::new(piece_map(p)));
            Ok(Dynamic::from(view))
        })
    });
    let a = api.clone();
    engine.register_fn("get", move |_: GameRef, id: &str, field: &str| {
        a.with(|g, _| {
            let p = &g.state.pieces[g.index(id)?];
            Ok(p.fields.get(field).map_or(Dynamic::UNIT, from_json))
        })
    });
    // Issue 39: the flag test scripts make most (`let v = game.get(id, f); v != () && v !=
    // false`) in one call, with no value made: set unless absent, `()` or `false`.
    let a = api.clone();
    engine.register_fn("is_set", move |_: GameRef, id: &str, field: &str| {
        a.with(|g, _| {
            let p = &g.state.pieces[g.index(id)?];
            Ok(!matches!(
                p.fields.get(field),
                None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false))
            ))
        })
    });
    let a = api.clone();
    engine.register_fn("get_var", move |_: GameRef, name: &str| {
        a.with(|g, _| Ok(g.state.vars.get(name).map_or(Dynamic::UNIT, from_json)))
    });
    let a = api.clone();
    engine.register_fn("scores", move |_: GameRef| {
        a.with(|g, _| {
            Ok(g.def
                .sides
                .iter()
                .map(|s| {
                    (
                        s.as_str().into(),
                        Dynamic::from_int(*g.state.scores.get(s).unwrap_or(&0)),
                    )
                })
                .collect::<Map>())
        })
    });
    let a = api.clone();
    engine.register_fn("collected", move |_: GameRef, side: &str| {
        a.with(|g, _| {
            Ok(g.state
                .collected
                .get(side)
                .map(|l| l.iter().map(|t| Dynamic::from(t.clone())).collect::<Array>())
                .unwrap_or_default())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str| {
        a.with(|g, _| {
            g.say(text.to_string(), None);
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str, source: &str| {
        a.with(|g, _| {
            g.say(text.to_string(), Some(source.to_string()));
            Ok(())
        })
    });
    let a = api.clone();
    engine.register_fn("say", move |_: GameRef, text: &str, source: &str, fields: Map| {
        a.with(|g, _| g.say_with(text.to_string(), Some(source.to_string()), json_fields(&fields)?))
    });
    let a = api.clone();
    engine.register_fn(
        "ask",
        move |_: GameRef, question: &str, choices: Array, default: &str| {
            a.with(|g, _| {
                let choices: Vec<String> = choices
                    .iter()
                    .map(|c| {
                        c.clone()
                            .into_string()
                            .map_err(|t| format!("`ask` offers choices as strings; one is a {t}"))
                    })
                    .collect::<Result<_, _>>()?;
                a.cost(choices.len() as u64)?;
                g.ask(question, &choices, default)
            })
        },
    );
    let a = api.clone();
    engine.register_fn("use_stream", move |_: GameRef, name: &str| {
        a.with(|g, run| {
            if name.is_empty() || name == crate::game::IDLE_STREAM {
                return Err(format!("`{name}` cannot name a stream"));
            }
            // A stream is kept for the rest of the game (and in its saves): charged as a line.
            a.budget.try_log(64 + name.len())?;
            g.enter_stream(&mut run.rng, name);
            Ok(())
        })
    });
}
