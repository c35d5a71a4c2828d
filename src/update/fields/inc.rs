//! `$inc`: adds to a number with the server's promotion (int32 overflow widens to int64; int64
//! overflow is an error). A missing field is created with the increment.

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{Modifier, OpCtx, Outcome};

use super::Arithmetic;

#[derive(Debug, Clone)]
pub(crate) struct Inc(pub Arithmetic);

pub(crate) fn parse(field: &str, v: &Bson) -> Result<Inc> {
    Ok(Inc(Arithmetic::parse(field, v, false)?))
}

impl Modifier for Inc {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        self.0.update_existing(elem, c)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.0.new_value()))
    }
}
