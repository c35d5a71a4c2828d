//! `$setOnInsert`: `$set`, but only when the update inserts a document (an upsert that matched
//! nothing); otherwise it does nothing at all.

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{Modifier, OpCtx, Outcome};

use super::set::Set;

#[derive(Debug, Clone)]
pub(crate) struct SetOnInsert {
    pub set: Set,
}

pub(crate) fn parse(field: &str, v: &Bson) -> Result<SetOnInsert> {
    Ok(SetOnInsert { set: super::set::parse(field, v)? })
}

impl Modifier for SetOnInsert {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        self.set.update_existing(elem, c)
    }

    fn new_value(&self, c: &mut OpCtx) -> Result<Option<Bson>> {
        self.set.new_value(c)
    }

    fn insert_only(&self) -> bool {
        true
    }
}
