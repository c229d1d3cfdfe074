//! Board questions on a four-section Space-Crusade-sized mission (24 × 24 squares): line of
//! sight, a whole-board distance field, and every alien finding its nearest target and a step
//! towards it (30 aliens, 15 targets).

use criterion::{Criterion, criterion_group, criterion_main};
use servitor::board::los::line_of_sight;
use servitor::board::moves::{self, Goal, Steps};
use servitor::board::{Grid, Square};
use servitor::dice::Rng;
use std::hint::black_box;

fn floor_squares(grid: &Grid) -> Vec<Square> {
    (0..grid.len())
        .map(|i| grid.square(i))
        .filter(|&s| !grid.is_solid(s))
        .collect()
}

fn boards(c: &mut Criterion) {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let ruleset = servitor::load("space-crusade")
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .ruleset;
    let grid = ruleset.missions["reactor-strike"].grid.clone();
    let floor = floor_squares(&grid);
    let mut rng = Rng::seeded(7);
    let pick = |rng: &mut Rng, n: usize| -> Vec<Square> {
        let mut all = floor.clone();
        rng.shuffle(&mut all);
        all.truncate(n);
        all
    };
    let pairs: Vec<(Square, Square)> = (0..256)
        .map(|_| {
            let v = pick(&mut rng, 2);
            (v[0], v[1])
        })
        .collect();
    c.bench_function("line of sight, 256 random pairs", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter(|(a, z)| line_of_sight(&grid, *a, *z, &|_| false).visible)
                .count()
        })
    });
    let targets = pick(&mut rng, 15);
    c.bench_function("distance field over four 12x12 sections", |b| {
        b.iter(|| moves::distance_field(&grid, black_box(&targets), Steps::Eight))
    });
    let aliens = pick(&mut rng, 30);
    let occupied: Vec<Square> = aliens.iter().chain(&targets).copied().collect();
    c.bench_function("30 aliens: nearest of 15 targets and a 5-square move towards it", |b| {
        b.iter(|| {
            let field = moves::distance_field(&grid, &targets, Steps::Eight);
            let mut moved = 0;
            for &alien in &aliens {
                let _nearest = field[grid.index(alien)];
                let blocked = |s: Square| occupied.contains(&s);
                let mover = moves::Mover {
                    from: alien,
                    max: 5,
                    steps: Steps::Eight,
                    goal: Goal::Towards,
                    occupied: &blocked,
                };
                if moves::move_by_field(&grid, &mover, &field, &mut rng).is_some() {
                    moved += 1;
                }
            }
            moved
        })
    });
}

criterion_group!(benches, boards);
criterion_main!(benches);
