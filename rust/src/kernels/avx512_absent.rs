//! The stand-in for `avx512.rs` where the target is not x86-64: the same items, never
//! available, so every batch takes the scalar path and `query`/`indexes` are never called.

/// As in `avx512.rs`: the smallest filter the vector path would take (the unit tests' shapes).
pub(crate) const MIN_BITS: u64 = 1 << 13;

/// As in `avx512.rs`: positions stored one bit each.
pub(crate) const BIT_CELLS: bool = false;
/// As in `avx512.rs`: positions stored as 4-bit counters.
pub(crate) const COUNTER_CELLS: bool = true;

/// The filter a batch is queried against (see `avx512.rs`); unused off x86-64.
#[derive(Clone, Copy)]
#[allow(dead_code)] // read only by the x86-64 lanes
pub(crate) struct Target {
    pub(crate) words: *const u64,
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
    pub(crate) wrap: u64,
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn query<const COUNTERS: bool>(
    _target: Target,
    _keys: &[u64],
    _visit: impl FnMut(usize, u8),
) {
    unreachable!("AVX-512 lanes are unavailable off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn hash_up_to_8(_keys: &[u64], _h1s: &mut [u64; 8], _h2s: &mut [u64; 8]) {
    unreachable!("AVX-512 lanes are unavailable off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn indexes(_target: Target, _keys: &[u64], _out: &mut [u64]) {
    unreachable!("AVX-512 lanes are unavailable off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn query_hashes<const COUNTERS: bool>(
    _target: Target,
    _h1s: &[u64],
    _h2s: &[u64],
    _visit: impl FnMut(usize, u8),
) {
    unreachable!("no AVX-512 lanes off x86-64")
}

/// As in `avx512.rs`: the largest k of the prefetched walk.
pub(crate) const PREFETCHED_MAX_HASHES: u32 = 32;

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn query_prefetched(
    _target: Target,
    _keys: &[u64],
    _visit: impl FnMut(usize, u8),
) {
    unreachable!("no AVX-512 lanes off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn for_each_index_prefetched(
    _target: Target,
    _keys: &[u64],
    _set: impl FnMut(u64) -> bool,
) -> bool {
    unreachable!("no AVX-512 lanes off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn write_absent(_keys: &[u64], _present: u8, _out: *mut u64) -> usize {
    unreachable!("no AVX-512 lanes off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn for_each_index_prefetched_hashed(
    _target: Target,
    _h1s: &[u64],
    _h2s: &[u64],
    _set: impl FnMut(u64) -> bool,
) -> bool {
    unreachable!("no AVX-512 lanes off x86-64")
}

/// Never called: the AVX-512 kernel is never chosen off x86-64.
///
/// # Safety
/// None needed; it panics.
pub(crate) unsafe fn lane_indexes_of_absent(
    _target: Target,
    _h1s: &[u64],
    _h2s: &[u64],
    _query: bool,
    _out: &mut [u64],
    _lanes_to_set: &mut [u8],
) -> usize {
    unreachable!("no AVX-512 lanes off x86-64")
}
