//! Exports of `io.sparkbloom.BloomFilterNative` that move a plain filter to and from bytes:
//! FORMAT.md through a reused buffer (`toBytes`/`fromBytes` of both filter classes are in
//! `native_filter.rs`), Guava's and Spark's `writeTo` streams, Redis bitmaps.

use jni::objects::JByteArray;
use jni::sys::{jint, jlong};

use super::arrays::read_all;
use super::critical::as_u8;
use super::errors::run;
use super::handle_ops::{
    decode, decode_prefix, encode, encode_into, into_handle, shape, strategy, total_length,
};
use crate::BloomFilter;
use crate::format::{self, guava, redis_bitmap, spark_sketch};

exports! {
    BloomFilterNative.nEncodeInto(env, handle: jlong, out: JByteArray<'l>) -> jlong {
        run(env, |env| {
            encode_into(
                env,
                handle,
                &out,
                |f: &BloomFilter| format::max_encoded_len(f.num_bits()),
                format::encode_into,
            )
        })
    }

    BloomFilterNative.nFromBytesPrefix(
        env, bytes: JByteArray<'l>, length: jint, max_num_bits: jlong
    ) -> jlong {
        run(env, |env| decode_prefix(env, &bytes, length, max_num_bits, format::decode_with_limit))
    }

    BloomFilterNative.nToGuava(env, handle: jlong) -> JByteArray<'l> {
        run(env, |env| encode(env, handle, guava::encode, "Guava's stream"))
    }

    BloomFilterNative.nFromGuava(env, bytes: JByteArray<'l>, max_num_bits: jlong) -> jlong {
        run(env, |env| decode(env, &bytes, max_num_bits, guava::decode_with_limit))
    }

    BloomFilterNative.nGuavaTotalLength(env, header: JByteArray<'l>, max_num_bits: jlong) -> jlong {
        run(env, |env| total_length(env, &header, max_num_bits, guava::total_len_with_limit))
    }

    /// Spark's `writeTo` stream (V1 or V2 by the filter's strategy), for `SparkSketchInterop`.
    BloomFilterNative.nToSpark(env, handle: jlong) -> JByteArray<'l> {
        run(env, |env| encode(env, handle, spark_sketch::encode, "Spark's stream"))
    }

    BloomFilterNative.nFromSpark(env, bytes: JByteArray<'l>, max_num_bits: jlong) -> jlong {
        run(env, |env| decode(env, &bytes, max_num_bits, spark_sketch::decode_with_limit))
    }

    /// The whole stream's length from its header (12 bytes for V1, 16 for V2).
    BloomFilterNative.nSparkTotalLength(env, header: JByteArray<'l>, max_num_bits: jlong) -> jlong {
        run(env, |env| total_length(env, &header, max_num_bits, spark_sketch::total_len_with_limit))
    }

    /// The filter's bits as a Redis string (bit 0 = the top bit of byte 0), for `sparkbloom-redis`.
    BloomFilterNative.nToRedisBitmap(env, handle: jlong) -> JByteArray<'l> {
        run(env, |env| encode(env, handle, redis_bitmap::encode, "the Redis bitmap"))
    }

    /// A filter of the given shape whose bits are a Redis string's (`format::redis_bitmap`).
    BloomFilterNative.nFromRedisBitmap(
        env, bitmap: JByteArray<'l>, num_bits: jlong, num_hashes: jint, strategy_ordinal: jint
    ) -> jlong {
        run(env, |env| {
            let shape = shape(num_bits, num_hashes)?;
            let strategy = strategy(strategy_ordinal)?;
            let bitmap = read_all(env, &bitmap, "bitmap")?;
            let filter = redis_bitmap::decode(as_u8(bitmap.as_slice()), shape, strategy)?;
            Ok(into_handle(filter)?)
        })
    }
}
