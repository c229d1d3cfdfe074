//! Manual dice at the table (`servitor play --dice manual`, issue 22 item 3), from a pipe as a
//! player types: each die is preceded by a line saying what it is for (the roll, its place in
//! it, the table, the phase or trigger rolling it); several faces go on one line; `auto`
//! rolls this die, `auto roll` the rest of the roll, `auto all` the rest of the command;
//! `help` at a prompt helps; a face the die does not have is refused and asked again.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn every_die_says_what_it_is_for_and_takes_several_faces_auto_and_help() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_servitor"))
        .args([
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ])
        .args(["--dice", "manual", "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The Commander boards section 1; the section is scanned once he has finished acting, as
    // the next model boards. The scan's 2d6+4: `help`, then both dice and the first blip's row
    // on one line; `x` is no face; `auto roll` rolls that d12 (a roll of one die); 5 answers
    // the next; `auto all` rolls every other die of the command.
    let input = "enter commander 6,1\nenter marine-1 7,1\nhelp\n3 2 7\nx\nauto roll\n5\nauto all\nquit\n";
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("2d6+4: 3 + 2 + 4 = 9"), "{stdout}");
    assert!(stdout.contains("d12: 7"), "{stdout}");
    insta::assert_snapshot!(stderr);
}
