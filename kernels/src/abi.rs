//! THE kernel ABI: how a batch of [`Case`]s of one [`Variant`] becomes the buffers of a
//! [`Launch`], and how the buffers become [`Outcome`]s. Every kernel of [`crate::generator`] and
//! every device follows this, and nothing else describes it. (Facts on the kernel side come from
//! LLVM's AMDGPUUsage, "Code Object V5 Metadata" / "Kernel Descriptor" / "Initial Kernel Execution
//! State" for GFX11; see the generator.)
//!
//! # Launch
//! One workgroup of one wave per case: `workgroups = cases.len()`, `workgroup_size` = the
//! variant's lane count (32 in wave32, 64 in wave64). The case index is the workgroup id x (where
//! the target delivers it at entry: [`crate::entry`]); lane `l` is work-item id x `l`.
//!
//! # Kernarg segment
//! Five 64-bit global addresses, in this order (40 bytes, 8-byte aligned), as
//! [`crate::launch`] fixes it (one address per [`Buffer`], in order):
//!
//! | # | buffer      | in/out | per case (stride)            | contents                                   |
//! |---|-------------|--------|------------------------------|--------------------------------------------|
//! | 0 | `lds_in`    | in     | `lds_size` bytes             | the initial LDS image, byte for byte        |
//! | 1 | `lanes_in`  | in     | lanes x [`lane_in_bytes`] (64: 2048 / 4096; 128 for 8-dword DATA1) | per lane: addr, data0, data1, vdst sentinel |
//! | 2 | `lds_out`   | out    | `lds_size` bytes             | the final LDS image                         |
//! | 3 | `lanes_out` | out    | lanes x [`LANE_OUT_BYTES`] (2048 / 4096) | per lane: final vdst, addr, data0, data1 |
//! | 4 | `wave_in`   | in     | [`wave_in_bytes`]: 8 / 16     | EXEC\[31:0\], M0, (wave64) EXEC\[63:32\], 0 |
//!
//! Case `c` of a buffer starts at `c * stride`; lane `l` of a lane record at `l * lane_bytes`.
//! All values are little-endian dwords. `lds_size` is the variant's (a multiple of 4, at most the
//! target's `lds_bytes`: [`check_lds_size_on`]); the kernel's LDS allocation (descriptor `group_segment_fixed_size`) is the same size.
//!
//! On hardware a workgroup's LDS is allocated in granules: the descriptor encodes it in 512-byte
//! units (AMDGPUUsage, "compute_pgm_rsrc2 for GFX6-GFX12", GRANULATED_LDS_SIZE:
//! `roundup(lds-size / (128 * 4))` for GFX7 and later, which the CP derives from
//! `group_segment_fixed_size`), and from GFX10.3 on the hardware aligns the allocation to 1024
//! bytes (Mesa `ac_gpu_info.c`, `lds_alloc_granularity`). So the bytes from `lds_size` to
//! `roundup(lds_size, target.lds_granule)` may be in range on a GPU, holding what an earlier
//! workgroup left, although the model treats them as out of range. The kernel zeroes them after
//! copying the image in (the generator's `zero_tail`; nothing when the size is a whole number of
//! granules), so whatever a case reaches there is defined and the same on every run; they are
//! neither loaded from nor dumped to a buffer. ASSUMPTIONS.md A1 says what remains open.

//! Lane record in `lanes_in` (64 bytes): `addr` at byte 0 (bytes 4..16 zero), `data0[0..4]` at 16,
//! `data1[0..4]` at 32, `vdst[0..4]` at 48 (the sentinel the instruction may overwrite). For an op
//! whose DATA1 is 8 dwords (gfx12's `ds_bvh_stack_push8_*`) the record is 128 bytes
//! ([`lane_in_bytes`]): the same 64 bytes, then `data1[4..8]` at 64 and zeros to 128.
//! Lane record in `lanes_out` (64 bytes): `vdst[0..4]` at 0, `addr` at 16 (bytes 20..32 unused),
//! `data0[0..4]` at 32, `data1[0..4]` at 48.
//! Every lane's record is written, active or not. Without `variant.regs`: all four vdst dwords
//! (words the op does not write keep the sentinel) and the addr register after the instruction
//! (only `ds_bvh_stack_rtn_b32` changes it); the data words are not written (the data registers
//! never change there). With `variant.regs` (operands that may share registers): the final value
//! of every register an operand names, and nothing else: vdst's first `operands.vdst` dwords,
//! addr if the op has one, data0's and data1's first `operands.data0` / `.data1` dwords.
//! [`unpack`] fills the words no register stands for from the case (they cannot change).
//!
//! Output buffers are filled with [`POISON`] before the launch, so a word the kernel failed to
//! write shows as `0xdeadbeef`.
//!
//! # Register and state contract inside the kernel
//! EXEC is all lanes except around the instruction under test, where `exec_lo` (wave64: `exec`)
//! is the case's EXEC; M0 is the case's M0 from before the instruction until the end. The kernel restores
//! EXEC before storing results, so inactive lanes' registers are stored too.

use crate::launch::{Buffer, Launch};
use ds_isa::target::Target;
use ds_reference::wave::{Case, Lds, Outcome, Variant, WaveSize};
use rayon::prelude::*;
use std::fmt;

pub use crate::contract::{
    lane_in_bytes, max_lds_size, wave_in_bytes, workgroup_size, BUFFERS, KERNARG_SIZE, LANES_IN,
    LANES_OUT, LANE_IN_ADDR, LANE_IN_BYTES, LANE_IN_BYTES_DATA8, LANE_IN_DATA0, LANE_IN_DATA1,
    LANE_IN_DATA1_HI, LANE_IN_VDST, LANE_OUT_ADDR, LANE_OUT_BYTES, LANE_OUT_DATA0, LANE_OUT_DATA1,
    LANE_OUT_VDST, LDS_IN, LDS_OUT, POISON, WAVE_IN, WAVE_IN_BYTES, WAVE_IN_EXEC_HI,
};

/// Why cases cannot be packed, or buffers cannot be unpacked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbiError {
    /// No cases: a launch needs at least one workgroup.
    NoCases,
    /// The variant's LDS size is not a multiple of 4 in 4..=the largest LDS of a workgroup
    /// (the target's, when named).
    LdsSize(u32),
    /// The variant's LDS size is not a multiple of 4 in 4..=`max`, the `lds_bytes` of `target`.
    LdsSizeOn {
        size: u32,
        target: &'static str,
        max: u32,
    },
    /// A case's LDS image is not the variant's size.
    CaseLdsSize {
        case: usize,
        found: u32,
        expected: u32,
    },
    /// The launch does not have the buffers this ABI defines.
    Buffers { found: Vec<String> },
    /// A case's wave is not the shape of the variant's wave size (lane count, EXEC bits).
    CaseWaveSize {
        case: usize,
        lanes: usize,
        exec: u64,
        expected: WaveSize,
    },
    /// A buffer has the wrong size for the cases.
    BufferSize {
        name: &'static str,
        found: usize,
        expected: usize,
    },
}

impl fmt::Display for AbiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbiError::NoCases => write!(f, "no cases to pack: a launch needs at least one"),
            AbiError::LdsSize(s) => write!(
                f,
                "LDS size {s} is not a multiple of 4 between 4 and {} bytes: pick another size",
                max_lds_size()
            ),
            AbiError::LdsSizeOn { size, target, max } => write!(
                f,
                "LDS size {size} is not a multiple of 4 between 4 and {max} bytes (the LDS a \
                 {target} workgroup can have): pick another size"
            ),
            AbiError::CaseLdsSize { case, found, expected } => write!(
                f,
                "case {case} has a {found}-byte LDS image, the variant allocates {expected}: make them equal"
            ),
            AbiError::CaseWaveSize { case, lanes, exec, expected } => write!(
                f,
                "case {case} has {lanes} lanes and EXEC {exec:#x}, the kernel runs {expected} ({} lanes): build the kernel for the case's wave size",
                expected.lanes()
            ),
            AbiError::Buffers { found } => write!(
                f,
                "the launch has buffers [{}], the kernel ABI expects [{}]",
                found.join(", "),
                BUFFERS.join(", ")
            ),
            AbiError::BufferSize { name, found, expected } => write!(
                f,
                "buffer `{name}` holds {found} bytes, {expected} expected for these cases (did the device copy it back whole?)"
            ),
        }
    }
}

impl std::error::Error for AbiError {}

/// Checks a variant's LDS size against the ABI's ceiling (the largest LDS of any target).
pub fn check_lds_size(size: u32) -> Result<(), AbiError> {
    if size == 0 || size & 3 != 0 || size > max_lds_size() {
        return Err(AbiError::LdsSize(size));
    }
    Ok(())
}

/// Checks a variant's LDS size for `target`: a multiple of 4 from 4 to the target table's
/// `lds_bytes` (64 KiB on most targets, more on some).
pub fn check_lds_size_on(target: &Target, size: u32) -> Result<(), AbiError> {
    if size == 0 || size & 3 != 0 || size > target.lds_bytes {
        return Err(AbiError::LdsSizeOn {
            size,
            target: target.name,
            max: target.lds_bytes,
        });
    }
    Ok(())
}

fn put(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn get(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(buf[at..at + 4].try_into().expect("4 bytes"))
}

/// Fills `buf` with [`POISON`] (whole dwords, then the first bytes of one).
fn fill_poison(buf: &mut [u8]) {
    let word = POISON.to_le_bytes();
    let mut chunks = buf.chunks_exact_mut(4);
    for c in &mut chunks {
        c.copy_from_slice(&word);
    }
    let tail = chunks.into_remainder();
    let n = tail.len();
    tail.copy_from_slice(&word[..n]);
}

/// One case and its bytes of each buffer, as [`pack_into`] zips them: ((((case, lds_in),
/// lanes_in), wave_in), (lds_out, lanes_out)).
type CaseBytes<'a> = (
    (((&'a Case, &'a mut [u8]), &'a mut [u8]), &'a mut [u8]),
    (&'a mut [u8], &'a mut [u8]),
);

/// Cases a rayon task packs or unpacks at least (a case is a few KB: less is not worth a task).
const CASES_PER_TASK: usize = 8;

/// Packs `cases` of `variant` into a launch of the kernel [`crate::name::kernel_name`]
/// names. The cases are packed on the rayon pool (each case's records are its own bytes of
/// each buffer).
pub fn pack(variant: &Variant, cases: &[Case]) -> Result<Launch, AbiError> {
    let mut launch = Launch {
        kernel: String::new(),
        workgroups: 0,
        workgroup_size: 0,
        buffers: Vec::new(),
    };
    pack_into(variant, cases, &mut launch)?;
    Ok(launch)
}

/// [`pack`] into `launch`, reusing the memory of its buffers (a launch made by [`pack`] before,
/// for any variant and number of cases): every byte of every buffer is written anew.
pub fn pack_into(variant: &Variant, cases: &[Case], launch: &mut Launch) -> Result<(), AbiError> {
    check_lds_size(variant.lds_size)?;
    if cases.is_empty() {
        return Err(AbiError::NoCases);
    }
    let (wave, lanes) = (variant.wave, variant.lanes());
    for (c, case) in cases.iter().enumerate() {
        if case.lds.size() != variant.lds_size {
            return Err(AbiError::CaseLdsSize {
                case: c,
                found: case.lds.size(),
                expected: variant.lds_size,
            });
        }
        if variant.check_wave(&case.wave).is_err() {
            return Err(AbiError::CaseWaveSize {
                case: c,
                lanes: case.wave.lanes.len(),
                exec: case.wave.exec,
                expected: wave,
            });
        }
    }
    let n = cases.len();
    let lds = variant.lds_size as usize;
    let lane_in = lane_in_bytes(variant.op.info().operands.data1) as usize;
    let lanes_in_case = lanes * lane_in;
    let lanes_out_case = lanes * LANE_OUT_BYTES as usize;
    let record = wave_in_bytes(wave) as usize;
    let sizes = [
        n * lds,
        n * lanes_in_case,
        n * lds,
        n * lanes_out_case,
        n * record,
    ];
    let names: Vec<&str> = launch.buffers.iter().map(|b| b.name).collect();
    if names != BUFFERS {
        launch.buffers = BUFFERS
            .iter()
            .enumerate()
            .map(|(i, &name)| Buffer {
                name,
                bytes: Vec::new(),
                copy_back: i == LDS_OUT || i == LANES_OUT,
            })
            .collect();
    }
    for (b, &size) in launch.buffers.iter_mut().zip(&sizes) {
        // Only new bytes are zeroed: every byte is written below.
        b.bytes.truncate(size);
        b.bytes.resize(size, 0);
    }
    launch.kernel = crate::name::kernel_name(variant);
    launch.workgroups = n as u32;
    launch.workgroup_size = workgroup_size(wave);
    let [lds_in, lanes_in, lds_out, lanes_out, wave_in] = &mut launch.buffers[..] else {
        unreachable!("the ABI's five buffers")
    };
    let pack_case = |((((case, lds_in), lanes_in), wave_in), (lds_out, lanes_out)): CaseBytes| {
        lds_in.copy_from_slice(case.lds.bytes());
        for (lane, record) in case
            .wave
            .lanes
            .iter()
            .zip(lanes_in.chunks_exact_mut(lane_in))
        {
            put(record, LANE_IN_ADDR as usize, lane.addr);
            record[LANE_IN_ADDR as usize + 4..LANE_IN_DATA0 as usize].fill(0);
            for i in 0..4 {
                put(record, LANE_IN_DATA0 as usize + 4 * i, lane.data0[i]);
                put(record, LANE_IN_DATA1 as usize + 4 * i, lane.data1[i]);
                put(record, LANE_IN_VDST as usize + 4 * i, lane.vdst[i]);
            }
            if record.len() == LANE_IN_BYTES_DATA8 as usize {
                // The 8-dword DATA1's upper half, then zeros to the record's end.
                for i in 4..8 {
                    put(
                        record,
                        LANE_IN_DATA1_HI as usize + 4 * (i - 4),
                        lane.data1[i],
                    );
                }
                record[LANE_IN_DATA1_HI as usize + 16..].fill(0);
            }
        }
        let exec = case.wave.exec;
        wave_in.fill(0);
        put(wave_in, 0, exec as u32);
        put(wave_in, 4, case.wave.m0);
        if wave == WaveSize::Wave64 {
            put(wave_in, WAVE_IN_EXEC_HI as usize, (exec >> 32) as u32);
        }
        fill_poison(lds_out);
        fill_poison(lanes_out);
    };
    cases
        .par_iter()
        .zip(lds_in.bytes.par_chunks_mut(lds))
        .zip(lanes_in.bytes.par_chunks_mut(lanes_in_case))
        .zip(wave_in.bytes.par_chunks_mut(record))
        .zip(
            lds_out
                .bytes
                .par_chunks_mut(lds)
                .zip(lanes_out.bytes.par_chunks_mut(lanes_out_case)),
        )
        .with_min_len(CASES_PER_TASK)
        .for_each(pack_case);
    Ok(())
}

/// Reads the outcomes of `cases` back from a finished `launch` (made by [`pack`]), on the rayon
/// pool.
pub fn unpack(
    variant: &Variant,
    cases: &[Case],
    launch: &Launch,
) -> Result<Vec<Outcome>, AbiError> {
    let back = Readback::new(variant, cases.len(), launch)?;
    Ok(cases
        .par_iter()
        .enumerate()
        .with_min_len(CASES_PER_TASK)
        .map(|(c, case)| back.outcome(c, case))
        .collect())
}

/// The output buffers of a finished launch made by [`pack`], checked once; any case's outcome
/// can then be read on its own ([`Readback::outcome`]), on any thread.
#[derive(Debug)]
pub struct Readback<'a> {
    variant: Variant,
    lds_out: &'a [u8],
    lanes_out: &'a [u8],
}

impl<'a> Readback<'a> {
    /// Checks that `launch` has this ABI's buffers, sized for `cases` cases of `variant`.
    pub fn new(variant: &Variant, cases: usize, launch: &'a Launch) -> Result<Self, AbiError> {
        check_lds_size(variant.lds_size)?;
        let names: Vec<&str> = launch.buffers.iter().map(|b| b.name).collect();
        if names != BUFFERS {
            return Err(AbiError::Buffers {
                found: names.iter().map(|s| s.to_string()).collect(),
            });
        }
        let check = |i: usize, expected: usize| {
            let found = launch.buffers[i].bytes.len();
            if found == expected {
                Ok(&launch.buffers[i].bytes[..])
            } else {
                Err(AbiError::BufferSize {
                    name: BUFFERS[i],
                    found,
                    expected,
                })
            }
        };
        let lds = variant.lds_size as usize;
        Ok(Readback {
            variant: *variant,
            lds_out: check(LDS_OUT, cases * lds)?,
            lanes_out: check(LANES_OUT, cases * variant.lanes() * LANE_OUT_BYTES as usize)?,
        })
    }

    /// The outcome of case `c` (which is `case`).
    pub fn outcome(&self, c: usize, case: &Case) -> Outcome {
        let variant = &self.variant;
        let lanes = variant.lanes();
        let lds = variant.lds_size as usize;
        let lane_out = LANE_OUT_BYTES as usize;
        let ops = variant.op.info().operands;
        let regs = variant.regs;
        let lanes_out = self.lanes_out;
        let mut outcome = Outcome {
            lds: Lds::from_bytes(self.lds_out[c * lds..(c + 1) * lds].to_vec()),
            vdst: vec![[0; 4]; lanes],
            addr: vec![0; lanes],
            data0: None,
            data1: None,
        };
        let mut data = match regs {
            Some(_) => [vec![[0u32; 4]; lanes], vec![[0u32; 4]; lanes]],
            None => [Vec::new(), Vec::new()],
        };
        for (l, lane) in case.wave.lanes.iter().enumerate().take(lanes) {
            let at = (c * lanes + l) * lane_out;
            // Without regs every vdst dword and addr is dumped; with regs only the registers
            // the operands name, the other words are the case's.
            let (nv, na) = match regs {
                None => (4, 1),
                Some(_) => (usize::from(ops.vdst), usize::from(ops.addr)),
            };
            for i in 0..4 {
                outcome.vdst[l][i] = if i < nv {
                    get(lanes_out, at + LANE_OUT_VDST as usize + 4 * i)
                } else {
                    lane.vdst[i]
                };
            }
            outcome.addr[l] = if na > 0 {
                get(lanes_out, at + LANE_OUT_ADDR as usize)
            } else {
                lane.addr
            };
            if regs.is_none() {
                continue;
            }
            for (d, (off, n, input)) in [
                (LANE_OUT_DATA0, ops.data0, lane.data0),
                (LANE_OUT_DATA1, ops.data1, lane.data1_low()),
            ]
            .into_iter()
            .enumerate()
            {
                for i in 0..4 {
                    data[d][l][i] = if i < usize::from(n) {
                        get(lanes_out, at + off as usize + 4 * i)
                    } else {
                        input[i]
                    };
                }
            }
        }
        if let Some(r) = regs {
            let [d0, d1] = data;
            outcome.data0 = r.data0.map(|_| d0);
            outcome.data1 = r.data1.map(|_| d1);
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::DsOp;
    use ds_reference::wave::{FpMode, Wave};

    fn variant(lds_size: u32) -> Variant {
        Variant {
            op: DsOp::AddRtnU32,
            offset0: 0,
            offset1: 0,
            lds_size,
            mode: FpMode::default(),
            wave: WaveSize::Wave32,
            regs: None,
            acc: false,
        }
    }

    fn case(seed: u32, lds_size: u32) -> Case {
        let mut lds = Lds::zeroed(lds_size);
        lds.set_word(4, seed);
        let mut wave = Wave {
            exec: u64::from(seed ^ 0x5555_5555),
            m0: seed.rotate_left(7),
            ..Wave::default()
        };
        for (l, lane) in wave.lanes.iter_mut().enumerate() {
            lane.addr = seed + l as u32;
            lane.data0 = [1, 2, 3, seed];
            lane.data1 = [5, 6, 7, l as u32, 0, 0, 0, 0];
            lane.vdst = [0xa0 + l as u32, 0xb0, 0xc0, 0xd0];
        }
        Case { lds, wave }
    }

    #[test]
    fn pack_lays_out_every_field_where_the_docs_say() {
        let v = variant(64);
        let cases = [case(10, 64), case(20, 64)];
        let launch = pack(&v, &cases).unwrap();
        assert_eq!(launch.kernarg_size(), KERNARG_SIZE as usize);
        assert_eq!(launch.workgroups, 2);
        let b = |i: usize| &launch.buffers[i].bytes;
        assert_eq!(get(b(LDS_IN), 64 + 4), 20);
        // Case 1, lane 3.
        let at = (32 + 3) * 64;
        assert_eq!(get(b(LANES_IN), at), 23);
        assert_eq!(get(b(LANES_IN), at + 16 + 12), 20);
        assert_eq!(get(b(LANES_IN), at + 32 + 12), 3);
        assert_eq!(get(b(LANES_IN), at + 48), 0xa3);
        assert_eq!(get(b(WAVE_IN), 8), 20 ^ 0x5555_5555);
        assert_eq!(get(b(WAVE_IN), 12), 20u32.rotate_left(7));
        assert!(b(LANES_OUT).chunks(4).all(|w| get(w, 0) == POISON));
        assert_eq!(b(LDS_OUT).len(), 128);
    }

    #[test]
    fn an_8_dword_data1_takes_a_128_byte_record_with_its_upper_half_at_64() {
        let v = Variant {
            op: DsOp::BvhStackPush8Pop1RtnB32,
            ..variant(64)
        };
        let mut c = case(10, 64);
        for (l, lane) in c.wave.lanes.iter_mut().enumerate() {
            lane.data1 = [1, 2, 3, 4, 0x50, 0x60, 0x70, 0x80 + l as u32];
        }
        let launch = pack(&v, &[c.clone(), c]).unwrap();
        let lanes_in = &launch.buffers[LANES_IN].bytes;
        assert_eq!(lanes_in.len(), 2 * 32 * LANE_IN_BYTES_DATA8 as usize);
        // Case 1, lane 3: the 64-byte record as for any op, then DATA1[4..8], then zeros.
        let at = (32 + 3) * LANE_IN_BYTES_DATA8 as usize;
        assert_eq!(get(lanes_in, at), 13);
        assert_eq!(get(lanes_in, at + LANE_IN_DATA1 as usize + 12), 4);
        assert_eq!(get(lanes_in, at + LANE_IN_VDST as usize), 0xa3);
        let hi = at + LANE_IN_DATA1_HI as usize;
        assert_eq!(
            [0, 4, 8, 12].map(|k| get(lanes_in, hi + k)),
            [0x50, 0x60, 0x70, 0x83]
        );
        assert!(lanes_in[hi + 16..at + 128].iter().all(|&b| b == 0));
    }

    #[test]
    fn pack_into_a_spent_launch_writes_what_pack_writes() {
        // A launch of more cases and a larger LDS, its outputs overwritten, then reused.
        let mut spent = pack(&variant(64), &[case(3, 64), case(4, 64), case(5, 64)]).unwrap();
        for b in &mut spent.buffers {
            b.bytes.fill(0x77);
        }
        let v = variant(16);
        let cases = [case(1, 16), case(2, 16)];
        pack_into(&v, &cases, &mut spent).unwrap();
        assert_eq!(spent, pack(&v, &cases).unwrap());
        // And the other way round: fewer bytes than it needs.
        let v = variant(64);
        let cases = [case(6, 64), case(7, 64), case(8, 64)];
        pack_into(&v, &cases, &mut spent).unwrap();
        assert_eq!(spent, pack(&v, &cases).unwrap());
    }

    #[test]
    fn unpack_reads_what_a_device_wrote() {
        let v = variant(16);
        let cases = [case(1, 16)];
        let mut launch = pack(&v, &cases).unwrap();
        put(&mut launch.buffers[LDS_OUT].bytes, 8, 77);
        put(&mut launch.buffers[LANES_OUT].bytes, 5 * 64 + 4, 99);
        put(&mut launch.buffers[LANES_OUT].bytes, 31 * 64 + 16, 1234);
        let out = unpack(&v, &cases, &launch).unwrap();
        assert_eq!(out[0].lds.word(8), 77);
        assert_eq!(out[0].lds.word(0), POISON);
        assert_eq!(out[0].vdst[5][1], 99);
        assert_eq!(out[0].addr[31], 1234);
    }

    #[test]
    fn bad_inputs_are_refused_with_reasons() {
        assert_eq!(pack(&variant(64), &[]), Err(AbiError::NoCases));
        assert_eq!(pack(&variant(6), &[case(0, 8)]), Err(AbiError::LdsSize(6)));
        assert!(matches!(
            pack(&variant(64), &[case(0, 32)]),
            Err(AbiError::CaseLdsSize {
                case: 0,
                found: 32,
                expected: 64
            })
        ));
        let v = variant(16);
        let cases = [case(1, 16)];
        let mut launch = pack(&v, &cases).unwrap();
        launch.buffers[LANES_OUT].bytes.pop();
        let err = unpack(&v, &cases, &launch).unwrap_err();
        assert!(err.to_string().contains("lanes_out"), "{err}");
        launch.buffers.swap(0, 1);
        assert!(matches!(
            unpack(&v, &cases, &launch),
            Err(AbiError::Buffers { .. })
        ));
    }

    #[test]
    fn a_wave64_variant_packs_64_lane_records_a_64_bit_exec_and_workgroups_of_64() {
        let v = Variant {
            wave: WaveSize::Wave64,
            ..variant(64)
        };
        let mut c = case(10, 64);
        c.wave.lanes.resize(64, c.wave.lanes[31]);
        c.wave.lanes[40].addr = 4040;
        c.wave.exec = 0x8000_0001_0000_0002;
        let mut c0 = case(0, 64);
        c0.wave.lanes.resize(64, Default::default());
        let launch = pack(&v, &[c0, c.clone()]).unwrap();
        assert_eq!(launch.workgroup_size, 64);
        assert!(launch.kernel.ends_with("_w64"), "{}", launch.kernel);
        let b = |i: usize| &launch.buffers[i].bytes;
        assert_eq!(b(LANES_IN).len(), 2 * 64 * 64);
        assert_eq!(get(b(LANES_IN), (64 + 40) * 64), 4040);
        assert_eq!(b(WAVE_IN).len(), 2 * 16);
        assert_eq!(get(b(WAVE_IN), 16), 2);
        assert_eq!(get(b(WAVE_IN), 16 + WAVE_IN_EXEC_HI as usize), 0x8000_0001);
        // A 32-lane case under a wave64 variant is refused, naming both.
        let err = pack(&v, &[case(1, 64)]).unwrap_err();
        assert!(
            matches!(err, AbiError::CaseWaveSize { lanes: 32, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("32 lanes"), "{err}");
        // Unpack reads 64 lanes back.
        let mut launch = pack(&v, std::slice::from_ref(&c)).unwrap();
        put(&mut launch.buffers[LANES_OUT].bytes, 63 * 64, 77);
        let out = unpack(&v, &[c], &launch).unwrap();
        assert_eq!(out[0].vdst.len(), 64);
        assert_eq!(out[0].vdst[63][0], 77);
    }
}
