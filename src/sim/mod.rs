//! Many headless games in parallel and what they add up to: outcome counts and rates with
//! 95 % intervals, mean scores and turns, casualties, and every failed game with its seed.
//! Game k's seed depends on the run's seed and k alone, and results are gathered in game
//! order, so the report is the same for any number of threads (only `timing` differs).

use crate::dice::rng::splitmix;
use crate::game::{GameError, Host, Setup, host};
use crate::ruleset::Ruleset;
use crate::script::Instant;
use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimSetup {
    pub game: Option<String>,
    pub mission: String,
    pub seed: u64,
    pub games: u64,
    pub jobs: usize,
    pub options: Vec<(String, String)>,
}

/// The seed of game `k` of a run seeded `seed`.
pub fn game_seed(seed: u64, k: u64) -> u64 {
    splitmix(seed ^ splitmix(k.wrapping_add(1))) % 1_000_000_000_000
}

/// One game's result, as the report needs it.
#[derive(Debug, Clone)]
struct Played {
    outcome: Result<PlayedGame, String>,
    seed: u64,
    index: u64,
}

#[derive(Debug, Clone)]
struct PlayedGame {
    winner: String,
    scores: IndexMap<String, i64>,
    turns: u32,
    /// Kinds of the pieces eliminated, by side.
    casualties: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Rate {
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimFailure {
    pub game: u64,
    pub seed: u64,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    pub seconds: f64,
    pub games_per_second: f64,
    pub jobs: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimReport {
    pub package: String,
    pub mission: String,
    pub seed: u64,
    /// Games played (fewer than asked when stopped).
    pub games: u64,
    pub stopped: bool,
    /// Result → games, summing to `games` (`error` for games that failed).
    pub outcomes: IndexMap<String, u64>,
    pub rates: IndexMap<String, Rate>,
    pub mean_scores: IndexMap<String, f64>,
    pub mean_turns: f64,
    /// Side → kind → pieces eliminated per game.
    pub casualties: IndexMap<String, IndexMap<String, f64>>,
    pub errors: Vec<SimFailure>,
    pub timing: Timing,
}

/// Wilson score interval at 95 %.
pub fn wilson(successes: u64, n: u64) -> Rate {
    if n == 0 {
        return Rate {
            rate: 0.0,
            low: 0.0,
            high: 0.0,
        };
    }
    let (k, n) = (successes as f64, n as f64);
    let z = 1.959_964;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
    Rate {
        rate: round(p),
        low: round((centre - half).max(0.0)),
        high: round((centre + half).min(1.0)),
    }
}

fn play_one(host: &mut Host, setup: &SimSetup, index: u64) -> Played {
    let ruleset = host.ruleset().clone();
    let seed = game_seed(setup.seed, index);
    let game_setup = Setup {
        game: setup.game.clone(),
        mission: setup.mission.clone(),
        seed,
        options: setup.options.clone(),
    };
    let outcome = match host.start(&game_setup, None) {
        Ok(game) => {
            let summary = host::summary(&game);
            let casualties = game
                .state
                .pieces
                .iter()
                .filter(|p| p.status == crate::game::state::REMOVED)
                .map(|p| (p.side.clone(), p.kind.clone()))
                .collect();
            Ok(PlayedGame {
                winner: summary.winner,
                scores: summary.scores,
                turns: summary.turns,
                casualties,
            })
        }
        Err(GameError::Script { diagnostic, turn, .. }) => {
            let at = ruleset.sources.locate(diagnostic.span);
            Err(format!("turn {turn}: {} ({at})", diagnostic.message))
        }
        Err(GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m)) => Err(m),
    };
    Played { outcome, seed, index }
}

/// Checks the setup by building one host and the game's first state; a usage error (no such
/// mission, option…) is reported once instead of once per game.
pub fn check(ruleset: &Arc<Ruleset>, setup: &SimSetup) -> Result<(), String> {
    let mut host = Host::new(ruleset);
    let game_setup = Setup {
        game: setup.game.clone(),
        mission: setup.mission.clone(),
        seed: setup.seed,
        options: setup.options.clone(),
    };
    match host.start(&game_setup, Some(0)) {
        Err(GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m)) => Err(m),
        _ => Ok(()),
    }
}

/// Plays the games on `setup.jobs` threads; `done` is called after each game (for a progress
/// bar), and setting `stop` ends the run early with what was played.
pub fn run(ruleset: &Arc<Ruleset>, setup: &SimSetup, done: &(dyn Fn() + Sync), stop: &AtomicBool) -> SimReport {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(setup.jobs.max(1))
        .stack_size(crate::script::STACK_BYTES)
        .build()
        .expect("a thread pool of a few threads can be built");
    let played: Vec<Played> = pool
        .install(|| {
            (0..setup.games)
                .into_par_iter()
                .map_init(
                    || Host::new(ruleset),
                    |host, k| {
                        if stop.load(Ordering::Relaxed) {
                            return None;
                        }
                        let p = play_one(host, setup, k);
                        done();
                        Some(p)
                    },
                )
                .collect::<Vec<Option<Played>>>()
        })
        .into_iter()
        .flatten()
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    let mut report = aggregate(ruleset, setup, &played);
    report.stopped = (played.len() as u64) < setup.games;
    report.timing = Timing {
        seconds: (seconds * 1000.0).round() / 1000.0,
        games_per_second: if seconds > 0.0 {
            (played.len() as f64 / seconds).round()
        } else {
            0.0
        },
        jobs: setup.jobs.max(1),
    };
    report
}

fn aggregate(ruleset: &Ruleset, setup: &SimSetup, played: &[Played]) -> SimReport {
    let games = played.len() as u64;
    let sides: Vec<String> = setup
        .game
        .as_ref()
        .and_then(|g| ruleset.games.get(g))
        .or_else(|| ruleset.games.first().map(|(_, g)| g))
        .map(|g| g.sides.clone())
        .unwrap_or_default();
    let mut outcomes: IndexMap<String, u64> = sides.iter().map(|s| (s.clone(), 0)).collect();
    outcomes.insert("none".into(), 0);
    // Summed wide: one game's score is any i64, and many games' add up past it.
    let mut score_sums: IndexMap<String, i128> = sides.iter().map(|s| (s.clone(), 0)).collect();
    let mut turns = 0u64;
    let mut casualties: IndexMap<String, IndexMap<String, u64>> = IndexMap::new();
    let mut errors = Vec::new();
    let mut finished = 0u64;
    for p in played {
        match &p.outcome {
            Ok(g) => {
                finished += 1;
                *outcomes.entry(g.winner.clone()).or_default() += 1;
                for (side, points) in &g.scores {
                    *score_sums.entry(side.clone()).or_default() += i128::from(*points);
                }
                turns += u64::from(g.turns);
                for (side, kind) in &g.casualties {
                    *casualties
                        .entry(side.clone())
                        .or_default()
                        .entry(kind.clone())
                        .or_default() += 1;
                }
            }
            Err(message) => {
                *outcomes.entry("error".into()).or_default() += 1;
                errors.push(SimFailure {
                    game: p.index,
                    seed: p.seed,
                    message: message.clone(),
                });
            }
        }
    }
    let per_game = |x: f64| {
        if finished == 0 {
            0.0
        } else {
            (x / finished as f64 * 100.0).round() / 100.0
        }
    };
    SimReport {
        package: ruleset.name().to_string(),
        mission: setup.mission.clone(),
        seed: setup.seed,
        games,
        stopped: false,
        rates: outcomes.iter().map(|(k, v)| (k.clone(), wilson(*v, games))).collect(),
        outcomes,
        mean_scores: score_sums.into_iter().map(|(k, v)| (k, per_game(v as f64))).collect(),
        mean_turns: per_game(turns as f64),
        casualties: casualties
            .into_iter()
            .map(|(side, kinds)| (side, kinds.into_iter().map(|(k, v)| (k, per_game(v as f64))).collect()))
            .collect(),
        errors,
        timing: Timing {
            seconds: 0.0,
            games_per_second: 0.0,
            jobs: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_a_hand_computed_interval() {
        // 60 of 100: Wilson 95 % is about 0.5020 – 0.6906.
        let r = wilson(60, 100);
        assert_eq!(r.rate, 0.6);
        assert!((r.low - 0.502).abs() < 0.001, "{r:?}");
        assert!((r.high - 0.6906).abs() < 0.001, "{r:?}");
        assert_eq!(wilson(0, 0).rate, 0.0);
    }

    #[test]
    fn game_seeds_depend_on_the_run_seed_and_index_only() {
        assert_eq!(game_seed(1, 5), game_seed(1, 5));
        assert_ne!(game_seed(1, 5), game_seed(1, 6));
        assert_ne!(game_seed(1, 5), game_seed(2, 5));
    }
}
