//! Many headless games in parallel and what they add up to: outcome counts and rates with
//! 95 % intervals, mean scores and turns, casualties, and the failed games by error (each
//! error's count and its first few games with their seeds).
//! Game k's seed depends on the run's seed and k alone, and results are added up in game
//! order, so the report is the same for any number of threads (only `timing` differs). Games
//! are played a chunk at a time and each chunk added up before the next: what a sim holds
//! does not grow with its games.
//!
//! The games run on a rayon pool whose threads have `script::STACK_BYTES` of stack (fewer
//! threads when the system cannot start them all), one `Host` per thread. Failed games are
//! kept by error: at most `MAX_SIM_ERRORS` errors, each with its count and
//! `MAX_SIM_ERROR_EXAMPLES` games. Rates carry Wilson intervals ([`wilson`]). The variant lab
//! is [`lab`], its statistics [`stats`].

pub mod lab;
pub mod stats;

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

/// One error that ended games: its message, how many games it ended, and the first
/// [`MAX_SIM_ERROR_EXAMPLES`] of them.
///
/// [`MAX_SIM_ERROR_EXAMPLES`]: crate::limits::MAX_SIM_ERROR_EXAMPLES
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimError {
    pub message: String,
    pub games: u64,
    pub examples: Vec<SimExample>,
}

/// A game to replay: `servitor game … --seed SEED`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimExample {
    pub game: u64,
    pub seed: u64,
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
    /// The errors that ended games, in the order the games first met them: at most
    /// [`MAX_SIM_ERRORS`] different ones.
    ///
    /// [`MAX_SIM_ERRORS`]: crate::limits::MAX_SIM_ERRORS
    pub errors: Vec<SimError>,
    /// Games ended by an error other than those in `errors` (counted, not kept).
    pub other_errors: u64,
    pub timing: Timing,
    /// Side → score → games that ended with it (what `--svg` draws).
    #[serde(skip)]
    pub score_counts: IndexMap<String, std::collections::BTreeMap<i64, u64>>,
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

/// Games played before their results are added up: enough to keep every thread busy, few
/// enough that what a chunk holds (a failed game's message may be 16 KiB) stays small.
fn chunk(jobs: usize) -> u64 {
    (jobs as u64).saturating_mul(16).max(256)
}

/// A thread pool of `jobs` threads with script stacks, or of fewer when the system cannot
/// start that many (address space, thread limits): half as many each time, down to one.
fn pool(jobs: usize) -> Result<rayon::ThreadPool, String> {
    let mut n = jobs.max(1);
    loop {
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .stack_size(crate::script::STACK_BYTES)
            .build();
        match built {
            Ok(pool) => return Ok(pool),
            Err(_) if n > 1 => n /= 2,
            Err(e) => return Err(format!("cannot start a thread to play the games on: {e}")),
        }
    }
}

/// A host borrowed from the run's idle ones (or made), given back when the work that took it
/// ends: hosts are costly to build, and chunks come and go.
struct Lease<'a, H = Host> {
    host: Option<H>,
    idle: &'a std::sync::Mutex<Vec<H>>,
}

impl<H> Drop for Lease<'_, H> {
    fn drop(&mut self) {
        if let Some(host) = self.host.take() {
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(host);
        }
    }
}

/// Plays the games on `setup.jobs` threads (fewer if the system cannot start that many:
/// `timing.jobs` says how many played); `done` is called after each game (for a progress
/// bar), and setting `stop` ends the run early with what was played. Fails only when not one
/// thread can be started.
pub fn run(
    ruleset: &Arc<Ruleset>,
    setup: &SimSetup,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Result<SimReport, String> {
    let started = Instant::now();
    let pool = pool(setup.jobs)?;
    let idle = std::sync::Mutex::new(Vec::new());
    let mut sum = Sum::new(ruleset, setup);
    let mut from = 0;
    while from < setup.games && !stop.load(Ordering::Relaxed) {
        let to = from.saturating_add(chunk(pool.current_num_threads())).min(setup.games);
        let played: Vec<Option<Played>> = pool.install(|| {
            (from..to)
                .into_par_iter()
                .map_init(
                    || Lease {
                        host: Some(
                            idle.lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .pop()
                                .unwrap_or_else(|| Host::new(ruleset)),
                        ),
                        idle: &idle,
                    },
                    |lease, k| {
                        if stop.load(Ordering::Relaxed) {
                            return None;
                        }
                        let host = lease.host.as_mut().expect("a lease holds its host until dropped");
                        let p = play_one(host, setup, k);
                        done();
                        Some(p)
                    },
                )
                .collect()
        });
        for p in played.into_iter().flatten() {
            sum.add(p);
        }
        from = to;
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut report = sum.report(ruleset, setup);
    report.stopped = report.games < setup.games;
    report.timing = Timing {
        seconds: (seconds * 1000.0).round() / 1000.0,
        games_per_second: if seconds > 0.0 {
            (report.games as f64 / seconds).round()
        } else {
            0.0
        },
        jobs: pool.current_num_threads(),
    };
    Ok(report)
}

/// The games played so far, added up in game order.
struct Sum {
    games: u64,
    outcomes: IndexMap<String, u64>,
    /// Summed wide: one game's score is any i64, and many games' add up past it.
    score_sums: IndexMap<String, i128>,
    turns: u64,
    casualties: IndexMap<String, IndexMap<String, u64>>,
    errors: IndexMap<String, SimError>,
    other_errors: u64,
    finished: u64,
    /// Side → score → games that ended with it (what `--svg` draws): scores are few.
    score_counts: IndexMap<String, std::collections::BTreeMap<i64, u64>>,
}

impl Sum {
    fn new(ruleset: &Ruleset, setup: &SimSetup) -> Sum {
        let sides: Vec<String> = setup
            .game
            .as_ref()
            .and_then(|g| ruleset.games.get(g))
            .or_else(|| ruleset.games.first().map(|(_, g)| g))
            .map(|g| g.sides.clone())
            .unwrap_or_default();
        let mut outcomes: IndexMap<String, u64> = sides.iter().map(|s| (s.clone(), 0)).collect();
        outcomes.insert("none".into(), 0);
        Sum {
            games: 0,
            outcomes,
            score_sums: sides.iter().map(|s| (s.clone(), 0)).collect(),
            turns: 0,
            casualties: IndexMap::new(),
            errors: IndexMap::new(),
            other_errors: 0,
            finished: 0,
            score_counts: IndexMap::new(),
        }
    }

    fn add(&mut self, p: Played) {
        use crate::limits::{MAX_SIM_ERROR_EXAMPLES, MAX_SIM_ERRORS};
        self.games += 1;
        match p.outcome {
            Ok(g) => {
                self.finished += 1;
                *self.outcomes.entry(g.winner).or_default() += 1;
                for (side, points) in g.scores {
                    *self.score_sums.entry(side.clone()).or_default() += i128::from(points);
                    *self.score_counts.entry(side).or_default().entry(points).or_default() += 1;
                }
                self.turns += u64::from(g.turns);
                for (side, kind) in g.casualties {
                    *self.casualties.entry(side).or_default().entry(kind).or_default() += 1;
                }
            }
            Err(message) => {
                *self.outcomes.entry("error".into()).or_default() += 1;
                let example = SimExample {
                    game: p.index,
                    seed: p.seed,
                };
                if let Some(e) = self.errors.get_mut(&message) {
                    e.games += 1;
                    if e.examples.len() < MAX_SIM_ERROR_EXAMPLES {
                        e.examples.push(example);
                    }
                } else if self.errors.len() < MAX_SIM_ERRORS {
                    self.errors.insert(
                        message.clone(),
                        SimError {
                            message,
                            games: 1,
                            examples: vec![example],
                        },
                    );
                } else {
                    self.other_errors += 1;
                }
            }
        }
    }

    fn report(self, ruleset: &Ruleset, setup: &SimSetup) -> SimReport {
        let (games, finished) = (self.games, self.finished);
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
            rates: self
                .outcomes
                .iter()
                .map(|(k, v)| (k.clone(), wilson(*v, games)))
                .collect(),
            outcomes: self.outcomes,
            mean_scores: self
                .score_sums
                .into_iter()
                .map(|(k, v)| (k, per_game(v as f64)))
                .collect(),
            mean_turns: per_game(self.turns as f64),
            casualties: self
                .casualties
                .into_iter()
                .map(|(side, kinds)| (side, kinds.into_iter().map(|(k, v)| (k, per_game(v as f64))).collect()))
                .collect(),
            errors: self.errors.into_values().collect(),
            other_errors: self.other_errors,
            score_counts: self.score_counts,
            timing: Timing {
                seconds: 0.0,
                games_per_second: 0.0,
                jobs: 0,
            },
        }
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
