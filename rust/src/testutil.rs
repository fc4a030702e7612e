//! What the unit tests share: the seeded generator of every test and tool, and what they expect
//! of `retain_absent` given single-key answers ([`absent`]).

pub(crate) use sparkbloom_testkit::splitmix64;

/// The keys whose answer in `present` is false, in order: what `retain_absent(keys)` must
/// return when `present[i]` is `might_contain(keys[i])`.
pub(crate) fn absent(keys: &[u64], present: &[bool]) -> Vec<u64> {
    assert_eq!(keys.len(), present.len(), "an answer per key");
    keys.iter()
        .zip(present)
        .filter(|&(_, &present)| !present)
        .map(|(&k, _)| k)
        .collect()
}
