use super::*;
use crate::kernels::Kernel;
use crate::sizing::Shape;
use crate::strategy::Strategy;
use crate::testutil::splitmix64;

/// Keys of many lengths, runs of equal lengths (the lanes' case), empty keys, and keys
/// longer than a group of blocks.
fn mixed_keys(count: usize, state: &mut u64) -> (Vec<u8>, Vec<u32>) {
    let (mut data, mut ends) = (Vec::new(), Vec::new());
    let mut run_len = 0usize;
    for i in 0..count {
        if i % 24 == 0 {
            run_len = [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100][i / 24 % 12];
        }
        let len = if (i / 24) % 3 == 2 {
            (splitmix64(state) % 80) as usize
        } else {
            run_len
        };
        data.extend((0..len).map(|_| splitmix64(state) as u8));
        ends.push(data.len() as u32);
    }
    (data, ends)
}

#[test]
fn byte_batches_agree_with_single_keys_on_every_strategy() {
    let mut state = 17;
    for strategy in Strategy::ALL {
        // In cache and at 1.2 MB (gathered from the hashes in lanes), at 5 MB (indexes
        // prefetched). k = 40 takes the large index scratch.
        for (num_bits, num_hashes) in [
            (143_872, 7),
            (9_600_512, 7),
            (40_000_000, 7),
            (1_048_576, 40),
        ] {
            let shape = Shape {
                num_bits,
                num_hashes,
            };
            let f = BloomFilter::with_shape(shape, strategy).unwrap();
            let g = BloomFilter::with_shape(shape, strategy).unwrap();
            let (data, ends) = mixed_keys(3_001, &mut state);
            let keys = PackedBytes::new(&data, &ends).unwrap();
            let (put, probe) = ends.split_at(1_500);
            let put = PackedBytes::new(&data, put).unwrap();
            // A small batch (bit by bit), then a dense one (accumulated in cache).
            let (few, rest) = ends[..1_500].split_at(100);
            let rest_data = &data[few[99] as usize..];
            let rest: Vec<u32> = rest.iter().map(|e| e - few[99]).collect();
            assert!(f.put_all_bytes(PackedBytes::new(&data, few).unwrap()));
            assert!(f.put_all_bytes(PackedBytes::new(rest_data, &rest).unwrap()));
            put.iter().for_each(|key| {
                g.put_bytes(key);
            });
            assert!(
                f == g,
                "{strategy} m={num_bits}: put_all_bytes sets put_bytes' bits"
            );
            assert!(!f.put_all_bytes(put), "nothing changes the second time");
            let single: Vec<bool> = keys.iter().map(|k| f.might_contain_bytes(k)).collect();
            assert_eq!(f.might_contain_all_bytes(keys), single, "{strategy}");
            assert!(single[..1_500].iter().all(|&p| p), "no false negatives");
            assert!(probe.len() > 1_000 && single[1_500..].iter().any(|&p| !p));
        }
    }
}

/// The gathering query's screened walk (batches hashed QUERY_GROUP keys at a time) against
/// single-key queries and the scalar path, on half-full filters where absent keys fail at
/// every probe position: k at and above the probes screened, batch lengths around the
/// screen's threshold and across QUERY_GROUP's edges.
#[test]
fn screened_byte_batches_agree_with_single_keys() {
    let mut state = 99;
    for (num_bits, num_hashes) in [(143_776, 3), (143_776, 4), (143_776, 10), (200_000, 64)] {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let f = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
        let half_full = (num_bits as f64 * std::f64::consts::LN_2 / num_hashes as f64) as usize;
        let (data, ends) = mixed_keys(2 * half_full, &mut state);
        let put = PackedBytes::new(&data, &ends[..half_full]).unwrap();
        f.put_all_bytes(put);
        let scalar = f.clone().on_kernel(Kernel::Scalar);
        for len in (62..=66).chain([255, 256, 257, 513, 4099]) {
            // Every key of the batch drawn from the put half or the other one at random.
            let (mut probe_data, mut probe_ends) = (Vec::new(), Vec::new());
            for _ in 0..len {
                let i = splitmix64(&mut state) as usize % (2 * half_full);
                let start = if i == 0 { 0 } else { ends[i - 1] as usize };
                probe_data.extend_from_slice(&data[start..ends[i] as usize]);
                probe_ends.push(probe_data.len() as u32);
            }
            let probe = PackedBytes::new(&probe_data, &probe_ends).unwrap();
            let single: Vec<bool> = probe.iter().map(|k| f.might_contain_bytes(k)).collect();
            assert!(single.iter().any(|&p| p) && single.iter().any(|&p| !p));
            assert_eq!(
                f.might_contain_all_bytes(probe),
                single,
                "k={num_hashes} len {len}"
            );
            assert_eq!(scalar.might_contain_all_bytes(probe), single);
        }
    }
}

/// Dense batches on a cache-resident filter (accumulated, queried first in lanes) and on
/// one beyond L2 (each chunk's first group queried, the rest of a mostly new chunk set
/// through the prefetched walk) that mix keys the filter holds with new ones in every
/// proportion a group can have: runs of new keys long enough to stop the queries for a
/// while, single new keys among held ones, and batches of held keys only (nothing changes,
/// nothing is allocated).
#[test]
fn accumulated_batches_set_only_what_single_puts_set() {
    let shapes = [(143_872, 7), (9_600_512, 7), (9_600_512, 3)];
    for ((num_bits, num_hashes), strategy) in shapes.into_iter().flat_map(|s| {
        [
            (s, Strategy::Murmur128Mitz64),
            (s, Strategy::Murmur128Mitz32),
        ]
    }) {
        let shape = Shape {
            num_bits,
            num_hashes,
        };
        let f = BloomFilter::with_shape(shape, strategy).unwrap();
        let g = BloomFilter::with_shape(shape, strategy).unwrap();
        let mut state = 5;
        let (data, ends) = mixed_keys(12_000, &mut state);
        let keys = PackedBytes::new(&data, &ends).unwrap();
        // Held keys: every third key of the first 6 000.
        let held: Vec<usize> = (0..6_000).filter(|i| i % 3 == 0).collect();
        held.iter().for_each(|&i| {
            f.put_bytes(keys.get(i));
            g.put_bytes(keys.get(i));
        });
        // The batch: held keys, with new keys (from 6 000 on) in runs of 1, 5, 8, 16, 64
        // and 400 between runs of held keys.
        let (mut batch, mut batch_ends) = (Vec::new(), Vec::new());
        let (mut next_new, mut next_held) = (6_000, 0);
        for &run in [1, 5, 8, 16, 64, 400].iter().cycle().take(30) {
            for _ in 0..run {
                batch.extend_from_slice(keys.get(next_new));
                batch_ends.push(batch.len() as u32);
                g.put_bytes(keys.get(next_new));
                next_new += 1;
            }
            for _ in 0..37 {
                batch.extend_from_slice(keys.get(held[next_held % held.len()]));
                batch_ends.push(batch.len() as u32);
                next_held += 1;
            }
        }
        let batch = PackedBytes::new(&batch, &batch_ends).unwrap();
        assert_eq!(
            f.accumulates(batch.len()),
            num_bits < 1 << 20,
            "the accumulated path is taken in cache"
        );
        assert!(f.put_all_bytes(batch));
        assert!(
            f == g,
            "{strategy}: the batch sets exactly the single puts' bits"
        );
        assert!(
            !f.put_all_bytes(batch),
            "{strategy}: nothing changes the second time"
        );
        assert!(f == g);
    }
}

#[test]
fn bad_batches_are_errors() {
    assert!(PackedBytes::new(b"abc", &[2, 1]).is_err());
    assert!(PackedBytes::new(b"abc", &[4]).is_err());
    let keys = PackedBytes::new(b"abcd", &[0, 2, 2, 3]).unwrap();
    assert_eq!(
        keys.iter().collect::<Vec<_>>(),
        [&b""[..], b"ab", b"", b"c"]
    );
    let f = BloomFilter::new(100, 0.01).unwrap();
    let err = f
        .might_contain_all_bytes_into(keys, &mut [false; 3])
        .unwrap_err();
    assert!(err.to_string().contains("3 slots for 4 keys"), "{err}");
}
