//! Where packages live: a path is a path; a bare name is looked up beside the package that
//! names it, then under each rulesets root.

use std::path::{Path, PathBuf};

/// The file every package folder holds.
pub const MANIFEST: &str = "package.rules";

/// Folders searched for bare package names, in order: `$SERVITOR_RULESETS` (a list of
/// folders), `./rulesets`, and the `rulesets/` folder this build came from.
pub fn roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(list) = std::env::var_os("SERVITOR_RULESETS") {
        roots.extend(std::env::split_paths(&list));
    }
    roots.push(PathBuf::from("rulesets"));
    roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets"));
    roots
}

/// Whether an argument names a path rather than a bare package name.
pub fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.starts_with('.')
}

/// Finds a package's manifest: `<folder>/package.rules`, or a single `.rules` file given by
/// path (a one-file package). `beside` is the folder of the package asking (for `extends`).
pub fn find(arg: &str, beside: Option<&Path>, roots: &[PathBuf]) -> Result<PathBuf, Vec<PathBuf>> {
    let candidates: Vec<PathBuf> = if looks_like_path(arg) {
        vec![match beside {
            Some(dir) => dir.join(arg),
            None => PathBuf::from(arg),
        }]
    } else {
        let sibling = beside.and_then(Path::parent).map(|p| p.join(arg));
        sibling.into_iter().chain(roots.iter().map(|r| r.join(arg))).collect()
    };
    for candidate in &candidates {
        if candidate.join(MANIFEST).is_file() {
            return Ok(candidate.join(MANIFEST));
        }
        if candidate.is_file() && candidate.extension().is_some_and(|e| e == "rules") {
            return Ok(candidate.clone());
        }
    }
    Err(candidates)
}

/// Names of the packages found under the roots, for "did you mean" and listings.
pub fn known_packages(roots: &[PathBuf]) -> Vec<String> {
    let mut names = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else { continue };
        for entry in entries.flatten() {
            if entry.path().join(MANIFEST).is_file() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    names.sort();
    names
}
