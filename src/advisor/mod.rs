//! The anti-pattern advisor's detectors (engine side; the findings view comes later): MongoDB's
//! documented schema anti-patterns found in a collection's data, indexes and the session's
//! queries, each finding with its evidence.
//!
//! - `largeArray`: an array path whose longest array has at least `arrayLength` elements
//!   (default [`DEFAULT_ARRAY_LENGTH`]): unbounded arrays grow documents and their index keys.
//! - `bloatedDocument`: a document of at least `documentBytes` (default 8 MiB, half the 16 MiB
//!   limit), or at least `medianFactor` (default 10) times the median size and over 16 KiB.
//! - `redundantIndex`: an index whose key is a prefix of another index's key, same directions,
//!   with no options of its own (unique, sparse, partial, collation, TTL, hidden).
//! - `unusedIndex`: given the session's queries, an index (not `_id_`) that no query's plan uses.
//! - `caseInsensitiveRegex`: a query with a `/.../i` regex (or `$options: "i"`) on a field: no
//!   ordinary index serves it (the scan reads every key); a case-insensitive collation index
//!   (strength 1 or 2) does, when the query uses that collation.
//! - `lookupOnRead`: every one of the session's reads of the collection (at least `lookupReads`,
//!   default [`DEFAULT_LOOKUP_READS`]) joins the same other collection with `$lookup`: data read
//!   together is stored apart.
//! - `sameShapeCollections`: at least `sameShapeCollections` (default
//!   [`DEFAULT_SAME_SHAPE_COLLECTIONS`]) collections of the database, this one among them, hold
//!   documents with the same top-level fields: one collection with a field telling them apart
//!   would do (the manual's "reduce the number of collections").
//!
//! Engine-specific command: `{ ppAdvise: "c", queries: [{ filter, sort, lookups }], arrayLength,
//! documentBytes, medianFactor, lookupReads, sameShapeCollections }` -> `{ collection, findings:
//! [{ kind, message, pattern?, lesson?, evidence }] }`.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};

use crate::db::Collection;
use crate::value::raw::Elements;

pub const DEFAULT_ARRAY_LENGTH: usize = 1000;
pub const DEFAULT_DOCUMENT_BYTES: usize = 8 * 1024 * 1024;
pub const DEFAULT_MEDIAN_FACTOR: f64 = 10.0;
pub const DEFAULT_LOOKUP_READS: usize = 2;
pub const DEFAULT_SAME_SHAPE_COLLECTIONS: usize = 3;
/// The documents of each collection whose top-level fields make its shape (the first ones).
const SHAPE_SAMPLE: usize = 50;
/// Documents smaller than this are never "bloated" relative to the median.
pub const MIN_BLOATED_BYTES: usize = 16 * 1024;
/// Evidence lists at most this many documents.
const MAX_EVIDENCE: usize = 10;

/// The thresholds.
#[derive(Debug, Clone)]
pub struct Thresholds {
    pub array_length: usize,
    pub document_bytes: usize,
    pub median_factor: f64,
    pub lookup_reads: usize,
    pub same_shape_collections: usize,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            array_length: DEFAULT_ARRAY_LENGTH,
            document_bytes: DEFAULT_DOCUMENT_BYTES,
            median_factor: DEFAULT_MEDIAN_FACTOR,
            lookup_reads: DEFAULT_LOOKUP_READS,
            same_shape_collections: DEFAULT_SAME_SHAPE_COLLECTIONS,
        }
    }
}

/// One read of the session: its filter and sort, the indexes its plan reads (by name; none for a
/// collection scan, several for an `$or` plan), and its `$lookup` stages as written (an
/// aggregation's).
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub filter: Document,
    pub sort: Option<Document>,
    pub indexes_used: Vec<String>,
    pub lookups: Vec<Document>,
}

/// What the advisor looks at: the collection, its name, and the database's other collections
/// (name and collection; views and time series left out by the caller).
pub struct Scope<'a> {
    pub name: &'a str,
    pub collection: &'a Collection,
    pub others: Vec<(&'a str, &'a Collection)>,
}

fn number(n: u64) -> Bson {
    match i32::try_from(n) {
        Ok(i) => Bson::Int32(i),
        Err(_) => Bson::Int64(n as i64),
    }
}

fn finding(kind: &str, message: String, pattern: Option<&str>, evidence: Document) -> Document {
    let mut f = doc! {"kind": kind, "message": message};
    if let Some(p) = pattern {
        f.insert("pattern", p);
        f.insert("lesson", p);
    }
    f.insert("evidence", evidence);
    f
}

/// Every finding for the scope's collection (arrays and document sizes over the whole
/// collection, one pass each; shapes from the first documents of each collection).
pub fn advise(scope: &Scope<'_>, queries: &[Query], t: &Thresholds) -> Vec<Document> {
    let c = scope.collection;
    let mut findings = Vec::new();
    large_arrays(c, t, &mut findings);
    bloated_documents(c, t, &mut findings);
    redundant_indexes(c, &mut findings);
    if !queries.is_empty() {
        unused_indexes(c, queries, &mut findings);
    }
    case_insensitive_regexes(c, queries, &mut findings);
    lookups_on_read(scope.name, queries, t, &mut findings);
    same_shape_collections(scope, t, &mut findings);
    findings
}

/// Per array path: the longest array, the documents holding one of at least the threshold.
struct ArrayStats {
    max: usize,
    max_id: Option<Bson>,
    over: u64,
    examples: Vec<Bson>,
}

/// Walks the arrays in a stored document's bytes `d` (`path`: the dotted path so far, put back as
/// it was on return). A stored document holds no field name twice, so the bytes hold what its
/// decoded form does; nothing is decoded but the `_id` of a document that gives evidence (`id`).
fn walk_arrays(path: &mut String, d: &[u8], id: &dyn Fn() -> Bson, t: &Thresholds, stats: &mut BTreeMap<String, ArrayStats>, seen: &mut Vec<String>) {
    // Stored documents always read (the engine wrote them): a walk stops where bytes do not.
    for el in Elements::new(d).map_while(|el| el) {
        if el.kind != 0x03 && el.kind != 0x04 {
            continue;
        }
        let (Ok(name), Some(value)) = (std::str::from_utf8(el.name), d.get(el.value..el.end)) else { return };
        let at = path.len();
        if at > 0 {
            path.push('.');
        }
        path.push_str(name);
        if el.kind == 0x03 {
            walk_arrays(path, value, id, t, stats, seen);
        } else {
            // One walk over the items: documents among them walked for the paths below, the
            // items counted.
            let mut len = 0;
            for item in Elements::new(value).map_while(|el| el) {
                len += 1;
                if let (0x03, Some(sub)) = (item.kind, value.get(item.value..item.end)) {
                    walk_arrays(path, sub, id, t, stats, seen);
                }
            }
            let s = match stats.get_mut(path.as_str()) {
                Some(s) => s,
                None => stats.entry(path.clone()).or_insert(ArrayStats { max: 0, max_id: None, over: 0, examples: Vec::new() }),
            };
            if s.max_id.is_none() || len > s.max {
                s.max = len;
                s.max_id = Some(id());
            }
            if len >= t.array_length && !seen.iter().any(|p| p == path) {
                seen.push(path.clone());
                s.over += 1;
                if s.examples.len() < MAX_EVIDENCE {
                    s.examples.push(id());
                }
            }
        }
        path.truncate(at);
    }
}

fn large_arrays(c: &Collection, t: &Thresholds, out: &mut Vec<Document>) {
    let mut stats: BTreeMap<String, ArrayStats> = BTreeMap::new();
    let mut seen = Vec::new();
    let mut path = String::new();
    // Stored documents always read (the engine wrote them).
    for (_, rec) in c.iter() {
        seen.clear();
        walk_arrays(&mut path, rec.bytes(), &|| rec.id(), t, &mut stats, &mut seen);
    }
    for (path, s) in stats {
        if s.over == 0 {
            continue;
        }
        out.push(finding(
            "largeArray",
            format!(
                "{} document(s) hold an array '{path}' of {} or more elements (the longest has {}): an unbounded array makes documents and index keys grow without limit",
                s.over, t.array_length, s.max
            ),
            Some("subset"),
            doc! {"path": path, "maxLength": number(s.max as u64), "maxLengthId": s.max_id.unwrap_or(Bson::Null), "documents": number(s.over), "ids": s.examples, "threshold": number(t.array_length as u64)},
        ));
    }
}

fn bloated_documents(c: &Collection, t: &Thresholds, out: &mut Vec<Document>) {
    if c.is_empty() {
        return;
    }
    let mut sizes: Vec<usize> = c.iter().map(|(_, r)| r.size()).collect();
    let mid = sizes.len() / 2;
    let median = if sizes.len() % 2 == 1 {
        *sizes.select_nth_unstable(mid).1 as f64
    } else {
        let hi = *sizes.select_nth_unstable(mid).1 as f64;
        let lo = sizes[..mid].iter().copied().max().unwrap_or(0) as f64;
        (lo + hi) / 2.0
    };
    let relative = (median * t.median_factor).max(MIN_BLOATED_BYTES as f64);
    let mut near_limit = Vec::new();
    let mut above_median = Vec::new();
    let (mut n_limit, mut n_median) = (0u64, 0u64);
    let (mut heavy_limit, mut heavy_median) = (FieldBytes::default(), FieldBytes::default());
    for (_, rec) in c.iter() {
        let size = rec.size();
        let entry = || Bson::Document(doc! {"_id": rec.id(), "bytes": number(size as u64)});
        if size >= t.document_bytes {
            n_limit += 1;
            heavy_limit.add(rec);
            if near_limit.len() < MAX_EVIDENCE {
                near_limit.push(entry());
            }
        } else if size as f64 >= relative {
            n_median += 1;
            heavy_median.add(rec);
            if above_median.len() < MAX_EVIDENCE {
                above_median.push(entry());
            }
        }
    }
    if n_limit > 0 {
        let mut evidence = doc! {"documents": number(n_limit), "examples": near_limit, "threshold": number(t.document_bytes as u64), "medianBytes": median, "limit": 16 * 1024 * 1024};
        heavy_limit.describe(&mut evidence);
        out.push(finding("bloatedDocument", format!("{n_limit} document(s) of {} bytes or more, near the 16 MiB document limit", t.document_bytes), Some("subset"), evidence));
    }
    if n_median > 0 {
        let mut evidence = doc! {"documents": number(n_median), "examples": above_median, "medianBytes": median, "factor": t.median_factor, "minBytes": relative.ceil()};
        heavy_median.describe(&mut evidence);
        out.push(finding(
            "bloatedDocument",
            format!("{n_median} document(s) at least {} times the median document size ({median} bytes)", t.median_factor),
            Some("outlier"),
            evidence,
        ));
    }
}

/// Per top-level field, the bytes it carries (key included) over some documents, and whether it
/// was an array in every one of them that had it: what makes those documents heavy.
#[derive(Default)]
struct FieldBytes {
    fields: BTreeMap<String, (u64, bool)>,
}

impl FieldBytes {
    fn add(&mut self, rec: &crate::db::Record) {
        // Stored documents always decode (the engine wrote them).
        let Ok(d) = rec.doc() else { return };
        for (k, v) in &d {
            let e = self.fields.entry(k.clone()).or_insert((0, true));
            e.0 += (k.len() + 2 + crate::value::value_size(v)) as u64;
            e.1 &= matches!(v, Bson::Array(_));
        }
    }

    /// `heaviestField: { path, bytes, array }` into the evidence (the first field on a tie).
    fn describe(&self, evidence: &mut Document) {
        let mut best: Option<(&String, &(u64, bool))> = None;
        for (k, v) in &self.fields {
            if best.map_or(true, |(_, b)| v.0 > b.0) {
                best = Some((k, v));
            }
        }
        if let Some((path, (bytes, array))) = best {
            evidence.insert("heaviestField", doc! {"path": path.clone(), "bytes": number(*bytes), "array": *array});
        }
    }
}

/// Options that make an index more than its key (it is not redundant with a longer one).
const OWN_OPTIONS: &[&str] = &["unique", "sparse", "partialFilterExpression", "collation", "expireAfterSeconds", "hidden", "weights", "2dsphereIndexVersion"];

fn redundant_indexes(c: &Collection, out: &mut Vec<Document>) {
    for a in &c.indexes {
        if a.is_id() || OWN_OPTIONS.iter().any(|o| a.spec.contains_key(*o)) {
            continue;
        }
        let covering = c.indexes.iter().find(|b| {
            b.name != a.name
                && b.key.len() > a.key.len()
                && a.key.iter().zip(b.key.iter()).all(|((ka, va), (kb, vb))| ka == kb && crate::value::equal(va, vb))
                && !b.spec.contains_key("partialFilterExpression")
                && !b.spec.contains_key("sparse")
        });
        if let Some(b) = covering {
            out.push(finding(
                "redundantIndex",
                format!("index '{}' is a prefix of index '{}', which serves every query it serves: drop it to save its memory and its cost on every write", a.name, b.name),
                None,
                doc! {"index": a.name.clone(), "key": a.key.clone(), "coveredBy": b.name.clone(), "coveredByKey": b.key.clone()},
            ));
        }
    }
}

fn unused_indexes(c: &Collection, queries: &[Query], out: &mut Vec<Document>) {
    for ix in &c.indexes {
        if ix.is_id() {
            continue;
        }
        if queries.iter().any(|q| q.indexes_used.iter().any(|n| n == &ix.name)) {
            continue;
        }
        out.push(finding(
            "unusedIndex",
            format!("index '{}' was used by none of the session's {} queries: it costs memory and every write, and serves no read", ix.name, queries.len()),
            None,
            doc! {"index": ix.name.clone(), "key": ix.key.clone(), "queries": number(queries.len() as u64)},
        ));
    }
}

/// The fields a filter matches with a case-insensitive regex (`/x/i`, `{ $regex, $options: "i" }`),
/// through `$and`/`$or`/`$nor`.
fn ci_regex_fields(filter: &Document, out: &mut Vec<(String, String)>) {
    for (k, v) in filter {
        if k == "$and" || k == "$or" || k == "$nor" {
            if let Bson::Array(items) = v {
                for i in items {
                    if let Bson::Document(d) = i {
                        ci_regex_fields(d, out);
                    }
                }
            }
            continue;
        }
        if k.starts_with('$') {
            continue;
        }
        match v {
            Bson::RegularExpression(r) if r.options.as_str().contains('i') => out.push((k.clone(), format!("/{}/{}", r.pattern.as_str(), r.options.as_str()))),
            Bson::Document(d) => {
                let options = d.get_str("$options").unwrap_or("");
                match d.get("$regex") {
                    Some(Bson::RegularExpression(r)) if r.options.as_str().contains('i') || options.contains('i') => {
                        out.push((k.clone(), format!("/{}/{}", r.pattern.as_str(), r.options.as_str())));
                    }
                    Some(Bson::String(p)) if options.contains('i') => out.push((k.clone(), format!("/{p}/{options}"))),
                    _ => {}
                }
                if let Some(Bson::Array(items)) = d.get("$in") {
                    for item in items {
                        if let Bson::RegularExpression(r) = item {
                            if r.options.as_str().contains('i') {
                                out.push((k.clone(), format!("/{}/{}", r.pattern.as_str(), r.options.as_str())));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn case_insensitive_regexes(c: &Collection, queries: &[Query], out: &mut Vec<Document>) {
    let mut by_field: BTreeMap<String, (u64, Vec<String>)> = BTreeMap::new();
    for q in queries {
        let mut fields = Vec::new();
        ci_regex_fields(&q.filter, &mut fields);
        for (field, regex) in fields {
            let e = by_field.entry(field).or_default();
            e.0 += 1;
            if e.1.len() < MAX_EVIDENCE && !e.1.contains(&regex) {
                e.1.push(regex);
            }
        }
    }
    for (field, (count, examples)) in by_field {
        let collated = c.indexes.iter().any(|ix| {
            ix.key.keys().next().map(|k| k == &field).unwrap_or(false)
                && matches!(ix.spec.get("collation"), Some(Bson::Document(col)) if matches!(col.get("strength"), Some(Bson::Int32(1 | 2)) | Some(Bson::Int64(1 | 2)) | Some(Bson::Double(_))))
        });
        if collated {
            continue;
        }
        out.push(finding(
            "caseInsensitiveRegex",
            format!("{count} query(ies) match '{field}' with a case-insensitive regex, which no ordinary index serves (every key is read): an index with a case-insensitive collation (strength 2), queried with that collation, or a lower-cased copy of the field does"),
            Some("computed"),
            doc! {"field": field, "queries": number(count), "regexes": examples},
        ));
    }
}

/// The collection a `$lookup` stage joins (`from`), when it names one.
fn lookup_from(spec: &Document) -> Option<&str> {
    spec.get_str("from").ok()
}

fn lookups_on_read(name: &str, queries: &[Query], t: &Thresholds, out: &mut Vec<Document>) {
    if queries.len() < t.lookup_reads.max(1) {
        return;
    }
    // The collections the first read joins, kept when every other read joins them too.
    let Some(first) = queries.first() else { return };
    let mut joined: Vec<&str> = Vec::new();
    for spec in &first.lookups {
        if let Some(from) = lookup_from(spec) {
            if from != name && !joined.contains(&from) && queries.iter().all(|q| q.lookups.iter().any(|l| lookup_from(l) == Some(from))) {
                joined.push(from);
            }
        }
    }
    for from in joined {
        let example = first.lookups.iter().find(|l| lookup_from(l) == Some(from)).cloned().unwrap_or_default();
        out.push(finding(
            "lookupOnRead",
            format!(
                "every one of the session's {} reads of '{name}' joins '{from}' with $lookup: data that is read together is stored apart; embedding what the reads use (the Extended Reference pattern copies the fields they need) makes each read one document",
                queries.len()
            ),
            Some("extended-reference"),
            doc! {"from": from, "reads": number(queries.len() as u64), "lookup": example},
        ));
    }
}

/// A collection's shape: the sorted top-level field names (but `_id`) of its first documents.
fn shape(c: &Collection) -> Vec<String> {
    let mut fields = std::collections::BTreeSet::new();
    for (_, rec) in c.iter().take(SHAPE_SAMPLE) {
        let Ok(raw) = rec.raw() else { continue };
        for (k, _) in raw.iter().flatten() {
            if k.as_str() != "_id" && !fields.contains(k.as_str()) {
                fields.insert(k.as_str().to_string());
            }
        }
    }
    fields.into_iter().collect()
}

fn same_shape_collections(scope: &Scope<'_>, t: &Thresholds, out: &mut Vec<Document>) {
    let mine = shape(scope.collection);
    // One field besides `_id` is too little to call two collections the same.
    if mine.len() < 2 {
        return;
    }
    let mut names: Vec<&str> = vec![scope.name];
    let mut documents = scope.collection.len() as u64;
    for (name, c) in &scope.others {
        if *name != scope.name && !c.is_empty() && shape(c) == mine {
            names.push(name);
            documents += c.len() as u64;
        }
    }
    if names.len() < t.same_shape_collections.max(2) {
        return;
    }
    names.sort_unstable();
    out.push(finding(
        "sameShapeCollections",
        format!(
            "{} collections of this database hold documents with the same fields ({}): each costs its own indexes and files, and a query across them needs $unionWith; one collection with a field telling them apart, indexed, serves them all",
            names.len(),
            mine.join(", ")
        ),
        Some("polymorphic"),
        doc! {"collections": names.iter().map(|n| Bson::String(n.to_string())).collect::<Vec<_>>(), "fields": mine.iter().map(|f| Bson::String(f.clone())).collect::<Vec<_>>(), "documents": number(documents)},
    ));
}
