//! `$exp`, `$ln`, `$log10` and `$log`. On decimals they are the server's decimal library's
//! functions ([`decimal_math`]): 34 digits, and its exact results (`$log10: NumberDecimal("10")`
//! is `1`, `$ln` of 1 is `0`); `$log` is `ln(x) / ln(base)` in decimal, as in the server.

use bson::Bson;
use decmathlib_rs::d128::d128;

use super::single_numeric;
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_double;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::decimal_math;
use crate::value::Number;

pub fn parse_exp(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_exp)
}

pub fn parse_ln(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_ln)
}

pub fn parse_log10(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_log10)
}

pub fn parse_log(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval_log)
}

fn is_positive_decimal(n: Number) -> bool {
    matches!(n, Number::Decimal(d) if d > d128::from(0))
}

fn eval_exp(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if let Number::Decimal(d) = n {
        return Ok(Some(super::dec(decimal_math::exp(d))));
    }
    Ok(Some(Bson::Double(n.to_f64().exp())))
}

fn eval_ln(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if is_positive_decimal(n) {
        return Ok(Some(super::dec(decimal_math::ln(n.to_decimal()))));
    }
    let f = n.to_f64();
    if !(f > 0.0 || f.is_nan()) {
        return Err(Error::code(28766, format!("$ln's argument must be a positive number, but is {}", stream_double(f))));
    }
    Ok(Some(Bson::Double(f.ln())))
}

fn eval_log10(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if is_positive_decimal(n) {
        return Ok(Some(super::dec(decimal_math::log10(n.to_decimal()))));
    }
    let f = n.to_f64();
    if !(f > 0.0 || f.is_nan()) {
        return Err(Error::code(28761, format!("$log10's argument must be a positive number, but is {}", stream_double(f))));
    }
    Ok(Some(Bson::Double(f.log10())))
}

fn eval_log(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let (a, b) = (&args[0], &args[1]);
    if a.is_nullish() || b.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let x = super::number(a)
        .ok_or_else(|| Error::code(28756, format!("$log's argument must be numeric, not {}", a.type_name())))?;
    let base = super::number(b)
        .ok_or_else(|| Error::code(28757, format!("$log's base must be numeric, not {}", b.type_name())))?;
    if matches!(x, Number::Decimal(_)) || matches!(base, Number::Decimal(_)) {
        let (xd, bd) = (x.coerce_to_decimal(), base.coerce_to_decimal());
        let zero = d128::from(0);
        if xd > zero && bd != d128::from(1) && bd > zero {
            return Ok(Some(super::dec(decimal_math::log(xd, bd))));
        }
    }
    let (xf, bf) = (x.to_f64(), base.to_f64());
    if !(xf > 0.0 || xf.is_nan()) {
        return Err(Error::code(28758, format!("$log's argument must be a positive number, but is {}", stream_double(xf))));
    }
    if !((bf > 0.0 && bf != 1.0) || bf.is_nan()) {
        return Err(Error::code(
            28759,
            format!("$log's base must be a positive number not equal to 1, but is {}", stream_double(bf)),
        ));
    }
    Ok(Some(Bson::Double(xf.ln() / bf.ln())))
}
