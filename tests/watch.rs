//! `servitor scenario --watch`, driven as a modder drives it: the scenario plays, a file of the
//! package is edited while servitor watches, and it plays again on the edited package.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} is not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Runs `servitor scenario --watch` in `dir` for `edits.len() + 1` runs; after each run but the
/// last (when servitor says it watches), the next edit is made. (stdout, stderr).
fn watch(dir: &Path, scenario: &str, edits: Vec<Box<dyn FnOnce()>>) -> (String, String) {
    let runs = (edits.len() + 1).to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["scenario", "--watch", "--watch-runs", &runs, scenario])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut err = String::new();
    for edit in edits {
        loop {
            let line = lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("servitor never watched; stderr so far:\n{err}"));
            err.push_str(&line);
            err.push('\n');
            if line.starts_with("(watching ") {
                break;
            }
        }
        edit();
    }
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(10)) {
        err.push_str(&line);
        err.push('\n');
    }
    assert!(status.success(), "{err}");
    (out, err)
}

#[test]
fn watch_plays_the_scenario_again_on_each_edit_of_the_package_or_the_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/skirmish"),
        &pkg,
    );
    let scenario = pkg.join("fight.rhai");
    std::fs::write(
        &scenario,
        "// package: pkg\n// mission: hall-fight\n// dice: 2\n// call: hunters_turn lurkers_turn\n\
         fn scenario(game) {\n    game.new_deck(\"omens\", [\"calm\", \"calm\"]);\n    \
         game.place(\"scout\", \"hunters\", \"7,4\", #{ id: \"hunter-1\" });\n    \
         game.place_hidden(\"token\", \"brute\", \"lurkers\", \"9,4\");\n}\n",
    )
    .unwrap();
    let script = pkg.join("scripts/skirmish.rhai");
    let manifest = pkg.join("package.rules");
    let (s, sc, m) = (script.clone(), scenario.clone(), manifest.clone());
    let (out, err) = watch(
        dir.path(),
        "pkg/fight.rhai",
        vec![
            // A behaviour of the package changed: its words change in the second run.
            Box::new(move || edit(&s, "\" closes in on \"", "\" creeps up on \"")),
            // The scenario's forced die changed: the brute now hits.
            Box::new(move || edit(&sc, "// dice: 2", "// dice: 6")),
            // The package broken: the diagnostics, and the watch goes on to its last run.
            Box::new(move || edit(&m, "fighter scout", "fighter scout {")),
        ],
    );
    insta::assert_snapshot!("watch_stdout", out);
    insta::assert_snapshot!("watch_stderr", err);
}

#[test]
fn watch_of_a_scenario_that_is_not_there_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["scenario", "--watch", "missing.rhai"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: cannot read missing.rhai:"), "{err}");
}
