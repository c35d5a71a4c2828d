//! Stored documents are BSON bytes (see `db::collection::Record`): decoding them, and reading a
//! dotted path in place without decoding the document.

use bson::{Bson, Document, RawBsonRef, RawDocument};

/// A document decoded from its bytes: the bson crate's reader walks the bytes (and checks them),
/// the values are built here directly. The crate's own conversion goes through an owned raw value
/// first, which copies every embedded document and array before decoding it again; decoding is
/// what every read of a stored document pays. Values of the rare kinds (binary, regex, code with
/// scope, DBPointer) go through the bson crate.
pub fn decode(raw: &RawDocument) -> Result<Document, bson::error::Error> {
    let mut out = Document::new();
    for item in raw {
        let (k, v) = item?;
        out.insert(k.as_str(), decode_value(v)?);
    }
    Ok(out)
}

/// The top-level fields of a document for which `keep` is true, decoded (the others are skipped
/// unread), in their order: for readers that need only some fields (an index's key fields, a
/// `$group`'s inputs).
pub fn decode_fields(raw: &RawDocument, keep: &dyn Fn(&str) -> bool) -> Result<Document, bson::error::Error> {
    // The elements walked by their sizes (see [`get`]), the kept ones decoded; bytes that do not
    // read so, or a kept value of the rarer kinds, take the crate's reader.
    let b = raw.as_bytes();
    let walked = (|| -> Option<Document> {
        let mut out = Document::new();
        for el in Elements::new(b) {
            let el = el?;
            let name = std::str::from_utf8(el.name).ok()?;
            if keep(name) {
                let bytes = &b[el.value..el.end];
                let value = match el.kind {
                    // An array's bytes are a document whose values are its elements, in order.
                    0x04 => {
                        let mut items = Vec::new();
                        for item in RawDocument::from_bytes(bytes).ok()? {
                            items.push(item.and_then(|(_, x)| decode_value(x)).ok()?);
                        }
                        Bson::Array(items)
                    }
                    kind => decode_value(value_ref(kind, bytes)?).ok()?,
                };
                out.insert(name, value);
            }
        }
        Some(out)
    })();
    if let Some(out) = walked {
        return Ok(out);
    }
    let mut out = Document::new();
    for item in raw {
        let (k, v) = item?;
        if keep(k.as_str()) {
            out.insert(k.as_str(), decode_value(v)?);
        }
    }
    Ok(out)
}

/// One value decoded (see [`decode`]).
pub fn decode_value(v: RawBsonRef<'_>) -> Result<Bson, bson::error::Error> {
    use RawBsonRef as R;
    Ok(match v {
        R::Double(f) => Bson::Double(f),
        R::String(s) => Bson::String(s.to_owned()),
        R::Document(d) => Bson::Document(decode(d)?),
        R::Array(a) => {
            let mut items = Vec::new();
            for x in a {
                items.push(decode_value(x?)?);
            }
            Bson::Array(items)
        }
        R::Boolean(b) => Bson::Boolean(b),
        R::Null => Bson::Null,
        R::Int32(i) => Bson::Int32(i),
        R::Int64(i) => Bson::Int64(i),
        R::DateTime(d) => Bson::DateTime(d),
        R::ObjectId(o) => Bson::ObjectId(o),
        R::Timestamp(t) => Bson::Timestamp(t),
        R::Decimal128(d) => Bson::Decimal128(d),
        R::MinKey => Bson::MinKey,
        R::MaxKey => Bson::MaxKey,
        R::Undefined => Bson::Undefined,
        R::JavaScriptCode(s) => Bson::JavaScriptCode(s.to_owned()),
        R::Symbol(s) => Bson::Symbol(s.to_owned()),
        other => Bson::try_from(other)?,
    })
}

/// What a dotted path reaches in a document read in place.
#[derive(Debug, Clone, Copy)]
pub enum RawLookup<'a> {
    /// The path is missing (or runs into a scalar).
    Missing,
    /// The value at the end of the path, reached through embedded documents only.
    Value(RawBsonRef<'a>),
    /// The path meets an array (the value depends on array traversal) or unreadable bytes:
    /// read the decoded document instead.
    Decode,
}

/// The server's `getFieldDottedOrArray` on bytes, for paths through embedded documents only: the
/// value `parts` reach, missing when they run into a scalar or a missing field, and
/// [`RawLookup::Decode`] as soon as an array is met (array traversal is left to the decoded
/// path, `path::walk_matcher_path`).
pub fn lookup<'a, S: AsRef<str>>(doc: &'a RawDocument, parts: &[S]) -> RawLookup<'a> {
    lookup_through(doc, parts, false)
}

/// An expression's field path (`"$a.b"`) on bytes: as [`lookup`], but an array at the end of
/// the path is the path's value (only an array along the path needs the expression's array
/// traversal, `RawLookup::Decode`).
pub fn lookup_expr_path<'a, S: AsRef<str>>(doc: &'a RawDocument, parts: &[S]) -> RawLookup<'a> {
    lookup_through(doc, parts, true)
}

fn lookup_through<'a, S: AsRef<str>>(doc: &'a RawDocument, parts: &[S], array_at_end: bool) -> RawLookup<'a> {
    let Some(first) = parts.first() else { return RawLookup::Missing };
    lookup_from(get(doc, first.as_ref()).ok(), &parts[1..], array_at_end)
}

/// [`lookup_expr_path`] for a path whose first part's value was already found (`first`, as
/// [`get`] answers it, `None` for bytes that do not read: by [`find_fields`], which finds
/// several in one walk); `rest` is the path's other parts.
pub fn lookup_expr_path_from<'a, S: AsRef<str>>(first: Option<Option<RawBsonRef<'a>>>, rest: &[S]) -> RawLookup<'a> {
    lookup_from(first, rest, true)
}

/// [`lookup`] for a path whose first part's value was already found (as for
/// [`lookup_expr_path_from`]).
pub fn lookup_path_from<'a, S: AsRef<str>>(first: Option<Option<RawBsonRef<'a>>>, rest: &[S]) -> RawLookup<'a> {
    lookup_from(first, rest, false)
}

/// The rest of [`lookup_through`] from the value of the path's first part.
fn lookup_from<'a, S: AsRef<str>>(first: Option<Option<RawBsonRef<'a>>>, rest: &[S], array_at_end: bool) -> RawLookup<'a> {
    let mut found = first;
    let mut i = 0;
    loop {
        let v = match found {
            Some(Some(v)) => v,
            Some(None) => return RawLookup::Missing,
            None => return RawLookup::Decode,
        };
        let last = i == rest.len();
        let cur = match v {
            RawBsonRef::Array(_) if !(last && array_at_end) => return RawLookup::Decode,
            RawBsonRef::Document(d) if !last => d,
            _ if !last => return RawLookup::Missing,
            _ => return RawLookup::Value(v),
        };
        found = get(cur, rest[i].as_ref()).ok();
        i += 1;
    }
}

/// The values of several top-level fields of a document in one walk over its elements (what
/// [`get`] answers for each name, the first field of that name; `None` for bytes that do not
/// read), written to `out` in the order of `names`: for a reader of several fields of many
/// stored documents (a `$group`'s key and arguments, an index's key fields).
pub fn find_fields<'a, S: AsRef<str>>(doc: &'a RawDocument, names: &[S], out: &mut Vec<Option<Option<RawBsonRef<'a>>>>) {
    out.clear();
    out.resize(names.len(), Some(None));
    find_fields_into(doc, names, out);
}

/// [`find_fields`] into a slice as long as `names` (a caller's array on the stack).
pub fn find_fields_into<'a, S: AsRef<str>>(doc: &'a RawDocument, names: &[S], out: &mut [Option<Option<RawBsonRef<'a>>>]) {
    if names.len() > 64 || out.len() != names.len() {
        for (o, name) in out.iter_mut().zip(names) {
            *o = get(doc, name.as_ref()).ok();
        }
        return;
    }
    out.fill(Some(None));
    let b = doc.as_bytes();
    // The names found so far, one bit each.
    let mut seen = 0u64;
    let all = if names.len() == 64 { u64::MAX } else { (1u64 << names.len()) - 1 };
    for el in Elements::new(b) {
        let Some(el) = el else {
            // Bytes that do not read so: `get` answers (and the crate says why).
            for (i, name) in names.iter().enumerate() {
                if seen & (1 << i) == 0 {
                    out[i] = get(doc, name.as_ref()).ok();
                }
            }
            return;
        };
        for (i, name) in names.iter().enumerate() {
            if seen & (1 << i) != 0 || !same_name(el.name, name.as_ref().as_bytes()) {
                continue;
            }
            seen |= 1 << i;
            out[i] = match b.get(el.value..el.end).and_then(|v| value_ref(el.kind, v)) {
                Some(v) => Some(Some(v)),
                None => doc.get(name.as_ref()).ok(),
            };
        }
        if seen == all {
            return;
        }
    }
}

/// Whether two field names are the same: names are short, so compared byte by byte rather than
/// through a `memcmp` call.
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// `RawDocument::get` (the value of the first field named `name`, `None` when there is none)
/// for the readers of many stored documents (paths read in place by a filter, a sort, a
/// `$group`): it walks the elements by their sizes without the crate's checks of each element
/// it passes (a stored document's bytes were checked when they were written), and builds the
/// value it finds directly; a value of the rarer kinds (array, binary, regex, code with scope,
/// DBPointer) goes through the crate's `get`. `Err` when the bytes do not read.
pub fn get<'a>(doc: &'a RawDocument, name: &str) -> Result<Option<RawBsonRef<'a>>, bson::error::Error> {
    let b = doc.as_bytes();
    match find(b, name) {
        Some(None) => Ok(None),
        Some(Some((kind, at, size))) => match b.get(at..at + size).and_then(|v| value_ref(kind, v)) {
            Some(v) => Ok(Some(v)),
            None => doc.get(name),
        },
        // Bytes that do not read: the crate says why.
        None => doc.get(name),
    }
}

/// Where the first field named `name` lies in a document's bytes: its type, and its value's
/// start and size (`Some(None)` when there is none, `None` when the bytes do not read). The walk
/// of [`Elements`] written out in one loop: this is what every filter, sort and group reading a
/// stored document does per field, so it is kept to the bytes' own checks.
#[inline]
fn find(b: &[u8], name: &str) -> Option<Option<(u8, usize, usize)>> {
    let name = name.as_bytes();
    // A name holding a NUL names no key (a key ends at its first NUL); the walk still checks
    // the bytes.
    let can_hit = !name.contains(&0);
    let last = b.len().checked_sub(1)?;
    let mut at = 4;
    while at < last {
        let kind = b[at];
        let key = at + 1;
        let rest = b.get(key..last)?;
        // A key equal to `name` is `name`'s bytes and then the NUL; else the key is skipped.
        let n = name.len();
        let (len, hit) = if can_hit && rest.len() > n && rest[n] == 0 && same_name(&rest[..n], name) {
            (n, true)
        } else {
            (rest.iter().position(|c| *c == 0)?, false)
        };
        let v = key + len + 1;
        let size = value_size(kind, b, v).filter(|s| v + s <= last)?;
        if hit {
            return Some(Some((kind, v, size)));
        }
        at = v + size;
    }
    Some(None)
}

/// One element of a document's bytes (see [`Elements`]): where it starts, its type, its name's
/// bytes, and where its value starts and ends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Element<'a> {
    pub start: usize,
    pub kind: u8,
    pub name: &'a [u8],
    pub value: usize,
    pub end: usize,
}

/// The elements of a document's bytes, walked by their sizes without the crate's checks of each
/// one (a stored document's bytes were checked when they were written): for [`get`],
/// [`decode_fields`] and the updates made on the bytes. A `None` item (and the walk's end) for
/// bytes that do not read so; the caller then gives way to the crate's reader.
pub(crate) struct Elements<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Elements<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Elements<'a> {
        Elements { b, at: 4 }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Option<Element<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let last = self.b.len().checked_sub(1)?;
        if self.at >= last {
            return None;
        }
        let start = self.at;
        let el = element(self.b, start, last).map(|(kind, name, value, size)| Element { start, kind, name, value, end: value + size });
        self.at = el.map_or(last, |e| e.end);
        Some(el)
    }
}

/// The element of a document's bytes `b` at `at` (before the document's last byte, `end`): its
/// type, its name's bytes, and its value's start and size; `None` when the bytes do not read so.
#[inline]
fn element(b: &[u8], at: usize, end: usize) -> Option<(u8, &[u8], usize, usize)> {
    let kind = *b.get(at)?;
    let key = at + 1;
    let key_end = key + b.get(key..end)?.iter().position(|c| *c == 0)?;
    let v = key_end + 1;
    let size = value_size(kind, b, v).filter(|n| v + n <= end)?;
    Some((kind, &b[key..key_end], v, size))
}

fn le_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The size of a value of BSON type `kind` starting at `at` of `b`.
#[inline(always)]
fn value_size(kind: u8, b: &[u8], at: usize) -> Option<usize> {
    let len = |min: i32| le_i32(b, at).filter(|n| *n >= min).map(|n| n as usize);
    Some(match kind {
        0x01 | 0x09 | 0x11 | 0x12 => 8,
        0x02 | 0x0D | 0x0E => 4 + len(1)?,
        0x03 | 0x04 => len(5)?,
        0x0F => len(14)?,
        0x05 => 5 + len(0)?,
        0x06 | 0x0A | 0x7F | 0xFF => 0,
        0x07 => 12,
        0x08 => 1,
        0x0B => {
            let rest = b.get(at..)?;
            let p = rest.iter().position(|c| *c == 0)?;
            let o = rest.get(p + 1..)?.iter().position(|c| *c == 0)?;
            p + 1 + o + 1
        }
        0x0C => 4 + len(1)? + 12,
        0x10 => 4,
        0x13 => 16,
        _ => return None,
    })
}

/// A value of the common kinds built from its bytes (`None` for the others, or bytes that do
/// not read as the kind says).
fn value_ref(kind: u8, v: &[u8]) -> Option<RawBsonRef<'_>> {
    let fixed = |n: usize| -> Option<[u8; 8]> {
        let mut out = [0u8; 8];
        out[..n].copy_from_slice(v.get(..n)?);
        Some(out)
    };
    Some(match kind {
        0x01 => RawBsonRef::Double(f64::from_le_bytes(fixed(8)?)),
        0x02 => {
            let s = v.get(4..v.len().checked_sub(1)?)?;
            if v.last() != Some(&0) {
                return None;
            }
            RawBsonRef::String(std::str::from_utf8(s).ok()?)
        }
        0x03 => RawBsonRef::Document(RawDocument::from_bytes(v).ok()?),
        0x06 => RawBsonRef::Undefined,
        0x07 => RawBsonRef::ObjectId(bson::oid::ObjectId::from_bytes(v.get(..12)?.try_into().ok()?)),
        0x08 => match v.first()? {
            0 => RawBsonRef::Boolean(false),
            1 => RawBsonRef::Boolean(true),
            _ => return None,
        },
        0x09 => RawBsonRef::DateTime(bson::DateTime::from_millis(i64::from_le_bytes(fixed(8)?))),
        0x0A => RawBsonRef::Null,
        0x10 => RawBsonRef::Int32(le_i32(v, 0)?),
        0x11 => {
            let t = fixed(8)?;
            let increment = u32::from_le_bytes(t[..4].try_into().ok()?);
            let time = u32::from_le_bytes(t[4..].try_into().ok()?);
            RawBsonRef::Timestamp(bson::Timestamp { time, increment })
        }
        0x12 => RawBsonRef::Int64(i64::from_le_bytes(fixed(8)?)),
        0x13 => RawBsonRef::Decimal128(bson::Decimal128::from_bytes(v.get(..16)?.try_into().ok()?)),
        0x7F => RawBsonRef::MaxKey,
        0xFF => RawBsonRef::MinKey,
        _ => return None,
    })
}

/// What [`check_stored_form`] found in a document's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredForm {
    /// Encoding the decoded document gives back exactly these bytes: no field name twice in one
    /// document, array elements named `0`, `1`, ... in order, no value of the rare kinds that
    /// the bson crate's conversion normalizes (binary, regex, code with scope, DBPointer).
    pub same: bool,
    /// The deepest embedded document or array (a top-level one is at depth 1; 0 when none).
    /// Past `max_depth` the walk stops: the rest of the bytes is then unchecked.
    pub depth: usize,
    /// The same, counting only non-empty ones.
    pub filled_depth: usize,
}

impl StoredForm {
    /// Before a walk: nothing seen that changes the bytes, no nesting.
    const START: StoredForm = StoredForm { same: true, depth: 0, filled_depth: 0 };

    /// Notes an embedded document or array of `len` bytes at `depth`: false past `max` (its
    /// bytes are then not walked, and not kept as they are).
    fn enter(&mut self, len: usize, depth: usize, max: usize) -> bool {
        self.depth = self.depth.max(depth);
        if len > 5 {
            self.filled_depth = self.filled_depth.max(depth);
        }
        if depth > max {
            self.same = false;
            return false;
        }
        true
    }
}

/// Checks a document's bytes as [`decode`] reads them, without building anything: `Err` when
/// decoding would fail (`Ok` past `max_depth` says nothing of the bytes below it), else what
/// [`StoredForm`] tells. A write that stores documents can keep bytes whose form is `same` as
/// they are, and must decode and encode the others. One walk, for the insert path: it also
/// gives the nesting depths that the command and storage limits are checked against.
///
/// The walk is by the elements' sizes ([`Elements`]), with every check the crate's reader makes
/// (names and strings UTF-8 and terminated, embedded documents terminated, booleans 0 or 1);
/// bytes it does not take (values of the rare kinds, or bytes that do not read) are walked again
/// by the crate's reader, which says why they fail.
pub fn check_stored_form(raw: &RawDocument, max_depth: usize) -> Result<StoredForm, bson::error::Error> {
    let mut form = StoredForm::START;
    if walk_doc(raw.as_bytes(), 0, max_depth, &mut form).is_some() {
        return Ok(form);
    }
    check_stored_form_by_crate(raw, max_depth)
}

/// [`check_stored_form`] through the crate's reader.
fn check_stored_form_by_crate(raw: &RawDocument, max_depth: usize) -> Result<StoredForm, bson::error::Error> {
    let mut form = StoredForm::START;
    check_doc(raw, 0, max_depth, &mut form)?;
    Ok(form)
}

/// [`check_doc`] on bytes already known to hold a document's length and to end in 0 (`None`:
/// not taken, see [`check_stored_form`]).
fn walk_doc(b: &[u8], level: usize, max: usize, form: &mut StoredForm) -> Option<()> {
    let mut names = Names::default();
    for el in Elements::new(b) {
        let el = el?;
        names.push(utf8(el.name)?);
        walk_value(el.kind, b.get(el.value..el.end)?, level + 1, max, form)?;
    }
    if names.has_duplicate() {
        form.same = false;
    }
    Some(())
}

/// [`check_value`] of a value's bytes `v` of type `kind`, as [`Elements`] sized them.
fn walk_value(kind: u8, v: &[u8], depth: usize, max: usize, form: &mut StoredForm) -> Option<()> {
    match kind {
        0x03 | 0x04 => {
            // The size is the declared length (at least 5): the crate also wants the last byte 0.
            if v.last() != Some(&0) {
                return None;
            }
            if !form.enter(v.len(), depth, max) {
                return Some(());
            }
            if kind == 0x03 {
                return walk_doc(v, depth, max, form);
            }
            for (i, el) in Elements::new(v).enumerate() {
                let el = el?;
                if !is_index(utf8(el.name)?, i) {
                    form.same = false;
                }
                walk_value(el.kind, v.get(el.value..el.end)?, depth + 1, max, form)?;
            }
            Some(())
        }
        // Strings, code and symbols: the length counts the terminating 0.
        0x02 | 0x0D | 0x0E => {
            let (last, s) = v.get(4..)?.split_last()?;
            (*last == 0).then_some(())?;
            utf8(s).map(|_| ())
        }
        0x08 => (v.first()? <= &1).then_some(()),
        0x01 | 0x06 | 0x07 | 0x09 | 0x0A | 0x10 | 0x11 | 0x12 | 0x13 | 0x7F | 0xFF => Some(()),
        _ => None,
    }
}

/// The elements of an array's bytes read as documents, in order: `None` for one that is not a
/// document or does not read (as the crate's reader checks them; the documents' own elements are
/// left to their reader). For a command's list of many documents, walked without the crate's
/// per-element checks of each value's bytes.
pub fn array_documents(a: &bson::RawArray) -> impl Iterator<Item = Option<&RawDocument>> {
    let b = a.as_bytes();
    Elements::new(b).map(move |el| {
        let el = el?;
        utf8(el.name)?;
        (el.kind == 0x03).then_some(())?;
        RawDocument::from_bytes(b.get(el.value..el.end)?).ok()
    })
}

/// Bytes that are UTF-8 (ASCII, the usual case, checked without a call).
fn utf8(s: &[u8]) -> Option<&[u8]> {
    if s.iter().all(|c| *c < 0x80) || std::str::from_utf8(s).is_ok() {
        Some(s)
    } else {
        None
    }
}

fn check_doc(raw: &RawDocument, level: usize, max: usize, form: &mut StoredForm) -> Result<(), bson::error::Error> {
    let mut names = Names::default();
    for item in raw {
        let (k, v) = item?;
        names.push(k.as_str().as_bytes());
        check_value(v, level + 1, max, form)?;
    }
    if names.has_duplicate() {
        form.same = false;
    }
    Ok(())
}

fn check_value(v: RawBsonRef<'_>, depth: usize, max: usize, form: &mut StoredForm) -> Result<(), bson::error::Error> {
    use RawBsonRef as R;
    match v {
        R::Document(_) | R::Array(_) => {
            let bytes = match v {
                R::Document(d) => d.as_bytes(),
                R::Array(a) => a.as_bytes(),
                _ => &[],
            };
            if !form.enter(bytes.len(), depth, max) {
                return Ok(());
            }
            match v {
                R::Document(d) => check_doc(d, depth, max, form)?,
                R::Array(a) => {
                    let mut i = 0usize;
                    for el in a.iter_elements() {
                        let el = el?;
                        if !is_index(el.key().as_str().as_bytes(), i) {
                            form.same = false;
                        }
                        check_value(el.value()?, depth + 1, max, form)?;
                        i += 1;
                    }
                }
                _ => {}
            }
        }
        R::Double(_) | R::String(_) | R::Boolean(_) | R::Null | R::Int32(_) | R::Int64(_) | R::DateTime(_) | R::ObjectId(_)
        | R::Timestamp(_) | R::Decimal128(_) | R::MinKey | R::MaxKey | R::Undefined | R::JavaScriptCode(_) | R::Symbol(_) => {}
        other => {
            Bson::try_from(other)?;
            form.same = false;
        }
    }
    Ok(())
}

/// Whether `k` is the decimal index `i` (an array element's name as the encoder writes it).
fn is_index(k: &[u8], i: usize) -> bool {
    let mut buf = [0u8; 20];
    let mut n = i;
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    k == &buf[at..]
}

/// A document's field names as a walk meets them, on the stack for the usual small document,
/// for [`Names::has_duplicate`].
#[derive(Default)]
struct Names<'a> {
    few: [&'a [u8]; 16],
    n: usize,
    many: Vec<&'a [u8]>,
}

impl<'a> Names<'a> {
    fn push(&mut self, name: &'a [u8]) {
        if self.n < self.few.len() {
            self.few[self.n] = name;
        } else {
            if self.many.is_empty() {
                self.many.extend_from_slice(&self.few);
            }
            self.many.push(name);
        }
        self.n += 1;
    }

    /// Whether a name occurs twice (the names are reordered).
    fn has_duplicate(&mut self) -> bool {
        if self.many.is_empty() {
            has_duplicate(&mut self.few[..self.n])
        } else {
            has_duplicate(&mut self.many)
        }
    }
}

/// Whether a name occurs twice (`keys` is reordered).
fn has_duplicate(keys: &mut [&[u8]]) -> bool {
    if keys.len() <= 12 {
        return keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k));
    }
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// A document's top-level elements with where each lies in its bytes (`start..end`: type byte,
/// name, value), for writers that copy or reorder elements without decoding them.
pub fn element_spans(raw: &RawDocument) -> Result<Vec<(&str, bson::spec::ElementType, std::ops::Range<usize>)>, bson::error::Error> {
    let mut out = Vec::with_capacity(8);
    let mut at = 4;
    for el in raw.iter_elements() {
        let el = el?;
        let end = at + 1 + el.key().as_str().len() + 1 + el.size();
        out.push((el.key().as_str(), el.element_type(), at..end));
        at = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use bson::{doc, oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128, JavaScriptCodeWithScope, Regex, Timestamp};

    /// `get` finds what the crate's `RawDocument::get` finds, for every kind of value before,
    /// at and after the field asked for, and a name that is only a prefix of another.
    #[test]
    fn get_reads_as_the_crate_does() {
        let values = vec![
            Bson::Double(-1.5),
            Bson::String("é\u{0}x".into()),
            Bson::String(String::new()),
            Bson::Document(doc! {"a": 1}),
            Bson::Document(doc! {}),
            Bson::Array(vec![Bson::Int32(1), Bson::String("s".into())]),
            Bson::Binary(Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2] }),
            Bson::Undefined,
            Bson::ObjectId(ObjectId::from_bytes([7; 12])),
            Bson::Boolean(true),
            Bson::Boolean(false),
            Bson::DateTime(DateTime::from_millis(-3)),
            Bson::Null,
            Bson::RegularExpression(Regex { pattern: "a.b".to_string().try_into().expect("pattern"), options: "i".to_string().try_into().expect("options") }),
            Bson::JavaScriptCode("f()".into()),
            Bson::Symbol("sym".into()),
            Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope { code: "g".into(), scope: doc! {"x": 1} }),
            Bson::Int32(-7),
            Bson::Timestamp(Timestamp { time: 5, increment: 9 }),
            Bson::Int64(1 << 40),
            Bson::Decimal128("1.25".parse::<Decimal128>().expect("decimal")),
            Bson::MaxKey,
            Bson::MinKey,
        ];
        let mut d = bson::Document::new();
        for (i, v) in values.iter().enumerate() {
            d.insert(format!("f{i}"), v.clone());
        }
        let bytes = d.to_vec().expect("encodes");
        let raw = bson::RawDocument::from_bytes(&bytes).expect("reads");
        for i in 0..values.len() {
            let k = format!("f{i}");
            assert_eq!(super::get(raw, &k).expect("reads"), raw.get(&k).expect("reads"), "{k}");
        }
        for k in ["f", "f1x", "", "g"] {
            assert_eq!(super::get(raw, k).expect("reads"), None);
        }
        // Some fields decoded: as the whole document decoded, less the others (with a value of
        // the rarer kinds kept, and without: arrays, documents, strings, numbers).
        let all = super::decode(raw).expect("decodes");
        let rare = |k: &str| k != "f3" && k != "f12";
        let common = |k: &str| ["f0", "f1", "f3", "f5", "f9", "f17", "f20"].contains(&k);
        for keep in [&rare as &dyn Fn(&str) -> bool, &common] {
            let want: bson::Document = all.iter().filter(|(k, _)| keep(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            assert_eq!(super::decode_fields(raw, keep).expect("decodes"), want);
        }
    }

    /// `find_fields` answers for each name what `get` answers, for names present, missing,
    /// asked twice, a name the document holds twice (the first counts), and for the same
    /// bytes with one byte changed (where the walk by sizes may stop early).
    #[test]
    fn find_fields_answers_as_get() {
        let names: &[&[&str]] = &[&["s", "n", "e"], &["e", "s"], &["x", "s", "x"], &[], &["k2", "a2", "f", "dec", "bin"], &["code", "missing", "t"]];
        let mut good = every_kind(true);
        // A second `s` at the end (`{..., s: 5}`): `get` and `find_fields` see the first.
        good.pop();
        good.extend_from_slice(&[0x10, b's', 0, 5, 0, 0, 0, 0]);
        let len = good.len() as i32;
        good[..4].copy_from_slice(&len.to_le_bytes());
        let mut checked = 0;
        for at in 3..good.len() {
            for x in [None, Some(0u8), Some(0x7F), Some(good[at].wrapping_add(1))] {
                let mut b = good.clone();
                if let Some(x) = x {
                    if at < 4 {
                        continue;
                    }
                    b[at] = x;
                }
                let Ok(raw) = bson::RawDocument::from_bytes(&b) else { continue };
                for ns in names {
                    let mut out = Vec::new();
                    super::find_fields(raw, ns, &mut out);
                    let want: Vec<_> = ns.iter().map(|n| super::get(raw, n).ok()).collect();
                    assert_eq!(out, want, "{ns:?}, byte {at} set to {x:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        let raw = bson::RawDocument::from_bytes(&good).expect("reads");
        let mut out = Vec::new();
        super::find_fields(raw, &["s", "l"], &mut out);
        assert_eq!(out, vec![Some(Some(bson::RawBsonRef::String("é\u{0}x"))), Some(Some(bson::RawBsonRef::Int64(1 << 40)))]);
    }

    /// A document of every common kind of value (and a binary one when `rare`), nested in
    /// documents and arrays, with a name twice, an array's elements named out of order, a
    /// non-ASCII name and string: as bytes.
    fn every_kind(rare: bool) -> Vec<u8> {
        let mut d = bson::Document::new();
        d.insert("s", "é\u{0}x");
        d.insert("n", doc! {"a": 1, "b": [1, "x", {"c": true}], "ñ": Bson::Null});
        if rare {
            d.insert("bin", Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2] });
        }
        d.insert("code", Bson::JavaScriptCode("f()".into()));
        d.insert("t", Timestamp { time: 5, increment: 9 });
        d.insert("oid", ObjectId::from_bytes([7; 12]));
        d.insert("d", DateTime::from_millis(-3));
        d.insert("dec", "1.25".parse::<Decimal128>().expect("decimal"));
        d.insert("e", doc! {});
        d.insert("l", 1i64 << 40);
        d.insert("f", false);
        let mut bytes = d.to_vec().expect("encodes");
        // `{k: 1, k: 2}` and `[x, y]` named "1", "0", appended before the terminator by hand.
        bytes.pop();
        bytes.extend_from_slice(&[0x03, b'k', b'2', 0, 19, 0, 0, 0, 0x10, b'k', 0, 1, 0, 0, 0, 0x10, b'k', 0, 2, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0x04, b'a', b'2', 0, 19, 0, 0, 0, 0x10, b'1', 0, 1, 0, 0, 0, 0x10, b'0', 0, 2, 0, 0, 0, 0]);
        bytes.push(0);
        let len = bytes.len() as i32;
        bytes[..4].copy_from_slice(&len.to_le_bytes());
        bytes
    }

    /// `check_stored_form` (the walk by sizes) answers as the crate's reader does, for the bytes
    /// of every kind of value and for each of them with one byte changed: the same form, or an
    /// error where the crate's reader finds one, at every depth limit.
    #[test]
    fn stored_form_reads_as_the_crate_does() {
        let mut checked = 0;
        for rare in [false, true] {
            let good = every_kind(rare);
            let raw = bson::RawDocument::from_bytes(&good).expect("reads");
            let form = super::check_stored_form(raw, 100).expect("reads");
            assert_eq!(form, super::StoredForm { same: false, depth: 3, filled_depth: 3 });
            // The walk by sizes takes the common kinds, leaves the rare ones to the crate.
            let mut own = super::StoredForm::START;
            assert_eq!(super::walk_doc(&good, 0, 100, &mut own).map(|()| own), (!rare).then_some(form));
            for at in 4..good.len() {
                for x in [0u8, 1, 2, 3, 4, 5, 8, 0x0B, 0x13, 0x7F, 0x80, 0xC3, 0xFF, good[at].wrapping_add(1), good[at].wrapping_sub(1)] {
                    let mut b = good.clone();
                    b[at] = x;
                    let Ok(raw) = bson::RawDocument::from_bytes(&b) else { continue };
                    for max in [0, 1, 2, 100] {
                        let fast = super::check_stored_form(raw, max);
                        let crate_ = super::check_stored_form_by_crate(raw, max);
                        assert_eq!(fast.as_ref().ok(), crate_.as_ref().ok(), "byte {at} set to {x}, depth limit {max}");
                        checked += usize::from(fast.is_ok());
                    }
                    // The same bytes as one element of a list of documents.
                    let list = doc! {"l": [{"a": 1}, {}]};
                    let mut lb = list.to_vec().expect("encodes");
                    let mut el = vec![0x03, b'2', 0];
                    el.extend_from_slice(&b);
                    let arr_len = i32::from_le_bytes(lb[7..11].try_into().expect("4 bytes")) + el.len() as i32;
                    lb[7..11].copy_from_slice(&arr_len.to_le_bytes());
                    let end = lb.len() - 2;
                    lb.splice(end..end, el);
                    let len = lb.len() as i32;
                    lb[..4].copy_from_slice(&len.to_le_bytes());
                    let Ok(list) = bson::RawDocument::from_bytes(&lb) else { continue };
                    let Ok(Some(bson::RawBsonRef::Array(a))) = list.get("l") else { panic!("a list") };
                    let ours: Vec<Option<&[u8]>> = super::array_documents(a).map(|d| d.map(|d| d.as_bytes())).collect();
                    let theirs: Vec<Option<&[u8]>> =
                        a.into_iter().map(|v| v.ok().and_then(|v| v.as_document()).map(|d| d.as_bytes())).collect();
                    assert_eq!(ours, theirs, "byte {at} set to {x}, in a list");
                }
            }
        }
        // Most changes still read (names, values): the comparison was not only of errors.
        assert!(checked > 1000, "{checked}");
    }
}
