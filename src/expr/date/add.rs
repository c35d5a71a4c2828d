//! `$dateAdd` and `$dateSubtract: { startDate, unit, amount, timezone }`.

use bson::{Bson, DateTime};

use super::{add_units, as_date, tz_arg, unit_arg};
use crate::error::{Error, Result};
use crate::expr::args::named;
use crate::expr::{Ctx, Expr, Op, VarScope};
use crate::value::Number;

#[derive(Debug)]
struct DateAdd {
    name: &'static str,
    start: Expr,
    unit: Expr,
    amount: Expr,
    timezone: Option<Expr>,
}

impl Op for DateAdd {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let start = self.start.eval_val(ctx)?;
        let unit = self.unit.eval_val(ctx)?;
        let amount = self.amount.eval_val(ctx)?;
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        if start.is_nullish() || unit.is_nullish() || amount.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let Some(ms) = as_date(&start) else {
            return Err(Error::code(5166403, format!("{} requires startDate to be convertible to a date", self.name)));
        };
        let Some(unit) = unit_arg(self.name, &unit)? else { return Ok(Some(Bson::Null)) };
        let Some(n) = amount.as_bson().and_then(Number::from_bson).and_then(|n| n.to_exact_i64()) else {
            return Err(Error::code(5166404, format!("{} expects integer amount of time units", self.name)));
        };
        let n = if self.name == "$dateSubtract" {
            n.checked_neg().ok_or_else(|| Error::code(6045000, format!("invalid {} 'amount' parameter value: {n}", self.name)))?
        } else {
            n
        };
        match add_units(ms, unit, n, &tz) {
            Some(r) => Ok(Some(Bson::DateTime(DateTime::from_millis(r)))),
            None => Err(Error::code(5166406, format!("{} overflowed", self.name))),
        }
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(5166400, format!("{name} expects an object as its argument")));
    };
    let [start, unit, amount, timezone] = named(d, ["startDate", "unit", "amount", "timezone"], scope, |k| {
        Error::code(5166401, format!("Unrecognized argument to {name}: {k}"))
    })?;
    let (Some(start), Some(unit), Some(amount)) = (start, unit, amount) else {
        return Err(Error::code(5166402, format!("{name} requires startDate, unit, and amount to be present")));
    };
    Ok(Expr::op(DateAdd { name, start, unit, amount, timezone }))
}
