//! servitor: a rules-DSL interpreter that runs the enemy in solo play of miniatures games.
//!
//! Start reading at [`load`]: [`package::load`] turns a package folder into a [`Ruleset`],
//! then every script is checked against the functions the engine gives it. Then [`tables`]
//! (rolling and exact odds), [`script`] (procedures in Rhai) and [`game`] (whole games).
//! The code map with the invariants is `src/README.md`.

pub mod board;
pub mod campaign;
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
pub mod steps;
pub mod syntax;
pub mod tables;
pub mod value;

pub use package::{LoadError, Loaded};
pub use ruleset::Ruleset;

/// Loads a package (`package::load`), then checks its scripts against every function the
/// engine gives them — procedures' and games' alike — and the ids they name
/// (`script::check`): what fails there would fail only when the script runs.
pub fn load(arg: &str) -> Result<Loaded, LoadError> {
    let mut loaded = package::load(arg)?;
    let mut names = script::check::procedure_functions().clone();
    names.extend(game::api::function_names().iter().cloned());
    let found = script::check::check(&loaded.ruleset, &names);
    if found.is_empty() {
        return Ok(loaded);
    }
    let mut report = std::mem::take(&mut loaded.warnings);
    for d in found {
        report.push(d);
    }
    if report.has_errors() {
        let sources = std::mem::take(&mut loaded.ruleset.sources);
        return Err(LoadError::Invalid { sources, report });
    }
    loaded.warnings = report;
    Ok(loaded)
}
