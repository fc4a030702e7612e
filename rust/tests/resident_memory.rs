//! What a large filter holding few keys costs in resident memory as it is serialized, read
//! back and copied: the pages its keys touch, not its size. A filter's words and the dense
//! snapshot that serializing takes are allocated zeroed, which on Linux is fresh pages that take
//! memory only once written, and zero words are never written into them.
//!
//! One test function, because resident memory is the process's: the steps run in sequence
//! with no other test thread allocating. Linux only (`/proc/self/status`).

#![cfg(target_os = "linux")]

use sparkbloom::format::{self, counting};
use sparkbloom::{BloomFilter, CountingBloomFilter, Shape, Strategy};

/// The process's peak resident memory so far (`VmHWM`), in bytes.
fn peak_resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

/// 1 GiB of bits (or counters' words): far more than the few keys' pages, small enough for
/// any machine that runs the suite to hold if the code did touch it all.
const HUGE_BITS: u64 = 1 << 33;
/// A few keys: even on 2 MiB pages, their k pages each are well below [`LIMIT`].
const KEYS: [u64; 3] = [17, 42, 99];
/// Peak growth allowed over the whole test: the keys' pages even where the system backs large
/// arrays with 2 MiB pages (transparent huge pages `always`: 3 keys · 7 bits · 2 MiB = 42 MiB
/// for each of the three filters alive at once, 126 MiB) three times over, and still well below
/// one filter's gigabyte.
const LIMIT: u64 = 384 << 20;

#[test]
fn a_large_filter_with_few_keys_stays_small_when_encoded_decoded_and_copied() {
    let before = peak_resident();
    let shape = Shape {
        num_bits: HUGE_BITS,
        num_hashes: 7,
    };
    let filter = BloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
    filter.put_all(&KEYS);
    let bytes = format::try_encode(&filter).unwrap();
    assert!(bytes.len() < 200, "sparse: {} bytes", bytes.len());
    let decoded = format::decode(&bytes).unwrap();
    assert_eq!(decoded, filter);
    let copy = filter.try_clone().unwrap();
    assert!(KEYS.iter().all(|&key| copy.might_contain(key)));
    drop((filter, decoded, copy));

    let shape = Shape {
        num_bits: HUGE_BITS / 2, // 4 bits a counter: 1 GiB of counter words
        num_hashes: 7,
    };
    let counts = CountingBloomFilter::with_shape(shape, Strategy::Murmur128Mitz64).unwrap();
    counts.add_all(&KEYS);
    let bytes = counting::try_encode(&counts).unwrap();
    assert!(bytes.len() < 200, "sparse: {} bytes", bytes.len());
    let decoded = counting::decode(&bytes).unwrap();
    assert!(KEYS.iter().all(|&key| decoded.might_contain(key)));
    let copy = counts.try_clone().unwrap();
    assert!(KEYS.iter().all(|&key| copy.might_contain(key)));

    let grown = peak_resident().saturating_sub(before);
    assert!(grown < LIMIT, "peak resident memory grew by {grown} bytes");
}
