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
    let mut cur = doc.get(first)?;
    for p in parts {
        cur = match cur {
            Bson::Document(d) => d.get(p)?,
            Bson::Array(a) => a.get(array_index(p)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Looks up an aggregation field path (`$a.b.c` without the `$`). Returns `None` for missing.
pub fn expr_lookup(doc: &Document, path: &str) -> Option<Bson> {
    let parts: Vec<&str> = path.split('.').collect();
    let first = doc.get(parts[0])?;
    expr_rest(first, &parts[1..])
}

/// Applies the rest of an aggregation field path to a value.
pub fn expr_rest(v: &Bson, rest: &[&str]) -> Option<Bson> {
    if rest.is_empty() {
        return Some(v.clone());
    }
    match v {
        Bson::Document(d) => expr_rest(d.get(rest[0])?, &rest[1..]),
        Bson::Array(a) => {
            let out: Vec<Bson> = a
                .iter()
                .filter_map(|e| match e {
                    Bson::Document(_) | Bson::Array(_) => expr_rest(e, rest),
                    _ => None,
                })
                .collect();
            Some(Bson::Array(out))
        }
        _ => None,
    }
}

/// One value a query predicate is tested against.
#[derive(Debug, Clone, Copy)]
pub struct MatchValue<'a> {
    /// The value, or `None` where the path is missing.
    pub value: Option<&'a Bson>,
    /// True when this value is an element of an array found at the end of the path (the server
    /// tests such arrays both whole and element by element).
    pub from_array: bool,
}

/// Every value a predicate on `path` sees in `doc`, following the server's `ElementPath`:
/// through an array, a non-numeric component is applied to each embedded document element; a
/// numeric component both indexes the array and is looked up in its document elements; at the end
/// of the path an array is offered whole and then element by element. A missing path yields one
/// `None` (so that `{a: null}` and `$exists` can see it).
pub fn matcher_values<'a>(doc: &'a Document, path: &str) -> Vec<MatchValue<'a>> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    match doc.get(parts[0]) {
        Some(v) => walk(v, &parts[1..], &mut out),
        None => out.push(MatchValue { value: None, from_array: false }),
    }
    if out.is_empty() {
        out.push(MatchValue { value: None, from_array: false });
    }
    out
}

fn walk<'a>(v: &'a Bson, rest: &[&str], out: &mut Vec<MatchValue<'a>>) {
    if rest.is_empty() {
        out.push(MatchValue { value: Some(v), from_array: false });
        if let Bson::Array(a) = v {
            for e in a {
                out.push(MatchValue { value: Some(e), from_array: true });
            }
        }
        return;
    }
    match v {
        Bson::Document(d) => match d.get(rest[0]) {
            Some(next) => walk(next, &rest[1..], out),
            None => out.push(MatchValue { value: None, from_array: false }),
        },
        Bson::Array(a) => {
            let before = out.len();
            if let Some(i) = array_index(rest[0]) {
                if let Some(e) = a.get(i) {
                    walk_indexed(e, &rest[1..], out);
                }
            }
            for e in a {
                if let Bson::Document(d) = e {
                    match d.get(rest[0]) {
                        Some(next) => walk(next, &rest[1..], out),
                        None => out.push(MatchValue { value: None, from_array: false }),
                    }
                }
            }
            if out.len() == before {
                out.push(MatchValue { value: None, from_array: false });
            }
        }
        _ => out.push(MatchValue { value: None, from_array: false }),
    }
}

/// After an explicit array index, an array found at the end is still expanded, but an array in the
/// middle is not traversed implicitly twice.
fn walk_indexed<'a>(v: &'a Bson, rest: &[&str], out: &mut Vec<MatchValue<'a>>) {
    walk(v, rest, out)
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
        let d = doc! {"a": [{"b": 1}, {"c": 2}, {"b": [3]}, 4]};
        assert_eq!(expr_lookup(&d, "a.b"), Some(Bson::Array(vec![Bson::Int32(1), Bson::Array(vec![Bson::Int32(3)])])));
    }

    #[test]
    fn matcher_values_expand_arrays() {
        let d = doc! {"a": [{"b": [1, 2]}, {"b": 3}]};
        let vals: Vec<_> = matcher_values(&d, "a.b").iter().filter_map(|m| m.value.cloned()).collect();
        assert_eq!(vals.len(), 4); // [1,2], 1, 2, 3
    }
}
