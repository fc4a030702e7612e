//! The vector walk for keys whose Murmur3 halves were computed elsewhere: byte-string batches
//! (`filter::byte_batch`) hash their keys first (equal-length keys eight to a vector,
//! `murmur.rs`) and then query or index them exactly as [`query`](super::query) and
//! [`indexes`](super::indexes) do for `long` keys, from the halves instead of the key.

use super::{LOCKSTEP, Lanes, Target, Walk, load_halves};
use std::arch::x86_64::*;

/// [`query`](super::query) of the keys whose hashes are `(h1s[j], h2s[j])`: calls
/// `visit(position of the group's first key, present lanes)` for each group of up to eight.
///
/// # Safety
/// As [`query`](super::query).
///
/// # Panics
/// If `h1s` and `h2s` differ in length.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn query_hashes<const COUNTERS: bool>(
    target: Target,
    h1s: &[u64],
    h2s: &[u64],
    mut visit: impl FnMut(usize, u8),
) {
    assert_eq!(h1s.len(), h2s.len());
    if h1s.len() >= super::SCREEN_MIN_KEYS && target.num_hashes > super::screened::SCREEN_PROBES {
        // SAFETY: forwarded from this function's contract, and k > SCREEN_PROBES.
        return unsafe { super::screened::query_hashes::<COUNTERS>(target, h1s, h2s, visit) };
    }
    let (lanes, k) = (Lanes::new(target), target.num_hashes);
    let block = 8 * LOCKSTEP;
    let whole = h1s.len() / block * block;
    for first in (0..whole).step_by(block) {
        let walks: [Walk; LOCKSTEP] = std::array::from_fn(|g| {
            let at = first + 8 * g;
            let (h1, h2, _) = load_halves(&h1s[at..at + 8], &h2s[at..at + 8]);
            lanes.walk_hashed(h1, h2)
        });
        // SAFETY: forwarded from this function's contract.
        let present =
            unsafe { lanes.present_from::<COUNTERS, LOCKSTEP>(walks, [0xff; LOCKSTEP], k) };
        for (g, &mask) in present.iter().enumerate() {
            visit(first + 8 * g, mask);
        }
    }
    for first in (whole..h1s.len()).step_by(8) {
        let last = (first + 8).min(h1s.len());
        let (h1, h2, live) = load_halves(&h1s[first..last], &h2s[first..last]);
        // SAFETY: forwarded from this function's contract.
        let [present] =
            unsafe { lanes.present_from::<COUNTERS, 1>([lanes.walk_hashed(h1, h2)], [live], k) };
        visit(first, present);
    }
}

/// The indexes to set for the keys whose hashes are `(h1s[j], h2s[j])`, lane by lane: for each
/// eight keys g, `lanes_to_set[g]` is the mask of the keys to set and, where it is not 0,
/// `out[(g · k + i) · 8 + l]` the i-th index of key 8g + l. With `query`, only the keys the
/// filter does not hold yet are set: a [`query_hashes`] first, then the walk again for the
/// groups with absent keys, so keys the filter holds already (re-puts, duplicates) cost a query,
/// not a put (new keys pay the query's first probes on top). Returns how many keys are to be set.
///
/// # Safety
/// As [`query`](super::query) for a bit filter (`BIT_CELLS`).
///
/// # Panics
/// If `h1s` and `h2s` differ in length, `lanes_to_set` has fewer than `⌈h1s.len() / 8⌉` slots
/// or `out` fewer than `8 · k` per eight keys.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn lane_indexes_of_absent(
    target: Target,
    h1s: &[u64],
    h2s: &[u64],
    query: bool,
    out: &mut [u64],
    lanes_to_set: &mut [u8],
) -> usize {
    let k = target.num_hashes as usize;
    let groups = h1s.len().div_ceil(8);
    assert!(h1s.len() == h2s.len() && lanes_to_set.len() >= groups && out.len() >= groups * 8 * k);
    let lanes = Lanes::new(target);
    let mut to_set = 0;
    let mut visit = |first: usize, present: u8| {
        let last = (first + 8).min(h1s.len());
        let absent = !present & ((1u16 << (last - first)) - 1) as u8;
        let g = first / 8;
        lanes_to_set[g] = absent;
        if absent == 0 {
            return;
        }
        to_set += absent.count_ones() as usize;
        let (h1, h2, _) = load_halves(&h1s[first..last], &h2s[first..last]);
        let mut walk = lanes.walk_hashed(h1, h2);
        for (i, slots) in out[g * 8 * k..(g + 1) * 8 * k]
            .chunks_exact_mut(8)
            .enumerate()
        {
            if i > 0 {
                walk.advance(&lanes);
            }
            // SAFETY: `slots` is 64 writable bytes.
            unsafe { _mm512_storeu_si512(slots.as_mut_ptr().cast(), walk.idx) };
        }
    };
    if query {
        // SAFETY: forwarded from this function's contract.
        unsafe { query_hashes::<{ super::BIT_CELLS }>(target, h1s, h2s, visit) };
    } else {
        (0..h1s.len()).step_by(8).for_each(|first| visit(first, 0));
    }
    to_set
}
