//! The emulated wave's vector register files (VGPRs, AccVGPRs) as flat arrays reused across
//! workgroups and launches, and the pattern undefined state holds (docs/architecture.md, "ds-devices").
//!
//! Undefined is a generation stamp, not a refill: each row (one register, a word per lane)
//! remembers the workgroup generation that last gave it a value. A workgroup starts by bumping
//! the generation, which makes every row undefined at once; a row read while undefined is
//! filled with the workgroup's pattern then (seeded by the launch, the workgroup, the file and
//! the register, so it changes with each), and a row written in every lane is stamped without
//! being filled. A kernel reading a register nothing wrote sees the pattern, exactly as if every
//! register had been filled at entry, for the cost of the rows it touches.

use ds_reference::wave::WaveSize;

/// Mixes two words into a seed (SplitMix64's finaliser over their sum).
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a
        .wrapping_add(b.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The pseudo-random pattern undefined state holds: a SplitMix64 stream.
#[derive(Clone, Copy, Debug)]
pub struct Pattern(pub u64);

impl Pattern {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0, 0)
    }

    pub fn word(&mut self) -> u32 {
        self.next() as u32
    }
}

/// One vector register file: `rows` registers of `lanes` words, row-major, with a stamp per row.
#[derive(Debug)]
pub struct File {
    words: Vec<u32>,
    stamps: Vec<u32>,
    rows: usize,
    lanes: usize,
    /// Which file this is, mixed into its pattern (VGPRs and AccVGPRs differ).
    salt: u64,
}

impl File {
    pub fn new(salt: u64) -> File {
        File {
            words: Vec::new(),
            stamps: Vec::new(),
            rows: 0,
            lanes: 0,
            salt,
        }
    }

    /// Shapes the file to `rows` registers of `size`'s lanes, keeping its allocation; every row
    /// becomes undefined.
    pub fn shape(&mut self, rows: usize, size: WaveSize) {
        let lanes = size.lanes();
        if (rows, lanes) != (self.rows, self.lanes) {
            self.words.clear();
            self.words.resize(rows * lanes, 0);
            (self.rows, self.lanes) = (rows, lanes);
        }
        self.stamps.clear();
        self.stamps.resize(rows, 0);
    }

    /// Makes every row undefined again after the generation counter wrapped.
    pub fn forget(&mut self) {
        self.stamps.fill(0);
    }

    /// Registers in the file.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Gives row `n` a value if it has none this generation: the pattern of `seed`.
    #[inline(always)]
    pub fn define(&mut self, n: usize, generation: u32, seed: u64) {
        if self.stamps[n] != generation {
            self.fill(n, generation, seed);
        }
    }

    #[cold]
    #[inline(never)]
    fn fill(&mut self, n: usize, generation: u32, seed: u64) {
        let mut p = Pattern(mix(seed ^ self.salt, n as u64));
        // Two lanes from each draw.
        for w in self.words[n * self.lanes..(n + 1) * self.lanes].chunks_mut(2) {
            let d = p.next();
            w[0] = d as u32;
            if let Some(hi) = w.get_mut(1) {
                *hi = (d >> 32) as u32;
            }
        }
        self.stamps[n] = generation;
    }

    /// Row `n`, which must be defined this generation ([`File::define`]).
    #[inline(always)]
    pub fn row(&self, n: usize) -> &[u32] {
        &self.words[n * self.lanes..(n + 1) * self.lanes]
    }

    /// Row `n` to write, after [`File::define`] (or to overwrite in every lane: [`File::whole`]).
    #[inline(always)]
    pub fn row_mut(&mut self, n: usize) -> &mut [u32] {
        &mut self.words[n * self.lanes..(n + 1) * self.lanes]
    }

    /// Row `n`, to be written in every lane: stamped without the pattern.
    #[inline(always)]
    pub fn whole(&mut self, n: usize, generation: u32) -> &mut [u32] {
        self.stamps[n] = generation;
        self.row_mut(n)
    }

    /// Rows `first..first + n` (defined: see [`File::define`]) to write.
    #[inline(always)]
    pub fn rows_mut(&mut self, first: usize, n: usize) -> &mut [u32] {
        &mut self.words[first * self.lanes..(first + n) * self.lanes]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_read_undefined_holds_the_pattern_of_its_generation_and_register() {
        let mut f = File::new(1);
        f.shape(4, WaveSize::Wave32);
        f.define(2, 1, 7);
        let first = f.row(2).to_vec();
        assert!(first.iter().any(|&w| w != 0));
        // Defined: a second read does not refill, a write sticks.
        f.row_mut(2)[0] = 5;
        f.define(2, 1, 7);
        assert_eq!(f.row(2)[0], 5);
        // Another register, another seed, another generation: another pattern.
        f.define(3, 1, 7);
        assert_ne!(f.row(3), &first[..]);
        f.define(2, 2, 8);
        assert_ne!(f.row(2), &first[..]);
        // A whole write stamps without filling.
        f.whole(1, 2).fill(9);
        f.define(1, 2, 8);
        assert_eq!(f.row(1), &[9; 32][..]);
        f.forget();
        f.define(1, 2, 8);
        assert_ne!(f.row(1), &[9; 32][..]);
    }
}
