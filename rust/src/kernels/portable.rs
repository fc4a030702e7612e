//! The fast kernel in plain Rust: MITZ_64 queries on cache-resident filters, sixteen keys in
//! flight. One key at a time, a query waits on each probe's load and mispredicts where a key
//! that was never put fails (a coin flip on a dedup's mix of seen and new keys). Here a block of
//! keys is hashed together (independent multiply chains the core overlaps), every key's first
//! [`SCREEN_PROBES`] bits are tested without a branch (sixteen independent loads), and only the
//! keys that pass, mostly keys that were put, walk the rest, side by side and again without a
//! branch per probe. The remainders are `strategy::FastMod`'s multiplications, two per key; each
//! further index is an add and a conditional subtract (`strategy::Mitz64Walk`).
//!
//! Puts that a cache-resident filter accumulates privately ([`accumulate`]) walk a block's
//! keys side by side too, index by index, so the sixteen walks' adds overlap.
//!
//! Where the CPU has AVX2 the plan runs the same walk in vector lanes instead (`avx2.rs`).

use crate::bit_array::BitArray;
use crate::hashing::hash_u64;
use crate::strategy::{Indexer, Mitz64Walk};

/// Keys hashed and screened together.
const BLOCK: usize = 16;
/// Indexes every key of a block tests before the survivors walk on. On a half-full filter a
/// key that was never put passes each with probability ~1/2: after two, a quarter of those keys
/// remain, and the survivors' early exits are rare.
const SCREEN_PROBES: u32 = 2;

/// ORs the k bits of each of `keys` into `words` (a private copy of a MITZ_64 filter's words,
/// which `indexer` walks).
pub(crate) fn accumulate(indexer: &Indexer, keys: &[u64], words: &mut [u64]) {
    let k = indexer.num_hashes();
    let mut walks = [Mitz64Walk::default(); BLOCK];
    for block in keys.chunks(BLOCK) {
        let walks = &mut walks[..block.len()];
        for (walk, &key) in walks.iter_mut().zip(block) {
            *walk = indexer.mitz64_start(hash_u64(key));
        }
        for i in 0..k {
            for walk in walks.iter_mut() {
                words[(walk.idx >> 6) as usize] |= 1 << (walk.idx & 63);
                if i + 1 < k {
                    indexer.mitz64_advance(walk);
                }
            }
        }
    }
}

/// Calls `emit(i, might_contain(keys[i]))` for each key, in order, for a MITZ_64 filter whose
/// indexes `indexer` walks over `bits`.
pub(crate) fn query(
    indexer: &Indexer,
    bits: &BitArray,
    keys: &[u64],
    mut emit: impl FnMut(usize, bool),
) {
    let k = indexer.num_hashes();
    let screened = SCREEN_PROBES.min(k);
    let mut walks = [Mitz64Walk::default(); BLOCK];
    let mut present = [false; BLOCK];
    let mut survivors = [0u8; BLOCK];
    let mut survivor_walks = [Mitz64Walk::default(); BLOCK];
    for (b, block) in keys.chunks(BLOCK).enumerate() {
        let n = block.len();
        for (walk, &key) in walks.iter_mut().zip(block) {
            *walk = indexer.mitz64_start(hash_u64(key));
        }
        present[..n].fill(true);
        for _ in 0..screened {
            for (walk, present) in walks[..n].iter_mut().zip(&mut present[..n]) {
                *present &= bits.get(walk.idx);
                // One step past the last index when k = screened: unused, harmless.
                indexer.mitz64_advance(walk);
            }
        }
        // The survivors' positions, written for every key and kept by advancing: no branch.
        let mut count = 0;
        for (j, &present) in present[..n].iter().enumerate() {
            survivors[count] = j as u8;
            count += usize::from(present);
        }
        // The survivors' walks side by side, each probe tested without a branch; the round
        // stops once none is left.
        for (slot, &j) in survivor_walks.iter_mut().zip(&survivors[..count]) {
            *slot = walks[usize::from(j)];
        }
        let mut alive = [true; BLOCK];
        for _ in screened..k {
            let mut any = false;
            for (walk, alive) in survivor_walks[..count].iter_mut().zip(&mut alive[..count]) {
                *alive &= bits.get(walk.idx);
                any |= *alive;
                indexer.mitz64_advance(walk);
            }
            if !any {
                break;
            }
        }
        for (&j, &alive) in survivors[..count].iter().zip(&alive[..count]) {
            present[usize::from(j)] = alive;
        }
        for (j, &present) in present[..n].iter().enumerate() {
            emit(b * BLOCK + j, present);
        }
    }
}
