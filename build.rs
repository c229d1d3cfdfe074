//! Bundles `rulesets/` into the binary, so that an installed `servitor` finds its rulesets
//! wherever it runs (`src/package/bundled.rs` reads them).
//!
//! Writes `$OUT_DIR/bundled.rs`: every regular file under `rulesets/`, sorted by its path there
//! (`/`-separated), with its bytes. A link or a name that is not UTF-8 is left out with a
//! warning: a bundled package holds plain files only, as `read_inside` asks of any package.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Read when the script runs, not when it was compiled: a build script compiled for one
    // checkout and reused from a copied `target/` must bundle this checkout's rulesets.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("rulesets");
    // A directory is scanned for any change below it.
    println!("cargo:rerun-if-changed=rulesets");
    println!("cargo:rerun-if-changed=build.rs");
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    walk(&root, "", &mut files);
    files.sort();
    let mut out = String::from(
        "/// Every file bundled from `rulesets/`: its path there and its bytes, sorted by path.\n\
         pub static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (name, path) in &files {
        writeln!(out, "    ({name:?}, include_bytes!({:?})),", path.display().to_string()).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bundled.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        println!(
            "cargo:warning=cannot read {}: no rulesets bundled from it",
            dir.display()
        );
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            println!("cargo:warning=not bundled (name not UTF-8): {}", path.display());
            continue;
        };
        let Ok(kind) = entry.file_type() else { continue };
        let name = format!("{prefix}{name}");
        if kind.is_dir() {
            walk(&path, &format!("{name}/"), files);
        } else if kind.is_file() {
            files.push((name, path));
        } else {
            println!("cargo:warning=not bundled (a link or special file): {}", path.display());
        }
    }
}
