//! Deterministic pseudo-random numbers for sparkbloom's tests, benchmarks, golden files and
//! measuring tools: no unseeded randomness anywhere, and one generator for all of them. A
//! development crate, never published: the library's API does not carry it.

#![deny(missing_docs)]

/// SplitMix64: a fast, well-mixed 64-bit sequence from any seed; advances `state`.
///
/// ```
/// use sparkbloom_testkit::splitmix64;
///
/// let mut state = 0;
/// assert_eq!(splitmix64(&mut state), 0xe220_a839_7b1d_cdaf);
/// assert_eq!(state, 0x9e37_79b9_7f4a_7c15);
/// ```
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
