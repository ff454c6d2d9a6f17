//! The wave64 template places named registers (`variant.regs`) as the wave32 one does: for every
//! aliasing variant of every runnable op of every generation, the wave64 kernel's instruction
//! under test is the wave32 kernel's, it loads and dumps exactly the same operand registers (from
//! and to its 64-lane records) and declares the same VGPRs; and each installed LLVM
//! (`llvm-mc-N -mcpu=<first target of the generation> -mattr=+wavefrontsize64`) assembles the
//! wave64 kernels' listings to their code.

mod common;

use ds_isa::ds::{runnable_ops, Generation};
use ds_isa::inst::Inst;
use ds_isa::target::Target;
use ds_kernels::generator::{generate_for, Kernel};
use ds_reference::regs::Alias;
use ds_reference::wave::{Variant, WaveSize};

/// Every aliasing variant of every runnable op of `t`'s generation: (wave32 kernel, wave64 kernel).
fn pairs(t: &Target) -> Vec<(Kernel, Kernel)> {
    let mut out = Vec::new();
    for op in runnable_ops(t.generation).filter(|op| op.info().on(t)) {
        for (_, regs) in Alias::for_op(op) {
            let v32 = Variant {
                regs: Some(regs),
                ..common::variant(op)
            };
            let v64 = Variant {
                wave: WaveSize::Wave64,
                ..v32
            };
            let k32 = generate_for(t, &v32).unwrap_or_else(|e| panic!("{t} {op}: {e}"));
            let k64 = generate_for(t, &v64).unwrap_or_else(|e| panic!("{t} {op} wave64: {e}"));
            out.push((k32, k64));
        }
    }
    out
}

/// The DS instruction under test, and the registers global loads fill from `lanes_in` and global
/// stores dump to `lanes_out` (the kernarg-relative SGPR pairs s[6:7] and s[10:11]).
fn registers(k: &Kernel) -> (Inst, Vec<u8>, Vec<u8>) {
    let (mut ds, mut loaded, mut dumped) = (None, vec![], vec![]);
    for (inst, note) in &k.insts {
        match *inst {
            Inst::Ds(_) if *note == "the instruction under test" => ds = Some(*inst),
            Inst::Global {
                op,
                vdata,
                saddr: Some(s),
                ..
            } => {
                let regs = (0..op.dwords()).map(|w| vdata + w);
                match (op.is_store(), s) {
                    (false, 6) => loaded.extend(regs),
                    (true, 10) => dumped.extend(regs),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    loaded.sort_unstable();
    dumped.sort_unstable();
    (ds.expect("an instruction under test"), loaded, dumped)
}

#[test]
fn the_wave64_template_places_named_registers_as_the_wave32_one_does() {
    let mut checked = 0;
    // The generations the kernel template is written for.
    for gen in Generation::ALL
        .into_iter()
        .filter(|&g| ds_kernels::template::of(g).is_some())
    {
        let t = gen.targets().next().expect("a target");
        // A generation without wave32 (gfx9) has no wave32 kernel to compare with: its wave64
        // aliasing kernels are `aliasing.rs`'s.
        if !t.wave_sizes.contains(&32) {
            continue;
        }
        for (k32, k64) in pairs(t) {
            let what = format!("{t} {}", k64.name);
            assert!(k64.name.ends_with("_w64"), "{what}");
            assert_eq!(k64.descriptor.wave_size(), WaveSize::Wave64, "{what}");
            assert_eq!(registers(&k64), registers(&k32), "{what}");
            assert_eq!(k64.vgpr_count, k32.vgpr_count, "{what}");
            assert!(k64.descriptor.vgpr_count() >= k64.vgpr_count, "{what}");
            checked += 1;
        }
    }
    assert!(
        checked > 300,
        "{checked} aliasing variants in both wave sizes"
    );
}

#[test]
fn llvm_mc_assembles_every_wave64_aliasing_kernel_to_its_code() {
    let mut runs = 0;
    for llvm in common::llvm::installed() {
        for gen in Generation::ALL
            .into_iter()
            .filter(|&g| ds_kernels::template::of(g).is_some())
        {
            let Some(t) = llvm.targets(gen).into_iter().next() else {
                continue;
            };
            if !t.wave_sizes.contains(&32) {
                continue; // gfx9: aliasing.rs
            }
            let ks: Vec<Kernel> = pairs(t)
                .into_iter()
                .map(|(_, k)| k)
                .filter(|k| !common::beyond(k, llvm.major))
                .collect();
            let input: String = ks.iter().map(Kernel::listing).collect();
            let out = common::run(
                &llvm.mc(),
                &[
                    "-arch=amdgcn",
                    &format!("-mcpu={}", t.name),
                    "-mattr=+wavefrontsize64",
                    "-show-encoding",
                ],
                Some(&input),
            );
            let got: Vec<u8> = out
                .lines()
                .filter_map(|l| l.split_once("encoding: [").map(|(_, rest)| rest))
                .flat_map(|rest| {
                    rest.trim_end_matches(']')
                        .split(',')
                        .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
                        .collect::<Vec<_>>()
                })
                .collect();
            let want: Vec<u8> = ks.iter().flat_map(|k| k.code.clone()).collect();
            assert!(
                got == want,
                "{} {t}: llvm-mc and the wave64 template disagree on an aliasing kernel",
                llvm.label()
            );
            println!(
                "{} {t}: {} wave64 aliasing kernels match",
                llvm.label(),
                ks.len()
            );
            runs += 1;
        }
    }
    if runs == 0 {
        common::missing("llvm-mc-19 or llvm-mc-22", "the Debian package llvm-19");
    }
}
