//! A fixed-size array of bits in 64-bit words, safe to set and read from many threads.
//!
//! Bit `b` lives in word `b >> 6` at bit `b & 63` (Guava's and Spark's addressing). Setting a
//! bit is an atomic OR on its word, so concurrent puts never lose each other's bits.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

// `AtomicU64` has the size and bit validity of `u64`; on the targets we build for, also its
// alignment, which lets a `Vec<u64>` become the bit array without copying.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

pub(crate) struct BitArray {
    words: Box<[AtomicU64]>,
}

impl BitArray {
    /// An all-zero array of `num_words` words. Allocation failure is an error, not an abort,
    /// and the zeroed pages come from the allocator lazily (calloc), so huge sparse filters
    /// cost no time to create. An array larger than the process's memory limit
    /// ([`memory_limit`](crate::memory_limit)) is refused here, since the kernel would kill the
    /// process when the pages are first written.
    pub(crate) fn zeroed(num_words: usize) -> Result<BitArray> {
        if num_words == 0 {
            return Ok(BitArray {
                words: Box::new([]),
            });
        }
        let bytes = (num_words as u64).saturating_mul(8);
        if let Some(limit) = crate::memory_limit::limit().filter(|&limit| bytes > limit) {
            return Err(Error::Allocation {
                what: "the bit array",
                bytes,
                limit: Some(limit),
            });
        }
        let too_big = || Error::allocation("the bit array", bytes);
        let layout = Layout::array::<AtomicU64>(num_words).map_err(|_| too_big())?;
        // SAFETY: the layout has non-zero size; a null return is handled; all-zero bytes are a
        // valid AtomicU64; the pointer and length describe exactly the allocation that
        // `Box<[AtomicU64]>` will free with the same layout.
        unsafe {
            let ptr = alloc_zeroed(layout) as *mut AtomicU64;
            if ptr.is_null() {
                return Err(too_big());
            }
            Ok(BitArray {
                words: Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, num_words)),
            })
        }
    }

    /// A copy of the words (each read once, so a snapshot per word if other threads write);
    /// allocation failure is an error.
    pub(crate) fn try_clone(&self) -> Result<BitArray> {
        let copy = BitArray::zeroed(self.len_words())?;
        for (to, from) in copy.words.iter().zip(self.words.iter()) {
            to.store(from.load(Relaxed), Relaxed);
        }
        Ok(copy)
    }

    /// Takes ownership of `words` without copying.
    pub(crate) fn from_words(words: Vec<u64>) -> BitArray {
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
        BitArray { words }
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
        #[cfg(target_arch = "x86_64")]
        if let Some(word) = self.words.get((index >> 6) as usize) {
            // SAFETY: prefetch never faults and the address is inside the array anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    word.as_ptr() as *const i8
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// The words as plain integers, for a caller that owns the array exclusively (a decoder
    /// filling a filter nobody else can see yet): no atomic instructions needed.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        // SAFETY: `&mut self` excludes every other access; AtomicU64 and u64 have the same
        // size, alignment (asserted above) and bit validity.
        unsafe { &mut *(std::ptr::from_mut::<[AtomicU64]>(&mut self.words) as *mut [u64]) }
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
