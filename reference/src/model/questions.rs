//! The model's open questions as data: each point where the sources (RDNA3 ISA guide, LLVM
//! AMDGPUUsage, Mesa RADV) leave the hardware's behaviour open, the choice the model makes, which
//! ops it touches, and where `reference/ASSUMPTIONS.md` discusses it. `ds-harness doc OP` lists the
//! questions of an op; a hardware recording that disagrees with a choice is how one gets settled.
//!
//! The choices stated here are the ones the model's modules implement (`mem`, `float`, `lanes`,
//! `special`, `legal`); each entry names its module.

use crate::isa::{DsOp, Family, OpInfo, Rmw};

/// One open question.
#[derive(Clone, Copy, Debug)]
pub struct Question {
    /// A short stable key, e.g. `lds-straddle`.
    pub id: &'static str,
    /// What the sources leave open.
    pub question: &'static str,
    /// What the model does (and what the legal-outcome check also accepts).
    pub choice: &'static str,
    /// The model module that implements the choice, and the ASSUMPTIONS.md entries about it.
    pub see: &'static str,
    /// Which ops it concerns.
    pub applies: fn(&OpInfo) -> bool,
}

/// An op with per-lane accesses to LDS addresses (not the lane-moving ops, not append/consume).
fn per_lane_lds(i: &OpInfo) -> bool {
    i.accesses_lds() && !matches!(i.family, Family::Append | Family::Consume)
}

fn writes_lds(i: &OpInfo) -> bool {
    matches!(
        i.family,
        Family::Rmw(_) | Family::Store(_) | Family::CondXchg32 | Family::StoreAddTid
    )
}

fn float_rmw(i: &OpInfo, which: &[Rmw]) -> bool {
    matches!(i.family, Family::Rmw(r) if which.contains(&r)) && i.elem.is_float()
}

/// Every open question, in a fixed order.
pub static QUESTIONS: &[Question] = &[
    Question {
        id: "same-address-order",
        question: "In which order do the lanes of one instruction that hit the same bytes take effect (which store wins, which old value each atomic returns)?",
        choice: "ascending lane order, so the highest lane's store lands last; any serial order of the lanes is accepted as legal and the report names the order the device chose",
        see: "model::legal",
        applies: |i| per_lane_lds(i) && writes_lds(i),
    },
    Question {
        id: "lds-straddle",
        question: "What does an access that starts inside the allocation and ends past it read and write?",
        choice: "each byte is checked on its own: bytes at or past the end read as 0 and writes to them are dropped; the bytes inside are accessed",
        see: "model::mem; ASSUMPTIONS.md A1-A2",
        applies: per_lane_lds,
    },
    Question {
        id: "unaligned-address",
        question: "What does an address that is not a multiple of the element size access?",
        choice: "exactly the bytes at that address (LDS in unaligned-access mode, as ROCm sets it for gfx11)",
        see: "model::mem; ASSUMPTIONS.md A1-A2",
        applies: |i| per_lane_lds(i) && i.elem.bytes() > 1 && i.family != Family::CondXchg32,
    },
    Question {
        id: "float-min-max",
        question: "Which operand do float min/max return for NaNs and for +0 against -0?",
        choice: "the V_MIN/V_MAX rule: -0 < +0; in IEEE mode a signalling NaN wins quieted (data first), a quiet NaN loses to a number; outside IEEE mode any NaN loses. The DS pseudocode's literal rule (memory kept for a NaN or two zeros) is accepted as legal",
        see: "model::float; ASSUMPTIONS.md F1-F4",
        applies: |i| float_rmw(i, &[Rmw::Min, Rmw::Max]),
    },
    Question {
        id: "float-add-nan",
        question: "Which NaN does float add store when an input is a NaN, or for inf + -inf?",
        choice: "the first NaN of (memory, data), quieted; the default NaN for inf + -inf. Either input NaN quieted or the default NaN is accepted as legal",
        see: "model::float; ASSUMPTIONS.md F1-F4",
        applies: |i| float_rmw(i, &[Rmw::Add]),
    },
    Question {
        id: "float-denormals",
        question: "Do the LDS float atomics honour the kernel's denormal mode?",
        choice: "yes: with denormals off, denormal inputs and results are flushed to zero of the same sign; rounding is to nearest even",
        see: "model::float; ASSUMPTIONS.md F1-F4",
        applies: |i| matches!(i.family, Family::Rmw(_)) && i.elem.is_float(),
    },
    Question {
        id: "float-cmpstore-equality",
        question: "Does float cmpstore compare bits or float values?",
        choice: "float values: NaN equals nothing (not even itself), +0 equals -0, denormals compare as zero when the mode flushes them",
        see: "model::float; ASSUMPTIONS.md F1-F4",
        applies: |i| float_rmw(i, &[Rmw::CmpStore]),
    },
    Question {
        id: "append-consume",
        question: "What do ds_append / ds_consume update and return?",
        choice: "one update of the dword at M0[15:0] + offset by the number of active lanes, wrapping; every active lane gets the value before it",
        see: "model::special; ASSUMPTIONS.md B1-B4",
        applies: |i| matches!(i.family, Family::Append | Family::Consume),
    },
    Question {
        id: "condxchg-address",
        question: "Which address does ds_condxchg32_rtn_b64 use, and what does it store?",
        choice: "(addr + offset) & 0xfff8; each 32-bit half is stored, bit 31 cleared, when its bit 31 is set; both old halves are returned",
        see: "model::special; ASSUMPTIONS.md B1-B4",
        applies: |i| i.family == Family::CondXchg32,
    },
    Question {
        id: "bvh-stack",
        question: "How is the ds_bvh_stack_rtn_b32 stack laid out?",
        choice: "Mesa RADV's gfx11 layout: base in dwords at addr[31:18], index at [17:0], entries 128 bytes apart, stack size from OFFSET1[5:4] (8 to 64 entries), 0xffffffff marks an invalid node",
        see: "model::special; ASSUMPTIONS.md B1-B4",
        applies: |i| i.family == Family::BvhStack,
    },
    Question {
        id: "swizzle-undefined",
        question: "What do swizzle offsets 0x8100..=0xbfff (no mode defined) do, and what does a lane read from an inactive source?",
        choice: "quad-permute of offset[7:0], as the guide's pseudocode reads; an inactive source lane reads as 0",
        see: "model::lanes; ASSUMPTIONS.md S1-S3",
        applies: |i| i.family == Family::Swizzle,
    },
    Question {
        id: "permute-collisions",
        question: "Which sender wins when several lanes of ds_permute_b32 name one destination, and what do unwritten or inactive sources give?",
        choice: "the highest-numbered sender wins; active lanes that receive nothing get 0; bpermute from an inactive lane reads 0; only address bits [6:2] name the lane",
        see: "model::lanes; ASSUMPTIONS.md S1-S3",
        applies: |i| matches!(i.family, Family::Permute | Family::Bpermute),
    },
];

/// The open questions that concern `op`, in [`QUESTIONS`] order.
pub fn for_op(op: DsOp) -> Vec<&'static Question> {
    let info = op.info();
    QUESTIONS.iter().filter(|q| (q.applies)(info)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_runnable_lds_op_has_a_question() {
        for (k, q) in QUESTIONS.iter().enumerate() {
            assert!(QUESTIONS[..k].iter().all(|p| p.id != q.id), "{}", q.id);
        }
        for op in crate::isa::runnable_ops() {
            if op.info().accesses_lds() {
                assert!(!for_op(op).is_empty(), "{op} has no open question");
            }
        }
        let ids: Vec<&str> = for_op(DsOp::from_name("ds_min_f32").unwrap())
            .iter()
            .map(|q| q.id)
            .collect();
        assert!(ids.contains(&"float-min-max") && !ids.contains(&"float-add-nan"));
    }
}
