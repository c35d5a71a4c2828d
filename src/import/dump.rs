//! `mongodump` output: a `.bson` file (documents one after the other, each its own length
//! first) and its `.metadata.json` (`{ options, indexes, collectionName, type, uuid }` in
//! Extended JSON).

use bson::{Bson, Document};

use super::json::ParseError;
use super::Loc;

/// The largest document a dump holds: the server's internal limit (16 MiB plus room for
/// the replication headers), as mongorestore accepts it.
pub const MAX_DUMP_DOC: usize = 16 * 1024 * 1024 + 16 * 1024;

/// Reads the documents of a `.bson` stream, validating each.
pub(super) struct BsonReader<'a> {
    input: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> BsonReader<'a> {
    pub fn new(input: &'a [u8]) -> BsonReader<'a> {
        BsonReader { input, pos: 0, done: false }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    /// Where the reader is: its offset and whether it is done.
    pub fn suspend(self) -> (usize, bool) {
        (self.pos, self.done)
    }

    /// The reader of `input` where [`BsonReader::suspend`] left it.
    pub fn resume(input: &'a [u8], (pos, done): (usize, bool)) -> BsonReader<'a> {
        BsonReader { input, pos, done }
    }

    fn fatal(&mut self, at: usize, message: String) -> ParseError {
        self.done = true;
        ParseError { loc: Loc { line: None, offset: Some(at as u64) }, message, fatal: true }
    }

    pub fn next_doc(&mut self) -> Option<Result<(Document, Loc), ParseError>> {
        if self.done || self.pos >= self.input.len() {
            return None;
        }
        let at = self.pos;
        let rest = &self.input[at..];
        if rest.len() < 4 {
            return Some(Err(self.fatal(at, format!("truncated document: {} bytes left, too few for a length", rest.len()))));
        }
        let len = i32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        if len < 5 || len as usize > MAX_DUMP_DOC {
            return Some(Err(self.fatal(at, format!("invalid BSONSize: {len} bytes"))));
        }
        let len = len as usize;
        if len > rest.len() {
            return Some(Err(self.fatal(at, format!("truncated document: its length is {len} bytes, {} are left", rest.len()))));
        }
        // The length was sound: a bad document can be skipped, reading goes on after it.
        self.pos += len;
        let loc = Loc { line: None, offset: Some(at as u64) };
        let bytes = &rest[..len];
        let decoded = bson::RawDocument::from_bytes(bytes)
            .map_err(|e| e.to_string())
            .and_then(|raw| Document::try_from(raw).map_err(|e| e.to_string()));
        match decoded {
            Ok(d) => Some(Ok((d, loc))),
            Err(e) => Some(Err(ParseError { loc, message: format!("invalid BSON document: {e}"), fatal: false })),
        }
    }
}

/// What a `.metadata.json` says about a collection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    /// `create` options (`validator`, `timeseries`, `capped`, `viewOn`/`pipeline`, ...).
    pub options: Document,
    /// Index specs other than `_id_`, as `createIndexes` takes them (no `v`, no `ns`).
    pub indexes: Vec<Document>,
    /// `collectionName`, when given.
    pub collection: Option<String>,
    /// `type`: "collection", "view", "timeseries".
    pub kind: Option<String>,
}

/// Parses a `.metadata.json` file.
pub fn parse_metadata(bytes: &[u8]) -> Result<Metadata, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
    let serde_json::Value::Object(map) = v else { return Err("metadata is not a JSON object".into()) };
    let doc = super::json::document_from_map(map)?;
    let mut m = Metadata::default();
    match doc.get("options") {
        None | Some(Bson::Null) => {}
        Some(Bson::Document(o)) => m.options = o.clone(),
        Some(_) => return Err("\"options\" must be an object".into()),
    }
    match doc.get("indexes") {
        None | Some(Bson::Null) => {}
        Some(Bson::Array(ixs)) => {
            for ix in ixs {
                let Bson::Document(ix) = ix else { return Err("each of \"indexes\" must be an object".into()) };
                if ix.get_str("name").ok() == Some("_id_") {
                    continue;
                }
                let mut spec = ix.clone();
                spec.remove("v");
                spec.remove("ns");
                m.indexes.push(spec);
            }
        }
        Some(_) => return Err("\"indexes\" must be an array".into()),
    }
    m.collection = doc.get_str("collectionName").ok().map(str::to_string);
    m.kind = doc.get_str("type").ok().map(str::to_string);
    Ok(m)
}
