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

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
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
                        on_fields(v)?;
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
            let when_matched = match d.get("whenMatched") {
                None => "merge",
                Some(Bson::String(s)) => s.as_str(),
                Some(_) => "pipeline",
            };
            let when_not_matched = d.get_str("whenNotMatched").unwrap_or("insert");
            let supported = match when_matched {
                "replace" | "merge" | "pipeline" => true,
                _ => when_not_matched == "insert",
            };
            if !supported {
                return Err(err(
                    51181,
                    format!("Combination of $merge modes 'whenMatched: {when_matched}' and 'whenNotMatched: {when_not_matched}' is not supported"),
                ));
            }
            if let Some(Bson::Document(vars)) = d.get("let") {
                if when_matched != "pipeline" {
                    return Err(err(51199, format!("Cannot use 'let' variables with 'whenMatched: {when_matched}' mode")));
                }
                if vars.get("new").is_some_and(|v| v.as_str() != Some("$$ROOT")) {
                    return Err(err(51273, "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'"));
                }
                // The variables are expressions on each result document.
                for (name, v) in vars {
                    crate::expr::validate_name_for_write(name)?;
                    crate::expr::Expr::parse(v, &pcx.scope)?;
                }
            }
            d.clone()
        }
        other => {
            return Err(err(51182, format!("$merge only supports a string or object argument, not {}", tname(other))));
        }
    };
    Ok(Arc::new(Merge { spec }))
}

/// The `on` fields of a spec (51186, 51134, 51187, 31465 as the server's `mergeOnFieldsParseFromBSON`
/// and `convertToFieldPaths`).
pub(crate) fn on_fields(v: &Bson) -> Result<Vec<String>> {
    let fields: Vec<String> = match v {
        Bson::String(s) => vec![s.clone()],
        Bson::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Bson::String(s) => out.push(s.clone()),
                    other => return Err(err(51134, format!("$merge 'on' array elements must be strings, but found {}", tname(other)))),
                }
            }
            if out.is_empty() {
                return Err(err(51187, "If explicitly specifying $merge 'on', must include at least one field"));
            }
            out
        }
        other => return Err(err(51186, format!("$merge 'on' field  must be either a string or an array of strings, but found {}", tname(other)))),
    };
    let mut seen = std::collections::HashSet::new();
    for f in &fields {
        crate::aggregate::util::check_field_path(f)?;
        if !seen.insert(f.as_str()) {
            return Err(err(31465, format!("Found a duplicate field '{f}'")));
        }
    }
    Ok(fields)
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
