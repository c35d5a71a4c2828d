//! Time series buckets. A time series collection stores its measurements as they were inserted;
//! the buckets the server would have made of them are worked out when statistics ask, by
//! replaying the server's bucket catalog over the measurements in insertion order: one open
//! bucket per `metaField` value; a measurement joins it unless its time is outside the bucket's
//! span (`[min, min + bucketMaxSpanSeconds)`, `min` rounded down by the granularity), the bucket
//! holds 1 000 measurements, or it has reached 125 KiB with at least 10; otherwise the bucket
//! closes and a new one opens at the measurement's rounded time. Bucket sizes are estimates of
//! the compressed bucket documents.

use std::collections::HashMap;

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value;

use super::Collection;

const BUCKET_MAX_COUNT: u64 = 1000;
const BUCKET_MAX_SIZE: u64 = 125 * 1024;
const BUCKET_MIN_COUNT: u64 = 10;

/// What replaying the bucket catalog found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct BucketStats {
    pub buckets: u64,
    pub opened_due_to_metadata: u64,
    pub closed_due_to_count: u64,
    pub closed_due_to_size: u64,
    pub closed_due_to_time_forward: u64,
    pub closed_due_to_time_backward: u64,
    pub measurements: u64,
    /// The estimated size of each bucket document, compressed (see [`compressed_bucket_size`]).
    pub bucket_sizes: Vec<u64>,
}

struct OpenBucket {
    min_ms: i64,
    count: u64,
    size: u64,
    /// Index of the bucket in `members`.
    slot: usize,
}

/// The bucket span and rounding (seconds) of time series options.
fn span_and_rounding(ts: &Document) -> (i64, i64) {
    let get = |k: &str| ts.get(k).and_then(value::Number::from_bson).and_then(|n| n.to_exact_i64());
    if let (Some(span), Some(rounding)) = (get("bucketMaxSpanSeconds"), get("bucketRoundingSeconds")) {
        return (span, rounding);
    }
    match ts.get_str("granularity").unwrap_or("seconds") {
        "minutes" => (86_400, 3_600),
        "hours" => (2_592_000, 86_400),
        _ => (3_600, 60),
    }
}

/// Replays the bucket catalog over a time series collection (`None` for other collections).
pub fn bucket_stats(c: &Collection) -> Option<BucketStats> {
    replay(c).map(|(stats, _)| stats)
}

/// The record ids of each bucket the catalog made, in bucket order (`None` for other collections).
pub fn bucket_members(c: &Collection) -> Option<Vec<Vec<u64>>> {
    replay(c).map(|(_, members)| members.into_iter().map(|(_, rids)| rids).collect())
}

fn replay(c: &Collection) -> Option<(BucketStats, Vec<(i64, Vec<u64>)>)> {
    let Some(Bson::Document(ts)) = c.options.get("timeseries") else { return None };
    let time_field = ts.get_str("timeField").unwrap_or("t");
    let meta_field = ts.get_str("metaField").ok();
    let (span, rounding) = span_and_rounding(ts);
    let mut open: HashMap<Vec<u8>, OpenBucket> = HashMap::new();
    let mut stats = BucketStats::default();
    // The measurements (record ids) of each bucket, and its rounded minimum time.
    let mut members: Vec<(i64, Vec<u64>)> = Vec::new();
    for (rid, rec) in c.iter() {
        // Stored documents always decode (the engine wrote them).
        let Ok(doc) = rec.doc() else { continue };
        let Some(Bson::DateTime(t)) = doc.get(time_field) else { continue };
        let t = t.timestamp_millis();
        let meta = meta_field.and_then(|m| doc.get(m));
        let key = meta.map(value::hash_key).unwrap_or_default();
        let size = (rec.size() - meta.map(value::value_size).unwrap_or(0)) as u64;
        stats.measurements += 1;
        let fits = match open.get(&key) {
            None => {
                stats.opened_due_to_metadata += 1;
                false
            }
            Some(b) => {
                if t >= b.min_ms + span * 1000 {
                    stats.closed_due_to_time_forward += 1;
                    false
                } else if t < b.min_ms {
                    stats.closed_due_to_time_backward += 1;
                    false
                } else if b.count >= BUCKET_MAX_COUNT {
                    stats.closed_due_to_count += 1;
                    false
                } else if b.size + size > BUCKET_MAX_SIZE && b.count >= BUCKET_MIN_COUNT {
                    stats.closed_due_to_size += 1;
                    false
                } else {
                    true
                }
            }
        };
        if fits {
            if let Some(b) = open.get_mut(&key) {
                b.count += 1;
                b.size += size;
                members[b.slot].1.push(rid);
            }
        } else {
            stats.buckets += 1;
            let min_ms = (t.div_euclid(1000) - t.div_euclid(1000).rem_euclid(rounding.max(1))) * 1000;
            members.push((min_ms, vec![rid]));
            open.insert(key, OpenBucket { min_ms, count: 1, size, slot: members.len() - 1 });
        }
    }
    stats.bucket_sizes = members
        .iter()
        .map(|(min_ms, rids)| {
            let docs: Vec<Document> = rids.iter().filter_map(|r| c.get(*r).and_then(|rec| rec.doc().ok())).collect();
            let docs: Vec<&Document> = docs.iter().collect();
            compressed_bucket_size(&docs, time_field, meta_field, *min_ms)
        })
        .collect();
    Some((stats, members))
}

/// The server's rules for an update of a time series collection (8.0, where arbitrary time series
/// updates are still behind a feature flag that is off: `timeseries_update_delete_util.cpp` and
/// `updateRequestCheckFunction`): the update must be `multi`, must not upsert, the collection must
/// have a `metaField`, the filter may name only the metaField (no `$expr`, no `$where`), and the
/// update must be operators that modify only the metaField. Checked in that order, each refusal
/// InvalidOptions. The update then applies to whole buckets.
pub fn check_update(ts: &Document, q: &Document, u: &Bson, multi: bool, upsert: bool) -> Result<()> {
    let refuse = |msg: String| Err(Error::new(ErrorKind::InvalidOptions, msg));
    if !multi {
        return refuse("Cannot perform a non-multi update on a time-series collection".into());
    }
    if upsert {
        return refuse("Cannot perform an upsert on a time-series collection".into());
    }
    let Ok(meta) = ts.get_str("metaField") else {
        return refuse("Cannot perform an update on a time-series collection that does not have a metaField".into());
    };
    for (k, v) in q {
        check_query_element(k, v, meta, true, false)?;
    }
    let Bson::Document(u) = u else {
        return refuse("Cannot perform an update on a time-series collection using a pipeline update".into());
    };
    if u.keys().next().is_some_and(|k| !k.starts_with('$')) {
        return refuse("Cannot perform an update on a time-series collection using a replacement document".into());
    }
    let not_meta = || {
        refuse(format!("Cannot perform an update on a time-series collection which updates a field that is not the metaField '{meta}'"))
    };
    for (op, fields) in u {
        let Bson::Document(fields) = fields else { continue };
        for (path, value) in fields {
            if first_part(path) != meta {
                return not_meta();
            }
            if op == "$rename" && !matches!(value, Bson::String(to) if first_part(to) == meta) {
                return not_meta();
            }
        }
    }
    Ok(())
}

fn first_part(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

/// One element of an update's filter, walked as the server's `replaceQueryMetaFieldName` walks it:
/// field names at the top level (and in the documents of a logical operator's array) must start
/// with the metaField.
fn check_query_element(name: &str, value: &Bson, meta: &str, top: bool, parent_is_array: bool) -> Result<()> {
    let refuse = |msg: String| Err(Error::new(ErrorKind::InvalidOptions, msg));
    let not_meta = || {
        refuse(format!(
            "Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField '{meta}'"
        ))
    };
    if name == "$expr" || name == "$where" {
        return refuse(format!("Cannot use {name} when performing an update or delete on a time-series collection"));
    }
    if name == "$jsonSchema" {
        if let Bson::Document(schema) = value {
            if let Some(Bson::Array(required)) = schema.get("required") {
                if required.iter().any(|r| !matches!(r, Bson::String(s) if s == meta)) {
                    return not_meta();
                }
            }
            if let Some(Bson::Document(props)) = schema.get("properties") {
                if props.keys().any(|k| k != meta) {
                    return not_meta();
                }
            }
        }
        return Ok(());
    }
    if top && !name.starts_with('$') && first_part(name) != meta {
        return not_meta();
    }
    let child_top = parent_is_array && matches!(value, Bson::Document(_));
    match value {
        Bson::Document(d) => {
            for (k, v) in d {
                check_query_element(k, v, meta, child_top, false)?;
            }
        }
        Bson::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                check_query_element(&i.to_string(), v, meta, child_top, true)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// An estimate of the size of a compressed bucket document (`{ _id, control: { version: 2, min,
/// max, count }, meta, data: { <field>: BinData(7, column) } }`) holding `docs`. Each data field
/// is a BSON column: its first value, then its deltas (of deltas, for dates) packed in Simple-8b
/// words of 60 bits; doubles are scaled to integers when a power of ten makes them whole; values
/// that cannot be differenced cost their size unless they repeat. The server's exact bytes depend
/// on details (run-length blocks, control bytes) an estimate leaves out.
pub fn compressed_bucket_size(docs: &[&Document], time_field: &str, meta_field: Option<&str>, min_ms: i64) -> u64 {
    let mut fields: Vec<String> = Vec::new();
    for d in docs {
        for k in d.keys() {
            if Some(k.as_str()) != meta_field && !fields.contains(k) {
                fields.push(k.clone());
            }
        }
    }
    let mut min = Document::new();
    let mut max = Document::new();
    let mut data_size = 4 + 1;
    for f in &fields {
        let column: Vec<Option<&Bson>> = docs.iter().map(|d| d.get(f)).collect();
        let present: Vec<&Bson> = column.iter().flatten().copied().collect();
        if let Some(lo) = present.iter().min_by(|a, b| value::compare(a, b)) {
            min.insert(f.clone(), (*lo).clone());
        }
        if let Some(hi) = present.iter().max_by(|a, b| value::compare(a, b)) {
            max.insert(f.clone(), (*hi).clone());
        }
        // Element header, BinData length and subtype, then the column.
        data_size += 1 + f.len() + 1 + 4 + 1 + column_size(&column) as usize;
    }
    if let Some(Bson::DateTime(_)) = min.get(time_field) {
        min.insert(time_field, Bson::DateTime(bson::DateTime::from_millis(min_ms)));
    }
    let control = doc! {"version": 2, "min": min, "max": max, "count": docs.len() as i32};
    let meta_size = meta_field.and_then(|m| docs.first().and_then(|d| d.get(m))).map(|v| 1 + 4 + 1 + value::value_size(v)).unwrap_or(0);
    let size = 4 + (1 + 4 + 12) + (1 + 8 + value::bson_size(&control)) + meta_size + (1 + 5 + data_size) + 1;
    size as u64
}

/// The bytes of one BSON column (`BSONColumnBuilder`'s format, estimated).
fn column_size(values: &[Option<&Bson>]) -> u64 {
    let Some(first) = values.iter().flatten().next() else { return 1 };
    // Literal first element: type, empty name, value.
    let size = 1 + 1 + value::value_size(first) as u64;
    let mut deltas: Vec<u64> = Vec::with_capacity(values.len());
    let mut literals = 0u64;
    let scale = double_scale(values);
    let as_int = |v: &Bson| -> Option<i128> {
        match v {
            Bson::Int32(i) => Some(*i as i128),
            Bson::Int64(i) => Some(*i as i128),
            Bson::DateTime(d) => Some(d.timestamp_millis() as i128),
            Bson::Timestamp(t) => Some(((t.time as i128) << 32) | t.increment as i128),
            Bson::Double(f) => scale.map(|s| (f * s).round() as i128),
            Bson::ObjectId(o) => {
                let b = o.bytes();
                Some(((u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i128) << 24) | ((b[9] as i128) << 16) | ((b[10] as i128) << 8) | b[11] as i128)
            }
            Bson::Boolean(b) => Some(*b as i128),
            _ => None,
        }
    };
    let delta_of_delta = matches!(first, Bson::DateTime(_) | Bson::Timestamp(_));
    let mut prev: Option<&Bson> = Some(first);
    let mut prev_delta: i128 = 0;
    for v in values.iter().skip(1) {
        let Some(v) = v else {
            // A missing value is a skip: one zero-width slot.
            deltas.push(0);
            continue;
        };
        match (prev.and_then(|p| as_int(p)), as_int(v)) {
            (Some(a), Some(b)) if value::canonical_type(prev.unwrap_or(v)) == value::canonical_type(v) => {
                let mut d = b - a;
                if delta_of_delta {
                    let dd = d - prev_delta;
                    prev_delta = d;
                    d = dd;
                }
                deltas.push(zigzag(d));
            }
            _ => {
                if prev.map(|p| value::compare(p, v) == std::cmp::Ordering::Equal && p.element_type() == v.element_type()).unwrap_or(false) {
                    deltas.push(0);
                } else {
                    literals += 1 + 1 + value::value_size(v) as u64;
                }
            }
        }
        prev = Some(v);
    }
    let words = simple8b_words(&deltas);
    // One control byte per run of up to 16 words.
    size + literals + words * 8 + words.div_ceil(16) + 1
}

/// The power of ten that makes every double of a column whole (at most 10^8), if any.
fn double_scale(values: &[Option<&Bson>]) -> Option<f64> {
    let doubles: Vec<f64> = values.iter().flatten().filter_map(|v| if let Bson::Double(f) = v { Some(*f) } else { None }).collect();
    if doubles.is_empty() {
        return None;
    }
    (0..=8).map(|k| 10f64.powi(k)).find(|s| doubles.iter().all(|f| f.is_finite() && ((f * s).round() - f * s).abs() < 1e-6 && (f * s).abs() < 1e15))
}

fn zigzag(d: i128) -> u64 {
    let d = d.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

/// How many 64-bit Simple-8b words hold these values (greedy: as many values per word as fit).
fn simple8b_words(values: &[u64]) -> u64 {
    const LAYOUTS: [(usize, u32); 14] = [(60, 1), (30, 2), (20, 3), (15, 4), (12, 5), (10, 6), (8, 7), (7, 8), (6, 10), (5, 12), (4, 15), (3, 20), (2, 30), (1, 60)];
    let bits = |v: u64| 64 - v.leading_zeros();
    let mut words = 0u64;
    let mut i = 0;
    while i < values.len() {
        // A run of zeros packs 120 to a word (the run-length selector).
        let zeros = values[i..].iter().take_while(|v| **v == 0).count();
        if zeros >= 120 {
            words += 1;
            i += zeros.min(120 * 16);
            continue;
        }
        let mut used = 1;
        for (count, width) in LAYOUTS {
            let end = (i + count).min(values.len());
            if values[i..end].iter().all(|v| bits(*v) <= width) {
                used = end - i;
                break;
            }
        }
        words += 1;
        i += used;
    }
    words
}

/// The `timeseries` section of `storageStats`.
pub fn storage_section(c: &Collection, stats: &BucketStats, scale: i64) -> Document {
    let n = super::commands::number;
    let total: u64 = stats.bucket_sizes.iter().sum();
    let avg = if stats.buckets > 0 { total as i64 / stats.buckets as i64 } else { 0 };
    doc! {
        "bucketsNs": format!("{}.system.buckets.{}", c.ns.split_once('.').map(|(d, _)| d).unwrap_or("test"), c.name),
        "bucketCount": n(stats.buckets as i64),
        "avgBucketSize": n(avg / scale),
        "numBucketInserts": n(stats.buckets as i64),
        "numBucketUpdates": n((stats.measurements - stats.buckets) as i64),
        "numBucketsOpenedDueToMetadata": n(stats.opened_due_to_metadata as i64),
        "numBucketsClosedDueToCount": n(stats.closed_due_to_count as i64),
        "numBucketsClosedDueToSchemaChange": 0,
        "numBucketsClosedDueToSize": n(stats.closed_due_to_size as i64),
        "numBucketsClosedDueToTimeForward": n(stats.closed_due_to_time_forward as i64),
        "numBucketsClosedDueToTimeBackward": n(stats.closed_due_to_time_backward as i64),
        "numBucketsClosedDueToMemoryThreshold": 0,
        "numCommits": n(stats.measurements as i64),
        "numWaits": 0,
        "numMeasurementsCommitted": n(stats.measurements as i64),
        "avgNumMeasurementsPerCommit": if stats.measurements > 0 { 1 } else { 0 },
    }
}
