//! The AccVGPR moves and acc DS words of `acc` kernels against LLVM: `v_accvgpr_write_b32` and
//! `v_accvgpr_read_b32` encode as `llvm-mc -show-encoding` writes them and disassemble to our text
//! (llvm-mc 19 and 22 for every ACC target each knows: gfx90a, gfx942; gfx950 with 22), and LLVM's
//! hazard recognizer pads nothing between the moves and DS instructions using AccVGPRs
//! (`fixtures/acc_hazards.mir`, with a control it must pad).

mod common;

use common::{llvm, run, tool};
use ds_isa::ds_features::DsFeatures;
use ds_isa::inst::acc::AccMove;
use ds_isa::inst::{encode, Inst};
use ds_isa::target::{Target, TARGETS};

fn acc_targets() -> Vec<&'static Target> {
    TARGETS
        .iter()
        .filter(|t| t.ds_features.contains(DsFeatures::ACC))
        .collect()
}

fn moves() -> Vec<AccMove> {
    let mut out = Vec::new();
    for (d, s) in [(0, 0), (255, 255), (3, 17), (17, 3), (128, 1), (1, 200)] {
        out.push(AccMove::write(d, s));
        out.push(AccMove::read(d, s));
    }
    out
}

#[test]
fn accvgpr_moves_encode_and_print_as_llvm_mc_does() {
    let targets = acc_targets();
    assert!(targets.len() >= 3, "{targets:?}");
    let mut checked = 0;
    for l in llvm::installed() {
        for t in targets.iter().filter(|t| l.knows(t)) {
            let text: String = moves().iter().map(|m| format!("{m}\n")).collect();
            let out = run(
                &l.mc(),
                &[
                    "-arch=amdgcn",
                    &format!("-mcpu={}", t.name),
                    "-show-encoding",
                ],
                Some(&text),
            );
            let lines: Vec<&str> = out.lines().filter(|x| x.contains("encoding:")).collect();
            assert_eq!(lines.len(), moves().len(), "{}: {out}", t.name);
            for (m, line) in moves().iter().zip(lines) {
                let bytes = encode(t.generation, &Inst::Acc(*m)).unwrap();
                let want: Vec<String> = bytes.iter().map(|b| format!("0x{b:02x}")).collect();
                assert!(
                    line.contains(&format!("[{}]", want.join(","))),
                    "{} {}: {m} is {want:?}, llvm-mc: {line}",
                    l.label(),
                    t.name
                );
                assert_eq!(line.split(';').next().unwrap().trim(), m.to_string());
                // And the bytes decode back on the target.
                let (back, len) = ds_isa::inst::acc::decode_on(t, &bytes).unwrap();
                assert_eq!((back, len), (Inst::Acc(*m), 8));
                checked += 1;
            }
        }
    }
    if checked == 0 {
        common::missing("llvm-mc-19 or llvm-mc-22", "llvm-19 or llvm-22");
    } else {
        println!("{checked} AccVGPR moves checked");
    }
}

#[test]
fn llvm_pads_no_wait_state_between_accvgpr_moves_and_ds_but_does_pad_the_control() {
    let mir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/acc_hazards.mir"
    );
    let mut checked = 0;
    for l in llvm::installed() {
        let Some(llc) = tool(&l, "llc") else { continue };
        for t in acc_targets().into_iter().filter(|t| l.knows(t)) {
            let out = run(
                &llc,
                &[
                    "-march=amdgcn",
                    &format!("-mcpu={}", t.name),
                    "-run-pass=post-RA-hazard-rec",
                    "-o",
                    "-",
                    mir,
                ],
                None,
            );
            let nops: Vec<usize> = out
                .lines()
                .skip_while(|x| !x.starts_with("body:"))
                .enumerate()
                .filter(|(_, x)| x.trim().starts_with("S_NOP"))
                .map(|(i, _)| i)
                .collect();
            let lines: Vec<&str> = out
                .lines()
                .skip_while(|x| !x.starts_with("body:"))
                .collect();
            assert_eq!(nops.len(), 1, "{} {}: {lines:?}", l.label(), t.name);
            assert!(
                lines[nops[0] + 1].contains("V_READLANE_B32"),
                "{} {}: the only pad is the control's: {lines:?}",
                l.label(),
                t.name
            );
            checked += 1;
        }
    }
    if checked == 0 {
        common::missing("llc-19 or llc-22", "llvm-19 or llvm-22");
    } else {
        println!("{checked} hazard checks");
    }
}
