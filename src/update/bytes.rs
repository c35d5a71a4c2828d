//! An operator update applied to a stored document's bytes: when every path of the update is
//! one top-level field that the document has, and every operator is one that computes a value
//! from the old one (`$inc`, `$mul`, `$set`, `$min`, `$max`) or a `$push` that only appends to
//! an array, only those fields' values are decoded (an appended-to array not even that), each
//! operator runs on its value as [`super::tree::apply`] runs it, and the caller writes the
//! stored bytes again with the new values in place (`wire::splice_edits`). Anything else (a
//! missing field, an error, a removal, another operator, `_id`, a `$`-prefixed name) answers
//! `None`: the general path then runs, and says what the server says.

use bson::{Bson, RawDocument};

use super::modifier::{DocId, OpCtx, Outcome};
use super::registry::Op;
use super::tree::{inner_depth, MAX_DEPTH};
use super::{check_size_of, Kind, Update};
use crate::env::Env;
use crate::value::raw::{Element, Elements};
use crate::value::{decimal_digits, value_size};

/// What one touched field becomes.
#[derive(Debug)]
pub enum Edit<'a> {
    /// Unchanged (the operator was a no-op); its value, decoded, for the storage checks.
    Same(Bson),
    /// A new value.
    Value(Bson),
    /// An array that gets these elements appended; it had `len` elements.
    Append { values: &'a [Bson], len: usize },
}

/// An update worked out on a stored document's bytes ([`Update::apply_bytes`]).
#[derive(Debug)]
pub struct BytesUpdate<'a> {
    /// Each touched field: where its element lies in the stored bytes (start, end), its name and
    /// what it becomes, in the order the fields lie.
    pub edits: Vec<(usize, usize, &'a str, Edit<'a>)>,
    /// As [`super::InPlace::changed_paths`] (the update's own names: made into strings only
    /// for the write reports kept).
    pub changed_paths: Vec<&'a str>,
    /// The new BSON size (when something changed).
    pub size: usize,
}

impl BytesUpdate<'_> {
    pub fn modified(&self) -> bool {
        !self.changed_paths.is_empty()
    }

    /// The values the storage checks read (as `Undo::changed_values` gives them): each touched
    /// field's value at level 1, of an appended-to array only the new elements, at level 2.
    pub fn changed_values(&self) -> impl Iterator<Item = (&Bson, usize)> {
        self.edits.iter().flat_map(|(_, _, _, e)| {
            let (one, appended): (Option<&Bson>, &[Bson]) = match e {
                Edit::Same(v) | Edit::Value(v) => (Some(v), &[]),
                Edit::Append { values, .. } => (None, values),
            };
            one.map(|v| (v, 1)).into_iter().chain(appended.iter().map(|v| (v, 2)))
        })
    }
}

impl Update {
    /// This update on the stored document `raw` of BSON size `raw.len()`, when the bytes path
    /// can do it (see the module's notes); `None` otherwise (the general path decides).
    pub fn apply_bytes<'a>(&'a self, raw: &RawDocument, env: &Env) -> Option<BytesUpdate<'a>> {
        let Kind::Modifiers { root, positional: false } = &self.kind else { return None };
        if !self.filters.is_empty() {
            return None;
        }
        // At most `AT_ONCE` fields (else the general path): the update's fields and where each
        // lies in the document, in arrays of the stack (no list made per document).
        const AT_ONCE: usize = 8;
        let mut slots: [(&str, Option<&Op>); AT_ONCE] = [("", None); AT_ONCE];
        let n = root.top_leaves_into(&mut slots)?;
        let leaves = &slots[..n];
        for (name, op) in leaves.iter() {
            let op = (*op)?;
            if name.is_empty() || name.starts_with('$') || *name == "_id" {
                return None;
            }
            match op {
                Op::Inc(_) | Op::Mul(_) | Op::Set(_) | Op::Min(_) | Op::Max(_) => {}
                Op::Push(p) if p.appends_only() => {}
                _ => return None,
            }
        }
        // Each touched field's element: where it lies, its kind and where its value starts.
        let bytes = raw.as_bytes();
        let mut found_at = [None; AT_ONCE];
        let found = &mut found_at[..n];
        for el in Elements::new(bytes) {
            let Element { start, name, kind, value, end } = el?;
            if let Some(i) = leaves.iter().position(|(n, _)| n.as_bytes() == name) {
                if found[i].is_some() {
                    return None;
                }
                found[i] = Some((start, end, kind, value));
            }
        }
        let id = DocId(None);
        let mut timestamps = 0;
        let mut edits = Vec::with_capacity(leaves.len());
        let mut changed_paths = Vec::new();
        let mut size = raw.as_bytes().len();
        for ((name, op), found) in leaves.iter().zip(found.iter().copied()) {
            let op = (*op)?;
            // A missing field is created by the general path.
            let (start, end, kind, value) = found?;
            let edit = match op {
                Op::Push(p) => {
                    if kind != 0x04 {
                        return None;
                    }
                    let values = p.values();
                    let mut len = 0;
                    for el in Elements::new(bytes.get(value..end)?) {
                        el?;
                        len += 1;
                    }
                    if values.is_empty() {
                        edits.push((start, end, *name, Edit::Append { values, len }));
                        continue;
                    }
                    // The tree's check of appended elements.
                    if 1 + values.iter().map(|x| 1 + inner_depth(x, MAX_DEPTH)).max().unwrap_or(0) > MAX_DEPTH {
                        return None;
                    }
                    size += values.iter().enumerate().map(|(i, x)| 1 + decimal_digits(len + i) + 1 + value_size(x)).sum::<usize>();
                    Edit::Append { values, len }
                }
                _ => {
                    let mut value = match (kind, bytes.get(value..end)) {
                        (0x01, Some(v)) => Bson::Double(f64::from_le_bytes(v.try_into().ok()?)),
                        (0x10, Some(v)) => Bson::Int32(i32::from_le_bytes(v.try_into().ok()?)),
                        (0x12, Some(v)) => Bson::Int64(i64::from_le_bytes(v.try_into().ok()?)),
                        _ => {
                            // The crate reads the others (the element alone, as a document of one).
                            let mut one = Vec::with_capacity(end - start + 5);
                            one.extend_from_slice(&((end - start + 5) as i32).to_le_bytes());
                            one.extend_from_slice(bytes.get(start..end)?);
                            one.push(0);
                            let v = RawDocument::from_bytes(&one).ok()?.get(name).ok()??;
                            crate::value::raw::decode_value(v).ok()?
                        }
                    };
                    let m = op.modifier()?;
                    let mut oc = OpCtx { env, field: name, path: name, id: &id, timestamps: &mut timestamps };
                    match m.update_existing(&mut value, &mut oc).ok()? {
                        Outcome::NoOp => {
                            edits.push((start, end, *name, Edit::Same(value)));
                            continue;
                        }
                        Outcome::Removed => return None,
                        Outcome::Updated => {}
                    }
                    if 1 + inner_depth(&value, MAX_DEPTH + 1) > MAX_DEPTH {
                        return None;
                    }
                    size = size - (end - start) + 1 + name.len() + 1 + value_size(&value);
                    Edit::Value(value)
                }
            };
            if !changed_paths.contains(name) {
                changed_paths.push(*name);
            }
            edits.push((start, end, *name, edit));
        }
        if !changed_paths.is_empty() {
            check_size_of(size, false).ok()?;
        }
        edits.sort_by_key(|e| e.0);
        Some(BytesUpdate { edits, changed_paths, size })
    }
}
