//! The arithmetic of the emulated wave's ALU ops (RDNA3 ISA guide, the per-opcode descriptions
//! of SOP2 and VOP1/VOP2/VOP3): a SOP2 op's result and SCC, a VALU op over every lane of its
//! sources into its destination's active lanes.

use super::exec::{WaveState, WIDTH};
use super::ops::{Valu, V};
use super::regs::File;
use ds_isa::inst::Sop2Op;

impl WaveState {
    /// A VALU op: `f` of the sources' lanes into VGPR `vdst`'s active lanes (every source is
    /// read before the destination is written).
    pub(super) fn valu(&mut self, f: Valu, vdst: u8, a: V, b: V, c: V) {
        let (g, seed) = (self.generation, self.seed);
        for v in [a, b, c] {
            if let V::Row(n) = v {
                self.v.define(usize::from(n), g, seed);
            }
        }
        let lanes = self.lanes;
        // A scalar source's value, read before the scratch rows are borrowed.
        let splat = |v: V| match v {
            V::S(s) => Some(self.read(s)),
            V::Row(_) => None,
        };
        let values = [splat(a), splat(b), splat(c)];
        let WaveState { v, scratch, .. } = self;
        let [sa, sb, sc, out] = &mut **scratch;
        let (a, b, c) = (
            lanes_of(v, a, values[0], sa, lanes),
            lanes_of(v, b, values[1], sb, lanes),
            lanes_of(v, c, values[2], sc, lanes),
        );
        let out = &mut out[..lanes];
        match f {
            Valu::Mov => each(out, a, b, c, |a, _, _| a),
            Valu::Not => each(out, a, b, c, |a, _, _| !a),
            Valu::MulU24 => each(out, a, b, c, |a, b, _| (a & 0xff_ffff) * (b & 0xff_ffff)),
            Valu::Lshlrev => each(out, a, b, c, |a, b, _| b << (a & 31)),
            Valu::Lshrrev => each(out, a, b, c, |a, b, _| b >> (a & 31)),
            Valu::And => each(out, a, b, c, |a, b, _| a & b),
            Valu::Or => each(out, a, b, c, |a, b, _| a | b),
            Valu::Xor => each(out, a, b, c, |a, b, _| a ^ b),
            Valu::Add => each(out, a, b, c, |a, b, _| a.wrapping_add(b)),
            Valu::Sub => each(out, a, b, c, |a, b, _| a.wrapping_sub(b)),
            Valu::MadU24 => each(out, a, b, c, |a, b, c| {
                ((a & 0xff_ffff) * (b & 0xff_ffff)).wrapping_add(c)
            }),
            Valu::LshlAdd => each(out, a, b, c, |a, b, c| (a << (b & 31)).wrapping_add(c)),
            Valu::Add3 => each(out, a, b, c, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
            Valu::LshlOr => each(out, a, b, c, |a, b, c| (a << (b & 31)) | c),
            Valu::AndOr => each(out, a, b, c, |a, b, c| (a & b) | c),
        }
        let out = &self.scratch[3];
        let exec = self.live_exec();
        let n = usize::from(vdst);
        if exec == self.full {
            // Every lane (the usual case): no pattern needed first.
            self.v.whole(n, g).copy_from_slice(&out[..lanes]);
            return;
        }
        self.v.define(n, g, seed);
        for (lane, (d, &o)) in self.v.row_mut(n).iter_mut().zip(out.iter()).enumerate() {
            if exec >> lane & 1 == 1 {
                *d = o;
            }
        }
    }

    pub(super) fn sop2(&mut self, op: Sop2Op, a: u32, b: u32) -> u32 {
        let logic = |scc: &mut bool, r: u32| {
            *scc = r != 0;
            r
        };
        let scc = &mut self.scc;
        match op {
            Sop2Op::AddU32 => {
                let (r, c) = a.overflowing_add(b);
                *scc = c;
                r
            }
            Sop2Op::SubU32 => {
                let (r, c) = a.overflowing_sub(b);
                *scc = c;
                r
            }
            Sop2Op::AddI32 => {
                let (r, o) = (a as i32).overflowing_add(b as i32);
                *scc = o;
                r as u32
            }
            Sop2Op::SubI32 => {
                let (r, o) = (a as i32).overflowing_sub(b as i32);
                *scc = o;
                r as u32
            }
            Sop2Op::AddcU32 => {
                let wide = u64::from(a) + u64::from(b) + u64::from(*scc);
                *scc = wide >> 32 != 0;
                wide as u32
            }
            Sop2Op::SubbU32 => {
                let wide = u64::from(a).wrapping_sub(u64::from(b) + u64::from(*scc));
                *scc = (u64::from(b) + u64::from(*scc)) > u64::from(a);
                wide as u32
            }
            Sop2Op::LshlB32 => logic(scc, a << (b & 31)),
            Sop2Op::LshrB32 => logic(scc, a >> (b & 31)),
            Sop2Op::AndB32 => logic(scc, a & b),
            Sop2Op::OrB32 => logic(scc, a | b),
            Sop2Op::XorB32 => logic(scc, a ^ b),
            Sop2Op::MulI32 => (a as i32).wrapping_mul(b as i32) as u32,
            // src1: the field's offset [4:0] and width [22:16].
            Sop2Op::BfeU32 => {
                let width = (b >> 16 & 0x7f).min(32);
                logic(
                    scc,
                    ((u64::from(a) >> (b & 31)) & ((1u64 << width) - 1)) as u32,
                )
            }
            Sop2Op::CselectB32 => {
                if *scc {
                    a
                } else {
                    b
                }
            }
            Sop2Op::OrB64 => unreachable!("64-bit: decoded as Or64"),
        }
    }
}

/// A vector source's lanes: the VGPR's row, or the scalar `value` in every lane of `buf`.
#[inline(always)]
fn lanes_of<'a>(
    file: &'a File,
    v: V,
    value: Option<u32>,
    buf: &'a mut [u32; WIDTH],
    lanes: usize,
) -> &'a [u32] {
    match (v, value) {
        (V::Row(n), _) => file.row(usize::from(n)),
        (V::S(_), value) => {
            let buf = &mut buf[..lanes];
            buf.fill(value.unwrap_or(0));
            buf
        }
    }
}

/// `out[l] = op(a[l], b[l], c[l])` for every lane (one loop per op: `op` is inlined).
#[inline(always)]
fn each(out: &mut [u32], a: &[u32], b: &[u32], c: &[u32], op: impl Fn(u32, u32, u32) -> u32) {
    for (o, ((&a, &b), &c)) in out.iter_mut().zip(a.iter().zip(b).zip(c)) {
        *o = op(a, b, c);
    }
}
