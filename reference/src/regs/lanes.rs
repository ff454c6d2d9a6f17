//! Register aliasing applied to a wave's lanes: finding a register a case gives two values
//! ([`Regs::conflict`]), making a lane consistent ([`Regs::harmonise`]), and landing results in
//! the named registers ([`Regs::settle`], [`Regs::unsettle`]). The assignment itself ([`Regs`])
//! sits below the wave's types, which carry it; this module sits above them.

use super::Regs;
use crate::wave::{Case, Lane, Outcome};
use ds_isa::ds::{DsOp, Field};
use std::fmt;

/// A register given two different values through two operands that name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The lane.
    pub lane: usize,
    /// The register's number.
    pub reg: u8,
    /// The register is an AccVGPR (an acc variant's DATA0/DATA1/VDST), else a VGPR.
    pub agpr: bool,
    /// The first operand word naming it, and its value there.
    pub first: (Field, usize, u32),
    /// A later operand word naming it with another value.
    pub second: (Field, usize, u32),
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |(field, k, _): (Field, usize, u32)| {
            if field == Field::Addr {
                "addr".to_string()
            } else {
                format!("{}[{k}]", field.name())
            }
        };
        write!(
            f,
            "lane {}: register {}{} is {:#010x} as {} but {:#010x} as {}; a register holds one \
             value per lane: give it the same value through every operand that names it",
            self.lane,
            if self.agpr { 'a' } else { 'v' },
            self.reg,
            self.first.2,
            name(self.first),
            self.second.2,
            name(self.second)
        )
    }
}

impl std::error::Error for Conflict {}

/// Word `k` of operand `field` of a lane's inputs.
pub fn word(lane: &Lane, field: Field, k: usize) -> u32 {
    match field {
        Field::Addr => lane.addr,
        Field::Data0 => lane.data0[k],
        Field::Data1 => lane.data1[k],
        Field::Vdst => lane.vdst[k],
    }
}

fn word_mut(lane: &mut Lane, field: Field, k: usize) -> &mut u32 {
    match field {
        Field::Addr => &mut lane.addr,
        Field::Data0 => &mut lane.data0[k],
        Field::Data1 => &mut lane.data1[k],
        Field::Vdst => &mut lane.vdst[k],
    }
}

/// The register file operand `field` lives in: AccVGPRs for DATA0, DATA1 and VDST of an `acc`
/// variant, VGPRs otherwise (ADDR always). Two operand words alias only when file and number
/// match.
pub fn in_agprs(field: Field, acc: bool) -> bool {
    acc && field != Field::Addr
}

impl Regs {
    /// Every register an operand of `op` names, as a key unique across the two files (AccVGPR
    /// numbers + 256 when `acc`), with the operand word it is.
    fn keyed(&self, op: DsOp, acc: bool) -> Vec<(u16, Field, usize)> {
        self.words(op.info())
            .into_iter()
            .map(|(r, f, k)| (u16::from(r) + 256 * u16::from(in_agprs(f, acc)), f, k))
            .collect()
    }

    /// The first register of `case` given two values by two operands that name it (in lane order,
    /// then [`ORDER`](super::ORDER)), if any. Inactive lanes count too: their registers are loaded
    /// and dumped. With `acc`, ADDR's VGPR and an AccVGPR of the same number are two registers.
    pub fn conflict(&self, op: DsOp, acc: bool, lanes: &[Lane]) -> Option<Conflict> {
        let words = self.keyed(op, acc);
        for (i, lane) in lanes.iter().enumerate() {
            for (a, &(ra, fa, ka)) in words.iter().enumerate() {
                for &(rb, fb, kb) in &words[a + 1..] {
                    let (va, vb) = (word(lane, fa, ka), word(lane, fb, kb));
                    if ra == rb && va != vb {
                        return Some(Conflict {
                            lane: i,
                            reg: ra as u8,
                            agpr: ra >= 256,
                            first: (fa, ka, va),
                            second: (fb, kb, vb),
                        });
                    }
                }
            }
        }
        None
    }

    /// Makes `lane` consistent: every register takes the value of the first operand word that
    /// names it, in [`ORDER`](super::ORDER) (so an address stays an address, and DATA1 = DATA0 takes DATA0's).
    pub fn harmonise(&self, op: DsOp, acc: bool, lane: &mut Lane) {
        self.harmonise_in(op, acc, lane, false)
    }

    /// Like [`Regs::harmonise`], but VDST's value wins (then DATA1, DATA0, ADDR): for lanes
    /// whose registers only carry the sentinel (inactive lanes).
    pub fn harmonise_to_vdst(&self, op: DsOp, acc: bool, lane: &mut Lane) {
        self.harmonise_in(op, acc, lane, true)
    }

    /// [`Regs::harmonise`] for the lanes active in `exec`, [`Regs::harmonise_to_vdst`] for the
    /// others (what a case's registers hold), the operand words looked up once for all lanes.
    pub fn harmonise_lanes(&self, op: DsOp, acc: bool, lanes: &mut [Lane], exec: u64) {
        let words = self.keyed(op, acc);
        let mut reversed = words.clone();
        reversed.reverse();
        for (i, lane) in lanes.iter_mut().enumerate() {
            let active = exec.checked_shr(i as u32).is_some_and(|e| e & 1 == 1);
            Self::harmonise_words(if active { &words } else { &reversed }, lane);
        }
    }

    fn harmonise_in(&self, op: DsOp, acc: bool, lane: &mut Lane, vdst_first: bool) {
        let mut words = self.keyed(op, acc);
        if vdst_first {
            words.reverse();
        }
        Self::harmonise_words(&words, lane);
    }

    /// Every register of `words` (in the order they win) takes its first word's value.
    fn harmonise_words(words: &[(u16, Field, usize)], lane: &mut Lane) {
        for (a, &(ra, fa, ka)) in words.iter().enumerate() {
            if words[..a].iter().any(|&(r, _, _)| r == ra) {
                continue;
            }
            let v = word(lane, fa, ka);
            for &(rb, fb, kb) in &words[a + 1..] {
                if rb == ra {
                    *word_mut(lane, fb, kb) = v;
                }
            }
        }
    }

    /// Turns `raw`, what the instruction computed with every operand in its own registers (the
    /// model's [`crate::model::execute`]), into the final value of every register an operand
    /// names: VDST as written; ADDR, DATA0 and DATA1 as they were unless a result landed in them.
    /// Sources were all read before any result was written (R1), so only the results matter here.
    /// Sets `data0`/`data1` (the dumps of the data registers) for the operands `regs` names.
    /// With `acc` a result lands only in its own file: VDST in AccVGPRs (where DATA0 and DATA1
    /// are), the updated ADDR in VGPRs.
    pub fn settle(&self, op: DsOp, acc: bool, case: &Case, raw: &mut Outcome) {
        let info = op.info();
        let nv = info.operands.vdst;
        let vd = self.vdst.filter(|_| nv > 0);
        let result = |i: usize, field: Field, reg: u8, before: u32, raw: &Outcome| -> u32 {
            let agpr = in_agprs(field, acc);
            match vd {
                Some(v) if agpr == acc && reg >= v && reg - v < nv => {
                    raw.vdst[i][usize::from(reg - v)]
                }
                _ if !agpr && info.writes_addr() && Some(reg) == self.addr => raw.addr[i],
                _ => before,
            }
        };
        let mut data = [None, None];
        for (slot, field) in [(0, Field::Data0), (1, Field::Data1)] {
            let n = usize::from(info.operands.dwords(field));
            if let Some(first) = self.get(field) {
                let mut words = vec![[0u32; 4]; case.wave.lanes.len()];
                for (i, w) in words.iter_mut().enumerate() {
                    let lane = &case.wave.lanes[i];
                    for (k, x) in w.iter_mut().enumerate() {
                        let before = word(lane, field, k);
                        *x = if k < n {
                            result(i, field, first + k as u8, before, raw)
                        } else {
                            before
                        };
                    }
                }
                data[slot] = Some(words);
            }
        }
        if let Some(a) = self.addr {
            for i in 0..case.wave.lanes.len() {
                let before = if info.writes_addr() {
                    raw.addr[i]
                } else {
                    case.wave.lanes[i].addr
                };
                raw.addr[i] = result(i, Field::Addr, a, before, raw);
            }
        }
        [raw.data0, raw.data1] = data;
    }

    /// The inverse of [`Regs::settle`] for a device's outcome: what the instruction computed,
    /// read from the VDST registers (and ADDR for the op that writes it). Refused, in words, when
    /// the device's dumps of one register disagree with each other or a register no result
    /// names changed.
    pub fn unsettle(
        &self,
        op: DsOp,
        acc: bool,
        case: &Case,
        view: &Outcome,
    ) -> Result<Outcome, String> {
        let info = op.info();
        let mut raw = Outcome {
            lds: view.lds.clone(),
            vdst: view.vdst.clone(),
            addr: if info.writes_addr() {
                view.addr.clone()
            } else {
                case.wave.lanes.iter().map(|l| l.addr).collect()
            },
            data0: None,
            data1: None,
        };
        let mut again = raw.clone();
        self.settle(op, acc, case, &mut again);
        if again.addr != view.addr {
            let i = (0..again.addr.len().min(view.addr.len()))
                .find(|&i| again.addr[i] != view.addr[i])
                .unwrap_or(0);
            return Err(format!(
                "lane {i} addr register: expected {:#010x} from its registers, device {:#010x}",
                again.addr[i], view.addr[i]
            ));
        }
        for (name, a, v) in [
            ("data0", &again.data0, &view.data0),
            ("data1", &again.data1, &view.data1),
        ] {
            if a != v {
                let (a, v) = (a.clone().unwrap_or_default(), v.clone().unwrap_or_default());
                let Some(i) = (0..a.len().min(v.len())).find(|&i| a[i] != v[i]) else {
                    return Err(format!(
                        "{name} registers: the device dumped {} lanes, {} expected",
                        v.len(),
                        a.len()
                    ));
                };
                return Err(format!(
                    "lane {i} {name} registers: expected {:08x?} from its registers, device {:08x?}",
                    a[i], v[i]
                ));
            }
        }
        raw.data0 = None;
        raw.data1 = None;
        Ok(raw)
    }
}
