//! `servitor scenario <file>`: lay out a board with a script, force the dice, play the named
//! functions and print what happened: how a modder tests a behaviour on a chosen situation.
//!
//! The file is Rhai with a header of `//` lines:
//!   // package: my-variant              (folder or bare name, found from the scenario's
//!                                          folder: see `package_near`)
//!   // mission: hall-fight
//!   // dice: 3 5 1                      (forced dice, face positions from 1, in order)
//!   // dice: tie@alien-turn=2 random=4   (forced by kind and stream: `kind@stream=v,v`,
//!                                          `kind=v`, `@stream=v`; kinds die, tie, random,
//!                                          pick, shuffle (an order 3-1-2), draw (a name))
//!   // turn: 3                          (the turn the calls play in; 1 unless given)
//!   // from: setup                      (the package's own set-up plays first; then
//!                                          `fn scenario(game)`, optional, changes the board)
//!   // call: enemy_turn                 (functions to play, in order; repeatable)
//!   // seed: 1                          (optional; used once the forced dice run out)
//!   // set: name=value                  (a game option, as `--set` gives it; repeatable)
//!   // answers: 2                       (the player's answers to `game.ask`, positions from 1)
//! and defines `fn scenario(game) { … }`, which places the pieces with the game API.
//!
//! `--explain` lists every random draw of the run (kind, stream, choices, value), ready to
//! paste into a `// dice:` line. `--watch` plays the scenario again each time it or a file of
//! its package changes, by polling times and lengths every 300 ms (no watcher dependency):
//! the files the load read, and everything under each manifest's folder.

use clap::Args;
use servitor::dice::rng::{Drawn, Queue};
use servitor::game::{GameError, Host, Played, Scenario};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

#[derive(Args)]
pub struct ScenarioArgs {
    /// The scenario file
    file: PathBuf,
    /// Print the events as JSON
    #[arg(long)]
    json: bool,
    /// After the log, list every random draw of the run — what it decided, its kind and
    /// stream, the value it took — and a `// dice:` line that forces them all
    #[arg(long)]
    explain: bool,
    /// Run the scenario, then again each time the scenario file or a file of its package
    /// changes (the package loaded again); Ctrl-C ends it
    #[arg(long)]
    watch: bool,
    /// With --watch: stop after N runs (for tests)
    #[arg(long, hide = true, value_name = "N", requires = "watch")]
    watch_runs: Option<usize>,
}

pub struct Header {
    pub package: String,
    pub scenario: Scenario,
}

pub fn read(path: &std::path::Path) -> Result<Header, super::Failure> {
    let text = super::read_named(path, servitor::limits::MAX_FILE_BYTES, "MAX_FILE_BYTES")?;
    let mut package = None;
    let mut sc = Scenario {
        game: None,
        mission: String::new(),
        seed: 1,
        script: text.clone(),
        dice: Vec::new(),
        calls: Vec::new(),
        options: Vec::new(),
        answers: Vec::new(),
        named: Vec::new(),
        turn: 1,
        explain: false,
        from_setup: false,
    };
    for (n, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("//") else {
            continue;
        };
        let Some((key, value)) = rest.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let bad = |what: &str| format!("error: {}:{}: {what}", path.display(), n + 1);
        match key.trim() {
            "package" => package = Some(value.to_string()),
            "mission" => sc.mission = value.to_string(),
            "game" => sc.game = Some(value.to_string()),
            "seed" => sc.seed = value.parse().map_err(|_| bad("`seed:` takes a whole number"))?,
            "turn" => {
                sc.turn = value
                    .parse()
                    .ok()
                    .filter(|&t| t >= 1)
                    .ok_or_else(|| bad("`turn:` takes a whole number from 1"))?
            }
            "from" => match value {
                "setup" => sc.from_setup = true,
                _ => return Err(bad("`from:` takes `setup` (start from the package's own set-up)").into()),
            },
            "call" => sc.calls.extend(value.split_whitespace().map(str::to_string)),
            "set" => {
                let (name, v) = value
                    .split_once('=')
                    .ok_or_else(|| bad("`set:` takes name=value, e.g. `// set: style=bold`"))?;
                sc.options.push((name.trim().to_string(), v.trim().to_string()));
            }
            "answers" => {
                for word in value.split_whitespace() {
                    sc.answers.push(
                        word.parse()
                            .map_err(|_| bad(&format!("`{word}` is not the number of a choice")))?,
                    );
                }
            }
            "dice" => {
                for word in value.split_whitespace() {
                    if let Some(queue) = Queue::parse(word) {
                        sc.named.push(queue.map_err(|e| bad(&e))?);
                        continue;
                    }
                    sc.dice.push(word.parse().map_err(|_| {
                        bad(&format!(
                            "`{word}` is not a die result (a face from 1) nor `kind@stream=value` (e.g. `tie@alien-turn=2`)"
                        ))
                    })?);
                }
            }
            _ => {}
        }
    }
    let package = package.ok_or_else(|| format!("error: {}: no `// package:` line", path.display()))?;
    if sc.mission.is_empty() {
        return Err(format!("error: {}: no `// mission:` line", path.display()).into());
    }
    let package = package_near(path, &package).unwrap_or(package);
    Ok(Header { package, scenario: sc })
}

/// Where the package a scenario names is, found from the scenario's own folder (not the
/// folder servitor runs in): a relative path from that folder; a bare name as a folder
/// `NAME` beside the scenario or beside any folder above it, or as the package folder the
/// scenario sits in. `None` leaves the name to the usual look-up (`./NAME`,
/// `$SERVITOR_RULESETS`, `./rulesets/NAME`, bundled).
fn package_near(scenario: &std::path::Path, package: &str) -> Option<String> {
    let folder = scenario.parent().unwrap_or(std::path::Path::new(""));
    let folder = if folder.as_os_str().is_empty() {
        std::path::Path::new(".")
    } else {
        folder
    };
    let is_package = |p: &std::path::Path| p.join("package.rules").is_file() || p.is_file();
    let relative = folder.join(package);
    if is_package(&relative) {
        return Some(relative.to_string_lossy().into_owned());
    }
    let bare = !package.is_empty() && !package.contains(['/', '\\']) && package != "." && package != "..";
    if !bare {
        return None;
    }
    let folder = std::path::absolute(folder).ok()?;
    for above in folder.ancestors() {
        let beside = above.join(package);
        if beside.join("package.rules").is_file() {
            return Some(beside.to_string_lossy().into_owned());
        }
        if above.file_name().is_some_and(|n| n == package) && above.join("package.rules").is_file() {
            return Some(above.to_string_lossy().into_owned());
        }
    }
    None
}

pub fn run(args: ScenarioArgs) -> Result<(), super::Failure> {
    if args.watch {
        return watch(&args);
    }
    play(&args, &mut Vec::new())
}

/// Reads the scenario, loads its package and plays it; `files` gets the package's files on
/// disk that the load read (or tried to), for `--watch`.
fn play(args: &ScenarioArgs, files: &mut Vec<PathBuf>) -> Result<(), super::Failure> {
    let mut header = read(&args.file)?;
    header.scenario.explain = args.explain;
    let result = servitor::load(&header.package);
    let sources = match &result {
        Ok(loaded) => Some(&loaded.ruleset.sources),
        Err(servitor::LoadError::Invalid { sources, .. }) => Some(sources),
        Err(servitor::LoadError::NotFound { .. }) => None,
    };
    files.extend(
        sources
            .into_iter()
            .flat_map(|s| s.files())
            .map(|(_, f)| PathBuf::from(&f.name))
            .filter(|p| p.is_file()),
    );
    if files.is_empty() && servitor::package::looks_like_path(&header.package) {
        // Not found (or not readable): where the package would be, so that making it is seen.
        let at = PathBuf::from(&header.package);
        files.push(if at.is_dir() {
            at.join(servitor::package::MANIFEST)
        } else {
            at
        });
    }
    let loaded = super::loaded(result)?;
    let ruleset = Arc::new(loaded.ruleset);
    let mut host = Host::new(&ruleset);
    match host.scenario(&header.scenario) {
        Ok(Played { game, misfits, draws }) => {
            if let Some((v, n)) = misfits.first() {
                return Err(format!(
                    "error: the forced value {v} was given to a draw among {n}: fix the `// dice:` line"
                )
                .into());
            }
            if args.json {
                super::emit_json(&servitor::game::event::annotate(&game.events));
            } else {
                super::emit(&super::game::account(&game.events, true));
            }
            if args.explain {
                super::emit(&explain(&draws));
            }
            Ok(())
        }
        Err(GameError::Usage(m)) => Err(super::usage(format!("error: {}", servitor::escape::visible(&m)))),
        Err(GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m)) => {
            Err(format!("error: {}", servitor::escape::visible(&m)).into())
        }
        Err(GameError::Script { diagnostic, events, .. }) => {
            // The log is made visible here: the report after it may be coloured.
            let mut text = servitor::escape::terminal(&super::game::account(&events, true), false).into_owned();
            let report = servitor::diagnostic::Report {
                diagnostics: vec![*diagnostic],
            };
            text.push_str(&report.render(&ruleset.sources, super::color()));
            Err(text.into())
        }
    }
}

/// How often `--watch` looks at the files.
const POLL: Duration = Duration::from_millis(300);

/// The most files `--watch` looks at (a package folder holding a huge tree is not watched
/// past it).
const MAX_WATCHED: usize = 10_000;

/// What `--watch` knows of a file: when it was last written, and its length.
type Stamps = BTreeMap<PathBuf, Option<(SystemTime, u64)>>;

/// `--watch`: play the scenario, then poll the scenario file and every file of its package
/// (every file under the folder of each manifest the load read, `extends` bases included)
/// and play it again, the package loaded again, each time one changes. A run that fails
/// prints its diagnostics and the watch goes on.
fn watch(args: &ScenarioArgs) -> Result<(), super::Failure> {
    // A scenario file that is not there is the command line's mistake: nothing to watch.
    if !args.file.is_file() {
        read(&args.file)?;
    }
    let mut run = 1;
    let mut why = String::new();
    let mut files = Vec::new();
    loop {
        if run > 1 {
            super::emit(&format!("\n── run {run}: {why} ──\n\n"));
        }
        let watched = |files: &[PathBuf]| {
            let mut all = vec![args.file.clone()];
            all.extend(files.iter().cloned());
            all
        };
        let before = stamps(&watched(&files));
        files.clear();
        if let Err(failure) = play(args, &mut files) {
            let message = failure.message();
            super::eprint_safe(&message);
            if !message.ends_with('\n') {
                eprintln!();
            }
        }
        if args.watch_runs.is_some_and(|n| run >= n) {
            return Ok(());
        }
        let all = watched(&files);
        // A file changed while the run read it counts as changed: its stamp from before stays.
        let mut seen = stamps(&all);
        for (path, stamp) in before {
            if let Some(s) = seen.get_mut(&path) {
                *s = stamp;
            }
        }
        let there = seen.values().filter(|s| s.is_some()).count();
        eprintln!(
            "(watching {there} file{} for changes; Ctrl-C ends)",
            if there == 1 { "" } else { "s" }
        );
        why = loop {
            std::thread::sleep(POLL);
            let mut now = stamps(&all);
            if now == seen {
                continue;
            }
            // Let a save that writes in several steps finish.
            loop {
                std::thread::sleep(POLL / 3);
                let again = stamps(&all);
                if again == now {
                    break;
                }
                now = again;
            }
            if now != seen {
                break changes(&seen, &now);
            }
        };
        run += 1;
    }
}

/// The stamps of these files, and of every file under the folder of each manifest among them.
fn stamps(files: &[PathBuf]) -> Stamps {
    let stamp = |p: &std::path::Path| {
        std::fs::metadata(p)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
    };
    let mut out = Stamps::new();
    for file in files {
        out.insert(file.clone(), stamp(file));
        let manifest = file.file_name().is_some_and(|n| n == servitor::package::MANIFEST);
        if let (true, Some(folder)) = (manifest, file.parent()) {
            let mut found = Vec::new();
            walk(folder, &mut found);
            for f in found {
                let s = stamp(&f);
                out.insert(f, s);
            }
        }
    }
    out
}

/// Every file under `folder` but hidden ones and editors' backups, to [`MAX_WATCHED`].
fn walk(folder: &std::path::Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if out.len() >= MAX_WATCHED {
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&entry.path(), out),
            Ok(t) if t.is_file() => out.push(entry.path()),
            _ => {}
        }
    }
}

/// What changed between two looks, in a few words: `a.rhai changed; b.rules added`.
fn changes(old: &Stamps, new: &Stamps) -> String {
    let shown = |p: &PathBuf| servitor::package::shown_path(p);
    let mut parts: Vec<String> = Vec::new();
    let mut say = |what: &str, paths: Vec<String>| {
        if paths.is_empty() {
            return;
        }
        let n = paths.len();
        let mut list = paths.into_iter().take(3).collect::<Vec<_>>().join(", ");
        if n > 3 {
            list.push_str(&format!(" and {} more", n - 3));
        }
        parts.push(format!("{list} {what}"));
    };
    let exists = |s: &Stamps, p: &PathBuf| s.get(p).is_some_and(Option::is_some);
    say(
        "changed",
        new.keys()
            .filter(|p| exists(old, p) && exists(new, p) && old[*p] != new[*p])
            .map(shown)
            .collect(),
    );
    say(
        "added",
        new.keys()
            .filter(|p| !exists(old, p) && exists(new, p))
            .map(shown)
            .collect(),
    );
    say(
        "removed",
        old.keys()
            .filter(|p| exists(old, p) && !exists(new, p))
            .map(shown)
            .collect(),
    );
    parts.join("; ")
}

/// Every random draw of the run, one a line (`kind@stream=value  among N: what it decided`),
/// then the `// dice:` line that forces them all, ready to paste.
fn explain(draws: &[Drawn]) -> String {
    let mut out = String::from("\nRandom draws, in order (kind@stream=value, among how many, what it decided):\n");
    if draws.is_empty() {
        out.push_str("  none\n");
        return out;
    }
    for d in draws {
        out.push_str(&format!(
            "  {:<28} among {:<3} {}{}\n",
            d.header_word(),
            d.among,
            d.about,
            if d.given { "  (forced)" } else { "" }
        ));
    }
    // One queue a kind and stream, in the order first drawn.
    let mut queues: Vec<(String, Vec<String>)> = Vec::new();
    for d in draws {
        let key = d.header_word();
        let (key, value) = key.split_once('=').unwrap_or((&key, ""));
        match queues.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => v.push(value.to_string()),
            None => queues.push((key.to_string(), vec![value.to_string()])),
        }
    }
    let words: Vec<String> = queues.iter().map(|(k, v)| format!("{k}={}", v.join(","))).collect();
    out.push_str(&format!("\nTo force them all:\n// dice: {}\n", words.join(" ")));
    out
}
