//! The storage under both filters: a boxed slice of atomic 64-bit words, allocated zeroed and
//! fallibly, adopted from a `Vec<u64>` without copying, read as plain words by an exclusive
//! owner. `BitArray` (one bit per position) and the counting filter's `Counters` (a 4-bit
//! counter per position) put their own addressing on top.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

// `AtomicU64` has the size and bit validity of `u64`; on the targets we build for, also its
// alignment, which lets a `Vec<u64>` become the words without copying.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// `num_words` zeroed words. Allocation failure is an error, not an abort, and the zeroed
/// pages come from the allocator lazily (calloc), so huge sparse filters cost no time to
/// create. An array larger than the process's memory limit ([`memory_limit`]) is refused
/// here, since the kernel would kill the process when the pages are first written. `what`
/// names the array in errors ("the bit array").
///
/// [`memory_limit`]: crate::memory_limit
pub(crate) fn zeroed(num_words: usize, what: &'static str) -> Result<Box<[AtomicU64]>> {
    if num_words == 0 {
        return Ok(Box::new([]));
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
    let layout = Layout::array::<AtomicU64>(num_words).map_err(|_| too_big())?;
    // SAFETY: the layout has non-zero size; a null return is handled; all-zero bytes are a
    // valid AtomicU64; the pointer and length describe exactly the allocation that
    // `Box<[AtomicU64]>` will free with the same layout.
    unsafe {
        let ptr = alloc_zeroed(layout) as *mut AtomicU64;
        if ptr.is_null() {
            return Err(too_big());
        }
        Ok(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr, num_words,
        )))
    }
}

/// A copy of `words` (each read once: a snapshot per word if other threads write); allocation
/// failure is an error.
pub(crate) fn try_clone(words: &[AtomicU64], what: &'static str) -> Result<Box<[AtomicU64]>> {
    let copy = zeroed(words.len(), what)?;
    for (to, from) in copy.iter().zip(words) {
        to.store(from.load(Relaxed), Relaxed);
    }
    Ok(copy)
}

/// Takes ownership of `words` without copying.
pub(crate) fn from_vec(words: Vec<u64>) -> Box<[AtomicU64]> {
    let words = words.into_boxed_slice();
    let len = words.len();
    // SAFETY: same size, alignment (checked above) and bit validity; the box is re-made over
    // the very allocation it came from.
    unsafe {
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            Box::into_raw(words) as *mut AtomicU64,
            len,
        ))
    }
}

/// The words as plain integers, for a caller that owns them exclusively (a decoder filling a
/// filter nobody else can see yet): no atomic instructions needed.
pub(crate) fn as_mut_u64(words: &mut [AtomicU64]) -> &mut [u64] {
    // SAFETY: `&mut` excludes every other access; AtomicU64 and u64 have the same size,
    // alignment (asserted above) and bit validity.
    unsafe { &mut *(std::ptr::from_mut::<[AtomicU64]>(words) as *mut [u64]) }
}

/// Hints the CPU to fetch word `i` (if there is one) into cache.
#[inline(always)]
pub(crate) fn prefetch(words: &[AtomicU64], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = words.get(i) {
        // SAFETY: prefetch never faults and the address is inside the array anyway.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                word.as_ptr() as *const i8
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, i);
}
