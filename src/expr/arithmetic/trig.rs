//! Trigonometry: `$sin`, `$cos`, `$tan`, `$asin`, `$acos`, `$atan`, `$atan2`, `$sinh`, `$cosh`,
//! `$tanh`, `$asinh`, `$acosh`, `$atanh`, `$degreesToRadians`, `$radiansToDegrees`. Decimal input
//! gives the server's decimal library's result ([`decimal_math`]); the degree conversions
//! multiply by the server's 34-digit `pi / 180` and `180 / pi`.

use bson::Bson;
use decmathlib_rs::d128::d128;

use super::single_numeric;
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::decimal_math;
use crate::value::display::stream_double;
use crate::value::number::from_d128;
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

pub fn parse_atan2(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval_atan2)
}

/// The bounds of the bounded functions, as the server prints them, and whether `x` is inside.
fn bounds(name: &str) -> Option<(&'static str, fn(f64) -> bool)> {
    match name {
        "$sin" | "$cos" | "$tan" => Some(("(-inf,inf)", |x| x.is_finite())),
        "$asin" | "$acos" | "$atanh" => Some(("[-1,1]", |x| (-1.0..=1.0).contains(&x))),
        "$acosh" => Some(("[1,inf]", |x| x >= 1.0)),
        _ => None,
    }
}

fn out_of_bounds(name: &str, shown: String, range: &str) -> Error {
    Error::code(50989, format!("cannot apply {name} to {shown}, value must in {range}"))
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if let Number::Decimal(d) = n {
        return eval_decimal(name, d).map(Some);
    }
    let x = n.to_f64();
    if let Some((range, inside)) = bounds(name) {
        if !x.is_nan() && !inside(x) {
            return Err(out_of_bounds(name, stream_double(x), range));
        }
    }
    let r = match name {
        "$sin" => x.sin(),
        "$cos" => x.cos(),
        "$tan" => x.tan(),
        "$asin" => x.asin(),
        "$acos" => x.acos(),
        "$atan" => x.atan(),
        "$sinh" => x.sinh(),
        "$cosh" => x.cosh(),
        "$tanh" => x.tanh(),
        "$asinh" => x.asinh(),
        "$acosh" => x.acosh(),
        "$atanh" => x.atanh(),
        "$degreesToRadians" => x * (std::f64::consts::PI / 180.0),
        _ => x * (180.0 / std::f64::consts::PI),
    };
    Ok(Some(Bson::Double(r)))
}

/// A decimal argument: NaN comes back as it is from the bounded functions, the bounds are
/// checked in decimal and the message prints the decimal (`cannot apply $asin to 1.50`).
fn eval_decimal(name: &'static str, d: d128) -> Result<Bson> {
    if let Some((range, _)) = bounds(name) {
        if d.is_nan() {
            return Ok(super::dec(d));
        }
        let one = d128::from(1);
        let inside = match name {
            "$sin" | "$cos" | "$tan" => d.is_finite(),
            "$acosh" => d >= one,
            _ => d >= -one && d <= one,
        };
        if !inside {
            return Err(out_of_bounds(name, from_d128(d).to_string(), range));
        }
    }
    let r = match name {
        "$sin" => decimal_math::sin(d),
        "$cos" => decimal_math::cos(d),
        "$tan" => decimal_math::tan(d),
        "$asin" => decimal_math::asin(d),
        "$acos" => decimal_math::acos(d),
        "$atan" => decimal_math::atan(d),
        "$sinh" => decimal_math::sinh(d),
        "$cosh" => decimal_math::cosh(d),
        "$tanh" => decimal_math::tanh(d),
        "$asinh" => decimal_math::asinh(d),
        "$acosh" => decimal_math::acosh(d),
        "$atanh" => decimal_math::atanh(d),
        "$degreesToRadians" => decimal_math::degrees_to_radians(d),
        _ => decimal_math::radians_to_degrees(d),
    };
    Ok(super::dec(r))
}

fn eval_atan2(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut nums = Vec::with_capacity(2);
    for (i, a) in args.iter().enumerate() {
        if a.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        match super::number(a) {
            Some(n) => nums.push(n),
            None => {
                return Err(Error::code(
                    51044 + i as i32,
                    format!("{name} only supports numeric types, not {}", a.type_name()),
                ))
            }
        }
    }
    if nums.iter().any(|n| matches!(n, Number::Decimal(_))) {
        let r = decimal_math::atan2(nums[0].coerce_to_decimal(), nums[1].coerce_to_decimal());
        return Ok(Some(super::dec(r)));
    }
    Ok(Some(Bson::Double(nums[0].to_f64().atan2(nums[1].to_f64()))))
}
