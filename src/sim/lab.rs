//! The variant lab (`sim BASE --vs VARIANT`, `--vs-set name=value`): both sides play the same
//! game seeds, game k with `sim::game_seed(S, k)`, and the report is about the pairs. Random
//! streams by purpose keep most dice common to the two games of a pair, so a house rule shows
//! in the games it actually changes, and the paired intervals (`stats`) are far narrower than
//! two separate intervals side by side.
//!
//! A game **changed** when the two sides' games of a pair differ in anything: who won, why,
//! the scores, the turns, or any line of the log (its text, the dice, the state changes). A
//! variant that plays exactly as its base changes no game, and every difference is then 0.
//!
//! Pairs are played in game order and gathered in game order, and the sums are whole numbers,
//! so the report is the same for any number of threads (only `timing` differs).
//!
//! `until`: play on in looks of 100, 200, 400, … games up to the cap, and stop at the first
//! look where the deciding metric's interval excludes 0 or is narrow enough. Looking several
//! times would make "excludes 0" come up by chance more often than 5 %, so with K looks every
//! interval of the report is at the level 1 − 0.05/K (Bonferroni), and the report says so.
//!
//! Pairs are played a chunk at a time. Failed games are kept as `sim` keeps them — at most
//! `MAX_SIM_ERRORS`, by side and message, each once with the pairs that share it — and the
//! rest counted.

use super::stats::{self, Interval, Paired};
use super::{Rate, SimExample, Timing, game_seed, wilson};
use crate::game::{Game, GameError, Host, Setup, host};
use crate::ruleset::Ruleset;
use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The first look of an `until` run, doubled at each look after.
pub const FIRST_LOOK: u64 = 100;

/// What to compare.
#[derive(Debug, Clone)]
pub struct LabSetup {
    pub game: Option<String>,
    pub mission: String,
    pub seed: u64,
    /// Games to play; with `until`, at most this many.
    pub games: u64,
    pub jobs: usize,
    /// Options of the base's games (`--set`).
    pub base_options: Vec<(String, String)>,
    /// Options of the variant's games (`--set`, then `--vs-set`).
    pub variant_options: Vec<(String, String)>,
    pub until: Option<Until>,
    /// The metric of the verdict (and of `until`); `None`: the first side's wins.
    pub decide_on: Option<String>,
    /// Keep every pair in the report (`--json` prints them).
    pub records: bool,
}

/// When an `until` run stops besides its cap.
#[derive(Debug, Clone, Copy, Default)]
pub struct Until {
    /// Stop when the deciding interval is at most this wide (a rate as a share: 0.02 for 2
    /// points; a mean in its own units).
    pub width: Option<f64>,
}

/// One side's finished game, as the comparison needs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ended {
    pub winner: String,
    pub reason: String,
    pub scores: IndexMap<String, i64>,
    pub turns: u32,
    /// Side → kind → pieces eliminated.
    pub losses: IndexMap<String, IndexMap<String, i64>>,
}

/// Where two logs of a pair first differ (lines counted from 1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    pub line: usize,
    pub turn: u32,
    /// The line of each log there (`None`: that log had ended).
    pub base: Option<String>,
    pub variant: Option<String>,
}

/// The two games of seed `seed`.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    pub game: u64,
    pub seed: u64,
    pub changed: bool,
    /// The game's result, or `{ "error": message }`.
    #[serde(serialize_with = "result_json")]
    pub base: Result<Ended, Arc<str>>,
    #[serde(serialize_with = "result_json")]
    pub variant: Result<Ended, Arc<str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

fn result_json<S: serde::Serializer>(r: &Result<Ended, Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    match r {
        Ok(e) => e.serialize(s),
        Err(message) => serde_json::json!({ "error": &**message }).serialize(s),
    }
}

/// Changed games a report lists (`records` has every pair).
pub const CHANGED_LISTED: usize = 1000;

/// A paired difference, variant − base.
#[derive(Debug, Clone, Serialize)]
pub struct Metric {
    /// `wins:SIDE` (`wins:none`), `score:SIDE`, `turns`, `losses:SIDE`, `losses:SIDE:KIND`.
    pub id: String,
    /// `rate` (a share of games, Tango's interval) or `mean` (per game, paired normal).
    pub kind: &'static str,
    pub base: f64,
    pub variant: f64,
    pub difference: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Pairs where this metric's value differs between the two games.
    pub games_differing: u64,
}

impl Metric {
    pub fn interval(&self) -> Interval {
        Interval {
            difference: self.difference,
            low: self.low,
            high: self.high,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ChangedGame {
    pub game: u64,
    pub seed: u64,
    pub base: String,
    pub variant: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    /// Pairs that differ in anything (result or log), of the pairs both finished.
    pub games: u64,
    /// Their share with its Wilson interval (at the report's level).
    pub share: Rate,
    /// Pairs whose result differs (winner, reason, scores, turns or losses), not only the log.
    pub result: u64,
    /// Pairs whose winner differs.
    pub winner: u64,
    /// The first [`CHANGED_LISTED`] changed games, in game order.
    pub list: Vec<ChangedGame>,
}

/// One error that ended games of one side, as `sim` keeps them ([`super::SimError`]): its
/// message once, how many games it ended, and the first [`MAX_SIM_ERROR_EXAMPLES`] of them.
///
/// [`MAX_SIM_ERROR_EXAMPLES`]: crate::limits::MAX_SIM_ERROR_EXAMPLES
#[derive(Debug, Clone, Serialize)]
pub struct LabError {
    /// `base` or `variant`.
    pub side: String,
    pub message: Arc<str>,
    pub games: u64,
    pub examples: Vec<SimExample>,
}

/// What a comparison's failed games come to, bounded as `sim`'s are.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LabErrors {
    /// Games that failed, of either side.
    pub games: u64,
    /// Pairs with a game that failed.
    pub pairs: u64,
    /// The errors in the order the games first met them, by side: at most [`MAX_SIM_ERRORS`].
    ///
    /// [`MAX_SIM_ERRORS`]: crate::limits::MAX_SIM_ERRORS
    pub kept: Vec<LabError>,
    /// Games ended by an error other than those kept (counted, not kept).
    pub other: u64,
}

impl LabErrors {
    /// Counts the pair's failed games, keeps their errors as `sim` does, and leaves the pair
    /// holding the kept message (shared, not copied) or, past the limit, [`NOT_KEPT`]: a
    /// pair's error then costs a pointer however long its message, and the report holds
    /// at most `MAX_SIM_ERRORS` messages.
    fn add(&mut self, pair: &mut Pair) {
        use crate::limits::{MAX_SIM_ERROR_EXAMPLES, MAX_SIM_ERRORS};
        let mut failed = false;
        for (side, r) in [("base", &mut pair.base), ("variant", &mut pair.variant)] {
            let Err(message) = r else { continue };
            failed = true;
            self.games += 1;
            let example = SimExample {
                game: pair.game,
                seed: pair.seed,
            };
            if let Some(e) = self.kept.iter_mut().find(|e| e.side == side && e.message == *message) {
                e.games += 1;
                if e.examples.len() < MAX_SIM_ERROR_EXAMPLES {
                    e.examples.push(example);
                }
                *message = e.message.clone();
            } else if self.kept.len() < MAX_SIM_ERRORS {
                self.kept.push(LabError {
                    side: side.into(),
                    message: message.clone(),
                    games: 1,
                    examples: vec![example],
                });
            } else {
                self.other += 1;
                *message = Arc::clone(&NOT_KEPT);
            }
        }
        self.pairs += u64::from(failed);
    }
}

/// What a pair says of an error past the `MAX_SIM_ERRORS` kept.
static NOT_KEPT: std::sync::LazyLock<Arc<str>> = std::sync::LazyLock::new(|| {
    Arc::from("an error not kept (the report keeps the first MAX_SIM_ERRORS different errors; `other` counts the rest)")
});

#[derive(Debug, Clone, Serialize)]
pub struct LabReport {
    pub base: String,
    pub variant: String,
    pub base_options: Vec<(String, String)>,
    pub variant_options: Vec<(String, String)>,
    pub mission: String,
    pub seed: u64,
    /// Pairs played (fewer than the cap when `until` stopped, or when stopped by Ctrl-C).
    pub games: u64,
    /// Pairs both sides finished: the statistics are over these.
    pub paired: u64,
    pub stopped: bool,
    /// The confidence level of every interval (0.95, or lower per look with `until`).
    pub level: f64,
    /// How many looks an `until` run could take (1 without `until`), and how many it took.
    pub looks_planned: u32,
    pub looks: u32,
    pub metrics: Vec<Metric>,
    pub decided_on: String,
    /// Whether the deciding metric's interval excludes 0.
    pub decided: bool,
    pub verdict: String,
    pub changed: Changed,
    pub errors: LabErrors,
    /// Every pair, in game order (`records` asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<Vec<Pair>>,
    /// Side → (score → games), for each package: what `--svg` draws.
    #[serde(skip)]
    pub score_counts: [IndexMap<String, std::collections::BTreeMap<i64, u64>>; 2],
    pub timing: Timing,
}

fn ended(game: &Game) -> Ended {
    let summary = host::summary(game);
    let mut losses: IndexMap<String, IndexMap<String, i64>> = IndexMap::new();
    for p in game
        .state
        .pieces
        .iter()
        .filter(|p| p.status == crate::game::state::REMOVED)
    {
        *losses
            .entry(p.side.clone())
            .or_default()
            .entry(p.kind.clone())
            .or_default() += 1;
    }
    Ended {
        winner: summary.winner,
        reason: summary.reason,
        scores: summary.scores,
        turns: summary.turns,
        losses,
    }
}

fn play(host: &mut Host, setup: &LabSetup, options: &[(String, String)], seed: u64) -> Result<Game, String> {
    let game_setup = Setup {
        game: setup.game.clone(),
        mission: setup.mission.clone(),
        seed,
        options: options.to_vec(),
    };
    match host.start(&game_setup, None) {
        Ok(game) => Ok(game),
        Err(GameError::Script { diagnostic, turn, .. }) => {
            let at = host.ruleset().sources.locate(diagnostic.span);
            Err(format!("turn {turn}: {} ({at})", diagnostic.message))
        }
        Err(GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m)) => Err(m),
    }
}

fn play_pair(hosts: &mut (Host, Host), setup: &LabSetup, index: u64) -> Pair {
    let seed = game_seed(setup.seed, index);
    let base = play(&mut hosts.0, setup, &setup.base_options, seed);
    let variant = play(&mut hosts.1, setup, &setup.variant_options, seed);
    let (mut changed, mut divergence) = (false, None);
    if let (Ok(b), Ok(v)) = (&base, &variant) {
        let at = b
            .events
            .iter()
            .zip(&v.events)
            .position(|(x, y)| x != y)
            .or_else(|| (b.events.len() != v.events.len()).then_some(b.events.len().min(v.events.len())));
        if let Some(i) = at {
            let line = |events: &[crate::game::event::Event]| events.get(i).map(|e| e.text.clone());
            divergence = Some(Divergence {
                line: i + 1,
                turn: b.events.get(i).or(v.events.get(i)).map_or(0, |e| e.turn),
                base: line(&b.events),
                variant: line(&v.events),
            });
        }
    }
    let base = base.map(|g| ended(&g)).map_err(Arc::from);
    let variant = variant.map(|g| ended(&g)).map_err(Arc::from);
    if let (Ok(b), Ok(v)) = (&base, &variant) {
        changed = divergence.is_some() || b != v;
    } else if base != variant {
        changed = true;
    }
    Pair {
        game: index,
        seed,
        changed,
        base,
        variant,
        divergence,
    }
}

/// The ids a report's metrics may have before any game is played (kinds of losses are known
/// only after), for checking `decide_on` up front.
pub fn metric_ids(sides: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = sides.iter().map(|s| format!("wins:{s}")).collect();
    ids.push("wins:none".into());
    ids.extend(sides.iter().map(|s| format!("score:{s}")));
    ids.push("turns".into());
    ids.extend(sides.iter().map(|s| format!("losses:{s}")));
    ids
}

/// The sides of the game a setup plays.
pub fn sides(ruleset: &Ruleset, game: Option<&str>) -> Vec<String> {
    game.and_then(|g| ruleset.games.get(g))
        .or_else(|| ruleset.games.first().map(|(_, g)| g))
        .map(|g| g.sides.clone())
        .unwrap_or_default()
}

/// The sizes at which an `until` run looks (the cap last); one look without `until`.
pub fn looks(setup: &LabSetup) -> Vec<u64> {
    if setup.until.is_none() {
        return vec![setup.games];
    }
    let mut sizes = Vec::new();
    let mut n = FIRST_LOOK;
    while n < setup.games {
        sizes.push(n);
        n = n.saturating_mul(2);
    }
    sizes.push(setup.games);
    sizes
}

/// Plays the pairs on `setup.jobs` threads; `done` is called after each game (twice a pair),
/// and setting `stop` ends the run early with what was played.
pub fn run(
    base: &Arc<Ruleset>,
    variant: &Arc<Ruleset>,
    setup: &LabSetup,
    done: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> LabReport {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(setup.jobs.max(1))
        .stack_size(crate::script::STACK_BYTES)
        .build()
        .expect("a thread pool of a few threads can be built");
    let sizes = looks(setup);
    let level = 1.0 - 0.05 / sizes.len() as f64;
    let sides = sides(base, setup.game.as_deref());
    let decide_on = setup
        .decide_on
        .clone()
        .unwrap_or_else(|| format!("wins:{}", sides.first().map_or("none", String::as_str)));
    let mut pairs: Vec<Pair> = Vec::new();
    let mut errors = LabErrors::default();
    let mut looks_taken = 0;
    let mut stopped = false;
    let idle = std::sync::Mutex::new(Vec::new());
    for &size in &sizes {
        // A chunk at a time, its errors kept as `sim` keeps them before the next is played:
        // however long a failed game's message, the pairs hold each kept one once.
        let mut complete = true;
        let mut from = pairs.len() as u64;
        while from < size && complete {
            let to = from.saturating_add(super::chunk(pool.current_num_threads())).min(size);
            let batch: Vec<Option<Pair>> = pool.install(|| {
                (from..to)
                    .into_par_iter()
                    .map_init(
                        || super::Lease {
                            host: Some(
                                idle.lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .pop()
                                    .unwrap_or_else(|| (Host::new(base), Host::new(variant))),
                            ),
                            idle: &idle,
                        },
                        |lease, k| {
                            if stop.load(Ordering::Relaxed) {
                                return None;
                            }
                            let hosts = lease.host.as_mut().expect("a lease holds its hosts until dropped");
                            let p = play_pair(hosts, setup, k);
                            done();
                            done();
                            Some(p)
                        },
                    )
                    .collect()
            });
            complete = batch.iter().all(Option::is_some);
            for mut p in batch.into_iter().flatten() {
                errors.add(&mut p);
                pairs.push(p);
            }
            from = to;
        }
        looks_taken += 1;
        if !complete {
            stopped = true;
            break;
        }
        if setup.until.is_some() {
            let metrics = metrics(&pairs, &sides, stats::z_for(level));
            if let Some(m) = metrics.iter().find(|m| m.id == decide_on) {
                let i = m.interval();
                let narrow = matches!((setup.until.and_then(|u| u.width), i.width()), (Some(w), Some(x)) if x <= w);
                if i.excludes_zero() || narrow {
                    break;
                }
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut report = report(base, variant, setup, (pairs, errors), &sides, level, &decide_on);
    report.stopped = stopped;
    report.looks_planned = sizes.len() as u32;
    report.looks = looks_taken;
    let played = report.games * 2;
    report.timing = Timing {
        seconds: (seconds * 1000.0).round() / 1000.0,
        games_per_second: if seconds > 0.0 {
            (played as f64 / seconds).round()
        } else {
            0.0
        },
        jobs: setup.jobs.max(1),
    };
    report
}

/// Every metric over the pairs both sides finished, in a fixed order: wins by outcome (the
/// sides, `none`, then any other result in order of first appearance), scores, turns, losses
/// by side and by kind.
fn metrics(pairs: &[Pair], sides: &[String], z: f64) -> Vec<Metric> {
    let both: Vec<(&Ended, &Ended)> = pairs
        .iter()
        .filter_map(|p| match (&p.base, &p.variant) {
            (Ok(b), Ok(v)) => Some((b, v)),
            _ => None,
        })
        .collect();
    let n = both.len() as u64;
    let mut outcomes: Vec<String> = sides.to_vec();
    outcomes.push("none".into());
    for (b, v) in &both {
        for w in [&b.winner, &v.winner] {
            if !outcomes.contains(w) {
                outcomes.push(w.clone());
            }
        }
    }
    let mut out = Vec::new();
    for o in &outcomes {
        let (mut only_variant, mut only_base, mut in_base, mut in_variant) = (0, 0, 0, 0);
        for (b, v) in &both {
            let (x, y) = (&b.winner == o, &v.winner == o);
            in_base += u64::from(x);
            in_variant += u64::from(y);
            only_base += u64::from(x && !y);
            only_variant += u64::from(y && !x);
        }
        let i = stats::tango(only_variant, only_base, n, z);
        let share = |k: u64| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        out.push(Metric {
            id: format!("wins:{o}"),
            kind: "rate",
            base: share(in_base),
            variant: share(in_variant),
            difference: i.difference,
            low: i.low,
            high: i.high,
            games_differing: only_base + only_variant,
        });
    }
    let mean = |id: String, value: &dyn Fn(&Ended) -> i64| {
        let mut p = Paired::default();
        let mut differing = 0;
        for (b, v) in &both {
            let (x, y) = (value(b), value(v));
            differing += u64::from(x != y);
            p.add(x, y);
        }
        let i = p.interval(z);
        Metric {
            id,
            kind: "mean",
            base: p.base_mean(),
            variant: p.variant_mean(),
            difference: i.difference,
            low: i.low,
            high: i.high,
            games_differing: differing,
        }
    };
    let mut score_sides: Vec<String> = sides.to_vec();
    let mut loss_kinds: IndexMap<String, Vec<String>> = sides.iter().map(|s| (s.clone(), Vec::new())).collect();
    for (b, v) in &both {
        for e in [b, v] {
            for s in e.scores.keys() {
                if !score_sides.contains(s) {
                    score_sides.push(s.clone());
                }
            }
            for (side, kinds) in &e.losses {
                let list = loss_kinds.entry(side.clone()).or_default();
                for k in kinds.keys() {
                    if !list.contains(k) {
                        list.push(k.clone());
                    }
                }
            }
        }
    }
    for s in &score_sides {
        out.push(mean(format!("score:{s}"), &|e: &Ended| {
            e.scores.get(s).copied().unwrap_or(0)
        }));
    }
    out.push(mean("turns".into(), &|e: &Ended| i64::from(e.turns)));
    for (side, kinds) in &loss_kinds {
        out.push(mean(format!("losses:{side}"), &|e: &Ended| {
            e.losses.get(side).map_or(0, |k| k.values().sum())
        }));
        for kind in kinds {
            out.push(mean(format!("losses:{side}:{kind}"), &|e: &Ended| {
                e.losses.get(side).and_then(|k| k.get(kind)).copied().unwrap_or(0)
            }));
        }
    }
    out
}

fn result_words(r: &Result<Ended, Arc<str>>) -> String {
    match r {
        Ok(e) => {
            let scores: Vec<String> = e.scores.iter().map(|(s, v)| format!("{s} {v}")).collect();
            format!("{} ({}; turn {})", e.winner, scores.join(", "), e.turns)
        }
        Err(_) => "error".into(),
    }
}

fn report(
    base: &Ruleset,
    variant: &Ruleset,
    setup: &LabSetup,
    (pairs, errors): (Vec<Pair>, LabErrors),
    sides: &[String],
    level: f64,
    decide_on: &str,
) -> LabReport {
    let z = stats::z_for(level);
    let metrics = metrics(&pairs, sides, z);
    let paired = pairs.iter().filter(|p| p.base.is_ok() && p.variant.is_ok()).count() as u64;
    let mut changed = Changed {
        games: 0,
        share: wilson(0, 0),
        result: 0,
        winner: 0,
        list: Vec::new(),
    };
    let mut score_counts: [IndexMap<String, std::collections::BTreeMap<i64, u64>>; 2] = Default::default();
    for p in &pairs {
        for (counts, r) in score_counts.iter_mut().zip([&p.base, &p.variant]) {
            if let Ok(e) = r {
                for (side, v) in &e.scores {
                    *counts.entry(side.clone()).or_default().entry(*v).or_default() += 1;
                }
            }
        }
        if let (Ok(b), Ok(v)) = (&p.base, &p.variant)
            && p.changed
        {
            changed.games += 1;
            changed.result += u64::from(b != v);
            changed.winner += u64::from(b.winner != v.winner);
            if changed.list.len() >= CHANGED_LISTED {
                continue;
            }
            changed.list.push(ChangedGame {
                game: p.game,
                seed: p.seed,
                base: result_words(&p.base),
                variant: result_words(&p.variant),
                divergence: p.divergence.clone(),
            });
        }
    }
    changed.share = wilson_at(changed.games, paired, z);
    let deciding = metrics.iter().find(|m| m.id == decide_on);
    let decided = deciding.is_some_and(|m| m.interval().excludes_zero());
    let verdict = verdict(deciding, &changed, paired, level);
    LabReport {
        base: base.name().to_string(),
        variant: variant.name().to_string(),
        base_options: setup.base_options.clone(),
        variant_options: setup.variant_options.clone(),
        mission: setup.mission.clone(),
        seed: setup.seed,
        games: pairs.len() as u64,
        paired,
        stopped: false,
        level: (level * 10_000.0).round() / 10_000.0,
        looks_planned: 1,
        looks: 1,
        metrics,
        decided_on: decide_on.to_string(),
        decided,
        verdict,
        changed,
        errors,
        records: setup.records.then_some(pairs),
        score_counts,
        timing: Timing {
            seconds: 0.0,
            games_per_second: 0.0,
            jobs: 0,
        },
    }
}

/// Wilson's interval at the z given (`sim::wilson` is at 95 %).
fn wilson_at(successes: u64, n: u64, z: f64) -> Rate {
    if (z - stats::z_for(0.95)).abs() < 1e-9 || n == 0 {
        return wilson(successes, n);
    }
    let (k, n) = (successes as f64, n as f64);
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

/// A metric's name in words: `heroes wins`, `no winner`, `score heroes`, `turns per game`,
/// `heroes losses`, `heroes losses: captain`.
pub fn label(id: &str) -> String {
    let parts: Vec<&str> = id.split(':').collect();
    match parts.as_slice() {
        ["wins", "none"] => "no winner".into(),
        ["wins", side] => format!("{side} wins"),
        ["score", side] => format!("score {side}"),
        ["turns"] => "turns per game".into(),
        ["losses", side] => format!("{side} losses"),
        ["losses", side, kind] => format!("{side} losses: {kind}"),
        _ => id.to_string(),
    }
}

/// A metric's value in words: a rate in per cent, a mean with two decimals.
pub fn value(kind: &str, x: f64) -> String {
    if kind == "rate" {
        format!("{:.1} %", x * 100.0)
    } else {
        format!("{x:.2}").replace('-', "−")
    }
}

/// A difference in words: a rate in points, signed.
pub fn difference(kind: &str, x: f64) -> String {
    if x == 0.0 {
        // Exactly nothing: no sign (a difference that rounds to 0 keeps its sign).
        return if kind == "rate" { "0.0" } else { "0.00" }.to_string();
    }
    if kind == "rate" {
        format!("{:+.1}", x * 100.0).replace('-', "−")
    } else {
        format!("{x:+.2}").replace('-', "−")
    }
}

/// The interval in words: `(−6.5 – +0.5)`, or `(too few games)`.
pub fn interval_words(kind: &str, i: &Interval) -> String {
    match (i.low, i.high) {
        (Some(l), Some(h)) => format!("({} – {})", difference(kind, l), difference(kind, h)),
        _ => "(too few games)".into(),
    }
}

fn verdict(deciding: Option<&Metric>, changed: &Changed, paired: u64, level: f64) -> String {
    let percent = format!("{} %", (level * 1000.0).round() / 10.0);
    if paired == 0 {
        return "no pair of games finished on both sides: nothing to compare".into();
    }
    if changed.games == 0 {
        return format!(
            "no game changed in {paired}: on these seeds the variant plays exactly as its base (a change that shows in fewer than {:.1} % of games could still be missed)",
            changed.share.high * 100.0
        );
    }
    let games = format!("{} of {paired} games changed", changed.games);
    let Some(m) = deciding else {
        return games;
    };
    let unit = if m.kind == "rate" { " points" } else { "" };
    let i = m.interval();
    let said = format!(
        "{} {}{unit} {}",
        label(&m.id),
        difference(m.kind, m.difference),
        interval_words(m.kind, &i)
    );
    if i.excludes_zero() {
        let (way, by) = if m.difference > 0.0 {
            ("rise", m.difference)
        } else {
            ("fall", -m.difference)
        };
        let by = difference(m.kind, by).trim_start_matches('+').to_string();
        format!(
            "the variant makes a difference: {} {way} by {by}{unit} {} at {percent}; {games}",
            label(&m.id),
            interval_words(m.kind, &i)
        )
    } else {
        format!("no difference shown at {percent}: {said} includes 0; {games}")
    }
}
