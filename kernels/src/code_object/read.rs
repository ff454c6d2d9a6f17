//! The code object reader, with `object`'s low-level ELF parser: checks the header, finds the
//! metadata note through the PT_NOTE segments, each kernel's descriptor and entry through
//! `.dynsym`, and reads bytes through the PT_LOAD segments as a loader maps them.

use super::descriptor::{self, KernelDescriptor};
use super::metadata::Metadata;
use super::{
    abi_version, e_flags as flags_of, CodeObject, LoadedKernel, ReadError, EF_AMDGPU_MACH,
    EM_AMDGPU, NOTE_NAME, NT_AMDGPU_METADATA, OSABI_AMDGPU_HSA,
};
use ds_isa::target::Target;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, Sym};
use object::Endianness;
use std::collections::HashMap;

type Header = elf::FileHeader64<Endianness>;

fn elf_err(e: object::read::Error) -> ReadError {
    ReadError::Elf(e.to_string())
}

fn expect(field: &'static str, found: u64, expected: u64) -> Result<(), ReadError> {
    if found == expected {
        Ok(())
    } else {
        Err(ReadError::Header {
            field,
            found,
            expected,
        })
    }
}

/// A PT_LOAD segment's file bytes at its address.
struct Segment<'d> {
    addr: u64,
    bytes: &'d [u8],
}

fn map<'d>(
    segments: &[Segment<'d>],
    what: String,
    address: u64,
    len: u64,
) -> Result<&'d [u8], ReadError> {
    segments
        .iter()
        .find_map(|s| {
            let start = address.checked_sub(s.addr)?;
            let end = start.checked_add(len)?;
            s.bytes.get(start as usize..usize::try_from(end).ok()?)
        })
        .ok_or(ReadError::Unmapped { what, address, len })
}

/// Reads a code object: header, metadata, and every kernel the metadata lists.
pub fn read(data: &[u8]) -> Result<CodeObject, ReadError> {
    let header = Header::parse(data).map_err(elf_err)?;
    let endian = header.endian().map_err(elf_err)?;
    let ident = header.e_ident();
    expect("EI_DATA", ident.data.into(), elf::ELFDATA2LSB.into())?;
    expect("EI_OSABI", ident.os_abi.into(), OSABI_AMDGPU_HSA.into())?;
    expect("e_type", header.e_type(endian).into(), elf::ET_DYN.into())?;
    expect(
        "e_machine",
        header.e_machine(endian).into(),
        EM_AMDGPU.into(),
    )?;
    let e_flags = header.e_flags(endian);
    let target = u8::try_from(e_flags & EF_AMDGPU_MACH)
        .ok()
        .and_then(Target::by_machine)
        .ok_or(ReadError::UnknownMachine(e_flags & EF_AMDGPU_MACH))?;
    // v5 for a processor, v6 with the generic version for a generic target (as written).
    expect(
        "EI_ABIVERSION",
        ident.abi_version.into(),
        abi_version(target).into(),
    )?;
    expect(
        "e_flags (EF_AMDGPU_MACH and EF_AMDGPU_GENERIC_VERSION)",
        e_flags.into(),
        flags_of(target).into(),
    )?;

    let mut metadata = None;
    let mut segments = Vec::new();
    for ph in header.program_headers(endian, data).map_err(elf_err)? {
        if ph.p_type(endian) == elf::PT_LOAD {
            let bytes = ph.data(endian, data).map_err(|()| {
                ReadError::Elf(format!(
                    "PT_LOAD at offset {:#x} runs past the end of the file",
                    ph.p_offset(endian)
                ))
            })?;
            segments.push(Segment {
                addr: ph.p_vaddr(endian),
                bytes,
            });
        }
        if let Some(mut notes) = ph.notes(endian, data).map_err(elf_err)? {
            while let Some(note) = notes.next().map_err(elf_err)? {
                if note.name() == NOTE_NAME && note.n_type(endian) == NT_AMDGPU_METADATA {
                    metadata = Some(
                        Metadata::from_msgpack(note.desc())
                            .map_err(|e| ReadError::Metadata(e.to_string()))?,
                    );
                }
            }
        }
    }
    let metadata = metadata.ok_or(ReadError::NoMetadata)?;
    if metadata.target != target.hsa_target_id() {
        return Err(ReadError::TargetMismatch {
            machine: target,
            metadata: metadata.target.clone(),
        });
    }

    let sections = header.sections(endian, data).map_err(elf_err)?;
    let dynsym = sections
        .symbols(endian, data, elf::SHT_DYNSYM)
        .map_err(elf_err)?;
    let mut by_name = HashMap::new();
    for sym in dynsym.iter() {
        let name = dynsym.symbol_name(endian, sym).map_err(elf_err)?;
        by_name.insert(
            name,
            (sym.st_value(endian), sym.st_size(endian), sym.st_type()),
        );
    }
    let lookup = |name: &str, st_type: u8| match by_name.get(name.as_bytes()) {
        Some(&(value, size, t)) if t == st_type => Ok((value, size)),
        _ => Err(ReadError::MissingSymbol(name.to_string())),
    };

    let mut kernels = Vec::with_capacity(metadata.kernels.len());
    for meta in &metadata.kernels {
        let bad = |why: String| ReadError::Descriptor {
            kernel: meta.name.clone(),
            why,
        };
        let (kd_addr, _) = lookup(&meta.symbol, elf::STT_OBJECT)?;
        let bytes = map(
            &segments,
            format!("descriptor `{}`", meta.symbol),
            kd_addr,
            descriptor::SIZE as u64,
        )?;
        let descriptor = KernelDescriptor::from_bytes(bytes).map_err(|e| bad(e.to_string()))?;
        let entry = kd_addr.wrapping_add(descriptor.kernel_code_entry_byte_offset as u64);
        let (func_addr, func_size) = lookup(&meta.name, elf::STT_FUNC)?;
        if func_addr != entry {
            return Err(bad(format!(
                "its entry offset points at {entry:#x}, but symbol `{}` is at {func_addr:#x}",
                meta.name
            )));
        }
        if descriptor.group_segment_fixed_size != meta.group_segment_fixed_size {
            return Err(bad(format!(
                "LDS size {} disagrees with the metadata's .group_segment_fixed_size {}",
                descriptor.group_segment_fixed_size, meta.group_segment_fixed_size
            )));
        }
        if descriptor.kernarg_size != meta.kernarg_segment_size {
            return Err(bad(format!(
                "kernarg size {} disagrees with the metadata's .kernarg_segment_size {}",
                descriptor.kernarg_size, meta.kernarg_segment_size
            )));
        }
        if descriptor.wave32() != (meta.wavefront_size == 32) {
            return Err(bad(format!(
                "the wave32 bit disagrees with .wavefront_size {}",
                meta.wavefront_size
            )));
        }
        let len = if func_size > 0 {
            func_size
        } else {
            // No size: to the end of the segment holding the entry.
            segments
                .iter()
                .find(|s| entry >= s.addr && entry - s.addr < s.bytes.len() as u64)
                .map_or(0, |s| s.bytes.len() as u64 - (entry - s.addr))
        };
        let code = map(&segments, format!("code of `{}`", meta.name), entry, len)?.to_vec();
        kernels.push(LoadedKernel {
            name: meta.name.clone(),
            descriptor_address: kd_addr,
            descriptor,
            entry,
            code,
            meta: meta.clone(),
        });
    }
    Ok(CodeObject {
        e_flags,
        target,
        metadata,
        kernels,
    })
}
