//! The fast kernel's AVX2 build for MITZ_64 on cache-resident filters: sixteen keys as four
//! vectors of four, walked in lockstep. Each key's walk starts as `strategy::Mitz64Walk` starts
//! it (two exact remainders, scalar), then every further index is a handful of vector ops for
//! four keys: `a += d`, the step chosen by `a`'s top bit (a blend), `idx += step`, one
//! conditional subtract of m. Queries test each round's four bits with one gather and stop
//! when no key of the sixteen is left; puts OR each index into the private words.
//!
//! x86-64 only: `kernels/mod.rs` compiles it under one `cfg(target_arch)` gate, and the plan
//! runs it only where the CPU has AVX2 (`Kernel::Avx2`).

use crate::hashing::hash_u64;
use crate::strategy::Indexer;
use std::arch::x86_64::*;

/// Keys walked together: four vectors of four.
const BLOCK: usize = 16;
const GROUPS: usize = BLOCK / 4;

/// The walks of up to sixteen keys, field by field, four lanes a vector.
struct Walks {
    idx: [__m256i; GROUPS],
    a: [__m256i; GROUPS],
    d: [__m256i; GROUPS],
    step: [__m256i; GROUPS],
    step_wrapped: [__m256i; GROUPS],
}

/// Per-filter constants in every lane.
struct Consts {
    m: __m256i,
    m_minus_1: __m256i,
    low_63: __m256i,
}

impl Walks {
    /// The walks of `keys` (1..=16) at their first index; lanes past them repeat the first key.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn start(indexer: &Indexer, keys: &[u64]) -> Walks {
        // Field by field, so that each vector is one load.
        let mut fields = [[0u64; BLOCK]; 5];
        // Lanes past the keys repeat the first key: valid indexes, answers dropped.
        let lane_keys = (0..BLOCK).map(|j| keys.get(j).unwrap_or(&keys[0]));
        for (j, key) in lane_keys.enumerate() {
            let walk = indexer.mitz64_start(hash_u64(*key));
            fields[0][j] = walk.idx;
            fields[1][j] = walk.a;
            fields[2][j] = walk.d;
            fields[3][j] = walk.step;
            fields[4][j] = walk.step_wrapped;
        }
        let load = |field: &[u64; BLOCK]| -> [__m256i; GROUPS] {
            // SAFETY: four u64s at 4 · g of a 16-slot array.
            std::array::from_fn(|g| unsafe { _mm256_loadu_si256(field.as_ptr().add(4 * g).cast()) })
        };
        Walks {
            idx: load(&fields[0]),
            a: load(&fields[1]),
            d: load(&fields[2]),
            step: load(&fields[3]),
            step_wrapped: load(&fields[4]),
        }
    }

    /// Every walk to its next index (`Indexer::mitz64_advance`, lane by lane).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn advance(&mut self, c: &Consts) {
        for g in 0..GROUPS {
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
}

#[target_feature(enable = "avx2")]
fn consts(indexer: &Indexer) -> Consts {
    let m = indexer.num_bits() as i64;
    Consts {
        m: _mm256_set1_epi64x(m),
        m_minus_1: _mm256_set1_epi64x(m - 1),
        low_63: _mm256_set1_epi64x(i64::MAX),
    }
}

/// Calls `emit(i, might_contain(keys[i]))` for each key, in order, for a MITZ_64 filter whose
/// indexes `indexer` walks over the words at `words`.
///
/// # Safety
/// The CPU has AVX2; `words` points at the filter's ⌈m / 64⌉ readable words (each index the
/// walk yields is below m), alive for the call. Each 8-byte lane of a gather is an aligned
/// 8-byte load, which x86 performs atomically, so concurrent puts are seen whole or not at all.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn query(
    indexer: &Indexer,
    words: *const u64,
    keys: &[u64],
    mut emit: impl FnMut(usize, bool),
) {
    let c = consts(indexer);
    let k = indexer.num_hashes();
    let one = _mm256_set1_epi64x(1);
    let sixty_three = _mm256_set1_epi64x(63);
    for (b, block) in keys.chunks(BLOCK).enumerate() {
        let mut walks = Walks::start(indexer, block);
        let mut alive = [_mm256_set1_epi64x(-1); GROUPS];
        for i in 0..k {
            if i > 0 {
                walks.advance(&c);
            }
            let mut any = _mm256_setzero_si256();
            for (alive, &idx) in alive.iter_mut().zip(&walks.idx) {
                // SAFETY: every index is below m, so its word is one of the filter's.
                let word = unsafe {
                    _mm256_i64gather_epi64::<8>(words.cast(), _mm256_srli_epi64::<6>(idx))
                };
                let bit = _mm256_sllv_epi64(one, _mm256_and_si256(idx, sixty_three));
                let set = _mm256_cmpeq_epi64(_mm256_and_si256(word, bit), bit);
                *alive = _mm256_and_si256(*alive, set);
                any = _mm256_or_si256(any, *alive);
            }
            if _mm256_testz_si256(any, any) != 0 {
                break;
            }
        }
        let mut present = 0u32;
        for (g, alive) in alive.iter().enumerate() {
            present |= (_mm256_movemask_pd(_mm256_castsi256_pd(*alive)) as u32) << (4 * g);
        }
        for j in 0..block.len() {
            emit(b * BLOCK + j, present >> j & 1 != 0);
        }
    }
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
    let mut lanes = [0u64; BLOCK];
    for block in keys.chunks(BLOCK) {
        let mut walks = Walks::start(indexer, block);
        for i in 0..k {
            if i > 0 {
                walks.advance(&c);
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
