//! The binding of the attack verbs ([`crate::game::combat`], issue 39): `game.attack(attacker,
//! weapon, target, rule)` — one shot of a weapon record's dice at one target —,
//! `game.melee(attacker, defender, rule)` — hand-to-hand, both rolling the dice their field
//! names —, `game.fire(shooter, weapon, side, aim, rule)` — one weapon fired as its record's
//! `area` says, its targets picked by the package's hooks —, `game.shoot(shooter, side,
//! rule)` — every weapon a piece's fields list, the first that has a target (or all, for a
//! piece with mounted weapons) — and `game.engage(id, side, rule)` — a piece's one attack:
//! hand-to-hand with the `foe` hook's pick when a piece of `side` stands beside it, as the
//! nested `melee` rule says, else `shoot`. The rule map says what the package's attack reads
//! and cites; its `reroll` names the script function a variant may replace, called with
//! `(game, who, roll, needed)` after each roll and before the comparison, its answer (a roll
//! map, `total` read) used; `target`, `own_ok`, `spare_own` and `wounded` name the other hooks
//! `fire` calls (`melee` calls `wounded` too). `attack` and `melee` return what the wounded
//! piece lost and survived with (a number; `#{ piece, lost }` or `()`), for a script that
//! answers a wound; `fire`, `shoot` and `engage` whether a shot was fired (or a fight fought).

use super::{Api, GameRef, Res, area, piece_count, side_len};
use crate::dice::{DiceExpr, DiceRoll};
use crate::game::Game;
use crate::game::combat::{Area, AttackRule, direction_words};
use crate::script::RunState;
use crate::script::handles::RecordView;
use rhai::{Array, Dynamic, Engine, INT, Map, NativeCallContext};
use serde_json::Value as Json;
use std::collections::HashMap;

/// The rule map read: `stat`, `why`, `source` texts; `bonus`, `reroll`, `dice` (fight: the
/// field holding each piece's dice) optional; and what `fire` and `shoot` read besides.
#[derive(Default)]
struct Rule {
    attack: AttackRule,
    reroll: Option<String>,
    dice: Option<String>,
    /// Hook `f(game, shooter, side)`: the id a one-target weapon fires at, or `()`.
    target: Option<String>,
    /// Hook `f(game, shooter, own)`: whether an area shot catching `own` of the shooter's
    /// side is taken (without one: only when it catches none).
    own_ok: Option<String>,
    /// Hook `f(game, shooter)`: whether an area shot is chosen only among those catching none
    /// of the shooter's side (without one: no).
    spare_own: Option<String>,
    /// Hook `f(game, id, lost)`: called when a piece hit survives, having lost `lost`.
    wounded: Option<String>,
    /// The kind of record a weapon is (`weapon` unless named).
    records: Option<String>,
    /// The piece fields `shoot` reads: a list of weapon ids, and a map of mounted ones.
    weapons: Option<String>,
    mounts: Option<String>,
    /// `engage`: hook `f(game, id, side)`, the piece beside it that `id` fights, or `()`
    /// (asked only when a piece of `side` stands beside it), and the hand-to-hand rule.
    foe: Option<String>,
    melee: Option<Box<Rule>>,
    /// What an area shot's opening line cites, by area (`split`, `line`, `blast`) and
    /// `left-over` (a split's points nobody could take); else the weapon's own source.
    cite: HashMap<String, String>,
}

const KEYS: [&str; 17] = [
    "stat",
    "bonus",
    "why",
    "source",
    "reroll",
    "dice",
    "target",
    "own_ok",
    "spare_own",
    "wounded",
    "records",
    "weapons",
    "mounts",
    "cite",
    "foe",
    "melee",
    "",
];

fn rule(map: &Map, verb: &str) -> Result<Rule, String> {
    let mut r = Rule::default();
    let keys = &KEYS[..KEYS.len() - 1];
    for (key, value) in map {
        if key.as_str() == "cite" {
            let cites = value.read_lock::<Map>().ok_or_else(|| {
                format!(
                    "{verb}: rule `cite` is a map (area: citation), not a {}",
                    value.type_name()
                )
            })?;
            for (k, v) in cites.iter() {
                r.cite.insert(k.to_string(), v.to_string());
            }
            continue;
        }
        if key.as_str() == "melee" {
            let melee = value.read_lock::<Map>().ok_or_else(|| {
                format!(
                    "{verb}: rule `melee` is a rule map (hand-to-hand), not a {}",
                    value.type_name()
                )
            })?;
            r.melee = Some(Box::new(rule(&melee, "melee")?));
            continue;
        }
        let text = value
            .clone()
            .into_immutable_string()
            .map_err(|t| format!("{verb}: rule `{key}` is a text, not a {t}"))?
            .to_string();
        match key.as_str() {
            "stat" => r.attack.stat = text,
            "bonus" => r.attack.bonus = Some(text),
            "why" => r.attack.why = text,
            "source" => r.attack.source = text,
            "reroll" => r.reroll = Some(text),
            "dice" => r.dice = Some(text),
            "target" => r.target = Some(text),
            "own_ok" => r.own_ok = Some(text),
            "spare_own" => r.spare_own = Some(text),
            "wounded" => r.wounded = Some(text),
            "records" => r.records = Some(text),
            "weapons" => r.weapons = Some(text),
            "mounts" => r.mounts = Some(text),
            "foe" => r.foe = Some(text),
            other => {
                let hint = crate::diagnostic::did_you_mean(other, keys.iter().copied())
                    .unwrap_or_else(|| format!("a rule has: {}", keys.join(", ")));
                return Err(format!("{verb}: no rule `{other}`; {hint}"));
            }
        }
    }
    if r.attack.why.is_empty() {
        return Err(format!(
            "{verb}: the rule needs `why` (what the roll is for, as the log says)"
        ));
    }
    Ok(r)
}

/// Dice text parsed once a run (the run's cache `roll_dice` uses).
fn dice(g: &Game, run: &mut RunState, text: &str) -> Result<DiceExpr, String> {
    if let Some(e) = run.dice_cache.get(text) {
        return Ok(e.clone());
    }
    let e = g.ruleset.parse_dice(text).map_err(|e| e.to_string())?;
    run.dice_cache.insert(text.to_string(), e.clone());
    Ok(e)
}

/// A weapon as a record view or a map: its `id`, `label` and `dice` texts.
fn weapon_fields(weapon: &Dynamic) -> Result<(String, String, String), String> {
    let get = |key: &str| -> Option<Dynamic> {
        if let Some(view) = weapon.read_lock::<RecordView>() {
            return view.field(key).cloned();
        }
        weapon.read_lock::<Map>().and_then(|m| m.get(key).cloned())
    };
    let text = |key: &str| -> Result<String, String> {
        get(key)
            .filter(|v| !v.is_unit())
            .map(|v| v.to_string())
            .ok_or_else(|| format!("attack: the weapon has no `{key}` (give its record)"))
    };
    Ok((text("id")?, text("label")?, text("dice")?))
}

/// The hook `name` sees the roll; its answer's total is the roll's.
fn rerolled(ctx: &NativeCallContext, name: Option<&str>, who: &str, roll: &DiceRoll, needed: i64) -> Res<i64> {
    Ok(rerolled_dice(ctx, name, who, roll, needed)?.0)
}

/// The same, with the values of the answer's dice (a blast's ring takes the highest).
fn rerolled_dice(
    ctx: &NativeCallContext,
    name: Option<&str>,
    who: &str,
    roll: &DiceRoll,
    needed: i64,
) -> Res<(i64, Vec<i64>)> {
    let Some(name) = name else {
        return Ok((roll.total, roll.dice.iter().map(|d| d.value).collect()));
    };
    let answer = ctx.call_fn::<Dynamic>(
        name,
        (GameRef, who.to_string(), crate::script::dice_map(roll), needed as INT),
    )?;
    let bad = || -> Box<rhai::EvalAltResult> {
        format!("{name} answers a roll: a map with a whole-number `total`, not {answer}").into()
    };
    let map = answer.read_lock::<Map>().ok_or_else(bad)?;
    let total = map.get("total").and_then(|t| t.as_int().ok()).ok_or_else(bad)?;
    let values = map
        .get("dice")
        .and_then(|d| d.read_lock::<Array>().map(|list| list.clone()))
        .unwrap_or_default()
        .iter()
        .filter_map(|d| {
            d.read_lock::<Map>()
                .and_then(|m| m.get("value").and_then(|v| v.as_int().ok()))
        })
        .collect();
    Ok((total, values))
}

/// The hook `name` called with `args`, its answer.
fn hook(ctx: &NativeCallContext, name: &str, args: impl rhai::FuncArgs) -> Res<Dynamic> {
    ctx.call_fn::<Dynamic>(name, args)
}

/// A hook's answer read as a yes or no.
fn yes(name: &str, answer: Dynamic) -> Res<bool> {
    answer
        .as_bool()
        .map_err(|t| format!("{name} answers true or false, not a {t}").into())
}

/// One shot at `target` (a piece of the board): the weapon's dice rolled, the re-roll hook,
/// the target's stat beaten or not. Returns what a target still standing lost.
#[allow(clippy::too_many_arguments)]
fn one_shot(
    a: &Api,
    ctx: &NativeCallContext,
    r: &Rule,
    attacker: &str,
    weapon: &str,
    label: &str,
    dice_text: &str,
    target: &str,
) -> Res<i64> {
    let (t, defence, roll) = a.with(|g, run| {
        let t = g.on_board(target)?;
        let defence = g.defence_of(t, &r.attack)?;
        let expr = dice(g, run, dice_text)?;
        let roll = g.roll_for(&mut run.rng, &expr, attacker, &r.attack.why);
        Ok((t, defence, roll))
    })?;
    let points = rerolled(ctx, r.reroll.as_deref(), attacker, &roll, defence + 1)?;
    let kept = a.with(|g, _| {
        let what = format!("{attacker} fires the {label} at {target}");
        g.strike(attacker, weapon, t, target, points, defence, &what, &r.attack)
    })?;
    a.triggers(ctx)?;
    Ok(kept)
}

/// The `wounded` hook, for a piece that survived losing `lost` (nothing when it lost none).
fn wounded(ctx: &NativeCallContext, r: &Rule, id: &str, lost: i64) -> Res<()> {
    if lost > 0
        && let Some(name) = &r.wounded
    {
        let _ = hook(ctx, name, (GameRef, id.to_string(), lost as INT))?;
    }
    Ok(())
}

/// `points` at `target` if it still stands, logged as `what`; then the triggers and the
/// `wounded` hook.
#[allow(clippy::too_many_arguments)]
fn strike(
    a: &Api,
    ctx: &NativeCallContext,
    r: &Rule,
    attacker: &str,
    weapon: &str,
    target: &str,
    points: i64,
    what: &str,
) -> Res<()> {
    let kept = a.with(|g, _| g.strike_standing(attacker, weapon, target, points, what, &r.attack))?;
    let Some(kept) = kept else { return Ok(()) };
    a.triggers(ctx)?;
    wounded(ctx, r, target, kept)
}

/// Where the shooter's player aimed: `()` (the hooks choose), `#{ targets: [ids] }` (one
/// target, or a split's in order), `#{ dx, dy }` (a line) or `#{ square }` (a blast). The
/// script checks an aim against the rules before it fires; this only reads it.
#[derive(Default)]
struct Aim {
    given: bool,
    targets: Vec<String>,
    line: Option<(i32, i32)>,
    square: Option<String>,
}

fn aim_of(aim: &Dynamic) -> Result<Aim, String> {
    if aim.is_unit() {
        return Ok(Aim::default());
    }
    let map = aim
        .read_lock::<Map>()
        .ok_or_else(|| format!("fire: an aim is a map or (), not a {}", aim.type_name()))?;
    let mut out = Aim {
        given: true,
        ..Aim::default()
    };
    if let Some(list) = map.get("targets") {
        let list = list
            .read_lock::<Array>()
            .ok_or("fire: aim `targets` is a list of piece ids")?;
        out.targets = list.iter().map(|t| t.to_string()).collect();
    }
    if let (Some(dx), Some(dy)) = (map.get("dx"), map.get("dy")) {
        let n = |v: &Dynamic| {
            v.as_int()
                .map_err(|_| "fire: aim `dx` and `dy` are whole numbers".to_string())
        };
        out.line = Some((n(dx)? as i32, n(dy)? as i32));
    }
    if let Some(s) = map.get("square") {
        out.square = Some(s.to_string());
    }
    Ok(out)
}

/// `game.fire`: weapon `weapon` of `shooter` fired at pieces of `side`.
fn fire(a: &Api, ctx: &NativeCallContext, shooter: &str, weapon: &str, side: &str, aim: &Aim, r: &Rule) -> Res<bool> {
    let kind = r.records.as_deref().unwrap_or("weapon");
    let w = a.with(|g, _| g.weapon(kind, weapon))?;
    let Some(dice_text) = w.dice.clone() else {
        return Ok(false);
    };
    let cite = |what: &str| -> String {
        r.cite
            .get(what)
            .cloned()
            .or_else(|| w.source.clone())
            .unwrap_or_else(|| r.attack.source.clone())
    };
    // The one target (or a split's first): the aim's, else the hook's among the face-up
    // pieces in sight (none in sight: no shot, the hook not asked).
    let chosen = |a: &Api| -> Res<Option<String>> {
        if let Some(t) = aim.targets.first() {
            return Ok(Some(t.clone()));
        }
        let seen = a.with(|g, _| {
            let i = g.on_grid(shooter)?;
            a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
            Ok(g.in_sight(i, side).first().map(|&b| g.state.pieces[b].id.clone()))
        })?;
        let Some(nearest) = seen else { return Ok(None) };
        let Some(name) = &r.target else {
            return Ok(Some(nearest));
        };
        let answer = hook(ctx, name, (GameRef, shooter.to_string(), side.to_string()))?;
        Ok((!answer.is_unit()).then(|| answer.to_string()))
    };
    match w.area {
        Area::Single => {
            let Some(target) = chosen(a)? else { return Ok(false) };
            let kept = one_shot(a, ctx, r, shooter, &w.id, &w.label, &dice_text, &target)?;
            wounded(ctx, r, &target, kept)?;
        }
        Area::Split => {
            let Some(first) = chosen(a)? else { return Ok(false) };
            let roll = a.with(|g, run| {
                let needed = g.defence_of(g.index(&first)?, &r.attack)? + 1;
                let expr = dice(g, run, &dice_text)?;
                Ok((needed, g.roll_for(&mut run.rng, &expr, shooter, &r.attack.why)))
            })?;
            let mut left = rerolled(ctx, r.reroll.as_deref(), shooter, &roll.1, roll.0)?;
            log_shot(
                a,
                (shooter, &w, "split", left),
                format!("{shooter} fires the {}: {left} to share out", w.label),
                &cite("split"),
                vec![],
            )?;
            let mut struck: Vec<usize> = Vec::new();
            while left > 0 {
                let pick = a.with(|g, _| {
                    let i = g.on_grid(shooter)?;
                    a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)))?;
                    let seen = g.in_sight(i, side);
                    let named = if aim.given {
                        Some(aim.targets.iter().map(|t| g.index(t)).collect::<Result<Vec<_>, _>>()?)
                    } else {
                        None
                    };
                    let pick = g.split_pick(&seen, named.as_deref(), &struck, left, &r.attack)?;
                    Ok(pick.map(|(t, cost)| (t, g.state.pieces[t].id.clone(), cost)))
                })?;
                let Some((t, id, cost)) = pick else { break };
                struck.push(t);
                left -= cost;
                strike(
                    a,
                    ctx,
                    r,
                    shooter,
                    &w.id,
                    &id,
                    cost,
                    &format!("{shooter} puts {cost} on {id}"),
                )?;
            }
            if left > 0 {
                let last = a.with(|g, _| {
                    let standing = struck.iter().rev().find(|&&t| g.state.pieces[t].on_board());
                    Ok(standing.map(|&t| (t, g.state.pieces[t].id.clone())))
                })?;
                match last {
                    None => log_shot(
                        a,
                        (shooter, &w, "split", left),
                        format!(
                            "{left} left over cannot beat the {} of anything in sight",
                            r.attack.stat
                        ),
                        &cite("left-over"),
                        vec![],
                    )?,
                    Some((t, id)) => {
                        let kept = a.with(|g, _| {
                            let mut fields = indexmap::IndexMap::new();
                            fields.insert("points".to_string(), Json::from(left));
                            fields.insert("weapon".to_string(), Json::from(w.id.as_str()));
                            g.wound(t, shooter, left, &format!("{shooter} puts {left} more on {id}"), fields)
                        })?;
                        a.triggers(ctx)?;
                        wounded(ctx, r, &id, kept)?;
                    }
                }
            }
        }
        Area::Line | Area::Blast => {
            let line = w.area == Area::Line;
            // The line (dx, dy) or the blast's square: the aim's, else the best the engine
            // finds, taken only when it hits and the hook allows what it catches of its own.
            let (dx, dy, square) = if aim.given {
                let (dx, dy) = aim.line.unwrap_or((0, 0));
                (dx, dy, aim.square.clone().unwrap_or_default())
            } else {
                let spare = match &r.spare_own {
                    Some(name) => yes(name, hook(ctx, name, (GameRef, shooter.to_string()))?)?,
                    None => false,
                };
                let best = a.with(|g, _| {
                    let i = g.on_grid(shooter)?;
                    a.cost(area(g) + piece_count(g).saturating_mul(side_len(g)).saturating_mul(10))?;
                    let pieces = &g.state.pieces;
                    Ok(if line {
                        g.view.best_line_sparing(pieces, i, side, spare)
                    } else {
                        g.view.best_blast_sparing(pieces, i, side, spare)
                    })
                })?;
                let Some(best) = best else { return Ok(false) };
                if best.hits.is_empty() {
                    return Ok(false);
                }
                let own = best.own.len() as INT;
                let ok = match &r.own_ok {
                    Some(name) => yes(name, hook(ctx, name, (GameRef, shooter.to_string(), own))?)?,
                    None => own == 0,
                };
                if !ok {
                    return Ok(false);
                }
                (best.dx, best.dy, best.square.to_string())
            };
            let (landing, cited) = if line {
                (Landing::Line(dx, dy), cite("line"))
            } else {
                (Landing::Blast(&square), cite("blast"))
            };
            fire_area(a, ctx, r, shooter, &w, &dice_text, &landing, &cited)?;
        }
    }
    Ok(true)
}

/// The line an area shot (or a split's left-over) opens with: `text`, cited `cite`, its
/// fields the shooter, the weapon, the area and the points, with `more` besides.
fn log_shot(
    a: &Api,
    (shooter, w, area, points): (&str, &crate::game::combat::Weapon, &str, i64),
    text: String,
    cite: &str,
    more: Vec<(&'static str, Json)>,
) -> Res<()> {
    let mut fields = vec![
        ("attacker", Json::from(shooter)),
        ("weapon", Json::from(w.id.as_str())),
        ("area", Json::from(area)),
        ("points", Json::from(points)),
    ];
    fields.extend(more);
    a.with(|g, _| g.log_area_shot(text, cite, fields))
}

/// Ids as a script's text prints a list of them (script/sandbox.rs): `[a, b]`, `none` when
/// empty.
fn listed(ids: &[String]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    let sep = if ids.iter().any(|i| i.contains(',')) {
        "; "
    } else {
        ", "
    };
    format!("[{}]", ids.join(sep))
}

/// Where an area shot lands: along (dx, dy) from the shooter, or a blast on a square.
enum Landing<'s> {
    Line(i32, i32),
    Blast(&'s str),
}

/// An area shot. A line along (dx, dy): every face-up piece on it, up to a wall or shut
/// door, takes the whole total, friend or foe. A blast on a square: the face-up piece there
/// takes the total, each face-up piece around it (walls and shut doors shielding) the highest
/// die. The opening line lists every piece caught, face-up or not.
#[allow(clippy::too_many_arguments)]
fn fire_area(
    a: &Api,
    ctx: &NativeCallContext,
    r: &Rule,
    shooter: &str,
    w: &crate::game::combat::Weapon,
    dice_text: &str,
    landing: &Landing,
    cite: &str,
) -> Res<()> {
    // The pieces caught (as logged), those the total strikes (face-up now), those the
    // highest die strikes (around a blast, face-up when struck), and the roll's target.
    let (caught, full, around, roll, needed) = a.with(|g, run| {
        let pieces = &g.state.pieces;
        let (caught, full, around) = match *landing {
            Landing::Line(dx, dy) => {
                let i = g.on_grid(shooter)?;
                a.cost(side_len(g).saturating_mul(8))?;
                let on_line: Vec<usize> = g
                    .view
                    .lines(pieces, i)
                    .into_iter()
                    .rfind(|l| l.0 == dx && l.1 == dy)
                    .map(|l| l.2)
                    .unwrap_or_default();
                let full: Vec<usize> = on_line
                    .iter()
                    .copied()
                    .filter(|&b| pieces[b].hidden.is_none())
                    .collect();
                (on_line, full, Vec::new())
            }
            Landing::Blast(square) => {
                let at = super::square(g, &Dynamic::from(square.to_string()))?;
                let (centre, around) = g.view.blast_at(at);
                let caught = centre.iter().copied().chain(around.iter().copied()).collect();
                let full = centre.filter(|&c| pieces[c].hidden.is_none()).into_iter().collect();
                (caught, full, around)
            }
        };
        let needed = match full.first() {
            Some(&b) => g.defence_of(b, &r.attack)? + 1,
            None => 0,
        };
        let ids = |list: &[usize]| -> Vec<String> { list.iter().map(|&b| pieces[b].id.clone()).collect() };
        let (caught, full, around) = (ids(&caught), ids(&full), ids(&around));
        let expr = dice(g, run, dice_text)?;
        let roll = g.roll_for(&mut run.rng, &expr, shooter, &r.attack.why);
        Ok((caught, full, around, roll, needed))
    })?;
    let (total, values) = rerolled_dice(ctx, r.reroll.as_deref(), shooter, &roll, needed)?;
    let high = values.into_iter().fold(0, i64::max);
    let (area, text, mut more) = match *landing {
        Landing::Line(dx, dy) => (
            "line",
            format!(
                "{shooter} fires the {} {}: {total} against {}",
                w.label,
                direction_words(dx, dy),
                listed(&full)
            ),
            vec![("dx", Json::from(dx)), ("dy", Json::from(dy))],
        ),
        Landing::Blast(square) => (
            "blast",
            format!(
                "{shooter} fires the {} at {square}: {total} there, {high} around",
                w.label
            ),
            vec![("square", Json::from(square)), ("around", Json::from(high))],
        ),
    };
    more.push(("caught", Json::from(caught)));
    log_shot(a, (shooter, w, area, total), text, cite, more)?;
    for id in &full {
        let what = match landing {
            Landing::Line(..) => format!("{id} is in the line of fire"),
            Landing::Blast(_) => format!("{id} takes the blast"),
        };
        strike(a, ctx, r, shooter, &w.id, id, total, &what)?;
    }
    for id in &around {
        let face_up = a.with(|g, _| Ok(g.state.pieces[g.index(id)?].hidden.is_none()))?;
        if face_up {
            strike(
                a,
                ctx,
                r,
                shooter,
                &w.id,
                id,
                high,
                &format!("{id} is caught in the blast"),
            )?;
        }
    }
    Ok(())
}

/// `game.shoot`: the weapons in the piece's `weapons` field in order until one fires, or,
/// for a piece whose `mounts` field is set, those and every mounted one (by mount name), as
/// long as the shooter stands.
fn shoot(a: &Api, ctx: &NativeCallContext, shooter: &str, side: &str, r: &Rule) -> Res<bool> {
    let (list, all) = a.with(|g, _| {
        let p = &g.state.pieces[g.index(shooter)?];
        let mut list: Vec<String> = Vec::new();
        if let Some(Json::Array(own)) = r.weapons.as_ref().and_then(|f| p.fields.get(f)) {
            list.extend(
                own.iter()
                    .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_string)),
            );
        }
        let mounts = r.mounts.as_ref().and_then(|f| p.fields.get(f)).filter(|m| !m.is_null());
        if let Some(Json::Object(m)) = mounts {
            let mut by_mount: Vec<(&String, &Json)> = m.iter().collect();
            by_mount.sort_by(|x, y| x.0.cmp(y.0));
            list.extend(
                by_mount
                    .into_iter()
                    .map(|(_, w)| w.as_str().map_or_else(|| w.to_string(), str::to_string)),
            );
        }
        Ok((list, mounts.is_some()))
    })?;
    let mut fired = false;
    for weapon in &list {
        if fired && !a.with(|g, _| Ok(g.state.pieces[g.index(shooter)?].on_board()))? {
            break;
        }
        if fire(a, ctx, shooter, weapon, side, &Aim::default(), r)? {
            fired = true;
            if !all {
                break;
            }
        }
    }
    Ok(fired)
}

/// Hand-to-hand: both roll the dice their field `r.dice` names, the re-roll hook sees each
/// roll, the lower loses the difference (a draw costs nothing); the `wounded` hook answers a
/// piece that survives a loss. Returns the piece that lost and survived (named as the caller
/// named it) and what it lost.
fn melee(a: &Api, ctx: &NativeCallContext, attacker: &str, defender: &str, r: &Rule) -> Res<Option<(String, i64)>> {
    let Some(field) = r.dice.clone() else {
        return Err("melee: the rule needs `dice` (the field naming each piece's dice)".into());
    };
    let (ai, di, ar, dr) = a.with(|g, run| {
        let (ai, di) = (g.on_board(attacker)?, g.on_board(defender)?);
        let text_of = |g: &Game, i: usize| -> Result<String, String> {
            let p = &g.state.pieces[i];
            match p.fields.get(&field) {
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                _ => Err(format!("melee: {} has no dice in its field `{field}`", p.id)),
            }
        };
        let (at, dt) = (text_of(g, ai)?, text_of(g, di)?);
        let ae = dice(g, run, &at)?;
        let ar = g.roll_for(&mut run.rng, &ae, attacker, &r.attack.why);
        let de = dice(g, run, &dt)?;
        let dr = g.roll_for(&mut run.rng, &de, defender, &r.attack.why);
        Ok((ai, di, ar, dr))
    })?;
    let at = rerolled(ctx, r.reroll.as_deref(), attacker, &ar, dr.total + 1)?;
    let dt = match r.reroll.as_deref() {
        None => dr.total,
        Some(_) => rerolled(ctx, r.reroll.as_deref(), defender, &dr, at + 1)?,
    };
    let hurt = a.with(|g, _| g.fight_out((ai, attacker), (di, defender), at, dt, &r.attack))?;
    a.triggers(ctx)?;
    let Some((i, lost)) = hurt else { return Ok(None) };
    let piece = if i == ai { attacker } else { defender };
    wounded(ctx, r, piece, lost)?;
    Ok(Some((piece.to_string(), lost)))
}

/// `game.engage`: a piece's one attack on pieces of `side` — hand-to-hand with the one the
/// `foe` hook picks when a piece of `side` stands beside it (the hook asked only then), else
/// [`shoot`]. Returns whether it attacked.
fn engage(a: &Api, ctx: &NativeCallContext, id: &str, side: &str, r: &Rule) -> Res<bool> {
    let (Some(foe), Some(melee_rule)) = (&r.foe, &r.melee) else {
        return Err(
            "engage: the rule needs `foe` (the hook picking whom to fight) and `melee` (the hand-to-hand rule)".into(),
        );
    };
    let beside = a.with(|g, _| {
        let i = g.on_grid(id)?;
        Ok(!g.view.adjacent(&g.state.pieces, i, side).is_empty())
    })?;
    if beside {
        let answer = hook(ctx, foe, (GameRef, id.to_string(), side.to_string()))?;
        if !answer.is_unit() {
            melee(a, ctx, id, &answer.to_string(), melee_rule)?;
            return Ok(true);
        }
    }
    shoot(a, ctx, id, side, r)
}

pub(super) fn register(engine: &mut Engine, api: &Api) {
    let a = api.clone();
    engine.register_fn(
        "attack",
        move |ctx: NativeCallContext,
              _: GameRef,
              attacker: &str,
              weapon: Dynamic,
              target: &str,
              rule_map: Map|
              -> Res<INT> {
            let r = rule(&rule_map, "attack")?;
            let (weapon, label, dice_text) = weapon_fields(&weapon)?;
            Ok(one_shot(&a, &ctx, &r, attacker, &weapon, &label, &dice_text, target)? as INT)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "melee",
        move |ctx: NativeCallContext, _: GameRef, attacker: &str, defender: &str, rule_map: Map| -> Res<Dynamic> {
            let r = rule(&rule_map, "melee")?;
            Ok(match melee(&a, &ctx, attacker, defender, &r)? {
                None => Dynamic::UNIT,
                Some((piece, lost)) => {
                    let mut m = Map::new();
                    m.insert("piece".into(), piece.into());
                    m.insert("lost".into(), Dynamic::from_int(lost as INT));
                    Dynamic::from_map(m)
                }
            })
        },
    );
    let a = api.clone();
    engine.register_fn(
        "fire",
        move |ctx: NativeCallContext,
              _: GameRef,
              shooter: &str,
              weapon: &str,
              side: &str,
              aim: Dynamic,
              rule_map: Map|
              -> Res<bool> {
            let r = rule(&rule_map, "fire")?;
            fire(&a, &ctx, shooter, weapon, side, &aim_of(&aim)?, &r)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "engage",
        move |ctx: NativeCallContext, _: GameRef, id: &str, side: &str, rule_map: Map| -> Res<bool> {
            let r = rule(&rule_map, "engage")?;
            engage(&a, &ctx, id, side, &r)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "shoot",
        move |ctx: NativeCallContext, _: GameRef, shooter: &str, side: &str, rule_map: Map| -> Res<bool> {
            let r = rule(&rule_map, "shoot")?;
            shoot(&a, &ctx, shooter, side, &r)
        },
    );
}
