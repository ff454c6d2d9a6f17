//! The kernel descriptor of every target kernels are built for (processors and generic targets,
//! each generation's) against each installed oracle LLVM (19 and 22, each for the targets it
//! knows): the descriptor the generator makes is byte for byte what `llvm-mc-N -mcpu=<target>`
//! writes for the same `.amdhsa_kernel` directives (`code_object::assembly`, which on gfx12 has
//! no `.amdhsa_dx10_clamp` / `.amdhsa_ieee_mode`), over FP modes, LDS sizes and the wave sizes the target runs (gfx9: wave64 only);
//! and the gfx11 descriptor differs from the gfx12 one only in those two bits.

mod common;

use ds_isa::ds::{DsOp, Generation};
use ds_isa::target::Target;
use ds_kernels::code_object::descriptor::{rsrc1, KernelDescriptor};
use ds_kernels::code_object::{self, descriptor};
use ds_kernels::generator::{generate_for, Kernel};
use ds_kernels::template;
use ds_reference::wave::{FpMode, WaveSize};
use object::{Object, ObjectSection, ObjectSymbol};

/// Kernels of one op over FP modes x LDS sizes x wave sizes (the descriptor fields they move).
fn kernels(t: &Target) -> Vec<Kernel> {
    let mut ks = Vec::new();
    for (fp32, fp16, ieee) in [
        (true, true, true),
        (false, false, false),
        (true, false, true),
    ] {
        for lds in [512, 1024, 65536] {
            for wave in ds_kernels::wave_sizes(t) {
                let mut v = common::variant(DsOp::AddU32);
                v.mode = FpMode {
                    fp32_denormals: fp32,
                    fp16_fp64_denormals: fp16,
                    ieee,
                };
                v.lds_size = lds;
                v.wave = wave;
                ks.push(generate_for(t, &v).unwrap());
            }
        }
    }
    ks
}

/// The descriptor bytes with the entry offset zeroed (an object file leaves it to the linker).
fn without_entry(mut b: [u8; descriptor::SIZE]) -> [u8; descriptor::SIZE] {
    b[16..24].fill(0);
    b
}

#[test]
fn descriptors_are_what_llvm_mc_writes_for_every_target() {
    for (llvm, t) in common::llvm_targets() {
        let ks = kernels(t);
        let dir = common::temp_dir("descriptor");
        let mcpu = format!("-mcpu={t}");
        let wave64 = ["-mattr=+wavefrontsize64"];
        // One object per wave size: -mattr decides the wavefront size llvm-mc assembles for.
        let runs = ds_kernels::wave_sizes(t);
        for (wave, attrs) in [(WaveSize::Wave32, &[][..]), (WaveSize::Wave64, &wave64[..])]
            .into_iter()
            .filter(|(w, _)| runs.contains(w))
        {
            let (s, o) = (
                dir.join(format!("{t}-{}-{}.s", llvm.major, wave.lanes())),
                dir.join(format!("{t}-{}-{}.o", llvm.major, wave.lanes())),
            );
            let of_wave: Vec<Kernel> = ks
                .iter()
                .filter(|k| k.variant.wave == wave)
                .cloned()
                .collect();
            std::fs::write(&s, code_object::assembly(t, &of_wave)).unwrap();
            let mut args = vec![
                "-triple=amdgcn-amd-amdhsa",
                mcpu.as_str(),
                "-filetype=obj",
                s.to_str().unwrap(),
                "-o",
                o.to_str().unwrap(),
            ];
            args.extend_from_slice(attrs);
            common::run(&llvm.mc(), &args, None);
            let bytes = std::fs::read(&o).unwrap();
            let file = object::File::parse(&*bytes).unwrap();
            let rodata = file.section_by_name(".rodata").expect(".rodata");
            let data = rodata.data().unwrap();
            let mut checked = 0;
            for k in &of_wave {
                let sym = file
                    .symbols()
                    .find(|s| s.name() == Ok(format!("{}.kd", k.name).as_str()))
                    .unwrap_or_else(|| panic!("{t}: no {}.kd", k.name));
                let at = (sym.address() - rodata.address()) as usize;
                let theirs: [u8; descriptor::SIZE] =
                    data[at..at + descriptor::SIZE].try_into().unwrap();
                assert_eq!(
                    without_entry(k.descriptor.to_bytes()),
                    without_entry(theirs),
                    "{} {t}: {}",
                    llvm.label(),
                    k.name
                );
                checked += 1;
            }
            assert_eq!(checked, 9);
        }
        println!(
            "{} {t}: {} descriptors byte for byte as llvm-mc writes them",
            llvm.label(),
            ks.len()
        );
    }
}

/// gfx12 dropped DX10_CLAMP and IEEE_MODE: a gfx11 descriptor differs from the gfx12 one of the
/// same variant and entry state in those bits only (DX10_CLAMP always, IEEE_MODE with IEEE on).
#[test]
fn gfx11_and_gfx12_descriptors_differ_in_dx10_clamp_and_ieee_mode_only() {
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
            // A target of each generation with the same entry state (no padded user SGPRs).
            let same_entry = |gen: Generation| {
                gen.targets()
                    .find(|t| !t.user_sgpr_init16_bug)
                    .expect("a target without the init-16 bug")
            };
            let g12 = template::descriptor(same_entry(Generation::Gfx12), &v, 32, 0);
            let g11 = template::descriptor(same_entry(Generation::Gfx11), &v, 32, 0);
            let want = rsrc1::DX10_CLAMP | if ieee { rsrc1::IEEE_MODE } else { 0 };
            assert_eq!(g11.compute_pgm_rsrc1 ^ g12.compute_pgm_rsrc1, want);
            assert_eq!(
                KernelDescriptor {
                    compute_pgm_rsrc1: g12.compute_pgm_rsrc1,
                    ..g11
                },
                g12
            );
        }
    }
}
