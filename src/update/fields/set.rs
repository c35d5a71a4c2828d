//! `$set`: replaces the value of a field, creating the path when it is missing. Setting a value
//! binary-identical to the current one is a no-op (`1.0` over `1` is a modification).

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{identical, Modifier, OpCtx, Outcome};

#[derive(Debug, Clone)]
pub(crate) struct Set {
    pub value: Bson,
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<Set> {
    Ok(Set { value: v.clone() })
}

impl Modifier for Set {
    fn update_existing(&self, elem: &mut Bson, _c: &mut OpCtx) -> Result<Outcome> {
        if identical(elem, &self.value) {
            return Ok(Outcome::NoOp);
        }
        *elem = self.value.clone();
        Ok(Outcome::Updated)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.value.clone()))
    }
}
