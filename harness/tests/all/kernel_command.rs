//! `ds-harness kernel`: for every target with kernels (generic targets included) it writes a code
//! object each installed oracle LLVM's `llvm-readelf -h` reads as that target (gfx1153's machine
//! value; a generic target's generic version and code object v6); `--wave 64` writes a wave64 code
//! object (gfx11 and gfx12); offsets are read in hex and must fit the op's offset form.

use crate::common;
use crate::common::code;
use crate::common::ds_harness_no_env as ds;
use crate::common::s;
use crate::common::temp_dir;
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;

use common::llvm::installed;
use common::{ds_harness, run, stderr, stdout};
use ds_isa::target::all;
use ds_kernels::code_object;

/// `llvm-readelf -h`'s Flags of a `kernel ds_add_rtn_u32 --target T` code object for the targets
/// issue 31 added, as the issue states them.
const ISSUE_31_FLAGS: [(&str, &str); 10] = [
    ("gfx1250", "0x549, gfx1250, xnack, sramecc"),
    ("gfx1251", "0x55a, gfx1251, xnack, sramecc"),
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
    let dir = common::temp_dir("kernel");
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
fn kernel_target_gfx1200_wave_64_writes_a_gfx12_wave64_code_object() {
    let dir = temp_dir("g12w64-kernel");
    let file = dir.join("k.co");
    let out = ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--target",
        "gfx1200",
        "--wave",
        "64",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let co = code_object::read(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(co.target, Target::by_name("gfx1200").unwrap());
    assert_eq!(co.kernels[0].descriptor.wave_size(), WaveSize::Wave64);
    assert!(
        co.kernels[0].name.ends_with("_w64"),
        "{}",
        co.kernels[0].name
    );
}

#[test]
fn kernel_wave_64_writes_a_wave64_code_object() {
    let dir = temp_dir("w64-kernel");
    let file = dir.join("k.co");
    let out = ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--wave",
        "64",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let co = code_object::read(&std::fs::read(&file).unwrap()).unwrap();
    let k = &co.kernels[0];
    assert!(k.name.ends_with("_w64"), "{}", k.name);
    assert_eq!(k.descriptor.wave_size(), WaveSize::Wave64);
    let listing = stdout(&ds(&[
        "kernel",
        "ds_bpermute_b32",
        "--wave",
        "64",
        "--listing",
    ]));
    assert!(listing.contains("s_mov_b64 exec, -1"), "{listing}");
    let listing32 = stdout(&ds(&["kernel", "ds_bpermute_b32", "--listing"]));
    assert!(!listing32.contains("s_mov_b64 exec"), "{listing32}");
}

#[test]
fn kernel_offsets_take_hex() {
    let dir = temp_dir("careless-kernel-hex");
    let o = ds(&[
        "kernel",
        "ds_add_u32",
        "--offset",
        "0x10",
        "--out",
        s(&dir.join("k.co")),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = ds(&["kernel", "ds_add_u32", "--offset", "0x1ffff", "--listing"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

// Finding 10: the small ones.
#[test]
fn kernel_offsets_must_fit_the_ops_offset_form() {
    let out = ds(&["kernel", "ds_store_2addr_b32", "--offset", "8", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--offset0 N --offset1 M"),
        "{}",
        stderr(&out)
    );
    let out = ds(&["kernel", "ds_add_u32", "--offset1", "8", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("use --offset N"), "{}", stderr(&out));
    let out = ds(&["kernel", "ds_add_u32", "--lds-size", "6", "--listing"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--lds-size 6"), "{}", stderr(&out));
    let out = ds(&[
        "kernel",
        "ds_store_2addr_b32",
        "--offset0",
        "8",
        "--listing",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("offset0:8"), "{}", stdout(&out));
}
