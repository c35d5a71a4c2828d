//! `$slice`: trims the array `$push` produced to its first (positive) or last (negative) N
//! elements.

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::int_arg::to_long as integer_argument;
use crate::value::types::type_name;

pub(crate) fn parse(v: &Bson) -> Result<i64> {
    integer_argument("$slice", v).map_err(|_| {
        Error::bad_value(format!("The value for $slice must be an integer value but was given type: {}", type_name(v)))
    })
}

/// Applies the slice; true when it removed anything.
pub(crate) fn apply(items: &mut Vec<Bson>, slice: i64) -> bool {
    let keep = if slice == i64::MIN { i64::MAX as u64 } else { slice.unsigned_abs() };
    let len = items.len() as u64;
    if len <= keep {
        return false;
    }
    let keep = keep as usize;
    if slice >= 0 {
        items.truncate(keep);
    } else {
        let drop = items.len() - keep;
        items.drain(..drop);
    }
    true
}
