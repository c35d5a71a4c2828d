//! `$pop`: removes the last (`1`) or first (`-1`) element of an array. A missing field or an empty
//! array is a no-op; a non-array is an error.

use bson::Bson;

use crate::error::{Error, Result};
use crate::query::int_arg::to_long as integer_argument;
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::types::type_name;

#[derive(Debug, Clone)]
pub(crate) struct Pop {
    front: bool,
}

pub(crate) fn parse(field: &str, v: &Bson) -> Result<Pop> {
    let n = integer_argument(field, v)?;
    if n != 1 && n != -1 {
        return Err(Error::failed_to_parse(format!("$pop expects 1 or -1, found: {n}")));
    }
    Ok(Pop { front: n == -1 })
}

impl Modifier for Pop {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        let Bson::Array(items) = elem else {
            return Err(Error::type_mismatch(format!(
                "Path '{}' contains an element of non-array type '{}'",
                c.path,
                type_name(elem)
            )));
        };
        if items.is_empty() {
            return Ok(Outcome::NoOp);
        }
        if self.front {
            items.remove(0);
        } else {
            items.pop();
        }
        Ok(Outcome::Updated)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(None)
    }
}
