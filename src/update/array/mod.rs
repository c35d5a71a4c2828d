//! Array update operators (the manual's "Array" family): `$addToSet`, `$pop`, `$pull`, `$push`,
//! `$pullAll`, and the `$push`/`$addToSet` modifiers `$each`, `$position`, `$slice`, `$sort`.

pub mod add_to_set;
pub mod each;
pub mod pop;
pub mod position;
pub mod pull;
pub mod pull_all;
pub mod push;
pub mod slice;
pub mod sort;

use bson::Bson;

use crate::error::{Error, Result};
use crate::update::modifier::Outcome;

/// Removes the elements `matches` selects from an array (the server's `ArrayCullingNode`, shared
/// by `$pull` and `$pullAll`).
pub(crate) fn cull(elem: &mut Bson, mut matches: impl FnMut(&Bson) -> Result<bool>) -> Result<Outcome> {
    let Bson::Array(items) = elem else {
        return Err(Error::bad_value("Cannot apply $pull to a non-array value"));
    };
    let mut kept = Vec::with_capacity(items.len());
    let mut removed = 0usize;
    for item in items.iter() {
        if matches(item)? {
            removed += 1;
        } else {
            kept.push(item.clone());
        }
    }
    if removed == 0 {
        return Ok(Outcome::NoOp);
    }
    *items = kept;
    Ok(Outcome::Updated)
}
