//! `servitor check <package>`: load and check; print every diagnostic, or a summary.

use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// Package folder or bare name
    package: String,
}

pub fn run(args: CheckArgs) -> Result<(), super::Failure> {
    let loaded = super::load(&args.package)?;
    let r = &loaded.ruleset;
    let records: usize = r.records.values().map(|m| m.len()).sum();
    let chain: Vec<&str> = r.packages.iter().map(|p| p.name.as_str()).collect();
    super::emitln(&format!(
        "ok: {} ({}) — {} tables, {} dice, {} records, {} pools, {} constants, {} procedures, {} boards, {} missions, {} battlefields",
        r.name(),
        chain.join(" → "),
        r.tables.len(),
        r.dice.len(),
        records,
        r.pools.len(),
        r.consts.len(),
        r.procedures.len(),
        r.boards.len(),
        r.missions.len(),
        r.battlefields.len(),
    ));
    Ok(())
}
