//! The lines a run logs besides actions — rolls, table rolls, dice read die by die, notes —
//! written by scripts (`script`) and taken into a game's log by the kernel (`Game::absorb`).
//! Below both, so that the kernel needs nothing of the script host.

use crate::dice::DiceRoll;
use crate::tables::roll::TableRoll;
use serde::Serialize;

/// One line of a procedure's log.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "step", rename_all = "lowercase")]
pub enum Step {
    /// A dice roll that is not a table roll.
    Roll {
        #[serde(flatten)]
        roll: DiceRoll,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<String>,
        /// The piece the roll is for (`roll_dice(dice, #{ piece })`).
        #[serde(skip_serializing_if = "Option::is_none")]
        piece: Option<String>,
    },
    /// A roll on a table, with its row, result and follow-ups.
    Table(Box<TableRoll>),
    /// Dice a record's declared rolls read (`read_record`): the dice as they lay, and the
    /// readings in words (`weapon w: dice 2d6: 3, 5 → kill no, jam no`).
    Read {
        #[serde(flatten)]
        roll: DiceRoll,
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        piece: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    },
    /// A decision or remark the script logs.
    Note {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    },
}

impl Step {
    /// About how many bytes the step takes in a log (charged against `MAX_LOG_BYTES`).
    pub fn log_bytes(&self) -> usize {
        match self {
            Step::Note { text, source } => 8 + text.len() + source.as_ref().map_or(0, String::len),
            Step::Roll { roll, why, piece } => {
                16 + roll.expr.len()
                    + 12 * roll.dice.len()
                    + why.as_ref().map_or(0, String::len)
                    + piece.as_ref().map_or(0, String::len)
            }
            Step::Table(roll) => serde_json::to_vec(roll).map_or(0, |v| v.len()),
            Step::Read {
                roll,
                text,
                why,
                piece,
                source,
            } => {
                16 + text.len()
                    + 12 * roll.dice.len()
                    + [why, piece, source]
                        .iter()
                        .map(|s| s.as_ref().map_or(0, String::len))
                        .sum::<usize>()
            }
        }
    }
}
