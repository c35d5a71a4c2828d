//! `$mod`: the remainder with the dividend's sign (C `fmod`).

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
            use Number::*;
            if matches!(a, Decimal(_)) || matches!(b, Decimal(_)) {
                let right = b.coerce_to_decimal();
                if right.is_zero() {
                    return Err(Error::code(5733415, "can't $mod by zero"));
                }
                let mut flags = 0;
                return Ok(Some(super::dec(a.coerce_to_decimal().fmod(&right, &mut flags))));
            }
            if b.to_f64() == 0.0 {
                return Err(Error::code(16610, "can't $mod by zero"));
            }
            Ok(Some(match (a, b) {
                (Double(_), _) | (_, Double(_)) => Bson::Double(a.to_f64() % b.to_f64()),
                (Long(_), _) | (_, Long(_)) => {
                    let (x, y) = (a.to_exact_i64().unwrap_or(0), b.to_exact_i64().unwrap_or(1));
                    Bson::Int64(x.checked_rem(y).unwrap_or(0))
                }
                (Int(x), Int(y)) => Bson::Int32(x.checked_rem(y).unwrap_or(0)),
                _ => Bson::Null,
            }))
        }
        _ if l.is_nullish() || r.is_nullish() => Ok(Some(Bson::Null)),
        _ => Err(Error::code(
            16611,
            format!("$mod only supports numeric types, not {} and {}", l.type_name(), r.type_name()),
        )),
    }
}
