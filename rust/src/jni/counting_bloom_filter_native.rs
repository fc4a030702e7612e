//! Exports behind `io.sparkbloom.CountingBloomFilterNative` that only the counting filter has.

use jni::objects::{JByteArray, JLongArray};
use jni::sys::{jboolean, jint, jlong};

use super::arrays::for_each_chunk;
use super::critical::as_u64;
use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{into_handle, object, with_bytes_key};
use crate::counting::CountingBloomFilter;

/// The filter behind a handle.
fn filter<'a>(handle: jlong) -> JniResult<&'a CountingBloomFilter> {
    object(handle)
}

exports! {
    CountingBloomFilterNative.nRemove(env, handle: jlong, key: jlong) -> jboolean {
        run_primitive(env, || Ok(filter(handle)?.remove(key as u64)))
    }

    CountingBloomFilterNative.nCount(env, handle: jlong, key: jlong) -> jint {
        run_primitive(env, || Ok(filter(handle)?.count(key as u64) as jint))
    }

    CountingBloomFilterNative.nRemoveBytes(env, handle: jlong, key: JByteArray<'l>) -> jboolean {
        run(env, |env| with_bytes_key(env, handle, &key, CountingBloomFilter::remove_bytes))
    }

    CountingBloomFilterNative.nCountBytes(env, handle: jlong, key: JByteArray<'l>) -> jint {
        run(env, |env| {
            with_bytes_key(env, handle, &key, |f: &CountingBloomFilter, key| {
                f.count_bytes(key) as jint
            })
        })
    }

    /// `removeAll(keys[from..to])`: how many keys were possibly present, hence removed.
    CountingBloomFilterNative.nRemoveAll(
        env, handle: jlong, keys: JLongArray<'l>, from: jint, to: jint
    ) -> jlong {
        run(env, |env| {
            let f = filter(handle)?;
            let mut removed = 0u64;
            for_each_chunk(env, &keys, "keys", (from, to), |_, chunk| {
                removed += f.remove_all(as_u64(chunk));
                Ok(())
            })?;
            Ok(removed as jlong)
        })
    }

    CountingBloomFilterNative.nSubtract(env, handle: jlong, other: jlong) {
        run(env, |_| Ok(filter(handle)?.subtract(filter(other)?)?))
    }

    /// The plain filter of the nonzero counters, as a `NativeFilter.PLAIN` handle.
    CountingBloomFilterNative.nToBloomFilter(env, handle: jlong) -> jlong {
        run(env, |_| Ok(into_handle(filter(handle)?.to_bloom_filter()?)?))
    }

    CountingBloomFilterNative.nSaturatedCounters(env, handle: jlong) -> jlong {
        run(env, |_| Ok(filter(handle)?.saturated_counters() as jlong))
    }

    CountingBloomFilterNative.nNonzeroCounters(env, handle: jlong) -> jlong {
        run(env, |_| Ok(filter(handle)?.nonzero_counters() as jlong))
    }
}
