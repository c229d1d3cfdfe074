//! A fuzzer on the stable toolchain, in two targets, each for a bounded time:
//!
//! - **load**: the files of the bundled rulesets and of `tests/errors/`, mutated with a seeded
//!   PRNG (bytes flipped, hostile tokens spliced in, pieces cut, repeated or moved between
//!   files), each loaded (parser and checker) and its report rendered; a package that loads
//!   has every table's exact odds asked for.
//! - **script**: generated scripts calling the engine API (dice, tables, board and
//!   battlefield questions) with ordinary and extreme arguments, run as a procedure.
//!
//! Every input must end without a panic and within a time budget. `cargo test` runs each
//! target for a few seconds; for a long run set `SERVITOR_FUZZ_SECONDS` (per target) and
//! optionally `SERVITOR_FUZZ_SEED`, in a release build:
//!
//! ```text
//! SERVITOR_FUZZ_SECONDS=1800 cargo test --release --test fuzz -- --nocapture
//! ```
//!
//! An input that fails is written to `target/fuzz-failures/` to become a fixture under
//! `tests/hostile/`.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One load, or one script run, must end within this (a debug build on a busy machine; the
/// deadline of a script run is one second).
const BUDGET: Duration = Duration::from_secs(8);

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

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
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

/// Where a failing input is kept.
fn keep_failure(name: &str, files: &[(PathBuf, String)]) -> PathBuf {
    let dir = root().join("target/fuzz-failures").join(name);
    let _ = std::fs::create_dir_all(&dir);
    for (path, text) in files {
        let _ = std::fs::write(dir.join(path.file_name().unwrap()), text);
    }
    dir
}

/// Runs `work` and fails the test, keeping the input, if it panics or takes too long.
fn guarded(name: &str, files: &[(PathBuf, String)], work: impl FnOnce()) {
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(work));
    let took = start.elapsed();
    if let Err(panic) = outcome {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let kept = keep_failure(name, files);
        panic!("{name} panicked ({message}); input kept in {}", kept.display());
    }
    if took > BUDGET {
        let kept = keep_failure(name, files);
        panic!("{name} took {took:?}; input kept in {}", kept.display());
    }
}

#[test]
fn mutated_packages_load_without_panic_or_hang() {
    let mut rng = Prng(seed());
    let mut sources = Vec::new();
    files_under(&root().join("rulesets"), &mut sources);
    files_under(&root().join("tests/errors"), &mut sources);
    let corpus: Vec<String> = sources.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let packages: Vec<PathBuf> = std::fs::read_dir(root().join("rulesets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let work = tempfile::tempdir().unwrap();
    let deadline = Instant::now() + Duration::from_secs_f64(seconds());
    let mut runs = 0u64;
    let mut loaded = 0u64;
    while Instant::now() < deadline {
        // A copy of a bundled package (bases are found by name under rulesets/), one or two
        // of its files mutated; or one error fixture as a one-file package.
        let (target, changed) = if rng.below(4) == 0 {
            let original = rng.pick(&corpus).clone();
            let text = mutate(&mut rng, &original, &corpus);
            let path = work.path().join("one.rules");
            std::fs::write(&path, &text).unwrap();
            (path.clone(), vec![(path, text)])
        } else {
            let package = rng.pick(&packages).clone();
            let copy = work.path().join(package.file_name().unwrap());
            let _ = std::fs::remove_dir_all(&copy);
            copy_dir(&package, &copy);
            let mut files = Vec::new();
            files_under(&copy, &mut files);
            let mut changed = Vec::new();
            for _ in 0..1 + rng.below(2) {
                let file = rng.pick(&files).clone();
                let text = mutate(&mut rng, &std::fs::read_to_string(&file).unwrap_or_default(), &corpus);
                std::fs::write(&file, &text).unwrap();
                changed.push((file, text));
            }
            (copy, changed)
        };
        runs += 1;
        guarded(&format!("load-{runs}"), &changed, || {
            match servitor::load(&target.display().to_string()) {
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
            }
        });
    }
    eprintln!("fuzz load: {runs} mutated packages, {loaded} of them loaded");
    assert!(runs > 20, "only {runs} runs");
}

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

fn script(rng: &mut Prng) -> String {
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
fn generated_scripts_call_the_engine_without_panic_or_hang() {
    let mut rng = Prng(seed() ^ 0x5c71);
    let work = tempfile::tempdir().unwrap();
    let manifest = work.path().join("package.rules");
    std::fs::write(&manifest, SCRIPT_PACKAGE).unwrap();
    let script_path = work.path().join("fuzz.rhai");
    let deadline = Instant::now() + Duration::from_secs_f64(seconds());
    let (mut runs, mut ok, mut refused) = (0u64, 0u64, 0u64);
    while Instant::now() < deadline {
        let text = script(&mut rng);
        std::fs::write(&script_path, &text).unwrap();
        runs += 1;
        let files = vec![
            (manifest.clone(), SCRIPT_PACKAGE.to_string()),
            (script_path.clone(), text),
        ];
        guarded(&format!("script-{runs}"), &files, || {
            let loaded = match servitor::load(&work.path().display().to_string()) {
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
            match servitor::script::run_procedure(&ruleset, "p", &[], runs) {
                Ok(_) => ok += 1,
                Err(servitor::script::RunError::Script(d)) => {
                    refused += 1;
                    let mut report = servitor::diagnostic::Report::default();
                    report.push(*d);
                    let _ = report.render(&ruleset.sources, false);
                }
                Err(servitor::script::RunError::Usage(u)) => panic!("usage error: {u}"),
            }
        });
    }
    eprintln!("fuzz script: {runs} generated scripts, {ok} ran to the end, {refused} stopped with a diagnostic");
    assert!(runs > 20, "only {runs} runs");
}
