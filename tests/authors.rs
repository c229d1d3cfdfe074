//! The house-rule author's side (issue 22, items 10, 11 and 13), run as a user runs it: `check`
//! warns on what a variant writes that changes nothing; bundled packages can be copied out to
//! read and start from; the help and the listings say where things come from.

use std::process::Command;

fn servitor_in(dir: &std::path::Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env_remove("SERVITOR_RULESETS")
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn servitor(args: &[&str]) -> (String, String, i32) {
    servitor_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

/// A misspelled hook, a constant no script reads and a record field no script reads are
/// warnings at their file:line:col, with did-you-mean for the hook; the field a script reads
/// (an Ork's `move`) and the helper the misspelled hook calls are not; `check` still passes.
#[test]
fn check_warns_on_a_variant_that_changes_nothing() {
    let (stdout, stderr, code) = servitor(&["check", "tests/fixtures/dead-variant"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("ok: dead-variant"), "{stdout}");
    assert!(!stderr.contains("nearest_of") && !stderr.contains("`move`"), "{stderr}");
    insta::assert_snapshot!(stderr);
    let (stdout, _, code) = servitor(&["check", "tests/fixtures/dead-variant", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let warnings: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning")
        .map(|d| format!("{}:{}", d["file"].as_str().unwrap_or(""), d["line"]))
        .collect();
    assert_eq!(
        warnings,
        [
            "tests/fixtures/dead-variant/scripts/hunt.rhai:2",
            "tests/fixtures/dead-variant/package.rules:10",
            "tests/fixtures/dead-variant/package.rules:11"
        ],
        "{stdout}"
    );
}

/// An override of a stats field the engine reads (a priced move's `ap-turn-with-move`,
/// `ap-door`) changes games though no script reads it: `check` warns about neither (issue 35,
/// item 9: it said "no script reads `ap-turn-with-move` … overriding it changes no game").
#[test]
fn check_counts_a_field_the_engine_reads_as_read() {
    let (stdout, stderr, code) = servitor(&["check", "tests/fixtures/engine-read-variant"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("ok: engine-read-variant"), "{stdout}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// A relative `extends` works quoted; unquoted, the parse error says to quote it (issue 38:
/// it said only "expected … found `../base`").
#[test]
fn a_relative_extends_is_quoted_or_told_to_be() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("tests/fixtures/engine-read-variant/package.rules")).unwrap();
    let base = root.join("rulesets/space-hulk-solo");
    for (name, extends) in [("quoted", "extends \"../base\""), ("bare", "extends ../base")] {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("package.rules"),
            rules.replace("extends space-hulk-solo", extends),
        )
        .unwrap();
    }
    std::os::unix::fs::symlink(&base, dir.path().join("base")).unwrap();
    let (stdout, stderr, code) = servitor_in(dir.path(), &["check", "quoted"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("ok: engine-read-variant"), "{stdout}");
    let (_, stderr, code) = servitor_in(dir.path(), &["check", "bare"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("a path goes in quotes"), "{stderr}");
}

/// `packages --export NAME DIR` writes the bundled package's files, byte for byte, under
/// DIR/NAME, and they load from there; a second export into the same place writes nothing
/// and exits 2, as does a name that is not bundled.
#[test]
fn a_bundled_package_is_exported_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, stderr, code) = servitor_in(dir.path(), &["packages", "--export", "space-crusade-solo", "out"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("wrote "), "{stdout}");
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets/space-crusade-solo");
    let mut compared = 0;
    for entry in walk(&source) {
        let relative = entry.strip_prefix(&source).unwrap();
        let written = dir.path().join("out/space-crusade-solo").join(relative);
        assert_eq!(
            std::fs::read(&entry).unwrap(),
            std::fs::read(&written).unwrap(),
            "{}",
            relative.display()
        );
        compared += 1;
    }
    assert!(compared > 5);
    let (stdout, stderr, code) = servitor_in(dir.path(), &["check", "out/space-crusade-solo"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("space-crusade → space-crusade-solo"), "{stdout}");

    // A file of the package changed by the author: a second export refuses, and writes nothing.
    let manifest = dir.path().join("out/space-crusade-solo/package.rules");
    std::fs::write(&manifest, "# mine\n").unwrap();
    let (stdout, stderr, code) = servitor_in(dir.path(), &["packages", "--export", "space-crusade-solo", "out"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), "# mine\n");

    let (_, stderr, code) = servitor_in(dir.path(), &["packages", "--export", "space-crusad", "out"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("did you mean `space-crusade`?"), "{stderr}");
    assert!(!dir.path().join("out/space-crusad").exists());
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

/// A diagnostic that quotes a file of a bundled ruleset (here the base's first definition of
/// a constant the variant defines again) says how to get that file.
#[test]
fn a_bundled_file_in_a_diagnostic_says_how_to_get_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("again")).unwrap();
    std::fs::write(
        dir.path().join("again/package.rules"),
        "package again \"Defines a base's constant again\" {\n  version \"0.1.0\"\n  extends space-crusade-solo\n}\nconst blip-move = 6\n",
    )
    .unwrap();
    let (_, stderr, code) = servitor_in(dir.path(), &["check", "again"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("<bundled>/space-crusade/components.rules:"), "{stderr}");
    assert!(stderr.contains("write `override const blip-move = …`"), "{stderr}");
    assert!(
        stderr.contains("`servitor packages --export space-crusade DIR` copies it out"),
        "{stderr}"
    );
}

/// The hooks table of the authors' reference (docs/hooks.md, "Hooks") names functions
/// the packages' scripts define, with the parameters written there.
#[test]
fn the_hooks_table_names_functions_the_scripts_define() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).unwrap();
    let text = std::fs::read_to_string(root.join("docs/hooks.md")).unwrap();
    let section = text
        .split("## Hooks: the functions a variant replaces")
        .nth(1)
        .expect("a Hooks section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut checked = 0;
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let packages: Vec<&str> = cells[1].split(',').map(|p| p.trim().trim_matches('`')).collect();
        // Every `name(params)` span in the hook cell.
        for span in cells[2].split('`').skip(1).step_by(2) {
            let Some((name, rest)) = span.split_once('(') else {
                continue;
            };
            if name.ends_with('…') || name.ends_with("...") {
                continue;
            }
            let params = rest
                .trim_end_matches(')')
                .split(',')
                .filter(|p| !p.trim().is_empty())
                .count();
            for package in &packages {
                let loaded = servitor::load(package).unwrap_or_else(|e| panic!("{package}: {}", e.render(false)));
                let found = loaded
                    .ruleset
                    .scripts
                    .iter()
                    .flat_map(|s| s.functions.iter())
                    .any(|(n, arity)| n == name && *arity == params);
                assert!(
                    found,
                    "{package} has no fn {name} with {params} parameters (docs/hooks.md, Hooks)"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 8, "only {checked} hooks checked");
}

/// `servitor --help` names the places a bare package name is looked up in the order the
/// README gives them.
#[test]
fn the_help_gives_the_readme_lookup_order() {
    let places = ["`./NAME`", "`$SERVITOR_RULESETS`", "`./rulesets/NAME`", "bundled"];
    let readme = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let paragraph = readme
        .split("or a bare NAME, looked up in this order:")
        .nth(1)
        .expect("the README's lookup order")
        .split("the first found is loaded")
        .next()
        .unwrap();
    let (help, _, code) = servitor(&["--help"]);
    assert_eq!(code, 0);
    let help = help
        .split("looked up in this order:")
        .nth(1)
        .expect("the help's lookup order");
    let order = |text: &str| -> Vec<usize> {
        places
            .iter()
            .map(|p| {
                text.find(p.trim_matches('`'))
                    .unwrap_or_else(|| panic!("{p} missing from:\n{text}"))
            })
            .collect()
    };
    for (name, text) in [("README", paragraph), ("--help", help)] {
        let at = order(text);
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{name} gives another order: {text}");
    }
}

/// `tables` shows where a variant changed an overridden record or table, beside where the
/// base wrote it, in text and JSON.
#[test]
fn tables_shows_where_a_variant_changed_an_item() {
    let (stdout, stderr, code) = servitor(&["tables", "examples/variants/alien-stat-fix", "ork"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("  written at rulesets/space-crusade/provisional.rules:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  changed at examples/variants/alien-stat-fix/package.rules:20:21 (move)"),
        "{stdout}"
    );
    let (stdout, _, _) = servitor(&["tables", "examples/variants/harder-reinforcements", "reinforcements"]);
    assert!(
        stdout.contains("  changed at examples/variants/harder-reinforcements/package.rules:28:3 (source, rows)"),
        "{stdout}"
    );
    let (stdout, _, _) = servitor(&["tables", "examples/variants/alien-stat-fix", "ork", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["items"][0]["changed_at"],
        serde_json::json!(["examples/variants/alien-stat-fix/package.rules:20:21"])
    );
}

/// `override game` with several entries of one key kept only the last: a variant restating
/// the solo Space Hulk's four triggers word for word kept one, and the lab called the three
/// lost ones the house rule's effect. Entries are keyed by what they are (`on EVENT FN`), so a
/// variant that restates its base plays exactly its base's games.
#[test]
fn a_variant_restating_its_base_changes_no_game() {
    let base = servitor::load("space-hulk-solo").unwrap().ruleset;
    let variant = servitor::load("tests/fixtures/hulk-restated").unwrap().ruleset;
    let triggers = |r: &servitor::Ruleset| format!("{:?}", r.games["hulk"].triggers);
    assert_eq!(triggers(&variant), triggers(&base));
    let (stdout, stderr, code) = servitor(&[
        "sim",
        "space-hulk-solo",
        "--mission",
        "breach-run",
        "--vs",
        "tests/fixtures/hulk-restated",
        "--games",
        "4",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["changed"]["games"], 0, "{stdout}");
    assert_eq!(report["paired"], 4, "{stdout}");
    for seed in ["1", "2"] {
        let game = |package: &str| {
            let (stdout, stderr, code) =
                servitor(&["game", package, "--mission", "breach-run", "--seed", seed, "--json"]);
            assert_eq!(code, 0, "{stderr}");
            stdout.replace("hulk-restated", "space-hulk-solo")
        };
        assert_eq!(
            game("tests/fixtures/hulk-restated"),
            game("space-hulk-solo"),
            "seed {seed}"
        );
    }
}

/// Two `command`s and an `option` in an override dropped the base's ten commands and thirteen
/// options, and `check` said ok: each replaces the entry of its own name, and a new one is
/// added.
#[test]
fn an_override_replaces_only_the_entries_it_names() {
    let base = servitor::load("space-hulk-solo").unwrap().ruleset;
    let (stdout, stderr, code) = servitor(&["check", "tests/fixtures/hulk-two-commands"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("ok: hulk-two-commands"), "{stdout}");
    let variant = servitor::load("tests/fixtures/hulk-two-commands").unwrap().ruleset;
    let (b, v) = (&base.games["hulk"], &variant.games["hulk"]);
    let expected: Vec<String> = b.commands.keys().cloned().chain(["wait".to_string()]).collect();
    assert_eq!(v.commands.keys().cloned().collect::<Vec<_>>(), expected);
    assert_eq!(
        v.commands["fire"].help.as_deref(),
        Some("fire MODEL TARGET: shoot, e.g. fire marine-1 genestealer-2")
    );
    assert_eq!(v.commands["move"].help, b.commands["move"].help);
    assert_eq!(
        v.options.keys().collect::<Vec<_>>(),
        b.options.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        v.options["marine-style"].default,
        servitor::value::Value::Name("bold".into())
    );
    assert_eq!(format!("{:?}", v.triggers), format!("{:?}", b.triggers));
    assert_eq!(format!("{:?}", v.phases), format!("{:?}", b.phases));
}

/// Every bundled game declares entry points beyond its set-up and phases (issue 38: "each
/// bundled package's entry points and state are documented"), each with its text.
#[test]
fn every_bundled_game_declares_its_entry_points() {
    for (package, some) in [
        ("space-crusade-solo", "  aliens_act(game) or aliens_act(game, ids)  "),
        ("starquest-solitaire", "  alien_acts(game, id, move)  "),
        ("space-hulk-solo", "  activate_blip(game, id)  "),
        ("solo-heresy", "  enemy_movement_phase(game)  "),
    ] {
        let (stdout, stderr, code) = servitor(&["tables", package, "--entry-points"]);
        assert_eq!(code, 0, "{package}: {stderr}");
        let declared = stdout
            .lines()
            .skip(1)
            .filter(|l| !l.contains("the set-up (") && !l.contains("the phase `"))
            .count();
        assert!(declared >= 5, "{package}: {declared} entry points\n{stdout}");
        assert!(
            stdout.lines().any(|l| l.starts_with(some)),
            "{package}: no `{some}`\n{stdout}"
        );
    }
}

/// A game's entry points (issue 38): `tables PKG --entry-points` lists the set-up, the phases
/// and the declared `entry` functions with their parameters; an `entry` naming no script
/// function is an error at its line; `// from:` takes only `setup`.
#[test]
fn entry_points_are_listed_and_checked() {
    let (stdout, stderr, code) = servitor(&["tables", "space-hulk-solo", "--entry-points"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Entry points of game `hulk` (a scenario's `// call:` or a script may call each):\n"),
        "{stdout}"
    );
    // One line an entry: its signatures (every overload), then what it does.
    let line = |start: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_default()
            .to_string()
    };
    let setup = line("  setup_game(game) ");
    assert!(
        setup.ends_with(" the set-up (`// from: setup` plays it first)"),
        "{stdout}"
    );
    assert!(
        line("  invade(game, n) ").contains("  n reinforcement blips, each placed"),
        "{stdout}"
    );
    assert!(
        line("  fire(")
            .starts_with("  fire(game, id, target) or fire(game, id, target, flamer, cost)  a Terminator fires"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("tests/fixtures/engine-read-variant/package.rules")).unwrap();
    std::fs::create_dir_all(dir.path().join("v")).unwrap();
    std::fs::write(
        dir.path().join("v/package.rules"),
        format!("{rules}\noverride game hulk {{ entry invadee \"typo\" }}\n"),
    )
    .unwrap();
    let (_, stderr, code) = servitor_in(dir.path(), &["check", "v"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("  × no script function `invadee`\n    ╭─[v/package.rules:12:28]\n"),
        "{stderr}"
    );
    assert!(stderr.contains("  help: did you mean `invade`?\n"), "{stderr}");
    let file = dir.path().join("bad-from.rhai");
    std::fs::write(
        &file,
        "// package: space-hulk-solo\n// mission: breach-run\n// from: set-up\n",
    )
    .unwrap();
    let (_, stderr, code) = servitor_in(dir.path(), &["scenario", "bad-from.rhai"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stderr,
        "error: bad-from.rhai:3: `from:` takes `setup` (start from the package's own set-up)\n"
    );
}

/// A table row's follow-up with a count (`then other-table times d3`) reads as it always did,
/// beside the dice language's `N times …` roll (issue 40): a bare table name before `times`
/// is no roll. (The script fuzz target's package found it broken.)
#[test]
fn a_follow_up_with_a_count_is_no_repeated_roll() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("follow.rules");
    std::fs::write(
        &file,
        "package follow \"Follow-ups\" {\n  version \"0.1.0\"\n}\n\
         table t { dice 2d6; 2-6 => low; 7-12 => high { then u times d3 } }\n\
         table u { dice d6; 1-3 => a; 4-6 => b }\n",
    )
    .unwrap();
    let (stdout, stderr, code) = servitor(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (stdout, stderr, code) = servitor(&[
        "odds",
        file.to_str().unwrap(),
        "--dice",
        "count 3+ in 10d6 then 4+ then fail 3+ times d3",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("20/9"), "{stdout}");
}
