//! `$dateFromString: { dateString, format, timezone, onError, onNull }` and the string parser
//! shared with `$convert`/`$toDate`.

use bson::{Bson, DateTime};

use super::{days_from_civil, iso_year_start, local_from_fields, tz_arg, Tz, MS_PER_DAY};
use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::{display_val, named};
use crate::expr::{Ctx, Expr, Op, VarScope};

fn fail(s: &str, why: &str) -> Error {
    Error::new(ErrorKind::ConversionFailure, format!("Error parsing date string '{s}'; {why}"))
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, min: usize, max: usize) -> Option<i64> {
        let start = self.i;
        while self.i < self.b.len() && self.i - start < max && self.b[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i - start < min {
            return None;
        }
        std::str::from_utf8(&self.b[start..self.i]).ok()?.parse().ok()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn done(&self) -> bool {
        self.i >= self.b.len()
    }

    /// `Z`, `±hh`, `±hhmm`, `±hh:mm`: seconds east of UTC.
    fn offset(&mut self) -> Option<i64> {
        if self.eat(b'Z') {
            return Some(0);
        }
        let sign = match self.peek()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.i += 1;
        let h = self.digits(2, 2)?;
        let had_colon = self.eat(b':');
        let m = if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.digits(2, 2)?
        } else if had_colon {
            return None;
        } else {
            0
        };
        Some(sign * (h * 3600 + m * 60))
    }
}

/// The flexible ISO-8601 reading used when no format is given.
fn parse_default(s: &str) -> std::result::Result<(i64, Option<i64>), &'static str> {
    let t = s.trim();
    let mut c = Cursor { b: t.as_bytes(), i: 0 };
    let y = c.digits(4, 4).ok_or("Unexpected data found.")?;
    let sep = if c.eat(b'-') {
        b'-'
    } else if c.eat(b'/') {
        b'/'
    } else {
        return Err("Unexpected data found.");
    };
    let mo = c.digits(1, 2).ok_or("Unexpected data found.")?;
    if !c.eat(sep) {
        return Err("Unexpected data found.");
    }
    let d = c.digits(1, 2).ok_or("Unexpected data found.")?;
    if !(1..=12).contains(&mo) || d < 1 || d > super::days_in_month(y, mo) {
        return Err("The parsed date was invalid");
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0);
    if c.eat(b'T') || c.eat(b' ') {
        h = c.digits(1, 2).ok_or("Unexpected data found.")?;
        if !c.eat(b':') {
            return Err("Unexpected data found.");
        }
        mi = c.digits(2, 2).ok_or("Unexpected data found.")?;
        if c.eat(b':') {
            sec = c.digits(2, 2).ok_or("Unexpected data found.")?;
            if c.eat(b'.') {
                let start = c.i;
                let frac = c.digits(1, 9).ok_or("Unexpected data found.")?;
                let n = c.i - start;
                ms = if n >= 3 { frac / 10i64.pow((n - 3) as u32) } else { frac * 10i64.pow((3 - n) as u32) };
            }
        }
        if h > 23 || mi > 59 || sec > 59 {
            return Err("The parsed time was invalid");
        }
    }
    let _ = c.eat(b' ');
    let offset = if c.done() { None } else { Some(c.offset().ok_or("Unexpected data found.")?) };
    if !c.done() {
        return Err("Trailing data");
    }
    Ok((local_from_fields(y, mo, d, h, mi, sec, ms), offset))
}

/// Parses with a format (`%Y-%m-%d`, ...).
fn parse_format(s: &str, fmt: &str) -> std::result::Result<(i64, Option<i64>), String> {
    let mut c = Cursor { b: s.as_bytes(), i: 0 };
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut ms) = (1970, 1, 1, 0, 0, 0, 0);
    let (mut iso_y, mut iso_w, mut iso_d, mut doy) = (None, None, None, None);
    let mut offset = None;
    let mut f = fmt.chars();
    let bad = || "Unexpected data found.".to_string();
    while let Some(ch) = f.next() {
        if ch != '%' {
            let mut buf = [0u8; 4];
            for b in ch.encode_utf8(&mut buf).bytes() {
                if !c.eat(b) {
                    return Err("The separation symbol could not be found".into());
                }
            }
            continue;
        }
        let spec = f.next().ok_or_else(|| "Unmatched '%' at end of format string".to_string())?;
        match spec {
            'Y' => y = c.digits(4, 4).ok_or_else(bad)?,
            'm' => mo = c.digits(1, 2).ok_or_else(bad)?,
            'd' => d = c.digits(1, 2).ok_or_else(bad)?,
            'H' => h = c.digits(1, 2).ok_or_else(bad)?,
            'M' => mi = c.digits(1, 2).ok_or_else(bad)?,
            'S' => sec = c.digits(1, 2).ok_or_else(bad)?,
            // Up to three digits of a fraction of a second (timelib's `v`): ".81" is 810 ms.
            'L' => {
                let start = c.i;
                let frac = c.digits(1, 3).ok_or_else(bad)?;
                ms = frac * 10i64.pow((3 - (c.i - start)) as u32);
            }
            'j' => doy = Some(c.digits(1, 3).ok_or_else(bad)?),
            'G' => iso_y = Some(c.digits(4, 4).ok_or_else(bad)?),
            'V' => iso_w = Some(c.digits(1, 2).ok_or_else(bad)?),
            'u' => iso_d = Some(c.digits(1, 1).ok_or_else(bad)?),
            'z' => offset = Some(c.offset().ok_or_else(bad)?),
            'Z' => {
                let sign = if c.eat(b'-') {
                    -1
                } else {
                    c.eat(b'+');
                    1
                };
                offset = Some(sign * c.digits(1, 4).ok_or_else(bad)? * 60);
            }
            'b' | 'B' => {
                let rest = &s[c.i.min(s.len())..];
                let m = (1..=12)
                    .find(|m| {
                        let name = super::month_name(*m, spec == 'B');
                        rest.len() >= name.len() && rest[..name.len()].eq_ignore_ascii_case(name)
                    })
                    .ok_or_else(bad)?;
                c.i += super::month_name(m, spec == 'B').len();
                mo = m;
            }
            '%' => {
                if !c.eat(b'%') {
                    return Err(bad());
                }
            }
            other => return Err(format!("Invalid format character '%{other}' in format string")),
        }
    }
    if !c.done() {
        return Err("Trailing data".into());
    }
    if let (Some(iy), Some(iw)) = (iso_y, iso_w) {
        let days = iso_year_start(iy) + (iw - 1) * 7 + (iso_d.unwrap_or(1) - 1);
        return Ok((days * MS_PER_DAY + h * 3_600_000 + mi * 60_000 + sec * 1000 + ms, offset));
    }
    if let Some(j) = doy {
        let days = days_from_civil(y, 1, 1) + j - 1;
        return Ok((days * MS_PER_DAY + h * 3_600_000 + mi * 60_000 + sec * 1000 + ms, offset));
    }
    if !(1..=12).contains(&mo) || d < 1 || d > super::days_in_month(y, mo) {
        return Err("The parsed date was invalid".into());
    }
    if h > 23 || mi > 59 || sec > 59 {
        return Err("The parsed time was invalid".into());
    }
    Ok((local_from_fields(y, mo, d, h, mi, sec, ms), offset))
}

/// A date string to UTC milliseconds: an offset in the string wins, else the time zone.
pub(crate) fn parse(s: &str, format: Option<&str>, tz: Option<&Tz>) -> Result<i64> {
    Ok(parse_with_offset(s, format, tz)?.0)
}

/// [`parse`], also telling whether the string carried its own offset.
fn parse_with_offset(s: &str, format: Option<&str>, tz: Option<&Tz>) -> Result<(i64, bool)> {
    let (local, offset) = match format {
        Some(f) => parse_format(s, f).map_err(|e| fail(s, &e))?,
        None => parse_default(s).map_err(|e| fail(s, e))?,
    };
    Ok(match offset {
        Some(o) => (local - o * 1000, true),
        None => (tz.map(|t| t.to_utc(local)).unwrap_or(local), false),
    })
}

#[derive(Debug)]
struct DateFromString {
    date_string: Expr,
    format: Option<Expr>,
    timezone: Option<Expr>,
    on_error: Option<Expr>,
    on_null: Option<Expr>,
}

impl Op for DateFromString {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let tzv = crate::expr::eval_opt(&self.timezone, ctx)?;
        let Some(tz) = super::tz_arg(tzv.as_ref())? else { return Ok(Some(Bson::Null)) };
        let formatv = crate::expr::eval_opt(&self.format, ctx)?;
        let Some(format) = super::to_string::format_arg("$dateFromString", 40684, formatv.as_ref())? else {
            return Ok(Some(Bson::Null));
        };
        let ds = self.date_string.eval_val(ctx)?;
        if ds.is_nullish() {
            return match &self.on_null {
                Some(e) => e.eval(ctx),
                None => Ok(Some(Bson::Null)),
            };
        }
        let result = match ds.as_bson() {
            Some(Bson::String(s)) => match parse_with_offset(s, format.as_deref(), Some(&tz)) {
                Ok((_, true)) if self.timezone.is_some() => Err(Error::new(
                    ErrorKind::ConversionFailure,
                    "you cannot pass in a date/time string with GMT offset together with a timezone argument",
                )),
                other => other.map(|(ms, _)| ms),
            },
            _ => Err(Error::new(
                ErrorKind::ConversionFailure,
                format!("$dateFromString requires that 'dateString' be a string, found: {} with value {}", ds.type_name(), display_val(&ds)),
            )),
        };
        match result {
            Ok(ms) => Ok(Some(Bson::DateTime(DateTime::from_millis(ms)))),
            Err(e) if e.kind == ErrorKind::ConversionFailure => match &self.on_error {
                Some(oe) => oe.eval(ctx),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}

pub fn parse_op(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            40540,
            format!("$dateFromString only supports an object as an argument, found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let [date_string, format, timezone, on_error, on_null] =
        named(d, ["dateString", "format", "timezone", "onError", "onNull"], scope, |k| {
            Error::code(40541, format!("Unrecognized argument to $dateFromString: {k}"))
        })?;
    let date_string = date_string.ok_or_else(|| Error::code(40542, "Missing 'dateString' parameter to $dateFromString"))?;
    let _ = tz_arg;
    Ok(Expr::op(DateFromString { date_string, format, timezone, on_error, on_null }))
}
