//! The gfx10 forms of the template's instructions against `tests/vectors/inst_gfx10.txt` and
//! `inst_gfx10_wave64.txt` (`bytes | text` from llvm-mc-19 for an RDNA 2 target; `tests/llvm_inst.rs`
//! re-checks them live for an RDNA 1 and an RDNA 2 target with LLVM 19 and 22), and what sets gfx10 apart
//! from gfx11: the opcode column, m0/null codes, the `s_waitcnt` layout, 12-bit GLOBAL offsets.

use super::tests::parse_vectors;
use super::*;
use crate::gen::Generation::{Gfx10, Gfx11};

fn vectors_gfx10() -> Vec<(Vec<u8>, String)> {
    let mut v = parse_vectors(include_str!("../../tests/vectors/inst_gfx10.txt"));
    v.extend(parse_vectors(include_str!(
        "../../tests/vectors/inst_gfx10_wave64.txt"
    )));
    v
}

#[test]
fn gfx10_decode_prints_what_llvm_prints_and_encode_inverts_it() {
    let v = vectors_gfx10();
    assert!(v.len() > 150, "vector files too short: {}", v.len());
    for (bytes, text) in v {
        let (inst, len) = decode(Gfx10, &bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(len, bytes.len(), "{text}: length");
        assert_eq!(inst.text(Gfx10).to_string(), text, "{bytes:02x?}");
        assert_eq!(encode(Gfx10, &inst).unwrap(), bytes, "{text}: re-encoding");
    }
}

#[test]
fn gfx10_vectors_cover_every_op_gfx10_has() {
    let decoded: Vec<Inst> = vectors_gfx10()
        .iter()
        .map(|(b, _)| decode(Gfx10, b).unwrap().0)
        .collect();
    let texts: Vec<String> = decoded.iter().map(|i| i.text(Gfx10).to_string()).collect();
    let has = |name: &str| texts.iter().any(|t| t.split(' ').next() == Some(name));
    let mut missing = Vec::new();
    macro_rules! check {
        ($($t:ident),*) => {$(
            for op in $t::ALL.iter().filter(|o| o.opcode(Gfx10).is_some()) {
                let n = op.name();
                let found = has(n) || has(&format!("{n}_e32"));
                if !found { missing.push(n); }
            }
        )*};
    }
    check!(Sop1Op, Sop2Op, SopcOp, SoppOp, Vop1Op, Vop2Op, Vop3Op, VopcOp);
    check!(SopkOp);
    for op in SmemOp::ALL {
        if !has(op.mnemonic(Gfx10)) {
            missing.push(op.mnemonic(Gfx10));
        }
    }
    for op in GlobalOp::ALL {
        if !has(op.mnemonic(Gfx10)) {
            missing.push(op.mnemonic(Gfx10));
        }
    }
    assert!(
        missing.is_empty(),
        "ops without a gfx10 vector: {missing:?}"
    );
}

#[test]
fn gfx10_has_the_template_ops_but_not_gfx12s_waits() {
    for op in SoppOp::ALL {
        assert_eq!(op.opcode(Gfx10).is_some(), op.in_generation(Gfx11), "{op}");
    }
    let wait = Inst::Sopp {
        op: SoppOp::WaitDscnt,
        simm16: 0,
    };
    assert!(encode(Gfx10, &wait).is_err());
}

#[test]
fn gfx10_swaps_m0_and_null_and_lays_out_waitcnt_its_own_way() {
    let mov = |d| Inst::Sop1 {
        op: Sop1Op::MovB32,
        sdst: d,
        src0: Operand::Sgpr(1),
    };
    // SDST [22:16]: m0 124, null 125 on gfx10; the other way round on gfx11.
    assert_eq!(encode(Gfx10, &mov(Operand::M0)).unwrap()[2], 0xfc);
    assert_eq!(encode(Gfx10, &mov(Operand::Null)).unwrap()[2], 0xfd);
    assert_eq!(encode(Gfx11, &mov(Operand::M0)).unwrap()[2], 0xfd);
    assert_eq!(encode(Gfx11, &mov(Operand::Null)).unwrap()[2], 0xfc);
    for vm in 0..64 {
        for exp in 0..8 {
            for lgkm in [0, 1, 15, 62, 63] {
                let w = Waitcnt {
                    vmcnt: vm,
                    expcnt: exp,
                    lgkmcnt: lgkm,
                };
                let s = w.to_simm16(Gfx10);
                assert_eq!(s & Waitcnt::unused_bits(Gfx10), 0);
                assert_eq!(Waitcnt::from_simm16(Gfx10, s), w);
            }
        }
    }
    // `s_waitcnt vmcnt(0)` as llvm-mc-19 encodes it for gfx10.
    assert_eq!(Waitcnt::vm(0).to_simm16(Gfx10), 0x3f70);
    let bit7 = Inst::Sopp {
        op: SoppOp::Waitcnt,
        simm16: 0x3ff0,
    };
    assert!(encode(Gfx10, &bit7).is_err());
}

#[test]
fn gfx10_global_offsets_are_12_bits_and_the_words_differ_from_gfx11s() {
    let g = |offset| Inst::Global {
        op: GlobalOp::StoreB64,
        vdata: 4,
        vaddr: 2,
        saddr: Some(6),
        offset,
    };
    assert!(encode(Gfx10, &g(2048)).is_err());
    assert!(encode(Gfx10, &g(-2049)).is_err());
    assert!(encode(Generation::Gfx11, &g(2048)).is_ok());
    for off in [-2048, -1, 0, 7, 2047] {
        let b = encode(Gfx10, &g(off)).unwrap();
        assert_eq!(decode(Gfx10, &b), Ok((g(off), 8)));
        // gfx11 reads SEG at [17:16], which gfx10 uses for GLC/SLC: no silent misreading.
        assert_ne!(decode(Generation::Gfx11, &b).map(|d| d.0), Ok(g(off)));
    }
    let b11 = encode(Generation::Gfx11, &g(8)).unwrap();
    assert!(decode(Gfx10, &b11).is_err());
}

#[test]
fn gfx10_random_words_that_decode_re_encode_exactly() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
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
        if let Ok((inst, n)) = decode(Gfx10, &bytes[..len]) {
            accepted += 1;
            assert_eq!(encode(Gfx10, &inst).unwrap(), bytes[..n], "{inst:?}");
        }
    }
    assert!(accepted > 50, "only {accepted} random words decoded");
}
