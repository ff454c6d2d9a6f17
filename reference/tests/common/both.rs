//! The checks every (LLVM release, generation) oracle pair runs, written once: each feeds a batch
//! to that release's llvm-mc (for the pair's processor) and to our side and reports every
//! disagreement, prefixed with the pair ("LLVM 22 gfx12 (gfx1200): ...").

use super::llvm::{line_printed_by, printed_by, Pair};
use super::{
    bytes_line, legalize_acc, mc_assemble_for, mc_disassemble_for, report, same_swizzle, spell_in,
    spellings_in, CANONICAL,
};
use ds_isa::ds::syntax::{llvm_mc_line, parse};
use ds_isa::ds::{DsFeatures, DsInst, DsOp, Generation, Isa, OffsetForm};
use std::path::PathBuf;

/// One pair's oracle: llvm-mc of `pair.llvm` run for `pair.cpu`, our side for `pair.gen`.
pub struct Both<'a> {
    pub pair: &'a Pair,
}

/// Our answer for a line of text: llvm-mc's `-show-encoding` line, or why we refuse it.
pub type Ours = Result<String, String>;

impl Both<'_> {
    fn mc(&self) -> PathBuf {
        self.pair.llvm.mc()
    }

    fn gen(&self) -> Generation {
        self.pair.gen
    }

    fn isa(&self) -> Isa {
        self.pair.isa()
    }

    fn cpu(&self) -> &str {
        self.pair.cpu.name
    }

    fn label(&self, what: &str) -> String {
        format!("{}: {what}", self.pair.label())
    }

    /// The ops of the pair's target this LLVM knows (the DS table's oracle column), in table
    /// order.
    pub fn known_ops(&self) -> Vec<DsOp> {
        DsOp::all_on(self.isa())
            .filter(|op| op.info().oracle.known_to(self.pair.llvm.major))
            .collect()
    }

    /// The ops of the pair's target newer than this LLVM (it must refuse them).
    pub fn newer_ops(&self) -> Vec<DsOp> {
        DsOp::all_on(self.isa())
            .filter(|op| !op.info().oracle.known_to(self.pair.llvm.major))
            .collect()
    }

    /// Every known op x register pattern x offset x gds (where the target has the bit and the
    /// op allows the choice) x acc (where the target has it and the op has vdst or data),
    /// deduplicated.
    pub fn cases(&self) -> Vec<DsInst> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let accs: &[bool] = if self.isa().has(DsFeatures::ACC) {
            &[false, true]
        } else {
            &[false]
        };
        for op in self.known_ops() {
            for regs in super::REG_PATTERNS {
                for &offset in super::offsets(op.info().offset) {
                    for gds in [false, true] {
                        for &acc in accs {
                            let inst = legalize_acc(self.isa(), op, regs, offset, gds, acc);
                            if seen.insert(inst) {
                                out.push(inst);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The text of `inst` as the pair's generation prints it.
    pub fn text(&self, inst: &DsInst) -> String {
        inst.text(self.gen()).to_string()
    }

    /// Our answer for `text`: parsed as `expect` (or a swizzle with the same lane map), printed as
    /// llvm-mc's line.
    pub fn ours(&self, text: &str, expect: Option<&DsInst>) -> Ours {
        parse(self.isa(), text)
            .map_err(|e| e.to_string())
            .and_then(|parsed| match expect {
                Some(inst) if parsed != *inst && !same_swizzle(&parsed, inst) => {
                    Err(format!("parsed as {parsed:?}"))
                }
                _ => llvm_mc_line(self.isa(), &parsed).map_err(|e| e.to_string()),
            })
    }

    /// Lines assembled by llvm-mc and by `ours`: every line both accept with the same output (ours
    /// as this LLVM prints it: [`line_printed_by`]), or (`refuse`) both refuse. Returns the
    /// disagreements (empty: all agree).
    pub fn disagreements(
        &self,
        lines: &[String],
        refuse: bool,
        mut ours: impl FnMut(usize, &str) -> Ours,
    ) -> Vec<String> {
        if lines.is_empty() {
            return Vec::new();
        }
        let theirs = mc_assemble_for(&self.mc(), self.cpu(), lines);
        let mut bad = Vec::new();
        for (i, (text, theirs)) in lines.iter().zip(&theirs).enumerate() {
            let ours = ours(i, text);
            let major = self.pair.llvm.major;
            let agree = if refuse {
                theirs.is_err() && ours.is_err()
            } else {
                matches!((&ours, theirs), (Ok(o), Ok(t)) if line_printed_by(major, o) == *t)
            };
            if !agree {
                bad.push(format!(
                    "`{text}`\n    llvm-mc: {theirs:?}\n    ours:    {ours:?}"
                ));
            }
        }
        bad
    }

    /// Every instruction's text (canonical and each looser spelling, aliases included) assembled
    /// by both: our parse reads back the instruction and our llvm-mc line is llvm-mc's, byte for
    /// byte. Returns the number of lines fed.
    pub fn assemble(&self, cases: &[DsInst]) -> usize {
        let mut lines: Vec<(String, DsInst)> = Vec::new();
        for inst in cases {
            lines.push((self.text(inst), *inst));
            if inst.info().offset != OffsetForm::Swizzle {
                // (Swizzle offsets are spelled as numbers; Display prints LLVM's macros.)
                assert_eq!(
                    spell_in(self.gen(), inst, CANONICAL),
                    self.text(inst),
                    "spell(CANONICAL) is the printed text"
                );
            }
            for text in spellings_in(self.gen(), inst) {
                lines.push((text, *inst));
            }
        }
        let texts: Vec<String> = lines.iter().map(|(t, _)| t.clone()).collect();
        let bad = self.disagreements(&texts, false, |i, text| self.ours(text, Some(&lines[i].1)));
        report(
            &self.label("assembler (text -> bytes)"),
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
            .map(|i| i.to_bytes(self.isa()).expect("legal"))
            .collect();
        let theirs = mc_disassemble_for(&self.mc(), self.cpu(), &words);
        let mut bad = Vec::new();
        for ((inst, word), theirs) in cases.iter().zip(&words).zip(&theirs) {
            let ours = DsInst::from_bytes(self.isa(), *word).map(|i| self.text(&i));
            let printed = ours
                .as_ref()
                .ok()
                .map(|t| printed_by(self.pair.llvm.major, t));
            if printed.as_ref() != theirs.as_ref() || ours.as_ref().ok() != Some(&self.text(inst)) {
                bad.push(format!(
                    "{}\n    llvm-mc: {theirs:?}\n    ours:    {ours:?}",
                    bytes_line(word)
                ));
            }
        }
        report(
            &self.label("disassembler (bytes -> text)"),
            words.len() - bad.len(),
            words.len(),
            &bad,
        );
    }

    /// Lines both must read the same way (each LLVM accepts them).
    pub fn accept_lines(&self, what: &str, lines: &[&str]) {
        let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
        let bad = self.disagreements(&lines, false, |_, text| self.ours(text, None));
        report(
            &self.label(what),
            lines.len() - bad.len(),
            lines.len(),
            &bad,
        );
    }

    /// Lines both must refuse.
    pub fn reject_lines(&self, lines: &[&str]) {
        let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
        let bad = self.disagreements(&lines, true, |_, text| self.ours(text, None));
        report(
            &self.label("bad lines rejected by both"),
            lines.len() - bad.len(),
            lines.len(),
            &bad,
        );
    }

    /// Words both must refuse, each with why it is invalid.
    pub fn reject_words(&self, cases: &[(String, u64)]) {
        let words: Vec<[u8; 8]> = cases.iter().map(|(_, w)| w.to_le_bytes()).collect();
        let theirs = mc_disassemble_for(&self.mc(), self.cpu(), &words);
        let mut bad = Vec::new();
        for ((why, word), theirs) in cases.iter().zip(&theirs) {
            let ours = DsInst::decode(self.isa(), *word);
            if theirs.is_some() || ours.is_ok() {
                bad.push(format!(
                    "{why} {}: llvm-mc {theirs:?}, ours {ours:?}",
                    bytes_line(&word.to_le_bytes())
                ));
            }
        }
        report(
            &self.label("invalid encodings rejected by both"),
            cases.len() - bad.len(),
            cases.len(),
            &bad,
        );
    }
}
