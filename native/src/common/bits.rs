//! `Bits<W>`: a fixed-size bitset of `64 * W` bits, a plain `Copy` value (no heap).
//!
//! Bit `i` is cell `i` of a board, as in the Python engines' int bitsets.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A bitset of `64 * W` bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub const EMPTY: Self = Bits([0; W]);
    /// How many bits the set can hold.
    pub const CAPACITY: usize = 64 * W;

    /// The set `{i}`.
    #[inline]
    pub fn single(i: usize) -> Self {
        let mut out = Self::EMPTY;
        out.set(i);
        out
    }

    /// The set `{0, ..., n - 1}` (word by word: it masks rays in the playouts' inner loop).
    #[inline]
    pub fn first(n: usize) -> Self {
        let mut out = Self::EMPTY;
        for (k, word) in out.0.iter_mut().enumerate() {
            let below = n.saturating_sub(64 * k);
            *word = if below >= 64 { u64::MAX } else { (1u64 << below) - 1 };
        }
        out
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }

    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i >> 6] &= !(1 << (i & 63));
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub fn any(&self) -> bool {
        !self.is_empty()
    }

    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    #[inline]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// `self & !other`.
    #[inline]
    pub fn minus(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(other.0.iter()) {
            *a &= !b;
        }
        out
    }

    /// The lowest set bit, if any.
    #[inline]
    pub fn lowest(&self) -> Option<usize> {
        for (k, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return Some(k * 64 + w.trailing_zeros() as usize);
            }
        }
        None
    }

    /// The highest set bit, if any.
    #[inline]
    pub fn highest(&self) -> Option<usize> {
        for k in (0..W).rev() {
            let w = self.0[k];
            if w != 0 {
                return Some(k * 64 + 63 - w.leading_zeros() as usize);
            }
        }
        None
    }

    /// How many set bits are below bit `i`.
    #[inline]
    pub fn count_below(&self, i: usize) -> u32 {
        let (word, bit) = (i >> 6, i & 63);
        let mut count = 0;
        for k in 0..word {
            count += self.0[k].count_ones();
        }
        count + (self.0[word] & ((1u64 << bit) - 1)).count_ones()
    }

    /// How many set bits are above bit `i`.
    #[inline]
    pub fn count_above(&self, i: usize) -> u32 {
        let (word, bit) = (i >> 6, i & 63);
        let mut count = 0;
        for k in word + 1..W {
            count += self.0[k].count_ones();
        }
        count + (self.0[word] >> bit >> 1).count_ones()
    }

    /// The `index`-th set bit in ascending order (`index < count()`).
    pub fn nth(&self, mut index: u32) -> Option<usize> {
        for (k, &w) in self.0.iter().enumerate() {
            let c = w.count_ones();
            if index < c {
                let mut word = w;
                for _ in 0..index {
                    word &= word - 1;
                }
                return Some(k * 64 + word.trailing_zeros() as usize);
            }
            index -= c;
        }
        None
    }

    /// The set bits, ascending.
    #[inline]
    pub fn iter(&self) -> BitIter<W> {
        BitIter { bits: *self, word: 0 }
    }

    /// The set as little-endian bytes (a Python int's `from_bytes(..., "little")`).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// Iterator over the set bits of a [`Bits`], ascending.
pub struct BitIter<const W: usize> {
    bits: Bits<W>,
    word: usize,
}

impl<const W: usize> Iterator for BitIter<W> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < W {
            let w = self.bits.0[self.word];
            if w != 0 {
                self.bits.0[self.word] = w & (w - 1);
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}

macro_rules! bitwise {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign:ident, $op_assign:tt) => {
        impl<const W: usize> $trait for Bits<W> {
            type Output = Self;
            #[inline]
            fn $method(mut self, rhs: Self) -> Self {
                for (a, b) in self.0.iter_mut().zip(rhs.0.iter()) {
                    *a $op_assign b;
                }
                self
            }
        }
        impl<const W: usize> $assign_trait for Bits<W> {
            #[inline]
            fn $assign(&mut self, rhs: Self) {
                for (a, b) in self.0.iter_mut().zip(rhs.0.iter()) {
                    *a $op_assign b;
                }
            }
        }
    };
}

bitwise!(BitAnd, bitand, BitAndAssign, bitand_assign, &=);
bitwise!(BitOr, bitor, BitOrAssign, bitor_assign, |=);
bitwise!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^=);

impl<const W: usize> Not for Bits<W> {
    type Output = Self;
    #[inline]
    fn not(mut self) -> Self {
        for a in self.0.iter_mut() {
            *a = !*a;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_counts_and_selects_the_nth_bit() {
        let mut b = Bits::<2>::EMPTY;
        for i in [0, 5, 63, 64, 100] {
            b.set(i);
        }
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 5, 63, 64, 100]);
        assert_eq!(b.count(), 5);
        assert_eq!(b.nth(3), Some(64));
        assert_eq!(b.nth(5), None);
        assert_eq!(b.lowest(), Some(0));
        b.clear(0);
        assert_eq!(b.lowest(), Some(5));
        assert!(b.intersects(&Bits::single(100)));
        assert_eq!((b.minus(&Bits::single(5))).count(), 3);
        assert_eq!(b.highest(), Some(100));
        assert_eq!(b.count_below(64), 2);
        assert_eq!(b.count_below(65), 3);
        assert_eq!(b.count_above(5), 3);
        assert_eq!(b.count_above(63), 2);
    }

    #[test]
    fn first_holds_exactly_the_bits_below_n() {
        for n in [0, 1, 5, 63, 64, 65, 127, 128, 200, 256] {
            let f = Bits::<4>::first(n);
            assert_eq!(f.count() as usize, n);
            assert_eq!(f.iter().collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());
        }
    }
}
