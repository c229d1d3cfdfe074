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

/// `--explain` lists every random draw and a `// dice:` line forcing them all: pasted in place
/// of the scenario's own, it plays the same game (a forced value moves the stream as the draw
/// it replaces), and a value forced by kind and stream changes only the draw it names.
#[test]
fn explain_gives_a_dice_line_that_plays_the_same_game() {
    let run = |path: &std::path::Path, explain: bool| {
        let mut args = vec!["scenario", path.to_str().unwrap()];
        if explain {
            args.push("--explain");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let original = root.join("tests/games/scenarios/hulk-placement-ladder.rhai");
    let explained = run(&original, true);
    assert!(explained.contains("tie@four_blips=1"), "{explained}");
    assert!(explained.contains("random@four_blips=4"), "{explained}");
    let line = explained
        .lines()
        .find(|l| l.starts_with("// dice: "))
        .expect("a dice line");
    let text = std::fs::read_to_string(&original).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pasted = dir.path().join("pasted.rhai");
    let header: String = text
        .lines()
        .map(|l| if l.starts_with("// dice:") { line } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&pasted, header).unwrap();
    assert_eq!(run(&pasted, false), run(&original, false));
    // One tie forced alone, the dice left to the seed: only that tie's choice changes.
    let tie_only: String = text
        .lines()
        .map(|l| {
            if l.starts_with("// dice:") {
                "// dice: 3 5 6 1 tie@four_blips=2"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&pasted, tie_only).unwrap();
    let tied = run(&pasted, true);
    assert!(tied.contains("tie@four_blips=2") && tied.contains("(forced)"), "{tied}");
    assert!(tied.contains("random@four_blips=4"), "{tied}");
}

#[test]
fn a_bad_forced_value_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/games/scenarios/hulk-placement-ladder.rhai")).unwrap();
    for (dice, expect) in [
        ("// dice: 3 5 6 1 tie@four_blips=7", "given to a draw among 2"),
        ("// dice: 3 5 6 1 coin@four_blips=1", "`coin` is not a kind of draw"),
        ("// dice: 3 5 6 1 coin=1", "@coin=1 left over"),
        ("// dice: 3 5 6 1 tie@nowhere=1", "left over"),
    ] {
        let file = dir.path().join("bad.rhai");
        let body: String = text
            .lines()
            .map(|l| if l.starts_with("// dice:") { dice } else { l })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&file, body).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["scenario", file.to_str().unwrap()])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code().map(|c| c != 0), Some(true), "{dice}");
        assert!(stderr.contains(expect), "{dice}: {stderr}");
    }
}

/// `// turn: N` plays the calls in turn N (issue 38: every scenario call was turn 1): the
/// phase line and `game.turn()` say 3; a turn under 1 is refused at its line.
#[test]
fn a_scenario_sets_the_turn_its_calls_play_in() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("turn.rhai");
    let scenario = |turn: &str| {
        std::fs::write(
            &file,
            format!(
                "// package: space-hulk-solo\n// mission: breach-run\n// turn: {turn}\n// call: says_turn\n\nfn scenario(game) {{}}\n\nfn says_turn(game) {{\n    game.say(`this is turn ${{game.turn()}}`, \"test\");\n}}\n"
            ),
        )
        .unwrap();
        Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["scenario", file.to_str().unwrap()])
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let out = scenario("3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Turn 3 ·"), "{stdout}");
    assert!(stdout.contains("this is turn 3"), "{stdout}");
    let out = scenario("0");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(":3: `turn:` takes a whole number from 1"), "{stderr}");
}

/// `scenario --json` carries the fields `game --json` does (issue 35 item 4): every move its
/// `from` and `to`, every door opened, removal and exit by a piece its `at`, every damage its
/// `target`. Checked on every scenario and on one game of a bundled package.
#[test]
fn scenario_json_carries_the_fields_game_json_does() {
    // `at` is a square: a battlefield's pieces stand on points (in `action`).
    fn unlocated(events: &serde_json::Value, squares: bool) -> Vec<String> {
        let mut missing = Vec::new();
        for e in events.as_array().expect("a list of events") {
            let Some(action) = e.get("action").and_then(|a| a.get("do")).and_then(|d| d.as_str()) else {
                continue;
            };
            let needs: &[&str] = match action {
                "move" => &["from", "to", "path"],
                "door" | "remove" | "leave" if squares && e.get("piece").is_some() => &["at"],
                "damage" => &["target", "damage"],
                _ => &[],
            };
            for field in needs.iter().filter(|f| e.get(**f).is_none()) {
                missing.push(format!("a `{action}` event without `{field}`: {}", e["text"]));
            }
        }
        missing
    }
    let json = |args: &[&str]| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let mut moves = 0;
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/games/scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rhai") {
            continue;
        }
        let events = json(&["scenario", path.to_str().unwrap(), "--json"]);
        moves += events
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "move")
            .count();
        let battlefield = std::fs::read_to_string(&path)
            .unwrap()
            .contains("// package: solo-heresy");
        let missing = unlocated(&events, !battlefield);
        assert!(missing.is_empty(), "{}:\n{}", path.display(), missing.join("\n"));
    }
    assert!(moves > 50, "the scenarios move pieces ({moves} moves)");
    let game = json(&[
        "game",
        "space-hulk-solo",
        "--mission",
        "breach-run",
        "--seed",
        "5",
        "--json",
    ]);
    let missing = unlocated(&game["events"], true);
    assert!(missing.is_empty(), "game --json:\n{}", missing.join("\n"));
}

/// A scenario's `// package:` is found from the scenario's own folder, whichever folder
/// servitor runs in (issue 38: a scenario in a subfolder needed `../x`, a bare name failed):
/// a relative path from the scenario; a bare name beside a folder above it, or the package
/// folder the scenario sits in; a bundled name from anywhere.
#[test]
fn a_scenario_finds_its_package_from_its_own_folder() {
    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let skirmish = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/skirmish");
    copy_dir(&skirmish, &root.join("my-variant"));
    let body = "// mission: hall-fight\n\nfn scenario(game) {\n    game.place(\"scout\", \"hunters\", \"1,1\");\n}\n";
    let cases = [
        // (scenario file, its package line, the folder servitor runs in)
        ("scenarios/sub/relative.rhai", "../../my-variant", "scenarios"),
        ("scenarios/sub/beside.rhai", "my-variant", "scenarios/sub"),
        ("my-variant/scenarios/inside.rhai", "my-variant", "my-variant/scenarios"),
    ];
    for (file, package, _) in cases {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("// package: {package}\n{body}")).unwrap();
    }
    for (file, package, cwd) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .args(["scenario", root.join(file).to_str().unwrap()])
            .current_dir(root.join(cwd))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{file} (`{package}`, run in {cwd}):\n{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("scout-1: Scout (scout) (hunters) placed on 1,1"),
            "{stdout}"
        );
    }
    // A bundled package by its bare name, from a subfolder, run in that subfolder.
    let path = root.join("scenarios/sub/bundled.rhai");
    std::fs::write(
        &path,
        "// package: space-hulk-solo\n// mission: breach-run\n// from: setup\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["scenario", "bundled.rhai"])
        .current_dir(root.join("scenarios/sub"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
