//! Benchmark: the legal-outcome check (`ds_reference::model::legal::check`, as the diff calls it
//! through `ds_harness::run::legal::judge`) on the hardest shape docs/design-notes.md, "Runs at scale" names: all
//! 32 lanes of one instruction on one address, the device having run them in a shuffled order.
//! Target: <= 5 ms per check in release. Prints the time per check for each op and order.

use ds_harness::run::legal::{judge, Legality};
use ds_isa::ds::DsOp;
use ds_isa::target::DEFAULT;
use ds_reference::model;
use ds_reference::wave::{Case, FpMode, Lds, Outcome, Variant, WaveSize};

const LANES: usize = WaveSize::Wave32.lanes();
use std::time::Instant;

const TARGET_MS: f64 = 5.0;
const REPEATS: u32 = 20;

/// What the device leaves when it runs the active lanes one at a time in `order` (each lane an
/// instruction of its own on the evolving LDS: a legal serialisation).
fn in_order(variant: &Variant, case: &Case, order: &[usize]) -> Outcome {
    let inst = variant.inst();
    let mut out = model::execute(DEFAULT, &inst, variant.mode, case).expect("modelled");
    let mut lds = case.lds.clone();
    for &i in order {
        let mut one = case.clone();
        one.lds = lds;
        one.wave.exec = 1 << i;
        let o = model::execute(DEFAULT, &inst, variant.mode, &one).expect("modelled");
        out.vdst[i] = o.vdst[i];
        lds = o.lds;
    }
    out.lds = lds;
    out
}

fn main() {
    let mut shuffled: Vec<usize> = (0..LANES).collect();
    let mut x = 0x2545_f491u32;
    for i in (1..LANES).rev() {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        shuffled.swap(i, x as usize % (i + 1));
    }
    let descending: Vec<usize> = (0..LANES).rev().collect();
    let mut worst: f64 = 0.0;
    for name in [
        "ds_add_rtn_u32",
        "ds_storexchg_rtn_b32",
        "ds_max_rtn_u32",
        "ds_mskor_rtn_b32",
        "ds_add_rtn_u64",
        "ds_store_b32",
        "ds_add_u32",
    ] {
        let variant = Variant {
            op: DsOp::from_name(name).expect("table op"),
            offset0: 0,
            offset1: 0,
            lds_size: 256,
            mode: FpMode::default(),
            wave: ds_reference::wave::WaveSize::Wave32,
            regs: None,
            acc: false,
        };
        let mut case = Case {
            lds: Lds::zeroed(256),
            wave: Default::default(),
        };
        case.lds.set_word(0x40, 7);
        for (i, l) in case.wave.lanes.iter_mut().enumerate() {
            l.addr = 0x40;
            l.data0 = [(1 << i) | i as u32, i as u32, 0, 0];
            l.data1 = [!(1u32 << i), 0, 0, 0, 0, 0, 0, 0];
            l.vdst = [0xdead_beef; 4];
        }
        let expected =
            model::execute(DEFAULT, &variant.inst(), variant.mode, &case).expect("modelled");
        for (label, order) in [("shuffled", &shuffled), ("descending", &descending)] {
            let device = in_order(&variant, &case, order);
            let start = Instant::now();
            let mut verdict = String::new();
            for _ in 0..REPEATS {
                verdict = match judge(DEFAULT, &variant, &case, &expected, &device) {
                    Legality::Legal(c) => c,
                    other => format!("NOT LEGAL: {other:?}"),
                };
            }
            let ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(REPEATS);
            worst = worst.max(ms);
            println!(
                "{name:<22} 32 lanes, one address, {label:<10} {ms:8.3} ms/check  -> {verdict}"
            );
        }
    }
    println!(
        "worst {worst:.3} ms per check (target <= {TARGET_MS} ms): {}",
        if worst <= TARGET_MS {
            "ok"
        } else {
            "SLOWER THAN TARGET"
        }
    );
}
