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

/// The longest `$regex` pattern, in bytes (`RegexMatchExpression::kMaxPatternSize`).
const MAX_PATTERN_SIZE: usize = 32764;

/// Compiles a PCRE pattern with MongoDB's options for `fancy_regex` (`op` prefixes the invalid
/// option error, e.g. `$regexMatch`; empty for the query operator). `\d`, `\w`, `\s` and their
/// negations are ASCII-only as in PCRE without UCP.
pub fn compile(pattern: &str, flags: &str, op: &str) -> Result<Regex> {
    // `RegexMatchExpression::_init`'s checks, in its order.
    if pattern.len() > MAX_PATTERN_SIZE {
        return Err(Error::bad_value("Regular expression is too long"));
    }
    if pattern.contains('\0') {
        return Err(Error::bad_value("Regular expression cannot contain an embedded null byte"));
    }
    if flags.contains('\0') {
        return Err(Error::bad_value("Regular expression options string cannot contain an embedded null byte"));
    }
    let full = to_fancy(pattern, flags, op)?;
    Regex::new(&full).map_err(|e| Error::code(51091, format!("Regular expression is invalid: {e}")))
}

/// The line ending a pattern's `(*CR)`, `(*LF)`, ... option selects (PCRE2's default: LF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Newline {
    Lf,
    Cr,
    Crlf,
    AnyCrlf,
    Any,
    Nul,
}

impl Newline {
    /// A regex matching one line ending.
    fn ending(self) -> &'static str {
        match self {
            Newline::Lf => "\\n",
            Newline::Cr => "\\r",
            Newline::Crlf => "\\r\\n",
            Newline::AnyCrlf => "(?:\\r\\n|\\r|\\n)",
            Newline::Any => "(?:\\r\\n|[\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}])",
            Newline::Nul => "\\x00",
        }
    }

    /// What `.` matches outside dotall mode: anything but a line ending (for CRLF, a CR only
    /// when an LF follows it).
    fn dot(self) -> &'static str {
        match self {
            Newline::Lf => ".",
            Newline::Cr => "[^\\r]",
            Newline::Crlf => "(?:\\r(?!\\n)|[^\\r])",
            Newline::AnyCrlf => "[^\\r\\n]",
            Newline::Any => "[^\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}]",
            Newline::Nul => "[^\\x00]",
        }
    }
}

/// Strips the PCRE2 start-of-pattern options the server's PCRE accepts (`(*UTF)`, `(*UCP)`,
/// the line-ending and `\R` conventions, `(*LIMIT_MATCH=n)` and the optimisation switches):
/// returns the rest of the pattern, whether `(*UCP)` was given, and the line ending.
fn leading_options(mut pattern: &str) -> (&str, bool, Newline) {
    let (mut ucp, mut newline) = (false, Newline::Lf);
    while let Some(rest) = pattern.strip_prefix("(*") {
        let Some(end) = rest.find(')') else { break };
        let name = &rest[..end];
        let limit = ["LIMIT_HEAP=", "LIMIT_MATCH=", "LIMIT_DEPTH=", "LIMIT_RECURSION="]
            .iter()
            .any(|p| name.strip_prefix(p).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())));
        match name {
            "UCP" => ucp = true,
            "CR" => newline = Newline::Cr,
            "LF" => newline = Newline::Lf,
            "CRLF" => newline = Newline::Crlf,
            "ANYCRLF" => newline = Newline::AnyCrlf,
            "ANY" => newline = Newline::Any,
            "NUL" => newline = Newline::Nul,
            "UTF" | "BSR_ANYCRLF" | "BSR_UNICODE" | "NO_AUTO_POSSESS" | "NO_DOTSTAR_ANCHOR" | "NO_JIT" | "NO_START_OPT"
            | "NOTEMPTY" | "NOTEMPTY_ATSTART" => {}
            _ if limit => {}
            _ => break,
        }
        pattern = &rest[end + 1..];
    }
    (pattern, ucp, newline)
}

/// A PCRE pattern and MongoDB options (`i`, `m`, `s`, `x`; `u` is accepted and changes nothing,
/// UTF being always on; others are error 51108, prefixed by `op`) as `fancy_regex` source. Shared
/// by `$regex` and the `$regexMatch`/`$regexFind`/`$regexFindAll` expressions, which the server
/// compiles alike (`pcre_util::flagsToOptions`).
pub(crate) fn to_fancy(pattern: &str, flags: &str, op: &str) -> Result<String> {
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
    let (rest, ucp, newline) = leading_options(pattern);
    let body = translate(rest, inline.contains('m'), inline.contains('s'), ucp, newline);
    Ok(if inline.is_empty() { body } else { format!("(?{inline}){body}") })
}

/// Rewrites PCRE syntax for `fancy_regex`: `\d \D \w \W \s \S` become ASCII classes (PCRE's
/// meaning without UCP); outside multiline mode `$` and `\Z` also match before a final line
/// ending; with a line ending other than LF, `.` excludes that ending instead of `\n`.
fn translate(pattern: &str, multiline: bool, dotall: bool, ucp: bool, newline: Newline) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    let end_or_final_ending = format!("(?:\\z|(?={}\\z))", newline.ending());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(n) = chars.next() else {
                    out.push('\\');
                    break;
                };
                if n == 'Z' && !in_class {
                    out.push_str(&format!("(?=(?:{})?\\z)", newline.ending()));
                    continue;
                }
                let class = match n {
                    _ if ucp => None,
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
            '$' if !in_class && !multiline => {
                if newline == Newline::Lf {
                    out.push_str("(?:$|(?=\\n\\z))");
                } else {
                    out.push_str(&end_or_final_ending);
                }
            }
            '.' if !in_class && !dotall && newline != Newline::Lf => out.push_str(newline.dot()),
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
