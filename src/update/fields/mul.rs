//! `$mul`: multiplies a number with the server's promotion. A missing field is created as zero of
//! the argument's type.

use bson::Bson;

use crate::error::Result;
use crate::update::modifier::{Modifier, OpCtx, Outcome};

use super::Arithmetic;

#[derive(Debug, Clone)]
pub(crate) struct Mul(pub Arithmetic);

pub(crate) fn parse(field: &str, v: &Bson) -> Result<Mul> {
    Ok(Mul(Arithmetic::parse(field, v, true)?))
}

impl Modifier for Mul {
    fn update_existing(&self, elem: &mut Bson, c: &mut OpCtx) -> Result<Outcome> {
        self.0.update_existing(elem, c)
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(Some(self.0.new_value()))
    }
}
