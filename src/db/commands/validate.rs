//! `validate`: checks a collection as the server's validate does, over what the engine stores:
//! each document (its BSON size within the limit and as recorded, an `_id` the `_id` index
//! finds), and each index (every key a document has is recorded for it and every recorded key
//! belongs to a document that has it; a unique index holds each key once). The reply has the
//! server's shape (`nInvalidDocuments`, `nrecords`, `nIndexes`, `keysPerIndex`, `indexDetails`,
//! `valid`, `warnings`, `errors`, ...).

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};

use crate::error::{Error, ErrorKind, Result};
use crate::value;

use super::super::args::{self, Fields};
use super::super::validate::MAX_USER_SIZE;
use super::super::collection::Record;
use super::super::Database;
use super::{number, Ctx};

pub(super) fn run(db: &mut Database, ctx: &mut Ctx, cmd: &Document) -> Result<Document> {
    let coll = args::collection_name(cmd, &ctx.db)?;
    let f = Fields::new(cmd, "validate");
    for flag in ["full", "repair", "metadata", "checkBSONConformance", "background", "enforceFastCount"] {
        let _ = f.bool(flag)?;
    }
    let ns = format!("{}.{coll}", ctx.db);
    db.check_not_view(&ctx.db, &coll)?;
    let Some(c) = db.collection(&ctx.db, &coll) else {
        return Err(Error::new(ErrorKind::NamespaceNotFound, format!("Collection '{ns}' does not exist to validate.")));
    };
    let mut errors: Vec<Bson> = Vec::new();
    let mut invalid = 0i64;
    for (rid, rec) in c.iter() {
        // A stored document that does not read is invalid (the engine never writes one). Bytes in
        // the form that encoding the decoded document gives back are that document's size; others
        // are decoded and measured.
        let Some(size) = stored_size(rec) else {
            invalid += 1;
            continue;
        };
        let id_found = c.is_timeseries() || !c.has_id_index() || rec.stored_id().and_then(|id| c.rid_by_id(&id)) == Some(rid);
        if size > MAX_USER_SIZE || size != rec.size() || !id_found {
            invalid += 1;
        }
    }
    if invalid > 0 {
        errors.push(Bson::String(format!("Detected {invalid} invalid documents.")));
    }
    let mut keys_per_index = Document::new();
    let mut index_details = Document::new();
    for ix in &c.indexes {
        let check = ix.check_stored(c.iter().filter_map(|(rid, rec)| rec.raw().ok().map(|raw| (rid, raw))), |raw| Record::decode_of(raw.as_bytes(), None));
        keys_per_index.insert(ix.name.clone(), number(check.keys as i64));
        let mut detail = doc! {"valid": check.valid()};
        if !check.valid() {
            let mut ix_errors = Vec::new();
            if check.missing > 0 {
                ix_errors.push(Bson::String(format!("Detected {} missing index entries.", check.missing)));
            }
            if check.extra > 0 {
                ix_errors.push(Bson::String(format!("Detected {} extra index entries.", check.extra)));
            }
            if check.duplicates > 0 {
                ix_errors.push(Bson::String(format!("Detected {} duplicate keys in a unique index.", check.duplicates)));
            }
            if check.unindexable > 0 {
                ix_errors.push(Bson::String(format!("Detected {} documents whose keys cannot be generated.", check.unindexable)));
            }
            errors.push(Bson::String(format!("Index with name: {} has inconsistencies.", ix.name)));
            detail.insert("errors", ix_errors);
        }
        index_details.insert(ix.name.clone(), detail);
    }
    let uuid = Binary { subtype: BinarySubtype::Uuid, bytes: c.uuid.to_vec() };
    Ok(doc! {
        "ns": ns,
        "uuid": uuid,
        "nInvalidDocuments": number(invalid),
        "nNonCompliantDocuments": 0,
        "nrecords": number(c.len() as i64),
        "nIndexes": number(c.indexes.len() as i64),
        "keysPerIndex": keys_per_index,
        "indexDetails": index_details,
        "valid": errors.is_empty(),
        "repaired": false,
        "warnings": Vec::<Bson>::new(),
        "errors": errors,
        "extraIndexEntries": Vec::<Bson>::new(),
        "missingIndexEntries": Vec::<Bson>::new(),
        "corruptRecords": Vec::<Bson>::new(),
    })
}

/// The size of the document a record's bytes decode to, without decoding it when the bytes are
/// already in encoding's form (`value::raw::check_stored_form`); `None` when they do not read.
fn stored_size(rec: &Record) -> Option<usize> {
    let raw = rec.raw().ok()?;
    match value::raw::check_stored_form(raw, usize::MAX) {
        Ok(form) if form.same => Some(rec.size()),
        Ok(_) => rec.doc().ok().map(|doc| value::bson_size(&doc)),
        Err(_) => None,
    }
}
