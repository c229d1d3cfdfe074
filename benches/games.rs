//! Whole games and single turns, release build: a host's start-up, a whole game of the generic
//! skirmish fixture, whole games of the bundled packages that play (`space-crusade-solo`'s
//! missions, a `solo-heresy` game on a battlefield, `space-hulk-solo`'s missions), and one
//! Alien turn on a busy board. A Space Hulk game should cost no more per turn than a Space
//! Crusade one: compare the two per game over their turns per game, which `sim` prints.

/// The command line's allocator, so the figures are the `servitor` binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, criterion_group, criterion_main};
use servitor::game::{Host, Scenario, Setup};
use std::hint::black_box;
use std::sync::Arc;

fn load(path: &str) -> Arc<servitor::Ruleset> {
    Arc::new(
        servitor::load(path)
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
            .ruleset,
    )
}

fn games(c: &mut Criterion) {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let skirmish = load("tests/games/skirmish");
    c.bench_function("host start-up (engine + API registration)", |b| {
        b.iter(|| black_box(Host::new(&skirmish)))
    });
    let mut host = Host::new(&skirmish);
    let mut seed = 0;
    c.bench_function("whole skirmish game", |b| {
        b.iter(|| {
            seed += 1;
            let setup = Setup {
                game: None,
                mission: "hall-fight".into(),
                seed,
                options: Vec::new(),
            };
            black_box(host.play(&setup).unwrap())
        })
    });

    let solo = load("space-crusade-solo");
    if solo.games.is_empty() {
        return;
    }
    let mut host = Host::new(&solo);
    for mission in ["reactor-strike", "stranded", "purge"] {
        let mut seed = 0;
        c.bench_function(&format!("whole space-crusade-solo game, {mission}"), |b| {
            b.iter(|| {
                seed += 1;
                let setup = Setup {
                    game: None,
                    mission: mission.into(),
                    seed,
                    options: Vec::new(),
                };
                black_box(host.play(&setup).expect("the game plays"))
            })
        });
    }
    // A game on a battlefield in inches (seed 001): spawning, the Enemy Types, 40K combat.
    let heresy = load("solo-heresy");
    let mut heresy_host = Host::new(&heresy);
    let mut seed = 0;
    c.bench_function("whole solo-heresy game, raid", |b| {
        b.iter(|| {
            seed += 1;
            let setup = Setup {
                game: None,
                mission: "raid".into(),
                seed,
                options: Vec::new(),
            };
            black_box(heresy_host.play(&setup).expect("the game plays"))
        })
    });
    let hulk = load("space-hulk-solo");
    let mut hulk_host = Host::new(&hulk);
    for mission in ["breach-run", "purge-the-nest", "relay-sabotage"] {
        let mut seed = 0;
        c.bench_function(&format!("whole space-hulk-solo game, {mission}"), |b| {
            b.iter(|| {
                seed += 1;
                let setup = Setup {
                    game: None,
                    mission: mission.into(),
                    seed,
                    options: Vec::new(),
                };
                black_box(hulk_host.play(&setup).expect("the game plays"))
            })
        });
    }
    let busy = std::fs::read_to_string("benches/busy-alien-turn.rhai").expect("the busy-board scenario");
    let scenario = Scenario {
        game: None,
        mission: "reactor-strike".into(),
        seed: 1,
        script: busy,
        dice: Vec::new(),
        calls: vec!["alien_turn".into()],
        options: Vec::new(),
        answers: Vec::new(),
    };
    c.bench_function("one Alien turn on a busy board (setup included)", |b| {
        b.iter(|| black_box(host.scenario(&scenario).expect("the busy board plays")))
    });
    let empty = Scenario {
        calls: Vec::new(),
        ..scenario.clone()
    };
    c.bench_function("the busy board's setup alone", |b| {
        b.iter(|| black_box(host.scenario(&empty).expect("the busy board sets up")))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = games
}
criterion_main!(benches);
