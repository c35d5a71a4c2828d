//! What an in-place update keeps aside so that a failed write leaves the stored document as it
//! was. An operator update changes only the top-level fields its paths start with, so only those
//! are kept: a copy of each one's value, or, for an array that the update can only append to
//! (`$push` without `$position`/`$sort`/`$slice`, `$addToSet`), its length. Appending a reading
//! to a bucket of 200 keeps one number aside, not the bucket.

use bson::{Bson, Document};

use super::registry::Op;
use super::tree::Node;

/// What restores a document after a failed in-place update (see [`super::Update::undo_point`]).
#[derive(Debug)]
pub struct Undo(Kept);

#[derive(Debug)]
enum Kept {
    /// A replacement or a pipeline may change anything: the whole document.
    Whole(Document),
    Fields {
        fields: Vec<(String, Field)>,
        /// The top-level field order, kept when the update may remove a top-level field (the
        /// field comes back at its place, not at the end).
        order: Option<Vec<String>>,
    },
}

#[derive(Debug)]
enum Field {
    Absent,
    Value(Bson),
    /// An array that the update only appends to: its length.
    Len(usize),
}

/// The operator at `node` when it is a leaf.
fn leaf(node: &Node) -> Option<&Op> {
    match node {
        Node::Leaf(op) => Some(op),
        _ => None,
    }
}

/// True for an operator that only appends to an existing array.
pub(crate) fn appends_only(op: &Op) -> bool {
    match op {
        Op::Push(p) => p.appends_only(),
        Op::AddToSet(_) => true,
        _ => false,
    }
}

/// True for an operator that may remove the top-level field it is placed at.
fn may_remove(op: &Op) -> bool {
    matches!(op, Op::Unset(_) | Op::Placeholder)
}

impl Undo {
    /// Everything (for updates that rebuild the document).
    pub(crate) fn whole(doc: &Document) -> Undo {
        Undo(Kept::Whole(doc.clone()))
    }

    /// The top-level fields `fields` (the tree's first path components) of `doc`.
    pub(crate) fn fields<'a>(fields: impl Iterator<Item = (&'a str, &'a Node)>, doc: &Document) -> Undo {
        let mut kept = Vec::new();
        let mut removing = false;
        for (name, node) in fields {
            let op = leaf(node);
            removing |= op.is_some_and(may_remove);
            let field = match doc.get(name) {
                None => Field::Absent,
                Some(Bson::Array(a)) if op.is_some_and(appends_only) => Field::Len(a.len()),
                Some(v) => Field::Value(v.clone()),
            };
            kept.push((name.to_string(), field));
        }
        let order = removing.then(|| doc.keys().cloned().collect());
        Undo(Kept::Fields { fields: kept, order })
    }

    /// True when the update may change top-level field `name`.
    pub fn touches(&self, name: &str) -> bool {
        match &self.0 {
            Kept::Whole(_) => true,
            Kept::Fields { fields, .. } => fields.iter().any(|(n, _)| n == name),
        }
    }

    /// The values of `doc` the update may have changed or added, each with its nesting level (1
    /// for a top-level field): the touched top-level fields, of an array the update only appends
    /// to just the elements past its old length. Everything else is as it was stored.
    pub fn changed_values<'d>(&self, doc: &'d Document) -> Vec<(&'d Bson, usize)> {
        let Kept::Fields { fields, .. } = &self.0 else {
            return doc.values().map(|v| (v, 1)).collect();
        };
        let mut out = Vec::new();
        for (name, field) in fields {
            match (doc.get(name), field) {
                (Some(Bson::Array(a)), Field::Len(n)) => out.extend(a.get(*n..).unwrap_or_default().iter().map(|v| (v, 2))),
                (Some(v), _) => out.push((v, 1)),
                (None, _) => {}
            }
        }
        out
    }

    /// Puts the document back as it was when this was taken.
    pub fn restore(self, doc: &mut Document) {
        let (fields, order) = match self.0 {
            Kept::Whole(d) => {
                *doc = d;
                return;
            }
            Kept::Fields { fields, order } => (fields, order),
        };
        for (name, field) in fields {
            match field {
                Field::Absent => {
                    doc.remove(&name);
                }
                Field::Value(v) => {
                    doc.insert(name, v);
                }
                Field::Len(n) => match doc.get_mut(&name) {
                    Some(Bson::Array(a)) => a.truncate(n),
                    // An append-only operator leaves an array an array; be safe regardless.
                    _ => debug_assert!(false, "an appended array stopped being an array"),
                },
            }
        }
        if let Some(order) = order {
            if !doc.keys().eq(order.iter()) {
                let mut old = std::mem::take(doc);
                for k in order {
                    if let Some(v) = old.remove(&k) {
                        doc.insert(k, v);
                    }
                }
            }
        }
    }
}
