//! Which files of a `mongodump` folder go where, from their paths alone (no reading, no other
//! module): the engine's [`import_dump`](super::import_dump) and the site's import panel (which
//! includes this file as it is) plan a folder the same way.

use std::collections::BTreeMap;

/// What a compressed dump file is told.
pub const COMPRESSED: &str = "compressed dumps (--gzip) are not supported: decompress them first";

/// One collection of a dump folder: where it goes, and which of the given paths hold its
/// documents (`<coll>.bson`) and its `<coll>.metadata.json` (indexes into the path list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpEntry {
    pub db: String,
    pub collection: String,
    pub data: Option<usize>,
    pub metadata: Option<usize>,
}

/// A dump folder's plan: the collections in order, and the compressed files (`.gz`: path index,
/// database), which are reported, not read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DumpPlan {
    pub entries: Vec<DumpEntry>,
    pub compressed: Vec<(usize, String)>,
}

/// Plans a dump folder's paths (`shop/orders.bson`; a file with no folder goes to `default_db`).
/// Paths that are no dump file are left out, and so are `system.*` collections, `admin`,
/// `config` and `local`, `oplog.bson` and `prelude.json`, as mongorestore leaves them.
pub fn plan_dump(default_db: &str, paths: &[&str]) -> DumpPlan {
    // (db, collection) -> (bson file, metadata file)
    let mut groups: BTreeMap<(String, String), (Option<usize>, Option<usize>)> = BTreeMap::new();
    let mut compressed = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        let Some(base) = parts.last() else { continue };
        let db_name = if parts.len() >= 2 { parts[parts.len() - 2].to_string() } else { default_db.to_string() };
        if *base == "oplog.bson" || *base == "prelude.json" || ["admin", "config", "local"].contains(&db_name.as_str()) {
            continue;
        }
        if base.ends_with(".gz") {
            compressed.push((i, db_name));
            continue;
        }
        let (coll, is_meta) = if let Some(c) = base.strip_suffix(".metadata.json") {
            (c.to_string(), true)
        } else if let Some(c) = base.strip_suffix(".bson") {
            (c.to_string(), false)
        } else {
            continue;
        };
        if coll.starts_with("system.") {
            continue;
        }
        let entry = groups.entry((db_name, coll)).or_default();
        if is_meta {
            entry.1 = Some(i);
        } else {
            entry.0 = Some(i);
        }
    }
    let entries = groups.into_iter().map(|((db, collection), (data, metadata))| DumpEntry { db, collection, data, metadata }).collect();
    DumpPlan { entries, compressed }
}
