//! String batches as Java hands them: every key's UTF-16 chars one after another in a `char[]`
//! (`String.getChars` into one array: no per-key `byte[]` on the Java side) and each key's end
//! offset in an `int[]` (the `char[]` may be longer: Java reuses its buffer). Each key becomes
//! exactly the bytes of Java's `String.getBytes(UTF_8)`, so it hashes as `put(String)` (and
//! Guava's `Funnels.stringFunnel(UTF_8)`) hash it: a surrogate pair becomes its 4-byte code
//! point, an unpaired surrogate the single byte `'?'`.
//!
//! Ids are nearly always ASCII, whose UTF-8 is one byte per char at the same offsets: the chars
//! are narrowed to bytes straight out of the Java array (a short critical section, no other copy)
//! and the char offsets serve as byte offsets. Only a batch holding a char ≥ 0x80 is copied out
//! and encoded key by key. Either way the result is one packed byte batch for the core's
//! pipelined `put_all_bytes` / `might_contain_all_bytes_into`.

use std::cell::Cell;

use jni::Env;
use jni::objects::{JCharArray, JIntArray};

use super::arrays::try_buffer;
use super::critical::{Critical, Mode, length};
use super::errors::JniResult;
use super::handle_ops::KeyBatch;
use super::packed_keys::checked_ends;
use crate::kernels::narrow;
use crate::{Error, PackedBytes};

pub(crate) struct Utf16Keys {
    /// Every key's UTF-8 bytes, one after another.
    bytes: Vec<u8>,
    /// Each key's end in `bytes`.
    ends: Vec<u32>,
}

impl Utf16Keys {
    /// Reads the batch: checks that `ends` rises from 0 to at most the chars' length, then
    /// narrows (ASCII) or encodes (otherwise) the keys' chars.
    pub(crate) fn read(
        env: &Env<'_>,
        chars: &JCharArray<'_>,
        ends: &JIntArray<'_>,
    ) -> JniResult<Utf16Keys> {
        let chars_len = length(env, chars, "chars")?;
        let ends = checked_ends(env, ends, chars_len, "chars")?;
        // Java reuses a larger buffer: only the keys' chars are read.
        let total = ends.last().map_or(0, |&end| end as usize);
        // Reserved, not zeroed: narrowing appends every byte. This thread's buffer from its
        // last batch where there is one (no allocation, no fresh pages to fault in).
        let mut bytes = REUSED_BYTES.try_with(Cell::take).unwrap_or_default();
        bytes.clear();
        bytes
            .try_reserve_exact(total)
            .map_err(|_| Error::allocation("the keys' bytes", total as u64))?;
        if total == 0 {
            return Ok(Utf16Keys { bytes, ends });
        }
        let units = {
            let section = Critical::open_with_len(env, chars, chars_len, Mode::Read)?;
            let units = &section.as_slice()[..total];
            if narrow_ascii(units, &mut bytes) {
                return Ok(Utf16Keys { bytes, ends });
            }
            // A char ≥ 0x80: copy the chars out (fallibly), so the section closes before the
            // slower encoding.
            let mut copy = Vec::new();
            if copy.try_reserve_exact(total).is_err() {
                return Err(Error::allocation("a copy of the chars", total as u64 * 2).into());
            }
            copy.extend_from_slice(units);
            copy
        };
        encode_all(&units, &ends)
    }
}

/// Largest byte buffer kept per thread between batches: as many bytes as Java's char buffer
/// keeps chars (`PackedChars.REUSED_CHARS`).
const REUSED_CAPACITY: usize = 1 << 20;

thread_local! {
    /// The byte buffer of this thread's last batch (ASCII batches of up to
    /// [`REUSED_CAPACITY`] bytes): a 4096-key batch of 32-char keys needs 128 KiB, just above
    /// glibc's default threshold for mapping fresh pages per allocation.
    static REUSED_BYTES: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

impl Drop for Utf16Keys {
    fn drop(&mut self) {
        if self.bytes.capacity() <= REUSED_CAPACITY {
            let bytes = std::mem::take(&mut self.bytes);
            // During the thread's exit the buffer is simply freed.
            let _ = REUSED_BYTES.try_with(|reused| reused.set(bytes));
        }
    }
}

impl KeyBatch for Utf16Keys {
    fn packed(&self) -> JniResult<PackedBytes<'_>> {
        // `read` checked the ends as it copied them, and the bytes end at the last one.
        Ok(PackedBytes::checked_by_caller(&self.bytes, &self.ends))
    }
}

/// Appends every char to `out` as a byte and returns `true` if all of them are ASCII (< 0x80);
/// otherwise returns `false` and leaves `out` as it was (`kernels::narrow`, in vector lanes).
///
/// # Panics
/// If `out` has no room for every char (it never reallocates).
fn narrow_ascii(chars: &[u16], out: &mut Vec<u8>) -> bool {
    assert!(
        out.capacity() - out.len() >= chars.len(),
        "room for every char"
    );
    let ascii = narrow::narrow_ascii(chars, &mut out.spare_capacity_mut()[..chars.len()]);
    if ascii {
        // SAFETY: the narrowing wrote all `chars.len()` bytes after the old length.
        unsafe { out.set_len(out.len() + chars.len()) };
    }
    ascii
}

/// Every key's UTF-8 bytes (as Java's `getBytes(UTF_8)`) and their ends, for a batch that is
/// not all ASCII.
fn encode_all(units: &[u16], char_ends: &[u32]) -> JniResult<Utf16Keys> {
    // At most 3 bytes per char (a 4-byte pair is 2 chars): reserved once, never grown.
    let room = units.len().saturating_mul(3);
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(room)
        .map_err(|_| Error::allocation("the keys' UTF-8 bytes", room as u64))?;
    let mut ends = try_buffer::<u32>(char_ends.len(), "ends")?;
    let mut start = 0usize;
    for (end, &char_end) in ends.iter_mut().zip(char_ends) {
        encode_like_java(&units[start..char_end as usize], &mut bytes);
        // At most 3 × (2^31 − 1) bytes in all: more than a u32 holds.
        *end = u32::try_from(bytes.len()).map_err(|_| {
            Error::invalid(
                "keys",
                "the batch's UTF-8 bytes exceed 4 GiB; pass smaller batches",
            )
        })?;
        start = char_end as usize;
    }
    Ok(Utf16Keys { bytes, ends })
}

/// Appends to `out` the bytes of Java's `new String(chars).getBytes(UTF_8)`: 1 to 3 bytes per
/// char, 4 per surrogate pair, `'?'` for a surrogate without its partner. With room for 3 bytes
/// per char it never reallocates.
fn encode_like_java(chars: &[u16], out: &mut Vec<u8>) {
    // ASCII, the common case for ids: one byte per char, in loops the compiler vectorizes.
    if chars.iter().fold(0u16, |acc, &c| acc | c) < 0x80 {
        out.extend(chars.iter().map(|&c| c as u8));
        return;
    }
    // Java replaces a surrogate without its partner by '?', as `decode_utf16` reports it.
    for c in char::decode_utf16(chars.iter().copied()) {
        let c = c.unwrap_or('?');
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::{encode_all, encode_like_java, narrow_ascii};

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

    #[test]
    fn narrowing_takes_ascii_only() {
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 256, 300] {
            let chars: Vec<u16> = (0..len).map(|i| (i * 7 % 128) as u16).collect();
            let mut out = Vec::with_capacity(len);
            assert!(narrow_ascii(&chars, &mut out));
            assert!(out.len() == len && out.iter().zip(&chars).all(|(&b, &c)| b as u16 == c));
            for at in [0, len / 2, len.saturating_sub(1)] {
                for c in [0x80, 0xFF, 0x100, 0xD800, 0xFFFF] {
                    if len > 0 {
                        let mut other = chars.clone();
                        other[at] = c;
                        out.clear();
                        assert!(!narrow_ascii(&other, &mut out), "{c:#x} at {at} of {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn encoded_batches_pack_each_key_as_java() {
        let keys = ["user-1", "", "café", "😀x", "日本"];
        let mut units = Vec::new();
        let mut ends = Vec::new();
        for k in keys {
            units.extend(k.encode_utf16());
            ends.push(units.len() as u32);
        }
        units.push(0xD800); // a lone surrogate as its own key
        ends.push(units.len() as u32);
        let batch = encode_all(&units, &ends).unwrap();
        let packed = crate::PackedBytes::new(&batch.bytes, &batch.ends).unwrap();
        let mut expected: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        expected.push(b"?");
        assert_eq!(packed.iter().collect::<Vec<_>>(), expected);
    }
}
