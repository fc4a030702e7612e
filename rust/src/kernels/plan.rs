//! A filter's plan: which code path each u64 batch operation takes, decided once when the
//! filter is made, from the process's kernel and the filter's layout and shape; a counting
//! filter's plan takes the same paths where they know 4-bit counters.

use super::{Kernel, avx512};
use crate::layout::{Layout, Walk};

/// The instruction set of a path that several builds run (BLOCKED batches, the fast walk of
/// accumulated puts): chosen by the plan from a kernel the CPU runs, so a batch given one runs
/// it without asking the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Baseline instructions.
    Portable,
    /// AVX2 (the AVX2 kernel's CPU: also BMI1, BMI2 and POPCNT).
    Avx2,
    /// AVX-512 F and DQ.
    Avx512,
}

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
    /// The same screened walk in AVX2 lanes (`avx2.rs`).
    ScreenedAvx2,
    /// AVX-512 lanes gathering in lockstep.
    Gather,
    /// AVX-512 lanes walking groups ahead with prefetching.
    Walk,
    /// BLOCKED: each key's block located, eight keys hashed at a time, and tested whole
    /// (`kernels::blocked`).
    Blocked(Isa),
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
    /// BLOCKED: each key's bits ORed into its block, the blocks located as
    /// [`Query::Blocked`]'s.
    Blocked(Isa),
}

/// A filter's paths, fixed for its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) query: Query,
    pub(crate) put: Put,
    /// The AVX-512 lanes compute this filter's MITZ_64 indexes: the kernel, the walk, and
    /// a shape in the lanes' exact-remainder range of whole words.
    pub(crate) lanes: bool,
    /// The filter is too large for cache: batches prefetch.
    pub(crate) prefetch: bool,
    /// Whether puts accumulated privately walk the keys with the fast kernel, and in which
    /// build: [`Isa::Portable`] (`portable::accumulate`) or [`Isa::Avx2`] (`avx2::accumulate`,
    /// which also beats the AVX-512 lanes' indexed puts on the cache-resident filters that
    /// accumulate).
    pub(crate) accumulate_walk: Option<Isa>,
    /// Byte-key batches hash runs of equal-length keys in AVX-512 lanes
    /// (`avx512::hash_packed_run`): the AVX-512 kernel, and Murmur3_x64_128 keys (Spark's
    /// Murmur3_x86_32 has no lanes).
    pub(crate) byte_lanes: bool,
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

impl Kernel {
    /// The instructions this kernel's builds of a shared path use.
    fn isa(self) -> Isa {
        match self {
            Kernel::Scalar | Kernel::Portable => Isa::Portable,
            Kernel::Avx2 => Isa::Avx2,
            Kernel::Avx512 => Isa::Avx512,
        }
    }
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
                Some(Isa::Avx2)
            }
            _ if mitz64 => Some(Isa::Portable),
            _ => None,
        };
        let query = match kernel {
            _ if layout.is_blocked() => Query::Blocked(kernel.isa()),
            Kernel::Scalar => Query::OneByOne,
            _ if walk && bytes >= VECTOR_PREFETCH_MIN_BYTES => Query::Walk,
            _ if lanes && (!prefetch || walk) => Query::Gather,
            _ if prefetch => Query::Prefetched,
            _ => match fast_walk {
                Some(Isa::Avx2) => Query::ScreenedAvx2,
                Some(_) => Query::Screened,
                None => Query::OneByOne,
            },
        };
        let put = match kernel {
            _ if layout.is_blocked() => Put::Blocked(kernel.isa()),
            Kernel::Scalar => Put::Reference,
            _ if walk => Put::Walk,
            _ if lanes || prefetch => Put::Indexed,
            _ => Put::EachKey,
        };
        Plan {
            query,
            put,
            lanes,
            prefetch,
            accumulate_walk: fast_walk,
            byte_lanes: kernel == Kernel::Avx512
                && !matches!(layout, Layout::Classic(Walk::SparkV1 | Walk::SparkV2)),
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
    /// Batches that update a cache-resident filter densely count privately first: every kernel
    /// but the reference, which updates key by key.
    pub(crate) accumulate: bool,
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
        CountingPlan {
            query,
            lanes,
            accumulate: kernel != Kernel::Scalar,
        }
    }
}
