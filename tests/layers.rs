//! The code map's layering rules, checked on the source (src/README.md, "Invariants"):
//! - the game kernel (`src/game/*.rs` but the host, which runs the engine) knows no Rhai and
//!   imports nothing of the script host (`src/script/`);
//! - the binding (`src/game/api/`) never acts on a game itself: every change goes through a
//!   kernel method, so the log, saves, undo and `why` see one way in;
//! - the engine knows no game: no name of a bundled game, faction, unit or weapon in `src/`,
//!   its code or its code map.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, deep: bool) -> Vec<PathBuf> {
    files_ending(dir, deep, &["rs"])
}

/// Files under `dir` (and its folders, when `deep`) whose extension is one of `extensions`.
fn files_ending(dir: &Path, deep: bool, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if deep {
                files.extend(files_ending(&path, true, extensions));
            }
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn src(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Lines of `file` holding `needle`, as "file:line: text".
fn lines_with(file: &Path, needle: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(n, l)| format!("{}:{}: {}", file.display(), n + 1, l.trim()))
        .collect()
}

/// The kernel's files: `src/game/*.rs` but the host.
fn kernel() -> Vec<PathBuf> {
    let kernel: Vec<PathBuf> = rust_files(&src("src/game"), false)
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "host.rs"))
        .collect();
    assert!(kernel.len() >= 10, "{kernel:?}");
    kernel
}

#[test]
fn the_game_kernel_knows_no_rhai() {
    let found: Vec<String> = kernel().iter().flat_map(|f| lines_with(f, "rhai")).collect();
    assert!(
        found.is_empty(),
        "the kernel speaks Rhai; convert in src/game/api/ instead:\n{}",
        found.join("\n")
    );
}

/// Nor does it import anything of the script host (`src/script/`): what both need — a run's
/// log lines (`steps`), what runs spent (`limits::Spent`), values in words (`value`) — lives
/// below both, and a stream of dice is handed to the kernel as the `Rng` it is.
#[test]
fn the_game_kernel_imports_nothing_of_the_script_host() {
    let found: Vec<String> = kernel()
        .iter()
        .flat_map(|f| {
            let mut lines = lines_with(f, "script::");
            lines.extend(lines_with(f, "crate::script"));
            lines.extend(lines_with(f, "super::script"));
            lines
        })
        .collect();
    assert!(
        found.is_empty(),
        "the kernel uses the script host; move what it needs below both:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_binding_never_acts_itself() {
    let binding = rust_files(&src("src/game/api"), true);
    assert!(binding.len() >= 8, "{binding:?}");
    let found: Vec<String> = binding
        .iter()
        .flat_map(|f| {
            let mut hits = lines_with(f, ".act(");
            hits.extend(lines_with(f, "state::Action"));
            hits.extend(lines_with(f, "game::Action"));
            hits.extend(lines_with(f, ".queue("));
            hits
        })
        .collect();
    assert!(
        found.is_empty(),
        "the binding changes the game itself; add a kernel method on Game:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_engine_knows_no_game() {
    // Names the bundled games give their rulesets, factions, units and weapons (the generic
    // words a sci-fi game shares, "alien" or "marine", are not on the list).
    let names = [
        "space crusade",
        "space-crusade",
        "space hulk",
        "space-hulk",
        "starquest",
        "solo heresy",
        "solo-heresy",
        "genestealer",
        "terminator",
        "gretchin",
        "dreadnought",
        "bolter",
        "storm bolter",
        "assault cannon",
        "heavy flamer",
        "chaos marine",
        "android",
        "librarian",
    ];
    // The code and the code map beside it.
    let found: Vec<String> = files_ending(&src("src"), true, &["rs", "md"])
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap().to_lowercase();
            names
                .iter()
                .filter(|n| text.contains(*n))
                .map(|n| format!("{}: {n}", f.display()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "a game's name in the engine; it belongs in rulesets/:\n{}",
        found.join("\n")
    );
}
