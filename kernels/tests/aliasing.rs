//! Kernels whose instruction under test has operands sharing registers (`variant.regs`): every
//! aliasing variant of every runnable op ([`Alias::for_op`]) of every generation assembles,
//! through each installed oracle LLVM (`llvm-mc-19`, `llvm-mc-22`: `common::llvm::pairs()`), to
//! the bytes the kernel contains, and each kernel keeps its own registers out of the operands'
//! way, loads every operand register and dumps it.

mod common;

use ds_isa::ds::{runnable_ops_on, DsFeatures, Field, Generation};
use ds_isa::inst::{encode, Inst};
use ds_isa::target::Target;
use ds_kernels::generator::{generate_for, Kernel, Layout};
use ds_reference::regs::Alias;
use ds_reference::wave::Variant;

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
