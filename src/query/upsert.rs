//! What an upsert and an index lookup take from a filter: its equality predicates.

use bson::{Bson, Document};

use super::node::Node;
use super::Matcher;
use crate::error::{Error, ErrorKind, Result};

/// The equality predicates the server's optimizer leaves at the top of a filter, in its order:
/// plain values and `$eq`, `$in` with one value and `$all` with values (the optimizer turns them
/// into equalities), including those under `$and` and a single-branch `$or` (absorbed into the
/// top-level AND, after the other conditions).
fn top_equalities(root: &Node) -> Vec<(&str, &Bson)> {
    fn flatten<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
        match n {
            Node::And(children) => {
                let mut later = Vec::new();
                for c in children {
                    match unwrap_or(c) {
                        inner @ Node::And(_) => later.push(inner),
                        other => out.push(other),
                    }
                }
                for l in later {
                    flatten(l, out);
                }
            }
            other => out.push(unwrap_or(other)),
        }
    }
    fn unwrap_or(n: &Node) -> &Node {
        match n {
            Node::Or(c) if c.len() == 1 => unwrap_or(&c[0]),
            other => other,
        }
    }
    let mut nodes = Vec::new();
    flatten(unwrap_or(root), &mut nodes);
    nodes
        .into_iter()
        .filter_map(|n| match n {
            Node::Path(path, pred) => pred.equality_value().map(|v| (path.full.as_str(), v)),
            _ => None,
        })
        .collect()
}

/// The document an upsert starts from (the server's `populateDocumentWithQueryFields`): the
/// filter's equality fields, dotted paths created as embedded documents, `_id` included. Range
/// operators, `$or` with several branches, `$nor`, `$not`, `$elemMatch`, `$expr` contribute
/// nothing. Two equalities on one path, or on a path and its prefix, fail with
/// `NotSingleValueField` (54) "cannot infer query fields to set, ...". Fields keep the filter's
/// order (the server's order comes from a hash map and is not reproduced).
pub fn upsert_seed(filter: &Document) -> Result<Document> {
    let m = Matcher::parse(filter)?;
    let eqs = top_equalities(m.root());
    let mut seen: Vec<&str> = Vec::new();
    for (path, _) in &eqs {
        // A prefix of this path (or the path itself) already matched by an equality.
        let parts: Vec<&str> = path.split('.').collect();
        for i in (1..=parts.len()).rev() {
            let prefix = parts[..i].join(".");
            if seen.contains(&prefix.as_str()) {
                let msg = if i == parts.len() {
                    format!("cannot infer query fields to set, path '{path}' is matched twice")
                } else {
                    format!("cannot infer query fields to set, both paths '{path}' and '{prefix}' are matched")
                };
                return Err(Error::new(ErrorKind::NotSingleValueField, msg));
            }
        }
        seen.push(path);
    }
    let mut doc = Document::new();
    for (path, value) in &eqs {
        set_path(&mut doc, path, value)?;
    }
    Ok(doc)
}

fn set_path(doc: &mut Document, path: &str, value: &Bson) -> Result<()> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut cur = doc;
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            if let Some(Bson::Document(_)) = cur.get(*part) {
                // A longer path was set before this one: the server, which sets the shorter path
                // first, cannot traverse this value.
                return Err(Error::new(
                    ErrorKind::PathNotViable,
                    format!("cannot use the part ({part} of {path}) to traverse the element ({{{}}})", crate::value::display::element(part, value)),
                ));
            }
            cur.insert(*part, value.clone());
            return Ok(());
        }
        if !cur.contains_key(*part) {
            cur.insert(*part, Document::new());
        }
        match cur.get_mut(*part) {
            Some(Bson::Document(d)) => cur = d,
            Some(other) => {
                return Err(Error::new(
                    ErrorKind::PathNotViable,
                    format!("cannot use the part ({} of {path}) to traverse the element ({{{}}})", parts[i + 1], crate::value::display::element(part, other)),
                ))
            }
            None => return Ok(()),
        }
    }
    Ok(())
}

/// The top-level equality predicates of `filter` (plain values and `$eq`, also under `$and`)
/// whose value can be looked up in an index directly: not null or undefined (which also match
/// missing fields), not arrays (which also match arrays containing them), not regexes. Callers
/// still run the full matcher on the candidates. Unparseable filters give no fields.
pub fn equality_fields(filter: &Document) -> Vec<(String, Bson)> {
    let Ok(m) = Matcher::parse(filter) else { return Vec::new() };
    top_equalities(m.root())
        .into_iter()
        .filter(|(_, v)| !matches!(v, Bson::Null | Bson::Undefined | Bson::Array(_) | Bson::RegularExpression(_)))
        .map(|(p, v)| (p.to_string(), v.clone()))
        .collect()
}
