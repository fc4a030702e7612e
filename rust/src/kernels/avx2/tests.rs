use super::*;
use crate::strategy::Strategy;
use crate::testutil::splitmix64;

/// `remainder` against `%` for the edges of its range of m and of x.
#[test]
fn remainders_are_exact_over_the_whole_range() {
    if !crate::kernels::Kernel::Avx2.supported() {
        return;
    }
    let mut state = 7;
    let mut divisors = vec![
        MIN_BITS,
        MIN_BITS + 1,
        143_808,
        1 << 21,
        MAX_BITS - 1,
        MAX_BITS,
    ];
    divisors.extend((0..20).map(|_| MIN_BITS + splitmix64(&mut state) % (MAX_BITS - MIN_BITS)));
    for m in divisors {
        let indexer = Indexer::new(m, 3, Strategy::Murmur128Mitz64);
        let mut xs = vec![0, 1, m - 1, m, m + 1, (1 << 63) - 1, (1 << 63) - m];
        for q in [1u64, 1 << 20, ((1u64 << 63) - 1) / m] {
            xs.extend([q * m - 1, q * m, q * m + 1, q * m + m - 1]);
        }
        xs.extend((0..4_000).map(|_| splitmix64(&mut state) >> 1));
        xs.retain(|&x| x < 1 << 63);
        for chunk in xs.chunks(4 * GROUPS) {
            let mut lanes = [0u64; 4 * GROUPS];
            lanes[..chunk.len()].copy_from_slice(chunk);
            // SAFETY: the CPU has AVX2 (checked above).
            let got = unsafe { remainders(&indexer, &lanes) };
            for (j, &x) in chunk.iter().enumerate() {
                assert_eq!(got[j], x % m, "{x} mod {m}");
            }
        }
    }
}

#[target_feature(enable = "avx2")]
fn remainders(indexer: &Indexer, lanes: &[u64; 4 * GROUPS]) -> [u64; 4 * GROUPS] {
    let c = consts(indexer);
    // SAFETY: four u64s at 4 · g of a 16-slot array.
    let x: Lanes<GROUPS> =
        std::array::from_fn(|g| unsafe { _mm256_loadu_si256(lanes.as_ptr().add(4 * g).cast()) });
    let r = remainder(x, &c);
    let mut out = [0u64; 4 * GROUPS];
    for (g, r) in r.iter().enumerate() {
        // SAFETY: four u64s at 4 · g of a 16-slot array.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(4 * g).cast(), *r) };
    }
    out
}
