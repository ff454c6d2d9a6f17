//! The target table against each installed oracle LLVM (19 and 22): each row's machine value is
//! what `llvm-mc-N -mcpu=NAME -filetype=obj` writes into `e_flags` (read from the bytes and as
//! `llvm-readelf-N -h` names it), a generic target's with its generic version (code object v6);
//! every row of a generation (generic targets included) assembles the generation's whole DS table
//! to the encoding the encoder makes (so the one DS table is right for every target of its
//! generation); each row's LDS size is what `llc-N` lets a workgroup allocate there; and which
//! rows each release knows is pinned, so none is skipped silently.

use crate::common;

use common::llvm::{installed, Llvm};
use common::{legalize_acc, mc_assemble_for};
use ds_isa::ds::syntax::llvm_mc_line;
use ds_isa::ds::{DsFeatures, DsOp, Isa, OffsetForm};
use ds_isa::target::{all, Target};
use std::path::PathBuf;
use std::process::Command;

/// The rows an oracle release does not know: LLVM 19 lacks gfx1153, gfx950, gfx1250, gfx1251 and
/// gfx9-4-generic (added after it); LLVM 22 knows every row.
fn unknown_to(major: u32) -> &'static [&'static str] {
    match major {
        19 => &["gfx1153", "gfx1250", "gfx1251", "gfx950", "gfx9-4-generic"],
        _ => &[],
    }
}

#[test]
fn each_llvm_knows_the_rows_it_should() {
    for llvm in installed() {
        let unknown: Vec<&str> = all().filter(|t| !llvm.knows(t)).map(|t| t.name).collect();
        assert_eq!(unknown, unknown_to(llvm.major), "{}", llvm.label());
        println!(
            "{}: knows {} of the {} rows (not: {})",
            llvm.label(),
            all().count() - unknown.len(),
            all().count(),
            if unknown.is_empty() {
                "-".to_string()
            } else {
                unknown.join(", ")
            }
        );
    }
}

/// The object llvm-mc writes for `s_endpgm` on `t` (code object v6 for a generic target, which
/// needs it; the default v5 otherwise), and `llvm-readelf -h`'s Flags line, lower-cased.
fn object_of(llvm: &Llvm, t: &Target, dir: &std::path::Path) -> (u32, String) {
    let obj = dir.join(format!("{}-{}.o", t.name, llvm.major));
    let src = dir.join(format!("{}-{}.s", t.name, llvm.major));
    let version = if t.is_generic() {
        ".amdhsa_code_object_version 6\n"
    } else {
        ""
    };
    std::fs::write(&src, format!("{version}s_endpgm\n")).unwrap();
    let out = Command::new(llvm.mc())
        .args(["-triple=amdgcn-amd-amdhsa", "-filetype=obj"])
        .arg(format!("-mcpu={}", t.name))
        .arg("-o")
        .arg(&obj)
        .arg(&src)
        .output()
        .expect("llvm-mc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "{} {}: {stderr}",
        llvm.label(),
        t.name
    );
    let bytes = std::fs::read(&obj).unwrap();
    let e_flags = u32::from_le_bytes(bytes[48..52].try_into().unwrap());
    let header = Command::new(llvm.tool("llvm-readelf"))
        .arg("-h")
        .arg(&obj)
        .output()
        .expect("llvm-readelf runs");
    let text = String::from_utf8_lossy(&header.stdout);
    let flags = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Flags:"))
        .unwrap_or_else(|| panic!("no Flags line in\n{text}"))
        .trim()
        .to_ascii_lowercase();
    (e_flags, flags)
}

#[test]
fn machine_values_are_what_llvm_writes() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("target_llvm");
    std::fs::create_dir_all(&dir).unwrap();
    for llvm in installed() {
        let mut checked = Vec::new();
        for t in all().filter(|t| llvm.knows(t)) {
            let (e_flags, flags) = object_of(&llvm, t, &dir);
            assert_eq!(
                e_flags & 0xff,
                u32::from(t.machine),
                "{} {}: e_flags {e_flags:#x}",
                llvm.label(),
                t.name
            );
            assert_eq!(e_flags >> 24, u32::from(t.generic_version), "{}", t.name);
            // The whole word: the target-id features it has, each "any" (xnack 0x100, sramecc
            // 0x400), which llvm-readelf names without a sign.
            assert_eq!(e_flags, t.e_flags(), "{} {}", llvm.label(), t.name);
            let features: String = [
                ("xnack", t.target_id.xnack),
                ("sramecc", t.target_id.sramecc),
            ]
            .iter()
            .filter(|f| f.1)
            .map(|f| format!(", {}", f.0))
            .collect();
            let want = if t.is_generic() {
                format!(
                    "{e_flags:#x}, {}{features}, generic_v{}",
                    t.name, t.generic_version
                )
            } else {
                format!("{e_flags:#x}, {}{features}", t.name)
            };
            assert_eq!(flags, want, "{} {}", llvm.label(), t.name);
            checked.push(format!("{} {e_flags:#x}", t.name));
        }
        println!(
            "{}: machine values as llvm-mc writes them: {}",
            llvm.label(),
            checked.join(", ")
        );
    }
}

/// A kernel with an LDS array of `N` bytes that it stores to and loads from.
const LDS_KERNEL: &str = r#"
@lds = internal addrspace(3) global [N x i8] poison, align 4
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %i) {
  %p = getelementptr [N x i8], ptr addrspace(3) @lds, i32 0, i32 %i
  store i8 1, ptr addrspace(3) %p
  %q = getelementptr i8, ptr addrspace(3) %p, i32 7
  %v = load i8, ptr addrspace(3) %q
  store i8 %v, ptr addrspace(1) %out
  ret void
}
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
"#;

/// `llc-N -mcpu=t` on [`LDS_KERNEL`] with `bytes` of LDS: the group segment size it declares,
/// or its error.
fn llc_lds(llvm: &Llvm, t: &Target, bytes: u32, dir: &std::path::Path) -> Result<u32, String> {
    let src = dir.join(format!("lds-{}-{}-{bytes}.ll", t.name, llvm.major));
    std::fs::write(&src, LDS_KERNEL.replace("N x", &format!("{bytes} x"))).unwrap();
    let out = Command::new(llvm.tool("llc"))
        .args(["-mtriple=amdgcn-amd-amdhsa", "-o", "-"])
        .arg(format!("-mcpu={}", t.name))
        .arg(&src)
        .output()
        .expect("llc runs");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let asm = String::from_utf8_lossy(&out.stdout);
    let size = asm
        .lines()
        .find_map(|l| l.trim().strip_prefix(".amdhsa_group_segment_fixed_size "))
        .unwrap_or_else(|| {
            panic!(
                "{} {}: no group segment size in\n{asm}",
                llvm.label(),
                t.name
            )
        });
    Ok(size.trim().parse().unwrap())
}

/// Every row's `lds_bytes` is the LDS `llc` lets one workgroup allocate on it: a kernel with that
/// much compiles and declares it, 4 bytes more is "local memory (N) exceeds limit (lds_bytes)"
/// (each release for the rows it knows; a generic target's is LLVM's for the generic target).
#[test]
fn every_targets_lds_size_is_llcs_limit() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("target_llvm_lds");
    std::fs::create_dir_all(&dir).unwrap();
    for llvm in installed() {
        let mut checked = Vec::new();
        for t in all().filter(|t| llvm.knows(t)) {
            let max = t.lds_bytes;
            assert_eq!(
                llc_lds(&llvm, t, max, &dir),
                Ok(max),
                "{} {}: {max} bytes of LDS",
                llvm.label(),
                t.name
            );
            let err = llc_lds(&llvm, t, max + 4, &dir).expect_err("past the limit");
            assert!(
                err.contains(&format!("exceeds limit ({max})")),
                "{} {}: {err}",
                llvm.label(),
                t.name
            );
            checked.push(format!("{} {max}", t.name));
        }
        println!(
            "{}: each row's LDS is llc's limit: {}",
            llvm.label(),
            checked.join(", ")
        );
    }
}

#[test]
fn every_target_assembles_its_generation_ds_table_as_the_encoder_does() {
    // A swizzle's offset is a lane pattern: one every LLVM prints back as given (quad-perm).
    let offset = |op: DsOp| match op.info().offset {
        OffsetForm::Swizzle => 0x801b,
        _ => 0x1234,
    };
    for llvm in installed() {
        let mut targets = Vec::new();
        for t in all().filter(|t| llvm.knows(t)) {
            let isa = Isa::of(t);
            let acc = isa.has(DsFeatures::ACC);
            let insts: Vec<_> = DsOp::all_on(isa)
                .filter(|op| op.info().oracle.known_to(llvm.major))
                .flat_map(|op| {
                    [[5, 1, 2, 3], [255, 255, 255, 255]]
                        .into_iter()
                        .flat_map(move |regs| {
                            [
                                (0, false, false),
                                (offset(op), false, acc),
                                (8, true, false),
                            ]
                            .map(|(o, g, a)| (regs, o, g, a))
                        })
                        .map(move |(regs, offset, gds, a)| {
                            legalize_acc(isa, op, regs, offset, gds, a)
                        })
                })
                .collect();
            let lines: Vec<String> = insts
                .iter()
                .map(|i| llvm_mc_line(isa, i).expect("legalised instructions print"))
                .collect();
            let out = mc_assemble_for(&llvm.mc(), t.name, &lines);
            for ((inst, line), got) in insts.iter().zip(&lines).zip(out) {
                let got = got.unwrap_or_else(|e| {
                    panic!("{} {}: `{line}` refused: {e}", llvm.label(), t.name)
                });
                // Every op of the target's instruction set, no other (the feature column).
                let word = inst.encode(isa).expect("legalised instructions encode");
                let want: Vec<String> = word
                    .to_le_bytes()
                    .iter()
                    .map(|b| format!("{b:#04x}"))
                    .collect();
                let want = format!("[{}]", want.join(","));
                assert!(
                    got.ends_with(&format!("; encoding: {want}")),
                    "{} {}: `{line}`: llvm-mc says {got}, the encoder {want}",
                    llvm.label(),
                    t.name
                );
            }
            // The ops of the generation the target lacks (a feature it has not): both refuse them.
            let lacking: Vec<DsOp> = DsOp::all(t.generation)
                .filter(|op| !op.info().on(isa) && op.info().oracle.known_to(llvm.major))
                .collect();
            let texts: Vec<String> = lacking
                .iter()
                .map(|&op| {
                    let full = Isa {
                        features: DsFeatures::ALL,
                        ..isa
                    };
                    legalize_acc(full, op, [6, 2, 2, 4], 8, false, false)
                        .text(t.generation)
                        .to_string()
                })
                .collect();
            let theirs = if texts.is_empty() {
                Vec::new()
            } else {
                mc_assemble_for(&llvm.mc(), t.name, &texts)
            };
            for (text, theirs) in texts.iter().zip(theirs) {
                assert!(
                    theirs.is_err(),
                    "{} {}: reads `{text}`",
                    llvm.label(),
                    t.name
                );
                assert!(
                    ds_isa::ds::syntax::parse(isa, text).is_err(),
                    "{t}: we read `{text}`"
                );
            }
            targets.push(format!("{} (lacks {})", t.name, lacking.len()));
        }
        println!(
            "{}: the DS table of each generation assembles as the encoder does, and the ops a \
             target lacks are refused by both, for {}",
            llvm.label(),
            targets.join(", ")
        );
    }
}
