//! The snapshot text format: one readable file per op listing each case's inputs beside what the
//! instruction left, used for the model's insta snapshots and for recorded device runs alike, and
//! parsed back losslessly ([`parse`] inverts [`render`]).
//!
//! Format (line based; `#` starts a comment line, blank lines are ignored):
//! ```text
//! case <name>
//! variant <op> offset0=0x00 offset1=0x00 lds_size=256 fp32_denormals=true fp16_fp64_denormals=true ieee=true
//!   (then, for a wave64 variant: wave=64; for data and vdst in AccVGPRs: acc=true; for a variant
//!   that names its registers: reg.addr=v4 ..., an acc variant's data and vdst as aN)
//! exec 0x000000ff m0 0x00000000                    (a wave64's EXEC has 16 hex digits)
//! default addr=00000000 d0=00000000 d1=00000000 vd=deadbeef
//! lds.in 0x0000=03020100 0x0004=07060504 ...      (every non-zero dword of the initial image)
//! lane 3 addr=0000000c d0=00000001 => vd=00000005  (inputs => outputs; addr, d0 and d1 after
//!                                                   `=>` only where a register changed)
//! lds.out 0x000c=00000005>00000006                 (every dword that changed, before>after)
//! ```
//! Register tuples are hex dwords joined by `:`, low dword first; words not written are the
//! default's (inputs) or unchanged (outputs). A `default` tuple is one value for all four words,
//! or four words when most lanes hold a tuple whose words differ (operands sharing registers). A lane that is not listed has the default inputs and
//! unchanged outputs, so a file lists only the active lanes and the lanes that differ, yet every
//! input and output is recoverable: the full LDS size, every lane of the wave, the inactive lanes'
//! vdst.

use super::Unmodelled;
use crate::wave::{Case, FpMode, Lane, Lds, Outcome, Variant, Wave, WaveSize, DATA1_DWORDS};
use ds_isa::ds::DsOp;
use ds_isa::target::Target;
use std::fmt::{self, Write};

mod bvh;
mod corpus;
mod nan_pair;
mod on_target;
mod src2;
mod values;
mod wave64;
pub use corpus::{snapshot_corpus, SENTINEL};
pub use on_target::{model_entries_on, snapshot_corpus_on};
pub use wave64::snapshot_corpus_wave64;

/// The snapshot corpus of `op` in waves of `wave` ([`snapshot_corpus`] or
/// [`snapshot_corpus_wave64`]).
pub fn snapshot_corpus_in(op: DsOp, wave: WaveSize) -> Vec<(String, Variant, Case)> {
    match wave {
        WaveSize::Wave32 => snapshot_corpus(op),
        WaveSize::Wave64 => snapshot_corpus_wave64(op),
    }
}

/// The register file an operand of a variant names in a snapshot's `reg.` fields: `a` for
/// DATA0, DATA1 and VDST of an `acc` variant (AccVGPRs), else `v`.
fn reg_file(acc: bool, field: ds_isa::ds::Field) -> char {
    if acc && field != ds_isa::ds::Field::Addr {
        'a'
    } else {
        'v'
    }
}

/// The model's outcome on each case of `corpus` (cases of `op`), by `target`'s rules. An op the
/// model does not hold is an error; a case it does not judge (a transpose load with a lane off:
/// ASSUMPTIONS.md V9) has no entry: its answer is the device's to record.
fn entries_of(
    target: &Target,
    op: DsOp,
    corpus: Vec<(String, Variant, Case)>,
) -> Result<Vec<Entry>, Unmodelled> {
    super::Plan::new(target, &ds_isa::ds::DsInst::new(op), FpMode::default())?;
    Ok(corpus
        .into_iter()
        .filter_map(|(name, variant, case)| {
            let outcome = super::execute_variant(target, &variant, &case).ok()?;
            Some(Entry {
                name,
                variant,
                case,
                outcome,
            })
        })
        .collect())
}

/// One case of a snapshot file: its name, the variant it runs, its inputs and its outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The case's name, unique in its file.
    pub name: String,
    /// Op, offsets, LDS size and FP mode.
    pub variant: Variant,
    /// Inputs.
    pub case: Case,
    /// What the instruction left (the model's or a device's).
    pub outcome: Outcome,
}

/// The model's outcome on every case of `op`'s wave32 snapshot corpus, by `target`'s rules.
pub fn model_entries(target: &Target, op: DsOp) -> Result<Vec<Entry>, Unmodelled> {
    model_entries_in(target, op, WaveSize::Wave32)
}

/// The model's outcome on every case of `op`'s snapshot corpus in waves of `wave`, by `target`'s
/// rules (the cases are the same for every target; the outcomes follow its generation).
pub fn model_entries_in(
    target: &Target,
    op: DsOp,
    wave: WaveSize,
) -> Result<Vec<Entry>, Unmodelled> {
    entries_of(target, op, snapshot_corpus_in(op, wave))
}

/// A line of a snapshot file that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong there.
    pub what: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "snapshot line {}: {} (see the format in ds_reference::model::snapshot)",
            self.line, self.what
        )
    }
}

impl std::error::Error for ParseError {}

/// Default lane inputs of an entry: the most common value of each field over the wave's lanes
/// (per word of a tuple, when its words differ: lanes whose operands share registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Defaults {
    addr: u32,
    d0: [u32; 4],
    d1: [u32; DATA1_DWORDS],
    vd: [u32; 4],
}

impl Defaults {
    fn of(wave: &Wave) -> Defaults {
        // The most frequent value, the smallest of those tied; sorted runs, not a count per
        // value (a wave64 DATA1 is 512 words: counting each was 262k comparisons per field).
        fn common(it: impl Iterator<Item = u32>) -> u32 {
            let mut v: Vec<u32> = it.collect();
            v.sort_unstable();
            let mut best = (0usize, 0u32);
            for run in v.chunk_by(|a, b| a == b) {
                // Ascending runs: a tie keeps the smaller value found first.
                if run.len() > best.0 {
                    best = (run.len(), run[0]);
                }
            }
            best.1
        }
        let l = &wave.lanes;
        // One value for all words, unless most lanes hold a tuple whose words differ.
        fn words<const N: usize>(l: &[Lane], get: impl Fn(&Lane) -> [u32; N]) -> [u32; N] {
            let flat = common(l.iter().flat_map(&get));
            let per: [u32; N] = std::array::from_fn(|k| common(l.iter().map(|x| get(x)[k])));
            let fits = |d: [u32; N]| l.iter().filter(|x| get(x) == d).count();
            if fits(per) > fits([flat; N]) && fits(per) >= l.len() / 2 {
                per
            } else {
                [flat; N]
            }
        }
        // DATA1's upper four dwords are zero but for the 8-dword ops: its default is four words
        // then (as before DATA1 had eight), else eight.
        let d1 = if l.iter().all(|x| x.data1[4..] == [0; 4]) {
            let low: [u32; 4] = words(l, |x| x.data1[..4].try_into().expect("4 words"));
            std::array::from_fn(|k| if k < 4 { low[k] } else { 0 })
        } else {
            words(l, |x| x.data1)
        };
        Defaults {
            addr: common(l.iter().map(|l| l.addr)),
            d0: words(l, |l| l.data0),
            d1,
            vd: words(l, |l| l.vdst),
        }
    }

    fn lane(&self) -> Lane {
        Lane {
            addr: self.addr,
            data0: self.d0,
            data1: self.d1,
            vdst: self.vd,
        }
    }
}

/// A default tuple: one value when its words agree, else the words joined by `:` (DATA1's
/// upper four left out when they are zero).
fn default_words(w: &[u32]) -> String {
    let w = if w.len() > 4 && w[4..].iter().all(|&x| x == 0) {
        &w[..4]
    } else {
        w
    };
    if w.len() <= 4 && w.iter().all(|&x| x == w[0]) {
        format!("{:08x}", w[0])
    } else {
        w.iter()
            .map(|x| format!("{x:08x}"))
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// `words` joined by `:`: at least `width` of them, more while a later word differs from `base`.
fn tuple(words: &[u32], base: &[u32], width: u8) -> String {
    let last_diff = (0..words.len())
        .rev()
        .find(|&k| words[k] != base[k])
        .map_or(0, |k| k + 1);
    let n = last_diff.max(usize::from(width)).max(1);
    words[..n]
        .iter()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Renders `entries` (all of `op`) as one snapshot text.
pub fn render(op: DsOp, entries: &[Entry]) -> String {
    let info = op.info();
    let ops = info.operands;
    let mut s = String::new();
    let _ = writeln!(s, "# {op}: inputs => outputs on the snapshot corpus");
    let _ = writeln!(
        s,
        "# addr, d0 = data0, d1 = data1, vd = vdst; hex dwords, tuples low dword first joined by ':'"
    );
    let _ = writeln!(
        s,
        "# unlisted lanes: default inputs, outputs unchanged; lds.out: changed dwords before>after"
    );
    for e in entries {
        let v = &e.variant;
        let w = &e.case.wave;
        let d = Defaults::of(w);
        let _ = writeln!(s, "\ncase {}", e.name);
        let _ = write!(
            s,
            "variant {} offset0=0x{:02x} offset1=0x{:02x} lds_size={} fp32_denormals={} fp16_fp64_denormals={} ieee={}",
            v.op, v.offset0, v.offset1, v.lds_size, v.mode.fp32_denormals, v.mode.fp16_fp64_denormals, v.mode.ieee
        );
        if !v.wave.is_wave32() {
            let _ = write!(s, " wave={}", v.wave.lanes());
        }
        if v.acc {
            s.push_str(" acc=true");
        }
        if let Some(regs) = v.regs {
            for field in crate::regs::ORDER {
                if let Some(r) = regs.get(field) {
                    let _ = write!(s, " reg.{}={}{r}", field.name(), reg_file(v.acc, field));
                }
            }
        }
        s.push('\n');
        let _ = writeln!(
            s,
            "exec 0x{:0digits$x} m0 0x{:08x}",
            w.exec,
            w.m0,
            digits = v.lanes() / 4
        );
        let _ = writeln!(
            s,
            "default addr={:08x} d0={} d1={} vd={}",
            d.addr,
            default_words(&d.d0),
            default_words(&d.d1),
            default_words(&d.vd)
        );
        let words: Vec<(u32, u32)> = e.case.lds.nonzero_words().collect();
        let _ = writeln!(s, "lds.size {}", e.case.lds.size());
        for chunk in words.chunks(4) {
            let items: Vec<String> = chunk
                .iter()
                .map(|(a, x)| format!("0x{a:04x}={x:08x}"))
                .collect();
            let _ = writeln!(s, "lds.in {}", items.join(" "));
        }
        let dl = d.lane();
        for (i, lane) in w.lanes.iter().enumerate() {
            let active = w.active(i);
            let out_vd = e.outcome.vdst[i];
            let out_addr = e.outcome.addr[i];
            let out_d0 = e.outcome.data0.as_ref().map_or(lane.data0, |d| d[i]);
            // The dump of DATA1's registers (with `regs`, 4 dwords at most) over its inputs.
            let out_d1 = e.outcome.data1.as_ref().map_or(lane.data1, |d| {
                let mut w = lane.data1;
                w[..4].copy_from_slice(&d[i]);
                w
            });
            let data_changed = out_d0 != lane.data0 || out_d1 != lane.data1;
            if !active
                && *lane == dl
                && out_vd == lane.vdst
                && out_addr == lane.addr
                && !data_changed
            {
                continue;
            }
            let mut line = format!("lane {i:2}");
            if !active {
                line.push_str(" inactive");
            }
            if ops.addr > 0 || lane.addr != dl.addr {
                let _ = write!(line, " addr={:08x}", lane.addr);
            }
            if ops.data0 > 0 || lane.data0 != dl.data0 {
                let _ = write!(line, " d0={}", tuple(&lane.data0, &dl.data0, ops.data0));
            }
            if ops.data1 > 0 || lane.data1 != dl.data1 {
                let _ = write!(line, " d1={}", tuple(&lane.data1, &dl.data1, ops.data1));
            }
            if lane.vdst != dl.vdst {
                let _ = write!(line, " vd={}", tuple(&lane.vdst, &dl.vdst, ops.vdst));
            }
            let show_vd = (ops.vdst > 0 && active) || out_vd != lane.vdst;
            if show_vd || out_addr != lane.addr || data_changed {
                line.push_str(" =>");
                if show_vd {
                    let _ = write!(line, " vd={}", tuple(&out_vd, &lane.vdst, ops.vdst));
                }
                if out_addr != lane.addr {
                    let _ = write!(line, " addr={out_addr:08x}");
                }
                if out_d0 != lane.data0 {
                    let _ = write!(line, " d0={}", tuple(&out_d0, &lane.data0, ops.data0));
                }
                if out_d1 != lane.data1 {
                    let _ = write!(line, " d1={}", tuple(&out_d1, &lane.data1, ops.data1));
                }
            }
            let _ = writeln!(s, "{line}");
        }
        let (before, after) = (e.case.lds.bytes(), e.outcome.lds.bytes());
        if before.len() != after.len() {
            let _ = writeln!(s, "lds.out.size {}", after.len());
        }
        let changed: Vec<String> = (0..before.len().max(after.len()) / 4)
            .map(|k| 4 * k as u32)
            .filter_map(|at| {
                let b = word_or_zero(&e.case.lds, at);
                let a = word_or_zero(&e.outcome.lds, at);
                (a != b).then(|| format!("0x{at:04x}={b:08x}>{a:08x}"))
            })
            .collect();
        for chunk in changed.chunks(4) {
            let _ = writeln!(s, "lds.out {}", chunk.join(" "));
        }
    }
    s
}

fn word_or_zero(lds: &Lds, at: u32) -> u32 {
    if at + 4 <= lds.size() {
        lds.word(at)
    } else {
        0
    }
}

/// Parses a snapshot text back into its entries.
pub fn parse(text: &str) -> Result<Vec<Entry>, ParseError> {
    let mut p = Parser::default();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        p.line(line)
            .map_err(|what| ParseError { line: n + 1, what })?;
    }
    p.finish().map_err(|what| ParseError {
        line: text.lines().count(),
        what,
    })?;
    Ok(p.done)
}

/// A parsed `lane` line: lane number, marked inactive, inputs, then vdst, addr, data0 and data1
/// after.
type LaneLine = (
    usize,
    bool,
    Lane,
    Option<[u32; 4]>,
    Option<u32>,
    Option<[u32; 4]>,
    Option<[u32; DATA1_DWORDS]>,
);

/// An entry being read.
#[derive(Debug)]
struct Partial {
    name: String,
    variant: Option<Variant>,
    exec: Option<(u64, u32)>,
    defaults: Option<Defaults>,
    lds_size: Option<u32>,
    lds_in: Vec<(u32, u32)>,
    out_size: Option<u32>,
    lds_out: Vec<(u32, u32, u32)>,
    lanes: Vec<LaneLine>,
}

#[derive(Debug, Default)]
struct Parser {
    cur: Option<Partial>,
    done: Vec<Entry>,
}

fn hex(s: &str) -> Result<u32, String> {
    let t = s.strip_prefix("0x").unwrap_or(s);
    u32::from_str_radix(t, 16).map_err(|_| format!("`{s}` is not a hex dword"))
}

fn dec(s: &str) -> Result<u32, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not a decimal number"))
}

fn boolean(s: &str) -> Result<bool, String> {
    s.parse().map_err(|_| format!("`{s}` is not true or false"))
}

/// A `:`-joined tuple over `base` (words not given keep the base's value).
fn parse_tuple<const N: usize>(s: &str, base: [u32; N]) -> Result<[u32; N], String> {
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() > N {
        return Err(format!("`{s}` has more than {N} dwords"));
    }
    let mut out = base;
    for (k, p) in parts.iter().enumerate() {
        out[k] = hex(p)?;
    }
    Ok(out)
}

fn key_values(tokens: &[&str]) -> Result<Vec<(String, String)>, String> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| format!("`{t}` is not key=value"))
        })
        .collect()
}

impl Parser {
    fn cur(&mut self) -> Result<&mut Partial, String> {
        self.cur
            .as_mut()
            .ok_or_else(|| "expected `case <name>` first".to_string())
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens[0] {
            "case" => {
                self.finish()?;
                let name = tokens.get(1).ok_or("`case` needs a name")?;
                self.cur = Some(Partial {
                    name: name.to_string(),
                    variant: None,
                    exec: None,
                    defaults: None,
                    lds_size: None,
                    lds_in: vec![],
                    out_size: None,
                    lds_out: vec![],
                    lanes: vec![],
                });
            }
            "variant" => {
                let op_name = tokens.get(1).ok_or("`variant` needs an op")?;
                let op =
                    DsOp::from_name(op_name).ok_or_else(|| format!("unknown DS op `{op_name}`"))?;
                let mut v = Variant {
                    op,
                    offset0: 0,
                    offset1: 0,
                    lds_size: 0,
                    mode: FpMode::default(),
                    wave: WaveSize::default(),
                    regs: None,
                    acc: false,
                };
                for (k, val) in key_values(&tokens[2..])? {
                    match k.as_str() {
                        "offset0" => {
                            v.offset0 = u8::try_from(hex(&val)?).map_err(|_| "offset0 > 0xff")?
                        }
                        "offset1" => {
                            v.offset1 = u8::try_from(hex(&val)?).map_err(|_| "offset1 > 0xff")?
                        }
                        "lds_size" => v.lds_size = dec(&val)?,
                        "fp32_denormals" => v.mode.fp32_denormals = boolean(&val)?,
                        "fp16_fp64_denormals" => v.mode.fp16_fp64_denormals = boolean(&val)?,
                        "ieee" => v.mode.ieee = boolean(&val)?,
                        "wave" => v.wave = val.parse()?,
                        "acc" => v.acc = boolean(&val)?,
                        _ if k.starts_with("reg.") => {
                            let field = crate::regs::ORDER
                                .into_iter()
                                .find(|f| k[4..] == *f.name())
                                .ok_or_else(|| format!("unknown register operand `{k}`"))?;
                            // `acc=true` comes before the registers: its operands are `aN`.
                            let file = reg_file(v.acc, field);
                            let r = val
                                .strip_prefix(file)
                                .and_then(|n| n.parse::<u8>().ok())
                                .ok_or_else(|| {
                                    format!(
                                        "`{k}={val}` is not {file}0..{file}255 (the {} of a \
                                         variant {} acc=true is {})",
                                        field.name(),
                                        if v.acc { "with" } else { "without" },
                                        if file == 'a' { "an AccVGPR" } else { "a VGPR" }
                                    )
                                })?;
                            v.regs
                                .get_or_insert_with(Default::default)
                                .set(field, Some(r));
                        }
                        _ => return Err(format!("unknown variant field `{k}`")),
                    }
                }
                if let Some(regs) = v.regs {
                    regs.check(v.op).map_err(|e| e.to_string())?;
                }
                self.cur()?.variant = Some(v);
            }
            "exec" => {
                if tokens.len() != 4 || tokens[2] != "m0" {
                    return Err("expected `exec 0x........ m0 0x........`".into());
                }
                let exec = tokens[1]
                    .strip_prefix("0x")
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("`{}` is not a 0x hex EXEC", tokens[1]))?;
                self.cur()?.exec = Some((exec, hex(tokens[3])?));
            }
            "default" => {
                let mut d = Defaults {
                    addr: 0,
                    d0: [0; 4],
                    d1: [0; DATA1_DWORDS],
                    vd: [0; 4],
                };
                // A tuple default is four words; a single value stands for all four.
                let words = |val: &str| -> Result<[u32; 4], String> {
                    if val.contains(':') {
                        parse_tuple(val, [0; 4])
                    } else {
                        Ok([hex(val)?; 4])
                    }
                };
                for (k, val) in key_values(&tokens[1..])? {
                    match k.as_str() {
                        "addr" => d.addr = hex(&val)?,
                        "d0" => d.d0 = words(&val)?,
                        // DATA1: four words (one value for all four) or eight; the upper four
                        // zero when not given.
                        "d1" if val.contains(':') => d.d1 = parse_tuple(&val, [0; DATA1_DWORDS])?,
                        "d1" => d.d1[..4].fill(hex(&val)?),
                        "vd" => d.vd = words(&val)?,
                        _ => return Err(format!("unknown default field `{k}`")),
                    }
                }
                self.cur()?.defaults = Some(d);
            }
            "lds.size" => {
                let n = dec(tokens.get(1).ok_or("`lds.size` needs a byte count")?)?;
                if n % 4 != 0 {
                    return Err(format!("lds.size {n} is not a multiple of 4"));
                }
                self.cur()?.lds_size = Some(n);
            }
            "lds.out.size" => {
                let n = dec(tokens.get(1).ok_or("`lds.out.size` needs a byte count")?)?;
                self.cur()?.out_size = Some(n);
            }
            "lds.in" | "lds.out" => {
                let out = tokens[0] == "lds.out";
                for (k, val) in key_values(&tokens[1..])? {
                    let at = hex(&k)?;
                    if out {
                        let (b, a) = val
                            .split_once('>')
                            .ok_or_else(|| format!("`{val}` is not before>after"))?;
                        self.cur()?.lds_out.push((at, hex(b)?, hex(a)?));
                    } else {
                        self.cur()?.lds_in.push((at, hex(&val)?));
                    }
                }
            }
            "lane" => self.lane(&tokens[1..])?,
            other => return Err(format!("unknown line kind `{other}`")),
        }
        Ok(())
    }

    fn lane(&mut self, tokens: &[&str]) -> Result<(), String> {
        let cur = self.cur()?;
        let d = cur.defaults.ok_or("`default` must come before the lanes")?;
        let lanes = cur
            .variant
            .map_or(WaveSize::default().lanes(), |v| v.lanes());
        let i: usize = tokens
            .first()
            .and_then(|t| t.parse().ok())
            .filter(|&i| i < lanes)
            .ok_or_else(|| format!("`lane` needs a lane number 0..{}", lanes - 1))?;
        let mut lane = d.lane();
        let (mut out_vd, mut out_addr, mut out_d0, mut out_d1) = (None, None, None, None);
        let mut inactive = false;
        let mut after = false;
        for t in &tokens[1..] {
            match *t {
                "inactive" => inactive = true,
                "=>" => after = true,
                _ => {
                    let (k, v) = t
                        .split_once('=')
                        .ok_or_else(|| format!("`{t}` is not key=value"))?;
                    match (after, k) {
                        (false, "addr") => lane.addr = hex(v)?,
                        (false, "d0") => lane.data0 = parse_tuple(v, d.d0)?,
                        (false, "d1") => lane.data1 = parse_tuple(v, d.d1)?,
                        (false, "vd") => lane.vdst = parse_tuple(v, d.vd)?,
                        (true, "vd") => out_vd = Some(parse_tuple(v, lane.vdst)?),
                        (true, "addr") => out_addr = Some(hex(v)?),
                        (true, "d0") => out_d0 = Some(parse_tuple(v, lane.data0)?),
                        (true, "d1") => out_d1 = Some(parse_tuple(v, lane.data1)?),
                        _ => return Err(format!("unknown lane field `{k}`")),
                    }
                }
            }
        }
        cur.lanes
            .push((i, inactive, lane, out_vd, out_addr, out_d0, out_d1));
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        let Some(p) = self.cur.take() else {
            return Ok(());
        };
        let name = &p.name;
        let variant = p
            .variant
            .ok_or_else(|| format!("case {name}: no `variant` line"))?;
        let (exec, m0) = p
            .exec
            .ok_or_else(|| format!("case {name}: no `exec` line"))?;
        let d = p
            .defaults
            .ok_or_else(|| format!("case {name}: no `default` line"))?;
        let size = p
            .lds_size
            .ok_or_else(|| format!("case {name}: no `lds.size` line"))?;
        let n = variant.lanes();
        let mut wave = Wave {
            exec,
            m0,
            lanes: vec![d.lane(); n],
        };
        variant
            .check_wave(&wave)
            .map_err(|e| format!("case {name}: {e}"))?;
        let mut vdst: Vec<[u32; 4]> = vec![d.vd; n];
        let mut addr = vec![d.addr; n];
        let mut data0 = vec![d.d0; n];
        let low = |w: [u32; DATA1_DWORDS]| -> [u32; 4] { w[..4].try_into().expect("4 words") };
        let mut data1 = vec![low(d.d1); n];
        for &(i, inactive, lane, out_vd, out_addr, out_d0, out_d1) in &p.lanes {
            if inactive == wave.active(i) {
                return Err(format!(
                    "case {name}: lane {i} is marked {} but EXEC says otherwise",
                    if inactive { "inactive" } else { "active" }
                ));
            }
            wave.lanes[i] = lane;
            vdst[i] = out_vd.unwrap_or(lane.vdst);
            addr[i] = out_addr.unwrap_or(lane.addr);
            data0[i] = out_d0.unwrap_or(lane.data0);
            data1[i] = low(out_d1.unwrap_or(lane.data1));
        }
        for (i, l) in wave.lanes.iter().enumerate() {
            if !p.lanes.iter().any(|x| x.0 == i) {
                vdst[i] = l.vdst;
                addr[i] = l.addr;
                data0[i] = l.data0;
                data1[i] = low(l.data1);
            }
        }
        let regs = variant.regs.unwrap_or_default();
        let mut lds = Lds::zeroed(size);
        for &(at, v) in &p.lds_in {
            if at % 4 != 0 || at + 4 > size {
                return Err(format!(
                    "case {name}: lds.in offset {at:#x} is not a dword inside {size} bytes"
                ));
            }
            lds.set_word(at, v);
        }
        let out_size = p.out_size.unwrap_or(size);
        let mut out = Lds::zeroed(out_size);
        let n = out_size.min(size) as usize;
        out.bytes_mut()[..n].copy_from_slice(&lds.bytes()[..n]);
        for &(at, before, after) in &p.lds_out {
            if word_or_zero(&lds, at) != before {
                return Err(format!(
                    "case {name}: lds.out {at:#x} says before={before:08x}, lds.in has {:08x}",
                    word_or_zero(&lds, at)
                ));
            }
            if at % 4 != 0 || at + 4 > out_size {
                return Err(format!(
                    "case {name}: lds.out offset {at:#x} is outside {out_size} bytes"
                ));
            }
            out.set_word(at, after);
        }
        self.done.push(Entry {
            name: p.name,
            variant,
            case: Case { lds, wave },
            outcome: Outcome {
                lds: out,
                vdst,
                addr,
                data0: regs.data0.map(|_| data0),
                data1: regs.data1.map(|_| data1),
            },
        });
        Ok(())
    }
}
