//! Sort specifications (`{ at: -1, _id: 1 }`) with the server's order: each key is the value at
//! the path, through arrays (ascending uses the smallest value the path reaches, descending the
//! largest); a missing field sorts as null, an empty array as `undefined` (before null).
//!
//! [`SortSpec::compare`] is a total order (values compare with `value::compare`), but documents
//! with equal keys compare `Equal`: callers must sort stably (`slice::sort_by`) so that ties keep
//! their input order, as the server's sort does for a collection scan.

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::value::display;
use super::field_path;
use crate::error::{Error, ErrorKind, Result};
use crate::value::{self, Number};

/// A parsed sort specification.
#[derive(Debug, Clone)]
pub struct SortSpec {
    keys: Vec<SortKey>,
}

#[derive(Debug, Clone)]
struct SortKey {
    parts: Vec<String>,
    ascending: bool,
}

static NULL: Bson = Bson::Null;
static UNDEFINED: Bson = Bson::Undefined;

impl SortSpec {
    /// Parses `{ field: 1 | -1, ... }` as `$sort` does: an empty specification fails with 15976,
    /// a direction other than 1 or -1 with 15975, a non-numeric one with 15974.
    pub fn parse(spec: &Document) -> Result<SortSpec> {
        if spec.is_empty() {
            return Err(Error::code(15976, "$sort stage must have at least one sort key"));
        }
        SortSpec::parse_find(spec)
    }

    /// Parses the `sort` of a find command, where `{}` means no sort ([`SortSpec::is_empty`]).
    pub fn parse_find(spec: &Document) -> Result<SortSpec> {
        let mut keys = Vec::with_capacity(spec.len());
        for (k, v) in spec {
            let ascending = match v {
                Bson::Document(meta) => {
                    if meta.keys().next().map(String::as_str) != Some("$meta") {
                        return Err(Error::code(17312, "$meta is the only expression supported by $sort right now"));
                    }
                    if meta.len() != 1 {
                        return Err(Error::new(ErrorKind::FailedToParse, "Cannot have additional keys in a $meta sort specification"));
                    }
                    return Err(Error::code(31138, format!("Illegal $meta sort: {}", display::element("$meta", meta.get("$meta").unwrap_or(&Bson::Null)))));
                }
                v => {
                    let Some(n) = Number::from_bson(v) else {
                        return Err(Error::code(15974, format!("Illegal key in $sort specification: {}", display::element(k, v))));
                    };
                    let d = n.to_f64();
                    if d == 1.0 {
                        true
                    } else if d == -1.0 {
                        false
                    } else {
                        return Err(Error::code(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"));
                    }
                }
            };
            field_path::validate(k)?;
            keys.push(SortKey { parts: k.split('.').map(str::to_string).collect(), ascending });
        }
        Ok(SortSpec { keys })
    }

    /// True for the empty find sort `{}`.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The sort keys: dotted paths with `true` for ascending.
    pub fn keys(&self) -> Vec<(String, bool)> {
        self.keys.iter().map(|k| (k.parts.join("."), k.ascending)).collect()
    }

    /// The sort keys: each path's parts with `true` for ascending.
    pub fn paths(&self) -> impl Iterator<Item = (&[String], bool)> {
        self.keys.iter().map(|k| (k.parts.as_slice(), k.ascending))
    }

    /// Orders two documents by this specification (see the module documentation).
    pub fn compare(&self, a: &Document, b: &Document) -> Ordering {
        for k in &self.keys {
            let (x, y) = (sort_key(a, &k.parts, k.ascending), sort_key(b, &k.parts, k.ascending));
            let o = value::compare(x, y);
            let o = if k.ascending { o } else { o.reverse() };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Orders two documents' key values (as [`SortSpec::key_values`] gives them).
    pub fn compare_keys(&self, a: &[&Bson], b: &[&Bson]) -> Ordering {
        for ((k, x), y) in self.keys.iter().zip(a).zip(b) {
            let o = value::compare(x, y);
            let o = if k.ascending { o } else { o.reverse() };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// Sorts `items` stably by their documents (`doc`), as [`SortSpec::compare`] orders them,
    /// each document's sort key found once rather than at every comparison.
    pub fn sort<T>(&self, items: &mut Vec<T>, doc: impl Fn(&T) -> &Document) {
        let mut order: Vec<usize> = (0..items.len()).collect();
        {
            let keys: Vec<Vec<&Bson>> = items.iter().map(|t| self.key_values(doc(t))).collect();
            order.sort_by(|&a, &b| self.compare_keys(&keys[a], &keys[b]));
        }
        let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
        items.extend(order.into_iter().filter_map(|i| slots[i].take()));
    }

    /// The key of `doc` for each sort field (the value the comparison uses).
    pub fn key_values<'a>(&self, doc: &'a Document) -> Vec<&'a Bson> {
        self.keys.iter().map(|k| sort_key(doc, &k.parts, k.ascending)).collect()
    }
}

/// The sort key of one field: the smallest (ascending) or largest (descending) of the values
/// the path reaches.
fn sort_key<'a>(doc: &'a Document, parts: &[String], ascending: bool) -> &'a Bson {
    let mut best: Option<&'a Bson> = None;
    collect(doc, parts, &mut |v| {
        best = Some(match best {
            None => v,
            Some(b) => {
                let o = value::compare(v, b);
                if (ascending && o == Ordering::Less) || (!ascending && o == Ordering::Greater) {
                    v
                } else {
                    b
                }
            }
        });
    });
    best.unwrap_or(&NULL)
}

/// The index keys of one field path (the server's key generator): arrays at the end are
/// expanded one level (an empty one gives `undefined`); arrays in the middle give each document
/// element's keys (other elements give null); a numeric component indexes an array.
fn collect<'a>(doc: &'a Document, parts: &[String], f: &mut dyn FnMut(&'a Bson)) {
    let Some(first) = parts.first() else { return };
    match crate::value::path::field(doc, first) {
        None => f(&NULL),
        Some(v) => collect_value(v, &parts[1..], f),
    }
}

fn collect_value<'a>(v: &'a Bson, rest: &[String], f: &mut dyn FnMut(&'a Bson)) {
    if rest.is_empty() {
        match v {
            Bson::Array(a) if a.is_empty() => f(&UNDEFINED),
            Bson::Array(a) => a.iter().for_each(f),
            other => f(other),
        }
        return;
    }
    match v {
        Bson::Document(d) => collect(d, rest, f),
        Bson::Array(a) => {
            if let Some(i) = crate::value::path::array_index(&rest[0]) {
                match a.get(i) {
                    Some(e) => collect_value(e, &rest[1..], f),
                    None => f(&NULL),
                }
                return;
            }
            if a.is_empty() {
                f(&NULL);
            }
            for e in a {
                match e {
                    Bson::Document(d) => collect(d, rest, f),
                    _ => f(&NULL),
                }
            }
        }
        _ => f(&NULL),
    }
}
