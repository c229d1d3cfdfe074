//! The command line run as a user runs it: the built binary, its exact stdout and stderr.

use std::process::Command;

mod common;

fn servitor(args: &[&str]) -> (String, String, i32) {
    servitor_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// `servitor` run from the folder `dir`.
fn servitor_in(dir: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    servitor_with(dir, &[], args)
}

/// `servitor` run from the folder `dir` with the environment variables `env` (and no
/// `SERVITOR_RULESETS` but one given there).
fn servitor_with(dir: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(dir)
        .env_remove("SERVITOR_RULESETS")
        .envs(env.iter().copied())
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

/// A command that fails: its stderr and exit code, which the snapshot keeps (2 for a usage
/// error, 1 for any other failure).
fn fails(args: &[&str]) -> String {
    let (stdout, stderr, code) = servitor(args);
    assert!(
        code == 1 || code == 2,
        "servitor {args:?} should fail with 1 or 2, not {code}:\n{stdout}"
    );
    format!("{stderr}[exit {code}]\n")
}

/// Runs each command line as a shell would split it (`servitor …`) and writes what the user
/// sees: `$ line`, then stdout, stderr and the exit code when it is not 0.
fn transcript(lines: &[&str]) -> String {
    transcript_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), &[], lines)
}

/// [`transcript`] from the folder `dir`, with the environment variables `env`.
fn transcript_in(dir: &std::path::Path, env: &[(&str, &str)], lines: &[&str]) -> String {
    let mut all = String::new();
    for line in lines {
        let words = shlex::split(line).expect("a command line");
        assert_eq!(words[0], "servitor", "{line}");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let (stdout, stderr, code) = servitor_with(dir, env, &args);
        all.push_str(&format!("$ {line}\n{stdout}{stderr}"));
        if code != 0 {
            all.push_str(&format!("[exit {code}]\n"));
        }
        all.push('\n');
    }
    all
}

#[test]
fn check_passes_on_every_bundled_package_and_example() {
    let mut count = 0;
    for dir in ["rulesets", "examples/variants"] {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            let arg = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let out = ok(&["check", &arg]);
            assert!(out.starts_with("ok: "), "{out}");
            count += 1;
        }
    }
    assert!(count >= 8);
}

#[test]
fn check_reports_a_broken_copy_with_file_line_col() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/space-crusade-solo");
    for entry in std::fs::read_dir(&base).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let scripts = dir.path().join("scripts");
    std::fs::create_dir(&scripts).unwrap();
    for entry in std::fs::read_dir(base.join("scripts")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, scripts.join(path.file_name().unwrap())).unwrap();
    }
    let manifest = dir.path().join("package.rules");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("extends space-crusade", "extends \"../space-crusade-not-here\"");
    std::fs::write(&manifest, text).unwrap();
    let reinforcements = dir.path().join("reinforcements.rules");
    let text = std::fs::read_to_string(&reinforcements)
        .unwrap()
        .replacen("6-8", "6-7", 1);
    std::fs::write(&reinforcements, text).unwrap();
    let stderr = fails(&["check", &dir.path().display().to_string()]);
    assert!(stderr.contains("package.rules:"), "{stderr}");
    assert!(
        stderr.contains("no package `../space-crusade-not-here` to extend"),
        "{stderr}"
    );
}

#[test]
fn odds_json_is_one_object_with_reduced_fractions() {
    let out = ok(&["odds", "space-crusade-solo", "reinforcement-type", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&json).unwrap());
}

#[test]
fn odds_text_with_an_unavailable_result() {
    insta::assert_snapshot!(ok(&[
        "odds",
        "space-crusade-solo",
        "reinforcements",
        "--unavailable",
        "purple"
    ]));
}

#[test]
fn roll_shows_dice_row_result_and_source() {
    insta::assert_snapshot!(ok(&["roll", "space-crusade-solo", "reinforcements", "--seed", "4"]));
}

#[test]
fn roll_shows_shifts() {
    insta::assert_snapshot!(ok(&[
        "roll",
        "space-crusade-solo",
        "dreadnought-weapons-base",
        "--times",
        "2",
        "--seed",
        "11"
    ]));
}

#[test]
fn same_seed_same_output_different_seed_different_output() {
    for args in [
        vec!["roll", "solo-heresy", "battlefield-events", "--times", "5"],
        vec!["run", "space-crusade-solo", "scan-board", "--arg", "blips-remaining=20"],
        vec!["run", "solo-heresy", "spawning-phase", "--json"],
    ] {
        let with = |seed: &str| {
            let mut a = args.clone();
            a.extend(["--seed", seed]);
            ok(&a)
        };
        assert_eq!(with("5"), with("5"), "{args:?}");
        assert_ne!(with("5"), with("6"), "{args:?}");
    }
}

#[test]
fn run_prints_steps() {
    insta::assert_snapshot!(ok(&["run", "space-crusade-solo", "reinforce-case-2", "--seed", "3"]));
}

#[test]
fn run_json() {
    let out = ok(&[
        "run",
        "tests/fixtures/sandbox",
        "flip",
        "--arg",
        "times=2",
        "--seed",
        "1",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&json).unwrap());
}

#[test]
fn tables_lists_a_package() {
    insta::assert_snapshot!(ok(&["tables", "space-hulk-solo"]));
}

#[test]
fn tables_json_groups_by_kind() {
    let json: serde_json::Value = serde_json::from_str(&ok(&["tables", "solo-heresy", "--json"])).unwrap();
    for key in ["tables", "dice", "records", "pools", "constants", "procedures"] {
        assert!(json.get(key).is_some(), "no {key}");
    }
    assert_eq!(
        json["tables"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["id"] == "battlefield-events")
            .count(),
        1
    );
}

#[test]
fn the_sandbox_stops_misbehaving_scripts() {
    let sandbox = "tests/fixtures/sandbox";
    let mut all = String::new();
    for procedure in ["forever", "deep", "typo", "huge"] {
        all.push_str(&format!(
            "$ servitor run {sandbox} {procedure}\n{}\n",
            fails(&["run", sandbox, procedure, "--seed", "1"])
        ));
    }
    insta::assert_snapshot!(all);
}

/// The exit code tells a calling script what went wrong: 2 for a command line that asks for
/// something wrong (one of each kind, on every command that can), 1 for what was asked going
/// wrong.
#[test]
fn usage_errors_exit_2_and_failures_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let missing = missing.display().to_string();
    let usage: Vec<Vec<&str>> = vec![
        vec!["roll"],
        vec!["check", "no-such-package"],
        vec!["tables", "space-crusade-solo", "no-such-item"],
        vec!["roll", "space-crusade-solo", "reinforcements", "--times", "0"],
        vec!["roll", "space-crusade-solo", "reinforcements", "--times", "many"],
        vec!["roll", "space-crusade-solo", "reinforcements", "--unavailable", "blak"],
        vec!["odds", "space-crusade-solo", "--dice", "2d6", "--times", "2"],
        vec!["odds", "space-crusade-solo", "--dice", "2q6"],
        vec!["odds", "space-crusade-solo", "nothing-here"],
        vec![
            "odds",
            "space-crusade-solo",
            "blips-per-scan",
            "--vs",
            "no-such-package",
        ],
        vec!["run", "tests/fixtures/sandbox", "flip", "--arg", "times=abc"],
        vec!["run", "tests/fixtures/sandbox", "flip", "--arg", "times"],
        vec!["run", "tests/fixtures/sandbox", "no-such-procedure"],
        vec!["show", "space-crusade", "--mission", "nope"],
        vec!["show", "space-crusade"],
        vec!["los", "space-crusade", "--mission", "purge", "3;8", "20,8"],
        vec!["los", "space-crusade", "--mission", "purge", "3,8", "99,8"],
        vec!["game", "space-crusade-solo", "--mission", "nope"],
        vec!["game", "space-crusade-solo"],
        vec!["game", "space-crusade-solo", "--resume", &missing],
        vec!["sim", "space-crusade-solo", "--mission", "nope", "--games", "1"],
        vec![
            "sim",
            "space-crusade-solo",
            "--mission",
            "purge",
            "--set",
            "marine-style=reckless",
        ],
        vec!["play", "space-crusade-solo", "--mission", "purge", "--as", "nobody"],
        vec!["scenario", &missing],
    ];
    let failed: Vec<Vec<&str>> = vec![
        vec!["check", "tests/errors/variant-remove-gap"],
        vec!["run", "tests/fixtures/sandbox", "deep", "--seed", "1"],
    ];
    let mut all = String::new();
    for (args, expected) in usage.iter().map(|a| (a, 2)).chain(failed.iter().map(|a| (a, 1))) {
        let (_, stderr, code) = servitor(args);
        assert_eq!(code, expected, "servitor {args:?}:\n{stderr}");
        let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        all.push_str(&format!(
            "$ servitor {}\n[exit {code}] {first}\n",
            args.join(" ").replace(&missing, "missing.json")
        ));
    }
    insta::assert_snapshot!(all.replace(&missing, "missing.json"));
}

#[test]
fn usage_errors_say_what_exists() {
    let mut all = String::new();
    for args in [
        vec!["check", "space-crusad"],
        vec!["roll", "space-crusade-solo", "reinforcement"],
        vec![
            "odds",
            "space-crusade-solo",
            "reinforcements",
            "--unavailable",
            "purpel",
        ],
        vec!["run", "tests/fixtures/sandbox", "flp"],
        vec!["run", "tests/fixtures/sandbox", "flip", "--arg", "time=3"],
        vec!["run", "tests/fixtures/sandbox", "flip", "--arg", "times=many"],
    ] {
        all.push_str(&format!("$ servitor {}\n{}\n", args.join(" "), fails(&args)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn show_draws_a_mission_and_writes_svg() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plasma.svg");
    let out = ok(&[
        "show",
        "tests/boards/worked-examples.rules",
        "--mission",
        "plasma",
        "--svg",
        &svg.display().to_string(),
    ]);
    let out = out.replace(&svg.display().to_string(), "plasma.svg");
    insta::assert_snapshot!(out);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
}

#[test]
fn show_draws_every_bundled_mission() {
    for (package, missions) in [
        ("space-crusade", vec!["reactor-strike", "stranded", "purge"]),
        ("space-hulk", vec!["relay-sabotage", "breach-run", "purge-the-nest"]),
    ] {
        for mission in missions {
            let out = ok(&["show", package, "--mission", mission]);
            assert!(out.contains('┌'), "{package}/{mission}");
        }
    }
    for battlefield in ["ashfall-ruins", "listening-post"] {
        let out = ok(&["show", "solo-heresy", "--battlefield", battlefield]);
        assert!(out.contains('▓') && out.contains("objective-6"), "{battlefield}");
    }
}

#[test]
fn los_answers_and_draws_the_line() {
    let mut all = String::new();
    for (from, to, extra) in [
        ("1,4", "6,4", None),
        ("1,4", "6,4", Some("--reveal")),
        ("1,4", "3,2", None),
        ("2,2", "8,6", None),
    ] {
        let mission = if from == "2,2" { "dreadnought" } else { "plasma" };
        let mut args = vec![
            "los",
            "tests/boards/worked-examples.rules",
            "--mission",
            mission,
            from,
            to,
        ];
        args.extend(extra);
        all.push_str(&format!("$ servitor {}\n{}\n", args.join(" "), ok(&args)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn scripts_ask_the_board() {
    insta::assert_snapshot!(ok(&[
        "run",
        "tests/boards/worked-examples.rules",
        "board-questions",
        "--seed",
        "2"
    ]));
}

#[test]
fn show_draws_a_battlefield() {
    insta::assert_snapshot!(ok(&[
        "show",
        "tests/boards/battlefield.rules",
        "--battlefield",
        "test-table"
    ]));
}

#[test]
fn battlefield_scatter_rerolls_and_routes_go_round_terrain() {
    let mut all = String::new();
    for seed in ["1", "2", "3", "4"] {
        all.push_str(&ok(&[
            "run",
            "tests/boards/battlefield.rules",
            "spawn-near",
            "--seed",
            seed,
        ]));
    }
    all.push_str(&ok(&[
        "run",
        "tests/boards/battlefield.rules",
        "march",
        "--arg",
        "inches=12",
        "--seed",
        "1",
    ]));
    all.push_str(&ok(&[
        "run",
        "tests/boards/battlefield.rules",
        "march",
        "--arg",
        "inches=40",
        "--seed",
        "1",
    ]));
    insta::assert_snapshot!(all);
}

#[test]
fn facing_pieces_pay_per_action() {
    let mut all = ok(&["run", "space-hulk", "move-cost", "--seed", "1"]);
    all.push_str(&ok(&[
        "run",
        "space-hulk",
        "move-cost",
        "--arg",
        "model=genestealer",
        "--arg",
        "facing=left",
        "--seed",
        "1",
    ]));
    insta::assert_snapshot!(all);
}

#[test]
fn list_arguments_read_as_servitor_prints_them() {
    // The listing prints list defaults as `[purple]`; that form, and `a,b`, must read back.
    let listing = ok(&["tables", "space-crusade-solo"]);
    assert!(listing.contains("--arg unavailable=[purple]"), "{listing}");
    let mut all = String::new();
    for args in [
        vec![
            "run",
            "space-crusade-solo",
            "reroll-guidance",
            "--arg",
            "red=[0, 2]",
            "--seed",
            "1",
        ],
        vec![
            "run",
            "space-crusade-solo",
            "reroll-guidance",
            "--arg",
            "red=0,2",
            "--seed",
            "1",
        ],
        vec![
            "run",
            "solo-heresy",
            "spawning-phase",
            "--arg",
            "unit-names=[]",
            "--seed",
            "1",
        ],
        vec![
            "run",
            "solo-heresy",
            "spawning-phase",
            "--arg",
            "unit-names=[alpha, beta]",
            "--seed",
            "1",
        ],
    ] {
        all.push_str(&format!("$ servitor {}\n{}\n", args.join(" "), ok(&args)));
    }
    for args in [
        vec!["run", "space-crusade-solo", "reroll-guidance", "--arg", "red=[0, 2"],
        vec!["run", "space-crusade-solo", "reroll-guidance", "--arg", "red=0, 2]"],
        vec!["run", "space-crusade-solo", "reroll-guidance", "--arg", "red=[[0], 2]"],
        vec!["run", "space-crusade-solo", "reroll-guidance", "--arg", "red=0,,2"],
        vec![
            "run",
            "space-crusade-solo",
            "reinforce-case-2",
            "--arg",
            "unavailable=[purple, 2]",
        ],
        vec!["run", "space-crusade-solo", "arm-dreadnought", "--arg", "model=[base]"],
    ] {
        all.push_str(&format!("$ servitor {}\n{}\n", args.join(" "), fails(&args)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn a_colour_left_out_by_a_list_argument_never_arrives() {
    for seed in 1..=20 {
        let seed = seed.to_string();
        for list in ["[purple, black]", "purple,black"] {
            let out = ok(&[
                "run",
                "space-crusade-solo",
                "reinforce-case-2",
                "--arg",
                &format!("unavailable={list}"),
                "--seed",
                &seed,
                "--json",
            ]);
            let json: serde_json::Value = serde_json::from_str(&out).unwrap();
            let arrivals = json["result"]["arrivals"].as_array().unwrap();
            assert_eq!(arrivals.len(), 6, "seed {seed}: {out}");
            assert!(
                !arrivals.iter().any(|c| c == "black" || c == "purple"),
                "seed {seed}: {out}"
            );
        }
    }
}

#[test]
fn unknown_names_are_refused_with_did_you_mean() {
    let mut all = String::new();
    for args in [
        vec![
            "run",
            "space-crusade-solo",
            "reinforce-case-2",
            "--arg",
            "unavailable=purple,blak",
        ],
        vec![
            "run",
            "space-crusade-solo",
            "end-of-alien-turn",
            "--arg",
            "unavailable=[purpel]",
        ],
        vec!["run", "space-crusade-solo", "arm-dreadnought", "--arg", "model=mision"],
        vec!["run", "space-crusade-solo", "reroll-guidance", "--arg", "red=[0, 4]"],
        vec![
            "run",
            "starquest-solitaire",
            "choose-random-marine",
            "--arg",
            "unavailable=7",
        ],
        vec!["run", "starquest-solitaire", "alien-action", "--arg", "alien=orc"],
        vec!["run", "starquest-solitaire", "probe-board", "--arg", "mission=13"],
        vec!["run", "space-hulk", "move-cost", "--arg", "mission=relay"],
        vec!["run", "space-hulk", "shoot", "--arg", "weapon=storm-boltr"],
        vec![
            "run",
            "solo-heresy",
            "place-spawn-markers",
            "--arg",
            "battlefield=ashfall",
        ],
        vec!["run", "tests/fixtures/typos", "unavailable-typo", "--seed", "1"],
        vec!["run", "tests/fixtures/typos", "available-typo", "--seed", "1"],
        vec!["run", "tests/fixtures/typos", "optional-field", "--seed", "1"],
        vec![
            "roll",
            "space-crusade-solo",
            "reinforcement-type",
            "--unavailable",
            "blak",
        ],
    ] {
        all.push_str(&format!("$ servitor {}\n{}\n", args.join(" "), fails(&args)));
    }
    insta::assert_snapshot!(all);
}

#[test]
fn what_an_arg_may_name_is_accepted() {
    // The other side of the refusals: every documented name still works.
    for args in [
        vec![
            "run",
            "starquest-solitaire",
            "choose-random-marine",
            "--arg",
            "unavailable=[2, number-4]",
        ],
        vec!["run", "solo-heresy", "place-spawn-markers", "--arg", "battlefield=none"],
        vec![
            "run",
            "space-crusade-solo",
            "arm-dreadnought",
            "--arg",
            "model=mission",
            "--arg",
            "hardpoints=4",
        ],
    ] {
        let mut args = args;
        args.extend(["--seed", "1"]);
        ok(&args);
    }
}

#[test]
fn odds_of_dice_constants_records_and_a_variant_beside_its_base() {
    insta::assert_snapshot!(transcript(&[
        "servitor odds space-crusade-solo blips-per-scan",
        "servitor odds space-crusade-solo blips-per-scan --vs examples/variants/more-blips",
        "servitor odds space-crusade-solo --dice '2d6+4'",
        "servitor odds space-crusade-solo --dice '1 red + 1 white'",
        "servitor odds space-crusade weapon.ork-gun",
        "servitor odds space-crusade-solo reinforcements --unavailable purple --vs examples/variants/harder-reinforcements",
        "servitor odds space-crusade-solo blips-per-scan --json",
        "servitor odds space-crusade-solo blips-per-scn",
        "servitor odds space-crusade-solo board-sections",
        "servitor odds space-crusade weapon.ork",
        "servitor odds space-crusade-solo blips-per-scan --vs solo-heresy",
        "servitor odds space-crusade-solo",
    ]));
}

/// `--times` is bounded: a listing too long is refused before any work, saying how many rolls
/// fit and that `--sum` would do; `--sum` adds up each result over many rolls, and is itself
/// refused past its limit with the number of rolls that fit.
#[test]
fn odds_over_many_rolls_are_summed_or_refused_saying_how_to_ask_for_less() {
    insta::assert_snapshot!(transcript(&[
        "servitor odds space-crusade-solo reinforcements --times 6",
        "servitor odds space-crusade-solo reinforcements --times 3 --sum",
        "servitor odds space-crusade-solo reinforcements --times 1000 --sum",
        "servitor odds starquest-solitaire gretchin-ork-behaviour --times 1000 --sum",
        "servitor odds starquest-solitaire gretchin-ork-behaviour --times 40 --sum",
        "servitor odds starquest-solitaire gretchin-ork-behaviour --times 2 --sum --json",
    ]));
}

/// `tables` lists boards, missions and battlefields beside the rest; `tables PKG ITEM` shows
/// one item in full; unknown names get "did you mean"; `show` says what there is to show.
#[test]
fn listings_say_what_a_package_has_and_show_every_item_in_full() {
    insta::assert_snapshot!(transcript(&[
        "servitor packages",
        "servitor tables space-crusade",
        "servitor tables space-crusade-solo reinforcements",
        "servitor tables solo-heresy mission.raid battlefield.ashfall-ruins",
        "servitor tables space-crusade section-1 white",
        "servitor tables space-crusade-solo reinforce-case-2",
        "servitor tables space-crusade-solo reinforcments",
        "servitor tables space-crusade weapon.bolt",
        "servitor show solo-heresy",
        "servitor show space-crusade",
        "servitor show solo-heresy --battlefield nope",
        "servitor show solo-heresy --mission raid",
        "servitor show space-crusade --board section-5",
    ]));
}

/// `tables --json` lists boards, missions and battlefields by id, with their sizes.
#[test]
fn tables_json_lists_boards_missions_and_battlefields() {
    let crusade: serde_json::Value = serde_json::from_str(&ok(&["tables", "space-crusade", "--json"])).unwrap();
    let ids = |json: &serde_json::Value, key: &str| -> Vec<String> {
        json[key]
            .as_array()
            .unwrap_or_else(|| panic!("no {key}"))
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        ids(&crusade, "boards"),
        ["section-1", "section-2", "section-3", "section-4"]
    );
    assert_eq!(ids(&crusade, "missions"), ["reactor-strike", "stranded", "purge"]);
    assert_eq!(crusade["missions"][0]["width"], 24);
    let heresy: serde_json::Value = serde_json::from_str(&ok(&["tables", "solo-heresy", "--json"])).unwrap();
    assert_eq!(ids(&heresy, "battlefields"), ["ashfall-ruins", "listening-post"]);
    assert!(ids(&heresy, "missions").is_empty());
    let packages: serde_json::Value = serde_json::from_str(&ok(&["packages", "--json"])).unwrap();
    let names: Vec<&str> = packages["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["hidden"] == false)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, common::bundled_packages());
}

/// Every `text "…"` a bundled package wrote (a table's, a row's, a record's, a procedure's, a
/// board's, a mission's, a die's, a pool's, a campaign's) is printed by `servitor tables PKG ITEM…`.
#[test]
fn every_text_a_package_wrote_is_shown_by_some_command() {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut checked = 0;
    for package in common::bundled_packages() {
        let listing: serde_json::Value = serde_json::from_str(&ok(&["tables", &package, "--json"])).unwrap();
        let mut items: Vec<String> = Vec::new();
        for (key, kind) in [
            ("tables", "table"),
            ("dice", "die"),
            ("procedures", "procedure"),
            ("boards", "board"),
            ("missions", "mission"),
            ("battlefields", "battlefield"),
            ("games", "game"),
            ("campaigns", "campaign"),
        ] {
            for item in listing[key].as_array().unwrap() {
                items.push(format!("{kind}.{}", item["id"].as_str().unwrap()));
            }
        }
        for pool in listing["pools"].as_array().unwrap() {
            items.push(format!(
                "{}.{}",
                pool["kind"].as_str().unwrap(),
                pool["id"].as_str().unwrap()
            ));
        }
        for (kind, records) in listing["records"].as_object().unwrap() {
            for rec in records.as_array().unwrap() {
                items.push(format!("{kind}.{}", rec["id"].as_str().unwrap()));
            }
        }
        let mut args = vec!["tables", package.as_str()];
        args.extend(items.iter().map(String::as_str));
        let shown = squash(&ok(&args));
        // The package's own files: its texts (a base's are checked with the base).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("rulesets")
            .join(&package);
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "rules") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            for text in texts_in(&source) {
                assert!(
                    shown.contains(&squash(&text)),
                    "{}: text not shown by `servitor tables {package} …`:\n  {text}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} texts");
}

/// The strings after `text` in a rules file (escapes read back).
fn texts_in(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with('#') {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("text \"") {
            let before = &rest[..at];
            // `text` as a word of its own, not the end of another (`context "…"`).
            if before.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '-') {
                rest = &rest[at + 5..];
                continue;
            }
            let mut text = String::new();
            let mut chars = rest[at + 6..].chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => text.extend(chars.next()),
                    '"' => break,
                    c => text.push(c),
                }
            }
            out.push(text);
            rest = chars.as_str();
        }
    }
    out
}

/// A failed run keeps its evidence: the steps made before the failure and the seed that
/// replays it, on stdout (and in --json); a run that never ends is shown where it was still
/// running — the loop in the helper, not the procedure's first line.
#[test]
fn a_failed_run_keeps_its_steps_its_seed_and_where_it_hung() {
    insta::assert_snapshot!(transcript(&[
        "servitor run tests/fixtures/sandbox stuck --seed 2",
        "servitor run tests/fixtures/sandbox stuck --seed 2 --json",
        "servitor run tests/fixtures/sandbox forever --seed 1",
    ]));
}

/// A file named in a diagnostic opens from the folder the user is in: from `src/`, a package
/// given by its absolute path, and the base it extends, read `../tests/…` — not `tests/…`,
/// which is where they are from the checkout's top. A gap a variant's `remove` leaves is
/// blamed on that `remove`, with the base's dice as a note.
#[test]
fn diagnostics_name_files_as_they_open_from_the_current_folder() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/errors/variant-remove-gap");
    let (stdout, stderr, code) = servitor_in(&root.join("src"), &["check", &fixture.display().to_string()]);
    assert_eq!(code, 1, "{stdout}");
    insta::assert_snapshot!(stderr);
}

/// Packages are found as a user expects: a bare name is `./NAME` first (so `check more-blips`
/// works beside `more-blips/`), then `$SERVITOR_RULESETS`, then the rulesets bundled into the
/// binary — which need no source checkout: from a folder outside it, a variant's base is read
/// from the bundle (its file shows as `<bundled>/…`), and `packages` says where each comes from.
#[test]
fn packages_are_found_as_a_user_expects() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let variants = transcript_in(
        &root.join("examples/variants"),
        &[],
        &[
            "servitor check more-blips",
            "servitor odds space-crusade-solo blips-per-scan --vs more-blips",
        ],
    );
    let away = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = away.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "fewer-black/package.rules",
        "package fewer-black \"No black tokens on a 12\" {\n  version \"0.1.0\"\n  extends space-crusade-solo\n}\n\noverride table reinforcements { remove 12 }\n",
    );
    write(
        "mods/space-crusade/package.rules",
        "package space-crusade \"My own base game\" { version \"0.1.0\" }\n",
    );
    write(
        "mods/quick/package.rules",
        "package quick \"A quick one\" { version \"0.1.0\" }\n",
    );
    let elsewhere = transcript_in(
        away.path(),
        &[],
        &[
            "servitor check space-crusade-solo",
            "servitor check fewer-black",
            "servitor check nope",
            "servitor packages",
        ],
    );
    let listed = transcript_in(
        away.path(),
        &[("SERVITOR_RULESETS", "mods")],
        &["servitor packages", "servitor check space-crusade-solo"],
    );
    insta::assert_snapshot!(format!(
        "# in examples/variants\n{variants}# in an empty folder outside the checkout\n{elsewhere}# there, with SERVITOR_RULESETS=mods\n{listed}"
    ));
}

/// Machine-readable output for editors and front ends: `check --json` gives every diagnostic
/// with its place, `show --json` a map as data; `completions` writes a shell's script.
#[test]
fn check_and_show_speak_json_and_completions_are_written() {
    let (stdout, _, code) = servitor(&["check", "tests/errors/variant-remove-gap", "--json"]);
    assert_eq!(code, 1);
    let failed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (stdout, _, code) = servitor(&["check", "tests/boards/worked-examples.rules", "--json"]);
    assert_eq!(code, 0);
    let passed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (stdout, _, code) = servitor(&["check", "no-such-package", "--json"]);
    assert_eq!(code, 2);
    let missing: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let shown: serde_json::Value = serde_json::from_str(&ok(&[
        "show",
        "tests/boards/worked-examples.rules",
        "--mission",
        "plasma",
        "--json",
    ]))
    .unwrap();
    let mut missing = missing;
    // The places looked in depend on the machine's folders.
    missing["error"] = missing["error"].as_str().unwrap().lines().next().unwrap().into();
    insta::assert_snapshot!(
        [failed, passed, missing, shown]
            .iter()
            .map(|j| serde_json::to_string_pretty(j).unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&["completions", shell]);
        for command in ["check", "sim", "play", "los", "completions"] {
            assert!(script.contains(command), "{shell}: no `{command}`");
        }
    }
}

/// Without `--mission`, `game` lists what can be played — on a package whose missions are
/// battlefield records too (it listed nothing there).
#[test]
fn a_game_without_a_mission_lists_the_playable_ones() {
    let (_, stderr, code) = servitor(&["game", "solo-heresy"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("missions: exterminatus, raid, victory-or-death, eye-of-terror"),
        "{stderr}"
    );
}
