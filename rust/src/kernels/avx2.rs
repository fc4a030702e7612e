//! The fast kernel's AVX2 build for MITZ_64 on cache-resident filters: keys in vectors of four,
//! several vectors walked in lockstep (sixteen keys here, thirty-two in [`screened`]).
//! Everything happens in lanes: the keys' Murmur3_x64_128 (each 64-bit multiply as three 32-bit
//! ones, AVX2 having none wider), the walk's start (its two exact remainders, [`remainder`]),
//! and every further index, a handful of vector ops for four keys: `a += d`, the step chosen by `a`'s top bit (a blend), `idx += step`, one
//! conditional subtract of m. Queries test each round's four bits (four loads); batches of
//! [`SCREEN_MIN_KEYS`] and more test every key's first probes and walk only the survivors on
//! ([`screened`]), shorter ones stop when no key of a block is left. Puts OR each index
//! into the private words.
//!
//! x86-64 only: `kernels/mod.rs` compiles it under one `cfg(target_arch)` gate, and the plan
//! runs it only where the CPU has AVX2 (`Kernel::Avx2`), on filters of [`MIN_BITS`] to
//! [`MAX_BITS`] bits.

use crate::hashing::{C1, C2, FMIX1, FMIX2};
use crate::strategy::Indexer;
use std::arch::x86_64::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

mod screened;

// BLOCKED batches: eight keys hashed, a key's block tested in lanes.
pub(crate) mod blocked;

/// Batches at least this long are screened ([`screened`]); shorter ones gain less than the
/// packing of the survivors costs.
const SCREEN_MIN_KEYS: usize = 64;

/// Vectors of four keys walked together by the lockstep query and the puts: sixteen keys.
const GROUPS: usize = 4;
/// Keys walked together by the lockstep query and the puts.
const BLOCK: usize = 4 * GROUPS;

/// The smallest m whose remainders [`remainder`] computes exactly: the quotient's estimate
/// in doubles is off by at most (2^63 / m) · 3 · 2^-53 = 3 · 2^10 / m, below 1 from 2^12.
pub(crate) const MIN_BITS: u64 = 1 << 12;
/// The largest: m fits the 32-bit multiplies of `quotient · m` (and `idx + step < 2m` stays
/// positive as a signed lane).
pub(crate) const MAX_BITS: u64 = u32::MAX as u64;

/// The bits of the double 2^52: OR-ed with an integer below 2^52, the double 2^52 + it.
const TWO_52_BITS: i64 = 0x4330_0000_0000_0000;

/// The walks of up to 4 · G keys, field by field, four lanes a vector
/// (`strategy::Mitz64Walk` in lanes).
struct Walks<const G: usize> {
    idx: Lanes<G>,
    a: Lanes<G>,
    d: Lanes<G>,
    step: Lanes<G>,
    step_wrapped: Lanes<G>,
}

/// Per-filter constants in every lane.
struct Consts {
    m: __m256i,
    m_minus_1: __m256i,
    /// m − (2^63 mod m): added to the step when `a` passes 2^63 (then reduced).
    m_minus_wrap: __m256i,
    low_63: __m256i,
    /// 1 / m, rounded.
    inv_m: __m256d,
}

/// Vectors processed op by op.
type Lanes<const G: usize> = [__m256i; G];

/// `op` on each vector of `x`.
#[inline(always)]
fn each<const G: usize>(x: Lanes<G>, op: impl Fn(__m256i) -> __m256i) -> Lanes<G> {
    x.map(op)
}

/// `x · c mod 2^64` in each lane, from 32-bit multiplies.
#[inline]
#[target_feature(enable = "avx2")]
fn mul64<const G: usize>(x: Lanes<G>, c: u64) -> Lanes<G> {
    let c_lo = _mm256_set1_epi64x(c as u32 as i64);
    let c_hi = _mm256_set1_epi64x((c >> 32) as i64);
    let lo = each(x, |x| _mm256_mul_epu32(x, c_lo));
    let hi_lo = each(x, |x| _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), c_lo));
    let lo_hi = each(x, |x| _mm256_mul_epu32(x, c_hi));
    std::array::from_fn(|g| {
        let cross = _mm256_add_epi64(hi_lo[g], lo_hi[g]);
        _mm256_add_epi64(lo[g], _mm256_slli_epi64::<32>(cross))
    })
}

/// `k ^ k >> 33` in each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn xor_shift_33<const G: usize>(k: Lanes<G>) -> Lanes<G> {
    each(k, |k| _mm256_xor_si256(k, _mm256_srli_epi64::<33>(k)))
}

/// `hashing::fmix64` in each lane.
#[inline]
#[target_feature(enable = "avx2")]
fn fmix64<const G: usize>(k: Lanes<G>) -> Lanes<G> {
    let k = mul64(xor_shift_33(k), FMIX1);
    xor_shift_33(mul64(xor_shift_33(k), FMIX2))
}

/// `hashing::hash_u64` in each lane: Murmur3_x64_128 (seed 0) of the key's 8 little-endian
/// bytes, one tail block mixed into h1.
#[inline]
#[target_feature(enable = "avx2")]
fn murmur3_u64<const G: usize>(keys: Lanes<G>) -> (Lanes<G>, Lanes<G>) {
    let k = mul64(keys, C1);
    let k = each(k, |k| {
        _mm256_or_si256(_mm256_slli_epi64::<31>(k), _mm256_srli_epi64::<33>(k))
    });
    let k1 = mul64(k, C2);
    let len = _mm256_set1_epi64x(8);
    let h1 = each(k1, |k1| _mm256_add_epi64(_mm256_xor_si256(k1, len), len));
    let h2 = each(h1, |h1| _mm256_add_epi64(len, h1));
    let (h1, h2) = (fmix64(h1), fmix64(h2));
    let h1: Lanes<G> = std::array::from_fn(|g| _mm256_add_epi64(h1[g], h2[g]));
    let h2 = std::array::from_fn(|g| _mm256_add_epi64(h2[g], h1[g]));
    (h1, h2)
}

/// `x mod m` in each lane, exactly, for `x < 2^63` and [`MIN_BITS`] ≤ m ≤ [`MAX_BITS`]: the
/// quotient estimated in doubles (x rounded once, times 1/m) is within one of the true one,
/// so `x − q·m` (in wrapping integers) lies in [−m, 2m) and one correction each way ends it.
#[inline]
#[target_feature(enable = "avx2")]
fn remainder<const G: usize>(x: Lanes<G>, c: &Consts) -> Lanes<G> {
    let magic = _mm256_set1_epi64x(TWO_52_BITS);
    let two_52 = _mm256_castsi256_pd(magic);
    let q = x.map(|x| {
        // x's halves as exact doubles (each below 2^52), then x rounded once.
        let hi = _mm256_sub_pd(
            _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64::<32>(x), magic)),
            two_52,
        );
        let lo = _mm256_sub_pd(
            _mm256_castsi256_pd(_mm256_blend_epi32::<0b1010_1010>(x, magic)),
            two_52,
        );
        let x_rounded = _mm256_add_pd(_mm256_mul_pd(hi, _mm256_set1_pd(4_294_967_296.0)), lo);
        // q < 2^63 / 2^12 = 2^51: adding 2^52 puts it in the mantissa, exactly.
        let q = _mm256_floor_pd(_mm256_mul_pd(x_rounded, c.inv_m));
        _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(q, two_52)), magic)
    });
    std::array::from_fn(|g| {
        let q_m = _mm256_add_epi64(
            _mm256_mul_epu32(q[g], c.m),
            _mm256_slli_epi64::<32>(_mm256_mul_epu32(_mm256_srli_epi64::<32>(q[g]), c.m)),
        );
        let r = _mm256_sub_epi64(x[g], q_m);
        let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), r);
        let r = _mm256_add_epi64(r, _mm256_and_si256(negative, c.m));
        _mm256_sub_epi64(r, _mm256_and_si256(_mm256_cmpgt_epi64(r, c.m_minus_1), c.m))
    })
}

/// The step taken when `a` passes 2^63 (`strategy::Mitz64Walk`'s wrapped step), from `step`:
/// step + m − wrap < 2m, so one conditional subtract.
#[inline]
#[target_feature(enable = "avx2")]
fn wrapped<const G: usize>(step: Lanes<G>, c: &Consts) -> Lanes<G> {
    step.map(|step| {
        let wrapped = _mm256_add_epi64(step, c.m_minus_wrap);
        let over = _mm256_cmpgt_epi64(wrapped, c.m_minus_1);
        _mm256_sub_epi64(wrapped, _mm256_and_si256(over, c.m))
    })
}

impl<const G: usize> Walks<G> {
    /// Walks that [`start`](Self::start) overwrites.
    #[target_feature(enable = "avx2")]
    fn new() -> Walks<G> {
        let zero = [_mm256_setzero_si256(); G];
        Walks {
            idx: zero,
            a: zero,
            d: zero,
            step: zero,
            step_wrapped: zero,
        }
    }

    /// Moves the walks to the first index of `keys` (1..=4 · G) (`Indexer::mitz64_start`, lane
    /// by lane); lanes past them repeat the first key.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn start(&mut self, keys: &[u64], c: &Consts) {
        let keys: Lanes<G> = if keys.len() == 4 * G {
            // SAFETY: four u64s at 4 · g of the 4 · G keys.
            std::array::from_fn(|g| unsafe { _mm256_loadu_si256(keys.as_ptr().add(4 * g).cast()) })
        } else {
            let padded: [[u64; 4]; G] = std::array::from_fn(|g| {
                std::array::from_fn(|l| *keys.get(4 * g + l).unwrap_or(&keys[0]))
            });
            // SAFETY: four u64s.
            padded.map(|four| unsafe { _mm256_loadu_si256(four.as_ptr().cast()) })
        };
        // All groups op by op, so that their independent chains of multiplies overlap.
        let (h1, h2) = murmur3_u64(keys);
        let a = h1.map(|h| _mm256_and_si256(h, c.low_63));
        let d = h2.map(|h| _mm256_and_si256(h, c.low_63));
        let step = remainder(d, c);
        self.idx = remainder(a, c);
        self.a = a;
        self.d = d;
        self.step = step;
        self.step_wrapped = wrapped(step, c);
    }

    /// Every walk to its next index (`Indexer::mitz64_advance`, lane by lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn advance(&mut self, c: &Consts) {
        for g in 0..G {
            // Both below 2^63: the sum's top bit says whether `a` passed 2^63.
            let sum = _mm256_add_epi64(self.a[g], self.d[g]);
            let step = _mm256_castpd_si256(_mm256_blendv_pd(
                _mm256_castsi256_pd(self.step[g]),
                _mm256_castsi256_pd(self.step_wrapped[g]),
                _mm256_castsi256_pd(sum),
            ));
            self.a[g] = _mm256_and_si256(sum, c.low_63);
            // idx + step < 2m ≤ 2^44: a signed compare picks the lanes at or above m.
            let x = _mm256_add_epi64(self.idx[g], step);
            let over = _mm256_cmpgt_epi64(x, c.m_minus_1);
            self.idx[g] = _mm256_sub_epi64(x, _mm256_and_si256(over, c.m));
        }
    }
    /// Clears each lane of `alive` whose walk's current cell in `words` is empty (a key's
    /// answer is its lane's top bit); returns whether any lane is left. A cell is a bit, or
    /// with `COUNTERS` a 4-bit counter (sixteen to a word, the counting filter's).
    ///
    /// # Safety
    /// `words` points at the filter's m cells' readable words (each walk's index is below m),
    /// alive for the call; concurrent puts change them only atomically.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn test<const COUNTERS: bool>(&self, words: *const u64, alive: &mut Lanes<G>) -> bool {
        let sixty_three = _mm256_set1_epi64x(63);
        let fifteen = _mm256_set1_epi64x(15);
        let mut any = _mm256_setzero_si256();
        for (alive, &idx) in alive.iter_mut().zip(&self.idx) {
            let w = if COUNTERS {
                _mm256_srli_epi64::<4>(idx)
            } else {
                _mm256_srli_epi64::<6>(idx)
            };
            let low = _mm256_castsi256_si128(w);
            let high = _mm256_extracti128_si256::<1>(w);
            // Four loads, not a gather: faster here, and AVX2 gathers are slower still on some
            // CPUs (microcoded, or slowed by microcode mitigations).
            // SAFETY: every index is below m, so its word is one of the filter's; read
            // atomically, as concurrent puts write them.
            let word = unsafe {
                let at = |i: i64| (*words.add(i as usize).cast::<AtomicU64>()).load(Relaxed) as i64;
                _mm256_set_epi64x(
                    at(_mm_extract_epi64::<1>(high)),
                    at(_mm_cvtsi128_si64(high)),
                    at(_mm_extract_epi64::<1>(low)),
                    at(_mm_cvtsi128_si64(low)),
                )
            };
            *alive = if COUNTERS {
                // The index's counter moved to the bottom (shifted right by 4 · (idx mod 16)):
                // the lane dies where it is zero.
                let shift = _mm256_slli_epi64::<2>(_mm256_and_si256(idx, fifteen));
                let counter = _mm256_and_si256(_mm256_srlv_epi64(word, shift), fifteen);
                let empty = _mm256_cmpeq_epi64(counter, _mm256_setzero_si256());
                _mm256_andnot_si256(empty, *alive)
            } else {
                // The index's bit moved to the top: shifted left by 63 − (idx mod 64).
                _mm256_and_si256(
                    *alive,
                    _mm256_sllv_epi64(word, _mm256_andnot_si256(idx, sixty_three)),
                )
            };
            any = _mm256_or_si256(any, *alive);
        }
        let any = _mm256_castsi256_pd(any);
        _mm256_testz_pd(any, any) == 0
    }
}

#[target_feature(enable = "avx2")]
fn consts(indexer: &Indexer) -> Consts {
    let m = indexer.num_bits();
    debug_assert!((MIN_BITS..=MAX_BITS).contains(&m));
    Consts {
        m: _mm256_set1_epi64x(m as i64),
        m_minus_1: _mm256_set1_epi64x(m as i64 - 1),
        m_minus_wrap: _mm256_set1_epi64x((m - indexer.wrap()) as i64),
        low_63: _mm256_set1_epi64x(i64::MAX),
        inv_m: _mm256_set1_pd(1.0 / m as f64),
    }
}

/// Calls `emit(i, might_contain(keys[i]))` for each key, in order, for a MITZ_64 filter whose
/// indexes `indexer` walks over the words at `words` (bits, or with `COUNTERS` the counting
/// filter's 4-bit counters): batches of [`SCREEN_MIN_KEYS`] and more screened ([`screened`]),
/// shorter ones sixteen keys in lockstep until none is left.
///
/// # Safety
/// The CPU has AVX2; `words` points at the filter's m cells' readable words (each index the
/// walk yields is below m), alive for the call; concurrent puts change them only atomically.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn query<const COUNTERS: bool>(
    indexer: &Indexer,
    words: *const u64,
    keys: &[u64],
    mut emit: impl FnMut(usize, bool),
) {
    if keys.len() >= SCREEN_MIN_KEYS {
        // SAFETY: forwarded from this function's contract.
        return unsafe { screened::query::<COUNTERS>(indexer, words, keys, emit) };
    }
    let c = consts(indexer);
    let k = indexer.num_hashes();
    let mut walks = Walks::<GROUPS>::new();
    for (b, block) in keys.chunks(BLOCK).enumerate() {
        walks.start(block, &c);
        let mut alive = lanes_below(block.len());
        for i in 0..k {
            if i > 0 {
                walks.advance(&c);
            }
            // SAFETY: forwarded from this function's contract.
            if !unsafe { walks.test::<COUNTERS>(words, &mut alive) } {
                break;
            }
        }
        let present = mask_of(&alive);
        for j in 0..block.len() {
            emit(b * BLOCK + j, present >> j & 1 != 0);
        }
    }
}

/// The lanes below `n` (of 4 · G) set, the rest clear.
#[inline]
#[target_feature(enable = "avx2")]
fn lanes_below<const G: usize>(n: usize) -> Lanes<G> {
    let n = _mm256_set1_epi64x(n as i64);
    std::array::from_fn(|g| {
        let g = 4 * g as i64;
        _mm256_cmpgt_epi64(n, _mm256_setr_epi64x(g, g + 1, g + 2, g + 3))
    })
}

/// Bit j set where lane j's top bit is (at most 32 lanes).
#[inline]
#[target_feature(enable = "avx2")]
fn mask_of<const G: usize>(lanes: &Lanes<G>) -> u32 {
    const { assert!(G <= 8, "a bit a lane of a u32") };
    let mut mask = 0;
    for (g, lane) in lanes.iter().enumerate() {
        mask |= (_mm256_movemask_pd(_mm256_castsi256_pd(*lane)) as u32) << (4 * g);
    }
    mask
}

/// ORs the k bits of each of `keys` into `words` (a private copy of a MITZ_64 filter's words,
/// which `indexer` walks).
///
/// # Safety
/// The CPU has AVX2.
///
/// # Panics
/// If `words` is shorter than the filter's ⌈m / 64⌉ words.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn accumulate(indexer: &Indexer, keys: &[u64], words: &mut [u64]) {
    let c = consts(indexer);
    let k = indexer.num_hashes();
    assert!(
        words.len() as u64 >= indexer.num_bits().div_ceil(64),
        "a word per 64 bits"
    );
    let mut lanes = [0u64; BLOCK];
    let mut walks = Walks::<GROUPS>::new();
    for block in keys.chunks(BLOCK) {
        walks.start(block, &c);
        for i in 0..k {
            if i > 0 {
                walks.advance(&c);
            }
            if block.len() == BLOCK {
                // A whole block: the indexes straight from the registers.
                for idx in walks.idx {
                    let low = _mm256_castsi256_si128(idx);
                    let high = _mm256_extracti128_si256::<1>(idx);
                    for idx in [
                        _mm_cvtsi128_si64(low),
                        _mm_extract_epi64::<1>(low),
                        _mm_cvtsi128_si64(high),
                        _mm_extract_epi64::<1>(high),
                    ] {
                        let idx = idx as u64;
                        // SAFETY: every index is below m, and `words` holds ⌈m / 64⌉ words
                        // (asserted).
                        unsafe { *words.get_unchecked_mut((idx >> 6) as usize) |= 1 << (idx & 63) };
                    }
                }
                continue;
            }
            for g in 0..GROUPS {
                // SAFETY: four u64s at 4 · g in a 16-slot array.
                unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().add(4 * g).cast(), walks.idx[g]) };
            }
            for &idx in &lanes[..block.len()] {
                words[(idx >> 6) as usize] |= 1 << (idx & 63);
            }
        }
    }
}

#[cfg(test)]
mod tests;
