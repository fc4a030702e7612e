//! BLOCKED batches (the plan's [`Query::Blocked`](super::Query::Blocked) and
//! [`Put::Blocked`](super::Put::Blocked)): each key's block located, keys hashed eight at a time
//! (in AVX2 or AVX-512 lanes as the plan's [`Isa`] says), the blocks of the keys ahead prefetched
//! on filters beyond cache, then each key's k bits tested in its cached line (in one vector with
//! AVX-512, two with AVX2, else bit by bit) or handed to the put loop (`filter::blocked`).

use super::Isa;
#[cfg(target_arch = "x86_64")]
use super::{avx2::blocked as avx2, avx512::blocked as avx512};
use crate::bit_array::BitArray;
use crate::blocked_layout::{block_of, for_each_position};
use crate::blocked_sizing::BLOCK_BITS;
use crate::hashing::hash_u64;

/// How many keys ahead batches hash and prefetch: enough misses in flight to cover memory
/// latency; whole chunks of [`CHUNK`].
const AHEAD: usize = 32;
/// Keys hashed together (a vector of eight with AVX-512, two of four with AVX2).
const CHUNK: usize = 8;
/// Chunks ahead of the one hashed whose keys' line is prefetched (filters beyond cache): a
/// batch cut from a pool larger than cache streams its keys from memory, and their loads
/// otherwise wait behind the blocks' misses (the hardware's stream prefetch does not keep up).
/// Eight chunks: 64 keys, eight lines, ahead.
const KEY_CHUNKS_AHEAD: usize = 8;

/// For each key in order, `visit(key position, its block's first bit, h2)` over the BLOCKED
/// filter `bits` (whole 512-bit blocks), the keys hashed `CHUNK` at a time by `hash8(chunk,
/// h1s, h2s)`. With `prefetch` (filters larger than cache) the blocks of the next [`AHEAD`]
/// keys are already hashed and prefetched: a rolling window keeps misses in flight all along,
/// where groups prefetched then tested would drain it at every group's end.
#[inline(always)]
fn for_each_block_by(
    bits: &BitArray,
    prefetch: bool,
    keys: &[u64],
    hash8: impl Fn(&[u64], &mut [u64; CHUNK], &mut [u64; CHUNK]),
    mut visit: impl FnMut(usize, u64, u64),
) {
    const CHUNKS_AHEAD: usize = AHEAD / CHUNK;
    let num_blocks = bits.len_words() as u64 * 64 / BLOCK_BITS;
    // Words adopted from a caller's `Vec` need not start on a cache line (new BLOCKED filters'
    // do: `atomic_words::zeroed`): then a block may straddle two lines, both prefetched.
    let straddles = !(bits.as_ptr() as usize).is_multiple_of(64);
    // Hashes the keys of chunk `c` into `slots`, prefetching their blocks (and the keys
    // KEY_CHUNKS_AHEAD chunks on) beyond cache.
    let locate = |c: usize, slots: &mut [(u64, u64)]| {
        if prefetch {
            crate::atomic_words::prefetch(keys, (c + KEY_CHUNKS_AHEAD) * CHUNK);
        }
        let chunk = keys.get(c * CHUNK..).unwrap_or(&[]);
        let chunk = &chunk[..chunk.len().min(CHUNK)];
        let (mut h1s, mut h2s) = ([0u64; CHUNK], [0u64; CHUNK]);
        hash8(chunk, &mut h1s, &mut h2s);
        for j in 0..chunk.len() {
            let base = block_of(h1s[j], num_blocks) * BLOCK_BITS;
            if prefetch {
                bits.prefetch(base);
                if straddles {
                    bits.prefetch(base + BLOCK_BITS - 1);
                }
            }
            slots[j] = (base, h2s[j]);
        }
    };
    let mut ring = [(0u64, 0u64); AHEAD];
    for c in 0..CHUNKS_AHEAD {
        locate(c, &mut ring[c * CHUNK..(c + 1) * CHUNK]);
    }
    for c in 0..keys.len().div_ceil(CHUNK) {
        let slots = &mut ring[(c % CHUNKS_AHEAD) * CHUNK..][..CHUNK];
        let current: [(u64, u64); CHUNK] = slots.try_into().expect("CHUNK slots");
        locate(c + CHUNKS_AHEAD, slots);
        let len = (keys.len() - c * CHUNK).min(CHUNK);
        for (j, &(base, h2)) in current[..len].iter().enumerate() {
            visit(c * CHUNK + j, base, h2);
        }
    }
}

/// `hashing::hash_u64` of up to [`CHUNK`] keys, one key at a time.
#[inline(always)]
fn hash_each(chunk: &[u64], h1s: &mut [u64; CHUNK], h2s: &mut [u64; CHUNK]) {
    for (j, &key) in chunk.iter().enumerate() {
        let hash = hash_u64(key);
        (h1s[j], h2s[j]) = (hash.h1, hash.h2);
    }
}

/// [`for_each_block_by`] with the keys hashed by `isa` (the plan's, so the CPU has it): the
/// puts' walk.
#[inline(always)]
pub(crate) fn for_each_block(
    isa: Isa,
    bits: &BitArray,
    prefetch: bool,
    keys: &[u64],
    visit: impl FnMut(usize, u64, u64),
) {
    let hash8 = |chunk: &[u64], h1s: &mut [u64; CHUNK], h2s: &mut [u64; CHUNK]| match isa {
        // SAFETY: the plan gives an ISA only where the CPU has it; a chunk holds ≤ 8 keys.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { avx512::hash_up_to_8(chunk, h1s, h2s) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::hash_up_to_8(chunk, h1s, h2s) },
        _ => hash_each(chunk, h1s, h2s),
    };
    for_each_block_by(bits, prefetch, keys, hash8, visit)
}

/// `emit(i, might_contain(keys[i]))` for a BLOCKED filter of `bits` and k = `num_hashes`: each
/// key's block (by then cached) tested in one vector with AVX-512 ([`avx512::block_holds`]), in
/// two with AVX2 ([`avx2::block_holds`]), else its k bits read one by one without a branch: an
/// early exit would be a coin flip for absent keys. (Not a mask built in memory and compared
/// word by word: its variable-index ORs chain through store forwarding.)
pub(crate) fn query(
    isa: Isa,
    bits: &BitArray,
    num_hashes: u32,
    prefetch: bool,
    keys: &[u64],
    emit: impl FnMut(usize, bool),
) {
    match isa {
        // SAFETY: the plan gives an ISA only where the CPU has it.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { query_avx512(bits, num_hashes, prefetch, keys, emit) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { query_avx2(bits, num_hashes, prefetch, keys, emit) },
        _ => query_by(bits, prefetch, keys, emit, hash_each, |base, h2| {
            let mut present = true;
            for_each_position(h2, num_hashes, |position| {
                present &= bits.get(base + position);
                true
            });
            present
        }),
    }
}

/// Each key's answer from `holds(its block's first bit, h2)`: the loop of the queries, inlined
/// into each build so that the hashing, the walk and the block's test compile with its target
/// features into one loop (a call per key to a block test would dominate a cache-resident
/// query).
#[inline(always)]
fn query_by(
    bits: &BitArray,
    prefetch: bool,
    keys: &[u64],
    mut emit: impl FnMut(usize, bool),
    hash8: impl Fn(&[u64], &mut [u64; CHUNK], &mut [u64; CHUNK]),
    holds: impl Fn(u64, u64) -> bool,
) {
    for_each_block_by(bits, prefetch, keys, hash8, |i, base, h2| {
        emit(i, holds(base, h2))
    });
}

/// Defines `$name`, [`query`] in the lanes of `$lanes` (`avx2` or `avx512::blocked`): with
/// `$features`, which its caller must check the CPU has.
macro_rules! query_in_lanes {
    ($name:ident, $features:literal, $lanes:ident) => {
        /// [`query`] in vector lanes.
        ///
        /// # Safety
        /// The CPU must have the features this build enables.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name(
            bits: &BitArray,
            k: u32,
            prefetch: bool,
            keys: &[u64],
            emit: impl FnMut(usize, bool),
        ) {
            let words = bits.as_ptr();
            // SAFETY: the caller's contract (the features); a chunk holds ≤ 8 keys, and each
            // block's eight words lie inside the filter (base + 512 ≤ m).
            let hash8 = |chunk: &[u64], h1s: &mut _, h2s: &mut _| unsafe {
                $lanes::hash_up_to_8(chunk, h1s, h2s)
            };
            query_by(bits, prefetch, keys, emit, hash8, |base, h2| unsafe {
                $lanes::block_holds(words.wrapping_add((base / 64) as usize), h2, k)
            })
        }
    };
}
query_in_lanes!(query_avx512, "avx512f,avx512dq", avx512);
query_in_lanes!(query_avx2, "avx2", avx2);

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::kernels::Kernel;
    use crate::testutil::splitmix64;

    /// Each vector build's block test against the scalar walk, over random blocks from half to
    /// nearly all set, for every k a BLOCKED filter takes (one to five words of fields), so both
    /// answers come up at every k; and its hashes are `hash_u64`'s.
    #[test]
    fn the_lanes_agree_with_the_scalar_layout() {
        type Build = (
            Kernel,
            unsafe fn(*const u64, u64, u32) -> bool,
            unsafe fn(&[u64], &mut [u64; 8], &mut [u64; 8]),
        );
        let builds: [Build; 2] = [
            (Kernel::Avx2, avx2::block_holds, avx2::hash_up_to_8),
            (Kernel::Avx512, avx512::block_holds, avx512::hash_up_to_8),
        ];
        let mut state = 11;
        for (kernel, block_holds, hash_up_to_8) in builds {
            if !kernel.supported() {
                continue;
            }
            for k in 1..=30 {
                let mut answers = [0u32; 2];
                for _ in 0..2_000 {
                    let density = 1 + splitmix64(&mut state) % 6;
                    let block: [u64; 8] = std::array::from_fn(|_| {
                        (0..density).fold(0, |word, _| word | splitmix64(&mut state))
                    });
                    let h2 = splitmix64(&mut state);
                    let scalar =
                        for_each_position(h2, k, |p| block[p as usize / 64] >> (p % 64) & 1 != 0);
                    // SAFETY: the CPU runs the kernel (checked above); eight aligned words.
                    let vector = unsafe { block_holds(block.as_ptr(), h2, k) };
                    assert_eq!(vector, scalar, "{kernel} k={k} h2={h2:#x} block={block:x?}");
                    answers[usize::from(scalar)] += 1;
                }
                assert!(
                    answers.iter().all(|&n| n > 0),
                    "{kernel} k={k}: {answers:?}"
                );
            }
            let keys: Vec<u64> = (0..8).map(|_| splitmix64(&mut state)).collect();
            for len in 0..=8 {
                let (mut h1s, mut h2s) = ([0; 8], [0; 8]);
                // SAFETY: as above; at most eight keys.
                unsafe { hash_up_to_8(&keys[..len], &mut h1s, &mut h2s) };
                for (j, &key) in keys[..len].iter().enumerate() {
                    let hash = hash_u64(key);
                    assert_eq!(
                        (h1s[j], h2s[j]),
                        (hash.h1, hash.h2),
                        "{kernel}: key {j}/{len}"
                    );
                }
            }
        }
    }
}
