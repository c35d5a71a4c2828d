//! `$unset`: removes a field; on an array element it sets the element to `null` instead, so the
//! array keeps its length. A missing path (even one through a scalar) is a no-op.

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{Modifier, OpCtx, Outcome};

#[derive(Debug, Clone)]
pub(crate) struct Unset;

pub(crate) fn parse(_field: &str, _v: &Bson) -> Result<Unset> {
    Ok(Unset)
}

impl Modifier for Unset {
    fn update_existing(&self, _elem: &mut Bson, _c: &mut OpCtx) -> Result<Outcome> {
        Ok(Outcome::Removed)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(None)
    }

    fn allow_non_viable(&self) -> bool {
        true
    }
}
