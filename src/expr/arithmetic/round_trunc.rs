//! `$round` (half to even) and `$trunc`, with an optional place in [-20, 100].

use bson::Bson;
use decmathlib_rs::d128::{d128, RoundingMode};

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::ranged(name, arg, scope, 1, 2, eval)
}

fn eval(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let v = &args[0];
    if v.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(n) = super::number(v) else {
        return Err(Error::code(51081, format!("{name} only supports numeric types, not {}", v.type_name())));
    };
    let mut place: i64 = 0;
    if let Some(p) = args.get(1) {
        if p.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let pn = super::number(p);
        let exact = pn.and_then(|x| x.to_exact_i64());
        place = match exact {
            Some(i) => i,
            None => {
                return Err(Error::code(51082, format!("precision argument to  {name} must be a integral value")));
            }
        };
        if !(-20..=100).contains(&place) {
            return Err(Error::code(
                51083,
                format!("cannot apply {name} with precision value {place} value must be in [-20, 100]"),
            ));
        }
    }
    let mode = if name == "$round" { RoundingMode::NearestEven } else { RoundingMode::TowardZero };
    let quantize = |d: d128| super::quantize(d, -(place as i32), mode);
    Ok(Some(match n {
        Number::Decimal(d) => {
            if d.is_infinite() || d.is_nan() {
                return Ok(Some(n.to_bson()));
            }
            super::dec(quantize(d).0)
        }
        Number::Double(f) => {
            if !f.is_finite() {
                return Ok(Some(Bson::Double(f)));
            }
            let (q, _) = quantize(d128::from(f));
            Bson::Double(Number::Decimal(q).to_f64())
        }
        Number::Int(_) | Number::Long(_) => {
            if place >= 0 {
                return Ok(Some(n.to_bson()));
            }
            let x = n.to_exact_i64().unwrap_or(0);
            let (q, flags) = quantize(d128::from(x));
            let mut f2 = 0;
            let out = q.convert_to_i64_ties_to_even(&mut f2);
            if (flags | f2) & decmathlib_rs::d128::StatusFlags::BID_INVALID_EXCEPTION != 0 {
                return Err(Error::code(
                    51080,
                    format!("invalid conversion from Decimal128 result in {name} resulting from arguments: [{x}, {place}]"),
                ));
            }
            if matches!(n, Number::Long(_)) || out > i32::MAX as i64 {
                Bson::Int64(out)
            } else {
                Bson::Int32(out as i32)
            }
        }
    }))
}
