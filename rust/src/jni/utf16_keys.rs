//! String batches as Java hands them: every key's UTF-16 chars one after another in a `char[]`
//! (`String.getChars` into one array: no per-key `byte[]` on the Java side) and each key's end
//! offset in an `int[]` (the `char[]` may be longer: Java reuses its buffer). Each key is encoded to UTF-8 here exactly as Java's
//! `String.getBytes(UTF_8)` encodes it, so it hashes as `put(String)` (and Guava's
//! `Funnels.stringFunnel(UTF_8)`) hash it: a surrogate pair becomes its 4-byte code point, an
//! unpaired surrogate the single byte `'?'`. Both arrays are copied into fallible Rust buffers,
//! so no critical section is held while keys are hashed.
//!
//! The exports behind `BloomFilterNative.nPutAllUtf16` and `nMightContainAllUtf16` live here
//! rather than in `bloom_filter_native.rs`, beside the decoding they need.

use jni::objects::{JBooleanArray, JCharArray, JClass, JIntArray};
use jni::sys::{jboolean, jlong};
use jni::{Env, EnvUnowned};

use super::arrays::try_buffer;
use super::critical::length;
use super::errors::{JniResult, run};
use super::handle_ops::{KeyBatch, might_contain_all_keys, put_all_keys};
use crate::{BloomFilter, Error};

pub(crate) struct Utf16Keys {
    chars: Vec<u16>,
    ends: Vec<i32>,
    /// Room for the UTF-8 of the longest key (3 bytes per char at most).
    longest_utf8: usize,
}

impl Utf16Keys {
    /// Copies both arrays and checks that `ends` rises from 0 to at most the chars' length.
    pub(crate) fn read(
        env: &Env<'_>,
        chars: &JCharArray<'_>,
        ends: &JIntArray<'_>,
    ) -> JniResult<Utf16Keys> {
        let chars_len = length(env, chars, "chars")?;
        let ends_len = length(env, ends, "ends")?;
        let mut offsets = try_buffer::<i32>(ends_len, "ends")?;
        ends.get_region(env, 0, &mut offsets)?;
        let mut previous = 0i32;
        let mut longest = 0usize;
        for (i, &end) in offsets.iter().enumerate() {
            if end < previous || end as usize > chars_len {
                return Err(Error::invalid(
                    "ends",
                    format!(
                        "ends[{i}] = {end} is not in {previous}..={chars_len} (offsets must rise within the chars)"
                    ),
                )
                .into());
            }
            longest = longest.max((end - previous) as usize);
            previous = end;
        }
        // Java reuses a larger buffer: only the keys' chars are copied.
        let mut units = try_buffer::<u16>(previous as usize, "chars")?;
        chars.get_region(env, 0, &mut units)?;
        Ok(Utf16Keys {
            chars: units,
            ends: offsets,
            longest_utf8: longest.saturating_mul(3),
        })
    }
}

impl KeyBatch for Utf16Keys {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Calls `visit` with each key's UTF-8 bytes (as Java's `getBytes(UTF_8)`), in order.
    fn try_for_each(&self, mut visit: impl FnMut(&[u8])) -> JniResult<()> {
        let mut utf8 = Vec::new();
        if utf8.try_reserve_exact(self.longest_utf8).is_err() {
            return Err(Error::allocation("a key's UTF-8 bytes", self.longest_utf8 as u64).into());
        }
        let mut start = 0usize;
        for &end in &self.ends {
            encode_like_java(&self.chars[start..end as usize], &mut utf8);
            visit(&utf8);
            start = end as usize;
        }
        Ok(())
    }
}

/// `out` = the bytes of Java's `new String(chars).getBytes(UTF_8)`: 1 to 3 bytes per char, 4
/// per surrogate pair, `'?'` for a surrogate without its partner. `out` must have room for
/// 3 bytes per char (it never reallocates then).
pub(crate) fn encode_like_java(chars: &[u16], out: &mut Vec<u8>) {
    out.clear();
    // ASCII, the common case for ids: one byte per char, in loops the compiler vectorizes.
    if chars.iter().fold(0u16, |acc, &c| acc | c) < 0x80 {
        out.extend(chars.iter().map(|&c| c as u8));
        return;
    }
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i] as u32;
        i += 1;
        if c < 0x80 {
            out.push(c as u8);
        } else if c < 0x800 {
            out.extend_from_slice(&[0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]);
        } else if !(0xD800..0xE000).contains(&c) {
            out.extend_from_slice(&[
                0xE0 | (c >> 12) as u8,
                0x80 | ((c >> 6) & 0x3F) as u8,
                0x80 | (c & 0x3F) as u8,
            ]);
        } else if c < 0xDC00 && i < chars.len() && (0xDC00..0xE000).contains(&(chars[i] as u32)) {
            let cp = 0x10000 + ((c - 0xD800) << 10) + (chars[i] as u32 - 0xDC00);
            i += 1;
            out.extend_from_slice(&[
                0xF0 | (cp >> 18) as u8,
                0x80 | ((cp >> 12) & 0x3F) as u8,
                0x80 | ((cp >> 6) & 0x3F) as u8,
                0x80 | (cp & 0x3F) as u8,
            ]);
        } else {
            // a low surrogate first, or a high one not followed by a low one
            out.push(b'?');
        }
    }
}

/// `putAll(String[])`: each key's chars encoded as Java's UTF-8, then hashed as `put(String)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nPutAllUtf16<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    chars: JCharArray<'l>,
    ends: JIntArray<'l>,
) -> jboolean {
    run(env, |env| {
        put_all_keys(
            env,
            handle,
            |env| Utf16Keys::read(env, &chars, &ends),
            BloomFilter::put_bytes,
        )
    })
}

/// `out[i] = mightContain(key i)` over UTF-16 keys (see `nPutAllUtf16`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_io_sparkbloom_BloomFilterNative_nMightContainAllUtf16<'l>(
    env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    chars: JCharArray<'l>,
    ends: JIntArray<'l>,
    out: JBooleanArray<'l>,
) {
    run(env, |env| {
        might_contain_all_keys(
            env,
            handle,
            |env| Utf16Keys::read(env, &chars, &ends),
            &out,
            BloomFilter::might_contain_bytes,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::encode_like_java;

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn encoded(chars: &[u16]) -> Vec<u8> {
        let mut out = Vec::with_capacity(chars.len() * 3);
        encode_like_java(chars, &mut out);
        out
    }

    #[test]
    fn well_formed_strings_encode_as_rust_utf8() {
        for s in [
            "",
            "a",
            "user-42",
            "café",
            "ß€",
            "日本語",
            "😀",
            "a\u{10FFFF}b",
            "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}",
        ] {
            assert_eq!(encoded(&utf16(s)), s.as_bytes(), "{s}");
        }
    }

    #[test]
    fn unpaired_surrogates_become_question_marks_as_in_java() {
        // What `new String(chars).getBytes(UTF_8)` gives on JDK 8 to 25 (checked by the JVM
        // suite against Java itself: StringBatchTest).
        assert_eq!(encoded(&[0xD800]), b"?");
        assert_eq!(encoded(&[0xDC00]), b"?");
        assert_eq!(encoded(&[0xD800, 0x61]), b"?a");
        assert_eq!(encoded(&[0xDC00, 0xD800]), b"??");
        assert_eq!(encoded(&[0xD800, 0xD800, 0xDC00]), "?\u{10000}".as_bytes());
        assert_eq!(encoded(&[0x61, 0xDBFF]), b"a?");
    }
}
