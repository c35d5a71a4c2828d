//! Field paths (`"$a.b"`) and variable references (`"$$ROOT"`, `"$$this.qty"`).

use bson::{Bson, Timestamp};

use super::{Ctx, Val, VarScope};
use crate::error::{Error, ErrorKind, Result};
use crate::value::path::expr_rest;

/// The variable a field path starts from.
#[derive(Debug, Clone, PartialEq)]
pub enum Var {
    Root,
    Current,
    Now,
    ClusterTime,
    Remove,
    /// `$$SEARCH_META`, `$$USER_ROLES`, ...: system variables the engine has no value for
    /// (they evaluate to missing).
    Unset,
    /// `$$JS_SCOPE` and `$$IS_MR`: names the parser knows, which only the server's own
    /// JavaScript and mapReduce code may read (`Variables::getValue`: 4631100 / 4631101).
    Internal(&'static str),
    User(String),
}

/// A parsed `"$a.b"` or `"$$var.a.b"`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPath {
    pub var: Var,
    pub parts: Vec<String>,
}

/// Field names allowed to start with `$` in a path (DBRef fields).
const ALLOWED_DOLLAR_FIELDS: &[&str] = &["$id", "$ref", "$db", "$sortKey"];

/// `FieldPath::uassertValidFieldName`.
pub fn validate_field_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::code(15998, "FieldPath field names may not be empty strings."));
    }
    if name.starts_with('$') && !ALLOWED_DOLLAR_FIELDS.contains(&name) {
        return Err(Error::code(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField."));
    }
    if name.contains('\0') {
        return Err(Error::code(16411, "FieldPath field names may not contain '\0'."));
    }
    if name.contains('.') {
        return Err(Error::code(16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField."));
    }
    Ok(())
}

fn is_alpha(c: u8) -> bool {
    c.is_ascii_alphabetic() || c & 0x80 != 0
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c & 0x80 != 0
}

fn check_name(name: &str, first_ok: fn(u8) -> bool) -> Result<()> {
    let bytes = name.as_bytes();
    let Some(&first) = bytes.first() else {
        return Err(Error::failed_to_parse("empty variable names are not allowed"));
    };
    if !first_ok(first) {
        return Err(Error::failed_to_parse(format!("'{name}' starts with an invalid character for a user variable name")));
    }
    if let Some(&c) = bytes[1..].iter().find(|&&c| !is_name_char(c)) {
        return Err(Error::failed_to_parse(format!(
            "'{name}' contains an invalid character for a variable name: '{}'",
            c as char
        )));
    }
    Ok(())
}

/// `validateNameForUserRead`: a variable name in `$$name`.
pub fn validate_name_for_read(name: &str) -> Result<()> {
    check_name(name, is_alpha)
}

/// `validateNameForUserWrite`: a variable defined by `$let`, `$map`'s `as`, ... (lowercase
/// first letter, or `CURRENT`).
pub fn validate_name_for_write(name: &str) -> Result<()> {
    if name == "CURRENT" {
        return Ok(());
    }
    check_name(name, |c| c.is_ascii_lowercase() || c & 0x80 != 0)
}

impl FieldPath {
    /// Parses `"$a.b"` / `"$$v.a"` (the string starts with `$`).
    pub fn parse(raw: &str, scope: &VarScope) -> Result<FieldPath> {
        if !raw.starts_with('$') {
            return Err(Error::code(16873, format!("FieldPath '{raw}' doesn't start with $")));
        }
        if raw.len() < 2 {
            return Err(Error::code(16872, "'$' by itself is not a valid FieldPath"));
        }
        if let Some(rest) = raw.strip_prefix("$$") {
            let (name, path) = match rest.find('.') {
                Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                None => (rest, None),
            };
            validate_name_for_read(name)?;
            let var = if scope.contains(name) {
                Var::User(name.to_string())
            } else {
                match name {
                    "ROOT" => Var::Root,
                    "CURRENT" => Var::Current,
                    "NOW" => Var::Now,
                    "CLUSTER_TIME" => Var::ClusterTime,
                    "REMOVE" => Var::Remove,
                    "SEARCH_META" | "USER_ROLES" | "SEARCH_SEQUENCE_TOKEN" => Var::Unset,
                    "JS_SCOPE" => Var::Internal("JS_SCOPE"),
                    "IS_MR" => Var::Internal("IS_MR"),
                    _ => return Err(Error::code(17276, format!("Use of undefined variable: {name}"))),
                }
            };
            let parts = match path {
                Some(p) => split_path(p)?,
                None => Vec::new(),
            };
            Ok(FieldPath { var, parts })
        } else {
            let var = if scope.contains("CURRENT") { Var::User("CURRENT".into()) } else { Var::Current };
            Ok(FieldPath { var, parts: split_path(&raw[1..])? })
        }
    }

    /// `"a.b"` for a path on `$$CURRENT` (the common `"$a.b"`).
    pub fn current_path(&self) -> Option<String> {
        if self.var == Var::Current && !self.parts.is_empty() {
            Some(self.parts.join("."))
        } else {
            None
        }
    }

    pub(crate) fn eval<'a>(&'a self, ctx: &Ctx<'a>) -> Result<Val<'a>> {
        let start = match &self.var {
            Var::Root => Val::Doc(ctx.root),
            Var::Current => match ctx.lookup_var("CURRENT") {
                Ok(v) => v,
                Err(()) => Val::Doc(ctx.root),
            },
            Var::Now => Val::Owned(Bson::DateTime(ctx.env.now)),
            Var::ClusterTime => {
                let secs = ctx.env.now.timestamp_millis().div_euclid(1000);
                Val::Owned(Bson::Timestamp(Timestamp { time: secs.clamp(0, u32::MAX as i64) as u32, increment: 1 }))
            }
            Var::Remove | Var::Unset => Val::Missing,
            Var::Internal(name) => {
                let code = if *name == "JS_SCOPE" { 4631100 } else { 4631101 };
                return Err(Error::code(code, format!("Use of undefined variable '$${name}'.")));
            }
            Var::User(name) => match ctx.lookup_var(name) {
                Ok(v) => v,
                Err(()) => {
                    return Err(Error::new(ErrorKind::Location(17276), format!("Use of undefined variable: {name}")));
                }
            },
        };
        Ok(walk(start, &self.parts))
    }
}

fn split_path(p: &str) -> Result<Vec<String>> {
    if p.is_empty() {
        return Err(Error::code(40352, "FieldPath cannot be constructed with empty string"));
    }
    let parts: Vec<String> = p.split('.').map(str::to_string).collect();
    for part in &parts {
        validate_field_name(part)?;
    }
    Ok(parts)
}

/// Follows an aggregation field path from a value: through documents in place; through an array
/// the rest of the path is applied to each element (see `value::path::expr_rest`).
pub(crate) fn walk<'a>(start: Val<'a>, parts: &[String]) -> Val<'a> {
    if parts.is_empty() {
        return start;
    }
    let mut cur: &'a Bson = match start {
        Val::Missing => return Val::Missing,
        Val::Doc(d) => match crate::value::path::field(d, &parts[0]) {
            Some(v) => v,
            None => return Val::Missing,
        },
        Val::Ref(b) => match b {
            Bson::Document(d) => match crate::value::path::field(d, &parts[0]) {
                Some(v) => v,
                None => return Val::Missing,
            },
            Bson::Array(_) => return owned_rest(b, parts),
            _ => return Val::Missing,
        },
        Val::Owned(b) => return owned_rest(&b, parts),
    };
    let mut i = 1;
    while i < parts.len() {
        match cur {
            Bson::Document(d) => match crate::value::path::field(d, &parts[i]) {
                Some(v) => cur = v,
                None => return Val::Missing,
            },
            Bson::Array(_) => return owned_rest(cur, &parts[i..]),
            _ => return Val::Missing,
        }
        i += 1;
    }
    Val::Ref(cur)
}

fn owned_rest<'a>(v: &Bson, parts: &[String]) -> Val<'a> {
    match expr_rest(v, parts) {
        Some(b) => Val::Owned(b),
        None => Val::Missing,
    }
}
