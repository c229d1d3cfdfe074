//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

pub mod sessions;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Every bundled package (a folder under `rulesets/`), by name, sorted.
pub fn bundled_packages() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets");
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Loads a bundled package, failing the test with the rendered report if it does not load.
pub fn load(package: &str) -> servitor::Ruleset {
    servitor::load(package)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .ruleset
}

/// Runs the built binary as a user does, from the checkout, with `input` on its standard input:
/// (stdout, stderr, exit code).
pub fn servitor(args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A run that ends before reading its input (a refused file) closes the pipe: not a failure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Runs the binary and fails the test unless it exits 0; its standard output.
pub fn ok(args: &[&str]) -> String {
    let (stdout, stderr, code) = servitor(args, "");
    assert_eq!(code, 0, "servitor {args:?} failed:\n{stderr}");
    stdout
}
