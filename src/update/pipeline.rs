//! Pipeline-style updates (`[ { $set: .. }, { $unset: .. } ]`): the few stages an update allows
//! (`$addFields`/`$set`, `$project`, `$unset`, `$replaceRoot`/`$replaceWith`), evaluated with
//! [`Expr`]. Every other stage is refused as the server refuses it.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, ErrorKind, Result};
use crate::expr::{Expr, VarScope};
use crate::value::types::type_name;

use super::render;

/// Aggregation stages that exist but may not appear in an update, with the name the server
/// reports (stages that expand into others report the first one).
const REFUSED: &[(&str, &str)] = &[
    ("$match", "$match"),
    ("$group", "$group"),
    ("$sort", "$sort"),
    ("$limit", "$limit"),
    ("$skip", "$skip"),
    ("$lookup", "$lookup"),
    ("$unwind", "$unwind"),
    ("$count", "$group"),
    ("$facet", "$facet"),
    ("$bucket", "$group"),
    ("$bucketAuto", "$bucketAuto"),
    ("$sortByCount", "$group"),
    ("$sample", "$sample"),
    ("$out", "$out"),
    ("$merge", "$merge"),
    ("$geoNear", "$geoNear"),
    ("$graphLookup", "$graphLookup"),
    ("$redact", "$redact"),
    ("$unionWith", "$unionWith"),
    ("$densify", "$densify"),
    ("$fill", "$setWindowFields"),
    ("$setWindowFields", "$setWindowFields"),
    ("$documents", "$queue"),
    ("$indexStats", "$indexStats"),
    ("$collStats", "$collStats"),
    ("$currentOp", "$currentOp"),
    ("$listSessions", "$listSessions"),
    ("$planCacheStats", "$planCacheStats"),
    ("$changeStream", "$changeStream"),
];

#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    stages: Vec<Stage>,
}

#[derive(Debug, Clone)]
enum Stage {
    AddFields(Vec<(String, Field)>),
    Project(Projection),
    ReplaceRoot { expr: Expr, name: &'static str },
}

/// One field of an `$addFields` or a computed field of `$project`.
#[derive(Debug, Clone)]
enum Field {
    Expr(Expr),
    Nested(Vec<(String, Field)>),
}

#[derive(Debug, Clone)]
enum Projection {
    /// Inclusion: included and computed fields, and whether `_id` stays.
    Include { tree: Vec<(String, PNode)>, keep_id: bool },
    Exclude(Vec<(String, PNode)>),
}

#[derive(Debug, Clone)]
enum PNode {
    Include,
    Exclude,
    Computed(Expr),
    Nested(Vec<(String, PNode)>),
}

fn stage_error(stage: &str, e: Error) -> Error {
    Error { message: format!("Invalid {stage} :: caused by :: {}", e.message), ..e }
}

/// Checks one component of a field path as `FieldPath` does.
fn check_field_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::code(15998, "FieldPath field names may not be empty strings."));
    }
    if name.starts_with('$') {
        return Err(Error::code(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."));
    }
    if name.contains('\0') {
        return Err(Error::code(16411, "FieldPath field names may not contain '\\0'."));
    }
    Ok(())
}

fn split_path(path: &str) -> Result<Vec<String>> {
    if path.is_empty() {
        return Err(Error::code(40352, "FieldPath cannot be constructed with empty string"));
    }
    let parts: Vec<String> = path.split('.').map(str::to_string).collect();
    for p in &parts {
        check_field_name(p)?;
    }
    Ok(parts)
}

fn is_expression_object(d: &Document) -> bool {
    d.keys().next().is_some_and(|k| k.starts_with('$'))
}

fn collision(path: &str) -> Error {
    Error::code(31250, format!("Path collision at {path}"))
}

fn insert_field(tree: &mut Vec<(String, Field)>, parts: &[String], field: Field, full: &str) -> Result<()> {
    let Some((first, rest)) = parts.split_first() else {
        return Ok(());
    };
    if rest.is_empty() {
        if tree.iter().any(|(k, _)| k == first) {
            return Err(collision(full));
        }
        tree.push((first.clone(), field));
        return Ok(());
    }
    let pos = match tree.iter().position(|(k, _)| k == first) {
        Some(p) => p,
        None => {
            tree.push((first.clone(), Field::Nested(Vec::new())));
            tree.len() - 1
        }
    };
    match &mut tree[pos].1 {
        Field::Nested(children) => insert_field(children, rest, field, full),
        Field::Expr(_) => Err(collision(full)),
    }
}

fn parse_fields(spec: &Document, scope: &VarScope, prefix: &str, tree: &mut Vec<(String, Field)>) -> Result<()> {
    for (k, v) in spec {
        let full = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        let parts = split_path(k)?;
        let field = match v {
            Bson::Document(d) if !d.is_empty() && !is_expression_object(d) => {
                let mut sub = Vec::new();
                parse_fields(d, scope, &full, &mut sub)?;
                Field::Nested(sub)
            }
            other => Field::Expr(Expr::parse(other, scope)?),
        };
        insert_field(tree, &parts, field, &full)?;
    }
    Ok(())
}

fn parse_add_fields(name: &str, v: &Bson, scope: &VarScope) -> Result<Stage> {
    let Bson::Document(spec) = v else {
        return Err(Error::code(40272, format!("{name} specification stage must be an object, got {}", type_name(v))));
    };
    if spec.is_empty() {
        return Err(stage_error(name, Error::code(40177, "specification must have at least one field")));
    }
    let mut tree = Vec::new();
    parse_fields(spec, scope, "", &mut tree).map_err(|e| stage_error(name, e))?;
    Ok(Stage::AddFields(tree))
}

fn insert_pnode(tree: &mut Vec<(String, PNode)>, parts: &[String], node: PNode, full: &str) -> Result<()> {
    let Some((first, rest)) = parts.split_first() else {
        return Ok(());
    };
    if rest.is_empty() {
        if tree.iter().any(|(k, _)| k == first) {
            return Err(collision(full));
        }
        tree.push((first.clone(), node));
        return Ok(());
    }
    let pos = match tree.iter().position(|(k, _)| k == first) {
        Some(p) => p,
        None => {
            tree.push((first.clone(), PNode::Nested(Vec::new())));
            tree.len() - 1
        }
    };
    match &mut tree[pos].1 {
        PNode::Nested(children) => insert_pnode(children, rest, node, full),
        _ => Err(collision(full)),
    }
}

/// Parses a projection spec; `mode` collects whether it includes (`Some(true)`) or excludes.
fn parse_projection_fields(
    spec: &Document,
    scope: &VarScope,
    prefix: &str,
    tree: &mut Vec<(String, PNode)>,
    mode: &mut Option<bool>,
) -> Result<()> {
    for (k, v) in spec {
        let full = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        let parts = split_path(k)?;
        let node = match v {
            Bson::Boolean(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                let truthy = match v {
                    Bson::Boolean(b) => *b,
                    other => crate::value::Number::from_bson(other).map(|n| n.to_f64() != 0.0).unwrap_or(false),
                };
                if truthy {
                    PNode::Include
                } else {
                    PNode::Exclude
                }
            }
            Bson::Document(d) if d.is_empty() => {
                return Err(Error::code(51270, format!("An empty sub-projection is not a valid value. Found empty object at path {full}")));
            }
            Bson::Document(d) if !is_expression_object(d) => {
                let mut sub = Vec::new();
                parse_projection_fields(d, scope, &full, &mut sub, mode)?;
                PNode::Nested(sub)
            }
            other => PNode::Computed(Expr::parse(other, scope)?),
        };
        let is_id = full == "_id";
        match &node {
            PNode::Include | PNode::Computed(_) if !(is_id && matches!(node, PNode::Include)) => {
                if *mode == Some(false) {
                    return Err(Error::code(31253, format!("Cannot do inclusion on field {full} in exclusion projection")));
                }
                *mode = Some(true);
            }
            PNode::Exclude if !is_id => {
                if *mode == Some(true) {
                    return Err(Error::code(31254, format!("Cannot do exclusion on field {full} in inclusion projection")));
                }
                *mode = Some(false);
            }
            _ => {}
        }
        insert_pnode(tree, &parts, node, &full)?;
    }
    Ok(())
}

fn parse_project(v: &Bson, scope: &VarScope) -> Result<Stage> {
    let Bson::Document(spec) = v else {
        return Err(Error::code(15969, "$project specification must be an object"));
    };
    if spec.is_empty() {
        return Err(stage_error("$project", Error::code(51272, "projection specification must have at least one field")));
    }
    let mut tree = Vec::new();
    let mut mode = None;
    parse_projection_fields(spec, scope, "", &mut tree, &mut mode).map_err(|e| stage_error("$project", e))?;
    let id_node = tree.iter().find(|(k, _)| k == "_id").map(|(_, n)| n);
    let keep_id = !matches!(id_node, Some(PNode::Exclude));
    Ok(Stage::Project(match mode {
        Some(false) => Projection::Exclude(tree),
        // `{ _id: 0 }` alone, and `{ _id: 1 }` alone, are exclusion and inclusion respectively.
        None if !keep_id => Projection::Exclude(tree),
        _ => Projection::Include { tree, keep_id },
    }))
}

fn parse_unset(v: &Bson) -> Result<Stage> {
    let paths: Vec<String> = match v {
        Bson::String(s) => vec![s.clone()],
        Bson::Array(items) => {
            if items.is_empty() {
                return Err(Error::code(31119, "$unset specification must be a string or an array with at least one field"));
            }
            items
                .iter()
                .map(|x| match x {
                    Bson::String(s) => Ok(s.clone()),
                    _ => Err(Error::code(31120, "$unset specification must be a string or an array containing only string values")),
                })
                .collect::<Result<_>>()?
        }
        _ => return Err(Error::code(31002, "$unset specification must be a string or an array")),
    };
    let mut tree = Vec::new();
    for p in &paths {
        let parts = split_path(p).map_err(|e| stage_error("$project", e))?;
        insert_pnode(&mut tree, &parts, PNode::Exclude, p).map_err(|e| stage_error("$project", e))?;
    }
    Ok(Stage::Project(Projection::Exclude(tree)))
}

fn parse_replace_root(v: &Bson, scope: &VarScope) -> Result<Stage> {
    let Bson::Document(spec) = v else {
        return Err(Error::code(40229, format!("expected an object as specification for $replaceRoot stage, got {}", type_name(v))));
    };
    let mut new_root = None;
    for (k, x) in spec {
        if k == "newRoot" {
            new_root = Some(x);
        } else {
            return Err(Error::code(40415, format!("BSON field '$replaceRoot.{k}' is an unknown field.")));
        }
    }
    let Some(new_root) = new_root else {
        return Err(Error::code(40414, "BSON field '$replaceRoot.newRoot' is missing but a required field"));
    };
    Ok(Stage::ReplaceRoot { expr: Expr::parse(new_root, scope)?, name: "newRoot" })
}

impl Pipeline {
    pub fn parse(stages: &[Bson], scope: &VarScope) -> Result<Pipeline> {
        let mut out = Vec::with_capacity(stages.len());
        for s in stages {
            let Bson::Document(d) = s else {
                return Err(Error::type_mismatch("Each element of the 'pipeline' array must be an object"));
            };
            if d.len() != 1 {
                return Err(Error::code(40323, "A pipeline stage specification object must contain exactly one field."));
            }
            let Some((name, v)) = d.iter().next() else {
                return Err(Error::code(40323, "A pipeline stage specification object must contain exactly one field."));
            };
            let stage = match name.as_str() {
                "$addFields" | "$set" => parse_add_fields(name, v, scope)?,
                "$project" => parse_project(v, scope)?,
                "$unset" => parse_unset(v)?,
                "$replaceRoot" => parse_replace_root(v, scope)?,
                "$replaceWith" => Stage::ReplaceRoot { expr: Expr::parse(v, scope)?, name: "replacement" },
                other => {
                    return Err(match REFUSED.iter().find(|(n, _)| *n == other) {
                        Some((_, reported)) => {
                            Error::new(ErrorKind::InvalidOptions, format!("{reported} is not allowed to be used within an update"))
                        }
                        None => Error::code(40324, format!("Unrecognized pipeline stage name: '{other}'")),
                    })
                }
            };
            out.push(stage);
        }
        Ok(Pipeline { stages: out })
    }

    /// Runs the stages over one document.
    pub fn run(&self, doc: &Document, env: &Env) -> Result<Document> {
        let mut cur = doc.clone();
        for stage in &self.stages {
            cur = match stage {
                Stage::AddFields(tree) => {
                    let mut out = cur.clone();
                    add_fields(&mut out, tree, &cur, env)?;
                    out
                }
                Stage::Project(Projection::Exclude(tree)) => exclude(&cur, tree),
                Stage::Project(Projection::Include { tree, keep_id }) => include(&cur, tree, &cur, env, *keep_id, true)?,
                Stage::ReplaceRoot { expr, name } => match expr.evaluate(&cur, env)? {
                    Some(Bson::Document(d)) => d,
                    other => {
                        let (shown, ty) = match &other {
                            Some(v) => (render::value(v), type_name(v)),
                            None => ("MISSING".to_string(), "missing"),
                        };
                        return Err(Error::code(
                            40228,
                            format!(
                                "'{name}' expression must evaluate to an object, but resulting value was: {shown}. Type of resulting value: '{ty}'. Input document: {}",
                                render::document(&cur)
                            ),
                        ));
                    }
                },
            };
        }
        Ok(cur)
    }
}

fn add_fields(out: &mut Document, tree: &[(String, Field)], root: &Document, env: &Env) -> Result<()> {
    for (name, field) in tree {
        match field {
            Field::Expr(e) => match e.evaluate(root, env)? {
                Some(v) => {
                    out.insert(name.clone(), v);
                }
                None => {
                    out.remove(name);
                }
            },
            Field::Nested(children) => {
                let cur = out.get(name).cloned();
                let next = add_nested(cur, children, root, env)?;
                out.insert(name.clone(), next);
            }
        }
    }
    Ok(())
}

fn add_nested(cur: Option<Bson>, children: &[(String, Field)], root: &Document, env: &Env) -> Result<Bson> {
    match cur {
        Some(Bson::Document(mut d)) => {
            add_fields(&mut d, children, root, env)?;
            Ok(Bson::Document(d))
        }
        Some(Bson::Array(items)) => Ok(Bson::Array(
            items.into_iter().map(|x| add_nested(Some(x), children, root, env)).collect::<Result<_>>()?,
        )),
        _ => {
            let mut d = Document::new();
            add_fields(&mut d, children, root, env)?;
            Ok(Bson::Document(d))
        }
    }
}

fn exclude(input: &Document, tree: &[(String, PNode)]) -> Document {
    let mut out = input.clone();
    for (k, node) in tree {
        match node {
            PNode::Exclude => {
                out.remove(k);
            }
            PNode::Nested(sub) => {
                if let Some(v) = out.get_mut(k) {
                    exclude_value(v, sub);
                }
            }
            _ => {}
        }
    }
    out
}

fn exclude_value(v: &mut Bson, sub: &[(String, PNode)]) {
    match v {
        Bson::Document(d) => *d = exclude(d, sub),
        Bson::Array(items) => {
            for item in items {
                exclude_value(item, sub);
            }
        }
        _ => {}
    }
}

fn has_computed(tree: &[(String, PNode)]) -> bool {
    tree.iter().any(|(_, n)| match n {
        PNode::Computed(_) => true,
        PNode::Nested(sub) => has_computed(sub),
        _ => false,
    })
}

/// An inclusion projection: the input's included fields in input order (with `_id` kept unless
/// excluded at the top), then computed fields in spec order.
fn include(input: &Document, tree: &[(String, PNode)], root: &Document, env: &Env, keep_id: bool, top: bool) -> Result<Document> {
    let mut out = Document::new();
    for (k, v) in input {
        match tree.iter().find(|(n, _)| n == k).map(|(_, n)| n) {
            Some(PNode::Include) => {
                out.insert(k.clone(), v.clone());
            }
            Some(PNode::Nested(sub)) => {
                if let Some(x) = include_value(v, sub, root, env)? {
                    out.insert(k.clone(), x);
                }
            }
            None if top && keep_id && k == "_id" => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    for (k, node) in tree {
        match node {
            PNode::Computed(e) => match e.evaluate(root, env)? {
                Some(v) => {
                    out.insert(k.clone(), v);
                }
                None => {
                    out.remove(k);
                }
            },
            PNode::Nested(sub) if has_computed(sub) && !out.contains_key(k) => {
                out.insert(k.clone(), Bson::Document(include(&Document::new(), sub, root, env, false, false)?));
            }
            _ => {}
        }
    }
    Ok(out)
}

fn include_value(v: &Bson, sub: &[(String, PNode)], root: &Document, env: &Env) -> Result<Option<Bson>> {
    Ok(match v {
        Bson::Document(d) => Some(Bson::Document(include(d, sub, root, env, false, false)?)),
        Bson::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                if let Some(x) = include_value(item, sub, root, env)? {
                    out.push(x);
                }
            }
            Some(Bson::Array(out))
        }
        _ if has_computed(sub) => Some(Bson::Document(include(&Document::new(), sub, root, env, false, false)?)),
        _ => None,
    })
}
