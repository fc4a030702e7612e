//! A fixed-size array of 4-bit saturating counters, 16 per 64-bit word, safe to update from
//! many threads.
//!
//! Counter `i` lives in word `i >> 4` at bits `4·(i & 15)..4·(i & 15) + 4`. Every update is a
//! compare-and-swap of its whole word, so concurrent updates of neighbouring counters never
//! lose each other's counts, and a counter never carries into its neighbour. A counter that
//! reaches [`MAX`] stays there: it is never incremented past it nor decremented, so saturation
//! can only ever over-count, never create a false negative.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

/// The saturated value: a counter at 15 has lost track of its count and stays at 15.
pub const MAX: u8 = 15;
/// Counters per 64-bit word.
pub(crate) const PER_WORD: u64 = 16;
const LOW_NIBBLES: u64 = 0x1111_1111_1111_1111;

// `AtomicU64` has the size, bit validity and (on our targets) alignment of `u64`.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

pub(crate) struct Counters {
    words: Box<[AtomicU64]>,
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
    /// `num_words` zeroed words. Allocation failure, or an array beyond the process's memory
    /// limit, is an error; zeroed pages come lazily from the allocator (calloc).
    pub(crate) fn zeroed(num_words: usize) -> Result<Counters> {
        if num_words == 0 {
            return Ok(Counters {
                words: Box::new([]),
            });
        }
        let bytes = (num_words as u64).saturating_mul(8);
        if let Some(limit) = crate::memory_limit::limit().filter(|&limit| bytes > limit) {
            return Err(Error::Allocation {
                what: "the counter array",
                bytes,
                limit: Some(limit),
            });
        }
        let too_big = || Error::allocation("the counter array", bytes);
        let layout = Layout::array::<AtomicU64>(num_words).map_err(|_| too_big())?;
        // SAFETY: non-zero size; null is handled; all-zero bytes are a valid AtomicU64; the
        // box frees exactly this allocation with the same layout.
        unsafe {
            let ptr = alloc_zeroed(layout) as *mut AtomicU64;
            if ptr.is_null() {
                return Err(too_big());
            }
            Ok(Counters {
                words: Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, num_words)),
            })
        }
    }

    /// Takes ownership of `words` without copying.
    pub(crate) fn from_words(words: Vec<u64>) -> Counters {
        let words = words.into_boxed_slice();
        let len = words.len();
        // SAFETY: same size, alignment (checked above) and bit validity; the box is re-made
        // over the very allocation it came from.
        let words = unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                Box::into_raw(words) as *mut AtomicU64,
                len,
            ))
        };
        Counters { words }
    }

    pub(crate) fn try_clone(&self) -> Result<Counters> {
        let copy = Counters::zeroed(self.words.len())?;
        for (to, from) in copy.words.iter().zip(self.words.iter()) {
            to.store(from.load(Relaxed), Relaxed);
        }
        Ok(copy)
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
        // SAFETY: `&mut self` excludes every other access; AtomicU64 and u64 share layout.
        unsafe {
            std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u64, self.words.len())
        }
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
