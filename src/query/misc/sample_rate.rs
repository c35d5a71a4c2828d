//! `$sampleRate: p`: matches each document with probability `p` (the environment's seeded
//! random source, so tests and lessons are repeatable).

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::query::node::{Cx, DocPredicate, Node};
use crate::query::parser::{Level, ParseCx};
use crate::value::Number;

#[derive(Debug, Clone)]
pub(crate) struct SampleRate(f64);

impl DocPredicate for SampleRate {
    fn matches_doc(&self, _doc: &Document, cx: &mut Cx) -> Result<bool> {
        Ok(cx.env.random() < self.0)
    }
}

pub(crate) fn parse(_op: &str, arg: &Bson, _pc: &ParseCx, level: Level) -> Result<Option<Node>> {
    if level == Level::SubDocument {
        return Err(Error::bad_value("$sampleRate can only be applied to the top-level document"));
    }
    let Some(n) = Number::from_bson(arg) else {
        return Err(Error::bad_value("argument to $sampleRate must be a numeric type"));
    };
    let x = n.to_f64();
    if !(0.0..=1.0).contains(&x) {
        return Err(Error::bad_value("numeric argument to $sampleRate must be in [0, 1]"));
    }
    Ok(Some(Node::doc(SampleRate(x))))
}
