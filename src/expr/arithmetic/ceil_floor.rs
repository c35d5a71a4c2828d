//! `$ceil` and `$floor`: integers unchanged, doubles and decimals to the integral value.

use bson::Bson;
use decmathlib_rs::d128::{d128, RoundingMode};

use super::single_numeric;
use crate::error::Result;
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval)
}

/// Quantizes a decimal to exponent 0 with a rounding mode.
pub(crate) fn quantize_integral(d: d128, mode: RoundingMode) -> d128 {
    super::quantize(d, 0, mode).0
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(n) = single_numeric(name, &args[0])? else { return Ok(Some(Bson::Null)) };
    let ceil = name == "$ceil";
    Ok(Some(match n {
        Number::Double(f) => Bson::Double(if ceil { f.ceil() } else { f.floor() }),
        Number::Decimal(d) => {
            if d.is_nan() || d.is_infinite() {
                super::dec(d)
            } else {
                super::dec(quantize_integral(d, if ceil { RoundingMode::Upward } else { RoundingMode::Downward }))
            }
        }
        other => other.to_bson(),
    }))
}
