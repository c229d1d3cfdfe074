//! Manual dice at the table (`servitor play --dice manual`, issue 22 items 3 and 4), from a
//! pipe as a player types, on `tests/games/skirmish-dice` (a command that rolls 2d6+4, then a
//! d12 table twice): each die is preceded by a line saying what it is for (the roll, its place in
//! it, the table, the phase or trigger rolling it); several faces go on one line; `auto`
//! rolls this die, `auto roll` the rest of the roll, `auto all` the rest of the command;
//! `help` at a prompt helps; a face the die does not have is refused and asked again. And a
//! resumed game: no package needed, `--dice manual` switches to the player's dice.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn every_die_says_what_it_is_for_and_takes_several_faces_auto_and_help() {
    // `scan` rolls 2d6+4, then twice a d12 on the table `row` (tests/games/skirmish-dice).
    // First scan: `help`; both d6 and the first d12 on one line; `x` is no face; `auto roll`
    // rolls that d12 (a roll of one die). Second scan: `auto roll` at the first d6 rolls both,
    // 4 answers a d12, `auto all` rolls the rest of the command.
    let input = "scan\nhelp\n3 2 7\nx\nauto roll\nscan\nauto roll\n4\nauto all\nquit\n";
    let (stdout, stderr, code) = play_in(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "play",
            "tests/games/skirmish-dice",
            "--mission",
            "hall-fight",
            "--seed",
            "2",
            "--dice",
            "manual",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2d6+4: 3 + 2 + 4 = 9"), "{stdout}");
    assert!(
        stdout.contains("d12: 7 → row") && stdout.contains("d12: 4 → row"),
        "{stdout}"
    );
    assert_eq!(stderr.matches("2d6+4, die 2 of 2").count(), 1, "{stderr}");
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
/// folder); `--resume FILE --dice manual` switches a game saved before its first command to
/// the player's dice, and asking for the other way of rolling once a command is played is
/// refused (exit 2) with why, the save left as it was.
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

    // A bundled game's save is found again by the package's name.
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
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(crusade).unwrap()).unwrap();
    assert!(
        saved.get("found_at").is_none(),
        "a bundled package is found by its name: {saved}"
    );
    let (stdout, stderr, code) = play_in(dir.path(), &["play", "--resume", crusade], "quit\n");
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("space-crusade-solo · mission reactor-strike"),
        "{stdout}"
    );

    // A game saved before its first command, with servitor's dice, goes on with the player's.
    let dice = dir.path().join("dice.json");
    let dice = dice.to_str().unwrap();
    let start = [
        "play",
        "tests/games/skirmish-dice",
        "--mission",
        "hall-fight",
        "--seed",
        "2",
        "--save",
        dice,
    ];
    assert_eq!(play_in(checkout, &start, "quit\n").2, 0);
    let (stdout, stderr, code) = play_in(
        dir.path(),
        &["play", "--resume", dice, "--dice", "manual"],
        "scan\n3 2\nauto all\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("dice: manual from now on"), "{stdout}");
    assert!(stdout.contains("dice manual"), "{stdout}");
    assert!(stderr.contains("2d6+4, die 1 of 2"), "{stderr}");
    assert!(stdout.contains("2d6+4: 3 + 2 + 4 = 9"), "{stdout}");
    let before = std::fs::read_to_string(dice).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(saved["manual_dice"], true);
    // It resumes to the same game, its dice from the save.
    let (_, stderr, code) = play_in(dir.path(), &["play", "--resume", dice], "quit\n");
    assert_eq!(code, 0, "{stderr}");

    // Once commands are played, `--dice` switches from the next command on, as the `dice`
    // command does: the save keeps the switch as a command, and the game up to it is the same.
    let (stdout, stderr, code) = play_in(
        dir.path(),
        &["play", "--resume", dice, "--dice", "auto"],
        "status\nquit\n",
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("dice: auto from now on"), "{stdout}");
    let after: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dice).unwrap()).unwrap();
    let lines: Vec<&str> = after["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_str().unwrap())
        .collect();
    assert_eq!(lines.last(), Some(&"dice auto"), "{after}");
    assert_eq!(
        after["entries"][0], saved["entries"][0],
        "the commands before it are kept as played"
    );
    // And back: `dice manual` typed at the table.
    let (stdout, stderr, code) = play_in(
        dir.path(),
        &["play", "--resume", dice],
        "dice manual\ndice manual\nquit\n",
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("dice: manual from the next command on"), "{stdout}");
    assert!(stdout.contains("refused: the dice are manual already"), "{stdout}");
}

/// The session's title comes first, before any die the set-up asks for: Space Hulk's set-up
/// rolls the squad's command points. Read as a player's terminal shows it, both streams in
/// one.
#[test]
fn the_title_comes_before_the_set_ups_first_die() {
    let servitor = env!("CARGO_BIN_EXE_servitor");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf '4\\nquit\\n' | '{servitor}' play space-hulk-solo --mission breach-run --seed 11 --dice manual 2>&1"
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .output()
        .expect("sh runs");
    let both = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{both}");
    let mut lines = both.lines();
    assert_eq!(
        lines.next(),
        Some("servitor play · space-hulk-solo · mission breach-run · seed 11 · you play marine · dice manual"),
        "{both}"
    );
    // The set-up's events before the die are shown before it is asked.
    let die = both.find("rolled for setup").expect("the set-up's die");
    assert!(both.find("blip-2 comes on").is_some_and(|k| k < die), "{both}");
    assert!(lines.next() == Some("Setup"), "{both}");
    assert!(both.contains("d6: 4 (the squad's command points)"), "{both}");
}

/// `play` read through one pipe, both streams in it as a terminal shows them.
fn play_through_a_pipe(args: &str, input: &str) -> String {
    let servitor = env!("CARGO_BIN_EXE_servitor");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '{input}' | '{servitor}' play {args} 2>&1"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .output()
        .expect("sh runs");
    let both = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{both}");
    both
}

/// With real dice, a die the enemy's turn rolls is asked where the rules roll it: after the
/// events before it have been shown, never before, and its prompt says whose roll it is and
/// what it decides; a tie the rules leave to a die is a die the player rolls too.
#[test]
fn a_die_is_asked_after_the_events_before_it_and_says_what_it_is_for() {
    let both = play_through_a_pipe(
        "space-hulk-solo --mission breach-run --seed 11 --dice manual",
        &format!("4\\nend\\n{}quit\\n", "3\\n".repeat(12)),
    );
    let at = |text: &str| {
        both.find(text)
            .unwrap_or_else(|| panic!("`{text}` is not in the output:\n{both}"))
    };
    // The blip's move is shown before the brood test it leads to is asked for …
    assert!(
        at("1. blip-2 moves 3 squares") < at("d6 for the brood test in junction"),
        "{both}"
    );
    // … and the die's result after its prompt.
    assert!(
        at("d6 for the brood test in junction") < at("⚄ d6: 3 (the brood test in junction)"),
        "{both}"
    );
    // A tie among equals, rolled by the player: the die's faces and what each one picks.
    assert!(both.contains("for blip-2's pick among equals: 1 marine-"), "{both}");
    assert!(both.contains("roll a d5 (a d6, again on 6 or more)"), "{both}");
}

/// `--pace activation` shows the enemy's turn one piece at a time: Enter shows the next.
#[test]
fn pace_activation_waits_for_enter_between_two_pieces() {
    let both = play_through_a_pipe(
        "space-hulk-solo --mission breach-run --seed 11 --pace activation",
        "end\\n\\nauto\\n\\n\\n\\n\\n\\nquit\\n",
    );
    let pause = "(Enter: the next activation · all: the rest of the turn)";
    let first = both.find(pause).unwrap_or_else(|| panic!("no pause:\n{both}"));
    let turn = both.find("Turn 1 · alien").expect("the alien turn");
    assert!(turn < first, "{both}");
    // One piece's steps before the pause, another's after it.
    let before = &both[turn..first];
    let after = &both[first..];
    let piece_of = |text: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(". blip-"))
            .and_then(|l| l.split(". ").nth(1))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
    };
    let (a, b) = (piece_of(before), piece_of(after));
    assert!(a.is_some() && b.is_some() && a != b, "{a:?} then {b:?}:\n{both}");
    // The same turn with `pace turn` has no pause.
    let all = play_through_a_pipe("space-hulk-solo --mission breach-run --seed 11", "end\\nquit\\n");
    assert!(!all.contains(pause), "{all}");
}
