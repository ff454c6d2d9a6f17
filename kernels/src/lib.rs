//! ds-kernels: the kernels that run one DS instruction per launch on a gfx1100, the kernel ABI
//! they share with every device, and the HSA code object they are packed into.
//!
//! - [`inst`]: the kernel template's instructions as data ([`inst::Inst`]), with
//!   [`inst::encode`], [`inst::decode`] and LLVM syntax (`Display`, identical to
//!   `llvm-objdump-19 -d --mcpu=gfx1100`). DS instructions are the DS table's
//!   [`ds_reference::isa::DsInst`], wrapped as `Inst::Ds`.
//! - [`abi`]: THE kernel ABI (kernarg layout, per-case buffers, strides), with
//!   [`abi::pack`] (cases -> [`launch::Launch`]) and [`abi::unpack`] (launch -> outcomes).
//! - [`generator`]: [`generator::kernel_name`] and [`generator::generate`]: one kernel per
//!   variant, from one template ([`generator::Kernel`]: name, instructions, code, descriptor,
//!   register counts; `listing()` and `annotated()` on demand). Its docs list the entry state
//!   and the instructions a device must execute.
//! - [`code_object`]: [`code_object::write`] (kernels -> ELF code object) and
//!   [`code_object::read`] (ELF -> kernels with their parsed descriptors, code and metadata).
//! - [`launch`]: the launch contract every device implements.
//!
//! This crate reads the DS table of [`ds_reference::isa`]; it names no DS opcode itself.

pub use ds_reference::isa;

pub mod abi;
pub mod code_object;
pub mod generator;
pub mod inst;
pub mod launch;

/// The LDS allocation the CLI and the default corpus use when none is given: 1 KiB, small enough
/// to copy in and out quickly, large enough for every operand shape's addresses and offsets.
pub const DEFAULT_LDS_SIZE: u32 = 1024;
