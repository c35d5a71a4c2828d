//! A collection's records by record id. Record ids are handed out in ascending order and never
//! reused, so the ids in use are mostly a run with few gaps: such a run is kept as one array of
//! slots indexed by `rid - first` (a lookup is an index, a scan walks memory in order), which
//! gives way to an ordered map when deletes leave it mostly empty (fewer than a quarter of the
//! slots used), so the memory held follows the records, never the ids once used (the array's
//! room shrinks too as its ends empty out). The map turns back into an array once the ids in
//! use fill half their span again.

use std::collections::{btree_map, BTreeMap, VecDeque};
use std::ops::{Bound, RangeBounds};

use super::collection::Record;

/// Below this many slots the array is kept whatever its density (a map would save nothing).
const SMALL: usize = 64;

#[derive(Debug, Clone)]
enum Store {
    /// Slot `i` holds record id `first + i`; the first and last slots are never empty.
    Dense { first: u64, slots: VecDeque<Option<Record>> },
    Sparse(BTreeMap<u64, Record>),
}

/// The records of one collection, in record id order (see the module documentation).
#[derive(Debug, Clone)]
pub struct Records {
    store: Store,
    len: usize,
}

impl Default for Records {
    fn default() -> Records {
        Records { store: Store::Dense { first: 0, slots: VecDeque::new() }, len: 0 }
    }
}

impl Records {
    pub fn new() -> Records {
        Records::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, rid: u64) -> Option<&Record> {
        match &self.store {
            Store::Dense { first, slots } => slots.get(usize::try_from(rid.checked_sub(*first)?).ok()?)?.as_ref(),
            Store::Sparse(map) => map.get(&rid),
        }
    }

    /// Stores `rec` under `rid`, returning the record it replaces.
    pub fn insert(&mut self, rid: u64, rec: Record) -> Option<Record> {
        if let Store::Dense { first, slots } = &mut self.store {
            if slots.is_empty() {
                *first = rid;
            }
            // The slots the array would span with `rid`.
            let span = if rid < *first { *first - rid + slots.len() as u64 } else { (rid - *first + 1).max(slots.len() as u64) };
            if span > SMALL as u64 && span / 4 > (self.len + 1) as u64 {
                self.to_sparse();
            } else {
                let old = if rid < *first {
                    for _ in rid..*first {
                        slots.push_front(None);
                    }
                    *first = rid;
                    slots[0].replace(rec)
                } else {
                    let i = (rid - *first) as usize;
                    if i >= slots.len() {
                        slots.resize_with(i + 1, || None);
                    }
                    slots[i].replace(rec)
                };
                if old.is_none() {
                    self.len += 1;
                }
                return old;
            }
        }
        let Store::Sparse(map) = &mut self.store else { return None };
        let old = map.insert(rid, rec);
        if old.is_none() {
            self.len += 1;
            self.maybe_dense();
        }
        old
    }

    pub fn remove(&mut self, rid: u64) -> Option<Record> {
        let old = match &mut self.store {
            Store::Dense { first, slots } => {
                let i = usize::try_from(rid.checked_sub(*first)?).ok()?;
                let old = slots.get_mut(i)?.take()?;
                trim(first, slots);
                old
            }
            Store::Sparse(map) => map.remove(&rid)?,
        };
        self.len -= 1;
        self.maybe_sparse();
        Some(old)
    }

    /// Keeps only the records for which `keep` is true (one pass in id order, in place: an
    /// array's slots are emptied where they stand, its ends trimmed as [`Records::remove`] trims
    /// them).
    pub fn retain(&mut self, mut keep: impl FnMut(u64, &Record) -> bool) {
        match &mut self.store {
            Store::Dense { first, slots } => {
                let mut len = 0;
                for (i, slot) in slots.iter_mut().enumerate() {
                    if let Some(rec) = slot {
                        if keep(*first + i as u64, rec) {
                            len += 1;
                        } else {
                            *slot = None;
                        }
                    }
                }
                self.len = len;
                trim(first, slots);
                self.maybe_sparse();
            }
            Store::Sparse(map) => {
                map.retain(|rid, rec| keep(*rid, rec));
                self.len = map.len();
                self.maybe_dense();
            }
        }
    }

    pub fn clear(&mut self) {
        *self = Records::new();
    }

    /// The records in id order, with their ids.
    pub fn iter(&self) -> Iter<'_> {
        self.range(..)
    }

    /// The records whose ids are in `range`, in id order.
    pub fn range(&self, range: impl RangeBounds<u64>) -> Iter<'_> {
        let lo = match range.start_bound() {
            Bound::Included(a) => Some(*a),
            Bound::Excluded(a) => a.checked_add(1),
            Bound::Unbounded => Some(0),
        };
        let hi = match range.end_bound() {
            Bound::Included(b) => Some(*b),
            Bound::Excluded(b) => b.checked_sub(1),
            Bound::Unbounded => Some(u64::MAX),
        };
        let (Some(lo), Some(hi)) = (lo, hi) else { return Iter::Empty };
        match &self.store {
            Store::Dense { first, slots } => {
                let n = slots.len() as u64;
                let a = lo.saturating_sub(*first).min(n);
                let b = if hi < *first { 0 } else { (hi - *first).saturating_add(1).min(n) };
                let (a, b) = (a as usize, (b as usize).max(a as usize));
                Iter::Dense { first: *first + a as u64, inner: slots.range(a..b).enumerate() }
            }
            Store::Sparse(map) if lo <= hi => Iter::Sparse(map.range(lo..=hi)),
            Store::Sparse(_) => Iter::Empty,
        }
    }

    fn to_sparse(&mut self) {
        if let Store::Dense { first, slots } = &mut self.store {
            let first = *first;
            let map = std::mem::take(slots).into_iter().enumerate().filter_map(|(i, s)| s.map(|r| (first + i as u64, r))).collect();
            self.store = Store::Sparse(map);
        }
    }

    /// Turns the array into a map when fewer than a quarter of its slots are used.
    fn maybe_sparse(&mut self) {
        if let Store::Dense { slots, .. } = &self.store {
            if slots.len() > SMALL && slots.len() / 4 > self.len {
                self.to_sparse();
            }
        }
    }

    /// Turns the map back into an array when its ids fill half their span.
    fn maybe_dense(&mut self) {
        let Store::Sparse(map) = &mut self.store else { return };
        let (Some((lo, _)), Some((hi, _))) = (map.first_key_value(), map.last_key_value()) else { return };
        let (lo, span) = (*lo, hi - lo + 1);
        if span > (2 * self.len) as u64 {
            return;
        }
        let mut slots: VecDeque<Option<Record>> = VecDeque::with_capacity(span as usize);
        for (rid, rec) in std::mem::take(map) {
            slots.resize_with((rid - lo) as usize, || None);
            slots.push_back(Some(rec));
        }
        self.store = Store::Dense { first: lo, slots };
    }
}

/// Drops an array's empty slots at both ends (`first` follows the front); trimmed down to a
/// quarter of what it had room for, the room goes too.
fn trim(first: &mut u64, slots: &mut VecDeque<Option<Record>>) {
    while slots.front().is_some_and(Option::is_none) {
        slots.pop_front();
        *first += 1;
    }
    while slots.back().is_some_and(Option::is_none) {
        slots.pop_back();
    }
    if slots.capacity() > 4 * slots.len().max(SMALL) {
        slots.shrink_to(2 * slots.len());
    }
}

/// The records of a [`Records::range`], in id order (either way).
pub enum Iter<'a> {
    Dense { first: u64, inner: std::iter::Enumerate<std::collections::vec_deque::Iter<'a, Option<Record>>> },
    Sparse(btree_map::Range<'a, u64, Record>),
    Empty,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (u64, &'a Record);

    fn next(&mut self) -> Option<(u64, &'a Record)> {
        match self {
            Iter::Dense { first, inner } => inner.find_map(|(i, s)| s.as_ref().map(|r| (*first + i as u64, r))),
            Iter::Sparse(r) => r.next().map(|(k, v)| (*k, v)),
            Iter::Empty => None,
        }
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Dense { first, inner } => loop {
                let (i, s) = inner.next_back()?;
                if let Some(r) = s {
                    return Some((*first + i as u64, r));
                }
            },
            Iter::Sparse(r) => r.next_back().map(|(k, v)| (*k, v)),
            Iter::Empty => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rec(rid: u64) -> Record {
        Record::encode(&bson::doc! { "_id": rid as i64 }).expect("encodes")
    }

    fn ids(it: Iter<'_>) -> Vec<u64> {
        it.map(|(rid, r)| {
            assert_eq!(r.id(), bson::Bson::Int64(rid as i64), "record under its own id");
            rid
        })
        .collect()
    }

    proptest! {
        /// Any sequence of inserts, removes and retains leaves the same records as an ordered
        /// map, read by id, in order, backwards and by range, whichever form the store is in.
        #[test]
        fn behaves_as_an_ordered_map(ops in proptest::collection::vec((0u8..8, 0u64..400, 0u64..400), 0..300)) {
            let mut r = Records::new();
            let mut m: BTreeMap<u64, ()> = BTreeMap::new();
            for (op, a, b) in ops {
                match op {
                    0..=3 => prop_assert_eq!(r.insert(a, rec(a)).is_some(), m.insert(a, ()).is_some()),
                    4..=5 => prop_assert_eq!(r.remove(a).is_some(), m.remove(&a).is_some()),
                    6 => {
                        // remove a run (a deleteMany)
                        for rid in a.min(b)..=a.max(b) {
                            prop_assert_eq!(r.remove(rid).is_some(), m.remove(&rid).is_some());
                        }
                    }
                    _ => {
                        r.retain(|rid, _| rid % (b + 2) != 0);
                        m.retain(|rid, _| rid % (b + 2) != 0);
                    }
                }
                prop_assert_eq!(r.len(), m.len());
                prop_assert_eq!(r.get(a).is_some(), m.contains_key(&a));
            }
            prop_assert_eq!(ids(r.iter()), m.keys().copied().collect::<Vec<_>>());
            prop_assert_eq!(ids(r.iter()).into_iter().rev().collect::<Vec<_>>(), r.iter().rev().map(|(k, _)| k).collect::<Vec<_>>());
            for (lo, hi) in [(0, 50), (100, 99), (120, 380), (399, 1000)] {
                prop_assert_eq!(ids(r.range(lo..=hi)), m.keys().copied().filter(|k| (lo..=hi).contains(k)).collect::<Vec<_>>());
                prop_assert_eq!(ids(r.range(lo..)), m.range(lo..).map(|(k, _)| *k).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_mostly_deleted_run_becomes_a_map_and_back() {
        let mut r = Records::new();
        for rid in 1..=1000 {
            r.insert(rid, rec(rid));
        }
        assert!(matches!(r.store, Store::Dense { .. }));
        for rid in (1..=1000).filter(|rid| rid % 10 != 0) {
            r.remove(rid);
        }
        assert!(matches!(r.store, Store::Sparse(_)), "100 records in a span of 1000 ids: a map");
        for rid in 1001..=1200 {
            r.insert(rid, rec(rid));
        }
        assert!(matches!(r.store, Store::Sparse(_)), "300 records in a span of 1191 ids: still a map");
        for rid in (10..=1000).step_by(10) {
            r.remove(rid);
        }
        r.insert(1201, rec(1201));
        assert!(matches!(&r.store, Store::Dense { first: 1001, slots } if slots.len() == 201), "201 records in a span of 201 ids: an array");
        assert_eq!(ids(r.iter()), (1001..=1201).collect::<Vec<_>>());
        // the front emptied out: the array starts at the first id in use
        let mut d = Records::new();
        for rid in 1..=100 {
            d.insert(rid, rec(rid));
        }
        for rid in 1..=90 {
            d.remove(rid);
        }
        assert!(matches!(&d.store, Store::Dense { first: 91, slots } if slots.len() == 10));
    }

    #[test]
    fn records_removed_from_one_end_give_their_room_back() {
        let mut r = Records::new();
        for rid in 1..=10_000 {
            r.insert(rid, rec(rid));
        }
        for rid in 1..=9_990 {
            r.remove(rid);
        }
        let Store::Dense { first: 9_991, slots } = &r.store else { panic!("an array from 9 991") };
        assert!(slots.capacity() <= 4 * SMALL, "{} slots of room for 10 records", slots.capacity());
        assert_eq!(ids(r.iter()), (9_991..=10_000).collect::<Vec<_>>());
    }
}
