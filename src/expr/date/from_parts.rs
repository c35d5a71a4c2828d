//! `$dateFromParts`: `{ year, month, day, hour, minute, second, millisecond, timezone }` or
//! `{ isoWeekYear, isoWeek, isoDayOfWeek, ... }`; out-of-range parts carry over.

use bson::{Bson, DateTime};

use super::{iso_year_start, local_from_fields, tz_arg, MS_PER_DAY};
use crate::error::{Error, Result};
use crate::expr::args::display_val;
use crate::expr::{Ctx, Expr, Op, Val, VarScope};
use crate::value::Number;

const NAMES: [&str; 10] =
    ["year", "month", "day", "hour", "minute", "second", "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek"];

#[derive(Debug)]
struct DateFromParts {
    /// By `NAMES` index.
    parts: Vec<Option<Expr>>,
    timezone: Option<Expr>,
    iso: bool,
}

fn int_part(name: &str, v: &Val) -> Result<i64> {
    let n = v.as_bson().and_then(Number::from_bson).and_then(|n| n.to_exact_i64());
    n.ok_or_else(|| {
        Error::code(40515, format!("'{name}' must evaluate to an integer, found {} with value {}", v.type_name(), display_val(v)))
    })
}

impl DateFromParts {
    /// Evaluates the parts at `idx` into `vals`: `Ok(false)` when one is nullish (the result is
    /// null). Parts other than the year have the range [-32768, 32767] (31034).
    fn eval_parts(&self, idx: &[usize], vals: &mut [i64; 10], ctx: &Ctx) -> Result<bool> {
        for &i in idx {
            let Some(e) = &self.parts[i] else { continue };
            let v = e.eval_val(ctx)?;
            if v.is_nullish() {
                return Ok(false);
            }
            let x = int_part(NAMES[i], &v)?;
            if i != 0 && i != 7 && !(-32768..=32767).contains(&x) {
                return Err(Error::code(
                    31034,
                    format!("'{}' must evaluate to a value in the range [-32768, 32767]; value {x} is not in range", NAMES[i]),
                ));
            }
            vals[i] = x;
        }
        Ok(true)
    }
}

impl Op for DateFromParts {
    /// In the server's order: the time parts, the time zone, then the date parts; the year's range
    /// is checked once the date parts are known not to be null (40523 for `year`, 31095 for
    /// `isoWeekYear`).
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let mut vals = [1970, 1, 1, 0, 0, 0, 0, 1970, 1, 1];
        if !self.eval_parts(&[3, 4, 5, 6], &mut vals, ctx)? {
            return Ok(Some(Bson::Null));
        }
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let (date_parts, year, code) = if self.iso { ([7, 8, 9], 7, 31095) } else { ([0, 1, 2], 0, 40523) };
        if !self.eval_parts(&date_parts, &mut vals, ctx)? {
            return Ok(Some(Bson::Null));
        }
        if !(1..=9999).contains(&vals[year]) {
            return Err(Error::code(
                code,
                format!("'{}' must evaluate to an integer in the range 1 to 9999, found {}", NAMES[year], vals[year]),
            ));
        }
        let local = if self.iso {
            let days = iso_year_start(vals[7]) + (vals[8] - 1) * 7 + (vals[9] - 1);
            days * MS_PER_DAY + vals[3] * 3_600_000 + vals[4] * 60_000 + vals[5] * 1000 + vals[6]
        } else {
            local_from_fields(vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6])
        };
        Ok(Some(Bson::DateTime(DateTime::from_millis(tz.to_utc(local)))))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(40519, "$dateFromParts only supports an object as its argument"));
    };
    let mut parts: Vec<Option<Expr>> = (0..10).map(|_| None).collect();
    let mut timezone = None;
    for (k, v) in d {
        if k == "timezone" {
            timezone = Some(Expr::parse(v, scope)?);
            continue;
        }
        match NAMES.iter().position(|n| n == k) {
            Some(i) => parts[i] = Some(Expr::parse(v, scope)?),
            None => return Err(Error::code(40518, format!("Unrecognized argument to $dateFromParts: {k}"))),
        }
    }
    let natural = parts[0..3].iter().any(Option::is_some);
    let iso = parts[7..10].iter().any(Option::is_some);
    if natural && iso {
        return Err(Error::code(40489, "$dateFromParts does not allow mixing natural dates with ISO dates"));
    }
    if parts[0].is_none() && parts[7].is_none() {
        return Err(Error::code(40516, "$dateFromParts requires either 'year' or 'isoWeekYear' to be present"));
    }
    Ok(Expr::op(DateFromParts { parts, timezone, iso: !natural && iso }))
}
