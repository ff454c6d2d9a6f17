//! Register aliasing: a variant may name the VGPR of each operand ([`Regs`], `variant.regs` in
//! a case file), and operand ranges may overlap (ADDR inside VDST, DATA0 = DATA1, DATA0 inside the
//! VDST of a returning atomic): legal instructions that compilers emit (LLVM reuses a load's
//! address register for its result).
//!
//! A register holds one value per lane, so a case must give an overlapped register the same value
//! through every operand that names it ([`Regs::conflict`] finds the first one that does not;
//! [`Regs::harmonise`] makes a lane consistent). The model reads every source register of every
//! active lane before it writes any destination, then writes (ASSUMPTIONS.md R1): the model's
//! semantics never see a register change under them. [`Regs::settle`] turns what the instruction
//! computed (the layout without aliasing) into the final value of every register an operand names;
//! [`Regs::unsettle`] is its inverse for a device's outcome.
//!
//! Two register files (`variant.acc`, targets with AccVGPR operands): ADDR is always a VGPR; with
//! `acc` DATA0, DATA1 and VDST name AccVGPRs, so `regs` numbers them in that file. A VGPR and an
//! AccVGPR of the same number are different registers ([`in_agprs`]): ADDR = 0 and VDST = 0 in
//! an acc variant do not overlap (the result lands in `a0`, `v0` keeps the address), while DATA0,
//! DATA1 and VDST overlap among themselves as they do in VGPRs. Every method that relates
//! registers takes `acc` and keys registers by file and number.

use ds_isa::ds::{DsOp, Field, OpInfo};
use serde::{Deserialize, Serialize};
use std::fmt;

mod lanes;
pub use lanes::{in_agprs, word, Conflict};

/// The first VGPR of each operand the op uses; `None` for operands it does not use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regs {
    /// ADDR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<u8>,
    /// First register of DATA0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data0: Option<u8>,
    /// First register of DATA1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data1: Option<u8>,
    /// First register of VDST.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vdst: Option<u8>,
}

/// The order in which an overlapped register takes its value when a lane is harmonised (the
/// first operand that names it wins), and in which conflicts are reported.
pub const ORDER: [Field; 4] = [Field::Addr, Field::Data0, Field::Data1, Field::Vdst];

/// Why a `regs` cannot be used with its op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegsError {
    /// The op uses the operand but `regs` does not name its register.
    Missing { op: DsOp, field: Field },
    /// `regs` names a register for an operand the op does not have.
    Unused { op: DsOp, field: Field },
    /// The operand's registers run past v255.
    PastV255 { field: Field, first: u8, dwords: u8 },
    /// Both results of `ds_bvh_stack_rtn_b32` (VDST and the updated ADDR) in one register.
    TwoResults { op: DsOp, reg: u8 },
    /// An operand wider than the 4 dwords a kernel dumps per register operand (gfx12's 8-dword
    /// BVH DATA1): its registers cannot be named yet.
    TooWide { op: DsOp, field: Field, dwords: u8 },
}

impl fmt::Display for RegsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegsError::Missing { op, field } => write!(
                f,
                "regs: {op} uses {} but regs names no register for it: add \"{}\": N",
                field.name(),
                field.name()
            ),
            RegsError::Unused { op, field } => write!(
                f,
                "regs: {op} has no {} operand: remove \"{}\" from regs",
                field.name(),
                field.name()
            ),
            RegsError::PastV255 { field, first, dwords } => write!(
                f,
                "regs: {} takes {dwords} registers from v{first}, past v255: start it at v{} or lower",
                field.name(),
                256 - u32::from(*dwords)
            ),
            RegsError::TwoResults { op, reg } => write!(
                f,
                "regs: {op} writes both vdst and addr, and both name v{reg}: which result a \
                 register written twice by one instruction keeps is not defined, so no kernel \
                 can check it; give them different registers"
            ),
            RegsError::TooWide { op, field, dwords } => write!(
                f,
                "regs: {op}'s {} is {dwords} dwords and a kernel dumps at most 4 per named \
                 operand: remove \"regs\" (the generator's own layout runs it)",
                field.name()
            ),
        }
    }
}

impl std::error::Error for RegsError {}

/// Dwords of one operand a kernel loads and dumps by name (the lane records' slots).
pub const MAX_NAMED_DWORDS: u8 = 4;

impl Regs {
    /// The register of `field`, if named.
    pub fn get(&self, field: Field) -> Option<u8> {
        match field {
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
            Field::Vdst => self.vdst,
        }
    }

    /// Names `reg` for `field`.
    pub fn set(&mut self, field: Field, reg: Option<u8>) {
        match field {
            Field::Addr => self.addr = reg,
            Field::Data0 => self.data0 = reg,
            Field::Data1 => self.data1 = reg,
            Field::Vdst => self.vdst = reg,
        }
    }

    /// Every VGPR an operand of `op` names, with the operand word it is: `(reg, field, k)`, in
    /// [`ORDER`]. Call after [`Regs::check`].
    pub fn words(&self, info: &OpInfo) -> Vec<(u8, Field, usize)> {
        let mut out = Vec::with_capacity(13);
        for field in ORDER {
            let n = info.operands.dwords(field);
            if let (Some(first), true) = (self.get(field), n > 0) {
                for k in 0..n {
                    out.push((first + k, field, usize::from(k)));
                }
            }
        }
        out
    }

    /// Checks that `regs` fits `op`: a register for every operand it uses and none for the
    /// others, every range within v255, and the two results of the BVH stack op apart.
    pub fn check(&self, op: DsOp) -> Result<(), RegsError> {
        let info = op.info();
        for field in ORDER {
            let n = info.operands.dwords(field);
            match (self.get(field), n) {
                (None, 0) => {}
                (Some(_), 0) => return Err(RegsError::Unused { op, field }),
                (None, _) => return Err(RegsError::Missing { op, field }),
                (Some(_), n) if n > MAX_NAMED_DWORDS => {
                    return Err(RegsError::TooWide {
                        op,
                        field,
                        dwords: n,
                    })
                }
                (Some(first), n) => {
                    if u32::from(first) + u32::from(n) > 256 {
                        return Err(RegsError::PastV255 {
                            field,
                            first,
                            dwords: n,
                        });
                    }
                }
            }
        }
        if let (true, Some(a), Some(v)) = (info.writes_addr(), self.addr, self.vdst) {
            if a >= v && a - v < info.operands.vdst {
                return Err(RegsError::TwoResults { op, reg: a });
            }
        }
        Ok(())
    }
}

/// The aliasing patterns the corpora run: each a way operand registers of one instruction may
/// overlap that compilers emit or users' hardware tests assert on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alias {
    /// ADDR is the first VDST register (LLVM reuses a load's address register for its result).
    AddrFirstVdst,
    /// ADDR is the last VDST register.
    AddrLastVdst,
    /// DATA0 starts at VDST's first register (a returning atomic overwriting its own data).
    Data0InVdst,
    /// DATA0 and DATA1 are the same registers.
    Data0Data1,
    /// ADDR is VDST's second register and DATA0 = DATA1 (`ds_storexchg_2addr_stride64_rtn_b64
    /// v[30:33], v31, v[40:41], v[40:41]`).
    AddrInVdstData0Data1,
    /// ADDR is DATA0's first register (a store of its own address; two sources, no result).
    AddrData0,
}

impl Alias {
    /// Every pattern, in the order the corpora use them.
    pub const ALL: [Alias; 6] = [
        Alias::AddrFirstVdst,
        Alias::AddrLastVdst,
        Alias::Data0InVdst,
        Alias::Data0Data1,
        Alias::AddrInVdstData0Data1,
        Alias::AddrData0,
    ];

    /// A short name, used in case names, ids and variant tags.
    pub fn name(self) -> &'static str {
        match self {
            Alias::AddrFirstVdst => "addr-is-vdst0",
            Alias::AddrLastVdst => "addr-is-vdst-last",
            Alias::Data0InVdst => "data0-is-vdst0",
            Alias::Data0Data1 => "data0-is-data1",
            Alias::AddrInVdstData0Data1 => "addr-is-vdst1-data0-is-data1",
            Alias::AddrData0 => "addr-is-data0",
        }
    }

    /// The registers of `op` in this pattern, or `None` when the op has no such overlap (no
    /// operand to overlap, or the BVH stack op's two results in one register). The registers
    /// reach both ends of the file: v0 (the template's lane id must move) and v255.
    pub fn regs(self, op: DsOp) -> Option<Regs> {
        self.regs_in(op, false)
    }

    /// [`Alias::regs`] for a target that needs every tuple of two or more registers to start at
    /// an even register (`even_tuples`: CDNA 2 and later, whose DS features lack
    /// `unaligned-tuples`; LLVM "vgpr tuples must be 64 bit aligned"): the patterns at the top of
    /// the file start their tuple at the even register below (ADDR still its last or first
    /// register), and the other operands' tuples at the next even register.
    pub fn regs_in(self, op: DsOp, even_tuples: bool) -> Option<Regs> {
        let even = |first: u32, n: u8| {
            if even_tuples && n > 1 {
                first & !1
            } else {
                first
            }
        };
        let info = op.info();
        let too_wide = Field::ALL
            .into_iter()
            .any(|f| info.operands.dwords(f) > MAX_NAMED_DWORDS);
        if !info.hip_runnable() || too_wide {
            return None;
        }
        let o = info.operands;
        let (nv, has_addr, n0, n1) = (o.vdst, o.addr > 0, o.data0, o.data1);
        let two_results = info.writes_addr();
        let mut r = Regs::default();
        match self {
            Alias::AddrFirstVdst if has_addr && nv > 0 && !two_results => {
                (r.vdst, r.addr) = (Some(0), Some(0));
            }
            Alias::AddrLastVdst if has_addr && nv > 1 && !two_results => {
                let first = even(256 - u32::from(nv), nv) as u8;
                (r.vdst, r.addr) = (Some(first), Some(first + (nv - 1)));
            }
            Alias::Data0InVdst if nv > 0 && n0 > 0 => {
                (r.vdst, r.data0) = (Some(8), Some(8));
            }
            Alias::Data0Data1 if n0 > 0 && n1 > 0 => {
                (r.data0, r.data1) = (Some(20), Some(20));
            }
            Alias::AddrInVdstData0Data1
                if has_addr && nv > 1 && n0 > 0 && n1 > 0 && !two_results =>
            {
                (r.vdst, r.addr, r.data0, r.data1) = (Some(30), Some(31), Some(40), Some(40));
            }
            Alias::AddrData0 if has_addr && n0 > 0 => {
                let first = even(256 - u32::from(n0), n0) as u8;
                (r.data0, r.addr) = (Some(first), Some(first));
            }
            _ => return None,
        }
        // The operands the pattern does not overlap get registers of their own from v100 up.
        let mut next = 100u8;
        for field in ORDER {
            let n = o.dwords(field);
            if n > 0 && r.get(field).is_none() {
                if even_tuples && n > 1 && next % 2 == 1 {
                    next += 1;
                }
                r.set(field, Some(next));
                next += n;
            }
        }
        debug_assert_eq!(r.check(op), Ok(()));
        Some(r)
    }

    /// The patterns `op` has, with their registers.
    pub fn for_op(op: DsOp) -> Vec<(Alias, Regs)> {
        Alias::for_op_in(op, false)
    }

    /// The patterns `op` has on a target that needs even tuples or not ([`Alias::regs_in`]).
    pub fn for_op_in(op: DsOp, even_tuples: bool) -> Vec<(Alias, Regs)> {
        Alias::ALL
            .into_iter()
            .filter_map(|a| a.regs_in(op, even_tuples).map(|r| (a, r)))
            .collect()
    }
}

#[cfg(test)]
mod tests;
