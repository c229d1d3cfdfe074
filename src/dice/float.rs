//! Exact fractions as floats, correctly rounded: the float printed beside a fraction is the
//! float nearest to it, however long its numerator and denominator (a chance of 1.6e-20 over
//! a denominator of thousands of digits is 1.6e-20, not 0).

use num_bigint::{BigUint, Sign};
use num_rational::BigRational;
use num_traits::Zero;

/// The nearest `f64` to `p`, ties to even (IEEE 754 round-to-nearest): the same float
/// `p.numer() as f64 / p.denom() as f64` would give if both fitted a float exactly. Tiny
/// values go subnormal and then to 0 only below half the smallest subnormal; huge ones to
/// infinity.
pub fn to_f64(p: &BigRational) -> f64 {
    let negative = p.numer().sign() == Sign::Minus;
    let magnitude = quotient(p.numer().magnitude(), p.denom().magnitude());
    if negative { -magnitude } else { magnitude }
}

/// `n / d` for whole numbers, correctly rounded; 0 when `n` is 0 (or `d` is, which a
/// fraction never has).
fn quotient(n: &BigUint, d: &BigUint) -> f64 {
    if n.is_zero() || d.is_zero() {
        return 0.0;
    }
    // n / d lies in [2^(e-1), 2^(e+1)) with e the difference of their bit lengths. Scale it so
    // that the whole part q has 54 bits: 53 for the mantissa and one to round on; whatever is
    // left over (the remainder, and bits shifted out) is "sticky".
    let e = n.bits() as i64 - d.bits() as i64;
    let shift = 54 - e;
    let (mut q, r) = if shift >= 0 {
        let scaled = n << (shift as u64);
        (&scaled / d, &scaled % d)
    } else {
        let scaled = d << ((-shift) as u64);
        (n / &scaled, n % &scaled)
    };
    let mut sticky = !r.is_zero();
    let mut shift = shift;
    if q.bits() > 54 {
        sticky |= q.bit(0);
        q >>= 1u32;
        shift -= 1;
    }
    // q now has 54 bits: the value is q · 2^-shift, its leading bit worth 2^(53 - shift).
    let exponent = 53 - shift;
    if exponent > 1023 {
        return f64::INFINITY;
    }
    // Below the normal range the mantissa has fewer bits: drop the ones a subnormal cannot hold.
    if exponent < -1022 {
        let drop = (-1022 - exponent) as u64;
        if drop >= 55 {
            // Below a quarter of the smallest subnormal: rounds to 0.
            return 0.0;
        }
        let mask = (BigUint::from(1u8) << drop) - 1u8;
        sticky |= !(&q & &mask).is_zero();
        q >>= drop;
    }
    let q = q.to_u64_digits().first().copied().unwrap_or(0);
    let round = q & 1 == 1;
    let mut mantissa = q >> 1;
    if round && (sticky || mantissa & 1 == 1) {
        mantissa += 1;
    }
    // mantissa ≤ 2^53, exact as a float; scale by a power of two in at most two exact steps.
    let scale = if exponent < -1022 { -1074 } else { exponent - 52 };
    (mantissa as f64) * power_of_two(scale)
}

/// 2^k exactly, for k from -1074 to 1023.
fn power_of_two(k: i64) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        // A subnormal power: from its bit directly.
        f64::from_bits(1u64 << (k + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    fn frac(n: &str, d: &str) -> BigRational {
        BigRational::new(n.parse::<BigInt>().unwrap(), d.parse::<BigInt>().unwrap())
    }

    #[test]
    fn small_fractions_match_the_division_of_floats() {
        for (n, d) in [
            (1i64, 6i64),
            (11, 36),
            (95, 144),
            (25, 144),
            (1, 3),
            (2, 3),
            (0, 1),
            (7, 7),
        ] {
            let p = BigRational::new(n.into(), d.into());
            assert_eq!(to_f64(&p), n as f64 / d as f64, "{n}/{d}");
        }
        assert_eq!(to_f64(&frac("-1", "3")), -1.0 / 3.0);
        assert_eq!(to_f64(&frac("10", "9")), 10.0 / 9.0);
        assert_eq!(to_f64(&frac("1073741824", "3486784401")), 1073741824.0 / 3486784401.0);
    }

    /// Numerator and denominator far past a float, the fraction itself tiny: 6^-25 over a
    /// denominator of 6^400 is still 6^-25.
    #[test]
    fn tiny_fractions_over_huge_denominators_keep_their_value() {
        let six = BigInt::from(6);
        let num = num_traits::pow(six.clone(), 375);
        let den = num_traits::pow(six, 400);
        let p = BigRational::new_raw(num, den);
        let expected = 6f64.powi(-25);
        let got = to_f64(&p);
        assert!((got - expected).abs() <= expected * 1e-15, "{got} vs {expected}");
        // 1.6e-20, the value `odds … --times 391` once printed as 0.
        let p = frac("1607", &format!("1{}", "0".repeat(23)));
        assert_eq!(to_f64(&p), 1.607e-20);
    }

    /// Ties round to even and the last bit is right: 1 + 2^-53 rounds down to 1, 1 + 3·2^-54
    /// up to 1 + 2^-52.
    #[test]
    fn halfway_cases_round_to_even() {
        let two = BigInt::from(2);
        let d = num_traits::pow(two.clone(), 53);
        let p = BigRational::new(&d + 1, d.clone());
        assert_eq!(to_f64(&p), 1.0);
        let d = num_traits::pow(two, 54);
        let p = BigRational::new(&d + 3, d.clone());
        assert_eq!(to_f64(&p), 1.0 + f64::EPSILON);
    }

    #[test]
    fn subnormals_and_the_ends() {
        let two = BigInt::from(2);
        let p = BigRational::new(BigInt::from(1), num_traits::pow(two.clone(), 1074));
        assert_eq!(to_f64(&p), f64::from_bits(1));
        let p = BigRational::new(BigInt::from(1), num_traits::pow(two.clone(), 1076));
        assert_eq!(to_f64(&p), 0.0);
        let p = BigRational::new(BigInt::from(3), num_traits::pow(two.clone(), 1075));
        assert_eq!(to_f64(&p), f64::from_bits(2));
        let p = BigRational::new(num_traits::pow(two, 1100), BigInt::from(1));
        assert_eq!(to_f64(&p), f64::INFINITY);
    }
}
