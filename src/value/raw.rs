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
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        let v = match cur.get(part.as_ref()) {
            Ok(Some(v)) => v,
            Ok(None) => return RawLookup::Missing,
            Err(_) => return RawLookup::Decode,
        };
        let last = i + 1 == parts.len();
        match v {
            RawBsonRef::Array(_) => return RawLookup::Decode,
            RawBsonRef::Document(d) if !last => cur = d,
            _ if !last => return RawLookup::Missing,
            _ => return RawLookup::Value(v),
        }
    }
    RawLookup::Missing
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

/// Checks a document's bytes as [`decode`] reads them, without building anything: `Err` when
/// decoding would fail (`Ok` past `max_depth` says nothing of the bytes below it), else what
/// [`StoredForm`] tells. A write that stores documents can keep bytes whose form is `same` as
/// they are, and must decode and encode the others. One walk, for the insert path: it also
/// gives the nesting depths that the command and storage limits are checked against.
pub fn check_stored_form(raw: &RawDocument, max_depth: usize) -> Result<StoredForm, bson::error::Error> {
    let mut form = StoredForm { same: true, depth: 0, filled_depth: 0 };
    check_doc(raw, 0, max_depth, &mut form)?;
    Ok(form)
}

fn check_doc(raw: &RawDocument, level: usize, max: usize, form: &mut StoredForm) -> Result<(), bson::error::Error> {
    // Names on the stack for the usual small document.
    let mut few: [&str; 16] = [""; 16];
    let mut many: Vec<&str> = Vec::new();
    let mut n = 0;
    for item in raw {
        let (k, v) = item?;
        if n < few.len() {
            few[n] = k.as_str();
        } else {
            if many.is_empty() {
                many.extend_from_slice(&few);
            }
            many.push(k.as_str());
        }
        n += 1;
        check_value(v, level + 1, max, form)?;
    }
    let dup = if many.is_empty() { has_duplicate(&mut few[..n]) } else { has_duplicate(&mut many) };
    if dup {
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
            form.depth = form.depth.max(depth);
            if bytes.len() > 5 {
                form.filled_depth = form.filled_depth.max(depth);
            }
            if depth > max {
                form.same = false;
                return Ok(());
            }
            match v {
                R::Document(d) => check_doc(d, depth, max, form)?,
                R::Array(a) => {
                    let mut i = 0usize;
                    for el in a.iter_elements() {
                        let el = el?;
                        if !is_index(el.key().as_str(), i) {
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
fn is_index(k: &str, i: usize) -> bool {
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
    k.as_bytes() == &buf[at..]
}

/// Whether a name occurs twice (`keys` is reordered).
fn has_duplicate(keys: &mut [&str]) -> bool {
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
