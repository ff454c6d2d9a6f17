//! Property tests of the encoder, decoder, printer and parser (proptest, small budgets so the
//! suite stays fast; a failure prints the minimal case and proptest keeps its seed).

mod common;

use common::{legalize, same_swizzle};
use ds_isa::ds::syntax::parse;
use ds_isa::ds::{DsInst, DsOp, Generation};
use proptest::prelude::*;

/// Random legal instructions: any op, any field values, made legal by [`legalize`].
fn legal_inst() -> impl Strategy<Value = DsInst> {
    let ops: Vec<DsOp> = DsOp::all(Generation::Gfx11).collect();
    (0..ops.len(), any::<[u8; 4]>(), any::<u16>(), any::<bool>())
        .prop_map(move |(i, regs, offset, gds)| legalize(ops[i], regs, offset, gds))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn decode_inverts_encode(inst in legal_inst()) {
        let word = inst.encode(Generation::Gfx11).expect("a legal instruction encodes");
        prop_assert_eq!(DsInst::decode(Generation::Gfx11, word), Ok(inst));
        prop_assert_eq!(DsInst::from_bytes(Generation::Gfx11, word.to_le_bytes()), Ok(inst));
    }

    /// Any 8 bytes: decoding returns (never panics), and what it accepts re-encodes to the
    /// same word, so no two words decode alike. Bits [31:26] are forced to DS in half the cases
    /// so the opcode and field checks are reached, not only the format check.
    #[test]
    fn decode_never_panics_and_accepts_only_what_it_reencodes(raw in any::<u64>(), ds in any::<bool>()) {
        let word = if ds { (raw & !(0x3f << 26)) | 0b110110 << 26 } else { raw };
        if let Ok(inst) = DsInst::decode(Generation::Gfx11, word) {
            prop_assert_eq!(inst.encode(Generation::Gfx11), Ok(word));
        }
    }

    /// parse(print(x)) gives x back, with one exception that LLVM shares: a swizzle bit-mask
    /// offset prints as LLVM's BITMASK_PERM/BROADCAST/SWAP/REVERSE text, which says what each
    /// source-lane bit is (0, 1, kept, inverted); and/or/xor triples with the same lane map print
    /// alike, so the text reads back as the canonical triple of that lane map. There we compare
    /// lane maps, and require that the second print equals the first read's print.
    #[test]
    fn parse_inverts_print(inst in legal_inst()) {
        let text = inst.text(Generation::Gfx11).to_string();
        let back = parse(Generation::Gfx11, &text).map_err(|e| format!("`{text}`: {e}"));
        prop_assert!(back.is_ok(), "{:?}", back);
        let back = back.expect("checked");
        if back != inst {
            prop_assert!(same_swizzle(&back, &inst), "`{}` read back as {:?}", text, back);
            let again = parse(Generation::Gfx11, &back.text(Generation::Gfx11).to_string()).expect("a printed line parses");
            prop_assert_eq!(again, back, "the canonical triple is a fixed point");
        }
    }

    /// The parser returns an error, never panics, on arbitrary printable text, and on text
    /// made of DS-like tokens.
    #[test]
    fn parse_never_panics(line in "[ -~]{0,60}") {
        let _ = parse(Generation::Gfx11, &line);
    }

    #[test]
    fn parse_never_panics_on_ds_like_tokens(
        mnemonic in prop::sample::select(DsOp::all(Generation::Gfx11).map(|o| o.name()).collect::<Vec<_>>()),
        words in proptest::collection::vec(
            prop_oneof![
                "v[0-9]{1,4}", "v\\[[0-9]{1,3}(:[0-9]{1,3})?\\]?", Just(",".to_string()),
                "offset[01]?: ?[0-9x]{0,7}", Just("gds".to_string()),
                "offset:swizzle\\([A-Z_]{0,12}(,[0-9\"pi]{0,6}){0,5}\\)?",
                Just("v[".to_string()), Just("(".to_string()), Just(":".to_string()),
            ],
            0..8,
        )
    ) {
        let line = format!("{mnemonic} {}", words.join(" "));
        if let Ok(inst) = parse(Generation::Gfx11, &line) {
            // What parses is legal and prints as something that parses again.
            prop_assert!(inst.encode(Generation::Gfx11).is_ok());
            prop_assert!(parse(Generation::Gfx11, &inst.text(Generation::Gfx11).to_string()).is_ok(), "{}", inst.text(Generation::Gfx11));
        }
    }
}
