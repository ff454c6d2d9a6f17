//! Byte-addressed LDS access with the model's out-of-range rule: every byte is checked on its own
//! against the allocation, a byte at or past the end reads as 0 and a write to it is dropped.
//!
//! Sources: RDNA3 ISA guide, chapter "Data Share Operations" (LDS accesses are checked against the
//! workgroup's allocation; out-of-range reads return 0, out-of-range writes are discarded). Byte
//! granularity for accesses that straddle the end and unaligned addresses (gfx11 LDS runs in
//! unaligned mode under ROCm, LLVM AMDGPUUsage "unaligned-access-mode") are the model's documented
//! choices: see `reference/ASSUMPTIONS.md`, questions A1 and A2.

/// Where byte `k` of an access at final address `at` lives: `at + k` computed without wrapping.
///
/// The one rule for every access of more than one byte (ASSUMPTIONS.md A3): the address of the
/// access (`ADDR + offset`) wraps at 2^32, the bytes of the access never do. A byte at or past
/// 2^32 is beyond every allocation, so it reads as 0 and a write to it is dropped, exactly like a
/// byte past the end of the allocation (A1). Multi-dword loads and stores, each element of the
/// pair forms and the 64-bit atomics all reach memory through this function.
#[inline(always)]
pub fn byte_address(at: u32, k: u32) -> u64 {
    u64::from(at) + u64::from(k)
}

/// The index of byte `k` of an access at `at` in `mem`, if it is inside the allocation.
#[inline(always)]
fn slot(mem_len: usize, at: u32, k: u32) -> Option<usize> {
    usize::try_from(byte_address(at, k))
        .ok()
        .filter(|&i| i < mem_len)
}

/// Reads `N` bytes at `at` (the final 32-bit address; the bytes do not wrap past 2^32, see
/// [`byte_address`]). Bytes outside `mem` read as zero.
#[inline(always)]
pub fn read<const N: usize>(mem: &[u8], at: u32) -> [u8; N] {
    let i = at as usize;
    match mem.get(i..i.saturating_add(N)) {
        Some(s) => s.try_into().expect("N bytes"),
        None => std::array::from_fn(|k| slot(mem.len(), at, k as u32).map_or(0, |i| mem[i])),
    }
}

/// Writes `bytes` at `at` (the bytes do not wrap past 2^32); bytes outside `mem` are dropped.
#[inline(always)]
pub fn write<const N: usize>(mem: &mut [u8], at: u32, bytes: [u8; N]) {
    let i = at as usize;
    match mem.get_mut(i..i.saturating_add(N)) {
        Some(s) => s.copy_from_slice(&bytes),
        None => {
            for (k, b) in bytes.into_iter().enumerate() {
                if let Some(i) = slot(mem.len(), at, k as u32) {
                    mem[i] = b;
                }
            }
        }
    }
}

/// Dword `k` of a multi-dword access at `at` (bytes `at + 4k ..`, not wrapping past 2^32).
#[inline(always)]
pub fn read_dword(mem: &[u8], at: u32, k: u32) -> u32 {
    match at.checked_add(4 * k) {
        Some(a) => read_u32(mem, a),
        // The dword starts at or past 2^32: out of range as a whole.
        None => 0,
    }
}

/// Stores dword `k` of a multi-dword access at `at` (not wrapping past 2^32).
#[inline(always)]
pub fn write_dword(mem: &mut [u8], at: u32, k: u32, v: u32) {
    if let Some(a) = at.checked_add(4 * k) {
        write_u32(mem, a, v);
    }
}

/// The little-endian dword at `at`.
#[inline(always)]
pub fn read_u32(mem: &[u8], at: u32) -> u32 {
    u32::from_le_bytes(read::<4>(mem, at))
}

/// Stores a little-endian dword at `at`.
#[inline(always)]
pub fn write_u32(mem: &mut [u8], at: u32, v: u32) {
    write::<4>(mem, at, v.to_le_bytes())
}

/// The little-endian qword at `at`.
#[inline(always)]
pub fn read_u64(mem: &[u8], at: u32) -> u64 {
    u64::from_le_bytes(read::<8>(mem, at))
}

/// Stores a little-endian qword at `at`.
#[inline(always)]
pub fn write_u64(mem: &mut [u8], at: u32, v: u64) {
    write::<8>(mem, at, v.to_le_bytes())
}

/// Reads an element of `bytes` (1, 2, 4 or 8) zero-extended.
#[inline(always)]
pub fn read_elem(mem: &[u8], at: u32, bytes: u32) -> u64 {
    match bytes {
        1 => u64::from(read::<1>(mem, at)[0]),
        2 => u64::from(u16::from_le_bytes(read::<2>(mem, at))),
        4 => u64::from(read_u32(mem, at)),
        _ => read_u64(mem, at),
    }
}

/// Writes the low `bytes` (1, 2, 4 or 8) of `v`.
#[inline(always)]
pub fn write_elem(mem: &mut [u8], at: u32, bytes: u32, v: u64) {
    match bytes {
        1 => write::<1>(mem, at, [v as u8]),
        2 => write::<2>(mem, at, (v as u16).to_le_bytes()),
        4 => write_u32(mem, at, v as u32),
        _ => write_u64(mem, at, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_are_zero_per_byte() {
        let mem = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        assert_eq!(read_u32(&mem, 4), 0x8877_6655);
        // Straddles the end: bytes 6 and 7 exist, 8 and 9 do not.
        assert_eq!(read_u32(&mem, 6), 0x0000_8877);
        assert_eq!(read_u32(&mem, 8), 0);
        assert_eq!(read_u32(&mem, u32::MAX), 0);
    }

    #[test]
    fn the_bytes_of_one_access_never_wrap_past_2_32() {
        let mut mem = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        // 0xfffffffe + 2 would be byte 0 if the bytes wrapped: they do not.
        assert_eq!(read_u32(&mem, 0xffff_fffe), 0);
        assert_eq!(read_u64(&mem, 0xffff_fffc), 0);
        assert_eq!(read_dword(&mem, 0xffff_fffc, 1), 0);
        write_u64(&mut mem, 0xffff_fffc, u64::MAX);
        write_dword(&mut mem, 0xffff_fff8, 2, u32::MAX);
        assert_eq!(mem, [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
        assert_eq!(byte_address(u32::MAX, 1), 1 << 32);
    }

    #[test]
    fn writes_past_the_end_are_dropped_per_byte() {
        let mut mem = [0u8; 8];
        write_u32(&mut mem, 6, 0xaabb_ccdd);
        assert_eq!(mem, [0, 0, 0, 0, 0, 0, 0xdd, 0xcc]);
        write_u64(&mut mem, 8, u64::MAX);
        assert_eq!(mem, [0, 0, 0, 0, 0, 0, 0xdd, 0xcc]);
    }

    #[test]
    fn unaligned_access_is_byte_exact() {
        let mut mem = [0u8; 8];
        write_u32(&mut mem, 1, 0x0403_0201);
        assert_eq!(mem, [0, 1, 2, 3, 4, 0, 0, 0]);
        assert_eq!(read_elem(&mem, 3, 2), 0x0403);
    }
}
