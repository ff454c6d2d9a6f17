//! The polynomial decisions against the exhaustive answer (every order of the lanes, every
//! documented choice of every lane) on small groups, and on the wave64 groups the search alone
//! gave up on: 64 lanes of a float min/max that took the documented alternative, or left a value
//! only some order gives.

use super::super::*;
use crate::model::readings::{self, Rules};
use crate::model::{execute, rmw};
use crate::wave::{FpMode, Lds, Wave, WaveSize};
use ds_isa::ds::DsOp;
use ds_isa::target::DEFAULT;

fn variant(op: DsOp, wave: WaveSize) -> Variant {
    Variant {
        op,
        offset0: 0,
        offset1: 0,
        lds_size: 64,
        mode: FpMode::default(),
        wave,
        regs: None,
        acc: false,
    }
}

/// `data[i]` on lanes 0.. at address 8, the element holding `first`.
fn case(wave: WaveSize, first: u32, data: &[u32]) -> Case {
    let mut w = Wave::new(wave);
    w.exec = 0;
    for (i, &d) in data.iter().enumerate() {
        w.exec |= 1 << i;
        w.lanes[i].addr = 8;
        w.lanes[i].data0[0] = d;
        w.lanes[i].vdst = [0xdead_beef; 4];
    }
    let mut lds = Lds::zeroed(64);
    lds.set_word(8, first);
    Case { lds, wave: w }
}

/// Every value one lane's update may leave from `old` with DATA `d0`: the distinct results of the
/// accepted readings (ASSUMPTIONS.md F1, F2), the model's first, in the order the check tries them.
fn alternatives(v: &Variant, old: u64, d0: u64) -> Vec<u64> {
    let info = v.op.info();
    let Family::Rmw(op) = info.family else {
        panic!("an rmw op")
    };
    let gen = DEFAULT.generation;
    let all = readings::combinations(
        info,
        gen,
        readings::Allowed::Accepted,
        readings::Use::PerLane,
        Rules::MODEL,
    );
    let mut out = Vec::new();
    for r in all {
        let x = rmw::update(op, info.elem, v.mode, r, old, d0, 0);
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The outcome of the active lanes run one at a time in `steps` (lane, choice): choice 0 is the
/// model's own result, choice k the k-th of [`alternatives`].
fn run_steps(v: &Variant, c: &Case, steps: &[(usize, usize)]) -> Outcome {
    let mut out = execute(DEFAULT, &v.inst(), v.mode, c).unwrap();
    let mut lds = c.lds.clone();
    for (i, l) in c.wave.lanes.iter().enumerate() {
        out.vdst[i] = l.vdst;
    }
    let info = v.op.info();
    for &(i, k) in steps {
        let old = u64::from(lds.word(8));
        let d0 = u64::from(c.wave.lanes[i].data0[0]);
        let alts = alternatives(v, old, d0);
        lds.set_word(8, alts[k] as u32);
        if info.returns() {
            out.vdst[i][0] = old as u32;
        }
    }
    out.lds = lds;
    out
}

/// Every outcome some order and choices give (by brute force, for a few lanes).
fn every_outcome(v: &Variant, c: &Case) -> Vec<Outcome> {
    let lanes: Vec<usize> = c.wave.active_lanes().collect();
    assert!(matches!(v.op.info().family, Family::Rmw(_)), "an rmw op");
    let mut found: Vec<Outcome> = Vec::new();
    // Depth-first over (lanes left, memory, steps so far).
    fn go(
        v: &Variant,
        c: &Case,
        left: Vec<usize>,
        mem: u32,
        steps: &mut Vec<(usize, usize)>,
        found: &mut Vec<Outcome>,
    ) {
        if left.is_empty() {
            let o = run_steps(v, c, steps);
            if !found.contains(&o) {
                found.push(o);
            }
            return;
        }
        for (p, &i) in left.iter().enumerate() {
            let d0 = u64::from(c.wave.lanes[i].data0[0]);
            let alts = alternatives(v, mem.into(), d0);
            for (k, &new) in alts.iter().enumerate() {
                let mut rest = left.clone();
                rest.remove(p);
                steps.push((i, k));
                go(v, c, rest, new as u32, steps, found);
                steps.pop();
            }
        }
    }
    go(v, c, lanes, c.lds.word(8), &mut Vec::new(), &mut found);
    found
}

/// Values that make float min/max choose: zeros, NaNs (quiet and signalling), infinities,
/// denormals, ordinary numbers.
const SPECIAL: [u32; 12] = [
    0x0000_0000,
    0x8000_0000,
    0x7fc0_0000,
    0x7f80_0001,
    0xffc0_1234,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0001,
    0x8000_0010,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
];

fn rng(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

#[test]
fn small_groups_are_decided_as_the_exhaustive_search_decides() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let ops = [
        DsOp::MinF32,
        DsOp::MaxF32,
        DsOp::MinRtnF32,
        DsOp::MaxRtnF32,
        DsOp::MinI32,
        DsOp::AddRtnU32,
        DsOp::RsubRtnU32,
    ];
    let modes = [
        FpMode::default(),
        FpMode {
            fp32_denormals: false,
            fp16_fp64_denormals: false,
            ieee: false,
        },
    ];
    let (mut legal, mut illegal) = (0, 0);
    for round in 0..400 {
        let op = ops[round % ops.len()];
        let mut v = variant(op, WaveSize::Wave32);
        v.mode = modes[(round / ops.len()) % 2];
        let n = 2 + rng(&mut x) as usize % 4;
        let pick = |x: &mut u64| SPECIAL[rng(x) as usize % SPECIAL.len()];
        let data: Vec<u32> = (0..n).map(|_| pick(&mut x)).collect();
        let c = case(WaveSize::Wave32, pick(&mut x), &data);
        let all = every_outcome(&v, &c);
        // Each legal outcome is accepted...
        for o in &all {
            match check(DEFAULT, &v, &c, o).unwrap() {
                Verdict::Legal { .. } => legal += 1,
                other => panic!("{op} {data:x?}: a legal outcome judged {other}"),
            }
        }
        // ...and outcomes one word away from them are decided as the brute force says.
        for o in &all {
            let mut wrong = o.clone();
            wrong.lds.set_word(8, pick(&mut x));
            if op.info().returns() && rng(&mut x).is_multiple_of(2) {
                wrong = o.clone();
                let lane = rng(&mut x) as usize % n;
                wrong.vdst[lane][0] = pick(&mut x);
            }
            let verdict = check(DEFAULT, &v, &c, &wrong).unwrap();
            match (all.contains(&wrong), &verdict) {
                (true, Verdict::Legal { .. }) => legal += 1,
                (false, Verdict::Mismatch(_)) => illegal += 1,
                (want, got) => panic!("{op} {data:x?} -> {wrong:?}: legal {want}, judged {got}"),
            }
        }
    }
    assert!(
        legal > 500 && illegal > 200,
        "{legal} legal, {illegal} illegal"
    );
}

/// 64 lanes of distinct data on one element holding a NaN.
fn nan_case(op: DsOp) -> (Variant, Case, Vec<u32>) {
    let data: Vec<u32> = (0..64).map(|i| 0x3f80_0000 + (i * 0x1_0000)).collect();
    let v = variant(op, WaveSize::Wave64);
    let c = case(WaveSize::Wave64, 0x7fc0_0000, &data);
    (v, c, data)
}

#[test]
fn wave64_float_min_max_that_took_the_alternative_everywhere_is_legal_at_once() {
    for op in [DsOp::MinF32, DsOp::MaxF32, DsOp::MinRtnF32] {
        let (v, c, _) = nan_case(op);
        // The literal rule keeps a NaN in memory: every lane took the alternative.
        let steps: Vec<(usize, usize)> = (0..64).map(|i| (i, 1)).collect();
        let device = run_steps(&v, &c, &steps);
        assert_eq!(device.lds.word(8), 0x7fc0_0000);
        // With the full budget: the search alone gives up on this ("undecided after 200000
        // lane steps"), the alternatives tried for every lane first find it in one run.
        match check(DEFAULT, &v, &c, &device).unwrap() {
            Verdict::Legal {
                float_alternatives, ..
            } => assert_eq!(float_alternatives.len(), 64, "{op}"),
            other => panic!("{op}: {other}"),
        }
    }
}

#[test]
fn wave64_float_min_max_leaving_any_lanes_value_is_decided() {
    let (v, c, data) = nan_case(DsOp::MinF32);
    // Lane 40's value last: the lanes below it kept the NaN (literal rule), lane 40 took it
    // (the model's rule), the lanes above lost to it. Legal, and found without the search.
    let mut steps: Vec<(usize, usize)> = (0..64).filter(|&i| i != 40).map(|i| (i, 1)).collect();
    steps.push((40, 0));
    let device = run_steps(&v, &c, &steps);
    assert_eq!(device.lds.word(8), data[40]);
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &device, 64).unwrap(),
        Verdict::Legal { .. }
    ));
    // A value no lane and no NaN gives: no order explains it, decided without the search.
    let mut bad = device.clone();
    bad.lds.set_word(8, 0x4100_0000);
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &bad, 64).unwrap(),
        Verdict::Mismatch(_)
    ));
    // Without a NaN in memory the smallest value must win: lane 40's is no min.
    let c = case(WaveSize::Wave64, 0x4f00_0000, &data);
    let mut not_min = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
    not_min.lds.set_word(8, data[40]);
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &not_min, 64).unwrap(),
        Verdict::Mismatch(_)
    ));
}

#[test]
fn wave64_returning_atomics_in_any_order_are_rebuilt_from_their_returns() {
    // 64 lanes adding 0 or 1 (many lanes see the same value: the search branches), in a
    // scrambled order: the Euler trail through the returns finds an order at once.
    let data: Vec<u32> = (0..64).map(|i| (i % 3 == 0) as u32).collect();
    let v = variant(DsOp::AddRtnU32, WaveSize::Wave64);
    let c = case(WaveSize::Wave64, 5, &data);
    let order: Vec<(usize, usize)> = (0..64).map(|k| ((k * 37 + 11) % 64, 0)).collect();
    let device = run_steps(&v, &c, &order);
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &device, 64).unwrap(),
        Verdict::Legal { .. }
    ));
    let mut bad = device.clone();
    bad.vdst[17][0] += 100;
    assert!(matches!(
        check_with_budget(DEFAULT, &v, &c, &bad, 64).unwrap(),
        Verdict::Mismatch(_)
    ));
}

#[test]
fn an_order_dependent_update_without_returns_may_stay_undecided() {
    // 64 reverse subtractions without returns: the result is a signed sum of the lanes' data
    // whose signs the order picks; which split gives the device's value is subset sum. With a
    // small budget the search gives up: undecided, never a mismatch.
    let data: Vec<u32> = (0..64)
        .map(|i| (0x0001_2345 * (i + 1)) ^ (i << 20))
        .collect();
    let v = variant(DsOp::RsubU32, WaveSize::Wave64);
    let c = case(WaveSize::Wave64, 7, &data);
    let order: Vec<(usize, usize)> = (0..64).map(|k| ((k * 29 + 3) % 64, 0)).collect();
    let device = run_steps(&v, &c, &order);
    match check_with_budget(DEFAULT, &v, &c, &device, 1000).unwrap() {
        Verdict::Undecided(_) | Verdict::Legal { .. } => {}
        other => panic!("a legal outcome judged {other}"),
    }
}
