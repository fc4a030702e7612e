//! Little-endian integers in byte slices: the one reader of the crate's little-endian words
//! (the format's header, dense and sparse payloads, its checksum trailer, Murmur3's blocks).

/// The u64 at `bytes[at..at + 8]`; panics if those 8 bytes are not there.
#[inline(always)]
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The u64 whose low bytes are `bytes` (at most 8), the missing high bytes zero.
#[inline(always)]
pub(crate) fn u64_padded(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// The u32 at `bytes[at..at + 4]`; panics if those 4 bytes are not there.
#[inline]
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_least_significant_byte_first() {
        let bytes = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(u64_at(&bytes, 1), 0x0908_0706_0504_0302);
        assert_eq!(u64_padded(&bytes[..3]), 0x03_02_01);
        assert_eq!(u64_padded(&[]), 0);
        assert_eq!(u32_at(&bytes, 0), 0x0403_0201);
    }
}
