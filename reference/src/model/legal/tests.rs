//! Legal-outcome search: other lane orders and documented float choices are accepted and named,
//! impossible results are rejected, 32 lanes on one address stay fast.

use super::*;
use crate::model::execute;
use crate::wave::{FpMode, Lds, Wave};
use ds_isa::ds::DsOp;
use ds_isa::target::DEFAULT;

fn variant(op: DsOp) -> Variant {
    Variant {
        op,
        offset0: 0,
        offset1: 0,
        lds_size: 64,
        mode: FpMode::default(),
        wave: crate::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    }
}

/// 32 lanes on address 8, lane i adding `i + 1` (all returns distinct).
fn same_address_case() -> Case {
    let mut wave = Wave::default();
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 8;
        l.data0[0] = i as u32 + 1;
        l.vdst = [0xdead_beef; 4];
    }
    Case {
        lds: Lds::zeroed(64),
        wave,
    }
}

/// The outcome of running the active lanes one by one in `order` (through the model itself).
fn run_in_order(v: &Variant, c: &Case, order: &[usize]) -> Outcome {
    let mut lds = c.lds.clone();
    let mut vdst: Vec<[u32; 4]> = c.wave.lanes.iter().map(|l| l.vdst).collect();
    let mut addr: Vec<u32> = c.wave.lanes.iter().map(|l| l.addr).collect();
    for &i in order {
        let one = Wave {
            exec: 1 << i,
            ..c.wave.clone()
        };
        crate::model::execute_in_place(
            DEFAULT,
            &v.inst(),
            v.mode,
            &one,
            &mut lds,
            &mut vdst,
            &mut addr,
        )
        .unwrap();
    }
    Outcome {
        lds,
        vdst,
        addr,
        data0: None,
        data1: None,
    }
}

#[test]
fn the_model_outcome_is_ascending() {
    let (v, c) = (variant(DsOp::AddRtnU32), same_address_case());
    let out = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    assert_eq!(
        check(DEFAULT, &v, &c, &out).unwrap(),
        Verdict::Legal {
            order: Explanation::AscendingLanes,
            float_alternatives: vec![],
            readings: vec![]
        }
    );
}

#[test]
fn descending_order_of_32_same_address_atomics_is_legal_and_named() {
    let (v, c) = (variant(DsOp::AddRtnU32), same_address_case());
    let order: Vec<usize> = (0..32).rev().collect();
    let device = run_in_order(&v, &c, &order);
    assert_eq!(device.vdst[31][0], 0, "lane 31 ran first");
    // A fixed-order check: found within one simulation of the 32 lanes.
    let verdict = check_with_budget(DEFAULT, &v, &c, &device, 64).unwrap();
    assert_eq!(
        verdict,
        Verdict::Legal {
            order: Explanation::DescendingLanes,
            float_alternatives: vec![],
            readings: vec![("A4", "descending lanes")]
        }
    );
}

#[test]
fn a_scrambled_order_of_32_same_address_atomics_is_rebuilt_from_the_returns() {
    let (v, c) = (variant(DsOp::AddRtnU32), same_address_case());
    let order: Vec<usize> = (0..32).map(|k| (k * 7 + 3) % 32).collect();
    // Greedy reconstruction: at most 32 candidates per position, nowhere near 32! orders.
    assert_order_rebuilt(&v, &c, &order, 32 * 32 * 2);
}

/// Runs `c` in the lane `order` and checks that `legal` rebuilds exactly that order from the
/// returns within `budget` steps.
fn assert_order_rebuilt(v: &Variant, c: &Case, order: &[usize], budget: usize) {
    let device = run_in_order(v, c, order);
    let verdict = check_with_budget(DEFAULT, v, c, &device, budget).unwrap();
    let want: Vec<u8> = order.iter().map(|&i| i as u8).collect();
    assert_eq!(
        verdict,
        Verdict::Legal {
            order: Explanation::Order(want),
            float_alternatives: vec![],
            readings: vec![("A4", "any lane order")]
        }
    );
}

#[test]
fn a_scrambled_order_is_reconstructed() {
    let (v, c) = (variant(DsOp::CmpstoreRtnB32), {
        let mut c = same_address_case();
        // Lane i swaps i -> i + 1 (data0 new, data1 compare): only one order succeeds fully,
        // any order is legal; the returns pin the order.
        for (i, l) in c.wave.lanes.iter_mut().enumerate() {
            l.data0[0] = (i as u32 * 7 + 3) % 32;
            l.data1[0] = (i as u32 * 5) % 32;
        }
        c
    });
    let order: Vec<usize> = (0..32).map(|k| (k * 13 + 5) % 32).collect();
    let device = run_in_order(&v, &c, &order);
    match check(DEFAULT, &v, &c, &device).unwrap() {
        Verdict::Legal {
            order: Explanation::Order(found),
            ..
        } => {
            // The found order must reproduce the device result (it may differ from `order` where
            // lanes are interchangeable).
            let found: Vec<usize> = found.into_iter().map(usize::from).collect();
            assert_eq!(run_in_order(&v, &c, &found), device);
        }
        other => panic!("expected an explicit order, got {other:?}"),
    }
}

#[test]
fn an_impossible_return_value_is_rejected() {
    let (v, c) = (variant(DsOp::AddRtnU32), same_address_case());
    let mut device = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    device.vdst[7][0] = 0x1234_5678; // no prefix of the additions sums to this
    assert!(matches!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Mismatch(_)
    ));
    // A final value no order produces is rejected too.
    let mut device = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    device.lds.set_word(8, 1);
    assert!(matches!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Mismatch(_)
    ));
}

#[test]
fn any_same_address_store_may_win() {
    let v = variant(DsOp::StoreB32);
    let mut c = same_address_case();
    c.wave.exec = 0xff;
    let device = run_in_order(&v, &c, &[0, 1, 2, 3, 4, 6, 7, 5]);
    assert_eq!(device.lds.word(8), 6, "lane 5 (data 6) landed last");
    match check(DEFAULT, &v, &c, &device).unwrap() {
        Verdict::Legal {
            order: Explanation::Order(o),
            ..
        } => assert_eq!(o.last(), Some(&5)),
        other => panic!("{other:?}"),
    }
    let mut bad = device.clone();
    bad.lds.set_word(8, 99); // no lane stores 99
    assert!(matches!(
        check(DEFAULT, &v, &c, &bad).unwrap(),
        Verdict::Mismatch(_)
    ));
    bad = device.clone();
    bad.lds.set_word(0, 1); // a byte nobody writes
    assert!(matches!(
        check(DEFAULT, &v, &c, &bad).unwrap(),
        Verdict::Mismatch(_)
    ));
}

#[test]
fn float_min_of_signed_zeros_accepts_either_zero() {
    let v = variant(DsOp::MinRtnF32);
    let mut c = same_address_case();
    c.wave.exec = 1;
    c.wave.lanes[0].data0[0] = 0x8000_0000; // -0.0 against +0.0 in memory
    let model = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    assert_eq!(model.lds.word(8), 0x8000_0000); // the model: -0 < +0
    let mut device = model.clone();
    device.lds.set_word(8, 0x0000_0000); // the DS pseudocode's literal rule keeps +0
    assert_eq!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Legal {
            order: Explanation::AscendingLanes,
            float_alternatives: vec![0],
            readings: vec![("F1", "DS pseudocode literally")]
        }
    );
    assert_eq!(
        check(DEFAULT, &v, &c, &device).unwrap().to_string(),
        "legal: ascending lane order, following F1 \"DS pseudocode literally\" (lanes 0 took \
         another reading)"
    );
    device.lds.set_word(8, 0x3f80_0000); // 1.0: not a legal min of two zeros
    assert!(matches!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Mismatch(_)
    ));
}

/// ASSUMPTIONS.md F3 and N4 read alike: a NaN sum may be either input's NaN quieted or the default
/// NaN, for `ds_add_f32` and per half for `ds_pk_add_*`, each named; any other NaN is a
/// mismatch. The model takes DATA's NaN (rocJITsu's LDS rule); memory's, the model's reading
/// before issue 29, is legal and named.
#[test]
fn nan_sums_accept_either_inputs_nan_for_add_f32_and_each_half_of_pk_add() {
    for (op, mem, data, data_nan, mem_nan, default_nan, other_nan) in [
        (
            DsOp::AddRtnF32,
            0x7fc0_0001u32,
            0x7f80_0002u32,
            0x7fc0_0002u32,
            0x7fc0_0001u32,
            0xffc0_0000u32,
            0x7fc0_0003u32,
        ),
        // hi: 1.0 + 1.0 = 2.0 in every choice; lo: mem qNaN + data sNaN.
        (
            DsOp::PkAddRtnF16,
            0x3c00_7e01,
            0x3c00_7c02,
            0x4000_7e02,
            0x4000_7e01,
            0x4000_fe00,
            0x4000_7e03,
        ),
    ] {
        let t = ds_isa::target::TARGETS
            .iter()
            .find(|t| op.info().on(*t))
            .unwrap();
        let v = variant(op);
        let mut c = same_address_case();
        c.wave.exec = 1;
        c.lds.set_word(8, mem);
        c.wave.lanes[0].data0[0] = data;
        let model = execute(t, &v.inst(), v.mode, &c).unwrap();
        assert_eq!(
            model.lds.word(8),
            data_nan,
            "{op}: the model takes DATA's NaN"
        );
        for (legal, named) in [
            (mem_nan, ("F3", "memory's NaN first")),
            (default_nan, ("F3", "default NaN for any NaN")),
        ] {
            let mut device = model.clone();
            device.lds.set_word(8, legal);
            assert_eq!(
                check(t, &v, &c, &device).unwrap(),
                Verdict::Legal {
                    order: Explanation::AscendingLanes,
                    float_alternatives: vec![0],
                    readings: vec![named]
                },
                "{op} {legal:#x}"
            );
        }
        let mut device = model.clone();
        device.lds.set_word(8, other_nan);
        assert!(
            matches!(check(t, &v, &c, &device).unwrap(), Verdict::Mismatch(_)),
            "{op}: a NaN neither input holds"
        );
    }
}

/// F6: `inf + -inf` gives the negative quiet NaN (the model, rocJITsu's); the positive one, the
/// model's before issue 29, is legal and named, in every format.
#[test]
fn either_default_nan_is_legal_and_named() {
    for (op, mem, data, negative, positive) in [
        (
            DsOp::AddRtnF32,
            0x7f80_0000u32,
            0xff80_0000u32,
            0xffc0_0000u32,
            0x7fc0_0000u32,
        ),
        (
            DsOp::PkAddRtnF16,
            0x7c00_7c00,
            0xfc00_fc00,
            0xfe00_fe00,
            0x7e00_7e00,
        ),
        (
            DsOp::PkAddRtnBf16,
            0x7f80_7f80,
            0xff80_ff80,
            0xffc0_ffc0,
            0x7fc0_7fc0,
        ),
    ] {
        let t = ds_isa::target::TARGETS
            .iter()
            .find(|t| op.info().on(*t))
            .unwrap();
        let v = variant(op);
        let mut c = same_address_case();
        c.wave.exec = 1;
        c.lds.set_word(8, mem);
        c.wave.lanes[0].data0[0] = data;
        let model = execute(t, &v.inst(), v.mode, &c).unwrap();
        assert_eq!(model.lds.word(8), negative, "{op}");
        let mut device = model.clone();
        device.lds.set_word(8, positive);
        let verdict = check(t, &v, &c, &device).unwrap();
        match &verdict {
            Verdict::Legal { readings, .. } => {
                assert_eq!(readings, &vec![("F6", "positive default NaN")], "{op}")
            }
            other => panic!("{op}: {other:?}"),
        }
    }
}

/// S4: the guides' prose leaves a permute collision's winner open; the highest sender (the
/// pseudocode's comment) is the model's, the lowest and any other sender are legal and named.
#[test]
fn permute_collisions_accept_any_colliding_sender_and_name_it() {
    let v = variant(DsOp::PermuteB32);
    let mut c = same_address_case();
    c.wave.exec = 0b111;
    for l in c.wave.lanes.iter_mut() {
        l.addr = 0;
    }
    let model = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    assert_eq!(model.vdst[0][0], 3, "highest source lane (2, data 3) wins");
    let named = |value: u32| {
        let mut device = model.clone();
        device.vdst[0][0] = value;
        check(DEFAULT, &v, &c, &device).unwrap()
    };
    let legal = |reading| Verdict::Legal {
        order: Explanation::AscendingLanes,
        float_alternatives: vec![],
        readings: vec![("S4", reading)],
    };
    assert_eq!(named(1), legal("lowest lane"));
    assert_eq!(named(2), legal("any colliding lane"));
    // A value no sender sent is a mismatch.
    assert!(matches!(named(7), Verdict::Mismatch(_)));
    // Lanes that receive nothing still get 0.
    let mut device = model.clone();
    device.vdst[1][0] = 1;
    assert!(matches!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Mismatch(_)
    ));
}

#[test]
fn inactive_lane_writes_are_rejected() {
    let v = variant(DsOp::AddRtnU32);
    let mut c = same_address_case();
    c.wave.exec = 0b1;
    let mut device = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    device.vdst[3][0] = 0;
    match check(DEFAULT, &v, &c, &device).unwrap() {
        Verdict::Mismatch(why) => assert!(why.contains("inactive lane 3"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn descending_order_of_32_non_returning_rsubs_is_recognised() {
    // No returns to reconstruct from and an order-dependent update: only the final value tells.
    let (v, c) = (variant(DsOp::RsubU32), same_address_case());
    let order: Vec<usize> = (0..32).rev().collect();
    let device = run_in_order(&v, &c, &order);
    assert_ne!(device, execute(DEFAULT, &v.inst(), v.mode, &c).unwrap());
    assert_eq!(
        check(DEFAULT, &v, &c, &device).unwrap(),
        Verdict::Legal {
            order: Explanation::DescendingLanes,
            float_alternatives: vec![],
            readings: vec![("A4", "descending lanes")]
        }
    );
}

/// The same-address case over 64 lanes (wave64): lane i adds `i + 1` at address 8.
fn same_address_case_wave64() -> (Variant, Case) {
    let size = crate::wave::WaveSize::Wave64;
    let mut wave = Wave::new(size);
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 8;
        l.data0[0] = i as u32 + 1;
        l.vdst = [0xdead_beef; 4];
    }
    let v = Variant {
        wave: size,
        ..variant(DsOp::AddRtnU32)
    };
    (
        v,
        Case {
            lds: Lds::zeroed(64),
            wave,
        },
    )
}

#[test]
fn wave64_orders_across_the_halves_are_legal_and_named() {
    let (v, c) = same_address_case_wave64();
    let out = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    assert_eq!(
        out.vdst[32][0],
        (1..=32).sum::<u32>(),
        "lane 32 follows lane 31 (W7)"
    );
    // The upper half first, then the lower: another legal order, rebuilt from the returns.
    let order: Vec<usize> = (32..64).chain(0..32).collect();
    let device = run_in_order(&v, &c, &order);
    assert_eq!(device.vdst[32][0], 0, "lane 32 ran first");
    assert_order_rebuilt(&v, &c, &order, 64 * 64 * 2);
    // Descending over all 64 lanes is named as such.
    let order: Vec<usize> = (0..64).rev().collect();
    let device = run_in_order(&v, &c, &order);
    assert_eq!(
        check_with_budget(DEFAULT, &v, &c, &device, 128).unwrap(),
        Verdict::Legal {
            order: Explanation::DescendingLanes,
            float_alternatives: vec![],
            readings: vec![("A4", "descending lanes")]
        }
    );
    // A lane of the upper half returning a value no order gives is a mismatch.
    let mut bad = run_in_order(&v, &c, &(0..64).collect::<Vec<_>>());
    bad.vdst[40][0] ^= 1;
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &bad, 64 * 64 * 2).unwrap(),
        Verdict::Mismatch(_)
    ));
}

/// A mismatch that a disagreement reading explains names it: a gfx12 wave64 bpermute by gfx11's
/// half-wave rule matches W9's "within halves", and a bf16 add that never flushes matches N3's
/// "never flushed"; a legal reading is named when followed (N3's "FP32 switch").
#[test]
fn a_mismatch_names_the_disagreement_reading_it_matches() {
    let gfx12 = ds_isa::target::Target::by_name("gfx1201").unwrap();
    let (_, v, c) = crate::model::snapshot::snapshot_corpus_wave64(DsOp::BpermuteB32)
        .into_iter()
        .find(|(n, _, _)| n == "w64_index_mirror")
        .unwrap();
    let halves = crate::model::readings::Rules::MODEL
        .with("W9", "within halves")
        .unwrap();
    let device = crate::model::execute_variant_as(gfx12, &v, halves, &c).unwrap();
    match check(gfx12, &v, &c, &device).unwrap() {
        Verdict::Mismatch(why) => assert!(
            why.contains("it matches ASSUMPTIONS.md W9 \"within halves\""),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    // bf16: 0x0001 + 0x0001 with only the FP16/64 switch flushing.
    let v = Variant {
        mode: FpMode {
            fp32_denormals: true,
            fp16_fp64_denormals: false,
            ieee: true,
        },
        ..variant(DsOp::PkAddRtnBf16)
    };
    let mut c = same_address_case();
    c.wave.exec = 1;
    c.lds.set_word(8, 0x0001_0001);
    c.wave.lanes[0].data0[0] = 0x0001_0001;
    let model = execute(gfx12, &v.inst(), v.mode, &c).unwrap();
    assert_eq!(model.lds.word(8), 0, "the FP16/64 switch flushes bf16");
    let mut device = model.clone();
    device.lds.set_word(8, 0x0002_0002);
    match check(gfx12, &v, &c, &device).unwrap() {
        Verdict::Mismatch(why) => {
            assert!(why.contains("N3 \"never flushed\""), "{why}");
            // The FP32 switch keeps them too in this mode, so it explains it as well: a legal
            // reading, and the check says so when asked with it held.
            let held = Allowed::Held(("N3", "FP32 switch"));
            assert!(check_allowed(gfx12, &v, &c, &device, held, BUDGET)
                .unwrap()
                .is_legal());
        }
        Verdict::Legal { readings, .. } => {
            assert_eq!(readings, vec![("N3", "FP32 switch")]);
        }
        other => panic!("{other:?}"),
    }
}

/// `tally` holds each question to each of its readings: on a permute collision resolved by the
/// lowest sender, "lowest lane" and "any colliding lane" are consistent, "highest lane" not.
#[test]
fn tally_says_which_readings_an_outcome_is_consistent_with() {
    let v = variant(DsOp::PermuteB32);
    let mut c = same_address_case();
    c.wave.exec = 0b111;
    for l in c.wave.lanes.iter_mut() {
        l.addr = 0;
    }
    let lowest = crate::model::readings::Rules::MODEL
        .with("S4", "lowest lane")
        .unwrap();
    let device = crate::model::execute_as(DEFAULT, &v.inst(), v.mode, lowest, &c).unwrap();
    let tallies = tally(DEFAULT, &v, &c, &device, Agreement::Legal).unwrap();
    let s4 = tallies.iter().find(|t| t.question == "S4").unwrap();
    assert_eq!(s4.consistent(), vec!["lowest lane", "any colliding lane"]);
    assert!(s4.tells_apart());
    // The model's own outcome: consistent with the highest sender and with any.
    let model = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    let tallies = tally(DEFAULT, &v, &c, &model, Agreement::Exact).unwrap();
    let slow = tally(DEFAULT, &v, &c, &model, Agreement::Legal).unwrap();
    assert_eq!(
        tallies, slow,
        "the shortcut for the model's own outcome changes no answer"
    );
    let s4 = tallies.iter().find(|t| t.question == "S4").unwrap();
    assert_eq!(s4.consistent(), vec!["highest lane", "any colliding lane"]);
}

/// The BVH stack ops' readings (ASSUMPTIONS.md B2, B3, B6, B7, B9) through the one mechanism: a
/// device following a legal reading is legal with the reading named, one following a disagreement
/// reading a mismatch naming it.
mod bvh_readings {
    use crate::model::legal::{self, Verdict};
    use crate::model::readings::Rules;
    use crate::model::snapshot::snapshot_corpus;
    use ds_isa::ds::DsOp;
    use ds_isa::target::Target;

    /// The first target that has `op`.
    fn target_of(op: DsOp) -> &'static Target {
        ds_isa::target::TARGETS
            .iter()
            .find(|t| op.info().on(*t))
            .expect("a target")
    }

    /// The check's verdict on a device that follows `question`'s `reading` on `op`'s snapshot
    /// case `name`.
    fn judged(op: DsOp, name: &str, question: &str, reading: &str) -> Verdict {
        let (_, v, c) = snapshot_corpus(op)
            .into_iter()
            .find(|(n, _, _)| n == name)
            .expect("the case");
        let t = target_of(op);
        let rules = Rules::MODEL
            .with(question, reading)
            .expect("a computed reading");
        let model = crate::model::execute_variant(t, &v, &c).unwrap();
        let device = crate::model::execute_variant_as(t, &v, rules, &c).unwrap();
        assert_ne!(model, device, "{op} {name}: the reading shows in this case");
        legal::check(t, &v, &c, &device).unwrap()
    }

    /// `judged` is legal, following exactly `question`'s `reading`.
    fn legal_naming(op: DsOp, name: &str, question: &'static str, reading: &'static str) {
        match judged(op, name, question, reading) {
            Verdict::Legal { readings, .. } => {
                assert_eq!(readings, vec![(question, reading)], "{op} {name}")
            }
            v => panic!("{op} {name}: {v}"),
        }
    }

    /// `judged` is a mismatch whose words name `question`'s disagreement reading `reading`.
    fn mismatch_naming(op: DsOp, name: &str, question: &str, reading: &str) {
        match judged(op, name, question, reading) {
            Verdict::Mismatch(why) => assert!(
                why.contains(&format!(
                    "it matches ASSUMPTIONS.md {question} \"{reading}\""
                )),
                "{op} {name}: {why}"
            ),
            v => panic!("{op} {name}: {v}"),
        }
    }

    #[test]
    fn a_legal_reading_is_accepted_and_a_disagreement_named_in_the_mismatch() {
        let gfx11 = DsOp::BvhStackRtnB32;
        legal_naming(gfx11, "stack8", "B2", "16-bit index");
        mismatch_naming(gfx11, "stack8", "B3", "guide pseudocode");
        let pop2 = DsOp::BvhStackPush8Pop2RtnB64;
        legal_naming(pop2, "push_pop", "B9", "first pop in VDST[0]");
        let push4 = DsOp::BvhStackPush4Pop1RtnB32;
        legal_naming(push4, "primitive_range", "B7", "rocJITsu push4");
        for op in [push4, DsOp::BvhStackPush8Pop1RtnB32, pop2] {
            mismatch_naming(op, "push_pop", "B7", "guide pseudocode");
            mismatch_naming(op, "size_field_zero", "B6", "size zero is 32");
        }
    }
}

/// Every op's search fits its per-lane reading combinations in a lane's choice set: under the
/// accepted readings and with any one reading held.
#[test]
fn every_ops_reading_combinations_fit_a_search() {
    use ds_isa::gen::Generation;
    let mut widest = 0;
    for gen in Generation::ALL {
        for op in DsOp::all(gen) {
            let info = op.info();
            let mut allowed = vec![Allowed::Accepted];
            for (q, placed) in readings::op_readings(info, gen) {
                allowed.extend(placed.iter().map(|p| Allowed::Held((q, p.row.reading))));
            }
            for a in allowed {
                for whole in readings::combinations(info, gen, a, Use::WholeCase, Rules::MODEL) {
                    let n = readings::combinations(info, gen, a, Use::PerLane, whole).len();
                    assert!(n <= search::MAX_PLANS, "{op:?} on {gen:?} under {a:?}: {n}");
                    widest = widest.max(n);
                }
            }
        }
    }
    assert!(widest > 1, "no op has per-lane readings to combine");
}

/// The search keeps a state of up to 64 group bytes in place (no allocation per state): eight
/// misaligned 8-byte elements at a 4-byte stride (36 bytes, the f64 ops' "addr-bank" cases that
/// fill a search's budget) included; a larger group still gets its bytes whole.
#[test]
fn a_search_state_of_a_misaligned_f64_chain_is_held_in_place() {
    use super::search::State;
    let chain = State::of(0b1011, (0..36u8).map(|b| b ^ 0x5a));
    match &chain {
        State::Small(left, b) => {
            assert_eq!(*left, 0b1011);
            assert_eq!(b[..36], (0..36u8).map(|b| b ^ 0x5a).collect::<Vec<_>>()[..]);
            assert!(b[36..].iter().all(|&x| x == 0));
        }
        State::Big(..) => panic!("36 group bytes allocated a state"),
    }
    let big = State::of(1, 0..65u8);
    assert_eq!(big, State::Big(1, (0..65u8).collect()));
}

/// The tally asks for a verdict without words: the same verdict as with them on every case of a
/// corpus slice (legal, and mismatches under readings that do not explain the outcome), only
/// without the text that says where a mismatch differs.
#[test]
fn a_verdict_without_words_is_the_verdict_with_them() {
    use crate::model::readings::{op_readings, Allowed};
    use crate::model::snapshot::snapshot_corpus;
    let mut mismatches = 0;
    for name in ["ds_min_f32", "ds_add_u32", "ds_store_b32", "ds_permute_b32"] {
        let op = DsOp::from_name(name).unwrap();
        // (Variants whose operands share registers are judged on settled registers: not here.)
        let plain = snapshot_corpus(op)
            .into_iter()
            .filter(|(_, v, _)| v.regs.is_none());
        for (_, v, c) in plain.take(40) {
            let Ok(device) = execute(DEFAULT, &v.inst(), v.mode, &c) else {
                continue;
            };
            for (q, placed) in op_readings(op.info(), DEFAULT.generation) {
                for p in placed {
                    let held = Allowed::Held((q, p.row.reading));
                    let with = check_allowed(DEFAULT, &v, &c, &device, held, TALLY_BUDGET);
                    let without = super::check_allowed_as(
                        DEFAULT,
                        &v,
                        &c,
                        &device,
                        held,
                        TALLY_BUDGET,
                        false,
                    );
                    match (with.unwrap(), without.unwrap()) {
                        (Verdict::Mismatch(w), Verdict::Mismatch(n)) => {
                            // Where the outcome differs is said with words only.
                            assert!(!w.is_empty() && !n.contains("device"), "{w:?} / {n:?}");
                            mismatches += 1;
                        }
                        (Verdict::Undecided(_), Verdict::Undecided(_)) => {}
                        (a, b) => assert_eq!(a, b, "{name} held to {q} {:?}", p.row.reading),
                    }
                }
            }
        }
    }
    assert!(
        mismatches > 0,
        "no reading was ruled out: the slice shows nothing"
    );
}
