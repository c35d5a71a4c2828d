//! Array expression operators.

pub mod concat_arrays;
pub mod elem_at;
pub mod filter;
pub mod in_;
pub mod index_of_array;
pub mod is_array;
pub mod map;
pub mod n_elements;
pub mod object_array;
pub mod range;
pub mod reduce;
pub mod reverse_array;
pub mod size;
pub mod slice;
pub mod sort_array;
pub mod zip;

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
