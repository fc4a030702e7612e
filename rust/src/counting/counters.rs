//! A fixed-size array of 4-bit saturating counters, 16 per 64-bit word, safe to update from
//! many threads.
//!
//! Counter `i` lives in word `i >> 4` at bits `4·(i & 15)..4·(i & 15) + 4`. Every update is a
//! compare-and-swap of its whole word, so concurrent updates of neighbouring counters never
//! lose each other's counts, and a counter never carries into its neighbour. A counter that
//! reaches [`MAX`] stays there: it is never incremented past it nor decremented, so saturation
//! can only ever over-count, never create a false negative.

use crate::atomic_words::{self, Align};
use crate::error::Result;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

/// The saturated value: a counter at 15 has lost track of its count and stays at 15.
pub const MAX: u8 = 15;
/// Counters per 64-bit word.
pub(crate) const PER_WORD: u64 = 16;
const LOW_NIBBLES: u64 = 0x1111_1111_1111_1111;

pub(crate) struct Counters {
    words: atomic_words::Words,
}

/// Words holding `num_counters` counters.
pub(crate) fn words_for(num_counters: u64) -> u64 {
    num_counters.div_ceil(PER_WORD)
}

/// A mask with bit 0 of every nonzero nibble of `word` set.
#[inline(always)]
pub(crate) fn nonzero_nibbles(word: u64) -> u64 {
    (word | word >> 1 | word >> 2 | word >> 3) & LOW_NIBBLES
}

/// A mask with bit 0 of every nibble of `word` that is 15 set.
#[inline(always)]
pub(crate) fn saturated_nibbles(word: u64) -> u64 {
    word & word >> 1 & word >> 2 & word >> 3 & LOW_NIBBLES
}

impl Counters {
    /// `num_words` zeroed words; allocation failure, or an array beyond the process's memory
    /// limit, is an error ([`atomic_words::zeroed`]).
    pub(crate) fn zeroed(num_words: usize) -> Result<Counters> {
        Ok(Counters {
            words: atomic_words::zeroed(num_words, Align::Word, "the counter array")?,
        })
    }

    /// Takes ownership of `words` without copying.
    pub(crate) fn from_words(words: Vec<u64>) -> Counters {
        Counters {
            words: atomic_words::from_vec(words),
        }
    }

    pub(crate) fn try_clone(&self) -> Result<Counters> {
        Ok(Counters {
            words: atomic_words::try_clone(&self.words, Align::Word, "the counter array")?,
        })
    }

    /// The first word, for vector loads (see `BitArray::as_ptr`: gathers are aligned 8-byte
    /// loads, never torn).
    pub(crate) fn as_ptr(&self) -> *const u64 {
        self.words.as_ptr().cast()
    }

    /// Hints the CPU to fetch the word holding counter `index` into cache.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        atomic_words::prefetch(&self.words, (index >> 4) as usize)
    }

    pub(crate) fn len_words(&self) -> usize {
        self.words.len()
    }

    #[inline(always)]
    fn slot(&self, index: u64) -> (&AtomicU64, u32) {
        (&self.words[(index >> 4) as usize], (index as u32 & 15) * 4)
    }

    #[inline(always)]
    pub(crate) fn get(&self, index: u64) -> u8 {
        let (word, shift) = self.slot(index);
        (word.load(Relaxed) >> shift) as u8 & MAX
    }

    /// Adds one unless the counter is saturated; returns whether it changed.
    #[inline(always)]
    pub(crate) fn increment(&self, index: u64) -> bool {
        let (word, shift) = self.slot(index);
        word.fetch_update(AcqRel, Acquire, |w| {
            ((w >> shift) as u8 & MAX != MAX).then(|| w + (1 << shift))
        })
        .is_ok()
    }

    /// Subtracts one unless the counter is 0 or saturated; returns whether it changed.
    #[inline(always)]
    pub(crate) fn decrement(&self, index: u64) -> bool {
        let (word, shift) = self.slot(index);
        word.fetch_update(AcqRel, Acquire, |w| {
            let c = (w >> shift) as u8 & MAX;
            (c != 0 && c != MAX).then(|| w - (1 << shift))
        })
        .is_ok()
    }

    /// Word `i` (a snapshot if other threads write).
    #[inline(always)]
    pub(crate) fn word(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }

    /// The words, one snapshot each.
    pub(crate) fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.words.iter().map(|w| w.load(Relaxed))
    }

    /// Replaces word `i` by `update(word)`, atomically.
    pub(crate) fn update_word(&self, i: usize, update: impl Fn(u64) -> u64) {
        let _ = self.words[i].fetch_update(AcqRel, Acquire, |w| Some(update(w)));
    }

    /// The words of an array the caller owns exclusively (decoders filling a new filter).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        atomic_words::as_mut_u64(&mut self.words)
    }

    pub(crate) fn clear(&self) {
        self.words.iter().for_each(|w| w.store(0, Relaxed));
    }
}

/// The 16 counters of `a` plus those of `b`, each saturating at 15 (a saturated counter of
/// either side stays saturated).
pub(crate) fn saturating_add(a: u64, b: u64) -> u64 {
    (0..16).fold(0, |out, i| {
        let shift = i * 4;
        let sum = ((a >> shift) & 15) + ((b >> shift) & 15);
        out | sum.min(MAX as u64) << shift
    })
}

/// The 16 counters of `a` minus those of `b`, each floored at 0; a saturated counter of `a`
/// stays saturated (its true count is unknown, so it is never decremented).
pub(crate) fn saturating_sub(a: u64, b: u64) -> u64 {
    (0..16).fold(0, |out, i| {
        let shift = i * 4;
        let (x, y) = ((a >> shift) & 15, (b >> shift) & 15);
        let diff = if x == MAX as u64 {
            x
        } else {
            x.saturating_sub(y)
        };
        out | diff << shift
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_saturate_and_never_carry() {
        let c = Counters::zeroed(2).unwrap();
        for _ in 0..20 {
            c.increment(5);
        }
        assert_eq!(c.get(5), MAX);
        assert_eq!((c.get(4), c.get(6)), (0, 0), "no carry into neighbours");
        assert!(!c.increment(5));
        assert!(!c.decrement(5), "a saturated counter is never decremented");
        assert_eq!(c.get(5), MAX);
        assert!(!c.decrement(6), "a zero counter stays zero");
        assert!(c.increment(31) && c.get(31) == 1 && c.word(1) == 1 << 60);
        assert!(c.decrement(31) && c.get(31) == 0);
    }

    #[test]
    fn word_arithmetic_saturates_per_counter() {
        let a = 0xF0E1_0000_0000_0009u64;
        let b = 0x0102_0000_0000_0007u64;
        assert_eq!(saturating_add(a, b), 0xF1E3_0000_0000_000F);
        assert_eq!(saturating_sub(a, b), 0xF0E0_0000_0000_0002);
        assert_eq!(saturating_sub(b, a), 0x0101_0000_0000_0000);
        assert_eq!(nonzero_nibbles(0x0F00_0010), 0x0100_0010);
        assert_eq!(saturated_nibbles(0xF0EF), 0x1001);
    }
}
