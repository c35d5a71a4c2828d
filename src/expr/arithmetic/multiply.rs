//! `$multiply`.

use bson::Bson;
use decmathlib_rs::d128::d128;

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Kind {
    Int,
    Long,
    Double,
    Decimal,
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut double_product = 1.0f64;
    let mut long_product = 1i64;
    let mut decimal_product = d128::from(1);
    let mut kind = Kind::Int;
    for a in args {
        if a.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(n) = super::number(a) else {
            return Err(Error::type_mismatch(format!("$multiply only supports numeric types, not {}", a.type_name())));
        };
        let k = match n {
            Number::Int(_) => Kind::Int,
            Number::Long(_) => Kind::Long,
            Number::Double(_) => Kind::Double,
            Number::Decimal(_) => Kind::Decimal,
        };
        let old = kind;
        if k > kind {
            kind = k;
        }
        if kind == Kind::Decimal {
            if old != Kind::Decimal {
                decimal_product = if old == Kind::Double {
                    crate::value::number::d128_from_f64_15_digits(double_product)
                } else {
                    d128::from(long_product)
                };
            }
            decimal_product *= n.coerce_to_decimal();
        } else {
            let f = n.to_f64();
            double_product *= f;
            if kind != Kind::Double {
                match (f.is_finite(), n.to_exact_i64().and_then(|x| long_product.checked_mul(x))) {
                    (true, Some(p)) => long_product = p,
                    _ => kind = Kind::Double,
                }
            }
        }
    }
    Ok(Some(match kind {
        Kind::Double => Bson::Double(double_product),
        Kind::Long => Bson::Int64(long_product),
        Kind::Int => super::int_or_long(long_product),
        Kind::Decimal => super::dec(decimal_product),
    }))
}
