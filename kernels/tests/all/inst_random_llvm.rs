//! Random instructions of every non-DS table against each installed oracle LLVM's disassembler
//! (llvm-mc-19 and llvm-mc-22): a seeded generator makes instructions with random legal operands
//! for each generation, we encode them, llvm-mc (for the generation's first target it knows)
//! disassembles all of them in one call, and its text must equal ours; each also decodes back to
//! itself. On failure the seed is printed: set
//! `DS_KERNELS_SEED=0x..` to replay.

use crate::common;

use ds_isa::ds::{DsFeatures, Generation};
use ds_isa::inst::ops::sopk_kind;
use ds_isa::inst::*;

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A 32-bit scalar source: registers, inline constants, or a literal.
fn ssrc(r: &mut Rng) -> Operand {
    match r.below(6) {
        0 => Operand::Sgpr(r.below(106) as u8),
        1 => r.pick(&[
            Operand::VccLo,
            Operand::VccHi,
            Operand::Null,
            Operand::M0,
            Operand::ExecLo,
            Operand::ExecHi,
        ]),
        2 => Operand::Int(r.below(81) as i8 - 16),
        3 => Operand::Float(240 + r.below(9) as u8),
        4 => Operand::Literal(r.next() as u32),
        _ if r.below(3) == 0 => Operand::Ttmp(r.below(16) as u8),
        _ => Operand::Sgpr(r.below(106) as u8),
    }
}

fn vsrc(r: &mut Rng) -> Operand {
    if r.below(2) == 0 {
        Operand::Vgpr(r.below(256) as u8)
    } else {
        ssrc(r)
    }
}

fn sdst(r: &mut Rng) -> Operand {
    match r.below(4) {
        0 => r.pick(&[
            Operand::VccLo,
            Operand::VccHi,
            Operand::M0,
            Operand::ExecLo,
            Operand::ExecHi,
        ]),
        _ => Operand::Sgpr(r.below(106) as u8),
    }
}

fn random_inst(r: &mut Rng, gen: Generation) -> Inst {
    match r.below(11) {
        0 => {
            let op = r.pick(Sop1Op::ALL);
            if op.a() == 2 {
                let pair = |r: &mut Rng| match r.below(3) {
                    0 => Operand::VccLo,
                    1 => Operand::ExecLo,
                    _ => Operand::Sgpr(2 * r.below(52) as u8),
                };
                let src0 = if r.below(3) == 0 {
                    Operand::Int(r.below(81) as i8 - 16)
                } else {
                    pair(r)
                };
                Inst::Sop1 {
                    op,
                    sdst: pair(r),
                    src0,
                }
            } else {
                Inst::Sop1 {
                    op,
                    sdst: sdst(r),
                    src0: ssrc(r),
                }
            }
        }
        1 => {
            let op = r.pick(
                &Sop2Op::ALL
                    .iter()
                    .copied()
                    .filter(|op| op.in_generation(gen))
                    .collect::<Vec<_>>(),
            );
            if op.a() == 2 {
                // The 64-bit forms (`s_or_b64`): register pairs and inline constants.
                let pair = |r: &mut Rng| match r.below(3) {
                    0 => Operand::VccLo,
                    1 => Operand::ExecLo,
                    _ => Operand::Sgpr(2 * r.below(52) as u8),
                };
                let src1 = if r.below(3) == 0 {
                    Operand::Int(r.below(81) as i8 - 16)
                } else {
                    pair(r)
                };
                return Inst::Sop2 {
                    op,
                    sdst: pair(r),
                    src0: pair(r),
                    src1,
                };
            }
            let (src0, mut src1) = (ssrc(r), ssrc(r));
            if let (Operand::Literal(a), Operand::Literal(_)) = (src0, src1) {
                src1 = Operand::Literal(a);
            }
            Inst::Sop2 {
                op,
                sdst: sdst(r),
                src0,
                src1,
            }
        }
        2 => {
            let op = r.pick(
                &SopkOp::ALL
                    .iter()
                    .copied()
                    .filter(|op| op.in_generation(gen))
                    .collect::<Vec<_>>(),
            );
            // A hardware register field: a register the generation names (LLVM names more, and
            // prints their names), any offset and size.
            let hwreg = |r: &mut Rng| {
                let ids: Vec<u16> = gen.spec().hwregs.iter().map(|&(id, _)| id).collect();
                r.pick(&ids) | (r.next() as u16) & 0xffc0
            };
            match op.b() {
                sopk_kind::HWREG => Inst::Sopk {
                    op,
                    sdst: sdst(r),
                    simm16: hwreg(r),
                },
                sopk_kind::HWREG_IMM32 => Inst::Sopk {
                    op,
                    sdst: Operand::Literal(r.next() as u32),
                    simm16: hwreg(r),
                },
                _ => Inst::Sopk {
                    op,
                    sdst: sdst(r),
                    simm16: r.next() as u16,
                },
            }
        }
        3 => {
            let (src0, mut src1) = (ssrc(r), ssrc(r));
            if let (Operand::Literal(a), Operand::Literal(_)) = (src0, src1) {
                src1 = Operand::Literal(a);
            }
            Inst::Sopc {
                op: r.pick(SopcOp::ALL),
                src0,
                src1,
            }
        }
        4 => {
            let gfx11: Vec<SoppOp> = SoppOp::ALL
                .iter()
                .copied()
                .filter(|op| op.in_generation(gen))
                .collect();
            let op = r.pick(&gfx11);
            let simm16 = match op {
                SoppOp::Endpgm => 0,
                SoppOp::Nop => r.below(16) as u16,
                SoppOp::Waitcnt => r.next() as u16 & !Waitcnt::unused_bits(gen),
                // LLVM prints most values by field (`depctr_vm_vsrc(3) ...`); the printer
                // writes the one value the template uses, in hex, as LLVM prints it.
                SoppOp::WaitcntDepctr => ds_kernels::hazard::DEPCTR_VM_VSRC_0,
                _ => r.next() as u16,
            };
            Inst::Sopp { op, simm16 }
        }
        5 => {
            let op = r.pick(SmemOp::ALL);
            let align = u64::from(op.dwords().min(4));
            let sdata = (align * r.below((106 - u64::from(op.dwords())) / align + 1)) as u8;
            // 21 signed bits on gfx11, 24 on gfx12.
            let half = if gen == Generation::Gfx12 {
                1 << 23
            } else {
                1 << 20
            };
            let offset = match r.below(3) {
                0 => 0,
                1 => r.below(half) as i32,
                _ => -(r.below(half) as i32) - 1,
            };
            let soffset = (r.below(2) == 0).then(|| r.below(106) as u8);
            Inst::Smem {
                op,
                sdata,
                sbase: 2 * r.below(53) as u8,
                offset,
                soffset,
            }
        }
        6 => Inst::Vop1 {
            op: r.pick(Vop1Op::ALL),
            vdst: r.next() as u8,
            src0: vsrc(r),
        },
        7 => Inst::Vop2 {
            op: r.pick(Vop2Op::ALL),
            vdst: r.next() as u8,
            src0: vsrc(r),
            vsrc1: r.next() as u8,
        },
        8 => {
            let op = r.pick(Vop3Op::ALL);
            let mut src = [Operand::Sgpr(0); 3];
            let mut literal = None;
            for s in src.iter_mut().take(op.sources()) {
                *s = vsrc(r);
                if let Operand::Literal(v) = *s {
                    *s = Operand::Literal(*literal.get_or_insert(v));
                }
            }
            Inst::Vop3 {
                op,
                vdst: r.next() as u8,
                src,
            }
        }
        9 => Inst::Vopc {
            op: r.pick(VopcOp::ALL),
            src0: vsrc(r),
            vsrc1: r.next() as u8,
        },
        _ => {
            let op = r.pick(GlobalOp::ALL);
            let saddr = (r.below(2) == 0).then(|| 2 * r.below(53) as u8);
            let vaddr = r.below(if saddr.is_some() { 256 } else { 255 }) as u8;
            let vdata = r.below(257 - u64::from(op.dwords())) as u8;
            Inst::Global {
                op,
                vdata,
                vaddr,
                saddr,
                // 13 signed bits (12 on gfx10).
                offset: if gen == Generation::Gfx10 {
                    r.below(4096) as i16 - 2048
                } else {
                    r.below(8192) as i16 - 4096
                },
            }
        }
    }
}

#[test]
fn random_instructions_print_as_llvm_mc_disassembles_them() {
    let seed = std::env::var("DS_KERNELS_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
        .unwrap_or(0x5eed_0d50_6fc1_1100);
    // Every generation with the template's encodings, kernels or not.
    for pair in common::llvm::pairs() {
        let (gen, cpu, mc) = (pair.gen, pair.cpu.name, pair.llvm.mc());
        let mut r = Rng(seed | 1);
        let insts: Vec<Inst> = (0..3000)
            .map(|_| {
                let inst = random_inst(&mut r, gen);
                let even = !pair.cpu.ds_features.contains(DsFeatures::UNALIGNED);
                if gen == Generation::Gfx9 {
                    fit_gfx9(inst, even)
                } else if even {
                    even_global_tuples(inst)
                } else {
                    inst
                }
            })
            .collect();
        let mut input = String::new();
        for inst in &insts {
            let bytes = encode(pair.cpu, inst)
                .unwrap_or_else(|e| panic!("{cpu} seed {seed:#x}: {inst:?}: {e}"));
            assert_eq!(
                decode(pair.cpu, &bytes),
                Ok((*inst, bytes.len())),
                "{cpu} seed {seed:#x}"
            );
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
            input.push_str(&hex.join(","));
            input.push('\n');
        }
        let out = common::run(
            &mc,
            &["-arch=amdgcn", &format!("-mcpu={cpu}"), "-disassemble"],
            Some(&input),
        );
        let texts: Vec<&str> = out
            .lines()
            .map(|l| l.split(';').next().unwrap().trim())
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .collect();
        assert_eq!(
            texts.len(),
            insts.len(),
            "seed {seed:#x}: llvm-mc printed {} lines for {} instructions",
            texts.len(),
            insts.len()
        );
        let mut bad = Vec::new();
        for (inst, llvm) in insts.iter().zip(&texts) {
            let ours = inst.text(gen).to_string();
            if ours != *llvm {
                bad.push(format!(
                    "  ours `{ours}`\n  llvm `{llvm}`\n  {:02x?}",
                    encode(pair.cpu, inst).unwrap()
                ));
            }
        }
        assert!(
            bad.is_empty(),
            "{} seed {seed:#x} (set DS_KERNELS_SEED to replay): {} of {} differ:\n{}",
            pair.label(),
            bad.len(),
            insts.len(),
            bad[..bad.len().min(12)].join("\n")
        );
        println!(
            "{}: {} random instructions print as llvm-mc disassembles them",
            pair.label(),
            insts.len()
        );
    }
}

/// A GLOBAL access with its VGPR tuples at the even register below, for a target that needs
/// even tuples (gfx1250: LLVM `FeatureRequiresAlignedVGPRs`).
fn even_global_tuples(inst: Inst) -> Inst {
    match inst {
        Inst::Global {
            op,
            vdata,
            vaddr,
            saddr,
            offset,
        } => Inst::Global {
            op,
            vdata: if op.dwords() > 1 { vdata & !1 } else { vdata },
            vaddr: if saddr.is_none() { vaddr & !1 } else { vaddr },
            saddr,
            offset,
        },
        other => other,
    }
}

/// gfx9's operand space: s0..s101 (102..105 are `flat_scratch` and `xnack_mask`), no `null`, no
/// `s_and_saveexec_b32`, VOP3 without literals and with one scalar read (the constant bus), SMEM
/// and GLOBAL SGPR pairs within s0..s101. A random instruction is moved into it (registers past
/// s101 wrap to s0.., keeping their parity; `null` becomes `m0`; a VOP3 literal an inline
/// constant, a second scalar source a VGPR; with `even_tuples`, gfx90a and later, GLOBAL's VGPR
/// tuples at the even register below), so every generated instruction is one the target has.
fn fit_gfx9(inst: Inst, even_tuples: bool) -> Inst {
    let even = |v: u8, dwords: u8| {
        if even_tuples && dwords > 1 {
            v & !1
        } else {
            v
        }
    };
    let reg = |op: Operand| match op {
        Operand::Sgpr(n) if n > 101 => Operand::Sgpr(n % 100),
        Operand::Null => Operand::M0,
        other => other,
    };
    let sgpr = |n: u8, dwords: u8| {
        if u32::from(n) + u32::from(dwords) > 102 {
            n % 4
        } else {
            n
        }
    };
    match inst {
        Inst::Sop1 { op, sdst, src0 } => Inst::Sop1 {
            op: if op == Sop1Op::AndSaveexecB32 {
                Sop1Op::MovB32
            } else {
                op
            },
            sdst: reg(sdst),
            src0: reg(src0),
        },
        Inst::Sop2 {
            op,
            sdst,
            src0,
            src1,
        } => Inst::Sop2 {
            op,
            sdst: reg(sdst),
            src0: reg(src0),
            src1: reg(src1),
        },
        Inst::Sopk { op, sdst, simm16 } => Inst::Sopk {
            op,
            sdst: reg(sdst),
            simm16,
        },
        Inst::Sopc { op, src0, src1 } => Inst::Sopc {
            op,
            src0: reg(src0),
            src1: reg(src1),
        },
        Inst::Smem {
            op,
            sdata,
            sbase,
            offset,
            soffset,
        } => Inst::Smem {
            op,
            sdata: sgpr(sdata, op.dwords()),
            sbase: sgpr(sbase, 2),
            offset,
            soffset: soffset.map(|s| sgpr(s, 1)),
        },
        Inst::Vop1 { op, vdst, src0 } => Inst::Vop1 {
            op,
            vdst,
            src0: reg(src0),
        },
        Inst::Vop2 {
            op,
            vdst,
            src0,
            vsrc1,
        } => Inst::Vop2 {
            op,
            vdst,
            src0: reg(src0),
            vsrc1,
        },
        Inst::Vop3 { op, vdst, src } => {
            let mut scalar = None;
            let mut out = src;
            for (i, s) in out.iter_mut().enumerate().take(op.sources()) {
                *s = match reg(*s) {
                    Operand::Literal(v) => Operand::Int((v % 65) as i8),
                    Operand::Vgpr(v) => Operand::Vgpr(v),
                    r if r.is_register() => match scalar {
                        Some(first) if first != r => Operand::Vgpr(i as u8),
                        _ => {
                            scalar = Some(r);
                            r
                        }
                    },
                    c => c,
                };
            }
            Inst::Vop3 { op, vdst, src: out }
        }
        Inst::Vopc { op, src0, vsrc1 } => Inst::Vopc {
            op,
            src0: reg(src0),
            vsrc1,
        },
        Inst::Global {
            op,
            vdata,
            vaddr,
            saddr,
            offset,
        } => Inst::Global {
            op,
            vdata: even(vdata, op.dwords()),
            vaddr: even(vaddr, if saddr.is_some() { 1 } else { 2 }),
            saddr: saddr.map(|s| sgpr(s, 2)),
            offset,
        },
        other => other,
    }
}
