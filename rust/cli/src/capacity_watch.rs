//! When `dedup` warns that its filter is over capacity: once the estimated count passes N, and
//! again each time the false-positive rate at the current fill reaches 2, 10, 100, 1000, ...
//! times the P it was sized for, so a run that goes on filling says how much worse it got.
//!
//! At an estimated count c the rate is (1 − e^(−k·c/m))^k, the same function of the fill that
//! `expected_fpp` computes, so a rate threshold r is the count c = −(m/k)·ln(1 − r^(1/k)).
//! Counting the bits costs O(m/64), so it is done only when the lines added since the start
//! (an upper bound of the count's growth) could have passed the next threshold, and then every
//! threshold/64 added lines until it has.

use sparkbloom::BloomFilter;

pub struct CapacityWatch {
    expected: u64,
    fpp: f64,
    bits: f64,
    hashes: f64,
    /// Upper bound of the distinct keys in the filter.
    bound: u64,
    /// Warnings given: 0 none, 1 past N, then one per rate factor of [`factor`].
    level: u32,
    /// The count of the next warning.
    threshold: u64,
    next_check: u64,
}

/// What a warning reports.
pub struct Warning {
    pub estimated_count: u64,
    pub expected_fpp: f64,
}

impl CapacityWatch {
    pub fn new(filter: &BloomFilter, expected: u64, fpp: f64) -> CapacityWatch {
        let mut watch = CapacityWatch {
            expected,
            fpp,
            bits: filter.num_bits() as f64,
            hashes: filter.num_hashes() as f64,
            bound: filter.approximate_element_count(),
            level: 0,
            threshold: expected,
            next_check: 0,
        };
        watch.threshold = watch.threshold_of(0);
        watch
    }

    /// The warning a loaded state calls for at once, if any.
    pub fn initial(&mut self, filter: &BloomFilter) -> Option<Warning> {
        self.check(filter)
    }

    /// One line was added; a warning when one is due now.
    #[inline]
    pub fn added(&mut self, filter: &BloomFilter) -> Option<Warning> {
        self.bound += 1;
        if self.bound <= self.threshold || self.bound < self.next_check {
            return None;
        }
        self.check(filter)
    }

    /// Bits were ORed in from the state file: the bound restarts from the filter.
    pub fn merged(&mut self, filter: &BloomFilter) {
        self.bound = self.bound.max(filter.approximate_element_count());
        self.next_check = 0;
    }

    fn check(&mut self, filter: &BloomFilter) -> Option<Warning> {
        let count = filter.approximate_element_count();
        self.bound = self.bound.max(count);
        if count <= self.threshold {
            self.next_check = self.bound + (self.threshold / 64).max(1);
            return None;
        }
        // Past one threshold or several at once: one warning, at the highest.
        while count > self.threshold {
            self.level += 1;
            self.threshold = self.threshold_of(self.level);
        }
        self.next_check = 0;
        Some(Warning {
            estimated_count: count,
            expected_fpp: filter.expected_fpp(),
        })
    }

    /// The count of warning `level`: N for 0, else the count where the rate is the level's
    /// factor times P (never, once that rate would be 1 or more).
    fn threshold_of(&self, level: u32) -> u64 {
        if level == 0 {
            return self.expected;
        }
        let rate = factor(level) * self.fpp;
        if rate >= 1.0 {
            return u64::MAX;
        }
        let count = -(self.bits / self.hashes) * (-rate.powf(1.0 / self.hashes)).ln_1p();
        (count.ceil() as u64).max(self.expected)
    }

    pub fn expected(&self) -> u64 {
        self.expected
    }
}

/// 2, 10, 100, 1000, ... for levels 1, 2, 3, 4, ...
fn factor(level: u32) -> f64 {
    match level {
        1 => 2.0,
        _ => 10f64.powi(level as i32 - 1),
    }
}
