//! Operand resolution for [`super::code`]: one instruction of the kernel template's formats
//! becomes an [`Op`], its scalar operands slots of the wave's scalar file (the RDNA3 ISA guide's
//! "Scalar and vector operands" table: SGPRs, VCC, trap temporaries, M0; EXEC, `null` and
//! constants as what they read), its VGPRs checked against the descriptor's allocation, and the
//! first error it would give when executed decided now (in the order its operands are met).

use super::ops::{slot, Cond, Kind, Op, Valu, D, D64, S, S64, SGPRS, V, VCC_BITS, VCC_LO};
use ds_isa::ds::Field;
use ds_isa::inst::acc::AccOp;
use ds_isa::inst::{Inst, Operand, Sop1Op, Sop2Op, SopkOp, SoppOp, Vop1Op, Vop2Op, Vop3Op};

/// The bits a write of `slot` defines (either half of VCC defines both).
fn defines(slot: u8) -> u128 {
    if slot == VCC_LO || slot == VCC_LO + 1 {
        VCC_BITS
    } else {
        1 << slot
    }
}

/// Resolves one instruction's operands, collecting what it reads and writes.
pub struct Builder {
    /// The scalar slots it reads, in the order it reads them (the first undefined one is named).
    pub reads: Vec<u8>,
    writes: u128,
    vgprs: usize,
    agprs: usize,
    /// The first error the instruction gives, in the order its operands are met.
    pub fail: Option<String>,
}

impl Builder {
    /// A builder for a wave of `vgprs` VGPRs and `agprs` AccVGPRs.
    pub fn new(vgprs: u32, agprs: u32) -> Builder {
        Builder {
            reads: Vec::new(),
            writes: 0,
            vgprs: vgprs as usize,
            agprs: agprs as usize,
            fail: None,
        }
    }

    fn fail(&mut self, msg: String) {
        self.fail.get_or_insert(msg);
    }

    fn src(&mut self, op: Operand) -> S {
        match op {
            Operand::ExecLo => S::ExecLo,
            Operand::ExecHi => S::ExecHi,
            Operand::Null | Operand::Vgpr(_) => S::Imm(0),
            other => match slot(other) {
                Some(n) => {
                    self.reads.push(n);
                    S::Reg(n)
                }
                None => S::Imm(other.constant().unwrap_or(0)),
            },
        }
    }

    fn pair(&mut self, n: u8) -> u8 {
        if n + 1 >= SGPRS {
            self.fail(format!("s[{n}:{}] is past s{}", n + 1, SGPRS - 1));
        }
        self.reads.push(n);
        self.reads.push((n + 1).min(SGPRS - 1));
        n
    }

    fn src64(&mut self, op: Operand) -> S64 {
        match op {
            Operand::Sgpr(n) => S64::Pair(self.pair(n)),
            Operand::VccLo => {
                self.reads.push(VCC_LO);
                S64::Vcc
            }
            Operand::ExecLo => S64::Exec,
            Operand::Int(v) => S64::Imm(i64::from(v) as u64),
            other => S64::Lo(self.src(other)),
        }
    }

    fn dst(&mut self, op: Operand) -> D {
        match op {
            Operand::ExecLo => D::ExecLo,
            Operand::ExecHi => D::ExecHi,
            Operand::Null => D::Null,
            Operand::Ttmp(_) => self.no_dst(op, ""),
            other => match slot(other) {
                Some(n) => {
                    self.writes |= defines(n);
                    D::Reg(n)
                }
                None => self.no_dst(op, ""),
            },
        }
    }

    fn no_dst(&mut self, op: Operand, bits: &str) -> D {
        self.fail(format!("{op:?} is not a{bits} scalar destination"));
        D::Null
    }

    fn dst64(&mut self, op: Operand) -> D64 {
        match op {
            Operand::Sgpr(n) if n + 1 < SGPRS => {
                self.writes |= 3 << n;
                D64::Pair(n)
            }
            Operand::VccLo => {
                self.writes |= VCC_BITS;
                D64::Vcc
            }
            Operand::ExecLo => D64::Exec,
            Operand::Null => D64::Null,
            other => {
                self.no_dst(other, " 64-bit");
                D64::Null
            }
        }
    }

    fn row(&mut self, n: u8, what: &str) -> u8 {
        if usize::from(n) >= self.vgprs {
            self.fail(format!(
                "{what} v{n} is past the {} VGPRs the descriptor allocates",
                self.vgprs
            ));
        }
        n
    }

    fn vsrc(&mut self, op: Operand) -> V {
        match op {
            Operand::Vgpr(n) => V::Row(self.row(n, "source")),
            s => V::S(self.src(s)),
        }
    }

    fn valu(&mut self, op: Valu, vdst: u8, a: V, b: V, c: V) -> Kind {
        self.row(vdst, "destination");
        Kind::Valu(op, vdst, a, b, c)
    }

    /// The op `inst` (at byte address `pc`) is: its kind, what it reads and writes; a branch's
    /// target is the op index `index` gives its address. `next` is left 0.
    pub fn op(mut self, inst: &Inst, pc: u64, index: &mut impl FnMut(u64) -> u32) -> (Op, Self) {
        let kind = self.kind(inst, pc, index);
        let mut reads = 0u128;
        for &r in &self.reads {
            reads |= 1 << r;
        }
        let kind = if self.fail.is_some() {
            Kind::Fail
        } else {
            kind
        };
        let op = Op {
            kind,
            reads,
            writes: self.writes,
            next: 0,
        };
        (op, self)
    }

    fn kind(&mut self, inst: &Inst, pc: u64, index: &mut impl FnMut(u64) -> u32) -> Kind {
        let zero = V::S(S::Imm(0));
        match *inst {
            Inst::Sop1 { op, sdst, src0 } => match op {
                Sop1Op::MovB32 => {
                    let a = self.src(src0);
                    Kind::Mov(self.dst(sdst), a)
                }
                Sop1Op::MovB64 => {
                    let a = self.src64(src0);
                    Kind::Mov64(self.dst64(sdst), a)
                }
                Sop1Op::NotB32 => {
                    let a = self.src(src0);
                    Kind::Not(self.dst(sdst), a)
                }
                Sop1Op::AndSaveexecB32 => {
                    let a = self.src(src0);
                    Kind::AndSaveexec(self.dst(sdst), a)
                }
                Sop1Op::AndSaveexecB64 => {
                    let a = self.src64(src0);
                    Kind::AndSaveexec64(self.dst64(sdst), a)
                }
            },
            Inst::Sop2 {
                op: Sop2Op::OrB64,
                sdst,
                src0,
                src1,
            } => {
                let (a, b) = (self.src64(src0), self.src64(src1));
                Kind::Or64(self.dst64(sdst), a, b)
            }
            Inst::Sop2 {
                op,
                sdst,
                src0,
                src1,
            } => {
                let (a, b) = (self.src(src0), self.src(src1));
                Kind::Sop2(op, self.dst(sdst), a, b)
            }
            Inst::Sopk { op, sdst, simm16 } => {
                let imm = simm16 as i16 as i32 as u32;
                match op {
                    SopkOp::MovkI32 => Kind::Mov(self.dst(sdst), S::Imm(imm)),
                    SopkOp::AddkI32 => {
                        let a = self.src(sdst);
                        Kind::Addk(self.dst(sdst), a, imm)
                    }
                    SopkOp::WaitcntVscnt => Kind::Nop,
                    SopkOp::GetregB32 => Kind::Getreg(self.dst(sdst), simm16),
                    SopkOp::SetregImm32B32 => match sdst.constant() {
                        Some(v) => Kind::Setreg(simm16, v),
                        None => {
                            self.fail("s_setreg_imm32_b32 without its immediate".into());
                            Kind::Nop
                        }
                    },
                }
            }
            Inst::Sopc { op, src0, src1 } => {
                let (a, b) = (self.src(src0), self.src(src1));
                Kind::Sopc(op, a, b)
            }
            Inst::Sopp { op, .. } => {
                let cond = match op {
                    SoppOp::Nop
                    | SoppOp::Waitcnt
                    | SoppOp::WaitLoadcnt
                    | SoppOp::WaitStorecnt
                    | SoppOp::WaitDscnt
                    | SoppOp::WaitKmcnt
                    | SoppOp::WaitAsynccnt
                    | SoppOp::WaitcntDepctr => return Kind::Nop,
                    SoppOp::Endpgm => return Kind::End,
                    SoppOp::Branch => None,
                    SoppOp::CbranchScc0 => Some(Cond::Scc0),
                    SoppOp::CbranchScc1 => Some(Cond::Scc1),
                    SoppOp::CbranchVccz => Some(Cond::Vccz),
                    SoppOp::CbranchVccnz => Some(Cond::Vccnz),
                    SoppOp::CbranchExecz => Some(Cond::Execz),
                    SoppOp::CbranchExecnz => Some(Cond::Execnz),
                };
                let Some(to) = inst.branch_target(pc) else {
                    self.fail("branch without a target".into());
                    return Kind::Nop;
                };
                match cond {
                    None => Kind::Jump(index(to)),
                    Some(c) => Kind::Branch(c, index(to)),
                }
            }
            Inst::Smem {
                op,
                sdata,
                sbase,
                offset,
                soffset,
            } => {
                let dwords = op.dwords();
                self.pair(sbase);
                if let Some(s) = soffset {
                    self.src(Operand::Sgpr(s));
                }
                let end = usize::from(sdata) + usize::from(dwords);
                if end > usize::from(SGPRS) {
                    self.fail(format!("s[{sdata}:{}] is past s105", end - 1));
                } else {
                    self.writes |= ((1u128 << dwords) - 1) << sdata;
                }
                Kind::Smem {
                    op,
                    sdata,
                    sbase,
                    offset,
                    soffset,
                }
            }
            Inst::Vop1 { op, vdst, src0 } => {
                let a = self.vsrc(src0);
                let f = match op {
                    Vop1Op::MovB32 => Valu::Mov,
                    Vop1Op::NotB32 => Valu::Not,
                };
                self.valu(f, vdst, a, zero, zero)
            }
            Inst::Vop2 {
                op,
                vdst,
                src0,
                vsrc1,
            } => {
                let a = self.vsrc(src0);
                let b = V::Row(self.row(vsrc1, "source"));
                let f = match op {
                    Vop2Op::MulU32U24 => Valu::MulU24,
                    Vop2Op::LshlrevB32 => Valu::Lshlrev,
                    Vop2Op::LshrrevB32 => Valu::Lshrrev,
                    Vop2Op::AndB32 => Valu::And,
                    Vop2Op::OrB32 => Valu::Or,
                    Vop2Op::XorB32 => Valu::Xor,
                    Vop2Op::AddNcU32 => Valu::Add,
                    Vop2Op::SubNcU32 => Valu::Sub,
                };
                self.valu(f, vdst, a, b, zero)
            }
            Inst::Vop3 { op, vdst, src } => {
                let a = self.vsrc(src[0]);
                let b = if op.sources() > 1 {
                    self.vsrc(src[1])
                } else {
                    zero
                };
                let c = if op.sources() > 2 {
                    self.vsrc(src[2])
                } else {
                    zero
                };
                let f = match op {
                    Vop3Op::MadU32U24 => Valu::MadU24,
                    Vop3Op::LshlAddU32 => Valu::LshlAdd,
                    Vop3Op::Add3U32 => Valu::Add3,
                    Vop3Op::LshlOrB32 => Valu::LshlOr,
                    Vop3Op::AndOrB32 => Valu::AndOr,
                    Vop3Op::LshlrevB32E64 => Valu::Lshlrev,
                    Vop3Op::AndB32E64 => Valu::And,
                    Vop3Op::AddNcU32E64 => Valu::Add,
                    Vop3Op::MovB32E64 => Valu::Mov,
                };
                self.valu(f, vdst, a, b, c)
            }
            Inst::Vopc { op, src0, vsrc1 } => {
                let a = self.vsrc(src0);
                let b = self.row(vsrc1, "source");
                self.writes |= VCC_BITS;
                Kind::Vopc(op, a, b)
            }
            Inst::Global {
                op,
                vdata,
                vaddr,
                saddr,
                offset,
            } => {
                self.row(vaddr, "address");
                match saddr {
                    Some(s) => {
                        self.pair(s);
                    }
                    None => {
                        self.row(vaddr.saturating_add(1), "address");
                    }
                }
                let n = usize::from(op.dwords());
                if usize::from(vdata) + n > self.vgprs {
                    self.fail(format!(
                        "v[{vdata}:{}] is past the {} VGPRs",
                        usize::from(vdata) + n - 1,
                        self.vgprs
                    ));
                }
                Kind::Global {
                    op,
                    vdata,
                    vaddr,
                    saddr,
                    offset,
                }
            }
            // Which file the DS operands are in depends on the device's quirks: the message is
            // given when it runs.
            Inst::Ds(ds) => {
                let ops = ds.info().operands;
                let fits = |acc: bool| {
                    Field::ALL.into_iter().all(|f| {
                        let len = if acc && f != Field::Addr {
                            self.agprs
                        } else {
                            self.vgprs
                        };
                        ops.dwords(f) == 0 || ds.reg(f) as usize + ops.dwords(f) as usize <= len
                    })
                };
                Kind::Ds(ds, [fits(false), fits(true)])
            }
            Inst::Acc(m) => {
                let (v, a) = (self.vgprs, self.agprs);
                let (src_len, dst_len, src_name, dst_name) = match m.op {
                    AccOp::Write => (v, a, 'v', 'a'),
                    AccOp::Read => (a, v, 'a', 'v'),
                };
                if usize::from(m.src) >= src_len {
                    self.fail(format!(
                        "source {src_name}{} is past the {src_len} registers of its file the descriptor allocates",
                        m.src
                    ));
                } else if usize::from(m.dst) >= dst_len {
                    self.fail(format!(
                        "destination {dst_name}{} is past the {dst_len} registers of its file the descriptor allocates",
                        m.dst
                    ));
                }
                Kind::Acc(m)
            }
        }
    }
}
