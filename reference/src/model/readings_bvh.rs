//! The named readings of the BVH stack questions (ASSUMPTIONS.md B2, B3, B6, B7, B9), as data: one
//! enum per question, each reading with its name, its kind (the model's choice, a legal
//! alternative the check accepts, or a disagreement the check reports by name) and its sources
//! with their kind. [`followed`] says which reading explains a device outcome the model did not
//! predict.
//!
//! Kept small and apart on purpose (BVH-ONLY READINGS): a general mechanism for named readings of
//! every question folds this in; until then `legal::check` asks [`followed`] for the BVH families
//! only. Sources are cited by repository, path and commit in ASSUMPTIONS.md; the short forms here
//! name them.

use super::{execute_with, Unmodelled};
use crate::isa::{Bvh, Family};
use crate::target::Target;
use crate::wave::{Case, Outcome, Variant};

/// The kind of a source (ASSUMPTIONS.md, kinds strongest first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// Checked on the part.
    Hw,
    /// An AMD ISA guide.
    Doc,
    /// Driver or compiler code that depends on the behaviour.
    Drv,
    /// AMD's rocJITsu emulator.
    Emu,
}

impl SourceKind {
    /// `HW`, `DOC`, `DRV` or `EMU`.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Hw => "HW",
            SourceKind::Doc => "DOC",
            SourceKind::Drv => "DRV",
            SourceKind::Emu => "EMU",
        }
    }
}

/// One source of a reading: its kind and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub kind: SourceKind,
    pub cite: &'static str,
}

/// What the check makes of a device that follows a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReadingKind {
    /// The model's choice.
    Model,
    /// Another reading the record allows: the legal check accepts it and names it.
    Legal,
    /// A reading the record contradicts: a mismatch, whose report names it.
    Disagreement,
}

impl ReadingKind {
    /// `model`, `legal` or `disagreement`.
    pub fn name(self) -> &'static str {
        match self {
            ReadingKind::Model => "model",
            ReadingKind::Legal => "legal",
            ReadingKind::Disagreement => "disagreement",
        }
    }
}

const GPURT: Source = Source {
    kind: SourceKind::Drv,
    cite: "GPUOpen-Drivers/gpurt src/shaders/rtip3_ds_stack_emulation.hlsl (f734985)",
};
const RADV_ADDR: Source = Source {
    kind: SourceKind::Drv,
    cite: "Mesa src/amd/vulkan/nir/radv_nir_rt_common.c, radv_build_bvh_stack_rtn_addr",
};
const RADV_TERMINAL: Source = Source {
    kind: SourceKind::Drv,
    cite: "Mesa src/amd/vulkan/bvh/bvh.h, RADV_BVH_STACK_TERMINAL_NODE",
};
const ROCJITSU: Source = Source {
    kind: SourceKind::Emu,
    cite: "ROCm/rocm-systems emulation/rocjitsu vm/amdgpu/lds_stack.cpp (6971edf)",
};
const RDNA3_GUIDE: Source = Source {
    kind: SourceKind::Doc,
    cite: "RDNA3 ISA guide, DS_BVH_STACK_RTN_B32 pseudocode",
};
const RDNA4_GUIDE: Source = Source {
    kind: SourceKind::Doc,
    cite: "RDNA4 ISA guide 16.15, DS_BVH_STACK_PUSH*_POP*_RTN_* pseudocode",
};

/// B2: how many low bits of a gfx11 stack address are the stack index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B2Index {
    /// \[17:0\]: RADV's address builder leaves 18 bits below the base.
    Radv18,
    /// \[15:0\]: rocJITsu's RDNA3 path (`ptr & 0xffff`), bits \[17:16\] kept as they were.
    Rocjitsu16,
}

/// B3: what gfx11's `ds_bvh_stack_rtn_b32` pushes, returns and pops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B3Step {
    /// rocJITsu's RDNA3 path: the first eligible child (after the last-visited node on a
    /// walk-back) is returned directly, the other valid children pushed last-first; an empty
    /// stack returns TERMINAL (0xfffffffe) and leaves the index.
    Rdna3Emulation,
    /// The RDNA3 guide's pseudocode as the model read it before: DATA1\[0..2\] pushed in order
    /// (stopping at the last-visited node), DATA1\[3\] returned when valid, else a pop
    /// (decrement, read, invalidate), the index wrapping below zero.
    GuidePseudocode,
}

/// B6: what a zero stack-size field (OFFSET0\[4:0\]) means on gfx12; no source explains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B6Size {
    /// GPURT's emulation's constant: 16 entries.
    ZeroIs16,
}

/// B7: what the gfx12 push/pop forms push and pop (with B5's address and B6's size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B7Step {
    /// GPURT's emulation: the packed address, DATA1 pushed from its last dword down with the
    /// skip and last-node rules, `pop` (TERMINAL/INVALID when empty, no invalidation, instance
    /// nodes), push4 as push8 whose upper four dwords are INVALID.
    Gpurt,
    /// As GPURT, but push4 loops over its four dwords only (rocJITsu): differs from the model
    /// only for a primitive-range update, which rocJITsu applies to the 8-dword forms alone.
    RocjitsuPush4,
    /// The RDNA4 guide's pseudocode as the model read it before: base at ADDR\[31:15\], index at
    /// \[14:0\], no ring, DATA1\[0..n-2\] pushed in order, DATA1\[n-1\] returned when valid, else
    /// pops that invalidate.
    GuidePseudocode,
}

/// B9: the two values of `ds_bvh_stack_push8_pop2_rtn_b64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum B9Pop2 {
    /// GPURT: VDST\[0\] the second (`try_pop`) value, VDST\[1\] the first pop; when `try_pop`
    /// fails the first pop moves to VDST\[0\] and VDST\[1\] is INVALID; a triangle-1 node expands
    /// into (triangle 0, triangle 1).
    Gpurt,
    /// rocJITsu (and the guide's order): VDST\[0\] the first pop, VDST\[1\] the second; the
    /// triangle-1 expansion only with OFFSET1\[0\] (the triangle-pair flag) set.
    Rocjitsu,
}

/// A question's readings as data.
pub trait Reading: Copy + PartialEq + 'static {
    /// The ASSUMPTIONS.md id.
    const QUESTION: &'static str;
    /// Every reading, the model's first.
    const ALL: &'static [Self];
    /// The reading's name, as reports show it.
    fn name(self) -> &'static str;
    /// What the check makes of it.
    fn kind(self) -> ReadingKind;
    /// Its sources.
    fn sources(self) -> &'static [Source];
}

impl Reading for B2Index {
    const QUESTION: &'static str = "B2";
    const ALL: &'static [Self] = &[B2Index::Radv18, B2Index::Rocjitsu16];
    fn name(self) -> &'static str {
        match self {
            B2Index::Radv18 => "radv-18-bit-index",
            B2Index::Rocjitsu16 => "rocjitsu-16-bit-index",
        }
    }
    fn kind(self) -> ReadingKind {
        match self {
            B2Index::Radv18 => ReadingKind::Model,
            B2Index::Rocjitsu16 => ReadingKind::Legal,
        }
    }
    fn sources(self) -> &'static [Source] {
        match self {
            B2Index::Radv18 => &[RADV_ADDR],
            B2Index::Rocjitsu16 => &[ROCJITSU],
        }
    }
}

impl Reading for B3Step {
    const QUESTION: &'static str = "B3";
    const ALL: &'static [Self] = &[B3Step::Rdna3Emulation, B3Step::GuidePseudocode];
    fn name(self) -> &'static str {
        match self {
            B3Step::Rdna3Emulation => "rocjitsu-rdna3-first-child",
            B3Step::GuidePseudocode => "guide-pseudocode",
        }
    }
    fn kind(self) -> ReadingKind {
        match self {
            B3Step::Rdna3Emulation => ReadingKind::Model,
            B3Step::GuidePseudocode => ReadingKind::Disagreement,
        }
    }
    fn sources(self) -> &'static [Source] {
        match self {
            B3Step::Rdna3Emulation => &[ROCJITSU, RADV_TERMINAL],
            B3Step::GuidePseudocode => &[RDNA3_GUIDE],
        }
    }
}

impl Reading for B6Size {
    const QUESTION: &'static str = "B6";
    const ALL: &'static [Self] = &[B6Size::ZeroIs16];
    fn name(self) -> &'static str {
        "size-zero-is-16"
    }
    fn kind(self) -> ReadingKind {
        ReadingKind::Model
    }
    fn sources(self) -> &'static [Source] {
        &[GPURT, RDNA4_GUIDE]
    }
}

impl Reading for B7Step {
    const QUESTION: &'static str = "B7";
    const ALL: &'static [Self] = &[
        B7Step::Gpurt,
        B7Step::RocjitsuPush4,
        B7Step::GuidePseudocode,
    ];
    fn name(self) -> &'static str {
        match self {
            B7Step::Gpurt => "gpurt-emulation",
            B7Step::RocjitsuPush4 => "rocjitsu-push4",
            B7Step::GuidePseudocode => "guide-pseudocode",
        }
    }
    fn kind(self) -> ReadingKind {
        match self {
            B7Step::Gpurt => ReadingKind::Model,
            B7Step::RocjitsuPush4 => ReadingKind::Legal,
            B7Step::GuidePseudocode => ReadingKind::Disagreement,
        }
    }
    fn sources(self) -> &'static [Source] {
        match self {
            B7Step::Gpurt => &[GPURT, RADV_ADDR],
            B7Step::RocjitsuPush4 => &[ROCJITSU],
            B7Step::GuidePseudocode => &[RDNA4_GUIDE],
        }
    }
}

impl Reading for B9Pop2 {
    const QUESTION: &'static str = "B9";
    const ALL: &'static [Self] = &[B9Pop2::Gpurt, B9Pop2::Rocjitsu];
    fn name(self) -> &'static str {
        match self {
            B9Pop2::Gpurt => "gpurt-try-pop-low",
            B9Pop2::Rocjitsu => "rocjitsu-first-pop-low",
        }
    }
    fn kind(self) -> ReadingKind {
        match self {
            B9Pop2::Gpurt => ReadingKind::Model,
            B9Pop2::Rocjitsu => ReadingKind::Legal,
        }
    }
    fn sources(self) -> &'static [Source] {
        match self {
            B9Pop2::Gpurt => &[GPURT],
            B9Pop2::Rocjitsu => &[ROCJITSU, RDNA4_GUIDE],
        }
    }
}

/// The reading of every BVH question an execution follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BvhReadings {
    pub b2: B2Index,
    pub b3: B3Step,
    pub b7: B7Step,
    pub b9: B9Pop2,
}

impl BvhReadings {
    /// The model's choices.
    pub const MODEL: BvhReadings = BvhReadings {
        b2: B2Index::Radv18,
        b3: B3Step::Rdna3Emulation,
        b7: B7Step::Gpurt,
        b9: B9Pop2::Gpurt,
    };

    /// The readings where this differs from the model's, as (question, name, kind).
    pub fn departures(&self) -> Vec<Named> {
        let mut out = Vec::new();
        push_if(&mut out, self.b2, B2Index::Radv18);
        push_if(&mut out, self.b3, B3Step::Rdna3Emulation);
        push_if(&mut out, self.b7, B7Step::Gpurt);
        push_if(&mut out, self.b9, B9Pop2::Gpurt);
        out
    }

    /// The worst kind among the departures (Model when there are none).
    pub fn kind(&self) -> ReadingKind {
        self.departures()
            .iter()
            .map(|n| n.kind)
            .max()
            .unwrap_or(ReadingKind::Model)
    }
}

fn push_if<R: Reading>(out: &mut Vec<Named>, r: R, model: R) {
    if r != model {
        out.push(Named {
            question: R::QUESTION,
            reading: r.name(),
            kind: r.kind(),
        });
    }
}

/// A reading by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named {
    pub question: &'static str,
    pub reading: &'static str,
    pub kind: ReadingKind,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} reading `{}`", self.question, self.reading)
    }
}

/// The words a mismatch report uses for a device that follows a disagreement reading.
pub const FOLLOWS: &str = "the device follows";

/// The combinations of readings worth trying for `family` besides the model's: legal ones first,
/// then disagreements.
fn candidates(family: Family) -> Vec<BvhReadings> {
    let m = BvhReadings::MODEL;
    let mut out: Vec<BvhReadings> = match family {
        Family::BvhStack => B2Index::ALL
            .iter()
            .flat_map(|&b2| {
                B3Step::ALL
                    .iter()
                    .map(move |&b3| BvhReadings { b2, b3, ..m })
            })
            .collect(),
        Family::BvhPushPop(form) => {
            let b9s: &[B9Pop2] = if form == Bvh::Push8Pop2 {
                B9Pop2::ALL
            } else {
                &[B9Pop2::Gpurt]
            };
            B7Step::ALL
                .iter()
                .filter(|&&b7| form == Bvh::Push4Pop1 || b7 != B7Step::RocjitsuPush4)
                .flat_map(|&b7| {
                    b9s.iter()
                        // The guide reading has its own second pop: one combination for it.
                        .filter(move |&&b9| b7 != B7Step::GuidePseudocode || b9 == B9Pop2::Gpurt)
                        .map(move |&b9| BvhReadings { b7, b9, ..m })
                })
                .collect()
        }
        _ => vec![],
    };
    out.retain(|r| *r != m);
    out.sort_by_key(|r| r.kind());
    out
}

/// Which non-model readings explain `device` for a BVH op (lanes in ascending, then descending
/// order): `None` when none does or the op is not a BVH op. Legal readings are tried first.
pub fn followed(
    target: &Target,
    variant: &Variant,
    case: &Case,
    device: &Outcome,
) -> Result<Option<BvhReadings>, Unmodelled> {
    let inst = variant.inst();
    for r in candidates(variant.op.info().family) {
        for descending in [false, true] {
            let mut got = execute_with(target, &inst, variant.mode, case, r, descending)?;
            if let Some(regs) = variant.regs {
                regs.settle(variant.op, variant.acc, case, &mut got);
            }
            if got == *device {
                return Ok(Some(r));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_question_lists_the_model_first_and_names_each_reading_once() {
        fn check<R: Reading>() {
            assert_eq!(R::ALL[0].kind(), ReadingKind::Model, "{}", R::QUESTION);
            let mut names: Vec<&str> = R::ALL.iter().map(|r| r.name()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), R::ALL.len(), "{}", R::QUESTION);
            assert!(R::ALL.iter().all(|r| !r.sources().is_empty()));
        }
        check::<B2Index>();
        check::<B3Step>();
        check::<B6Size>();
        check::<B7Step>();
        check::<B9Pop2>();
    }

    #[test]
    fn candidates_put_legal_readings_before_disagreements() {
        let c = candidates(Family::BvhStack);
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].kind(), ReadingKind::Legal);
        assert_eq!(c[0].departures()[0].reading, "rocjitsu-16-bit-index");
        assert!(c[1..].iter().all(|r| r.kind() == ReadingKind::Disagreement));
        let pop2 = candidates(Family::BvhPushPop(Bvh::Push8Pop2));
        assert_eq!(pop2.len(), 2, "{pop2:?}");
        assert_eq!(pop2[0].b9, B9Pop2::Rocjitsu);
        assert_eq!(pop2[1].b7, B7Step::GuidePseudocode);
        let push4 = candidates(Family::BvhPushPop(Bvh::Push4Pop1));
        assert_eq!(push4.len(), 2, "{push4:?}");
        assert!(candidates(Family::Nop).is_empty());
    }
}
