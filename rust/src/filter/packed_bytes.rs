//! Byte-string keys packed one after another ([`PackedBytes`], the shape a batch crosses JNI
//! in), and a group of them hashed at once: runs of equal-length keys sixteen or eight at a
//! time in AVX-512 lanes where the plan says (`avx512::hash_packed_run`), the others key by key.

use super::BloomFilter;
use crate::error::{Error, Result};
use crate::hashing::Hash128;
use crate::kernels::avx512;

/// Byte-string keys packed one after another, the shape a batch crosses JNI in: key `i` is
/// `data[ends[i - 1]..ends[i]]` (the first key starts at 0). Bytes after the last end are
/// ignored (a reused buffer may be longer).
///
/// ```
/// use sparkbloom::{BloomFilter, PackedBytes};
///
/// let f = BloomFilter::new(1_000, 0.01)?;
/// let keys = PackedBytes::new(b"applepearfig", &[5, 9, 12])?;
/// assert_eq!(keys.get(1), b"pear");
/// assert!(f.put_all_bytes(keys));
/// assert_eq!(f.might_contain_all_bytes(keys), vec![true; 3]);
/// assert!(f.might_contain_bytes(b"fig") && !f.might_contain_bytes(b"plum"));
/// assert!(PackedBytes::new(b"ab", &[1, 3]).is_err(), "an end past the data");
/// # Ok::<(), sparkbloom::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct PackedBytes<'a> {
    pub(super) data: &'a [u8],
    pub(super) ends: &'a [u32],
}

impl<'a> PackedBytes<'a> {
    /// Checks that `ends` rises (not strictly: empty keys are keys) and stays within `data`.
    pub fn new(data: &'a [u8], ends: &'a [u32]) -> Result<PackedBytes<'a>> {
        let mut previous = 0u32;
        for (i, &end) in ends.iter().enumerate() {
            if end < previous || end as usize > data.len() {
                return Err(Error::invalid(
                    "ends",
                    format!(
                        "ends[{i}] = {end} is not in {previous}..={} (offsets must rise within the data)",
                        data.len()
                    ),
                ));
            }
            previous = end;
        }
        Ok(PackedBytes { data, ends })
    }

    /// Keys whose ends the caller has checked as [`new`](Self::new) does (the JNI bridge checks
    /// them as it copies them): no second pass. Ends that were not checked could only make
    /// `get` panic, never read outside `data`.
    #[cfg(feature = "jni")]
    pub(crate) fn checked_by_caller(data: &'a [u8], ends: &'a [u32]) -> PackedBytes<'a> {
        debug_assert!(PackedBytes::new(data, ends).is_ok());
        PackedBytes { data, ends }
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Where key `i` starts in the data.
    #[inline(always)]
    pub(super) fn start(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.ends[i - 1] as usize }
    }

    /// Key `i`'s bytes.
    #[inline(always)]
    pub fn get(&self, i: usize) -> &'a [u8] {
        &self.data[self.start(i)..self.ends[i] as usize]
    }

    /// The keys in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Keys per group hashed (and, on large filters, prefetched) together: as the `long` batches.
pub(super) const GROUP: usize = 16;

/// One group's hashes, as halves side by side (the vector lanes load eight of a kind at once).
pub(super) struct GroupHashes<const N: usize = GROUP> {
    pub(super) h1s: [u64; N],
    pub(super) h2s: [u64; N],
}

impl<const N: usize> GroupHashes<N> {
    pub(super) fn get(&self, j: usize) -> Hash128 {
        Hash128 {
            h1: self.h1s[j],
            h2: self.h2s[j],
        }
    }
}

impl BloomFilter {
    /// The hashes of keys `first..first + count`, as [`hash_key_bytes`](Self::hash_key_bytes):
    /// runs of 16 or 8 keys of one length in vector lanes, the others key by key.
    pub(super) fn hash_keys<const N: usize>(
        &self,
        keys: PackedBytes<'_>,
        first: usize,
        count: usize,
        out: &mut GroupHashes<N>,
    ) {
        let (lanes, in_lanes) = (avx512::BYTE_LANES, self.plan.byte_lanes);
        let mut j = 0;
        while j < count {
            let at = first + j;
            if in_lanes && count - j >= lanes {
                let start = keys.start(at);
                let len = keys.ends[at] as usize - start;
                // How many of the next (up to 16) keys share key `at`'s length: packed, they lie
                // one after another, key i of the run at start + i · len.
                let limit = (count - j).min(2 * lanes);
                let run = 1 + keys.ends[at + 1..at + limit]
                    .iter()
                    .zip(&keys.ends[at..])
                    .take_while(|&(&end, &previous)| (end - previous) as usize == len)
                    .count();
                let (h1s, h2s) = (&mut out.h1s[j..], &mut out.h2s[j..]);
                if run == 2 * lanes {
                    let (h1s, h2s) = (&mut h1s[..2 * lanes], &mut h2s[..2 * lanes]);
                    // SAFETY: the plan hashes byte keys in lanes only where the CPU has AVX-512
                    // F and DQ.
                    unsafe { avx512::hash_packed_run::<2>(keys.data, start, len, h1s, h2s) };
                    j += 2 * lanes;
                    continue;
                }
                if run >= lanes {
                    let (h1s, h2s) = (&mut h1s[..lanes], &mut h2s[..lanes]);
                    // SAFETY: as above.
                    unsafe { avx512::hash_packed_run::<1>(keys.data, start, len, h1s, h2s) };
                    j += lanes;
                    continue;
                }
            }
            let hash = self.hash_key_bytes(keys.get(at));
            (out.h1s[j], out.h2s[j]) = (hash.h1, hash.h2);
            j += 1;
        }
    }
}
