//! The fixed, compact snapshot corpus: a few named cases per op, chosen from the op's family and
//! element type to show each edge rule once (wrap points, sign extension, half-preserving loads,
//! pair scaling, same-address order, out-of-range and misaligned addresses, every swizzle mode,
//! permute collisions, float specials in both FP modes). Deterministic: no randomness.

pub use super::values::SENTINEL;
use super::values::{
    base_case, counting_lds, split, variant, F32S, F64S, FTZ16_ONLY, FTZ_NON_IEEE, INT32, INT64,
    LDS_SIZE, PKBF16, PKF16, STORE_DATA,
};
use crate::regs::Alias;
use crate::wave::{Case, FpMode, Lds, Variant, WaveSize, DATA1_DWORDS};
use ds_isa::ds::{DsOp, Elem, Family, OffsetForm, Rmw, TrExec};

/// Every corpus case of `op`, named; empty for the ops the model does not run.
pub fn snapshot_corpus(op: DsOp) -> Vec<(String, Variant, Case)> {
    snapshot_corpus_with(op, false)
}

/// [`snapshot_corpus`] with the aliasing variants' register tuples at even registers when
/// `even_tuples` ([`Alias::regs_in`]: a target whose DS features lack `unaligned-tuples`).
pub(super) fn snapshot_corpus_with(op: DsOp, even_tuples: bool) -> Vec<(String, Variant, Case)> {
    let info = op.info();
    if !info.hip_runnable() {
        return vec![];
    }
    let dm = FpMode::default();
    let mut out: Vec<(String, Variant, Case)> = Vec::new();
    let ops = info.operands;
    let mut add = |name: &str, v: Variant, mut c: Case| {
        // Words past an operand's width (and operands the op does not read) stay at their
        // defaults, so the snapshot shows only what the instruction uses.
        for l in c.wave.lanes.iter_mut() {
            l.data0[usize::from(ops.data0)..].fill(0);
            l.data1[usize::from(ops.data1)..].fill(0);
            if ops.addr == 0 {
                l.addr = 0;
            }
        }
        let v = Variant {
            lds_size: c.lds.size(),
            ..v
        };
        out.push((name.to_string(), v, c))
    };
    let eb = info.elem.bytes();
    match info.family {
        Family::Rmw(_) if info.two_addresses() => {
            // Pair exchange: lanes on distinct pairs, then two lanes on overlapping pairs.
            let mut c = base_case(0b1111);
            let size = if info.offset == OffsetForm::Stride64 {
                2 * LDS_SIZE
            } else {
                LDS_SIZE
            };
            c.lds = counting_lds(size);
            let stride = 2 * eb;
            for (i, l) in c.wave.lanes.iter_mut().take(4).enumerate() {
                l.addr = if i < 2 { stride * i as u32 } else { 0x40 };
                let w = (eb / 4) as usize;
                for k in 0..w {
                    l.data0[k] = 0xd000_0000 | (i as u32) << 8 | k as u32;
                    l.data1[k] = 0xe000_0000 | (i as u32) << 8 | k as u32;
                }
            }
            let (o0, o1) = (0, 1);
            add("pairs_then_same_pair", variant(op, o0, o1, dm), c.clone());
            add("same_address_both_offsets", variant(op, 1, 1, dm), c);
        }
        Family::Rmw(rmw) => {
            let float = info.elem.is_float() || info.elem.is_packed16();
            let mut edges = base_case(0x0ff);
            for i in 0..9 {
                let at = eb * i as u32;
                let l = &mut edges.wave.lanes[i];
                l.addr = at;
                let k = i % 8;
                match info.elem {
                    Elem::F32 => {
                        let (m, d0, d1) = F32S[k];
                        edges.lds.set_word(at, m);
                        (l.data0[0], l.data1[0]) = (d0, d1);
                    }
                    Elem::F16x2 | Elem::Bf16x2 => {
                        let table = if info.elem == Elem::F16x2 {
                            PKF16
                        } else {
                            PKBF16
                        };
                        let (m, d0, d1) = table[k];
                        edges.lds.set_word(at, m);
                        (l.data0[0], l.data1[0]) = (d0, d1);
                    }
                    Elem::F64 => {
                        let (m, d0, d1) = F64S[k];
                        let [lo, hi] = split(m);
                        edges.lds.set_word(at, lo);
                        edges.lds.set_word(at + 4, hi);
                        l.data0[..2].copy_from_slice(&split(d0));
                        l.data1[..2].copy_from_slice(&split(d1));
                    }
                    _ if eb == 8 => {
                        let (m, d0, d1) = INT64[k];
                        let [lo, hi] = split(m);
                        edges.lds.set_word(at, lo);
                        edges.lds.set_word(at + 4, hi);
                        l.data0[..2].copy_from_slice(&split(d0));
                        l.data1[..2].copy_from_slice(&split(d1));
                    }
                    _ => {
                        let (m, d0, d1) = INT32[k];
                        edges.lds.set_word(at, m);
                        (l.data0[0], l.data1[0]) = (d0, d1);
                    }
                }
            }
            // Lane 8 is inactive: its word and vdst stay.
            add("edges", variant(op, 0, 0, dm), edges.clone());
            if float {
                add(
                    "edges_ftz_non_ieee",
                    variant(op, 0, 0, FTZ_NON_IEEE),
                    edges.clone(),
                );
            }
            if info.elem.is_packed16() {
                // Only the FP16/64 switch flushes: tells ASSUMPTIONS.md N3's readings apart
                // (bf16 flushed by the FP16/64 switch, kept by the FP32 one or by none).
                add(
                    "edges_ftz16_only",
                    variant(op, 0, 0, FTZ16_ONLY),
                    edges.clone(),
                );
            }
            // Four lanes on one address: the returns show the ascending lane order.
            let mut same = base_case(0b1111);
            for i in 0..4 {
                let src = &edges.wave.lanes[[4, 5, 6, 7][i]];
                let l = &mut same.wave.lanes[i];
                l.addr = 0x10;
                l.data0 = src.data0;
                l.data1 = if rmw == Rmw::CmpStore {
                    let mut w = [0; DATA1_DWORDS];
                    w[..4].copy_from_slice(&edges.wave.lanes[i].data0);
                    w
                } else {
                    src.data1
                };
            }
            same.lds.set_word(0x10, edges.lds.word(eb));
            if eb == 8 {
                same.lds.set_word(0x14, edges.lds.word(eb + 4));
            }
            add("same_address", variant(op, 0, 0, dm), same);
            if let Some(pairs) = super::nan_pair::lanes(info.elem).filter(|_| rmw == Rmw::Add) {
                let mut c = base_case(0b11);
                for (i, (m, d)) in pairs.into_iter().enumerate() {
                    c.wave.lanes[i].addr = 4 * i as u32;
                    c.wave.lanes[i].data0[0] = d;
                    c.lds.set_word(4 * i as u32, m);
                }
                add("nan_pair", variant(op, 0, 0, dm), c);
            }
            add(
                "out_of_range_and_misaligned",
                variant(op, 0x20, 0, dm),
                edge_addresses(eb, &edges),
            );
        }
        Family::Load(_) | Family::Store(_) => {
            let store = matches!(info.family, Family::Store(_));
            let pair = info.two_addresses();
            let stride64 = info.offset == OffsetForm::Stride64;
            let size = if stride64 { 2 * LDS_SIZE } else { LDS_SIZE };
            let mut c = base_case(0x0ff);
            c.lds = if store {
                Lds::zeroed(size)
            } else {
                counting_lds(size)
            };
            for (i, l) in c.wave.lanes.iter_mut().take(9).enumerate() {
                l.addr = if pair {
                    2 * eb * i as u32
                } else if store {
                    16 * i as u32
                } else {
                    [0x00, 0x04, 0x80, 0x81, 0xfe, 0x7f, 0x10, 0x44, 0x08][i] & !(eb.min(4) - 1)
                };
                if store {
                    for k in 0..4 {
                        l.data0[k] = STORE_DATA[(i + k) % 8];
                        l.data1[k] = STORE_DATA[(i + k + 4) % 8] ^ 0x0101_0101;
                    }
                }
            }
            if store {
                // Lane 8 is inactive: the word it would write stays.
                c.lds.set_word(c.wave.lanes[8].addr, 0xaaaa_aaaa);
            }
            let (o0, o1) = match (pair, stride64) {
                (true, true) => (0, 1),
                (true, false) => (1, 3),
                _ => (0, 0),
            };
            add("in_range", variant(op, o0, o1, dm), c.clone());
            let mut same = c.clone();
            same.wave.exec = 0b1111;
            keep_lanes(&mut same, 4);
            for l in same.wave.lanes.iter_mut().take(4) {
                l.addr = 0x40;
            }
            if store {
                add("same_address", variant(op, o0, o1, dm), same);
            }
            // Last element, one past the end, straddling the end, 32-bit wrap-around, misaligned.
            let mut oob = c.clone();
            oob.wave.exec = 0b1_1111;
            keep_lanes(&mut oob, 5);
            let (o0, o1) = if pair { (1, 0xff) } else { (0x20, 0) };
            let first = if pair {
                o0 as u32 * info.offset_scale()
            } else {
                0x20
            };
            let finals = [size - eb.min(4), size, size - 2, 0x10, 0x22];
            for (i, f) in finals.into_iter().enumerate() {
                oob.wave.lanes[i].addr = f.wrapping_sub(first);
            }
            oob.wave.lanes[3].addr = 0xffff_fff0; // + first offset wraps past 2^32
            add("out_of_range_and_misaligned", variant(op, o0, o1, dm), oob);
        }
        Family::CondXchg32 => {
            let mut c = base_case(0b1111);
            c.lds = counting_lds(LDS_SIZE);
            let halves = [
                [0x8000_00aa, 0x8000_00bb],
                [0x0000_00aa, 0x8000_00bb],
                [0x8000_00aa, 0x0000_00bb],
                [0x7fff_ffff, 0xffff_ffff],
            ];
            for (i, l) in c.wave.lanes.iter_mut().take(4).enumerate() {
                l.addr = [0x00, 0x10, 0x23, 0x1_0030][i];
                l.data0[..2].copy_from_slice(&halves[i]);
            }
            add("bit31_selects_halves", variant(op, 0, 0, dm), c);
        }
        Family::Swizzle => {
            let mut c = base_case(!(1 << 5));
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                l.addr = 0x100 + i as u32;
            }
            for (name, off) in [
                ("bitmask_swap1", 0x041fu16),
                ("bitmask_broadcast8_lane2", 0x0058),
                ("quad_perm_3210", 0x801b),
                ("rotate_left_1", 0xc020),
                ("rotate_right_2_keep_bit0", 0xc441),
                ("fft_mask0", 0xe000),
                ("fft_mask3", 0xe003),
                ("unnamed_range_as_quad_perm", 0x9055),
            ] {
                add(
                    name,
                    variant(op, off as u8, (off >> 8) as u8, dm),
                    c.clone(),
                );
            }
        }
        Family::Permute | Family::Bpermute | Family::BpermuteFi => {
            let mut c = base_case(0xf);
            for (i, (d, a)) in [(0xa, 0), (0xb, 0), (0xc, 12), (0xd, 4)]
                .into_iter()
                .enumerate()
            {
                c.wave.lanes[i].data0[0] = d;
                c.wave.lanes[i].addr = a;
            }
            add("isa_guide_example", variant(op, 0, 0, dm), c.clone());
            c.wave.exec = 0xa;
            add("isa_guide_example_exec_0xa", variant(op, 0, 0, dm), c);
            let mut k = base_case(0x00ff_00ff);
            for (i, l) in k.wave.lanes.iter_mut().enumerate() {
                l.data0[0] = 0x5000 + i as u32;
                l.addr = [0u32, 4, 4, 0x80 + 8, 0xffff_ff9c, 28, 64, 124][i % 8]
                    .wrapping_add(0x100 * (i / 8) as u32);
            }
            add("collisions_high_bits_offset", variant(op, 4, 0, dm), k);
        }
        Family::StoreAddTid | Family::LoadAddTid => {
            let mut c = base_case(0x8000_000f);
            if info.family == Family::LoadAddTid {
                // Every byte its address (mod 256), so each lane shows which dword it read.
                c.lds = Lds::from_bytes((0..LDS_SIZE).map(|i| i as u8).collect());
            }
            c.wave.m0 = 0xffff_0010;
            let exec = c.wave.exec;
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                if exec >> i & 1 == 1 {
                    l.data0[0] = 0x7700_0000 + i as u32;
                }
            }
            add(
                "m0_low_half_plus_offset",
                variant(op, 0x08, 0, dm),
                c.clone(),
            );
            // Lane 31 lands on the first byte past the end.
            c.wave.m0 = LDS_SIZE - 4 - 4 * 31;
            add("last_lane_past_the_end", variant(op, 0x04, 0, dm), c);
        }
        Family::Append | Family::Consume => {
            let mut c = base_case(0x0000_f0f1);
            c.lds.set_word(0x10, 100);
            c.lds.set_word(0x18, 1);
            c.wave.m0 = 0x1234_0010;
            add("m0_low_half_base", variant(op, 0, 0, dm), c.clone());
            c.wave.exec = WaveSize::Wave32.full_exec();
            add("offset_all_lanes_wraps", variant(op, 8, 0, dm), c.clone());
            c.wave.exec = 0;
            add("no_lanes", variant(op, 0, 0, dm), c);
        }
        Family::BvhStack => {
            for (name, v, c) in super::bvh::gfx11_cases(op) {
                add(&name, v, c);
            }
        }
        Family::BvhPushPop(form) => {
            for (name, v, c) in super::bvh::gfx12_cases(op, form) {
                add(&name, v, c);
            }
        }
        Family::Nop => add("does_nothing", variant(op, 0, 0, dm), {
            let mut c = base_case(0b11);
            c.lds.set_word(0, 1);
            c
        }),
        Family::Src2(_) => {
            for (name, v, c) in super::src2::cases(op) {
                add(name, v, c);
            }
        }
        Family::LoadTranspose(tr) => {
            // Every byte its own address (mod 256), every lane a row of its own (VDST's width:
            // ASSUMPTIONS.md V9, C2): the returned bytes name the layout. Then the rows reversed
            // and an offset, and one lane off (CDNA 4 requires EXEC all ones: recorded, not
            // judged; gfx12.5's rule lets every lane take part, C1), and for gfx12.5's rule one
            // lane on and none.
            let row = 4 * u32::from(ops.vdst);
            let mut c = base_case(u32::MAX);
            c.lds = Lds::from_bytes((0..LDS_SIZE).map(|i| i as u8).collect());
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                l.addr = row * i as u32;
            }
            add("rows_in_order", variant(op, 0, 0, dm), c.clone());
            let mut rev = c.clone();
            let n = rev.wave.lanes.len() as u32;
            for (i, l) in rev.wave.lanes.iter_mut().enumerate() {
                l.addr = row * (n - 1 - i as u32);
            }
            add("rows_reversed_offset8", variant(op, 8, 0, dm), rev);
            c.wave.exec = u64::from(u32::MAX - 1);
            add("lane_0_off", variant(op, 0, 0, dm), c.clone());
            if tr.exec == TrExec::AnySet {
                c.wave.exec = 1 << 5;
                add("lane_5_alone", variant(op, 0, 0, dm), c.clone());
                c.wave.exec = 0;
                add("no_lanes", variant(op, 0, 0, dm), c);
            }
        }
        Family::BarrierArrive => {
            // One lane arrives once on a live count (judged, ASSUMPTIONS.md C3): a plain word,
            // one whose phase and reload bits are set, the widest 29-bit count; then what the
            // record leaves open (recorded, not judged): the last arrive of a phase, two lanes,
            // a misaligned word and, for the rtn form, an arrive of 2.
            let word = |pending: u64, phase: u64, reload: u64| reload << 32 | phase << 29 | pending;
            let one = |w: u64, lanes: u32, addr: u32, count: u32| {
                let mut c = base_case(lanes);
                let [lo, hi] = split(w);
                c.lds.set_word(0x10, lo);
                c.lds.set_word(0x14, hi);
                c.lds.set_word(0x20, 0x0000_0003);
                for l in c.wave.lanes.iter_mut() {
                    l.addr = addr;
                    l.data0[0] = count;
                }
                c
            };
            add(
                "one_arrive",
                variant(op, 0, 0, dm),
                one(word(5, 0, 7), 0b1, 0x10, 1),
            );
            add(
                "one_arrive_phase_and_reload_kept",
                variant(op, 0, 0, dm),
                one(word(1, 5, 0xffff), 0b100, 0x10, 1),
            );
            add(
                "widest_count",
                variant(op, 8, 0, dm),
                one(word((1 << 29) - 1, 7, 3), 0b1, 0x8, 1),
            );
            add(
                "last_arrive_of_a_phase",
                variant(op, 0, 0, dm),
                one(word(0, 2, 7), 0b1, 0x10, 1),
            );
            add(
                "two_lanes",
                variant(op, 0, 0, dm),
                one(word(5, 0, 7), 0b11, 0x10, 1),
            );
            add(
                "misaligned_word",
                variant(op, 4, 0, dm),
                one(word(5, 0, 7), 0b1, 0x10, 1),
            );
            if info.returns() {
                add(
                    "an_arrive_of_2",
                    variant(op, 0, 0, dm),
                    one(word(5, 0, 7), 0b1, 0x10, 2),
                );
            }
        }
        Family::Gws | Family::OrderedCount | Family::GsReg => {}
    }
    // The one rule near 2^32 (ASSUMPTIONS.md A3) for every multi-dword access: an element that
    // starts below 2^32 and ends past it is out of range as a whole (lane 0: its second dword
    // would be LDS dword 0 if the bytes wrapped; lane 1: its last dword), while the address of a
    // pair's second element wraps like any address.
    let multi_dword = matches!(
        info.family,
        Family::Load(_) | Family::Store(_) | Family::Rmw(_)
    ) && (eb >= 8 || (info.two_addresses() && eb >= 4));
    if multi_dword {
        let mut c = base_case(0b11);
        let stride64 = info.offset == OffsetForm::Stride64;
        // Only the bytes a wrapped access would reach are non-zero (byte i is i % 256): the
        // bottom of the LDS, and around where a pair's second address wraps to.
        c.lds = Lds::zeroed(if stride64 { 2 * LDS_SIZE } else { LDS_SIZE });
        let scale = info.offset_scale();
        let second = if info.two_addresses() {
            scale.saturating_sub(16)..scale + 16
        } else {
            0..0
        };
        for at in (0..0x20).chain(second).step_by(4) {
            c.lds
                .set_word(at, u32::from_le_bytes([0, 1, 2, 3].map(|k| (at + k) as u8)));
        }
        for (i, l) in c.wave.lanes.iter_mut().take(2).enumerate() {
            l.addr = [0xffff_fffc, 0xffff_fff4][i];
            for k in 0..4 {
                l.data0[k] = STORE_DATA[(i + k) % 8];
                l.data1[k] = STORE_DATA[(i + k + 4) % 8] ^ 0x0101_0101;
            }
        }
        let o1 = u8::from(info.two_addresses());
        add("straddles_2_32", variant(op, 0, o1, dm), c);
    }
    // Operands that share registers (ASSUMPTIONS.md R1-R3): the op's first case again, with each
    // aliasing pattern's registers and every lane made consistent (in an active lane a register
    // takes the value of the first operand naming it: addr, data0, data1, vdst).
    if let Some((_, first, case)) = out.first().cloned() {
        // An op only targets without unaligned tuples have (CDNA 4's transposes) gets its
        // tuples at even registers in every corpus, so every target that has it runs the cases.
        let even = even_tuples
            || ds_isa::target::TARGETS
                .iter()
                .filter(|t| info.on(*t))
                .all(|t| {
                    !t.ds_features
                        .contains(ds_isa::ds_features::DsFeatures::UNALIGNED)
                });
        for (alias, regs) in Alias::for_op_in(op, even) {
            let mut c = case.clone();
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                if c.wave.exec >> i & 1 == 1 {
                    regs.harmonise(op, false, l);
                } else {
                    // Inactive lanes keep the sentinel in every register.
                    regs.harmonise_to_vdst(op, false, l);
                }
            }
            let v = Variant {
                regs: Some(regs),
                ..first
            };
            out.push((format!("alias_{}", alias.name()), v, c));
        }
    }
    out
}

/// Resets lanes `n..` to the defaults of [`base_case`].
fn keep_lanes(c: &mut Case, n: usize) {
    let base = base_case(0).wave.lanes[0];
    for l in c.wave.lanes.iter_mut().skip(n) {
        *l = base;
    }
}

/// Lanes at the last element, just past the end, straddling the end, a 32-bit wrap-around and a
/// misaligned address, for an instruction with offset 0x20; other lanes as in `edges`.
fn edge_addresses(eb: u32, edges: &Case) -> Case {
    let mut c = edges.clone();
    c.wave.exec = 0b1_1111;
    keep_lanes(&mut c, 5);
    let finals = [LDS_SIZE - eb, LDS_SIZE, LDS_SIZE - 2, 0x10, 0x22];
    for (i, f) in finals.into_iter().enumerate() {
        c.wave.lanes[i].addr = f.wrapping_sub(0x20);
    }
    c.wave.lanes[3].addr = 0xffff_fff0; // + 0x20 wraps to 0x10
    let last = (LDS_SIZE - 8) as usize;
    c.lds.bytes_mut()[last..].copy_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]);
    c
}
