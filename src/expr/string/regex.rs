//! `$regexMatch`, `$regexFind`, `$regexFindAll: { input, regex, options }` (fancy-regex; options
//! `i`, `m`, `s`, `x`, `u`). A constant regex is compiled once at parse time.

use bson::{Bson, Document};
use fancy_regex::Regex;

use crate::error::{Error, Result};
use crate::expr::args::named;
use crate::expr::{Ctx, Expr, Op, Val, VarScope};

#[derive(Debug)]
struct RegexOp {
    name: &'static str,
    input: Expr,
    regex: Expr,
    options: Option<Expr>,
    compiled: Option<Option<Regex>>,
}

/// Pattern and options from the `regex` and `options` values; `None` when the pattern is nullish.
fn extract(name: &str, pattern: &Val, options: &Val) -> Result<Option<(String, String)>> {
    let p = pattern.as_bson();
    if !(pattern.is_nullish() || matches!(p, Some(Bson::String(_) | Bson::RegularExpression(_)))) {
        return Err(Error::code(51105, format!("{name} needs 'regex' to be of type string or regex")));
    }
    let o = options.as_bson();
    if !(options.is_nullish() || matches!(o, Some(Bson::String(_)))) {
        return Err(Error::code(51106, format!("{name} needs 'options' to be of type string")));
    }
    let mut opts = match o {
        Some(Bson::String(s)) => Some(s.clone()),
        _ => None,
    };
    let pat = match p {
        Some(Bson::RegularExpression(r)) => {
            let flags = r.options.as_str();
            if !flags.is_empty() {
                if !options.is_nullish() {
                    return Err(Error::code(
                        51107,
                        format!("{name}: found regex option(s) specified in both 'regex' and 'option' fields"),
                    ));
                }
                opts = Some(flags.to_string());
            }
            Some(r.pattern.as_str().to_string())
        }
        Some(Bson::String(s)) => Some(s.clone()),
        _ => None,
    };
    if pat.as_deref().is_some_and(|p| p.contains('\0')) {
        return Err(Error::code(51109, format!("{name}: regular expression cannot contain an embedded null byte")));
    }
    if opts.as_deref().is_some_and(|o| o.contains('\0')) {
        return Err(Error::code(51110, format!("{name}: regular expression options cannot contain an embedded null byte")));
    }
    Ok(pat.map(|p| (p, opts.unwrap_or_default())))
}

/// Compiles a pattern with the server's flags, translated as the query's `$regex` is (the server
/// compiles both with the same PCRE options).
pub(crate) fn compile(name: &str, pattern: &str, options: &str) -> Result<Regex> {
    let full = crate::query::evaluation::regex::to_fancy(pattern, options, name)?;
    Regex::new(&full).map_err(|e| Error::code(51111, format!("Invalid Regex in {name}: {e}")))
}

fn match_doc(caps: &fancy_regex::Captures, idx: usize) -> Bson {
    let m = caps.get(0).map(|m| m.as_str()).unwrap_or("");
    let captures: Vec<Bson> =
        (1..caps.len()).map(|i| caps.get(i).map(|c| Bson::String(c.as_str().to_string())).unwrap_or(Bson::Null)).collect();
    let mut d = Document::new();
    d.insert("match", m.to_string());
    d.insert("idx", idx as i32);
    d.insert("captures", captures);
    Bson::Document(d)
}

impl Op for RegexOp {
    fn eval(&self, ctx: &Ctx) -> Result<Option<Bson>> {
        let input = self.input.eval_val(ctx)?;
        let owned;
        let re: Option<&Regex> = match &self.compiled {
            Some(c) => c.as_ref(),
            None => {
                let pattern = self.regex.eval_val(ctx)?;
                let options = match &self.options {
                    Some(o) => o.eval_val(ctx)?,
                    None => Val::Missing,
                };
                owned = match extract(self.name, &pattern, &options)? {
                    Some((p, o)) => Some(compile(self.name, &p, &o)?),
                    None => None,
                };
                owned.as_ref()
            }
        };
        if !(input.is_nullish() || super::as_str(&input).is_some()) {
            return Err(Error::code(51104, format!("{} needs 'input' to be of type string", self.name)));
        }
        let text = super::as_str(&input);
        let (Some(re), Some(text)) = (re, text) else {
            return Ok(Some(match self.name {
                "$regexMatch" => Bson::Boolean(false),
                "$regexFindAll" => Bson::Array(Vec::new()),
                _ => Bson::Null,
            }));
        };
        let exec_err = |e: fancy_regex::Error| {
            Error::code(51156, format!("Error occurred while executing the regular expression in {}. Result code: {e}", self.name))
        };
        match self.name {
            "$regexMatch" => Ok(Some(Bson::Boolean(re.is_match(text).map_err(exec_err)?))),
            "$regexFind" => Ok(Some(match re.captures(text).map_err(exec_err)? {
                Some(c) => {
                    let start = c.get(0).map(|m| m.start()).unwrap_or(0);
                    match_doc(&c, text[..start].chars().count())
                }
                None => Bson::Null,
            })),
            _ => {
                // The server's loop: after a match continue at its end; after an empty match
                // step over one character.
                let mut out = Vec::new();
                let (mut pos, mut cp) = (0usize, 0usize);
                loop {
                    let Some(c) = re.captures_from_pos(text, pos).map_err(exec_err)? else { break };
                    let Some(m) = c.get(0) else { break };
                    cp += text[pos..m.start()].chars().count();
                    pos = m.start();
                    out.push(match_doc(&c, cp));
                    if m.as_str().is_empty() {
                        match text[pos..].chars().next() {
                            Some(ch) => {
                                pos += ch.len_utf8();
                                cp += 1;
                            }
                            None => break,
                        }
                    } else {
                        pos = m.end();
                        cp += m.as_str().chars().count();
                    }
                    if pos >= text.len() {
                        break;
                    }
                }
                Ok(Some(Bson::Array(out)))
            }
        }
    }
}

pub fn parse(name: &'static str, arg: &Bson, scope: &VarScope) -> Result<Expr> {
    let Bson::Document(d) = arg else {
        return Err(Error::code(
            51103,
            format!("{name} expects an object of named arguments but found: {}", crate::value::types::type_name(arg)),
        ));
    };
    let [input, regex, options] =
        named(d, ["input", "regex", "options"], scope, |k| Error::code(31024, format!("{name} found an unknown argument: {k}")))?;
    let input = input.ok_or_else(|| Error::code(31022, format!("{name} requires 'input' parameter")))?;
    let regex = regex.ok_or_else(|| Error::code(31023, format!("{name} requires 'regex' parameter")))?;
    let constant = regex.is_constant() && options.as_ref().is_none_or(|o| o.is_constant());
    let compiled = if constant {
        let p = regex.as_constant().map(Val::Ref).unwrap_or(Val::Missing);
        let o = options.as_ref().and_then(|o| o.as_constant()).map(Val::Ref).unwrap_or(Val::Missing);
        Some(match extract(name, &p, &o)? {
            Some((p, o)) => Some(compile(name, &p, &o)?),
            None => None,
        })
    } else {
        None
    };
    Ok(Expr::op(RegexOp { name, input, regex, options, compiled }))
}
