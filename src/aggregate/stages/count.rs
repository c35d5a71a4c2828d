//! `$count: "<field>"`: one document `{ <field>: <number of input documents> }` (int32, int64 past
//! 2^31); no document when the input is empty.

use std::sync::Arc;

use bson::{Bson, Document};

use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::error::Result;

#[derive(Debug)]
pub(crate) struct Count {
    field: String,
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, _pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let field = match spec {
        Bson::String(s) if !s.is_empty() => s,
        _ => return Err(err(40156, "the count field must be a non-empty string")),
    };
    if field.starts_with('$') {
        return Err(err(40158, "the count field cannot be a $-prefixed path"));
    }
    if field.contains('\0') {
        return Err(err(40159, "the count field cannot contain a null byte"));
    }
    if field.contains('.') {
        return Err(err(40160, "the count field cannot contain '.'"));
    }
    Ok(Arc::new(Count { field: field.clone() }))
}

/// A count as the server's `$sum: 1` types it.
pub(crate) fn count_value(n: u64) -> Bson {
    match i32::try_from(n) {
        Ok(i) => Bson::Int32(i),
        Err(_) => Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX)),
    }
}

impl Stage for Count {
    fn name(&self) -> &'static str {
        "$count"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, _cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            let mut n = 0u64;
            for d in input {
                d?;
                n += 1;
            }
            Ok(self.output(n))
        })
    }

    /// Counts a collection's stored documents as they come, none decoded (a stored document
    /// always reads, so decoding it could not fail).
    fn run_records<'r>(&self, records: &mut dyn Iterator<Item = &'r [u8]>, _decode: &dyn Fn(&[u8]) -> Result<Document>, _cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        Some(Ok(self.output(records.count() as u64)))
    }
}

impl Count {
    /// The stage's output for `n` input documents.
    fn output(&self, n: u64) -> Vec<Document> {
        if n == 0 {
            return Vec::new();
        }
        let mut out = Document::new();
        out.insert(self.field.clone(), count_value(n));
        vec![out]
    }
}
