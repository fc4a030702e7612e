//! The storage under both filters: atomic 64-bit words ([`Words`]), allocated zeroed, fallibly
//! and starting on a cache line, or adopted from a `Vec<u64>` without copying; read as plain
//! words by an exclusive owner. `BitArray` (one bit per position) and the counting filter's `Counters` (a 4-bit
//! counter per position) put their own addressing on top.

use crate::error::{Error, Result};
use std::alloc::{Layout, alloc_zeroed};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

// `AtomicU64` has the size and bit validity of `u64`; on the targets we build for, also its
// alignment, which lets a `Vec<u64>` become the words without copying.
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// An array's words, derefs to them. An array allocated [`Align::Line`] begins on a 64-byte
/// boundary (a cache line: a BLOCKED filter's 512-bit blocks then each occupy exactly one line,
/// where a 16-byte-aligned allocation would split most of them over two), a few words into its
/// allocation. Two machine words: a filter object's size is what a service holding millions of
/// per-user filters pays for each beside its bits.
pub(crate) struct Words {
    /// The array's first word (dangling when the array is empty).
    ptr: NonNull<AtomicU64>,
    /// The array's length in words, below bit [`PADDING_SHIFT`]; above it, the [`Padding`]
    /// the allocation has around the array.
    len_and_padding: usize,
}

/// Where `len_and_padding` keeps the padding: an array's length fits below, since its bytes
/// are at most `isize::MAX`.
const PADDING_SHIFT: u32 = usize::BITS - 4;
const LEN_MASK: usize = (1 << PADDING_SHIFT) - 1;

/// The words an allocation has around its array: for `Line` arrays, `LINE_WORDS - 1` words
/// in all, `before` of them before the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Padding {
    line: bool,
    before: usize,
}

impl Padding {
    const NONE: Padding = Padding {
        line: false,
        before: 0,
    };

    fn total(self) -> usize {
        if self.line { LINE_WORDS - 1 } else { 0 }
    }

    fn pack(self, len: usize) -> usize {
        debug_assert!(len <= LEN_MASK && self.before < LINE_WORDS);
        len | (usize::from(self.line) << 3 | self.before) << PADDING_SHIFT
    }

    fn unpack(len_and_padding: usize) -> Padding {
        let bits = len_and_padding >> PADDING_SHIFT;
        Padding {
            line: bits & 8 != 0,
            before: bits & 7,
        }
    }
}

// SAFETY: `Words` owns its allocation like a `Box<[AtomicU64]>`, which is Send and Sync.
unsafe impl Send for Words {}
unsafe impl Sync for Words {}

impl Words {
    /// Takes over `storage` (a whole allocation) with the array at word `padding.before`.
    fn new(storage: Box<[AtomicU64]>, len: usize, padding: Padding) -> Words {
        debug_assert_eq!(storage.len(), len + padding.total());
        let base = Box::into_raw(storage) as *mut AtomicU64;
        // SAFETY: `before` ≤ the padding, inside the allocation (or 0 on an empty, dangling
        // one); a box's pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(base.add(padding.before)) };
        Words {
            ptr,
            len_and_padding: padding.pack(len),
        }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        let padding = Padding::unpack(self.len_and_padding);
        let total = (self.len_and_padding & LEN_MASK) + padding.total();
        // SAFETY: the allocation `new` took over, re-made with its own start and length.
        unsafe {
            let base = self.ptr.as_ptr().sub(padding.before);
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                base, total,
            )));
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    #[inline(always)]
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: the array lies inside the allocation `new` took over.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len_and_padding & LEN_MASK) }
    }
}

impl std::ops::DerefMut for Words {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [AtomicU64] {
        // SAFETY: as in `deref`; `&mut self` makes the access exclusive.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len_and_padding & LEN_MASK)
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
        return Ok(Words::new(Box::new([]), 0, Padding::NONE));
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
    let line = align == Align::Line;
    let padded = num_words
        .checked_add(Padding { line, before: 0 }.total())
        .ok_or_else(too_big)?;
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
    let before = match align {
        Align::Word => 0,
        Align::Line => (storage.as_ptr() as usize).wrapping_neg() % 64 / 8,
    };
    Ok(Words::new(storage, num_words, Padding { line, before }))
}

/// A copy of `words` (each read once: a snapshot per word if other threads write), starting as
/// `align` says; allocation failure is an error. Zero words are not written into the zeroed
/// copy, so a large array holding few bits copies into memory for those bits' pages only.
pub(crate) fn try_clone(words: &[AtomicU64], align: Align, what: &'static str) -> Result<Words> {
    let copy = zeroed(words.len(), align, what)?;
    for (to, from) in copy.iter().zip(words) {
        let word = from.load(Relaxed);
        if word != 0 {
            to.store(word, Relaxed);
        }
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
    Words::new(storage, len, Padding::NONE)
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
            assert_eq!(Padding::unpack(exact.len_and_padding), Padding::NONE);
            assert_eq!(exact[num_words - 1].load(Relaxed), 7);
            let exact = zeroed(num_words, Align::Word, "test").unwrap();
            assert_eq!(Padding::unpack(exact.len_and_padding), Padding::NONE);
            assert_eq!(exact.len(), num_words);
            assert!(exact.iter().all(|w| w.load(Relaxed) == 0));
        }
        assert_eq!(zeroed(0, Align::Line, "test").unwrap().len(), 0);
        assert_eq!(std::mem::size_of::<Words>(), 16);
        let mut adopted = from_vec(vec![1, 2, 3]);
        assert_eq!(as_mut_u64(&mut adopted), &[1, 2, 3]);
    }
}
