//! A fixed-size array of bits in 64-bit words, safe to set and read from many threads.
//!
//! Bit `b` lives in word `b >> 6` at bit `b & 63` (Guava's and Spark's addressing). Setting a
//! bit is an atomic OR on its word, so concurrent puts never lose each other's bits.

use crate::atomic_words::{self, Align};
use crate::error::Result;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

pub(crate) struct BitArray {
    words: atomic_words::Words,
}

impl BitArray {
    /// An all-zero array of `num_words` words starting as `align` says; allocation failure,
    /// or an array beyond the process's memory limit, is an error ([`atomic_words::zeroed`]).
    pub(crate) fn zeroed(num_words: usize, align: Align) -> Result<BitArray> {
        Ok(BitArray {
            words: atomic_words::zeroed(num_words, align, "the bit array")?,
        })
    }

    /// A copy of the words (each read once, so a snapshot per word if other threads write),
    /// starting as `align` says; allocation failure is an error.
    pub(crate) fn try_clone(&self, align: Align) -> Result<BitArray> {
        Ok(BitArray {
            words: atomic_words::try_clone(&self.words, align, "the bit array")?,
        })
    }

    /// Takes ownership of `words` without copying.
    pub(crate) fn from_words(words: Vec<u64>) -> BitArray {
        BitArray {
            words: atomic_words::from_vec(words),
        }
    }

    /// The first word, for vector loads (`batch_avx512`). Each lane of a gather is an aligned
    /// 8-byte load, which x86 performs atomically, so like a `Relaxed` load it sees a word
    /// before or after a concurrent OR, never a torn one; puts only ever set bits.
    pub(crate) fn as_ptr(&self) -> *const u64 {
        self.words.as_ptr().cast()
    }

    #[inline(always)]
    pub(crate) fn len_words(&self) -> usize {
        self.words.len()
    }

    /// Sets bit `index`; returns whether it was clear before. Two threads setting the same
    /// clear bit may both return `true` (as with Guava's `put`); the bit is never lost.
    #[inline(always)]
    pub(crate) fn set(&self, index: u64) -> bool {
        let word = &self.words[(index >> 6) as usize];
        let mask = 1u64 << (index & 63);
        // No "already set?" branch: as the filter fills it becomes a coin flip (callgrind: 3.2
        // of 4.2 mispredictions per put). And the answer comes from a plain load, so the OR's
        // result is unused and it compiles to `lock or`, cheaper here than `lock bts`.
        let was_clear = word.load(Relaxed) & mask == 0;
        // Release: an `intersect_word` that reads this word after the OR also sees the caller's
        // earlier puts into other filters (see there). Free on x86, where every lock op is a
        // full barrier.
        word.fetch_or(mask, Release);
        was_clear
    }

    #[inline(always)]
    pub(crate) fn get(&self, index: u64) -> bool {
        self.words[(index >> 6) as usize].load(Relaxed) & (1u64 << (index & 63)) != 0
    }

    /// Hints the CPU to fetch the word holding bit `index` into cache.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        atomic_words::prefetch(&self.words, (index >> 6) as usize)
    }

    /// The words as plain integers, for a caller that owns the array exclusively (a decoder
    /// filling a filter nobody else can see yet): no atomic instructions needed.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        atomic_words::as_mut_u64(&mut self.words)
    }

    #[inline]
    pub(crate) fn word(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }

    /// The words as plain integers (a snapshot if other threads are writing).
    pub(crate) fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.words.iter().map(|w| w.load(Relaxed))
    }

    /// ORs `bits` into word `i`; returns whether any of them was clear.
    #[inline]
    pub(crate) fn or_word(&self, i: usize, bits: u64) -> bool {
        let word = &self.words[i];
        if word.load(Relaxed) & bits == bits {
            return false;
        }
        word.fetch_or(bits, Release);
        true
    }

    /// Word `i` of `self` becomes its AND with word `i` of `other`, atomically with respect
    /// to concurrent puts into `self`: the result is what an indivisible AND at some instant
    /// during the call would leave, plus possibly bits set in `self` during the call. It never
    /// clears a bit that `other` has by the time the word is done.
    ///
    /// A plain `fetch_and(other.word(i))` is not enough: a key put into `other` and then into
    /// `self` between the read of `other` and the AND loses its bits in `self` (measured: 29 of
    /// 10^7 keys), and a put into `self` between the read of `self`'s word and a store of the
    /// AND is overwritten. So: compare-and-swap against the word as read (a put in between
    /// makes it retry), then re-read `other` and give back the cleared bits it gained
    /// meanwhile. Bits that `other` gains after that re-read come with puts into `self` that
    /// follow the swap in `self`'s order, and set their bits again themselves.
    pub(crate) fn intersect_word(&self, i: usize, other: &BitArray) {
        let word = &self.words[i];
        let mut current = word.load(Acquire);
        loop {
            let theirs = other.words[i].load(Acquire);
            let kept = current & theirs;
            if kept == current {
                return;
            }
            // Acquire on success: if a put's OR into this word precedes the swap, its earlier
            // puts into `other` happen before the re-read below (release sequence of `set`).
            match word.compare_exchange_weak(current, kept, AcqRel, Acquire) {
                Ok(_) => {
                    let regained = current & !theirs & other.words[i].load(Acquire);
                    if regained != 0 {
                        word.fetch_or(regained, Release);
                    }
                    return;
                }
                Err(now) => current = now,
            }
        }
    }

    pub(crate) fn count_ones(&self) -> u64 {
        self.words().map(|w| w.count_ones() as u64).sum()
    }

    pub(crate) fn clear(&self) {
        self.words.iter().for_each(|w| w.store(0, Relaxed));
    }
}
