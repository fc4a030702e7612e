//! Exports behind `io.sparkbloom.BloomFilterNative` that only the plain filter has, among them
//! the batches of byte-string keys, packed (`byte[][]`) or as UTF-16 chars (`String[]`).

use jni::Env;
use jni::objects::{JBooleanArray, JByteArray, JByteBuffer, JCharArray, JIntArray, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::arrays::{read_all, try_buffer};
use super::critical::{as_u64, length};
use super::errors::{JniResult, run, run_primitive};
use super::handle_ops::{
    KeyBatch, as_i64_mut, checked_num_hashes, into_handle, non_negative, object, strategy,
};
use super::packed_keys::PackedKeys;
use super::utf16_keys::Utf16Keys;
use crate::BloomFilter;
use crate::error::Error;
use crate::sizing::{self, Shape};

/// The filter behind a handle.
fn filter<'a>(handle: jlong) -> JniResult<&'a BloomFilter> {
    object(handle)
}

/// `putAll` of the byte-string batch `read_keys` reads (after the handle is checked): whether
/// any bit changed.
fn put_all_bytes<K: KeyBatch>(
    env: &Env<'_>,
    handle: jlong,
    read_keys: impl FnOnce(&Env<'_>) -> JniResult<K>,
) -> JniResult<bool> {
    let f = filter(handle)?;
    Ok(f.put_all_bytes(read_keys(env)?.packed()?))
}

/// `out[i] = mightContain(key i)` over the batch `read_keys` reads; `out` has one slot per key.
fn might_contain_all_bytes<K: KeyBatch>(
    env: &Env<'_>,
    handle: jlong,
    out: &JBooleanArray<'_>,
    read_keys: impl FnOnce(&Env<'_>) -> JniResult<K>,
) -> JniResult<()> {
    let f = filter(handle)?;
    let keys = read_keys(env)?;
    let mut answers = try_buffer::<jboolean>(length(env, out, "out")?, "out")?;
    f.might_contain_all_bytes_into(keys.packed()?, &mut answers)?;
    Ok(out.set_region(env, 0, &answers)?)
}

exports! {
    BloomFilterNative.nCreateBestPractice(env, expected_insertions: jlong, fpp: jdouble) -> jlong {
        run(env, |_| {
            let n = non_negative("expectedInsertions", expected_insertions)?;
            Ok(into_handle(BloomFilter::with_best_practice(n, fpp)?)?)
        })
    }

    /// The bit count `nCreate` gives a MITZ_64 filter for (n, fpp), without making it: the one
    /// implementation of Guava's m for Java callers that only size (`Sizing.perKeyShape`).
    BloomFilterNative.nBitSizeFor(env, expected_insertions: jlong, fpp: jdouble) -> jlong {
        run_primitive(env, || {
            let n = non_negative("expectedInsertions", expected_insertions)?;
            Ok(sizing::shape_for(n, fpp)?.num_bits as jlong)
        })
    }

    /// The per-key shape for (distinct items, fpp) ([`sizing::per_key_shape`]), packed as
    /// m << 8 | k (m ≤ 2^43, k ≤ 255): the one implementation for `BloomFilter.perKey*`.
    BloomFilterNative.nPerKeyShape(env, distinct_items: jlong, fpp: jdouble) -> jlong {
        run_primitive(env, || {
            let n = non_negative("distinctItems", distinct_items)?;
            let shape = sizing::per_key_shape(n, fpp)?;
            Ok((shape.num_bits << 8 | shape.num_hashes as u64) as jlong)
        })
    }

    BloomFilterNative.nFromWords(
        env, words: JLongArray<'l>, num_hashes: jint, strategy_ordinal: jint
    ) -> jlong {
        run(env, |env| {
            let num_hashes = checked_num_hashes(num_hashes)?;
            let strategy = strategy(strategy_ordinal)?;
            let num_words = length(env, &words, "words")?;
            let shape = Shape {
                num_bits: (num_words as u64).saturating_mul(64),
                num_hashes,
            };
            // Copied straight into the new filter's words: no intermediate buffer, no pinning.
            let mut filter = BloomFilter::with_shape(shape, strategy)?;
            words.get_region(env, 0, as_i64_mut(filter.words_mut()))?;
            Ok(into_handle(filter)?)
        })
    }

    /// ORs `words[..count]` into the filter's words from `word_offset` on (a conversion filling a
    /// filter nobody else uses yet, chunk by chunk).
    BloomFilterNative.nOrWords(
        env, handle: jlong, word_offset: jint, words: JLongArray<'l>, count: jint
    ) {
        run(env, |env| {
            let f = filter(handle)?;
            let offset = non_negative("wordOffset", word_offset as jlong)? as usize;
            let count = non_negative("count", count as jlong)? as usize;
            let len = length(env, &words, "words")?;
            if count > len || offset.saturating_add(count) as u64 * 64 > f.num_bits() {
                return Err(Error::invalid(
                    "count",
                    format!(
                        "{count} words from word {offset} do not fit the array ({len}) and the filter ({} words)",
                        f.num_bits() / 64
                    ),
                )
                .into());
            }
            let words = read_all(env, &words, "words")?;
            f.or_words(offset, as_u64(&words.as_slice()[..count]));
            Ok(())
        })
    }

    /// A direct `java.nio.ByteBuffer` over the filter's words (ceil(m / 64) · 8 bytes, native byte
    /// order), for Java's single-key queries without a JNI call per key (`BitsView.java`); null
    /// when the words exceed a buffer's `int` capacity (Java then keeps the JNI path).
    ///
    /// The buffer owns nothing. It stays valid because the words never move while the filter
    /// lives ([`BloomFilter::words_ptr`]) and Java reads it only while the handle is open and its
    /// owner reachable (`NativeHandle`); Java only reads, so Rust's writers (one at a time, each
    /// store a whole word) remain the only ones.
    BloomFilterNative.nWordsView(env, handle: jlong) -> JByteBuffer<'l> {
        run(env, |env| {
            let f = filter(handle)?;
            let bytes = f.num_bits().div_ceil(64) * 8;
            if bytes > i32::MAX as u64 {
                return Ok(JByteBuffer::default());
            }
            // SAFETY: `words_ptr` points to `bytes` bytes that stay allocated and in place until
            // the filter is freed, which Java does only once no read of the buffer can still run
            // (see above). JNI never writes through the pointer; the `*mut` is its signature.
            Ok(unsafe { env.new_direct_byte_buffer(f.words_ptr() as *mut u8, bytes as usize)? })
        })
    }

    /// `putAll(byte[][])`: Java packs the keys into one `byte[]` with each key's end offset in
    /// `ends`, so a batch is one crossing and two copies (`String[]`: `utf16_keys.rs`).
    BloomFilterNative.nPutAllPacked(
        env, handle: jlong, data: JByteArray<'l>, ends: JIntArray<'l>
    ) -> jboolean {
        run(env, |env| put_all_bytes(env, handle, |env| PackedKeys::read(env, &data, &ends)))
    }

    /// `out[i] = mightContain(key i)` over packed keys (see `nPutAllPacked`).
    BloomFilterNative.nMightContainAllPacked(
        env, handle: jlong, data: JByteArray<'l>, ends: JIntArray<'l>, out: JBooleanArray<'l>
    ) {
        run(env, |env| {
            might_contain_all_bytes(env, handle, &out, |env| PackedKeys::read(env, &data, &ends))
        })
    }

    /// `putAll(String[])`: each key's chars encoded as Java's UTF-8, then hashed as `put(String)`.
    BloomFilterNative.nPutAllUtf16(
        env, handle: jlong, chars: JCharArray<'l>, ends: JIntArray<'l>
    ) -> jboolean {
        run(env, |env| put_all_bytes(env, handle, |env| Utf16Keys::read(env, &chars, &ends)))
    }

    /// `out[i] = mightContain(key i)` over UTF-16 keys (see `nPutAllUtf16`).
    BloomFilterNative.nMightContainAllUtf16(
        env, handle: jlong, chars: JCharArray<'l>, ends: JIntArray<'l>, out: JBooleanArray<'l>
    ) {
        run(env, |env| {
            might_contain_all_bytes(env, handle, &out, |env| Utf16Keys::read(env, &chars, &ends))
        })
    }

    BloomFilterNative.nIntersect(env, handle: jlong, other: jlong) {
        run(env, |_| Ok(filter(handle)?.intersect(filter(other)?)?))
    }

    BloomFilterNative.nBitCount(env, handle: jlong) -> jlong {
        run(env, |_| Ok(filter(handle)?.bits_set() as jlong))
    }

    BloomFilterNative.nApproximateElementCount(env, handle: jlong) -> jlong {
        run(env, |_| {
            let count = filter(handle)?.approximate_element_count();
            Ok(count.min(i64::MAX as u64) as jlong)
        })
    }

    BloomFilterNative.nExpectedFpp(env, handle: jlong) -> jdouble {
        run(env, |_| Ok(filter(handle)?.expected_fpp()))
    }
}
