//! Where packages live. A path is a path. A bare name given on the command line is looked up
//! in the current folder (`./NAME`), then in each folder of `$SERVITOR_RULESETS`, then in
//! `./rulesets` (a source checkout), then among the rulesets bundled into servitor; a bare
//! name in `extends` beside the package that names it, then in the same roots but the current
//! folder (a package means the same wherever the user stands).
//!
//! A [`Place`] is a file on disk, in the bundle, or among files given as texts
//! ([`Place::Given`]: the files a browser's user picked, which `package::load_given` loads as
//! it would the same folder on disk, `extends` looked up in the roots). [`available`] lists
//! the packages root by root; [`shown_path`] is the one way a file's path is shown: as it
//! opens from the current folder.

use super::bundled;
use std::path::{Component, Path, PathBuf};

/// The file every package folder holds.
pub const MANIFEST: &str = "package.rules";

/// Files given as texts, by their `/`-separated path (a package picked in a browser, where
/// there is no disk): what [`Place::Given`] reads.
pub type GivenFiles = std::sync::Arc<std::collections::BTreeMap<String, String>>;

/// Where a package's file or folder is: on disk, in the rulesets bundled into servitor, or
/// among files given as texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Disk(PathBuf),
    /// A `/`-separated path inside the bundle, without `.` or `a/..` (the bundle holds no
    /// links, so this is exact); `""` is the bundle itself, and a path that climbs out of it
    /// keeps its leading `..` and names nothing.
    Bundled(String),
    /// A `/`-separated path among given files (written as a bundled path is); a bare name an
    /// `extends` looks up beside it and does not find there is looked up in the roots.
    Given(GivenFiles, String),
}

/// `relative` taken from the `/`-separated folder `dir` (a bundled or given path).
fn join_slashed(dir: &str, relative: &Path) -> String {
    let mut parts: Vec<String> = dir.split('/').filter(|p| !p.is_empty()).map(str::to_string).collect();
    for part in relative.components() {
        match part {
            Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            Component::ParentDir if parts.last().is_some_and(|p| p != "..") => {
                parts.pop();
            }
            Component::ParentDir => parts.push("..".into()),
            _ => {}
        }
    }
    parts.join("/")
}

/// The folder holding the `/`-separated `path` (`""` at the top).
fn parent_slashed(path: &str) -> String {
    path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string()
}

impl Place {
    /// `relative` taken from this folder, as `Path::join` does (an absolute path is itself, on
    /// disk).
    pub fn join(&self, relative: impl AsRef<Path>) -> Place {
        let relative = relative.as_ref();
        match self {
            Place::Disk(dir) => Place::Disk(dir.join(relative)),
            Place::Bundled(_) | Place::Given(..) if relative.has_root() => Place::Disk(relative.to_path_buf()),
            Place::Bundled(dir) => Place::Bundled(join_slashed(dir, relative)),
            Place::Given(files, dir) => Place::Given(files.clone(), join_slashed(dir, relative)),
        }
    }

    /// The folder holding this place.
    pub fn parent(&self) -> Option<Place> {
        match self {
            Place::Disk(path) => path.parent().map(|p| Place::Disk(p.to_path_buf())),
            Place::Bundled(path) if path.is_empty() => None,
            Place::Bundled(path) => Some(Place::Bundled(parent_slashed(path))),
            Place::Given(_, path) if path.is_empty() => None,
            Place::Given(files, path) => Some(Place::Given(files.clone(), parent_slashed(path))),
        }
    }

    /// The place as a path, for its name and extension (a bundled one is relative to the
    /// bundle).
    pub fn path(&self) -> &Path {
        match self {
            Place::Disk(path) => path,
            Place::Bundled(path) | Place::Given(_, path) => Path::new(path),
        }
    }

    pub fn is_file(&self) -> bool {
        match self {
            Place::Disk(path) => path.is_file(),
            Place::Bundled(path) => bundled::file(path).is_some(),
            Place::Given(files, path) => files.contains_key(path),
        }
    }

    /// The place with every link and `..` resolved, if it exists: two places are the same
    /// file when their real places are equal.
    pub fn real(&self) -> Option<Place> {
        match self {
            Place::Disk(path) => path.canonicalize().ok().map(Place::Disk),
            Place::Bundled(path) if bundled::file(path).is_some() || bundled::is_dir(path) => Some(self.clone()),
            Place::Bundled(_) => None,
            Place::Given(files, path) => {
                let folder = |name: &String| name.strip_prefix(path.as_str()).is_some_and(|r| r.starts_with('/'));
                (path.is_empty() || files.contains_key(path) || files.keys().any(folder)).then(|| self.clone())
            }
        }
    }

    /// Whether this place lies inside the folder `dir` (both real).
    pub fn is_inside(&self, dir: &Place) -> bool {
        match (self, dir) {
            (Place::Disk(path), Place::Disk(dir)) => path.starts_with(dir),
            (Place::Bundled(path), Place::Bundled(dir)) => Path::new(path).starts_with(dir),
            (Place::Given(_, path), Place::Given(_, dir)) => Path::new(path).starts_with(dir),
            _ => false,
        }
    }

    /// The name a diagnostic gives this place: a path that opens from the current folder
    /// ([`shown_path`]), or `<bundled>/…` for a bundled file.
    pub fn shown(&self) -> String {
        match self {
            Place::Disk(path) => shown_path(path),
            Place::Bundled(path) => format!("<bundled>/{path}"),
            // As the files were named when given (the package's own folder names them).
            Place::Given(_, path) => path.clone(),
        }
    }

    /// The place as the user would type it as a package argument: a relative path starts
    /// with `./`, so that it reads as a path and not as a bare name.
    pub fn typed(&self) -> String {
        let shown = self.shown();
        let is_path = shown == "."
            || shown.starts_with('/')
            || shown.starts_with("..")
            || shown.starts_with('<')
            || shown.contains(':');
        if is_path { shown } else { format!("./{shown}") }
    }
}

/// Where bare package names are looked up, in order ([`roots`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Root {
    /// The current folder: for a name given on the command line, not for `extends`.
    Here,
    /// A folder listed in `$SERVITOR_RULESETS`.
    Listed(PathBuf),
    /// `./rulesets`, when the current folder has one (a source checkout): its files are the
    /// ones a diagnostic points at and an author edits, and they need no rebuild.
    Checkout,
    /// The rulesets bundled into servitor (`build.rs`).
    Bundled,
}

impl Root {
    pub fn place(&self) -> Place {
        match self {
            Root::Here => Place::Disk(PathBuf::from(".")),
            Root::Listed(dir) => Place::Disk(dir.clone()),
            Root::Checkout => Place::Disk(PathBuf::from("rulesets")),
            Root::Bundled => Place::Bundled(String::new()),
        }
    }

    /// Where a package found under this root comes from, in a few words.
    pub fn describe(&self) -> &'static str {
        match self {
            Root::Here => "the current folder",
            Root::Listed(_) => "$SERVITOR_RULESETS",
            Root::Checkout => "./rulesets",
            Root::Bundled => "bundled with servitor",
        }
    }
}

/// The roots searched for bare package names, in order: the current folder, each folder of
/// `$SERVITOR_RULESETS` (a list of folders, as `PATH` is written), `./rulesets` if there is
/// one, the bundled rulesets.
pub fn roots() -> Vec<Root> {
    let mut roots = vec![Root::Here];
    if let Some(list) = std::env::var_os("SERVITOR_RULESETS") {
        roots.extend(
            std::env::split_paths(&list)
                .filter(|p| !p.as_os_str().is_empty())
                .map(Root::Listed),
        );
    }
    if Path::new("rulesets").is_dir() {
        roots.push(Root::Checkout);
    }
    roots.push(Root::Bundled);
    roots
}

/// Whether an argument names a path rather than a bare package name.
pub fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.starts_with('.')
}

/// Finds a package's manifest: `<folder>/package.rules`, or a single `.rules` file (a
/// one-file package). `beside` is the folder of the package asking (for `extends`): a path is
/// taken from there, and a bare name is looked up beside it first and never in the current
/// folder. On failure, the places looked in.
pub fn find(arg: &str, beside: Option<&Place>, roots: &[Root]) -> Result<Place, Vec<Place>> {
    let candidates: Vec<Place> = if looks_like_path(arg) {
        vec![match beside {
            Some(dir) => dir.join(arg),
            None => Place::Disk(PathBuf::from(arg)),
        }]
    } else {
        let sibling = beside.and_then(Place::parent).map(|p| p.join(arg));
        let roots = roots.iter().filter(|r| beside.is_none() || **r != Root::Here);
        sibling.into_iter().chain(roots.map(|r| r.place().join(arg))).collect()
    };
    for candidate in &candidates {
        let manifest = candidate.join(MANIFEST);
        if manifest.is_file() {
            return Ok(manifest);
        }
        if candidate.is_file() && candidate.path().extension().is_some_and(|e| e == "rules") {
            return Ok(candidate.clone());
        }
    }
    Err(candidates)
}

/// A package found under a root: its name, its folder, the root, and whether an earlier
/// root's package of the same name hides it.
#[derive(Debug, Clone)]
pub struct Available {
    pub name: String,
    pub folder: Place,
    pub root: Root,
    pub hidden: bool,
}

/// Every package folder under the roots, in the order bare names are looked up (the first of
/// a name is the one loaded), sorted by name within a root.
pub fn available(roots: &[Root]) -> Vec<Available> {
    let mut out: Vec<Available> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for root in roots {
        let mut here: Vec<(String, Place)> = match root.place() {
            Place::Bundled(_) => bundled::packages()
                .into_iter()
                .map(|name| (name.to_string(), Place::Bundled(name.to_string())))
                .collect(),
            Place::Disk(dir) => {
                // The same folder reached twice (`.` also listed in `$SERVITOR_RULESETS`) is
                // listed once.
                let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
                if seen.contains(&canonical) {
                    continue;
                }
                seen.push(canonical);
                let Ok(entries) = std::fs::read_dir(&dir) else { continue };
                entries
                    .flatten()
                    // A name starting with `.` is read as a path, never as a bare name.
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .filter(|e| e.path().join(MANIFEST).is_file())
                    .map(|e| (e.file_name().to_string_lossy().into_owned(), Place::Disk(e.path())))
                    .collect()
            }
            // No root is a set of given files.
            Place::Given(..) => continue,
        };
        here.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, folder) in here {
            let hidden = out.iter().any(|a| a.name == name);
            out.push(Available {
                name,
                folder,
                root: root.clone(),
                hidden,
            });
        }
    }
    out
}

/// Names of the packages found under the roots, for "did you mean" and listings.
pub fn known_packages(roots: &[Root]) -> Vec<String> {
    let mut names: Vec<String> = available(roots).into_iter().map(|a| a.name).collect();
    names.sort();
    names.dedup();
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
    use super::{Place, from};
    use std::path::{Path, PathBuf};

    /// Files given as texts (a browser's picks) load as the same package on disk does, its
    /// `extends` found among the bundled rulesets; a path leading out of them, or a broken
    /// file, is refused with the given file's name.
    #[test]
    fn given_files_load_as_the_package_on_disk() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/variants/commander-hunters");
        let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap();
        let given = |files: &[(&str, String)]| -> super::GivenFiles {
            std::sync::Arc::new(files.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
        };
        let files = given(&[
            ("package.rules", read("package.rules")),
            ("scripts/hunt.rhai", read("scripts/hunt.rhai")),
        ]);
        let from_files = crate::package::load_given(files).unwrap_or_else(|e| panic!("{}", e.render(false)));
        let from_disk = crate::package::load(&root.display().to_string()).unwrap();
        assert_eq!(from_files.ruleset.name(), from_disk.ruleset.name());
        assert_eq!(from_files.ruleset.packages.len(), from_disk.ruleset.packages.len());
        assert_eq!(from_files.ruleset.scripts.len(), from_disk.ruleset.scripts.len());
        // A script left out: the error names the file as it was given.
        let missing = given(&[("package.rules", read("package.rules"))]);
        let e = crate::package::load_given(missing).err().unwrap().render(false);
        assert!(
            e.contains("scripts/hunt.rhai") && e.contains("no such file among the files given"),
            "{e}"
        );
        // One `.rules` file alone is a package; two with no package.rules are refused.
        let one = given(&[("house.rules", "package house \"x\" { version \"0.1.0\" }\n".into())]);
        assert!(crate::package::load_given(one).is_ok());
        let two = given(&[("a.rules", String::new()), ("b.rules", String::new())]);
        let e = crate::package::load_given(two).err().unwrap().render(false);
        assert!(e.contains("package.rules"), "{e}");
        let p = Place::Given(given(&[("package.rules", String::new())]), "package.rules".into());
        // Nothing lies above the given files: a path climbing out names nothing.
        assert_eq!(p.parent().unwrap().join("../x.rules").real(), None);
    }

    /// A bundled place joins as a path on disk would (the bundle holds no links), never
    /// climbs out of the bundle, and is inside a folder as a real path on disk would be: so
    /// `read_inside` refuses for a bundled package what it refuses on disk.
    #[test]
    fn bundled_places_join_and_nest_as_paths_on_disk() {
        // Any bundled package will do: the engine names none.
        let name = super::bundled::packages()[0];
        let p = |rest: &str| format!("{name}{rest}");
        let package = Place::Bundled(name.into());
        let b = |s: &str| Place::Bundled(s.into());
        assert_eq!(package.join("scripts/./a.rhai"), b(&p("/scripts/a.rhai")));
        assert_eq!(package.join("../other/x.rules"), b("other/x.rules"));
        assert_eq!(package.join("../../x.rules"), b("../x.rules"));
        assert_eq!(package.join("/etc/passwd"), Place::Disk(PathBuf::from("/etc/passwd")));
        assert_eq!(b(&p("/package.rules")).parent(), Some(package.clone()));
        assert_eq!(package.parent(), Some(b("")));
        assert!(b(&p("/package.rules")).real().is_some() && b("../x.rules").real().is_none());
        assert!(b(&p("/x.rules")).is_inside(&package));
        // A sibling whose name starts with this one's is not inside it.
        assert!(!b(&p("-other/package.rules")).is_inside(&package));
        assert!(!package.join("../other/package.rules").is_inside(&package));
        assert!(!Place::Disk(PathBuf::from(p("/x"))).is_inside(&package));
    }

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
