//! `servitor packages`: the packages a bare name finds, where they are, what they extend.

use clap::Args;
use servitor::package::{available, roots, shown_path};
use std::path::Path;

#[derive(Args)]
pub struct PackagesArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

/// A path as the user would type it from the current folder, `./` before a relative one
/// (so that it reads as a path, not a bare name).
pub fn shown(path: &Path) -> String {
    let shown = shown_path(path);
    if shown == "." || shown.starts_with('/') || shown.starts_with("..") || shown.contains(':') {
        shown
    } else {
        format!("./{shown}")
    }
}

/// The roots that exist, each folder once, as shown to the user.
fn looked_in(roots: &[std::path::PathBuf]) -> Vec<String> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for root in roots {
        let Ok(canonical) = root.canonicalize() else { continue };
        if !seen.contains(&canonical) {
            seen.push(canonical);
            out.push(shown(root));
        }
    }
    out
}

pub fn run(args: PackagesArgs) -> Result<(), String> {
    let roots = roots();
    let found = available(&roots);
    let mut rows = Vec::new();
    for a in &found {
        // Loaded for its title and bases; one that does not load is listed all the same.
        let (title, extends, loads) = match servitor::load(&a.folder.to_string_lossy()) {
            Ok(loaded) => {
                let r = &loaded.ruleset;
                let bases: Vec<String> = r.packages.iter().rev().skip(1).map(|p| p.name.clone()).collect();
                (r.info().title.clone(), bases, true)
            }
            Err(_) => (None, Vec::new(), false),
        };
        rows.push((a, title, extends, loads));
    }
    if args.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(a, title, extends, loads)| {
                serde_json::json!({
                    "name": a.name, "title": title, "extends": extends, "folder": shown(&a.folder),
                    "hidden": a.hidden, "loads": loads,
                })
            })
            .collect();
        let looked = looked_in(&roots);
        super::emitln(&serde_json::json!({ "packages": list, "looked_in": looked }).to_string());
        return Ok(());
    }
    let mut out = String::from("Packages a bare name finds (the first of a name is the one loaded):\n");
    let w = rows.iter().map(|(a, ..)| a.name.len()).max().unwrap_or(0);
    for (a, title, extends, loads) in &rows {
        let mut about = title.clone().unwrap_or_default();
        if !extends.is_empty() {
            about.push_str(&format!(" (extends {})", extends.join(" → ")));
        }
        if !loads {
            about = format!("does not load: `servitor check {}` says why", shown(&a.folder));
        }
        if a.hidden {
            about = format!("hidden by the {} above", a.name);
        }
        out.push_str(&format!("  {:<w$}  {}\n      {}\n", a.name, about, shown(&a.folder)));
    }
    if rows.is_empty() {
        out.push_str("  (none)\n");
    }
    let looked = looked_in(&roots);
    out.push_str(&format!(
        "Looked in: {} (set SERVITOR_RULESETS to add folders).\nAny package folder or .rules file may also be given by its path, e.g. examples/variants/more-blips.\n",
        looked.join(", ")
    ));
    super::emit(&out);
    Ok(())
}
