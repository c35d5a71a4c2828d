//! `$rename`: moves a field's value to a new path (a `$set` of the destination and an `$unset`
//! of the source). Neither path may run through an array; a missing source is a no-op.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::update::path::{get_mut, is_array_filter, is_positional, parse_index, resolve};
use crate::value::display;
use crate::update::tree::{check_immutable, create, lookup, validate_at, Ctx};

#[derive(Debug, Clone)]
pub(crate) struct Rename {
    from: Vec<String>,
    from_dotted: String,
    to_dotted: String,
}

/// Checks a `{ from: "to" }` pair (`RenameNode::init`); the caller has checked that `to` is a
/// string and both paths are valid update paths.
pub(crate) fn parse(field: &str, v: &Bson) -> Result<Rename> {
    let Bson::String(to) = v else {
        return Err(Error::bad_value(format!("The 'to' field for $rename must be a string: {}", display::element(field, v))));
    };
    if to.contains('\0') {
        return Err(Error::bad_value("The 'to' field for $rename cannot contain an embedded null byte"));
    }
    let from: Vec<&str> = field.split('.').collect();
    let dest: Vec<&str> = to.split('.').collect();
    if from == dest {
        return Err(Error::bad_value(format!(
            "The source and target field for $rename must differ: {}",
            display::element(field, v)
        )));
    }
    if from.starts_with(&dest) || dest.starts_with(&from) {
        return Err(Error::bad_value(format!(
            "The source and target field for $rename must not be on the same path: {}",
            display::element(field, v)
        )));
    }
    let dynamic = |parts: &[&str]| parts.iter().any(|p| is_positional(p) || is_array_filter(p));
    if dynamic(&from) {
        return Err(Error::bad_value(format!("The source field for $rename may not be dynamic: {field}")));
    }
    if dynamic(&dest) {
        return Err(Error::bad_value(format!("The destination field for $rename may not be dynamic: {to}")));
    }
    Ok(Rename { from: from.iter().map(|s| s.to_string()).collect(), from_dotted: field.to_string(), to_dotted: to.clone() })
}

impl Rename {
    /// Applies the rename; `to` is the destination path the tree led to.
    pub(crate) fn apply(&self, root: &mut Bson, to: &[String], cx: &mut Ctx) -> Result<()> {
        // Find the source (`findLongestPrefix`): missing is a no-op, a path through a scalar (or
        // a non-numeric component through an array) is an error.
        let mut cur: &Bson = root;
        for (i, part) in self.from.iter().enumerate() {
            let next = match cur {
                Bson::Document(d) => d.get(part),
                Bson::Array(a) if parse_index(part).is_some() => parse_index(part).and_then(|ix| a.get(ix)),
                _ => {
                    let name = if i > 0 { self.from[i - 1].as_str() } else { "" };
                    return Err(Error::new(
                        ErrorKind::PathNotViable,
                        format!(
                            "cannot use the part ({name} of {}) to traverse the element ({{{}}})",
                            self.from_dotted,
                            display::element(name, cur)
                        ),
                    ));
                }
            };
            match next {
                Some(n) => cur = n,
                None => return Ok(()),
            }
        }
        let value = cur.clone();
        // Neither the source nor the destination may sit inside an array.
        for k in (1..self.from.len()).rev() {
            if let Some(Bson::Array(_)) = lookup(root, &self.from[..k]) {
                return Err(Error::bad_value(format!(
                    "The source field cannot be an array element, '{}' in doc with {} has an array field called '{}'",
                    self.from_dotted,
                    cx.id,
                    self.from[k - 1]
                )));
            }
        }
        let (found, _) = resolve(root, to);
        let top = if found == to.len() { to.len() - 1 } else { found };
        for k in (1..=top).rev() {
            if let Some(Bson::Array(_)) = lookup(root, &to[..k]) {
                return Err(Error::bad_value(format!(
                    "The destination field cannot be an array element, '{}' in doc with {} has an array field called '{}'",
                    self.to_dotted,
                    cx.id,
                    to[k - 1]
                )));
            }
        }
        // Set the destination.
        if found == to.len() {
            let dest = get_mut(root, to).ok_or_else(|| super::internal("destination vanished"))?;
            // Binary identity, as the server's set node: an equal number of another type is a change.
            if !crate::update::modifier::identical(dest, &value) {
                *dest = value;
                check_immutable(to)?;
                validate_at(root, to, cx)?;
                cx.record(to.join("."));
            }
        } else {
            create(root, to, found, value, cx)?;
        }
        // Remove the source.
        let (last, parent) = self.from.split_last().ok_or_else(|| super::internal("empty path"))?;
        if let Some(Bson::Document(d)) = get_mut(root, parent) {
            d.remove(last);
        }
        if self.from[0] == "_id" {
            return Err(Error::new(
                ErrorKind::ImmutableField,
                format!("Unsetting the path '{}' using $rename would modify the immutable field '_id'", self.from_dotted),
            ));
        }
        cx.record(self.from_dotted.clone());
        Ok(())
    }
}
