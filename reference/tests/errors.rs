//! Every error says what is wrong and how to fix it: each message is checked for the facts it
//! must name (the op, the field, the limit, the suggestion).

use ds_isa::ds::syntax::parse;
use ds_isa::ds::{DsInst, DsOp, Field};
use ds_isa::error::{DecodeError, InstError, ParseError};
use ds_isa::gen::Generation;

fn parse_err(line: &str) -> (ParseError, String) {
    let e = parse(Generation::Gfx11, line).expect_err(line);
    let msg = e.to_string();
    (e, msg)
}

fn has_all(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} should mention {p:?}");
    }
}

#[test]
fn unknown_mnemonic_suggests_the_closest_names() {
    let (e, msg) = parse_err("ds_load_b33 v1, v2");
    assert!(matches!(e, ParseError::UnknownMnemonic { .. }));
    has_all(
        &msg,
        &[
            "unknown DS mnemonic `ds_load_b33`",
            "did you mean",
            "ds_load_b32",
        ],
    );
    let (_, msg) = parse_err("ds_laod_u8 v1, v2");
    has_all(&msg, &["ds_load_u8"]);
    // gfx10's compare-exchange names: gfx11 spells them cmpstore.
    let (_, msg) = parse_err("ds_cmpst_rtn_b32 v1, v2, v3, v4");
    has_all(&msg, &["ds_cmpstore_rtn_b32"]);
    // A name like no DS op gets no guess, but a pointer to the list.
    let (_, msg) = parse_err("ds_frobnicate v1");
    has_all(
        &msg,
        &["unknown DS mnemonic `ds_frobnicate`", "ds-harness list"],
    );
    assert!(!msg.contains("did you mean"), "{msg}");
    // Legacy spellings are suggested too.
    let (_, msg) = parse_err("ds_write2st64_b33 v1, v2, v3");
    has_all(&msg, &["ds_write2st64_b32"]);
}

#[test]
fn a_word_that_is_not_ds_is_named_as_such() {
    let (e, msg) = parse_err("v_mov_b32 v1, v2");
    assert_eq!(e, ParseError::NotDs("v_mov_b32".into()));
    has_all(&msg, &["`v_mov_b32` is not a DS instruction"]);

    let flat = 0b110111u64 << 26;
    let e = DsInst::decode(Generation::Gfx11, flat).expect_err("FLAT word");
    assert_eq!(e, DecodeError::NotDs { encoding: 0b110111 });
    has_all(
        &e.to_string(),
        &[
            "not a DS instruction",
            "0b110111",
            "0b110110",
            "little-endian",
        ],
    );

    let undefined =
        DsInst::decode(Generation::Gfx11, 0b110110u64 << 26 | 0x16 << 18).expect_err("opcode 0x16");
    assert_eq!(
        undefined,
        DecodeError::UnknownOpcode(0x16, ds_isa::ds::Generation::Gfx11)
    );
    has_all(
        &undefined.to_string(),
        &["0x16", "not a gfx11 DS instruction", "ds-harness list"],
    );
}

#[test]
fn wrong_register_count_names_the_operands_and_shows_an_example() {
    let (e, msg) = parse_err("ds_load_b32 v1");
    assert_eq!(
        e,
        ParseError::OperandCount {
            op: DsOp::LoadB32,
            expected: 2,
            found: 1,
            gen: Generation::Gfx11,
        }
    );
    has_all(
        &msg,
        &[
            "ds_load_b32 takes 2",
            "(vdst, addr)",
            "found 1",
            "`ds_load_b32 v1, v2 offset:16`",
        ],
    );
    let (_, msg) = parse_err("ds_store_b32 v1, v2, v3");
    has_all(&msg, &["takes 2", "(addr, data0)", "found 3"]);
    let (_, msg) = parse_err("ds_nop v1");
    has_all(&msg, &["ds_nop takes 0", "(none)", "found 1"]);
}

#[test]
fn wrong_register_width_says_how_to_write_it() {
    let (e, msg) = parse_err("ds_load_b64 v1, v2");
    assert_eq!(
        e,
        ParseError::RegisterWidth {
            op: DsOp::LoadB64,
            field: Field::Vdst,
            expected: 2,
            found: 1,
            gen: Generation::Gfx11,
        }
    );
    has_all(&msg, &["2 dword(s) in vdst", "v[N:N+1]"]);
    let (_, msg) = parse_err("ds_load_b128 v[253:256], v0");
    has_all(&msg, &["v[253:256]", "v0..v255"]);
}

#[test]
fn offset_too_large_names_the_limit() {
    let (e, msg) = parse_err("ds_load_b32 v1, v2 offset:65536");
    assert!(matches!(e, ParseError::OffsetRange { max: 65535, .. }));
    has_all(&msg, &["offset:65536", "ds_load_b32", "16-bit", "65535"]);
    let (_, msg) = parse_err("ds_load_2addr_b64 v[0:3], v4 offset1:256");
    has_all(
        &msg,
        &["offset1:256", "8-bit", "8-byte units", "255", "2040 bytes"],
    );
    let (_, msg) = parse_err("ds_store_2addr_stride64_b32 v0, v1, v2 offset0:300");
    has_all(&msg, &["256-byte units", "65280 bytes"]);
}

#[test]
fn gds_where_forbidden_or_missing_where_required() {
    let (e, msg) = parse_err("ds_permute_b32 v1, v2, v3 gds");
    assert_eq!(
        e,
        ParseError::Inst(InstError::GdsForbidden {
            op: DsOp::PermuteB32,
            gen: Generation::Gfx11
        })
    );
    has_all(&msg, &["ds_permute_b32 cannot address GDS", "remove `gds`"]);
    let (_, msg) = parse_err("ds_gws_init v1 offset:4");
    has_all(&msg, &["ds_gws_init only addresses GDS", "`gds`"]);
    // The decoder says the same of the GDS bit.
    let bits = DsInst {
        vdst: 1,
        addr: 2,
        data0: 3,
        ..DsInst::new(DsOp::BpermuteB32)
    }
    .encode(Generation::Gfx11)
    .expect("legal");
    let e = DsInst::decode(Generation::Gfx11, bits | 1 << 17).expect_err("gds on bpermute");
    has_all(&e.to_string(), &["ds_bpermute_b32 cannot address GDS"]);
}

#[test]
fn reserved_and_unused_fields_must_be_zero() {
    let load = DsInst {
        vdst: 5,
        addr: 1,
        ..DsInst::new(DsOp::LoadB32)
    };
    let word = load.encode(Generation::Gfx11).expect("legal");

    let e = DsInst::decode(Generation::Gfx11, word | 1 << 16).expect_err("reserved bit");
    assert_eq!(e, DecodeError::ReservedBit(16));
    has_all(&e.to_string(), &["reserved bit 16", "must be 0"]);

    let e = DsInst::decode(Generation::Gfx11, word | 7 << 40).expect_err("data0 on a load");
    assert_eq!(
        e,
        DecodeError::Inst(InstError::UnusedField {
            op: DsOp::LoadB32,
            field: Field::Data0,
            value: 7,
            gen: Generation::Gfx11,
        })
    );
    has_all(
        &e.to_string(),
        &[
            "ds_load_b32 does not use the data0 field",
            "[47:40]",
            "holds 7",
            "must be 0",
        ],
    );

    // GWS ops keep data0 in the ADDR byte: the DATA0 byte must be zero, and the message says so.
    let e = DsInst::decode(
        Generation::Gfx11,
        0b110110u64 << 26 | 0x19 << 18 | 1 << 17 | 1 << 40,
    )
    .expect_err("gws");
    has_all(
        &e.to_string(),
        &["ds_gws_init does not use the data0 field", "ADDR byte"],
    );

    // The encoder refuses the same: a field the op does not use, and a tuple past v255.
    let e = DsInst { data1: 3, ..load }
        .encode(Generation::Gfx11)
        .expect_err("data1 on a load");
    assert!(matches!(
        e,
        InstError::UnusedField {
            field: Field::Data1,
            value: 3,
            ..
        }
    ));
    let e = DsInst {
        vdst: 253,
        ..DsInst::new(DsOp::LoadB128)
    }
    .encode(Generation::Gfx11)
    .expect_err("v[253:256]");
    has_all(
        &e.to_string(),
        &["4 dwords of vdst from v253", "past v255", "v252 or lower"],
    );

    let e = DsInst::new(DsOp::Nop)
        .with_offset16(4)
        .encode(Generation::Gfx11)
        .expect_err("offset on nop");
    has_all(&e.to_string(), &["ds_nop takes no offset"]);
}

#[test]
fn modifiers_out_of_order_or_misspelled_say_the_expected_order() {
    let (_, msg) = parse_err("ds_load_b32 v1, v2 gds offset:4");
    has_all(
        &msg,
        &[
            "`offset:4`",
            "out of order",
            "offset, offset0, offset1, gds",
        ],
    );
    let (_, msg) = parse_err("ds_load_b32 v1, v2 GDS");
    has_all(&msg, &["`GDS`", "lower case"]);
    let (_, msg) = parse_err("ds_load_2addr_b32 v[1:2], v3 offset:8");
    has_all(&msg, &["offset0:N offset1:M"]);
    let (_, msg) = parse_err("ds_swizzle_b32 v1, v2 offset:swizzle(fft,3)");
    has_all(
        &msg,
        &["unknown swizzle mode `fft`", "QUAD_PERM", "ROTATE and FFT"],
    );
    let (_, msg) = parse_err("ds_swizzle_b32 v1, v2 offset:swizzle(FFT,32)");
    has_all(&msg, &["FFT swizzle is 0..=31, found 32"]);
    let (_, msg) = parse_err("ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,2,1)");
    has_all(
        &msg,
        &["ROTATE direction is 0 (left) or 1 (right), found 2"],
    );
}
