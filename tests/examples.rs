//! Every example command in the docs, run as written: the lines of the fenced `sh` blocks and
//! the inline `servitor …` / `cargo …` spans of `README.md` and the authors' reference
//! (`grammar/README.md` and the chapters of `docs/`), and the
//! commands the comments of the files under `examples/` give. A typo'd flag, a renamed package
//! or item, a placeholder such as `<id>`, or a command that starts to fail makes this test red,
//! with the file and line of the command; the output of each command is snapshotted, one
//! transcript per file (`a_broken_doc_command_is_reported` checks that a broken one is caught).
//!
//! How a command is run:
//! - `servitor ARGS`, and `cargo run --release -- ARGS` (the README says the two are the same
//!   program): this test's build of the binary with ARGS as written, from a scratch folder whose
//!   entries are links to the checkout's top folder (so `tests/…`, `examples/…` and `./rulesets`
//!   are found as from the checkout), or from the folder the text names (a variant's comment:
//!   "in this folder, write `.` for the path" — run that way too). A file a command writes
//!   (`--svg reactor.svg`, `--save game.json`) lands in the scratch folder: the transcript says
//!   what was written, and nothing is left in the checkout. `NO_COLOR=1`, and no
//!   `SERVITOR_RULESETS` from the environment of whoever runs the tests.
//! - It must exit 0, or with the code its comment gives as `exit N` (a refusal shown on purpose).
//! - `play` is interactive: it reads `quit` from its standard input, then the save is checked.
//! - `roll`, `run`, `play` and `game` without `--seed` pick a seed and print it: the output is
//!   not snapshotted (it differs with each seed); instead the command is run again with
//!   `--seed N` and must print exactly the same ("any roll can be replayed", README).
//! - `sim` plays fewer games in the transcript: a debug build plays about 11 Space Crusade games a
//!   second on this 2-core machine, so the README's `--games 1000` alone would take 90 s of
//!   `cargo test`. The transcript plays `--games 10` (its last line, the time taken, is left
//!   out). **A release build of this test** (`cargo test --release --test examples`, which
//!   `.ci/run` runs) also runs every command as written: each `sim` with all its games (no game
//!   may fail: `errors: none`), each `cargo run --release -- …` by cargo itself, and
//!   `cargo build --release` and `cargo install --path .` (into a scratch root; then every
//!   command of the file that names packages only by name is run with the installed binary from
//!   an empty folder). `cargo install` reuses the test's own release target folder, so it
//!   installs the binary already built instead of compiling every dependency again.
//! - `cargo run --example NAME …` (and `cargo run --release -- …` in the release pass): run by
//!   cargo, as written, from the checkout (cargo needs its `target/`); a file one writes in the
//!   checkout's top folder is removed afterwards.
//! - `cargo test`, `cargo test --release --test examples`: this test is part of those runs;
//!   `.ci/run` runs them as written.
//! - `cargo test … --test NAME FILTER` with a long run's settings (the fuzz run: 30 minutes a
//!   target): checked by its parts — `tests/NAME.rs` exists, reads every variable the command
//!   sets, and has a test named FILTER; `cargo test` runs that test for a few seconds.
//! - `cargo bench --bench NAME`: `benches/NAME.rs` is declared in `Cargo.toml` (`.ci/run`'s
//!   `clippy --all-targets` compiles it); a benchmark run takes minutes, so it is not run.
//! - `web/build.sh` (the web companion's build: the engine to WebAssembly): an executable script
//!   that `.ci/run` runs as written, before the browser tests; not run here.
//! - `servitor scenario --watch …` (which runs until Ctrl-C): run with `--watch-runs 1`, its
//!   first run only.
//! - `node web/serve.mjs` (a server that runs until stopped): started on a free port instead of
//!   the one written, asked for `/` over loopback, stopped.
//! - An inline `servitor` or `servitor NAME` (a command named in prose): `--help` must answer.
//!
//! A command of another shape fails the test until this file learns how to run it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A release build of this test runs the long commands as written too (see the module doc).
const AS_WRITTEN: bool = !cfg!(debug_assertions);

/// Games a `sim` plays in the transcript.
const TRANSCRIPT_GAMES: u64 = 10;

/// The subcommands that pick a seed when given none.
const PICK_A_SEED: [&str; 4] = ["roll", "run", "play", "game"];

fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One command found in a file.
#[derive(Clone, Debug)]
struct Found {
    /// `README.md:7`.
    place: String,
    /// The command as written, its comment left out.
    text: String,
    comment: String,
    /// The folder to run it from, relative to the checkout (`""`: the top).
    dir: String,
    /// Written in running text (an inline span), not on a line of its own.
    inline: bool,
    /// For a command run from its package's folder with `.`: the command as written.
    same_as: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Finding the commands

/// `line` without its shell comment: the first `#` outside quotes that starts a word.
fn split_comment(line: &str) -> (String, String) {
    let (mut single, mut double) = (false, false);
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return (line[..i].trim().to_string(), line[i + 1..].trim().to_string());
            }
            _ => {}
        }
        previous = c;
    }
    (line.trim().to_string(), String::new())
}

/// The inline code spans of `text` (CommonMark: a run of N backticks up to the next run of
/// exactly N; line ends inside read as spaces), each with the line it starts on (from 1).
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|b| **b == b'`').count();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let open = run_at(i);
        let start = i + open;
        let mut j = start;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let n = run_at(j);
                if n == open {
                    close = Some(j);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                let line = text[..i].matches('\n').count() + 1;
                spans.push((line, text[start..end].replace('\n', " ").trim().to_string()));
                i = end + open;
            }
            None => i = start,
        }
    }
    spans
}

/// Whether an inline span is a command (or a command's name).
fn is_command(span: &str) -> bool {
    span == "servitor" || span.starts_with("servitor ") || span.starts_with("cargo ")
}

/// The commands of a Markdown file: each line of a fenced `sh` block (a line ending in `\`
/// goes on on the next), and every inline span that is a command.
fn markdown_commands(file: &str, text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let mut prose = String::new();
    let mut fence: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            fence = match fence {
                None => Some(info.trim().to_string()),
                Some(_) => None,
            };
            prose.push('\n');
            continue;
        }
        match &fence {
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
            Some(info) => {
                prose.push('\n');
                if info != "sh" || trimmed.is_empty() || (trimmed.starts_with('#') && pending.is_none()) {
                    continue;
                }
                let (start, mut whole) = pending.take().unwrap_or((n + 1, String::new()));
                if let Some(part) = line.trim_end().strip_suffix('\\') {
                    whole.push_str(part);
                    pending = Some((start, whole));
                    continue;
                }
                whole.push_str(line);
                let (command, comment) = split_comment(&whole);
                found.push(Found {
                    place: format!("{file}:{start}"),
                    text: command,
                    comment,
                    dir: String::new(),
                    inline: false,
                    same_as: None,
                });
            }
        }
    }
    for (line, span) in code_spans(&prose) {
        if is_command(&span) {
            found.push(Found {
                place: format!("{file}:{line}"),
                text: span,
                comment: String::new(),
                dir: String::new(),
                inline: true,
                same_as: None,
            });
        }
    }
    found.sort_by_key(|f| f.place.rsplit(':').next().unwrap().parse::<usize>().unwrap());
    found
}

/// The commands in the comments of a file under `examples/`: a comment line that is a command
/// (`#   servitor check …`), and inline spans that are commands. A file whose comments say
/// "in this folder, write `.` for the path" gets each command that names its folder run from
/// that folder with `.` as well.
fn example_commands(file: &str, text: &str) -> Vec<Found> {
    let marker = if file.ends_with(".rules") { "#" } else { "//" };
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(at) = line.find(marker) else { continue };
        let comment = line[at + marker.len()..].trim_start_matches(['!', '/']).trim();
        let place = format!("{file}:{}", n + 1);
        if comment.starts_with("servitor ") {
            let (command, rest) = split_comment(comment);
            found.push(Found {
                place,
                text: command,
                comment: rest,
                dir: String::new(),
                inline: false,
                same_as: None,
            });
            continue;
        }
        for (_, span) in code_spans(comment) {
            if is_command(&span) {
                found.push(Found {
                    place: place.clone(),
                    text: span,
                    comment: String::new(),
                    dir: String::new(),
                    inline: true,
                    same_as: None,
                });
            }
        }
    }
    if text.contains("in this folder, write `.` for the path") {
        let folder = Path::new(file).parent().unwrap().to_string_lossy().replace('\\', "/");
        let here: Vec<Found> = found
            .iter()
            .filter(|f| f.text.split_whitespace().any(|w| w == folder))
            .map(|f| Found {
                text: f
                    .text
                    .split(' ')
                    .map(|w| if w == folder { "." } else { w })
                    .collect::<Vec<_>>()
                    .join(" "),
                dir: folder.clone(),
                same_as: Some(f.text.clone()),
                ..f.clone()
            })
            .collect();
        found.extend(here);
    }
    found
}

/// Every file under `examples/`, relative to the checkout, sorted.
fn example_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out)
            } else {
                out.push(path)
            }
        }
    }
    let mut files = Vec::new();
    walk(&checkout().join("examples"), &mut files);
    let mut files: Vec<String> = files
        .iter()
        .map(|p| p.strip_prefix(checkout()).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    files.sort();
    files
}

// ---------------------------------------------------------------------------------------------
// Running them

/// What a run gave.
struct Ran {
    stdout: String,
    stderr: String,
    code: i32,
}

/// Runs `command` with `stdin` fed to it (and then closed), for at most `limit`.
fn run(mut command: Command, stdin: &str, limit: Duration) -> Result<Ran, String> {
    let what = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what} did not start: {e}"))?;
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{what} still running after {} s: stopped", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    Ok(Ran {
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        code: status.code().unwrap_or(-1),
    })
}

/// A scratch folder that looks like the checkout's top folder: a link to each of its entries
/// (not `target`, not `.git`).
fn scratch_checkout() -> tempfile::TempDir {
    let scratch = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(checkout()).unwrap() {
        let name = entry.unwrap().file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        std::os::unix::fs::symlink(checkout().join(&name), scratch.path().join(&name)).unwrap();
    }
    scratch
}

/// The files a command wrote in the scratch folder (what is not one of its links), each with
/// what it holds: an SVG and a JSON document are read as such.
fn written(scratch: &Path) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = std::fs::read_dir(scratch)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_type().unwrap().is_symlink())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let path = scratch.join(&name);
            if path.is_dir() {
                let mut files = 0;
                let mut stack = vec![path];
                while let Some(dir) = stack.pop() {
                    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{name}: {e}"))? {
                        let entry = entry.map_err(|e| format!("{name}: {e}"))?;
                        if entry.path().is_dir() {
                            stack.push(entry.path());
                        } else {
                            files += 1;
                        }
                    }
                }
                return Ok(format!("{name}/: a folder of {files} files"));
            }
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{name}: {e}"))?;
            let kind = if name.ends_with(".svg") {
                let doc = roxmltree::Document::parse(&text).map_err(|e| format!("{name} is no SVG: {e}"))?;
                if doc.root_element().tag_name().name() != "svg" {
                    return Err(format!("{name} is no SVG"));
                }
                "an SVG drawing".to_string()
            } else if name.ends_with(".json") {
                serde_json::from_str::<serde_json::Value>(&text).map_err(|e| format!("{name} is no JSON: {e}"))?;
                "a JSON document".to_string()
            } else {
                format!("{} bytes", text.len())
            };
            Ok(format!("{name}: {kind}"))
        })
        .collect()
}

/// The exit code a command's comment gives (`exit 2`), or 0.
fn expected_code(comment: &str) -> i32 {
    comment
        .split("exit ")
        .skip(1)
        .find_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .unwrap_or(0)
}

/// The seed a command printed (`seed 42`, `"seed":42`).
fn printed_seed(output: &str) -> Option<u64> {
    output.match_indices("seed").find_map(|(i, _)| {
        let rest = output[i + 4..].trim_start_matches([' ', '"', ':', '=']);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

/// The sim's last line says how long it took: kept without the time.
fn without_timing(stdout: &str) -> String {
    stdout
        .lines()
        .map(|line| match line.split_once(" games in ") {
            Some((games, rest)) if rest.ends_with(" jobs)") || rest.ends_with(" job)") => {
                format!("{games} games in [time]")
            }
            _ => line.to_string(),
        })
        .map(|line| line + "\n")
        .collect()
}

/// `args` with a sim's `--games N` cut to [`TRANSCRIPT_GAMES`]; `None` if nothing was cut.
fn fewer_games(args: &[String]) -> Option<Vec<String>> {
    if args.first().map(String::as_str) != Some("sim") {
        return None;
    }
    let mut cut = args.to_vec();
    let mut changed = false;
    for i in 0..cut.len() {
        let games = if cut[i] == "--games" {
            cut.get(i + 1)
                .and_then(|n| n.parse::<u64>().ok())
                .map(|n| (i + 1, n, String::new()))
        } else {
            cut[i]
                .strip_prefix("--games=")
                .and_then(|n| n.parse().ok())
                .map(|n| (i, n, "--games=".to_string()))
        };
        if let Some((at, n, prefix)) = games
            && n > TRANSCRIPT_GAMES
        {
            cut[at] = format!("{prefix}{TRANSCRIPT_GAMES}");
            changed = true;
        }
    }
    changed.then_some(cut)
}

fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into()));
    command.current_dir(checkout()).env("CARGO_TERM_COLOR", "never");
    command
}

fn servitor(binary: &Path, dir: &Path, env: &[(String, String)], args: &[String]) -> Command {
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("SERVITOR_RULESETS")
        .env("NO_COLOR", "1")
        .envs(env.iter().map(|(k, v)| (k, v)));
    command
}

/// The transcript of one file's commands, and what went wrong.
#[derive(Default)]
struct Report {
    transcript: String,
    problems: Vec<String>,
}

impl Report {
    fn problem(&mut self, found: &Found, what: impl std::fmt::Display) {
        self.problems.push(format!("{}: `{}`: {what}", found.place, found.text));
    }
    fn note(&mut self, note: &str) {
        self.transcript.push_str(&format!("# {note}\n"));
    }
}

/// The `NAME=value` settings a command starts with.
type Settings = Vec<(String, String)>;

/// A command split into its settings and its words.
fn words(found: &Found) -> Result<(Settings, Vec<String>), String> {
    let all = shlex::split(&found.text).ok_or("not a command line (quotes do not close)")?;
    if let Some(word) = all.iter().find(|w| w.contains('<') && w.contains('>')) {
        return Err(format!("`{word}` is a placeholder: write a real command"));
    }
    let settings = all.iter().take_while(|w| {
        w.split_once('=')
            .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
    });
    let env: Vec<(String, String)> = settings
        .map(|w| w.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).unwrap())
        .collect();
    Ok((env.clone(), all[env.len()..].to_vec()))
}

/// Runs every command of one file.
fn run_all(commands: &[Found]) -> Report {
    let mut report = Report::default();
    let mut seen = std::collections::HashSet::new();
    // What each command printed, for the same command run from its package's folder with `.`.
    let mut printed = std::collections::HashMap::new();
    for found in commands {
        if !seen.insert((found.text.clone(), found.dir.clone(), expected_code(&found.comment))) {
            continue;
        }
        report.transcript.push_str(&format!("$ {}\n", found.text));
        if !found.dir.is_empty() {
            report.note(&format!("from {}", found.dir));
        }
        let start = report.transcript.len();
        let (env, words) = match words(found) {
            Ok(split) => split,
            Err(e) => {
                report.problem(found, e);
                continue;
            }
        };
        let shape: Vec<&str> = words.iter().map(String::as_str).collect();
        match shape.as_slice() {
            ["servitor"] | ["servitor", _] if found.inline => named(&mut report, found, &words[1..]),
            ["servitor", ..] => run_servitor(&mut report, found, &env, &words[1..], false),
            ["cargo", "run", "--release", "--"] => {
                report.note("the README's stand-in for `servitor` before it is installed")
            }
            ["cargo", "run", "--release", "--", ..] => run_servitor(&mut report, found, &env, &words[4..], true),
            ["cargo", "run", "--example", ..] => run_cargo(&mut report, found, &env, &words[1..]),
            ["cargo", "test", ..] if env.is_empty() && in_ci(&found.text) => {
                report.note("`.ci/run` runs it as written (this test is part of that run)")
            }
            ["cargo", "test", ..] => long_test(&mut report, found, &env, &words[2..]),
            ["cargo", "build", "--release"] => release_build(&mut report, found, &words[1..]),
            ["cargo", "install", "--path", "."] => install(&mut report, found, commands),
            ["cargo", "bench", "--bench", name] => bench(&mut report, found, name),
            ["web/build.sh"] => web_build(&mut report, found),
            ["node", "web/serve.mjs", rest @ ..] if env.is_empty() => web_serve(&mut report, found, rest),
            _ => report.problem(
                found,
                "a command of a shape tests/examples.rs does not know how to run: teach it",
            ),
        }
        let output = report.transcript[start..].to_string();
        if let Some(original) = &found.same_as
            && printed.get(original) == Some(&output)
        {
            report.transcript.truncate(start);
            report.note(&format!("prints the same as `{original}` from the top of the checkout"));
        }
        printed.insert(found.text.clone(), output);
        report.transcript.push('\n');
    }
    report
}

/// An inline `servitor` or `servitor NAME`, naming a command in prose: `--help` answers.
fn named(report: &mut Report, found: &Found, args: &[String]) {
    let mut args = args.to_vec();
    args.push("--help".into());
    let ran = run(
        servitor(Path::new(env!("CARGO_BIN_EXE_servitor")), checkout(), &[], &args),
        "",
        Duration::from_secs(60),
    );
    match ran {
        Ok(ran) if ran.code == 0 => report.note(&format!("a command's name: `servitor {}` answers", args.join(" "))),
        Ok(ran) => report.problem(
            found,
            format!("`--help` exits {}: no such command\n{}", ran.code, ran.stderr),
        ),
        Err(e) => report.problem(found, e),
    }
}

fn run_servitor(report: &mut Report, found: &Found, env: &[(String, String)], args: &[String], by_cargo: bool) {
    let binary = Path::new(env!("CARGO_BIN_EXE_servitor"));
    let expected = expected_code(&found.comment);
    let fewer = fewer_games(args);
    let subcommand = args.first().map(String::as_str).unwrap_or("");
    let picks_seed = PICK_A_SEED.contains(&subcommand)
        && !args
            .iter()
            .any(|a| a == "--seed" || a.starts_with("--seed=") || a == "--resume");
    let stdin = if subcommand == "play" { "quit\n" } else { "" };
    let limit = Duration::from_secs(300);

    let once = |args: &[String]| -> Result<(Ran, Vec<String>), String> {
        let scratch = scratch_checkout();
        let ran = run(
            servitor(binary, &scratch.path().join(&found.dir), env, args),
            stdin,
            limit,
        )?;
        Ok((ran, written(scratch.path())?))
    };
    // `scenario --watch` runs until Ctrl-C: here it stops after its first run.
    let watch = (subcommand == "scenario" && args.iter().any(|a| a == "--watch")).then(|| {
        let mut once = args.to_vec();
        once.extend(["--watch-runs".to_string(), "1".to_string()]);
        once
    });
    if watch.is_some() {
        report.note("watches until Ctrl-C; here it stops after its first run (`--watch-runs 1`)");
    }
    if fewer.is_some() {
        report.note(&format!(
            "plays {TRANSCRIPT_GAMES} games here (a debug build is slow); a release build of this test plays them as written"
        ));
    }
    let (ran, files) = match once(fewer.as_deref().or(watch.as_deref()).unwrap_or(args)) {
        Ok(ran) => ran,
        Err(e) => return report.problem(found, e),
    };
    if ran.code != expected {
        report.problem(
            found,
            format!("exit {} (expected {expected})\n{}{}", ran.code, ran.stdout, ran.stderr),
        );
    }
    if picks_seed && ran.code == 0 {
        match printed_seed(&format!("{}{}", ran.stdout, ran.stderr)) {
            None => report.problem(found, "picks a seed but prints none"),
            Some(seed) => {
                report.note(
                    "picks its own seed and prints it; run again with `--seed` and that seed, it prints the same",
                );
                let mut again = args.to_vec();
                again.extend(["--seed".to_string(), seed.to_string()]);
                match once(&again) {
                    Ok((replay, replay_files)) => {
                        if (&replay.stdout, &replay.stderr, replay.code, &replay_files)
                            != (&ran.stdout, &ran.stderr, ran.code, &files)
                        {
                            report.problem(
                                found,
                                format!(
                                    "with --seed {seed} it prints otherwise:\n{}{}",
                                    replay.stdout, replay.stderr
                                ),
                            );
                        }
                    }
                    Err(e) => report.problem(found, e),
                }
            }
        }
    } else {
        report.transcript.push_str(&without_timing(&ran.stdout));
        report.transcript.push_str(&ran.stderr);
    }
    if ran.code != 0 {
        report.transcript.push_str(&format!("[exit {}]\n", ran.code));
    }
    for file in files {
        report.transcript.push_str(&format!("[wrote {file}]\n"));
    }

    if !AS_WRITTEN {
        return;
    }
    // A release build: the command as written, all its games, by cargo when written so.
    let full = if by_cargo {
        let mut command = cargo();
        command
            .args(["run", "--release", "--"])
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("SERVITOR_RULESETS");
        command.envs(env.iter().map(|(k, v)| (k, v)));
        run_in_checkout(command, stdin, Duration::from_secs(900)).map(|(ran, _)| ran)
    } else if fewer.is_some() {
        let scratch = scratch_checkout();
        run(
            servitor(binary, &scratch.path().join(&found.dir), env, args),
            stdin,
            limit,
        )
    } else {
        return;
    };
    match full {
        Ok(full) if full.code != expected => report.problem(
            found,
            format!("as written: exit {} (expected {expected})\n{}", full.code, full.stderr),
        ),
        Ok(full) if subcommand == "sim" && !full.stdout.lines().any(|l| l == "errors: none") => {
            report.problem(found, format!("as written, games failed:\n{}", full.stdout))
        }
        Ok(_) => {}
        Err(e) => report.problem(found, e),
    }
}

/// `cargo run --example NAME …`, by cargo as written: its standard output is the transcript's.
fn run_cargo(report: &mut Report, found: &Found, env: &[(String, String)], args: &[String]) {
    let mut command = cargo();
    command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
    match run_in_checkout(command, "", Duration::from_secs(900)) {
        Ok((ran, files)) if ran.code == expected_code(&found.comment) => {
            report.transcript.push_str(&ran.stdout);
            for file in files {
                report.transcript.push_str(&format!("[wrote {file}]\n"));
            }
        }
        Ok((ran, _)) => report.problem(found, format!("exit {}\n{}{}", ran.code, ran.stdout, ran.stderr)),
        Err(e) => report.problem(found, e),
    }
}

/// [`run`] for a command cargo runs from the checkout itself (cargo needs its `target/`): a
/// file it writes in the checkout's top folder is removed afterwards, and named.
fn run_in_checkout(command: Command, stdin: &str, limit: Duration) -> Result<(Ran, Vec<String>), String> {
    let names = || -> std::collections::BTreeSet<std::ffi::OsString> {
        std::fs::read_dir(checkout())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect()
    };
    let before = names();
    let ran = run(command, stdin, limit);
    let mut written = Vec::new();
    for name in names().difference(&before) {
        let path = checkout().join(name);
        if path.is_file() {
            std::fs::remove_file(&path).unwrap();
            written.push(name.to_string_lossy().into_owned());
        }
    }
    Ok((ran?, written))
}

/// Whether `.ci/run` runs `command` as written, on a line of its own (`cargo test`, and
/// `cargo test --release --test examples`: this test is part of both runs).
fn in_ci(command: &str) -> bool {
    let ci = std::fs::read_to_string(checkout().join(".ci/run")).unwrap();
    ci.lines().any(|l| l.trim() == command)
}

/// `cargo build --release`: by cargo, as written, in a release build of this test (which has
/// built the same binary, so cargo finds it fresh); a debug build would compile for minutes.
fn release_build(report: &mut Report, found: &Found, args: &[String]) {
    report.note("run by a release build of this test (`.ci/run`), whose binary it is");
    if !AS_WRITTEN {
        return;
    }
    let mut command = cargo();
    command.args(args);
    match run(command, "", Duration::from_secs(1800)) {
        Ok(ran) if ran.code == 0 => {}
        Ok(ran) => report.problem(found, format!("exit {}\n{}", ran.code, ran.stderr)),
        Err(e) => report.problem(found, e),
    }
}

/// `cargo test … --test NAME FILTER -- …` with a long run's settings: checked by its parts.
fn long_test(report: &mut Report, found: &Found, env: &[(String, String)], args: &[String]) {
    let options: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
    let Some(name) = options
        .iter()
        .position(|a| *a == "--test")
        .and_then(|i| options.get(i + 1))
    else {
        return report.problem(
            found,
            "names no `--test`: tests/examples.rs does not know how to run it",
        );
    };
    let path = format!("tests/{name}.rs");
    let Ok(source) = std::fs::read_to_string(checkout().join(&path)) else {
        return report.problem(found, format!("no {path}"));
    };
    for (variable, _) in env {
        if !source.contains(&format!("\"{variable}\"")) {
            report.problem(found, format!("{path} does not read {variable}"));
        }
    }
    let filters: Vec<&&String> = options.iter().filter(|a| !a.starts_with('-') && **a != *name).collect();
    for filter in &filters {
        if !source.contains(&format!("#[test]\nfn {filter}()")) {
            report.problem(found, format!("{path} has no test `{filter}`"));
        }
    }
    let variables: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
    report.note(&format!(
        "a long run, not run here: {path} reads {}, has the test{} {}; `cargo test` runs it briefly",
        variables.join(" and "),
        if filters.len() == 1 { "" } else { "s" },
        filters.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
    ));
}

/// `cargo bench --bench NAME`: declared, and compiled by `.ci/run`'s clippy; not run.
fn bench(report: &mut Report, found: &Found, name: &str) {
    let manifest = std::fs::read_to_string(checkout().join("Cargo.toml")).unwrap();
    if !manifest.contains(&format!("[[bench]]\nname = \"{name}\""))
        || !checkout().join(format!("benches/{name}.rs")).is_file()
    {
        report.problem(
            found,
            format!("no bench `{name}` (benches/{name}.rs, declared in Cargo.toml)"),
        );
    }
    let ci = std::fs::read_to_string(checkout().join(".ci/run")).unwrap();
    if !ci.contains("clippy --all-targets") {
        report.problem(found, "`.ci/run` no longer compiles the benches (clippy --all-targets)");
    }
    report.note("a benchmark run takes minutes: not run; `.ci/run`'s clippy --all-targets compiles it");
}

/// `web/build.sh`: the web companion's build (the engine compiled to WebAssembly, minutes on
/// a fresh machine): `.ci/run` runs it as written, before the browser tests that use it.
fn web_build(report: &mut Report, found: &Found) {
    let script = checkout().join(&found.text);
    let executable = std::fs::metadata(&script).is_ok_and(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.is_file() && m.permissions().mode() & 0o111 != 0
    });
    if !executable {
        report.problem(found, format!("{} is not an executable script", found.text));
    }
    if !in_ci(&found.text) {
        report.problem(found, "`.ci/run` does not run it as written");
    }
    report.note("`.ci/run` runs it as written, then the browser tests (web/tests) on what it built");
}

/// `node web/serve.mjs [PORT]`: a server that runs until stopped. Started here on a free port
/// (`0`) in place of the one written, asked for its page over loopback, then stopped.
fn web_serve(report: &mut Report, found: &Found, args: &[&str]) {
    if args.len() > 1 {
        report.problem(found, "web/serve.mjs takes a port only, here");
        return;
    }
    let mut child = match Command::new("node")
        .args(["web/serve.mjs", "0"])
        .current_dir(checkout())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return report.problem(found, format!("node did not start: {e}")),
    };
    let mut first = String::new();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let _ = std::io::BufRead::read_line(&mut out, &mut first);
    let answer = first
        .rsplit_once("http://")
        .and_then(|(_, url)| url.trim().trim_end_matches('/').parse::<std::net::SocketAddr>().ok())
        .ok_or_else(|| format!("it printed {first:?}, not its address"))
        .and_then(|addr| {
            let mut stream =
                std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .map_err(|e| e.to_string())?;
            stream
                .write_all(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
                .map_err(|e| e.to_string())?;
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            Ok(reply.lines().next().unwrap_or_default().to_string())
        });
    let _ = child.kill();
    let _ = child.wait();
    match answer {
        Ok(status) if status.starts_with("HTTP/1.1 200") || status.starts_with("HTTP/1.1 404") => report.note(
            "a server until stopped: started on a free port, answered `GET /` over loopback (200 once web/build.sh has built web/dist), stopped",
        ),
        Ok(status) => report.problem(found, format!("`GET /` answered {status:?}")),
        Err(e) => report.problem(found, e),
    }
}

/// `cargo install --path .`: in a release build of this test, installed into a scratch root,
/// then every other command of the file that names packages by name only is run with the
/// installed binary from an empty folder (fewer games for a sim): the bundled rulesets are in
/// the binary.
fn install(report: &mut Report, found: &Found, commands: &[Found]) {
    report.note(
        "run by a release build of this test (`.ci/run`): installed into a scratch root, then this file's \
         commands that name packages only by name run with it from an empty folder",
    );
    if !AS_WRITTEN {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let mut command = cargo();
    // The release build this test ran in is reused (its target folder), as a second `cargo
    // install` on a machine reuses its own: a fresh target folder would compile every
    // dependency again, minutes of CI for the same binary.
    let target = Path::new(env!("CARGO_BIN_EXE_servitor"))
        .parent()
        .and_then(Path::parent);
    command
        .args(["install", "--path", "."])
        .env("CARGO_INSTALL_ROOT", root.path());
    if let Some(target) = target
        && std::env::var_os("CARGO_TARGET_DIR").is_none()
    {
        command.env("CARGO_TARGET_DIR", target);
    }
    match run(command, "", Duration::from_secs(1800)) {
        Ok(ran) if ran.code == 0 => {}
        Ok(ran) => return report.problem(found, format!("exit {}\n{}", ran.code, ran.stderr)),
        Err(e) => return report.problem(found, e),
    }
    let installed = root.path().join("bin/servitor");
    for other in commands {
        let Ok((env, words)) = self::words(other) else { continue };
        let args = match words.first().map(String::as_str) {
            Some("servitor") => &words[1..],
            Some("cargo") if words.len() > 4 && words[1..4] == ["run", "--release", "--"] => &words[4..],
            _ => continue,
        };
        if args.len() < 2 || args.iter().any(|a| a.contains('/') || a.starts_with('.')) {
            continue;
        }
        let args = fewer_games(args).unwrap_or_else(|| args.to_vec());
        let empty = tempfile::tempdir().unwrap();
        let stdin = if args[0] == "play" { "quit\n" } else { "" };
        match run(
            servitor(&installed, empty.path(), &env, &args),
            stdin,
            Duration::from_secs(300),
        ) {
            Ok(ran) if ran.code == expected_code(&other.comment) => {}
            Ok(ran) => report.problem(
                other,
                format!("installed, from an empty folder: exit {}\n{}", ran.code, ran.stderr),
            ),
            Err(e) => report.problem(other, e),
        }
    }
}

/// Runs the commands and snapshots the transcript, after failing on any problem.
fn check(name: &str, commands: &[Found]) {
    assert!(!commands.is_empty(), "no command found for {name}");
    let report = run_all(commands);
    assert!(
        report.problems.is_empty(),
        "{} example command(s) fail:\n\n{}",
        report.problems.len(),
        report.problems.join("\n\n")
    );
    insta::assert_snapshot!(name, report.transcript);
}

fn read(file: &str) -> String {
    std::fs::read_to_string(checkout().join(file)).unwrap()
}

#[test]
fn the_readme_commands_run_as_written() {
    check("readme", &markdown_commands("README.md", &read("README.md")));
}

/// The commands of the authors' reference were 40 (spans and lines, repeats counted) when it
/// was one file, `grammar/README.md`: split into the chapters of `docs/`, it keeps them all.
const REFERENCE_COMMANDS_WHEN_ONE_FILE: usize = 40;

/// The authors' reference: `grammar/README.md` and every chapter of `docs/`, by file name.
fn reference_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(checkout().join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".md"))
        .collect();
    files.sort();
    files.insert(0, "grammar/README.md".to_string());
    files
}

#[test]
fn the_rules_language_reference_commands_run_as_written() {
    let mut commands = Vec::new();
    for file in reference_files() {
        commands.extend(markdown_commands(&file, &read(&file)));
    }
    assert!(
        commands.len() >= REFERENCE_COMMANDS_WHEN_ONE_FILE,
        "the reference's chapters hold {} commands, fewer than the {REFERENCE_COMMANDS_WHEN_ONE_FILE} of the one file they were",
        commands.len()
    );
    check("reference", &commands);
}

#[test]
fn the_examples_commands_run_as_written() {
    let mut commands = Vec::new();
    for file in example_files() {
        commands.extend(example_commands(&file, &read(&file)));
    }
    check("examples", &commands);
}

/// The test can fail: a doc with a typo'd flag, a placeholder, a command that fails and one
/// of an unknown shape each give a problem at its line; one refused on purpose passes.
#[test]
fn a_broken_doc_command_is_reported() {
    let doc = "intro\n```sh\nservitor check space-crusade-solo --typo\nservitor show solo-heresy --battlefield <id>\n\
               servitor roll space-crusade-solo reinforcement-type --seed 7 --unavailable blak   # refused, exit 2\n\
               servitor roll space-crusade-solo reinforcement-typ --seed 7\n```\n\
               and `make install`, `cargo frobnicate`.\n";
    let commands = markdown_commands("BROKEN.md", doc);
    let texts: Vec<&str> = commands.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts.len(), 5, "{texts:?}");
    let report = run_all(&commands);
    let places: Vec<&str> = report.problems.iter().map(|p| p.split(": ").next().unwrap()).collect();
    assert_eq!(
        places,
        ["BROKEN.md:3", "BROKEN.md:4", "BROKEN.md:6", "BROKEN.md:8"],
        "{:#?}",
        report.problems
    );
}
