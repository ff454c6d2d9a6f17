//! Shared helpers of the ds-kernels integration tests: finding external tools (skip with a reason
//! locally, fail under `CI=true`), the kernels every test builds, and temporary files.
#![allow(dead_code)]

use ds_kernels::generator::{generate, Kernel};
use ds_kernels::isa::{runnable_ops, DsOp, OffsetForm};
use ds_reference::wave::{FpMode, Variant};
use std::path::PathBuf;
use std::process::Command;

/// Handles a missing external dependency: under `CI=true` the test fails, otherwise it prints why
/// it skips and the caller returns.
pub fn missing(what: &str, install: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{what} is missing and CI=true: install {install}");
    }
    eprintln!("skipping: {what} is missing (install {install})");
}

/// The path of an LLVM tool if it runs (`llvm-mc-19`, `llvm-objdump-19`, `llvm-readelf-19`,
/// `ld.lld-19`); `None` after [`missing`] otherwise.
pub fn tool(name: &str) -> Option<PathBuf> {
    let ok = Command::new(name)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(PathBuf::from(name))
    } else {
        let pkg = if name.starts_with("ld.lld") {
            "lld-19"
        } else {
            "llvm-19"
        };
        missing(name, &format!("the Debian package {pkg}"));
        None
    }
}

/// Runs a tool, panicking with its stderr when it fails.
pub fn run(tool: &PathBuf, args: &[&str], stdin: Option<&str>) -> String {
    use std::io::Write;
    let mut child = Command::new(tool)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{stderr}",
        tool.display()
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh directory for one test's files.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ds-kernels-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The variant the tool tests build for `op`: offsets that exercise the op's offset form
/// (a 16-bit offset of 272, offset0:1 offset1:2, a quad-perm swizzle), the default LDS size.
pub fn variant(op: DsOp) -> Variant {
    let (offset0, offset1) = match op.info().offset {
        OffsetForm::Single => (16, 1),
        OffsetForm::Pair | OffsetForm::Stride64 => (1, 2),
        OffsetForm::Swizzle => (0x1b, 0x80),
        OffsetForm::NoOffset => (0, 0),
    };
    Variant {
        op,
        offset0,
        offset1,
        lds_size: ds_kernels::DEFAULT_LDS_SIZE,
        mode: FpMode::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
    }
}

/// One kernel per runnable op (117).
pub fn all_kernels() -> Vec<Kernel> {
    runnable_ops()
        .map(|op| generate(&variant(op)).unwrap())
        .collect()
}

/// One kernel per runnable op of `target`'s generation, in its encodings (117 gfx11, 121 gfx12).
pub fn all_kernels_for(target: &ds_reference::target::Target) -> Vec<Kernel> {
    ds_reference::isa::runnable_ops_in(target.generation)
        .map(|op| ds_kernels::generator::generate_for(target, &variant(op)).unwrap())
        .collect()
}

/// The kernel's DS instruction under test is newer than LLVM 19 (no LLVM 19 oracle for it).
pub fn beyond_llvm19(k: &Kernel) -> bool {
    k.variant.op.info().oracle == ds_reference::isa::Oracle::IsaGuide
}

/// comgr (`libamd_comgr.so.2`, Debian `libamd-comgr2`), loaded at test time; `None` after
/// [`missing`] when it is not installed.
pub fn comgr() -> Option<libloading::Library> {
    for name in ["libamd_comgr.so.2", "libamd_comgr.so"] {
        // SAFETY: loading comgr runs its initialisers, which have no preconditions.
        if let Ok(lib) = unsafe { libloading::Library::new(name) } {
            return Some(lib);
        }
    }
    missing(
        "comgr (libamd_comgr.so.2)",
        "the Debian package libamd-comgr2",
    );
    None
}
