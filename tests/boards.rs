//! Boards: the rule book's worked examples (seed 002), line-of-sight and movement properties,
//! and the pictures. Fixture boards live in tests/boards/.

use servitor::board::los::{from_footprint, line_of_sight};
use servitor::board::moves::{self, Goal, Steps, UNREACHABLE};
use servitor::board::{Grid, Mission, Square, area, facing};
use servitor::dice::Rng;

fn examples() -> servitor::Ruleset {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    servitor::load("tests/boards/worked-examples.rules")
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .ruleset
}

fn sq(text: &str) -> Square {
    Square::parse(text).unwrap()
}

fn names(list: &[Square]) -> Vec<String> {
    list.iter().map(Square::to_string).collect()
}

#[test]
fn plasma_gun_three_lines() {
    let r = examples();
    let m = &r.missions["plasma"];
    let gun = sq("1,4");
    // Upwards: three squares.
    assert_eq!(
        names(&area::line(&m.grid, gun, 0, -1, usize::MAX)),
        ["1,3", "1,2", "1,1"]
    );
    // Diagonally: one square, then the corner of the room stops the shot.
    assert_eq!(names(&area::line(&m.grid, gun, 1, -1, usize::MAX)), ["2,3"]);
    // Along the row: every square, through both aliens (A on 4,4 and B on 6,4).
    let row = area::line(&m.grid, gun, 1, 0, usize::MAX);
    assert_eq!(names(&row), ["2,4", "3,4", "4,4", "5,4", "6,4", "7,4"]);
    // Off the board: nothing.
    assert!(area::line(&m.grid, gun, -1, 0, usize::MAX).is_empty());
}

#[test]
fn missile_launcher_blast_stops_at_the_wall() {
    let r = examples();
    let m = &r.missions["blast"];
    let mut hit = names(&area::blast(&m.grid, sq("2,2")));
    assert_eq!(
        hit.remove(0),
        "2,2",
        "the target square comes first (hit with both dice)"
    );
    hit.sort();
    // 3 points on every adjacent square except 1,1 and 2,1, beyond the wall.
    assert_eq!(hit, ["1,2", "1,3", "2,3", "3,1", "3,2", "3,3"]);
}

#[test]
fn dreadnought_moves_straight_and_sees_from_any_square() {
    let r = examples();
    let m = &r.missions["dreadnought"];
    let walker = &m.pieces[0];
    assert_eq!((walker.width, walker.height), (2, 2));
    // Two squares down, a turn, two squares right: four moves, never diagonal.
    assert_eq!(moves::footprint_distance(&m.grid, walker.at, 2, 2, sq("3,3")), Some(4));
    let end: Vec<Square> = vec![sq("3,3"), sq("4,3"), sq("3,4"), sq("4,4")];
    insta::assert_snapshot!(visibility_map(m, &end));
}

/// `D` the piece, `.` seen from at least one of its squares, `X` not seen.
fn visibility_map(m: &Mission, footprint: &[Square]) -> String {
    let mut out = String::new();
    for y in 0..m.grid.height {
        for x in 0..m.grid.width {
            let s = Square::new(x, y);
            out.push(if footprint.contains(&s) {
                'D'
            } else if from_footprint(&m.grid, footprint, s, &|_| false).is_some() {
                '.'
            } else {
                'X'
            });
        }
        out.push('\n');
    }
    out
}

#[test]
fn sections_join_where_both_are_open() {
    let r = examples();
    let g = &r.missions["joined"].grid;
    assert!(g.can_step(sq("2,1"), 1, 0), "both halves leave row 1 open");
    assert!(!g.can_step(sq("2,2"), 1, 0), "row 2 is walled on both sides");
    assert_eq!(g.section_of(sq("1,1")), Some("left-half"));
    assert_eq!(g.section_of(sq("4,2")), Some("right-half"));
}

#[test]
fn diagonally_adjacent_squares_never_see_each_other() {
    let r = examples();
    let g = &r.missions["blast"].grid;
    assert!(!line_of_sight(g, sq("2,2"), sq("3,3"), &|_| false).visible);
    assert!(line_of_sight(g, sq("1,3"), sq("3,3"), &|_| false).visible);
}

/// A game may declare its own line of sight (issue 35, item 3): diagonal neighbours that see
/// each other, the corner between them judged as any line's; closed doors that do not block.
#[test]
fn a_declared_rule_lets_diagonal_neighbours_see_and_doors_pass() {
    use servitor::board::los::{LosRule, line_of_sight_by};
    let r = examples();
    let g = &r.missions["blast"].grid;
    let see = LosRule {
        diagonals: true,
        doors_block: true,
    };
    assert!(line_of_sight_by(see, g, sq("2,2"), sq("3,3"), &|_| false).visible);
    assert!(!line_of_sight_by(LosRule::default(), g, sq("2,2"), sq("3,3"), &|_| false).visible);
    // Both ways round the corner taken by models: blocked, as any line through a corner.
    let crowded = |s: Square| s == sq("3,2") || s == sq("2,3");
    assert!(!line_of_sight_by(see, g, sq("2,2"), sq("3,3"), &crowded).visible);
    // A closed door across a line: blocks by default, not where doors pass.
    let shut = tiny("\n+-+-+-+\n|.D. .|\n+ + + +\n|. . .|\n+ + + +\n|. . .|\n+-+-+-+\n");
    assert!(!line_of_sight(&shut, sq("1,1"), sq("3,1"), &|_| false).visible);
    let pass = LosRule {
        diagonals: false,
        doors_block: false,
    };
    assert!(line_of_sight_by(pass, &shut, sq("1,1"), sq("3,1"), &|_| false).visible);
}

#[test]
fn pieces_block_firing_but_not_revealing() {
    let r = examples();
    let g = &r.missions["plasma"].grid;
    let alien_a = sq("4,4");
    assert!(!line_of_sight(g, sq("1,4"), sq("6,4"), &|s| s == alien_a).visible);
    assert!(line_of_sight(g, sq("1,4"), sq("6,4"), &|_| false).visible);
}

/// A 3 × 3 board with walls drawn by `map`, for the corner rule.
fn tiny(map: &str) -> Grid {
    let text = servitor::board::map::MapText {
        text: map,
        file: servitor::source::FileId(0),
        start: 0,
    };
    servitor::board::map::read(&text, &Default::default()).unwrap_or_else(|e| panic!("{}", e[0].message))
}

#[test]
fn a_line_through_a_corner_passes_if_either_way_round_is_open() {
    // 1,1 → 3,3 passes exactly through the corners at the middle square's corners.
    let open_one_side = tiny("\n+-+-+-+\n|. .|.|\n+ +-+ +\n|. . .|\n+-+ + +\n|. . .|\n+-+-+-+\n");
    assert!(line_of_sight(&open_one_side, sq("1,1"), sq("3,3"), &|_| false).visible);
    // Block both ways round the first corner: the walls right of 1,1 and below 1,1.
    let both_blocked = tiny("\n+-+-+-+\n|.|. .|\n+-+ + +\n|. . .|\n+ + + +\n|. . .|\n+-+-+-+\n");
    let sight = line_of_sight(&both_blocked, sq("1,1"), sq("3,3"), &|_| false);
    assert!(!sight.visible);
    assert_eq!(sight.blocked_at.unwrap().1, "both ways round the corner are blocked");
}

/// Random walls and rock on a 10 × 10 grid, from a seed.
fn random_grid(seed: u64) -> Grid {
    let mut rng = Rng::seeded(seed);
    let mut lines = vec![String::from("+-+-+-+-+-+-+-+-+-+-+")];
    for _ in 0..10 {
        let mut cells = String::from("|");
        for x in 0..10 {
            cells.push(if rng.below(8) == 0 { '#' } else { '.' });
            let wall = x == 9 || rng.below(5) == 0;
            cells.push(if wall { '|' } else { ' ' });
        }
        lines.push(cells);
        let mut edges = String::from("+");
        for _ in 0..10 {
            edges.push(if rng.below(5) == 0 { '-' } else { ' ' });
            edges.push('+');
        }
        lines.push(edges);
    }
    *lines.last_mut().unwrap() = "+-+-+-+-+-+-+-+-+-+-+".into();
    tiny(&lines.join("\n"))
}

#[test]
fn line_of_sight_is_symmetric_when_walls_are_the_only_blockers() {
    for seed in 0..40 {
        let g = random_grid(seed);
        for a in 0..g.len() {
            for b in (a + 1..g.len()).step_by(7) {
                let (sa, sb) = (g.square(a), g.square(b));
                let ab = line_of_sight(&g, sa, sb, &|_| false).visible;
                let ba = line_of_sight(&g, sb, sa, &|_| false).visible;
                assert_eq!(ab, ba, "seed {seed}: {sa} ↔ {sb}");
            }
        }
    }
}

#[test]
fn a_path_is_never_shorter_than_the_chebyshev_distance() {
    for seed in 0..40 {
        let g = random_grid(seed);
        let from = (0..g.len()).map(|i| g.square(i)).find(|&s| !g.is_solid(s)).unwrap();
        let field = moves::distance_field(&g, &[from], Steps::Eight);
        let four = moves::distance_field(&g, &[from], Steps::Four);
        for i in 0..g.len() {
            if field[i] != UNREACHABLE {
                assert!(field[i] as i32 >= from.chebyshev(g.square(i)), "seed {seed}");
                assert!(four[i] >= field[i], "seed {seed}: straight steps can only be longer");
            }
        }
    }
}

/// The one walk every move is measured by (`moves::Reach`): with nothing refused it finds the
/// distance field's steps; with squares refused, the way back to every square it reached is a
/// walk of that many steps, each one the walls allow, none onto a refused square; and the end
/// a mover chooses is the best (score, steps) among the squares it may end on.
#[test]
fn a_reach_walks_back_in_its_steps_and_chooses_the_best_end() {
    use servitor::board::DIRECTIONS;
    for seed in 0..40 {
        let g = random_grid(seed);
        let mut rng = Rng::seeded(seed + 1000);
        let free: Vec<Square> = (0..g.len()).map(|i| g.square(i)).filter(|&s| !g.is_solid(s)).collect();
        let from = free[rng.below(free.len() as u64) as usize];
        for steps in [Steps::Eight, Steps::Four] {
            let open = moves::Reach::new(&g, from, steps, UNREACHABLE - 1, |_, _| true);
            assert_eq!(open.dist, moves::distance_field(&g, &[from], steps), "seed {seed}");
            // Every fifth square refused (never the start), and no more than 6 steps.
            let refused = |s: Square| s != from && (s.x * 7 + s.y * 3) % 5 == 0;
            let reach = moves::Reach::new(&g, from, steps, 6, |i, d| {
                let (dx, dy) = DIRECTIONS[d];
                !refused(g.square(i).offset(dx, dy))
            });
            assert_eq!(reach.order[0] as usize, g.index(from));
            for &i in &reach.order {
                let i = i as usize;
                let walk = reach.walk(&g, i);
                assert_eq!(walk.len(), usize::from(reach.dist[i]), "seed {seed}: {}", g.square(i));
                assert!(reach.dist[i] <= 6 && reach.dist[i] >= open.dist[i]);
                let mut at = from;
                for &next in &walk {
                    let (dx, dy) = (next.x - at.x, next.y - at.y);
                    assert!(g.can_step(at, dx, dy) && !refused(next), "seed {seed}: {at} → {next}");
                    assert!(steps == Steps::Eight || dx == 0 || dy == 0);
                    at = next;
                }
                assert_eq!(walk.last().copied().unwrap_or(from), g.square(i));
            }
            // Towards the far corner, never ending on an odd row.
            let target = moves::distance_field(&g, &[Square::new(9, 9)], steps);
            let score = |i: usize| (target[i] != UNREACHABLE).then_some(i32::from(target[i]));
            let may_end = |i: usize| g.square(i).y % 2 == 0;
            let here = score(g.index(from));
            let best = reach
                .order
                .iter()
                .skip(1)
                .map(|&i| i as usize)
                .filter(|&i| may_end(i))
                .filter_map(|i| score(i).map(|sc| (sc, reach.dist[i])))
                .min();
            match reach.choose(&g, here, score, may_end, &mut rng) {
                Some(walk) => {
                    let end = g.index(*walk.last().expect("a chosen move takes a step"));
                    assert!(may_end(end));
                    assert_eq!(Some((score(end).unwrap(), reach.dist[end])), best, "seed {seed}");
                    assert!(here.is_none_or(|h| best.unwrap().0 < h));
                }
                None => assert!(best.is_none_or(|(sc, _)| here.is_some_and(|h| sc >= h)), "seed {seed}"),
            }
        }
    }
}

#[test]
fn moving_towards_ends_closer_and_never_on_an_occupied_square() {
    let r = examples();
    let g = &r.missions["dreadnought"].grid;
    let mut rng = Rng::seeded(9);
    let target = sq("8,6");
    let blocker = sq("3,1");
    for _ in 0..20 {
        let blocked = |s: Square| s == blocker;
        let mover = moves::Mover {
            from: sq("1,1"),
            max: 5,
            steps: Steps::Eight,
            goal: Goal::Towards,
            occupied: &blocked,
        };
        let path = moves::move_towards(g, &mover, &[target], &mut rng).expect("it can get closer");
        let end = *path.last().unwrap();
        assert!(path.len() <= 6 && end != blocker);
        let field = moves::distance_field(g, &[target], Steps::Eight);
        assert!(field[g.index(end)] < field[g.index(sq("1,1"))]);
    }
    // Away from the target from a corner it cannot leave further: stays.
    let nothing = |_: Square| false;
    let mover = moves::Mover {
        from: sq("1,1"),
        max: 3,
        steps: Steps::Eight,
        goal: Goal::Away,
        occupied: &nothing,
    };
    let stay = moves::move_towards(g, &mover, &[target], &mut rng);
    assert!(stay.is_none());
}

#[test]
fn every_bundled_mission_draws_and_its_svg_parses() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut count = 0;
    for package in ["space-crusade", "space-hulk"] {
        let r = servitor::load(package)
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
            .ruleset;
        for m in r.missions.values() {
            let overlay = servitor::board::render::Overlay::default();
            let text = servitor::board::render::text(&m.grid, &overlay, false);
            // The map, and one line of column numbers above it (two when there are ten or more).
            let numbers: usize = if m.grid.width >= 10 { 2 } else { 1 };
            assert_eq!(text.lines().count(), 2 * m.grid.height as usize + 1 + numbers);
            let units = text.lines().nth(numbers - 1).unwrap();
            assert!(units.trim_start().starts_with("1 2 3"), "{units}");
            let svg = servitor::board::render::svg(&m.grid, &m.id, &overlay);
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", m.id));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            count += 1;
        }
    }
    assert!(count >= 3, "only {count} missions");
}

/// Replays a facing plan by the rules and prices each action as `costs` says: every step is the
/// kind the current facing makes it and allowed by the walls, every turn a quarter turn, a turn
/// made as part of a step sits next to that step (one such turn per step). Returns the price.
fn price_of_plan(
    grid: &Grid,
    from: Square,
    facing: usize,
    to: Square,
    costs: &facing::Costs,
    actions: &[facing::Action],
) -> u64 {
    use facing::{Action, StepKind, TurnMade};
    let (mut at, mut f, mut total) = (from, facing, 0u64);
    let mut step_has_turn = vec![false; actions.len()];
    for (i, action) in actions.iter().enumerate() {
        match action {
            Action::Turn { to: nf, made } => {
                assert!(
                    *nf == (f + 1) % 4 || *nf == (f + 3) % 4,
                    "{action:?} is not a quarter turn"
                );
                let step = match made {
                    TurnMade::OnTheSpot => None,
                    TurnMade::AfterStep => Some(i.checked_sub(1).expect("a turn after no step")),
                    TurnMade::BeforeStep => Some(i + 1),
                };
                if let Some(s) = step {
                    assert!(
                        matches!(actions.get(s), Some(Action::Step { .. })),
                        "{action:?} at {i} is not next to a step: {actions:?}"
                    );
                    assert!(!step_has_turn[s], "two turns made as part of one step: {actions:?}");
                    step_has_turn[s] = true;
                }
                f = *nf;
            }
            Action::Step { kind, to: next } => {
                let (dx, dy) = (next.x - at.x, next.y - at.y);
                assert!(
                    dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0),
                    "{action:?} from {at}"
                );
                assert!(grid.can_step(at, dx, dy), "{action:?} from {at} goes through a wall");
                assert_eq!(*kind, StepKind::of(f, dx, dy), "{action:?} from {at} facing {f}");
                at = *next;
            }
        }
        total += u64::from(costs.of(action).unwrap_or_else(|| panic!("{action:?} is not allowed")));
    }
    assert_eq!(at, to, "the plan ends elsewhere: {actions:?}");
    total
}

#[test]
fn facing_plans_are_legal_and_cost_what_their_actions_cost() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let r = servitor::load("rulesets/space-hulk")
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .ruleset;
    let mut tables = Vec::new();
    for turn_with_move in [None, Some(0), Some(1)] {
        // A Terminator (no sideways), a Genestealer (no diagonals), and one that may do anything.
        tables.push(facing::Costs {
            steps: [Some(1), Some(1), None, Some(2), None],
            turn: Some(1),
            turn_with_move,
        });
        tables.push(facing::Costs {
            steps: [Some(1), None, Some(1), Some(2), None],
            turn: Some(1),
            turn_with_move,
        });
        tables.push(facing::Costs {
            steps: [Some(1), Some(2), Some(2), Some(3), Some(3)],
            turn: Some(2),
            turn_with_move,
        });
    }
    let mut rng = Rng::seeded(8);
    let mut plans = 0;
    for mission in r.missions.values() {
        let grid = &mission.grid;
        let open: Vec<Square> = (0..grid.len())
            .map(|i| grid.square(i))
            .filter(|s| !grid.is_solid(*s))
            .collect();
        for _ in 0..100 {
            let from = open[rng.below(open.len() as u64) as usize];
            let to = open[rng.below(open.len() as u64) as usize];
            let f = rng.below(4) as usize;
            let mut spot_only = None;
            for costs in &tables {
                let Some((cost, actions)) = facing::cheapest_path(grid, from, f, to, costs) else {
                    continue;
                };
                plans += 1;
                assert_eq!(cost, price_of_plan(grid, from, f, to, costs, &actions), "{from} → {to}");
                // A turn that comes free with a step can only make a plan cheaper.
                if costs.turn_with_move.is_none() {
                    spot_only = Some(cost);
                } else if let Some(before) = spot_only.filter(|_| costs.turn_with_move == Some(0)) {
                    assert!(
                        cost <= before,
                        "{from} → {to}: {cost} with free turns, {before} without"
                    );
                }
            }
        }
    }
    assert!(plans > 200, "only {plans} plans");
}

#[test]
fn a_genestealer_turns_for_free_as_it_moves() {
    // FACTS.md, Space Hulk: "90° turn free with a move; turn on the spot 1". Facing left and
    // going right along a corridor: one paid turn on the spot, the other free with a step.
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let r = servitor::load("rulesets/space-hulk")
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
        .ruleset;
    let grid = &r.missions["relay-sabotage"].grid;
    let stealer = facing::Costs {
        steps: [Some(1), None, Some(1), Some(2), None],
        turn: Some(1),
        turn_with_move: Some(0),
    };
    let (cost, actions) = facing::cheapest_path(grid, sq("2,7"), 3, sq("9,6"), &stealer).unwrap();
    assert_eq!(cost, 8, "{actions:?}");
    let on_the_spot = facing::Costs {
        turn_with_move: None,
        ..stealer
    };
    assert_eq!(
        facing::cheapest_path(grid, sq("2,7"), 3, sq("9,6"), &on_the_spot)
            .unwrap()
            .0,
        9
    );
}

/// `los::clear` is `line_of_sight` without the path: the same answer for every pair of squares
/// of random boards, with and without a piece in the way.
#[test]
fn clear_answers_as_line_of_sight_does() {
    for seed in 0..20 {
        let g = random_grid(seed);
        let piece = g.square((seed as usize * 13) % g.len());
        for a in 0..g.len() {
            for b in (a + 1..g.len()).step_by(5) {
                let (sa, sb) = (g.square(a), g.square(b));
                for occupied in [&(|_| false) as &dyn Fn(Square) -> bool, &|s| s == piece] {
                    assert_eq!(
                        servitor::board::los::clear(&g, sa, sb, occupied),
                        line_of_sight(&g, sa, sb, occupied).visible,
                        "seed {seed}: {sa} → {sb}"
                    );
                }
            }
        }
    }
}

/// `facing::could_reach` says "no" only where the priced search finds no plan: on random
/// boards with random squares taken, for a piece that may step any way and turn on the spot,
/// it answers exactly as the search does.
#[test]
fn could_reach_says_no_only_where_no_plan_exists() {
    use servitor::board::facing::{Costs, cheapest_plan, could_reach};
    let costs = Costs {
        steps: [Some(1), Some(1), Some(1), Some(2), Some(2)],
        turn: Some(1),
        turn_with_move: None,
    };
    let mut answers = [0usize; 2];
    for seed in 0..20 {
        let g = random_grid(seed);
        let mut rng = Rng::seeded(seed + 100);
        let taken: Vec<bool> = (0..g.len()).map(|_| rng.below(4) == 0).collect();
        let passable = |s: Square| !taken[g.index(s)];
        for a in (0..g.len()).step_by(3) {
            for b in (0..g.len()).step_by(7) {
                let (from, to) = (g.square(a), g.square(b));
                if g.is_solid(from) || g.is_solid(to) {
                    continue;
                }
                let plan = cheapest_plan(&g, from, 0, &|s, _| s == to, &costs, &passable).is_some();
                assert_eq!(
                    could_reach(&g, from, &passable, &|s| s == to),
                    plan,
                    "seed {seed}: {from} → {to}"
                );
                answers[usize::from(plan)] += 1;
            }
        }
    }
    assert!(
        answers[0] > 100 && answers[1] > 100,
        "both answers are tested: {answers:?}"
    );
}

/// A section's corner, worked out once when the mission is put together, is the least column
/// and row of that section's squares, as a scan of every square finds it, on every bundled
/// mission.
#[test]
fn a_section_corner_is_the_least_column_and_row_of_its_squares() {
    let mut checked = 0;
    for package in ["space-crusade", "space-hulk", "starquest-solitaire"] {
        let ruleset = servitor::load(package)
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
            .ruleset;
        for mission in ruleset.missions.values() {
            let grid = &mission.grid;
            for name in &grid.sections {
                let squares: Vec<Square> = (0..grid.len())
                    .map(|i| grid.square(i))
                    .filter(|&s| grid.section_of(s) == Some(name.as_str()))
                    .collect();
                let scan = squares.iter().map(|s| s.x).min().zip(squares.iter().map(|s| s.y).min());
                assert_eq!(grid.section_corner(name), scan, "{} {name}", mission.id);
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked} sections");
}
