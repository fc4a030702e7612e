//! Any bytes handed to the reader of Guava's `writeTo` stream (`readGuava`): an error or a
//! filter, never a panic; what reads writes back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(filter) = sparkbloom::format::guava::decode(bytes) {
        let written = sparkbloom::format::guava::encode(&filter).expect("it was read");
        assert_eq!(written, bytes, "Guava's stream round-trips exactly");
    }
});
