//! `servitor run <package> <procedure> [--arg name=value …]`: run a scripted procedure.

use clap::Args;
use servitor::script::{RunError, run_procedure};
use std::sync::Arc;

#[derive(Args)]
pub struct RunArgs {
    /// Package folder or bare name
    package: String,
    /// Procedure id
    procedure: String,
    /// An argument for the procedure, as name=value (repeatable)
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = parse_arg)]
    args: Vec<(String, String)>,
    /// Seed for the dice; the same seed gives the same run
    #[arg(long)]
    seed: Option<u64>,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

pub fn parse_arg(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(k, v)| (k.trim().to_string(), v.to_string()))
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))
}

/// How many of a failed run's last steps its text output shows.
const FAILED_STEPS_SHOWN: usize = 20;

pub fn run(args: RunArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let ruleset = Arc::new(loaded.ruleset);
    let seed = super::seed_or_fresh(args.seed);
    match run_procedure(&ruleset, &args.procedure, &args.args, seed) {
        Ok(output) => {
            if args.json {
                super::emit_json(&output);
            } else {
                super::emit(&super::render::run_output(&ruleset, &output));
            }
            Ok(())
        }
        Err(RunError::Usage(message)) => Err(super::usage(format!("error: {message}"))),
        Err(RunError::Script(failure)) => {
            let failure = *failure;
            // The evidence first (on stdout, as a run's steps always are), then the error.
            let partial = servitor::script::RunOutput {
                procedure: args.procedure.clone(),
                seed,
                args: failure.args,
                steps: failure.steps,
                result: serde_json::Value::Null,
            };
            if args.json {
                let mut json = serde_json::to_value(&partial).map_err(|e| e.to_string())?;
                json["failed"] = failure.diagnostic.message.clone().into();
                json["at"] = ruleset.sources.locate(failure.diagnostic.span).into();
                super::emit_json(&json);
            } else {
                // The steps nearest the failure are the evidence; a flood of them is not read.
                let n = partial.steps.len();
                let hidden = n.saturating_sub(FAILED_STEPS_SHOWN);
                let mut partial = partial;
                partial.steps.drain(..hidden);
                let mut text = super::render::run_output(&ruleset, &partial);
                if hidden > 0 {
                    let at = text.find("\n• ").map_or(text.len(), |i| i + 1);
                    text.insert_str(
                        at,
                        &format!(
                            "… {} earlier step{} not shown (`--json` lists every step)\n",
                            servitor::diagnostic::thousands(hidden as u64),
                            if hidden == 1 { "" } else { "s" }
                        ),
                    );
                }
                text.push_str(&format!(
                    "failed after {n} step{}; `--seed {seed}` replays this run\n",
                    if n == 1 { "" } else { "s" }
                ));
                super::emit(&text);
            }
            let report = servitor::diagnostic::Report {
                diagnostics: vec![failure.diagnostic],
            };
            Err(report.render(&ruleset.sources, super::color()).into())
        }
    }
}
