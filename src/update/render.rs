//! Values as the server prints them inside error messages (`BSONElement::toString`): documents as
//! `{ a: 1, b: "x" }`, arrays as `[ 1, 2 ]`, doubles always with a fraction (`2.0`), and the
//! shell-like forms `ObjectId('…')`, `new Date(0)`, `Timestamp(1, 2)`, `UUID("…")`; decimals
//! print bare (`1.50`) and strings unescaped, cut to 150 bytes past 160.
//! Messages that quote one element write `{` + [`element`] + `}` (`{_id: 1}`, no inner spaces).

use std::fmt::Write;

use bson::{Bson, Document};

/// A value without its field name, as `BSONElement::toString(false)`.
pub fn value(v: &Bson) -> String {
    let mut s = String::new();
    write_value(&mut s, v);
    s
}

/// `name: value`, as `BSONElement::toString()`.
pub fn element(name: &str, v: &Bson) -> String {
    let mut s = String::with_capacity(name.len() + 8);
    s.push_str(name);
    s.push_str(": ");
    write_value(&mut s, v);
    s
}

/// A document as `BSONObj::toString()`: `{ a: 1 }`, `{}` when empty.
pub fn document(d: &Document) -> String {
    let mut s = String::new();
    write_document(&mut s, d);
    s
}

/// The `_id` of a document as update messages quote it (`_id: 1`), or `no id`.
pub fn id_of(d: &Document) -> String {
    match d.get("_id") {
        Some(v) => element("_id", v),
        None => "no id".to_string(),
    }
}

fn write_document(s: &mut String, d: &Document) {
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
        write_value(s, v);
    }
    s.push_str(" }");
}

fn write_array(s: &mut String, a: &[Bson]) {
    if a.is_empty() {
        s.push_str("[]");
        return;
    }
    s.push_str("[ ");
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        write_value(s, v);
    }
    s.push_str(" ]");
}

/// Longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02X}");
    }
    out
}

fn write_value(s: &mut String, v: &Bson) {
    match v {
        Bson::Document(d) => write_document(s, d),
        Bson::Array(a) => write_array(s, a),
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
            write_document(s, &c.scope);
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
            // The driver hides the pointer's fields; its extended JSON carries them.
            let json = v.clone().into_canonical_extjson();
            let ns = json.pointer("/$dbPointer/$ref").and_then(|x| x.as_str()).unwrap_or_default().to_string();
            let id = json.pointer("/$dbPointer/$id/$oid").and_then(|x| x.as_str()).unwrap_or_default().to_string();
            let _ = write!(s, "DBRef('{ns}',{id})");
        }
    }
}

/// A double as the server's `StringBuilder::appendDoubleNice`: C's `%.16g`, then `.0` appended
/// when the text has no `.`, `E` or `N` (so `1e+20` prints `1e+20.0` and infinity `inf.0`).
pub fn double(f: f64) -> String {
    let mut s = g16(f);
    if !s.contains('.') && !s.contains('E') && !s.contains('N') {
        s.push_str(".0");
    }
    s
}

/// C's `printf("%.16g", f)`.
fn g16(f: f64) -> String {
    const P: i32 = 16;
    if f.is_nan() {
        return if f.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // The exponent after rounding to P significant digits.
    let sci = format!("{:.*e}", (P - 1) as usize, f);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if !(-4..P).contains(&exp) {
        let m = strip_zeros(&mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (P - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, f))
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{bson, doc};

    #[test]
    fn doubles_print_like_the_server() {
        assert_eq!(double(2.0), "2.0");
        assert_eq!(double(2.5), "2.5");
        assert_eq!(double(0.1), "0.1");
        assert_eq!(double(-3.0), "-3.0");
        assert_eq!(double(1e20), "1e+20.0");
        assert_eq!(double(1.5e-7), "1.5e-07");
        assert_eq!(double(123456789012345680.0), "1.234567890123457e+17");
        assert_eq!(double(f64::INFINITY), "inf.0");
        assert_eq!(double(1.0 / 3.0), "0.3333333333333333");
    }

    #[test]
    fn documents_and_arrays_have_inner_spaces() {
        assert_eq!(document(&doc! {"a": 1, "b": [1, "x"], "c": {}}), r#"{ a: 1, b: [ 1, "x" ], c: {} }"#);
        assert_eq!(element("a", &bson!([])), "a: []");
        assert_eq!(value(&Bson::Int64(5)), "5");
    }
}
