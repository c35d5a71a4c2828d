//! Wildcard indexes (`{ "$**": 1 }`, `{ "path.$**": 1 }`, `wildcardProjection`), keyed as the
//! server's wildcard key generator keys them (mongo `src/mongo/db/index/wildcard_key_generator.cpp`):
//! the document is first projected (the subtree under the prefix, or the `wildcardProjection`,
//! `_id` left out unless projected), then every leaf gives one key `{ $_path: "a.b", value }`:
//! - an embedded document is walked, except an empty one, which is a value (`{}`);
//! - an array is a multikey path (recorded as metadata, never forgotten) whose elements are
//!   walked at the array's own path (no index component); an empty array is `undefined`; an
//!   array directly inside an array is a value, not walked;
//! - a field whose name holds a `.` is skipped (no query can name it).
//!
//! The planner (`planner.rs`) expands such an index into one index per queried path, as
//! `planner_wildcard_helpers.cpp` does.

use std::collections::{BTreeMap, BTreeSet};

use bson::{Bson, Document};

use crate::value;

/// The field of the wildcard in a key pattern (`$**` or `a.b.$**`), if the pattern is a
/// single-field wildcard index.
pub fn wildcard_field(key: &Document) -> Option<&str> {
    if key.len() != 1 {
        return None;
    }
    let (field, dir) = key.iter().next()?;
    if !matches!(dir, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_)) {
        return None;
    }
    (field == "$**" || field.ends_with(".$**")).then_some(field.as_str())
}

/// A projection tree: a path either ends here (`Leaf`) or goes on into named children.
#[derive(Debug, Clone)]
enum Node {
    Leaf,
    Children(BTreeMap<String, Node>),
}

impl Node {
    fn insert(&mut self, path: &str) {
        let Node::Children(map) = self else { return };
        let (head, rest) = match path.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (path, None),
        };
        match rest {
            None => {
                map.insert(head.to_string(), Node::Leaf);
            }
            Some(rest) => {
                let child = map.entry(head.to_string()).or_insert_with(|| Node::Children(BTreeMap::new()));
                child.insert(rest);
            }
        }
    }
}

/// What a wildcard index keeps of each document, and the multikey paths it has met.
#[derive(Debug, Clone)]
pub struct Wildcard {
    /// True for an inclusion projection (the subtree of `path.$**`, or an inclusion
    /// `wildcardProjection`), false for an exclusion (`$**` alone excludes `_id`).
    include: bool,
    tree: Node,
    /// The paths of the arrays met in the indexed documents (the server keeps them as
    /// metadata keys of the index); an index never forgets one.
    pub multikey: BTreeSet<String>,
}

impl Wildcard {
    /// The wildcard of key field `field` (`$**` or `path.$**`) with `projection` (the
    /// `wildcardProjection`, only for `$**`).
    pub fn new(field: &str, projection: Option<&Document>) -> Wildcard {
        let mut tree = Node::Children(BTreeMap::new());
        if let Some(prefix) = field.strip_suffix(".$**") {
            tree.insert(prefix);
            return Wildcard { include: true, tree, multikey: BTreeSet::new() };
        }
        let Some(p) = projection.filter(|p| !p.is_empty()) else {
            tree.insert("_id");
            return Wildcard { include: false, tree, multikey: BTreeSet::new() };
        };
        let truthy = |v: &Bson| match v {
            Bson::Boolean(b) => *b,
            other => value::Number::from_bson(other).map(|n| n.to_f64() != 0.0).unwrap_or(true),
        };
        // The kind of projection is decided by its fields other than `_id`.
        let include = p.iter().find(|(k, _)| k.as_str() != "_id").map(|(_, v)| truthy(v)).unwrap_or_else(|| p.get("_id").map(truthy).unwrap_or(false));
        let mut id_mentioned = false;
        for (k, v) in p {
            if k == "_id" {
                id_mentioned = true;
                // `_id: 1` keeps it (in either kind); `_id: 0` leaves it out.
                if truthy(v) == include {
                    tree.insert(k);
                }
                continue;
            }
            if truthy(v) == include {
                tree.insert(k);
            }
        }
        if !id_mentioned && !include {
            tree.insert("_id");
        }
        Wildcard { include, tree, multikey: BTreeSet::new() }
    }

    /// Whether the index holds keys for query path `path` (dotted), as the server's
    /// `applyProjectionToFields` decides: a document holding only that path keeps it once
    /// projected.
    pub fn covers(&self, path: &str) -> bool {
        let mut node = &self.tree;
        for part in path.split('.') {
            match node {
                Node::Leaf => return self.include,
                Node::Children(map) => match map.get(part) {
                    Some(n) => node = n,
                    None => return !self.include,
                },
            }
        }
        match node {
            Node::Leaf => self.include,
            // The path stops above a projected subtree: a value there is a leaf, which an
            // inclusion drops and an exclusion keeps.
            Node::Children(_) => !self.include,
        }
    }

    /// The keys of `doc` (`(path, value)`, each once, in the generator's order) and the paths
    /// of the arrays met.
    pub fn keys(&self, doc: &Document) -> (Vec<(String, Bson)>, Vec<String>) {
        let mut out = KeyOut { keys: Vec::new(), seen: std::collections::HashSet::new(), multikey: Vec::new(), multikey_seen: std::collections::HashSet::new() };
        let mut path = String::new();
        if self.only_id_excluded() {
            traverse_doc(doc, &mut path, &mut out, true);
        } else {
            traverse_doc(&self.project_doc(doc, &self.tree), &mut path, &mut out, false);
        }
        (out.keys, out.multikey)
    }

    /// The default projection of `$**`: everything but `_id`.
    fn only_id_excluded(&self) -> bool {
        !self.include && matches!(&self.tree, Node::Children(m) if m.len() == 1 && matches!(m.get("_id"), Some(Node::Leaf)))
    }

    /// The projection of a document under node `node`.
    fn project_doc(&self, doc: &Document, node: &Node) -> Document {
        let Node::Children(map) = node else {
            return if self.include { doc.clone() } else { Document::new() };
        };
        let mut out = Document::new();
        for (k, v) in doc {
            match map.get(k) {
                Some(Node::Leaf) => {
                    if self.include {
                        out.insert(k.clone(), v.clone());
                    }
                }
                Some(child) => {
                    if let Some(p) = self.project_value(v, child) {
                        out.insert(k.clone(), p);
                    }
                }
                None => {
                    if !self.include {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        out
    }

    /// The projection of a value under a node still to descend: documents are projected,
    /// arrays element by element (arrays nested in arrays are not descended: an inclusion
    /// drops them, an exclusion keeps them whole), and other values are dropped by an
    /// inclusion, kept by an exclusion.
    fn project_value(&self, v: &Bson, node: &Node) -> Option<Bson> {
        match v {
            Bson::Document(d) => Some(Bson::Document(self.project_doc(d, node))),
            Bson::Array(a) => Some(Bson::Array(
                a.iter()
                    .filter_map(|e| match e {
                        Bson::Document(d) => Some(Bson::Document(self.project_doc(d, node))),
                        other if !self.include => Some(other.clone()),
                        _ => None,
                    })
                    .collect(),
            )),
            other if !self.include => Some(other.clone()),
            _ => None,
        }
    }
}

/// The key generator's walk of a (projected) document at `path` (`""` at the root);
/// `skip_id` leaves the top-level `_id` out (the default projection, without copying).
fn traverse_doc(doc: &Document, path: &mut String, out: &mut KeyOut, skip_id: bool) {
    for (k, v) in doc {
        if k.contains('.') || (skip_id && k == "_id") {
            continue;
        }
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k);
        visit(v, false, path, out);
        path.truncate(len);
    }
}

/// One value at `path`; `in_array` for an element of an array (which keeps the array's path).
fn visit(v: &Bson, in_array: bool, path: &mut String, out: &mut KeyOut) {
    match v {
        // An array in an array is a value.
        Bson::Array(_) if in_array => out.key(path, v.clone()),
        Bson::Array(a) => {
            out.multikey(path);
            if a.is_empty() {
                out.key(path, Bson::Undefined);
            }
            for e in a {
                visit(e, true, path, out);
            }
        }
        Bson::Document(d) if d.is_empty() => out.key(path, v.clone()),
        Bson::Document(d) => traverse_doc(d, path, out, false),
        other => out.key(path, other.clone()),
    }
}

struct KeyOut {
    keys: Vec<(String, Bson)>,
    seen: std::collections::HashSet<(String, Vec<u8>)>,
    multikey: Vec<String>,
    multikey_seen: std::collections::HashSet<String>,
}

impl KeyOut {
    fn key(&mut self, path: &str, v: Bson) {
        if self.seen.insert((path.to_string(), value::hash_key(&v))) {
            self.keys.push((path.to_string(), v));
        }
    }

    fn multikey(&mut self, path: &str) {
        if self.multikey_seen.insert(path.to_string()) {
            self.multikey.push(path.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn keys(field: &str, proj: Option<Document>, d: Document) -> (Vec<(String, Bson)>, Vec<String>) {
        Wildcard::new(field, proj.as_ref()).keys(&d)
    }

    #[test]
    fn leaves_arrays_and_empties() {
        let (k, m) = keys("$**", None, doc! {"_id": 1, "a": {"b": 1, "c": [2, {"d": 3}, [4]], "e": {}, "f": []}, "x.y": 5});
        assert_eq!(
            k,
            vec![
                ("a.b".into(), Bson::Int32(1)),
                ("a.c".into(), Bson::Int32(2)),
                ("a.c.d".into(), Bson::Int32(3)),
                ("a.c".into(), Bson::Array(vec![Bson::Int32(4)])),
                ("a.e".into(), Bson::Document(Document::new())),
                ("a.f".into(), Bson::Undefined),
            ]
        );
        assert_eq!(m, vec!["a.c".to_string(), "a.f".to_string()]);
    }

    #[test]
    fn prefix_and_projections() {
        let (k, _) = keys("specs.$**", None, doc! {"_id": 1, "specs": {"color": "red"}, "name": "x"});
        assert_eq!(k, vec![("specs.color".into(), Bson::String("red".into()))]);
        let (k, _) = keys("$**", Some(doc! {"a.b": 1}), doc! {"a": {"c": 1}, "z": 2});
        assert_eq!(k, vec![("a".into(), Bson::Document(Document::new()))]);
        let (k, _) = keys("$**", Some(doc! {"a": 0, "_id": 1}), doc! {"_id": 7, "a": 1, "b": 2});
        assert_eq!(k, vec![("_id".into(), Bson::Int32(7)), ("b".into(), Bson::Int32(2))]);
        let w = Wildcard::new("specs.$**", None);
        assert!(w.covers("specs") && w.covers("specs.color") && !w.covers("spec") && !w.covers("name"));
        let all = Wildcard::new("$**", None);
        assert!(all.covers("a.b") && !all.covers("_id") && !all.covers("_id.x"));
        let inc = Wildcard::new("$**", Some(&doc! {"a.b": 1}));
        assert!(inc.covers("a.b.c") && !inc.covers("a") && !inc.covers("c"));
    }
}
