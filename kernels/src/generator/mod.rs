//! The kernel generator: for a [`Variant`] (any runnable DS op, its offsets, LDS size and FP
//! mode) and a target, the kernel that runs that one instruction over a batch of cases, built
//! from one template with the project's own assembler ([`ds_isa::inst`], and the DS table's encoder
//! for every DS instruction). The buffers it reads and writes are [`crate::abi`]'s; what differs
//! per generation (waits, descriptor mode bits) is asked of [`crate::template`]; where the
//! kernarg pointer, the workgroup id and the work-item id arrive is the target's entry state
//! ([`crate::entry`]); the VGPR placement is [`Layout`]'s.
//!
//! Entry state (LLVM AMDGPUUsage, "Initial Kernel Execution State"; [`KernelEntry`] per target and
//! wave, held to `llc-19`/`llc-22` by `tests/all/entry_state_llvm.rs`): `s[0:1]` = kernarg segment address;
//! workgroup id x (the case) in `s2` after the two user SGPRs, in `s15` on the targets with
//! the init-16 bug in wave32 (LLVM pads the user SGPRs to 15 for `FeatureUserSGPRInit16Bug`; the descriptor declares
//! them), in `ttmp9` on gfx12 (`FeatureArchitectedSGPRs`); `v0` = work-item ids packed as
//! x \[9:0\], y \[19:10\], z \[29:20\]; EXEC = every lane of the wave (wave32:
//! ENABLE_WAVEFRONT_SIZE32 set, 32 lanes; wave64: clear, 64). Every other register is undefined
//! at entry; the template reads none, and never writes the workgroup id's register.
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
//! | `v[12:19]`   | an 8-dword DATA1 (gfx12's BVH push8 forms), VDST then at `v[20:23]` |
//!
//! (`s15`, the workgroup id on init-16-bug targets in wave32, is not among them; the padding SGPRs
//! `s2`..`s14` there are undefined at entry and free.)
//!
//! That is the layout of a variant without `regs`, where no operands overlap. A variant with
//! `regs` has its operands where it says (any of v0..v255, overlapping as they may), and the
//! template's lane id, byte offset and copy scratch move to the three lowest VGPRs no operand
//! names (the lane id is copied out of v0 by the first VALU instruction, so v0 is free for an
//! operand); the descriptor declares VGPRs up to the highest one used. Such a kernel loads each
//! operand's registers from the case (a consistent case gives an overlapped register one value,
//! so the order does not matter) and dumps exactly the registers the operands name, in either wave
//! size (the wave64 template places them as the wave32 one does: `tests/all/register_aliasing.rs`).
//!
//! Steps (docs/design-notes.md, "Kernels and ABI"): load the kernarg addresses; copy the case's LDS image from
//! `lds_in` into LDS, 128 bytes per round (`global_load_b32` + `ds_store_b32` per lane, the last
//! round under an EXEC mask when the size is not a multiple of 128); zero LDS from the image's end
//! to the end of the workgroup's allocation on hardware (the size rounded up to the target's
//! `lds_granule`, 1024 bytes; nothing when the size is a whole number of granules), so no byte in
//! range on hardware holds what an earlier workgroup left; load the lane's addr, the data0/data1
//! dwords the op reads (an 8-dword DATA1 in two loads, from its 128-byte lane record) and all four
//! vdst sentinel dwords; wait for every load
//! (`s_waitcnt vmcnt(0) lgkmcnt(0)`); set M0, then EXEC; run the instruction;
//! `s_waitcnt lgkmcnt(0)`; restore EXEC; store every lane's vdst and addr; copy LDS out to
//! `lds_out` the same way it came in; `s_endpgm`. One wave per workgroup, so no barrier is needed.
//!
//! What a device must execute (every kernel uses only these; `tests/all/instruction_forms.rs` pins the
//! list per generation): `s_load_b256`, `s_load_b64`, `s_waitcnt`, `s_mul_i32`, `s_add_u32`,
//! `s_addc_u32` (carry in/out through SCC), `s_add_i32`, `s_lshl_b32`, `s_movk_i32`,
//! `s_cmp_lg_u32`, `s_cbranch_scc1`, `s_mov_b32` (to `m0` and `exec_lo`, from SGPRs and
//! constants), `s_nop`, `s_endpgm`, `v_and_b32_e32`, `v_lshlrev_b32_e32`, `v_add_nc_u32_e32`,
//! `v_mov_b32_e32` (the zero of the granule tail), `global_load_b32/b64/b96/b128` and
//! `global_store_b32/b64/b96/b128` (SGPR base + VGPR offset; b64 and b96 stores only with
//! `regs`), `ds_store_b32`, `ds_load_b32`, and the DS instruction under test. The wave64 template
//! adds `s_load_b32` (EXEC\[63:32\] into s19), `s_mov_b32` to `exec_hi` and
//! `s_mov_b64 exec, -1`. gfx12 spells `s_add_u32`/`s_addc_u32`/`s_add_i32` as `s_add_co_u32`/
//! `s_add_co_ci_u32`/`s_add_co_i32`, waits with `s_wait_loadcnt`/`s_wait_kmcnt`/`s_wait_dscnt`,
//! and its `s_mul_i32` and `s_lshl_b32` read the workgroup id from `ttmp9` (SSRC code 117).
//! gfx12.5 starts with `s_setreg_imm32_b32` (MODE bit 25, LLVM's prologue) and computes the
//! workgroup id into `s2` from `ttmp9`, `ttmp6` and `s_getreg_b32 hwreg(HW_REG_IB_STS2, 6, 4)`
//! with `s_bfe_u32`, `s_and_b32`, `s_add_co_i32`, `s_mul_i32`, `s_cmp_eq_u32` and
//! `s_cselect_b32` ([`crate::entry::KernelEntry::workgroup_id_insts`]), and puts `s_wait_alu
//! depctr_vm_vsrc(0)` right before and after `ds_atomic_async_barrier_arrive_b64`, then
//! `s_wait_asynccnt 0x0` ([`crate::template::Template::test_inst_fence`]).

mod acc;
pub mod canary;
mod emit;
mod error;
mod layout;

pub use crate::name::kernel_name;
pub use crate::template::unified_vgprs;
pub use error::GenError;
pub use layout::{test_inst, Layout, ADDR, DATA0, DATA1, MAX_VGPRS, VDST, VGPR_COUNT};

use crate::abi;
use crate::code_object::descriptor::KernelDescriptor;
use crate::entry::KernelEntry;
use crate::template;
use ds_isa::ds::{Field, Generation};
use ds_isa::error::InstError;
use ds_isa::inst::{encode, GlobalOp, Inst, Operand, SmemOp, Sop2Op, SoppOp, Vop2Op, Waitcnt};
use ds_isa::target::Target;
use ds_reference::wave::{Variant, WaveSize};
use emit::{add_offset, all_lanes, copy_lds, global, mov, s, sop2, vop2, zero_tail, Asm};

pub use crate::template::{SGPR_COUNT, SGPR_COUNT_WAVE64};

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
    /// AccVGPRs used (an `acc` variant's; 0 otherwise). On a unified register file they follow
    /// the VGPRs at ACCUM_OFFSET ([`unified_vgprs`]).
    pub agpr_count: u32,
}

impl Kernel {
    /// One instruction per line in LLVM syntax, exactly as `llvm-objdump-19 -d` prints them
    /// (made on demand: building kernels for a run does not need it).
    /// The VGPRs the kernel allocates: its VGPRs, and with AccVGPRs (a unified register file)
    /// those past ACCUM_OFFSET as well ([`unified_vgprs`]): what `.amdhsa_next_free_vgpr` and
    /// the metadata's `.vgpr_count` count.
    pub fn vgpr_total(&self) -> u32 {
        if self.agpr_count == 0 {
            self.vgpr_count
        } else {
            unified_vgprs(self.vgpr_count, self.agpr_count).0
        }
    }

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
            // A DS word is 8 bytes in every generation (the target's features decide only
            // whether it has the op, which the kernel was built for).
            let len = match inst {
                Inst::Ds(_) => 8,
                _ => encode(self.gen, inst).map_or(0, |b| b.len()),
            };
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

/// Builds the kernel for `variant` for the first target of generation `gen` in the target table
/// (the entry state differs between targets of one generation: [`crate::entry`]).
pub fn generate_in(gen: Generation, variant: &Variant) -> Result<Kernel, GenError> {
    let target = gen.targets().next().expect("every generation has a target");
    generate_for(target, variant)
}

/// Builds the kernel for `variant` for `target`: the one template, in the target's generation's
/// encodings and waits ([`crate::template`]: gfx12's split wait counters `s_wait_loadcnt`,
/// `s_wait_kmcnt`, `s_wait_dscnt` for `s_waitcnt`, its SMEM and VGLOBAL encodings and descriptor
/// bits), reading the kernarg pointer and the workgroup id where the target's entry state puts
/// them ([`KernelEntry`]: `s2`, `s15` on init-16-bug targets in wave32, `ttmp9` on gfx12).
///
/// The kernel runs in the variant's wave size (`variant.wave`). The wave64 template differs from
/// the wave32 one in: copy rounds of 256 bytes (the last under `exec_lo` and `exec_hi`), per-case
/// lane records of 64 lanes, a 16-byte `wave_in` record whose dword 2 (EXEC\[63:32\], loaded
/// into s19) goes to `exec_hi`, EXEC restored with `s_mov_b64 exec, -1`, and the wave64
/// descriptor (see [`crate::abi`]).
pub fn generate_for(target: &Target, variant: &Variant) -> Result<Kernel, GenError> {
    let gen = target.generation;
    let tmpl = template::of(gen)
        .ok_or_else(|| GenError::Wave(crate::check_target(target).unwrap_err()))?;
    crate::check_wave(target, variant.wave).map_err(GenError::Wave)?;
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
    abi::check_lds_size_on(target, variant.lds_size).map_err(GenError::Lds)?;
    variant.check_acc(target).map_err(GenError::Acc)?;
    let l = Layout::of(variant)?;
    // Validated for the target: its DS features decide which ops and registers it has.
    let ds = test_inst(target, variant)?;
    let entry = KernelEntry::of(target, wave);
    let (kernarg, case) = (entry.kernarg, entry.workgroup_id_reg());
    let lane_id = entry.workitem_id_x;
    let Operand::Vgpr(lane_vgpr) = lane_id.reg else {
        unreachable!("work-item ids are VGPRs")
    };
    let mut a = Asm::new(target, tmpl, 64);

    // 0. The generation's prologue (gfx12.5's MODE write) and, where workgroups may come in
    // clusters, the workgroup id computed as LLVM does (before anything lands in s[2:4]).
    for (inst, note) in tmpl
        .prologue()
        .into_iter()
        .chain(entry.workgroup_id_insts())
    {
        a.emit(inst, note)?;
    }

    // 1. Kernarg addresses, moved to this case (the case is workgroup id x, read where the
    // entry state delivers it and never written).
    a.emit(
        Inst::Smem {
            op: SmemOp::LoadB256,
            sdata: 4,
            sbase: kernarg,
            offset: 0,
            soffset: None,
        },
        "lds_in, lanes_in, lds_out, lanes_out",
    )?;
    a.emit(
        Inst::Smem {
            op: SmemOp::LoadB64,
            sdata: 12,
            sbase: kernarg,
            offset: 0x20,
            soffset: None,
        },
        "wave_in",
    )?;
    a.emit(
        vop2(
            Vop2Op::AndB32,
            l.lane,
            Operand::imm(lane_id.mask() as i32),
            lane_vgpr,
        ),
        "lane = work-item id x (v0 [9:0])",
    )?;
    a.emit(
        sop2(
            Sop2Op::MulI32,
            14,
            case,
            Operand::imm(variant.lds_size as i32),
        ),
        "s14 = case * LDS size",
    )?;
    a.wait(Waitcnt::lgkm(0), "kernarg addresses loaded")?;
    add_offset(&mut a, 4, "lds_in of this case")?;
    add_offset(&mut a, 8, "lds_out of this case")?;
    let lane_in = abi::lane_in_bytes(info.operands.data1);
    let per_case = [
        (6, lane_in * lanes, "lanes_in of this case"),
        (10, abi::LANE_OUT_BYTES * lanes, "lanes_out of this case"),
        (12, abi::wave_in_bytes(wave), "wave_in of this case"),
    ];
    for (lo, stride, note) in per_case {
        debug_assert!(stride.is_power_of_two());
        let shift = stride.trailing_zeros();
        a.emit(
            sop2(Sop2Op::LshlB32, 14, case, Operand::imm(shift as i32)),
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
    let allocated = variant
        .lds_size
        .next_multiple_of(target.lds_granule)
        .min(target.lds_bytes);
    zero_tail(&mut a, &l, wave, variant.lds_size, allocated)?;

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
    debug_assert!(lane_in.is_power_of_two());
    a.emit(
        vop2(
            Vop2Op::LshlrevB32,
            l.offset,
            Operand::imm(lane_in.trailing_zeros() as i32),
            l.lane,
        ),
        if lane_in == abi::LANE_IN_BYTES {
            "offset = lane * 64: this lane's lanes_in record"
        } else {
            "offset = lane * 128: this lane's lanes_in record (8-dword DATA1)"
        },
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
        // An 8-dword DATA1 comes in two loads: dwords 0..4 from its slot, 4..8 from the
        // record's extension.
        let parts = if dwords > 4 {
            [(4, at, 0), (dwords - 4, abi::LANE_IN_DATA1_HI, 4)]
        } else {
            [(dwords, at, 0), (0, 0, 0)]
        };
        for (n, at, first) in parts.into_iter().filter(|p| p.0 > 0) {
            let op = GlobalOp::for_dwords(n, false).expect("loads of 1..=4 dwords");
            a.emit(
                global(op, l.vgpr_of(field) + first, l.offset, 6, at as i16),
                note,
            )?;
        }
    }
    a.wait(
        Waitcnt {
            vmcnt: 0,
            expcnt: Waitcnt::EXP_MAX,
            lgkmcnt: 0,
        },
        "lane registers, EXEC/M0 and the LDS image are in",
    )?;
    // With `acc`: data and vdst into their AccVGPRs (every lane; no wait state needed before
    // the DS op reads them: see `acc`).
    let acc_words = |field: Field| match field {
        Field::Vdst => vdst_dwords,
        Field::Addr => 0,
        f => ops.dwords(f),
    };
    acc::write_operands(&mut a, &l, acc_words)?;

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
    let (before, after) = tmpl.test_inst_fence(variant.op);
    for (inst, note) in before {
        a.emit(inst, note)?;
    }
    a.emit(Inst::Ds(ds), "the instruction under test")?;
    for (inst, note) in after {
        a.emit(inst, note)?;
    }
    a.wait(Waitcnt::lgkm(0), "its results have arrived")?;
    a.emit(all_lanes(wave), "restore EXEC: store every lane")?;
    let (data0_out, data1_out) = if l.named {
        (ops.data0, ops.data1)
    } else {
        (0, 0)
    };
    // With `acc`: the registers the dump stores, back from their AccVGPRs.
    acc::read_operands(&mut a, &l, |field| match field {
        Field::Vdst => vdst_dwords,
        Field::Data0 => data0_out,
        Field::Data1 => data1_out,
        Field::Addr => 0,
    })?;

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
    for (field, dwords, at, note) in [
        (Field::Vdst, vdst_dwords, abi::LANE_OUT_VDST, "vdst"),
        (Field::Addr, addr_dwords, abi::LANE_OUT_ADDR, "addr"),
        (Field::Data0, data0_out, abi::LANE_OUT_DATA0, "data0"),
        (Field::Data1, data1_out, abi::LANE_OUT_DATA1, "data1"),
    ] {
        if dwords > 0 {
            let op = GlobalOp::for_dwords(dwords, true).expect("operands are 1..=4 dwords");
            a.emit(global(op, l.vgpr_of(field), l.offset, 10, at as i16), note)?;
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
        descriptor: template::descriptor(target, variant, l.vgpr_count, l.agpr_count),
        insts: a.insts,
        code: a.code,
        vgpr_count: l.vgpr_count,
        agpr_count: l.agpr_count,
        sgpr_count: match wave {
            WaveSize::Wave32 => SGPR_COUNT,
            WaveSize::Wave64 => SGPR_COUNT_WAVE64,
        },
    })
}
