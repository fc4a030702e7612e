use super::*;
use crate::hashing::{hash_bytes, hash_u64};
use crate::testutil::splitmix64;

fn lanes_of(v: __m512i) -> [u64; 8] {
    // SAFETY: __m512i and [u64; 8] have the same size and any bits are valid for both.
    unsafe { std::mem::transmute(v) }
}

fn splat(values: [u64; 8]) -> __m512i {
    // SAFETY: as above.
    unsafe { std::mem::transmute(values) }
}

#[test]
fn vector_hash_equals_scalar_hash() {
    if !crate::kernels::Kernel::Avx512.supported() {
        return;
    }
    let mut state = 1;
    for _ in 0..10_000 {
        let keys: [u64; 8] = std::array::from_fn(|_| splitmix64(&mut state));
        // SAFETY: the CPU has AVX-512 F and DQ (checked above).
        let (h1, h2) = unsafe { murmur3_u64(splat(keys)) };
        for (j, &key) in keys.iter().enumerate() {
            let h = hash_u64(key);
            assert_eq!(
                (lanes_of(h1)[j], lanes_of(h2)[j]),
                (h.h1, h.h2),
                "key {key}"
            );
        }
    }
}

/// Every m from MIN_BITS on the edges the error analysis cares about: numerators at and
/// around multiples of m, near 2^63, and random; m small, a power of two, odd, and 2^43.
#[test]
fn vector_remainder_is_exact() {
    if !crate::kernels::Kernel::Avx512.supported() {
        return;
    }
    let mut state = 7;
    let mut moduli = vec![
        MIN_BITS,
        MIN_BITS + 1,
        143_808,
        1 << 20,
        (1 << 20) + 64,
        1 << 43,
    ];
    moduli.extend((0..200).map(|_| MIN_BITS + splitmix64(&mut state) % ((1 << 43) - MIN_BITS)));
    for m in moduli {
        let target = Target {
            words: std::ptr::null(),
            num_bits: m,
            num_hashes: 1,
            wrap: (1u64 << 63) % m,
        };
        // SAFETY: the CPU has AVX-512 F and DQ (checked above).
        let lanes = unsafe { Lanes::new(target) };
        let top = (1u64 << 63) - 1;
        let mut numerators = vec![0, 1, m - 1, m, m + 1, 2 * m - 1, top, top - 1, top - m];
        for _ in 0..2_000 {
            let q = splitmix64(&mut state) % (top / m + 1);
            let near = (q * m)
                .saturating_add(splitmix64(&mut state) % 5)
                .saturating_sub(2);
            numerators.push(near.min(top));
            numerators.push(splitmix64(&mut state) & top);
        }
        for chunk in numerators.chunks(8) {
            let mut x = [0u64; 8];
            x[..chunk.len()].copy_from_slice(chunk);
            // SAFETY: as above.
            let r = lanes_of(unsafe { lanes.rem(splat(x)) });
            for j in 0..8 {
                assert_eq!(r[j], x[j] % m, "{} mod {m}", x[j]);
            }
        }
    }
}

/// The byte-key lanes against `hash_bytes`: every length 0..=130 (every tail, several blocks),
/// runs at odd offsets, and the last key ending at the data's end; one vector and two.
#[test]
fn packed_runs_hash_as_hash_bytes() {
    fn check_runs<const VECTORS: usize>() {
        let mut state = 3;
        let data: Vec<u8> = (0..20_000).map(|_| splitmix64(&mut state) as u8).collect();
        let keys = BYTE_LANES * VECTORS;
        for len in 0..=130 {
            let span = keys * len;
            let random = splitmix64(&mut state) as usize % (data.len() - span);
            for start in [0, 1, 7, random, data.len() - span] {
                let (mut h1s, mut h2s) = (vec![0; keys], vec![0; keys]);
                // SAFETY: the CPU has AVX-512 F and DQ (checked by the caller).
                unsafe { hash_packed_run::<VECTORS>(&data, start, len, &mut h1s, &mut h2s) };
                for i in 0..keys {
                    let h = hash_bytes(&data[start + i * len..start + (i + 1) * len]);
                    assert_eq!((h1s[i], h2s[i]), (h.h1, h.h2), "len {len}, key {i}");
                }
            }
        }
    }
    if !crate::kernels::Kernel::Avx512.supported() {
        return;
    }
    check_runs::<1>();
    check_runs::<2>();
}

#[test]
#[should_panic = "a key past the data"]
fn a_packed_key_past_the_data_panics() {
    if !crate::kernels::Kernel::Avx512.supported() {
        panic!("a key past the data (no AVX-512 here)");
    }
    let data = [0u8; 8 * 32 - 1];
    let (mut h1s, mut h2s) = ([0; BYTE_LANES], [0; BYTE_LANES]);
    // SAFETY: the CPU has AVX-512 F and DQ (checked above).
    unsafe { hash_packed_run::<1>(&data, 0, 32, &mut h1s, &mut h2s) };
}
