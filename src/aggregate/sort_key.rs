//! The sort key a `$sort` gives each document, for `{$meta: "sortKey"}`.
//!
//! The server's `$sort` records each document's sort key as metadata, and stages that pass the
//! document on (`$match`, `$project`, `$addFields`/`$set`, `$unset`, `$unwind`) keep it; stages
//! that build new documents (`$group`, ...) do not, and `$meta` is then missing. The engine's
//! stages hand on plain documents, so a `$sort` followed by such stages, where one of them names
//! `{$meta: "sortKey"}`, becomes one stage: it sorts, then takes each document through those
//! stages with its key in the environment (`Env::sort_key`), where `$meta` reads it. Pipelines
//! that never name the key run as before.

use std::sync::Arc;

use bson::{Bson, Document};

use super::stage::chain;
use super::{DocStream, RunCtx, Stage};
use crate::error::Result;

/// True when a stage's specification contains `{$meta: "sortKey"}`.
pub(crate) fn mentions_sort_key(spec: &Bson) -> bool {
    match spec {
        Bson::Document(d) => {
            (d.len() == 1 && d.get("$meta") == Some(&Bson::String("sortKey".into()))) || d.values().any(mentions_sort_key)
        }
        Bson::Array(a) => a.iter().any(mentions_sort_key),
        _ => false,
    }
}

#[derive(Debug)]
struct SortWithKeys {
    sort: Arc<dyn Stage>,
    rest: Vec<Arc<dyn Stage>>,
}

/// Joins each `$sort` to the stages after it that keep its documents, up to the last one that
/// reads `{$meta: "sortKey"}` (`reads[i]` for stage `i`).
pub(crate) fn attach_sort_keys(stages: Vec<Arc<dyn Stage>>, reads: &[bool]) -> Vec<Arc<dyn Stage>> {
    if !reads.iter().any(|r| *r) {
        return stages;
    }
    let mut out: Vec<Arc<dyn Stage>> = Vec::with_capacity(stages.len());
    let mut i = 0;
    while i < stages.len() {
        let s = &stages[i];
        if s.sort_spec().is_some() {
            let kept = stages[i + 1..].iter().take_while(|t| t.keeps_metadata()).count();
            if let Some(last) = (i + 1..=i + kept).rev().find(|&j| reads.get(j).copied().unwrap_or(false)) {
                let rest = super::slots::keep_slots(stages[i + 1..=last].to_vec());
                out.push(Arc::new(SortWithKeys { sort: s.clone(), rest }));
                i = last + 1;
                continue;
            }
        }
        out.push(s.clone());
        i += 1;
    }
    out
}

impl Stage for SortWithKeys {
    fn name(&self) -> &'static str {
        self.sort.name()
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        let sorted = self.sort.run(input, cx);
        Box::new(sorted.flat_map(move |d| -> Vec<Result<Document>> {
            let d = match d {
                Ok(d) => d,
                Err(e) => return vec![Err(e)],
            };
            // As the server's serializeSortKey: an array of the key's values.
            let key = self.sort.sort_spec().map(|s| Bson::Array(s.key_values(&d).into_iter().cloned().collect()));
            cx.env.set_sort_key(key);
            let out: Vec<Result<Document>> = chain(&self.rest, Box::new(std::iter::once(Ok(d))), cx).collect();
            cx.env.set_sort_key(None);
            out
        }))
    }
}
