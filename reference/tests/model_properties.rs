//! Properties over random waves: the snapshot text round-trips any case and any outcome, and any
//! lane order of an order-sensitive op is accepted by the legal-outcome check (never a mismatch).

use ds_reference::isa::{runnable_ops, DsOp, Family};
use ds_reference::model::legal::{check_with_budget, Verdict};
use ds_reference::model::snapshot::{parse, render, Entry};
use ds_reference::model::{execute, execute_in_place};
use ds_reference::target::DEFAULT;
use ds_reference::wave::{Case, FpMode, Lane, Lds, Outcome, Variant, Wave, WaveSize};
use proptest::prelude::*;

fn ops() -> Vec<DsOp> {
    runnable_ops().collect()
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
        any::<[u32; 4]>(),
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
