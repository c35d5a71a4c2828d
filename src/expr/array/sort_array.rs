//! `$sortArray: { input, sortBy }`: `sortBy` is 1/-1 (whole values) or a sort pattern.

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::expr::{Ctx, Expr, Op, VarScope};
use crate::value::compare;
use crate::value::path::get_strict;

#[derive(Debug)]
enum SortBy {
    Whole(bool),
    Pattern(Vec<(String, bool)>),
}

#[derive(Debug)]
struct SortArray {
    input: Expr,
    by: SortBy,
}

/// The sort key of an element for one pattern field: missing and non-documents sort as null
/// (arrays: the smallest element ascending, the largest descending).
fn key(e: &Bson, path: &str, asc: bool) -> Bson {
    let v = match e {
        Bson::Document(d) => lookup(d, path),
        _ => None,
    };
    match v {
        Some(Bson::Array(a)) if !a.is_empty() => {
            let want = if asc { Ordering::Less } else { Ordering::Greater };
            let mut best = &a[0];
            for x in &a[1..] {
                if compare(x, best) == want {
                    best = x;
                }
            }
            best.clone()
        }
        Some(Bson::Array(_)) => Bson::Undefined,
        Some(v) => v,
        None => Bson::Null,
    }
}

fn lookup(d: &Document, path: &str) -> Option<Bson> {
    if let Some(v) = get_strict(d, path) {
        return Some(v.clone());
    }
    crate::value::path::expr_lookup(d, path)
}

impl Op for SortArray {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        if input.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(arr) = input.as_array() else {
            return Err(Error::code(
                2942504,
                format!("The input argument to $sortArray must be an array, but was of type: {}", input.type_name()),
            ));
        };
        let mut out = arr.clone();
        match &self.by {
            SortBy::Whole(asc) => out.sort_by(|a, b| {
                let o = compare(a, b);
                if *asc { o } else { o.reverse() }
            }),
            SortBy::Pattern(fields) => {
                let mut keyed: Vec<(Vec<Bson>, Bson)> =
                    out.into_iter().map(|e| (fields.iter().map(|(p, asc)| key(&e, p, *asc)).collect(), e)).collect();
                keyed.sort_by(|(ka, _), (kb, _)| {
                    for (i, (_, asc)) in fields.iter().enumerate() {
                        let o = compare(&ka[i], &kb[i]);
                        let o = if *asc { o } else { o.reverse() };
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    Ordering::Equal
                });
                out = keyed.into_iter().map(|(_, e)| e).collect();
            }
        }
        Ok(Some(Bson::Array(out)))
    }
}

fn direction(v: &Bson) -> Option<bool> {
    match crate::value::Number::from_bson(v).and_then(|n| n.to_exact_i64()) {
        Some(1) => Some(true),
        Some(-1) => Some(false),
        _ => None,
    }
}

pub fn parse(_: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            2942500,
            format!("$sortArray requires an object as an argument, found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let (mut input, mut by) = (None, None);
    for (k, v) in d {
        match k.as_str() {
            "input" => input = Some(Expr::parse(v, scope)?),
            "sortBy" => by = Some(v),
            _ => return Err(Error::code(2942501, format!("$sortArray found an unknown argument: {k}"))),
        }
    }
    let input = input.ok_or_else(|| Error::code(2942502, "$sortArray requires 'input' to be specified"))?;
    let by = by.ok_or_else(|| Error::code(2942503, "$sortArray requires 'sortBy' to be specified"))?;
    let bad = || Error::bad_value("$sortArray sort pattern must be 1, -1, or an object".to_string());
    let by = match by {
        Bson::Document(p) => {
            if p.is_empty() {
                return Err(Error::code(15976, "$sortArray sort must have at least one component"));
            }
            let mut fields = Vec::new();
            for (k, v) in p {
                let dir = direction(v).ok_or_else(|| Error::code(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"))?;
                fields.push((k.clone(), dir));
            }
            SortBy::Pattern(fields)
        }
        other => SortBy::Whole(direction(other).ok_or_else(bad)?),
    };
    Ok(Expr::op(SortArray { input, by }))
}
