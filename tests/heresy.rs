//! The Solo Heresy played whole (issue 18): every mission type plays to its end with no
//! script error and both sides winning some games; a seed replays a game byte for byte; a
//! game saved mid-way resumes to the same end; sims agree across jobs; and a player at the
//! table plays from a pipe to the end, the battlefield drawn in inches.

mod common;
use common::{ok, servitor};

const MISSIONS: [&str; 4] = ["exterminatus", "raid", "victory-or-death", "eye-of-terror"];

#[test]
fn every_mission_type_plays_to_the_end_and_either_side_can_win() {
    for mission in MISSIONS {
        let json = ok(&["sim", "solo-heresy", "--mission", mission, "--games", "40", "--json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let what = format!("{mission}: {json}");
        assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{what}");
        assert!(
            v["outcomes"]["player"].as_u64().unwrap() > 0,
            "the player never wins: {what}"
        );
        assert!(
            v["outcomes"]["enemy"].as_u64().unwrap() > 0,
            "the enemy never wins: {what}"
        );
    }
}

#[test]
fn the_options_play_too() {
    for set in [
        "challenge=roll",
        "challenge=creeping-barrage",
        "challenge=late-mobilisation",
        "challenge=mined-ground",
        "challenge=turncoat",
        "battlefield-events=no",
        "player-style=bold",
        "battlefield=listening-post",
        "berserk-halt=target-only",
        "spawn-fall-back=stops",
        "vod-hands=top-up",
    ] {
        // Victory or Death's hands only matter in that mission.
        let mission = if set.starts_with("vod-hands") {
            "victory-or-death"
        } else {
            "raid"
        };
        let json = ok(&[
            "sim",
            "solo-heresy",
            "--mission",
            mission,
            "--games",
            "12",
            "--set",
            set,
            "--json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{set}: {json}");
    }
}

#[test]
fn the_same_seed_plays_the_same_game_and_points_are_in_the_log() {
    let args = ["game", "solo-heresy", "--mission", "raid", "--seed", "11", "--json"];
    let first = ok(&args);
    assert_eq!(first, ok(&args));
    let other = ok(&["game", "solo-heresy", "--mission", "raid", "--seed", "12", "--json"]);
    assert_ne!(first, other, "a different seed should play a different game");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let events = v["events"].as_array().unwrap();
    let uses = events.iter().any(|e| e["action"]["do"] == "use-battlefield");
    let walks = events
        .iter()
        .any(|e| e["action"]["do"] == "walk" && e["action"]["route"][0]["x"].is_number());
    let stands = events
        .iter()
        .any(|e| e["action"]["do"] == "stand" && e["action"]["point"]["y"].is_number());
    assert!(
        uses && walks && stands,
        "the log carries the battlefield, walks and points"
    );
}

#[test]
fn a_game_saved_mid_way_and_resumed_equals_the_whole_game() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, phases) in [("2", "3"), ("9", "8")] {
        let save = dir.path().join(format!("g{seed}.json"));
        let save = save.to_str().unwrap();
        let start = ["game", "solo-heresy", "--mission", "eye-of-terror", "--seed", seed];
        let whole = ok(&[&start[..], &["--json"]].concat());
        ok(&[&start[..], &["--phases", phases, "--save", save]].concat());
        let text = std::fs::read_to_string(save).unwrap();
        assert!(
            text.contains("\"battlefield\":\"ashfall-ruins\""),
            "the save keeps the battlefield"
        );
        assert!(text.contains("\"point\":{"), "the save keeps the pieces' points");
        let resumed = ok(&["game", "solo-heresy", "--resume", save, "--json"]);
        assert_eq!(resumed, whole, "seed {seed}, saved after {phases} phases");
    }
}

#[test]
fn sim_gives_the_same_report_for_any_number_of_jobs() {
    let run = |jobs: &str| {
        let json = ok(&[
            "sim",
            "solo-heresy",
            "--mission",
            "exterminatus",
            "--games",
            "16",
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

/// A player at the table from a pipe: the battlefield drawn with the units lettered and the
/// spawn markers, a move to a point, moves refused (off the table, within 1" of an enemy)
/// that change nothing, servitor rolling a shooting, then `end` turn after turn until the
/// game is over. The game asks the player (Overwatch, a Battlefield Event's unit): each
/// command is followed by `auto` answers, servitor's (an `auto` left over at the command
/// prompt is refused and changes nothing; a command given to a question is asked again).
#[test]
fn a_whole_game_at_the_table_from_a_pipe() {
    let answers = "auto\n".repeat(4);
    // Turn 1 opens with your deployment: every unit where the stand-in would put it.
    let mut input = format!("deploy auto\nend\n{answers}");
    for command in [
        "board",
        "move warden-line-squad-2 30,34",
        "move warden-line-squad-2 32,38",
        "move warden-line-squad-2 100,20",
        "move warden-breachers-1 56,35.5",
        "shoot warden-line-squad-2 rust-mob-1",
        "shoot warden-bulwark-1 rust-wagon-1",
    ] {
        input.push_str(&format!("{command}\n{answers}"));
    }
    for _ in 0..30 {
        input.push_str(&format!("end\n{answers}"));
    }
    let (stdout, stderr, code) = servitor(&["play", "solo-heresy", "--mission", "raid", "--seed", "2"], &input);
    assert_eq!(code, 0, "{stderr}");
    // A move over the unit's Move is refused with the numbers (issue 33); one within it plays.
    assert!(
        stdout.contains("refused: warden-line-squad-2 may move 6.0\" this turn (Move 6); 30.0,34.0 is 8.0\" away by the shortest way round terrain"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warden-line-squad-2 moves 4.5\": (30.0, 42.0) → (32.0, 38.0) (your move)"),
        "{stdout}"
    );
    assert!(stdout.contains("refused: 100.0,20.0 is off the table"), "{stdout}");
    // No move ends within 1" of an enemy unit outside a charge (7th edition), closest model
    // to closest model.
    assert!(
        stdout.contains("puts warden-breachers-1 0.6\" from rust-mob-1 (closest models): outside a charge a unit ends its move at least 1\" from enemy units"),
        "{stdout}"
    );
    // The spawn markers thrown in setup are drawn, small letters after the units.
    assert!(stdout.contains("a spawn-1 at (22.0, 14.0)"), "{stdout}");
    assert!(stdout.contains("warden-line-squad-2 fires at rust-mob-1"), "{stdout}");
    assert!(
        stdout.contains("F warden-line-squad-2 (player) at (30.0, 42.0)"),
        "{stdout}"
    );
    // Your vehicle's shots go at the armour of the side it faces (vehicles.rules).
    assert!(stdout.contains("warden-bulwark-1 fires at rust-wagon-1"), "{stdout}");
    assert!(stdout.contains("on rust-wagon-1's front armour (11)"), "{stdout}");
    assert!(!stdout.contains("Script error"), "{stdout}");
    assert!(stdout.contains("The game is over"), "{stdout}");
    // Overwatch is the player's to fire or hold: asked when an enemy unit charges.
    assert!(
        stdout.contains("fire Overwatch (snap shots, once a turn) at it?"),
        "{stdout}"
    );
}

/// Your own army is a small package over `solo-heresy`: its units and army are checked at
/// load like every package (a misspelt weapon is an error at its file:line:col with a
/// suggestion), and the game plays it with `--set player-army=…`; an enemy army outside
/// 100-125 % of yours is refused with the numbers.
#[test]
fn your_own_army_is_a_small_package() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("my-army");
    std::fs::create_dir(&mine).unwrap();
    let roster = |weapon: &str| {
        format!(
            "package my-army \"My own army\" {{\n  extends solo-heresy\n}}\n\n\
             unit my-veterans \"Veterans\" {{\n  models 10; wounds 1; life 10; base 4; move 6\n  \
             ws 4; bs 4; strength 4; toughness 4; initiative 4; attacks 2; leadership 9; save 3; melee-ap 7\n  \
             weapons [{weapon}]; points 200\n}}\n\n\
             army my-list \"My list\" {{\n  units [warden-captain, my-veterans, my-veterans, warden-fire-team]\n}}\n"
        )
    };
    std::fs::write(mine.join("package.rules"), roster("boltgn")).unwrap();
    let path = mine.to_str().unwrap();
    let (_, stderr, code) = servitor(&["check", path], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("package.rules:5:1"), "{stderr}");
    assert!(stderr.contains("did you mean `boltgun`?"), "a suggestion: {stderr}");

    std::fs::write(mine.join("package.rules"), roster("boltgun")).unwrap();
    let out = ok(&[
        "game",
        path,
        "--mission",
        "raid",
        "--seed",
        "4",
        "--set",
        "player-army=my-list",
    ]);
    assert!(out.contains("Your army, My list: 600 points"), "{out}");
    assert!(out.contains("my-veterans-2"), "{out}");

    let (_, stderr, code) = servitor(
        &[
            "game",
            path,
            "--mission",
            "raid",
            "--seed",
            "4",
            "--set",
            "player-army=rustborn-host",
            "--set",
            "enemy-army=my-list",
        ],
        "",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("the enemy army my-list has 600 points"), "{stderr}");
}

/// Seed 001, set-up step 8 at the table (issue 33): the player deploys their own army in
/// their zone before turn 1 — by typed points, one unit or all the rest `auto` (where the
/// stand-in would) —, points outside the zone, on another unit or before the battle refused;
/// the set-up's later steps and the enemy's first turn then play on where the player put
/// them, and the deployment survives a save and resume.
#[test]
fn the_player_deploys_their_own_army_before_turn_1() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("d.json");
    let args = [
        "play",
        "solo-heresy",
        "--mission",
        "raid",
        "--seed",
        "1",
        "--save",
        save.to_str().unwrap(),
    ];
    let mine = "move warden-line-squad-2 30,40\ndeploy warden-line-squad-2 30,30\ndeploy warden-line-squad-2 4,46\ndeploy warden-line-squad-2 4,45\n\
                deploy warden-captain-1 4.5,45\ndeploy warden-captain-1 auto\ndeploy warden-line-squad-1 10,45\n\
                deploy warden-fire-team-1 16,45\ndeploy auto\ndeploy auto\nstatus\nend\n";
    let (stdout, stderr, code) = servitor(&args, &format!("{mine}{}status\nquit\n", "auto\n".repeat(4)));
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "Deploy your 6 units in your zone",
        "Turn 1 · player · deployment",
        "refused: the battle has not begun: place your units with deploy UNIT X,Y (or deploy auto), then end",
        "refused: 30.0,30.0 is not wholly inside your deployment zone",
        "refused: 4.0,46.0 is not wholly inside your deployment zone",
        "warden-line-squad-2 enters at (4.0, 45.0) (your deployment)",
        "refused: warden-captain-1's base at 4.5,45.0 would overlap warden-line-squad-2's",
        "warden-captain-1 enters at (6.0, 42.0) (deployed as the stand-in would)",
        "warden-breachers-1 enters at (54.0, 42.0) (deployed as the stand-in would)",
        "warden-bulwark-1 enters at (66.0, 42.0) (deployed as the stand-in would)",
        "2 unit(s) deployed as the stand-in would",
        "refused: every unit of yours is deployed: type end to begin the battle",
        // The set-up's later steps come after the deployment, then the enemy's first turn.
        "Rolled 1: the enemy takes the first turn",
    ] {
        assert!(stdout.contains(said), "`{said}`:\n{stdout}");
    }
    let deployed = stdout.find("warden-line-squad-2 enters at (4.0, 45.0)").unwrap();
    let first_turn = stdout.find("the enemy takes the first turn").unwrap();
    assert!(deployed < first_turn, "{stdout}");
    // The enemy's first turn acts on where the player put the army: it differs from the
    // same seed's turn with the stand-in's deployment.
    let (auto, stderr, code) = servitor(
        &["play", "solo-heresy", "--mission", "raid", "--seed", "1"],
        &format!("deploy auto\nend\n{}quit\n", "auto\n".repeat(4)),
    );
    assert_eq!(code, 0, "{stderr}");
    let enemy_turn = |s: &str| -> String {
        let from = s.find("Turn 1 · enemy · enemy-first").unwrap();
        let to = s[from..]
            .find("Turn 1 · player · player-turn")
            .map_or(s.len(), |k| from + k);
        s[from..to].to_string()
    };
    assert_ne!(enemy_turn(&stdout), enemy_turn(&auto));
    // rust-mob-1 (Berserk) goes for the nearest of your units: where you put them, the fire
    // team; where the stand-in would have, the line squad.
    assert!(
        enemy_turn(&stdout).contains("(Berserk: at warden-fire-team-1, the nearest player unit)"),
        "{}",
        enemy_turn(&stdout)
    );
    assert!(
        enemy_turn(&auto)
            .contains("rust-mob-1 moves 6.0\": (27.0, 19.0) → (28.0, 24.9) (Berserk: at warden-line-squad-2"),
        "{}",
        enemy_turn(&auto)
    );
    // Resumed, the army stands where it was put.
    let (again, stderr, code) = servitor(&["play", "--resume", save.to_str().unwrap()], "board\nquit\n");
    assert_eq!(code, 0, "{stderr}");
    assert!(again.contains("warden-line-squad-2 (player) at (4.0, 45.0)"), "{again}");
    // `deploy` belongs to the set-up: refused once the battle is on.
    let (late, _, _) = servitor(
        &["play", "--resume", save.to_str().unwrap()],
        "deploy warden-line-squad-2 4,45\nquit\n",
    );
    assert!(
        late.contains("refused: your army is deployed: deploy belongs to the set-up"),
        "{late}"
    );
}

/// A move at the table is held to the unit's Move along the shortest way round terrain
/// (issue 33: a 14.8" move for Move 6 was accepted): over it is refused with the numbers, and
/// what is left after a first move counts; a vehicle goes up to Cruising Speed (issue 37) and
/// does not charge.
#[test]
fn a_move_over_the_units_allowance_is_refused_with_the_numbers() {
    let (stdout, stderr, code) = servitor(
        &["play", "solo-heresy", "--mission", "raid", "--seed", "2"],
        "deploy auto\nend\nauto\nauto\nauto\nauto\nmove warden-fire-team-1 40,30\nmove warden-line-squad-2 33,39\n\
         move warden-line-squad-2 33,35\nmove warden-line-squad-2 33,38\n\
         move warden-bulwark-1 70,28\nmove warden-bulwark-1 66,30\ncharge warden-bulwark-1 rust-wagon-1\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "refused: warden-fire-team-1 may move 6.0\" this turn (Move 6); 40.0,30.0 is 12.2\" away by the shortest way round terrain",
        "warden-line-squad-2 moves 4.2\": (30.0, 42.0) → (33.0, 39.0) (your move)",
        "refused: warden-line-squad-2 may move 6.0\" this turn (Move 6), 4.2\" of it moved already, 1.8\" left; 33.0,35.0 is 4.0\" away",
        "warden-line-squad-2 moves 1.0\": (33.0, 39.0) → (33.0, 38.0) (your move)",
        // A vehicle goes up to Cruising Speed, and over Combat Speed fires snap shots only.
        "refused: warden-bulwark-1 may move 12.0\" this turn (a vehicle: up to Cruising Speed, Move 6 at Combat Speed); 70.0,28.0 is 14.6\" away",
        "warden-bulwark-1 moves 12.0\": (66.0, 42.0) → (66.0, 30.0) (your move)",
        "warden-bulwark-1 has moved 12.0\": Cruising Speed, snap shots only this turn",
        "refused: warden-bulwark-1 is a vehicle: vehicles do not charge (walkers do)",
    ] {
        assert!(stdout.contains(said), "`{said}`:\n{stdout}");
    }
}

/// `status` at the table (issue 33): the mission's objective, the Tactical Objective cards in
/// the player's hand, the score, each side's units on the table with their life and those still
/// to come — and nothing the player may not know (the deck's order, only its count).
#[test]
fn status_shows_what_the_table_needs() {
    let (stdout, stderr, code) = servitor(
        &["play", "solo-heresy", "--mission", "raid", "--seed", "2"],
        "status\ndeploy auto\nend\nauto\nauto\nauto\nauto\nstatus\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    let last = &stdout[stdout.rfind("> status").unwrap()..];
    for said in [
        "turn 1 · player · player-turn",
        "player: 0 points; on the board: warden-captain-1 (3 of 3 life)",
        "enemy: still to enter: rust-warboss-1, rust-mob-2, rust-gunners-1",
        "Mission: Raid: Reach 4 Victory Points.",
        "Tactical Objective cards in your hand: blood-and-guts, behind-enemy-lines, recon",
        "deck tactical: 33 cards left",
    ] {
        assert!(last.contains(said), "`{said}`:\n{last}");
    }
    let first = &stdout[stdout.find("> status").unwrap()..stdout.find("> deploy auto").unwrap()];
    assert!(
        first.contains("player: still to enter: warden-captain-1, warden-line-squad-1"),
        "{first}"
    );
}

/// Battlefield corners and markers to the half inch (issue 37: `.5` was a parse error): a
/// battlefield drawn with them loads, shows and plays; a number with a decimal point where a
/// whole number belongs (a unit's Move) is an error at its file:line:col.
#[test]
fn battlefield_corners_may_be_half_inches() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("half");
    std::fs::create_dir(&pkg).unwrap();
    let rules = |moves: &str| {
        format!(
            "package half \"Half-inch corners\" {{\n  extends solo-heresy\n}}\n\n\
             battlefield half-inch-yard \"A yard drawn to the half inch\" {{\n  size 48 48\n  source \"test\"\n  \
             zone deployment [0, 36, 48, 36, 48, 48, 0, 48]\n  marker objective-1 at 8.5 8\n  marker objective-2 at 24 6\n  \
             marker objective-3 at 40 8\n  marker objective-4 at 10 26\n  marker objective-5 at 38 26\n  marker objective-6 at 24 20.5\n  \
             terrain crate [20.5, 30, 23.5, 30, 23.5, 32.5, 20.5, 32.5]\n}}\n\n\
             unit odd-squad \"Odd squad\" {{\n  models 1; wounds 1; life 1; base 1; move {moves}\n  \
             ws 4; bs 4; strength 4; toughness 4; initiative 4; attacks 1; leadership 9; save 3; melee-ap 7\n  \
             weapons [boltgun]; points 10\n}}\n"
        )
    };
    std::fs::write(pkg.join("package.rules"), rules("6.5")).unwrap();
    let path = pkg.to_str().unwrap();
    let (_, stderr, code) = servitor(&["check", path], "");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("`move` expects a number, found a number with a decimal point"),
        "{stderr}"
    );
    assert!(stderr.contains("package.rules:19:44"), "{stderr}");
    std::fs::write(pkg.join("package.rules"), rules("6")).unwrap();
    let shown = ok(&["show", path, "--battlefield", "half-inch-yard", "--json"]);
    assert!(shown.contains("20.5"), "{shown}");
    let out = ok(&[
        "game",
        path,
        "--mission",
        "raid",
        "--seed",
        "3",
        "--set",
        "battlefield=half-inch-yard",
    ]);
    assert!(out.contains("Objective markers: [1 at (8.5, 8.0)"), "{out}");
    assert!(out.contains("Result: "), "{out}");
}

#[test]
fn every_die_at_the_table_says_what_it_is_for_after_the_roll_before_it() {
    // Two turns of a raid with typed dice (`auto` for each die: servitor rolls it, but the
    // prompt is shown as for a typed die).
    let answers = "auto\n".repeat(400);
    let input = format!("{answers}deploy auto\n{answers}end\n{answers}end\n{answers}quit\n");
    // The prompts go to standard error: both read from one pipe, in the order shown.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("typed.input");
    std::fs::write(&file, input).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' play solo-heresy --mission raid --seed 5 --dice manual < '{}' 2>&1",
            env!("CARGO_BIN_EXE_servitor"),
            file.display()
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // A prompt is the line before `roll a …`: `DICE for WHAT — rolled for PHASE`.
    let prompts: Vec<&str> = stdout
        .split("\n")
        .flat_map(|line| line.split("or auto: "))
        .filter(|part| part.contains(" — rolled for "))
        .collect();
    assert!(prompts.len() > 200, "{} prompts:\n{stdout}", prompts.len());
    for p in &prompts {
        let head = p.split(" — rolled for ").next().unwrap();
        assert!(head.contains(" for "), "a die that does not say what it is for: `{p}`");
    }
    for purpose in [
        "d6 for rust-gunners-1: does it arrive (5+ stays in reserve) on table spawn-check",
        "1 scatter for rust-gunners-1: where it comes on near spawn marker 2: the scatter die",
        "2d6 for rust-gunners-1: where it comes on near spawn marker 2: inches along the arrow, die 1 of 2",
        "d3 for rust-gunners-1: its Enemy Type (on the D6: 1-2 Erratic, 3-4 Tactical, 5-6 Berserk)",
        "24d6 for rust-mob-1: 24 shot(s) of scrap-gun at warden-fire-team-1: 5+ hits, then 4+ wounds, then warden-fire-team-1 saves on 3+, die 1 of 24",
        "d6 for night fighting (4+: turn 1 is fought in the dark)",
        "2d6 for how many inches spawn marker 1 goes from objective 1, die 1 of 2",
    ] {
        assert!(stdout.contains(purpose), "`{purpose}`:\n{stdout}");
    }
    // The spawn check's result is on the screen before the marker's die is asked.
    let check = stdout
        .find("Does a reserve unit arrive? for rust-gunners-1: d6: 4 → spawns")
        .unwrap();
    let marker = stdout
        .find("d6 for rust-gunners-1: the numbered spawn marker it comes on at")
        .unwrap();
    assert!(check < marker, "{stdout}");
}

#[test]
fn sees_lists_the_units_in_sight_on_a_battlefield() {
    let (stdout, stderr, code) = servitor(
        &["play", "solo-heresy", "--mission", "exterminatus", "--seed", "5"],
        "deploy auto\nend\nsees warden-line-squad-2\nquit\n",
    );
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "warden-line-squad-2 at 30.0,42.0 sees (nearest first, base to base; terrain in the way blocks sight):",
        "  rust-rabble-1 (rust-rabble) at 23.0,23.0, 14.5\" away",
        "  rust-gunners-1 (rust-gunners) at 31.0,14.0, 22.5\" away (partly hidden: 1 of 5 sight lines reach it)",
        "  out of sight: rust-mob-3 22.3\", rust-rabble-2 26.9\"",
    ] {
        assert!(stdout.contains(said), "`{said}`:\n{stdout}");
    }
}

/// A character inside a squad at the table (armies.rules `own-models`): the sample army
/// Ashen Vanguard's squad is laid out with its sergeant in the middle; `models` puts the
/// sergeant at the point written `warden-sergeant@X,Y`, refuses a name the squad has not, and
/// `without warden-sergeant` takes the sergeant off (your casualties are yours to choose).
#[test]
fn your_sergeant_is_named_with_the_models_command() {
    let args = [
        "play",
        "solo-heresy",
        "--mission",
        "raid",
        "--seed",
        "1",
        "--set",
        "player-army=ashen-vanguard",
    ];
    let row = |y: &str, first: &str| {
        let mut out = String::new();
        for (k, x) in ["16", "17.5", "19", "20.5", "22"].iter().enumerate() {
            if k == 0 && !first.is_empty() {
                out.push_str(&format!(" {first}@{x},{y}"));
            } else {
                out.push_str(&format!(" {x},{y}"));
            }
        }
        out
    };
    let answers = "auto\n".repeat(4);
    let input = format!(
        "deploy warden-vanguard-squad-1 20,42\ndeploy auto\n\
         models warden-vanguard-squad-1{}{}\n\
         models warden-vanguard-squad-1{}{}\n\
         models warden-vanguard-squad-1{}{} without warden-sergeant\nend\n{answers}quit\n",
        row("41", ""),
        row("42.5", "warden-sergeant"),
        row("41", ""),
        row("42.5", "champion"),
        row("41", ""),
        row("42.5", ""),
    );
    let (stdout, stderr, code) = servitor(&args, &input);
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "warden-vanguard-squad-1's 10 models stand in formation round (20.0, 42.0); warden-sergeant at (20.0, 42.0)",
        "warden-vanguard-squad-1's 10 model(s) stand at (16.0, 41.0)",
        "; warden-sergeant at (16.0, 42.5)",
        "refused: champion@ names no model of warden-vanguard-squad-1 with a profile of its own",
        "; warden-sergeant lost",
    ] {
        assert!(stdout.contains(said), "`{said}`:\n{stdout}");
    }
}
