//! The legal-outcome check over the whole snapshot corpus: running the lanes of every
//! order-sensitive op in descending order yields a result the check accepts (and names), and the
//! model's own result is always accepted as ascending.

use ds_isa::ds::{runnable_ops, Family};
use ds_isa::gen::Generation;
use ds_isa::target::DEFAULT;
use ds_reference::model::legal::{check, Verdict};
use ds_reference::model::snapshot::snapshot_corpus;
use ds_reference::model::{execute_in_place, execute_variant};
use ds_reference::wave::{Case, Outcome, Variant, Wave};

/// The outcome of running the active lanes one at a time, highest lane first.
fn descending(v: &Variant, c: &Case) -> Outcome {
    let mut lds = c.lds.clone();
    let mut vdst: Vec<[u32; 4]> = c.wave.lanes.iter().map(|l| l.vdst).collect();
    let mut addr: Vec<u32> = c.wave.lanes.iter().map(|l| l.addr).collect();
    for i in (0..c.wave.lanes.len()).rev().filter(|&i| c.wave.active(i)) {
        let one = Wave {
            exec: 1 << i,
            ..c.wave.clone()
        };
        execute_in_place(
            DEFAULT,
            &v.inst(),
            v.mode,
            &one,
            &mut lds,
            &mut vdst,
            &mut addr,
        )
        .unwrap();
    }
    let mut out = Outcome {
        lds,
        vdst,
        addr,
        data0: None,
        data1: None,
    };
    if let Some(regs) = v.regs {
        regs.settle(v.op, v.acc, c, &mut out);
    }
    out
}

#[test]
fn descending_lane_order_is_legal_for_every_order_sensitive_op() {
    let (mut cases, mut reordered) = (0, 0);
    for op in runnable_ops(Generation::Gfx11) {
        let per_lane = matches!(
            op.info().family,
            Family::Rmw(_)
                | Family::Store(_)
                | Family::CondXchg32
                | Family::StoreAddTid
                | Family::BvhStack
        );
        for (name, v, c) in snapshot_corpus(op) {
            let model = execute_variant(DEFAULT, &v, &c).unwrap();
            assert_eq!(
                check(DEFAULT, &v, &c, &model).unwrap(),
                Verdict::model(),
                "{op} {name}: the model's own outcome"
            );
            if !per_lane {
                continue;
            }
            cases += 1;
            let device = descending(&v, &c);
            let verdict = check(DEFAULT, &v, &c, &device).unwrap();
            match &verdict {
                Verdict::Legal { .. } => {}
                other => panic!("{op} {name}: descending order rejected: {other:?}"),
            }
            if device != model {
                reordered += 1;
                assert_ne!(
                    verdict,
                    Verdict::model(),
                    "{op} {name}: a different outcome cannot be the model's order"
                );
                // The reading it followed is named: A4's (an order), when the op has A4.
                if let Verdict::Legal { readings, .. } = &verdict {
                    assert!(
                        readings.iter().all(|(q, _)| *q == "A4"),
                        "{op} {name}: {verdict}"
                    );
                }
            }
        }
    }
    assert!(cases > 200, "only {cases} order-sensitive cases");
    assert!(
        reordered > 50,
        "only {reordered} cases where the order shows"
    );
    eprintln!(
        "{cases} order-sensitive corpus cases, {reordered} of them differ when run descending"
    );
}
