//! The src2 atomics of gfx9 before CDNA 2 and RDNA 1 (`ds_add_src2_u32` ... `ds_max_src2_f64`):
//! both operands of the update come from LDS, the second from an address derived from ADDR and
//! the instruction's offset.
//!
//! Source: AMD "Vega" Instruction Set Architecture Reference Guide, chapter 12 "Instructions",
//! section "LDS & GDS instructions" (DS_ADD_SRC2_U32 and the rest of the src2 rows), and AMD
//! "RDNA 1.0" ISA guide, the same rows of its LDS & GDS opcode list: `A = ADDR_BASE;
//! B = A + 4*(offset1[7] ? {A[31],A[31:17]} : {offset1[6],offset1[6:0],offset0});
//! MEM[A] = MEM[A] op MEM[B]` (gem5's Vega decoder, which parses that guide's text, reads the
//! same two lines). What the guides leave open (ADDR_BASE without the offset, the 16-bit quantity
//! sign-extended, the factor 4 for the 64-bit forms, the lane order) is ASSUMPTIONS.md S1-S4,
//! each with the case that settles it.

use super::readings::Rules;
use super::{mem, rmw};
use crate::wave::FpMode;
use ds_isa::ds::{Elem, Rmw};

/// The second operand's address `B` of a lane whose ADDR is `a`, for the instruction's 16-bit
/// offset `{offset1, offset0}`: `a + 4 * k` where `k` is, with offset bit 15 (offset1[7]) set,
/// `{A[31], A[31:17]}`, else `{offset1[6], offset1[6:0], offset0}` (offset bits 14:0 with bit 14
/// doubled), each 16-bit quantity sign-extended (ASSUMPTIONS.md S2), wrapping at 2^32.
#[inline(always)]
pub fn second_address(a: u32, offset: u16) -> u32 {
    let k: i32 = if offset & 0x8000 != 0 {
        // {A[31], A[31:17]}: A[31:17] with its top bit doubled, as a signed 16-bit number.
        (a as i32) >> 17
    } else {
        // {offset1[6], offset1[6:0], offset0}: offset[14:0] with bit 14 doubled.
        (i32::from(offset) << 17) >> 17
    };
    a.wrapping_add(k.wrapping_mul(4) as u32)
}

/// One active lane: `MEM[A] = op(MEM[A], MEM[B])` over elements of `elem` (4 or 8 bytes), with
/// `A` the lane's ADDR (ASSUMPTIONS.md S1) and `B` [`second_address`]. No register is written.
#[inline(always)]
pub fn step(op: Rmw, elem: Elem, mode: FpMode, rules: Rules, a: u32, offset: u16, mem: &mut [u8]) {
    let eb = elem.bytes();
    let b = second_address(a, offset);
    let src = mem::read_elem(mem, b, eb);
    let old = mem::read_elem(mem, a, eb);
    let new = rmw::update(op, elem, mode, rules, old, src & rmw::mask(eb), 0);
    mem::write_elem(mem, a, eb, new);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::Elem;

    /// A little LDS with dword `i` = `words[i]`.
    fn lds(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn word(mem: &[u8], i: usize) -> u32 {
        u32::from_le_bytes(mem[4 * i..4 * i + 4].try_into().unwrap())
    }

    #[test]
    fn the_second_address_follows_the_guides_formula() {
        // Offset bit 15 clear: 4 x offset[14:0], bit 14 the sign.
        assert_eq!(second_address(0x100, 0x0000), 0x100);
        assert_eq!(second_address(0x100, 0x0001), 0x104);
        assert_eq!(second_address(0x100, 0x0103), 0x100 + 4 * 0x103);
        assert_eq!(second_address(0x100, 0x3fff), 0x100 + 4 * 0x3fff);
        // 0x7fff: bit 14 set, {1, 0x7fff} = 0xffff = -1: one dword down.
        assert_eq!(second_address(0x100, 0x7fff), 0xfc);
        assert_eq!(
            second_address(0x100, 0x4000),
            0x100u32.wrapping_sub(4 * 0x4000)
        );
        assert_eq!(second_address(0, 0x7ffe), 0u32.wrapping_sub(8));
        // Offset bit 15 set: the rest of the offset is ignored, k = A[31:17] sign-extended.
        assert_eq!(second_address(0x100, 0x8000), 0x100);
        assert_eq!(second_address(0x100, 0xffff), 0x100);
        assert_eq!(second_address(0x0006_0010, 0x8000), 0x0006_0010 + 4 * 3);
        assert_eq!(
            second_address(0x8000_0000, 0x8000),
            0x8000_0000 - 4 * 0x4000
        );
        assert_eq!(second_address(0xffff_fffc, 0x8123), 0xffff_fffc - 4);
    }

    #[test]
    fn hand_computed_updates() {
        let mode = FpMode::default();
        // ds_add_src2_u32 at A = 4, offset 2: B = 12. 7 + 30 = 37.
        let mut m = lds(&[0, 7, 0, 30]);
        step(Rmw::Add, Elem::U32, mode, Rules::MODEL, 4, 2, &mut m);
        assert_eq!((word(&m, 1), word(&m, 3)), (37, 30));
        // rsub: MEM[B] - MEM[A] = 30 - 7; sub: 7 - 30 wraps.
        let mut m = lds(&[0, 7, 0, 30]);
        step(Rmw::Rsub, Elem::U32, mode, Rules::MODEL, 4, 2, &mut m);
        assert_eq!(word(&m, 1), 23);
        let mut m = lds(&[0, 7, 0, 30]);
        step(Rmw::Sub, Elem::U32, mode, Rules::MODEL, 4, 2, &mut m);
        assert_eq!(word(&m, 1), 7u32.wrapping_sub(30));
        // inc wraps at MEM[B]: 7 >= 7 gives 0; dec from 0 gives MEM[B].
        let mut m = lds(&[7, 7]);
        step(Rmw::Inc, Elem::U32, mode, Rules::MODEL, 0, 1, &mut m);
        assert_eq!(word(&m, 0), 0);
        let mut m = lds(&[0, 9]);
        step(Rmw::Dec, Elem::U32, mode, Rules::MODEL, 0, 1, &mut m);
        assert_eq!(word(&m, 0), 9);
        // signed min: -2 < 5.
        let mut m = lds(&[5, (-2i32) as u32]);
        step(Rmw::Min, Elem::I32, mode, Rules::MODEL, 0, 1, &mut m);
        assert_eq!(word(&m, 0), (-2i32) as u32);
        // write_src2 copies MEM[B] to MEM[A]; a negative offset reaches below A.
        let mut m = lds(&[0xaaaa, 0xbbbb]);
        step(Rmw::Xchg, Elem::B32, mode, Rules::MODEL, 4, 0x7fff, &mut m);
        assert_eq!((word(&m, 0), word(&m, 1)), (0xaaaa, 0xaaaa));
        // f32 add: 1.5 + 2.25.
        let mut m = lds(&[1.5f32.to_bits(), 2.25f32.to_bits()]);
        step(Rmw::Add, Elem::F32, mode, Rules::MODEL, 0, 1, &mut m);
        assert_eq!(f32::from_bits(word(&m, 0)), 3.75);
        // 64-bit: B = A + 4 x offset (the guide's factor, S3), here offset 2 = one qword up.
        let mut m = lds(&[1, 1, 0xffff_ffff, 0]);
        step(Rmw::Add, Elem::U64, mode, Rules::MODEL, 0, 2, &mut m);
        assert_eq!((word(&m, 0), word(&m, 1)), (0, 2));
        // B out of range reads 0: add leaves MEM[A]; min_u32 with 0 gives 0.
        let mut m = lds(&[5]);
        step(Rmw::Add, Elem::U32, mode, Rules::MODEL, 0, 0x100, &mut m);
        assert_eq!(word(&m, 0), 5);
        step(Rmw::Min, Elem::U32, mode, Rules::MODEL, 0, 0x100, &mut m);
        assert_eq!(word(&m, 0), 0);
        // A out of range: nothing is written.
        let mut m = lds(&[5, 6]);
        step(
            Rmw::Xchg,
            Elem::B32,
            mode,
            Rules::MODEL,
            0x40,
            0x7ff0,
            &mut m,
        );
        assert_eq!(m, lds(&[5, 6]));
    }

    #[test]
    fn offset_zero_doubles_the_element() {
        // B = A: MEM[A] op MEM[A] (add doubles, xor clears, write keeps) for every A.
        for a in (0..64u32).step_by(4) {
            let words: Vec<u32> = (0..17)
                .map(|i| 0x0101_0101u32.wrapping_mul(i + 1))
                .collect();
            let i = (a / 4) as usize;
            let mut m = lds(&words);
            step(
                Rmw::Add,
                Elem::U32,
                FpMode::default(),
                Rules::MODEL,
                a,
                0,
                &mut m,
            );
            assert_eq!(word(&m, i), words[i].wrapping_mul(2));
            step(
                Rmw::Xor,
                Elem::U32,
                FpMode::default(),
                Rules::MODEL,
                a,
                0,
                &mut m,
            );
            assert_eq!(word(&m, i), 0);
            let mut m = lds(&words);
            step(
                Rmw::Xchg,
                Elem::B32,
                FpMode::default(),
                Rules::MODEL,
                a,
                0,
                &mut m,
            );
            assert_eq!(m, lds(&words));
        }
    }

    #[test]
    fn the_offset_is_a_signed_dword_count_and_bit_15_takes_it_from_the_address() {
        // Property over every offset: B - A is 4 x a number in -2^14 .. 2^14 (bit 15 clear), or
        // 4 x A[31:17] sign-extended (bit 15 set, whatever the low bits).
        for a in [0u32, 4, 0x1234_5678, 0x8000_0000, 0xffff_fff0] {
            for off in 0..=u16::MAX {
                let d = second_address(a, off).wrapping_sub(a) as i32;
                assert_eq!(d % 4, 0);
                if off & 0x8000 == 0 {
                    let k = d / 4;
                    assert!((-(1 << 14)..(1 << 14)).contains(&k), "{a:#x} {off:#x}");
                    assert_eq!(k as u32 & 0x7fff, u32::from(off) & 0x7fff);
                } else {
                    assert_eq!(d / 4, (a as i32) >> 17, "{a:#x} {off:#x}");
                }
            }
        }
    }
}
