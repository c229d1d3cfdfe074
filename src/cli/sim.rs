//! `servitor sim <package> --mission M --games N --seed S [--jobs J] [--json]`: many headless
//! games in parallel; outcome rates with 95 % intervals, means, casualties, failed games.
//! `--vs`/`--vs-set` is the variant lab (`lab.rs`), `--svg` a chart (`plot.rs`), `--profile`
//! script time by function (`script::profile`), `--campaign` whole campaigns (`campaign.rs`).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use servitor::sim::{self, SimReport, SimSetup};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Args)]
pub struct SimArgs {
    /// Package folder or bare name
    package: String,
    /// Mission id
    #[arg(long, required_unless_present = "campaign")]
    mission: Option<String>,
    /// Play whole campaigns instead (the package's `campaign` item, or the one named):
    /// --games says how many
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["mission", "game"])]
    campaign: Option<String>,
    /// Games to play
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    games: u64,
    /// Seed of the run: game k plays with a seed made from this and k
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (default: every core)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: Option<u64>,
    /// Which `game` item, when the package has several
    #[arg(long)]
    game: Option<String>,
    /// A game option, as name=value (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = super::run::parse_arg)]
    options: Vec<(String, String)>,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Also report where script time goes, by function (the run is several times slower)
    #[arg(long)]
    profile: bool,
    #[command(flatten)]
    lab: super::lab::LabArgs,
}

/// Script functions listed by `--profile` (the rest are smaller).
const PROFILE_LINES: usize = 25;

pub fn run(args: SimArgs) -> Result<(), super::Failure> {
    if args.profile && (args.lab.compares() || args.campaign.is_some()) {
        return Err(super::usage(
            "error: --profile profiles one mission of one package: run it without --vs and --campaign".to_string(),
        ));
    }
    if args.profile {
        servitor::script::profile::enable();
    }
    if args.campaign.is_some() && (args.lab.compares() || args.lab.svg.is_some()) {
        return Err(super::usage(
            "error: --campaign plays whole campaigns; the variant lab and --svg compare single missions",
        ));
    }
    let mission = args.mission.clone().unwrap_or_default();
    if args.lab.compares() {
        let plain = super::lab::Plain {
            package: &args.package,
            mission: mission.clone(),
            games: args.games,
            seed: args.seed,
            jobs: super::lab::jobs(args.jobs),
            game: args.game.clone(),
            options: args.options.clone(),
            json: args.json,
        };
        return super::lab::run(plain, &args.lab);
    }
    args.lab.check_plain()?;
    let loaded = super::load(&args.package)?;
    let ruleset = Arc::new(loaded.ruleset);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.map_or(cores, |j| j as usize);
    // Games use the processor only: threads past two a core gain nothing, and each holds a
    // script stack (`script::STACK_BYTES`) that a limited address space may not have room for.
    let most = cores.saturating_mul(2);
    let jobs = if jobs > most {
        super::eprint_safe(&format!(
            "note: --jobs {jobs} is more than this machine's {cores} core{} can use: the games play on {most} threads\n",
            if cores == 1 { "" } else { "s" }
        ));
        most
    } else {
        jobs
    };
    if let Some(id) = &args.campaign {
        let id = Some(id.as_str()).filter(|i| !i.is_empty());
        return super::campaign::sim(&ruleset, id, args.games, args.seed, jobs, &args.options, args.json);
    }
    let setup = SimSetup {
        game: args.game,
        mission,
        seed: args.seed,
        games: args.games,
        jobs,
        options: args.options,
    };
    sim::check(&ruleset, &setup).map_err(|m| super::usage(format!("error: {m}")))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // Ctrl-C stops the run; the games played so far are reported.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(setup.games);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} games, {per_sec}, ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let report = sim::run(&ruleset, &setup, &|| bar.inc(1), &stop).map_err(|e| format!("error: {e}"))?;
    bar.finish_and_clear();
    if report.timing.jobs < jobs {
        super::eprint_safe(&format!(
            "note: only {} of the {jobs} threads asked for could be started; the games played on {}\n",
            report.timing.jobs, report.timing.jobs
        ));
    }
    if let Some(path) = &args.lab.svg {
        super::plot::single(&report, path)?;
    }
    let profile = args.profile.then(servitor::script::profile::report);
    if args.json {
        match &profile {
            Some((shares, seconds)) => {
                let mut json = serde_json::to_value(&report).map_err(|e| format!("error: {e}"))?;
                json["profile"] = serde_json::json!({ "script_seconds": seconds, "functions": shares });
                super::emit_json(&json);
            }
            None => super::emit_json(&report),
        }
    } else {
        let mut out = text(&report);
        if let Some((shares, seconds)) = &profile {
            out.push_str(&profile_text(shares, *seconds, report.games));
        }
        super::emit(&out);
    }
    // The report is printed either way; a sim whose games failed says so in its exit code.
    let failed = report.outcomes.get("error").copied().unwrap_or(0);
    if failed > 0 {
        return Err(format!(
            "error: {failed} of {} games failed (the report lists the errors, with games to replay)",
            report.games
        )
        .into());
    }
    Ok(())
}

/// The `--profile` table: each function's share of the script time, with what it called
/// (inclusive) and in its own statements, and how often a game calls it.
fn profile_text(shares: &[servitor::script::profile::Share], seconds: f64, games: u64) -> String {
    let mut out = format!(
        "script time by function ({seconds:.2} s in scripts, slowed by the profile: read the shares; a statement's engine calls count as its own)\n  with calls    own  calls a game  function\n"
    );
    for s in shares.iter().take(PROFILE_LINES) {
        out.push_str(&format!(
            "  {:>9}  {:>7}  {:>12}  {}\n",
            percent(s.inclusive),
            percent(s.own),
            format!("{:.1}", s.calls as f64 / games.max(1) as f64),
            servitor::escape::one_line(&s.function)
        ));
    }
    if shares.len() > PROFILE_LINES {
        out.push_str(&format!("  … and {} smaller\n", shares.len() - PROFILE_LINES));
    }
    let calls: u64 = shares.iter().map(|s| s.calls).sum();
    out.push_str(&format!(
        "calls: {:.0} a game (script functions and the engine's functions they call)\n",
        calls as f64 / games.max(1) as f64
    ));
    out
}

fn percent(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

pub fn text(r: &SimReport) -> String {
    let mut out = format!(
        "{} · mission {} · {} games · seed {}\n",
        r.package, r.mission, r.games, r.seed
    );
    if r.stopped {
        out.push_str("stopped early: these are the games played before Ctrl-C\n");
    }
    out.push_str("outcomes (95 % interval)\n");
    for (name, n) in &r.outcomes {
        let rate = &r.rates[name];
        out.push_str(&format!(
            "  {name:<10} {n:>7}  {:>7}  ({} – {})\n",
            percent(rate.rate),
            percent(rate.low),
            percent(rate.high)
        ));
    }
    let scores: Vec<String> = r.mean_scores.iter().map(|(s, v)| format!("{s} {v:.2}")).collect();
    out.push_str(&format!("mean score: {}\n", scores.join(", ")));
    out.push_str(&format!("turns per game: {:.2}\n", r.mean_turns));
    for (side, kinds) in &r.casualties {
        let list: Vec<String> = kinds.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
        out.push_str(&format!("{side} losses per game: {}\n", list.join(", ")));
    }
    let failed = r.outcomes.get("error").copied().unwrap_or(0);
    if failed == 0 {
        out.push_str("errors: none\n");
    } else {
        out.push_str(&format!(
            "errors: {failed} game{} failed (replay one with `servitor game … --seed N`)\n",
            if failed == 1 { "" } else { "s" }
        ));
        for e in &r.errors {
            let examples: Vec<String> = e
                .examples
                .iter()
                .map(|x| format!("game {} seed {}", x.game, x.seed))
                .collect();
            let more = if e.games > e.examples.len() as u64 { ", …" } else { "" };
            out.push_str(&format!(
                "  {} × {}\n    {}{more}\n",
                e.games,
                e.message,
                examples.join(", ")
            ));
        }
        if r.other_errors > 0 {
            out.push_str(&format!(
                "  {} more with other errors (only the first {} different errors are kept)\n",
                r.other_errors,
                servitor::limits::MAX_SIM_ERRORS
            ));
        }
    }
    out.push_str(&format!(
        "{} games in {:.2} s ({} games/s, {} jobs)\n",
        r.games, r.timing.seconds, r.timing.games_per_second, r.timing.jobs
    ));
    out
}
