//! `$facet`: runs several sub-pipelines over the same input and outputs one document with each
//! sub-pipeline's results as an array field.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::stage::{blocking, parse_sub_pipeline};
use crate::aggregate::util::{check_field_name, err, tname};
use crate::aggregate::{DocStream, ParseCtx, Pipeline, RunCtx, Stage, Within};
use crate::error::{Error, Result};
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Facet {
    facets: Vec<(String, Pipeline)>,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let d = match spec {
        Bson::Document(d) if !d.is_empty() => d,
        other => return Err(err(40169, format!("the $facet specification must be a non-empty object, but found: {}", display::element("$facet", other)))),
    };
    let mut facets = Vec::with_capacity(d.len());
    for (name, v) in d {
        check_field_name(name)?;
        let Bson::Array(stages) = v else {
            return Err(err(40170, format!("arguments to $facet must be arrays, {name} is type {}", tname(v))));
        };
        for (i, s) in stages.iter().enumerate() {
            match s {
                Bson::Document(sd) if !sd.is_empty() => {}
                other => {
                    return Err(err(
                        40171,
                        format!(
                            "elements of arrays in $facet spec must be non-empty objects, {name} argument contained an element of type {}: {}",
                            tname(other),
                            display::element(&i.to_string(), other)
                        ),
                    ))
                }
            }
        }
        let p = parse_sub_pipeline(stages, pcx, Within::Facet)?;
        if p.is_empty() {
            return Err(Error::bad_value("sub-pipeline in $facet stage cannot be empty"));
        }
        facets.push((name.clone(), p));
    }
    Ok(Arc::new(Facet { facets }))
}

impl Stage for Facet {
    fn name(&self) -> &'static str {
        "$facet"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            // Each sub-pipeline reads the input documents borrowed (copying only what it hands on).
            let docs = input.collect::<Result<Vec<_>>>()?;
            let mut out = Document::new();
            for (name, p) in &self.facets {
                let res = p.run_borrowed(&docs, cx)?;
                out.insert(name.clone(), Bson::Array(res.into_iter().map(Bson::Document).collect()));
            }
            Ok(vec![out])
        })
    }

    /// Over a collection's stored documents: each sub-pipeline reads the records as a whole
    /// pipeline does (its first stage from the bytes when it can, else each document decoded as
    /// it is pulled), so the input is never held decoded.
    fn run_records<'r>(&self, records: &mut dyn Iterator<Item = &'r [u8]>, decode: &dyn Fn(&[u8]) -> Result<Document>, cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        let records: Vec<&'r [u8]> = records.collect();
        let mut out = Document::new();
        for (name, p) in &self.facets {
            let res = match p.run_on_records(records.iter().map(|r| &**r), decode, 0, cx.catalog, cx.env) {
                Ok(res) => res.docs,
                Err(e) => return Some(Err(e)),
            };
            out.insert(name.clone(), Bson::Array(res.into_iter().map(Bson::Document).collect()));
        }
        Some(Ok(vec![out]))
    }
}
