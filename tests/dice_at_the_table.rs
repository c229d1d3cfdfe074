//! Manual dice at the table (`servitor play --dice manual`, issue 22 item 3), from a pipe as a
//! player types: each die is preceded by a line saying what it is for (the roll, its place in
//! it, the table, the phase or trigger rolling it); several faces go on one line; `auto`
//! rolls this die, `auto roll` the rest of the roll, `auto all` the rest of the command;
//! `help` at a prompt helps; a face the die does not have is refused and asked again.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn every_die_says_what_it_is_for_and_takes_several_faces_auto_and_help() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args([
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ])
        .args(["--dice", "manual", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The scan's 2d6+4: `help`, then both dice and the first blip's row on one line; `x` is no
    // face; `auto roll` rolls that d12 (a roll of one die); 5 answers the next; `auto all`
    // rolls every other die of the command.
    let input = "enter commander 6,1\nhelp\n3 2 7\nx\nauto roll\n5\nauto all\nquit\n";
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("2d6+4: 3 + 2 + 4 = 9"), "{stdout}");
    assert!(stdout.contains("d12: 7"), "{stdout}");
    insta::assert_snapshot!(stderr);
}

fn play_in(dir: &std::path::Path, args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `--resume FILE` needs no package (the save knows where it was played from, from any
/// folder); `--resume FILE --dice manual` switches a game played with servitor's dice to the
/// player's, and `--dice auto` on a game whose dice were typed is refused (exit 2), the save
/// left as it was.
#[test]
fn a_resumed_game_knows_its_package_and_switches_to_manual_dice_or_says_why_not() {
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.json");
    let save = save.to_str().unwrap();
    let skirmish = checkout.join("tests/games/skirmish");
    let (_, stderr, code) = play_in(
        checkout,
        &[
            "play",
            "tests/games/skirmish",
            "--mission",
            "hall-fight",
            "--seed",
            "3",
            "--save",
            save,
        ],
        "quit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    // From another folder, without the package: the save's folder is found.
    let (stdout, stderr, code) = play_in(dir.path(), &["play", "--resume", save], "status\nquit\n");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("servitor play · skirmish · mission hall-fight · seed 3"),
        "{stdout}"
    );
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(save).unwrap()).unwrap();
    assert_eq!(
        saved["found_at"].as_str().map(std::path::PathBuf::from),
        Some(std::fs::canonicalize(&skirmish).unwrap())
    );

    // A bundled game, played with servitor's dice, goes on with the player's.
    let crusade = dir.path().join("crusade.json");
    let crusade = crusade.to_str().unwrap();
    let start = [
        "play",
        "space-crusade-solo",
        "--mission",
        "reactor-strike",
        "--seed",
        "2",
        "--save",
        crusade,
    ];
    assert_eq!(play_in(dir.path(), &start, "quit\n").2, 0);
    let (stdout, stderr, code) = play_in(
        dir.path(),
        &["play", "--resume", crusade, "--dice", "manual"],
        "enter commander 6,1\n3 2\nauto all\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("dice: manual from now on"), "{stdout}");
    assert!(stdout.contains("dice manual"), "{stdout}");
    assert!(stderr.contains("2d6+4, die 1 of 2"), "{stderr}");
    assert!(stdout.contains("2d6+4: 3 + 2 + 4 = 9"), "{stdout}");
    let before = std::fs::read_to_string(crusade).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(saved["manual_dice"], true);
    assert!(
        saved.get("found_at").is_none(),
        "a bundled package is found by its name: {before}"
    );

    // Back to servitor's dice: refused, and the save is untouched.
    let (stdout, stderr, code) = play_in(dir.path(), &["play", "--resume", crusade, "--dice", "auto"], "quit\n");
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("go on with --dice manual"), "{stderr}");
    assert_eq!(std::fs::read_to_string(crusade).unwrap(), before);
}
