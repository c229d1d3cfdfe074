//! Command-line parsing (clap) and dispatch. One file per command; `render` draws results.
//!
//! The binary's own dependencies (clap, clap_complete, rustyline, indicatif, ctrlc) sit behind
//! the default `cli` feature, so the library builds without them, as `web/engine` does. A
//! command fails with a [`Failure`]: `Usage` (exit 2: the command line asks for something
//! wrong) or `Failed` (exit 1). `completions` prints a shell's completion script.
//!
//! All output goes through four doors: JSON through [`emit_json`] (the encoder's escapes
//! only); other stdout through [`emit`] (a closed pipe ends quietly; every control character
//! made visible, colour sequences too) or, for the board maps servitor paints,
//! [`emit_painted`] (their colours reach a colour terminal); stderr through [`eprint_safe`],
//! whose only colour sequences are miette's (package text in a diagnostic is made visible
//! before it is rendered).

mod campaign;
mod check;
mod describe;
mod game;
mod lab;
mod los;
mod lsp;
mod odds;
mod packages;
mod play;
mod plot;
mod render;
mod roll;
mod run;
mod savefile;
mod scenario;
mod screen;
mod show;
mod sim;
mod tables;

use clap::{Args, Parser, Subcommand};
use servitor::{LoadError, Loaded};
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "servitor",
    version,
    about = "Runs the enemy in solo play of sci-fi miniatures games."
)]
#[command(
    after_help = "A <PACKAGE> is a path (a folder or a .rules file, written with a / or starting with .), or a bare NAME, looked up in this order: ./NAME in the current folder, NAME in each folder of $SERVITOR_RULESETS, ./rulesets/NAME (in a checkout), then the rulesets bundled with servitor; the first found is loaded (`servitor packages` lists them all)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a package: every diagnostic with file:line:col
    Check(check::CheckArgs),
    /// List the packages a bare name finds, and where they are
    Packages(packages::PackagesArgs),
    /// List what a package declares (tables, dice, boards, missions, battlefields, records,
    /// pools, constants, procedures, games), or one item in full with its text
    Tables(tables::TablesArgs),
    /// Roll a table once (or --times N): dice, row, result, follow-ups, sources
    Roll(roll::RollArgs),
    /// Exact outcome distribution of a table, as fractions
    Odds(odds::OddsArgs),
    /// Run a scripted procedure and print each step
    Run(run::RunArgs),
    /// Draw a mission's map (or one board) in the terminal, and as SVG with --svg
    Show(show::ShowArgs),
    /// Can one square see another? Draws the line of sight on the map
    Los(los::LosArgs),
    /// Play one headless game and print it turn by turn
    Game(game::GameArgs),
    /// Play many headless games in parallel and report the outcomes
    Sim(sim::SimArgs),
    /// Lay out a board by script, force the dice, play functions: test a behaviour
    Scenario(scenario::ScenarioArgs),
    /// Play at a real table: you move your side, servitor runs the other
    Play(play::PlayArgs),
    /// A language server for packages (rules files and scripts) on stdin/stdout, for any
    /// editor that speaks LSP: diagnostics as you type, odds on hover, definitions, completion
    Lsp(lsp::LspArgs),
    /// Print a completion script for a shell, e.g. `servitor completions bash > ~/.local/share/bash-completion/completions/servitor`
    Completions {
        /// bash, elvish, fish, powershell or zsh
        shell: clap_complete::Shell,
    },
}

/// Which results are ruled out, as given on the command line.
#[derive(Args, Clone, Default)]
pub struct AvailabilityArgs {
    /// Results that cannot be used now (comma-separated), e.g. --unavailable red,blue
    #[arg(long, value_delimiter = ',', value_name = "RESULT")]
    pub unavailable: Vec<String>,
    /// Only these results can be used now (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "RESULT")]
    pub available: Vec<String>,
    /// Roll the table N times in one series (duplicates policy applies)
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub times: usize,
}

impl AvailabilityArgs {
    pub fn availability(&self) -> servitor::tables::Availability {
        servitor::tables::Availability {
            unavailable: self.unavailable.iter().cloned().collect(),
            available: (!self.available.is_empty()).then(|| self.available.iter().cloned().collect()),
        }
    }
}

/// How a command failed; the exit code tells a calling script which. A usage error (exit 2)
/// is a command line that asks for something wrong: a name that does not exist, a malformed
/// or out-of-range value, options that do not go together, a file that is not there. Any
/// other failure (exit 1) is what was asked for going wrong: a package with errors, a script
/// that fails, a file that cannot be written, a computation over its limit.
#[derive(Debug)]
pub enum Failure {
    Usage(String),
    Failed(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Failed(message)
    }
}

impl Failure {
    /// The text to print, whatever the kind.
    pub fn message(self) -> String {
        match self {
            Failure::Usage(m) | Failure::Failed(m) => m,
        }
    }

    /// The same kind of failure, its text changed by `f`.
    pub fn map(self, f: impl FnOnce(String) -> String) -> Failure {
        match self {
            Failure::Usage(m) => Failure::Usage(f(m)),
            Failure::Failed(m) => Failure::Failed(f(m)),
        }
    }
}

/// A usage error (exit 2).
pub fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Packages(args) => packages::run(args),
        Command::Tables(args) => tables::run(args),
        Command::Roll(args) => roll::run(args),
        Command::Odds(args) => odds::run(args),
        Command::Run(args) => run::run(args),
        Command::Show(args) => show::run(args),
        Command::Los(args) => los::run(args),
        Command::Game(args) => game::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Scenario(args) => scenario::run(args),
        Command::Play(args) => play::run(args),
        Command::Lsp(args) => lsp::run(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "servitor", &mut out);
            write_out(&String::from_utf8_lossy(&out));
            Ok(())
        }
    };
    let (message, code) = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => (message, ExitCode::from(2)),
        Err(Failure::Failed(message)) => (message, ExitCode::FAILURE),
    };
    eprint_safe(&message);
    if !message.ends_with('\n') {
        eprintln!();
    }
    code
}

/// Writes to stdout; a closed pipe (`servitor show … | head`) ends the program quietly
/// instead of panicking. Every control character (a package's texts may hold any, colour
/// sequences included) is made visible.
pub fn emit(text: &str) {
    write_out(&servitor::escape::terminal(text, false));
}

/// One line of JSON on stdout: escaped by the JSON encoder alone ([`servitor::escape::json`]:
/// control and bidi characters as `\uXXXX`), never by [`emit`]'s terminal pictures, which
/// are not JSON.
pub fn emit_json<T: serde::Serialize + ?Sized>(value: &T) {
    write_out(&format!("{}\n", servitor::escape::json(value)));
}

/// [`emit`] for a picture servitor painted itself (a board map, whose squares carry no package
/// text): its colour sequences pass, to a colour terminal.
pub fn emit_painted(text: &str) {
    let colour = std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal();
    write_out(&servitor::escape::terminal(text, colour));
}

fn write_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Writes to stderr with control characters made visible, as [`emit`] does.
pub fn eprint_safe(text: &str) {
    eprint!("{}", servitor::escape::terminal(text, color()));
}

pub fn emitln(text: &str) {
    emit(&format!("{text}\n"));
}

/// Reads a file named on the command line (a save, a scenario): a regular file of at most
/// `limit` bytes, the limit named `name` in the message (`/dev/zero` or a pipe would read for
/// ever, a huge file fill memory).
pub fn read_named(path: &std::path::Path, limit: u64, name: &str) -> Result<String, Failure> {
    use std::io::Read;
    let cannot = |e: &dyn std::fmt::Display| format!("error: cannot read {}: {e}", path.display());
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        // A file named on the command line that is not there: the command line is wrong.
        std::io::ErrorKind::NotFound => usage(cannot(&e)),
        _ => Failure::Failed(cannot(&e)),
    })?;
    let too_large = || {
        format!(
            "error: {} is larger than {} bytes (`{name}`, see \"Limits\" in docs/limits.md)",
            path.display(),
            servitor::diagnostic::thousands(limit)
        )
    };
    if !meta.is_file() {
        return Err(cannot(&"not a regular file").into());
    }
    if meta.len() > limit {
        return Err(too_large().into());
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large().into());
    }
    String::from_utf8(bytes).map_err(|_| cannot(&"not UTF-8 text").into())
}

/// Whether to colour what goes to stderr.
pub fn color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// Loads a package, printing its warnings; a failure becomes the message to print.
pub fn load(package: &str) -> Result<Loaded, Failure> {
    loaded(servitor::load(package))
}

/// What [`load`] makes of a load's result: the warnings printed, a failure made the message.
pub fn loaded(result: Result<Loaded, LoadError>) -> Result<Loaded, Failure> {
    match result {
        Ok(loaded) => {
            if !loaded.warnings.diagnostics.is_empty() {
                eprint_safe(&loaded.warnings.render(&loaded.ruleset.sources, color()));
            }
            Ok(loaded)
        }
        // A package that is not there is the command line's mistake; one with errors is not.
        Err(error @ LoadError::NotFound { .. }) => Err(usage(load_failure(&error))),
        Err(error) => Err(Failure::Failed(load_failure(&error))),
    }
}

pub fn load_failure(error: &LoadError) -> String {
    let mut text = error.render(color());
    if let LoadError::Invalid { report, .. } = error {
        let n = report.error_count();
        text.push_str(&format!("error: {n} problem{} found\n", if n == 1 { "" } else { "s" }));
    }
    text
}

/// The seed given, or a fresh one (printed, so the roll can be replayed).
pub fn seed_or_fresh(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        // Keep fresh seeds short enough to retype.
        nanos % 1_000_000
    })
}

pub fn find_table<'r>(ruleset: &'r servitor::Ruleset, id: &str) -> Result<&'r servitor::tables::Table, Failure> {
    ruleset.tables.get(id).ok_or_else(|| {
        let hint = servitor::diagnostic::did_you_mean(id, ruleset.tables.keys().map(String::as_str))
            .map(|h| format!("\n  help: {h}"))
            .unwrap_or_default();
        usage(format!(
            "error: no table `{id}` in {}{hint}\n  tables: {}",
            ruleset.name(),
            ruleset.tables.keys().cloned().collect::<Vec<_>>().join(", ")
        ))
    })
}

pub fn find_mission<'r>(ruleset: &'r servitor::Ruleset, id: &str) -> Result<&'r servitor::board::Mission, Failure> {
    find_named(ruleset, &ruleset.missions, "mission", "missions", id)
}

/// An item drawn on a grid or a battlefield, by id; otherwise an error with "did you mean",
/// every id there is, and — for a mission that is only a record — that it has no map.
pub fn find_named<'r, T>(
    ruleset: &servitor::Ruleset,
    items: &'r indexmap::IndexMap<String, T>,
    kind: &str,
    plural: &str,
    id: &str,
) -> Result<&'r T, Failure> {
    if let Some(item) = items.get(id) {
        return Ok(item);
    }
    if kind == "mission" && ruleset.records.get("mission").is_some_and(|m| m.contains_key(id)) {
        return Err(usage(format!(
            "error: mission `{id}` of {} has no map to draw: it is a record (`servitor tables {} mission.{id}` shows it)\n",
            ruleset.name(),
            ruleset.name()
        )));
    }
    let hint = servitor::diagnostic::did_you_mean(id, items.keys().map(String::as_str))
        .map(|h| format!("\n  help: {h}"))
        .unwrap_or_default();
    let list: Vec<&str> = items.keys().map(String::as_str).collect();
    Err(usage(format!(
        "error: no {kind} `{id}` in {}{hint}\n  {plural}: {}\n",
        ruleset.name(),
        if list.is_empty() {
            "(none)".to_string()
        } else {
            list.join(", ")
        }
    )))
}

pub fn check_results(table: &servitor::tables::Table, args: &AvailabilityArgs) -> Result<(), Failure> {
    let results = table.results();
    for name in args.unavailable.iter().chain(&args.available) {
        if !results.contains(&name.as_str()) {
            let hint = servitor::diagnostic::did_you_mean(name, results.iter().copied())
                .map(|h| format!("\n  help: {h}"))
                .unwrap_or_default();
            return Err(usage(format!(
                "error: table `{}` has no result `{name}`{hint}\n  results: {}",
                table.id,
                results.join(", ")
            )));
        }
    }
    if args.times == 0 || args.times > 1000 {
        return Err(usage("error: --times takes 1 to 1000"));
    }
    Ok(())
}
