//! `$addToSet`: appends a value (or each `$each` value) unless an equal value is already in the
//! array; equality is the server's (`1` equals `1.0`, documents compare field by field in order).

use bson::Bson;

use crate::error::{Error, Result};
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::types::type_name;
use crate::value::{equal, hash_key};

#[derive(Debug, Clone)]
pub(crate) struct AddToSet {
    values: Vec<Bson>,
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<AddToSet> {
    let mut values = vec![v.clone()];
    if let Bson::Document(d) = v {
        if let Some((first, each)) = d.iter().next() {
            if first == "$each" {
                values = super::each::parse_for_add_to_set(each)?;
                if d.len() > 1 {
                    return Err(Error::bad_value(format!(
                        "Found unexpected fields after $each in $addToSet: {}",
                        crate::value::display::document(d)
                    )));
                }
            }
        }
    }
    // Duplicates among the values themselves are dropped, first one kept.
    let mut seen = std::collections::HashSet::new();
    values.retain(|x| seen.insert(hash_key(x)));
    Ok(AddToSet { values })
}

impl Modifier for AddToSet {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        let Bson::Array(items) = elem else {
            return Err(Error::bad_value(format!(
                "Cannot apply $addToSet to non-array field. Field named '{}' has non-array type {}",
                c.field,
                type_name(elem)
            )));
        };
        let to_add: Vec<Bson> = self.values.iter().filter(|v| !items.iter().any(|e| equal(e, v))).cloned().collect();
        if to_add.is_empty() {
            return Ok(Outcome::NoOp);
        }
        items.extend(to_add);
        Ok(Outcome::Updated)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(Bson::Array(self.values.clone())))
    }
}
