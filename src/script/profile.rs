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
//!
//! Calls are counted from the same callback: a frame on the stack that was not on it at the
//! callback before (the same function called from the same place) is a call beginning. Rhai
//! calls back when a registered function returns too (with its frame on the stack), so the
//! engine's functions a script calls are counted, and timed, as functions of their own. The
//! count misses a call made twice from one place with no statement of the caller between
//! (`while f() {}`), which no bundled script does.
//!
//! The only other use of the debugger is `run.rs`'s replay of a run cut short by a limit.

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
    running: HashMap<ThreadId, (Instant, Vec<Frame>)>,
    by_function: HashMap<String, Spent>,
    total: u128,
}

/// A function on the call stack, and where it was called from (line, column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    pub function: String,
    pub from: (usize, usize),
}

#[derive(Default)]
struct Spent {
    own: u128,
    inclusive: u128,
    calls: u64,
}

/// One function's share of the script time.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Share {
    pub function: String,
    /// Fraction of all script time spent in it and in what it called.
    pub inclusive: f64,
    /// Fraction spent in its own statements (the engine calls they make included).
    pub own: f64,
    /// Times it was called.
    pub calls: u64,
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
pub(crate) fn step(stack: Vec<Frame>, fresh: bool) {
    let now = Instant::now();
    let mut guard = lock();
    let Some(state) = guard.as_mut() else { return };
    let thread = std::thread::current().id();
    let previous = state.running.remove(&thread);
    if let Some((since, previous)) = &previous
        && !fresh
    {
        let spent = now.duration_since(*since).as_nanos();
        state.total += spent;
        let top = previous.last().map_or("(top level)", |f| f.function.as_str());
        state.by_function.entry(top.to_string()).or_default().own += spent;
        let mut seen: Vec<&str> = Vec::with_capacity(previous.len());
        for f in previous {
            if !seen.contains(&f.function.as_str()) {
                seen.push(&f.function);
                state.by_function.entry(f.function.clone()).or_default().inclusive += spent;
            }
        }
    }
    // The frames past the longest stretch this stack shares with the one before are calls
    // that began since (all of them, on a call from the engine).
    let shared = match (&previous, fresh) {
        (Some((_, before)), false) => stack.iter().zip(before).take_while(|(a, b)| a == b).count(),
        _ => 0,
    };
    for f in &stack[shared..] {
        state.by_function.entry(f.function.clone()).or_default().calls += 1;
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
        .map(|(f, spent)| Share {
            function: f.clone(),
            inclusive: spent.inclusive as f64 / total,
            own: spent.own as f64 / total,
            calls: spent.calls,
        })
        .collect();
    out.sort_by(|a, b| {
        b.inclusive
            .total_cmp(&a.inclusive)
            .then_with(|| a.function.cmp(&b.function))
    });
    (out, state.total as f64 / 1e9)
}
