//! Behaviour scenarios as data: each `tests/games/scenarios/*.rhai` lays out a board, forces
//! the dice and plays functions (see `servitor scenario --help`); the log a player would read
//! is snapshotted. One scenario per rule clause the behaviours implement.

use std::process::Command;

#[test]
fn every_scenario_plays_as_recorded() {
    insta::glob!("games/scenarios/*.rhai", |path| {
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["scenario", path.to_str().unwrap()])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}:\n{stderr}", path.display());
        insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
    });
}

/// Scenarios that must fail: each `tests/games/refused/*.rhai` does what a script may not (write
/// to a record or a piece's view, read a field a record lacks); the error it stops with, at
/// its line, is snapshotted.
#[test]
fn every_refused_scenario_stops_at_its_line() {
    insta::glob!("games/refused/*.rhai", |path| {
        let relative = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["scenario", relative.to_str().unwrap()])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(1), "{}", path.display());
        insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr));
    });
}

/// A procedure's result that holds records (one, a list of them, a copy) is the JSON of the
/// maps they read as, as when `record` gave maps.
#[test]
fn records_returned_by_a_procedure_are_their_maps() {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["run", "tests/games/handles", "out", "--seed", "1", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn a_refused_move_points_at_the_script_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad-move.rhai");
    let skirmish = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/skirmish");
    std::fs::write(
        &file,
        format!(
            "// package: {}\n// mission: hall-fight\n\nfn scenario(game) {{\n    game.place(\"scout\", \"hunters\", \"1,1\");\n    game.move_path(\"scout-1\", [\"2,1\", \"2,3\"]);\n}}\n",
            skirmish.display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["scenario", file.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("2,3 is not next to 2,1"), "{stderr}");
    // The refused move changed nothing: scout-1 never moved.
    assert!(!stderr.contains("scout-1 moves"), "{stderr}");
}

#[test]
fn a_closure_that_races_its_chain_is_told_how_to_fix_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["run", "tests/games/racy", "racy"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("scripts/r.rhai"), "{stderr}");
    assert!(stderr.contains("put the chain's start in a variable first"), "{stderr}");
}
