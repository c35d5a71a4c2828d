//! Reading a collection for a command: the plan (see `planner`), the filter, sort, skip and
//! limit, with the cost counters charged as keys and documents are examined.

use bson::{Bson, Document};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::expr::VarScope;
use crate::query::sort::SortSpec;
use crate::query::{MatchDetails, Matcher};

use super::collection::{Collection, Record};
use super::{keystring, planner};

/// A parsed filter with the document it came from (the planner reads the document).
pub(crate) struct Filter<'a> {
    pub doc: &'a Document,
    /// `None` for `{}`.
    matcher: Option<Matcher>,
    /// Only an equality on `_id`: lookups in the `_id_` index answer it exactly.
    id_only: bool,
    /// The command's `hint`.
    hint: Option<Bson>,
    /// The command's `min` and `max` (`{}` when not given), when either is given.
    min_max: Option<(Document, Document)>,
    /// What the server's executor adds to errors raised while the plan runs
    /// (`Plan executor error during update`); `None` leaves them bare.
    executor: Option<String>,
}

impl<'a> Filter<'a> {
    /// Parses a filter whose `$expr` may use the variables of `env` (the command's `let`).
    pub fn parse(doc: &'a Document, env: &Env) -> Result<Filter<'a>> {
        let matcher = if doc.is_empty() {
            None
        } else {
            Some(Matcher::parse_with_scope(doc, &VarScope::with_names(env.vars.keys().cloned()))?)
        };
        let id_only = doc.len() == 1 && super::collection::id_equalities(doc).is_some();
        Ok(Filter { doc, matcher, id_only, hint: None, min_max: None, executor: None })
    }

    /// The same filter with a `hint` (an index name, key pattern or `{ $natural: 1 }`).
    pub fn with_hint(mut self, hint: Option<&Bson>) -> Filter<'a> {
        self.hint = hint.filter(|h| !matches!(h, Bson::Null)).cloned();
        self
    }

    /// The same filter read between the index keys `min` (included) and `max` (excluded) of
    /// the hinted index (a find's `min()`/`max()`).
    pub fn with_min_max(mut self, min: Option<&Document>, max: Option<&Document>) -> Filter<'a> {
        if min.is_some_and(|d| !d.is_empty()) || max.is_some_and(|d| !d.is_empty()) {
            self.min_max = Some((min.cloned().unwrap_or_default(), max.cloned().unwrap_or_default()));
        }
        self
    }

    /// The same filter run by an executor that adds `context` to the errors raised while the plan
    /// runs (matching), not to those of planning (a bad `hint`).
    pub fn in_executor(mut self, context: impl Into<String>) -> Filter<'a> {
        self.executor = Some(context.into());
        self
    }

    /// `e` with this filter's executor context, as an error raised while the plan runs.
    pub fn executor_error(&self, e: Error) -> Error {
        match &self.executor {
            Some(c) => e.add_context(c),
            None => e,
        }
    }

    pub fn hint(&self) -> Option<&Bson> {
        self.hint.as_ref()
    }

    /// The parsed matcher (`None` for `{}`).
    pub fn matcher(&self) -> Option<&Matcher> {
        self.matcher.as_ref()
    }

}

/// The records matching `filter` with the array position each match used, in plan order (index
/// order for an index scan, natural order for a collection scan). Stops after `stop_after`.
pub(crate) fn matching(coll: &Collection, filter: &Filter, env: &Env, stop_after: Option<usize>) -> Result<Vec<(u64, MatchDetails)>> {
    if stop_after == Some(0) {
        return Ok(Vec::new());
    }
    select(coll, filter, None, 0, stop_after.unwrap_or(0) as u64, env)
}

/// A sort specification, with `$natural` handled here.
pub(crate) enum Sort {
    Natural { reverse: bool },
    Spec(SortSpec),
}

impl Sort {
    /// Parses a `sort` option; `None` for an absent or empty one.
    pub fn parse(spec: Option<&Document>) -> Result<Option<Sort>> {
        let Some(spec) = spec else { return Ok(None) };
        if spec.is_empty() {
            return Ok(None);
        }
        if let Some(v) = spec.get("$natural") {
            if spec.len() == 1 {
                let reverse = crate::value::Number::from_bson(v).map(|n| n.to_f64() < 0.0).unwrap_or(false);
                return Ok(Some(Sort::Natural { reverse }));
            }
        }
        Ok(Some(Sort::Spec(SortSpec::parse_find(spec)?)))
    }
}

/// The records matching `filter` after `sort`, `skip` and `limit` (0 = no limit), read through
/// the plan the planner picks; the cost counters count the keys and documents it examines.
pub(crate) fn select(
    coll: &Collection,
    filter: &Filter,
    sort: Option<&Sort>,
    skip: u64,
    limit: u64,
    env: &Env,
) -> Result<Vec<(u64, MatchDetails)>> {
    Ok(select_records(coll, filter, sort, skip, limit, env)?.into_iter().map(|(rid, d, _)| (rid, d)).collect())
}

/// [`select`], with each record (for a reader of their bytes: no second lookup by id).
pub(crate) fn select_records<'c>(
    coll: &'c Collection,
    filter: &Filter,
    sort: Option<&Sort>,
    skip: u64,
    limit: u64,
    env: &Env,
) -> Result<Vec<(u64, MatchDetails, &'c Record)>> {
    let want = if limit > 0 { Some((skip + limit) as usize) } else { None };
    let plan = match &filter.min_max {
        Some((min, max)) => planner::plan_min_max(coll, filter.doc, sort, filter.hint.as_ref(), min, max)?,
        None => planner::plan_with_hint(coll, filter.doc, sort, want, filter.hint.as_ref())?,
    };
    let in_order = sort.is_none() || plan.provides_sort();
    let stop = if in_order { want } else { None };
    let exact = filter.id_only && matches!(plan, planner::Plan::IdHack { .. });
    let mut found: Vec<(u64, MatchDetails, &'c Record)> = Vec::new();
    let keys = planner::execute(coll, &plan, |rid, record| {
        let Some(r) = record.or_else(|| coll.get(rid)) else { return Ok(true) };
        env.add_docs_examined(1, r.size() as u64);
        let d = match (&filter.matcher, exact) {
            (None, _) | (_, true) => MatchDetails { matched: true, elem_index: None },
            // Read in place when the filter allows it, else decoded.
            (Some(m), false) => match m.match_details_raw(r.raw()?, env)? {
                Some(d) => d,
                None => m.match_details(&r.doc()?, env)?,
            },
        };
        if d.matched {
            found.push((rid, d, r));
        }
        Ok(stop.map(|n| found.len() < n).unwrap_or(true))
    })
    .map_err(|e| filter.executor_error(e))?;
    env.add_keys_examined(keys);
    if let (Some(s), false) = (sort, plan.provides_sort()) {
        // The sort reads its keys from the stored bytes (see `sort_records`).
        match s {
            Sort::Spec(spec) => found = sort_records(spec, found, |(_, _, r)| r.bytes())?,
            Sort::Natural { reverse } => {
                if *reverse {
                    found.reverse();
                }
            }
        }
    }
    let it = found.into_iter().skip(skip as usize);
    Ok(if limit > 0 { it.take(limit as usize).collect() } else { it.collect() })
}

/// One item being sorted by [`sort_records`]: the first 19 bytes of its key (zero-padded) and
/// then its length (more than 19 as [`WHOLE`]), as three numbers, and its position in the input
/// (where its whole key is, and the tie-break). 24 bytes. Two entries compare as their keys do
/// (a key whose bytes are another's and more comes after it, as its length says) unless both
/// prefixes are equal and the keys longer: a key of 19 bytes or less, such as a double and an
/// int32 (`{v: -1, _id: 1}`: at most 11 + 7 bytes), is never compared whole, not even with an
/// equal key.
#[derive(Clone, Copy)]
struct SortEntry {
    hi: u64,
    mid: u64,
    lo: u32,
    at: u32,
}

/// The length byte of a [`SortEntry`] whose key is longer than its prefix.
const WHOLE: u8 = 20;

impl SortEntry {
    /// The entry of the key `key` at `at`.
    fn of(at: u32, key: &[u8]) -> SortEntry {
        let mut prefix = [0u8; 20];
        let n = key.len().min(19);
        prefix[..n].copy_from_slice(&key[..n]);
        prefix[19] = key.len().min(WHOLE as usize) as u8;
        let word = |b: &[u8]| u64::from_be_bytes(b.try_into().unwrap_or([0; 8]));
        let lo = u32::from_be_bytes(prefix[16..20].try_into().unwrap_or([0; 4]));
        SortEntry { hi: word(&prefix[..8]), mid: word(&prefix[8..16]), lo, at }
    }

    /// Whether the key is longer than the prefix (else equal prefixes are equal keys).
    fn partial(&self) -> bool {
        self.lo as u8 == WHOLE
    }

    /// The order of two entries' keys (`key` gives a key by its position), then of their
    /// positions.
    fn cmp_keys<'k>(a: &SortEntry, b: &SortEntry, key: &impl Fn(u32) -> &'k [u8]) -> std::cmp::Ordering {
        (a.hi, a.mid, a.lo)
            .cmp(&(b.hi, b.mid, b.lo))
            .then_with(|| if a.partial() { key(a.at).cmp(key(b.at)) } else { std::cmp::Ordering::Equal })
            .then(a.at.cmp(&b.at))
    }
}

/// Sorts `items` (each with its stored document's bytes, `record`: see `Record::bytes`) stably by `spec`, in the order
/// `SortSpec::sort` gives their decoded documents. Each item's sort key is computed once, as
/// the order-preserving bytes of `keystring` (whose byte order is `value::compare`'s, a
/// descending field's bytes complemented), read from the stored bytes where no array lies along
/// the path (else from the key fields decoded, through `SortSpec::key_values`); the keys lie
/// back to back in one buffer and the sort moves small fixed-size entries that hold each key's
/// first 20 bytes, so no document is decoded or moved to sort (ties fall back to the whole key,
/// then to the input order).
pub(crate) fn sort_records<T>(spec: &SortSpec, items: Vec<T>, record: impl Fn(&T) -> &[u8]) -> Result<Vec<T>> {
    let paths: Vec<(&[String], bool)> = spec.paths().collect();
    let tops: Vec<&str> = paths.iter().filter_map(|(p, _)| p.first().map(String::as_str)).collect();
    let keep = |name: &str| tops.iter().any(|t| *t == name);
    let mut keys: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::with_capacity(items.len());
    let mut entries: Vec<SortEntry> = Vec::with_capacity(items.len());
    if u32::try_from(items.len()).is_err() {
        return Err(Error::bad_value("too many documents to sort"));
    }
    for (at, item) in items.iter().enumerate() {
        let start = keys.len();
        sort_key_into(record(item), spec, &paths, &keep, &mut keys)?;
        if at == 0 {
            // room for keys as long as the first, up to 64 bytes each (most keys of a sort are
            // about as long), so that the buffer is seldom copied as it grows
            keys.reserve(keys.len().min(64).saturating_mul(items.len()).saturating_sub(keys.len()));
        }
        ends.push(keys.len());
        entries.push(SortEntry::of(at as u32, &keys[start..]));
    }
    let key = |at: u32| {
        let at = at as usize;
        &keys[if at == 0 { 0 } else { ends[at - 1] }..ends[at]]
    };
    let entries = bucket_sort(entries, |a, b| SortEntry::cmp_keys(a, b, &key));
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    Ok(entries.iter().filter_map(|e| slots.get_mut(e.at as usize).and_then(Option::take)).collect())
}

/// The order of `n` byte strings, `key(0)` to `key(n - 1)`, ties in that order: sorted as
/// [`sort_records`] sorts its keys (index builds sort their keys so).
pub(crate) fn order_of_keys<'k>(n: usize, key: impl Fn(usize) -> &'k [u8]) -> Result<Vec<usize>> {
    if u32::try_from(n).is_err() {
        return Err(Error::bad_value("too many keys to sort"));
    }
    let entries: Vec<SortEntry> = (0..n).map(|i| SortEntry::of(i as u32, key(i))).collect();
    let key = |at: u32| key(at as usize);
    Ok(bucket_sort(entries, |a, b| SortEntry::cmp_keys(a, b, &key)).iter().map(|e| e.at as usize).collect())
}

/// `entries` sorted by `order` (whose criteria are `hi`, `mid`, `lo`, then whatever breaks their
/// ties). Many entries are first dealt into up to 65 536 buckets by the bits of `hi` below the
/// prefix they all share (one counting pass, an order-preserving split), and each bucket is then
/// sorted on its own ([`deal_and_sort`]): a comparison sort of a million entries makes twenty
/// passes over an array larger than the caches, the buckets' sorts work on a few entries each, in
/// cache.
fn bucket_sort(mut entries: Vec<SortEntry>, order: impl Fn(&SortEntry, &SortEntry) -> std::cmp::Ordering) -> Vec<SortEntry> {
    deal_and_sort(&mut entries, &mut Vec::new(), &order, 16, 4096, Word::Hi);
    entries
}

/// The word of a [`SortEntry`] a level of [`deal_and_sort`] deals by.
#[derive(Clone, Copy)]
enum Word {
    Hi,
    Mid,
    Lo,
}

impl Word {
    fn of(self, e: &SortEntry) -> u64 {
        match self {
            Word::Hi => e.hi,
            Word::Mid => e.mid,
            Word::Lo => u64::from(e.lo),
        }
    }

    /// The next word, when the entries all share this one.
    fn next(self) -> Option<Word> {
        match self {
            Word::Hi => Some(Word::Mid),
            Word::Mid => Some(Word::Lo),
            Word::Lo => None,
        }
    }
}

/// Sorts `entries` (see [`bucket_sort`]): fewer than `few` by comparison; else dealt into
/// `2^bits` places by the bits of `word` below those they all share (an order-preserving split:
/// `(w - min) >> shift` is below `2^bits` and grows with `w`), each place then sorted the same
/// way with 256 places. Keys whose first bytes differ little, such as numbers close to one
/// another, share a few of the first level's buckets; dealing those again leaves a few entries to
/// each comparison sort. Entries that all share `word` (keys that begin alike, such as a compound
/// key's first field: a thousand sensors among a million documents) are dealt by the next word,
/// and only entries that share all three are left to the comparison sort whatever their number:
/// the work stays linear in the entries when many share a prefix. Each level takes at least 8
/// bits of its word's range, so there are at most 8 levels per word.
fn deal_and_sort(entries: &mut [SortEntry], scratch: &mut Vec<SortEntry>, order: &impl Fn(&SortEntry, &SortEntry) -> std::cmp::Ordering, bits: u32, few: usize, word: Word) {
    if entries.len() < few {
        entries.sort_unstable_by(order);
        return;
    }
    let (min, max) = entries.iter().fold((u64::MAX, 0), |(lo, hi), e| (lo.min(word.of(e)), hi.max(word.of(e))));
    if min >= max {
        match word.next() {
            Some(next) => deal_and_sort(entries, scratch, order, bits, few, next),
            None => entries.sort_unstable_by(order),
        }
        return;
    }
    let shift = (64 - (max - min).leading_zeros()).saturating_sub(bits);
    let place = |e: &SortEntry| ((word.of(e) - min) >> shift) as usize;
    let mut starts = vec![0usize; (1 << bits) + 1];
    for e in entries.iter() {
        starts[place(e) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    // Every entry is written once, at the next place of its bucket.
    scratch.clear();
    scratch.extend_from_slice(entries);
    for e in scratch.iter() {
        let p = place(e);
        entries[next[p]] = *e;
        next[p] += 1;
    }
    for w in starts.windows(2) {
        if w[1] - w[0] > 1 {
            deal_and_sort(&mut entries[w[0]..w[1]], scratch, order, 8, 65, word);
        }
    }
}

/// Stored documents' bytes handed on in an order other than memory's (a sort's), read ahead:
/// before the first of each next [`AHEAD`] is handed on, one byte at each end of each of them
/// is read, all at once. A reader that walks the documents one after another in that order
/// waits for memory at each one (past the caches, at a million documents, that wait is a third of
/// a `$sort` + `$group`); these reads do not depend on one another, so their waits overlap.
pub(crate) struct ReadAhead<'r> {
    items: Vec<&'r [u8]>,
    at: usize,
    ready: usize,
}

/// How many documents [`ReadAhead`] reads ahead at a time.
const AHEAD: usize = 32;

impl<'r> ReadAhead<'r> {
    pub(crate) fn new(items: Vec<&'r [u8]>) -> ReadAhead<'r> {
        ReadAhead { items, at: 0, ready: 0 }
    }
}

impl<'r> Iterator for ReadAhead<'r> {
    type Item = &'r [u8];

    fn next(&mut self) -> Option<&'r [u8]> {
        if self.at == self.ready {
            let end = (self.at + AHEAD).min(self.items.len());
            let mut sink = 0u8;
            for r in &self.items[self.at..end] {
                sink ^= r.first().copied().unwrap_or(0) ^ r.last().copied().unwrap_or(0);
            }
            std::hint::black_box(sink);
            self.ready = end;
        }
        let r = self.items.get(self.at).copied();
        self.at += 1;
        r
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.items.len().saturating_sub(self.at);
        (n, Some(n))
    }
}

/// Appends the sort key of `rec` (see [`sort_records`]).
fn sort_key_into(rec: &[u8], spec: &SortSpec, paths: &[(&[String], bool)], keep: &dyn Fn(&str) -> bool, out: &mut Vec<u8>) -> Result<()> {
    use crate::value::raw::{decode_value, lookup, RawLookup};
    let raw = Record::raw_of(rec)?;
    let start = out.len();
    for (parts, ascending) in paths {
        let v = match lookup(raw, parts) {
            RawLookup::Missing => Some(Bson::Null),
            RawLookup::Value(v) => decode_value(v).ok(),
            RawLookup::Decode => None,
        };
        let Some(v) = v else {
            // An array along the path (the key is its smallest or largest element): from the
            // decoded key fields.
            out.truncate(start);
            let doc = Record::decode_of(rec, Some(keep))?;
            for ((_, ascending), v) in paths.iter().zip(spec.key_values(&doc)) {
                keystring::append_dir(v, !ascending, out);
            }
            return Ok(());
        };
        keystring::append_dir(&v, !ascending, out);
    }
    Ok(())
}

/// The `_id` of a document (null when absent).
pub(crate) fn id_of(doc: &Document) -> Bson {
    doc.get("_id").cloned().unwrap_or(Bson::Null)
}
