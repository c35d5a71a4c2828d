//! `$out: "coll"` (or `{ db, coll }`): the last stage; the results go to a collection that the
//! database replaces (`Output::out`). The stage passes documents through.

use std::sync::Arc;

use bson::Bson;

use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, OutTarget, ParseCtx, RunCtx, Stage};
use crate::error::{Error, ErrorKind, Result};

#[derive(Debug)]
pub(crate) struct Out {
    /// The target database when given (`{ db, coll }`); else the command's own.
    db: Option<String>,
    coll: String,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let mut db = None;
    let coll = match spec {
        Bson::String(s) => s.clone(),
        Bson::Document(d) => {
            let mut coll = None;
            for (k, v) in d {
                match (k.as_str(), v) {
                    ("coll", Bson::String(s)) => coll = Some(s.clone()),
                    ("db", Bson::String(s)) => db = Some(s.clone()),
                    ("timeseries", Bson::Document(_)) => {}
                    ("coll" | "db", other) => {
                        return Err(Error::new(
                            ErrorKind::TypeMismatch,
                            format!("BSON field '$out.{k}' is the wrong type '{}', expected type 'string'", tname(other)),
                        ))
                    }
                    _ => return Err(err(40415, format!("BSON field '$out.{k}' is an unknown field."))),
                }
            }
            coll.ok_or_else(|| err(40414, "BSON field '$out.coll' is missing but a required field"))?
        }
        other => return Err(err(16990, format!("$out only supports a string or object argument, but found {}", tname(other)))),
    };
    if coll.is_empty() {
        return Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid $out target namespace, test.{coll}")));
    }
    Ok(Arc::new(Out { db, coll }))
}

impl Stage for Out {
    fn name(&self) -> &'static str {
        "$out"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        input
    }

    fn out_target(&self) -> Option<OutTarget> {
        Some(OutTarget::Out { db: self.db.clone(), collection: self.coll.clone() })
    }
}
