//! Untrusted packages: every fixture under `tests/hostile/` is an input that once crashed,
//! hung, exhausted memory, read outside its package, wrapped an integer or printed terminal
//! escapes. Each runs through the built binary under a memory cap and a time limit and must
//! end with a clean diagnostic — exit code 1 (2 for a usage error), no panic — in about a
//! second.
//!
//! A fixture is a one-file package (`name.rules`) or a folder (`name/package.rules`). The
//! manifest's first lines say how to run it:
//!
//! ```text
//! # servitor: run PKG loop --seed 1     (PKG is the fixture's path; default `check PKG`)
//! # exit: 0                             (default 1)
//! ```
//!
//! What the binary prints (stdout and stderr) is snapshotted in `tests/snapshots/`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fixture is killed (and fails) after this long.
const KILL_AFTER: Duration = Duration::from_secs(20);
/// Address space the binary may use for one fixture: a failed allocation past it aborts
/// (exit 134), which fails the fixture. The attacks fixed used 4 to 34 GB.
const MEMORY_CAP: u64 = 1 << 30;
/// Every fixture must finish within this much CPU time (user and system, the child's own: a
/// busy machine's wall clock does not count): about a second. Script runs are cut at
/// `MAX_SCRIPT_MILLIS` (one second of wall clock), so the fixtures that hit that deadline
/// take a little more; a debug build gets more room.
const TIME_LIMIT: Duration = Duration::from_millis(if cfg!(debug_assertions) { 2500 } else { 1500 });

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// CPU time the run used (user and system).
    cpu: Duration,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary with stdin open but silent (a read of /dev/stdin would block), under
/// [`MEMORY_CAP`], killing it after [`KILL_AFTER`].
fn servitor(args: &[String], cwd: &Path) -> Run {
    use std::os::unix::process::CommandExt;
    let start = Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_servitor"));
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: MEMORY_CAP,
                rlim_max: MEMORY_CAP,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let _stdin = child.stdin.take();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    // Reaped with wait4, which says the CPU time the child used: the limit is on the work
    // done, not on the wall clock of a machine busy with other builds.
    let pid = child.id() as libc::pid_t;
    let (code, cpu) = loop {
        let mut status: libc::c_int = 0;
        // SAFETY: a plain struct of numbers, filled in by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4 on our own child, with pointers to the two locals above.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -1
            };
            break (code, time(usage.ru_utime) + time(usage.ru_stime));
        }
        if start.elapsed() > KILL_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            panic!("servitor {args:?} still ran after {KILL_AFTER:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Already reaped by wait4: std's own wait returns at once (its error is expected).
    let _ = child.wait();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    Run {
        code,
        stdout: text(out_thread.join().unwrap()),
        stderr: text(err_thread.join().unwrap()),
        cpu,
    }
}

/// Every fixture: (name, path relative to the crate, manifest file).
fn fixtures() -> Vec<(String, String, PathBuf)> {
    let dir = root().join("tests/hostile");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("tests/hostile/{name}");
        if path.is_dir() {
            out.push((name, rel, path.join("package.rules")));
        } else if name.ends_with(".rules") {
            out.push((name.trim_end_matches(".rules").to_string(), rel, path));
        }
    }
    out.sort();
    out
}

/// The `# servitor:` and `# exit:` lines at the top of a manifest.
fn directions(manifest: &Path, rel: &str) -> (Vec<String>, i32) {
    let text = std::fs::read(manifest).unwrap();
    let head = String::from_utf8_lossy(&text[..text.len().min(2000)]).into_owned();
    let mut args = vec!["check".to_string(), rel.to_string()];
    let mut code = 1;
    for line in head
        .lines()
        .take_while(|l| l.starts_with('#') || l.starts_with('\u{feff}'))
    {
        let line = line.trim_start_matches('\u{feff}');
        if let Some(rest) = line.strip_prefix("# servitor:") {
            args = rest
                .split_whitespace()
                .map(|a| if a == "PKG" { rel.to_string() } else { a.to_string() })
                .collect();
        } else if let Some(rest) = line.strip_prefix("# exit:") {
            code = rest.trim().parse().unwrap();
        }
    }
    (args, code)
}

fn check(name: &str, args: &[String], expected: i32, cwd: &Path) -> (String, Duration) {
    let run = servitor(args, cwd);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        !all.contains("panicked") && !all.contains("overflowed its stack") && run.code != 101 && run.code != 134,
        "{name}: servitor {args:?} crashed (exit {}):\n{all}",
        run.code
    );
    assert_eq!(
        run.code, expected,
        "{name}: servitor {args:?} exited with {} instead of {expected}:\n{all}",
        run.code
    );
    assert!(
        run.cpu < TIME_LIMIT,
        "{name}: servitor {args:?} took {:?} of CPU time (limit {TIME_LIMIT:?})",
        run.cpu
    );
    if expected == 1 {
        assert!(
            run.stderr.contains("error") || run.stderr.contains('×'),
            "{name}: no diagnostic on stderr:\n{all}"
        );
    }
    assert!(
        !all.contains('\u{1b}') && !all.contains('\u{7}'),
        "{name}: control characters reached the terminal:\n{all:?}"
    );
    let shown = format!(
        "servitor {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        run.code,
        steady(&run.stdout),
        steady(&run.stderr)
    );
    (shown, run.cpu)
}

/// Output with the lines that vary from run to run (how fast `sim` went) made steady, and
/// lines a flood fixture makes huge cut to their start (the snapshot keeps what they say, not
/// a megabyte of it).
fn steady(text: &str) -> String {
    const LONG: usize = 300;
    text.lines()
        .map(|l| {
            if l.contains(" games in ") && l.contains("games/s") {
                "[timing]".to_string()
            } else if l.chars().count() > LONG {
                let head: String = l.chars().take(LONG).collect();
                format!("{head}… [{} characters in all]", l.chars().count())
            } else {
                l.to_string()
            }
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn every_hostile_fixture_ends_in_a_clean_diagnostic() {
    let fixtures = fixtures();
    assert!(!fixtures.is_empty());
    let mut timings = Vec::new();
    for (name, rel, manifest) in fixtures {
        let (args, expected) = directions(&manifest, &rel);
        let (shown, elapsed) = check(&name, &args, expected, root());
        timings.push(format!("{name}: {elapsed:?}"));
        insta::with_settings!({ snapshot_suffix => name.clone(), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("hostile", shown);
        });
    }
    eprintln!("{}", timings.join("\n"));
}

/// `src/limits.rs` and the authors' reference (`docs/limits.md`) agree: every
/// constant is named in a row of the table, and that row gives its value.
#[test]
fn the_limits_table_matches_the_code() {
    let code = std::fs::read_to_string(root().join("src/limits.rs")).unwrap();
    let doc = std::fs::read_to_string(root().join("docs/limits.md")).unwrap();
    let table = doc
        .split("## Limits")
        .nth(1)
        .expect("docs/limits.md has a Limits section");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
    let mut count = 0;
    for line in code.lines() {
        let Some(rest) = line.strip_prefix("pub const ") else {
            continue;
        };
        let (name, rest) = rest.split_once(':').unwrap();
        let value: u64 = rest
            .split_once('=')
            .unwrap()
            .1
            .trim()
            .trim_end_matches(';')
            .split('*')
            .map(|n| n.trim().replace('_', "").parse::<u64>().unwrap())
            .product();
        let row = rows
            .iter()
            .find(|r| r.contains(&format!("`{name}`")))
            .unwrap_or_else(|| panic!("{name} is not in the Limits table of docs/limits.md"));
        let numbers: Vec<u64> = row
            .replace(',', "")
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        assert!(
            numbers.contains(&value),
            "the Limits table gives {name} as {row}, the code says {value}"
        );
        count += 1;
    }
    assert!(count >= 8, "only {count} limits found in src/limits.rs");
}

/// Files that cannot be committed as fixtures, made here: a named pipe (reading one blocked
/// forever), a folder, a file over the size limit, and a chain of includes that together
/// read more than a load may. Each is refused with a diagnostic at the line that names it.
#[test]
fn pipes_folders_and_huge_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("special");
    std::fs::create_dir(&pkg).unwrap();
    let fifo = pkg.join("fifo.rules");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    std::fs::create_dir(pkg.join("folder.rules")).unwrap();
    let big = servitor::limits::MAX_FILE_BYTES as usize + 1;
    std::fs::write(pkg.join("big.rules"), "#".repeat(big)).unwrap();
    std::fs::write(
        pkg.join("package.rules"),
        "package special {\n  version \"1\"\n  include \"fifo.rules\"\n  include \"folder.rules\"\n  include \"big.rules\"\n}\n",
    )
    .unwrap();
    let run = servitor(&["check".into(), pkg.display().to_string()], root());
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 1, "{all}");
    assert!(run.cpu < TIME_LIMIT, "took {:?}", run.cpu);
    assert_eq!(all.matches("not a regular file").count(), 2, "{all}");
    assert!(all.contains("larger than 1,048,576 bytes (`MAX_FILE_BYTES`"), "{all}");

    // Many scripts of one file just under the limit: the load stops at MAX_PACKAGE_BYTES.
    let pkg = dir.path().join("many");
    std::fs::create_dir(&pkg).unwrap();
    // Scripts (compiled by Rhai, an optimised dependency) rather than rules files, so that
    // reading the first few megabytes takes little time in a debug build.
    let line = format!("// {}\n", "x".repeat(97));
    std::fs::write(pkg.join("part.rhai"), line.repeat((big - 2) / line.len())).unwrap();
    let includes = "  script \"part.rhai\"\n".repeat(8);
    std::fs::write(
        pkg.join("package.rules"),
        format!("package many {{\n  version \"1\"\n{includes}}}\n"),
    )
    .unwrap();
    let run = servitor(&["check".into(), pkg.display().to_string()], root());
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 1, "{all}");
    assert!(run.cpu < TIME_LIMIT, "took {:?}", run.cpu);
    assert!(all.contains("`MAX_PACKAGE_BYTES`"), "{all}");
}
