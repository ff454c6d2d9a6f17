//! Model throughput: lane-ops per second of `execute_in_place` per family, on one core.
//! Target (issue 3): >= 100 M lane-ops/s for 32-bit integer atomics on unique addresses.
//! Run with `cargo bench -p ds-reference`.

use ds_isa::ds::{DsInst, DsOp};
use ds_isa::target::DEFAULT;
use ds_reference::model::execute_in_place;
use ds_reference::wave::{FpMode, Lds, Wave};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Lane addresses: unique per lane (stride `stride` bytes), or all on one address.
fn wave(stride: u32) -> Wave {
    let mut w = Wave::default();
    for (i, l) in w.lanes.iter_mut().enumerate() {
        l.addr = stride * i as u32;
        l.data0 = [i as u32 + 1, 7, 0x3f80_0000, 9];
        l.data1 = [3, 5, 7, 11, 0, 0, 0, 0];
    }
    w
}

/// Runs `op` repeatedly for about `budget` and returns active lane-ops per second.
fn measure(op: DsOp, offset1: u8, w: &Wave, budget: Duration) -> f64 {
    let inst = DsInst {
        offset1,
        ..DsInst::new(op)
    };
    let mode = FpMode::default();
    let mut lds = Lds::zeroed(64 * 1024);
    let mut vdst = vec![[0u32; 4]; w.lanes.len()];
    let mut addr = vec![0u32; w.lanes.len()];
    let mut iters: u64 = 0;
    let start = Instant::now();
    while start.elapsed() < budget {
        for _ in 0..1000 {
            execute_in_place(
                DEFAULT,
                &inst,
                mode,
                black_box(w),
                &mut lds,
                &mut vdst,
                &mut addr,
            )
            .expect("runnable op");
        }
        iters += 1000;
    }
    black_box((&lds, &vdst));
    (iters * u64::from(w.exec.count_ones())) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let budget = Duration::from_millis(
        std::env::var("DS_BENCH_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(400),
    );
    let unique4 = wave(4);
    let unique8 = wave(8);
    let unique16 = wave(16);
    let same = wave(0);
    let rows: &[(&str, DsOp, &Wave)] = &[
        (
            "int32 atomic, unique addresses (target >= 100 M)",
            DsOp::AddRtnU32,
            &unique4,
        ),
        (
            "int32 atomic no-return, unique addresses",
            DsOp::AddU32,
            &unique4,
        ),
        ("int32 atomic, one address", DsOp::AddRtnU32, &same),
        (
            "int32 cmpstore, unique addresses",
            DsOp::CmpstoreRtnB32,
            &unique4,
        ),
        ("int64 atomic, unique addresses", DsOp::AddRtnU64, &unique8),
        ("f32 add, unique addresses", DsOp::AddRtnF32, &unique4),
        ("f32 min, unique addresses", DsOp::MinRtnF32, &unique4),
        ("f64 max, unique addresses", DsOp::MaxRtnF64, &unique8),
        ("load b32", DsOp::LoadB32, &unique4),
        ("load i8 d16_hi", DsOp::LoadI8D16Hi, &unique4),
        ("load b128", DsOp::LoadB128, &unique16),
        ("store b32", DsOp::StoreB32, &unique4),
        ("store 2addr b64", DsOp::Store2addrB64, &unique16),
        ("storexchg 2addr b32", DsOp::Storexchg2addrRtnB32, &unique8),
        ("condxchg32 b64", DsOp::Condxchg32RtnB64, &unique8),
        ("load addtid", DsOp::LoadAddtidB32, &unique4),
        ("append", DsOp::Append, &unique4),
        ("swizzle b32", DsOp::SwizzleB32, &unique4),
        ("permute b32", DsOp::PermuteB32, &unique4),
        ("bpermute b32", DsOp::BpermuteB32, &unique4),
        ("bvh stack", DsOp::BvhStackRtnB32, &unique4),
    ];
    println!("{:<52} {:>14}", "family / pattern (op)", "M lane-ops/s");
    for &(what, op, w) in rows {
        let rate = measure(op, 0, w, budget);
        println!("{:<52} {:>14.1}   {}", what, rate / 1e6, op);
    }
}
