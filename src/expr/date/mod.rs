//! Date expression operators.
//!
//! Time zones come from `jiff` with its bundled tz database (`tzdb-bundle-always`): it is
//! well kept, needs no platform files (none exist in WebAssembly), and its compressed database is
//! smaller than `chrono-tz`'s generated tables. Only offsets are taken from it; the civil
//! calendar arithmetic below works on any BSON date (the server's range is wider than jiff's).

pub mod add;
pub mod diff;
pub mod from_parts;
pub mod from_string;
pub mod parts;
pub mod to_parts;
pub mod to_string;
pub mod trunc;

use bson::Bson;
use jiff::tz::TimeZone;

use crate::error::{Error, Result};
use crate::expr::Val;

pub(crate) const MS_PER_DAY: i64 = 86_400_000;

/// A time zone argument.
#[derive(Debug, Clone)]
pub(crate) enum Tz {
    Utc,
    Fixed(i64),
    Named(TimeZone),
}

impl Tz {
    /// Offset from UTC in milliseconds at a UTC instant.
    pub fn offset_ms(&self, utc_ms: i64) -> i64 {
        match self {
            Tz::Utc => 0,
            Tz::Fixed(s) => s * 1000,
            Tz::Named(tz) => match jiff::Timestamp::from_millisecond(utc_ms) {
                Ok(ts) => tz.to_offset(ts).seconds() as i64 * 1000,
                Err(_) => 0,
            },
        }
    }

    /// Local wall-clock milliseconds of a UTC instant.
    pub fn to_local(&self, utc_ms: i64) -> i64 {
        utc_ms.saturating_add(self.offset_ms(utc_ms))
    }

    /// The UTC instant of a local wall-clock time (in a gap, the earlier offset applies).
    pub fn to_utc(&self, local_ms: i64) -> i64 {
        match self {
            Tz::Utc => local_ms,
            Tz::Fixed(s) => local_ms - s * 1000,
            Tz::Named(_) => {
                // The offsets in force a day before and a day after (at most one transition
                // lies between): in an overlap the earlier instant wins, in a gap the offset
                // from before the gap applies (02:30 in a spring-forward gap reads as 03:30).
                let approx = local_ms - self.offset_ms(local_ms);
                let before = self.offset_ms(approx.saturating_sub(MS_PER_DAY));
                let after = self.offset_ms(approx.saturating_add(MS_PER_DAY));
                let (a, b) = (local_ms - before, local_ms - after);
                match (self.to_local(a) == local_ms, self.to_local(b) == local_ms) {
                    (true, true) => a.min(b),
                    (false, true) => b,
                    _ => a,
                }
            }
        }
    }
}

/// Parses `+hh:mm`, `+hhmm`, `+hh`, `-...` offsets.
fn parse_offset(s: &str) -> Option<i64> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = match (digits.len(), rest.contains(':')) {
        (2, false) => (digits.parse::<i64>().ok()?, 0),
        (4, _) if !rest.contains(':') || rest.find(':') == Some(2) => (digits[..2].parse::<i64>().ok()?, digits[2..].parse::<i64>().ok()?),
        _ => return None,
    };
    if h > 99 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// A time zone from its name: an Olson identifier, `UTC`/`GMT`/`Z`, or an offset.
pub(crate) fn tz_from_str(s: &str) -> Result<Tz> {
    if matches!(s, "UTC" | "GMT" | "Z" | "Etc/UTC" | "Etc/GMT") {
        return Ok(Tz::Utc);
    }
    if let Some(secs) = parse_offset(s) {
        return Ok(Tz::Fixed(secs));
    }
    match TimeZone::get(s) {
        Ok(tz) => Ok(Tz::Named(tz)),
        Err(_) => Err(Error::code(40485, format!("unrecognized time zone identifier: \"{s}\""))),
    }
}

/// The `timezone` argument: `None` when it is null or missing (the operator returns null).
pub(crate) fn tz_arg(v: Option<&Val>) -> Result<Option<Tz>> {
    let Some(v) = v else { return Ok(Some(Tz::Utc)) };
    if v.is_nullish() {
        return Ok(None);
    }
    match v.as_bson() {
        Some(Bson::String(s)) => Ok(Some(tz_from_str(s)?)),
        _ => Err(Error::code(40517, format!("timezone must evaluate to a string, found {}", v.type_name()))),
    }
}

/// A date-like argument in milliseconds: a date, a timestamp or an ObjectId.
pub(crate) fn as_date(v: &Val) -> Option<i64> {
    match v.as_bson()? {
        Bson::DateTime(d) => Some(d.timestamp_millis()),
        Bson::Timestamp(t) => Some(t.time as i64 * 1000),
        Bson::ObjectId(o) => Some(o.timestamp().timestamp_millis()),
        _ => None,
    }
}

/// [`as_date`] or error 16006.
pub(crate) fn date_arg(v: &Val) -> Result<i64> {
    as_date(v).ok_or_else(|| Error::code(16006, format!("can't convert from BSON type {} to Date", v.type_name())))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number.
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub(crate) fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub(crate) fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// The calendar fields of a local time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub millisecond: i64,
    /// 1 = Sunday ... 7 = Saturday.
    pub day_of_week: i64,
    /// 1..=366.
    pub day_of_year: i64,
    pub iso_year: i64,
    pub iso_week: i64,
    /// 1 = Monday ... 7 = Sunday.
    pub iso_day_of_week: i64,
    /// `%U`: weeks starting on Sunday, 0 before the year's first Sunday.
    pub week: i64,
}

impl Parts {
    pub fn from_local(local_ms: i64) -> Parts {
        let days = local_ms.div_euclid(MS_PER_DAY);
        let ms_of_day = local_ms.rem_euclid(MS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let day_of_week = (days + 4).rem_euclid(7) + 1; // 1970-01-01 was a Thursday
        let day_of_year = days - days_from_civil(year, 1, 1) + 1;
        let iso_day_of_week = if day_of_week == 1 { 7 } else { day_of_week - 1 };
        let (iso_year, iso_week) = iso_week_of(year, day_of_year, iso_day_of_week);
        let week = (day_of_year + 6 - (day_of_week - 1)) / 7;
        Parts {
            year,
            month,
            day,
            hour: ms_of_day / 3_600_000,
            minute: ms_of_day / 60_000 % 60,
            second: ms_of_day / 1000 % 60,
            millisecond: ms_of_day % 1000,
            day_of_week,
            day_of_year,
            iso_year,
            iso_week,
            iso_day_of_week,
            week,
        }
    }

    pub fn of(utc_ms: i64, tz: &Tz) -> Parts {
        Parts::from_local(tz.to_local(utc_ms))
    }
}

fn iso_weeks_in_year(y: i64) -> i64 {
    let jan1 = (days_from_civil(y, 1, 1) + 3).rem_euclid(7) + 1; // 1 = Monday
    if jan1 == 4 || (jan1 == 3 && is_leap(y)) {
        53
    } else {
        52
    }
}

fn iso_week_of(year: i64, doy: i64, iso_dow: i64) -> (i64, i64) {
    let w = (doy - iso_dow + 10) / 7;
    if w < 1 {
        (year - 1, iso_weeks_in_year(year - 1))
    } else if w > iso_weeks_in_year(year) {
        (year + 1, 1)
    } else {
        (year, w)
    }
}

/// Day number of the Monday of ISO week 1 of an ISO year.
pub(crate) fn iso_year_start(y: i64) -> i64 {
    let jan4 = days_from_civil(y, 1, 4);
    let dow = (jan4 + 3).rem_euclid(7); // 0 = Monday
    jan4 - dow
}

/// `%Y-%m-%dT%H:%M:%S.%LZ` of a UTC instant.
pub fn format_iso(ms: i64) -> String {
    let p = Parts::from_local(ms);
    format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        year4(p.year),
        p.month,
        p.day,
        p.hour,
        p.minute,
        p.second,
        p.millisecond
    )
}

pub(crate) fn year4(y: i64) -> String {
    if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

/// Local milliseconds of civil fields (any field may overflow into the next).
pub(crate) fn local_from_fields(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, ms: i64) -> i64 {
    let y = y + (mo - 1).div_euclid(12);
    let mo = (mo - 1).rem_euclid(12) + 1;
    let days = days_from_civil(y, mo, 1) + d - 1;
    days * MS_PER_DAY + h * 3_600_000 + mi * 60_000 + s * 1000 + ms
}

/// Time units of `$dateAdd`, `$dateDiff`, `$dateTrunc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Year,
    Quarter,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
}

impl Unit {
    pub fn ms(self) -> i64 {
        match self {
            Unit::Week => 7 * MS_PER_DAY,
            Unit::Day => MS_PER_DAY,
            Unit::Hour => 3_600_000,
            Unit::Minute => 60_000,
            Unit::Second => 1000,
            _ => 1,
        }
    }
}

/// The `unit` argument; `None` when null or missing.
pub(crate) fn unit_arg(name: &str, v: &Val) -> Result<Option<Unit>> {
    if v.is_nullish() {
        return Ok(None);
    }
    let Some(Bson::String(s)) = v.as_bson() else {
        return Err(Error::code(5439013, format!("{name} requires 'unit' to be a string, but got {}", v.type_name())));
    };
    Ok(Some(match s.as_str() {
        "year" => Unit::Year,
        "quarter" => Unit::Quarter,
        "month" => Unit::Month,
        "week" => Unit::Week,
        "day" => Unit::Day,
        "hour" => Unit::Hour,
        "minute" => Unit::Minute,
        "second" => Unit::Second,
        "millisecond" => Unit::Millisecond,
        other => {
            return Err(Error::code(
                5439014,
                format!("{name} parameter 'unit' value cannot be recognized as a time unit: {other}"),
            ))
        }
    }))
}

/// The `startOfWeek` argument as an ISO day (1 = Monday ... 7 = Sunday); default Sunday.
pub(crate) fn start_of_week_arg(name: &str, v: Option<&Val>) -> Result<Option<i64>> {
    let Some(v) = v else { return Ok(Some(7)) };
    if v.is_nullish() {
        return Ok(None);
    }
    let Some(Bson::String(s)) = v.as_bson() else {
        return Err(Error::code(5439015, format!("{name} requires 'startOfWeek' to be a string, but got {}", v.type_name())));
    };
    let d = match s.to_ascii_lowercase().as_str() {
        "monday" | "mon" => 1,
        "tuesday" | "tue" => 2,
        "wednesday" | "wed" => 3,
        "thursday" | "thu" => 4,
        "friday" | "fri" => 5,
        "saturday" | "sat" => 6,
        "sunday" | "sun" => 7,
        _ => {
            return Err(Error::code(
                5439016,
                format!("{name} parameter 'startOfWeek' value cannot be recognized as a day of a week: {s}"),
            ))
        }
    };
    Ok(Some(d))
}

/// The ISO day (1 = Monday) of a day number.
pub(crate) fn iso_dow_of_days(days: i64) -> i64 {
    (days + 3).rem_euclid(7) + 1
}

/// `date + amount * unit` in a time zone (months clamp the day; days and weeks keep the local
/// time of day; smaller units are exact durations).
pub(crate) fn add_units(utc_ms: i64, unit: Unit, amount: i64, tz: &Tz) -> Option<i64> {
    match unit {
        Unit::Year | Unit::Quarter | Unit::Month => {
            let months = match unit {
                Unit::Year => amount.checked_mul(12)?,
                Unit::Quarter => amount.checked_mul(3)?,
                _ => amount,
            };
            let local = tz.to_local(utc_ms);
            let p = Parts::from_local(local);
            let total = (p.year * 12 + p.month - 1).checked_add(months)?;
            let (y, m) = (total.div_euclid(12), total.rem_euclid(12) + 1);
            let d = p.day.min(days_in_month(y, m));
            let ms_of_day = local.rem_euclid(MS_PER_DAY);
            Some(tz.to_utc(days_from_civil(y, m, d).checked_mul(MS_PER_DAY)?.checked_add(ms_of_day)?))
        }
        Unit::Week | Unit::Day => {
            let days = if unit == Unit::Week { amount.checked_mul(7)? } else { amount };
            let local = tz.to_local(utc_ms).checked_add(days.checked_mul(MS_PER_DAY)?)?;
            Some(tz.to_utc(local))
        }
        _ => utc_ms.checked_add(amount.checked_mul(unit.ms())?),
    }
}

pub(crate) fn month_name(m: i64, long: bool) -> &'static str {
    const LONG: [&str; 12] =
        ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
    let i = (m - 1).clamp(0, 11) as usize;
    if long {
        LONG[i]
    } else {
        &LONG[i][..3]
    }
}

/// Parses a date string (`$dateFromString`, `$toDate`) to UTC milliseconds; see
/// [`from_string::parse`].
pub(crate) fn parse_date_string(s: &str, format: Option<&str>, tz: Option<&Tz>) -> Result<i64> {
    from_string::parse(s, format, tz)
}
