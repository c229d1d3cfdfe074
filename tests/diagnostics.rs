//! Every malformed fixture under `tests/errors/` fails to load, and its report — as a user
//! sees it, without colour — is snapshotted.

use std::path::Path;

fn report_of(path: &Path) -> String {
    let arg = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path);
    match servitor::load(&arg.display().to_string()) {
        Ok(_) => panic!("{} loaded without errors; a fixture here must be broken", arg.display()),
        Err(error) => error.render(false),
    }
}

#[test]
fn one_file_fixtures() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    insta::glob!("errors/*.rules", |path| {
        insta::assert_snapshot!(report_of(path));
    });
}

#[test]
fn folder_fixtures() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    insta::glob!("errors/*/package.rules", |path| {
        insta::assert_snapshot!(report_of(path.parent().unwrap()));
    });
}

#[test]
fn there_are_at_least_25_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors");
    let count = std::fs::read_dir(dir).unwrap().count();
    assert!(count >= 25, "only {count} malformed fixtures");
}

/// No false alarms from the script check: every bundled package, example variant and test
/// game loads with no diagnostic at all — not even a warning — so a script check that
/// flags a correct script is caught here.
#[test]
fn every_bundled_package_example_and_test_game_checks_clean() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut checked = 0;
    for dir in ["rulesets", "examples/variants", "tests/games"] {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if !path.join("package.rules").is_file() {
                continue;
            }
            let arg = path.display().to_string();
            match servitor::load(&arg) {
                Ok(loaded) => assert!(
                    loaded.warnings.diagnostics.is_empty(),
                    "{arg}:\n{}",
                    loaded.warnings.render(&loaded.ruleset.sources, false)
                ),
                Err(e) => panic!("{arg}:\n{}", e.render(false)),
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked}");
}
