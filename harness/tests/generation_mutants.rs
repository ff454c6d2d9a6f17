//! The generation reaches the model: an emulated device that executes DS instructions by another
//! generation's rules (`EmuDevice::with_rules_of`) is caught where the rules differ and nowhere
//! else. A gfx12 device with gfx11's half-wave permutes is caught on gfx12 in wave64 (the lane
//! named, with both values) and not in wave32, and the same device on gfx11 is right; the reverse
//! (a gfx11 device with gfx12's whole-wave permutes) is caught on gfx11 and right on gfx12.
//! Compare-stores: a device taking the other generation's operand order (DATA0 the new value on
//! gfx10, the compare value on gfx11) is caught in every wave size, the lane named; the same
//! device on a generation of that order agrees.

mod common;

use common::{meta, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::run::diff::Difference;
use ds_harness::run::{self, RunConfig};
use ds_isa::ds::{runnable_ops_on, DsOp, Family, Generation, Rmw};
use ds_isa::gen::{CmpstData0, PermuteSpan};
use ds_isa::target::Target;
use ds_reference::model::{self, snapshot::snapshot_corpus_wave64};
use ds_reference::wave::{Case, FpMode, Lds, Variant, Wave, WaveSize};

/// The first target of the generation whose permutes take `span`.
fn gen_with(span: PermuteSpan) -> Generation {
    // The newest of each span: gfx11 and gfx12, whose kernels are built.
    Generation::ALL
        .into_iter()
        .rev()
        .find(|g| g.permute_span() == span)
        .expect("a generation of each span")
}

fn first(gen: Generation) -> &'static Target {
    gen.targets().next().expect("a target")
}

/// A run of the permutes in both wave sizes on `target`'s emulated device taking `rules`' rules:
/// the disagreeing cases per wave size, and every difference of the listed mismatches.
fn run_mutant(
    target: &'static Target,
    rules: Generation,
) -> (Vec<(WaveSize, usize)>, Vec<Difference>) {
    let dir = temp_dir(&format!("gen-mutant-{target}-{rules}"));
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave32, WaveSize::Wave64],
        cases_per_op: 60,
        out_dir: dir.join("out"),
        ..RunConfig::new(vec![DsOp::BpermuteB32, DsOp::PermuteB32])
    };
    let mut dev = EmuDevice::for_target(target).with_rules_of(rules);
    let report = run::run(&cfg, &mut dev, meta("emu", 60)).unwrap();
    let rows: Vec<(WaveSize, usize)> = report.ops.iter().map(|o| (o.wave, o.disagree)).collect();
    eprintln!("{target} with {rules}'s rules: (wave, disagreeing cases) {rows:?}");
    let diffs = report
        .ops
        .iter()
        .flat_map(|o| o.mismatches.iter())
        .flat_map(|m| m.differences.iter().copied())
        .collect();
    (rows, diffs)
}

/// What the device of `target` taking `rules`' rules leaves in lane 0 of the wave64 snapshot case
/// `w64_index_mirror` (lane i names lane 63 - i), beside what the model says on `target`.
fn mirror_lane0(target: &'static Target, rules: Generation) -> (u32, u32) {
    let (_, v, c) = snapshot_corpus_wave64(DsOp::BpermuteB32)
        .into_iter()
        .find(|(n, _, _)| n == "w64_index_mirror")
        .expect("the mirror case");
    let mut dev = EmuDevice::for_target(target).with_rules_of(rules);
    let got = run::run_one(&mut dev, &v, &c).unwrap();
    let want = model::execute_variant(target, &v, &c).unwrap();
    (got.vdst[0][0], want.vdst[0][0])
}

/// Both ops' wave32 rows agree and at least one wave64 row disagrees; every listed difference is
/// an active lane's register with two different values.
fn caught_in_wave64_only(rows: &[(WaveSize, usize)], diffs: &[Difference]) {
    assert_eq!(rows.len(), 4, "{rows:?}");
    for &(w, d) in rows {
        if w.is_wave32() {
            assert_eq!(d, 0, "wave32 is the same under both rules: {rows:?}");
        }
    }
    assert!(
        rows.iter().any(|&(w, d)| !w.is_wave32() && d > 0),
        "the wave64 rows disagree: {rows:?}"
    );
    assert!(!diffs.is_empty());
    for d in diffs {
        // The permuted word lands in vdst, or in the register an aliasing variant shares with it.
        match *d {
            Difference::Vdst {
                active: true,
                model,
                device,
                ..
            }
            | Difference::Addr {
                active: true,
                model,
                device,
                ..
            }
            | Difference::Data {
                active: true,
                model,
                device,
                ..
            } => assert_ne!(model, device),
            _ => panic!("only active lanes' registers differ: {d}"),
        }
    }
    let text = diffs[0].to_string();
    assert!(text.starts_with("lane "), "the lane is named: {text}");
    eprintln!("caught: {text}");
}

#[test]
fn a_gfx12_device_with_gfx11s_half_wave_permutes_is_caught_on_gfx12_wave64_and_right_on_gfx11() {
    let (halves, whole) = (gen_with(PermuteSpan::Halves), gen_with(PermuteSpan::Wave));
    let (rows, diffs) = run_mutant(first(whole), halves);
    caught_in_wave64_only(&rows, &diffs);
    // The named case: lane 0 reads lane 31 (the mutant) where gfx12 reads lane 63.
    assert_eq!(mirror_lane0(first(whole), halves), (0x101f, 0x103f));
    // The same rules on a target of their own generation are the model's: nothing is caught.
    let (rows, diffs) = run_mutant(first(halves), halves);
    assert!(rows.iter().all(|&(_, d)| d == 0), "{rows:?}");
    assert!(diffs.is_empty());
    assert_eq!(mirror_lane0(first(halves), halves), (0x101f, 0x101f));
}

#[test]
fn a_gfx11_device_with_gfx12s_whole_wave_permutes_is_caught_on_gfx11_wave64_and_right_on_gfx12() {
    let (halves, whole) = (gen_with(PermuteSpan::Halves), gen_with(PermuteSpan::Wave));
    let (rows, diffs) = run_mutant(first(halves), whole);
    caught_in_wave64_only(&rows, &diffs);
    assert_eq!(mirror_lane0(first(halves), whole), (0x103f, 0x101f));
    let (rows, diffs) = run_mutant(first(whole), whole);
    assert!(rows.iter().all(|&(_, d)| d == 0), "{rows:?}");
    assert!(diffs.is_empty());
    assert_eq!(mirror_lane0(first(whole), whole), (0x103f, 0x103f));
}

/// The compare-store rows: a target, the operand order its emulated device's compare-stores take
/// (`EmuDevice::with_cmpst_order`), and whether the run catches it (true: the other generation's
/// order; false: the target's own, the run agrees): gfx942 (the CDNA 3 GPU of AMD's CI) swapping
/// its `ds_cmpst_*` operands is caught, as is gfx1030's; gfx1100's `ds_cmpstore_*` takes that
/// swapped order as its own.
const CMPST_ROWS: &[(&str, CmpstData0, bool)] = &[
    ("gfx942", CmpstData0::NewValue, true),
    ("gfx942", CmpstData0::CompareValue, false),
    ("gfx1030", CmpstData0::NewValue, true),
    ("gfx1030", CmpstData0::CompareValue, false),
    ("gfx1100", CmpstData0::NewValue, false),
    ("gfx1100", CmpstData0::CompareValue, true),
];

/// A run of every compare-store of `target` in each of its wave sizes on its emulated device
/// taking `order`: (op, wave, disagreeing cases) per row, and the first difference of each
/// listed mismatch.
fn run_cmpst(
    target: &'static Target,
    order: CmpstData0,
) -> (Vec<(String, WaveSize, usize)>, Vec<Difference>) {
    let ops: Vec<DsOp> = runnable_ops_on(target)
        .filter(|op| op.info().family == Family::Rmw(Rmw::CmpStore))
        .collect();
    let dir = temp_dir(&format!("cmpst-mutant-{target}-{order:?}"));
    let cfg = RunConfig {
        waves: ds_kernels::wave_sizes(target),
        cases_per_op: 40,
        out_dir: dir.join("out"),
        ..RunConfig::new(ops)
    };
    let mut dev = EmuDevice::for_target(target).with_cmpst_order(order);
    let report = run::run(&cfg, &mut dev, meta("emu", 40)).unwrap();
    let rows: Vec<(String, WaveSize, usize)> = report
        .ops
        .iter()
        .map(|o| (o.op.clone(), o.wave, o.disagree))
        .collect();
    let firsts = report
        .ops
        .iter()
        .flat_map(|o| o.mismatches.iter())
        .filter_map(|m| m.differences.first().copied())
        .collect();
    (rows, firsts)
}

/// Lane 1's return of `ds_cmpst_rtn_b32` when lanes 0 and 1 hit one dword holding 0x1111, lane 0
/// with DATA0 0x1111 / DATA1 0x2222, lane 1 with DATA0 0x3333 / DATA1 0x4444: 0x2222 where DATA0
/// is the compare value (lane 0 stored DATA1), 0x1111 where DATA0 is the new value (lane 0 compared
/// 0x2222, stored nothing). (device, model) on `target`'s device taking `order`.
fn lane1_return(target: &'static Target, order: CmpstData0) -> (u32, u32) {
    let wave = ds_kernels::wave_sizes(target)[0];
    let v = Variant {
        op: DsOp::CmpstoreRtnB32,
        offset0: 0,
        offset1: 0,
        lds_size: 256,
        mode: FpMode::default(),
        wave,
        regs: None,
        acc: false,
    };
    let mut lds = Lds::zeroed(256);
    lds.set_word(16, 0x1111);
    let mut w = Wave {
        exec: 0b11,
        ..Wave::new(wave)
    };
    for (l, (d0, d1)) in w.lanes.iter_mut().zip([(0x1111, 0x2222), (0x3333, 0x4444)]) {
        l.addr = 16;
        l.data0[0] = d0;
        l.data1[0] = d1;
    }
    let c = Case { lds, wave: w };
    let mut dev = EmuDevice::for_target(target).with_cmpst_order(order);
    let got = run::run_one(&mut dev, &v, &c).unwrap();
    let want = model::execute_variant(target, &v, &c).unwrap();
    (got.vdst[1][0], want.vdst[1][0])
}

#[test]
fn a_device_with_the_other_generations_cmpst_order_is_caught_naming_the_lane_and_right_on_its_own()
{
    for &(name, order, caught) in CMPST_ROWS {
        let target = Target::by_name(name).unwrap();
        let (rows, firsts) = run_cmpst(target, order);
        eprintln!("{name}, compare-stores taking {order:?}: (op, wave, disagreeing) {rows:?}");
        assert!(!rows.is_empty(), "{name} runs its compare-stores");
        let own = if target.generation.cmpst_data0() == CmpstData0::CompareValue {
            0x2222
        } else {
            0x1111
        };
        let other = if own == 0x2222 { 0x1111 } else { 0x2222 };
        if caught {
            // Every op and wave size disagrees somewhere; a lane is named with both values.
            for (op, w, d) in &rows {
                assert!(
                    *d > 0,
                    "{name} {op} {w}: the swapped order is caught: {rows:?}"
                );
            }
            let lane = firsts
                .iter()
                .map(|d| d.to_string())
                .find(|t| t.starts_with("lane "))
                .expect("a mismatch whose first difference names a lane");
            eprintln!("caught on {name}: {lane}");
            assert_eq!(lane1_return(target, order), (other, own), "{name}");
        } else {
            assert!(rows.iter().all(|(_, _, d)| *d == 0), "{name}: {rows:?}");
            assert!(firsts.is_empty());
            assert_eq!(lane1_return(target, order), (own, own), "{name}");
        }
    }
}
