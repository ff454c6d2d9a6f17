//! The `acc` dimension of a variant (AccVGPR operands, issue 21): the case format (absent =
//! false), where it is legal (asked of the target table's `ds_features`, never a name), the
//! settings a run makes, and what register aliasing means across the two register files.

use ds_isa::ds::{DsOp, Field};
use ds_isa::ds_features::DsFeatures;
use ds_isa::target::{Target, TARGETS};
use ds_reference::model;
use ds_reference::regs::Regs;
use ds_reference::wave::{AccError, Case, FpMode, Lds, Variant, Wave, WaveSize};

fn op(name: &str) -> DsOp {
    DsOp::from_name(name).unwrap()
}

fn variant(op: DsOp) -> Variant {
    Variant {
        op,
        offset0: 0,
        offset1: 0,
        lds_size: 256,
        mode: FpMode::default(),
        wave: WaveSize::Wave64,
        regs: None,
        acc: false,
    }
}

fn with_acc() -> impl Iterator<Item = &'static Target> {
    TARGETS
        .iter()
        .filter(|t| t.ds_features.contains(DsFeatures::ACC))
}

fn acc_target() -> &'static Target {
    with_acc().next().expect("a target with ACC")
}

#[test]
fn case_files_leave_acc_out_when_false_and_name_it_when_true() {
    let v = variant(op("ds_add_rtn_u32"));
    let text = serde_json::to_string(&v).unwrap();
    assert!(!text.contains("acc"), "{text}");
    let back: Variant = serde_json::from_str(&text).unwrap();
    assert!(!back.acc);
    let acc = Variant { acc: true, ..v };
    let text = serde_json::to_string(&acc).unwrap();
    assert!(text.contains("\"acc\":true"), "{text}");
    assert_eq!(serde_json::from_str::<Variant>(&text).unwrap(), acc);
    assert!(
        acc.inst().acc,
        "the variant's instruction carries the acc bit"
    );
    // A typo is refused, not taken for false.
    let typo = text.replace("\"acc\"", "\"accc\"");
    assert!(serde_json::from_str::<Variant>(&typo).is_err());
}

#[test]
fn acc_is_legal_only_where_the_target_table_says_acc_and_the_op_has_an_operand() {
    let n = with_acc().count();
    assert!(n >= 3, "targets with ACC: {n}");
    let load = Variant {
        acc: true,
        ..variant(op("ds_load_b32"))
    };
    for t in TARGETS {
        let has = t.ds_features.contains(DsFeatures::ACC);
        assert_eq!(load.check_acc(t).is_ok(), has, "{}", t.name);
        assert_eq!(
            Variant::acc_settings(load.op, t),
            if has {
                &[false, true][..]
            } else {
                &[false][..]
            },
            "{}",
            t.name
        );
        // Without acc every target is fine.
        assert_eq!(variant(load.op).check_acc(t), Ok(()));
        if !has {
            let e = load.check_acc(t).unwrap_err();
            assert_eq!(e, AccError::NoAcc { target: t.name });
            assert!(e.to_string().contains("remove \"acc\""), "{e}");
        }
    }
    let nop = Variant {
        acc: true,
        ..variant(op("ds_nop"))
    };
    for t in with_acc() {
        assert_eq!(nop.check_acc(t), Err(AccError::NoOperand { op: nop.op }));
        assert_eq!(Variant::acc_settings(nop.op, t), &[false]);
    }
}

/// One wave64 case: every lane's address 0, vdst sentinel 0xdead0000 + lane.
fn case(lds: &Lds) -> Case {
    let mut wave = Wave::new(WaveSize::Wave64);
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 0;
        l.vdst = [0xdead_0000 + i as u32; 4];
    }
    Case {
        lds: lds.clone(),
        wave,
    }
}

#[test]
fn addr_and_vdst_of_one_number_alias_in_vgprs_but_not_across_files() {
    let load = op("ds_load_b32");
    let regs = Regs {
        addr: Some(0),
        vdst: Some(0),
        ..Regs::default()
    };
    let mut lds = Lds::zeroed(256);
    lds.set_word(0, 0x1234_5678);
    let mut c = case(&lds);
    // The addr (0) and vdst (sentinel) words differ: one register in VGPRs, two across files.
    assert!(regs.conflict(load, false, &c.wave.lanes).is_some());
    assert_eq!(regs.conflict(load, true, &c.wave.lanes), None);
    // Harmonised for VGPRs, the vdst sentinel takes the address.
    regs.harmonise(load, false, &mut c.wave.lanes[3]);
    assert_eq!(c.wave.lanes[3].vdst[0], 0);
    let c = case(&lds);
    let v = Variant {
        regs: Some(regs),
        ..variant(load)
    };
    let vgpr = model::execute_variant(acc_target(), &v, &c).unwrap();
    let agpr = model::execute_variant(acc_target(), &Variant { acc: true, ..v }, &c).unwrap();
    // Both load the word into vdst; in VGPRs it lands on the address register too.
    assert_eq!(vgpr.vdst[5][0], 0x1234_5678);
    assert_eq!(agpr.vdst[5][0], 0x1234_5678);
    assert_eq!(vgpr.addr[5], 0x1234_5678, "v0 is addr and vdst");
    assert_eq!(agpr.addr[5], 0, "v0 keeps the address; the result is in a0");
}

#[test]
fn data_and_vdst_still_alias_within_the_accvgpr_file() {
    let rtn = op("ds_add_rtn_u32");
    let regs = Regs {
        addr: Some(8),
        data0: Some(8),
        vdst: Some(8),
        ..Regs::default()
    };
    let mut lds = Lds::zeroed(256);
    lds.set_word(0, 5);
    let mut c = case(&lds);
    for l in &mut c.wave.lanes {
        l.data0[0] = 7;
        l.vdst[0] = 7;
    }
    c.wave.exec = 1;
    // addr (0) vs data0 (7): one VGPR without acc, so a conflict; with acc the address is v8
    // and data0 = vdst = a8, both 7: consistent.
    let c0 = regs.conflict(rtn, false, &c.wave.lanes).unwrap();
    assert!(c0.to_string().contains("register v8"), "{c0}");
    assert_eq!(regs.conflict(rtn, true, &c.wave.lanes), None);
    let mut bad = c.clone();
    bad.wave.lanes[2].vdst[0] = 9;
    let c1 = regs.conflict(rtn, true, &bad.wave.lanes).unwrap();
    assert_eq!((c1.lane, c1.reg, c1.agpr), (2, 8, true));
    assert!(c1.to_string().contains("register a8"), "{c1}");
    assert_eq!(c1.second.0, Field::Vdst);
    let v = Variant {
        regs: Some(regs),
        acc: true,
        ..variant(rtn)
    };
    let out = model::execute_variant(acc_target(), &v, &c).unwrap();
    // Lane 0 returns the old value 5 into a8, which is data0's register too.
    assert_eq!(out.vdst[0][0], 5);
    assert_eq!(out.data0.as_ref().unwrap()[0][0], 5);
    assert_eq!(out.addr[0], 0, "v8 is only the address");
    assert_eq!(out.lds.word(0), 12);
}
