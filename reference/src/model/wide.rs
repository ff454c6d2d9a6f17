//! What changes in wave64: the model itself ([`super::execute`]) runs a wave of any size (the
//! case's lanes, a 64-bit EXEC); this module holds the named choices' tests.
//!
//! What changes in wave64 is a named choice each, in ASSUMPTIONS.md W1-W10: the permutes work
//! within 32-lane halves on gfx11 (W1-W2) and over the whole wave on gfx12 (W9-W10, the target's
//! `Generation::permute_span`), swizzles within 32-lane groups (W3-W4), append/consume count the
//! whole 64-bit EXEC once (W5), addtid addresses run to lane 63 (W6), same-address lanes run in
//! ascending order across both halves (W7), the BVH stack is per lane and does not see the wave
//! size (W8).
//!
//! Sources: AMD "RDNA3 Instruction Set Architecture Reference Guide", the DS pseudocode (written
//! for `WAVE64 ? 63 : 31` lanes, the permute lane index `% 32`); Mesa ACO
//! (`aco_instruction_selection.cpp`, `emit_bpermute`: on GFX10 to GFX11.5 in wave64 a full-wave
//! bpermute is emulated from two half-wave `ds_bpermute_b32` and `v_permlane64_b32`; "wave32 or
//! GFX8-9, GFX12+: bpermute works normally"); LLVM `GCNSubtarget::supportsWaveWideBPermute()`
//! (GFX9 and older, GFX12, or wave32); Mesa RADV (`radv_build_bvh_stack_rtn_addr`: the
//! stack stride is 32 entries, so the upper 32 lanes of a wave64 need their own base).

#[cfg(test)]
mod tests {
    use crate::model::{execute, lanes, snapshot::snapshot_corpus};
    use crate::wave::{Case, FpMode, Lane, Lds, Outcome, Variant, Wave, WaveSize};
    use ds_isa::ds::{DsInst, DsOp, Generation};
    use ds_isa::gen::PermuteSpan;
    use ds_isa::target::{Target, DEFAULT};

    const W64: WaveSize = WaveSize::Wave64;

    /// The first target of the newest generation whose permutes take `span` (gfx11 or gfx12,
    /// whose ops these tests run).
    fn target_with(span: PermuteSpan) -> &'static Target {
        Generation::ALL
            .into_iter()
            .rev()
            .find(|g| g.permute_span() == span)
            .and_then(|g| g.targets().next())
            .expect("a target of each span")
    }

    /// Lane i: addr `addr(i)`, data0 `0x1000 + i`, vdst sentinel `0xdead0000 + i`.
    fn wave64(exec: u64, addr: impl Fn(usize) -> u32) -> Wave {
        let lanes = (0..W64.lanes())
            .map(|i| Lane {
                addr: addr(i),
                data0: [0x1000 + i as u32, 0, 0, 0],
                data1: [0; 8],
                vdst: [0xdead_0000 + i as u32; 4],
            })
            .collect();
        Wave { exec, m0: 0, lanes }
    }

    fn run(op: DsOp, offset: u16, lds: &Lds, wave: &Wave) -> Outcome {
        let t = if op.info().on(DEFAULT) {
            DEFAULT
        } else {
            target_with(PermuteSpan::Wave)
        };
        run_on(t, op, offset, lds, wave)
    }

    fn run_on(t: &Target, op: DsOp, offset: u16, lds: &Lds, wave: &Wave) -> Outcome {
        let inst = DsInst {
            offset0: offset as u8,
            offset1: (offset >> 8) as u8,
            ..DsInst::new(op)
        };
        let case = Case {
            lds: lds.clone(),
            wave: wave.clone(),
        };
        execute(t, &inst, FpMode::default(), &case).expect("modelled")
    }

    /// A wave64 whose upper half is inactive leaves what the wave32 case leaves, for every snapshot
    /// case (but gfx12's fetch-inactive bpermute, which may read the inactive upper half): the
    /// widening changes nothing below lane 32.
    #[test]
    fn an_inactive_upper_half_leaves_the_wave32_result() {
        let mut cases = 0;
        for op in ds_isa::ds::runnable_ops(Generation::Gfx11) {
            for (name, v, c) in snapshot_corpus(op) {
                let Ok(want) = execute(DEFAULT, &v.inst(), v.mode, &c) else {
                    continue;
                };
                if v.regs.is_some() || op == DsOp::BpermuteFiB32 {
                    continue;
                }
                let mut wide = c.clone();
                wide.wave.lanes.resize(W64.lanes(), Lane::default());
                let got =
                    execute(DEFAULT, &v.inst(), v.mode, &wide).expect("modelled in wave64 too");
                let half = WaveSize::Wave32.lanes();
                assert_eq!(got.lds, want.lds, "{op} case {name}: LDS");
                assert_eq!(got.vdst[..half], want.vdst[..], "{op} case {name}: vdst");
                assert_eq!(got.addr[..half], want.addr[..], "{op} case {name}: addr");
                cases += 1;
            }
        }
        assert!(cases > 300, "the corpus ran: {cases} cases");
    }

    #[test]
    fn a_wave_has_its_sizes_lanes_and_exec() {
        let v = Variant {
            op: DsOp::AddU32,
            offset0: 0,
            offset1: 0,
            lds_size: 512,
            mode: FpMode::default(),
            wave: W64,
            regs: None,
            acc: false,
        };
        assert!(v.check_wave(&Wave::new(W64)).is_ok());
        let e = v.check_wave(&Wave::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a wave64 case has 64 lane objects, this one has 32"),
            "{e}"
        );
        let v32 = Variant {
            wave: WaveSize::Wave32,
            ..v
        };
        let e = v32
            .check_wave(&Wave {
                exec: 1 << 32,
                ..Wave::default()
            })
            .unwrap_err();
        assert!(e.to_string().contains("EXEC 0x100000000"), "{e}");
    }

    /// W1: a lane reads lane `index % 32` of its own half.
    #[test]
    fn w1_bpermute_reads_within_the_lanes_half() {
        let lds = Lds::zeroed(512);
        // Lane i names lane 63 - i (byte address 4 * (63 - i)).
        let out = run(
            DsOp::BpermuteB32,
            0,
            &lds,
            &wave64(u64::MAX, |i| 4 * (63 - i as u32)),
        );
        // Lane 0 names 63: bits [6:2] are 31, its own (lower) half: lane 31.
        assert_eq!(out.vdst[0][0], 0x1000 + 31);
        // Lane 32 names 31: the upper half's lane 31, i.e. lane 63.
        assert_eq!(out.vdst[32][0], 0x1000 + 63);
        // Lane 31 names 32: index 0 of its half, lane 0; lane 63 names 0: lane 32.
        assert_eq!(out.vdst[31][0], 0x1000);
        assert_eq!(out.vdst[63][0], 0x1000 + 32);
        // Only the upper half active: lane 40 naming 1 reads lane 33, not inactive lane 1.
        let out = run(
            DsOp::BpermuteB32,
            0,
            &lds,
            &wave64(0xffff_ffff_0000_0000, |_| 4),
        );
        assert_eq!(out.vdst[40][0], 0x1000 + 33);
        assert_eq!(out.vdst[1][0], 0xdead_0001, "inactive lanes keep vdst");
    }

    /// W9 (gfx12's fetch-inactive form): the index names any of the 64 lanes.
    #[test]
    fn w9_bpermute_fi_reads_the_whole_wave() {
        let out = run(
            DsOp::BpermuteFiB32,
            0,
            &Lds::zeroed(512),
            &wave64(1, |_| 4 * 40),
        );
        assert_eq!(out.vdst[0][0], 0x1000 + 40);
    }

    /// W2: a lane sends to lane `index % 32` of its own half; halves never collide.
    #[test]
    fn w2_permute_sends_within_the_lanes_half() {
        // Every lane names lane 5 (+32 = 37: the same lane of a half).
        let out = run(
            DsOp::PermuteB32,
            0,
            &Lds::zeroed(512),
            &wave64(u64::MAX, |i| if i < 32 { 4 * 5 } else { 4 * 37 }),
        );
        assert_eq!(
            out.vdst[5][0],
            0x1000 + 31,
            "highest sender of the lower half"
        );
        assert_eq!(
            out.vdst[37][0],
            0x1000 + 63,
            "highest sender of the upper half"
        );
        assert_eq!(out.vdst[6][0], 0, "a lane that receives nothing gets 0");
    }

    /// W9: on a generation whose permutes span the wave (gfx12), lane i reads lane
    /// `(ADDR + offset)[7:2]` of the whole wave: the cases W1 names read the other way.
    #[test]
    fn w9_bpermute_reads_the_whole_wave_where_the_generation_says_so() {
        let t = target_with(PermuteSpan::Wave);
        let lds = Lds::zeroed(512);
        let mirror = wave64(u64::MAX, |i| 4 * (63 - i as u32));
        let out = run_on(t, DsOp::BpermuteB32, 0, &lds, &mirror);
        assert_eq!(out.vdst[0][0], 0x1000 + 63, "lane 0 reads lane 63");
        assert_eq!(out.vdst[32][0], 0x1000 + 31, "lane 32 reads lane 31");
        // Index (i + 32) % 64: every lane reads the other half's lane of its number.
        let cross = wave64(u64::MAX, |i| 4 * ((i as u32 + 32) % 64));
        let out = run_on(t, DsOp::BpermuteB32, 0, &lds, &cross);
        assert_eq!(out.vdst[5][0], 0x1000 + 37);
        assert_eq!(out.vdst[37][0], 0x1000 + 5);
        // Only the upper half active: lane 40 naming lane 1 (inactive) reads 0.
        let upper = wave64(0xffff_ffff_0000_0000, |_| 4);
        let out = run_on(t, DsOp::BpermuteB32, 0, &lds, &upper);
        assert_eq!(out.vdst[40][0], 0);
        // Index 64 + i: bits [7:2] wrap to lane i.
        let past = wave64(u64::MAX, |i| 4 * (64 + i as u32));
        let out = run_on(t, DsOp::BpermuteB32, 0, &lds, &past);
        assert_eq!(out.vdst[40][0], 0x1000 + 40);
        // The same case on a gfx11 target: W1's answer.
        let out = run_on(
            target_with(PermuteSpan::Halves),
            DsOp::BpermuteB32,
            0,
            &lds,
            &mirror,
        );
        assert_eq!(out.vdst[0][0], 0x1000 + 31);
    }

    /// W10: on a generation whose permutes span the wave, a lane sends to any of the 64 lanes and
    /// the highest sender of the whole wave wins.
    #[test]
    fn w10_permute_sends_over_the_whole_wave_where_the_generation_says_so() {
        let t = target_with(PermuteSpan::Wave);
        let out = run_on(
            t,
            DsOp::PermuteB32,
            0,
            &Lds::zeroed(512),
            &wave64(u64::MAX, |i| if i < 32 { 4 * 5 } else { 4 * 37 }),
        );
        assert_eq!(out.vdst[5][0], 0x1000 + 31);
        assert_eq!(out.vdst[37][0], 0x1000 + 63);
        // Lanes 0..31 name 32..63 and back: the halves swap.
        let cross = wave64(u64::MAX, |i| 4 * ((i as u32 + 32) % 64));
        let out = run_on(t, DsOp::PermuteB32, 0, &Lds::zeroed(512), &cross);
        assert_eq!(out.vdst[33][0], 0x1000 + 1);
        assert_eq!(out.vdst[1][0], 0x1000 + 33);
        // Upper half active, every lane naming lane 1: lane 1 is inactive, so nobody receives.
        let out = run_on(
            t,
            DsOp::PermuteB32,
            0,
            &Lds::zeroed(512),
            &wave64(!0u64 << 32, |_| 4),
        );
        assert_eq!(out.vdst[33][0], 0);
        assert_eq!(
            out.vdst[1][0], 0xdead_0001,
            "inactive lane 1 keeps its vdst"
        );
    }

    /// In a wave32 the two spans are one: every permute case reads the same on both generations.
    #[test]
    fn in_wave32_the_permute_span_changes_nothing() {
        let (half, whole) = (
            target_with(PermuteSpan::Halves),
            target_with(PermuteSpan::Wave),
        );
        for op in [DsOp::BpermuteB32, DsOp::PermuteB32] {
            for (name, v, c) in snapshot_corpus(op) {
                let a = execute(half, &v.inst(), v.mode, &c).unwrap();
                let b = execute(whole, &v.inst(), v.mode, &c).unwrap();
                assert_eq!(a, b, "{op} case {name}");
            }
        }
    }

    /// W3, W4: every swizzle mode works within a half.
    #[test]
    fn w3_w4_swizzle_within_the_half() {
        // Bit mask: and 0x1f, xor 0x10 (offset[14:10]) swaps the 16-lane groups of one half.
        let swap16 = 0x1f | 0x10 << 10;
        assert_eq!(lanes::swizzle_source(32, swap16, 40), 56);
        assert_eq!(lanes::swizzle_source(32, swap16, 56), 40);
        assert_eq!(lanes::swizzle_source(32, swap16, 8), 24);
        // or 0x1f (offset[9:5]) reads the last lane of the half.
        assert_eq!(lanes::swizzle_source(32, 0x1f << 5, 3), 31);
        assert_eq!(lanes::swizzle_source(32, 0x1f << 5, 33), 63);
        // Quad permute 0x8000 | [3,2,1,0]: lane 33 (quad lane 1) reads lane 34.
        let rev = 0x8000 | 3 | 2 << 2 | 1 << 4;
        assert_eq!(lanes::swizzle_source(32, rev, 33), 34);
        // Rotate left by 1 (0xC000 | 1 << 5): lane 63 wraps to lane 32, lane 31 to lane 0.
        assert_eq!(lanes::swizzle_source(32, 0xc000 | 1 << 5, 63), 32);
        assert_eq!(lanes::swizzle_source(32, 0xc000 | 1 << 5, 31), 0);
        // FFT mask 0: lane 33 (half lane 1, reversed 16) reads lane 48.
        assert_eq!(lanes::swizzle_source(32, 0xe000, 33), 48);
        // The op: only the upper half active, lane 32 reading lane 63 through or 0x1f.
        let out = run(
            DsOp::SwizzleB32,
            0x1f << 5,
            &Lds::zeroed(512),
            &wave64(0xffff_ffff_0000_0000, |i| 0xa000 + i as u32),
        );
        assert_eq!(out.vdst[32][0], 0xa000 + 63);
    }

    /// W5: one update by the popcount of the 64-bit EXEC; every active lane gets the old value.
    #[test]
    fn w5_append_counts_the_64_bit_exec_once() {
        let mut lds = Lds::zeroed(512);
        lds.set_word(16, 100);
        for (exec, added) in [
            (u64::MAX, 64),
            (0xffff_ffff_0000_0000, 32),
            (1 << 63 | 1, 2),
        ] {
            let out = run(DsOp::Append, 16, &lds, &wave64(exec, |_| 0));
            assert_eq!(out.lds.word(16), 100 + added, "EXEC {exec:#x}");
            assert_eq!(out.vdst[63][0], 100);
            let out = run(DsOp::Consume, 16, &lds, &wave64(exec, |_| 0));
            assert_eq!(out.lds.word(16), 100 - added, "EXEC {exec:#x}");
        }
    }

    /// W6: addtid addresses `M0[15:0] + offset + lane * 4` up to lane 63.
    #[test]
    fn w6_addtid_runs_to_lane_63() {
        let wave = wave64(1 << 63 | 1 << 32, |_| 0);
        let out = run(DsOp::StoreAddtidB32, 4, &Lds::zeroed(512), &wave);
        assert_eq!(out.lds.word(4 + 63 * 4), 0x1000 + 63);
        assert_eq!(out.lds.word(4 + 32 * 4), 0x1000 + 32);
        let out = run(DsOp::LoadAddtidB32, 4, &out.lds, &wave);
        assert_eq!(out.vdst[63][0], 0x1000 + 63);
    }

    /// W7: same-address lanes run in ascending order across the halves.
    #[test]
    fn w7_same_address_lanes_run_in_ascending_order_across_halves() {
        let exec = 1 << 31 | 1 << 32 | 1 << 40;
        let out = run(DsOp::StoreB32, 0, &Lds::zeroed(512), &wave64(exec, |_| 8));
        assert_eq!(
            out.lds.word(8),
            0x1000 + 40,
            "the highest lane's store lands last"
        );
        let out = run(DsOp::AddRtnU32, 0, &Lds::zeroed(512), &wave64(exec, |_| 8));
        assert_eq!(out.vdst[31][0], 0);
        assert_eq!(out.vdst[32][0], 0x1000 + 31, "lane 32 follows lane 31");
        assert_eq!(out.vdst[40][0], 0x1000 + 31 + 0x1000 + 32);
    }

    /// Every wave64 case ASSUMPTIONS.md names to settle a W entry (`w64_...`) is a case of the
    /// wave64 snapshot corpus of an op the entry applies to: the closing list cannot name a case
    /// that does not run.
    #[test]
    fn the_cases_named_to_settle_w1_to_w10_are_in_the_wave64_corpus() {
        use crate::model::questions;
        use crate::model::snapshot::snapshot_corpus_wave64;
        let mut named = 0;
        for q in questions::all()
            .into_iter()
            .filter(|q| q.id.starts_with('W'))
        {
            let settles = q.settles.clone().unwrap_or_default();
            let cases: Vec<&str> = settles
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|c| c.starts_with("w64_"))
                .collect();
            let id = q.id.as_str();
            let ops: Vec<DsOp> = Generation::ALL
                .into_iter()
                .flat_map(|g| {
                    ds_isa::ds::runnable_ops(g)
                        .filter(move |op| questions::for_op(*op, g).iter().any(|x| x.id == id))
                })
                .collect();
            for c in cases {
                assert!(
                    ops.iter().any(|&op| snapshot_corpus_wave64(op)
                        .iter()
                        .any(|(name, _, _)| name == c)),
                    "{}: case `{c}` is in no wave64 corpus of its ops",
                    q.id
                );
                named += 1;
            }
        }
        assert!(named >= 15, "{named} cases named");
    }
}
