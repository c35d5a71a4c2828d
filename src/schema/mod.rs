//! Schema analysis of a collection (for the Schema view), as Compass's schema tab does and beyond:
//! for every field path, its presence, its types, array lengths (min/median/max and a
//! histogram), a few sample values, its distinct count (exact up to [`EXACT_DISTINCT`] values,
//! then a HyperLogLog estimate) and the BSON bytes it carries.
//!
//! Engine-specific command (no server has it): `{ ppAnalyzeSchema: "c", sample: N }` replies
//! `{ collection, count, sampled, isSample, sampleBytes, dataSize, fields: [...] }`; a
//! collection larger than `sample` (default [`DEFAULT_SAMPLE`], as Compass) is analysed on a
//! uniform sample of that many documents, drawn with a fixed seed (the same reply every time).
//!
//! Paths: `a.b` for a field of a subdocument and for a field of documents inside an array `a`
//! (as Compass names them); array elements that are not documents count in the array path's
//! `elementTypes`. Distinct counts and samples are of scalar values (not subdocuments, arrays). Bytes: a field's element (type byte, key, value) is charged to its path, so a
//! path's bytes include its subfields' bytes; array elements are charged to the array's path.
//! `bytesPercent` is of `sampleBytes`, the sampled documents' whole BSON size.

use std::collections::{BTreeMap, HashSet};

use bson::{doc, Bson, Document};

use crate::db::Collection;
use crate::value::{self, types::type_name};

/// Documents analysed when no `sample` is given (Compass's default).
pub const DEFAULT_SAMPLE: usize = 1000;
/// Distinct values counted exactly up to this many; beyond, a HyperLogLog estimate.
pub const EXACT_DISTINCT: usize = 10_000;
/// Sample values kept per path.
pub const SAMPLE_VALUES: usize = 5;
/// HyperLogLog registers: 2^12 (about 1.6 % standard error).
const HLL_BITS: u32 = 12;

/// Distinct values: a set of hashes while small, then HyperLogLog registers.
struct Distinct {
    exact: Option<HashSet<u64, ahash::RandomState>>,
    registers: Vec<u8>,
}

impl Distinct {
    fn new() -> Distinct {
        Distinct { exact: Some(HashSet::with_hasher(ahash::RandomState::with_seeds(1, 2, 3, 4))), registers: Vec::new() }
    }

    fn add(&mut self, h: u64) {
        if let Some(set) = &mut self.exact {
            set.insert(h);
            if set.len() <= EXACT_DISTINCT {
                return;
            }
            let hashes: Vec<u64> = set.iter().copied().collect();
            self.exact = None;
            self.registers = vec![0; 1 << HLL_BITS];
            for h in hashes {
                self.add_hll(h);
            }
            return;
        }
        self.add_hll(h);
    }

    fn add_hll(&mut self, h: u64) {
        let idx = (h >> (64 - HLL_BITS)) as usize;
        let rest = (h << HLL_BITS) | (1 << (HLL_BITS - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        if self.registers[idx] < rank {
            self.registers[idx] = rank;
        }
    }

    /// The count and whether it is an estimate.
    fn count(&self) -> (u64, bool) {
        if let Some(set) = &self.exact {
            return (set.len() as u64, false);
        }
        let m = self.registers.len() as f64;
        let sum: f64 = self.registers.iter().map(|r| 2f64.powi(-(*r as i32))).sum();
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let mut e = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|r| **r == 0).count();
        if e <= 2.5 * m && zeros > 0 {
            e = m * (m / zeros as f64).ln();
        }
        (e.round() as u64, true)
    }
}

/// What is gathered for one path.
struct PathStats {
    /// Documents (of the sample) where the path occurs at least once.
    docs: u64,
    /// The document that last counted in `docs` (a path inside an array occurs many times).
    last_doc: u64,
    /// Occurrences by type.
    types: BTreeMap<&'static str, u64>,
    /// Types of non-document array elements (for array paths).
    element_types: BTreeMap<&'static str, u64>,
    array_lengths: Vec<u32>,
    samples: Vec<Bson>,
    sample_keys: Vec<Vec<u8>>,
    distinct: Distinct,
    bytes: u64,
}

impl PathStats {
    fn new() -> PathStats {
        PathStats {
            docs: 0,
            last_doc: u64::MAX,
            types: BTreeMap::new(),
            element_types: BTreeMap::new(),
            array_lengths: Vec::new(),
            samples: Vec::new(),
            sample_keys: Vec::new(),
            distinct: Distinct::new(),
            bytes: 0,
        }
    }
}

struct Analyzer {
    paths: BTreeMap<String, PathStats>,
    /// First-seen order of paths (the reply lists them in it).
    order: Vec<String>,
    hasher: ahash::RandomState,
    doc_no: u64,
}

impl Analyzer {
    fn stats(&mut self, path: &str) -> &mut PathStats {
        if !self.paths.contains_key(path) {
            self.order.push(path.to_string());
        }
        self.paths.entry(path.to_string()).or_insert_with(PathStats::new)
    }

    fn document(&mut self, prefix: &str, doc: &Document) {
        for (k, v) in doc {
            let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            let element_bytes = 1 + k.len() as u64 + 1 + value::value_size(v) as u64;
            self.value(&path, v, element_bytes);
        }
    }

    fn value(&mut self, path: &str, v: &Bson, bytes: u64) {
        let doc_no = self.doc_no;
        // Distinct values and samples: of scalar values (hashing a subdocument at every level
        // would cost its size times its depth).
        let container = matches!(v, Bson::Document(_) | Bson::Array(_));
        let key = if container { Vec::new() } else { value::hash_key(v) };
        let h = self.hasher.hash_one(&key);
        let s = self.stats(path);
        if s.last_doc != doc_no {
            s.last_doc = doc_no;
            s.docs += 1;
        }
        *s.types.entry(type_name(v)).or_default() += 1;
        s.bytes += bytes;
        if !container {
            s.distinct.add(h);
        }
        if s.samples.len() < SAMPLE_VALUES && !container && !s.sample_keys.contains(&key) {
            s.samples.push(v.clone());
            s.sample_keys.push(key);
        }
        match v {
            Bson::Document(d) => self.document(path, d),
            Bson::Array(items) => {
                self.stats(path).array_lengths.push(items.len() as u32);
                for item in items {
                    match item {
                        Bson::Document(d) => self.document(path, d),
                        other => {
                            *self.stats(path).element_types.entry(type_name(other)).or_default() += 1;
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The positions (0-based, increasing) of a uniform sample of `k` out of `n`, drawn with a
/// fixed seed (selection sampling: one pass, linear in `n`).
fn sample_positions(n: usize, k: usize, seed: u64) -> Vec<usize> {
    if k >= n {
        return (0..n).collect();
    }
    let mut state = seed.max(1);
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = Vec::with_capacity(k);
    for i in 0..n {
        let remaining = n - i;
        let needed = k - out.len();
        if needed == 0 {
            break;
        }
        if next() * (remaining as f64) < needed as f64 {
            out.push(i);
        }
    }
    out
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    (part as f64 * 10000.0 / whole as f64).round() / 100.0
}

fn number(n: u64) -> Bson {
    match i32::try_from(n) {
        Ok(i) => Bson::Int32(i),
        Err(_) => Bson::Int64(n as i64),
    }
}

/// Array lengths: `{ min, median, max, histogram: [{ from, to, count }] }` (one bucket per
/// length when the lengths span at most 10 values, else at most 10 equal-width buckets).
fn array_summary(lengths: &mut [u32]) -> Document {
    lengths.sort_unstable();
    let min = lengths[0] as u64;
    let max = lengths[lengths.len() - 1] as u64;
    let n = lengths.len();
    let median = if n % 2 == 1 { lengths[n / 2] as f64 } else { (lengths[n / 2 - 1] as f64 + lengths[n / 2] as f64) / 2.0 };
    let span = max - min + 1;
    let width = span.div_ceil(10);
    let buckets = span.div_ceil(width);
    let mut counts = vec![0u64; buckets as usize];
    for l in lengths.iter() {
        let b = ((*l as u64 - min) / width) as usize;
        counts[b.min(buckets as usize - 1)] += 1;
    }
    let histogram: Vec<Bson> = counts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let from = min + i as u64 * width;
            let to = (from + width - 1).min(max);
            Bson::Document(doc! {"from": number(from), "to": number(to), "count": number(*c)})
        })
        .collect();
    doc! {"min": number(min), "median": median, "max": number(max), "histogram": histogram}
}

/// Analyses `c` (a sample of `sample` documents when it holds more).
pub fn analyze(c: &Collection, sample: usize) -> Document {
    let count = c.len();
    let positions = sample_positions(count, sample.max(1), 0x5C4E_3A11);
    let mut a = Analyzer { paths: BTreeMap::new(), order: Vec::new(), hasher: ahash::RandomState::with_seeds(5, 6, 7, 8), doc_no: 0 };
    let mut sample_bytes = 0u64;
    let mut wanted = positions.iter().peekable();
    for (i, (_, rec)) in c.iter().enumerate() {
        match wanted.peek() {
            Some(&&p) if p == i => {
                wanted.next();
            }
            Some(_) => continue,
            None => break,
        }
        // Stored documents always decode (the engine wrote them).
        let Ok(doc) = rec.doc() else { continue };
        sample_bytes += rec.size() as u64;
        a.document("", &doc);
        a.doc_no += 1;
    }
    let sampled = a.doc_no;
    let mut fields = Vec::with_capacity(a.order.len());
    for path in &a.order {
        let Some(s) = a.paths.get_mut(path) else { continue };
        let occurrences: u64 = s.types.values().sum();
        let types: Vec<Bson> = s
            .types
            .iter()
            .map(|(t, n)| Bson::Document(doc! {"type": *t, "count": number(*n), "percent": percent(*n, occurrences)}))
            .collect();
        let (distinct, estimated) = s.distinct.count();
        let mut f = doc! {
            "path": path.clone(),
            "count": number(s.docs),
            "presence": percent(s.docs, sampled),
            "types": types,
        };
        if !s.array_lengths.is_empty() {
            f.insert("arrayLengths", array_summary(&mut s.array_lengths));
            let total: u64 = s.element_types.values().sum();
            let et: Vec<Bson> = s
                .element_types
                .iter()
                .map(|(t, n)| Bson::Document(doc! {"type": *t, "count": number(*n), "percent": percent(*n, total)}))
                .collect();
            if !et.is_empty() {
                f.insert("elementTypes", et);
            }
        }
        f.insert("samples", std::mem::take(&mut s.samples));
        f.insert("distinct", number(distinct));
        f.insert("distinctEstimated", estimated);
        f.insert("bytes", number(s.bytes));
        f.insert("bytesPercent", percent(s.bytes, sample_bytes));
        f.insert("avgBytes", if s.docs == 0 { 0.0 } else { s.bytes as f64 / s.docs as f64 });
        fields.push(Bson::Document(f));
    }
    doc! {
        "collection": c.name.clone(),
        "count": number(count as u64),
        "sampled": number(sampled),
        "isSample": (sampled as usize) < count,
        "sampleBytes": number(sample_bytes),
        "dataSize": number(c.data_size() as u64),
        "fields": fields,
    }
}
