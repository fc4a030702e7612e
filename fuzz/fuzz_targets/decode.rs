//! Any bytes handed to `format::decode` (what `fromByteArray` and Java deserialization pass
//! on): an error or a filter, never a panic, a hang or an allocation the bytes do not justify.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let header_len = sparkbloom::format::total_len_from_header(bytes);
    // Re-encoding reads every word: only for filters of up to 2^22 bits, to keep runs fast
    // (10^7 inputs per target under AddressSanitizer).
    if let Ok(filter) = sparkbloom::format::decode(bytes)
        && filter.num_bits() <= 1 << 22
    {
        assert_eq!(header_len.ok(), Some(bytes.len() as u64));
        let again = sparkbloom::format::decode(&sparkbloom::format::encode(&filter))
            .expect("what encode writes decodes");
        assert!(again == filter, "decode(encode(f)) = f");
    }
});
