//! The target table's errata column against LLVM: for every row each installed `llc` (19, 22)
//! knows, LLVM works around an erratum exactly where the row says the target has it.
//! - VMEM-to-scalar-write: `-run-pass=post-RA-hazard-rec` puts `S_WAITCNT_DEPCTR` between a DS
//!   load and a scalar write of EXEC.
//! - LDS-branch-VMEM WAR: the same pass puts `S_WAITCNT_VSCNT` between an LDS store and a global
//!   store that a branch separates.
//! - LDS misaligned (WGP mode): a 64-bit LDS load of alignment 1 (unaligned access mode on) is
//!   split into `ds_read2_b32` in WGP mode, and not in CU mode (`+cumode`).

use crate::common;

use common::llvm::{installed, Llvm};
use ds_isa::errata::Errata;
use ds_isa::target::{all, Target};
use rayon::prelude::*;
use std::io::Write;
use std::process::{Command, Stdio};

const SCALAR_WRITE: &str = "---
name: k
tracksRegLiveness: false
body: |
  bb.0:
    $vgpr16_vgpr17 = DS_READ_B64_gfx9 $vgpr4, 0, 0, implicit $exec
    $exec_lo = S_MOV_B32 -1
    S_ENDPGM 0
...
";

const BRANCH: &str = "---
name: k
tracksRegLiveness: false
body: |
  bb.0:
    DS_WRITE_B32_gfx9 $vgpr1, $vgpr2, 0, 0, implicit $exec
    S_BRANCH %bb.1
  bb.1:
    GLOBAL_STORE_DWORD_SADDR $vgpr1, $vgpr2, $sgpr4_sgpr5, 0, 0, implicit $exec
    S_ENDPGM 0
...
";

const MISALIGNED: &str = "
define amdgpu_kernel void @k(ptr addrspace(3) %p, ptr addrspace(1) %o) {
  %v = load i64, ptr addrspace(3) %p, align 1
  store i64 %v, ptr addrspace(1) %o
  ret void
}
";

/// The module flag that asks for code object version 6.
const CODE_OBJECT_V6: &str =
    "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 600}\n";

/// `llc-N` for `t` with extra arguments, `input` on stdin; its output.
fn llc(llvm: &Llvm, t: &Target, args: &[&str], input: &str) -> String {
    let mut child = Command::new(llvm.tool("llc"))
        .args([
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={t}"),
            "-o",
            "-",
        ])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (installed with llvm-mc)",
                llvm.tool("llc").display()
            )
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "llc-{} {t} {args:?}: {}",
        llvm.major,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The errata LLVM works around on `t`.
fn llvm_errata(llvm: &Llvm, t: &Target) -> Errata {
    let hazard = |mir: &str, inserted: &str| {
        llc(
            llvm,
            t,
            &["-x", "mir", "-run-pass=post-RA-hazard-rec", "-"],
            mir,
        )
        .contains(inserted)
    };
    // Generic targets need code object version 6 (LLVM 19 defaults to 5).
    let ir = if t.is_generic() {
        format!("{MISALIGNED}{CODE_OBJECT_V6}")
    } else {
        MISALIGNED.to_string()
    };
    let split = |attrs: &str| {
        llc(llvm, t, &[&format!("-mattr={attrs}"), "-"], &ir).contains("ds_read2_b32")
    };
    let mut e = Errata::NONE;
    if hazard(SCALAR_WRITE, "S_WAITCNT_DEPCTR") {
        e = e.union(Errata::VMEM_SCALAR_WRITE);
    }
    if hazard(BRANCH, "S_WAITCNT_VSCNT") {
        e = e.union(Errata::LDS_BRANCH_VMEM_WAR);
    }
    if split("+unaligned-access-mode") {
        assert!(
            !split("+unaligned-access-mode,+cumode"),
            "{t}: LLVM splits the misaligned load in CU mode too"
        );
        e = e.union(Errata::LDS_MISALIGNED_WGP);
    }
    e
}

#[test]
fn each_rows_errata_are_what_llvm_works_around() {
    for llvm in installed() {
        // The rows side by side: one llc run each, and the test among the suite's longest.
        let rows: Vec<&Target> = all().filter(|t| llvm.knows(t)).collect();
        rows.par_iter().for_each(|t| {
            assert_eq!(
                t.errata.names(),
                llvm_errata(&llvm, t).names(),
                "{} {t}: the table's errata vs LLVM's",
                llvm.label()
            )
        });
        let with: Vec<&str> = (rows.iter())
            .filter(|t| t.errata != Errata::NONE)
            .map(|t| t.name)
            .collect();
        assert!(
            !with.is_empty(),
            "some row has an erratum, so the checks can fail"
        );
        println!(
            "{}: errata agree on every row it knows; rows with errata: {}",
            llvm.label(),
            with.join(", ")
        );
    }
}
