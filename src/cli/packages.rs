//! `servitor packages`: the packages a bare name finds, where each comes from, what it
//! extends.

use clap::Args;
use servitor::package::{Available, Place, Root, available, roots};

#[derive(Args)]
pub struct PackagesArgs {
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Copy a bundled package's files out, to read it or start a variant from it: into
    /// DIR/NAME (existing files are never overwritten)
    #[arg(long, num_args = 2, value_names = ["NAME", "DIR"])]
    export: Option<Vec<String>>,
}

/// `--export NAME DIR`: writes every file of the bundled package NAME under DIR/NAME, after
/// checking that none of them exists yet.
fn export(name: &str, dir: &str) -> Result<(), super::Failure> {
    let files = servitor::package::bundled_files(name);
    if files.is_empty() {
        let mut names = servitor::package::bundled_packages();
        names.sort_unstable();
        let hint = servitor::diagnostic::did_you_mean(name, names.iter().copied())
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        return Err(super::usage(format!(
            "error: no bundled package `{}`{hint}\n  bundled: {}",
            servitor::escape::one_line(name),
            names.join(", ")
        )));
    }
    let folder = std::path::Path::new(dir).join(name);
    let shown = |p: &std::path::Path| servitor::escape::one_line(&p.display().to_string()).into_owned();
    let existing: Vec<String> = files
        .iter()
        .map(|(path, _)| folder.join(path))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .map(|p| shown(&p))
        .collect();
    if !existing.is_empty() {
        return Err(super::usage(format!(
            "error: {} already there; nothing was written (export into another folder, or move {} away)\n  {}",
            if existing.len() == 1 { "a file is" } else { "files are" },
            shown(&folder),
            existing.join("\n  ")
        )));
    }
    for (path, bytes) in &files {
        let to = folder.join(path);
        let write = || -> std::io::Result<()> {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            // `create_new`: a file that appeared since the check above is not overwritten.
            use std::io::Write;
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&to)?
                .write_all(bytes)
        };
        write().map_err(|e| super::Failure::Failed(format!("error: cannot write {}: {e}", shown(&to))))?;
    }
    let mut out = format!("wrote {} files of `{name}` to {}:\n", files.len(), shown(&folder));
    for (path, _) in &files {
        out.push_str(&format!("  {path}\n"));
    }
    out.push_str(&format!(
        "`servitor check {}` loads it from there; a variant that extends it by name still finds the bundled one unless the export sits beside it\n",
        shown(&folder)
    ));
    super::emit(&out);
    Ok(())
}

/// The folders of `$SERVITOR_RULESETS`, as shown to the user.
fn listed(roots: &[Root]) -> Vec<String> {
    roots
        .iter()
        .filter_map(|r| match r {
            Root::Listed(dir) => Some(Place::Disk(dir.clone()).typed()),
            _ => None,
        })
        .collect()
}

/// Where a package comes from, under its name: its folder and root, or the bundle.
fn origin(a: &Available) -> String {
    match &a.folder {
        Place::Bundled(_) => a.root.describe().to_string(),
        disk => format!("{}  (from {})", disk.typed(), a.root.describe()),
    }
}

pub fn run(args: PackagesArgs) -> Result<(), super::Failure> {
    if let Some([name, dir]) = args.export.as_deref() {
        if args.json {
            return Err(super::usage("error: --export writes files; it has no --json"));
        }
        return export(name, dir);
    }
    let roots = roots();
    let found = available(&roots);
    let mut rows = Vec::new();
    for a in &found {
        // Loaded for its title and bases; one that does not load is listed all the same. One
        // that is hidden is not what its name loads, and says so instead.
        let (title, extends, loads) = if a.hidden {
            (None, Vec::new(), true)
        } else {
            let arg = match &a.folder {
                Place::Bundled(_) => a.name.clone(),
                disk => disk.typed(),
            };
            match servitor::load(&arg) {
                Ok(loaded) => {
                    let r = &loaded.ruleset;
                    // Base first, as `check` shows the chain.
                    let bases: Vec<String> = r.packages[..r.packages.len() - 1]
                        .iter()
                        .map(|p| p.name.clone())
                        .collect();
                    (r.info().title.clone(), bases, true)
                }
                Err(_) => (None, Vec::new(), false),
            }
        };
        rows.push((a, title, extends, loads));
    }
    if args.json {
        let list: Vec<_> = rows
            .iter()
            .map(|(a, title, extends, loads)| {
                let (from, folder) = match (&a.root, &a.folder) {
                    (_, Place::Bundled(_)) => ("bundled", None),
                    (Root::Here, disk) => ("current folder", Some(disk.typed())),
                    (Root::Checkout, disk) => ("./rulesets", Some(disk.typed())),
                    (_, disk) => ("SERVITOR_RULESETS", Some(disk.typed())),
                };
                serde_json::json!({
                    "name": a.name, "title": title, "extends": extends, "from": from, "folder": folder,
                    "hidden": a.hidden, "loads": loads,
                })
            })
            .collect();
        let checkout = roots.contains(&Root::Checkout);
        let order = serde_json::json!({ "current_folder": true, "servitor_rulesets": listed(&roots), "rulesets_folder": checkout, "bundled": true });
        super::emit_json(&serde_json::json!({ "packages": list, "looked_up": order }));
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
            about = format!("does not load: `servitor check {}` says why", a.folder.typed());
        }
        if a.hidden {
            about = format!("hidden by the {} above", a.name);
        }
        out.push_str(&format!("  {:<w$}  {}\n      {}\n", a.name, about, origin(a)));
    }
    if rows.is_empty() {
        out.push_str("  (none)\n");
    }
    let listed = listed(&roots);
    let listed = if listed.is_empty() {
        "not set".to_string()
    } else {
        listed.join(", ")
    };
    out.push_str(&format!(
        "A bare NAME is looked up as ./NAME in the current folder, then in each folder of\n\
         $SERVITOR_RULESETS ({listed}), then in ./rulesets{}, then among the rulesets bundled\n\
         with servitor.\n\
         A package may also be given by its path: a folder or a .rules file, e.g. ./my-variant.\n",
        if roots.contains(&Root::Checkout) {
            ""
        } else {
            " (none here)"
        }
    ));
    super::emit(&out);
    Ok(())
}
