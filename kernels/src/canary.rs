//! The canary, host side: the launch of the self-check kernel ([`crate::generator::canary`]) and
//! the check of what it wrote, assumption by assumption ([`check`]). A run launches it on every
//! device other than the in-process emulator before any op: when the state a kernel finds at entry
//! is not what the template relies on ([`crate::entry`]), every op would disagree for one reason;
//! the canary names that reason instead.
//!
//! The assumptions (each [`Assumption`] names one, with what was seen):
//! - **workgroup id**: workgroup `g` of four reads `g` from the entry state's register;
//! - **lane id**: lane `l` reads `l` from work-item id x (`v0 [9:0]`);
//! - **kernarg pointers**: the records arrive through kernarg address 0 and addresses 1..4 lead to
//!   their buffers' magic dwords;
//! - **EXEC at entry**: every lane of the wave size (`exec_lo`, and `exec_hi` in wave64);
//! - **LDS**: a dword one lane stores is the dword its neighbour loads;
//! - **M0**: what the kernel writes to M0 it reads back;
//! - **every lane ran**: each of the wave size's lanes wrote its record.
//!
//! Pure functions: the launch in, the verdicts out. The harness runs it and prints them.

use crate::code_object;
use crate::contract::canary::{
    AT_END, AT_EXEC_HI, AT_EXEC_LO, AT_GROUP, AT_LANE, AT_M0, AT_MAGIC, AT_MARKER, AT_NEIGHBOUR,
    BUFFERS, END, LDS_TAG, M0_VALUE, MAGIC, MARKER, RECORD_BYTES, WORKGROUPS,
};
use crate::contract::POISON;
use crate::entry::{delivery, exec, layout_reason, KernelEntry, Request};
use crate::generator::{canary as kernel, GenError, Kernel};
use crate::launch::{Buffer, Launch};
use ds_isa::target::Target;
use ds_reference::wave::WaveSize;
use std::collections::BTreeSet;
use std::fmt;

pub use kernel::name;

/// The name of each assumption, in the order [`check`] reports them.
pub const WORKGROUP_ID: &str = "workgroup id";
/// See [`WORKGROUP_ID`].
pub const LANE_ID: &str = "lane id";
/// See [`WORKGROUP_ID`].
pub const KERNARG: &str = "kernarg pointers";
/// See [`WORKGROUP_ID`].
pub const EXEC: &str = "EXEC at entry";
/// See [`WORKGROUP_ID`].
pub const LDS: &str = "LDS";
/// See [`WORKGROUP_ID`].
pub const M0: &str = "M0";
/// See [`WORKGROUP_ID`].
pub const LANES: &str = "every lane ran";
/// Every assumption's name, in order.
pub const ALL: [&str; 7] = [WORKGROUP_ID, LANE_ID, KERNARG, EXEC, LDS, M0, LANES];

/// What the canary says of one assumption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It held.
    Held,
    /// It did not: the detail says what was seen.
    Broken,
    /// Nothing it could be judged by was written (another assumption broke first).
    Unknown,
}

/// One assumption of the kernel template, checked.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Assumption {
    /// Which ([`ALL`]), or `"the canary ran"` for a launch that failed.
    pub name: &'static str,
    /// Held, broken or not judged.
    pub verdict: Verdict,
    /// What was checked (held), what was seen (broken), or why it was not judged.
    pub detail: String,
}

impl Assumption {
    /// It held.
    pub fn held(&self) -> bool {
        self.verdict == Verdict::Held
    }

    fn new(name: &'static str, verdict: Verdict, detail: String) -> Assumption {
        Assumption {
            name,
            verdict,
            detail,
        }
    }
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.verdict {
            Verdict::Held => "held",
            Verdict::Broken => "BROKEN",
            Verdict::Unknown => "not judged",
        };
        write!(f, "{}: {verdict}: {}", self.name, self.detail)
    }
}

/// The canary for one target and wave size: its kernel, and the entry state it reads.
#[derive(Clone, Debug)]
pub struct Canary {
    /// The target it is built for.
    pub target: &'static Target,
    /// Its wave size.
    pub wave: WaveSize,
    /// Where it reads the kernarg pointer, the workgroup id and the work-item id.
    pub entry: KernelEntry,
    /// The kernel.
    pub kernel: Kernel,
}

impl Canary {
    /// The canary of `target` in `wave`, reading the entry state where the real kernels do
    /// ([`KernelEntry::of`]).
    pub fn new(target: &'static Target, wave: WaveSize) -> Result<Canary, GenError> {
        Canary::reading(target, wave, KernelEntry::of(target, wave))
    }

    /// A canary that reads its entry state where `entry` says: a planted mistake (tests).
    pub fn reading(
        target: &'static Target,
        wave: WaveSize,
        entry: KernelEntry,
    ) -> Result<Canary, GenError> {
        crate::check_target(target).map_err(GenError::Wave)?;
        Ok(Canary {
            target,
            wave,
            entry,
            kernel: kernel::build(target, wave, &entry)?,
        })
    }

    /// Its code object (the one kernel).
    pub fn code_object(&self) -> Vec<u8> {
        code_object::write(self.target, std::slice::from_ref(&self.kernel))
    }

    /// A fresh launch of it ([`launch`]).
    pub fn launch(&self) -> Launch {
        launch(self.wave)
    }

    /// The verdicts on a launch that ran ([`check_reading`] with this canary's entry state).
    pub fn check(&self, launch: &Launch) -> Vec<Assumption> {
        check_reading(self.target, self.wave, &self.entry, launch)
    }
}

/// The canary's launch in `wave`: [`WORKGROUPS`] workgroups of one wave; kernarg address 0 the
/// records (every lane's, of every workgroup, filled with [`POISON`]), addresses 1..4 one dword
/// each, `MAGIC + i`.
pub fn launch(wave: WaveSize) -> Launch {
    let lanes = wave.lanes() as u32;
    let records = (WORKGROUPS * lanes * RECORD_BYTES / 4) as usize;
    let mut buffers = vec![Buffer {
        name: BUFFERS[0],
        bytes: POISON.to_le_bytes().repeat(records),
        copy_back: true,
    }];
    for (i, name) in BUFFERS.iter().enumerate().skip(1) {
        buffers.push(Buffer {
            name,
            bytes: (MAGIC + i as u32).to_le_bytes().to_vec(),
            copy_back: false,
        });
    }
    Launch {
        kernel: name(wave),
        workgroups: WORKGROUPS,
        workgroup_size: lanes,
        buffers,
    }
}

/// The verdict on each assumption ([`ALL`], in order) of a canary launch that ran on `target` in
/// `wave`, the kernel reading its entry state where the real kernels do.
pub fn check(target: &'static Target, wave: WaveSize, launch: &Launch) -> Vec<Assumption> {
    check_reading(target, wave, &KernelEntry::of(target, wave), launch)
}

/// [`check`] of a canary that read its entry state where `entry` says.
pub fn check_reading(
    target: &'static Target,
    wave: WaveSize,
    entry: &KernelEntry,
    launch: &Launch,
) -> Vec<Assumption> {
    let lanes = wave.lanes();
    let want = WORKGROUPS as usize * lanes * RECORD_BYTES as usize;
    let Some(bytes) = launch
        .buffers
        .first()
        .map(|b| &b.bytes)
        .filter(|b| b.len() == want)
    else {
        let detail = format!(
            "the launch has no {want}-byte `{}` buffer first: it is not the canary's",
            BUFFERS[0]
        );
        return vec![Assumption::new(KERNARG, Verdict::Broken, detail)];
    };
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let per = RECORD_BYTES as usize / 4;
    let seen = Seen {
        target,
        wave,
        entry,
        lanes,
        records: (0..WORKGROUPS as usize * lanes)
            .map(|i| Some(&words[i * per..(i + 1) * per]).filter(|r| r[AT_MARKER] == MARKER))
            .collect(),
    };
    if seen.records.iter().all(Option::is_none) {
        return nothing_written(&seen);
    }
    vec![
        seen.workgroup_id(),
        seen.lane_id(),
        seen.kernarg(),
        seen.exec(),
        seen.lds(),
        seen.m0(),
        seen.every_lane(),
    ]
}

/// What the records say: one per workgroup block and lane slot, `None` where no lane wrote it.
struct Seen<'a> {
    target: &'static Target,
    wave: WaveSize,
    entry: &'a KernelEntry,
    lanes: usize,
    records: Vec<Option<&'a [u32]>>,
}

fn nothing_written(seen: &Seen) -> Vec<Assumption> {
    let k = seen.entry.kernarg;
    ALL.iter()
        .map(|&name| {
            if name == KERNARG {
                Assumption::new(
                    name,
                    Verdict::Broken,
                    format!(
                        "no lane wrote its record through kernarg address 0 (the pointer read \
                         from s[{k}:{}]): the kernarg pointer is not there, or no lane ran",
                        k + 1
                    ),
                )
            } else {
                Assumption::new(name, Verdict::Unknown, "no lane wrote its record".into())
            }
        })
        .collect()
}

impl Seen<'_> {
    fn record(&self, group: usize, slot: usize) -> Option<&[u32]> {
        self.records[group * self.lanes + slot]
    }

    /// Every written record with its block and slot.
    fn written(&self) -> impl Iterator<Item = (usize, usize, &[u32])> + '_ {
        (self.records.iter().enumerate())
            .filter_map(|(i, r)| r.map(|r| (i / self.lanes, i % self.lanes, r)))
    }

    /// The blocks some lane wrote.
    fn blocks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..WORKGROUPS as usize).filter(|&g| (0..self.lanes).any(|l| self.record(g, l).is_some()))
    }

    fn workgroup_id(&self) -> Assumption {
        let reg = self.entry.workgroup_id_x;
        let ids: BTreeSet<u32> = self.written().map(|(_, _, r)| r[AT_GROUP]).collect();
        let missing: Vec<usize> = (0..WORKGROUPS as usize)
            .filter(|g| !self.blocks().any(|b| b == *g))
            .collect();
        let own = self.written().all(|(g, _, r)| r[AT_GROUP] == g as u32);
        if missing.is_empty() && own {
            let detail = format!(
                "workgroups 0..{} each read their id from {reg}",
                WORKGROUPS - 1
            );
            return Assumption::new(WORKGROUP_ID, Verdict::Held, detail);
        }
        let mut what = match ids.iter().collect::<Vec<_>>()[..] {
            [0] => "every workgroup saw 0".to_string(),
            [only] => format!("every workgroup saw {only:#x}"),
            _ => format!(
                "the {WORKGROUPS} workgroups saw {}",
                hexes(ids.iter().copied())
            ),
        };
        if !missing.is_empty() {
            what.push_str(&format!(" (records {} never written)", ranges(&missing)));
        }
        let detail = format!("{what}; {}", self.where_id());
        Assumption::new(WORKGROUP_ID, Verdict::Broken, detail)
    }

    /// Where the kernel reads the workgroup id, and where the target delivers it.
    fn where_id(&self) -> String {
        let (t, w) = (self.target, self.wave);
        let reg = self.entry.workgroup_id_x;
        let req = Request {
            user_sgprs: self.entry.user_sgprs,
            ..KernelEntry::request(t, w)
        };
        let d = delivery(t, w, &req);
        let why = layout_reason(t, w);
        match (d.workgroup_ids[0], d.lost_ids) {
            (Some(at), _) if at == reg => {
                format!("the kernel reads it from {reg}, where {t} in {w} delivers it ({why})")
            }
            (Some(at), _) => format!(
                "the kernel reads it from {reg}, but {t} in {w} delivers it in {at} ({why})"
            ),
            (None, lost) => format!(
                "the kernel reads it from {reg}, and {t} in {w} delivers none to its descriptor: {}",
                lost.unwrap_or_default()
            ),
        }
    }

    /// The EXEC at entry the records of block `g` report, if any lane wrote one.
    fn block_exec(&self, g: usize) -> Option<u64> {
        (0..self.lanes)
            .find_map(|l| self.record(g, l))
            .map(|r| u64::from(r[AT_EXEC_LO]) | u64::from(r[AT_EXEC_HI]) << 32)
    }

    fn lane_id(&self) -> Assumption {
        let field = self.entry.workitem_id_x;
        let wrong: Vec<String> = self
            .written()
            .filter(|&(_, l, r)| r[AT_LANE] != l as u32)
            .map(|(_, l, r)| format!("record {l} holds lane id {:#x}", r[AT_LANE]))
            .collect();
        let mut silent = BTreeSet::new();
        for g in self.blocks() {
            let on = self.block_exec(g).unwrap_or(0);
            for l in (0..self.lanes).filter(|&l| self.record(g, l).is_none()) {
                if on >> l & 1 == 1 {
                    silent.insert(l);
                }
            }
        }
        if wrong.is_empty() && silent.is_empty() {
            let detail = format!("every lane read its own id from {field}");
            return Assumption::new(LANE_ID, Verdict::Held, detail);
        }
        let mut parts = Vec::new();
        if !wrong.is_empty() {
            parts.push(examples(&wrong));
        }
        if !silent.is_empty() {
            parts.push(format!(
                "lanes {} were in EXEC at entry but no record is theirs: their work-item id was \
                 another lane's",
                ranges(&silent.into_iter().collect::<Vec<_>>())
            ));
        }
        let detail = format!("{} (the kernel reads it from {field})", parts.join("; "));
        Assumption::new(LANE_ID, Verdict::Broken, detail)
    }

    fn kernarg(&self) -> Assumption {
        let k = self.entry.kernarg;
        let mut wrong = BTreeSet::new();
        for (_, _, r) in self.written() {
            for i in 0..4 {
                let want = MAGIC + i as u32 + 1;
                if r[AT_MAGIC + i] != want {
                    wrong.insert((i + 1, r[AT_MAGIC + i], want));
                }
            }
        }
        if wrong.is_empty() {
            let detail = format!(
                "the pointer read from s[{k}:{}]: records arrived through address 0, and \
                 addresses 1..4 led to their buffers' dwords",
                k + 1
            );
            return Assumption::new(KERNARG, Verdict::Held, detail);
        }
        let seen: Vec<String> = wrong
            .iter()
            .map(|(i, got, want)| {
                format!(
                    "the dword behind kernarg address {i} (at {:#x} in the segment) read {got:#x}, \
                     not {want:#x}",
                    8 * i
                )
            })
            .collect();
        let detail = format!(
            "{} (the pointer read from s[{k}:{}])",
            examples(&seen),
            k + 1
        );
        Assumption::new(KERNARG, Verdict::Broken, detail)
    }

    fn exec(&self) -> Assumption {
        let full = exec(self.wave, self.lanes);
        let width = self.lanes / 4;
        let show = |x: u64| format!("{x:#0w$x}", w = width + 2);
        let seen: BTreeSet<u64> = self
            .written()
            .map(|(_, _, r)| {
                let hi = if self.wave.is_wave32() {
                    0
                } else {
                    u64::from(r[AT_EXEC_HI]) << 32
                };
                u64::from(r[AT_EXEC_LO]) | hi
            })
            .collect();
        if seen.iter().all(|&e| e == full) {
            let regs = if self.wave.is_wave32() {
                "exec_lo"
            } else {
                "exec_lo and exec_hi"
            };
            let detail = format!("{regs} held every lane of the wave: {}", show(full));
            return Assumption::new(EXEC, Verdict::Held, detail);
        }
        let detail = format!(
            "EXEC at entry was {}; a workgroup of {} work-items ({}) needs {}",
            seen.iter().map(|&e| show(e)).collect::<Vec<_>>().join(", "),
            self.lanes,
            self.wave,
            show(full)
        );
        Assumption::new(EXEC, Verdict::Broken, detail)
    }

    fn lds(&self) -> Assumption {
        let mut judged = 0;
        let mut wrong = Vec::new();
        for (g, l, r) in self.written().filter(|(_, l, r)| r[AT_LANE] == *l as u32) {
            let n = (l + 1) % self.lanes;
            let Some(next) = self.record(g, n).filter(|x| x[AT_LANE] == n as u32) else {
                continue;
            };
            judged += 1;
            let want = LDS_TAG.wrapping_add(next[AT_LANE]);
            if r[AT_NEIGHBOUR] != want {
                wrong.push(format!(
                    "lane {l} read {:#x} where lane {n} stored {want:#x}",
                    r[AT_NEIGHBOUR]
                ));
            }
        }
        match (judged, wrong.is_empty()) {
            (0, _) => Assumption::new(
                LDS,
                Verdict::Unknown,
                "no two neighbouring lanes wrote their records with their own ids".into(),
            ),
            (_, true) => Assumption::new(
                LDS,
                Verdict::Held,
                "each lane read the dword its neighbour stored".into(),
            ),
            (_, false) => Assumption::new(LDS, Verdict::Broken, examples(&wrong)),
        }
    }

    fn m0(&self) -> Assumption {
        let seen: BTreeSet<u32> = self.written().map(|(_, _, r)| r[AT_M0]).collect();
        if seen.iter().all(|&m| m == M0_VALUE) {
            let detail = format!("M0 read back {M0_VALUE:#x}, as written");
            return Assumption::new(M0, Verdict::Held, detail);
        }
        let detail = format!(
            "M0 read back {} after the kernel wrote {M0_VALUE:#x}",
            hexes(seen.into_iter())
        );
        Assumption::new(M0, Verdict::Broken, detail)
    }

    fn every_lane(&self) -> Assumption {
        let mut missing = BTreeSet::new();
        let mut cut = BTreeSet::new();
        for g in self.blocks() {
            for l in 0..self.lanes {
                match self.record(g, l) {
                    None => {
                        missing.insert(l);
                    }
                    Some(r) if r[AT_END] != END => {
                        cut.insert(l);
                    }
                    Some(_) => {}
                }
            }
        }
        let wave = self.wave;
        if missing.is_empty() && cut.is_empty() {
            let detail = format!(
                "{wave}: all {} lanes of every workgroup wrote their record",
                self.lanes
            );
            return Assumption::new(LANES, Verdict::Held, detail);
        }
        let mut parts = Vec::new();
        if !missing.is_empty() {
            let lanes = missing.into_iter().collect::<Vec<_>>();
            parts.push(format!("{wave}: lanes {} never ran", ranges(&lanes)));
        }
        if !cut.is_empty() {
            let lanes = cut.into_iter().collect::<Vec<_>>();
            parts.push(format!(
                "lanes {} stopped before their record's last store",
                ranges(&lanes)
            ));
        }
        Assumption::new(LANES, Verdict::Broken, parts.join("; "))
    }
}

/// `1..3, 5, 7..9` for `[1, 2, 3, 5, 7, 8, 9]` (sorted input).
pub fn ranges(v: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            v[i].to_string()
        } else {
            format!("{}..{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

/// The first few values in hex, and how many more.
fn hexes(v: impl Iterator<Item = u32>) -> String {
    let all: Vec<String> = v.map(|x| format!("{x:#x}")).collect();
    examples(&all)
}

/// The first three items, and how many more.
fn examples(items: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s = items[..items.len().min(SHOWN)].join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests;
