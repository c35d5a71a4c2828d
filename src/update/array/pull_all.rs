//! `$pullAll`: removes every array element equal to one of the listed values.

use bson::Bson;

use crate::error::{Error, Result};
use crate::update::modifier::{Modifier, OpCtx, Outcome};
use crate::value::equal;
use crate::value::types::type_name;

#[derive(Debug, Clone)]
pub(crate) struct PullAll {
    values: Vec<Bson>,
}

pub(crate) fn parse(_field: &str, v: &Bson) -> Result<PullAll> {
    match v {
        Bson::Array(a) => Ok(PullAll { values: a.clone() }),
        other => Err(Error::bad_value(format!("$pullAll requires an array argument but was given a {}", type_name(other)))),
    }
}

impl Modifier for PullAll {
    fn update_existing(&self, elem: &mut Bson, _c: &mut OpCtx) -> Result<Outcome> {
        super::cull(elem, |item| Ok(self.values.iter().any(|v| equal(item, v))))
    }

    fn new_value(&self, _c: &mut OpCtx) -> Result<Option<Bson>> {
        Ok(None)
    }
}
