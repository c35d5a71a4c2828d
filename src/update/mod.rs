//! Updates as MongoDB 8 applies them: update operators (`{ $set: .. }`, one file per operator in
//! `fields/`, `array/` and `bitwise/`, all listed in `registry.rs`), positional paths (`$`, `$[]`,
//! `$[<id>]` with `arrayFilters`), pipeline-style updates (`[ { $set: .. } ]`, `pipeline.rs`) and
//! replacement documents.
//!
//! An update never changes the document it is given: it builds the new document aside, checks it
//! (paths, `_id`, field names, size) and only then returns it, so a failed update leaves the
//! stored document as it was. Errors carry the server's code and wording; values inside messages
//! are printed by [`crate::value::display`].

mod array;
mod bytes;
mod bitwise;
mod fields;
mod modifier;
mod path;
mod pipeline;
mod registry;
mod tree;
mod undo;
mod validate;

use bson::{Bson, Document, Timestamp};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::VarScope;
use crate::query::Matcher;
use crate::value::types::type_name;
use crate::value::{bson_size, compare, display};

use modifier::{identical_docs, DocId};
use tree::{Ctx, Node, ObjectNode, ParseCx};
pub use bytes::{BytesUpdate, Edit};
pub use undo::Undo;

/// The largest document a user may store (`BSONObjMaxUserSize`).
pub const MAX_DOCUMENT_SIZE: usize = 16 * 1024 * 1024;

/// What one update did to one document.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The document after the update.
    pub doc: Document,
    /// Dotted paths the update changed, in the order it changed them (feeds the diff UI). Array
    /// elements appear by index (`items.1.price`); for replacements and pipelines, the paths that
    /// differ between the old and the new document.
    pub changed_paths: Vec<String>,
    /// False when the update left every byte as it was (a no-op `$set`, ...).
    pub modified: bool,
}

/// A parsed update: operators (`{ $set: .. }`), a replacement document (`{ a: 1 }`), or a
/// pipeline (`[ { $set: .. } ]`).
#[derive(Debug, Clone)]
pub struct Update {
    kind: Kind,
    filters: Vec<(String, Matcher)>,
}

#[derive(Debug, Clone)]
enum Kind {
    Modifiers { root: Node, positional: bool },
    Replacement(Document),
    Pipeline(pipeline::Pipeline),
}

impl Update {
    /// Parses an update document or pipeline, with the `arrayFilters` of the command.
    pub fn parse(spec: &Bson, array_filters: Option<&[Document]>) -> Result<Update> {
        Update::parse_with(spec, array_filters, &VarScope::default())
    }

    /// As [`Update::parse`], with the variables a pipeline may use (the command's `let`).
    pub fn parse_with(spec: &Bson, array_filters: Option<&[Document]>, scope: &VarScope) -> Result<Update> {
        let filters = parse_filters(array_filters.unwrap_or(&[]))?;
        let kind = match spec {
            Bson::Array(stages) => {
                if !filters.is_empty() {
                    return Err(Error::failed_to_parse("arrayFilters may not be specified for pipeline-style updates"));
                }
                Kind::Pipeline(pipeline::Pipeline::parse(stages, scope)?)
            }
            Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => parse_modifiers(d, &filters)?,
            Bson::Document(d) => Kind::Replacement(d.clone()),
            _ => return Err(Error::failed_to_parse("Update argument must be either an object or an array")),
        };
        Ok(Update { kind, filters })
    }

    /// True for a replacement document (`{ a: 1 }`): the caller may refuse it where only operators
    /// are allowed (`updateOne`, `multi: true`).
    pub fn is_replacement(&self) -> bool {
        matches!(self.kind, Kind::Replacement(_))
    }

    /// True for a pipeline-style update.
    pub fn is_pipeline(&self) -> bool {
        matches!(self.kind, Kind::Pipeline(_))
    }

    /// True when a path uses the positional `$`, so the caller must pass the matched array index.
    pub fn is_positional(&self) -> bool {
        matches!(self.kind, Kind::Modifiers { positional: true, .. })
    }

    /// Applies the update to `doc`. `positional` is the index the query matched (for `$`);
    /// `inserting` is true when the document is being created by an upsert (`$setOnInsert`).
    pub fn apply(&self, doc: &Document, positional: Option<usize>, inserting: bool, env: &Env) -> Result<Applied> {
        let applied = match &self.kind {
            Kind::Modifiers { .. } => {
                let mut out = doc.clone();
                let r = self.apply_in_place(&mut out, positional, inserting, env)?;
                return Ok(Applied { doc: out, changed_paths: r.changed_paths, modified: r.modified });
            }
            Kind::Replacement(r) => {
                let mut r = r.clone();
                fill_timestamps(&mut r, env);
                replace(doc, &r, false)?
            }
            Kind::Pipeline(p) => {
                let out = p.run(doc, env)?;
                replace(doc, &out, true)?
            }
        };
        check_size(&applied.doc, inserting)?;
        Ok(applied)
    }

    /// The top-level fields an operator update reads and changes (its paths' first
    /// components), for a caller that decodes only those (with `_id`, which errors name) and
    /// leaves the others as stored; `None` for a replacement or a pipeline (they read the whole
    /// document).
    pub fn top_fields(&self) -> Option<Vec<&str>> {
        match &self.kind {
            Kind::Modifiers { root, .. } => Some(root.fields().map(|(name, _)| name).collect()),
            _ => None,
        }
    }

    /// What to keep aside before [`Update::apply_in_place`] changes `doc`, to restore it when the
    /// update or the write fails: the top-level fields an operator update changes (only the
    /// length of an array it appends to), the whole document for a replacement or a pipeline.
    pub fn undo_point(&self, doc: &Document) -> Undo {
        match &self.kind {
            Kind::Modifiers { root, .. } => Undo::fields(root.fields(), doc),
            _ => Undo::whole(doc),
        }
    }

    /// Applies the update to `doc` itself, without copying it first (operator updates change only
    /// the paths they touch: a `$push` onto a long array appends one element). Same checks and
    /// errors as [`Update::apply`], but on an error `doc` may be left partly updated: the caller
    /// restores it (the database keeps the stored document's BSON bytes for that).
    pub fn apply_in_place(&self, doc: &mut Document, positional: Option<usize>, inserting: bool, env: &Env) -> Result<InPlace> {
        self.apply_in_place_sized(doc, positional, inserting, env, None)
    }

    /// [`Update::apply_in_place`] on a stored document of BSON size `stored_size` whose
    /// [`Update::undo_point`] is `undo`: the new size is the old one less the touched top-level
    /// fields' old sizes plus their new ones (an appended array adds its new elements), not a
    /// walk over the whole document (a bucket of readings is mostly untouched).
    pub fn apply_stored_in_place(&self, doc: &mut Document, positional: Option<usize>, env: &Env, undo: &Undo, stored_size: usize) -> Result<InPlace> {
        self.apply_in_place_sized(doc, positional, false, env, Some((undo, stored_size)))
    }

    fn apply_in_place_sized(
        &self,
        doc: &mut Document,
        positional: Option<usize>,
        inserting: bool,
        env: &Env,
        stored: Option<(&Undo, usize)>,
    ) -> Result<InPlace> {
        let Kind::Modifiers { root, .. } = &self.kind else {
            let a = self.apply(doc, positional, inserting, env)?;
            let size = if a.modified { bson_size(&a.doc) } else { 0 };
            *doc = a.doc;
            return Ok(InPlace { changed_paths: a.changed_paths, modified: a.modified, size });
        };
        let mut cx = Ctx {
            env,
            positional,
            inserting,
            filters: &self.filters,
            id: DocId(doc.get("_id").cloned()),
            changed: Vec::new(),
            modified: false,
            timestamps: 0,
        };
        let mut value = Bson::Document(std::mem::take(doc));
        let applied = tree::apply(root, &mut value, &mut Vec::new(), &mut cx);
        let Bson::Document(out) = value else {
            return Err(fields::internal("the document stopped being a document"));
        };
        *doc = out;
        applied?;
        if !cx.modified {
            return Ok(InPlace { changed_paths: Vec::new(), modified: false, size: 0 });
        }
        if inserting {
            id_first(doc);
            if let Some(id) = doc.get("_id") {
                validate::id_value(id)?;
            }
        }
        // The caller checks the incremental size against the bytes it writes (`doc` may hold
        // only the touched fields: see `Collection::update_in_place`).
        let size = match stored.and_then(|(undo, old)| undo.size_after(old, doc)) {
            Some(size) => size,
            None => bson_size(doc),
        };
        check_size_of(size, inserting)?;
        Ok(InPlace { changed_paths: cx.changed, modified: true, size })
    }
}

/// What [`Update::apply_in_place`] did (the document itself was changed in place).
#[derive(Debug, Clone, PartialEq)]
pub struct InPlace {
    /// As [`Applied::changed_paths`].
    pub changed_paths: Vec<String>,
    /// As [`Applied::modified`].
    pub modified: bool,
    /// The document's BSON size after the update (when modified).
    pub size: usize,
}

/// The size limit of an updated (17419) or upserted (17420) document; returns the size.
fn check_size(doc: &Document, inserting: bool) -> Result<usize> {
    let size = bson_size(doc);
    check_size_of(size, inserting)?;
    Ok(size)
}

/// [`check_size`] of a document of BSON size `size`.
fn check_size_of(size: usize, inserting: bool) -> Result<()> {
    if size > MAX_DOCUMENT_SIZE {
        return Err(if inserting {
            Error::code(17420, format!("Document to upsert is larger than {MAX_DOCUMENT_SIZE}"))
        } else {
            Error::code(17419, format!("Resulting document after update is larger than {MAX_DOCUMENT_SIZE}"))
        });
    }
    Ok(())
}

/// Checks a replacement document (`replaceOne`, `findOneAndReplace`, an update command whose
/// `u` is a plain document) as the server's storage validation does: no `$`-prefixed top-level
/// field (except a DBRef's `$ref`/`$id`/`$db`), and an `_id` that is not an array, regex,
/// `undefined`, or a document with `$`-prefixed fields. Field names with dots are allowed.
pub fn validate_replacement(doc: &Document) -> Result<()> {
    validate::document(doc, false)
}

fn parse_modifiers(spec: &Document, filters: &[(String, Matcher)]) -> Result<Kind> {
    let fields = spec.values().map(|v| if let Bson::Document(d) = v { d.len() } else { 0 }).sum();
    let mut root = Node::Object(ObjectNode::with_capacity(fields));
    let mut positional = false;
    let mut used = Vec::new();
    for (name, operand) in spec {
        let Some(parse) = registry::lookup(name) else {
            return Err(Error::failed_to_parse(format!(
                "Unknown modifier: {name}. Expected a valid update modifier or pipeline-style update specified as an array"
            )));
        };
        let Bson::Document(fields) = operand else {
            return Err(Error::failed_to_parse(format!(
                "Modifiers operate on fields but we found type {} instead. For example: {{$mod: {{<field>: ...}}}} not {{{}}}",
                type_name(operand),
                display::element(name, operand)
            )));
        };
        let mut cx = ParseCx { filters, used: &mut used };
        for (field, value) in fields {
            let is_positional = if name == "$rename" {
                tree::place(&mut root, field, || Ok(registry::Op::Placeholder), &mut cx)?;
                let Bson::String(to) = value else {
                    return Err(Error::bad_value(format!(
                        "The 'to' field for $rename must be a string: {}",
                        display::element(field, value)
                    )));
                };
                tree::place(&mut root, to, || parse(field, value), &mut cx)?
            } else {
                tree::place(&mut root, field, || parse(field, value), &mut cx)?
            };
            positional |= is_positional;
        }
    }
    for (id, _) in filters {
        if !used.contains(id) {
            return Err(Error::failed_to_parse(format!(
                "The array filter for identifier '{id}' was not used in the update {}",
                display::document(spec)
            )));
        }
    }
    Ok(Kind::Modifiers { root, positional })
}

/// The identifier an array filter is about (`ExpressionWithPlaceholder`): the first component of
/// its paths, through `$and`/`$or`/`$nor`.
fn placeholder(filter: &Document) -> Result<Option<String>> {
    let mut found: Option<String> = None;
    for (k, v) in filter {
        let names: Vec<Option<String>> = match k.as_str() {
            "$and" | "$or" | "$nor" => match v {
                Bson::Array(items) => items
                    .iter()
                    .map(|x| match x {
                        Bson::Document(d) => placeholder(d),
                        _ => Ok(None),
                    })
                    .collect::<Result<_>>()?,
                _ => Vec::new(),
            },
            k if k.starts_with('$') => Vec::new(),
            k => vec![Some(k.split('.').next().unwrap_or_default().to_string())],
        };
        for name in names.into_iter().flatten() {
            match &found {
                None => found = Some(name),
                Some(prev) if *prev != name => {
                    return Err(Error::failed_to_parse(format!("Expected a single top-level field name, found '{prev}' and '{name}'")));
                }
                Some(_) => {}
            }
        }
    }
    Ok(found)
}

fn parse_filters(raw: &[Document]) -> Result<Vec<(String, Matcher)>> {
    let context = |e: Error| e.add_context("Error parsing array filter");
    let mut out: Vec<(String, Matcher)> = Vec::new();
    for f in raw {
        let matcher = Matcher::parse(f).map_err(context)?;
        let name = placeholder(f).map_err(context)?;
        let Some(name) = name else {
            return Err(Error::failed_to_parse("Cannot use an expression without a top-level field name in arrayFilters"));
        };
        let valid = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase()) && name.bytes().all(|b| b.is_ascii_alphanumeric());
        if !valid {
            return Err(context(Error::bad_value(format!(
                "The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '{name}'"
            ))));
        }
        if out.iter().any(|(k, _)| *k == name) {
            return Err(Error::failed_to_parse(format!("Found multiple array filters with the same top-level field name {name}")));
        }
        out.push((name, matcher));
    }
    Ok(out)
}

/// Moves `_id` to the front (a document an upsert creates).
fn id_first(doc: &mut Document) {
    if doc.keys().next().is_some_and(|k| k == "_id") {
        return;
    }
    if let Some(id) = doc.remove("_id") {
        let mut out = Document::new();
        out.insert("_id", id);
        out.extend(std::mem::take(doc));
        *doc = out;
    }
}

/// Zero timestamps at the top of a replacement become the current time (`ObjectReplaceExecutor`).
fn fill_timestamps(doc: &mut Document, env: &Env) {
    let secs = env.now.timestamp_millis().div_euclid(1000).clamp(0, u32::MAX as i64) as u32;
    let mut inc = 0;
    for (k, v) in doc.iter_mut() {
        if k != "_id" {
            if let Bson::Timestamp(Timestamp { time: 0, increment: 0 }) = v {
                inc += 1;
                *v = Bson::Timestamp(Timestamp { time: secs, increment: inc });
            }
        }
    }
}

/// Replaces the document with `new` (`ObjectReplaceExecutor::applyReplacementUpdate`): keeps the
/// old `_id` when `new` has none, validates, and refuses a changed `_id`.
fn replace(original: &Document, new: &Document, pipeline: bool) -> Result<Applied> {
    if identical_docs(original, new) {
        return Ok(Applied { doc: original.clone(), changed_paths: Vec::new(), modified: false });
    }
    let mut out = Document::new();
    if !new.contains_key("_id") {
        if let Some(id) = original.get("_id") {
            out.insert("_id", id.clone());
        }
    }
    for (k, v) in new {
        out.insert(k.clone(), v.clone());
    }
    validate::document(&out, pipeline)?;
    if let (Some(old), Some(now)) = (original.get("_id"), out.get("_id")) {
        if compare(old, now) != std::cmp::Ordering::Equal {
            return Err(Error::new(
                ErrorKind::ImmutableField,
                format!(
                    "After applying the update, the (immutable) field '_id' was found to have been altered to {}",
                    display::element("_id", now)
                ),
            ));
        }
    }
    let mut changed = Vec::new();
    diff("", original, &out, &mut changed);
    Ok(Applied { doc: out, changed_paths: changed, modified: true })
}

/// The paths that differ between two documents (for the diff UI).
fn diff(prefix: &str, old: &Document, new: &Document, out: &mut Vec<String>) {
    let path = |k: &str| if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
    for (k, v) in old {
        match new.get(k) {
            None => out.push(path(k)),
            Some(n) => match (v, n) {
                (Bson::Document(a), Bson::Document(b)) => diff(&path(k), a, b, out),
                (a, b) if !modifier::identical(a, b) => out.push(path(k)),
                _ => {}
            },
        }
    }
    for k in new.keys() {
        if !old.contains_key(k) {
            out.push(path(k));
        }
    }
}
