//! Space Crusade played whole (issue 6 and 7): every mission of `space-crusade-solo` plays to
//! its end with no script error and both sides winning some games; a seed replays a game
//! byte for byte; a variant's script replaces one Alien behaviour; and a person playing the
//! Marines at a table from a pipe never learns what a face-down blip is before it is seen.

use std::io::Write;
use std::process::{Command, Stdio};

fn servitor(args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
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

fn ok(args: &[&str]) -> String {
    let (stdout, stderr, code) = servitor(args, "");
    assert_eq!(code, 0, "servitor {args:?} failed:\n{stderr}");
    stdout
}

#[test]
fn every_mission_plays_to_the_end_and_either_side_can_win() {
    for mission in ["reactor-strike", "stranded", "purge"] {
        for style in ["cautious", "bold"] {
            let json = ok(&[
                "sim",
                "space-crusade-solo",
                "--mission",
                mission,
                "--games",
                "40",
                "--set",
                &format!("marine-style={style}"),
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let what = format!("{mission}, {style}: {json}");
            assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{what}");
            assert!(
                v["outcomes"]["marine"].as_u64().unwrap() > 0,
                "the Marines never win: {what}"
            );
            assert!(
                v["outcomes"]["alien"].as_u64().unwrap() > 0,
                "the Alien never wins: {what}"
            );
            // Every game ends by the rules, none by the turn limit.
            assert_eq!(v["outcomes"]["none"].as_u64(), Some(0), "{what}");
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let args = [
        "game",
        "space-crusade-solo",
        "--mission",
        "stranded",
        "--seed",
        "11",
        "--json",
    ];
    let first = ok(&args);
    assert_eq!(first, ok(&args));
    let other = ok(&[
        "game",
        "space-crusade-solo",
        "--mission",
        "stranded",
        "--seed",
        "12",
        "--json",
    ]);
    assert_ne!(first, other, "a different seed should play a different game");
}

#[test]
fn a_variant_replaces_one_alien_behaviour() {
    let base = ok(&["game", "space-crusade-solo", "--mission", "purge", "--seed", "5"]);
    let variant = ok(&[
        "game",
        "examples/variants/commander-hunters",
        "--mission",
        "purge",
        "--seed",
        "5",
    ]);
    assert!(!base.contains("singles out the Commander"), "{base}");
    assert!(variant.contains("singles out the Commander"), "{variant}");
}

#[test]
fn at_the_table_blips_stay_secret_until_seen() {
    let input = "enter commander 6,1\nmove commander 6,2 6,3\nstatus\nend\nstatus\nquit\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "3",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("a token drawn at random from blips"), "{stdout}");
    assert!(stdout.contains("pool blips: "), "{stdout}");
    // The identities of the blip tokens are in the mission; none may show before a reveal.
    for line in stdout.lines() {
        if line.contains("blips") {
            for alien in ["gretchin", "ork", "android", "genestealer", "chaos", "dreadnought"] {
                assert!(!line.contains(alien), "a blip's identity leaked: {line}");
            }
        }
    }
}

#[test]
fn a_game_saved_mid_way_and_resumed_equals_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, phases) in [("2", "3"), ("9", "8")] {
        let save = dir.path().join(format!("g{seed}.json"));
        let save = save.to_str().unwrap();
        let start = [
            "game",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            seed,
        ];
        let whole = ok(&[&start[..], &["--json"]].concat());
        ok(&[&start[..], &["--phases", phases, "--save", save]].concat());
        let resumed = ok(&["game", "space-crusade-solo", "--resume", save, "--json"]);
        assert_eq!(resumed, whole, "seed {seed}, saved after {phases} phases");
    }
}

#[test]
fn sim_gives_the_same_report_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let json = ok(&[
            "sim",
            "space-crusade-solo",
            "--mission",
            "stranded",
            "--games",
            "24",
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

/// A whole mission at the table from a pipe, first Marine move to final score: the squad
/// boards through both claws (scanning two sections), opens a door, the Alien plays its turn
/// as numbered instructions, a mistyped command is refused with a suggestion and changes
/// nothing, and the squad leaves through the claws; the transcript is what a player reads.
#[test]
fn a_whole_mission_at_the_table_reads_as_a_transcript() {
    let input = "enter commander 6,1\nenter marine-1 7,1\nenter marine-2 24,4\nenter marine-3 24,5\n\
                 open marine-3 24,6\nfier marine-2 plasma-gun\nevent rerol\nevent reroll\nend\nleave commander\nleave marine-1\n\
                 leave marine-2\nleave marine-3\nenter marine-4 6,1\nend\nstatus\nleave marine-4\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("The game is over"), "{stdout}");
    insta::assert_snapshot!(stdout);
}
