//! `$push`: every value of the group in order (missing values left out).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<PushFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct PushFold(Vec<Bson>);

impl Fold for PushFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        if let Some(v) = v {
            self.0.push(v.clone());
        }
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(Bson::Array(self.0))
    }
}
