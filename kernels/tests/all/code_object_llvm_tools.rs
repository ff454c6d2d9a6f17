//! Every runnable op's kernel in one code object per target kernels are built for (every row of
//! the target table and every generic target, each in its generation's encodings), read back by
//! each installed oracle LLVM's tools (19 and 22, each for the targets it knows) in one call each:
//! `llvm-objdump-N -d --mcpu=<target>` must print exactly our listing for every kernel,
//! `llvm-readelf-N` must find the header (with the target's machine value, a generic target's
//! generic version and code object v6), segments, symbols and complete metadata, and
//! `llvm-mc-N -mcpu=<target>` must assemble every listing to exactly our bytes and disassemble our
//! bytes to exactly our listing. The one line a release cannot check is the DS instruction under
//! test of an op newer than it (`common::beyond`: the two runnable gfx12 ops LLVM 19 lacks);
//! every other line of their kernels is.

use crate::common;

use common::llvm::Llvm;
use ds_isa::ds_features::DsFeatures;
use ds_isa::inst::{decode, encode, Inst};
use ds_isa::target::Target;
use ds_kernels::code_object;
use ds_kernels::generator::Kernel;

/// Runnable ops per target: gfx11 117, gfx12 all its 123 (the 8-dword BVH forms too), gfx1250
/// all its 128, gfx10 116, gfx9 the same 116, then on gfx9/gfx10 by DS feature: 31 src2 ops
/// (gfx1010-1013, gfx900-908), the 2 f64 adds (gfx90a and later), the 4 packed 16-bit adds
/// (gfx942, gfx950), the 4 transpose loads (gfx950; b4 and b6 run unjudged: ASSUMPTIONS.md V9).
fn expected_runnable(t: &Target) -> usize {
    let has = |f| usize::from(t.ds_features.contains(f));
    match t.generation {
        ds_isa::ds::Generation::Gfx9 | ds_isa::ds::Generation::Gfx10 => {
            116 + 31 * has(DsFeatures::SRC2)
                + 2 * has(DsFeatures::F64)
                + 4 * has(DsFeatures::PK16)
                + 4 * has(DsFeatures::TR)
        }
        ds_isa::ds::Generation::Gfx11 => 117,
        ds_isa::ds::Generation::Gfx12 => 123,
        // All 128 (the barrier arrives, the 4- and 6-bit transposes run unjudged in part or
        // whole: ASSUMPTIONS.md C1-C3).
        ds_isa::ds::Generation::Gfx12_5 => 128,
    }
}

fn write_all(test: &str, target: &'static Target) -> (Vec<Kernel>, std::path::PathBuf) {
    let kernels = common::all_kernels_for(target);
    assert_eq!(kernels.len(), expected_runnable(target), "{target}");
    let path = common::temp_dir(test).join(format!("all-{target}.co"));
    std::fs::write(&path, code_object::write(target, &kernels)).unwrap();
    (kernels, path)
}

/// Every target's kernels are the instructions they were built from, back to back, in the
/// target's generation's encodings (no LLVM needed).
#[test]
fn every_target_gets_a_kernel_per_runnable_op_that_decodes_back() {
    for t in common::code_object_targets() {
        let ks = common::all_kernels_for(t);
        assert_eq!(ks.len(), expected_runnable(t), "{t}");
        for k in &ks {
            assert_eq!(k.gen, t.generation);
            let mut at = 0;
            for (inst, _) in &k.insts {
                let (back, len) = decode(t, &k.code[at..])
                    .unwrap_or_else(|e| panic!("{t} {}: byte {at}: {e}", k.name));
                assert_eq!(&back, inst, "{t} {} at byte {at}", k.name);
                at += len;
            }
            assert_eq!(at, k.code.len(), "{t} {}", k.name);
        }
    }
}

#[test]
fn llvm_objdump_disassembles_every_kernel_to_our_listing() {
    for (llvm, t) in common::llvm_targets() {
        let Some(objdump) = common::tool(&llvm, "llvm-objdump") else {
            continue;
        };
        objdump_matches_listing(&llvm, &objdump, t);
    }
}

fn objdump_matches_listing(llvm: &Llvm, objdump: &std::path::PathBuf, t: &'static Target) {
    let (kernels, path) = write_all("objdump", t);
    let mcpu = format!("--mcpu={t}");
    let pad = common::padding_text(t);
    let out = common::run(objdump, &["-d", &mcpu, path.to_str().unwrap()], None);
    // Split the disassembly at `<symbol>:` lines; keep each instruction's text.
    let mut by_symbol = std::collections::HashMap::<String, Vec<String>>::new();
    let mut current = None;
    for line in out.lines() {
        if let Some(name) = line
            .strip_suffix(">:")
            .and_then(|l| l.split_once(" <"))
            .map(|(_, n)| n)
        {
            current = Some(name.to_string());
            by_symbol.insert(name.to_string(), Vec::new());
        } else if let (Some(name), Some(text)) = (&current, line.strip_prefix('\t')) {
            let text = text.split("//").next().unwrap().trim().to_string();
            by_symbol.get_mut(name).unwrap().push(text);
        }
    }
    assert_eq!(
        by_symbol.len(),
        kernels.len(),
        "{t}: objdump saw other symbols: {:?}",
        by_symbol.keys()
    );
    for k in &kernels {
        let got = &by_symbol[&k.name];
        let listing = k.listing();
        let ours: Vec<&str> = listing.lines().collect();
        assert!(
            got.len() >= ours.len(),
            "{}: objdump printed {} lines, we have {}",
            k.name,
            got.len(),
            ours.len()
        );
        if common::beyond(k, llvm.major) {
            // The release does not know the op under test: every other line must still agree.
            let ds = k
                .insts
                .iter()
                .position(|(i, _)| matches!(i, ds_isa::inst::Inst::Ds(d) if d.op == k.variant.op))
                .expect("the instruction under test");
            assert_eq!(&got[..ds], &ours[..ds], "{t}: {}", k.name);
            assert_ne!(
                got[ds],
                ours[ds],
                "{t}: {} now knows {}",
                llvm.label(),
                k.variant.op
            );
            // An unknown 8-byte word may print as one or two lines before the next instruction.
            let after = &ours[ds + 1..];
            let skip = (1..=2)
                .find(|&n| {
                    got.get(ds + n..ds + n + after.len())
                        .is_some_and(|g| g.iter().zip(after).all(|(a, b)| a == b))
                })
                .unwrap_or_else(|| {
                    panic!("{t}: {}: objdump out of step after the DS line", k.name)
                });
            assert!(got[ds + skip + after.len()..].iter().all(|l| *l == pad));
            continue;
        }
        assert_eq!(&got[..ours.len()], &ours[..], "{t}: {}", k.name);
        // After the kernel: only the s_code_end padding up to the next 256-byte boundary.
        assert!(
            got[ours.len()..].iter().all(|l| *l == pad),
            "{}: {:?}",
            k.name,
            &got[ours.len()..]
        );
        let pad = 4 * (got.len() - ours.len());
        // The last kernel: LLVM's padding after the code (to the instruction-cache line, then
        // whole lines), where the target has it; the others up to the next kernel.
        let last = kernels.last().is_some_and(|l| l.name == k.name);
        let end = ds_kernels::code_object::code_end(t).map_or(0, |e| {
            let line = e.line_bytes as usize;
            k.code.len().next_multiple_of(line) - k.code.len() + (e.lines as usize) * line
        });
        assert!(
            if last {
                pad == end
            } else {
                pad == 0 || (k.code.len() + pad) & 255 == 0
            },
            "{}: {pad} bytes of padding",
            k.name
        );
    }
}

/// Every line of every kernel a release knows (all but the DS line of an op newer than it), with
/// our bytes for it.
fn known_lines(llvm: &Llvm, t: &'static Target) -> (Vec<String>, Vec<Vec<u8>>) {
    let (mut lines, mut bytes) = (Vec::new(), Vec::new());
    for k in &common::all_kernels_for(t) {
        for (inst, _) in &k.insts {
            if common::beyond(k, llvm.major) && matches!(inst, Inst::Ds(d) if d.op == k.variant.op)
            {
                continue;
            }
            lines.push(inst.text(t.generation).to_string());
            bytes.push(encode(t, inst).unwrap());
        }
    }
    (lines, bytes)
}

#[test]
fn llvm_mc_assembles_every_listing_to_our_code() {
    for (llvm, t) in common::llvm_targets() {
        let (lines, ours) = known_lines(&llvm, t);
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mcpu = format!("-mcpu={t}");
        let out = common::run(
            &llvm.mc(),
            &["-arch=amdgcn", &mcpu, "-show-encoding"],
            Some(&input),
        );
        let got = encoded_bytes(&out);
        let ours: Vec<u8> = ours.concat();
        if got != ours {
            let at = got.iter().zip(&ours).position(|(a, b)| a != b);
            panic!(
                "{t}: {} and our assembler differ (at byte {at:?})",
                llvm.label()
            );
        }
        println!(
            "{} {t}: {} listing lines assemble to our bytes",
            llvm.label(),
            lines.len()
        );
    }
}

/// llvm-mc's disassembler (not objdump's) reads every instruction word of every kernel back to our
/// listing line.
#[test]
fn llvm_mc_disassembles_every_kernel_to_our_listing() {
    for (llvm, t) in common::llvm_targets() {
        let (texts, words) = known_lines(&llvm, t);
        let input: String = words
            .iter()
            .map(|b| {
                b.iter()
                    .map(|x| format!("{x:#04x}"))
                    .collect::<Vec<_>>()
                    .join(",")
                    + "\n"
            })
            .collect();
        let out = common::run(
            &llvm.mc(),
            &["-arch=amdgcn", &format!("-mcpu={t}"), "-disassemble"],
            Some(&input),
        );
        let got: Vec<&str> = out
            .lines()
            .map(|l| l.split(';').next().unwrap().trim())
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .collect();
        assert_eq!(
            got.len(),
            texts.len(),
            "{} {t}: llvm-mc output:\n{out}",
            llvm.label()
        );
        for (g, w) in got.iter().zip(&texts) {
            assert_eq!(g, w, "{} {t}", llvm.label());
        }
        println!(
            "{} {t}: {} instructions disassemble to our listing",
            llvm.label(),
            texts.len()
        );
    }
}

/// The bytes of every `; encoding: [...]` of llvm-mc's output, in order.
fn encoded_bytes(out: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in out.lines() {
        if let Some((_, enc)) = line.split_once("encoding: [") {
            for b in enc.trim_end_matches(']').split(',') {
                bytes.push(u8::from_str_radix(b.trim_start_matches("0x"), 16).unwrap());
            }
        }
    }
    bytes
}

/// The `key: value` lines of one kernel's map in readelf's YAML rendering of the metadata.
fn kernel_maps(yaml: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut maps = Vec::new();
    let mut in_kernels = false;
    for line in yaml.lines() {
        if line.starts_with("amdhsa.kernels:") {
            in_kernels = true;
            continue;
        }
        if !line.starts_with(' ') {
            in_kernels = false;
        }
        if !in_kernels {
            continue;
        }
        let entry = if let Some(rest) = line.strip_prefix("  - ") {
            maps.push(std::collections::HashMap::new());
            rest
        } else if let Some(rest) = line.strip_prefix("    ") {
            if rest.starts_with(' ') || rest.starts_with('-') {
                continue; // inside .args
            }
            rest
        } else {
            continue;
        };
        if let Some((k, v)) = entry.split_once(':') {
            maps.last_mut()
                .unwrap()
                .insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    maps
}

#[test]
fn llvm_readelf_finds_header_segments_symbols_and_complete_metadata() {
    for (llvm, t) in common::llvm_targets() {
        let Some(readelf) = common::tool(&llvm, "llvm-readelf") else {
            continue;
        };
        readelf_finds_everything(&llvm, &readelf, t);
    }
}

fn readelf_finds_everything(llvm: &Llvm, readelf: &std::path::PathBuf, t: &'static Target) {
    let (kernels, path) = write_all("readelf", t);
    let out = common::run(
        readelf,
        &["-h", "-l", "--dyn-syms", "--notes", path.to_str().unwrap()],
        None,
    );
    // The machine value (LLVM 19 in upper-case hex, LLVM 22 in lower case), the target's name, its
    // target-id features (`0x12d, gfx902, xnack`), and a generic target's generic version.
    let flags = code_object::e_flags(t);
    let features: String = [
        ("xnack", t.target_id.xnack),
        ("sramecc", t.target_id.sramecc),
    ]
    .iter()
    .filter(|(_, has)| *has)
    .map(|(name, _)| format!(", {name}"))
    .collect();
    let flags = if t.is_generic() {
        format!(
            "flags:                             {flags:#x}, {t}{features}, generic_v{}",
            t.generic_version
        )
    } else {
        format!("flags:                             {flags:#x}, {t}{features}\n")
    };
    let abi = format!(
        "ABI Version:                       {}",
        code_object::abi_version(t)
    );
    let target_id = format!("amdhsa.target:   amdgcn-amd-amdhsa--{t}");
    for expected in [
        "OS/ABI:                            AMDGPU - HSA",
        &abi,
        "Type:                              DYN (Shared object file)",
        "Machine:                           EM_AMDGPU",
        "NT_AMDGPU_METADATA (AMDGPU Metadata)",
        &target_id,
    ] {
        assert!(
            out.contains(expected),
            "{} {t}: readelf output lacks `{expected}`",
            llvm.label()
        );
    }
    assert!(
        out.to_ascii_lowercase().contains(&flags),
        "{} {t}: readelf output lacks `{flags}`",
        llvm.label()
    );
    let segments: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Program Headers:"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        segments,
        [
            "PHDR",
            "LOAD",
            "LOAD",
            "LOAD",
            "DYNAMIC",
            "GNU_RELRO",
            "GNU_STACK",
            "NOTE"
        ]
    );
    let dynsyms: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.contains(" GLOBAL "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(dynsyms.len(), 2 * kernels.len());
    let maps = kernel_maps(&out);
    assert_eq!(maps.len(), kernels.len());
    for k in &kernels {
        let func = dynsyms
            .iter()
            .find(|s| s[7] == k.name)
            .unwrap_or_else(|| panic!("no symbol {}", k.name));
        assert_eq!(func[3], "FUNC");
        assert_eq!(func[2], k.code.len().to_string());
        let kd = dynsyms
            .iter()
            .find(|s| s[7] == format!("{}.kd", k.name))
            .unwrap();
        assert_eq!((kd[3], kd[2]), ("OBJECT", "64"));
        let m = maps
            .iter()
            .find(|m| m[".name"] == k.name)
            .unwrap_or_else(|| panic!("no metadata for {}", k.name));
        for key in [
            ".args",
            ".group_segment_fixed_size",
            ".kernarg_segment_align",
            ".kernarg_segment_size",
            ".max_flat_workgroup_size",
            ".name",
            ".private_segment_fixed_size",
            ".sgpr_count",
            ".symbol",
            ".vgpr_count",
            ".wavefront_size",
        ] {
            assert!(m.contains_key(key), "{}: metadata lacks {key}", k.name);
        }
        assert_eq!(m[".symbol"], format!("{}.kd", k.name));
        assert_eq!(
            m[".group_segment_fixed_size"],
            k.variant.lds_size.to_string()
        );
        assert_eq!(m[".kernarg_segment_size"], "40");
        assert_eq!(m[".wavefront_size"], k.variant.wave.lanes().to_string());
        assert_eq!(m[".vgpr_count"], k.vgpr_count.to_string());
        assert_eq!(m[".sgpr_count"], k.sgpr_count.to_string());
        assert_eq!(
            m[".max_flat_workgroup_size"],
            k.variant.wave.lanes().to_string()
        );
    }
    // Five global_buffer args per kernel.
    assert_eq!(
        out.matches(".value_kind:     global_buffer").count(),
        5 * kernels.len()
    );
}
