//! `$divide`: always a double, unless an operand is a decimal.

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let (l, r) = (&args[0], &args[1]);
    match (super::number(l), super::number(r)) {
        (Some(a), Some(b)) => {
            if matches!(a, Number::Decimal(_)) || matches!(b, Number::Decimal(_)) {
                let den = b.coerce_to_decimal();
                if den.is_zero() {
                    return Err(Error::bad_value("can't $divide by zero"));
                }
                return Ok(Some(super::dec(a.coerce_to_decimal() / den)));
            }
            let den = b.to_f64();
            if den == 0.0 {
                return Err(Error::bad_value("can't $divide by zero"));
            }
            Ok(Some(Bson::Double(a.to_f64() / den)))
        }
        _ if l.is_nullish() || r.is_nullish() => Ok(Some(Bson::Null)),
        _ => Err(Error::type_mismatch(format!(
            "$divide only supports numeric types, not {} and {}",
            l.type_name(),
            r.type_name()
        ))),
    }
}
