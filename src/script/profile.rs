//! Where script time goes, by function: `servitor sim --profile`. For an author whose
//! behaviour makes games slow, and for us when we move a heavy loop into the engine.
//!
//! Rhai's debugger interface calls back before every statement a script runs. The time from
//! one statement to the next is charged to the function running that statement (its *own*
//! time, which includes the engine calls the statement made: a path, a line of sight) and to
//! every function on the call stack (*inclusive* time, each function once however deep it
//! recurs). A call from the engine starts the clock afresh, so time between calls (the engine's
//! own turn keeping) is charged to nobody. Off unless asked for: the callback makes scripts
//! several times slower, so the shares are what to read, not the times.

use super::sandbox::Instant;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::ThreadId;

static ON: AtomicBool = AtomicBool::new(false);
static STATE: Mutex<Option<State>> = Mutex::new(None);

#[derive(Default)]
struct State {
    /// Per thread: when its last statement began, and the call stack it ran in.
    running: HashMap<ThreadId, (Instant, Vec<String>)>,
    by_function: HashMap<String, (u128, u128)>,
    total: u128,
}

/// One function's share of the script time.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Share {
    pub function: String,
    /// Fraction of all script time spent in it and in what it called.
    pub inclusive: f64,
    /// Fraction spent in its own statements (the engine calls they make included).
    pub own: f64,
}

/// Turns profiling on for the engines made from now on, and starts an empty profile.
pub fn enable() {
    *lock() = Some(State::default());
    ON.store(true, Ordering::SeqCst);
}

pub(crate) fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

fn lock() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A statement begins, in the call stack `stack` (outermost first); `fresh`: a call from the
/// engine begins, so the time since this thread's last statement is nobody's.
pub(crate) fn step(stack: Vec<String>, fresh: bool) {
    let now = Instant::now();
    let mut guard = lock();
    let Some(state) = guard.as_mut() else { return };
    let thread = std::thread::current().id();
    if let Some((since, previous)) = state.running.remove(&thread)
        && !fresh
    {
        let spent = now.duration_since(since).as_nanos();
        state.total += spent;
        let top = previous.last().cloned().unwrap_or_else(|| "(top level)".into());
        state.by_function.entry(top).or_default().0 += spent;
        let mut seen: Vec<&String> = Vec::with_capacity(previous.len());
        for f in &previous {
            if !seen.contains(&f) {
                seen.push(f);
                state.by_function.entry(f.clone()).or_default().1 += spent;
            }
        }
    }
    state.running.insert(thread, (Instant::now(), stack));
}

/// A call from the engine ends: its last statement's time is charged.
pub(crate) fn end() {
    step(Vec::new(), false);
    let mut guard = lock();
    if let Some(state) = guard.as_mut() {
        state.running.remove(&std::thread::current().id());
    }
}

/// The functions by inclusive share, largest first (ties by name), and the script time in
/// all, in seconds.
pub fn report() -> (Vec<Share>, f64) {
    let guard = lock();
    let Some(state) = guard.as_ref() else {
        return (Vec::new(), 0.0);
    };
    let total = state.total.max(1) as f64;
    let mut out: Vec<Share> = state
        .by_function
        .iter()
        .map(|(f, &(own, inclusive))| Share {
            function: f.clone(),
            inclusive: inclusive as f64 / total,
            own: own as f64 / total,
        })
        .collect();
    out.sort_by(|a, b| {
        b.inclusive
            .total_cmp(&a.inclusive)
            .then_with(|| a.function.cmp(&b.function))
    });
    (out, state.total as f64 / 1e9)
}
