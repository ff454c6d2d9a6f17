//! Global memory of the emulated device: the kernarg segment and the launch's buffers, each at its
//! own fake 64-bit address. Memory is dwords with relaxed atomic access, so workgroups running on
//! several host threads share it without locks; a GPU gives no stronger ordering between
//! workgroups either.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Buffers at least this long are copied in and out on the rayon pool.
const PARALLEL_BYTES: usize = 1 << 16;

/// Where the kernarg segment sits.
pub const KERNARG_BASE: u64 = 0x0000_7f00_0000_0000;
/// Where buffer 0 sits; buffer i is `BUFFER_STRIDE` further per index. The low half is
/// 0xffff_f000, so a kernel's 64-bit address arithmetic must carry into the high half for every
/// byte past the first 4 KiB of a buffer (as it must for wherever a GPU driver places buffers).
pub const BUFFER_BASE: u64 = 0x0000_1000_ffff_f000;
/// Distance between buffers (so an address names its buffer and offset unambiguously).
pub const BUFFER_STRIDE: u64 = 0x0000_0001_0000_0000;

/// One region: a name for messages, a base address and its dwords.
#[derive(Debug)]
pub struct Region {
    /// What the region is (`kernarg` or the buffer's name).
    pub name: String,
    /// Its first byte's address.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    words: Vec<AtomicU32>,
}

impl Region {
    /// A region holding `bytes` (padded to whole dwords with zeros).
    pub fn new(name: impl Into<String>, base: u64, bytes: &[u8]) -> Region {
        let whole = bytes.chunks_exact(4);
        let tail = whole.remainder();
        let word = |c: &[u8]| AtomicU32::new(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut words: Vec<AtomicU32> = if bytes.len() >= PARALLEL_BYTES {
            bytes.par_chunks_exact(4).map(word).collect()
        } else {
            whole.map(word).collect()
        };
        if !tail.is_empty() {
            let mut w = [0u8; 4];
            w[..tail.len()].copy_from_slice(tail);
            words.push(AtomicU32::new(u32::from_le_bytes(w)));
        }
        Region {
            name: name.into(),
            base,
            len: bytes.len() as u64,
            words,
        }
    }

    /// The region's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.words.len() * 4];
        let copy =
            |(o, w): (&mut [u8], &AtomicU32)| o.copy_from_slice(&w.load(Relaxed).to_le_bytes());
        if out.len() >= PARALLEL_BYTES {
            out.par_chunks_exact_mut(4).zip(&self.words).for_each(copy);
        } else {
            out.chunks_exact_mut(4).zip(&self.words).for_each(copy);
        }
        out.truncate(self.len as usize);
        out
    }
}

/// The whole global address space of one launch.
#[derive(Debug)]
pub struct Memory {
    /// Kernarg first, then the buffers in order.
    pub regions: Vec<Region>,
}

/// A global access the device cannot perform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessError(pub String);

impl Memory {
    /// The region and dword index of `[addr, addr + 4 * dwords)`, which must be dword-aligned and
    /// lie inside one region.
    #[inline]
    fn locate(
        &self,
        addr: u64,
        dwords: usize,
        what: &str,
    ) -> Result<(&Region, usize), AccessError> {
        // Buffers sit BUFFER_STRIDE apart from BUFFER_BASE, in order after the kernarg segment:
        // try the one the address names first, then every region.
        let guess = (addr.wrapping_sub(BUFFER_BASE) / BUFFER_STRIDE).wrapping_add(1) as usize;
        let first = self.regions.get(guess).into_iter();
        for r in first.chain(&self.regions) {
            let off = addr.wrapping_sub(r.base);
            if off < BUFFER_STRIDE {
                if off.is_multiple_of(4) && off + 4 * dwords as u64 <= 4 * r.words.len() as u64 {
                    return Ok((r, (off / 4) as usize));
                }
                return Err(fault(r, addr, off, dwords, what));
            }
        }
        Err(AccessError(format!(
            "{what} of {} bytes at {addr:#x} is not in any buffer of the launch",
            4 * dwords
        )))
    }

    /// [`Self::read`] for many accesses in a row that mostly hit one region (the lanes of one
    /// instruction): `hint` remembers the region of the last access.
    #[inline]
    pub fn read_near(
        &self,
        hint: &mut usize,
        addr: u64,
        out: &mut [u32],
        what: &str,
    ) -> Result<(), AccessError> {
        let (r, i) = self.locate_near(hint, addr, out.len(), what)?;
        for (o, w) in out.iter_mut().zip(&r.words[i..]) {
            *o = w.load(Relaxed);
        }
        Ok(())
    }

    /// [`Self::write`] with a region hint (see [`Self::read_near`]).
    #[inline]
    pub fn write_near(
        &self,
        hint: &mut usize,
        addr: u64,
        data: &[u32],
        what: &str,
    ) -> Result<(), AccessError> {
        let (r, i) = self.locate_near(hint, addr, data.len(), what)?;
        for (&d, w) in data.iter().zip(&r.words[i..]) {
            w.store(d, Relaxed);
        }
        Ok(())
    }

    #[inline]
    fn locate_near(
        &self,
        hint: &mut usize,
        addr: u64,
        dwords: usize,
        what: &str,
    ) -> Result<(&Region, usize), AccessError> {
        if let Some(r) = self.regions.get(*hint) {
            let off = addr.wrapping_sub(r.base);
            if off.is_multiple_of(4) && off + 4 * dwords as u64 <= 4 * r.words.len() as u64 {
                return Ok((r, (off / 4) as usize));
            }
        }
        let (r, i) = self.locate(addr, dwords, what)?;
        *hint = self
            .regions
            .iter()
            .position(|x| std::ptr::eq(x, r))
            .unwrap_or(0);
        Ok((r, i))
    }

    /// Reads `out.len()` dwords at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u32], what: &str) -> Result<(), AccessError> {
        let (r, i) = self.locate(addr, out.len(), what)?;
        for (k, o) in out.iter_mut().enumerate() {
            *o = r.words[i + k].load(Relaxed);
        }
        Ok(())
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u32], what: &str) -> Result<(), AccessError> {
        let (r, i) = self.locate(addr, data.len(), what)?;
        for (k, &d) in data.iter().enumerate() {
            r.words[i + k].store(d, Relaxed);
        }
        Ok(())
    }
}

/// Why an access at byte `off` of region `r` fails (kept out of the hot path).
#[cold]
fn fault(r: &Region, addr: u64, off: u64, dwords: usize, what: &str) -> AccessError {
    if !off.is_multiple_of(4) {
        return AccessError(format!(
            "{what} at {addr:#x} ({} + {off}) is not dword-aligned",
            r.name
        ));
    }
    AccessError(format!(
        "{what} of {} bytes at byte {off} of buffer `{}` runs past its end ({} bytes)",
        4 * dwords,
        r.name,
        r.len
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_are_bounds_checked_by_buffer() {
        let mem = Memory {
            regions: vec![Region::new("out", BUFFER_BASE, &[1, 0, 0, 0, 2, 0, 0, 0])],
        };
        let mut w = [0; 2];
        mem.read(BUFFER_BASE, &mut w, "load").unwrap();
        assert_eq!(w, [1, 2]);
        mem.write(BUFFER_BASE + 4, &[9], "store").unwrap();
        assert_eq!(mem.regions[0].bytes(), [1, 0, 0, 0, 9, 0, 0, 0]);
        let e = mem.write(BUFFER_BASE + 8, &[9], "store").unwrap_err();
        assert!(e.0.contains("buffer `out`"), "{e:?}");
        assert!(mem.read(BUFFER_BASE + 2, &mut w, "load").is_err());
        assert!(mem.read(0x1234, &mut w, "load").is_err());
    }
}
