//! `createIndexes`, `listIndexes`, `dropIndexes`.

use bson::{doc, Bson, Document};

use crate::error::{Error, ErrorKind, Result};

use super::super::args::{self, Fields};
use crate::value::display;
use super::super::index::{Index, ID_INDEX_NAME};
use super::super::Database;
use super::{cursor_reply, Ctx};

pub(super) fn create_indexes(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "createIndexes");
    let specs = f.required_array("indexes")?;
    if specs.is_empty() {
        return Err(Error::bad_value("Must specify at least one index to create"));
    }
    let mut parsed = Vec::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let Bson::Document(s) = s else { return Err(args::wrong_type(&format!("createIndexes.indexes.{i}"), s, "object")) };
        parsed.push(Index::from_spec(s)?);
    }
    db.check_not_view(&ctx.db, &coll)?;
    // In a transaction (create_indexes.cpp): an index may only be built on a collection the
    // transaction creates, while it is empty; asking for indexes that all exist already is fine.
    let created_here = db.created_in_transaction(&ctx.db, &coll);
    if let (Some(created_here), Some(c)) = (created_here, db.collection(&ctx.db, &coll)) {
        let all_exist = parsed.iter().all(|ix| c.indexes.iter().any(|e| e.name == ix.name && e.key == ix.key && e.options_equal(ix)));
        if !all_exist && !created_here {
            return Err(Error::new(
                ErrorKind::OperationNotSupportedInTransaction,
                format!("Cannot create new indexes on existing collection {} in a multi-document transaction.", c.ns),
            ));
        }
        if !all_exist && !c.is_empty() {
            return Err(Error::new(
                ErrorKind::OperationNotSupportedInTransaction,
                format!("Cannot create new indexes on non-empty collection {} in a multi-document transaction.", c.ns),
            ));
        }
    }
    // A collection the transaction created counts as created by this command (the server's
    // `runCreateIndexesOnNewCollection` says so).
    let created_automatically = db.collection(&ctx.db, &coll).is_none() || created_here == Some(true);
    if created_automatically {
        db.create_collection(&ctx.db, &coll, Document::new())?;
    }
    let Some(c) = db.collection_mut(&ctx.db, &coll) else { return Err(Error::new(ErrorKind::InternalError, "collection vanished")) };
    let before = c.indexes.len() as i32;
    // A failure leaves the collection as it was: the indexes built so far are dropped again
    // (each is added only once built; the collection's documents are not copied).
    let mut created = 0;
    let result = build_all(c, parsed, &mut created);
    if let Err(e) = result {
        c.indexes.truncate(before as usize);
        return Err(e);
    }
    let after = c.indexes.len() as i32;
    let mut reply = doc! {"numIndexesBefore": before, "numIndexesAfter": after};
    if created == 0 {
        reply.insert("note", "all indexes already exist");
    } else {
        reply.insert("createdCollectionAutomatically", created_automatically);
    }
    Ok(reply)
}

/// Checks each spec against the indexes that exist (and those built before it) and builds it.
fn build_all(staged: &mut super::super::Collection, parsed: Vec<Index>, created: &mut i32) -> Result<()> {
    for ix in parsed {
        if let Some(existing) = staged.indexes.iter().find(|e| e.name == ix.name) {
            if existing.key == ix.key {
                if existing.options_equal(&ix) {
                    continue;
                }
                return Err(Error::new(
                    ErrorKind::IndexOptionsConflict,
                    format!(
                        "An equivalent index already exists with the same name but different options. Requested index: {}, existing index: {}",
                        display::document(&ix.spec),
                        display::document(&existing.spec)
                    ),
                ));
            }
            return Err(Error::new(
                ErrorKind::IndexKeySpecsConflict,
                format!(
                    "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: {}, existing index: {}",
                    display::document(&ix.spec),
                    display::document(&existing.spec)
                ),
            ));
        }
        if let Some(existing) = staged.indexes.iter().find(|e| e.key == ix.key) {
            return Err(Error::new(
                ErrorKind::IndexOptionsConflict,
                format!("Index already exists with a different name: {}", existing.name),
            ));
        }
        staged.add_index(ix).map_err(|e| {
            if e.kind == ErrorKind::DuplicateKey {
                Error { kind: e.kind, message: format!("Index build failed: {}", e.message), info: e.info.clone() }
            } else {
                e
            }
        })?;
        *created += 1;
    }
    Ok(())
}

pub(super) fn list_indexes(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let ns = format!("{}.{coll}", ctx.db);
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("ns does not exist: {ns}")));
    };
    let specs = c.indexes.iter().map(|i| i.spec.clone()).collect();
    Ok(cursor_reply(&ns, specs))
}

pub(super) fn drop_indexes(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let ns = format!("{}.{coll}", ctx.db);
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection_mut(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("ns not found {ns}")));
    };
    let was = c.indexes.len() as i32;
    let which = match cmd.get("index") {
        Some(v) => v.clone(),
        None => return Err(args::missing("dropIndexes.index")),
    };
    let mut names: Vec<String> = Vec::new();
    match &which {
        Bson::String(s) if s == "*" => {
            names = c.indexes.iter().filter(|i| !i.is_id()).map(|i| i.name.clone()).collect();
        }
        Bson::String(s) => names.push(s.clone()),
        Bson::Array(a) => {
            for v in a {
                match v {
                    Bson::String(s) => names.push(s.clone()),
                    other => return Err(args::wrong_type("dropIndexes.index", other, "string")),
                }
            }
        }
        Bson::Document(key) => match c.indexes.iter().find(|i| &i.key == key) {
            Some(i) => names.push(i.name.clone()),
            None => {
                return Err(Error::new(
                    ErrorKind::IndexNotFound,
                    format!("can't find index with key: {}", display::document(key)),
                ))
            }
        },
        other => return Err(args::wrong_types("dropIndexes.index", other, &["string", "object", "array"])),
    }
    for n in &names {
        if n == ID_INDEX_NAME {
            return Err(Error::new(ErrorKind::InvalidOptions, "cannot drop _id index"));
        }
        if !c.indexes.iter().any(|i| &i.name == n) {
            return Err(Error::new(ErrorKind::IndexNotFound, format!("index not found with name [{n}]")));
        }
    }
    c.indexes.retain(|i| !names.contains(&i.name));
    Ok(doc! {"nIndexesWas": was})
}
