//! Whole games and single turns, release build: a host's start-up, a whole game of the generic
//! skirmish fixture, a whole game of every mission of every bundled package that plays (one
//! group a package, one benchmark a mission: `cargo bench --bench games -- "space-hulk"`), and
//! one Alien turn on a busy board; and `sim` itself, 64 games a run on 2 jobs, for each Space
//! Crusade mission (issue 16's measure: games per second on this 2-core machine). Every game
//! group reports its throughput in games a second (`elem/s`). Per turn: divide by the turns
//! per game `sim` prints.

/// The command line's allocator, so the figures are the `servitor` binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

    // Whole games of every mission of every bundled package that plays one (its `game` item):
    // Space Crusade's solo Alien, StarQuest's, Space Hulk's Genestealers, and a Solo Heresy
    // enemy on a battlefield in inches. Each game a new seed, as `sim` plays them.
    for package in [
        "space-crusade-solo",
        "starquest-solitaire",
        "space-hulk-solo",
        "solo-heresy",
    ] {
        let ruleset = load(package);
        let mut host = Host::new(&ruleset);
        // Mapped missions, and a battlefield package's data-only ones (`mission` records).
        let missions: Vec<String> = ruleset.playable_missions().into_iter().map(str::to_string).collect();
        let mut group = c.benchmark_group(format!("whole {package} game"));
        group.throughput(Throughput::Elements(1));
        for mission in missions {
            let mut seed = 0;
            group.bench_function(mission.as_str(), |b| {
                b.iter(|| {
                    seed += 1;
                    let setup = Setup {
                        game: None,
                        mission: mission.clone(),
                        seed,
                        options: Vec::new(),
                    };
                    black_box(host.play(&setup).expect("the game plays"))
                })
            });
        }
        group.finish();
    }
    let solo = load("space-crusade-solo");
    // `sim` as a user runs it: 64 games a run on 2 jobs (hosts started inside, as `sim`
    // starts them), seeds moving on run by run.
    const SIM_GAMES: u64 = 64;
    let mut group = c.benchmark_group("sim space-crusade-solo, 2 jobs");
    group.throughput(Throughput::Elements(SIM_GAMES));
    for mission in solo.playable_missions() {
        let mut seed = 0;
        group.bench_function(mission, |b| {
            b.iter(|| {
                seed += 1;
                let setup = servitor::sim::SimSetup {
                    game: None,
                    mission: mission.to_string(),
                    seed,
                    games: SIM_GAMES,
                    jobs: 2,
                    options: Vec::new(),
                };
                let report = servitor::sim::run(&solo, &setup, &|| {}, &std::sync::atomic::AtomicBool::new(false))
                    .expect("the sim runs");
                black_box(report)
            })
        });
    }
    group.finish();
    let mut host = Host::new(&solo);
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
        named: Vec::new(),
        turn: 1,
        explain: false,
        from_setup: false,
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
