//! Batched queries on filters beyond cache, where each probe is a likely cache miss and the
//! cost is how many lines are fetched and how many are in flight at once.
//!
//! A three-stage pipeline over groups of keys: a group's indexes are computed and the lines of
//! each key's first [`SCREEN_PROBES`] fetched (prefetched); a group later those bits are tested
//! and only the keys that pass, mostly keys that were put, fetch the lines of the rest; a group
//! later still those are tested and the answers given, in order. A key that was never put
//! fails one of its first two bits with probability ~3/4 on a half-full filter, so it fetches
//! two lines instead of k: at (10^7, 10^-2), k = 7, a 50/50 mix of seen and new keys fetches
//! 0.5 · 7 + 0.5 · (2 + 0.25 · 5) ≈ 5.1 lines per key instead of 7.

use crate::sizing;

/// Keys per group: with two groups' lines in flight, enough misses to cover memory latency,
/// no more than the core tracks.
const GROUP: usize = 8;
/// Indexes of every key fetched before the survivors fetch the rest.
const SCREEN_PROBES: usize = 2;

/// One group in the pipeline.
struct Stage {
    /// `indexes[j * k + i]`: the i-th index of the group's key j.
    indexes: [u64; GROUP * sizing::MAX_NUM_HASHES as usize],
    /// Whether key j passed its screened bits.
    passed: [bool; GROUP],
    /// The group's first key's position and its number of keys.
    first: usize,
    len: usize,
}

/// Calls `emit(i, every index of keys[i] tests true)` for each key, in order. `fill(group,
/// out)` writes each key's k indexes (`out[j * k + i]`), `prefetch(index)` starts fetching an
/// index's line, `test(index)` reads its bit or counter.
pub(crate) fn query(
    keys: &[u64],
    num_hashes: u32,
    mut fill: impl FnMut(&[u64], &mut [u64]),
    prefetch: impl Fn(u64),
    test: impl Fn(u64) -> bool,
    mut emit: impl FnMut(usize, bool),
) {
    let k = num_hashes as usize;
    let screen = SCREEN_PROBES.min(k);
    // On the stack (48 KiB at k = 255): nothing to allocate, so nothing to fail.
    let mut stages: [Stage; 3] = std::array::from_fn(|_| Stage {
        indexes: [0; GROUP * sizing::MAX_NUM_HASHES as usize],
        passed: [false; GROUP],
        first: 0,
        len: 0,
    });
    let groups = keys.len().div_ceil(GROUP);
    // Step s: group s enters, group s − 1 is screened, group s − 2 answers.
    for step in 0..groups + 2 {
        if step < groups {
            let stage = &mut stages[step % 3];
            let first = step * GROUP;
            let group = &keys[first..keys.len().min(first + GROUP)];
            (stage.first, stage.len) = (first, group.len());
            fill(group, &mut stage.indexes[..group.len() * k]);
            for slots in stage.indexes[..group.len() * k].chunks_exact(k) {
                slots[..screen].iter().for_each(|&index| prefetch(index));
            }
        }
        if (1..=groups).contains(&step) {
            let stage = &mut stages[(step - 1) % 3];
            for (j, slots) in stage.indexes[..stage.len * k].chunks_exact(k).enumerate() {
                let passed = slots[..screen].iter().all(|&index| test(index));
                stage.passed[j] = passed;
                if passed {
                    slots[screen..].iter().for_each(|&index| prefetch(index));
                }
            }
        }
        if step >= 2 {
            let stage = &stages[(step - 2) % 3];
            for (j, slots) in stage.indexes[..stage.len * k].chunks_exact(k).enumerate() {
                let present = stage.passed[j] && slots[screen..].iter().all(|&index| test(index));
                emit(stage.first + j, present);
            }
        }
    }
}
