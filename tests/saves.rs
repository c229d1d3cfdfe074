//! Nothing lost, nothing clobbered: saves written safely (special files, temporary files,
//! links, a second session, a kill, a full disk, a game that keeps big values), resumes that
//! check everything a save says (a game's next phase, options, mission, seed and streams; a
//! session's dice), JSON that stays JSON whatever a package writes, and sims whose failures
//! are counted, bounded and in the exit code. Each test runs the built binary as a user does.
//! At the end, the property that holds it together: every save servitor writes resumes to the
//! same game, byte for byte when saved again.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

mod common;

const SKIRMISH: &str = "tests/games/skirmish";

struct Out {
    stdout: String,
    stderr: String,
    code: i32,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_servitor"));
    c.args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("SERVITOR_RULESETS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn finish(mut child: Child, input: &str) -> Out {
    let mut stdin = child.stdin.take().unwrap();
    let input = input.as_bytes().to_vec();
    // Written on its own thread: a long input must not wait on a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn run(args: &[&str], input: &str) -> Out {
    finish(command(args).spawn().expect("the binary runs"), input)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn assert_code(out: &Out, code: i32, what: &str) {
    assert_eq!(
        out.code, code,
        "{what}: exit {} instead of {code}\n--- stdout\n{}\n--- stderr\n{}",
        out.code, out.stdout, out.stderr
    );
}

const WALK: &str = "move hunter-1 2,1 3,1 4,2 5,3\nmove hunter-2 2,2 3,2 4,2 5,2\nend\n";

fn new_session(save: &Path, seed: &str, input: &str) -> Out {
    run(
        &[
            "play",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            seed,
            "--save",
            s(save),
        ],
        input,
    )
}

fn entries(save: &Path) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(save).unwrap()).unwrap();
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_str().unwrap().to_string())
        .collect()
}

// ----- 1. special files --------------------------------------------------------------------

/// `--save` onto a FIFO replaced it with a regular file (and, as root, `/dev/null` with one):
/// anything but a regular file — or a new one — is refused before a game is played.
#[test]
fn a_save_onto_a_special_file_is_refused_before_playing() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    for target in [&fifo, &folder] {
        for args in [
            vec![
                "game",
                SKIRMISH,
                "--mission",
                "hall-fight",
                "--seed",
                "1",
                "--save",
                s(target),
            ],
            vec![
                "play",
                SKIRMISH,
                "--mission",
                "hall-fight",
                "--seed",
                "1",
                "--save",
                s(target),
            ],
            vec!["play", SKIRMISH, "--resume", s(target)],
        ] {
            let out = run(&args, "end\n");
            assert_code(&out, 2, &format!("{args:?}"));
            assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
            assert!(out.stdout.is_empty(), "nothing is played: {}", out.stdout);
        }
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(folder.is_dir());
    let out = run(
        &[
            "game",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "1",
            "--save",
            "/no/such/folder/s.json",
        ],
        "",
    );
    assert_code(&out, 2, "a save in a folder that does not exist");
}

// ----- 2. the temporary file ---------------------------------------------------------------

/// The temporary file was `NAME.tmp`, opened with truncation: the user's `game.tmp` was
/// destroyed, a `game.tmp` link wrote the save into its target, and `--save game.tmp`
/// truncated the save in place at every write.
#[test]
fn the_temporary_file_is_the_saves_own() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.json");
    let mine = dir.path().join("game.tmp");
    std::fs::write(&mine, "the user's own file").unwrap();
    let out = new_session(&save, "1", WALK);
    assert_code(&out, 0, "a session");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "the user's own file");

    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    std::fs::remove_file(&mine).unwrap();
    std::os::unix::fs::symlink(&victim, &mine).unwrap();
    let out = run(
        &[
            "game",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "2",
            "--save",
            s(&save),
        ],
        "",
    );
    assert_code(&out, 0, "game --save");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");

    // Saved to a `.tmp` name: each save replaces the file, never rewrites it in place (the
    // file as it was, held open here, keeps what it had).
    let tmp_save = dir.path().join("s.tmp");
    new_session(&tmp_save, "3", "");
    let held = std::fs::File::open(&tmp_save).unwrap();
    let before = std::fs::read(&tmp_save).unwrap();
    let out = run(&["play", SKIRMISH, "--resume", s(&tmp_save)], "end\n");
    assert_code(&out, 0, "resume s.tmp");
    let mut kept = Vec::new();
    std::io::Read::read_to_end(&mut &held, &mut kept).unwrap();
    assert_eq!(kept, before, "the old file was rewritten in place");
    assert_eq!(entries(&tmp_save), ["end"]);
    // Nothing is left beside the saves.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["game.json", "game.tmp", "s.tmp", "victim.txt"]);
}

// ----- 3. links ----------------------------------------------------------------------------

/// Saving through a link replaced the link with a regular file and left the real save behind:
/// a link is written through to its target; a link that leads nowhere is refused.
#[test]
fn a_save_through_a_link_writes_the_file_it_leads_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    let link = dir.path().join("link.json");
    new_session(&real, "4", "");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(&["play", SKIRMISH, "--resume", s(&link)], WALK);
    assert_code(&out, 0, "resume through a link");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(entries(&real).len(), 3);
    let out = run(
        &[
            "game",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "1",
            "--phases",
            "2",
            "--save",
            s(&link),
        ],
        "",
    );
    assert_code(&out, 0, "game --save through a link");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("servitor-game"));

    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink(dir.path().join("nowhere/x.json"), &dangling).unwrap();
    let out = new_session(&dangling, "1", "");
    assert_code(&out, 2, "a link that leads nowhere");
    assert!(
        out.stderr.contains("symbolic link that leads to no file"),
        "{}",
        out.stderr
    );
}

// ----- 4. two sessions ---------------------------------------------------------------------

/// A session whose first save is written, waiting for its next command.
fn waiting_session(save: &Path) -> (Child, std::process::ChildStdin) {
    let mut child = command(&[
        "play",
        SKIRMISH,
        "--mission",
        "hall-fight",
        "--seed",
        "5",
        "--save",
        s(save),
        "--json",
    ])
    .spawn()
    .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("\"command\":\"start\""), "{line}");
    // Its later lines go nowhere: the reader is dropped with the session's end.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    (child, stdin)
}

/// Two sessions on one save overwrote each other (and one died on the other's rename): a
/// session holds its save's lock for its life, and a second one is refused with a clear
/// message — until the first ends, however it ends (a kill -9 too).
#[test]
fn a_second_session_on_one_save_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("s.json");
    let (mut first, mut stdin) = waiting_session(&save);
    let out = run(&["play", SKIRMISH, "--resume", s(&save)], "end\n");
    assert_code(&out, 1, "a second session");
    assert!(
        out.stderr.contains("is in use by another servitor session"),
        "{}",
        out.stderr
    );
    let out = run(
        &[
            "game",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "1",
            "--save",
            s(&save),
        ],
        "",
    );
    assert_code(&out, 1, "game --save onto a save in use");
    assert!(entries(&save).is_empty());
    writeln!(stdin, "end").unwrap();
    drop(stdin);
    assert!(first.wait().unwrap().success());
    assert_eq!(entries(&save), ["end"]);
    assert!(
        !dir.path().join("s.json.lock").exists(),
        "the lock goes with the session"
    );

    // Killed: the kernel lets go of the lock, and the next session goes on.
    let save = dir.path().join("k.json");
    let (mut first, _stdin) = waiting_session(&save);
    first.kill().unwrap();
    first.wait().unwrap();
    let out = run(&["play", SKIRMISH, "--resume", s(&save)], "end\n");
    assert_code(&out, 0, "after a kill");
    assert_eq!(entries(&save), ["end"]);
}

// ----- 5. redo: one command, one write -----------------------------------------------------

/// `redo` wrote the save twice (without its redo list, then with it); a kill between the two
/// lost the redo history. Killed at any moment of a session that redoes, every save on disk is
/// one the session really had (the unit test `play::tests::redo_writes_the_save_once` counts
/// the writes).
#[test]
fn killed_while_redoing_the_save_is_one_the_session_had() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    new_session(&base, "6", WALK);
    let all = entries(&base);
    let undone = run(&["play", SKIRMISH, "--resume", s(&base)], "undo\nundo\nundo\n");
    assert_code(&undone, 0, "undo");
    let start = std::fs::read(&base).unwrap();
    for trial in 0..24u64 {
        let save = dir.path().join(format!("r{trial}.json"));
        std::fs::write(&save, &start).unwrap();
        let mut child = command(&["play", SKIRMISH, "--resume", s(&save)]).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"redo\nredo\nredo\n");
        std::thread::sleep(std::time::Duration::from_millis(20 + 9 * trial));
        child.kill().unwrap();
        child.wait().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
        let done: Vec<&str> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["line"].as_str().unwrap())
            .collect();
        let to_redo: Vec<&str> = v
            .get("redo")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().rev().map(|e| e["line"].as_str().unwrap()).collect())
            .unwrap_or_default();
        let mut whole = done.clone();
        whole.extend(&to_redo);
        assert_eq!(whole, all, "trial {trial}: done {done:?}, to redo {to_redo:?}");
        let out = run(&["play", SKIRMISH, "--resume", s(&save)], "status\n");
        assert_code(&out, 0, &format!("trial {trial}"));
    }
}

// ----- a full disk -------------------------------------------------------------------------

/// Runs with files limited to `bytes` (`RLIMIT_FSIZE`, SIGXFSZ ignored): a write past it fails
/// as on a full disk.
fn with_small_disk(args: &[&str], bytes: u64, input: &str) -> Out {
    use std::os::unix::process::CommandExt;
    let mut c = command(args);
    // SAFETY: between fork and exec only setrlimit and signal run, both async-signal-safe.
    unsafe {
        c.pre_exec(move || {
            let cap = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    finish(c.spawn().unwrap(), input)
}

/// A save that cannot be written whole (the disk is full) leaves the previous save as it was
/// and no temporary file; in `play` the command is refused and the session goes on.
#[test]
fn a_full_disk_keeps_the_previous_save() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("g.json");
    let args = [
        "game",
        SKIRMISH,
        "--mission",
        "hall-fight",
        "--seed",
        "7",
        "--phases",
        "1",
        "--save",
        s(&save),
    ];
    assert_code(&run(&args, ""), 0, "a short game");
    let before = std::fs::read(&save).unwrap();
    let whole = [
        "game",
        SKIRMISH,
        "--mission",
        "hall-fight",
        "--seed",
        "7",
        "--save",
        s(&save),
    ];
    let out = with_small_disk(&whole, before.len() as u64 + 100, "");
    assert_code(&out, 1, "a save past the disk's room");
    assert!(out.stderr.contains("cannot write"), "{}", out.stderr);
    assert_eq!(std::fs::read(&save).unwrap(), before);

    let session = dir.path().join("p.json");
    new_session(&session, "7", "");
    let before = std::fs::read(&session).unwrap();
    let out = with_small_disk(
        &["play", SKIRMISH, "--resume", s(&session)],
        before.len() as u64 + 10,
        "end\nstatus\n",
    );
    assert_code(&out, 0, "play on a full disk");
    assert!(out.stdout.contains("refused: cannot write"), "{}", out.stdout);
    assert!(out.stdout.contains("nothing changed"), "{}", out.stdout);
    assert!(
        out.stdout.contains("turn 1 · hunters"),
        "the session goes on: {}",
        out.stdout
    );
    assert_eq!(std::fs::read(&session).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
}

// ----- 6. what a save writes is bounded ----------------------------------------------------

/// A game inside every limit that keeps big nested values each turn wrote a 100 MB indented
/// save that `--resume` refused: saves are compact, and each one written resumes.
#[test]
fn a_game_that_keeps_big_values_writes_saves_that_resume() {
    let dir = tempfile::tempdir().unwrap();
    for phases in ["3", "9"] {
        let save = dir.path().join(format!("g{phases}.json"));
        let out = run(
            &[
                "game",
                "tests/saves/growth",
                "--mission",
                "m",
                "--seed",
                "1",
                "--phases",
                phases,
                "--save",
                s(&save),
            ],
            "",
        );
        assert_code(&out, 0, "the growing game");
        let size = std::fs::metadata(&save).unwrap().len();
        assert!(size < 8_000_000, "{phases} phases: a {size}-byte save");
        let again = dir.path().join(format!("again{phases}.json"));
        let out = run(
            &[
                "game",
                "tests/saves/growth",
                "--resume",
                s(&save),
                "--phases",
                "0",
                "--save",
                s(&again),
            ],
            "",
        );
        assert_code(&out, 0, "its save resumes");
        assert_eq!(std::fs::read(&save).unwrap(), std::fs::read(&again).unwrap());
    }
}

/// A change made to a save by hand.
type Tamper = Box<dyn Fn(&mut serde_json::Value)>;

// ----- 7. a game's save is the game its mission, seed and options play ---------------------

/// `next`, options, `mission`, `seed` and `streams` of a game's save were trusted: each now
/// must be what playing the mission again from the seed with the options gives.
#[test]
fn a_game_save_is_checked_against_the_game_it_says_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("s.json");
    let out = run(
        &[
            "game",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
            "--phases",
            "3",
            "--save",
            s(&save),
        ],
        "",
    );
    assert_code(&out, 0, "the save");
    let base: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    let first_stream = base["streams"].as_object().unwrap().keys().next().unwrap().clone();
    let cases: Vec<(&str, Tamper)> = vec![
        ("next", Box::new(|v| v["next"] = serde_json::json!([40, 1]))),
        (
            "an option's value the command line refuses",
            Box::new(|v| v["options"]["marine-style"] = "reckless".into()),
        ),
        (
            "an option's value of another type",
            Box::new(|v| v["options"]["marine-style"] = 3.into()),
        ),
        ("an unknown option", Box::new(|v| v["options"]["cheat"] = "on".into())),
        ("another mission", Box::new(|v| v["mission"] = "stranded".into())),
        (
            "a mission that does not exist",
            Box::new(|v| v["mission"] = "nope".into()),
        ),
        ("another seed", Box::new(|v| v["seed"] = 3.into())),
        (
            "a stream moved",
            Box::new(move |v| v["streams"][&first_stream] = "4000".into()),
        ),
    ];
    let mut shown = String::new();
    for (what, change) in cases {
        let mut v = base.clone();
        change(&mut v);
        let tampered = dir.path().join("t.json");
        std::fs::write(&tampered, v.to_string()).unwrap();
        let out = run(&["game", "space-crusade-solo", "--resume", s(&tampered)], "");
        assert_code(&out, 1, what);
        assert!(out.stdout.is_empty(), "{what}: nothing is played");
        shown.push_str(&format!("{what}:\n{}\n", out.stderr.replace(s(&tampered), "T")));
    }
    insta::assert_snapshot!(shown);
    // The untouched save still resumes, to the end of the game.
    let out = run(&["game", "space-crusade-solo", "--resume", s(&save)], "");
    assert_code(&out, 0, "the untouched save");
}

// ----- 8. a session's manual dice ----------------------------------------------------------

/// A manual-dice session's typed 2 changed to 7 in the save resumed to another board: each
/// saved die must be a face of the die it is given to, and there must be as many as rolled.
#[test]
fn a_sessions_dice_are_checked_against_the_dice_it_rolls() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("m.json");
    let out = run(
        &[
            "play",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "3",
            "--dice",
            "manual",
            "--save",
            s(&save),
        ],
        &format!("{WALK}2\n3\nauto\nmove hunter-1 6,4 7,4 8,4\nfight hunter-1 token-1\n2\n"),
    );
    assert_code(&out, 0, "a manual session");
    let base: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    let (n, _) = base["entries"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(_, e)| e["dice"].as_array().is_some_and(|d| !d.is_empty()))
        .expect("a command that rolled");
    let cases: Vec<(&str, Tamper)> = vec![
        ("a 7 on a d6", Box::new(move |v| v["entries"][n]["dice"][0] = 7.into())),
        ("a 0", Box::new(move |v| v["entries"][n]["dice"][0] = 0.into())),
        (
            "2^64 - 1",
            Box::new(move |v| v["entries"][n]["dice"][0] = u64::MAX.into()),
        ),
        (
            "a cut list",
            Box::new(move |v| v["entries"][n]["dice"] = serde_json::json!([])),
        ),
        (
            "a padded list",
            Box::new(move |v| v["entries"][n]["dice"].as_array_mut().unwrap().push(1.into())),
        ),
        ("manual dice turned off", Box::new(|v| v["manual_dice"] = false.into())),
        (
            "a side that is not the game's",
            Box::new(|v| v["side"] = "aliens".into()),
        ),
        (
            "a command longer than a line may be",
            Box::new(|v| v["entries"][0]["line"] = format!("move hunter-1 {}", "2,1 ".repeat(2000)).into()),
        ),
    ];
    let mut shown = String::new();
    for (what, change) in cases {
        let mut v = base.clone();
        change(&mut v);
        let tampered = dir.path().join("t.json");
        std::fs::write(&tampered, v.to_string()).unwrap();
        let out = run(&["play", SKIRMISH, "--resume", s(&tampered)], "status\n");
        assert_code(&out, 1, what);
        assert!(out.stdout.is_empty(), "{what}: nothing is played: {}", out.stdout);
        shown.push_str(&format!("{what}:\n{}\n", out.stderr.replace(s(&tampered), "T")));
    }
    insta::assert_snapshot!(shown);
    let out = run(&["play", SKIRMISH, "--resume", s(&save)], "status\n");
    assert_code(&out, 0, "the untouched save");
    assert!(out.stderr.is_empty(), "no die is asked again: {}", out.stderr);
}

// ----- 9. JSON stays JSON ------------------------------------------------------------------

/// Every character a terminal must not see raw, and a few it may.
fn hostile_chars() -> Vec<char> {
    ('\0'..='\u{1f}')
        .chain('\u{7f}'..='\u{9f}')
        .chain(['\u{200e}', '\u{200f}', '\u{2028}', '\u{2029}'])
        .chain('\u{202a}'..='\u{202e}')
        .chain('\u{2066}'..='\u{2069}')
        .collect()
}

/// Text with each of [`hostile_chars`], as a Rhai string literal's body.
fn rhai_escaped(chars: &[char]) -> String {
    chars.iter().map(|c| format!("\\u{:04x}", *c as u32)).collect()
}

/// A package whose every text holds every control and bidi character: a table's title and
/// rows, a procedure's steps, a game's log lines, piece ids and a command's refusal.
fn escapes_package(dir: &Path) -> PathBuf {
    let pkg = dir.join("esc");
    std::fs::create_dir_all(&pkg).unwrap();
    // In a rules file, printable stand-ins plus the bidi characters a text may hold raw; the
    // scripts carry every one of them.
    let raw: String = ['\u{202e}', '\u{2066}', '\u{85}', '\u{9b}', '\u{200f}']
        .iter()
        .collect();
    std::fs::write(
        pkg.join("package.rules"),
        format!(
            "package esc {{ version \"1\"; script \"g.rhai\" }}\n\
             table t \"title {raw}\" {{\n  dice d6\n  source \"src {raw}\"\n  1-6 => a \"label {raw}\" {{ text \"text {raw}\" }}\n}}\n\
             procedure say {{ function say }}\n\
             board b {{\n  map \"\n+-+-+-+-+\n|. . . .|\n+-+-+-+-+\n\"\n}}\n\
             mission m {{ board b at 1 1 }}\n\
             game g {{\n  sides [red, blue]\n  setup setup\n  phase red red-move red_turn\n  phase blue blue-move blue_turn\n  command poke poke \"poke {raw}\"\n  max-turns 2\n}}\n"
        ),
    )
    .unwrap();
    let all = rhai_escaped(&hostile_chars());
    std::fs::write(
        pkg.join("g.rhai"),
        format!(
            "fn say(args) {{ step(\"{all}\", \"{all}\"); \"{all}\" }}\n\
             fn setup(game) {{ game.say(\"{all}\", \"{all}\"); game.set_var(\"{all}\", \"{all}\"); }}\n\
             fn red_turn(game) {{ game.say(\"red {all}\"); }}\n\
             fn blue_turn(game) {{ }}\n\
             fn poke(game, words) {{ throw \"no {all}\" + words; }}\n"
        ),
    )
    .unwrap();
    pkg
}

/// Each line of `stdout` is JSON, and nothing on it is a raw control or bidi character.
fn assert_json_lines(what: &str, out: &Out) -> Vec<serde_json::Value> {
    let bad: Vec<char> = out
        .stdout
        .chars()
        .filter(|c| hostile_chars().contains(c) && *c != '\n')
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} on stdout:\n{}", out.stdout);
    assert!(!out.stdout.is_empty(), "{what}: no JSON at all\n{}", out.stderr);
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {l}")))
        .collect()
}

/// The terminal's pictures (`\u{202e}`) once went into JSON output, which no parser reads:
/// JSON is escaped by its encoder only. Every command with `--json`, and every `play --json`
/// answer, given every control and bidi character.
#[test]
fn every_json_output_is_json_whatever_the_package_writes() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = escapes_package(dir.path());
    let p = s(&pkg);
    let sc = dir.path().join("sc.rhai");
    std::fs::write(
        &sc,
        format!(
            "// package: {p}\n// mission: m\nfn scenario(game) {{ game.say(\"{}\"); }}\n",
            rhai_escaped(&hostile_chars())
        ),
    )
    .unwrap();
    let chars: String = hostile_chars().iter().filter(|c| **c != '\n' && **c != '\r').collect();
    let commands: Vec<Vec<String>> = vec![
        vec!["check".into(), p.into()],
        vec!["tables".into(), p.into()],
        vec!["tables".into(), p.into(), "t".into()],
        vec!["roll".into(), p.into(), "t".into(), "--seed".into(), "1".into()],
        vec!["odds".into(), p.into(), "t".into()],
        vec!["odds".into(), p.into(), "t".into(), "--vs".into(), p.into()],
        vec!["run".into(), p.into(), "say".into(), "--seed".into(), "1".into()],
        vec!["show".into(), p.into(), "--mission".into(), "m".into()],
        vec![
            "los".into(),
            p.into(),
            "--mission".into(),
            "m".into(),
            "1,1".into(),
            "4,1".into(),
        ],
        vec![
            "game".into(),
            p.into(),
            "--mission".into(),
            "m".into(),
            "--seed".into(),
            "1".into(),
        ],
        vec![
            "sim".into(),
            p.into(),
            "--mission".into(),
            "m".into(),
            "--games".into(),
            "3".into(),
        ],
        vec!["scenario".into(), s(&sc).into()],
        vec!["packages".into()],
    ];
    for args in commands {
        let mut args = args;
        args.push("--json".into());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&refs, "");
        assert_json_lines(&format!("{args:?}"), &out);
    }
    // A session's answers: unknown commands, `why`, `odds`, a command the package refuses.
    let mut input = String::new();
    for c in &chars.chars().collect::<Vec<_>>() {
        input.push_str(&format!("X{c}\nwhy {c}\nodds {c}\npoke {c}\n"));
    }
    input.push_str(&format!("move {chars}\nstatus\nboard\nhelp\n"));
    let out = run(&["play", p, "--mission", "m", "--seed", "1", "--json"], &input);
    assert_code(&out, 0, "play --json");
    let answers = assert_json_lines("play --json", &out);
    assert!(answers.len() > 4 * chars.chars().count(), "{} answers", answers.len());
    let echoed = answers.iter().any(|a| a["command"] == format!("X{}", '\u{202e}'));
    assert!(echoed, "the command comes back exactly as typed");
    // The log's texts come back exactly as the package wrote them.
    let out = run(&["game", p, "--mission", "m", "--seed", "1", "--json"], "");
    let game = &assert_json_lines("game --json", &out)[0];
    let said: String = hostile_chars().into_iter().collect();
    assert!(
        game["events"].as_array().unwrap().iter().any(|e| e["text"] == said),
        "{game}"
    );
}

// ----- 10–12. sims -------------------------------------------------------------------------

/// `sim` kept every failed game's 16 KiB message (963 MB for 20,000 games) and exited 0 when
/// every game failed: errors are kept by kind, each with a count and its first games, and
/// failed games make the exit code 1 with the report still printed.
#[test]
fn a_sim_counts_its_errors_by_kind_and_exits_1() {
    let out = run(
        &[
            "sim",
            "tests/saves/failing",
            "--mission",
            "m",
            "--games",
            "300",
            "--jobs",
            "2",
            "--json",
        ],
        "",
    );
    assert_code(&out, 1, "a sim of failing games");
    assert!(out.stderr.contains("300 of 300 games failed"), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(report["outcomes"]["error"], 300);
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "one kind of error");
    assert_eq!(errors[0]["games"], 300);
    assert_eq!(
        errors[0]["examples"].as_array().unwrap().len(),
        servitor::limits::MAX_SIM_ERROR_EXAMPLES
    );
    assert!(out.stdout.len() < 40_000, "{} bytes of report", out.stdout.len());

    // A different message every game: the first MAX_SIM_ERRORS are kept, the rest counted.
    let out = run(
        &[
            "sim",
            "tests/saves/failing",
            "--mission",
            "m",
            "--games",
            "100",
            "--set",
            "kind=many",
        ],
        "",
    );
    assert_code(&out, 1, "a sim of games failing differently");
    insta::assert_snapshot!(
        out.stdout
            .lines()
            .filter(|l| !l.contains("games/s"))
            .collect::<Vec<_>>()
            .join("\n")
    );

    // The same report whatever the threads.
    let a = run(
        &[
            "sim",
            "tests/saves/failing",
            "--mission",
            "m",
            "--games",
            "40",
            "--jobs",
            "1",
            "--set",
            "kind=many",
            "--json",
        ],
        "",
    );
    let b = run(
        &[
            "sim",
            "tests/saves/failing",
            "--mission",
            "m",
            "--games",
            "40",
            "--jobs",
            "2",
            "--set",
            "kind=many",
            "--json",
        ],
        "",
    );
    let strip = |o: &Out| {
        let mut v: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
        v["timing"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(&a), strip(&b));
}

/// `game --json` printed nothing when its game failed: it prints the error and the log.
#[test]
fn a_failed_game_still_prints_its_json() {
    let out = run(
        &["game", "tests/saves/failing", "--mission", "m", "--seed", "1", "--json"],
        "",
    );
    assert_code(&out, 1, "a failing game");
    let json: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(json["seed"], 1);
    assert_eq!(json["error"]["severity"], "error");
    assert!(json["error"]["file"].as_str().unwrap().ends_with("g.rhai"), "{json}");
    assert!(json["events"].as_array().is_some_and(|e| !e.is_empty()), "{json}");
    assert!(out.stderr.contains("`setup` (turn 0, setup) failed"), "{}", out.stderr);
}

/// `sim --jobs 256` under a 1 GiB address space panicked (the thread pool could not be
/// built): it plays on no more threads than the cores can use (and fewer if the system cannot
/// start them), and says so.
#[test]
fn a_sim_plays_on_fewer_threads_when_the_system_cannot_start_them() {
    use std::os::unix::process::CommandExt;
    let mut c = command(&[
        "sim",
        SKIRMISH,
        "--mission",
        "hall-fight",
        "--games",
        "8",
        "--jobs",
        "256",
    ]);
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = finish(c.spawn().unwrap(), "");
    assert_code(&out, 0, "sim --jobs 256 in 1 GiB");
    assert!(out.stderr.contains("note: --jobs 256"), "{}", out.stderr);
    assert!(out.stdout.contains("8 games"), "{}", out.stdout);
}

// ----- 13–15. play's input, board files, exit codes ----------------------------------------

/// A 60 MB line took 1.4 GB: a command is at most MAX_COMMAND_BYTES, and a longer line is
/// refused, unread past the limit, and the session goes on.
#[test]
fn a_line_longer_than_a_command_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("s.json");
    let long = format!("move hunter-1 {}\n", "6,2 ".repeat(2_000_000));
    let out = new_session(&save, "8", &format!("{long}end\n"));
    assert_code(&out, 0, "a session with an 8 MB line");
    assert!(
        out.stdout
            .contains("refused: a command is at most 4,096 bytes (`MAX_COMMAND_BYTES`"),
        "{}",
        &out.stdout[..out.stdout.len().min(3000)]
    );
    assert!(
        out.stdout.len() < 20_000,
        "the line is not echoed: {} bytes",
        out.stdout.len()
    );
    assert_eq!(entries(&save), ["end"]);
}

/// `board FILE.svg` that could not be written ended the session; it is refused like any
/// command, and the commands after it are read.
#[test]
fn a_board_that_cannot_be_written_is_refused() {
    let out = run(
        &["play", SKIRMISH, "--mission", "hall-fight", "--seed", "1"],
        "board /no/such/folder/b.svg\nstatus\n",
    );
    assert_code(&out, 0, "play");
    assert!(
        out.stdout.contains("refused: cannot write /no/such/folder/b.svg"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("nothing changed"), "{}", out.stdout);
    assert!(
        out.stdout.contains("hunters: 0 points"),
        "status still runs: {}",
        out.stdout
    );
}

/// Exit 2 is the command line's fault, 1 everything else: `play --mission nope` is 2 as for
/// `game` and `sim`; a save that names a missing mission is 1, its command line being right.
#[test]
fn exit_codes_say_whose_fault_it_is() {
    for args in [
        vec!["play", SKIRMISH, "--mission", "nope"],
        vec!["game", SKIRMISH, "--mission", "nope"],
        vec!["sim", SKIRMISH, "--mission", "nope", "--games", "1"],
    ] {
        let out = run(&args, "");
        assert_code(&out, 2, &format!("{args:?}"));
        assert!(out.stderr.contains("no mission `nope`"), "{}", out.stderr);
    }
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("g.json");
    run(
        &[
            "game",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            "1",
            "--phases",
            "2",
            "--save",
            s(&save),
        ],
        "",
    );
    let text = std::fs::read_to_string(&save)
        .unwrap()
        .replace("\"mission\":\"hall-fight\"", "\"mission\":\"nope\"");
    std::fs::write(&save, text).unwrap();
    let out = run(&["game", SKIRMISH, "--resume", s(&save)], "");
    assert_code(&out, 1, "a save naming a missing mission");
    let session = dir.path().join("p.json");
    new_session(&session, "1", "");
    let text = std::fs::read_to_string(&session)
        .unwrap()
        .replace("\"mission\":\"hall-fight\"", "\"mission\":\"nope\"");
    std::fs::write(&session, text).unwrap();
    let out = run(&["play", SKIRMISH, "--resume", s(&session)], "");
    assert_code(&out, 1, "a session naming a missing mission");
}

// ----- the property ------------------------------------------------------------------------

/// A small deterministic generator (the tests' own: same seed, same commands).
struct Prng(u64);

impl Prng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_command(rng: &mut Prng) -> String {
    let piece = |rng: &mut Prng| ["hunter-1", "hunter-2", "token-1", "token-2"][rng.below(4) as usize];
    let square = |rng: &mut Prng| format!("{},{}", 1 + rng.below(10), 1 + rng.below(5));
    match rng.below(10) {
        0..=2 => "end".into(),
        3 => "undo".into(),
        4 => "redo".into(),
        5 => format!("fight {} {}", piece(rng), piece(rng)),
        _ => {
            let steps: Vec<String> = (0..1 + rng.below(3)).map(|_| square(rng)).collect();
            format!("move {} {}", piece(rng), steps.join(" "))
        }
    }
}

/// Every save servitor writes resumes to the same game, byte for byte when saved again:
/// `game --save` (whole games and `--phases N`), and a `play` session's save after each of
/// a random run of commands (undo and redo among them) — the resumed session's status and
/// board are the ones the session had, and its first save is the file it resumed.
#[test]
fn every_save_written_resumes_to_the_same_game() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..8u64 {
        for (pkg, mission) in [(SKIRMISH, "hall-fight"), ("space-crusade-solo", "reactor-strike")] {
            let seed_text = (seed * 7 + 1).to_string();
            for phases in [None, Some("1"), Some("4")] {
                let a = dir.path().join("a.json");
                let b = dir.path().join("b.json");
                let mut args = vec!["game", pkg, "--mission", mission, "--seed", &seed_text, "--save", s(&a)];
                if let Some(n) = phases {
                    args.extend(["--phases", n]);
                }
                assert_code(&run(&args, ""), 0, &format!("{args:?}"));
                let out = run(&["game", pkg, "--resume", s(&a), "--phases", "0", "--save", s(&b)], "");
                assert_code(&out, 0, &format!("resume of {args:?}"));
                assert_eq!(
                    std::fs::read(&a).unwrap(),
                    std::fs::read(&b).unwrap(),
                    "{args:?}: saved again, the save changed"
                );
            }
        }
    }
    for seed in 0..10u64 {
        let mut rng = Prng(seed);
        let save = dir.path().join(format!("p{seed}.json"));
        let seed_text = seed.to_string();
        let mut child = command(&[
            "play",
            SKIRMISH,
            "--mission",
            "hall-fight",
            "--seed",
            &seed_text,
            "--save",
            s(&save),
            "--json",
        ])
        .spawn()
        .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut answer = move || {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            serde_json::from_str::<serde_json::Value>(&line).unwrap()
        };
        answer(); // the start
        let mut kept = Vec::new();
        for n in 0..8 {
            let line = random_command(&mut rng);
            writeln!(stdin, "{line}").unwrap();
            let reply = answer();
            if reply["over"].is_object() {
                break;
            }
            let copy = dir.path().join(format!("p{seed}-{n}.json"));
            std::fs::copy(&save, &copy).unwrap();
            writeln!(stdin, "status\nboard").unwrap();
            let status = answer()["text"].as_str().unwrap().to_string();
            let board = answer()["text"].as_str().unwrap().to_string();
            kept.push((line, copy, status, board));
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
        for (line, copy, status, board) in kept {
            let before = std::fs::read(&copy).unwrap();
            let out = run(&["play", SKIRMISH, "--resume", s(&copy), "--json"], "status\nboard\n");
            assert_code(&out, 0, &format!("seed {seed}, after `{line}`"));
            let answers: Vec<serde_json::Value> =
                out.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            assert_eq!(
                answers[1]["text"],
                status.as_str(),
                "seed {seed}, after `{line}`: status"
            );
            assert_eq!(answers[2]["text"], board.as_str(), "seed {seed}, after `{line}`: board");
            assert_eq!(
                std::fs::read(&copy).unwrap(),
                before,
                "seed {seed}, after `{line}`: saved again"
            );
        }
    }
}

// ----- 9. every value a save holds reads back bit for bit -----------------------------------

/// A float written with its shortest digits must read back as the same float: a Solo Heresy
/// game that kept an unrounded point (`51.227012048319004`) wrote a save `--resume` refused,
/// its JSON reader one ulp off ("the same words, but not the same record").
#[test]
fn a_save_holding_an_unrounded_float_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let out = run(
        &[
            "game",
            "solo-heresy",
            "--mission",
            "raid",
            "--seed",
            "353",
            "--phases",
            // Setup, your deployment, the enemy's first turn and your turn.
            "4",
            "--save",
            s(&a),
        ],
        "",
    );
    assert_code(&out, 0, "the save");
    let out = run(
        &[
            "game",
            "solo-heresy",
            "--resume",
            s(&a),
            "--phases",
            "0",
            "--save",
            s(&b),
        ],
        "",
    );
    assert_code(&out, 0, "its resume");
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

/// Floats of every kind — any bit pattern (subnormals, huge, both zeros, infinities and NaN,
/// which a game keeps as null), the shortest-digit edge cases, and decimals with 15 to 17
/// digits like a point a script works out —, as the Rhai float they are.
fn random_floats(rng: &mut Prng, n: usize) -> Vec<f64> {
    let mut out = vec![
        0.0,
        -0.0,
        f64::MIN_POSITIVE,
        f64::from_bits(f64::MIN_POSITIVE.to_bits() - 1),
        f64::from_bits(1),
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        9_007_199_254_740_993.0,
        0.1 + 0.2,
        51.227_012_048_319_004,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    while out.len() < n {
        let x = match rng.below(5) {
            // Any bits.
            0 => f64::from_bits(rng.next()),
            // A subnormal.
            1 => f64::from_bits(rng.next() & 0x800f_ffff_ffff_ffff),
            // Huge or tiny.
            2 => f64::from_bits(
                (rng.next() & 0x801f_ffff_ffff_ffff) | (if rng.below(2) == 0 { 0x7fc } else { 0x002 } << 52),
            ),
            // A decimal of 15 to 17 digits, the kind a script's arithmetic leaves.
            3 => {
                let digits = 10u64.pow(14 + rng.below(3) as u32) + rng.below(9 * 10u64.pow(14));
                let scale = 10f64.powi(rng.below(40) as i32 - 20);
                digits as f64 * scale
            }
            // A point on a table in inches, as arithmetic makes one.
            _ => (rng.below(72_000) as f64 / 1000.0) * ((1 + rng.below(1000)) as f64 / 7.0).sqrt(),
        };
        out.push(x);
    }
    out
}

/// Every value a script stores with `game.set_var` — random floats of every kind, the
/// extreme whole numbers, texts, flags, `()`, lists and maps of them — is in the save as it
/// was kept, so the save resumes and, saved again, is the same file byte for byte.
#[test]
fn every_value_a_script_keeps_reads_back_from_a_save() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..4u64 {
        let mut rng = Prng(seed);
        let floats = random_floats(&mut rng, 300);
        // Rhai reads a finite float's shortest digits exactly; the others are made by overflow.
        let float = |x: &f64| match x {
            x if x.is_finite() => format!("parse_float(\"{x:?}\")"),
            x if x.is_nan() => "(parse_float(\"1e308\") * 10.0 - parse_float(\"1e308\") * 10.0)".to_string(),
            x if *x > 0.0 => "(parse_float(\"1e308\") * 10.0)".to_string(),
            _ => "(parse_float(\"-1e308\") * 10.0)".to_string(),
        };
        let mut script = String::from("fn setup(game) {\n");
        for (k, x) in floats.iter().enumerate() {
            script.push_str(&format!("    game.set_var(\"f{k}\", {});\n", float(x)));
        }
        let list: Vec<String> = floats.iter().take(40).map(float).collect();
        script.push_str(&format!(
            "    game.set_var(\"list\", [{}]);\n    game.set_var(\"map\", #{{ a: {}, b: [{}, #{{ c: {} }}], n: 9223372036854775807, m: -9223372036854775807 - 1, t: \"é\\U0001F600\", y: true, u: () }});\n",
            list.join(", "),
            float(&floats[20]),
            float(&floats[21]),
            float(&floats[22]),
        ));
        script.push_str("    game.set_var(\"c\", 'x');\n}\n");
        script.push_str("fn red_turn(game) { game.set_var(`t${game.turn()}`, game.get_var(\"f5\") * 1.000001); }\nfn blue_turn(game) { }\n");
        let pkg = dir.path().join(format!("floats{seed}"));
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("g.rhai"), script).unwrap();
        std::fs::write(
            pkg.join("package.rules"),
            std::fs::read_to_string(root().join("tests/saves/growth/package.rules"))
                .unwrap()
                .replace("package growth", "package floats"),
        )
        .unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        for phases in ["1", "4"] {
            let out = run(
                &[
                    "game",
                    s(&pkg),
                    "--mission",
                    "m",
                    "--seed",
                    "1",
                    "--phases",
                    phases,
                    "--save",
                    s(&a),
                ],
                "",
            );
            assert_code(&out, 0, &format!("seed {seed}: the save"));
            let out = run(
                &["game", s(&pkg), "--resume", s(&a), "--phases", "0", "--save", s(&b)],
                "",
            );
            assert_code(&out, 0, &format!("seed {seed}, {phases} phases: its resume"));
            assert_eq!(
                std::fs::read(&a).unwrap(),
                std::fs::read(&b).unwrap(),
                "seed {seed}: saved again, the save changed"
            );
        }
        // Each float is in the save as the shortest digits of that very float.
        let save: serde_json::Value = serde_json::from_slice(&std::fs::read(&a).unwrap()).unwrap();
        for (k, x) in floats.iter().enumerate().filter(|(_, x)| x.is_finite()) {
            let kept = &save["state"]["vars"][format!("f{k}")];
            let back = kept.as_f64().unwrap_or_else(|| panic!("f{k}: {kept} is not {x:?}"));
            assert_eq!(back.to_bits(), x.to_bits(), "f{k}: {x:?} read back as {back:?}");
        }
    }
}

/// Phases saved a game of every bundled package: saved and resumed after each of its first
/// `PHASES_SAVED` phases (2 games a package, a mission and a seed drawn for each: 12 saves a
/// game, each loaded as `--resume` loads it — a replay from the seed — and saved again).
const PHASES_SAVED: u32 = 12;

/// `game --save` at every phase of random games of every bundled package resumes, and the
/// resumed game saved again is the same file byte for byte (in process: the same `Host::save`,
/// `encode`, JSON reader and `Host::load` as the command line).
#[test]
fn a_save_at_any_phase_of_any_bundled_game_resumes() {
    use servitor::game::{Host, Save, Setup, host};
    use std::sync::Arc;
    let mut rng = Prng(34);
    let mut saves = 0;
    for name in common::bundled_packages() {
        let ruleset = Arc::new(common::load(&name));
        if ruleset.games.is_empty() {
            continue;
        }
        let missions: Vec<String> = ruleset.playable_missions().into_iter().map(String::from).collect();
        let (mut host, mut again) = (Host::new(&ruleset), Host::new(&ruleset));
        for _ in 0..2 {
            let mission = missions[rng.below(missions.len() as u64) as usize].clone();
            let seed = rng.below(10_000);
            let what = format!("servitor game {name} --mission {mission} --seed {seed}");
            let setup = Setup {
                game: None,
                mission,
                seed,
                options: Vec::new(),
            };
            let mut game = host.start(&setup, Some(0)).unwrap_or_else(|e| panic!("{what}: {e:?}"));
            for phase in 1..=PHASES_SAVED {
                game = host.advance(game, Some(1)).unwrap_or_else(|e| panic!("{what}: {e:?}"));
                let text = host::encode(&host.save(&game)).unwrap();
                let read: Save = serde_json::from_str(&text).unwrap();
                let resumed = again
                    .load(read)
                    .unwrap_or_else(|e| panic!("{what}, saved after {phase} phases: {e:?}"));
                assert_eq!(
                    host::encode(&again.save(&resumed)).unwrap(),
                    text,
                    "{what}, saved after {phase} phases: saved again, the save changed"
                );
                saves += 1;
                if game.state.over.is_some() {
                    break;
                }
            }
        }
    }
    assert!(saves >= 4 * PHASES_SAVED as usize, "{saves} saves");
}

/// A save whose log does not replay named the action as a Rust structure
/// (`Face { id: "marine-1", facing: 4 }`): it is named as the save writes it.
#[test]
fn a_log_that_does_not_replay_names_its_action_as_the_save_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("s.json");
    let out = run(
        &[
            "game",
            "space-hulk-solo",
            "--mission",
            "breach-run",
            "--seed",
            "3",
            "--phases",
            "2",
            "--save",
            s(&save),
        ],
        "",
    );
    assert_code(&out, 0, "the save");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&save).unwrap()).unwrap();
    let face = v["events"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["action"]["do"] == "face")
        .expect("a Terminator turns in two phases");
    face["action"]["id"] = "nobody".into();
    std::fs::write(&save, v.to_string()).unwrap();
    let out = run(&["game", "space-hulk-solo", "--resume", s(&save)], "");
    assert_code(&out, 1, "the tampered save");
    assert!(
        out.stderr
            .contains(r#"the log does not replay: the action {"do":"face","id":"nobody","#),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("Face {"), "{}", out.stderr);
}
