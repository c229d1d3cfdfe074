//! The Solo Heresy played whole (issue 18): every mission type plays to its end with no
//! script error and both sides winning some games; a seed replays a game byte for byte; a
//! game saved mid-way resumes to the same end; sims agree across jobs; and a player at the
//! table plays from a pipe to the end, the battlefield drawn in inches.

mod common;
use common::{ok, servitor};

const MISSIONS: [&str; 4] = ["exterminatus", "raid", "victory-or-death", "eye-of-terror"];

#[test]
fn every_mission_type_plays_to_the_end_and_either_side_can_win() {
    for mission in MISSIONS {
        let json = ok(&["sim", "solo-heresy", "--mission", mission, "--games", "40", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let what = format!("{mission}: {json}");
        assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{what}");
        assert!(
            v["outcomes"]["player"].as_u64().unwrap() > 0,
            "the player never wins: {what}"
        );
        assert!(
            v["outcomes"]["enemy"].as_u64().unwrap() > 0,
            "the enemy never wins: {what}"
        );
    }
}

#[test]
fn the_options_play_too() {
    for set in [
        "challenge=roll",
        "challenge=creeping-barrage",
        "challenge=late-mobilisation",
        "challenge=mined-ground",
        "challenge=turncoat",
        "battlefield-events=no",
        "player-style=bold",
        "battlefield=listening-post",
        "berserk-halt=target-only",
        "spawn-fall-back=stops",
        "vod-hands=top-up",
    ] {
        // Victory or Death's hands only matter in that mission.
        let mission = if set.starts_with("vod-hands") {
            "victory-or-death"
        } else {
            "raid"
        };
        let json = ok(&[
            "sim",
            "solo-heresy",
            "--mission",
            mission,
            "--games",
            "12",
            "--set",
            set,
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{set}: {json}");
    }
}

#[test]
fn the_same_seed_plays_the_same_game_and_points_are_in_the_log() {
    let args = ["game", "solo-heresy", "--mission", "raid", "--seed", "11", "--json"];
    let first = ok(&args);
    assert_eq!(first, ok(&args));
    let other = ok(&["game", "solo-heresy", "--mission", "raid", "--seed", "12", "--json"]);
    assert_ne!(first, other, "a different seed should play a different game");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let events = v["events"].as_array().unwrap();
    let uses = events.iter().any(|e| e["action"]["do"] == "use-battlefield");
    let walks = events
        .iter()
        .any(|e| e["action"]["do"] == "walk" && e["action"]["route"][0]["x"].is_number());
    let stands = events
        .iter()
        .any(|e| e["action"]["do"] == "stand" && e["action"]["point"]["y"].is_number());
    assert!(
        uses && walks && stands,
        "the log carries the battlefield, walks and points"
    );
}

#[test]
fn a_game_saved_mid_way_and_resumed_equals_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, phases) in [("2", "3"), ("9", "8")] {
        let save = dir.path().join(format!("g{seed}.json"));
        let save = save.to_str().unwrap();
        let start = ["game", "solo-heresy", "--mission", "eye-of-terror", "--seed", seed];
        let whole = ok(&[&start[..], &["--json"]].concat());
        ok(&[&start[..], &["--phases", phases, "--save", save]].concat());
        let text = std::fs::read_to_string(save).unwrap();
        assert!(
            text.contains("\"battlefield\":\"ashfall-ruins\""),
            "the save keeps the battlefield"
        );
        assert!(text.contains("\"point\":{"), "the save keeps the pieces' points");
        let resumed = ok(&["game", "solo-heresy", "--resume", save, "--json"]);
        assert_eq!(resumed, whole, "seed {seed}, saved after {phases} phases");
    }
}

#[test]
fn sim_gives_the_same_report_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let json = ok(&[
            "sim",
            "solo-heresy",
            "--mission",
            "exterminatus",
            "--games",
            "16",
            "--seed",
            "3",
            "--jobs",
            jobs,
            "--json",
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v.as_object_mut().unwrap().remove("timing");
        v
    };
    assert_eq!(run("1"), run("2"));
}

/// A player at the table from a pipe: the battlefield drawn with the units lettered and the
/// spawn markers, a move to a point, moves refused (off the table, within 1" of an enemy)
/// that change nothing, servitor rolling a shooting, then `end` turn after turn until the
/// game is over. The game asks the player (Overwatch, a Battlefield Event's unit): each
/// command is followed by `auto` answers, servitor's (an `auto` left over at the command
/// prompt is refused and changes nothing; a command given to a question is asked again).
#[test]
fn a_whole_game_at_the_table_from_a_pipe() {
    let answers = "auto\n".repeat(4);
    let mut input = answers.clone();
    for command in [
        "board",
        "move warden-line-squad-2 30,34",
        "move warden-line-squad-2 100,20",
        "move warden-captain-1 21,41",
        "shoot warden-line-squad-2 rust-rabble-1",
    ] {
        input.push_str(&format!("{command}\n{answers}"));
    }
    for _ in 0..30 {
        input.push_str(&format!("end\n{answers}"));
    }
    let (stdout, stderr, code) = servitor(&["play", "solo-heresy", "--mission", "raid", "--seed", "2"], &input);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("warden-line-squad-2 moves 10.0\": (36.0, 42.0) → (30.0, 34.0) (your move)"),
        "{stdout}"
    );
    assert!(stdout.contains("refused: 100.0,20.0 is off the table"), "{stdout}");
    // No move ends within 1" of an enemy unit outside a charge (7th edition).
    assert!(
        stdout.contains("from rust-warboss-1: outside a charge a unit ends its move at least 1\" from enemy units"),
        "{stdout}"
    );
    // The spawn markers thrown in setup are drawn, small letters after the units.
    assert!(stdout.contains("a spawn-1 at (22.0, 14.0)"), "{stdout}");
    assert!(
        stdout.contains("warden-line-squad-2 fires at rust-rabble-1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("H warden-line-squad-2 (player) at (36.0, 42.0)"),
        "{stdout}"
    );
    assert!(stdout.contains("The game is over"), "{stdout}");
    // Overwatch is the player's to fire or hold: asked when an enemy unit charges.
    assert!(
        stdout.contains("fire Overwatch (snap shots, once a turn) at it?"),
        "{stdout}"
    );
}

/// Your own army is a small package over `solo-heresy`: its units and army are checked at
/// load like every package (a misspelt weapon is an error at its file:line:col with a
/// suggestion), and the game plays it with `--set player-army=…`; an enemy army outside
/// 100-125 % of yours is refused with the numbers.
#[test]
fn your_own_army_is_a_small_package() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("my-army");
    std::fs::create_dir(&mine).unwrap();
    let roster = |weapon: &str| {
        format!(
            "package my-army \"My own army\" {{\n  extends solo-heresy\n}}\n\n\
             unit my-veterans \"Veterans\" {{\n  models 10; wounds 1; life 10; base 4; move 6\n  \
             ws 4; bs 4; strength 4; toughness 4; initiative 4; attacks 2; leadership 9; save 3; melee-ap 7\n  \
             weapons [{weapon}]; points 200\n}}\n\n\
             army my-list \"My list\" {{\n  units [warden-captain, my-veterans, my-veterans, warden-fire-team]\n}}\n"
        )
    };
    std::fs::write(mine.join("package.rules"), roster("boltgn")).unwrap();
    let path = mine.to_str().unwrap();
    let (_, stderr, code) = servitor(&["check", path], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("package.rules:5:1"), "{stderr}");
    assert!(stderr.contains("did you mean `boltgun`?"), "a suggestion: {stderr}");

    std::fs::write(mine.join("package.rules"), roster("boltgun")).unwrap();
    let out = ok(&[
        "game",
        path,
        "--mission",
        "raid",
        "--seed",
        "4",
        "--set",
        "player-army=my-list",
    ]);
    assert!(out.contains("Your army, My list: 600 points"), "{out}");
    assert!(out.contains("my-veterans-2"), "{out}");

    let (_, stderr, code) = servitor(
        &[
            "game",
            path,
            "--mission",
            "raid",
            "--seed",
            "4",
            "--set",
            "player-army=rustborn-host",
            "--set",
            "enemy-army=my-list",
        ],
        "",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("the enemy army my-list has 600 points"), "{stderr}");
}
