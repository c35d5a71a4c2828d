//! Index keys as order-preserving byte strings, in the spirit of the server's KeyString
//! (`src/mongo/db/storage/key_string/`): one byte-wise comparison (`memcmp`) of two encoded keys
//! gives the order [`value::compare()`] gives their values, component by component, so an index
//! is a B-tree of plain byte strings and a seek or a unique check never decodes a value.
//!
//! # Format
//!
//! A key is the concatenation of its components, one per key field. A component is one value's
//! encoding; a descending field's component is that encoding with every byte complemented
//! (`!b`). Every value's encoding is *prefix-free* (no encoding is a proper prefix of another),
//! so comparing two concatenations compares the components in turn, and complementing a
//! component reverses its order whatever follows it.
//!
//! A value is a class byte, then a body:
//!
//! | class | byte | body |
//! |---|---|---|
//! | MinKey | `0x0A` | none |
//! | undefined | `0x0F` | none |
//! | null | `0x14` | none |
//! | numbers (int32, int64, double, decimal128) | `0x1E` | see below |
//! | string, symbol | `0x28` | the bytes, escaped, then `0x00` |
//! | object | `0x32` | per field: class byte, name (escaped, `0x00`), body; then `0x00` |
//! | array | `0x3C` | per element: class byte, body; then `0x00` |
//! | binData | `0x46` | length (4 bytes, big-endian), subtype, the bytes |
//! | ObjectId | `0x50` | its 12 bytes |
//! | bool | `0x5A` | `0x00` or `0x01` |
//! | date | `0x64` | milliseconds as a big-endian i64 with the sign bit flipped |
//! | timestamp | `0x6E` | time, then increment (4 bytes each, big-endian) |
//! | regex | `0x78` | pattern, then options (each escaped, then `0x00`) |
//! | dbPointer | `0x82` | its canonical Extended JSON text (as a string) |
//! | JavaScript code | `0x8C` | the code (as a string) |
//! | code with scope | `0x96` | the code (as a string), then the scope (as an object's body) |
//! | MaxKey | `0xF0` | none |
//!
//! The class bytes follow the canonical type order (`value::canonical_type`); the end of an
//! object or array (`0x00`) is below every class byte, so a prefix sorts first. Inside an object
//! the class byte comes before the field name, as `compare_documents` compares type, then name,
//! then value. Escaping makes strings prefix-free while keeping their byte order: `0x00` becomes
//! `0x01 0x01`, `0x01` becomes `0x01 0x02`, and `0x00` ends the string.
//!
//! ## Numbers
//!
//! The engine compares numbers by value across types: int32 and int64 exactly, a double against
//! an integer exactly, and a decimal against any number after converting that number to a
//! decimal (a double rounded to 34 digits, `Decimal128(double)` as the server does); NaN is below
//! every other number and equal to itself, and `-0` equals `0`. That is the order of the exact
//! values, except that a decimal equal to a double's 34-digit rounding equals the double (no
//! decimal lies strictly between a double and its rounding, nor does a long). So equal numbers
//! (`1`, `1.0`, `Long(1)`, `Decimal128("1.00")`, `0.1` and `Decimal128("0.1000000000000000055511151231257827")`)
//! share one encoding, and:
//! - ints, longs, doubles and the decimals equal to one of them are binary values
//!   `±1.f × 2^e`: the body is a tag, `e` (one byte `e + 0x80` from -112 to 111, else two: see
//!   `binary_exponent`) and the fraction bits `f` in groups of 7, each byte `chunk << 1 | more`
//!   (the last has `more` = 0; at least one), so a double takes 3 to 12 bytes and an integer
//!   below 2^8 three;
//! - any other decimal lies strictly between two neighbouring binary values (doubles, or longs
//!   between 2^53 and 2^63 where longs are denser): it is the lower one's exponent and all 9
//!   groups of its 63 fraction bits, each saying `more`, then the decimal's own digits (its
//!   adjusted exponent, 2 bytes, and one nibble per digit + 1, ended by a 0 nibble) to order
//!   decimals that share the neighbour. A decimal below the smallest double or above the
//!   largest takes exponent -1075 or 1024 and its digits.
//!
//! The tag is `0x01` NaN, `0x02` -Infinity, `0x03` negative (everything after the tag
//! complemented), `0x04` zero, `0x05` positive, `0x06` +Infinity.
//!
//! ## Decoding
//!
//! [`decode`] gives back a value equal to the one encoded (`compare` gives `Equal`), not always
//! of the same type: a string for a symbol, and for a number the narrowest of int32, int64,
//! double or decimal that holds it. The index keeps one key for equal values anyway (as it did
//! when its keys were decoded values), and what reads its keys back (the storage size model)
//! needs only the value.
//!
//! Collation: indexes compare without one (an index's `collation` option is kept in its spec
//! only), so no collation key is encoded.

use std::cmp::Ordering;

use bson::{oid::ObjectId, Bson, Document};
use decmathlib_rs::d128::d128;

use crate::value::{self, Number};

const MIN_KEY: u8 = 0x0A;
const UNDEFINED: u8 = 0x0F;
const NULL: u8 = 0x14;
const NUMBER: u8 = 0x1E;
const STRING: u8 = 0x28;
const OBJECT: u8 = 0x32;
const ARRAY: u8 = 0x3C;
const BINARY: u8 = 0x46;
const OBJECT_ID: u8 = 0x50;
const BOOL: u8 = 0x5A;
const DATE: u8 = 0x64;
const TIMESTAMP: u8 = 0x6E;
const REGEX: u8 = 0x78;
const DB_POINTER: u8 = 0x82;
const CODE: u8 = 0x8C;
const CODE_WITH_SCOPE: u8 = 0x96;
const MAX_KEY: u8 = 0xF0;
/// The end of an object's fields or an array's elements.
const END: u8 = 0x00;

const NAN: u8 = 0x01;
const NEG_INF: u8 = 0x02;
const NEGATIVE: u8 = 0x03;
const ZERO: u8 = 0x04;
const POSITIVE: u8 = 0x05;
const POS_INF: u8 = 0x06;
const EXPONENT_BIAS: i32 = 0x8000;

/// The class byte of a value.
fn class(v: &Bson) -> u8 {
    match v {
        Bson::MinKey => MIN_KEY,
        Bson::Undefined => UNDEFINED,
        Bson::Null => NULL,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => NUMBER,
        Bson::String(_) | Bson::Symbol(_) => STRING,
        Bson::Document(_) => OBJECT,
        Bson::Array(_) => ARRAY,
        Bson::Binary(_) => BINARY,
        Bson::ObjectId(_) => OBJECT_ID,
        Bson::Boolean(_) => BOOL,
        Bson::DateTime(_) => DATE,
        Bson::Timestamp(_) => TIMESTAMP,
        Bson::RegularExpression(_) => REGEX,
        Bson::DbPointer(_) => DB_POINTER,
        Bson::JavaScriptCode(_) => CODE,
        Bson::JavaScriptCodeWithScope(_) => CODE_WITH_SCOPE,
        Bson::MaxKey => MAX_KEY,
    }
}

/// Appends one value's encoding (ascending).
pub fn append(v: &Bson, out: &mut Vec<u8>) {
    out.push(class(v));
    body(v, out);
}

/// Appends one value's encoding, complemented when `descending`.
pub fn append_dir(v: &Bson, descending: bool, out: &mut Vec<u8>) {
    let start = out.len();
    append(v, out);
    if descending {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
}

/// [`append_dir`] of a value read in place, for the kinds that need no decoding (a string is
/// not copied first); false, appending nothing, for the others (decode them).
pub fn append_raw_dir(v: bson::RawBsonRef<'_>, descending: bool, out: &mut Vec<u8>) -> bool {
    use bson::RawBsonRef as R;
    let start = out.len();
    match v {
        R::String(s) | R::Symbol(s) => {
            out.push(STRING);
            escaped(s.as_bytes(), out);
        }
        R::Double(f) => append(&Bson::Double(f), out),
        R::Int32(i) => append(&Bson::Int32(i), out),
        R::Int64(i) => append(&Bson::Int64(i), out),
        R::DateTime(d) => append(&Bson::DateTime(d), out),
        R::Boolean(b) => append(&Bson::Boolean(b), out),
        R::ObjectId(o) => append(&Bson::ObjectId(o), out),
        R::Null => append(&Bson::Null, out),
        _ => return false,
    }
    if descending {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    true
}

/// One value's encoding (ascending).
pub fn encode(v: &Bson) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    append(v, &mut out);
    out
}

/// A key of several values, each complemented where `descending` says so (missing entries are
/// ascending).
pub fn encode_key<'a>(values: impl IntoIterator<Item = &'a Bson>, descending: &[bool]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16);
    for (i, v) in values.into_iter().enumerate() {
        append_dir(v, descending.get(i).copied().unwrap_or(false), &mut out);
    }
    out
}

fn escaped(s: &[u8], out: &mut Vec<u8>) {
    for &b in s {
        match b {
            0 => out.extend_from_slice(&[1, 1]),
            1 => out.extend_from_slice(&[1, 2]),
            b => out.push(b),
        }
    }
    out.push(0);
}

fn body(v: &Bson, out: &mut Vec<u8>) {
    match v {
        Bson::MinKey | Bson::MaxKey | Bson::Null | Bson::Undefined => {}
        Bson::Int32(i) => integer(*i as i64, out),
        Bson::Int64(i) => integer(*i, out),
        Bson::Double(f) => double(*f, out),
        Bson::Decimal128(d) => decimal_bits(u128::from_le_bytes(d.bytes()), out),
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => escaped(s.as_bytes(), out),
        Bson::Document(d) => document_body(d, out),
        Bson::Array(a) => {
            for x in a {
                append(x, out);
            }
            out.push(END);
        }
        Bson::Binary(b) => {
            out.extend_from_slice(&(b.bytes.len() as u32).to_be_bytes());
            out.push(u8::from(b.subtype));
            out.extend_from_slice(&b.bytes);
        }
        Bson::ObjectId(o) => out.extend_from_slice(&o.bytes()),
        Bson::Boolean(b) => out.push(u8::from(*b)),
        Bson::DateTime(d) => out.extend_from_slice(&((d.timestamp_millis() as u64) ^ (1 << 63)).to_be_bytes()),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.time.to_be_bytes());
            out.extend_from_slice(&t.increment.to_be_bytes());
        }
        Bson::RegularExpression(r) => {
            escaped(r.pattern.as_str().as_bytes(), out);
            escaped(r.options.as_str().as_bytes(), out);
        }
        Bson::DbPointer(_) => escaped(v.clone().into_canonical_extjson().to_string().as_bytes(), out),
        Bson::JavaScriptCodeWithScope(c) => {
            escaped(c.code.as_bytes(), out);
            document_body(&c.scope, out);
        }
    }
}

fn document_body(d: &Document, out: &mut Vec<u8>) {
    for (k, x) in d {
        out.push(class(x));
        escaped(k.as_bytes(), out);
        body(x, out);
    }
    out.push(END);
}

/// The binary exponents below and above every finite double's (and long's): the place of a
/// decimal smaller than the smallest double, or larger than the largest.
const TINY: i32 = -1075;
const HUGE: i32 = 1024;
/// The fraction groups a decimal between two binary values repeats before its tie-breaker
/// (7 bits each: the 63 fraction bits of a 64-bit mantissa).
const GROUPS: usize = 9;

/// A binary exponent (from [`TINY`] to [`HUGE`]) in one byte from -112 to 111 (`e + 0x80`),
/// else two: `0x0_` and 12 bits of `e + 1075` below, `0xF_` and 12 bits of `e - 112` above.
fn binary_exponent(e: i32, out: &mut Vec<u8>) {
    if (-112..112).contains(&e) {
        out.push((e + 0x80) as u8);
    } else if e < 0 {
        let u = (e - TINY).clamp(0, 0xFFF) as u16;
        out.extend_from_slice(&[(u >> 8) as u8, u as u8]);
    } else {
        let u = (e - 112).clamp(0, 0xFFF) as u16;
        out.extend_from_slice(&[0xF0 | (u >> 8) as u8, u as u8]);
    }
}

/// A magnitude `m > 0` as its binary exponent and its fraction bits after the leading 1,
/// left-aligned.
fn magnitude(m: u64) -> (i32, u64) {
    let lz = m.leading_zeros();
    (63 - lz as i32, if lz >= 63 { 0 } else { m << (lz + 1) })
}

/// A non-zero finite binary value `±1.fraction × 2^exponent`: the sign tag, the exponent, the
/// fraction in groups of 7 bits (`chunk << 1 | more`, at least one), complemented after the
/// tag when negative. With a tie-breaker (a decimal that no binary value equals, just above
/// this one), all [`GROUPS`] groups say "more" and the decimal's digits follow.
fn binary(negative: bool, exponent: i32, mut fraction: u64, tiebreak: Option<&[u8]>, out: &mut Vec<u8>) {
    let start = out.len();
    out.push(if negative { NEGATIVE } else { POSITIVE });
    binary_exponent(exponent, out);
    match tiebreak {
        None => loop {
            let chunk = (fraction >> 57) as u8;
            fraction <<= 7;
            let more = fraction != 0;
            out.push(chunk << 1 | u8::from(more));
            if !more {
                break;
            }
        },
        Some(t) => {
            if exponent != TINY && exponent != HUGE {
                for _ in 0..GROUPS {
                    out.push(((fraction >> 57) as u8) << 1 | 1);
                    fraction <<= 7;
                }
            }
            out.extend_from_slice(t);
        }
    }
    if negative {
        for b in &mut out[start + 1..] {
            *b = !*b;
        }
    }
}

fn integer(i: i64, out: &mut Vec<u8>) {
    if i == 0 {
        out.push(ZERO);
        return;
    }
    let (e, f) = magnitude(i.unsigned_abs());
    binary(i < 0, e, f, None, out);
}

/// A finite non-zero double's magnitude as (exponent, fraction).
fn double_parts(f: f64) -> (i32, u64) {
    let bits = f.abs().to_bits();
    let exp = (bits >> 52) as i32;
    let mantissa = bits & ((1 << 52) - 1);
    if exp == 0 {
        let (p, fraction) = magnitude(mantissa);
        (p - 1074, fraction)
    } else {
        (exp - 1023, mantissa << 12)
    }
}

fn double(f: f64, out: &mut Vec<u8>) {
    if f.is_nan() {
        out.push(NAN);
    } else if f.is_infinite() {
        out.push(if f < 0.0 { NEG_INF } else { POS_INF });
    } else if f == 0.0 {
        out.push(ZERO);
    } else {
        let (e, fraction) = double_parts(f);
        binary(f < 0.0, e, fraction, None, out);
    }
}

/// A positive decimal `coefficient × 10^exponent` as its adjusted exponent (that of its first
/// digit) and its digits, one nibble each (digit + 1), ended by a 0 nibble: order-preserving
/// and prefix-free among positive decimals.
fn decimal_digits(coefficient: u128, exponent: i32, out: &mut Vec<u8>) {
    let (mut c, mut q) = (coefficient, exponent);
    while c % 10 == 0 {
        c /= 10;
        q += 1;
    }
    let mut digits = [0u8; 40];
    let mut n = 0;
    while c > 0 {
        digits[n] = (c % 10) as u8;
        c /= 10;
        n += 1;
    }
    let adjusted = q + n as i32 - 1 + EXPONENT_BIAS;
    out.extend_from_slice(&(adjusted.clamp(0, 0xFFFF) as u16).to_be_bytes());
    let mut i = n;
    loop {
        let hi = if i > 0 {
            i -= 1;
            digits[i] + 1
        } else {
            0
        };
        let lo = if hi != 0 && i > 0 {
            i -= 1;
            digits[i] + 1
        } else {
            0
        };
        out.push(hi << 4 | lo);
        if lo == 0 {
            break;
        }
    }
}

/// A decimal given as its IEEE 754 BID bits. One equal to an integer or to a double (rounded
/// to 34 digits, as the engine compares them) is encoded as that number; any other lies
/// strictly between two neighbouring binary values (doubles, or longs where those are
/// denser), and is encoded as the lower one followed by its own digits.
fn decimal_bits(bits: u128, out: &mut Vec<u8>) {
    let negative = bits >> 127 == 1;
    let combination = (bits >> 122) as u32 & 0x1F;
    if combination == 0x1F {
        out.push(NAN);
        return;
    }
    if combination == 0x1E {
        out.push(if negative { NEG_INF } else { POS_INF });
        return;
    }
    const MAX_COEFFICIENT: u128 = 9_999_999_999_999_999_999_999_999_999_999_999;
    let (exponent, coefficient) = if (bits >> 125) & 3 == 3 {
        // The large-coefficient form is never canonical in decimal128: its value is 0.
        (((bits >> 111) & 0x3FFF) as i32, 0)
    } else {
        (((bits >> 113) & 0x3FFF) as i32, bits & ((1u128 << 113) - 1))
    };
    if coefficient == 0 || coefficient > MAX_COEFFICIENT {
        out.push(ZERO);
        return;
    }
    let q = exponent - 6176;
    // An integer in the range of a long is encoded as the long.
    let (mut c, mut e) = (coefficient, q);
    while c % 10 == 0 {
        c /= 10;
        e += 1;
    }
    if (0..19).contains(&e) {
        if let Some(m) = 10u128.checked_pow(e as u32).and_then(|p| c.checked_mul(p)) {
            let v = if negative { -(m as i128) } else { m as i128 };
            if let Ok(i) = i64::try_from(v) {
                return integer(i, out);
            }
        }
    }
    let x = d128::from(bits);
    let n = Number::Decimal(x);
    let d = value::number::d128_to_f64(x);
    if d.is_finite() && d != 0.0 && Number::Double(d).cmp_num(n) == Ordering::Equal {
        return double(d, out);
    }
    let mut tiebreak = Vec::with_capacity(20);
    decimal_digits(coefficient, q, &mut tiebreak);
    let magnitude_x = Number::Decimal(x.abs());
    let ad = d.abs();
    let (e, fraction) = if ad == 0.0 {
        (TINY, 0)
    } else if ad.is_infinite() {
        (HUGE, 0)
    } else if (9_007_199_254_740_992.0..9_223_372_036_854_775_808.0).contains(&ad) {
        // Every long here is a binary value: the one below is the integer part.
        let mut flags = 0;
        magnitude(x.abs().convert_to_i64_toward_zero(&mut flags).unsigned_abs())
    } else {
        // The double just below |x| (doubles are the only binary values here).
        let below = if Number::Double(ad).cmp_num(magnitude_x) == Ordering::Less { ad } else { f64::from_bits(ad.to_bits() - 1) };
        if below == 0.0 {
            (TINY, 0)
        } else {
            double_parts(below)
        }
    };
    binary(negative, e, fraction, Some(&tiebreak), out);
}

/// A decimal's digits (0-9, most significant first) and adjusted exponent.
type Digits = (Vec<u8>, i32);

/// Reads an encoding, complemented when `mask` is `0xFF`.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    mask: u8,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b ^ self.mask)
    }

    fn take(&mut self, n: usize) -> Option<Vec<u8>> {
        let s = self.bytes.get(self.pos..self.pos + n)?;
        self.pos += n;
        Some(s.iter().map(|b| b ^ self.mask).collect())
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let mut a = [0u8; N];
        for b in &mut a {
            *b = self.byte()?;
        }
        Some(a)
    }

    fn string(&mut self) -> Option<Vec<u8>> {
        let mut s = Vec::new();
        loop {
            match self.byte()? {
                0 => return Some(s),
                1 => s.push(self.byte()?.checked_sub(1)?),
                b => s.push(b),
            }
        }
    }

    fn text(&mut self) -> Option<String> {
        String::from_utf8(self.string()?).ok()
    }

    /// Skips a string without keeping it.
    fn skip_string(&mut self) -> Option<()> {
        loop {
            match self.byte()? {
                0 => return Some(()),
                1 => {
                    self.byte()?;
                }
                _ => {}
            }
        }
    }

    fn value(&mut self) -> Option<Bson> {
        let c = self.byte()?;
        self.body(c)
    }

    fn body(&mut self, class: u8) -> Option<Bson> {
        Some(match class {
            MIN_KEY => Bson::MinKey,
            UNDEFINED => Bson::Undefined,
            NULL => Bson::Null,
            MAX_KEY => Bson::MaxKey,
            NUMBER => self.number()?,
            STRING => Bson::String(self.text()?),
            OBJECT => Bson::Document(self.document()?),
            ARRAY => {
                let mut a = Vec::new();
                loop {
                    match self.byte()? {
                        END => return Some(Bson::Array(a)),
                        c => a.push(self.body(c)?),
                    }
                }
            }
            BINARY => {
                let len = u32::from_be_bytes(self.array::<4>()?) as usize;
                let subtype = bson::spec::BinarySubtype::from(self.byte()?);
                Bson::Binary(bson::Binary { subtype, bytes: self.take(len)? })
            }
            OBJECT_ID => Bson::ObjectId(ObjectId::from_bytes(self.array::<12>()?)),
            BOOL => Bson::Boolean(self.byte()? != 0),
            DATE => Bson::DateTime(bson::DateTime::from_millis((u64::from_be_bytes(self.array::<8>()?) ^ (1 << 63)) as i64)),
            TIMESTAMP => {
                let time = u32::from_be_bytes(self.array::<4>()?);
                let increment = u32::from_be_bytes(self.array::<4>()?);
                Bson::Timestamp(bson::Timestamp { time, increment })
            }
            REGEX => {
                let pattern = self.text()?;
                let options = self.text()?;
                Bson::RegularExpression(bson::Regex { pattern: pattern.try_into().ok()?, options: options.try_into().ok()? })
            }
            DB_POINTER => {
                let json: serde_json::Value = serde_json::from_str(&self.text()?).ok()?;
                Bson::try_from(json).ok()?
            }
            CODE => Bson::JavaScriptCode(self.text()?),
            CODE_WITH_SCOPE => {
                let code = self.text()?;
                let scope = self.document()?;
                Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope { code, scope })
            }
            _ => return None,
        })
    }

    fn document(&mut self) -> Option<Document> {
        let mut d = Document::new();
        loop {
            match self.byte()? {
                END => return Some(d),
                c => {
                    let name = self.text()?;
                    let v = self.body(c)?;
                    d.insert(name, v);
                }
            }
        }
    }

    /// A positive decimal's adjusted exponent and digits (see [`decimal_digits`]), read with
    /// `flip` applied on top of the reader's mask.
    fn digits(&mut self, flip: u8) -> Option<Digits> {
        let e = u16::from_be_bytes([self.byte()? ^ flip, self.byte()? ^ flip]);
        let mut digits = Vec::new();
        loop {
            let b = self.byte()? ^ flip;
            let (hi, lo) = (b >> 4, b & 0x0F);
            if hi == 0 {
                break;
            }
            digits.push(hi.checked_sub(1)?);
            if lo == 0 {
                break;
            }
            digits.push(lo.checked_sub(1)?);
        }
        Some((digits, e as i32 - EXPONENT_BIAS))
    }

    /// A non-zero number's exponent, fraction (left-aligned) and, for a decimal no binary value
    /// equals, its tie-breaker digits (see [`binary`]).
    fn binary(&mut self, flip: u8) -> Option<(i32, u64, Option<Digits>)> {
        let b = self.byte()? ^ flip;
        let e = match b {
            0x00..=0x0F => ((b as i32) << 8 | (self.byte()? ^ flip) as i32) + TINY,
            0xF0..=0xFF => (((b & 0x0F) as i32) << 8 | (self.byte()? ^ flip) as i32) + 112,
            _ => b as i32 - 0x80,
        };
        if e == TINY || e == HUGE {
            return Some((e, 0, Some(self.digits(flip)?)));
        }
        let mut fraction = 0u64;
        for g in 0..GROUPS {
            let b = self.byte()? ^ flip;
            fraction |= ((b >> 1) as u64) << (57 - 7 * g);
            if b & 1 == 0 {
                return Some((e, fraction, None));
            }
        }
        Some((e, fraction, Some(self.digits(flip)?)))
    }

    fn number(&mut self) -> Option<Bson> {
        Some(match self.byte()? {
            NAN => Bson::Double(f64::NAN),
            NEG_INF => Bson::Double(f64::NEG_INFINITY),
            POS_INF => Bson::Double(f64::INFINITY),
            ZERO => Bson::Int32(0),
            t @ (NEGATIVE | POSITIVE) => {
                let negative = t == NEGATIVE;
                let (e, fraction, tiebreak) = self.binary(if negative { 0xFF } else { 0 })?;
                match tiebreak {
                    Some((digits, adjusted)) => decimal_from_digits(negative, &digits, adjusted)?,
                    None => binary_value(negative, e, fraction)?,
                }
            }
            _ => return None,
        })
    }

    /// Skips one value.
    fn skip(&mut self) -> Option<()> {
        let c = self.byte()?;
        self.skip_body(c)
    }

    fn skip_body(&mut self, class: u8) -> Option<()> {
        match class {
            MIN_KEY | UNDEFINED | NULL | MAX_KEY => {}
            NUMBER => {
                let t = self.byte()?;
                if t == NEGATIVE || t == POSITIVE {
                    self.binary(if t == NEGATIVE { 0xFF } else { 0 })?;
                }
            }
            STRING | DB_POINTER | CODE => self.skip_string()?,
            OBJECT => self.skip_fields()?,
            ARRAY => loop {
                match self.byte()? {
                    END => break,
                    c => self.skip_body(c)?,
                }
            },
            BINARY => {
                let len = u32::from_be_bytes(self.array::<4>()?) as usize;
                self.pos += 1 + len;
            }
            OBJECT_ID => self.pos += 12,
            BOOL => self.pos += 1,
            DATE | TIMESTAMP => self.pos += 8,
            REGEX => {
                self.skip_string()?;
                self.skip_string()?;
            }
            CODE_WITH_SCOPE => {
                self.skip_string()?;
                self.skip_fields()?;
            }
            _ => return None,
        }
        (self.pos <= self.bytes.len()).then_some(())
    }

    fn skip_fields(&mut self) -> Option<()> {
        loop {
            match self.byte()? {
                END => return Some(()),
                c => {
                    self.skip_string()?;
                    self.skip_body(c)?;
                }
            }
        }
    }
}

/// The narrowest of int32, int64 and double holding `±1.fraction × 2^exponent`.
fn binary_value(negative: bool, exponent: i32, fraction: u64) -> Option<Bson> {
    if (0..=63).contains(&exponent) && fraction << exponent == 0 {
        // An integer: the leading 1 and `exponent` fraction bits.
        let m: u128 = if exponent == 0 { 1 } else { (1u128 << exponent) | (fraction >> (64 - exponent)) as u128 };
        let v: i128 = if negative { -(m as i128) } else { m as i128 };
        if let Ok(i) = i32::try_from(v) {
            return Some(Bson::Int32(i));
        }
        if let Ok(i) = i64::try_from(v) {
            return Some(Bson::Int64(i));
        }
    }
    if fraction << 52 != 0 && exponent >= -1022 {
        return None;
    }
    let f = if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52 | fraction >> 12)
    } else {
        // Subnormal: the leading 1 and the fraction shifted into the 52-bit mantissa.
        let shift = -1022 - exponent;
        let m = (1u64 << 52 | fraction >> 12) >> shift;
        f64::from_bits(m)
    };
    Some(Bson::Double(if negative { -f } else { f }))
}

/// The decimal `±0.d1d2d3… × 10^(adjusted + 1)`.
fn decimal_from_digits(negative: bool, digits: &[u8], adjusted: i32) -> Option<Bson> {
    let sign = if negative { "-" } else { "" };
    let exponent = adjusted - (digits.len() as i32 - 1);
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    let decimal: bson::Decimal128 = format!("{sign}{text}E{exponent}").parse().ok()?;
    Some(Bson::Decimal128(decimal))
}

/// Decodes one value's encoding at the start of `bytes` (complemented when `descending`): the
/// value (equal to the one encoded, see the module documentation) and the bytes it took.
pub fn decode(bytes: &[u8], descending: bool) -> Option<(Bson, usize)> {
    let mut r = Reader { bytes, pos: 0, mask: if descending { 0xFF } else { 0 } };
    let v = r.value()?;
    Some((v, r.pos))
}

/// The length of the value encoded at the start of `bytes` (complemented when `descending`).
pub fn value_len(bytes: &[u8], descending: bool) -> Option<usize> {
    let mut r = Reader { bytes, pos: 0, mask: if descending { 0xFF } else { 0 } };
    r.skip()?;
    Some(r.pos)
}

/// Decodes a whole key of `descending.len()` components.
pub fn decode_key(bytes: &[u8], descending: &[bool]) -> Option<Vec<Bson>> {
    let mut out = Vec::with_capacity(descending.len());
    let mut pos = 0;
    for d in descending {
        let (v, n) = decode(bytes.get(pos..)?, *d)?;
        out.push(v);
        pos += n;
    }
    Some(out)
}

/// Splits a key of `descending.len()` components into their encodings.
pub fn components<'k>(bytes: &'k [u8], descending: &[bool]) -> Option<Vec<&'k [u8]>> {
    let mut out = Vec::with_capacity(descending.len());
    let mut pos = 0;
    for d in descending {
        let n = value_len(bytes.get(pos..)?, *d)?;
        out.push(&bytes[pos..pos + n]);
        pos += n;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::bson;

    fn dec(s: &str) -> Bson {
        Bson::Decimal128(s.parse().unwrap())
    }

    #[test]
    fn numbers_order_across_types() {
        let ordered = [
            bson!(f64::NAN),
            bson!(f64::NEG_INFINITY),
            dec("-1E+6000"),
            bson!(i64::MIN),
            bson!(-1e15),
            bson!(-2),
            bson!(-1.5),
            dec("-1.0000000000000000000000000000001"),
            bson!(-1),
            dec("-1E-400"),
            bson!(0),
            bson!(5e-324),
            bson!(0.1),
            dec("0.1000000000000000055511151231257828"),
            bson!(1),
            bson!(9_007_199_254_740_993i64),
            bson!(9_007_199_254_740_994.0),
            bson!(i64::MAX),
            bson!(1e300),
            bson!(f64::INFINITY),
        ];
        for w in ordered.windows(2) {
            assert_eq!(value::compare(&w[0], &w[1]), Ordering::Less, "{:?} < {:?}", w[0], w[1]);
            assert!(encode(&w[0]) < encode(&w[1]), "{:?} < {:?}", w[0], w[1]);
        }
        let equal = [bson!(1), bson!(1i64), bson!(1.0), dec("1.00"), dec("1")];
        for x in &equal {
            assert_eq!(encode(x), encode(&equal[0]));
        }
        assert_eq!(encode(&bson!(-0.0)), encode(&bson!(0)));
        assert_eq!(encode(&dec("-0E+3")), encode(&bson!(0)));
        assert_eq!(encode(&dec("NaN")), encode(&bson!(f64::NAN)));
        // A double equals the decimal it rounds to at 34 digits.
        assert_eq!(encode(&bson!(0.1)), encode(&dec("0.1000000000000000055511151231257827")));
    }

    #[test]
    fn strings_with_nul_and_descending_components() {
        let ordered = [bson!(""), bson!("a"), bson!("a\u{0}"), bson!("a\u{0}b"), bson!("a\u{1}"), bson!("a\u{2}"), bson!("b")];
        for w in ordered.windows(2) {
            assert!(encode(&w[0]) < encode(&w[1]), "{:?} < {:?}", w[0], w[1]);
            let (a, b) = (encode_key([&w[0], &bson!(1)], &[true, false]), encode_key([&w[1], &bson!(0)], &[true, false]));
            assert!(a > b, "descending {:?} > {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn round_trips() {
        for v in [
            bson!({"a": [1, "x", {"b": null}], "": 2.5}),
            dec("123456789012345678901234567890.1234"),
            bson!(i64::MIN),
            bson!(-3_000_000_000i64),
            bson!(0.1),
            Bson::Symbol("s".into()),
            Bson::Undefined,
        ] {
            for desc in [false, true] {
                let mut e = Vec::new();
                append_dir(&v, desc, &mut e);
                let (back, n) = decode(&e, desc).unwrap();
                assert_eq!(n, e.len());
                assert_eq!(value_len(&e, desc), Some(e.len()));
                assert_eq!(value::compare(&back, &v), Ordering::Equal, "{v:?} -> {back:?}");
            }
        }
        assert_eq!(decode(&encode(&bson!(2.5)), false).unwrap().0, bson!(2.5));
        assert_eq!(decode(&encode(&bson!(3_000_000_000i64)), false).unwrap().0, bson!(3_000_000_000i64));
        assert_eq!(decode(&encode(&dec("2.50")), false).unwrap().0, bson!(2.5));
    }
}
