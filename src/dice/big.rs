//! Whole numbers too big for a machine word, handled at the cost of their size: polynomials
//! multiplied as one big number each (Kronecker substitution: a coefficient a slot of bits, so
//! the work is one multiplication of big integers, not one per pair of coefficients) and
//! raised to a power by squaring, and counts over a denominator made of small primes reduced
//! to fractions without a gcd of the big numbers (each small prime divided out in turn).
//!
//! Every function here has a cost in 64-bit word operations, made before any work, that the
//! odds' estimates (`exact.rs`) add up.

use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};

/// 64-bit words of a number of `bits` bits (at least one).
pub(crate) fn words(bits: f64) -> f64 {
    (bits / 64.0).ceil().max(1.0)
}

/// Word operations to multiply a number of `a` words by one of `b` (num-bigint: schoolbook for
/// small numbers, Karatsuba and Toom-3 for big ones; estimated as the smaller of the
/// schoolbook's a·b and Karatsuba's (a + b)^1.6).
pub(crate) fn mul_cost(a: f64, b: f64) -> f64 {
    (a * b).min((a + b).powf(1.6)).max(1.0)
}

/// Bits of a slot that holds any coefficient of the product of polynomials with `la` and `lb`
/// coefficients of at most `ba` and `bb` bits.
fn slot_bits(la: usize, ba: u64, lb: usize, bb: u64) -> u64 {
    let terms = la.min(lb).max(1) as u64;
    ba + bb + (64 - terms.leading_zeros() as u64) + 1
}

/// Word operations of [`poly_mul`] on polynomials of `la` and `lb` coefficients of at most
/// `ba` and `bb` bits: packing, one big multiplication, unpacking.
pub(crate) fn poly_mul_cost(la: u64, ba: f64, lb: u64, bb: f64) -> f64 {
    let slot = ba + bb + (la.min(lb).max(1) as f64).log2() + 2.0;
    let a = words(la as f64 * slot);
    let b = words(lb as f64 * slot);
    mul_cost(a, b) + 4.0 * (a + b)
}

/// The product of two polynomials with whole coefficients (index = power), as one
/// multiplication of big integers.
pub(crate) fn poly_mul(a: &[BigUint], b: &[BigUint]) -> Vec<BigUint> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let n = a.len() + b.len() - 1;
    if a.len().min(b.len()) <= 8 {
        // Few terms: pair by pair.
        let mut out = vec![BigUint::zero(); n];
        for (i, x) in a.iter().enumerate() {
            if x.is_zero() {
                continue;
            }
            for (j, y) in b.iter().enumerate() {
                if !y.is_zero() {
                    out[i + j] += x * y;
                }
            }
        }
        return out;
    }
    let ba = a.iter().map(BigUint::bits).max().unwrap_or(0);
    let bb = b.iter().map(BigUint::bits).max().unwrap_or(0);
    let s = slot_bits(a.len(), ba, b.len(), bb) as usize;
    let product = pack(a, s) * pack(b, s);
    unpack(&product, s, n)
}

/// Coefficients laid in slots of `s` bits, the first lowest.
fn pack(cs: &[BigUint], s: usize) -> BigUint {
    let mut digits = vec![0u32; (cs.len() * s) / 32 + 2];
    for (i, c) in cs.iter().enumerate() {
        let offset = i * s;
        let (w, b) = (offset / 32, offset % 32);
        for (j, d) in c.to_u32_digits().iter().enumerate() {
            let v = u64::from(*d) << b;
            digits[w + j] |= v as u32;
            digits[w + j + 1] |= (v >> 32) as u32;
        }
    }
    BigUint::new(digits)
}

/// The `n` slots of `s` bits of `x`.
fn unpack(x: &BigUint, s: usize, n: usize) -> Vec<BigUint> {
    let digits = x.to_u32_digits();
    let per = s.div_ceil(32);
    let at = |i: usize| u64::from(digits.get(i).copied().unwrap_or(0));
    (0..n)
        .map(|i| {
            let offset = i * s;
            let (w, b) = (offset / 32, offset % 32);
            if w >= digits.len() {
                return BigUint::zero();
            }
            let mut out: Vec<u32> = (0..per)
                .map(|k| (((at(w + k + 1) << 32) | at(w + k)) >> b) as u32)
                .collect();
            let extra = per * 32 - s;
            if let Some(top) = out.last_mut().filter(|_| extra > 0) {
                *top &= u32::MAX >> extra;
            }
            BigUint::new(out)
        })
        .collect()
}

/// `base^exp` for a polynomial with whole coefficients, by repeated squaring.
pub(crate) fn poly_pow(base: &[BigUint], exp: u32) -> Vec<BigUint> {
    let mut out = vec![BigUint::one()];
    let mut square = base.to_vec();
    let mut e = exp;
    while e > 0 {
        if e & 1 == 1 {
            out = poly_mul(&out, &square);
        }
        e >>= 1;
        if e > 0 {
            square = poly_mul(&square, &square);
        }
    }
    out
}

/// Word operations of [`poly_pow`] on a polynomial of `len` coefficients of at most `bits`
/// bits each (the total's bits grow with each squaring).
pub(crate) fn poly_pow_cost(len: u64, bits: f64, exp: u32) -> f64 {
    let mut cost = 0.0;
    let (mut out_len, mut out_bits) = (1u64, 0.0f64);
    let (mut sq_len, mut sq_bits) = (len.max(1), bits);
    let mut e = exp;
    while e > 0 {
        if e & 1 == 1 {
            cost += poly_mul_cost(out_len, out_bits, sq_len, sq_bits);
            out_len = out_len + sq_len - 1;
            out_bits += sq_bits + (sq_len as f64).log2() + 1.0;
        }
        e >>= 1;
        if e > 0 {
            cost += poly_mul_cost(sq_len, sq_bits, sq_len, sq_bits);
            sq_bits = 2.0 * sq_bits + (sq_len as f64).log2() + 1.0;
            sq_len = 2 * sq_len - 1;
        }
    }
    cost
}

/// A denominator as a product of small primes (`p`, exponent), when it is one: every
/// denominator of dice is a product of the dice's face counts.
pub(crate) struct Smooth {
    den: BigUint,
    primes: Vec<(u64, u64)>,
}

/// Primes below this are tried; the face counts of dice are at most `MAX_DIE_FACES`, squared
/// by a re-roll.
const SMALL_PRIMES_BELOW: u64 = 1 << 12;

fn small_primes() -> Vec<u64> {
    let n = SMALL_PRIMES_BELOW as usize;
    let mut sieve = vec![true; n];
    let mut out = Vec::new();
    for i in 2..n {
        if sieve[i] {
            out.push(i as u64);
            let mut j = i * i;
            while j < n {
                sieve[j] = false;
                j += i;
            }
        }
    }
    out
}

/// How many times `p` divides `x`, at most `most`, and `x` divided by it that many times.
fn strip(mut x: BigUint, p: u64, most: u64) -> (BigUint, u64) {
    // Whole powers of p that fit a word first, then p by p.
    let mut chunk = 1u64;
    let mut per = 0u64;
    while let Some(next) = chunk.checked_mul(p) {
        chunk = next;
        per += 1;
        if chunk > u64::MAX / p {
            break;
        }
    }
    let mut v = 0u64;
    while v + per <= most && per > 1 && (&x % chunk).is_zero() {
        x /= chunk;
        v += per;
    }
    while v < most && (&x % p).is_zero() {
        x /= p;
        v += 1;
    }
    (x, v)
}

impl Smooth {
    /// `den` factored over the small primes, or `None` when a bigger prime divides it.
    pub(crate) fn of(den: &BigUint) -> Option<Smooth> {
        if den.is_zero() {
            return None;
        }
        let mut rest = den.clone();
        let mut primes = Vec::new();
        for p in small_primes() {
            if rest.is_one() {
                break;
            }
            if (&rest % p).is_zero() {
                let (r, v) = strip(rest, p, u64::MAX);
                rest = r;
                primes.push((p, v));
            }
        }
        rest.is_one().then(|| Smooth {
            den: den.clone(),
            primes,
        })
    }

    /// `count / den` in lowest terms.
    pub(crate) fn fraction(&self, count: BigUint) -> BigRational {
        if count.is_zero() {
            return BigRational::from_integer(BigInt::zero());
        }
        let mut c = count;
        let mut divided = BigUint::one();
        let mut shift = 0u64;
        for &(p, e) in &self.primes {
            if p == 2 {
                // Twos by shifting.
                shift = c.trailing_zeros().unwrap_or(0).min(e);
                c >>= shift;
                continue;
            }
            let (r, v) = strip(c, p, e);
            c = r;
            if v > 0 {
                divided *= BigUint::from(p).pow(v.to_u32().unwrap_or(u32::MAX));
            }
        }
        let mut den = &self.den >> shift;
        if !divided.is_one() {
            den /= &divided;
        }
        BigRational::new_raw(BigInt::from(c), BigInt::from(den))
    }
}

/// `count / den` in lowest terms: by small primes when the denominator is made of them, else
/// by the gcd.
pub(crate) fn fraction(count: BigUint, den: &BigUint, smooth: Option<&Smooth>) -> BigRational {
    match smooth {
        Some(s) => s.fraction(count),
        None => BigRational::new(BigInt::from(count), BigInt::from(den.clone())),
    }
}

/// Word operations to reduce `values` counts over a denominator of `bits` bits — by small
/// primes (a few divisions of each count by a word), or by the gcd (bits × words each) when the
/// denominator is not made of small primes — and to show them.
pub(crate) fn fractions_cost(values: u64, bits: f64, smooth: bool) -> f64 {
    let w = words(bits);
    // Each fraction is also written out in decimal (num-bigint: quadratic in its words), and
    // summed over the common denominator for the mean and the tails.
    let shown = values as f64 * (2.0 * w * w + 4.0 * w);
    let reduced = if smooth {
        values as f64 * w * 16.0 + bits * w / 8.0
    } else {
        values as f64 * (bits.max(64.0)) * w
    };
    // One gcd for the mean.
    shown + reduced + bits.max(64.0) * w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(v: &[u64]) -> Vec<BigUint> {
        v.iter().map(|x| BigUint::from(*x)).collect()
    }

    #[test]
    fn kronecker_equals_pair_by_pair() {
        let a: Vec<BigUint> = (0..40u64).map(|i| BigUint::from(3u8).pow(i as u32) + i).collect();
        let b: Vec<BigUint> = (0..33u64)
            .map(|i| BigUint::from(7u8).pow((i % 9) as u32) * (i + 1))
            .collect();
        let mut slow = vec![BigUint::zero(); a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                slow[i + j] += x * y;
            }
        }
        assert_eq!(poly_mul(&a, &b), slow);
        // 3d6 by squaring: 25 ways to make 10 of 216.
        let d6 = big(&[0, 1, 1, 1, 1, 1, 1]);
        let three = poly_pow(&d6, 3);
        assert_eq!(three[10], BigUint::from(27u8));
        assert_eq!(three.iter().sum::<BigUint>(), BigUint::from(216u16));
    }

    #[test]
    fn smooth_fractions_are_in_lowest_terms() {
        let den = BigUint::from(6u8).pow(40);
        let s = Smooth::of(&den).unwrap();
        for c in [1u64, 6, 36, 1_000_000, 2 * 3 * 5 * 7] {
            let f = s.fraction(BigUint::from(c));
            assert_eq!(f, BigRational::new(BigInt::from(c), BigInt::from(den.clone())));
        }
        assert_eq!(s.fraction(den.clone()), BigRational::one());
        assert!(Smooth::of(&BigUint::from(2u64 * 1_000_003)).is_none());
    }
}
