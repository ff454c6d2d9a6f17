//! The DS syntax against LLVM's assembler and disassembler, every generation against every
//! installed oracle release (`llvm-mc-19`, `llvm-mc-22`; `common::llvm::GENERATIONS`): all 65536
//! swizzle offsets both ways (with LLVM 22's ROTATE/FFT macros from 0xC000, the one printing
//! difference between the releases, `common::llvm::printed_by`), the looser spellings each release
//! reads, the lines each refuses, and every alias of each generation. One body per check; the
//! per-generation lines are the rows of `common::data::DATA`. The encodings themselves are
//! `llvm_oracle.rs`'s.

use crate::common;

use common::both::Both;
use common::data::{data, BAD_LINES, LENIENT_LINES};
use common::llvm::{pairs, printed_by, Pair};
use common::{
    legalize_in, mc_assemble_for, mc_disassemble_for, report, respell, spell_in, CANONICAL,
};
use ds_isa::ds::syntax::{llvm_mc_line, parse};
use ds_isa::ds::{generation_aliases, DsInst, DsOp};
use rayon::prelude::*;
use std::collections::HashSet;

fn both(pair: &Pair) -> Both<'_> {
    Both { pair }
}

/// All 65536 swizzle offsets, both ways. LLVM 19 prints exactly our text; LLVM 22 prints the
/// 16384 offsets from 0xC000 as `swizzle(ROTATE,..)` / `swizzle(FFT,..)` (the documented
/// difference), and reads those macros to the bytes our parser reads them to.
#[test]
fn every_swizzle_offset_prints_and_reads_back_as_each_llvm_does() {
    // The pairs side by side: 131,072 lines through llvm-mc per pair, the suite's longest test.
    pairs().par_iter().for_each(|pair| {
        let major = pair.llvm.major;
        let (mc, cpu) = (pair.llvm.mc(), pair.cpu.name);
        let base = DsInst {
            vdst: 1,
            addr: 2,
            ..DsInst::new(DsOp::SwizzleB32)
        };
        let insts: Vec<DsInst> = (0..=u16::MAX).map(|o| base.with_offset16(o)).collect();
        let words: Vec<[u8; 8]> = insts
            .iter()
            .map(|i| i.to_bytes(pair.isa()).expect("legal"))
            .collect();
        let theirs = mc_disassemble_for(&mc, cpu, &words);
        let mut bad = Vec::new();
        let mut macros = Vec::new();
        for (inst, theirs) in insts.iter().zip(&theirs) {
            let ours = inst.text(pair.gen).to_string();
            let printed = printed_by(major, &ours);
            if printed != ours {
                macros.push((inst.offset16(), printed.clone()));
            }
            if theirs.as_deref() != Some(printed.as_str()) {
                bad.push(format!(
                    "offset {:#06x}: llvm-mc {theirs:?}, ours {ours} (printed as {printed})",
                    inst.offset16()
                ));
            }
        }
        report(
            &format!("{}: swizzle offsets (bytes -> text)", pair.label()),
            insts.len() - bad.len(),
            insts.len(),
            &bad,
        );
        let expected = if major >= 22 { 0x4000 } else { 0 };
        assert_eq!(macros.len(), expected, "{}", pair.label());
        assert!(macros.iter().all(|(o, _)| *o >= 0xc000));

        // Our printed text, assembled by both (LLVM 22 prints the macro back; the bytes agree).
        let b = both(pair);
        let texts: Vec<String> = insts.iter().map(|i| i.text(pair.gen).to_string()).collect();
        let renormalised = texts
            .iter()
            .zip(&insts)
            .filter(|(t, i)| parse(pair.isa(), t).is_ok_and(|b| b.offset16() != i.offset16()))
            .count();
        let bad = b.disagreements(&texts, false, |i, text| b.ours(text, Some(&insts[i])));
        println!(
            "{}: swizzle: {} of the 32768 bit-mask offsets print as text that reads back (in \
             LLVM too) as another offset with the same lane map",
            pair.label(),
            renormalised
        );
        report(
            &format!("{}: swizzle text (text -> bytes)", pair.label()),
            texts.len() - bad.len(),
            texts.len(),
            &bad,
        );

        // LLVM 22's own macros, read by both: the same bytes (ours reads them, prints numbers).
        if !macros.is_empty() {
            let mut seen = HashSet::new();
            let texts: Vec<String> = macros
                .iter()
                .map(|(_, t)| t.clone())
                .filter(|t| seen.insert(t.clone()))
                .collect();
            let theirs = mc_assemble_for(&mc, cpu, &texts);
            let mut bad = Vec::new();
            let mut lossy = 0;
            for (text, theirs) in texts.iter().zip(&theirs) {
                let ours = parse(pair.isa(), text).map_err(|e| e.to_string());
                let our_enc = ours.as_ref().ok().and_then(|i| {
                    let line = llvm_mc_line(pair.isa(), i).ok()?;
                    Some(line.split_once("; encoding: ")?.1.to_string())
                });
                let their_enc = theirs
                    .as_ref()
                    .ok()
                    .and_then(|l| Some(l.split_once("; encoding: ")?.1.to_string()));
                if our_enc.is_none() || our_enc != their_enc {
                    bad.push(format!("`{text}`: llvm-mc {theirs:?}, ours {ours:?}"));
                }
            }
            for (o, text) in &macros {
                let back = parse(pair.isa(), text).map(|i| i.offset16());
                if back != Ok(*o) {
                    lossy += 1;
                }
            }
            println!(
                "{}: {} distinct ROTATE/FFT macros for 16384 offsets; {lossy} offsets print as a \
                 macro that reads back as another offset (LLVM 22 drops the bits the macro lacks; \
                 we print the number)",
                pair.label(),
                texts.len()
            );
            report(
                &format!("{}: ROTATE/FFT macros (text -> bytes)", pair.label()),
                texts.len() - bad.len(),
                texts.len(),
                &bad,
            );
        }
    });
}

/// The ROTATE/FFT macros are LLVM 22's: LLVM 19 refuses them, we read them.
#[test]
fn rotate_and_fft_macros_are_refused_by_llvm_19_and_read_by_22_and_us() {
    let lines = [
        "ds_swizzle_b32 v1, v2 offset:swizzle(FFT,3)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,1,1)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(FFT, 0x1f)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,0,31)",
    ];
    let out_of_range = [
        "ds_swizzle_b32 v1, v2 offset:swizzle(FFT,32)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,2,1)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,0,32)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,0)",
        "ds_swizzle_b32 v1, v2 offset:swizzle(rotate,0,1)",
    ];
    for pair in pairs() {
        let b = both(&pair);
        b.reject_lines(&out_of_range);
        if pair.llvm.major >= 22 {
            b.accept_lines("ROTATE/FFT macros", &lines);
        } else {
            let texts: Vec<String> = lines.iter().map(ToString::to_string).collect();
            for (line, theirs) in
                lines
                    .iter()
                    .zip(mc_assemble_for(&pair.llvm.mc(), pair.cpu.name, &texts))
            {
                assert!(theirs.is_err(), "{}: reads `{line}`", pair.label());
                assert!(parse(pair.isa(), line).is_ok(), "we read `{line}`");
            }
        }
    }
}

#[test]
fn lenient_spellings_are_read_as_llvm_mc_reads_them() {
    for pair in pairs() {
        let mut lines: Vec<String> = LENIENT_LINES.iter().map(|l| respell(pair.gen, l)).collect();
        lines.extend(data(pair.gen).lenient.iter().map(ToString::to_string));
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        both(&pair).accept_lines("lenient spellings", &refs);
    }
}

#[test]
fn bad_lines_are_rejected_by_both() {
    for pair in pairs() {
        let mut lines: Vec<String> = BAD_LINES.iter().map(|l| respell(pair.gen, l)).collect();
        lines.extend(data(pair.gen).bad.iter().map(ToString::to_string));
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        both(&pair).reject_lines(&refs);
    }
}

/// Each generation's featured lines (an op or operand form one target feature allows: src2, f64
/// add, packed adds, transpose loads, AccVGPRs, gds, odd tuples): both read them on a target with
/// the features and both refuse them on one without.
#[test]
fn featured_lines_are_read_exactly_where_the_target_has_the_features() {
    for pair in pairs() {
        let major = pair.llvm.major;
        let (mut read, mut refused) = (Vec::new(), Vec::new());
        for &(features, line) in data(pair.gen).featured {
            // A line of an op newer than the release: it refuses it everywhere.
            let op = DsOp::from_name(line.split(' ').next().unwrap()).unwrap();
            if pair.isa().has(features) && op.info().oracle.known_to(major) {
                read.push(line);
            } else {
                refused.push(line);
            }
        }
        let b = both(&pair);
        if !read.is_empty() {
            b.accept_lines("featured lines it has", &read);
        }
        if !refused.is_empty() {
            b.reject_lines(&refused);
        }
        println!(
            "{}: {} featured lines read, {} refused",
            pair.label(),
            read.len(),
            refused.len()
        );
    }
}

/// Every alias each release reads for each generation (every op's older name, the generation's
/// own aliases), in every operand form, read as LLVM reads it and printed as the op's mnemonic;
/// and every other generation's alias refused by both.
#[test]
fn every_alias_is_read_as_each_llvm_reads_it() {
    for pair in pairs() {
        let b = both(&pair);
        let mut lines = Vec::new();
        for op in b.known_ops() {
            for alias in op.aliases_in(pair.gen) {
                for inst in b.cases().iter().filter(|i| i.op == op) {
                    let text = spell_in(pair.gen, inst, CANONICAL);
                    lines.push(text.replacen(op.mnemonic(pair.gen), alias, 1));
                }
            }
        }
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        b.accept_lines("aliases", &refs);
        // Another generation's aliases, but those this generation lists too (gfx12's and
        // gfx1250's `ds_subrev_*`).
        let own = |a: &ds_isa::ds::GenerationAlias| {
            ds_isa::ds::aliases_of(pair.gen).any(|b| b.name == a.name && b.op == a.op)
        };
        let foreign: Vec<String> = generation_aliases()
            .filter(|a| a.gen != pair.gen && a.op.info().in_generation(pair.gen) && !own(a))
            .map(|a| {
                let inst = legalize_in(pair.isa(), a.op, [5, 1, 2, 3], 8, false);
                spell_in(pair.gen, &inst, CANONICAL).replacen(a.op.mnemonic(pair.gen), a.name, 1)
            })
            .collect();
        let refs: Vec<&str> = foreign.iter().map(String::as_str).collect();
        b.reject_lines(&refs);
        println!(
            "{}: {} alias lines read, {} other generations' aliases refused",
            pair.label(),
            lines.len(),
            foreign.len()
        );
    }
}
