//! Campaigns from the command line: `sim PACKAGE --campaign [ID] --games N` plays whole
//! campaigns headless and reports each mission's results by its place in the campaign and how
//! the campaigns ended; `game PACKAGE --campaign [ID]` plays one and prints what happened.
//! (`play --campaign FILE`, at the table, is in `play.rs`.) The driver is
//! `servitor::campaign`. Campaigns run on threads by index and are reported in order, so
//! `--jobs` changes nothing.

use indexmap::IndexMap;
use serde::Serialize;
use servitor::campaign::{Campaign, CampaignError};
use servitor::game::{GameError, Host};
use servitor::sim::{Rate, wilson};
use std::sync::Arc;

/// A campaign's error as one line (a hook's or a game's diagnostic with its place).
pub fn error_text(ruleset: &servitor::Ruleset, e: CampaignError) -> String {
    match e {
        CampaignError::Usage(m) => m,
        CampaignError::Hook(f) => {
            let at = ruleset.sources.locate(f.diagnostic.span);
            format!("{} ({at})", f.diagnostic.message)
        }
        CampaignError::Game(GameError::Script { diagnostic, turn, .. }) => {
            let at = ruleset.sources.locate(diagnostic.span);
            format!("turn {turn}: {} ({at})", diagnostic.message)
        }
        CampaignError::Game(
            GameError::Usage(m) | GameError::Save(m) | GameError::Refused(m) | GameError::Scenario(m),
        ) => m,
    }
}

/// A campaign's error in full: a diagnostic rendered with its source lines.
pub fn error_report(ruleset: &servitor::Ruleset, e: CampaignError) -> String {
    let diagnostic = match e {
        CampaignError::Hook(f) => f.diagnostic,
        CampaignError::Game(GameError::Script { diagnostic, .. }) => *diagnostic,
        other => return format!("error: {}", error_text(ruleset, other)),
    };
    servitor::diagnostic::Report {
        diagnostics: vec![diagnostic],
    }
    .render(&ruleset.sources, super::color())
}

/// One mission's place in the campaign, over every campaign that got there.
#[derive(Debug, Default, Serialize)]
pub struct MissionLine {
    pub number: usize,
    pub mission: String,
    pub played: u64,
    pub outcomes: IndexMap<String, u64>,
    pub rates: IndexMap<String, Rate>,
    pub mean_scores: IndexMap<String, f64>,
}

#[derive(Debug, Serialize)]
pub struct ErrorLine {
    pub message: String,
    pub campaigns: u64,
    /// Campaign index and seed of the first few.
    pub examples: Vec<(u64, u64)>,
}

#[derive(Debug, Serialize)]
pub struct CampaignReport {
    pub package: String,
    pub campaign: String,
    pub campaigns: u64,
    pub seed: u64,
    pub missions: Vec<MissionLine>,
    /// The `end` hook's lines, by how many campaigns ended so (most first).
    pub endings: Vec<(String, u64)>,
    /// Each number in the final state (nested keys joined by `.`), averaged over the
    /// campaigns that finished.
    pub final_state: IndexMap<String, f64>,
    pub errors: Vec<ErrorLine>,
    /// Missions played, in all the campaigns.
    pub games: u64,
    pub seconds: f64,
    pub games_per_second: f64,
    pub jobs: usize,
}

/// Campaign `k` of a run seeded `seed` plays with this seed (as game k of a sim would).
pub fn campaign_seed(seed: u64, k: u64) -> u64 {
    servitor::sim::game_seed(seed, k)
}

type Outcome = Result<Campaign, String>;

/// Plays `n` campaigns on `jobs` threads: campaign k on thread k % jobs, results gathered in
/// order, so the report does not depend on the threads.
fn play_all(
    ruleset: &Arc<servitor::Ruleset>,
    id: Option<&str>,
    n: u64,
    seed: u64,
    jobs: usize,
    options: &[(String, String)],
) -> Vec<Outcome> {
    let jobs = jobs.clamp(1, n.max(1) as usize);
    let mut slots: Vec<Option<Outcome>> = (0..n).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| {
                let ruleset = ruleset.clone();
                std::thread::Builder::new()
                    .stack_size(servitor::script::STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let mut host = Host::new(&ruleset);
                        let mut out = Vec::new();
                        let mut k = j as u64;
                        while k < n {
                            let outcome = Campaign::new(&ruleset, id, campaign_seed(seed, k), options.to_vec())
                                .map_err(|m| m.to_string())
                                .and_then(|mut c| {
                                    c.play_out(&mut host).map(|()| c).map_err(|e| error_text(&ruleset, e))
                                });
                            out.push((k, outcome));
                            k += jobs as u64;
                        }
                        out
                    })
            })
            .collect();
        for h in handles {
            match h {
                Ok(h) => {
                    for (k, o) in h.join().unwrap_or_default() {
                        slots[k as usize] = Some(o);
                    }
                }
                Err(e) => {
                    // A thread that could not start: its campaigns are reported as failed.
                    for slot in slots.iter_mut().filter(|s| s.is_none()) {
                        *slot = Some(Err(format!("a thread could not be started: {e}")));
                    }
                }
            }
        }
    });
    slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err("not played".into())))
        .collect()
}

/// Numbers of a state, nested keys joined by `.`.
fn numbers(prefix: &str, value: &serde_json::Value, out: &mut IndexMap<String, f64>) {
    match value {
        serde_json::Value::Number(n) => {
            *out.entry(prefix.to_string()).or_default() += n.as_f64().unwrap_or(0.0);
        }
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                numbers(&key, v, out);
            }
        }
        _ => {}
    }
}

pub fn report(
    ruleset: &Arc<servitor::Ruleset>,
    id: Option<&str>,
    n: u64,
    seed: u64,
    jobs: usize,
    options: &[(String, String)],
) -> Result<CampaignReport, String> {
    let def = servitor::campaign::def(ruleset, id)?.clone();
    // A campaign the command line gets wrong (an option, a game) fails its first mission the
    // same way every time: asked once, before any thread starts.
    let first = Campaign::new(ruleset, id, campaign_seed(seed, 0), options.to_vec())?;
    let (setup, _) = first.prepare(ruleset).map_err(|e| error_text(ruleset, e))?;
    Host::new(ruleset)
        .start(&setup, Some(0))
        .map_err(|e| error_text(ruleset, CampaignError::Game(e)))?;
    let started = std::time::Instant::now();
    let outcomes = play_all(ruleset, id, n, seed, jobs, options);
    let seconds = started.elapsed().as_secs_f64();
    let mut missions: Vec<MissionLine> = def
        .missions
        .iter()
        .enumerate()
        .map(|(i, m)| MissionLine {
            number: i + 1,
            mission: m.clone(),
            ..Default::default()
        })
        .collect();
    let mut endings: IndexMap<String, u64> = IndexMap::new();
    let mut final_state: IndexMap<String, f64> = IndexMap::new();
    let mut errors: Vec<ErrorLine> = Vec::new();
    let mut games = 0u64;
    let mut finished = 0u64;
    for (k, outcome) in outcomes.into_iter().enumerate() {
        match outcome {
            Ok(c) => {
                finished += 1;
                for p in &c.played {
                    games += 1;
                    let line = &mut missions[p.number - 1];
                    line.played += 1;
                    *line.outcomes.entry(p.result.winner.clone()).or_default() += 1;
                    for (side, s) in &p.result.scores {
                        *line.mean_scores.entry(side.clone()).or_default() += *s as f64;
                    }
                }
                *endings.entry(c.ended.clone().unwrap_or_default()).or_default() += 1;
                numbers("", &c.state, &mut final_state);
            }
            Err(message) => {
                let example = (k as u64, campaign_seed(seed, k as u64));
                if let Some(e) = errors.iter_mut().find(|e| e.message == message) {
                    e.campaigns += 1;
                    if e.examples.len() < servitor::limits::MAX_SIM_ERROR_EXAMPLES {
                        e.examples.push(example);
                    }
                } else if errors.len() < servitor::limits::MAX_SIM_ERRORS {
                    errors.push(ErrorLine {
                        message,
                        campaigns: 1,
                        examples: vec![example],
                    });
                }
            }
        }
    }
    for line in &mut missions {
        for v in line.mean_scores.values_mut() {
            *v /= line.played.max(1) as f64;
        }
        line.rates = line
            .outcomes
            .iter()
            .map(|(w, c)| (w.clone(), wilson(*c, line.played)))
            .collect();
    }
    for v in final_state.values_mut() {
        *v /= finished.max(1) as f64;
    }
    let mut endings: Vec<(String, u64)> = endings.into_iter().collect();
    endings.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(CampaignReport {
        package: ruleset.name().to_string(),
        campaign: def.id.clone(),
        campaigns: n,
        seed,
        missions,
        endings,
        final_state,
        errors,
        games,
        seconds,
        games_per_second: if seconds > 0.0 {
            (games as f64 / seconds * 10.0).round() / 10.0
        } else {
            0.0
        },
        jobs: jobs.clamp(1, n.max(1) as usize),
    })
}

pub fn text(r: &CampaignReport) -> String {
    let mut out = format!(
        "{} · campaign {} · {} campaign{} · seed {}\n",
        r.package,
        r.campaign,
        r.campaigns,
        if r.campaigns == 1 { "" } else { "s" },
        r.seed
    );
    out.push_str("missions in order: winners (share) and mean scores\n");
    for m in &r.missions {
        let wins: Vec<String> = m
            .outcomes
            .iter()
            .map(|(w, c)| format!("{w} {c} ({:.0} %)", m.rates[w].rate * 100.0))
            .collect();
        let scores: Vec<String> = m.mean_scores.iter().map(|(s, v)| format!("{s} {v:.1}")).collect();
        out.push_str(&format!(
            "  {:>2} {:<12} {}; scores {}\n",
            m.number,
            m.mission,
            if wins.is_empty() {
                "not played".to_string()
            } else {
                wins.join(", ")
            },
            if scores.is_empty() {
                "-".to_string()
            } else {
                scores.join(", ")
            }
        ));
    }
    out.push_str("how the campaigns ended\n");
    for (line, n) in &r.endings {
        out.push_str(&format!("  {n:>6}  {line}\n"));
    }
    if !r.final_state.is_empty() {
        let state: Vec<String> = r.final_state.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
        out.push_str(&format!("final state (means): {}\n", state.join(", ")));
    }
    if r.errors.is_empty() {
        out.push_str("errors: none\n");
    } else {
        out.push_str("errors (replay one with `servitor game … --campaign --seed N`)\n");
        for e in &r.errors {
            let examples: Vec<String> = e
                .examples
                .iter()
                .map(|(k, s)| format!("campaign {k} seed {s}"))
                .collect();
            out.push_str(&format!(
                "  {} × {}\n    {}\n",
                e.campaigns,
                e.message,
                examples.join(", ")
            ));
        }
    }
    out.push_str(&format!(
        "{} campaigns, {} games in {:.2} s ({} games/s, {} jobs)\n",
        r.campaigns, r.games, r.seconds, r.games_per_second, r.jobs
    ));
    out
}

/// `sim PACKAGE --campaign [ID]`.
pub fn sim(
    ruleset: &Arc<servitor::Ruleset>,
    id: Option<&str>,
    n: u64,
    seed: u64,
    jobs: usize,
    options: &[(String, String)],
    json: bool,
) -> Result<(), super::Failure> {
    let r = report(ruleset, id, n, seed, jobs, options).map_err(|m| super::usage(format!("error: {m}")))?;
    if json {
        super::emit_json(&r);
    } else {
        super::emit(&text(&r));
    }
    let failed: u64 = r.errors.iter().map(|e| e.campaigns).sum();
    if failed > 0 {
        return Err(format!(
            "error: {failed} of {} campaigns failed (the report lists the errors, with campaigns to replay)",
            r.campaigns
        )
        .into());
    }
    Ok(())
}

/// `game PACKAGE --campaign [ID] --seed S`: one campaign headless, mission by mission, with
/// what its hooks said; `--json` gives the campaign as its file keeps it.
pub fn game(
    ruleset: &Arc<servitor::Ruleset>,
    id: Option<&str>,
    seed: u64,
    options: &[(String, String)],
    json: bool,
) -> Result<(), super::Failure> {
    let mut c = Campaign::new(ruleset, id, seed, options.to_vec()).map_err(|m| super::usage(format!("error: {m}")))?;
    let mut host = Host::new(ruleset);
    let played = c.play_out(&mut host);
    if json {
        super::emit_json(&c);
    } else {
        super::emit(&played_text(&c));
    }
    played.map_err(|e| super::Failure::Failed(error_report(ruleset, e)))
}

/// A campaign's missions so far, with what the hooks said, and its end.
pub fn played_text(c: &Campaign) -> String {
    let mut out = format!("{} · campaign {} · seed {}\n", c.package, c.campaign, c.seed);
    for p in &c.played {
        let scores: Vec<String> = p.result.scores.iter().map(|(s, v)| format!("{s} {v}")).collect();
        out.push_str(&format!(
            "mission {} · {} · seed {}: {} ({}); {}\n",
            p.number,
            p.mission,
            p.seed,
            p.result.winner,
            p.result.reason,
            scores.join(", ")
        ));
        for note in &p.notes {
            out.push_str(&format!("  · {note}\n"));
        }
    }
    if let Some(end) = &c.ended {
        out.push_str(&format!("campaign over: {end}\n"));
    }
    out
}
