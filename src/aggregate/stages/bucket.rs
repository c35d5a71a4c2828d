//! `$bucket`: groups documents into ranges `[boundaries[i], boundaries[i+1])` of `groupBy`, plus
//! an optional `default` bucket; output sorted by `_id` (the lower boundary); `count` (int32)
//! unless `output` names the accumulated fields.

use std::cmp::Ordering;
use std::sync::Arc;

use bson::{Bson, Document};

use super::group::Groups;
use crate::aggregate::accumulator::{parse_statement, Statement};
use crate::aggregate::stage::blocking;
use crate::aggregate::util::{err, tname};
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::value::{canonical_type, compare};
use crate::value::display;

#[derive(Debug)]
pub(crate) struct Bucket {
    group_by: Expr,
    boundaries: Vec<Bson>,
    default: Option<Bson>,
    stmts: Vec<Statement>,
}

/// Checks that `groupBy` is a `$`-path or an operator object.
pub(crate) fn is_path_or_expression(v: &Bson) -> bool {
    match v {
        Bson::Document(d) => d.keys().next().is_some_and(|k| k.starts_with('$')),
        Bson::String(s) => s.starts_with('$'),
        _ => false,
    }
}

/// The `output` statements, or `count: { $sum: 1 }` when there is no `output`.
pub(crate) fn output_statements(output: Option<&Document>, scope: &VarScope) -> Result<Vec<Statement>> {
    match output {
        Some(o) => o.iter().map(|(k, v)| parse_statement(k, v, scope)).collect(),
        None => Ok(vec![parse_statement("count", &bson::bson!({ "$sum": 1 }), scope)?]),
    }
}

/// The value of a constant expression (a literal, `$literal`, or objects and arrays of those);
/// `None` when the expression reads the document or a variable.
fn constant(v: &Bson, scope: &VarScope) -> Result<Option<Bson>> {
    Expr::parse(v, scope)?;
    Ok(literal_value(v))
}

fn literal_value(v: &Bson) -> Option<Bson> {
    match v {
        Bson::String(s) if s.starts_with('$') => None,
        Bson::Document(d) => match d.iter().next() {
            Some((k, inner)) if k == "$literal" && d.len() == 1 => Some(inner.clone()),
            Some((k, _)) if k.starts_with('$') => None,
            _ => {
                let mut out = Document::new();
                for (k, x) in d {
                    out.insert(k.clone(), literal_value(x)?);
                }
                Some(Bson::Document(out))
            }
        },
        Bson::Array(a) => a.iter().map(literal_value).collect::<Option<Vec<_>>>().map(Bson::Array),
        other => Some(other.clone()),
    }
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(40201, format!("Argument to $bucket stage must be an object, but found type: {}.", tname(spec))));
    };
    let scope = &pcx.scope;
    let mut group_by = None;
    let mut boundaries: Vec<Bson> = Vec::new();
    let mut default = None;
    let mut output = None;
    for (k, v) in d {
        match k.as_str() {
            "groupBy" => {
                if !is_path_or_expression(v) {
                    return Err(err(
                        40202,
                        format!("The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: {}.", display::value(v)),
                    ));
                }
                group_by = Some(Expr::parse(v, scope)?);
            }
            "boundaries" => {
                let Bson::Array(a) = v else {
                    return Err(err(40200, format!("The $bucket 'boundaries' field must be an array, but found type: {}.", tname(v))));
                };
                for b in a {
                    match constant(b, scope)? {
                        Some(c) => boundaries.push(c),
                        None => {
                            return Err(err(
                                40191,
                                format!("The $bucket 'boundaries' field must be an array of constant values, but found value: {}.", display::value(b)),
                            ))
                        }
                    }
                }
                if boundaries.len() < 2 {
                    return Err(err(
                        40192,
                        format!("The $bucket 'boundaries' field must have at least 2 values, but found {} value(s).", boundaries.len()),
                    ));
                }
                for i in 1..boundaries.len() {
                    let (lo, hi) = (&boundaries[i - 1], &boundaries[i]);
                    if canonical_type(lo) != canonical_type(hi) {
                        return Err(err(
                            40193,
                            format!(
                                "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types {} and {}.",
                                tname(lo),
                                tname(hi)
                            ),
                        ));
                    }
                    if compare(lo, hi) != Ordering::Less {
                        return Err(err(
                            40194,
                            format!(
                                "The 'boundaries' option to $bucket must be sorted, but elements {} and {} are not in ascending order ({} is not less than {}).",
                                i - 1,
                                i,
                                display::stream_value(Some(lo)),
                                display::stream_value(Some(hi))
                            ),
                        ));
                    }
                }
            }
            "default" => match constant(v, scope)? {
                Some(c) => default = Some(c),
                None => return Err(err(40195, format!("The $bucket 'default' field must be a constant expression, but found: {}.", display::value(v)))),
            },
            "output" => match v {
                Bson::Document(o) => output = Some(o),
                other => return Err(err(40196, format!("The $bucket 'output' field must be an object, but found type: {}.", tname(other)))),
            },
            other => return Err(err(40197, format!("Unrecognized option to $bucket: {other}."))),
        }
    }
    let (Some(group_by), false) = (group_by, boundaries.is_empty()) else {
        return Err(err(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified."));
    };
    if let (Some(dv), Some(lo), Some(hi)) = (&default, boundaries.first(), boundaries.last()) {
        if canonical_type(dv) == canonical_type(lo) && compare(dv, lo) != Ordering::Less && compare(dv, hi) == Ordering::Less {
            return Err(err(
                40199,
                "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
            ));
        }
    }
    let stmts = output_statements(output, scope)?;
    Ok(Arc::new(Bucket { group_by, boundaries, default, stmts }))
}

impl Bucket {
    fn bucket_of(&self, v: Option<Bson>) -> Result<Bson> {
        if let Some(v) = &v {
            for w in self.boundaries.windows(2) {
                if compare(v, &w[0]) != Ordering::Less && compare(v, &w[1]) == Ordering::Less {
                    return Ok(w[0].clone());
                }
            }
        }
        match &self.default {
            Some(d) => Ok(d.clone()),
            None => Err(err(40066, "$switch could not find a matching branch for an input, and no default was specified.")),
        }
    }
}

impl Stage for Bucket {
    fn name(&self) -> &'static str {
        "$bucket"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            let mut groups = Groups::new(&self.stmts);
            for d in input {
                let d = d?;
                let k = self.bucket_of(self.group_by.evaluate(&d, cx.env)?)?;
                let i = groups.slot(Some(&k), cx.env)?;
                groups.add(i, &d, cx.env)?;
            }
            let mut docs = groups.finish()?;
            docs.sort_by(|a, b| compare(a.get("_id").unwrap_or(&Bson::Null), b.get("_id").unwrap_or(&Bson::Null)));
            Ok(docs)
        })
    }
}
