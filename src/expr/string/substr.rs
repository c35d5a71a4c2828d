//! `$substrBytes` (and its alias `$substr`) and `$substrCP`.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{display_val, Simple};
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse_bytes(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 3, eval_bytes)
}

pub fn parse_cp(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 3, eval_cp)
}

fn number(v: &Val) -> Option<Number> {
    v.as_bson().and_then(Number::from_bson)
}

/// `coerceToLong` of a number (doubles truncate).
fn to_long(n: Number) -> i64 {
    n.to_exact_i64().unwrap_or_else(|| {
        let f = n.to_f64();
        if f.is_nan() {
            0
        } else {
            f.trunc() as i64
        }
    })
}

fn eval_bytes(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let s = super::coerce_to_string(&args[0], name)?;
    let Some(lower) = number(&args[1]) else {
        return Err(Error::code(
            16034,
            format!("{name}:  starting index must be a numeric type (is BSON type {})", args[1].type_name()),
        ));
    };
    let Some(length) = number(&args[2]) else {
        return Err(Error::code(
            16035,
            format!("{name}:  length must be a numeric type (is BSON type {})", args[2].type_name()),
        ));
    };
    let lower = to_long(lower);
    if lower < 0 {
        return Err(Error::code(50752, format!("{name}:  starting index must be non-negative (got: {lower})")));
    }
    let lower = lower as usize;
    let length = to_long(length);
    let bytes = s.as_bytes();
    let length = if length < 0 { bytes.len() } else { length as usize };
    let is_cont = |i: usize| bytes.get(i).is_some_and(|b| b & 0xC0 == 0x80);
    if lower < bytes.len() && is_cont(lower) {
        return Err(Error::code(28656, format!("{name}:  Invalid range, starting index is a UTF-8 continuation byte.")));
    }
    let end = lower.saturating_add(length);
    if end < bytes.len() && is_cont(end) {
        return Err(Error::code(
            28657,
            format!("{name}:  Invalid range, ending index is in the middle of a UTF-8 character."),
        ));
    }
    if lower >= bytes.len() {
        return Ok(Some(Bson::String(String::new())));
    }
    let end = end.min(bytes.len());
    Ok(Some(Bson::String(String::from_utf8_lossy(&bytes[lower..end]).into_owned())))
}

fn eval_cp(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let s = super::coerce_to_string(&args[0], name)?;
    let int32 = |v: &Val, what: &str, c_type: i32, c_int: i32| -> Result<i64> {
        let Some(n) = number(v) else {
            return Err(Error::code(c_type, format!("{name}: {what} must be a numeric type (is BSON type {})", v.type_name())));
        };
        n.to_exact_i64().filter(|i| i32::try_from(*i).is_ok()).ok_or_else(|| {
            Error::code(c_int, format!("{name}: {what} cannot be represented as a 32-bit integral value: {}", display_val(v)))
        })
    };
    let start = int32(&args[1], "starting index", 34450, 34451)?;
    let length = int32(&args[2], "length", 34452, 34453)?;
    if length < 0 {
        return Err(Error::code(34454, format!("{name}: length must be a nonnegative integer.")));
    }
    if start < 0 {
        return Err(Error::code(34455, format!("{name}: the starting index must be nonnegative integer.")));
    }
    Ok(Some(Bson::String(s.chars().skip(start as usize).take(length as usize).collect())))
}
