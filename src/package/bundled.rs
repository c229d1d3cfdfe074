//! The rulesets bundled into the binary by `build.rs`: every file of the source checkout's
//! `rulesets/`, so that an installed `servitor` needs no checkout. Read only through
//! [`super::locate::Place`], whose reads go through the same limits as files on disk
//! (`read_limited`, `read_inside`). [`files`] gives one package's files for
//! `packages --export`; a diagnostic quoting a `<bundled>/…` file says where it comes from
//! (`diagnostic::bundled_hint`). A unit test checks the bundle equals `rulesets/`.

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The bytes of a bundled file, by its `/`-separated path under `rulesets/`.
pub fn file(path: &str) -> Option<&'static [u8]> {
    FILES
        .binary_search_by(|(name, _)| (*name).cmp(path))
        .ok()
        .map(|i| FILES[i].1)
}

/// Every file of a bundled package, by its path inside the package's folder, sorted; empty
/// for a name that is not one.
pub fn files(package: &str) -> Vec<(&'static str, &'static [u8])> {
    FILES
        .iter()
        .filter_map(|(name, bytes)| {
            let inside = name.strip_prefix(package)?.strip_prefix('/')?;
            Some((inside, *bytes))
        })
        .collect()
}

/// Whether `path` is a folder of the bundle (the bundle itself is `""`).
pub fn is_dir(path: &str) -> bool {
    path.is_empty()
        || FILES
            .iter()
            .any(|(name, _)| name.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
}

/// The bundled packages: each folder right under `rulesets/` that holds a `package.rules`,
/// sorted.
pub fn packages() -> Vec<&'static str> {
    FILES
        .iter()
        .filter_map(|(name, _)| name.strip_suffix("/package.rules"))
        .filter(|folder| !folder.contains('/'))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The bundle is `rulesets/` as it is on disk: the same files, byte for byte.
    #[test]
    fn the_bundle_is_the_rulesets_folder() {
        fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
                if entry.file_type().unwrap().is_dir() {
                    walk(&entry.path(), &format!("{name}/"), out);
                } else {
                    out.push((name, std::fs::read(entry.path()).unwrap()));
                }
            }
        }
        let mut on_disk = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets"),
            "",
            &mut on_disk,
        );
        on_disk.sort();
        let bundled: Vec<(String, Vec<u8>)> = super::FILES.iter().map(|(n, b)| (n.to_string(), b.to_vec())).collect();
        assert_eq!(bundled.len(), on_disk.len());
        assert!(bundled == on_disk, "the bundle differs from rulesets/");
        // The packages are the folders of rulesets/ that hold a manifest.
        let mut folders: Vec<String> = on_disk
            .iter()
            .filter_map(|(n, _)| n.strip_suffix("/package.rules"))
            .filter(|n| !n.contains('/'))
            .map(str::to_string)
            .collect();
        folders.sort();
        let mut packages: Vec<String> = super::packages().into_iter().map(str::to_string).collect();
        packages.sort();
        assert!(
            !packages.is_empty() && packages == folders,
            "{packages:?} / {folders:?}"
        );
        let name = packages[0].as_str();
        let cut = &name[..name.len() - 1];
        assert!(super::is_dir(name) && !super::is_dir(cut) && super::is_dir(""));
        assert!(super::file(&format!("{name}/package.rules")).is_some() && super::file(name).is_none());
    }
}
