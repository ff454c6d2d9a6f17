//! Differential test of the gfx12 DS encoder, decoder, printer and parser against LLVM 19's
//! gfx1200 assembler and disassembler (`llvm-mc-19 -arch=amdgcn -mcpu=gfx1200`), both directions,
//! every gfx12 op LLVM 19 knows (119), many operand patterns each, batched into a few processes.
//!
//! The four gfx12 ops newer than LLVM 19 (`ds_bpermute_fi_b32` and the three BVH stack push/pop
//! forms) have no LLVM 19 oracle: LLVM 19 must refuse them both ways (so nothing here pretends to
//! check them against it), and their opcodes are pinned to the RDNA4 ISA guide's opcode numbers.

mod common;

use common::both::Both;
use common::{
    legalize_in, llvm_mc, mc_assemble_for, mc_disassemble_for, offsets, report, spell, vectors_in,
    CANONICAL, REG_PATTERNS,
};
use ds_reference::isa::encode::{DecodeError, InstError};
use ds_reference::isa::syntax::parse_in;
use ds_reference::isa::{DsInst, DsOp, Field, Generation, OffsetForm, Oracle, DS_TABLE};
use std::collections::HashSet;
use std::path::PathBuf;

const GEN: Generation = Generation::Gfx12;
const CPU: &str = "gfx1200";

/// The gfx12 ops LLVM 19 knows.
fn llvm19_ops() -> Vec<DsOp> {
    DsOp::all_in(GEN)
        .filter(|op| op.info().oracle == Oracle::Llvm19)
        .collect()
}

/// Every LLVM-19-known gfx12 op x register pattern x offset, deduplicated (no gds: gfx12 has none).
fn cases() -> Vec<DsInst> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for op in llvm19_ops() {
        for regs in REG_PATTERNS {
            for &offset in offsets(op.info().offset) {
                let inst = legalize_in(GEN, op, regs, offset, false);
                if seen.insert(inst) {
                    out.push(inst);
                }
            }
        }
    }
    out
}

#[test]
fn llvm_19_knows_119_gfx12_ds_ops() {
    assert_eq!(llvm19_ops().len(), 119);
}

fn both(mc: &PathBuf) -> Both<'_> {
    Both {
        mc,
        gen: GEN,
        cpu: CPU,
        label: "gfx12 ",
    }
}

#[test]
fn every_gfx12_op_assembles_as_llvm_mc_does() {
    let Some(mc) = llvm_mc() else { return };
    let cases = cases();
    let lines = both(&mc).assemble(&cases);
    let ops: HashSet<DsOp> = cases.iter().map(|i| i.op).collect();
    assert_eq!(ops.len(), 119, "every LLVM-19-known gfx12 op is tried");
    println!(
        "gfx12 assembler: {} instructions over {} ops, {lines} lines",
        cases.len(),
        ops.len(),
    );
}

#[test]
fn every_gfx12_op_disassembles_as_llvm_mc_does() {
    let Some(mc) = llvm_mc() else { return };
    both(&mc).disassemble(&cases());
}

/// Every opcode with zero fields, and with the old gds bit set: both accept the same words.
#[test]
fn every_opcode_is_defined_or_undefined_in_both() {
    let Some(mc) = llvm_mc() else { return };
    let words: Vec<u64> = (0..=255u64)
        .flat_map(|opc| [0, 1 << 17].map(|gds| 0b110110 << 26 | opc << 18 | gds))
        .collect();
    let bytes: Vec<[u8; 8]> = words.iter().map(|w| w.to_le_bytes()).collect();
    let theirs = mc_disassemble_for(&mc, CPU, &bytes);
    let mut bad = Vec::new();
    let mut guide_only = 0;
    for (word, theirs) in words.iter().zip(&theirs) {
        let ours = DsInst::decode_in(GEN, *word);
        let guide = ours
            .as_ref()
            .is_ok_and(|i| i.info().oracle == Oracle::IsaGuide);
        if guide {
            // Newer than LLVM 19: ours decodes it, LLVM 19 cannot.
            guide_only += 1;
            if theirs.is_some() {
                bad.push(format!(
                    "{word:#018x}: LLVM 19 knows a guide-only op: {theirs:?}"
                ));
            }
            continue;
        }
        let ours = ours.map(|i| i.to_string()).ok();
        if ours.as_ref() != theirs.as_ref() {
            bad.push(format!("{word:#018x}: llvm-mc {theirs:?}, ours {ours:?}"));
        }
    }
    assert_eq!(guide_only, 4, "the four guide-only opcodes decode here");
    report(
        "gfx12 opcode space",
        words.len() - bad.len(),
        words.len(),
        &bad,
    );
}

/// Invalid encodings both refuse: unused fields set, tuples one past v255, offset bytes on ds_nop.
#[test]
fn invalid_gfx12_encodings_are_rejected_by_both() {
    let Some(mc) = llvm_mc() else { return };
    let mut cases: Vec<(String, u64)> = Vec::new();
    for op in llvm19_ops() {
        let row = op.info();
        let good = legalize_in(GEN, op, [1, 1, 1, 1], 0, false);
        let word = good.encode_in(GEN).expect("legal");
        for (shift, field) in [
            (56, Field::Vdst),
            (32, Field::Addr),
            (40, Field::Data0),
            (48, Field::Data1),
        ] {
            if (word >> shift) & 0xff == 0 {
                cases.push((
                    format!("{} with {} = 1", row.name, field.name()),
                    word | 1 << shift,
                ));
            }
        }
        for field in Field::ALL {
            let dwords = row.operands.dwords(field);
            if dwords > 1 {
                let mut inst = good;
                inst.set_reg(field, (256 - u16::from(dwords)) as u8);
                let word = inst.encode_in(GEN).expect("last legal tuple");
                let shift = ds_reference::isa::encode::field_shift(row, field);
                cases.push((
                    format!("{} with {} one past v255", row.name, field.name()),
                    word + (1 << shift),
                ));
            }
        }
        if row.offset == OffsetForm::NoOffset {
            cases.push((format!("{} with offset 1", row.name), word | 1));
        }
    }
    both(&mc).reject_words(&cases);
}

/// Lines both refuse on gfx12: gds anywhere, the removed ops, and the usual operand errors.
const BAD_LINES: &[&str] = &[
    "ds_add_u32 v1, v2 gds",
    "ds_load_b32 v1, v2 offset:4 gds",
    "ds_store_b32 v1, v2 gds",
    "ds_gws_init v1 gds",
    "ds_gws_sema_v gds",
    "ds_ordered_count v1, v2 gds",
    "ds_add_gs_reg_rtn v[2:3], v4 gds",
    "ds_cmpstore_f32 v1, v2, v3",
    "ds_cmpstore_rtn_f64 v[1:2], v3, v[4:5], v[6:7]",
    "ds_wrap_rtn_b32 v1, v2, v3, v4",
    "ds_bvh_stack_rtn_b32 v1, v2, v3, v[4:7]",
    "ds_cond_sub_u32 v1, v[2:3]",
    "ds_pk_add_f16 v1",
    "ds_min_num_f64 v1, v2",
    "ds_sub_clamp_rtn_u32 v1, v2, v3 offset:65536",
];

#[test]
fn bad_gfx12_lines_are_rejected_by_both() {
    let Some(mc) = llvm_mc() else { return };
    both(&mc).reject_lines(BAD_LINES);
}

/// The ops newer than LLVM 19: LLVM 19 rejects their text and their words, and their opcodes are
/// the RDNA4 ISA guide's (section 16.15, the decimal number beside each mnemonic).
#[test]
fn guide_only_ops_have_no_llvm_19_oracle_and_the_guides_opcodes() {
    let guide: Vec<(&str, u8)> = DS_TABLE
        .iter()
        .filter(|r| r.oracle == Oracle::IsaGuide)
        .map(|r| (r.name, r.opcodes[GEN as usize].expect("a gfx12 op")))
        .collect();
    assert_eq!(
        guide,
        [
            ("ds_bpermute_fi_b32", 205),
            ("ds_bvh_stack_push4_pop1_rtn_b32", 224),
            ("ds_bvh_stack_push8_pop1_rtn_b32", 225),
            ("ds_bvh_stack_push8_pop2_rtn_b64", 226),
        ]
    );
    let Some(mc) = llvm_mc() else { return };
    let insts: Vec<DsInst> = DS_TABLE
        .iter()
        .filter(|r| r.oracle == Oracle::IsaGuide)
        .map(|r| legalize_in(GEN, r.op, [5, 1, 2, 3], 0x10, false))
        .collect();
    let texts: Vec<String> = insts.iter().map(|i| spell(i, CANONICAL)).collect();
    for (text, theirs) in texts.iter().zip(mc_assemble_for(&mc, CPU, &texts)) {
        assert!(
            theirs.is_err(),
            "LLVM 19 now knows `{text}`: check it against LLVM"
        );
        let ours = parse_in(GEN, text).expect("we read it");
        assert_eq!(&ours.to_string(), text);
    }
    let words: Vec<[u8; 8]> = insts
        .iter()
        .map(|i| i.to_bytes_in(GEN).expect("legal"))
        .collect();
    for (inst, theirs) in insts.iter().zip(mc_disassemble_for(&mc, CPU, &words)) {
        assert_eq!(theirs, None, "LLVM 19 now decodes {}", inst.op);
    }
    // gfx11 has none of them.
    for inst in &insts {
        assert!(matches!(
            inst.encode_in(Generation::Gfx11),
            Err(InstError::NotInGeneration { .. })
        ));
    }
}

#[test]
fn every_gfx12_vector_agrees_with_llvm_mc_and_with_us() {
    let vectors = vectors_in("vectors_gfx12.txt");
    // Our side, always.
    let mut ops = HashSet::new();
    for v in &vectors {
        let ours = DsInst::from_bytes_in(GEN, v.bytes);
        match (&v.text, &ours) {
            (Ok(text), Ok(inst)) => {
                assert_eq!(&inst.to_string(), text, "vectors_gfx12.txt:{}", v.line);
                assert_eq!(
                    parse_in(GEN, text),
                    Ok(*inst),
                    "vectors_gfx12.txt:{}",
                    v.line
                );
                ops.insert(inst.op);
            }
            (Err(want), Err(e)) => assert!(
                e.to_string().contains(want.as_str()),
                "vectors_gfx12.txt:{}: `{e}` lacks `{want}`",
                v.line
            ),
            _ => panic!("vectors_gfx12.txt:{}: {ours:?}, want {:?}", v.line, v.text),
        }
    }
    assert_eq!(
        ops.len(),
        DsOp::all_in(GEN).count(),
        "the vectors cover every gfx12 op"
    );
    assert!(matches!(
        DsInst::from_bytes_in(GEN, [0, 0, 0x36, 0xd8, 1, 2, 0, 0]),
        Err(DecodeError::Inst(InstError::NoGdsBit { .. }))
    ));
    let Some(mc) = llvm_mc() else { return };
    let known: Vec<_> = vectors
        .iter()
        .filter(|v| {
            DsInst::from_bytes_in(GEN, v.bytes).map_or(true, |i| i.info().oracle == Oracle::Llvm19)
        })
        .collect();
    let words: Vec<[u8; 8]> = known.iter().map(|v| v.bytes).collect();
    let theirs = mc_disassemble_for(&mc, CPU, &words);
    let mut bad = Vec::new();
    for (v, theirs) in known.iter().zip(&theirs) {
        let ok = match &v.text {
            Ok(text) => theirs.as_ref() == Some(text),
            Err(e) if e.contains("reserved bit 16") => theirs.is_some(),
            Err(_) => theirs.is_none(),
        };
        if !ok {
            bad.push(format!("vectors_gfx12.txt:{}: llvm-mc {theirs:?}", v.line));
        }
    }
    report("gfx12 vectors", known.len() - bad.len(), known.len(), &bad);
}
