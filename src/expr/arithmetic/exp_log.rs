//! `$exp`, `$ln`, `$log10` and `$log`.
//!
//! Known limit: the decimal arithmetic library has no transcendental functions, so on decimal
//! input these compute in double precision and return a decimal of that value, except for the
//! results that are exact, which are exact as the server's (`$log10` of a power of ten, `$ln` of
//! 1, `$exp` of 0, `$log` of a power of ten in base 10: `$log10: NumberDecimal("10")` is `1`).

use bson::Bson;
use decmathlib_rs::d128::d128;

use super::single_numeric;
use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_double;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::number::d128_from_f64_15_digits;
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

fn decimal_of(f: f64) -> Bson {
    super::dec(d128_from_f64_15_digits(f))
}

fn is_positive_decimal(n: Number) -> bool {
    matches!(n, Number::Decimal(d) if d > d128::from(0))
}

/// `k` when a positive finite decimal is exactly `10^k` (whatever its trailing zeros).
fn power_of_ten(d: d128) -> Option<i64> {
    if !d.is_finite() || d <= d128::from(0) {
        return None;
    }
    // `bid128_to_string` prints `+<coefficient>E<exponent>`.
    let s = format!("{d}");
    let (coefficient, exponent) = s.trim_start_matches('+').split_once('E')?;
    let exponent: i64 = exponent.parse().ok()?;
    let digits = coefficient.trim_end_matches('0');
    (digits == "1").then(|| exponent + (coefficient.len() - digits.len()) as i64)
}

/// An exact integral result as a decimal with exponent 0 (`1`, `-3`, `0`).
fn exact(k: i64) -> Option<Bson> {
    Some(super::dec(d128::from(k)))
}

fn eval_exp(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if let Number::Decimal(d) = n {
        if d.is_zero() {
            return Ok(exact(1));
        }
    }
    let r = n.to_f64().exp();
    Ok(Some(if matches!(n, Number::Decimal(_)) { decimal_of(r) } else { Bson::Double(r) }))
}

fn eval_ln(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    if is_positive_decimal(n) {
        if power_of_ten(n.to_decimal()) == Some(0) {
            return Ok(exact(0));
        }
        return Ok(Some(decimal_of(n.to_f64().ln())));
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
        if let Some(k) = power_of_ten(n.to_decimal()) {
            return Ok(exact(k));
        }
        return Ok(Some(decimal_of(n.to_f64().log10())));
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
            // Base 10 is the library's log10 (exact for a power of ten).
            if bd == d128::from(10) {
                if let Some(k) = power_of_ten(xd) {
                    return Ok(exact(k));
                }
            }
            return Ok(Some(decimal_of(x.to_f64().ln() / base.to_f64().ln())));
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
