//! Pins the instructions the generated kernels use (besides the DS op under test): the set a
//! device must execute, as the generator's docs list it. A new form in the template fails here,
//! so the list (and the emulated device) can follow.

mod common;

use ds_kernels::inst::Inst;
use std::collections::BTreeSet;

#[test]
fn kernels_use_only_the_documented_instruction_forms() {
    let mut forms = BTreeSet::new();
    // Every op's kernel, and every aliasing variant's (`regs`: operand-sized loads and dumps).
    let aliasing = ds_kernels::isa::runnable_ops().flat_map(|op| {
        ds_reference::regs::Alias::for_op(op)
            .into_iter()
            .map(move |(_, regs)| {
                ds_kernels::generator::generate(&ds_reference::wave::Variant {
                    regs: Some(regs),
                    ..common::variant(op)
                })
                .unwrap()
            })
    });
    for k in common::all_kernels().into_iter().chain(aliasing) {
        let mut under_test = 0;
        for (inst, note) in &k.insts {
            if *note == "the instruction under test" {
                under_test += 1;
                continue;
            }
            let text = inst.to_string();
            let mnemonic = text.split_whitespace().next().unwrap().to_string();
            if let Inst::Sop1 { sdst, .. } = inst {
                forms.insert(format!("{mnemonic} {sdst}"));
            } else {
                forms.insert(mnemonic);
            }
        }
        assert_eq!(under_test, 1, "{}", k.name);
    }
    let expected: BTreeSet<String> = [
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
        "s_add_i32",
        "s_add_u32",
        "s_addc_u32",
        "s_cbranch_scc1",
        "s_cmp_lg_u32",
        "s_endpgm",
        "s_load_b256",
        "s_load_b64",
        "s_lshl_b32",
        "s_mov_b32 exec_lo",
        "s_mov_b32 m0",
        "s_movk_i32",
        "s_mul_i32",
        "s_nop",
        "s_waitcnt",
        "v_add_nc_u32_e32",
        "v_and_b32_e32",
        "v_lshlrev_b32_e32",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(forms, expected);
}
