//! Small helpers shared by the stages: field path checks, setting nested fields, and child
//! environments for sub-pipelines.

use std::collections::HashMap;

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::value::types::type_name;

/// The server's type name of a value (`"string"`, `"object"`, ...).
pub(crate) fn tname(v: &Bson) -> &'static str {
    type_name(v)
}

/// Checks a field path the way the server's `FieldPath` does (stage options that name fields:
/// `as`, `includeArrayIndex`, `depthField`, ...).
pub(crate) fn check_field_path(path: &str) -> Result<()> {
    crate::query::field_path::validate(path)
}

/// Checks one field name (`FieldPath::uassertValidFieldName`: `$facet` output names).
pub(crate) fn check_field_name(part: &str) -> Result<()> {
    if part.contains('.') {
        return Err(Error::code(16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField."));
    }
    check_field_path(part).map_err(|e| if e.code_num() == 40352 { Error::code(15998, "FieldPath field names may not be empty strings.") } else { e })
}

/// Sets `value` at a dotted path as the server's `MutableDocument::setNestedField`: an existing
/// field keeps its place, a missing one is appended, and anything on the way that is not a
/// document is replaced by one.
pub(crate) fn set_path<S: AsRef<str>>(doc: &mut Document, path: &[S], value: Bson) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut cur = doc;
    for p in parents {
        let p = p.as_ref();
        let needs_doc = !matches!(cur.get(p), Some(Bson::Document(_)));
        if needs_doc {
            cur.insert(p, Document::new());
        }
        cur = match cur.get_mut(p) {
            Some(Bson::Document(d)) => d,
            _ => return,
        };
    }
    cur.insert(last.as_ref(), value);
}

/// Removes the field at a dotted path through embedded documents (no array traversal).
pub(crate) fn remove_path(doc: &mut Document, path: &[&str]) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut cur = doc;
    for p in parents {
        cur = match cur.get_mut(*p) {
            Some(Bson::Document(d)) => d,
            _ => return,
        };
    }
    cur.remove(*last);
}

/// The value at a dotted path through embedded documents only (`Document::getNestedField`): an
/// array on the way makes the path missing.
pub(crate) fn get_nested<'a>(doc: &'a Document, path: &[&str]) -> Option<&'a Bson> {
    let (first, rest) = path.split_first()?;
    let mut cur = doc.get(*first)?;
    for p in rest {
        cur = match cur {
            Bson::Document(d) => d.get(*p)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// An environment for a sub-pipeline: the parent's `$$NOW` and variables plus `extra`, with a
/// random source derived from the parent's (so seeded runs stay reproducible).
pub(crate) fn child_env(parent: &Env, extra: &HashMap<String, Bson>) -> Env {
    let mut vars = parent.vars.clone();
    for (k, v) in extra {
        vars.insert(k.clone(), v.clone());
    }
    let seed = (parent.random() * 9_007_199_254_740_992.0) as u64;
    Env::new(parent.now).with_seed(seed).with_vars(vars)
}

/// Adds a child environment's cost counters to its parent's.
pub(crate) fn absorb_cost(parent: &Env, child: &Env) {
    let c = child.cost();
    parent.add_docs_examined(c.docs_examined, c.bytes_read);
    parent.add_keys_examined(c.keys_examined);
}

/// An integer stage argument as the server's `parseIntegerElementToLong` reads it (`$limit`,
/// `$skip`): the reason text on failure.
pub(crate) fn integer_arg(name: &str, v: &Bson) -> std::result::Result<i64, String> {
    crate::query::int_arg::to_long(name, v).map_err(|e| e.message)
}

/// `Error` with a kind and message, for brevity in stage parsers.
pub(crate) fn err(code: i32, msg: impl Into<String>) -> Error {
    Error::code(code, msg)
}

/// The server's `FailedToParse` with a message.
pub(crate) fn parse_err(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::FailedToParse, msg)
}

