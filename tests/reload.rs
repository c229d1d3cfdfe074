//! `reload` in `servitor play` (the package edited while a game is played), driven as a user
//! drives it: commands typed one batch at a time, the package edited between two batches.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A `servitor play` session in `dir`, fed a batch of lines at a time.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    out: String,
}

impl Session {
    fn start(dir: &Path, args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
            .arg("play")
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session {
            child,
            stdin,
            lines,
            out: String::new(),
        }
    }

    /// Types `batch`, and waits until every line of it has been played: a `sees` typed after
    /// it is echoed only once the commands before it are done.
    fn type_lines(&mut self, batch: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{batch}sees").unwrap();
        stdin.flush().unwrap();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no answer to {batch:?}; so far:\n{}", self.out));
            let done = line.ends_with("> sees");
            self.out.push_str(&line);
            self.out.push('\n');
            if done {
                // Its answer, one line.
                let answer = self.lines.recv_timeout(Duration::from_secs(60)).unwrap();
                self.out.push_str(&answer);
                self.out.push('\n');
                return;
            }
        }
    }

    /// Ends the input and waits for the end: the whole transcript and standard error.
    fn finish(mut self) -> (String, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.out.push_str(&line);
            self.out.push('\n');
        }
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(status.success(), "{err}");
        (self.out, err)
    }
}

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

/// A copy of the test game in a fresh folder, as `pkg`.
fn skirmish_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/skirmish"),
        &dir.path().join("pkg"),
    );
    dir
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} is not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn reload_replays_the_session_on_the_edited_package_and_keeps_the_game_when_it_differs() {
    let dir = skirmish_copy();
    let script = dir.path().join("pkg/scripts/skirmish.rhai");
    let mut s = Session::start(
        dir.path(),
        &["pkg", "--mission", "hall-fight", "--seed", "3", "--save", "s.json"],
    );
    s.type_lines("move hunter-1 2,1 3,1\nend\n");
    // An edit that changes nothing played: the same game goes on, with the edited package.
    edit(
        &script,
        "fn lurkers_turn(game) {",
        "// Edited while playing.\nfn lurkers_turn(game) {",
    );
    s.type_lines("reload\n");
    // An edit that changes the enemy's turn already played: said, and the game kept.
    edit(
        &script,
        "    let card = game.draw(\"omens\");",
        "    game.say(\"the lair stirs\", \"test fixture\");\n    let card = game.draw(\"omens\");",
    );
    s.type_lines("reload\n");
    // An edit that changes the set-up, where the player cannot see it (the omens' order).
    edit(&script, "game.say(\"the lair stirs\", \"test fixture\");\n", "");
    edit(
        &script,
        "[\"calm\", \"storm\", \"calm\"]",
        "[\"storm\", \"calm\", \"calm\"]",
    );
    s.type_lines("reload\n");
    // A package that no longer loads.
    edit(
        &script,
        "[\"storm\", \"calm\", \"calm\"]",
        "[\"storm\", \"calm\", \"calm\"",
    );
    s.type_lines("reload\n");
    // Put right: the session goes on, undo and redo and the save as before.
    edit(
        &script,
        "[\"storm\", \"calm\", \"calm\"",
        "[\"calm\", \"storm\", \"calm\"]",
    );
    // A unit's stats, which the pieces on the board carry.
    let rules = dir.path().join("pkg/package.rules");
    edit(
        &rules,
        "fighter scout \"Scout\"  { life 1; move 4 }",
        "fighter scout \"Scout\"  { life 2; move 4 }",
    );
    s.type_lines("reload\n");
    edit(
        &rules,
        "fighter scout \"Scout\"  { life 2; move 4 }",
        "fighter scout \"Scout\"  { life 1; move 4 }",
    );
    s.type_lines("reload\nundo\nredo\nmove hunter-2 2,2\n");
    let (out, err) = s.finish();
    insta::assert_snapshot!(out);
    assert!(err.contains("pkg/scripts/skirmish.rhai:"), "{err}");
    // The save resumes to the game played (on the package as it is now).
    let (again, err, code) = resume(dir.path());
    assert_eq!(code, 0, "{err}");
    assert!(again.contains("hunter-2 moves 1 square: 1,2 → 2,2"), "{again}");
}

#[test]
fn a_reload_that_gives_the_same_game_plays_on_with_the_edited_package() {
    let dir = skirmish_copy();
    let script = dir.path().join("pkg/scripts/skirmish.rhai");
    let mut s = Session::start(dir.path(), &["pkg", "--mission", "hall-fight", "--seed", "3"]);
    s.type_lines("move hunter-1 2,1 3,1\n");
    // The enemy's turn is not played yet: the edit changes the next one.
    edit(
        &script,
        "    let card = game.draw(\"omens\");",
        "    game.say(\"the lair stirs\", \"test fixture\");\n    let card = game.draw(\"omens\");",
    );
    s.type_lines("reload\nend\nundo\nend\n");
    let (out, _) = s.finish();
    assert!(
        out.contains("hunters turn 1> reload\nreloaded: 1 command replayed, the same game\n"),
        "{out}"
    );
    assert_eq!(out.matches("the lair stirs").count(), 2, "{out}");
}

fn resume(dir: &Path) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(["play", "--resume", "s.json"])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}
