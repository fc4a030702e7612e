//! The AVX2 query in two phases: every key's first [`SCREEN_PROBES`] indexes are tested first,
//! and only the keys that pass (the survivors) walk the rest, packed [`LOCKSTEP`] to a block.
//!
//! On a half-full filter a key that was never put fails each probe with probability ~1/2, so on
//! a 50/50 mix of hits and misses a block nearly always holds a hit and, in plain lockstep, runs
//! all k rounds. Screened by s probes, the 1/2 + 2^-(s+1) of keys that survive (the hits and
//! the misses that pass by chance) fill whole blocks for the other k − s rounds: at k = 10,
//! 3 + 9/16 · 7 ≈ 6.9 rounds per key instead of 10. Two probes would walk as many rounds
//! (2 + 5/8 · 8 = 7) but pack a tenth more survivors, each a left-pack of four walk fields.
//!
//! Both phases walk eight vectors of four keys side by side (the lockstep query and the puts
//! walk four): their independent chains of multiplies and loads cover each other's latency,
//! which pays for the walk states the sixteen vector registers cannot all hold.
//!
//! A pass's survivors are walked before the next pass is screened (their states, four words a
//! key, stay in L1 beside the filter), and the pass's answers are emitted in key order.

use super::{Consts, Lanes, Walks, consts, lanes_below, mask_of, wrapped};
use crate::strategy::Indexer;
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Indexes every key tests before the survivors are packed.
const SCREEN_PROBES: u32 = 3;
/// Vectors of four keys screened, and of four survivors walked, side by side (twice the
/// lockstep query's `GROUPS`).
const VECTORS: usize = 8;
/// Keys a block: screened, or survivors walked, together.
const LOCKSTEP: usize = 4 * VECTORS;
/// Keys screened before their survivors walk.
const PASS: usize = 256;
/// Room for a pass's survivors and the last four-lane store, which may run past them.
const ROOM: usize = PASS + 4;
/// Where a survivor's position in its pass sits in its stored index, above every index
/// (m ≤ 2^32 − 1).
const POS_SHIFT: i32 = 32;

/// For each mask of four 64-bit lanes, the 32-bit lane permutation that moves the lanes set in
/// it to the front, in order (AVX2 has no compress).
const LEFT_PACK: [[i32; 8]; 16] = {
    let mut table = [[0; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let (mut lane, mut to) = (0usize, 0usize);
        while lane < 4 {
            if mask >> lane & 1 != 0 {
                table[mask][2 * to] = 2 * lane as i32;
                table[mask][2 * to + 1] = 2 * lane as i32 + 1;
                to += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// A survivor field's array: left uninitialized (zeroing it every call would cost short
/// batches); the first `len` are written before they are read.
type Field = [MaybeUninit<u64>; ROOM];

/// The walk states of a pass's survivors, in key order: one array per field of [`Walks`] but
/// `step_wrapped` (recomputed from `step` when loaded), the index carrying the key's position in
/// the pass in its top half.
struct Survivors {
    idx_pos: Field,
    a: Field,
    d: Field,
    step: Field,
    len: usize,
}

impl Survivors {
    /// Appends the lanes of `walks` set in `alive`, the keys at positions `first..first + 4 · G`
    /// of the pass.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    fn push<const G: usize>(&mut self, walks: &Walks<G>, alive: &Lanes<G>, first: usize) {
        for (g, alive) in alive.iter().enumerate() {
            let keep = _mm256_movemask_pd(_mm256_castsi256_pd(*alive)) as usize;
            // SAFETY: LEFT_PACK's rows are eight i32s.
            let perm = unsafe { _mm256_loadu_si256(LEFT_PACK[keep].as_ptr().cast()) };
            let pos = (first + 4 * g) as i64;
            let pos = _mm256_setr_epi64x(pos, pos + 1, pos + 2, pos + 3);
            let idx_pos = _mm256_or_si256(walks.idx[g], _mm256_slli_epi64::<POS_SHIFT>(pos));
            let at = self.len;
            debug_assert!(at + 4 <= ROOM);
            // SAFETY: at most PASS keys survive a pass, so at + 4 ≤ ROOM: each store is in its
            // array.
            unsafe {
                for (field, value) in [
                    (&mut self.idx_pos, idx_pos),
                    (&mut self.a, walks.a[g]),
                    (&mut self.d, walks.d[g]),
                    (&mut self.step, walks.step[g]),
                ] {
                    _mm256_storeu_si256(
                        field.as_mut_ptr().add(at).cast(),
                        _mm256_permutevar8x32_epi32(value, perm),
                    );
                }
            }
            self.len += keep.count_ones() as usize;
        }
    }

    /// The walks of survivors `at..at + n` (n 1..=4 · G, at + n ≤ `len`), moved on to their next
    /// index; lanes past them walk index 0.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load<const G: usize>(&self, at: usize, n: usize, c: &Consts) -> Walks<G> {
        debug_assert!((1..=4 * G).contains(&n) && at + n <= self.len);
        let live: Lanes<G> = lanes_below(n);
        // SAFETY: the masks read only lanes at..at + n, inside the array and written; the other
        // lanes are zero.
        let load = |field: &Field| -> Lanes<G> {
            std::array::from_fn(|g| unsafe {
                _mm256_maskload_epi64(field.as_ptr().add(at + 4 * g).cast(), live[g])
            })
        };
        let low_32 = _mm256_set1_epi64x(u32::MAX as i64);
        let step = load(&self.step);
        let mut walks = Walks {
            idx: load(&self.idx_pos).map(|x| _mm256_and_si256(x, low_32)),
            a: load(&self.a),
            d: load(&self.d),
            step,
            step_wrapped: wrapped(step, c),
        };
        walks.advance(c);
        walks
    }

    /// Survivor `i`'s position in its pass.
    #[inline]
    fn pos(&self, i: usize) -> usize {
        debug_assert!(i < self.len);
        // SAFETY: the first `len` were written by `push`.
        (unsafe { self.idx_pos[i].assume_init() } >> POS_SHIFT) as usize
    }
}

/// `avx2::query`, screened: the same `emit(i, present)` calls, in order.
///
/// # Safety
/// As `avx2::query`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(super) unsafe fn query<const COUNTERS: bool>(
    indexer: &Indexer,
    words: *const u64,
    keys: &[u64],
    mut emit: impl FnMut(usize, bool),
) {
    let c = consts(indexer);
    let k = indexer.num_hashes();
    let screened = SCREEN_PROBES.min(k);
    let mut survivors = Survivors {
        idx_pos: [MaybeUninit::uninit(); ROOM],
        a: [MaybeUninit::uninit(); ROOM],
        d: [MaybeUninit::uninit(); ROOM],
        step: [MaybeUninit::uninit(); ROOM],
        len: 0,
    };
    let mut present = [false; PASS];
    let mut walks = Walks::<VECTORS>::new();
    for (p, pass) in keys.chunks(PASS).enumerate() {
        survivors.len = 0;
        for (b, block) in pass.chunks(LOCKSTEP).enumerate() {
            walks.start(block, &c);
            let mut alive = lanes_below(block.len());
            for i in 0..screened {
                if i > 0 {
                    walks.advance(&c);
                }
                // SAFETY: forwarded from this function's contract.
                unsafe { walks.test::<COUNTERS>(words, &mut alive) };
            }
            survivors.push(&walks, &alive, b * LOCKSTEP);
        }
        present[..pass.len()].fill(false);
        for at in (0..survivors.len).step_by(LOCKSTEP) {
            let n = LOCKSTEP.min(survivors.len - at);
            let mut walks = survivors.load::<VECTORS>(at, n, &c);
            let mut alive = lanes_below(n);
            for i in screened..k {
                if i > screened {
                    walks.advance(&c);
                }
                // SAFETY: forwarded from this function's contract.
                if !unsafe { walks.test::<COUNTERS>(words, &mut alive) } {
                    break;
                }
            }
            let mask = mask_of(&alive);
            for j in 0..n {
                present[survivors.pos(at + j) % PASS] = mask >> j & 1 != 0;
            }
        }
        for (j, &present) in present[..pass.len()].iter().enumerate() {
            emit(p * PASS + j, present);
        }
    }
}
