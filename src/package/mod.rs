//! Loading packages: read a folder and the packages it `extends`, merge each layer's
//! items over its base (`override` / `remove`), then resolve and check the result into a
//! [`Ruleset`]. Every problem found on the way is collected into one [`Report`].
//!
//! Here the manifest, its includes and scripts, and the `extends` chain are read:
//! `read_inside` keeps includes and scripts to regular files inside the package's folder, and
//! `read_limited` bounds each file and the whole load. [`load`] reads a folder, a bare name or
//! a single `.rules` file (its own manifest); [`load_with`] lays an editor's unsaved texts
//! over the files (an [`Overlay`], for `servitor lsp`); [`load_given`] loads files given as
//! texts (the web page's picked variant). Then `merge` layers the items and `lower`
//! resolves them. A package chain's scripts are merged into one program: a later package's
//! function replaces a base's of the same name.

mod bundled;
mod locate;
mod lower;
mod merge;

pub use locate::{
    Available, GivenFiles, MANIFEST, Place, Root, available, known_packages, looks_like_path, roots, shown_path,
};

use crate::diagnostic::{Diagnostic, Report, did_you_mean, thousands};
use crate::limits::{MAX_FILE_BYTES, MAX_PACKAGE_BYTES};
use crate::ruleset::{PackageInfo, Ruleset};
use crate::script::{self, Script};
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::{self, ast};
use merge::Merged;
use std::path::{Component, Path};

/// Why a package could not be loaded.
#[derive(Debug)]
pub enum LoadError {
    /// Nothing to point at: the package named on the command line does not exist.
    NotFound {
        name: String,
        looked_in: Vec<Place>,
        hint: Option<String>,
    },
    /// Diagnostics in the package's files.
    Invalid { sources: SourceMap, report: Report },
}

impl LoadError {
    /// The error as the user sees it.
    pub fn render(&self, color: bool) -> String {
        match self {
            LoadError::NotFound { name, looked_in, hint } => {
                let mut s = format!("error: no package `{name}` (a folder with a {MANIFEST}, or a .rules file)\n");
                let mut shown: Vec<String> = Vec::new();
                for place in looked_in {
                    let name = place.typed();
                    if !shown.contains(&name) {
                        s.push_str(&format!("  looked in {name}\n"));
                        shown.push(name);
                    }
                }
                if let Some(h) = hint {
                    s.push_str(&format!("  help: {h}\n"));
                }
                s
            }
            LoadError::Invalid { sources, report } => report.render(sources, color),
        }
    }
}

/// A loaded ruleset and the warnings found while loading it.
pub struct Loaded {
    pub ruleset: Ruleset,
    pub warnings: Report,
}

/// Texts of files not yet saved, by their absolute path: what an editor holds (`servitor
/// lsp`), read instead of the file on disk.
pub type Overlay = std::collections::HashMap<std::path::PathBuf, String>;

/// Loads a package given as a path or a bare name (looked up under [`roots`]: `./NAME`,
/// `$SERVITOR_RULESETS`, the bundled rulesets).
pub fn load(arg: &str) -> Result<Loaded, LoadError> {
    load_with(arg, Overlay::new())
}

/// [`load`], reading the files `overlay` holds from it instead of from disk (an editor's
/// unsaved buffers); every check and limit is the same.
pub fn load_with(arg: &str, overlay: Overlay) -> Result<Loaded, LoadError> {
    let roots = roots();
    let manifest = locate::find(arg, None, &roots).map_err(|looked_in| LoadError::NotFound {
        name: arg.to_string(),
        looked_in,
        hint: did_you_mean(arg, known_packages(&roots).iter().map(String::as_str))
            .or_else(|| Some("`servitor packages` lists the packages a bare name finds".into())),
    })?;
    load_manifest(manifest, roots, overlay)
}

/// A package given as files' texts by their `/`-separated paths (a browser's picked files):
/// its `package.rules` at the top, or its one `.rules` file; an `extends` of a bare name not
/// among them is looked up in the roots (the bundled rulesets in a browser). Every check and
/// limit is a package on disk's.
pub fn load_given(files: locate::GivenFiles) -> Result<Loaded, LoadError> {
    let rules: Vec<&String> = files.keys().filter(|k| k.ends_with(".rules")).collect();
    let entry = if files.contains_key(locate::MANIFEST) {
        locate::MANIFEST.to_string()
    } else if let [one] = rules.as_slice() {
        (*one).clone()
    } else {
        let looked_in = vec![Place::Given(files.clone(), locate::MANIFEST.to_string())];
        return Err(LoadError::NotFound {
            name: locate::MANIFEST.into(),
            looked_in,
            hint: Some("give a package's folder (its package.rules at the top) or one .rules file".into()),
        });
    };
    load_manifest(Place::Given(files, entry), roots(), Overlay::new())
}

fn load_manifest(manifest: Place, roots: Vec<Root>, overlay: Overlay) -> Result<Loaded, LoadError> {
    let mut loader = Loader {
        sources: SourceMap::default(),
        report: Report::default(),
        roots,
        stack: Vec::new(),
        scripts_failed: false,
        compiler: script::Compiler::default(),
        bytes_read: 0,
        overlay,
    };
    let layers = loader.load_layers(&manifest, None);
    let Loader {
        mut sources,
        mut report,
        scripts_failed,
        ..
    } = loader;
    let Some((merged, packages, scripts)) = layers else {
        return Err(LoadError::Invalid { sources, report });
    };
    let ruleset = lower::lower(merged, packages, scripts, scripts_failed, &mut sources, &mut report);
    if report.has_errors() {
        return Err(LoadError::Invalid { sources, report });
    }
    let mut ruleset = ruleset;
    ruleset.sources = sources;
    Ok(Loaded {
        ruleset,
        warnings: report,
    })
}

struct Loader {
    sources: SourceMap,
    report: Report,
    roots: Vec<Root>,
    /// Manifests being loaded (real places), to catch `extends` cycles.
    stack: Vec<Place>,
    /// A script failed to compile, so its functions are unknown.
    scripts_failed: bool,
    compiler: script::Compiler,
    /// Bytes of all files read so far.
    bytes_read: u64,
    /// Unsaved texts read instead of the files on disk.
    overlay: Overlay,
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`] and at most `budget` bytes as UTF-8.
/// A bundled file goes through the same checks as one on disk: only where the bytes come
/// from differs.
fn read_limited(place: &Place, budget: u64) -> Result<String, String> {
    use std::io::Read;
    let limit = MAX_FILE_BYTES.min(budget);
    let too_large = || {
        if budget < MAX_FILE_BYTES {
            format!(
                "the package's files come to more than {} bytes in all (`MAX_PACKAGE_BYTES`, see \"Limits\" in docs/limits.md)",
                thousands(MAX_PACKAGE_BYTES)
            )
        } else {
            format!(
                "larger than {} bytes (`MAX_FILE_BYTES`, see \"Limits\" in docs/limits.md): split it into several files",
                thousands(MAX_FILE_BYTES)
            )
        }
    };
    let bytes = match place {
        Place::Disk(path) => {
            let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
            if !meta.is_file() {
                return Err("not a regular file (a package's files are plain text files)".into());
            }
            if meta.len() > limit {
                return Err(too_large());
            }
            let mut bytes = Vec::new();
            std::fs::File::open(path)
                .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
                .map_err(|e| e.to_string())?;
            bytes
        }
        Place::Bundled(path) => match bundled::file(path) {
            Some(bytes) => bytes.to_vec(),
            None if bundled::is_dir(path) => {
                return Err("not a regular file (a package's files are plain text files)".into());
            }
            None => return Err("no such file among the rulesets bundled with servitor".into()),
        },
        Place::Given(files, path) => match files.get(path) {
            Some(text) => text.as_bytes().to_vec(),
            None => return Err("no such file among the files given".into()),
        },
    };
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| "stream did not contain valid UTF-8".to_string())
}

type Layers = (Merged, Vec<PackageInfo>, Vec<Script>);

/// The manifest's settings.
struct Manifest {
    info: PackageInfo,
    extends: Option<(String, Span)>,
    includes: Vec<(String, Span)>,
    scripts: Vec<(String, Span)>,
}

impl Loader {
    /// Loads the package of `manifest` and its bases; returns the merged items of the chain.
    fn load_layers(&mut self, manifest: &Place, via: Option<Span>) -> Option<Layers> {
        let canonical = manifest.real().unwrap_or_else(|| manifest.clone());
        if let Some(start) = self.stack.iter().position(|f| *f == canonical) {
            let chain: Vec<String> = self.stack[start..]
                .iter()
                .chain([&canonical])
                .map(package_name_of)
                .collect();
            let span = via.expect("a cycle is always reached through an extends");
            self.report.push(
                Diagnostic::error(
                    span,
                    format!("`extends` goes round in a circle: {}", chain.join(" → ")),
                    "cycle",
                )
                .with_help("a package cannot extend itself, directly or through others"),
            );
            return None;
        }
        self.stack.push(canonical);
        let result = self.load_one(manifest);
        self.stack.pop();
        result
    }

    fn load_one(&mut self, manifest_path: &Place) -> Option<Layers> {
        let folder = manifest_path.parent().unwrap_or_else(|| Place::Disk(".".into()));
        let file = self.read(manifest_path, None)?;
        let (tree, diagnostics) = syntax::parse(file, &self.sources.get(file).text.clone());
        let failed = !diagnostics.is_empty();
        self.report.diagnostics.extend(diagnostics);
        let mut items = tree.items;
        let manifest = self.manifest(file, manifest_path, &mut items, failed)?;

        let (mut merged, mut packages, mut scripts) = match &manifest.extends {
            Some((name, span)) => {
                let base = match locate::find(name, Some(&folder), &self.roots) {
                    Ok(base) => base,
                    Err(looked_in) => {
                        let places: Vec<String> = looked_in.iter().map(Place::typed).collect();
                        let help = did_you_mean(name, known_packages(&self.roots).iter().map(String::as_str))
                            .unwrap_or_else(|| format!("looked in {}", places.join(", ")));
                        self.report.push(
                            Diagnostic::error(*span, format!("no package `{name}` to extend"), "not found")
                                .with_help(help),
                        );
                        return None;
                    }
                };
                self.load_layers(&base, Some(*span))?
            }
            None => (Merged::default(), Vec::new(), Vec::new()),
        };

        for (path, span) in &manifest.includes {
            let Some(included) = self.read_inside(&folder, path, "include", *span) else {
                continue;
            };
            let (tree, diagnostics) = syntax::parse(included, &self.sources.get(included).text.clone());
            self.report.diagnostics.extend(diagnostics);
            for item in tree.items {
                if let ast::Item::Define(def) = &item
                    && def.kind.text == "package"
                {
                    self.report.push(
                        Diagnostic::error(def.kind.span, "a `package` item belongs in package.rules", "not here")
                            .with_help("included files hold tables, records and the like; move this to the manifest"),
                    );
                    continue;
                }
                items.push(item);
            }
        }
        for (path, span) in &manifest.scripts {
            let Some(file) = self.read_inside(&folder, path, "script", *span) else {
                continue;
            };
            match self.compiler.compile(file, &self.sources) {
                Ok(s) => {
                    if let Some(at) = script::top_level_statement(&self.sources.get(file).text) {
                        let end = self.sources.get(file).line_end(self.sources.get(file).line_of(at));
                        self.report.push(
                            Diagnostic::warning(
                                Span::new(file, at, end.max(at)),
                                "a statement outside any function never runs",
                                "at the top level",
                            )
                            .with_help(
                                "a package's scripts hold functions that procedures, phases and triggers call: move this into one",
                            ),
                        );
                    }
                    // The bases are in `packages` already; this package comes next.
                    scripts.push(Script {
                        package: packages.len(),
                        ..s
                    })
                }
                Err(d) => {
                    self.scripts_failed = true;
                    self.report.push(d);
                }
            }
        }
        merged.apply(&manifest.info.name, items, &mut self.report);
        packages.push(manifest.info);
        if failed {
            None
        } else {
            Some((merged, packages, scripts))
        }
    }

    /// Reads a file a package names (`include`, `script`): a relative path that, after
    /// following links, stays inside the package's folder.
    fn read_inside(&mut self, folder: &Place, path: &str, key: &str, via: Span) -> Option<FileId> {
        let relative = Path::new(path);
        let refuse = |this: &mut Self, message: String| {
            this.report
                .push(Diagnostic::error(via, message, "not allowed").with_help(format!(
                    "`{key}` names a file inside the package's folder by a relative path, such as `{key} \"{}\"`",
                    if key == "script" {
                        "scripts/rules.rhai"
                    } else {
                        "tables.rules"
                    }
                )));
            None
        };
        let inside = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir | Component::ParentDir));
        if path.is_empty() || !inside {
            return refuse(
                self,
                format!("`{key}` takes a path relative to the package's folder, not `{path}`"),
            );
        }
        let joined = folder.join(relative);
        // A missing file is reported by `read`, with the reason.
        if let (Some(real), Some(home)) = (joined.real(), folder.real())
            && !real.is_inside(&home)
        {
            return refuse(self, format!("`{path}` leads outside the package's folder"));
        }
        self.read(&joined, Some(via))
    }

    /// Reads a file into the source map; a missing file is an error at `via`. Only a regular
    /// file of at most [`MAX_FILE_BYTES`] is read (a device or a pipe could block or never
    /// end), and a whole load reads at most [`MAX_PACKAGE_BYTES`]. A UTF-8 byte order mark at
    /// the start is dropped.
    fn read(&mut self, path: &Place, via: Option<Span>) -> Option<FileId> {
        let budget = MAX_PACKAGE_BYTES.saturating_sub(self.bytes_read);
        let unsaved = match path {
            Place::Disk(file) if !self.overlay.is_empty() => std::fs::canonicalize(file)
                .ok()
                .and_then(|full| self.overlay.get(&full))
                .map(|text| match text.len() as u64 {
                    n if n > MAX_FILE_BYTES.min(budget) => {
                        Err(format!("larger than {} bytes", thousands(MAX_FILE_BYTES.min(budget))))
                    }
                    _ => Ok(text.clone()),
                }),
            _ => None,
        };
        match unsaved.unwrap_or_else(|| read_limited(path, budget)) {
            Ok(mut text) => {
                self.bytes_read += text.len() as u64;
                if text.starts_with('\u{feff}') {
                    text.drain(..'\u{feff}'.len_utf8());
                }
                Some(self.sources.add(path.shown(), text))
            }
            Err(error) => {
                let message = format!("cannot read {}: {error}", path.shown());
                match via {
                    Some(span) => self.report.push(Diagnostic::error(span, message, "named here")),
                    None => {
                        let file = self.sources.add(path.shown(), String::new());
                        self.report
                            .push(Diagnostic::error(Span::new(file, 0, 0), message, "unreadable"));
                    }
                }
                None
            }
        }
    }

    /// Takes the `package` item out of the manifest's items and reads its settings.
    /// `failed`: the file did not parse, so a missing `package` item is no news.
    fn manifest(
        &mut self,
        file: FileId,
        manifest_path: &Place,
        items: &mut Vec<ast::Item>,
        failed: bool,
    ) -> Option<Manifest> {
        let folder = manifest_path.parent().unwrap_or_else(|| Place::Disk(".".into()));
        let position = items
            .iter()
            .position(|i| matches!(i, ast::Item::Define(d) if d.kind.text == "package"));
        let Some(position) = position else {
            if failed {
                return None;
            }
            let end = self.sources.get(file).text.len();
            let folder_name = package_name_of(manifest_path);
            self.report.push(
                Diagnostic::error(
                    Span::new(file, 0, end.min(1)),
                    "this manifest has no `package` item",
                    "expected here",
                )
                .with_help(format!(
                    "start the file with `package {folder_name} \"Title\" {{ version \"0.1.0\" }}`"
                )),
            );
            return None;
        };
        let ast::Item::Define(def) = items.remove(position) else {
            unreachable!()
        };
        if let Some(ast::Item::Define(second)) = items
            .iter()
            .find(|i| matches!(i, ast::Item::Define(d) if d.kind.text == "package"))
        {
            self.report.push(
                Diagnostic::error(
                    second.span,
                    "a manifest holds one `package` item",
                    "second package item",
                )
                .with_note(def.span, "first one here"),
            );
        }
        let mut manifest = Manifest {
            info: PackageInfo {
                name: def.id.text.clone(),
                title: def.label.as_ref().map(|l| l.text.clone()),
                version: None,
                source: None,
                folder: folder.typed(),
            },
            extends: None,
            includes: Vec::new(),
            scripts: Vec::new(),
        };
        const KEYS: [&str; 6] = ["version", "extends", "include", "script", "source", "text"];
        for entry in &def.body.entries {
            let ast::Entry::Property(prop) = entry else {
                self.report.push(Diagnostic::error(
                    entry_span(entry),
                    "a manifest holds settings, not rows",
                    "not here",
                ));
                continue;
            };
            let key = prop.key.text.as_str();
            if !KEYS.contains(&key) {
                self.report.push(
                    Diagnostic::error(prop.key.span, format!("unknown package setting `{key}`"), "unknown").with_help(
                        did_you_mean(key, KEYS).unwrap_or_else(|| format!("a package takes: {}", KEYS.join(", "))),
                    ),
                );
                continue;
            }
            let value = match prop.values.as_slice() {
                [v] => v,
                _ => {
                    self.report.push(
                        Diagnostic::error(prop.span, format!("`{key}` takes one value"), "expected one value")
                            .with_help(format!("for example `{key} \"…\"`")),
                    );
                    continue;
                }
            };
            let text = value.as_text().map(str::to_string);
            let name = value.as_name().map(str::to_string);
            let wanted = match key {
                "extends" => text.or(name).map(|t| manifest.extends = Some((t, value.span))),
                "include" => text.map(|t| manifest.includes.push((t, value.span))),
                "script" => text.map(|t| manifest.scripts.push((t, value.span))),
                "version" => text.map(|t| manifest.info.version = Some(t)),
                "source" => text.map(|t| manifest.info.source = Some(t)),
                _ => text.map(|_| ()),
            };
            if wanted.is_none() {
                self.report.push(
                    Diagnostic::error(value.span, format!("`{key}` takes a text in quotes"), value.describe())
                        .with_help(format!("write `{key} \"…\"`")),
                );
            }
        }
        if def.is_override {
            self.report
                .push(Diagnostic::error(def.span, "a package cannot be overridden", "here"));
        }
        Some(manifest)
    }
}

/// The name a manifest path stands for: its folder's, or a one-file package's file stem.
fn package_name_of(manifest: &Place) -> String {
    let manifest = manifest.path();
    let named = if manifest.file_name().is_some_and(|n| n == MANIFEST) {
        manifest.parent()
    } else {
        Some(manifest)
    };
    named
        .and_then(|p| p.file_stem())
        .map_or_else(|| manifest.display().to_string(), |n| n.to_string_lossy().into_owned())
}

pub(crate) fn entry_span(entry: &ast::Entry) -> Span {
    match entry {
        ast::Entry::Property(p) => p.span,
        ast::Entry::Row(r) => r.span,
        ast::Entry::Remove(_, span) => *span,
    }
}

pub use bundled::{files as bundled_files, packages as bundled_packages};
pub use lower::{RollNames, chart_cell_loaded, dice_from_ast, roll_from_ast};

impl Ruleset {
    /// Reads a dice expression given as text, with this ruleset's custom dice.
    pub fn parse_dice(&self, text: &str) -> Result<crate::dice::DiceExpr, String> {
        let expr = syntax::parse_dice_text(text)?;
        dice_from_ast(&expr, &self.dice).map_err(|errors| {
            let messages: Vec<String> = errors
                .iter()
                .map(|d| {
                    let help = d.help.as_deref().map(|h| format!(" ({h})")).unwrap_or_default();
                    format!("{}{help}", d.message)
                })
                .collect();
            format!("cannot roll {}: {}", crate::escape::quoted(text), messages.join("; "))
        })
    }

    /// Reads dice given as text, with this ruleset's custom dice: a dice expression (read as
    /// its total) or dice read die by die (`any 6 in 2d6`).
    pub fn parse_roll(&self, text: &str) -> Result<crate::dice::Roll, String> {
        use crate::syntax::ast::ValueKind;
        let value = syntax::parse_roll_text(text)?;
        let result = match &value.kind {
            ValueKind::Roll(r) => {
                let look =
                    |chart: &ast::Name, keys: &[i64], span: Span| chart_cell_loaded(&self.consts, chart, keys, span);
                let names = RollNames {
                    fields: None,
                    chart: Some(&look),
                };
                roll_from_ast(r, &self.dice, &names).map(|(roll, _)| roll)
            }
            ValueKind::Expr(e) => {
                dice_from_ast(e, &self.dice).map(|d| crate::dice::Roll::Read(crate::dice::Reading::Total(d)))
            }
            _ => return Err(format!("cannot read {} as dice", crate::escape::quoted(text))),
        };
        result.map_err(|errors| {
            let messages: Vec<String> = errors
                .iter()
                .map(|d| {
                    let help = d.help.as_deref().map(|h| format!(" ({h})")).unwrap_or_default();
                    format!("{}{help}", d.message)
                })
                .collect();
            format!("cannot roll {}: {}", crate::escape::quoted(text), messages.join("; "))
        })
    }
}
