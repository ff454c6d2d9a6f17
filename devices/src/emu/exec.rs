//! One wave (wave32 or wave64) of the emulated device: the register state and the semantics of every non-DS
//! instruction the kernel template uses (RDNA3 ISA guide, chapters "Scalar ALU Operations",
//! "Vector ALU Operations", "Scalar Memory Operations", "Global, Scratch and Flat Address Space"
//! and the per-opcode descriptions of SOP1/SOP2/SOPK/SOPC/SOPP/SMEM/VOP1/VOP2/VOP3/VOPC/GLOBAL).
//! DS instructions run through `ds_reference::model::execute_in_place` over the wave's lanes, by
//! the rules of the code object's target (its generation's: `Generation::permute_span` ...). A
//! wave64 executes each instruction over all
//! 64 lanes at once under a 64-bit EXEC; VOPC writes the whole VCC (wave32: VCC_LO only).
//!
//! A workgroup starts from the target's entry state ([`ds_kernels::entry::Delivery`]) and a
//! pattern everywhere else ([`Pattern`], seeded per launch and workgroup); the wave remembers
//! which scalar registers hold a value, and a read of one that does not fails the instruction,
//! naming the register.

use super::memory::Memory;
use super::{Program, Quirks, Run, WrongEntry};
use ds_isa::ds::{DsInst, Family, Field, Rmw};
use ds_isa::inst::acc::{AccMove, AccOp};
use ds_isa::inst::{
    GlobalOp, Inst, Operand, SmemOp, Sop1Op, Sop2Op, SopcOp, SopkOp, SoppOp, Vop1Op, Vop2Op,
    Vop3Op, VopcOp,
};
use ds_reference::model;
use ds_reference::wave::{Lds, Wave, WaveSize};
use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;

/// Lanes a VGPR holds: the widest wave's.
const WIDTH: usize = WaveSize::Wave64.lanes();

/// SGPRs s0..s105.
const SGPRS: usize = 106;
/// Trap temporaries ttmp0..ttmp15.
const TTMPS: usize = 16;

/// Mixes two words into a seed (SplitMix64's finaliser over their sum).
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a
        .wrapping_add(b.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The pseudo-random pattern undefined state holds: a SplitMix64 stream.
struct Pattern(u64);

impl Pattern {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0, 0)
    }

    fn word(&mut self) -> u32 {
        self.next() as u32
    }

    fn fill(&mut self, bytes: &mut [u8]) {
        let mut chunks = bytes.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next().to_le_bytes());
        }
        let tail = chunks.into_remainder();
        let n = tail.len();
        tail.copy_from_slice(&self.next().to_le_bytes()[..n]);
    }
}

/// A wave's registers and its workgroup's LDS.
#[derive(Debug)]
pub struct WaveState {
    s: [u32; SGPRS],
    /// Trap temporaries ttmp0..15 (gfx12 delivers the workgroup ids in ttmp9 and ttmp7).
    ttmp: [u32; TTMPS],
    /// Which scalar registers hold a value: bit n of `s_def` for sN, of `t_def` for ttmpN.
    s_def: u128,
    t_def: u16,
    /// VCC and M0 hold a value (written, never delivered at entry).
    vcc_def: bool,
    m0_def: bool,
    /// The first scalar register an instruction read without a value (reported after it).
    undefined: Cell<Option<Operand>>,
    vcc: u64,
    m0: u32,
    exec: u64,
    scc: bool,
    /// The hardware registers `s_getreg_b32` reads and `s_setreg_imm32_b32` writes, by id: only
    /// those the entry state delivers (gfx12.5's cluster field, zero without clusters) or a
    /// setreg wrote hold a value; a read of any other stops the launch.
    hwregs: [Option<u32>; HWREGS],
    /// The pattern word the delivered hardware registers' other bits hold.
    hwreg_pattern: u32,
    /// The wave size (the descriptor's ENABLE_WAVEFRONT_SIZE32).
    size: WaveSize,
    /// Lanes of `size`.
    lanes: usize,
    v: Vgprs,
    /// AccVGPRs (targets with a unified register file: the descriptor's share after
    /// ACCUM_OFFSET; none elsewhere).
    a: Vgprs,
    lds: Lds,
    /// Scratch for DS operands, reused across instructions.
    ds_wave: Box<Wave>,
    ds_vdst: Vec<[u32; 4]>,
    ds_addr: Vec<u32>,
}

/// The VGPRs, each a row of lanes.
#[derive(Debug)]
struct Vgprs {
    rows: Vec<[u32; WIDTH]>,
}

impl Vgprs {
    fn new(count: usize) -> Vgprs {
        Vgprs {
            rows: vec![[0; WIDTH]; count],
        }
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    fn get(&self, n: usize) -> Option<&[u32; WIDTH]> {
        self.rows.get(n)
    }

    fn get_mut(&mut self, n: usize) -> Option<&mut [u32; WIDTH]> {
        self.rows.get_mut(n)
    }

    /// Rows `first..first + n` (which must exist) to write.
    fn rows_mut(&mut self, first: usize, n: usize) -> &mut [[u32; WIDTH]] {
        &mut self.rows[first..first + n]
    }

    /// Fills every lane of every row with the pattern.
    fn poison(&mut self, p: &mut Pattern) {
        for row in &mut self.rows {
            for x in row.iter_mut() {
                *x = p.word();
            }
        }
    }
}

impl std::ops::Index<usize> for Vgprs {
    type Output = [u32; WIDTH];

    fn index(&self, n: usize) -> &[u32; WIDTH] {
        &self.rows[n]
    }
}

impl std::ops::IndexMut<usize> for Vgprs {
    fn index_mut(&mut self, n: usize) -> &mut [u32; WIDTH] {
        let count = self.rows.len();
        self.get_mut(n)
            .unwrap_or_else(|| panic!("v{n} is past the {count} VGPRs"))
    }
}

/// Sign-extends a 16-bit immediate.
/// Hardware register ids (a SIMM16's \[5:0\]).
const HWREGS: usize = 64;

/// A `hwreg(id, offset, size)` SIMM16: id \[5:0\], offset \[10:6\], size - 1 \[15:11\].
fn hwreg_field(simm16: u16) -> (u16, u8, u8) {
    (
        simm16 & 0x3f,
        (simm16 >> 6 & 0x1f) as u8,
        ((simm16 >> 11) + 1) as u8,
    )
}

/// The mask of `size` bits from `offset`.
fn field_mask(offset: u8, size: u8) -> u32 {
    (((1u64 << size) - 1) << offset) as u32
}

fn sext16(x: u16) -> u32 {
    x as i16 as i32 as u32
}

impl WaveState {
    /// A fresh wave of `size` with `vgprs` VGPRs and an LDS of `lds_size` bytes (what they hold
    /// is set for each workgroup by `run`).
    /// `agprs` AccVGPRs as well (0 on a target without them).
    pub fn with_agprs(vgprs: u32, agprs: u32, lds_size: u32, size: WaveSize) -> WaveState {
        WaveState {
            s: [0; SGPRS],
            ttmp: [0; TTMPS],
            s_def: 0,
            t_def: 0,
            vcc_def: false,
            m0_def: false,
            undefined: Cell::new(None),
            vcc: 0,
            m0: 0,
            exec: 0,
            scc: false,
            hwregs: [None; HWREGS],
            hwreg_pattern: 0,
            size,
            lanes: size.lanes(),
            v: Vgprs::new(vgprs as usize),
            a: Vgprs::new(agprs as usize),
            lds: Lds::zeroed(lds_size),
            ds_wave: Box::new(Wave::new(size)),
            ds_vdst: vec![[0; 4]; size.lanes()],
            ds_addr: vec![0; size.lanes()],
        }
    }

    /// Fills every register and the LDS with the pattern `p`, EXEC cleared, no scalar register
    /// holding a value: the state before the hardware writes the entry state.
    fn poison(&mut self, p: &mut Pattern) {
        self.s = std::array::from_fn(|_| p.word());
        self.ttmp = std::array::from_fn(|_| p.word());
        (self.s_def, self.t_def, self.vcc_def, self.m0_def) = (0, 0, false, false);
        self.undefined.set(None);
        self.vcc = p.next();
        self.m0 = p.word();
        self.exec = 0;
        self.scc = p.word() & 1 == 1;
        self.hwregs = [None; HWREGS];
        self.hwreg_pattern = p.word();
        self.v.poison(p);
        self.a.poison(p);
        p.fill(self.lds.bytes_mut());
    }

    /// Writes the entry state `prog`'s target delivers to workgroup `wg` (ids y and z are 0: the
    /// launches are one-dimensional), or the `wrong` one a test asks for.
    fn deliver(&mut self, prog: &Program, wg: u32, kernarg: u64, wrong: Option<WrongEntry>) {
        let d = &prog.delivery;
        if let Some(k) = d.kernarg {
            self.s[k as usize] = kernarg as u32;
            self.s[k as usize + 1] = (kernarg >> 32) as u32;
            self.s_def |= 3 << k;
        }
        for (dim, slot) in d.workgroup_ids.iter().enumerate() {
            let Some(slot) = slot else { continue };
            let id = if dim == 0 && wrong != Some(WrongEntry::WorkgroupId) {
                wg
            } else {
                0
            };
            match slot.reg {
                Operand::Sgpr(n) => {
                    self.s[n as usize] = slot.place(self.s[n as usize], id);
                    self.s_def |= 1 << n;
                }
                Operand::Ttmp(n) => {
                    self.ttmp[n as usize] = slot.place(self.ttmp[n as usize], id);
                    self.t_def |= 1 << n;
                }
                other => unreachable!("workgroup ids arrive in scalar registers, not {other}"),
            }
        }
        let dims = usize::from(prog.desc.request.workitem_dims);
        for (dim, slot) in d.workitem_ids.iter().enumerate().take(dims + 1) {
            let Operand::Vgpr(n) = slot.reg else {
                unreachable!("work-item ids arrive in VGPRs")
            };
            if let Some(row) = self.v.get_mut(n as usize) {
                for (lane, x) in row.iter_mut().enumerate() {
                    *x = slot.place(*x, if dim == 0 { lane as u32 } else { 0 });
                }
            }
        }
        // Where workgroups may come in clusters: the place trap temporary holds a value (a
        // pattern: the launches have no clusters, so nothing in it names the workgroup) and the
        // dispatch's cluster field reads zero, the rest of its register a pattern.
        if let Some(c) = d.clusters {
            self.t_def |= 1 << c.place_ttmp;
            let (id, offset, size) = c.dispatch_field;
            self.hwregs[usize::from(id)] = Some(self.hwreg_pattern & !field_mask(offset, size));
        }
        let lanes = match wrong {
            Some(WrongEntry::Wave) => WaveSize::Wave32.lanes(),
            _ => self.lanes,
        };
        self.exec = ds_kernels::entry::exec(self.size, lanes);
    }

    /// `s_getreg_b32`'s field of a hardware register, or why the emulated device has no value
    /// for it.
    fn getreg(&self, simm16: u16) -> Result<u32, String> {
        let (id, offset, size) = hwreg_field(simm16);
        match self.hwregs[usize::from(id)] {
            Some(v) => Ok((v & field_mask(offset, size)) >> offset),
            None => Err(format!(
                "reads hardware register {id}, which holds no value: the entry state defines \
                 none there and nothing wrote it"
            )),
        }
    }

    /// `s_setreg_imm32_b32`: `value` into a field of a hardware register (a register nothing
    /// defined keeps the pattern outside the field: only the field written is known).
    fn setreg(&mut self, simm16: u16, value: u32) {
        let (id, offset, size) = hwreg_field(simm16);
        let mask = field_mask(offset, size);
        let old = self.hwregs[usize::from(id)].unwrap_or(self.hwreg_pattern);
        self.hwregs[usize::from(id)] = Some(old & !mask | value << offset & mask);
    }

    /// Notes a read of a scalar register that holds no value (the first one is reported).
    fn check_defined(&self, op: Operand) {
        let defined = match op {
            Operand::Sgpr(n) => self.s_def >> n & 1 == 1,
            Operand::Ttmp(n) => self.t_def >> n & 1 == 1,
            Operand::VccLo | Operand::VccHi => self.vcc_def,
            Operand::M0 => self.m0_def,
            _ => true,
        };
        if !defined && self.undefined.get().is_none() {
            self.undefined.set(Some(op));
        }
    }

    fn sread(&self, op: Operand) -> u32 {
        self.check_defined(op);
        match op {
            Operand::Sgpr(n) => self.s[n as usize],
            Operand::Ttmp(n) => self.ttmp[n as usize % TTMPS],
            Operand::VccLo => self.vcc as u32,
            Operand::VccHi => (self.vcc >> 32) as u32,
            Operand::M0 => self.m0,
            Operand::ExecLo => self.exec as u32,
            Operand::ExecHi => (self.exec >> 32) as u32,
            Operand::Null | Operand::Vgpr(_) => 0,
            c => c.constant().unwrap_or(0),
        }
    }

    fn sread64(&self, op: Operand) -> u64 {
        match op {
            Operand::Sgpr(n) => {
                self.check_defined(op);
                self.check_defined(Operand::Sgpr(n + 1));
                let n = n as usize;
                self.s[n] as u64 | (self.s.get(n + 1).copied().unwrap_or(0) as u64) << 32
            }
            Operand::VccLo => {
                self.check_defined(op);
                self.vcc
            }
            Operand::ExecLo => self.exec,
            Operand::Int(v) => v as i64 as u64,
            other => self.sread(other) as u64,
        }
    }

    fn swrite(&mut self, op: Operand, value: u32) -> Result<(), String> {
        match op {
            Operand::Sgpr(n) => {
                self.s[n as usize] = value;
                self.s_def |= 1 << n;
            }
            Operand::VccLo => {
                self.vcc = (self.vcc & !0xffff_ffff) | value as u64;
                self.vcc_def = true;
            }
            Operand::VccHi => {
                self.vcc = (self.vcc & 0xffff_ffff) | (value as u64) << 32;
                self.vcc_def = true;
            }
            Operand::M0 => {
                self.m0 = value;
                self.m0_def = true;
            }
            Operand::ExecLo => self.exec = (self.exec & !0xffff_ffff) | value as u64,
            Operand::ExecHi => self.exec = (self.exec & 0xffff_ffff) | (value as u64) << 32,
            Operand::Null => {}
            other => return Err(format!("{other:?} is not a scalar destination")),
        }
        Ok(())
    }

    fn swrite64(&mut self, op: Operand, value: u64) -> Result<(), String> {
        match op {
            Operand::Sgpr(n) if (n as usize) + 1 < SGPRS => {
                self.s[n as usize] = value as u32;
                self.s[n as usize + 1] = (value >> 32) as u32;
                self.s_def |= 3 << n;
                Ok(())
            }
            Operand::VccLo => {
                self.vcc = value;
                self.vcc_def = true;
                Ok(())
            }
            Operand::ExecLo => {
                self.exec = value;
                Ok(())
            }
            Operand::Null => Ok(()),
            other => Err(format!("{other:?} is not a 64-bit scalar destination")),
        }
    }

    fn vreg(&self, n: u8, what: &str) -> Result<&[u32; WIDTH], String> {
        self.v.get(n as usize).ok_or_else(|| {
            format!(
                "{what} v{n} is past the {} VGPRs the descriptor allocates",
                self.v.len()
            )
        })
    }

    fn vreg_mut(&mut self, n: u8) -> Result<&mut [u32; WIDTH], String> {
        let count = self.v.len();
        self.v.get_mut(n as usize).ok_or_else(|| {
            format!("destination v{n} is past the {count} VGPRs the descriptor allocates")
        })
    }

    /// A vector source: the VGPR's lanes, or a scalar value broadcast.
    fn vsrc(&self, op: Operand) -> Result<[u32; WIDTH], String> {
        match op {
            Operand::Vgpr(n) => self.vreg(n, "source").copied(),
            s => Ok([self.sread(s); WIDTH]),
        }
    }

    /// Writes `f(lane)` into `v[vdst]` for every active lane.
    #[inline(always)]
    fn vwrite(&mut self, vdst: u8, f: impl Fn(usize) -> u32) -> Result<(), String> {
        let (exec, lanes) = (self.live_exec(), self.lanes);
        let full = exec == self.size.full_exec();
        let dst = self.vreg_mut(vdst)?;
        if full {
            // Every lane (the usual case): one straight loop.
            for (lane, d) in dst[..lanes].iter_mut().enumerate() {
                *d = f(lane);
            }
            return Ok(());
        }
        for (lane, d) in dst.iter_mut().enumerate().take(lanes) {
            if exec >> lane & 1 == 1 {
                *d = f(lane);
            }
        }
        Ok(())
    }

    /// EXEC as the wave's lanes see it (wave32: EXEC_LO only).
    fn live_exec(&self) -> u64 {
        self.exec & self.size.full_exec()
    }

    /// Runs workgroup `wg` of `prog` to `s_endpgm`, from the entry state over a pattern seeded
    /// by the launch's seed and `wg`.
    pub(super) fn run(
        &mut self,
        prog: &Program,
        wg: u32,
        kernarg: u64,
        mem: &Memory,
        run: &Run,
    ) -> Result<(), String> {
        let (step_limit, quirks) = (run.step_limit, run.quirks);
        self.poison(&mut Pattern(mix(run.seed, u64::from(wg))));
        self.deliver(prog, wg, kernarg, quirks.wrong_entry);
        let mut pc = prog.entry;
        let mut steps = 0u64;
        loop {
            steps += 1;
            if steps > step_limit {
                return Err(format!(
                    "workgroup {wg} ran {step_limit} instructions without reaching s_endpgm (pc {pc:#x}); a runaway loop?"
                ));
            }
            let (inst, len) = prog.code.at(pc)?;
            let next = pc + len as u64;
            let flow = self.step(&inst, pc, mem, prog, quirks);
            if let Some(reg) = self.undefined.take() {
                return Err(format!(
                    "workgroup {wg}, pc {pc:#x} (`{}`): reads {reg}, which holds no value: \
                     nothing wrote it and the {} {} entry state does not define it (it defines {})",
                    inst.text(prog.target.generation),
                    prog.target,
                    self.size,
                    prog.delivery.describe(&prog.desc.request)
                ));
            }
            match flow {
                Ok(Flow::Next) => pc = next,
                Ok(Flow::Jump(to)) => pc = to,
                Ok(Flow::End) => return Ok(()),
                Err(e) => {
                    let inst = inst.text(prog.target.generation);
                    return Err(format!("workgroup {wg}, pc {pc:#x} (`{inst}`): {e}"));
                }
            }
        }
    }

    /// Executes one instruction.
    fn step(
        &mut self,
        inst: &Inst,
        pc: u64,
        mem: &Memory,
        prog: &Program,
        quirks: &Quirks,
    ) -> Result<Flow, String> {
        match *inst {
            Inst::Sop1 { op, sdst, src0 } => match op {
                Sop1Op::MovB32 => self.swrite(sdst, self.sread(src0))?,
                Sop1Op::MovB64 => self.swrite64(sdst, self.sread64(src0))?,
                Sop1Op::NotB32 => {
                    let r = !self.sread(src0);
                    self.scc = r != 0;
                    self.swrite(sdst, r)?;
                }
                Sop1Op::AndSaveexecB32 => {
                    let old = self.exec as u32;
                    let new = self.sread(src0) & old;
                    self.exec = (self.exec & !0xffff_ffff) | new as u64;
                    self.scc = new != 0;
                    self.swrite(sdst, old)?;
                }
                Sop1Op::AndSaveexecB64 => {
                    let old = self.exec;
                    self.exec &= self.sread64(src0);
                    self.scc = self.exec != 0;
                    self.swrite64(sdst, old)?;
                }
            },
            Inst::Sop2 {
                op: Sop2Op::OrB64,
                sdst,
                src0,
                src1,
            } => {
                let r = self.sread64(src0) | self.sread64(src1);
                self.scc = r != 0;
                self.swrite64(sdst, r)?;
            }
            Inst::Sop2 {
                op,
                sdst,
                src0,
                src1,
            } => {
                let (a, b) = (self.sread(src0), self.sread(src1));
                let r = match op {
                    Sop2Op::AddU32 => {
                        let (r, c) = a.overflowing_add(b);
                        self.scc = c;
                        r
                    }
                    Sop2Op::SubU32 => {
                        let (r, c) = a.overflowing_sub(b);
                        self.scc = c;
                        r
                    }
                    Sop2Op::AddI32 => {
                        let (r, o) = (a as i32).overflowing_add(b as i32);
                        self.scc = o;
                        r as u32
                    }
                    Sop2Op::SubI32 => {
                        let (r, o) = (a as i32).overflowing_sub(b as i32);
                        self.scc = o;
                        r as u32
                    }
                    Sop2Op::AddcU32 => {
                        let wide = a as u64 + b as u64 + self.scc as u64;
                        self.scc = wide >> 32 != 0;
                        wide as u32
                    }
                    Sop2Op::SubbU32 => {
                        let wide = (a as u64).wrapping_sub(b as u64 + self.scc as u64);
                        self.scc = (b as u64 + self.scc as u64) > a as u64;
                        wide as u32
                    }
                    Sop2Op::LshlB32 => {
                        let r = a << (b & 31);
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::LshrB32 => {
                        let r = a >> (b & 31);
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::AndB32 => {
                        let r = a & b;
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::OrB32 => {
                        let r = a | b;
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::XorB32 => {
                        let r = a ^ b;
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::MulI32 => (a as i32).wrapping_mul(b as i32) as u32,
                    Sop2Op::BfeU32 => {
                        // src1: the field's offset [4:0] and width [22:16].
                        let width = (b >> 16 & 0x7f).min(32);
                        let r = ((u64::from(a) >> (b & 31)) & ((1u64 << width) - 1)) as u32;
                        self.scc = r != 0;
                        r
                    }
                    Sop2Op::CselectB32 => {
                        if self.scc {
                            a
                        } else {
                            b
                        }
                    }
                    Sop2Op::OrB64 => unreachable!("64-bit, handled above"),
                };
                self.swrite(sdst, r)?;
            }
            Inst::Sopk { op, sdst, simm16 } => match op {
                SopkOp::MovkI32 => self.swrite(sdst, sext16(simm16))?,
                SopkOp::AddkI32 => {
                    let (r, o) = (self.sread(sdst) as i32).overflowing_add(sext16(simm16) as i32);
                    self.scc = o;
                    self.swrite(sdst, r as u32)?;
                }
                // The emulator finishes every memory access in order: waits are no-ops (the
                // count register, `null` in the template, is only read).
                SopkOp::WaitcntVscnt => {}
                SopkOp::GetregB32 => {
                    let v = self.getreg(simm16)?;
                    self.swrite(sdst, v)?;
                }
                SopkOp::SetregImm32B32 => {
                    let v = sdst
                        .constant()
                        .ok_or("s_setreg_imm32_b32 without its immediate")?;
                    self.setreg(simm16, v);
                }
            },
            Inst::Sopc { op, src0, src1 } => {
                let (a, b) = (self.sread(src0), self.sread(src1));
                self.scc = match op {
                    SopcOp::CmpEqU32 => a == b,
                    SopcOp::CmpLgU32 => a != b,
                    SopcOp::CmpGtU32 => a > b,
                    SopcOp::CmpLtU32 => a < b,
                };
            }
            Inst::Sopp { op, .. } => {
                let taken = match op {
                    // The emulator finishes every memory access in order: waits are no-ops.
                    SoppOp::Nop
                    | SoppOp::Waitcnt
                    | SoppOp::WaitLoadcnt
                    | SoppOp::WaitStorecnt
                    | SoppOp::WaitDscnt
                    | SoppOp::WaitKmcnt
                    | SoppOp::WaitAsynccnt
                    | SoppOp::WaitcntDepctr => false,
                    SoppOp::Endpgm => return Ok(Flow::End),
                    SoppOp::Branch => true,
                    SoppOp::CbranchScc0 => !self.scc,
                    SoppOp::CbranchScc1 => self.scc,
                    SoppOp::CbranchVccz => self.vcc & self.size.full_exec() == 0,
                    SoppOp::CbranchVccnz => self.vcc & self.size.full_exec() != 0,
                    SoppOp::CbranchExecz => self.live_exec() == 0,
                    SoppOp::CbranchExecnz => self.live_exec() != 0,
                };
                if taken {
                    let to = inst.branch_target(pc).ok_or("branch without a target")?;
                    return Ok(Flow::Jump(to));
                }
            }
            Inst::Smem {
                op,
                sdata,
                sbase,
                offset,
                soffset,
            } => {
                let n = op.dwords() as usize;
                let base = self.sread64(Operand::Sgpr(sbase));
                let extra = soffset.map_or(0, |s| u64::from(self.sread(Operand::Sgpr(s))));
                let addr = base.wrapping_add(offset as i64 as u64).wrapping_add(extra) & !3;
                let dst = self
                    .s
                    .get_mut(sdata as usize..sdata as usize + n)
                    .ok_or_else(|| format!("s[{sdata}:{}] is past s105", sdata as usize + n - 1))?;
                mem.read(addr, dst, op.name()).map_err(|e| e.0)?;
                self.s_def |= ((1u128 << n) - 1) << sdata;
                let _: SmemOp = op;
            }
            Inst::Vop1 { op, vdst, src0 } => {
                let a = self.vsrc(src0)?;
                match op {
                    Vop1Op::MovB32 => self.vwrite(vdst, |l| a[l])?,
                    Vop1Op::NotB32 => self.vwrite(vdst, |l| !a[l])?,
                }
            }
            Inst::Vop2 {
                op,
                vdst,
                src0,
                vsrc1,
            } => {
                let a = self.vsrc(src0)?;
                let b = *self.vreg(vsrc1, "source")?;
                match op {
                    Vop2Op::MulU32U24 => {
                        self.vwrite(vdst, |l| (a[l] & 0xff_ffff) * (b[l] & 0xff_ffff))?
                    }
                    Vop2Op::LshlrevB32 => self.vwrite(vdst, |l| b[l] << (a[l] & 31))?,
                    Vop2Op::LshrrevB32 => self.vwrite(vdst, |l| b[l] >> (a[l] & 31))?,
                    Vop2Op::AndB32 => self.vwrite(vdst, |l| a[l] & b[l])?,
                    Vop2Op::OrB32 => self.vwrite(vdst, |l| a[l] | b[l])?,
                    Vop2Op::XorB32 => self.vwrite(vdst, |l| a[l] ^ b[l])?,
                    Vop2Op::AddNcU32 => self.vwrite(vdst, |l| a[l].wrapping_add(b[l]))?,
                    Vop2Op::SubNcU32 => self.vwrite(vdst, |l| a[l].wrapping_sub(b[l]))?,
                }
            }
            Inst::Vop3 { op, vdst, src } => {
                let a = self.vsrc(src[0])?;
                let b = if op.sources() > 1 {
                    self.vsrc(src[1])?
                } else {
                    [0; WIDTH]
                };
                let c = if op.sources() > 2 {
                    self.vsrc(src[2])?
                } else {
                    [0; WIDTH]
                };
                match op {
                    Vop3Op::MadU32U24 => self.vwrite(vdst, |l| {
                        ((a[l] & 0xff_ffff) * (b[l] & 0xff_ffff)).wrapping_add(c[l])
                    })?,
                    Vop3Op::LshlAddU32 => {
                        self.vwrite(vdst, |l| (a[l] << (b[l] & 31)).wrapping_add(c[l]))?
                    }
                    Vop3Op::Add3U32 => {
                        self.vwrite(vdst, |l| a[l].wrapping_add(b[l]).wrapping_add(c[l]))?
                    }
                    Vop3Op::LshlOrB32 => self.vwrite(vdst, |l| (a[l] << (b[l] & 31)) | c[l])?,
                    Vop3Op::AndOrB32 => self.vwrite(vdst, |l| (a[l] & b[l]) | c[l])?,
                    Vop3Op::LshlrevB32E64 => self.vwrite(vdst, |l| b[l] << (a[l] & 31))?,
                    Vop3Op::AndB32E64 => self.vwrite(vdst, |l| a[l] & b[l])?,
                    Vop3Op::AddNcU32E64 => self.vwrite(vdst, |l| a[l].wrapping_add(b[l]))?,
                    Vop3Op::MovB32E64 => self.vwrite(vdst, |l| a[l])?,
                }
            }
            Inst::Vopc { op, src0, vsrc1 } => {
                let a = self.vsrc(src0)?;
                let b = *self.vreg(vsrc1, "source")?;
                let exec = self.live_exec();
                let mut mask = 0u64;
                for l in 0..self.lanes {
                    let hit = match op {
                        VopcOp::CmpLtU32 => a[l] < b[l],
                        VopcOp::CmpEqU32 => a[l] == b[l],
                        VopcOp::CmpGtU32 => a[l] > b[l],
                        VopcOp::CmpNeU32 => a[l] != b[l],
                    };
                    mask |= u64::from(hit && exec >> l & 1 == 1) << l;
                }
                // VOPC writes every lane's bit; inactive lanes get 0 (wave32 uses VCC_LO only).
                let full = self.size.full_exec();
                self.vcc = (self.vcc & !full) | mask;
            }
            Inst::Global {
                op,
                vdata,
                vaddr,
                saddr,
                offset,
            } => self.global(op, vdata, vaddr, saddr, offset, mem)?,
            Inst::Ds(ds) => self.ds(&ds, prog, quirks)?,
            Inst::Acc(m) => self.acc_move(m)?,
        }
        Ok(Flow::Next)
    }

    #[inline(never)]
    fn global(
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
        let lo = *self.vreg(vaddr, "address")?;
        let hi = match saddr {
            Some(_) => [0; WIDTH],
            None => *self.vreg(vaddr + 1, "address")?,
        };
        let base = saddr.map_or(0, |s| self.sread64(Operand::Sgpr(s)));
        if vdata as usize + n > self.v.len() {
            return Err(format!(
                "v[{vdata}:{}] is past the {} VGPRs",
                vdata as usize + n - 1,
                self.v.len()
            ));
        }
        let v = vdata as usize;
        let lanes = self.lanes;
        let mut addrs = [0u64; WIDTH];
        for (a, (&lo, &hi)) in addrs[..lanes].iter_mut().zip(lo.iter().zip(&hi)) {
            *a = base
                .wrapping_add(lo as u64 | (hi as u64) << 32)
                .wrapping_add(offset as i64 as u64);
        }
        // The usual case first: every active lane's access lies in the region of the first
        // active lane's, so the region is found once and each lane is a bounds check (all
        // lanes checked before any is accessed, so a fault takes the general path below).
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
                if exec == self.size.full_exec() {
                    addrs[..lanes].iter().all(|&a| fits(a))
                } else {
                    (addrs[..lanes].iter().enumerate()).all(|(l, &a)| exec >> l & 1 == 0 || fits(a))
                }
            });
        if let Some((rbase, words)) = fast {
            // Lane after lane, as the general path below.
            let rows = self.v.rows_mut(v, n);
            let mut e = exec;
            while e != 0 {
                let lane = e.trailing_zeros() as usize;
                e &= e - 1;
                let at = (addrs[lane].wrapping_sub(rbase) / 4) as usize;
                let cells = &words[at..at + n];
                if op.is_store() {
                    for (row, w) in rows.iter().zip(cells) {
                        w.store(row[lane], Relaxed);
                    }
                } else {
                    for (row, w) in rows.iter_mut().zip(cells) {
                        row[lane] = w.load(Relaxed);
                    }
                }
            }
            return Ok(());
        }
        let addr_of = |lane: usize| addrs[lane];
        let mut hint = usize::MAX;
        for lane in (0..self.lanes).filter(|l| exec >> l & 1 == 1) {
            let addr = addr_of(lane);
            let mut words = [0u32; 4];
            if op.is_store() {
                for (k, w) in words[..n].iter_mut().enumerate() {
                    *w = self.v[v + k][lane];
                }
                mem.write_near(&mut hint, addr, &words[..n], op.name())
                    .map_err(|e| format!("lane {lane}: {}", e.0))?;
            } else {
                mem.read_near(&mut hint, addr, &mut words[..n], op.name())
                    .map_err(|e| format!("lane {lane}: {}", e.0))?;
                for (k, &w) in words[..n].iter().enumerate() {
                    self.v[v + k][lane] = w;
                }
            }
        }
        Ok(())
    }

    /// A DS instruction through the reference model: gather the operand registers into a
    /// [`Wave`], execute, write back vdst (and addr for the ops that update it).
    #[inline(never)]
    fn ds(&mut self, inst: &DsInst, prog: &Program, quirks: &Quirks) -> Result<(), String> {
        let info = inst.info();
        let ops = info.operands;
        // With the acc bit, data and vdst are AccVGPRs (a broken device ignores it).
        let in_acc = inst.acc && !quirks.ignore_acc;
        for f in Field::ALL.into_iter().filter(|&f| ops.dwords(f) > 0) {
            let (file, name) = if in_acc && f != Field::Addr {
                (&self.a, "AccVGPRs")
            } else {
                (&self.v, "VGPRs")
            };
            if inst.reg(f) as usize + ops.dwords(f) as usize > file.len() {
                return Err(format!(
                    "{} uses {name} past the {} the descriptor allocates",
                    inst.text(prog.target.generation),
                    file.len()
                ));
            }
        }
        let regs = if in_acc { &self.a } else { &self.v };
        let n = self.lanes;
        let exec = self.live_exec();
        let wave = &mut *self.ds_wave;
        wave.exec = exec;
        wave.m0 = self.m0;
        let (vdst, addr) = (&mut self.ds_vdst, &mut self.ds_addr);
        // Register by register (each a row of lanes); words an operand does not have keep
        // whatever they held.
        if ops.addr > 0 {
            let r = &self.v[inst.addr as usize];
            for (l, &a) in wave.lanes.iter_mut().zip(r) {
                l.addr = a;
            }
        }
        for w in 0..ops.data0 as usize {
            let r = &regs[inst.data0 as usize + w];
            for (l, &d) in wave.lanes.iter_mut().zip(r) {
                l.data0[w] = d;
            }
        }
        for w in 0..ops.data1 as usize {
            let r = &regs[inst.data1 as usize + w];
            for (l, &d) in wave.lanes.iter_mut().zip(r) {
                l.data1[w] = d;
            }
        }
        for w in 0..ops.vdst as usize {
            let r = &regs[inst.vdst as usize + w];
            for (d, &x) in vdst.iter_mut().zip(r) {
                d[w] = x;
            }
        }
        for ((l, d), a) in wave.lanes.iter_mut().zip(vdst.iter()).zip(addr.iter_mut()) {
            l.vdst = *d;
            *a = l.addr;
        }
        let mode = prog.desc.mode;
        // The rules are the target's (a broken device's: another generation's).
        let target = quirks
            .rules_of
            .and_then(|g| g.targets().next())
            .unwrap_or(prog.target);
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
            for lane in (0..n).rev().filter(|&l| exec >> l & 1 == 1) {
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
            let r = &mut regs[inst.vdst as usize + w];
            for (x, d) in r.iter_mut().zip(vdst.iter()) {
                *x = d[w];
            }
        }
        if info.writes_addr() {
            self.v[inst.addr as usize][..n].copy_from_slice(addr);
        }
        Ok(())
    }
}

impl WaveState {
    /// `v_accvgpr_write_b32` / `v_accvgpr_read_b32` over the active lanes.
    fn acc_move(&mut self, m: AccMove) -> Result<(), String> {
        let (a, v) = (self.a.len(), self.v.len());
        let (src_file, dst_file, src_len, dst_len, src_name, dst_name) = match m.op {
            AccOp::Write => (&self.v, &self.a, v, a, 'v', 'a'),
            AccOp::Read => (&self.a, &self.v, a, v, 'a', 'v'),
        };
        let _ = dst_file;
        if usize::from(m.src) >= src_len {
            return Err(format!(
                "source {src_name}{} is past the {src_len} registers of its file the descriptor allocates",
                m.src
            ));
        }
        if usize::from(m.dst) >= dst_len {
            return Err(format!(
                "destination {dst_name}{} is past the {dst_len} registers of its file the descriptor allocates",
                m.dst
            ));
        }
        let src = src_file[usize::from(m.src)];
        let exec = self.live_exec();
        let dst = match m.op {
            AccOp::Write => &mut self.a[usize::from(m.dst)],
            AccOp::Read => &mut self.v[usize::from(m.dst)],
        };
        for (lane, (d, s)) in dst.iter_mut().zip(src).enumerate().take(self.lanes) {
            if exec >> lane & 1 == 1 {
                *d = s;
            }
        }
        Ok(())
    }
}

/// Where execution goes after an instruction.
enum Flow {
    Next,
    Jump(u64),
    End,
}

#[cfg(test)]
#[path = "exec_acc_tests.rs"]
mod acc_tests;
