//! A kernel's code decoded once, at load, into the form the wave interpreter walks: one [`Op`]
//! per dword of the code section with its operands resolved (scalar registers as slots of one
//! file, constants as values, branch targets as op indices), the scalar registers it reads and
//! writes as bit masks, and every error an instruction can only ever give (a register past the
//! descriptor's allocation, a destination that is no register, bytes that do not decode, a jump
//! outside the code) decided here and raised when, and only when, it executes.
//!
//! Instructions are decoded by `ds_kernels::inst::acc::decode_on` for the target (its operand
//! codes: the RDNA3 ISA guide's "Scalar and vector operands" tables; resolution: the `resolve`
//! module); what each op does is the `exec` and `lanes` modules'. Messages are rare: the code's
//! bytes are kept and an error's instruction decoded again when one is raised.

use super::resolve::Builder;
use ds_kernels::inst::acc::{decode_on, AccMove};
use ds_kernels::inst::{GlobalOp, Inst, Operand, SmemOp, Sop2Op, SopcOp, VopcOp};
use ds_reference::errata::Errata;
use ds_reference::isa::DsInst;
use ds_reference::target::Target;

/// SGPRs s0..s105: slots 0..105 of the scalar file.
pub const SGPRS: u8 = 106;
/// VCC_LO and VCC_HI: slots 106 and 107.
pub const VCC_LO: u8 = 106;
/// Trap temporaries ttmp0..15: slots 108..123.
pub const TTMP0: u8 = 108;
/// M0: slot 124.
pub const M0: u8 = 124;
/// Slots of the scalar file.
pub const SCALARS: usize = 125;
/// Both halves of VCC: they hold a value together (one write of either defines VCC).
pub const VCC_BITS: u128 = 3 << VCC_LO;

/// A 32-bit scalar source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S {
    /// A slot of the scalar file.
    Reg(u8),
    ExecLo,
    ExecHi,
    /// A constant (`null` and a VGPR in a scalar field read 0).
    Imm(u32),
}

/// A 64-bit scalar source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S64 {
    /// `s[n:n+1]`.
    Pair(u8),
    Vcc,
    Exec,
    Imm(u64),
    /// A 32-bit source, zero-extended.
    Lo(S),
}

/// A 32-bit scalar destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum D {
    Reg(u8),
    ExecLo,
    ExecHi,
    Null,
}

/// A 64-bit scalar destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum D64 {
    Pair(u8),
    Vcc,
    Exec,
    Null,
}

/// A vector source: a VGPR (in range) or a scalar broadcast to every lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V {
    Row(u8),
    S(S),
}

/// What a VALU op computes per lane from its sources a, b, c.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Valu {
    Mov,
    Not,
    MulU24,
    Lshlrev,
    Lshrrev,
    And,
    Or,
    Xor,
    Add,
    Sub,
    MadU24,
    LshlAdd,
    Add3,
    LshlOr,
    AndOr,
}

/// What a conditional branch tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// One decoded instruction, or a position that raises an error when reached.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Mov(D, S),
    Mov64(D64, S64),
    Not(D, S),
    AndSaveexec(D, S),
    AndSaveexec64(D64, S64),
    Or64(D64, S64, S64),
    Sop2(Sop2Op, D, S, S),
    Addk(D, S, u32),
    Sopc(SopcOp, S, S),
    /// Waits and `s_nop`: the emulator finishes every memory access in order.
    Nop,
    End,
    Jump(u32),
    Branch(Cond, u32),
    Smem {
        op: SmemOp,
        sdata: u8,
        sbase: u8,
        offset: i32,
        soffset: Option<u8>,
    },
    Valu(Valu, u8, V, V, V),
    Vopc(VopcOp, V, u8),
    Global {
        op: GlobalOp,
        vdata: u8,
        vaddr: u8,
        saddr: Option<u8>,
        offset: i16,
    },
    /// A DS instruction, and whether its registers fit the files with the acc bit read as
    /// plain VGPRs (`fits[0]`) and as AccVGPRs (`fits[1]`): which applies is the device's
    /// (a broken device ignores the bit).
    Ds(DsInst, [bool; 2]),
    Acc(AccMove),
    /// An instruction that raises its error ([`Code::explain`] says which).
    Fail,
    /// A position that is no instruction start: raises [`Trap`]'s message about `pc`.
    Trap(Trap, u64),
}

/// Why a position holds no instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trap {
    /// The second dword of a longer instruction.
    Inside,
    /// A word that does not decode.
    Unknown,
    /// Past the code section.
    Outside,
    /// Not a multiple of 4.
    Unaligned,
}

/// One position of the code as the interpreter walks it.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub kind: Kind,
    /// Scalar slots read (bit n: slot n): all must hold a value before it runs.
    pub reads: u128,
    /// Scalar slots that hold a value after it ran.
    pub writes: u128,
    /// The op index execution falls through to.
    pub next: u32,
}

/// A code section decoded once.
#[derive(Debug)]
pub struct Code {
    /// Address of the first byte.
    pub base: u64,
    /// One op per dword of the section (the second dword of a longer instruction, or a word
    /// that does not decode, raises an error when reached), then the traps past it.
    pub ops: Vec<Op>,
    /// The op index of the kernel's entry.
    pub entry: u32,
    /// What the ops were decoded from, for [`Code::explain`].
    text: Vec<u8>,
    target: &'static Target,
    vgprs: u32,
    agprs: u32,
}

/// The scalar-file slot of a register operand.
pub fn slot(op: Operand) -> Option<u8> {
    match op {
        Operand::Sgpr(n) if n < SGPRS => Some(n),
        Operand::VccLo => Some(VCC_LO),
        Operand::VccHi => Some(VCC_LO + 1),
        Operand::Ttmp(n) => Some(TTMP0 + n % 16),
        Operand::M0 => Some(M0),
        _ => None,
    }
}

/// The operand a slot holds (for messages).
pub fn operand(slot: u8) -> Operand {
    match slot {
        n if n < SGPRS => Operand::Sgpr(n),
        VCC_LO => Operand::VccLo,
        n if n == VCC_LO + 1 => Operand::VccHi,
        M0 => Operand::M0,
        n => Operand::Ttmp(n - TTMP0),
    }
}

impl Code {
    /// Decodes `text` (at address `base`, entered at `entry`) as `target` executes it
    /// ([`decode_on`]: the acc bit and AccVGPR moves only where its `ds_features` have ACC), for
    /// a wave with `vgprs` VGPRs and `agprs` AccVGPRs.
    pub fn decode(
        target: &'static Target,
        text: &[u8],
        base: u64,
        entry: u64,
        vgprs: u32,
        agprs: u32,
    ) -> Code {
        // First the instruction starts; then each instruction resolved, a branch to an address
        // that is no instruction start of this code getting a trap past the end.
        let mut decoded: Vec<Result<(Inst, usize), Trap>> = Vec::with_capacity(text.len() / 4);
        let mut at = 0;
        while at + 4 <= text.len() {
            match decode_on(target, &text[at..]) {
                Ok((inst, len)) => {
                    decoded.push(Ok((inst, len / 4)));
                    decoded.extend((1..len / 4).map(|_| Err(Trap::Inside)));
                    at += len;
                }
                Err(_) => {
                    decoded.push(Err(Trap::Unknown));
                    at += 4;
                }
            }
        }
        let slots = decoded.len();
        // Falling off the end lands on index `slots`; bad targets after it.
        let mut traps: Vec<(Trap, u64)> = vec![(Trap::Outside, base + 4 * slots as u64)];
        let mut index = |pc: u64| -> u32 {
            let i = pc.wrapping_sub(base) / 4;
            let why = if !pc.is_multiple_of(4) {
                Trap::Unaligned
            } else if i >= slots as u64 {
                Trap::Outside
            } else {
                return i as u32;
            };
            traps.push((why, pc));
            (slots + traps.len() - 1) as u32
        };
        let mut ops = Vec::with_capacity(slots + 1);
        for (i, d) in decoded.iter().enumerate() {
            let pc = base + 4 * i as u64;
            let op = match d {
                Ok((inst, len)) => {
                    let (mut op, _) = Builder::new(vgprs, agprs).op(inst, pc, &mut index);
                    op.next = (i + len) as u32;
                    op
                }
                Err(why) => trap(*why, pc),
            };
            ops.push(op);
        }
        let entry = index(entry);
        ops.extend(traps.into_iter().map(|(why, pc)| trap(why, pc)));
        Code {
            base,
            ops,
            entry,
            text: text.to_vec(),
            target,
            vgprs,
            agprs,
        }
    }

    /// The instruction at op index `pc` (if one starts there), its error if it raises one, and
    /// the scalar slots it reads in order; or, for a position that holds none, its message.
    pub fn explain(&self, pc: usize) -> Result<(Inst, u64, Option<String>, Vec<u8>), String> {
        let addr = self.base + 4 * pc as u64;
        let (why, at) = match self.ops[pc].kind {
            Kind::Trap(why, at) => (why, at),
            _ => {
                let (inst, _) = decode_on(self.target, &self.text[4 * pc..])
                    .expect("an op's instruction decodes again");
                let mut keep = |_: u64| 0;
                let (_, b) = Builder::new(self.vgprs, self.agprs).op(&inst, addr, &mut keep);
                return Ok((inst, addr, b.fail, b.reads));
            }
        };
        Err(match why {
            Trap::Inside => format!("pc {at:#x} jumps into the middle of an instruction"),
            Trap::Outside => format!("pc {at:#x} is outside the code section"),
            Trap::Unaligned => format!("pc {at:#x} is not dword-aligned"),
            Trap::Unknown => {
                let bytes = &self.text[4 * pc..];
                let word = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
                let e = decode_on(self.target, bytes).expect_err("a word that did not decode");
                format!("unknown instruction at {at:#x}: word {word:#010x}: {e}")
            }
        })
    }

    /// Refuses code that trips one of `target`'s hardware errata the hardware would not survive
    /// (the code read in address order): on [`Errata::VMEM_SCALAR_WRITE`] targets, a scalar write
    /// of a register an earlier DS or vector memory instruction reads, with nothing between that
    /// resolves it ([`ds_kernels::hazard`]).
    pub fn check_errata(&self, target: &Target) -> Result<(), String> {
        if !target.errata.contains(Errata::VMEM_SCALAR_WRITE) {
            return Ok(());
        }
        let insts: Vec<(usize, Inst)> = (0..self.ops.len())
            .filter_map(|i| match self.ops[i].kind {
                Kind::Trap(..) => None,
                _ => self.explain(i).ok().map(|(inst, ..)| (i, inst)),
            })
            .collect();
        match ds_kernels::hazard::first_hazard(insts.iter().map(|(_, i)| i)) {
            None => Ok(()),
            Some(n) => {
                let (slot, inst) = &insts[n];
                Err(format!(
                    "`{}` at {:#x} writes a register that an earlier DS or vector memory \
                     instruction reads, with no VALU instruction, `s_waitcnt 0` or \
                     `s_waitcnt_depctr 0xffe3` between them: on {target} (RDNA 1's \
                     VMEM-to-scalar-write hazard, LLVM `FeatureVMEMtoScalarWriteHazard`) the \
                     write can overtake the read. Put `s_waitcnt_depctr 0xffe3` before it",
                    inst.text(target.generation),
                    self.base + 4 * *slot as u64
                ))
            }
        }
    }
}

/// An op that raises `why` about `pc`.
fn trap(why: Trap, pc: u64) -> Op {
    Op {
        kind: Kind::Trap(why, pc),
        reads: 0,
        writes: 0,
        next: 0,
    }
}
