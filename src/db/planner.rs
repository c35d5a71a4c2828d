//! Query planning over a collection's indexes, in the spirit of the server's planner:
//! - an equality (or `$in`) on `_id` is answered by lookups in the `_id_` index (`EXPRESS_IDHACK`);
//! - otherwise each index whose leading key fields the filter bounds (equalities, `$in`, ranges,
//!   `$elemMatch`), or whose order gives the requested sort, is a candidate `IXSCAN` (+ `FETCH`);
//!   the candidate with the fewest keys to examine wins (an index that gives the sort, with a
//!   limit and no other condition to check, stops after the limit);
//! - a filter that is an `$or` of indexable branches is an `OR` of index scans;
//! - anything else is a `COLLSCAN`;
//! - `min()`/`max()` scan the hinted index between two whole keys.
//!
//! On a multikey field two conditions combine (intersected ranges, points kept by ranges) only
//! under one `$elemMatch` whose path reaches every array of the field, as the server's rule; a
//! field naming an array element by position (`a.0`) takes no bounds from `$elemMatch` or null.
//!
//! Bounds are always a superset of the matching keys: every fetched document is still checked
//! against the whole filter, so a plan changes the order of the results and the counters
//! (`keysExamined`, `docsExamined`), never which documents match.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::Bound;

use bson::{doc, oid::ObjectId, Bson, Document};

use crate::error::{Error, Result};
use crate::value::display;
use crate::value;

use super::collection::{id_equalities, Collection, Record};
use super::exec::Sort;
use super::index::Index;
use super::keystring;

/// One interval of values of a key field; its ends borrow the filter's values where they come
/// from it (a plan is made for every statement: copying them was most of its cost).
#[derive(Debug, Clone)]
pub(crate) struct Interval<'a> {
    lo: Cow<'a, Bson>,
    lo_incl: bool,
    hi: Cow<'a, Bson>,
    hi_incl: bool,
}

impl<'a> Interval<'a> {
    fn point(v: Cow<'a, Bson>) -> Interval<'a> {
        Interval { lo: v.clone(), lo_incl: true, hi: v, hi_incl: true }
    }

    fn full() -> Interval<'a> {
        Interval { lo: Cow::Owned(Bson::MinKey), lo_incl: true, hi: Cow::Owned(Bson::MaxKey), hi_incl: true }
    }

    fn is_point(&self) -> bool {
        self.lo_incl && self.hi_incl && value::compare(&self.lo, &self.hi) == Ordering::Equal
    }

    fn contains(&self, v: &Bson) -> bool {
        let lo = value::compare(v, &self.lo);
        let hi = value::compare(v, &self.hi);
        (lo == Ordering::Greater || (lo == Ordering::Equal && self.lo_incl)) && (hi == Ordering::Less || (hi == Ordering::Equal && self.hi_incl))
    }

    /// The intersection of two intervals (`None` when empty).
    fn intersect(&self, o: &Interval<'a>) -> Option<Interval<'a>> {
        let (lo, lo_incl) = match value::compare(&self.lo, &o.lo) {
            Ordering::Greater => (self.lo.clone(), self.lo_incl),
            Ordering::Less => (o.lo.clone(), o.lo_incl),
            Ordering::Equal => (self.lo.clone(), self.lo_incl && o.lo_incl),
        };
        let (hi, hi_incl) = match value::compare(&self.hi, &o.hi) {
            Ordering::Less => (self.hi.clone(), self.hi_incl),
            Ordering::Greater => (o.hi.clone(), o.hi_incl),
            Ordering::Equal => (self.hi.clone(), self.hi_incl && o.hi_incl),
        };
        match value::compare(&lo, &hi) {
            Ordering::Greater => None,
            Ordering::Equal if !(lo_incl && hi_incl) => None,
            _ => Some(Interval { lo, lo_incl, hi, hi_incl }),
        }
    }

    /// The server's rendering in explain's `indexBounds` (`[3, 3]`, `(3, inf.0]`).
    fn render(&self, descending: bool) -> String {
        let (a, ai, b, bi) = if descending {
            (&self.hi, self.hi_incl, &self.lo, self.lo_incl)
        } else {
            (&self.lo, self.lo_incl, &self.hi, self.hi_incl)
        };
        format!("{}{}, {}{}", if ai { "[" } else { "(" }, display::value(a), display::value(b), if bi { "]" } else { ")" })
    }
}

/// The smallest and largest values of `v`'s type bracket (a range predicate only matches values
/// of the same bracket), each with whether it is included.
fn bracket(v: &Bson) -> ((Bson, bool), (Bson, bool)) {
    match value::canonical_type(v) {
        10 => ((Bson::Double(f64::NEG_INFINITY), true), (Bson::Double(f64::INFINITY), true)),
        15 => ((Bson::String(String::new()), true), (Bson::Document(Document::new()), false)),
        20 => ((Bson::Document(Document::new()), true), (Bson::Array(Vec::new()), false)),
        35 => ((Bson::ObjectId(ObjectId::from_bytes([0; 12])), true), (Bson::ObjectId(ObjectId::from_bytes([0xff; 12])), true)),
        40 => ((Bson::Boolean(false), true), (Bson::Boolean(true), true)),
        45 => ((Bson::DateTime(bson::DateTime::MIN), true), (Bson::DateTime(bson::DateTime::MAX), true)),
        47 => (
            (Bson::Timestamp(bson::Timestamp { time: 0, increment: 0 }), true),
            (Bson::Timestamp(bson::Timestamp { time: u32::MAX, increment: u32::MAX }), true),
        ),
        _ => ((Bson::MinKey, true), (Bson::MaxKey, true)),
    }
}

/// What a filter says about one path, for bounds.
#[derive(Debug, Clone)]
struct Pred<'a> {
    kind: PredKind<'a>,
    /// The `$elemMatch` it sits in (numbered in the filter), whose conditions hold for one
    /// array element together.
    group: Option<usize>,
}

impl Pred<'_> {
    /// An equality to null (or undefined) among its points.
    fn has_null(&self) -> bool {
        matches!(self.kind, PredKind::Points(vs) if vs.iter().any(|v| matches!(v, Bson::Null | Bson::Undefined)))
    }
}

#[derive(Debug, Clone)]
enum PredKind<'a> {
    /// Equality to one of these values (the filter's).
    Points(&'a [Bson]),
    Range(Interval<'a>),
    /// `$exists: true` (bounds `[MinKey, MaxKey]`). Only wildcard indexes take it so far.
    Exists,
    /// A regular expression (`/re/` or `$regex`): its string range (its literal prefix's, when
    /// anchored) and the regex itself.
    Regex(Vec<Interval<'a>>),
    /// `$type`: the ranges of its types (`None`: a type without bounds here). Only wildcard
    /// indexes take it so far.
    Type(Option<Vec<Interval<'a>>>),
    /// `$ne: null`: every value but null and undefined. Only wildcard indexes take it so far,
    /// on a path without arrays (the server's `notEqualsNullCanUseIndex`).
    NotNull,
}

impl PredKind<'_> {
    /// A kind every index takes bounds from (the others only wildcard indexes so far).
    fn classic(&self) -> bool {
        matches!(self, PredKind::Points(_) | PredKind::Range(_) | PredKind::Regex(_))
    }
}

/// A value an equality can look up in an index: not an array (which also matches arrays
/// holding it), not a regex, not an operator document.
fn usable_point(v: &Bson) -> bool {
    match v {
        Bson::Array(_) | Bson::RegularExpression(_) => false,
        Bson::Document(d) => !d.keys().next().map(|k| k.starts_with('$')).unwrap_or(false),
        _ => true,
    }
}

fn usable_range_value(v: &Bson) -> bool {
    usable_point(v) && !matches!(v, Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey)
}

/// Where predicates are collected: with their paths in filter order (a filter has few), and a
/// counter of the `$elemMatch`es read.
#[derive(Default)]
struct Preds<'a> {
    list: Vec<(Cow<'a, str>, Pred<'a>)>,
    groups: usize,
    /// The path of each `$elemMatch` (group `g` at `g - 1`).
    group_paths: Vec<Cow<'a, str>>,
}

impl<'a> Preds<'a> {
    fn push(&mut self, path: &Cow<'a, str>, kind: PredKind<'a>, group: Option<usize>) {
        self.list.push((path.clone(), Pred { kind, group }));
    }

    /// The predicates on `path`.
    fn of<'p>(&'p self, path: &'p str) -> impl Iterator<Item = &'p Pred<'a>> + Clone {
        self.list.iter().filter(move |(p, _)| p == path).map(|(_, pred)| pred)
    }

    fn has(&self, path: &str) -> bool {
        self.list.iter().any(|(p, pred)| p == path && pred.kind.classic())
    }
}

/// The predicates of a filter's top level (and of `$and`, and inside `$elemMatch`) by path.
fn predicates<'a>(filter: &'a Document, prefix: &str, group: Option<usize>, out: &mut Preds<'a>) {
    for (k, v) in filter {
        if k == "$and" {
            if let Bson::Array(a) = v {
                for c in a {
                    if let Bson::Document(c) = c {
                        predicates(c, prefix, group, out);
                    }
                }
            }
            continue;
        }
        if k.starts_with('$') {
            continue;
        }
        let path = if prefix.is_empty() { Cow::Borrowed(k.as_str()) } else { Cow::Owned(format!("{prefix}.{k}")) };
        operator_predicates(&path, v, group, out);
    }
}

/// The predicates of `path: v` (a value or an operator document).
fn operator_predicates<'a>(path: &Cow<'a, str>, v: &'a Bson, group: Option<usize>, out: &mut Preds<'a>) {
    let ops = match v {
        Bson::Document(d) if d.keys().next().map(|k| k.starts_with('$')).unwrap_or(false) => d,
        Bson::RegularExpression(re) => {
            out.push(path, PredKind::Regex(regex_intervals(re.pattern.as_str(), re.options.as_str(), Cow::Borrowed(v))), group);
            return;
        }
        other => {
            if usable_point(other) {
                out.push(path, PredKind::Points(std::slice::from_ref(other)), group);
            }
            return;
        }
    };
    for (op, arg) in ops {
        let pred = match op.as_str() {
            "$eq" if usable_point(arg) => PredKind::Points(std::slice::from_ref(arg)),
            "$in" => match arg {
                Bson::Array(vals) if !vals.is_empty() && vals.iter().all(usable_point) => PredKind::Points(vals),
                _ => continue,
            },
            "$gt" | "$gte" | "$lt" | "$lte" if usable_range_value(arg) => {
                let ((min, min_incl), (max, max_incl)) = bracket(arg);
                let incl = op.ends_with('e');
                if value::Number::from_bson(arg).is_some_and(|n| n.is_nan()) {
                    // NaN is below every other number and equal only to itself: `$gte`/`$lte`
                    // match NaN alone, `$gt`/`$lt` nothing (the server's IndexBoundsBuilder).
                    PredKind::Range(Interval { lo: Cow::Borrowed(arg), lo_incl: incl, hi: Cow::Borrowed(arg), hi_incl: incl })
                } else if op.starts_with("$g") {
                    PredKind::Range(Interval { lo: Cow::Borrowed(arg), lo_incl: incl, hi: Cow::Owned(max), hi_incl: max_incl })
                } else {
                    PredKind::Range(Interval { lo: Cow::Owned(min), lo_incl: min_incl, hi: Cow::Borrowed(arg), hi_incl: incl })
                }
            }
            "$exists" if truthy(arg) => PredKind::Exists,
            "$type" => match crate::query::element::type_::TypeSet::parse(arg) {
                Ok(set) if !set.is_empty() => PredKind::Type(type_intervals(&set)),
                _ => continue,
            },
            "$ne" if matches!(arg, Bson::Null) => PredKind::NotNull,
            "$regex" => {
                let options = match ops.get("$options") {
                    Some(Bson::String(o)) => o.as_str(),
                    _ => "",
                };
                match arg {
                    Bson::String(p) => {
                        // A pattern or options holding a NUL byte is the matcher's error to report.
                        let (Ok(pattern), Ok(opts)) = (p.as_str().try_into(), options.try_into()) else { continue };
                        let re = Bson::RegularExpression(bson::Regex { pattern, options: opts });
                        PredKind::Regex(regex_intervals(p, options, Cow::Owned(re)))
                    }
                    Bson::RegularExpression(re) if options.is_empty() => PredKind::Regex(regex_intervals(re.pattern.as_str(), re.options.as_str(), Cow::Borrowed(arg))),
                    _ => continue,
                }
            }
            "$elemMatch" => {
                if let Bson::Document(inner) = arg {
                    out.groups += 1;
                    out.group_paths.push(path.clone());
                    let g = Some(out.groups);
                    if inner.keys().next().map(|k| k.starts_with('$')).unwrap_or(false) {
                        operator_predicates(path, arg, g, out);
                    } else {
                        predicates(inner, path, g, out);
                    }
                }
                continue;
            }
            _ => continue,
        };
        out.push(path, pred, group);
    }
}

/// Whether an `$exists` argument asks for presence (as the server reads it: any value but
/// `false`, `0`, `null` and `undefined`).
fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        other => value::Number::from_bson(other).map(|n| n.to_f64() != 0.0).unwrap_or(true),
    }
}

/// The ranges of a `$type` set, as the server's `IndexBoundsBuilder` makes them: each type
/// from its smallest to its largest value, both included (numbers from NaN to infinity,
/// strings from `""` to `{}`, documents from `{}` to `[]`); `array` takes every value (an
/// array is indexed by its elements). `None` for a type the engine has no bounds for.
fn type_intervals<'a>(set: &crate::query::element::type_::TypeSet) -> Option<Vec<Interval<'a>>> {
    let range = |lo: Bson, hi: Bson| Interval { lo: Cow::Owned(lo), lo_incl: true, hi: Cow::Owned(hi), hi_incl: true };
    let numbers = || range(Bson::Double(f64::NAN), Bson::Double(f64::INFINITY));
    let mut out = Vec::new();
    if set.all_numbers {
        out.push(numbers());
    }
    for t in &set.types {
        out.push(match t {
            1 | 16 | 18 | 19 => numbers(),
            2 => range(Bson::String(String::new()), Bson::Document(Document::new())),
            3 => range(Bson::Document(Document::new()), Bson::Array(Vec::new())),
            4 => return Some(vec![Interval::full()]),
            6 => Interval::point(Cow::Owned(Bson::Undefined)),
            7 => range(Bson::ObjectId(ObjectId::from_bytes([0; 12])), Bson::ObjectId(ObjectId::from_bytes([0xff; 12]))),
            8 => range(Bson::Boolean(false), Bson::Boolean(true)),
            9 => range(Bson::DateTime(bson::DateTime::MIN), Bson::DateTime(bson::DateTime::MAX)),
            10 => Interval::point(Cow::Owned(Bson::Null)),
            17 => range(Bson::Timestamp(bson::Timestamp { time: 0, increment: 0 }), Bson::Timestamp(bson::Timestamp { time: u32::MAX, increment: u32::MAX })),
            -1 => Interval::point(Cow::Owned(Bson::MinKey)),
            127 => Interval::point(Cow::Owned(Bson::MaxKey)),
            _ => return None,
        });
    }
    out.sort_by(|a, b| value::compare(&a.lo, &b.lo));
    // Merge the ranges that overlap (several numeric types share one).
    let mut merged: Vec<Interval<'a>> = Vec::with_capacity(out.len());
    for iv in out {
        match merged.last_mut() {
            Some(last) if value::compare(&iv.lo, &last.hi) != Ordering::Greater => {
                if value::compare(&iv.hi, &last.hi) == Ordering::Greater {
                    last.hi = iv.hi;
                    last.hi_incl = iv.hi_incl;
                }
            }
            _ => merged.push(iv),
        }
    }
    Some(merged)
}

/// The bounds of a regular expression, as the server's `IndexBoundsBuilder` makes them: the
/// strings starting with its literal prefix when it is anchored (`^abc` gives `["abc", "abd")`),
/// else every string, and the regex itself (a stored regex equal to it matches too).
fn regex_intervals<'a>(pattern: &str, options: &str, re: Cow<'a, Bson>) -> Vec<Interval<'a>> {
    let strings = match regex_prefix(pattern, options) {
        Some(prefix) => {
            let mut end = prefix.clone();
            let last = end.pop().map(|c| c as u32 + 1).and_then(char::from_u32);
            match last {
                Some(c) if c.is_ascii() => {
                    end.push(c);
                    Interval { lo: Cow::Owned(Bson::String(prefix)), lo_incl: true, hi: Cow::Owned(Bson::String(end)), hi_incl: false }
                }
                _ => all_strings(),
            }
        }
        None => all_strings(),
    };
    vec![strings, Interval::point(re)]
}

fn all_strings<'a>() -> Interval<'a> {
    Interval { lo: Cow::Owned(Bson::String(String::new())), lo_incl: true, hi: Cow::Owned(Bson::Document(Document::new())), hi_incl: false }
}

/// The literal prefix every match of an anchored regex starts with (`None`: no such prefix,
/// or flags that change what `^` or a letter matches).
fn regex_prefix(pattern: &str, options: &str) -> Option<String> {
    // An alternation anywhere may match without the prefix (`^a|b`).
    if options.contains('i') || options.contains('m') || options.contains('x') || pattern.contains('|') {
        return None;
    }
    let rest = pattern.strip_prefix('^').or_else(|| pattern.strip_prefix("\\A"))?;
    let mut prefix = String::new();
    for c in rest.chars() {
        match c {
            '*' | '?' | '{' => {
                prefix.pop();
                break;
            }
            '\\' | '^' | '$' | '.' | '|' | '+' | '(' | ')' | '[' | ']' | '}' => break,
            c => prefix.push(c),
        }
    }
    (!prefix.is_empty()).then_some(prefix)
}

/// Whether array path `array` (`a.b`) is at or above the path of `$elemMatch` group `g`: the
/// `$elemMatch` then holds one element of it for all its conditions.
fn covers(preds: &Preds, g: Option<usize>, array: &str) -> bool {
    let Some(path) = g.and_then(|g| preds.group_paths.get(g - 1)) else { return false };
    path == array || (path.starts_with(array) && path.as_bytes().get(array.len()) == Some(&b'.'))
}

/// The intervals of one key field from its predicates, with the `$elemMatch` they come from:
/// the points of an equality (less those the ranges rule out), else the ranges intersected. On
/// a field with arrays (`arrays`: their paths) two conditions combine only in one `$elemMatch`
/// whose path reaches every one of those arrays (else different elements may satisfy them: the
/// server's rule for multikey bounds).
fn field_intervals<'a, 'p>(preds: impl Iterator<Item = &'p Pred<'a>> + Clone, all: &Preds, arrays: &[String]) -> Option<(Vec<Interval<'a>>, Option<usize>)>
where
    'a: 'p,
{
    let combinable = |a: Option<usize>, b: Option<usize>| arrays.is_empty() || (a.is_some() && a == b && arrays.iter().all(|p| covers(all, a, p)));
    let ranges = || preds.clone().filter_map(|p| if let PredKind::Range(r) = &p.kind { Some((r, p.group)) } else { None });
    if let Some((points, group)) = preds.clone().find_map(|p| if let PredKind::Points(v) = p.kind { Some((v, p.group)) } else { None }) {
        let kept = |p: &Bson| ranges().all(|(r, g)| !combinable(group, g) || r.contains(p));
        let mut pts: Vec<&'a Bson> = points.iter().filter(|p| kept(p)).collect();
        if pts.len() > 1 {
            pts.sort_by(|a, b| value::compare(a, b));
            pts.dedup_by(|a, b| value::equal(a, b));
        }
        return Some((pts.into_iter().map(|p| Interval::point(Cow::Borrowed(p))).collect(), group));
    }
    let mut rs = ranges();
    let Some((first, group)) = rs.next().map(|(r, g)| (r.clone(), g)) else {
        // A regex alone: the strings of its literal prefix (all strings without one) and the
        // regex values themselves (the server's `IndexBoundsBuilder` for a regex).
        return preds.clone().find_map(|p| if let PredKind::Regex(ivs) = &p.kind { Some((ivs.clone(), p.group)) } else { None });
    };
    let mut acc = Some(first);
    for (r, g) in rs {
        if combinable(group, g) {
            acc = acc.and_then(|a| a.intersect(r));
        }
    }
    Some((acc.into_iter().collect(), group))
}

/// A scan of one index over bounds.
#[derive(Debug, Clone)]
pub(crate) struct IxScan<'a> {
    /// The index's position in `Collection::indexes`.
    pub index: usize,
    /// Intervals per key field, in ascending value order.
    bounds: Vec<Vec<Interval<'a>>>,
    /// Scan the index backwards (for a sort in the opposite direction).
    pub reverse: bool,
    /// The scan returns documents in the requested sort order.
    pub provides_sort: bool,
    /// `min()`/`max()`: the keys from the first (included) to the second (excluded), in index
    /// order, instead of per-field bounds.
    key_range: Option<(Vec<u8>, Vec<u8>)>,
    /// A wildcard index expanded for one queried path (`bounds` are then on `$_path` and the
    /// value).
    wildcard: Option<WildScan>,
}

/// The path a wildcard index is expanded for.
#[derive(Debug, Clone)]
pub(crate) struct WildScan {
    /// The queried path (the expanded index's key field).
    path: String,
    /// Its prefixes that are arrays in some indexed document (the expanded index's
    /// `multiKeyPaths`).
    multikey: Vec<String>,
}

/// How a read finds its documents.
#[derive(Debug, Clone)]
pub(crate) enum Plan<'a> {
    /// `_id` equalities looked up in the `_id_` index.
    IdHack { ids: Vec<Bson> },
    Ixscan(IxScan<'a>),
    /// The union of index scans, one per `$or` branch.
    Or(Vec<IxScan<'a>>),
    CollScan { reverse: bool },
}

impl Plan<'_> {
    /// True when the plan returns documents in the requested sort order.
    pub fn provides_sort(&self) -> bool {
        match self {
            Plan::Ixscan(s) => s.provides_sort,
            Plan::CollScan { reverse } => *reverse,
            _ => false,
        }
    }
}

/// The keys of a sort specification (field, ascending), `None` for `$natural`.
fn sort_keys(sort: Option<&Sort>) -> Option<Vec<(String, bool)>> {
    match sort {
        Some(Sort::Spec(s)) => Some(s.keys()),
        _ => None,
    }
}

/// The index scan of `ix` for `preds`, if the index can bound the filter or give the sort.
fn candidate<'a>(i: usize, ix: &Index, preds: &Preds<'a>, sort: Option<&[(String, bool)]>) -> Option<IxScan<'a>> {
    let (scan, bounded) = index_scan(i, ix, preds, sort);
    if !bounded && !scan.provides_sort {
        return None;
    }
    Some(scan)
}

/// The scan of `ix` for `preds` and `sort`, and whether its leading field is bounded.
fn index_scan<'a>(i: usize, ix: &Index, preds: &Preds<'a>, sort: Option<&[(String, bool)]>) -> (IxScan<'a>, bool) {
    let fields: Vec<&String> = ix.key.keys().collect();
    let paths = |pos: usize| ix.multikey_paths.get(pos).map(Vec::as_slice).unwrap_or(&[]);
    let mut bounds: Vec<Vec<Interval<'a>>> = Vec::with_capacity(fields.len());
    let mut groups: Vec<Option<usize>> = Vec::with_capacity(fields.len());
    let mut eq_prefix = 0;
    let mut bounding = true;
    for (pos, f) in fields.iter().enumerate() {
        // A path that names an array element by position (`a.0`) has keys that are whole
        // arrays where that element is one (the server's key generator does not expand it):
        // conditions inside an `$elemMatch` give it no bounds. Nor does an equality to null:
        // the documents in that array that lack the field match it, and the key is the
        // positional element.
        let positional = f.split('.').skip(1).any(|c| value::path::array_index(c).is_some());
        let mut iv = match (bounding, positional) {
            (false, _) => None,
            (true, false) => field_intervals(preds.of(f), preds, paths(pos)),
            (true, true) => field_intervals(preds.of(f).filter(|p| p.group.is_none() && !p.has_null()), preds, paths(pos)),
        };
        // Fields through one array combine bounds only under one `$elemMatch` that holds an
        // element of it.
        if let Some((_, g)) = &iv {
            let conflict = (0..pos).any(|earlier| {
                paths(earlier).iter().filter(|p| paths(pos).contains(p)).any(|p| !(g.is_some() && groups[earlier] == *g && covers(preds, *g, p)))
            });
            if conflict {
                iv = None;
            }
        }
        match iv.map(|(iv, g)| {
            groups.push(g);
            iv
        }) {
            Some(iv) => {
                let single_point = iv.len() == 1 && iv[0].is_point();
                if single_point && eq_prefix == bounds.len() {
                    eq_prefix += 1;
                }
                if !iv.iter().all(Interval::is_point) {
                    bounding = false;
                }
                bounds.push(iv);
            }
            None => {
                groups.push(None);
                bounding = false;
                bounds.push(vec![Interval::full()]);
            }
        }
    }
    let bounded = bounds.first().map(|b| !(b.len() == 1 && *b[0].lo == Bson::MinKey && *b[0].hi == Bson::MaxKey)).unwrap_or(false);
    // The sort the index gives after its equality prefix (fields fixed by the prefix drop out).
    let (provides_sort, reverse) = match sort {
        Some(keys) if (eq_prefix..fields.len()).take(keys.len()).all(|p| paths(p).is_empty()) => {
            let prefix: Vec<&String> = fields[..eq_prefix].to_vec();
            let rest: Vec<&(String, bool)> = keys.iter().filter(|(k, _)| !prefix.contains(&k)).collect();
            let mut dir: Option<bool> = None;
            let mut ok = rest.len() <= fields.len() - eq_prefix;
            for (j, (k, asc)) in rest.iter().enumerate() {
                if !ok {
                    break;
                }
                let pos = eq_prefix + j;
                let same = fields[pos] == k && ix.is_descending(pos) != *asc;
                let opposite = fields[pos] == k && ix.is_descending(pos) == *asc;
                match (dir, same, opposite) {
                    (None, true, _) => dir = Some(false),
                    (None, _, true) => dir = Some(true),
                    (Some(false), true, _) | (Some(true), _, true) => {}
                    _ => ok = false,
                }
            }
            (ok, dir.unwrap_or(false))
        }
        _ => (false, false),
    };
    (IxScan { index: i, bounds, reverse, provides_sort, key_range: None, wildcard: None }, bounded)
}

/// Whether a predicate can take bounds from a wildcard index, as the server's
/// `nodeIsSupportedByWildcardIndex` and sparse-index rules decide: the index holds leaves, not
/// whole documents or arrays (only `{}` is a leaf, for `$eq`/`$lte`), and it is sparse (no
/// equality to null: a missing field matches it).
fn wildcard_usable(kind: &PredKind) -> bool {
    let is_doc = |v: &Bson| matches!(v, Bson::Document(_) | Bson::Array(_));
    let empty_doc = |v: &Bson| matches!(v, Bson::Document(d) if d.is_empty());
    match kind {
        PredKind::Points(vs) => vs.iter().all(|v| !matches!(v, Bson::Null | Bson::Undefined) && (!is_doc(v) || empty_doc(v))),
        // `$lte: {}` is the only range on documents a wildcard index answers (`[{}, {}]`).
        PredKind::Range(r) => !(is_doc(&r.lo) || is_doc(&r.hi)) || (empty_doc(&r.lo) && empty_doc(&r.hi) && r.lo_incl && r.hi_incl),
        PredKind::Exists | PredKind::Regex(_) | PredKind::NotNull => true,
        PredKind::Type(ivs) => ivs.is_some(),
    }
}

/// The intervals of one predicate on a wildcard path.
fn wildcard_pred_intervals<'a>(kind: &PredKind<'a>) -> Vec<Interval<'a>> {
    match kind {
        PredKind::Points(vs) => {
            let mut pts: Vec<&'a Bson> = vs.iter().collect();
            pts.sort_by(|a, b| value::compare(a, b));
            pts.dedup_by(|a, b| value::equal(a, b));
            pts.into_iter().map(|p| Interval::point(Cow::Borrowed(p))).collect()
        }
        PredKind::Range(r) => vec![r.clone()],
        PredKind::Exists => vec![Interval::full()],
        PredKind::Regex(ivs) => ivs.clone(),
        PredKind::Type(ivs) => ivs.clone().unwrap_or_default(),
        PredKind::NotNull => vec![
            Interval { lo: Cow::Owned(Bson::MinKey), lo_incl: true, hi: Cow::Owned(Bson::Undefined), hi_incl: false },
            Interval { lo: Cow::Owned(Bson::Null), lo_incl: false, hi: Cow::Owned(Bson::MaxKey), hi_incl: true },
        ],
    }
}

/// The intersection of two ascending lists of disjoint intervals.
fn intersect_lists<'a>(a: &[Interval<'a>], b: &[Interval<'a>]) -> Vec<Interval<'a>> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if let Some(i) = x.intersect(y) {
                out.push(i);
            }
        }
    }
    out.sort_by(|x, y| value::compare(&x.lo, &y.lo));
    out
}

/// Whether intervals reach into the documents strictly between `{}` and `[]`, which a
/// wildcard index holds only as their leaves (the server's `boundsOverlapObjectTypeBracket`).
fn overlaps_objects(ivs: &[Interval]) -> bool {
    let empty_doc = Bson::Document(Document::new());
    let empty_array = Bson::Array(Vec::new());
    ivs.iter().any(|iv| value::compare(&iv.lo, &empty_array) == Ordering::Less && value::compare(&iv.hi, &empty_doc) == Ordering::Greater)
}

/// The scan of wildcard index `ix` (at `i`) expanded for query path `path`, as the server's
/// `planner_wildcard_helpers` build it: `None` when the index does not hold the path, no
/// predicate on it can use the index, or the path names an array element by position.
fn wildcard_scan<'a>(i: usize, ix: &Index, path: &str, preds: &Preds<'a>, sort: Option<&[(String, bool)]>) -> Option<IxScan<'a>> {
    let w = ix.wildcard.as_ref()?;
    if path.is_empty() || path.starts_with('$') || !w.covers(path) {
        return None;
    }
    // The prefixes of the path that are arrays in some document.
    let parts: Vec<&str> = path.split('.').collect();
    let mut multikey: Vec<String> = Vec::new();
    let mut multikey_at: Vec<usize> = Vec::new();
    for k in 0..parts.len() {
        let prefix = parts[..=k].join(".");
        if w.multikey.contains(&prefix) {
            multikey.push(prefix);
            multikey_at.push(k);
        }
    }
    // A numeric component after an array may name an element by position: the server then
    // scans every spelling of the path with and without those components (and refuses
    // nested positions or more than eight). The engine keeps to the paths it can bound
    // exactly: no wildcard plan for them.
    let positional = multikey_at.iter().filter(|k| **k + 1 < parts.len() && value::path::array_index(parts[**k + 1]).is_some()).count();
    if positional > 0 {
        return None;
    }
    // The predicates on the path, combined as a multikey path allows (two conditions on an
    // array's path combine only within one `$elemMatch` over it).
    let usable: Vec<&Pred<'a>> = preds.of(path).filter(|p| wildcard_usable(&p.kind) && !(matches!(p.kind, PredKind::NotNull) && !multikey.is_empty())).collect();
    let first = *usable.first()?;
    let first = usable.iter().find(|p| matches!(p.kind, PredKind::Points(_))).copied().unwrap_or(first);
    let combinable = |a: Option<usize>, b: Option<usize>| multikey.is_empty() || (a.is_some() && a == b && multikey.iter().all(|p| covers(preds, a, p)));
    let mut ivs = wildcard_pred_intervals(&first.kind);
    for p in &usable {
        if std::ptr::eq(*p, first) || !combinable(first.group, p.group) {
            continue;
        }
        ivs = match &first.kind {
            PredKind::Points(_) => ivs.into_iter().filter(|pt| wildcard_pred_intervals(&p.kind).iter().any(|iv| iv.contains(&pt.lo))).collect(),
            _ => intersect_lists(&ivs, &wildcard_pred_intervals(&p.kind)),
        };
    }
    // Bounds reaching into documents need every subpath of the path: `["path.", "path/")`.
    let subpath = overlaps_objects(&ivs);
    if subpath && !(ivs.len() == 1 && *ivs[0].lo == Bson::MinKey && *ivs[0].hi == Bson::MaxKey) {
        ivs = vec![Interval::full()];
    }
    let mut paths = vec![Interval::point(Cow::Owned(Bson::String(path.to_string())))];
    if subpath {
        paths.push(Interval { lo: Cow::Owned(Bson::String(format!("{path}."))), lo_incl: true, hi: Cow::Owned(Bson::String(format!("{path}/"))), hi_incl: false });
    }
    // The index gives a sort on the path alone, when no array is on it.
    let (provides_sort, reverse) = match sort {
        Some([(k, asc)]) if k == path && multikey.is_empty() && !subpath => (true, ix.is_descending(1) == *asc),
        _ => (false, false),
    };
    Some(IxScan { index: i, bounds: vec![paths, ivs], reverse, provides_sort, key_range: None, wildcard: Some(WildScan { path: path.to_string(), multikey }) })
}

/// The scans of wildcard index `ix` (at `i`), one per queried path it can serve, in filter
/// order.
fn wildcard_scans<'a>(i: usize, ix: &Index, preds: &Preds<'a>, sort: Option<&[(String, bool)]>) -> Vec<IxScan<'a>> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (p, _) in &preds.list {
        if seen.contains(&p.as_ref()) {
            continue;
        }
        seen.push(p);
        if let Some(scan) = wildcard_scan(i, ix, p, preds, sort) {
            out.push(scan);
        }
    }
    out
}

/// Plans a read of `coll` with `filter` (and `sort`, `skip + limit` when known). A `hint` (an
/// index name, a key pattern or `{ $natural: 1 | -1 }`) forces the plan.
pub(crate) fn plan_with_hint<'a>(coll: &Collection, filter: &'a Document, sort: Option<&Sort>, want: Option<usize>, hint: Option<&Bson>) -> Result<Plan<'a>> {
    let Some(hint) = hint else { return Ok(plan(coll, filter, sort, want)) };
    let found = match hint {
        Bson::String(name) => coll.indexes.iter().position(|ix| &ix.name == name),
        Bson::Document(d) => {
            if let (1, Some(dir)) = (d.len(), d.get("$natural")) {
                let reverse = value::Number::from_bson(dir).map(|n| n.to_f64() < 0.0).unwrap_or(false);
                return Ok(Plan::CollScan { reverse });
            }
            coll.indexes.iter().position(|ix| value::compare_documents(&ix.key, d) == Ordering::Equal)
        }
        _ => None,
    };
    let Some(i) = found else {
        return Err(Error::bad_value("hint provided does not correspond to an existing index"));
    };
    let mut collected = Preds::default();
    predicates(filter, "", None, &mut collected);
    let keys = sort_keys(sort);
    let ix = &coll.indexes[i];
    if ix.wildcard.is_some() {
        // The hinted wildcard index expanded for the queried path it scans the fewest keys
        // for; the server refuses to scan a whole wildcard index.
        let best = wildcard_scans(i, ix, &collected, keys.as_deref()).into_iter().min_by_key(|s| count_keys(ix, s));
        return match best {
            Some(scan) => Ok(Plan::Ixscan(scan)),
            None => Err(Error::code(291, "$hint: refusing to build whole-index solution, because it's a wildcard index")),
        };
    }
    Ok(Plan::Ixscan(index_scan(i, ix, &collected, keys.as_deref()).0))
}

/// Plans a read with `min()`/`max()` (`{}` when not given): a scan of the hinted index from
/// the `min` key (included) to the `max` key (excluded), with the server's checks.
pub(crate) fn plan_min_max<'a>(coll: &Collection, filter: &'a Document, sort: Option<&Sort>, hint: Option<&Bson>, min: &Document, max: &Document) -> Result<Plan<'a>> {
    if !min.is_empty() && !max.is_empty() && (min.len() != max.len() || min.keys().zip(max.keys()).any(|(a, b)| a != b)) {
        return Err(Error::code(51176, "min and max must have the same field names"));
    }
    let i = match hint {
        Some(Bson::Document(d)) if d.contains_key("$natural") => {
            return Err(Error::code(291, "min and max are incompatible with $natural"));
        }
        Some(h) => match plan_with_hint(coll, filter, sort, None, Some(h))? {
            Plan::Ixscan(s) => s.index,
            _ => return Err(Error::code(291, "min and max are incompatible with $natural")),
        },
        None => return Err(Error::code(51173, "When using min()/max() a hint of which index to use must be provided")),
    };
    let ix = &coll.indexes[i];
    if ix.wildcard.is_some() {
        return Err(Error::code(51174, "The index chosen is not compatible with min/max"));
    }
    let compatible = |d: &Document| d.is_empty() || (d.len() == ix.key.len() && d.keys().zip(ix.key.keys()).all(|(a, b)| a == b));
    if !compatible(min) || !compatible(max) {
        return Err(Error::code(51174, "The index chosen is not compatible with min/max"));
    }
    // An empty bound is the start (or end) of the index.
    let edge = |first: bool| {
        let mut key = Vec::new();
        for p in 0..ix.key.len() {
            keystring::append_dir(&fill(ix.is_descending(p), first), ix.is_descending(p), &mut key);
        }
        key
    };
    let start = if min.is_empty() { edge(true) } else { ix.index_key(min) };
    let end = if max.is_empty() { edge(false) } else { ix.index_key(max) };
    if start >= end {
        return Err(Error::code(51175, "The value provided for min() does not come before the value provided for max() in the hinted index"));
    }
    let mut collected = Preds::default();
    predicates(filter, "", None, &mut collected);
    let keys = sort_keys(sort);
    let (mut scan, _) = index_scan(i, ix, &collected, keys.as_deref());
    scan.bounds = vec![vec![Interval::full()]; ix.key.len()];
    scan.provides_sort = scan.provides_sort && !scan.reverse;
    scan.reverse = false;
    scan.key_range = Some((start, end));
    Ok(Plan::Ixscan(scan))
}

/// Plans a read of `coll` with `filter` (and `sort`, `skip + limit` when known).
pub(crate) fn plan<'a>(coll: &Collection, filter: &'a Document, sort: Option<&Sort>, want: Option<usize>) -> Plan<'a> {
    if let Some(Sort::Natural { reverse }) = sort {
        return Plan::CollScan { reverse: *reverse };
    }
    if let Some(ids) = id_equalities(filter) {
        if coll.has_id_index() {
            return Plan::IdHack { ids };
        }
    }
    let mut preds = Preds { list: Vec::with_capacity(filter.len()), groups: 0, group_paths: Vec::new() };
    predicates(filter, "", None, &mut preds);
    let sort_keys = sort_keys(sort);
    let consumed = filter.keys().all(|k| preds.has(k));
    let mut candidates: Vec<(&Index, IxScan)> = coll
        .indexes
        .iter()
        .enumerate()
        .filter(|(_, ix)| !ix.is_partial() && !ix.sparse && ix.wildcard.is_none())
        // Without a sort, an index is a candidate only when the filter bounds its first field.
        .filter(|(_, ix)| sort_keys.is_some() || ix.key.keys().next().is_some_and(|f| preds.has(f)))
        .filter_map(|(i, ix)| candidate(i, ix, &preds, sort_keys.as_deref()).map(|scan| (ix, scan)))
        .collect();
    // A wildcard index is a candidate once per queried path it serves (never for a sort alone:
    // it is sparse).
    for (i, ix) in coll.indexes.iter().enumerate() {
        if ix.wildcard.is_some() && !ix.is_partial() {
            candidates.extend(wildcard_scans(i, ix, &preds, sort_keys.as_deref()).into_iter().map(|scan| (ix, scan)));
        }
    }
    // One candidate needs no costing (counting its keys walks its bounds).
    let only_one = candidates.len() == 1;
    let mut best: Option<(usize, IxScan)> = None;
    for (ix, scan) in candidates {
        let keys = if only_one { 0 } else { count_keys_upto(ix, &scan, best.as_ref().map_or(usize::MAX, |(c, _)| *c)) };
        let cost = match want {
            Some(n) if scan.provides_sort && consumed => keys.min(n),
            _ => keys,
        };
        let better = match &best {
            None => true,
            Some((c, b)) => cost < *c || (cost == *c && scan.provides_sort && !b.provides_sort),
        };
        if better {
            best = Some((cost, scan));
        }
    }
    if let Some((_, scan)) = best {
        return Plan::Ixscan(scan);
    }
    if let Some(Bson::Array(branches)) = filter.get("$or") {
        let mut scans = Vec::new();
        for b in branches {
            let Bson::Document(b) = b else { return Plan::CollScan { reverse: false } };
            match plan(coll, b, None, None) {
                Plan::Ixscan(s) => scans.push(s),
                Plan::IdHack { ids } => match id_scan(coll, ids) {
                    Some(s) => scans.push(s),
                    None => return Plan::CollScan { reverse: false },
                },
                _ => return Plan::CollScan { reverse: false },
            }
        }
        if !scans.is_empty() {
            return Plan::Or(scans);
        }
    }
    Plan::CollScan { reverse: false }
}

/// An `_id` equality as a scan of the `_id` index (inside an `$or`).
fn id_scan<'a>(coll: &Collection, ids: Vec<Bson>) -> Option<IxScan<'a>> {
    let index = coll.indexes.iter().position(Index::is_id)?;
    let mut pts = ids;
    pts.sort_by(value::compare);
    pts.dedup_by(|a, b| value::equal(a, b));
    Some(IxScan { index, bounds: vec![pts.into_iter().map(|p| Interval::point(Cow::Owned(p))).collect()], reverse: false, provides_sort: false, key_range: None, wildcard: None })
}

/// The value that sorts first (`low`) or last in a field's index order.
fn fill(descending: bool, low: bool) -> Bson {
    if descending == low {
        Bson::MaxKey
    } else {
        Bson::MinKey
    }
}

/// How many key ranges a scan seeks at most (the product of its leading fields' intervals).
const MAX_SEEK_RANGES: usize = 4096;

/// The key ranges of a scan, in index order: the combinations of the leading point fields'
/// values, then the intervals of the next field; later fields unbounded (checked per key).
fn ranges(ix: &Index, scan: &IxScan) -> Vec<(Vec<u8>, Vec<u8>)> {
    let n = scan.bounds.len();
    // How many leading fields take part in the seek keys.
    let mut depth = 0;
    while depth < n && scan.bounds[depth].iter().all(Interval::is_point) {
        depth += 1;
    }
    let mut seek = (depth + 1).min(n);
    // The seek keys are the product of the leading fields' intervals: past a bound, seek on
    // fewer fields (the keys in between are still checked against every field's bounds), so
    // `$in` lists on a compound index cannot multiply into millions of ranges.
    while seek > 1 && scan.bounds[..seek].iter().try_fold(1usize, |p, ivs| p.checked_mul(ivs.len()).filter(|p| *p <= MAX_SEEK_RANGES)).is_none() {
        seek -= 1;
    }
    // The combinations of the seek fields' intervals, each field's in index order.
    let mut combos: Vec<Vec<&Interval>> = vec![Vec::with_capacity(seek)];
    for (i, ivs) in scan.bounds.iter().enumerate().take(seek) {
        let in_order = |k: usize| if ix.is_descending(i) { &ivs[ivs.len() - 1 - k] } else { &ivs[k] };
        if ivs.len() == 1 {
            for c in &mut combos {
                c.push(&ivs[0]);
            }
            continue;
        }
        let mut next = Vec::with_capacity(combos.len() * ivs.len());
        for c in &combos {
            for k in 0..ivs.len() {
                let mut c2 = c.clone();
                c2.push(in_order(k));
                next.push(c2);
            }
        }
        combos = next;
    }
    combos
        .into_iter()
        .map(|c| {
            let mut start = Vec::with_capacity(16 * n);
            let mut end = Vec::with_capacity(16 * n);
            for (i, iv) in c.iter().enumerate() {
                let desc = ix.is_descending(i);
                let (a, b) = if desc { (&*iv.hi, &*iv.lo) } else { (&*iv.lo, &*iv.hi) };
                keystring::append_dir(a, desc, &mut start);
                keystring::append_dir(b, desc, &mut end);
            }
            for i in c.len()..n {
                let desc = ix.is_descending(i);
                keystring::append_dir(&fill(desc, true), desc, &mut start);
                keystring::append_dir(&fill(desc, false), desc, &mut end);
            }
            (start, end)
        })
        .collect()
}

/// A scan's bounds as byte strings, per key field in the field's index order: each interval's
/// first and last encoded key part, with whether it is included (`None`: the field is not
/// bounded).
struct KeyBounds {
    fields: Vec<Option<Vec<(Vec<u8>, bool, Vec<u8>, bool)>>>,
    /// The number of leading fields a key must be checked on.
    checked: usize,
}

impl KeyBounds {
    fn new(ix: &Index, scan: &IxScan) -> KeyBounds {
        let fields: Vec<Option<Vec<(Vec<u8>, bool, Vec<u8>, bool)>>> = scan
            .bounds
            .iter()
            .enumerate()
            .map(|(i, ivs)| {
                let full = ivs.iter().any(|iv| *iv.lo == Bson::MinKey && iv.lo_incl && *iv.hi == Bson::MaxKey && iv.hi_incl);
                if full {
                    return None;
                }
                let desc = ix.is_descending(i);
                let enc = |v: &Bson| {
                    let mut out = Vec::new();
                    keystring::append_dir(v, desc, &mut out);
                    out
                };
                Some(
                    ivs.iter()
                        .map(|iv| if desc { (enc(&iv.hi), iv.hi_incl, enc(&iv.lo), iv.lo_incl) } else { (enc(&iv.lo), iv.lo_incl, enc(&iv.hi), iv.hi_incl) })
                        .collect(),
                )
            })
            .collect();
        let checked = fields.iter().rposition(Option::is_some).map_or(0, |p| p + 1);
        KeyBounds { fields, checked }
    }

    /// True when every component of `key` is inside its field's bounds.
    fn contains(&self, ix: &Index, key: &[u8]) -> bool {
        let mut pos = 0;
        for (i, field) in self.fields.iter().take(self.checked).enumerate() {
            let desc = ix.is_descending(i);
            let Some(n) = key.get(pos..).and_then(|rest| keystring::value_len(rest, desc)) else { return false };
            let part = &key[pos..pos + n];
            pos += n;
            if let Some(ivs) = field {
                let inside = ivs.iter().any(|(lo, lo_incl, hi, hi_incl)| {
                    let a = part.cmp(&lo[..]);
                    let b = part.cmp(&hi[..]);
                    (a == Ordering::Greater || (a == Ordering::Equal && *lo_incl)) && (b == Ordering::Less || (b == Ordering::Equal && *hi_incl))
                });
                if !inside {
                    return false;
                }
            }
        }
        true
    }
}

/// Walks a scan: each key in bounds with its record ids, in scan order. `visit` returns false
/// to stop.
fn walk(ix: &Index, scan: &IxScan, mut visit: impl FnMut(&[u8], u64) -> bool) {
    if let Some((start, end)) = &scan.key_range {
        ix.entries().scan(Bound::Included(&start[..]), Bound::Excluded(&end[..]), scan.reverse, visit);
        return;
    }
    let mut rs = ranges(ix, scan);
    if scan.reverse {
        rs.reverse();
    }
    let bounds = KeyBounds::new(ix, scan);
    // The verdict on the last key (the entries of one key are consecutive).
    let mut last: (Vec<u8>, bool) = (Vec::new(), false);
    for (start, end) in rs {
        if start > end {
            continue;
        }
        let mut go_on = true;
        ix.entries().scan(Bound::Included(&start[..]), Bound::Included(&end[..]), scan.reverse, |k, rid| {
            if last.0 != k {
                last = (k.to_vec(), bounds.contains(ix, k));
            }
            go_on = !last.1 || visit(k, rid);
            go_on
        });
        if !go_on {
            return;
        }
    }
}

/// The number of keys a scan examines.
fn count_keys(ix: &Index, scan: &IxScan) -> usize {
    count_keys_upto(ix, scan, usize::MAX)
}

/// [`count_keys`], stopping once past `cap` (a plan that examines more keys than the best so
/// far loses whatever its exact count: costing never walks much more than the winner does).
fn count_keys_upto(ix: &Index, scan: &IxScan, cap: usize) -> usize {
    let mut n = 0;
    walk(ix, scan, |_, _| {
        n += 1;
        n <= cap
    });
    n
}

/// Runs a plan: `visit` gets each record it yields (its id, and the record itself when the plan
/// has it at hand: a collection scan), in plan order and once each, and returns whether to go
/// on. Returns the number of index keys examined.
pub(crate) fn execute<'c>(coll: &'c Collection, plan: &Plan, mut visit: impl FnMut(u64, Option<&'c Record>) -> Result<bool>) -> Result<u64> {
    let mut seen = HashSet::new();
    // One scan of an index without arrays meets each record once (its one key, in one of the
    // disjoint ranges): no need to remember the records seen.
    let once = match plan {
        Plan::Ixscan(scan) => coll.indexes.get(scan.index).map(|ix| !ix.multikey && ix.wildcard.is_none()).unwrap_or(false),
        _ => false,
    };
    let mut keys = 0u64;
    let mut error = None;
    let mut each_key = |rids: &mut dyn Iterator<Item = u64>, keys: &mut u64| -> bool {
        for r in rids {
            *keys += 1;
            if once || seen.insert(r) {
                match visit(r, None) {
                    Ok(true) => {}
                    Ok(false) => return false,
                    Err(e) => {
                        error = Some(e);
                        return false;
                    }
                }
            }
        }
        true
    };
    match plan {
        Plan::IdHack { ids } => {
            let mut rids: Vec<u64> = ids.iter().filter_map(|v| coll.rid_by_id(v)).collect();
            rids.sort_unstable();
            rids.dedup();
            each_key(&mut rids.into_iter(), &mut keys);
            keys = ids.len() as u64;
        }
        Plan::Ixscan(scan) => {
            if let Some(ix) = coll.indexes.get(scan.index) {
                walk(ix, scan, |_, rid| each_key(&mut std::iter::once(rid), &mut keys));
            }
        }
        Plan::Or(scans) => {
            let mut go_on = true;
            for scan in scans {
                if let Some(ix) = coll.indexes.get(scan.index) {
                    walk(ix, scan, |_, rid| {
                        go_on = each_key(&mut std::iter::once(rid), &mut keys);
                        go_on
                    });
                }
                if !go_on {
                    break;
                }
            }
        }
        Plan::CollScan { reverse } => {
            let records: Box<dyn Iterator<Item = (u64, &Record)>> = if *reverse { Box::new(coll.iter().rev()) } else { Box::new(coll.iter()) };
            for (r, record) in records {
                match visit(r, Some(record)) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => return Err(e),
                }
            }
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(keys),
    }
}

/// The plan as explain's `winningPlan` shows it.
pub(crate) fn describe(coll: Option<&Collection>, plan: &Plan, filter: &Document) -> Document {
    let ixscan = |scan: &IxScan| -> Document {
        let Some(ix) = coll.and_then(|c| c.indexes.get(scan.index)) else { return doc! {"stage": "IXSCAN"} };
        // A wildcard index shows as the index it was expanded to: `{ $_path: 1, <path>: ±1 }`.
        let (key_pattern, multikey, multikey_paths) = match &scan.wildcard {
            Some(w) => {
                let dir = ix.key.values().next().cloned().unwrap_or(Bson::Int32(1));
                let mut kp = doc! {"$_path": 1};
                kp.insert(w.path.clone(), dir);
                let mut mk = doc! {"$_path": Vec::<Bson>::new()};
                mk.insert(w.path.clone(), w.multikey.clone());
                (kp, !w.multikey.is_empty(), mk)
            }
            None => {
                let mut mk = Document::new();
                for (f, paths) in ix.key.keys().zip(&ix.multikey_paths) {
                    let mut paths = paths.clone();
                    paths.sort_by_key(|p| p.split('.').count());
                    mk.insert(f.clone(), paths);
                }
                (ix.key.clone(), ix.multikey, mk)
            }
        };
        let mut bounds = Document::new();
        for (i, (f, ivs)) in key_pattern.keys().zip(&scan.bounds).enumerate() {
            let mut ivs: Vec<String> = ivs.iter().map(|iv| iv.render(ix.is_descending(i) != scan.reverse)).collect();
            if ix.is_descending(i) != scan.reverse {
                ivs.reverse();
            }
            bounds.insert(f.clone(), ivs);
        }
        doc! {
            "stage": "IXSCAN",
            "keyPattern": key_pattern,
            "indexName": ix.name.clone(),
            "isMultiKey": multikey,
            "multiKeyPaths": multikey_paths,
            "isUnique": ix.unique,
            "isSparse": ix.sparse,
            "isPartial": ix.is_partial(),
            "indexVersion": 2,
            "direction": if scan.reverse { "backward" } else { "forward" },
            "indexBounds": bounds,
        }
    };
    let fetch = |input: Document| -> Document {
        let mut d = doc! {"stage": "FETCH"};
        if !filter.is_empty() {
            d.insert("filter", filter.clone());
        }
        d.insert("inputStage", input);
        d
    };
    match plan {
        Plan::IdHack { .. } => doc! {"stage": "EXPRESS_IDHACK", "keyPattern": {"_id": 1}, "indexName": "_id_"},
        Plan::Ixscan(scan) => fetch(ixscan(scan)),
        Plan::Or(scans) => fetch(doc! {"stage": "OR", "inputStages": scans.iter().map(|s| Bson::Document(ixscan(s))).collect::<Vec<_>>()}),
        Plan::CollScan { reverse } => {
            let mut d = doc! {"stage": "COLLSCAN"};
            if !filter.is_empty() {
                d.insert("filter", filter.clone());
            }
            d.insert("direction", if *reverse { "backward" } else { "forward" });
            d
        }
    }
}
