//! Tests of the case-file format and its one validation.

use super::*;
use ds_isa::ds::DsOp;
use ds_reference::wave::{FpMode, Lds, Wave};

fn sample() -> CaseFile {
    let variant = Variant {
        op: DsOp::from_name("ds_add_u32").unwrap(),
        offset0: 4,
        offset1: 0,
        lds_size: 64,
        mode: FpMode::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let mut lds = Lds::zeroed(64);
    lds.set_word(8, 0x1234);
    let mut wave = Wave::default();
    wave.lanes[3].addr = 8;
    wave.lanes[3].data0[0] = 7;
    // A target other than the default, so reading back proves the field is kept.
    let target = ds_isa::target::TARGETS.last().unwrap();
    CaseFile::new("ds_add_u32.x.0", 42, target, variant, Case { lds, wave })
}

#[test]
fn the_target_is_named_and_an_unknown_one_refused() {
    let file = sample();
    let json = file.to_json();
    assert!(
        json.contains(&format!("\"target\": \"{}\"", file.target)),
        "{json}"
    );
    // Written before targets were named: the default target.
    let old = json.replace(&format!("  \"target\": \"{}\",\n", file.target), "");
    assert!(!old.contains("\"target\""), "{old}");
    let back = CaseFile::parse(&old, Path::new("old.json")).unwrap();
    assert_eq!(back.target, ds_isa::target::DEFAULT);
    let typo = json.replace(
        &format!("\"target\": \"{}\"", file.target),
        "\"target\": \"gfx115\"",
    );
    let e = CaseFile::parse(&typo, Path::new("typo.json"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown target `gfx115`") && e.contains("did you mean"),
        "{e}"
    );
}

#[test]
fn a_written_case_file_reads_back_equal() {
    let file = sample();
    let back = CaseFile::parse(&file.to_json(), Path::new("x.json")).unwrap();
    assert_eq!(back, file);
}

#[test]
fn a_syntax_error_names_line_and_column() {
    let text = sample()
        .to_json()
        .replacen("\"seed\": 42", "\"seed\": 42,,", 1);
    let err = CaseFile::parse(&text, Path::new("bad.json")).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("bad.json:4:"), "{msg}");
    assert!(msg.contains("docs/case-format.md"), "{msg}");
}

#[test]
fn an_unknown_op_is_named_with_suggestions() {
    let text = sample()
        .to_json()
        .replacen("\"ds_add_u32\"", "\"ds_add_u33\"", 1);
    let msg = CaseFile::parse(&text, Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("ds_add_u33") && msg.contains("did you mean"),
        "{msg}"
    );
}

#[test]
fn another_format_version_is_refused() {
    let text = sample()
        .to_json()
        .replacen("\"format\": 1", "\"format\": 2", 1);
    let msg = CaseFile::parse(&text, Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("format 2 is not supported"), "{msg}");
}

#[test]
fn an_lds_image_of_the_wrong_size_is_refused() {
    let text = sample()
        .to_json()
        .replacen("\"lds_size\": 64", "\"lds_size\": 128", 1);
    let msg = CaseFile::parse(&text, Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("variant.lds_size is 128"), "{msg}");
}

#[test]
fn an_op_the_files_target_lacks_is_refused_naming_both() {
    let mut file = sample();
    file.target = ds_isa::target::DEFAULT;
    let other = ds_isa::ds::Generation::ALL
        .into_iter()
        .find(|&g| g != file.target.generation)
        .unwrap();
    let op = DsOp::all(other)
        .find(|op| !op.info().on(file.target) && op.info().hip_runnable())
        .unwrap();
    file.variant.op = op;
    let msg = CaseFile::parse(&file.to_json(), Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains(&format!(
            "variant.op: {op} is not a {}",
            file.target.generation
        )) && msg.contains("set \"target\""),
        "{msg}"
    );
}

/// Each refusal names the field it is about and says what is true (issue 33 L1): an op of
/// the target's generation that needs a feature the target lacks is not called another
/// generation's; an odd register tuple is `variant.regs`, not the offsets; an op that is
/// only not modelled is not said to be impossible in a compute kernel.
#[test]
fn each_refusal_names_its_field_and_does_not_contradict_itself() {
    let t = |n| ds_isa::target::Target::by_name(n).unwrap();
    let op = |n| DsOp::from_name(n).unwrap();
    let (gfx906, gfx942) = (t("gfx906"), t("gfx942"));
    let mut file = sample64();
    (file.target, file.variant.op) = (gfx906, op("ds_add_rtn_f64"));
    let msg = CaseFile::parse(&file.to_json(), Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("variant.op: ds_add_rtn_f64 needs the")
            && msg.contains("which gfx906 lacks")
            && msg.contains("gfx90a")
            && !msg.contains("is not a gfx9"),
        "{msg}"
    );
    // An odd tuple where the target needs even ones: the registers are at fault.
    let mut v = file.variant;
    (v.op, v.regs) = (op("ds_load_b64"), None);
    v.regs = Some(ds_reference::regs::Regs {
        addr: Some(0),
        vdst: Some(101),
        ..Default::default()
    });
    let msg = validate(gfx942, &v, &file.case).unwrap_err();
    assert!(msg.starts_with("variant.regs: "), "{msg}");
    // An op the harness cannot run, on a target that has it: the reason is named.
    let (tr, why) = ds_isa::ds::DS_TABLE
        .iter()
        .find_map(|r| r.op.info().hip_unsupported.map(|w| (r.op, w)))
        .unwrap();
    let on = ds_isa::target::TARGETS
        .iter()
        .find(|t| tr.info().on(*t))
        .unwrap();
    let v = Variant {
        op: tr,
        regs: None,
        ..file.variant
    };
    let msg = validate(on, &v, &file.case).unwrap_err();
    assert!(
        msg.contains("is not run by ds-harness: ") && msg.contains(why),
        "{msg}"
    );
}

/// A wave64 case file of a gfx11 target.
fn sample64() -> CaseFile {
    let mut file = sample();
    file.target = ds_isa::target::DEFAULT;
    file.variant.wave = ds_reference::wave::WaveSize::Wave64;
    file.case.wave = Wave::new(file.variant.wave);
    file.case.wave.lanes[40].addr = 8;
    file.case.wave.exec = 1 << 40 | 1 << 31;
    file
}

#[test]
fn a_wave32_file_does_not_say_its_wave_size_and_a_wave64_file_does() {
    let json = sample().to_json();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(value["variant"].get("wave").is_none(), "{json}");
    assert!(json.contains("\"exec\": 4294967295"), "{json}");
    let file = sample64();
    let json = file.to_json();
    assert!(json.contains("\"wave\": 64"), "{json}");
    assert!(json.contains(&format!("\"exec\": {}", 1u64 << 40 | 1 << 31)));
    let back = CaseFile::parse(&json, Path::new("c.json")).unwrap();
    assert_eq!(back.case.wave.lanes.len(), 64);
    assert_eq!(back.case, file.case);
}

#[test]
fn lane_count_exec_and_target_are_checked_against_the_wave_size() {
    let json = sample64().to_json();
    // 64 lanes under a wave32 variant.
    let msg = CaseFile::parse(
        &json.replace("\"wave\": 64", "\"wave\": 32"),
        Path::new("c.json"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("a wave32 case has 32 lane objects, this one has 64"),
        "{msg}"
    );
    // A size that is not one.
    let msg = CaseFile::parse(
        &json.replace("\"wave\": 64", "\"wave\": 48"),
        Path::new("c.json"),
    )
    .unwrap_err()
    .to_string();
    assert!(msg.contains("wave 48 is not a wave size"), "{msg}");
    // EXEC past lane 31 in a wave32 case.
    let mut f = sample();
    f.case.wave.exec = 1 << 32;
    let msg = CaseFile::parse(&f.to_json(), Path::new("c.json"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("EXEC 0x100000000"), "{msg}");
    // A target whose kernels are not built in wave64 (the sample's last target).
    let mut f = sample64();
    f.target = sample().target;
    if ds_kernels::check_wave(f.target, f.variant.wave).is_err() {
        let msg = CaseFile::parse(&f.to_json(), Path::new("c.json"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("variant.wave:"), "{msg}");
    }
}
