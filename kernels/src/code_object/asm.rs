//! The same kernels as LLVM assembly: the listings inside `.amdhsa_kernel` descriptor directives
//! and an `.amdgpu_metadata` YAML block (LLVM AMDGPUUsage, "Code Object V3 and Above Directives":
//! `.amdgcn_target`, `.amdhsa_code_object_version` (5, or 6 for a generic target and gfx12.5), `.amdhsa_kernel`,
//! `.amdgpu_metadata`). Fed to `llvm-mc-N -triple=amdgcn-amd-amdhsa -mcpu=<target> -filetype=obj`
//! and `ld.lld-N -shared` (N = 19 and 22), it is
//! the oracle the written code object is compared with, and the baseline of the benchmark.

use super::metadata::Metadata;
use super::write::metadata;
use crate::generator::Kernel;
use ds_isa::target::Target;
use std::fmt::Write;

/// The assembly source of a code object for `target` holding `kernels`.
pub fn assembly(target: &Target, kernels: &[Kernel]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        ".amdgcn_target \"{}\"\n.amdhsa_code_object_version {}\n",
        target.hsa_target_id(),
        super::code_object_version(target)
    );
    for k in kernels {
        let n = &k.name;
        let _ = write!(
            s,
            "\n.text\n.globl {n}\n.p2align 8\n.type {n},@function\n.protected {n}\n{n}:\n"
        );
        for line in k.listing().lines() {
            let _ = writeln!(s, "  {line}");
        }
        let _ = write!(s, ".L{n}_end:\n.size {n}, .L{n}_end-{n}\n");
        let d = &k.descriptor;
        let (d32, d16) = d.denorm_modes();
        let _ = write!(
            s,
            "\n.rodata\n.p2align 6\n.amdhsa_kernel {n}\n\
             \x20 .amdhsa_next_free_vgpr {}\n\
             \x20 .amdhsa_next_free_sgpr {}\n\
             \x20 .amdhsa_reserve_vcc 0\n\
             \x20 .amdhsa_user_sgpr_kernarg_segment_ptr 1\n\
             \x20 .amdhsa_user_sgpr_count {}\n\
             \x20 .amdhsa_system_sgpr_workgroup_id_x 1\n\
             \x20 .amdhsa_system_vgpr_workitem_id 0\n\
             \x20 .amdhsa_group_segment_fixed_size {}\n\
             \x20 .amdhsa_kernarg_size {}\n\
             \x20 .amdhsa_float_denorm_mode_32 {d32}\n\
             \x20 .amdhsa_float_denorm_mode_16_64 {d16}\n\
             {}{}\
             .end_amdhsa_kernel\n.protected {n}.kd\n",
            k.vgpr_total(),
            k.sgpr_count,
            d.user_sgpr_count(),
            d.group_segment_fixed_size,
            d.kernarg_size,
            // The generation's own mode bits (gfx12 has neither DX10 clamp nor IEEE mode, and
            // llvm-mc-19 refuses both directives for it).
            crate::template::of(k.gen)
                .map(|t| t.mode_directives(d.compute_pgm_rsrc1))
                .unwrap_or_default(),
            // The generation's own fields (wave32, WGP mode ... on GFX10+; gfx9's accum_offset).
            crate::template::of(k.gen)
                .map(|t| t.generation_directives(target, d))
                .unwrap_or_default(),
        );
    }
    // After the last kernel, the padding LLVM writes there, as `llc` writes it.
    if let Some(end) = super::code_end(target) {
        let word = u32::from_le_bytes(super::padding_word(target));
        let _ = write!(
            s,
            "\n.text\n.p2alignl {}, {word:#x}\n.fill {}, 4, {word:#x}\n",
            end.line_bytes.trailing_zeros(),
            end.lines * end.line_bytes / 4
        );
    }
    s.push_str("\n.amdgpu_metadata\n");
    s.push_str(&yaml(&metadata(target, kernels)));
    s.push_str(".end_amdgpu_metadata\n");
    s
}

/// The metadata as the YAML `.amdgpu_metadata` takes.
fn yaml(m: &Metadata) -> String {
    let mut s = String::from("---\n");
    let version: Vec<String> = m.version.iter().map(u32::to_string).collect();
    let _ = writeln!(s, "amdhsa.version: [ {} ]", version.join(", "));
    let _ = writeln!(s, "amdhsa.target: {}", m.target);
    s.push_str("amdhsa.kernels:\n");
    for k in &m.kernels {
        let _ = writeln!(s, "  - .name: {}", k.name);
        for (key, value) in [
            (".symbol", k.symbol.clone()),
            (".kernarg_segment_size", k.kernarg_segment_size.to_string()),
            (
                ".kernarg_segment_align",
                k.kernarg_segment_align.to_string(),
            ),
            (
                ".group_segment_fixed_size",
                k.group_segment_fixed_size.to_string(),
            ),
            (
                ".private_segment_fixed_size",
                k.private_segment_fixed_size.to_string(),
            ),
            (".wavefront_size", k.wavefront_size.to_string()),
            (".sgpr_count", k.sgpr_count.to_string()),
            (".vgpr_count", k.vgpr_count.to_string()),
            (
                ".agpr_count",
                k.agpr_count.map(|n| n.to_string()).unwrap_or_default(),
            ),
            (".sgpr_spill_count", k.sgpr_spill_count.to_string()),
            (".vgpr_spill_count", k.vgpr_spill_count.to_string()),
            (
                ".max_flat_workgroup_size",
                k.max_flat_workgroup_size.to_string(),
            ),
            (".uses_dynamic_stack", k.uses_dynamic_stack.to_string()),
        ] {
            // Absent fields (`.agpr_count` off the unified-register targets) are not written.
            if value.is_empty() {
                continue;
            }
            let _ = writeln!(s, "    {key}: {value}");
        }
        s.push_str("    .args:\n");
        for a in &k.args {
            let _ = write!(
                s,
                "      - {{ .offset: {}, .size: {}, .value_kind: {}",
                a.offset, a.size, a.value_kind
            );
            if let Some(name) = &a.name {
                let _ = write!(s, ", .name: {name}");
            }
            if let Some(space) = &a.address_space {
                let _ = write!(s, ", .address_space: {space}");
            }
            s.push_str(" }\n");
        }
    }
    s.push_str("...\n");
    s
}
