//! Update paths: the server's `FieldRef` checks, the order in which it applies sibling fields
//! (`cmpPathsAndArrayIndexes`), and the document walks updates make (no implicit traversal of
//! arrays: a numeric component indexes an array).

use std::cmp::Ordering;

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};

/// The server's order of sibling update fields (`pathsupport::cmpPathsAndArrayIndexes`): byte
/// order, except that two names starting with a non-zero digit order by length first, so `a.9`
/// is applied (and created) before `a.10`.
pub fn cmp_fields(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let plain = x.is_empty()
        || y.is_empty()
        || !x[0].is_ascii_digit()
        || !y[0].is_ascii_digit()
        || (x[0] == b'0' && x.len() > 1)
        || (y[0] == b'0' && y.len() > 1);
    if plain || x.len() == y.len() {
        x.cmp(y)
    } else {
        x.len().cmp(&y.len())
    }
}

/// An array index as update paths read one (`parseUnsignedBase10Integer`): ASCII digits, leading
/// zeros allowed, within 32 bits.
pub fn parse_index(part: &str) -> Option<usize> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse::<u32>().ok().map(|i| i as usize)
}

/// `$`: the positional operator.
pub fn is_positional(part: &str) -> bool {
    part == "$"
}

/// `$[]` or `$[<identifier>]`.
pub fn is_array_filter(part: &str) -> bool {
    part.len() >= 3 && part.starts_with("$[") && part.ends_with(']')
}

/// Splits an update path and checks it as `fieldchecker::isUpdatable` does.
pub fn split_updatable(path: &str) -> Result<Vec<&str>> {
    if path.is_empty() {
        return Err(Error::new(ErrorKind::EmptyFieldName, "An empty update path is not valid."));
    }
    let parts: Vec<&str> = path.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::new(
            ErrorKind::EmptyFieldName,
            format!("The update path '{path}' contains an empty field name, which is not allowed."),
        ));
    }
    Ok(parts)
}

/// The child of a document or array named by one path component.
pub fn child<'a>(container: &'a Bson, part: &str) -> Option<&'a Bson> {
    match container {
        Bson::Document(d) => d.get(part),
        Bson::Array(a) => a.get(parse_index(part)?),
        _ => None,
    }
}

pub fn child_mut<'a>(container: &'a mut Bson, part: &str) -> Option<&'a mut Bson> {
    match container {
        Bson::Document(d) => d.get_mut(part),
        Bson::Array(a) => a.get_mut(parse_index(part)?),
        _ => None,
    }
}

/// How far `path` exists under `root`: the number of components found and the deepest element
/// reached (the server's `pathTaken` / `pathToCreate` split).
pub fn resolve<'a>(root: &'a Bson, path: &[String]) -> (usize, &'a Bson) {
    let mut cur = root;
    for (i, part) in path.iter().enumerate() {
        match child(cur, part) {
            Some(next) => cur = next,
            None => return (i, cur),
        }
    }
    (path.len(), cur)
}

pub fn get_mut<'a>(root: &'a mut Bson, path: &[String]) -> Option<&'a mut Bson> {
    let mut cur = root;
    for part in path {
        cur = child_mut(cur, part)?;
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_fields_order_by_length() {
        let mut v = vec!["10", "9", "b", "a", "02", "1"];
        v.sort_by(|a, b| cmp_fields(a, b));
        assert_eq!(v, vec!["02", "1", "9", "10", "a", "b"]);
    }

    #[test]
    fn indexes_accept_leading_zeros() {
        assert_eq!(parse_index("01"), Some(1));
        assert_eq!(parse_index("-1"), None);
        assert_eq!(parse_index("99999999999"), None);
    }
}
