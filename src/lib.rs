//! servitor: a rules-DSL interpreter that runs the enemy in solo play of miniatures games.
//!
//! Start reading at [`package::load`], which turns a package folder into a [`Ruleset`];
//! then [`tables`] (rolling and exact odds) and [`script`] (procedures in Rhai).
//! The code map with the invariants is `src/README.md`.

pub mod board;
pub mod diagnostic;
pub mod dice;
pub mod escape;
pub mod game;
pub mod limits;
pub mod package;
pub mod ruleset;
pub mod script;
pub mod sim;
pub mod source;
pub mod syntax;
pub mod tables;
pub mod value;

pub use package::{LoadError, Loaded, load};
pub use ruleset::Ruleset;
