//! `$push`: appends a value, or with `$each` several values, optionally placed by `$position`,
//! then ordered by `$sort` and trimmed by `$slice`. A missing field is created as an array.

use bson::Bson;

use crate::error::{Error, Result};
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::types::type_name;

use super::sort::SortSpec;

#[derive(Debug, Clone)]
pub(crate) struct Push {
    values: Vec<Bson>,
    slice: Option<i64>,
    sort: Option<SortSpec>,
    position: i64,
}

const CLAUSES: [&str; 4] = ["$each", "$slice", "$sort", "$position"];

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<Push> {
    let d = match v {
        Bson::Document(d) if d.contains_key("$each") => d,
        _ => return Ok(Push { values: vec![v.clone()], slice: None, sort: None, position: i64::MAX }),
    };
    let mut seen: Vec<&str> = Vec::new();
    for k in d.keys() {
        let Some(name) = CLAUSES.iter().find(|c| **c == k.as_str()) else {
            return Err(Error::bad_value(format!("Unrecognized clause in $push: {k}")));
        };
        if seen.contains(name) {
            return Err(Error::bad_value(format!("Only one {name} is supported.")));
        }
        seen.push(name);
    }
    let values = super::each::parse_for_push(d.get("$each").unwrap_or(&Bson::Null))?;
    let slice = d.get("$slice").map(super::slice::parse).transpose()?;
    let sort = d.get("$sort").map(super::sort::parse).transpose()?;
    let position = d.get("$position").map(super::position::parse).transpose()?.unwrap_or(i64::MAX);
    Ok(Push { values, slice, sort, position })
}

impl Push {
    /// True when the operator only appends to an existing array (no `$position`, `$sort` or
    /// `$slice`).
    pub(crate) fn appends_only(&self) -> bool {
        self.position == i64::MAX && self.sort.is_none() && self.slice.is_none()
    }

    /// The values an appending push adds (see [`Push::appends_only`]).
    pub(crate) fn values(&self) -> &[Bson] {
        &self.values
    }

    /// `PushNode::performPush` on an array; returns whether anything changed.
    fn perform(&self, items: &mut Vec<Bson>) -> bool {
        let mut changed = !self.values.is_empty();
        super::position::insert(items, self.position, &self.values);
        if let Some(sort) = &self.sort {
            // The server reports a modification whenever a $sort is given.
            changed = true;
            super::sort::apply(items, sort);
        }
        if let Some(slice) = self.slice {
            changed |= super::slice::apply(items, slice);
        }
        changed
    }
}

impl Modifier for Push {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        let Bson::Array(items) = elem else {
            return Err(Error::bad_value(format!(
                "The field '{}' must be an array but is of type {} in document {{{}}}",
                c.path,
                type_name(elem),
                c.id
            )));
        };
        Ok(if self.perform(items) { Outcome::Updated } else { Outcome::NoOp })
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        let mut items = Vec::new();
        self.perform(&mut items);
        Ok(Some(Bson::Array(items)))
    }
}
