//! Indexes: specifications as the server lists them (`{ v: 2, key, name, ...options }`) and the
//! keys of every document in index order (`keystring` bytes with their record ids, in a
//! `keytree`), which the planner scans and unique indexes check before a write is applied.

use std::borrow::Cow;

use bson::{doc, Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;
use crate::value;

use crate::value::display;

use super::keystring;
use super::keytree::KeyTree;
use super::wildcard::{self, Wildcard};

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
    /// Index order of each key field: `true` for descending.
    descending: Vec<bool>,
    /// The keys in index order, each once per record holding it (record ids ascending). A key
    /// is its values' order-preserving encoding (`keystring.rs`): one byte comparison orders two
    /// keys; the pairs are kept compactly (`keytree.rs`).
    entries: KeyTree,
    /// True once a document put several keys in the index (an array on a key path).
    pub multikey: bool,
    /// Per key field, the paths of the arrays documents had along it (the server's
    /// `multiKeyPaths`): fields sharing one cannot have their bounds combined.
    pub multikey_paths: Vec<Vec<String>>,
    /// A wildcard index (`{ "$**": 1 }`, `{ "a.$**": 1 }`): its keys are `{ $_path, value }`
    /// (see `wildcard.rs`), and its multikey paths are kept there.
    pub wildcard: Option<Wildcard>,
    /// Each key field's path (from `key`), as its first part and the others: the key read
    /// from a document's bytes finds every first part in one walk (`raw_key_into`).
    key_paths: Vec<(String, Vec<String>)>,
}

/// The key fields' paths of a key pattern (see `Index::key_paths`).
fn key_paths(key: &Document) -> Vec<(String, Vec<String>)> {
    key.keys()
        .map(|k| {
            let mut parts = k.split('.').map(String::from);
            (parts.next().unwrap_or_default(), parts.collect())
        })
        .collect()
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
            descending: vec![false],
            entries: KeyTree::new(),
            multikey: false,
            multikey_paths: vec![Vec::new()],
            wildcard: None,
            key_paths: key_paths(&doc! {"_id": 1}),
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
        // `wildcardProjection` as the server's `validateIndexSpec` checks it.
        if let Some(p) = spec.get("wildcardProjection") {
            let wildcard = key.keys().any(|k| k == "$**" || k.ends_with(".$**"));
            if !wildcard {
                return Err(Error::bad_value("The field 'wildcardProjection' is only allowed in 'wildcard' indexes"));
            }
            let Bson::Document(p) = p else {
                return Err(Error::type_mismatch(format!(
                    "The field 'wildcardProjection' must be a non-empty object, but got {}",
                    value::types::type_name(p)
                )));
            };
            if !key.contains_key("$**") {
                return Err(Error::failed_to_parse("The field 'wildcardProjection' is only allowed when 'key' is {\"$**\": ±1}"));
            }
            if p.is_empty() {
                return Err(Error::failed_to_parse("The 'wildcardProjection' field can't be an empty object"));
            }
        }
        let is_id = key.len() == 1 && key.keys().next().map(|k| k == "_id").unwrap_or(false);
        let flag = |f: &str| spec.get(f).map(truthy).unwrap_or(false);
        // The server's catalog checks of a wildcard index (`IndexCatalogImpl::_isSpecOk`).
        if key.keys().any(|k| k == "$**" || k.ends_with(".$**")) {
            let refused = if flag("sparse") {
                Some("does not support the sparse option")
            } else if flag("unique") {
                Some("does not support the unique option")
            } else if spec.contains_key("expireAfterSeconds") {
                Some("cannot be a TTL index")
            } else {
                None
            };
            if let Some(what) = refused {
                return Err(Error::new(ErrorKind::CannotCreateIndex, format!("Index type 'wildcard' {what}")));
            }
        }
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
        let mut descending: Vec<bool> = key
            .values()
            .map(|v| value::Number::from_bson(v).map(|n| n.to_f64() < 0.0).unwrap_or(false))
            .collect();
        let wildcard = wildcard::wildcard_field(&key).map(|f| Wildcard::new(f, spec.get_document("wildcardProjection").ok()));
        if wildcard.is_some() {
            // The keys are `{ $_path: 1, <field>: ±1 }`.
            descending.insert(0, false);
        }
        let multikey_paths = vec![Vec::new(); key.len()];
        let key_paths = key_paths(&key);
        Ok(Index { spec: listed, name, key, unique, sparse, partial, descending, entries: KeyTree::new(), multikey: false, multikey_paths, wildcard, key_paths })
    }

    /// True for an index with a `partialFilterExpression`.
    pub fn is_partial(&self) -> bool {
        self.partial.is_some()
    }

    /// Whether a document's keys in this index may change when only the top-level fields for
    /// which `touched` is true change (a partial index: always).
    pub fn may_change(&self, touched: impl Fn(&str) -> bool) -> bool {
        self.partial.is_some() || self.key_paths.iter().any(|(top, rest)| (top == "$**" && rest.is_empty()) || touched(top))
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
    /// partial), and per key field the paths of the arrays along it. Errors for parallel arrays: two key
    /// fields that go through different arrays (`{a: 1, b: 1}` on `{a: [..], b: [..]}`); fields
    /// through one array (`attrs.k`, `attrs.v`) are fine.
    pub fn keys_with_multikey(&self, doc: &Document) -> Result<Option<(Vec<Document>, Vec<Vec<String>>)>> {
        if let Some(p) = &self.partial {
            let env = Env::new(bson::DateTime::from_millis(0));
            if !p.matches(doc, &env)? {
                return Ok(None);
            }
        }
        if let Some(w) = &self.wildcard {
            let (keys, multikey) = w.keys(doc);
            if keys.is_empty() {
                return Ok(None);
            }
            let field = self.key.keys().next().cloned().unwrap_or_default();
            let keys = keys.into_iter().map(|(path, v)| {
                let mut k = Document::new();
                k.insert("$_path", path);
                k.insert(field.clone(), v);
                k
            });
            return Ok(Some((keys.collect(), vec![multikey])));
        }
        if let Some(key) = self.scalar_key(doc) {
            return Ok(key.map(|k| (vec![k], vec![Vec::new(); self.key.len()])));
        }
        let paths: Vec<Vec<&str>> = self.key.keys().map(|f| f.split('.').collect()).collect();
        let mut gen = KeyGen { paths: &paths, sparse: self.sparse, keys: Vec::new(), multikey: vec![Vec::new(); paths.len()] };
        let start: Vec<Slot> = vec![Slot::Pending(0); paths.len()];
        let no_positional: Vec<Option<Positional>> = vec![None; paths.len()];
        gen.walk(Some(doc), &start, &no_positional, 0)?;
        if gen.keys.is_empty() {
            if self.sparse {
                return Ok(None);
            }
            gen.keys.push(vec![Bson::Null; paths.len()]);
        }
        let names: Vec<&String> = self.key.keys().collect();
        let mut seen = std::collections::HashSet::new();
        let mut keys = Vec::with_capacity(gen.keys.len());
        for values in gen.keys {
            let mut k = Document::new();
            for (name, v) in names.iter().zip(values) {
                k.insert((*name).clone(), v);
            }
            if seen.insert(key_bytes(&k)) {
                keys.push(k);
            }
        }
        let multikey = gen
            .multikey
            .iter()
            .zip(&paths)
            .map(|(comps, parts)| comps.iter().map(|c| parts[..=*c].join(".")).collect())
            .collect();
        Ok(Some((keys, multikey)))
    }

    /// The common case of [`Index::keys_with_multikey`]: no array along any key path, so `doc`
    /// has one key (a missing field is null) and is left out of a sparse index only when every
    /// key field is missing. `None` when an array is met (the general key generator decides).
    fn scalar_key(&self, doc: &Document) -> Option<Option<Document>> {
        let mut key = Document::new();
        let mut all_missing = true;
        for field in self.key.keys() {
            let mut parts = field.split('.');
            let mut cur = doc.get(parts.next()?);
            for part in parts {
                cur = match cur {
                    Some(Bson::Document(d)) => d.get(part),
                    Some(Bson::Array(_)) => return None,
                    _ => None,
                };
            }
            let v = match cur {
                Some(Bson::Array(_)) => return None,
                Some(v) => {
                    all_missing = false;
                    v.clone()
                }
                None => Bson::Null,
            };
            key.insert(field.clone(), v);
        }
        Some(if self.sparse && all_missing { None } else { Some(key) })
    }

    /// [`Index::scalar_key`] read from a document's bytes, appended to `out` encoded as the
    /// index orders it: `None` when the general key generator must decide (a partial or
    /// wildcard index, an array along a key path, bytes that do not read), `Some(false)` when a
    /// sparse index leaves the document out, `Some(true)` when its one key was appended.
    pub fn raw_key_into(&self, doc: &bson::RawDocument, out: &mut Vec<u8>) -> Option<bool> {
        if self.partial.is_some() || self.wildcard.is_some() {
            return None;
        }
        let start = out.len();
        let mut all_missing = true;
        // The key fields' first parts are found in one walk over the document's elements (for
        // up to `AT_ONCE` fields: the usual index; more are looked up one by one).
        const AT_ONCE: usize = 8;
        let n = self.key_paths.len();
        let mut tops = [""; AT_ONCE];
        let mut firsts = [Some(None); AT_ONCE];
        if n <= AT_ONCE {
            for (slot, (top, _)) in tops.iter_mut().zip(&self.key_paths) {
                *slot = top.as_str();
            }
            value::raw::find_fields_into(doc, &tops[..n], &mut firsts[..n]);
        }
        for (i, (top, rest)) in self.key_paths.iter().enumerate() {
            let first = if n <= AT_ONCE { firsts[i] } else { value::raw::get(doc, top).ok() };
            let found = value::raw::lookup_path_from(first, rest);
            // As [`Index::key_of_values`]: the first `descending.len()` fields make the key.
            let desc = self.descending.get(i).copied();
            match found {
                value::raw::RawLookup::Decode => {
                    out.truncate(start);
                    return None;
                }
                value::raw::RawLookup::Missing => {
                    if let Some(desc) = desc {
                        keystring::append_dir(&Bson::Null, desc, out);
                    }
                }
                value::raw::RawLookup::Value(v) => {
                    all_missing = false;
                    // Strings and the fixed-size kinds are encoded from the bytes as they are.
                    if !desc.is_some_and(|d| keystring::append_raw_dir(v, d, out)) {
                        let Ok(v) = value::raw::decode_value(v) else {
                            out.truncate(start);
                            return None;
                        };
                        if let Some(desc) = desc {
                            keystring::append_dir(&v, desc, out);
                        }
                    }
                }
            }
        }
        if self.sparse && all_missing {
            out.truncate(start);
            return Some(false);
        }
        Some(true)
    }

    /// Forgets key `key` (from [`Index::raw_key_into`]) for record `rid`.
    pub fn remove_key(&mut self, key: &[u8], rid: u64) {
        self.entries.remove(key, rid);
    }

    /// Forgets the `(key, record id)` pairs of `pairs` (keys as [`Index::raw_key_into`] or
    /// [`Index::index_key`] give them), sorted, at once (see `KeyTree::remove_sorted`).
    pub fn remove_sorted_keys(&mut self, pairs: &[(&[u8], u64)]) {
        self.entries.remove_sorted(pairs);
    }

    /// Forgets every entry of the records `gone` says are gone (see `KeyTree::retain_rids`).
    pub fn remove_rids(&mut self, gone: impl Fn(u64) -> bool) {
        self.entries.retain_rids(|rid| !gone(rid));
    }

    /// Forgets every entry of the records `gone` says moved and records the pairs of `add`
    /// (sorted, as [`Index::add_sorted_keys`] takes them) in one pass (see
    /// `KeyTree::merge_rids`).
    pub fn replace_rids(&mut self, gone: impl Fn(u64) -> bool, add: &[(&[u8], u64)]) {
        self.entries.merge_rids(|rid| !gone(rid), add);
    }

    /// Records the `(key, record id)` pairs of `pairs` (keys as [`Index::raw_key_into`] gives
    /// them), sorted, at once (see `KeyTree::insert_sorted`).
    pub fn add_sorted_keys(&mut self, pairs: &[(&[u8], u64)]) {
        self.entries.insert_sorted(pairs);
    }

    /// Records key `key` (from [`Index::raw_key_into`]) for record `rid`.
    pub fn add_key(&mut self, key: &[u8], rid: u64) {
        self.entries.insert(key, rid);
    }

    /// The distinct keys `doc` has in this index (see [`Index::keys_with_multikey`]).
    pub fn keys_of(&self, doc: &Document) -> Result<Option<Vec<Document>>> {
        Ok(self.keys_with_multikey(doc)?.map(|(k, _)| k))
    }

    /// A key document (`{ field: value, .. }`) as this index orders it: its values encoded
    /// (see `keystring.rs`), descending fields complemented.
    pub fn index_key(&self, key: &Document) -> Vec<u8> {
        keystring::encode_key(key.values().take(self.descending.len()), &self.descending)
    }

    /// The key of values given in key field order (`{ _id: v }` as `[v]`).
    pub fn key_of_values<'a>(&self, values: impl IntoIterator<Item = &'a Bson>) -> Vec<u8> {
        keystring::encode_key(values.into_iter().take(self.descending.len()), &self.descending)
    }

    /// Whether key field `i` is descending.
    pub fn is_descending(&self, i: usize) -> bool {
        self.descending.get(i).copied().unwrap_or(false)
    }

    /// The direction of each key field (`true`: descending), as the keys are encoded.
    pub fn directions(&self) -> &[bool] {
        &self.descending
    }

    /// The values of a key of this index (equal to those indexed; see `keystring::decode`).
    pub fn key_values(&self, key: &[u8]) -> Option<Vec<Bson>> {
        keystring::decode_key(key, &self.descending)
    }

    /// The keys in index order with their record ids.
    pub fn entries(&self) -> &KeyTree {
        &self.entries
    }

    /// The number of keys (one per record holding it).
    pub fn key_count(&self) -> usize {
        self.entries.len()
    }

    /// Checks that `doc` (to be stored as record `rid`) would not duplicate a key of this unique
    /// index. `ns` names the collection in the message.
    pub fn check_unique(&self, ns: &str, doc: &Document, rid: u64) -> Result<()> {
        if !self.unique {
            return Ok(());
        }
        let Some(keys) = self.keys_of(doc)? else { return Ok(()) };
        for k in keys {
            let mut clash = false;
            self.entries.rids_of(&self.index_key(&k), |r| {
                clash = r != rid;
                !clash
            });
            if clash {
                return Err(self.duplicate_error(ns, &k));
            }
        }
        Ok(())
    }

    /// The E11000 error for key `key` (`{ field: value, ... }`).
    pub fn duplicate_error(&self, ns: &str, key: &Document) -> Error {
        duplicate_key_error(ns, &self.name, &self.key, key)
    }

    /// Adds one document's multikey paths (per key field) to the index's.
    fn note_multikey_paths(&mut self, paths: Vec<Vec<String>>) {
        if let Some(w) = &mut self.wildcard {
            for p in paths.into_iter().flatten() {
                self.multikey = true;
                w.multikey.insert(p);
            }
            return;
        }
        for (known, new) in self.multikey_paths.iter_mut().zip(paths) {
            for p in new {
                self.multikey = true;
                if !known.contains(&p) {
                    known.push(p);
                }
            }
        }
    }

    /// Records `doc`'s keys for record `rid`.
    pub fn add(&mut self, doc: &Document, rid: u64) {
        if let Ok(Some((keys, paths))) = self.keys_with_multikey(doc) {
            self.add_keys(keys, paths, rid);
        }
    }

    /// Records keys (and the array paths met making them) for record `rid`.
    fn add_keys(&mut self, keys: Vec<Document>, paths: Vec<Vec<String>>, rid: u64) {
        self.note_multikey_paths(paths);
        for k in keys {
            self.entries.insert(&self.index_key(&k), rid);
        }
    }

    /// Moves record `rid` from its old keys (`old`, encoded as the index orders them) to those
    /// of `doc`. Nothing changes when the keys stayed the same and no new array appeared along
    /// the key paths (an update of other fields), so an update does not pay for the index
    /// entries of a key that many records share.
    pub fn rekey<'k>(&mut self, old: impl Iterator<Item = &'k [u8]> + Clone, doc: &Document, rid: u64) {
        // The new keys are made once, for the comparison and for adding them.
        let new = self.keys_with_multikey(doc);
        if let Ok(Some((keys, paths))) = &new {
            let known = match &self.wildcard {
                Some(w) => paths.iter().flatten().all(|p| w.multikey.contains(p)),
                None => self.multikey_paths.iter().zip(paths).all(|(k, p)| p.iter().all(|x| k.contains(x))),
            };
            let same = old.clone().count() == keys.len() && old.clone().zip(keys).all(|(a, b)| a == self.index_key(b));
            if known && same {
                return;
            }
        }
        for k in old {
            self.entries.remove(k, rid);
        }
        if let Ok(Some((keys, paths))) = new {
            self.add_keys(keys, paths, rid);
        }
    }

    /// Forgets `doc`'s keys for record `rid`.
    pub fn remove(&mut self, doc: &Document, rid: u64) {
        if let Ok(Some(keys)) = self.keys_of(doc) {
            self.remove_keys(&keys, rid);
        }
    }

    /// Forgets keys (as [`Index::keys_of`] gave them for the record's old document) for record
    /// `rid`.
    pub fn remove_keys(&mut self, keys: &[Document], rid: u64) {
        for k in keys {
            self.entries.remove(&self.index_key(k), rid);
        }
    }

    /// Drops every recorded key.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Builds this (empty) index over `docs` (in natural order) as a bulk load: every key is
    /// generated, the keys are sorted once and the tree is built from the sorted run (O(n log n),
    /// fully packed nodes), instead of one tree insertion per document. Fails as adding the
    /// documents one by one would: at the first document, in natural order, whose keys cannot be
    /// generated (parallel arrays) or whose key a unique index already holds for an earlier one.
    /// `docs` may be decoded as they are read (an error reading one fails the load).
    pub fn bulk_load<D: std::borrow::Borrow<Document>>(&mut self, ns: &str, docs: impl Iterator<Item = Result<(u64, D)>>) -> Result<()> {
        let mut pairs: Vec<(Vec<u8>, u64, Document)> = Vec::new();
        let mut failed: Option<(u64, Error)> = None;
        for item in docs {
            let (rid, doc) = item?;
            match self.keys_with_multikey(doc.borrow()) {
                Err(e) => {
                    failed = Some((rid, e));
                    break;
                }
                Ok(None) => {}
                Ok(Some((keys, paths))) => {
                    self.note_multikey_paths(paths);
                    for k in keys {
                        pairs.push((self.index_key(&k), rid, if self.unique { k } else { Document::new() }));
                    }
                }
            }
        }
        // Equal keys in record id (natural) order.
        pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        if self.unique {
            // The first duplicate in natural order: the smallest record id that meets a key an
            // earlier record holds.
            let mut dup: Option<(u64, usize)> = None;
            for i in 1..pairs.len() {
                if pairs[i].0 == pairs[i - 1].0 && pairs[i].1 != pairs[i - 1].1 && dup.is_none_or(|(r, _)| pairs[i].1 < r) {
                    dup = Some((pairs[i].1, i));
                }
            }
            if let Some((rid, i)) = dup {
                if failed.as_ref().is_none_or(|(r, _)| rid < *r) {
                    return Err(self.duplicate_error(ns, &pairs[i].2));
                }
            }
        }
        if let Some((_, e)) = failed {
            return Err(e);
        }
        pairs.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        self.entries = KeyTree::from_sorted(pairs.into_iter().map(|(k, rid, _)| (k, rid)));
        Ok(())
    }

    /// [`Index::bulk_load`] over stored documents: each key read from the bytes
    /// ([`Index::raw_key_into`], into one buffer) where it can be, the document decoded
    /// (`decode`) for the general key generator only where that must decide; the keys are then
    /// sorted as spans of that buffer, with no allocation per key. A unique index takes
    /// [`Index::bulk_load`] (its duplicate error names the key's values).
    pub fn bulk_load_stored<'r>(
        &mut self,
        ns: &str,
        records: impl Iterator<Item = Result<(u64, &'r bson::RawDocument)>>,
        decode: impl Fn(&bson::RawDocument) -> Result<Document>,
    ) -> Result<()> {
        if self.unique {
            return self.bulk_load(ns, records.map(|r| r.and_then(|(rid, raw)| Ok((rid, decode(raw)?)))));
        }
        let mut arena: Vec<u8> = Vec::new();
        // (start, end) of each key in `arena`, and its record id.
        let mut spans: Vec<(usize, usize, u64)> = Vec::new();
        for item in records {
            let (rid, raw) = item?;
            let paths = self.stored_keys_into(rid, raw, || decode(raw).map(Some), &mut arena, &mut spans)?;
            self.note_multikey_paths(paths);
        }
        // Equal keys in record id (natural) order: the records come in that order. A key an
        // array gives twice for one record is recorded once.
        self.entries = KeyTree::from_sorted(sorted_pairs(spans.iter().map(|&(s, e, rid)| (&arena[s..e], rid))));
        Ok(())
    }

    /// Appends the keys of stored document `raw` (record `rid`) to `arena`, each with its span
    /// and record in `spans`: read from the bytes where they can be ([`Index::raw_key_into`]),
    /// else made by the general key generator from the document `doc` gives (no keys when it
    /// gives none). The array paths that generator met, for the index's multikey paths.
    fn stored_keys_into(
        &self,
        rid: u64,
        raw: &bson::RawDocument,
        doc: impl FnOnce() -> Result<Option<Document>>,
        arena: &mut Vec<u8>,
        spans: &mut Vec<(usize, usize, u64)>,
    ) -> Result<Vec<Vec<String>>> {
        let start = arena.len();
        match self.raw_key_into(raw, arena) {
            Some(true) => spans.push((start, arena.len(), rid)),
            Some(false) => {}
            None => {
                arena.truncate(start);
                let Some(doc) = doc()? else { return Ok(Vec::new()) };
                if let Some((keys, paths)) = self.keys_with_multikey(&doc)? {
                    for k in keys {
                        let at = arena.len();
                        arena.extend_from_slice(&self.index_key(&k));
                        spans.push((at, arena.len(), rid));
                    }
                    return Ok(paths);
                }
            }
        }
        Ok(Vec::new())
    }

    /// Checks the recorded keys against stored documents (`validate`): every key a document has
    /// is recorded for its record, and every recorded key belongs to a document that has it; a
    /// unique index holds each key once. Each document's keys are read as
    /// [`Index::bulk_load_stored`] reads them (from the bytes where they can be, else from the
    /// document `decode` gives: one that does not decode has no keys to expect), sorted, and
    /// walked beside the recorded keys, in one pass each.
    pub fn check_stored<'r>(&self, records: impl Iterator<Item = (u64, &'r bson::RawDocument)>, decode: impl Fn(&bson::RawDocument) -> Result<Document>) -> IndexCheck {
        let mut out = IndexCheck::default();
        let mut arena: Vec<u8> = Vec::new();
        let mut spans: Vec<(usize, usize, u64)> = Vec::new();
        for (rid, raw) in records {
            if self.stored_keys_into(rid, raw, || Ok(decode(raw).ok()), &mut arena, &mut spans).is_err() {
                out.unindexable += 1;
            }
        }
        // Both in (key, record id) order, each pair once.
        let expected = sorted_pairs(spans.iter().map(|&(s, e, rid)| (&arena[s..e], rid)));
        let mut next = expected.iter().peekable();
        let mut last: Option<Vec<u8>> = None;
        self.entries.for_each(|key, rid| {
            if self.unique && last.as_deref() == Some(key) {
                out.duplicates += 1;
            }
            out.keys += 1;
            while next.next_if(|&&(k, r)| (k, r) < (key, rid)).is_some() {
                out.missing += 1;
            }
            if next.next_if(|&&(k, r)| (k, r) == (key, rid)).is_none() {
                out.extra += 1;
            }
            let held = last.get_or_insert_with(Vec::new);
            held.clear();
            held.extend_from_slice(key);
            true
        });
        out.missing += next.count();
        out
    }
}

/// What [`Index::check_stored`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IndexCheck {
    /// The keys recorded.
    pub keys: usize,
    /// Keys of documents that are not recorded for them.
    pub missing: usize,
    /// Recorded keys no document has.
    pub extra: usize,
    /// Records sharing a key of a unique index (beyond the first).
    pub duplicates: usize,
    /// Documents whose keys cannot be generated (parallel arrays).
    pub unindexable: usize,
}

impl IndexCheck {
    pub fn valid(&self) -> bool {
        self.missing == 0 && self.extra == 0 && self.duplicates == 0 && self.unindexable == 0
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

/// The state of one key field while the key generator walks a document: its value found, or
/// how many components of its path were consumed.
#[derive(Clone)]
enum Slot<'d> {
    Done(Cow<'d, Bson>),
    Pending(usize),
}

/// An array element a key path names by position (`a.0` on `{a: [..]}`), found once per array
/// and used for every element of it: the element itself, and where the rest of its path leads.
#[derive(Clone)]
struct Positional<'d> {
    /// The positional element is itself an array (its elements are then not separate keys).
    is_array: bool,
    /// The value the path reaches from it (stopping at the next array), and the path
    /// components consumed by then.
    reached: Option<&'d Bson>,
    depth: usize,
    /// The array, for the ambiguity error.
    array: &'d [Bson],
}

/// The server's B-tree key generator: arrays along the key paths are expanded one at a time
/// (fields through the same array take their values from the same element; through different
/// arrays is an error), an array at the end of a path gives one key per element (`undefined`
/// when empty), a numeric path component after an array selects that element (which is then
/// not expanded when it is itself an array), a missing field is null. Records per field the
/// components at which an array made the index multikey.
struct KeyGen<'p> {
    paths: &'p [Vec<&'p str>],
    sparse: bool,
    keys: Vec<Vec<Bson>>,
    multikey: Vec<Vec<usize>>,
}

/// Follows `parts[depth..]` from document `d` through embedded documents, stopping at the end
/// of the path or at the first array: the value there and the components consumed.
fn to_array_or_end<'d>(d: &'d Document, parts: &[&str], mut depth: usize) -> (Option<&'d Bson>, usize) {
    let mut cur = d;
    loop {
        let Some(v) = value::path::field(cur, parts[depth]) else { return (None, depth) };
        depth += 1;
        if depth == parts.len() {
            return (Some(v), depth);
        }
        match v {
            Bson::Array(_) => return (Some(v), depth),
            Bson::Document(sub) => cur = sub,
            _ => return (None, depth),
        }
    }
}

/// [`to_array_or_end`] from an array whose element `parts[depth]` names by position.
fn positional_from<'d>(a: &'d [Bson], parts: &[&str], depth: usize) -> Option<Positional<'d>> {
    let elem = a.get(value::path::array_index(parts[depth])?)?;
    let (reached, end) = if depth + 1 == parts.len() {
        (Some(elem), depth + 1)
    } else {
        match elem {
            Bson::Array(_) => (Some(elem), depth + 1),
            Bson::Document(d) => to_array_or_end(d, parts, depth + 1),
            _ => (None, depth + 1),
        }
    };
    Some(Positional { is_array: matches!(elem, Bson::Array(_)), reached, depth: end, array: a })
}

impl<'p> KeyGen<'p> {
    /// Generates the keys below `obj` (`None`: an element that is not a document) for the
    /// fields in `slots`, `not_found` of which were missing.
    fn walk<'d>(&mut self, obj: Option<&'d Document>, slots: &[Slot<'d>], positional: &[Option<Positional<'d>>], mut not_found: usize) -> Result<()> {
        let n = self.paths.len();
        let mut slots: Vec<Slot<'d>> = slots.to_vec();
        let mut array: Option<&'d Bson> = None;
        let mut through: Vec<usize> = Vec::new();
        let mut expand = true;
        for i in 0..n {
            let Slot::Pending(depth) = slots[i] else { continue };
            let parts = &self.paths[i];
            if depth == parts.len() {
                continue;
            }
            let here = obj.and_then(|d| value::path::field(d, parts[depth])).is_some();
            let (found, next, nested) = match (&positional[i], here) {
                (Some(p), true) => {
                    return Err(Error::code(
                        16746,
                        format!(
                            "Ambiguous field name found in array (do not use numeric field names in embedded elements in an array), field: '{}' for array: {}",
                            parts[depth],
                            display::document(&p.array.iter().enumerate().map(|(k, v)| (k.to_string(), v.clone())).collect())
                        ),
                    ))
                }
                (_, true) => {
                    let (v, d) = obj.map(|o| to_array_or_end(o, parts, depth)).unwrap_or((None, depth));
                    (v, d, false)
                }
                (Some(p), false) => (p.reached, p.depth, p.is_array),
                (None, false) => (None, depth, false),
            };
            match found {
                None => {
                    slots[i] = Slot::Done(Cow::Owned(Bson::Null));
                    not_found += 1;
                }
                Some(v @ Bson::Array(_)) => {
                    match array {
                        None => array = Some(v),
                        Some(a) if std::ptr::eq(a, v) => {}
                        Some(_) => {
                            let first = through.first().map(|j| match slots[*j] {
                                Slot::Pending(d) => self.paths[*j][d - 1],
                                Slot::Done(_) => "",
                            });
                            return Err(Error::code(171, format!("cannot index parallel arrays [{}] [{}]", parts[next - 1], first.unwrap_or(""))));
                        }
                    }
                    through.push(i);
                    slots[i] = Slot::Pending(next);
                    if nested {
                        expand = false;
                    }
                }
                Some(v) => slots[i] = Slot::Done(Cow::Borrowed(v)),
            }
        }
        let Some(Bson::Array(elems)) = array else {
            if self.sparse && not_found == n {
                return Ok(());
            }
            let key = slots
                .iter()
                .map(|s| match s {
                    Slot::Done(v) => v.clone().into_owned(),
                    Slot::Pending(_) => Bson::Null,
                })
                .collect();
            self.keys.push(key);
            return Ok(());
        };
        let whole = array.map(|a| Cow::Borrowed(a));
        if elems.is_empty() {
            if expand {
                for &i in &through {
                    if let Slot::Pending(d) = slots[i] {
                        self.mark(i, d - 1);
                    }
                }
            }
            let mut next = slots.clone();
            for &i in &through {
                if let Slot::Pending(d) = next[i] {
                    if d == self.paths[i].len() {
                        next[i] = Slot::Done(if expand { Cow::Owned(Bson::Undefined) } else { whole.clone().unwrap_or(Cow::Owned(Bson::Undefined)) });
                    }
                }
            }
            let none: Vec<Option<Positional>> = vec![None; n];
            return self.walk(None, &next, &none, not_found);
        }
        let mut sub: Vec<Option<Positional<'d>>> = vec![None; n];
        for &i in &through {
            let Slot::Pending(d) = slots[i] else { continue };
            let parts = &self.paths[i];
            if d == parts.len() {
                if expand {
                    self.mark(i, d - 1);
                }
                continue;
            }
            match positional_from(elems, parts, d) {
                Some(p) => sub[i] = Some(p),
                None => self.mark(i, d - 1),
            }
        }
        let mut next = slots.clone();
        for e in elems {
            for &i in &through {
                if let Slot::Pending(d) = slots[i] {
                    if d == self.paths[i].len() {
                        next[i] = Slot::Done(if expand { Cow::Borrowed(e) } else { whole.clone().unwrap_or(Cow::Borrowed(e)) });
                    }
                }
            }
            let obj = if let Bson::Document(d) = e { Some(d) } else { None };
            self.walk(obj, &next, &sub, not_found)?;
        }
        Ok(())
    }

    fn mark(&mut self, field: usize, component: usize) {
        let m = &mut self.multikey[field];
        if !m.contains(&component) {
            m.push(component);
        }
    }
}

/// From this many pairs on, [`sorted_pairs`] deals them into buckets before comparing.
const BUCKET_SORT_FROM: usize = 2048;

/// `(key, record id)` pairs in (key, record id) order without repeats, as `KeyTree`'s sorted
/// removals and additions and its bulk load take them. Many pairs are sorted as a sort's keys are
/// ([`super::exec::order_of_keys`]: buckets by the keys' first bytes, ties in the order given),
/// then each run of one key put in record id order unless the ids came ascending; fewer pairs by
/// comparison, each key's first 16 bytes compared as a number first (keys are prefix-free: two of
/// at most 16 bytes with the same first bytes are equal or one is the shorter).
pub(crate) fn sorted_pairs<'a>(pairs: impl Iterator<Item = (&'a [u8], u64)>) -> Vec<(&'a [u8], u64)> {
    let pairs: Vec<(&[u8], u64)> = pairs.collect();
    if pairs.len() >= BUCKET_SORT_FROM {
        if let Ok(order) = super::exec::order_of_keys(pairs.len(), |i| pairs.get(i).map_or(&[][..], |p| p.0)) {
            let mut out: Vec<(&[u8], u64)> = order.into_iter().filter_map(|i| pairs.get(i).copied()).collect();
            if !pairs.windows(2).all(|w| w[0].1 <= w[1].1) {
                for run in out.chunk_by_mut(|a, b| a.0 == b.0) {
                    run.sort_unstable_by_key(|p| p.1);
                }
            }
            out.dedup();
            return out;
        }
    }
    let head = |k: &[u8]| {
        let mut b = [0u8; 16];
        let n = k.len().min(16);
        b[..n].copy_from_slice(&k[..n]);
        u128::from_be_bytes(b)
    };
    let mut sorted: Vec<(u128, &[u8], u64)> = pairs.into_iter().map(|(k, rid)| (head(k), k, rid)).collect();
    sorted.sort_unstable_by(|x, y| {
        x.0.cmp(&y.0)
            .then_with(|| if x.1.len() > 16 || y.1.len() > 16 { x.1.cmp(y.1) } else { x.1.len().cmp(&y.1.len()) })
            .then(x.2.cmp(&y.2))
    });
    let mut out: Vec<(&[u8], u64)> = sorted.into_iter().map(|(_, k, rid)| (k, rid)).collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Index::check_stored`] of documents given decoded (encoded here, as they are stored).
    fn check<'d>(ix: &Index, docs: impl Iterator<Item = (u64, &'d Document)>) -> IndexCheck {
        let stored: Vec<(u64, Vec<u8>)> = docs.map(|(rid, d)| (rid, d.to_vec().unwrap())).collect();
        ix.check_stored(stored.iter().map(|(rid, b)| (*rid, bson::RawDocument::from_bytes(b).unwrap())), |raw| crate::value::raw::decode(raw).map_err(|e| Error::bad_value(e.to_string())))
    }

    /// `check_stored` against documents that differ from what was recorded: a changed key is one
    /// missing and one extra, a record the index lacks is missing, one the documents lack extra;
    /// an array's keys come from the decoded document; a unique index's repeated key and parallel
    /// arrays are counted.
    #[test]
    fn check_stored_counts_what_differs() {
        let check_docs = |ix: &Index, docs: &[(u64, Document)]| check(ix, docs.iter().map(|(rid, d)| (*rid, d)));
        let mut ix = Index::from_spec(&doc! {"key": {"g": 1}, "name": "g_1"}).unwrap();
        let docs: Vec<(u64, Document)> = vec![(1, doc! {"g": 1}), (2, doc! {"g": [2, 3, 2]}), (3, doc! {"g": 3}), (5, doc! {"x": 1})];
        for (rid, d) in &docs {
            ix.add(d, *rid);
        }
        let same = check_docs(&ix, &docs);
        assert_eq!(same, IndexCheck { keys: 5, ..IndexCheck::default() });
        assert!(same.valid());
        let mut changed = docs.clone();
        changed[2].1 = doc! {"g": 4};
        changed[1].1 = doc! {"g": [2, 9]};
        changed.pop();
        changed.push((6, doc! {"g": 0}));
        assert_eq!(check_docs(&ix, &changed), IndexCheck { keys: 5, missing: 3, extra: 3, ..IndexCheck::default() });
        let mut unique = Index::from_spec(&doc! {"key": {"g": 1}, "name": "g_1", "unique": true}).unwrap();
        unique.add(&doc! {"g": 7}, 1);
        unique.add(&doc! {"g": 7}, 2);
        assert_eq!(check_docs(&unique, &[(1, doc! {"g": 7}), (2, doc! {"g": 7})]), IndexCheck { keys: 2, duplicates: 1, ..IndexCheck::default() });
        let compound = Index::from_spec(&doc! {"key": {"a": 1, "b": 1}, "name": "a_1_b_1"}).unwrap();
        assert_eq!(check_docs(&compound, &[(1, doc! {"a": [1, 2], "b": [3, 4]})]), IndexCheck { unindexable: 1, ..IndexCheck::default() });
    }

    /// A key many records share keeps them ascending (one entry each, removal O(log n)),
    /// through adds, removals and a bulk load, without losing any.
    #[test]
    fn many_records_under_one_key() {
        let mut ix = Index::from_spec(&doc! {"key": {"g": 1}, "name": "g_1"}).unwrap();
        let docs: Vec<(u64, Document)> = (1..=200u64).map(|rid| (rid, doc! {"g": (rid % 2) as i32})).collect();
        for (rid, d) in docs.iter().rev() {
            ix.add(d, *rid);
        }
        let rids = |ix: &Index, g: i32| -> Vec<u64> {
            let mut out = Vec::new();
            ix.entries().rids_of(&ix.index_key(&doc! {"": g}), |r| {
                out.push(r);
                true
            });
            out
        };
        assert_eq!(rids(&ix, 0), (1..=100).map(|i| i * 2).collect::<Vec<_>>());
        assert_eq!(ix.entries().first_rid(&ix.index_key(&doc! {"": 1})), Some(1));
        ix.add(&docs[4].1, 5);
        assert_eq!(ix.key_count(), 200);
        for (rid, d) in docs.iter().filter(|(rid, _)| *rid > 10) {
            ix.remove(d, *rid);
        }
        assert_eq!(rids(&ix, 0), vec![2, 4, 6, 8, 10]);
        assert_eq!(rids(&ix, 1), vec![1, 3, 5, 7, 9]);
        assert_eq!(ix.key_count(), 10);
        assert!(check(&ix, docs.iter().filter(|(rid, _)| *rid <= 10).map(|(rid, d)| (*rid, d))).valid());
        let mut bulk = Index::from_spec(&doc! {"key": {"g": 1}, "name": "g_1"}).unwrap();
        bulk.bulk_load("test.c", docs.iter().map(|(rid, d)| Ok((*rid, d)))).unwrap();
        assert_eq!(rids(&bulk, 1), (0..100).map(|i| i * 2 + 1).collect::<Vec<_>>());
        assert!(check(&bulk, docs.iter().map(|(rid, d)| (*rid, d))).valid());
    }

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

    #[test]
    fn fields_through_one_array_take_one_element() {
        let ix = Index::from_spec(&doc! {"key": {"r.s": 1, "r.by": 1, "x": 1}}).unwrap();
        let keys = ix.keys_of(&doc! {"x": 7, "r": [{"s": 2, "by": "mn"}, {"s": 9, "by": "anon"}]}).unwrap().unwrap();
        assert_eq!(keys, vec![doc! {"r.s": 2, "r.by": "mn", "x": 7}, doc! {"r.s": 9, "r.by": "anon", "x": 7}]);
        let two = Index::from_spec(&doc! {"key": {"a": 1, "b": 1}}).unwrap();
        assert_eq!(two.keys_of(&doc! {"a": [1, 2], "b": [3]}).unwrap_err().code_num(), 171);
        assert_eq!(two.keys_of(&doc! {"a": [1, 2], "b": 3}).unwrap().unwrap().len(), 2);
    }
}
