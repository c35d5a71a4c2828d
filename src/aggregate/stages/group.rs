//! `$group`: one output document per distinct `_id` value (keys equal as the server compares
//! them: 1, 1.0 and `Long(1)` are one group), with accumulated fields. The server's output order
//! comes from a hash table and is unspecified; the engine uses first-seen order.
//!
//! Fed straight from a collection's stored documents (see `Stage::run_records`), a `$group`
//! whose `_id` and accumulator arguments are constants, field paths or objects of them reads
//! each value from the document's bytes ([`FromBytes`]) and hands it to the accumulators
//! (`State::add_value`); a document with an array along one of the paths is decoded and goes
//! the usual way.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use bson::{Bson, Document, RawDocument};

use crate::aggregate::accumulator::{parse_statement, Arg, Reads, Row, Statement};
use crate::aggregate::stage::blocking;
use crate::aggregate::util::err;
use crate::aggregate::{DocStream, ParseCtx, RunCtx, Stage};
use crate::env::Env;
use crate::error::Result;
use crate::expr::{Expr, VarScope};
use crate::value::compare::parts;
use crate::value::{hash_key_into, KeyHasher};
use crate::value::raw;

#[derive(Debug)]
pub(crate) struct Group {
    id: Arg,
    stmts: Vec<Statement>,
}

/// Parses a group key (`_id`): `{}` is a constant, `{ $op: .. }` an expression, any other object
/// an object of expressions (no inclusion-style values: 17390).
pub(crate) fn parse_id(spec: &Bson, scope: &VarScope) -> Result<Expr> {
    match spec {
        Bson::Document(d) if d.is_empty() => Ok(Expr::constant(spec.clone())),
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => Expr::parse_object(d, scope),
        Bson::Document(d) => {
            if d.values().any(|v| matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) | Bson::Boolean(_))) {
                return Err(err(17390, "$group does not support inclusion-style expressions"));
            }
            Expr::parse_object(d, scope)
        }
        other => Expr::parse(other, scope),
    }
}

pub(crate) fn parse(_name: &'static str, spec: &Bson, pcx: &ParseCtx) -> Result<Arc<dyn Stage>> {
    let Bson::Document(d) = spec else {
        return Err(err(15947, "a group's fields must be specified in an object"));
    };
    let mut id = None;
    let mut stmts = Vec::new();
    for (k, v) in d {
        if k == "_id" {
            id = Some(parse_id(v, &pcx.scope)?);
        } else {
            stmts.push(parse_statement(k, v, &pcx.scope)?);
        }
    }
    let id = id.ok_or_else(|| err(15955, "a group specification must include an _id"))?;
    Ok(Arc::new(Group { id: Arg::from_expr(id), stmts }))
}

/// Groups in first-seen order of their keys (keys equal as the server compares them).
pub(crate) struct Groups<'s> {
    stmts: &'s [Statement],
    index: HashMap<Vec<u8>, usize, KeyHasher>,
    rows: Vec<(Bson, Row<'s>)>,
    /// The current document's key bytes (one buffer for all documents).
    scratch: Vec<u8>,
    /// The key bytes and group of the document before: documents in a row often share a key
    /// (sorted by it, or all in one group), and comparing the bytes is cheaper than hashing them.
    last: (Vec<u8>, usize),
}

impl<'s> Groups<'s> {
    pub fn new(stmts: &'s [Statement]) -> Groups<'s> {
        Groups { stmts, index: HashMap::default(), rows: Vec::new(), scratch: Vec::new(), last: (Vec::new(), usize::MAX) }
    }

    /// The group of a key (`None`, missing, groups with null); the key is copied only for a new
    /// group.
    pub fn slot(&mut self, key: Option<&Bson>, env: &Env) -> Result<usize> {
        let key = key.unwrap_or(&Bson::Null);
        hash_key_into(key, &mut self.scratch);
        self.slot_of_scratch(|| Some(key.clone()), env)
    }

    /// The group whose key's hash key `write` writes (`None` when it cannot: nothing is
    /// changed); `key` builds the key for a new group.
    fn slot_by_key(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Option<()>, key: impl FnOnce() -> Option<Bson>, env: &Env) -> Result<Option<usize>> {
        self.scratch.clear();
        if write(&mut self.scratch).is_none() {
            return Ok(None);
        }
        self.slot_of_scratch(key, env).map(Some)
    }

    /// The group of the hash key in `scratch`, made with the key `key` builds when new.
    fn slot_of_scratch(&mut self, key: impl FnOnce() -> Option<Bson>, env: &Env) -> Result<usize> {
        if self.last.1 != usize::MAX && self.last.0 == self.scratch {
            return Ok(self.last.1);
        }
        let slot = match self.index.get(self.scratch.as_slice()) {
            Some(i) => *i,
            None => {
                let key = key().unwrap_or(Bson::Null);
                let row = Row::start(self.stmts, &key, env)?;
                self.rows.push((key, row));
                self.index.insert(self.scratch.clone(), self.rows.len() - 1);
                self.rows.len() - 1
            }
        };
        self.last.0.clear();
        self.last.0.extend_from_slice(&self.scratch);
        self.last.1 = slot;
        Ok(slot)
    }

    pub fn add(&mut self, slot: usize, doc: &Document, env: &Env) -> Result<()> {
        match self.rows.get_mut(slot) {
            Some((_, row)) => row.add(doc, env),
            None => Ok(()),
        }
    }

    /// [`Groups::add`] with the document given as the values of each statement's argument.
    pub fn add_values<'v>(&mut self, slot: usize, values: impl IntoIterator<Item = Option<&'v Bson>>) -> Result<()> {
        match self.rows.get_mut(slot) {
            Some((_, row)) => row.add_values(values),
            None => Ok(()),
        }
    }

    /// Groups a stream by an argument expression.
    pub fn by_arg<I, D>(stmts: &'s [Statement], input: I, key: &Arg, env: &Env) -> Result<Groups<'s>>
    where
        I: Iterator<Item = Result<D>>,
        D: std::borrow::Borrow<Document>,
    {
        let mut g = Groups::new(stmts);
        for doc in input {
            let doc = doc?;
            let doc = doc.borrow();
            let i = key.with(doc, env, |k| g.slot(k, env))?;
            g.add(i, doc, env)?;
        }
        Ok(g)
    }

    /// The output documents `{ _id, <accumulated fields> }`.
    pub fn finish(self) -> Result<Vec<Document>> {
        finish(self.rows, self.stmts)
    }
}

/// The output documents `{ _id, <accumulated fields> }`.
fn finish(groups: Vec<(Bson, Row)>, stmts: &[Statement]) -> Result<Vec<Document>> {
    let mut out = Vec::with_capacity(groups.len());
    for (k, row) in groups {
        let mut d = Document::new();
        d.insert("_id", k);
        row.finish_into(stmts, &mut d)?;
        out.push(d);
    }
    Ok(out)
}

impl Stage for Group {
    fn name(&self) -> &'static str {
        "$group"
    }

    fn run<'a>(&'a self, input: DocStream<'a>, cx: &'a RunCtx<'a>) -> DocStream<'a> {
        blocking(input, move |input| {
            Groups::by_arg(&self.stmts, input, &self.id, cx.env)?.finish()
        })
    }

    fn run_refs(&self, input: &[&Document], cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        Some(Groups::by_arg(&self.stmts, input.iter().map(|d| Ok(*d)), &self.id, cx.env).and_then(Groups::finish))
    }

    fn run_records<'r>(&self, records: &mut dyn Iterator<Item = &'r [u8]>, decode: &dyn Fn(&[u8]) -> Result<Document>, cx: &RunCtx) -> Option<Result<Vec<Document>>> {
        // The top-level fields the key and the arguments read, found in one walk per document.
        let mut tops = Vec::new();
        let id = FromBytes::of(self.id.expr(), &mut tops)?;
        // `None` for an accumulator that reads nothing (`$count`).
        let args = self
            .stmts
            .iter()
            .map(|s| match s.acc.reads() {
                Reads::Nothing => Some(None),
                Reads::Arg(e) => FromBytes::of(e, &mut tops).map(Some),
                Reads::Document => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(self.group_records(&id, &args, &tops, records, decode, cx.env))
    }
}

impl Group {
    /// The `$group` by `id` with `stmts`, for a stage that is a `$group` and more
    /// (`$sortByCount`).
    pub(crate) fn of(id: Expr, stmts: Vec<Statement>) -> Group {
        Group { id: Arg::from_expr(id), stmts }
    }

    /// Groups stored documents, reading `id` and `args` from their bytes (see [`FromBytes`]).
    fn group_records<'r, 's>(
        &self,
        id: &FromBytes<'s>,
        args: &[Option<FromBytes<'s>>],
        tops: &[String],
        records: &mut dyn Iterator<Item = &'r [u8]>,
        decode: &dyn Fn(&[u8]) -> Result<Document>,
        env: &Env,
    ) -> Result<Vec<Document>> {
        let mut g = Groups::new(&self.stmts);
        let mut values: Vec<Option<Cow<'s, Bson>>> = Vec::with_capacity(args.len());
        let mut found = Vec::with_capacity(tops.len());
        for rec in records {
            values.clear();
            let raw = RawDocument::from_bytes(rec).ok();
            if let Some(raw) = raw {
                raw::find_fields(raw, tops, &mut found);
            }
            let found = raw.map(|_| found.as_slice());
            // The arguments' values, then the group (its key looked up by its hash key, built
            // only for a new group); `None` as soon as the document must be decoded.
            let read = |values: &mut Vec<Option<Cow<'s, Bson>>>| -> Option<()> {
                for a in args {
                    values.push(match a {
                        Some(a) => a.value(found?)?,
                        None => None,
                    });
                }
                Some(())
            };
            let slot = match read(&mut values) {
                Some(()) => g.slot_by_key(|out| id.key_into(found?, out), || id.value(found?).flatten().map(Cow::into_owned), env)?,
                None => None,
            };
            match slot {
                Some(i) => g.add_values(i, values.iter().map(|v| v.as_deref()))?,
                None => {
                    let doc = decode(rec)?;
                    let i = self.id.with(&doc, env, |k| g.slot(k, env))?;
                    g.add(i, &doc, env)?;
                }
            }
        }
        g.finish()
    }
}

/// An argument read from a stored document's bytes: a constant, a field path of the document
/// (`"$a.b"`: its first part's place in the top-level fields found, and the other parts), or an
/// object of such (`{ a: "$a", b: 1 }`).
enum FromBytes<'s> {
    Const(&'s Bson),
    Path { top: usize, rest: Vec<String> },
    Object(Vec<(&'s str, FromBytes<'s>)>),
}

/// The values of a document's top-level fields a `$group` reads (`raw::find_fields`).
type Found<'r> = [Option<Option<bson::RawBsonRef<'r>>>];

impl<'s> FromBytes<'s> {
    /// `None` for any other expression. A path's first part is added to `tops` (once).
    fn of(e: &'s Expr, tops: &mut Vec<String>) -> Option<FromBytes<'s>> {
        if let Some(c) = e.as_constant() {
            return Some(FromBytes::Const(c));
        }
        if let Some(p) = e.as_field_path() {
            let mut parts = p.split('.');
            let first = parts.next()?;
            let top = match tops.iter().position(|t| t == first) {
                Some(i) => i,
                None => {
                    tops.push(first.to_string());
                    tops.len() - 1
                }
            };
            return Some(FromBytes::Path { top, rest: parts.map(String::from).collect() });
        }
        let fields = e.as_object()?;
        let fields = fields.iter().map(|(k, e)| FromBytes::of(e, tops).map(|f| (k.as_str(), f))).collect::<Option<Vec<_>>>()?;
        Some(FromBytes::Object(fields))
    }

    /// The value the path reaches (see `raw::lookup_expr_path`).
    fn lookup<'r>(top: usize, rest: &[String], found: &Found<'r>) -> raw::RawLookup<'r> {
        raw::lookup_expr_path_from(found.get(top).copied().flatten(), rest)
    }

    /// Writes the hash key (`value::hash_key`) of the argument's value in `raw` as a group key
    /// (missing is null), without building the value; `None` as for [`FromBytes::value`].
    fn key_into(&self, found: &Found, out: &mut Vec<u8>) -> Option<()> {
        if !self.key_part(found, out)? {
            parts::value(&Bson::Null, out);
        }
        Some(())
    }

    /// Appends the hash key of the value when there is one (`Some(false)` for missing).
    fn key_part(&self, found: &Found, out: &mut Vec<u8>) -> Option<bool> {
        use crate::value::raw::RawLookup;
        match self {
            FromBytes::Const(c) => parts::value(c, out),
            FromBytes::Path { top, rest } => match FromBytes::lookup(*top, rest, found) {
                RawLookup::Missing => return Some(false),
                RawLookup::Value(v) => parts::raw_value(v, out)?,
                RawLookup::Decode => return None,
            },
            FromBytes::Object(fields) => {
                // Fields that are missing are left out (see `value`).
                parts::document_start(out);
                for (k, f) in fields {
                    let at = out.len();
                    parts::field(k, out);
                    if !f.key_part(found, out)? {
                        out.truncate(at);
                    }
                }
                parts::document_end(out);
            }
        }
        Some(true)
    }

    /// The argument's value in `raw` as the expression evaluates it on the decoded document
    /// (`Some(None)` for missing); `None` when the document must be decoded for it (an array
    /// along a path, bytes that do not read).
    fn value(&self, found: &Found) -> Option<Option<Cow<'s, Bson>>> {
        use crate::value::raw::{decode_value, RawLookup};
        match self {
            FromBytes::Const(c) => Some(Some(Cow::Borrowed(*c))),
            FromBytes::Path { top, rest } => match FromBytes::lookup(*top, rest, found) {
                RawLookup::Missing => Some(None),
                RawLookup::Value(v) => decode_value(v).ok().map(|v| Some(Cow::Owned(v))),
                RawLookup::Decode => None,
            },
            FromBytes::Object(fields) => {
                // Fields that are missing are left out, as `Expr` builds objects.
                let mut out = Document::new();
                for (k, f) in fields {
                    if let Some(v) = f.value(found)? {
                        out.insert(*k, v.into_owned());
                    }
                }
                Some(Some(Cow::Owned(Bson::Document(out))))
            }
        }
    }
}
