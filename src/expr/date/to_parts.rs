//! `$dateToParts: { date, timezone, iso8601 }`.

use bson::{Bson, Document};

use super::{date_arg, tz_arg, Parts};
use crate::error::{Error, Result};
use crate::expr::args::named;
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct DateToParts {
    date: Expr,
    timezone: Option<Expr>,
    iso: Option<Expr>,
}

impl Op for DateToParts {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let date = self.date.eval_val(ctx)?;
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let iso = match &self.iso {
            Some(e) => {
                let v = e.eval_val(ctx)?;
                if v.is_nullish() {
                    return Ok(Some(Bson::Null));
                }
                match v.as_bson() {
                    Some(Bson::Boolean(b)) => *b,
                    _ => return Err(Error::code(40521, format!("iso8601 must evaluate to a bool, found {}", v.type_name()))),
                }
            }
            None => false,
        };
        if date.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let p = Parts::of(date_arg(&date)?, &tz);
        let mut d = Document::new();
        if iso {
            d.insert("isoWeekYear", p.iso_year as i32);
            d.insert("isoWeek", p.iso_week as i32);
            d.insert("isoDayOfWeek", p.iso_day_of_week as i32);
        } else {
            d.insert("year", p.year as i32);
            d.insert("month", p.month as i32);
            d.insert("day", p.day as i32);
        }
        d.insert("hour", p.hour as i32);
        d.insert("minute", p.minute as i32);
        d.insert("second", p.second as i32);
        d.insert("millisecond", p.millisecond as i32);
        Ok(Some(Bson::Document(d)))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(40524, "$dateToParts only supports an object as its argument"));
    };
    let [date, timezone, iso] = named(d, ["date", "timezone", "iso8601"], scope, |k| {
        Error::code(40520, format!("Unrecognized argument to $dateToParts: {k}"))
    })?;
    let date = date.ok_or_else(|| Error::code(40522, "Missing 'date' parameter to $dateToParts"))?;
    Ok(Expr::op(DateToParts { date, timezone, iso }))
}
