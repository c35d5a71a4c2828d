//! Values as the server prints them inside error messages. There are two printers in the server,
//! and messages use one or the other:
//!
//! - [`value`], [`element`], [`document`]: `BSONElement::toString` / `BSONObj::toString`, the
//!   printing of values straight from a command (a filter, an update, a stage's arguments):
//!   `{ a: 1, b: "x" }`, `[ 1, 2 ]`, doubles always with a fraction (`2.0`, `1e+20.0`), bare
//!   decimals (`1.50`), strings unescaped and cut to 150 bytes past 160, and the shell-like forms
//!   `ObjectId('…')`, `new Date(0)`, `Timestamp(1, 2)`, `UUID("…")`, `BinData(0, AB01)`. Nesting
//!   deeper than 100 levels prints `...`.
//! - [`stream_value`]: `operator<<(ostream&, const Value&)`, the printing of values computed by
//!   aggregation expressions: `{a: 1, b: "x"}`, `[1, 2]`, doubles as C++ streams print them
//!   (`%g`: `1`, `0.5`, `1e+20`), ObjectIds as bare hex, dates in ISO form
//!   (`2020-01-01T00:00:00.000Z`), `MISSING` for a missing value.
//!
//! Messages that quote one element write `{` + [`element`] + `}` (`{_id: 1}`, no inner spaces).

use std::fmt::Write;

use bson::{Bson, Document};

/// How deep `BSONElement::toString` goes before it prints `...` (`BSONObj::maxToStringRecursionDepth`).
const MAX_DEPTH: usize = 100;

/// A value without its field name, as `BSONElement::toString(false)`.
pub fn value(v: &Bson) -> String {
    let mut s = String::new();
    write_value(&mut s, v, 0);
    s
}

/// `name: value`, as `BSONElement::toString()`.
pub fn element(name: &str, v: &Bson) -> String {
    let mut s = String::with_capacity(name.len() + 8);
    s.push_str(name);
    s.push_str(": ");
    write_value(&mut s, v, 0);
    s
}

/// A document as `BSONObj::toString()`: `{ a: 1 }`, `{}` when empty.
pub fn document(d: &Document) -> String {
    let mut s = String::new();
    write_fields(&mut s, d.iter().map(|(k, v)| (Some(k.as_str()), v)), d.is_empty(), false, 0);
    s
}

/// `BSONObj::toString(s, isArray, ...)`: the fields of a document or array, each at `depth`.
fn write_fields<'a>(
    s: &mut String,
    fields: impl Iterator<Item = (Option<&'a str>, &'a Bson)>,
    empty: bool,
    is_array: bool,
    depth: usize,
) {
    if empty {
        s.push_str(if is_array { "[]" } else { "{}" });
        return;
    }
    s.push_str(if is_array { "[ " } else { "{ " });
    for (i, (name, v)) in fields.enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        if depth > MAX_DEPTH {
            s.push_str("...");
            continue;
        }
        if let Some(name) = name {
            s.push_str(name);
            s.push_str(": ");
        }
        write_value(s, v, depth);
    }
    s.push_str(if is_array { " ]" } else { " }" });
}

/// Longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Upper-case hex, as the server's `hexblob::encode`.
fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02X}");
    }
    out
}

/// The namespace and ObjectId of a DBPointer (the driver hides its fields; its extended JSON
/// carries them).
fn db_pointer_parts(v: &Bson) -> (String, String) {
    let json = v.clone().into_canonical_extjson();
    let ns = json.pointer("/$dbPointer/$ref").and_then(|x| x.as_str()).unwrap_or_default().to_string();
    let id = json.pointer("/$dbPointer/$id/$oid").and_then(|x| x.as_str()).unwrap_or_default().to_string();
    (ns, id)
}

fn write_value(s: &mut String, v: &Bson, depth: usize) {
    match v {
        Bson::Document(d) => write_fields(s, d.iter().map(|(k, v)| (Some(k.as_str()), v)), d.is_empty(), false, depth + 1),
        Bson::Array(a) => write_fields(s, a.iter().map(|v| (None, v)), a.is_empty(), true, depth + 1),
        Bson::Double(f) => s.push_str(&double(*f)),
        Bson::Int32(i) => {
            let _ = write!(s, "{i}");
        }
        Bson::Int64(i) => {
            let _ = write!(s, "{i}");
        }
        Bson::Decimal128(d) => {
            let _ = write!(s, "{d}");
        }
        Bson::String(t) | Bson::Symbol(t) => {
            s.push('"');
            if t.len() > 160 {
                s.push_str(prefix(t, 150));
                s.push_str("...\"");
            } else {
                s.push_str(t);
                s.push('"');
            }
        }
        Bson::JavaScriptCode(code) => {
            if code.len() > 80 {
                s.push_str(prefix(code, 70));
                s.push_str("...");
            } else {
                s.push_str(code);
            }
        }
        Bson::JavaScriptCodeWithScope(c) => {
            s.push_str("CodeWScope( ");
            s.push_str(&c.code);
            s.push_str(", ");
            s.push_str(&document(&c.scope));
            s.push(')');
        }
        Bson::Boolean(b) => s.push_str(if *b { "true" } else { "false" }),
        Bson::Null => s.push_str("null"),
        Bson::Undefined => s.push_str("undefined"),
        Bson::MinKey => s.push_str("MinKey"),
        Bson::MaxKey => s.push_str("MaxKey"),
        Bson::ObjectId(o) => {
            let _ = write!(s, "ObjectId('{}')", o.to_hex());
        }
        Bson::DateTime(d) => {
            let _ = write!(s, "new Date({})", d.timestamp_millis());
        }
        Bson::Timestamp(t) => {
            let _ = write!(s, "Timestamp({}, {})", t.time, t.increment);
        }
        Bson::RegularExpression(r) => {
            let _ = write!(s, "/{}/{}", r.pattern.as_str(), r.options.as_str());
        }
        Bson::Binary(b) if u8::from(b.subtype) == 4 && b.bytes.len() == 16 => {
            let h = hex(&b.bytes).to_ascii_lowercase();
            let _ = write!(s, "UUID(\"{}-{}-{}-{}-{}\")", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
        }
        Bson::Binary(b) => {
            let _ = write!(s, "BinData({}, ", u8::from(b.subtype));
            if b.bytes.len() > 80 {
                s.push_str(&hex(&b.bytes[..70]));
                s.push_str("...)");
            } else {
                s.push_str(&hex(&b.bytes));
                s.push(')');
            }
        }
        Bson::DbPointer(_) => {
            let (ns, id) = db_pointer_parts(v);
            let _ = write!(s, "DBRef('{ns}',{id})");
        }
    }
}

/// A double as the server's `StringBuilder::appendDoubleNice`: C's `%.16g`, then `.0` appended
/// when the text has no `.`, `E` or `N` (so `1e+20` prints `1e+20.0` and infinity `inf.0`).
pub fn double(f: f64) -> String {
    let mut s = format_g(f, 16);
    if !s.contains('.') && !s.contains('E') && !s.contains('N') {
        s.push_str(".0");
    }
    s
}

/// A double as a C++ stream prints it by default (`%g`, six significant digits: `1`, `0.5`,
/// `1e+20`, `inf`), as messages that stream `elt.number()` or a `Value` show it.
pub fn stream_double(f: f64) -> String {
    format_g(f, 6)
}

/// C's `printf("%.<precision>g", f)`.
pub fn format_g(f: f64, precision: usize) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = precision.max(1);
    // The exponent after rounding to `p` significant digits.
    let sci = format!("{:.*e}", p - 1, f);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{f:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A value as `operator<<(ostream&, const Value&)` prints it (`Value::toString`), `MISSING` for
/// a missing one.
pub fn stream_value(v: Option<&Bson>) -> String {
    let mut s = String::new();
    match v {
        None => s.push_str("MISSING"),
        Some(v) => write_stream(&mut s, v),
    }
    s
}

/// A date as the server's `formatDate` with `%Y-%m-%dT%H:%M:%S.%LZ` in UTC, or `illegal date`
/// when its year is outside 0-9999.
fn iso_date(ms: i64) -> String {
    let civil = jiff::Timestamp::from_millisecond(ms).map(|t| jiff::tz::Offset::UTC.to_datetime(t));
    match civil {
        Ok(c) if (0..=9999).contains(&c.year()) => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            c.year(),
            c.month(),
            c.day(),
            c.hour(),
            c.minute(),
            c.second(),
            c.millisecond()
        ),
        _ => "illegal date".into(),
    }
}

fn write_stream(s: &mut String, v: &Bson) {
    match v {
        Bson::Document(d) => {
            if d.is_empty() {
                s.push_str("{}");
                return;
            }
            for (i, (k, x)) in d.iter().enumerate() {
                s.push_str(if i == 0 { "{" } else { ", " });
                s.push_str(k);
                s.push_str(": ");
                write_stream(s, x);
            }
            s.push('}');
        }
        Bson::Array(a) => {
            s.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_stream(s, x);
            }
            s.push(']');
        }
        Bson::Double(f) => s.push_str(&stream_double(*f)),
        Bson::String(t) => {
            let _ = write!(s, "\"{t}\"");
        }
        Bson::Symbol(t) => {
            let _ = write!(s, "Symbol(\"{t}\")");
        }
        Bson::JavaScriptCode(t) => {
            let _ = write!(s, "Code(\"{t}\")");
        }
        Bson::JavaScriptCodeWithScope(c) => {
            let _ = write!(s, "CodeWScope(\"{}\", {})", c.code, document(&c.scope));
        }
        Bson::ObjectId(o) => s.push_str(&o.to_hex()),
        Bson::DateTime(d) => s.push_str(&iso_date(d.timestamp_millis())),
        Bson::Binary(b) => {
            let _ = write!(s, "BinData({}, \"{}\")", u8::from(b.subtype), hex(&b.bytes));
        }
        Bson::DbPointer(_) => {
            let (ns, id) = db_pointer_parts(v);
            let _ = write!(s, "DBRef(\"{ns}\", {id})");
        }
        // Every other type prints alike in both printers.
        other => write_value(s, other, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc, DateTime};

    #[test]
    fn doubles_print_like_the_server() {
        assert_eq!(double(2.0), "2.0");
        assert_eq!(double(2.5), "2.5");
        assert_eq!(double(0.1), "0.1");
        assert_eq!(double(-3.0), "-3.0");
        assert_eq!(double(1e15), "1000000000000000.0");
        assert_eq!(double(1e20), "1e+20.0");
        assert_eq!(double(1.5e-7), "1.5e-07");
        assert_eq!(double(123456789012345680.0), "1.234567890123457e+17");
        assert_eq!(double(f64::INFINITY), "inf.0");
        assert_eq!(double(f64::NAN), "nan.0");
        assert_eq!(double(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(stream_double(1.5), "1.5");
        assert_eq!(stream_double(100.0), "100");
        assert_eq!(stream_double(1234567.0), "1.23457e+06");
        assert_eq!(stream_double(-0.0), "-0");
    }

    #[test]
    fn elements_have_inner_spaces() {
        assert_eq!(document(&doc! {"a": 1, "b": [1, "x"], "c": {}, "d": []}), r#"{ a: 1, b: [ 1, "x" ], c: {}, d: [] }"#);
        assert_eq!(element("a", &bson!({"$gte": 3.0})), "a: { $gte: 3.0 }");
        assert_eq!(value(&Bson::Int64(5)), "5");
        assert_eq!(value(&Bson::Decimal128("1.50".parse().unwrap())), "1.50");
        assert_eq!(value(&bson!("a\"b")), "\"a\"b\"");
        assert_eq!(document(&doc! {}), "{}");
    }

    #[test]
    fn nesting_past_one_hundred_levels_prints_dots() {
        let mut v = bson!(1);
        for _ in 0..102 {
            v = bson!({ "a": v });
        }
        let shown = value(&v);
        assert!(shown.contains("{ ... }"), "{shown}");
        assert_eq!(shown.matches('{').count(), 101);
    }

    #[test]
    fn values_stream_without_inner_spaces() {
        assert_eq!(stream_value(None), "MISSING");
        assert_eq!(stream_value(Some(&bson!({"a": 1.0, "b": [1, "x"]}))), r#"{a: 1, b: [1, "x"]}"#);
        assert_eq!(stream_value(Some(&bson!({}))), "{}");
        assert_eq!(stream_value(Some(&Bson::DateTime(DateTime::from_millis(1)))), "1970-01-01T00:00:00.001Z");
        assert_eq!(stream_value(Some(&Bson::DateTime(DateTime::from_millis(i64::MAX)))), "illegal date");
        let oid = bson::oid::ObjectId::from_bytes([0xab; 12]);
        assert_eq!(stream_value(Some(&Bson::ObjectId(oid))), "abababababababababababab");
        assert_eq!(stream_value(Some(&Bson::Decimal128("2.50".parse().unwrap()))), "2.50");
    }
}
