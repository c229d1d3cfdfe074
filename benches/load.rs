//! Loading and checking every bundled package (parse, merge, lower, table coverage, script
//! compilation): the cost a user pays on every command at the table.

use criterion::{Criterion, criterion_group, criterion_main};
use servitor::dice::Rng;
use servitor::tables::Availability;
use servitor::tables::roll::roll_series;

const PACKAGES: [&str; 6] = [
    "space-crusade",
    "space-crusade-solo",
    "starquest-solitaire",
    "space-hulk",
    "space-hulk-solo",
    "solo-heresy",
];

fn load_all(c: &mut Criterion) {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    c.bench_function("load and check all bundled packages", |b| {
        b.iter(|| {
            for p in PACKAGES {
                assert!(servitor::load(p).is_ok());
            }
        })
    });
    let ruleset = servitor::load("space-crusade-solo").ok().unwrap().ruleset;
    let table = &ruleset.tables["reinforcements"];
    let mut rng = Rng::seeded(1);
    let avail = Availability::default();
    c.bench_function("roll the 2d6 reinforcements table", |b| {
        b.iter(|| roll_series(&ruleset.tables, table, 1, &avail, &mut rng))
    });
}

criterion_group!(benches, load_all);
criterion_main!(benches);
