//! The one Rhai engine configuration: limits on, no `eval`, no modules, no file access, no
//! clock. Scripts are untrusted: a runaway script becomes a diagnostic, never a hang or a
//! crash, and the same seed gives the same run (Rhai is built with `no_time`, so
//! `timestamp()` and `elapsed` do not exist).
//!
//! Only [`engine`] (and [`engine_with_budget`]) makes engines: limits on operations, call
//! depth, expression depth, strings, arrays and maps. A run's [`Budget`] adds what Rhai does
//! not count: time, cut at `MAX_SCRIPT_MILLIS` through `on_progress` and charged on
//! `charged_now` (the thread's CPU time where the system keeps one, so a niced sim on a busy
//! machine fails no game; elsewhere the wall clock less the time a person took), the work of
//! engine questions, and every logged step against `MAX_LOG_BYTES`. While a game is played
//! ([`Budget::begin_game`]) its runs also add up against the `MAX_GAME_*` limits. Deadlines
//! read [`Instant`], the one clock seam: std's natively, `web-time`'s in a browser (where
//! std's panics). `parse_int` and `parse_float` refuse text they cannot read with a refusal
//! in words that a player's command shows on one line.

use crate::limits::Spent;
use rhai::module_resolvers::DummyModuleResolver;
use rhai::{Dynamic, Engine, EvalAltResult};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The clock of the deadlines: the system's; in a browser (`wasm32-unknown-unknown`, where
/// `std::time::Instant::now` panics) the page's, through `web-time`. The only seam the
/// browser build needs in the core: files and threads already fail there as errors.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use web_time::Instant;

use crate::diagnostic::thousands;
pub use crate::limits::{
    MAX_ARRAY_SIZE, MAX_CALL_LEVELS, MAX_EXPR_DEPTH, MAX_FN_EXPR_DEPTH, MAX_GAME_LOG_BYTES, MAX_GAME_MILLIS,
    MAX_GAME_OPERATIONS, MAX_GAME_WORK, MAX_LOG_BYTES, MAX_MAP_SIZE, MAX_OPERATIONS, MAX_SCRIPT_MILLIS,
    MAX_SCRIPT_WORK, MAX_STRING_SIZE,
};

/// What the engine's deadline check answers with; `script_failure` recognises it.
pub const DEADLINE: &str = "servitor: the script ran out of time";
/// The game's scripts together passed [`MAX_GAME_OPERATIONS`].
pub const GAME_OPERATIONS: &str = "servitor: the game ran out of operations";
/// The game's scripts together ran longer than [`MAX_GAME_MILLIS`].
pub const GAME_TIME: &str = "servitor: the game ran out of time";
/// The game's log passed [`MAX_GAME_LOG_BYTES`].
pub const GAME_LOG: &str = "servitor: the game's log is full";

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

/// The clock a script run is charged on, as a reading to subtract from a later one on the same
/// thread: the CPU time of the thread running it, where the system keeps one (Linux, macOS,
/// the BSDs). A run on a busy machine — a `sim` beside a build, or under `nice` — is charged
/// the time it ran, not the time it waited for a core: on the wall clock, 104 of 10,000 games
/// of a niced sim failed with "ran longer than 1,000 ms" and replayed in 80 ms. Elsewhere (the
/// browser, Windows) the wall clock, less the time the thread waited for a person.
pub(crate) fn charged_now() -> Duration {
    #[cfg(unix)]
    if let Some(cpu) = thread_cpu_time() {
        return cpu;
    }
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().saturating_sub(waited())
}

/// This thread's CPU time; `None` on a system without the per-thread clock (decided once, so
/// the readings of one process never mix two clocks).
#[cfg(unix)]
fn thread_cpu_time() -> Option<Duration> {
    fn read() -> Option<Duration> {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `clock_gettime` writes the `timespec` it is given and keeps no pointer to it.
        let done = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u32::try_from(ts.tv_nsec).ok()?;
        (done == 0).then(|| Duration::new(secs, nanos))
    }
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *WORKS.get_or_init(|| read().is_some()) {
        read()
    } else {
        None
    }
}

/// What each script run of a game adds to the game's log besides its own lines: the line
/// that begins a phase and the host's work around the run (so a game of endless empty phases
/// still fills its log).
pub const RUN_LOG_BYTES: u64 = 1024;

/// The clock is read (and a game's totals checked) every this many operations; a power of two.
const CLOCK_EVERY: u64 = 256;

/// What one script run (one call into the scripts: a procedure, a phase, a trigger) may
/// still spend besides Rhai's own operations: time ([`charged_now`]), against [`MAX_SCRIPT_MILLIS`]
/// (a registered function may cost much more than one operation), the work of board
/// questions, against [`MAX_SCRIPT_WORK`], and the bytes it logs, against [`MAX_LOG_BYTES`].
/// A new run starts when the engine counts its first operation.
///
/// While a game is played ([`Budget::begin_game`]) its runs also add up, against the
/// `MAX_GAME_*` limits: a game of ten thousand turns of costly phases ends with a diagnostic
/// instead of running for hours or filling memory with its log.
#[derive(Debug)]
pub struct Budget {
    /// When this run began, on the clock runs are charged on ([`charged_now`]).
    started: Mutex<Duration>,
    log_bytes: AtomicU64,
    /// Work of engine functions (squares visited, corners compared), in this run.
    work: AtomicU64,
    /// Operations of this run, as last counted.
    ops: AtomicU64,
    /// Milliseconds of this run at its last clock reading.
    millis: AtomicU64,
    /// Whether the runs belong to a game; then what its finished runs spent.
    in_game: AtomicBool,
    game: [AtomicU64; 4],
}

/// Indices into [`Budget::game`].
const OPS: usize = 0;
const WORK: usize = 1;
const LOG: usize = 2;
const MILLIS: usize = 3;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            started: Mutex::new(charged_now()),
            log_bytes: AtomicU64::new(0),
            work: AtomicU64::new(0),
            ops: AtomicU64::new(0),
            millis: AtomicU64::new(0),
            in_game: AtomicBool::new(false),
            game: Default::default(),
        }
    }
}

impl Budget {
    /// The runs from now on belong to a new game: its totals start at zero.
    pub fn begin_game(&self) {
        for counter in [&self.ops, &self.millis, &self.work, &self.log_bytes] {
            counter.store(0, Ordering::Relaxed);
        }
        for total in &self.game {
            total.store(0, Ordering::Relaxed);
        }
        self.in_game.store(true, Ordering::Relaxed);
    }

    /// The runs from now on belong to a game whose runs so far spent `spent` (a game picked up
    /// again between two commands of a session): its totals go on from there, as they would
    /// have had its runs never stopped, so a session adds up the same live and on a replay.
    pub fn resume_game(&self, spent: Spent) {
        for counter in [&self.ops, &self.millis, &self.work, &self.log_bytes] {
            counter.store(0, Ordering::Relaxed);
        }
        for (i, total) in [
            (OPS, spent.operations),
            (WORK, spent.work),
            (LOG, spent.log_bytes),
            (MILLIS, spent.millis),
        ] {
            self.game[i].store(total, Ordering::Relaxed);
        }
        self.in_game.store(true, Ordering::Relaxed);
    }

    /// What the game's runs spent so far, the one running now included.
    pub fn spent(&self) -> Spent {
        let total = |i: usize, now: &AtomicU64| {
            self.game[i]
                .load(Ordering::Relaxed)
                .saturating_add(now.load(Ordering::Relaxed))
        };
        Spent {
            operations: total(OPS, &self.ops),
            work: total(WORK, &self.work),
            log_bytes: total(LOG, &self.log_bytes),
            millis: total(MILLIS, &self.millis),
        }
    }

    fn game_total(&self, i: usize) -> u64 {
        self.game[i].load(Ordering::Relaxed)
    }

    /// Rhai's progress callback: `ops` operations so far in this run.
    fn progress(&self, ops: u64) -> Option<Dynamic> {
        if ops & (CLOCK_EVERY - 1) != 0 {
            // The common case, kept short: Rhai calls this for every operation.
            return if ops == 1 { self.new_run() } else { None };
        }
        // Counted here only: a run's last few operations (fewer than CLOCK_EVERY) are not
        // added to its game's total.
        self.ops.store(ops, Ordering::Relaxed);
        let started = *self.started.lock().unwrap_or_else(|p| p.into_inner());
        let spent = charged_now().saturating_sub(started);
        let millis = u64::try_from(spent.as_millis()).unwrap_or(u64::MAX);
        self.millis.store(millis, Ordering::Relaxed);
        if millis > MAX_SCRIPT_MILLIS {
            return Some(Dynamic::from(DEADLINE));
        }
        if self.in_game.load(Ordering::Relaxed) {
            if self.game_total(OPS).saturating_add(ops) > MAX_GAME_OPERATIONS {
                return Some(Dynamic::from(GAME_OPERATIONS));
            }
            if self.game_total(MILLIS).saturating_add(millis) > MAX_GAME_MILLIS {
                return Some(Dynamic::from(GAME_TIME));
            }
        }
        None
    }

    /// A run begins: in a game, the run before it is added to the game's totals, and this
    /// one is charged the line that begins it.
    fn new_run(&self) -> Option<Dynamic> {
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = charged_now();
        let ops = self.ops.swap(1, Ordering::Relaxed);
        let millis = self.millis.swap(0, Ordering::Relaxed);
        let work = self.work.swap(0, Ordering::Relaxed);
        let log = self.log_bytes.swap(0, Ordering::Relaxed);
        if !self.in_game.load(Ordering::Relaxed) {
            return None;
        }
        for (i, spent) in [
            (OPS, ops),
            (MILLIS, millis),
            (WORK, work),
            (LOG, log.saturating_add(RUN_LOG_BYTES)),
        ] {
            let _ = self.game[i].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| Some(t.saturating_add(spent)));
        }
        (self.game_total(LOG) > MAX_GAME_LOG_BYTES).then(|| Dynamic::from(GAME_LOG))
    }

    /// Charges an engine function's work (squares it visits, corners it compares, items it
    /// copies or shuffles) to this run, before it is done: past [`MAX_SCRIPT_WORK`] (or, in a game, past
    /// [`MAX_GAME_WORK`] for all its runs) the script stops with an error that names the
    /// limit. Rhai counts one operation for a call however much it does; this counts the
    /// rest, the same on every machine.
    pub fn charge(&self, units: u64) -> Result<(), Box<EvalAltResult>> {
        self.try_charge(units).map_err(Into::into)
    }

    /// [`Budget::charge`] with the error as text.
    pub fn try_charge(&self, units: u64) -> Result<(), String> {
        let total = self.work.fetch_add(units, Ordering::Relaxed).saturating_add(units);
        if total > MAX_SCRIPT_WORK {
            return Err(format!(
                "this run's engine calls passed {} units of work (`MAX_SCRIPT_WORK`, see \"Limits\" in docs/limits.md: board and battlefield questions count the squares and corners they visit, shuffles and picks the items): make fewer such calls in the loop, or on a smaller board or array",
                thousands(MAX_SCRIPT_WORK)
            ));
        }
        if self.in_game.load(Ordering::Relaxed) && self.game_total(WORK).saturating_add(total) > MAX_GAME_WORK {
            return Err(format!(
                "this game's engine calls passed {} units of work in all (`MAX_GAME_WORK`, see \"Limits\" in docs/limits.md): ask fewer board questions each turn, or end the game sooner (`max-turns`)",
                thousands(MAX_GAME_WORK)
            ));
        }
        Ok(())
    }

    /// Charges `bytes` of log to this run; past [`MAX_LOG_BYTES`] (or, in a game, past
    /// [`MAX_GAME_LOG_BYTES`] for the whole game) the script stops with an error that names
    /// the limit.
    pub fn log(&self, bytes: usize) -> Result<(), Box<EvalAltResult>> {
        self.try_log(bytes).map_err(Into::into)
    }

    /// [`Budget::log`] with the error as text.
    pub fn try_log(&self, bytes: usize) -> Result<(), String> {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        let total = self.log_bytes.fetch_add(bytes, Ordering::Relaxed).saturating_add(bytes);
        if total > MAX_LOG_BYTES {
            return Err(format!(
                "this run's log passed {} bytes (`MAX_LOG_BYTES`, see \"Limits\" in docs/limits.md): log less, or stop the loop that logs",
                thousands(MAX_LOG_BYTES)
            ));
        }
        if self.in_game.load(Ordering::Relaxed) && self.game_total(LOG).saturating_add(total) > MAX_GAME_LOG_BYTES {
            return Err(format!(
                "this game's log passed {} bytes (`MAX_GAME_LOG_BYTES`, see \"Limits\" in docs/limits.md): log less each turn, or end the game sooner (`max-turns`)",
                thousands(MAX_GAME_LOG_BYTES)
            ));
        }
        Ok(())
    }
}

/// The message and help for a run stopped by one of the tokens above (`None` for another
/// termination).
pub fn stopped(token: &Dynamic) -> Option<(String, String)> {
    let token = token.clone().into_immutable_string().ok()?;
    let limits = "see \"Limits\" in docs/limits.md";
    Some(match token.as_str() {
        DEADLINE => (
            format!("ran longer than {} ms", thousands(MAX_SCRIPT_MILLIS)),
            format!(
                "a script run may take at most {} ms (`MAX_SCRIPT_MILLIS`, {limits}): look for a loop that never ends, or for costly calls (board questions, sorting, searching big arrays) inside a long loop",
                thousands(MAX_SCRIPT_MILLIS)
            ),
        ),
        GAME_OPERATIONS => (
            format!(
                "the game's scripts passed {} operations in all",
                thousands(MAX_GAME_OPERATIONS)
            ),
            format!(
                "the scripts of one game may run at most {} operations together (`MAX_GAME_OPERATIONS`, {limits}): do less each turn, or end the game sooner (`max-turns`)",
                thousands(MAX_GAME_OPERATIONS)
            ),
        ),
        GAME_TIME => (
            format!(
                "the game's scripts ran longer than {} ms in all",
                thousands(MAX_GAME_MILLIS)
            ),
            format!(
                "the scripts of one game may take at most {} ms together (`MAX_GAME_MILLIS`, {limits}): look for costly calls (board questions, sorting, searching big arrays) in loops, or end the game sooner (`max-turns`)",
                thousands(MAX_GAME_MILLIS)
            ),
        ),
        GAME_LOG => (
            format!("the game's log passed {} bytes", thousands(MAX_GAME_LOG_BYTES)),
            format!(
                "a game's log may hold at most {} bytes, each phase (and the setup, and each command) counting {} besides its lines (`MAX_GAME_LOG_BYTES`, {limits}): log less each turn, or end the game sooner (`max-turns`)",
                thousands(MAX_GAME_LOG_BYTES),
                thousands(RUN_LOG_BYTES)
            ),
        ),
        _ => return None,
    })
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
    // `[sword, shield]`, `red 2, blue 4`, `none` — not as Rhai's source form
    // (`["sword", "shield"]`, `#{"red": 2}`): what a script says ends up in
    // instructions a player reads at the table.
    engine.register_fn("to_string", |list: &mut rhai::Array| words_of_list(list));
    engine.register_fn("to_string", |map: &mut rhai::Map| words_of_map(map));
    // Numbers a script reads from text — most often what a player typed — that Rust cannot
    // read (`８`, `0x10`, `1_0`, twenty digits, `inf`) fail as a refusal in words, which a
    // player's command shows on one line, not as Rhai's parse error.
    engine.register_fn(
        "parse_int",
        |text: &str| -> Result<rhai::INT, Box<rhai::EvalAltResult>> {
            text.trim().parse::<rhai::INT>().map_err(|e| {
                let shown = crate::escape::one_line(&cut(text)).into_owned();
                match e.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        format!("`{shown}` is too large a number").into()
                    }
                    _ => format!("`{shown}` is not a whole number: write it in digits, e.g. 12").into(),
                }
            })
        },
    );
    engine.register_fn(
        "parse_float",
        |text: &str| -> Result<rhai::FLOAT, Box<rhai::EvalAltResult>> {
            match text.trim().parse::<rhai::FLOAT>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(format!(
                    "`{}` is not a number: write it in digits, e.g. 24.5",
                    crate::escape::one_line(&cut(text))
                )
                .into()),
            }
        },
    );
    let budget = Arc::new(Budget::default());
    let b = budget.clone();
    engine.on_progress(move |ops| b.progress(ops));
    if super::profile::enabled() {
        #[allow(deprecated)] // volatile, not deprecated (Rhai's words), as in run.rs
        engine.register_debugger(
            |_, debugger| debugger,
            |context, event, _, _, _| {
                let stack = context.global_runtime_state().debugger().call_stack();
                let stack = stack
                    .iter()
                    .map(|frame| super::profile::Frame {
                        function: frame.fn_name.to_string(),
                        from: (frame.pos.line().unwrap_or(0), frame.pos.position().unwrap_or(0)),
                    })
                    .collect();
                super::profile::step(stack, matches!(event, rhai::debugger::DebuggerEvent::Start));
                Ok(rhai::debugger::DebuggerCommand::StepInto)
            },
        );
    }
    (engine, budget)
}

/// A text put in a message, cut to its first 40 characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A run is charged the time it ran: a thread that waits (for a core, here for a sleep) is
    /// not charged the wait, and one that works is charged the work. On the wall clock a niced
    /// sim on a busy machine failed games with "ran longer than 1,000 ms".
    #[cfg(unix)]
    #[test]
    fn a_run_is_charged_the_time_it_ran_not_the_time_it_waited() {
        let before = charged_now();
        std::thread::sleep(Duration::from_millis(300));
        let slept = charged_now().saturating_sub(before);
        assert!(
            slept < Duration::from_millis(100),
            "a 300 ms sleep was charged {slept:?}"
        );

        let (before, wall) = (charged_now(), Instant::now());
        let mut spins = 0u64;
        while charged_now().saturating_sub(before) < Duration::from_millis(30) {
            spins = spins.wrapping_add(1);
            assert!(wall.elapsed() < Duration::from_secs(20), "30 ms of work never charged");
        }
        assert!(spins > 0);
    }
}
