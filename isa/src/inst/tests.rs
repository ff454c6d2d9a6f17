//! Encoder, decoder and printer against the shared vector file `tests/vectors/inst.txt`
//! (`bytes | text` lines taken from llvm-mc-19; `kernels/tests/all/inst_vectors_llvm.rs` re-checks them live), and
//! the gfx12 and gfx1250 files the same way.

use super::*;
use crate::error::DecodeError;
use crate::gen::Generation;

/// The vectors: (bytes, text) per line.
pub(crate) fn vectors() -> Vec<(Vec<u8>, String)> {
    let mut v = parse_vectors(include_str!("../../tests/vectors/inst.txt"));
    // The wave64 EXEC forms: gfx11 encodings like the rest (llvm-mc checks them with
    // +wavefrontsize64, `kernels/tests/all/inst_vectors_llvm.rs`).
    v.extend(parse_vectors(include_str!(
        "../../tests/vectors/inst_wave64.txt"
    )));
    v
}

/// The gfx12 vectors (`tests/vectors/inst_gfx12.txt`).
pub(crate) fn vectors_gfx12() -> Vec<(Vec<u8>, String)> {
    parse_vectors(include_str!("../../tests/vectors/inst_gfx12.txt"))
}

/// The gfx1250 vectors: gfx12's (gfx1250 encodes and prints them alike) and the forms only
/// gfx1250's template uses (`tests/vectors/inst_gfx1250.txt`).
pub(crate) fn vectors_gfx1250() -> Vec<(Vec<u8>, String)> {
    let mut v = vectors_gfx12();
    v.extend(parse_vectors(include_str!(
        "../../tests/vectors/inst_gfx1250.txt"
    )));
    v
}

pub(crate) fn parse_vectors(file: &str) -> Vec<(Vec<u8>, String)> {
    file.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (hex, text) = l.split_once('|').expect("bytes | text");
            let bytes = hex
                .split_whitespace()
                .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
                .collect();
            (bytes, text.split('#').next().unwrap().trim().to_string())
        })
        .collect()
}

#[test]
fn decode_prints_what_llvm_prints_and_encode_inverts_it() {
    let v = vectors();
    assert!(v.len() > 100, "vector file too short: {}", v.len());
    for (bytes, text) in v {
        let (inst, len) =
            decode(Generation::Gfx11, &bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(len, bytes.len(), "{text}: length");
        assert_eq!(
            inst.text(Generation::Gfx11).to_string(),
            text,
            "{bytes:02x?}"
        );
        assert_eq!(
            encode(Generation::Gfx11, &inst).unwrap(),
            bytes,
            "{text}: re-encoding"
        );
    }
}

#[test]
fn every_table_op_round_trips() {
    // One instruction per op of every table, through encode and decode.
    let mut insts = Vec::new();
    insts.extend(Sop1Op::ALL.iter().map(|&op| Inst::Sop1 {
        op,
        sdst: Operand::Sgpr(2),
        src0: Operand::Sgpr(4),
    }));
    let g11 = Generation::Gfx11;
    insts.extend(
        Sop2Op::ALL
            .iter()
            .filter(|op| op.in_generation(g11))
            .map(|&op| Inst::Sop2 {
                op,
                sdst: Operand::M0,
                src0: Operand::Literal(7 << 20),
                src1: Operand::Int(-3),
            }),
    );
    insts.extend(
        SopkOp::ALL
            .iter()
            .filter(|op| op.in_generation(g11))
            .map(|&op| Inst::Sopk {
                op,
                sdst: Operand::Sgpr(9),
                simm16: 0xfff0,
            }),
    );
    insts.extend(SopcOp::ALL.iter().map(|&op| Inst::Sopc {
        op,
        src0: Operand::ExecLo,
        src1: Operand::Int(64),
    }));
    insts.extend(
        SoppOp::ALL
            .iter()
            .filter(|op| op.in_generation(Generation::Gfx11))
            .map(|&op| Inst::Sopp {
                op,
                simm16: if op == SoppOp::Endpgm { 0 } else { 0x3f7 },
            }),
    );
    insts.extend(SmemOp::ALL.iter().map(|&op| Inst::Smem {
        op,
        sdata: 16,
        sbase: 6,
        offset: -8,
        soffset: Some(3),
    }));
    insts.extend(Vop1Op::ALL.iter().map(|&op| Inst::Vop1 {
        op,
        vdst: 200,
        src0: Operand::Vgpr(255),
    }));
    insts.extend(Vop2Op::ALL.iter().map(|&op| Inst::Vop2 {
        op,
        vdst: 1,
        src0: Operand::Float(248),
        vsrc1: 3,
    }));
    insts.extend(Vop3Op::ALL.iter().map(|&op| {
        let mut src = [Operand::Sgpr(0); 3];
        for (i, s) in src.iter_mut().enumerate().take(op.sources()) {
            *s = [Operand::Vgpr(7), Operand::Literal(0x1234), Operand::VccLo][i];
        }
        Inst::Vop3 { op, vdst: 9, src }
    }));
    insts.extend(VopcOp::ALL.iter().map(|&op| Inst::Vopc {
        op,
        src0: Operand::Sgpr(105),
        vsrc1: 0,
    }));
    insts.extend(GlobalOp::ALL.iter().map(|&op| Inst::Global {
        op,
        vdata: 12,
        vaddr: 2,
        saddr: None,
        offset: -4096,
    }));
    for inst in insts {
        let bytes = encode(Generation::Gfx11, &inst).unwrap_or_else(|e| panic!("{inst:?}: {e}"));
        assert_eq!(
            decode(Generation::Gfx11, &bytes),
            Ok((inst, bytes.len())),
            "{inst:?}"
        );
    }
}

#[test]
fn decode_rejects_what_is_not_modelled_or_not_there() {
    // global_load_b32 v2, v1, s[4:5] glc: legal, but the template never sets GLC.
    let glc = [0x00, 0x40, 0x52, 0xdc, 0x01, 0x00, 0x04, 0x02];
    assert!(matches!(
        decode(Generation::Gfx11, &glc),
        Err(DecodeError::Unmodelled { .. })
    ));
    // A literal operand whose literal dword is missing.
    let mov = [0xff, 0x00, 0x81, 0xbe, 0x78, 0x56];
    assert_eq!(
        decode(Generation::Gfx11, &mov),
        Err(DecodeError::Truncated { needed: 8, have: 6 })
    );
    // Half of a 64-bit instruction.
    assert!(matches!(
        decode(Generation::Gfx11, &[0x00, 0x01, 0x0c, 0xf4]),
        Err(DecodeError::Truncated { .. })
    ));
    // VOP3P (0xcc prefix) is no format of the template.
    assert!(matches!(
        decode(Generation::Gfx11, &[0, 0, 0x00, 0xcc, 0, 0, 0, 0]),
        Err(DecodeError::Unknown { .. })
    ));
    // s_waitcnt with the unused bit 3 set.
    assert!(matches!(
        decode(Generation::Gfx11, &[0x0f, 0x00, 0x89, 0xbf]),
        Err(DecodeError::Unmodelled { .. })
    ));
    // A DS word the DS table rejects (reserved bit 16).
    assert!(matches!(
        decode(Generation::Gfx11, &[0, 0, 0x35, 0xd8, 1, 2, 0, 0]),
        Err(DecodeError::ReservedBit(16))
    ));
}

#[test]
fn encode_rejects_operands_that_do_not_fit() {
    let two_literals = Inst::Sop2 {
        op: Sop2Op::AddU32,
        sdst: Operand::Sgpr(1),
        src0: Operand::Literal(1000),
        src1: Operand::Literal(2000),
    };
    assert!(encode(Generation::Gfx11, &two_literals).is_err());
    let same_literal = Inst::Sop2 {
        op: Sop2Op::AddU32,
        sdst: Operand::Sgpr(1),
        src0: Operand::Literal(1000),
        src1: Operand::Literal(1000),
    };
    assert_eq!(encode(Generation::Gfx11, &same_literal).unwrap().len(), 8);
    let vgpr_in_salu = Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: Operand::Sgpr(1),
        src0: Operand::Vgpr(0),
    };
    assert!(encode(Generation::Gfx11, &vgpr_in_salu).is_err());
    let const_dst = Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: Operand::Int(1),
        src0: Operand::Sgpr(0),
    };
    assert!(encode(Generation::Gfx11, &const_dst).is_err());
    let odd_base = Inst::Smem {
        op: SmemOp::LoadB32,
        sdata: 0,
        sbase: 1,
        offset: 0,
        soffset: None,
    };
    assert!(encode(Generation::Gfx11, &odd_base).is_err());
    let far = Inst::Global {
        op: GlobalOp::LoadB32,
        vdata: 0,
        vaddr: 0,
        saddr: Some(0),
        offset: 4096,
    };
    assert!(encode(Generation::Gfx11, &far).is_err());
    let wide = Inst::Global {
        op: GlobalOp::LoadB128,
        vdata: 253,
        vaddr: 0,
        saddr: Some(0),
        offset: 0,
    };
    assert!(encode(Generation::Gfx11, &wide).is_err());
}

#[test]
fn waitcnt_fields_sit_where_gfx11_puts_them() {
    assert_eq!(Waitcnt::vm(0).to_simm16(Generation::Gfx11), 0x03f7);
    assert_eq!(Waitcnt::lgkm(0).to_simm16(Generation::Gfx11), 0xfc07);
    assert_eq!(
        Waitcnt::from_simm16(Generation::Gfx11, 0x0c57),
        Waitcnt {
            vmcnt: 3,
            expcnt: 7,
            lgkmcnt: 5
        }
    );
    assert_eq!(
        Inst::waitcnt(Generation::Gfx11, Waitcnt::NONE)
            .text(Generation::Gfx11)
            .to_string(),
        "s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(63)"
    );
}

#[test]
fn branch_target_counts_dwords_from_the_next_instruction() {
    let back = Inst::Sopp {
        op: SoppOp::CbranchScc1,
        simm16: (-10i16) as u16,
    };
    assert_eq!(back.branch_target(0x100), Some(0x100 + 4 - 40));
    assert_eq!(
        Inst::Sopp {
            op: SoppOp::Nop,
            simm16: 0
        }
        .branch_target(0),
        None
    );
}

#[test]
fn the_vector_file_covers_every_op_of_every_table() {
    let mut seen = std::collections::HashSet::new();
    for (bytes, _) in vectors() {
        let (inst, _) = decode(Generation::Gfx11, &bytes).unwrap();
        let name = match inst {
            Inst::Sop1 { op, .. } => op.name(),
            Inst::Sop2 { op, .. } => op.name(),
            Inst::Sopk { op, .. } => op.name(),
            Inst::Sopc { op, .. } => op.name(),
            Inst::Sopp { op, .. } => op.name(),
            Inst::Smem { op, .. } => op.name(),
            Inst::Vop1 { op, .. } => op.name(),
            Inst::Vop2 { op, .. } => op.name(),
            Inst::Vop3 { op, .. } => op.name(),
            Inst::Vopc { op, .. } => op.name(),
            Inst::Global { op, .. } => op.name(),
            Inst::Ds(ds) => ds.op.name(),
            Inst::Acc(m) => match m.op {
                acc::AccOp::Read => "v_accvgpr_read_b32",
                acc::AccOp::Write => "v_accvgpr_write_b32",
            },
        };
        seen.insert(name);
    }
    let all = Sop1Op::ALL
        .iter()
        .map(|o| o.name())
        .chain(
            Sop2Op::ALL
                .iter()
                .filter(|o| o.in_generation(Generation::Gfx11))
                .map(|o| o.name()),
        )
        .chain(
            SopkOp::ALL
                .iter()
                .filter(|o| o.in_generation(Generation::Gfx11))
                .map(|o| o.name()),
        )
        .chain(SopcOp::ALL.iter().map(|o| o.name()))
        .chain(
            SoppOp::ALL
                .iter()
                .filter(|o| o.in_generation(Generation::Gfx11))
                .map(|o| o.name()),
        )
        .chain(SmemOp::ALL.iter().map(|o| o.name()))
        .chain(Vop1Op::ALL.iter().map(|o| o.name()))
        .chain(Vop2Op::ALL.iter().map(|o| o.name()))
        .chain(Vop3Op::ALL.iter().map(|o| o.name()))
        .chain(VopcOp::ALL.iter().map(|o| o.name()))
        .chain(GlobalOp::ALL.iter().map(|o| o.name()));
    let missing: Vec<&str> = all.filter(|n| !seen.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "ops without an llvm-mc-19 vector: {missing:?}"
    );
}

#[test]
fn decode_never_panics_and_what_it_accepts_re_encodes_exactly() {
    // xorshift64*, fixed seed: 200k random 12-byte windows, every length 0..=12.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut accepted = 0;
    for i in 0..200_000 {
        let mut bytes = [0u8; 12];
        for b in bytes.chunks_mut(8) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let v = x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
            b.copy_from_slice(&v[..b.len()]);
        }
        let len = i % 13;
        if let Ok((inst, n)) = decode(Generation::Gfx11, &bytes[..len]) {
            accepted += 1;
            assert_eq!(
                encode(Generation::Gfx11, &inst).unwrap(),
                bytes[..n],
                "{inst:?}"
            );
        }
    }
    assert!(accepted > 100, "only {accepted} random words decoded");
}

#[test]
fn gfx12_decode_prints_what_llvm_prints_and_encode_inverts_it() {
    let v = vectors_gfx12();
    assert!(v.len() > 100, "vector file too short: {}", v.len());
    for (bytes, text) in v {
        let (inst, len) =
            decode(Generation::Gfx12, &bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(len, bytes.len(), "{text}: length");
        assert_eq!(
            inst.text(Generation::Gfx12).to_string(),
            text,
            "{bytes:02x?}"
        );
        assert_eq!(
            encode(Generation::Gfx12, &inst).unwrap(),
            bytes,
            "{text}: re-encoding"
        );
    }
}

#[test]
fn gfx1250_decode_prints_what_llvm_prints_and_encode_inverts_it() {
    let v = vectors_gfx1250();
    for (bytes, text) in v {
        let (inst, len) =
            decode(Generation::Gfx12_5, &bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(len, bytes.len(), "{text}: length");
        assert_eq!(
            inst.text(Generation::Gfx12_5).to_string(),
            text,
            "{bytes:02x?}"
        );
        assert_eq!(encode(Generation::Gfx12_5, &inst).unwrap(), bytes, "{text}");
    }
}

/// The ops only gfx1250's template uses each have a vector, decode only on gfx1250, and the
/// hardware register fields print with gfx1250's names (a number elsewhere).
#[test]
fn gfx1250_vectors_cover_its_own_ops_which_other_generations_refuse() {
    let own: Vec<(Vec<u8>, String)> =
        parse_vectors(include_str!("../../tests/vectors/inst_gfx1250.txt"));
    let decoded: Vec<Inst> = own
        .iter()
        .map(|(b, _)| decode(Generation::Gfx12_5, b).unwrap().0)
        .collect();
    let name = |i: &Inst| match *i {
        Inst::Sop2 { op, .. } => op.name(),
        Inst::Sopk { op, .. } => op.name(),
        _ => "",
    };
    for op in [Sop2Op::BfeU32.name(), Sop2Op::CselectB32.name()]
        .into_iter()
        .chain([SopkOp::GetregB32.name(), SopkOp::SetregImm32B32.name()])
    {
        assert!(decoded.iter().any(|i| name(i) == op), "{op} has no vector");
    }
    // s_wait_alu, by name where LLVM names it; the wait for ASYNCcnt.
    assert!(own.iter().any(|(_, t)| t == "s_wait_alu depctr_vm_vsrc(0)"));
    assert!(own.iter().any(|(_, t)| t == "s_wait_asynccnt 0x0"));
    // Another generation has none of these ops (its column is empty): the word is refused or
    // is another op there (gfx10's SOP2 0x26 is s_mul_i32).
    for ((bytes, text), inst) in own.iter().zip(&decoded) {
        if name(inst).is_empty() {
            continue; // s_wait_alu: gfx11's s_waitcnt_depctr
        }
        for other in Generation::Gfx12_5.others() {
            let theirs = decode(other, bytes).map(|(i, _)| name(&i));
            assert_ne!(theirs, Ok(name(inst)), "{other} decodes `{text}`");
        }
    }
    // s_setreg_imm32_b32 carries its value as the literal after the word; SDST bits stay 0.
    let set = Inst::Sopk {
        op: SopkOp::SetregImm32B32,
        sdst: Operand::Sgpr(1),
        simm16: 0x641,
    };
    assert!(encode(Generation::Gfx12_5, &set).is_err());
    let mut word = own[0].0.clone();
    word[2] |= 1;
    assert!(decode(Generation::Gfx12_5, &word).is_err(), "SDST bits set");
}

#[test]
fn gfx12_vectors_cover_the_changed_formats_and_every_op() {
    let decoded: Vec<Inst> = vectors_gfx12()
        .iter()
        .map(|(b, _)| decode(Generation::Gfx12, b).unwrap().0)
        .collect();
    for op in SoppOp::ALL
        .iter()
        .filter(|op| !op.in_generation(Generation::Gfx11) && op.in_generation(Generation::Gfx12))
    {
        assert!(
            decoded
                .iter()
                .any(|i| matches!(i, Inst::Sopp { op: o, .. } if o == op)),
            "{op} has no gfx12 vector"
        );
    }
    for &op in SmemOp::ALL {
        assert!(decoded
            .iter()
            .any(|i| matches!(i, Inst::Smem { op: o, .. } if *o == op)));
    }
    for &op in GlobalOp::ALL {
        assert!(decoded
            .iter()
            .any(|i| matches!(i, Inst::Global { op: o, .. } if *o == op)));
    }
    // A 24-bit SMEM offset only gfx12 holds.
    assert!(decoded.iter().any(|i| matches!(
        i,
        Inst::Smem {
            offset: 0x7f_ffff,
            ..
        }
    )));
}

#[test]
fn the_generations_refuse_each_others_forms() {
    let wait = Inst::Sopp {
        op: SoppOp::WaitKmcnt,
        simm16: 0,
    };
    assert!(
        encode(Generation::Gfx11, &wait).is_err(),
        "s_wait_kmcnt is gfx12 only"
    );
    let bytes = encode(Generation::Gfx12, &wait).unwrap();
    assert!(matches!(
        decode(Generation::Gfx11, &bytes),
        Err(DecodeError::Unknown { .. })
    ));
    let far = Inst::Smem {
        op: SmemOp::LoadB32,
        sdata: 0,
        sbase: 0,
        offset: 1 << 20,
        soffset: None,
    };
    assert!(
        encode(Generation::Gfx11, &far).is_err(),
        "21-bit SMEM offset on gfx11"
    );
    assert!(encode(Generation::Gfx12, &far).is_ok());
    // A gfx11 GLOBAL word is no gfx12 instruction, and a VGLOBAL word no gfx11 one.
    let global = Inst::Global {
        op: GlobalOp::LoadB32,
        vdata: 1,
        vaddr: 2,
        saddr: Some(4),
        offset: 8,
    };
    let g11 = encode(Generation::Gfx11, &global).unwrap();
    let g12 = encode(Generation::Gfx12, &global).unwrap();
    assert_eq!((g11.len(), g12.len()), (8, 12));
    assert!(decode(Generation::Gfx12, &g11).is_err());
    assert!(decode(Generation::Gfx11, &g12).is_err());
    assert_eq!(decode(Generation::Gfx12, &g12), Ok((global, 12)));
    // A 12-byte VGLOBAL cut short is truncated, not misread.
    assert!(matches!(
        decode(Generation::Gfx12, &g12[..8]),
        Err(DecodeError::Truncated { needed: 12, .. })
    ));
    // DS words follow the generation's table: cond_sub is gfx12 only.
    let cond = Inst::Ds(crate::ds::DsInst::new(crate::ds::DsOp::CondSubU32));
    assert!(encode(Generation::Gfx11, &cond).is_err());
    let b = encode(Generation::Gfx12, &cond).unwrap();
    assert!(matches!(
        decode(Generation::Gfx11, &b),
        Err(DecodeError::UnknownOpcode(_, Generation::Gfx11))
    ));
}

/// Every spelling a generation's module renames is a row of the ops tables (a typo would leave
/// the op spelled as gfx11 spells it), and a row the generation has.
#[test]
fn every_rename_names_a_row_the_generation_has() {
    let rows: Vec<(&str, Vec<Generation>)> = {
        let mut v = Vec::new();
        macro_rules! rows_of {
            ($($t:ident),*) => {$(
                for op in $t::ALL {
                    let gens = Generation::ALL.into_iter().filter(|&g| op.in_generation(g)).collect();
                    v.push((op.name(), gens));
                }
            )*};
        }
        rows_of!(
            Sop1Op, Sop2Op, SopkOp, SopcOp, SoppOp, SmemOp, Vop1Op, Vop2Op, Vop3Op, VopcOp,
            GlobalOp
        );
        v
    };
    let mut renamed = 0;
    for gen in Generation::ALL {
        for &(row, spelled) in gen.spec().renames.iter().flat_map(|l| l.iter()) {
            let Some((_, gens)) = rows.iter().find(|(n, _)| *n == row) else {
                panic!("{gen} renames {row}, which is no row of the ops tables");
            };
            assert!(gens.contains(&gen), "{gen} renames {row}, which it lacks");
            assert_ne!(row, spelled, "{gen}: {row}");
            renamed += 1;
        }
    }
    assert_eq!(
        renamed,
        16 + 13 + 7 + 8,
        "gfx9, gfx10, gfx12 and gfx1250's renames"
    );
}
