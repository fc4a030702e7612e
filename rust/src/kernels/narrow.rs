//! The JNI's string batches, narrowed: Java's UTF-16 chars become bytes while they are ASCII
//! (ids nearly always are, and their UTF-8 is then one byte per char), one narrowing store per
//! 32 chars with AVX-512 BW, else in chunks the compiler vectorizes, with AVX2 where the CPU has
//! it (the library is built for baseline x86-64, whose SSE2 loop is several times slower).

use std::mem::MaybeUninit;

/// Writes `room[i] = chars[i]` as a byte for every char and returns `true` if all of them are
/// ASCII (< 0x80); otherwise returns `false`, `room` partly written.
///
/// # Panics
/// If `room` and `chars` differ in length.
pub(crate) fn narrow_ascii(chars: &[u16], room: &mut [MaybeUninit<u8>]) -> bool {
    assert_eq!(room.len(), chars.len(), "a byte per char");
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_bw {
            // SAFETY: the CPU has AVX-512 F and BW (BW implies F); `room` is as long as `chars`.
            return unsafe { narrow_ascii_avx512(chars, room) };
        }
        if cpu.avx2 {
            // SAFETY: the CPU has AVX2.
            return unsafe { narrow_ascii_avx2(chars, room) };
        }
    }
    narrow_ascii_into(chars, room)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn narrow_ascii_avx2(chars: &[u16], room: &mut [MaybeUninit<u8>]) -> bool {
    narrow_ascii_into(chars, room)
}

/// [`narrow_ascii_into`] 32 chars at a time: one load, one OR into the chars' high bits seen so
/// far and one narrowing store each, the high bits tested once at the end (bytes are written
/// past a non-ASCII char).
///
/// # Safety
/// The CPU must have AVX-512 F and BW; `room` must be at least as long as `chars`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn narrow_ascii_avx512(chars: &[u16], room: &mut [MaybeUninit<u8>]) -> bool {
    use std::arch::x86_64::*;
    debug_assert!(room.len() >= chars.len());
    let (src, dst) = (chars.as_ptr(), room.as_mut_ptr().cast::<u8>());
    let mut high = _mm512_setzero_si512();
    let whole = chars.len() / 32 * 32;
    let mut i = 0;
    while i < whole {
        // SAFETY: chars i..i + 32 lie in `chars`, bytes i..i + 32 in `room`.
        unsafe {
            let v = _mm512_loadu_si512(src.add(i).cast());
            high = _mm512_or_si512(high, v);
            _mm256_storeu_si256(dst.add(i).cast(), _mm512_cvtepi16_epi8(v));
        }
        i += 32;
    }
    let rest = chars.len() - whole;
    if rest > 0 {
        let mask: __mmask32 = (1u32 << rest) - 1;
        // SAFETY: masked: only chars whole..len are read and bytes whole..len written.
        unsafe {
            let v = _mm512_maskz_loadu_epi16(mask, src.add(whole).cast());
            high = _mm512_or_si512(high, v);
            _mm512_mask_cvtepi16_storeu_epi8(dst.add(whole).cast(), mask, v);
        }
    }
    _mm512_test_epi16_mask(high, _mm512_set1_epi16(0xFF80u16 as i16)) == 0
}

/// Writes `room[i] = chars[i]` as a byte while the chars are ASCII; whether they all were (then
/// every byte of `room` is written).
#[inline(always)]
fn narrow_ascii_into(chars: &[u16], room: &mut [MaybeUninit<u8>]) -> bool {
    const CHUNK: usize = 256;
    let mut chunks = chars.chunks_exact(CHUNK);
    let mut rooms = room.chunks_exact_mut(CHUNK);
    for (chunk, room) in (&mut chunks).zip(&mut rooms) {
        // Stop at the first chunk holding a non-ASCII char: the batch is encoded instead.
        if chunk.iter().fold(0u16, |high, &u| high | u) >= 0x80 {
            return false;
        }
        room.iter_mut()
            .zip(chunk)
            .for_each(|(byte, &u)| _ = byte.write(u as u8));
    }
    let (chunk, room) = (chunks.remainder(), rooms.into_remainder());
    if chunk.iter().fold(0u16, |high, &u| high | u) >= 0x80 {
        return false;
    }
    room.iter_mut()
        .zip(chunk)
        .for_each(|(byte, &u)| _ = byte.write(u as u8));
    true
}
