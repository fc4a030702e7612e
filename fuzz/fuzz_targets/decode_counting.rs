//! `format::counting::decode` (what `CountingBloomFilter.fromByteArray` passes on), past its
//! checksum: the input gets a correct CRC-32 trailer appended, so the fuzzer explores the header
//! and both payload decoders (dense counters, Rice-coded sparse entries). An error or a filter,
//! never a panic; whatever decodes re-encodes to an equal filter, no longer than dense.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparkbloom::format::counting::{decode, encode, total_len_with_limit};

fuzz_target!(|body: &[u8]| {
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    let from_header = total_len_with_limit(&bytes, 1 << 43);
    if let Ok(filter) = decode(&bytes)
        && filter.num_bits() <= 1 << 27
    {
        assert_eq!(from_header.ok(), Some(bytes.len() as u64));
        let encoded = encode(&filter);
        assert!(encoded.len() as u64 <= 28 + filter.num_bits().div_ceil(16) * 8);
        let again = decode(&encoded).expect("what encode writes decodes");
        assert!(again == filter, "decode(encode(f)) = f");
    }
});
