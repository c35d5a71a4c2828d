//! Arithmetic expression operators.

pub mod abs;
pub mod add;
pub mod bitwise;
pub mod ceil_floor;
pub mod divide;
pub mod exp_log;
pub mod mod_;
pub mod multiply;
pub mod pow;
pub mod round_trunc;
pub mod sqrt;
pub mod subtract;
pub mod trig;

use bson::Bson;

use super::Val;
use crate::error::{Error, Result};
use crate::value::Number;

/// The number in an argument; `Ok(None)` when it is null or missing (the operator returns null);
/// error 28765 (`ExpressionSingleNumericArg`) for other types.
pub(crate) fn single_numeric(name: &str, v: &Val) -> Result<Option<Number>> {
    if v.is_nullish() {
        return Ok(None);
    }
    match v.as_bson().and_then(Number::from_bson) {
        Some(n) => Ok(Some(n)),
        None => Err(Error::code(28765, format!("{name} only supports numeric types, not {}", v.type_name()))),
    }
}

/// The number inside an argument value, if it is one.
pub(crate) fn number(v: &Val) -> Option<Number> {
    v.as_bson().and_then(Number::from_bson)
}

/// Doubles that convert to a long without overflow (`[-2^63, 2^63)`).
pub(crate) const LONG_RANGE: std::ops::Range<f64> = (i64::MIN as f64)..(i64::MAX as f64);

/// `Value::createIntOrLong`.
pub(crate) fn int_or_long(i: i64) -> Bson {
    match i32::try_from(i) {
        Ok(x) => Bson::Int32(x),
        Err(_) => Bson::Int64(i),
    }
}

/// A decimal as a BSON value.
pub(crate) fn dec(d: decmathlib_rs::d128::d128) -> Bson {
    Number::Decimal(d).to_bson()
}

/// The server's `Decimal128::quantize` to the exponent `exp`: when even the value's 34-digit form
/// has a larger exponent (the quantized value would need more than 34 digits, where IEEE quantize
/// gives NaN), the result is that 34-digit form (`$trunc: [NumberDecimal("1.298"), 100]` is
/// `1.298000000000000000000000000000000`). Returns the decimal and the library's flags.
pub(crate) fn quantize(
    d: decmathlib_rs::d128::d128,
    exp: i32,
    mode: decmathlib_rs::d128::RoundingMode,
) -> (decmathlib_rs::d128::d128, u32) {
    use decmathlib_rs::d128::d128;
    let mut flags = 0;
    if d.is_finite() && !d.is_zero() {
        // Adding 0E-6176 widens the coefficient to 34 digits (the server's `normalize`).
        // (0E-6176 is the all-zero encoding.)
        let widest_zero = d128::from(0u128);
        let normalized = d128::addition(&d, &widest_zero, None, &mut flags);
        if normalized.quantexp(&mut flags) > exp {
            return (normalized, 0);
        }
        flags = 0;
    }
    let quantum: d128 = format!("1E{exp}").parse().unwrap_or_else(|_| d128::from(1));
    (d128::quantize(&d, &quantum, Some(mode), &mut flags), flags)
}
