//! The storage under both filters: atomic 64-bit words ([`Words`]), allocated zeroed, fallibly
//! and starting on a cache line, or adopted from a `Vec<u64>` without copying; read as plain
//! words by an exclusive owner. `BitArray` (one bit per position) and the counting filter's `Counters` (a 4-bit
//! counter per position) put their own addressing on top.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

// `AtomicU64` has the size and bit validity of `u64`; on the targets we build for, also its
// alignment, which lets a `Vec<u64>` become the words without copying.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// An array's words: a boxed slice with the array at word `start`, so that an array allocated
/// [`Align::Line`] begins on a 64-byte boundary (a cache line: a BLOCKED filter's 512-bit
/// blocks then each occupy exactly one line, where a 16-byte-aligned allocation would split
/// most of them over two). Derefs to the array's words.
pub(crate) struct Words {
    storage: Box<[AtomicU64]>,
    start: usize,
    len: usize,
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: start + len ≤ storage.len(), set so by every constructor.
        unsafe {
            self.storage
                .get_unchecked(self.start..self.start + self.len)
        }
    }
}

impl std::ops::DerefMut for Words {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [AtomicU64] {
        // SAFETY: as in `deref`.
        unsafe {
            self.storage
                .get_unchecked_mut(self.start..self.start + self.len)
        }
    }
}

/// Words in a 64-byte line.
const LINE_WORDS: usize = 8;

/// Where a new array starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Wherever the allocator puts it (8-byte aligned at least): arrays probed a word at a
    /// time, which cost no byte beyond their words.
    Word,
    /// On a 64-byte boundary, for arrays read a line at a time (BLOCKED filters): up to seven
    /// words of padding.
    Line,
}

/// `num_words` zeroed words, starting as `align` says. Allocation failure is an error, not an
/// abort, and the zeroed pages come from the allocator lazily (calloc: the up to seven words
/// of padding that align a line's start cost no eager zeroing, where an aligned allocation
/// would be zeroed by hand), so huge sparse filters cost no time to create. An array larger
/// than the process's memory limit ([`memory_limit`]) is refused here, since the kernel would
/// kill the process when the pages are first written. `what` names the array in errors
/// ("the bit array").
///
/// [`memory_limit`]: crate::memory_limit
pub(crate) fn zeroed(num_words: usize, align: Align, what: &'static str) -> Result<Words> {
    if num_words == 0 {
        return Ok(Words {
            storage: Box::new([]),
            start: 0,
            len: 0,
        });
    }
    let bytes = (num_words as u64).saturating_mul(8);
    if let Some(limit) = crate::memory_limit::limit().filter(|&limit| bytes > limit) {
        return Err(Error::Allocation {
            what,
            bytes,
            limit: Some(limit),
        });
    }
    let too_big = || Error::allocation(what, bytes);
    let padding = match align {
        Align::Word => 0,
        Align::Line => LINE_WORDS - 1,
    };
    let padded = num_words.checked_add(padding).ok_or_else(too_big)?;
    let layout = Layout::array::<AtomicU64>(padded).map_err(|_| too_big())?;
    // SAFETY: the layout has non-zero size; a null return is handled; all-zero bytes are a
    // valid AtomicU64; the pointer and length describe exactly the allocation that
    // `Box<[AtomicU64]>` will free with the same layout.
    let storage = unsafe {
        let ptr = alloc_zeroed(layout) as *mut AtomicU64;
        if ptr.is_null() {
            return Err(too_big());
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, padded))
    };
    // The allocation is 8-byte aligned, so 0..=7 words reach the next line.
    let start = match align {
        Align::Word => 0,
        Align::Line => (storage.as_ptr() as usize).wrapping_neg() % 64 / 8,
    };
    Ok(Words {
        storage,
        start,
        len: num_words,
    })
}

/// A copy of `words` (each read once: a snapshot per word if other threads write), starting as
/// `align` says; allocation failure is an error.
pub(crate) fn try_clone(words: &[AtomicU64], align: Align, what: &'static str) -> Result<Words> {
    let copy = zeroed(words.len(), align, what)?;
    for (to, from) in copy.iter().zip(words) {
        to.store(from.load(Relaxed), Relaxed);
    }
    Ok(copy)
}

/// Takes ownership of `words` without copying (so wherever the `Vec` put them: 8-byte
/// aligned at least).
pub(crate) fn from_vec(words: Vec<u64>) -> Words {
    let words = words.into_boxed_slice();
    let len = words.len();
    // SAFETY: same size, alignment (checked above) and bit validity; the box is re-made over
    // the very allocation it came from.
    let storage = unsafe {
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            Box::into_raw(words) as *mut AtomicU64,
            len,
        ))
    };
    Words {
        storage,
        start: 0,
        len,
    }
}

/// The words as plain integers, for a caller that owns them exclusively (a decoder filling a
/// filter nobody else can see yet): no atomic instructions needed.
pub(crate) fn as_mut_u64(words: &mut [AtomicU64]) -> &mut [u64] {
    // SAFETY: `&mut` excludes every other access; AtomicU64 and u64 have the same size,
    // alignment (asserted above) and bit validity.
    unsafe { &mut *(std::ptr::from_mut::<[AtomicU64]>(words) as *mut [u64]) }
}

/// Hints the CPU to fetch word `i` (if there is one) into cache: of the words, or of any
/// slice (a batch's keys ahead of the ones being hashed).
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = items.get(i) {
        // SAFETY: prefetch never faults and the address is inside the array anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                std::ptr::from_ref(word).cast::<i8>(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New line-aligned arrays start on a cache line whatever the allocator hands back (sizes
    /// from one word to a mmap-sized array); every array holds exactly the words asked for,
    /// zeroed, and word-aligned ones no padding; copies too.
    #[test]
    fn new_arrays_start_as_asked() {
        for num_words in (1..=40).chain([4096, 1 << 18]) {
            let words = zeroed(num_words, Align::Line, "test").unwrap();
            assert_eq!(words.len(), num_words);
            assert_eq!(words.as_ptr() as usize % 64, 0, "{num_words} words");
            assert!(words.iter().all(|w| w.load(Relaxed) == 0));
            words[num_words - 1].store(7, Relaxed);
            let copy = try_clone(&words, Align::Line, "test").unwrap();
            assert_eq!(copy.as_ptr() as usize % 64, 0);
            assert_eq!(copy[num_words - 1].load(Relaxed), 7);
            let exact = try_clone(&words, Align::Word, "test").unwrap();
            assert_eq!((exact.storage.len(), exact.start), (num_words, 0));
            assert_eq!(exact[num_words - 1].load(Relaxed), 7);
            let exact = zeroed(num_words, Align::Word, "test").unwrap();
            assert_eq!((exact.storage.len(), exact.len()), (num_words, num_words));
            assert!(exact.iter().all(|w| w.load(Relaxed) == 0));
        }
        assert_eq!(zeroed(0, Align::Line, "test").unwrap().len(), 0);
        let mut adopted = from_vec(vec![1, 2, 3]);
        assert_eq!(as_mut_u64(&mut adopted), &[1, 2, 3]);
    }
}
