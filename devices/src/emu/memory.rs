//! Global memory of the emulated device: the kernarg segment and the launch's buffers, each at its
//! own fake 64-bit address. Memory is dwords with relaxed atomic access, so workgroups running on
//! several host threads share it without locks; a GPU gives no stronger ordering between
//! workgroups either. An output buffer is worked on in place ([`Region::in_place`]): the kernel's
//! stores land in the launch's own bytes, with no copy in or out.

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

/// A region's dwords: its own copy, or the bytes of a buffer it works on in place.
#[derive(Debug)]
enum Words<'a> {
    Owned(Vec<AtomicU32>),
    InPlace(&'a [AtomicU32]),
}

/// One region: a name for messages, a base address and its dwords.
#[derive(Debug)]
pub struct Region<'a> {
    /// What the region is (`kernarg` or the buffer's name).
    pub name: String,
    /// Its first byte's address.
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    words: Words<'a>,
}

/// Whether `bytes` is whole dwords at a dword-aligned address.
fn whole_dwords(bytes: &[u8]) -> bool {
    bytes.len().is_multiple_of(4) && bytes.as_ptr().align_offset(4) == 0
}

/// `bytes` (see [`whole_dwords`]) as dwords that several threads may access.
fn atomic_words(bytes: &mut [u8]) -> &[AtomicU32] {
    assert!(whole_dwords(bytes), "whole, aligned dwords");
    let (ptr, len) = (bytes.as_mut_ptr(), bytes.len() / 4);
    // SAFETY: `ptr` is 4-aligned and points at `4 * len` initialised bytes; AtomicU32 has the
    // size and bit validity of u32 (any 4 bytes) and an alignment of 4. The exclusive borrow of
    // `bytes` lasts as long as the atomics, so nothing else reads or writes those bytes meanwhile.
    unsafe { std::slice::from_raw_parts(ptr.cast::<AtomicU32>(), len) }
}

impl Region<'static> {
    /// A region holding a copy of `bytes` (padded to whole dwords with zeros).
    pub fn new(name: impl Into<String>, base: u64, bytes: &[u8]) -> Region<'static> {
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
            words: Words::Owned(words),
        }
    }
}

impl<'a> Region<'a> {
    /// A region working on `bytes` in place (what the kernel stores lands in `bytes`), or on a
    /// copy when `bytes` is not whole, aligned dwords ([`Region::in_place`] says which; a copy's
    /// contents are read back with [`Region::bytes`]).
    pub fn over(name: impl Into<String>, base: u64, bytes: &'a mut [u8]) -> Region<'a> {
        if !whole_dwords(bytes) {
            return Region::new(name, base, bytes);
        }
        Region {
            name: name.into(),
            base,
            len: bytes.len() as u64,
            words: Words::InPlace(atomic_words(bytes)),
        }
    }

    /// Whether the region works on the caller's bytes (see [`Region::over`]).
    pub fn in_place(&self) -> bool {
        matches!(self.words, Words::InPlace(_))
    }

    fn words(&self) -> &[AtomicU32] {
        match &self.words {
            Words::Owned(w) => w,
            Words::InPlace(w) => w,
        }
    }

    /// The region's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let words = self.words();
        let mut out = vec![0u8; words.len() * 4];
        let copy =
            |(o, w): (&mut [u8], &AtomicU32)| o.copy_from_slice(&w.load(Relaxed).to_le_bytes());
        if out.len() >= PARALLEL_BYTES {
            out.par_chunks_exact_mut(4).zip(words).for_each(copy);
        } else {
            out.chunks_exact_mut(4).zip(words).for_each(copy);
        }
        out.truncate(self.len as usize);
        out
    }
}

/// The whole global address space of one launch.
#[derive(Debug)]
pub struct Memory<'a> {
    /// Kernarg first, then the buffers in order.
    pub regions: Vec<Region<'a>>,
}

/// A global access the device cannot perform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessError(pub String);

impl Memory<'_> {
    /// The region index and dword index of `[addr, addr + 4 * dwords)`, which must be
    /// dword-aligned and lie inside one region.
    #[inline]
    fn locate(&self, addr: u64, dwords: usize, what: &str) -> Result<(usize, usize), AccessError> {
        // Buffers sit BUFFER_STRIDE apart from BUFFER_BASE, in order after the kernarg segment:
        // try the one the address names first, then every region.
        let guess = (addr.wrapping_sub(BUFFER_BASE) / BUFFER_STRIDE).wrapping_add(1) as usize;
        let first = (guess < self.regions.len()).then_some(guess).into_iter();
        for k in first.chain(0..self.regions.len()) {
            let r = &self.regions[k];
            let off = addr.wrapping_sub(r.base);
            if off < BUFFER_STRIDE {
                if off.is_multiple_of(4) && off + 4 * dwords as u64 <= 4 * r.words().len() as u64 {
                    return Ok((k, (off / 4) as usize));
                }
                return Err(fault(r, addr, off, dwords, what));
            }
        }
        Err(AccessError(format!(
            "{what} of {} bytes at {addr:#x} is not in any buffer of the launch",
            4 * dwords
        )))
    }

    /// The base address and dwords of the region `addr` falls in (whether or not an access there
    /// is in bounds), if any.
    #[inline]
    pub fn region_at(&self, addr: u64) -> Option<(u64, &[AtomicU32])> {
        let guess = (addr.wrapping_sub(BUFFER_BASE) / BUFFER_STRIDE).wrapping_add(1) as usize;
        let first = (guess < self.regions.len()).then_some(guess).into_iter();
        first
            .chain(0..self.regions.len())
            .map(|k| &self.regions[k])
            .find(|r| addr.wrapping_sub(r.base) < BUFFER_STRIDE)
            .map(|r| (r.base, r.words()))
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
        let (words, i) = self.locate_near(hint, addr, out.len(), what)?;
        for (o, w) in out.iter_mut().zip(&words[i..]) {
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
        let (words, i) = self.locate_near(hint, addr, data.len(), what)?;
        for (&d, w) in data.iter().zip(&words[i..]) {
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
    ) -> Result<(&[AtomicU32], usize), AccessError> {
        if let Some(r) = self.regions.get(*hint) {
            let off = addr.wrapping_sub(r.base);
            let words = r.words();
            if off.is_multiple_of(4) && off + 4 * dwords as u64 <= 4 * words.len() as u64 {
                return Ok((words, (off / 4) as usize));
            }
        }
        let (k, i) = self.locate(addr, dwords, what)?;
        *hint = k;
        Ok((self.regions[k].words(), i))
    }

    /// Reads `out.len()` dwords at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u32], what: &str) -> Result<(), AccessError> {
        let (k, i) = self.locate(addr, out.len(), what)?;
        for (o, w) in out.iter_mut().zip(&self.regions[k].words()[i..]) {
            *o = w.load(Relaxed);
        }
        Ok(())
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u32], what: &str) -> Result<(), AccessError> {
        let (k, i) = self.locate(addr, data.len(), what)?;
        for (&d, w) in data.iter().zip(&self.regions[k].words()[i..]) {
            w.store(d, Relaxed);
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

    #[test]
    fn a_region_over_whole_dwords_works_in_place() {
        let mut bytes = vec![0xefu8, 0xbe, 0xad, 0xde, 0, 0, 0, 0];
        {
            let mem = Memory {
                regions: vec![Region::over("out", BUFFER_BASE, &mut bytes)],
            };
            assert!(mem.regions[0].in_place());
            mem.write(BUFFER_BASE + 4, &[0x0403_0201], "store").unwrap();
            let mut w = [0; 1];
            mem.read(BUFFER_BASE, &mut w, "load").unwrap();
            assert_eq!(w, [0xdead_beef]);
        }
        assert_eq!(bytes, [0xef, 0xbe, 0xad, 0xde, 1, 2, 3, 4]);
        // Not whole dwords: a copy, padded, read back with bytes().
        let mut odd = vec![1u8, 2, 3, 4, 5];
        let mem = Memory {
            regions: vec![Region::over("odd", BUFFER_BASE, &mut odd)],
        };
        assert!(!mem.regions[0].in_place());
        mem.write(BUFFER_BASE + 4, &[0x0908_0706], "store").unwrap();
        assert_eq!(mem.regions[0].bytes(), [1, 2, 3, 4, 6]);
        drop(mem);
        assert_eq!(odd, [1, 2, 3, 4, 5]);
    }
}
