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
