//! The sparse payload: the positions of the set bits, as Rice-coded gaps.
//!
//! | off | size | field |
//! |---|---|---|
//! | 0 | 8 | X = number of set bits, u64 LE |
//! | 8 | 1 | Rice parameter r, 0..=63 |
//! | 9 | … | X Rice codes, LSB-first, zero-padded to a whole byte |
//!
//! Gap g_i = p_i − p_{i−1} − 1 with p_{−1} = −1; its code is q = g >> r one-bits, a zero-bit,
//! then the r low bits of g, least significant first. A lightly filled filter (the per-user
//! filter: m = 143,808 with ~1,400 bits set) has geometric gaps, for which Rice coding with
//! r ≈ log2(mean gap) comes within a few percent of the entropy of the bit set.

use super::bitstream::{BitReader, low_mask};
use super::rice_writer::{self, RiceWriter};
use super::{dense, rice_fast};
use crate::error::{Error, Result};
use crate::filter::BloomFilter;
use crate::kernels::{self, Portable, set_bits};
use crate::le;
use crate::sizing::Shape;
use crate::strategy::Strategy;

/// Count and Rice parameter: the smallest sparse payload (an empty filter).
pub(crate) const MIN_PAYLOAD_LEN: u64 = 9;
/// The largest Rice parameter a payload may declare: the low bits of a gap are one u64 read.
pub(crate) const MAX_RICE: u32 = 63;

/// The most gaps a plan keeps for the writer (32 KiB): the per-user filter's 2,000 and any
/// small filter's, while encoding a large one still needs no more than the dense snapshot, the
/// result and a bounded buffer.
const KEPT_GAPS: u64 = 4096;

/// Words whose gaps are taken at once when they are not all kept (at most 64 gaps each: a
/// 16 KiB buffer on the stack).
const BATCH_WORDS: usize = 32;

/// How a dense payload codes sparse: its set-bit count, the Rice parameter and the exact
/// payload length, which is strictly smaller than the dense payload; and its gaps, when there
/// are at most [`KEPT_GAPS`], so that the writer does not take them from the words again.
pub(crate) struct Plan {
    count: u64,
    rice: u32,
    len: u64,
    gaps: Option<Vec<u64>>,
}

impl Plan {
    /// Bytes of the sparse payload.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }
}

/// The sparse plan for the filter whose dense payload is `dense`, holding `count` set bits (the
/// count [`dense::write`] returns), if its payload is strictly smaller; `None` means "write
/// dense". Deterministic: equal bits give equal plans. A half-full filter, which no parameter
/// codes smaller than dense even at the least a code can cost, is "dense" from its count and
/// last bit alone, without a walk. Otherwise the exact cost of each Rice parameter is summed
/// over the gaps, which are kept if there are few (else the walk goes in batches and stops as
/// soon as no parameter can beat dense: it once reserved 8 bytes per set bit, 33 GB for a
/// 1 GiB filter).
pub(crate) fn plan(dense: &[u8], count: u64) -> Option<Plan> {
    debug_assert_eq!(count, count_ones(dense));
    let dense_len = dense.len() as u64;
    // Sum of the gaps = last + 1 − X; the best r is near log2 of their mean.
    let sum_gaps = last_set_bit(dense).map_or(0, |last| last + 1 - count);
    let candidates = rice_candidates(sum_gaps.checked_div(count).unwrap_or(0));
    // Each code costs ≥ (r + 1) + (g − 2^r + 1) / 2^r bits: `x` codes whose gaps sum to `s`
    // have quotients summing to at least `least_quotients` (exactly s for r = 0).
    let least_quotients =
        |r: u32, x: u64, s: u64| (s as u128).saturating_sub(x as u128 * ((1u128 << r) - 1)) >> r;
    let fixed = |r: u32| count as u128 * (r as u128 + 1);
    let lower_bound = |r: u32| fixed(r) + least_quotients(r, count, sum_gaps);
    let beats_dense = |bits: u128| payload_len(bits) < dense_len as u128;
    // If even that bound is not smaller than dense for every candidate (a half-full filter),
    // skip the exact pass.
    if !candidates.iter().any(|&r| beats_dense(lower_bound(r))) {
        return None;
    }
    // Exact cost of each candidate: X·(r + 1) + Σ (g >> r) bits (Σ g < m < 2^44: no overflow).
    let mut quotients = [0u64; 3];
    let (mut walked_codes, mut walked_sum) = (0u64, 0u64);
    let mut sum = |gaps: &[u64]| {
        let [q0, q1, q2, total] = quotient_sums(gaps, candidates);
        quotients[0] += q0;
        quotients[1] += q1;
        quotients[2] += q2;
        walked_codes += gaps.len() as u64;
        walked_sum += total;
        // Exact for the gaps walked, the lower bound for the rest: once no candidate can beat
        // dense, none will (a half-full filter stops after a batch or two, where a bound on
        // the walked gaps alone let a near-half-full one walk all its bits).
        let (rest_codes, rest_sum) = (count - walked_codes, sum_gaps - walked_sum);
        candidates.iter().zip(&quotients).any(|(&r, &q)| {
            beats_dense(fixed(r) + q as u128 + least_quotients(r, rest_codes, rest_sum))
        })
    };
    let gaps = all_gaps(dense, count);
    let walked = match &gaps {
        Some(gaps) => sum(gaps),
        None => for_each_gap_batch(dense, sum),
    };
    if !walked {
        return None;
    }
    // min_by_key keeps the first of equal costs: ties go to the smaller r.
    let (rice, bits) = candidates
        .iter()
        .zip(&quotients)
        .map(|(&r, &q)| (r, fixed(r) + q as u128))
        .min_by_key(|&(_, bits)| bits)?;
    beats_dense(bits).then(|| Plan {
        count,
        rice,
        len: payload_len(bits) as u64,
        gaps,
    })
}

/// Σ g >> r for each of the three candidates r, and Σ g: one pass, which vectorizes (with AVX2
/// where the CPU has it).
fn quotient_sums(gaps: &[u64], candidates: [u32; 3]) -> [u64; 4] {
    kernels::with_avx2(QuotientSums { gaps, candidates })
}

/// [`quotient_sums`]' arguments; its loop is their [`run`](Portable::run).
struct QuotientSums<'a> {
    gaps: &'a [u64],
    candidates: [u32; 3],
}

impl Portable for QuotientSums<'_> {
    type Output = [u64; 4];

    #[inline(always)]
    fn run(self) -> [u64; 4] {
        let [r0, r1, r2] = self.candidates;
        let (mut q0, mut q1, mut q2, mut total) = (0u64, 0u64, 0u64, 0u64);
        for &g in self.gaps {
            q0 += g >> r0;
            q1 += g >> r1;
            q2 += g >> r2;
            total += g;
        }
        [q0, q1, q2, total]
    }
}

/// Bytes [`write`] needs in `out`'s spare capacity for `plan`, beyond the payload itself.
pub(crate) const WRITE_SLACK: u64 = rice_writer::SLACK as u64;

/// Appends the sparse payload that `plan` (made from the same `dense`) describes. Needs
/// [`WRITE_SLACK`] bytes of capacity beyond it to avoid growing `out`.
pub(crate) fn write(dense: &[u8], plan: &Plan, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&plan.count.to_le_bytes());
    out.push(plan.rice as u8);
    let codes_start = out.len();
    let codes_len = (plan.len - MIN_PAYLOAD_LEN) as usize;
    out.resize(codes_start + codes_len + rice_writer::SLACK, 0);
    let mut writer = RiceWriter::new(&mut out[codes_start..]);
    let mut put = |gaps: &[u64]| {
        writer.put_rice(gaps, plan.rice);
        true
    };
    match &plan.gaps {
        Some(gaps) => put(gaps),
        None => for_each_gap_batch(dense, put),
    };
    let written = writer.finish();
    debug_assert_eq!(written, codes_len);
    out.truncate(codes_start + written);
    debug_assert_eq!((out.len() - start) as u64, plan.len);
}

/// Payload bytes for `bits` bits of Rice codes.
pub(crate) fn payload_len(bits: u128) -> u128 {
    MIN_PAYLOAD_LEN as u128 + bits.div_ceil(8)
}

/// floor(log2(mean)) − 1 ..= + 1, within 0..=63 (a repeated value when clamped: harmless,
/// ties go to the first).
pub(crate) fn rice_candidates(mean_gap: u64) -> [u32; 3] {
    let center = mean_gap.checked_ilog2().unwrap_or(0);
    [center.saturating_sub(1), center, (center + 1).min(MAX_RICE)]
}

fn last_set_bit(dense: &[u8]) -> Option<u64> {
    (0..dense.len() / 8)
        .rev()
        .map(|i| (i, dense::word(dense, i)))
        .find(|&(_, w)| w != 0)
        .map(|(i, w)| i as u64 * 64 + 63 - w.leading_zeros() as u64)
}

/// Set bits of the whole words of `dense`: what [`plan`]'s `count` must be (checked in debug
/// builds).
fn count_ones(dense: &[u8]) -> u64 {
    (0..dense.len() / 8)
        .map(|i| dense::word(dense, i).count_ones() as u64)
        .sum()
}

/// All the gaps of `dense`, which has `count` set bits, if they are at most [`KEPT_GAPS`] and
/// the memory is there.
fn all_gaps(dense: &[u8], count: u64) -> Option<Vec<u64>> {
    let words = dense.len() / 8;
    if count > KEPT_GAPS {
        return None;
    }
    let mut gaps = Vec::new();
    let room = count as usize + set_bits::SPARE;
    gaps.try_reserve_exact(room).ok()?;
    gaps.resize(room, 0);
    let found = set_bits::gaps(dense, 0..words, &mut 0, &mut gaps);
    debug_assert_eq!(found as u64, count);
    gaps.truncate(found);
    Some(gaps)
}

/// Calls `visit` with the gaps in increasing position order, those of [`BATCH_WORDS`] words at
/// a time, until it returns false; returns whether every gap was visited.
fn for_each_gap_batch(dense: &[u8], mut visit: impl FnMut(&[u64]) -> bool) -> bool {
    let mut gaps = [0u64; BATCH_WORDS * 64];
    let mut next = 0u64; // p_{i−1} + 1
    let words = dense.len() / 8;
    (0..words).step_by(BATCH_WORDS).all(|first| {
        let batch = first..(first + BATCH_WORDS).min(words);
        let len = set_bits::gaps(dense, batch, &mut next, &mut gaps);
        visit(&gaps[..len])
    })
}

/// What a sparse payload's entries describe, for error messages: "set bits", "bits" and
/// "codes" here; "nonzero counters", "counters" and "entries" in the counting filter's.
pub(crate) struct Nouns {
    pub(crate) entries: &'static str,
    pub(crate) positions: &'static str,
    pub(crate) codes: &'static str,
}

const PLAIN: Nouns = Nouns {
    entries: "set bits",
    positions: "bits",
    codes: "codes",
};

/// A sparse payload's first fields, checked: the entry count (u64 LE), the Rice parameter r
/// (one byte), then the coded data. Shared with the counting filter's sparse payload, whose
/// entries carry a value after each gap.
pub(crate) struct Prelude<'a> {
    pub(crate) count: u64,
    pub(crate) r: u32,
    pub(crate) data: &'a [u8],
}

impl Prelude<'_> {
    /// Parses `payload` (at least [`MIN_PAYLOAD_LEN`] bytes, checked by the header) of a filter
    /// of `num_positions` positions whose entries are a Rice code plus `value_bits` bits:
    /// r ≤ 63, the count at most `num_positions`, and data for `count` entries of at least
    /// r + 1 + `value_bits` bits each, which bounds a decoder's loop by the bytes present.
    pub(crate) fn parse(
        payload: &[u8],
        num_positions: u64,
        value_bits: u32,
        nouns: Nouns,
    ) -> Result<Prelude<'_>> {
        let bad = |reason: String| Error::corrupt("payload", reason);
        let count = le::u64_at(payload, 0);
        let r = payload[8] as u32;
        let data = &payload[MIN_PAYLOAD_LEN as usize..];
        if r > MAX_RICE {
            return Err(bad(format!("Rice parameter {r} is not in 0..={MAX_RICE}")));
        }
        let Nouns {
            entries,
            positions,
            codes,
        } = nouns;
        if count > num_positions {
            return Err(bad(format!(
                "count of {entries} {count} exceeds the {num_positions} {positions} of the filter"
            )));
        }
        let data_bits = data.len() as u128 * 8;
        let least = count as u128 * (r + 1 + value_bits) as u128;
        if least > data_bits {
            return Err(bad(format!(
                "count of {entries} {count} needs at least {least} bits of {codes}, only {data_bits} present"
            )));
        }
        Ok(Prelude { count, r, data })
    }
}

/// The filter whose sparse payload is `payload`; the caller has checked the header and the
/// checksum. Validates the count, r, every position and the padding.
pub(crate) fn decode(payload: &[u8], shape: Shape, strategy: Strategy) -> Result<BloomFilter> {
    decode_with(payload, shape, strategy, rice_fast::set_leading_bits)
}

/// How many leading codes a fast path decoded (setting their bits), and where it stopped.
type LeadingCodes = fn(&[u8], u64, u32, u64, &mut [u64]) -> rice_fast::Progress;

/// [`decode`], the codes `leading` leaves decoded by the careful reader.
fn decode_with(
    payload: &[u8],
    shape: Shape,
    strategy: Strategy,
    leading: LeadingCodes,
) -> Result<BloomFilter> {
    let bad = |reason: String| Error::corrupt("payload", reason);
    // The header guarantees payload.len() ≥ MIN_PAYLOAD_LEN.
    let Prelude { count, r, data } = Prelude::parse(payload, shape.num_bits, 0, PLAIN)?;
    let mut filter = BloomFilter::with_shape(shape, strategy)?;
    let words = filter.words_mut();
    let fast = leading(data, count, r, shape.num_bits, words);
    let mut reader = BitReader::at(data, fast.bit);
    let mut next = fast.next as u128; // p_{i−1} + 1
    for i in fast.codes..count {
        let past_end = |_| {
            bad(format!(
                "the code of set bit {i} of {count} runs past the end of the data"
            ))
        };
        let position = next + reader.read_rice(r).map_err(past_end)?;
        if position >= shape.num_bits as u128 {
            return Err(bad(format!(
                "set bit {i} at position {position} is not below numBits {}",
                shape.num_bits
            )));
        }
        words[(position >> 6) as usize] |= 1 << (position & 63);
        next = position + 1;
    }
    check_end(data, reader.position(), count, ("codes", "code"))?;
    Ok(filter)
}

/// Checks that the `count` entries (`names`: their plural and singular) of a sparse payload's
/// `data` end in its last byte, `used` bits in, and that the padding bits after them are zero.
pub(crate) fn check_end(data: &[u8], used: u64, count: u64, names: (&str, &str)) -> Result<()> {
    let bad = |reason: String| Error::corrupt("payload", reason);
    let (entries, entry) = names;
    if used.div_ceil(8) != data.len() as u64 {
        return Err(bad(format!(
            "{} bytes follow the last of the {count} {entries}",
            data.len() as u64 - used.div_ceil(8)
        )));
    }
    if !used.is_multiple_of(8) && data[data.len() - 1] as u64 & !low_mask((used % 8) as u32) != 0 {
        return Err(bad(format!("nonzero padding bits after the last {entry}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
