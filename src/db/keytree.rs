//! The entries of one index, compactly: every `(key, record id)` pair as one byte string (the
//! key's `keystring` encoding, then the record id as an order-preserving length-prefixed number,
//! as the server's KeyString appends a `RecordId`: see `rid_bytes`), kept in key order in leaf
//! pages of about [`LEAF`] bytes, under a B-tree from each leaf's lower bound to the leaf. A key
//! many records share is one entry per record, so adding or removing one is O(log n) like any
//! other; an entry costs its bytes plus one (the key's length), not a node slot and a heap
//! allocation (an int64 `_id` with its record id: 10 bytes).
//!
//! Byte order of the pairs is (key, record id) order because a key's encoding is prefix-free.
//! A leaf's entries are `[key length (LEB128)][key][record id]`; leaves are searched linearly
//! (they are small). A leaf that overflows splits in two, except when the new entry goes at its
//! end (appends, ascending `_id`s): then the entry starts a new leaf and the full one stays
//! full. The greatest entry is kept aside, so an append or a lookup past the end searches no
//! leaf.

use std::collections::BTreeMap;
use std::ops::Bound;

/// The bytes a leaf holds before it splits.
pub const LEAF: usize = 1024;

/// A record id in order-preserving form: the top 3 bits of the first byte say how many bytes
/// follow (`k` < 7: `k`, the id in the first byte's other 5 bits and those bytes; 7: the id in 8
/// bytes), the shortest form is used, so 100 000 takes 3 bytes.
fn rid_bytes(rid: u64, out: &mut Vec<u8>) {
    let bits = 64 - rid.leading_zeros() as usize;
    let k = if bits <= 5 { 0 } else { (bits - 5).div_ceil(8) };
    if k >= 7 {
        out.push(0xE0);
        out.extend_from_slice(&rid.to_be_bytes());
        return;
    }
    out.push((k as u8) << 5 | (rid >> (8 * k)) as u8 & 0x1F);
    for i in (0..k).rev() {
        out.push((rid >> (8 * i)) as u8);
    }
}

/// The search probe of the `i`th of sorted `(key, record id)` pairs: the key, then the record
/// id (empty past the last pair).
fn probe_of(pairs: &[(&[u8], u64)], i: usize, probe: &mut Vec<u8>) {
    probe.clear();
    if let Some((key, rid)) = pairs.get(i) {
        probe.extend_from_slice(key);
        rid_bytes(*rid, probe);
    }
}

fn varint(mut n: usize, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7F) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Grows a leaf for `extra` more bytes: doubling, but not past [`LEAF`] (unless one entry needs
/// it), so a full leaf holds about [`LEAF`] bytes.
fn make_room(page: &mut Vec<u8>, extra: usize) {
    let need = page.len() + extra;
    if page.capacity() < need {
        let target = need.max((page.len() * 2).min(LEAF));
        page.reserve_exact(target - page.len());
    }
}

/// One entry of a leaf, parsed: where its comparable bytes (key, then record id) start and end,
/// the key's length and the record id.
#[derive(Clone, Copy)]
struct At {
    start: usize,
    key_len: usize,
    end: usize,
    rid: u64,
}

/// Parses the entry at `pos` of a leaf.
fn at(page: &[u8], mut pos: usize) -> Option<At> {
    let mut key_len = 0usize;
    let mut shift = 0;
    loop {
        let b = *page.get(pos)?;
        pos += 1;
        key_len |= ((b & 0x7F) as usize) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    let start = pos;
    let first = *page.get(start + key_len)?;
    let k = (first >> 5) as usize;
    let (n, high) = if k == 7 { (8, 0) } else { (k, (first & 0x1F) as u64) };
    let rest = page.get(start + key_len + 1..start + key_len + 1 + n)?;
    let rid = rest.iter().fold(high, |r, b| r << 8 | *b as u64);
    Some(At { start, key_len, end: start + key_len + 1 + n, rid })
}

/// A [`KeyTree`] built from pairs given in (key, record id) order, without repeats: each leaf
/// filled to [`LEAF`] bytes before the next starts.
#[derive(Default)]
struct Builder {
    leaves: Vec<(Box<[u8]>, Vec<u8>)>,
    page: Vec<u8>,
    lower: Box<[u8]>,
    len: usize,
    /// Room for [`Builder::push`] to encode an entry in.
    entry: Vec<u8>,
    /// Where the last entry's key and record id start in `page` (the tree's tail once done).
    last: usize,
}

impl Builder {
    fn push(&mut self, key: &[u8], rid: u64) {
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        varint(key.len(), &mut entry);
        let prefix = entry.len();
        entry.extend_from_slice(key);
        rid_bytes(rid, &mut entry);
        self.push_entry(&entry, prefix);
        self.entry = entry;
    }

    /// Adds an entry as a leaf holds it (`prefix`: the length of its key-length varint).
    fn push_entry(&mut self, entry: &[u8], prefix: usize) {
        if self.page.capacity() == 0 {
            self.page.reserve_exact(LEAF);
        }
        if !self.page.is_empty() && self.page.len() + entry.len() > LEAF {
            let full = std::mem::replace(&mut self.page, Vec::with_capacity(LEAF));
            self.leaves.push((std::mem::take(&mut self.lower), full));
            self.lower = entry[prefix..].into();
        }
        self.last = self.page.len() + prefix;
        self.page.extend_from_slice(entry);
        self.len += 1;
    }

    fn finish(mut self) -> KeyTree {
        let mut tail = Vec::new();
        if !self.page.is_empty() {
            tail.extend_from_slice(&self.page[self.last..]);
            self.page.shrink_to_fit();
            self.leaves.push((self.lower, self.page));
        }
        KeyTree { leaves: self.leaves.into_iter().collect(), len: self.len, tail }
    }
}

/// The entries of one index in (key, record id) order.
#[derive(Debug, Clone, Default)]
pub struct KeyTree {
    /// Each leaf under its lower bound (no entry of it is below; the first leaf's is empty).
    leaves: BTreeMap<Box<[u8]>, Vec<u8>>,
    len: usize,
    /// The greatest entry (key, then record id), empty when there is none: an entry above it
    /// is an append (ascending `_id`s, record ids), and a key above it has no entries, both
    /// known without searching a leaf.
    tail: Vec<u8>,
}

impl KeyTree {
    pub fn new() -> KeyTree {
        KeyTree::default()
    }

    /// The number of (key, record id) entries.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.leaves.clear();
        self.len = 0;
        self.tail.clear();
    }

    /// The last entry of the last leaf (after a removal of the greatest one).
    fn find_tail(&self) -> Vec<u8> {
        for (_, page) in self.leaves.iter().rev() {
            let mut pos = 0;
            let mut last = None;
            while let Some(a) = at(page, pos) {
                pos = a.end;
                last = Some(a);
            }
            if let Some(a) = last {
                return page[a.start..a.end].to_vec();
            }
        }
        Vec::new()
    }

    /// The tree of pairs given in (key, record id) order, without repeats, in full leaves.
    pub fn from_sorted<K: AsRef<[u8]>>(pairs: impl IntoIterator<Item = (K, u64)>) -> KeyTree {
        let mut b = Builder::default();
        for (key, rid) in pairs {
            b.push(key.as_ref(), rid);
        }
        b.finish()
    }

    /// Keeps the entries whose record id `keep` accepts, in one pass over the leaves (the tree
    /// is rebuilt from what stays, in full leaves); returns how many went. For the removal of
    /// many records at once: their keys need not be made, sorted or searched for.
    pub fn retain_rids(&mut self, mut keep: impl FnMut(u64) -> bool) -> usize {
        let before = self.len;
        let mut b = Builder::default();
        for page in std::mem::take(&mut self.leaves).values() {
            let mut pos = 0;
            while let Some(a) = at(page, pos) {
                if keep(a.rid) {
                    // The entry's bytes as they are (no encoding again).
                    b.push_entry(&page[pos..a.end], a.start - pos);
                }
                pos = a.end;
            }
        }
        *self = b.finish();
        before - self.len
    }

    /// Keeps the entries whose record id `keep` accepts and adds the pairs of `add` (sorted in
    /// (key, record id) order, without repeats, none of them kept already), in one pass over
    /// the leaves that merges the two (the tree is rebuilt in full leaves): for an update that
    /// moves the keys of many records at once, whose old keys need not be sorted or searched
    /// for, nor the new ones searched for.
    pub fn merge_rids(&mut self, mut keep: impl FnMut(u64) -> bool, add: &[(&[u8], u64)]) {
        let mut b = Builder::default();
        let mut next = 0;
        let mut probe = Vec::new();
        probe_of(add, next, &mut probe);
        for page in std::mem::take(&mut self.leaves).values() {
            let mut pos = 0;
            while let Some(a) = at(page, pos) {
                // The pairs to add that sort before this entry go first.
                while next < add.len() && probe.as_slice() < &page[a.start..a.end] {
                    b.push(add[next].0, add[next].1);
                    next += 1;
                    probe_of(add, next, &mut probe);
                }
                if keep(a.rid) {
                    b.push_entry(&page[pos..a.end], a.start - pos);
                }
                pos = a.end;
            }
        }
        for (key, rid) in &add[next..] {
            b.push(key, *rid);
        }
        *self = b.finish();
    }

    /// The leaf that holds (or would hold) `probe`.
    fn leaf_of(&self, probe: &[u8]) -> Option<(&[u8], &Vec<u8>)> {
        self.leaves.range::<[u8], _>((Bound::Unbounded, Bound::Included(probe))).next_back().map(|(k, v)| (&k[..], v))
    }

    /// The first entry of `page` not below `probe` (`None`: all are below), and whether it is
    /// equal.
    fn seek(page: &[u8], probe: &[u8]) -> (usize, Option<(At, bool)>) {
        let mut pos = 0;
        while let Some(a) = at(page, pos) {
            match page[a.start..a.end].cmp(probe) {
                std::cmp::Ordering::Less => pos = a.end,
                o => return (pos, Some((a, o == std::cmp::Ordering::Equal))),
            }
        }
        (pos, None)
    }

    /// Adds `(key, rid)`; false when it was there.
    pub fn insert(&mut self, key: &[u8], rid: u64) -> bool {
        let mut entry = Vec::with_capacity(key.len() + 11);
        varint(key.len(), &mut entry);
        let prefix = entry.len();
        entry.extend_from_slice(key);
        rid_bytes(rid, &mut entry);
        let probe = &entry[prefix..];
        let append = probe > &self.tail[..];
        let leaf = if append { self.leaves.iter_mut().next_back() } else { self.leaves.range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(probe))).next_back() };
        let Some((_, page)) = leaf else {
            let mut page = Vec::with_capacity(entry.len().max(64));
            page.extend_from_slice(&entry);
            self.leaves.insert(Box::default(), page);
            self.len = 1;
            self.tail = probe.to_vec();
            return true;
        };
        let pos = if append {
            page.len()
        } else {
            let (pos, found) = Self::seek(page, probe);
            if let Some((_, true)) = found {
                return false;
            }
            pos
        };
        self.len += 1;
        if append {
            self.tail.clear();
            self.tail.extend_from_slice(probe);
        }
        if page.is_empty() || page.len() + entry.len() <= LEAF {
            make_room(page, entry.len());
            page.splice(pos..pos, entry.iter().copied());
            return true;
        }
        if pos == page.len() {
            // An append: the new entry starts the next leaf.
            let mut next = Vec::with_capacity(entry.len().max(64));
            next.extend_from_slice(&entry);
            let lower: Box<[u8]> = probe.into();
            self.leaves.insert(lower, next);
            return true;
        }
        // Split at the first entry past the middle; the new entry goes to its side.
        let mut mid = 0;
        while let Some(a) = at(page, mid) {
            if a.end > page.len() / 2 {
                mid = if mid == 0 { a.end } else { mid };
                break;
            }
            mid = a.end;
        }
        let mut right = Vec::with_capacity(LEAF);
        right.extend_from_slice(&page[mid..]);
        page.truncate(mid);
        let Some(first) = at(&right, 0) else {
            page.splice(pos..pos, entry.iter().copied());
            return true;
        };
        let right_lower: Box<[u8]> = right[first.start..first.end].into();
        // At `mid` exactly the entry is below the right leaf's first: it ends the left one.
        if pos <= mid {
            page.splice(pos..pos, entry.iter().copied());
        } else {
            right.splice(pos - mid..pos - mid, entry.iter().copied());
        }
        self.leaves.insert(right_lower, right);
        true
    }

    /// Removes `(key, rid)`; false when it was not there.
    pub fn remove(&mut self, key: &[u8], rid: u64) -> bool {
        let mut probe = Vec::with_capacity(key.len() + 9);
        probe.extend_from_slice(key);
        rid_bytes(rid, &mut probe);
        let Some((lower, page)) = self.leaves.range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(&probe[..]))).next_back() else {
            return false;
        };
        if probe[..] > self.tail[..] {
            return false;
        }
        let (pos, found) = Self::seek(page, &probe);
        let Some((a, true)) = found else { return false };
        page.drain(pos..a.end);
        self.len -= 1;
        let was_tail = probe == self.tail;
        if page.is_empty() && !lower.is_empty() {
            let lower = lower.clone();
            self.leaves.remove(&lower);
        } else if page.capacity() > 64 && page.capacity() >= 4 * page.len() {
            // A leaf emptied by removals gives back memory (at most 4 times its bytes held).
            page.shrink_to((2 * page.len()).max(64));
        }
        if was_tail {
            self.tail = self.find_tail();
        }
        true
    }

    /// Removes the `(key, record id)` pairs of `pairs`, given in (key, record id) order without
    /// repeats (a pair that is not there is skipped); returns how many were removed. One leaf
    /// search per leaf the pairs fall in and one pass over that leaf, rather than a search and
    /// a shift of the leaf per pair: removing `m` of `n` entries costs `O(m + leaves touched ×
    /// (log n + leaf))`, so removing many (a `deleteMany`) is linear in what it touches.
    pub fn remove_sorted(&mut self, pairs: &[(&[u8], u64)]) -> usize {
        let mut probe = Vec::new();
        let mut i = 0;
        let mut removed = 0;
        let mut tail_gone = false;
        probe_of(pairs, 0, &mut probe);
        while i < pairs.len() && probe[..] <= self.tail[..] {
            // The leaf that would hold the pair, and the next leaf's lower bound (the pairs
            // at or above it are not in this leaf).
            let Some((lower, _)) = self.leaves.range::<[u8], _>((Bound::Unbounded, Bound::Included(&probe[..]))).next_back() else {
                break;
            };
            let lower: Box<[u8]> = lower.clone();
            let next: Option<Box<[u8]>> = self.leaves.range::<[u8], _>((Bound::Excluded(&lower[..]), Bound::Unbounded)).next().map(|(k, _)| k.clone());
            let Some(page) = self.leaves.get_mut(&lower[..]) else { break };
            // One pass: the kept entries move down over the removed ones.
            let (mut read, mut write) = (0, 0);
            while let Some(a) = at(page, read) {
                let entry_at = read;
                read = a.end;
                let mut drop = false;
                while i < pairs.len() {
                    match probe[..].cmp(&page[a.start..a.end]) {
                        std::cmp::Ordering::Less => {
                            i += 1;
                            probe_of(pairs, i, &mut probe);
                        }
                        std::cmp::Ordering::Equal => {
                            drop = true;
                            tail_gone |= probe == self.tail;
                            i += 1;
                            probe_of(pairs, i, &mut probe);
                            break;
                        }
                        std::cmp::Ordering::Greater => break,
                    }
                }
                if drop {
                    removed += 1;
                } else {
                    page.copy_within(entry_at..a.end, write);
                    write += a.end - entry_at;
                }
            }
            page.truncate(write);
            if page.is_empty() && !lower.is_empty() {
                self.leaves.remove(&lower[..]);
            } else if page.capacity() > 64 && page.capacity() >= 4 * page.len() {
                page.shrink_to((2 * page.len()).max(64));
            }
            // The pairs left below the next leaf are not in the tree.
            while i < pairs.len() && next.as_ref().is_none_or(|n| probe[..] < n[..]) {
                i += 1;
                probe_of(pairs, i, &mut probe);
            }
        }
        self.len -= removed;
        if tail_gone {
            self.tail = self.find_tail();
        }
        removed
    }

    /// Adds the `(key, record id)` pairs of `pairs`, given in (key, record id) order without
    /// repeats (a pair already there is skipped); returns how many were added. One leaf search
    /// per leaf the pairs fall in and one merge of that leaf with its new entries (cut into
    /// leaves of at most [`LEAF`] bytes, as [`KeyTree::from_sorted`] fills them), rather than a
    /// search and a shift of the leaf per pair: the index key moves of an `updateMany` cost what
    /// they move, in one pass per leaf touched.
    pub fn insert_sorted(&mut self, pairs: &[(&[u8], u64)]) -> usize {
        let mut probe = Vec::new();
        let mut merged: Vec<u8> = Vec::new();
        let mut i = 0;
        let mut added = 0;
        probe_of(pairs, 0, &mut probe);
        while i < pairs.len() {
            // The leaf that would hold the pair, and the next leaf's lower bound (the pairs at
            // or above it go to a later leaf).
            let Some((lower, _)) = self.leaves.range::<[u8], _>((Bound::Unbounded, Bound::Included(&probe[..]))).next_back() else {
                break;
            };
            let lower: Box<[u8]> = lower.clone();
            let next: Option<Box<[u8]>> = self.leaves.range::<[u8], _>((Bound::Excluded(&lower[..]), Bound::Unbounded)).next().map(|(k, _)| k.clone());
            let Some(page) = self.leaves.get_mut(&lower[..]) else { break };
            let old = std::mem::take(page);
            merged.clear();
            let mut read = 0;
            while i < pairs.len() && next.as_ref().is_none_or(|n| probe[..] < n[..]) {
                let mut there = false;
                while let Some(a) = at(&old, read) {
                    match old[a.start..a.end].cmp(&probe[..]) {
                        std::cmp::Ordering::Less => {
                            merged.extend_from_slice(&old[read..a.end]);
                            read = a.end;
                        }
                        o => {
                            there = o == std::cmp::Ordering::Equal;
                            break;
                        }
                    }
                }
                if !there {
                    varint(pairs[i].0.len(), &mut merged);
                    merged.extend_from_slice(&probe);
                    added += 1;
                    if probe[..] > self.tail[..] {
                        self.tail.clear();
                        self.tail.extend_from_slice(&probe);
                    }
                }
                i += 1;
                probe_of(pairs, i, &mut probe);
            }
            merged.extend_from_slice(&old[read..]);
            if merged.len() <= LEAF {
                if let Some(page) = self.leaves.get_mut(&lower[..]) {
                    page.clear();
                    make_room(page, merged.len());
                    page.extend_from_slice(&merged);
                }
                continue;
            }
            // Cut into full leaves: the first stays under `lower`, each other one goes under
            // its first entry.
            let mut start = 0;
            let mut pos = 0;
            let mut first = true;
            loop {
                let a = at(&merged, pos);
                let cut = match a {
                    Some(a) => pos > start && a.end - start > LEAF,
                    None => true,
                };
                if cut && pos > start {
                    let chunk = merged[start..pos].to_vec();
                    if first {
                        if let Some(page) = self.leaves.get_mut(&lower[..]) {
                            *page = chunk;
                        }
                        first = false;
                    } else if let Some(head) = at(&merged, start) {
                        self.leaves.insert(merged[head.start..head.end].into(), chunk);
                    }
                    start = pos;
                }
                let Some(a) = a else { break };
                pos = a.end;
            }
        }
        self.len += added;
        // (only when the tree had no leaf: one by one)
        for (key, rid) in &pairs[i..] {
            added += usize::from(self.insert(key, *rid));
        }
        added
    }

    /// The record ids of `key`, ascending, until `f` returns false.
    pub fn rids_of(&self, key: &[u8], mut f: impl FnMut(u64) -> bool) {
        self.scan(Bound::Included(key), Bound::Included(key), false, |_, rid| f(rid));
    }

    /// The smallest record id of `key`.
    pub fn first_rid(&self, key: &[u8]) -> Option<u64> {
        let mut out = None;
        self.rids_of(key, |rid| {
            out = Some(rid);
            false
        });
        out
    }

    /// Visits the entries whose keys are within the bounds, in order (or reverse order), until
    /// `f` returns false. The bounds are keys (no record id): an included key takes all its
    /// entries.
    pub fn scan(&self, lo: Bound<&[u8]>, hi: Bound<&[u8]>, reverse: bool, mut f: impl FnMut(&[u8], u64) -> bool) {
        let above_lo = |key: &[u8]| match lo {
            Bound::Included(k) => key >= k,
            Bound::Excluded(k) => key > k,
            Bound::Unbounded => true,
        };
        let below_hi = |key: &[u8]| match hi {
            Bound::Included(k) => key <= k,
            Bound::Excluded(k) => key < k,
            Bound::Unbounded => true,
        };
        if let Bound::Included(k) | Bound::Excluded(k) = lo {
            // Every entry of a key at or above `k` is above `k`.
            if &self.tail[..] < k {
                return;
            }
        }
        if !reverse {
            let start: Bound<&[u8]> = match lo {
                Bound::Included(k) | Bound::Excluded(k) => Bound::Included(k),
                Bound::Unbounded => Bound::Unbounded,
            };
            // The leaf that may hold the first entry, then the ones after it.
            let first = match start {
                Bound::Included(k) => self.leaf_of(k).map(|(l, _)| l),
                _ => None,
            };
            let leaves = match first {
                Some(l) => self.leaves.range::<[u8], _>((Bound::Included(l), Bound::Unbounded)),
                None => self.leaves.range::<[u8], _>(..),
            };
            for (_, page) in leaves {
                let mut pos = 0;
                while let Some(a) = at(page, pos) {
                    pos = a.end;
                    let key = &page[a.start..a.start + a.key_len];
                    if !above_lo(key) {
                        continue;
                    }
                    if !below_hi(key) || !f(key, a.rid) {
                        return;
                    }
                }
            }
        } else {
            // The leaf that may hold the last entry (`hi ‖ 0xFF` is above all of hi's entries).
            let last: Option<&[u8]> = match hi {
                Bound::Included(k) | Bound::Excluded(k) => {
                    let mut probe = k.to_vec();
                    probe.push(0xFF);
                    self.leaf_of(&probe).map(|(l, _)| l)
                }
                Bound::Unbounded => None,
            };
            let leaves = match last {
                Some(l) => self.leaves.range::<[u8], _>((Bound::Unbounded, Bound::Included(l))),
                None => self.leaves.range::<[u8], _>(..),
            };
            let mut offsets: Vec<At> = Vec::new();
            for (_, page) in leaves.rev() {
                offsets.clear();
                let mut pos = 0;
                while let Some(a) = at(page, pos) {
                    pos = a.end;
                    offsets.push(a);
                }
                for a in offsets.iter().rev() {
                    let key = &page[a.start..a.start + a.key_len];
                    if !below_hi(key) {
                        continue;
                    }
                    if !above_lo(key) || !f(key, a.rid) {
                        return;
                    }
                }
            }
        }
    }

    /// Every entry in order, until `f` returns false.
    pub fn for_each(&self, f: impl FnMut(&[u8], u64) -> bool) {
        self.scan(Bound::Unbounded, Bound::Unbounded, false, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(t: &KeyTree) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        t.for_each(|k, r| {
            out.push((k.to_vec(), r));
            true
        });
        out
    }

    /// Keys larger than a leaf still go in order (a leaf then holds one or two).
    #[test]
    fn keys_larger_than_a_leaf() {
        let mut t = KeyTree::new();
        let mut model = std::collections::BTreeSet::new();
        for i in 0..60u64 {
            let n = (i * 37) % 60;
            let key = crate::db::keystring::encode(&bson::Bson::String(format!("{n:04}{}", "x".repeat(if n % 3 == 0 { 3000 } else { 10 }))));
            t.insert(&key, n);
            model.insert((key, n));
        }
        assert_eq!(all(&t), model.iter().cloned().collect::<Vec<_>>());
        for (k, r) in model.iter().step_by(2) {
            assert!(t.remove(k, *r));
        }
        assert_eq!(all(&t), model.iter().skip(1).step_by(2).cloned().collect::<Vec<_>>());
    }

    /// Removing sorted pairs at once leaves what removing them one by one leaves.
    #[test]
    fn remove_sorted_is_removing_one_by_one() {
        let mut x: u64 = 11;
        for round in 0..40u64 {
            let mut t = KeyTree::new();
            let mut model = std::collections::BTreeSet::new();
            let n = 50 + round * 97;
            for i in 0..n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                // Few keys shared by many records, or many keys (long ones too), in any order.
                let key = match round % 3 {
                    0 => crate::db::keystring::encode(&bson::Bson::Int64((x >> 40) as i64 % 3)),
                    1 => crate::db::keystring::encode(&bson::Bson::Int64(i as i64)),
                    _ => crate::db::keystring::encode(&bson::Bson::String(format!("{:05}{}", (x >> 33) % 997, "k".repeat((x >> 50) as usize % 200)))),
                };
                t.insert(&key, i + 1);
                model.insert((key, i + 1));
            }
            // Remove a share of them (every one in some rounds), plus pairs that are not there.
            let share = [1, 2, 3, 7][round as usize % 4];
            let mut gone: Vec<(Vec<u8>, u64)> = model.iter().enumerate().filter(|(j, _)| (*j as u64 + round) % share == 0).map(|(_, p)| p.clone()).collect();
            gone.push((crate::db::keystring::encode(&bson::Bson::Int64(-5)), 3));
            gone.push((crate::db::keystring::encode(&bson::Bson::String("zzz".into())), 1));
            gone.push((crate::db::keystring::encode(&bson::Bson::Int64(1)), n + 7));
            gone.sort();
            let pairs: Vec<(&[u8], u64)> = gone.iter().map(|(k, r)| (&k[..], *r)).collect();
            let mut one = t.clone();
            let mut by_rid = t.clone();
            let mut expected = 0;
            let mut gone_rids = std::collections::HashSet::new();
            for (k, r) in &pairs {
                if one.remove(k, *r) {
                    expected += 1;
                    gone_rids.insert(*r);
                }
                model.remove(&(k.to_vec(), *r));
            }
            // Each record has one entry here: dropping the records' ids drops the same pairs.
            assert_eq!(by_rid.retain_rids(|r| !gone_rids.contains(&r)), expected, "round {round}");
            assert_eq!(by_rid.len(), model.len());
            assert_eq!(all(&by_rid), model.iter().cloned().collect::<Vec<_>>(), "round {round}");
            assert_eq!(by_rid.tail, one.tail, "round {round}");
            let k = crate::db::keystring::encode(&bson::Bson::Int64(2));
            assert!(by_rid.insert(&k, 2_000_000));
            assert!(all(&by_rid).contains(&(k, 2_000_000)), "round {round}");
            assert_eq!(t.remove_sorted(&pairs), expected, "round {round}");
            assert_eq!(t.len(), model.len());
            assert_eq!(all(&t), model.iter().cloned().collect::<Vec<_>>(), "round {round}");
            assert_eq!(t.tail, one.tail, "round {round}");
            // The tree still takes inserts and lookups.
            let k = crate::db::keystring::encode(&bson::Bson::Int64(1));
            t.insert(&k, 1_000_000);
            assert!(t.first_rid(&k).is_some());
        }
    }

    /// Adding sorted pairs at once leaves what adding them one by one leaves (the entries, the
    /// count, the greatest entry), into empty trees, full leaves and long keys, with pairs that
    /// are there already; the tree then still takes single inserts, removals and lookups.
    #[test]
    fn insert_sorted_is_inserting_one_by_one() {
        let mut x: u64 = 5;
        for round in 0..48u64 {
            let mut next = || {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x
            };
            let key = |round: u64, r: u64, i: u64| match round % 3 {
                0 => crate::db::keystring::encode(&bson::Bson::Int64((r >> 40) as i64 % 3)),
                1 => crate::db::keystring::encode(&bson::Bson::Int64((r >> 20) as i64 % (3 * i as i64 + 1))),
                _ => crate::db::keystring::encode(&bson::Bson::String(format!("{:05}{}", (r >> 33) % 997, "k".repeat((r >> 50) as usize % if round % 4 == 0 { 2000 } else { 200 })))),
            };
            let mut t = KeyTree::new();
            let mut model = std::collections::BTreeSet::new();
            let n = if round % 8 == 0 { 0 } else { 50 + round * 97 };
            for i in 0..n {
                let k = key(round, next(), i);
                t.insert(&k, i + 1);
                model.insert((k, i + 1));
            }
            if round % 5 == 1 {
                t = KeyTree::from_sorted(model.iter().cloned());
            }
            let m = [1, 30, 400, 3000][round as usize % 4];
            let mut new: Vec<(Vec<u8>, u64)> = (0..m).map(|i| (key(round, next(), i + n), next() % (2 * n + 10) + 1)).collect();
            // Some pairs already there.
            new.extend(model.iter().step_by(7).take(20).cloned());
            new.sort();
            new.dedup();
            let pairs: Vec<(&[u8], u64)> = new.iter().map(|(k, r)| (&k[..], *r)).collect();
            let mut one = t.clone();
            let mut expected = 0;
            for (k, r) in &pairs {
                expected += usize::from(one.insert(k, *r));
                model.insert((k.to_vec(), *r));
            }
            assert_eq!(t.insert_sorted(&pairs), expected, "round {round}");
            assert_eq!(t.len(), model.len(), "round {round}");
            assert_eq!(all(&t), model.iter().cloned().collect::<Vec<_>>(), "round {round}");
            assert_eq!(t.tail, one.tail, "round {round}");
            assert!(t.leaves.iter().skip(1).all(|(lower, p)| at(p, 0).is_some_and(|a| lower[..] <= p[a.start..a.end])), "round {round}");
            for (k, r) in model.iter().step_by(3) {
                assert!(t.remove(k, *r), "round {round}");
                assert!(t.insert(k, *r), "round {round}");
                let mut rids = Vec::new();
                t.rids_of(k, |x| {
                    rids.push(x);
                    true
                });
                assert!(rids.contains(r), "round {round}");
            }
        }
    }

    #[test]
    fn record_ids_order_as_bytes_and_read_back() {
        let rids = [0u64, 1, 31, 32, 255, 8191, 8192, 100_000, 1 << 20, (1 << 53) - 1, 1 << 53, 1 << 60, u64::MAX];
        let mut last = Vec::new();
        for rid in rids {
            let mut page = vec![0u8];
            rid_bytes(rid, &mut page);
            assert!(page[1..] > last[..], "{rid}");
            last = page[1..].to_vec();
            let a = at(&page, 0).unwrap();
            assert_eq!((a.rid, a.end), (rid, page.len()));
        }
        let mut b = Vec::new();
        rid_bytes(100_000, &mut b);
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn inserts_removes_and_scans_in_order() {
        let mut t = KeyTree::new();
        let mut model = std::collections::BTreeSet::new();
        // Pseudo-random keys of varied lengths, several records per key, through many splits.
        let mut x: u64 = 7;
        for i in 0..5000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key: Vec<u8> = crate::db::keystring::encode(&bson::Bson::Int64((x >> 40) as i64 % 700));
            let rid = (x >> 20) % 3 + i % 5;
            assert_eq!(t.insert(&key, rid), model.insert((key.clone(), rid)));
            if i % 3 == 0 {
                let key = crate::db::keystring::encode(&bson::Bson::Int64((x >> 30) as i64 % 700));
                assert_eq!(t.remove(&key, i % 5), model.remove(&(key, i % 5)));
            }
            if i % 7 == 0 {
                // The greatest entry goes, and the next greatest is found.
                if let Some((k, r)) = model.iter().next_back().cloned() {
                    assert!(t.remove(&k, r));
                    model.remove(&(k, r));
                }
            }
            let tail = model.iter().next_back().map(|(k, r)| {
                let mut e = k.clone();
                rid_bytes(*r, &mut e);
                e
            });
            assert_eq!(t.tail, tail.unwrap_or_default());
        }
        assert_eq!(t.len(), model.len());
        assert_eq!(all(&t), model.iter().cloned().collect::<Vec<_>>());
        let built = KeyTree::from_sorted(model.iter().cloned());
        assert_eq!(all(&built), all(&t));
        // Ranges, forwards and backwards, with every kind of bound.
        let k = |i: i64| crate::db::keystring::encode(&bson::Bson::Int64(i));
        for (lo, hi) in [(100, 200), (0, 0), (650, 700), (5, 5)] {
            let (a, b) = (k(lo), k(hi));
            for (lb, hb) in [
                (Bound::Included(&a[..]), Bound::Included(&b[..])),
                (Bound::Excluded(&a[..]), Bound::Excluded(&b[..])),
                (Bound::Included(&a[..]), Bound::Excluded(&b[..])),
                (Bound::Unbounded, Bound::Included(&b[..])),
                (Bound::Excluded(&a[..]), Bound::Unbounded),
            ] {
                let inside = |key: &Vec<u8>| {
                    (match lb {
                        Bound::Included(x) => &key[..] >= x,
                        Bound::Excluded(x) => &key[..] > x,
                        Bound::Unbounded => true,
                    }) && (match hb {
                        Bound::Included(x) => &key[..] <= x,
                        Bound::Excluded(x) => &key[..] < x,
                        Bound::Unbounded => true,
                    })
                };
                let expected: Vec<(Vec<u8>, u64)> = model.iter().filter(|(key, _)| inside(key)).cloned().collect();
                for built in [&t, &built] {
                    let mut fwd = Vec::new();
                    built.scan(lb, hb, false, |key, r| {
                        fwd.push((key.to_vec(), r));
                        true
                    });
                    assert_eq!(fwd, expected, "{lo}..{hi} {lb:?} {hb:?}");
                    let mut back = Vec::new();
                    built.scan(lb, hb, true, |key, r| {
                        back.push((key.to_vec(), r));
                        true
                    });
                    back.reverse();
                    assert_eq!(back, expected, "backwards {lo}..{hi}");
                }
            }
        }
        // Appends leave full leaves.
        let mut seq = KeyTree::new();
        for i in 0..10_000i64 {
            seq.insert(&k(i), i as u64 + 1);
        }
        let bytes: usize = seq.leaves.values().map(Vec::len).sum();
        assert!(seq.leaves.len() * LEAF < bytes * 11 / 10, "{} leaves for {bytes} bytes", seq.leaves.len());
        assert_eq!(seq.first_rid(&k(5000)), Some(5001));
        for i in 0..10_000i64 {
            assert!(seq.remove(&k(i), i as u64 + 1));
        }
        assert!(seq.is_empty() && all(&seq).is_empty());
    }
}
