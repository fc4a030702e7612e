//! Any bytes handed to the reader of Spark's sketch `writeTo` stream (`readSpark`, V1 and V2):
//! an error or a filter, never a panic; what reads writes back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(filter) = sparkbloom::format::spark_sketch::decode(bytes) {
        let written = sparkbloom::format::spark_sketch::encode(&filter).expect("it was read");
        assert_eq!(written, bytes, "Spark's stream round-trips exactly");
    }
});
