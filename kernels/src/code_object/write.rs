//! The code object writer, with `object`'s low-level ELF writer: every range is reserved first
//! (fixing file offsets and addresses), then written in the same order.
//!
//! File layout (as ld.lld-19 lays out a linked llvm-mc object): ELF header, program headers,
//! `.note`, `.dynsym`, `.hash`, `.dynstr`, `.rodata` (descriptors) — the read-only PT_LOAD at
//! address = offset; `.text` (each kernel 256-byte aligned, gaps filled with `s_code_end`; after
//! the last kernel the padding LLVM writes there, [`super::code_end`]) — the
//! executable PT_LOAD at offset + 0x1000; `.dynamic` — the writable PT_LOAD at offset + 0x2000;
//! then `.symtab`, `.strtab`, `.shstrtab` and the section headers, which are not loaded.

use super::metadata::{ArgMeta, KernelMeta, Metadata, VERSION};
use super::{
    abi_version, descriptor, e_flags, CODE_ALIGN, DESCRIPTOR_ALIGN, EM_AMDGPU, NOTE_NAME,
    NT_AMDGPU_METADATA, OSABI_AMDGPU_HSA, PAGE,
};
use crate::abi;
use crate::generator::Kernel;
use ds_isa::target::Target;
use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, Sym, Writer};
use object::Endianness;

/// The metadata of `kernels` built for `target`, as the note carries it.
pub fn metadata(target: &Target, kernels: &[Kernel]) -> Metadata {
    Metadata {
        version: VERSION.to_vec(),
        target: target.hsa_target_id(),
        kernels: kernels
            .iter()
            .map(|k| KernelMeta {
                name: k.name.clone(),
                symbol: format!("{}.kd", k.name),
                kernarg_segment_size: abi::KERNARG_SIZE,
                kernarg_segment_align: 8,
                group_segment_fixed_size: k.descriptor.group_segment_fixed_size,
                private_segment_fixed_size: 0,
                wavefront_size: k.descriptor.wave_size().lanes() as u32,
                sgpr_count: k.sgpr_count,
                vgpr_count: k.vgpr_total(),
                agpr_count: target.unified_vgprs.then_some(k.agpr_count),
                sgpr_spill_count: 0,
                vgpr_spill_count: 0,
                max_flat_workgroup_size: abi::workgroup_size(k.descriptor.wave_size()),
                uses_dynamic_stack: false,
                args: abi::BUFFERS
                    .iter()
                    .enumerate()
                    .map(|(i, name)| ArgMeta {
                        name: Some(name.to_string()),
                        offset: 8 * i as u32,
                        size: 8,
                        value_kind: "global_buffer".into(),
                        address_space: Some("global".into()),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The note record: namesz, descsz, type, "AMDGPU\0" padded to 4, the MessagePack padded to 4.
fn note(desc: &[u8]) -> Vec<u8> {
    let mut n = Vec::with_capacity(24 + desc.len());
    n.extend_from_slice(&(NOTE_NAME.len() as u32 + 1).to_le_bytes());
    n.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    n.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
    n.extend_from_slice(NOTE_NAME);
    n.push(0);
    n.resize(n.len().next_multiple_of(4), 0);
    n.extend_from_slice(desc);
    n.resize(n.len().next_multiple_of(4), 0);
    n
}

/// Writes one code object for `target` holding `kernels` (`e_flags` and `amdhsa.target` name the
/// target). A kernel whose name already appeared is left out: the name encodes the whole variant,
/// so it is the same kernel.
///
/// # Panics
/// When `kernels` is empty: a code object without kernels is no valid ELF a loader accepts (its
/// symbol table would be empty), so the writer refuses it; a caller with nothing to run must not
/// build a code object (`ds-harness run` reports an empty selection without one).
pub fn write(target: &Target, kernels: &[Kernel]) -> Vec<u8> {
    assert!(
        !kernels.is_empty(),
        "a code object needs at least one kernel: an empty selection must not build one"
    );
    let mut seen = std::collections::HashSet::new();
    if !kernels.iter().all(|k| seen.insert(k.name.as_str())) {
        let mut seen = std::collections::HashSet::new();
        let unique: Vec<Kernel> = kernels
            .iter()
            .filter(|k| seen.insert(k.name.as_str()))
            .cloned()
            .collect();
        return write(target, &unique);
    }
    let note = note(&metadata(target, kernels).to_msgpack());
    let names: Vec<(Vec<u8>, Vec<u8>)> = kernels
        .iter()
        .map(|k| {
            (
                k.name.clone().into_bytes(),
                format!("{}.kd", k.name).into_bytes(),
            )
        })
        .collect();

    // The code of every kernel, each at a 256-byte boundary, gaps filled with the generation's
    // padding (s_code_end; gfx9, which has none, s_nop 0); after the last kernel, LLVM's padding
    // to the instruction-cache line and the lines after it, where LLVM writes it (`code_end`).
    let pad = super::padding_word(target);
    let mut text = Vec::new();
    let mut code_at = Vec::with_capacity(kernels.len());
    for k in kernels {
        while text.len() as u64 & (CODE_ALIGN - 1) != 0 {
            text.extend_from_slice(&pad);
        }
        code_at.push(text.len() as u64);
        text.extend_from_slice(&k.code);
    }
    if let Some(end) = super::code_end(target) {
        while text.len() % end.line_bytes as usize != 0 {
            text.extend_from_slice(&pad);
        }
        for _ in 0..end.lines * end.line_bytes / 4 {
            text.extend_from_slice(&pad);
        }
    }

    let mut out = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut out);

    // Reserve: headers, then the read-only segment.
    w.reserve_file_header();
    w.reserve_program_headers(8);
    let _null = w.reserve_null_section_index();
    let note_name = w.add_section_name(b".note");
    let note_index = w.reserve_section_index();
    let note_off = w.reserve(note.len(), 4) as u64;
    let _dynsym_index = w.reserve_dynsym_section_index();
    let dyn_ids: Vec<_> = names
        .iter()
        .map(|(f, kd)| (w.add_dynamic_string(f), w.add_dynamic_string(kd)))
        .collect();
    w.reserve_null_dynamic_symbol_index();
    for _ in 0..2 * kernels.len() {
        w.reserve_dynamic_symbol_index();
    }
    let dynsym_off = w.reserve_dynsym() as u64;
    let _hash_index = w.reserve_hash_section_index();
    let chain_count = w.dynamic_symbol_count();
    let bucket_count = (chain_count / 2).max(1);
    let hash_off = w.reserve_hash(bucket_count, chain_count) as u64;
    let _dynstr_index = w.reserve_dynstr_section_index();
    let dynstr_off = w.reserve_dynstr() as u64;
    let rodata_name = w.add_section_name(b".rodata");
    let rodata_index = w.reserve_section_index();
    let rodata_len = descriptor::SIZE * kernels.len();
    let rodata_off = w.reserve(rodata_len, DESCRIPTOR_ALIGN as usize) as u64;
    let ro_end = w.reserved_len() as u64;
    // The executable segment.
    let text_name = w.add_section_name(b".text");
    let text_index = w.reserve_section_index();
    let text_off = w.reserve(text.len(), CODE_ALIGN as usize) as u64;
    let text_addr = text_off + PAGE;
    // The writable segment.
    let _dynamic_index = w.reserve_dynamic_section_index();
    let dynamic_count = 6;
    let dynamic_off = w.reserve_dynamic(dynamic_count) as u64;
    let dynamic_addr = dynamic_off + 2 * PAGE;
    let dynamic_len = w.reserved_len() as u64 - dynamic_off;
    // Not loaded: the static symbol table and the section headers.
    let sym_ids: Vec<_> = names
        .iter()
        .map(|(f, kd)| (w.add_string(f), w.add_string(kd)))
        .collect();
    w.reserve_null_symbol_index();
    for _ in 0..kernels.len() {
        w.reserve_symbol_index(Some(text_index));
        w.reserve_symbol_index(Some(rodata_index));
    }
    let _symtab_index = w.reserve_symtab_section_index();
    w.reserve_symtab();
    let _strtab_index = w.reserve_strtab_section_index();
    w.reserve_strtab();
    let _shstrtab_index = w.reserve_shstrtab_section_index();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    let phdr_len = 8 * 56;
    let kd_addr = |i: usize| rodata_off + (descriptor::SIZE * i) as u64;
    let code_addr = |i: usize| text_addr + code_at[i];
    let symbols: Vec<(Sym, Sym)> = (0..kernels.len())
        .map(|i| {
            let func = |name, section| Sym {
                name: Some(name),
                section: Some(section),
                st_info: elf::STB_GLOBAL << 4 | elf::STT_FUNC,
                st_other: elf::STV_PROTECTED,
                st_shndx: 0,
                st_value: code_addr(i),
                st_size: kernels[i].code.len() as u64,
            };
            let kd = |name, section| Sym {
                name: Some(name),
                section: Some(section),
                st_info: elf::STB_GLOBAL << 4 | elf::STT_OBJECT,
                st_other: elf::STV_PROTECTED,
                st_shndx: 0,
                st_value: kd_addr(i),
                st_size: descriptor::SIZE as u64,
            };
            (
                func(dyn_ids[i].0, text_index),
                kd(dyn_ids[i].1, rodata_index),
            )
        })
        .collect();

    // Write, in the order reserved.
    w.write_file_header(&FileHeader {
        os_abi: OSABI_AMDGPU_HSA,
        abi_version: abi_version(target),
        e_type: elf::ET_DYN,
        e_machine: EM_AMDGPU,
        e_entry: 0,
        e_flags: e_flags(target),
    })
    .expect("a Vec buffer grows");
    w.write_align_program_headers();
    let ph = |p_type, p_flags, off: u64, addr: u64, filesz: u64, memsz: u64, align| ProgramHeader {
        p_type,
        p_flags,
        p_offset: off,
        p_vaddr: addr,
        p_paddr: addr,
        p_filesz: filesz,
        p_memsz: memsz,
        p_align: align,
    };
    for header in [
        ph(elf::PT_PHDR, elf::PF_R, 64, 64, phdr_len, phdr_len, 8),
        ph(elf::PT_LOAD, elf::PF_R, 0, 0, ro_end, ro_end, PAGE),
        ph(
            elf::PT_LOAD,
            elf::PF_R | elf::PF_X,
            text_off,
            text_addr,
            text.len() as u64,
            text.len() as u64,
            PAGE,
        ),
        ph(
            elf::PT_LOAD,
            elf::PF_R | elf::PF_W,
            dynamic_off,
            dynamic_addr,
            dynamic_len,
            dynamic_len,
            PAGE,
        ),
        ph(
            elf::PT_DYNAMIC,
            elf::PF_R | elf::PF_W,
            dynamic_off,
            dynamic_addr,
            dynamic_len,
            dynamic_len,
            8,
        ),
        ph(
            elf::PT_GNU_RELRO,
            elf::PF_R,
            dynamic_off,
            dynamic_addr,
            dynamic_len,
            dynamic_len,
            1,
        ),
        ph(elf::PT_GNU_STACK, elf::PF_R | elf::PF_W, 0, 0, 0, 0, 0),
        ph(
            elf::PT_NOTE,
            elf::PF_R,
            note_off,
            note_off,
            note.len() as u64,
            note.len() as u64,
            4,
        ),
    ] {
        w.write_program_header(&header);
    }
    w.write_align(4);
    w.write(&note);
    w.write_null_dynamic_symbol();
    for (f, kd) in &symbols {
        w.write_dynamic_symbol(f);
        w.write_dynamic_symbol(kd);
    }
    // Chain index 2i+1 is kernel i's function symbol, 2i+2 its descriptor.
    w.write_hash(bucket_count, chain_count, |i| {
        let i = i as usize;
        (i > 0).then(|| {
            let (f, kd) = &names[(i - 1) / 2];
            elf::hash(if i % 2 == 1 { f } else { kd })
        })
    });
    w.write_dynstr();
    w.write_align(DESCRIPTOR_ALIGN as usize);
    for (i, k) in kernels.iter().enumerate() {
        let mut d = k.descriptor;
        d.kernel_code_entry_byte_offset = code_addr(i) as i64 - kd_addr(i) as i64;
        w.write(&d.to_bytes());
    }
    w.write_align(CODE_ALIGN as usize);
    w.write(&text);
    w.write_align_dynamic();
    let dynstr_len = w.dynstr_len() as u64;
    w.write_dynamic(elf::DT_SYMTAB, dynsym_off);
    w.write_dynamic(elf::DT_SYMENT, 24);
    w.write_dynamic(elf::DT_STRTAB, dynstr_off);
    w.write_dynamic(elf::DT_STRSZ, dynstr_len);
    w.write_dynamic(elf::DT_HASH, hash_off);
    w.write_dynamic(elf::DT_NULL, 0);
    w.write_null_symbol();
    for (i, (f, kd)) in symbols.iter().enumerate() {
        w.write_symbol(&Sym {
            name: Some(sym_ids[i].0),
            ..f.clone()
        });
        w.write_symbol(&Sym {
            name: Some(sym_ids[i].1),
            ..kd.clone()
        });
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    w.write_section_header(&SectionHeader {
        name: Some(note_name),
        sh_type: elf::SHT_NOTE,
        sh_flags: elf::SHF_ALLOC.into(),
        sh_addr: note_off,
        sh_offset: note_off,
        sh_size: note.len() as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: 4,
        sh_entsize: 0,
    });
    w.write_dynsym_section_header(dynsym_off, 1);
    w.write_hash_section_header(hash_off);
    w.write_dynstr_section_header(dynstr_off);
    w.write_section_header(&SectionHeader {
        name: Some(rodata_name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_ALLOC.into(),
        sh_addr: rodata_off,
        sh_offset: rodata_off,
        sh_size: rodata_len as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: DESCRIPTOR_ALIGN,
        sh_entsize: 0,
    });
    w.write_section_header(&SectionHeader {
        name: Some(text_name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: (elf::SHF_ALLOC | elf::SHF_EXECINSTR).into(),
        sh_addr: text_addr,
        sh_offset: text_off,
        sh_size: text.len() as u64,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: CODE_ALIGN,
        sh_entsize: 0,
    });
    w.write_dynamic_section_header(dynamic_addr);
    w.write_symtab_section_header(1);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    debug_assert_eq!(w.reserved_len(), w.len());
    let _ = note_index;
    out
}
