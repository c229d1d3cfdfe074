//! The game layer on a small generic test game (`tests/games/skirmish`): the account a player
//! reads, determinism, save and resume, replaying the log, and `sim` across thread counts.

use servitor::game::{Host, Setup, host};
use std::process::Command;
use std::sync::Arc;

const SKIRMISH: &str = "tests/games/skirmish";

fn servitor(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn ok(args: &[&str]) -> String {
    let (stdout, stderr, code) = servitor(args);
    assert_eq!(code, 0, "servitor {args:?} failed:\n{stderr}");
    stdout
}

fn ruleset(path: &str) -> Arc<servitor::Ruleset> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    Arc::new(
        servitor::load(dir.to_str().unwrap())
            .expect("the fixture loads")
            .ruleset,
    )
}

fn setup(seed: u64) -> Setup {
    Setup {
        game: None,
        mission: "hall-fight".into(),
        seed,
        options: Vec::new(),
    }
}

#[test]
fn a_game_reads_turn_by_turn() {
    insta::assert_snapshot!(ok(&["game", SKIRMISH, "--mission", "hall-fight", "--seed", "3"]));
}

#[test]
fn the_same_seed_gives_a_byte_identical_json_game() {
    let args = ["game", SKIRMISH, "--mission", "hall-fight", "--seed", "11", "--json"];
    let (a, b) = (ok(&args), ok(&args));
    assert_eq!(a, b);
    let json: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(json["seed"], 11);
    assert!(json["result"]["winner"].is_string());
    for e in json["events"].as_array().unwrap() {
        for key in ["turn", "side", "kind", "text"] {
            assert!(e.get(key).is_some(), "event without {key}: {e}");
        }
        if e["kind"] == "table" {
            assert!(e["table"].is_string() && e["result"].is_string(), "{e}");
        }
        if e["kind"] == "decision" {
            assert!(e["source"].is_string(), "{e}");
        }
    }
}

#[test]
fn a_saved_game_played_on_equals_the_game_that_never_stopped() {
    let r = ruleset(SKIRMISH);
    for seed in [1, 2, 3, 4, 5] {
        let whole = Host::new(&r).play(&setup(seed)).unwrap();
        for stop_after in [1, 2, 3, 5] {
            let mut host = Host::new(&r);
            let part = host.start(&setup(seed), Some(stop_after)).unwrap();
            let text = serde_json::to_string(&host.save(&part)).unwrap();
            let mut other = Host::new(&r);
            let loaded = other.load(serde_json::from_str(&text).unwrap()).unwrap();
            let resumed = host::record(other.advance(loaded, None).unwrap());
            assert_eq!(
                serde_json::to_string(&resumed).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "seed {seed}, saved after {stop_after} phases"
            );
        }
    }
}

#[test]
fn replaying_the_log_rebuilds_the_state() {
    let r = ruleset(SKIRMISH);
    for seed in 0..20 {
        let game = Host::new(&r).start(&setup(seed), None).unwrap();
        let mut state = servitor::game::GameState::default();
        for e in &game.events {
            if let Some(a) = &e.action {
                assert!(servitor::game::state::apply(&mut state, a), "seed {seed}: {a:?}");
            }
        }
        assert_eq!(state, game.state, "seed {seed}");
        assert!(game.view.occupancy_is_fresh(&game.state.pieces), "seed {seed}");
    }
}

#[test]
fn a_tampered_save_is_refused() {
    let r = ruleset(SKIRMISH);
    let mut host = Host::new(&r);
    let game = host.start(&setup(4), Some(3)).unwrap();
    let mut save = host.save(&game);
    save.state.scores.insert("hunters".into(), 99);
    let Err(servitor::game::GameError::Save(message)) = host.load(save) else {
        panic!("a save whose state disagrees with its log must be refused")
    };
    assert!(message.contains("not what its log replays to"), "{message}");
}

#[test]
fn resume_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("g.json");
    let save = save.to_str().unwrap();
    let whole = ok(&["game", SKIRMISH, "--mission", "hall-fight", "--seed", "8", "--json"]);
    ok(&[
        "game",
        SKIRMISH,
        "--mission",
        "hall-fight",
        "--seed",
        "8",
        "--phases",
        "2",
        "--save",
        save,
    ]);
    let resumed = ok(&["game", SKIRMISH, "--resume", save, "--json"]);
    assert_eq!(resumed, whole);
}

fn without_timing(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.as_object_mut().unwrap().remove("timing");
    v
}

#[test]
fn sim_is_the_same_for_any_number_of_jobs() {
    let args = |jobs: &'static str| {
        [
            "sim",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--games",
            "300",
            "--seed",
            "5",
            "--json",
            "--jobs",
            jobs,
        ]
    };
    let one = ok(&args("1"));
    let two = ok(&args("2"));
    assert_eq!(without_timing(&one), without_timing(&two));
    let v = without_timing(&one);
    let total: u64 = v["outcomes"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(total, 300);
    assert!(v["errors"].as_array().unwrap().is_empty());
}

#[test]
fn usage_errors_name_what_exists() {
    let (_, err, code) = servitor(&["game", SKIRMISH, "--mission", "hall-figth", "--seed", "1"]);
    assert_eq!(code, 2, "a usage error exits 2");
    insta::assert_snapshot!(err);
    let (_, err, code) = servitor(&["game", SKIRMISH, "--mission", "hall-fight", "--set", "stlye=bold"]);
    assert_eq!(code, 2, "a usage error exits 2");
    assert!(err.contains("did you mean `style`"), "{err}");
}

/// The referee's log (`game --json`, docs/event-log.md "The event log"): versioned, with the
/// board once and each event's structured fields, one short game pinned whole.
#[test]
fn the_referees_log_is_structured_and_versioned() {
    let out = ok(&["game", SKIRMISH, "--mission", "hall-fight", "--seed", "3", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["log_version"], 1);
    for e in json["events"].as_array().unwrap() {
        match e["kind"].as_str().unwrap() {
            "move" => assert!(
                e["from"].is_string() && e["to"].is_string() && e["path"].is_array(),
                "{e}"
            ),
            "roll" => assert!(e["dice"].is_array() && e["total"].is_i64(), "{e}"),
            "damage" => assert!(e["target"].is_string() && e["damage"].is_i64(), "{e}"),
            "place" | "enter" | "reveal" => assert!(e["at"].is_string(), "{e}"),
            _ => {}
        }
    }
    // One line for each event, so that a change to one shows as one line.
    let mut text = String::new();
    for key in [
        "log_version",
        "package",
        "game",
        "mission",
        "seed",
        "options",
        "board",
        "result",
    ] {
        text.push_str(&format!("{key}: {}\n", json[key]));
    }
    text.push_str("events:\n");
    for e in json["events"].as_array().unwrap() {
        text.push_str(&format!("  {e}\n"));
    }
    insta::assert_snapshot!(text);
}

/// A script says whose roll it is (`roll_dice(dice, #{ piece, why })`) and attaches its own
/// fields to a decision (`game.say(text, source, #{ … })`): both land in the referee's log.
#[test]
fn a_script_says_whose_roll_it_is_and_what_it_decided() {
    let out = ok(&[
        "game",
        "tests/games/broken-rules",
        "--mission",
        "yard",
        "--seed",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let events = json["events"].as_array().unwrap();
    let roll = events.iter().find(|e| e["kind"] == "roll").expect("a roll");
    assert_eq!(roll["piece"], "thief-1", "{roll}");
    assert!(
        roll["text"].as_str().unwrap().ends_with("(thief-1, to throw)"),
        "{roll}"
    );
    let throw = events
        .iter()
        .find(|e| e["text"].as_str().unwrap().starts_with("thief-1 throws"))
        .unwrap();
    assert_eq!(throw["attacker"], "thief-1", "{throw}");
    assert_eq!(throw["target"], "guard-1", "{throw}");
    assert_eq!(throw["fields"]["points"], roll["total"], "{throw}");
}

/// A trigger filter in the wrong place is refused at load, pointing at the word: `beside` on
/// an event with no mover, a side the game does not have, a word `on` does not know.
#[test]
fn a_misplaced_trigger_filter_is_refused_with_its_place() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/trigger-filters");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::copy(
        fixture.join("scripts/filters.rhai"),
        dir.path().join("scripts/filters.rhai"),
    )
    .unwrap();
    let rules = std::fs::read_to_string(fixture.join("package.rules")).unwrap().replace(
        "  on moved hot_ground while hot\n",
        "  on moved hot_ground while hot\n  on removed contact beside sentries\n  on moved contact dashers beside guards\n  on moved contact dashers whenever\n",
    );
    std::fs::write(dir.path().join("package.rules"), rules).unwrap();
    let (_, stderr, code) = servitor(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    for expected in [
        "`beside` is for `moved`, not `removed`",
        "`guards` is not one of the game's sides",
        "`beside` names the side whose pieces the mover ends beside; sides: dashers, sentries",
        "`on` takes an event, a function, an optional side, then any of `after-activation`",
        "package.rules:40:",
        "package.rules:41:",
        "package.rules:42:",
    ] {
        assert!(stderr.contains(expected), "missing {expected:?} in:\n{stderr}");
    }
}

/// The referee's log names who and why (issue 35 item 4), in every grid game: a choice names
/// the piece choosing, a "stays" decision the piece staying, a decision opening with a piece's
/// id that piece, and every roll and table roll of the bundled scripts what it decides
/// (`purpose`); a table rolled again keeps its earlier rolls (`rerolled`).
#[test]
fn the_referees_log_names_who_and_why() {
    let games = [
        ["space-crusade-solo", "purge"],
        ["space-crusade-solo", "reactor-strike"],
        ["starquest-solitaire", "mission-1"],
        ["space-hulk-solo", "breach-run"],
        ["space-hulk-solo", "relay-sabotage"],
    ];
    let mut rerolled = 0;
    for [package, mission] in games {
        for seed in ["1", "2", "3"] {
            let json = ok(&["game", package, "--mission", mission, "--seed", seed, "--json"]);
            let log: serde_json::Value = serde_json::from_str(&json).expect("JSON");
            let pieces: std::collections::BTreeSet<String> = log["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|e| e["piece"].as_str().map(str::to_string))
                .collect();
            for e in log["events"].as_array().unwrap() {
                let (kind, text) = (e["kind"].as_str().unwrap(), e["text"].as_str().unwrap());
                let at = format!("{package} {mission} seed {seed}: {e}");
                match kind {
                    "choice" => assert!(e["piece"].is_string(), "a choice names its chooser: {at}"),
                    "roll" | "table" => assert!(e["purpose"].is_string(), "a roll says what it is for: {at}"),
                    "decision" => {
                        let first = text.split([' ', ':', ',']).next().unwrap();
                        if pieces.contains(first) {
                            assert!(e["piece"].is_string(), "a decision about a piece names it: {at}");
                        }
                    }
                    _ => {}
                }
                if kind == "table" && e["rerolled"].is_array() {
                    rerolled += 1;
                }
            }
        }
    }
    assert!(
        rerolled > 0,
        "some table was rolled again in 15 games (blip placement rows)"
    );
}

/// A table row's follow-up rolls are table events of their own in the log (issue 35 item 4):
/// with their dice, the row that asked for them in `purpose`, right after the roll above.
/// Solo Heresy's Battlefield Events roll again on other tables (a Lucky Break's die, an
/// Enemy Type rolled again).
#[test]
fn follow_up_table_rolls_are_logged_with_their_dice() {
    let mut followed = 0;
    for seed in 1..=12 {
        let out = ok(&[
            "game",
            "solo-heresy",
            "--mission",
            "exterminatus",
            "--seed",
            &seed.to_string(),
            "--json",
        ]);
        let game: serde_json::Value = serde_json::from_str(&out).unwrap();
        let events = game["events"].as_array().unwrap();
        for (k, e) in events.iter().enumerate() {
            let Some(purpose) = e["purpose"].as_str().filter(|p| p.contains(" rolls next")) else {
                continue;
            };
            followed += 1;
            assert_eq!(e["kind"], "table", "{e}");
            assert!(!e["dice"].as_array().unwrap().is_empty(), "{e}");
            let above = events[..k]
                .iter()
                .rev()
                .find(|x| x["kind"] == "table")
                .expect("a table rolled first");
            let row = above["result"].as_str().unwrap();
            assert!(
                purpose.contains(&format!("the {row} row of ")),
                "{purpose} after {above}"
            );
        }
    }
    assert!(followed > 0, "12 games of exterminatus roll a follow-up");
}
