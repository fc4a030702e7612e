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

    /// Adds the sixteen counts of `counts` to word `i`'s counters, each saturating at 15, in
    /// one atomic update; returns whether any counter changed.
    pub(crate) fn add_to_word(&self, i: usize, counts: u64) -> bool {
        self.words[i]
            .fetch_update(AcqRel, Acquire, |w| {
                let sum = saturating_add(w, counts);
                (sum != w).then_some(sum)
            })
            .is_ok()
    }

    /// Subtracts the sixteen counts of `counts` from word `i`'s counters, each floored at 0
    /// and saturated ones left at 15, in one atomic update.
    pub(crate) fn subtract_from_word(&self, i: usize, counts: u64) {
        self.update_word(i, |w| saturating_sub(w, counts));
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

/// The even counters of a word (or the odd ones shifted down), one to a byte.
const EVEN_NIBBLES: u64 = 0x0F0F_0F0F_0F0F_0F0F;
/// Bit 7 of every byte.
const BYTE_TOPS: u64 = 0x8080_8080_8080_8080;

/// 0xFF in every byte whose bit 7 is set in `tops` (a subset of [`BYTE_TOPS`]), else 0.
#[inline(always)]
fn byte_mask(tops: u64) -> u64 {
    (tops >> 7) * 0xFF
}

/// Bytes `a + b` (each at most 15), each capped at 15: a sum of at most 30 plus 0x70 reaches
/// bit 7 exactly when it is 16 or more, with no carry out of its byte.
#[inline(always)]
fn add_bytes_capped(a: u64, b: u64) -> u64 {
    let sum = a + b;
    let over = byte_mask((sum + 0x7070_7070_7070_7070) & BYTE_TOPS);
    sum & !over | EVEN_NIBBLES & over
}

/// Bytes `a − b` (each at most 15), each floored at 0, and left at 15 where `a` is 15:
/// `(a | 0x80) − b` stays within its byte, its bit 7 set exactly when a ≥ b; 15 plus 0x71
/// reaches bit 7, 14 and below do not.
#[inline(always)]
fn sub_bytes_floored(a: u64, b: u64) -> u64 {
    let diff = (a | BYTE_TOPS) - b;
    let kept = diff & !BYTE_TOPS & byte_mask(diff & BYTE_TOPS);
    let saturated = byte_mask((a + 0x7171_7171_7171_7171) & BYTE_TOPS);
    kept & !saturated | a & saturated
}

/// The 16 counters of `a` plus those of `b`, each saturating at 15 (a saturated counter of
/// either side stays saturated); the even and the odd counters a byte each, side by side.
#[inline]
pub(crate) fn saturating_add(a: u64, b: u64) -> u64 {
    let even = add_bytes_capped(a & EVEN_NIBBLES, b & EVEN_NIBBLES);
    let odd = add_bytes_capped(a >> 4 & EVEN_NIBBLES, b >> 4 & EVEN_NIBBLES);
    even | odd << 4
}

/// The 16 counters of `a` minus those of `b`, each floored at 0; a saturated counter of `a`
/// stays saturated (its true count is unknown, so it is never decremented).
#[inline]
pub(crate) fn saturating_sub(a: u64, b: u64) -> u64 {
    let even = sub_bytes_floored(a & EVEN_NIBBLES, b & EVEN_NIBBLES);
    let odd = sub_bytes_floored(a >> 4 & EVEN_NIBBLES, b >> 4 & EVEN_NIBBLES);
    even | odd << 4
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

    /// The word-at-once arithmetic against the rule counter by counter: every pair of counter
    /// values in every position (the other counters seeded at random), then seeded words.
    #[test]
    fn word_arithmetic_matches_counter_by_counter() {
        let each = |a: u64, b: u64, op: fn(u64, u64) -> u64| {
            (0..16).fold(0, |out, i| {
                out | op(a >> (4 * i) & 15, b >> (4 * i) & 15) << (4 * i)
            })
        };
        let add = |x: u64, y: u64| (x + y).min(15);
        let sub = |x: u64, y: u64| if x == 15 { 15 } else { x.saturating_sub(y) };
        let mut state = 17;
        let mut random = || crate::testutil::splitmix64(&mut state);
        let mut pairs = Vec::new();
        for x in 0..16 {
            for y in 0..16 {
                for at in (0..64).step_by(4) {
                    let others = !(15u64 << at);
                    pairs.push((random() & others | x << at, random() & others | y << at));
                }
            }
        }
        pairs.extend((0..10_000).map(|_| (random(), random())));
        for (a, b) in pairs {
            assert_eq!(saturating_add(a, b), each(a, b, add), "{a:#x} + {b:#x}");
            assert_eq!(saturating_sub(a, b), each(a, b, sub), "{a:#x} - {b:#x}");
        }
    }
}
