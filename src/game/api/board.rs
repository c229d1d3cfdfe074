//! Binds the board questions behaviours ask during a game (`game/view.rs` answers them;
//! `game/questions.rs` the ones about marks and sections): each charged to the run's budget
//! by the squares and lines of sight it works through.

use super::{Api, GameRef, area, id_distances, ids, max_steps, piece_count, side_len, square, square_list, squares};
use crate::game::questions::near;
use rhai::{Array, Dynamic, Engine, INT, Map};

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn("distance", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.on_grid(from)?, g.on_grid(to)?);
            a.cost(area(g))?;
            Ok(g.view.distance(&g.state.pieces, i, j).map_or(-1, |d| d as INT))
        })
    });
    let a = api.clone();
    engine.register_fn("by_distance", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g))?;
            Ok(id_distances(g, g.view.by_distance(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    engine.register_fn("visible", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
            Ok(id_distances(g, g.view.visible(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    // The same, only the pieces whose identity is known (`"face-up"`), or all (`"all"`): one
    // call instead of a script filter over the list.
    engine.register_fn("visible", move |_: GameRef, id: &str, side: &str, which: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            let face_up = match which {
                "face-up" => true,
                "all" => false,
                _ => return Err(format!("`{which}`: say \"face-up\" or \"all\"")),
            };
            a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
            let mut seen = g.view.visible(&g.state.pieces, i, side);
            if face_up {
                seen.retain(|&(j, _)| g.state.pieces[j].hidden.is_none());
            }
            Ok(id_distances(g, seen))
        })
    });
    let a = api.clone();
    // Whether square `at` is within `n` squares of one of `squares`, counted as a king moves
    // (diagonals count one) and through walls: "on or beside" is `near(at, list, 1)`.
    engine.register_fn("near", move |_: GameRef, at: Dynamic, list: Dynamic, n: INT| {
        a.with(|g, _| {
            let at = square(g, &at)?;
            let list = squares(g, &list)?;
            a.cost(list.len() as u64)?;
            Ok(near(at, &list, n))
        })
    });
    let a = api.clone();
    engine.register_fn("sees", move |_: GameRef, from: &str, to: &str| {
        a.with(|g, _| {
            let (i, j) = (g.on_grid(from)?, g.on_grid(to)?);
            a.cost(side_len(g))?;
            Ok(g.view.sees(&g.state.pieces, i, j, crate::ruleset::Purpose::Shoot))
        })
    });
    let a = api.clone();
    // A square a piece could shoot at (a blast's centre a player names): pieces in the way
    // block, the one on the square does not.
    engine.register_fn("sees_square", move |_: GameRef, from: &str, to: Dynamic| {
        a.with(|g, _| {
            let i = g.on_grid(from)?;
            let to = square(g, &to)?;
            a.cost(side_len(g))?;
            Ok(g.view.sees_square(&g.state.pieces, i, to))
        })
    });
    let a = api.clone();
    engine.register_fn("reachable", move |_: GameRef, id: &str, n: INT| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g).saturating_mul(8))?;
            let list = g.view.reachable(&g.state.pieces, i, max_steps(n)?);
            Ok(list
                .into_iter()
                .map(|(s, _)| Dynamic::from(s.to_string()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("vantage", move |_: GameRef, id: &str, n: INT, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            let targets = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
            a.cost(area(g).saturating_mul(8 + targets.saturating_mul(side_len(g))))?;
            Ok(match g.view.vantage(&g.state.pieces, i, max_steps(n)?, side) {
                None => Dynamic::UNIT,
                Some((at, steps, seen)) => {
                    let mut m = Map::new();
                    m.insert("square".into(), at.to_string().into());
                    m.insert("steps".into(), Dynamic::from_int(steps as INT));
                    m.insert("sees".into(), ids(g, seen).into());
                    Dynamic::from_map(m)
                }
            })
        })
    });
    let a = api.clone();
    engine.register_fn("adjacent", move |_: GameRef, id: &str, side: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            Ok(ids(g, g.view.adjacent(&g.state.pieces, i, side)))
        })
    });
    let a = api.clone();
    engine.register_fn("shut_in", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g) + piece_count(g))?;
            Ok(g.view.shut_in(&g.state.pieces, i))
        })
    });
    let a = api.clone();
    engine.register_fn("free_squares", move |_: GameRef, mark: &str, side: &str| {
        a.with(|g, _| {
            let watchers = g.state.pieces.iter().filter(|p| p.on_board() && p.side == side).count() as u64;
            a.cost(area(g).saturating_mul(1 + watchers.saturating_mul(side_len(g))))?;
            Ok(square_list(g.free_squares(mark, side)?))
        })
    });
    let a = api.clone();
    engine.register_fn("marked", move |_: GameRef, mark: &str| {
        a.with(|g, _| {
            a.cost(area(g))?;
            Ok(square_list(g.marked(mark)?))
        })
    });
    let a = api.clone();
    engine.register_fn(
        "section_square",
        move |_: GameRef, section: &str, column: INT, row: INT| {
            a.with(|g, _| {
                a.cost(area(g))?;
                Ok(g.section_square(section, column, row)?
                    .map_or(Dynamic::UNIT, |s| s.to_string().into()))
            })
        },
    );
    let a = api.clone();
    engine.register_fn("distance_to", move |_: GameRef, id: &str, to: Dynamic| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(area(g))?;
            let field = g.view.field_to(&g.state.pieces[i], &squares(g, &to)?);
            Ok(g.view.steps_in(&field, &g.state.pieces[i]).map_or(-1, INT::from))
        })
    });
    let a = api.clone();
    engine.register_fn("square_free", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| Ok(g.view.square_free(square(g, &at)?)))
    });
    let a = api.clone();
    engine.register_fn("unseen", move |_: GameRef, at: Dynamic, side: &str| {
        a.with(|g, _| {
            a.cost(piece_count(g).saturating_mul(side_len(g)))?;
            Ok(g.view.unseen(&g.state.pieces, square(g, &at)?, side))
        })
    });
    let a = api.clone();
    engine.register_fn("sections", move |_: GameRef| {
        a.with(|g, _| {
            Ok(g.view
                .grid
                .sections
                .iter()
                .map(|s| Dynamic::from(s.clone()))
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("section_of", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| {
            let s = square(g, &at)?;
            Ok(g.view
                .grid
                .section_of(s)
                .map_or(Dynamic::UNIT, |n| n.to_string().into()))
        })
    });
    let a = api.clone();
    engine.register_fn("section_squares", move |_: GameRef, section: &str| {
        a.with(|g, _| {
            a.cost(area(g))?;
            Ok(square_list(g.section_squares(section)?))
        })
    });
    let a = api.clone();
    engine.register_fn("entered", move |_: GameRef, section: &str| {
        a.with(|g, _| Ok(g.state.has_entered(section)))
    });
    let a = api.clone();
    engine.register_fn("lines", move |_: GameRef, id: &str| {
        a.with(|g, _| {
            let i = g.on_grid(id)?;
            a.cost(side_len(g).saturating_mul(8))?;
            Ok(g.view
                .lines(&g.state.pieces, i)
                .into_iter()
                .map(|(dx, dy, on)| {
                    let mut m = Map::new();
                    m.insert("dx".into(), Dynamic::from_int(dx as INT));
                    m.insert("dy".into(), Dynamic::from_int(dy as INT));
                    m.insert("pieces".into(), ids(g, on).into());
                    Dynamic::from_map(m)
                })
                .collect::<Array>())
        })
    });
    let a = api.clone();
    engine.register_fn("blast_at", move |_: GameRef, at: Dynamic| {
        a.with(|g, _| {
            let (centre, around) = g.view.blast_at(square(g, &at)?);
            let mut m = Map::new();
            m.insert(
                "centre".into(),
                centre.map_or(Dynamic::UNIT, |c| g.state.pieces[c].id.clone().into()),
            );
            m.insert("around".into(), ids(g, around).into());
            Ok(m)
        })
    });
    for (name, line) in [("best_blast", false), ("best_line", true)] {
        // `game.best_blast(id, side)`, and `game.best_blast(id, side, spare_own)`: with
        // `spare_own` true, only the shots that catch none of the shooter's own side.
        let area_shot = move |a: &Api, id: &str, side: &str, spare_own: bool| {
            a.with(|g, _| {
                let i = g.on_grid(id)?;
                // A blast is looked for round every piece in sight: sight, then nine squares each.
                a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)).saturating_mul(10))?;
                let shot = if line {
                    g.view.best_line_sparing(&g.state.pieces, i, side, spare_own)
                } else {
                    g.view.best_blast_sparing(&g.state.pieces, i, side, spare_own)
                };
                Ok(shot.map_or(Dynamic::UNIT, |s| {
                    let mut m = Map::new();
                    m.insert("square".into(), s.square.to_string().into());
                    m.insert("dx".into(), Dynamic::from_int(s.dx as INT));
                    m.insert("dy".into(), Dynamic::from_int(s.dy as INT));
                    m.insert("hits".into(), ids(g, s.hits).into());
                    m.insert("own".into(), ids(g, s.own).into());
                    Dynamic::from_map(m)
                }))
            })
        };
        let a = api.clone();
        engine.register_fn(name, move |_: GameRef, id: &str, side: &str| {
            area_shot(&a, id, side, false)
        });
        let a = api.clone();
        engine.register_fn(name, move |_: GameRef, id: &str, side: &str, spare_own: bool| {
            area_shot(&a, id, side, spare_own)
        });
    }
}
