//! `$meta`: a document's metadata. The engine keeps one kind, the sort key a `$sort` gave the
//! document (`{$meta: "sortKey"}`: an array of its sort values, null for a missing one, as the
//! server's `serializeSortKey`); it is there in the stages after a `$sort` that keep the
//! document (see `aggregate::sort_key`) and missing elsewhere. Other metadata (text and search
//! scores, geoNear distances, record ids, index keys) comes from features the engine does not
//! have.

use bson::Bson;

use crate::error::{Error, ErrorKind, Result};
use crate::expr::args::Simple;
use crate::expr::{Ctx, Expr, Val, VarScope};

/// The metadata names of MongoDB 8's `$meta` (document_metadata_fields.cpp).
const KNOWN: &[&str] = &[
    "textScore", "randVal", "searchScore", "searchHighlights", "geoNearDistance", "geoNearPoint", "recordId", "indexKey",
    "sortKey", "searchScoreDetails", "searchSequenceToken", "vectorSearchScore", "score", "scoreDetails",
];

pub fn parse(name: &'static str, arg: &Bson, _: &VarScope) -> Result<Expr> {
    let Bson::String(kind) = arg else {
        return Err(Error::code(17307, "$meta only supports string arguments"));
    };
    if !KNOWN.contains(&kind.as_str()) {
        return Err(Error::code(17308, format!("Unsupported argument to $meta: {kind}")));
    }
    if kind != "sortKey" {
        return Err(Error::new(ErrorKind::NotImplemented, format!("$meta \"{kind}\" is not supported by this engine")));
    }
    Ok(Simple::with_args(name, Vec::new(), eval))
}

fn eval(_: &'static str, _: &[Val], ctx: &Ctx) -> Result<Option<Bson>> {
    Ok(ctx.env.sort_key())
}
