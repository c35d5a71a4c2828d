//! Estimates of the sizes a real server reports that depend on its storage engine (WiredTiger)
//! and on time series compression. The engine keeps documents as BSON in memory, so `size`
//! (the sum of BSON sizes) is exact; everything here is a model, written down so that a reader
//! can check it, and every reply that carries one of these figures lists it under `estimated`
//! (see [`ESTIMATED_COLL_FIELDS`]).
//!
//! # Index sizes (`indexSizes`, `totalIndexSize`)
//!
//! A WiredTiger index is a B-tree file of `(KeyString key, value)` cells:
//! - the key is MongoDB's KeyString encoding of the key values (a type byte, then the value:
//!   12 bytes for an ObjectId, 8 for a date, the bytes and a terminator for a string, 0-8
//!   magnitude bytes for an integral number, 8 for a fractional double, ...) and an end byte;
//!   a non-unique index appends the record id (KeyString: 1 + its significant bytes); a unique
//!   index (`_id_`) keeps the record id in the value instead;
//! - each cell has a 1-byte descriptor; keys are counted whole: WiredTiger can prefix-compress
//!   neighbouring keys, but the measured sizes below fit whole keys (39 bytes per document for
//!   `_id_` plus a two-field index is exactly two whole cells), so the model does not;
//! - leaf pages hold up to 16 KiB, filled to [`LEAF_FILL`] on average (indexes built in key
//!   order, or appended to in order, leave full pages), each written in 4 KiB allocation units;
//!   a file has [`INDEX_FILE_OVERHEAD`] bytes besides its leaves (descriptor block, root page,
//!   checkpoint lists).
//!
//! The model's inputs are the index's keys in order and the record ids; its two constants are
//! calibrated against figures measured on MongoDB 8.3.11 ("Schema design patterns" seed):
//! 20 000 one-reading documents with `_id_` and `{ sensorId: 1, t: 1 }` reported 760 KB of
//! indexes, and 112 bucket documents with `_id_` and `{ sensorId: 1, hour: 1 }` 28 KB (small
//! indexes are mostly file overhead: 10 KiB plus one 4 KiB leaf each). The model gives about
//! 760 KB and 28 KB for the same data (tests/engine/indexes.rs).
//!
//! # Storage size (`storageSize`)
//!
//! A collection file holds `(record id, BSON document)` cells in leaf pages of up to 32 KiB,
//! each compressed with snappy and written in 4 KiB units, plus [`COLLECTION_FILE_OVERHEAD`].
//! Snappy is modelled by a greedy LZ77 pass over each page (4-byte hashed matches within the
//! page; a literal costs one byte, a copy three, plus a literal header per run), which tracks
//! snappy within a few percent on BSON (repeated field names and similar values compress, random
//! values do not). Uncalibrated: a real server's figure also depends on when it last
//! checkpointed (its own stats say "not meaningful this early" for young collections).
//!
//! # Time series
//!
//! The compressed size of a time series collection's buckets is estimated in `timeseries.rs`
//! (BSON columns); its `storageSize` here is that size in 4 KiB units plus the file overhead.

use bson::Bson;

use crate::value;

use super::index::Index;
use super::Collection;

/// The fields of `storageStats`/`collStats` that come from this module's models.
pub const ESTIMATED_COLL_FIELDS: &[&str] = &["storageSize", "freeStorageSize", "totalIndexSize", "totalSize", "indexSizes"];

/// Bytes an index file has besides its leaf pages (calibrated, see the module documentation).
pub const INDEX_FILE_OVERHEAD: u64 = 10 * 1024;
/// Average fill of an index leaf page (calibrated).
pub const LEAF_FILL: f64 = 0.98;
const LEAF_PAGE_MAX: usize = 16 * 1024;
const ALLOCATION_UNIT: u64 = 4096;
/// Bytes a collection file has besides its leaf pages.
pub const COLLECTION_FILE_OVERHEAD: u64 = 4096;
const COLLECTION_PAGE_MAX: usize = 32 * 1024;

fn round_up(n: u64) -> u64 {
    n.div_ceil(ALLOCATION_UNIT) * ALLOCATION_UNIT
}

/// An approximation of MongoDB's KeyString encoding of one value (order is not needed, only
/// lengths and the shared prefixes of neighbouring keys).
fn keystring(v: &Bson, out: &mut Vec<u8>) {
    out.push(value::canonical_type(v) as u8);
    match v {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            let f = value::Number::from_bson(v).map(|n| n.to_f64()).unwrap_or(0.0);
            if matches!(v, Bson::Decimal128(_)) {
                out.extend_from_slice(&[0u8; 16]);
            } else if f.fract() == 0.0 && f.abs() < 9.0e15 {
                let m = f.abs() as u64;
                let bytes = m.to_be_bytes();
                let skip = bytes.iter().take_while(|b| **b == 0).count();
                out.push(if f < 0.0 { 1 } else { 2 } + (8 - skip) as u8);
                out.extend_from_slice(&bytes[skip..]);
            } else {
                out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
        }
        Bson::String(s) | Bson::Symbol(s) => {
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
        Bson::ObjectId(o) => out.extend_from_slice(&o.bytes()),
        Bson::DateTime(d) => out.extend_from_slice(&((d.timestamp_millis() as u64) ^ (1 << 63)).to_be_bytes()),
        Bson::Timestamp(t) => {
            out.extend_from_slice(&t.time.to_be_bytes());
            out.extend_from_slice(&t.increment.to_be_bytes());
        }
        Bson::Binary(b) => {
            out.extend_from_slice(&(b.bytes.len() as u32).to_be_bytes());
            out.push(u8::from(b.subtype));
            out.extend_from_slice(&b.bytes);
        }
        Bson::Document(d) => {
            for (k, x) in d {
                out.push(value::canonical_type(x) as u8);
                out.extend_from_slice(k.as_bytes());
                out.push(0);
                keystring(x, out);
            }
            out.push(0);
        }
        Bson::Array(a) => {
            for x in a {
                keystring(x, out);
            }
            out.push(0);
        }
        Bson::RegularExpression(r) => {
            out.extend_from_slice(r.pattern.as_str().as_bytes());
            out.push(0);
            out.extend_from_slice(r.options.as_str().as_bytes());
            out.push(0);
        }
        Bson::JavaScriptCode(c) => {
            out.extend_from_slice(c.as_bytes());
            out.push(0);
        }
        _ => {}
    }
}

/// A record id as KeyString appends it: a length byte and its significant bytes.
fn record_id(rid: u64, out: &mut Vec<u8>) {
    let bytes = rid.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count().min(7);
    out.push(0x80 | (8 - skip) as u8);
    out.extend_from_slice(&bytes[skip..]);
}

/// The model's size of one index (bytes).
pub fn index_size(ix: &Index) -> u64 {
    let mut pages = 0u64;
    let mut page_bytes = 0usize;
    let mut key = Vec::with_capacity(64);
    let capacity = (LEAF_PAGE_MAX as f64 * LEAF_FILL) as usize;
    let mut any = false;
    // The last key read and its values (an index's own keys always decode).
    let mut last: (Vec<u8>, Vec<Bson>) = (Vec::new(), Vec::new());
    ix.entries().for_each(|k, rid| {
        if last.0 != k || !any {
            last = (k.to_vec(), ix.key_values(k).unwrap_or_default());
        }
        {
            any = true;
            key.clear();
            for v in &last.1 {
                keystring(v, &mut key);
            }
            key.push(4);
            let value_len = if ix.unique {
                let mut v = Vec::new();
                record_id(rid, &mut v);
                1 + v.len()
            } else {
                record_id(rid, &mut key);
                0
            };
            let cell = 1 + key.len() + value_len;
            if page_bytes + cell > capacity {
                pages += round_up(page_bytes as u64);
                page_bytes = 0;
            }
            page_bytes += cell;
        }
        true
    });
    if any {
        pages += round_up(page_bytes as u64);
    }
    INDEX_FILE_OVERHEAD + pages.max(ALLOCATION_UNIT)
}

/// The bytes a greedy LZ77 pass (snappy's scheme) needs for `data`.
fn lz_size(data: &[u8]) -> usize {
    const HASH_BITS: u32 = 12;
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let hash = |b: &[u8]| -> usize {
        let x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        (x.wrapping_mul(0x1E35_A7BD) >> (32 - HASH_BITS)) as usize
    };
    let mut out = 0usize;
    let mut literals = 0usize;
    let mut i = 0usize;
    while i + 4 <= data.len() {
        let h = hash(&data[i..]);
        let cand = table[h];
        table[h] = i;
        if cand != usize::MAX && i - cand < 65_536 && data[cand..cand + 4] == data[i..i + 4] {
            let mut len = 4;
            while i + len < data.len() && data[cand + len] == data[i + len] && len < 64 {
                len += 1;
            }
            if literals > 0 {
                out += literals + 1 + usize::from(literals > 60);
                literals = 0;
            }
            out += 3;
            i += len;
        } else {
            literals += 1;
            i += 1;
        }
    }
    literals += data.len() - i.min(data.len());
    if literals > 0 {
        out += literals + 1 + usize::from(literals > 60);
    }
    out + 5
}

/// The model's `storageSize` of documents stored in natural order (bytes).
fn stored_size<'a>(docs: impl Iterator<Item = &'a [u8]>) -> u64 {
    let mut total = 0u64;
    let mut page: Vec<u8> = Vec::with_capacity(COLLECTION_PAGE_MAX);
    let mut any = false;
    for bytes in docs {
        any = true;
        if !page.is_empty() && page.len() + bytes.len() + 4 > COLLECTION_PAGE_MAX {
            total += round_up(lz_size(&page) as u64 + 40);
            page.clear();
        }
        page.extend_from_slice(&[0, 0, 0]);
        page.extend_from_slice(bytes);
    }
    if any && !page.is_empty() {
        total += round_up(lz_size(&page) as u64 + 40);
    }
    COLLECTION_FILE_OVERHEAD + total
}

/// The model's `storageSize` of a collection (bytes).
pub fn storage_size(c: &Collection) -> u64 {
    stored_size(c.iter().map(|(_, r)| r.bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lz_finds_repeats() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let random: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let repeated: Vec<u8> = b"sensorId".iter().cycle().take(4096).copied().collect();
        assert!(lz_size(&random) > 4000);
        assert!(lz_size(&repeated) < 1000);
    }
}
