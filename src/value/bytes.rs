//! Byte strings compared a word at a time: the bodies of the WebAssembly build's `memcmp` and
//! `bcmp` (`bindings.rs`), which every slice comparison of the engine calls (index keys are
//! byte strings that order as their values: `db/keystring.rs`). Nothing here may compare slices
//! with `==` or `cmp`: in that build those call back into these functions.

/// Eight bytes (a `chunks_exact(8)` chunk) as a number that orders as the bytes do
/// (big-endian). Always inlined: called once per eight bytes compared.
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    match <[u8; 8]>::try_from(chunk) {
        Ok(w) => u64::from_be_bytes(w),
        Err(_) => 0,
    }
}

/// C's `memcmp` of two byte strings of the same length: negative, zero or positive as `a` is
/// below, equal to or above `b` (the first differing byte decides, as unsigned).
#[inline]
pub fn compare(a: &[u8], b: &[u8]) -> i32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut wa = a.chunks_exact(8);
    let mut wb = b.chunks_exact(8);
    for (x, y) in (&mut wa).zip(&mut wb) {
        let (x, y) = (word(x), word(y));
        if x != y {
            return if x < y { -1 } else { 1 };
        }
    }
    for (x, y) in wa.remainder().iter().zip(wb.remainder()) {
        if x != y {
            return i32::from(*x) - i32::from(*y);
        }
    }
    0
}

/// Whether two byte strings of the same length are equal (C's `bcmp` is its negation): the
/// first differing word ends the walk either way.
#[inline]
pub fn equal(a: &[u8], b: &[u8]) -> bool {
    compare(a, b) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order and equality as the slices' own, at every length and wherever the
        /// first difference falls (the tail bytes after the last whole word included).
        #[test]
        fn orders_as_slices_do(a in proptest::collection::vec(any::<u8>(), 0..40), flip in any::<(usize, u8)>()) {
            let mut b = a.clone();
            if !b.is_empty() {
                let i = flip.0 % b.len();
                b[i] = flip.1;
            }
            prop_assert_eq!(compare(&a, &b).signum(), a.cmp(&b) as i32);
            prop_assert_eq!(compare(&b, &a).signum(), b.cmp(&a) as i32);
            prop_assert_eq!(equal(&a, &b), a == b);
        }
    }

    #[test]
    fn the_first_difference_decides_unsigned() {
        assert!(compare(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0], &[0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) > 0);
        assert!(compare(&[1, 2, 3, 4, 5, 6, 7, 8, 0x01], &[1, 2, 3, 4, 5, 6, 7, 8, 0xF0]) < 0);
        assert_eq!(compare(&[], &[]), 0);
        assert!(equal(&[9; 17], &[9; 17]) && !equal(&[9; 17], &[[9; 16].as_slice(), &[8]].concat()));
    }
}
