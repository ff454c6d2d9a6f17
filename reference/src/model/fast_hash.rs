//! A fast, deterministic hasher for the model's own tables, whose keys it builds itself (search
//! states, values, op names: never input chosen to collide): the multiply-rotate word hash of
//! rustc's `FxHasher` (the rustc-hash crate's algorithm, written out here: a few lines are not
//! worth a dependency). The standard SipHash took a fifth of a run's legal check.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The word hash: each word rotated in and multiplied by an odd constant.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher(u64);

/// The multiplier (rustc-hash's 64-bit seed: 2^64 divided by the golden ratio, made odd).
const K: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A `HashSet` with [`FxHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash(x: impl Hash) -> u64 {
        let mut h = FxHasher::default();
        x.hash(&mut h);
        h.finish()
    }

    /// Equal keys hash alike, and keys that differ in one byte (at any place, or in length)
    /// differ: what a search's table of failed states needs.
    #[test]
    fn keys_differing_anywhere_hash_apart() {
        let key: Vec<u8> = (0..20).collect();
        assert_eq!(hash(&key), hash(key.clone()));
        for at in 0..key.len() {
            let mut k = key.clone();
            k[at] ^= 1;
            assert_ne!(hash(&k), hash(&key), "byte {at}");
        }
        assert_ne!(hash(&key[..19]), hash(&key));
        assert_ne!(hash((1u64, 2u64)), hash((2u64, 1u64)));
        let mut set: FastSet<Vec<u8>> = FastSet::default();
        assert!(set.insert(key.clone()));
        assert!(!set.insert(key.clone()));
        assert!(set.contains(&key[..]));
    }
}
