//! The event log: one line per action, roll, table roll or decision, with its cause.
//!
//! Two views of one log are made here, both pure functions of it:
//! - the **referee's view** ([`annotate`]): every event with the structured fields a program
//!   outside servitor needs to re-check the rules (the piece, where it stood, the path, the
//!   dice, attacker and target, …), derived from the actions by replaying them;
//! - the **player's view** ([`PlayerView`], [`player_log`]): what a player at the table may
//!   know — no face-down piece's identity, no secret pool's contents, no deck's order, no field
//!   a script marked `secret`.
//!
//! An [`Event`] has its turn, side, phase, kind, text, table and result, source and action,
//! and the structured fields of `LOG_VERSION` 1: from, to and path, at, revealed, dice,
//! attacker, weapon, target, armour and damage, purpose (what a roll decides), rerolled (a
//! table's earlier rolls), candidates, refused, and a script's own fields. The referee's view
//! serves `game --json` and `scenario --json` alike (a move's from, to and facing, where a
//! door was opened from); the player's puts `?` for every secret.
//!
//! The schema is versioned ([`LOG_VERSION`]) and documented in docs/event-log.md ("The event
//! log").

use super::state::{Action, GameState, apply};
use crate::board::Square;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::{BTreeSet, HashMap};

/// The version of the event schema (`"log_version"` in `servitor game --json`): raised when a
/// field changes meaning or goes away; new optional fields keep it.
pub const LOG_VERSION: u32 = 1;

/// What the player's view shows in place of a secret (a face-down identity, a secret pool's
/// entry, a card not yet drawn).
pub const UNKNOWN: &str = "?";

/// The key under which a script's structured fields hold what only the referee may see.
pub const SECRET_FIELD: &str = "secret";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Event {
    pub turn: u32,
    pub side: String,
    pub phase: String,
    /// `phase`, `place`, `reveal`, `move`, `door`, `damage`, `remove`, `score`, …, `roll`,
    /// `table`, `decision`, `note`, `end`.
    pub kind: String,
    /// What happened, in words a player at the table can follow.
    pub text: String,
    /// The table rolled on (a `table` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The table's result name (a `table` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The rule this follows: seed file and section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The piece it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piece: Option<String>,
    /// The state change, for replay; rolls and decisions change nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    // ----- structured fields (log version 1); see docs/event-log.md, "The event log" -----
    /// A move's first square (where the piece stood before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Square>,
    /// A move's last square.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Square>,
    /// Every square a move stepped onto, in order (`from` not included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<Square>,
    /// Where the piece stands: placed, entered, revealed (its top-left square), opening a
    /// door, leaving the board (the square it left from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Square>,
    /// The way a piece with a front faced while it walked a move's squares (`up`, `right`,
    /// `down`, `left`): a turn during a walk is a `face` event between two of its moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<String>,
    /// What a reveal turned face up (a `reveal` event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<String>,
    /// A roll's dice (a `roll` or `table` event): each die by its name (a colour for dice by
    /// faces), the value it counts and the face it shows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<Die>,
    /// A roll's total (a `roll` event; a `table` event's last roll).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
    /// Who strikes (a `damage` event's `by`, or a script's `attacker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weapon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub armour: Option<i64>,
    /// Life points lost (a `damage` event), or what a script says a strike does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage: Option<i64>,
    /// What a roll (a `roll` or `table` event) was for, as the script said (`roll_dice`'s and
    /// `roll`'s `why`, `roll_table`'s `why`): "to fire", "hand-to-hand", "a blip's row".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    /// A table's rolls before its last, each die of each (a row that sends the roll round
    /// again, or a result left out): the last is `dice` and `total`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rerolled: Vec<Rerolled>,
    /// What a choice was made among, with the measures that decided it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    /// Squares (or pieces) turned down, each with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Candidate>,
    /// Any other fields a script attached (`game.say(text, source, #{ … })`); those under
    /// `secret` are the referee's only.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub fields: IndexMap<String, Json>,
}

/// One roll of a table rolled again: its dice and total.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rerolled {
    pub dice: Vec<Die>,
    pub total: i64,
}

/// One die of a roll, as the log gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Die {
    /// `d6`, `d12`, or a die by faces' name (`red`).
    pub die: String,
    /// What it counts.
    pub value: i64,
    /// The face's symbol, for dice with named faces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<String>,
    /// The physical dice behind a `d3` (one d6) or a `d66` (two d6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raw: Vec<i64>,
}

impl From<&crate::dice::RolledDie> for Die {
    fn from(d: &crate::dice::RolledDie) -> Self {
        Die {
            die: d.die.clone(),
            value: d.value,
            face: d.face.clone(),
            raw: d.raw.clone(),
        }
    }
}

/// One of the things a choice was made among (a piece or a square), with what was measured.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piece: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub square: Option<Square>,
    /// Steps away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<i64>,
    /// In sight (of the chooser, or of the side it hides from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<bool>,
    /// Why it was chosen or turned down, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl Event {
    /// The engine's bookkeeping, which a player at the table has nothing to do for: a
    /// script's variables and piece fields, a side's first entry into a section, counters
    /// moved between pools (a random draw is kind `draw`, and shown), a watch kept or ended
    /// (what the rules make of it — a shot, a jam — is logged on its own). Accounts leave these
    /// out unless asked (`--verbose`); the JSON log keeps them.
    pub fn is_bookkeeping(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "var" | "set" | "entered" | "take" | "give" | "choice" | "watch"
        )
    }

    /// Attaches the structured fields a script gives (`game.say(text, source, #{ … })`):
    /// the known keys (`piece`, `attacker`, `weapon`, `target`, `armour`, `damage`,
    /// `candidates`, `refused`) are checked and typed; any other key is kept in `fields`.
    pub fn attach(&mut self, map: IndexMap<String, Json>) -> Result<(), String> {
        fn text(key: &str, v: Json) -> Result<String, String> {
            match v {
                Json::String(s) => Ok(s),
                other => Err(format!("field `{key}` is the id of a piece or record, not {other}")),
            }
        }
        fn number(key: &str, v: Json) -> Result<i64, String> {
            v.as_i64()
                .ok_or_else(|| format!("field `{key}` is a whole number, not {v}"))
        }
        fn list(key: &str, v: Json) -> Result<Vec<Candidate>, String> {
            serde_json::from_value(v)
                .map_err(|e| format!("field `{key}` is a list of #{{ piece or square, distance, visible, why }}: {e}"))
        }
        for (key, value) in map {
            if value.is_null() {
                continue;
            }
            match key.as_str() {
                "piece" => self.piece = Some(text(&key, value)?),
                "attacker" => self.attacker = Some(text(&key, value)?),
                "weapon" => self.weapon = Some(text(&key, value)?),
                "target" => self.target = Some(text(&key, value)?),
                "armour" => self.armour = Some(number(&key, value)?),
                "damage" => self.damage = Some(number(&key, value)?),
                "candidates" => self.candidates = list(&key, value)?,
                "refused" => self.refused = list(&key, value)?,
                _ => {
                    self.fields.insert(key, value);
                }
            }
        }
        Ok(())
    }
}

/// The referee's view of a log: each event with the fields its action implies filled in
/// (where a move started and ended, where a piece was placed or stood to open a door, what a
/// reveal showed, a damage's target and amount), found by replaying the actions from the
/// start. Fields the event already has are kept.
pub fn annotate(events: &[Event]) -> Vec<Event> {
    let mut state = GameState::default();
    events.iter().map(|e| annotate_next(&mut state, e)).collect()
}

/// [`annotate`] of the next event of a log, `state` being what the events before it left.
fn annotate_next(state: &mut GameState, e: &Event) -> Event {
    let mut e = e.clone();
    let Some(action) = e.action.clone() else {
        return e;
    };
    let at = |state: &GameState, id: &str| state.piece(id).and_then(|p| p.at);
    match &action {
        Action::Move { id, path } => {
            let faced = state.piece(id).and_then(|p| p.facing);
            e.facing = e
                .facing
                .or_else(|| faced.map(|f| crate::board::facing::FACING_NAMES[usize::from(f) % 4].to_string()));
            e.from = e.from.or(at(state, id));
            e.to = e.to.or(path.last().copied());
            if e.path.is_empty() {
                e.path.clone_from(path);
            }
        }
        Action::Door { .. } => {
            if let Some(id) = e.piece.as_deref() {
                e.at = e.at.or(at(state, id));
            }
        }
        Action::Leave { id, .. } | Action::Remove { id } => e.at = e.at.or(at(state, id)),
        Action::Damage { id, amount } => {
            e.target = e.target.or_else(|| Some(id.clone()));
            e.damage = e.damage.or(Some(*amount));
        }
        _ => {}
    }
    apply(state, &action);
    match &action {
        Action::Add { piece } => e.at = e.at.or(piece.at),
        Action::Enter { id, .. } => e.at = e.at.or(at(state, id)),
        Action::Reveal { id, .. } => {
            e.at = e.at.or(at(state, id));
            e.revealed = e.revealed.or_else(|| state.piece(id).map(|p| p.kind.clone()));
        }
        _ => {}
    }
    e
}

/// The player's view of a log kept up as the log grows: each new event seen once, so a long
/// session costs the same per command at turn 20 as at turn 1 ([`player_log`] of the whole
/// log, one event at a time).
#[derive(Debug, Default)]
pub struct PlayerLog {
    referee: GameState,
    view: PlayerView,
    /// The player's view of the events seen so far.
    pub seen: Vec<Event>,
}

impl PlayerLog {
    /// Sees the events of `log` not seen yet (a log only grows; one that shrank, as after an
    /// undo, is seen again from its start).
    pub fn catch_up(&mut self, log: &[Event]) -> &[Event] {
        let from = self.seen.len();
        if log.len() < from {
            *self = PlayerLog::default();
            return self.catch_up(log);
        }
        for e in &log[from..] {
            self.see_next(e);
        }
        &self.seen[from..]
    }

    /// Sees the next event of the log.
    pub fn see_next(&mut self, e: &Event) {
        let annotated = annotate_next(&mut self.referee, e);
        let seen = self.view.see(&annotated);
        self.seen.push(seen);
    }
}

/// The player's view of a log, event by event: what a player at the table may know. It
/// follows the log from its start (which pools are secret, which pieces face down) and
/// replaces every secret with [`UNKNOWN`]:
/// - a face-down piece's identity (`hidden`), and its life and fields, which come from it;
///   a field set on a face-down piece;
/// - a secret pool's entries (their total is kept: `{"?": 14}`), and the entry each draw from
///   it takes or each return gives;
/// - a deck's cards and their order (their number is kept); a card is known when drawn;
/// - whatever a script put under `secret` in an event's fields.
///
/// What a script writes in an event's text is the script's to keep secret: say a face-down
/// piece's identity only once it is revealed.
#[derive(Debug, Default, Clone)]
pub struct PlayerView {
    secret_pools: BTreeSet<String>,
    face_down: HashMap<String, String>,
}

impl PlayerView {
    /// The player's view of the next event of the log.
    pub fn see(&mut self, event: &Event) -> Event {
        let mut e = event.clone();
        e.fields.shift_remove(SECRET_FIELD);
        let Some(action) = e.action.as_mut() else {
            return e;
        };
        match action {
            Action::Add { piece } => {
                if let Some(identity) = piece.hidden.as_mut() {
                    self.face_down.insert(piece.id.clone(), identity.clone());
                    *identity = UNKNOWN.into();
                    piece.life = 0;
                    piece.fields.clear();
                }
            }
            Action::Reveal { id, .. } => {
                self.face_down.remove(id.as_str());
            }
            Action::Set { id, field, value } if self.face_down.contains_key(id.as_str()) => {
                *value = Json::String(UNKNOWN.into());
                e.text = format!("{id}: {field} set while face down");
            }
            Action::NewPool { id, entries, secret } => {
                if *secret {
                    self.secret_pools.insert(id.clone());
                    let total = entries.values().fold(0i64, |t, n| t.saturating_add(*n));
                    *entries = IndexMap::from([(UNKNOWN.to_string(), total)]);
                } else {
                    self.secret_pools.remove(id.as_str());
                }
            }
            Action::Take { pool, entry, .. } if self.secret_pools.contains(pool.as_str()) => {
                *entry = UNKNOWN.into();
            }
            Action::NewDeck { cards, .. } => {
                for card in cards.iter_mut() {
                    *card = UNKNOWN.into();
                }
            }
            _ => {}
        }
        e
    }

    /// Whether the piece is face down as far as the log so far says.
    pub fn is_face_down(&self, id: &str) -> bool {
        self.face_down.contains_key(id)
    }
}

/// The player's view of a whole log: the referee's view ([`annotate`]: nothing it derives is
/// secret — where pieces stand, what a reveal showed) with every secret put out of sight
/// ([`PlayerView`]).
pub fn player_log(events: &[Event]) -> Vec<Event> {
    let mut view = PlayerView::default();
    annotate(events).iter().map(|e| view.see(e)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::state::Piece;

    fn event(kind: &str, action: Action) -> Event {
        Event {
            kind: kind.into(),
            text: kind.into(),
            action: Some(action),
            ..Event::default()
        }
    }

    fn token(id: &str, hidden: &str, at: Square) -> Piece {
        Piece {
            id: id.into(),
            kind: "token".into(),
            hidden: Some(hidden.into()),
            side: "them".into(),
            status: "board".into(),
            at: Some(at),
            point: None,
            size: 1,
            diagonal: true,
            life: 3,
            fields: IndexMap::from([("weapon".to_string(), Json::String("claws".into()))]),
            facing: None,
            ap: None,
            watch: None,
            models: Vec::new(),
            model_records: Vec::new(),
        }
    }

    #[test]
    fn the_player_sees_no_secret_and_the_referee_sees_where_things_happened() {
        let log = vec![
            event(
                "pool",
                Action::NewPool {
                    id: "tokens".into(),
                    entries: IndexMap::from([("wolf".to_string(), 2), ("bear".to_string(), 1)]),
                    secret: true,
                },
            ),
            event(
                "deck",
                Action::NewDeck {
                    id: "cards".into(),
                    cards: vec!["storm".into(), "calm".into()],
                },
            ),
            event(
                "take",
                Action::Take {
                    pool: "tokens".into(),
                    entry: "wolf".into(),
                    n: 1,
                },
            ),
            event(
                "place",
                Action::Add {
                    piece: Box::new(token("token-1", "wolf", Square::new(2, 2))),
                },
            ),
            event(
                "set",
                Action::Set {
                    id: "token-1".into(),
                    field: "weapon".into(),
                    value: Json::String("fangs".into()),
                },
            ),
            event(
                "move",
                Action::Move {
                    id: "token-1".into(),
                    path: vec![Square::new(3, 2), Square::new(4, 3)],
                },
            ),
            event(
                "reveal",
                Action::Reveal {
                    id: "token-1".into(),
                    life: 3,
                    size: 1,
                    diagonal: true,
                    at: None,
                    rename: None,
                },
            ),
        ];
        let seen = player_log(&log);
        // Until the reveal, nothing secret shows; the reveal shows what it revealed.
        let player = serde_json::to_string(&seen[..6]).unwrap();
        for secret in ["wolf", "bear", "storm", "calm", "fangs", "claws"] {
            assert!(!player.contains(secret), "`{secret}` shows in {player}");
        }
        assert_eq!(seen[6].revealed.as_deref(), Some("wolf"));
        assert_eq!(seen[5].to, Some(Square::new(4, 3)), "where things happen is no secret");
        assert!(player.contains(r#""entries":{"?":3}"#), "{player}");
        assert!(player.contains(r#""cards":["?","?"]"#), "{player}");
        let referee = annotate(&log);
        assert_eq!(referee[5].from, Some(Square::new(2, 2)));
        assert_eq!(referee[5].to, Some(Square::new(4, 3)));
        assert_eq!(referee[6].revealed.as_deref(), Some("wolf"));
        assert_eq!(referee[6].at, Some(Square::new(4, 3)));
        let referee = serde_json::to_string(&referee).unwrap();
        for secret in ["wolf", "bear", "storm", "calm", "fangs", "claws"] {
            assert!(referee.contains(secret), "the referee sees `{secret}`: {referee}");
        }
    }

    #[test]
    fn a_script_field_is_typed_or_kept_and_its_secret_is_the_referees() {
        let mut e = Event::default();
        let map: IndexMap<String, Json> = serde_json::from_str(
            r#"{"attacker": "a-1", "armour": 2, "candidates": [{"piece": "b-1", "distance": 3, "visible": true}],
                "secret": {"identity": "wolf"}, "extra": [1, 2]}"#,
        )
        .unwrap();
        e.attach(map).unwrap();
        assert_eq!(e.attacker.as_deref(), Some("a-1"));
        assert_eq!(e.armour, Some(2));
        assert_eq!(e.candidates[0].distance, Some(3));
        assert!(e.fields.contains_key("extra") && e.fields.contains_key("secret"));
        let seen = PlayerView::default().see(&e);
        assert!(!seen.fields.contains_key("secret") && seen.fields.contains_key("extra"));
        let bad: IndexMap<String, Json> = serde_json::from_str(r#"{"armour": "thick"}"#).unwrap();
        let err = Event::default().attach(bad).unwrap_err();
        assert!(err.contains("`armour` is a whole number"), "{err}");
        let bad: IndexMap<String, Json> = serde_json::from_str(r#"{"refused": [{"sqare": "1,1"}]}"#).unwrap();
        let err = Event::default().attach(bad).unwrap_err();
        assert!(err.contains("unknown field `sqare`"), "{err}");
    }
}
