//! The Rhai host: compiles a package's scripts once at load (syntax errors become
//! diagnostics with file:line:col) and runs procedures against the engine API in [`api`].
//!
//! [`span_at`] is the one place a Rhai position becomes a [`Span`]. [`STACK_BYTES`] is the
//! stack every thread that runs scripts gets (the command's, a sim's pool).

mod api;
pub mod args;
mod board_api;
pub mod check;
pub mod handles;
pub mod profile;
mod run;
mod sandbox;

pub use crate::limits::Spent;
pub use crate::value::words_of_json;
pub use api::{RunState, dice_map, to_dynamic};
pub use run::{Failure, RunError, RunOutput, Step, call_function, run_procedure, script_failure};
pub use sandbox::Budget;
pub(crate) use sandbox::Instant;
pub use sandbox::outside_the_deadline;

/// Stack of every thread that runs scripts, in bytes. A script's values may nest as deep as
/// Rhai's size limits allow (about 20,000 arrays and maps inside each other, built over a few
/// turns of a game); turning them into JSON, printing and dropping them recurses once per
/// level, past the 2 MiB of a spawned thread's default stack (an abort). 16 MiB holds twice
/// the deepest such value.
pub const STACK_BYTES: usize = 16 << 20;

/// A sandboxed engine with every function a procedure may call (dice, tables, data, board
/// questions), drawing on `state`. The game layer adds its own on top.
pub fn engine_for(
    ruleset: &std::sync::Arc<crate::Ruleset>,
    state: &std::sync::Arc<std::sync::Mutex<RunState>>,
) -> rhai::Engine {
    engine_and_budget_for(ruleset, state).0
}

/// [`engine_for`], and the budget its runs are held to (the game layer charges its own
/// questions and log to it, and counts a game's runs together).
pub fn engine_and_budget_for(
    ruleset: &std::sync::Arc<crate::Ruleset>,
    state: &std::sync::Arc<std::sync::Mutex<RunState>>,
) -> (rhai::Engine, std::sync::Arc<Budget>) {
    let (mut engine, budget) = sandbox::engine_with_budget();
    handles::register(&mut engine);
    api::register(&mut engine, ruleset, state, &budget);
    board_api::register(&mut engine, ruleset, state, &budget);
    board_api::register_field(&mut engine, ruleset, &budget);
    board_api::register_facing(&mut engine, ruleset, &budget);
    board_api::register_units(&mut engine);
    (engine, budget)
}

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, SourceMap, Span};

// The compiled script is plain data of the ruleset (the layer below); this layer runs it.
pub use crate::ruleset::Script;

/// Compiles scripts with the sandbox's settings; made once per load (building an engine
/// registers every standard function, which costs more than compiling a small script).
pub struct Compiler {
    engine: rhai::Engine,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler {
            engine: sandbox::engine(),
        }
    }
}

impl Compiler {
    /// Compiles one script file; a syntax error points at its line and column.
    pub fn compile(&self, file: FileId, sources: &SourceMap) -> Result<Script, Diagnostic> {
        compile_with(&self.engine, file, sources)
    }
}

fn compile_with(engine: &rhai::Engine, file: FileId, sources: &SourceMap) -> Result<Script, Diagnostic> {
    let text = &sources.get(file).text;
    match engine.compile(text.as_ref()) {
        Ok(ast) => {
            let functions = ast
                .iter_functions()
                .map(|f| (f.name.to_string(), f.params.len()))
                .collect();
            Ok(Script {
                file,
                ast,
                functions,
                package: 0,
            })
        }
        Err(error) => {
            let span = span_at(sources, file, error.position());
            Err(
                Diagnostic::error(span, format!("script syntax error: {}", error.err_type()), "here").with_help(
                    "see the Rhai book for the syntax; the servitor API is in docs/language.md and docs/games.md",
                ),
            )
        }
    }
}

/// A Rhai position as a one-character span of `file`: the one place where Rhai's
/// line/column positions become byte offsets.
pub fn span_at(sources: &SourceMap, file: FileId, pos: rhai::Position) -> Span {
    let source = sources.get(file);
    let start = match (pos.line(), pos.position()) {
        (Some(line), col) => source.offset_of(line, col.unwrap_or(1)),
        _ => 0,
    };
    let len = source.text[start..].chars().next().map_or(0, char::len_utf8);
    Span::new(file, start, start + len)
}

/// Where the first statement outside any function starts, if a script has one. A package's
/// scripts are libraries of functions: statements at the top level never run, so the loader
/// warns. A scan of the text (comments, strings and blocks skipped), not of the AST, whose
/// statements Rhai does not expose.
pub fn top_level_statement(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Skips a string, char or template literal starting at `i`; returns the index after it.
    let skip_quoted = |mut i: usize| {
        let quote = bytes[i];
        i += 1;
        while i < bytes.len() && bytes[i] != quote {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i + 1
    };
    let skip_space = |mut i: usize| loop {
        if i >= bytes.len() {
            return i;
        }
        if bytes[i].is_ascii_whitespace() || bytes[i] == b';' {
            i += 1;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n + 1);
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 2);
        } else {
            return i;
        }
    };
    loop {
        i = skip_space(i);
        if i >= bytes.len() {
            return None;
        }
        let rest = &text[i..];
        let word = |w: &str| rest.starts_with(w) && rest[w.len()..].starts_with(|c: char| c.is_whitespace());
        if word("private") {
            i += "private".len();
            continue;
        }
        if !word("fn") {
            return Some(i);
        }
        // A function: skip to its body's closing brace.
        let mut depth = 0usize;
        while i < bytes.len() {
            match bytes[i] {
                b'"' | b'`' | b'\'' => {
                    i = skip_quoted(i);
                    continue;
                }
                b'/' if text[i..].starts_with("//") => {
                    i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                    continue;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_statement;

    #[test]
    fn statements_outside_functions_are_found() {
        assert_eq!(
            top_level_statement("// a\nfn a(x) { let s = \"}\"; x }\nprivate fn b() { 1 }\n"),
            None
        );
        assert_eq!(top_level_statement("fn a() { 1 }\nlet x = 1;\n"), Some(13));
        assert_eq!(top_level_statement("/* c */ step(\"x\");"), Some(8));
        assert_eq!(top_level_statement(""), None);
    }
}
