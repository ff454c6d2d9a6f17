//! The gfx12 kernel template against LLVM 19, both directions, for every runnable gfx12 op:
//! `llvm-mc-19 -mcpu=<each gfx12 target>` assembles each kernel's listing to exactly our code and
//! disassembles our code to exactly our listing; our decoder reads the code back to the
//! template's instructions. The two runnable ops newer than LLVM 19 (`ds_bpermute_fi_b32`,
//! `ds_bvh_stack_push4_pop1_rtn_b32`) are checked the same way except for their one DS line, which
//! LLVM 19 refuses and which the DS table's guide-sourced encoding covers instead.

mod common;

use ds_kernels::generator::{generate_in, Kernel};
use ds_kernels::inst::{decode_in, Inst, SoppOp};
use ds_reference::isa::{runnable_ops_in, Generation, Oracle};

const GEN: Generation = Generation::Gfx12;

fn kernels() -> Vec<Kernel> {
    runnable_ops_in(GEN)
        .map(|op| generate_in(GEN, &common::variant(op)).unwrap_or_else(|e| panic!("{op}: {e}")))
        .collect()
}

/// A kernel's lines LLVM 19 knows: all of them but a guide-only DS op's.
fn known(k: &Kernel) -> impl Iterator<Item = (&Inst, String)> {
    k.insts
        .iter()
        .filter(|(i, _)| !matches!(i, Inst::Ds(d) if d.info().oracle == Oracle::IsaGuide))
        .map(|(i, _)| (i, i.text(GEN).to_string()))
}

#[test]
fn every_runnable_gfx12_op_has_a_kernel_in_gfx12_encodings() {
    let ks = kernels();
    // The 123 gfx12 ops less the two 8-dword BVH forms the case format cannot carry.
    assert_eq!(ks.len(), 121, "gfx12 runnable ops");
    for k in &ks {
        assert_eq!(k.gen, GEN);
        // No gfx11 s_waitcnt: the split counters instead, and the descriptor without IEEE/DX10.
        assert!(k.insts.iter().all(|(i, _)| !matches!(
            i,
            Inst::Sopp {
                op: SoppOp::Waitcnt,
                ..
            }
        )));
        assert!(k.insts.iter().any(|(i, _)| matches!(
            i,
            Inst::Sopp {
                op: SoppOp::WaitDscnt,
                ..
            }
        )));
        let mut at = 0;
        for (inst, _) in &k.insts {
            let (back, len) = decode_in(GEN, &k.code[at..])
                .unwrap_or_else(|e| panic!("{}: byte {at}: {e}", k.name));
            assert_eq!(&back, inst, "{} at byte {at}", k.name);
            at += len;
        }
        assert_eq!(at, k.code.len(), "{}", k.name);
    }
}

#[test]
fn llvm_mc_assembles_every_gfx12_listing_to_our_code_for_every_gfx12_target() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    let ks = kernels();
    let mut lines = Vec::new();
    let mut ours = Vec::new();
    for k in &ks {
        for (inst, text) in known(k) {
            lines.push(text);
            ours.extend(ds_kernels::inst::encode_in(GEN, inst).unwrap());
        }
    }
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for t in GEN.targets() {
        let mcpu = format!("-mcpu={}", t.name);
        let out = common::run(
            &mc,
            &["-arch=amdgcn", &mcpu, "-show-encoding"],
            Some(&input),
        );
        let mut bytes = Vec::new();
        for line in out.lines() {
            if let Some((_, enc)) = line.split_once("encoding: [") {
                for b in enc.trim_end_matches(']').split(',') {
                    bytes.push(u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap());
                }
            }
        }
        assert_eq!(bytes.len(), ours.len(), "{}", t.name);
        if bytes != ours {
            let at = bytes.iter().zip(&ours).position(|(a, b)| a != b).unwrap();
            panic!(
                "{}: llvm-mc-19 and our assembler differ at byte {at}",
                t.name
            );
        }
        println!(
            "{}: {} listing lines of {} kernels assemble to our bytes",
            t.name,
            lines.len(),
            ks.len()
        );
    }
}

#[test]
fn llvm_mc_disassembles_every_gfx12_kernel_to_our_listing() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    let ks = kernels();
    let mut words = Vec::new();
    let mut texts = Vec::new();
    for k in &ks {
        for (inst, text) in known(k) {
            let b = ds_kernels::inst::encode_in(GEN, inst).unwrap();
            words.push(
                b.iter()
                    .map(|x| format!("{x:#04x}"))
                    .collect::<Vec<_>>()
                    .join(","),
            );
            texts.push(text);
        }
    }
    let input: String = words.iter().map(|w| format!("{w}\n")).collect();
    let cpu = GEN.targets().last().expect("a gfx12 target").name;
    let out = common::run(
        &mc,
        &["-arch=amdgcn", &format!("-mcpu={cpu}"), "-disassemble"],
        Some(&input),
    );
    let got: Vec<&str> = out
        .lines()
        .map(|l| l.split(';').next().unwrap().trim())
        .filter(|l| !l.is_empty() && !l.starts_with('.'))
        .collect();
    assert_eq!(got.len(), texts.len(), "llvm-mc output:\n{out}");
    for (g, t) in got.iter().zip(&texts) {
        assert_eq!(g, t);
    }
    println!(
        "{cpu}: {} instructions disassemble to our listing",
        texts.len()
    );
}
