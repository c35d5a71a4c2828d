//! Time series buckets. A time series collection stores its measurements as they were inserted;
//! the buckets the server would have made of them are worked out when statistics ask, by
//! replaying the server's bucket catalog over the measurements in insertion order: one open
//! bucket per `metaField` value; a measurement joins it unless its time is outside the bucket's
//! span (`[min, min + bucketMaxSpanSeconds)`, `min` rounded down by the granularity), the bucket
//! holds 1 000 measurements, or it has reached 125 KiB with at least 10; otherwise the bucket
//! closes and a new one opens at the measurement's rounded time.

use std::collections::HashMap;

use bson::{doc, Bson, Document};

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
}

struct OpenBucket {
    min_ms: i64,
    count: u64,
    size: u64,
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
    let Some(Bson::Document(ts)) = c.options.get("timeseries") else { return None };
    let time_field = ts.get_str("timeField").unwrap_or("t");
    let meta_field = ts.get_str("metaField").ok();
    let (span, rounding) = span_and_rounding(ts);
    let mut open: HashMap<Vec<u8>, OpenBucket> = HashMap::new();
    let mut stats = BucketStats::default();
    for (_, rec) in c.iter() {
        let Some(Bson::DateTime(t)) = rec.doc.get(time_field) else { continue };
        let t = t.timestamp_millis();
        let meta = meta_field.and_then(|m| rec.doc.get(m));
        let key = meta.map(value::hash_key).unwrap_or_default();
        let size = (rec.size - meta.map(value::value_size).unwrap_or(0)) as u64;
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
            }
        } else {
            stats.buckets += 1;
            let min_ms = (t.div_euclid(1000) - t.div_euclid(1000).rem_euclid(rounding.max(1))) * 1000;
            open.insert(key, OpenBucket { min_ms, count: 1, size });
        }
    }
    Some(stats)
}

/// The `timeseries` section of `storageStats`.
pub fn storage_section(c: &Collection, stats: &BucketStats, scale: i64) -> Document {
    let n = super::commands::number;
    let avg = if stats.buckets > 0 { c.data_size() as i64 / stats.buckets as i64 } else { 0 };
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
