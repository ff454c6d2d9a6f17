//! The snapshot corpus as a recording on one target runs it: only instructions the target
//! accepts (LLVM AMDGPUUsage and `AMDGPU.td`, `FeatureRequiresAlignedVGPRs`: register tuples at
//! even registers from CDNA 2 on), and the AccVGPR twins of every case where the target has
//! AccVGPR DS operands (`FeatureGFX90AInsts`), as runs make them.

use super::{Entry, Unmodelled};
use crate::wave::{Case, Variant, WaveSize};
use ds_isa::ds::DsOp;
use ds_isa::ds_features::DsFeatures;
use ds_isa::target::Target;

/// The snapshot corpus of `op` in waves of `wave` as a recording on `target` runs it (every
/// instruction one `target` accepts): [`super::snapshot_corpus_in`], with the aliasing variants'
/// register tuples at even registers on a target whose DS features lack `unaligned-tuples`
/// (CDNA 2 and later; LLVM "vgpr tuples must be 64 bit aligned"), and on a target with AccVGPR
/// DS operands each case once more with `acc` (named `<case>.acc`: data and vdst in AccVGPRs,
/// [`Variant::acc_settings`]), as runs make their acc twins.
pub fn snapshot_corpus_on(
    target: &Target,
    op: DsOp,
    wave: WaveSize,
) -> Vec<(String, Variant, Case)> {
    let even = !target.ds_features.contains(DsFeatures::UNALIGNED);
    let base = match wave {
        WaveSize::Wave32 => super::corpus::snapshot_corpus_with(op, even),
        WaveSize::Wave64 => super::wave64::snapshot_corpus_wave64_with(op, even),
    };
    if !Variant::acc_settings(op, target).contains(&true) {
        return base;
    }
    // A case whose registers are consistent in one file is in two: with `acc`, ADDR (a VGPR)
    // no longer overlaps DATA or VDST (AccVGPRs), so there are fewer shared registers, never more.
    let twins: Vec<_> = base
        .iter()
        .map(|(name, v, c)| {
            (
                format!("{name}.acc"),
                Variant { acc: true, ..*v },
                c.clone(),
            )
        })
        .collect();
    base.into_iter().chain(twins).collect()
}

/// The model's outcome on every case of `op`'s recording corpus on `target`
/// ([`snapshot_corpus_on`]) in waves of `wave`, by `target`'s rules.
pub fn model_entries_on(
    target: &Target,
    op: DsOp,
    wave: WaveSize,
) -> Result<Vec<Entry>, Unmodelled> {
    super::entries_of(target, op, snapshot_corpus_on(target, op, wave))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::{parse, render};
    use ds_isa::ds::runnable_ops_on;
    use ds_isa::error::InstError;
    use ds_isa::target::TARGETS;

    /// Every instruction of every target's recording corpus is one the target accepts (the
    /// corpus of the first round named odd tuples CDNA 2 and later refuse), and the acc twins
    /// are there exactly where the target has AccVGPR DS operands.
    #[test]
    fn every_targets_recording_corpus_holds_only_instructions_it_accepts() {
        for t in TARGETS {
            for op in runnable_ops_on(t) {
                let corpus = snapshot_corpus_on(t, op, WaveSize::Wave64);
                let twins = corpus.iter().filter(|(_, v, _)| v.acc).count();
                assert_eq!(
                    twins > 0,
                    Variant::acc_settings(op, t).contains(&true),
                    "{t} {op}"
                );
                for (name, v, _) in &corpus {
                    let r: Result<(), InstError> = v.inst().validate(t);
                    assert_eq!(r, Ok(()), "{t} {name}: {v:?}");
                }
            }
        }
    }

    /// A recording with acc twins round-trips, their data and vdst named as AccVGPRs (`aN`),
    /// and a `vN` for an AccVGPR operand is refused naming the file it must be.
    #[test]
    fn acc_twins_round_trip_and_name_their_registers_as_accvgprs() {
        let t = TARGETS
            .iter()
            .find(|t| t.ds_features.contains(DsFeatures::ACC))
            .unwrap();
        let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
        let entries = model_entries_on(t, op, WaveSize::Wave64).unwrap();
        let text = render(op, &entries);
        assert!(text.contains(" acc=true reg.addr=v"), "{text}");
        assert!(text.contains(" reg.vdst=a"), "{text}");
        assert_eq!(parse(&text).unwrap(), entries);
        let line = text.lines().find(|l| l.contains(" acc=true reg.")).unwrap();
        let bad = text.replacen(line, &line.replace("reg.vdst=a", "reg.vdst=v"), 1);
        let e = parse(&bad).unwrap_err().to_string();
        assert!(
            e.contains("is not a0..a255") && e.contains("AccVGPR"),
            "{e}"
        );
    }
}
