//! Index specifications and unique-key enforcement. Specs are stored as the server lists them
//! (`{ v: 2, key, name, ...options }`); unique indexes keep a map from key to record ids so that
//! a write can be checked before it is applied. (Query planning over secondary indexes is a later
//! piece of work; `_id` lookups use the collection's own map.)

use std::collections::HashMap;

use bson::{doc, Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;
use crate::value;

use crate::query::display;

/// The name of the `_id` index.
pub const ID_INDEX_NAME: &str = "_id_";

/// One index of a collection.
#[derive(Debug, Clone)]
pub struct Index {
    /// The spec as `listIndexes` shows it.
    pub spec: Document,
    pub name: String,
    /// The key pattern (`{ a: 1, b: -1 }`).
    pub key: Document,
    pub unique: bool,
    pub sparse: bool,
    partial: Option<Matcher>,
    /// Unique indexes only: key bytes -> record ids holding that key.
    entries: HashMap<Vec<u8>, Vec<u64>>,
}

/// The spec of the `_id` index.
pub fn id_index_spec() -> Document {
    doc! {"v": 2, "key": {"_id": 1}, "name": ID_INDEX_NAME}
}

/// The name the drivers and the server generate for a key pattern (`a_1_b_-1`).
pub fn default_name(key: &Document) -> String {
    key.iter()
        .map(|(k, v)| {
            let v = match v {
                Bson::String(s) => s.clone(),
                Bson::Double(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
                other => display::value(other),
            };
            format!("{k}_{v}")
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// Options a createIndexes spec may carry (anything else is rejected as the server does).
const KNOWN_OPTIONS: &[&str] = &[
    "v",
    "key",
    "name",
    "unique",
    "sparse",
    "partialFilterExpression",
    "expireAfterSeconds",
    "hidden",
    "collation",
    "background",
    "weights",
    "default_language",
    "language_override",
    "textIndexVersion",
    "2dsphereIndexVersion",
    "bits",
    "min",
    "max",
    "wildcardProjection",
    "storageEngine",
    "bucketSize",
    "ns",
];

impl Index {
    /// The `_id` index.
    pub fn id_index() -> Index {
        Index::from_spec(&id_index_spec()).unwrap_or_else(|_| Index {
            spec: id_index_spec(),
            name: ID_INDEX_NAME.into(),
            key: doc! {"_id": 1},
            unique: true,
            sparse: false,
            partial: None,
            entries: HashMap::new(),
        })
    }

    /// Validates and normalises one spec of `createIndexes` (`{ key, name?, unique?, ... }`).
    pub fn from_spec(spec: &Document) -> Result<Index> {
        let key = match spec.get("key") {
            Some(Bson::Document(k)) => k.clone(),
            Some(other) => {
                return Err(Error::type_mismatch(format!(
                    "The field 'key' must be an object, but got {}",
                    value::types::type_name(other)
                )))
            }
            None => {
                return Err(Error::failed_to_parse(format!(
                    "Error in specification {} :: caused by :: The 'key' field is a required property of an index specification",
                    display::document(spec)
                )))
            }
        };
        let spec_text = || display::document(spec);
        if key.is_empty() {
            return Err(Error::new(
                ErrorKind::CannotCreateIndex,
                format!("Error in specification {} :: caused by :: Index keys cannot be an empty field.", spec_text()),
            ));
        }
        for (field, dir) in &key {
            if field.is_empty() {
                return Err(Error::new(
                    ErrorKind::CannotCreateIndex,
                    format!("Error in specification {} :: caused by :: Index keys cannot be an empty field.", spec_text()),
                ));
            }
            match dir {
                Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                    let n = value::Number::from_bson(dir).map(|n| n.to_f64()).unwrap_or(0.0);
                    if n == 0.0 || n.is_nan() {
                        return Err(Error::new(
                            ErrorKind::CannotCreateIndex,
                            format!(
                                "Error in specification {} :: caused by :: Values in the index key pattern can't be 0.",
                                spec_text()
                            ),
                        ));
                    }
                }
                Bson::String(s) if ["text", "2d", "2dsphere", "hashed", "geoHaystack"].contains(&s.as_str()) => {}
                Bson::String(s) => {
                    return Err(Error::new(
                        ErrorKind::CannotCreateIndex,
                        format!("Error in specification {} :: caused by :: Unknown index plugin '{s}'", spec_text()),
                    ))
                }
                other => {
                    return Err(Error::new(
                        ErrorKind::CannotCreateIndex,
                        format!(
                            "Error in specification {} :: caused by :: Values in v:2 index key pattern cannot be of type {}. Only numbers > 0, numbers < 0, and strings are allowed.",
                            spec_text(),
                            value::types::type_name(other)
                        ),
                    ))
                }
            }
        }
        let name = match spec.get("name") {
            Some(Bson::String(n)) => n.clone(),
            Some(other) => {
                return Err(Error::type_mismatch(format!(
                    "The field 'name' must be a string, but got {}",
                    value::types::type_name(other)
                )))
            }
            None => default_name(&key),
        };
        if name.is_empty() {
            return Err(Error::new(
                ErrorKind::CannotCreateIndex,
                format!("Error in specification {} :: caused by :: index name cannot be empty", spec_text()),
            ));
        }
        for k in spec.keys() {
            if !KNOWN_OPTIONS.contains(&k.as_str()) {
                return Err(Error::new(
                    ErrorKind::InvalidIndexSpecificationOption,
                    format!("The field '{k}' is not valid for an index specification. Specification: {}", spec_text()),
                ));
            }
        }
        let is_id = key.len() == 1 && key.keys().next().map(|k| k == "_id").unwrap_or(false);
        let flag = |f: &str| spec.get(f).map(truthy).unwrap_or(false);
        let unique = flag("unique") || (is_id && name == ID_INDEX_NAME);
        let sparse = flag("sparse");
        let partial = match spec.get("partialFilterExpression") {
            Some(Bson::Document(f)) => Some(Matcher::parse(f)?),
            Some(other) => {
                return Err(Error::type_mismatch(format!(
                    "The field 'partialFilterExpression' must be an object, but got {}",
                    value::types::type_name(other)
                )))
            }
            None => None,
        };
        // The listed spec: v, key, name, then the options as given (minus v/key/name/ns/background).
        let mut listed = doc! {"v": 2, "key": key.clone(), "name": name.clone()};
        for (k, v) in spec {
            if !["v", "key", "name", "ns", "background"].contains(&k.as_str()) {
                listed.insert(k.clone(), v.clone());
            }
        }
        Ok(Index { spec: listed, name, key, unique, sparse, partial, entries: HashMap::new() })
    }

    /// True for the `_id` index.
    pub fn is_id(&self) -> bool {
        self.name == ID_INDEX_NAME
    }

    /// The spec without `v`/`name`, to compare a requested index with an existing one.
    pub fn options_equal(&self, other: &Index) -> bool {
        let strip = |d: &Document| {
            let mut d = d.clone();
            d.remove("v");
            d.remove("name");
            d
        };
        value::compare_documents(&strip(&self.spec), &strip(&other.spec)) == std::cmp::Ordering::Equal
    }

    /// The distinct keys `doc` has in this index (`None` when the index leaves it out: sparse or
    /// partial). Errors for parallel arrays in a compound key.
    pub fn keys_of(&self, doc: &Document) -> Result<Option<Vec<Document>>> {
        if let Some(p) = &self.partial {
            let env = Env::new(bson::DateTime::from_millis(0));
            if !p.matches(doc, &env)? {
                return Ok(None);
            }
        }
        let mut per_field: Vec<(String, Vec<Bson>)> = Vec::new();
        let mut array_fields: Vec<String> = Vec::new();
        let mut all_missing = true;
        for field in self.key.keys() {
            let parts: Vec<&str> = field.split('.').collect();
            let mut vals = Vec::new();
            let mut multikey = false;
            let mut found = false;
            match doc.get(parts[0]) {
                Some(v) => collect_key_values(v, &parts[1..], &mut vals, &mut multikey, &mut found),
                None => vals.push(Bson::Null),
            }
            if found {
                all_missing = false;
            }
            if multikey {
                array_fields.push(field.clone());
            }
            per_field.push((field.clone(), vals));
        }
        if self.sparse && all_missing {
            return Ok(None);
        }
        if array_fields.len() > 1 {
            return Err(Error::code(
                171,
                format!("cannot index parallel arrays [{}] [{}]", array_fields[1], array_fields[0]),
            ));
        }
        // Cartesian product (only one field can have several values).
        let mut keys: Vec<Document> = vec![Document::new()];
        for (field, vals) in per_field {
            let mut next = Vec::with_capacity(keys.len() * vals.len().max(1));
            for k in &keys {
                for v in &vals {
                    let mut k2 = k.clone();
                    k2.insert(field.clone(), v.clone());
                    next.push(k2);
                }
            }
            keys = next;
        }
        let mut seen = std::collections::HashSet::new();
        keys.retain(|k| seen.insert(key_bytes(k)));
        Ok(Some(keys))
    }

    /// Checks that `doc` (to be stored as record `rid`) would not duplicate a key of this unique
    /// index. `ns` names the collection in the message.
    pub fn check_unique(&self, ns: &str, doc: &Document, rid: u64) -> Result<()> {
        if !self.unique {
            return Ok(());
        }
        let Some(keys) = self.keys_of(doc)? else { return Ok(()) };
        for k in keys {
            if let Some(rids) = self.entries.get(&key_bytes(&k)) {
                if rids.iter().any(|r| *r != rid) {
                    return Err(self.duplicate_error(ns, &k));
                }
            }
        }
        Ok(())
    }

    /// The E11000 error for key `key` (`{ field: value, ... }`).
    pub fn duplicate_error(&self, ns: &str, key: &Document) -> Error {
        duplicate_key_error(ns, &self.name, &self.key, key)
    }

    /// Records `doc`'s keys for record `rid` (unique indexes only).
    pub fn add(&mut self, doc: &Document, rid: u64) {
        if !self.unique {
            return;
        }
        if let Ok(Some(keys)) = self.keys_of(doc) {
            for k in keys {
                let e = self.entries.entry(key_bytes(&k)).or_default();
                if !e.contains(&rid) {
                    e.push(rid);
                }
            }
        }
    }

    /// Forgets `doc`'s keys for record `rid`.
    pub fn remove(&mut self, doc: &Document, rid: u64) {
        if !self.unique {
            return;
        }
        if let Ok(Some(keys)) = self.keys_of(doc) {
            for k in keys {
                let kb = key_bytes(&k);
                if let Some(e) = self.entries.get_mut(&kb) {
                    e.retain(|r| *r != rid);
                    if e.is_empty() {
                        self.entries.remove(&kb);
                    }
                }
            }
        }
    }

    /// Drops every recorded key.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The server's E11000 error with `keyPattern`/`keyValue`.
pub fn duplicate_key_error(ns: &str, index_name: &str, key_pattern: &Document, key: &Document) -> Error {
    Error::new(
        ErrorKind::DuplicateKey,
        format!(
            "E11000 duplicate key error collection: {ns} index: {index_name} dup key: {}",
            display::document(key)
        ),
    )
    .with_info(doc! {"keyPattern": key_pattern.clone(), "keyValue": key.clone()})
}

/// Index keys compare as the server's index does: equal values (1, 1.0, Long(1)) share a key.
pub fn key_bytes(key: &Document) -> Vec<u8> {
    let mut out = Vec::new();
    for v in key.values() {
        out.extend_from_slice(&value::hash_key(v));
    }
    out
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        other => value::Number::from_bson(other).map(|n| n.to_f64() != 0.0).unwrap_or(true),
    }
}

/// The values a document has for a dotted key path, as the server's key generator finds them:
/// arrays along the path are expanded (each element a key), a missing field is null, an empty
/// array at the end is `undefined`.
fn collect_key_values(v: &Bson, parts: &[&str], out: &mut Vec<Bson>, multikey: &mut bool, found: &mut bool) {
    if parts.is_empty() {
        *found = true;
        match v {
            Bson::Array(a) => {
                *multikey = true;
                if a.is_empty() {
                    out.push(Bson::Undefined);
                } else {
                    out.extend(a.iter().cloned());
                }
            }
            other => out.push(other.clone()),
        }
        return;
    }
    match v {
        Bson::Document(d) => match d.get(parts[0]) {
            Some(next) => collect_key_values(next, &parts[1..], out, multikey, found),
            None => out.push(Bson::Null),
        },
        Bson::Array(a) => {
            *multikey = true;
            if let Some(i) = crate::value::path::array_index(parts[0]) {
                if let Some(e) = a.get(i) {
                    collect_key_values(e, &parts[1..], out, multikey, found);
                    return;
                }
            }
            if a.is_empty() {
                out.push(Bson::Null);
            }
            for e in a {
                match e {
                    Bson::Document(_) => collect_key_values(e, parts, out, multikey, found),
                    _ => out.push(Bson::Null),
                }
            }
        }
        _ => out.push(Bson::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_specs() {
        assert_eq!(default_name(&doc! {"a": 1, "b": -1}), "a_1_b_-1");
        assert_eq!(default_name(&doc! {"t": "text"}), "t_text");
        let ix = Index::from_spec(&doc! {"key": {"a": 1}, "unique": true}).unwrap();
        assert_eq!(ix.spec, doc! {"v": 2, "key": {"a": 1}, "name": "a_1", "unique": true});
        assert_eq!(Index::from_spec(&doc! {"key": {"a": 0}}).unwrap_err().code_num(), 67);
    }

    #[test]
    fn multikey_keys() {
        let ix = Index::from_spec(&doc! {"key": {"a.b": 1}, "unique": true}).unwrap();
        let keys = ix.keys_of(&doc! {"a": [{"b": 1}, {"b": 1}, {"c": 2}]}).unwrap().unwrap();
        assert_eq!(keys, vec![doc! {"a.b": 1}, doc! {"a.b": null}]);
    }
}
