//! A removed field keeps its place for the rest of the pipeline.
//!
//! The server's pipeline documents (`MutableDocument` in document.h) remove a field by marking it
//! missing where it stands, and setting a field that is there, missing or not, writes it in that
//! place. So `{$project: {c: 0}}` then `{$addFields: {x: 3, c: 6}}` gives `{_id, c, x}`: `c`
//! comes back where it was, and only `x` is appended. The engine's stages hand on plain
//! documents, which forget a removed field; this module gives the server's order back to a run
//! of consecutive stages that edit documents in place (exclusion `$project`, `$unset`,
//! `$addFields` / `$set`): the run becomes one stage that notes the input's field order and, after
//! the run, puts the fields that were there before back in that order, new fields after them in
//! the order they were added. Only levels the run names are looked at, and a field a computed
//! value replaced whole starts afresh (the server's `setField` of a new value).

use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document};

use super::projection::{Node, Tree};
use super::stage::chain;
use super::{DocStream, RunCtx, Stage};
use crate::error::Result;

/// What a stage does to the documents it passes on, for this module.
pub(crate) enum SlotRole<'a> {
    /// Anything else: ends a run.
    Other,
    /// Removes fields in place (an exclusion `$project`, `$unset`).
    Removes(&'a Tree),
    /// Sets computed fields in place or appends them (`$addFields`, `$set`); a value that is
    /// missing removes the field.
    Sets(&'a Tree),
}

/// The levels a run of stages names: each named sub-document, and the fields a computed value
/// replaces whole.
#[derive(Debug, Default)]
struct Levels {
    children: HashMap<String, Levels>,
    replaced: bool,
}

impl Levels {
    fn add(&mut self, tree: &Tree) {
        for (name, node) in &tree.fields {
            match node {
                Node::Sub(t) => self.children.entry(name.clone()).or_default().add(t),
                Node::Computed(_) => self.children.entry(name.clone()).or_default().replaced = true,
                Node::Include | Node::Exclude => {}
            }
        }
    }
}

/// Consecutive in-place stages run as one, with the input's field order restored after them.
#[derive(Debug)]
struct KeepSlots {
    stages: Vec<Arc<dyn Stage>>,
    levels: Levels,
    nested: bool,
}

/// Replaces each run of in-place stages in which a `$addFields` / `$set` follows a stage that may
/// remove fields by one stage that keeps the removed fields' places.
pub(crate) fn keep_slots(stages: Vec<Arc<dyn Stage>>) -> Vec<Arc<dyn Stage>> {
    let mut out: Vec<Arc<dyn Stage>> = Vec::with_capacity(stages.len());
    let mut run: Vec<Arc<dyn Stage>> = Vec::new();
    for s in stages {
        if matches!(s.slot_role(), SlotRole::Other) {
            flush(&mut run, &mut out);
            out.push(s);
        } else {
            run.push(s);
        }
    }
    flush(&mut run, &mut out);
    out
}

fn flush(run: &mut Vec<Arc<dyn Stage>>, out: &mut Vec<Arc<dyn Stage>>) {
    // Only a `$addFields` after the run's first stage can put back something removed before it.
    let refills = run.iter().skip(1).any(|s| matches!(s.slot_role(), SlotRole::Sets(_)));
    if !refills {
        out.append(run);
        return;
    }
    let mut levels = Levels::default();
    for s in run.iter() {
        match s.slot_role() {
            SlotRole::Removes(t) | SlotRole::Sets(t) => levels.add(t),
            SlotRole::Other => {}
        }
    }
    let nested = levels.children.values().any(|l| !l.replaced && !l.children.is_empty());
    out.push(Arc::new(KeepSlots { stages: std::mem::take(run), levels, nested }));
}

impl Stage for KeepSlots {
    fn name(&self) -> &'static str {
        self.stages.first().map_or("$addFields", |s| s.name())
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        Box::new(input.flat_map(move |d| -> Vec<Result<Document>> {
            let d = match d {
                Ok(d) => d,
                Err(e) => return vec![Err(e)],
            };
            // The input's order: its top-level names, or (when the run names sub-documents)
            // the whole document.
            let before = if self.nested { Before::Doc(d.clone()) } else { Before::Keys(d.keys().cloned().collect()) };
            chain(&self.stages, Box::new(std::iter::once(Ok(d))), cx)
                .map(|r| {
                    r.map(|doc| match &before {
                        Before::Keys(keys) => reorder(keys.iter().map(String::as_str), doc),
                        Before::Doc(b) => restore(b, doc, &self.levels),
                    })
                })
                .collect()
        }))
    }
}

enum Before {
    Keys(Vec<String>),
    Doc(Document),
}

/// `doc` with the fields named in `order` first, in that order, then the others as they are.
fn reorder<'a>(order: impl Iterator<Item = &'a str>, doc: Document) -> Document {
    let rank: HashMap<&str, usize> = order.enumerate().map(|(i, k)| (k, i)).collect();
    let n = rank.len();
    let key = |(i, k): (usize, &String)| rank.get(k.as_str()).copied().unwrap_or(n + i);
    if doc.keys().enumerate().map(key).is_sorted() {
        return doc;
    }
    let mut fields: Vec<(usize, (String, Bson))> =
        doc.into_iter().enumerate().map(|(i, kv)| (rank.get(kv.0.as_str()).copied().unwrap_or(n + i), kv)).collect();
    fields.sort_by_key(|(r, _)| *r);
    fields.into_iter().map(|(_, kv)| kv).collect()
}

/// `reorder` at every level the run names, below fields that were not replaced whole.
fn restore(before: &Document, doc: Document, levels: &Levels) -> Document {
    let doc = reorder(before.keys().map(String::as_str), doc);
    if levels.children.is_empty() {
        return doc;
    }
    doc.into_iter()
        .map(|(k, v)| match (levels.children.get(&k), before.get(&k)) {
            (Some(l), Some(b)) if !l.replaced && !l.children.is_empty() => {
                let v = restore_value(b, v, l);
                (k, v)
            }
            _ => (k, v),
        })
        .collect()
}

fn restore_value(before: &Bson, v: Bson, levels: &Levels) -> Bson {
    match (before, v) {
        (Bson::Document(b), Bson::Document(d)) => Bson::Document(restore(b, d, levels)),
        (Bson::Array(b), Bson::Array(items)) if b.len() == items.len() => {
            Bson::Array(b.iter().zip(items).map(|(b, v)| restore_value(b, v, levels)).collect())
        }
        (_, v) => v,
    }
}
