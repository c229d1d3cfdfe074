//! The variant lab (`sim BASE --vs VARIANT`, `--vs-set`), run as a user runs it, on the test
//! game `tests/games/skirmish` (fast in a debug build) and two variants of it: one that
//! changes nothing (`skirmish-same`) and one whose fights hit on 3+ (`skirmish-fiercer`).
//! Checked: an identical variant changes no game and every difference is exactly 0; a hand-
//! checked case; the statistics agree with the per-game records; the same report for any
//! number of jobs; `--until-decided` stops where it says; the chart is SVG; bad flags exit 2.

use std::process::Command;

fn servitor(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (stdout, stderr, code) = servitor(args);
    assert_eq!(code, 0, "servitor {args:?} failed:\n{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

const BASE: [&str; 4] = ["sim", "tests/games/skirmish", "--mission", "hall-fight"];

fn with<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    BASE.iter().copied().chain(rest.iter().copied()).collect()
}

/// The text without its last line (the time taken).
fn without_timing(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.last().is_some_and(|l| l.contains(" games in ")), "{text}");
    lines[..lines.len() - 1].join("\n") + "\n"
}

#[test]
fn an_identical_variant_changes_no_game_and_every_difference_is_exactly_zero() {
    for variant in [
        &["--vs", "tests/games/skirmish-same"][..],
        &["--vs-set", "style=bold"][..],
    ] {
        let args = with(&[variant, &["--games", "60", "--json", "--records"]].concat());
        let v = json(&args);
        assert_eq!(v["changed"]["games"], 0, "{v}");
        assert_eq!(v["paired"], 60);
        for m in v["metrics"].as_array().unwrap() {
            assert_eq!(m["difference"].as_f64(), Some(0.0), "{m}");
            assert_eq!(m["base"], m["variant"], "{m}");
            assert_eq!(m["games_differing"], 0, "{m}");
            if m["kind"] == "mean" {
                assert_eq!((m["low"].as_f64(), m["high"].as_f64()), (Some(0.0), Some(0.0)), "{m}");
            }
        }
        assert!(v["records"].as_array().unwrap().iter().all(|p| p["changed"] == false));
        assert!(
            v["verdict"].as_str().unwrap().starts_with("no game changed in 60"),
            "{}",
            v["verdict"]
        );
    }
}

/// Worked by hand from the 30 pairs listed in the snapshot: the Lurkers win 6 of 30 games in
/// the base and 12 in the variant, the 6 more all games the base drew (variant-only 6,
/// base-only 0): Tango's interval for 6/30, solved by a scan of Δ in Python, is
/// +6.38 – +37.31 points. Turns: 6 games one turn shorter, the rest the same, so the mean
/// difference is −0.2 and s² = (30·6 − 6²)/(30·29) = 0.16552, s/√30 = 0.07428, ±1.96 of
/// that: −0.346 – −0.054.
#[test]
fn a_hand_checked_comparison() {
    let (stdout, stderr, code) = servitor(&with(&[
        "--vs",
        "tests/games/skirmish-fiercer",
        "--games",
        "30",
        "--decide-on",
        "wins:lurkers",
    ]));
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!(without_timing(&stdout));
    let v = json(&with(&[
        "--vs",
        "tests/games/skirmish-fiercer",
        "--games",
        "30",
        "--json",
    ]));
    let metric = |id: &str| {
        v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .clone()
    };
    let close = |x: &serde_json::Value, want: f64, tol: f64| (x.as_f64().unwrap() - want).abs() < tol;
    let lurkers = metric("wins:lurkers");
    assert!(close(&lurkers["difference"], 0.2, 1e-12), "{lurkers}");
    assert!(
        close(&lurkers["low"], 0.0638, 1e-4) && close(&lurkers["high"], 0.3731, 1e-4),
        "{lurkers}"
    );
    let turns = metric("turns");
    assert!(close(&turns["difference"], -0.2, 1e-12), "{turns}");
    assert!(
        close(&turns["low"], -0.346, 1e-3) && close(&turns["high"], -0.054, 1e-3),
        "{turns}"
    );
}

#[test]
fn the_differences_are_the_means_of_the_per_game_records() {
    let v = json(&with(&[
        "--vs",
        "tests/games/skirmish-fiercer",
        "--games",
        "80",
        "--seed",
        "9",
        "--json",
        "--records",
    ]));
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 80);
    let n = records.len() as f64;
    let ok = |p: &serde_json::Value, side: &str| p[side].clone();
    let mut changed = 0;
    for p in records {
        let (b, x) = (ok(p, "base"), ok(p, "variant"));
        let differs = b != x || p.get("divergence").is_some();
        assert_eq!(p["changed"].as_bool(), Some(differs), "{p}");
        changed += usize::from(differs);
    }
    assert_eq!(v["changed"]["games"].as_u64(), Some(changed as u64));
    for m in v["metrics"].as_array().unwrap() {
        let id = m["id"].as_str().unwrap();
        let value = |e: &serde_json::Value| -> f64 {
            let parts: Vec<&str> = id.split(':').collect();
            match parts.as_slice() {
                ["wins", o] => f64::from(u8::from(e["winner"] == *o)),
                ["score", s] => e["scores"][s].as_f64().unwrap_or(0.0),
                ["turns"] => e["turns"].as_f64().unwrap(),
                ["losses", s] => e["losses"][s]
                    .as_object()
                    .map_or(0.0, |k| k.values().map(|x| x.as_f64().unwrap()).sum()),
                ["losses", s, k] => e["losses"][s][k].as_f64().unwrap_or(0.0),
                _ => panic!("unknown metric {id}"),
            }
        };
        let mean = |side: &str| records.iter().map(|p| value(&ok(p, side))).sum::<f64>() / n;
        let diff = records
            .iter()
            .map(|p| value(&ok(p, "variant")) - value(&ok(p, "base")))
            .sum::<f64>()
            / n;
        assert!((m["base"].as_f64().unwrap() - mean("base")).abs() < 1e-9, "{m}");
        assert!((m["variant"].as_f64().unwrap() - mean("variant")).abs() < 1e-9, "{m}");
        assert!((m["difference"].as_f64().unwrap() - diff).abs() < 1e-9, "{m}");
        let (low, high) = (m["low"].as_f64().unwrap(), m["high"].as_f64().unwrap());
        assert!(low <= diff + 1e-12 && diff <= high + 1e-12, "{m}");
    }
}

#[test]
fn a_comparison_is_the_same_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let mut v = json(&with(&[
            "--vs",
            "tests/games/skirmish-fiercer",
            "--games",
            "40",
            "--jobs",
            jobs,
            "--json",
            "--records",
        ]));
        v.as_object_mut().unwrap().remove("timing");
        v
    };
    assert_eq!(run("1"), run("2"));
}

#[test]
fn until_decided_stops_at_the_first_look_that_decides() {
    // The fiercer variant shows at the first look (100 games): its interval on the Lurkers'
    // wins excludes 0 there. The cap allows 100, 200, 400 and 500 games: 4 looks, so every
    // interval is at 1 − 0.05/4 = 98.75 %.
    let v = json(&with(&[
        "--vs",
        "tests/games/skirmish-fiercer",
        "--games",
        "500",
        "--until-decided",
        "--decide-on",
        "wins:lurkers",
        "--json",
    ]));
    assert_eq!(
        (v["games"].as_u64(), v["looks"].as_u64(), v["looks_planned"].as_u64()),
        (Some(100), Some(1), Some(4))
    );
    assert_eq!(v["level"].as_f64(), Some(0.9875));
    assert_eq!(v["decided"], true);
    // The same variant and an identical one: never decided, so it plays to the cap, unless
    // the interval is narrow enough first. A cap of 250 allows looks at 100, 200 and 250
    // games, so the level is 1 − 0.05/3 = 98.33 % (z = 2.394). With no game changed in n,
    // Tango's interval is ±z²/(n + z²): 10.8 points wide at 100 games, 5.6 at 200.
    let same = |width: &str| {
        let mut args = vec![
            "--vs",
            "tests/games/skirmish-same",
            "--games",
            "250",
            "--until-decided",
            "--json",
        ];
        if !width.is_empty() {
            args.extend(["--width", width]);
        }
        json(&with(&args))
    };
    let capped = same("");
    assert_eq!(
        (
            capped["games"].as_u64(),
            capped["looks"].as_u64(),
            capped["decided"].as_bool()
        ),
        (Some(250), Some(3), Some(false))
    );
    let narrow = same("7");
    assert_eq!(
        (narrow["games"].as_u64(), narrow["looks"].as_u64()),
        (Some(200), Some(2))
    );
}

#[test]
fn a_sim_draws_its_chart_compared_or_not() {
    let dir = tempfile::tempdir().unwrap();
    for (name, rest) in [
        ("compared.svg", &["--vs", "tests/games/skirmish-fiercer"][..]),
        ("single.svg", &[][..]),
    ] {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap();
        let (_, stderr, code) = servitor(&with(&[rest, &["--games", "20", "--svg", path]].concat()));
        assert_eq!(code, 0, "{stderr}");
        let text = std::fs::read_to_string(path).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        let words: String = doc
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join("|");
        assert!(words.contains("score of lurkers"), "{name}: {words}");
        let wanted = if name == "compared.svg" {
            "lurkers wins"
        } else {
            "lurkers"
        };
        assert!(words.contains(wanted), "{name}: {words}");
    }
}

#[test]
fn the_lab_refuses_a_wrong_command_line_with_exit_2() {
    let cases: [&[&str]; 6] = [
        &["--vs", "tests/games/skirmish-same", "--decide-on", "wins:lurker"],
        &["--vs", "tests/games/skirmish-same", "--records"],
        &["--until-decided"],
        &["--vs", "tests/games/skirmish-same", "--width", "3"],
        &["--vs-set", "style=reckless"],
        &["--vs", "tests/games/no-such-variant"],
    ];
    let mut transcript = String::new();
    for rest in cases {
        let args = with(&[rest, &["--games", "2"]].concat());
        let (stdout, stderr, code) = servitor(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        transcript.push_str(&format!("$ servitor {}\n{stderr}\n", args.join(" ")));
    }
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_comparison_whose_games_fail_reports_them_and_exits_1() {
    let (stdout, stderr, code) = servitor(&with(&["--vs", "tests/fixtures/skirmish-broken", "--games", "3"]));
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("errors: 3 (left out of the differences"), "{stdout}");
    assert!(stdout.contains("(variant): turn 1: "), "{stdout}");
    assert!(stdout.contains("0 of 0 games"), "{stdout}");
    assert!(stderr.contains("error: 3 of 3 pairs had a game fail"), "{stderr}");
}

/// A variant failing with an 8 KB message kept every failed game's message word for word
/// (20,000 games: 740 MB held, 167 MB of JSON): the errors are kept as `sim` keeps them, at
/// most MAX_SIM_ERRORS different ones, each once with its count and a few games to replay.
#[test]
fn a_comparison_keeps_its_errors_bounded() {
    let args = with(&[
        "--vs",
        "tests/fixtures/skirmish-long-errors",
        "--games",
        "300",
        "--json",
    ]);
    let (stdout, stderr, code) = servitor(&args);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("error: 300 of 300 pairs had a game fail"), "{stderr}");
    assert!(stdout.len() < 250_000, "{} bytes of JSON", stdout.len());
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let errors = &report["errors"];
    assert_eq!(errors["games"], 300);
    assert_eq!(errors["pairs"], 300);
    let kept = errors["kept"].as_array().unwrap();
    assert_eq!(kept.len(), servitor::limits::MAX_SIM_ERRORS);
    let counted: u64 = kept.iter().map(|e| e["games"].as_u64().unwrap()).sum();
    assert!(errors["other"].as_u64().unwrap() > 0);
    assert_eq!(counted + errors["other"].as_u64().unwrap(), 300);
    for e in kept {
        assert_eq!(e["side"], "variant");
        assert!(e["examples"].as_array().unwrap().len() <= servitor::limits::MAX_SIM_ERROR_EXAMPLES);
    }
    // The text lists each kept error once.
    let args = with(&["--vs", "tests/fixtures/skirmish-long-errors", "--games", "300"]);
    let (stdout, _, code) = servitor(&args);
    assert_eq!(code, 1);
    assert!(stdout.contains("errors: 300 (left out of the differences"), "{stdout}");
    assert_eq!(
        stdout.matches(" × (variant): turn 1: ").count(),
        servitor::limits::MAX_SIM_ERRORS
    );
    assert!(stdout.len() < 250_000, "{} bytes of text", stdout.len());
    assert!(
        stdout.contains("more with other errors (only the first 20 different errors are kept)"),
        "{stdout}"
    );
}
