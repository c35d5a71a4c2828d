//! `$pow`: integer powers stay integers while they fit in a long; a decimal operand makes the
//! server's decimal power ([`decimal_math::power`]), widened to 34 digits.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::decimal_math;
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn zero_negative() -> Error {
    Error::code(28764, "$pow cannot take a base of 0 and a negative exponent")
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let (b, e) = (&args[0], &args[1]);
    if b.is_nullish() || e.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let base = super::number(b)
        .ok_or_else(|| Error::code(28762, format!("$pow's base must be numeric, not {}", b.type_name())))?;
    let exp = super::number(e)
        .ok_or_else(|| Error::code(28763, format!("$pow's exponent must be numeric, not {}", e.type_name())))?;
    if matches!(base, Number::Decimal(_)) || matches!(exp, Number::Decimal(_)) {
        let (bd, ed) = (base.coerce_to_decimal(), exp.coerce_to_decimal());
        // `isNegative` is the sign bit: a exponent of -0 is refused too.
        if bd.is_zero() && ed.is_sign_minus() {
            return Err(zero_negative());
        }
        return Ok(Some(super::dec(decimal_math::power(bd, ed))));
    }
    let (bf, ef) = (base.to_f64(), exp.to_f64());
    if bf == 0.0 && ef < 0.0 {
        return Err(zero_negative());
    }
    if matches!(base, Number::Double(_)) || matches!(exp, Number::Double(_)) {
        return Ok(Some(Bson::Double(bf.powf(ef))));
    }
    let is_long = matches!(base, Number::Long(_)) || matches!(exp, Number::Long(_));
    let format = |r: i64| if is_long { Bson::Int64(r) } else { super::int_or_long(r) };
    let (bl, el) = (base.to_exact_i64().unwrap_or(0), exp.to_exact_i64().unwrap_or(0));
    match bl {
        0 => return Ok(Some(format(if el == 0 { 1 } else { 0 }))),
        1 => return Ok(Some(format(1))),
        -1 => return Ok(Some(format(if el % 2 == 0 { 1 } else { -1 }))),
        _ => {}
    }
    if !(0..=63).contains(&el) {
        return Ok(Some(Bson::Double((bl as f64).powf(el as f64))));
    }
    match bl.checked_pow(el as u32) {
        Some(r) => Ok(Some(format(r))),
        None => Ok(Some(Bson::Double((bl as f64).powf(el as f64)))),
    }
}
