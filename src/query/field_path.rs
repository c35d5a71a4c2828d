//! Field paths as the server's `FieldPath` accepts them (projections, sort keys).

use crate::error::{Error, Result};

/// Validates a dotted field path: not empty, no empty component, no component starting with `$`
/// (except the DBRef fields `$id`, `$ref`, `$db`).
pub fn validate(path: &str) -> Result<()> {
    if path.is_empty() {
        return Err(Error::code(40352, "FieldPath cannot be constructed with empty string"));
    }
    for part in path.split('.') {
        if part.is_empty() {
            return Err(Error::code(15998, "FieldPath field names may not be empty strings."));
        }
        if part.starts_with('$') && !matches!(part, "$id" | "$ref" | "$db") {
            return Err(Error::code(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."));
        }
    }
    Ok(())
}
