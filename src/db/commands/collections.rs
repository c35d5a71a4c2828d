//! Collection and database management: `create`, `drop`, `dropDatabase`, `listCollections`,
//! `renameCollection`, `listDatabases`.

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;
use crate::value;

use super::super::args::{self, Fields};
use super::super::index;
use crate::value::display;
use super::super::{Collection, Database};
use super::{cursor_reply, Ctx};

/// Options `create` accepts (others are rejected as unknown fields).
const CREATE_OPTIONS: &[&str] = &[
    "capped",
    "size",
    "max",
    "timeseries",
    "expireAfterSeconds",
    "validator",
    "validationLevel",
    "validationAction",
    "collation",
    "clusteredIndex",
    "changeStreamPreAndPostImages",
    "storageEngine",
    "indexOptionDefaults",
    "viewOn",
    "pipeline",
    "autoIndexId",
    "idIndex",
    "encryptedFields",
];

/// Fields every command may carry.
pub(crate) const GENERIC_FIELDS: &[&str] = &[
    "$db",
    "lsid",
    "txnNumber",
    "autocommit",
    "startTransaction",
    "$clusterTime",
    "$readPreference",
    "readConcern",
    "writeConcern",
    "comment",
    "maxTimeMS",
    "apiVersion",
    "apiStrict",
    "apiDeprecationErrors",
    "$audit",
    "$client",
    "mayBypassWriteBlocking",
];

pub(super) fn create(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let name = args::collection_name(cmd, &ctx.db)?;
    let mut options = Document::new();
    for (k, v) in cmd.iter().skip(1) {
        if GENERIC_FIELDS.contains(&k.as_str()) {
            continue;
        }
        if !CREATE_OPTIONS.contains(&k.as_str()) {
            return Err(Error::code(40415, format!("BSON field 'create.{k}' is an unknown field.")));
        }
        options.insert(k.clone(), v.clone());
    }
    if let Some(ts) = options.get("timeseries").cloned() {
        let Bson::Document(ts) = ts else { return Err(args::wrong_type("create.timeseries", &ts, "object")) };
        options.insert("timeseries", normalize_timeseries(&ts)?);
    }
    check_validation_options(&options, "create")?;
    super::super::view::check_view_options(&options)?;
    if let Some(v) = options.get("capped") {
        if !matches!(v, Bson::Boolean(_)) && value::Number::from_bson(v).is_none() {
            return Err(args::wrong_type("create.capped", v, "bool"));
        }
    }
    if let Some(existing) = db.collection(&ctx.db, &name) {
        if value::compare_documents(&existing.options, &options) == std::cmp::Ordering::Equal {
            return Ok(Document::new());
        }
        return Err(Error::new(ErrorKind::NamespaceExists, format!("Collection already exists. NS: {}.{name}", ctx.db)));
    }
    db.create_collection(&ctx.db, &name, options)?;
    Ok(Document::new())
}

/// Checks `validator` (a query filter), `validationLevel` and `validationAction`.
fn check_validation_options(options: &Document, cmd: &str) -> Result<()> {
    match options.get("validator") {
        None => {}
        Some(Bson::Document(v)) => {
            Matcher::parse(v)?;
        }
        Some(other) => return Err(args::wrong_type(&format!("{cmd}.validator"), other, "object")),
    }
    for (field, allowed) in [("validationLevel", &["off", "strict", "moderate"][..]), ("validationAction", &["error", "warn"][..])] {
        match options.get(field) {
            None => {}
            Some(Bson::String(v)) if allowed.contains(&v.as_str()) => {}
            Some(Bson::String(v)) => {
                return Err(Error::bad_value(format!(
                    "Enumeration value '{v}' for field '{cmd}.{field}' is not a valid value."
                )))
            }
            Some(other) => return Err(args::wrong_type(&format!("{cmd}.{field}"), other, "string")),
        }
    }
    Ok(())
}

/// `collMod`: changes a collection's `validator`, `validationLevel` or `validationAction`, or an
/// index's `hidden`/`expireAfterSeconds` (`index: { name | keyPattern, ... }`).
pub(super) fn coll_mod(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let name = args::collection_name(cmd, &ctx.db)?;
    let ns = format!("{}.{name}", ctx.db);
    let mut changes = Document::new();
    let mut index_change = None;
    for (k, v) in cmd.iter().skip(1) {
        match k.as_str() {
            "validator" | "validationLevel" | "validationAction" => {
                changes.insert(k.clone(), v.clone());
            }
            "index" => match v {
                Bson::Document(d) => index_change = Some(d.clone()),
                other => return Err(args::wrong_type("collMod.index", other, "object")),
            },
            k if GENERIC_FIELDS.contains(&k) => {}
            other => return Err(Error::new(ErrorKind::InvalidOptions, format!("unknown option to collMod: {other}"))),
        }
    }
    check_validation_options(&changes, "collMod")?;
    let Some(c) = db.collection_mut(&ctx.db, &name) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("ns does not exist: {ns}")));
    };
    if let Some(ix) = index_change {
        let target = c.indexes.iter_mut().find(|i| match (ix.get("name"), ix.get("keyPattern")) {
            (Some(Bson::String(n)), _) => &i.name == n,
            (_, Some(Bson::Document(k))) => &i.key == k,
            _ => false,
        });
        let Some(target) = target else {
            return Err(Error::new(ErrorKind::IndexNotFound, format!("cannot find index {} for ns {ns}", display::document(&ix))));
        };
        for (k, v) in &ix {
            if k == "hidden" || k == "expireAfterSeconds" {
                target.spec.insert(k.clone(), v.clone());
            }
        }
    }
    for (k, v) in changes {
        c.options.insert(k, v);
    }
    Ok(Document::new())
}

/// Fills the server's defaults into `timeseries` options (`granularity: "seconds"`,
/// `bucketMaxSpanSeconds: 3600`) and checks the required `timeField`.
fn normalize_timeseries(ts: &Document) -> Result<Document> {
    let f = Fields::new(ts, "create.timeseries");
    let Some(time_field) = f.string("timeField")? else { return Err(args::missing("create.timeseries.timeField")) };
    let mut out = doc! {"timeField": time_field};
    if let Some(m) = f.string("metaField")? {
        if m == time_field {
            return Err(Error::bad_value("The 'timeField' and 'metaField' cannot be the same field"));
        }
        out.insert("metaField", m);
    }
    let span = f.i64("bucketMaxSpanSeconds")?;
    let rounding = f.i64("bucketRoundingSeconds")?;
    if span.is_some() || rounding.is_some() {
        // Custom bucketing: both given and equal, no granularity.
        if f.string("granularity")?.is_some() {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                "Time-series 'bucketMaxSpanSeconds' cannot be set when 'granularity' is set",
            ));
        }
        match (span, rounding) {
            (Some(s), Some(r)) if s == r && (1..=31_536_000).contains(&s) => {
                out.insert("bucketRoundingSeconds", r as i32);
                out.insert("bucketMaxSpanSeconds", s as i32);
                return Ok(out);
            }
            _ => {
                return Err(Error::new(
                    ErrorKind::InvalidOptions,
                    "Time-series 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' must be equal and both set",
                ))
            }
        }
    }
    let granularity = f.string("granularity")?.unwrap_or("seconds");
    let span = match granularity {
        "seconds" => 3600,
        "minutes" => 86400,
        "hours" => 2_592_000,
        other => {
            return Err(Error::bad_value(format!(
                "Enumeration value '{other}' for field 'create.timeseries.granularity' is not a valid value."
            )))
        }
    };
    out.insert("granularity", granularity);
    out.insert("bucketMaxSpanSeconds", span);
    Ok(out)
}

pub(super) fn drop(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let name = args::collection_name(cmd, &ctx.db)?;
    match db.drop_collection(&ctx.db, &name) {
        Some(c) => Ok(doc! {"nIndexesWas": c.indexes.len() as i32, "ns": format!("{}.{name}", ctx.db)}),
        None => Ok(Document::new()),
    }
}

pub(super) fn drop_database(db: &mut Database, ctx: &mut Ctx, _cmd: &Document) -> Result<Document> {
    db.drop_database(&ctx.db);
    Ok(doc! {"dropped": ctx.db.clone()})
}

/// The `listCollections` entry of a collection.
pub(crate) fn collection_info(c: &Collection) -> Document {
    let uuid = Binary { subtype: BinarySubtype::Uuid, bytes: c.uuid.to_vec() };
    if c.is_view() {
        return doc! {"name": c.name.clone(), "type": "view", "options": c.options.clone(), "info": {"readOnly": true}};
    }
    if c.is_timeseries() {
        return doc! {"name": c.name.clone(), "type": "timeseries", "options": c.options.clone(), "info": {"readOnly": false}};
    }
    doc! {
        "name": c.name.clone(),
        "type": "collection",
        "options": c.options.clone(),
        "info": {"readOnly": false, "uuid": uuid},
        "idIndex": index::id_index_spec(),
    }
}

pub(super) fn list_collections(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "listCollections");
    let filter = match f.doc("filter")? {
        Some(d) if !d.is_empty() => Some(Matcher::parse(d)?),
        _ => None,
    };
    let name_only = f.bool_or("nameOnly", false)?;
    let mut out = Vec::new();
    if let Some(d) = db.db(&ctx.db) {
        for c in d.collections.values() {
            let mut info = collection_info(c);
            if name_only {
                info = doc! {"name": c.name.clone(), "type": info.get("type").cloned().unwrap_or(Bson::Null)};
            }
            if let Some(m) = &filter {
                if !m.matches(&info, &ctx.env)? {
                    continue;
                }
            }
            out.push(info);
        }
    }
    Ok(cursor_reply(&format!("{}.$cmd.listCollections", ctx.db), out))
}

/// Splits `db.coll`.
fn split_ns(ns: &str) -> Result<(String, String)> {
    match ns.split_once('.') {
        Some((d, c)) if !d.is_empty() && !c.is_empty() => Ok((d.to_string(), c.to_string())),
        _ => Err(Error::new(ErrorKind::InvalidNamespace, format!("Invalid namespace specified '{ns}'"))),
    }
}

pub(super) fn rename_collection(db: &mut Database, _ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "renameCollection");
    let from = match cmd.get("renameCollection") {
        Some(Bson::String(s)) => s.clone(),
        Some(other) => return Err(args::wrong_type("renameCollection", other, "string")),
        None => return Err(args::missing("renameCollection")),
    };
    let Some(to) = f.string("to")? else { return Err(args::missing("renameCollection.to")) };
    let drop_target = f.bool_or("dropTarget", false)?;
    let (sdb, scoll) = split_ns(&from)?;
    let (tdb, tcoll) = split_ns(to)?;
    if db.collection(&sdb, &scoll).is_none() {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("Source collection {from} does not exist")));
    }
    if from == to {
        return Err(Error::new(ErrorKind::IllegalOperation, "Can't rename a collection to itself"));
    }
    if db.collection(&tdb, &tcoll).is_some() {
        if !drop_target {
            return Err(Error::new(ErrorKind::NamespaceExists, "Target namespace exists"));
        }
        db.drop_collection(&tdb, &tcoll);
    }
    // Validates the target name.
    db.make_collection(&tdb, &tcoll, Document::new())?;
    let Some(mut target) = db.drop_collection(&sdb, &scoll) else { return Ok(Document::new()) };
    target.name = tcoll.clone();
    target.ns = format!("{tdb}.{tcoll}");
    db.insert_collection(&tdb, target);
    Ok(Document::new())
}

pub(super) fn list_databases(db: &mut Database, _ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let f = Fields::new(cmd, "listDatabases");
    let name_only = f.bool_or("nameOnly", false)?;
    let mut list = Vec::new();
    let mut total: i64 = 0;
    for name in db.database_names() {
        if name_only {
            list.push(Bson::Document(doc! {"name": name}));
            continue;
        }
        let size: i64 = db
            .db(&name)
            .map(|d| d.collections.values().map(|c| c.data_size() as i64).sum())
            .unwrap_or(0);
        total += size;
        list.push(Bson::Document(doc! {"name": name, "sizeOnDisk": size, "empty": size == 0}));
    }
    if name_only {
        return Ok(doc! {"databases": list});
    }
    Ok(doc! {"databases": list, "totalSize": total, "totalSizeMb": total / (1024 * 1024)})
}
