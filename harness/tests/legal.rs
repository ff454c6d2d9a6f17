//! Legal outcomes in the diff and the report: a device that serialises same-address lanes highest
//! lane first agrees and the report names its order with the share of cases where the order could
//! show; a device that returns a value no lane order produces is a disagreement; and the search
//! explains any order of 32 lanes on one address.

mod common;

use common::op;
use ds_isa::target::DEFAULT;

use ds_devices::emu::{EmuDevice, Fault};
use ds_harness::corpus;
use ds_harness::run::legal::{self, Legality};
use ds_harness::run::report::RunMeta;
use ds_harness::run::{self, RunConfig};

use ds_reference::model::legal::{check, Explanation, Verdict};
use ds_reference::wave::{Case, FpMode, Lds, Outcome, Variant, Wave, WaveSize};

const LANES: usize = WaveSize::Wave32.lanes();

fn meta() -> RunMeta {
    common::meta("emu", corpus::DEFAULT_CASES_PER_OP)
}

fn config(name: &str, test: &str) -> RunConfig {
    RunConfig {
        out_dir: common::temp_dir(test).join("out"),
        ..RunConfig::new(vec![op(name)])
    }
}

#[test]
fn a_descending_device_agrees_and_the_report_names_its_order_with_the_share() {
    for name in ["ds_add_rtn_u32", "ds_storexchg_rtn_b32", "ds_max_rtn_u64"] {
        let cfg = config(name, &format!("legal-desc-{name}"));
        let mut dev = EmuDevice::new().with_descending_lanes(op(name));
        let report = run::run(&cfg, &mut dev, meta()).unwrap();
        let o = &report.ops[0];
        assert!(report.all_agree(), "{}", report.summary());
        let desc = o.choices["same-address lanes: descending lane order"];
        // Every case whose lanes share bytes is counted once under one choice: descending where
        // the order shows, ascending where both orders leave the same result (e.g. equal data),
        // "another lane order" where the search found a different order that explains it too.
        assert!(desc > 0 && o.same_address > 0, "{:?}", o.choices);
        assert_eq!(
            o.choices.values().sum::<usize>(),
            o.same_address,
            "{name}: {:?}",
            o.choices
        );
        let line = report.summary();
        let want = format!("descending lane order on {desc}/{} cases", o.same_address);
        assert!(line.contains(&want), "{line}");
        eprintln!("{name}: {want}");
    }
}

#[test]
fn the_model_order_is_reported_as_ascending_on_every_shared_case() {
    let cfg = config("ds_add_rtn_u32", "legal-asc");
    let report = run::run(&cfg, &mut EmuDevice::new(), meta()).unwrap();
    let o = &report.ops[0];
    assert!(o.same_address > 0);
    assert_eq!(o.choices[legal::ASCENDING], o.same_address);
    assert_eq!(o.choices.len(), 1);
}

#[test]
fn a_returned_value_no_lane_order_produces_is_rejected() {
    // Lane 0's returned old value gets its bit 30 flipped: no serial order yields it.
    let name = "ds_add_rtn_u32";
    let cfg = config(name, "legal-impossible");
    let fault = Fault {
        op: op(name),
        lane: 0,
        word: 0,
        xor: 1 << 30,
    };
    let mut dev = EmuDevice::new().with_fault(fault);
    let report = run::run(&cfg, &mut dev, meta()).unwrap();
    let o = &report.ops[0];
    let lane0_active = corpus::for_op(op(name), cfg.seed, cfg.cases_per_op)
        .iter()
        .flat_map(|v| v.cases.iter())
        .filter(|c| c.case.wave.exec & 1 == 1)
        .count();
    assert!(lane0_active > 0);
    assert_eq!(o.disagree, lane0_active, "{}", report.summary());
    assert!(!report.all_agree());
    assert!(o
        .choices
        .keys()
        .all(|c| !c.contains("descending") && !c.contains("another")));
    // A case whose lanes share the address is among the rejected ones, with the lane named.
    let m = &o.mismatches[0];
    assert!(m.differences[0]
        .to_string()
        .starts_with("lane 0 (active) vdst[0]"));
}

/// 32 lanes adding distinct powers of two (plus lane) to one dword, run in `order`.
fn thirty_two_on_one_address(order: &[usize]) -> (Variant, Case, Outcome) {
    let variant = Variant {
        op: op("ds_add_rtn_u32"),
        offset0: 0,
        offset1: 0,
        lds_size: 256,
        mode: FpMode::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let mut wave = Wave::default();
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 0x40;
        l.data0[0] = (1 << i) | i as u32;
        l.vdst = [0xdead_beef; 4];
    }
    let mut lds = Lds::zeroed(256);
    lds.set_word(0x40, 7);
    let case = Case { lds, wave };
    let mut out = Outcome {
        lds: case.lds.clone(),
        vdst: vec![[0xdead_beef; 4]; LANES],
        addr: vec![0x40; LANES],
        data0: None,
        data1: None,
    };
    let mut mem = 7u32;
    for &i in order {
        out.vdst[i][0] = mem;
        mem = mem.wrapping_add(case.wave.lanes[i].data0[0]);
    }
    out.lds.set_word(0x40, mem);
    (variant, case, out)
}

#[test]
fn any_order_of_32_lanes_on_one_address_is_explained_and_named() {
    // A fixed shuffle (an LCG), descending, and ascending.
    let mut shuffled: Vec<usize> = (0..LANES).collect();
    let mut x = 12345u32;
    for i in (1..LANES).rev() {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        shuffled.swap(i, (x >> 16) as usize % (i + 1));
    }
    let descending: Vec<usize> = (0..LANES).rev().collect();
    let ascending: Vec<usize> = (0..LANES).collect();
    for (order, want) in [
        (
            &shuffled,
            Explanation::Order(shuffled.iter().map(|&i| i as u8).collect()),
        ),
        (&descending, Explanation::DescendingLanes),
        (&ascending, Explanation::AscendingLanes),
    ] {
        let (variant, case, device) = thirty_two_on_one_address(order);
        let start = std::time::Instant::now();
        let verdict = check(DEFAULT, &variant, &case, &device).unwrap();
        eprintln!("32 lanes, one address: {:?} in {:?}", want, start.elapsed());
        match verdict {
            Verdict::Legal { order, .. } => assert_eq!(order, want),
            v => panic!("{v:?}"),
        }
    }
    // The same result with one returned value off by one: no order explains it.
    let (variant, case, mut device) = thirty_two_on_one_address(&shuffled);
    device.vdst[shuffled[17]][0] ^= 1;
    let expected =
        ds_reference::model::execute(DEFAULT, &variant.inst(), variant.mode, &case).unwrap();
    match legal::judge(DEFAULT, &variant, &case, &expected, &device) {
        Legality::Illegal(why) => eprintln!("rejected: {why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn only_cases_whose_active_lanes_share_bytes_count_as_order_observable() {
    let (variant, mut case, _) = thirty_two_on_one_address(&[0]);
    assert!(legal::lanes_share_bytes(&variant, &case));
    for (i, l) in case.wave.lanes.iter_mut().enumerate() {
        l.addr = 4 * i as u32;
    }
    assert!(!legal::lanes_share_bytes(&variant, &case));
    case.wave.lanes[5].addr = 2; // overlaps lanes 0 and 1's dwords
    assert!(legal::lanes_share_bytes(&variant, &case));
    case.wave.exec = !(1 << 5);
    assert!(!legal::lanes_share_bytes(&variant, &case));
    let load = Variant {
        op: op("ds_load_b32"),
        ..variant
    };
    case.wave.exec = WaveSize::Wave32.full_exec();
    assert!(
        !legal::lanes_share_bytes(&load, &case),
        "loads show no order"
    );
}
