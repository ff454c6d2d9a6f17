//! A kernel's code decoded once, at load, into the form the wave interpreter walks: one [`Op`]
//! per dword of the code section with its operands resolved (scalar registers as slots of one
//! file, constants as values, branch targets as op indices), the scalar registers it reads and
//! writes as bit masks, and every error an instruction can only ever give (a register past the
//! descriptor's allocation, a destination that is no register, bytes that do not decode, a jump
//! outside the code) decided here and raised when, and only when, it executes.
//!
//! Instructions are decoded by `ds_isa::inst::acc::decode_on` for the target (its operand
//! codes: the RDNA3 ISA guide's "Scalar and vector operands" tables; resolution: the `resolve`
//! module); what each op does is the `exec` and `lanes` modules'. Messages are rare: the code's
//! bytes are kept and an error's instruction decoded again when one is raised.

use super::ops::{Kind, Op, Trap};
use super::resolve::Builder;
use ds_isa::errata::Errata;
use ds_isa::inst::acc::decode_on;
use ds_isa::inst::Inst;
use ds_isa::target::Target;

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
