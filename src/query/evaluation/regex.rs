//! `$regex` (with `$options`, or a regex literal): matches strings and symbols the pattern
//! finds (PCRE semantics, options `i`, `m`, `s`, `x`), and regex values with the same pattern
//! and options. Also used inside `$in`, `$nin`, `$all` and `$not`.

use bson::Bson;
use fancy_regex::Regex;

use crate::error::{Error, Result};
use crate::query::node::{Cx, Node, Predicate};
use crate::query::parser::PathArgs;

/// A compiled regex predicate.
#[derive(Debug, Clone)]
pub(crate) struct RegexPred {
    pub pattern: String,
    pub flags: String,
    re: Regex,
}

impl RegexPred {
    /// Compiles `pattern` with `flags` as the server does (invalid flags: 51108, invalid pattern:
    /// 51091).
    pub fn new(pattern: &str, flags: &str) -> Result<RegexPred> {
        let re = compile(pattern, flags, "")?;
        Ok(RegexPred { pattern: pattern.to_string(), flags: flags.to_string(), re })
    }

    /// True when the pattern finds a match in `s`.
    pub fn is_match(&self, s: &str) -> bool {
        self.re.is_match(s).unwrap_or(false)
    }
}

impl Predicate for RegexPred {
    fn match_type(&self) -> u8 {
        10
    }

    fn matches_value(&self, v: Option<&Bson>, _cx: &mut Cx) -> Result<bool> {
        Ok(match v {
            Some(Bson::String(s)) | Some(Bson::Symbol(s)) => self.is_match(s),
            Some(Bson::RegularExpression(r)) => r.pattern.as_str() == self.pattern && r.options.as_str() == self.flags,
            _ => false,
        })
    }
}

/// Compiles a PCRE pattern with MongoDB's options for `fancy_regex` (`op` prefixes the invalid
/// option error, e.g. `$regexMatch`; empty for the query operator). `\d`, `\w`, `\s` and their
/// negations are ASCII-only as in PCRE without UCP.
pub fn compile(pattern: &str, flags: &str, op: &str) -> Result<Regex> {
    if pattern.contains('\0') {
        return Err(Error::bad_value("Regular expression cannot contain an embedded null byte"));
    }
    let mut inline = String::new();
    for c in flags.chars() {
        match c {
            'i' | 'm' | 's' | 'x' => {
                if !inline.contains(c) {
                    inline.push(c)
                }
            }
            'u' => {}
            other => return Err(Error::code(51108, format!("{op} invalid flag in regex options: {other}"))),
        }
    }
    let body = translate(pattern, inline.contains('m'));
    let full = if inline.is_empty() { body } else { format!("(?{inline}){body}") };
    Regex::new(&full).map_err(|e| Error::code(51091, format!("Regular expression is invalid: {e}")))
}

/// Rewrites PCRE syntax for `fancy_regex`: `\d \D \w \W \s \S` become ASCII classes (PCRE's
/// meaning without UCP); outside multiline mode `$` and `\Z` also match before a final newline.
fn translate(pattern: &str, multiline: bool) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                if n == 'Z' && !in_class {
                    out.push_str("(?=\\n?\\z)");
                    continue;
                }
                let class = match n {
                    'd' => Some("digit"),
                    'w' => Some("word"),
                    's' => Some("space"),
                    'D' => Some("^digit"),
                    'W' => Some("^word"),
                    'S' => Some("^space"),
                    _ => None,
                };
                match class {
                    Some(name) if in_class => out.push_str(&format!("[:{name}:]")),
                    Some(name) => out.push_str(&format!("[[:{name}:]]")),
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    // A leading `]` is a literal.
                    out.push_str("\\]");
                    chars.next();
                }
                continue;
            }
            '[' if in_class && chars.peek() == Some(&':') => {
                // A POSIX class inside a class: copy through to its closing `:]`.
                out.push('[');
                for d in chars.by_ref() {
                    out.push(d);
                    if d == ']' {
                        break;
                    }
                }
            }
            ']' if in_class && !class_start => {
                in_class = false;
                out.push(']');
            }
            '$' if !in_class && !multiline => out.push_str("(?:$|(?=\\n\\z))"),
            c => out.push(c),
        }
        class_start = false;
    }
    out
}

/// `{ $regex: .., $options: .. }` (`parseRegexDocument`).
pub(crate) fn parse(a: &PathArgs) -> Result<Option<Node>> {
    let mut regex: Option<String> = None;
    let mut options = String::new();
    for (k, v) in a.context {
        match k.as_str() {
            "$regex" => match v {
                Bson::String(s) => regex = Some(s.clone()),
                Bson::RegularExpression(r) => {
                    regex = Some(r.pattern.as_str().to_string());
                    if !r.options.as_str().is_empty() {
                        if !options.is_empty() {
                            return Err(Error::code(51074, "options set in both $regex and $options"));
                        }
                        options = r.options.as_str().to_string();
                    }
                }
                _ => return Err(Error::bad_value("$regex has to be a string")),
            },
            "$options" => {
                let Bson::String(s) = v else {
                    return Err(Error::bad_value("$options has to be a string"));
                };
                if !options.is_empty() {
                    return Err(Error::code(51075, "options set in both $regex and $options"));
                }
                options = s.clone();
            }
            _ => {}
        }
    }
    Ok(Some(Node::path(a.path, RegexPred::new(regex.as_deref().unwrap_or(""), &options)?)))
}

/// `$options` adds nothing by itself, but needs a `$regex` beside it.
pub(crate) fn parse_options(a: &PathArgs) -> Result<Option<Node>> {
    if a.context.contains_key("$regex") {
        return Ok(None);
    }
    Err(Error::bad_value("$options needs a $regex"))
}
