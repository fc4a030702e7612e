//! Any bytes handed to the reader of Guava's `writeTo` stream (`readGuava`): an error or a
//! filter, never a panic; what reads writes back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(filter) = sparkbloom::guava_format::read_guava(bytes) {
        let written = sparkbloom::guava_format::write_guava(&filter).expect("it was read");
        assert_eq!(written, bytes, "Guava's stream round-trips exactly");
    }
});
