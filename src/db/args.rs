//! Reading command fields with the server's IDL errors (`BSON field 'find.filter' is the wrong
//! type 'int', expected type 'object'`).

use bson::{Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value::{self, Number};

/// `BSON field '<path>' is the wrong type '<actual>', expected type '<expected>'` (code 14).
pub fn wrong_type(path: &str, actual: &Bson, expected: &str) -> Error {
    Error::type_mismatch(format!(
        "BSON field '{path}' is the wrong type '{}', expected type '{expected}'",
        value::types::type_name(actual)
    ))
}

/// `BSON field '<path>' is the wrong type '<actual>', expected types '[a, b]'` (code 14).
pub fn wrong_types(path: &str, actual: &Bson, expected: &[&str]) -> Error {
    Error::type_mismatch(format!(
        "BSON field '{path}' is the wrong type '{}', expected types '[{}]'",
        value::types::type_name(actual),
        expected.join(", ")
    ))
}

/// `BSON field '<path>' is missing but a required field` (code 40414).
pub fn missing(path: &str) -> Error {
    Error::code(40414, format!("BSON field '{path}' is missing but a required field"))
}

/// The generic arguments every command accepts (generic_argument.idl).
pub const GENERIC_ARGUMENTS: &[&str] = &[
    "$db", "apiVersion", "apiStrict", "apiDeprecationErrors", "maxTimeMS", "readConcern", "writeConcern", "lsid", "txnNumber",
    "autocommit", "startTransaction", "stmtId", "comment", "$readPreference", "$clusterTime", "$audit", "$client",
    "$configServerState", "allowImplicitCollectionCreation", "$oplogQueryData", "$queryOptions", "$replData", "databaseVersion",
    "help", "shardVersion", "tracking_info", "coordinator", "maxTimeMSOpOnly", "usesDefaultMaxTimeMS", "$configTime",
    "$topologyTime", "txnRetryCounter", "mayBypassWriteBlocking", "clientOperationKey", "readPreference", "rawData",
];

/// Refuses a field that is neither one of the command's (`known`) nor a generic argument (40415,
/// as the IDL's strict commands).
pub fn check_known_fields(cmd: &Document, command: &str, known: &[&str]) -> Result<()> {
    for k in cmd.keys() {
        if !known.contains(&k.as_str()) && !GENERIC_ARGUMENTS.contains(&k.as_str()) {
            return Err(Error::code(40415, format!("BSON field '{command}.{k}' is an unknown field.")));
        }
    }
    Ok(())
}

/// A view of one command (or sub-document such as an update statement) whose fields are read
/// with errors naming `<prefix>.<field>`.
pub struct Fields<'a> {
    pub doc: &'a Document,
    pub prefix: String,
}

impl<'a> Fields<'a> {
    pub fn new(doc: &'a Document, prefix: impl Into<String>) -> Fields<'a> {
        Fields { doc, prefix: prefix.into() }
    }

    pub fn path(&self, field: &str) -> String {
        if self.prefix.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.prefix)
        }
    }

    /// An optional embedded document (`null` counts as absent, as the IDL's optional fields do).
    pub fn doc(&self, field: &str) -> Result<Option<&'a Document>> {
        match self.doc.get(field) {
            None | Some(Bson::Null) => Ok(None),
            Some(Bson::Document(d)) => Ok(Some(d)),
            Some(other) => Err(wrong_type(&self.path(field), other, "object")),
        }
    }

    pub fn required_doc(&self, field: &str) -> Result<&'a Document> {
        match self.doc.get(field) {
            None => Err(missing(&self.path(field))),
            Some(Bson::Document(d)) => Ok(d),
            Some(other) => Err(wrong_type(&self.path(field), other, "object")),
        }
    }

    pub fn array(&self, field: &str) -> Result<Option<&'a Vec<Bson>>> {
        match self.doc.get(field) {
            None | Some(Bson::Null) => Ok(None),
            Some(Bson::Array(a)) => Ok(Some(a)),
            Some(other) => Err(wrong_type(&self.path(field), other, "array")),
        }
    }

    pub fn required_array(&self, field: &str) -> Result<&'a Vec<Bson>> {
        match self.doc.get(field) {
            None => Err(missing(&self.path(field))),
            Some(Bson::Array(a)) => Ok(a),
            Some(other) => Err(wrong_type(&self.path(field), other, "array")),
        }
    }

    /// An array whose elements must all be documents.
    pub fn doc_array(&self, field: &str) -> Result<Option<Vec<Document>>> {
        let Some(a) = self.array(field)? else { return Ok(None) };
        let mut out = Vec::with_capacity(a.len());
        for (i, v) in a.iter().enumerate() {
            match v {
                Bson::Document(d) => out.push(d.clone()),
                other => return Err(wrong_type(&format!("{}.{i}", self.path(field)), other, "object")),
            }
        }
        Ok(Some(out))
    }

    /// An IDL `safeBool`: booleans and numbers (non-zero is true).
    pub fn bool(&self, field: &str) -> Result<Option<bool>> {
        match self.doc.get(field) {
            None | Some(Bson::Null) => Ok(None),
            Some(Bson::Boolean(b)) => Ok(Some(*b)),
            Some(v) => match Number::from_bson(v) {
                Some(n) => Ok(Some(n.to_f64() != 0.0)),
                None => Err(wrong_type(&self.path(field), v, "bool")),
            },
        }
    }

    pub fn bool_or(&self, field: &str, default: bool) -> Result<bool> {
        Ok(self.bool(field)?.unwrap_or(default))
    }

    /// An IDL `safeInt64`: any number, truncated toward zero (NaN is 0, out of range clamps).
    pub fn i64(&self, field: &str) -> Result<Option<i64>> {
        match self.doc.get(field) {
            None | Some(Bson::Null) => Ok(None),
            Some(v) => match Number::from_bson(v) {
                Some(n) => Ok(Some(n.to_exact_i64().unwrap_or_else(|| {
                    let f = n.to_f64();
                    if f.is_nan() {
                        0
                    } else {
                        f.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64
                    }
                }))),
                None => Err(wrong_types(&self.path(field), v, &["long", "int", "decimal", "double"])),
            },
        }
    }

    /// A non-negative integer (`BSON field 'skip' value must be >= 0, actual value '-1'`).
    pub fn non_negative(&self, field: &str) -> Result<Option<i64>> {
        let v = self.i64(field)?;
        if let Some(n) = v {
            if n < 0 {
                return Err(Error::code(51024, format!("BSON field '{field}' value must be >= 0, actual value '{n}'")));
            }
        }
        Ok(v)
    }

    pub fn string(&self, field: &str) -> Result<Option<&'a str>> {
        match self.doc.get(field) {
            None | Some(Bson::Null) => Ok(None),
            Some(Bson::String(s)) => Ok(Some(s)),
            Some(other) => Err(wrong_type(&self.path(field), other, "string")),
        }
    }
}

/// The collection named by the command's first field.
pub fn collection_name(cmd: &Document, db: &str) -> Result<String> {
    match cmd.iter().next() {
        Some((_, Bson::String(s))) => {
            if s.is_empty() {
                return Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid namespace specified '{db}.'")));
            }
            Ok(s.clone())
        }
        Some((_, other)) => Err(Error::new(
            ErrorKind::InvalidNamespace,
            format!("collection name has invalid type {}", value::types::type_name(other)),
        )),
        None => Err(Error::new(ErrorKind::InvalidNamespace, "collection name has invalid type missing")),
    }
}
