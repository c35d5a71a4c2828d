//! `$add`: numbers and at most one date; the narrowest result type that does not overflow.

use bson::{Bson, DateTime};
use decmathlib_rs::d128::d128;

use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::Number;

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::variadic(name, arg, scope, eval)
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Widest {
    Int,
    Long,
    Double,
    Decimal,
}

/// The server's `AddState`: separate long, double and decimal totals and the widest type so far.
pub(crate) struct AddState {
    long_total: i64,
    double_total: f64,
    decimal_total: d128,
    widest: Widest,
    is_date: bool,
}

fn date_overflow() -> Error {
    Error::new(ErrorKind::Overflow, "date overflow")
}

impl AddState {
    pub(crate) fn new() -> AddState {
        AddState { long_total: 0, double_total: 0.0, decimal_total: d128::from(0), widest: Widest::Int, is_date: false }
    }

    pub(crate) fn add(&mut self, v: &Bson) -> Result<()> {
        let old = self.widest;
        let to_add: Number = match v {
            Bson::DateTime(d) => {
                if self.is_date {
                    return Err(Error::code(16612, "only one date allowed in an $add expression"));
                }
                let old_value = self.value();
                self.long_total = 0;
                if let Some(n) = Number::from_bson(&old_value) {
                    self.add_to_date(n)?;
                }
                self.is_date = true;
                Number::Long(d.timestamp_millis())
            }
            other => {
                let n = Number::from_bson(other).ok_or_else(|| {
                    Error::type_mismatch(format!(
                        "$add only supports numeric or date types, not {}",
                        crate::value::types::type_name(other)
                    ))
                })?;
                let w = match n {
                    Number::Int(_) => Widest::Int,
                    Number::Long(_) => Widest::Long,
                    Number::Double(_) => Widest::Double,
                    Number::Decimal(_) => Widest::Decimal,
                };
                if w > self.widest {
                    self.widest = w;
                }
                n
            }
        };
        if self.is_date {
            return self.add_to_date(to_add);
        }
        if old != self.widest {
            match self.widest {
                Widest::Double => self.double_total = self.long_total as f64,
                Widest::Decimal => {
                    self.decimal_total = match old {
                        Widest::Double => crate::value::number::d128_from_f64_15_digits(self.double_total),
                        _ => d128::from(self.long_total),
                    }
                }
                _ => {}
            }
        }
        match self.widest {
            Widest::Int | Widest::Long => {
                let x = to_add.to_exact_i64().unwrap_or(0);
                match self.long_total.checked_add(x) {
                    Some(s) => self.long_total = s,
                    None => {
                        self.widest = Widest::Double;
                        self.double_total = self.long_total as f64 + to_add.to_f64();
                    }
                }
            }
            Widest::Double => self.double_total += to_add.to_f64(),
            Widest::Decimal => self.decimal_total += to_add.coerce_to_decimal(),
        }
        Ok(())
    }

    fn add_to_date(&mut self, n: Number) -> Result<()> {
        let x = match n {
            Number::Int(i) => i as i64,
            Number::Long(i) => i,
            Number::Double(f) => {
                if !super::LONG_RANGE.contains(&f) {
                    return Err(date_overflow());
                }
                f.round() as i64
            }
            Number::Decimal(d) => {
                let mut flags = 0;
                let r = d.convert_to_i64_ties_to_even(&mut flags);
                if flags & decmathlib_rs::d128::StatusFlags::BID_INVALID_EXCEPTION != 0 {
                    return Err(date_overflow());
                }
                r
            }
        };
        self.long_total = self.long_total.checked_add(x).ok_or_else(date_overflow)?;
        Ok(())
    }

    pub(crate) fn value(&self) -> Bson {
        if self.is_date {
            return Bson::DateTime(DateTime::from_millis(self.long_total));
        }
        match self.widest {
            Widest::Int => super::int_or_long(self.long_total),
            Widest::Long => Bson::Int64(self.long_total),
            Widest::Double => Bson::Double(self.double_total),
            Widest::Decimal => super::dec(self.decimal_total),
        }
    }
}

fn eval(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut state = AddState::new();
    for a in args {
        if a.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        match a.as_bson() {
            Some(b) => state.add(b)?,
            None => {
                return Err(Error::type_mismatch("$add only supports numeric or date types, not object"));
            }
        }
    }
    Ok(Some(state.value()))
}
