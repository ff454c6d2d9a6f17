//! The canary kernel: a self-check a run launches before any op, built with the template's own
//! assembler ([`Asm`], the generation's [`crate::template::Template`] waits and descriptor) and
//! reading the kernarg pointer, the workgroup id and the work-item id exactly where the real
//! kernels read them ([`KernelEntry`]). Each lane writes one record of what the template relies on
//! (the facts it shares with the check, [`crate::contract::canary`]; the check is
//! [`crate::canary`]):
//!
//! | dword | holds                                                                   |
//! |-------|-------------------------------------------------------------------------|
//! | 0     | `MARKER`: this lane ran                                                 |
//! | 1     | work-item id x (`v0 [9:0]`)                                             |
//! | 2     | the workgroup id, raw, from the entry state's register                  |
//! | 3, 4  | `exec_lo`, `exec_hi` at entry (wave32: 0 for `exec_hi`)                 |
//! | 5     | M0, read back after `s_mov_b32 m0, M0_VALUE`                            |
//! | 6     | the dword the next lane (`(lane + 1) % lanes`) stored in LDS            |
//! | 7..10 | the dword behind kernarg addresses 1..4 (each buffer holds `MAGIC + i`) |
//! | 11    | `END`: the last store landed                                            |
//!
//! The records go through kernarg address 0, one block of lanes x 64 bytes per workgroup. The
//! block is `workgroup id & 3` and the record `lane id & (lanes - 1)`: both are clamped before
//! they form an address, so a wrong id writes a wrong record (which the check names) instead of
//! faulting. The kernel never writes EXEC.
//!
//! Instructions (all among those the real kernels use, or in [`ds_isa::inst`]'s table, executed
//! by the emulated device and checked against `llvm-mc` by `tests/all/canary_llvm.rs`): `s_load_b256`,
//! `s_load_b64`, `s_load_b32`, `s_and_b32`, `s_lshl_b32`, `s_add_u32`, `s_addc_u32`, `s_mov_b32`
//! to `m0`, `v_mov_b32` from an SGPR, a trap temporary, `exec_lo`/`exec_hi`, `m0` and constants,
//! `v_and_b32`, `v_add_nc_u32`, `v_lshlrev_b32`, `ds_store_b32`, `ds_load_b32`,
//! `global_store_b128`, the generation's waits, `s_endpgm`.

use super::emit::{add_offset, global, mov, s, sop2, vop2, Asm};
use super::{GenError, Kernel};
use crate::contract::canary::{
    AT_END, AT_EXEC_HI, AT_EXEC_LO, AT_GROUP, AT_LANE, AT_M0, AT_MAGIC, AT_MARKER, AT_NEIGHBOUR,
    END, LDS_TAG, M0_VALUE, MARKER, RECORD_BYTES, RECORD_DWORDS, WORKGROUPS,
};
use crate::entry::KernelEntry;
use crate::template;
use ds_isa::ds::{DsInst, DsOp};
use ds_isa::inst::{GlobalOp, Inst, Operand, SmemOp, Sop2Op, SoppOp, Vop1Op, Vop2Op, Waitcnt};
use ds_isa::target::Target;
use ds_reference::wave::{FpMode, Variant, WaveSize};

/// First VGPR of the record (dwords 0..11 in v8..v19).
const RECORD: u8 = 8;
/// VGPRs the canary uses (v0..v19).
const VGPRS: u32 = 20;
/// SGPRs the canary uses (s0..s19; s15 is untouched: the init-16 targets' workgroup id).
const SGPRS: u32 = 20;

/// The canary's symbol name in waves of `wave` (no DS variant's kernel name starts so).
pub fn name(wave: WaveSize) -> String {
    format!("canary_w{}", wave.lanes())
}

/// What the canary's descriptor is built from: an LDS of one dword per lane, the default FP
/// mode, `ds_load_b32` (the LDS read it checks) as its op.
pub fn variant(wave: WaveSize) -> Variant {
    Variant {
        op: DsOp::LoadB32,
        offset0: 0,
        offset1: 0,
        lds_size: 4 * wave.lanes() as u32,
        mode: FpMode::default(),
        wave,
        regs: None,
        acc: false,
    }
}

fn rec(at: usize) -> u8 {
    RECORD + at as u8
}

fn vmov(vdst: u8, src0: Operand) -> Inst {
    Inst::Vop1 {
        op: Vop1Op::MovB32,
        vdst,
        src0,
    }
}

fn smem(op: SmemOp, sdata: u8, sbase: u8, offset: i32) -> Inst {
    Inst::Smem {
        op,
        sdata,
        sbase,
        offset,
        soffset: None,
    }
}

/// The canary for `target` in waves of `wave`, reading its entry state where `entry` says (the
/// target's own [`KernelEntry`] for a real check; another one plants a mistake, for tests).
pub fn build(target: &Target, wave: WaveSize, entry: &KernelEntry) -> Result<Kernel, GenError> {
    let gen = target.generation;
    let tmpl = template::of(gen)
        .ok_or_else(|| GenError::Wave(crate::check_target(target).unwrap_err()))?;
    let mut a = Asm::new(target, tmpl, 40);
    // The real kernels' start: the generation's prologue, the workgroup id computed where
    // workgroups may come in clusters.
    for (inst, note) in tmpl
        .prologue()
        .into_iter()
        .chain(entry.workgroup_id_insts())
    {
        a.emit(inst, note)?;
    }
    let (k, id) = (entry.kernarg, entry.workgroup_id_reg());
    let lanes = wave.lanes() as u32;
    let Operand::Vgpr(v_ids) = entry.workitem_id_x.reg else {
        unreachable!("work-item ids are VGPRs")
    };
    a.emit(
        smem(SmemOp::LoadB256, 4, k, 0),
        "kernarg addresses 0..3: records, magic 1..3",
    )?;
    a.emit(
        smem(SmemOp::LoadB64, 12, k, 0x20),
        "kernarg address 4: magic 4",
    )?;
    let mask = Operand::imm((WORKGROUPS - 1) as i32);
    a.emit(
        sop2(Sop2Op::AndB32, 14, id, mask),
        "block = workgroup id & 3: clamped before it forms an address",
    )?;
    a.emit(vmov(rec(AT_GROUP), id), "record: the raw workgroup id")?;
    let lane_mask = Operand::imm(entry.workitem_id_x.mask() as i32);
    a.emit(
        vop2(Vop2Op::AndB32, rec(AT_LANE), lane_mask, v_ids),
        "record: lane id = work-item id x (v0 [9:0])",
    )?;
    a.emit(
        vmov(rec(AT_EXEC_LO), Operand::ExecLo),
        "record: EXEC at entry",
    )?;
    let hi = match wave {
        WaveSize::Wave32 => Operand::Int(0),
        WaveSize::Wave64 => Operand::ExecHi,
    };
    a.emit(vmov(rec(AT_EXEC_HI), hi), "")?;
    a.emit(
        mov(Operand::M0, Operand::Literal(M0_VALUE)),
        "M0 = a known value",
    )?;
    let last = Operand::imm(lanes as i32 - 1);
    a.emit(
        vop2(Vop2Op::AndB32, 1, last, rec(AT_LANE)),
        "slot = lane id & (lanes - 1): clamped",
    )?;
    a.emit(vop2(Vop2Op::LshlrevB32, 2, Operand::Int(2), 1), "")?;
    a.emit(
        vop2(Vop2Op::AddNcU32, 3, Operand::Literal(LDS_TAG), rec(AT_LANE)),
        "each lane stores tag + its lane id at LDS slot * 4",
    )?;
    let ds = |op, addr, data0, vdst| {
        Inst::Ds(DsInst {
            addr,
            data0,
            vdst,
            ..DsInst::new(op)
        })
    };
    a.emit(ds(DsOp::StoreB32, 2, 3, 0), "")?;
    a.emit(
        vop2(Vop2Op::AddNcU32, 3, Operand::Int(1), 1),
        "the next lane's LDS address",
    )?;
    a.emit(vop2(Vop2Op::AndB32, 3, last, 3), "")?;
    a.emit(vop2(Vop2Op::LshlrevB32, 3, Operand::Int(2), 3), "")?;
    a.wait(Waitcnt::lgkm(0), "kernarg addresses loaded, LDS stored")?;
    a.emit(
        ds(DsOp::LoadB32, 3, 0, rec(AT_NEIGHBOUR)),
        "record: the next lane's dword through LDS",
    )?;
    for i in 0..4u8 {
        a.emit(
            smem(SmemOp::LoadB32, 16 + i, 6 + 2 * i, 0),
            if i == 0 {
                "the dwords behind kernarg addresses 1..4"
            } else {
                ""
            },
        )?;
    }
    a.emit(vmov(rec(AT_M0), Operand::M0), "record: M0 read back")?;
    let block = (lanes * RECORD_BYTES).trailing_zeros();
    a.emit(
        sop2(Sop2Op::LshlB32, 14, s(14), Operand::imm(block as i32)),
        "",
    )?;
    add_offset(&mut a, 4, "records of this workgroup's block")?;
    let shift = RECORD_BYTES.trailing_zeros() as i32;
    a.emit(
        vop2(Vop2Op::LshlrevB32, 4, Operand::imm(shift), 1),
        "offset = slot * 64",
    )?;
    a.emit(
        vmov(rec(AT_MARKER), Operand::Literal(MARKER)),
        "record: this lane ran",
    )?;
    a.emit(vmov(rec(AT_END), Operand::Literal(END)), "")?;
    a.wait(Waitcnt::lgkm(0), "the magic dwords and the LDS load")?;
    for i in 0..4u8 {
        a.emit(vmov(rec(AT_MAGIC) + i, s(16 + i)), "")?;
    }
    for part in 0..(RECORD_DWORDS / 4) as u8 {
        a.emit(
            global(
                GlobalOp::StoreB128,
                RECORD + 4 * part,
                4,
                4,
                16 * i16::from(part),
            ),
            if part == 0 { "the record" } else { "" },
        )?;
    }
    a.emit(
        Inst::Sopp {
            op: SoppOp::Endpgm,
            simm16: 0,
        },
        "",
    )?;
    let variant = variant(wave);
    let mut descriptor = template::descriptor_with(target, &variant, VGPRS, 0, SGPRS);
    let field = crate::code_object::descriptor::rsrc2::USER_SGPR_SHIFT;
    descriptor.compute_pgm_rsrc2 =
        descriptor.compute_pgm_rsrc2 & !(0x1f << field) | u32::from(entry.user_sgprs) << field;
    Ok(Kernel {
        name: name(wave),
        variant,
        gen,
        insts: a.insts,
        code: a.code,
        descriptor,
        vgpr_count: VGPRS,
        sgpr_count: SGPRS,
        agpr_count: 0,
    })
}
