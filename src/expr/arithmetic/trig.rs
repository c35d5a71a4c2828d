//! Trigonometry: `$sin`, `$cos`, `$tan`, `$asin`, `$acos`, `$atan`, `$atan2`, `$sinh`, `$cosh`,
//! `$tanh`, `$asinh`, `$acosh`, `$atanh`, `$degreesToRadians`, `$radiansToDegrees`. Decimal input
//! gives a decimal result (computed in double precision).

use bson::Bson;

use super::single_numeric;
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_double;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::number::d128_from_f64_15_digits;
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

pub fn parse_atan2(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval_atan2)
}

fn out(n: Number, r: f64) -> Bson {
    if matches!(n, Number::Decimal(_)) {
        super::dec(d128_from_f64_15_digits(r))
    } else {
        Bson::Double(r)
    }
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    let x = n.to_f64();
    let bounded = |ok: bool, range: &str| -> Result<()> {
        if ok || x.is_nan() {
            Ok(())
        } else {
            Err(Error::code(50989, format!("cannot apply {name} to {}, value must in {range}", stream_double(x))))
        }
    };
    let r = match name {
        "$sin" | "$cos" | "$tan" => {
            bounded(x.is_finite(), "(-inf,inf)")?;
            match name {
                "$sin" => x.sin(),
                "$cos" => x.cos(),
                _ => x.tan(),
            }
        }
        "$asin" => {
            bounded((-1.0..=1.0).contains(&x), "[-1,1]")?;
            x.asin()
        }
        "$acos" => {
            bounded((-1.0..=1.0).contains(&x), "[-1,1]")?;
            x.acos()
        }
        "$atan" => x.atan(),
        "$sinh" => x.sinh(),
        "$cosh" => x.cosh(),
        "$tanh" => x.tanh(),
        "$asinh" => x.asinh(),
        "$acosh" => {
            bounded(x >= 1.0, "[1,inf]")?;
            x.acosh()
        }
        "$atanh" => {
            bounded((-1.0..=1.0).contains(&x), "[-1,1]")?;
            x.atanh()
        }
        "$degreesToRadians" => x * (std::f64::consts::PI / 180.0),
        _ => x * (180.0 / std::f64::consts::PI),
    };
    Ok(Some(out(n, r)))
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
    let r = nums[0].to_f64().atan2(nums[1].to_f64());
    let any_dec = nums.iter().any(|n| matches!(n, Number::Decimal(_)));
    Ok(Some(if any_dec { super::dec(d128_from_f64_15_digits(r)) } else { Bson::Double(r) }))
}
