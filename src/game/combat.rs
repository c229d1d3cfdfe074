//! Attacks as verbs (issue 39): a shot at one target and a fight hand-to-hand, each rolled,
//! compared and logged natively. The package says what they read — the dice (a weapon
//! record's own, or a piece's field naming its hand-to-hand dice), the stat that stops them
//! and a bonus to it a piece may carry for one turn, what the log cites — and the binding
//! (`api/combat.rs`) calls the hook a variant may replace (a re-roll) between the roll and
//! the comparison. Every point over the stat costs the target one life point; what a piece
//! survives with is returned, so a package's script can answer a wound (a weapon lost).

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

impl Game {
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
