//! The statistics of a paired comparison (`sim BASE --vs VARIANT`): both packages play the
//! same game seeds, so each game gives a pair, and what is estimated is the mean of the
//! per-game differences (variant − base).
//!
//! - A rate (the share of games a side wins) uses **Tango's score interval** for a difference
//!   of paired proportions (Tango 1998, *Statistics in Medicine* 17:891–908): the set of
//!   differences Δ whose score statistic stays within ±z. Only the discordant games count
//!   (those the base won and the variant did not, and the other way round), and unlike the
//!   Wald interval it does not collapse to a point when none are seen: with no discordant game
//!   in n, it is ±z²/(n + z²).
//! - A mean (score, turns, losses) uses the **paired normal interval**: the mean of the
//!   per-game differences ± z·s/√n, with s their standard deviation (n − 1 in the divisor).
//!   With every difference 0 it is exactly [0, 0]; with only a few non-zero differences it is
//!   rough, which is why a report also counts the games that changed at all.
//!
//! Every per-game value is a whole number and the sums are kept as integers, so an identical
//! variant gives a difference of exactly 0, and the result does not depend on the order the
//! games were added (so not on threads either). [`normal_quantile`] gives z for a level.

use serde::Serialize;

/// The z of a two-sided interval at `level` (0.95 → 1.959964…).
pub fn z_for(level: f64) -> f64 {
    normal_quantile(1.0 - (1.0 - level) / 2.0)
}

/// The standard normal quantile function, by Acklam's rational approximation (relative error
/// below 1.2e-9 over (0, 1): far below what an interval printed to 0.1 point needs).
pub fn normal_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let low = 0.024_25;
    if p < low {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - low {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

/// A difference with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub difference: f64,
    /// `None` when there are too few games to say (fewer than 2 for a mean, none for a rate).
    pub low: Option<f64>,
    pub high: Option<f64>,
}

impl Interval {
    /// Whether the interval lies wholly on one side of 0.
    pub fn excludes_zero(&self) -> bool {
        matches!((self.low, self.high), (Some(l), Some(h)) if l > 0.0 || h < 0.0)
    }

    pub fn width(&self) -> Option<f64> {
        Some(self.high? - self.low?)
    }
}

/// Tango's score interval for π₁₂ − π₂₁ of a paired 2×2 table: `n12` pairs had the event
/// under the first condition only, `n21` under the second only, of `n` pairs in all.
/// (For "variant − base" of a rate, `n12` is the games only the variant had it in.)
pub fn tango(n12: u64, n21: u64, n: u64, z: f64) -> Interval {
    if n == 0 {
        return Interval {
            difference: 0.0,
            low: None,
            high: None,
        };
    }
    let (b, c, nf) = (n12 as f64, n21 as f64, n as f64);
    let estimate = (b - c) / nf;
    // The score statistic at Δ: (b − c − nΔ) / √(n(2p̃ + Δ(1 − Δ))), with p̃ the maximum
    // likelihood estimate of π₂₁ under the constraint π₁₂ − π₂₁ = Δ. It falls as Δ grows.
    let score = |delta: f64| -> f64 {
        let a = 2.0 * nf;
        let bb = -b - c + (2.0 * nf - b + c) * delta;
        let cc = -c * delta * (1.0 - delta);
        let p = ((bb * bb - 4.0 * a * cc).max(0.0).sqrt() - bb) / (2.0 * a);
        let variance = nf * (2.0 * p + delta * (1.0 - delta));
        let numerator = b - c - nf * delta;
        if variance <= 0.0 {
            if numerator == 0.0 {
                0.0
            } else {
                numerator.signum() * f64::INFINITY
            }
        } else {
            numerator / variance.sqrt()
        }
    };
    // Bisection: the lower limit is where the score comes down to z, the upper where it
    // reaches −z; 200 halvings pin a limit far below f64's resolution of [−1, 1].
    let solve = |mut lo: f64, mut hi: f64, target: f64| -> f64 {
        for _ in 0..200 {
            let mid = (lo + hi) / 2.0;
            if score(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo + hi) / 2.0
    };
    let low = if score(-1.0) <= z {
        -1.0
    } else {
        solve(-1.0, estimate, z)
    };
    let high = if score(1.0) >= -z {
        1.0
    } else {
        solve(estimate, 1.0, -z)
    };
    Interval {
        difference: estimate,
        low: Some(low.max(-1.0)),
        high: Some(high.min(1.0)),
    }
}

/// The running sums of whole-number per-game differences.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Paired {
    pub n: u64,
    pub base: i128,
    pub variant: i128,
    /// Σ d and Σ d², d = variant − base.
    pub sum: i128,
    pub squares: i128,
}

impl Paired {
    pub fn add(&mut self, base: i64, variant: i64) {
        let d = i128::from(variant) - i128::from(base);
        self.n += 1;
        self.base += i128::from(base);
        self.variant += i128::from(variant);
        self.sum += d;
        self.squares += d * d;
    }

    pub fn base_mean(&self) -> f64 {
        mean(self.base, self.n)
    }

    pub fn variant_mean(&self) -> f64 {
        mean(self.variant, self.n)
    }

    /// The mean difference ± z·s/√n.
    pub fn interval(&self, z: f64) -> Interval {
        let difference = mean(self.sum, self.n);
        if self.n < 2 {
            return Interval {
                difference,
                low: None,
                high: None,
            };
        }
        let n = self.n as f64;
        // n·Σd² − (Σd)² is exact in integers, and never negative.
        let spread = (i128::from(self.n) * self.squares - self.sum * self.sum) as f64;
        let sd = (spread / (n * (n - 1.0))).sqrt();
        let half = z * sd / n.sqrt();
        Interval {
            difference,
            low: Some(difference - half),
            high: Some(difference + half),
        }
    }
}

fn mean(sum: i128, n: u64) -> f64 {
    if n == 0 { 0.0 } else { sum as f64 / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_the_tables() {
        assert!((z_for(0.95) - 1.959_963_985).abs() < 1e-8, "{}", z_for(0.95));
        assert!((z_for(0.99) - 2.575_829_304).abs() < 1e-8, "{}", z_for(0.99));
        assert!((normal_quantile(0.5)).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090_232_306).abs() < 1e-8);
    }

    #[test]
    fn tango_with_no_discordant_pair_is_z_squared_over_n_plus_z_squared() {
        // Worked by hand: with b = c = 0 the restricted estimate is 0 (Δ ≥ 0), so the score
        // is −√(nΔ/(1 − Δ)), and |score| = z at Δ = z²/(n + z²).
        let z = z_for(0.95);
        let i = tango(0, 0, 1000, z);
        let edge = z * z / (1000.0 + z * z);
        assert_eq!(i.difference, 0.0);
        assert!((i.high.unwrap() - edge).abs() < 1e-12, "{i:?}");
        assert!((i.low.unwrap() + edge).abs() < 1e-12, "{i:?}");
        assert!(!i.excludes_zero());
    }

    #[test]
    fn tango_matches_a_hand_computed_case() {
        // 21 pairs: 1 had the event under both conditions, 7 under the first only, 1 under
        // the second only (the airway example of Fagerland, Lydersen and Laake, 2013, taken
        // the other way round). Δ̂ = 6/21. The limits solve |score| = z; computed by hand
        // (in Python, by the quadratic for p̃ and a scan of Δ in steps of 1e-7):
        // 0.0260 – 0.5172.
        let z = z_for(0.95);
        let i = tango(7, 1, 21, z);
        assert!((i.difference - 6.0 / 21.0).abs() < 1e-15);
        let (low, high) = (i.low.unwrap(), i.high.unwrap());
        assert!((low - 0.026_0).abs() < 1e-4, "{i:?}");
        assert!((high - 0.517_2).abs() < 1e-4, "{i:?}");
        // Turned round, the interval turns round.
        let back = tango(1, 7, 21, z);
        assert!((back.low.unwrap() + high).abs() < 1e-9 && (back.high.unwrap() + low).abs() < 1e-9);
    }

    #[test]
    fn a_paired_mean_of_a_hand_computed_case() {
        // Differences 2, 0, −1, 3: mean 1, s² = ((1 + 1 + 4 + 4)/3) = 10/3, s/√n = 0.91287.
        let mut p = Paired::default();
        for (b, v) in [(1, 3), (5, 5), (4, 3), (0, 3)] {
            p.add(b, v);
        }
        let i = p.interval(1.959_963_985);
        assert_eq!(i.difference, 1.0);
        let half = 1.959_963_985 * (10.0f64 / 3.0).sqrt() / 2.0;
        assert!((i.low.unwrap() - (1.0 - half)).abs() < 1e-12);
        assert!((i.high.unwrap() - (1.0 + half)).abs() < 1e-12);
        assert_eq!((p.base_mean(), p.variant_mean()), (2.5, 3.5));
    }

    #[test]
    fn identical_pairs_give_exactly_zero() {
        let mut p = Paired::default();
        for x in [3, -7, 12, 0, 5] {
            p.add(x, x);
        }
        let i = p.interval(1.96);
        assert_eq!((i.difference, i.low, i.high), (0.0, Some(0.0), Some(0.0)));
    }
}
