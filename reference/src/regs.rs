//! Register aliasing: a variant may name the VGPR of each operand ([`Regs`], `variant.regs` in
//! a case file), and operand ranges may overlap (ADDR inside VDST, DATA0 = DATA1, DATA0 inside the
//! VDST of a returning atomic): legal instructions that compilers emit (LLVM reuses a load's
//! address register for its result).
//!
//! A register holds one value per lane, so a case must give an overlapped register the same value
//! through every operand that names it ([`Regs::conflict`] finds the first one that does not;
//! [`Regs::harmonise`] makes a lane consistent). The model reads every source register of every
//! active lane before it writes any destination, then writes (ASSUMPTIONS.md R1): the model's
//! semantics never see a register change under them. [`Regs::settle`] turns what the instruction
//! computed (the layout without aliasing) into the final value of every register an operand names;
//! [`Regs::unsettle`] is its inverse for a device's outcome.

use crate::isa::{DsOp, Field, OpInfo};
use crate::wave::{Case, Lane, Outcome};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The first VGPR of each operand the op uses; `None` for operands it does not use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regs {
    /// ADDR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<u8>,
    /// First register of DATA0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data0: Option<u8>,
    /// First register of DATA1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data1: Option<u8>,
    /// First register of VDST.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vdst: Option<u8>,
}

/// The order in which an overlapped register takes its value when a lane is harmonised (the
/// first operand that names it wins), and in which conflicts are reported.
pub const ORDER: [Field; 4] = [Field::Addr, Field::Data0, Field::Data1, Field::Vdst];

/// Why a `regs` cannot be used with its op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegsError {
    /// The op uses the operand but `regs` does not name its register.
    Missing { op: DsOp, field: Field },
    /// `regs` names a register for an operand the op does not have.
    Unused { op: DsOp, field: Field },
    /// The operand's registers run past v255.
    PastV255 { field: Field, first: u8, dwords: u8 },
    /// Both results of `ds_bvh_stack_rtn_b32` (VDST and the updated ADDR) in one register.
    TwoResults { op: DsOp, reg: u8 },
}

impl fmt::Display for RegsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegsError::Missing { op, field } => write!(
                f,
                "regs: {op} uses {} but regs names no register for it: add \"{}\": N",
                field.name(),
                field.name()
            ),
            RegsError::Unused { op, field } => write!(
                f,
                "regs: {op} has no {} operand: remove \"{}\" from regs",
                field.name(),
                field.name()
            ),
            RegsError::PastV255 { field, first, dwords } => write!(
                f,
                "regs: {} takes {dwords} registers from v{first}, past v255: start it at v{} or lower",
                field.name(),
                256 - u32::from(*dwords)
            ),
            RegsError::TwoResults { op, reg } => write!(
                f,
                "regs: {op} writes both vdst and addr, and both name v{reg}: which result a \
                 register written twice by one instruction keeps is not defined, so no kernel \
                 can check it; give them different registers"
            ),
        }
    }
}

impl std::error::Error for RegsError {}

/// A register given two different values through two operands that name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The lane.
    pub lane: usize,
    /// The VGPR.
    pub reg: u8,
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
            "lane {}: register v{} is {:#010x} as {} but {:#010x} as {}; a register holds one \
             value per lane: give it the same value through every operand that names it",
            self.lane,
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

impl Regs {
    /// The register of `field`, if named.
    pub fn get(&self, field: Field) -> Option<u8> {
        match field {
            Field::Addr => self.addr,
            Field::Data0 => self.data0,
            Field::Data1 => self.data1,
            Field::Vdst => self.vdst,
        }
    }

    /// Names `reg` for `field`.
    pub fn set(&mut self, field: Field, reg: Option<u8>) {
        match field {
            Field::Addr => self.addr = reg,
            Field::Data0 => self.data0 = reg,
            Field::Data1 => self.data1 = reg,
            Field::Vdst => self.vdst = reg,
        }
    }

    /// Every VGPR an operand of `op` names, with the operand word it is: `(reg, field, k)`, in
    /// [`ORDER`]. Call after [`Regs::check`].
    pub fn words(&self, info: &OpInfo) -> Vec<(u8, Field, usize)> {
        let mut out = Vec::with_capacity(13);
        for field in ORDER {
            let n = info.operands.dwords(field);
            if let (Some(first), true) = (self.get(field), n > 0) {
                for k in 0..n {
                    out.push((first + k, field, usize::from(k)));
                }
            }
        }
        out
    }

    /// Checks that `regs` fits `op`: a register for every operand it uses and none for the
    /// others, every range within v255, and the two results of the BVH stack op apart.
    pub fn check(&self, op: DsOp) -> Result<(), RegsError> {
        let info = op.info();
        for field in ORDER {
            let n = info.operands.dwords(field);
            match (self.get(field), n) {
                (None, 0) => {}
                (Some(_), 0) => return Err(RegsError::Unused { op, field }),
                (None, _) => return Err(RegsError::Missing { op, field }),
                (Some(first), n) => {
                    if u32::from(first) + u32::from(n) > 256 {
                        return Err(RegsError::PastV255 {
                            field,
                            first,
                            dwords: n,
                        });
                    }
                }
            }
        }
        if let (true, Some(a), Some(v)) = (info.writes_addr(), self.addr, self.vdst) {
            if a >= v && a - v < info.operands.vdst {
                return Err(RegsError::TwoResults { op, reg: a });
            }
        }
        Ok(())
    }

    /// The first register of `case` given two values by two operands that name it (in lane order,
    /// then [`ORDER`]), if any. Inactive lanes count too: their registers are loaded and dumped.
    pub fn conflict(&self, op: DsOp, lanes: &[Lane]) -> Option<Conflict> {
        let words = self.words(op.info());
        for (i, lane) in lanes.iter().enumerate() {
            for (a, &(ra, fa, ka)) in words.iter().enumerate() {
                for &(rb, fb, kb) in &words[a + 1..] {
                    let (va, vb) = (word(lane, fa, ka), word(lane, fb, kb));
                    if ra == rb && va != vb {
                        return Some(Conflict {
                            lane: i,
                            reg: ra,
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
    /// names it, in [`ORDER`] (so an address stays an address, and DATA1 = DATA0 takes DATA0's).
    pub fn harmonise(&self, op: DsOp, lane: &mut Lane) {
        self.harmonise_in(op, lane, false)
    }

    /// Like [`Regs::harmonise`], but VDST's value wins (then DATA1, DATA0, ADDR): for lanes
    /// whose registers only carry the sentinel (inactive lanes).
    pub fn harmonise_to_vdst(&self, op: DsOp, lane: &mut Lane) {
        self.harmonise_in(op, lane, true)
    }

    fn harmonise_in(&self, op: DsOp, lane: &mut Lane, vdst_first: bool) {
        let mut words = self.words(op.info());
        if vdst_first {
            words.reverse();
        }
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
    pub fn settle(&self, op: DsOp, case: &Case, raw: &mut Outcome) {
        let info = op.info();
        let nv = info.operands.vdst;
        let vd = self.vdst.filter(|_| nv > 0);
        let result = |i: usize, reg: u8, before: u32, raw: &Outcome| -> u32 {
            match vd {
                Some(v) if reg >= v && reg - v < nv => raw.vdst[i][usize::from(reg - v)],
                _ if info.writes_addr() && Some(reg) == self.addr => raw.addr[i],
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
                            result(i, first + k as u8, before, raw)
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
                raw.addr[i] = result(i, a, before, raw);
            }
        }
        [raw.data0, raw.data1] = data;
    }

    /// The inverse of [`Regs::settle`] for a device's outcome: what the instruction computed,
    /// read from the VDST registers (and ADDR for the op that writes it). Refused, in words, when
    /// the device's dumps of one register disagree with each other or a register no result
    /// names changed.
    pub fn unsettle(&self, op: DsOp, case: &Case, view: &Outcome) -> Result<Outcome, String> {
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
        self.settle(op, case, &mut again);
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

/// The aliasing patterns the corpora run: each a way operand registers of one instruction may
/// overlap that compilers emit or users' hardware tests assert on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alias {
    /// ADDR is the first VDST register (LLVM reuses a load's address register for its result).
    AddrFirstVdst,
    /// ADDR is the last VDST register.
    AddrLastVdst,
    /// DATA0 starts at VDST's first register (a returning atomic overwriting its own data).
    Data0InVdst,
    /// DATA0 and DATA1 are the same registers.
    Data0Data1,
    /// ADDR is VDST's second register and DATA0 = DATA1 (`ds_storexchg_2addr_stride64_rtn_b64
    /// v[30:33], v31, v[40:41], v[40:41]`).
    AddrInVdstData0Data1,
    /// ADDR is DATA0's first register (a store of its own address; two sources, no result).
    AddrData0,
}

impl Alias {
    /// Every pattern, in the order the corpora use them.
    pub const ALL: [Alias; 6] = [
        Alias::AddrFirstVdst,
        Alias::AddrLastVdst,
        Alias::Data0InVdst,
        Alias::Data0Data1,
        Alias::AddrInVdstData0Data1,
        Alias::AddrData0,
    ];

    /// A short name, used in case names, ids and variant tags.
    pub fn name(self) -> &'static str {
        match self {
            Alias::AddrFirstVdst => "addr-is-vdst0",
            Alias::AddrLastVdst => "addr-is-vdst-last",
            Alias::Data0InVdst => "data0-is-vdst0",
            Alias::Data0Data1 => "data0-is-data1",
            Alias::AddrInVdstData0Data1 => "addr-is-vdst1-data0-is-data1",
            Alias::AddrData0 => "addr-is-data0",
        }
    }

    /// The registers of `op` in this pattern, or `None` when the op has no such overlap (no
    /// operand to overlap, or the BVH stack op's two results in one register). The registers
    /// reach both ends of the file: v0 (the template's lane id must move) and v255.
    pub fn regs(self, op: DsOp) -> Option<Regs> {
        let info = op.info();
        if !info.hip_runnable() {
            return None;
        }
        let o = info.operands;
        let (nv, has_addr, n0, n1) = (o.vdst, o.addr > 0, o.data0, o.data1);
        let two_results = info.writes_addr();
        let mut r = Regs::default();
        match self {
            Alias::AddrFirstVdst if has_addr && nv > 0 && !two_results => {
                (r.vdst, r.addr) = (Some(0), Some(0));
            }
            Alias::AddrLastVdst if has_addr && nv > 1 && !two_results => {
                let first = (256 - u32::from(nv)) as u8;
                (r.vdst, r.addr) = (Some(first), Some(255));
            }
            Alias::Data0InVdst if nv > 0 && n0 > 0 => {
                (r.vdst, r.data0) = (Some(8), Some(8));
            }
            Alias::Data0Data1 if n0 > 0 && n1 > 0 => {
                (r.data0, r.data1) = (Some(20), Some(20));
            }
            Alias::AddrInVdstData0Data1
                if has_addr && nv > 1 && n0 > 0 && n1 > 0 && !two_results =>
            {
                (r.vdst, r.addr, r.data0, r.data1) = (Some(30), Some(31), Some(40), Some(40));
            }
            Alias::AddrData0 if has_addr && n0 > 0 => {
                let first = (256 - u32::from(n0)) as u8;
                (r.data0, r.addr) = (Some(first), Some(first));
            }
            _ => return None,
        }
        // The operands the pattern does not overlap get registers of their own from v100 up.
        let mut next = 100u8;
        for field in ORDER {
            let n = o.dwords(field);
            if n > 0 && r.get(field).is_none() {
                r.set(field, Some(next));
                next += n;
            }
        }
        debug_assert_eq!(r.check(op), Ok(()));
        Some(r)
    }

    /// The patterns `op` has, with their registers.
    pub fn for_op(op: DsOp) -> Vec<(Alias, Regs)> {
        Alias::ALL
            .into_iter()
            .filter_map(|a| a.regs(op).map(|r| (a, r)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::runnable_ops;

    fn op(name: &str) -> DsOp {
        DsOp::from_name(name).unwrap()
    }

    #[test]
    fn every_pattern_fits_its_op_and_overlaps() {
        let mut n = 0;
        for op in runnable_ops() {
            for (a, r) in Alias::for_op(op) {
                assert_eq!(r.check(op), Ok(()), "{op} {}", a.name());
                let words = r.words(op.info());
                let overlaps = words
                    .iter()
                    .enumerate()
                    .any(|(i, w)| words[i + 1..].iter().any(|x| x.0 == w.0));
                assert!(overlaps, "{op} {}: no register is shared", a.name());
                n += 1;
            }
        }
        assert!(n > 150, "only {n} aliasing variants");
        assert_eq!(
            Alias::AddrInVdstData0Data1.regs(op("ds_storexchg_2addr_stride64_rtn_b64")),
            Some(Regs {
                addr: Some(31),
                data0: Some(40),
                data1: Some(40),
                vdst: Some(30)
            })
        );
        assert_eq!(Alias::AddrFirstVdst.regs(op("ds_bvh_stack_rtn_b32")), None);
        assert_eq!(Alias::AddrFirstVdst.regs(op("ds_append")), None);
    }

    #[test]
    fn bad_regs_are_refused_in_words() {
        let load = op("ds_load_b128");
        let r = Regs {
            addr: Some(4),
            vdst: Some(253),
            ..Regs::default()
        };
        assert_eq!(
            r.check(load).unwrap_err().to_string(),
            "regs: vdst takes 4 registers from v253, past v255: start it at v252 or lower"
        );
        let r = Regs {
            vdst: Some(4),
            ..Regs::default()
        };
        assert!(r
            .check(load)
            .unwrap_err()
            .to_string()
            .contains("add \"addr\": N"));
        let r = Regs {
            addr: Some(4),
            data0: Some(1),
            vdst: Some(8),
            ..Regs::default()
        };
        assert!(r
            .check(load)
            .unwrap_err()
            .to_string()
            .contains("no data0 operand"));
        let bvh = op("ds_bvh_stack_rtn_b32");
        let r = Regs {
            addr: Some(4),
            data0: Some(5),
            data1: Some(8),
            vdst: Some(4),
        };
        assert!(r
            .check(bvh)
            .unwrap_err()
            .to_string()
            .contains("both name v4"));
    }

    #[test]
    fn a_register_with_two_values_is_named_with_lane_register_and_both_values() {
        let load = op("ds_load_2addr_b32");
        let r = Alias::AddrLastVdst.regs(load).unwrap(); // v[254:255], v255
        let mut lanes = vec![Lane::default(); crate::wave::WaveSize::Wave32.lanes()];
        lanes[7].addr = 0x40;
        lanes[7].vdst = [0xdead_beef, 0x40, 0, 0];
        assert_eq!(r.conflict(load, &lanes), None);
        lanes[9].addr = 0x10;
        lanes[9].vdst = [0, 0x11, 0, 0];
        let c = r.conflict(load, &lanes).unwrap();
        assert_eq!(
            c.to_string(),
            "lane 9: register v255 is 0x00000010 as addr but 0x00000011 as vdst[1]; a register \
             holds one value per lane: give it the same value through every operand that names it"
        );
        r.harmonise(load, &mut lanes[9]);
        assert_eq!(lanes[9].vdst[1], 0x10, "the address wins");
        assert_eq!(r.conflict(load, &lanes), None);
    }
}
