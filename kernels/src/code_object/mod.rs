//! The HSA code object: an AMDGPU ELF shared object holding any number of generated kernels, as the
//! ROCm loader takes it ([`write()`]), and a reader for the same format ([`read()`]), which the
//! emulated device loads kernels through.
//!
//! Facts from LLVM's AMDGPUUsage: "ELF Code Object" (header: ELFCLASS64, ELFDATA2LSB,
//! `EI_OSABI` = ELFOSABI_AMDGPU_HSA 64, `EI_ABIVERSION` = ELFABIVERSION_AMDGPU_HSA_V5 3 (code
//! object v5) for a processor and ELFABIVERSION_AMDGPU_HSA_V6 4 (v6) for a generic target, which
//! needs v6, and for gfx12.5's processors (its template's choice, LLVM 22's default), `e_type` ET_DYN, `e_machine` EM_AMDGPU 224, `e_flags` EF_AMDGPU_MACH: the target's
//! machine value from `ds_isa::target`, and for a generic target its generic version in
//! EF_AMDGPU_GENERIC_VERSION, bits [31:24]; v6 keeps v5's metadata, `amdhsa.version` 1.2),
//! "Note Records"
//! (name "AMDGPU", type NT_AMDGPU_METADATA 32, MessagePack), "Symbols" (`<kernel>` STT_FUNC at the
//! entry, `<kernel>.kd` STT_OBJECT for the 64-byte descriptor), "Kernel Descriptor". The layout
//! mirrors what `ld.lld-19 -shared` makes of `llvm-mc-19` output (PT_PHDR, PT_LOAD R / RX / RW,
//! PT_DYNAMIC, PT_GNU_RELRO, PT_GNU_STACK, PT_NOTE); `tests/all/code_object_llvm_link.rs` compares the two.

mod asm;
pub mod descriptor;
pub mod metadata;
mod read;
mod write;

pub use asm::assembly;
pub use descriptor::KernelDescriptor;
pub use metadata::{ArgMeta, KernelMeta, Metadata};
pub use read::read;
pub use write::{metadata as metadata_of, write};

use ds_isa::gen::{CodeEnd, CodeEndOn};
use ds_isa::target::{self, Target};
use std::fmt;

/// `EI_OSABI`: ELFOSABI_AMDGPU_HSA.
pub const OSABI_AMDGPU_HSA: u8 = 64;
/// `EI_ABIVERSION`: ELFABIVERSION_AMDGPU_HSA_V5 (code object V5).
pub const ABI_VERSION_V5: u8 = 3;
/// `EI_ABIVERSION`: ELFABIVERSION_AMDGPU_HSA_V6 (code object V6: generic targets).
pub const ABI_VERSION_V6: u8 = 4;
/// `e_flags` shift of EF_AMDGPU_GENERIC_VERSION (bits [31:24]).
pub const EF_AMDGPU_GENERIC_VERSION_SHIFT: u32 = 24;

/// The code object version a code object for `target` is written as: 6 for a generic target
/// (AMDGPUUsage, "Generic Processors": generic targets need code object v6), else the version
/// its generation's template writes (5, gfx12.5's 6: [`crate::template::Template::code_object_version`]).
pub fn code_object_version(target: &Target) -> u8 {
    if target.is_generic() {
        6
    } else {
        crate::template::of(target.generation).map_or(5, |t| t.code_object_version())
    }
}

/// `EI_ABIVERSION` of a code object for `target` ([`code_object_version`]).
pub fn abi_version(target: &Target) -> u8 {
    if code_object_version(target) >= 6 {
        ABI_VERSION_V6
    } else {
        ABI_VERSION_V5
    }
}

/// The `e_flags` of a code object for `target`: its machine value, the target-id feature bits
/// as `llvm-mc` writes them for an unspecified feature (`xnack` any on the RDNA 1 targets: 0x100), and
/// a generic target's generic version in bits [31:24] ([`Target::e_flags`]).
pub fn e_flags(target: &Target) -> u32 {
    debug_assert_eq!(
        target.e_flags() >> EF_AMDGPU_GENERIC_VERSION_SHIFT,
        u32::from(target.generic_version)
    );
    target.e_flags()
}
/// The padding LLVM writes after the last kernel of a code object for `target` (its
/// generation's [`CodeEnd`], on the targets it applies to: every target of the generation, or
/// those of its targets whose `unified_vgprs` column says they have CDNA 2's instructions), or
/// `None`: the code ends with the last kernel.
pub fn code_end(target: &Target) -> Option<CodeEnd> {
    let end = target.generation.code_end();
    match end.on {
        CodeEndOn::Every => Some(end),
        CodeEndOn::UnifiedVgprs => target.unified_vgprs.then_some(end),
    }
}

/// The padding instruction of `target`'s generation (`s_code_end`, or gfx9's `s_nop 0`), which
/// fills the gaps between kernels and, where [`code_end`] says, the code's end.
pub fn padding_word(target: &Target) -> [u8; 4] {
    crate::template::of(target.generation).map_or(crate::template::S_CODE_END, |t| t.code_padding())
}

/// `e_machine`: EM_AMDGPU.
pub const EM_AMDGPU: u16 = 224;
/// `e_flags` mask of the EF_AMDGPU_MACH field.
pub const EF_AMDGPU_MACH: u32 = 0xff;
/// Note type NT_AMDGPU_METADATA.
pub const NT_AMDGPU_METADATA: u32 = 32;
/// Note name of AMDGPU notes.
pub const NOTE_NAME: &[u8] = b"AMDGPU";
/// Alignment of each kernel's code (LLVM aligns kernel entries to 256 bytes).
pub const CODE_ALIGN: u64 = 256;
/// Alignment of each kernel descriptor.
pub const DESCRIPTOR_ALIGN: u64 = 64;
/// Page size the segments are laid out for.
pub const PAGE: u64 = 0x1000;

/// A code object, as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeObject {
    /// The `e_flags` word (machine in the low byte).
    pub e_flags: u32,
    /// The target the machine value names.
    pub target: &'static Target,
    /// The metadata note, parsed.
    pub metadata: Metadata,
    /// The kernels, in metadata order.
    pub kernels: Vec<LoadedKernel>,
}

impl CodeObject {
    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&LoadedKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// One kernel of a code object: everything the hardware takes from the descriptor, and the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedKernel {
    /// `.name` (and the function symbol).
    pub name: String,
    /// Virtual address of the descriptor (`<name>.kd`).
    pub descriptor_address: u64,
    /// The descriptor, parsed.
    pub descriptor: KernelDescriptor,
    /// Virtual address of the first instruction (descriptor address + entry offset).
    pub entry: u64,
    /// The code from the entry to the end of the function symbol (or of its segment when the
    /// symbol has no size): decode from byte 0.
    pub code: Vec<u8>,
    /// This kernel's metadata map.
    pub meta: KernelMeta,
}

/// Why bytes are not a code object this crate can load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Not a parsable ELF file (truncated, bad magic, bad table offsets...).
    Elf(String),
    /// A header field with the wrong value.
    Header {
        field: &'static str,
        found: u64,
        expected: u64,
    },
    /// An `EF_AMDGPU_MACH` value that names no target of the target table.
    UnknownMachine(u32),
    /// The metadata's `amdhsa.target` is not the target `e_flags` names.
    TargetMismatch {
        machine: &'static Target,
        metadata: String,
    },
    /// No AMDGPU metadata note in any PT_NOTE segment.
    NoMetadata,
    /// The metadata note is not the MessagePack map code object V5 defines.
    Metadata(String),
    /// A symbol named by the metadata is missing from `.dynsym`.
    MissingSymbol(String),
    /// An address that no PT_LOAD segment's file bytes cover.
    Unmapped {
        what: String,
        address: u64,
        len: u64,
    },
    /// A kernel descriptor that does not parse or does not agree with the rest.
    Descriptor { kernel: String, why: String },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Elf(e) => write!(f, "not a readable ELF code object: {e} (truncated or corrupted file?)"),
            ReadError::Header { field, found, expected } => write!(
                f,
                "ELF header field {field} is {found:#x}, an HSA code object for its target has \
                 {expected:#x} (v5 for a processor, v6 for a generic target)"
            ),
            ReadError::UnknownMachine(m) => write!(
                f,
                "e_flags machine {m:#x} is no target this harness builds for (supported: {})",
                target::supported_list()
            ),
            ReadError::TargetMismatch { machine, metadata } => write!(
                f,
                "e_flags names {machine} but the metadata's amdhsa.target is `{metadata}`"
            ),
            ReadError::NoMetadata => write!(
                f,
                "no AMDGPU metadata note (type 32) in a PT_NOTE segment: was this linked as an HSA code object?"
            ),
            ReadError::Metadata(e) => write!(f, "the AMDGPU metadata note does not parse: {e}"),
            ReadError::MissingSymbol(s) => write!(f, "the metadata names `{s}`, which .dynsym does not define"),
            ReadError::Unmapped { what, address, len } => write!(
                f,
                "{what} at {address:#x} (+{len} bytes) lies outside every loadable segment's file bytes"
            ),
            ReadError::Descriptor { kernel, why } => write!(f, "kernel `{kernel}`: bad descriptor: {why}"),
        }
    }
}

impl std::error::Error for ReadError {}

#[cfg(test)]
mod tests;
