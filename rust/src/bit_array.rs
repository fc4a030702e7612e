//! A fixed-size array of bits in 64-bit words, safe to set and read from many threads.
//!
//! Bit `b` lives in word `b >> 6` at bit `b & 63` (Guava's and Spark's addressing).
//!
//! Writers take turns: every change goes through a [`BitWriter`], which holds the filter's
//! [`WriterLock`], so a bit is set with a plain load and store of its word, and no concurrent
//! put can lose another's bits. A put of k bits thus costs two locked instructions (taking the
//! lock and letting it go) where an atomic OR per bit would cost k, each a full barrier on x86
//! that also stalls the misses in flight of a batch on a large filter. Readers never wait:
//! every word is an atomic, read whole, before or after a writer's store.

use crate::atomic_words::{self, Align};
use crate::error::Result;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU8, AtomicU64};

pub(crate) struct BitArray {
    words: atomic_words::Words,
}

/// The lock writers of one array take turns on: one byte, so that a filter stays as small as
/// it was (a `std::sync::Mutex` takes eight). Held only inside the core, for one call, never
/// across a callback, so a waiter spins briefly, then yields its time slice until the lock is
/// free: no parking, nothing allocated. A waiter marks itself ([`WAITING`]), and a batch
/// that sees the mark between two pieces lets it in before taking the lock back
/// ([`BitWriter::hand_over`]): a single put waits for a piece, not for the whole batch.
#[derive(Default)]
pub(crate) struct WriterLock {
    state: AtomicU8,
}

/// A writer holds the lock.
const HELD: u8 = 1;
/// A writer waits for it (cleared by whoever takes the lock; set again by those still waiting).
const WAITING: u8 = 2;

/// Spins of a waiting writer before it starts yielding; also how long (in spins, then as many
/// yields) a batch waits for a marked waiter to take the lock it handed over.
const SPINS_BEFORE_YIELD: u32 = 64;

/// Waits a little: spins at first, then yields the time slice.
#[inline]
fn pause(spins: &mut u32) {
    if *spins < SPINS_BEFORE_YIELD {
        *spins += 1;
        std::hint::spin_loop();
    } else {
        *spins += 1;
        std::thread::yield_now();
    }
}

impl WriterLock {
    /// Waits for the lock, then the right to change `bits`, until the writer is dropped. Not
    /// reentrant: a thread holding a writer must not ask for another of the same lock.
    pub(crate) fn write<'a>(&'a self, bits: &'a BitArray) -> BitWriter<'a> {
        let mut spins = 0;
        let mut state = self.state.load(Relaxed);
        loop {
            if state & HELD == 0 {
                // Acquire: this writer sees every store of the writers before it.
                match self
                    .state
                    .compare_exchange_weak(state, HELD, Acquire, Relaxed)
                {
                    Ok(_) => {
                        return BitWriter {
                            words: &bits.words,
                            lock: self,
                        };
                    }
                    Err(now) => state = now,
                }
                continue;
            }
            if state & WAITING == 0 {
                self.state.fetch_or(WAITING, Relaxed);
            }
            pause(&mut spins);
            state = self.state.load(Relaxed);
        }
    }
}

/// The right to change a [`BitArray`]'s bits, held by one thread at a time
/// ([`WriterLock::write`]); dropping it lets the next writer in.
pub(crate) struct BitWriter<'a> {
    words: &'a [AtomicU64],
    lock: &'a WriterLock,
}

impl BitWriter<'_> {
    /// Lets the next writer in, and if one was waiting, waits (briefly) until it has taken the
    /// lock: a batch calls this between pieces, so that it cannot take the lock straight back
    /// from a waiter that was yielding its time slice.
    pub(crate) fn hand_over(self) {
        let lock = self.lock;
        let waited = lock.release() & WAITING != 0;
        std::mem::forget(self); // released above
        let mut spins = 0;
        while waited && lock.state.load(Relaxed) & HELD == 0 && spins < 2 * SPINS_BEFORE_YIELD {
            pause(&mut spins);
        }
    }
}

impl WriterLock {
    /// Frees the lock; the state it had. Release: the next writer sees this one's stores. It
    /// clears WAITING too: a waiter still there marks itself again.
    fn release(&self) -> u8 {
        self.state.swap(0, Release)
    }
}

impl Drop for BitWriter<'_> {
    fn drop(&mut self) {
        self.lock.release();
    }
}

impl BitArray {
    /// An all-zero array of `num_words` words starting as `align` says; allocation failure,
    /// or an array beyond the process's memory limit, is an error ([`atomic_words::zeroed`]).
    pub(crate) fn zeroed(num_words: usize, align: Align) -> Result<BitArray> {
        Ok(BitArray {
            words: atomic_words::zeroed(num_words, align, "the bit array")?,
        })
    }

    /// A copy of the words (each read once, so a snapshot per word if other threads write),
    /// starting as `align` says; allocation failure is an error.
    pub(crate) fn try_clone(&self, align: Align) -> Result<BitArray> {
        Ok(BitArray {
            words: atomic_words::try_clone(&self.words, align, "the bit array")?,
        })
    }

    /// Takes ownership of `words` without copying.
    pub(crate) fn from_words(words: Vec<u64>) -> BitArray {
        BitArray {
            words: atomic_words::from_vec(words),
        }
    }

    /// The first word, for vector loads (`kernels::avx512`). Each lane of a gather is an aligned
    /// 8-byte load, which x86 performs atomically, so like a `Relaxed` load it sees a word
    /// before or after a writer's store, never a torn one.
    pub(crate) fn as_ptr(&self) -> *const u64 {
        self.words.as_ptr().cast()
    }

    #[inline(always)]
    pub(crate) fn len_words(&self) -> usize {
        self.words.len()
    }

    #[inline(always)]
    pub(crate) fn get(&self, index: u64) -> bool {
        self.words[(index >> 6) as usize].load(Relaxed) & (1u64 << (index & 63)) != 0
    }

    /// Hints the CPU to fetch the word holding bit `index` into cache.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: u64) {
        atomic_words::prefetch(&self.words, (index >> 6) as usize)
    }

    /// The words as plain integers, for a caller that owns the array exclusively (a decoder
    /// filling a filter nobody else can see yet): no atomic instructions needed.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        atomic_words::as_mut_u64(&mut self.words)
    }

    #[inline]
    pub(crate) fn word(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }

    /// The words as plain integers (a snapshot if other threads are writing).
    pub(crate) fn words(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.words.iter().map(|w| w.load(Relaxed))
    }

    pub(crate) fn count_ones(&self) -> u64 {
        self.words().map(|w| w.count_ones() as u64).sum()
    }
}

impl BitWriter<'_> {
    /// Sets bit `index`; returns whether it was clear before.
    #[inline(always)]
    pub(crate) fn set(&self, index: u64) -> bool {
        let word = &self.words[(index >> 6) as usize];
        let mask = 1u64 << (index & 63);
        // No "already set?" branch: as the filter fills it becomes a coin flip (callgrind: 3.2
        // of 4.2 mispredictions per put).
        let old = word.load(Relaxed);
        // Release: a reader that acquires this word (`intersect` reading the other filter)
        // also sees the writer's earlier puts into other filters. A plain store on x86.
        word.store(old | mask, Release);
        old & mask == 0
    }

    /// ORs `bits` into word `i`; returns whether any of them was clear.
    #[inline]
    pub(crate) fn or_word(&self, i: usize, bits: u64) -> bool {
        let word = &self.words[i];
        let old = word.load(Relaxed);
        if old & bits == bits {
            return false;
        }
        word.store(old | bits, Release);
        true
    }

    /// Word `i` becomes its AND with word `i` of `other`, which other threads may be writing.
    /// A key put into `other` and then into this array while this runs is not lost: its put
    /// here waits for this writer, then sets its bits again.
    pub(crate) fn and_word(&self, i: usize, other: &BitArray) {
        let word = &self.words[i];
        let old = word.load(Relaxed);
        // Acquire: the puts into `other` whose bits this reads happen before what follows
        // (`set`'s Release).
        let kept = old & other.words[i].load(Acquire);
        if kept != old {
            word.store(kept, Release);
        }
    }

    pub(crate) fn clear(&self) {
        self.words.iter().for_each(|w| w.store(0, Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writers take turns: a count kept with a plain load and store under the lock loses no
    /// increment.
    #[test]
    fn writers_take_turns() {
        const THREADS: u64 = 8;
        const ROUNDS: u64 = 20_000;
        let bits = BitArray::zeroed(1, Align::Word).unwrap();
        let lock = WriterLock::default();
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                scope.spawn(|| {
                    for _ in 0..ROUNDS {
                        let writer = lock.write(&bits);
                        let count = writer.words[0].load(Relaxed);
                        std::hint::spin_loop();
                        writer.words[0].store(count + 1, Relaxed);
                    }
                });
            }
        });
        assert_eq!(bits.word(0), THREADS * ROUNDS);
        assert_eq!(lock.state.load(Relaxed), 0, "free, nobody waiting");
    }

    /// A waiter marks itself, and a writer that hands the lock over lets it in.
    #[test]
    fn a_waiter_is_seen_and_let_in() {
        let bits = BitArray::zeroed(1, Align::Word).unwrap();
        let lock = WriterLock::default();
        let writer = lock.write(&bits);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| lock.write(&bits).set(3));
            while lock.state.load(Relaxed) != HELD | WAITING {
                std::thread::yield_now();
            }
            writer.set(5);
            writer.hand_over();
            assert!(waiter.join().unwrap(), "bit 3 was clear");
        });
        assert_eq!(bits.word(0), 1 << 3 | 1 << 5);
        assert_eq!(lock.state.load(Relaxed), 0);
    }
}
