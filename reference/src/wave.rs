//! The inputs and outputs of one DS instruction over one wave (32 or 64 lanes): the data the
//! model, the kernel ABI, every device and the case files share.
//!
//! A [`Variant`] is what a kernel is built for (op, offsets, LDS allocation size, FP mode, wave
//! size: the kernel descriptor fields). A case of a variant has one [`Lane`] per lane of the
//! variant's wave size and an EXEC with no bit past the last lane ([`Variant::check_case`]). A [`Case`] is one run of it: the initial LDS image and the wave's
//! registers. An [`Outcome`] is what the instruction left: the LDS image and every lane's vdst
//! (and addr, which only `ds_bvh_stack_rtn_b32` writes). Register numbers are not part of a case:
//! the kernel generator chooses them, unless the variant names them ([`Variant::regs`], for
//! instructions whose operands share registers: see [`crate::regs`]).

pub use crate::regs::Regs;
use ds_isa::ds::{encode::op_by_name, DsInst, DsOp};
use ds_isa::ds_features::DsFeatures;
use ds_isa::target::Target;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The wave sizes RDNA3 runs (RDNA3 ISA guide, "Wave32 and Wave64"; LLVM AMDGPUUsage,
/// `wavefrontsize32` / `wavefrontsize64`). The one place a lane count is written down.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WaveSize {
    /// 32 lanes, one EXEC dword (`exec_lo`): what HIP builds by default.
    #[default]
    Wave32,
    /// 64 lanes, a 64-bit EXEC (`exec`): `-mwavefrontsize64`, RADV's wave64 shaders.
    Wave64,
}

impl WaveSize {
    /// Both sizes, wave32 first.
    pub const ALL: [WaveSize; 2] = [WaveSize::Wave32, WaveSize::Wave64];
    /// Lanes in one 32-lane half of a wave64 (and in a whole wave32): the unit the cross-lane DS
    /// ops of gfx11 work in (ASSUMPTIONS.md W1-W4).
    pub const HALF: usize = 32;

    /// Lanes in a wave of this size.
    pub const fn lanes(self) -> usize {
        match self {
            WaveSize::Wave32 => 32,
            WaveSize::Wave64 => 64,
        }
    }

    /// The EXEC mask with every lane of the wave set.
    pub const fn full_exec(self) -> u64 {
        match self {
            WaveSize::Wave32 => u32::MAX as u64,
            WaveSize::Wave64 => u64::MAX,
        }
    }

    /// The size with `lanes` lanes (32 or 64).
    pub fn from_lanes(lanes: usize) -> Option<WaveSize> {
        WaveSize::ALL.into_iter().find(|w| w.lanes() == lanes)
    }

    /// Wave32, the default (what case files leave unsaid).
    pub fn is_wave32(&self) -> bool {
        *self == WaveSize::Wave32
    }
}

/// Case files write the wave size as its lane count (`"wave": 64`).
impl Serialize for WaveSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.lanes() as u32)
    }
}

impl<'de> Deserialize<'de> for WaveSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WaveSize, D::Error> {
        use serde::de::Error;
        let n = u32::deserialize(d)?;
        WaveSize::from_lanes(n as usize).ok_or_else(|| {
            D::Error::custom(format!(
                "wave {n} is not a wave size: write {} (or leave it out for {})",
                WaveSize::ALL.map(|w| w.lanes().to_string()).join(" or "),
                WaveSize::default()
            ))
        })
    }
}

impl std::str::FromStr for WaveSize {
    type Err = String;
    /// `32`, `64`, `wave32` or `wave64`.
    fn from_str(s: &str) -> Result<WaveSize, String> {
        let n = s.strip_prefix("wave").unwrap_or(s);
        n.parse::<usize>()
            .ok()
            .and_then(WaveSize::from_lanes)
            .ok_or_else(|| {
                format!(
                    "`{s}` is not a wave size: use {}",
                    WaveSize::ALL.map(|w| w.lanes().to_string()).join(" or ")
                )
            })
    }
}

impl std::fmt::Display for WaveSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "wave{}", self.lanes())
    }
}

/// The FP mode of the kernel (RDNA3 ISA guide, "MODE" register: FP_DENORM, IEEE; set through the
/// kernel descriptor's FLOAT_DENORM_MODE_32, FLOAT_DENORM_MODE_16_64 and ENABLE_IEEE_MODE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FpMode {
    /// FP32 denormals are kept (input and output); when false they are flushed to zero.
    pub fp32_denormals: bool,
    /// FP16 and FP64 denormals are kept; when false they are flushed to zero.
    pub fp16_fp64_denormals: bool,
    /// IEEE mode (affects NaN handling of min/max).
    pub ieee: bool,
}

impl Default for FpMode {
    /// What a HIP compute kernel gets by default: denormals kept, IEEE mode on.
    fn default() -> Self {
        FpMode {
            fp32_denormals: true,
            fp16_fp64_denormals: true,
            ieee: true,
        }
    }
}

/// What one kernel is built for: the op, its offset bytes, the LDS allocation, the FP mode, the
/// wave size, the operands' registers (`regs`) and their register file (`acc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// The instruction under test.
    #[serde(with = "op_by_name")]
    pub op: DsOp,
    /// OFFSET0 (the low byte of a 16-bit offset).
    pub offset0: u8,
    /// OFFSET1 (the high byte of a 16-bit offset).
    pub offset1: u8,
    /// LDS bytes allocated to the workgroup (a multiple of 4).
    pub lds_size: u32,
    /// FP mode of the kernel.
    pub mode: FpMode,
    /// The wave size the kernel runs in (absent in case files: wave32).
    #[serde(default, skip_serializing_if = "WaveSize::is_wave32")]
    pub wave: WaveSize,
    /// The VGPR of each operand, when the case is about operands that share registers (ADDR
    /// inside VDST, DATA0 = DATA1, ...); absent: the generator's layout, where none overlap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regs: Option<Regs>,
    /// DATA0, DATA1 and VDST live in AccVGPRs (the DS acc bit; absent in case files: false).
    /// Only on targets whose `ds_features` have ACC, and only for ops with data or vdst
    /// ([`Variant::check_acc`]). ADDR is a VGPR either way; with `regs`, the numbers of DATA0,
    /// DATA1 and VDST name AccVGPRs, ADDR's a VGPR, and a VGPR never aliases an AccVGPR of the
    /// same number (they are two register files: see [`crate::regs`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub acc: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Variant {
    /// The variant's instruction: with `regs`, the registers they name; without, every register
    /// field zero (the generator picks registers).
    pub fn inst(&self) -> DsInst {
        let mut inst = DsInst {
            offset0: self.offset0,
            offset1: self.offset1,
            acc: self.acc,
            ..DsInst::new(self.op)
        };
        if let Some(regs) = self.regs {
            for field in crate::regs::ORDER {
                if let (Some(r), true) =
                    (regs.get(field), self.op.info().operands.dwords(field) > 0)
                {
                    inst.set_reg(field, r);
                }
            }
        }
        inst
    }

    /// Whether `acc` is legal for this variant on `target`: the target's DS encoding has the acc
    /// bit (its `ds_features` have ACC) and the op has data or vdst to put in AccVGPRs.
    pub fn check_acc(&self, target: &Target) -> Result<(), AccError> {
        if !self.acc {
            return Ok(());
        }
        let op = self.op;
        if !target.ds_features.contains(DsFeatures::ACC) {
            return Err(AccError::NoAcc {
                target: target.name,
            });
        }
        if !op.info().acc_capable() {
            return Err(AccError::NoOperand { op });
        }
        Ok(())
    }

    /// The `acc` settings a run makes of `op` on `target`: `[false, true]` where `acc` is legal
    /// ([`Variant::check_acc`]), else `[false]`.
    pub fn acc_settings(op: DsOp, target: &Target) -> &'static [bool] {
        if target.ds_features.contains(DsFeatures::ACC) && op.info().acc_capable() {
            &[false, true]
        } else {
            &[false]
        }
    }

    /// Lanes in one wave of this variant.
    pub fn lanes(&self) -> usize {
        self.wave.lanes()
    }

    /// Whether `wave` has the shape this variant's wave size asks for: one lane object per lane,
    /// no EXEC bit past the last lane.
    pub fn check_wave(&self, wave: &Wave) -> Result<(), WaveShapeError> {
        let size = self.wave;
        if wave.lanes.len() != size.lanes() {
            return Err(WaveShapeError::Lanes {
                size,
                got: wave.lanes.len(),
            });
        }
        if wave.exec & !size.full_exec() != 0 {
            return Err(WaveShapeError::Exec {
                size,
                exec: wave.exec,
            });
        }
        Ok(())
    }
}

/// Why a variant's `acc` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccError {
    /// The target's DS encoding has no acc bit (its `ds_features` lack ACC).
    NoAcc { target: &'static str },
    /// The op has neither data nor vdst: nothing to put in AccVGPRs.
    NoOperand { op: DsOp },
}

impl std::fmt::Display for AccError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AccError::NoAcc { target } => write!(
                f,
                "variant.acc: {target} has no AccVGPR operands for DS instructions (no acc bit): \
                 remove \"acc\" or run on a target that has them (`ds-harness info` lists the targets)"
            ),
            AccError::NoOperand { op } => write!(
                f,
                "variant.acc: {op} has neither data nor vdst, so nothing can live in AccVGPRs: \
                 remove \"acc\""
            ),
        }
    }
}

impl std::error::Error for AccError {}

/// Why a wave does not have its variant's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaveShapeError {
    /// The lane count is not the wave size's.
    Lanes { size: WaveSize, got: usize },
    /// EXEC names a lane the wave does not have.
    Exec { size: WaveSize, exec: u64 },
}

impl std::fmt::Display for WaveShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WaveShapeError::Lanes { size, got } => write!(
                f,
                "a {size} case has {} lane objects, this one has {got} (set variant.wave to the wave size the lanes are for)",
                size.lanes()
            ),
            WaveShapeError::Exec { size, exec } => write!(
                f,
                "EXEC {exec:#x} sets lanes a {size} does not have (lanes 0..{})",
                size.lanes() - 1
            ),
        }
    }
}

impl std::error::Error for WaveShapeError {}

/// One lane's registers before the instruction. Words beyond an operand's width are ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lane {
    /// The ADDR register (a byte address in LDS, or a lane index for permutes).
    pub addr: u32,
    /// DATA0, up to 4 dwords.
    pub data0: [u32; 4],
    /// DATA1, up to 8 dwords (the gfx12 BVH push8 forms read 8; every other op at most 4).
    /// Case files write 4 dwords when the upper four are zero (as files before 8-dword DATA1
    /// did, which still read), else 8.
    #[serde(with = "data1_words")]
    pub data1: [u32; DATA1_DWORDS],
    /// VDST before the instruction (a sentinel, so partial and skipped writes are visible).
    pub vdst: [u32; 4],
}

impl Lane {
    /// DATA1's first four dwords (every op but the 8-dword BVH pushes reads at most these).
    pub fn data1_low(&self) -> [u32; 4] {
        self.data1[..4].try_into().expect("four dwords")
    }

    /// DATA0 and DATA1's first four dwords trade places (an operand order read the other way).
    pub fn swap_data(&mut self) {
        let low = self.data1_low();
        self.data1[..4].copy_from_slice(&self.data0);
        self.data0 = low;
    }
}

/// Dwords of DATA1 a lane carries (the widest DATA1 operand of the DS table).
pub const DATA1_DWORDS: usize = 8;

/// DATA1 in case files: 4 dwords (the upper four zero) or 8.
mod data1_words {
    use super::DATA1_DWORDS;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(w: &[u32; DATA1_DWORDS], s: S) -> Result<S::Ok, S::Error> {
        let n = if w[4..].iter().all(|&x| x == 0) {
            4
        } else {
            DATA1_DWORDS
        };
        w[..n].serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u32; DATA1_DWORDS], D::Error> {
        use serde::de::Error;
        let v = Vec::<u32>::deserialize(d)?;
        if v.len() != 4 && v.len() != DATA1_DWORDS {
            return Err(D::Error::custom(format!(
                "data1 has {} dwords: write 4, or {DATA1_DWORDS} for an op whose DATA1 is 8 dwords",
                v.len()
            )));
        }
        let mut w = [0; DATA1_DWORDS];
        w[..v.len()].copy_from_slice(&v);
        Ok(w)
    }
}

/// The wave's state before the instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wave {
    /// EXEC: bit i set means lane i is active (a wave32 uses bits 0..31).
    pub exec: u64,
    /// M0 (addtid, append and consume read M0[15:0]).
    pub m0: u32,
    /// Lane registers, lane 0 first: one per lane of the variant's wave size.
    pub lanes: Vec<Lane>,
}

impl Wave {
    /// A wave of `size` with every lane active and every register zero.
    pub fn new(size: WaveSize) -> Wave {
        Wave {
            exec: size.full_exec(),
            m0: 0,
            lanes: vec![Lane::default(); size.lanes()],
        }
    }

    /// Lane `i` is in EXEC.
    pub fn active(&self, i: usize) -> bool {
        self.exec.checked_shr(i as u32).is_some_and(|e| e & 1 == 1)
    }

    /// The active lanes, ascending.
    pub fn active_lanes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.lanes.len()).filter(|&i| self.active(i))
    }
}

impl Default for Wave {
    /// A wave32 with every lane active.
    fn default() -> Self {
        Wave::new(WaveSize::Wave32)
    }
}

/// An LDS image: the whole allocation, byte-addressed.
///
/// Serialised as `{"size": N, "words": [[byte_offset, value], ...]}` listing the non-zero
/// little-endian dwords, so case files stay small and readable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lds {
    bytes: Vec<u8>,
}

impl Lds {
    /// A zero-filled allocation of `size` bytes (`size` is rounded up to a multiple of 4).
    pub fn zeroed(size: u32) -> Lds {
        Lds {
            bytes: vec![0; (size as usize).next_multiple_of(4)],
        }
    }

    /// Makes this image [`Lds::zeroed`]`(size)` in place, keeping its allocation (a run builds
    /// its cases into the buffers of spent ones).
    pub fn reset_zeroed(&mut self, size: u32) {
        self.bytes.clear();
        self.bytes.resize((size as usize).next_multiple_of(4), 0);
    }

    /// Makes this image a copy of `other`, keeping its allocation.
    pub fn set_from(&mut self, other: &Lds) {
        self.bytes.clone_from(&other.bytes);
    }

    /// An image from raw bytes (length rounded up to a multiple of 4 with zeros).
    pub fn from_bytes(mut bytes: Vec<u8>) -> Lds {
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        Lds { bytes }
    }

    /// Allocation size in bytes.
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// The raw bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The raw bytes, mutable (the size is fixed).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// The dword at byte offset `at` (must be 4-aligned and inside the allocation).
    pub fn word(&self, at: u32) -> u32 {
        let i = at as usize;
        u32::from_le_bytes(self.bytes[i..i + 4].try_into().expect("4 bytes"))
    }

    /// Sets the dword at byte offset `at` (must be 4-aligned and inside the allocation).
    pub fn set_word(&mut self, at: u32, value: u32) {
        let i = at as usize;
        self.bytes[i..i + 4].copy_from_slice(&value.to_le_bytes());
    }

    /// `(byte offset, value)` of every non-zero dword.
    pub fn nonzero_words(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.size())
            .step_by(4)
            .map(|at| (at, self.word(at)))
            .filter(|&(_, v)| v != 0)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LdsRepr {
    size: u32,
    words: Vec<(u32, u32)>,
}

impl Serialize for Lds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        LdsRepr {
            size: self.size(),
            words: self.nonzero_words().collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Lds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lds, D::Error> {
        use serde::de::Error;
        let repr = LdsRepr::deserialize(d)?;
        if repr.size % 4 != 0 {
            return Err(D::Error::custom(format!(
                "lds.size {} is not a multiple of 4",
                repr.size
            )));
        }
        let mut lds = Lds::zeroed(repr.size);
        let mut seen = std::collections::HashSet::new();
        for (at, value) in repr.words {
            if at % 4 != 0 || at >= repr.size {
                return Err(D::Error::custom(format!(
                    "lds.words: byte offset {at} is not a 4-aligned offset inside the {}-byte allocation",
                    repr.size
                )));
            }
            // One value per word: a second one would silently replace the first.
            if !seen.insert(at) {
                return Err(D::Error::custom(format!(
                    "lds.words: byte offset {at} is given twice; give each word once"
                )));
            }
            lds.set_word(at, value);
        }
        Ok(lds)
    }
}

/// One run of a variant: the initial LDS image and the wave.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The LDS image before the instruction (its size is the variant's `lds_size`).
    pub lds: Lds,
    /// EXEC, M0 and the lanes' registers before the instruction.
    pub wave: Wave,
}

/// What the instruction left behind.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// The LDS image after the instruction.
    pub lds: Lds,
    /// Every lane's vdst after the instruction (inactive lanes and unused words keep their value).
    pub vdst: Vec<[u32; 4]>,
    /// Every lane's addr register after the instruction (changed only by `ds_bvh_stack_rtn_b32`,
    /// or by a result landing in it when the variant's `regs` put it inside VDST).
    pub addr: Vec<u32>,
    /// With `variant.regs`: every lane's DATA0 registers after the instruction (words past the
    /// operand's width as the case gave them). They change only where VDST overlaps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data0: Option<Vec<[u32; 4]>>,
    /// With `variant.regs`: every lane's DATA1 registers after the instruction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data1: Option<Vec<[u32; 4]>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data1_reads_4_or_8_dwords_and_writes_4_when_the_upper_four_are_zero() {
        let old =
            r#"{"addr": 1, "data0": [2, 0, 0, 0], "data1": [3, 4, 5, 6], "vdst": [0, 0, 0, 0]}"#;
        let l: Lane = serde_json::from_str(old).unwrap();
        assert_eq!(l.data1, [3, 4, 5, 6, 0, 0, 0, 0]);
        assert!(serde_json::to_string(&l)
            .unwrap()
            .contains(r#""data1":[3,4,5,6]"#));
        let wide = r#"{"addr": 1, "data0": [2, 0, 0, 0], "data1": [3, 4, 5, 6, 7, 8, 9, 10], "vdst": [0, 0, 0, 0]}"#;
        let l: Lane = serde_json::from_str(wide).unwrap();
        assert_eq!(l.data1, [3, 4, 5, 6, 7, 8, 9, 10]);
        let back: Lane = serde_json::from_str(&serde_json::to_string(&l).unwrap()).unwrap();
        assert_eq!(back, l);
        let odd =
            r#"{"addr": 1, "data0": [2, 0, 0, 0], "data1": [3, 4, 5, 6, 7], "vdst": [0, 0, 0, 0]}"#;
        let e = serde_json::from_str::<Lane>(odd).unwrap_err().to_string();
        assert!(e.contains("data1 has 5 dwords: write 4, or 8"), "{e}");
    }
}
