//! Exact odds of dice read die by die, against a plain total of as many dice: a 10-die
//! keep-highest, a 3-stage chain over 20 attacks, an opposed roll (with and without a forced
//! re-roll), a re-roll of one die; and 20d6, the total `odds` computed before any of these.
//! Each is parsed once and computed on every iteration, as `odds` does.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

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
    for (name, text) in cases {
        let roll = ruleset.parse_roll(text).unwrap();
        assert!(roll.odds_cost() <= servitor::limits::MAX_DICE_WORK, "{text}");
        c.bench_function(name, |b| b.iter(|| black_box(roll.odds().unwrap())));
    }
}

criterion_group!(benches, odds);
criterion_main!(benches);
