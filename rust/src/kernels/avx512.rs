//! Batched MITZ_64 operations eight keys at a time in AVX-512 lanes: the same Murmur3 hash and
//! the same index walk as the scalar path (`strategy::Indexer::for_each_mitz64`), so the same
//! bits and answers. Queries on cache-resident filters probe with one gather per index
//! ([`query`]); puts, and queries on filters too large for cache (which gain more from
//! prefetching), take the lanes' indexes ([`indexes`]). BLOCKED batches hash eight keys at a
//! time and test a key's whole block in one vector ([`blocked`]).
//!
//! The scalar walk needs two exact 64-bit remainders per key, done there with a 128-bit
//! multiply that has no vector form. Here a remainder comes from a double-precision quotient
//! corrected once (see [`Lanes::rem`]), exact for every filter of at least [`MIN_BITS`] bits.
//!
//! x86-64 only: `kernels/mod.rs` compiles this module under one `cfg(target_arch)` gate and
//! `absent.rs`'s stand-in elsewhere; the plan runs it only where the CPU has AVX-512 F and DQ.

use murmur::murmur3_u64;
use std::arch::x86_64::*;

// BLOCKED batches: eight keys hashed, a key's block tested in one vector.
pub(crate) mod blocked;
// Murmur3_x64_128 in lanes: of `long` keys, and of runs of equal-length byte keys.
mod murmur;
// The sparse encoder's set bits, eight words at a time.
pub(crate) mod set_bits;
pub(crate) use murmur::{LANES as BYTE_LANES, hash_packed_run};

// The same walk with prefetching, for filters too large for cache.
mod prefetched;
pub(crate) use prefetched::{
    MAX_HASHES as PREFETCHED_MAX_HASHES, for_each_index_prefetched,
    for_each_index_prefetched_hashed, query_prefetched,
};

// The lockstep query in two phases: the keys' first probes, then the survivors' rest.
mod screened;

/// Batches at least this long are screened ([`screened`]); shorter ones gain less than the
/// pass's set-up costs.
const SCREEN_MIN_KEYS: usize = 64;

// The same lanes for keys hashed elsewhere (byte-key batches).
mod hashed;
pub(crate) use hashed::{lane_indexes_of_absent, query_hashes};

/// Groups of eight keys walked in lockstep (see [`Lanes::present_many`]): two independent
/// chains of gathers in flight, where one leaves the core waiting on each; more chains than two
/// compete for the same vector pipes. (Batches of [`SCREEN_MIN_KEYS`] and more are screened
/// first, [`screened`].) The gathers and the hash and index arithmetic take about half of a
/// query's time each, and neither hides the other.
const LOCKSTEP: usize = 2;

/// The vector remainder is exact from this many bits up (see [`Lanes::rem`]); smaller filters
/// take the scalar path.
pub(crate) const MIN_BITS: u64 = 1 << 13;

/// The filter a batch is queried against: its words and MITZ_64 walk constants.
#[derive(Clone, Copy)]
pub(crate) struct Target {
    /// The filter's words; every index the walk yields is below `num_bits`, inside them.
    pub(crate) words: *const u64,
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
    /// 2^63 mod m, as in `Indexer`.
    pub(crate) wrap: u64,
}

/// Positions stored one bit each, 64 to a word: the plain filter.
pub(crate) const BIT_CELLS: bool = false;
/// Positions stored as 4-bit counters, 16 to a word, present when nonzero: the counting filter.
pub(crate) const COUNTER_CELLS: bool = true;

/// Calls `visit(position of the group's first key, present lanes)` for each group of up to
/// eight keys, in order, where bit j of the mask answers `might_contain(keys[first + j])`.
/// `COUNTERS` says how the words hold positions ([`BIT_CELLS`] or [`COUNTER_CELLS`]).
///
/// # Safety
/// The CPU must have AVX-512 F and DQ ([`Kernel::Avx512`](super::Kernel::Avx512)); `target.words` must point at the
/// ⌈num_bits / 64⌉ (bits) or ⌈num_bits / 16⌉ (counters) readable words that stay alive for the
/// call; `target.num_bits` must lie in [`MIN_BITS`]..=2^43 and `target.num_hashes` be at least 1.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn query<const COUNTERS: bool>(
    target: Target,
    keys: &[u64],
    mut visit: impl FnMut(usize, u8),
) {
    debug_assert!(target.num_bits >= MIN_BITS && target.num_hashes >= 1);
    if keys.len() >= SCREEN_MIN_KEYS && target.num_hashes > screened::SCREEN_PROBES {
        // SAFETY: forwarded from this function's contract, and k > SCREEN_PROBES.
        return unsafe { screened::query::<COUNTERS>(target, keys, visit) };
    }
    let lanes = Lanes::new(target);
    let mut blocks = keys.chunks_exact(8 * LOCKSTEP);
    for (b, block) in (&mut blocks).enumerate() {
        // SAFETY: `block` holds exactly 8 · LOCKSTEP readable u64s.
        let block_keys: [__m512i; LOCKSTEP] = std::array::from_fn(|g| unsafe {
            _mm512_loadu_si512(block.as_ptr().add(8 * g).cast())
        });
        // SAFETY: forwarded from this function's contract.
        let present =
            unsafe { lanes.present_many::<COUNTERS, LOCKSTEP>(block_keys, [0xff; LOCKSTEP]) };
        for (g, &mask) in present.iter().enumerate() {
            visit(b * 8 * LOCKSTEP + 8 * g, mask);
        }
    }
    let done = keys.len() - blocks.remainder().len();
    for (g, group) in blocks.remainder().chunks(8).enumerate() {
        let (group_keys, live) = load_up_to_8(group);
        // SAFETY: forwarded from this function's contract.
        let [present] = unsafe { lanes.present_many::<COUNTERS, 1>([group_keys], [live]) };
        visit(done + 8 * g, present);
    }
}

/// Up to eight keys in lanes (the others zero), and the mask of the lanes holding them.
#[target_feature(enable = "avx512f,avx512dq")]
fn load_up_to_8(keys: &[u64]) -> (__m512i, u8) {
    assert!(keys.len() <= 8);
    let live = ((1u16 << keys.len()) - 1) as u8;
    // SAFETY: the mask reads only the lanes of `keys`, which holds that many u64s.
    (
        unsafe { _mm512_maskz_loadu_epi64(live, keys.as_ptr().cast()) },
        live,
    )
}

/// Up to eight hash halves in lanes (the others zero), and the mask of the live lanes.
#[target_feature(enable = "avx512f,avx512dq")]
fn load_halves(h1s: &[u64], h2s: &[u64]) -> (__m512i, __m512i, u8) {
    assert!(h1s.len() <= 8 && h2s.len() == h1s.len());
    let live = ((1u16 << h1s.len()) - 1) as u8;
    // SAFETY: the mask reads only the lanes of the slices, which hold that many u64s.
    unsafe {
        (
            _mm512_maskz_loadu_epi64(live, h1s.as_ptr().cast()),
            _mm512_maskz_loadu_epi64(live, h2s.as_ptr().cast()),
            live,
        )
    }
}

/// Writes the keys of `keys` (up to eight) whose bit in `present` is clear to `out`, in order,
/// with one compress and one masked store; returns how many.
///
/// # Safety
/// The CPU must have AVX-512 F ([`Kernel::Avx512`](super::Kernel::Avx512)); `out` must have room for that many u64s
/// (at most `keys.len()`; nothing past them is written).
///
/// # Panics
/// If `keys` holds more than eight keys.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn write_absent(keys: &[u64], present: u8, out: *mut u64) -> usize {
    let (group, live) = load_up_to_8(keys);
    let absent = live & !present;
    let count = absent.count_ones() as usize;
    // SAFETY: the store's mask covers the first `count` lanes, the room the caller gives.
    unsafe {
        _mm512_mask_storeu_epi64(
            out.cast(),
            ((1u16 << count) - 1) as u8,
            _mm512_maskz_compress_epi64(absent, group),
        )
    };
    count
}

/// Writes the k indexes of each of `keys` in Guava's order, key by key: `out[j * k + i]` is
/// the i-th index of `keys[j]`, as `Indexer::for_each` yields them.
///
/// # Safety
/// The CPU must have AVX-512 F and DQ ([`Kernel::Avx512`](super::Kernel::Avx512)); `target.num_bits` must lie in
/// [`MIN_BITS`]..=2^43 and `target.num_hashes` be at least 1 (`target.words` is not read).
///
/// # Panics
/// If `out` has fewer than `keys.len() · k` slots.
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn indexes(target: Target, keys: &[u64], out: &mut [u64]) {
    let k = target.num_hashes as usize;
    assert!(out.len() >= keys.len() * k);
    let lanes = Lanes::new(target);
    let mut lane_values = [0u64; 8];
    for (group, slots) in keys.chunks(8).zip(out.chunks_mut(8 * k)) {
        let mut walk = lanes.walk(load_up_to_8(group).0);
        for i in 0..k {
            if i > 0 {
                walk.advance(&lanes);
            }
            // SAFETY: `lane_values` is 64 bytes.
            unsafe { _mm512_storeu_si512(lane_values.as_mut_ptr().cast(), walk.idx) };
            for (j, &index) in lane_values[..group.len()].iter().enumerate() {
                slots[j * k + i] = index;
            }
        }
    }
}

/// Per-batch constants, broadcast to all lanes.
struct Lanes {
    words: *const i64,
    num_hashes: u32,
    m: __m512i,
    /// 1/m, for the quotient estimate.
    inverse_m: __m512d,
    /// m − (2^63 mod m): the scalar walk's `step + m − wrap`.
    m_minus_wrap: __m512i,
}

const LOW_63: i64 = i64::MAX;

impl Lanes {
    #[target_feature(enable = "avx512f,avx512dq")]
    fn new(target: Target) -> Lanes {
        Lanes {
            words: target.words.cast(),
            num_hashes: target.num_hashes,
            m: _mm512_set1_epi64(target.num_bits as i64),
            inverse_m: _mm512_set1_pd(1.0 / target.num_bits as f64),
            m_minus_wrap: _mm512_set1_epi64((target.num_bits - target.wrap) as i64),
        }
    }

    /// For `N` groups of eight keys walked in lockstep (`N` independent chains of gathers in
    /// flight, where one chain alone leaves the core waiting on each): which of the `live`
    /// lanes' keys the filter might contain.
    ///
    /// # Safety
    /// As [`query`].
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn present_many<const COUNTERS: bool, const N: usize>(
        &self,
        keys: [__m512i; N],
        live: [u8; N],
    ) -> [u8; N] {
        // SAFETY: forwarded from this function's contract.
        unsafe {
            self.present_from::<COUNTERS, N>(keys.map(|k| self.walk(k)), live, self.num_hashes)
        }
    }

    /// [`present_many`](Self::present_many) from the walks' current states, for the `probes`
    /// indexes from their current ones: k from the first (keys hashed elsewhere, `hashed.rs`),
    /// or fewer (the survivors of a screen, `screened.rs`, start past their first indexes).
    ///
    /// # Safety
    /// As [`query`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn present_from<const COUNTERS: bool, const N: usize>(
        &self,
        mut walks: [Walk; N],
        live: [u8; N],
        probes: u32,
    ) -> [u8; N] {
        let mut present = live;
        for i in 0..probes {
            let mut any = 0;
            for (walk, present) in walks.iter_mut().zip(&mut present) {
                if i > 0 {
                    walk.advance(self);
                }
                // SAFETY: forwarded from this function's contract.
                *present = unsafe { self.cells_set::<COUNTERS>(walk.idx, *present) };
                any |= *present;
            }
            if any == 0 {
                break;
            }
        }
        present
    }

    /// Of the lanes `of`, those whose cell at `idx` (each lane an index below m) is set
    /// (nonzero).
    ///
    /// # Safety
    /// As [`query`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    unsafe fn cells_set<const COUNTERS: bool>(&self, idx: __m512i, of: u8) -> u8 {
        // No gather mask: a lane already answered still loads (a valid index), so no load
        // waits for the previous probe's answer.
        // The word holding position idx, and the mask of its cell in that word.
        let (word_index, cell) = if COUNTERS {
            let fifteen = _mm512_set1_epi64(15);
            let shift = _mm512_slli_epi64::<2>(_mm512_and_si512(idx, fifteen));
            (
                _mm512_srli_epi64::<4>(idx),
                _mm512_sllv_epi64(fifteen, shift),
            )
        } else {
            // A rotate counts mod 64: 1 << (idx mod 64) without masking idx.
            (
                _mm512_srli_epi64::<6>(idx),
                _mm512_rolv_epi64(_mm512_set1_epi64(1), idx),
            )
        };
        // SAFETY: idx < m, so its word is inside the filter's words (the caller's contract).
        let words = unsafe { _mm512_i64gather_epi64::<8>(word_index, self.words) };
        _mm512_mask_test_epi64_mask(of, words, cell)
    }

    /// The walk's state at the first index of each lane's key.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn walk(&self, keys: __m512i) -> Walk {
        let (h1, h2) = murmur3_u64(keys);
        self.walk_hashed(h1, h2)
    }

    /// The walk's state at the first index of each lane's hash (`h1`, `h2`: the halves).
    #[target_feature(enable = "avx512f,avx512dq")]
    fn walk_hashed(&self, h1: __m512i, h2: __m512i) -> Walk {
        let low_63 = _mm512_set1_epi64(LOW_63);
        let a = _mm512_and_si512(h1, low_63);
        let d = _mm512_and_si512(h2, low_63);
        let step = self.rem(d);
        Walk {
            idx: self.rem(a),
            a2: _mm512_slli_epi64::<1>(a),
            d2: _mm512_slli_epi64::<1>(d),
            step,
            step_wrapped: self.step_wrapped(step),
        }
    }

    /// The step taken when `a` passes 2^63: (step + m − wrap) mod m.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn step_wrapped(&self, step: __m512i) -> __m512i {
        self.reduce_once(_mm512_add_epi64(step, self.m_minus_wrap))
    }

    /// `x mod m` for x < 2^63 and m in [`MIN_BITS`]..=2^43, exactly.
    ///
    /// q = trunc(x · (1/m)) in doubles: three roundings of relative error ≤ 2^−52 each put it
    /// within 3·2^−52 · 2^63/m = 6144/m < 1 of x/m, so q is ⌊x/m⌋ − 1, ⌊x/m⌋ or ⌊x/m⌋ + 1 and
    /// r = x − q·m lies in [−m, 2m): one conditional add and one conditional subtract fix it.
    /// The product q·m wraps harmlessly: r's true value fits an i64.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn rem(&self, x: __m512i) -> __m512i {
        let q = _mm512_cvttpd_epu64(_mm512_mul_pd(_mm512_cvtepu64_pd(x), self.inverse_m));
        let r = _mm512_sub_epi64(x, _mm512_mullo_epi64(q, self.m));
        let negative = _mm512_movepi64_mask(r);
        let r = _mm512_mask_add_epi64(r, negative, r, self.m);
        self.reduce_once(r)
    }

    /// `x mod m` for x < 2m: when x < m, x − m wraps above x (the scalar `reduce_once`).
    #[target_feature(enable = "avx512f,avx512dq")]
    fn reduce_once(&self, x: __m512i) -> __m512i {
        _mm512_min_epu64(x, _mm512_sub_epi64(x, self.m))
    }
}

/// `Indexer::for_each_mitz64`'s state, lane by lane.
#[derive(Clone, Copy)]
struct Walk {
    /// The current index, (combined mod 2^63) mod m.
    idx: __m512i,
    /// combined mod 2^63, times 2: a 64-bit sum carries out exactly when the 63-bit one wraps.
    a2: __m512i,
    /// h2 mod 2^63, times 2.
    d2: __m512i,
    /// d mod m, and the step taken instead when `a` passes 2^63.
    step: __m512i,
    step_wrapped: __m512i,
}

impl Walk {
    /// To the next index: a += d mod 2^63, kept doubled, so the sum wraps mod 2^64 exactly
    /// when a + d passes 2^63 (the sum is then below d2): then the step is the wrapped one;
    /// idx = (idx + step) mod m.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn advance(&mut self, lanes: &Lanes) {
        self.a2 = _mm512_add_epi64(self.a2, self.d2);
        let wrapped = _mm512_cmplt_epu64_mask(self.a2, self.d2);
        let step = _mm512_mask_blend_epi64(wrapped, self.step, self.step_wrapped);
        self.idx = lanes.reduce_once(_mm512_add_epi64(self.idx, step));
    }
}

#[cfg(test)]
mod tests;
