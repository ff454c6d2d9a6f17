//! RDNA 1's scalar-write-after-vector-memory hazard ([`Errata::VMEM_SCALAR_WRITE`]), as one
//! rule both sides use: the generator puts `s_waitcnt_depctr` where it is needed
//! ([`Tracker::needs_fence`]) and the emulated device refuses a code object of such a target
//! that lacks one ([`first_hazard`]), as the hardware would misbehave.
//!
//! The rule (LLVM `GCNHazardRecognizer::fixVMEMtoScalarWriteHazards`, for targets with
//! `FeatureVMEMtoScalarWriteHazard`): a scalar instruction (SALU, SMEM) that writes a register
//! which an earlier DS or vector memory instruction reads (EXEC always; a GLOBAL's SADDR pair; M0
//! for the DS instructions that address by it) needs, in between, a VALU instruction,
//! `s_waitcnt 0` or `s_waitcnt_depctr` with VM_VSRC \[4:2\] 0. `kernels/tests/hazards_llc.rs`
//! holds the generator's kernels to LLVM's own recognizer.
//!
//! [`Errata::VMEM_SCALAR_WRITE`]: ds_isa::errata::Errata::VMEM_SCALAR_WRITE

use ds_isa::ds::Family;
use ds_isa::inst::{Inst, Operand, SopkOp, SoppOp};

/// The `s_waitcnt_depctr` immediate that waits for VM_VSRC 0 and leaves every other counter at
/// its maximum (what `llc-19` inserts for this hazard).
pub const DEPCTR_VM_VSRC_0: u16 = 0xffe3;

/// The VM_VSRC field of an `s_waitcnt_depctr` immediate.
fn vm_vsrc(simm16: u16) -> u16 {
    simm16 >> 2 & 7
}

/// Scalar registers as bits of a set (0..=127: SGPRs from 0, VCC 106-107, TTMPs from 108, M0
/// 125, EXEC 126-127: their gfx11 operand codes, a numbering only; `null` and VGPRs are none).
fn bits(op: Operand, dwords: u8) -> u128 {
    let slot = match op {
        Operand::Sgpr(n) => u32::from(n),
        Operand::VccLo => 106,
        Operand::VccHi => 107,
        Operand::Ttmp(n) => 108 + u32::from(n),
        Operand::M0 => 125,
        Operand::ExecLo => 126,
        Operand::ExecHi => 127,
        _ => return 0,
    };
    (0..u32::from(dwords.max(1)))
        .filter(|i| slot + i < 128)
        .fold(0, |m, i| m | 1u128 << (slot + i))
}

const EXEC: u128 = 3 << 126;

/// The scalar registers a DS or vector memory instruction reads; 0 for any other.
fn vmem_reads(inst: &Inst) -> u128 {
    match *inst {
        Inst::Global { saddr, .. } => EXEC | saddr.map_or(0, |s| bits(Operand::Sgpr(s), 2)),
        Inst::Ds(ds) => {
            let m0 = matches!(
                ds.info().family,
                Family::StoreAddTid | Family::LoadAddTid | Family::Append | Family::Consume
            );
            EXEC | if m0 { bits(Operand::M0, 1) } else { 0 }
        }
        _ => 0,
    }
}

/// The scalar registers a scalar (SALU or SMEM) instruction writes.
fn scalar_writes(inst: &Inst) -> u128 {
    match *inst {
        Inst::Sop1 { op, sdst, .. } => bits(sdst, op.a()),
        Inst::Sop2 { op, sdst, .. } => bits(sdst, op.a()),
        Inst::Sopk { op, sdst, .. } if op != SopkOp::WaitcntVscnt => bits(sdst, 1),
        Inst::Smem { op, sdata, .. } => bits(Operand::Sgpr(sdata), op.a()),
        _ => 0,
    }
}

/// The instruction ends the hazard's window.
fn resolves(inst: &Inst) -> bool {
    match *inst {
        Inst::Vop1 { .. } | Inst::Vop2 { .. } | Inst::Vop3 { .. } | Inst::Vopc { .. } => true,
        Inst::Sopp {
            op: SoppOp::Waitcnt,
            simm16,
        } => simm16 == 0,
        Inst::Sopp {
            op: SoppOp::WaitcntDepctr,
            simm16,
        } => vm_vsrc(simm16) == 0,
        _ => false,
    }
}

/// The registers read by DS and vector memory instructions since the window last closed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tracker {
    pending: u128,
}

impl Tracker {
    /// `inst` writes a register an open window's instruction reads.
    pub fn needs_fence(&self, inst: &Inst) -> bool {
        self.pending & scalar_writes(inst) != 0
    }

    /// Moves past `inst`.
    pub fn step(&mut self, inst: &Inst) {
        if resolves(inst) {
            self.pending = 0;
        }
        self.pending |= vmem_reads(inst);
    }

    /// The fence that closes the window.
    pub fn fence() -> Inst {
        Inst::Sopp {
            op: SoppOp::WaitcntDepctr,
            simm16: DEPCTR_VM_VSRC_0,
        }
    }
}

/// The index of the first instruction of `insts` (in order, branches not followed) that writes
/// a register an earlier DS or vector memory instruction reads with nothing in between that
/// resolves the hazard.
pub fn first_hazard<'a>(insts: impl IntoIterator<Item = &'a Inst>) -> Option<usize> {
    let mut t = Tracker::default();
    for (i, inst) in insts.into_iter().enumerate() {
        if t.needs_fence(inst) {
            return Some(i);
        }
        t.step(inst);
    }
    None
}
