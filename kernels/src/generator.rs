//! The kernel generator: for a [`Variant`] (any runnable DS op, its offsets, LDS size and FP
//! mode), the gfx11 kernel that runs that one instruction over a batch of cases, built from one
//! template with the project's own assembler ([`crate::inst`], and the DS table's encoder for
//! every DS instruction). The buffers it reads and writes are [`crate::abi`]'s.
//!
//! Kernel entry state (LLVM AMDGPUUsage, "Initial Kernel Execution State", GFX11, with the
//! descriptor this crate writes): `s[0:1]` = kernarg segment address (the only user SGPRs, so
//! USER_SGPR_COUNT = 2), `s2` = workgroup id x (the next SGPR, ENABLE_SGPR_WORKGROUP_ID_X),
//! `v0` = work-item ids packed as x \[9:0\], y \[19:10\], z \[29:20\] (GFX11 packs them in one VGPR), EXEC
//! = every lane of the wave (wave32: ENABLE_WAVEFRONT_SIZE32 set, 32 lanes; wave64: clear, 64).
//!
//! Registers ([`Layout`] places the VGPRs; SGPRs are fixed):
//!
//! | register     | holds                                                            |
//! |--------------|------------------------------------------------------------------|
//! | `s[4:11]`    | kernarg addresses of lds_in, lanes_in, lds_out, lanes_out, moved to this case |
//! | `s[12:13]`   | wave_in address, moved to this case                              |
//! | `s14`        | scratch: this case's byte offset in a buffer                     |
//! | `s16`, `s17` | the case's EXEC and M0                                           |
//! | `s18`        | copy loop counter                                                |
//! | `v0`         | lane id; `v1` byte offset; `v2` copy scratch                     |
//! | `v4`         | ADDR of the instruction under test ([`ADDR`])                    |
//! | `v[8:11]`    | DATA0 ([`DATA0`]); `v[12:15]` DATA1 ([`DATA1`]); `v[16:19]` VDST ([`VDST`]) |
//!
//! That is the layout of a variant without `regs`, where no operands overlap. A variant with
//! `regs` has its operands where it says (any of v0..v255, overlapping as they may), and the
//! template's lane id, byte offset and copy scratch move to the three lowest VGPRs no operand
//! names (the lane id is copied out of v0 by the first VALU instruction, so v0 is free for an
//! operand); the descriptor declares VGPRs up to the highest one used. Such a kernel loads each
//! operand's registers from the case (a consistent case gives an overlapped register one value,
//! so the order does not matter) and dumps exactly the registers the operands name.
//!
//! Steps (DESIGN.md section 3): load the kernarg addresses; copy the case's LDS image from
//! `lds_in` into LDS, 128 bytes per round (`global_load_b32` + `ds_store_b32` per lane, the last
//! round under an EXEC mask when the size is not a multiple of 128); load the lane's addr, the
//! data0/data1 dwords the op reads and all four vdst sentinel dwords; wait for every load
//! (`s_waitcnt vmcnt(0) lgkmcnt(0)`); set M0, then EXEC; run the instruction;
//! `s_waitcnt lgkmcnt(0)`; restore EXEC; store every lane's vdst and addr; copy LDS out to
//! `lds_out` the same way it came in; `s_endpgm`. One wave per workgroup, so no barrier is needed.
//!
//! What a device must execute (every kernel uses only these): `s_load_b256`, `s_load_b64`,
//! `s_waitcnt`, `s_mul_i32`, `s_add_u32`, `s_addc_u32` (carry in/out through SCC), `s_add_i32`,
//! `s_lshl_b32`, `s_movk_i32`, `s_cmp_lg_u32`, `s_cbranch_scc1`, `s_mov_b32` (to `m0` and
//! `exec_lo`, from SGPRs and constants), `s_nop`, `s_endpgm`, `v_and_b32_e32`,
//! `v_lshlrev_b32_e32`, `v_add_nc_u32_e32`, `global_load_b32/b64/b96/b128` and
//! `global_store_b32/b64/b96/b128` (SGPR base + VGPR offset; b64 and b96 stores only with
//! `regs`), `ds_store_b32`, `ds_load_b32`, and the DS instruction under test.
//! `tests/emitted_forms.rs` pins this list. The wave64 template ([`generate_wave`]) adds
//! `s_load_b32` (EXEC\[63:32\] into s19), `s_mov_b32` to `exec_hi` and `s_mov_b64 exec, -1`.

pub use crate::name::kernel_name;

use crate::abi::{self, AbiError};
use crate::code_object::descriptor::KernelDescriptor;
use crate::inst::{
    encode_in, encode_into_in, EncodeError, GlobalOp, Inst, Operand, SmemOp, Sop1Op, Sop2Op,
    SopcOp, SopkOp, SoppOp, Vop2Op, Waitcnt,
};
use ds_reference::isa::{DsInst, DsOp, Field, Generation, InstError};
use ds_reference::regs::RegsError;
use ds_reference::target::Target;
use ds_reference::wave::{Variant, WaveSize};
use std::fmt;

/// VGPR of the instruction's ADDR operand.
pub const ADDR: u8 = 4;
/// First VGPR of DATA0.
pub const DATA0: u8 = 8;
/// First VGPR of DATA1.
pub const DATA1: u8 = 12;
/// First VGPR of VDST.
pub const VDST: u8 = 16;
/// VGPRs the kernel uses without `regs` (v0..v19).
pub const VGPR_COUNT: u32 = 20;
/// The largest VGPR budget a wave32 kernel can declare (GRANULATED_WORKITEM_VGPR_COUNT).
pub const MAX_VGPRS: u32 = 256;
/// SGPRs the kernel uses (s0..s18); VCC is not used.
pub const SGPR_COUNT: u32 = 19;
/// LDS bytes one copy round moves (the wave's lanes x 4 bytes).
const fn round_bytes(wave: WaveSize) -> u32 {
    4 * wave.lanes() as u32
}
/// SGPRs the wave64 template uses: s19 holds EXEC\[63:32\] of the case.
pub const SGPR_COUNT_WAVE64: u32 = 20;

/// A generated kernel: its code, its listing and what its descriptor says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The symbol name ([`kernel_name`]); the descriptor is `<name>.kd`.
    pub name: String,
    /// What it was built for.
    pub variant: Variant,
    /// The generation whose encodings the code uses.
    pub gen: Generation,
    /// The instructions, in order, each with a note on what it does.
    pub insts: Vec<(Inst, &'static str)>,
    /// The machine code (the instructions encoded back to back; the entry is byte 0).
    pub code: Vec<u8>,
    /// The kernel descriptor (with `kernel_code_entry_byte_offset` 0: the code object writer
    /// sets it once it has placed the code).
    pub descriptor: KernelDescriptor,
    /// VGPRs used.
    pub vgpr_count: u32,
    /// SGPRs used.
    pub sgpr_count: u32,
}

impl Kernel {
    /// One instruction per line in LLVM syntax, exactly as `llvm-objdump-19 -d` prints them
    /// (made on demand: building kernels for a run does not need it).
    pub fn listing(&self) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(48 * self.insts.len());
        for (inst, _) in &self.insts {
            let _ = writeln!(out, "{}", inst.text(self.gen));
        }
        out
    }

    /// The listing with byte offsets and notes, for people (the snapshots).
    pub fn annotated(&self) -> String {
        let mut out = String::new();
        let mut pc = 0;
        for (inst, note) in &self.insts {
            let text = inst.text(self.gen).to_string();
            let len = encode_in(self.gen, inst).map_or(0, |b| b.len());
            if note.is_empty() {
                out.push_str(&format!("{pc:04x}  {text}\n"));
            } else {
                out.push_str(&format!("{pc:04x}  {text:<48} // {note}\n"));
            }
            pc += len;
        }
        out
    }
}

/// Why a variant has no kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenError {
    /// The op cannot run from a HIP compute kernel (the table says why).
    NotRunnable { op: DsOp, why: &'static str },
    /// The offsets do not fit the op.
    Offsets(InstError),
    /// The LDS size is not one the ABI allows.
    Lds(AbiError),
    /// A template instruction failed to encode (a bug in the template).
    Encode(EncodeError),
    /// The variant's `regs` do not fit its op.
    Regs(RegsError),
    /// The variant's wave size has no template in this generation, or not with `regs`.
    Wave(String),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::NotRunnable { op, why } => {
                write!(f, "{op} cannot run from a HIP compute kernel: {why}")
            }
            GenError::Offsets(e @ InstError::NotInGeneration { .. }) => e.fmt(f),
            GenError::Offsets(e) => write!(f, "bad offsets: {e}"),
            GenError::Lds(e) => e.fmt(f),
            GenError::Encode(e) => write!(f, "kernel template bug: {e}"),
            GenError::Regs(e) => e.fmt(f),
            GenError::Wave(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for GenError {}

/// Where a kernel keeps its VGPRs: the operands of the instruction under test and the template's
/// own registers. One placement for every kernel template (generation): a template asks the layout
/// for registers and never names a VGPR itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// ADDR's register.
    pub addr: u8,
    /// DATA0's first register.
    pub data0: u8,
    /// DATA1's first register.
    pub data1: u8,
    /// VDST's first register.
    pub vdst: u8,
    /// The lane id (work-item id x).
    pub lane: u8,
    /// The byte offset of the lane's record in a buffer (and of its dword in the LDS copy).
    pub offset: u8,
    /// Scratch of the LDS copy loops.
    pub scratch: u8,
    /// VGPRs the kernel uses (the descriptor's budget).
    pub vgpr_count: u32,
    /// The variant names its operands' registers (`regs`): load and dump exactly them.
    pub named: bool,
}

impl Layout {
    /// The layout of `v`: the fixed one without `regs`; with `regs`, the operands where they say
    /// and the template's registers in the lowest VGPRs they leave free.
    pub fn of(v: &Variant) -> Result<Layout, GenError> {
        let Some(regs) = v.regs else {
            return Ok(Layout {
                addr: ADDR,
                data0: DATA0,
                data1: DATA1,
                vdst: VDST,
                lane: 0,
                offset: 1,
                scratch: 2,
                vgpr_count: VGPR_COUNT,
                named: false,
            });
        };
        regs.check(v.op).map_err(GenError::Regs)?;
        let info = v.op.info();
        let used: Vec<u8> = regs.words(info).into_iter().map(|(r, _, _)| r).collect();
        // At most 13 operand registers, so three of v0..v15 are always free.
        let mut free = (0u8..=255).filter(|r| !used.contains(r));
        let mut next = || free.next().expect("at most 13 of 256 VGPRs are operands");
        let (lane, offset, scratch) = (next(), next(), next());
        let top = used.iter().chain(&[lane, offset, scratch]).copied().max();
        let vgpr_count = u32::from(top.unwrap_or(0)) + 1;
        debug_assert!(vgpr_count <= MAX_VGPRS);
        Ok(Layout {
            addr: regs.addr.unwrap_or(0),
            data0: regs.data0.unwrap_or(0),
            data1: regs.data1.unwrap_or(0),
            vdst: regs.vdst.unwrap_or(0),
            lane,
            offset,
            scratch,
            vgpr_count,
            named: true,
        })
    }

    /// The register of operand `field`.
    pub fn reg(&self, field: Field) -> u8 {
        match field {
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
            Field::Vdst => self.vdst,
        }
    }
}

/// The instruction under test with the layout's registers (gfx11).
pub fn test_inst(v: &Variant) -> Result<DsInst, GenError> {
    test_inst_in(Generation::Gfx11, v)
}

/// The instruction under test with the layout's registers, for generation `gen`.
pub fn test_inst_in(gen: Generation, v: &Variant) -> Result<DsInst, GenError> {
    let layout = Layout::of(v)?;
    let mut inst = v.inst();
    let operands = v.op.info().operands;
    for field in Field::ALL {
        if operands.dwords(field) > 0 {
            inst.set_reg(field, layout.reg(field));
        }
    }
    inst.validate_in(gen).map_err(GenError::Offsets)?;
    Ok(inst)
}

/// Appends instructions and tracks the byte address of the next one.
struct Asm {
    gen: Generation,
    insts: Vec<(Inst, &'static str)>,
    code: Vec<u8>,
}

impl Asm {
    fn emit(&mut self, inst: Inst, note: &'static str) -> Result<(), GenError> {
        if let (
            Generation::Gfx12,
            Inst::Sopp {
                op: SoppOp::Waitcnt,
                simm16,
            },
        ) = (self.gen, inst)
        {
            return self.wait_gfx12(Waitcnt::from_simm16(simm16), note);
        }
        encode_into_in(self.gen, &inst, &mut self.code).map_err(GenError::Encode)?;
        self.insts.push((inst, note));
        Ok(())
    }

    /// gfx12 splits gfx11's counters (RDNA4 ISA guide, "Data Dependency Resolution"): VM_CNT's
    /// loads are LOADcnt; LGKM_CNT is KMcnt for scalar memory and DScnt for LDS. A gfx11 wait is
    /// the same wait on each counter it covered.
    fn wait_gfx12(&mut self, w: Waitcnt, note: &'static str) -> Result<(), GenError> {
        let mut waits = Vec::with_capacity(3);
        if w.vmcnt != Waitcnt::VM_MAX {
            waits.push((SoppOp::WaitLoadcnt, w.vmcnt));
        }
        if w.lgkmcnt != Waitcnt::LGKM_MAX {
            waits.push((SoppOp::WaitKmcnt, w.lgkmcnt));
            waits.push((SoppOp::WaitDscnt, w.lgkmcnt));
        }
        let mut note = note;
        for (op, n) in waits {
            self.emit(
                Inst::Sopp {
                    op,
                    simm16: u16::from(n),
                },
                note,
            )?;
            note = "";
        }
        Ok(())
    }

    fn pc(&self) -> usize {
        self.code.len()
    }

    /// A branch back to byte address `target`.
    fn branch(&mut self, op: SoppOp, target: usize, note: &'static str) -> Result<(), GenError> {
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

fn s(n: u8) -> Operand {
    Operand::Sgpr(n)
}

fn sop2(op: Sop2Op, d: u8, a: Operand, b: Operand) -> Inst {
    Inst::Sop2 {
        op,
        sdst: s(d),
        src0: a,
        src1: b,
    }
}

fn mov(dst: Operand, src: Operand) -> Inst {
    Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: dst,
        src0: src,
    }
}

fn vop2(op: Vop2Op, vdst: u8, src0: Operand, vsrc1: u8) -> Inst {
    Inst::Vop2 {
        op,
        vdst,
        src0,
        vsrc1,
    }
}

fn global(op: GlobalOp, vdata: u8, vaddr: u8, saddr: u8, offset: i16) -> Inst {
    Inst::Global {
        op,
        vdata,
        vaddr,
        saddr: Some(saddr),
        offset,
    }
}

/// Copies the LDS image between LDS and the buffer at `s[base:base+1]`, 128 bytes per round.
fn copy_lds(
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
        a.emit(first, note_a)?;
        a.emit(Inst::waitcnt(wait), note_b)?;
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
        a.emit(Inst::waitcnt(wait), note_b)?;
        a.emit(second, "")?;
        a.emit(all_lanes(wave), "all lanes again")?;
    }
    Ok(())
}

/// Every lane of the wave on: `s_mov_b32 exec_lo, -1` (wave32), `s_mov_b64 exec, -1` (wave64).
fn all_lanes(wave: WaveSize) -> Inst {
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
fn add_offset(a: &mut Asm, lo: u8, note: &'static str) -> Result<(), GenError> {
    a.emit(sop2(Sop2Op::AddU32, lo, s(lo), s(14)), note)?;
    a.emit(
        sop2(Sop2Op::AddcU32, lo + 1, s(lo + 1), Operand::Int(0)),
        "",
    )
}

/// Builds the gfx11 kernel for `variant`.
pub fn generate(variant: &Variant) -> Result<Kernel, GenError> {
    generate_in(Generation::Gfx11, variant)
}

/// Builds the kernel for `variant` for `target` (in its generation's encodings).
pub fn generate_for(target: &Target, variant: &Variant) -> Result<Kernel, GenError> {
    generate_in(target.generation, variant)
}

/// Builds the kernel for `variant` in generation `gen`'s encodings: the same template, with
/// gfx12's split wait counters (`s_wait_loadcnt`, `s_wait_kmcnt`, `s_wait_dscnt`) for
/// `s_waitcnt`, gfx12's SMEM and VGLOBAL encodings and its kernel descriptor.
///
/// The kernel runs in the variant's wave size (`variant.wave`). The wave64 template differs from the wave32 one in: copy rounds of 256 bytes (the last under
/// `exec_lo` and `exec_hi`), per-case lane records of 64 lanes, a 16-byte `wave_in` record whose
/// dword 2 (EXEC\[63:32\], loaded into s19) goes to `exec_hi`, EXEC restored with
/// `s_mov_b64 exec, -1`, and the wave64 descriptor (see [`crate::abi`]).
pub fn generate_in(gen: Generation, variant: &Variant) -> Result<Kernel, GenError> {
    let wave = variant.wave;
    let lanes = wave.lanes() as u32;
    let info = variant.op.info();
    if !info.in_generation(gen) {
        let op = variant.op;
        return Err(GenError::Offsets(InstError::NotInGeneration { op, gen }));
    }
    if let Some(why) = info.hip_unsupported {
        return Err(GenError::NotRunnable {
            op: variant.op,
            why,
        });
    }
    abi::check_lds_size(variant.lds_size).map_err(GenError::Lds)?;
    let l = Layout::of(variant)?;
    let ds = test_inst_in(gen, variant)?;
    let mut a = Asm {
        gen,
        insts: Vec::with_capacity(64),
        code: Vec::with_capacity(320),
    };

    // 1. Kernarg addresses, moved to this case (workgroup id x in s2).
    a.emit(
        Inst::Smem {
            op: SmemOp::LoadB256,
            sdata: 4,
            sbase: 0,
            offset: 0,
            soffset: None,
        },
        "lds_in, lanes_in, lds_out, lanes_out",
    )?;
    a.emit(
        Inst::Smem {
            op: SmemOp::LoadB64,
            sdata: 12,
            sbase: 0,
            offset: 0x20,
            soffset: None,
        },
        "wave_in",
    )?;
    a.emit(
        vop2(Vop2Op::AndB32, l.lane, Operand::imm(0x3ff), 0),
        "lane = work-item id x, bits [9:0] of v0",
    )?;
    a.emit(
        sop2(
            Sop2Op::MulI32,
            14,
            s(2),
            Operand::imm(variant.lds_size as i32),
        ),
        "s14 = case * LDS size",
    )?;
    a.emit(Inst::waitcnt(Waitcnt::lgkm(0)), "kernarg addresses loaded")?;
    add_offset(&mut a, 4, "lds_in of this case")?;
    add_offset(&mut a, 8, "lds_out of this case")?;
    let per_case = [
        (6, abi::LANE_IN_BYTES * lanes, "lanes_in of this case"),
        (10, abi::LANE_OUT_BYTES * lanes, "lanes_out of this case"),
        (12, abi::wave_in_bytes(wave), "wave_in of this case"),
    ];
    for (lo, stride, note) in per_case {
        debug_assert!(stride.is_power_of_two());
        let shift = stride.trailing_zeros();
        a.emit(
            sop2(Sop2Op::LshlB32, 14, s(2), Operand::imm(shift as i32)),
            "",
        )?;
        add_offset(&mut a, lo, note)?;
    }
    a.emit(
        Inst::Smem {
            op: SmemOp::LoadB64,
            sdata: 16,
            sbase: 12,
            offset: 0,
            soffset: None,
        },
        "s16 = EXEC, s17 = M0 of this case",
    )?;
    if wave == WaveSize::Wave64 {
        a.emit(
            Inst::Smem {
                op: SmemOp::LoadB32,
                sdata: 19,
                sbase: 12,
                offset: abi::WAVE_IN_EXEC_HI as i32,
                soffset: None,
            },
            "s19 = EXEC[63:32] of this case",
        )?;
    }

    // 2. The initial LDS image.
    copy_lds(&mut a, &l, wave, variant.lds_size, 4, true)?;

    // 3. The lane's registers: each operand's from its slot of the lane record. Without `regs`
    // addr and all four vdst dwords always (the sentinel shows partial writes); with `regs`
    // exactly the registers the operands name (overlapped ones get one value from a consistent
    // case, whichever load lands last).
    let ops = info.operands;
    let (addr_dwords, vdst_dwords) = if l.named {
        (ops.addr, ops.vdst)
    } else {
        (1, 4)
    };
    a.emit(
        vop2(Vop2Op::LshlrevB32, l.offset, Operand::imm(6), l.lane),
        "offset = lane * 64: this lane's lanes_in record",
    )?;
    for (field, dwords, at, note) in [
        (Field::Addr, addr_dwords, abi::LANE_IN_ADDR, "addr"),
        (Field::Data0, ops.data0, abi::LANE_IN_DATA0, "data0"),
        (Field::Data1, ops.data1, abi::LANE_IN_DATA1, "data1"),
        (
            Field::Vdst,
            vdst_dwords,
            abi::LANE_IN_VDST,
            if l.named {
                "vdst before the instruction"
            } else {
                "vdst sentinel, all four dwords"
            },
        ),
    ] {
        if dwords > 0 {
            let op = GlobalOp::for_dwords(dwords, false).expect("operands are 1..=4 dwords");
            a.emit(global(op, l.reg(field), l.offset, 6, at as i16), note)?;
        }
    }
    a.emit(
        Inst::waitcnt(Waitcnt {
            vmcnt: 0,
            expcnt: Waitcnt::EXP_MAX,
            lgkmcnt: 0,
        }),
        "lane registers, EXEC/M0 and the LDS image are in",
    )?;

    // 4.-5. M0 and EXEC from the case, the instruction under test.
    a.emit(mov(Operand::M0, s(17)), "M0 of the case")?;
    a.emit(mov(Operand::ExecLo, s(16)), "EXEC of the case")?;
    if wave == WaveSize::Wave64 {
        a.emit(mov(Operand::ExecHi, s(19)), "")?;
    }
    // LLVM's hazard recognizer puts one wait state between an SALU write of M0 and the DS ops
    // that read it (ds_*_addtid: https://reviews.llvm.org/D130783); the EXEC write is one, this
    // s_nop is a second, harmless where the hazard does not exist.
    a.emit(
        Inst::Sopp {
            op: SoppOp::Nop,
            simm16: 0,
        },
        "a wait state between the M0 write and a DS read of M0",
    )?;
    a.emit(Inst::Ds(ds), "the instruction under test")?;
    a.emit(Inst::waitcnt(Waitcnt::lgkm(0)), "its results have arrived")?;
    a.emit(all_lanes(wave), "restore EXEC: store every lane")?;

    // 6. Every lane's vdst and addr (with `regs`: every register an operand names), then the
    // LDS image.
    let out_shift = abi::LANE_OUT_BYTES.trailing_zeros();
    debug_assert!(abi::LANE_OUT_BYTES.is_power_of_two());
    a.emit(
        vop2(
            Vop2Op::LshlrevB32,
            l.offset,
            Operand::imm(out_shift as i32),
            l.lane,
        ),
        "offset = lane * 64: this lane's lanes_out record",
    )?;
    let (data0_out, data1_out) = if l.named {
        (ops.data0, ops.data1)
    } else {
        (0, 0)
    };
    for (field, dwords, at, note) in [
        (Field::Vdst, vdst_dwords, abi::LANE_OUT_VDST, "vdst"),
        (Field::Addr, addr_dwords, abi::LANE_OUT_ADDR, "addr"),
        (Field::Data0, data0_out, abi::LANE_OUT_DATA0, "data0"),
        (Field::Data1, data1_out, abi::LANE_OUT_DATA1, "data1"),
    ] {
        if dwords > 0 {
            let op = GlobalOp::for_dwords(dwords, true).expect("operands are 1..=4 dwords");
            a.emit(global(op, l.reg(field), l.offset, 10, at as i16), note)?;
        }
    }
    copy_lds(&mut a, &l, wave, variant.lds_size, 8, false)?;
    a.emit(
        Inst::Sopp {
            op: SoppOp::Endpgm,
            simm16: 0,
        },
        "",
    )?;

    Ok(Kernel {
        name: kernel_name(variant),
        variant: *variant,
        gen,
        descriptor: KernelDescriptor::for_wave_in(gen, variant, l.vgpr_count, wave),
        insts: a.insts,
        code: a.code,
        vgpr_count: l.vgpr_count,
        sgpr_count: match wave {
            WaveSize::Wave32 => SGPR_COUNT,
            WaveSize::Wave64 => SGPR_COUNT_WAVE64,
        },
    })
}
