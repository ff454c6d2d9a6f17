//! The checks every generation's llvm-mc oracle test runs, written once: a [`Both`] names the
//! generation and the processor llvm-mc is asked for, and each method feeds a batch to llvm-mc and
//! to our side and reports every disagreement.

use super::{
    bytes_line, mc_assemble_for, mc_disassemble_for, report, same_swizzle, spell, spellings,
    CANONICAL,
};
use ds_reference::isa::syntax::{llvm_mc_line_in, parse_in};
use ds_reference::isa::{DsInst, Generation, OffsetForm};
use std::path::PathBuf;

/// One generation's oracle: llvm-mc run for `cpu`, our side for `gen`; `label` starts each report.
pub struct Both<'a> {
    pub mc: &'a PathBuf,
    pub gen: Generation,
    pub cpu: &'a str,
    pub label: &'a str,
}

impl Both<'_> {
    /// Every instruction's text (canonical and each looser spelling) assembled by both: our parse
    /// reads back the instruction and our llvm-mc line is llvm-mc's, byte for byte. Returns the
    /// number of lines fed.
    pub fn assemble(&self, cases: &[DsInst]) -> usize {
        let mut lines: Vec<(String, DsInst)> = Vec::new();
        for inst in cases {
            lines.push((inst.to_string(), *inst));
            if inst.info().offset != OffsetForm::Swizzle {
                // (Swizzle offsets are spelled as numbers; Display prints LLVM's macros.)
                assert_eq!(
                    spell(inst, CANONICAL),
                    inst.to_string(),
                    "spell(CANONICAL) is Display"
                );
            }
            for s in spellings(inst) {
                lines.push((spell(inst, s), *inst));
            }
        }
        let texts: Vec<String> = lines.iter().map(|(t, _)| t.clone()).collect();
        let theirs = mc_assemble_for(self.mc, self.cpu, &texts);
        let mut bad = Vec::new();
        for ((text, inst), theirs) in lines.iter().zip(&theirs) {
            let ours = parse_in(self.gen, text)
                .map_err(|e| e.to_string())
                .and_then(|parsed| {
                    if parsed != *inst && !same_swizzle(&parsed, inst) {
                        return Err(format!("parsed as {parsed:?}"));
                    }
                    llvm_mc_line_in(self.gen, &parsed).map_err(|e| e.to_string())
                });
            match (&ours, theirs) {
                (Ok(o), Ok(t)) if o == t => {}
                _ => bad.push(format!(
                    "`{text}`\n    llvm-mc: {theirs:?}\n    ours:    {ours:?}"
                )),
            }
        }
        report(
            &format!("{}assembler (text -> bytes)", self.label),
            lines.len() - bad.len(),
            lines.len(),
            &bad,
        );
        lines.len()
    }

    /// Every instruction's word disassembled by both, to the same text, which is its Display.
    pub fn disassemble(&self, cases: &[DsInst]) {
        let words: Vec<[u8; 8]> = cases
            .iter()
            .map(|i| i.to_bytes_in(self.gen).expect("legal"))
            .collect();
        let theirs = mc_disassemble_for(self.mc, self.cpu, &words);
        let mut bad = Vec::new();
        for ((inst, word), theirs) in cases.iter().zip(&words).zip(&theirs) {
            let ours = DsInst::from_bytes_in(self.gen, *word).map(|i| i.to_string());
            if ours.as_ref().ok() != theirs.as_ref()
                || ours.as_ref().ok() != Some(&inst.to_string())
            {
                bad.push(format!(
                    "{}\n    llvm-mc: {theirs:?}\n    ours:    {ours:?}",
                    bytes_line(word)
                ));
            }
        }
        report(
            &format!("{}disassembler (bytes -> text)", self.label),
            words.len() - bad.len(),
            words.len(),
            &bad,
        );
    }

    /// Lines both must refuse.
    pub fn reject_lines(&self, lines: &[&str]) {
        let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
        let theirs = mc_assemble_for(self.mc, self.cpu, &lines);
        let mut bad = Vec::new();
        for (line, theirs) in lines.iter().zip(&theirs) {
            let ours = parse_in(self.gen, line);
            if theirs.is_ok() || ours.is_ok() {
                bad.push(format!(
                    "`{line}`\n    llvm-mc: {theirs:?}\n    ours:    {ours:?}"
                ));
            }
        }
        report(
            &format!("{}bad lines rejected by both", self.label),
            lines.len() - bad.len(),
            lines.len(),
            &bad,
        );
    }

    /// Words both must refuse, each with why it is invalid.
    pub fn reject_words(&self, cases: &[(String, u64)]) {
        let words: Vec<[u8; 8]> = cases.iter().map(|(_, w)| w.to_le_bytes()).collect();
        let theirs = mc_disassemble_for(self.mc, self.cpu, &words);
        let mut bad = Vec::new();
        for ((why, word), theirs) in cases.iter().zip(&theirs) {
            let ours = DsInst::decode_in(self.gen, *word);
            if theirs.is_some() || ours.is_ok() {
                bad.push(format!(
                    "{why} {}: llvm-mc {theirs:?}, ours {ours:?}",
                    bytes_line(&word.to_le_bytes())
                ));
            }
        }
        report(
            &format!("{}invalid encodings rejected by both", self.label),
            cases.len() - bad.len(),
            cases.len(),
            &bad,
        );
    }
}
