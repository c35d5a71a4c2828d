//! `$max`: sets the field when the argument sorts after the current value (BSON order across
//! types); creates a missing field.

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{Modifier, OpCtx, Outcome};

use super::Compare;

#[derive(Debug, Clone)]
pub(crate) struct Max(pub Compare);

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<Max> {
    Ok(Max(Compare { arg: v.clone(), max: true }))
}

impl Modifier for Max {
    fn update_existing(&self, elem: &mut Bson, _c: &mut OpCtx) -> Result<Outcome> {
        self.0.update_existing(elem)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.0.arg.clone()))
    }
}
