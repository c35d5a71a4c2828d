//! Extended JSON on the UI side, over `serde_json::Value` (the UI never links `bson` or the engine).
//!
//! The worker speaks canonical Extended JSON. People edit a friendlier form, "relaxed" like the
//! spec's Relaxed EJSON but lossless: Int32 is a plain integer, a finite Double a number with a
//! fraction or exponent (`5.0`), a Date in years 1970-9999 `{"$date": "2024-05-01T10:00:00.000Z"}`;
//! Int64 stays `{"$numberLong": ".."}` so that no type changes on a round trip.

use serde_json::Value;

/// The wrapper keys of canonical Extended JSON v2.
const WRAPPERS: [&str; 16] = [
    "$oid", "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal", "$binary", "$date",
    "$regularExpression", "$timestamp", "$minKey", "$maxKey", "$undefined", "$code", "$symbol",
    "$dbPointer", "$uuid",
];

fn wrapper(v: &Value) -> Option<(&str, &Value)> {
    let o = v.as_object()?;
    let (k, inner) = o.iter().next()?;
    if k == "$code" && o.len() == 2 && o.contains_key("$scope") {
        return Some(("$code", inner));
    }
    if o.len() == 1 && WRAPPERS.contains(&k.as_str()) {
        return Some((k.as_str(), inner));
    }
    None
}

/// Formats a double the way canonical Extended JSON writes it (`5.0`, `0.1`, `1e+300`, `NaN`).
pub fn double_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f:?}")
    }
}

fn parse_double(s: &str) -> Option<f64> {
    match s {
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse::<f64>().ok(),
    }
}

fn num_long(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Object(o) => o.get("$numberLong").and_then(|s| s.as_str()).and_then(|s| s.parse().ok()),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

/// Canonical Extended JSON -> the editable relaxed form.
pub fn to_relaxed(v: &Value) -> Value {
    if let Some((k, inner)) = wrapper(v) {
        match k {
            "$numberInt" => {
                if let Some(i) = inner.as_str().and_then(|s| s.parse::<i64>().ok()) {
                    return Value::from(i);
                }
            }
            "$numberDouble" => {
                if let Some(f) = inner.as_str().and_then(parse_double) {
                    if f.is_finite() {
                        if let Some(n) = serde_json::Number::from_f64(f) {
                            return Value::Number(n);
                        }
                    }
                }
            }
            "$date" => {
                if let Some(ms) = num_long(inner) {
                    if let Some(iso) = iso_from_millis(ms) {
                        return serde_json::json!({ "$date": iso });
                    }
                }
            }
            _ => {}
        }
        return v.clone();
    }
    match v {
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), to_relaxed(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(to_relaxed).collect()),
        other => other.clone(),
    }
}

/// The relaxed form (or any mix of relaxed and canonical) -> canonical Extended JSON.
pub fn to_canonical(v: &Value) -> Value {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if let Ok(i32v) = i32::try_from(i) {
                    serde_json::json!({ "$numberInt": i32v.to_string() })
                } else {
                    serde_json::json!({ "$numberLong": i.to_string() })
                }
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                serde_json::json!({ "$numberDouble": double_text(f) })
            }
        }
        Value::Object(o) => {
            if let Some(("$date", Value::String(s))) = wrapper(v) {
                if let Some(ms) = millis_from_iso(s) {
                    return serde_json::json!({ "$date": { "$numberLong": ms.to_string() } });
                }
            }
            if wrapper(v).is_some() {
                return v.clone();
            }
            Value::Object(o.iter().map(|(k, x)| (k.clone(), to_canonical(x))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(to_canonical).collect()),
        other => other.clone(),
    }
}

/// Where and why a text is not a valid document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

/// Parses Extended JSON text (relaxed or canonical) that must be one object; returns canonical.
pub fn parse_object(text: &str) -> Result<Value, TextError> {
    let v = parse_value(text)?;
    if !v.is_object() {
        return Err(TextError { message: "expected a document: an object in { }".into(), line: 1, column: 1 });
    }
    Ok(v)
}

/// The longest text read as a document or value, in bytes: a document holds at most 16 MiB of
/// BSON, and its Extended JSON is longer only by its quoting. Longer text is refused unread (a
/// 100 MB paste is not parsed, three times per keystroke, until the tab dies).
pub const MAX_TEXT: usize = 24 << 20;

/// Parses Extended JSON text (any value); returns canonical.
pub fn parse_value(text: &str) -> Result<Value, TextError> {
    if text.len() > MAX_TEXT {
        return Err(TextError {
            message: format!(
                "the text is {}; the most a document's text may be is {} (a document holds at most 16 MiB)",
                super::human_bytes(text.len() as f64),
                super::human_bytes(MAX_TEXT as f64)
            ),
            line: 1,
            column: 1,
        });
    }
    let v: Value = serde_json::from_str(text).map_err(|e| TextError {
        message: strip_position(&e.to_string()),
        line: e.line(),
        column: e.column(),
    })?;
    check_wrappers(&v).map_err(|message| TextError { message, line: 1, column: 1 })?;
    Ok(to_canonical(&v))
}

fn strip_position(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// Rejects malformed type wrappers early, with a message naming the wrapper.
fn check_wrappers(v: &Value) -> Result<(), String> {
    if let Some((k, inner)) = wrapper(v) {
        let ok = match k {
            "$oid" => inner.as_str().is_some_and(|s| s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())),
            "$numberInt" => inner.as_str().is_some_and(|s| s.parse::<i32>().is_ok()),
            "$numberLong" => inner.as_str().is_some_and(|s| s.parse::<i64>().is_ok()),
            "$numberDouble" => inner.as_str().and_then(parse_double).is_some(),
            "$date" => match inner {
                Value::String(s) => millis_from_iso(s).is_some(),
                other => num_long(other).is_some(),
            },
            _ => true,
        };
        if !ok {
            return Err(format!("invalid {k} value: {inner}"));
        }
        return Ok(());
    }
    match v {
        Value::Object(o) => o.values().try_for_each(check_wrappers),
        Value::Array(a) => a.iter().try_for_each(check_wrappers),
        _ => Ok(()),
    }
}

/// Pretty text of a canonical value in the editable relaxed form.
pub fn pretty_relaxed(v: &Value) -> String {
    serde_json::to_string_pretty(&to_relaxed(v)).unwrap_or_default()
}

/// Compact text of a canonical value in the relaxed form.
pub fn compact_relaxed(v: &Value) -> String {
    serde_json::to_string(&to_relaxed(v)).unwrap_or_default()
}

/// A BSON type name and a short display of one canonical value (for the field tree).
pub fn describe(v: &Value) -> (&'static str, String) {
    if let Some((k, inner)) = wrapper(v) {
        let s = |x: &Value| x.as_str().unwrap_or_default().to_string();
        return match k {
            "$oid" => ("objectId", format!("ObjectId('{}')", s(inner))),
            "$numberInt" => ("int", s(inner)),
            "$numberLong" => ("long", format!("Long('{}')", s(inner))),
            "$numberDouble" => ("double", {
                let t = s(inner);
                t.strip_suffix(".0").map(str::to_string).unwrap_or(t)
            }),
            "$numberDecimal" => ("decimal", format!("Decimal128('{}')", s(inner))),
            "$date" => ("date", match num_long(inner).and_then(iso_from_millis) {
                Some(iso) => format!("ISODate('{iso}')"),
                None => format!("Date({})", num_long(inner).unwrap_or_default()),
            }),
            "$binary" => ("binData", format!("Binary({})", compact(inner))),
            "$uuid" => ("binData", format!("UUID('{}')", s(inner))),
            "$regularExpression" => ("regex", format!(
                "/{}/{}",
                inner.get("pattern").and_then(Value::as_str).unwrap_or_default(),
                inner.get("options").and_then(Value::as_str).unwrap_or_default()
            )),
            "$timestamp" => ("timestamp", format!("Timestamp({})", compact(inner))),
            "$minKey" => ("minKey", "MinKey()".into()),
            "$maxKey" => ("maxKey", "MaxKey()".into()),
            "$undefined" => ("undefined", "undefined".into()),
            "$code" => ("javascript", format!("Code({})", compact(inner))),
            "$symbol" => ("symbol", s(inner)),
            _ => ("dbPointer", compact(v)),
        };
    }
    match v {
        Value::Null => ("null", "null".into()),
        Value::Bool(b) => ("bool", b.to_string()),
        Value::String(s) => ("string", format!("{s:?}")),
        Value::Number(n) => ("number", n.to_string()),
        Value::Array(a) => ("array", format!("Array({})", a.len())),
        Value::Object(o) => ("object", format!("{{{} fields}}", o.len())),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// True if the canonical value is a document (not a type wrapper).
pub fn is_document(v: &Value) -> bool {
    v.is_object() && wrapper(v).is_none()
}

/// The integer in a canonical number (`{"$numberInt": "3"}`, `{"$numberLong"}`, `{"$numberDouble"}`,
/// or a plain JSON number).
pub fn as_f64(v: &Value) -> Option<f64> {
    if let Some((k, inner)) = wrapper(v) {
        let s = inner.as_str()?;
        return match k {
            "$numberInt" | "$numberLong" | "$numberDecimal" => s.parse::<f64>().ok(),
            "$numberDouble" => parse_double(s),
            _ => None,
        };
    }
    v.as_f64()
}

/// Canonical `{"$numberInt"}` / `{"$numberLong"}` for an integer.
pub fn int(i: i64) -> Value {
    match i32::try_from(i) {
        Ok(v) => serde_json::json!({ "$numberInt": v.to_string() }),
        Err(_) => serde_json::json!({ "$numberLong": i.to_string() }),
    }
}

// ---- dates -----------------------------------------------------------------------------------

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month, day) of a count of days since 1970-01-01 (Howard Hinnant's civil calendar).
pub(super) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `2024-05-01T10:00:00.000Z` for milliseconds since the epoch, for years 1970-9999 (the range
/// in which Relaxed Extended JSON writes dates as strings).
pub fn iso_from_millis(ms: i64) -> Option<String> {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    if !(1970..=9999).contains(&y) {
        return None;
    }
    let (h, rem) = (rem / 3_600_000, rem % 3_600_000);
    let (mi, rem) = (rem / 60_000, rem % 60_000);
    let (s, milli) = (rem / 1000, rem % 1000);
    Some(format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z"))
}

/// Milliseconds since the epoch of an ISO-8601 date-time: `YYYY-MM-DD`, optionally
/// `THH:MM[:SS[.fff]]` and `Z` or `±HH:MM`.
pub fn millis_from_iso(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = s.get(from..from + len)?;
        if part.bytes().all(|c| c.is_ascii_digit()) { part.parse().ok() } else { None }
    };
    let (y, m, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut ms = days_from_civil(y, m, d) * 86_400_000;
    let mut i = 10;
    if i == b.len() {
        return Some(ms);
    }
    if b[i] != b'T' && b[i] != b' ' {
        return None;
    }
    let (h, mi) = (num(i + 1, 2)?, num(i + 4, 2)?);
    if b.get(i + 3) != Some(&b':') || h > 23 || mi > 59 {
        return None;
    }
    ms += h * 3_600_000 + mi * 60_000;
    i += 6;
    if b.get(i) == Some(&b':') {
        let sec = num(i + 1, 2)?;
        if sec > 59 {
            return None;
        }
        ms += sec * 1000;
        i += 3;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let frac = s.get(start..end)?;
            if frac.is_empty() {
                return None;
            }
            let padded: String = frac.chars().chain("000".chars()).take(3).collect();
            ms += padded.parse::<i64>().ok()?;
            i = end;
        }
    }
    match b.get(i) {
        Some(b'Z') if i + 1 == b.len() => Some(ms),
        Some(&sign @ (b'+' | b'-')) => {
            let (oh, om) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if b.get(i + 3) != Some(&b':') || i + 6 != b.len() {
                return None;
            }
            let off = (oh * 60 + om) * 60_000;
            Some(if sign == b'+' { ms - off } else { ms + off })
        }
        None => Some(ms),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn relaxed_round_trips_every_type() {
        let canonical = json!({
            "_id": {"$oid": "65f0a1b2c3d4e5f601234567"},
            "i": {"$numberInt": "5"}, "big": {"$numberInt": "-2147483648"},
            "l": {"$numberLong": "5"}, "d": {"$numberDouble": "5.0"}, "f": {"$numberDouble": "0.1"},
            "neg0": {"$numberDouble": "-0.0"}, "nan": {"$numberDouble": "NaN"}, "inf": {"$numberDouble": "-Infinity"},
            "huge": {"$numberDouble": "1e300"},
            "when": {"$date": {"$numberLong": "1714557600000"}},
            "old": {"$date": {"$numberLong": "-1"}},
            "dec": {"$numberDecimal": "1.10"},
            "s": "quote\" back\\ </script> \u{2028} é", "$dollar": {"a.b": [null, true]},
        });
        let relaxed = to_relaxed(&canonical);
        assert_eq!(relaxed["i"], json!(5));
        assert_eq!(relaxed["d"].to_string(), "5.0");
        assert_eq!(relaxed["when"], json!({"$date": "2024-05-01T10:00:00.000Z"}));
        assert_eq!(relaxed["old"], json!({"$date": {"$numberLong": "-1"}}));
        let text = pretty_relaxed(&canonical);
        let back = parse_object(&text).unwrap();
        assert_eq!(back["huge"], json!({"$numberDouble": "1e300"}));
        assert_eq!(back["neg0"], json!({"$numberDouble": "-0.0"}));
        // Everything else comes back exactly.
        let mut expected = canonical.clone();
        expected["huge"] = json!({"$numberDouble": "1e300"});
        assert_eq!(back, expected);
    }

    #[test]
    fn integers_pick_the_smallest_type() {
        let cases = [
            ("1", json!({"$numberInt": "1"})),
            ("2147483648", json!({"$numberLong": "2147483648"})),
            ("1.5", json!({"$numberDouble": "1.5"})),
            ("1e2", json!({"$numberDouble": "100.0"})),
            ("18446744073709551615", json!({"$numberDouble": "1.8446744073709552e19"})),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_value(text).unwrap(), expected, "{text}");
        }
    }

    #[test]
    fn errors_carry_position() {
        let cases = [
            ("{\n  \"a\": 1,\n  \"b\": }", 3, "expected value"),
            ("[1]", 1, "expected a document"),
            ("{\"a\": {\"$oid\": \"xyz\"}}", 1, "invalid $oid"),
            ("{\"a\": {\"$date\": \"2024-13-01\"}}", 1, "invalid $date"),
            ("{\"a\": 1", 1, "EOF"),
        ];
        for (text, line, needle) in cases {
            let e = parse_object(text).unwrap_err();
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn text_over_the_cap_is_refused_unread() {
        // Valid JSON, one byte over the cap: refused with the sizes, not parsed.
        let big = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_TEXT - 8 + 1));
        assert_eq!(big.len(), MAX_TEXT + 1);
        let e = parse_object(&big).unwrap_err();
        assert!(e.message.contains("24.0 MiB"), "{e}");
        let ok = format!("{{\"a\":\"{}\"}}", "x".repeat(1000));
        assert!(parse_object(&ok).is_ok());
    }

    #[test]
    fn iso_dates() {
        let cases = [
            ("1970-01-01T00:00:00Z", Some(0)),
            ("1970-01-01", Some(0)),
            ("2024-02-29T12:30:15.5Z", Some(1_709_209_815_500)),
            ("2024-05-01T12:00:00+02:00", Some(1_714_557_600_000)),
            ("2024-05-01T10:00:00.000Z", Some(1_714_557_600_000)),
            ("2024-05-01T25:00:00Z", None),
            ("yesterday", None),
        ];
        for (s, ms) in cases {
            assert_eq!(millis_from_iso(s), ms, "{s}");
        }
        assert_eq!(iso_from_millis(1_709_209_815_500).as_deref(), Some("2024-02-29T12:30:15.500Z"));
        assert_eq!(iso_from_millis(-1), None);
    }

    #[test]
    fn describe_names_types() {
        assert_eq!(describe(&json!({"$numberLong": "7"})), ("long", "Long('7')".to_string()));
        assert_eq!(describe(&json!({"$numberDouble": "2.0"})).1, "2");
        assert_eq!(describe(&json!([1, 2])).1, "Array(2)");
        assert!(is_document(&json!({"a": 1})));
        assert!(!is_document(&json!({"$oid": "65f0a1b2c3d4e5f601234567"})));
    }
}
