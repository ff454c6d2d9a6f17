//! AccVGPR variants (issue 21): a run on a target whose DS encoding has the acc bit makes every
//! op with data or vdst with and without `acc`, the same cases both ways. Which targets have it is
//! asked of the target table (`ds_features` ACC), never a name. (The runs themselves, on the
//! emulated device and against a device that ignores the acc bit, need the gfx9 kernel template.)

use ds_harness::corpus;
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
