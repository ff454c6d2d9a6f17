//! The wave64 permute rule (ASSUMPTIONS.md W1/W2 and W9/W10; the generation's `permute_span`):
//! `ds_permute_b32`/`ds_bpermute_b32` read within each 32-lane half on gfx10 and gfx11, over the
//! whole wave64 on gfx9 and gfx12. A device whose bpermute reads the other half is caught by the
//! widened snapshot corpus and by a run, the lane named, its case files wave64 cases that shrink
//! to one upper lane; a device taking another generation's span is caught in wave64 only (the
//! lane named, with both values) and is right on a generation of that span; a case file's target
//! decides the rule `eval` and `replay` apply.

use crate::common;
use crate::common::wave64::run_all;

use common::{code, ds_harness, ds_harness_no_env as ds, meta, stderr, stdout, temp_dir};
use ds_devices::emu::EmuDevice;
use ds_harness::case::CaseFile;
use ds_harness::corpus;
use ds_harness::run::diff::Difference;
use ds_harness::run::{self, RunConfig};
use ds_isa::ds::{DsOp, Generation};
use ds_isa::gen::PermuteSpan;
use ds_isa::target::{Target, DEFAULT};
use ds_reference::model::{self, snapshot::snapshot_corpus_wave64};
use ds_reference::wave::{Case, FpMode, Lds, Variant, Wave, WaveSize};
use serde_json::Value;

/// The first target of the generation whose permutes take `span`.
fn gen_with(span: PermuteSpan) -> Generation {
    // The newest of each span whose targets run wave64 (where the spans differ): gfx11 and
    // gfx12, whose kernels are built (gfx1250 is wave32 only).
    Generation::ALL
        .into_iter()
        .rev()
        .find(|g| g.permute_span() == span && g.targets().any(|t| t.wave_sizes.contains(&64)))
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

/// A device whose wave64 bpermute reads the lower half for every lane (a wave64 run as wave32,
/// the other way round from ASSUMPTIONS.md W1) is caught twice over: on the snapshot corpus
/// widened to 64 lanes (only upper lanes differ, each named; the model's device agrees), and by a
/// run in both wave sizes (wave32 unharmed; every difference an upper lane's register with both
/// values; its case files wave64 cases that shrink to one upper lane).
#[test]
fn a_device_whose_bpermute_reads_the_other_half_is_caught_naming_the_lane() {
    // The widened snapshot corpus.
    // The mutant: in wave64 every lane's bpermute reads the lower half (a wave64 run as wave32),
    // so upper lanes read the other way round from ASSUMPTIONS.md W1.
    let op = DsOp::BpermuteB32;
    let (count, bad) = run_all(
        &mut EmuDevice::new().with_bpermute_lower_half(),
        DEFAULT,
        &[op],
    );
    assert!(
        !bad.is_empty(),
        "the mutant went unnoticed in {count} cases"
    );
    let first_lanes: Vec<usize> = bad
        .iter()
        .map(|b| {
            let at = b.find("lane ").expect("the lane is named") + 5;
            b[at..]
                .split(':')
                .next()
                .unwrap()
                .parse()
                .expect("a lane number")
        })
        .collect();
    assert!(
        first_lanes.iter().all(|&l| l >= 32),
        "only upper-half lanes differ:\n{}",
        bad.join("\n")
    );
    eprintln!("caught in {} of {count} cases, e.g. {}", bad.len(), bad[0]);
    // The same device with the model's rule passes (the test is not vacuous the other way).
    let (_, clean) = run_all(&mut EmuDevice::new(), DEFAULT, &[op]);
    assert!(clean.is_empty(), "{}", clean.join("\n"));

    // A run of the generated corpus in both wave sizes.
    let dir = temp_dir("mutant-bpermute-w64");
    let cfg = RunConfig {
        waves: vec![WaveSize::Wave32, WaveSize::Wave64],
        cases_per_op: 60,
        out_dir: dir.join("out"),
        json: Some(dir.join("r.json")),
        junit: Some(dir.join("r.xml")),
        ..RunConfig::new(vec![op])
    };
    let mut dev = EmuDevice::new().with_bpermute_lower_half();
    let report = run::run(&cfg, &mut dev, meta("emu", corpus::DEFAULT_CASES_PER_OP)).unwrap();
    let rows: Vec<_> = report.ops.iter().map(|o| (o.wave, o.disagree)).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0], (WaveSize::Wave32, 0), "wave32 is unharmed");
    assert_eq!(rows[1].0, WaveSize::Wave64);
    assert!(rows[1].1 > 0, "the wave64 row disagrees: {rows:?}");
    // Every listed difference is a register of an upper-half lane (vdst, or the register an
    // aliasing variant shares with it), named with both values.
    let m = &report.ops[1].mismatches;
    assert!(!m.is_empty());
    for mm in m {
        assert!(mm.id.contains("-w64."), "{}", mm.id);
        for d in &mm.differences {
            match *d {
                Difference::Vdst {
                    lane,
                    active: true,
                    model,
                    device,
                    ..
                }
                | Difference::Addr {
                    lane,
                    active: true,
                    model,
                    device,
                }
                | Difference::Data {
                    lane,
                    active: true,
                    model,
                    device,
                    ..
                } => {
                    assert!(lane >= 32, "{}: {d}", mm.id);
                    assert_ne!(model, device);
                }
                _ => panic!("{}: {d}", mm.id),
            }
        }
        // The case file is a wave64 case that replays the disagreement.
        let file = CaseFile::read(std::path::Path::new(mm.path.as_ref().unwrap())).unwrap();
        assert_eq!(file.variant.wave, WaveSize::Wave64);
        assert_eq!(file.case.wave.lanes.len(), 64);
    }
    let first = m[0].differences[0].to_string();
    assert!(first.starts_with("lane "), "{first}");
    eprintln!("caught: {} {first}", m[0].id);
    // The shrinker works on wave64 cases too: fewer active lanes, the difference still in the
    // upper half.
    let texts = ds_harness::shrink::shrink_mismatches(
        &mut dev,
        &report,
        &cfg.out_dir,
        cfg.expect,
        cfg.judge,
    );
    assert!(!texts.is_empty());
    let t = &texts[0];
    assert!(t.contains("1 active lanes (was 64)"), "{t}");
    let lane: usize = t
        .split("lane ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the shrunk case names its lane");
    assert!(lane >= 32, "{t}");
}

/// A wave64 `ds_bpermute_b32` case whose lane 0 names index 40 (lane 40's DATA0 is 0x1028,
/// lane 8's 0x1008), every lane active.
fn index_40_case(t: &'static Target) -> CaseFile {
    let variant = Variant {
        op: DsOp::BpermuteB32,
        offset0: 0,
        offset1: 0,
        lds_size: 256,
        mode: FpMode::default(),
        wave: WaveSize::Wave64,
        regs: None,
        acc: false,
    };
    let mut wave = Wave::new(WaveSize::Wave64);
    for (i, l) in wave.lanes.iter_mut().enumerate() {
        l.addr = 4 * i as u32;
        l.data0[0] = 0x1000 + i as u32;
        l.vdst = [0xdead_beef; 4];
    }
    wave.lanes[0].addr = 4 * 40;
    let case = Case {
        lds: Lds::zeroed(256),
        wave,
    };
    CaseFile::new("bpermute.index40", 0, t, variant, case)
}

/// Lane 0's vdst[0] in `eval`'s JSON.
fn eval_lane0(path: &std::path::Path) -> (u64, Value) {
    let out = ds(&["eval", path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    (v["outcome"]["vdst"][0][0].as_u64().unwrap(), v)
}

#[test]
fn a_case_files_target_decides_the_rules_of_eval_and_replay() {
    let dir = temp_dir("g12w64-rules");
    let target = |name| Target::by_name(name).unwrap();
    let (g11, g12) = (target("gfx1100"), target("gfx1200"));
    let (p11, p12) = (dir.join("gfx1100.json"), dir.join("gfx1200.json"));
    index_40_case(g11).write(&p11).unwrap();
    index_40_case(g12).write(&p12).unwrap();
    // eval: gfx1100 reads within lane 0's half (index 40 & 31 = lane 8), gfx1200 the whole wave.
    let (a, va) = eval_lane0(&p11);
    let (b, vb) = eval_lane0(&p12);
    assert_eq!((a, b), (0x1008, 0x1028));
    assert_eq!(
        (va["target"].as_str(), vb["target"].as_str()),
        (Some("gfx1100"), Some("gfx1200"))
    );
    // replay: each file on the emulated device of its target agrees, the model on its rules.
    for (p, t) in [(&p11, g11), (&p12, g12)] {
        let out = ds(&["replay", p.to_str().unwrap(), "--backend", "emu"]);
        assert_eq!(code(&out), 0, "{}\n{}", stdout(&out), stderr(&out));
        assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
        assert!(
            stderr(&out).contains(&format!("model: {t}'s rules")),
            "{}",
            stderr(&out)
        );
    }
    // The gfx1100 file replayed on a gfx1200 device: the model takes the device's target's rules.
    let out = ds(&[
        "replay",
        p11.to_str().unwrap(),
        "--backend",
        "emu",
        "--target",
        "gfx1200",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("model: gfx1200's rules"),
        "{}",
        stderr(&out)
    );
    // The doc card of the op on each target says which reading applies: the next test, for
    // every target.
}

/// `doc OP --target T --wave 64` says which generation rule decides the op's wave64 result on T
/// and why (the binary's output, for a target of each generation).
#[test]
fn the_wave64_card_of_a_permute_says_which_rule_applies_on_the_target_and_why() {
    use ds_isa::ds::Generation;
    use ds_isa::gen::{PermuteSpan, Rule};
    for gen in Generation::ALL {
        for t in gen.targets() {
            let out = ds_harness(
                &["doc", "ds_bpermute_b32", "--target", t.name, "--wave", "64"],
                "",
            );
            if !t.wave_sizes.contains(&64) {
                // A wave32-only target (gfx1250) has no wave64 card: refused in words.
                assert_eq!(out.status.code(), Some(2), "{t}: {}", stdout(&out));
                let err = stderr(&out);
                assert!(err.contains(&format!("{t} does not run wave64")), "{err}");
                continue;
            }
            assert!(out.status.success(), "{t}: {}", stderr(&out));
            let text = stdout(&out);
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let rule = gen.rule(Rule::PermuteSpan);
            assert!(
                flat.contains(&format!("Rules of {t} ({gen}) in wave64")),
                "{text}"
            );
            assert!(
                flat.contains(&format!("applies: {}", rule.choice)),
                "{text}"
            );
            assert!(
                flat.contains("why: LLVM `GCNSubtarget::supportsWaveWideBPermute()`"),
                "{text}"
            );
            let (mine, other, says) = match gen.permute_span() {
                PermuteSpan::Halves => ("W1.", "W9.", "within each 32-lane half"),
                PermuteSpan::Wave => ("W9.", "W1.", "over the whole wave64"),
            };
            assert!(text.contains(mine) && !text.contains(other), "{t}: {text}");
            assert!(text.contains(says), "{t}: {text}");
        }
    }
}
