//! Pins the instructions the generated kernels use (besides the DS op under test): the set a
//! device must execute, per generation (gfx9, gfx10, gfx11, gfx12, gfx1250), as the generator's
//! docs list it. A new form in the
//! template fails here, so the list (and the emulated device) can follow. A form is the mnemonic,
//! with the destination for `s_mov_b32`/`s_mov_b64` and `<- ttmp` where it reads a trap
//! temporary (gfx12's workgroup id, `ttmp9`).

use crate::common;

use ds_isa::ds::Generation;
use ds_isa::inst::{Inst, Operand};
use ds_kernels::generator::{generate_for, Kernel};
use ds_kernels::kernel_targets;
use ds_reference::wave::{Variant, WaveSize};
use std::collections::{BTreeMap, BTreeSet};

/// Every op's kernel for `t` in `wave`, every aliasing variant's (wave32: `regs`, operand-sized
/// loads and dumps), and LDS sizes that leave a partial copy round and a granule tail to zero.
fn kernels(t: &'static ds_isa::target::Target, wave: WaveSize) -> Vec<Kernel> {
    let base = |op| Variant {
        wave,
        ..common::variant(op)
    };
    let mut ks: Vec<Kernel> = ds_isa::ds::runnable_ops_on(t)
        .map(|op| generate_for(t, &base(op)).unwrap())
        .collect();
    // The aliasing variants in the target's first wave size (wave32; gfx9 wave64), tuples even
    // where the target needs it.
    if wave == ds_kernels::wave_sizes(t)[0] {
        let even = !t.ds_features.contains(ds_isa::ds::DsFeatures::UNALIGNED);
        for op in ds_isa::ds::runnable_ops_on(t) {
            for (_, regs) in ds_reference::regs::Alias::for_op_in(op, even) {
                let v = Variant {
                    regs: Some(regs),
                    ..base(op)
                };
                ks.push(generate_for(t, &v).unwrap());
            }
        }
    }
    for lds_size in [4, 132, 388, 900] {
        let v = Variant {
            lds_size,
            ..base(ds_isa::ds::DsOp::AddRtnU32)
        };
        ks.push(generate_for(t, &v).unwrap());
    }
    ks
}

fn form(gen: Generation, inst: &Inst) -> String {
    let text = inst.text(gen).to_string();
    let mut form = text.split_whitespace().next().unwrap().to_string();
    let sources: Vec<Operand> = match *inst {
        Inst::Sop1 { src0, .. } => {
            let dst = text
                .split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(',');
            form.push_str(&format!(" {dst}"));
            vec![src0]
        }
        Inst::Sop2 { src0, src1, .. } | Inst::Sopc { src0, src1, .. } => vec![src0, src1],
        Inst::Vop1 { src0, .. } | Inst::Vop2 { src0, .. } | Inst::Vopc { src0, .. } => {
            vec![src0]
        }
        Inst::Vop3 { src, .. } => src.to_vec(),
        _ => Vec::new(),
    };
    if sources.iter().any(|s| matches!(s, Operand::Ttmp(_))) {
        form.push_str(" <- ttmp");
    }
    form
}

#[test]
fn kernels_use_only_the_documented_instruction_forms() {
    let mut forms: BTreeMap<Generation, BTreeSet<String>> = BTreeMap::new();
    for t in kernel_targets() {
        for wave in ds_kernels::wave_sizes(t) {
            for k in kernels(t, wave) {
                let mut under_test = 0;
                for (inst, note) in &k.insts {
                    if *note == "the instruction under test" {
                        under_test += 1;
                        continue;
                    }
                    forms
                        .entry(t.generation)
                        .or_default()
                        .insert(form(t.generation, inst));
                }
                assert_eq!(under_test, 1, "{}", k.name);
            }
        }
    }
    let common = [
        "ds_load_b32",
        "ds_store_b32",
        "global_load_b128",
        "global_load_b32",
        "global_load_b64",
        "global_load_b96",
        "global_store_b128",
        "global_store_b32",
        "global_store_b64",
        "global_store_b96",
        "s_cbranch_scc1",
        "s_cmp_lg_u32",
        "s_endpgm",
        "s_load_b256",
        "s_load_b32",
        "s_load_b64",
        "s_mov_b32 exec_hi",
        "s_mov_b32 exec_lo",
        "s_mov_b32 m0",
        "s_mov_b64 exec",
        "s_movk_i32",
        "s_nop",
        "v_add_nc_u32_e32",
        "v_and_b32_e32",
        "v_lshlrev_b32_e32",
        "v_mov_b32_e32",
    ];
    let gfx11 = [
        "s_add_i32",
        "s_add_u32",
        "s_addc_u32",
        "s_lshl_b32",
        "s_mul_i32",
        "s_waitcnt",
    ];
    let gfx12 = [
        "s_add_co_ci_u32",
        "s_add_co_i32",
        "s_add_co_u32",
        "s_lshl_b32 <- ttmp",
        "s_mul_i32 <- ttmp",
        "s_wait_dscnt",
        "s_wait_kmcnt",
        "s_wait_loadcnt",
    ];
    let expected = |own: &[&str]| -> BTreeSet<String> {
        common.iter().chain(own).map(|s| s.to_string()).collect()
    };
    assert_eq!(forms[&Generation::Gfx11], expected(&gfx11), "gfx11");
    assert_eq!(forms[&Generation::Gfx12], expected(&gfx12), "gfx12");
    // gfx1250: gfx12's waits and spellings in wave32 only; LLVM's MODE prologue; the workgroup id computed
    // from ttmp9, ttmp6 and IB_STS2 into s2 (so the case offsets read s2, not ttmp9); the
    // `s_wait_alu` around the asynchronous barrier arrive.
    let gfx1250 = [
        "s_add_co_ci_u32",
        "s_add_co_i32",
        "s_add_co_u32",
        "s_and_b32 <- ttmp",
        "s_bfe_u32 <- ttmp",
        "s_cmp_eq_u32",
        "s_cselect_b32 <- ttmp",
        "s_getreg_b32",
        "s_lshl_b32",
        "s_mul_i32",
        "s_mul_i32 <- ttmp",
        "s_setreg_imm32_b32",
        "s_wait_alu",
        "s_wait_asynccnt",
        "s_wait_dscnt",
        "s_wait_kmcnt",
        "s_wait_loadcnt",
    ];
    // (Wave32 only: none of the wave64 template's EXEC[63:32] forms.)
    let wave64 = ["s_load_b32", "s_mov_b32 exec_hi", "s_mov_b64 exec"];
    let wave32_only: BTreeSet<String> = expected(&gfx1250)
        .into_iter()
        .filter(|f| !wave64.contains(&f.as_str()))
        .collect();
    assert_eq!(forms[&Generation::Gfx12_5], wave32_only, "gfx1250");
    // gfx10 spells the same forms the gfx9 way (widths in dwords, ds_read/ds_write); on RDNA 1
    // (errata, ds_isa::errata) it waits for stores around the copy loops' branches
    // (`s_waitcnt_vscnt`) and for vector memory reads before scalar writes (`s_waitcnt_depctr`).
    let gfx10: BTreeSet<String> = [
        "ds_read_b32",
        "ds_write_b32",
        "global_load_dword",
        "global_load_dwordx2",
        "global_load_dwordx3",
        "global_load_dwordx4",
        "global_store_dword",
        "global_store_dwordx2",
        "global_store_dwordx3",
        "global_store_dwordx4",
        "s_add_i32",
        "s_add_u32",
        "s_addc_u32",
        "s_cbranch_scc1",
        "s_cmp_lg_u32",
        "s_endpgm",
        "s_load_dword",
        "s_load_dwordx2",
        "s_load_dwordx8",
        "s_lshl_b32",
        "s_mov_b32 exec_hi",
        "s_mov_b32 exec_lo",
        "s_mov_b32 m0",
        "s_mov_b64 exec",
        "s_movk_i32",
        "s_mul_i32",
        "s_nop",
        "s_waitcnt",
        "s_waitcnt_depctr",
        "s_waitcnt_vscnt",
        "v_add_nc_u32_e32",
        "v_and_b32_e32",
        "v_lshlrev_b32_e32",
        "v_mov_b32_e32",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // gfx9: gfx10's forms without the store-counter and dependency-counter waits (neither exists
    // there, nor do RDNA 1's errata), and its carry-less add spelled `v_add_u32`.
    let gfx9: BTreeSet<String> = gfx10
        .iter()
        .filter(|f| *f != "s_waitcnt_vscnt" && *f != "s_waitcnt_depctr")
        .map(|f| f.replace("v_add_nc_u32_e32", "v_add_u32_e32"))
        .collect();
    assert_eq!(forms[&Generation::Gfx10], gfx10, "gfx10");
    assert_eq!(forms[&Generation::Gfx9], gfx9, "gfx9");
}
