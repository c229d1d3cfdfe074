//! Random `play` sessions of every bundled game, checked against the promise a save makes: the
//! game a session's commands replay to is the game that was played. Each session mixes typed
//! dice with dice servitor rolls at the player's word (`auto` at a prompt), switches who rolls
//! (`dice manual`, `dice auto`), answers or leaves the game's questions, types commands that
//! are refused, takes commands back and puts them back; after every step the session is
//! written as a save, read back as a resume reads it, and replayed, and that replay must be the
//! live game event for event, field for field.
//!
//! `SERVITOR_SESSIONS` sets how many sessions (spread over every mission of every bundled
//! game); the default keeps a debug `cargo test` short, and `.ci/run` runs 2,000 in release.

mod common;

use common::sessions::{STEPS, missions, one_session, sessions_wanted};

use servitor::dice::rng::{Forced, Rng};
use servitor::game::session::{Entry, SESSION_FORMAT, Session};
use std::sync::{Arc, Mutex};

#[test]
fn every_random_session_resumes_to_the_game_played() {
    let missions = missions();
    let wanted = sessions_wanted();
    let mut accepted = 0;
    for k in 0..wanted {
        let (ruleset, game, mission) = &missions[k % missions.len()];
        accepted += one_session(ruleset, game.clone(), mission, 1000 + k as u64, false, STEPS);
    }
    // Enough of the commands were played, not refused, for the test to mean something.
    assert!(
        accepted >= wanted * 4,
        "{accepted} commands accepted in {wanted} sessions"
    );
}

/// The class behind a lost save: a die servitor rolls in a game of typed dice moves the game's
/// stream as a typed one does, so the shuffles and picks after it come out the same on a
/// replay that gives every die from the save.
#[test]
fn a_die_moves_the_stream_alike_whoever_gives_its_face() {
    let mut rolled = Rng::derived(9, "alien-turn");
    let forced = Arc::new(Mutex::new(Forced {
        values: [3, 5].into_iter().collect(),
        ..Forced::default()
    }));
    let mut given = Rng::derived(9, "alien-turn").with_forced(forced);
    for _ in 0..2 {
        rolled.die(6);
        given.die(6);
    }
    let picks = |rng: &mut Rng| -> Vec<u64> { (0..8).map(|_| rng.below(1000)).collect() };
    assert_eq!(picks(&mut rolled), picks(&mut given));
}

/// A save of the format before this one with typed dice is refused, saying why; one with
/// servitor's dice resumes.
#[test]
fn an_old_save_with_typed_dice_is_refused_in_words() {
    let mut s = Session {
        format: SESSION_FORMAT.into(),
        version: 1,
        package: "p".into(),
        found_at: None,
        game: None,
        mission: "m".into(),
        seed: 1,
        options: Vec::new(),
        side: "s".into(),
        manual_dice: true,
        start_dice: Vec::new(),
        start_choices: Vec::new(),
        entries: vec![Entry {
            line: "end".into(),
            ..Entry::default()
        }],
        redo: Vec::new(),
    };
    let why = s.check("p").unwrap_err();
    assert!(
        why.contains("save version 1") && why.contains("start a new game"),
        "{why}"
    );
    s.manual_dice = false;
    assert_eq!(s.check("p"), Ok(()));
}
