//! Exact odds against hand-computed fractions: `tests/odds/<package>.odds` lists, per table
//! (and per availability / series flags), the complete distribution worked out by hand.

use servitor::tables::Availability;
use servitor::tables::odds::table_odds;
use std::collections::BTreeMap;

mod common;

struct Section {
    line: usize,
    table: String,
    times: usize,
    avail: Availability,
    expected: BTreeMap<String, String>,
}

fn parse(text: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix("==") {
            let mut words = header.split_whitespace();
            let table = words.next().expect("a table id after ==").to_string();
            let mut section = Section {
                line: i + 1,
                table,
                times: 1,
                avail: Availability::default(),
                expected: BTreeMap::new(),
            };
            while let Some(flag) = words.next() {
                let value = words
                    .next()
                    .unwrap_or_else(|| panic!("line {}: {flag} needs a value", i + 1));
                match flag {
                    "--times" => section.times = value.parse().unwrap(),
                    "--unavailable" => section.avail.unavailable = value.split(',').map(str::to_string).collect(),
                    "--available" => section.avail.available = Some(value.split(',').map(str::to_string).collect()),
                    other => panic!("line {}: unknown flag {other}", i + 1),
                }
            }
            sections.push(section);
        } else {
            let (outcome, fraction) = line
                .rsplit_once('=')
                .unwrap_or_else(|| panic!("line {}: expected `outcome = n/d`", i + 1));
            let section = sections
                .last_mut()
                .unwrap_or_else(|| panic!("line {}: outcome before any == header", i + 1));
            let fraction = fraction.trim();
            let fraction = if fraction.contains('/') {
                fraction.to_string()
            } else {
                format!("{fraction}/1")
            };
            section
                .expected
                .insert(outcome.trim().to_string(), fraction.trim().to_string());
        }
    }
    sections
}

#[test]
fn odds_match_hand_computation() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/odds");
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let package = path.file_stem().unwrap().to_string_lossy().to_string();
        let ruleset = servitor::load(&package)
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
            .ruleset;
        for section in parse(&std::fs::read_to_string(&path).unwrap()) {
            let Some(table) = ruleset.tables.get(&section.table) else {
                failures.push(format!(
                    "{}:{}: no table {}",
                    path.display(),
                    section.line,
                    section.table
                ));
                continue;
            };
            let odds = table_odds(&ruleset.tables, table, section.times, &section.avail).unwrap();
            let actual: BTreeMap<String, String> = odds
                .iter()
                .map(|(o, p)| {
                    let p = if *p.denom() == 1.into() {
                        format!("{}/1", p.numer())
                    } else {
                        p.to_string()
                    };
                    (o.label.clone(), p)
                })
                .collect();
            let expected: BTreeMap<String, String> = section
                .expected
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if v.ends_with("/1") || v.contains('/') {
                            v.clone()
                        } else {
                            format!("{v}/1")
                        },
                    )
                })
                .collect();
            if actual != expected {
                failures.push(format!(
                    "{}:{}: {} (times {}):\n  expected {expected:?}\n  computed {actual:?}",
                    path.display(),
                    section.line,
                    section.table,
                    section.times
                ));
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} sections differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 0);
}

#[test]
fn every_distribution_sums_to_one() {
    for package in common::bundled_packages() {
        let ruleset = common::load(&package);
        for table in ruleset.tables.values() {
            let odds = table_odds(&ruleset.tables, table, 1, &Availability::default()).unwrap();
            let total = odds.iter().fold(servitor::dice::zero(), |acc, (_, p)| acc + p);
            assert_eq!(total.to_string(), "1", "{package}/{}", table.id);
        }
    }
}
