//! Lowering `table` items: rows, the `unavailable` policy, coverage of every possible total,
//! and follow-ups (`then`) that must name tables and never loop.

use super::Lower;
use crate::diagnostic::{Diagnostic, Report, did_you_mean, thousands};
use crate::limits::*;
use crate::package::merge::MergedItem;
use crate::ruleset::*;
use crate::source::Span;
use crate::syntax::ast::{self, Entry};
use crate::tables::{FollowUp, Policy, Row, Table};
use indexmap::IndexMap;

impl Lower<'_> {
    pub(super) fn table(&mut self, item: &MergedItem) -> Option<Table> {
        let known = ["dice", "unavailable", "duplicates", "source", "text", "label"];
        let props = self.props(&item.entries, "a table", &known, &[], true);
        let label = self.label(item, &props);
        let source = self.text(props.get("source"));
        let text = self.text(props.get("text"));
        let unavailable = self.policy(props.get("unavailable"), Policy::Ignore, false);
        let duplicates = self.policy(props.get("duplicates"), Policy::Allow, true);
        let Some(dice_prop) = props.get("dice") else {
            self.err(
                Diagnostic::error(
                    item.id.span,
                    format!("table `{}` does not say what to roll", item.id.text),
                    "no `dice`",
                )
                .with_help("add `dice 2d6` (or any dice expression)"),
            );
            return None;
        };
        let dice_value = self.one(dice_prop, "dice")?;
        let dice = self.dice_with_odds(dice_value)?;
        if let Some(die) = dice.symbolic_faces() {
            self.err(
                Diagnostic::error(
                    dice_value.span,
                    format!("die `{die}` has faces without numbers"),
                    "cannot give a total",
                )
                .with_help("a table needs a total: give every face a number, e.g. `arrow(90)`"),
            );
            return None;
        }
        let mut rows: Vec<Row> = item
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Row(r) => Some(r),
                _ => None,
            })
            .filter_map(|r| self.row(r))
            .collect();
        rows.sort_by_key(|r| r.lo);
        let table = Table {
            id: item.id.text.clone(),
            label,
            dice,
            unavailable,
            duplicates,
            rows,
            source,
            text,
            span: item.span,
        };
        self.coverage(&table, dice_value.span, &item.removed);
        Some(table)
    }

    pub(super) fn policy(&mut self, prop: Option<&ast::Property>, default: Policy, allow: bool) -> Policy {
        let Some(prop) = prop else { return default };
        let Some((name, span)) = self.name(prop) else {
            return default;
        };
        let names: Vec<&str> = Policy::NAMES
            .iter()
            .copied()
            .filter(|n| allow || *n != "allow")
            .collect();
        match Policy::parse(&name).filter(|p| allow || *p != Policy::Allow) {
            Some(p) => p,
            None => {
                self.err(
                    Diagnostic::error(
                        span,
                        format!("`{name}` is not a policy for `{}`", prop.key.text),
                        "unknown policy",
                    )
                    .with_help(
                        did_you_mean(&name, names.iter().copied())
                            .unwrap_or_else(|| format!("one of: {}", names.join(", "))),
                    ),
                );
                default
            }
        }
    }

    pub(super) fn row(&mut self, row: &ast::Row) -> Option<Row> {
        let entries: &[Entry] = row.body.as_ref().map_or(&[], |b| &b.entries);
        let known = ["text", "amount", "then", "fields", "source", "label"];
        let props = self.props(entries, "a row", &known, &["then"], false);
        let amount = match props.get("amount") {
            Some(p) => Some(self.one(p, "dice").and_then(|v| self.dice_with_odds(v))?),
            None => None,
        };
        let mut then = Vec::new();
        for p in props.all("then") {
            let table = p.values.first().and_then(|v| v.as_name());
            let times = match p.values.as_slice() {
                [_] => Some(None),
                [_, word, count] if word.as_name() == Some("times") => self.dice_with_odds(count).map(Some),
                _ => None,
            };
            match (table, times) {
                (Some(table), Some(times)) => then.push(FollowUp {
                    table: table.to_string(),
                    times,
                    span: p.values[0].span,
                }),
                _ => self.err(
                    Diagnostic::error(p.span, "`then` takes a table and an optional count", "not understood")
                        .with_help("write `then other-table` or `then other-table times 1d6`"),
                ),
            }
        }
        let fields = match props.get("fields") {
            Some(p) => match self.one(p, "{ … }").map(|v| (v.span, self.untyped(v))) {
                Some((_, Some(Value::Map(m)))) => m,
                Some((span, Some(_))) => {
                    self.err(Diagnostic::error(
                        span,
                        "`fields` takes a block `{ name value; … }`",
                        "not a block",
                    ));
                    IndexMap::new()
                }
                _ => IndexMap::new(),
            },
            None => IndexMap::new(),
        };
        Some(Row {
            lo: row.key.lo,
            hi: row.key.hi,
            result: row.result.text.clone(),
            label: self
                .text(props.get("label"))
                .or_else(|| row.label.as_ref().map(|l| l.text.clone())),
            text: self.text(props.get("text")),
            amount,
            then,
            fields,
            source: self.text(props.get("source")),
            span: row.span,
        })
    }

    /// Every possible total must land in exactly one row, and every row must be reachable.
    /// A gap that a later package's `remove <key>` (`removed`) left is reported at that
    /// `remove`, with the table as a note.
    pub(super) fn coverage(&mut self, table: &Table, dice_span: Span, removed: &[(i64, i64, Span)]) {
        let totals: Vec<i64> = table.dice.distribution().weights.into_keys().collect();
        let (lo, hi) = (
            totals.first().copied().unwrap_or(0),
            totals.last().copied().unwrap_or(0),
        );
        let range = if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
        // Rows are sorted by their low end; one sweep finds the gaps and the overlaps, so a
        // table of many rows over many totals costs (rows + totals) × log, not their product.
        let rows = &table.rows;
        let first_total_in = |lo: i64, hi: i64| -> Option<i64> {
            let at = totals.partition_point(|&t| t < lo);
            totals.get(at).copied().filter(|&t| t <= hi)
        };
        let mut gaps = Vec::new();
        let mut next = 0; // rows[..next] start at or below the total looked at
        let mut reach: Option<usize> = None; // of those, the row reaching highest
        for &t in &totals {
            while next < rows.len() && rows[next].lo <= t {
                if reach.is_none_or(|r| rows[next].hi > rows[r].hi) {
                    reach = Some(next);
                }
                next += 1;
            }
            if reach.is_none_or(|r| rows[r].hi < t) {
                gaps.push(t);
            }
        }
        let mut widest: Option<usize> = None;
        for (i, b) in rows.iter().enumerate() {
            if let Some(w) = widest {
                let a = &rows[w];
                if let Some(t) = first_total_in(b.lo, a.hi.min(b.hi)) {
                    self.err(
                        Diagnostic::error(
                            b.span,
                            format!("rows {} and {} both cover {t}", a.key_text(), b.key_text()),
                            "overlaps an earlier row",
                        )
                        .with_note(a.span, "this row covers it too")
                        .with_help("every roll must land in exactly one row: narrow one of the ranges"),
                    );
                }
            }
            if widest.is_none_or(|w| b.hi > rows[w].hi) {
                widest = Some(i);
            }
        }
        // A gap inside a later package's `remove` is that line's doing: reported there (one
        // diagnostic per `remove`), and any other gap at the table's dice.
        let mut by_removal: Vec<(Span, Vec<i64>)> = Vec::new();
        let mut elsewhere = Vec::new();
        for g in gaps {
            match removed.iter().rev().find(|(lo, hi, _)| *lo <= g && g <= *hi) {
                Some(&(_, _, at)) => match by_removal.iter_mut().find(|(s, _)| *s == at) {
                    Some((_, here)) => here.push(g),
                    None => by_removal.push((at, vec![g])),
                },
                None => elsewhere.push(g),
            }
        }
        let missing = |gaps: &[i64]| {
            let runs = runs_of(gaps, &totals);
            let plural = if gaps.len() == 1 { "" } else { "s" };
            (
                format!("table `{}` has no row for the roll{plural} {runs}", table.id),
                format!("add rows for {runs}, or widen a neighbouring row's range"),
            )
        };
        for (at, gaps) in &by_removal {
            let (message, help) = missing(gaps);
            self.err(
                Diagnostic::error(*at, message, "removed here, and no row takes its place")
                    .with_note(dice_span, format!("{} rolls {range}", table.dice))
                    .with_help(format!("{help} in this `override`, or drop this `remove`")),
            );
        }
        if !elsewhere.is_empty() {
            let (message, help) = missing(&elsewhere);
            self.err(
                Diagnostic::error(dice_span, message, format!("{} rolls {range}", table.dice))
                    .with_note(table.span, "in this table")
                    .with_help(help),
            );
        }
        for row in &table.rows {
            if first_total_in(row.lo, row.hi).is_none() {
                self.err(
                    Diagnostic::error(
                        row.span,
                        format!("row {} can never come up", row.key_text()),
                        format!("{} rolls {range}", table.dice),
                    )
                    .with_help("remove the row or change the table's `dice`"),
                );
            }
        }
    }
}

/// "7, 9-10": gaps grouped into runs of consecutive possible totals.
pub(super) fn runs_of(gaps: &[i64], totals: &[i64]) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    let position = |t: i64| totals.binary_search(&t).unwrap_or(0);
    for &g in gaps {
        match runs.last_mut() {
            Some((_, hi)) if position(*hi) + 1 == position(g) => *hi = g,
            _ => runs.push((g, g)),
        }
    }
    runs.iter()
        .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `then` must name a table, and follow-ups may not loop back.
pub(super) fn check_follow_ups(ruleset: &Ruleset, report: &mut Report) {
    for table in ruleset.tables.values() {
        for row in &table.rows {
            for then in &row.then {
                if !ruleset.tables.contains_key(&then.table) {
                    report.push(
                        Diagnostic::error(then.span, format!("no table `{}`", then.table), "not a table")
                            .with_help_opt(did_you_mean(&then.table, ruleset.tables.keys().map(String::as_str))),
                    );
                }
            }
        }
    }
    // Without recursion (a chain of thousands of tables must not exhaust the stack): peel
    // off tables whose follow-ups are all settled, each time working out how deep its
    // follow-ups go and how many rolls one roll on it may cause. What is left goes round in a
    // circle.
    let tables = &ruleset.tables;
    let index = |id: &str| tables.get_index_of(id);
    let edges: Vec<Vec<usize>> = tables
        .values()
        .map(|t| {
            t.rows
                .iter()
                .flat_map(|r| &r.then)
                .filter_map(|then| index(&then.table))
                .collect()
        })
        .collect();
    let mut waiting: Vec<usize> = edges.iter().map(Vec::len).collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); tables.len()];
    for (from, to) in edges.iter().enumerate() {
        for &t in to {
            callers[t].push(from);
        }
    }
    let mut ready: Vec<usize> = (0..tables.len()).filter(|&i| waiting[i] == 0).collect();
    // For each settled table: follow-up depth, table rolls per roll (saturating), and the
    // `then` that makes either largest.
    type Settled = (usize, Option<Span>, u64, Option<Span>);
    let mut settled: Vec<Option<Settled>> = vec![None; tables.len()];
    while let Some(i) = ready.pop() {
        let table = &tables[i];
        let (mut depth, mut deepest, mut rolls, mut most) = (1usize, None, 1u64, None);
        for row in &table.rows {
            let mut row_rolls: u64 = 1;
            for then in &row.then {
                let Some((d, _, r, _)) = index(&then.table).and_then(|j| settled[j]) else {
                    continue;
                };
                let times = then
                    .times
                    .as_ref()
                    .map_or(1, |t| t.bounds().map_or(u64::MAX, |(_, hi)| hi.max(0) as u64));
                row_rolls = row_rolls.saturating_add(times.saturating_mul(r));
                if d + 1 > depth {
                    depth = d + 1;
                    deepest = Some(then.span);
                }
                if row_rolls > rolls {
                    rolls = row_rolls;
                    most = Some(then.span);
                }
            }
        }
        settled[i] = Some((depth, deepest, rolls, most));
        for &c in &callers[i] {
            // One decrement per edge: a table listed twice waits twice.
            waiting[c] -= edges[c].iter().filter(|&&t| t == i).count().min(waiting[c]);
            if waiting[c] == 0 && settled[c].is_none() && !ready.contains(&c) {
                ready.push(c);
            }
        }
    }
    if let Some(start) = (0..tables.len()).find(|&i| settled[i].is_none()) {
        // Walk unsettled follow-ups until a table comes round again.
        let mut path = vec![start];
        loop {
            let here = *path.last().expect("the path starts with a table");
            let (next, span) = tables[here]
                .rows
                .iter()
                .flat_map(|r| &r.then)
                .find_map(|then| {
                    index(&then.table)
                        .filter(|&j| settled[j].is_none())
                        .map(|j| (j, then.span))
                })
                .expect("an unsettled table waits on another unsettled table");
            if let Some(at) = path.iter().position(|&p| p == next) {
                let mut cycle: Vec<&str> = path[at..].iter().map(|&i| tables[i].id.as_str()).collect();
                cycle.push(&tables[next].id);
                report.push(
                    Diagnostic::error(
                        span,
                        format!("follow-up rolls go round in a circle: {}", cycle.join(" → ")),
                        "loops back",
                    )
                    .with_help("a table may not lead back to itself through `then`"),
                );
                return;
            }
            path.push(next);
        }
    }
    for (i, table) in tables.values().enumerate() {
        let Some((depth, deepest, rolls, most)) = settled[i] else {
            continue;
        };
        if let Some(span) = deepest
            && depth > MAX_FOLLOW_UP_DEPTH
        {
            report.push(
                Diagnostic::error(
                    span,
                    format!("a roll on `{}` leads to follow-ups {depth} tables deep", table.id),
                    "too deep",
                )
                .with_help(format!(
                    "follow-ups go at most {MAX_FOLLOW_UP_DEPTH} tables deep (`MAX_FOLLOW_UP_DEPTH`, see \"Limits\" in docs/limits.md)"
                )),
            );
            return;
        }
        if let Some(span) = most
            && rolls > MAX_TABLE_ROLLS
        {
            let shown = if rolls == u64::MAX {
                "too many".to_string()
            } else {
                thousands(rolls)
            };
            report.push(
                Diagnostic::error(
                    span,
                    format!("one roll on `{}` may cause {shown} table rolls with its follow-ups", table.id),
                    "too many rolls",
                )
                .with_help(format!(
                    "one roll with all its follow-ups rolls at most {} tables (`MAX_TABLE_ROLLS`, see \"Limits\" in docs/limits.md): roll fewer `times`",
                    thousands(MAX_TABLE_ROLLS)
                )),
            );
            return;
        }
    }
}
