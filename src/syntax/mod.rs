//! Text → syntax tree with byte spans. All pest types stay inside [`parser`].

pub mod ast;
mod parser;

pub use parser::{parse, parse_dice_text, parse_roll_text};
