//! The one Rhai engine configuration: limits on, no `eval`, no modules, no file access, no
//! clock. Scripts are untrusted: a runaway script becomes a diagnostic, never a hang or a
//! crash, and the same seed gives the same run (Rhai is built with `no_time`, so
//! `timestamp()` and `elapsed` do not exist).

use rhai::module_resolvers::DummyModuleResolver;
use rhai::{Dynamic, Engine, EvalAltResult};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::limits::{
    MAX_ARRAY_SIZE, MAX_CALL_LEVELS, MAX_EXPR_DEPTH, MAX_FN_EXPR_DEPTH, MAX_LOG_BYTES, MAX_MAP_SIZE, MAX_OPERATIONS,
    MAX_SCRIPT_MILLIS, MAX_SCRIPT_WORK, MAX_STRING_SIZE,
};

/// What the engine's deadline check answers with; `script_failure` recognises it.
pub const DEADLINE: &str = "servitor: the script ran out of time";

thread_local! {
    /// Time this thread spent waiting for a person (`outside_the_deadline`); a run's deadline
    /// does not count it. Scripts run on the thread that called them, and so do the dice a
    /// script asks a player for.
    static WAITED: std::cell::Cell<Duration> = const { std::cell::Cell::new(Duration::ZERO) };
}

/// Runs `wait` (a person typing the die they rolled, say) without charging its time to the
/// deadline of the script run that asked: a player may take a minute to roll; a script may not.
pub fn outside_the_deadline<T>(wait: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = wait();
    WAITED.with(|w| w.set(w.get() + started.elapsed()));
    out
}

fn waited() -> Duration {
    WAITED.with(std::cell::Cell::get)
}

/// The clock is read every this many operations.
const CLOCK_EVERY: u64 = 256;

/// What one script run (one call into the scripts: a procedure, a phase, a trigger) may
/// still spend besides Rhai's own operations: wall-clock time, against [`MAX_SCRIPT_MILLIS`]
/// (a registered function may cost much more than one operation), and the bytes it logs,
/// against [`MAX_LOG_BYTES`]. A new run starts when the engine counts its first operation.
#[derive(Debug)]
pub struct Budget {
    /// When this run began, and how long its thread had waited for a person by then.
    started: Mutex<(Instant, Duration)>,
    log_bytes: AtomicU64,
    /// Work of engine functions (squares visited, corners compared), in this run.
    work: AtomicU64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            started: Mutex::new((Instant::now(), Duration::ZERO)),
            log_bytes: AtomicU64::new(0),
            work: AtomicU64::new(0),
        }
    }
}

impl Budget {
    /// Rhai's progress callback: `ops` operations so far in this run.
    fn progress(&self, ops: u64) -> Option<Dynamic> {
        if ops == 1 {
            *self.started.lock().unwrap_or_else(|p| p.into_inner()) = (Instant::now(), waited());
            self.log_bytes.store(0, Ordering::Relaxed);
            self.work.store(0, Ordering::Relaxed);
            return None;
        }
        if ops.is_multiple_of(CLOCK_EVERY) {
            let (started, waited_before) = *self.started.lock().unwrap_or_else(|p| p.into_inner());
            let spent = started.elapsed().saturating_sub(waited().saturating_sub(waited_before));
            if spent > Duration::from_millis(MAX_SCRIPT_MILLIS) {
                return Some(Dynamic::from(DEADLINE));
            }
        }
        None
    }

    /// Charges an engine function's work (squares it visits, corners it compares) to this
    /// run, before it is done: past [`MAX_SCRIPT_WORK`] the script stops with an error that
    /// names the limit. Rhai counts one operation for a call however much it does; this counts
    /// the rest, the same on every machine.
    pub fn charge(&self, units: u64) -> Result<(), Box<EvalAltResult>> {
        let total = self.work.fetch_add(units, Ordering::Relaxed).saturating_add(units);
        if total > MAX_SCRIPT_WORK {
            return Err(format!(
                "this run's board and battlefield questions passed {} squares and corners of work (`MAX_SCRIPT_WORK`, see \"Limits\" in grammar/README.md): ask fewer questions in the loop, or on a smaller board",
                crate::diagnostic::thousands(MAX_SCRIPT_WORK)
            )
            .into());
        }
        Ok(())
    }

    /// Charges `bytes` of log to this run; past [`MAX_LOG_BYTES`] the script stops with an
    /// error that names the limit.
    pub fn log(&self, bytes: usize) -> Result<(), Box<EvalAltResult>> {
        let total = self.log_bytes.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
        if total > MAX_LOG_BYTES {
            return Err(format!(
                "this run's log passed {} bytes (`MAX_LOG_BYTES`, see \"Limits\" in grammar/README.md): log less, or stop the loop that logs",
                crate::diagnostic::thousands(MAX_LOG_BYTES)
            )
            .into());
        }
        Ok(())
    }
}

/// A Rhai engine with the sandbox limits and without any way out of the sandbox.
/// `Engine::new` registers no file or network functions; modules and `eval` are switched off here.
pub fn engine() -> Engine {
    engine_with_budget().0
}

/// [`engine`], and the budget its runs are held to.
pub fn engine_with_budget() -> (Engine, Arc<Budget>) {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(MAX_EXPR_DEPTH, MAX_FN_EXPR_DEPTH)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_ARRAY_SIZE)
        .set_max_map_size(MAX_MAP_SIZE)
        .set_max_modules(0)
        .set_module_resolver(DummyModuleResolver::new())
        .set_fail_on_invalid_map_property(true)
        .disable_symbol("eval");
    // `print` and `debug` would write to the terminal behind the log's back.
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    // Text for people: a list or a map put into a string (`${weapons}`) reads as words —
    // `[bolter, plasma-gun]`, `black 2, blue 4`, `none` — not as Rhai's source form
    // (`["bolter", "plasma-gun"]`, `#{"black": 2}`): what a script says ends up in
    // instructions a player reads at the table.
    engine.register_fn("to_string", |list: &mut rhai::Array| words_of_list(list));
    engine.register_fn("to_string", |map: &mut rhai::Map| words_of_map(map));
    let budget = Arc::new(Budget::default());
    let b = budget.clone();
    engine.on_progress(move |ops| b.progress(ops));
    (engine, budget)
}

/// `[a, b, c]` without quotes (`[2,3; 4,5]` when the items hold commas, as squares do);
/// `none` when empty.
fn words_of_list(list: &rhai::Array) -> String {
    if list.is_empty() {
        return "none".into();
    }
    let items: Vec<String> = list.iter().map(words_of).collect();
    let sep = if items.iter().any(|i| i.contains(',')) {
        "; "
    } else {
        ", "
    };
    format!("[{}]", items.join(sep))
}

/// `black 2, blue 4`; `none` when empty.
fn words_of_map(map: &rhai::Map) -> String {
    if map.is_empty() {
        return "none".into();
    }
    map.iter()
        .map(|(k, v)| format!("{k} {}", words_of(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn words_of(value: &Dynamic) -> String {
    if let Some(list) = value.read_lock::<rhai::Array>() {
        words_of_list(&list)
    } else if let Some(map) = value.read_lock::<rhai::Map>() {
        format!("({})", words_of_map(&map))
    } else if value.is_unit() {
        "none".into()
    } else {
        value.to_string()
    }
}
