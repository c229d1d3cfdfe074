//! `servitor sim BASE --vs VARIANT` (or `--vs-set name=value`): the variant lab. Both play the
//! same game seeds; the report gives each metric's paired difference with its interval, the
//! games that changed (with their seeds) and a verdict. `--svg FILE` draws a sim, compared
//! or not (`plot.rs`).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use servitor::sim::lab::{self, LabReport, LabSetup, Until};
use servitor::sim::{self, SimSetup};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Changed games the text lists (`--json --records` has every pair).
const CHANGED_SHOWN: usize = 20;

#[derive(Args, Default)]
pub struct LabArgs {
    /// Compare with this package (a variant): both play the same game seeds, and the report
    /// gives each result's paired difference, variant − base, with its 95 % interval
    #[arg(long, value_name = "VARIANT")]
    pub vs: Option<String>,
    /// A game option of the variant's games only, as name=value (repeatable); without --vs,
    /// the package with these options is compared with itself without them
    #[arg(long = "vs-set", value_name = "NAME=VALUE", value_parser = super::run::parse_arg)]
    pub vs_options: Vec<(String, String)>,
    /// With --vs: play on, in looks of 100, 200, 400… games, until the deciding interval
    /// excludes 0 (or is --width wide), at most --games games; the intervals are then at a
    /// level that allows for the looks
    #[arg(long)]
    pub until_decided: bool,
    /// With --until-decided: stop too once the deciding interval is at most this wide (a rate
    /// in percentage points, a mean in its own units)
    #[arg(long, value_name = "WIDTH")]
    pub width: Option<f64>,
    /// With --vs: the result the verdict is about: wins:SIDE, wins:none, score:SIDE, turns,
    /// losses:SIDE (default: the first side's wins)
    #[arg(long, value_name = "METRIC")]
    pub decide_on: Option<String>,
    /// With --vs --json: every pair of games, in game order
    #[arg(long)]
    pub records: bool,
    /// Draw the report as an SVG chart to FILE
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

impl LabArgs {
    /// Whether a comparison was asked for.
    pub fn compares(&self) -> bool {
        self.vs.is_some() || !self.vs_options.is_empty()
    }

    /// Refuses the comparison's flags on a plain sim.
    pub fn check_plain(&self) -> Result<(), super::Failure> {
        let stray = [
            (self.until_decided, "--until-decided"),
            (self.width.is_some(), "--width"),
            (self.decide_on.is_some(), "--decide-on"),
            (self.records, "--records"),
        ];
        match stray.iter().find(|(given, _)| *given) {
            Some((_, flag)) => Err(super::usage(format!(
                "error: {flag} is for a comparison: add --vs VARIANT or --vs-set NAME=VALUE"
            ))),
            None => Ok(()),
        }
    }
}

/// What `sim` was given besides the lab's flags.
pub struct Plain<'a> {
    pub package: &'a str,
    pub mission: String,
    pub games: u64,
    pub seed: u64,
    pub jobs: usize,
    pub game: Option<String>,
    pub options: Vec<(String, String)>,
    pub json: bool,
}

/// The threads asked for, or every core; as a plain `sim`, never more than two a core.
pub fn jobs(asked: Option<u64>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = asked.map_or(cores, |j| j as usize);
    let most = cores.saturating_mul(2);
    if jobs > most {
        super::eprint_safe(&format!(
            "note: --jobs {jobs} is more than this machine's {cores} core{} can use: the games play on {most} threads\n",
            if cores == 1 { "" } else { "s" }
        ));
        return most;
    }
    jobs
}

fn progress(games: u64) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(games);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} games, {per_sec}, ETA {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    }
}

pub fn run(plain: Plain, args: &LabArgs) -> Result<(), super::Failure> {
    if args.records && !plain.json {
        return Err(super::usage("error: --records adds every pair to the JSON: add --json"));
    }
    if args.width.is_some() && !args.until_decided {
        return Err(super::usage(
            "error: --width says when --until-decided stops: add --until-decided",
        ));
    }
    if let Some(w) = args.width
        && !(w.is_finite() && w > 0.0)
    {
        return Err(super::usage(format!(
            "error: --width must be a number above 0, not {w}"
        )));
    }
    let base = Arc::new(super::load(plain.package)?.ruleset);
    let variant = match &args.vs {
        Some(path) => Arc::new(super::load(path)?.ruleset),
        None => base.clone(),
    };
    let mut variant_options = plain.options.clone();
    for (name, value) in &args.vs_options {
        variant_options.retain(|(n, _)| n != name);
        variant_options.push((name.clone(), value.clone()));
    }
    let sides = lab::sides(&base, plain.game.as_deref());
    if let Some(id) = &args.decide_on {
        let ids = lab::metric_ids(&sides);
        if !ids.contains(id) {
            let hint = servitor::diagnostic::did_you_mean(id, ids.iter().map(String::as_str))
                .map(|h| format!("\n  help: {h}"))
                .unwrap_or_default();
            return Err(super::usage(format!(
                "error: no metric `{id}` to decide on{hint}\n  metrics: {}",
                ids.join(", ")
            )));
        }
    }
    let setup = LabSetup {
        game: plain.game.clone(),
        mission: plain.mission.clone(),
        seed: plain.seed,
        games: plain.games,
        jobs: plain.jobs,
        base_options: plain.options.clone(),
        variant_options: variant_options.clone(),
        until: args.until_decided.then_some(Until {
            width: args.width.map(|w| {
                let rate = args.decide_on.as_deref().is_none_or(|m| m.starts_with("wins:"));
                if rate { w / 100.0 } else { w }
            }),
        }),
        decide_on: args.decide_on.clone(),
        records: args.records,
    };
    // Each side's setup is checked once, so a wrong mission or option is one message.
    for (ruleset, options, which) in [(&base, &plain.options, "base"), (&variant, &variant_options, "variant")] {
        let one = SimSetup {
            game: plain.game.clone(),
            mission: plain.mission.clone(),
            seed: plain.seed,
            games: 1,
            jobs: 1,
            options: options.clone(),
        };
        sim::check(ruleset, &one)
            .map_err(|m| super::usage(format!("error: in the {which}'s games ({}): {m}", ruleset.name())))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let bar = progress(setup.games * 2);
    let report = lab::run(&base, &variant, &setup, &|| bar.inc(1), &stop);
    bar.finish_and_clear();
    if let Some(path) = &args.svg {
        super::plot::compared(&report, path)?;
    }
    if plain.json {
        super::emit_json(&report);
    } else {
        let names = Names {
            base: plain.package,
            variant: args.vs.as_deref().unwrap_or(plain.package),
        };
        super::emit(&text(&report, &names));
    }
    // The report is printed either way; a comparison whose games failed says so in its exit
    // code, as a plain sim does.
    if report.errors.pairs > 0 {
        return Err(format!(
            "error: {} of {} pairs had a game fail (the report lists them, with games to replay)",
            report.errors.pairs, report.games
        )
        .into());
    }
    Ok(())
}

/// How the user wrote the two packages (for the replay commands).
pub struct Names<'a> {
    pub base: &'a str,
    pub variant: &'a str,
}

fn options_words(options: &[(String, String)]) -> String {
    options.iter().map(|(k, v)| format!(" --set {k}={v}")).collect()
}

fn side_name(name: &str, options: &[(String, String)], other: &[(String, String)]) -> String {
    let own: Vec<String> = options
        .iter()
        .filter(|o| !other.contains(o))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if own.is_empty() {
        name.to_string()
    } else {
        format!("{name} with {}", own.join(", "))
    }
}

pub fn text(r: &LabReport, names: &Names) -> String {
    let level = format!("{} %", (r.level * 1000.0).round() / 10.0);
    let base = side_name(&r.base, &r.base_options, &r.variant_options);
    let variant = side_name(&r.variant, &r.variant_options, &r.base_options);
    let mut out = format!(
        "{base} vs {variant} · mission {} · {} games on the same seeds · seed {}\n",
        r.mission, r.games, r.seed
    );
    if r.stopped {
        out.push_str("stopped early: these are the games played before Ctrl-C\n");
    }
    if r.looks_planned > 1 {
        let why = if r.decided {
            format!("decided at look {} of at most {}", r.looks, r.looks_planned)
        } else if r.looks < r.looks_planned && !r.stopped {
            format!(
                "narrower than --width at look {} of at most {}",
                r.looks, r.looks_planned
            )
        } else {
            format!("not decided after {} looks", r.looks)
        };
        out.push_str(&format!(
            "until decided: {why} (looks at 100, 200, 400, … games, and the cap); every interval is at {level}, so that the {} looks together keep the 95 % guarantee\n",
            r.looks_planned
        ));
    }
    out.push_str(&format!(
        "changed: {} of {} games ({} – {} at {level}); the result changed in {}, the winner in {}\n",
        r.changed.games,
        r.paired,
        lab::value("rate", r.changed.share.low),
        lab::value("rate", r.changed.share.high),
        r.changed.result,
        r.changed.winner
    ));
    out.push_str(&format!(
        "paired differences, variant − base ({level} intervals; * excludes 0)\n"
    ));
    out.push_str(&format!("  {:<28} {:>9} {:>9}   difference\n", "", "base", "variant"));
    for m in &r.metrics {
        let parts: Vec<&str> = m.id.split(':').collect();
        let name = if parts.len() == 3 {
            format!("  {}", parts[2])
        } else {
            lab::label(&m.id)
        };
        let unit = if m.kind == "rate" { " points" } else { "" };
        let i = m.interval();
        out.push_str(&format!(
            "  {:<28} {:>9} {:>9}   {}{unit} {}{}\n",
            servitor::escape::one_line(&name),
            lab::value(m.kind, m.base),
            lab::value(m.kind, m.variant),
            lab::difference(m.kind, m.difference),
            lab::interval_words(m.kind, &i),
            if i.excludes_zero() { " *" } else { "" }
        ));
    }
    out.push_str(&format!("verdict: {}\n", servitor::escape::one_line(&r.verdict)));
    if !r.changed.list.is_empty() {
        out.push_str(&format!(
            "changed games — replay either side: `servitor game {} --mission {} --seed N{}` and `servitor game {} --mission {} --seed N{}`\n",
            names.base,
            r.mission,
            options_words(&r.base_options),
            names.variant,
            r.mission,
            options_words(&r.variant_options)
        ));
        for c in r.changed.list.iter().take(CHANGED_SHOWN) {
            let from = c
                .divergence
                .as_ref()
                .map(|d| format!("; logs part at line {} (turn {})", d.line, d.turn))
                .unwrap_or_default();
            let results = if c.base == c.variant {
                format!("same result, {}", c.base)
            } else {
                format!("{} → {}", c.base, c.variant)
            };
            out.push_str(&format!(
                "  game {} seed {}: {}{from}\n",
                c.game,
                c.seed,
                servitor::escape::one_line(&results)
            ));
        }
        if r.changed.games as usize > CHANGED_SHOWN {
            out.push_str(&format!(
                "  … and {} more (`--json` lists the first {}, `--json --records` every pair)\n",
                r.changed.games as usize - CHANGED_SHOWN,
                lab::CHANGED_LISTED
            ));
        }
    }
    if r.errors.games == 0 {
        out.push_str("errors: none\n");
    } else {
        out.push_str(&format!(
            "errors: {} (left out of the differences; replay one with `servitor game … --seed N`)\n",
            r.errors.games
        ));
        for e in &r.errors.kept {
            let examples: Vec<String> = e
                .examples
                .iter()
                .map(|x| format!("game {} seed {}", x.game, x.seed))
                .collect();
            let more = if e.games > e.examples.len() as u64 { ", …" } else { "" };
            out.push_str(&format!(
                "  {} × ({}): {}\n    {}{more}\n",
                e.games,
                e.side,
                servitor::escape::one_line(&e.message),
                examples.join(", ")
            ));
        }
        if r.errors.other > 0 {
            out.push_str(&format!(
                "  {} more with other errors (only the first {} different errors are kept)\n",
                r.errors.other,
                servitor::limits::MAX_SIM_ERRORS
            ));
        }
        // A script error in a bundled ruleset names a `<bundled>/…` file: say how to get it.
        let bundled: Vec<&str> = r
            .errors
            .kept
            .iter()
            .flat_map(|e| e.message.match_indices("<bundled>/").map(|(i, _)| &e.message[i..]))
            .collect();
        out.push_str(&servitor::escape::visible(&servitor::diagnostic::bundled_hint(bundled)));
    }
    out.push_str(&format!(
        "{} games in {:.2} s ({} games/s, {} jobs)\n",
        r.games * 2,
        r.timing.seconds,
        r.timing.games_per_second,
        r.timing.jobs
    ));
    out
}
