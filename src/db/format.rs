//! The server's one-line rendering of BSON (`BSONObj::toString`), used inside error messages such
//! as `E11000 duplicate key error ... dup key: { _id: 1 }` and `... was found to have been altered
//! to _id: 2`.

use bson::{Bson, Document};

/// `{ a: 1, b: "x" }`, or `{}` when empty.
pub fn doc_to_string(d: &Document) -> String {
    let mut s = String::new();
    write_doc(&mut s, d);
    s
}

/// One element as `name: value`.
pub fn element_to_string(name: &str, v: &Bson) -> String {
    let mut s = format!("{name}: ");
    write_value(&mut s, v);
    s
}

/// One value as the server prints it.
pub fn value_to_string(v: &Bson) -> String {
    let mut s = String::new();
    write_value(&mut s, v);
    s
}

fn write_doc(s: &mut String, d: &Document) {
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

fn write_value(s: &mut String, v: &Bson) {
    match v {
        Bson::Document(d) => write_doc(s, d),
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
                write_value(s, e);
            }
            s.push_str(" ]");
        }
        Bson::DateTime(d) => s.push_str(&format!("new Date({})", d.timestamp_millis())),
        Bson::RegularExpression(r) => s.push_str(&format!("/{}/{}", r.pattern, r.options)),
        Bson::Double(f) => s.push_str(&double_nice(*f)),
        Bson::Int64(i) => s.push_str(&i.to_string()),
        Bson::Int32(i) => s.push_str(&i.to_string()),
        Bson::Decimal128(d) => s.push_str(&d.to_string()),
        Bson::Boolean(b) => s.push_str(if *b { "true" } else { "false" }),
        Bson::Undefined => s.push_str("undefined"),
        Bson::Null => s.push_str("null"),
        Bson::MaxKey => s.push_str("MaxKey"),
        Bson::MinKey => s.push_str("MinKey"),
        Bson::JavaScriptCodeWithScope(c) => {
            s.push_str(&format!("CodeWScope( {}, {})", c.code, doc_to_string(&c.scope)));
        }
        Bson::JavaScriptCode(c) => {
            if c.len() + 1 > 80 {
                s.push_str(truncate_bytes(c, 70));
                s.push_str("...");
            } else {
                s.push_str(c);
            }
        }
        Bson::String(x) | Bson::Symbol(x) => {
            s.push('"');
            if x.len() + 1 > 160 {
                s.push_str(truncate_bytes(x, 150));
                s.push_str("...\"");
            } else {
                s.push_str(x);
                s.push('"');
            }
        }
        Bson::ObjectId(o) => s.push_str(&format!("ObjectId('{}')", o.to_hex())),
        Bson::Binary(b) => {
            let subtype = u8::from(b.subtype);
            if subtype == 4 && b.bytes.len() == 16 {
                let h = hex_lower(&b.bytes);
                s.push_str(&format!("UUID(\"{}-{}-{}-{}-{}\")", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32]));
            } else if b.bytes.len() > 80 {
                s.push_str(&format!("BinData({subtype}, {}...)", hex_upper(&b.bytes[..70])));
            } else {
                s.push_str(&format!("BinData({subtype}, {})", hex_upper(&b.bytes)));
            }
        }
        Bson::Timestamp(t) => s.push_str(&format!("Timestamp({}, {})", t.time, t.increment)),
        Bson::DbPointer(_) => {
            // The driver type hides its fields; its Extended JSON carries them.
            let j = v.clone().into_canonical_extjson();
            let ns = j.pointer("/$dbPointer/$ref").and_then(|x| x.as_str()).unwrap_or("").to_string();
            let id = j.pointer("/$dbPointer/$id/$oid").and_then(|x| x.as_str()).unwrap_or("").to_string();
            s.push_str(&format!("DBRef('{ns}',{id})"));
        }
    }
}

fn truncate_bytes(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn hex_lower(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn hex_upper(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}

/// `StringBuilder::appendDoubleNice`: C's `%.16g`, then `.0` when the text has no `.`, `E` or `N`.
pub fn double_nice(x: f64) -> String {
    let mut s = format_g16(x);
    if !s.contains('.') && !s.contains('E') && !s.contains('N') {
        s.push_str(".0");
    }
    s
}

/// C's `printf("%.16g", x)`.
fn format_g16(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    const P: i32 = 16;
    // Round to P significant digits first; the exponent of the rounded value decides the style.
    let sci = format!("{:.*e}", (P - 1) as usize, x);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if exp < -4 || exp >= P {
        let m = strip_zeros(&mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (P - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, x))
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
    use bson::doc;

    #[test]
    fn doubles_print_like_the_server() {
        assert_eq!(double_nice(1.0), "1.0");
        assert_eq!(double_nice(1.5), "1.5");
        assert_eq!(double_nice(0.1), "0.1");
        assert_eq!(double_nice(1e20), "1e+20.0");
        assert_eq!(double_nice(1.25e-7), "1.25e-07");
        assert_eq!(double_nice(123456789012.0), "123456789012.0");
        assert_eq!(double_nice(f64::NAN), "nan.0");
    }

    #[test]
    fn documents_print_like_the_server() {
        assert_eq!(doc_to_string(&doc! {"_id": 1}), "{ _id: 1 }");
        assert_eq!(doc_to_string(&doc! {"a": "x", "b": [1, {"c": null}], "d": {}}), "{ a: \"x\", b: [ 1, { c: null } ], d: {} }");
        let oid = bson::oid::ObjectId::from_bytes([0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(doc_to_string(&doc! {"_id": oid}), "{ _id: ObjectId('650000000000000000000001') }");
    }
}
