//! Exports behind `io.sparkbloom.NativeFilter`: one per operation both filter classes have. Java
//! passes the filter's kind (`PLAIN` or `COUNTING`) beside its handle and `for_kind!` picks the
//! core type. Batches of `long` keys are slices `keys[from..to]` of a Java `long[]`, read as
//! [`arrays`](super::arrays) reads any array.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use jni::objects::{JBooleanArray, JByteArray, JLongArray};
use jni::sys::{jboolean, jdouble, jint, jlong};

use super::arrays::{for_each_chunk, map_chunks, new_array, slice_range};
use super::critical::{as_u64, length};
use super::errors::{JniError, run, run_primitive};
use super::handle_ops::{
    as_i64, copy, create, decode, encode, free, object, total_length, with_bytes_key, with_shape,
};
use crate::counting::CountingBloomFilter;
use crate::error::{Error, Result};
use crate::{BloomFilter, format};

/// `NativeFilter.PLAIN`: the handle is a [`BloomFilter`].
const PLAIN: jint = 0;
/// `NativeFilter.COUNTING`: the handle is a [`CountingBloomFilter`].
const COUNTING: jint = 1;

fn unknown_kind(kind: jint) -> JniError {
    Error::invalid(
        "kind",
        format!("{kind} is neither PLAIN ({PLAIN}) nor COUNTING ({COUNTING})"),
    )
    .into()
}

/// `$body` with the type `$T` naming the core type of filters of `$kind`; another kind is an
/// `IllegalArgumentException`. The handle must be one of that kind (Java passes its own).
macro_rules! for_kind {
    ($kind:expr, $T:ident => $body:expr) => {
        match $kind {
            PLAIN => {
                type $T = BloomFilter;
                $body
            }
            COUNTING => {
                type $T = CountingBloomFilter;
                $body
            }
            kind => Err(unknown_kind(kind)),
        }
    };
}

/// What both filter classes do under names of their own (`put` / `add`, `union` / `merge`) or
/// in a stream format of their own (FORMAT.md's filter and counting filter), under one name.
trait Shared: Sized {
    fn insert(&self, key: u64) -> bool;
    fn insert_bytes(&self, key: &[u8]) -> bool;
    fn insert_all(&self, keys: &[u64]) -> bool;
    fn combine(&self, other: &Self) -> Result<()>;
    /// Java's `hashCode()`: equal filters hash equally, in every JVM that loads this library.
    fn java_hash(&self) -> jint;
    fn to_bytes(&self) -> Result<Vec<u8>>;
    fn from_bytes(bytes: &[u8], max_num_bits: u64) -> Result<Self>;
    fn total_len(header: &[u8], max_num_bits: u64) -> Result<u64>;
}

/// [`Shared`] for the core type `$T`, by its names of the operations, its `java_hash` and the
/// module of its stream format.
macro_rules! shared {
    ($T:ty: $insert:ident, $insert_bytes:ident, $insert_all:ident, $combine:ident,
     $java_hash:ident, $($format:ident)::+) => {
        impl Shared for $T {
            fn insert(&self, key: u64) -> bool {
                self.$insert(key)
            }
            fn insert_bytes(&self, key: &[u8]) -> bool {
                self.$insert_bytes(key)
            }
            fn insert_all(&self, keys: &[u64]) -> bool {
                self.$insert_all(keys)
            }
            fn combine(&self, other: &Self) -> Result<()> {
                self.$combine(other)
            }
            fn java_hash(&self) -> jint {
                $java_hash(self)
            }
            fn to_bytes(&self) -> Result<Vec<u8>> {
                $($format)::+::try_encode(self)
            }
            fn from_bytes(bytes: &[u8], max_num_bits: u64) -> Result<Self> {
                $($format)::+::decode_with_limit(bytes, max_num_bits)
            }
            fn total_len(header: &[u8], max_num_bits: u64) -> Result<u64> {
                $($format)::+::total_len_with_limit(header, max_num_bits)
            }
        }
    };
}

shared!(BloomFilter: put, put_bytes, put_all, union, plain_hash, format);
shared!(CountingBloomFilter: add, add_bytes, add_all, merge, counting_hash, format::counting);

/// The core's Hash (shape, strategy, words) through a fixed-key hasher.
fn plain_hash(filter: &BloomFilter) -> jint {
    let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(filter);
    (hash ^ (hash >> 32)) as jint
}

/// `Arrays.hashCode(long[])` over the counter words, seeded with the shape.
fn counting_hash(filter: &CountingBloomFilter) -> jint {
    let seed = 31i32
        .wrapping_mul(filter.num_hashes() as i32)
        .wrapping_add(filter.strategy().ordinal() as i32);
    filter.words().fold(seed, |h, w| {
        h.wrapping_mul(31).wrapping_add((w ^ (w >> 32)) as i32)
    })
}

exports! {
    NativeFilter.nCreate(
        env, kind: jint, expected_insertions: jlong, fpp: jdouble, strategy: jint
    ) -> jlong {
        run(env, |_| {
            for_kind!(kind, T => create(expected_insertions, fpp, strategy, T::with_shape))
        })
    }

    NativeFilter.nWithShape(
        env, kind: jint, num_bits: jlong, num_hashes: jint, strategy: jint
    ) -> jlong {
        run(env, |_| {
            for_kind!(kind, T => with_shape(num_bits, num_hashes, strategy, T::with_shape))
        })
    }

    NativeFilter.nFree(env, kind: jint, handle: jlong) {
        run(env, |_| for_kind!(kind, T => free::<T>(handle)))
    }

    NativeFilter.nCopy(env, kind: jint, handle: jlong) -> jlong {
        run(env, |_| for_kind!(kind, T => copy(handle, T::try_clone)))
    }

    /// `put(long)` / `add(long)`: whether a bit (a counter) changed.
    NativeFilter.nPut(env, kind: jint, handle: jlong, key: jlong) -> jboolean {
        run_primitive(env, || for_kind!(kind, T => Ok(object::<T>(handle)?.insert(key as u64))))
    }

    NativeFilter.nPutBytes(env, kind: jint, handle: jlong, key: JByteArray<'l>) -> jboolean {
        run(env, |env| for_kind!(kind, T => with_bytes_key(env, handle, &key, T::insert_bytes)))
    }

    NativeFilter.nMightContain(env, kind: jint, handle: jlong, key: jlong) -> jboolean {
        run_primitive(env, || {
            for_kind!(kind, T => Ok(object::<T>(handle)?.might_contain(key as u64)))
        })
    }

    NativeFilter.nMightContainBytes(
        env, kind: jint, handle: jlong, key: JByteArray<'l>
    ) -> jboolean {
        run(env, |env| {
            for_kind!(kind, T => with_bytes_key(env, handle, &key, T::might_contain_bytes))
        })
    }

    /// `putAll` / `addAll` of `keys[from..to]`: whether a bit (a counter) changed.
    NativeFilter.nPutAll(
        env, kind: jint, handle: jlong, keys: JLongArray<'l>, from: jint, to: jint
    ) -> jboolean {
        run(env, |env| {
            for_kind!(kind, T => {
                let filter = object::<T>(handle)?;
                let mut changed = false;
                for_each_chunk(env, &keys, "keys", (from, to), |_, chunk| {
                    changed |= filter.insert_all(as_u64(chunk));
                    Ok(())
                })?;
                Ok(changed)
            })
        })
    }

    /// `out[i] = mightContain(keys[from + i])`; `out` has one slot per key of the slice.
    NativeFilter.nMightContainAll(
        env, kind: jint, handle: jlong, keys: JLongArray<'l>, from: jint, to: jint,
        out: JBooleanArray<'l>
    ) {
        run(env, |env| {
            for_kind!(kind, T => {
                let filter = object::<T>(handle)?;
                map_chunks(env, &keys, "keys", (from, to), &out, "out", |keys, answers| {
                    Ok(filter.might_contain_all_into(as_u64(keys), answers)?)
                })
            })
        })
    }

    /// The keys of `keys[from..to]` the filter does not contain, in order, as a new `long[]`.
    NativeFilter.nRetainAbsent(
        env, kind: jint, handle: jlong, keys: JLongArray<'l>, from: jint, to: jint
    ) -> JLongArray<'l> {
        run(env, |env| {
            for_kind!(kind, T => {
                let filter = object::<T>(handle)?;
                let slice = slice_range(from, to, length(env, &keys, "keys")?)?.len();
                // Room for every key up front (no growth that could abort): as large as the slice.
                let mut absent = Vec::new();
                absent.try_reserve_exact(slice).map_err(|_| {
                    Error::allocation("the absent keys", (slice as u64).saturating_mul(8))
                })?;
                for_each_chunk(env, &keys, "keys", (from, to), |_, chunk| {
                    filter.retain_absent_into(as_u64(chunk), &mut absent);
                    Ok(())
                })?;
                new_array(env, as_i64(&absent), "the absent keys")
            })
        })
    }

    /// `merge`: the union of a plain filter, the counters' sum of a counting one.
    NativeFilter.nMerge(env, kind: jint, handle: jlong, other: jlong) {
        run(env, |_| for_kind!(kind, T => Ok(object::<T>(handle)?.combine(object(other)?)?)))
    }

    NativeFilter.nIsCompatible(env, kind: jint, handle: jlong, other: jlong) -> jboolean {
        run(env, |_| {
            for_kind!(kind, T => Ok(object::<T>(handle)?.check_compatible(object(other)?).is_ok()))
        })
    }

    NativeFilter.nEquals(env, kind: jint, handle: jlong, other: jlong) -> jboolean {
        run(env, |_| for_kind!(kind, T => Ok(object::<T>(handle)? == object::<T>(other)?)))
    }

    NativeFilter.nHashCode(env, kind: jint, handle: jlong) -> jint {
        run(env, |_| for_kind!(kind, T => Ok(object::<T>(handle)?.java_hash())))
    }

    NativeFilter.nBitSize(env, kind: jint, handle: jlong) -> jlong {
        run_primitive(env, || for_kind!(kind, T => Ok(object::<T>(handle)?.num_bits() as jlong)))
    }

    NativeFilter.nNumHashes(env, kind: jint, handle: jlong) -> jint {
        run_primitive(env, || for_kind!(kind, T => Ok(object::<T>(handle)?.num_hashes() as jint)))
    }

    NativeFilter.nStrategy(env, kind: jint, handle: jlong) -> jint {
        run_primitive(env, || {
            for_kind!(kind, T => Ok(object::<T>(handle)?.strategy().ordinal() as jint))
        })
    }

    /// The filter in its class's FORMAT.md layout.
    NativeFilter.nToBytes(env, kind: jint, handle: jlong) -> JByteArray<'l> {
        run(env, |env| {
            for_kind!(kind, T => encode(env, handle, T::to_bytes, "the serialized filter"))
        })
    }

    NativeFilter.nFromBytes(env, kind: jint, bytes: JByteArray<'l>, max_num_bits: jlong) -> jlong {
        run(env, |env| for_kind!(kind, T => decode(env, &bytes, max_num_bits, T::from_bytes)))
    }

    /// A stream's whole length from its header, for reading exactly one filter from a stream.
    NativeFilter.nTotalLength(
        env, kind: jint, header: JByteArray<'l>, max_num_bits: jlong
    ) -> jlong {
        run(env, |env| for_kind!(kind, T => total_length(env, &header, max_num_bits, T::total_len)))
    }
}
