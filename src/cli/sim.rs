//! `servitor sim <package> --mission M --games N --seed S [--jobs J] [--json]`: many headless
//! games in parallel; outcome rates with 95 % intervals, means, casualties, failed games.

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
    #[arg(long)]
    mission: String,
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
    #[command(flatten)]
    lab: super::lab::LabArgs,
}

pub fn run(args: SimArgs) -> Result<(), super::Failure> {
    if args.lab.compares() {
        let plain = super::lab::Plain {
            package: &args.package,
            mission: args.mission.clone(),
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
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let setup = SimSetup {
        game: args.game,
        mission: args.mission,
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
    let report = sim::run(&ruleset, &setup, &|| bar.inc(1), &stop);
    bar.finish_and_clear();
    if let Some(path) = &args.lab.svg {
        super::plot::single(&report, path)?;
    }
    if args.json {
        super::emitln(&serde_json::to_string(&report).map_err(|e| e.to_string())?);
    } else {
        super::emit(&text(&report));
    }
    Ok(())
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
    if r.errors.is_empty() {
        out.push_str("errors: none\n");
    } else {
        out.push_str(&format!(
            "errors: {} (replay one with `servitor game … --seed N`)\n",
            r.errors.len()
        ));
        for e in r.errors.iter().take(20) {
            out.push_str(&format!("  game {} seed {}: {}\n", e.game, e.seed, e.message));
        }
    }
    out.push_str(&format!(
        "{} games in {:.2} s ({} games/s, {} jobs)\n",
        r.games, r.timing.seconds, r.timing.games_per_second, r.timing.jobs
    ));
    out
}
