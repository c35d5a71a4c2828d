//! `$year`, `$month`, `$dayOfMonth`, `$hour`, `$minute`, `$second`, `$millisecond`,
//! `$dayOfWeek`, `$dayOfYear`, `$week`, `$isoWeek`, `$isoWeekYear`, `$isoDayOfWeek`:
//! `<date>`, `[<date>]` or `{ date, timezone }`.

use bson::{Bson, Document};

use super::{date_arg, tz_arg, Parts};
use crate::error::{Error, Result};
use crate::value::display;
use crate::expr::{Ctx, Expr, Op, VarScope};

#[derive(Debug)]
struct Accessor {
    name: &'static str,
    date: Expr,
    timezone: Option<Expr>,
}

impl Op for Accessor {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let date = self.date.eval_val(ctx)?;
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        if date.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let ms = date_arg(&date)?;
        let p = Parts::of(ms, &tz);
        let v = match self.name {
            "$year" => p.year,
            "$month" => p.month,
            "$dayOfMonth" => p.day,
            "$hour" => p.hour,
            "$minute" => p.minute,
            "$second" => p.second,
            "$millisecond" => p.millisecond,
            "$dayOfWeek" => p.day_of_week,
            "$dayOfYear" => p.day_of_year,
            "$week" => p.week,
            "$isoWeek" => p.iso_week,
            "$isoWeekYear" => p.iso_year,
            _ => p.iso_day_of_week,
        };
        Ok(Some(Bson::Int32(v as i32)))
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    match arg {
        Bson::Document(d) if !d.keys().next().is_some_and(|k| k.starts_with('$')) => {
            let (mut date, mut timezone) = (None, None);
            for (k, v) in d {
                match k.as_str() {
                    "date" => date = Some(Expr::parse(v, scope)?),
                    "timezone" => timezone = Some(Expr::parse(v, scope)?),
                    _ => return Err(Error::code(40535, format!("unrecognized option to {name}: \"{k}\""))),
                }
            }
            let Some(date) = date else {
                let mut spec = Document::new();
                spec.insert(name, arg.clone());
                let shown = display::document(&spec);
                let inner = shown.strip_prefix("{ ").and_then(|s| s.strip_suffix(" }")).unwrap_or(&shown).to_string();
                return Err(Error::code(40539, format!("missing 'date' argument to {name}, provided: {inner}")));
            };
            Ok(Expr::op(Accessor { name, date, timezone }))
        }
        Bson::Array(a) => {
            if a.len() != 1 {
                return Err(Error::code(
                    40536,
                    format!("{name} accepts exactly one argument if given an array, but was given {}", a.len()),
                ));
            }
            Ok(Expr::op(Accessor { name, date: Expr::parse(&a[0], scope)?, timezone: None }))
        }
        other => Ok(Expr::op(Accessor { name, date: Expr::parse(other, scope)?, timezone: None })),
    }
}
