//! `$dateToString: { date, format, timezone, onNull }`.

use bson::Bson;

use super::{date_arg, month_name, tz_arg, year4, Parts, Tz};
use crate::error::{Error, Result};
use crate::expr::args::display_val;
use crate::expr::{Ctx, Expr, Op, Val, VarScope};

/// The default format (`format` omitted), as the server's `kIsoFormatStringZ` / with offset.
const DEFAULT_UTC: &str = "%Y-%m-%dT%H:%M:%S.%LZ";
const DEFAULT_TZ: &str = "%Y-%m-%dT%H:%M:%S.%L";

/// Checks a format string (error 18536 for an unknown `%x`, 18535 for a trailing `%`).
pub(crate) fn validate_format(fmt: &str) -> Result<()> {
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c == '%' {
            match it.next() {
                None => return Err(Error::code(18535, "Unmatched '%' at end of format string")),
                Some(x) if "dGHjLmMSuUVwYzZbB%".contains(x) => {}
                Some(x) => return Err(Error::code(18536, format!("Invalid format character '%{x}' in format string"))),
            }
        }
    }
    Ok(())
}

/// Formats a UTC instant in a time zone.
pub(crate) fn format_date(fmt: &str, utc_ms: i64, tz: &Tz) -> Result<String> {
    let off_ms = tz.offset_ms(utc_ms);
    let p = Parts::from_local(utc_ms + off_ms);
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(x) = it.next() else { return Err(Error::code(18535, "Unmatched '%' at end of format string")) };
        let s = match x {
            'd' => format!("{:02}", p.day),
            'G' => year4(p.iso_year),
            'H' => format!("{:02}", p.hour),
            'j' => format!("{:03}", p.day_of_year),
            'L' => format!("{:03}", p.millisecond),
            'm' => format!("{:02}", p.month),
            'M' => format!("{:02}", p.minute),
            'S' => format!("{:02}", p.second),
            'u' => p.iso_day_of_week.to_string(),
            'U' => format!("{:02}", p.week),
            'V' => format!("{:02}", p.iso_week),
            'w' => p.day_of_week.to_string(),
            'Y' => year4(p.year),
            'b' => month_name(p.month, false).to_string(),
            'B' => month_name(p.month, true).to_string(),
            'z' => {
                let mins = off_ms / 60_000;
                format!("{}{:02}{:02}", if mins < 0 { '-' } else { '+' }, mins.abs() / 60, mins.abs() % 60)
            }
            // The offset in minutes as a plain integer (`60`, `-300`, `270`): the server's
            // `TimeZone::formatDate` streams the count, with no `+`.
            'Z' => (off_ms / 60_000).to_string(),
            '%' => "%".to_string(),
            other => return Err(Error::code(18536, format!("Invalid format character '%{other}' in format string"))),
        };
        out.push_str(&s);
    }
    Ok(out)
}

/// The `format` argument of `$dateToString`/`$dateFromString`: `Ok(None)` when it is null
/// (the operator returns null), `Ok(Some(None))` when absent.
pub(crate) fn format_arg(op: &str, code: i32, v: Option<&Val>) -> Result<Option<Option<String>>> {
    let Some(v) = v else { return Ok(Some(None)) };
    if v.is_nullish() {
        return Ok(None);
    }
    match v.as_bson() {
        Some(Bson::String(s)) => {
            validate_format(s)?;
            Ok(Some(Some(s.clone())))
        }
        _ => Err(Error::code(
            code,
            format!("{op} requires that 'format' be a string, found: {} with value {}", v.type_name(), display_val(v)),
        )),
    }
}

#[derive(Debug)]
struct DateToString {
    date: Expr,
    format: Option<Expr>,
    timezone: Option<Expr>,
    on_null: Option<Expr>,
}

impl Op for DateToString {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let date = self.date.eval_val(ctx)?;
        let formatv = crate::expr::eval_opt(&self.format, ctx)?;
        let Some(format) = format_arg("$dateToString", 18533, formatv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let Some(tz) = tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        if date.is_nullish() {
            return match &self.on_null {
                Some(e) => e.eval(ctx),
                None => Ok(Some(Bson::Null)),
            };
        }
        let ms = date_arg(&date)?;
        let is_utc = matches!(tz, Tz::Utc | Tz::Fixed(0));
        let fmt = format.unwrap_or_else(|| if is_utc { DEFAULT_UTC.into() } else { DEFAULT_TZ.into() });
        Ok(Some(Bson::String(format_date(&fmt, ms, &tz)?)))
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(18629, "$dateToString only supports an object as its argument"));
    };
    let (mut date, mut format, mut timezone, mut on_null) = (None, None, None, None);
    for (k, v) in d {
        match k.as_str() {
            "date" => date = Some(Expr::parse(v, scope)?),
            "format" => {
                if let Bson::String(s) = v {
                    validate_format(s)?;
                }
                format = Some(Expr::parse(v, scope)?)
            }
            "timezone" => timezone = Some(Expr::parse(v, scope)?),
            "onNull" => on_null = Some(Expr::parse(v, scope)?),
            _ => return Err(Error::code(18534, format!("Unrecognized argument to $dateToString: {k}"))),
        }
    }
    let date = date.ok_or_else(|| Error::code(18628, "Missing 'date' parameter to $dateToString"))?;
    Ok(Expr::op(DateToString { date, format, timezone, on_null }))
}
