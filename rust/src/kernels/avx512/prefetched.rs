//! The vector walk on filters too large for cache, where each probe is a cache miss: a group
//! of eight keys is walked once, its index vectors kept and their words prefetched, and the
//! group is tested (or its indexes handed to the put loop) only after the next groups have been
//! walked, so that several groups' misses are in flight at once instead of each gather waiting
//! on its own ([`query`](super::query) keeps two chains of gathers in flight; that suffices in
//! L2, not in memory).
//!
//! A query tests its first [`FIRST_PROBES`] indexes, then fetches the rest only for the keys
//! still present: on a half-full filter a key that was never put fails each probe with
//! probability ~1/2, so a 50/50 mix of hits and misses reads ~5.1 lines per key at k = 7
//! instead of 7, and an all-miss batch ~3.3.

use super::{BIT_CELLS, Lanes, Target, Walk, load_up_to_8};
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// The largest k these walks keep index vectors for; filters with more hashes take the scalar
/// prefetching path.
pub(crate) const MAX_HASHES: u32 = 32;
/// Indexes a query tests before it fetches the rest of a key's lines. By the model above, 2
/// reads the fewest lines on the 50/50 mix (1 → 5.5 lines per key at k = 7, 2 → 5.1, 3 → 5.3).
const FIRST_PROBES: usize = 2;
/// Groups walked between a group's walk and its screening (the test of its first indexes), and
/// between its screening and the test of the rest: enough groups' misses in flight to cover
/// memory latency, few enough prefetches queued for the core to keep them all in flight.
const SCREEN_DISTANCE: usize = 2;
const FINISH_DISTANCE: usize = 2;
/// Groups in flight in a query: walked, screened and finished ones.
const QUERY_RING: usize = SCREEN_DISTANCE + FINISH_DISTANCE + 1;
/// Groups walked ahead of the one whose bits are set: the stores set the pace, so one group
/// ahead suffices. Every bit is ORed, set or not: gathering the words first to skip the bits
/// already set would make the walk wait on each gather's lines.
const PUT_DISTANCE: usize = 1;
const PUT_RING: usize = PUT_DISTANCE + 1;

/// Where a batch's keys come from: `long` keys, hashed in lanes here, or the hash halves of
/// keys hashed elsewhere (byte-key batches, [`Halves`]).
trait Source {
    fn len(&self) -> usize;
    /// The walk of the keys `8g..8g + 8` (those that exist), and the mask of their lanes.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and DQ.
    unsafe fn walk(&self, lanes: &Lanes, g: usize) -> (Walk, u8);
}

impl Source for &[u64] {
    fn len(&self) -> usize {
        <[u64]>::len(self)
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn walk(&self, lanes: &Lanes, g: usize) -> (Walk, u8) {
        let (keys, live) = load_up_to_8(&self[8 * g..self.len().min(8 * g + 8)]);
        (lanes.walk(keys), live)
    }
}

/// The Murmur3 halves of keys hashed elsewhere: key j's are `(h1s[j], h2s[j])`.
struct Halves<'h> {
    h1s: &'h [u64],
    h2s: &'h [u64],
}

impl Source for Halves<'_> {
    fn len(&self) -> usize {
        self.h1s.len()
    }

    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn walk(&self, lanes: &Lanes, g: usize) -> (Walk, u8) {
        let last = self.h1s.len().min(8 * g + 8);
        let (h1, h2, live) = super::load_halves(&self.h1s[8 * g..last], &self.h2s[8 * g..last]);
        (lanes.walk_hashed(h1, h2), live)
    }
}

/// The vectors of a slice whose every element has been written.
///
/// # Safety
/// Every element of `vectors` is initialized.
unsafe fn assume_init_mut(vectors: &mut [MaybeUninit<__m512i>]) -> &mut [__m512i] {
    // SAFETY: MaybeUninit<T> has T's layout; the caller vouches for the contents.
    unsafe { &mut *(std::ptr::from_mut(vectors) as *mut [__m512i]) }
}

/// Prefetches the words holding the eight positions of `idx`.
#[target_feature(enable = "avx512f,avx512dq")]
fn prefetch_lanes(words: *const i64, idx: __m512i) {
    let mut word_indexes = [0u64; 8];
    // SAFETY: `word_indexes` is 64 bytes.
    unsafe {
        _mm512_storeu_si512(
            word_indexes.as_mut_ptr().cast(),
            _mm512_srli_epi64::<6>(idx),
        )
    };
    for word in word_indexes {
        // Prefetching never faults (and the word is inside the filter anyway).
        _mm_prefetch::<_MM_HINT_T0>(words.wrapping_add(word as usize).cast());
    }
}

/// Walks group `g` of `source` into `vectors` (its k index vectors) and prefetches the words
/// of the first `prefetched` of them; returns the mask of the lanes holding keys.
///
/// # Safety
/// The CPU has AVX-512 F and DQ.
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn walk_group(
    lanes: &Lanes,
    source: &impl Source,
    g: usize,
    prefetched: usize,
    vectors: &mut [MaybeUninit<__m512i>],
) -> u8 {
    // SAFETY: forwarded.
    let (mut walk, live) = unsafe { source.walk(lanes, g) };
    for (i, slot) in vectors.iter_mut().enumerate() {
        if i > 0 {
            walk.advance(lanes);
        }
        slot.write(walk.idx);
        if i < prefetched {
            prefetch_lanes(lanes.words, walk.idx);
        }
    }
    live
}

/// [`query`](super::query) for filters too large for cache (bit cells only): calls
/// `visit(position of the group's first key, present lanes)` for each group of up to eight
/// keys, in order.
///
/// # Safety
/// As [`query`](super::query), and `target.num_hashes` ≤ [`MAX_HASHES`].
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn query_prefetched(target: Target, keys: &[u64], visit: impl FnMut(usize, u8)) {
    // SAFETY: forwarded.
    unsafe { query_source(target, keys, visit) }
}

/// Three stages over a ring of groups, each stage [`SCREEN_DISTANCE`] or [`FINISH_DISTANCE`]
/// groups behind the one before: walk (and prefetch the first indexes), screen (test them,
/// prefetch the rest for the lanes still present), finish (test the rest, visit).
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn query_source(target: Target, source: impl Source, mut visit: impl FnMut(usize, u8)) {
    let k = target.num_hashes as usize;
    assert!((1..=MAX_HASHES as usize).contains(&k));
    let first = FIRST_PROBES.min(k);
    let lanes = Lanes::new(target);
    let mut vectors = [MaybeUninit::<__m512i>::uninit(); QUERY_RING * MAX_HASHES as usize];
    let mut live = [0u8; QUERY_RING];
    let groups = source.len().div_ceil(8);
    for t in 0..groups + SCREEN_DISTANCE + FINISH_DISTANCE {
        if t < groups {
            let s = t % QUERY_RING;
            // SAFETY: the CPU has AVX-512 (this function's contract).
            live[s] = unsafe { walk_group(&lanes, &source, t, first, &mut vectors[s * k..][..k]) };
        }
        if let Some(g) = t.checked_sub(SCREEN_DISTANCE).filter(|&g| g < groups) {
            let s = g % QUERY_RING;
            // SAFETY: group g's k vectors were written by its walk.
            let group = unsafe { assume_init_mut(&mut vectors[s * k..][..k]) };
            let mut present = live[s];
            for &idx in &group[..first] {
                // SAFETY: walk indexes are positions of the filter.
                present = unsafe { lanes.cells_set::<BIT_CELLS>(idx, present) };
            }
            // The lanes no longer present point at their first index (in cache already)
            // rather than a line nobody needs: no branch per lane, and every load stays valid.
            let first_idx = group[0];
            for idx in &mut group[first..] {
                *idx = _mm512_mask_blend_epi64(present, first_idx, *idx);
                prefetch_lanes(lanes.words, *idx);
            }
            live[s] = present;
        }
        if let Some(g) = t.checked_sub(SCREEN_DISTANCE + FINISH_DISTANCE) {
            let s = g % QUERY_RING;
            let mut present = live[s];
            // SAFETY: as above.
            for &mut idx in unsafe { assume_init_mut(&mut vectors[s * k + first..][..k - first]) } {
                // SAFETY: as above.
                present = unsafe { lanes.cells_set::<BIT_CELLS>(idx, present) };
            }
            visit(8 * g, present);
        }
    }
}

/// Calls `set(index)` for each of the k indexes of every key (group by group, a group's
/// indexes probe by probe), each group's words prefetched [`PUT_DISTANCE`] groups before.
/// Returns the OR of `set`'s answers (whether it changed a bit), kept in the walk's local
/// rather than in a flag `set` captures, which would go through memory at every index.
///
/// # Safety
/// As [`query_prefetched`] (`target.words` is only prefetched here).
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn for_each_index_prefetched(
    target: Target,
    keys: &[u64],
    set: impl FnMut(u64) -> bool,
) -> bool {
    // SAFETY: forwarded.
    unsafe { for_each_index_source(target, keys, set) }
}

/// [`for_each_index_prefetched`] of the keys whose hashes are `(h1s[j], h2s[j])`, where
/// `set(index)` says whether it changed a bit: returns whether any did. The answers are ORed
/// into a local here, in a register, where a flag the closure captured would be read and
/// written through memory at every index (the compiler cannot tell it from the filter's words
/// the closure stores to): a chain of store-to-load forwards through the whole walk (perf on
/// a 10^6 string put: most of the walk's samples on that OR).
///
/// # Safety
/// As [`for_each_index_prefetched`].
///
/// # Panics
/// If `h1s` and `h2s` differ in length.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn for_each_index_prefetched_hashed(
    target: Target,
    h1s: &[u64],
    h2s: &[u64],
    set: impl FnMut(u64) -> bool,
) -> bool {
    assert_eq!(h1s.len(), h2s.len());
    // SAFETY: forwarded.
    unsafe { for_each_index_source(target, Halves { h1s, h2s }, set) }
}

/// The walk behind both: returns the OR of `set`'s answers.
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn for_each_index_source(
    target: Target,
    source: impl Source,
    mut set: impl FnMut(u64) -> bool,
) -> bool {
    let k = target.num_hashes as usize;
    assert!((1..=MAX_HASHES as usize).contains(&k));
    let lanes = Lanes::new(target);
    let mut vectors = [MaybeUninit::<__m512i>::uninit(); PUT_RING * MAX_HASHES as usize];
    let mut live = [0u8; PUT_RING];
    let groups = source.len().div_ceil(8);
    let mut changed = false;
    for t in 0..groups + PUT_DISTANCE {
        if t < groups {
            let s = t % PUT_RING;
            // SAFETY: the CPU has AVX-512 (this function's contract).
            live[s] = unsafe { walk_group(&lanes, &source, t, k, &mut vectors[s * k..][..k]) };
        }
        if let Some(g) = t.checked_sub(PUT_DISTANCE) {
            let s = g % PUT_RING;
            let count = live[s].count_ones() as usize;
            // SAFETY: group g's k vectors were written by its walk.
            for &mut idx in unsafe { assume_init_mut(&mut vectors[s * k..][..k]) } {
                let mut indexes = [0u64; 8];
                // SAFETY: `indexes` is 64 bytes.
                unsafe { _mm512_storeu_si512(indexes.as_mut_ptr().cast(), idx) };
                for &index in &indexes[..count] {
                    changed |= set(index);
                }
            }
        }
    }
    changed
}
