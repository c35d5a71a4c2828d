//! Aggregation pipelines: parsing (`Pipeline::parse`) and running (`Pipeline::run`) with the
//! server's results and errors.
//!
//! - [`stage`]: the `Stage` trait and the one registry of stage names (drives the "Unrecognized
//!   pipeline stage name" error); one file per stage in `stages/`.
//! - [`accumulator`]: the `Accumulator` trait and the registry of `$group` operators (drives
//!   "unknown group operator"); one file per accumulator in `accumulators/`.
//! - `projection`: the `$project` / `$addFields` / `$unset` machinery shared by several stages.
//! - `slots`: a removed field keeps its place when a later `$addFields` sets it again, as the
//!   server's documents do.
//! - `sort_key`: the sort key a `$sort` gives each document, which `{$meta: "sortKey"}` reads in
//!   the stages after it that keep the document.
//!
//! Stages stream: each one turns an iterator of documents into another, so `$match` then `$limit`
//! stops reading once the limit is reached, and a document is cloned only where a stage must keep
//! the original (`$facet`, `$lookup`'s foreign side).

pub(crate) mod accumulator;
pub mod accumulators;
pub mod deps;
pub(crate) mod projection;
pub(crate) mod slots;
pub(crate) mod sort_key;
pub(crate) mod stage;
pub mod stages;
pub(crate) mod util;

use std::borrow::Cow;
use std::sync::Arc;

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::Result;
use crate::expr::VarScope;

pub(crate) use stage::{DocStream, Stage};

/// What a pipeline may read besides its input: other collections (`$lookup`, `$unionWith`,
/// `$graphLookup`). Implemented by the database.
pub trait Catalog {
    /// The documents of a collection in natural order (empty when it does not exist). For a view,
    /// the view's results.
    fn documents(&self, collection: &str) -> Vec<Document>;

    /// The same documents, borrowed when the database can lend them (the default copies through
    /// [`Catalog::documents`]). `$lookup` and `$graphLookup` read through this, once per stage run,
    /// so a database that stores a collection as a `Vec<Document>` should return
    /// `Cow::Borrowed`.
    fn read(&self, collection: &str) -> Cow<'_, [Document]> {
        Cow::Owned(self.documents(collection))
    }
}

/// A catalog with no collections (every collection reads as empty).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoCatalog;

impl Catalog for NoCatalog {
    fn documents(&self, _collection: &str) -> Vec<Document> {
        Vec::new()
    }
}

/// Where `$out`/`$merge` send the results; the database performs the write.
#[derive(Debug, Clone, PartialEq)]
pub enum OutTarget {
    /// `db` when the stage names one (`{ db, coll }`), else the command's database.
    Out { db: Option<String>, collection: String },
    Merge { spec: Document },
}

/// The result of running a pipeline.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub docs: Vec<Document>,
    pub out: Option<OutTarget>,
}

/// Where a pipeline is being parsed: at the top, or inside another stage (which forbids some
/// stages, e.g. `$out` inside `$facet`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Within {
    Top,
    Facet,
    Lookup,
    UnionWith,
}

/// What stage parsers see: the variables in scope and where the pipeline sits.
#[derive(Debug, Clone)]
pub(crate) struct ParseCtx {
    pub scope: VarScope,
    pub within: Within,
    /// How many `$lookup`/`$unionWith` sub-pipelines enclose this one (the server's
    /// `subPipelineDepth`).
    pub depth: usize,
}

/// The server's `internalMaxSubPipelineViewDepth`: sub-pipelines nest at most this deep.
pub(crate) const MAX_SUB_PIPELINE_DEPTH: usize = 20;

impl ParseCtx {
    pub fn nested(&self, within: Within) -> ParseCtx {
        ParseCtx { scope: self.scope.clone(), within, depth: self.depth }
    }

    /// The context of a `$lookup`'s or `$unionWith`'s sub-pipeline, one level deeper (232 past
    /// the limit, as the server's `copyForSubPipeline`).
    pub fn sub_pipeline(&self, within: Within) -> Result<ParseCtx> {
        if self.depth >= MAX_SUB_PIPELINE_DEPTH {
            return Err(crate::error::Error::new(
                crate::error::ErrorKind::MaxSubPipelineDepthExceeded,
                format!("Maximum number of nested sub-pipelines exceeded. Limit is {MAX_SUB_PIPELINE_DEPTH}"),
            ));
        }
        Ok(ParseCtx { scope: self.scope.clone(), within, depth: self.depth + 1 })
    }
}

/// What stages see while running: the catalog and the operation's environment.
#[derive(Clone, Copy)]
pub(crate) struct RunCtx<'a> {
    pub catalog: &'a dyn Catalog,
    pub env: &'a Env,
}

/// A parsed pipeline.
#[derive(Debug, Clone, Default)]
pub struct Pipeline {
    stages: Vec<Arc<dyn Stage>>,
}

impl Pipeline {
    /// Parses the stages (unknown stage: 40324, ...). Expressions may use the system variables
    /// only; use [`Pipeline::parse_with`] when the command has a `let`.
    pub fn parse(stages: &[Bson]) -> Result<Pipeline> {
        Pipeline::parse_with(stages, &VarScope::default())
    }

    /// Parses the stages with user variables in scope (the names of the command's `let`, which
    /// the database also puts in `Env::vars`).
    pub fn parse_with(stages: &[Bson], scope: &VarScope) -> Result<Pipeline> {
        stage::parse_pipeline(stages, &ParseCtx { scope: scope.clone(), within: Within::Top, depth: 0 })
    }

    pub(crate) fn from_stages(stages: Vec<Arc<dyn Stage>>) -> Pipeline {
        Pipeline { stages }
    }

    /// The number of stages.
    pub fn len(&self) -> usize {
        self.stages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// True when the pipeline ignores its input (it starts with `$documents`).
    pub fn replaces_input(&self) -> bool {
        self.stages.first().is_some_and(|s| s.replaces_input())
    }

    /// Where the pipeline writes its results (`$out`/`$merge` as its last stage).
    pub fn out_target(&self) -> Option<OutTarget> {
        self.stages.last().and_then(|s| s.out_target())
    }

    /// Runs the pipeline over `input`.
    pub fn run(&self, input: Vec<Document>, catalog: &dyn Catalog, env: &Env) -> Result<Output> {
        let cx = RunCtx { catalog, env };
        let docs = self.run_docs(input, &cx)?;
        let out = self.stages.last().and_then(|s| s.out_target());
        Ok(Output { docs, out })
    }

    /// Runs over owned documents and collects the results.
    pub(crate) fn run_docs(&self, input: Vec<Document>, cx: &RunCtx) -> Result<Vec<Document>> {
        let source: DocStream = Box::new(input.into_iter().map(Ok));
        self.stream(source, cx).collect()
    }

    /// Runs over borrowed documents: leading `$match` stages filter by reference, so only the
    /// documents that pass them are copied.
    pub(crate) fn run_borrowed(&self, input: &[Document], cx: &RunCtx) -> Result<Vec<Document>> {
        self.run_refs(input.iter().collect(), 0, cx)
    }

    /// True when stage `i` is a `$match` (its filter is known: see [`Pipeline::run_on_stream`]).
    pub(crate) fn filters_at(&self, i: usize) -> bool {
        self.stages.get(i).is_some_and(|s| s.as_filter().is_some())
    }

    /// Stage `i`'s sort specification when it is a plain `$sort` (not one joined to stages that
    /// read its sort key, see `sort_key`).
    pub(crate) fn sorts_at(&self, i: usize) -> Option<&crate::query::sort::SortSpec> {
        self.stages.get(i).and_then(|s| s.sort_spec())
    }

    /// [`Pipeline::run`] over a stream of documents (a collection's, decoded one at a time as
    /// the stages pull them) that already went through the first `done` stages (the query
    /// planner ran a leading `$match`, a plain `$sort` is done by sorting the collection's
    /// records: see [`Pipeline::filters_at`], [`Pipeline::sorts_at`]).
    pub fn run_on_stream<'a>(&self, input: impl Iterator<Item = Result<Document>> + 'a, done: usize, catalog: &dyn Catalog, env: &Env) -> Result<Output> {
        let cx = RunCtx { catalog, env };
        let from = done;
        let source: DocStream = Box::new(input);
        let docs = stage::chain(&self.stages[from.min(self.stages.len())..], source, &cx).collect::<Result<Vec<_>>>()?;
        let out = self.stages.last().and_then(|s| s.out_target());
        Ok(Output { docs, out })
    }

    /// [`Pipeline::run_on_stream`] over a collection's stored documents, each given as its bytes
    /// (`decode` gives the document the stages read: see `deps`), that already went through the
    /// first `done` stages. The stage after those may read the bytes itself (see
    /// `Stage::run_records`: a `$group` of field paths); else the documents are decoded one at a
    /// time as the stages pull them.
    pub fn run_on_records<'a>(
        &self,
        mut records: impl Iterator<Item = &'a [u8]> + 'a,
        decode: impl Fn(&[u8]) -> Result<Document> + 'a,
        done: usize,
        catalog: &dyn Catalog,
        env: &Env,
    ) -> Result<Output> {
        let cx = RunCtx { catalog, env };
        if let Some(out) = self.stages.get(done).and_then(|s| s.run_records(&mut records, &decode, &cx)) {
            let source: DocStream = Box::new(out?.into_iter().map(Ok));
            let docs = stage::chain(&self.stages[done + 1..], source, &cx).collect::<Result<Vec<_>>>()?;
            let out = self.stages.last().and_then(|s| s.out_target());
            return Ok(Output { docs, out });
        }
        self.run_on_stream(records.map(decode), done, catalog, env)
    }

    /// Leading `$match` stages filter by reference; a stage that reads borrowed documents (see
    /// `Stage::run_refs`) takes them as they are; only the rest of the pipeline sees copies.
    fn run_refs(&self, mut kept: Vec<&Document>, from: usize, cx: &RunCtx) -> Result<Vec<Document>> {
        let mut skip = from;
        for s in &self.stages[from.min(self.stages.len())..] {
            match s.as_filter() {
                Some(m) => {
                    let mut next = Vec::with_capacity(kept.len());
                    for d in kept {
                        if m.matches(d, cx.env)? {
                            next.push(d);
                        }
                    }
                    kept = next;
                    skip += 1;
                }
                None => break,
            }
        }
        let source: DocStream = match self.stages.get(skip).and_then(|s| s.run_refs(&kept, cx)) {
            Some(out) => {
                skip += 1;
                Box::new(out?.into_iter().map(Ok))
            }
            None => Box::new(kept.into_iter().map(|d| Ok(d.clone()))),
        };
        let rest = &self.stages[skip..];
        stage::chain(rest, source, cx).collect()
    }

    /// The pipeline as a lazy stream over `input`.
    pub(crate) fn stream<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        stage::chain(&self.stages, input, cx)
    }
}
