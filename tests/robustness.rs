//! No input may panic: every malformed fixture, and truncated and garbled copies of every
//! bundled rules file and script, go through the whole loader.

use std::path::{Path, PathBuf};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "rules" || e == "rhai") {
            out.push(path);
        }
    }
}

/// Copies of `text`: cut at several points, and with bytes swapped for troublesome ones.
fn mutants(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    for k in 1..4 {
        out.push(chars[..n * k / 4].iter().collect());
    }
    let nasty = ['{', '"', '\n', 'é', '|'];
    for (k, c) in nasty.iter().enumerate() {
        let mut copy = chars.clone();
        for i in (k * 7..n).step_by(53 + k) {
            copy[i] = *c;
        }
        out.push(copy.into_iter().collect());
    }
    out
}

#[test]
fn garbled_bundled_files_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let mut loads = 0;
    for package in std::fs::read_dir(root.join("rulesets")).unwrap() {
        let package = package.unwrap().path();
        let mut files = Vec::new();
        files_under(&package, &mut files);
        for file in &files {
            let original = std::fs::read_to_string(file).unwrap();
            // A copy of the package (and its base, found by name among the bundled rulesets) with one file garbled.
            let copy = work.path().join(package.file_name().unwrap());
            let _ = std::fs::remove_dir_all(&copy);
            copy_dir(&package, &copy);
            let target = copy.join(file.strip_prefix(&package).unwrap());
            for mutant in mutants(&original) {
                std::fs::write(&target, &mutant).unwrap();
                let _ = servitor::load(&copy.display().to_string());
                loads += 1;
            }
        }
    }
    assert!(loads > 100, "only {loads} loads");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

#[test]
fn garbled_fixtures_never_panic_the_parser() {
    let mut files = Vec::new();
    files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors"), &mut files);
    assert!(files.len() >= 25);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for mutant in mutants(&text) {
            let _ = servitor::syntax::parse(servitor::source::FileId(0), &mutant);
        }
    }
}

#[test]
fn dice_text_never_panics() {
    for text in [
        "",
        "d",
        "d0",
        "0d6",
        "99999999999d6",
        "d99999999999",
        "2d6+",
        "+",
        "--1",
        "2 2",
        "d6d6",
        "é",
        "1d3+5",
        "d66-66",
    ] {
        let _ = servitor::syntax::parse_dice_text(text);
    }
}
