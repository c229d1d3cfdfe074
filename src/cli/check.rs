//! `servitor check <package> [--json]`: load and check; print every diagnostic, or a summary.
//! With `--json` every diagnostic is data (`Diagnostic::to_json`).

use clap::Args;
use servitor::{LoadError, Ruleset};

#[derive(Args)]
pub struct CheckArgs {
    /// Package folder or bare name
    package: String,
    /// Print one JSON object: `ok`, the package and what it holds, and every diagnostic with
    /// file, line, column, message, label, help and notes
    #[arg(long)]
    json: bool,
}

pub fn run(args: CheckArgs) -> Result<(), super::Failure> {
    if args.json {
        return json(&args.package);
    }
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
    let chain: Vec<&str> = r.packages.iter().map(|p| p.name.as_str()).collect();
    let counts: Vec<String> = counts(r)
        .into_iter()
        .map(|(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
    super::emitln(&format!(
        "ok: {} ({}) — {}",
        r.name(),
        chain.join(" → "),
        counts.join(", ")
    ));
    Ok(())
}

/// What a package holds, each count with its noun (one, many).
fn counts(r: &Ruleset) -> Vec<(usize, &'static str, &'static str)> {
    vec![
        (r.tables.len(), "table", "tables"),
        (r.dice.len(), "die", "dice"),
        (r.records.values().map(|m| m.len()).sum(), "record", "records"),
        (r.pools.len(), "pool", "pools"),
        (r.consts.len(), "constant", "constants"),
        (r.procedures.len(), "procedure", "procedures"),
        (r.boards.len(), "board", "boards"),
        (r.missions.len(), "mission", "missions"),
        (r.battlefields.len(), "battlefield", "battlefields"),
    ]
}

/// `check --json`: one object on stdout whatever happens (exit 1 when the package has errors,
/// 2 when there is no such package), so an editor reads one format.
fn json(package: &str) -> Result<(), super::Failure> {
    match servitor::load(package) {
        Ok(loaded) => {
            let r = &loaded.ruleset;
            let chain: Vec<&str> = r.packages.iter().map(|p| p.name.as_str()).collect();
            let counts: serde_json::Map<String, serde_json::Value> = counts(r)
                .into_iter()
                .map(|(n, _, many)| (many.to_string(), n.into()))
                .collect();
            super::emit_json(&serde_json::json!({
                "ok": true, "package": r.name(), "chain": chain, "counts": counts,
                "diagnostics": loaded.warnings.to_json(&r.sources),
            }));
            Ok(())
        }
        Err(LoadError::Invalid { sources, report }) => {
            super::emit_json(
                &serde_json::json!({ "ok": false, "package": package, "diagnostics": report.to_json(&sources) }),
            );
            let n = report.error_count();
            Err(format!("error: {n} problem{} found", if n == 1 { "" } else { "s" }).into())
        }
        Err(error @ LoadError::NotFound { .. }) => {
            let message = error.render(false);
            super::emit_json(&serde_json::json!({ "ok": false, "package": package, "error": message.trim_end() }));
            Err(super::usage(message))
        }
    }
}
