//! The generator's assembler ([`Asm`]: encodes each instruction as it is appended, in the
//! target generation's encodings, and asks the generation's [`Template`] for waits), the small
//! instruction constructors the template uses, and its two LDS steps: copying the image between
//! LDS and a buffer ([`copy_lds`]) and zeroing the allocation's tail ([`zero_tail`]).

use super::error::GenError;
use super::layout::Layout;
use crate::hazard;
use crate::template::Template;
use ds_isa::ds::{DsInst, DsOp, Isa};
use ds_isa::errata::Errata;
use ds_isa::inst::{
    encode_into, GlobalOp, Inst, Operand, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op,
    Waitcnt,
};
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;

/// LDS bytes one copy round moves (the wave's lanes x 4 bytes).
pub(super) const fn round_bytes(wave: WaveSize) -> u32 {
    4 * wave.lanes() as u32
}
/// Appends instructions and tracks the byte address of the next one; on a target with
/// [`Errata::VMEM_SCALAR_WRITE`], puts the fence before every scalar write that needs it
/// ([`hazard::Tracker`]).
pub(super) struct Asm {
    /// The target's instruction set (its DS features: which DS ops encode).
    pub(super) isa: Isa,
    pub(super) tmpl: &'static dyn Template,
    pub(super) errata: Errata,
    pub(super) hazard: hazard::Tracker,
    pub(super) insts: Vec<(Inst, &'static str)>,
    pub(super) code: Vec<u8>,
}

impl Asm {
    /// An empty program for `target` in its generation's template.
    pub(super) fn new(target: &Target, tmpl: &'static dyn Template, insts: usize) -> Asm {
        Asm {
            isa: target.into(),
            tmpl,
            errata: target.errata,
            hazard: hazard::Tracker::default(),
            insts: Vec::with_capacity(insts),
            code: Vec::with_capacity(4 * insts),
        }
    }

    pub(super) fn emit(&mut self, inst: Inst, note: &'static str) -> Result<(), GenError> {
        if self.errata.contains(Errata::VMEM_SCALAR_WRITE) && self.hazard.needs_fence(&inst) {
            let fence = hazard::Tracker::fence();
            self.put(
                fence,
                "RDNA 1: the scalar write waits for earlier vector memory reads",
            )?;
        }
        self.put(inst, note)
    }

    fn put(&mut self, inst: Inst, note: &'static str) -> Result<(), GenError> {
        encode_into(self.isa, &inst, &mut self.code).map_err(GenError::Encode)?;
        self.hazard.step(&inst);
        self.insts.push((inst, note));
        Ok(())
    }

    /// The generation's instructions for gfx11's `s_waitcnt w` ([`Template::wait`]); the note
    /// goes on the first.
    pub(super) fn wait(&mut self, w: Waitcnt, note: &'static str) -> Result<(), GenError> {
        let mut note = note;
        for inst in self.tmpl.wait(w) {
            self.emit(inst, note)?;
            note = "";
        }
        Ok(())
    }

    /// The generation's [`Template::branch_fence`] on a target with
    /// [`Errata::LDS_BRANCH_VMEM_WAR`]; nothing elsewhere.
    pub(super) fn fence(&mut self, note: &'static str) -> Result<(), GenError> {
        if !self.errata.contains(Errata::LDS_BRANCH_VMEM_WAR) {
            return Ok(());
        }
        let mut note = note;
        for inst in self.tmpl.branch_fence() {
            self.emit(inst, note)?;
            note = "";
        }
        Ok(())
    }

    pub(super) fn pc(&self) -> usize {
        self.code.len()
    }

    /// A branch back to byte address `target`.
    pub(super) fn branch(
        &mut self,
        op: SoppOp,
        target: usize,
        note: &'static str,
    ) -> Result<(), GenError> {
        let dwords = (target as i64 - (self.pc() as i64 + 4)) / 4;
        self.emit(
            Inst::Sopp {
                op,
                simm16: dwords as i16 as u16,
            },
            note,
        )
    }
}

pub(super) fn s(n: u8) -> Operand {
    Operand::Sgpr(n)
}

pub(super) fn sop2(op: Sop2Op, d: u8, a: Operand, b: Operand) -> Inst {
    Inst::Sop2 {
        op,
        sdst: s(d),
        src0: a,
        src1: b,
    }
}

pub(super) fn mov(dst: Operand, src: Operand) -> Inst {
    Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: dst,
        src0: src,
    }
}

pub(super) fn vop2(op: Vop2Op, vdst: u8, src0: Operand, vsrc1: u8) -> Inst {
    Inst::Vop2 {
        op,
        vdst,
        src0,
        vsrc1,
    }
}

pub(super) fn global(op: GlobalOp, vdata: u8, vaddr: u8, saddr: u8, offset: i16) -> Inst {
    Inst::Global {
        op,
        vdata,
        vaddr,
        saddr: Some(saddr),
        offset,
    }
}

/// Copies the LDS image between LDS and the buffer at `s[base:base+1]`, 128 bytes per round.
pub(super) fn copy_lds(
    a: &mut Asm,
    l: &Layout,
    wave: WaveSize,
    size: u32,
    base: u8,
    into_lds: bool,
) -> Result<(), GenError> {
    let round = round_bytes(wave);
    let b32 = |op| DsInst {
        addr: l.offset,
        ..DsInst::new(op)
    };
    let (first, second, wait) = if into_lds {
        (
            global(GlobalOp::LoadB32, l.scratch, l.offset, base, 0),
            Inst::Ds(DsInst {
                data0: l.scratch,
                ..b32(DsOp::StoreB32)
            }),
            Waitcnt::vm(0),
        )
    } else {
        (
            Inst::Ds(DsInst {
                vdst: l.scratch,
                ..b32(DsOp::LoadB32)
            }),
            global(GlobalOp::StoreB32, l.scratch, l.offset, base, 0),
            Waitcnt::lgkm(0),
        )
    };
    let (note_a, note_b) = if into_lds {
        ("LDS image in: one dword per lane", "")
    } else {
        ("LDS image out: one dword per lane", "")
    };
    a.emit(
        Inst::Vop2 {
            op: Vop2Op::LshlrevB32,
            vdst: l.offset,
            src0: Operand::Int(2),
            vsrc1: l.lane,
        },
        "offset = lane * 4: byte offset in LDS and in the image",
    )?;
    let rounds = size / round;
    if rounds > 0 {
        a.emit(
            Inst::Sopk {
                op: SopkOp::MovkI32,
                sdst: s(18),
                simm16: rounds as u16,
            },
            match wave {
                WaveSize::Wave32 => "s18 = full 128-byte rounds",
                WaveSize::Wave64 => "s18 = full 256-byte rounds",
            },
        )?;
        let top = a.pc();
        a.fence("LDS and memory accesses a branch separates: stores done")?;
        a.emit(first, note_a)?;
        a.wait(wait, note_b)?;
        a.emit(second, "")?;
        a.emit(
            vop2(
                Vop2Op::AddNcU32,
                l.offset,
                Operand::imm(round as i32),
                l.offset,
            ),
            "next round",
        )?;
        a.emit(sop2(Sop2Op::AddI32, 18, s(18), Operand::Int(-1)), "")?;
        a.emit(
            Inst::Sopc {
                op: SopcOp::CmpLgU32,
                src0: s(18),
                src1: Operand::Int(0),
            },
            "",
        )?;
        a.branch(SoppOp::CbranchScc1, top, "loop while rounds remain")?;
        a.fence("")?;
    }
    let tail = (size % round) / 4;
    if tail > 0 {
        let mask = (1u64 << tail) - 1;
        a.emit(
            mov(Operand::ExecLo, Operand::imm(mask as u32 as i32)),
            "last partial round: the lanes still in the image",
        )?;
        if wave == WaveSize::Wave64 {
            a.emit(
                mov(Operand::ExecHi, Operand::imm((mask >> 32) as u32 as i32)),
                "",
            )?;
        }
        a.emit(first, note_a)?;
        a.wait(wait, note_b)?;
        a.emit(second, "")?;
        a.emit(all_lanes(wave), "all lanes again")?;
    }
    Ok(())
}

/// Zeroes LDS from the image's end (`size`) to `end`, the end of the workgroup's allocation on
/// hardware (the size rounded up to the target's LDS granule: hardware allocates LDS in granules,
/// target column `lds_granule`), so no byte a case can reach there holds what an earlier
/// workgroup left: `v_mov_b32 scratch, 0`, then one `ds_store_b32` per round of lanes with the
/// round's address as the immediate offset, the last round under an EXEC mask. Nothing when the
/// size is a whole number of granules.
pub(super) fn zero_tail(
    a: &mut Asm,
    l: &Layout,
    wave: WaveSize,
    size: u32,
    end: u32,
) -> Result<(), GenError> {
    if end <= size {
        return Ok(());
    }
    let round = round_bytes(wave);
    a.emit(
        Inst::Vop1 {
            op: Vop1Op::MovB32,
            vdst: l.scratch,
            src0: Operand::Int(0),
        },
        "zero the allocation past the image (its granule's tail)",
    )?;
    a.emit(
        vop2(Vop2Op::LshlrevB32, l.offset, Operand::Int(2), l.lane),
        "offset = lane * 4",
    )?;
    let mut masked = false;
    // The DS offset is 16 bits: past 64 KiB (a target with more LDS: its allocation's end may
    // pass 65536) the round's base moves into the address register once, by 64 KiB.
    let mut based = 0u32;
    for at in (size..end).step_by(round as usize) {
        if at - based > 0xffff {
            a.emit(
                vop2(
                    Vop2Op::AddNcU32,
                    l.offset,
                    Operand::Literal(0x1_0000),
                    l.offset,
                ),
                "past the 16-bit offset: address + 64 KiB",
            )?;
            based += 0x1_0000;
        }
        let imm = at - based;
        let dwords = ((end - at) / 4).min(wave.lanes() as u32);
        if dwords < wave.lanes() as u32 {
            let mask = (1u64 << dwords) - 1;
            a.emit(
                mov(Operand::ExecLo, Operand::imm(mask as u32 as i32)),
                "last partial round",
            )?;
            if wave == WaveSize::Wave64 {
                a.emit(
                    mov(Operand::ExecHi, Operand::imm((mask >> 32) as u32 as i32)),
                    "",
                )?;
            }
            masked = true;
        }
        a.emit(
            Inst::Ds(DsInst {
                addr: l.offset,
                data0: l.scratch,
                offset0: imm as u8,
                offset1: (imm >> 8) as u8,
                ..DsInst::new(DsOp::StoreB32)
            }),
            "",
        )?;
    }
    if masked {
        a.emit(all_lanes(wave), "all lanes again")?;
    }
    Ok(())
}

/// Every lane of the wave on: `s_mov_b32 exec_lo, -1` (wave32), `s_mov_b64 exec, -1` (wave64).
pub(super) fn all_lanes(wave: WaveSize) -> Inst {
    match wave {
        WaveSize::Wave32 => mov(Operand::ExecLo, Operand::Int(-1)),
        WaveSize::Wave64 => Inst::Sop1 {
            op: Sop1Op::MovB64,
            sdst: Operand::ExecLo,
            src0: Operand::Int(-1),
        },
    }
}

/// Adds `s14` to the 64-bit address in `s[lo:lo+1]`.
pub(super) fn add_offset(a: &mut Asm, lo: u8, note: &'static str) -> Result<(), GenError> {
    a.emit(sop2(Sop2Op::AddU32, lo, s(lo), s(14)), note)?;
    a.emit(
        sop2(Sop2Op::AddcU32, lo + 1, s(lo + 1), Operand::Int(0)),
        "",
    )
}
