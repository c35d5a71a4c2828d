//! `$each`: the list of values `$push` and `$addToSet` add, instead of one value.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::value::types::type_name;

/// The values of a `$push` `$each` clause.
pub(crate) fn parse_for_push(v: &Bson) -> Result<Vec<Bson>> {
    match v {
        Bson::Array(a) => Ok(a.clone()),
        other => Err(Error::bad_value(format!(
            "The argument to $each in $push must be an array but it was of type: {}",
            type_name(other)
        ))),
    }
}

/// The values of an `$addToSet` `$each` clause.
pub(crate) fn parse_for_add_to_set(v: &Bson) -> Result<Vec<Bson>> {
    match v {
        Bson::Array(a) => Ok(a.clone()),
        other => Err(Error::new(
            ErrorKind::TypeMismatch,
            format!("The argument to $each in $addToSet must be an array but it was of type {}", type_name(other)),
        )),
    }
}
