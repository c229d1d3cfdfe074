//! 100 000 seeded rolls of every bundled table agree with its exact odds (chi-square at
//! p = 0.001, fixed seed), grouped by the result each roll lands on.

use num_traits::ToPrimitive;
use servitor::dice::Rng;
use servitor::tables::Availability;
use servitor::tables::odds::table_odds;
use servitor::tables::roll::roll_series;
use std::collections::BTreeMap;

mod common;

const ROLLS: usize = 100_000;

/// Upper 0.1 % point of chi-square with `df` degrees of freedom (Wilson–Hilferty).
fn critical(df: f64) -> f64 {
    let z = 3.090_232; // standard normal, upper 0.1 %
    let h = 2.0 / (9.0 * df);
    df * (1.0 - h + z * h.sqrt()).powi(3)
}

#[test]
fn sampled_rolls_agree_with_exact_odds() {
    let mut checked = 0;
    for package in common::bundled_packages() {
        let ruleset = common::load(&package);
        for table in ruleset.tables.values() {
            let avail = Availability::default();
            let mut expected: BTreeMap<String, f64> = BTreeMap::new();
            for (o, p) in table_odds(&ruleset.tables, table, 1, &avail).unwrap() {
                let key = o.result.clone().unwrap_or_else(|| "-".into());
                *expected.entry(key).or_default() += p.numer().to_f64().unwrap() / p.denom().to_f64().unwrap();
            }
            let mut rng = Rng::seeded(20261121);
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            for _ in 0..ROLLS {
                let roll = roll_series(&ruleset.tables, table, 1, &avail, &mut rng)
                    .unwrap()
                    .remove(0);
                let key = roll.outcome.map_or_else(|| "-".to_string(), |o| o.result);
                *seen.entry(key).or_default() += 1;
            }
            for key in seen.keys() {
                assert!(
                    expected.contains_key(key),
                    "{package}/{}: rolled {key}, which the odds say is impossible",
                    table.id
                );
            }
            if expected.len() < 2 {
                continue;
            }
            let chi: f64 = expected
                .iter()
                .map(|(k, p)| {
                    let e = p * ROLLS as f64;
                    let o = *seen.get(k).unwrap_or(&0) as f64;
                    (o - e).powi(2) / e
                })
                .sum();
            let limit = critical((expected.len() - 1) as f64);
            assert!(
                chi < limit,
                "{package}/{}: chi-square {chi:.2} over {limit:.2}",
                table.id
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} tables checked");
}
