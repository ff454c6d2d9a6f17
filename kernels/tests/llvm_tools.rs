//! Every runnable op's kernel in one code object per target kernels are built for (every row of
//! the target table, each in its generation's encodings), read back by the LLVM 19 tools in one
//! call each: `llvm-objdump-19 -d --mcpu=<target>` must print exactly our listing for every kernel,
//! `llvm-readelf-19` must find the header (with the target's machine value), segments, symbols and
//! complete metadata, and `llvm-mc-19 -mcpu=<target>` must assemble every listing to exactly our
//! bytes. The one line LLVM 19 cannot check is the DS instruction under test of the two runnable
//! gfx12 ops newer than LLVM 19 (`common::beyond_llvm19`): every other line of their kernels is.

mod common;

use ds_kernels::code_object;
use ds_kernels::generator::Kernel;
use ds_kernels::kernel_targets;
use ds_reference::target::Target;

/// Runnable ops per generation: gfx11 117, gfx12 121.
fn expected_runnable(t: &Target) -> usize {
    match t.generation {
        ds_reference::isa::Generation::Gfx11 => 117,
        ds_reference::isa::Generation::Gfx12 => 121,
    }
}

fn write_all(test: &str, target: &Target) -> (Vec<Kernel>, std::path::PathBuf) {
    let kernels = common::all_kernels_for(target);
    assert_eq!(kernels.len(), expected_runnable(target), "{target}");
    let path = common::temp_dir(test).join(format!("all-{target}.co"));
    std::fs::write(&path, code_object::write(target, &kernels)).unwrap();
    (kernels, path)
}

#[test]
fn llvm_objdump_disassembles_every_kernel_to_our_listing() {
    let Some(objdump) = common::tool("llvm-objdump-19") else {
        return;
    };
    for t in kernel_targets() {
        objdump_matches_listing(&objdump, t);
    }
}

fn objdump_matches_listing(objdump: &std::path::PathBuf, t: &Target) {
    let (kernels, path) = write_all("objdump", t);
    let mcpu = format!("--mcpu={t}");
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
        if common::beyond_llvm19(k) {
            // LLVM 19 does not know the op under test: every other line must still agree.
            let ds = k
                .insts
                .iter()
                .position(
                    |(i, _)| matches!(i, ds_kernels::inst::Inst::Ds(d) if d.op == k.variant.op),
                )
                .expect("the instruction under test");
            assert_eq!(&got[..ds], &ours[..ds], "{t}: {}", k.name);
            assert_ne!(got[ds], ours[ds], "{t}: LLVM 19 now knows {}", k.variant.op);
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
            assert!(got[ds + skip + after.len()..]
                .iter()
                .all(|l| l == "s_code_end"));
            continue;
        }
        assert_eq!(&got[..ours.len()], &ours[..], "{t}: {}", k.name);
        // After the kernel: only the s_code_end padding up to the next 256-byte boundary.
        assert!(
            got[ours.len()..].iter().all(|l| l == "s_code_end"),
            "{}: {:?}",
            k.name,
            &got[ours.len()..]
        );
        let pad = 4 * (got.len() - ours.len());
        assert!(
            pad == 0 || (k.code.len() + pad) & 255 == 0,
            "{}: {pad} bytes of padding",
            k.name
        );
    }
}

#[test]
fn llvm_mc_assembles_every_listing_to_our_code() {
    let Some(mc) = common::tool("llvm-mc-19") else {
        return;
    };
    for t in kernel_targets() {
        let kernels = common::all_kernels_for(t);
        // Every line LLVM 19 knows (all but the DS line of an op newer than it) and its bytes.
        let mut input = String::new();
        let mut ours = Vec::new();
        for k in &kernels {
            for (inst, _) in &k.insts {
                if common::beyond_llvm19(k)
                    && matches!(inst, ds_kernels::inst::Inst::Ds(d) if d.op == k.variant.op)
                {
                    continue;
                }
                input.push_str(&format!("{}\n", inst.text(t.generation)));
                ours.extend(ds_kernels::inst::encode_in(t.generation, inst).unwrap());
            }
        }
        let mcpu = format!("-mcpu={t}");
        let out = common::run(
            &mc,
            &["-arch=amdgcn", &mcpu, "-show-encoding"],
            Some(&input),
        );
        assert_eq!(
            encoded_bytes(&out),
            ours,
            "{t}: llvm-mc-19 and our assembler differ"
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
    let Some(readelf) = common::tool("llvm-readelf-19") else {
        return;
    };
    for t in kernel_targets() {
        readelf_finds_everything(&readelf, t);
    }
}

fn readelf_finds_everything(readelf: &std::path::PathBuf, t: &Target) {
    let (kernels, path) = write_all("readelf", t);
    let out = common::run(
        readelf,
        &["-h", "-l", "--dyn-syms", "--notes", path.to_str().unwrap()],
        None,
    );
    // readelf prints the machine value in upper-case hex, then the target's name.
    let flags = format!("Flags:                             0x{:X}, {t}", t.machine);
    let target_id = format!("amdhsa.target:   amdgcn-amd-amdhsa--{t}");
    for expected in [
        "OS/ABI:                            AMDGPU - HSA",
        "ABI Version:                       3",
        "Type:                              DYN (Shared object file)",
        "Machine:                           EM_AMDGPU",
        &flags,
        "NT_AMDGPU_METADATA (AMDGPU Metadata)",
        &target_id,
    ] {
        assert!(
            out.contains(expected),
            "{t}: readelf output lacks `{expected}`"
        );
    }
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
        assert_eq!(m[".wavefront_size"], "32");
        assert_eq!(m[".vgpr_count"], k.vgpr_count.to_string());
        assert_eq!(m[".sgpr_count"], k.sgpr_count.to_string());
        assert_eq!(m[".max_flat_workgroup_size"], "32");
    }
    // Five global_buffer args per kernel.
    assert_eq!(
        out.matches(".value_kind:     global_buffer").count(),
        5 * kernels.len()
    );
}
