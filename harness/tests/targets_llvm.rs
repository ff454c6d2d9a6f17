//! The targets beyond the first processors, through the CLI as a user runs it: `ds-harness kernel
//! --target T` writes a code object each installed oracle LLVM's `llvm-readelf -h` reads as T
//! (gfx1153's machine value; a generic target's generic version and code object v6), for every
//! target with kernels, generic targets included; the emulated device runs a generic target's
//! code objects in the wave sizes its family's processors run, every runnable op agreeing with
//! the model; and the hip device refuses a generic target in words (a GPU reports its processor,
//! and the hip device runs the code object built for it).

mod common;

use common::llvm::installed;
use common::{ds_harness, ds_harness_env, run, standin_lib, stderr, stdout};
use ds_isa::target::{all, GENERIC_TARGETS};
use ds_kernels::code_object;
use serde_json::Value;

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("ds-targets-llvm-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `llvm-readelf -h`'s Flags of a `kernel ds_add_rtn_u32 --target T` code object for the targets
/// issue 31 added, as the issue states them.
const ISSUE_31_FLAGS: [(&str, &str); 8] = [
    ("gfx902", "0x12d, gfx902, xnack"),
    ("gfx904", "0x12e, gfx904, xnack"),
    ("gfx909", "0x131, gfx909, xnack"),
    ("gfx90c", "0x132, gfx90c, xnack"),
    ("gfx9-generic", "0x1000151, gfx9-generic, xnack, generic_v1"),
    (
        "gfx9-4-generic",
        "0x100055f, gfx9-4-generic, xnack, sramecc, generic_v1",
    ),
    (
        "gfx10-1-generic",
        "0x1000152, gfx10-1-generic, xnack, generic_v1",
    ),
    ("gfx10-3-generic", "0x1000053, gfx10-3-generic, generic_v1"),
];

#[test]
fn kernel_writes_a_code_object_llvm_readelf_reads_as_its_target() {
    let dir = tmp("kernel");
    let targets: Vec<_> = all()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .collect();
    assert!(targets.iter().any(|t| t.is_generic()));
    for t in &targets {
        let co = dir.join(format!("{t}.co"));
        let out = ds_harness(
            &[
                "kernel",
                "ds_add_rtn_u32",
                "--target",
                t.name,
                "--out",
                co.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{t}: {}", stderr(&out));
        let bytes = std::fs::read(&co).unwrap();
        let read = code_object::read(&bytes).unwrap();
        assert_eq!((read.target, read.e_flags), (*t, code_object::e_flags(t)));
    }
    for llvm in installed() {
        let Some(readelf) = Some(llvm.tool("llvm-readelf"))
            .filter(|p| common::tool(p.to_str().unwrap(), "install the Debian llvm package"))
        else {
            continue;
        };
        let mut shown = Vec::new();
        for t in targets.iter().filter(|t| llvm.knows(t)) {
            let co = dir.join(format!("{t}.co"));
            let out = run(readelf.to_str().unwrap(), &["-h", co.to_str().unwrap()], "");
            let text = stdout(&out);
            let flags = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("Flags:"))
                .unwrap_or_else(|| panic!("{t}: no Flags line:\n{text}"))
                .trim()
                .to_ascii_lowercase();
            // llvm-readelf names the xnack-any (0x100) and sramecc-any (0x400) bits the gfx9
            // and RDNA 1 targets (and their generic targets) carry, then the generic version.
            let mut want = format!("{:#x}, {t}", code_object::e_flags(t));
            if t.target_id.xnack {
                want.push_str(", xnack");
            }
            if t.target_id.sramecc {
                want.push_str(", sramecc");
            }
            if t.is_generic() {
                want.push_str(&format!(", generic_v{}", t.generic_version));
            }
            assert_eq!(flags, want, "{} {t}", llvm.label());
            // The issue's words for the targets it added (issue 31), as LLVM 22 prints them.
            if let Some((_, said)) = ISSUE_31_FLAGS.iter().find(|(n, _)| *n == t.name) {
                assert_eq!(flags, *said, "{} {t}", llvm.label());
            }
            let abi = format!(
                "ABI Version:                       {}",
                code_object::abi_version(t)
            );
            assert!(text.contains(&abi), "{} {t}: {text}", llvm.label());
            shown.push(format!("`{flags}`"));
        }
        println!("{} -h: {}", llvm.label(), shown.join(", "));
        if llvm.major >= 22 {
            for (name, _) in ISSUE_31_FLAGS {
                assert!(
                    shown
                        .iter()
                        .any(|s| s.contains(&format!(", {name},"))
                            || s.ends_with(&format!(", {name}`"))),
                    "{name} was not shown: {shown:?}"
                );
            }
        }
    }
}

#[test]
fn the_emulated_device_runs_every_op_of_a_generic_target_in_both_wave_sizes() {
    for g in GENERIC_TARGETS {
        let dir = tmp(g.name);
        let json = dir.join("r.json");
        let out = ds_harness(
            &[
                "run",
                "--backend",
                "emu",
                "--target",
                g.name,
                "--cases",
                "4",
                "--out",
                dir.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{g}: {}", stderr(&out));
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(r["meta"]["target"], g.name);
        // The wave sizes runs take on the family's processors.
        let member = g.members().next().unwrap();
        let waves: Vec<u64> = ds_kernels::wave_sizes(member)
            .iter()
            .map(|w| w.lanes() as u64)
            .collect();
        assert_eq!(ds_kernels::wave_sizes(g), ds_kernels::wave_sizes(member));
        assert_eq!(r["meta"]["waves"], serde_json::json!(waves), "{g}");
        let ops = ds_isa::ds::runnable_ops_on(g).count() as u64;
        assert_eq!(r["totals"]["ops"], ops, "{g}");
        assert_eq!(r["totals"]["disagree"], 0, "{g}");
        assert_eq!(r["totals"]["errors"], 0, "{g}");
        println!(
            "emu {g}: {ops} ops in wave {waves:?}, {} cases, all agree",
            r["totals"]["cases"]
        );
    }
}

#[test]
fn the_hip_device_refuses_a_generic_target_in_words() {
    let Some(lib) = standin_lib() else { return };
    let env = [
        ("DS_HARNESS_HIP_LIB", lib.as_str()),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ];
    for g in GENERIC_TARGETS {
        let out = ds_harness_env(
            &[
                "run",
                "--backend",
                "hip",
                "--target",
                g.name,
                "--op",
                "ds_add_u32",
                "--cases",
                "1",
            ],
            &env,
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{g}: {err}");
        assert!(
            err.contains(&format!("--target {g} was asked for"))
                && err.contains(&format!("{g} is a generic target, which no GPU reports"))
                && err.contains(&format!("--backend emu --target {g}")),
            "{g}: {err}"
        );
        // No `--device N` of a generic target can exist: none is suggested.
        assert!(
            !err.contains(&format!("pick a {g} with --device N")),
            "{g}: {err}"
        );
    }
}
