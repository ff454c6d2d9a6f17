//! The target table against LLVM 19: each row's machine value is what `llvm-mc-19 -mcpu=NAME
//! -filetype=obj` writes into `e_flags` (read from the bytes and as `llvm-readelf-19 -h` names it),
//! and every row of a generation assembles the generation's whole DS table to the encoding the
//! encoder makes (so the one DS table is right for every target of its generation).

mod common;

use common::{legalize_in, llvm_mc, mc_assemble_for};
use ds_reference::isa::syntax::llvm_mc_line_in;
use ds_reference::isa::{DsOp, OffsetForm, Oracle};
use ds_reference::target::TARGETS;
use std::path::PathBuf;
use std::process::Command;

/// `llvm-readelf-19`, or `None` (after printing why) outside CI when it is missing.
fn readelf() -> Option<PathBuf> {
    let program = PathBuf::from("llvm-readelf-19");
    if Command::new(&program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(program);
    }
    let why = "llvm-readelf-19 not found: install Debian's llvm-19 (`apt-get install -y llvm-19`)";
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and {why}");
    }
    eprintln!("skipped: {why}");
    None
}

#[test]
fn machine_values_are_what_llvm_writes() {
    let (Some(mc), Some(readelf)) = (llvm_mc(), readelf()) else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("target_llvm");
    std::fs::create_dir_all(&dir).unwrap();
    for t in TARGETS {
        let obj = dir.join(format!("{}.o", t.name));
        let src = dir.join(format!("{}.s", t.name));
        std::fs::write(&src, "s_endpgm\n").unwrap();
        let out = Command::new(&mc)
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
            "{}: {stderr}",
            t.name
        );
        let bytes = std::fs::read(&obj).unwrap();
        let e_flags = u32::from_le_bytes(bytes[48..52].try_into().unwrap());
        assert_eq!(
            e_flags & 0xff,
            u32::from(t.machine),
            "{}: llvm-mc wrote e_flags {e_flags:#x}",
            t.name
        );
        let header = Command::new(&readelf)
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
        assert_eq!(flags, format!("{:#x}, {}", t.machine, t.name), "{}", t.name);
    }
}

#[test]
fn every_target_assembles_its_generation_ds_table_as_the_encoder_does() {
    let Some(mc) = llvm_mc() else { return };
    // A swizzle's offset is a lane pattern: one LLVM prints back as given (quad-perm).
    let offset = |op: DsOp| match op.info().offset {
        OffsetForm::Swizzle => 0x801b,
        _ => 0x1234,
    };
    for t in TARGETS {
        let gen = t.generation;
        // The ops of the generation LLVM 19 knows (the newer ones have no LLVM 19 oracle).
        let insts: Vec<_> = DsOp::all_in(gen)
            .filter(|op| op.info().oracle == Oracle::Llvm19)
            .flat_map(|op| {
                [[5, 1, 2, 3], [255, 255, 255, 255]]
                    .into_iter()
                    .flat_map(move |regs| {
                        [(0, false), (offset(op), false), (8, true)].map(|(o, g)| (regs, o, g))
                    })
                    .map(move |(regs, offset, gds)| legalize_in(gen, op, regs, offset, gds))
            })
            .collect();
        let lines: Vec<String> = insts
            .iter()
            .map(|i| llvm_mc_line_in(gen, i).expect("legalised instructions print"))
            .collect();
        let out = mc_assemble_for(&mc, t.name, &lines);
        for ((inst, line), got) in insts.iter().zip(&lines).zip(out) {
            let got = got.unwrap_or_else(|e| panic!("{}: `{line}` refused: {e}", t.name));
            let word = inst.encode_in(gen).expect("legalised instructions encode");
            let want: Vec<String> = word
                .to_le_bytes()
                .iter()
                .map(|b| format!("{b:#04x}"))
                .collect();
            let want = format!("[{}]", want.join(","));
            assert!(
                got.ends_with(&format!("; encoding: {want}")),
                "{}: `{line}`: llvm-mc says {got}, the encoder {want}",
                t.name
            );
        }
    }
}
