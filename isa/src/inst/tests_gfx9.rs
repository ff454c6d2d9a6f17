//! The gfx9 forms of the template's instructions against `tests/vectors/inst_gfx9.txt` (`bytes |
//! text` from llvm-mc-19 for the first gfx9 target; `tests/llvm_inst.rs` re-checks them live for every kind of
//! gfx9 target with LLVM 19 and 22), and what sets gfx9 apart: its opcode column and spellings,
//! SMEM and VOP3 format codes, SMEM's IMM/SOE offset forms, `off` as 0x7f, no `null`, SGPRs to
//! s101, the 4-bit LGKM_CNT of `s_waitcnt`, VOP3 without literals.

use super::tests::parse_vectors;
use super::*;
use crate::gen::Generation::{Gfx10, Gfx11, Gfx9};

fn vectors_gfx9() -> Vec<(Vec<u8>, String)> {
    parse_vectors(include_str!("../../tests/vectors/inst_gfx9.txt"))
}

#[test]
fn gfx9_decode_prints_what_llvm_prints_and_encode_inverts_it() {
    let v = vectors_gfx9();
    assert!(v.len() > 150, "vector file too short: {}", v.len());
    for (bytes, text) in v {
        let (inst, len) = decode(Gfx9, &bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(len, bytes.len(), "{text}: length");
        assert_eq!(inst.text(Gfx9).to_string(), text, "{bytes:02x?}");
        assert_eq!(encode(Gfx9, &inst).unwrap(), bytes, "{text}: re-encoding");
    }
}

#[test]
fn gfx9_vectors_cover_every_op_gfx9_has() {
    let texts: Vec<String> = vectors_gfx9()
        .iter()
        .map(|(b, _)| decode(Gfx9, b).unwrap().0.text(Gfx9).to_string())
        .collect();
    let has = |name: &str| {
        texts
            .iter()
            .any(|t| [name, &format!("{name}_e32")].contains(&t.split(' ').next().unwrap()))
    };
    let mut missing = Vec::new();
    macro_rules! check {
        ($($t:ident),*) => {$(
            for op in $t::ALL.iter().filter(|o| o.opcode(Gfx9).is_some()) {
                if !has(op.name()) { missing.push(op.name()); }
            }
        )*};
    }
    check!(Sop1Op, SopcOp, SoppOp, Vop1Op, VopcOp, SopkOp, Sop2Op);
    for op in Vop2Op::ALL {
        if !has(op.mnemonic(Gfx9)) {
            missing.push(op.mnemonic(Gfx9));
        }
    }
    for op in Vop3Op::ALL {
        if !has(op.mnemonic(Gfx9)) {
            missing.push(op.mnemonic(Gfx9));
        }
    }
    for n in SmemOp::ALL.iter().map(|o| o.mnemonic(Gfx9)) {
        if !has(n) {
            missing.push(n);
        }
    }
    for n in GlobalOp::ALL.iter().map(|o| o.mnemonic(Gfx9)) {
        if !has(n) {
            missing.push(n);
        }
    }
    assert!(missing.is_empty(), "ops without a gfx9 vector: {missing:?}");
}

#[test]
fn gfx9_has_no_null_no_vscnt_wait_and_sgprs_to_s101() {
    let mov = |d, s| Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: d,
        src0: s,
    };
    assert!(encode(Gfx9, &mov(Operand::Null, Operand::Sgpr(1))).is_err());
    assert!(encode(Gfx9, &mov(Operand::Sgpr(1), Operand::Null)).is_err());
    assert!(encode(Gfx9, &mov(Operand::Sgpr(102), Operand::Sgpr(1))).is_err());
    assert!(encode(Gfx9, &mov(Operand::Sgpr(101), Operand::Sgpr(1))).is_ok());
    // m0 is 124 on gfx9 as on gfx10; 102..105 (flat_scratch, xnack_mask) and 125 do not decode.
    assert_eq!(
        encode(Gfx9, &mov(Operand::M0, Operand::Sgpr(1))).unwrap()[2],
        0xfc
    );
    for code in [0x66u8, 0x68, 0x7d] {
        assert!(
            decode(Gfx9, &[code, 0x00, 0x81, 0xbe]).is_err(),
            "{code:#x}"
        );
    }
    let vscnt = Inst::Sopk {
        op: SopkOp::WaitcntVscnt,
        sdst: Operand::Null,
        simm16: 0,
    };
    assert!(encode(Gfx9, &vscnt).is_err());
    assert!(encode(
        Gfx9,
        &Inst::Sop1 {
            op: Sop1Op::AndSaveexecB32,
            sdst: Operand::Sgpr(4),
            src0: Operand::Sgpr(6),
        }
    )
    .is_err());
}

#[test]
fn gfx9_waitcnt_has_a_4_bit_lgkm_count() {
    for vm in 0..64 {
        for exp in 0..8 {
            for lgkm in [0, 1, 14, Waitcnt::LGKM_MAX] {
                let w = Waitcnt {
                    vmcnt: vm,
                    expcnt: exp,
                    lgkmcnt: lgkm,
                };
                let s = w.to_simm16(Gfx9);
                assert_eq!(s & Waitcnt::unused_bits(Gfx9), 0);
                assert_eq!(Waitcnt::from_simm16(Gfx9, s), w);
            }
        }
    }
    // As llvm-mc-19 encodes them for Vega and CDNA 3.
    assert_eq!(Waitcnt::vm(0).to_simm16(Gfx9), 0x0f70);
    assert_eq!(Waitcnt::lgkm(0).to_simm16(Gfx9), 0xc07f);
    for bit in [0x80, 0x1000, 0x2000] {
        let w = Inst::Sopp {
            op: SoppOp::Waitcnt,
            simm16: 0x0f70 | bit,
        };
        assert!(encode(Gfx9, &w).is_err(), "{bit:#x}");
    }
}

#[test]
fn gfx9_words_are_not_read_as_another_generations() {
    let smem = Inst::Smem {
        op: SmemOp::LoadB64,
        sdata: 12,
        sbase: 0,
        offset: 0x20,
        soffset: None,
    };
    let g = |offset| Inst::Global {
        op: GlobalOp::LoadB32,
        vdata: 2,
        vaddr: 1,
        saddr: Some(4),
        offset,
    };
    for inst in [smem, g(-4096), g(4095)] {
        let b = encode(Gfx9, &inst).unwrap();
        assert_eq!(decode(Gfx9, &b), Ok((inst, 8)));
        for other in [Gfx10, Gfx11] {
            assert_ne!(decode(other, &b).map(|d| d.0), Ok(inst), "{other}");
        }
    }
    assert!(encode(Gfx9, &g(4096)).is_err());
    let b11 = encode(Generation::Gfx11, &smem).unwrap();
    assert!(decode(Gfx9, &b11).is_err());
    // No VOP3 literal, one scalar read.
    let vop3 = |src| Inst::Vop3 {
        op: Vop3Op::LshlAddU32,
        vdst: 1,
        src,
    };
    assert!(encode(
        Gfx9,
        &vop3([Operand::Vgpr(0), Operand::Int(2), Operand::Literal(0x80)])
    )
    .is_err());
    assert!(encode(
        Gfx9,
        &vop3([Operand::Sgpr(1), Operand::Int(2), Operand::Sgpr(4)])
    )
    .is_err());
    assert!(encode(
        Gfx9,
        &vop3([Operand::Sgpr(4), Operand::Int(2), Operand::Sgpr(4)])
    )
    .is_ok());
}

#[test]
fn gfx9_random_words_that_decode_re_encode_exactly() {
    let mut x: u64 = 0x9e37_79b9_2545_f491;
    let mut accepted = 0;
    for i in 0..100_000 {
        let mut bytes = [0u8; 12];
        for b in bytes.chunks_mut(8) {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let v = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
            b.copy_from_slice(&v[..b.len()]);
        }
        let len = i % 13;
        if let Ok((inst, n)) = decode(Gfx9, &bytes[..len]) {
            accepted += 1;
            assert_eq!(encode(Gfx9, &inst).unwrap(), bytes[..n], "{inst:?}");
        }
    }
    assert!(accepted > 50, "only {accepted} random words decoded");
}

#[test]
fn cdna2_and_later_need_even_global_tuples_the_others_do_not() {
    use crate::ds::DsFeatures;
    use crate::target::TARGETS;
    let gfx9 = || TARGETS.iter().filter(|t| t.generation == Gfx9);
    let aligned = gfx9()
        .find(|t| !t.ds_features.contains(DsFeatures::UNALIGNED))
        .unwrap();
    let any = gfx9()
        .find(|t| t.ds_features.contains(DsFeatures::UNALIGNED))
        .unwrap();
    let g = |vdata, vaddr, saddr| Inst::Global {
        op: GlobalOp::StoreB64,
        vdata,
        vaddr,
        saddr,
        offset: 0,
    };
    for odd in [g(5, 2, Some(4)), g(4, 3, None)] {
        let b = encode(any, &odd).unwrap();
        assert_eq!(decode(any, &b), Ok((odd, 8)));
        assert!(encode(aligned, &odd).is_err(), "{aligned} {odd:?}");
        assert!(decode(aligned, &b).is_err(), "{aligned} {odd:?}");
    }
    let even = g(4, 3, Some(4));
    assert!(encode(aligned, &even).is_ok());
}
