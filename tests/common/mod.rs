//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::path::Path;

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
