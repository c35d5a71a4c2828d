//! `$dateTrunc: { date, unit, binSize, timezone, startOfWeek }`: the start of the bin holding the
//! date; bins are counted from 2000-01-01T00:00 local time.

use bson::{Bson, DateTime};

use super::{as_date, days_from_civil, iso_dow_of_days, start_of_week_arg, tz_arg, unit_arg, Parts, Unit, MS_PER_DAY};
use crate::error::{Error, Result};
use crate::expr::args::{display_val, named};
use crate::expr::{Ctx, Expr, Op, VarScope};
use crate::value::Number;

#[derive(Debug)]
struct DateTrunc {
    date: Expr,
    unit: Expr,
    bin_size: Option<Expr>,
    timezone: Option<Expr>,
    start_of_week: Option<Expr>,
}

impl Op for DateTrunc {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let date = self.date.eval_val(ctx)?;
        let unit = self.unit.eval_val(ctx)?;
        let bin = crate::expr::eval_opt(&self.bin_size, ctx)?;
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let sowv = crate::expr::eval_opt(&self.start_of_week, ctx)?;
        if date.is_nullish() || unit.is_nullish() || bin.as_ref().is_some_and(|b| b.is_nullish()) {
            return Ok(Some(Bson::Null));
        }
        let Some(ms) = as_date(&date) else {
            return Err(Error::code(5439012, format!("$dateTrunc requires 'date' to be a date, but got {}", date.type_name())));
        };
        let Some(unit) = unit_arg("$dateTrunc", &unit)? else { return Ok(Some(Bson::Null)) };
        let bin_size = match &bin {
            Some(b) => {
                let Some(n) = b.as_bson().and_then(Number::from_bson).and_then(|n| n.to_exact_i64()) else {
                    return Err(Error::code(
                        5439017,
                        format!("$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '{}' of type {}", display_val(b), b.type_name()),
                    ));
                };
                if n <= 0 {
                    return Err(Error::code(5439018, format!("$dateTrunc requires 'binSize' to be greater than 0, but got value {n}")));
                }
                n
            }
            None => 1,
        };
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let sow = if unit == Unit::Week {
            match start_of_week_arg("$dateTrunc", sowv.as_ref())? {
                Some(d) => d,
                None => return Ok(Some(Bson::Null)),
            }
        } else {
            7
        };
        let overflowed = |code| Error::code(code, "dateTrunc overflowed");
        // Calendar bins (days and longer) go through the server's dateAdd, which handles bin
        // sizes up to 1e11; sub-day bins must fit in 64-bit milliseconds.
        if !matches!(unit, Unit::Millisecond | Unit::Second | Unit::Minute | Unit::Hour) && bin_size > 100_000_000_000 {
            return Err(Error::code(5439006, "dateTrunc unsupported binSize value"));
        }
        let local = tz.to_local(ms);
        let reference_days = days_from_civil(2000, 1, 1);
        let out_local = match unit {
            Unit::Millisecond | Unit::Second | Unit::Minute | Unit::Hour | Unit::Day => {
                let size = unit.ms().checked_mul(bin_size).ok_or_else(|| overflowed(5439002))?;
                let since = local.checked_sub(reference_days * MS_PER_DAY).ok_or_else(|| overflowed(5439000))?;
                local.checked_sub(since.rem_euclid(size)).ok_or_else(|| overflowed(5439001))?
            }
            Unit::Week => {
                // The first week start on or after the reference day.
                let ref_week = reference_days + (sow - iso_dow_of_days(reference_days)).rem_euclid(7);
                let days = local.div_euclid(MS_PER_DAY);
                let size = 7 * bin_size;
                (ref_week + (days - ref_week).div_euclid(size) * size) * MS_PER_DAY
            }
            Unit::Month | Unit::Quarter | Unit::Year => {
                let p = Parts::from_local(local);
                let months_per = match unit {
                    Unit::Month => 1,
                    Unit::Quarter => 3,
                    _ => 12,
                } * bin_size;
                let since = (p.year - 2000) * 12 + p.month - 1;
                let start = since.div_euclid(months_per) * months_per;
                let (y, m) = (2000 + start.div_euclid(12), start.rem_euclid(12) + 1);
                days_from_civil(y, m, 1) * MS_PER_DAY
            }
        };
        let out = if matches!(unit, Unit::Millisecond | Unit::Second | Unit::Minute) || (unit == Unit::Hour && matches!(tz, super::Tz::Utc)) {
            // Sub-hour bins are the same instants in every zone.
            ms - (local - out_local)
        } else {
            tz.to_utc(out_local)
        };
        Ok(Some(Bson::DateTime(DateTime::from_millis(out))))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(5439007, "$dateTrunc only supports an object as its argument"));
    };
    let [date, unit, bin, timezone, sow] = named(d, ["date", "unit", "binSize", "timezone", "startOfWeek"], scope, |k| {
        Error::code(5439008, format!("Unrecognized argument to $dateTrunc: {k}"))
    })?;
    let date = date.ok_or_else(|| Error::code(5439009, "Missing 'date' parameter to $dateTrunc"))?;
    let unit = unit.ok_or_else(|| Error::code(5439010, "Missing 'unit' parameter to $dateTrunc"))?;
    Ok(Expr::op(DateTrunc { date, unit, bin_size: bin, timezone, start_of_week: sow }))
}
