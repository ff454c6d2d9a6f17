//! An op's semantics in words (`ds-harness doc OP`), from the DS table row's family and element
//! type as `ds_reference::model` executes them, and from the generation's rules where they differ
//! (`Generation::cmpst_data0`).

use super::words;
use ds_isa::ds::{Elem, Family, Generation, OffsetForm, OpInfo, Rmw, TrExec, TrMap, D16};
use ds_isa::gen::CmpstData0;

/// The element type in words.
pub(super) fn elem_words(e: Elem) -> String {
    let bits = 8 * e.bytes();
    match e {
        Elem::None => "no data".into(),
        Elem::F16x2 => "pair of IEEE binary16 (low half, high half)".into(),
        Elem::Bf16x2 => "pair of bfloat16 (low half, high half)".into(),
        _ if e.is_float() => format!("IEEE binary{bits}"),
        _ if e.is_signed() => format!("{bits}-bit signed integer"),
        Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 => format!("{bits}-bit unsigned integer"),
        _ => format!("{bits}-bit value"),
    }
}

/// What the op does on generation `gen`, in words, from its family and element type (and the
/// generation's operand order of a compare-store, `Generation::cmpst_data0`).
pub fn semantics(info: &OpInfo, gen: Generation) -> Vec<String> {
    let e = info.elem;
    let bits = 8 * e.bytes();
    let at = match info.offset {
        OffsetForm::Pair | OffsetForm::Stride64 => format!(
            "two byte addresses, a0 = addr + offset0 * {0} and a1 = addr + offset1 * {0}",
            info.offset_scale()
        ),
        _ => "the byte address a = addr + offset".into(),
    };
    let mut s = Vec::new();
    match info.family {
        Family::Rmw(r) => {
            let cmp = if e.is_float() {
                "as floats".to_string()
            } else if e.is_signed() {
                format!("as signed {bits}-bit integers")
            } else {
                format!("as unsigned {bits}-bit integers")
            };
            let f = match r {
                Rmw::Add if e.is_float() => "old + data0, IEEE addition rounded to nearest even".into(),
                Rmw::Add if e.is_packed16() => "old + data0 on each 16-bit half on its own, rounded to nearest even".into(),
                Rmw::Add => format!("old + data0, wrapping modulo 2^{bits}"),
                Rmw::Sub => format!("old - data0, wrapping modulo 2^{bits}"),
                Rmw::Rsub => format!("data0 - old, wrapping modulo 2^{bits}"),
                Rmw::Inc => "old >= data0 ? 0 : old + 1 (unsigned)".into(),
                Rmw::Dec => "old == 0 || old > data0 ? data0 : old - 1 (unsigned)".into(),
                Rmw::Min => format!("the smaller of old and data0, compared {cmp}"),
                Rmw::Max => format!("the larger of old and data0, compared {cmp}"),
                Rmw::And => "old & data0".into(),
                Rmw::Or => "old | data0".into(),
                Rmw::Xor => "old ^ data0".into(),
                Rmw::Mskor => "(old & ~data0) | data1: data0 clears bits, data1 sets them".into(),
                Rmw::Xchg if info.two_addresses() => {
                    "data0 at the first address and data1 at the second (both old values are read first)".into()
                }
                Rmw::Xchg => "data0 (exchange)".into(),
                Rmw::CmpStore => {
                    let how = if e.is_float() { "as floats" } else { "bit for bit" };
                    match gen.cmpst_data0() {
                        CmpstData0::NewValue => format!(
                            "old == data1 ? data0 : old (compared {how}; data0 is the new value, data1 the compare value)"
                        ),
                        CmpstData0::CompareValue => format!(
                            "old == data0 ? data1 : old (compared {how}; data0 is the compare value, data1 the new value)"
                        ),
                    }
                }
                Rmw::Wrap => "old >= data0 ? old - data0 : old + data1".into(),
                Rmw::MinNum => "IEEE 754-2019 minimumNumber(old, data0): a NaN loses to a number, two NaNs give data0 quieted, -0 < +0".into(),
                Rmw::MaxNum => "IEEE 754-2019 maximumNumber(old, data0): a NaN loses to a number, two NaNs give data0 quieted, -0 < +0".into(),
                Rmw::CondSub => "old >= data0 ? old - data0 : old (unsigned; never wraps)".into(),
                Rmw::SubClamp => "old < data0 ? 0 : old - data0 (unsigned, clamped at 0)".into(),
            };
            s.push(format!(
                "Atomic read-modify-write of one {} at {at}: for each active lane, old = LDS[a]; LDS[a] = {f}.",
                elem_words(e)
            ));
            s.push(if info.returns() {
                format!("Returns old in vdst ({}).", words(info.operands.vdst))
            } else {
                "Returns nothing (the _rtn form returns old).".into()
            });
        }
        Family::Load(d16) => {
            let into = match d16 {
                D16::No if e.bytes() < 4 => format!(
                    "into vdst, {}-extended to 32 bits",
                    if e.is_signed() { "sign" } else { "zero" }
                ),
                D16::No => format!("into vdst ({})", words(info.operands.vdst)),
                D16::Lo => format!(
                    "into vdst[15:0], {}-extended to 16 bits; vdst[31:16] keeps its value",
                    if e.is_signed() { "sign" } else { "zero" }
                ),
                D16::Hi => format!(
                    "into vdst[31:16], {}-extended to 16 bits; vdst[15:0] keeps its value",
                    if e.is_signed() { "sign" } else { "zero" }
                ),
            };
            s.push(format!("Loads one {} from {at} {into}.", elem_words(e)));
        }
        Family::Store(d16) => {
            s.push(match d16 {
                _ if info.two_addresses() => format!(
                    "Stores data0 at a0 = addr + offset0 * {0} and data1 at a1 = addr + offset1 * {0}, each one {1}.",
                    info.offset_scale(),
                    elem_words(e)
                ),
                D16::Hi => format!(
                    "Stores the high half of data0 (bits [31:16], or [23:16] for a byte) to {at}."
                ),
                _ => format!("Stores the low {bits} bits of data0 to {at}."),
            });
        }
        Family::CondXchg32 => s.push(format!(
            "Conditional exchange of two 32-bit halves at {at}: each half of data0 is stored when its sign bit is set; returns the old 64 bits."
        )),
        Family::Swizzle => s.push("Each active lane gets the addr register of the lane the swizzle pattern in the offset names (0 when that lane is inactive); no LDS access.".into()),
        Family::Permute => s.push("Forward permute: each active lane writes data0 to vdst of the lane named by bits [6:2] of addr + offset (in wave64: the generation's permute span); no LDS access.".into()),
        Family::Bpermute => s.push("Backward permute: each active lane reads data0 of the lane named by bits [6:2] of addr + offset (in wave64: the generation's permute span); no LDS access.".into()),
        Family::BpermuteFi => s.push("Backward permute that also fetches from inactive lanes: each active lane reads data0 of the lane named by bits [6:2] of addr + offset (in wave64: the generation's permute span), whether or not that lane is in EXEC; no LDS access.".into()),
        Family::StoreAddTid => s.push("Stores data0 at M0[15:0] + offset + lane id * 4 (no address operand).".into()),
        Family::LoadAddTid => s.push("Loads vdst from M0[15:0] + offset + lane id * 4 (no address operand).".into()),
        Family::Append => s.push("Adds the number of active lanes to the counter at M0[15:0] + offset; returns the old counter.".into()),
        Family::Consume => s.push("Subtracts the number of active lanes from the counter at M0[15:0] + offset; returns the old counter.".into()),
        Family::BvhStack => s.push("Ray-tracing BVH short-stack step (rocJITsu's RDNA3 path): returns the first valid child of data1 (after the last-visited node data0 on a walk-back) and pushes the other valid ones last first, or pops (0xfffffffe from an empty stack); the stack index lives in addr, which is updated in place (ASSUMPTIONS.md B1-B4).".into()),
        Family::BvhPushPop(form) => s.push(format!(
            "Ray-tracing BVH short-stack step (GPURT's emulation): pushes data1's {} dwords from the last down (invalid nodes skipped, their skip flags honoured, stopping at the last-visited node data0 on a walk-back), then pops {} (0xfffffffe from an empty stack, 0xffffffff after an overflow); the packed stack address in addr is updated in place (ASSUMPTIONS.md B5-B7{}).",
            form.data_dwords(),
            if form.pops() == 2 { "and tries a second pop" } else { "one" },
            if form.pops() == 2 { ", B9" } else { "" }
        )),
        Family::Nop => s.push("Does nothing.".into()),
        Family::Gws | Family::OrderedCount | Family::GsReg => s.push("Drives GDS-only hardware (global wave sync, ordered count, streamout registers); not modelled.".into()),
        Family::Src2(_) => s.push("The gfx9/gfx10 src2 form: MEM[A] = MEM[A] op MEM[B] with A = addr (the offset not added) and B = A + 4 x (offset bit 15 set ? addr[31:17] : offset[14:0]), each read as a signed 16-bit number (ASSUMPTIONS.md V4-V7); no register is written.".into()),
        Family::LoadTranspose(tr) => {
            let row = 4 * info.operands.vdst;
            let (exec, q) = match tr.exec {
                TrExec::AllOnes => ("Judged with EXEC all on only", "V9"),
                TrExec::AnySet => (
                    "With any EXEC bit set every lane takes part, inactive lanes too; EXEC zero leaves vdst (C1)",
                    "C1, C2",
                ),
            };
            s.push(match tr.map {
                TrMap::Groups16Quads => format!("Transpose load: each lane reads its {row}-byte row at {at}; within each 16-lane group g = l & ~15, halfword n (0..3) of lane l is halfword l & 3 of the row of lane g + ((l >> 2) & 3) + 4n. {exec} (ASSUMPTIONS.md {q})."),
                TrMap::Groups16Pairs => format!("Transpose load: each lane reads its {row}-byte row at {at}; within each 16-lane group g = l & ~15, byte n (0..7) of lane l is byte l & 7 of the row of lane g + ((l >> 3) & 1) + 2n (inferred from Triton's rule). {exec} (ASSUMPTIONS.md {q})."),
                TrMap::Groups8 => format!("Transpose load: each lane reads its {row}-byte row at {at}; a plain 8x8 transpose in each 8-lane group g = l & ~7: halfword n (0..7) of lane l is halfword l & 7 of the row of lane g + n. {exec} (ASSUMPTIONS.md {q})."),
                TrMap::Groups16Runs4 => format!("Transpose load: each lane reads its {row}-byte row at {at}; within each 16-lane group g = l & ~15, byte n (0..7) of lane l is byte l & 7 of the row of lane g + 4 * ((l >> 3) & 1) + (n & 3) + 8 * (n >> 2). {exec} (ASSUMPTIONS.md {q})."),
                TrMap::Unsourced => format!("Transpose load: each lane reads its {row}-byte row at {at} and gathers {}-bit elements from its lane group's rows; no sourced layout: run, its answer recorded, not judged (ASSUMPTIONS.md {q}).", tr.bits),
            });
        }
        Family::BarrierArrive => s.push(format!(
            "Barrier arrive on the 64-bit LDS barrier word at {at} ([28:0] pending count, [31:29] phase, [47:32] reload count): {}; judged only for a single arrive of 1 (one lane on{}, a pending count above zero): the count drops by one, every other bit stays{}. Inferred (a 29-bit count, as every public user assumes); every other case is run and recorded, not judged (ASSUMPTIONS.md C3).",
            if info.returns() { "subtracts data0's arrivals and returns the old word" } else { "one arrival after the wave's earlier asynchronous loads, nothing returned" },
            if info.returns() { ", data0 = 1" } else { "" },
            if info.returns() { ", vdst gets the old word" } else { "" }
        )),
    }
    s
}
