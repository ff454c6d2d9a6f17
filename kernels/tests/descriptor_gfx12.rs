//! The gfx12 kernel descriptor against LLVM 19: `template::descriptor(<a gfx12 target>, ...)` is
//! byte for byte what `llvm-mc-19 -mcpu=<the first gfx12 target>` writes for the same
//! `.amdhsa_kernel` directives (which on gfx12 have no `.amdhsa_dx10_clamp` / `.amdhsa_ieee_mode`),
//! over FP modes and LDS sizes; and the descriptor of a gfx11 target with the same entry state
//! (no padded user SGPRs) differs from it only in those two bits.

mod common;

use ds_kernels::code_object::descriptor::{rsrc1, KernelDescriptor};
use ds_kernels::template;
use ds_reference::isa::{DsOp, Generation};
use ds_reference::wave::FpMode;
use object::{Object, ObjectSection};

fn first_target(gen: Generation) -> &'static str {
    gen.targets()
        .next()
        .expect("a target of the generation")
        .name
}

/// The descriptor llvm-mc writes for the directives of `d`, read from `.rodata`.
fn llvm_descriptor(mc: &std::path::PathBuf, d: &KernelDescriptor, vgprs: u32) -> Vec<u8> {
    let cpu = first_target(Generation::Gfx12);
    let (d32, d16) = d.denorm_modes();
    let src = format!(
        ".amdgcn_target \"amdgcn-amd-amdhsa--{cpu}\"\n.amdhsa_code_object_version 5\n\
         .text\n.globl k\n.p2align 8\nk:\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n\
         \x20 .amdhsa_next_free_vgpr {vgprs}\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_reserve_vcc 0\n\
         \x20 .amdhsa_wavefront_size32 1\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
         \x20 .amdhsa_user_sgpr_count 2\n  .amdhsa_system_sgpr_workgroup_id_x 1\n\
         \x20 .amdhsa_system_vgpr_workitem_id 0\n  .amdhsa_group_segment_fixed_size {}\n\
         \x20 .amdhsa_kernarg_size {}\n  .amdhsa_float_denorm_mode_32 {d32}\n\
         \x20 .amdhsa_float_denorm_mode_16_64 {d16}\n  .amdhsa_workgroup_processor_mode 1\n\
         \x20 .amdhsa_memory_ordered 1\n.end_amdhsa_kernel\n",
        d.group_segment_fixed_size, d.kernarg_size
    );
    let dir = common::temp_dir("descriptor_gfx12");
    let (s, o) = (dir.join("k.s"), dir.join("k.o"));
    std::fs::write(&s, src).unwrap();
    let mcpu = format!("-mcpu={cpu}");
    common::run(
        mc,
        &[
            "-triple=amdgcn-amd-amdhsa",
            &mcpu,
            "-filetype=obj",
            s.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
        ],
        None,
    );
    let bytes = std::fs::read(&o).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let rodata = file.section_by_name(".rodata").expect(".rodata");
    rodata.data().unwrap()[..64].to_vec()
}

#[test]
fn gfx12_descriptors_are_what_llvm_mc_writes() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    let mut checked = 0;
    for (fp32, fp16, ieee) in [
        (true, true, true),
        (false, false, false),
        (true, false, true),
    ] {
        for lds in [512, 1024, 65536] {
            let mut v = common::variant(DsOp::AddU32);
            v.mode = FpMode {
                fp32_denormals: fp32,
                fp16_fp64_denormals: fp16,
                ieee,
            };
            v.lds_size = lds;
            let gfx12 = Generation::Gfx12.targets().next().unwrap();
            let d = template::descriptor(gfx12, &v, 32);
            assert_eq!(
                d.to_bytes().to_vec(),
                llvm_descriptor(&mc, &d, 32),
                "fp32 {fp32} fp16 {fp16} lds {lds}"
            );
            // gfx11 differs in DX10_CLAMP and (with IEEE on) IEEE_MODE only.
            let gfx11 = Generation::Gfx11
                .targets()
                .find(|t| !t.user_sgpr_init16_bug)
                .unwrap();
            let g11 = template::descriptor(gfx11, &v, 32);
            let want = rsrc1::DX10_CLAMP | if ieee { rsrc1::IEEE_MODE } else { 0 };
            assert_eq!(g11.compute_pgm_rsrc1 ^ d.compute_pgm_rsrc1, want);
            assert_eq!(
                KernelDescriptor {
                    compute_pgm_rsrc1: d.compute_pgm_rsrc1,
                    ..g11
                },
                d
            );
            checked += 1;
        }
    }
    println!("gfx12 descriptors: {checked}/9 byte for byte as llvm-mc-19 writes them");
}
