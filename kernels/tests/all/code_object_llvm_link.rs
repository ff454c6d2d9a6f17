//! The structural comparison: the same kernels written as assembly (`code_object::assembly`),
//! assembled by `llvm-mc-N` and linked by `ld.lld-N -shared`, against our writer's code object,
//! for each installed oracle LLVM (19 and 22) and every target it knows (processors and generic
//! targets): same ELF header fields (a generic target's code object v6 and generic version
//! included), same program header types/flags/alignments, same dynamic symbols (name, type,
//! binding, visibility, size), same descriptor bytes (all but the entry offset, whose target must
//! hold the same code), same metadata keys and values, same named sections.

use crate::common;

use common::llvm::Llvm;
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use ds_kernels::code_object::{self, descriptor, CodeObject};
use ds_kernels::generator::{generate_for, Kernel};
use ds_reference::wave::{FpMode, Variant, WaveSize};
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::Endianness;
use rayon::prelude::*;
use std::collections::BTreeSet;

type Header = elf::FileHeader64<Endianness>;

/// Every runnable op of `t`'s generation `llvm` knows, plus variants that move the descriptor's
/// FP mode and LDS size bits.
fn kernels(llvm: &Llvm, t: &'static Target) -> Vec<Kernel> {
    // gfx12 and gfx1250 renamed the float min/max (`_num`): the op the generation has.
    let gfx12 = !DsOp::MinRtnF32.info().in_generation(t.generation);
    let mut ks: Vec<Kernel> = common::all_kernels_for(t)
        .into_iter()
        .filter(|k| !common::beyond(k, llvm.major))
        .collect();
    for (op, lds_size, mode) in [
        (
            if gfx12 {
                DsOp::MinNumRtnF32
            } else {
                DsOp::MinRtnF32
            },
            4,
            FpMode {
                fp32_denormals: false,
                fp16_fp64_denormals: true,
                ieee: false,
            },
        ),
        (
            if gfx12 { DsOp::MaxNumF64 } else { DsOp::MaxF64 },
            65536,
            FpMode {
                fp32_denormals: true,
                fp16_fp64_denormals: false,
                ieee: true,
            },
        ),
        // The largest LDS the target allows (gfx950: 160 KiB; gfx1250: 320 KiB).
        (DsOp::AddRtnU32, t.lds_bytes, FpMode::default()),
        (
            DsOp::AddRtnF32,
            132,
            FpMode {
                fp32_denormals: false,
                fp16_fp64_denormals: false,
                ieee: false,
            },
        ),
    ] {
        ks.push(
            generate_for(
                t,
                &Variant {
                    op,
                    offset0: 4,
                    offset1: 0,
                    lds_size,
                    mode,
                    wave: ds_kernels::wave_sizes(t)[0],
                    regs: None,
                    acc: false,
                },
            )
            .unwrap(),
        );
    }
    ks
}

struct Shape {
    ident: [u8; 16],
    fields: (u16, u16, u32, u64, u32),
    segments: Vec<(u32, u32, u64)>,
    dynsyms: BTreeSet<(String, u8, u8, u64)>,
    sections: BTreeSet<(String, u32, u64)>,
}

fn shape(data: &[u8]) -> Shape {
    let h = Header::parse(data).unwrap();
    let e = h.endian().unwrap();
    let id = h.e_ident();
    let mut ident = [0u8; 16];
    ident[..4].copy_from_slice(&id.magic);
    ident[4..9].copy_from_slice(&[id.class, id.data, id.version, id.os_abi, id.abi_version]);
    let segments = h
        .program_headers(e, data)
        .unwrap()
        .iter()
        .map(|p| (p.p_type(e), p.p_flags(e), p.p_align(e)))
        .collect();
    let sections_table = h.sections(e, data).unwrap();
    let syms = sections_table.symbols(e, data, elf::SHT_DYNSYM).unwrap();
    let dynsyms = syms
        .iter()
        .skip(1)
        .map(|s| {
            let name = String::from_utf8(syms.symbol_name(e, s).unwrap().to_vec()).unwrap();
            (name, s.st_info(), s.st_other(), s.st_size(e))
        })
        .collect();
    let sections = sections_table
        .iter()
        .map(|s| {
            let name =
                String::from_utf8(sections_table.section_name(e, s).unwrap().to_vec()).unwrap();
            (name, s.sh_type(e), s.sh_flags(e))
        })
        .collect();
    Shape {
        ident,
        fields: (
            h.e_type(e),
            h.e_machine(e),
            h.e_version(e),
            h.e_entry(e),
            h.e_flags(e),
        ),
        segments,
        dynsyms,
        sections,
    }
}

#[test]
fn our_code_object_matches_llvm_mc_plus_ld_lld_structurally() {
    for (llvm, t) in common::llvm_targets() {
        let Some(lld) = common::tool(&llvm, "ld.lld") else {
            continue;
        };
        matches_for(&llvm, &llvm.mc(), &lld, t);
        println!(
            "{} {t}: the code object matches llvm-mc + ld.lld",
            llvm.label()
        );
    }
}

/// Assembles `source` with `llvm-mc-N -mcpu=<t>` (plus `attrs`) and links the object with
/// `ld.lld-N -shared`, in `dir`; returns the shared object's path and bytes.
fn llvm_build(
    [mc, lld]: [&std::path::PathBuf; 2],
    dir: &std::path::Path,
    t: &Target,
    source: &str,
    attrs: &[&str],
) -> (std::path::PathBuf, Vec<u8>) {
    let (asm, obj, so) = (
        dir.join(format!("{t}.s")),
        dir.join(format!("{t}.o")),
        dir.join(format!("{t}.so")),
    );
    std::fs::write(&asm, source).unwrap();
    let mcpu = format!("-mcpu={t}");
    let mut args = vec!["-triple=amdgcn-amd-amdhsa", mcpu.as_str()];
    args.extend_from_slice(attrs);
    args.extend_from_slice(&[
        "-filetype=obj",
        asm.to_str().unwrap(),
        "-o",
        obj.to_str().unwrap(),
    ]);
    common::run(mc, &args, None);
    common::run(
        lld,
        &["-shared", obj.to_str().unwrap(), "-o", so.to_str().unwrap()],
        None,
    );
    let bytes = std::fs::read(&so).unwrap();
    (so, bytes)
}

/// Our code object for `t` against what llvm-mc-N -mcpu=`t` and ld.lld-N make of its assembly.
fn matches_for(llvm: &Llvm, mc: &std::path::PathBuf, lld: &std::path::PathBuf, t: &'static Target) {
    let ks = kernels(llvm, t);
    let dir = common::temp_dir("oracle");
    let (_, theirs_bytes) = llvm_build([mc, lld], &dir, t, &code_object::assembly(t, &ks), &[]);
    let ours_bytes = code_object::write(t, &ks);

    let (ours, theirs) = (shape(&ours_bytes), shape(&theirs_bytes));
    assert_eq!(ours.ident, theirs.ident, "e_ident");
    assert_eq!(
        ours.fields, theirs.fields,
        "(e_type, e_machine, e_version, e_entry, e_flags)"
    );
    assert_eq!(
        ours.segments, theirs.segments,
        "program headers (type, flags, align)"
    );
    assert_eq!(
        ours.dynsyms, theirs.dynsyms,
        "dynamic symbols (name, info, other, size)"
    );
    assert_eq!(ours.dynsyms.len(), 2 * ks.len());
    // Every section we write, lld writes too (lld adds .gnu.hash, .comment, .relro_padding).
    let missing: Vec<_> = ours.sections.difference(&theirs.sections).collect();
    assert!(
        missing.is_empty(),
        "sections lld does not have: {missing:?}"
    );

    // Our reader reads both; descriptors, code and metadata agree.
    let ours: CodeObject = code_object::read(&ours_bytes).unwrap();
    let theirs: CodeObject =
        code_object::read(&theirs_bytes).expect("our reader loads lld's output");
    assert_eq!(ours.metadata, theirs.metadata, "metadata keys and values");
    assert_eq!(theirs.kernels.len(), ks.len());
    for k in &ks {
        let (a, b) = (
            ours.kernel(&k.name).unwrap(),
            theirs.kernel(&k.name).unwrap(),
        );
        let (mut da, mut db) = (a.descriptor, b.descriptor);
        (
            da.kernel_code_entry_byte_offset,
            db.kernel_code_entry_byte_offset,
        ) = (0, 0);
        assert_eq!(
            da.to_bytes(),
            db.to_bytes(),
            "{}: descriptor bytes (all but the entry offset)",
            k.name
        );
        assert_eq!(a.code, b.code, "{}: code at the entry", k.name);
        assert_eq!(a.code, k.code);
        assert_eq!(a.entry % 256, 0);
        assert_eq!(b.entry % 256, 0);
    }
}

/// The wave64 kernels of `t`'s generation: every runnable op `llvm` knows with the tool tests'
/// variant, and the variants that move the descriptor's FP mode and LDS size bits (LDS sizes of 4,
/// 132 and 65536 also take the 256-byte copy rounds' partial tail under exec_lo/exec_hi), and
/// where the target has AccVGPR operands every op's `acc` twin.
fn wave64_kernels(llvm: &Llvm, t: &'static Target) -> Vec<Kernel> {
    let mut ks: Vec<Kernel> = ds_isa::ds::runnable_ops_on(t)
        .map(|op| wave64(t, &common::variant(op)))
        .filter(|k| !common::beyond(k, llvm.major))
        .collect();
    ks.extend(
        kernels(llvm, t)
            .into_iter()
            .rev()
            .take(3)
            .map(|k| wave64(t, &k.variant)),
    );
    // On a target with AccVGPR operands, every op that has them once more with `acc` (the
    // AccVGPRs past ACCUM_OFFSET in the descriptor and `.agpr_count` in the metadata).
    let acc: Vec<Kernel> = ds_isa::ds::runnable_ops_on(t)
        .filter(|&op| Variant::acc_settings(op, t).contains(&true))
        .map(|op| {
            wave64(
                t,
                &Variant {
                    acc: true,
                    ..common::variant(op)
                },
            )
        })
        .filter(|k| !common::beyond(k, llvm.major))
        .collect();
    assert!(acc.iter().all(|k| k.agpr_count > 0));
    ks.extend(acc);
    ks
}

/// The kernel of `v` for `t` in wave64.
fn wave64(t: &Target, v: &Variant) -> Kernel {
    let v = Variant {
        wave: WaveSize::Wave64,
        ..*v
    };
    generate_for(t, &v).unwrap()
}

/// Every target the kernels are built for, gfx11 and gfx12, generic targets included (all of them
/// list wave64 in the target table): `llvm-mc-N -mcpu=<target> -mattr=+wavefrontsize64` assembles
/// our listing to our bytes, for each installed release.
#[test]
fn wave64_kernels_match_llvm_mc_wavefrontsize64_plus_ld_lld_and_llvm_objdump() {
    // The pairs side by side: five LLVM tool runs each, and the test among the suite's longest.
    let pairs = common::llvm_targets();
    let generations: BTreeSet<_> = (pairs.par_iter())
        .filter_map(|(llvm, t)| {
            let (Some(lld), Some(readelf), Some(objdump)) = (
                common::tool(llvm, "ld.lld"),
                common::tool(llvm, "llvm-readelf"),
                common::tool(llvm, "llvm-objdump"),
            ) else {
                return None;
            };
            // (gfx1250 runs wave32 only: llc builds no wave64 kernel for it, `entry_llc.rs`.)
            if !t.wave_sizes.contains(&64) {
                return None;
            }
            wave64_for(
                t,
                &wave64_kernels(llvm, t),
                [&llvm.mc(), &lld, &readelf, &objdump],
            );
            println!("{} {t}: wave64 kernels match", llvm.label());
            Some(t.generation)
        })
        .collect();
    if generations.is_empty() {
        return; // no LLVM installed (and not CI)
    }
    assert!(generations.contains(&ds_isa::ds::Generation::Gfx11));
    assert!(generations.contains(&ds_isa::ds::Generation::Gfx12));
}

fn wave64_for(t: &Target, ks: &[Kernel], [mc, lld, readelf, objdump]: [&std::path::PathBuf; 4]) {
    let dir = common::temp_dir("oracle64");
    let source = code_object::assembly(t, ks);
    // Where the target also runs wave32, the wave size is a directive (gfx9 has none).
    assert!(source.contains(".amdhsa_wavefront_size32 0") || !t.wave_sizes.contains(&32));
    let (so, theirs_bytes) = llvm_build([mc, lld], &dir, t, &source, &["-mattr=+wavefrontsize64"]);
    let ours_bytes = code_object::write(t, ks);
    let ours: CodeObject = code_object::read(&ours_bytes).unwrap();
    let theirs: CodeObject = code_object::read(&theirs_bytes).unwrap();
    assert_eq!(
        ours.metadata, theirs.metadata,
        "{t}: metadata keys and values"
    );
    for k in ks {
        let (a, b) = (
            ours.kernel(&k.name).unwrap(),
            theirs.kernel(&k.name).unwrap(),
        );
        let (mut da, mut db) = (a.descriptor, b.descriptor);
        (
            da.kernel_code_entry_byte_offset,
            db.kernel_code_entry_byte_offset,
        ) = (0, 0);
        assert_eq!(
            da.to_bytes(),
            db.to_bytes(),
            "{}: wave64 descriptor bytes",
            k.name
        );
        assert!(!da.wave32(), "{}: the wave32 bit is off", k.name);
        assert_eq!(da.wave_size(), WaveSize::Wave64);
        // Granules of 4 in wave64 (of 8 on a target with a unified VGPR file).
        let granule = descriptor::vgpr_granule_on(t, WaveSize::Wave64);
        assert_eq!(
            da.vgpr_count_on(t),
            k.vgpr_total().next_multiple_of(granule),
            "{}: VGPRs (AccVGPRs included) in granules of {granule}",
            k.name
        );
        assert_eq!(
            a.code, b.code,
            "{}: llvm-mc assembles our listing to our bytes",
            k.name
        );
    }
    // llvm-readelf: .wavefront_size 64 and workgroups of 64, in both files.
    for bytes in [&ours_bytes, &theirs_bytes] {
        std::fs::write(&so, bytes).unwrap();
        let notes = common::run(readelf, &["--notes", so.to_str().unwrap()], None);
        assert_eq!(
            notes.matches(".wavefront_size: 64").count(),
            ks.len(),
            "readelf shows .wavefront_size 64 for every kernel:\n{notes}"
        );
        assert_eq!(
            notes.matches(".max_flat_workgroup_size: 64").count(),
            ks.len()
        );
    }
    // llvm-objdump (wave64): every kernel disassembles to our listing, line for line.
    std::fs::write(&so, &ours_bytes).unwrap();
    let out = common::run(
        objdump,
        &[
            "-d",
            &format!("--mcpu={t}"),
            "--mattr=+wavefrontsize64",
            so.to_str().unwrap(),
        ],
        None,
    );
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
    for k in ks {
        let got = &by_symbol[&k.name];
        let listing = k.listing();
        let lines: Vec<&str> = listing.lines().collect();
        assert_eq!(&got[..lines.len()], &lines[..], "{}", k.name);
        assert!(
            got[lines.len()..]
                .iter()
                .all(|l| *l == common::padding_text(t)),
            "{}",
            k.name
        );
        assert!(listing.contains("s_mov_b64 exec, -1"), "{}", k.name);
        assert!(listing.contains("s_mov_b32 exec_hi, s19"), "{}", k.name);
    }
}
