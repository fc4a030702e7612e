//! The lockstep query with lane refill: a lane whose key is answered (a clear bit, or all k
//! probes set) takes the next key at once, instead of idling until the slowest lane of its
//! eight finishes. On a half-full filter a key that was never put fails each probe with
//! probability ~1/2, so on a 50/50 mix of hits and misses a key needs ~(k + 2) / 2 probes on
//! average, while a lockstep group runs all k rounds as soon as one of its keys is a hit.
//!
//! Keys are hashed ahead, [`STAGE`] at a time, into arrays of walk states; each round, every
//! idle lane is refilled from them with expanding loads (the next states go to the idle lanes in
//! order), and each answered hit writes its key's position to a log, compressed, so nothing
//! branches per lane. After each [`PASS`] keys the log is turned into the eight-key masks that
//! [`query`](super::query) visits.

use super::{Lanes, Target, Walk, load_up_to_8};
use std::arch::x86_64::*;

/// Groups of eight lanes in flight, each a chain of gathers independent of the other's.
const FLIGHTS: usize = flights();
const fn flights() -> usize { match option_env!("RF_FLIGHTS") { Some(_) => 4, None => 3 } }
/// Keys whose walk states are computed at a time (eight per vector), ahead of their probes.
const STAGE: usize = 256;
/// Room for the states left over when the next stage is hashed (fewer than two groups' worth)
/// and for the last vector store of a stage, which may run past its keys.
const STAGE_ROOM: usize = STAGE + 8 * FLIGHTS + 8;
/// Keys answered before their masks are visited: the lanes run dry at the end of each pass (a
/// few half-empty rounds), and its log and masks live on the stack.
pub(super) const PASS: usize = 2048;

/// The walk states of staged keys, one array per field of [`Walk`], in key order.
struct Staged {
    idx: [u64; STAGE_ROOM],
    a2: [u64; STAGE_ROOM],
    d2: [u64; STAGE_ROOM],
    step: [u64; STAGE_ROOM],
    step_wrapped: [u64; STAGE_ROOM],
    /// States `head..tail` are staged and not yet in a lane.
    head: usize,
    tail: usize,
    /// The position in the pass of the key at `head`.
    head_key: usize,
}

impl Staged {
    /// Moves the states still staged to the front and hashes the next keys of `keys` (from
    /// `*hashed` on, at most [`STAGE`]) behind them.
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
    fn restage(&mut self, lanes: &Lanes, keys: &[u64], hashed: &mut usize) {
        let left = self.tail - self.head;
        debug_assert!(left < 8 * FLIGHTS);
        for field in [
            &mut self.idx,
            &mut self.a2,
            &mut self.d2,
            &mut self.step,
            &mut self.step_wrapped,
        ] {
            field.copy_within(self.head..self.tail, 0);
        }
        self.head = 0;
        self.tail = left;
        let end = keys.len().min(*hashed + STAGE);
        for group in keys[*hashed..end].chunks(8) {
            let walk = lanes.walk(load_up_to_8(group).0);
            let at = self.tail;
            // SAFETY: at + 8 ≤ left + STAGE ≤ STAGE_ROOM: each store is in its array.
            unsafe {
                for (field, value) in [
                    (&mut self.idx, walk.idx),
                    (&mut self.a2, walk.a2),
                    (&mut self.d2, walk.d2),
                    (&mut self.step, walk.step),
                    (&mut self.step_wrapped, walk.step_wrapped),
                ] {
                    _mm512_storeu_si512(field.as_mut_ptr().add(at).cast(), value);
                }
            }
            self.tail += group.len();
        }
        *hashed = end;
    }
}

/// Eight lanes of keys in flight: their walks, probes left and positions in the pass.
struct Flight {
    walk: Walk,
    left: __m512i,
    /// The positions in the pass, in 32-bit lanes.
    key: __m256i,
    /// The lanes holding a key not yet answered.
    live: u8,
}

impl Flight {
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
    fn empty() -> Flight {
        let zero = _mm512_setzero_si512();
        Flight {
            // Index 0 is valid: an idle lane's gather reads the first word.
            walk: Walk {
                idx: zero,
                a2: zero,
                d2: zero,
                step: zero,
                step_wrapped: zero,
            },
            left: zero,
            key: _mm256_setzero_si256(),
            live: 0,
        }
    }

    /// Fills the idle lanes with the next staged keys, as many as are staged.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
    fn refill(&mut self, staged: &mut Staged, num_hashes: __m512i) {
        let idle = !self.live;
        let have = staged.tail - staged.head;
        let mut fill = idle;
        // The end of a pass: the lowest idle lanes take what is left.
        while fill.count_ones() as usize > have {
            fill &= !(0x80 >> fill.leading_zeros());
        }
        let at = staged.head;
        // SAFETY: the expanding loads read popcount(fill) ≤ tail − head states from `head`.
        unsafe {
            let w = &mut self.walk;
            w.idx = _mm512_mask_expandloadu_epi64(w.idx, fill, staged.idx.as_ptr().add(at).cast());
            w.a2 = _mm512_mask_expandloadu_epi64(w.a2, fill, staged.a2.as_ptr().add(at).cast());
            w.d2 = _mm512_mask_expandloadu_epi64(w.d2, fill, staged.d2.as_ptr().add(at).cast());
            w.step =
                _mm512_mask_expandloadu_epi64(w.step, fill, staged.step.as_ptr().add(at).cast());
            w.step_wrapped = _mm512_mask_expandloadu_epi64(
                w.step_wrapped,
                fill,
                staged.step_wrapped.as_ptr().add(at).cast(),
            );
        }
        self.left = _mm512_mask_mov_epi64(self.left, fill, num_hashes);
        let positions = _mm256_add_epi32(
            _mm256_set1_epi32(staged.head_key as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        );
        self.key = _mm256_mask_expand_epi32(self.key, fill, positions);
        let count = fill.count_ones() as usize;
        staged.head += count;
        staged.head_key += count;
        self.live |= fill;
    }

    /// One probe of every live lane; the positions of the keys answered present are appended
    /// to `log` at `*logged` (which must have room for eight more).
    ///
    /// # Safety
    /// As [`query`](super::query); `log` has room for eight entries from `*logged`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
    unsafe fn probe<const COUNTERS: bool>(
        &mut self,
        lanes: &Lanes,
        log: *mut u32,
        logged: &mut usize,
    ) {
        // SAFETY: forwarded.
        let set = unsafe { lanes.cells_set::<COUNTERS>(&self.walk, self.live) };
        self.left = _mm512_sub_epi64(self.left, _mm512_set1_epi64(1));
        let last = _mm512_cmpeq_epi64_mask(self.left, _mm512_setzero_si512());
        let hits = set & last;
        // SAFETY: the caller's room for eight.
        unsafe {
            _mm256_storeu_si256(
                log.add(*logged).cast(),
                _mm256_maskz_compress_epi32(hits, self.key),
            )
        };
        *logged += hits.count_ones() as usize;
        self.live &= set & !last;
        self.walk.advance(lanes);
    }
}

/// [`query`](super::query) with lane refill: the same `visit(first, present)` calls, in order.
///
/// # Safety
/// As [`query`](super::query).
#[target_feature(enable = "avx512f,avx512dq,avx512vl,popcnt")]
pub(super) unsafe fn query<const COUNTERS: bool>(
    target: Target,
    keys: &[u64],
    mut visit: impl FnMut(usize, u8),
) {
    let lanes = Lanes::new(target);
    let num_hashes = _mm512_set1_epi64(i64::from(target.num_hashes));
    let mut staged = Staged {
        idx: [0; STAGE_ROOM],
        a2: [0; STAGE_ROOM],
        d2: [0; STAGE_ROOM],
        step: [0; STAGE_ROOM],
        step_wrapped: [0; STAGE_ROOM],
        head: 0,
        tail: 0,
        head_key: 0,
    };
    let mut log = [0u32; PASS + 8];
    let mut masks = [0u8; PASS / 8];
    for (p, pass) in keys.chunks(PASS).enumerate() {
        staged.head = 0;
        staged.tail = 0;
        staged.head_key = 0;
        let mut hashed = 0;
        let mut logged = 0;
        // The flights named rather than in an array, so that their vectors stay in registers.
        macro_rules! run {
            ($($flight:ident),+) => {{
                $(let mut $flight = Flight::empty();)+
                loop {
                    if staged.tail - staged.head < 8 * FLIGHTS && hashed < pass.len() {
                        staged.restage(&lanes, pass, &mut hashed);
                    }
                    $($flight.refill(&mut staged, num_hashes);)+
                    if 0 $(| $flight.live)+ == 0 {
                        break;
                    }
                    // SAFETY: forwarded from this function's contract; at most PASS keys are
                    // logged, each once, so `logged` ≤ PASS and eight more fit.
                    unsafe {
                        $($flight.probe::<COUNTERS>(&lanes, log.as_mut_ptr(), &mut logged);)+
                    }
                }
            }};
        }
        match FLIGHTS {
            2 => run!(f0, f1),
            3 => run!(f0, f1, f2),
            _ => run!(f0, f1, f2, f3),
        }
        let masks = &mut masks[..pass.len().div_ceil(8)];
        masks.fill(0);
        for &key in &log[..logged] {
            masks[key as usize >> 3] |= 1 << (key & 7);
        }
        for (g, &mask) in masks.iter().enumerate() {
            visit(p * PASS + 8 * g, mask);
        }
    }
}
