//! The update tree, as the server builds it (`UpdateObjectNode`, `UpdateArrayNode`, leaf
//! modifiers): every operator's path is merged into one tree, which is where path conflicts are
//! found; applying the tree visits sibling fields in `cmp_fields` order, so fields an update
//! creates are appended in that order.

use std::cmp::Ordering;

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::query::Matcher;

use super::fields::internal;
use super::modifier::{DocId, OpCtx, Outcome};
use super::path::{child, cmp_fields, get_mut, is_array_filter, is_positional, parse_index, resolve, split_updatable};
use super::registry::Op;
use crate::value::display;

/// The deepest nesting a stored document may reach (`BSONDepth::getMaxDepthForUserStorage`).
pub(super) const MAX_DEPTH: usize = 180;
/// The most nulls an update pads an array with (`pathsupport::kMaxPaddingAllowed`).
const MAX_PADDING: usize = 1_500_000;

#[derive(Debug, Clone)]
pub(crate) enum Node {
    Object(ObjectNode),
    Array(ArrayNode),
    Leaf(Op),
}

/// Children by field name, plus the positional (`$`) child.
#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectNode {
    children: Vec<(String, Node)>,
    positional: Option<Box<Node>>,
}

impl ObjectNode {
    /// An object node with room for `n` children (the root: one per field of the update's
    /// operators, so that placing them does not grow and move the list).
    pub(crate) fn with_capacity(n: usize) -> ObjectNode {
        ObjectNode { children: Vec::with_capacity(n), positional: None }
    }
}

/// Children by array filter identifier (`""` for `$[]`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ArrayNode {
    children: Vec<(String, Node)>,
}

impl Node {
    /// The operators of an update whose every path is one top-level field (no positional
    /// part), each with its field's name, in the order [`apply`] applies them, written to
    /// `out` (a caller's array: no list made); returns how many. `None` for any other update,
    /// and when there are more than `out` holds.
    pub(crate) fn top_leaves_into<'a>(&'a self, out: &mut [(&'a str, Option<&'a Op>)]) -> Option<usize> {
        let Node::Object(o) = self else { return None };
        if o.positional.is_some() || o.children.len() > out.len() {
            return None;
        }
        for ((k, n), slot) in o.children.iter().zip(out.iter_mut()) {
            let Node::Leaf(op) = n else { return None };
            *slot = (k.as_str(), Some(op));
        }
        Some(o.children.len())
    }

    /// The children of an object node by field name (for the root: the top-level fields the
    /// update changes).
    pub(crate) fn fields(&self) -> impl Iterator<Item = (&str, &Node)> {
        let children = match self {
            Node::Object(o) => o.children.as_slice(),
            _ => &[],
        };
        children.iter().map(|(k, n)| (k.as_str(), n))
    }
}

fn insert_sorted(children: &mut Vec<(String, Node)>, name: String, node: Node) {
    let at = children.iter().position(|(k, _)| cmp_fields(&name, k) == Ordering::Less).unwrap_or(children.len());
    children.insert(at, (name, node));
}

fn get_child<'a>(node: &'a Node, name: &str) -> Option<&'a Node> {
    match node {
        Node::Object(o) if is_positional(name) => o.positional.as_deref(),
        Node::Object(ObjectNode { children, .. }) | Node::Array(ArrayNode { children }) => {
            children.iter().find(|(k, _)| k == name).map(|(_, n)| n)
        }
        Node::Leaf(_) => None,
    }
}

fn get_child_mut<'a>(node: &'a mut Node, name: &str) -> Option<&'a mut Node> {
    let children = match node {
        Node::Object(o) => {
            if is_positional(name) {
                return o.positional.as_deref_mut();
            }
            &mut o.children
        }
        Node::Array(a) => &mut a.children,
        Node::Leaf(_) => return None,
    };
    children.iter_mut().find(|(k, _)| k == name).map(|(_, n)| n)
}

fn set_child(node: &mut Node, name: String, child: Node) -> Result<()> {
    match node {
        Node::Object(o) if is_positional(&name) => o.positional = Some(Box::new(child)),
        Node::Object(ObjectNode { children, .. }) | Node::Array(ArrayNode { children }) => insert_sorted(children, name, child),
        Node::Leaf(_) => return Err(internal("a leaf has no children")),
    }
    Ok(())
}

/// What parsing needs besides the operator: the command's array filters and the identifiers
/// used so far.
pub(crate) struct ParseCx<'a> {
    pub filters: &'a [(String, Matcher)],
    pub used: &'a mut Vec<String>,
}

fn conflict(path: &str, at: &str) -> Error {
    Error::new(ErrorKind::ConflictingUpdateOperators, format!("Updating the path '{path}' would create a conflict at '{at}'"))
}

/// The identifier of a `$[<id>]` component (`parseArrayFilterIdentifier`).
fn identifier(part: &str, position: usize, path: &str, cx: &mut ParseCx) -> Result<String> {
    if position == 0 {
        return Err(Error::bad_value(format!(
            "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '{path}'"
        )));
    }
    let id = &part[2..part.len() - 1];
    if !id.is_empty() {
        if !cx.filters.iter().any(|(k, _)| k == id) {
            return Err(Error::bad_value(format!("No array filter found for identifier '{id}' in path '{path}'")));
        }
        if !cx.used.iter().any(|k| k == id) {
            cx.used.push(id.to_string());
        }
    }
    Ok(id.to_string())
}

/// Adds one operator at `path` to the tree (`UpdateObjectNode::parseAndMerge`). `make_leaf`
/// parses the operator's argument; it runs after the path checks and before the tree is walked,
/// as in the server. Returns whether the path is positional.
pub(crate) fn place(root: &mut Node, path: &str, make_leaf: impl FnOnce() -> Result<Op>, cx: &mut ParseCx) -> Result<bool> {
    let parts = split_updatable(path)?;
    let positions: Vec<usize> = parts.iter().enumerate().filter(|(_, p)| is_positional(p)).map(|(i, _)| i).collect();
    if positions.len() > 1 {
        return Err(Error::bad_value(format!("Too many positional (i.e. '$') elements found in path '{path}'")));
    }
    if positions.first() == Some(&0) {
        return Err(Error::bad_value(format!(
            "Cannot have positional (i.e. '$') element in the first position in path '{path}'"
        )));
    }
    let leaf = make_leaf()?;
    let last = parts.len() - 1;
    let mut cur = root;
    for i in 0..last {
        let name = if is_array_filter(parts[i]) { identifier(parts[i], i, path, cx)? } else { parts[i].to_string() };
        let want_array = is_array_filter(parts[i + 1]);
        match get_child(cur, &name) {
            Some(Node::Array(_)) if want_array => {}
            Some(Node::Object(_)) if !want_array => {}
            Some(_) => return Err(conflict(path, &parts[..=i].join("."))),
            None => {
                let fresh = if want_array { Node::Array(ArrayNode::default()) } else { Node::Object(ObjectNode::default()) };
                set_child(cur, name.clone(), fresh)?;
            }
        }
        cur = get_child_mut(cur, &name).ok_or_else(|| internal("child vanished"))?;
    }
    let name = if is_array_filter(parts[last]) { identifier(parts[last], last, path, cx)? } else { parts[last].to_string() };
    if get_child(cur, &name).is_some() {
        return Err(conflict(path, path));
    }
    set_child(cur, name, Node::Leaf(leaf))?;
    Ok(!positions.is_empty())
}

fn merge_children(
    left: &[(String, Node)],
    right: &[(String, Node)],
    taken: &mut Vec<String>,
    wrap: bool,
) -> Result<Vec<(String, Node)>> {
    let mut out: Vec<(String, Node)> = Vec::new();
    for (k, l) in left {
        let merged = match right.iter().find(|(rk, _)| rk == k) {
            Some((_, r)) => {
                taken.push(if wrap { format!("$[{k}]") } else { k.clone() });
                let m = merge(l, r, taken);
                taken.pop();
                m?
            }
            None => l.clone(),
        };
        insert_sorted(&mut out, k.clone(), merged);
    }
    for (k, r) in right {
        if !left.iter().any(|(lk, _)| lk == k) {
            insert_sorted(&mut out, k.clone(), r.clone());
        }
    }
    Ok(out)
}

/// Merges two subtrees that apply to the same element (`UpdateNode::createUpdateNodeByMerging`).
fn merge(left: &Node, right: &Node, taken: &mut Vec<String>) -> Result<Node> {
    match (left, right) {
        (Node::Object(l), Node::Object(r)) => {
            let children = merge_children(&l.children, &r.children, taken, false)?;
            let positional = match (&l.positional, &r.positional) {
                (Some(a), Some(b)) => {
                    taken.push("$".into());
                    let m = merge(a, b, taken);
                    taken.pop();
                    Some(Box::new(m?))
                }
                (Some(a), None) | (None, Some(a)) => Some(a.clone()),
                (None, None) => None,
            };
            Ok(Node::Object(ObjectNode { children, positional }))
        }
        (Node::Array(l), Node::Array(r)) => Ok(Node::Array(ArrayNode { children: merge_children(&l.children, &r.children, taken, true)? })),
        _ => Err(Error::new(ErrorKind::ConflictingUpdateOperators, format!("Update created a conflict at '{}'", taken.join(".")))),
    }
}

/// The state of one application of an update to one document.
pub(crate) struct Ctx<'a> {
    pub env: &'a Env,
    pub positional: Option<usize>,
    pub inserting: bool,
    pub filters: &'a [(String, Matcher)],
    /// The document's `_id` as messages quote it.
    pub id: DocId,
    pub changed: Vec<String>,
    pub modified: bool,
    pub timestamps: u32,
}

impl Ctx<'_> {
    pub fn record(&mut self, path: String) {
        self.modified = true;
        if !self.changed.contains(&path) {
            self.changed.push(path);
        }
    }
}

/// Applies a subtree to the element at `path` of `root` (which is the document as a value).
pub(crate) fn apply(node: &Node, root: &mut Bson, path: &mut Vec<String>, cx: &mut Ctx) -> Result<()> {
    match node {
        Node::Object(o) => apply_object(o, root, path, cx),
        Node::Array(a) => apply_array(a, root, path, cx),
        Node::Leaf(op) => apply_leaf(op, root, path, cx),
    }
}

fn apply_at(node: &Node, name: &str, root: &mut Bson, path: &mut Vec<String>, cx: &mut Ctx) -> Result<()> {
    path.push(name.to_string());
    let r = apply(node, root, path, cx);
    path.pop();
    r
}

fn apply_object(o: &ObjectNode, root: &mut Bson, path: &mut Vec<String>, cx: &mut Ctx) -> Result<()> {
    let mut pending = o.positional.as_deref();
    let matched = match (pending, cx.positional) {
        (None, _) => String::new(),
        (Some(_), Some(i)) => i.to_string(),
        (Some(_), None) => {
            return Err(Error::bad_value("The positional operator did not find the match needed from the query."));
        }
    };
    for (name, child) in &o.children {
        if let Some(pos) = pending {
            if *name == matched {
                let mut taken = path.clone();
                taken.push(matched.clone());
                let merged = merge(pos, child, &mut taken)?;
                apply_at(&merged, name, root, path, cx)?;
                pending = None;
                continue;
            }
            if cmp_fields(&matched, name) == Ordering::Less {
                apply_at(pos, &matched, root, path, cx)?;
                pending = None;
            }
        }
        apply_at(child, name, root, path, cx)?;
    }
    if let Some(pos) = pending {
        apply_at(pos, &matched, root, path, cx)?;
    }
    Ok(())
}

fn filter_matches(id: &str, item: &Bson, cx: &Ctx) -> Result<bool> {
    let Some((_, m)) = cx.filters.iter().find(|(k, _)| k == id) else {
        return Err(internal("array filter vanished"));
    };
    let mut d = Document::new();
    d.insert(id, item.clone());
    m.matches(&d, cx.env)
}

fn apply_array(a: &ArrayNode, root: &mut Bson, path: &mut Vec<String>, cx: &mut Ctx) -> Result<()> {
    let (found, elem) = resolve(root, path);
    if found < path.len() {
        return Err(Error::bad_value(format!(
            "The path '{}' must exist in the document in order to apply array updates.",
            path.join(".")
        )));
    }
    let Bson::Array(items) = elem else {
        let name = path.last().map(String::as_str).unwrap_or_default();
        return Err(Error::bad_value(format!("Cannot apply array updates to non-array element {}", display::element(name, elem))));
    };
    let mut plan: Vec<(usize, Vec<&Node>)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mut hits = Vec::new();
        for (id, node) in &a.children {
            if id.is_empty() || filter_matches(id, item, cx)? {
                hits.push(node);
            }
        }
        if !hits.is_empty() {
            plan.push((i, hits));
        }
    }
    for (i, hits) in plan {
        let name = i.to_string();
        if let [one] = hits.as_slice() {
            apply_at(one, &name, root, path, cx)?;
            continue;
        }
        let mut taken = path.clone();
        taken.push(name.clone());
        let mut merged = hits[0].clone();
        for other in &hits[1..] {
            merged = merge(&merged, other, &mut taken)?;
        }
        apply_at(&merged, &name, root, path, cx)?;
    }
    Ok(())
}

fn apply_leaf(op: &Op, root: &mut Bson, path: &[String], cx: &mut Ctx) -> Result<()> {
    if let Op::Rename(r) = op {
        return r.apply(root, path, cx);
    }
    let Some(m) = op.modifier() else {
        return Ok(());
    };
    if m.insert_only() && !cx.inserting {
        return Ok(());
    }
    let (found, _) = resolve(root, path);
    let dotted = path.join(".");
    let field: &str = path.last().map(String::as_str).unwrap_or_default();
    if found == path.len() {
        let (outcome, appended_from) = {
            let elem = get_mut(root, path).ok_or_else(|| internal("element vanished"))?;
            // Elements already stored passed these checks: of an array the operator only appends
            // to, only the new elements are checked (a `$push` into a long array stays cheap).
            let appended_from = match elem {
                Bson::Array(a) if super::undo::appends_only(op) => Some(a.len()),
                _ => None,
            };
            let mut oc = OpCtx { env: cx.env, field, path: &dotted, id: &cx.id, timestamps: &mut cx.timestamps };
            (m.update_existing(elem, &mut oc)?, appended_from)
        };
        match outcome {
            Outcome::NoOp => return Ok(()),
            Outcome::Updated => {
                check_immutable(path)?;
                validate_appended(root, path, appended_from, cx)?;
            }
            Outcome::Removed => {
                check_immutable(path)?;
                remove_at(root, path)?;
            }
        }
        cx.record(dotted);
        return Ok(());
    }
    let value = {
        let mut oc = OpCtx { env: cx.env, field, path: &dotted, id: &cx.id, timestamps: &mut cx.timestamps };
        m.new_value(&mut oc)?
    };
    match value {
        Some(v) => create(root, path, found, v, cx),
        None if m.allow_non_viable() => Ok(()),
        None => check_viability(root, path, found),
    }
}

/// Changing an existing `_id` (or anything inside it) is refused.
pub(crate) fn check_immutable(path: &[String]) -> Result<()> {
    if path.first().is_some_and(|p| p == "_id") {
        return Err(Error::new(
            ErrorKind::ImmutableField,
            format!("Performing an update on the path '{}' would modify the immutable field '_id'", path.join(".")),
        ));
    }
    Ok(())
}

fn remove_at(root: &mut Bson, path: &[String]) -> Result<()> {
    let (last, parent_path) = path.split_last().ok_or_else(|| internal("empty path"))?;
    match get_mut(root, parent_path) {
        Some(Bson::Document(d)) => {
            d.remove(last);
        }
        Some(Bson::Array(a)) => {
            if let Some(slot) = parse_index(last).and_then(|i| a.get_mut(i)) {
                *slot = Bson::Null;
            }
        }
        _ => return Err(internal("parent vanished")),
    }
    Ok(())
}

/// `UpdateLeafNode::checkViability`: operators that do not create fail on a missing path that
/// runs through a scalar (or a non-numeric component through an array).
fn check_viability(root: &Bson, path: &[String], found: usize) -> Result<()> {
    let (_, elem) = resolve(root, &path[..found]);
    let viable = match elem {
        Bson::Document(_) => true,
        Bson::Array(_) => parse_index(&path[found]).is_some(),
        _ => false,
    };
    if viable || found == 0 {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::PathNotViable,
        format!(
            "Cannot use the part ({}) of ({}.{}) to traverse the element ({{{}}})",
            path[found],
            path[..found].join("."),
            path[found..].join("."),
            display::element(&path[found - 1], elem)
        ),
    ))
}

/// Creates the missing part `path[found..]` under the deepest existing element and sets `value`
/// at its end (`pathsupport::createPathAt`), then checks the new element.
pub(crate) fn create(root: &mut Bson, path: &[String], found: usize, value: Bson, cx: &mut Ctx) -> Result<()> {
    let parent_name = if found > 0 { path[found - 1].clone() } else { String::new() };
    let first = &path[found];
    let mut nested = value;
    for part in path[found + 1..].iter().rev() {
        let mut d = Document::new();
        d.insert(part.clone(), nested);
        nested = Bson::Document(d);
    }
    let parent = get_mut(root, &path[..found]).ok_or_else(|| internal("parent vanished"))?;
    let cannot = |p: &Bson| {
        Error::new(
            ErrorKind::PathNotViable,
            format!("Cannot create field '{first}' in element {{{}}}", display::element(&parent_name, p)),
        )
    };
    match parent {
        Bson::Document(d) => {
            d.insert(first.clone(), nested);
        }
        Bson::Array(a) => {
            let Some(idx) = parse_index(first) else {
                return Err(cannot(parent));
            };
            if idx > a.len() {
                if idx - a.len() > MAX_PADDING {
                    return Err(Error::new(ErrorKind::CannotBackfillArray, format!("can't backfill more than {MAX_PADDING} elements")));
                }
                a.resize(idx, Bson::Null);
            }
            a.push(nested);
        }
        other => return Err(cannot(other)),
    }
    validate_at(root, &path[..found + 1], cx)?;
    if found > 0 && path[0] == "_id" {
        let (_, elem) = resolve(root, &path[..found]);
        return Err(Error::new(
            ErrorKind::ImmutableField,
            format!(
                "Updating the path '{}' to {} would modify the immutable field '_id'",
                path[..found].join("."),
                display::element(&parent_name, elem)
            ),
        ));
    }
    cx.record(path.join("."));
    Ok(())
}

/// How many levels of documents and arrays `v` holds below itself (stops counting past `cap`).
pub(super) fn inner_depth(v: &Bson, cap: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    match v {
        Bson::Document(d) => d.values().map(|x| 1 + inner_depth(x, cap - 1)).max().unwrap_or(0),
        Bson::Array(a) => a.iter().map(|x| 1 + inner_depth(x, cap - 1)).max().unwrap_or(0),
        _ => 0,
    }
}

/// Storage checks on an element an operator wrote (`storage_validation::scanDocument`): the
/// nesting limit, and no `$`-prefixed top-level field (unless inserting, or a DBRef).
pub(crate) fn validate_at(root: &Bson, path: &[String], cx: &Ctx) -> Result<()> {
    validate_appended(root, path, None, cx)
}

/// [`validate_at`]; with `appended_from`, the element is an array whose elements from that
/// position on are the only new ones (the others were checked when they were stored).
fn validate_appended(root: &Bson, path: &[String], appended_from: Option<usize>, cx: &Ctx) -> Result<()> {
    let (found, elem) = resolve(root, path);
    if found < path.len() {
        return Ok(());
    }
    let level = path.len();
    let depth = match (elem, appended_from) {
        (Bson::Array(a), Some(from)) => a.get(from..).unwrap_or_default().iter().map(|x| 1 + inner_depth(x, MAX_DEPTH)).max().unwrap_or(0),
        _ => inner_depth(elem, MAX_DEPTH + 1),
    };
    if level + depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::Overflow, format!("Document exceeds maximum nesting depth of {MAX_DEPTH}")));
    }
    if level == 1 && !cx.inserting && path[0].starts_with('$') {
        if let Bson::Document(d) = root {
            super::validate::dollar_field(d, &path[0])?;
        }
    }
    Ok(())
}

/// Walks a path that must exist and returns the element (used by `$rename`).
pub(crate) fn lookup<'a>(root: &'a Bson, path: &[String]) -> Option<&'a Bson> {
    let mut cur = root;
    for p in path {
        cur = child(cur, p)?;
    }
    Some(cur)
}
