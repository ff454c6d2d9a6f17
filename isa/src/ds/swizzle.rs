//! The 16-bit offset of `ds_swizzle_b32` as a lane pattern, and LLVM's `swizzle(...)` macros.
//!
//! Modes (RDNA3 ISA guide, DS_SWIZZLE_B32): offset[15] = 0 is the bit-mask mode (and, or and xor
//! masks of 5 bits at [4:0], [9:5], [14:10], within groups of 32 lanes); offset[15:8] = 0x80 is the
//! quad-permute mode (four 2-bit selectors at [7:0]); offsets from 0xC000 select rotate and from
//! 0xE000 FFT. LLVM 19 and 22 both name the bit-mask and quad modes with `swizzle(QUAD_PERM,..)`,
//! `swizzle(BITMASK_PERM,"..")`, `swizzle(BROADCAST,..)`, `swizzle(SWAP,..)` and
//! `swizzle(REVERSE,..)`.
//!
//! The one place the two LLVMs print differently: LLVM 22 also names the 16384 offsets from 0xC000
//! as `swizzle(ROTATE,dir,n)` (0xC000 | dir << 10 | n << 5) and `swizzle(FFT,n)` (0xE000 | n),
//! where LLVM 19 prints the plain number. LLVM 22's macro drops the offset bits it does not
//! carry (0xC001 prints as `swizzle(ROTATE,0,0)`, which reads back as 0xC000), so [`print`]
//! follows LLVM 19 (`offset:49153`: every offset prints as text that reads back to it), and
//! [`parse`] reads both, with LLVM 22's ranges and bytes (`reference/tests/llvm_oracle.rs`
//! checks each against the LLVM that prints it).

/// Bits [4:0] of a bit-mask pattern: the and mask; [9:5] or; [14:10] xor.
const MASK: u16 = 0x1f;
const OR_SHIFT: u16 = 5;
const XOR_SHIFT: u16 = 10;
const QUAD_PERM: u16 = 0x8000;
/// `swizzle(ROTATE,dir,n)`: 0xC000 | dir << 10 | n << 5 (LLVM 22).
const ROTATE: u16 = 0xc000;
/// `swizzle(FFT,n)`: 0xE000 | n (LLVM 22).
const FFT: u16 = 0xe000;

/// A decoded swizzle pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// offset[15] = 0: lane `((i & and) | or) ^ xor` within each group of 32 lanes.
    BitMask { and: u8, or: u8, xor: u8 },
    /// offset[15:8] = 0x80: lane `4 * (i / 4) + sel[i % 4]`.
    QuadPerm([u8; 4]),
    /// 0xC000 <= offset < 0xE000: rotate by offset[9:5] lanes (right when offset[10] is set),
    /// keeping the bits of offset[4:0]. LLVM 22's `swizzle(ROTATE,..)`; a plain number in LLVM 19.
    Rotate { amount: u8, right: bool, mask: u8 },
    /// offset >= 0xE000: FFT butterfly with mask offset[4:0]. LLVM 22's `swizzle(FFT,..)`; a plain
    /// number in LLVM 19.
    Fft { mask: u8 },
    /// Any other offset with bit 15 set (0x8100..=0xBFFF): no documented mode.
    Undefined(u16),
}

impl Pattern {
    /// Decodes a 16-bit swizzle offset.
    pub fn decode(offset: u16) -> Pattern {
        if offset & 0x8000 == 0 {
            Pattern::BitMask {
                and: (offset & MASK) as u8,
                or: ((offset >> OR_SHIFT) & MASK) as u8,
                xor: ((offset >> XOR_SHIFT) & MASK) as u8,
            }
        } else if offset & 0xff00 == QUAD_PERM {
            Pattern::QuadPerm(std::array::from_fn(|i| ((offset >> (2 * i)) & 3) as u8))
        } else if offset >= FFT {
            Pattern::Fft {
                mask: (offset & MASK) as u8,
            }
        } else if offset >= ROTATE {
            Pattern::Rotate {
                amount: ((offset >> 5) & MASK) as u8,
                right: offset & (1 << 10) != 0,
                mask: (offset & MASK) as u8,
            }
        } else {
            Pattern::Undefined(offset)
        }
    }
}

/// The `offset:` text LLVM 19 prints for a swizzle offset, without the `offset:` prefix (LLVM 22
/// differs from 0xC000 up: see the module docs); `None` for 0, which is not printed at all.
pub fn print(offset: u16) -> Option<String> {
    if offset == 0 {
        return None;
    }
    Some(match Pattern::decode(offset) {
        Pattern::QuadPerm(sel) => {
            format!(
                "swizzle(QUAD_PERM,{},{},{},{})",
                sel[0], sel[1], sel[2], sel[3]
            )
        }
        Pattern::BitMask { and, or, xor } => {
            let (and, or, xor) = (u16::from(and), u16::from(or), u16::from(xor));
            if and == MASK && or == 0 && xor.count_ones() == 1 {
                format!("swizzle(SWAP,{xor})")
            } else if and == MASK && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
                format!("swizzle(REVERSE,{})", xor + 1)
            } else {
                let group = MASK - and + 1;
                if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
                    format!("swizzle(BROADCAST,{group},{or})")
                } else {
                    format!("swizzle(BITMASK_PERM,\"{}\")", bitmask_string(and, or, xor))
                }
            }
        }
        _ => offset.to_string(),
    })
}

/// The five-character `0`/`1`/`p`/`i` form of a bit-mask pattern, most significant bit first:
/// what each bit of the source lane is when the lane's own bit is 0 and when it is 1.
fn bitmask_string(and: u16, or: u16, xor: u16) -> String {
    let probe0 = or ^ xor;
    let probe1 = (MASK & and | or) ^ xor;
    (0..5)
        .rev()
        .map(|bit| {
            let (p0, p1) = (probe0 >> bit & 1, probe1 >> bit & 1);
            match (p0 == p1, p0) {
                (true, 0) => '0',
                (true, _) => '1',
                (false, 0) => 'p',
                (false, _) => 'i',
            }
        })
        .collect()
}

/// Parses the inside of `swizzle(...)` (the text between the parentheses) into a 16-bit offset.
pub fn parse(args: &str) -> Result<u16, String> {
    let parts: Vec<&str> = args.split(',').map(str::trim).collect();
    let nums = |want: usize| -> Result<Vec<u32>, String> {
        if parts.len() != want + 1 {
            return Err(format!(
                "swizzle({}) takes {want} argument(s) after the mode, found {}",
                parts[0],
                parts.len() - 1
            ));
        }
        parts[1..]
            .iter()
            .map(|p| {
                crate::text::parse_int(p)
                    .ok_or_else(|| format!("`{p}` is not a number in swizzle({})", parts[0]))
            })
            .collect()
    };
    match parts[0] {
        "QUAD_PERM" => {
            let sel = nums(4)?;
            if let Some(bad) = sel.iter().find(|&&s| s > 3) {
                return Err(format!("QUAD_PERM lane selectors are 0..=3, found {bad}"));
            }
            Ok(QUAD_PERM
                | sel
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| (s as u16) << (2 * i))
                    .sum::<u16>())
        }
        "BITMASK_PERM" => {
            if parts.len() != 2 {
                return Err(
                    "swizzle(BITMASK_PERM,\"xxxxx\") takes one quoted 5-character mask".into(),
                );
            }
            let mask = parts[1]
                .strip_prefix('"')
                .and_then(|m| m.strip_suffix('"'))
                .filter(|m| m.len() == 5)
                .ok_or("BITMASK_PERM takes a quoted 5-character mask of 0, 1, p and i")?;
            let (mut and, mut or, mut xor) = (0u16, 0u16, 0u16);
            for (i, c) in mask.chars().enumerate() {
                let bit = 1 << (4 - i);
                match c {
                    '0' => {}
                    '1' => or |= bit,
                    'p' => and |= bit,
                    'i' => {
                        and |= bit;
                        xor |= bit
                    }
                    _ => {
                        return Err(format!(
                            "BITMASK_PERM mask characters are 0, 1, p, i; found `{c}`"
                        ))
                    }
                }
            }
            Ok(and | or << OR_SHIFT | xor << XOR_SHIFT)
        }
        "SWAP" => {
            let n = nums(1)?[0];
            if !(1..=16).contains(&n) || !n.is_power_of_two() {
                return Err(format!(
                    "SWAP group size is a power of two from 1 to 16, found {n}"
                ));
            }
            Ok(MASK | (n as u16) << XOR_SHIFT)
        }
        "REVERSE" => {
            let n = nums(1)?[0];
            if !(2..=32).contains(&n) || !n.is_power_of_two() {
                return Err(format!(
                    "REVERSE group size is a power of two from 2 to 32, found {n}"
                ));
            }
            Ok(MASK | ((n - 1) as u16) << XOR_SHIFT)
        }
        "BROADCAST" => {
            let v = nums(2)?;
            let (size, lane) = (v[0], v[1]);
            if !(2..=32).contains(&size) || !size.is_power_of_two() {
                return Err(format!(
                    "BROADCAST group size is a power of two from 2 to 32, found {size}"
                ));
            }
            if lane >= size {
                return Err(format!(
                    "BROADCAST lane {lane} is outside the group of {size}"
                ));
            }
            Ok((MASK - (size as u16 - 1)) | (lane as u16) << OR_SHIFT)
        }
        "ROTATE" => {
            let v = nums(2)?;
            let (dir, n) = (v[0], v[1]);
            if dir > 1 {
                return Err(format!(
                    "ROTATE direction is 0 (left) or 1 (right), found {dir}"
                ));
            }
            if n > u32::from(MASK) {
                return Err(format!("ROTATE lane count is 0..=31, found {n}"));
            }
            Ok(ROTATE | (dir as u16) << XOR_SHIFT | (n as u16) << OR_SHIFT)
        }
        "FFT" => {
            let n = nums(1)?[0];
            if n > u32::from(MASK) {
                return Err(format!("FFT swizzle is 0..=31, found {n}"));
            }
            Ok(FFT | n as u16)
        }
        other => Err(format!(
            "unknown swizzle mode `{other}`: LLVM knows QUAD_PERM, BITMASK_PERM, BROADCAST, SWAP, \
             REVERSE (and, from LLVM 22, ROTATE and FFT)"
        )),
    }
}
