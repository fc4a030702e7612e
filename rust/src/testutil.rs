//! Deterministic pseudo-random numbers for the crate's tests, benchmarks and golden files
//! (`rust/examples/gen_golden.rs`): no unseeded randomness anywhere. Public so that those,
//! which link the crate as users do, share one generator with the unit tests. Also what the
//! unit tests expect of `retain_absent` given single-key answers ([`absent`]), and memory laid
//! out as a filter's ([`filter_like_words`]) for the benchmarks that measure the host.

/// SplitMix64: a fast, well-mixed 64-bit sequence from any seed; advances `state`.
///
/// ```
/// use sparkbloom::testutil::splitmix64;
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

/// `len` words from `fill`, allocated as a filter's words are: on 2 MiB pages where the system
/// gives them to memory that asks, so that a benchmark of the host's memory reads the pages the
/// filters read.
///
/// # Panics
/// If the memory cannot be allocated.
pub fn filter_like_words(len: usize, mut fill: impl FnMut() -> u64) -> Vec<u64> {
    let mut words = crate::atomic_words::reserve(len, "the words").expect("memory for the words");
    words.extend((0..len).map(|_| fill()));
    words
}

/// The keys whose answer in `present` is false, in order: what `retain_absent(keys)` must
/// return when `present[i]` is `might_contain(keys[i])`.
#[cfg(test)]
pub(crate) fn absent(keys: &[u64], present: &[bool]) -> Vec<u64> {
    assert_eq!(keys.len(), present.len(), "an answer per key");
    keys.iter()
        .zip(present)
        .filter(|&(_, &present)| !present)
        .map(|(&k, _)| k)
        .collect()
}
