//! `$mergeObjects`: the group's documents merged in order (later fields win); null and missing
//! ignored; anything else that is not a document is an error (40400).

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{Accumulator, Fold, Unary};
use crate::aggregate::util::{err, tname};
use crate::error::Result;
use crate::expr::VarScope;
use crate::value::display;

pub(crate) fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    Unary::<MergeFold>::parse(name, arg, scope)
}

#[derive(Default)]
pub(crate) struct MergeFold(Document);

impl Fold for MergeFold {
    fn add(&mut self, v: Option<&Bson>) -> Result<()> {
        match v {
            None | Some(Bson::Null) | Some(Bson::Undefined) => Ok(()),
            Some(Bson::Document(d)) => {
                for (k, v) in d {
                    self.0.insert(k.clone(), v.clone());
                }
                Ok(())
            }
            Some(other) => Err(err(
                40400,
                format!("$mergeObjects requires object inputs, but input {} is of type {}", display::stream_value(Some(other)), tname(other)),
            )),
        }
    }

    fn finish(self) -> Result<Bson> {
        Ok(Bson::Document(self.0))
    }
}
