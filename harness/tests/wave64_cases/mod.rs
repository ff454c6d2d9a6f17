//! Shared by the wave64 tests: the snapshot corpus widened to 64 lanes, run on a device in one
//! code object and compared with the model over 64 lanes, lane for lane.
#![allow(dead_code)]

use ds_devices::Device;
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_kernels::abi;
use ds_kernels::code_object;
use ds_kernels::generator::generate_for;
use ds_reference::model::execute_variant;
use ds_reference::model::snapshot::snapshot_corpus;
use ds_reference::wave::{Case, Lane, Outcome, Variant, Wave, WaveSize};

const W64: WaveSize = WaveSize::Wave64;

/// Wave64 cases from a wave32 case: lanes 32..63 copy lanes 0..31 with their data changed, under
/// three EXECs (the case's in both halves with the upper rotated, the upper half alone, all 64).
pub fn widen(case: &Case) -> Vec<Case> {
    let lanes: Vec<Lane> = case
        .wave
        .lanes
        .iter()
        .copied()
        .chain(case.wave.lanes.iter().map(|l| Lane {
            data0: l.data0.map(|w| w ^ 0x0101_0000),
            data1: l.data1.map(|w| w.rotate_left(1)),
            vdst: l.vdst.map(|w| !w),
            ..*l
        }))
        .collect();
    let lo = case.wave.exec;
    [
        lo | u64::from((lo as u32).rotate_left(7)) << 32,
        lo << 32,
        W64.full_exec(),
    ]
    .into_iter()
    .map(|exec| Case {
        lds: case.lds.clone(),
        wave: Wave {
            exec,
            m0: case.wave.m0,
            lanes: lanes.clone(),
        },
    })
    .collect()
}

/// The first difference between two outcomes, naming the lane.
pub fn first_difference(got: &Outcome, want: &Outcome) -> Option<String> {
    for (l, (g, w)) in got.vdst.iter().zip(&want.vdst).enumerate() {
        if g != w {
            return Some(format!("lane {l}: vdst {g:08x?}, the model says {w:08x?}"));
        }
    }
    for (l, (g, w)) in got.addr.iter().zip(&want.addr).enumerate() {
        if g != w {
            return Some(format!("lane {l}: addr {g:#x}, the model says {w:#x}"));
        }
    }
    (got.lds != want.lds).then(|| "the LDS image".to_string())
}

/// Runs every op's widened corpus on `dev` (a device of `target`), the model following
/// `target`'s rules; returns (cases run, disagreements as text).
pub fn run_all(dev: &mut dyn Device, target: &Target, ops: &[DsOp]) -> (usize, Vec<String>) {
    let mut work: Vec<(Variant, Vec<(String, Case)>)> = Vec::new();
    for &op in ops {
        // Aliasing variants (`regs`) too: the wave64 template places named registers.
        for (name, v, c) in snapshot_corpus(op) {
            let v = Variant { wave: W64, ..v };
            let mut wide = widen(&c);
            if let Some(regs) = v.regs {
                // One value per register in every lane again (the upper half's data changed).
                for w in wide.iter_mut() {
                    let exec = w.wave.exec;
                    for (i, l) in w.wave.lanes.iter_mut().enumerate() {
                        if exec >> i & 1 == 1 {
                            regs.harmonise(op, false, l);
                        } else {
                            regs.harmonise_to_vdst(op, false, l);
                        }
                    }
                }
            }
            let wide = wide.into_iter().enumerate();
            let cases = wide.map(|(k, w)| (format!("{name}/{k}"), w));
            match work.iter_mut().find(|(x, _)| *x == v) {
                Some((_, list)) => list.extend(cases),
                None => work.push((v, cases.collect())),
            }
        }
    }
    let kernels: Vec<_> = work
        .iter()
        .map(|(v, _)| generate_for(target, v).expect("a wave64 kernel"))
        .collect();
    let module = dev
        .load(&code_object::write(target, &kernels))
        .expect("loads");
    let (mut count, mut bad) = (0, Vec::new());
    for (v, cases) in &work {
        let wide: Vec<Case> = cases.iter().map(|(_, c)| c.clone()).collect();
        let mut launch = abi::pack(v, &wide).expect("packs");
        assert_eq!(launch.workgroup_size, 64);
        dev.launch(module, &mut launch).expect("runs");
        let got = abi::unpack(v, &wide, &launch).expect("unpacks");
        for ((name, case), got) in cases.iter().zip(&got) {
            let want = execute_variant(target, v, case).expect("modelled");
            count += 1;
            if let Some(d) = first_difference(got, &want) {
                bad.push(format!("{} case {name}: {d}", v.op));
            }
        }
    }
    (count, bad)
}
