//! Decimal128 exponentials, logarithms, powers and trigonometry, computed as the server's decimal
//! library (Intel's BID library, `bid128_exp`, `bid128_log`, ...) computes them.
//!
//! That library evaluates these functions in IEEE binary128: the decimal argument is rounded to
//! 113 bits, the function is evaluated in binary128 (each operation rounded to 113 bits) and the
//! result is converted back to a decimal of 34 digits, half-even. Exact integers and short exact
//! fractions keep their exact form (`log10(1000)` is `3`, `ln(1)` is `0`). The double rounding
//! differs from the correctly rounded decimal in the last digit for about one argument in five
//! (`ln(2.5)` is `0.9162907318741550651835272117680110`, the correctly rounded decimal ends in
//! `111`), so this module reproduces the library's steps: every binary128 operation is computed
//! correctly rounded (astro-float at 256 bits, then rounded to 113 bits here, subnormals and
//! overflow included) and every decimal step with decmathlib, a port of the same Intel library
//! (its fma excepted: see [`fma`]). Each function follows its `bid128_*` source: special
//! values, the nudge of tiny arguments by 10^-40, the decimal formulas some ranges use
//! (`sinh` between 1 and 64, `pow`'s two-part logarithm, ...), the truncated pi/2 reduction of
//! `sin`/`cos`/`tan`. Where the library's binary128 kernel (`__bid_f128_log`, ...) is itself
//! not correctly rounded (rare), results can differ from the server's in the last digit.
//!
//! Time and memory are bounded by the decimal range: the largest exact power of ten used has
//! about 20 000 bits, and out-of-range results take the library's overflow and underflow paths
//! before any series is evaluated.

use std::cell::RefCell;
use std::cmp::Ordering;

use astro_float::{BigFloat, Consts, RoundingMode as Rm, Sign, Word, WORD_BIT_SIZE};
use decmathlib_rs::d128::d128;

/// Working precision (bits) of every binary operation before its rounding to binary128.
const WIDE: usize = 256;
/// binary128: 113 significant bits, normal exponents down to 2^-16382, subnormals to 2^-16494.
const QUAD_BITS: i32 = 113;
const QUAD_MIN_NORMAL_EXP: i32 = -16382;
const QUAD_MIN_LSB: i32 = -16494;
const QUAD_MAX_EXP: i32 = 16384;
const TEN_POW_34: u128 = 10_000_000_000_000_000_000_000_000_000_000_000;
const TEN_POW_33: u128 = 1_000_000_000_000_000_000_000_000_000_000_000;

thread_local! {
    static CONSTS: RefCell<Option<Consts>> = const { RefCell::new(None) };
}

/// Runs `f` with astro-float's constants cache (pi, ln 2, ...), created on first use.
fn with_consts<R>(f: impl FnOnce(&mut Consts) -> R) -> Option<R> {
    CONSTS.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Consts::new().ok();
        }
        c.as_mut().map(f)
    })
}

// ---------------------------------------------------------------------------------------------
// Decimal side

const NAN: d128 = decmathlib_rs::d128::NAN;

fn dec_bits(hi: u64, lo: u64) -> d128 {
    d128::from(((hi as u128) << 64) | lo as u128)
}

fn dec_zero() -> d128 {
    d128::from(0)
}

fn dec_one() -> d128 {
    d128::from(1)
}

/// A finite decimal as sign, coefficient and exponent.
#[derive(Clone, Copy, Debug)]
struct Parts {
    neg: bool,
    coeff: u128,
    exp: i32,
}

fn parts(d: d128) -> Option<Parts> {
    if !d.is_finite() {
        return None;
    }
    // `bid128_to_string`: `+1234E-2`.
    let s = format!("{d}");
    let neg = s.starts_with('-');
    let (c, e) = s.trim_start_matches(['+', '-']).split_once('E')?;
    Some(Parts { neg, coeff: c.parse().ok()?, exp: e.parse().ok()? })
}

fn from_parts(neg: bool, coeff: u128, exp: i32) -> d128 {
    format!("{}{coeff}E{exp}", if neg { "-" } else { "+" }).parse().unwrap_or(NAN)
}

/// `a * b + c` rounded once, half-even (IEEE fusedMultiplyAdd, as `bid128_fma`). Written here
/// because decmathlib's port of it panics on some operands (unported `goto` paths).
fn fma(a: d128, b: d128, c: d128) -> d128 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return NAN;
    }
    let prod_neg = a.is_sign_minus() != b.is_sign_minus();
    if a.is_infinite() || b.is_infinite() {
        if a.is_zero() || b.is_zero() || (c.is_infinite() && c.is_sign_minus() != prod_neg) {
            return NAN;
        }
        return if prod_neg { decmathlib_rs::d128::NEGATIVE_INFINITY } else { decmathlib_rs::d128::INFINITY };
    }
    if c.is_infinite() {
        return c;
    }
    let (Some(pa), Some(pb), Some(pc)) = (parts(a), parts(b), parts(c)) else { return NAN };
    let prod = int_big(pa.coeff).mul_full_prec(&int_big(pb.coeff));
    let mut terms = [(prod_neg, prod, pa.exp + pb.exp), (pc.neg, int_big(pc.coeff), pc.exp)];
    let zero_exp = terms[0].2.min(terms[1].2);
    // A term far below the other's last digit and below the rounding position only counts as a
    // nudge: replace it by a unit just as far below, with its sign (same rounding, small sum).
    let digits_of = |t: &(bool, BigFloat, i32)| digits(&t.1);
    let (d0, d1) = (digits_of(&terms[0]), digits_of(&terms[1]));
    if d0 > 0 && d1 > 0 {
        let (big, small) = if d0 + terms[0].2 >= d1 + terms[1].2 { (0, 1) } else { (1, 0) };
        let top = digits_of(&terms[big]) + terms[big].2;
        let floor = terms[big].2.min(top - 36);
        if digits_of(&terms[small]) + terms[small].2 < floor - 2 {
            terms[small] = (terms[small].0, int_big(1), floor - 3);
        }
    }
    let e = terms[0].2.min(terms[1].2);
    let scaled: Vec<(bool, BigFloat)> =
        terms.iter().map(|(neg, c, x)| (*neg, c.mul_full_prec(&pow10((x - e) as u32)))).collect();
    let (n0, n1) = (&scaled[0], &scaled[1]);
    let p = n0.1.exponent().unwrap_or(0).max(n1.1.exponent().unwrap_or(0)).max(0) as usize + 2 * WORD_BIT_SIZE;
    let signed = |t: &(bool, BigFloat)| if t.0 { t.1.neg() } else { t.1.clone() };
    let sum = signed(n0).add(&signed(n1), p, Rm::ToEven);
    if sum.is_zero() {
        let neg = terms[0].0 && terms[1].0 && d0 == 0 && d1 == 0;
        return from_parts(neg, 0, zero_exp.clamp(-6176, 6111));
    }
    round_decimal(sum.is_negative(), &sum.abs(), e)
}

fn int_big(n: u128) -> BigFloat {
    BigFloat::from_u128(n, 128)
}

/// The number of decimal digits of a nonnegative integer (0 for zero).
fn digits(n: &BigFloat) -> i32 {
    if n.is_zero() {
        return 0;
    }
    let bits = n.exponent().unwrap_or(1);
    let mut d = ((bits - 1) as f64 * std::f64::consts::LOG10_2).floor() as i32 + 1;
    while d > 1 && n.partial_cmp(&pow10((d - 1) as u32)) == Some(Ordering::Less) {
        d -= 1;
    }
    while n.partial_cmp(&pow10(d as u32)) != Some(Ordering::Less) {
        d += 1;
    }
    d
}

/// `n * 10^e` (`n` a positive integer) rounded half-even to a decimal128: 34 digits, subnormal
/// results rounded at exponent -6176, large exponents clamped or overflowing to Infinity.
fn round_decimal(neg: bool, n: &BigFloat, e: i32) -> d128 {
    let d = digits(n);
    let k = (d - 34).max(-6176 - e).max(0);
    let mut q = n.clone();
    let mut e = e;
    if k > 0 {
        let p10 = pow10(k as u32);
        let bits = n.exponent().unwrap_or(0).max(0) as usize + 2 * WORD_BIT_SIZE;
        let floor = n.div(&p10, bits, Rm::None).int();
        let rest = n.sub(&floor.mul_full_prec(&p10), bits, Rm::ToEven);
        let twice = rest.mul_full_prec(&int_big(2));
        let odd = big_to_u128(&floor).is_some_and(|f| f & 1 == 1);
        let up = match twice.partial_cmp(&p10) {
            Some(Ordering::Greater) => true,
            Some(Ordering::Equal) => odd,
            _ => false,
        };
        q = if up { floor.add(&int_big(1), bits, Rm::ToEven) } else { floor };
        e += k;
    }
    let Some(mut c) = big_to_u128(&q) else { return NAN };
    if c == TEN_POW_34 {
        c = TEN_POW_33;
        e += 1;
    }
    if e > 6111 {
        // Clamped: pad the coefficient with zeros while it fits, else overflow.
        let pad = (e - 6111) as u32;
        match 10u128.checked_pow(pad).and_then(|f| c.checked_mul(f)) {
            Some(x) if x < TEN_POW_34 => return from_parts(neg, x, 6111),
            _ if c == 0 => return from_parts(neg, 0, 6111),
            _ => {
                return if neg { decmathlib_rs::d128::NEGATIVE_INFINITY } else { decmathlib_rs::d128::INFINITY };
            }
        }
    }
    from_parts(neg, c, e)
}

fn dec_cmp(a: d128, b: d128) -> Option<Ordering> {
    a.partial_cmp(&b)
}

// ---------------------------------------------------------------------------------------------
// Binary side

/// A binary128 value: `m * 2^e` with `0 < m < 2^113`, or a special value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Quad {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin { neg: bool, m: u128, e: i32 },
}

impl Quad {
    fn is_neg(self) -> bool {
        matches!(self, Quad::Inf(true) | Quad::Zero(true) | Quad::Fin { neg: true, .. })
    }

    fn neg(self) -> Quad {
        match self {
            Quad::Nan => Quad::Nan,
            Quad::Inf(s) => Quad::Inf(!s),
            Quad::Zero(s) => Quad::Zero(!s),
            Quad::Fin { neg, m, e } => Quad::Fin { neg: !neg, m, e },
        }
    }

    fn abs(self) -> Quad {
        if self.is_neg() {
            self.neg()
        } else {
            self
        }
    }

    /// The exact value as a big float.
    fn big(self) -> BigFloat {
        match self {
            Quad::Nan => astro_float::NAN,
            Quad::Inf(false) => astro_float::INF_POS,
            Quad::Inf(true) => astro_float::INF_NEG,
            Quad::Zero(neg) => {
                let mut z = BigFloat::from_word(0, 128);
                if neg {
                    z.inv_sign();
                }
                z
            }
            Quad::Fin { neg, m, e } => exact_big(neg, m, e),
        }
    }

    /// A binary128 constant from its bit pattern (as Intel's `BID_F128_CONST_DEF`).
    fn from_bits(hi: u64, lo: u64) -> Quad {
        let bits = ((hi as u128) << 64) | lo as u128;
        let neg = bits >> 127 == 1;
        let biased = ((bits >> 112) & 0x7fff) as i32;
        let frac = bits & ((1u128 << 112) - 1);
        if biased == 0 && frac == 0 {
            return Quad::Zero(neg);
        }
        let (m, e) = if biased == 0 { (frac, QUAD_MIN_LSB) } else { (frac | (1u128 << 112), biased - 16383 - 112) };
        Quad::Fin { neg, m, e }
    }

    fn cmp_abs(self, other: Quad) -> Option<Ordering> {
        self.abs().big().partial_cmp(&other.abs().big())
    }

    fn cmp(self, other: Quad) -> Option<Ordering> {
        self.big().partial_cmp(&other.big())
    }
}

fn exact_big(neg: bool, m: u128, e: i32) -> BigFloat {
    let mut b = BigFloat::from_u128(m, 128);
    if let Some(x) = b.exponent() {
        b.set_exponent(x + e);
    }
    if neg {
        b.inv_sign();
    }
    b
}

/// The mantissa of a finite nonzero big float: its words (least significant first), their total
/// bit length, the sign and the exponent (`value = mantissa / 2^bits * 2^exponent`).
fn raw(x: &BigFloat) -> Option<(Vec<Word>, i64, bool, i64)> {
    let (words, _, sign, e, _) = x.as_raw_parts()?;
    Some((words.to_vec(), (words.len() * WORD_BIT_SIZE) as i64, sign == Sign::Neg, e as i64))
}

/// Bit `i` of the mantissa counted from the most significant (0).
fn bit_from_top(words: &[Word], i: i64) -> bool {
    let total = (words.len() * WORD_BIT_SIZE) as i64;
    if i < 0 || i >= total {
        return false;
    }
    let pos = total - 1 - i; // from the least significant
    let w = words[(pos / WORD_BIT_SIZE as i64) as usize];
    (w >> (pos % WORD_BIT_SIZE as i64)) & 1 == 1
}

/// Whether any mantissa bit at index `from` (from the top) or below is set.
fn any_from(words: &[Word], from: i64) -> bool {
    let total = (words.len() * WORD_BIT_SIZE) as i64;
    let from = from.max(0);
    if from >= total {
        return false;
    }
    let below = total - from; // number of low bits considered
    let full_words = (below / WORD_BIT_SIZE as i64) as usize;
    let rest = (below % WORD_BIT_SIZE as i64) as u32;
    if words[..full_words].iter().any(|w| *w != 0) {
        return true;
    }
    rest > 0 && (words[full_words] & (((1 as Word) << rest) - 1)) != 0
}

/// The integer formed by the `n` (at most 128) most significant mantissa bits.
fn top_bits(words: &[Word], n: i64) -> u128 {
    let mut acc: u128 = 0;
    for i in 0..n {
        acc = (acc << 1) | bit_from_top(words, i) as u128;
    }
    acc
}

/// Rounds a big float to binary128, half-even, with binary128's subnormals and overflow.
fn quad(x: &BigFloat) -> Quad {
    if x.is_nan() {
        return Quad::Nan;
    }
    if x.is_inf() {
        return Quad::Inf(x.is_inf_neg());
    }
    if x.is_zero() {
        return Quad::Zero(x.is_negative());
    }
    let Some((words, _, neg, ex)) = raw(x) else { return Quad::Nan };
    // value in [2^(ex-1), 2^ex)
    let lsb = if ex - 1 >= QUAD_MIN_NORMAL_EXP as i64 { ex - QUAD_BITS as i64 } else { QUAD_MIN_LSB as i64 };
    let keep = ex - lsb;
    if keep < 0 {
        return Quad::Zero(neg);
    }
    let mut m = top_bits(&words, keep);
    let round = bit_from_top(&words, keep);
    let sticky = any_from(&words, keep + 1);
    if round && (sticky || m & 1 == 1) {
        m += 1;
    }
    let mut lsb = lsb;
    if m == 0 {
        return Quad::Zero(neg);
    }
    if m >> QUAD_BITS != 0 {
        m >>= 1;
        lsb += 1;
    }
    let bits = 128 - m.leading_zeros() as i64;
    if lsb + bits > QUAD_MAX_EXP as i64 {
        return Quad::Inf(neg);
    }
    Quad::Fin { neg, m, e: lsb as i32 }
}

fn q2(a: Quad, b: Quad, op: impl Fn(&BigFloat, &BigFloat) -> BigFloat) -> Quad {
    quad(&op(&a.big(), &b.big()))
}

fn qadd(a: Quad, b: Quad) -> Quad {
    q2(a, b, |x, y| x.add(y, WIDE.max(x.precision().unwrap_or(0) + y.precision().unwrap_or(0) + 64), Rm::ToEven))
}

fn qsub(a: Quad, b: Quad) -> Quad {
    qadd(a, b.neg())
}

fn qmul(a: Quad, b: Quad) -> Quad {
    q2(a, b, |x, y| x.mul_full_prec(y))
}

fn qdiv(a: Quad, b: Quad) -> Quad {
    q2(a, b, |x, y| x.div(y, WIDE, Rm::ToEven))
}

/// A binary128 function: the exact argument's function at 256 bits, rounded to binary128.
fn qfn(a: Quad, f: impl Fn(&BigFloat, &mut Consts) -> BigFloat) -> Quad {
    let x = a.big();
    with_consts(|cc| quad(&f(&x, cc))).unwrap_or(Quad::Nan)
}

/// `10^n`, exactly.
fn pow10(n: u32) -> BigFloat {
    // 10^n = 5^n * 2^n: 5^n has n * log2(5) < 2.33 n bits.
    let p = (n as usize * 233 / 100 + 2 * WORD_BIT_SIZE).max(128);
    BigFloat::from_word(10, 64).powi(n as usize, p, Rm::ToEven)
}

/// The decimal's value at precision `p` (correctly rounded), or exactly when it is an integer.
fn dec_big(d: Parts, p: usize) -> BigFloat {
    let c = BigFloat::from_u128(d.coeff, 128);
    let mut v = if d.coeff == 0 {
        c
    } else if d.exp >= 0 {
        c.mul_full_prec(&pow10(d.exp as u32))
    } else {
        c.div(&pow10(d.exp.unsigned_abs()), p, Rm::ToEven)
    };
    if d.neg {
        v.inv_sign();
    }
    v
}

/// `bid128_to_binary128`: the decimal rounded to binary128.
fn to_quad(d: d128) -> Quad {
    if d.is_nan() {
        return Quad::Nan;
    }
    if d.is_infinite() {
        return Quad::Inf(d.is_sign_minus());
    }
    let Some(p) = parts(d) else { return Quad::Nan };
    if p.coeff == 0 {
        return Quad::Zero(p.neg);
    }
    // Past binary128's range: no need to build the exact value.
    let digits = p.coeff.to_string().len() as i32;
    if p.exp + digits > 4934 {
        return Quad::Inf(p.neg);
    }
    if p.exp + digits < -4970 {
        return Quad::Zero(p.neg);
    }
    quad(&dec_big(p, WIDE + 64))
}

/// `bid128_to_binary128_2part`: the decimal as a binary128 `n` and the binary128 `m` nearest the
/// remainder, `x ≈ n + m`.
fn to_quad_2part(d: d128) -> (Quad, Quad) {
    let n = to_quad(d);
    let Some(p) = parts(d) else { return (n, Quad::Zero(false)) };
    let x = dec_big(p, 2 * WIDE);
    let rest = x.sub(&n.big(), 2 * WIDE, Rm::ToEven);
    (n, quad(&rest))
}

/// `binary128_to_bid128`, half-even: exact integers below 10^34 with exponent 0, exact fractions
/// `c / 2^a` (`a <= 48`) whose `c * 5^a` fits 34 digits with exponent `-a`, anything else rounded
/// to 34 digits.
fn from_quad(q: Quad) -> d128 {
    let (neg, m, e) = match q {
        Quad::Nan => return NAN,
        Quad::Inf(false) => return decmathlib_rs::d128::INFINITY,
        Quad::Inf(true) => return decmathlib_rs::d128::NEGATIVE_INFINITY,
        Quad::Zero(neg) => return from_parts(neg, 0, 0),
        Quad::Fin { neg, m, e } => (neg, m, e),
    };
    let tz = m.trailing_zeros();
    let (m, e) = (m >> tz, e + tz as i32);
    if e >= 0 {
        if e < 128 && (m.leading_zeros() as i32) > e {
            let c = m << e;
            if c < TEN_POW_34 {
                return from_parts(neg, c, 0);
            }
        }
    } else if e >= -48 {
        let a = e.unsigned_abs();
        if let Some(c) = m.checked_mul(5u128.pow(a)) {
            if c < TEN_POW_34 {
                return from_parts(neg, c, e);
            }
        }
    }
    match round34(m, e) {
        Some((c, k)) => from_parts(neg, c, k),
        None => NAN,
    }
}

/// The nonnegative integer value of a big float below 2^128.
fn big_to_u128(x: &BigFloat) -> Option<u128> {
    if x.is_zero() {
        return Some(0);
    }
    let (words, _, _, ex) = raw(x)?;
    if ex <= 0 {
        return Some(0);
    }
    if ex > 128 {
        return None;
    }
    Some(top_bits(&words, ex))
}

/// `m * 2^e` rounded half-even to a 34-digit coefficient `c` and exponent `k` (`c * 10^k`).
fn round34(m: u128, e: i32) -> Option<(u128, i32)> {
    let v = exact_big(false, m, e);
    let top = (128 - m.leading_zeros()) as i32 + e; // v in [2^(top-1), 2^top)
    let mut k = ((top - 1) as f64 * std::f64::consts::LOG10_2).floor() as i32 - 33;
    let lo = BigFloat::from_u128(TEN_POW_33, 128);
    let hi = BigFloat::from_u128(TEN_POW_34, 128);
    let half = BigFloat::from_f64(0.5, 64);
    for _ in 0..4 {
        // t = v / 10^k, exact when k <= 0, truncated (astro-float's `None`: no rounding) and
        // checked when it matters otherwise.
        let (t, p) = if k <= 0 {
            (v.mul_full_prec(&pow10(k.unsigned_abs())), None)
        } else {
            let p = pow10(k as u32);
            (v.div(&p, WIDE, Rm::None), Some(p))
        };
        if t.partial_cmp(&hi) != Some(Ordering::Less) {
            k += 1;
            continue;
        }
        if t.partial_cmp(&lo) == Some(Ordering::Less) {
            k -= 1;
            continue;
        }
        let int = t.int();
        let mut c = big_to_u128(&int)?;
        let up = match t.fract().partial_cmp(&half)? {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => match &p {
                // Truncated to exactly a half: a tie only when the division was exact.
                Some(p) => t.mul_full_prec(p).partial_cmp(&v) != Some(Ordering::Equal) || c & 1 == 1,
                None => c & 1 == 1,
            },
        };
        if up {
            c += 1;
        }
        if c == TEN_POW_34 {
            return Some((TEN_POW_33, k + 1));
        }
        return Some((c, k));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The library's functions

/// What `bid128_exp`, `bid128_exp2` and `bid128_exp10` answer without computing: NaN, the
/// infinities and zero.
fn exp_special(x: d128) -> Option<d128> {
    if x.is_nan() {
        return Some(x);
    }
    if x.is_infinite() {
        return Some(if x.is_sign_minus() { dec_zero() } else { x });
    }
    if x.is_zero() {
        return Some(dec_one());
    }
    None
}

/// `bid128_exp` and `bid128_exp2`: past `limit` the result overflows (`big * big`) or underflows;
/// otherwise `kernel` (the binary128 power of the base) of the argument's high part, corrected by
/// its low part times the base's natural logarithm (`ln_base`; none for e), an argument beyond
/// +-11000 split off by `big`/`small` (the base to the +-11000).
fn exp_two_part(x: d128, limit: i32, big: d128, small: d128, ln_base: Option<Quad>, kernel: impl Fn(Quad) -> Quad) -> d128 {
    if let Some(r) = exp_special(x) {
        return r;
    }
    if dec_cmp(x, d128::from(limit)) == Some(Ordering::Greater) {
        return big * big; // overflows to Infinity
    }
    if dec_cmp(x, d128::from(-limit)) == Some(Ordering::Less) {
        let tiny = dec_bits(0x0160000000000000, 1); // 10^-6000
        return tiny * tiny; // underflows to zero
    }
    let (nq, mq) = to_quad_2part(x);
    let c11000 = Quad::from_bits(0x400c57c000000000, 0);
    let of = |n: Quad| {
        let r = kernel(n);
        let t = match ln_base {
            Some(l) => qmul(qmul(r, l), mq),
            None => qmul(r, mq),
        };
        from_quad(qadd(r, t))
    };
    if nq.cmp(c11000) == Some(Ordering::Greater) {
        of(qsub(nq, c11000)) * big
    } else if nq.cmp(c11000.neg()) == Some(Ordering::Less) {
        of(qadd(nq, c11000)) * small
    } else {
        of(nq)
    }
}

/// `bid128_exp`.
pub fn exp(x: d128) -> d128 {
    let e11000 = dec_bits(0x5550558ada285f8b, 0xd43ede775707fd0a);
    let em11000 = dec_bits(0x0aab1c2bbc58f8f5, 0x995ab6781dd4b6f5);
    exp_two_part(x, 15000, e11000, em11000, None, |n| qfn(n, |v, cc| v.exp(WIDE, Rm::ToEven, cc)))
}

/// The binary128 logarithm of a positive finite decimal as `bid128_log` computes it before its
/// final conversion (`scale` is added for arguments beyond binary128's range).
fn log_quad(x: d128, inv_ln10: Option<Quad>) -> Quad {
    let big = dec_bits(0x5320000000000000, 1); // 10^4464
    let small = dec_bits(0x0d60000000000000, 1); // 10^-4464
    let ln = |q: Quad| qfn(q, |v, cc| v.ln(WIDE, Rm::ToEven, cc));
    let scaled = |q: Quad| match inv_ln10 {
        Some(c) => qmul(q, c),
        None => q,
    };
    let shift = match inv_ln10 {
        Some(_) => Quad::from_bits(0x400b170000000000, 0), // 4464
        None => Quad::from_bits(0x400c4135eb3929fb, 0xa719f2c946d2d728), // 4464 ln 10
    };
    if dec_cmp(x, big) == Some(Ordering::Greater) {
        let r = scaled(ln(to_quad(x * small)));
        return qadd(r, shift);
    }
    if dec_cmp(x, small) == Some(Ordering::Less) {
        let r = scaled(ln(to_quad(x * big)));
        return qsub(r, shift);
    }
    let xq = to_quad(x);
    let mut r = ln(xq);
    let one = Quad::from_bits(0x3fff000000000000, 0);
    let half = Quad::from_bits(0x3ffe000000000000, 0);
    let e_bin = qsub(xq, one);
    if e_bin.cmp_abs(half) == Some(Ordering::Less) {
        // Correct for the argument's rounding near 1.
        let e = to_quad(x - dec_one());
        let rt = qdiv(qsub(e_bin, e), xq);
        r = qsub(r, rt);
    }
    scaled(r)
}

fn log_special(x: d128) -> Option<d128> {
    if x.is_nan() {
        return Some(x);
    }
    if x.is_zero() {
        return Some(decmathlib_rs::d128::NEGATIVE_INFINITY);
    }
    if x.is_sign_minus() {
        return Some(NAN);
    }
    if x.is_infinite() {
        return Some(x);
    }
    None
}

/// `bid128_log`: the natural logarithm.
pub fn ln(x: d128) -> d128 {
    log_special(x).unwrap_or_else(|| from_quad(log_quad(x, None)))
}

/// `bid128_log10`.
pub fn log10(x: d128) -> d128 {
    let inv_ln10 = Quad::from_bits(0x3ffdbcb7b1526e50, 0xe32a6ab7555f5a68);
    log_special(x).unwrap_or_else(|| from_quad(log_quad(x, Some(inv_ln10))))
}

/// `$log` on decimals: `ln(x) / ln(base)`, each rounded to a decimal.
pub fn log(x: d128, base: d128) -> d128 {
    ln(x) / ln(base)
}

/// `bid128_exp10`.
fn exp10(x: d128) -> d128 {
    if let Some(r) = exp_special(x) {
        return r;
    }
    let neg = x.is_sign_minus();
    let ax = x.abs();
    if dec_cmp(ax, d128::from(6400)) == Some(Ordering::Greater) {
        let t = if neg { dec_bits(0x1100000000000000, 1) } else { dec_bits(0x4f80000000000000, 1) };
        return t * t;
    }
    let mut flags = 0;
    let k = ax.convert_to_i32_ties_to_even(&mut flags) as i64;
    let fd = if neg { x + d128::from(k) } else { x - d128::from(k) };
    let r = from_quad(qfn(to_quad(fd), |v, cc| {
        let ten = BigFloat::from_word(10, 64);
        ten.pow(v, WIDE, Rm::ToEven, cc)
    }));
    let k = if neg { -k } else { k };
    // The library adds k to the result's exponent; past 6111 half of it, then multiplies by
    // the other half's power of ten (which rounds where the result leaves the range).
    match parts(r) {
        Some(p) if ax <= d128::from(6111) => from_parts(p.neg, p.coeff, p.exp + k as i32),
        Some(p) => {
            let first = k >> 1;
            from_parts(p.neg, p.coeff, p.exp + first as i32) * from_parts(false, 1, (k - first) as i32)
        }
        None => r,
    }
}

/// `bid128_exp2`.
fn exp2(x: d128) -> d128 {
    let e11000 = dec_bits(0x49dc6965e972d2c8, 0x910be3407d25b9c8);
    let em11000 = dec_bits(0x161ee6a2f56f0580, 0x0555ddab03e9e679);
    let ln2 = Quad::from_bits(0x3ffe62e42fefa39e, 0xf35793c7673007e6);
    exp_two_part(x, 25000, e11000, em11000, Some(ln2), |n| {
        qfn(n, |v, cc| BigFloat::from_word(2, 64).pow(v, WIDE, Rm::ToEven, cc))
    })
}

/// `bid128_pow`: `x^y` through an accurate two-part decimal logarithm and `bid128_exp`.
fn pow(x: d128, y: d128) -> d128 {
    let one = dec_one();
    let inf = decmathlib_rs::d128::INFINITY;
    if y.is_zero() || x == one {
        return one;
    }
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if y.is_infinite() {
        let a = x.abs();
        return match dec_cmp(a, one) {
            Some(Ordering::Equal) => one,
            Some(Ordering::Less) => {
                if y.is_sign_minus() {
                    inf
                } else {
                    dec_zero()
                }
            }
            _ => {
                if y.is_sign_minus() {
                    dec_zero()
                } else {
                    inf
                }
            }
        };
    }
    let mut flags = 0;
    let y_int = y.nearbyint(Some(decmathlib_rs::d128::RoundingMode::NearestEven), &mut flags);
    let is_int = y_int == y;
    let is_odd = is_int
        && parts(y_int).is_some_and(|p| {
            // An integer with exponent > 0 is even.
            p.exp == 0 && p.coeff & 1 == 1
        });
    let flip = |r: d128| if is_odd && x.is_sign_minus() { -r } else { r };
    if x.is_infinite() {
        return flip(if y.is_sign_minus() { dec_zero() } else { inf });
    }
    if x.is_zero() {
        return flip(if y.is_sign_minus() { inf } else { dec_zero() });
    }
    if x.is_sign_minus() && !is_int {
        return NAN;
    }
    let xa = x.abs();
    let Some((l_hi, l_lo)) = accurate_log(xa) else { return NAN };
    let l = y * l_hi;
    let res = exp(l);
    if res.is_zero() {
        return dec_bits(0, 0);
    }
    if res.is_infinite() {
        return res;
    }
    let l_hi = fma(y, l_hi, -l);
    let l_lo = fma(y, l_lo, l_hi);
    flip(fma(res, l_lo, res))
}

/// The library's two-part logarithm of a positive finite decimal: `ln(x)` truncated to 28
/// decimals, and the next 19 decimals; near 1, three terms of the Taylor series.
fn accurate_log(xa: d128) -> Option<(d128, d128)> {
    let p = parts(xa)?;
    // ln(x) to 384 bits: x needs its integer part exactly and ample fraction bits.
    let digits = p.coeff.to_string().len() as i32;
    let prec = 384 + ((p.exp + digits).max(0) as usize * 34 / 10);
    let x = dec_big(p, prec);
    let l = with_consts(|cc| x.ln(prec.min(512), Rm::ToEven, cc))?;
    let neg = l.is_negative();
    let a = l.abs().mul_full_prec(&pow10(28));
    let whole = a.int();
    // "ans.w[2] < 2": the integer part of |ln x| * 10^28 is below 2^65.
    if whole.partial_cmp(&BigFloat::from_u128(1u128 << 65, 128)) == Some(Ordering::Less) {
        let t = xa - dec_one();
        let c2 = dec_bits(0xb03e000000000000, 5);
        let c3 = dec_bits(0x2ffca45894e48295, 0x67d9da2155555555);
        let c4 = dec_bits(0xb03c000000000000, 0x19);
        let mut tp = t * t;
        let mut ts = c2 * tp;
        tp = t * tp;
        ts = ts + c3 * tp;
        tp = t * tp;
        ts = ts + c4 * tp;
        let l_hi = t + ts;
        let l_lo = (l_hi - t) - ts;
        return Some((l_hi, l_lo));
    }
    let hi = big_to_u128(&whole)?;
    let lo = big_to_u128(&a.fract().mul_full_prec(&pow10(19)).int())?;
    Some((from_parts(neg, hi, -28), from_parts(neg, lo, -47)))
}

/// The server's `Decimal128::power`: `exp10`/`exp2` for bases 10 and 2, `pow` otherwise, then
/// widened to 34 digits (`add(0E-6176)`).
pub fn power(x: d128, y: d128) -> d128 {
    let r = if x == d128::from(10) {
        exp10(y)
    } else if x == d128::from(2) {
        exp2(y)
    } else {
        pow(x, y)
    };
    r + dec_bits(0, 0)
}

// ---------------------------------------------------------------------------------------------
// Trigonometry

/// A function of the decimal rounded to binary128, rounded to binary128 and then to a decimal.
fn quad_arg(x: d128, f: impl Fn(&BigFloat, &mut Consts) -> BigFloat) -> d128 {
    if x.is_nan() {
        return x;
    }
    from_quad(qfn(to_quad(x), f))
}

fn big_one() -> BigFloat {
    BigFloat::from_word(1, 64)
}

fn with_sign(neg: bool, q: Quad) -> Quad {
    if neg {
        q.neg()
    } else {
        q
    }
}

/// `x * (1 + nudge)` rounded once: the library's answer for arguments too small for binary128.
fn nudged(x: d128, neg_nudge: bool) -> d128 {
    let n = from_parts(neg_nudge, 1, -40);
    fma(x, n, x)
}

/// binary128 1e-40, below which the library answers with [`nudged`].
fn quad_1em40() -> Quad {
    Quad::from_bits(0x3f7a16c262777579, 0xc58c46475896767b)
}

fn quad_pi_over_2() -> Quad {
    Quad::from_bits(0x3fff921fb54442d1, 0x8469898cc51701b8)
}

#[derive(Clone, Copy, PartialEq)]
enum Trig {
    Sin,
    Cos,
    Tan,
}

/// `bid128_sin`.
pub fn sin(x: d128) -> d128 {
    reduced_trig(x, Trig::Sin)
}

/// `bid128_cos`.
pub fn cos(x: d128) -> d128 {
    reduced_trig(x, Trig::Cos)
}

/// `bid128_tan`.
pub fn tan(x: d128) -> d128 {
    reduced_trig(x, Trig::Tan)
}

/// `bid128_sin`, `bid128_cos`, `bid128_tan`: arguments with an exponent below -35 directly in
/// binary128 (below -52 a nudge by 10^-40); others reduced exactly to a quadrant `k` and a
/// fraction of pi/2 in [-1/2, 1/2], the fraction truncated to 113 bits and multiplied by
/// binary128 pi/2, and the quadrant's function taken in binary128.
fn reduced_trig(x: d128, f: Trig) -> d128 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return NAN;
    }
    let Some(p) = parts(x) else { return NAN };
    let e = match (p.coeff, f) {
        (0, Trig::Sin) => return x * dec_one(),
        (0, _) => -53,
        _ => p.exp,
    };
    let eval = |g: Trig, v: &BigFloat, cc: &mut Consts| match g {
        Trig::Sin => v.sin(WIDE, Rm::ToEven, cc),
        Trig::Cos => v.cos(WIDE, Rm::ToEven, cc),
        Trig::Tan => {
            let (s, c) = (v.sin(WIDE + 64, Rm::ToEven, cc), v.cos(WIDE + 64, Rm::ToEven, cc));
            s.div(&c, WIDE, Rm::ToEven)
        }
    };
    if e < -35 {
        if e < -52 {
            return match f {
                Trig::Sin => nudged(x, true),
                Trig::Cos => dec_one() - from_parts(false, 1, -40),
                Trig::Tan => nudged(x, false),
            };
        }
        return from_quad(qfn(to_quad(x), |v, cc| eval(f, v, cc)));
    }
    let v = dec_big(Parts { neg: false, ..p }, WIDE + 128);
    let reduced = with_consts(|cc| {
        let bits = v.exponent().unwrap_or(0).max(0) as usize + 2 * WIDE;
        let mut two_pi = cc.pi(bits, Rm::ToEven);
        if let Some(x) = two_pi.exponent() {
            two_pi.set_exponent(x + 1);
        }
        let mut q = v.div(&two_pi, bits, Rm::ToEven).fract();
        if let Some(x) = q.exponent() {
            q.set_exponent(x + 2); // 4 frac(x / 2 pi): the quadrant and the fraction
        }
        let mut k = big_to_u128(&q.int()).unwrap_or(0) as i32;
        let mut frac = q.fract();
        let mut neg = p.neg;
        if frac.partial_cmp(&BigFloat::from_f64(0.5, 64)) != Some(Ordering::Less) {
            k = (k + 1) & 3;
            frac = big_one().sub(&frac, bits, Rm::ToEven);
            neg = !neg;
        }
        if p.neg {
            k = (-k) & 3;
        }
        (k, with_sign(neg, truncate_quad(&frac)))
    });
    let Some((k, fd)) = reduced else { return NAN };
    let xd = qmul(quad_pi_over_2(), fd);
    let y = match (f, k) {
        (Trig::Sin, 0) | (Trig::Cos, 3) => qfn(xd, |v, cc| eval(Trig::Sin, v, cc)),
        (Trig::Sin, 2) | (Trig::Cos, 1) => qfn(xd, |v, cc| eval(Trig::Sin, v, cc)).neg(),
        (Trig::Sin, 1) | (Trig::Cos, 0) => qfn(xd, |v, cc| eval(Trig::Cos, v, cc)),
        (Trig::Sin, _) | (Trig::Cos, _) => qfn(xd, |v, cc| eval(Trig::Cos, v, cc)).neg(),
        (Trig::Tan, 0) | (Trig::Tan, 2) => qfn(xd, |v, cc| eval(Trig::Tan, v, cc)),
        (Trig::Tan, _) => qdiv(Quad::from_bits(0xbfff000000000000, 0), qfn(xd, |v, cc| eval(Trig::Tan, v, cc))),
    };
    from_quad(y)
}

/// A fraction in [0, 1/2] truncated to 113 significant bits, as the library packs it.
fn truncate_quad(f: &BigFloat) -> Quad {
    if f.is_zero() {
        return Quad::Zero(false);
    }
    let Some((words, _, _, ex)) = raw(f) else { return Quad::Zero(false) };
    let m = top_bits(&words, QUAD_BITS as i64);
    Quad::Fin { neg: false, m, e: ex as i32 - QUAD_BITS }
}

/// `bid128_asin`: near ±1 through `acos(sqrt(1 - x^2))` with `1 - x^2` computed in decimal.
pub fn asin(x: d128) -> d128 {
    if x.is_nan() {
        return x;
    }
    let xd = to_quad(x);
    if xd.cmp_abs(quad_1em40()) == Some(Ordering::Less) {
        return nudged(x, false);
    }
    let seven_tenths = Quad::from_bits(0x3ffe666666666666, 0x6666666666666666);
    if xd.cmp_abs(seven_tenths) != Some(Ordering::Greater) {
        return from_quad(qfn(xd, |v, cc| v.asin(WIDE, Rm::ToEven, cc)));
    }
    let one = Quad::from_bits(0x3fff000000000000, 0);
    if xd.cmp_abs(one) == Some(Ordering::Greater) {
        return NAN;
    }
    let td = to_quad(fma(x, x, -dec_one()));
    let root = qfn(td.neg(), |v, _| v.sqrt(WIDE, Rm::ToEven));
    let y = qfn(root, |v, cc| v.acos(WIDE, Rm::ToEven, cc));
    from_quad(with_sign(xd.is_neg(), y))
}

/// `bid128_acos`: near ±1 through `asin(sqrt(1 - x^2))` with `1 - x^2` computed in decimal.
pub fn acos(x: d128) -> d128 {
    if x.is_nan() {
        return x;
    }
    let xd = to_quad(x);
    if xd.cmp_abs(quad_1em40()) == Some(Ordering::Less) {
        let pi2hi = dec_bits(0x2ffe4d723cabcb53, 0xdd5f2ab27379cfc7);
        let pi2lo = dec_bits(0x2fbad9f8afb501d4, 0x0492b4138a162883);
        return pi2hi + pi2lo;
    }
    let seven_tenths = Quad::from_bits(0x3ffe666666666666, 0x6666666666666666);
    if xd.cmp_abs(seven_tenths) != Some(Ordering::Greater) {
        return from_quad(qfn(xd, |v, cc| v.acos(WIDE, Rm::ToEven, cc)));
    }
    let one = Quad::from_bits(0x3fff000000000000, 0);
    if xd.cmp_abs(one) == Some(Ordering::Greater) {
        return NAN;
    }
    if xd.cmp(one) != Some(Ordering::Less) {
        return dec_bits(0, 0);
    }
    let td = to_quad(fma(x, x, -dec_one()));
    let root = qfn(td.neg(), |v, _| v.sqrt(WIDE, Rm::ToEven));
    let mut y = qfn(root, |v, cc| v.asin(WIDE, Rm::ToEven, cc));
    if xd.is_neg() {
        y = qsub(Quad::from_bits(0x4000921fb54442d1, 0x8469898cc51701b8), y);
    }
    from_quad(y)
}

/// `bid128_atan` (and `bid128_tanh`): tiny arguments nudged by -10^-40, zero kept.
fn tiny_or(x: d128, f: impl Fn(&BigFloat, &mut Consts) -> BigFloat) -> d128 {
    if x.is_nan() {
        return x;
    }
    let xd = to_quad(x);
    if xd.cmp_abs(quad_1em40()) == Some(Ordering::Less) {
        return if x.is_zero() { x * dec_one() } else { nudged(x, true) };
    }
    from_quad(qfn(xd, f))
}

/// `bid128_atan`.
pub fn atan(x: d128) -> d128 {
    if x.is_infinite() {
        let half_pi = with_consts(|cc| quad(&half(cc.pi(WIDE, Rm::ToEven)))).unwrap_or(Quad::Nan);
        return from_quad(with_sign(x.is_sign_minus(), half_pi));
    }
    tiny_or(x, |v, cc| v.atan(WIDE, Rm::ToEven, cc))
}

/// `bid128_tanh`.
pub fn tanh(x: d128) -> d128 {
    if x.is_infinite() {
        return if x.is_sign_minus() { -dec_one() } else { dec_one() };
    }
    tiny_or(x, |v, cc| v.tanh(WIDE, Rm::ToEven, cc))
}

fn half(v: BigFloat) -> BigFloat {
    let mut v = v;
    if let Some(e) = v.exponent() {
        v.set_exponent(e - 1);
    }
    v
}

/// `bid128_sinh` and `bid128_cosh`: tiny arguments nudged, |x| <= 1 in binary128, up to 64 as
/// `(e^x ∓ e^-x) / 2` in decimal with `bid128_exp`, beyond as `e^n e^m / 2` in binary128 with
/// `x = n + m`, `n` an integer.
fn sinh_cosh(x: d128, cosh: bool) -> d128 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return if cosh { decmathlib_rs::d128::INFINITY } else { x };
    }
    let xd = to_quad(x);
    if xd.cmp_abs(quad_1em40()) != Some(Ordering::Greater) {
        return if cosh { dec_one() + from_parts(false, 1, -40) } else { nudged(x, false) };
    }
    let one = Quad::from_bits(0x3fff000000000000, 0);
    if xd.cmp_abs(one) != Some(Ordering::Greater) {
        return from_quad(qfn(xd, |v, cc| if cosh { v.cosh(WIDE, Rm::ToEven, cc) } else { v.sinh(WIDE, Rm::ToEven, cc) }));
    }
    let neg = x.is_sign_minus();
    let ax = x.abs();
    let half_pos = from_parts(false, 5, -1);
    if xd.cmp_abs(Quad::from_bits(0x4005000000000000, 0)) != Some(Ordering::Greater) {
        let e = exp(ax);
        let i = dec_one() / e;
        let (a, b) = match (cosh, neg) {
            (true, _) => (half_pos, half_pos),
            (false, false) => (half_pos, -half_pos),
            (false, true) => (-half_pos, half_pos),
        };
        return fma(e, a, b * i);
    }
    let shifter = dec_bits(0x3040363bf3b1ceee, 0xbe00000000000000);
    let n = (ax + shifter) - shifter;
    let m = ax - n;
    let (mut nd, md) = (to_quad(n), to_quad(m));
    let c11000 = Quad::from_bits(0x400c57c000000000, 0);
    let big = nd.cmp(c11000) == Some(Ordering::Greater);
    if big {
        nd = qsub(nd, c11000);
    }
    let exp_q = |q: Quad| qfn(q, |v, cc| v.exp(WIDE, Rm::ToEven, cc));
    let half_q = Quad::from_bits(0x3ffe000000000000, 0);
    let rd = if cosh {
        qmul(qmul(half_q, exp_q(nd)), exp_q(md))
    } else {
        qmul(with_sign(neg, half_q), qmul(exp_q(nd), exp_q(md)))
    };
    let res = from_quad(rd);
    if big {
        res * dec_bits(0x5550558ada285f8b, 0xd43ede775707fd0a)
    } else {
        res
    }
}

/// `bid128_sinh`.
pub fn sinh(x: d128) -> d128 {
    sinh_cosh(x, false)
}

/// `bid128_cosh`.
pub fn cosh(x: d128) -> d128 {
    sinh_cosh(x, true)
}

/// ln(2 c) + e ln 10 in binary128 for a decimal `c * 10^e` with `e > 34` (asinh and acosh of
/// huge arguments, where `x + sqrt(x^2 ± 1)` is `2x`).
fn ln_twice_large(p: Parts) -> Quad {
    let xq = to_quad(from_parts(false, p.coeff, 0));
    let ln10 = Quad::from_bits(0x400026bb1bbb5551, 0x582dd4adac5705a6);
    let scaled = qmul(quad(&BigFloat::from_i32(p.exp, 64)), ln10);
    let l = qfn(qadd(xq, xq), |v, cc| v.ln(WIDE, Rm::ToEven, cc));
    qadd(scaled, l)
}

/// `bid128_asinh`.
pub fn asinh(x: d128) -> d128 {
    if x.is_nan() || x.is_infinite() || x.is_zero() {
        return x;
    }
    match parts(x) {
        Some(p) if p.exp > 34 => from_quad(with_sign(p.neg, ln_twice_large(p))),
        _ => quad_arg(x, |v, cc| v.asinh(WIDE, Rm::ToEven, cc)),
    }
}

/// `bid128_acosh`: below 1 + 1/32 as `asinh(sqrt(x^2 - 1))` with `sqrt(x^2 - 1)` in decimal.
pub fn acosh(x: d128) -> d128 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return if x.is_sign_minus() { NAN } else { x };
    }
    if x < from_parts(false, 103125, -5) {
        if x < dec_one() {
            return NAN;
        }
        let mut flags = 0;
        let z = fma(x, x, -dec_one()).square_root(None, &mut flags);
        return quad_arg(z, |v, cc| v.asinh(WIDE, Rm::ToEven, cc));
    }
    match parts(x) {
        Some(p) if p.exp > 34 => from_quad(ln_twice_large(p)),
        _ => quad_arg(x, |v, cc| v.acosh(WIDE, Rm::ToEven, cc)),
    }
}

/// `bid128_atanh`: `log1p(2|x| / (1 - |x|)) / 2` with the quotient in decimal.
pub fn atanh(x: d128) -> d128 {
    if x.is_nan() || x.is_zero() {
        return x;
    }
    if x.is_infinite() {
        return NAN;
    }
    let Some(p) = parts(x) else { return NAN };
    if p.exp <= -51 {
        return x;
    }
    let ax = x.abs();
    let one_m_x = dec_one() - ax;
    if one_m_x.is_sign_minus() {
        return NAN;
    }
    if one_m_x.is_zero() {
        return if p.neg { decmathlib_rs::d128::NEGATIVE_INFINITY } else { decmathlib_rs::d128::INFINITY };
    }
    let t = ax / one_m_x;
    let y = to_quad(t + t);
    let r = qfn(y, |v, cc| big_one().add(v, 2 * WIDE, Rm::ToEven).ln(WIDE, Rm::ToEven, cc));
    let r = qmul(r, Quad::from_bits(0x3ffe000000000000, 0));
    from_quad(with_sign(p.neg, r))
}

/// `bid128_atan2(y, x)`: the angle of the point `(x, y)`, through `atan(|y / x|)` with the
/// quotient in decimal and the library's 34-digit pi, pi/2, pi/4 and 3 pi/4.
pub fn atan2(y: d128, x: d128) -> d128 {
    let pi = dec_bits(0x2ffe9ae4795796a7, 0xbabe5564e6f39f8f);
    let pi_2 = dec_bits(0x2ffe4d723cabcb53, 0xdd5f2ab27379cfc7);
    let pi_4 = dec_bits(0x2ffe26b91e55e5a9, 0xeeaf955939bce7e4);
    let pi_3_4 = dec_bits(0x2ffe742b5b01b0fd, 0xcc0ec00bad36b7ab);
    let neg = y.is_sign_minus();
    let signed = |v: d128| if neg { -v } else { v };
    let zero = from_parts(neg, 0, -6176);
    if y.is_nan() {
        return y;
    }
    let x_valid = x.is_finite() && !x.is_zero();
    if y.is_infinite() {
        if x.is_infinite() {
            return signed(if x.is_sign_minus() { pi_3_4 } else { pi_4 });
        }
        if !x.is_nan() {
            return signed(pi_2);
        }
    }
    if y.is_zero() && x_valid {
        return if x.is_sign_minus() { signed(pi) } else { zero };
    }
    if !x_valid {
        if x.is_nan() {
            return x;
        }
        if x.is_infinite() {
            return if x.is_sign_minus() { signed(pi) } else { zero };
        }
        // x is zero
        if y.is_zero() {
            return if x.is_sign_minus() { signed(pi) } else { zero };
        }
        return signed(pi_2);
    }
    let z = y / x;
    let za = z.abs();
    if za > dec_bits(0x3088000000000000, 1) {
        return signed(pi_2);
    }
    if za < dec_bits(0x2ff8000000000000, 1) {
        return if x.is_sign_minus() { signed(pi) } else { z };
    }
    let r = from_quad(qfn(to_quad(za), |v, cc| v.atan(WIDE, Rm::ToEven, cc)));
    let r = if x.is_sign_minus() { pi - r } else { r };
    signed(r)
}

/// The server's `Decimal128::kPi` (its 50-digit literal rounded to 34 digits).
fn dec_pi() -> d128 {
    "3.14159265358979323846264338327950288419716939937510".parse().unwrap_or(NAN)
}

/// `$degreesToRadians` on a decimal: times `kPiOver180` (`kPi / 180`).
pub fn degrees_to_radians(x: d128) -> d128 {
    x * (dec_pi() / d128::from(180))
}

/// `$radiansToDegrees` on a decimal: times `k180OverPi` (`180 / kPi`).
pub fn radians_to_degrees(x: d128) -> d128 {
    x * (d128::from(180) / dec_pi())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> d128 {
        s.parse().unwrap_or(NAN)
    }

    fn show(x: d128) -> String {
        crate::value::number::from_d128(x).to_string()
    }

    #[test]
    fn binary128_round_trip_of_exact_values() {
        for s in ["1", "2.5", "0.5", "1024", "-3", "0.001"] {
            let q = to_quad(d(s));
            let back = show(from_quad(q));
            // Exact binary values keep their shortest exact form; 0.001 is not exact in binary
            // (its binary128 value, 0.00099999999999999999999999999999999994282..., rounds down).
            let want = match s {
                "0.001" => "0.0009999999999999999999999999999999999",
                other => other,
            };
            assert_eq!(back, want, "{s}");
        }
    }

    #[test]
    fn fma_rounds_once() {
        let f = |a: &str, b: &str, c: &str| show(fma(d(a), d(b), d(c)));
        assert_eq!(f("2", "3", "4"), "10");
        assert_eq!(f("1.5", "2", "0E-6176"), "3.000000000000000000000000000000000");
        assert_eq!(f("1E-6176", "0.5", "0"), "0E-6176"); // 0.5E-6176 ties to even
        assert_eq!(f("3E-6176", "0.5", "0"), "2E-6176"); // 1.5E-6176 ties to even
        assert_eq!(f("9.999999999999999999999999999999999E+6144", "10", "0"), "Infinity");
        assert_eq!(f("1", "1", "1E-50"), "1.000000000000000000000000000000000");
        assert_eq!(f("1", "1", "-1E-50"), "1.000000000000000000000000000000000");
        assert_eq!(f("1", "1", "-1E-33"), "0.999999999999999999999999999999999");
        assert_eq!(f("1", "1", "-1"), "0");
        assert_eq!(f("1E+6111", "1", "0E+6111"), "1E+6111");
    }

    #[test]
    fn binary128_limits() {
        assert_eq!(to_quad(d("1E+5000")), Quad::Inf(false));
        assert_eq!(to_quad(d("1E-5000")), Quad::Zero(false));
        assert!(matches!(to_quad(d("1E-4940")), Quad::Fin { .. }));
    }
}
