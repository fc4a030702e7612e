//! What the core allocates, through a counting allocator that can also refuse: serializing a
//! filter never reserves per set bit, and every allocation a JNI call can reach fails as an
//! error, not an abort.
//!
//! One test function, because the allocator is global to this test binary: the checks run in
//! sequence so that no other test thread allocates while one is measured.

use sparkbloom::format::{self, guava};
use sparkbloom::{BloomFilter, Error, Shape, Strategy};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Allocations larger than this many bytes are refused (null), as under an address-space
/// limit that still admits the filter itself.
static REFUSE_ABOVE: AtomicUsize = AtomicUsize::new(usize::MAX);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Whether an allocation of `layout` is allowed; if so, it is counted as live.
fn admit(layout: Layout) -> bool {
    if layout.size() > REFUSE_ABOVE.load(SeqCst) {
        return false;
    }
    let live = LIVE.fetch_add(layout.size(), SeqCst) + layout.size();
    PEAK.fetch_max(live, SeqCst);
    true
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated beyond what was live before `f` ran.
fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(SeqCst);
    PEAK.store(before, SeqCst);
    let result = f();
    (result, PEAK.load(SeqCst) - before)
}

/// A filter whose every word is `word` (one allocation of m/8 bytes).
fn filled(num_words: usize, word: u64, k: u32) -> BloomFilter {
    BloomFilter::from_words(vec![word; num_words], k, Strategy::Murmur128Mitz64).unwrap()
}

#[test]
fn allocations() {
    encoding_a_nearly_half_full_filter_allocates_no_more_than_its_dense_form();
    encoding_a_sparse_filter_allocates_the_snapshot_and_the_result();
    refused_allocations_are_errors();
}

/// A dense shape: every word 0x5555555555555554 (31 of 64 bits set, 48 %).
/// The sparse coder's lower bound does not rule sparse out there; it used to reserve 8 bytes
/// per set bit (31/8 × the filter) before choosing dense.
fn encoding_a_nearly_half_full_filter_allocates_no_more_than_its_dense_form() {
    let num_words = 1 << 20; // 8 MiB, 32.5 M bits set
    let dense_len = num_words * 8;
    // Gaps of exactly 1: two bits per code, so sparse wins, barely (31/32 of dense).
    let regular = filled(num_words, 0x5555_5555_5555_5554, 7);
    let (bytes, peak) = peak_during(|| format::try_encode(&regular).unwrap());
    assert!(bytes.len() < dense_len, "sparse: {} bytes", bytes.len());
    assert!(
        peak <= dense_len + bytes.len() + 64 * 1024,
        "peak {peak} bytes to encode a {dense_len}-byte filter into {}",
        bytes.len()
    );
    assert_eq!(format::decode(&bytes).unwrap(), regular);
    // Random bits at 45 % fill (a filter near capacity): the lower bound passes, dense wins.
    let mut state = 45;
    let random: Vec<u64> = (0..num_words)
        .map(|_| {
            (0..64).fold(0u64, |word, bit| {
                let set = sparkbloom_testkit::splitmix64(&mut state) % 100 < 45;
                word | (set as u64) << bit
            })
        })
        .collect();
    let random = BloomFilter::from_words(random, 7, Strategy::Murmur128Mitz64).unwrap();
    let (bytes, peak) = peak_during(|| format::try_encode(&random).unwrap());
    assert_eq!(bytes.len(), 24 + dense_len + 4, "written dense");
    assert!(
        peak <= dense_len + 64 * 1024,
        "peak {peak} bytes to encode a {dense_len}-byte filter densely"
    );
}

fn encoding_a_sparse_filter_allocates_the_snapshot_and_the_result() {
    let filter = BloomFilter::with_shape(
        Shape {
            num_bits: 1 << 26,
            num_hashes: 7,
        },
        Strategy::Murmur128Mitz64,
    )
    .unwrap();
    filter.put_all(&(0..10_000).collect::<Vec<u64>>());
    let dense_len = (1 << 26) / 8;
    let (bytes, peak) = peak_during(|| format::try_encode(&filter).unwrap());
    assert!(
        bytes.len() < dense_len / 20,
        "sparse: {} bytes",
        bytes.len()
    );
    assert!(
        peak <= dense_len + bytes.len() + 64 * 1024,
        "peak {peak} bytes: the dense snapshot ({dense_len}) plus the sparse result ({})",
        bytes.len()
    );
}

/// With every allocation above 1 MiB refused, a 4 MiB filter's copy and encodings fail as
/// `Error::Allocation` naming the size (they aborted the process: finding 2).
fn refused_allocations_are_errors() {
    let filter = filled(1 << 19, 0x0101_0101_0101_0101, 3);
    REFUSE_ABOVE.store(1 << 20, SeqCst);
    let copy = filter.try_clone().map(|_| ());
    let encoded = format::try_encode(&filter).map(|_| ());
    let guava_stream = guava::encode(&filter).map(|_| ());
    let created = BloomFilter::with_shape(filter.shape(), Strategy::Murmur128Mitz64).map(|_| ());
    REFUSE_ABOVE.store(usize::MAX, SeqCst);
    for (what, result) in [
        ("try_clone", copy),
        ("try_encode", encoded),
        ("guava::encode", guava_stream),
        ("with_shape", created),
    ] {
        match result {
            Err(Error::Allocation { bytes, .. }) => {
                assert!(bytes >= 4 << 20, "{what}: {bytes} bytes")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // A put_all that cannot get its private accumulation array falls back to bit-by-bit puts.
    let small = BloomFilter::new(10_000, 0.01).unwrap();
    let keys: Vec<u64> = (0..5_000).collect();
    REFUSE_ABOVE.store(1024, SeqCst);
    small.put_all(&keys);
    REFUSE_ABOVE.store(usize::MAX, SeqCst);
    assert!(keys.iter().all(|&k| small.might_contain(k)));
}
