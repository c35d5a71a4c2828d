//! `$dateDiff: { startDate, endDate, unit, timezone, startOfWeek }`: the number of unit
//! boundaries crossed from start to end.

use bson::Bson;

use super::{as_date, iso_dow_of_days, start_of_week_arg, tz_arg, unit_arg, Parts, Unit, MS_PER_DAY};
use crate::error::{Error, Result};
use crate::expr::args::named;
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct DateDiff {
    start: Expr,
    end: Expr,
    unit: Expr,
    timezone: Option<Expr>,
    start_of_week: Option<Expr>,
}

/// Weeks since an epoch week starting on `sow` (ISO day).
fn week_index(days: i64, sow: i64) -> i64 {
    let shift = (iso_dow_of_days(days) - sow).rem_euclid(7);
    (days - shift).div_euclid(7)
}

impl Op for DateDiff {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let start = self.start.eval_val(ctx)?;
        let end = self.end.eval_val(ctx)?;
        let unit = self.unit.eval_val(ctx)?;
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let sowv = crate::expr::eval_opt(&self.start_of_week, ctx)?;
        if start.is_nullish() || end.is_nullish() || unit.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(s) = as_date(&start) else {
            return Err(Error::code(5166307, format!("$dateDiff requires 'startDate' to be a date, but got {}", start.type_name())));
        };
        let Some(e) = as_date(&end) else {
            return Err(Error::code(5166308, format!("$dateDiff requires 'endDate' to be a date, but got {}", end.type_name())));
        };
        let Some(unit) = unit_arg("$dateDiff", &unit)? else { return Ok(Some(Bson::Null)) };
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let sow = if unit == Unit::Week {
            match start_of_week_arg("$dateDiff", sowv.as_ref())? {
                Some(d) => d,
                None => return Ok(Some(Bson::Null)),
            }
        } else {
            7
        };
        let (ls, le) = (tz.to_local(s), tz.to_local(e));
        let r = match unit {
            Unit::Millisecond => e - s,
            Unit::Second | Unit::Minute | Unit::Hour => le.div_euclid(unit.ms()) - ls.div_euclid(unit.ms()),
            Unit::Day => le.div_euclid(MS_PER_DAY) - ls.div_euclid(MS_PER_DAY),
            Unit::Week => week_index(le.div_euclid(MS_PER_DAY), sow) - week_index(ls.div_euclid(MS_PER_DAY), sow),
            Unit::Month | Unit::Quarter | Unit::Year => {
                let (ps, pe) = (Parts::from_local(ls), Parts::from_local(le));
                match unit {
                    Unit::Month => (pe.year * 12 + pe.month) - (ps.year * 12 + ps.month),
                    Unit::Quarter => (pe.year * 4 + (pe.month - 1) / 3) - (ps.year * 4 + (ps.month - 1) / 3),
                    _ => pe.year - ps.year,
                }
            }
        };
        Ok(Some(Bson::Int64(r)))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(5166300, "$dateDiff only supports an object as its argument"));
    };
    let [start, end, unit, timezone, sow] = named(d, ["startDate", "endDate", "unit", "timezone", "startOfWeek"], scope, |k| {
        Error::code(5166301, format!("Unrecognized argument to $dateDiff: {k}"))
    })?;
    let start = start.ok_or_else(|| Error::code(5166302, "Missing 'startDate' parameter to $dateDiff"))?;
    let end = end.ok_or_else(|| Error::code(5166303, "Missing 'endDate' parameter to $dateDiff"))?;
    let unit = unit.ok_or_else(|| Error::code(5166304, "Missing 'unit' parameter to $dateDiff"))?;
    Ok(Expr::op(DateDiff { start, end, unit, timezone, start_of_week: sow }))
}
