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

/// A package found under a root: its name, its folder, and whether an earlier root's package
/// of the same name hides it.
#[derive(Debug, Clone)]
pub struct Available {
    pub name: String,
    pub folder: PathBuf,
    pub hidden: bool,
}

/// Every package folder under the roots, in the order bare names are looked up (the first of
/// a name is the one loaded), sorted by name within a root.
pub fn available(roots: &[PathBuf]) -> Vec<Available> {
    let mut out: Vec<Available> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for root in roots {
        // The same folder reached twice (`./rulesets` in the checkout) is listed once.
        let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
        if seen.contains(&canonical) {
            continue;
        }
        seen.push(canonical);
        let Ok(entries) = std::fs::read_dir(root) else { continue };
        let mut here: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().join(MANIFEST).is_file())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        here.sort();
        for (name, folder) in here {
            let hidden = out.iter().any(|a| a.name == name);
            out.push(Available { name, folder, hidden });
        }
    }
    out
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
