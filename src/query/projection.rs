//! Find projections (`{ title: 1, reviews: { $slice: -5 } }`), parsed and applied as the
//! server's `projection_ast` and projection executor do:
//!
//! - inclusion (`{a: 1}`) or exclusion (`{a: 0}`) projections, never mixed except for `_id`,
//!   which is included by default; nested paths (`"a.b"` or `{a: {b: 1}}`) through arrays;
//! - `$slice: n | -n | [skip, limit]` (the array is cut in place), `$elemMatch` (the first
//!   matching element, after the included fields), positional `field.$` (the element the filter
//!   matched), `$literal` and aggregation expressions (computed fields, after the included ones).
//!
//! Applying builds the output from references and clones only what it keeps: slicing the last
//! five of ten thousand reviews copies five reviews.

use bson::{Bson, Document};

use crate::value::display;
use super::field_path;
use super::sort::SortSpec;
use super::{MatchDetails, Matcher};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::{Expr, VarScope};
use crate::value::types::type_name;

/// Whether a projection keeps the listed fields or drops them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectionKind {
    Inclusion,
    Exclusion,
}

#[derive(Debug, Clone)]
enum PNode {
    /// `1` / `0`.
    Keep(bool),
    /// A level of a nested projection.
    Sub(Tree),
    /// A computed field.
    Expr(Expr),
    /// The find `$slice`.
    Slice { skip: Option<i32>, limit: i32 },
    /// The find `$elemMatch` (a matcher on `{field: {$elemMatch: ..}}`).
    ElemMatch(Matcher),
    /// `field.$` (included; the positional array cut to the matched element).
    Positional,
    /// `{$meta: "sortKey"}`: the find's sort key, one element per sort field.
    SortKey,
}

#[derive(Debug, Clone, Default)]
struct Tree {
    children: Vec<(String, PNode)>,
}

impl Tree {
    fn get(&self, k: &str) -> Option<&PNode> {
        self.children.iter().find(|(n, _)| n == k).map(|(_, c)| c)
    }

    fn get_mut(&mut self, k: &str) -> Option<&mut PNode> {
        self.children.iter_mut().find(|(n, _)| n == k).map(|(_, c)| c)
    }

    fn has_sort_key(&self) -> bool {
        self.children.iter().any(|(_, c)| match c {
            PNode::SortKey => true,
            PNode::Sub(t) => t.has_sort_key(),
            _ => false,
        })
    }

    fn has_computed(&self) -> bool {
        self.children.iter().any(|(_, c)| match c {
            PNode::Expr(_) | PNode::ElemMatch(_) | PNode::SortKey => true,
            PNode::Sub(t) => t.has_computed(),
            _ => false,
        })
    }

    /// The server's `addNodeAtPath` (path collisions: 31249, 31250).
    fn add(&mut self, full: &str, node: PNode) -> Result<()> {
        let parts: Vec<&str> = full.split('.').collect();
        let tail = parts[1..].join(".");
        let mut cur = self;
        for (i, part) in parts.iter().enumerate() {
            if i + 1 == parts.len() {
                if cur.get(part).is_some() {
                    return Err(Error::code(31250, format!("Path collision at {full}")));
                }
                cur.children.push((part.to_string(), node));
                return Ok(());
            }
            if cur.get(part).is_none() {
                cur.children.push((part.to_string(), PNode::Sub(Tree::default())));
            }
            match cur.get_mut(part) {
                Some(PNode::Sub(t)) => cur = t,
                _ => return Err(Error::code(31249, format!("Path collision at {full} remaining portion {tail}"))),
            }
        }
        Ok(())
    }

    /// The level for a sub-object projection (`{a: {b: 1}}`), created or reused.
    fn sub_at(&mut self, full: &str) -> Result<&mut Tree> {
        let mut cur = self;
        for part in full.split('.') {
            if cur.get(part).is_none() {
                cur.children.push((part.to_string(), PNode::Sub(Tree::default())));
            }
            match cur.get_mut(part) {
                Some(PNode::Sub(t)) => cur = t,
                _ => return Err(Error::code(31250, format!("Path collision at {full}"))),
            }
        }
        Ok(cur)
    }
}

/// A parsed find projection.
#[derive(Debug, Clone)]
pub struct Projection {
    root: Tree,
    kind: ProjectionKind,
    /// The path of `field.$` (without the `.$`).
    positional: Option<Vec<String>>,
    /// The find's sort, for `{$meta: "sortKey"}`.
    sort: Option<SortSpec>,
}

struct ParseCtx<'a> {
    scope: &'a VarScope,
    kind: Option<ProjectionKind>,
    id_specified: bool,
    has_positional: bool,
    has_elem_match: bool,
    has_find_slice: bool,
    id_included: bool,
    id_excluded: bool,
    positional: Option<Vec<String>>,
}

impl Projection {
    /// Parses a projection without its filter: a positional `field.$` is accepted unchecked (use
    /// [`Projection::parse_with_query`] to get the server's checks against the filter).
    pub fn parse(spec: &Document) -> Result<Projection> {
        Projection::parse_with(spec, None, &VarScope::default())
    }

    /// Parses a projection of a find with `filter` (whose match gives a positional projection
    /// its position).
    pub fn parse_with_query(spec: &Document, filter: &Document) -> Result<Projection> {
        let m = Matcher::parse(filter)?;
        Projection::parse_with(spec, Some(&m), &VarScope::default())
    }

    /// Parses a projection with an optional parsed filter and the variables expressions may use.
    /// (The filter no longer constrains a positional projection: any array may take the position
    /// it matched.)
    pub fn parse_with(spec: &Document, _query: Option<&Matcher>, scope: &VarScope) -> Result<Projection> {
        let mut ctx = ParseCtx {
            scope,
            kind: None,
            id_specified: false,
            has_positional: false,
            has_elem_match: false,
            has_find_slice: false,
            id_included: false,
            id_excluded: false,
            positional: None,
        };
        let mut root = Tree::default();
        for (k, v) in spec {
            ctx.id_specified |= k == "_id" || k.starts_with("_id.");
            parse_element(&mut ctx, k, v, None, &mut root, true)?;
        }
        let kind = match ctx.kind {
            Some(k) => k,
            None => {
                if ctx.has_find_slice {
                    if ctx.id_included {
                        ProjectionKind::Inclusion
                    } else {
                        ProjectionKind::Exclusion
                    }
                } else if ctx.has_elem_match || ctx.id_included {
                    ProjectionKind::Inclusion
                } else {
                    ProjectionKind::Exclusion
                }
            }
        };
        if !ctx.id_specified && kind == ProjectionKind::Inclusion {
            root.add("_id", PNode::Keep(true))?;
        }
        if kind == ProjectionKind::Exclusion && ctx.id_specified && ctx.id_included {
            root.children.retain(|(n, c)| !(n == "_id" && matches!(c, PNode::Keep(true))));
        }
        Ok(Projection { root, kind, positional: ctx.positional, sort: None })
    }

    /// The projection of a find sorted by `sort`, which `{$meta: "sortKey"}` reports (and
    /// requires: BadValue without a sort).
    pub fn with_sort(mut self, sort: Option<&SortSpec>, sorted: bool) -> Result<Projection> {
        if !sorted && self.root.has_sort_key() {
            return Err(Error::bad_value("cannot use sortKey $meta projection without a sort"));
        }
        self.sort = sort.cloned();
        Ok(self)
    }

    /// Inclusion or exclusion.
    pub fn kind(&self) -> ProjectionKind {
        self.kind
    }

    /// True when the projection uses positional `field.$` (which needs the match details).
    pub fn has_positional(&self) -> bool {
        self.positional.is_some()
    }

    /// Applies the projection to `doc` (which matched with `details`).
    pub fn apply(&self, doc: &Document, details: &MatchDetails, env: &Env) -> Result<Document> {
        self.apply_sorted_as(doc, doc, details, env)
    }

    /// Applies the projection to `doc`, with `{$meta: "sortKey"}` the key of `sorted` (the
    /// document the sort saw: findAndModify's new document keeps its pre-image's sort key, as the
    /// server's working set member keeps its metadata through the update).
    pub fn apply_sorted_as(&self, doc: &Document, sorted: &Document, details: &MatchDetails, env: &Env) -> Result<Document> {
        let ap = Applier { root_doc: doc, sorted_doc: sorted, sort: self.sort.as_ref(), details, env };
        let pos = self.positional.as_deref();
        let mut out = match self.kind {
            ProjectionKind::Inclusion => ap.include_doc(&self.root, doc, pos)?,
            ProjectionKind::Exclusion => ap.exclude_doc(&self.root, doc),
        };
        if self.root.has_computed() {
            ap.apply_computed(&self.root, &mut out)?;
        }
        Ok(out)
    }
}

/// Where the first positional operator is in a projected path (`findFirstPositionalOperator`).
fn first_positional(path: &str) -> Option<(usize, usize)> {
    if let Some(i) = path.find(".$.") {
        return Some((i, i + 3));
    }
    if path.ends_with(".$") {
        return Some((path.len() - 2, path.len()));
    }
    if path == "$" {
        return Some((0, 1));
    }
    None
}

fn is_inclusion_or_exclusion(v: &Bson) -> bool {
    matches!(v, Bson::Boolean(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_))
}

fn parse_element(ctx: &mut ParseCtx, name: &str, v: &Bson, parent_path: Option<&str>, parent: &mut Tree, at_root: bool) -> Result<()> {
    let positional = first_positional(name);
    match v {
        Bson::Document(sub) => {
            if positional.is_some() {
                return Err(Error::code(31271, "positional projection cannot be used with an expression or sub object"));
            }
            parse_sub_object(ctx, name, sub, parent_path, parent, at_root)
        }
        v if is_inclusion_or_exclusion(v) => {
            if super::element::true_value(v) {
                parse_inclusion(ctx, name, parent_path, parent, at_root, positional)
            } else {
                parse_exclusion(ctx, name, parent, at_root)
            }
        }
        v => {
            if positional.is_some() {
                return Err(Error::code(31308, "positional projection cannot be used with a literal"));
            }
            field_path::validate(name)?;
            let expr = Expr::parse(v, ctx.scope)?;
            if ctx.kind == Some(ProjectionKind::Exclusion) {
                return Err(Error::code(31310, format!("Cannot use an expression {} in an exclusion projection", display::element(name, v))));
            }
            parent.add(name, PNode::Expr(expr))?;
            ctx.kind = Some(ProjectionKind::Inclusion);
            Ok(())
        }
    }
}

fn parse_sub_object(ctx: &mut ParseCtx, name: &str, sub: &Document, parent_path: Option<&str>, parent: &mut Tree, at_root: bool) -> Result<()> {
    field_path::validate(name)?;
    if sub.is_empty() {
        return Err(Error::code(51270, "An empty sub-projection is not a valid value. Found empty object at path"));
    }
    if sub.len() == 1 {
        if let Some((op, arg)) = sub.iter().next() {
            if op.starts_with('$') {
                if parse_operator(ctx, name, op, arg, sub, parent, at_root)? {
                    return Ok(());
                }
                if field_path::validate(op).is_err() {
                    return Err(Error::code(31325, format!("Unknown expression {op}")));
                }
            }
        }
    }
    let full = match parent_path {
        Some(p) => format!("{p}.{name}"),
        None => name.to_string(),
    };
    let level = parent.sub_at(name)?;
    for (k, v) in sub {
        parse_element(ctx, k, v, Some(&full), level, false)?;
    }
    Ok(())
}

/// `{field: {$slice: ..}}`, `{field: {$elemMatch: ..}}` or an expression; false when `op` is
/// not an expression name.
fn parse_operator(ctx: &mut ParseCtx, name: &str, op: &str, arg: &Bson, sub: &Document, parent: &mut Tree, at_root: bool) -> Result<bool> {
    match op {
        "$slice" => match find_slice(arg) {
            Ok(node) => {
                parent.add(name, node)?;
                ctx.has_find_slice = true;
                Ok(true)
            }
            Err(slice_err) => match parse_expression(ctx, name, sub, parent) {
                Ok(b) => Ok(b),
                Err(e) => Err(Error::new(
                    e.kind,
                    format!(
                        "Invalid $slice syntax. The given syntax {} did not match the find() syntax because :: {}: {} :: The given syntax did not match the expression $slice syntax. :: caused by :: {}",
                        display::document(sub),
                        slice_err.code_name(),
                        slice_err.message,
                        e.message
                    ),
                )),
            },
        },
        "$elemMatch" => {
            if !matches!(arg, Bson::Document(_)) {
                return Err(Error::code(31274, format!("elemMatch: Invalid argument, object required, but got {}", type_name(arg))));
            }
            if ctx.has_positional {
                return Err(Error::code(31255, "Cannot specify positional operator and $elemMatch."));
            }
            if name.contains('.') || !at_root {
                return Err(Error::code(31275, "Cannot use $elemMatch projection on a nested field."));
            }
            field_path::validate(name)?;
            let mut filter = Document::new();
            filter.insert(name, sub.clone());
            let m = Matcher::parse_with_scope(&filter, ctx.scope)?;
            parent.add(name, PNode::ElemMatch(m))?;
            ctx.has_elem_match = true;
            Ok(true)
        }
        _ => parse_expression(ctx, name, sub, parent),
    }
}

/// `attemptToParseGenericExpression`.
fn parse_expression(ctx: &mut ParseCtx, name: &str, sub: &Document, parent: &mut Tree) -> Result<bool> {
    let op = sub.keys().next().map(String::as_str).unwrap_or("");
    if op == "$meta" && sub.len() == 1 && sub.get("$meta") == Some(&Bson::String("sortKey".into())) {
        parent.add(name, PNode::SortKey)?;
        return Ok(true);
    }
    if !crate::expr::registry::is_operator(op) {
        return Ok(false);
    }
    let parsed = Expr::parse_object(sub, ctx.scope);
    let is_meta = op == "$meta";
    if ctx.kind == Some(ProjectionKind::Exclusion) && !is_meta {
        return Err(Error::code(31252, "Cannot use expression other than $meta in exclusion projection"));
    }
    if !is_meta {
        ctx.kind = Some(ProjectionKind::Inclusion);
    }
    parent.add(name, PNode::Expr(parsed?))?;
    Ok(true)
}

/// The find form of `$slice` (`attemptToParseFindSlice`).
fn find_slice(arg: &Bson) -> Result<PNode> {
    let as_int = |v: &Bson| -> i32 { crate::value::Number::from_bson(v).map(|n| n.to_f64() as i32).unwrap_or(0) };
    match arg {
        v if crate::value::types::is_number(v) => Ok(PNode::Slice { skip: None, limit: as_int(v) }),
        Bson::Array(a) => {
            if a.len() != 2 {
                return Err(Error::code(31272, "$slice array argument should be of form [skip, limit]"));
            }
            if !crate::value::types::is_number(&a[0]) {
                return Err(Error::code(31257, format!("$slice expects the skip argument to be a number, got {}", type_name(&a[0]))));
            }
            if !crate::value::types::is_number(&a[1]) {
                return Err(Error::code(31258, format!("$slice expects the limit argument to be a number, got {}", type_name(&a[1]))));
            }
            let limit = as_int(&a[1]);
            if limit <= 0 {
                return Err(Error::code(31259, format!("$slice limit must be positive, got {limit}")));
            }
            Ok(PNode::Slice { skip: Some(as_int(&a[0])), limit })
        }
        _ => Err(Error::code(31273, "$slice only supports numbers and [skip, limit] arrays")),
    }
}

fn parse_inclusion(ctx: &mut ParseCtx, name: &str, parent_path: Option<&str>, parent: &mut Tree, at_root: bool, positional: Option<(usize, usize)>) -> Result<()> {
    let top_level_id = name == "_id" && at_root;
    match positional {
        None => {
            field_path::validate(name)?;
            parent.add(name, PNode::Keep(true))?;
            if top_level_id {
                ctx.id_included = true;
            }
        }
        Some((begin, end)) => {
            if ctx.has_positional {
                return Err(Error::code(31276, "Cannot specify more than one positional projection per query."));
            }
            if ctx.has_elem_match {
                return Err(Error::code(31256, "Cannot specify positional operator and $elemMatch."));
            }
            // Since 5.0 the projected array need not be the one the query names: the position
            // the query matched applies to it (a "parallel" array; the server's jstest
            // positional_projection_multiple_array_fields).
            if name.ends_with(".$.") {
                return Err(Error::code(31270, "Path cannot end with '.$.'"));
            }
            let rest = &name[end..];
            if first_positional(rest).is_some() || rest == "$" {
                return Err(Error::code(31287, format!("Cannot use positional operator twice: {name}")));
            }
            let path = &name[..begin];
            field_path::validate(path)?;
            parent.add(path, PNode::Positional)?;
            let mut full: Vec<String> = parent_path.map(|p| p.split('.').map(str::to_string).collect()).unwrap_or_default();
            full.extend(path.split('.').map(str::to_string));
            ctx.positional = Some(full);
            ctx.has_positional = true;
        }
    }
    if !top_level_id {
        if ctx.kind == Some(ProjectionKind::Exclusion) {
            return Err(Error::code(31253, format!("Cannot do inclusion on field {name} in exclusion projection")));
        }
        ctx.kind = Some(ProjectionKind::Inclusion);
    }
    Ok(())
}

fn parse_exclusion(ctx: &mut ParseCtx, name: &str, parent: &mut Tree, at_root: bool) -> Result<()> {
    field_path::validate(name)?;
    parent.add(name, PNode::Keep(false))?;
    if name == "_id" && at_root {
        ctx.id_excluded = true;
        return Ok(());
    }
    if ctx.kind == Some(ProjectionKind::Inclusion) {
        return Err(Error::code(31254, format!("Cannot do exclusion on field {name} in inclusion projection")));
    }
    ctx.kind = Some(ProjectionKind::Exclusion);
    Ok(())
}

struct Applier<'a> {
    root_doc: &'a Document,
    sorted_doc: &'a Document,
    sort: Option<&'a SortSpec>,
    details: &'a MatchDetails,
    env: &'a Env,
}

impl Applier<'_> {
    /// The included fields of `doc`, in document order (computed fields come later). `pos` is
    /// the rest of the positional path at this level.
    fn include_doc(&self, t: &Tree, doc: &Document, pos: Option<&[String]>) -> Result<Document> {
        let mut out = Document::new();
        for (k, v) in doc {
            let Some(node) = t.get(k) else { continue };
            let pos_here = pos.filter(|p| p.first() == Some(k)).map(|p| &p[1..]);
            if let (Some(rest), Bson::Array(arr)) = (pos_here, v) {
                if matches!(node, PNode::Keep(true) | PNode::Sub(_) | PNode::Positional) {
                    // The first array on the positional path: keep only the matched element.
                    let key = self.details.elem_index.ok_or_else(|| Error::code(51246, "positional operator '.$' couldn't find a matching element in the array"))?;
                    let elem = arr.get(key).ok_or_else(|| Error::code(51247, "positional operator '.$' element mismatch"))?;
                    let kept = match node {
                        PNode::Sub(sub) => self.include_value(sub, elem, if rest.is_empty() { None } else { Some(rest) })?,
                        _ => Some(elem.clone()),
                    };
                    out.insert(k.clone(), Bson::Array(kept.into_iter().collect()));
                    continue;
                }
            }
            match node {
                PNode::Keep(true) | PNode::Positional => {
                    out.insert(k.clone(), v.clone());
                }
                PNode::Sub(sub) => {
                    let next = pos_here.filter(|r| !r.is_empty() && matches!(v, Bson::Document(_)));
                    if let Some(x) = self.include_value(sub, v, next)? {
                        out.insert(k.clone(), x);
                    }
                }
                PNode::Slice { skip, limit } => {
                    out.insert(k.clone(), slice(v, *skip, *limit));
                }
                PNode::Keep(false) | PNode::Expr(_) | PNode::ElemMatch(_) | PNode::SortKey => {}
            }
        }
        Ok(out)
    }

    /// A value under an inclusion level: documents are projected, arrays element by element
    /// (scalars dropped), scalars are dropped.
    fn include_value(&self, t: &Tree, v: &Bson, pos: Option<&[String]>) -> Result<Option<Bson>> {
        Ok(match v {
            Bson::Document(d) => Some(Bson::Document(self.include_doc(t, d, pos)?)),
            Bson::Array(a) => {
                let mut out = Vec::new();
                for e in a {
                    if let Some(x) = self.include_value(t, e, None)? {
                        out.push(x);
                    }
                }
                Some(Bson::Array(out))
            }
            _ => None,
        })
    }

    /// `doc` without the excluded fields (`$slice` applied in place).
    fn exclude_doc(&self, t: &Tree, doc: &Document) -> Document {
        let mut out = Document::new();
        for (k, v) in doc {
            match t.get(k) {
                None | Some(PNode::Keep(true)) | Some(PNode::Positional) => {
                    out.insert(k.clone(), v.clone());
                }
                Some(PNode::Expr(_)) | Some(PNode::ElemMatch(_)) | Some(PNode::SortKey) => {
                    // Computed later, in place: hold the position without copying the value.
                    out.insert(k.clone(), Bson::Null);
                }
                Some(PNode::Keep(false)) => {}
                Some(PNode::Sub(sub)) => {
                    out.insert(k.clone(), self.exclude_value(sub, v));
                }
                Some(PNode::Slice { skip, limit }) => {
                    out.insert(k.clone(), slice(v, *skip, *limit));
                }
            }
        }
        out
    }

    fn exclude_value(&self, t: &Tree, v: &Bson) -> Bson {
        match v {
            Bson::Document(d) => Bson::Document(self.exclude_doc(t, d)),
            Bson::Array(a) => Bson::Array(a.iter().map(|e| self.exclude_value(t, e)).collect()),
            other => other.clone(),
        }
    }

    /// Computed fields (expressions, `$elemMatch`), set in place or appended, in the order of
    /// the projection.
    fn apply_computed(&self, t: &Tree, out: &mut Document) -> Result<()> {
        for (k, node) in &t.children {
            match node {
                PNode::SortKey => {
                    let key = self.sort.map(|s| s.key_values(self.sorted_doc).into_iter().cloned().collect()).unwrap_or_default();
                    out.insert(k.clone(), Bson::Array(key));
                }
                PNode::Expr(e) => match e.evaluate(self.root_doc, self.env)? {
                    Some(v) => {
                        out.insert(k.clone(), v);
                    }
                    None => {
                        out.remove(k);
                    }
                },
                PNode::ElemMatch(m) => {
                    let d = m.match_details(self.root_doc, self.env)?;
                    let elem = match (d.matched, d.elem_index, self.root_doc.get(k)) {
                        (true, Some(i), Some(Bson::Array(a))) => a.get(i).cloned(),
                        _ => None,
                    };
                    match elem {
                        Some(e) => {
                            out.insert(k.clone(), Bson::Array(vec![e]));
                        }
                        None => {
                            out.remove(k);
                        }
                    }
                }
                PNode::Sub(sub) if sub.has_computed() => {
                    let current = out.remove_entry_keep_position(k);
                    let v = self.computed_value(sub, current)?;
                    out.insert(k.clone(), v);
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn computed_value(&self, t: &Tree, current: Option<Bson>) -> Result<Bson> {
        Ok(match current {
            Some(Bson::Document(mut d)) => {
                self.apply_computed(t, &mut d)?;
                Bson::Document(d)
            }
            Some(Bson::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for e in a {
                    out.push(self.computed_value(t, Some(e))?);
                }
                Bson::Array(out)
            }
            _ => {
                let mut d = Document::new();
                self.apply_computed(t, &mut d)?;
                Bson::Document(d)
            }
        })
    }
}

/// Takes a field's value out of a document, leaving its position for the re-insert.
trait TakeKeepPosition {
    fn remove_entry_keep_position(&mut self, k: &str) -> Option<Bson>;
}

impl TakeKeepPosition for Document {
    fn remove_entry_keep_position(&mut self, k: &str) -> Option<Bson> {
        self.get_mut(k).map(|v| std::mem::replace(v, Bson::Null))
    }
}

/// The find `$slice` of a value: arrays are cut (cloning only the kept elements), other values
/// are kept as they are.
fn slice(v: &Bson, skip: Option<i32>, limit: i32) -> Bson {
    let Bson::Array(a) = v else { return v.clone() };
    let len = a.len() as i64;
    let (start, count) = match skip {
        None => {
            if limit < 0 {
                let start = (len + limit as i64).max(0);
                (start, len - start)
            } else {
                (0, len.min(limit as i64))
            }
        }
        Some(skip) => {
            let start = if skip < 0 { (len + skip as i64).max(0) } else { len.min(skip as i64) };
            (start, (len - start).min(limit.max(0) as i64))
        }
    };
    Bson::Array(a[start as usize..(start + count) as usize].to_vec())
}
