//! `$objectToArray` and `$arrayToObject`.

use bson::{Bson, Document};

use crate::error::{Error, Result};
use crate::expr::args::Simple;
use crate::value::display::stream_value;
use crate::expr::{Ctx, Expr, Val, VarScope};
use crate::value::types::type_name;

pub fn parse_object_to_array(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_object_to_array)
}

pub fn parse_array_to_object(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    Simple::fixed(name, arg, scope, 1, eval_array_to_object)
}

fn eval_object_to_array(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(d) = args[0].as_doc() else {
        return Err(Error::code(40390, format!("$objectToArray requires a document input, found: {}", args[0].type_name())));
    };
    let out = d
        .iter()
        .map(|(k, v)| {
            let mut kv = Document::new();
            kv.insert("k", k.clone());
            kv.insert("v", v.clone());
            Bson::Document(kv)
        })
        .collect();
    Ok(Some(Bson::Array(out)))
}

fn eval_array_to_object(_: &'static str, args: &[Val], _: &Ctx) -> Result<Option<Bson>> {
    if args[0].is_nullish() {
        return Ok(Some(Bson::Null));
    }
    let Some(arr) = args[0].as_array() else {
        return Err(Error::code(40386, format!("$arrayToObject requires an array input, found: {}", args[0].type_name())));
    };
    let mut out = Document::new();
    let Some(first) = arr.first() else { return Ok(Some(Bson::Document(out))) };
    let pairs = match first {
        Bson::Array(_) => true,
        Bson::Document(_) => false,
        other => {
            return Err(Error::code(40398, format!("Unrecognised input type format for $arrayToObject: {}", type_name(other))));
        }
    };
    for e in arr {
        let (k, v) = if pairs {
            let Bson::Array(kv) = e else {
                return Err(Error::code(
                    40396,
                    format!(
                        "$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Array was detected, now found: {}",
                        type_name(e)
                    ),
                ));
            };
            if kv.len() != 2 {
                return Err(Error::code(
                    40397,
                    format!("$arrayToObject requires an array of size 2 arrays,found array of size: {}", kv.len()),
                ));
            }
            let Bson::String(k) = &kv[0] else {
                return Err(Error::code(
                    40395,
                    format!(
                        "$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: {}",
                        type_name(&kv[0])
                    ),
                ));
            };
            if k.contains('\0') {
                return Err(Error::code(4940400, "Key field cannot contain an embedded null byte"));
            }
            (k.clone(), kv[1].clone())
        } else {
            let Bson::Document(kv) = e else {
                return Err(Error::code(
                    40391,
                    format!(
                        "$arrayToObject requires a consistent input format. Elements mustall be arrays or all be objects. Object was detected, now found: {}",
                        type_name(e)
                    ),
                ));
            };
            if kv.len() != 2 {
                return Err(Error::code(
                    40392,
                    format!("$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:{}", kv.len()),
                ));
            }
            let (Some(k), Some(v)) = (kv.get("k"), kv.get("v")) else {
                return Err(Error::code(
                    40393,
                    format!(
                        "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: {}",
                        stream_value(Some(e))
                    ),
                ));
            };
            let Bson::String(k) = k else {
                return Err(Error::code(
                    40394,
                    format!(
                        "$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: {}",
                        type_name(k)
                    ),
                ));
            };
            if k.contains('\0') {
                return Err(Error::code(4940401, "Key field cannot contain an embedded null byte"));
            }
            (k.clone(), v.clone())
        };
        out.insert(k, v);
    }
    Ok(Some(Bson::Document(out)))
}
