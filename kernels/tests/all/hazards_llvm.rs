//! The kernel template against LLVM's hazard recognizer: every kernel the harness builds for a
//! target (each runnable op's kernel in each wave size, and the canary) is written out as MIR
//! (LLVM's machine-IR text: one machine function per kernel, blocks split at the branches) and
//! handed to `llc-19`/`llc-22 -run-pass=post-RA-hazard-rec` for that target. The pass inserts
//! whatever the target's hardware needs between two instructions (`s_nop`, `s_waitcnt_depctr`,
//! `s_waitcnt_vscnt`, `v_nop` ...: LLVM `GCNHazardRecognizer`); the template must already hold
//! it, so LLVM must insert nothing. This is how the RDNA 1 hazards (gfx1010-gfx1013: a scalar
//! write of a register a DS or vector memory instruction read, LLVM `FeatureVMEMtoScalarWriteHazard`)
//! were found and are held.
//!
//! DS instructions are written as the LLVM instruction of their operand shape (a load of VDST's
//! width, a store of DATA0/DATA1's, an atomic with both): the recognizer's rules look at classes
//! of instruction and the registers they read and write (EXEC for every DS instruction, M0 for the
//! ones that address by it), and those are kept.

use crate::common;

use common::llvm::Llvm;
use ds_isa::ds::{runnable_ops_on, Bvh, Family, Field};
use ds_isa::inst::{
    encode, Inst, Operand, SmemOp, Sop1Op, Sop2Op, SopkOp, SoppOp, Vop1Op, Vop2Op, Vop3Op, VopcOp,
};
use ds_isa::target::Target;
use ds_kernels::generator::{canary, generate_for, Kernel};
use ds_reference::wave::WaveSize;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fmt::Write;

/// `$sgprN` or the tuple `$sgprN_sgprN+1_...` of `dwords` registers.
fn tuple(prefix: &str, first: u8, dwords: u8) -> String {
    (0..dwords)
        .map(|i| format!("{prefix}{}", u32::from(first) + u32::from(i)))
        .collect::<Vec<_>>()
        .join("_")
}

/// An operand as MIR writes it, `dwords` wide (1 or 2).
fn operand(op: Operand, dwords: u8) -> String {
    match (op, dwords) {
        (Operand::Sgpr(n), d) => format!("${}", tuple("sgpr", n, d)),
        (Operand::Vgpr(n), d) => format!("${}", tuple("vgpr", n, d)),
        (Operand::VccLo, 1) => "$vcc_lo".into(),
        (Operand::VccLo, _) => "$vcc".into(),
        (Operand::VccHi, _) => "$vcc_hi".into(),
        (Operand::ExecLo, 1) => "$exec_lo".into(),
        (Operand::ExecLo, _) => "$exec".into(),
        (Operand::ExecHi, _) => "$exec_hi".into(),
        (Operand::M0, _) => "$m0".into(),
        (Operand::Null, 1) => "$sgpr_null".into(),
        (Operand::Null, _) => "$sgpr_null64".into(),
        (Operand::Ttmp(n), d) => format!("${}", tuple("ttmp", n, d)),
        (c, _) => (c.constant().expect("a constant") as i32).to_string(),
    }
}

/// The LLVM opcode name of a scalar or vector op (its mnemonic, upper case, as LLVM's
/// instruction definitions name them; the few that differ are spelled out).
fn upper(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// One instruction as a MIR line; `block` maps a branch's target to its block number.
fn mir(inst: &Inst, wave: WaveSize, pc: u64, block: &dyn Fn(u64) -> usize) -> String {
    let scc = ", implicit-def $scc";
    let exec = ", implicit $exec";
    match *inst {
        Inst::Sop1 { op, sdst, src0 } => {
            let d = op.a();
            let extra = match op {
                Sop1Op::MovB32 | Sop1Op::MovB64 => String::new(),
                Sop1Op::AndSaveexecB32 => {
                    format!("{scc}, implicit-def $exec_lo, implicit $exec_lo")
                }
                Sop1Op::AndSaveexecB64 => format!("{scc}, implicit-def $exec, implicit $exec"),
                _ => scc.into(),
            };
            format!(
                "{} = {} {}{extra}",
                operand(sdst, d),
                upper(op.name()),
                operand(src0, op.b())
            )
        }
        Inst::Sop2 {
            op,
            sdst,
            src0,
            src1,
        } => {
            let extra = match op {
                Sop2Op::MulI32 => "",
                Sop2Op::CselectB32 => ", implicit $scc",
                Sop2Op::AddcU32 | Sop2Op::SubbU32 => ", implicit-def $scc, implicit $scc",
                _ => scc,
            };
            let (d, s) = (op.a(), op.b());
            format!(
                "{} = {} {}, {}{extra}",
                operand(sdst, d),
                upper(op.name()),
                operand(src0, s),
                operand(src1, s)
            )
        }
        Inst::Sopk { op, sdst, simm16 } => match op {
            SopkOp::MovkI32 => format!("{} = S_MOVK_I32 {}", operand(sdst, 1), simm16 as i16),
            SopkOp::AddkI32 => {
                let d = operand(sdst, 1);
                format!("{d} = S_ADDK_I32 {d}, {}{scc}", simm16 as i16)
            }
            SopkOp::WaitcntVscnt => format!("S_WAITCNT_VSCNT {}, {simm16}", operand(sdst, 1)),
            SopkOp::GetregB32 => {
                format!(
                    "{} = S_GETREG_B32 {simm16}, implicit $mode",
                    operand(sdst, 1)
                )
            }
            SopkOp::SetregImm32B32 => format!(
                "S_SETREG_IMM32_B32 {}, {simm16}, implicit-def $mode, implicit $mode",
                operand(sdst, 1)
            ),
        },
        Inst::Sopc { op, src0, src1 } => format!(
            "{} {}, {}{scc}",
            upper(op.name()),
            operand(src0, 1),
            operand(src1, 1)
        ),
        Inst::Sopp { op, simm16 } => {
            if let Some(to) = inst.branch_target(pc) {
                let uses = match op {
                    SoppOp::Branch => "",
                    SoppOp::CbranchScc0 | SoppOp::CbranchScc1 => ", implicit $scc",
                    SoppOp::CbranchVccz | SoppOp::CbranchVccnz => match wave {
                        WaveSize::Wave32 => ", implicit $vcc_lo",
                        WaveSize::Wave64 => ", implicit $vcc",
                    },
                    _ => match wave {
                        WaveSize::Wave32 => ", implicit $exec_lo",
                        WaveSize::Wave64 => ", implicit $exec",
                    },
                };
                format!("{} %bb.{}{uses}", upper(op.name()), block(to))
            } else {
                let name = match op {
                    SoppOp::WaitLoadcnt => "S_WAIT_LOADCNT".into(),
                    other => upper(other.name()),
                };
                let uses = match op {
                    SoppOp::WaitAsynccnt => ", implicit-def $asynccnt, implicit $asynccnt",
                    _ => "",
                };
                format!("{name} {simm16}{uses}")
            }
        }
        Inst::Smem {
            op,
            sdata,
            sbase,
            offset,
            soffset,
        } => {
            assert!(
                soffset.is_none(),
                "SMEM with an SGPR offset: add its MIR form"
            );
            let name = match op {
                SmemOp::LoadB32 => "S_LOAD_DWORD_IMM",
                SmemOp::LoadB64 => "S_LOAD_DWORDX2_IMM",
                SmemOp::LoadB128 => "S_LOAD_DWORDX4_IMM",
                SmemOp::LoadB256 => "S_LOAD_DWORDX8_IMM",
                SmemOp::LoadB512 => "S_LOAD_DWORDX16_IMM",
            };
            format!(
                "${} = {name} ${}, {offset}, 0",
                tuple("sgpr", sdata, op.a()),
                tuple("sgpr", sbase, 2)
            )
        }
        Inst::Vop1 { op, vdst, src0 } => {
            let name = match op {
                Vop1Op::MovB32 => "V_MOV_B32_e32",
                Vop1Op::NotB32 => "V_NOT_B32_e32",
            };
            format!("$vgpr{vdst} = {name} {}{exec}", operand(src0, 1))
        }
        Inst::Vop2 {
            op,
            vdst,
            src0,
            vsrc1,
        } => {
            let name = match op {
                Vop2Op::AddNcU32 => "V_ADD_U32".into(),
                Vop2Op::SubNcU32 => "V_SUB_U32".into(),
                other => upper(other.name()),
            };
            format!(
                "$vgpr{vdst} = {name}_e32 {}, $vgpr{vsrc1}{exec}",
                operand(src0, 1)
            )
        }
        Inst::Vop3 { op, vdst, src } => {
            let s = |i: usize| operand(src[i], 1);
            let line = match op {
                Vop3Op::MadU32U24 => format!("V_MAD_U32_U24_e64 {}, {}, {}, 0", s(0), s(1), s(2)),
                Vop3Op::LshlAddU32 | Vop3Op::Add3U32 | Vop3Op::LshlOrB32 | Vop3Op::AndOrB32 => {
                    format!("{}_e64 {}, {}, {}", upper(op.name()), s(0), s(1), s(2))
                }
                Vop3Op::LshlrevB32E64 => format!("V_LSHLREV_B32_e64 {}, {}", s(0), s(1)),
                Vop3Op::AndB32E64 => format!("V_AND_B32_e64 {}, {}", s(0), s(1)),
                Vop3Op::AddNcU32E64 => format!("V_ADD_U32_e64 {}, {}, 0", s(0), s(1)),
                Vop3Op::MovB32E64 => format!("V_MOV_B32_e64 0, {}, 0, 0", s(0)),
            };
            format!("$vgpr{vdst} = {line}{exec}")
        }
        Inst::Vopc { op, src0, vsrc1 } => {
            let vcc = match wave {
                WaveSize::Wave32 => "$vcc_lo",
                WaveSize::Wave64 => "$vcc",
            };
            let name = match op {
                VopcOp::CmpLtU32 => "V_CMP_LT_U32_e32",
                VopcOp::CmpEqU32 => "V_CMP_EQ_U32_e32",
                VopcOp::CmpGtU32 => "V_CMP_GT_U32_e32",
                VopcOp::CmpNeU32 => "V_CMP_NE_U32_e32",
            };
            format!(
                "{name} {}, $vgpr{vsrc1}, implicit-def {vcc}{exec}",
                operand(src0, 1)
            )
        }
        Inst::Global {
            op,
            vdata,
            vaddr,
            saddr,
            offset,
        } => {
            let width = match op.dwords() {
                1 => "DWORD".to_string(),
                n => format!("DWORDX{n}"),
            };
            let data = format!("${}", tuple("vgpr", vdata, op.dwords()));
            match (op.is_store(), saddr) {
                (false, Some(s)) => format!(
                    "{data} = GLOBAL_LOAD_{width}_SADDR ${}, $vgpr{vaddr}, {offset}, 0{exec}",
                    tuple("sgpr", s, 2)
                ),
                (false, None) => format!(
                    "{data} = GLOBAL_LOAD_{width} ${}, {offset}, 0{exec}",
                    tuple("vgpr", vaddr, 2)
                ),
                (true, Some(s)) => format!(
                    "GLOBAL_STORE_{width}_SADDR $vgpr{vaddr}, {data}, ${}, {offset}, 0{exec}",
                    tuple("sgpr", s, 2)
                ),
                (true, None) => format!(
                    "GLOBAL_STORE_{width} ${}, {data}, {offset}, 0{exec}",
                    tuple("vgpr", vaddr, 2)
                ),
            }
        }
        Inst::Ds(ds) => ds_mir(&ds),
        Inst::Acc(m) => match m.op {
            ds_isa::inst::acc::AccOp::Write => format!(
                "$agpr{} = V_ACCVGPR_WRITE_B32_e64 $vgpr{}{exec}",
                m.dst, m.src
            ),
            ds_isa::inst::acc::AccOp::Read => format!(
                "$vgpr{} = V_ACCVGPR_READ_B32_e64 $agpr{}{exec}",
                m.dst, m.src
            ),
        },
    }
}

/// A DS instruction as the LLVM instruction of its shape (see the module doc).
fn ds_mir(ds: &ds_isa::ds::DsInst) -> String {
    let info = ds.info();
    let ops = info.operands;
    let width = |n: u8| match n {
        1 => "B32",
        2 => "B64",
        3 => "B96",
        4 => "B128",
        _ => unreachable!("{n} dwords"),
    };
    let m0 = match info.family {
        Family::StoreAddTid | Family::LoadAddTid | Family::Append | Family::Consume => {
            ", implicit $m0"
        }
        _ => "",
    };
    // ADDR is a VGPR; with the acc bit data and vdst are AccVGPRs.
    let reg = |f: Field| {
        let file = if ds.acc && f != Field::Addr {
            "agpr"
        } else {
            "vgpr"
        };
        format!("${}", tuple(file, ds.reg(f), ops.dwords(f)))
    };
    let addr = if ops.addr > 0 {
        reg(Field::Addr)
    } else {
        // The ops addressed by M0 alone: LLVM's forms still name a VGPR operand.
        "$vgpr0".into()
    };
    if matches!(info.family, Family::BvhStack | Family::BvhPushPop(_)) {
        // The one kind of DS instruction that also writes its address register.
        return format!(
            "{}, {addr} = {} {addr}, {}, {}, 0, implicit $m0, implicit $exec",
            reg(Field::Vdst),
            match info.family {
                // LLVM's one instruction for both (gfx12 renamed it; LLVM 22 names it alike).
                Family::BvhStack | Family::BvhPushPop(Bvh::Push4Pop1) => {
                    "DS_BVH_STACK_RTN_B32".to_string()
                }
                _ => ds.op.name().to_ascii_uppercase(),
            },
            reg(Field::Data0),
            reg(Field::Data1)
        );
    }
    // gfx1250's own ops (the barrier arrives, the transposes that let every lane take part)
    // as LLVM's own instructions: the async arrive reads its address VGPR as vector memory
    // does and waits on ASYNCcnt, which the recognizer's rules look at.
    match info.family {
        Family::BarrierArrive if ops.data0 == 0 => {
            return format!(
                "DS_ATOMIC_ASYNC_BARRIER_ARRIVE_B64 {addr}, 0, 0, implicit-def $asynccnt, \
                 implicit $exec, implicit $asynccnt"
            )
        }
        Family::BarrierArrive => {
            return format!(
                "{} = DS_ATOMIC_BARRIER_ARRIVE_RTN_B64 {addr}, {}, 0, 0, implicit $exec",
                reg(Field::Vdst),
                reg(Field::Data0)
            )
        }
        Family::LoadTranspose(t) if t.exec == ds_isa::ds::TrExec::AnySet => {
            return format!(
                "{} = {} {addr}, 0, 0, implicit $exec",
                reg(Field::Vdst),
                ds.op.name().to_ascii_uppercase()
            )
        }
        _ => {}
    }
    let core = match (ops.vdst, ops.data0, ops.data1) {
        // LLVM's `ds_nop` reads M0 as the gfx6-gfx8 DS instructions do.
        (0, 0, _) => return "DS_NOP implicit $m0, implicit $exec".into(),
        (0, d, 0) => format!(
            "DS_WRITE_{}_gfx9 {addr}, {}, 0, 0",
            width(d),
            reg(Field::Data0)
        ),
        (0, d, _) => format!(
            "DS_WRITE2_{}_gfx9 {addr}, {}, {}, 0, 0, 0",
            width(d),
            reg(Field::Data0),
            reg(Field::Data1)
        ),
        (v, 0, _) => format!(
            "{} = DS_READ_{}_gfx9 {addr}, 0, 0",
            reg(Field::Vdst),
            width(v)
        ),
        (v, _, 0) => {
            let rmw = if v == 1 {
                "DS_ADD_RTN_U32_gfx9"
            } else {
                "DS_ADD_RTN_U64_gfx9"
            };
            format!(
                "{} = {rmw} {addr}, {}, 0, 0",
                reg(Field::Vdst),
                reg(Field::Data0)
            )
        }
        (v, d, _) if v == 2 * d => format!(
            "{} = DS_WRXCHG2_RTN_{}_gfx9 {addr}, {}, {}, 0, 0, 0",
            reg(Field::Vdst),
            width(d),
            reg(Field::Data0),
            reg(Field::Data1)
        ),
        (v, _, _) => {
            let cmp = if v == 1 {
                "DS_CMPST_RTN_B32_gfx9"
            } else {
                "DS_CMPST_RTN_B64_gfx9"
            };
            format!(
                "{} = {cmp} {addr}, {}, {}, 0, 0",
                reg(Field::Vdst),
                reg(Field::Data0),
                reg(Field::Data1)
            )
        }
    };
    format!("{core}, implicit $exec{m0}")
}

/// The kernel as one MIR machine function named `name`, with the opcode of every instruction in
/// order (what the output is compared with).
fn function(name: &str, t: &Target, k: &Kernel, wave: WaveSize) -> String {
    let mut pcs = Vec::with_capacity(k.insts.len());
    let mut pc = 0u64;
    for (inst, _) in &k.insts {
        pcs.push(pc);
        pc += encode(t, inst)
            .expect("the template's instructions encode")
            .len() as u64;
    }
    // Blocks start at the entry, at every branch target and after every branch.
    let mut starts: BTreeSet<u64> = BTreeSet::from([0]);
    for ((inst, _), &pc) in k.insts.iter().zip(&pcs) {
        if let Some(to) = inst.branch_target(pc) {
            starts.insert(to);
            starts.insert(pc + encode(t, inst).unwrap().len() as u64);
        }
    }
    let block = |at: u64| {
        starts
            .iter()
            .position(|&s| s == at)
            .expect("a branch lands on an instruction")
    };
    let mut out = format!("---\nname: {name}\ntracksRegLiveness: false\nbody: |\n");
    for ((inst, _), &pc) in k.insts.iter().zip(&pcs) {
        if starts.contains(&pc) {
            let _ = writeln!(out, "  bb.{}:", block(pc));
        }
        let _ = writeln!(out, "    {}", mir(inst, wave, pc, &block));
    }
    out.push_str("...\n");
    out
}

/// The opcodes of each machine function of a MIR text, by function name.
fn opcodes(mir: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_body = false;
    for line in mir.lines() {
        if let Some(name) = line.strip_prefix("name:") {
            out.push((name.trim().to_string(), Vec::new()));
            in_body = false;
        } else if line.starts_with("body:") {
            in_body = true;
        } else if line.starts_with("...") {
            in_body = false;
        } else if in_body {
            let t = line.trim();
            if t.is_empty()
                || t.starts_with("bb.")
                || t.starts_with("successors")
                || t.starts_with("liveins")
            {
                continue;
            }
            let rhs = t.split_once(" = ").map_or(t, |(_, r)| r);
            let op = rhs.split([' ', ',']).next().unwrap().to_string();
            out.last_mut().expect("a body inside a function").1.push(op);
        }
    }
    out
}

/// The kernels built for `t` in `wave`: every runnable op's that LLVM `major` knows (the DS
/// table's oracle column), then the canary.
fn kernels(t: &'static Target, wave: WaveSize, major: u32) -> Vec<Kernel> {
    let mut v: Vec<Kernel> = runnable_ops_on(t)
        .filter(|op| op.info().oracle.known_to(major))
        .map(|op| {
            generate_for(
                t,
                &ds_reference::wave::Variant {
                    wave,
                    ..common::variant(op)
                },
            )
            .unwrap_or_else(|e| panic!("{t} {op:?} {wave}: {e}"))
        })
        .collect();
    let entry = ds_kernels::entry::KernelEntry::of(t, wave);
    v.push(canary::build(t, wave, &entry).expect("the canary builds"));
    v
}

/// What LLVM inserts into the kernels of `t` in `wave`, as "kernel: before instruction N (text):
/// inserted" lines; empty when it inserts nothing.
fn inserted(llvm: &Llvm, t: &'static Target, wave: WaveSize) -> Vec<String> {
    let Some(llc) = common::tool(llvm, "llc") else {
        return Vec::new();
    };
    let ks = kernels(t, wave, llvm.major);
    let mut input = String::new();
    for (i, k) in ks.iter().enumerate() {
        input.push_str(&function(&format!("k{i}"), t, k, wave));
    }
    let out = common::run(
        &llc,
        &[
            "-mtriple=amdgcn-amd-amdhsa",
            &format!("-mcpu={t}"),
            &format!("-mattr=+wavefrontsize{}", wave.lanes()),
            "-run-pass=post-RA-hazard-rec",
            "-x",
            "mir",
            "-o",
            "-",
            "-",
        ],
        Some(&input),
    );
    let before = opcodes(&input);
    let after = opcodes(&out);
    assert_eq!(before.len(), after.len(), "{t} {wave}: functions lost");
    let mut found = Vec::new();
    for (((_, b), (_, a)), k) in before.iter().zip(&after).zip(&ks) {
        if a == b {
            continue;
        }
        // LLVM only inserts: walk both, naming each insertion and the instruction it precedes.
        let mut j = 0;
        for (at, op) in b.iter().enumerate() {
            let mut extra = Vec::new();
            while a.get(j).is_some_and(|x| x != op) {
                extra.push(a[j].clone());
                j += 1;
            }
            assert!(j < a.len(), "{} {wave}: LLVM removed {op}", k.name);
            j += 1;
            // LLVM puts its `s_wait_alu` around gfx1250's asynchronous barrier arrive whether
            // or not one is there: one right after the kernel's own is the kernel's.
            let arrive = "DS_ATOMIC_ASYNC_BARRIER_ARRIVE_B64";
            let by_arrive = b[at] == arrive || (at >= 2 && b[at - 2] == arrive);
            let again = at > 0
                && by_arrive
                && b[at - 1] == "S_WAITCNT_DEPCTR"
                && extra.iter().all(|x| *x == b[at - 1]);
            if !extra.is_empty() && !again {
                found.push(format!(
                    "{} {wave}: LLVM inserts {extra:?} before instruction {at} ({})",
                    k.name,
                    k.insts[at].0.text(k.gen)
                ));
            }
        }
        assert_eq!(j, a.len(), "{} {wave}: LLVM appends {:?}", k.name, &a[j..]);
    }
    found
}

#[test]
fn llvm_inserts_nothing_into_any_kernel() {
    // The groups side by side: the test is one of the suite's longest, llc's time per group.
    let groups: Vec<(Llvm, &Target, WaveSize)> = (common::llvm_targets().into_iter())
        .flat_map(|(llvm, t)| {
            let waves = ds_kernels::wave_sizes(t);
            waves.into_iter().map(move |w| (llvm.clone(), t, w))
        })
        .collect();
    let problems: Vec<String> = groups
        .par_iter()
        .flat_map_iter(|(llvm, t, wave)| {
            let found = inserted(llvm, t, *wave);
            found
                .into_iter()
                .map(move |f| format!("{} {t}: {f}", llvm.label()))
        })
        .collect();
    let checked = groups.len();
    println!("{checked} (llc, target, wave) groups of kernels through the hazard recognizer");
    assert!(
        problems.is_empty(),
        "{} kernels need what LLVM inserts:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The oracle can fail: each RDNA 1 kernel with its `s_waitcnt_depctr` taken out (none sits in a
/// loop, so no branch moves) is one LLVM puts `S_WAITCNT_DEPCTR` back into.
#[test]
fn a_kernel_without_its_fence_is_one_llvm_mends() {
    use ds_isa::errata::Errata;
    for (llvm, t) in common::llvm_targets() {
        if !t.errata.contains(Errata::VMEM_SCALAR_WRITE) {
            continue;
        }
        let Some(llc) = common::tool(&llvm, "llc") else {
            return;
        };
        let mut k = generate_for(t, &common::variant(ds_isa::ds::DsOp::AddRtnU32)).unwrap();
        let before = k.insts.len();
        k.insts.retain(|(i, _)| {
            !matches!(
                i,
                Inst::Sopp {
                    op: SoppOp::WaitcntDepctr,
                    ..
                }
            )
        });
        assert!(k.insts.len() < before, "{t}: the generator put no fence in");
        let input = function("k", t, &k, WaveSize::Wave32);
        let out = common::run(
            &llc,
            &[
                "-mtriple=amdgcn-amd-amdhsa",
                &format!("-mcpu={t}"),
                "-mattr=+wavefrontsize32",
                "-run-pass=post-RA-hazard-rec",
                "-x",
                "mir",
                "-o",
                "-",
                "-",
            ],
            Some(&input),
        );
        let added = opcodes(&out)[0].1.len() - opcodes(&input)[0].1.len();
        assert_eq!(added, before - k.insts.len(), "{} {t}", llvm.label());
        assert!(out.contains("S_WAITCNT_DEPCTR"), "{} {t}", llvm.label());
    }
}

/// The oracle can fail on gfx9 too: a gfx9 kernel with a VALU write of a wide store's data
/// register planted right after the store (LLVM `checkVALUHazards`: 1 wait state on Vega, 2 on
/// CDNA 3) is one LLVM puts `S_NOP` into, on every gfx9 target each release knows.
#[test]
fn a_gfx9_kernel_that_overwrites_a_wide_stores_data_is_one_llvm_mends() {
    use ds_isa::inst::GlobalOp;
    let mut checked = 0;
    for (llvm, t) in common::llvm_targets() {
        if t.generation != ds_isa::ds::Generation::Gfx9 {
            continue;
        }
        let Some(llc) = common::tool(&llvm, "llc") else {
            return;
        };
        let v = ds_reference::wave::Variant {
            wave: WaveSize::Wave64,
            ..common::variant(ds_isa::ds::DsOp::AddRtnU32)
        };
        let mut k = generate_for(t, &v).unwrap();
        let at = k
            .insts
            .iter()
            .position(|(i, _)| {
                matches!(i, Inst::Global { op, .. } if op.is_store() && *op == GlobalOp::StoreB128)
            })
            .expect("the lane record's 16-byte store");
        let Inst::Global { vdata, .. } = k.insts[at].0 else {
            unreachable!()
        };
        let plant = Inst::Vop1 {
            op: Vop1Op::MovB32,
            vdst: vdata,
            src0: Operand::Int(0),
        };
        k.insts.insert(at + 1, (plant, "planted"));
        let input = function("k", t, &k, WaveSize::Wave64);
        let out = common::run(
            &llc,
            &[
                "-mtriple=amdgcn-amd-amdhsa",
                &format!("-mcpu={t}"),
                "-run-pass=post-RA-hazard-rec",
                "-x",
                "mir",
                "-o",
                "-",
                "-",
            ],
            Some(&input),
        );
        let (before, after) = (&opcodes(&input)[0].1, &opcodes(&out)[0].1);
        assert!(
            after.len() > before.len(),
            "{} {t}: LLVM inserted nothing",
            llvm.label()
        );
        assert!(out.contains("S_NOP"), "{} {t}", llvm.label());
        checked += 1;
    }
    if checked > 0 {
        println!("{checked} (llc, gfx9 target) pairs mend the planted hazard");
    }
}
