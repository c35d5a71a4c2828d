//! `$last`: the value of the group's last document (missing becomes null).

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<LastFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct LastFold(Option<Bson>);

impl Fold for LastFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        self.0 = Some(v.cloned().unwrap_or(Bson::Null));
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(self.0.unwrap_or(Bson::Null))
    }
}
