//! The reference model: the executable semantics of every HIP-runnable DS instruction of a target
//! over one wave (32 or 64 lanes, ASSUMPTIONS.md W1-W10) and an LDS image, dispatched from the DS
//! table's family and element type.
//!
//! Sources: AMD "RDNA3 Instruction Set Architecture Reference Guide", chapter "Data Share
//! Operations" and chapter "Instructions", LDS & GDS instructions (one pseudocode block per op);
//! the RDNA4 guide, section 16.15 "VDS Instructions"; LLVM AMDGPUUsage and `SIISelLowering.cpp`
//! for the FP environment of LDS atomics. Each module names its own sections; every point where
//! the sources leave a choice is listed with the case that settles it in `reference/ASSUMPTIONS.md`.
//!
//! Every entry point takes the case's target: which ops exist is the DS table's column of its
//! generation, and every rule that differs between generations is asked of the generation
//! (`Generation::permute_span`, `swizzle_group`, `cmpst_data0`, `has_gds`) once, when the
//! instruction is planned ([`Plan::new`]); nothing here compares a target or generation by name.
//!
//! Conventions: lanes run one after another in ascending lane order (so among lanes of one
//! instruction that hit one address the highest lane's store lands last); lanes outside EXEC do
//! nothing and keep their vdst; register numbers of the instruction are ignored. [`legal`] answers
//! whether a device result that differs is one the hardware may legally produce.

use crate::wave::{Case, FpMode, Lane, Lds, Outcome, Variant, Wave};
use ds_isa::ds::{DsInst, DsOp, Elem, Family, OffsetForm, OpInfo, Rmw, TrExec, D16};
use ds_isa::gen::{CmpstData0, PermuteSpan};
use ds_isa::target::Target;
use readings::{LaneOrder, Rules};
use std::fmt;

pub mod barrier;
pub mod bvh;
pub mod fast_hash;
pub mod float;
pub mod kinds;
pub mod lanes;
pub mod legal;
pub mod mem;
pub mod questions;
pub mod readings;
pub mod rmw;
pub mod snapshot;
mod special;
pub mod src2;
pub mod transpose;
#[cfg(test)]
mod wide;

/// An instruction the model does not execute, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmodelled {
    /// The op that was asked for.
    pub op: DsOp,
    /// Why it is not modelled.
    pub why: &'static str,
}

impl fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not modelled: {} (only the HIP-runnable ops on LDS are; `ds-harness list` shows them)",
            self.op, self.why
        )
    }
}

impl std::error::Error for Unmodelled {}

/// Whether the model judges `op` on `target` at all (it may still leave single cases unjudged:
/// a transpose load with a lane off). An op it runs but does not judge is an error, with why.
pub fn judged(target: &Target, op: DsOp) -> Result<(), Unmodelled> {
    Plan::new(target, &DsInst::new(op), FpMode::default()).map(|_| ())
}

/// When the model's semantics of `op` are inferred rather than read from a source: why, in words
/// every place that shows the op (doc, list, reports) repeats (ASSUMPTIONS.md V9, C3).
pub fn inferred(op: DsOp) -> Option<&'static str> {
    transpose::inferred(op).or_else(|| barrier::inferred(op))
}

const GDS_WHY: &str = "the gds bit selects GDS, which the model does not hold (LDS only)";
const NOT_ON_TARGET_WHY: &str = "the target's generation has no such opcode (its DS table column \
     is empty; `ds-harness list --target T` shows the ops a target has)";

/// Runs `inst` of `target` on a copy of `case` and returns what it leaves behind, with every operand
/// in its own registers (register numbers are ignored; [`execute_variant`] applies a variant's
/// `regs`).
pub fn execute(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    execute_as(target, inst, mode, Rules::MODEL, case)
}

/// [`execute`] by the readings `rules` names (ASSUMPTIONS.md; [`readings`]): what a device that
/// follows them leaves behind.
pub fn execute_as(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    rules: Rules,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    let mut lds = case.lds.clone();
    let mut vdst: Vec<[u32; 4]> = case.wave.lanes.iter().map(|l| l.vdst).collect();
    let mut addr: Vec<u32> = case.wave.lanes.iter().map(|l| l.addr).collect();
    let plan = Plan::new_as(target, inst, mode, rules)?;
    plan.check_case(&case.wave, case.lds.bytes())?;
    plan.run(&case.wave, &mut lds, &mut vdst, &mut addr);
    Ok(Outcome {
        lds,
        vdst,
        addr,
        data0: None,
        data1: None,
    })
}

/// Runs `variant` on `case` on `target`: every source register of every active lane is read
/// before any destination is written (the semantics read `case`, which nothing changes, and write
/// separate arrays), then the results land in the registers the variant names (`regs`, see
/// [`crate::regs::Regs::settle`]). Without `regs` this is [`execute`].
pub fn execute_variant(
    target: &Target,
    variant: &Variant,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    execute_variant_as(target, variant, Rules::MODEL, case)
}

/// [`execute_variant`] by the readings `rules` names.
pub fn execute_variant_as(
    target: &Target,
    variant: &Variant,
    rules: Rules,
    case: &Case,
) -> Result<Outcome, Unmodelled> {
    let mut out = execute_as(target, &variant.inst(), variant.mode, rules, case)?;
    if let Some(regs) = variant.regs {
        regs.settle(variant.op, variant.acc, case, &mut out);
    }
    Ok(out)
}

/// Runs `inst` of `target` in place, without allocating: `vdst` and `addr` hold the registers
/// before the instruction and are updated (addr only by ops that write it). Lane addresses and
/// data are read from `wave`.
pub fn execute_in_place(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    wave: &Wave,
    lds: &mut Lds,
    vdst: &mut [[u32; 4]],
    addr: &mut [u32],
) -> Result<(), Unmodelled> {
    execute_in_place_as(target, inst, mode, Rules::MODEL, wave, lds, vdst, addr)
}

/// [`execute_in_place`] by the readings `rules` names (an emulated device that follows other
/// readings runs this).
#[allow(clippy::too_many_arguments)]
pub fn execute_in_place_as(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    rules: Rules,
    wave: &Wave,
    lds: &mut Lds,
    vdst: &mut [[u32; 4]],
    addr: &mut [u32],
) -> Result<(), Unmodelled> {
    let plan = Plan::new_as(target, inst, mode, rules)?;
    plan.check_case(wave, lds.bytes())?;
    plan.run(wave, lds, vdst, addr);
    Ok(())
}

/// What the emulated device does with `inst` over `wave`: [`execute_in_place_as`] by `rules`
/// (the readings the device follows, [`Rules::MODEL`] for the model's), except where the model
/// runs an op but does not judge it (a transpose load without a sourced layout or with a lane off
/// in EXEC where EXEC must be all ones, a barrier arrive the record leaves open), where it leaves
/// [`transpose::stand_in`]'s or [`barrier::run`]'s answer: a device's answer to record, never the
/// model's.
#[allow(clippy::too_many_arguments)]
pub fn execute_in_place_or_stand_in(
    target: &Target,
    inst: &DsInst,
    mode: FpMode,
    rules: Rules,
    wave: &Wave,
    lds: &mut Lds,
    vdst: &mut [[u32; 4]],
    addr: &mut [u32],
) -> Result<(), Unmodelled> {
    let info = inst.op.info();
    let offset = u16::from(inst.offset0) | u16::from(inst.offset1) << 8;
    match (
        execute_in_place_as(target, inst, mode, rules, wave, lds, vdst, addr),
        info.family,
    ) {
        (Err(_), Family::LoadTranspose(tr)) if info.on(target) && !inst.gds => {
            let dwords = usize::from(info.operands.vdst);
            transpose::stand_in(tr, dwords, offset, wave, lds.bytes(), vdst);
            Ok(())
        }
        (Err(_), Family::BarrierArrive) if info.on(target) => {
            barrier::run(info, offset, wave, lds.bytes_mut(), vdst);
            Ok(())
        }
        (r, _) => r,
    }
}

impl Plan {
    /// Whether the model judges the instruction over `wave` and the LDS image `lds`: not a
    /// transpose load with a lane off in EXEC where EXEC must be all ones (ASSUMPTIONS.md V9),
    /// nor a barrier arrive the record leaves open (C3: [`barrier::unjudged`]).
    pub(crate) fn check_case(&self, wave: &Wave, lds: &[u8]) -> Result<(), Unmodelled> {
        let full = crate::wave::WaveSize::from_lanes(wave.lanes.len()).map(|w| w.full_exec());
        let why = match self.info.family {
            Family::LoadTranspose(tr) if tr.exec == TrExec::AllOnes && Some(wave.exec) != full => {
                Some(transpose::PARTIAL_EXEC_WHY)
            }
            Family::BarrierArrive => barrier::unjudged(self.info, self.offset16, wave, lds),
            _ => None,
        };
        match why {
            Some(why) => Err(Unmodelled {
                op: self.info.op,
                why,
            }),
            None => Ok(()),
        }
    }

    /// Runs the planned instruction over `wave` (see [`execute_in_place`]).
    pub(crate) fn run(&self, wave: &Wave, lds: &mut Lds, vdst: &mut [[u32; 4]], addr: &mut [u32]) {
        let plan = self;
        let (offset, mode, rules) = (plan.offset16, plan.mode, plan.rules);
        let mem = lds.bytes_mut();
        if rules.lane_order == LaneOrder::Descending && plan.info.per_lane_lds() {
            // A4's other fixed order: every active lane one after another, highest first.
            for i in (0..wave.lanes.len()).rev().filter(|&i| wave.active(i)) {
                plan.step(i, &wave.lanes[i], wave.m0, mem, &mut vdst[i], &mut addr[i]);
            }
            return;
        }
        match plan.info.family {
            Family::Nop => {}
            Family::Swizzle => lanes::swizzle(plan.swizzle_group, wave, offset, vdst),
            Family::Permute => lanes::permute(plan.span, rules.collision, wave, offset, vdst),
            Family::Bpermute => lanes::bpermute(plan.span, wave, offset, vdst),
            Family::BpermuteFi => lanes::bpermute_fi(plan.span, wave, offset, vdst),
            Family::LoadTranspose(tr) => {
                let dwords = usize::from(plan.info.operands.vdst);
                transpose::run(tr, dwords, offset, rules.tr_lanes, wave, mem, vdst)
            }
            Family::BarrierArrive => barrier::run(plan.info, offset, wave, mem, vdst),
            Family::Append | Family::Consume => special::append_consume(plan, wave, mem, vdst),
            Family::Rmw(Rmw::CmpStore)
                if plan.elem_bytes == 4 && !plan.info.two_addresses() && plan.cmpst_swap =>
            {
                // A generation whose DATA0 is the compare value: the same update, operands swapped.
                let (elem, returns) = (plan.info.elem, plan.info.returns());
                rmw32_loop(offset, returns, wave, mem, vdst, |m, a, b| {
                    rmw::update(Rmw::CmpStore, elem, mode, rules, m, b, a)
                })
            }
            Family::Rmw(op) if plan.elem_bytes == 4 && !plan.info.two_addresses() => {
                // The hot path: one monomorphised loop per update function (same results as `step`).
                let (elem, returns) = (plan.info.elem, plan.info.returns());
                macro_rules! each_rmw {
                ($($r:ident),*) => {
                    match op {
                        $(Rmw::$r => rmw32_loop(offset, returns, wave, mem, vdst, |m, a, b| {
                            rmw::update(Rmw::$r, elem, mode, rules, m, a, b)
                        }),)*
                    }
                };
            }
                each_rmw!(
                    Add, Sub, Rsub, Inc, Dec, Min, Max, And, Or, Xor, Mskor, Xchg, CmpStore, Wrap,
                    MinNum, MaxNum, CondSub, SubClamp
                )
            }
            // The other hot path: single-address dword loads and stores (what `step` does through
            // `load_one` / `store_one` for a 4-byte element, one loop for all lanes).
            Family::Load(_) if plan.elem_bytes == 4 && !plan.info.two_addresses() => {
                let mut exec = wave.exec;
                while exec != 0 {
                    let i = exec.trailing_zeros() as usize;
                    exec &= exec - 1;
                    vdst[i][0] = mem::read_u32(mem, wave.lanes[i].addr.wrapping_add(offset.into()));
                }
            }
            Family::Store(_) if plan.elem_bytes == 4 && !plan.info.two_addresses() => {
                let mut exec = wave.exec;
                while exec != 0 {
                    let i = exec.trailing_zeros() as usize;
                    exec &= exec - 1;
                    let lane = &wave.lanes[i];
                    mem::write_u32(mem, lane.addr.wrapping_add(offset.into()), lane.data0[0]);
                }
            }
            _ => {
                let mut exec = wave.exec;
                while exec != 0 {
                    let i = exec.trailing_zeros() as usize;
                    exec &= exec - 1;
                    plan.step(i, &wave.lanes[i], wave.m0, mem, &mut vdst[i], &mut addr[i]);
                }
            }
        }
    }
}

/// Every active lane of a single-address 32-bit atomic, in ascending lane order.
#[inline(always)]
fn rmw32_loop(
    offset: u16,
    returns: bool,
    wave: &Wave,
    mem: &mut [u8],
    vdst: &mut [[u32; 4]],
    update: impl Fn(u64, u64, u64) -> u64,
) {
    let mut exec = wave.exec;
    while exec != 0 {
        let i = exec.trailing_zeros() as usize;
        exec &= exec - 1;
        let lane = &wave.lanes[i];
        let at = lane.addr.wrapping_add(u32::from(offset));
        let old = mem::read_u32(mem, at);
        let new = update(
            u64::from(old),
            u64::from(lane.data0[0]),
            u64::from(lane.data1[0]),
        );
        mem::write_u32(mem, at, new as u32);
        if returns {
            vdst[i][0] = old;
        }
    }
}

/// One instruction, decoded once for all lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub info: &'static OpInfo,
    pub mode: FpMode,
    /// `{offset1, offset0}`.
    pub offset16: u16,
    /// Byte offsets of the two addresses of a pair form (offset0 and offset1 scaled).
    pub pair: [u32; 2],
    pub elem_bytes: u32,
    /// The lanes a permute address names in a wave64 (`Generation::permute_span`).
    pub span: PermuteSpan,
    /// Lanes per swizzle group (`Generation::swizzle_group`).
    pub swizzle_group: usize,
    /// DATA0 of a compare-store is the compare value (`Generation::cmpst_data0`): the model's
    /// update takes (new, compare), so the operands are swapped.
    pub cmpst_swap: bool,
    /// The readings the instruction runs by ([`Rules::MODEL`]: the model's).
    pub rules: Rules,
}

impl Plan {
    /// Decodes `inst` for `target`: the row, the offsets, and the generation's answer to every
    /// rule that can differ between generations (asked here once, for every lane and caller).
    pub fn new(target: &Target, inst: &DsInst, mode: FpMode) -> Result<Plan, Unmodelled> {
        Plan::new_as(target, inst, mode, Rules::MODEL)
    }

    /// [`Plan::new`] by the readings `rules` names: where a reading replaces a generation's
    /// rule (W1/W2/W9/W10's span, V1's operand order), the reading's answer is taken.
    pub fn new_as(
        target: &Target,
        inst: &DsInst,
        mode: FpMode,
        rules: Rules,
    ) -> Result<Plan, Unmodelled> {
        let info = inst.op.info();
        let gen = target.generation;
        if !info.on(target) {
            return Err(Unmodelled {
                op: inst.op,
                why: NOT_ON_TARGET_WHY,
            });
        }
        if let Some(why) = info.hip_unsupported {
            return Err(Unmodelled { op: inst.op, why });
        }
        if inst.gds {
            return Err(Unmodelled {
                op: inst.op,
                why: GDS_WHY,
            });
        }
        if let Family::LoadTranspose(tr) = info.family {
            if !transpose::modelled(tr) {
                return Err(Unmodelled {
                    op: inst.op,
                    why: transpose::UNSOURCED_WHY,
                });
            }
        }
        let scale = info.offset_scale();
        Ok(Plan {
            span: rules.permute_span.unwrap_or_else(|| gen.permute_span()),
            swizzle_group: gen.swizzle_group(),
            cmpst_swap: rules.cmpst_data0.unwrap_or_else(|| gen.cmpst_data0())
                == CmpstData0::CompareValue,
            rules,
            info,
            mode,
            offset16: u16::from(inst.offset0) | u16::from(inst.offset1) << 8,
            pair: [
                u32::from(inst.offset0) * scale,
                u32::from(inst.offset1) * scale,
            ],
            elem_bytes: info.elem.bytes(),
        })
    }

    /// The byte addresses a lane touches: one for the single-offset forms, two for pair forms.
    #[inline(always)]
    pub(crate) fn addresses(&self, base: u32) -> [u32; 2] {
        match self.info.offset {
            OffsetForm::Pair | OffsetForm::Stride64 => [
                base.wrapping_add(self.pair[0]),
                base.wrapping_add(self.pair[1]),
            ],
            _ => {
                let a = base.wrapping_add(u32::from(self.offset16));
                [a, a]
            }
        }
    }

    /// DATA and DATA2 of an atomic's update (`rmw::update`: for a compare-store the new value,
    /// then the compare value) from a lane's DATA0 and DATA1, each masked to the element's bytes.
    #[inline(always)]
    pub(crate) fn rmw_data(&self, lane: &Lane) -> (u64, u64) {
        let m = rmw::mask(self.elem_bytes);
        let (d0, d1) = (join(&lane.data0) & m, join(&lane.data1) & m);
        if self.cmpst_swap && self.info.family == Family::Rmw(Rmw::CmpStore) {
            (d1, d0)
        } else {
            (d0, d1)
        }
    }

    /// Executes one active lane of a per-lane family (atomics, loads, stores, condxchg, addtid,
    /// bvh stack) against `mem`.
    #[inline(always)]
    pub fn step(
        &self,
        i: usize,
        lane: &Lane,
        m0: u32,
        mem: &mut [u8],
        vdst: &mut [u32; 4],
        addr: &mut u32,
    ) {
        let info = self.info;
        let eb = self.elem_bytes;
        let [a0, a1] = self.addresses(lane.addr);
        match info.family {
            Family::Rmw(op) => {
                // Only the element's own dwords of DATA0/DATA1 take part.
                let (d0, d1) = self.rmw_data(lane);
                if info.two_addresses() {
                    // Pair exchange: both old values are read before either store.
                    let old0 = mem::read_elem(mem, a0, eb);
                    let old1 = mem::read_elem(mem, a1, eb);
                    mem::write_elem(mem, a0, eb, d0);
                    mem::write_elem(mem, a1, eb, d1);
                    put(vdst, 0, old0, eb);
                    put(vdst, eb / 4, old1, eb);
                } else {
                    let old = mem::read_elem(mem, a0, eb);
                    let new = rmw::update(op, info.elem, self.mode, self.rules, old, d0, d1);
                    mem::write_elem(mem, a0, eb, new);
                    if info.returns() {
                        put(vdst, 0, old, eb);
                    }
                }
            }
            Family::Load(d16) => {
                if info.two_addresses() {
                    put(vdst, 0, mem::read_elem(mem, a0, eb), eb);
                    put(vdst, eb / 4, mem::read_elem(mem, a1, eb), eb);
                } else {
                    load_one(info.elem, d16, mem, a0, vdst);
                }
            }
            Family::Store(d16) => {
                if info.two_addresses() {
                    mem::write_elem(mem, a0, eb, join(&lane.data0));
                    mem::write_elem(mem, a1, eb, join(&lane.data1));
                } else {
                    store_one(eb, d16, mem, a0, &lane.data0);
                }
            }
            Family::CondXchg32 => special::condxchg32(a0, lane, mem, vdst),
            Family::StoreAddTid => {
                mem::write_u32(mem, addtid_address(m0, self.offset16, i), lane.data0[0])
            }
            Family::LoadAddTid => {
                vdst[0] = mem::read_u32(mem, addtid_address(m0, self.offset16, i))
            }
            Family::BvhStack => {
                (vdst[0], *addr) = bvh::gfx11(self.offset16, lane, mem, self.rules);
            }
            Family::BvhPushPop(form) => {
                let (stack, last) = (lane.addr, lane.data0[0]);
                let out = bvh::gfx12(
                    form,
                    self.offset16,
                    stack,
                    last,
                    &lane.data1,
                    mem,
                    self.rules,
                );
                vdst[..form.pops()].copy_from_slice(&out.ret[..form.pops()]);
                *addr = out.addr;
            }
            Family::Nop
            | Family::Swizzle
            | Family::Permute
            | Family::Bpermute
            | Family::BpermuteFi
            | Family::Append
            | Family::Consume
            | Family::Gws
            | Family::OrderedCount
            | Family::GsReg => unreachable!("{} is not a per-lane family", info.name),
            Family::Src2(op) => src2::step(
                op,
                info.elem,
                self.mode,
                self.rules,
                lane.addr,
                self.offset16,
                mem,
            ),
            // The whole wave at once (`Plan::run`).
            Family::LoadTranspose(_) | Family::BarrierArrive => {
                unreachable!("{} is not a per-lane family", info.name)
            }
        }
    }
}

/// `M0[15:0] + offset + lane * 4` (ISA guide, `DS_STORE_ADDTID_B32` / `DS_LOAD_ADDTID_B32`).
#[inline(always)]
pub(crate) fn addtid_address(m0: u32, offset: u16, lane: usize) -> u32 {
    (m0 & 0xffff)
        .wrapping_add(u32::from(offset))
        .wrapping_add(lane as u32 * 4)
}

/// The first two dwords of a register tuple as one little-endian qword.
#[inline(always)]
pub(crate) fn join(words: &[u32]) -> u64 {
    u64::from(words[0]) | u64::from(words[1]) << 32
}

/// Writes an element of `bytes` (4 or 8) into vdst starting at dword `at`.
#[inline(always)]
pub(crate) fn put(vdst: &mut [u32; 4], at: u32, v: u64, bytes: u32) {
    let at = at as usize;
    vdst[at] = v as u32;
    if bytes == 8 {
        vdst[at + 1] = (v >> 32) as u32;
    }
}

/// A single-address load into vdst: whole dwords, or a narrow element extended to 32 bits, or
/// (d16) extended to 16 bits into one half while the other half keeps its value.
#[inline(always)]
fn load_one(elem: Elem, d16: D16, mem: &[u8], at: u32, vdst: &mut [u32; 4]) {
    let bytes = elem.bytes();
    if bytes >= 4 {
        for (k, v) in vdst.iter_mut().take((bytes / 4) as usize).enumerate() {
            *v = mem::read_dword(mem, at, k as u32);
        }
        return;
    }
    let raw = mem::read_elem(mem, at, bytes) as u32;
    let shift = 32 - 8 * bytes;
    let wide = if elem.is_signed() {
        (((raw << shift) as i32) >> shift) as u32
    } else {
        raw
    };
    vdst[0] = match d16 {
        D16::No => wide,
        D16::Lo => (vdst[0] & 0xffff_0000) | (wide & 0xffff),
        D16::Hi => (vdst[0] & 0x0000_ffff) | (wide << 16),
    };
}

/// A single-address store: the low byte or half of DATA0 (or bits [23:16] / [31:16] for d16_hi),
/// or whole dwords.
#[inline(always)]
fn store_one(bytes: u32, d16: D16, mem: &mut [u8], at: u32, data: &[u32; 4]) {
    if bytes >= 4 {
        for (k, &d) in data.iter().take((bytes / 4) as usize).enumerate() {
            mem::write_dword(mem, at, k as u32, d);
        }
        return;
    }
    let v = if d16 == D16::Hi {
        data[0] >> 16
    } else {
        data[0]
    };
    mem::write_elem(mem, at, bytes, u64::from(v));
}

#[cfg(test)]
mod tests;
