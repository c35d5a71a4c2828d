//! Storage validation of what an update writes (`storage_validation.cpp`): `$`-prefixed
//! top-level field names (allowed only as a DBRef's `$ref`/`$id`/`$db`) and `_id` values.

use bson::{Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value::types::type_name;

/// `validateDollarPrefixElement` for the top-level field `name` of `doc`.
pub(crate) fn dollar_field(doc: &Document, name: &str) -> Result<()> {
    let keys: Vec<&String> = doc.keys().collect();
    let Some(mut idx) = keys.iter().position(|k| k.as_str() == name) else {
        return Ok(());
    };
    let invalid = |m: String| Error::new(ErrorKind::InvalidDBRef, m);
    let mut cur = name.to_string();
    if cur == "$db" {
        if let Some(v) = doc.get("$db") {
            if !matches!(v, Bson::String(_)) {
                return Err(invalid(format!("The DBRef $db field must be a String, not a {}", type_name(v))));
            }
        }
        if idx == 0 || keys[idx - 1] != "$id" {
            return Err(invalid("Found $db field without a $id before it, which is invalid.".into()));
        }
        idx -= 1;
        cur = "$id".into();
    }
    if cur == "$id" {
        if idx == 0 || keys[idx - 1] != "$ref" {
            return Err(invalid("Found $id field without a $ref before it, which is invalid.".into()));
        }
        idx -= 1;
        cur = "$ref".into();
    }
    if cur == "$ref" {
        if let Some(v) = doc.get("$ref") {
            if !matches!(v, Bson::String(_)) {
                return Err(invalid(format!("The DBRef $ref field must be a String, not a {}", type_name(v))));
            }
        }
        if keys.get(idx + 1).map(|k| k.as_str()) != Some("$id") {
            return Err(invalid("The DBRef $ref field must be followed by a $id field".into()));
        }
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::DollarPrefixedFieldName,
        format!(
            "The dollar ($) prefixed field '{name}' in '{name}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."
        ),
    ))
}

/// `BSONObj::storageValidEmbedded`: no `$`-prefixed names at any depth, except a DBRef.
fn embedded(d: &Document) -> Result<()> {
    let mut iter = d.iter().peekable();
    let mut first = true;
    while let Some((k, v)) = iter.next() {
        if k.starts_with('$') {
            let dbref = first && k == "$ref" && matches!(v, Bson::String(_)) && iter.peek().is_some_and(|(n, _)| n.as_str() == "$id");
            if !dbref {
                return Err(Error::new(ErrorKind::DollarPrefixedFieldName, format!("{k} is not valid for storage.")));
            }
            iter.next();
            if let Some((n, x)) = iter.peek() {
                if n.as_str() == "$db" && matches!(x, Bson::String(_)) {
                    iter.next();
                } else if n.starts_with('$') {
                    return Err(Error::new(ErrorKind::DollarPrefixedFieldName, format!("{n} is not valid for storage.")));
                }
            }
        }
        match v {
            Bson::Document(sub) => embedded(sub)?,
            Bson::Array(items) => {
                for item in items {
                    if let Bson::Document(sub) = item {
                        embedded(sub)?;
                    }
                }
            }
            _ => {}
        }
        first = false;
    }
    Ok(())
}

/// `storageValidIdField`: the types an `_id` may not have.
pub(crate) fn id_value(v: &Bson) -> Result<()> {
    match v {
        Bson::RegularExpression(_) | Bson::Array(_) | Bson::Undefined => Err(Error::new(
            ErrorKind::InvalidIdField,
            format!("The '_id' value cannot be of type {}", type_name(v)),
        )),
        Bson::Document(d) => embedded(d).map_err(|e| {
            Error::new(e.kind, format!("_id fields may not contain '$'-prefixed fields: {}", e.message))
        }),
        _ => Ok(()),
    }
}

/// `storage_validation::storageValid` on a whole document written by a replacement
/// (`allow_top_level_dollar` for pipeline updates).
pub(crate) fn document(doc: &Document, allow_top_level_dollar: bool) -> Result<()> {
    for (k, v) in doc {
        if k == "_id" {
            id_value(v)?;
        }
        if k.starts_with('$') && !allow_top_level_dollar {
            dollar_field(doc, k)?;
        }
    }
    Ok(())
}
