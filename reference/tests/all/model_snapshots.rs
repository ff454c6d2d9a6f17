//! The model's results on the snapshot corpus: one readable insta snapshot per runnable op under
//! `snapshots/reference/gfx11/` (gfx11's rules; `wave64/` in wave64), and under
//! `snapshots/reference/gfx12/`, `gfx10/` (`wave64/` each) and `gfx9/wave64/` (gfx9 is wave64
//! only) for every op of the generation whose outcome is its own (gfx11 lacks the op, or the
//! generation's rules change it); the text format round-trips (parse inverts render). A snapshot
//! file no test reads is found by `scripts/unreferenced-snapshots.sh` (insta's record of the
//! snapshots the tests read), which `scripts/test.sh` runs after the tests.

use ds_isa::ds::{runnable_ops, runnable_ops_on, DsOp, Family, Generation, Rmw};
use ds_isa::target::{Target, DEFAULT};
use ds_reference::model::snapshot::{model_entries, model_entries_in, parse, render};
use ds_reference::wave::WaveSize;

#[test]
fn every_runnable_op_has_a_model_snapshot() {
    let mut count = 0;
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx11"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for op in runnable_ops(Generation::Gfx11) {
            let entries = model_entries(DEFAULT, op).expect("runnable ops are modelled");
            assert!(!entries.is_empty(), "{op} has no corpus cases");
            insta::assert_snapshot!(op.name(), render(op, &entries));
            count += 1;
        }
    });
    assert_eq!(count, 117, "one snapshot per HIP-runnable op");
}

/// The wave64 snapshots: every runnable gfx11 op on the wave64 corpus (the wave32 cases widened,
/// then the named cases straddling the halves), under `snapshots/reference/gfx11/wave64/`.
#[test]
fn every_runnable_gfx11_op_has_a_wave64_model_snapshot() {
    let ops: Vec<DsOp> = runnable_ops(Generation::Gfx11).collect();
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx11/wave64"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for &op in &ops {
            let entries = model_entries_in(DEFAULT, op, WaveSize::Wave64).expect("runnable ops are modelled");
            assert!(entries.iter().any(|e| e.name.starts_with("w64_")), "{op}: no named wave64 case");
            assert!(entries.iter().all(|e| e.variant.wave == WaveSize::Wave64 && e.case.wave.lanes.len() == 64));
            let text = render(op, &entries);
            let back = parse(&text).unwrap_or_else(|e| panic!("{op}: {e}\n{text}"));
            assert_eq!(back, entries, "{op}: the wave64 snapshot round-trips");
            insta::assert_snapshot!(op.name(), text);
        }
    });
}

/// A target of `gen` (every target of a generation runs the same model: the first).
fn target_of(gen: Generation) -> &'static Target {
    gen.targets().next().expect("every generation has a target")
}

/// The target of `gen` the snapshots of `op` run on: the first that has it (every target of a
/// generation runs the same model; gfx9's and gfx10's ops differ by target: src2, f64, pk_add).
fn target_for(gen: Generation, op: DsOp) -> &'static Target {
    gen.targets()
        .find(|&t| op.info().on(t))
        .expect("a runnable op of the generation is on one of its targets")
}

/// The ops of `gen` whose snapshots live under `snapshots/reference/<gen>[/wave64]`: those gfx11
/// lacks, and those whose outcome on the snapshot corpus differs from gfx11's by `gen`'s rules
/// (the others share gfx11's snapshots, and this proves they may: same cases, same outcomes).
fn own_ops(gen: Generation, wave: WaveSize) -> Vec<DsOp> {
    let g11 = target_of(Generation::Gfx11);
    runnable_ops(gen)
        // An op the model runs but does not judge (gfx950's 4- and 6-bit transposes) has no
        // model snapshot: its cases are the device's to record.
        .filter(|op| model_entries_in(target_for(gen, *op), *op, wave).is_ok())
        .filter(|op| {
            !op.info().in_generation(Generation::Gfx11)
                || model_entries_in(g11, *op, wave).unwrap()
                    != model_entries_in(target_for(gen, *op), *op, wave).unwrap()
        })
        .collect()
}

/// Every op of [`own_ops`] has its snapshot under `dir` (a snapshot there of no such op is one no
/// test reads: `scripts/unreferenced-snapshots.sh` finds it).
fn own_snapshots(gen: Generation, wave: WaveSize, dir: &str) -> Vec<DsOp> {
    let ops = own_ops(gen, wave);
    insta::with_settings!({
        snapshot_path => dir,
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for &op in &ops {
            let entries = model_entries_in(target_for(gen, op), op, wave)
                .expect("runnable ops are modelled");
            assert!(!entries.is_empty(), "{op} has no corpus cases");
            assert!(entries.iter().all(|e| e.variant.wave == wave));
            let text = render(op, &entries);
            assert_eq!(parse(&text).unwrap(), entries, "{op}: the snapshot round-trips");
            insta::assert_snapshot!(op.name(), text);
        }
    });
    ops
}

fn gfx12_snapshots(wave: WaveSize, dir: &str) -> Vec<DsOp> {
    own_snapshots(Generation::Gfx12, wave, dir)
}

#[test]
fn every_gfx12_op_with_its_own_outcome_has_a_model_snapshot() {
    let ops = gfx12_snapshots(
        WaveSize::Wave32,
        concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx12"),
    );
    // 8 min/max_num, 8 cond_sub/sub_clamp/pk_add, bpermute_fi, the three BVH push/pops; in wave32
    // every shared op's outcome is gfx11's.
    assert_eq!(ops.len(), 20, "{ops:?}");
}

/// The gfx12 wave64 snapshots: gfx12's own ops, and the shared ops whose wave64 outcome gfx12's
/// rules change (the permutes, ASSUMPTIONS.md W9-W10), under `snapshots/reference/gfx12/wave64/`.
#[test]
fn every_gfx12_op_with_its_own_wave64_outcome_has_a_model_snapshot() {
    let ops = gfx12_snapshots(
        WaveSize::Wave64,
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../snapshots/reference/gfx12/wave64"
        ),
    );
    let shared: Vec<&str> = ops
        .iter()
        .filter(|op| op.info().in_generation(Generation::Gfx11))
        .map(|op| op.name())
        .collect();
    assert_eq!(shared, ["ds_permute_b32", "ds_bpermute_b32"], "{ops:?}");
    assert_eq!(ops.len(), 22, "{ops:?}");
}

/// gfx1250's own outcomes, under `snapshots/reference/gfx12.5/` (wave32 only): gfx12's own ops
/// but the BVH stack ops, gfx90a's f64 adds, the two sourced transposes (C1, C2) and the
/// barrier arrives' judged cases (C3); its 4- and 6-bit transposes are not modelled and have no
/// model snapshot.
#[test]
fn every_gfx1250_op_with_its_own_outcome_has_a_model_snapshot() {
    let ops = own_snapshots(
        Generation::Gfx12_5,
        WaveSize::Wave32,
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../snapshots/reference/gfx12.5"
        ),
    );
    let names: Vec<&str> = ops.iter().map(|op| op.name()).collect();
    for own in [
        "ds_add_f64",
        "ds_add_rtn_f64",
        "ds_atomic_async_barrier_arrive_b64",
        "ds_atomic_barrier_arrive_rtn_b64",
        "ds_load_tr16_b128",
        "ds_load_tr8_b64",
    ] {
        assert!(names.contains(&own), "{own}: {names:?}");
    }
    assert!(!names.contains(&"ds_load_tr4_b64") && !names.contains(&"ds_load_tr6_b96"));
    // gfx12's 20 own ops but its 3 BVH stack ops, and the 6 above.
    assert_eq!(ops.len(), 23, "{names:?}");
}

#[test]
fn snapshot_text_round_trips_for_every_op() {
    for gen in Generation::ALL {
        let t = target_of(gen);
        for op in runnable_ops_on(t) {
            // (An op the model runs but does not judge has no entries: gfx1250's 4- and 6-bit
            // transposes.)
            let Ok(entries) = model_entries(t, op) else {
                continue;
            };
            let text = render(op, &entries);
            let back = parse(&text).unwrap_or_else(|e| panic!("{op}: {e}\n{text}"));
            assert_eq!(back.len(), entries.len(), "{op}");
            for (a, b) in entries.iter().zip(&back) {
                assert_eq!(a, b, "{op} case {} does not round-trip", a.name);
            }
        }
    }
}

#[test]
fn a_device_outcome_that_writes_an_inactive_lane_round_trips() {
    // Recorded hardware runs may differ from the model anywhere; the format must still hold them.
    let op = DsOp::LoadU8D16;
    let mut entries = model_entries(DEFAULT, op).unwrap();
    let e = &mut entries[0];
    e.outcome.vdst[31] = [1, 2, 3, 4]; // inactive lane written
    e.outcome.vdst[0][3] = 9; // a word past the operand width
    e.outcome.addr[5] = 0x1234; // addr changed by an op that must not
    let last = e.outcome.lds.size() - 4;
    e.outcome.lds.set_word(last, 0x0bad_0bad);
    let back = parse(&render(op, &entries)).unwrap();
    assert_eq!(back, entries);
}

#[test]
fn parse_errors_name_the_line() {
    let text = "case x\nvariant ds_add_u32 offset0=0x00\nexec 0x1 m0 0x0\nbogus line\n";
    let err = parse(text).unwrap_err();
    assert_eq!(err.line, 4);
    assert!(err.what.contains("bogus"), "{err}");
    let err = parse("variant ds_nope\n").unwrap_err();
    assert_eq!(err.line, 1);
    let err = parse("case x\nvariant ds_fadd\n").unwrap_err();
    assert!(err.what.contains("unknown DS op"), "{err}");
}

/// gfx10's own outcomes: the compare-stores (DATA0 the compare value, ASSUMPTIONS.md V1) and the
/// src2 ops gfx11 lacks; in wave64 the permutes take gfx11's half-wave rule (W1/W2), so they share
/// gfx11's snapshots.
#[test]
fn every_gfx10_op_with_its_own_outcome_has_a_model_snapshot() {
    for (wave, dir) in [
        (
            WaveSize::Wave32,
            concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx10"),
        ),
        (
            WaveSize::Wave64,
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../snapshots/reference/gfx10/wave64"
            ),
        ),
    ] {
        let ops = own_snapshots(Generation::Gfx10, wave, dir);
        let cmpst = ops
            .iter()
            .filter(|op| op.info().family == Family::Rmw(Rmw::CmpStore))
            .count();
        let src2 = ops
            .iter()
            .filter(|op| matches!(op.info().family, Family::Src2(_)))
            .count();
        assert_eq!((cmpst, src2, ops.len()), (8, 31, 39), "{wave}: {ops:?}");
    }
}

/// gfx9's own wave64 outcomes: the compare-stores (V1), the src2 ops (gfx900-908), `ds_add_f64`
/// (gfx90a on), and the permutes, which span the whole wave64 (W9/W10, as gfx12).
#[test]
fn every_gfx9_op_with_its_own_wave64_outcome_has_a_model_snapshot() {
    let ops = own_snapshots(
        Generation::Gfx9,
        WaveSize::Wave64,
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../snapshots/reference/gfx9/wave64"
        ),
    );
    let names: Vec<&str> = ops.iter().map(|op| op.name()).collect();
    for want in [
        "ds_permute_b32",
        "ds_bpermute_b32",
        "ds_add_f64",
        "ds_add_rtn_f64",
    ] {
        assert!(names.contains(&want), "{want}: {names:?}");
    }
    // 8 compare-stores, 2 permutes, 4 pk_add (gfx11 lacks them), 2 f64 adds, 31 src2, the two
    // modelled transposes (b8, b16; b4 and b6 run unjudged, without a model snapshot).
    assert_eq!(ops.len(), 49, "{names:?}");
    assert!(!names.contains(&"ds_read_b64_tr_b4") && !names.contains(&"ds_read_b96_tr_b6"));
}
