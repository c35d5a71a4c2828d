//! `collStats` and `dbStats`: counts and sizes. `size`/`dataSize` are the documents' BSON sizes;
//! the figures that depend on the storage engine (index sizes, storage sizes) and a time series
//! collection's compressed bucket size come from the models of `storage.rs`, and the reply lists
//! them under `estimated` (an extension: `estimated: ["storageSize", "indexSizes", ...]`) so the
//! UI can mark them.

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use super::super::{storage, timeseries, Collection, Database};
use super::{number, Ctx};

/// The estimated size of each index (the WiredTiger model of `storage.rs`).
pub(crate) fn index_sizes(c: &Collection) -> Vec<(String, u64)> {
    c.indexes.iter().map(|ix| (ix.name.clone(), storage::index_size(ix))).collect()
}

/// The `estimated` list of a reply: the names of its fields that come from a model.
fn estimated(fields: &[&str]) -> Bson {
    Bson::Array(fields.iter().map(|f| Bson::String(f.to_string())).collect())
}

fn scale_of(f: &Fields) -> Result<i64> {
    let scale = f.i64("scale")?.unwrap_or(1);
    if scale < 1 {
        return Err(Error::bad_value("scale has to be >= 1"));
    }
    Ok(scale)
}

/// The storage statistics of a collection (`collStats`, `$collStats`'s `storageStats`), sizes
/// divided by `scale`. A time series collection reports its buckets (and no document count).
pub(crate) fn storage_stats(c: &Collection, scale: i64) -> Document {
    let count = c.len() as i64;
    let buckets = timeseries::bucket_stats(c);
    let size = match &buckets {
        // A time series collection stores compressed buckets (estimated in `timeseries.rs`).
        Some(b) => b.bucket_sizes.iter().sum::<u64>() as i64,
        None => c.data_size() as i64,
    };
    let storage_size = match &buckets {
        Some(_) => (storage::COLLECTION_FILE_OVERHEAD + (size as u64).div_ceil(4096) * 4096) as i64,
        None => storage::storage_size(c) as i64,
    };
    let sizes = index_sizes(c);
    let total_index: i64 = sizes.iter().map(|(_, s)| *s as i64).sum();
    let mut index_sizes_doc = Document::new();
    for (n, s) in &sizes {
        index_sizes_doc.insert(n.clone(), number(*s as i64 / scale));
    }
    let mut reply = doc! {"size": number(size / scale)};
    match &buckets {
        Some(b) => {
            reply.insert("timeseries", timeseries::storage_section(c, b, scale));
        }
        None => {
            reply.insert("count", number(count));
            if count > 0 {
                reply.insert("avgObjSize", number(size / count));
            }
        }
    }
    reply.insert("numOrphanDocs", 0);
    reply.insert("storageSize", number(storage_size / scale));
    reply.insert("freeStorageSize", 0);
    reply.insert("capped", c.options.get("capped").map(|v| matches!(v, Bson::Boolean(true))).unwrap_or(false));
    reply.insert("nindexes", c.indexes.len() as i32);
    reply.insert("indexBuilds", Vec::<Bson>::new());
    reply.insert("totalIndexSize", number(total_index / scale));
    reply.insert("totalSize", number((storage_size + total_index) / scale));
    reply.insert("indexSizes", index_sizes_doc);
    reply.insert("scaleFactor", scale as i32);
    let mut est: Vec<&str> = storage::ESTIMATED_COLL_FIELDS.to_vec();
    if buckets.is_some() {
        est.extend(["size", "timeseries.avgBucketSize"]);
    }
    reply.insert("estimated", estimated(&est));
    reply
}

pub(super) fn coll_stats(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "collStats");
    let scale = scale_of(&f)?;
    let ns = format!("{}.{coll}", ctx.db);
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("Collection [{ns}] not found.")));
    };
    let mut reply = doc! {"ns": ns};
    reply.extend(storage_stats(c, scale));
    Ok(reply)
}

/// The document `$collStats` (the first stage of a pipeline on `coll`) produces:
/// `{ ns, host, localTime, storageStats?, count?, latencyStats?, queryExecStats? }`.
pub(crate) fn coll_stats_stage(db: &Database, ctx: &Ctx, coll: &str, spec: &Bson) -> Result<Document> {
    let Bson::Document(spec) = spec else {
        return Err(Error::code(5447000, format!("$collStats must take a nested object but found: {}", crate::value::display::value(spec))));
    };
    let ns = format!("{}.{coll}", ctx.db);
    let mut out = doc! {"ns": ns.clone(), "host": "localhost:27017", "localTime": Bson::DateTime(ctx.env.now)};
    for (k, v) in spec {
        match k.as_str() {
            "latencyStats" => {
                let zero = doc! {"latency": 0i64, "ops": 0i64};
                out.insert("latencyStats", doc! {"reads": zero.clone(), "writes": zero.clone(), "commands": zero.clone(), "transactions": zero});
            }
            "storageStats" => {
                let scale = match v {
                    Bson::Document(d) => scale_of(&Fields::new(d, "storageStats"))?,
                    _ => 1,
                };
                let Some(c) = db.collection(&ctx.db, coll).filter(|c| !c.is_view()) else {
                    return Err(Error::new(
                        ErrorKind::NamespaceNotFound,
                        format!("Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [{ns}] not found."),
                    ));
                };
                out.insert("storageStats", storage_stats(c, scale));
            }
            "count" => {
                let n = db.collection(&ctx.db, coll).map(|c| c.len() as i64).unwrap_or(0);
                out.insert("count", number(n));
            }
            "queryExecStats" => {
                out.insert("queryExecStats", doc! {"collectionScans": {"total": 0i64, "nonTailable": 0i64}});
            }
            other => {
                return Err(Error::new(ErrorKind::FailedToParse, format!("unrecognized option to $collStats: {other}")));
            }
        }
    }
    Ok(out)
}

pub(super) fn db_stats(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "dbStats");
    let scale = scale_of(&f)?;
    let (mut collections, mut objects, mut data, mut indexes, mut index_size, mut storage) = (0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
    if let Some(d) = db.db(&ctx.db) {
        for c in d.collections.values().filter(|c| !c.is_view()) {
            collections += 1;
            objects += c.len() as i64;
            data += c.data_size() as i64;
            indexes += c.indexes.len() as i64;
            index_size += index_sizes(c).iter().map(|(_, s)| *s as i64).sum::<i64>();
            storage += storage::storage_size(c) as i64;
        }
    }
    let avg = if objects > 0 { data as f64 / objects as f64 } else { 0.0 };
    Ok(doc! {
        "db": ctx.db.clone(),
        "collections": collections,
        "views": 0i64,
        "objects": objects,
        "avgObjSize": avg,
        "dataSize": (data / scale) as f64,
        "storageSize": (storage / scale) as f64,
        "indexes": indexes,
        "indexSize": (index_size / scale) as f64,
        "totalSize": ((storage + index_size) / scale) as f64,
        "scaleFactor": scale,
        "fsUsedSize": 0.0,
        "fsTotalSize": 0.0,
        "estimated": estimated(&["storageSize", "indexSize", "totalSize"]),
    })
}
