//! The event log: one line per action, roll, table roll or decision, with its cause.

use super::state::Action;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}
