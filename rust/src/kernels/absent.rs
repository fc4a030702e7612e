//! The stand-ins for `avx2.rs` and `avx512.rs` where the target is not x86-64: the same items,
//! never run (the plan takes no AVX path there, so every batch takes a plain-Rust one).

/// Functions of the AVX kernels' signatures that are never called.
macro_rules! never_called {
    ($($name:ident $(<const $c:ident: $t:ty>)? ($($arg:ty),*) $(-> $ret:ty)?;)*) => {$(
        /// Never called: the plan takes no AVX path off x86-64.
        ///
        /// # Safety
        /// None needed; it panics.
        pub(crate) unsafe fn $name$(<const $c: $t>)?($(_: $arg),*) $(-> $ret)? {
            unreachable!("no AVX kernels off x86-64")
        }
    )*};
}

pub(crate) mod avx2 {
    use crate::strategy::Indexer;

    never_called! {
        query<const COUNTERS: bool>(&Indexer, *const u64, &[u64], impl FnMut(usize, bool));
        accumulate(&Indexer, &[u64], &mut [u64]);
    }
}

pub(crate) mod avx512 {
    /// As in `avx512.rs`: the smallest filter the lanes would take (the unit tests' shapes).
    pub(crate) const MIN_BITS: u64 = 1 << 13;
    /// As in `avx512.rs`: the largest k of the prefetched walk.
    pub(crate) const PREFETCHED_MAX_HASHES: u32 = 32;
    /// As in `avx512.rs`: byte keys hashed per vector.
    pub(crate) const BYTE_LANES: usize = 8;
    /// As in `avx512.rs`: positions stored one bit each, or as 4-bit counters.
    pub(crate) const BIT_CELLS: bool = false;
    pub(crate) const COUNTER_CELLS: bool = true;

    /// The filter a batch is queried against (see `avx512.rs`).
    #[derive(Clone, Copy)]
    #[allow(dead_code)] // read only by the x86-64 lanes
    pub(crate) struct Target {
        pub(crate) words: *const u64,
        pub(crate) num_bits: u64,
        pub(crate) num_hashes: u32,
        pub(crate) wrap: u64,
    }

    never_called! {
        query<const COUNTERS: bool>(Target, &[u64], impl FnMut(usize, u8));
        query_hashes<const COUNTERS: bool>(Target, &[u64], &[u64], impl FnMut(usize, u8));
        indexes(Target, &[u64], &mut [u64]);
        query_prefetched(Target, &[u64], impl FnMut(usize, u8));
        for_each_index_prefetched(Target, &[u64], impl FnMut(u64) -> bool) -> bool;
        for_each_index_prefetched_hashed(Target, &[u64], &[u64], impl FnMut(u64) -> bool) -> bool;
        write_absent(&[u64], u8, *mut u64) -> usize;
        lane_indexes_of_absent(Target, &[u64], &[u64], bool, &mut [u64], &mut [u8]) -> usize;
        hash_packed_run<const VECTORS: usize>(&[u8], usize, usize, &mut [u64], &mut [u64]);
    }
}
