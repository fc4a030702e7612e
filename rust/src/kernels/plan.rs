//! A filter's plan: which code path each u64 batch operation takes, decided once when the
//! filter is made, from the process's kernel and the filter's layout and shape; a counting
//! filter's plan takes the same paths where they know 4-bit counters.

use super::{Kernel, avx512};
use crate::layout::{Layout, Walk};

/// Batched operations on filters larger than this prefetch all of a group's bits before
/// reading any, overlapping the cache misses; smaller filters live in cache anyway.
pub(crate) const PREFETCH_MIN_BYTES: usize = 256 * 1024;
/// AVX-512 queries on filters at least this large walk groups ahead and prefetch
/// (`avx512::query_prefetched`); smaller ones gather in lockstep (`avx512::query`), whose two
/// chains of gathers hide L2 and L3 latency but not memory's. Set below the measured crossover
/// (between 6 and 12 MB): on a loaded machine, with other processes in L3, the loss below it
/// is a few percent and the gain above it tens.
pub(crate) const VECTOR_PREFETCH_MIN_BYTES: usize = 4 << 20;

/// How a batch query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Query {
    /// One key at a time (the scalar kernel, and strategies no faster path knows).
    OneByOne,
    /// Groups' indexes computed, prefetched a group ahead, then tested: filters beyond cache.
    Prefetched,
    /// The portable kernel's screened walk (MITZ_64, cache-resident filters).
    Screened,
    /// [`Screened`](Query::Screened) compiled for AVX2.
    ScreenedAvx2,
    /// AVX-512 lanes gathering in lockstep.
    Gather,
    /// AVX-512 lanes walking groups ahead with prefetching.
    Walk,
}

/// How a batch put runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Put {
    /// The scalar kernel: one key at a time, nothing else.
    Reference,
    /// Key by key, or accumulated privately when the batch fills a cache-resident filter densely.
    EachKey,
    /// Groups' indexes computed together (in AVX-512 lanes where [`Plan::lanes`]), prefetched
    /// on filters beyond cache; accumulated as [`EachKey`](Put::EachKey).
    Indexed,
    /// AVX-512 lanes walking groups ahead with prefetching (filters beyond cache).
    Walk,
}

/// A filter's paths, fixed for its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) kernel: Kernel,
    pub(crate) query: Query,
    pub(crate) put: Put,
    /// The AVX-512 lanes compute this filter's MITZ_64 indexes: the kernel, the walk, and
    /// a shape in the lanes' exact-remainder range of whole words.
    pub(crate) lanes: bool,
    /// The filter is too large for cache: batches prefetch.
    pub(crate) prefetch: bool,
    /// Whether puts accumulated privately walk the keys with the fast kernel (`portable::
    /// accumulate`), and in which build: `Some(true)` for AVX2's, which also beats the AVX-512
    /// lanes' indexed puts on the cache-resident filters that accumulate.
    pub(crate) accumulate_walk: Option<bool>,
}

/// Whether the AVX2 build's exact remainders cover a filter of `num_bits` positions.
pub(super) fn avx2_takes(num_bits: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    return (super::avx2::MIN_BITS..=super::avx2::MAX_BITS).contains(&num_bits);
    #[cfg(not(target_arch = "x86_64"))]
    return {
        let _ = num_bits;
        false
    };
}

impl Plan {
    /// The plan for a filter of `num_bits` positions in `bytes` bytes of words.
    pub(crate) fn new(
        kernel: Kernel,
        layout: Layout,
        num_bits: u64,
        num_hashes: u32,
        bytes: usize,
    ) -> Plan {
        let mitz64 = layout == Layout::Classic(Walk::Mitz64);
        let prefetch = bytes >= PREFETCH_MIN_BYTES;
        let lanes = kernel == Kernel::Avx512
            && mitz64
            && num_bits >= avx512::MIN_BITS
            && num_bits.is_multiple_of(64);
        let walk = lanes && prefetch && num_hashes <= avx512::PREFETCHED_MAX_HASHES;
        // The fast kernel's walk of this filter, and whether in the AVX2 build (which the
        // AVX-512 kernel also runs on filters its lanes do not take).
        let fast_walk = match kernel {
            Kernel::Scalar => None,
            Kernel::Avx2 | Kernel::Avx512
                if mitz64 && Kernel::Avx2.supported() && avx2_takes(num_bits) =>
            {
                Some(true)
            }
            _ if mitz64 => Some(false),
            _ => None,
        };
        let query = match kernel {
            Kernel::Scalar => Query::OneByOne,
            _ if walk && bytes >= VECTOR_PREFETCH_MIN_BYTES => Query::Walk,
            _ if lanes && (!prefetch || walk) => Query::Gather,
            _ if prefetch => Query::Prefetched,
            _ => match fast_walk {
                Some(true) => Query::ScreenedAvx2,
                Some(false) => Query::Screened,
                None => Query::OneByOne,
            },
        };
        let put = match kernel {
            Kernel::Scalar => Put::Reference,
            _ if walk => Put::Walk,
            _ if lanes || prefetch => Put::Indexed,
            _ => Put::EachKey,
        };
        Plan {
            kernel,
            query,
            put,
            lanes,
            prefetch,
            accumulate_walk: fast_walk,
        }
    }

    /// Whether queries take their answers eight at a time from the AVX-512 lanes.
    pub(crate) fn queries_in_lanes(&self) -> bool {
        matches!(self.query, Query::Gather | Query::Walk)
    }
}

/// A counting filter's batch queries, fixed for its life: the plain filter's paths that test
/// 4-bit counters (sixteen to a word) as well as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CountingPlan {
    /// [`Query::OneByOne`], [`Query::Prefetched`], [`Query::Gather`] or
    /// [`Query::ScreenedAvx2`]: the portable walk and the AVX-512 walk know bits only.
    pub(crate) query: Query,
    /// The AVX-512 lanes compute this filter's MITZ_64 indexes (for the gathers, and for the
    /// prefetched groups): the kernel, the walk, and m in the lanes' exact-remainder range.
    pub(crate) lanes: bool,
}

impl CountingPlan {
    /// The plan for a counting filter of `num_bits` counters in `bytes` bytes of words.
    pub(crate) fn new(kernel: Kernel, layout: Layout, num_bits: u64, bytes: usize) -> CountingPlan {
        let mitz64 = layout == Layout::Classic(Walk::Mitz64);
        let lanes = kernel == Kernel::Avx512 && mitz64 && num_bits >= avx512::MIN_BITS;
        let query = match kernel {
            Kernel::Scalar => Query::OneByOne,
            _ if bytes >= PREFETCH_MIN_BYTES => Query::Prefetched,
            _ if lanes => Query::Gather,
            Kernel::Avx2 | Kernel::Avx512
                if mitz64 && Kernel::Avx2.supported() && avx2_takes(num_bits) =>
            {
                Query::ScreenedAvx2
            }
            _ => Query::OneByOne,
        };
        CountingPlan { query, lanes }
    }
}
