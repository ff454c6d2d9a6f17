//! `serve-device` spoken to by a hostile or careless harness (issue 23): a launch of a billion
//! workgroups with buffers for one, a line that is not UTF-8, requests naming what was never
//! loaded, more than 64 distinct buffer names, a kernel that loops in every one of 65536
//! workgroups. Each is answered (an error of the documented kind, or a fault) and the session goes
//! on; nothing allocates in proportion to what the request merely claims.

mod common;

use base64::Engine as _;
use common::bounded::run_bounded;
use ds_kernels::{abi, code_object, generator};
use ds_reference::wave::{Case, Variant, WaveSize};
use serde_json::{json, Value};
use std::time::Duration;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A wave32 variant of `ds_add_u32` and one case of it.
fn variant_and_case() -> (Variant, Case) {
    let op = common::op("ds_add_u32");
    let plan = &ds_harness::corpus::plan_in(op, 1, 1, WaveSize::Wave32)[0];
    (plan.variant, plan.case(0))
}

/// The hello and load lines of a session over `code`.
fn start(code: &[u8]) -> Vec<String> {
    vec![
        json!({"type":"hello","id":1,"protocol":1,"harness":"test"}).to_string(),
        json!({"type":"load","id":2,"code_object":b64(code)}).to_string(),
    ]
}

/// A launch line of `kernel` over `buffers` (name, bytes, output) in `workgroups` workgroups.
fn launch(id: u64, kernel: &str, workgroups: u64, buffers: &[(String, Vec<u8>, bool)]) -> String {
    let bufs: Vec<Value> = buffers
        .iter()
        .map(|(n, b, o)| json!({"name": n, "bytes": b64(b), "output": o}))
        .collect();
    json!({"type":"launch","id":id,"module":0,"kernel":kernel,"workgroups":workgroups,
           "workgroup_size":32,"dynamic_lds":0,"buffers":bufs})
    .to_string()
}

/// The buffers of one case's launch, as (name, bytes, output).
fn one_case_buffers(v: &Variant, c: &Case) -> Vec<(String, Vec<u8>, bool)> {
    let l = abi::pack(v, std::slice::from_ref(c)).unwrap();
    l.buffers
        .into_iter()
        .map(|b| (b.name.to_string(), b.bytes, b.copy_back))
        .collect()
}

/// Serves `lines` (plus a shutdown) and returns the answers, bounded by `secs`.
fn serve(lines: &[String], stdin_extra: &[u8], secs: u64) -> (Vec<Value>, common::bounded::Ran) {
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(stdin_extra);
    input.extend_from_slice(b"{\"type\":\"shutdown\",\"id\":999}\n");
    let ran = run_bounded(
        &["serve-device", "--backend", "emu"],
        &[],
        &input,
        Duration::from_secs(secs),
    );
    let answers = ran
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every answer is a protocol line"))
        .collect();
    (answers, ran)
}

fn answer(answers: &[Value], id: u64) -> &Value {
    answers
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id}: {answers:?}"))
}

#[test]
fn a_billion_workgroups_with_buffers_for_one_is_an_error_not_an_allocation() {
    let (v, c) = variant_and_case();
    let k = generator::generate_for(ds_isa::target::DEFAULT, &v).unwrap();
    let name = k.name.clone();
    let code = code_object::write(ds_isa::target::DEFAULT, &[k]);
    let mut lines = start(&code);
    lines.push(launch(3, &name, 1_000_000_000, &one_case_buffers(&v, &c)));
    lines.push(launch(4, &name, 1, &one_case_buffers(&v, &c)));
    let (answers, ran) = serve(&lines, b"", 60);
    assert!(!ran.killed, "no answer in 60 s");
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let e = answer(&answers, 3);
    assert_eq!(
        (e["type"].as_str(), e["kind"].as_str()),
        (Some("error"), Some("other")),
        "{e}"
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("1000000000 workgroups"),
        "{e}"
    );
    assert_eq!(answer(&answers, 4)["type"], "done", "the session goes on");
    assert_eq!(answer(&answers, 999)["type"], "bye");
    println!("peak RSS: {} KiB", ran.max_rss_kib);
    assert!(ran.max_rss_kib < 512 * 1024, "{} KiB", ran.max_rss_kib);
}

#[test]
fn bad_lines_and_requests_get_errors_of_the_documented_kind_and_the_session_goes_on() {
    let (v, c) = variant_and_case();
    let k = generator::generate_for(ds_isa::target::DEFAULT, &v).unwrap();
    let name = k.name.clone();
    let code = code_object::write(ds_isa::target::DEFAULT, &[k]);
    let bufs = one_case_buffers(&v, &c);
    let mut lines = start(&code);
    let mut unknown_module: Value = serde_json::from_str(&launch(3, &name, 1, &bufs)).unwrap();
    unknown_module["module"] = 7.into();
    lines.push(unknown_module.to_string());
    lines.push(launch(4, "no_such_kernel", 1, &bufs));
    let mut wave64: Value = serde_json::from_str(&launch(5, &name, 1, &bufs)).unwrap();
    wave64["workgroup_size"] = 64.into();
    lines.push(wave64.to_string());
    // A line that is not UTF-8, then a hello that must still be answered.
    let (answers, ran) = serve(
        &lines,
        b"{\"type\":\"hello\",\"id\":\xff\xfe}\n{\"type\":\"hello\",\"id\":6,\"protocol\":1,\"harness\":\"t\"}\n",
        60,
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for id in [3, 4, 5] {
        let a = answer(&answers, id);
        assert_eq!(
            (a["type"].as_str(), a["kind"].as_str()),
            (Some("error"), Some("other")),
            "{a}"
        );
    }
    let bad = answers
        .iter()
        .find(|a| a["id"].is_null())
        .expect("an error for the line that is not UTF-8");
    assert!(
        bad["message"].as_str().unwrap().contains("not UTF-8"),
        "{bad}"
    );
    assert_eq!(answer(&answers, 6)["type"], "hello");
}

#[test]
fn every_output_buffer_comes_back_under_the_name_it_was_sent_with() {
    let (v, c) = variant_and_case();
    let k = generator::generate_for(ds_isa::target::DEFAULT, &v).unwrap();
    let name = k.name.clone();
    let code = code_object::write(ds_isa::target::DEFAULT, &[k]);
    let mut lines = start(&code);
    // 14 launches of 5 buffers, each with names never seen before: 70 distinct names.
    for l in 0..14u64 {
        let bufs: Vec<_> = one_case_buffers(&v, &c)
            .into_iter()
            .enumerate()
            .map(|(i, (_, b, o))| (format!("name-{l}-{i}"), b, o))
            .collect();
        lines.push(launch(10 + l, &name, 1, &bufs));
    }
    let (answers, ran) = serve(&lines, b"", 60);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for l in 0..14u64 {
        let a = answer(&answers, 10 + l);
        assert_eq!(a["type"], "done", "{a}");
        for b in a["buffers"].as_array().unwrap() {
            let n = b["name"].as_str().unwrap();
            assert!(n.starts_with(&format!("name-{l}-")), "launch {l}: {n}");
        }
    }
}

#[test]
fn a_kernel_that_loops_in_65536_workgroups_is_a_fault_within_its_budget() {
    let (v, _) = variant_and_case();
    let mut k = generator::generate_for(ds_isa::target::DEFAULT, &v).unwrap();
    // s_branch -1: every wave jumps to itself until its instruction budget runs out.
    k.code = ds_isa::inst::encode(
        k.gen,
        &ds_isa::inst::Inst::Sopp {
            op: ds_isa::inst::SoppOp::Branch,
            simm16: 0xffff,
        },
    )
    .unwrap();
    let name = k.name.clone();
    let code = code_object::write(ds_isa::target::DEFAULT, &[k]);
    let mut lines = start(&code);
    let groups = 65536u64;
    let bufs: Vec<_> = (0..5)
        .map(|i| (format!("b{i}"), vec![0u8; 4 * groups as usize], i % 2 == 0))
        .collect();
    lines.push(launch(3, &name, groups, &bufs));
    let (answers, ran) = serve(&lines, b"", 120);
    assert!(!ran.killed, "no answer in 120 s");
    let a = answer(&answers, 3);
    assert_eq!(
        (a["type"].as_str(), a["kind"].as_str()),
        (Some("error"), Some("fault")),
        "{a}"
    );
    assert!(
        a["message"]
            .as_str()
            .unwrap()
            .contains("without reaching s_endpgm"),
        "{a}"
    );
    println!("65536 looping workgroups answered in {:.1} s", ran.secs);
}

/// A launch that gives its kernel fewer buffers than the kernel's arguments (none at all, or
/// some left out) is answered as the protocol error it is, naming the missing buffers, not run
/// into a `fault` (the residue of issue 33); the session goes on.
#[test]
fn a_launch_missing_buffers_is_a_protocol_error_naming_them() {
    let (v, c) = variant_and_case();
    let k = generator::generate_for(ds_isa::target::DEFAULT, &v).unwrap();
    let name = k.name.clone();
    let code = code_object::write(ds_isa::target::DEFAULT, &[k]);
    let bufs = one_case_buffers(&v, &c);
    let mut lines = start(&code);
    lines.push(launch(3, &name, 1, &[]));
    lines.push(launch(4, &name, 1, &bufs[..3]));
    lines.push(launch(5, &name, 1, &bufs));
    let (answers, ran) = serve(&lines, b"", 60);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    for (id, missing) in [
        (3, "lds_in, lanes_in, lds_out, lanes_out, wave_in"),
        (4, "lanes_out, wave_in"),
    ] {
        let e = answer(&answers, id);
        assert_eq!(
            (e["type"].as_str(), e["kind"].as_str()),
            (Some("error"), Some("other")),
            "{e}"
        );
        let m = e["message"].as_str().unwrap();
        assert!(
            m.starts_with("protocol error: ") && m.contains(&format!("missing: {missing}")),
            "{m}"
        );
    }
    assert_eq!(answer(&answers, 5)["type"], "done", "the session goes on");
}
