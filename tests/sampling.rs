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

/// Rolls read die by die — the forms of issue 40 among them: a clamp, mixed dice whose re-roll
/// takes a declared kind, the kept dice of one kind in closed form, totals by squaring,
/// margins as one product — rolled 20 000 times each agree with their exact odds (chi-square
/// at p = 0.001, values with under 5 expected rolls pooled).
#[test]
fn rolls_read_die_by_die_agree_with_exact_odds() {
    use servitor::dice::Odds;
    const N: usize = 20_000;
    let cases = [
        ("space-hulk", "2d6 - 4 at least 0"),
        ("space-hulk", "highest of 3d6 at least 3 at most 5"),
        ("space-hulk", "count 5+ in 6d6 at most 3"),
        ("space-crusade", "2 red + 1 white reroll one 0"),
        ("space-crusade", "1 white + 2 red reroll lowest"),
        ("space-hulk", "highest 2 of 30d6"),
        ("space-hulk", "lowest 3 of 8d10"),
        ("space-hulk", "10d1000"),
        ("space-hulk", "40d6 vs 40d6"),
        ("space-hulk", "any 6 in 2d6 then any 5+ in 2d6"),
        ("space-hulk", "d12 * d12"),
        ("space-hulk", "highest of 2d6 * count 4+ in 3d6"),
        ("space-hulk", "count 3+ in 6d6 then 4+ times d3"),
        ("space-hulk", "any 5+ in d6 times 2d6"),
        ("space-hulk", "total 10+ in 2d6 given any 6 in 2d6"),
        ("space-hulk", "highest of 3d6 given double in 3d6"),
        ("space-hulk", "2d6 reroll 1 given any 5+ in 2d6 reroll 1"),
        ("space-hulk", "total 8+ in 3d6"),
        ("space-hulk", "d6 explode 3"),
        ("space-hulk", "2d6 explode 2 - 1 vs d6"),
        ("space-hulk", "d6 explode at most 9"),
        ("space-hulk", "highest of 3d6 vs highest of d6 second rerolls highest"),
        (
            "space-hulk",
            "highest of 2d6 vs highest of 2d6 + 1 first rerolls lowest",
        ),
        ("space-hulk", "count 3+ in 10d6 then 4+ then fail 3+ unless 6"),
        ("space-hulk", "count 4+ in 6d6 reroll 1 then 5+ unless 6 then fail 4+"),
        ("solo-heresy", "count arrow(90) in 3 scatter"),
        ("solo-heresy", "any arrow(270) in scatter then any hit in 2 scatter"),
    ];
    for (package, text) in cases {
        let ruleset = common::load(&format!("rulesets/{package}"));
        let roll = ruleset.parse_roll(text).unwrap();
        let dist = match roll.odds().unwrap() {
            Odds::Number(d) => d,
            Odds::Opposed { margin, .. } => margin,
            Odds::Flag(yes) => {
                // Yes or no as 1 or 0, as a roll's value reads it.
                let one = num_rational::BigRational::from_integer(1.into());
                servitor::dice::Distribution {
                    weights: [(0, &one - &yes), (1, yes)].into_iter().collect(),
                }
            }
        };
        let mut rng = Rng::seeded(20261128);
        let mut seen: BTreeMap<i64, usize> = BTreeMap::new();
        for _ in 0..N {
            *seen.entry(roll.roll(&mut rng).value()).or_default() += 1;
        }
        for v in seen.keys() {
            assert!(
                dist.weights.contains_key(v),
                "{text}: rolled {v}, which the odds say is impossible"
            );
        }
        // Bins of at least 5 expected rolls, in order of value.
        let mut bins: Vec<(f64, usize)> = Vec::new();
        let (mut e, mut o) = (0.0, 0usize);
        for (v, p) in &dist.weights {
            e += servitor::dice::to_f64(p) * N as f64;
            o += seen.get(v).copied().unwrap_or(0);
            if e >= 5.0 {
                bins.push((e, o));
                (e, o) = (0.0, 0);
            }
        }
        if let Some(last) = bins.last_mut() {
            last.0 += e;
            last.1 += o;
        }
        if bins.len() < 2 {
            continue;
        }
        let chi: f64 = bins.iter().map(|(e, o)| (*o as f64 - e).powi(2) / e).sum();
        let limit = critical((bins.len() - 1) as f64);
        assert!(chi < limit, "{text}: chi-square {chi:.2} over {limit:.2}");
    }
}

/// Issue 40's product: d12 × d12 (a count of squares) has mean 169/4 = (13/2)², exactly.
#[test]
fn a_product_of_two_dice_has_the_mean_of_their_means() {
    use servitor::dice::Odds;
    let ruleset = common::load("rulesets/space-hulk");
    let roll = ruleset.parse_roll("d12 * d12").unwrap();
    let Odds::Number(d) = roll.odds().unwrap() else {
        panic!("d12 * d12 is a number");
    };
    let mean: num_rational::BigRational = d
        .weights
        .iter()
        .map(|(v, p)| p * num_rational::BigRational::from_integer((*v).into()))
        .sum();
    assert_eq!(mean.to_string(), "169/4");
    assert_eq!(roll.to_string(), "d12 * d12");
}

/// Issue 40's repeated sub-rolls: D3 wounds for each unsaved wound of 10 shots (hit on 3+,
/// wound on 4+, the save of 3+ failed: 10/9 unsaved wounds on average) has mean 2 · 10/9 =
/// 20/9, exactly; a count of no dice makes no sub-roll.
#[test]
fn a_roll_made_for_each_success_has_mean_of_count_times_each() {
    use servitor::dice::Odds;
    let ruleset = common::load("rulesets/space-hulk");
    let mean = |text: &str| {
        let roll = ruleset.parse_roll(text).unwrap();
        let Odds::Number(d) = roll.odds().unwrap() else {
            panic!("{text} is a number");
        };
        assert_eq!(
            d.weights.values().sum::<num_rational::BigRational>(),
            num_rational::BigRational::from_integer(1.into())
        );
        d.weights
            .iter()
            .map(|(v, p)| p * num_rational::BigRational::from_integer((*v).into()))
            .sum::<num_rational::BigRational>()
            .to_string()
    };
    assert_eq!(mean("count 3+ in 10d6 then 4+ then fail 3+ times d3"), "20/9");
    assert_eq!(mean("count 6 in 0d6 times d3"), "0");
    // Rending: a 6 to wound comes through the save unrolled.
    assert_eq!(mean("count 3+ in 10d6 then 4+ then fail 3+ unless 6"), "50/27");
    assert_eq!(mean("count 3+ in 10d6 then 4+ then fail 3+"), "10/9");
}

/// Issue 40's exploding dice: `d6 explode` rolls a 6 again at most 9 times (the last 6
/// stands), which gives the mean 84652645/20155392 exactly; `explode 1` is 49/12.
#[test]
fn an_exploding_die_has_the_mean_of_its_depth() {
    use servitor::dice::Odds;
    let ruleset = common::load("rulesets/space-hulk");
    let mean = |text: &str| {
        let Odds::Number(d) = ruleset.parse_roll(text).unwrap().odds().unwrap() else {
            panic!("{text} is a number");
        };
        d.weights
            .iter()
            .map(|(v, p)| p * num_rational::BigRational::from_integer((*v).into()))
            .sum::<num_rational::BigRational>()
            .to_string()
    };
    assert_eq!(mean("d6 explode"), "84652645/20155392");
    assert_eq!(mean("d6 explode 9"), "84652645/20155392");
    assert_eq!(mean("d6 explode 1"), "49/12");
    assert_eq!(ruleset.parse_roll("d6 explode 9").unwrap().to_string(), "d6 explode");
}

/// Issue 40's joint outcomes: a record's yes-or-no rolls of one dice field, rolled together
/// by `roll_declared` (one roll of the field for all), come up as often as `joint_flags`
/// says — the storm bolter's kill, sustained kill and jam, 20 000 rolls, chi-square at
/// p = 0.001.
#[test]
fn rolls_of_one_field_together_agree_with_their_joint_odds() {
    use servitor::dice::read::{Declared, roll_declared};
    use servitor::dice::{Reading, Roll};
    use servitor::ruleset::Value;
    const N: usize = 20_000;
    let ruleset = common::load("rulesets/space-hulk");
    let record = &ruleset.records["weapon"]["storm-bolter"];
    let names = ["kill", "sustained-kill", "jam"];
    let mut declared = Vec::new();
    let mut reads = Vec::new();
    let mut pool = None;
    for name in names {
        let Some(Value::Roll(r)) = record.fields.get(name) else {
            panic!("{name} is a roll")
        };
        let Roll::Read(Reading::Pool(p)) = &r.roll else {
            panic!("{name} reads its dice die by die")
        };
        pool = Some(&p.pool);
        reads.push(&p.read);
        declared.push(Declared {
            name,
            roll: &r.roll,
            reads: r.reads.as_deref(),
        });
    }
    let joint = servitor::dice::exact::joint_flags(pool.unwrap(), &reads).unwrap();
    let mut rng = Rng::seeded(20261128);
    let mut seen: BTreeMap<Vec<bool>, usize> = BTreeMap::new();
    for _ in 0..N {
        let rolled = roll_declared(&declared, &mut rng);
        let key: Vec<bool> = rolled.iter().map(|(_, r)| r.value() != 0).collect();
        *seen.entry(key).or_default() += 1;
    }
    for key in seen.keys() {
        assert!(
            joint.iter().any(|(k, _)| k == key),
            "rolled {key:?}, which the joint odds say is impossible"
        );
    }
    let chi: f64 = joint
        .iter()
        .map(|(k, p)| {
            let e = servitor::dice::to_f64(p) * N as f64;
            let o = seen.get(k).copied().unwrap_or(0) as f64;
            (o - e).powi(2) / e
        })
        .sum();
    let limit = critical((joint.len() - 1) as f64);
    assert!(chi < limit, "chi-square {chi:.2} over {limit:.2}");
}

/// Issue 40's tagged faces: the scatter die rolled 20 000 times shows each face as often as
/// its listed odds say (`odds --dice scatter`: hit 1/3, each arrow 1/6), chi-square at
/// p = 0.001.
#[test]
fn a_die_shows_each_face_as_its_odds_say() {
    const N: usize = 20_000;
    let ruleset = common::load("rulesets/solo-heresy");
    let Ok(servitor::dice::Roll::Read(servitor::dice::Reading::Total(expr))) = ruleset.parse_roll("scatter") else {
        panic!("the scatter die reads as dice");
    };
    let faces = expr.faces_shown().expect("one die lists its faces");
    assert_eq!(faces.len(), 5, "hit and four arrows");
    let mut rng = Rng::seeded(20261129);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..N {
        let rolled = expr.roll(&mut rng);
        let face = rolled.dice[0].face.clone().expect("a named face");
        *seen.entry(face).or_default() += 1;
    }
    let listed: Vec<String> = faces.iter().map(|(f, _)| f.to_string()).collect();
    for face in seen.keys() {
        assert!(listed.contains(face), "rolled {face}, which the odds do not list");
    }
    let chi: f64 = faces
        .iter()
        .map(|(f, p)| {
            let e = servitor::dice::to_f64(p) * N as f64;
            let o = seen.get(&f.to_string()).copied().unwrap_or(0) as f64;
            (o - e).powi(2) / e
        })
        .sum();
    let limit = critical((faces.len() - 1) as f64);
    assert!(chi < limit, "chi-square {chi:.2} over {limit:.2}");
}
