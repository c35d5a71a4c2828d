//! What an in-place update keeps aside so that a failed write leaves the stored document as it
//! was. An operator update changes only the top-level fields its paths start with, so only those
//! are kept: a copy of each one's value, or, for an array that the update can only append to
//! (`$push` without `$position`/`$sort`/`$slice`, `$addToSet`), its length. Appending a reading
//! to a bucket of 200 keeps one number aside, not the bucket.

use bson::{Bson, Document};

use super::registry::Op;
use crate::value::{decimal_digits, value_size};
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

    /// The BSON size of `doc` after the update, from `old_size` (the size when this was taken):
    /// less the touched top-level fields' old sizes, plus their new ones; an array the update
    /// appended to adds only its new elements. `None` when only the whole document tells.
    pub(crate) fn size_after(&self, old_size: usize, doc: &Document) -> Option<usize> {
        let Kept::Fields { fields, .. } = &self.0 else { return None };
        let element = |name: &str, v: &Bson| 1 + name.len() + 1 + value_size(v);
        let mut size = old_size;
        for (name, field) in fields {
            let now = doc.get(name);
            match field {
                Field::Len(n) => {
                    let Some(Bson::Array(a)) = now else { return None };
                    let added = a.get(*n..)?.iter().enumerate();
                    size += added.map(|(i, v)| 1 + decimal_digits(n + i) + 1 + value_size(v)).sum::<usize>();
                }
                Field::Absent => size += now.map(|v| element(name, v)).unwrap_or(0),
                Field::Value(old) => size = size.checked_sub(element(name, old))? + now.map(|v| element(name, v)).unwrap_or(0),
            }
        }
        Some(size)
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

#[cfg(test)]
mod tests {
    use bson::{doc, Bson, Document};

    use crate::env::Env;
    use crate::update::Update;
    use crate::value::bson_size;

    /// The size an in-place update computes from the touched fields equals the document's
    /// whole BSON size, for every kind of operator and field it touches.
    #[test]
    fn size_after_equals_bson_size() {
        let readings: Vec<Bson> = (0..9).map(|i| Bson::Document(doc! {"t": i, "v": 1.5})).collect();
        let base = doc! {"_id": 1, "s": "x", "n": 5, "a": [1, 2, 3], "r": readings, "o": {"p": {"q": 1}, "l": [1, "two"]}, "z": null};
        let updates: Vec<Document> = vec![
            doc! {"$push": {"r": {"t": 9, "v": 2.5}}},
            doc! {"$push": {"r": {"$each": [{"t": 9}, {"t": 10, "v": "long string value"}]}}},
            doc! {"$push": {"new": 1}},
            doc! {"$push": {"a": {"$each": [4], "$position": 0}}},
            doc! {"$push": {"a": {"$each": [9, 0], "$sort": 1, "$slice": 3}}},
            doc! {"$addToSet": {"a": {"$each": [3, 4, 5]}}},
            doc! {"$inc": {"n": 1, "sum": 2.5}, "$push": {"r": {"t": 1}}, "$setOnInsert": {"u": "C"}},
            doc! {"$inc": {"n": 2_147_483_647}},
            doc! {"$set": {"s": "a much longer string than before"}},
            doc! {"$set": {"o.p.q": "deep", "o.l.1": {"x": [1]}}},
            doc! {"$set": {"o.new.path": 1}},
            doc! {"$unset": {"s": "", "o.p": ""}},
            doc! {"$unset": {"missing": ""}, "$set": {"n": 6}},
            doc! {"$rename": {"s": "t", "n": "o.m"}},
            doc! {"$pop": {"a": 1}, "$pull": {"r": {"t": {"$lt": 4}}}},
            doc! {"$pullAll": {"o.l": [1]}},
            doc! {"$mul": {"n": 2.5}, "$min": {"z": -1}, "$max": {"x": Bson::MaxKey}},
            doc! {"$bit": {"n": {"or": 1024i64}}},
            doc! {"$currentDate": {"d": true, "ts": {"$type": "timestamp"}}},
            doc! {"$set": {"a.$[]": "all"}},
            doc! {"$set": {"r.10.t": 1}},
        ];
        let env = Env::new(bson::DateTime::from_millis(0));
        for u in updates {
            let update = Update::parse(&Bson::Document(u.clone()), None).unwrap();
            let mut d = base.clone();
            let undo = update.undo_point(&d);
            let r = update.apply_stored_in_place(&mut d, None, &env, &undo, bson_size(&base)).unwrap();
            assert!(r.modified, "{u}");
            assert_eq!(r.size, bson_size(&d), "{u}");
        }
    }
}
