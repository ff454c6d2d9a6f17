//! The hip device on machines without a GPU: with Debian's real ROCm 5.2 runtime
//! (`libamdhip64-5`) and with no HIP library at all. `--backend hip` must exit 3 naming the library
//! it loaded (or every path tried) and saying no GPU was found, never falling back to another
//! device; `ds-harness info` must say the same; `--backend auto` must take emu and say why.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use serde_json::Value;

use common::{ds_harness_env, require, stderr, stdout};

const EXIT_BACKEND: i32 = 3;
const REAL_HIP: &str = "libamdhip64.so.5";

/// Debian's real HIP runtime, on a machine without a GPU. Skips (even in CI) on a machine that
/// has one (/dev/kfd), where "no GPU" is not the truth.
fn real_runtime_without_gpu() -> bool {
    if std::path::Path::new("/dev/kfd").exists() {
        eprintln!("skipped: /dev/kfd exists, this machine may have a GPU; these tests are for machines without one");
        return false;
    }
    // SAFETY: loading the HIP runtime only runs its initialisers.
    let loads = unsafe { libloading::Library::new(REAL_HIP) }.is_ok();
    require(
        loads,
        "Debian's ROCm 5.2 HIP runtime is missing: apt-get install -y libamdhip64-5",
    )
}

fn real_env() -> [(&'static str, &'static str); 2] {
    [
        ("DS_HARNESS_HIP_LIB", REAL_HIP),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ]
}

#[test]
fn backend_hip_with_the_real_runtime_and_no_gpu_exits_3_naming_the_library() {
    if !real_runtime_without_gpu() {
        return;
    }
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &real_env(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(EXIT_BACKEND), "{err}");
    assert!(
        err.contains("libamdhip64.so.5 (/"),
        "names the library and the file it resolved to: {err}"
    );
    assert!(
        err.contains("HIP runtime 5.2."),
        "gives the runtime version: {err}"
    );
    assert!(err.contains("no GPU was found"), "{err}");
    assert!(
        err.contains("hipErrorNoDevice"),
        "quotes HIP's own error: {err}"
    );
    assert!(err.contains("/dev/kfd"), "says what to check: {err}");
    assert!(
        stdout(&out).is_empty(),
        "no results are printed: {}",
        stdout(&out)
    );
}

#[test]
fn info_with_the_real_runtime_and_no_gpu_says_the_same_and_auto_takes_emu() {
    if !real_runtime_without_gpu() {
        return;
    }
    let out = ds_harness_env(&["info"], &real_env());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains("HIP library: libamdhip64.so.5 (/"), "{text}");
    assert!(
        text.contains("HSA runtime: libhsa-runtime64.so.1 (/"),
        "{text}"
    );
    assert!(
        text.contains("devices: none: ") && text.contains("no GPU was found"),
        "{text}"
    );
    assert!(
        text.contains("--backend auto: emu: the HIP runtime libamdhip64.so.5"),
        "{text}"
    );

    let out = ds_harness_env(&["info", "--json"], &real_env());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("info --json is JSON");
    assert!(
        v["library"]["path"]
            .as_str()
            .unwrap()
            .starts_with("libamdhip64.so.5"),
        "{v}"
    );
    assert!(
        v["no_devices"]
            .as_str()
            .unwrap()
            .contains("hipErrorNoDevice"),
        "{v}"
    );
    assert_eq!(v["devices"].as_array().unwrap().len(), 0);
    assert_eq!(v["auto"]["backend"], "emu");
}

#[test]
fn backend_auto_with_the_real_runtime_and_no_gpu_takes_emu_and_says_why() {
    if !real_runtime_without_gpu() {
        return;
    }
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "auto",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
        ],
        &real_env(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("backend: emu (--backend auto: the HIP runtime libamdhip64.so.5")
            && err.contains("no GPU was found, so the emulated device is used"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("ds_add_u32"),
        "the run happened on emu: {}",
        stdout(&out)
    );
}

const NOWHERE: &str = "/nonexistent/ds-harness-test/libamdhip64.so";

fn no_library_env() -> [(&'static str, &'static str); 2] {
    [
        ("DS_HARNESS_HIP_LIB", NOWHERE),
        ("DS_HARNESS_HIP_SEARCH", "only-env"),
    ]
}

#[test]
fn backend_hip_without_any_library_exits_3_listing_the_paths_tried_and_the_fix() {
    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "hip",
            "--op",
            "ds_add_u32",
            "--cases",
            "1",
        ],
        &no_library_env(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(EXIT_BACKEND), "{err}");
    assert!(
        err.contains("could not be loaded; tried 1 path(s)"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{NOWHERE}: {NOWHERE}: cannot open shared object file"
        )),
        "{err}"
    );
    assert!(
        err.contains("install ROCm") && err.contains("DS_HARNESS_HIP_LIB="),
        "{err}"
    );
}

#[test]
fn info_without_any_library_lists_the_paths_tried_and_auto_takes_emu() {
    let out = ds_harness_env(&["info"], &no_library_env());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains("HIP library: not found"), "{text}");
    assert!(text.contains(NOWHERE), "{text}");
    assert!(
        text.contains("--backend auto: emu: no HIP runtime could be loaded"),
        "{text}"
    );

    let out = ds_harness_env(
        &[
            "run",
            "--backend",
            "auto",
            "--op",
            "ds_add_u32",
            "--cases",
            "2",
        ],
        &no_library_env(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("backend: emu (--backend auto: no HIP runtime could be loaded"),
        "{err}"
    );
}

#[test]
fn an_override_is_the_whole_search_and_the_default_search_is_not_consulted() {
    // DS_HARNESS_HIP_LIB is an explicit request: tried alone, never followed by the system names,
    // ROCM_PATH or /opt/rocm (whose order `library::tests` pins), even where a runtime is installed.
    let out = ds_harness_env(
        &["info", "--json"],
        &[
            ("DS_HARNESS_HIP_LIB", NOWHERE),
            ("ROCM_PATH", "/nonexistent/rocm"),
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("info --json is JSON");
    assert!(v["library"].is_null(), "{v}");
    let tried: Vec<&str> = v["not_found"]["tried"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[0].as_str().unwrap())
        .collect();
    assert_eq!(tried, [NOWHERE]);
    assert_eq!(v["not_found"]["override_lib"], NOWHERE);
    assert_eq!(v["override_lib"]["loaded"], false);
}

#[test]
fn hsa_without_a_gpu_is_explained_in_hsas_own_words() {
    if !real_runtime_without_gpu() {
        return;
    }
    use ds_devices::hip::arch::{from_hsa, Pci};
    // libhsa-runtime64-1 comes with libamdhip64-5; without a GPU its hsa_init fails, and the
    // arch lookup must say so with HSA's own status string.
    let e = from_hsa(Pci {
        domain: 0,
        bus: 3,
        device: 0,
    })
    .unwrap_err();
    assert!(e.contains("hsa_init failed (libhsa-runtime64.so.1"), "{e}");
    assert!(e.contains("HSA_STATUS_ERROR"), "{e}");
}

/// A machine with Debian's ROCm 5.2 (found first by the loader's own search, `libamdhip64.so`)
/// and a newer runtime elsewhere (here the stand-in, installed under a 6.2 release's file name in
/// a directory of `LD_LIBRARY_PATH`): the newer one is loaded, since 5.2 cannot load code objects
/// for any gfx11 or gfx12 target.
#[test]
fn the_newest_installed_runtime_is_loaded_before_an_older_one_the_loader_finds_first() {
    if !real_runtime_without_gpu() {
        return;
    }
    let Some(standin) = common::standin_lib() else {
        return;
    };
    let root = common::temp_dir("newest-runtime");
    let dir = root.join("rocm-6.2.0").join("lib");
    std::fs::create_dir_all(&dir).unwrap();
    let newer = dir.join("libamdhip64.so.6.2.60200");
    std::fs::copy(&standin, &newer).unwrap();
    let out = ds_harness_env(&["info"], &[("LD_LIBRARY_PATH", dir.to_str().unwrap())]);
    let text = stdout(&out);
    let _ = std::fs::remove_dir_all(&root); // a 27 MB copy of the stand-in
    assert!(
        text.contains(&format!("HIP library: {}", newer.display())),
        "the 6.2 runtime is taken over Debian's 5.2: {text}\n{}",
        stderr(&out)
    );
}

#[test]
fn backend_hip_without_a_gpu_is_unavailable_not_a_fallback() {
    // The machine's own answer, asked of `info` (this test binary's in-process HIP library is the
    // stand-in: `common::standin_device`).
    let info: Value = serde_json::from_str(&stdout(&ds(&["info", "--json"]))).unwrap();
    let devices = info["devices"]
        .as_array()
        .expect("info --json lists devices");
    if devices.iter().any(|d| d["usable"] == true) {
        eprintln!("skipped: this machine has a usable HIP device");
        return;
    }
    let out = ds(&[
        "run",
        "--backend",
        "hip",
        "--op",
        "ds_add_u32",
        "--cases",
        "1",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("--backend hip needs a GPU of a supported target ("),
        "{e}"
    );
    assert!(!e.contains("backend: emu"), "{e}");
}
