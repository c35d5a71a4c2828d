//! Projections of aggregation: `$project` (inclusion or exclusion, computed fields), `$addFields`
//! / `$set` (computed fields merged into the document) and `$unset` (an exclusion).
//!
//! A projection is a tree of field names in specification order. Applying it follows the server:
//! included fields keep the input document's order, computed fields are then set in
//! specification order (in place when the field exists, appended otherwise); through an array the
//! sub-projection applies to each element (nested arrays too).

use bson::{Bson, Document};

use super::util::{check_field_path, err};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::{Expr, VarScope};
use crate::value::display;

#[derive(Debug, Clone)]
pub(crate) enum Node {
    Include,
    Exclude,
    Computed(Expr),
    Sub(Tree),
}

/// Fields of one level, in specification order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tree {
    pub fields: Vec<(String, Node)>,
}

impl Tree {
    fn get(&self, name: &str) -> Option<&Node> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, n)| n)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Node> {
        self.fields.iter_mut().find(|(k, _)| k == name).map(|(_, n)| n)
    }

    fn has_computed(&self) -> bool {
        self.fields.iter().any(|(_, n)| match n {
            Node::Computed(_) => true,
            Node::Sub(t) => t.has_computed(),
            _ => false,
        })
    }

    /// Adds a node at a dotted path with the server's collision errors (31249, 31250).
    fn add_at_path(&mut self, full: &str, parts: &[&str], node: Node) -> Result<()> {
        let Some((first, rest)) = parts.split_first() else { return Ok(()) };
        if rest.is_empty() {
            if self.get(first).is_some() {
                return Err(err(31250, format!("Path collision at {full}")));
            }
            self.fields.push((first.to_string(), node));
            return Ok(());
        }
        if self.get(first).is_none() {
            self.fields.push((first.to_string(), Node::Sub(Tree::default())));
        }
        match self.get_mut(first) {
            Some(Node::Sub(t)) => t.add_at_path(full, rest, node),
            _ => Err(err(31249, format!("Path collision at {full} remaining portion {}", rest.join(".")))),
        }
    }

    /// The sub-tree at a path, created as needed (for nested `$project` objects).
    fn sub_at_path(&mut self, full: &str, parts: &[&str]) -> Result<&mut Tree> {
        let Some((first, rest)) = parts.split_first() else { return Ok(self) };
        if self.get(first).is_none() {
            self.fields.push((first.to_string(), Node::Sub(Tree::default())));
        }
        match self.get_mut(first) {
            Some(Node::Sub(t)) => t.sub_at_path(full, rest),
            _ if rest.is_empty() => Err(err(31250, format!("Path collision at {full}"))),
            _ => Err(err(31249, format!("Path collision at {full} remaining portion {}", rest.join(".")))),
        }
    }
}

/// A parsed `$project`.
#[derive(Debug, Clone)]
pub(crate) enum Projection {
    Inclusion(Tree),
    Exclusion(Tree),
}

#[derive(Default)]
struct ParseState {
    inclusion: Option<bool>,
    id_specified: bool,
    id_included: bool,
    id_excluded: bool,
}

fn is_positional(key: &str) -> bool {
    key.contains(".$.") || key.ends_with(".$") || key == "$"
}

fn true_value(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(f) => *f != 0.0,
        Bson::Decimal128(d) => !crate::value::number::to_d128(d).is_zero(),
        _ => false,
    }
}

/// Parses an operator expression `{ $op: .. }`; an unknown operator name is 31325.
fn parse_operator(obj: &Document, scope: &VarScope) -> Result<Expr> {
    let name = obj.keys().next().map(String::as_str).unwrap_or_default();
    if !crate::expr::registry::is_operator(name) {
        return Err(err(31325, format!("Unknown expression {name}")));
    }
    Expr::parse_object(obj, scope)
}

/// Parses a `$project` specification given as (field, value) pairs (errors without the
/// "Invalid $project" context, which the stage adds).
pub(crate) fn parse_project<'a, I>(spec: I, scope: &VarScope) -> Result<Projection>
where
    I: IntoIterator<Item = (&'a str, &'a Bson)>,
{
    let mut st = ParseState::default();
    let mut root = Tree::default();
    let mut any = false;
    for (k, v) in spec {
        any = true;
        st.id_specified |= k == "_id" || k.starts_with("_id.");
        parse_element(&mut st, &mut root, true, k, v, scope)?;
    }
    if !any {
        return Err(err(51272, "projection specification must have at least one field"));
    }
    let inclusion = match st.inclusion {
        Some(i) => i,
        None => st.id_included && !st.id_excluded,
    };
    if inclusion {
        if !st.id_specified {
            root.fields.insert(0, ("_id".to_string(), Node::Include));
        }
        Ok(Projection::Inclusion(root))
    } else {
        if st.id_specified && st.id_included {
            root.fields.retain(|(k, _)| k != "_id");
        }
        Ok(Projection::Exclusion(root))
    }
}

fn parse_element(st: &mut ParseState, parent: &mut Tree, at_root: bool, key: &str, v: &Bson, scope: &VarScope) -> Result<()> {
    if is_positional(key) {
        return Err(err(31324, "Cannot use positional projection in aggregation projection"));
    }
    check_field_path(key)?;
    let parts: Vec<&str> = key.split('.').collect();
    match v {
        Bson::Document(obj) => {
            if obj.len() == 1 && obj.keys().next().is_some_and(|k| k.starts_with('$')) {
                let expr = parse_operator(obj, scope)?;
                if st.inclusion == Some(false) {
                    return Err(err(31252, "Cannot use expression other than $meta in exclusion projection"));
                }
                st.inclusion = Some(true);
                return parent.add_at_path(key, &parts, Node::Computed(expr));
            }
            if obj.is_empty() {
                return Err(err(51270, "An empty sub-projection is not a valid value. Found empty object at path"));
            }
            let sub = parent.sub_at_path(key, &parts)?;
            for (k, v) in obj {
                parse_element(st, sub, false, k, v, scope)?;
            }
            Ok(())
        }
        Bson::Boolean(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            let top_id = at_root && key == "_id";
            if true_value(v) {
                parent.add_at_path(key, &parts, Node::Include)?;
                if top_id {
                    st.id_included = true;
                } else {
                    if st.inclusion == Some(false) {
                        return Err(err(31253, format!("Cannot do inclusion on field {key} in exclusion projection")));
                    }
                    st.inclusion = Some(true);
                }
            } else {
                parent.add_at_path(key, &parts, Node::Exclude)?;
                if top_id {
                    st.id_excluded = true;
                } else {
                    if st.inclusion == Some(true) {
                        return Err(err(31254, format!("Cannot do exclusion on field {key} in inclusion projection")));
                    }
                    st.inclusion = Some(false);
                }
            }
            Ok(())
        }
        other => {
            let expr = Expr::parse(other, scope)?;
            parent.add_at_path(key, &parts, Node::Computed(expr))?;
            if st.inclusion == Some(false) {
                return Err(err(31310, format!("Cannot use an expression {key}: {} in an exclusion projection", display::value(other))));
            }
            st.inclusion = Some(true);
            Ok(())
        }
    }
}

/// Parses an `$addFields` / `$set` specification (computed fields only), with the server's
/// validation of conflicting paths (40176) and sub-objects (40181, 40183).
pub(crate) fn parse_add_fields(spec: &Document, scope: &VarScope) -> Result<Tree> {
    let mut seen: Vec<String> = Vec::new();
    for (k, v) in spec {
        check_field_path(k)?;
        validate_element(spec, &mut seen, k, v)?;
    }
    let mut root = Tree::default();
    for (k, v) in spec {
        let parts: Vec<&str> = k.split('.').collect();
        add_fields_element(&mut root, k, &parts, v, scope)?;
    }
    Ok(root)
}

fn validate_element(raw: &Document, seen: &mut Vec<String>, path: &str, v: &Bson) -> Result<()> {
    match v {
        Bson::Document(obj) => {
            for (k, sub) in obj {
                if k.starts_with('$') {
                    if obj.len() != 1 {
                        return Err(err(
                            40181,
                            format!(
                                "an expression specification must contain exactly one field, the name of the expression. Found {} fields in {}, while parsing object {}",
                                obj.len(),
                                display::document(obj),
                                display::document(raw)
                            ),
                        ));
                    }
                    return ensure_no_conflict(raw, seen, path);
                }
                if k.contains('.') {
                    return Err(err(40183, format!("cannot use dotted field name '{k}' in a sub object: {}", display::document(raw))));
                }
                let full = format!("{path}.{k}");
                check_field_path(&full)?;
                validate_element(raw, seen, &full, sub)?;
            }
            Ok(())
        }
        _ => ensure_no_conflict(raw, seen, path),
    }
}

fn is_prefix(a: &str, b: &str) -> bool {
    b.len() > a.len() && b.starts_with(a) && b.as_bytes()[a.len()] == b'.'
}

fn ensure_no_conflict(raw: &Document, seen: &mut Vec<String>, path: &str) -> Result<()> {
    let conflict = seen
        .iter()
        .find(|s| s.as_str() == path)
        .or_else(|| seen.iter().find(|s| is_prefix(s, path)))
        .or_else(|| seen.iter().find(|s| is_prefix(path, s)));
    if let Some(c) = conflict {
        return Err(err(
            40176,
            format!("specification contains two conflicting paths. Cannot specify both '{path}' and '{c}': {}", display::document(raw)),
        ));
    }
    seen.push(path.to_string());
    Ok(())
}

fn add_fields_element(root: &mut Tree, full: &str, parts: &[&str], v: &Bson, scope: &VarScope) -> Result<()> {
    match v {
        Bson::Document(obj) if obj.keys().next().is_some_and(|k| k.starts_with('$')) => {
            root.add_at_path(full, parts, Node::Computed(Expr::parse(v, scope)?))
        }
        Bson::Document(obj) if !obj.is_empty() => {
            for (k, sub) in obj {
                let mut p = parts.to_vec();
                p.push(k);
                add_fields_element(root, &format!("{full}.{k}"), &p, sub, scope)?;
            }
            Ok(())
        }
        other => root.add_at_path(full, parts, Node::Computed(Expr::parse(other, scope)?)),
    }
}

/// Computed values of a tree, evaluated once against the root document.
enum Computed {
    Value(Option<Bson>),
    Sub(Vec<(String, Computed)>),
}

fn eval_tree(tree: &Tree, root: &Document, env: &Env) -> Result<Vec<(String, Computed)>> {
    let mut out = Vec::new();
    for (k, n) in &tree.fields {
        match n {
            Node::Computed(e) => out.push((k.clone(), Computed::Value(e.evaluate(root, env)?))),
            Node::Sub(t) if t.has_computed() => out.push((k.clone(), Computed::Sub(eval_tree(t, root, env)?))),
            _ => {}
        }
    }
    Ok(out)
}

fn apply_computed_doc(values: &[(String, Computed)], doc: &mut Document) {
    for (k, c) in values {
        match c {
            Computed::Value(Some(v)) => {
                doc.insert(k.clone(), v.clone());
            }
            Computed::Value(None) => {
                doc.remove(k);
            }
            Computed::Sub(sub) => match doc.get_mut(k) {
                Some(existing @ (Bson::Document(_) | Bson::Array(_))) => apply_computed_value(sub, existing),
                _ => {
                    let mut d = Document::new();
                    apply_computed_doc(sub, &mut d);
                    doc.insert(k.clone(), d);
                }
            },
        }
    }
}

fn apply_computed_value(values: &[(String, Computed)], v: &mut Bson) {
    match v {
        Bson::Document(d) => apply_computed_doc(values, d),
        Bson::Array(items) => {
            for item in items.iter_mut() {
                apply_computed_value(values, item);
            }
        }
        other => {
            let mut d = Document::new();
            apply_computed_doc(values, &mut d);
            *other = Bson::Document(d);
        }
    }
}

/// Applies `$addFields` computed fields to a document.
pub(crate) fn add_fields(tree: &Tree, mut doc: Document, env: &Env) -> Result<Document> {
    let values = eval_tree(tree, &doc, env)?;
    apply_computed_doc(&values, &mut doc);
    Ok(doc)
}

impl Projection {
    /// Applies the projection to one document.
    pub(crate) fn apply(&self, doc: Document, env: &Env) -> Result<Document> {
        match self {
            Projection::Exclusion(t) => Ok(exclude_doc(t, doc)),
            Projection::Inclusion(t) => {
                let values = if t.has_computed() { eval_tree(t, &doc, env)? } else { Vec::new() };
                let mut out = include_doc(t, doc);
                apply_computed_doc(&values, &mut out);
                // A computed top-level `_id` is the output's first field, as the server's.
                if values.iter().any(|(k, _)| k == "_id") && out.keys().next().is_some_and(|k| k != "_id") {
                    if let Some(id) = out.remove("_id") {
                        let mut first = Document::new();
                        first.insert("_id", id);
                        first.extend(out);
                        out = first;
                    }
                }
                Ok(out)
            }
        }
    }
}

fn include_doc(tree: &Tree, doc: Document) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        match tree.get(&k) {
            Some(Node::Include) => {
                out.insert(k, v);
            }
            Some(Node::Sub(sub)) => {
                if let Some(x) = include_value(sub, v) {
                    out.insert(k, x);
                }
            }
            _ => {}
        }
    }
    out
}

fn include_value(tree: &Tree, v: Bson) -> Option<Bson> {
    match v {
        Bson::Document(d) => Some(Bson::Document(include_doc(tree, d))),
        Bson::Array(items) => Some(Bson::Array(
            items
                .into_iter()
                .filter_map(|e| match e {
                    Bson::Document(_) | Bson::Array(_) => include_value(tree, e),
                    _ => None,
                })
                .collect(),
        )),
        _ => None,
    }
}

fn exclude_doc(tree: &Tree, doc: Document) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        match tree.get(&k) {
            Some(Node::Exclude) => {}
            Some(Node::Sub(sub)) => {
                out.insert(k, exclude_value(sub, v));
            }
            _ => {
                out.insert(k, v);
            }
        }
    }
    out
}

fn exclude_value(tree: &Tree, v: Bson) -> Bson {
    match v {
        Bson::Document(d) => Bson::Document(exclude_doc(tree, d)),
        Bson::Array(items) => Bson::Array(items.into_iter().map(|e| exclude_value(tree, e)).collect()),
        other => other,
    }
}

/// Wraps a projection error with the stage's context (`Invalid $project :: caused by :: ..`).
pub(crate) fn context(stage: &str) -> impl Fn(Error) -> Error + '_ {
    move |e: Error| e.add_context(format!("Invalid {stage}"))
}
