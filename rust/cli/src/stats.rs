//! What a filter's bits say about it: fill, the estimated count n ≈ −(m/k)·ln(1 − X/m) (from
//! the fill), the false-positive rate at this fill, and the capacity m·ln2/(k − ½).

use sparkbloom::BloomFilter;
use std::f64::consts::LN_2;

pub struct Fill {
    pub bits_set: u64,
    pub fill_ratio: f64,
    pub estimated_count: u64,
    pub expected_fpp: f64,
    /// The largest n whose (n, p) sizing gives this m and k (see [`capacity`]): neither layout
    /// records the n a filter was made for, so this is the bound an over-capacity warning uses.
    pub capacity: u64,
}

impl Fill {
    pub fn of(filter: &BloomFilter) -> Fill {
        let bits_set = filter.bits_set();
        Fill {
            bits_set,
            fill_ratio: bits_set as f64 / filter.num_bits() as f64,
            estimated_count: filter.approximate_element_count(),
            expected_fpp: filter.expected_fpp(),
            capacity: capacity(filter),
        }
    }
}

/// Guava sizes m = n·(−ln p)/ln²2 and k = round(−ln p / ln 2) (Guava 14: round(m/n · ln 2)),
/// so −ln p / ln 2 = m·ln2/n lies in [k − ½, k + ½) and n ≤ m·ln2/(k − ½). A filter at design
/// load (n = m·ln2/k for an exact k) is then never reported over capacity.
pub fn capacity(filter: &BloomFilter) -> u64 {
    (filter.num_bits() as f64 * LN_2 / (filter.num_hashes() as f64 - 0.5)).floor() as u64
}
