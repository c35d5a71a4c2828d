//! Dotted paths (`a.b.0.c`) through embedded documents and arrays.
//!
//! Three readings of a path exist in the server and each has its function here:
//! - [`get_strict`]: no implicit array traversal; a numeric component indexes an array
//!   (update operators, `_id` extraction, projections of positional paths).
//! - [`expr_lookup`]: aggregation field paths (`$a.b`): through an array, the rest of the path is
//!   applied to each element and the results collected in an array (missing ones dropped).
//! - [`matcher_values`]: query matching: every value a predicate is tested against, with the
//!   server's implicit traversal of arrays (see `query`).

use bson::{Bson, Document};

/// `doc.get(key)`: a linear scan for small documents, where comparing a few short keys costs
/// less than hashing the key for the document's map; the same answer either way, as a
/// document's keys are unique.
#[inline]
pub fn field<'a>(doc: &'a Document, key: &str) -> Option<&'a Bson> {
    if doc.len() <= 16 {
        // Length and first byte first: most keys differ there, and then no `memcmp` call.
        let (len, first) = (key.len(), key.as_bytes().first());
        doc.iter().find(|(k, _)| k.len() == len && k.as_bytes().first() == first && k.as_str() == key).map(|(_, v)| v)
    } else {
        doc.get(key)
    }
}

/// Splits a dotted path into its components.
pub fn split(path: &str) -> Vec<&str> {
    path.split('.').collect()
}

/// Parses an array index component the way the server does: ASCII digits only, no sign, and no
/// leading zero unless the component is exactly "0".
pub fn array_index(component: &str) -> Option<usize> {
    if component.is_empty() || !component.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if component.len() > 1 && component.starts_with('0') {
        return None;
    }
    component.parse().ok()
}

/// Looks up a dotted path with no implicit array traversal.
pub fn get_strict<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let first = parts.next()?;
    let mut cur = field(doc, first)?;
    for p in parts {
        cur = match cur {
            Bson::Document(d) => field(d, p)?,
            Bson::Array(a) => a.get(array_index(p)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Looks up an aggregation field path (`$a.b.c` without the `$`). Returns `None` for missing.
pub fn expr_lookup(doc: &Document, path: &str) -> Option<Bson> {
    let parts: Vec<&str> = path.split('.').collect();
    let first = field(doc, parts[0])?;
    expr_rest(first, &parts[1..])
}

/// Applies the rest of an aggregation field path to a value.
pub fn expr_rest<S: AsRef<str>>(v: &Bson, rest: &[S]) -> Option<Bson> {
    let Some((first, tail)) = rest.split_first() else {
        return Some(v.clone());
    };
    match v {
        Bson::Document(d) => expr_rest(field(d, first.as_ref())?, tail),
        Bson::Array(a) => {
            // Only the documents of the array are followed (the server's
            // `ExpressionFieldPath::evaluatePathArray`): a nested array is skipped.
            let out: Vec<Bson> = a
                .iter()
                .filter_map(|e| match e {
                    Bson::Document(_) => expr_rest(e, rest),
                    _ => None,
                })
                .collect();
            Some(Bson::Array(out))
        }
        _ => None,
    }
}

/// One value a query predicate is tested against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchValue<'a> {
    /// The value, or `None` where the path is missing.
    pub value: Option<&'a Bson>,
    /// The position, in the outermost array traversed implicitly, of the element this value
    /// came from (what the positional `$` operator refers to). `None` for values reached
    /// without implicit array traversal (including through explicit numeric components).
    pub array_offset: Option<usize>,
}

/// Every value a predicate on `path` sees in `doc`, in the server's order (its
/// `BSONElementIterator` with leaf arrays traversed): see [`walk_matcher_path`].
pub fn matcher_values<'a>(doc: &'a Document, path: &str) -> Vec<MatchValue<'a>> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    walk_matcher_path(doc, &parts, true, &mut |value, array_offset| {
        out.push(MatchValue { value, array_offset });
        false
    });
    out
}

/// Walks `parts` through `doc` the way the server's query matcher does (`BSONElementIterator`),
/// calling `f(value, array_offset)` for every value a predicate is tested against, until `f`
/// returns true (then this returns true).
///
/// - Through embedded documents the path is followed plainly; a scalar in the middle of the path,
///   or a missing field, yields one missing value (`None`).
/// - At an array in the middle of the path, each element is visited: a document element gets the
///   rest of the path (numeric components included, as field names); an element whose index
///   equals a numeric next component is also entered positionally (a document with the rest after
///   the index, a nested array element by element); other elements yield nothing, and the array
///   itself is never offered. So `{a: [1, 2]}` yields nothing for `a.b`.
/// - At an array at the end of the path, with `traverse_leaf_arrays`, each element is offered
///   (with its index as array offset) and then the array itself; without it only the array.
///   An empty array therefore yields only itself.
///
/// The array offset is the index in the outermost implicitly traversed array.
pub fn walk_matcher_path<'a, S: AsRef<str>>(
    doc: &'a Document,
    parts: &[S],
    traverse_leaf_arrays: bool,
    f: &mut dyn FnMut(Option<&'a Bson>, Option<usize>) -> bool,
) -> bool {
    let (start, idx) = field_dotted_or_array(doc, parts);
    let arr = match start {
        Some(Bson::Array(a)) => a,
        other => return f(other, None),
    };
    let rest = &parts[idx + 1..];
    if rest.is_empty() && !traverse_leaf_arrays {
        return f(start, None);
    }
    walk_array(arr, start, rest, traverse_leaf_arrays, f)
}

/// The server's `getFieldDottedOrArray`: follows `parts` through embedded documents and stops at
/// the first array (returning it and the index of its component), at the end, or at a dead end
/// (missing).
fn field_dotted_or_array<'a, S: AsRef<str>>(doc: &'a Document, parts: &[S]) -> (Option<&'a Bson>, usize) {
    let mut cur = doc;
    let mut i = 0;
    loop {
        let Some(part) = parts.get(i) else { return (None, i) };
        let v = match field(cur, part.as_ref()) {
            None => return (None, i),
            Some(v) => v,
        };
        match v {
            Bson::Document(d) if i + 1 < parts.len() => {
                cur = d;
                i += 1;
            }
            Bson::Array(_) => return (Some(v), i),
            _ if i + 1 < parts.len() => return (None, i),
            _ => return (Some(v), i),
        }
    }
}

/// True when the next component is the array index `i` written as the server writes array
/// field names (so `"01"` is not index 1).
fn is_offset_match<S: AsRef<str>>(rest: &[S], i: usize) -> bool {
    rest.first().is_some_and(|p| array_index(p.as_ref()) == Some(i))
}

fn walk_array<'a, S: AsRef<str>>(
    arr: &'a [Bson],
    whole: Option<&'a Bson>,
    rest: &[S],
    traverse_leaf_arrays: bool,
    f: &mut dyn FnMut(Option<&'a Bson>, Option<usize>) -> bool,
) -> bool {
    for (i, elt) in arr.iter().enumerate() {
        if rest.is_empty() {
            if f(Some(elt), Some(i)) {
                return true;
            }
            continue;
        }
        match elt {
            Bson::Document(d) => {
                // The rest of the path inside the element; values found there report this
                // element's position (the outermost array offset wins).
                if walk_matcher_path(d, rest, traverse_leaf_arrays, &mut |v, _| f(v, Some(i))) {
                    return true;
                }
                if is_offset_match(rest, i) {
                    if rest.len() == 1 {
                        if f(Some(elt), None) {
                            return true;
                        }
                    } else if walk_matcher_path(d, &rest[1..], traverse_leaf_arrays, f) {
                        return true;
                    }
                }
            }
            _ if is_offset_match(rest, i) => {
                if rest.len() == 1 {
                    if f(Some(elt), None) {
                        return true;
                    }
                } else if let Bson::Array(inner) = elt {
                    if walk_array(inner, Some(elt), &rest[1..], traverse_leaf_arrays, f) {
                        return true;
                    }
                }
            }
            _ => {}
        }
    }
    if !rest.is_empty() {
        return false;
    }
    f(whole, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn strict_lookup_indexes_arrays() {
        let d = doc! {"a": [{"b": 1}, {"b": 2}]};
        assert_eq!(get_strict(&d, "a.1.b"), Some(&Bson::Int32(2)));
        assert_eq!(get_strict(&d, "a.b"), None);
        assert_eq!(array_index("01"), None);
    }

    #[test]
    fn expr_lookup_maps_over_arrays() {
        let d = doc! {"a": [{"b": 1}, {"c": 2}, {"b": [3]}, 4, [{"b": 5}]]};
        assert_eq!(expr_lookup(&d, "a.b"), Some(Bson::Array(vec![Bson::Int32(1), Bson::Array(vec![Bson::Int32(3)])])));
    }

    #[test]
    fn matcher_values_expand_arrays() {
        let d = doc! {"a": [{"b": [1, 2]}, {"b": 3}]};
        let vals: Vec<_> = matcher_values(&d, "a.b").iter().map(|m| (m.value.cloned(), m.array_offset)).collect();
        // Leaf array elements first, then the array itself; offsets of the outer array.
        assert_eq!(
            vals,
            vec![
                (Some(Bson::Int32(1)), Some(0)),
                (Some(Bson::Int32(2)), Some(0)),
                (Some(Bson::Array(vec![Bson::Int32(1), Bson::Int32(2)])), Some(0)),
                (Some(Bson::Int32(3)), Some(1)),
            ]
        );
    }

    #[test]
    fn matcher_values_dead_ends() {
        // Scalars in a middle array yield nothing; a scalar in the middle of the path is missing.
        assert!(matcher_values(&doc! {"a": [1, 2]}, "a.b").is_empty());
        assert_eq!(matcher_values(&doc! {"a": 4}, "a.b"), vec![MatchValue { value: None, array_offset: None }]);
        // Numeric components both index and look up fields of document elements.
        let d = doc! {"a": [{"0": "field"}, "x"]};
        let vals: Vec<_> = matcher_values(&d, "a.0").iter().map(|m| m.value.cloned()).collect();
        assert_eq!(vals, vec![Some(Bson::String("field".into())), Some(Bson::Document(doc! {"0": "field"}))]);
    }
}
