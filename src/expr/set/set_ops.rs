//! `$setUnion`, `$setIntersection`, `$setDifference`, `$setEquals`, `$setIsSubset`.

use std::collections::HashSet;

use bson::Bson;

use crate::error::{Error, Result};
use crate::expr::args::{check_exact, operands, Simple};
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::{compare, hash_key};

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let f = match name {
        "$setUnion" => union,
        "$setIntersection" => intersection,
        "$setDifference" => difference,
        "$setEquals" => equals,
        _ => is_subset,
    };
    let args = operands(arg, scope)?;
    match name {
        "$setDifference" | "$setIsSubset" => check_exact(name, args.len(), 2)?,
        "$setEquals" if args.len() < 2 => {
            return Err(Error::code(17045, format!("$setEquals needs at least two arguments had: {}", args.len())));
        }
        _ => {}
    }
    Ok(Simple::with_args(name, args, f))
}

/// Distinct values in BSON order.
fn sorted_set<'v>(items: impl Iterator<Item = &'v Bson>) -> Vec<Bson> {
    let mut seen = HashSet::new();
    let mut out: Vec<Bson> = items.filter(|v| seen.insert(hash_key(v))).cloned().collect();
    out.sort_by(compare);
    out
}

fn keys(a: &[Bson]) -> HashSet<Vec<u8>> {
    a.iter().map(hash_key).collect()
}

fn union(name: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut all: Vec<&Bson> = Vec::new();
    for v in args {
        if v.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(a) = v.as_array() else {
            return Err(Error::code(17043, format!("All operands of {name} must be arrays. One argument is of type: {}", v.type_name())));
        };
        all.extend(a.iter());
    }
    Ok(Some(Bson::Array(sorted_set(all.into_iter()))))
}

fn intersection(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut current: Option<Vec<Bson>> = None;
    for v in args {
        if v.is_nullish() {
            return Ok(Some(Bson::Null));
        }
        let Some(a) = v.as_array() else {
            return Err(Error::code(
                17047,
                format!("All operands of $setIntersection must be arrays. One argument is of type: {}", v.type_name()),
            ));
        };
        current = Some(match current {
            None => sorted_set(a.iter()),
            Some(cur) => {
                let k = keys(a);
                cur.into_iter().filter(|x| k.contains(&hash_key(x))).collect()
            }
        });
    }
    Ok(Some(Bson::Array(current.unwrap_or_default())))
}

fn difference(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() || args[1].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(l) = args[0].as_array() else {
        return Err(Error::code(
            17048,
            format!("both operands of $setDifference must be arrays. First argument is of type: {}", args[0].type_name()),
        ));
    };
    let Some(r) = args[1].as_array() else {
        return Err(Error::code(
            17049,
            format!("both operands of $setDifference must be arrays. Second argument is of type: {}", args[1].type_name()),
        ));
    };
    let mut seen = keys(r);
    let out: Vec<Bson> = l.iter().filter(|x| seen.insert(hash_key(x))).cloned().collect();
    Ok(Some(Bson::Array(out)))
}

fn equals(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let mut first: Option<HashSet<Vec<u8>>> = None;
    let mut result = true;
    for (i, v) in args.iter().enumerate() {
        let Some(a) = v.as_array() else {
            return Err(Error::code(
                17044,
                format!("All operands of $setEquals must be arrays. {}-th argument is of type: {}", i + 1, v.type_name()),
            ));
        };
        let k = keys(a);
        match &first {
            None => first = Some(k),
            Some(f) => {
                if *f != k {
                    result = false;
                }
            }
        }
    }
    Ok(Some(Bson::Boolean(result)))
}

fn is_subset(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    let Some(l) = args[0].as_array() else {
        return Err(Error::code(
            17046,
            format!("both operands of $setIsSubset must be arrays. First argument is of type: {}", args[0].type_name()),
        ));
    };
    let Some(r) = args[1].as_array() else {
        return Err(Error::code(
            17042,
            format!("both operands of $setIsSubset must be arrays. Second argument is of type: {}", args[1].type_name()),
        ));
    };
    let k = keys(r);
    Ok(Some(Bson::Boolean(l.iter().all(|x| k.contains(&hash_key(x))))))
}
