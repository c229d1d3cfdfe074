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
