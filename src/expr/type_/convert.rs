//! `$convert: { input, to, onError, onNull, format }` and the shorthands `$toBool`, `$toDate`,
//! `$toDecimal`, `$toDouble`, `$toInt`, `$toLong`, `$toObjectId`, `$toString`, following the
//! manual's conversion table. Only conversion failures are caught by `onError`.

use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime};
use decmathlib_rs::d128::{d128, StatusFlags};

use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::named;
use crate::expr::{truthy, Ctx, Expr, Op, Val, VarScope};
use crate::value::types::{number_for_alias, type_name};
use crate::value::Number;

/// Target types by BSON type number.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    Double,
    String,
    BinData,
    ObjectId,
    Bool,
    Date,
    Int,
    Long,
    Decimal,
    /// A valid BSON type the table has no conversion to (`object`, `regex`, ...).
    Other(i32),
}

impl Target {
    fn from_number(n: i32) -> Option<Target> {
        Some(match n {
            1 => Target::Double,
            2 => Target::String,
            5 => Target::BinData,
            7 => Target::ObjectId,
            8 => Target::Bool,
            9 => Target::Date,
            16 => Target::Int,
            18 => Target::Long,
            19 => Target::Decimal,
            -1 | 0 | 3 | 4 | 6 | 10..=15 | 17 | 127 => Target::Other(n),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Target::Double => "double",
            Target::String => "string",
            Target::BinData => "binData",
            Target::ObjectId => "objectId",
            Target::Bool => "bool",
            Target::Date => "date",
            Target::Int => "int",
            Target::Long => "long",
            Target::Decimal => "decimal",
            Target::Other(n) => match n {
                -1 => "minKey",
                0 => "missing",
                3 => "object",
                4 => "array",
                6 => "undefined",
                10 => "null",
                11 => "regex",
                12 => "dbPointer",
                13 => "javascript",
                14 => "symbol",
                15 => "javascriptWithScope",
                17 => "timestamp",
                _ => "maxKey",
            },
        }
    }
}

fn failure(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::ConversionFailure, msg)
}

fn overflow(v: impl std::fmt::Display) -> Error {
    failure(format!("Conversion would overflow target type in $convert with no onError value: {v}"))
}

fn check_finite(f: f64) -> Result<()> {
    if f.is_nan() {
        return Err(failure("Attempt to convert NaN value to integer type in $convert with no onError value"));
    }
    if f.is_infinite() {
        return Err(failure("Attempt to convert infinity value to integer type in $convert with no onError value"));
    }
    Ok(())
}

fn double_to_long(f: f64) -> Result<i64> {
    check_finite(f)?;
    if !(crate::expr::arithmetic::LONG_RANGE.contains(&f)) {
        return Err(overflow(crate::value::display::stream_double(f)));
    }
    Ok(f.trunc() as i64)
}

fn decimal_to_long(d: d128) -> Result<i64> {
    if d.is_nan() {
        return Err(failure("Attempt to convert NaN value to integer type in $convert with no onError value"));
    }
    if d.is_infinite() {
        return Err(failure("Attempt to convert infinity value to integer type in $convert with no onError value"));
    }
    let mut flags = 0;
    let v = d.convert_to_i64_toward_zero(&mut flags);
    if flags & StatusFlags::BID_INVALID_EXCEPTION != 0 {
        return Err(overflow(match Number::Decimal(d).to_bson() {
            Bson::Decimal128(x) => x.to_string(),
            _ => String::new(),
        }));
    }
    Ok(v)
}

/// A double as `fmt::format("{}")` prints it: the shortest round-trip digits, exponent form
/// below 1e-4 and from 1e16.
pub(crate) fn format_double(f: f64) -> String {
    if f.is_infinite() {
        return if f < 0.0 { "-Infinity".into() } else { "Infinity".into() };
    }
    if f.is_nan() {
        return "NaN".into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let sci = format!("{f:e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        format!("{f}")
    } else {
        format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    }
}

/// `NumberParser` for base-10 integers: the whole string, optional sign, digits.
fn parse_int(s: &str) -> std::result::Result<i64, &'static str> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.as_bytes()[0].is_ascii_digit() {
        return Err("Did not consume any digits");
    }
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("Did not consume whole string.");
    }
    s.parse::<i64>().map_err(|_| "Out of range")
}

fn parse_double(s: &str) -> std::result::Result<f64, &'static str> {
    let lower = s.to_ascii_lowercase();
    let body = lower.strip_prefix(['-', '+']).unwrap_or(&lower);
    let neg = lower.starts_with('-');
    match body {
        "inf" | "infinity" => return Ok(if neg { f64::NEG_INFINITY } else { f64::INFINITY }),
        "nan" => return Ok(f64::NAN),
        _ => {}
    }
    if body.is_empty() || !(body.as_bytes()[0].is_ascii_digit() || body.as_bytes()[0] == b'.') {
        return Err("Did not consume any digits");
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_infinite() => Err("Out of range"),
        Ok(f) => Ok(f),
        Err(_) => Err("Did not consume whole string."),
    }
}

fn bin_to_string(b: &Binary, format: Option<&str>) -> Result<String> {
    use base64_engine::encode;
    let fmt = format.unwrap_or("auto");
    let is_uuid = b.subtype == BinarySubtype::Uuid && b.bytes.len() == 16;
    Ok(match fmt {
        "auto" if is_uuid => uuid_string(&b.bytes),
        "auto" | "base64" => encode(&b.bytes, false),
        "base64url" => encode(&b.bytes, true),
        "hex" => b.bytes.iter().map(|x| format!("{x:02X}")).collect(),
        "utf8" => String::from_utf8(b.bytes.clone()).map_err(|_| {
            failure("Failed to convert binData to string in $convert with no onError value: BinData does not represent a valid UTF-8 string")
        })?,
        "uuid" if is_uuid => uuid_string(&b.bytes),
        "uuid" => {
            return Err(failure(
                "Failed to convert binData to string in $convert with no onError value: BinData does not represent a valid UUID",
            ))
        }
        other => return Err(Error::code(4341117, format!("Invalid format '{other}'"))),
    })
}

fn uuid_string(b: &[u8]) -> String {
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// Base64 without a dependency (standard and URL alphabets, padded / unpadded).
mod base64_engine {
    const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    pub fn encode(bytes: &[u8], url: bool) -> String {
        let alpha = if url { URL } else { STD };
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(alpha[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else if !url {
                    out.push('=');
                }
            }
        }
        out
    }

    pub fn decode(s: &str, url: bool) -> Option<Vec<u8>> {
        let alpha = if url { URL } else { STD };
        let s = s.trim_end_matches('=');
        let mut out = Vec::new();
        let mut acc = 0u32;
        let mut bits = 0;
        for c in s.bytes() {
            let v = alpha.iter().position(|&a| a == c)? as u32;
            acc = acc << 6 | v;
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((acc >> bits) as u8);
                acc &= (1 << bits) - 1;
            }
        }
        Some(out)
    }
}

fn string_to_bin(s: &str, format: Option<&str>, subtype: u8) -> Result<Bson> {
    let fail = |why: &str| failure(format!("Failed to parse BinData '{s}' in $convert with no onError value: {why}"));
    let Some(fmt) = format else {
        return Err(Error::code(4341115, "Format must be speficied when converting from 'string' to 'binData'"));
    };
    let st = BinarySubtype::from(subtype);
    if (fmt == "uuid") != (st == BinarySubtype::Uuid) {
        return Err(fail("Only the 'uuid' format is allowed with the UUID subtype"));
    }
    let bytes = match fmt {
        "base64" => base64_engine::decode(s, false).ok_or_else(|| fail("invalid base64"))?,
        "base64url" => base64_engine::decode(s, true).ok_or_else(|| fail("invalid base64url"))?,
        "hex" => {
            if s.len() % 2 != 0 {
                return Err(fail("Hex blob with odd length"));
            }
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(s.get(i..i + 2).unwrap_or("zz"), 16))
                .collect::<std::result::Result<Vec<u8>, _>>()
                .map_err(|_| fail("Invalid hex character"))?
        }
        "utf8" => s.as_bytes().to_vec(),
        "uuid" => {
            let hex: String = s.chars().filter(|c| *c != '-').collect();
            if hex.len() != 32 || s.len() != 36 {
                return Err(fail(&format!("Invalid UUID string: {s}")));
            }
            (0..32)
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
                .collect::<std::result::Result<Vec<u8>, _>>()
                .map_err(|_| fail(&format!("Invalid UUID string: {s}")))?
        }
        other => return Err(Error::code(4341117, format!("Invalid format '{other}'"))),
    };
    Ok(Bson::Binary(Binary { subtype: st, bytes }))
}

/// Converts one non-null value (the conversion table).
fn convert(v: &Bson, to: Target, format: Option<&str>, subtype: u8) -> Result<Bson> {
    let unsupported =
        || failure(format!("Unsupported conversion from {} to {} in $convert with no onError value", type_name(v), to.name()));
    if to == Target::Bool {
        return Ok(Bson::Boolean(truthy(Some(v))));
    }
    let n = Number::from_bson(v);
    Ok(match (v, to) {
        (Bson::Double(f), Target::Double) => Bson::Double(*f),
        (Bson::Double(f), Target::String) => Bson::String(format_double(*f)),
        (Bson::Double(f), Target::Int) => {
            check_finite(*f)?;
            if *f < i32::MIN as f64 || *f > i32::MAX as f64 {
                return Err(overflow(crate::value::display::stream_double(*f)));
            }
            Bson::Int32(f.trunc() as i32)
        }
        (Bson::Double(f), Target::Long) => Bson::Int64(double_to_long(*f)?),
        (Bson::Double(f), Target::Date) => Bson::DateTime(DateTime::from_millis(double_to_long(*f)?)),
        (Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_), Target::Decimal) => {
            Number::Decimal(n.map(|x| x.coerce_to_decimal()).unwrap_or_default()).to_bson()
        }
        (Bson::Int32(i), Target::Double) => Bson::Double(*i as f64),
        (Bson::Int32(i), Target::String) => Bson::String(i.to_string()),
        (Bson::Int32(i), Target::Int) => Bson::Int32(*i),
        (Bson::Int32(i), Target::Long) => Bson::Int64(*i as i64),
        (Bson::Int64(i), Target::Double) => Bson::Double(*i as f64),
        (Bson::Int64(i), Target::String) => Bson::String(i.to_string()),
        (Bson::Int64(i), Target::Date) => Bson::DateTime(DateTime::from_millis(*i)),
        (Bson::Int64(i), Target::Int) => {
            Bson::Int32(i32::try_from(*i).map_err(|_| failure("Conversion would overflow target type in $convert with no onError value: "))?)
        }
        (Bson::Int64(i), Target::Long) => Bson::Int64(*i),
        (Bson::Decimal128(d), Target::Double) => {
            let f = Number::Decimal(crate::value::number::to_d128(d)).to_f64();
            if f.is_infinite() && !crate::value::number::to_d128(d).is_infinite() {
                return Err(overflow(d));
            }
            Bson::Double(f)
        }
        (Bson::Decimal128(d), Target::String) => Bson::String(d.to_string()),
        (Bson::Decimal128(d), Target::Date) => Bson::DateTime(DateTime::from_millis(decimal_to_long(crate::value::number::to_d128(d))?)),
        (Bson::Decimal128(d), Target::Int) => {
            let l = decimal_to_long(crate::value::number::to_d128(d))?;
            Bson::Int32(i32::try_from(l).map_err(|_| overflow(d))?)
        }
        (Bson::Decimal128(d), Target::Long) => Bson::Int64(decimal_to_long(crate::value::number::to_d128(d))?),
        (Bson::Decimal128(d), Target::Decimal) => Bson::Decimal128(*d),
        (Bson::String(s), Target::String) => Bson::String(s.clone()),
        (Bson::String(s), Target::Double | Target::Int | Target::Long | Target::Decimal) => {
            let fail = |why: &str| failure(format!("Failed to parse number '{s}' in $convert with no onError value: {why}"));
            if s.starts_with("0x") {
                return Err(failure(format!("Illegal hexadecimal input in $convert with no onError value: {s}")));
            }
            match to {
                Target::Double => Bson::Double(parse_double(s).map_err(fail)?),
                Target::Int => {
                    let i = parse_int(s).map_err(fail)?;
                    Bson::Int32(i32::try_from(i).map_err(|_| fail("Out of range"))?)
                }
                Target::Long => Bson::Int64(parse_int(s).map_err(fail)?),
                _ => {
                    let d: bson::Decimal128 = s.parse().map_err(|_| fail("Failed to parse string to decimal"))?;
                    Bson::Decimal128(d)
                }
            }
        }
        (Bson::String(s), Target::ObjectId) => Bson::ObjectId(ObjectId::parse_str(s).map_err(|_| {
            let why = if s.len() != 24 {
                format!("Invalid string length for parsing to OID, expected 24 but found {}", s.len())
            } else {
                format!("Invalid character found in hex string: {s}")
            };
            failure(format!("Failed to parse objectId '{s}' in $convert with no onError value: {why}"))
        })?),
        (Bson::String(s), Target::Date) => {
            let ms = crate::expr::date::parse_date_string(s, None, None).map_err(|e| {
                failure(format!("Error parsing date string '{s}'; {}", e.message))
            })?;
            Bson::DateTime(DateTime::from_millis(ms))
        }
        (Bson::String(s), Target::BinData) => string_to_bin(s, format, subtype)?,
        (Bson::Binary(b), Target::String) => Bson::String(bin_to_string(b, format)?),
        (Bson::Binary(b), Target::BinData) => {
            if u8::from(b.subtype) != subtype {
                return Err(failure("Conversions between different BinData subtypes are not supported"));
            }
            Bson::Binary(b.clone())
        }
        (Bson::ObjectId(o), Target::String) => Bson::String(o.to_hex()),
        (Bson::ObjectId(o), Target::ObjectId) => Bson::ObjectId(*o),
        (Bson::ObjectId(o), Target::Date) => Bson::DateTime(DateTime::from_millis(o.timestamp().timestamp_millis())),
        (Bson::Boolean(b), Target::Double) => Bson::Double(if *b { 1.0 } else { 0.0 }),
        (Bson::Boolean(b), Target::String) => Bson::String(b.to_string()),
        (Bson::Boolean(b), Target::Int) => Bson::Int32(*b as i32),
        (Bson::Boolean(b), Target::Long) => Bson::Int64(*b as i64),
        (Bson::Boolean(b), Target::Decimal) => Number::Decimal(d128::from(*b as i32)).to_bson(),
        (Bson::DateTime(d), Target::Double) => Bson::Double(d.timestamp_millis() as f64),
        (Bson::DateTime(d), Target::String) => Bson::String(crate::expr::date::format_iso(d.timestamp_millis())),
        (Bson::DateTime(d), Target::Date) => Bson::DateTime(*d),
        (Bson::DateTime(d), Target::Long) => Bson::Int64(d.timestamp_millis()),
        (Bson::DateTime(d), Target::Decimal) => Number::Decimal(d128::from(d.timestamp_millis())).to_bson(),
        (Bson::Timestamp(t), Target::Date) => Bson::DateTime(DateTime::from_millis(t.time as i64 * 1000)),
        _ => return Err(unsupported()),
    })
}

#[derive(Debug)]
struct Convert {
    input: Expr,
    to: Expr,
    format: Option<Expr>,
    on_error: Option<Expr>,
    on_null: Option<Expr>,
}

/// The target from `to`'s value: a type name, a type number, or `{ type, subtype }`.
fn target(v: &Val) -> Result<Option<(Target, u8)>> {
    if v.is_nullish() {
        return Ok(None);
    }
    let (t, sub) = match v.as_doc() {
        Some(d) => {
            let t = d.get("type").cloned().unwrap_or(Bson::Null);
            let sub = d.get("subtype").and_then(Number::from_bson).and_then(|n| n.to_exact_i64()).unwrap_or(0);
            (t, sub as u8)
        }
        None => (v.as_bson().cloned().unwrap_or(Bson::Null), 0),
    };
    let num = match &t {
        // The server's `computeTargetType` accepts "missing" (what `$type` returns for a missing
        // value), which no alias names; like type 0 it converts nothing, so `onError` applies.
        Bson::String(s) if s == "missing" => 0,
        Bson::String(s) => match number_for_alias(s) {
            Some(n) => n,
            None => return Err(Error::bad_value(format!("Unknown type name: {s}"))),
        },
        other => match Number::from_bson(other) {
            Some(n) => match n.to_exact_i64() {
                Some(i) => i as i32,
                None => return Err(Error::failed_to_parse("In $convert, numeric 'to' argument is not an integer")),
            },
            None => {
                return Err(Error::failed_to_parse(format!(
                    "$convert's 'to' argument must be a string or number, but is {}",
                    type_name(other)
                )))
            }
        },
    };
    match Target::from_number(num) {
        Some(t) => Ok(Some((t, sub))),
        None => Err(Error::failed_to_parse(format!("In $convert, numeric value for 'to' does not correspond to a BSON type: {num}"))),
    }
}

impl Op for Convert {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        let to = self.to.eval_val(ctx)?;
        let Some((to, subtype)) = target(&to)? else {
            return Ok(Some(Bson::Null));
        };
        if input.is_nullish() {
            return match &self.on_null {
                Some(e) => e.eval(ctx),
                None => Ok(Some(Bson::Null)),
            };
        }
        let format = match &self.format {
            Some(f) => match f.eval(ctx)? {
                Some(Bson::String(s)) => Some(s),
                _ => None,
            },
            None => None,
        };
        let Some(v) = input.bson() else { return Ok(Some(Bson::Null)) };
        match convert(&v, to, format.as_deref(), subtype) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind == ErrorKind::ConversionFailure => match &self.on_error {
                Some(oe) => oe.eval(ctx),
                None => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::failed_to_parse(format!(
            "$convert expects an object of named arguments but found: {}",
            type_name(arg)
        )));
    };
    let [input, to, format, on_error, on_null, _byte_order] =
        named(d, ["input", "to", "format", "onError", "onNull", "byteOrder"], scope, |k| {
            Error::failed_to_parse(format!("$convert found an unknown argument: {k}"))
        })?;
    let input = input.ok_or_else(|| Error::failed_to_parse("Missing 'input' parameter to $convert"))?;
    let to = to.ok_or_else(|| Error::failed_to_parse("Missing 'to' parameter to $convert"))?;
    Ok(Expr::op(Convert { input, to, format, on_error, on_null }))
}

/// `$toBool`, `$toInt`, ...: `$convert` to a fixed type, no `onError`/`onNull`.
pub fn parse_shorthand(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let to = match name {
        "$toBool" => "bool",
        "$toDate" => "date",
        "$toDecimal" => "decimal",
        "$toDouble" => "double",
        "$toInt" => "int",
        "$toLong" => "long",
        "$toObjectId" => "objectId",
        _ => "string",
    };
    let args = crate::expr::args::operands(arg, scope)?;
    crate::expr::args::check_exact(name, args.len(), 1)?;
    let input = args.into_iter().next().unwrap_or_else(|| Expr::constant(Bson::Null));
    Ok(Expr::op(Convert { input, to: Expr::constant(Bson::String(to.into())), format: None, on_error: None, on_null: None }))
}
