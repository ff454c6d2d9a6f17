//! The iced-style vector file `tests/vectors.txt` drives the decoder and the encoder at once:
//! each valid line's bytes must decode to its text, and its text must parse and encode to its
//! bytes; each invalid line's bytes must be rejected with the named error. (The same file is
//! checked against llvm-mc-19 in `llvm_oracle.rs`.)

mod common;

use common::{bytes_line, vectors};
use ds_isa::ds::syntax::parse;
use ds_isa::ds::{DsInst, DsOp};
use ds_isa::gen::Generation;
use std::collections::HashSet;

#[test]
fn every_vector_decodes_to_its_text_and_encodes_to_its_bytes() {
    let vectors = vectors();
    let mut failures = Vec::new();
    let mut ops = HashSet::new();
    let (mut valid, mut invalid) = (0, 0);
    for v in &vectors {
        let at = format!(
            "vectors.txt:{} ({}) {}",
            v.line,
            v.why,
            bytes_line(&v.bytes)
        );
        match &v.text {
            Ok(text) => {
                valid += 1;
                match DsInst::from_bytes(Generation::Gfx11, v.bytes) {
                    Ok(inst) if inst.text(Generation::Gfx11).to_string() == *text => {
                        ops.insert(inst.op);
                    }
                    other => failures.push(format!("{at}: decoded {other:?}, want `{text}`")),
                }
                match parse(Generation::Gfx11, text).map(|i| i.to_bytes(Generation::Gfx11)) {
                    Ok(Ok(bytes)) if bytes == v.bytes => {}
                    other => failures.push(format!("{at}: `{text}` encoded as {other:?}")),
                }
            }
            Err(want) => {
                invalid += 1;
                match DsInst::from_bytes(Generation::Gfx11, v.bytes) {
                    Err(e) if e.to_string().contains(want.as_str()) => {}
                    other => failures.push(format!(
                        "{at}: decoded {other:?}, want an error with `{want}`"
                    )),
                }
            }
        }
    }
    println!(
        "vectors: {} lines, {valid} valid over {} ops, {invalid} invalid",
        vectors.len(),
        ops.len()
    );
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(failures.is_empty(), "{} vector(s) failed", failures.len());
    assert_eq!(
        ops.len(),
        DsOp::all(Generation::Gfx11).count(),
        "the vectors cover every op"
    );
    assert!(
        valid >= 300 && invalid >= 30,
        "a few hundred vectors, valid and invalid"
    );
}
