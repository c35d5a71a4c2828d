//! `$count: {}`: the number of documents in the group (int32, int64 past 2^31).

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::accumulator::{Accumulator, Reads, State};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::VarScope;

pub(crate) fn parse(_name: &'static str, arg: &Bson, _scope: &VarScope) -> Result<Arc<dyn Accumulator>> {
    match arg {
        Bson::Document(d) if d.is_empty() => Ok(Arc::new(Count)),
        _ => Err(Error::type_mismatch("$count takes no arguments, i.e. $count:{}")),
    }
}

#[derive(Debug)]
struct Count;

struct CountState(i64);

impl Accumulator for Count {
    fn start<'s>(&'s self, _id: &Bson, _env: &Env) -> Result<Box<dyn State + 's>> {
        Ok(Box::new(CountState(0)))
    }

    fn reads(&self) -> Reads<'_> {
        Reads::Nothing
    }
}

impl State for CountState {
    fn add(&mut self, _doc: &Document, _env: &Env) -> Result<()> {
        self.0 += 1;
        Ok(())
    }

    fn add_value(&mut self, _v: Option<&Bson>) -> Result<()> {
        self.0 += 1;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Bson> {
        Ok(match i32::try_from(self.0) {
            Ok(i) => Bson::Int32(i),
            Err(_) => Bson::Int64(self.0),
        })
    }
}
