//! How the filter's bits change: every put takes the filter's writer (writers take turns, see
//! `bit_array`), and a batch runs the path its plan chose, one piece of [`WRITE_PIECE_KEYS`]
//! keys per turn.

use super::BloomFilter;
use crate::bit_array::BitWriter;
use crate::hashing::Hash128;
use crate::kernels::{Put, scalar};

/// The most keys a batch puts before it hands the lock over to a waiting writer
/// (`BitWriter::hand_over`): a few milliseconds at most, so a writer waiting behind a long
/// batch (say a Python thread that holds the interpreter's lock meanwhile) waits about as long
/// as Python's own thread switch interval (5 ms); and enough for a cache-resident filter's
/// batch to accumulate privately ([`accumulates`](super::batch::accumulates): k · 2^16 ≥ 2 · 2^15
/// words for every k).
pub(crate) const WRITE_PIECE_KEYS: usize = 1 << 16;

impl BloomFilter {
    /// [`put_all`](Self::put_all) of up to [`WRITE_PIECE_KEYS`] keys, with the writer held.
    pub(super) fn put_piece(&self, bits: &BitWriter<'_>, keys: &[u64]) -> bool {
        match self.plan.put {
            Put::Blocked(isa) => self.blocked_put_all(isa, bits, keys),
            Put::Reference => self.put_each(bits, keys),
            _ if self.accumulates(keys.len()) => self.put_all_accumulated(bits, keys),
            Put::Walk => self.put_all_prefetched(bits, keys),
            Put::Indexed => {
                let mut changed = false;
                self.for_each_indexed(keys, self.plan.prefetch, |_, indexes| {
                    changed |= self.set_clear_bits(bits, indexes);
                });
                changed
            }
            Put::EachKey => self.put_each(bits, keys),
        }
    }

    /// Sets the bits at `indexes` (their words cached or on their way): the clear ones found
    /// first without a branch, then one store each, so a bit already set costs no write (its
    /// line stays clean) and the only branch to predict is each round's loop exit. Whether any
    /// was clear.
    #[inline(always)]
    fn set_clear_bits(&self, bits: &BitWriter<'_>, indexes: &[u64]) -> bool {
        let mut changed = false;
        for round in indexes.chunks(64) {
            let mut clear = 0u64;
            for (j, &index) in round.iter().enumerate() {
                clear |= u64::from(!self.bits.get(index)) << j;
            }
            changed |= clear != 0;
            while clear != 0 {
                bits.set(round[clear.trailing_zeros() as usize]);
                clear &= clear - 1;
            }
        }
        changed
    }

    #[inline(always)]
    pub(super) fn put_hash(&self, bits: &BitWriter<'_>, hash: Hash128) -> bool {
        scalar::put(&self.indexer, hash, |index| bits.set(index))
    }

    /// The right to change the bits, until dropped: one writer at a time.
    #[inline(always)]
    pub(super) fn write(&self) -> BitWriter<'_> {
        self.writer.write(&self.bits)
    }

    /// Puts `keys` one by one, with the writer the caller holds.
    pub(super) fn put_each(&self, bits: &BitWriter<'_>, keys: &[u64]) -> bool {
        keys.iter().fold(false, |changed, &key| {
            self.put_hash(bits, self.hash_key(key)) | changed
        })
    }
}
