//! Kernels whose instruction under test has operands sharing registers (`variant.regs`): every
//! aliasing variant of every runnable op ([`Alias::for_op`]) of every generation assembles,
//! through each installed oracle LLVM (`llvm-mc-19`, `llvm-mc-22`: `common::llvm::pairs()`), to
//! the bytes the kernel contains, and each kernel keeps its own registers out of the operands'
//! way, loads every operand register and dumps it.
//!
//! The wave64 template places named registers (`variant.regs`) as the wave32 one does: for every
//! aliasing variant of every runnable op of every generation, the wave64 kernel's instruction
//! under test is the wave32 kernel's, it loads and dumps exactly the same operand registers (from
//! and to its 64-lane records) and declares the same VGPRs; and each installed LLVM
//! (`llvm-mc-N -mcpu=<first target of the generation> -mattr=+wavefrontsize64`) assembles the
//! wave64 kernels' listings to their code.

use crate::common;

use ds_isa::ds::{runnable_ops, runnable_ops_on, DsFeatures, Field, Generation};
use ds_isa::inst::{encode, Inst};
use ds_isa::target::Target;
use ds_kernels::generator::{generate_for, Kernel, Layout};
use ds_reference::regs::Alias;
use ds_reference::wave::{Variant, WaveSize};

/// Every aliasing variant of every runnable gfx11 op, with its kernel.
fn aliasing_kernels() -> Vec<(Variant, Alias, Kernel)> {
    aliasing_kernels_on(Generation::Gfx11.targets().next().unwrap(), u32::MAX)
}

/// Every aliasing variant of every runnable op of `t` LLVM `major` knows, with its kernel, in
/// the target's first wave size (gfx9: wave64), tuples even where the target needs it.
fn aliasing_kernels_on(t: &'static Target, major: u32) -> Vec<(Variant, Alias, Kernel)> {
    let mut out = Vec::new();
    let even = !t.ds_features.contains(DsFeatures::UNALIGNED);
    for op in runnable_ops_on(t).filter(|op| op.info().oracle.known_to(major)) {
        for (alias, regs) in Alias::for_op_in(op, even) {
            let v = Variant {
                regs: Some(regs),
                wave: ds_kernels::wave_sizes(t)[0],
                ..common::variant(op)
            };
            out.push((v, alias, generate_for(t, &v).unwrap()));
        }
    }
    out
}

/// The instruction under test and its byte offset in the kernel's code.
fn under_test(t: &Target, k: &Kernel) -> (Inst, usize) {
    let mut pc = 0;
    for (inst, note) in &k.insts {
        if *note == "the instruction under test" {
            return (*inst, pc);
        }
        pc += encode(t, inst).unwrap().len();
    }
    panic!("{}: no instruction under test", k.name)
}

fn encodings(out: &str) -> Vec<Vec<u8>> {
    out.lines()
        .filter_map(|l| l.split_once("encoding: [").map(|(_, rest)| rest))
        .map(|rest| {
            rest.trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn every_aliasing_instruction_names_the_variants_registers() {
    // The generations kernels are built for (a template written).
    for gen in Generation::ALL
        .into_iter()
        .filter(|&g| ds_kernels::template::of(g).is_some())
    {
        let t = gen.targets().next().unwrap();
        let kernels = aliasing_kernels_on(t, u32::MAX);
        assert!(
            kernels.len() > 150,
            "{gen}: only {} aliasing variants",
            kernels.len()
        );
        for (v, _, k) in &kernels {
            let (inst, _) = under_test(t, k);
            let Inst::Ds(ds) = inst else {
                panic!("{}: not a DS instruction", k.name)
            };
            let regs = v.regs.unwrap();
            for field in Field::ALL {
                if v.op.info().operands.dwords(field) > 0 {
                    assert_eq!(
                        Some(ds.reg(field)),
                        regs.get(field),
                        "{gen} {}",
                        inst.text(gen)
                    );
                }
            }
            // Each generation's template places registers through the same [`Layout`].
            assert_eq!(
                Layout::of(v).unwrap().vgpr_count,
                k.vgpr_count,
                "{gen} {}",
                inst.text(gen)
            );
        }
    }
}

#[test]
fn llvm_mc_assembles_every_aliasing_instruction_to_the_bytes_the_kernel_contains() {
    for pair in common::kernel_pairs() {
        let kernels = aliasing_kernels_on(pair.cpu, pair.llvm.major);
        let mut input = String::new();
        let mut want = Vec::new();
        for (_, alias, k) in &kernels {
            let (inst, pc) = under_test(pair.cpu, k);
            let text = inst.text(pair.gen).to_string();
            input.push_str(&text);
            input.push('\n');
            want.push((
                format!("{} ({})", text, alias.name()),
                k.code[pc..pc + 8].to_vec(),
            ));
        }
        let out = common::run(
            &pair.llvm.mc(),
            &[
                "-arch=amdgcn",
                &format!("-mcpu={}", pair.cpu),
                "-show-encoding",
            ],
            Some(&input),
        );
        let got = encodings(&out);
        assert_eq!(got.len(), want.len(), "llvm-mc output:\n{out}");
        for ((text, bytes), llvm) in want.iter().zip(got) {
            assert_eq!(
                &llvm,
                bytes,
                "{}: `{text}`: llvm-mc encodes {llvm:02x?}, the kernel holds {bytes:02x?}",
                pair.label()
            );
        }
        println!(
            "{}: {} aliasing instructions assemble to the kernels' bytes",
            pair.label(),
            want.len()
        );
    }
}

#[test]
fn llvm_mc_assembles_every_aliasing_kernel_listing_to_its_code() {
    for pair in common::kernel_pairs() {
        let kernels = aliasing_kernels_on(pair.cpu, pair.llvm.major);
        // Every line a release knows (the op under test of a newer op aside: filtered above).
        let input: String = kernels.iter().map(|(_, _, k)| k.listing()).collect();
        let out = common::run(
            &pair.llvm.mc(),
            &[
                "-arch=amdgcn",
                &format!("-mcpu={}", pair.cpu),
                "-show-encoding",
            ],
            Some(&input),
        );
        let got: Vec<u8> = encodings(&out).concat();
        let want: Vec<u8> = kernels
            .iter()
            .flat_map(|(_, _, k)| k.code.clone())
            .collect();
        assert_eq!(got.len(), want.len(), "{}", pair.label());
        assert!(
            got == want,
            "{}: llvm-mc and the generator disagree on some kernel's bytes",
            pair.label()
        );
    }
}

#[test]
fn aliasing_kernels_move_their_own_registers_and_load_and_dump_every_operand_register() {
    for (v, alias, k) in aliasing_kernels() {
        let l = Layout::of(&v).unwrap();
        let regs = v.regs.unwrap();
        let info = v.op.info();
        let words = regs.words(info);
        let operand_regs: Vec<u8> = words.iter().map(|w| w.0).collect();
        let what = format!("{} {}", v.op, alias.name());
        for own in [l.lane, l.offset, l.scratch] {
            assert!(!operand_regs.contains(&own), "{what}: v{own} is an operand");
        }
        let top = operand_regs.iter().copied().max().unwrap();
        assert!(k.vgpr_count > u32::from(top), "{what}");
        assert!(k.descriptor.vgpr_count() >= k.vgpr_count, "{what}");
        // Which registers global loads fill from lanes_in and global stores dump to lanes_out.
        let (mut loaded, mut dumped) = (vec![], vec![]);
        for (inst, _) in &k.insts {
            if let Inst::Global {
                op,
                vdata,
                saddr: Some(s),
                ..
            } = *inst
            {
                let regs: Vec<u8> = (0..op.dwords()).map(|k| vdata + k).collect();
                match (op.is_store(), s) {
                    (false, 6) => loaded.extend(regs),
                    (true, 10) => dumped.extend(regs),
                    _ => {}
                }
            }
        }
        for r in &operand_regs {
            assert!(loaded.contains(r), "{what}: v{r} is not loaded");
            assert!(dumped.contains(r), "{what}: v{r} is not dumped");
        }
        for r in loaded.iter().chain(&dumped) {
            assert!(operand_regs.contains(r), "{what}: v{r} is no operand's");
        }
    }
    // The example: vdst containing addr and data0 = data1, and addr = v0.
    let ks = aliasing_kernels();
    let listing = |name: &str, alias: Alias| {
        let (_, _, k) = ks
            .iter()
            .find(|(v, a, _)| v.op.name() == name && *a == alias)
            .unwrap();
        under_test(Generation::Gfx11.targets().next().unwrap(), k)
            .0
            .text(Generation::Gfx11)
            .to_string()
    };
    assert!(listing(
        "ds_storexchg_2addr_stride64_rtn_b64",
        Alias::AddrInVdstData0Data1
    )
    .starts_with("ds_storexchg_2addr_stride64_rtn_b64 v[30:33], v31, v[40:41], v[40:41]"));
    assert!(listing("ds_load_2addr_b32", Alias::AddrFirstVdst)
        .starts_with("ds_load_2addr_b32 v[0:1], v0"));
    assert!(listing("ds_load_2addr_b64", Alias::AddrLastVdst)
        .starts_with("ds_load_2addr_b64 v[252:255], v255"));
}

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
        // aliasing kernels are `aliasing.rs`'s; one without wave64 (gfx1250) none to compare.
        if !(t.wave_sizes.contains(&32) && t.wave_sizes.contains(&64)) {
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
            if !(t.wave_sizes.contains(&32) && t.wave_sizes.contains(&64)) {
                continue; // gfx9: aliasing.rs; gfx1250: no wave64
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
