//! `ds-harness matrix`: results files side by side as markdown, JSON and an SVG heatmap; the SVG
//! is parsed (every cell, its class and colour, the legend, the device names) and rendered to PNG
//! with resvg, whose pixels must show each cell's class colour.

mod common;

use common::svg::check_svg;
use common::{code, ds_harness_no_env as ds, stderr, stdout, temp_dir};
use ds_harness::fidelity::Class;
use serde_json::{json, Value};

fn results(device: &str, ops: &[(&str, Value)]) -> Value {
    json!({
        "format": 1,
        "meta": {"backend": "exec", "device": device, "device_version": "v1"},
        "ops": ops.iter().map(|(op, f)| json!({"op": op, "fidelity": f})).collect::<Vec<_>>(),
    })
}

#[test]
fn a_matrix_of_three_devices_as_markdown_json_and_a_rendered_svg() {
    let dir = temp_dir("matrix");
    let files = [
        results(
            "device <a> & b",
            &[
                ("ds_add_u32", json!({"exact": 160})),
                ("ds_store_b32", json!({"exact": 150, "legal": 10})),
            ],
        ),
        results(
            "partial",
            &[
                ("ds_add_u32", json!({"unsupported": 160})),
                ("ds_store_b32", json!({"exact": 160})),
            ],
        ),
        results(
            "broken",
            &[
                ("ds_store_b32", json!({"exact": 155, "mismatch": 5})),
                ("ds_load_b32", json!({"crashed": 32, "exact": 128})),
            ],
        ),
    ];
    let mut args = vec!["matrix".to_string()];
    for (i, f) in files.iter().enumerate() {
        let p = dir.join(format!("r{i}.json"));
        std::fs::write(&p, f.to_string()).unwrap();
        args.push(p.display().to_string());
    }
    let (md, svg, js) = (dir.join("m.md"), dir.join("m.svg"), dir.join("m.json"));
    for (flag, p) in [("--markdown", &md), ("--svg", &svg), ("--json", &js)] {
        args.push(flag.into());
        args.push(p.display().to_string());
    }
    let out = ds(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let md = std::fs::read_to_string(md).unwrap();
    // Rows in DS-table order (store before add... as the table has them), one column per file.
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 3, "{md}");
    let store = rows.iter().find(|r| r.contains("`ds_store_b32`")).unwrap();
    assert_eq!(
        *store,
        "| `ds_store_b32` | **legal alternative** (legal alternative 10, exact 150) | exact 160 | **mismatch** (mismatch 5, exact 155) |"
    );
    let add = rows.iter().find(|r| r.contains("`ds_add_u32`")).unwrap();
    assert!(
        add.ends_with("| exact 160 | unsupported 160 | — |"),
        "{add}"
    );
    // A device's name is text, never markup (issue 23).
    assert!(md.contains("**device &lt;a&gt; &amp; b** (v1)"), "{md}");

    let j: Value = serde_json::from_str(&std::fs::read_to_string(js).unwrap()).unwrap();
    assert_eq!(j["columns"].as_array().unwrap().len(), 3);
    assert_eq!(j["rows"].as_array().unwrap().len(), 3);

    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(svg.contains("device &lt;a&gt; &amp; b"));
    let n = check_svg(
        &svg,
        &dir.join("m.png"),
        &[
            ("ds_add_u32", 0, Class::Exact),
            ("ds_add_u32", 1, Class::Unsupported),
            ("ds_store_b32", 0, Class::Legal),
            ("ds_store_b32", 2, Class::Mismatch),
            ("ds_load_b32", 2, Class::Crashed),
        ],
    );
    assert_eq!(n, 9, "3 ops x 3 devices, a cell each (empty where not run)");
}

#[test]
fn matrix_refuses_files_without_fidelity_classes_naming_the_file() {
    let dir = temp_dir("matrix-bad");
    let p = dir.join("old.json");
    std::fs::write(
        &p,
        json!({"meta": {"device": "d"}, "ops": [{"op": "ds_add_u32", "agree": 1}]}).to_string(),
    )
    .unwrap();
    let out = ds(&["matrix", p.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(
        e.contains("old.json") && e.contains("ds_add_u32 has no `fidelity`"),
        "{e}"
    );
    let out = ds(&["matrix", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("missing.json"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn each_wave_size_of_an_op_is_its_own_row() {
    let dir = temp_dir("matrix-waves");
    let r = json!({
        "format": 1,
        "meta": {"backend": "emu", "device": "emu"},
        "ops": [
            {"op": "ds_bpermute_b32", "wave": 32, "fidelity": {"exact": 10}},
            {"op": "ds_bpermute_b32", "wave": 64, "fidelity": {"mismatch": 3, "exact": 7}},
        ],
    });
    let p = dir.join("r.json");
    std::fs::write(&p, r.to_string()).unwrap();
    let out = ds(&["matrix", p.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("| `ds_bpermute_b32` | exact 10 |"), "{md}");
    assert!(
        md.contains("| `ds_bpermute_b32 wave64` | **mismatch**"),
        "{md}"
    );
}
