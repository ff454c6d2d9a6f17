//! AccVGPR variants (issue 21): a run on a target whose DS encoding has the acc bit runs every
//! op with data or vdst with and without `acc`, the same cases both ways, and they all agree on
//! the emulated device; a device that ignores the acc bit (reads data from the VGPRs of those
//! numbers) is caught; a mismatching acc case file carries `acc` and replays as such. Which
//! targets have it is asked of the target table (`ds_features` ACC), never a name.

mod common;

use common::{meta, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::corpus;
use ds_harness::run::{self, RunConfig};
use ds_reference::ds_features::DsFeatures;
use ds_reference::isa::DsOp;
use ds_reference::target::{Target, TARGETS};
use ds_reference::wave::{Variant, WaveSize};

fn acc_targets() -> impl Iterator<Item = &'static Target> {
    TARGETS
        .iter()
        .filter(|t| t.ds_features.contains(DsFeatures::ACC))
}

fn wave_of(t: &Target) -> WaveSize {
    WaveSize::ALL
        .into_iter()
        .find(|w| t.wave_sizes.contains(&(w.lanes() as u32)))
        .expect("a wave size")
}

#[test]
fn acc_targets_get_an_acc_twin_of_every_variant_and_other_targets_none() {
    let op = DsOp::AddRtnU32;
    for t in TARGETS {
        let w = wave_of(t);
        let plain = corpus::variants_in(op, w);
        let all = corpus::variants_for(op, w, t);
        if t.ds_features.contains(DsFeatures::ACC) {
            assert_eq!(all.len(), 2 * plain.len(), "{t}");
            for ((p, tag), (a, atag)) in plain.iter().zip(&all[plain.len()..]) {
                assert_eq!(*a, Variant { acc: true, ..*p });
                assert_eq!(*atag, format!("{tag}-acc"));
            }
            let plans = corpus::plan_for(op, 1, 40, w, t);
            let n = plans.len() / 2;
            for (p, a) in plans[..n].iter().zip(&plans[n..]) {
                assert_eq!(p.count, a.count);
                if p.variant.regs != ds_reference::regs::Alias::AddrFirstVdst.regs(op) {
                    assert_eq!(p.case(3), a.case(3), "same cases");
                } else {
                    // addr = vdst[0] ties the address to the sentinel in VGPRs only: across
                    // files v0 keeps an address of its own (data0 = vdst[0] stays tied: both
                    // are AccVGPRs).
                    let (pc, ac) = (p.case(3), a.case(3));
                    let tied = |c: &ds_reference::wave::Case| {
                        c.wave.lanes.iter().all(|l| l.addr == l.vdst[0])
                    };
                    assert!(tied(&pc) && !tied(&ac), "{}", p.tag);
                }
            }
        } else {
            assert_eq!(all, plain, "{t}");
        }
    }
    // ds_nop has nothing to put in AccVGPRs.
    let t = acc_targets().next().unwrap();
    let nop = DsOp::from_name("ds_nop").unwrap();
    assert_eq!(
        corpus::variants_for(nop, WaveSize::Wave64, t),
        corpus::variants_in(nop, WaveSize::Wave64)
    );
}

/// Runs `ops` on `t`'s emulated device (`ignore_acc`: the broken one): each op's rows as
/// (tag, agree, disagree) of its acc variants, and the report.
fn run_on(t: &'static Target, ops: Vec<DsOp>, ignore_acc: bool, dir: &str) -> run::report::Report {
    let dir = temp_dir(dir);
    let cfg = RunConfig {
        waves: vec![wave_of(t)],
        cases_per_op: 24,
        out_dir: dir.join("out"),
        ..RunConfig::new(ops)
    };
    let mut dev = EmuDevice::for_target(t);
    if ignore_acc {
        dev = dev.with_acc_ignored();
    }
    run::run(&cfg, &mut dev, meta("emu", 24)).unwrap()
}

#[test]
fn acc_variants_agree_on_the_emulated_device_of_every_acc_target() {
    let ops = vec![
        DsOp::StoreB32,
        DsOp::LoadB64,
        DsOp::AddRtnU32,
        DsOp::from_name("ds_load_2addr_b32").unwrap(),
        DsOp::from_name("ds_storexchg_2addr_rtn_b64").unwrap(),
    ];
    for t in acc_targets() {
        let report = run_on(t, ops.clone(), false, &format!("acc-agree-{t}"));
        for o in &report.ops {
            let acc: Vec<_> = o.variants.iter().filter(|v| v.tag.ends_with("-acc")).collect();
            assert!(!acc.is_empty(), "{t} {}: no acc variant", o.op);
            for v in &acc {
                assert!(v.error.is_none(), "{t} {} {}: {:?}", o.op, v.tag, v.error);
                assert!(v.cases > 0 && v.agree == v.cases, "{t} {} {}: {v:?}", o.op, v.tag);
            }
            assert_eq!(o.disagree, 0, "{t} {}", o.op);
        }
    }
}

#[test]
fn a_device_that_ignores_the_acc_bit_is_caught_in_the_acc_variants_only() {
    let t = acc_targets().next().unwrap();
    let report = run_on(
        t,
        vec![DsOp::StoreB32, DsOp::AddRtnU32],
        true,
        "acc-mutant",
    );
    for o in &report.ops {
        for v in &o.variants {
            if v.tag.ends_with("-acc") {
                assert!(v.disagree > 0, "{} {}: not caught: {v:?}", o.op, v.tag);
            } else {
                assert_eq!(v.disagree, 0, "{} {}: {v:?}", o.op, v.tag);
            }
        }
        assert!(!o.mismatches.is_empty(), "{}", o.op);
        for m in &o.mismatches {
            assert!(m.variant.ends_with("-acc"), "{}: {}", o.op, m.variant);
            // The case file names the register file, so a replay runs the acc kernel.
            let path = m.path.as_ref().expect("a case file");
            let text = std::fs::read_to_string(path).unwrap();
            assert!(text.contains("\"acc\": true"), "{path}: {text}");
            assert!(m.replay.contains(path.as_str()), "{}", m.replay);
        }
    }
}
