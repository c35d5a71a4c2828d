//! CSV and TSV with a header line, typed as `mongoimport --type=csv --headerline` types them.
//!
//! - The dialect is mongoimport's own (its `csv` reader, a fork of Go's `encoding/csv` with
//!   `TrimLeadingSpace`): white space before a field and after an unquoted field is dropped,
//!   a quote in an unquoted field is an error, `\r\n` ends a line like `\n`, blank lines are
//!   skipped, a quoted field may span lines, rows may have fewer or more fields than the header
//!   (extra ones are named `field<N>`). TSV splits each line on tabs, with no quoting.
//! - Without types, each value is an int32 if it is one, else an int64, else a double, else the
//!   string as written (`true` stays a string; an empty field is an empty string).
//! - With `--columnsHaveTypes` (or when every header field carries a type, `name.int32()`),
//!   each column is parsed as its type: `auto()`, `string()`, `int32()`, `int64()`, `double()`,
//!   `decimal()`, `boolean()` (`true`/`false`/`1`/`0`), `binary(base64|base32|hex)`,
//!   `date(<Go layout>)`, `date_go(..)`, `date_ms(<.NET layout>)`, `date_oracle(<Oracle layout>)`.
//!   A value that does not parse stops the import (`--parseGrace=stop`, the default), or is
//!   auto-typed, dropped, or drops its row with the other graces.
//! - Dotted header names make subdocuments (`a.b,a.c` -> `{ a: { b, c } }`).

use bson::{spec::BinarySubtype, Binary, Bson, Document};

use super::json::ParseError;
use super::Loc;

/// What to do with a typed value that does not parse (`--parseGrace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseGrace {
    AutoCast,
    SkipField,
    SkipRow,
    #[default]
    Stop,
}

#[derive(Debug, Clone, PartialEq)]
enum ColType {
    Auto,
    String,
    Int32,
    Int64,
    Double,
    Decimal,
    Boolean,
    Binary(BinEnc),
    /// A Go time layout.
    Date(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum BinEnc {
    Base64,
    Base32,
    Hex,
}

#[derive(Debug, Clone)]
struct Column {
    name: String,
    parts: Vec<String>,
    ty: ColType,
    type_name: String,
}

/// Reads documents from CSV or TSV text.
pub(super) struct CsvReader<'a> {
    text: &'a str,
    st: CsvState,
}

/// Where a [`CsvReader`] is and its header's columns: all of it but its input (what
/// `Reader::suspend` keeps between two slices of an import).
pub(super) struct CsvState {
    pos: usize,
    line: u64,
    tsv: bool,
    columns: Vec<Column>,
    grace: ParseGrace,
    ignore_blanks: bool,
    done: bool,
    /// Records read so far (mongoimport's "document #N" counts from 0).
    records: u64,
    header_error: Option<ParseError>,
}

/// How a header is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvOptions {
    /// `--columnsHaveTypes`: `Some(true)` every header field must carry a type, `Some(false)`
    /// none is read as one, `None` typed when every header field carries a known type.
    pub columns_have_types: Option<bool>,
    pub parse_grace: ParseGrace,
    pub ignore_blanks: bool,
}

impl<'a> CsvReader<'a> {
    pub fn new(input: &'a [u8], tsv: bool, opts: CsvOptions) -> Result<CsvReader<'a>, ParseError> {
        let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
        let text = std::str::from_utf8(input).map_err(|e| {
            let at = e.valid_up_to();
            let line = 1 + input[..at].iter().filter(|b| **b == b'\n').count() as u64;
            ParseError { loc: Loc { line: Some(line), offset: Some(at as u64) }, message: "invalid UTF-8".into(), fatal: true }
        })?;
        let mut r = CsvReader {
            text,
            st: CsvState {
                pos: 0,
                line: 1,
                tsv,
                columns: Vec::new(),
                grace: opts.parse_grace,
                ignore_blanks: opts.ignore_blanks,
                done: false,
                records: 0,
                header_error: None,
            },
        };
        let header = match r.read_record() {
            Some(Ok((fields, _))) => fields,
            Some(Err(e)) => return Err(e),
            None => Vec::new(),
        };
        let loc = Loc { line: Some(1), offset: Some(0) };
        let typed = match opts.columns_have_types {
            Some(t) => t,
            None => !header.is_empty() && header.iter().all(|h| typed_header(h).is_some()),
        };
        let columns: Result<Vec<Column>, String> = header
            .iter()
            .map(|h| {
                if typed {
                    match typed_header(h) {
                        Some(Ok(c)) => Ok(c),
                        Some(Err(e)) => Err(e),
                        None => Err(format!("could not parse type from header `{h}`")),
                    }
                } else {
                    Ok(Column { name: h.clone(), parts: h.split('.').map(str::to_string).collect(), ty: ColType::Auto, type_name: "auto".into() })
                }
            })
            .collect();
        let columns = columns.map_err(|m| ParseError { loc: loc.clone(), message: m, fatal: true })?;
        validate_fields(&columns).map_err(|m| ParseError { loc, message: m, fatal: true })?;
        r.st.columns = columns;
        Ok(r)
    }

    pub fn position(&self) -> usize {
        self.st.pos
    }

    /// Where the reader is and its header's columns, without its input.
    pub fn suspend(self) -> CsvState {
        self.st
    }

    /// The reader of `text` (the input it was made on, checked as UTF-8 once) where
    /// [`CsvReader::suspend`] left it.
    pub fn resume(text: &'a str, s: CsvState) -> CsvReader<'a> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        CsvReader { text, st: s }
    }

    /// One record: its fields and the line it starts on.
    fn read_record(&mut self) -> Option<Result<(Vec<String>, Loc), ParseError>> {
        if self.st.tsv {
            return self.read_tsv_line();
        }
        loop {
            if self.st.pos >= self.text.len() {
                return None;
            }
            let start = self.st.pos;
            let loc = Loc { line: Some(self.st.line), offset: Some(start as u64) };
            match parse_csv_record(self.text, &mut self.st.pos, &mut self.st.line) {
                Ok(Some(fields)) => return Some(Ok((fields, loc))),
                Ok(None) => continue,
                Err((line, msg)) => {
                    self.st.done = true;
                    return Some(Err(ParseError { loc: Loc { line: Some(line), offset: Some(start as u64) }, message: msg, fatal: true }));
                }
            }
        }
    }

    fn read_tsv_line(&mut self) -> Option<Result<(Vec<String>, Loc), ParseError>> {
        if self.st.pos >= self.text.len() {
            return None;
        }
        let start = self.st.pos;
        let rest = &self.text[start..];
        let (line_text, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, self.text.len()),
        };
        let loc = Loc { line: Some(self.st.line), offset: Some(start as u64) };
        self.st.pos = next;
        self.st.line += 1;
        let line_text = line_text.trim_end_matches(['\r', '\n']);
        Some(Ok((line_text.split('\t').map(str::to_string).collect(), loc)))
    }

    pub fn next_doc(&mut self) -> Option<Result<(Document, Loc), ParseError>> {
        if let Some(e) = self.st.header_error.take() {
            return Some(Err(e));
        }
        loop {
            if self.st.done {
                return None;
            }
            let (fields, loc) = match self.read_record()? {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            let n = self.st.records;
            self.st.records += 1;
            match self.to_document(&fields, n) {
                Ok(Some(d)) => return Some(Ok((d, loc))),
                Ok(None) => continue,
                Err(message) => return Some(Err(ParseError { loc, message, fatal: false })),
            }
        }
    }

    /// mongoimport's `tokensToBSON`: `None` for a row dropped by `--parseGrace=skipRow`.
    fn to_document(&self, tokens: &[String], n: u64) -> Result<Option<Document>, String> {
        let mut doc = Document::new();
        for (i, token) in tokens.iter().enumerate() {
            if token.is_empty() && self.st.ignore_blanks {
                continue;
            }
            let Some(col) = self.st.columns.get(i) else {
                let key = format!("field{i}");
                if self.st.columns.iter().any(|c| c.name == key) {
                    return Err(format!("duplicate field name - on {key} - for token #{} (`{token}`) in document #{n}", i + 1));
                }
                doc.insert(key, auto_parse(token));
                continue;
            };
            let value = match parse_typed(&col.ty, token) {
                Some(v) => v,
                None => match self.st.grace {
                    ParseGrace::AutoCast => auto_parse(token),
                    ParseGrace::SkipField => continue,
                    ParseGrace::SkipRow => return Ok(None),
                    ParseGrace::Stop => {
                        return Err(format!(
                            "type coercion failure in document #{n} for column `{}`, could not parse token `{token}` to type {}",
                            col.name, col.type_name
                        ))
                    }
                },
            };
            set_nested(&mut doc, &col.parts, value).map_err(|e| format!("can't set value for key `{}`: {e}", col.name))?;
        }
        Ok(Some(doc))
    }
}

/// Parses one CSV record starting at `*pos` (mongoimport's dialect); `Ok(None)` for a blank
/// line. `*line` counts the lines consumed. Errors: the line and the message.
fn parse_csv_record(text: &str, pos: &mut usize, line: &mut u64) -> Result<Option<Vec<String>>, (u64, String)> {
    let b = text.as_bytes();
    let mut fields = Vec::new();
    let mut i = *pos;
    // A blank line ("\n" or "\r\n") is no record.
    if b[i..].starts_with(b"\n") || b[i..].starts_with(b"\r\n") {
        *pos = i + if b[i] == b'\n' { 1 } else { 2 };
        *line += 1;
        return Ok(None);
    }
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r');
    // Whether `i` is at an end of line (`\n` or `\r\n`); returns its length.
    let eol = |i: usize| -> usize {
        if b.get(i) == Some(&b'\n') {
            1
        } else if b.get(i) == Some(&b'\r') && b.get(i + 1) == Some(&b'\n') {
            2
        } else {
            0
        }
    };
    loop {
        // Leading white space (not the line end).
        while i < b.len() && eol(i) == 0 && is_space(b[i]) {
            i += 1;
        }
        if i < b.len() && b[i] == b'"' {
            let mut field = String::new();
            i += 1;
            let mut seg = i;
            loop {
                if i >= b.len() {
                    return Err((*line, "extraneous \" in field".into()));
                }
                if b[i] == b'"' {
                    field.push_str(&text[seg..i]);
                    i += 1;
                    if b.get(i) == Some(&b'"') {
                        field.push('"');
                        i += 1;
                        seg = i;
                        continue;
                    }
                    // White space after the closing quote, then a comma or the line end.
                    while i < b.len() && eol(i) == 0 && is_space(b[i]) {
                        i += 1;
                    }
                    break;
                }
                if b[i] == b'\n' {
                    *line += 1;
                }
                i += 1;
            }
            let field = field.replace("\r\n", "\n");
            fields.push(field);
            if i >= b.len() {
                *pos = i;
                *line += 1;
                return Ok(Some(fields));
            }
            let n = eol(i);
            if n > 0 {
                *pos = i + n;
                *line += 1;
                return Ok(Some(fields));
            }
            if b[i] == b',' {
                i += 1;
                continue;
            }
            return Err((*line, "extraneous \" in field".into()));
        }
        // Unquoted: up to a comma or the line end; trailing white space dropped.
        let start = i;
        while i < b.len() && b[i] != b',' && eol(i) == 0 {
            if b[i] == b'"' {
                return Err((*line, "bare \" in non-quoted-field".into()));
            }
            i += 1;
        }
        let mut end = i;
        while end > start && is_space(b[end - 1]) {
            end -= 1;
        }
        fields.push(text[start..end].to_string());
        if i >= b.len() {
            *pos = i;
            *line += 1;
            return Ok(Some(fields));
        }
        let n = eol(i);
        if n > 0 {
            *pos = i + n;
            *line += 1;
            return Ok(Some(fields));
        }
        i += 1; // the comma
    }
}

/// `name.type(arg)` -> the column; `None` when the header has no type, `Some(Err)` for an
/// unknown type or a bad argument.
fn typed_header(h: &str) -> Option<Result<Column, String>> {
    // `(?s)^(.*)\.(\w+)\((.*)\)$`: the last `.word(` whose `(` is followed by the rest and `)`.
    let body = h.strip_suffix(')')?;
    // Greedy `(.*)` before `\.`: the last `.` that is followed by word characters and `(`.
    let mut found = None;
    for (dot, _) in body.match_indices('.').collect::<Vec<_>>().into_iter().rev() {
        let after = &body[dot + 1..];
        let word_len = after.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
        if word_len > 0 && after.as_bytes().get(word_len) == Some(&b'(') {
            found = Some((dot, word_len));
            break;
        }
    }
    let (dot, word_len) = found?;
    let name = &body[..dot];
    let ty = &body[dot + 1..dot + 1 + word_len];
    let arg = unescape(&body[dot + 1 + word_len + 1..]);
    let parsed = match ty {
        "auto" | "boolean" | "decimal" | "double" | "int32" | "int64" | "string" if !arg.is_empty() => {
            return Some(Err(format!("type {ty} does not support arguments")))
        }
        "auto" => ColType::Auto,
        "boolean" => ColType::Boolean,
        "decimal" => ColType::Decimal,
        "double" => ColType::Double,
        "int32" => ColType::Int32,
        "int64" => ColType::Int64,
        "string" => ColType::String,
        "binary" => match arg.as_str() {
            "base64" => ColType::Binary(BinEnc::Base64),
            "base32" => ColType::Binary(BinEnc::Base32),
            "hex" => ColType::Binary(BinEnc::Hex),
            other => return Some(Err(format!("invalid binary encoding: `{other}`"))),
        },
        "date" | "date_go" => ColType::Date(arg),
        "date_ms" => ColType::Date(from_ms_layout(&arg)),
        "date_oracle" => ColType::Date(from_oracle_layout(&arg)),
        other => return Some(Err(format!("invalid type `{other}` in header `{h}`"))),
    };
    Some(Ok(Column { name: name.to_string(), parts: name.split('.').map(str::to_string).collect(), ty: parsed, type_name: ty.to_string() }))
}

/// The header argument's escapes: `\\` -> `\`, `\(` -> `(`, `\)` -> `)`, a lone `\` dropped.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('\\' | '(' | ')')) => out.push(n),
                Some(n) => out.push(n),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Replaces the longest listed token at each position (Go's `strings.Replacer` with these
/// pairs picks the first matching pair in list order at each position).
fn replace_tokens(layout: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut i = 0;
    'outer: while i < layout.len() {
        for (from, to) in pairs {
            if layout[i..].starts_with(from) {
                out.push_str(to);
                i += from.len();
                continue 'outer;
            }
        }
        let c = layout[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn from_ms_layout(layout: &str) -> String {
    replace_tokens(
        layout,
        &[
            ("dddd", "Monday"),
            ("ddd", "Mon"),
            ("dd", "02"),
            ("d", "2"),
            ("MMMM", "January"),
            ("MMM", "Jan"),
            ("MM", "01"),
            ("M", "1"),
            ("hh", "03"),
            ("h", "3"),
            ("HH", "15"),
            ("H", "15"),
            ("mm", "04"),
            ("m", "4"),
            ("ss", "05"),
            ("s", "5"),
            ("tt", "PM"),
            ("yyyy", "2006"),
            ("yyy", "2006"),
            ("yy", "06"),
            ("zzz", "-07:00"),
            ("zz", "-07"),
        ],
    )
}

fn from_oracle_layout(layout: &str) -> String {
    replace_tokens(
        &layout.to_uppercase(),
        &[
            ("AM", "PM"),
            ("DAY", "Monday"),
            ("DY", "Mon"),
            ("DD", "02"),
            ("HH12", "03"),
            ("HH24", "15"),
            ("HH", "03"),
            ("MI", "04"),
            ("MONTH", "January"),
            ("MON", "Jan"),
            ("MM", "01"),
            ("SS", "05"),
            ("TZD", "MST"),
            ("TZH:TZM", "-07:00"),
            ("TZH", "-07"),
            ("YYYY", "2006"),
            ("YY", "06"),
        ],
    )
}

/// A Go time layout (`2006-01-02T15:04:05Z07:00`) as a jiff `strptime` format, or `None` for
/// a layout element jiff cannot parse (zone abbreviations).
fn go_layout_to_strftime(layout: &str) -> Option<(String, bool)> {
    // Longest first where one token is a prefix of another.
    const TOKENS: &[(&str, &str)] = &[
        ("January", "%B"),
        ("Jan", "%b"),
        ("Monday", "%A"),
        ("Mon", "%a"),
        ("MST", "\u{0}"),
        ("2006", "%Y"),
        ("Z07:00:00", "%::z"),
        ("Z070000", "%z"),
        ("Z07:00", "%:z"),
        ("Z0700", "%z"),
        ("Z07", "%:::z"),
        ("-07:00:00", "%::z"),
        ("-070000", "%z"),
        ("-07:00", "%:z"),
        ("-0700", "%z"),
        ("-07", "%:::z"),
        ("002", "%j"),
        ("01", "%m"),
        ("02", "%d"),
        ("03", "%I"),
        ("04", "%M"),
        ("05", "%S"),
        ("06", "%y"),
        ("15", "%H"),
        ("_2", "%e"),
        ("1", "%-m"),
        ("2", "%-d"),
        ("3", "%-I"),
        ("4", "%-M"),
        ("5", "%-S"),
        ("PM", "%p"),
        ("pm", "%P"),
    ];
    let mut out = String::new();
    let mut zone = false;
    let mut i = 0;
    'outer: while i < layout.len() {
        let rest = &layout[i..];
        // Fractional seconds: `.000`, `.999`, `,000`.
        if rest.starts_with(['.', ',']) {
            let digits = rest[1..].bytes().take_while(|c| *c == b'0' || *c == b'9').count();
            if digits > 0 && (out.ends_with("%S") || out.ends_with("%-S")) {
                out.push_str("%.f");
                i += 1 + digits;
                continue;
            }
        }
        for (tok, spec) in TOKENS {
            if rest.starts_with(tok) {
                if *spec == "\u{0}" {
                    return None;
                }
                if spec.contains('z') {
                    zone = true;
                    // Go's `Z` forms accept a literal `Z` for UTC; handled by the caller.
                }
                out.push_str(spec);
                i += tok.len();
                continue 'outer;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c == '%' {
            out.push_str("%%");
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    // Go reads a fractional second after the seconds even when the layout has none.
    let out = out.replace("%S%.f", "%S\u{1}").replace("%S", "%S%.f").replace("%S\u{1}", "%S%.f");
    Some((out, zone))
}

/// Parses `input` with a Go time layout: the instant in milliseconds (UTC when the layout has
/// no zone).
fn parse_go_date(layout: &str, input: &str) -> Option<i64> {
    let (fmt, zone) = go_layout_to_strftime(layout)?;
    let uses_z = layout.contains("Z07") || layout.contains("Z0700");
    let input_owned;
    let input = if uses_z && zone {
        // `Z` in the input stands for `+00:00` where the layout has a `Z07..` element.
        match input.find('Z') {
            Some(i) => {
                input_owned = format!("{}+00:00{}", &input[..i], &input[i + 1..]);
                let fmt2 = fmt.replace("%z", "%:z").replace("%:::z", "%:z");
                return jiff::fmt::strtime::parse(&fmt2, &input_owned).ok().and_then(|t| t.to_timestamp().ok()).map(|t| t.as_millisecond());
            }
            None => input,
        }
    } else {
        input
    };
    let tm = jiff::fmt::strtime::parse(&fmt, input).ok()?;
    if zone {
        return tm.to_timestamp().ok().map(|t| t.as_millisecond());
    }
    // No zone: a civil time in UTC; a layout without a date part defaults to year 0, January 1.
    let date = match tm.to_date() {
        Ok(d) => d,
        Err(_) => jiff::civil::date(tm.year().unwrap_or(0), tm.month().unwrap_or(1), tm.day().unwrap_or(1)),
    };
    let time = tm.to_time().unwrap_or_default();
    let dt = date.to_datetime(time);
    jiff::tz::Offset::UTC.to_timestamp(dt).ok().map(|t| t.as_millisecond())
}

/// mongoimport's `autoParse`: int32, else int64, else double, else the string as written.
pub fn auto_parse(s: &str) -> Bson {
    if let Some(i) = parse_go_int(s) {
        return match i32::try_from(i) {
            Ok(i) => Bson::Int32(i),
            Err(_) => Bson::Int64(i),
        };
    }
    match parse_go_float(s) {
        Some(f) => Bson::Double(f),
        None => Bson::String(s.to_string()),
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and ASCII digits, in range.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// Go's `strconv.ParseFloat(s, 64)`: decimal forms, `inf`/`infinity`/`nan` in any case; a finite
/// number out of range fails (Go reports a range error).
fn parse_go_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" || lower == "nan" {
        return s.to_ascii_lowercase().parse::<f64>().ok().or(Some(if s.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY }));
    }
    // Rust accepts what Go accepts in decimal, except Go's underscores and hex floats, which
    // need a base prefix; and Rust's parser rejects a lone "." as Go does.
    if !body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')) {
        return None;
    }
    let f = s.parse::<f64>().ok()?;
    if f.is_infinite() {
        return None;
    }
    Some(f)
}

fn parse_typed(ty: &ColType, s: &str) -> Option<Bson> {
    Some(match ty {
        ColType::Auto => auto_parse(s),
        ColType::String => Bson::String(s.to_string()),
        ColType::Int32 => {
            let i = parse_go_int(s)?;
            Bson::Int32(i32::try_from(i).ok()?)
        }
        ColType::Int64 => Bson::Int64(parse_go_int(s)?),
        ColType::Double => Bson::Double(parse_go_float(s)?),
        ColType::Decimal if super::json::is_decimal_string(s) => Bson::Decimal128(s.parse::<bson::Decimal128>().ok()?),
        ColType::Decimal => return None,
        ColType::Boolean => {
            let l = s.to_lowercase();
            if l == "true" || s == "1" {
                Bson::Boolean(true)
            } else if l == "false" || s == "0" {
                Bson::Boolean(false)
            } else {
                return None;
            }
        }
        ColType::Binary(enc) => {
            let bytes = match enc {
                BinEnc::Hex => decode_hex(s)?,
                BinEnc::Base32 => decode_base32(s)?,
                BinEnc::Base64 => {
                    let v = serde_json::json!({"$binary": {"base64": s, "subType": "00"}});
                    match Bson::try_from(v).ok()? {
                        Bson::Binary(b) => b.bytes,
                        _ => return None,
                    }
                }
            };
            Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes })
        }
        ColType::Date(layout) => Bson::DateTime(bson::DateTime::from_millis(parse_go_date(layout, s)?)),
    })
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// RFC 4648 base32 with padding (Go's `base32.StdEncoding`).
fn decode_base32(s: &str) -> Option<Vec<u8>> {
    if s.len() % 8 != 0 {
        return None;
    }
    let trimmed = s.trim_end_matches('=');
    if !matches!(s.len() - trimmed.len(), 0 | 1 | 3 | 4 | 6) {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 5 / 8);
    let mut acc: u64 = 0;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        } as u64;
        acc = (acc << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// mongoimport's `setNestedDocumentValue` (without `--useArrayIndexFields`).
fn set_nested(doc: &mut Document, parts: &[String], value: Bson) -> Result<(), String> {
    let Some((head, tail)) = parts.split_first() else { return Ok(()) };
    if tail.is_empty() {
        doc.insert(head.clone(), value);
        return Ok(());
    }
    match doc.get_mut(head) {
        Some(Bson::Document(sub)) => set_nested(sub, tail, value),
        Some(other) => Err(format!("Expected document element to be an document, but element has already been set as another value: {other}")),
        None => {
            let mut sub = Document::new();
            set_nested(&mut sub, tail, value)?;
            doc.insert(head.clone(), sub);
            Ok(())
        }
    }
}

/// mongoimport's `validateFields`: no leading/trailing `.`, no leading `$`, no `..`, no two
/// identical fields, no field both a value and a document.
fn validate_fields(cols: &[Column]) -> Result<(), String> {
    for c in cols {
        let f = &c.name;
        if f.ends_with('.') {
            return Err(format!("field `{f}` cannot end with a '.'"));
        }
        if f.starts_with('.') {
            return Err(format!("field `{f}` cannot start with a '.'"));
        }
        if f.starts_with('$') {
            return Err(format!("field `{f}` cannot start with a '$'"));
        }
        if f.contains("..") {
            return Err(format!("field `{f}` cannot contain consecutive '.' characters"));
        }
    }
    // A tree of the paths: a leaf is a value, a branch a document.
    #[derive(Default)]
    struct Node {
        leaf: bool,
        children: std::collections::HashMap<String, Node>,
    }
    let mut root = Node::default();
    for c in cols {
        let mut node = &mut root;
        let mut prefix = String::new();
        for (i, part) in c.parts.iter().enumerate() {
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(part);
            let last = i + 1 == c.parts.len();
            let exists = node.children.contains_key(part);
            let child = node.children.entry(part.clone()).or_default();
            if last {
                if exists {
                    if child.leaf {
                        return Err(format!("fields cannot be identical: `{}` and `{}`", c.name, c.name));
                    }
                    return Err(format!("fields '{}' and '{prefix}' are incompatible", c.name));
                }
                child.leaf = true;
            } else if child.leaf {
                return Err(format!("fields '{}' and '{prefix}' are incompatible", c.name));
            }
            node = child;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_layouts() {
        assert_eq!(parse_go_date("2006-01-02", "2020-03-04"), Some(1_583_280_000_000));
        assert_eq!(parse_go_date("2006-01-02T15:04:05Z07:00", "2020-03-04T05:06:07Z"), Some(1_583_298_367_000));
        assert_eq!(parse_go_date("2006-01-02T15:04:05Z07:00", "2020-03-04T06:06:07+01:00"), Some(1_583_298_367_000));
        assert_eq!(parse_go_date("01/02/2006 15:04", "03/04/2020 05:06"), Some(1_583_298_360_000));
        assert_eq!(parse_go_date("2006-01-02 15:04:05", "2020-03-04 05:06:07.250"), Some(1_583_298_367_250));
        assert_eq!(parse_go_date(&from_ms_layout("yyyy-MM-dd"), "2020-03-04"), Some(1_583_280_000_000));
        assert_eq!(parse_go_date(&from_oracle_layout("dd-mon-yyyy"), "04-Mar-2020"), Some(1_583_280_000_000));
        assert_eq!(parse_go_date("2006-01-02", "nope"), None);
    }

    #[test]
    fn base32() {
        assert_eq!(decode_base32("MZXW6YTBOI======").as_deref(), Some(&b"foobar"[..]));
        assert_eq!(decode_base32("MZXW6==="), Some(b"foo".to_vec()));
        assert_eq!(decode_base32("MZXW6"), None);
    }
}
