//! The default corpus: for every runnable op a few kernel variants (offsets, FP mode) and, for each,
//! cases built from the patterns docs/design-notes.md, "Runs at scale" lists: edge values for the element type
//! (integer limits, float zeros, denormals, infinities, quiet and signalling NaNs with payloads),
//! address patterns, exec patterns, and seeded random values. Float encodings follow IEEE 754
//! binary32/binary64; the swizzle offsets follow the RDNA3 ISA guide's DS_SWIZZLE_B32 modes.
//!
//! Everything comes from [`SplitMix64`] seeded from the run's seed, the op's name, the variant and
//! the case's index, so the same seed gives the same cases on every machine, and any case can be
//! built without the ones before it (a run streams its cases in chunks on many threads).

use ds_isa::ds::{DsOp, Family, OffsetForm, Rmw};
use ds_isa::target::Target;
use ds_reference::regs::Alias;
use ds_reference::wave::{Case, FpMode, Lane, Lds, Variant, Wave, WaveSize};
use values::value;

mod barrier;
mod bvh;
mod values;

/// The seed of `ds-harness run` when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 0x0d5_4a12_e55e;
/// Cases per op when `--cases` is not given.
pub const DEFAULT_CASES_PER_OP: usize = 160;
/// Aliasing variants (operands sharing registers) per op in the default corpus: the first ones of
/// [`Alias::ALL`] the op has. The snapshot corpus runs them all.
pub const DEFAULT_ALIASES: usize = 2;

/// A small fixed PRNG (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
/// 2014): the same sequence on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next_u32() as u64 * n as u64) >> 32) as u32
    }

    /// One element of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
}

/// FNV-1a of `text`: mixes an op's name into its seed.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// One generated case and the patterns it was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenCase {
    /// Unique within the run: `<op>.<variant tag>.<index>.<addr pattern>.<exec pattern>`.
    pub id: String,
    /// The case.
    pub case: Case,
}

/// The cases of one kernel variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantCases {
    /// The kernel the cases run on.
    pub variant: Variant,
    /// Short tag of the variant in case ids (`o16`, `o0_1`, `swz041f`, `o0-ftz`).
    pub tag: String,
    /// The cases.
    pub cases: Vec<GenCase>,
}

/// LDS bytes allocated by the variants of `op`: room for 32 lanes x 16 bytes and the offsets (the
/// same in wave64, where the widest ops' "unique" addresses repeat across the halves).
pub fn lds_size(op: DsOp) -> u32 {
    let info = op.info();
    match info.offset {
        OffsetForm::Stride64 => 1024,
        // A stack per lane, 128 bytes per entry, up to 64 entries (gfx11's largest size).
        _ if matches!(info.family, Family::BvhStack | Family::BvhPushPop(_)) => 8192,
        _ if !info.accesses_lds() => 256,
        _ => 512,
    }
}

/// The kernel variants the default corpus runs for `op` in wave `wave`: wave32's [`variants`]; in
/// wave64 the same variants, the aliasing ones too (the wave64 template places named registers as
/// the wave32 one does), each with `wave` set and `-w64` appended to its tag.
pub fn variants_in(op: DsOp, wave: WaveSize) -> Vec<(Variant, String)> {
    variants_on(op, wave, false)
}

/// [`variants_in`] for a target that needs every register tuple at an even register or not
/// (`even_tuples`, [`even_tuples`]): its aliasing variants place tuples so
/// ([`Alias::for_op_in`]); the other variants are the same.
pub fn variants_on(op: DsOp, wave: WaveSize, even_tuples: bool) -> Vec<(Variant, String)> {
    let all = variants_with(op, even_tuples);
    if wave.is_wave32() {
        return all;
    }
    all.into_iter()
        .map(|(v, tag)| (Variant { wave, ..v }, format!("{tag}-w{}", wave.lanes())))
        .collect()
}

/// The kernel variants a run on `target` makes of `op` in wave `wave`: [`variants_in`], and on a
/// target whose DS encoding has the acc bit (`ds_features` ACC) each of them once more with
/// `acc` (data and vdst in AccVGPRs; `-acc` appended to its tag) when the op has data or vdst
/// ([`Variant::acc_settings`]).
pub fn variants_for(op: DsOp, wave: WaveSize, target: &Target) -> Vec<(Variant, String)> {
    with_acc(
        variants_on(op, wave, even_tuples(target)),
        op,
        target,
        |(v, tag)| (Variant { acc: true, ..*v }, format!("{tag}-acc")),
    )
}

/// `items` followed, where `target` runs `op` with `acc`, by `acc_copy` of each.
fn with_acc<T>(items: Vec<T>, op: DsOp, target: &Target, acc_copy: impl Fn(&T) -> T) -> Vec<T> {
    if !Variant::acc_settings(op, target).contains(&true) {
        return items;
    }
    let copies: Vec<T> = items.iter().map(acc_copy).collect();
    items.into_iter().chain(copies).collect()
}

/// The kernel variants the default corpus runs for `op` in wave32: a few offsets, for float ops
/// (the packed 16-bit adds included) one more with denormals flushed and IEEE mode off, and one
/// with an allocation of an odd size.
pub fn variants(op: DsOp) -> Vec<(Variant, String)> {
    variants_with(op, false)
}

/// Whether `target` needs every register tuple at an even register (its DS features lack
/// `unaligned-tuples`: CDNA 2 and later).
pub fn even_tuples(target: &ds_isa::target::Target) -> bool {
    !target
        .ds_features
        .contains(ds_isa::ds::DsFeatures::UNALIGNED)
}

fn variants_with(op: DsOp, even_tuples: bool) -> Vec<(Variant, String)> {
    let info = op.info();
    let base = Variant {
        op,
        offset0: 0,
        offset1: 0,
        lds_size: lds_size(op),
        mode: FpMode::default(),
        wave: ds_reference::wave::WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let single = |o: u16| {
        (
            Variant {
                offset0: o as u8,
                offset1: (o >> 8) as u8,
                ..base
            },
            format!("o{o}"),
        )
    };
    let pair = |a: u8, b: u8| {
        (
            Variant {
                offset0: a,
                offset1: b,
                ..base
            },
            format!("o{a}_{b}"),
        )
    };
    let mut out = match info.offset {
        OffsetForm::NoOffset => vec![(base, "o0".to_string())],
        OffsetForm::Swizzle => [0x041f_u16, 0x801b, 0x00a0, 0xc020, 0xe005]
            .into_iter()
            .map(|o| {
                let (v, _) = single(o);
                (v, format!("swz{o:04x}"))
            })
            .collect(),
        OffsetForm::Pair => vec![pair(0, 1), pair(5, 2), pair(1, 63)],
        OffsetForm::Stride64 => vec![pair(0, 1), pair(1, 0), pair(2, 3)],
        OffsetForm::Single => match info.family {
            Family::Append | Family::Consume => vec![single(0), single(8)],
            Family::StoreAddTid | Family::LoadAddTid => vec![single(0), single(4), single(0x104)],
            Family::Permute | Family::Bpermute => vec![single(0), single(4), single(0x1fe)],
            // OFFSET1[5:4]: 8, 16 and 64 entries (the RDNA3 guide's stack size field).
            Family::BvhStack => vec![single(0), single(0x1000), single(0x3000)],
            // OFFSET0[4:0] the size (0 read as 16, B6), OFFSET1[0] the triangle-pair flag,
            // OFFSET1[1] primitive-range enable (the RDNA4 guide's fields).
            Family::BvhPushPop(_) => vec![
                single(16),
                single(0),
                single(4),
                single(0x0110),
                single(0x0210),
            ],
            // src2: the offset names the second operand's distance from ADDR in dwords (up, down
            // from 0x4000 on), or with bit 15 set hands it to ADDR's bits 31:17.
            Family::Src2(_) => vec![single(0), single(8), single(0x7ff0), single(0x8000)],
            _ => vec![single(0), single(8), single(0x103), single(0xfff0)],
        },
    };
    // Every float op, the packed 16-bit adds too (their denormals follow the FP32 or FP16/64
    // switch: ASSUMPTIONS.md N3), once more with denormals flushed and IEEE mode off.
    if info.elem.is_float() || info.elem.is_packed16() {
        out.push((
            Variant {
                mode: FpMode {
                    fp32_denormals: false,
                    fp16_fp64_denormals: false,
                    ieee: false,
                },
                ..base
            },
            "o0-ftz".to_string(),
        ));
    }
    // The packed 16-bit adds once more with only the FP16/64 switch flushing: the mode in which
    // ASSUMPTIONS.md N3's readings (bf16 flushed by the FP16/64 switch, by the FP32 one, or never)
    // give different results.
    if info.elem.is_packed16() {
        out.push((
            Variant {
                mode: FpMode {
                    fp32_denormals: true,
                    fp16_fp64_denormals: false,
                    ieee: true,
                },
                ..base
            },
            "o0-ftz16".to_string(),
        ));
    }
    // An allocation that is not a whole number of the kernels' 128-byte copy rounds, so the
    // last bytes of the allocation sit in a partial round.
    let odd = base.lds_size - 124;
    out.push((
        Variant {
            lds_size: odd,
            ..base
        },
        format!("o0-l{odd}"),
    ));
    // Operands that share registers, on the first variant's offsets.
    let first = out[0].clone();
    for (alias, regs) in Alias::for_op_in(op, even_tuples)
        .into_iter()
        .take(DEFAULT_ALIASES)
    {
        out.push((
            Variant {
                regs: Some(regs),
                ..first.0
            },
            format!("{}-{}", first.1, alias.name()),
        ));
    }
    out
}

/// One kernel variant of an op's corpus and how many cases it gets: any of its cases can be
/// built on its own from the seed and its index ([`VariantPlan::case`]), so a run generates them
/// in chunks, on any number of threads, and gets the same cases whatever the chunk size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantPlan {
    /// The kernel the cases run on.
    pub variant: Variant,
    /// Short tag of the variant in case ids.
    pub tag: String,
    /// Cases of this variant (a `--duration` run goes past it).
    pub count: usize,
    /// The variant's seed: the run's seed mixed with the op's name and the variant's index.
    seed: u64,
}

impl VariantPlan {
    /// Case `i` of the variant: its own generator is seeded from the variant's seed and `i`
    /// alone, so no case depends on the cases before it.
    pub fn case(&self, i: usize) -> Case {
        let mut case = Case {
            lds: Lds::zeroed(0),
            wave: Wave::new(self.variant.wave),
        };
        self.case_into(i, &mut case);
        case
    }

    /// Case `i` built into `out` (whatever it held before), reusing its buffers: a run's
    /// chunks are built into the cases of spent ones, so a case costs no allocation.
    pub fn case_into(&self, i: usize, out: &mut Case) {
        let (addr, exec) = patterns(&self.variant, i);
        let mut rng = SplitMix64::new(mix(self.seed, i as u64));
        build(&self.variant, addr, exec, &mut rng, out);
    }

    /// The id of case `i`: `<op>.<variant tag>.<index>.<addr pattern>.<exec pattern>`.
    pub fn id(&self, i: usize) -> String {
        let (addr, exec) = patterns(&self.variant, i);
        format!(
            "{}.{}.{i}.{}.{}",
            self.variant.op,
            self.tag,
            addr.name(),
            exec.name()
        )
    }

    /// Case `i` with its id.
    pub fn gen_case(&self, i: usize) -> GenCase {
        GenCase {
            id: self.id(i),
            case: self.case(i),
        }
    }
}

/// The address and exec patterns of case `i` of `v` (every pairing comes round; wave64 adds the
/// EXEC patterns that straddle the halves). A transpose load, which the model judges with every
/// lane on only where EXEC must be all ones (ASSUMPTIONS.md V9), gets EXEC all on in three cases
/// of four; a barrier arrive, judged with one lane on only (C3), one lane in three of four.
fn patterns(v: &Variant, i: usize) -> (AddrPattern, ExecPattern) {
    let execs: &[ExecPattern] = if v.wave.is_wave32() {
        &EXEC_PATTERNS
    } else {
        &EXEC_PATTERNS_WAVE64
    };
    let exec = execs[(i + i / ADDR_PATTERNS.len()) % execs.len()];
    let family = v.op.info().family;
    (
        ADDR_PATTERNS[i % ADDR_PATTERNS.len()],
        match family {
            Family::LoadTranspose(_) if i % 4 != 3 => ExecPattern::All,
            Family::BarrierArrive if i % 4 != 3 => ExecPattern::OneLane,
            _ => exec,
        },
    )
}

/// The seed of element `i` of a stream seeded with `seed`: SplitMix64's output for the state
/// `seed + (i + 1) * gamma`, so neighbouring indices get unrelated seeds.
fn mix(seed: u64, i: u64) -> u64 {
    SplitMix64::new(seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).next_u64()
}

/// The plan of `op`'s default corpus: `cases` cases spread over [`variants`] (the first variants
/// get the remainder), from `seed`. With fewer cases than variants, the variants left without a
/// case are not in the plan.
pub fn plan(op: DsOp, seed: u64, cases: usize) -> Vec<VariantPlan> {
    plan_in(op, seed, cases, WaveSize::Wave32)
}

/// The plan of `op` in each wave size of `waves`, in that order: `cases` cases per wave size.
pub fn plan_waves(op: DsOp, seed: u64, cases: usize, waves: &[WaveSize]) -> Vec<VariantPlan> {
    waves
        .iter()
        .flat_map(|&w| plan_in(op, seed, cases, w))
        .collect()
}

/// [`plan`] in waves of `wave` ([`variants_in`]); wave64's seeds differ from wave32's.
pub fn plan_in(op: DsOp, seed: u64, cases: usize, wave: WaveSize) -> Vec<VariantPlan> {
    plan_on(op, seed, cases, wave, false)
}

/// [`plan_in`] for a target that needs even register tuples or not ([`variants_on`]).
pub fn plan_on(
    op: DsOp,
    seed: u64,
    cases: usize,
    wave: WaveSize,
    even_tuples: bool,
) -> Vec<VariantPlan> {
    let variants = variants_on(op, wave, even_tuples);
    let n = variants.len();
    let seed = if wave.is_wave32() {
        seed
    } else {
        seed ^ fnv1a(&wave.to_string())
    };
    variants
        .into_iter()
        .enumerate()
        .map(|(vi, (variant, tag))| VariantPlan {
            variant,
            tag,
            count: cases / n + usize::from(vi < cases % n),
            seed: seed ^ fnv1a(op.name()) ^ (vi as u64).rotate_left(48),
        })
        .filter(|p| p.count > 0)
        .collect()
}

/// [`plan_in`] for a run on `target` ([`variants_for`]): each `acc` variant gets the seed and
/// the count of its twin without `acc`, so both run the very same cases and differ only in the
/// register file.
pub fn plan_for(
    op: DsOp,
    seed: u64,
    cases: usize,
    wave: WaveSize,
    target: &Target,
) -> Vec<VariantPlan> {
    with_acc(
        plan_on(op, seed, cases, wave, even_tuples(target)),
        op,
        target,
        |p| VariantPlan {
            variant: Variant {
                acc: true,
                ..p.variant
            },
            tag: format!("{}-acc", p.tag),
            ..p.clone()
        },
    )
}

/// The default corpus of `op`, every case built: [`plan`] with its cases (for tests and small
/// runs; `ds-harness run` streams the plan in chunks instead).
pub fn for_op(op: DsOp, seed: u64, cases: usize) -> Vec<VariantCases> {
    plan(op, seed, cases)
        .into_iter()
        .map(|p| VariantCases {
            cases: (0..p.count).map(|i| p.gen_case(i)).collect(),
            variant: p.variant,
            tag: p.tag,
        })
        .collect()
}

/// How the lanes' addresses are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AddrPattern {
    /// Distinct aligned addresses, shuffled over the lanes.
    Unique,
    /// Every lane the same address.
    Same,
    /// Lanes 2k and 2k+1 share an address.
    Pairs,
    /// A 128-byte stride: every lane in one bank, wrapping inside the allocation.
    BankConflict,
    /// Unique addresses plus 1 to 3 bytes.
    Misaligned,
    /// The last bytes of the allocation, some accesses straddling its end.
    End,
    /// Some lanes in range, others beyond the allocation (just past it, far past it, near 2^32).
    OutOfRange,
    /// Address + offset wraps past 2^16 or 2^32.
    OffsetOverflow,
    /// Random aligned addresses in range (collisions likely).
    Random,
}

const ADDR_PATTERNS: [AddrPattern; 9] = [
    AddrPattern::Unique,
    AddrPattern::Same,
    AddrPattern::Pairs,
    AddrPattern::BankConflict,
    AddrPattern::Misaligned,
    AddrPattern::End,
    AddrPattern::OutOfRange,
    AddrPattern::OffsetOverflow,
    AddrPattern::Random,
];

impl AddrPattern {
    fn name(self) -> &'static str {
        match self {
            AddrPattern::Unique => "addr-unique",
            AddrPattern::Same => "addr-same",
            AddrPattern::Pairs => "addr-pairs",
            AddrPattern::BankConflict => "addr-bank",
            AddrPattern::Misaligned => "addr-misaligned",
            AddrPattern::End => "addr-end",
            AddrPattern::OutOfRange => "addr-oob",
            AddrPattern::OffsetOverflow => "addr-wrap",
            AddrPattern::Random => "addr-random",
        }
    }
}

/// Which lanes are active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExecPattern {
    All,
    None,
    OneLane,
    Alternating,
    Random,
    /// Wave64: only the upper half (lanes 32..63), all or some of it.
    UpperHalf,
    /// Wave64: lanes 31 and 32 (the last of the lower half, the first of the upper), plus
    /// random others.
    Straddle,
}

const EXEC_PATTERNS: [ExecPattern; 5] = [
    ExecPattern::All,
    ExecPattern::Random,
    ExecPattern::OneLane,
    ExecPattern::Alternating,
    ExecPattern::None,
];

const EXEC_PATTERNS_WAVE64: [ExecPattern; 7] = [
    ExecPattern::All,
    ExecPattern::Random,
    ExecPattern::UpperHalf,
    ExecPattern::OneLane,
    ExecPattern::Straddle,
    ExecPattern::Alternating,
    ExecPattern::None,
];

impl ExecPattern {
    fn name(self) -> &'static str {
        match self {
            ExecPattern::All => "exec-all",
            ExecPattern::None => "exec-none",
            ExecPattern::OneLane => "exec-one",
            ExecPattern::Alternating => "exec-alt",
            ExecPattern::Random => "exec-random",
            ExecPattern::UpperHalf => "exec-upper",
            ExecPattern::Straddle => "exec-31-32",
        }
    }

    /// The EXEC of a wave of `wave` (wave32: the same draws as before wave64 existed).
    fn mask(self, wave: WaveSize, rng: &mut SplitMix64) -> u64 {
        let full = wave.full_exec();
        let half = WaveSize::HALF as u32;
        match self {
            ExecPattern::All => full,
            ExecPattern::None => 0,
            ExecPattern::OneLane => 1 << rng.below(wave.lanes() as u32),
            ExecPattern::Alternating => {
                rng.pick(&[0x5555_5555_5555_5555, 0xaaaa_aaaa_aaaa_aaaa]) & full
            }
            ExecPattern::Random if wave.is_wave32() => u64::from(rng.next_u32()),
            ExecPattern::Random => rng.next_u64() & full,
            ExecPattern::UpperHalf => {
                let upper = full & !WaveSize::Wave32.full_exec();
                let some = rng.next_u64();
                upper & rng.pick(&[u64::MAX, some])
            }
            ExecPattern::Straddle => {
                (1 << (half - 1) | 1 << half) | (rng.next_u64() & full & rng.next_u64())
            }
        }
    }
}

/// Where an op's accesses fall relative to its address: `(align, extent)` where `extent` is the
/// furthest byte past the address any access reaches (offsets included).
fn geometry(v: &Variant) -> (u32, u32) {
    let info = v.op.info();
    let e = match info.family {
        Family::Load(_) | Family::Store(_) => info.elem.bytes(),
        Family::Permute | Family::Bpermute | Family::Swizzle => 4,
        _ => info.elem.bytes().max(4),
    }
    .max(1);
    let align = e.next_power_of_two().min(16);
    let extent = match info.offset {
        OffsetForm::Pair | OffsetForm::Stride64 => {
            v.offset0.max(v.offset1) as u32 * info.offset_scale() + e
        }
        // src2's offset does not move ADDR's own access (see `ds_reference::model::src2`).
        OffsetForm::Single if matches!(info.family, Family::Src2(_)) => e,
        OffsetForm::Single => v.inst().offset16() as u32 + e,
        OffsetForm::Swizzle | OffsetForm::NoOffset => e,
    };
    (align, extent)
}

/// The byte addresses of the variant's lanes for `pattern` (before the instruction's offset).
fn addresses(v: &Variant, pattern: AddrPattern, rng: &mut SplitMix64) -> Vec<u32> {
    let info = v.op.info();
    let (align, extent) = geometry(v);
    let lanes = v.lanes();
    // Permutes read a lane index from the address: their "allocation" is lanes x 4 bytes (in
    // wave64 indices 32..63 name the other half's lane numbers, W1/W2).
    let size = match info.family {
        Family::Permute | Family::Bpermute => 4 * lanes as u32,
        _ => v.lds_size,
    };
    let offset = extent - geometry_elem(v);
    let room = size.saturating_sub(extent); // highest in-range base address
    let slots = room / align + 1;
    let slot = |k: u32| (k % slots) * align;
    let mut perm: Vec<u32> = (0..lanes as u32).collect();
    for i in (1..lanes).rev() {
        perm.swap(i, rng.below(i as u32 + 1) as usize);
    }
    let same = slot(rng.below(slots));
    let end_tail = lanes - lanes / 4; // the last quarter of the lanes straddle the end
    (0..lanes)
        .map(|lane| {
            let l = lane as u32;
            match pattern {
                AddrPattern::Unique => slot(perm[lane]),
                AddrPattern::Same => same,
                AddrPattern::Pairs => slot(perm[lane / 2]),
                AddrPattern::BankConflict => (l * 128) % (room + 1) / align * align,
                AddrPattern::Misaligned => slot(perm[lane]) + 1 + l % 3,
                AddrPattern::End => {
                    let back = (l % 8) * align.min(4);
                    if lane < end_tail {
                        room.saturating_sub(back)
                    } else {
                        room + 1 + l % 3
                    }
                }
                AddrPattern::OutOfRange => match l % 6 {
                    0 | 1 => slot(rng.below(slots)),
                    2 => size + 4 * rng.below(4),
                    3 => size.wrapping_mul(2 + rng.below(8)),
                    4 => 0x1_0000 - 4 * (1 + rng.below(4)),
                    _ => 0u32.wrapping_sub(4 * (1 + rng.below(8))),
                },
                AddrPattern::OffsetOverflow => match l % 3 {
                    0 => 0u32
                        .wrapping_sub(offset)
                        .wrapping_add(slot(rng.below(slots))),
                    1 => 0x1_0000u32.wrapping_sub(offset) + slot(rng.below(slots)),
                    _ => u32::MAX - l,
                },
                AddrPattern::Random => slot(rng.below(slots)),
            }
        })
        .collect()
}

/// The size in bytes of one access (the part of [`geometry`]'s extent that is not offset).
fn geometry_elem(v: &Variant) -> u32 {
    let saved = Variant {
        offset0: 0,
        offset1: 0,
        ..*v
    };
    geometry(&saved).1
}

/// One case of variant `v`.
fn build(v: &Variant, addr: AddrPattern, exec: ExecPattern, rng: &mut SplitMix64, out: &mut Case) {
    let info = v.op.info();
    let elem = info.elem;
    let Case { lds, wave } = out;
    lds.reset_zeroed(v.lds_size);
    for at in (0..v.lds_size).step_by(8) {
        let mut pair = [0u32; 2];
        match rng.below(4) {
            0 => {}
            _ => value(elem, rng, &mut pair),
        }
        lds.set_word(at, pair[0]);
        if at + 4 < v.lds_size {
            lds.set_word(at + 4, pair[1]);
        }
    }
    let addrs = addresses(v, addr, rng);
    wave.exec = exec.mask(v.wave, rng);
    wave.m0 = rng.next_u32();
    wave.lanes.clear();
    wave.lanes.resize(v.wave.lanes(), Lane::default());
    let (d0, d1) = (info.operands.data0 as usize, info.operands.data1 as usize);
    for (lane, l) in wave.lanes.iter_mut().enumerate() {
        if info.operands.addr > 0 {
            l.addr = addrs[lane];
        }
        value(elem, rng, &mut l.data0[..d0]);
        value(elem, rng, &mut l.data1[..d1]);
        for (w, slot) in l.vdst.iter_mut().enumerate() {
            *slot = 0x5e00_0000 | (lane as u32) << 8 | w as u32;
        }
    }
    match info.family {
        // M0[15:0] is the base address; the upper half is noise the op must ignore.
        Family::StoreAddTid | Family::LoadAddTid | Family::Append | Family::Consume => {
            let base = addrs[rng.below(addrs.len() as u32) as usize];
            let base = if matches!(info.family, Family::StoreAddTid | Family::LoadAddTid) {
                base.saturating_sub(4 * (addrs.len() as u32 - 1))
            } else {
                base
            };
            wave.m0 = (rng.next_u32() & 0xffff_0000) | (base & 0xffff);
        }
        // A quarter of the lanes hold memory's value in DATA1 (the compare value from gfx11 on),
        // a quarter in DATA0 (the compare value in gfx9 and gfx10: `Generation::cmpst_data0`),
        // so under either order some stores happen, and an order swapped shows.
        Family::Rmw(Rmw::CmpStore) => {
            let offset = v.inst().offset16() as u32;
            for l in wave.lanes.iter_mut() {
                let at = l.addr.wrapping_add(offset);
                let slot: &mut [u32] = match rng.below(4) {
                    0 => &mut l.data1[..4],
                    1 => &mut l.data0,
                    _ => continue,
                };
                if at % 4 == 0
                    && at
                        .checked_add(4 * d1 as u32)
                        .is_some_and(|end| end <= v.lds_size)
                {
                    for (w, word) in slot.iter_mut().enumerate().take(d1) {
                        *word = lds.word(at + 4 * w as u32);
                    }
                }
            }
        }
        Family::BvhStack | Family::BvhPushPop(_) => bvh::shape(v, wave, lds, rng),
        Family::BarrierArrive => barrier::shape(v, wave, lds, rng),
        _ => {}
    }
    if let Some(regs) = v.regs {
        // One value per register: an active lane's registers take the first operand's value
        // (addr, data0, data1, vdst), an inactive lane's keep the vdst sentinel.
        regs.harmonise_lanes(v.op, v.acc, &mut wave.lanes, wave.exec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ds_isa::ds::runnable_ops;
    use ds_isa::gen::Generation;

    /// A case built into the buffers of a spent one (another op's, another LDS size, another
    /// wave size, a BVH stack op's shaped LDS) is the case built afresh: nothing of the old case
    /// shows through.
    #[test]
    fn a_case_built_into_a_spent_one_is_the_fresh_case() {
        let target = ds_isa::target::DEFAULT;
        let ops = [
            "ds_bvh_stack_rtn_b32",
            "ds_add_rtn_u32",
            "ds_min_f64",
            "ds_permute_b32",
        ];
        let mut plans = Vec::new();
        for name in ops {
            let op = DsOp::from_name(name).unwrap();
            for wave in [WaveSize::Wave64, WaveSize::Wave32] {
                plans.extend(plan_for(op, DEFAULT_SEED, 8, wave, target));
            }
        }
        let mut spent = plans[0].case(3);
        for (k, p) in plans.iter().enumerate() {
            for i in [0, 5, 11] {
                p.case_into(i, &mut spent);
                assert_eq!(spent, p.case(i), "variant {} ({}) case {i}", k, p.tag);
            }
        }
    }

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // First outputs for seed 0 from the paper's reference implementation.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn the_same_seed_gives_the_same_cases_and_another_seed_others() {
        let op = DsOp::from_name("ds_add_rtn_u32").unwrap();
        assert_eq!(for_op(op, 7, 40), for_op(op, 7, 40));
        assert_ne!(for_op(op, 7, 40), for_op(op, 8, 40));
        let one = for_op(op, 7, 1);
        assert_eq!((one.len(), one[0].cases.len()), (1, 1));
    }

    #[test]
    fn every_runnable_op_gets_the_asked_number_of_cases_with_unique_ids() {
        let mut ids = std::collections::HashSet::new();
        for op in runnable_ops(Generation::Gfx11) {
            let corpus = for_op(op, DEFAULT_SEED, 50);
            assert_eq!(
                corpus.iter().map(|v| v.cases.len()).sum::<usize>(),
                50,
                "{op}"
            );
            for vc in &corpus {
                for c in &vc.cases {
                    assert_eq!(c.case.lds.size(), vc.variant.lds_size);
                    assert!(ids.insert(c.id.clone()), "duplicate id {}", c.id);
                }
            }
        }
    }

    #[test]
    fn unique_addresses_are_distinct_aligned_and_in_range() {
        for op in runnable_ops(Generation::Gfx11).filter(|o| o.info().operands.addr > 0) {
            for (v, _) in variants(op) {
                let (align, extent) = geometry(&v);
                if extent > v.lds_size
                    || matches!(op.info().family, Family::Permute | Family::Bpermute)
                {
                    continue;
                }
                let a = addresses(&v, AddrPattern::Unique, &mut SplitMix64::new(1));
                let set: std::collections::HashSet<_> = a.iter().collect();
                assert_eq!(
                    set.len(),
                    v.lanes().min(((v.lds_size - extent) / align + 1) as usize),
                    "{op}"
                );
                assert!(
                    a.iter()
                        .all(|&x| x % align == 0 && x + extent <= v.lds_size),
                    "{op} {a:?}"
                );
            }
        }
    }

    #[test]
    fn the_corpus_covers_specials_exec_and_address_patterns() {
        let op = DsOp::from_name("ds_max_rtn_f32").unwrap();
        let corpus = for_op(op, DEFAULT_SEED, DEFAULT_CASES_PER_OP);
        let cases: Vec<&GenCase> = corpus.iter().flat_map(|v| &v.cases).collect();
        let data: Vec<u32> = cases
            .iter()
            .flat_map(|c| c.case.wave.lanes.iter().map(|l| l.data0[0]))
            .collect();
        for special in [0x8000_0000, 0x7f80_0001, 0xff80_0000, 0x0000_0001] {
            assert!(data.contains(&special), "{special:#x} missing");
        }
        for name in [
            "exec-none",
            "exec-one",
            "addr-same",
            "addr-oob",
            "addr-wrap",
            "addr-bank",
        ] {
            assert!(cases.iter().any(|c| c.id.contains(name)), "{name} missing");
        }
        assert!(cases.iter().any(|c| c.case.wave.exec == 0));
        assert!(corpus.iter().any(|v| !v.variant.mode.fp32_denormals));
    }

    /// The packed 16-bit adds (gfx12's `ds_pk_add_*`) run with denormals kept and flushed: their
    /// halves follow one denormal switch each (ASSUMPTIONS.md N3).
    #[test]
    fn the_packed_16_bit_adds_run_with_denormals_flushed_too() {
        let packed: Vec<DsOp> = ds_isa::ds::Generation::ALL
            .into_iter()
            .flat_map(ds_isa::ds::runnable_ops)
            .filter(|o| o.info().elem.is_packed16())
            .collect();
        assert!(packed.len() >= 4, "gfx12's four at least: {packed:?}");
        for op in packed {
            let modes: Vec<FpMode> = variants(op).iter().map(|(v, _)| v.mode).collect();
            assert!(modes.contains(&FpMode::default()), "{op}");
            assert!(
                modes
                    .iter()
                    .any(|m| !m.fp32_denormals && !m.fp16_fp64_denormals),
                "{op}"
            );
        }
    }
}
