//! `$unionWith`: the input documents followed by another collection's documents (through an
//! optional pipeline).

use std::sync::Arc;

use bson::Bson;

use super::lookup::{documents_needs_no_collection, pipeline_array, starts_with_documents};
use crate::aggregate::stage::parse_sub_pipeline;
use crate::aggregate::util::{err, parse_err, tname};
use crate::aggregate::{DocStream, ParseCtx, Pipeline, RunCtx, Stage, Within};
use crate::error::{Error, ErrorKind, Result};

#[derive(Debug)]
pub(crate) struct UnionWith {
    coll: Option<String>,
    pipeline: Pipeline,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let (coll, stages) = match spec {
        Bson::String(s) => (Some(s.clone()), None),
        Bson::Document(d) => {
            let (mut coll, mut stages) = (None, None);
            for (k, v) in d {
                match k.as_str() {
                    "coll" => match v {
                        Bson::String(s) => coll = Some(s.clone()),
                        other => {
                            return Err(Error::new(
                                ErrorKind::TypeMismatch,
                                format!("BSON field '$unionWith.coll' is the wrong type '{}', expected type 'string'", tname(other)),
                            ))
                        }
                    },
                    "pipeline" => stages = Some(pipeline_array(v)?),
                    other => return Err(err(40415, format!("BSON field '$unionWith.{other}' is an unknown field."))),
                }
            }
            if coll.is_none() && !stages.is_some_and(|s| starts_with_documents(s)) {
                return Err(parse_err("$unionWith stage without explicit collection must have a pipeline with $documents as first stage"));
            }
            (coll, stages)
        }
        other => {
            return Err(parse_err(format!(
                "the $unionWith stage specification must be an object or string, but found {}",
                tname(other)
            )))
        }
    };
    if coll.is_some() && stages.is_some_and(|s| starts_with_documents(s)) {
        return Err(documents_needs_no_collection());
    }
    let sub = pcx.sub_pipeline(Within::UnionWith)?;
    let pipeline = match stages {
        Some(s) => parse_sub_pipeline(s, &sub, Within::UnionWith)?,
        None => Pipeline::default(),
    };
    Ok(Arc::new(UnionWith { coll, pipeline }))
}

impl Stage for UnionWith {
    fn name(&self) -> &'static str {
        "$unionWith"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        let mut pending = true;
        let mut rest: Option<std::vec::IntoIter<bson::Document>> = None;
        let tail = std::iter::from_fn(move || {
            if pending {
                pending = false;
                let res = if self.pipeline.replaces_input() {
                    self.pipeline.run_docs(Vec::new(), cx)
                } else {
                    match &self.coll {
                        Some(c) => self.pipeline.run_borrowed(&cx.catalog.read(c), cx),
                        None => Ok(Vec::new()),
                    }
                };
                match res {
                    Ok(v) => rest = Some(v.into_iter()),
                    Err(e) => return Some(Err(e)),
                }
            }
            rest.as_mut()?.next().map(Ok)
        });
        Box::new(input.chain(tail))
    }
}
