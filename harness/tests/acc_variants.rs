//! AccVGPR variants (issue 21): a run on a target whose DS encoding has the acc bit makes every
//! op with data or vdst with and without `acc`, the same cases both ways. Which targets have it is
//! asked of the target table (`ds_features` ACC), never a name. Every such target runs every op
//! both ways on the emulated device and all agree; a device that ignores the acc bit (data and
//! vdst in the VGPRs of their numbers) is caught on the acc twins only, naming the lane.

mod common;

use common::{ds_harness, meta, stderr, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::corpus;
use ds_harness::run::{self, RunConfig};
use ds_isa::ds::DsOp;
use ds_isa::ds_features::DsFeatures;
use ds_isa::target::{Target, TARGETS};
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

/// `ds-harness run --backend emu --target T` on every target with AccVGPR operands: every runnable
/// op, every variant once in VGPRs and once in AccVGPRs (tag `-acc`, `a` registers in the
/// instruction's text, as many cases as its twin), and every case agrees with the model.
#[test]
fn every_acc_target_runs_every_op_with_and_without_acc_on_the_emulated_device_and_all_agree() {
    let dir = temp_dir("acc-emu");
    let mut targets = 0;
    for t in acc_targets() {
        targets += 1;
        let json = dir.join(format!("{t}.json"));
        // Case files (gfx950's unjudged transposes write theirs) under the test's own dir.
        let cases = dir.join(format!("{t}-out"));
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                t.name,
                "--cases",
                "8",
                "--json",
                json.to_str().unwrap(),
                "--out",
                cases.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let totals = &report["totals"];
        // Every case agrees, or the model does not judge it (gfx950's unsourced transposes).
        let (agree, skipped) = (totals["agree"].as_u64(), totals["skipped"].as_u64());
        assert_eq!(
            agree.zip(skipped).map(|(a, s)| a + s),
            totals["cases"].as_u64(),
            "{t}"
        );
        assert_eq!(totals["disagree"], 0, "{t}");
        let ops = report["ops"].as_array().unwrap();
        assert_eq!(ops.len(), ds_isa::ds::runnable_ops_on(t).count());
        let mut twinned = 0;
        for o in ops {
            let vs = o["variants"].as_array().unwrap();
            let (acc, plain): (Vec<_>, Vec<_>) = vs
                .iter()
                .partition(|v| v["tag"].as_str().unwrap().ends_with("-acc"));
            let op = DsOp::from_name(o["op"].as_str().unwrap()).unwrap();
            if !Variant::acc_settings(op, t).contains(&true) {
                assert!(acc.is_empty(), "{t} {op}");
                continue;
            }
            twinned += 1;
            assert_eq!(acc.len(), plain.len(), "{t} {op}");
            for (p, a) in plain.iter().zip(&acc) {
                assert_eq!(
                    format!("{}-acc", p["tag"].as_str().unwrap()),
                    a["tag"].as_str().unwrap()
                );
                assert_eq!(p["cases"], a["cases"], "{t} {op}");
                // Agreeing, or (an op or case the model does not judge) counted apart.
                let (agree, skipped) = (a["agree"].as_u64(), a["skipped"].as_u64());
                assert_eq!(
                    agree.zip(skipped).map(|(x, y)| x + y),
                    a["cases"].as_u64(),
                    "{t} {op}"
                );
                let inst = a["inst"].as_str().unwrap();
                assert!(
                    inst.contains(" a") || inst.contains(", a"),
                    "{t} {op}: {inst}"
                );
                assert!(!p["inst"].as_str().unwrap().contains(" a"));
            }
        }
        eprintln!(
            "{t}: {} ops, {twinned} with acc twins, {} cases agree",
            ops.len(),
            totals["agree"]
        );
        assert!(twinned > 100, "{t}: {twinned}");
    }
    assert!(
        targets >= 3,
        "gfx90a, gfx942 and gfx950 have AccVGPR operands"
    );
}

/// An emulated device that ignores the acc bit (data from, and vdst to, the VGPRs of the
/// AccVGPRs' numbers) is caught on the first target with AccVGPR operands: every op with data
/// or vdst disagrees on its acc twins and nowhere else, the first difference naming the lane (a
/// store's: the LDS byte).
#[test]
fn a_device_ignoring_the_acc_bit_is_caught_on_the_acc_twins_only() {
    let t = acc_targets().next().unwrap();
    let ops: Vec<DsOp> = [
        "ds_add_rtn_u32",
        "ds_write_b64",
        "ds_read_b128",
        "ds_cmpst_rtn_b32",
    ]
    .iter()
    .map(|n| DsOp::from_name_in(t.generation, n).unwrap())
    .collect();
    let dir = temp_dir("acc-ignored");
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave64],
        cases_per_op: 24,
        out_dir: dir.join("out"),
        ..RunConfig::new(ops.clone())
    };
    let mut dev = EmuDevice::for_target(t).with_acc_ignored();
    let report = run::run(&cfg, &mut dev, meta("emu", 24)).unwrap();
    assert_eq!(report.ops.len(), ops.len());
    for o in &report.ops {
        let bad: Vec<&str> = o
            .variants
            .iter()
            .filter(|v| v.disagree > 0)
            .map(|v| v.tag.as_str())
            .collect();
        eprintln!("{t} {}: disagreeing variants {bad:?}", o.op);
        assert!(!bad.is_empty(), "{}: caught", o.op);
        assert!(
            bad.iter().all(|tag| tag.ends_with("-acc")),
            "{}: {bad:?}",
            o.op
        );
        let first = o
            .mismatches
            .iter()
            .flat_map(|m| m.differences.iter())
            .next()
            .expect("a listed difference");
        let text = first.to_string();
        eprintln!("  first difference: {text}");
        // A load's or a return's difference names the lane; a store's the LDS byte it left.
        assert!(
            text.starts_with("lane ") || text.starts_with("lds["),
            "{text}"
        );
    }
}
