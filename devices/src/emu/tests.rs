//! The emulated device on hand-built kernels (no code object): the initial state, scalar, vector,
//! global and DS instructions, and the errors it must give.

use super::*;
use crate::Buffer;
use ds_isa::ds::DsInst;
use ds_isa::inst::{encode, GlobalOp, Inst, Operand, SmemOp, Sop2Op, SoppOp, Vop2Op};
use ds_kernels::entry::Request;
use ds_reference::wave::FpMode;

const BASE: u64 = 0x1000;

fn desc(lds_size: u32) -> Descriptor {
    Descriptor {
        lds_size,
        entry_offset: 0,
        vgprs: 16,
        mode: FpMode::default(),
        request: Request {
            user_sgprs: 2,
            user_fields: 1 << 3,
            workgroup_ids: [true, false, false],
            workitem_dims: 0,
        },
        wave32: true,
    }
}

/// A gfx11 target whose entry state is the plain one in both wave sizes (kernarg pointer in
/// s[0:1], workgroup id x in s2 after two user SGPRs).
fn plain() -> &'static Target {
    target::TARGETS
        .iter()
        .find(|t| {
            t.generation == Generation::Gfx11 && !t.architected_sgprs && !t.user_sgpr_init16_bug
        })
        .expect("a plain gfx11 target")
}

/// `desc` and `text` as a program of `target`.
fn program_of(target: &'static Target, desc: Descriptor, text: &[u8]) -> Program {
    Program {
        delivery: delivery(target, desc.wave_size(), &desc.request),
        target,
        code: Arc::new(Code::decode(target, text, BASE, BASE, desc.vgprs, 0)),
        desc,
        agprs: 0,
    }
}

fn program(insts: &[Inst], lds_size: u32) -> Program {
    let text: Vec<u8> = insts
        .iter()
        .flat_map(|i| encode(plain(), i).unwrap())
        .collect();
    program_of(plain(), desc(lds_size), &text)
}

/// Runs `launch` of `prog` with launch seed 1.
fn go(
    prog: &Program,
    launch: &mut Launch,
    step_limit: u64,
    threads: usize,
    quirks: &Quirks,
) -> Result<(), DeviceError> {
    let run = Run::new(step_limit, threads, quirks, 1);
    run_launch(prog, launch, &run, &Waves::default())
}

fn ds(op: &str) -> DsInst {
    DsInst::new(DsOp::from_name(op).unwrap())
}

/// The kernels' first instructions: v0 = lane (work-item id x, bits [9:0] of v0: the rest holds
/// no value), the kernarg pointer's first 8 bytes into s[4:5], wait, v1 = lane * 4.
fn prologue() -> Vec<Inst> {
    vec![
        lane_id(),
        Inst::Smem {
            op: SmemOp::LoadB64,
            sdata: 4,
            sbase: 0,
            offset: 0,
            soffset: None,
        },
        Inst::waitcnt(plain().generation, ds_isa::inst::Waitcnt::lgkm(0)),
        Inst::Vop2 {
            op: Vop2Op::LshlrevB32,
            vdst: 1,
            src0: Operand::Int(2),
            vsrc1: 0,
        },
    ]
}

/// out[wg * 32 + lane] = LDS[lane * 4 + 4] after every lane stored wg * 128 + lane * 4 at
/// LDS[lane * 4]: lane 31 reads past the 128-byte allocation.
fn neighbour_kernel() -> Vec<Inst> {
    let mut k = prologue();
    k.extend([
        Inst::Sop2 {
            op: Sop2Op::LshlB32,
            sdst: Operand::Sgpr(6),
            src0: Operand::Sgpr(2),
            src1: Operand::Int(7),
        },
        Inst::Vop2 {
            op: Vop2Op::AddNcU32,
            vdst: 2,
            src0: Operand::Sgpr(6),
            vsrc1: 1,
        },
        Inst::Ds(DsInst {
            addr: 1,
            data0: 2,
            ..ds("ds_store_b32")
        }),
        Inst::Ds(DsInst {
            vdst: 4,
            addr: 1,
            offset0: 4,
            ..ds("ds_load_b32")
        }),
        Inst::waitcnt(plain().generation, ds_isa::inst::Waitcnt::lgkm(0)),
        Inst::Global {
            op: GlobalOp::StoreB32,
            vdata: 4,
            vaddr: 2,
            saddr: Some(4),
            offset: 0,
        },
        Inst::Sopp {
            op: SoppOp::Endpgm,
            simm16: 0,
        },
    ]);
    k
}

fn launch(workgroups: u32, out_bytes: usize) -> Launch {
    Launch {
        kernel: "k".into(),
        workgroups,
        workgroup_size: 32,
        buffers: vec![Buffer {
            name: "out",
            bytes: vec![0xaa; out_bytes],
            copy_back: true,
        }],
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn a_kernel_runs_every_workgroup_on_every_thread_count() {
    let prog = program(&neighbour_kernel(), 128);
    // A buffer of whole dwords is worked on in place; one with a ragged end on a copy.
    for (threads, extra) in [(1, 0), (2, 0), (3, 0), (1, 3), (2, 1)] {
        let mut l = launch(20, 20 * 128 + extra);
        go(&prog, &mut l, 1000, threads, &Quirks::default()).unwrap();
        assert_eq!(l.buffers[0].bytes.len(), 20 * 128 + extra);
        assert!(l.buffers[0].bytes[20 * 128..].iter().all(|&b| b == 0xaa));
        let out = words(&l.buffers[0].bytes[..20 * 128]);
        for wg in 0..20u32 {
            for lane in 0..32u32 {
                let want = if lane < 31 {
                    wg * 128 + (lane + 1) * 4
                } else {
                    0
                };
                assert_eq!(out[(wg * 32 + lane) as usize], want, "wg {wg} lane {lane}");
            }
        }
    }
}

#[test]
fn a_fault_corrupts_exactly_one_lane() {
    let prog = program(&neighbour_kernel(), 128);
    let fault = Fault {
        op: DsOp::from_name("ds_load_b32").unwrap(),
        lane: 7,
        word: 0,
        xor: 0x100,
    };
    let mut l = launch(1, 128);
    go(
        &prog,
        &mut l,
        1000,
        1,
        &Quirks {
            fault: Some(fault),
            ..Quirks::default()
        },
    )
    .unwrap();
    let out = words(&l.buffers[0].bytes);
    assert_eq!(out[7], 32 ^ 0x100);
    assert_eq!(out[6], 28);
}

#[test]
fn an_out_of_bounds_store_names_the_buffer() {
    let prog = program(&neighbour_kernel(), 128);
    let mut l = launch(2, 128); // room for one workgroup only
    let err = go(&prog, &mut l, 1000, 1, &Quirks::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("buffer `out`") && err.contains("workgroup 1"),
        "{err}"
    );
}

#[test]
fn an_unknown_instruction_names_its_word_and_address() {
    let mut text: Vec<u8> = encode(
        Generation::Gfx11,
        &Inst::Sopp {
            op: SoppOp::Nop,
            simm16: 0,
        },
    )
    .unwrap();
    text.extend(0xffff_ffffu32.to_le_bytes());
    let prog = program_of(plain(), desc(128), &text);
    let err = go(&prog, &mut launch(1, 128), 1000, 1, &Quirks::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("0xffffffff") && err.contains("0x1004"),
        "{err}"
    );
}

#[test]
fn a_runaway_loop_hits_the_step_limit() {
    // s_branch -1: jumps to itself.
    let prog = program(
        &[Inst::Sopp {
            op: SoppOp::Branch,
            simm16: 0xffff,
        }],
        128,
    );
    let err = go(&prog, &mut launch(1, 128), 500, 1, &Quirks::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("500 instructions without reaching s_endpgm"),
        "{err}"
    );
}

/// `v_and_b32 v0, 0x3ff, v0`: work-item id x out of the packed ids.
fn lane_id() -> Inst {
    Inst::Vop2 {
        op: Vop2Op::AndB32,
        vdst: 0,
        src0: Operand::Literal(0x3ff),
        vsrc1: 0,
    }
}

/// `out[0x2000 + lane * 4] = lane`, with the 64-bit base moved by `s_add_u32` and, when `carry`,
/// `s_addc_u32` (buffers sit 4 KiB below a 2^32 boundary, so the carry is needed).
fn carry_kernel(carry: bool) -> Vec<Inst> {
    let mut k = vec![
        lane_id(),
        Inst::Smem {
            op: SmemOp::LoadB64,
            sdata: 4,
            sbase: 0,
            offset: 0,
            soffset: None,
        },
        Inst::waitcnt(plain().generation, ds_isa::inst::Waitcnt::lgkm(0)),
        Inst::Sop2 {
            op: Sop2Op::AddU32,
            sdst: Operand::Sgpr(4),
            src0: Operand::Sgpr(4),
            src1: Operand::Literal(0x2000),
        },
    ];
    if carry {
        k.push(Inst::Sop2 {
            op: Sop2Op::AddcU32,
            sdst: Operand::Sgpr(5),
            src0: Operand::Sgpr(5),
            src1: Operand::Int(0),
        });
    }
    k.extend([
        Inst::Vop2 {
            op: Vop2Op::LshlrevB32,
            vdst: 1,
            src0: Operand::Int(2),
            vsrc1: 0,
        },
        Inst::Global {
            op: GlobalOp::StoreB32,
            vdata: 0,
            vaddr: 1,
            saddr: Some(4),
            offset: 0,
        },
        Inst::Sopp {
            op: SoppOp::Endpgm,
            simm16: 0,
        },
    ]);
    k
}

#[test]
fn scalar_adds_carry_through_scc_across_a_4_gib_boundary() {
    let mut l = launch(1, 0x2000 + 128);
    go(
        &program(&carry_kernel(true), 128),
        &mut l,
        100,
        1,
        &Quirks::default(),
    )
    .unwrap();
    let out = words(&l.buffers[0].bytes);
    assert_eq!(&out[0x800..0x800 + 32], (0..32).collect::<Vec<u32>>());
    let err = go(
        &program(&carry_kernel(false), 128),
        &mut launch(1, 0x2000 + 128),
        100,
        1,
        &Quirks::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not in any buffer"), "{err}");
}

fn program64(insts: &[Inst], lds_size: u32) -> Program {
    let text: Vec<u8> = insts
        .iter()
        .flat_map(|i| encode(plain(), i).unwrap())
        .collect();
    let desc = Descriptor {
        wave32: false,
        ..desc(lds_size)
    };
    program_of(plain(), desc, &text)
}

fn launch64(out_bytes: usize) -> Launch {
    Launch {
        workgroup_size: 64,
        ..launch(1, out_bytes)
    }
}

fn sop1(op: ds_isa::inst::Sop1Op, sdst: Operand, src0: Operand) -> Inst {
    Inst::Sop1 { op, sdst, src0 }
}

/// `out[lane * 4] = v2` for every active lane, after `body` (kernarg pointer in s[4:5], v1 =
/// lane * 4, v0 = lane).
fn store_kernel(body: Vec<Inst>) -> Vec<Inst> {
    let mut k = prologue();
    k.extend([Inst::Vop2 {
        op: Vop2Op::AddNcU32,
        vdst: 2,
        src0: Operand::Int(0),
        vsrc1: 0,
    }]);
    k.extend(body);
    k.extend([
        Inst::Global {
            op: GlobalOp::StoreB32,
            vdata: 2,
            vaddr: 1,
            saddr: Some(4),
            offset: 0,
        },
        Inst::Sopp {
            op: SoppOp::Endpgm,
            simm16: 0,
        },
    ]);
    k
}

fn run64(body: Vec<Inst>, quirks: &Quirks) -> Vec<u32> {
    let mut l = launch64(256);
    go(
        &program64(&store_kernel(body), 512),
        &mut l,
        1000,
        1,
        quirks,
    )
    .unwrap();
    words(&l.buffers[0].bytes)
}

#[test]
fn a_wave64_workgroup_runs_64_lanes_under_a_64_bit_exec() {
    assert_eq!(
        run64(vec![], &Quirks::default()),
        (0..64).collect::<Vec<u32>>()
    );
    // EXEC_LO cleared: only the upper half stores; the lower half keeps the buffer's bytes.
    let out = run64(
        vec![sop1(
            ds_isa::inst::Sop1Op::MovB32,
            Operand::ExecLo,
            Operand::Int(0),
        )],
        &Quirks::default(),
    );
    assert_eq!(out[..32], [0xaaaa_aaaa; 32]);
    assert_eq!(out[32..], (32..64).collect::<Vec<u32>>());
    // s_and_saveexec_b64 with s[8:9] = lane 63 only, then s_or_b64 restores the saved mask.
    let out = run64(
        vec![
            sop1(
                ds_isa::inst::Sop1Op::MovB32,
                Operand::Sgpr(8),
                Operand::Int(0),
            ),
            sop1(
                ds_isa::inst::Sop1Op::MovB32,
                Operand::Sgpr(9),
                Operand::Literal(1 << 31),
            ),
            sop1(
                ds_isa::inst::Sop1Op::AndSaveexecB64,
                Operand::Sgpr(10),
                Operand::Sgpr(8),
            ),
            Inst::Vop2 {
                op: Vop2Op::AddNcU32,
                vdst: 2,
                src0: Operand::Int(64),
                vsrc1: 0,
            },
            Inst::Sop2 {
                op: Sop2Op::OrB64,
                sdst: Operand::ExecLo,
                src0: Operand::ExecLo,
                src1: Operand::Sgpr(10),
            },
        ],
        &Quirks::default(),
    );
    assert_eq!(out[62], 62);
    assert_eq!(
        out[63],
        63 + 64,
        "only lane 63 ran under the saved-and-masked EXEC"
    );
}

/// `v2 = ds_bpermute(v1 = (lane ^ 63) * 4, data v0 = lane)`.
fn bpermute_mirror() -> Vec<Inst> {
    vec![
        Inst::Vop2 {
            op: Vop2Op::XorB32,
            vdst: 3,
            src0: Operand::Int(63),
            vsrc1: 0,
        },
        Inst::Vop2 {
            op: Vop2Op::LshlrevB32,
            vdst: 3,
            src0: Operand::Int(2),
            vsrc1: 3,
        },
        Inst::Ds(DsInst {
            vdst: 2,
            addr: 3,
            data0: 0,
            ..ds("ds_bpermute_b32")
        }),
        Inst::waitcnt(plain().generation, ds_isa::inst::Waitcnt::lgkm(0)),
    ]
}

#[test]
fn a_wave64_bpermute_reads_within_its_half_as_the_model_says() {
    use ds_reference::model::execute;
    use ds_reference::wave::{Case, Lane, Lds, Wave, WaveSize};
    let out = run64(bpermute_mirror(), &Quirks::default());
    // Lane i names lane 63 - i; within its own half that is (i & 32) | (31 - i % 32).
    for (i, &got) in out.iter().enumerate() {
        assert_eq!(got as usize, (i & 32) | (31 - i % 32), "lane {i}");
    }
    let lanes = (0..64u32)
        .map(|i| Lane {
            addr: (i ^ 63) * 4,
            data0: [i, 0, 0, 0],
            data1: [0; 8],
            vdst: [i; 4],
        })
        .collect();
    let wave = Wave {
        exec: WaveSize::Wave64.full_exec(),
        m0: 0,
        lanes,
    };
    let case = Case {
        lds: Lds::zeroed(512),
        wave,
    };
    let model = execute(
        ds_isa::target::DEFAULT,
        &ds("ds_bpermute_b32"),
        FpMode::default(),
        &case,
    )
    .unwrap();
    let want: Vec<u32> = model.vdst.iter().map(|d| d[0]).collect();
    assert_eq!(
        out, want,
        "the emulated wave64 agrees with the model over 64 lanes"
    );
}

/// The DS instructions follow the code object's target's generation: a device made to take the
/// rules of a generation whose permutes span the wave reads lane 63 - i in lane i.
#[test]
fn a_device_taking_another_generations_rules_reads_the_whole_wave() {
    use ds_isa::gen::PermuteSpan;
    let own = ds_isa::target::DEFAULT.generation;
    assert_eq!(own.permute_span(), PermuteSpan::Halves);
    let whole = ds_isa::ds::Generation::ALL
        .into_iter()
        .find(|g| g.permute_span() == PermuteSpan::Wave)
        .unwrap();
    let same = run64(
        bpermute_mirror(),
        &Quirks {
            rules_of: Some(own),
            ..Quirks::default()
        },
    );
    assert_eq!(same, run64(bpermute_mirror(), &Quirks::default()));
    let out = run64(
        bpermute_mirror(),
        &Quirks {
            rules_of: Some(whole),
            ..Quirks::default()
        },
    );
    for (i, &got) in out.iter().enumerate() {
        assert_eq!(got as usize, 63 - i, "lane {i}");
    }
}

#[test]
fn a_wave64_fault_in_the_upper_half_shows_in_that_lane_only() {
    let fault = Fault {
        op: DsOp::from_name("ds_bpermute_b32").unwrap(),
        lane: 40,
        word: 0,
        xor: 0x100,
    };
    let clean = run64(bpermute_mirror(), &Quirks::default());
    let bad = run64(
        bpermute_mirror(),
        &Quirks {
            fault: Some(fault),
            ..Quirks::default()
        },
    );
    let differ: Vec<usize> = (0..64).filter(|&i| clean[i] != bad[i]).collect();
    assert_eq!(differ, [40]);
}

#[test]
fn a_wave64_kernel_needs_a_workgroup_of_64() {
    let prog = program64(&store_kernel(vec![]), 512);
    let err = check_workgroup(&prog, &launch(1, 256))
        .unwrap_err()
        .to_string();
    assert!(err.contains("workgroup size 32 is not one wave64"), "{err}");
    assert!(check_workgroup(&prog, &launch64(256)).is_ok());
    assert!(check_workgroup(&program(&store_kernel(vec![]), 512), &launch64(256)).is_err());
}
