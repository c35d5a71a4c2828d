//! The `Stage` trait and the registry of stage names, which drives parsing and the server's
//! "Unrecognized pipeline stage name" error.

use std::fmt;
use std::sync::Arc;

use bson::{Bson, Document};

use super::stages;
use super::{OutTarget, ParseCtx, Pipeline, RunCtx, Within};
use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;

/// A lazy stream of documents; the first error ends the pipeline.
pub(crate) type DocStream<'a> = Box<dyn Iterator<Item = Result<Document>> + 'a>;

/// One parsed stage.
pub(crate) trait Stage: fmt::Debug + Send + Sync {
    /// The stage's name as the user wrote it (`$set` and `$addFields` share an implementation).
    fn name(&self) -> &'static str;

    /// Turns the input stream into the output stream.
    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a>;

    /// `$out` / `$merge`: where the results go.
    fn out_target(&self) -> Option<OutTarget> {
        None
    }

    /// `$match`: the filter, so that callers holding borrowed documents can filter before copying.
    fn as_filter(&self) -> Option<&Matcher> {
        None
    }

    /// Runs the stage over borrowed documents, when it can without copying them (`$group` reads
    /// its input and builds new documents); `None` when it needs them owned.
    fn run_refs(&self, _input: &[&Document], _cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        None
    }

    /// Runs the stage over a collection's stored documents, each given as its bytes, when it can
    /// read what it needs from them (`$group` of field paths: see `stages/group.rs`); `decode`
    /// gives a record's document as the stage would have received it. `None` (without reading
    /// `records`) when it needs the decoded documents.
    fn run_records<'r>(&self, _records: &mut dyn Iterator<Item = &'r [u8]>, _decode: &dyn Fn(&[u8]) -> Result<Document>, _cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        None
    }

    /// `$documents`: the stage ignores its input.
    fn replaces_input(&self) -> bool {
        false
    }

    /// Whether the stage edits documents in place (see `slots`).
    fn slot_role(&self) -> super::slots::SlotRole<'_> {
        super::slots::SlotRole::Other
    }

    /// `$sort`: its specification (see `sort_key`).
    fn sort_spec(&self) -> Option<&crate::query::sort::SortSpec> {
        None
    }

    /// True when each output document is an input document changed or passed on, so that it
    /// keeps the input's metadata (the sort key `$meta` reads; see `sort_key`).
    fn keeps_metadata(&self) -> bool {
        false
    }
}

/// Parses one stage's specification.
pub(crate) type ParseFn = fn(name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>>;

/// Every stage the engine knows, by name. The one place that decides which names are stages.
pub(crate) static STAGES: &[(&str, ParseFn)] = &[
    ("$addFields", stages::add_fields::parse),
    ("$bucket", stages::bucket::parse),
    ("$bucketAuto", stages::bucket_auto::parse),
    ("$count", stages::count::parse),
    ("$documents", stages::documents::parse),
    ("$facet", stages::facet::parse),
    ("$graphLookup", stages::graph_lookup::parse),
    ("$group", stages::group::parse),
    ("$limit", stages::limit::parse),
    ("$lookup", stages::lookup::parse),
    ("$match", stages::match_::parse),
    ("$merge", stages::merge::parse),
    ("$out", stages::out::parse),
    ("$project", stages::project::parse),
    ("$redact", stages::redact::parse),
    ("$replaceRoot", stages::replace_root::parse),
    ("$replaceWith", stages::replace_root::parse_with),
    ("$sample", stages::sample::parse),
    ("$set", stages::add_fields::parse),
    ("$skip", stages::skip::parse),
    ("$sort", stages::sort::parse),
    ("$sortByCount", stages::sort_by_count::parse),
    ("$unionWith", stages::union_with::parse),
    ("$unset", stages::unset::parse),
    ("$unwind", stages::unwind::parse),
];

/// Stages of MongoDB 8 the engine does not implement: named as such rather than "unrecognized".
pub(crate) static UNSUPPORTED_STAGES: &[&str] = &[
    "$changeStream",
    "$changeStreamSplitLargeEvent",
    "$collStats",
    "$currentOp",
    "$densify",
    "$fill",
    "$geoNear",
    "$indexStats",
    "$listLocalSessions",
    "$listSampledQueries",
    "$listSearchIndexes",
    "$listSessions",
    "$planCacheStats",
    "$querySettings",
    "$queryStats",
    "$search",
    "$searchMeta",
    "$setWindowFields",
    "$shardedDataDistribution",
    "$vectorSearch",
];

fn lookup_stage(name: &str) -> Option<(&'static str, ParseFn)> {
    STAGES.iter().find(|(n, _)| *n == name).map(|(n, f)| (*n, *f))
}

/// Checks the shape of one stage (an object with exactly one field naming a known stage).
fn stage_entry(stage: &Bson) -> Result<(&'static str, ParseFn, &Bson)> {
    let Bson::Document(d) = stage else {
        return Err(Error::type_mismatch("Each element of the 'pipeline' array must be an object"));
    };
    if d.len() != 1 {
        return Err(Error::code(40323, "A pipeline stage specification object must contain exactly one field."));
    }
    let Some((name, spec)) = d.iter().next() else {
        return Err(Error::code(40323, "A pipeline stage specification object must contain exactly one field."));
    };
    match lookup_stage(name) {
        Some((n, f)) => Ok((n, f, spec)),
        None if UNSUPPORTED_STAGES.contains(&name.as_str()) => {
            Err(Error::new(ErrorKind::NotImplemented, format!("{name} is not supported by this engine")))
        }
        None => Err(Error::code(40324, format!("Unrecognized pipeline stage name: '{name}'"))),
    }
}

/// Parses a pipeline: first every stage's shape and name (as the server's lite parse does), then
/// each stage, then the rules about where stages may stand.
pub(crate) fn parse_pipeline(stages: &[Bson], pcx: &ParseCtx) -> Result<Pipeline> {
    let entries = stages.iter().map(stage_entry).collect::<Result<Vec<_>>>()?;
    let mut parsed: Vec<Arc<dyn Stage>> = Vec::with_capacity(entries.len());
    for (i, (name, parse, spec)) in entries.iter().enumerate() {
        let stage = match *name {
            // what the stages after a join read of the documents it joins
            "$lookup" => super::stages::lookup::parse_keeping(spec, pcx, super::deps::joined_fields_read(spec, &stages[i + 1..]))?,
            _ => parse(name, spec, pcx)?,
        };
        parsed.push(stage);
    }
    validate_positions(&parsed, pcx)?;
    let reads_sort_key: Vec<bool> = entries.iter().map(|(_, _, spec)| super::sort_key::mentions_sort_key(spec)).collect();
    let parsed = super::sort_key::attach_sort_keys(parsed, &reads_sort_key);
    Ok(Pipeline::from_stages(super::slots::keep_slots(parsed)))
}

/// Parses the value of a sub-pipeline option (`pipeline` of `$lookup`, a `$facet` branch).
pub(crate) fn parse_sub_pipeline(value: &[Bson], pcx: &ParseCtx, within: Within) -> Result<Pipeline> {
    parse_pipeline(value, &pcx.nested(within))
}

fn validate_positions(stages: &[Arc<dyn Stage>], pcx: &ParseCtx) -> Result<()> {
    for (i, s) in stages.iter().enumerate() {
        let name = s.name();
        let writes = name == "$out" || name == "$merge";
        match pcx.within {
            Within::Facet if writes || name == "$facet" || name == "$documents" => {
                return Err(Error::code(40600, format!("{name} is not allowed to be used within a $facet stage")));
            }
            Within::Lookup if writes => {
                return Err(Error::code(51047, format!("{name} is not allowed within a $lookup's sub-pipeline")));
            }
            Within::UnionWith if writes => {
                return Err(Error::code(31441, format!("{name} is not allowed within a $unionWith's sub-pipeline")));
            }
            _ => {}
        }
        if writes && i + 1 != stages.len() {
            return Err(Error::code(40601, format!("{name} can only be the final stage in the pipeline")));
        }
        if name == "$documents" && i != 0 {
            return Err(Error::code(40602, format!("{name} is only valid as the first stage in a pipeline")));
        }
    }
    Ok(())
}

/// Chains stages over a source stream.
pub(crate) fn chain<'a>(stages: &'a [Arc<dyn Stage>], source: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
    let mut s = source;
    for st in stages {
        s = st.run(s, cx);
    }
    s
}

/// A stream that first drains its input with `f` (for blocking stages: `$group`, `$sort`, ...)
/// and then yields the documents `f` produced. An error from the input or from `f` is yielded
/// once and ends the stream.
pub(crate) fn blocking<'a, F>(input: DocStream<'a>, f: F) -> DocStream<'a>
where
    F: FnOnce(DocStream<'a>) -> Result<Vec<Document>> + 'a,
{
    let mut pending: Option<(DocStream<'a>, F)> = Some((input, f));
    let mut out: Option<std::vec::IntoIter<Document>> = None;
    Box::new(std::iter::from_fn(move || {
        if let Some((input, f)) = pending.take() {
            match f(input) {
                Ok(v) => out = Some(v.into_iter()),
                Err(e) => return Some(Err(e)),
            }
        }
        out.as_mut()?.next().map(Ok)
    }))
}
