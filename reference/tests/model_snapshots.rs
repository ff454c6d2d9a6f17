//! The model's results on the snapshot corpus: one readable insta snapshot per runnable op under
//! `snapshots/reference/`, and the text format round-trips (parse inverts render).

use ds_reference::isa::{runnable_ops, runnable_ops_in, DsOp, Generation};
use ds_reference::model::snapshot::{model_entries, model_entries_in, parse, render};
use ds_reference::wave::WaveSize;

#[test]
fn every_runnable_op_has_a_model_snapshot() {
    let mut count = 0;
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for op in runnable_ops() {
            let entries = model_entries(op).expect("runnable ops are modelled");
            assert!(!entries.is_empty(), "{op} has no corpus cases");
            insta::assert_snapshot!(op.name(), render(op, &entries));
            count += 1;
        }
    });
    assert_eq!(count, 117, "one snapshot per HIP-runnable op");
}

/// The wave64 snapshots: every runnable gfx11 op on the wave64 corpus (the wave32 cases widened,
/// then the named cases straddling the halves), under `snapshots/reference/wave64/`.
#[test]
fn every_runnable_gfx11_op_has_a_wave64_model_snapshot() {
    let ops: Vec<DsOp> = runnable_ops_in(Generation::Gfx11).collect();
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/wave64"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for &op in &ops {
            let entries = model_entries_in(op, WaveSize::Wave64).expect("runnable ops are modelled");
            assert!(entries.iter().any(|e| e.name.starts_with("w64_")), "{op}: no named wave64 case");
            assert!(entries.iter().all(|e| e.variant.wave == WaveSize::Wave64 && e.case.wave.lanes.len() == 64));
            let text = render(op, &entries);
            let back = parse(&text).unwrap_or_else(|e| panic!("{op}: {e}\n{text}"));
            assert_eq!(back, entries, "{op}: the wave64 snapshot round-trips");
            insta::assert_snapshot!(op.name(), text);
        }
    });
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/wave64");
    for entry in std::fs::read_dir(dir).expect("snapshots/reference/wave64 exists") {
        let file = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            ops.iter().any(|op| file == format!("{}.snap", op.name())),
            "snapshots/reference/wave64/{file} belongs to no runnable gfx11 op: delete it"
        );
    }
}

/// The runnable ops gfx12 has and gfx11 lacks (its shared ops share gfx11's snapshots: same row,
/// same semantics).
fn gfx12_only_runnable() -> Vec<DsOp> {
    runnable_ops_in(Generation::Gfx12)
        .filter(|op| !op.info().in_generation(Generation::Gfx11))
        .collect()
}

#[test]
fn every_gfx12_only_runnable_op_has_a_model_snapshot() {
    let ops = gfx12_only_runnable();
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx12"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        for &op in &ops {
            let entries = model_entries(op).expect("runnable ops are modelled");
            assert!(!entries.is_empty(), "{op} has no corpus cases");
            insta::assert_snapshot!(op.name(), render(op, &entries));
        }
    });
    // 8 min/max_num, 8 cond_sub/sub_clamp/pk_add, bpermute_fi, the 4-dword BVH push/pop.
    assert_eq!(ops.len(), 18, "{ops:?}");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx12");
    for entry in std::fs::read_dir(dir).expect("snapshots/reference/gfx12 exists") {
        let file = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            ops.iter().any(|op| file == format!("{}.snap", op.name())),
            "snapshots/reference/gfx12/{file} belongs to no gfx12-only runnable op: delete it"
        );
    }
}

#[test]
fn snapshot_text_round_trips_for_every_op() {
    for op in runnable_ops().chain(gfx12_only_runnable()) {
        let entries = model_entries(op).unwrap();
        let text = render(op, &entries);
        let back = parse(&text).unwrap_or_else(|e| panic!("{op}: {e}\n{text}"));
        assert_eq!(back.len(), entries.len(), "{op}");
        for (a, b) in entries.iter().zip(&back) {
            assert_eq!(a, b, "{op} case {} does not round-trip", a.name);
        }
    }
}

#[test]
fn a_device_outcome_that_writes_an_inactive_lane_round_trips() {
    // Recorded hardware runs may differ from the model anywhere; the format must still hold them.
    let op = DsOp::LoadU8D16;
    let mut entries = model_entries(op).unwrap();
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

#[test]
fn no_orphan_model_snapshots() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference");
    let names: Vec<String> = runnable_ops()
        .map(|op| format!("{}.snap", op.name()))
        .collect();
    for entry in std::fs::read_dir(dir).expect("snapshots/reference exists") {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if file.starts_with("ds_table")
            || !file.ends_with(".snap")
            || file == "gfx12"
            || file == "wave64"
        {
            continue;
        }
        assert!(
            names.contains(&file),
            "snapshots/reference/{file} belongs to no runnable op: delete it"
        );
    }
}
