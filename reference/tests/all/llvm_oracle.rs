//! Differential test of the DS encoder, decoder, printer and parser against LLVM's assembler and
//! disassembler, every generation against every installed oracle release (`llvm-mc-19` and
//! `llvm-mc-22 -arch=amdgcn -mcpu=<the generation's first target it knows>`, Debian packages
//! `llvm-19` and `llvm-22`; `common::llvm::GENERATIONS` lists which release checks which
//! generation), both directions, every op the release knows, batched into a few llvm-mc
//! processes. One body per check; the per-generation facts are the rows of `common::data::DATA`.
//! The syntax (swizzle text, lenient and bad lines, aliases) is `llvm_oracle_syntax.rs`'s.
//!
//! The DS table's oracle column says which release first knows each op: ops newer than a release
//! must be refused by it both ways. Known divergences, asserted as such: LLVM ignores the
//! reserved bit 16 when disassembling and we reject it; LLVM evaluates expressions in offsets
//! (`offset:1+2`) and we read only literal numbers (so no such line is fed to both); LLVM 22 prints
//! swizzle offsets from 0xC000 as `swizzle(ROTATE,..)` / `swizzle(FFT,..)` where LLVM 19 and we
//! print the number (`common::both::printed_by`; both forms are read).

use crate::common;

use common::both::Both;
use common::data::{data, DATA};
use common::llvm::{pairs, printed_by, Pair, GENERATIONS};
use common::{
    bytes_line, legalize_in, mc_assemble_for, mc_disassemble_for, report, spell_in, vectors_in,
    CANONICAL,
};
use ds_isa::ds::encode::field_shift;
use ds_isa::ds::syntax::parse;
use ds_isa::ds::{
    DsFeatures, DsInst, DsOp, Family, Field, Gds, Generation, Isa, OffsetForm, Oracle, DS_TABLE,
};
use ds_isa::error::{DecodeError, InstError};
use std::collections::HashSet;

fn both(pair: &Pair) -> Both<'_> {
    Both { pair }
}

#[test]
fn every_generation_of_the_oracle_list_has_data_and_its_op_counts() {
    for row in GENERATIONS {
        let d = data(row.gen);
        assert_eq!(DsOp::all(row.gen).count(), d.ops, "{}", row.gen);
        let known19 = DsOp::all(row.gen)
            .filter(|op| op.info().oracle.known_to(19))
            .count();
        assert_eq!(known19, d.llvm19_ops, "{}", row.gen);
    }
    assert_eq!(DATA.len(), GENERATIONS.len());
}

#[test]
fn every_op_assembles_as_llvm_mc_does() {
    for pair in pairs() {
        let b = both(&pair);
        let cases = b.cases();
        let lines = b.assemble(&cases);
        let ops: HashSet<DsOp> = cases.iter().map(|i| i.op).collect();
        assert_eq!(ops.len(), b.known_ops().len(), "every known op is tried");
        println!(
            "{}: assembler: {} instructions over {} ops, {lines} lines",
            pair.label(),
            cases.len(),
            ops.len(),
        );
    }
}

#[test]
fn every_op_disassembles_as_llvm_mc_does() {
    for pair in pairs() {
        let b = both(&pair);
        b.disassemble(&b.cases());
    }
}

/// The ops newer than a release (the DS table's oracle column): the release refuses their text
/// and their words. LLVM 19 refuses exactly the four `L22` rows.
#[test]
fn ops_newer_than_a_release_are_refused_by_it_both_ways() {
    for pair in pairs() {
        let b = both(&pair);
        let newer = b.newer_ops();
        let expected = DsOp::all_on(pair.isa()).count() - b.known_ops().len();
        assert_eq!(newer.len(), expected);
        if newer.is_empty() {
            println!("{}: knows every op of the generation", pair.label());
            continue;
        }
        let insts: Vec<DsInst> = newer
            .iter()
            .map(|&op| legalize_in(pair.isa(), op, [5, 1, 2, 3], 0x10, false))
            .collect();
        let spelled = |i: &DsInst| spell_in(pair.gen, i, CANONICAL);
        let mut texts: Vec<String> = insts.iter().map(spelled).collect();
        for inst in &insts {
            for alias in inst.op.aliases_in(pair.gen) {
                texts.push(spelled(inst).replacen(inst.op.mnemonic(pair.gen), alias, 1));
            }
        }
        let mc = pair.llvm.mc();
        for (text, theirs) in texts
            .iter()
            .zip(mc_assemble_for(&mc, pair.cpu.name, &texts))
        {
            assert!(
                theirs.is_err(),
                "{}: now knows `{text}`: move its row's oracle column back",
                pair.label()
            );
            let ours = parse(pair.isa(), text).expect("we read it");
            assert!(newer.contains(&ours.op), "{text}");
        }
        let words: Vec<[u8; 8]> = insts
            .iter()
            .map(|i| i.to_bytes(pair.isa()).expect("legal"))
            .collect();
        for (inst, theirs) in insts
            .iter()
            .zip(mc_disassemble_for(&mc, pair.cpu.name, &words))
        {
            assert_eq!(theirs, None, "{}: now decodes {}", pair.label(), inst.op);
        }
        println!(
            "{}: refuses the {} newer ops both ways: {}",
            pair.label(),
            newer.len(),
            newer
                .iter()
                .map(|o| o.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The gfx12 `L22` rows' opcodes are also the RDNA4 ISA guide's (section 16.15, the decimal
/// number beside each mnemonic); gfx11 has none of them. The gfx9 `L22` rows are CDNA 4's
/// transpose loads, 0xe0-0xe3 (LLVM 22's `DSInstructions.td` and `gfx950_asm_read_tr.s`).
#[test]
fn llvm_22_rows_have_the_rdna4_guides_opcodes() {
    let tr: Vec<(&str, Option<u8>)> = DS_TABLE
        .iter()
        .filter(|r| r.oracle == Oracle::Llvm22 && r.in_generation(Generation::Gfx9))
        .map(|r| (r.name, r.op.opcode(Generation::Gfx9)))
        .collect();
    assert_eq!(
        tr,
        [
            ("ds_read_b64_tr_b4", Some(0xe0)),
            ("ds_read_b96_tr_b6", Some(0xe1)),
            ("ds_read_b64_tr_b8", Some(0xe2)),
            ("ds_read_b64_tr_b16", Some(0xe3)),
        ]
    );
    let newer: Vec<(&str, u8)> = DS_TABLE
        .iter()
        .filter(|r| r.oracle == Oracle::Llvm22 && r.in_generation(Generation::Gfx12))
        .map(|r| {
            (
                r.name,
                r.opcodes[Generation::Gfx12 as usize].expect("gfx12"),
            )
        })
        .collect();
    assert_eq!(
        newer,
        [
            ("ds_bpermute_fi_b32", 205),
            ("ds_bvh_stack_push4_pop1_rtn_b32", 224),
            ("ds_bvh_stack_push8_pop1_rtn_b32", 225),
            ("ds_bvh_stack_push8_pop2_rtn_b64", 226),
        ]
    );
    for (name, _) in newer {
        let inst = DsInst::new(DsOp::from_name(name).unwrap());
        assert!(matches!(
            inst.encode(Generation::Gfx11),
            Err(InstError::NotInGeneration { .. })
        ));
    }
}

/// Every opcode with zero fields, with and without the gds bit, (on targets with AccVGPR
/// operands) the acc bit and (where it is not gfx9's acc bit) the reserved bit LLVM ignores:
/// both decode the same words to the same text (the ops newer than the release aside: it must
/// not know them; the ignored bits: LLVM prints the word as without them, we refuse it). Every
/// target each release knows (gfx1250 and gfx1251 both), not one of each kind.
#[test]
fn every_opcode_is_defined_or_undefined_in_both() {
    for llvm in common::llvm::installed() {
        let mut counts = Vec::new();
        for t in GENERATIONS
            .iter()
            .flat_map(|row| row.gen.targets())
            .filter(|t| llvm.knows(t))
        {
            let (isa, layout) = (Isa::of(t), t.generation.ds_layout());
            let accs: &[u64] = match layout.acc_bit {
                Some(bit) if isa.has(DsFeatures::ACC) => &[0, 1 << bit],
                _ => &[0],
            };
            let reserved: &[u64] = if layout.acc_bit == Some(layout.reserved_bit) {
                &[0]
            } else {
                &[0, 1 << layout.reserved_bit]
            };
            let words: Vec<u64> = (0..=255u64)
                .flat_map(|opc| [0, 1 << layout.gds_bit].map(|gds| (opc, gds)))
                .flat_map(|(opc, gds)| {
                    accs.iter()
                        .map(move |acc| 0b110110 << 26 | opc << layout.op_shift | gds | acc)
                })
                .flat_map(|w| reserved.iter().map(move |r| w | r))
                .collect();
            let bytes: Vec<[u8; 8]> = words.iter().map(|w| w.to_le_bytes()).collect();
            let theirs = mc_disassemble_for(&llvm.mc(), t.name, &bytes);
            let mut bad = Vec::new();
            let (mut newer, mut defined) = (0, 0);
            let mut ignored = 0;
            for (word, theirs) in words.iter().zip(&theirs) {
                let ours = DsInst::decode(isa, *word);
                // The reserved bit: LLVM ignores it (`ignored_bits`), we refuse it.
                if ours == Err(DecodeError::ReservedBit(layout.reserved_bit)) {
                    let plain = DsInst::decode(isa, word & !(1 << layout.reserved_bit))
                        .ok()
                        .filter(|i| i.info().oracle.known_to(llvm.major))
                        .map(|i| printed_by(llvm.major, &i.text(t.generation).to_string()));
                    if plain != *theirs {
                        bad.push(format!(
                            "{word:#018x}: llvm-mc {theirs:?} for the word without bit {}",
                            layout.reserved_bit
                        ));
                    }
                    ignored += 1;
                    continue;
                }
                // The gds bit on a target without GDS: LLVM ignores it (`ignored_bits`).
                if matches!(
                    ours.as_ref().map_err(DecodeError::inst),
                    Err(Some(InstError::NoGds { .. }))
                ) {
                    let plain = DsInst::decode(isa, word & !(1 << layout.gds_bit))
                        .map(|i| printed_by(llvm.major, &i.text(t.generation).to_string()));
                    if plain.ok() != *theirs {
                        bad.push(format!(
                            "{word:#018x}: llvm-mc {theirs:?} for the word without gds"
                        ));
                    }
                    ignored += 1;
                    continue;
                }
                if ours
                    .as_ref()
                    .is_ok_and(|i| !i.info().oracle.known_to(llvm.major))
                {
                    newer += 1;
                    if theirs.is_some() {
                        bad.push(format!("{word:#018x}: knows a newer op: {theirs:?}"));
                    }
                    continue;
                }
                let ours = ours
                    .map(|i| printed_by(llvm.major, &i.text(t.generation).to_string()))
                    .ok();
                defined += usize::from(ours.is_some());
                if ours.as_ref() != theirs.as_ref() {
                    bad.push(format!("{word:#018x}: llvm-mc {theirs:?}, ours {ours:?}"));
                }
            }
            report(
                &format!("{} {t}: opcode space", llvm.label()),
                words.len() - bad.len(),
                words.len(),
                &bad,
            );
            counts.push(format!("{t} {}/{defined}/{newer}/{ignored}", words.len()));
        }
        println!(
            "{}: opcode space (words / decoded by both / newer ops it refuses / reserved and \
             gds bits it ignores, we refuse): {}",
            llvm.label(),
            counts.join(", ")
        );
    }
}

/// An instruction word with why it is invalid.
type Word = (String, u64);

/// Encodings both must refuse: each unused register field non-zero, `gds` set where forbidden
/// (always on a generation without the bit; on an LDS op of a target without GDS) and clear where
/// required, offset bytes on `ds_nop`, `acc` on an op with no vdst or data, and every opcode the
/// target leaves undefined; and apart from them, each register tuple one past v255 (refused by
/// LLVM 19 and us, printed by LLVM 22: see the next test; on a target that needs even tuples only
/// the odd-length ones, whose even start runs past v255), and each odd tuple (and GWS data
/// register) on such a target (printed by LLVM, refused by us: the test after).
fn invalid_words(pair: &Pair) -> (Vec<Word>, Vec<Word>, Vec<Word>) {
    let (gen, isa) = (pair.gen, pair.isa());
    let layout = gen.ds_layout();
    let even = !isa.has(DsFeatures::UNALIGNED);
    let (mut out, mut tuples, mut odd) = (Vec::new(), Vec::new(), Vec::new());
    for op in both(pair).known_ops() {
        let row = op.info();
        let good = legalize_in(isa, op, [1, 1, 1, 1], 0, false);
        let word = good.encode(isa).expect("legal");
        let used = |shift: u32| {
            Field::ALL
                .into_iter()
                .any(|f| row.operands.dwords(f) > 0 && field_shift(row, f) == shift)
        };
        for field in Field::ALL {
            let shift = field_shift(row, field);
            if row.operands.dwords(field) == 0 && !used(shift) {
                out.push((
                    format!("{} with {} = 1", row.name, field.name()),
                    word | 1 << shift,
                ));
            }
        }
        for field in Field::ALL {
            let dwords = row.operands.dwords(field);
            let gws_data = row.family == Family::Gws && field == Field::Data0 && dwords == 1;
            // (A field that may start odd on such a target, gfx1250's `ds_load_tr6_b96` VDST,
            // takes any start.)
            let even = even && !row.any_start(field);
            // (On gfx1250, whose 1024 VGPRs a tuple may run into, none runs past the last: its
            // tuples past v255 are vectors, `vectors_gfx1250.txt`.)
            let past_last = gen.spec().vgprs <= 256;
            if past_last && dwords > 1 && (!even || dwords % 2 == 1) {
                let mut inst = good;
                let last = (256 - u16::from(dwords)) as u8;
                inst.set_reg(field, if even { last & !1 } else { last });
                let word = inst.encode(isa).expect("last legal tuple");
                let step = if even { 2 } else { 1 };
                tuples.push((
                    format!("{} with {} one past v255", row.name, field.name()),
                    word + (step << field_shift(row, field)),
                ));
            }
            if even && (dwords > 1 || gws_data) && !row.any_start(field) {
                odd.push((
                    format!(
                        "{} with {} at v{}",
                        row.name,
                        field.name(),
                        good.reg(field) + 1
                    ),
                    word + (1 << field_shift(row, field)),
                ));
            }
        }
        match row.gds_on(isa) {
            // (A target without GDS ignores the bit on an op whose gds is optional elsewhere:
            // `ignored_bits`.)
            Gds::Forbidden if row.gds_in(gen) == Gds::Allowed => {}
            Gds::Forbidden => {
                out.push((format!("{} with gds", row.name), word | 1 << layout.gds_bit))
            }
            Gds::Required => out.push((
                format!("{} without gds", row.name),
                word & !(1 << layout.gds_bit),
            )),
            Gds::Allowed => {}
        }
        if let Some(bit) = layout.acc_bit {
            // acc (or, without the feature, the reserved bit 25) on an op with no vdst or data.
            if !row.acc_capable() {
                out.push((format!("{} with bit {bit}", row.name), word | 1 << bit));
            }
        }
        if row.offset == OffsetForm::NoOffset {
            out.push((format!("{} with offset 1", row.name), word | 1));
            out.push((format!("{} with offset 0x100", row.name), word | 0x100));
        }
    }
    for opcode in 0..=255u8 {
        let op = DsOp::from_opcode(gen, opcode).filter(|op| op.info().on(isa));
        if op.is_none() {
            for gds in [0, 1 << layout.gds_bit] {
                let word = 0b110110u64 << 26 | u64::from(opcode) << layout.op_shift | gds;
                out.push((format!("undefined opcode {opcode:#04x}"), word));
            }
        }
    }
    (out, tuples, odd)
}

#[test]
fn invalid_encodings_are_rejected_by_both() {
    for pair in pairs() {
        let (mut words, tuples, _) = invalid_words(&pair);
        if pair.llvm.major < 22 {
            words.extend(tuples);
        }
        both(&pair).reject_words(&words);
    }
}

/// A documented difference of LLVM 22's disassembler: a word whose register tuple runs one past
/// v255 (e.g. VDST = 255 for a 2-dword load) prints as `v[255:256]`, where LLVM 19 calls it
/// invalid; we refuse it (no assembler writes it: LLVM 22's own assembler refuses the text with
/// "register index is out of range").
#[test]
fn tuples_past_v255_are_printed_by_llvm_22_and_refused_by_llvm_19_and_us() {
    for pair in pairs() {
        let (_, tuples, _) = invalid_words(&pair);
        if tuples.is_empty() {
            println!(
                "{}: no tuple runs past the last VGPR ({} of them)",
                pair.label(),
                pair.gen.spec().vgprs
            );
            continue;
        }
        let words: Vec<[u8; 8]> = tuples.iter().map(|(_, w)| w.to_le_bytes()).collect();
        let theirs = mc_disassemble_for(&pair.llvm.mc(), pair.cpu.name, &words);
        let printed: Vec<String> = theirs.iter().flatten().cloned().collect();
        for (why, word) in &tuples {
            assert!(
                matches!(
                    DsInst::decode(pair.isa(), *word).map_err(|e| e.inst()),
                    Err(Some(InstError::RegisterRange { .. }))
                ),
                "{why}: we refuse it"
            );
        }
        if pair.llvm.major >= 22 {
            assert_eq!(
                printed.len(),
                tuples.len(),
                "{}: prints every one",
                pair.label()
            );
            assert!(printed.iter().all(|t| t.contains(":256]")), "{printed:?}");
            // Its assembler refuses what its disassembler printed.
            let back = mc_assemble_for(&pair.llvm.mc(), pair.cpu.name, &printed);
            assert!(back.iter().all(Result::is_err), "{}", pair.label());
        } else {
            assert!(printed.is_empty(), "{}: {printed:?}", pair.label());
        }
        println!(
            "{}: {} words with a tuple one past v255: it prints {}, we refuse all (e.g. {})",
            pair.label(),
            tuples.len(),
            printed.len(),
            printed
                .first()
                .map_or("none".to_string(), |t| format!("`{t}`"))
        );
    }
}

/// On a target that needs even register tuples (and even GWS data registers), a word with an odd
/// one is printed by both disassemblers (LLVM 22 adds "Invalid register" to a tuple, LLVM 19
/// prints it plainly), though both assemblers refuse the text ("vgpr tuples must be 64 bit
/// aligned", "vgpr must be even aligned"); we refuse the word.
#[test]
fn odd_tuples_are_printed_by_llvm_but_refused_by_its_assembler_and_us() {
    for pair in pairs()
        .into_iter()
        .filter(|p| !p.isa().has(DsFeatures::UNALIGNED))
    {
        let (_, _, odd) = invalid_words(&pair);
        let words: Vec<[u8; 8]> = odd.iter().map(|(_, w)| w.to_le_bytes()).collect();
        let theirs = mc_disassemble_for(&pair.llvm.mc(), pair.cpu.name, &words);
        let mut texts = Vec::new();
        for ((why, word), theirs) in odd.iter().zip(&theirs) {
            assert!(
                matches!(
                    DsInst::decode(pair.isa(), *word).map_err(|e| e.inst()),
                    Err(Some(InstError::Misaligned { .. }))
                ),
                "{why}: we refuse it"
            );
            let text = theirs
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {why}: llvm-mc prints it", pair.label()));
            let plain = match text.split_once("/*") {
                Some((head, rest)) => {
                    assert!(pair.llvm.major >= 22 && rest.contains("Invalid register"));
                    head.to_string() + rest.split_once("*/").map_or("", |r| r.1)
                }
                None => text.clone(),
            };
            texts.push(plain);
        }
        let back = mc_assemble_for(&pair.llvm.mc(), pair.cpu.name, &texts);
        let mut read = Vec::new();
        for ((text, back), (why, _)) in texts.iter().zip(&back).zip(&odd) {
            // LLVM 22 gives CDNA 4's 3-dword transpose load no alignment rule: its assembler
            // reads an odd tuple there (documented; we keep the target's rule).
            if back.is_ok() && why.starts_with(DsOp::ReadB96TrB6.name()) {
                read.push(text.clone());
                continue;
            }
            assert!(
                back.is_err(),
                "{}: its assembler reads `{text}`",
                pair.label()
            );
        }
        if !read.is_empty() {
            println!(
                "{}: its assembler reads the odd tuples of {} (documented): {}",
                pair.label(),
                DsOp::ReadB96TrB6,
                read.join("; ")
            );
        }
        println!(
            "{}: {} words with an odd tuple or GWS register: it prints all, its assembler and we \
             refuse all (e.g. `{}`)",
            pair.label(),
            odd.len(),
            texts.first().map_or("", String::as_str)
        );
    }
}

/// The bits LLVM's disassembler ignores on the pair's target (it prints the word as if the bit
/// were clear) and we refuse, since no assembler sets them, with the ops each applies to: the
/// reserved bit 16 (gfx10-gfx12); gfx9's bit 25 on a target without `acc` (on an op with vdst or
/// data: on the others LLVM refuses it too); and the gds bit on a target without GDS, on an op
/// whose gds is optional where there is GDS (LLVM's assembler refuses `gds` there).
fn ignored_bits(pair: &Pair) -> Vec<(u32, Vec<DsOp>, DecodeError)> {
    let (gen, isa) = (pair.gen, pair.isa());
    let layout = gen.ds_layout();
    let known = both(pair).known_ops();
    let mut out = Vec::new();
    match layout.acc_bit {
        Some(_) if isa.has(DsFeatures::ACC) => {}
        Some(bit) => out.push((
            bit,
            known
                .iter()
                .copied()
                .filter(|op| op.info().acc_capable())
                .collect(),
            DecodeError::ReservedBit(bit),
        )),
        None => out.push((
            layout.reserved_bit,
            known.clone(),
            DecodeError::ReservedBit(layout.reserved_bit),
        )),
    }
    if gen.has_gds() && !isa.has(DsFeatures::GDS) {
        let ops: Vec<DsOp> = known
            .iter()
            .copied()
            .filter(|op| op.info().gds_in(gen) == Gds::Allowed)
            .collect();
        let first = ops[0];
        out.push((
            layout.gds_bit,
            ops,
            DecodeError::Inst(InstError::NoGds { op: first, isa }),
        ));
    }
    out
}

/// The deliberate divergences of the decoder ([`ignored_bits`]): LLVM prints the word as if the
/// bit were clear; we reject it.
#[test]
fn bits_llvm_ignores_are_rejected_here() {
    for pair in pairs() {
        for (bit, ops, error) in ignored_bits(&pair) {
            let insts: Vec<DsInst> = ops
                .iter()
                .map(|&op| legalize_in(pair.isa(), op, [5, 1, 2, 3], 0x10, true))
                .collect();
            let words: Vec<[u8; 8]> = insts
                .iter()
                .map(|i| (i.encode(pair.isa()).expect("legal") | 1 << bit).to_le_bytes())
                .collect();
            let theirs = mc_disassemble_for(&pair.llvm.mc(), pair.cpu.name, &words);
            for ((inst, word), theirs) in insts.iter().zip(&words).zip(&theirs) {
                let text = inst.text(pair.gen).to_string();
                // LLVM 22 reads gfx9's bit 25 as acc even without the feature: it prints the
                // AccVGPRs (marked "Invalid register" but for the GWS ops) or refuses the word.
                let acc_text = DsInst { acc: true, ..*inst }.text(pair.gen).to_string();
                let marked = pair.llvm.major >= 22
                    && pair.gen.ds_layout().acc_bit == Some(bit)
                    && theirs
                        .as_deref()
                        .is_none_or(|t| t.contains("Invalid register") || t == acc_text);
                assert!(
                    marked || theirs.as_deref() == Some(text.as_str()),
                    "{}: llvm-mc ignores bit {bit}: {theirs:?}, ours `{text}`",
                    pair.label()
                );
                let ours = DsInst::from_bytes(pair.isa(), *word);
                let same = match (&ours, &error) {
                    (
                        Err(DecodeError::Inst(InstError::NoGds { .. })),
                        DecodeError::Inst(InstError::NoGds { .. }),
                    ) => true,
                    (Err(e), want) => e == want,
                    _ => false,
                };
                assert!(same, "{}: {}: {ours:?}", pair.label(), inst.op);
            }
            println!(
                "{}: bit {bit}: llvm-mc ignores it on {n}/{n} words, we reject them (documented)",
                pair.label(),
                n = words.len()
            );
        }
    }
}

/// The oracle catches a wrong byte: one row's encoding with one byte changed (its opcode field)
/// makes the same comparison the assembler test runs report a disagreement, under every release;
/// so does the disassembly of the changed word.
#[test]
fn a_planted_wrong_byte_fails_under_each_llvm() {
    for pair in pairs() {
        let b = both(&pair);
        let cases = b.cases();
        let victim = cases
            .iter()
            .position(|i| i.op == DsOp::AddRtnU32)
            .expect("ds_add_rtn_u32 in every generation");
        let texts: Vec<String> = cases.iter().map(|i| b.text(i)).collect();
        let shift = pair.gen.ds_layout().op_shift;
        let flip = ((shift / 8) as usize, 1u8 << (shift % 8));
        let bad = b.disagreements(&texts, false, |i, text| {
            let ours = b.ours(text, Some(&cases[i]))?;
            if i != victim {
                return Ok(ours);
            }
            // Flip the lowest opcode bit (the word's bit 18; gfx9: 17).
            let mut bytes = cases[i].to_bytes(pair.isa()).map_err(|e| e.to_string())?;
            bytes[flip.0] ^= flip.1;
            let planted = format!(
                "\t{:<39} ; encoding: [{}]",
                b.text(&cases[i]),
                bytes_line(&bytes)
            );
            assert_ne!(planted, ours, "the byte was changed");
            Ok(planted)
        });
        assert_eq!(
            bad.len(),
            1,
            "{}: exactly the planted row fails: {bad:?}",
            pair.label()
        );
        assert!(bad[0].contains(&texts[victim]), "{}", bad[0]);
        // The changed word disassembles to another op in LLVM, not to the row's text.
        let mut bytes = cases[victim].to_bytes(pair.isa()).expect("legal");
        bytes[flip.0] ^= flip.1;
        let theirs = mc_disassemble_for(&pair.llvm.mc(), pair.cpu.name, &[bytes]);
        assert_ne!(theirs[0].as_deref(), Some(texts[victim].as_str()));
        println!(
            "{}: a wrong byte planted in `{}` is caught: {}",
            pair.label(),
            texts[victim],
            bad[0].lines().next().unwrap_or("")
        );
    }
}

/// Every generation's vector file: our side always (decode to the text, parse back to the
/// bytes, every op covered), then each release on the lines of ops it knows, both directions.
#[test]
fn every_vector_agrees_with_llvm_mc_and_with_us() {
    for d in DATA {
        let vectors = vectors_in(d.vectors);
        let isa = Isa::common(d.gen);
        let mut ops = HashSet::new();
        for v in &vectors {
            let ours = DsInst::from_bytes(isa, v.bytes);
            match (&v.text, &ours) {
                (Ok(text), Ok(inst)) => {
                    let printed = inst.text(d.gen).to_string();
                    assert_eq!(&printed, text, "{}:{}", d.vectors, v.line);
                    assert_eq!(parse(isa, text), Ok(*inst), "{}:{}", d.vectors, v.line);
                    ops.insert(inst.op);
                }
                (Err(want), Err(e)) => assert!(
                    e.to_string().contains(want.as_str()),
                    "{}:{}: `{e}` lacks `{want}`",
                    d.vectors,
                    v.line
                ),
                _ => panic!("{}:{}: {ours:?}, want {:?}", d.vectors, v.line, v.text),
            }
        }
        assert_eq!(
            ops.len(),
            DsOp::all_on(isa).count(),
            "{}: the vectors cover every op every target of {} has",
            d.vectors,
            d.gen
        );
    }
    for pair in pairs() {
        let d = data(pair.gen);
        let major = pair.llvm.major;
        let known: Vec<_> = vectors_in(d.vectors)
            .into_iter()
            .filter(|v| {
                DsInst::from_bytes(pair.isa(), v.bytes)
                    .map_or(true, |i| i.info().oracle.known_to(major))
            })
            .collect();
        let valid: Vec<_> = known.iter().filter(|v| v.text.is_ok()).collect();
        let texts: Vec<String> = valid
            .iter()
            .map(|v| v.text.clone().expect("valid"))
            .collect();
        let (mc, cpu) = (pair.llvm.mc(), pair.cpu.name);
        let assembled = mc_assemble_for(&mc, cpu, &texts);
        let words: Vec<[u8; 8]> = known.iter().map(|v| v.bytes).collect();
        let disassembled = mc_disassemble_for(&mc, cpu, &words);
        let mut bad = Vec::new();
        for (v, theirs) in valid.iter().zip(&assembled) {
            let text = printed_by(major, v.text.as_ref().expect("valid"));
            let want = format!("\t{text:<39} ; encoding: [{}]", bytes_line(&v.bytes));
            if theirs.as_ref() != Ok(&want) {
                bad.push(format!(
                    "{}:{} asm: llvm-mc {theirs:?}, want {want:?}",
                    d.vectors, v.line
                ));
            }
        }
        for (v, theirs) in known.iter().zip(&disassembled) {
            let ok = match &v.text {
                Ok(text) => theirs.as_deref() == Some(printed_by(major, text).as_str()),
                // The documented divergence: llvm-mc accepts the reserved bit; other invalid
                // vectors it must reject.
                Err(e) if e.contains("reserved bit 16") => theirs.is_some(),
                // The documented LLVM 22 difference: it prints a tuple past v255.
                Err(e) if e.contains("runs past v255") && major >= 22 => {
                    theirs.as_deref().is_some_and(|t| t.contains(":256]"))
                }
                // The documented difference on targets that need even tuples: LLVM 22 prints an
                // odd one marked "Invalid register" (`odd_tuples_are_printed_by_llvm_...`).
                Err(e) if e.contains("needs register tuples") && major >= 22 => theirs
                    .as_deref()
                    .is_some_and(|t| t.contains("Invalid register")),
                // A word of another format: llvm-mc may decode it as that format's instruction.
                Err(e) if e.contains("not a DS instruction") => true,
                Err(_) => theirs.is_none(),
            };
            if !ok {
                bad.push(format!(
                    "{}:{} disasm: llvm-mc {theirs:?}, want {:?}",
                    d.vectors, v.line, v.text
                ));
            }
        }
        let total = valid.len() + known.len();
        println!(
            "{}: {}: {} lines ({} valid)",
            pair.label(),
            d.vectors,
            known.len(),
            valid.len()
        );
        report(
            &format!("{}: vectors (both directions)", pair.label()),
            total - bad.len(),
            total,
            &bad,
        );
    }
    // gfx12 has no gds bit: a gfx11 gds load is refused.
    assert!(matches!(
        DsInst::from_bytes(Generation::Gfx12, [0, 0, 0x36, 0xd8, 1, 2, 0, 0]),
        Err(DecodeError::Inst(InstError::NoGdsBit { .. }))
    ));
}
