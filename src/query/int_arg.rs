//! The server's `BSONElement::parseIntegerElementTo*` family: integer arguments of `$size`,
//! `$bitsAllSet` masks and positions, `$type` codes. Errors are `FailedToParse` with the
//! server's wording; callers prefix or re-code them as the server does.

use bson::Bson;

use crate::value::display;
use crate::error::{Error, Result};
use crate::value::number::d128_to_f64;
use crate::value::Number;

/// 2^63 as a double: doubles in `[-2^63, 2^63)` fit in an int64.
pub const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// True when a double is within the int64 range (`[-2^63, 2^63)`).
pub fn fits_i64(f: f64) -> bool {
    (-TWO_POW_63..TWO_POW_63).contains(&f)
}

/// A finite double truncated toward zero, when the result fits an int64.
pub fn trunc_to_i64(f: f64) -> Option<i64> {
    let t = f.trunc();
    (f.is_finite() && fits_i64(t)).then_some(t as i64)
}

/// `parseIntegerElementToLong`: numbers only; doubles must be integral and in range.
pub fn to_long(name: &str, v: &Bson) -> Result<i64> {
    let shown = || display::element(name, v);
    match v {
        Bson::Int32(i) => Ok(*i as i64),
        Bson::Int64(i) => Ok(*i),
        Bson::Double(f) => {
            if f.is_nan() {
                return Err(Error::failed_to_parse(format!("Expected an integer, but found NaN in: {}", shown())));
            }
            if !fits_i64(*f) {
                return Err(Error::failed_to_parse(format!("Cannot represent as a 64-bit integer: {}", shown())));
            }
            if f.fract() != 0.0 {
                return Err(Error::failed_to_parse(format!("Expected an integer: {}", shown())));
            }
            Ok(*f as i64)
        }
        Bson::Decimal128(_) => {
            let n = Number::from_bson(v).ok_or_else(|| Error::failed_to_parse(shown()))?;
            match n.to_exact_i64() {
                Some(i) => Ok(i),
                None => Err(Error::failed_to_parse(format!("Cannot represent as a 64-bit integer: {}", shown()))),
            }
        }
        _ => Err(Error::failed_to_parse(format!("Expected a number in: {}", shown()))),
    }
}

/// `parseIntegerElementToNonNegativeLong`.
pub fn to_non_negative_long(name: &str, v: &Bson) -> Result<i64> {
    let n = to_long(name, v)?;
    if n < 0 {
        return Err(Error::failed_to_parse(format!("Expected a positive number in: {}", display::element(name, v))));
    }
    Ok(n)
}

/// `parseIntegerElementToInt`.
pub fn to_int(name: &str, v: &Bson) -> Result<i32> {
    let n = to_long(name, v)?;
    i32::try_from(n).map_err(|_| Error::failed_to_parse(format!("Cannot represent {} in an int", display::element(name, v))))
}

/// `parseIntegerElementToNonNegativeInt`.
pub fn to_non_negative_int(name: &str, v: &Bson) -> Result<i32> {
    let n = to_non_negative_long(name, v)?;
    i32::try_from(n).map_err(|_| Error::failed_to_parse(format!("Cannot represent {} in an int", display::element(name, v))))
}

/// `BSONElement::tryCoerce<long long>` (used by `$mod`): truncates toward zero; NaN, infinities
/// and values out of the int64 range fail.
pub fn coerce_long(v: &Bson) -> Result<i64> {
    let n = Number::from_bson(v).ok_or_else(|| Error::bad_value("Unable to coerce value to integral type"))?;
    match n {
        Number::Int(i) => Ok(i as i64),
        Number::Long(i) => Ok(i),
        Number::Double(f) => coerce_f64(f),
        Number::Decimal(d) => {
            if d.is_nan() || d.is_infinite() {
                return Err(Error::bad_value("Unable to coerce NaN/Inf to integral type"));
            }
            let f = d128_to_f64(d);
            coerce_f64(f.trunc())
        }
    }
}

fn coerce_f64(f: f64) -> Result<i64> {
    if !f.is_finite() {
        return Err(Error::bad_value("Unable to coerce NaN/Inf to integral type"));
    }
    trunc_to_i64(f).ok_or_else(|| Error::bad_value("Out of bounds coercing to integral value"))
}
