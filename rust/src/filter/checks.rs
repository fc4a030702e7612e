//! The checks a filter's shape and adopted words pass before a filter is made of them.

use crate::error::{Error, Result};
use crate::sizing::{self, Shape};

/// m in 1..=2^43 and k in 1..=255: the shapes a filter (plain or counting) takes.
pub(crate) fn check_shape(shape: Shape) -> Result<()> {
    if let Some(rule) = sizing::num_bits_violation(shape.num_bits) {
        return Err(Error::invalid(
            "numBits",
            format!("{} {rule}", shape.num_bits),
        ));
    }
    sizing::check_num_hashes(shape.num_hashes)
}

/// A batch's answer slots are one per key.
pub(crate) fn check_answers_fit(slots: usize, keys: usize) -> Result<()> {
    if slots != keys {
        return Err(Error::invalid(
            "out",
            format!("has {slots} slots for {keys} keys"),
        ));
    }
    Ok(())
}

/// `words` are exactly the ceil(m / 64) words of an m-bit filter, with no bit set at or above m.
pub(super) fn check_words_fit(words: &[u64], num_bits: u64) -> Result<()> {
    let expected = num_bits.div_ceil(64);
    if words.len() as u64 != expected {
        return Err(Error::invalid(
            "words",
            format!(
                "{} words for {num_bits} bits, expected {expected}",
                words.len()
            ),
        ));
    }
    match first_bit_at_or_above(words, num_bits) {
        Some(bit) => Err(Error::invalid(
            "words",
            format!("bit {bit} is set, at or above numBits {num_bits}"),
        )),
        None => Ok(()),
    }
}

/// The lowest set bit at or above `num_bits` in the last word, if any (ceil(m / 64) words).
pub(crate) fn first_bit_at_or_above(words: &[u64], num_bits: u64) -> Option<u64> {
    let used = num_bits % 64;
    let last = *words.last()?;
    if used == 0 {
        return None;
    }
    let above = last & (u64::MAX << used);
    (above != 0).then(|| (words.len() as u64 - 1) * 64 + above.trailing_zeros() as u64)
}
