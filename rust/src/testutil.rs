//! Deterministic pseudo-random numbers for the crate's tests, benchmarks and golden files
//! (`rust/examples/gen_golden.rs`): no unseeded randomness anywhere. Public so that those,
//! which link the crate as users do, share one generator with the unit tests. Also what the
//! unit tests expect of `retain_absent` given single-key answers ([`absent`]).

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
