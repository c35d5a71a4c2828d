//! `$addToSet`: the distinct values of the group (missing left out). The server's order is that
//! of a hash set, which is unspecified; the engine keeps first-seen order.

use std::collections::HashSet;
use std::sync::Arc;

use bson::Bson;

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::error::Result;
use crate::expr::VarScope;
use crate::value::hash_key;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<SetFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct SetFold {
    seen: HashSet<Vec<u8>, crate::value::KeyHasher>,
    values: Vec<Bson>,
}

impl Fold for SetFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        if let Some(v) = v {
            if self.seen.insert(hash_key(v)) {
                self.values.push(v.clone());
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Bson> {
        Ok(Bson::Array(self.values))
    }
}
