//! Running a procedure: typed args in, a log of steps and a result out. Every roll goes
//! through the run's one seeded RNG; a script error becomes a diagnostic at its line, in the
//! file of the innermost script function it happened in (a base package's function called
//! from a variant's reports the base's file).
//!
//! A failed run still returns its steps ([`Failure`]). A run cut short by a limit is run again
//! under Rhai's debugger, on a thread of its own, for at most a quarter of a run's time, to
//! say which loop or statement it was in. [`call_function`] calls one script function with
//! any JSON arguments in a procedure's sandbox (campaign hooks).

use super::api::{self, RunState};
use super::{sandbox, span_at};
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::dice::Rng;
use crate::ruleset::{Ruleset, Value};
pub use crate::steps::Step;
use indexmap::IndexMap;
use rhai::{CallFnOptions, Dynamic, EvalAltResult, Position, Scope};
use serde::Serialize;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Serialize)]
pub struct RunOutput {
    pub procedure: String,
    pub seed: u64,
    pub args: IndexMap<String, Value>,
    pub steps: Vec<Step>,
    pub result: serde_json::Value,
}

/// Why a procedure could not run.
#[derive(Debug)]
pub enum RunError {
    /// The command line was wrong (unknown procedure or arg, badly typed value).
    Usage(String),
    /// The script failed: a diagnostic at its line, and what it did before.
    Script(Box<Failure>),
}

/// A failed run's evidence: where it failed, and the steps it made before (rolls, table rolls
/// and notes, in order), so the run can be followed up to the failure and replayed by seed.
#[derive(Debug)]
pub struct Failure {
    pub diagnostic: Diagnostic,
    /// The args the procedure ran with, defaults filled in.
    pub args: IndexMap<String, Value>,
    pub steps: Vec<Step>,
}

/// Runs procedure `id` with `args` given as `name=value` texts.
pub fn run_procedure(
    ruleset: &Arc<Ruleset>,
    id: &str,
    args: &[(String, String)],
    seed: u64,
) -> Result<RunOutput, RunError> {
    let Some(procedure) = ruleset.procedures.get(id) else {
        let help = did_you_mean(id, ruleset.procedures.keys().map(String::as_str))
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        let list: Vec<&str> = ruleset.procedures.keys().map(String::as_str).collect();
        return Err(RunError::Usage(format!(
            "no procedure `{id}` in {}{help}\nprocedures: {}",
            ruleset.name(),
            if list.is_empty() {
                "(none)".to_string()
            } else {
                list.join(", ")
            }
        )));
    };
    let values = super::args::typed_args(ruleset, procedure, args).map_err(RunError::Usage)?;
    let state = Arc::new(Mutex::new(RunState {
        rng: Rng::seeded(seed),
        steps: Vec::new(),
        dice_cache: Default::default(),
        show: None,
    }));
    let (engine, budget) = super::engine_and_budget_for(ruleset, &state);

    let mut scope = Scope::new();
    let arg_map: rhai::Map = values
        .iter()
        .map(|(k, v)| (k.as_str().into(), api::to_dynamic(v)))
        .collect();
    let options = CallFnOptions::new().eval_ast(false);
    let outcome =
        engine.call_fn_with_options::<Dynamic>(options, &mut scope, &ruleset.program, &procedure.function, (arg_map,));
    let mut steps = std::mem::take(&mut state.lock().unwrap_or_else(|p| p.into_inner()).steps);
    match outcome {
        Ok(value) => {
            // NaN, infinities, closures and other values JSON cannot hold are shown as text,
            // and the log says so.
            // A record or piece view in the result is kept as the map it reads as.
            let value = super::handles::plain(&value).unwrap_or(value);
            let json = rhai::serde::from_dynamic::<serde_json::Value>(&value)
                .ok()
                .filter(|j| !j.is_null() || value.is_unit());
            let result = json.unwrap_or_else(|| {
                steps.push(Step::Note {
                    text: format!(
                        "the result `{value}` ({}) is not a JSON value: shown as text",
                        value.type_name()
                    ),
                    source: None,
                });
                serde_json::Value::String(value.to_string())
            });
            Ok(RunOutput {
                procedure: id.to_string(),
                seed,
                args: values,
                steps,
                result,
            })
        }
        Err(error) => {
            // A run cut short by a limit says where it was only if it is run again, the same
            // way, with a debugger watching: Rhai keeps no position for these errors.
            let runaway = matches!(
                *error,
                EvalAltResult::ErrorTooManyOperations(_) | EvalAltResult::ErrorTerminated(..)
            );
            let mut diagnostic = script_failure(
                *error,
                ruleset,
                &procedure.function,
                &format!("procedure `{}`", procedure.id),
            );
            let operations = budget.spent().operations;
            if runaway && let Some((function, pos)) = locate(ruleset, &procedure.function, &values, seed, operations) {
                diagnostic = relocated(diagnostic, ruleset, &function, pos);
            }
            Err(RunError::Script(Box::new(Failure {
                diagnostic,
                args: values,
                steps,
            })))
        }
    }
}

/// Calls the package's script function `function` with `args` (JSON values, as Rhai maps,
/// arrays, strings and numbers) in the sandbox a procedure runs in, rolling on a run seeded
/// with `seed`: a campaign's hooks (`crate::campaign`). Its result as JSON and its steps, or
/// a diagnostic at the script line that failed (`what` names the call for the message).
pub fn call_function(
    ruleset: &Arc<Ruleset>,
    function: &str,
    args: &[serde_json::Value],
    seed: u64,
    what: &str,
) -> Result<(serde_json::Value, Vec<Step>), Box<Failure>> {
    let state = Arc::new(Mutex::new(RunState {
        rng: Rng::seeded(seed),
        steps: Vec::new(),
        dice_cache: Default::default(),
        show: None,
    }));
    let (engine, _budget) = super::engine_and_budget_for(ruleset, &state);
    let mut scope = Scope::new();
    let args: Vec<Dynamic> = args
        .iter()
        .map(|a| rhai::serde::to_dynamic(a).unwrap_or(Dynamic::UNIT))
        .collect();
    let options = CallFnOptions::new().eval_ast(false);
    let outcome = engine.call_fn_with_options::<Dynamic>(options, &mut scope, &ruleset.program, function, args);
    let steps = std::mem::take(&mut state.lock().unwrap_or_else(|p| p.into_inner()).steps);
    let fail = |diagnostic: Diagnostic, steps: Vec<Step>| {
        Box::new(Failure {
            diagnostic,
            args: IndexMap::new(),
            steps,
        })
    };
    match outcome {
        Ok(value) => match rhai::serde::from_dynamic::<serde_json::Value>(
            super::handles::plain(&value).as_ref().unwrap_or(&value),
        ) {
            Ok(json) => Ok((json, steps)),
            Err(_) => {
                let span = ruleset
                    .scripts
                    .iter()
                    .find(|s| s.functions.iter().any(|(n, _)| n == function))
                    .map(|s| span_at(&ruleset.sources, s.file, Position::new(1, 1)))
                    .unwrap_or_default();
                Err(fail(
                    Diagnostic::error(
                        span,
                        format!(
                            "{what} returned `{value}` ({}), which is not plain data",
                            value.type_name()
                        ),
                        "here",
                    )
                    .with_help("return a map of numbers, texts, lists and maps"),
                    steps,
                ))
            }
        },
        Err(error) => Err(fail(script_failure(*error, ruleset, function, what), steps)),
    }
}

/// Runs the procedure again with the same seed and args, watched statement by statement, and
/// returns the function and position it was at when it stopped again.
///
/// The run is deterministic, so stopping the second run after the `operations` the first one
/// made puts it where the first one stopped. Under Rhai's debugger a native function that
/// calls back into Rhai per item copies the call stack each time (`contains` over 10,000
/// items takes about a second), so the second run is bounded twice: it stops itself at the
/// first statement after a quarter of a run's time, and it runs on a thread of its own that is
/// waited for no longer than that: a failure costs at most a quarter more than the run. What
/// it reports then is where it had got to: in a loop that never ends, that loop.
fn locate(
    ruleset: &Arc<Ruleset>,
    function: &str,
    values: &IndexMap<String, Value>,
    seed: u64,
    operations: u64,
) -> Option<(String, Position)> {
    let deadline = std::time::Duration::from_millis(crate::limits::MAX_SCRIPT_MILLIS / 4);
    // The last statement stepped onto, and the last loop: (function, position) each. The loop
    // is reported when the run stops in the function that holds it (the statement within the
    // loop depends on when a time limit strikes; the loop does not).
    type At = Option<(String, Position)>;
    let last: Arc<Mutex<(At, At)>> = Arc::default();
    let (done, finished) = std::sync::mpsc::channel::<bool>();
    let (seen, ruleset, entry) = (last.clone(), ruleset.clone(), function.to_string());
    let arg_map: rhai::Map = values
        .iter()
        .map(|(k, v)| (k.as_str().into(), api::to_dynamic(v)))
        .collect();
    let again = move || {
        let state = Arc::new(Mutex::new(RunState {
            rng: Rng::seeded(seed),
            steps: Vec::new(),
            dice_cache: Default::default(),
            show: None,
        }));
        let mut engine = super::engine_for(&ruleset, &state);
        engine.set_max_operations(operations.max(1));
        let started = super::sandbox::charged_now();
        #[allow(deprecated)] // volatile, not deprecated (Rhai's words)
        engine.register_debugger(
            |_, debugger| debugger,
            move |context, event, node, _source, pos| {
                if matches!(event, rhai::debugger::DebuggerEvent::Step) && !pos.is_none() {
                    // The innermost script function on the call stack (the entry one at first).
                    let function = context
                        .debugger()
                        .and_then(|d| d.call_stack().last())
                        .map(|frame| frame.fn_name.to_string())
                        .unwrap_or_default();
                    let is_loop = matches!(
                        node,
                        rhai::ASTNode::Stmt(rhai::Stmt::While(..) | rhai::Stmt::Do(..) | rhai::Stmt::For(..))
                    );
                    let mut at = seen.lock().unwrap_or_else(|p| p.into_inner());
                    if is_loop {
                        at.1 = Some((function.clone(), pos));
                    }
                    at.0 = Some((function, pos));
                    if super::sandbox::charged_now().saturating_sub(started) > deadline {
                        return Err(EvalAltResult::ErrorTerminated(Dynamic::UNIT, pos).into());
                    }
                }
                Ok(rhai::debugger::DebuggerCommand::StepInto)
            },
        );
        let options = CallFnOptions::new().eval_ast(false);
        let outcome =
            engine.call_fn_with_options::<Dynamic>(options, &mut Scope::new(), &ruleset.program, &entry, (arg_map,));
        let runaway = outcome.as_ref().is_err_and(|e| {
            matches!(
                **e,
                EvalAltResult::ErrorTooManyOperations(_) | EvalAltResult::ErrorTerminated(..)
            )
        });
        let _ = done.send(runaway);
    };
    std::thread::Builder::new()
        .name("locate".into())
        .stack_size(super::STACK_BYTES)
        .spawn(again)
        .ok()?;
    // Not finished in time: where it has got to is the answer all the same.
    let runaway = finished
        .recv_timeout(deadline + std::time::Duration::from_millis(50))
        .unwrap_or(true);
    if !runaway {
        return None;
    }
    let (statement, in_loop) = std::mem::take(&mut *last.lock().unwrap_or_else(|p| p.into_inner()));
    let found = match (statement, in_loop) {
        (Some((f, _)), Some((g, pos))) if f == g => Some((g, pos)),
        (statement, _) => statement,
    };
    found.map(|(f, pos)| (if f.is_empty() { function.to_string() } else { f }, pos))
}

/// `diagnostic` pointed at `pos` in `function` (the statement a runaway run was at).
fn relocated(diagnostic: Diagnostic, ruleset: &Ruleset, function: &str, pos: Position) -> Diagnostic {
    let Some(script) = ruleset
        .scripts
        .iter()
        .rev()
        .find(|s| s.functions.iter().any(|(name, _)| name == function))
    else {
        return diagnostic;
    };
    let mut moved = diagnostic;
    moved.span = span_at(&ruleset.sources, script.file, pos);
    moved.label = format!("still running here, in `{function}`");
    moved
}

/// A Rhai error as a diagnostic at the script line where it happened; `entry` is the script
/// function the engine called, `what` names it for the message ("procedure `x`").
pub fn script_failure(error: EvalAltResult, ruleset: &Ruleset, entry: &str, what: &str) -> Diagnostic {
    let mut error = error;
    let mut outer_pos = Position::NONE;
    let mut function = entry.to_string();
    // Errors inside nested function calls are wrapped; the innermost one says what went
    // wrong, and the innermost function tells which script file it happened in.
    while let EvalAltResult::ErrorInFunctionCall(name, _, inner, pos) = error {
        if !pos.is_none() {
            outer_pos = pos;
        }
        function = name;
        error = *inner;
    }
    let mut pos = error.take_position();
    if pos.is_none() {
        pos = outer_pos;
    }
    // The innermost function's file; a variant's script first, as its functions replace the
    // base's. Only when no script defines it (a closure) does the entry function's file count.
    let defines = |f: &str| {
        ruleset
            .scripts
            .iter()
            .rev()
            .find(|s| s.functions.iter().any(|(name, _)| name == f))
            .map(|s| s.file)
    };
    let Some(file) = defines(&function).or_else(|| defines(entry)) else {
        return Diagnostic::error(
            crate::source::Span::default(),
            format!("{what} failed: {error}"),
            "while running this",
        );
    };
    let mut span = span_at(&ruleset.sources, file, pos);
    if pos.is_none() {
        // Limit errors carry no position: point at the function that was running.
        let text = &ruleset.sources.get(file).text;
        if let Some(at) = text.find(&format!("fn {function}(")) {
            span = crate::source::Span::new(file, at + 3, at + 3 + function.len());
        }
    }
    let help = match &error {
        EvalAltResult::ErrorTooManyOperations(_) => Some(format!(
            "scripts may run at most {} operations (`MAX_OPERATIONS`, see \"Limits\" in docs/limits.md): look for a loop that never ends",
            crate::diagnostic::thousands(sandbox::MAX_OPERATIONS)
        )),
        EvalAltResult::ErrorTerminated(token, _) => sandbox::stopped(token).map(|(_, help)| help),
        EvalAltResult::ErrorStackOverflow(_) => Some(format!(
            "calls may nest at most {} deep: look for endless recursion",
            sandbox::MAX_CALL_LEVELS
        )),
        EvalAltResult::ErrorPropertyNotFound(name, _) => Some(format!(
            "the map has no `{name}`: a record leaves out an optional field it does not give \
             (and a base package's records may lack a variant's fields); test with `\"{name}\" in map` first"
        )),
        EvalAltResult::ErrorDataTooLarge(..) => Some("strings, arrays and maps have size limits in scripts".into()),
        // Rhai locks the value a method chain starts from; a closure in the same chain that
        // uses that value again finds it locked.
        EvalAltResult::ErrorDataRace(..) => Some(
            "a closure here uses a value that the call chain it sits in already holds (often `game`): \
             put the chain's start in a variable first, e.g. `let ids = game.pieces(side); ids.filter(|id| game.piece(id).hidden)`"
                .into(),
        ),
        EvalAltResult::ErrorFunctionNotFound(name, _) if switched_off(name).is_some() => {
            switched_off(name).map(str::to_string)
        }
        _ => None,
    };
    let message = match &error {
        EvalAltResult::ErrorRuntime(value, _) if value.is_unit() => {
            "the script threw `()`, with no message".to_string()
        }
        EvalAltResult::ErrorRuntime(value, _) => value.to_string(),
        EvalAltResult::ErrorTerminated(token, _) => {
            sandbox::stopped(token).map_or_else(|| error.to_string(), |(message, _)| message)
        }
        other => other.to_string(),
    };
    Diagnostic::error(span, format!("{what} failed: {message}"), "while running this").with_help_opt(help)
}

/// Why a function Rhai has is not there for scripts (`name` as Rhai reports it, with or
/// without its parameters), for the run's error and the check at load.
pub fn switched_off(name: &str) -> Option<&'static str> {
    if name.starts_with("eval") {
        Some("`eval` is switched off: scripts are untrusted")
    } else if name.starts_with("timestamp") {
        Some("scripts have no clock: the same seed must give the same run")
    } else {
        None
    }
}
