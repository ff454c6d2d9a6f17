//! What a target's generation decides for an op (`ds-harness doc OP --target T [--wave 64]`): the
//! generation rules that concern it, each with the `Generation` method that answers it, the
//! choice, its sources ([`ds_isa::target::Generation::rule`]) and what the other
//! generations choose; and the wave64 card (the wave64 questions of ASSUMPTIONS.md that apply on
//! the target's generation, and the model's wave64 examples by its rules).

use super::{card, confirmations, example, wrap};
use crate::record::Recording;
use ds_isa::ds::{DsOp, Family, OpInfo, Rmw};
use ds_isa::gen::Rule;
use ds_isa::target::Target;
use ds_reference::model::{questions, snapshot};
use ds_reference::wave::WaveSize;
use std::fmt::Write as _;

/// The generation rules that concern `info` in waves of `wave`: the permute span (wave64 only: a
/// wave32 is one half), the swizzle group (wave64 only), the compare-store operand order.
pub fn rules_for(info: &OpInfo, wave: WaveSize) -> Vec<Rule> {
    let wide = !wave.is_wave32();
    match info.family {
        Family::Permute | Family::Bpermute | Family::BpermuteFi if wide => vec![Rule::PermuteSpan],
        Family::Swizzle if wide => vec![Rule::SwizzleGroup],
        Family::Rmw(Rmw::CmpStore) => vec![Rule::CmpstData0],
        _ => vec![],
    }
}

/// Appends the "Rules of T" section of `op` in `wave` (nothing when no generation rule concerns
/// it): which rule applies on `target` and why, and which generations choose otherwise.
pub(super) fn section(s: &mut String, op: DsOp, target: &Target, wave: WaveSize) {
    let rules = rules_for(op.info(), wave);
    if rules.is_empty() {
        return;
    }
    let gen = target.generation;
    let _ = writeln!(
        s,
        "\nRules of {target} ({gen}) in {wave} (asked of the generation: its module, isa/src/gen/{gen}.rs):"
    );
    for rule in rules {
        let text = gen.rule(rule);
        let _ = writeln!(s, "  {}:", text.method);
        wrap(s, "      applies: ", text.choice);
        wrap(s, "      why: ", text.why);
        let others: Vec<String> = gen
            .others()
            .map(|g| {
                let t = g.rule(rule);
                if t.choice == text.choice {
                    format!("{g}: the same")
                } else {
                    format!("{g}: {}", t.choice)
                }
            })
            .collect();
        if !others.is_empty() {
            wrap(s, "      elsewhere: ", &others.join("; "));
        }
    }
}

/// What differs for `op` on `target` in `wave` (`ds-harness doc OP --target T --wave 64`): in
/// wave32, the card itself; in wave64, the generation rules that decide the op's wave64 result
/// (which applies on `target` and why), the wave-size-dependent choices of ASSUMPTIONS.md that
/// apply on its generation (with the cases that settle them), and the worked examples of the
/// wave64 snapshot corpus's named cases (those straddling the halves) by `target`'s rules,
/// marked against the wave64 recordings given.
pub fn card_in(op: DsOp, target: &Target, recordings: &[Recording], wave: WaveSize) -> String {
    if wave.is_wave32() {
        return card(op, target, recordings);
    }
    let info = op.info();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} in {wave} on {target}: {} lanes, a 64-bit EXEC (the kernel: wave32 bit off in the \
         descriptor, `.wavefront_size: 64`, workgroups of {} work-items)",
        info.name,
        wave.lanes(),
        wave.lanes()
    );
    section(&mut s, op, target, wave);
    let qs: Vec<_> = questions::for_op(op, target.generation)
        .into_iter()
        .filter(|q| q.id.starts_with('W'))
        .collect();
    let _ = writeln!(
        s,
        "\nWhat differs from wave32 on {} (reference/ASSUMPTIONS.md, the wave64 questions):",
        target.generation
    );
    if qs.is_empty() {
        let _ = writeln!(
            s,
            "  nothing wave-size-dependent: each lane of 0..{} runs as a wave32 lane does",
            wave.lanes() - 1
        );
    }
    for q in qs {
        let _ = writeln!(s, "  {}. {}", q.id, q.title);
        wrap(&mut s, "      choice: ", &q.choice);
        if let Some(settles) = &q.settles {
            wrap(&mut s, "      settled by: ", settles);
        }
    }
    match snapshot::model_entries_in(target, op, wave) {
        Err(u) => {
            let _ = writeln!(s, "\nExamples: none ({u})");
        }
        Ok(entries) => {
            let _ = writeln!(
                s,
                "\nExamples in {wave} (the named cases of the {wave} snapshot corpus, computed by \
                 the reference model by {target}'s rules; hex):"
            );
            for e in entries.iter().filter(|e| e.name.starts_with("w64_")) {
                example(&mut s, e, target);
                let marks = confirmations(e, recordings);
                if !marks.iter().any(|m| !m.contains("not hardware")) {
                    let _ = writeln!(s, "    hardware: no {wave} recording of this case yet");
                }
                for m in marks {
                    let _ = writeln!(s, "    {m}");
                }
            }
        }
    }
    s
}
