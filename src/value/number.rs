//! Numbers as the server sees them: int32, int64, double and decimal128, with exact comparison
//! across types and the server's promotion rules for arithmetic.

use std::cmp::Ordering;

use bson::{Bson, Decimal128};
use decmathlib_rs::d128::{d128, StatusFlags};

/// A BSON number, borrowed out of a value.
#[derive(Debug, Clone, Copy)]
pub enum Number {
    Int(i32),
    Long(i64),
    Double(f64),
    Decimal(d128),
}

/// Converts a BSON Decimal128 to the arithmetic type (by its string form, which both sides print
/// and parse exactly).
pub fn to_d128(d: &Decimal128) -> d128 {
    // Both are the IEEE 754-2008 BID encoding; BSON stores it little-endian.
    d128::from(u128::from_le_bytes(d.bytes()))
}

/// Converts an arithmetic decimal back to BSON.
pub fn from_d128(d: d128) -> Decimal128 {
    let s = format!("{d}");
    let s = normalize_decimal_string(&s);
    s.parse::<Decimal128>().unwrap_or_else(|_| "NaN".parse().expect("NaN parses"))
}

/// `bid128_to_string` prints `+1234E-2`; bson's parser wants `1234E-2` and `Infinity`/`NaN`.
fn normalize_decimal_string(s: &str) -> String {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = rest.to_ascii_lowercase();
    let body = if lower.starts_with("inf") {
        "Infinity".to_string()
    } else if lower.contains("nan") {
        return "NaN".to_string();
    } else {
        rest.replace("E+", "E")
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// The decimal as a double (nearest), for mixed arithmetic that the server does in double.
pub fn d128_to_f64(d: d128) -> f64 {
    let s = normalize_decimal_string(&format!("{d}"));
    match s.as_str() {
        "NaN" => f64::NAN,
        "Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ => s.parse::<f64>().unwrap_or(f64::NAN),
    }
}

/// The server's `Decimal128(double)` (precision `kRoundTo15Digits`), as arithmetic that mixes
/// doubles and decimals uses it: exactly 15 significant digits (`0.1` -> `0.100000000000000`).
pub fn d128_from_f64_15_digits(f: f64) -> d128 {
    if f == 0.0 || !f.is_finite() {
        return d128::from(f);
    }
    let s = format!("{f:.14e}").replace('e', "E");
    s.parse::<d128>().unwrap_or_else(|_| d128::from(f))
}

impl Number {
    /// The server's `Value::coerceToDecimal`: doubles are rounded to 15 significant digits.
    pub fn coerce_to_decimal(self) -> d128 {
        match self {
            Number::Double(f) => d128_from_f64_15_digits(f),
            other => other.to_decimal(),
        }
    }

    /// The number inside a value, if it is one.
    pub fn from_bson(v: &Bson) -> Option<Number> {
        match v {
            Bson::Int32(i) => Some(Number::Int(*i)),
            Bson::Int64(i) => Some(Number::Long(*i)),
            Bson::Double(f) => Some(Number::Double(*f)),
            Bson::Decimal128(d) => Some(Number::Decimal(to_d128(d))),
            _ => None,
        }
    }

    pub fn to_bson(self) -> Bson {
        match self {
            Number::Int(i) => Bson::Int32(i),
            Number::Long(i) => Bson::Int64(i),
            Number::Double(f) => Bson::Double(f),
            Number::Decimal(d) => Bson::Decimal128(from_d128(d)),
        }
    }

    pub fn is_nan(self) -> bool {
        match self {
            Number::Double(f) => f.is_nan(),
            Number::Decimal(d) => d.is_nan(),
            _ => false,
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Long(i) => i as f64,
            Number::Double(f) => f,
            Number::Decimal(d) => d128_to_f64(d),
        }
    }

    pub fn to_decimal(self) -> d128 {
        match self {
            Number::Int(i) => d128::from(i),
            Number::Long(i) => d128::from(i),
            Number::Double(f) => d128::from(f),
            Number::Decimal(d) => d,
        }
    }

    /// The value as an i64 when it is integral and in range (no rounding).
    pub fn to_exact_i64(self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(i as i64),
            Number::Long(i) => Some(i),
            Number::Double(f) => {
                if f.fract() == 0.0 && f >= -9.223_372_036_854_775_808e18 && f < 9.223_372_036_854_775_808e18 {
                    Some(f as i64)
                } else {
                    None
                }
            }
            Number::Decimal(d) => {
                // Truncated in decimal (a double would round integers past 2^53), then kept only
                // when nothing was cut off.
                let mut flags = 0;
                let i = d.convert_to_i64_toward_zero(&mut flags);
                if flags & StatusFlags::BID_INVALID_EXCEPTION == 0 && Number::Decimal(d).cmp_num(Number::Long(i)) == Ordering::Equal {
                    Some(i)
                } else {
                    None
                }
            }
        }
    }

    /// Total order of the server: NaN below every other number and equal to itself; values compare
    /// exactly across types (no rounding of large int64 through double).
    pub fn cmp_num(self, other: Number) -> Ordering {
        use Number::*;
        match (self, other) {
            (Int(a), Int(b)) => a.cmp(&b),
            (Int(a), Long(b)) => (a as i64).cmp(&b),
            (Long(a), Int(b)) => a.cmp(&(b as i64)),
            (Long(a), Long(b)) => a.cmp(&b),
            (Double(a), Double(b)) => cmp_f64(a, b),
            (Int(a), Double(b)) => cmp_f64(a as f64, b),
            (Double(a), Int(b)) => cmp_f64(a, b as f64),
            (Long(a), Double(b)) => cmp_i64_f64(a, b),
            (Double(a), Long(b)) => cmp_i64_f64(b, a).reverse(),
            (a, b) => cmp_d128(a.to_decimal(), b.to_decimal()),
        }
    }
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

fn cmp_i64_f64(a: i64, b: f64) -> Ordering {
    if b.is_nan() {
        return Ordering::Greater;
    }
    if b >= 9.223_372_036_854_775_808e18 {
        return Ordering::Less;
    }
    if b < -9.223_372_036_854_775_808e18 {
        return Ordering::Greater;
    }
    let bi = b.trunc() as i64;
    match a.cmp(&bi) {
        Ordering::Equal => {
            let frac = b - b.trunc();
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        o => o,
    }
}

fn cmp_d128(a: d128, b: d128) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Which kind of result mixed arithmetic produces: the "widest" operand type, with
/// int32 < int64 < double < decimal.
fn widest(a: Number, b: Number) -> u8 {
    fn rank(n: Number) -> u8 {
        match n {
            Number::Int(_) => 0,
            Number::Long(_) => 1,
            Number::Double(_) => 2,
            Number::Decimal(_) => 3,
        }
    }
    rank(a).max(rank(b))
}

/// The result of an integral operation on two int32/int64 numbers, typed as the server types it:
/// int32 when both operands are int32 and the result fits, int64 otherwise; `None` when int64
/// overflows.
fn integral(a: Number, b: Number, op: fn(i64, i64) -> Option<i64>) -> Option<Number> {
    let s = op(a.to_exact_i64()?, b.to_exact_i64()?)?;
    match i32::try_from(s) {
        Ok(i) if widest(a, b) == 0 => Some(Number::Int(i)),
        _ => Some(Number::Long(s)),
    }
}

/// `a + b` as the server's `$add`/`$inc`: int32 overflow becomes int64, int64 overflow becomes
/// double (for `$inc` the caller reports an error instead: see [`checked_add`]).
pub fn add(a: Number, b: Number) -> Number {
    match widest(a, b) {
        0 | 1 => integral(a, b, i64::checked_add).unwrap_or_else(|| Number::Double(a.to_f64() + b.to_f64())),
        2 => Number::Double(a.to_f64() + b.to_f64()),
        _ => Number::Decimal(a.coerce_to_decimal() + b.coerce_to_decimal()),
    }
}

/// `a + b` as update `$inc` does it: like [`add`] but int64 overflow is an error (`None`).
pub fn checked_add(a: Number, b: Number) -> Option<Number> {
    match widest(a, b) {
        0 | 1 => integral(a, b, i64::checked_add),
        _ => Some(add(a, b)),
    }
}

/// `a * b` as the server's `$multiply`: int32 overflow to int64, int64 overflow to double.
pub fn multiply(a: Number, b: Number) -> Number {
    match widest(a, b) {
        0 | 1 => integral(a, b, i64::checked_mul).unwrap_or_else(|| Number::Double(a.to_f64() * b.to_f64())),
        2 => Number::Double(a.to_f64() * b.to_f64()),
        _ => Number::Decimal(a.coerce_to_decimal() * b.coerce_to_decimal()),
    }
}

/// `a * b` as update `$mul`: int64 overflow is an error (`None`).
pub fn checked_multiply(a: Number, b: Number) -> Option<Number> {
    match widest(a, b) {
        0 | 1 => integral(a, b, i64::checked_mul),
        _ => Some(multiply(a, b)),
    }
}

/// `a - b` as `$subtract` on numbers.
pub fn subtract(a: Number, b: Number) -> Number {
    match widest(a, b) {
        0 | 1 => integral(a, b, i64::checked_sub).unwrap_or_else(|| Number::Double(a.to_f64() - b.to_f64())),
        2 => Number::Double(a.to_f64() - b.to_f64()),
        _ => Number::Decimal(a.coerce_to_decimal() - b.coerce_to_decimal()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int32_overflow_promotes_to_int64() {
        assert!(matches!(add(Number::Int(i32::MAX), Number::Int(1)), Number::Long(2_147_483_648)));
        assert!(checked_add(Number::Long(i64::MAX), Number::Int(1)).is_none());
    }

    #[test]
    fn exact_cross_type_comparison() {
        assert_eq!(Number::Long(9_007_199_254_740_993).cmp_num(Number::Double(9_007_199_254_740_992.0)), Ordering::Greater);
        assert_eq!(Number::Double(f64::NAN).cmp_num(Number::Int(i32::MIN)), Ordering::Less);
        let d = Number::from_bson(&Bson::Decimal128("1.0".parse().unwrap())).unwrap();
        assert_eq!(d.cmp_num(Number::Int(1)), Ordering::Equal);
    }

    #[test]
    fn exact_i64_of_a_decimal_is_exact_past_two_to_the_53() {
        let dec = |s: &str| Number::from_bson(&Bson::Decimal128(s.parse().unwrap())).unwrap();
        assert_eq!(dec("9007199254740993").to_exact_i64(), Some(9_007_199_254_740_993));
        assert_eq!(dec("-9223372036854775808").to_exact_i64(), Some(i64::MIN));
        assert_eq!(dec("9223372036854775807.0").to_exact_i64(), Some(i64::MAX));
        assert_eq!(dec("9223372036854775808").to_exact_i64(), None);
        assert_eq!(dec("2.5").to_exact_i64(), None);
        assert_eq!(dec("-0").to_exact_i64(), Some(0));
        assert_eq!(dec("NaN").to_exact_i64(), None);
        assert_eq!(dec("Infinity").to_exact_i64(), None);
    }

    #[test]
    fn decimal_round_trip() {
        for s in ["1.0", "-0.5", "1E+3", "NaN", "Infinity", "-Infinity", "123456789012345678901234567890.1234"] {
            let d: Decimal128 = s.parse().unwrap();
            assert_eq!(from_d128(to_d128(&d)).to_string(), d.to_string(), "{s}");
        }
    }
}
