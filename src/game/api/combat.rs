//! The binding of the attack verbs ([`crate::game::combat`], issue 39): `game.attack(attacker,
//! weapon, target, rule)` — one shot of a weapon record's dice at one target — and
//! `game.melee(attacker, defender, rule)` — hand-to-hand, both rolling the dice their field
//! names. The rule map says what the package's attack reads and cites; its `reroll` names the
//! script function a variant may replace, called with `(game, who, roll, needed)` after each
//! roll and before the comparison, its answer (a roll map, `total` read) used. Both return
//! what the wounded piece lost and survived with (`attack`: a number; `melee`: `#{ piece,
//! lost }` or `()`), for a script that answers a wound.

use super::{Api, GameRef, Res};
use crate::dice::{DiceExpr, DiceRoll};
use crate::game::Game;
use crate::game::combat::AttackRule;
use crate::script::RunState;
use crate::script::handles::RecordView;
use rhai::{Dynamic, Engine, INT, Map, NativeCallContext};

/// The rule map read: `stat`, `why`, `source` texts; `bonus`, `reroll`, `dice` (fight: the
/// field holding each piece's dice) optional.
struct Rule {
    attack: AttackRule,
    reroll: Option<String>,
    dice: Option<String>,
}

const KEYS: [&str; 6] = ["stat", "bonus", "why", "source", "reroll", "dice"];

fn rule(map: &Map, verb: &str) -> Result<Rule, String> {
    let mut r = Rule {
        attack: AttackRule::default(),
        reroll: None,
        dice: None,
    };
    for (key, value) in map {
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
            other => {
                let hint = crate::diagnostic::did_you_mean(other, KEYS.iter().copied())
                    .unwrap_or_else(|| format!("a rule has: {}", KEYS.join(", ")));
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
    let Some(name) = name else { return Ok(roll.total) };
    let answer = ctx.call_fn::<Dynamic>(
        name,
        (GameRef, who.to_string(), crate::script::dice_map(roll), needed as INT),
    )?;
    answer
        .read_lock::<Map>()
        .and_then(|m| m.get("total").and_then(|t| t.as_int().ok()))
        .ok_or_else(|| format!("{name} answers a roll: a map with a whole-number `total`, not {answer}").into())
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
            let (t, defence, roll) = a.with(|g, run| {
                let t = g.on_board(target)?;
                let defence = g.defence_of(t, &r.attack)?;
                let expr = dice(g, run, &dice_text)?;
                let roll = g.roll_for(&mut run.rng, &expr, attacker, &r.attack.why);
                Ok((t, defence, roll))
            })?;
            let points = rerolled(&ctx, r.reroll.as_deref(), attacker, &roll, defence + 1)?;
            let kept = a.with(|g, _| {
                let what = format!("{attacker} fires the {label} at {target}");
                g.strike(attacker, &weapon, t, target, points, defence, &what, &r.attack)
            })?;
            a.triggers(&ctx)?;
            Ok(kept as INT)
        },
    );
    let a = api.clone();
    engine.register_fn(
        "melee",
        move |ctx: NativeCallContext, _: GameRef, attacker: &str, defender: &str, rule_map: Map| -> Res<Dynamic> {
            let r = rule(&rule_map, "melee")?;
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
            let at = rerolled(&ctx, r.reroll.as_deref(), attacker, &ar, dr.total + 1)?;
            let dt = match r.reroll.as_deref() {
                None => dr.total,
                Some(_) => rerolled(&ctx, r.reroll.as_deref(), defender, &dr, at + 1)?,
            };
            let hurt = a.with(|g, _| g.fight_out((ai, attacker), (di, defender), at, dt, &r.attack))?;
            a.triggers(&ctx)?;
            Ok(match hurt {
                None => Dynamic::UNIT,
                Some((i, lost)) => {
                    let mut m = Map::new();
                    // Named as the caller named it.
                    let piece = if i == ai { attacker } else { defender };
                    m.insert("piece".into(), piece.into());
                    m.insert("lost".into(), Dynamic::from_int(lost as INT));
                    Dynamic::from_map(m)
                }
            })
        },
    );
}
