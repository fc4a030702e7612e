//! `format::decode` past its checksum: the input gets a correct CRC-32 trailer appended, so the
//! fuzzer explores the header and both payload decoders (dense and Rice-coded sparse) instead
//! of stopping at the checksum. Whatever decodes must re-encode to a filter equal to it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    // Re-encoding reads every word: only for filters of up to 2^22 bits, to keep runs fast
    // (10^7 inputs per target under AddressSanitizer).
    if let Ok(filter) = sparkbloom::format::decode(&bytes)
        && filter.num_bits() <= 1 << 22
    {
        let encoded = sparkbloom::format::encode(&filter);
        // Never more than the dense form (another sparse coding of the input may be shorter).
        let dense_len = sparkbloom::format::HEADER_LEN as u64
            + filter.num_bits().div_ceil(64) * 8
            + sparkbloom::format::TRAILER_LEN as u64;
        assert!(
            encoded.len() as u64 <= dense_len,
            "encode picks the smaller payload"
        );
        let again = sparkbloom::format::decode(&encoded).expect("what encode writes decodes");
        assert!(again == filter, "decode(encode(f)) = f");
    }
});
