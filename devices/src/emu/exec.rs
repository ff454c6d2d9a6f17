//! One wave (wave32 or wave64) of the emulated device: the register state and the semantics of
//! every non-DS instruction the kernel template uses (RDNA3 ISA guide, chapters "Scalar ALU
//! Operations", "Vector ALU Operations", "Scalar Memory Operations", "Global, Scratch and Flat
//! Address Space" and the per-opcode descriptions of SOP1/SOP2/SOPK/SOPC/SOPP/SMEM/VOP1/VOP2/
//! VOP3/VOPC/GLOBAL), walked over the code as [`Code`] decoded it at load. DS instructions,
//! global memory and AccVGPR moves are the `lanes` module's, the ALU ops' arithmetic the `alu`
//! module's. A wave64 executes each instruction over all 64 lanes at once under a 64-bit EXEC;
//! VOPC writes the whole VCC (wave32: VCC_LO only).
//!
//! A workgroup starts from the target's entry state ([`ds_kernels::entry::Delivery`]) and a
//! pattern everywhere else, seeded per launch and workgroup: the vector registers through their
//! generation stamps ([`super::regs`]), the LDS as a per-launch image mixed with a per-workgroup
//! key, VCC, M0 and SCC drawn fresh. The wave remembers which scalar registers hold a value (one
//! bit per slot); an instruction whose reads (a mask decided at load) include one that does not
//! fails before it runs, naming the register.

use super::code::Code;
use super::memory::Memory;
use super::ops::{self, Cond, Kind, Op, D, D64, S, S64, SCALARS, V, VCC_LO};
use super::regs::{mix, File, Pattern};
use super::{Program, Run, WrongEntry};
use ds_isa::inst::{Operand, SopcOp, VopcOp};
use ds_reference::wave::{Lds, Wave, WaveSize};

/// Lanes a VGPR holds at most: the widest wave's.
pub(super) const WIDTH: usize = WaveSize::Wave64.lanes();

/// Salts of the pattern's streams: each file and the LDS its own.
const VGPR_SALT: u64 = 0x7667_7072;
const AGPR_SALT: u64 = 0x6167_7072;
const LDS_SALT: u64 = 0x6c64_7300;
const SCALAR_SALT: u64 = 0x7367_7072;

/// A wave's registers and its workgroup's LDS, reused from workgroup to workgroup and from
/// launch to launch (shaped for each program by [`WaveState::shape`]).
#[derive(Debug)]
pub struct WaveState {
    /// The scalar file: s0..s105, VCC, ttmp0..15, M0 (see [`ops::slot`]).
    pub(super) s: [u32; SCALARS],
    /// Bit n: slot n holds a value.
    pub(super) def: u128,
    pub(super) exec: u64,
    pub(super) scc: bool,
    /// The hardware registers `s_getreg_b32` reads and `s_setreg_imm32_b32` writes, by id: only
    /// those the entry state delivers (gfx12.5's cluster field, zero without clusters) or a
    /// setreg wrote hold a value; a read of any other stops the launch.
    hwregs: [Option<u32>; HWREGS],
    /// The pattern word the delivered hardware registers' other bits hold.
    hwreg_pattern: u32,
    /// The wave size (the descriptor's ENABLE_WAVEFRONT_SIZE32).
    pub(super) size: WaveSize,
    /// Lanes of `size`, and its full EXEC.
    pub(super) lanes: usize,
    pub(super) full: u64,
    pub(super) v: File,
    /// AccVGPRs (targets with a unified register file: the descriptor's share after
    /// ACCUM_OFFSET; none elsewhere).
    pub(super) a: File,
    pub(super) lds: Lds,
    /// The workgroup's generation (see [`super::regs`]) and pattern seed.
    pub(super) generation: u32,
    pub(super) seed: u64,
    /// The launch's LDS pattern (the launch seed it was drawn for, its words).
    lds_pattern: (u64, Vec<u64>),
    /// Scratch rows of a VALU op (three sources, the result), reused across instructions.
    pub(super) scratch: Box<[[u32; WIDTH]; 4]>,
    /// Scratch for DS operands, reused across instructions.
    pub(super) ds_wave: Box<Wave>,
    pub(super) ds_vdst: Vec<[u32; 4]>,
    pub(super) ds_addr: Vec<u32>,
}

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

/// Where execution goes after an instruction.
pub(super) enum Flow {
    Next,
    Jump(u32),
    End,
}

impl WaveState {
    /// A wave of `size` with `vgprs` VGPRs, `agprs` AccVGPRs and an LDS of `lds_size` bytes
    /// (what they hold is set for each workgroup by `run`).
    pub fn with_agprs(vgprs: u32, agprs: u32, lds_size: u32, size: WaveSize) -> WaveState {
        let mut w = WaveState {
            s: [0; SCALARS],
            def: 0,
            exec: 0,
            scc: false,
            hwregs: [None; HWREGS],
            hwreg_pattern: 0,
            size,
            lanes: size.lanes(),
            full: size.full_exec(),
            v: File::new(VGPR_SALT),
            a: File::new(AGPR_SALT),
            lds: Lds::zeroed(lds_size),
            generation: 0,
            seed: 0,
            lds_pattern: (0, Vec::new()),
            scratch: Box::new([[0; WIDTH]; 4]),
            ds_wave: Box::new(Wave::new(size)),
            ds_vdst: vec![[0; 4]; size.lanes()],
            ds_addr: vec![0; size.lanes()],
        };
        w.shape(vgprs, agprs, lds_size, size);
        w.next_generation();
        w
    }

    /// Shapes the files and the LDS for a program (a no-op for the shape it has).
    pub fn shape(&mut self, vgprs: u32, agprs: u32, lds_size: u32, size: WaveSize) {
        let same = self.size == size
            && self.v.len() == vgprs as usize
            && self.a.len() == agprs as usize
            && self.lds.size() == lds_size.next_multiple_of(4);
        if same {
            return;
        }
        self.v.shape(vgprs as usize, size);
        self.a.shape(agprs as usize, size);
        if self.lds.size() != lds_size.next_multiple_of(4) {
            self.lds = Lds::zeroed(lds_size);
            self.lds_pattern = (0, Vec::new());
        }
        if self.size != size {
            self.size = size;
            self.lanes = size.lanes();
            self.full = size.full_exec();
            *self.ds_wave = Wave::new(size);
            self.ds_vdst = vec![[0; 4]; size.lanes()];
            self.ds_addr = vec![0; size.lanes()];
        }
    }

    /// Makes every vector register undefined (a new generation).
    fn next_generation(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.v.forget();
            self.a.forget();
            self.generation = 1;
        }
    }

    /// The state before the hardware writes the entry state: no register holds a value, every
    /// one reads as the pattern of `seed`, EXEC is clear.
    fn poison(&mut self, launch_seed: u64, seed: u64) {
        self.next_generation();
        self.seed = seed;
        self.def = 0;
        let mut p = Pattern(mix(seed, SCALAR_SALT));
        let vcc = p.next();
        self.s[usize::from(VCC_LO)] = vcc as u32;
        self.s[usize::from(VCC_LO) + 1] = (vcc >> 32) as u32;
        self.s[usize::from(ops::M0)] = p.word();
        self.scc = p.word() & 1 == 1;
        self.hwregs = [None; HWREGS];
        self.hwreg_pattern = p.word();
        self.exec = 0;
        // The LDS: the launch's pattern, each workgroup's own mix of it.
        let bytes = self.lds.bytes_mut();
        if self.lds_pattern.0 != launch_seed || self.lds_pattern.1.is_empty() {
            let mut lp = Pattern(mix(launch_seed, LDS_SALT));
            let words = bytes.len().div_ceil(8);
            self.lds_pattern = (launch_seed, (0..words).map(|_| lp.next()).collect());
        }
        let key = mix(seed, LDS_SALT);
        let mut chunks = bytes.chunks_exact_mut(8);
        let pattern = &self.lds_pattern.1;
        for (c, &w) in (&mut chunks).zip(pattern) {
            c.copy_from_slice(&(w ^ key).to_le_bytes());
        }
        let tail = chunks.into_remainder();
        let n = tail.len();
        if n > 0 {
            let w = pattern[pattern.len() - 1] ^ key;
            tail.copy_from_slice(&w.to_le_bytes()[..n]);
        }
    }

    /// Writes the entry state `prog`'s target delivers to workgroup `wg` (ids y and z are 0: the
    /// launches are one-dimensional), or the `wrong` one a test asks for.
    fn deliver(&mut self, prog: &Program, wg: u32, kernarg: u64, wrong: Option<WrongEntry>) {
        let d = &prog.delivery;
        if let Some(k) = d.kernarg {
            self.s[k as usize] = kernarg as u32;
            self.s[k as usize + 1] = (kernarg >> 32) as u32;
            self.def |= 3 << k;
        }
        let mut p = Pattern(mix(self.seed, SCALAR_SALT + 1));
        for (dim, slot) in d.workgroup_ids.iter().enumerate() {
            let Some(slot) = slot else { continue };
            let id = if dim == 0 && wrong != Some(WrongEntry::WorkgroupId) {
                wg
            } else {
                0
            };
            let n = ops::slot(slot.reg)
                .unwrap_or_else(|| unreachable!("workgroup ids arrive in scalar registers"));
            // What the register held before (the pattern) keeps the bits the id does not use.
            let old = if self.def >> n & 1 == 1 {
                self.s[usize::from(n)]
            } else {
                p.word()
            };
            self.s[usize::from(n)] = slot.place(old, id);
            self.def |= 1 << n;
        }
        let dims = usize::from(prog.desc.request.workitem_dims);
        for (dim, slot) in d.workitem_ids.iter().enumerate().take(dims + 1) {
            let Operand::Vgpr(n) = slot.reg else {
                unreachable!("work-item ids arrive in VGPRs")
            };
            let n = usize::from(n);
            if n < self.v.len() {
                self.v.define(n, self.generation, self.seed);
                for (lane, x) in self.v.row_mut(n).iter_mut().enumerate() {
                    *x = slot.place(*x, if dim == 0 { lane as u32 } else { 0 });
                }
            }
        }
        // Where workgroups may come in clusters: the place trap temporary holds a value (a
        // pattern: the launches have no clusters, so nothing in it names the workgroup) and the
        // dispatch's cluster field reads zero, the rest of its register a pattern.
        if let Some(c) = d.clusters {
            let place = ops::TTMP0 + c.place_ttmp;
            self.s[usize::from(place)] = p.word();
            self.def |= 1 << place;
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
        let d = &prog.desc;
        self.shape(d.vgprs, prog.agprs, d.lds_size, d.wave_size());
        self.poison(run.seed, mix(run.seed, u64::from(wg)));
        self.deliver(prog, wg, kernarg, run.quirks.wrong_entry);
        let code = &*prog.code;
        let mut pc = code.entry as usize;
        let mut steps = 0u64;
        loop {
            steps += 1;
            if steps > run.step_limit {
                return Err(format!(
                    "workgroup {wg} ran {} instructions without reaching s_endpgm (pc {:#x}); a runaway loop?",
                    run.step_limit,
                    code.base.wrapping_add(4 * pc as u64)
                ));
            }
            let op = &code.ops[pc];
            if op.reads & !self.def != 0 {
                return Err(self.undefined(prog, wg, pc));
            }
            match self.step(op, mem, prog, run) {
                Ok(Flow::Next) => pc = op.next as usize,
                Ok(Flow::Jump(to)) => pc = to as usize,
                Ok(Flow::End) => return Ok(()),
                Err(e) => return Err(located(code, prog, wg, pc, e)),
            }
            self.def |= op.writes;
        }
    }

    /// The message for op `pc` reading a scalar register that holds no value.
    #[cold]
    fn undefined(&self, prog: &Program, wg: u32, pc: usize) -> String {
        let (inst, addr, _, reads) = prog.code.explain(pc).expect("an instruction reads");
        let reg = reads
            .iter()
            .find(|&&n| self.def >> n & 1 == 0)
            .map(|&n| ops::operand(n))
            .expect("an undefined read");
        format!(
            "workgroup {wg}, pc {:#x} (`{}`): reads {reg}, which holds no value: nothing wrote \
             it and the {} {} entry state does not define it (it defines {})",
            addr,
            inst.text(prog.target.generation),
            prog.target,
            self.size,
            prog.delivery.describe(&prog.desc.request)
        )
    }

    #[inline(always)]
    pub(super) fn read(&self, s: S) -> u32 {
        match s {
            S::Reg(n) => self.s[usize::from(n)],
            S::ExecLo => self.exec as u32,
            S::ExecHi => (self.exec >> 32) as u32,
            S::Imm(v) => v,
        }
    }

    #[inline(always)]
    fn read64(&self, s: S64) -> u64 {
        match s {
            S64::Pair(n) => {
                let n = usize::from(n);
                u64::from(self.s[n]) | u64::from(self.s[n + 1]) << 32
            }
            S64::Vcc => self.vcc(),
            S64::Exec => self.exec,
            S64::Imm(v) => v,
            S64::Lo(s) => u64::from(self.read(s)),
        }
    }

    #[inline(always)]
    fn write(&mut self, d: D, value: u32) {
        match d {
            D::Reg(n) => self.s[usize::from(n)] = value,
            D::ExecLo => self.exec = (self.exec & !0xffff_ffff) | u64::from(value),
            D::ExecHi => self.exec = (self.exec & 0xffff_ffff) | u64::from(value) << 32,
            D::Null => {}
        }
    }

    #[inline(always)]
    fn write64(&mut self, d: D64, value: u64) {
        match d {
            D64::Pair(n) => {
                self.s[usize::from(n)] = value as u32;
                self.s[usize::from(n) + 1] = (value >> 32) as u32;
            }
            D64::Vcc => self.set_vcc(value),
            D64::Exec => self.exec = value,
            D64::Null => {}
        }
    }

    pub(super) fn vcc(&self) -> u64 {
        let lo = usize::from(VCC_LO);
        u64::from(self.s[lo]) | u64::from(self.s[lo + 1]) << 32
    }

    fn set_vcc(&mut self, value: u64) {
        let lo = usize::from(VCC_LO);
        self.s[lo] = value as u32;
        self.s[lo + 1] = (value >> 32) as u32;
    }

    /// EXEC as the wave's lanes see it (wave32: EXEC_LO only).
    #[inline(always)]
    pub(super) fn live_exec(&self) -> u64 {
        self.exec & self.full
    }

    /// A vector source's lanes, into `out`.
    #[inline(always)]
    fn vsrc(&mut self, v: V, out: &mut [u32; WIDTH]) {
        match v {
            V::Row(n) => {
                let n = usize::from(n);
                self.v.define(n, self.generation, self.seed);
                out[..self.lanes].copy_from_slice(self.v.row(n));
            }
            V::S(s) => *out = [self.read(s); WIDTH],
        }
    }

    /// Executes one op.
    #[inline(always)]
    pub(super) fn step(
        &mut self,
        op: &Op,
        mem: &Memory,
        prog: &Program,
        run: &Run,
    ) -> Result<Flow, String> {
        match op.kind {
            Kind::Mov(d, a) => self.write(d, self.read(a)),
            Kind::Mov64(d, a) => self.write64(d, self.read64(a)),
            Kind::Not(d, a) => {
                let r = !self.read(a);
                self.scc = r != 0;
                self.write(d, r);
            }
            Kind::AndSaveexec(d, a) => {
                let old = self.exec as u32;
                let new = self.read(a) & old;
                self.exec = (self.exec & !0xffff_ffff) | u64::from(new);
                self.scc = new != 0;
                self.write(d, old);
            }
            Kind::AndSaveexec64(d, a) => {
                let old = self.exec;
                self.exec &= self.read64(a);
                self.scc = self.exec != 0;
                self.write64(d, old);
            }
            Kind::Or64(d, a, b) => {
                let r = self.read64(a) | self.read64(b);
                self.scc = r != 0;
                self.write64(d, r);
            }
            Kind::Sop2(op, d, a, b) => {
                let r = self.sop2(op, self.read(a), self.read(b));
                self.write(d, r);
            }
            Kind::Addk(d, a, imm) => {
                let (r, o) = (self.read(a) as i32).overflowing_add(imm as i32);
                self.scc = o;
                self.write(d, r as u32);
            }
            Kind::Sopc(op, a, b) => {
                let (a, b) = (self.read(a), self.read(b));
                self.scc = match op {
                    SopcOp::CmpEqU32 => a == b,
                    SopcOp::CmpLgU32 => a != b,
                    SopcOp::CmpGtU32 => a > b,
                    SopcOp::CmpLtU32 => a < b,
                };
            }
            Kind::Getreg(d, simm16) => {
                let v = self.getreg(simm16)?;
                self.write(d, v);
            }
            Kind::Setreg(simm16, value) => self.setreg(simm16, value),
            Kind::Nop => {}
            Kind::End => return Ok(Flow::End),
            Kind::Jump(to) => return Ok(Flow::Jump(to)),
            Kind::Branch(c, to) => {
                let taken = match c {
                    Cond::Scc0 => !self.scc,
                    Cond::Scc1 => self.scc,
                    Cond::Vccz => self.vcc() & self.full == 0,
                    Cond::Vccnz => self.vcc() & self.full != 0,
                    Cond::Execz => self.live_exec() == 0,
                    Cond::Execnz => self.live_exec() != 0,
                };
                if taken {
                    return Ok(Flow::Jump(to));
                }
            }
            Kind::Smem {
                op,
                sdata,
                sbase,
                offset,
                soffset,
            } => {
                let dwords = op.dwords();
                let base = self.read64(S64::Pair(sbase));
                let extra = soffset.map_or(0, |s| u64::from(self.s[usize::from(s)]));
                let addr = base.wrapping_add(offset as i64 as u64).wrapping_add(extra) & !3;
                let at = usize::from(sdata);
                let dst = &mut self.s[at..at + usize::from(dwords)];
                mem.read(addr, dst, op.name()).map_err(|e| e.0)?;
            }
            Kind::Valu(f, vdst, a, b, c) => self.valu(f, vdst, a, b, c),
            Kind::Vopc(op, a, b) => {
                let mut x = [0; WIDTH];
                self.vsrc(a, &mut x);
                let b = usize::from(b);
                self.v.define(b, self.generation, self.seed);
                let y = self.v.row(b);
                let exec = self.live_exec();
                let mut mask = 0u64;
                for (l, (&a, &b)) in x.iter().zip(y).enumerate() {
                    let hit = match op {
                        VopcOp::CmpLtU32 => a < b,
                        VopcOp::CmpEqU32 => a == b,
                        VopcOp::CmpGtU32 => a > b,
                        VopcOp::CmpNeU32 => a != b,
                    };
                    mask |= u64::from(hit && exec >> l & 1 == 1) << l;
                }
                // VOPC writes every lane's bit; inactive lanes get 0 (wave32 uses VCC_LO only).
                let vcc = (self.vcc() & !self.full) | mask;
                self.set_vcc(vcc);
            }
            Kind::Global {
                op,
                vdata,
                vaddr,
                saddr,
                offset,
            } => self.global(op, vdata, vaddr, saddr, offset, mem)?,
            Kind::Ds(ds, fits) => self.ds(&ds, fits, prog, run)?,
            Kind::Acc(m) => self.acc_move(m),
            // The message is the code's to give ([`located`]).
            Kind::Fail | Kind::Trap(..) => return Err(String::new()),
        }
        Ok(Flow::Next)
    }
}

/// An op's error with where it happened: the workgroup, the pc and the instruction (a message
/// about a position that holds no instruction stands alone).
#[cold]
fn located(code: &Code, prog: &Program, wg: u32, pc: usize, e: String) -> String {
    match code.explain(pc) {
        Ok((inst, addr, fail, _)) => format!(
            "workgroup {wg}, pc {addr:#x} (`{}`): {}",
            inst.text(prog.target.generation),
            fail.unwrap_or(e)
        ),
        Err(position) => position,
    }
}

#[cfg(test)]
#[path = "exec_acc_tests.rs"]
mod acc_tests;
