//! The code object V5 metadata (LLVM AMDGPUUsage, "Code Object V5 Metadata", which extends the
//! V3/V4 tables "AMDHSA Code Object V3 Metadata Map Keys", "... Kernel Metadata Map Keys" and
//! "... Kernel Argument Metadata Map Keys"), carried as MessagePack in the `NT_AMDGPU_METADATA`
//! note. Serialised with `rmp_serde::to_vec_named`, so structs are maps keyed by the names below,
//! as llvm-mc and lld write them.

use serde::{Deserialize, Serialize};

/// `amdhsa.version` for code object V5.
pub const VERSION: [u32; 2] = [1, 2];

/// The top-level metadata map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// `amdhsa.version`: [major, minor].
    #[serde(rename = "amdhsa.version")]
    pub version: Vec<u32>,
    /// `amdhsa.target`: the target id.
    #[serde(rename = "amdhsa.target", default)]
    pub target: String,
    /// `amdhsa.kernels`: one map per kernel.
    #[serde(rename = "amdhsa.kernels")]
    pub kernels: Vec<KernelMeta>,
}

/// One kernel's metadata map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelMeta {
    /// `.name`: the kernel's source name.
    #[serde(rename = ".name")]
    pub name: String,
    /// `.symbol`: the descriptor's symbol (`<name>.kd`).
    #[serde(rename = ".symbol")]
    pub symbol: String,
    /// `.kernarg_segment_size` in bytes.
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    /// `.kernarg_segment_align` in bytes.
    #[serde(rename = ".kernarg_segment_align")]
    pub kernarg_segment_align: u32,
    /// `.group_segment_fixed_size`: LDS bytes.
    #[serde(rename = ".group_segment_fixed_size")]
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size`: scratch bytes per work-item.
    #[serde(rename = ".private_segment_fixed_size")]
    pub private_segment_fixed_size: u32,
    /// `.wavefront_size`: 32 or 64 (agrees with the descriptor's wave32 bit).
    #[serde(rename = ".wavefront_size")]
    pub wavefront_size: u32,
    /// `.sgpr_count`.
    #[serde(rename = ".sgpr_count")]
    pub sgpr_count: u32,
    /// `.vgpr_count`: on a unified register file the VGPRs and AccVGPRs together.
    #[serde(rename = ".vgpr_count")]
    pub vgpr_count: u32,
    /// `.agpr_count`: the AccVGPRs, on a target with a unified register file (llc writes it
    /// there, 0 included, and nowhere else).
    #[serde(
        rename = ".agpr_count",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub agpr_count: Option<u32>,
    /// `.sgpr_spill_count`.
    #[serde(rename = ".sgpr_spill_count", default)]
    pub sgpr_spill_count: u32,
    /// `.vgpr_spill_count`.
    #[serde(rename = ".vgpr_spill_count", default)]
    pub vgpr_spill_count: u32,
    /// `.max_flat_workgroup_size`: work-items per workgroup at most.
    #[serde(rename = ".max_flat_workgroup_size")]
    pub max_flat_workgroup_size: u32,
    /// `.uses_dynamic_stack` (V5).
    #[serde(rename = ".uses_dynamic_stack", default)]
    pub uses_dynamic_stack: bool,
    /// `.args`: the kernel arguments, in kernarg order.
    #[serde(rename = ".args", default)]
    pub args: Vec<ArgMeta>,
}

/// One kernel argument's metadata map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgMeta {
    /// `.name`.
    #[serde(rename = ".name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `.offset` in the kernarg segment.
    #[serde(rename = ".offset")]
    pub offset: u32,
    /// `.size` in bytes.
    #[serde(rename = ".size")]
    pub size: u32,
    /// `.value_kind` (`global_buffer` here).
    #[serde(rename = ".value_kind")]
    pub value_kind: String,
    /// `.address_space` (`global` for a global buffer).
    #[serde(
        rename = ".address_space",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub address_space: Option<String>,
}

impl Metadata {
    /// The MessagePack bytes (named maps).
    pub fn to_msgpack(&self) -> Vec<u8> {
        rmp_serde::to_vec_named(self)
            .expect("metadata serialises: plain maps, strings and integers")
    }

    /// Parses MessagePack bytes.
    pub fn from_msgpack(bytes: &[u8]) -> Result<Metadata, rmp_serde::decode::Error> {
        rmp_serde::from_slice(bytes)
    }
}
