//! Exact odds of dice read die by die, against a plain total of as many dice: a 10-die
//! keep-highest, a 3-stage chain over 20 attacks, an opposed roll (with and without a forced
//! re-roll), a re-roll of one die; and 20d6, the total `odds` computed before any of these.
//! Each is parsed once and computed on every iteration, as `odds` does.

use criterion::{Criterion, criterion_group, criterion_main};
use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::BTreeMap;
use std::hint::black_box;

/// 20d6 as `odds` computed it before dice were read die by die (the convolution of
/// `DiceExpr::distribution` at main's commit feb80e7, big integers throughout): the yardstick.
fn twenty_d6_before() -> BTreeMap<i64, BigRational> {
    let mut counts: Vec<BigUint> = vec![BigUint::from(1u8)];
    let mut denominator = BigUint::from(1u8);
    for _ in 0..20 {
        let mut next = vec![BigUint::default(); counts.len() + 5];
        for (i, c) in counts.iter().enumerate() {
            if c.is_zero() {
                continue;
            }
            for v in 0..6usize {
                next[i + v] += c * 1u32;
            }
        }
        counts = next;
        denominator *= 6u32;
    }
    let denominator = BigInt::from(denominator);
    counts
        .into_iter()
        .enumerate()
        .filter(|(_, c)| !c.is_zero())
        .map(|(i, c)| (20 + i as i64, BigRational::new(BigInt::from(c), denominator.clone())))
        .collect()
}

fn odds(c: &mut Criterion) {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let ruleset = servitor::load("space-hulk").ok().unwrap().ruleset;
    let cases = [
        ("20d6 total", "20d6"),
        ("highest 3 of 10d6", "highest 3 of 10d6"),
        ("highest of 10d6", "highest of 10d6"),
        (
            "chain over 20 attacks: 3+, 4+, fail 3+",
            "count 3+ in 20d6 then 4+ then fail 3+",
        ),
        (
            "chain over 20 attacks, a stage rolled again when it fails",
            "count 3+ in 20d6 then 4+ reroll failed then fail 3+",
        ),
        (
            "opposed: highest of 3d6 vs highest of d6",
            "highest of 3d6 vs highest of d6",
        ),
        (
            "opposed with a forced re-roll (parry)",
            "highest of 3d6 vs highest of d6 + 1 second forces reroll highest",
        ),
        (
            "reroll one failed die of 10d6, count 4+",
            "count 4+ in 10d6 reroll one fail 4+",
        ),
        ("double in 10d6", "double in 10d6"),
    ];
    c.bench_function("20d6 total, before (big integers)", |b| {
        b.iter(|| black_box(twenty_d6_before()))
    });
    for (name, text) in cases {
        let roll = ruleset.parse_roll(text).unwrap();
        assert!(roll.odds_cost() <= servitor::limits::MAX_DICE_WORK, "{text}");
        c.bench_function(name, |b| b.iter(|| black_box(roll.odds().unwrap())));
    }
}

criterion_group!(benches, odds);
criterion_main!(benches);
