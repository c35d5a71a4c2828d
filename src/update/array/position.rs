//! `$position`: where `$push` inserts its `$each` values (negative counts from the end; past the
//! end appends; zero or far negative inserts at the front).

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::int_arg::to_long as integer_argument;
use crate::value::types::type_name;

pub(crate) fn parse(v: &Bson) -> Result<i64> {
    integer_argument("$position", v).map_err(|_| {
        Error::bad_value(format!("The value for $position must be an integer value, not of type: {}", type_name(v)))
    })
}

/// Inserts `values` into `items` at `position` (`PushNode::insertElementsWithPosition`).
pub(crate) fn insert(items: &mut Vec<Bson>, position: i64, values: &[Bson]) {
    if values.is_empty() {
        return;
    }
    let size = items.len() as i64;
    let at = if size == 0 || position > size {
        size
    } else if position > 0 {
        position
    } else if position < 0 && position.unsigned_abs() < size as u64 {
        size + position
    } else {
        0
    };
    let at = at.clamp(0, size) as usize;
    items.splice(at..at, values.iter().cloned());
}
