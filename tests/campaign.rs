//! Campaigns (the `campaign` item, `src/campaign/`), shown on the Exercise of Solitaire
//! StarQuest (seed 003, Playing an Exercise): each clause of the Exercise by the procedures that
//! run its hooks one mission at a time, pinned as snapshots; a whole campaign headless, the
//! same seed giving the same campaign and any number of jobs the same report; the campaign at
//! the table through a pipe, across a mission boundary, with the Alien's unseen tokens never
//! shown; and campaign files servitor did not write refused and left as they were. The
//! in-game half of the clauses (cards removed and tokens drawn at setup) is the scenario
//! `tests/games/scenarios/starquest-exercise-mission.rhai`; a campaign of every mission in a
//! release build is the README's `sim --campaign`, run by `tests/examples.rs`.

mod common;
use common::{ok, servitor};

/// One clause of the Exercise: the procedure and its args.
const CLAUSES: &[(&str, &str, &[&str])] = &[
    // After each mission, the Combat Effectiveness Table for both sides: the squad's points
    // and the Alien's each give their own row (table values: the project's, provisional).
    (
        "effectiveness-for-both-sides",
        "exercise-after",
        &["marine-points=45", "alien-points=85"],
    ),
    // Fewer points than the lowest row: nothing.
    (
        "effectiveness-nothing",
        "exercise-after",
        &["marine-points=-20", "alien-points=15"],
    ),
    // An outstanding mission gives a rank as well (up to the top).
    (
        "effectiveness-rank",
        "exercise-after",
        &["alien-rank=3", "alien-points=130", "marine-points=125"],
    ),
    // Four Marks of Chaos are traded for a rank at once, the rest kept.
    (
        "alien-trades-four-marks",
        "exercise-after",
        &["alien-marks=3", "alien-points=90"],
    ),
    // Eight Marks buy two ranks at once.
    (
        "alien-trades-twice",
        "exercise-after",
        &["alien-marks=6", "alien-points=90"],
    ),
    // Never to Lord of Chaos: one rank below the top the Marks are kept.
    (
        "marks-never-buy-lord-of-chaos",
        "exercise-after",
        &["alien-rank=3", "alien-marks=3", "alien-points=90"],
    ),
    // The squad's Honour Badges are the player's to spend: servitor keeps them.
    (
        "squad-keeps-its-badges",
        "exercise-after",
        &["marine-badges=3", "marine-points=90"],
    ),
    // Before a mission: the Alien's Rank table gives the cards removed, the Marks of Chaos
    // table the extra tokens drawn unseen.
    (
        "before-mission-unranked",
        "exercise-before",
        &["alien-rank=0", "alien-marks=0"],
    ),
    (
        "before-mission-ranked",
        "exercise-before",
        &["alien-rank=2", "alien-marks=3"],
    ),
    (
        "before-mission-lord-of-chaos",
        "exercise-before",
        &["alien-rank=4", "alien-marks=7"],
    ),
    // The five cards a rank may remove, picked at random.
    ("cards-removed-at-random", "exercise-cull", &["remove=2"]),
];

#[test]
fn each_exercise_clause_as_a_procedure() {
    for (name, procedure, args) in CLAUSES {
        let mut cmd = vec!["run", "starquest-solitaire", procedure, "--seed", "3"];
        for a in *args {
            cmd.push("--arg");
            cmd.push(a);
        }
        let out = ok(&cmd);
        insta::assert_snapshot!(format!("exercise-{name}"), out);
    }
}

#[test]
fn a_whole_campaign_plays_and_replays_by_seed() {
    let args = ["game", "starquest-solitaire", "--campaign", "--seed", "21", "--json"];
    let first = ok(&args);
    assert_eq!(first, ok(&args), "the same seed plays the same campaign");
    let c: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(c["format"], "servitor-campaign");
    let played = c["played"].as_array().unwrap();
    assert_eq!(played.len(), 12, "all twelve missions");
    for (k, p) in played.iter().enumerate() {
        assert_eq!(p["mission"], format!("mission-{}", k + 1), "in order");
        assert!(["marine", "alien"].contains(&p["result"]["winner"].as_str().unwrap()));
    }
    assert!(c["ended"].as_str().is_some(), "the campaign says how it ended");
    // Each mission is played with the options the Alien's rank and Marks give.
    let options = |k: usize| played[k]["options"].to_string();
    assert!(options(0).contains(r#"["exercise-cull","0"]"#), "{}", options(0));
    let other = ok(&["game", "starquest-solitaire", "--campaign", "--seed", "22", "--json"]);
    assert_ne!(first, other, "another seed, another campaign");
}

#[test]
fn a_campaign_sim_is_the_same_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let json = ok(&[
            "sim",
            "starquest-solitaire",
            "--campaign",
            "--games",
            "3",
            "--seed",
            "5",
            "--jobs",
            jobs,
            "--json",
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{json}");
        for key in ["seconds", "games_per_second", "jobs"] {
            v.as_object_mut().unwrap().remove(key);
        }
        v
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one["missions"].as_array().unwrap().len(), 12);
    assert_eq!(one["missions"][11]["played"], 3);
}

/// Ends the Marines' turn until the mission is over (the Alien's deck runs out), then `next`.
fn to_the_next_mission() -> String {
    let mut input = "help\n".to_string();
    input.push_str(&"end\n".repeat(30));
    input.push_str("next\nquit\n");
    input
}

#[test]
fn the_campaign_at_the_table_across_a_mission_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exercise.json");
    let path = file.to_str().unwrap();
    let (out, err, code) = servitor(
        &["play", "starquest-solitaire", "--campaign", path, "--seed", "3"],
        &to_the_next_mission(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("campaign exercise · seed 3 · mission 1 of 12\n"),
        "{out}"
    );
    assert!(out.contains("game over> next\ncampaign · mission 1 played\n"), "{out}");
    assert!(out.contains("campaign exercise · seed 3 · mission 2 of 12\n"), "{out}");
    assert!(
        out.contains("servitor play · starquest-solitaire · mission mission-2"),
        "{out}"
    );
    assert!(out.ends_with(&format!(
        "saved in {path}: go on with `servitor play --campaign {path}`\n"
    )));
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["played"].as_array().unwrap().len(), 1);
    assert_eq!(saved["session"]["mission"], "mission-2");

    // Going on needs no package; the Alien's extra tokens (its Mark of Chaos) went into the
    // bag unseen: the player's view counts them and never says their colour.
    let (json, err, code) = servitor(&["play", "--campaign", path, "--json"], "quit\n");
    assert_eq!(code, 0, "{err}");
    let mut lines = json.lines();
    let notes: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(notes["command"], "campaign");
    let start: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let mut returned = 0;
    for e in start["events"].as_array().unwrap() {
        let a = &e["action"];
        if a["pool"] == "reinforcements" || a["id"] == "reinforcements" {
            let entry = a.get("entry").cloned().unwrap_or_default();
            assert!(entry.is_null() || entry == "?", "a token's colour shown: {e}");
            if let Some(entries) = a["entries"].as_object() {
                assert!(entries.keys().all(|k| k == "?"), "colours shown: {e}");
            }
            returned += usize::from(a["do"] == "take");
        }
    }
    let tokens = notes["notes"].to_string();
    assert!(tokens.contains("1 extra reinforcement token, drawn unseen"), "{tokens}");
    assert_eq!(returned, 1, "{start}");
    // The same campaign twice from the same seed, through the same commands: the same file.
    let again = dir.path().join("again.json");
    let (_, err, code) = servitor(
        &[
            "play",
            "starquest-solitaire",
            "--campaign",
            again.to_str().unwrap(),
            "--seed",
            "3",
        ],
        &to_the_next_mission(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&file).unwrap()
    );
}

#[test]
fn a_file_that_is_not_a_campaign_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    let (_, err, code) = servitor(
        &[
            "play",
            "starquest-solitaire",
            "--campaign",
            good.to_str().unwrap(),
            "--seed",
            "3",
        ],
        "quit\n",
    );
    assert_eq!(code, 0, "{err}");
    let good_text = std::fs::read_to_string(&good).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "notes.txt",
            "my own notes\n".into(),
            "it is not a servitor campaign file",
        ),
        ("empty.json", String::new(), "it is not a servitor campaign file"),
        (
            "play.json",
            r#"{"format":"servitor-play","version":1}"#.into(),
            "it is a `servitor-play` file, not a servitor campaign",
        ),
        (
            "future.json",
            good_text.replace(r#""version":1,"package""#, r#""version":9,"package""#),
            "campaign file of version 9",
        ),
        (
            "broken.json",
            good_text.replace(r#""played":[]"#, r#""played":7"#),
            "a damaged servitor campaign file",
        ),
        (
            "other-mission.json",
            good_text.replace(r#""mission":"mission-1""#, r#""mission":"mission-4""#),
            "the mission at the table is `mission-4`",
        ),
        (
            "other-package.json",
            good_text.replace(
                r#""package":"starquest-solitaire""#,
                r#""package":"space-crusade-solo""#,
            ),
            "the campaign is one of `space-crusade-solo`",
        ),
    ];
    for (name, text, says) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        // No input: refused before anything is read.
        let (out, err, code) = servitor(
            &["play", "starquest-solitaire", "--campaign", path.to_str().unwrap()],
            "",
        );
        assert_eq!(code, 1, "{name}: {out}{err}");
        assert!(err.contains(says), "{name}: {err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name} was changed");
    }
    // A campaign under way keeps its own seed.
    let (_, err, code) = servitor(&["play", "--campaign", good.to_str().unwrap(), "--seed", "4"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a campaign under way"), "{err}");
}

#[test]
fn a_package_without_a_campaign_says_so() {
    let (_, err, code) = servitor(&["sim", "space-crusade-solo", "--campaign", "--games", "1"], "");
    assert_eq!(code, 2);
    assert!(err.contains("declares no `campaign`"), "{err}");
}

/// The engine's side on a test game (`tests/games/skirmish-campaign`): the state a hook leaves
/// reaches the next mission's options, hooks roll on their own seeded streams, and a hook that
/// fails stops the campaign with a diagnostic at its script line.
#[test]
fn the_state_carries_over_and_a_failing_hook_points_at_its_line() {
    let pkg = "tests/games/skirmish-campaign";
    let args = ["game", pkg, "--campaign", "three-fights", "--seed", "1", "--json"];
    let json = ok(&args);
    assert_eq!(json, ok(&args));
    let c: serde_json::Value = serde_json::from_str(&json).unwrap();
    let played = c["played"].as_array().unwrap();
    assert_eq!(played.len(), 3);
    for (k, p) in played.iter().enumerate() {
        // Each fight is played with the style the previous one's result left.
        let want = if k > 0 && played[k - 1]["result"]["winner"] != "hunters" {
            "cautious"
        } else {
            "bold"
        };
        assert_eq!(p["options"], serde_json::json!([["style", want]]), "fight {}", k + 1);
    }
    assert_eq!(c["state"]["fights"], 3);
    assert_eq!(c["state"]["log"].as_array().unwrap().len(), 3);
    assert!(c["state"]["luck"].as_i64().is_some());
    assert!(c["ended"].as_str().unwrap().starts_with("the hunters won "));

    let (out, err, code) = servitor(&["game", pkg, "--campaign", "failing", "--seed", "1"], "");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("mission 1 · hall-fight"),
        "the first fight is reported: {out}"
    );
    assert!(
        err.contains("campaign hook `after_failing` (after mission 2) failed"),
        "{err}"
    );
    assert!(
        err.contains("tests/games/skirmish-campaign/scripts/campaign.rhai:26:29"),
        "{err}"
    );

    let (_, err, code) = servitor(&["sim", pkg, "--campaign", "--games", "2"], "");
    assert_eq!(code, 2);
    assert!(err.contains("declares several campaigns"), "{err}");
    let (_, err, code) = servitor(
        &["sim", pkg, "--campaign", "failing", "--games", "2", "--jobs", "1"],
        "",
    );
    assert_eq!(code, 1, "{err}");
}

/// A campaign file is held for as long as its session runs, as a save is: a second session on
/// it is refused, and the first one goes on.
#[test]
fn two_sessions_on_one_campaign_file_are_refused() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("held.json");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args([
            "play",
            "starquest-solitaire",
            "--campaign",
            file.to_str().unwrap(),
            "--seed",
            "3",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first session has written the file once it is ready for commands.
    let started = std::time::Instant::now();
    while !file.exists() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (_, err, code) = servitor(&["play", "--campaign", file.to_str().unwrap()], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("in use by another servitor session"), "{err}");
    first.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !dir.path().join("held.json.lock").exists(),
        "the lock goes with its session"
    );
}

/// A campaign file whose state, results, seeds or options no longer fit the package was
/// accepted (75 of 185 edits): `alien-rank` 99 played a whole mission and then failed in the
/// hook for good, -1 silently read the last rank. The file is now checked against what
/// decides each part — the seed gives the missions' seeds, the package's hooks give the state,
/// the options and the end from the results, and a result must be one the game can end with
/// — and refused, in one line, and left as it was.
#[test]
fn a_campaign_file_that_no_longer_fits_the_package_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exercise.json");
    let (_, err, code) = servitor(
        &[
            "play",
            "starquest-solitaire",
            "--campaign",
            file.to_str().unwrap(),
            "--seed",
            "3",
        ],
        &to_the_next_mission(),
    );
    assert_eq!(code, 0, "{err}");
    let base: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(base["played"].as_array().unwrap().len(), 1);
    // The untouched file goes on.
    let (_, err, code) = servitor(&["play", "--campaign", file.to_str().unwrap()], "quit\n");
    assert_eq!(code, 0, "{err}");
    type Tamper = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Tamper)> = vec![
        ("alien-rank -1", Box::new(|v| v["state"]["alien-rank"] = (-1).into())),
        ("alien-rank 99", Box::new(|v| v["state"]["alien-rank"] = 99.into())),
        (
            "alien-rank 1e308",
            Box::new(|v| v["state"]["alien-rank"] = 1e308.into()),
        ),
        ("alien-rank \"x\"", Box::new(|v| v["state"]["alien-rank"] = "x".into())),
        (
            "alien-rank null",
            Box::new(|v| v["state"]["alien-rank"] = serde_json::Value::Null),
        ),
        ("a key of its own", Box::new(|v| v["state"]["cheat"] = true.into())),
        (
            "winner nope",
            Box::new(|v| v["played"][0]["result"]["winner"] = "nope".into()),
        ),
        (
            "the other winner",
            Box::new(|v| {
                let w = if v["played"][0]["result"]["winner"] == "alien" {
                    "marine"
                } else {
                    "alien"
                };
                v["played"][0]["result"]["winner"] = w.into();
            }),
        ),
        (
            "a score",
            Box::new(|v| v["played"][0]["result"]["scores"]["alien"] = 999.into()),
        ),
        (
            "a side's score gone",
            Box::new(|v| {
                v["played"][0]["result"]["scores"]
                    .as_object_mut()
                    .unwrap()
                    .remove("alien");
            }),
        ),
        ("turns", Box::new(|v| v["played"][0]["result"]["turns"] = 5000.into())),
        ("a mission's seed", Box::new(|v| v["played"][0]["seed"] = 12345.into())),
        (
            "a mission's options",
            Box::new(|v| v["played"][0]["options"] = serde_json::json!([["exercise-cull", "3"]])),
        ),
        (
            "a note",
            Box::new(|v| v["played"][0]["notes"][0] = "all is well".into()),
        ),
        (
            "session.options",
            Box::new(|v| v["session"]["options"] = serde_json::json!([["exercise-cull", "4"]])),
        ),
        (
            "before_notes",
            Box::new(|v| v["before_notes"] = serde_json::json!(["nothing happened"])),
        ),
    ];
    let mut shown = String::new();
    for (what, change) in cases {
        let mut v = base.clone();
        change(&mut v);
        assert_ne!(v, base, "{what} changes the file");
        let tampered = dir.path().join("t.json");
        let text = v.to_string();
        std::fs::write(&tampered, &text).unwrap();
        let (out, err, code) = servitor(&["play", "--campaign", tampered.to_str().unwrap()], "end\nquit\n");
        assert_eq!(code, 1, "{what}: {out}{err}");
        assert!(out.is_empty(), "{what}: nothing is played: {out}");
        assert_eq!(
            std::fs::read_to_string(&tampered).unwrap(),
            text,
            "{what}: the file was changed"
        );
        let err = err.replace(tampered.to_str().unwrap(), "T");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
        shown.push_str(&format!("{what}: {err}"));
    }
    insta::assert_snapshot!(shown);
}

/// A `next` whose hook fails ended the session and left the campaign unable to go on: it is
/// refused, the campaign and the mission at the table stay as they were, the session goes on.
#[test]
fn a_next_whose_hook_fails_is_refused_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("failing.json");
    let path = file.to_str().unwrap();
    let mut input = "end\n".repeat(120);
    input.push_str("next\n");
    input.push_str(&"end\n".repeat(120));
    input.push_str("next\nstatus\nquit\n");
    let (out, err, code) = servitor(
        &[
            "play",
            "tests/games/skirmish-campaign",
            "--campaign",
            path,
            "--campaign-id",
            "failing",
            "--seed",
            "1",
        ],
        &input,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("mission 2 of 2"), "{out}");
    assert!(
        out.contains("game over> next\nrefused: the campaign cannot go on: campaign hook `after_failing` (after mission 2) failed: the second fight cannot be scored (tests/games/skirmish-campaign/scripts/campaign.rhai:26:29)\ngame over> status\n"),
        "{out}"
    );
    let after = out.split("cannot be scored").nth(1).unwrap();
    assert!(after.contains("status"), "the session goes on: {after}");
    assert!(
        out.trim_end()
            .ends_with(&format!("go on with `servitor play --campaign {path}`")),
        "{out}"
    );
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["played"].as_array().unwrap().len(), 1);
    assert_eq!(saved["session"]["mission"], "hall-fight");
    assert!(saved["ended"].is_null());
}

/// A campaign file's `manual_dice` is the player's preference for how each mission asks for
/// its dice, not game state (issue 34 item 5): flipped by hand, the mission at the table
/// resumes as the same game (every die of a command is saved with it, whoever rolled it), and
/// only the dice still to come are asked the other way. A value that is not true or false is
/// refused and the file kept.
#[test]
fn a_campaign_files_dice_preference_changes_how_dice_are_asked_never_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exercise.json");
    let path = file.to_str().unwrap();
    let (_, err, code) = servitor(
        &["play", "starquest-solitaire", "--campaign", path, "--seed", "3"],
        &to_the_next_mission(),
    );
    assert_eq!(code, 0, "{err}");
    let events = |p: &str| -> serde_json::Value {
        let (json, err, code) = servitor(&["play", "--campaign", p, "--json"], "quit\n");
        assert_eq!(code, 0, "{err}");
        let start: serde_json::Value = serde_json::from_str(json.lines().nth(1).unwrap()).unwrap();
        start["events"].clone()
    };
    let base = events(path);
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(v["manual_dice"], false);
    v["manual_dice"] = true.into();
    let flipped = dir.path().join("flipped.json");
    std::fs::write(&flipped, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    assert_eq!(events(flipped.to_str().unwrap()), base, "the same game");
    v["manual_dice"] = "yes".into();
    let bad = dir.path().join("bad.json");
    let text = serde_json::to_vec_pretty(&v).unwrap();
    std::fs::write(&bad, &text).unwrap();
    let (_, err, code) = servitor(&["play", "--campaign", bad.to_str().unwrap()], "quit\n");
    assert_ne!(code, 0, "a dice preference of \"yes\" is refused");
    assert!(err.contains("manual_dice") || err.contains("boolean"), "{err}");
    assert_eq!(std::fs::read(&bad).unwrap(), text, "the file is kept");
}
