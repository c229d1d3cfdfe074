//! Every bundled procedure runs: with its defaults on several seeds, and with each value its
//! args declare (`arg … of …`) when they are few. A procedure that fails as a user first
//! calls it is a defect, whichever package it is in.

mod common;

use servitor::ruleset::Value;
use servitor::script::{RunError, run_procedure};
use std::path::Path;
use std::sync::Arc;

const SEEDS: [u64; 5] = [1, 2, 3, 42, 2024];
/// Args with more choices than this are tried only with their default.
const MAX_CHOICES: usize = 16;

/// The bundled packages and the example variants, as paths a user could give.
fn packages() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all: Vec<String> = common::bundled_packages()
        .into_iter()
        .map(|n| root.join("rulesets").join(n).display().to_string())
        .collect();
    let variants = root.join("examples/variants");
    let mut more: Vec<String> = std::fs::read_dir(variants)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    more.sort();
    all.extend(more);
    all
}

/// How a user writes one choice on the command line, for an arg whose default is `default`.
fn as_arg(default: &Value, choice: &Value) -> String {
    match default {
        Value::List(_) => format!("[{}]", choice.show()),
        _ => choice.show(),
    }
}

#[test]
fn every_bundled_procedure_runs_with_its_defaults_and_documented_values() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for path in packages() {
        let ruleset = Arc::new(common::load(&path));
        for procedure in ruleset.procedures.values() {
            let mut calls: Vec<Vec<(String, String)>> = vec![Vec::new()];
            for arg in &procedure.args {
                let Some(choices) = ruleset.arg_choices(arg) else {
                    continue;
                };
                if choices.len() > MAX_CHOICES {
                    continue;
                }
                for choice in choices {
                    calls.push(vec![(arg.name.clone(), as_arg(&arg.default, &choice))]);
                }
            }
            for call in &calls {
                for seed in SEEDS {
                    runs += 1;
                    let shown: Vec<String> = call.iter().map(|(k, v)| format!("--arg '{k}={v}'")).collect();
                    let command = format!("run {path} {} {} --seed {seed}", procedure.id, shown.join(" "));
                    match run_procedure(&ruleset, &procedure.id, call, seed) {
                        Ok(_) => {}
                        Err(RunError::Usage(message)) => failures.push(format!("{command}\n{message}")),
                        Err(RunError::Script(failure)) => failures.push(format!(
                            "{command}\n{}",
                            servitor::diagnostic::Report {
                                diagnostics: vec![failure.diagnostic]
                            }
                            .render(&ruleset.sources, false)
                        )),
                    }
                }
            }
        }
    }
    assert!(runs > 100, "only {runs} runs: are the packages where the test looks?");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
