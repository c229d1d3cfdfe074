//! Attacks as verbs (issue 39): a shot at one target and a fight hand-to-hand, each rolled,
//! compared and logged natively. The package says what they read — the dice (a weapon
//! record's own, or a piece's field naming its hand-to-hand dice), the stat that stops them
//! and a bonus to it a piece may carry for one turn, what the log cites — and the binding
//! (`api/combat.rs`) calls the hook a variant may replace (a re-roll) between the roll and
//! the comparison. Every point over the stat costs the target one life point; what a piece
//! survives with is returned, so a package's script can answer a wound (a weapon lost).
//!
//! A weapon fired (`game.fire`, `game.shoot`) reads its record here ([`Weapon`]: its dice and
//! its [`Area`]); the binding asks the package's hooks (whom to shoot, whether an area shot
//! may catch its own side) and the pieces below pick, roll, share out and log: the split
//! shot's next target ([`Game::split_pick`]), the line and blast lines
//! ([`Game::log_area_shot`]), each piece struck ([`Game::strike_standing`]).

use super::Game;
use crate::dice::{DiceExpr, DiceRoll, Rng};
use crate::steps::Step;
use indexmap::IndexMap;
use serde_json::Value as Json;

/// What an attack reads and cites, from the package.
#[derive(Debug, Clone, Default)]
pub struct AttackRule {
    /// The stat an attack's points must beat (a shot) — `armour`, say.
    pub stat: String,
    /// A piece field holding `#{ turn, value }`: `value` more on the stat during that turn.
    pub bonus: Option<String>,
    /// The purpose of the roll, as the log and the die prompt say it.
    pub why: String,
    /// What the log cites for an attack that hurts nobody.
    pub source: String,
}

/// A roll's outcome after the hook saw it: its total.
pub type Total = i64;

/// How one shot of a weapon spreads: its record's `area` (absent: one target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// One target, the whole total.
    Single,
    /// The total shared out among targets in sight, each given just what beats its stat.
    Split,
    /// Every piece on one straight or diagonal line, up to a wall or shut door, the total.
    Line,
    /// A square: the piece there the total, each piece around it the highest die.
    Blast,
}

impl Area {
    pub const NAMES: [&'static str; 4] = ["single", "split", "line", "blast"];

    pub fn parse(text: &str) -> Option<Area> {
        Some(match text {
            "single" => Area::Single,
            "split" => Area::Split,
            "line" => Area::Line,
            "blast" => Area::Blast,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A weapon record as a shot reads it.
#[derive(Debug, Clone)]
pub struct Weapon {
    pub id: String,
    /// Its label (its id when it has none).
    pub label: String,
    /// Its dice text; `None` for a weapon that does not fire (hand-to-hand only).
    pub dice: Option<String>,
    pub area: Area,
    /// Its `source`, cited on an area shot's line unless the rule names another.
    pub source: Option<String>,
}

impl Game {
    /// Record `id` of kind `kind` as a weapon: its `dice` and `area` (one of [`Area::NAMES`]).
    pub fn weapon(&self, kind: &str, id: &str) -> Result<Weapon, String> {
        use crate::value::Value;
        let records = self
            .ruleset
            .records
            .get(kind)
            .ok_or_else(|| format!("the package has no `{kind}` records"))?;
        let record = records.get(id).ok_or_else(|| {
            let hint = crate::diagnostic::did_you_mean(id, records.keys().map(String::as_str))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            format!("no {kind} `{id}`{hint}")
        })?;
        let dice = match record.fields.get("dice") {
            None => None,
            Some(Value::Dice(d)) => Some(d.text.clone()),
            Some(Value::Text(t)) => Some(t.clone()),
            Some(other) => return Err(format!("{kind} `{id}`: `dice` is not dice: {other:?}")),
        };
        let area = match record.fields.get("area") {
            None => Area::Single,
            Some(Value::Name(a) | Value::Text(a)) => Area::parse(a).ok_or_else(|| {
                format!(
                    "{kind} `{id}`: area `{a}` is not one a shot knows ({})",
                    Area::NAMES.join(", ")
                )
            })?,
            Some(other) => return Err(format!("{kind} `{id}`: `area` is not a name: {other:?}")),
        };
        Ok(Weapon {
            id: record.id.clone(),
            label: record.label.clone().unwrap_or_else(|| record.id.clone()),
            dice,
            area,
            source: record.source.clone(),
        })
    }

    /// Face-up pieces of `side` that piece `a` can see to shoot at, nearest first.
    pub fn in_sight(&self, a: usize, side: &str) -> Vec<usize> {
        let pieces = &self.state.pieces;
        self.view
            .visible(pieces, a, side)
            .into_iter()
            .filter(|&(b, _)| pieces[b].hidden.is_none())
            .map(|(b, _)| b)
            .collect()
    }

    /// A split shot's next target with `left` points to share: among the pieces `named` by
    /// the shooter's player, the first in sight (`seen`) not yet `struck` whose stat `left`
    /// beats; with none named, of those in sight the one cheapest to hurt (the nearest on a
    /// tie). Returns it with the points it takes (its stat and bonus, plus one).
    pub fn split_pick(
        &self,
        seen: &[usize],
        named: Option<&[usize]>,
        struck: &[usize],
        left: i64,
        rule: &AttackRule,
    ) -> Result<Option<(usize, i64)>, String> {
        let mut pick: Option<(usize, i64)> = None;
        if let Some(named) = named {
            for &t in named {
                if struck.contains(&t) || !seen.contains(&t) {
                    continue;
                }
                let need = self.defence_of(t, rule)? + 1;
                if need <= left {
                    return Ok(Some((t, need)));
                }
            }
            return Ok(None);
        }
        for &t in seen {
            if struck.contains(&t) {
                continue;
            }
            let need = self.defence_of(t, rule)? + 1;
            if need <= left && pick.is_none_or(|(_, cost)| need < cost) {
                pick = Some((t, need));
            }
        }
        Ok(pick)
    }

    /// A shot's `points` at piece `target` if it still stands (else `None`): its stat read
    /// now, then [`Game::strike`].
    pub fn strike_standing(
        &mut self,
        attacker: &str,
        weapon: &str,
        target: &str,
        points: i64,
        what: &str,
        rule: &AttackRule,
    ) -> Result<Option<i64>, String> {
        let t = self.index(target)?;
        if !self.state.pieces[t].on_board() {
            return Ok(None);
        }
        let defence = self.defence_of(t, rule)?;
        self.strike(attacker, weapon, t, target, points, defence, what, rule)
            .map(Some)
    }

    /// The line an area shot opens with (its fields in the order a script's map gives
    /// them: by name), cited `source`.
    pub fn log_area_shot(&mut self, text: String, source: &str, fields: Vec<(&str, Json)>) -> Result<(), String> {
        let mut fields = fields;
        fields.sort_by(|a, b| a.0.cmp(b.0));
        let fields: IndexMap<String, Json> = fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        self.say_with(text, Some(source.to_string()), fields)
    }

    /// Stat `rule.stat` of piece `i` and, during the turn its field `rule.bonus` names, that
    /// field's `value` added.
    pub fn defence_of(&self, i: usize, rule: &AttackRule) -> Result<i64, String> {
        let p = &self.state.pieces[i];
        let base = match self.stat(i, &rule.stat) {
            Some(crate::value::Value::Number(n)) => *n,
            Some(other) => {
                return Err(format!(
                    "{} ({}): stat `{}` is not a number: {other:?}",
                    p.id, p.kind, rule.stat
                ));
            }
            None => return Err(format!("{} ({}) has no stat `{}`", p.id, p.kind, rule.stat)),
        };
        let Some(field) = &rule.bonus else { return Ok(base) };
        match p.fields.get(field) {
            Some(Json::Object(bonus)) if bonus.get("turn").and_then(Json::as_i64) == Some(self.state.turn as i64) => {
                match bonus.get("value").and_then(Json::as_i64) {
                    Some(v) => Ok(base + v),
                    None => Err(format!("{}: field `{field}` has no whole-number `value`", p.id)),
                }
            }
            _ => Ok(base),
        }
    }

    /// Rolls `expr` for piece `piece` and logs the roll as a script's `roll_dice(dice, #{
    /// piece, why })` logs it.
    pub fn roll_for(&mut self, rng: &mut Rng, expr: &DiceExpr, piece: &str, why: &str) -> DiceRoll {
        let before = rng.rolling_about(Some(format!("{piece}: {why}")), Some(piece.to_string()));
        let roll = expr.roll(rng);
        rng.rolling_about(before.0, before.1);
        self.absorb(vec![Step::Roll {
            roll: roll.clone(),
            why: Some(why.to_string()),
            piece: Some(piece.to_string()),
        }]);
        roll
    }

    /// A shot's `points` against target `t` (named `target` by the caller) whose stat is
    /// `defence`: below or equal, a line that it does not beat it; above, the difference in
    /// life points (at most what the target has). `what` opens both lines. Returns the life
    /// points lost by a target still standing (0 when it missed or the target fell).
    #[allow(clippy::too_many_arguments)]
    pub fn strike(
        &mut self,
        attacker: &str,
        weapon: &str,
        t: usize,
        target: &str,
        points: i64,
        defence: i64,
        what: &str,
        rule: &AttackRule,
    ) -> Result<i64, String> {
        if points <= defence {
            let mut fields = IndexMap::new();
            fields.insert("attacker".to_string(), Json::from(attacker));
            fields.insert("armour".to_string(), Json::from(defence));
            fields.insert("damage".to_string(), Json::from(0));
            fields.insert("points".to_string(), Json::from(points));
            fields.insert("target".to_string(), Json::from(target));
            fields.insert("weapon".to_string(), Json::from(weapon));
            self.say_with(
                format!("{what}: {points} does not beat {target}'s {} {defence}", rule.stat),
                Some(rule.source.clone()),
                fields,
            )?;
            return Ok(0);
        }
        let mut fields = IndexMap::new();
        fields.insert("armour".to_string(), Json::from(defence));
        fields.insert("points".to_string(), Json::from(points));
        fields.insert("weapon".to_string(), Json::from(weapon));
        let reason = format!("{what}: {points} against {} {defence}", rule.stat);
        self.wound(t, attacker, points - defence, &reason, fields)
    }

    /// Piece `t` loses `lost` life points (at most what it has) to `attacker`; returns what
    /// it lost if it still stands, else 0.
    pub fn wound(
        &mut self,
        t: usize,
        attacker: &str,
        lost: i64,
        reason: &str,
        fields: IndexMap<String, Json>,
    ) -> Result<i64, String> {
        let before = self.state.pieces[t].life;
        let left = self.damage(t, lost.min(before), reason, attacker, Some(fields))?;
        Ok(if left > 0 { before - left } else { 0 })
    }

    /// Hand-to-hand after both rolled (and the hooks saw the rolls): the lower total loses a
    /// life point for each point of the difference, a draw costs nothing. Returns the piece
    /// that lost life and still stands, with what it lost.
    pub fn fight_out(
        &mut self,
        (a, attacker): (usize, &str),
        (d, defender): (usize, &str),
        at: Total,
        dt: Total,
        rule: &AttackRule,
    ) -> Result<Option<(usize, i64)>, String> {
        let what = format!("{attacker} ({at}) fights {defender} ({dt})");
        let (loser, winner, margin, high, low) = match at.cmp(&dt) {
            std::cmp::Ordering::Greater => (d, attacker, at - dt, at, dt),
            std::cmp::Ordering::Less => (a, defender, dt - at, dt, at),
            std::cmp::Ordering::Equal => {
                let mut fields = IndexMap::new();
                fields.insert("attacker".to_string(), Json::from(attacker));
                fields.insert("damage".to_string(), Json::from(0));
                fields.insert("defence".to_string(), Json::from(dt));
                fields.insert("points".to_string(), Json::from(at));
                fields.insert("target".to_string(), Json::from(defender));
                self.say_with(format!("{what}: a draw"), Some(rule.source.clone()), fields)?;
                return Ok(None);
            }
        };
        let mut fields = IndexMap::new();
        fields.insert("defence".to_string(), Json::from(low));
        fields.insert("points".to_string(), Json::from(high));
        let kept = self.wound(loser, winner, margin, &what, fields)?;
        Ok((kept > 0).then_some((loser, kept)))
    }
}

/// A direction across the map in words, as a line shot's log says it: `up`, `down and left`.
pub fn direction_words(dx: i32, dy: i32) -> String {
    let v = match dy.signum() {
        -1 => "up",
        1 => "down",
        _ => "",
    };
    let h = match dx.signum() {
        -1 => "left",
        1 => "right",
        _ => "",
    };
    match (v.is_empty(), h.is_empty()) {
        (true, _) => h.to_string(),
        (_, true) => v.to_string(),
        _ => format!("{v} and {h}"),
    }
}
