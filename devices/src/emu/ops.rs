//! The form of the code the wave interpreter walks ([`super::code`] decodes into it): [`Op`]s
//! whose operands are resolved, scalar registers as slots of one scalar file (the RDNA3 ISA
//! guide's "Scalar and vector operands" table: SGPRs, VCC, trap temporaries; M0 after them),
//! constants as values, branch targets as op indices.

use ds_isa::ds::DsInst;
use ds_isa::inst::acc::AccMove;
use ds_isa::inst::{GlobalOp, Operand, SmemOp, Sop2Op, SopcOp, VopcOp};

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
    /// `s_getreg_b32`: a field of a hardware register (`hwreg` SIMM16) into a scalar.
    Getreg(D, u16),
    /// `s_setreg_imm32_b32`: an immediate into a field of a hardware register.
    Setreg(u16, u32),
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
