//! The implementations measured, behind one small trait so that every benchmark runs the same
//! code on ours and on fastbloom's.

use sparkbloom::BloomFilter;

/// fastbloom's SipHash key: fixed, so runs are reproducible.
pub const FASTBLOOM_SEED: u128 = 0x5eed_b100_f11e_7e55_0000_0000_0000_0001;

/// The operations benchmarked, for either implementation: a small trait rather than a macro,
/// so both sides read as plain code.
pub trait Filter {
    const NAME: &'static str;
    fn put(&mut self, key: u64);
    fn contains(&self, key: u64) -> bool;
    fn put_str(&mut self, key: &str);
    fn contains_str(&self, key: &str) -> bool;
    fn put_all(&mut self, keys: &[u64]);
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]);
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64>;
    fn clear(&mut self);
}

pub struct Ours(pub BloomFilter);

impl Filter for Ours {
    const NAME: &'static str = "sparkbloom";
    #[inline]
    fn put(&mut self, key: u64) {
        self.0.put(key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.might_contain(key)
    }
    #[inline]
    fn put_str(&mut self, key: &str) {
        self.0.put_str(key);
    }
    #[inline]
    fn contains_str(&self, key: &str) -> bool {
        self.0.might_contain_str(key)
    }
    #[inline]
    fn put_all(&mut self, keys: &[u64]) {
        self.0.put_all(keys);
    }
    #[inline]
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]) {
        self.0
            .might_contain_all_into(keys, out)
            .expect("out is as long as keys");
    }
    #[inline]
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
        self.0.retain_absent(keys)
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

pub struct Fast(pub fastbloom::BloomFilter);

impl Filter for Fast {
    const NAME: &'static str = "fastbloom";
    #[inline]
    fn put(&mut self, key: u64) {
        self.0.insert(&key);
    }
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.0.contains(&key)
    }
    #[inline]
    fn put_str(&mut self, key: &str) {
        self.0.insert(key);
    }
    #[inline]
    fn contains_str(&self, key: &str) -> bool {
        self.0.contains(key)
    }
    #[inline]
    fn put_all(&mut self, keys: &[u64]) {
        keys.iter().for_each(|key| {
            self.0.insert(key);
        });
    }
    #[inline]
    fn contains_all_into(&self, keys: &[u64], out: &mut [bool]) {
        out.iter_mut()
            .zip(keys)
            .for_each(|(slot, key)| *slot = self.0.contains(key));
    }
    #[inline]
    fn retain_absent(&self, keys: &[u64]) -> Vec<u64> {
        keys.iter()
            .copied()
            .filter(|key| !self.0.contains(key))
            .collect()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// fastbloom's thread-safe variant (atomic `fetch_or`), the like-for-like peer of our puts,
/// which are thread-safe too (by the filter's writer lock): measured for puts only.
pub struct FastAtomic(pub fastbloom::AtomicBloomFilter);

impl FastAtomic {
    pub const NAME: &'static str = "fastbloom_atomic";
}
