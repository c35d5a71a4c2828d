//! `$subtract`: numbers, a date minus a number (a date), or a date minus a date (milliseconds).

use bson::{Bson, DateTime};

use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::number::{self, Number};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 2, eval)
}

fn overflow() -> Error {
    Error::new(ErrorKind::Overflow, "date overflow")
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let (l, r) = (&args[0], &args[1]);
    if let (Some(a), Some(b)) = (super::number(l), super::number(r)) {
        return Ok(Some(number::subtract(a, b).to_bson()));
    }
    if l.is_nullish() || r.is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let rt = r.type_name();
    match l.as_bson() {
        Some(Bson::DateTime(d)) => {
            let ms = d.timestamp_millis();
            let out = match r.as_bson() {
                Some(Bson::DateTime(e)) => return Ok(Some(Bson::Int64(ms.wrapping_sub(e.timestamp_millis())))),
                Some(b) => match Number::from_bson(b) {
                    Some(Number::Int(i)) => ms.checked_sub(i as i64).ok_or_else(overflow)?,
                    Some(Number::Long(i)) => ms.checked_sub(i).ok_or_else(overflow)?,
                    Some(Number::Double(f)) => {
                        if super::LONG_RANGE.contains(&f) {
                            ms.checked_sub(f.round() as i64).ok_or_else(overflow)?
                        } else {
                            return Err(overflow());
                        }
                    }
                    Some(Number::Decimal(x)) => {
                        let mut flags = 0;
                        let i = x.convert_to_i64_ties_to_even(&mut flags);
                        if flags & decmathlib_rs::d128::StatusFlags::BID_INVALID_EXCEPTION != 0 {
                            return Err(overflow());
                        }
                        ms.checked_sub(i).ok_or_else(overflow)?
                    }
                    None => return Err(Error::type_mismatch(format!("can't $subtract {rt} from Date"))),
                },
                None => return Err(Error::type_mismatch(format!("can't $subtract {rt} from Date"))),
            };
            Ok(Some(Bson::DateTime(DateTime::from_millis(out))))
        }
        _ => Err(Error::type_mismatch(format!("can't $subtract {rt} from {}", l.type_name()))),
    }
}
