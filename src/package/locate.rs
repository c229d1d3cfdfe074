//! Where packages live: a path is a path; a bare name is looked up beside the package that
//! names it, then under each rulesets root.

use std::path::{Component, Path, PathBuf};

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

/// A path as the user opens it from the current folder: relative when it lies below it,
/// through `../` when that takes no more steps than the absolute path, absolute otherwise.
/// A path that climbs (`a/../b`) is resolved through the file system first, since `..` after
/// a link is not where the text says; one that cannot be resolved is shown as written.
pub fn shown_path(path: &Path) -> String {
    let plain = |p: &Path| p.display().to_string().replace('\\', "/");
    let Some(here) = std::env::current_dir().ok().map(|c| c.canonicalize().unwrap_or(c)) else {
        return plain(path);
    };
    let absolute = here.join(path);
    let absolute = if absolute.components().any(|c| c == Component::ParentDir) {
        match absolute.canonicalize() {
            Ok(real) => real,
            Err(_) => return plain(path),
        }
    } else {
        absolute.components().filter(|c| *c != Component::CurDir).collect()
    };
    plain(&from(&here, &absolute))
}

/// `there` (absolute) as seen from the folder `here` (absolute): see [`shown_path`].
fn from(here: &Path, there: &Path) -> PathBuf {
    let here: Vec<Component> = here.components().collect();
    let there: Vec<Component> = there.components().collect();
    let common = here.iter().zip(&there).take_while(|(a, b)| a == b).count();
    let ups = here.len() - common;
    let below = there.len() - common;
    // The absolute path's steps, its root (and a Windows drive) not counted.
    let steps = there.iter().filter(|c| matches!(c, Component::Normal(_))).count();
    if ups == 0 && below == 0 {
        return PathBuf::from(".");
    }
    if common == 0 || ups + below > steps {
        return there.iter().collect();
    }
    std::iter::repeat_n(Component::ParentDir, ups)
        .chain(there[common..].iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::from;
    use std::path::Path;

    #[test]
    fn a_path_is_shown_as_it_opens_from_the_current_folder() {
        let shown = |here: &str, there: &str| from(Path::new(here), Path::new(there)).display().to_string();
        assert_eq!(
            shown("/w/servitor", "/w/servitor/rulesets/a/package.rules"),
            "rulesets/a/package.rules"
        );
        assert_eq!(
            shown("/w/servitor/src", "/w/servitor/rulesets/a/package.rules"),
            "../rulesets/a/package.rules"
        );
        assert_eq!(
            shown("/w/servitor/src/cli", "/w/servitor/rulesets/a"),
            "../../rulesets/a"
        );
        // Climbing out further than the absolute path is long: the absolute path.
        assert_eq!(shown("/home/me/games", "/opt/rulesets/a"), "/opt/rulesets/a");
        assert_eq!(shown("/home/me/games/x", "/home/rulesets"), "/home/rulesets");
        assert_eq!(shown("/w/servitor", "/w/servitor"), ".");
    }
}
