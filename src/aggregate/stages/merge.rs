//! `$merge`: the last stage; the results are merged into a collection by the database
//! (`Output::out` carries the normalized specification: `{ into: "coll" | { db, coll }, on?,
//! let?, whenMatched?, whenNotMatched? }`). The stage passes documents through.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, OutTarget, ParseCtx, RunCtx, Stage};
use crate::error::{Error, ErrorKind, Result};

#[derive(Debug)]
pub(crate) struct Merge {
    spec: Document,
}

fn wrong_type(field: &str, v: &Bson, expected: &str) -> Error {
    Error::new(ErrorKind::TypeMismatch, format!("BSON field '$merge.{field}' is the wrong type '{}', expected type '{expected}'", tname(v)))
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let spec = match spec {
        Bson::String(s) => bson::doc! { "into": s.clone() },
        Bson::Document(d) => {
            for (k, v) in d {
                match k.as_str() {
                    "into" => {
                        if !matches!(v, Bson::String(_) | Bson::Document(_)) {
                            return Err(wrong_type(k, v, "string or object"));
                        }
                    }
                    "on" => {
                        if !matches!(v, Bson::String(_) | Bson::Array(_)) {
                            return Err(wrong_type(k, v, "string or array"));
                        }
                    }
                    "let" => {
                        if !matches!(v, Bson::Document(_)) {
                            return Err(wrong_type(k, v, "object"));
                        }
                    }
                    "whenMatched" => match v {
                        Bson::String(s) if matches!(s.as_str(), "replace" | "keepExisting" | "merge" | "fail") => {}
                        Bson::Array(_) => {}
                        Bson::String(s) => {
                            return Err(Error::bad_value(format!("Enumeration value '{s}' for field '$merge.whenMatched' is not a valid value.")))
                        }
                        other => return Err(wrong_type(k, other, "string or array")),
                    },
                    "whenNotMatched" => match v {
                        Bson::String(s) if matches!(s.as_str(), "insert" | "discard" | "fail") => {}
                        Bson::String(s) => {
                            return Err(Error::bad_value(format!("Enumeration value '{s}' for field '$merge.whenNotMatched' is not a valid value.")))
                        }
                        other => return Err(wrong_type(k, other, "string")),
                    },
                    other => return Err(err(40415, format!("BSON field '$merge.{other}' is an unknown field."))),
                }
            }
            if !d.contains_key("into") {
                return Err(err(40414, "BSON field '$merge.into' is missing but a required field"));
            }
            d.clone()
        }
        other => {
            return Err(err(51182, format!("$merge only supports a string or object argument, not {}", tname(other))));
        }
    };
    Ok(Arc::new(Merge { spec }))
}

impl Stage for Merge {
    fn name(&self) -> &'static str {
        "$merge"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        input
    }

    fn out_target(&self) -> Option<OutTarget> {
        Some(OutTarget::Merge { spec: self.spec.clone() })
    }
}
