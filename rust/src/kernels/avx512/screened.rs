//! The lockstep query in two phases: every key's first [`SCREEN_PROBES`] indexes are tested
//! first, and only the keys that pass (the survivors) walk the rest, packed eight to a vector.
//!
//! On a half-full filter a key that was never put fails each probe with probability ~1/2, so
//! on a 50/50 mix of hits and misses a group of eight nearly always holds a hit and runs all k
//! rounds in plain lockstep, while a miss is answered after ~2 probes. Screened by three
//! probes, the ~9/16 of keys that survive (the hits and an eighth of the misses) fill whole
//! vectors for the other k − 3 rounds: at k = 10, 3 + 9/16 · 7 ≈ 6.9 rounds per eight keys
//! instead of 10, for one compress of the survivors' walk states per eight keys.
//!
//! A pass's last survivors short of a pair of vectors are carried into the next pass's walk,
//! so every pair but the batch's last runs full, and the survivors are stored in four arrays
//! (the wrapped step recomputed, the key's ring slot in its index's top bits). Lanes are not
//! refilled as their keys are answered: each round's refill would wait on the gather before it
//! (the lanes to refill are known only from its answer), where the lockstep's next gathers
//! never wait on an answer.

use super::{Lanes, Target, Walk, load_up_to_8};
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Indexes every key tests before the survivors are packed.
pub(super) const SCREEN_PROBES: u32 = 3;
/// Keys screened before their survivors are walked and their masks visited: the survivors'
/// states (six words a key) stay in L1 beside the filter.
const PASS: usize = 256;
/// Multiplies eight bytes of 0 or 1 into the mask of the ones, in the top byte.
const GATHER_BYTE_BITS: u64 = 0x0102_0408_1020_4080;
/// Room for the survivors carried from the pass before (fewer than a pair of vectors), a
/// pass's survivors, and the last vector store, which may run past them.
const ROOM: usize = 16 + PASS + 8;
/// The answer bytes of two passes: the one waiting on its carried survivors and the next.
const RING: usize = 2 * PASS;

/// A survivor field's array: left uninitialized (zeroing ~13 KB a call would cost short
/// batches their gain); the first `len` are written before they are read.
type Field = [MaybeUninit<u64>; ROOM];

/// Where a survivor's ring slot (its position mod [`RING`]) sits in its stored index, above
/// every index (m ≤ 2^43).
const SLOT_SHIFT: u32 = 52;

/// The walk states of the survivors, in key order: one array per field of [`Walk`] but
/// `step_wrapped` (recomputed from `step` when loaded: fewer compresses and stores per key
/// screened), the index carrying the key's ring slot in its top bits.
struct Survivors {
    idx_slot: Field,
    a2: Field,
    d2: Field,
    step: Field,
    len: usize,
}

impl Survivors {
    /// Appends the lanes `keep` of `walk` (keys at positions `first..first + 8`, `first` a
    /// multiple of 8).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,popcnt")]
    fn push(&mut self, walk: &Walk, keep: u8, first: usize) {
        // first mod RING is a multiple of 8, so the eight slots do not wrap.
        let slots = _mm512_add_epi64(
            _mm512_set1_epi64((first % RING) as i64),
            _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
        );
        let idx_slot = _mm512_or_si512(walk.idx, _mm512_slli_epi64::<SLOT_SHIFT>(slots));
        let at = self.len;
        debug_assert!(at + 8 <= ROOM);
        // SAFETY: fewer than 16 are carried and at most PASS keys survive a pass, so
        // at + 8 ≤ ROOM: each store is in its array. The compress is the register form, then
        // a whole store (its memory form is slow on Zen 4).
        unsafe {
            for (field, value) in [
                (&mut self.idx_slot, idx_slot),
                (&mut self.a2, walk.a2),
                (&mut self.d2, walk.d2),
                (&mut self.step, walk.step),
            ] {
                _mm512_storeu_si512(
                    field.as_mut_ptr().add(at).cast(),
                    _mm512_maskz_compress_epi64(keep, value),
                );
            }
        }
        self.len += keep.count_ones() as usize;
    }

    /// The survivors `at..at + 8` below `end` (at most `len`): their walks, ring slots and
    /// lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn load(&self, lanes: &Lanes, at: usize, end: usize) -> (Walk, __m512i, u8) {
        debug_assert!(at < end && end <= self.len);
        let live = ((1u16 << (end - at).min(8)) - 1) as u8;
        // SAFETY: the mask reads only the lanes at..end, inside the array and written; the
        // other lanes are zero, a valid index for the idle lanes' gathers.
        let load = |field: &Field| unsafe {
            _mm512_maskz_loadu_epi64(live, field.as_ptr().add(at).cast())
        };
        let idx_slot = load(&self.idx_slot);
        let step = load(&self.step);
        (
            Walk {
                idx: _mm512_and_si512(idx_slot, _mm512_set1_epi64((1 << SLOT_SHIFT) - 1)),
                a2: load(&self.a2),
                d2: load(&self.d2),
                step,
                step_wrapped: lanes.step_wrapped(step),
            },
            _mm512_srli_epi64::<SLOT_SHIFT>(idx_slot),
            live,
        )
    }

    /// Drops the first `walked` survivors (answered), moving the rest to the front.
    #[inline]
    fn drop_front(&mut self, walked: usize) {
        debug_assert!(walked <= self.len);
        for field in [
            &mut self.idx_slot,
            &mut self.a2,
            &mut self.d2,
            &mut self.step,
        ] {
            field.copy_within(walked..self.len, 0);
        }
        self.len -= walked;
    }
}

/// Tests the first `SCREEN_PROBES` indexes of the keys in `walks` (lanes `live`) and appends
/// the lanes that pass, advanced to their next index, to `survivors`.
///
/// # Safety
/// As [`query`](super::query).
#[inline]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
unsafe fn screen<const COUNTERS: bool, const N: usize>(
    lanes: &Lanes,
    mut walks: [Walk; N],
    live: [u8; N],
    first: usize,
    survivors: &mut Survivors,
) {
    let mut present = live;
    for i in 0..SCREEN_PROBES {
        for (walk, present) in walks.iter_mut().zip(&mut present) {
            if i > 0 {
                walk.advance(lanes);
            }
            // SAFETY: forwarded from this function's contract.
            *present = unsafe { lanes.cells_set::<COUNTERS>(walk.idx, *present) };
        }
    }
    for (g, (walk, &present)) in walks.iter_mut().zip(&present).enumerate() {
        walk.advance(lanes);
        survivors.push(walk, present, first + 8 * g);
    }
}

/// [`query`](super::query), screened: the same `visit(first, present)` calls, in order.
///
/// # Safety
/// As [`query`](super::query), and `target.num_hashes` is above [`SCREEN_PROBES`].
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
pub(super) unsafe fn query<const COUNTERS: bool>(
    target: Target,
    keys: &[u64],
    visit: impl FnMut(usize, u8),
) {
    let start = |lanes: &Lanes, first: usize, count: usize| {
        lanes.walk(load_up_to_8(&keys[first..first + count]).0)
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { query_walks::<COUNTERS>(target, keys.len(), start, visit) }
}

/// [`query_hashes`](super::query_hashes), screened: keys hashed elsewhere (the byte-key and
/// string batches), `h1s[i]`, `h2s[i]` the halves of key i's hash.
///
/// # Safety
/// As [`query`].
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
pub(super) unsafe fn query_hashes<const COUNTERS: bool>(
    target: Target,
    h1s: &[u64],
    h2s: &[u64],
    visit: impl FnMut(usize, u8),
) {
    assert_eq!(h1s.len(), h2s.len());
    let start = |lanes: &Lanes, first: usize, count: usize| {
        let (h1, h2, _) =
            super::load_halves(&h1s[first..first + count], &h2s[first..first + count]);
        lanes.walk_hashed(h1, h2)
    };
    // SAFETY: forwarded from this function's contract.
    unsafe { query_walks::<COUNTERS>(target, h1s.len(), start, visit) }
}

/// The screened walk of `len` keys, `start(lanes, first, count)` giving the walks of keys
/// `first..first + count` (count 1..=8) at their first index.
///
/// A pass's last survivors short of a whole pair of vectors are carried into the next pass's
/// walk, so every pair but the batch's last runs full; a pass's masks are visited once the
/// next pass's walk has answered its carried keys (answers kept for two passes, a ring).
///
/// # Safety
/// As [`query`].
#[inline]
#[target_feature(enable = "avx512f,avx512dq,popcnt")]
unsafe fn query_walks<const COUNTERS: bool>(
    target: Target,
    len: usize,
    start: impl Fn(&Lanes, usize, usize) -> Walk,
    mut visit: impl FnMut(usize, u8),
) {
    debug_assert!(target.num_hashes > SCREEN_PROBES);
    let lanes = Lanes::new(target);
    let mut survivors = Survivors {
        idx_slot: [MaybeUninit::uninit(); ROOM],
        a2: [MaybeUninit::uninit(); ROOM],
        d2: [MaybeUninit::uninit(); ROOM],
        step: [MaybeUninit::uninit(); ROOM],
        len: 0,
    };
    // The ring slots of the keys present, the first `logged` written.
    let mut log: Field = [MaybeUninit::uninit(); ROOM];
    // One byte per key of the last two passes, at its position mod 2 · PASS.
    let mut present = [0u8; RING];
    // The first key of the pass whose masks wait on its carried survivors.
    let mut waiting: Option<usize> = None;
    for pass_first in (0..len).step_by(PASS) {
        let pass_len = PASS.min(len - pass_first);
        let last = pass_first + pass_len == len;
        let carried = survivors.len;
        let whole = pass_len / 16 * 16;
        for block in (0..whole).step_by(16) {
            let first = pass_first + block;
            let walks = std::array::from_fn(|g| start(&lanes, first + 8 * g, 8));
            // SAFETY: forwarded from this function's contract.
            unsafe { screen::<COUNTERS, 2>(&lanes, walks, [0xff; 2], first, &mut survivors) };
        }
        for group in (whole..pass_len).step_by(8) {
            let first = pass_first + group;
            let count = 8.min(pass_len - group);
            let walks = [start(&lanes, first, count)];
            let live = ((1u16 << count) - 1) as u8;
            // SAFETY: forwarded from this function's contract.
            unsafe { screen::<COUNTERS, 1>(&lanes, walks, [live], first, &mut survivors) };
        }
        // The survivors walk the rest, two vectors in lockstep: whole pairs only, unless this
        // is the last pass or the carried keys would wait another pass.
        let whole_pairs = survivors.len / 16 * 16;
        let walked = if last || whole_pairs < carried {
            survivors.len
        } else {
            whole_pairs
        };
        let mut logged = 0;
        for at in (0..walked).step_by(16) {
            let (first, first_slots, first_live) = survivors.load(&lanes, at, walked);
            let (second, second_slots, second_live) = if at + 8 < walked {
                survivors.load(&lanes, at + 8, walked)
            } else {
                (first, first_slots, 0)
            };
            // SAFETY: forwarded from this function's contract.
            let [first_present, second_present] = unsafe {
                lanes.present_from::<COUNTERS, 2>(
                    [first, second],
                    [first_live, second_live],
                    target.num_hashes - SCREEN_PROBES,
                )
            };
            for (present, slots) in [(first_present, first_slots), (second_present, second_slots)] {
                // SAFETY: at most `walked` ≤ ROOM − 8 keys are logged, each once, so eight
                // more fit.
                unsafe {
                    _mm512_storeu_si512(
                        log.as_mut_ptr().add(logged).cast(),
                        _mm512_maskz_compress_epi64(present, slots),
                    )
                };
                logged += present.count_ones() as usize;
            }
        }
        survivors.drop_front(walked);
        // One byte per key, then eight bytes to a mask: plain stores, where setting bits in
        // place chains each read-modify-write of a mask byte to the one before.
        for slot in &log[..logged] {
            // SAFETY: the first `logged` entries were written (the stores above).
            let slot = unsafe { slot.assume_init() };
            present[slot as usize % RING] = 1;
        }
        if let Some(first) = waiting.take() {
            visit_pass(&mut present, first, PASS, &mut visit);
        }
        if survivors.len == 0 {
            visit_pass(&mut present, pass_first, pass_len, &mut visit);
        } else {
            waiting = Some(pass_first);
        }
    }
    debug_assert!(waiting.is_none() && survivors.len == 0);
}

/// Visits the masks of the `pass_len` keys from `first` (a multiple of [`PASS`]) and clears
/// their bytes of the ring for the pass after next.
#[inline]
fn visit_pass(
    present: &mut [u8; RING],
    first: usize,
    pass_len: usize,
    visit: &mut impl FnMut(usize, u8),
) {
    let bytes = &mut present[first % RING..][..PASS];
    for (g, eight) in bytes.chunks_exact(8).take(pass_len.div_ceil(8)).enumerate() {
        let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        // Byte j (0 or 1) lands on bit 56 + j, and no two products meet below it.
        visit(
            first + 8 * g,
            (eight.wrapping_mul(GATHER_BYTE_BITS) >> 56) as u8,
        );
    }
    bytes.fill(0);
}
