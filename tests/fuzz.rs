//! A fuzzer on the stable toolchain, in three targets, each for a bounded time:
//!
//! - **load**: the files of the bundled rulesets and of `tests/errors/`, mutated with a seeded
//!   PRNG (bytes flipped, hostile tokens spliced in, pieces cut, repeated or moved between
//!   files), each loaded (parser and checker) and its report rendered; a package that loads
//!   has every table's exact odds asked for.
//! - **script**: generated scripts calling the engine API (dice, tables, board and
//!   battlefield questions) with ordinary and extreme arguments, run as a procedure.
//! - **game**: the bundled packages (`space-crusade-solo`, `solo-heresy`, `space-hulk-solo`,
//!   `starquest-solitaire`, each with what it extends) and the test game
//!   `tests/games/skirmish`, their scripts and rules files mutated (numbers flipped, calls to
//!   the game API swapped, hostile statements spliced in: endless loops, huge numbers, deep
//!   recursion, moves into walls and off the board, unknown pieces), each played for one or
//!   two short games through `servitor::sim` (what `servitor sim` runs) and now and then
//!   saved, read back and played on.
//!
//! - **play**: random `play` sessions of every bundled mission (`tests/common/sessions.rs`, the
//!   generator `tests/sessions.rs` runs as a property test) with hostile lines mixed in (words
//!   cut, repeated, swapped for huge numbers, odd characters, other sides' pieces): commands,
//!   typed and servitor's dice, answers, undo, redo and a resume after every step, each resume
//!   the live game.
//!
//! Every input must end without a panic and within a budget of CPU time, with a result or a clean
//! diagnostic. `cargo test` runs each target for a few seconds; for a long run set
//! `SERVITOR_FUZZ_SECONDS` (per target) and optionally `SERVITOR_FUZZ_SEED`, in a release
//! build, one target at a time (`load`, `script`, `game` or `play`):
//!
//! ```text
//! SERVITOR_FUZZ_SECONDS=1800 SERVITOR_FUZZ_SEED=7 cargo test --release --test fuzz load -- --nocapture
//! ```
//!
//! Each target prints one line at the end: seed, seconds, inputs run (and per second) and
//! failures. The input being run is in `target/fuzz-work/<target>-<pid>/` (so an abort leaves
//! it there); an input that panics or takes too long is copied to `target/fuzz-failures/` to
//! become a fixture under `tests/hostile/`, and the run goes on. An input still running after
//! [`HANG`] ends the process. The test process may use at most [`MEMORY`] bytes of address
//! space, so running out of memory is an abort here instead of trouble for the machine.

mod common;

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One load, or one script run, must end within this (a debug build on a busy machine; the
/// deadline of a script run is one second).
const BUDGET: Duration = Duration::from_secs(8);
/// One game input (a load and up to two games, or a game saved, read back and played on)
/// must end within this: a game's scripts are cut at `MAX_GAME_MILLIS` in all.
const GAME_BUDGET: Duration = Duration::from_secs(45);
/// An input still running after this (wall time: generous, for a starved process) is a hang:
/// the watchdog ends the process.
const HANG: Duration = Duration::from_secs(600);
/// Address space the fuzzing process may use.
const MEMORY: u64 = 8 << 30;

/// The CPU time this process has used (every thread: a game may play on several).
fn cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    assert!(ok, "the process's CPU clock is readable");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn seconds() -> f64 {
    std::env::var("SERVITOR_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6.0)
}

fn seed() -> u64 {
    std::env::var("SERVITOR_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261123)
}

/// splitmix64: small, seeded, the same everywhere.
struct Prng(u64);

impl Prng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Caps the address space of this process at [`MEMORY`] (once).
fn cap_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let limit = libc::rlimit {
            rlim_cur: MEMORY,
            rlim_max: MEMORY,
        };
        // SAFETY: setrlimit reads the struct it is given and changes only this process.
        let _ = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    });
}

/// What the watchdog sees: the input running now and since when.
type Current = Arc<Mutex<Option<(u64, Instant)>>>;

/// One fuzz target's run: its seed and time, the inputs it ran and the ones that failed.
struct Harness {
    target: &'static str,
    seed: u64,
    started: Instant,
    until: Instant,
    budget: Duration,
    runs: u64,
    failures: Vec<String>,
    /// Where each input is written before it runs (`target/fuzz-work/<target>-<pid>`).
    work: PathBuf,
    current: Current,
    done: Arc<AtomicBool>,
}

impl Harness {
    fn new(target: &'static str, seed: u64, budget: Duration) -> Harness {
        cap_memory();
        // One folder per process: a long run and `cargo test` may fuzz side by side.
        let work = root()
            .join("target/fuzz-work")
            .join(format!("{target}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work).unwrap();
        let current: Current = Arc::new(Mutex::new(None));
        let done = Arc::new(AtomicBool::new(false));
        let (watched, finished, dir) = (current.clone(), done.clone(), work.clone());
        std::thread::spawn(move || {
            while !finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                let running = *watched.lock().unwrap_or_else(|p| p.into_inner());
                if let Some((n, since)) = running
                    && since.elapsed() > HANG
                {
                    let kept = keep(&dir, target, n);
                    eprintln!(
                        "fuzz {target}: input {n} still runs after {HANG:?}: a hang; input kept in {}",
                        kept.display()
                    );
                    std::process::exit(1);
                }
            }
        });
        let started = Instant::now();
        Harness {
            target,
            seed,
            started,
            until: started + Duration::from_secs_f64(seconds()),
            budget,
            runs: 0,
            failures: Vec::new(),
            work,
            current,
            done,
        }
    }

    fn running(&self) -> bool {
        Instant::now() < self.until
    }

    /// Runs one input (already written under `self.work`, described in `what`): a panic or
    /// a run over the budget is a failure, kept, and the fuzzing goes on.
    fn run(&mut self, what: &str, input: impl FnOnce()) {
        self.runs += 1;
        let n = self.runs;
        let _ = std::fs::write(self.work.join("INPUT.txt"), what);
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = Some((n, Instant::now()));
        // The budget is CPU time: on a loaded machine (a long run beside builds) wall time
        // would report a starved input as slow.
        let start = cpu_time();
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(input));
        let took = cpu_time().saturating_sub(start);
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let failure = match outcome {
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("panicked: {message}"))
            }
            Ok(()) if took > self.budget => Some(format!("took {took:?} of CPU (budget {:?})", self.budget)),
            Ok(()) => None,
        };
        if let Some(why) = failure {
            let kept = keep(&self.work, self.target, n);
            let line = format!("input {n} {why}; kept in {}", kept.display());
            eprintln!("fuzz {}: {line}", self.target);
            self.failures.push(line);
        }
    }

    /// Prints the run's line and fails the test if any input failed.
    fn finish(self, detail: &str) {
        self.done.store(true, Ordering::Relaxed);
        let _ = std::fs::remove_dir_all(&self.work);
        let seconds = self.started.elapsed().as_secs_f64();
        eprintln!(
            "fuzz {}: SERVITOR_FUZZ_SEED {} (this target's seed {}), {seconds:.1} s, {} inputs ({:.1}/s), {} failures; {detail}",
            self.target,
            seed(),
            self.seed,
            self.runs,
            self.runs as f64 / seconds.max(0.001),
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "fuzz {}: {} failing inputs:\n{}",
            self.target,
            self.failures.len(),
            self.failures.join("\n")
        );
        assert!(self.runs >= 3, "fuzz {}: only {} inputs", self.target, self.runs);
    }
}

/// Runs a target on a thread with the stack the engine gives every thread that runs scripts
/// (a test thread has 2 MiB; deeply nested script values need more).
fn on_script_stack(target: fn()) {
    let thread = std::thread::Builder::new()
        .stack_size(servitor::script::STACK_BYTES)
        .spawn(target)
        .expect("a thread starts");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

/// Copies the work folder of a failing input to `target/fuzz-failures/<target>-<n>`.
fn keep(work: &Path, target: &str, n: u64) -> PathBuf {
    let dir = root().join("target/fuzz-failures").join(format!("{target}-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(work, &dir);
    dir
}

/// The rules files and scripts under `dir`, in a fixed order (the same inputs from the same
/// seed on every machine).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            files_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "rules" || e == "rhai") {
            out.push(path);
        }
    }
}

/// Tokens that once broke something, or could.
const HOSTILE: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\n",
    "#",
    "\u{feff}",
    "\u{1b}[2J",
    "\r",
    "\t",
    "é",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "d4294967295",
    "1000d6",
    "100d1000",
    "d0",
    "0d6",
    " 60 red ",
    " then t times 1000 ",
    " times 99 ",
    " amount 9223372036854775807 ",
    "include \"/dev/stdin\"",
    "include \"../../Cargo.toml\"",
    "script \"/etc/passwd\"",
    "size 100000 100000",
    "at 1000 1000",
    "override ",
    "remove table ",
    "const k = ",
    "=>",
    "1-6",
    "table t { dice d6; 1-6 => a }",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
];

fn mutate(rng: &mut Prng, text: &str, corpus: &[String]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(2) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(7) {
            0 => {
                let end = (at + rng.below(64)).min(bytes.len());
                bytes.drain(at..end);
            }
            1 | 2 => {
                let token = rng.pick(HOSTILE).as_bytes();
                bytes.splice(at..at, token.iter().copied());
            }
            3 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next() as u8;
            }
            4 => {
                // A slice of another file.
                let other = rng.pick(corpus).as_bytes();
                let from = rng.below(other.len());
                let to = (from + rng.below(400)).min(other.len());
                bytes.splice(at..at, other[from..to].iter().copied());
            }
            5 => {
                let end = (at + rng.below(200)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                for _ in 0..rng.below(20) {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
            _ => bytes.truncate(at),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

// ----- load ------------------------------------------------------------------------------

#[test]
fn load() {
    on_script_stack(load_target);
}

fn load_target() {
    let mut h = Harness::new("load", seed(), BUDGET);
    let mut rng = Prng(h.seed);
    let mut sources = Vec::new();
    files_under(&root().join("rulesets"), &mut sources);
    files_under(&root().join("tests/errors"), &mut sources);
    let corpus: Vec<String> = sources.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let mut packages: Vec<PathBuf> = std::fs::read_dir(root().join("rulesets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    packages.sort();
    let work = h.work.clone();
    let mut loaded = 0u64;
    while h.running() {
        // A copy of a bundled package (bases are found by name in the bundle), one or two
        // of its files mutated; or one error fixture as a one-file package.
        for entry in std::fs::read_dir(&work).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let _ = std::fs::remove_dir_all(&path);
            } else {
                let _ = std::fs::remove_file(&path);
            }
        }
        let mut what = String::new();
        let target = if rng.below(4) == 0 {
            let i = rng.below(corpus.len());
            let text = mutate(&mut rng, &corpus[i], &corpus);
            let path = work.join("one.rules");
            std::fs::write(&path, &text).unwrap();
            what = format!("{} mutated, as one.rules\n", sources[i].display());
            path
        } else {
            let package = rng.pick(&packages).clone();
            let copy = work.join(package.file_name().unwrap());
            copy_dir(&package, &copy);
            let mut files = Vec::new();
            files_under(&copy, &mut files);
            files.sort();
            for _ in 0..1 + rng.below(2) {
                let file = rng.pick(&files).clone();
                let text = mutate(&mut rng, &std::fs::read_to_string(&file).unwrap_or_default(), &corpus);
                std::fs::write(&file, &text).unwrap();
                what.push_str(&format!("{} mutated\n", file.display()));
            }
            copy
        };
        h.run(&what, || match servitor::load(&target.display().to_string()) {
            Ok(done) => {
                loaded += 1;
                let r = &done.ruleset;
                let _ = done.warnings.render(&r.sources, false);
                for table in r.tables.values() {
                    let _ = servitor::tables::odds::table_odds(&r.tables, table, 1, &Default::default());
                }
            }
            Err(error) => {
                let _ = error.render(false);
            }
        });
    }
    h.finish(&format!("{loaded} of them loaded"));
}

// ----- script ----------------------------------------------------------------------------

/// The package the generated scripts run in: dice, tables with follow-ups, a mission with
/// walls and doors, a battlefield with terrain.
const SCRIPT_PACKAGE: &str = r#"package fuzz {
  version "1"
  script "fuzz.rhai"
}
die red { faces [0, 0, 1, 1, 2, 3] }
die arrows { faces [hit, arrow(90), arrow(270)] }
const small = 3
table t { dice 2d6; 2-6 => low { amount d3 }; 7-12 => high { then u times d3 } }
table u { dice d6; duplicates reroll; 1-2 => a; 3-4 => b; 5-6 => c }
board b {
  map "
+-+-+-+-+-+
|. . . . R|
+ +-+ + + +
|. .|. # .|
+ + +D+ + +
|. . . . .|
+-+-+-+-+-+
"
  legend { R reinforcement }
}
mission m { board b at 1 1; board b at 6 1 }
battlefield f {
  size 72 48
  zone home [0, 0, 72, 0, 72, 12, 0, 12]
  marker goal at 36 24
  terrain rock [20, 20, 28, 20, 28, 26, 20, 26]
}
procedure p { function p }
"#;

fn int(rng: &mut Prng) -> String {
    rng.pick(&[
        "0",
        "1",
        "2",
        "-1",
        "3",
        "7",
        "100",
        "1000",
        "65535",
        "4294967296",
        "9223372036854775807",
        "(-9223372036854775807 - 1)",
        "small",
    ])
    .to_string()
}

fn square(rng: &mut Prng) -> String {
    rng.pick(&[
        "\"1,1\"",
        "\"3,2\"",
        "\"10,3\"",
        "\"0,0\"",
        "\"99,99\"",
        "\"x\"",
        "\"4294967297,1\"",
        "sq",
    ])
    .to_string()
}

fn num(rng: &mut Prng) -> String {
    rng.pick(&["0", "1.5", "36", "-5", "1e300", "(0.0/0.0)", "72", "24.25", "100000"])
        .to_string()
}

fn dice(rng: &mut Prng) -> String {
    rng.pick(&[
        "\"2d6\"",
        "\"d66\"",
        "\"d3+1\"",
        "\"2 red + 1 red\"",
        "\"arrows\"",
        "\"100d6\"",
        "\"101d6\"",
        "\"d1000\"",
        "\"d0\"",
        "\"\"",
        "\"d6 + 9223372036854775807\"",
        "\"red red\"",
    ])
    .to_string()
}

/// One line of script calling the engine API.
fn call(rng: &mut Prng) -> String {
    let s = |rng: &mut Prng| square(rng);
    match rng.below(26) {
        0 => format!("roll({})", dice(rng)),
        1 => format!("roll_dice({})", dice(rng)),
        2 => format!("roll_table({})", rng.pick(&["\"t\"", "\"u\"", "\"nope\""])),
        3 => format!("roll_table_times(\"t\", {}, #{{}})", int(rng)),
        4 => format!("random({}, {})", int(rng), int(rng)),
        5 => "pick([1, 2, 3])".into(),
        6 => "shuffle([1, 2, 3, 4])".into(),
        7 => format!("step(\"x\" + {})", int(rng)),
        8 => format!("los(\"m\", {}, {})", s(rng), s(rng)),
        9 => format!("distance(\"m\", {}, {}, true)", s(rng), s(rng)),
        10 => format!("nearest(\"m\", {}, [{}, {}])", s(rng), s(rng), s(rng)),
        11 => format!("move_towards(\"m\", {}, [{}], {}, [])", s(rng), s(rng), int(rng)),
        12 => format!("move_away(\"m\", {}, [{}], {}, [{}])", s(rng), s(rng), int(rng), s(rng)),
        13 => format!("line(\"m\", {}, {}, {})", s(rng), int(rng), int(rng)),
        14 => format!("blast(\"m\", {})", s(rng)),
        15 => format!("region(\"m\", {})", s(rng)),
        16 => format!(
            "facing_path(\"m\", {}, \"{}\", {}, #{{ forward: {}, turn: {}, sideways: {} }})",
            s(rng),
            rng.pick(&["up", "left", "sideways"]),
            s(rng),
            int(rng),
            int(rng),
            int(rng)
        ),
        17 => format!("range({}, {})", s(rng), s(rng)),
        18 => format!("section(\"m\", {})", s(rng)),
        19 => format!("scatter(\"f\", {}, {}, {}, {})", num(rng), num(rng), num(rng), num(rng)),
        20 => format!(
            "advance(\"f\", {}, {}, {}, {}, {})",
            num(rng),
            num(rng),
            num(rng),
            num(rng),
            num(rng)
        ),
        21 => format!("inches({}, {}, {}, {})", num(rng), num(rng), num(rng), num(rng)),
        22 => format!("in_terrain(\"f\", {}, {})", num(rng), num(rng)),
        23 => "mission(\"m\")".into(),
        24 => format!("record(\"{}\", \"x\")", rng.pick(&["unit", "mission"])),
        _ => format!("constant(\"{}\")", rng.pick(&["small", "nope"])),
    }
}

fn generated_script(rng: &mut Prng) -> String {
    let mut body = String::from("fn p(args) {\n    let sq = \"2,2\";\n    let out = [];\n");
    for _ in 0..1 + rng.below(8) {
        let line = call(rng);
        match rng.below(5) {
            0 => body.push_str(&format!(
                "    for i in 0..{} {{ out.push({line}); }}\n",
                rng.pick(&["3", "50", "1000"])
            )),
            1 => body.push_str(&format!("    let v = {line}; sq = `${{v}}`;\n")),
            _ => body.push_str(&format!("    out.push({line});\n")),
        }
    }
    body.push_str("    out.len()\n}\n");
    body
}

#[test]
fn script() {
    on_script_stack(script_target);
}

fn script_target() {
    let mut h = Harness::new("script", seed() ^ 0x5c71, BUDGET);
    let mut rng = Prng(h.seed);
    let manifest = h.work.join("package.rules");
    std::fs::write(&manifest, SCRIPT_PACKAGE).unwrap();
    let script_path = h.work.join("fuzz.rhai");
    let dir = h.work.display().to_string();
    let (mut ok, mut refused) = (0u64, 0u64);
    while h.running() {
        let text = generated_script(&mut rng);
        std::fs::write(&script_path, &text).unwrap();
        let n = h.runs + 1;
        h.run("fuzz.rhai generated", || {
            let loaded = match servitor::load(&dir) {
                Ok(l) => l,
                // The script check refuses a literal id that does not exist at load: a clean
                // diagnostic too. Anything else about the fixed package is a bug.
                Err(servitor::LoadError::Invalid { sources, report })
                    if report
                        .diagnostics
                        .iter()
                        .all(|d| sources.get(d.span.file).name.ends_with(".rhai")) =>
                {
                    refused += 1;
                    let _ = report.render(&sources, false);
                    return;
                }
                Err(e) => panic!("the fuzz package does not load:\n{}", e.render(false)),
            };
            let ruleset = Arc::new(loaded.ruleset);
            match servitor::script::run_procedure(&ruleset, "p", &[], n) {
                Ok(_) => ok += 1,
                Err(servitor::script::RunError::Script(failure)) => {
                    refused += 1;
                    let mut report = servitor::diagnostic::Report::default();
                    report.push(failure.diagnostic);
                    let _ = report.render(&ruleset.sources, false);
                }
                Err(servitor::script::RunError::Usage(u)) => panic!("usage error: {u}"),
            }
        });
    }
    h.finish(&format!("{ok} ran to the end, {refused} stopped with a diagnostic"));
}

// ----- game ------------------------------------------------------------------------------

/// Every method of the game handle a script may call, for swapping one call for another.
const GAME_API: &[&str] = &[
    "turn",
    "side",
    "phase",
    "over",
    "mission",
    "option",
    "pieces",
    "pieces_with",
    "piece",
    "get",
    "get_var",
    "scores",
    "collected",
    "say",
    "use_stream",
    "distance",
    "by_distance",
    "visible",
    "sees",
    "reachable",
    "vantage",
    "adjacent",
    "shut_in",
    "free_squares",
    "marked",
    "section_square",
    "fits",
    "distance_to",
    "square_free",
    "unseen",
    "sections",
    "section_of",
    "section_squares",
    "entered",
    "lines",
    "blast_at",
    "best_blast",
    "best_line",
    "add",
    "place",
    "place_hidden",
    "reveal",
    "enter",
    "leave",
    "damage",
    "remove",
    "set",
    "open_door",
    "move_towards",
    "move_away",
    "move_to",
    "move_path",
    "set_var",
    "set_entered",
    "score",
    "collect",
    "new_pool",
    "new_secret_pool",
    "pool",
    "take",
    "give",
    "take_random",
    "new_deck",
    "cards_left",
    "draw",
    "end",
];

/// Statements spliced into a game's scripts: runaway loops, huge numbers, deep recursion and
/// nesting, moves into walls and off the board, unknown pieces, floods of log and pieces.
const GAME_SNIPPETS: &[&str] = &[
    "loop { }",
    "while true { game.turn(); }",
    "for i in 0..1900000 { }",
    "let n = 9223372036854775807; n += 1;",
    "fuzz_deep(0);",
    "fuzz_deep(-1000000);",
    "return;",
    "return 0.0 / 0.0;",
    "throw ();",
    "throw \"\\x1b]0;owned\\x07\\x1b[2J\";",
    "game.say(\"\\x1b]0;owned\\x07\\x1b[2J\\r\\u202e\");",
    "let id = game.pieces(\"\")[0]; game.move_path(id, [\"1,1\", \"200,200\"]);",
    "let id = game.pieces(\"\")[0]; game.move_path(id, [\"0,0\"]);",
    "let id = game.pieces(\"\")[0]; game.move_to(id, \"-1,-1\", 1000);",
    "let id = game.pieces(\"\")[0]; game.move_to(id, \"1,1\", 1000);",
    "for id in game.pieces(\"\") { game.move_to(id, game.marked(game.mission().id)[0], 1000); }",
    "for id in game.pieces(\"\") { game.move_towards(id, game.pieces(\"\")[0], 1000); }",
    "for id in game.pieces(\"\") { game.move_away(id, game.pieces(\"\")[0], 9223372036854775807); }",
    "let id = game.pieces(\"\")[0]; game.enter(id, \"1,1\");",
    "game.place(\"nope\", game.side(), \"3,3\");",
    "for id in game.pieces(\"\") { game.move_at(id, 1e300, -1e300, 1e308, \"fuzz\"); }",
    "for id in game.pieces(\"\") { game.move_at(id, 0.0 / 0.0, 5, 9223372036854775807, \"fuzz\"); }",
    "for id in game.pieces(\"\") { game.close_in(id, game.pieces(\"\")[0], -5, -1e300, \"fuzz\"); }",
    "let id = game.pieces(\"\")[0]; game.stand(id, -1, 1e18, \"fuzz\");",
    "let id = game.pieces(\"\")[0]; game.nearest_unit(id, \"\", #{ within: 0.0 / 0.0, among: [1, 2] });",
    "let id = game.pieces(\"\")[0]; game.towards(id, 1e300, 1e300, 1e300, 1e300); game.sight(id, id);",
    "game.use_battlefield(\"nope\");",
    "game.place_hidden(\"t\", \"nope\", game.side(), \"4294967297,1\");",
    "game.damage(\"nobody\", 1, \"fuzz\");",
    "for id in game.pieces(\"\") { game.damage(id, 9223372036854775807, \"fuzz\"); }",
    "game.damage(game.pieces(\"\")[0], -1, \"fuzz\");",
    "game.score(game.side(), 9223372036854775807, \"fuzz\"); game.score(game.side(), 9223372036854775807, \"fuzz\");",
    "game.score(game.side(), -9223372036854775807 - 1, \"fuzz\");",
    "game.new_pool(\"fuzz\", #{a: 9223372036854775807, b: 9223372036854775807}); game.take_random(\"fuzz\");",
    "game.new_secret_pool(\"fuzz\", #{a: 9223372036854775807, b: 1});",
    "game.new_pool(\"fuzz\", #{a: 1}); game.give(\"fuzz\", \"a\", 9223372036854775807);",
    "let d = []; for i in 0..9000 { d = [d]; } game.set_var(\"fuzz\", d);",
    "let m = #{}; for i in 0..9000 { m = #{m: m}; } game.set(game.pieces(\"\")[0], \"fuzz\", m);",
    "let s = \"x\"; s.pad(16000, \"y\"); loop { game.say(s); }",
    "for i in 0..100000 { game.add(game.piece(game.pieces(\"\")[0]).kind, game.side()); }",
    "for i in 0..100000 { game.use_stream(`fuzz-${i}`); }",
    "for i in 0..100000 { game.by_distance(game.pieces(\"\")[0], \"\"); }",
    "for i in 0..100000 { game.vantage(game.pieces(\"\")[0], 1000, \"\"); }",
    "for i in 0..100000 { game.best_blast(game.pieces(\"\")[0], \"\"); }",
    "game.reachable(game.pieces(\"\")[0], 1000);",
    "game.end(\"\", \"fuzz\"); game.end(\"\", \"again\");",
    "game.end(\"nobody\", \"fuzz\");",
    "game.use_stream(\"\");",
    "game.new_deck(\"fuzz\", []); game.draw(\"fuzz\");",
    "let cards = []; cards.pad(10000, \"c\"); game.new_deck(\"fuzz\", cards);",
    "game.reveal(game.pieces(\"\")[0]);",
    "game.leave(game.pieces(\"\")[0], \"removed\");",
    "game.leave(game.pieces(\"\")[0], \"safe\");",
    "game.remove(game.pieces(\"\")[0], \"fuzz\");",
    "game.set(game.pieces(\"\")[0], \"life\", \"many\");",
    "game.set_var(\"scanned\", 0);",
    "game.open_door(\"1,1\", \"1,2\");",
    "game.section_square(\"\", 9223372036854775807, -9223372036854775807 - 1);",
    "game.distance_to(game.pieces(\"\")[0], []);",
    "game.blast_at(\"-1,-1\");",
    "game.set_entered(\"nope\");",
    "roll(\"100d6\"); roll(\"101d6\");",
    "roll(\"d6 + 9223372036854775807\");",
    "random(-9223372036854775807 - 1, 9223372036854775807);",
];

/// Appended to a mutated script, for the snippets that call it.
const GAME_HELPERS: &str = "\nfn fuzz_deep(n) { fuzz_deep(n + 1) }\n";

/// Numbers a flipped number may become.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "40",
    "1000",
    "65535",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
];

/// Byte ranges of the runs of ASCII digits in `text`.
fn numbers_in(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// One mutation of a game's script or rules file, and what it did.
fn mutate_game_file(rng: &mut Prng, text: &str, is_script: bool, corpus: &[String]) -> (String, String) {
    // Scripts: numbers, bytes, swapped calls, spliced statements; rules files: numbers, bytes.
    let choice = if is_script {
        rng.below(10)
    } else {
        [0, 1, 2][rng.below(3)]
    };
    match choice {
        // A number flipped.
        0 | 1 => {
            let numbers = numbers_in(text);
            if numbers.is_empty() {
                return (text.to_string(), "no number to flip".into());
            }
            let (a, b) = *rng.pick(&numbers);
            let new = if rng.below(3) == 0 {
                let n: i64 = text[a..b].parse().unwrap_or(0);
                n.wrapping_add([-1, 1][rng.below(2)]).to_string()
            } else {
                rng.pick(NUMBERS).to_string()
            };
            let line = text[..a].lines().count();
            (
                format!("{}{new}{}", &text[..a], &text[b..]),
                format!("line {line}: {} became {new}", &text[a..b]),
            )
        }
        // Bytes mutated as the load target does.
        2 => (mutate(rng, text, corpus), "bytes mutated".into()),
        // A call to the game API swapped for another.
        3..=5 => {
            let calls: Vec<usize> = text.match_indices("game.").map(|(i, _)| i + 5).collect();
            if calls.is_empty() {
                return (text.to_string(), "no game call to swap".into());
            }
            let at = *rng.pick(&calls);
            let end = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |n| at + n);
            let new = rng.pick(GAME_API);
            let line = text[..at].lines().count();
            (
                format!("{}{new}{}", &text[..at], &text[end..]),
                format!("line {line}: game.{} became game.{new}", &text[at..end]),
            )
        }
        // A hostile statement spliced in after a line that ends a statement or opens a block.
        _ => {
            let mut places: Vec<usize> = Vec::new();
            let mut offset = 0;
            for line in text.split_inclusive('\n') {
                offset += line.len();
                let t = line.trim_end();
                if (t.ends_with('{') || t.ends_with(';')) && !t.trim_start().starts_with("//") {
                    places.push(offset);
                }
            }
            if places.is_empty() {
                return (text.to_string(), "no place to splice".into());
            }
            let at = *rng.pick(&places);
            let snippet = rng.pick(GAME_SNIPPETS);
            let line = text[..at].lines().count() + 1;
            (
                format!(
                    "{}    {snippet}\n{}{}",
                    &text[..at],
                    &text[at..],
                    if text.contains(GAME_HELPERS) { "" } else { GAME_HELPERS }
                ),
                format!("line {line}: spliced `{snippet}`"),
            )
        }
    }
}

/// A game package to fuzz: the folders copied into the work folder, the one played, its
/// missions and options.
struct GameCorpus {
    folders: &'static [&'static str],
    play: &'static str,
    missions: &'static [&'static str],
    options: &'static [(&'static str, &'static str)],
}

const GAMES: &[GameCorpus] = &[
    GameCorpus {
        folders: &["rulesets/space-crusade", "rulesets/space-crusade-solo"],
        play: "space-crusade-solo",
        missions: &["reactor-strike", "stranded", "purge"],
        options: &[("marine-style", "bold"), ("marine-style", "cautious")],
    },
    GameCorpus {
        folders: &["rulesets/solo-heresy"],
        play: "solo-heresy",
        missions: &["exterminatus", "raid", "victory-or-death", "eye-of-terror"],
        options: &[("player-style", "bold"), ("challenge", "roll")],
    },
    GameCorpus {
        folders: &["rulesets/space-hulk", "rulesets/space-hulk-solo"],
        play: "space-hulk-solo",
        missions: &["breach-run", "purge-the-nest", "relay-sabotage"],
        options: &[
            ("marine-style", "bold"),
            ("stealer-walk", "step"),
            ("entry-overflow", "stack"),
        ],
    },
    GameCorpus {
        folders: &["rulesets/space-crusade", "rulesets/starquest-solitaire"],
        play: "starquest-solitaire",
        missions: &["mission-1", "mission-6", "mission-8"],
        options: &[("marine-style", "cautious"), ("unreachable-fight", "rolls")],
    },
    GameCorpus {
        folders: &["tests/games/skirmish"],
        play: "skirmish",
        missions: &["hall-fight"],
        options: &[("style", "cautious")],
    },
];

/// Renders what a failed game says, as the commands would.
fn render_game_error(ruleset: &servitor::Ruleset, error: servitor::game::GameError) {
    if let servitor::game::GameError::Script { diagnostic, .. } = error {
        let mut report = servitor::diagnostic::Report::default();
        report.push(*diagnostic);
        let _ = report.render(&ruleset.sources, false);
    }
}

/// A game started, stopped after a few phases, saved as JSON, resumed and saved again (the
/// same bytes), then with `flips` of its numbers changed, as a hand-edited save might be, read
/// back and played on.
fn save_and_resume(ruleset: &Arc<servitor::Ruleset>, setup: servitor::game::Setup, phases: u32, flips: u64) {
    use servitor::game::{Host, Save};
    let mut host = Host::new(ruleset);
    let game = match host.start(&setup, Some(phases)) {
        Ok(g) => g,
        Err(e) => return render_game_error(ruleset, e),
    };
    // As `game --save` writes it: every save servitor writes must resume to the same game,
    // byte for byte when saved again (a game whose script fails when played again — over a
    // time limit on a busy machine — is refused, not wrongly resumed).
    let Ok(mut json) = servitor::game::host::encode(&host.save(&game)) else {
        return;
    };
    {
        let mut again = Host::new(ruleset);
        match again.load(serde_json::from_str::<Save>(&json).expect("a written save reads back")) {
            Ok(loaded) => assert_eq!(
                servitor::game::host::encode(&again.save(&loaded)).as_deref(),
                Ok(json.as_str()),
                "a save resumed and saved again changed"
            ),
            Err(servitor::game::GameError::Save(m)) => panic!("a save servitor wrote was refused: {m}"),
            Err(e) => render_game_error(ruleset, e),
        }
    }
    let mut rng = Prng(flips);
    for _ in 0..flips % 4 {
        let numbers = numbers_in(&json);
        if numbers.is_empty() {
            break;
        }
        let (a, b) = *rng.pick(&numbers);
        json = format!("{}{}{}", &json[..a], rng.pick(NUMBERS), &json[b..]);
    }
    let Ok(save) = serde_json::from_str::<Save>(&json) else {
        return;
    };
    let mut other = Host::new(ruleset);
    match other.load(save).and_then(|g| other.advance(g, None)) {
        Ok(g) => {
            let record = servitor::game::host::record(g);
            let _ = serde_json::to_string(&record);
        }
        Err(e) => render_game_error(ruleset, e),
    }
}

#[test]
fn game() {
    on_script_stack(game_target);
}

fn game_target() {
    let mut h = Harness::new("game", seed() ^ 0x6a3e, GAME_BUDGET);
    let mut rng = Prng(h.seed);
    let work = h.work.clone();
    let (mut played, mut refused, mut unloaded) = (0u64, 0u64, 0u64);
    while h.running() {
        let corpus = rng.pick(GAMES);
        for entry in std::fs::read_dir(&work).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let _ = std::fs::remove_dir_all(&path);
            }
        }
        let mut files = Vec::new();
        for folder in corpus.folders {
            let from = root().join(folder);
            let to = work.join(from.file_name().unwrap());
            copy_dir(&from, &to);
            files_under(&to, &mut files);
        }
        files.sort();
        let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
        let mut what = String::new();
        // Short games: a few turns, now and then as many as the package says.
        if rng.below(6) != 0 {
            let turns = 1 + rng.below(4);
            for (file, text) in files.iter().zip(&texts) {
                if let Some(at) = text.find("max-turns ") {
                    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
                    let short = format!("{}max-turns {turns}{}", &text[..at], &text[end..]);
                    std::fs::write(file, short).unwrap();
                }
            }
            what.push_str(&format!("max-turns {turns}\n"));
        }
        let (scripts, rules): (Vec<usize>, Vec<usize>) =
            (0..files.len()).partition(|&i| files[i].extension().is_some_and(|e| e == "rhai"));
        for _ in 0..1 + rng.below(3) {
            // Scripts mostly: a rules file changed often no longer loads.
            let i = if rng.below(4) == 0 {
                *rng.pick(&rules)
            } else {
                *rng.pick(&scripts)
            };
            let file = &files[i];
            let text = std::fs::read_to_string(file).unwrap();
            let is_script = file.extension().is_some_and(|e| e == "rhai");
            let (new, how) = mutate_game_file(&mut rng, &text, is_script, &texts);
            std::fs::write(file, new).unwrap();
            let name = file.strip_prefix(&work).unwrap_or(file);
            what.push_str(&format!("{}: {how}\n", name.display()));
        }
        let package = work.join(corpus.play).display().to_string();
        let mission = if rng.below(20) == 0 {
            "nope".to_string()
        } else {
            rng.pick(corpus.missions).to_string()
        };
        let options: Vec<(String, String)> = if rng.below(2) == 0 {
            let (k, v) = rng.pick(corpus.options);
            vec![(k.to_string(), v.to_string())]
        } else {
            Vec::new()
        };
        let seed = rng.next() % 1_000_000;
        let games = 1 + rng.below(2) as u64;
        let resume = rng.below(3) == 0;
        let phases = 1 + rng.below(6) as u32;
        let flips = rng.next();
        what.push_str(&format!(
            "mission {mission}, seed {seed}, {games} games, options {options:?}\n"
        ));
        h.run(&what, || {
            let ruleset = match servitor::load(&package) {
                Ok(l) => {
                    let _ = l.warnings.render(&l.ruleset.sources, false);
                    Arc::new(l.ruleset)
                }
                Err(e) => {
                    unloaded += 1;
                    let _ = e.render(false);
                    return;
                }
            };
            let setup = servitor::sim::SimSetup {
                game: None,
                mission: mission.clone(),
                seed,
                games,
                jobs: 1,
                options: options.clone(),
            };
            if servitor::sim::check(&ruleset, &setup).is_err() {
                refused += 1;
                return;
            }
            let report = servitor::sim::run(&ruleset, &setup, &|| {}, &AtomicBool::new(false))
                .expect("one thread can be started");
            let _ = serde_json::to_string(&report).expect("a sim report is JSON");
            played += report.games;
            refused += report.outcomes.get("error").copied().unwrap_or(0);
            if resume {
                let setup = servitor::game::Setup {
                    game: None,
                    mission,
                    seed,
                    options,
                };
                save_and_resume(&ruleset, setup, phases, flips);
            }
        });
    }
    h.finish(&format!(
        "{played} games played ({refused} ended with a diagnostic), {unloaded} packages did not load"
    ));
}

// ----- play ------------------------------------------------------------------------------

#[test]
fn play() {
    on_script_stack(play_target);
}

fn play_target() {
    // Every bundled mission loaded first: the target's time is for the sessions, not the load
    // (a loaded debug machine took most of it loading).
    let missions = common::sessions::missions();
    let mut h = Harness::new("play", seed() ^ 0x91a7, GAME_BUDGET);
    let mut rng = Prng(h.seed);
    let (mut sessions, mut accepted) = (0u64, 0u64);
    while h.running() {
        let (ruleset, game, mission) = rng.pick(&missions).clone();
        let seed = rng.next();
        let what = format!(
            "a hostile session of {} mission {mission}, seed {seed}\n",
            ruleset.name()
        );
        h.run(&what, || {
            accepted += common::sessions::one_session(&ruleset, game, &mission, seed, true, 12) as u64;
            sessions += 1;
        });
    }
    h.finish(&format!("{sessions} sessions, {accepted} commands accepted"));
}
