//! Properties over random waves: the snapshot text round-trips any case and any outcome, and any
//! lane order of an order-sensitive op is accepted by the legal-outcome check (never a mismatch).

use ds_isa::ds::{runnable_ops, DsOp, Family};
use ds_isa::gen::Generation;
use ds_isa::target::DEFAULT;
use ds_reference::model::legal::{check_with_budget, Verdict};
use ds_reference::model::snapshot::{parse, render, Entry};
use ds_reference::model::{execute, execute_in_place};
use ds_reference::wave::{Case, FpMode, Lane, Lds, Outcome, Variant, Wave, WaveSize};
use proptest::prelude::*;

fn ops() -> Vec<DsOp> {
    runnable_ops(Generation::Gfx11).collect()
}

/// Addresses drawn from a few dwords (collisions likely), sometimes misaligned or out of range.
fn addr() -> impl Strategy<Value = u32> {
    prop_oneof![
        8 => (0u32..8).prop_map(|k| 4 * k),
        1 => 0u32..40,
        1 => any::<u32>(),
    ]
}

fn lane() -> impl Strategy<Value = Lane> {
    (
        addr(),
        any::<[u32; 4]>(),
        any::<[u32; 8]>(),
        any::<[u32; 4]>(),
    )
        .prop_map(|(addr, data0, data1, vdst)| Lane {
            addr,
            data0,
            data1,
            vdst,
        })
}

prop_compose! {
    fn variant_case()(
        op in proptest::sample::select(ops()),
        offset0 in prop_oneof![3 => Just(0u8), 1 => any::<u8>()],
        offset1 in prop_oneof![3 => Just(0u8), 1 => any::<u8>()],
        words in 4u32..64,
        mode in (any::<bool>(), any::<bool>(), any::<bool>()),
        wave_size in proptest::sample::select(WaveSize::ALL.to_vec()),
        exec in any::<u64>(),
        m0 in prop_oneof![Just(0u32), any::<u32>()],
        lanes in proptest::collection::vec(lane(), WaveSize::Wave64.lanes()),
        bytes in proptest::collection::vec(any::<u8>(), 256),
    ) -> (Variant, Case) {
        let size = 4 * words;
        let lds = Lds::from_bytes(bytes[..size as usize].to_vec());
        let mode = FpMode { fp32_denormals: mode.0, fp16_fp64_denormals: mode.1, ieee: mode.2 };
        let v = Variant { op, offset0, offset1, lds_size: size, mode, wave: wave_size, regs: None, acc: false };
        let mut lanes = lanes;
        lanes.truncate(wave_size.lanes());
        let wave = Wave { exec: exec & wave_size.full_exec(), m0, lanes };
        (v, Case { lds, wave })
    }
}

/// Runs the active lanes one at a time in `order`.
fn run_in_order(v: &Variant, c: &Case, order: &[usize]) -> Outcome {
    let mut lds = c.lds.clone();
    let mut vdst: Vec<[u32; 4]> = c.wave.lanes.iter().map(|l| l.vdst).collect();
    let mut addr: Vec<u32> = c.wave.lanes.iter().map(|l| l.addr).collect();
    for &i in order {
        let one = Wave {
            exec: 1 << i,
            ..c.wave.clone()
        };
        execute_in_place(
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn snapshot_text_round_trips_any_case((v, c) in variant_case(), scribble in any::<(usize, u32)>()) {
        let mut outcome = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
        // A device may write anything anywhere: the format must still carry it.
        let n = outcome.vdst.len();
        outcome.vdst[scribble.0 % n][scribble.0 % 4] ^= scribble.1;
        let entries = vec![Entry { name: "random".into(), variant: v, case: c, outcome }];
        let text = render(v.op, &entries);
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, entries);
    }

    #[test]
    fn every_lane_order_is_legal((v, c) in variant_case(), seed in any::<u64>()) {
        let per_lane = matches!(
            v.op.info().family,
            Family::Rmw(_) | Family::Store(_) | Family::CondXchg32 | Family::StoreAddTid | Family::BvhStack
        );
        prop_assume!(per_lane);
        let mut order: Vec<usize> = c.wave.active_lanes().collect();
        // A seeded shuffle (Fisher-Yates with a xorshift).
        let mut x = seed | 1;
        for k in (1..order.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            order.swap(k, (x % (k as u64 + 1)) as usize);
        }
        let device = run_in_order(&v, &c, &order);
        let t = std::time::Instant::now();
        // A small budget keeps the test quick; Undecided is allowed, a mismatch is not.
        let verdict = check_with_budget(DEFAULT, &v, &c, &device, 20_000).unwrap();
        if std::env::var("DS_PROP_VERBOSE").is_ok() {
            eprintln!("VERDICT {} {:?} {:?}", v.op, t.elapsed(), std::mem::discriminant(&verdict));
        }
        let shown = render(v.op, &[Entry { name: "device".into(), variant: v, case: c.clone(), outcome: device.clone() }]);
        prop_assert!(
            !matches!(verdict, Verdict::Mismatch(_)),
            "{} order {:?}: {:?}\n{}", v.op, order, verdict, shown
        );
    }
}

/// The register atomic that computes what src2 op `op` computes: the same update and element type,
/// one address, in the src2 op's generation (`ds_write_src2_b32` <-> `ds_wrxchg_rtn_b32`).
fn register_twin(op: DsOp) -> DsOp {
    let info = op.info();
    let Family::Src2(rmw) = info.family else {
        panic!("{op} is not a src2 op")
    };
    ds_isa::ds::DS_TABLE
        .iter()
        .find(|r| {
            r.family == Family::Rmw(rmw)
                && r.elem == info.elem
                && !r.two_addresses()
                && r.in_generation(ds_isa::ds::Generation::Gfx10)
        })
        .unwrap_or_else(|| panic!("{op} has a register twin"))
        .op
}

fn src2_ops() -> Vec<DsOp> {
    ds_isa::ds::DS_TABLE
        .iter()
        .filter(|r| matches!(r.family, Family::Src2(_)))
        .map(|r| r.op)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A src2 op leaves the LDS its register twin leaves when DATA0 holds the element at
    /// `model::src2::second_address` (read by the model's out-of-range rule): the src2 form is the
    /// register form with its operand fetched from LDS, for every address, offset and FP mode.
    #[test]
    fn a_src2_op_is_its_register_twin_with_data0_from_lds(
        op in proptest::sample::select(src2_ops()),
        a in prop_oneof![4 => (0u32..64).prop_map(|k| 4 * k), 1 => any::<u32>()],
        offset in prop_oneof![2 => 0u16..8, 1 => 0x7ff0u16..0x8000, 1 => any::<u16>()],
        mode in (any::<bool>(), any::<bool>(), any::<bool>()),
        bytes in proptest::collection::vec(any::<u8>(), 256),
    ) {
        let target = ds_isa::target::Target::by_name("gfx1010").unwrap();
        let mode = FpMode { fp32_denormals: mode.0, fp16_fp64_denormals: mode.1, ieee: mode.2 };
        let mut wave = Wave { exec: 1, ..Wave::new(WaveSize::Wave32) };
        wave.lanes[0].addr = a;
        let case = Case { lds: Lds::from_bytes(bytes), wave };
        let src2 = ds_isa::ds::DsInst {
            offset0: offset as u8,
            offset1: (offset >> 8) as u8,
            ..ds_isa::ds::DsInst::new(op)
        };
        let got = execute(target, &src2, mode, &case).unwrap();
        let eb = op.info().elem.bytes();
        let b = ds_reference::model::src2::second_address(a, offset);
        let v = ds_reference::model::mem::read_elem(case.lds.bytes(), b, eb);
        let mut twin_case = case.clone();
        twin_case.wave.lanes[0].data0 = [v as u32, (v >> 32) as u32, 0, 0];
        let twin = execute(target, &ds_isa::ds::DsInst::new(register_twin(op)), mode, &twin_case)
            .unwrap();
        prop_assert_eq!(&got.lds, &twin.lds, "{} at {:#x} offset {:#x}", op, a, offset);
        // No register changes.
        prop_assert_eq!(&got.vdst, &case.wave.lanes.iter().map(|l| l.vdst).collect::<Vec<_>>());
    }
}
