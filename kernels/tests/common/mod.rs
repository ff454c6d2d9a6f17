//! Shared helpers of the ds-kernels integration tests: the LLVM oracles (`llvm`, the one list of
//! releases and generations every oracle test of the workspace runs, shared with the reference
//! crate's tests), finding external tools (skip with a reason locally, fail under `CI=true`), the
//! kernels every test builds, and temporary files.
#![allow(dead_code)]

#[path = "../../../reference/tests/common/llvm.rs"]
pub mod llvm;

use ds_isa::ds::{runnable_ops, DsOp, OffsetForm};
use ds_isa::gen::Generation;
use ds_kernels::generator::{generate_for, Kernel};
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

/// The versioned tool `name` of `llvm` (`llvm-objdump` -> `llvm-objdump-22`) if it runs;
/// `None` after [`missing`] otherwise (its release's llvm-mc may be there without it).
pub fn tool(llvm: &llvm::Llvm, name: &str) -> Option<PathBuf> {
    let path = llvm.tool(name);
    let ok = Command::new(&path)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(path)
    } else {
        missing(
            &path.display().to_string(),
            &format!("the Debian package {}", llvm::package(name, llvm.major)),
        );
        None
    }
}

/// The oracle pairs (`llvm::pairs()`) of the generations the kernel template is written for (the
/// others' kernels are not built yet: `ds_kernels::check_target`).
pub fn kernel_pairs() -> Vec<llvm::Pair> {
    llvm::pairs()
        .into_iter()
        .filter(|p| ds_kernels::check_target(p.cpu).is_ok())
        .collect()
}

/// Every target code objects are built for, processors and generic targets, in table order.
pub fn code_object_targets() -> Vec<&'static ds_isa::target::Target> {
    ds_isa::target::all()
        .filter(|t| ds_kernels::check_target(t).is_ok())
        .collect()
}

/// Every (installed LLVM, code-object target it knows) pair, printed.
pub fn llvm_targets() -> Vec<(llvm::Llvm, &'static ds_isa::target::Target)> {
    let mut out = Vec::new();
    for l in llvm::installed() {
        let known: Vec<_> = code_object_targets()
            .into_iter()
            .filter(|t| l.knows(t))
            .collect();
        let unknown: Vec<&str> = code_object_targets()
            .into_iter()
            .filter(|t| !l.knows(t))
            .map(|t| t.name)
            .collect();
        println!(
            "{}: targets {}{}",
            l.label(),
            known.iter().map(|t| t.name).collect::<Vec<_>>().join(", "),
            if unknown.is_empty() {
                String::new()
            } else {
                format!(
                    " (unknown to it, not checked by it: {})",
                    unknown.join(", ")
                )
            }
        );
        out.extend(known.into_iter().map(|t| (l.clone(), t)));
    }
    out
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
        acc: false,
    }
}

/// One kernel per runnable op (117).
pub fn all_kernels() -> Vec<Kernel> {
    runnable_ops(Generation::Gfx11)
        .map(|op| generate_for(ds_isa::target::DEFAULT, &variant(op)).unwrap())
        .collect()
}

/// One kernel per runnable op of `target` (117 gfx11, 123 gfx12; gfx9 per target), in its
/// encodings and its first wave size (wave32 where it runs it; gfx9 wave64).
pub fn all_kernels_for(target: &'static ds_isa::target::Target) -> Vec<Kernel> {
    let wave = ds_kernels::wave_sizes(target)[0];
    ds_isa::ds::runnable_ops_on(target)
        .map(|op| {
            let v = Variant {
                wave,
                ..variant(op)
            };
            ds_kernels::generator::generate_for(target, &v).unwrap()
        })
        .collect()
}

/// The kernel's DS instruction under test is newer than LLVM `major` (the DS table's oracle
/// column): that release cannot check its one DS line.
pub fn beyond(k: &Kernel, major: u32) -> bool {
    !k.variant.op.info().oracle.known_to(major)
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

/// The text `llvm-objdump` prints for the padding between kernels on `t`: `s_code_end`, or
/// where the generation has none (gfx9) the `s_nop 0` our decoder reads.
pub fn padding_text(t: &ds_isa::target::Target) -> String {
    let padding = ds_kernels::template::of(t.generation)
        .expect("kernels are built for the target")
        .code_padding();
    match ds_isa::inst::decode(t, &padding) {
        Ok((inst, _)) => inst.text(t.generation).to_string(),
        Err(_) => "s_code_end".to_string(),
    }
}
