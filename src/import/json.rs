//! `mongoexport` output: a stream of JSON documents (one a line, or any whitespace between them)
//! or one JSON array of documents (`--jsonArray`), in canonical or relaxed Extended JSON v2 or in
//! the v1 forms older tools wrote.
//!
//! Values are converted by [`to_bson`]: the `bson` crate's Extended JSON v2 parsing for every
//! type wrapper it knows (`$oid`, `$date`, `$numberLong`, `$binary: {base64, subType}`, ...), and
//! by hand only what it does not read: v1 `$binary`/`$type`, v1 `$regex`/`$options`, `$date` as a
//! fractional number of milliseconds or as an ISO-8601 string with a `+hhmm` offset.
//!
//! Each document is parsed on its own from its start offset, so the reader is linear in the
//! input, an error names the line it is on, and a document stream can resume at the next line
//! after a bad document when the caller skips errors.

use bson::{Bson, Document};
use serde_json::{Map, Value};

use super::Loc;

/// One parse failure: where, what, and whether reading can go on after it.
#[derive(Debug)]
pub(super) struct ParseError {
    pub loc: Loc,
    pub message: String,
    pub fatal: bool,
}

/// Reads documents from a JSON document stream or a JSON array.
pub(super) struct JsonReader<'a> {
    input: &'a [u8],
    st: JsonState,
}

/// Where a [`JsonReader`] is: all of it but its input (what `Reader::suspend` keeps between two
/// slices of an import).
#[derive(Debug, Clone)]
pub(super) struct JsonState {
    pos: usize,
    /// The line `pos` is on (1-based) and the offset from which lines were last counted.
    line: u64,
    counted: usize,
    array: bool,
    /// Set once the closing `]` of an array was read, or after a fatal error.
    done: bool,
    started: bool,
}

impl<'a> JsonReader<'a> {
    /// A reader of `input`; `array` for `--jsonArray` input (`None`: an array when the first
    /// character that is not white space is `[`).
    pub fn new(input: &'a [u8], array: Option<bool>) -> JsonReader<'a> {
        let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        let first = input.iter().position(|b| !b.is_ascii_whitespace()).map(|i| input[i]);
        let array = array.unwrap_or(first == Some(b'['));
        JsonReader { input, st: JsonState { pos: 0, line: 1, counted: 0, array, done: false, started: false } }
    }

    /// Where the reader is (its input aside).
    pub fn suspend(self) -> JsonState {
        self.st
    }

    /// The reader of `input` (the same bytes it was made on) where [`JsonReader::suspend`] left it.
    pub fn resume(input: &'a [u8], s: JsonState) -> JsonReader<'a> {
        let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        JsonReader { input, st: s }
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.st.pos
    }

    fn skip_ws(&mut self) {
        while self.st.pos < self.input.len() && self.input[self.st.pos].is_ascii_whitespace() {
            self.st.pos += 1;
        }
    }

    /// The location of byte `at` (lines counted forward from the last count: linear overall).
    fn loc(&mut self, at: usize) -> Loc {
        let at = at.min(self.input.len());
        if at >= self.st.counted {
            self.st.line += self.input[self.st.counted..at].iter().filter(|b| **b == b'\n').count() as u64;
            self.st.counted = at;
        }
        Loc { line: Some(self.st.line), offset: Some(at as u64) }
    }

    fn fail(&mut self, at: usize, message: String, fatal: bool) -> ParseError {
        if fatal {
            self.st.done = true;
        }
        ParseError { loc: self.loc(at), message, fatal }
    }

    /// The next document with its location, an error, or `None` at the end.
    pub fn next_doc(&mut self) -> Option<Result<(Document, Loc), ParseError>> {
        if self.st.done {
            return None;
        }
        self.skip_ws();
        if self.st.array {
            if !self.st.started {
                self.st.started = true;
                if self.input.get(self.st.pos) != Some(&b'[') {
                    let at = self.st.pos;
                    return Some(Err(self.fail(at, "expected '[' at the start of a JSON array".into(), true)));
                }
                self.st.pos += 1;
                self.skip_ws();
                if self.input.get(self.st.pos) == Some(&b']') {
                    self.st.pos += 1;
                    return self.end_of_array();
                }
            } else {
                match self.input.get(self.st.pos) {
                    Some(b',') => {
                        self.st.pos += 1;
                        self.skip_ws();
                    }
                    Some(b']') => {
                        self.st.pos += 1;
                        return self.end_of_array();
                    }
                    Some(_) => {
                        let at = self.st.pos;
                        return Some(Err(self.fail(at, "expected ',' or ']' after an array element".into(), true)));
                    }
                    None => {
                        let at = self.st.pos;
                        return Some(Err(self.fail(at, "unexpected end of input: the JSON array is not closed".into(), true)));
                    }
                }
            }
        }
        if self.st.pos >= self.input.len() {
            if self.st.array {
                let at = self.st.pos;
                return Some(Err(self.fail(at, "unexpected end of input: the JSON array is not closed".into(), true)));
            }
            self.st.done = true;
            return None;
        }
        let start = self.st.pos;
        let mut stream = serde_json::Deserializer::from_slice(&self.input[start..]).into_iter::<Value>();
        let parsed = stream.next();
        let end = start + stream.byte_offset();
        match parsed {
            None => {
                self.st.done = true;
                None
            }
            Some(Err(e)) => {
                let loc = self.loc(start);
                // serde_json counts lines from the start of this document.
                let line = loc.line.unwrap_or(1) + e.line().saturating_sub(1) as u64;
                let message = format!("invalid JSON: {}", strip_position(&e.to_string()));
                if self.st.array {
                    self.st.done = true;
                    return Some(Err(ParseError { loc: Loc { line: Some(line), offset: loc.offset }, message, fatal: true }));
                }
                // Resume at the line after the one the error is on.
                let err_line_start = nth_line_end(&self.input[start..], e.line().saturating_sub(1));
                self.st.pos = start + err_line_start;
                Some(Err(ParseError { loc: Loc { line: Some(line), offset: loc.offset }, message, fatal: false }))
            }
            Some(Ok(v)) => {
                self.st.pos = end;
                let loc = self.loc(start);
                match v {
                    Value::Object(map) => match document_from_map(map) {
                        Ok(d) => Some(Ok((d, loc))),
                        Err(message) => Some(Err(ParseError { loc, message, fatal: false })),
                    },
                    other => Some(Err(ParseError {
                        loc,
                        message: format!("expected a document, got {}", json_kind(&other)),
                        fatal: false,
                    })),
                }
            }
        }
    }

    fn end_of_array(&mut self) -> Option<Result<(Document, Loc), ParseError>> {
        self.st.done = true;
        self.skip_ws();
        if self.st.pos < self.input.len() {
            let at = self.st.pos;
            return Some(Err(self.fail(at, "unexpected data after the closing ']' of the JSON array".into(), true)));
        }
        None
    }
}

/// The offset just past the end of line `n` (0-based) of `bytes`, or its length.
fn nth_line_end(bytes: &[u8], n: usize) -> usize {
    let mut seen = 0;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' {
            if seen == n {
                return i + 1;
            }
            seen += 1;
        }
    }
    bytes.len()
}

/// serde_json's message without its " at line L column C" (the caller says where).
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Keys that make an object an Extended JSON type wrapper rather than a document (v2 and v1).
const WRAPPER_KEYS: &[&str] = &[
    "$oid",
    "$symbol",
    "$regularExpression",
    "$numberInt",
    "$numberLong",
    "$numberDouble",
    "$numberDecimal",
    "$binary",
    "$uuid",
    "$code",
    "$timestamp",
    "$date",
    "$minKey",
    "$maxKey",
    "$dbPointer",
    "$undefined",
];

/// A JSON object as a document, its values converted by [`to_bson`].
pub fn document_from_map(map: Map<String, Value>) -> Result<Document, String> {
    let mut doc = Document::new();
    for (k, v) in map {
        if k.contains('\0') {
            return Err(format!("invalid key {k:?}: a key cannot contain a null byte"));
        }
        let v = to_bson(v)?;
        doc.insert(k, v);
    }
    Ok(doc)
}

/// One Extended JSON value (v2 canonical or relaxed, or v1) as BSON.
pub fn to_bson(v: Value) -> Result<Bson, String> {
    match v {
        Value::Object(map) => object_to_bson(map),
        Value::Array(items) => items.into_iter().map(to_bson).collect::<Result<Vec<_>, _>>().map(Bson::Array),
        // Numbers, strings, booleans, null: the bson crate's rules (int32, else int64, else double).
        other => Bson::try_from(other).map_err(|e| e.to_string()),
    }
}

fn object_to_bson(map: Map<String, Value>) -> Result<Bson, String> {
    // v1 `{ $regex: "..", $options: ".." }` (a `$regex` whose value is not a string is a key).
    if let Some(Value::String(_)) = map.get("$regex") {
        return legacy_regex(map);
    }
    if !WRAPPER_KEYS.iter().any(|k| map.contains_key(*k)) {
        return document_from_map(map).map(Bson::Document);
    }
    if let Some(Value::String(_)) = map.get("$binary") {
        return legacy_binary(map);
    }
    if let Some(date) = map.get("$date") {
        if map.len() == 1 {
            if let Some(b) = legacy_date(date)? {
                return Ok(b);
            }
        }
    }
    if let Some(Value::String(d)) = map.get("$numberDecimal") {
        if !is_decimal_string(d) {
            return Err(format!("invalid $numberDecimal: {d:?} is not a decimal number"));
        }
    }
    let wrapper = first_wrapper(&map);
    Bson::try_from(map).map_err(|e| match wrapper {
        Some(k) => format!("invalid {k}: {e}"),
        None => e.to_string(),
    })
}

fn first_wrapper(map: &Map<String, Value>) -> Option<&'static str> {
    WRAPPER_KEYS.iter().copied().find(|k| map.contains_key(*k))
}

/// v1 `{ "$binary": "<base64>", "$type": "<hex>" }`.
fn legacy_binary(map: Map<String, Value>) -> Result<Bson, String> {
    if map.len() != 2 || !map.contains_key("$type") {
        return Err("invalid $binary: the v1 form is { \"$binary\": \"<base64>\", \"$type\": \"<hex>\" }".into());
    }
    let (Some(Value::String(b64)), Some(t)) = (map.get("$binary"), map.get("$type")) else {
        return Err("invalid $binary".into());
    };
    let subtype = match t {
        Value::String(s) if !s.is_empty() && s.len() <= 2 => u8::from_str_radix(s, 16).map_err(|_| format!("invalid $type {s:?} of $binary"))?,
        Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or_else(|| format!("invalid $type {n} of $binary"))?,
        other => return Err(format!("invalid $type of $binary: {other}")),
    };
    // Decoded through the v2 form, so both share the bson crate's base64 rules.
    let v2 = serde_json::json!({"$binary": {"base64": b64, "subType": format!("{subtype:02x}")}});
    Bson::try_from(v2).map_err(|e| format!("invalid $binary: {e}"))
}

/// v1 `{ "$regex": "..", "$options": ".." }`.
fn legacy_regex(map: Map<String, Value>) -> Result<Bson, String> {
    let pattern = match map.get("$regex") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err("invalid $regex".into()),
    };
    let options = match map.get("$options") {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => return Err(format!("invalid $options of $regex: {other}")),
    };
    if map.keys().any(|k| k != "$regex" && k != "$options") {
        return Err("invalid $regex: unexpected keys beside $regex and $options".into());
    }
    let v2 = serde_json::json!({"$regularExpression": {"pattern": pattern, "options": options}});
    Bson::try_from(v2).map_err(|e| format!("invalid $regex: {e}"))
}

/// `$date` forms the bson crate does not read: a fractional number of milliseconds (v1 shell
/// output), an ISO-8601 string with a `+hhmm`/`-hhmm` offset or without seconds (older
/// mongoexport). `None`: leave it to the bson crate.
fn legacy_date(v: &Value) -> Result<Option<Bson>, String> {
    match v {
        Value::Number(n) if n.as_i64().is_none() => {
            let f = n.as_f64().ok_or("invalid $date")?;
            if !f.is_finite() || f.abs() >= 9.3e18 {
                return Err(format!("invalid $date: {n} is out of range"));
            }
            Ok(Some(Bson::DateTime(bson::DateTime::from_millis(f.trunc() as i64))))
        }
        Value::String(s) => {
            if bson::DateTime::parse_rfc3339_str(s).is_ok() {
                return Ok(None);
            }
            Ok(Some(Bson::DateTime(parse_iso_date(s).ok_or_else(|| format!("invalid $date: {s:?} is not an ISO-8601 date"))?)))
        }
        _ => Ok(None),
    }
}

/// ISO-8601 dates as older tools wrote them: `2015-01-02T03:04:05.678+0100`, `...Z`,
/// `2015-01-02T03:04Z`.
fn parse_iso_date(s: &str) -> Option<bson::DateTime> {
    let formats = ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M%z", "%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%dT%H:%M%:z"];
    let s2 = match s.strip_suffix('Z') {
        Some(rest) => format!("{rest}+0000"),
        None => s.to_string(),
    };
    for f in formats {
        if let Ok(ts) = jiff::fmt::strtime::parse(f, &s2).and_then(|t| t.to_timestamp()) {
            return Some(bson::DateTime::from_millis(ts.as_millisecond()));
        }
    }
    None
}

/// The Extended JSON spec's grammar of a `$numberDecimal` string (the `bson` crate's parser
/// accepts more, e.g. an empty string or `E02`): an optional sign, digits with an optional
/// point (at least one digit), an optional exponent; or `Inf`, `Infinity`, `NaN` in any case.
pub fn is_decimal_string(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return true;
    }
    if lower == "nan" {
        return true;
    }
    let b = body.as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == b.len()
}

/// A value as relaxed Extended JSON: the `bson` crate's writer, but a date past year 9999 is
/// written in the `$numberLong` form (the crate writes it as an ISO string it cannot read).
pub fn to_relaxed(v: &Bson) -> Value {
    match v {
        Bson::Document(d) => Value::Object(d.iter().map(|(k, v)| (k.clone(), to_relaxed(v))).collect()),
        Bson::Array(a) => Value::Array(a.iter().map(to_relaxed).collect()),
        Bson::DateTime(d) if d.timestamp_millis() > MAX_ISO_DATE_MILLIS => {
            serde_json::json!({"$date": {"$numberLong": d.timestamp_millis().to_string()}})
        }
        other => other.clone().into_relaxed_extjson(),
    }
}

/// A value as canonical Extended JSON (the `bson` crate's writer).
pub fn to_canonical(v: &Bson) -> Value {
    match v {
        Bson::Document(d) => Value::Object(d.iter().map(|(k, v)| (k.clone(), to_canonical(v))).collect()),
        Bson::Array(a) => Value::Array(a.iter().map(to_canonical).collect()),
        other => other.clone().into_canonical_extjson(),
    }
}

/// 9999-12-31T23:59:59.999Z: the last instant relaxed Extended JSON writes as an ISO string.
const MAX_ISO_DATE_MILLIS: i64 = 253_402_300_799_999;
