//! Space Crusade played whole (issue 6 and 7): every mission of `space-crusade-solo` plays to
//! its end with no script error and both sides winning some games; a seed replays a game
//! byte for byte; a variant's script replaces one Alien behaviour; and a person playing the
//! Marines at a table from a pipe never learns what a face-down blip is before it is seen.

mod common;
use common::{ok, servitor};
use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn every_mission_plays_to_the_end_and_either_side_can_win() {
    for mission in ["reactor-strike", "stranded", "purge"] {
        for style in ["cautious", "bold"] {
            let json = ok(&[
                "sim",
                "space-crusade-solo",
                "--mission",
                mission,
                "--games",
                "40",
                "--set",
                &format!("marine-style={style}"),
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let what = format!("{mission}, {style}: {json}");
            assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{what}");
            assert!(
                v["outcomes"]["marine"].as_u64().unwrap() > 0,
                "the Marines never win: {what}"
            );
            assert!(
                v["outcomes"]["alien"].as_u64().unwrap() > 0,
                "the Alien never wins: {what}"
            );
            // A game with no winner is a draw on equal scores (seed 002, End of the Game names
            // no tie-break), which is rare; the turn limit is never reached (tests/invariants.rs).
            assert!(v["outcomes"]["none"].as_u64().unwrap() <= 4, "{what}");
        }
    }
}

#[test]
fn the_same_seed_plays_the_same_game() {
    let args = [
        "game",
        "space-crusade-solo",
        "--mission",
        "stranded",
        "--seed",
        "11",
        "--json",
    ];
    let first = ok(&args);
    assert_eq!(first, ok(&args));
    let other = ok(&[
        "game",
        "space-crusade-solo",
        "--mission",
        "stranded",
        "--seed",
        "12",
        "--json",
    ]);
    assert_ne!(first, other, "a different seed should play a different game");
}

#[test]
fn a_variant_replaces_one_alien_behaviour() {
    let base = ok(&["game", "space-crusade-solo", "--mission", "purge", "--seed", "10"]);
    let variant = ok(&[
        "game",
        "examples/variants/commander-hunters",
        "--mission",
        "purge",
        "--seed",
        "10",
    ]);
    assert!(!base.contains("singles out the Commander"), "{base}");
    assert!(variant.contains("singles out the Commander"), "{variant}");
}

/// A variant package `name` in `dir` extending `base` with one script, `script`: its folder.
fn variant(dir: &std::path::Path, name: &str, base: &str, script: &str) -> std::path::PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::write(
        root.join("package.rules"),
        format!(
            "package {name} \"A test variant\" {{\n  version \"0.1.0\"\n  extends {base}\n  source \"a test\"\n  script \"scripts/hooks.rhai\"\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(root.join("scripts/hooks.rhai"), script).unwrap();
    root
}

/// The engine's `game.fire` (issue 39) asks the hooks by the names its rule gives, so a
/// variant replacing them still changes the game: here StarQuest's `choose_target` (a pick
/// logged, then no target at all: no single-target shot is fired) and `spare_own` (asked
/// before every line or blast is chosen, logged). Seed 14 of mission 1 has both kinds.
#[test]
fn replaced_fire_hooks_still_change_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let root = variant(
        dir.path(),
        "no-aim",
        "starquest-solitaire",
        "fn choose_target(game, shooter, side) {\n    game.say(`${shooter} picks nobody`, \"a test\");\n    ()\n}\n\
         fn spare_own(game, shooter) {\n    game.say(`${shooter} weighs an area shot`, \"a test\");\n    false\n}\n",
    );
    let args = |package: &str| -> Vec<String> {
        ["game", package, "--mission", "mission-1", "--seed", "14"]
            .map(String::from)
            .to_vec()
    };
    let base = ok(&args("starquest-solitaire")
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    let variant_args = args(root.to_str().unwrap());
    let variant = ok(&variant_args.iter().map(String::as_str).collect::<Vec<_>>());
    // A single-target shot reads "X fires the WEAPON at TARGET:"; a line or blast does not.
    let single = |log: &str| {
        log.lines()
            .filter(|l| l.contains(" fires the ") && l.contains(" at ") && !l.contains(" there, "))
            .count()
    };
    assert!(single(&base) > 0, "{base}");
    assert!(
        !base.contains("picks nobody") && !base.contains("weighs an area shot"),
        "{base}"
    );
    assert!(variant.contains("picks nobody"), "{variant}");
    assert!(variant.contains("weighs an area shot"), "{variant}");
    assert_eq!(single(&variant), 0, "{variant}");
}

#[test]
fn at_the_table_blips_stay_secret_until_seen() {
    let input = "enter commander 6,1\nmove commander 6,2 6,3\nstatus\nend\nstatus\nquit\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "3",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("a token drawn at random from blips"), "{stdout}");
    assert!(stdout.contains("pool blips: "), "{stdout}");
    // The identities of the blip tokens are in the mission; none may show before a reveal.
    for line in stdout.lines() {
        if line.contains("blips") {
            for alien in ["gretchin", "ork", "android", "genestealer", "chaos", "dreadnought"] {
                assert!(!line.contains(alien), "a blip's identity leaked: {line}");
            }
        }
    }
}

#[test]
fn a_game_saved_mid_way_and_resumed_equals_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, phases) in [("2", "3"), ("9", "8")] {
        let save = dir.path().join(format!("g{seed}.json"));
        let save = save.to_str().unwrap();
        let start = [
            "game",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            seed,
        ];
        let whole = ok(&[&start[..], &["--json"]].concat());
        ok(&[&start[..], &["--phases", phases, "--save", save]].concat());
        let resumed = ok(&["game", "space-crusade-solo", "--resume", save, "--json"]);
        assert_eq!(resumed, whole, "seed {seed}, saved after {phases} phases");
    }
}

#[test]
fn sim_gives_the_same_report_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let json = ok(&[
            "sim",
            "space-crusade-solo",
            "--mission",
            "stranded",
            "--games",
            "24",
            "--seed",
            "3",
            "--jobs",
            jobs,
            "--json",
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v.as_object_mut().unwrap().remove("timing");
        v
    };
    assert_eq!(run("1"), run("2"));
}

/// A whole mission at the table from a pipe, first Marine move to final score: the squad
/// boards through both claws (scanning two sections), opens a door, the Alien plays its turn
/// as numbered instructions, a mistyped command is refused with a suggestion and changes
/// nothing, and the squad leaves through the claws; the transcript is what a player reads.
#[test]
fn a_whole_mission_at_the_table_reads_as_a_transcript() {
    // Turn 1: entering is the first square of a move, so the heavy-weapon Marine has three
    // more and a fourth is refused; `fire` wants its target named. Turn 2: the Commander looks
    // (`sees`), fires at what he sees — once: a second attack is refused — and the squad leaves.
    // After the end only questions and `undo` are taken; `quit` says the game is not saved.
    let input = "enter commander 6,1\nenter marine-1 7,1\nenter marine-2 24,4\nenter marine-3 24,5\n\
                 move marine-3 23,5 22,5 21,5\nmove marine-3 20,5\nfier marine-2 plasma-gun\nfire marine-2 plasma-gun\nevent rerol\nevent reroll\nend\n\
                 sees commander\nfire commander bolt-pistol at gretchin-1\nfire commander bolt-pistol at ork-1\nfire commander bolt-pistol at ork-1\n\
                 leave commander\nleave marine-1\nleave marine-2\nmove marine-3 22,5 23,5 24,5\nleave marine-3\nenter marine-4 6,1\nend\nstatus\nleave marine-4\n\
                 fire marine-4 bolter best\nundo\nquit\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
            // Without the suspensors card, so a heavy-weapon Marine keeps its 4 squares.
            "--set",
            "equipment=stim-shot,auto-targeter,refractor-field,blast-plate",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("The game is over"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

/// The squad's Chapter cards (seed 002, Choosing Chapter Cards; the project's deck in
/// chapter.rules): shown in the set-up; `card` lists the hand; a passive card is always in
/// effect (suspensors: a heavy-weapon Marine moves 6, so five squares after entering pass); an
/// order is for the whole squad and only before anyone acts; a once-a-mission card gives one
/// Marine a second attack, a third is refused, and the card cannot be used again.
#[test]
fn chapter_cards_are_chosen_at_setup_and_played_by_the_rules() {
    let input = "card\ncard suspensors\ncard open-fire marine-1\ncard double-time\nenter commander 6,1\ncard open-fire\n\
                 enter marine-1 7,1\nenter marine-2 24,4\nenter marine-3 24,5\nmove marine-3 23,5 22,5 21,5 20,5 19,5\nend\n\
                 card auto-targeter commander\nfire commander bolt-pistol at ork-1\nfire commander bolt-pistol at ork-1\n\
                 fire commander bolt-pistol at ork-1\ncard auto-targeter marine-2\nquit\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    for expected in [
        "the squad's Chapter cards: equipment [suspensors, auto-targeter, refractor-field, stim-shot]; order open-fire",
        "refused: \"Suspensors\" is always in effect",
        "refused: \"Open fire\" is for the whole squad: card open-fire",
        "refused: double-time is not one of the squad's cards",
        "refused: an order is played at the start of the turn, before any model moves or fires",
        "commander uses \"Auto-targeter\"",
        "refused: commander has already attacked this turn: two this turn, by its card",
        "refused: auto-targeter has been used already",
    ] {
        assert!(stdout.contains(expected), "missing {expected:?} in:\n{stdout}");
    }
    // Suspensors: the fifth square after entering is within a heavy-weapon Marine's 6.
    assert!(!stdout.contains("marine-3 has"), "{stdout}");
    assert_eq!(
        stdout.matches("commander fires the Bolt pistol at ork-1").count(),
        2,
        "{stdout}"
    );
}

/// A squad chosen badly is refused before the game starts, saying what to choose.
#[test]
fn a_wrong_chapter_card_choice_is_refused_with_the_choices() {
    let (_, stderr, code) = servitor(
        &[
            "game",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--set",
            "equipment=suspensors,suspensors,grapnel,stim-shot",
        ],
        "",
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("equipment names suspensors twice"), "{stderr}");
    let (_, stderr, code) = servitor(
        &[
            "game",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--set",
            "equipment=suspensors,grapnel",
        ],
        "",
    );
    assert_ne!(code, 0);
    assert!(stderr.contains("equipment names 2 cards: choose 4 of"), "{stderr}");
}

/// The same mission with `--dice manual`, driven as a front end would drive it: each command
/// waits for its one JSON answer, and every die servitor asks for on the way (scans, blip
/// squares, the Alien's moves and attacks, the Marines' shots) is answered as a player reading
/// physical dice would — a face of that die, or now and then `auto`. The transcript pins the
/// dice asked, the answers and what the engine did with them, to the final score.
#[test]
fn a_whole_mission_with_manual_dice_takes_every_die_from_the_player() {
    use std::io::{BufRead, BufReader, Read};
    use std::sync::mpsc;

    enum From {
        Answer(String),
        Asked(String),
    }
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
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let out = BufReader::new(child.stdout.take().unwrap());
    let t = tx.clone();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            let _ = t.send(From::Answer(line));
        }
    });
    // A dice prompt ends with "or auto: " and no newline: read it byte by byte.
    let mut err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let mut byte = [0u8; 1];
        while err.read(&mut byte).is_ok_and(|n| n == 1) {
            text.push(byte[0]);
            if text.ends_with(b"or auto: ") {
                let _ = tx.send(From::Asked(String::from_utf8_lossy(&text).into_owned()));
                text.clear();
            } else if byte[0] == b'\n' {
                text.clear();
            }
        }
    });
    let commands = [
        "enter commander 6,1",
        "enter marine-1 7,1",
        "enter marine-2 24,4",
        "enter marine-3 24,5",
        "move marine-3 23,5 22,5 21,5",
        "sees marine-3",
        "fire marine-2 plasma-gun best",
        "end",
        "leave commander",
        "leave marine-1",
        "leave marine-2",
        "move marine-3 22,5 23,5 24,5",
        "leave marine-3",
        "enter marine-4 6,1",
        "end",
        "leave marine-4",
    ];
    let mut transcript = String::new();
    let (mut asked, mut automatic, mut partials) = (0, 0, 0);
    let mut over = serde_json::Value::Null;
    let wait = std::time::Duration::from_secs(60);
    let mut answer_one = |stdin: &mut std::process::ChildStdin, transcript: &mut String| -> serde_json::Value {
        loop {
            match rx.recv_timeout(wait).expect("servitor answers or asks within a minute") {
                From::Asked(prompt) => {
                    asked += 1;
                    let faces: Vec<&str> = prompt
                        .split("(faces ")
                        .nth(1)
                        .and_then(|s| s.split(')').next())
                        .unwrap_or("")
                        .split(' ')
                        .collect();
                    // Dice as they fall on a table: a face of that die, picked by a fixed
                    // sequence; every seventh left to servitor.
                    let reply = if asked % 7 == 0 {
                        automatic += 1;
                        "auto".to_string()
                    } else {
                        faces[(asked * 5 + 3) % faces.len()].to_string()
                    };
                    transcript.push_str(&format!("  ? {} {reply}\n", prompt.trim_end()));
                    writeln!(stdin, "{reply}").unwrap();
                }
                From::Answer(line) => {
                    let answer: serde_json::Value = serde_json::from_str(&line).expect("one JSON object a line");
                    // What the command logged before a die it asks (shown before the die is
                    // asked); its answer repeats every event of the command.
                    if answer["partial"] == true {
                        partials += 1;
                        continue;
                    }
                    return answer;
                }
            }
        }
    };
    let start = answer_one(&mut stdin, &mut transcript);
    assert_eq!(start["command"], "start");
    // The listed commands, then `end` until the game is over (the dice decide how the
    // Alien fares, so a command the board no longer allows is refused and the game goes on).
    let ends = std::iter::repeat_n("end", 40);
    for command in commands.into_iter().chain(ends) {
        transcript.push_str(&format!("> {command}\n"));
        writeln!(stdin, "{command}").unwrap();
        let answer = answer_one(&mut stdin, &mut transcript);
        if answer["ok"] != true {
            transcript.push_str(&format!("  refused: {}\n", answer["note"].as_str().unwrap_or("")));
        }
        // A question (`sees`) answers with text, and no events.
        if let Some(text) = answer["text"].as_str() {
            transcript.push_str(&format!("  {}\n", text.trim_end().replace('\n', "\n  ")));
        }
        for e in answer["events"].as_array().into_iter().flatten() {
            if e["kind"] != "var" && e["kind"] != "set" && e["kind"] != "choice" {
                transcript.push_str(&format!("  {}\n", e["text"].as_str().unwrap_or("")));
            }
        }
        over = answer["over"].clone();
        if !over.is_null() {
            break;
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(
        !over.is_null(),
        "the mission ends with the last Marine leaving:\n{transcript}"
    );
    assert!(
        asked > 50 && automatic > 0,
        "{asked} dice asked, {automatic} left to servitor"
    );
    assert!(partials > 0, "the events before a die asked mid-command come before it");
    insta::assert_snapshot!(format!("{asked} dice asked, {automatic} answered `auto`\n{transcript}"));
}

/// A blip revealed is called by its model from then on (`reveal-ids by-kind`): `why` asked of
/// either name gives its whole story, the token's moves and the model's.
#[test]
fn why_follows_a_revealed_blip_under_either_name() {
    let input = "enter commander 6,1\nenter marine-1 7,1\nenter marine-2 24,4\nenter marine-3 24,5\n\
                 move marine-3 23,5 22,5 21,5\nend\nwhy ork-1\nwhy blip-2\nquit\n";
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    let answers: Vec<&str> = stdout.split("> why ").skip(1).collect();
    assert_eq!(answers.len(), 2, "{stdout}");
    for answer in answers {
        assert!(answer.contains("blip-2 moves 3 squares"), "{answer}");
        assert!(
            answer.contains("blip-2 is revealed: Ork (ork), ork-1 from now on"),
            "{answer}"
        );
        assert!(answer.contains("ork-1 fires the Ork gun"), "{answer}");
    }
}

/// `board MODEL` marks the squares that model can see (issue: what can my Marine see?); a
/// misspelt model is refused with a did-you-mean instead of being taken for a file name.
#[test]
fn board_marks_what_a_model_can_see() {
    let (stdout, stderr, code) = servitor(
        &[
            "play",
            "space-crusade-solo",
            "--mission",
            "reactor-strike",
            "--seed",
            "2",
        ],
        "enter commander 6,1\nboard comander\nboard commander\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("refused: no piece `comander`: did you mean `commander`?"),
        "{stdout}"
    );
    assert!(stdout.contains("∘ what commander can see (9 squares)"), "{stdout}");
    // The airlock corridor below the claw: the commander on 6,1 sees down it (7,1 is marked, 6,2 too).
    let marked = stdout
        .lines()
        .find(|l| l.starts_with(" 2 │"))
        .expect("row 2 of the board");
    assert!(marked.contains("│∘ ·│"), "{marked}");
}

/// `sim --profile` says where script time goes, by function: the phases the game item calls
/// hold it all between them, every share is a fraction of the whole, and the report above it
/// is the same as without the profile (a profile never changes a game).
#[test]
fn sim_profile_shares_script_time_by_function() {
    let args = [
        "sim",
        "space-crusade-solo",
        "--mission",
        "purge",
        "--games",
        "2",
        "--seed",
        "5",
        "--jobs",
        "1",
    ];
    let plain = ok(&args);
    let profiled = ok(&[&args[..], &["--profile"]].concat());
    let (report, profile) = profiled.split_once("script time by function").expect("a profile");
    let without_timing = |s: &str| {
        s.lines()
            .filter(|l| !l.contains(" games in "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_timing(report), without_timing(&plain));
    let share = |name: &str| -> f64 {
        let line = profile
            .lines()
            .find(|l| l.ends_with(&format!("  {name}")))
            .unwrap_or_else(|| panic!("{name} in {profile}"));
        line.split_whitespace().next().unwrap().parse().unwrap()
    };
    // The set-up runs once a game: on a loaded machine its share can fall below the
    // profile's cut and leave the list (timed shares), so it counts 0 then.
    let listed = profile.lines().any(|l| l.ends_with("  setup_game"));
    let setup = if listed { share("setup_game") } else { 0.0 };
    let phases = share("marine_turn") + share("alien_turn") + setup;
    assert!(
        (70.0..=100.1).contains(&phases),
        "the phases (besides the after-activation triggers the engine calls) hold {phases} % of script time:\n{profile}"
    );
    // Both sides' attacks in a headless game go through attack_on (attack is its entry for a
    // caller that has not asked the piece's status and side).
    assert!(
        share("attack_on") <= share("marine_turn") + share("alien_turn"),
        "{profile}"
    );
    // Calls a game: the set-up once, one Alien phase per Marine phase (or one fewer, when a
    // game ends in the Marines' turn), and the total under the table.
    let calls = |name: &str| -> f64 {
        let line = profile.lines().find(|l| l.ends_with(&format!("  {name}"))).unwrap();
        line.split_whitespace().nth(4).unwrap().parse().unwrap()
    };
    if listed {
        assert_eq!(calls("setup_game"), 1.0, "{profile}");
    }
    let (marine, alien) = (calls("marine_turn"), calls("alien_turn"));
    assert!(alien <= marine && marine <= alien + 1.0, "{profile}");
    assert!(
        profile.contains("calls: ") && profile.contains(" a game (script functions and the engine's"),
        "{profile}"
    );
}

/// A move an engine verb planned names the piece it heads for in `target` (issue 35 item 4),
/// the same piece its words name.
#[test]
fn a_planned_move_names_its_target() {
    let out: serde_json::Value = serde_json::from_str(&ok(&[
        "game",
        "space-crusade-solo",
        "--mission",
        "purge",
        "--seed",
        "5",
        "--json",
    ]))
    .unwrap();
    let mut aimed = 0;
    for e in out["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "move") {
        let text = e["text"].as_str().unwrap();
        let Some(words) = text.split_once("(towards ").or_else(|| text.split_once("(to fight ")) else {
            continue;
        };
        let named = words.1.split([',', ' ']).next().unwrap();
        assert_eq!(e["target"].as_str(), Some(named), "{e}");
        aimed += 1;
    }
    assert!(aimed > 5, "seed 5's aliens advance ({aimed} moves)");
}

/// A Marine still off the board fires nothing, whatever the weapon and however it is aimed
/// (`at` a model, `towards` or `at` a square, `best`): each is refused in words, never a
/// failure of the package's script (the plasma gun's `towards` once reached the line's maths
/// with no square to start from).
#[test]
fn a_marine_off_the_board_is_refused_every_way_of_firing() {
    let input = "fire marine-2 plasma-gun towards 7,4\nfire marine-2 plasma-gun at ork-1\nfire marine-1 bolter at ork-1\n\
                 fire marine-3 missile-launcher at 7,4\nfire marine-1 assault-cannon at ork-1 gretchin-1\nfire commander bolt-pistol best\nquit\n";
    let (stdout, stderr, code) = servitor(
        &["play", "space-crusade-solo", "--mission", "purge", "--seed", "1"],
        input,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("could not do this"), "{stdout}");
    let refusals: Vec<&str> = stdout.lines().filter(|l| l.contains("refused:")).collect();
    assert_eq!(refusals.len(), 6, "{stdout}");
    for r in refusals {
        assert!(r.contains("is not on the board"), "{r}");
    }
}

/// Damage events an attack caused (a shot or a fight logs its points on the damage line).
fn attack_wounds(json: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "damage" && e["fields"].get("points").is_some())
        .count()
}

/// Issue 39: shots and fights are the engine's verbs (`game.attack`, `game.melee`), and the
/// hook a variant replaces between the roll and the comparison is still called: a variant
/// whose `reroll_attack` turns every roll to 0 plays a game where no attack hurts anyone.
#[test]
fn a_variant_replacing_the_reroll_hook_changes_every_attack() {
    let args = |package: &'static str| ["game", package, "--mission", "purge", "--seed", "10", "--json"];
    let base = ok(&args("space-crusade-solo"));
    let blank = ok(&args("tests/fixtures/blank-dice"));
    assert!(attack_wounds(&base) > 0, "{base}");
    assert_eq!(attack_wounds(&blank), 0, "{blank}");
    assert!(blank.contains(": 0 does not beat"), "{blank}");
    assert!(blank.contains(" (0) fights "), "{blank}");
}

/// Issue 39: a piece's one attack is the engine's `game.engage` (fight one beside it, else
/// fire), which asks `choose_foe` by the name its rule gives whenever an enemy stands beside
/// the attacker: a variant whose `choose_foe` picks nobody plays a game with no hand-to-hand
/// fight, each refusal logged, where the base game has fights.
#[test]
fn a_variant_replacing_the_foe_hook_changes_who_fights() {
    let dir = tempfile::tempdir().unwrap();
    let root = variant(
        dir.path(),
        "no-fights",
        "space-crusade-solo",
        "fn choose_foe(game, id, side) {\n    game.say(`${id} fights nobody`, \"a test\");\n    ()\n}\n",
    );
    let base = ok(&["game", "space-crusade-solo", "--mission", "purge", "--seed", "10"]);
    let variant = ok(&["game", root.to_str().unwrap(), "--mission", "purge", "--seed", "10"]);
    // A fight reads "A (total) fights B (total)".
    let fights = |log: &str| log.lines().filter(|l| l.contains(") fights ")).count();
    assert!(fights(&base) > 0, "{base}");
    assert!(!base.contains("fights nobody"), "{base}");
    assert!(variant.contains("fights nobody"), "{variant}");
    assert_eq!(fights(&variant), 0, "{variant}");
}

/// Issue 39: the attack verbs refuse a rule they cannot read, naming the key, before any die.
#[test]
fn the_attack_verbs_name_a_rule_they_cannot_read() {
    let (_, err, code) = servitor(
        &[
            "game",
            "tests/fixtures/bad-attack-rule",
            "--mission",
            "purge",
            "--seed",
            "1",
        ],
        "",
    );
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("melee: no rule `stats`; did you mean `stat`?"), "{err}");
    // The base's `attack_on` hands the variant's hand-to-hand rule to `game.engage`, which
    // reads it before anything happens.
    assert!(err.contains("combat.rhai:"), "{err}");
    assert!(err.contains("game.engage(id, side, rule)"), "{err}");
}
