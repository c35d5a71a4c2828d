//! Array expression operators.

pub mod concat_arrays;
pub mod filter;
pub mod map;
pub mod reduce;
pub mod size;

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::field_path::validate_name_for_write;

/// The variable name of `as` (default `this`): a string, else the empty name the server rejects.
pub(crate) fn as_name(v: Option<&Bson>, default: &str) -> Result<String> {
    let name = match v {
        None => default.to_string(),
        Some(Bson::String(s)) => s.clone(),
        Some(_) => String::new(),
    };
    validate_name_for_write(&name)?;
    Ok(name)
}

/// Error for a named-argument operator given a non-object.
pub(crate) fn object_arg_error(code: i32, name: &str) -> Error {
    Error::code(code, format!("{name} only supports an object as its argument"))
}
