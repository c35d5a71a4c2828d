//! Values as the server prints them inside error messages (`BSONElement::toString`):
//! `{ a: 1, b: "x" }`, `[ 1, 2 ]`, doubles with `%.16g` and a `.0` when integral.

use bson::{Bson, Document};

/// `name: value`, as the server prints an element.
pub fn element(name: &str, v: &Bson) -> String {
    format!("{name}: {}", value(v))
}

/// A value as the server prints it.
pub fn value(v: &Bson) -> String {
    let mut s = String::new();
    write_value(v, &mut s);
    s
}

/// A document as the server prints it.
pub fn document(d: &Document) -> String {
    let mut s = String::new();
    write_document(d, &mut s);
    s
}

fn write_document(d: &Document, s: &mut String) {
    if d.is_empty() {
        s.push_str("{}");
        return;
    }
    s.push_str("{ ");
    for (i, (k, v)) in d.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(k);
        s.push_str(": ");
        write_value(v, s);
    }
    s.push_str(" }");
}

fn write_value(v: &Bson, s: &mut String) {
    match v {
        Bson::Double(f) => s.push_str(&double_nice(*f)),
        Bson::Int32(i) => s.push_str(&i.to_string()),
        Bson::Int64(i) => s.push_str(&i.to_string()),
        Bson::Decimal128(d) => s.push_str(&format!("NumberDecimal(\"{d}\")")),
        Bson::String(x) | Bson::Symbol(x) => {
            s.push('"');
            for c in x.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\t' => s.push_str("\\t"),
                    '\r' => s.push_str("\\r"),
                    c if (c as u32) < 0x20 => s.push_str(&format!("\\x{:02x}", c as u32)),
                    c => s.push(c),
                }
            }
            s.push('"');
        }
        Bson::Document(d) => write_document(d, s),
        Bson::Array(a) => {
            if a.is_empty() {
                s.push_str("[]");
                return;
            }
            s.push_str("[ ");
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_value(e, s);
            }
            s.push_str(" ]");
        }
        Bson::Boolean(b) => s.push_str(if *b { "true" } else { "false" }),
        Bson::Null => s.push_str("null"),
        Bson::Undefined => s.push_str("undefined"),
        Bson::MinKey => s.push_str("MinKey"),
        Bson::MaxKey => s.push_str("MaxKey"),
        Bson::ObjectId(o) => s.push_str(&format!("ObjectId('{}')", o.to_hex())),
        Bson::DateTime(d) => s.push_str(&format!("new Date({})", d.timestamp_millis())),
        Bson::Timestamp(t) => s.push_str(&format!("Timestamp({}, {})", t.time, t.increment)),
        Bson::RegularExpression(r) => s.push_str(&format!("/{}/{}", r.pattern, r.options)),
        Bson::Binary(b) => {
            let hex: String = b.bytes.iter().map(|x| format!("{x:02X}")).collect();
            s.push_str(&format!("BinData({}, {hex})", u8::from(b.subtype)));
        }
        Bson::JavaScriptCode(c) => s.push_str(c),
        Bson::JavaScriptCodeWithScope(c) => s.push_str(&format!("CodeWScope( {}, ", c.code)),
        Bson::DbPointer(_) => s.push_str("DBRef(...)"),
    }
}

/// The server's `appendDoubleNice`: `%.16g`, plus `.0` when the text has no `.`, `E` or `N`
/// (so `nan.0`, `inf.0` and `1e+20.0` are what it prints).
pub fn double_nice(x: f64) -> String {
    let mut s = format_g(x, 16);
    if !s.contains('.') && !s.contains('E') && !s.contains('N') {
        s.push_str(".0");
    }
    s
}

/// C's `%.<precision>g`.
pub fn format_g(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = precision.max(1);
    // The exponent after rounding to `p` significant digits.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let m = trim_zeros(mantissa);
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// C++ `ostream << double` (6 significant digits), as `elt.number()` prints in some messages.
pub fn stream_double(x: f64) -> String {
    format_g(x, 6)
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn prints_like_the_server() {
        assert_eq!(value(&bson!({"$gte": 3.0})), "{ $gte: 3.0 }");
        assert_eq!(value(&bson!([1, "a", 2.5])), "[ 1, \"a\", 2.5 ]");
        assert_eq!(double_nice(f64::NAN), "nan.0");
        assert_eq!(double_nice(1e20), "1e+20.0");
        assert_eq!(double_nice(0.1), "0.1");
        assert_eq!(stream_double(1.5), "1.5");
        assert_eq!(stream_double(100.0), "100");
        assert_eq!(document(&doc! {}), "{}");
    }
}
