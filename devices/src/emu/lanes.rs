//! The emulated wave's memory instructions and register moves across files: GLOBAL loads and
//! stores (RDNA3 ISA guide, chapter "Global, Scratch and Flat Address Space"; the launch's
//! buffers, see [`super::memory`]), DS instructions through `ds_reference::model::execute_in_place`
//! by the rules of the code object's target (its generation's: `Generation::permute_span` ...),
//! and the AccVGPR moves (`ds_isa::inst::acc`).
//!
//! A load that fills every lane of its registers stamps them defined without the pattern; every
//! other access defines the registers it reads first (see [`super::regs`]).

use super::exec::{WaveState, WIDTH};
use super::memory::Memory;
use super::{Program, Run};
use ds_isa::ds::{DsInst, Family, Field, Rmw};
use ds_isa::inst::acc::{AccMove, AccOp};
use ds_isa::inst::GlobalOp;
use ds_reference::model;
use std::sync::atomic::Ordering::Relaxed;

/// The distance between neighbouring lanes' values `x(l)` (the low dwords `lo`, and the high
/// ones `hi` where the address is a VGPR pair) when every lane is that far (a non-negative
/// distance, not wrapping) from the one before.
#[inline(always)]
fn stride(lo: &[u32], hi: Option<&[u32]>) -> Option<u64> {
    if let Some(hi) = hi {
        // A VGPR-pair address: the upper halves must agree (the template never uses the form).
        if hi.iter().any(|&h| h != hi[0]) {
            return None;
        }
    }
    let (x0, x1) = (lo[0], lo[1]);
    let d = x1.checked_sub(x0)?;
    let n = lo.len() as u32;
    x0.checked_add(d.checked_mul(n - 1)?)?;
    // No early exit, 32-bit lanes: the comparisons run side by side.
    let ok = (lo.iter().zip(0..n)).fold(true, |ok, (&x, l)| ok & (x == x0 + l * d));
    ok.then_some(u64::from(d))
}

impl WaveState {
    /// A GLOBAL load or store over the active lanes (operands in range: checked at load).
    #[inline(never)]
    pub(super) fn global(
        &mut self,
        op: GlobalOp,
        vdata: u8,
        vaddr: u8,
        saddr: Option<u8>,
        offset: i16,
        mem: &Memory,
    ) -> Result<(), String> {
        let n = op.dwords() as usize;
        let exec = self.live_exec();
        let lanes = self.lanes;
        let (g, seed) = (self.generation, self.seed);
        let vaddr = usize::from(vaddr);
        self.v.define(vaddr, g, seed);
        let base = match saddr {
            Some(s) => {
                let s = usize::from(s);
                u64::from(self.s[s]) | u64::from(self.s[s + 1]) << 32
            }
            None => {
                self.v.define(vaddr + 1, g, seed);
                0
            }
        };
        let offset = offset as i64 as u64;
        let v = usize::from(vdata);
        // A load over every lane overwrites its registers whole; anything else keeps lanes.
        if op.is_store() || exec != self.full {
            for r in v..v + n {
                self.v.define(r, g, seed);
            }
        } else {
            for r in v..v + n {
                self.v.whole(r, g);
            }
        }
        let lo = self.v.row(vaddr);
        let hi = match saddr {
            Some(_) => None,
            None => Some(self.v.row(vaddr + 1)),
        };
        let addr_of = |l: usize| match hi {
            None => base.wrapping_add(u64::from(lo[l])).wrapping_add(offset),
            Some(hi) => (u64::from(lo[l]) | u64::from(hi[l]) << 32).wrapping_add(offset),
        };
        // The template's accesses: every lane, lane l at a0 + l * stride (a whole number of
        // dwords, lanes not overlapping: 0 or at least the access), inside one region.
        let strided = (exec == self.full)
            .then(|| stride(lo, hi))
            .flatten()
            .filter(|&d| d.is_multiple_of(4) && (d == 0 || d >= 4 * n as u64) && d <= 1 << 24)
            .and_then(|d| {
                let a0 = addr_of(0);
                let (rbase, words) = mem.region_at(a0)?;
                let off = a0.wrapping_sub(rbase);
                let end = off + (lanes as u64 - 1) * d + 4 * n as u64;
                (off.is_multiple_of(4) && end <= 4 * words.len() as u64).then(|| {
                    let first = (off / 4) as usize;
                    (&words[first..(end / 4) as usize], (d / 4) as usize)
                })
            });
        if let Some((cells, step)) = strided {
            let rows = self.v.rows_mut(v, n);
            for (k, row) in rows.chunks_exact_mut(lanes).enumerate() {
                if step == 0 {
                    // Every lane at one address: the last lane's store lands.
                    if op.is_store() {
                        cells[k].store(row[lanes - 1], Relaxed);
                    } else {
                        row.fill(cells[k].load(Relaxed));
                    }
                } else {
                    let cells = cells[k..].iter().step_by(step);
                    if op.is_store() {
                        row.iter()
                            .zip(cells)
                            .for_each(|(&x, w)| w.store(x, Relaxed));
                    } else {
                        row.iter_mut()
                            .zip(cells)
                            .for_each(|(x, w)| *x = w.load(Relaxed));
                    }
                }
            }
            return Ok(());
        }
        let mut addrs = [0u64; WIDTH];
        for (l, a) in addrs[..lanes].iter_mut().enumerate() {
            *a = addr_of(l);
        }
        self.global_lanes(op, v, &addrs, exec, mem)
    }

    /// A GLOBAL access lane after lane (any EXEC, any addresses: the first faulting lane's error).
    #[cold]
    #[inline(never)]
    fn global_lanes(
        &mut self,
        op: GlobalOp,
        v: usize,
        addrs: &[u64; WIDTH],
        exec: u64,
        mem: &Memory,
    ) -> Result<(), String> {
        let (n, lanes) = (op.dwords() as usize, self.lanes);
        // Most often every active lane's access lies in the region of the first active lane's:
        // the region is found once and each lane is a bounds check (all lanes checked before
        // any is accessed, so a fault takes the general path below).
        let n64 = 4 * n as u64;
        let fast = (exec != 0)
            .then(|| mem.region_at(addrs[exec.trailing_zeros() as usize]))
            .flatten()
            .filter(|&(rbase, words)| {
                let limit = 4 * words.len() as u64;
                if limit < n64 {
                    return false;
                }
                let fits = |a: u64| {
                    let off = a.wrapping_sub(rbase);
                    off.is_multiple_of(4) && off <= limit - n64
                };
                if exec == self.full {
                    addrs[..lanes].iter().all(|&a| fits(a))
                } else {
                    (addrs[..lanes].iter().enumerate()).all(|(l, &a)| exec >> l & 1 == 0 || fits(a))
                }
            });
        let rows = self.v.rows_mut(v, n);
        if let Some((rbase, words)) = fast {
            // Lane after lane, as the general path below.
            let mut e = exec;
            while e != 0 {
                let lane = e.trailing_zeros() as usize;
                e &= e - 1;
                let at = (addrs[lane].wrapping_sub(rbase) / 4) as usize;
                let cells = &words[at..at + n];
                if op.is_store() {
                    for (k, w) in cells.iter().enumerate() {
                        w.store(rows[k * lanes + lane], Relaxed);
                    }
                } else {
                    for (k, w) in cells.iter().enumerate() {
                        rows[k * lanes + lane] = w.load(Relaxed);
                    }
                }
            }
            return Ok(());
        }
        let mut hint = usize::MAX;
        for lane in (0..lanes).filter(|l| exec >> l & 1 == 1) {
            let addr = addrs[lane];
            let mut words = [0u32; 4];
            if op.is_store() {
                for (k, w) in words[..n].iter_mut().enumerate() {
                    *w = rows[k * lanes + lane];
                }
                mem.write_near(&mut hint, addr, &words[..n], op.name())
                    .map_err(|e| format!("lane {lane}: {}", e.0))?;
            } else {
                mem.read_near(&mut hint, addr, &mut words[..n], op.name())
                    .map_err(|e| format!("lane {lane}: {}", e.0))?;
                for (k, &w) in words[..n].iter().enumerate() {
                    rows[k * lanes + lane] = w;
                }
            }
        }
        Ok(())
    }

    /// A DS instruction through the reference model: gather the operand registers into a
    /// [`ds_reference::wave::Wave`], execute, write back vdst (and addr for the ops that update
    /// it).
    #[inline(never)]
    pub(super) fn ds(
        &mut self,
        inst: &DsInst,
        fits: [bool; 2],
        prog: &Program,
        run: &Run,
    ) -> Result<(), String> {
        let quirks = run.quirks;
        let info = inst.info();
        let ops = info.operands;
        // With the acc bit, data and vdst are AccVGPRs (a broken device ignores it).
        let in_acc = inst.acc && !quirks.ignore_acc;
        if !fits[usize::from(in_acc)] {
            return Err(self.past_the_files(inst, in_acc, prog));
        }
        let (g, seed) = (self.generation, self.seed);
        let lanes = self.lanes;
        let exec = self.live_exec();
        let wave = &mut *self.ds_wave;
        wave.exec = exec;
        wave.m0 = self.s[usize::from(super::ops::M0)];
        // Register by register (each a row of lanes); words an operand does not have keep
        // whatever they held.
        if ops.addr > 0 {
            let r = usize::from(inst.addr);
            self.v.define(r, g, seed);
            for (l, &a) in wave.lanes.iter_mut().zip(self.v.row(r)) {
                l.addr = a;
            }
        }
        let regs = if in_acc { &mut self.a } else { &mut self.v };
        for w in 0..ops.data0 as usize {
            let r = inst.data0 as usize + w;
            regs.define(r, g, seed);
            for (l, &d) in wave.lanes.iter_mut().zip(regs.row(r)) {
                l.data0[w] = d;
            }
        }
        for w in 0..ops.data1 as usize {
            let r = inst.data1 as usize + w;
            regs.define(r, g, seed);
            for (l, &d) in wave.lanes.iter_mut().zip(regs.row(r)) {
                l.data1[w] = d;
            }
        }
        let vdst = &mut self.ds_vdst;
        for w in 0..ops.vdst as usize {
            let r = inst.vdst as usize + w;
            regs.define(r, g, seed);
            // The model reads VDST from `vdst` (a lane's own `vdst` field is left as it was).
            for (d, &x) in vdst.iter_mut().zip(regs.row(r)) {
                d[w] = x;
            }
        }
        let addr = &mut self.ds_addr;
        if info.writes_addr() {
            for (a, l) in addr.iter_mut().zip(wave.lanes.iter()) {
                *a = l.addr;
            }
        }
        let mode = prog.desc.mode;
        // The rules are the target's (a broken device's: another generation's).
        let target = run.rules_target.unwrap_or(prog.target);
        if quirks
            .cmpst_order
            .is_some_and(|o| o != target.generation.cmpst_data0())
            && matches!(info.family, Family::Rmw(Rmw::CmpStore))
        {
            // The broken device: the other generation's operand order, i.e. DATA0 and DATA1
            // trade places before the target's rule reads them.
            for l in wave.lanes.iter_mut() {
                l.swap_data();
            }
        }
        if quirks.bpermute_lower_half && info.family == Family::Bpermute {
            // The broken device: every lane reads DATA0 of lane (ADDR + offset)[6:2] of the lower
            // half (a wave64 run as wave32).
            let offset = u16::from(inst.offset0) | u16::from(inst.offset1) << 8;
            for (i, d) in vdst.iter_mut().enumerate() {
                if wave.active(i) {
                    let j = model::lanes::lane_of(wave.lanes[i].addr, offset);
                    d[0] = if wave.active(j) {
                        wave.lanes[j].data0[0]
                    } else {
                        0
                    };
                }
            }
        } else if quirks.descending_lanes == Some(inst.op) && info.per_lane_lds() {
            // One lane at a time, highest first: same-address lanes resolve the other way round.
            for lane in (0..lanes).rev().filter(|&l| exec >> l & 1 == 1) {
                wave.exec = 1 << lane;
                model::execute_in_place(target, inst, mode, wave, &mut self.lds, vdst, addr)
                    .map_err(|e| e.to_string())?;
            }
            wave.exec = exec;
        } else {
            // A device that follows other readings runs by them (`Quirks::rules`); ops the model
            // runs but does not judge get its stand-in answer (never judged).
            let rules = quirks.rules.unwrap_or(model::readings::Rules::MODEL);
            model::execute_in_place_or_stand_in(
                target,
                inst,
                mode,
                rules,
                wave,
                &mut self.lds,
                vdst,
                addr,
            )
            .map_err(|e| e.to_string())?;
        }
        if let Some(f) = quirks
            .fault
            .filter(|f| f.op == inst.op && wave.active(f.lane))
        {
            vdst[f.lane][f.word] ^= f.xor;
        }
        let regs = if in_acc { &mut self.a } else { &mut self.v };
        for w in 0..ops.vdst as usize {
            // Every lane: the inactive ones get back what they held.
            for (x, d) in regs
                .whole(inst.vdst as usize + w, g)
                .iter_mut()
                .zip(vdst.iter())
            {
                *x = d[w];
            }
        }
        if info.writes_addr() {
            self.v
                .whole(usize::from(inst.addr), g)
                .copy_from_slice(&addr[..lanes]);
        }
        Ok(())
    }

    /// Why `inst`'s registers do not fit the files (`in_acc`: data and vdst in AccVGPRs).
    #[cold]
    fn past_the_files(&self, inst: &DsInst, in_acc: bool, prog: &Program) -> String {
        let ops = inst.info().operands;
        let text = inst.text(prog.target.generation);
        for f in Field::ALL.into_iter().filter(|&f| ops.dwords(f) > 0) {
            let (len, name) = if in_acc && f != Field::Addr {
                (self.a.len(), "AccVGPRs")
            } else {
                (self.v.len(), "VGPRs")
            };
            if inst.reg(f) as usize + ops.dwords(f) as usize > len {
                return format!("{text} uses {name} past the {len} the descriptor allocates");
            }
        }
        unreachable!("{text}: its registers fit")
    }

    /// `v_accvgpr_write_b32` / `v_accvgpr_read_b32` over the active lanes (registers in range:
    /// checked at load).
    pub(super) fn acc_move(&mut self, m: AccMove) {
        let (g, seed) = (self.generation, self.seed);
        let exec = self.live_exec();
        let (src, dst) = (usize::from(m.src), usize::from(m.dst));
        let mut from = [0u32; WIDTH];
        let lanes = self.lanes;
        let (src_file, dst_file) = match m.op {
            AccOp::Write => (&mut self.v, &mut self.a),
            AccOp::Read => (&mut self.a, &mut self.v),
        };
        src_file.define(src, g, seed);
        from[..lanes].copy_from_slice(src_file.row(src));
        dst_file.define(dst, g, seed);
        for (lane, (d, s)) in dst_file.row_mut(dst).iter_mut().zip(from).enumerate() {
            if exec >> lane & 1 == 1 {
                *d = s;
            }
        }
    }
}
