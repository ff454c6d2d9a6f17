//! Edge rules of each family, one wave at a time. Bit constants carry their meaning.

use super::*;
use ds_isa::ds::{DsOp, Generation};
use ds_isa::target::DEFAULT;

const SENTINEL: u32 = 0xdead_beef; // vdst before the instruction

fn mode() -> FpMode {
    FpMode::default()
}

/// A case with `lds_size` zero bytes, EXEC `exec`, and every vdst word set to the sentinel.
fn case(lds_size: u32, exec: u32) -> Case {
    let mut wave = Wave {
        exec: u64::from(exec),
        ..Wave::default()
    };
    for l in wave.lanes.iter_mut() {
        l.vdst = [SENTINEL; 4];
    }
    Case {
        lds: Lds::zeroed(lds_size),
        wave,
    }
}

fn inst(op: DsOp, offset0: u8, offset1: u8) -> DsInst {
    DsInst {
        offset0,
        offset1,
        ..DsInst::new(op)
    }
}

/// The first target of the table that has `op`.
fn target_of(op: DsOp) -> &'static ds_isa::target::Target {
    ds_isa::target::TARGETS
        .iter()
        .find(|t| op.info().on(*t))
        .expect("every op is on some target")
}

fn run(op: DsOp, offset0: u8, offset1: u8, c: &Case) -> Outcome {
    execute(target_of(op), &inst(op, offset0, offset1), mode(), c).expect("modelled")
}

#[test]
fn non_hip_ops_and_gds_are_unmodelled_with_a_reason() {
    let c = case(64, 1);
    let err = execute(DEFAULT, &DsInst::new(DsOp::GwsInit), mode(), &c).unwrap_err();
    assert_eq!(err.op, DsOp::GwsInit);
    assert!(err.why.contains("GWS"), "{err}");
    let mut i = DsInst::new(DsOp::AddU32);
    i.gds = true;
    let err = execute(DEFAULT, &i, mode(), &c).unwrap_err();
    assert!(err.to_string().contains("GDS"), "{err}");
    let unmodelled = DsOp::all(Generation::Gfx11)
        .filter(|op| execute(DEFAULT, &DsInst::new(*op), mode(), &c).is_err())
        .count();
    assert_eq!(unmodelled, 9, "exactly the 9 non-HIP ops are unmodelled");
}

#[test]
fn rmw_returns_old_value_and_skips_inactive_lanes() {
    let mut c = case(64, 0b0101);
    for (i, l) in c.wave.lanes.iter_mut().enumerate() {
        l.addr = 4 * i as u32;
        l.data0[0] = 10 + i as u32;
    }
    c.lds.set_word(0, 5);
    c.lds.set_word(4, 6);
    c.lds.set_word(8, 7);
    let out = run(DsOp::AddRtnU32, 0, 0, &c);
    assert_eq!(out.vdst[0][0], 5);
    assert_eq!(out.vdst[1], [SENTINEL; 4], "inactive lane keeps vdst");
    assert_eq!(out.vdst[2][0], 7);
    assert_eq!(
        out.vdst[0][1], SENTINEL,
        "unused vdst words keep their value"
    );
    assert_eq!(out.lds.word(0), 15);
    assert_eq!(out.lds.word(4), 6, "inactive lane's word untouched");
    assert_eq!(out.lds.word(8), 19);
    // Without return, vdst is never written.
    let out = run(DsOp::AddU32, 0, 0, &c);
    assert_eq!(out.vdst[0], [SENTINEL; 4]);
}

#[test]
fn same_address_atomics_run_in_ascending_lane_order() {
    let mut c = case(16, 0b111);
    for (i, l) in c.wave.lanes.iter_mut().enumerate() {
        l.data0[0] = 1 << i;
    }
    let out = run(DsOp::AddRtnU32, 0, 0, &c);
    assert_eq!([out.vdst[0][0], out.vdst[1][0], out.vdst[2][0]], [0, 1, 3]);
    assert_eq!(out.lds.word(0), 7);
    // Same-address stores: the highest active lane lands last.
    let out = run(DsOp::StoreB32, 0, 0, &c);
    assert_eq!(out.lds.word(0), 4);
}

#[test]
fn offset_is_added_and_2addr_scales() {
    let mut c = case(2048, 1);
    c.wave.lanes[0].addr = 8;
    c.wave.lanes[0].data0 = [0x1111_1111, 0x2222_2222, 0, 0];
    c.wave.lanes[0].data1 = [0x3333_3333, 0x4444_4444, 0, 0, 0, 0, 0, 0];
    let out = run(DsOp::StoreB32, 4, 0, &c);
    assert_eq!(out.lds.word(12), 0x1111_1111);
    // 2addr b32: offset0 * 4, offset1 * 4.
    let out = run(DsOp::Store2addrB32, 1, 3, &c);
    assert_eq!(
        (out.lds.word(12), out.lds.word(20)),
        (0x1111_1111, 0x3333_3333)
    );
    // stride64 b32: offsetN * 256.
    let out = run(DsOp::Store2addrStride64B32, 1, 2, &c);
    assert_eq!(
        (out.lds.word(264), out.lds.word(520)),
        (0x1111_1111, 0x3333_3333)
    );
    // 2addr b64: offsetN * 8, stride64 b64: offsetN * 512.
    let out = run(DsOp::Store2addrB64, 1, 2, &c);
    assert_eq!(
        [
            out.lds.word(16),
            out.lds.word(20),
            out.lds.word(24),
            out.lds.word(28)
        ],
        [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444]
    );
    let out = run(DsOp::Store2addrStride64B64, 1, 2, &c);
    assert_eq!(
        (out.lds.word(520), out.lds.word(1032)),
        (0x1111_1111, 0x3333_3333)
    );
    // The 16-bit offset form uses both bytes.
    c.lds = Lds::zeroed(0x10000 + 64);
    let out = run(DsOp::StoreB32, 0x00, 0x01, &c);
    assert_eq!(out.lds.word(0x108), 0x1111_1111);
}

#[test]
fn pair_loads_and_exchanges() {
    let mut c = case(1024, 1);
    for k in 0..256 {
        c.lds.set_word(4 * k, 0x100 + k);
    }
    c.wave.lanes[0].addr = 4;
    let out = run(DsOp::Load2addrB32, 2, 5, &c);
    assert_eq!(out.vdst[0], [0x103, 0x106, SENTINEL, SENTINEL]);
    let out = run(DsOp::Load2addrStride64B64, 1, 0, &c);
    assert_eq!(out.vdst[0], [0x181, 0x182, 0x101, 0x102]);
    c.wave.lanes[0].data0 = [0xaaaa, 0, 0, 0];
    c.wave.lanes[0].data1 = [0xbbbb, 0, 0, 0, 0, 0, 0, 0];
    let out = run(DsOp::Storexchg2addrRtnB32, 0, 1, &c);
    assert_eq!(out.vdst[0][..2], [0x101, 0x102]);
    assert_eq!((out.lds.word(4), out.lds.word(8)), (0xaaaa, 0xbbbb));
    // Both offsets on one address: both olds are the same, DATA2's store lands last.
    let out = run(DsOp::Storexchg2addrRtnB32, 1, 1, &c);
    assert_eq!(out.vdst[0][..2], [0x102, 0x102]);
    assert_eq!(out.lds.word(8), 0xbbbb);
}

#[test]
fn narrow_stores_write_low_or_high_bits() {
    let mut c = case(16, 1);
    c.lds.set_word(0, 0xffff_ffff);
    c.wave.lanes[0].addr = 1;
    c.wave.lanes[0].data0[0] = 0x8765_4321;
    let out = run(DsOp::StoreB8, 0, 0, &c);
    assert_eq!(out.lds.word(0), 0xffff_21ff); // byte 1 = data[7:0]
    let out = run(DsOp::StoreB16, 0, 0, &c);
    assert_eq!(out.lds.word(0), 0xff43_21ff); // bytes 1..2 = data[15:0], unaligned
    let out = run(DsOp::StoreB8D16Hi, 0, 0, &c);
    assert_eq!(out.lds.word(0), 0xffff_65ff); // data[23:16]
    let out = run(DsOp::StoreB16D16Hi, 0, 0, &c);
    assert_eq!(out.lds.word(0), 0xff87_65ff); // data[31:16]
}

#[test]
fn narrow_loads_extend_and_d16_keeps_the_other_half() {
    let mut c = case(16, 1);
    c.lds.set_word(0, 0x0000_80f0); // byte0 0xf0 (negative i8), half0 0x80f0 (negative i16)
    c.lds.set_word(4, 0x0000_7f70); // positive i8 0x70, positive i16 0x7f70
    let cases: [(DsOp, u32, u32); 12] = [
        (DsOp::LoadU8, 0, 0x0000_00f0),
        (DsOp::LoadI8, 0, 0xffff_fff0), // sign-extended
        (DsOp::LoadI8, 4, 0x0000_0070), // positive stays
        (DsOp::LoadU16, 0, 0x0000_80f0),
        (DsOp::LoadI16, 0, 0xffff_80f0), // sign-extended
        (DsOp::LoadI16, 4, 0x0000_7f70),
        (DsOp::LoadU8D16, 0, 0xdead_00f0), // low half, high half kept
        (DsOp::LoadI8D16, 0, 0xdead_fff0), // sign-extended to 16 bits only
        (DsOp::LoadU16D16, 0, 0xdead_80f0),
        (DsOp::LoadU8D16Hi, 0, 0x00f0_beef), // high half, low half kept
        (DsOp::LoadI8D16Hi, 0, 0xfff0_beef),
        (DsOp::LoadU16D16Hi, 0, 0x80f0_beef),
    ];
    for (op, at, want) in cases {
        c.wave.lanes[0].addr = at;
        let out = run(op, 0, 0, &c);
        assert_eq!(
            out.vdst[0][0], want,
            "{op} at {at}: got {:#010x}",
            out.vdst[0][0]
        );
    }
}

#[test]
fn wide_loads_and_stores() {
    let mut c = case(32, 1);
    c.wave.lanes[0].addr = 4;
    c.wave.lanes[0].data0 = [1, 2, 3, 4];
    let out = run(DsOp::StoreB96, 0, 0, &c);
    assert_eq!(
        [
            out.lds.word(4),
            out.lds.word(8),
            out.lds.word(12),
            out.lds.word(16)
        ],
        [1, 2, 3, 0]
    );
    let out = run(DsOp::StoreB128, 0, 0, &c);
    let out = run(
        DsOp::LoadB128,
        0,
        0,
        &Case {
            lds: out.lds,
            wave: c.wave.clone(),
        },
    );
    assert_eq!(out.vdst[0], [1, 2, 3, 4]);
    let out2 = run(DsOp::LoadB96, 0, 0, &c);
    assert_eq!(out2.vdst[0], [0, 0, 0, SENTINEL]);
}

#[test]
fn out_of_range_reads_zero_and_drops_writes() {
    let mut c = case(16, 0b11);
    c.wave.lanes[0].addr = 16; // first byte past the allocation
    c.wave.lanes[1].addr = 12;
    c.wave.lanes[0].data0 = [0xffff_ffff; 4];
    c.wave.lanes[1].data0 = [0x1234_5678, 0x9abc_def0, 0, 0];
    c.lds.set_word(12, 0x5555_5555);
    let out = run(DsOp::LoadB64, 0, 0, &c);
    assert_eq!(out.vdst[0][..2], [0, 0]);
    assert_eq!(
        out.vdst[1][..2],
        [0x5555_5555, 0],
        "the dword past the end reads 0"
    );
    let out = run(DsOp::StoreB64, 0, 0, &c);
    assert_eq!(out.lds, {
        let mut l = Lds::zeroed(16);
        l.set_word(12, 0x1234_5678);
        l
    });
    // Address arithmetic wraps at 32 bits: 0xfffffffc + 8 = 4.
    c.wave.lanes[0].addr = 0xffff_fffc;
    c.wave.exec = 1;
    let out = run(DsOp::StoreB32, 8, 0, &c);
    assert_eq!(out.lds.word(4), 0xffff_ffff);
}

#[test]
fn addtid_uses_m0_low_half_offset_and_lane() {
    let mut c = case(512, 0b1001);
    c.wave.m0 = 0xabcd_0010; // M0[15:0] = 0x10
    for (i, l) in c.wave.lanes.iter_mut().enumerate() {
        l.data0[0] = 0x100 + i as u32;
    }
    let out = run(DsOp::StoreAddtidB32, 4, 0, &c);
    assert_eq!(out.lds.word(0x14), 0x100);
    assert_eq!(out.lds.word(0x14 + 12), 0x103);
    assert_eq!(out.lds.nonzero_words().count(), 2);
    let out = run(
        DsOp::LoadAddtidB32,
        4,
        0,
        &Case {
            lds: out.lds,
            wave: c.wave.clone(),
        },
    );
    assert_eq!((out.vdst[0][0], out.vdst[3][0]), (0x100, 0x103));
    assert_eq!(out.vdst[1][0], SENTINEL);
}

#[test]
fn append_consume_once_per_wave() {
    let mut c = case(64, 0b1011_0000); // 3 active lanes
    c.wave.m0 = 0xffff_0008;
    c.lds.set_word(12, 10);
    let out = run(DsOp::Append, 4, 0, &c);
    assert_eq!(out.lds.word(12), 13);
    for i in [4, 5, 7] {
        assert_eq!(out.vdst[i][0], 10, "every active lane gets the old value");
    }
    assert_eq!(out.vdst[6][0], SENTINEL);
    let out = run(DsOp::Consume, 4, 0, &c);
    assert_eq!(out.lds.word(12), 7);
    c.lds.set_word(12, 1);
    let out = run(DsOp::Consume, 4, 0, &c);
    assert_eq!(out.lds.word(12), 0xffff_fffe, "consume wraps below zero");
}

#[test]
fn condxchg32_writes_halves_with_bit31_cleared() {
    let mut c = case(32, 1);
    c.lds.set_word(8, 0x1111_1111);
    c.lds.set_word(12, 0x2222_2222);
    c.wave.lanes[0].addr = 0x1_0009; // & 0xfff8 -> 8: low 3 bits and bits above 15 dropped
    c.wave.lanes[0].data0 = [0x8000_00aa, 0x0000_00bb, 0, 0]; // low: bit31 set, high: clear
    let out = run(DsOp::Condxchg32RtnB64, 0, 0, &c);
    assert_eq!(out.vdst[0][..2], [0x1111_1111, 0x2222_2222]);
    assert_eq!(out.lds.word(8), 0x0000_00aa, "written without bit 31");
    assert_eq!(out.lds.word(12), 0x2222_2222, "bit 31 clear: not written");
}

#[test]
fn swizzle_modes() {
    let mut c = case(0, u32::MAX);
    for (i, l) in c.wave.lanes.iter_mut().enumerate() {
        l.addr = 100 + i as u32;
    }
    let got = |c: &Case, off: u16| -> Vec<u32> {
        let out = execute(
            DEFAULT,
            &inst(DsOp::SwizzleB32, off as u8, (off >> 8) as u8),
            mode(),
            c,
        )
        .unwrap();
        out.vdst.iter().map(|v| v[0].wrapping_sub(100)).collect()
    };
    // Bit-mask: and 0x1f, xor 1 -> swap neighbours.
    let v = got(&c, 0x1f | 1 << 10);
    assert_eq!(v[..4], [1, 0, 3, 2]);
    // Bit-mask broadcast: and 0x18 (groups of 8), or 2 -> lane 2 of each group of 8.
    let v = got(&c, 0x18 | 2 << 5);
    assert_eq!((v[0], v[7], v[8], v[31]), (2, 2, 10, 26));
    // Quad-perm [3,2,1,0].
    let v = got(&c, 0x8000 | 3 | 2 << 2 | 1 << 4);
    assert_eq!(v[..8], [3, 2, 1, 0, 7, 6, 5, 4]);
    // Rotate left by 1 (lane i reads i+1) with no fixed bits; wraps within 32.
    let v = got(&c, 0xc000 | 1 << 5);
    assert_eq!((v[0], v[30], v[31]), (1, 31, 0));
    // Rotate right by 2 (offset[10] set): lane i reads i-2.
    let v = got(&c, 0xc000 | 1 << 10 | 2 << 5);
    assert_eq!((v[0], v[1], v[2]), (30, 31, 0));
    // FFT with mask 0: lane i reads bit-reversed i.
    let v = got(&c, 0xe000);
    assert_eq!((v[1], v[2], v[3], v[16]), (16, 8, 24, 1));
    // FFT with mask 1: reversed >> 1, keep bit 0.
    let v = got(&c, 0xe001);
    assert_eq!((v[0], v[1], v[2], v[3]), (0, 9, 4, 13));
    // The unnamed range 0x8100..0xbfff acts as quad-perm of offset[7:0].
    let v = got(&c, 0x9000 | 1 | 1 << 2 | 1 << 4 | 1 << 6);
    assert_eq!(v[..8], [1, 1, 1, 1, 5, 5, 5, 5]);
    // Source lane inactive -> 0; inactive destination keeps vdst.
    c.wave.exec = !0b10;
    let out = execute(DEFAULT, &inst(DsOp::SwizzleB32, 0x1f, 1 << 2), mode(), &c).unwrap();
    assert_eq!(out.vdst[0][0], 0, "lane 0 reads inactive lane 1");
    assert_eq!(out.vdst[1][0], SENTINEL);
    assert_eq!(out.vdst[2][0], 103);
}

#[test]
fn permute_collisions_and_inactive_lanes() {
    // The ISA guide's example: data {A,B,C,D}, addr {0,0,12,4}.
    let mut c = case(0, 0xf);
    let data = [0xa, 0xb, 0xc, 0xd];
    let addr = [0, 0, 12, 4];
    for i in 0..4 {
        c.wave.lanes[i].data0[0] = data[i];
        c.wave.lanes[i].addr = addr[i];
    }
    let out = run(DsOp::PermuteB32, 0, 0, &c);
    // Lanes 0 and 1 both send to lane 0: the higher (B) wins; lane 2 receives nothing: 0.
    assert_eq!(
        [
            out.vdst[0][0],
            out.vdst[1][0],
            out.vdst[2][0],
            out.vdst[3][0]
        ],
        [0xb, 0xd, 0, 0xc]
    );
    let out = run(DsOp::BpermuteB32, 0, 0, &c);
    assert_eq!(
        [
            out.vdst[0][0],
            out.vdst[1][0],
            out.vdst[2][0],
            out.vdst[3][0]
        ],
        [0xa, 0xa, 0xd, 0xb]
    );
    c.wave.exec = 0xa;
    let out = run(DsOp::PermuteB32, 0, 0, &c);
    assert_eq!(
        [
            out.vdst[0][0],
            out.vdst[1][0],
            out.vdst[2][0],
            out.vdst[3][0]
        ],
        [SENTINEL, 0xd, SENTINEL, 0]
    );
    let out = run(DsOp::BpermuteB32, 0, 0, &c);
    assert_eq!(
        [
            out.vdst[0][0],
            out.vdst[1][0],
            out.vdst[2][0],
            out.vdst[3][0]
        ],
        [SENTINEL, 0, SENTINEL, 0xb]
    );
    // Only address bits [6:2] count, after adding the offset.
    c.wave.exec = 1;
    c.wave.lanes[0].addr = 0xffff_ff80 + 4 * 3; // bits [6:2] = 3
    c.wave.lanes[3].data0[0] = 0x33;
    c.wave.exec = 0b1001;
    let out = run(DsOp::BpermuteB32, 4, 0, &c); // + 4 -> lane 4, inactive -> 0
    assert_eq!(out.vdst[0][0], 0);
    let out = run(DsOp::BpermuteB32, 0, 0, &c);
    assert_eq!(out.vdst[0][0], 0x33);
}

#[test]
fn float_atomics_use_the_fp_mode() {
    let mut c = case(16, 1);
    c.lds.set_word(0, 0x0000_0001); // smallest denormal
    c.wave.lanes[0].data0[0] = 0x0000_0001; // smallest denormal
    let keep = execute(DEFAULT, &DsInst::new(DsOp::AddRtnF32), mode(), &c).unwrap();
    assert_eq!(keep.lds.word(0), 0x0000_0002);
    assert_eq!(keep.vdst[0][0], 0x0000_0001);
    let ftz = FpMode {
        fp32_denormals: false,
        ..mode()
    };
    let flushed = execute(DEFAULT, &DsInst::new(DsOp::AddF32), ftz, &c).unwrap();
    assert_eq!(flushed.lds.word(0), 0);
    // f64 min flushes by the FP16/64 switch, not the FP32 one.
    c.lds.set_word(0, 0x0000_0001); // f64 denormal (low word)
    c.wave.lanes[0].data0 = [0, 0x3ff0_0000, 0, 0]; // 1.0
    let out = execute(DEFAULT, &DsInst::new(DsOp::MinRtnF64), ftz, &c).unwrap();
    assert_eq!(
        [out.lds.word(0), out.lds.word(4)],
        [1, 0],
        "denormal kept, it is the min"
    );
    let ftz64 = FpMode {
        fp16_fp64_denormals: false,
        ..mode()
    };
    // Flushed by the FP16/64 switch, the denormal compares as +0 and is still the min: it is
    // stored with its own bits (ASSUMPTIONS.md F2, rocJITsu's legacy min/max), or flushed by the
    // reading the model followed before issue 29.
    let out = execute(DEFAULT, &DsInst::new(DsOp::MinRtnF64), ftz64, &c).unwrap();
    assert_eq!([out.lds.word(0), out.lds.word(4)], [1, 0], "its own bits");
    let flushed = super::readings::Rules::MODEL
        .with("F2", "selected bits flushed")
        .unwrap();
    let inst = DsInst::new(DsOp::MinRtnF64);
    let out = super::execute_as(DEFAULT, &inst, ftz64, flushed, &c).unwrap();
    assert_eq!([out.lds.word(0), out.lds.word(4)], [0, 0], "flushed to +0");
    // Against -1.0 the denormal loses and is not stored at all.
    c.wave.lanes[0].data0 = [0, 0xbff0_0000, 0, 0];
    let out = execute(DEFAULT, &inst, ftz64, &c).unwrap();
    assert_eq!([out.lds.word(0), out.lds.word(4)], [0, 0xbff0_0000]);
}

#[test]
fn bvh_stack_runs_through_execute_with_the_offsets_stack_size() {
    // The rules are model::bvh's (its tests); here the dispatch: vdst and addr written, the
    // stack size from OFFSET1[5:4].
    let mut c = case(4096, 1);
    let base_dw = 4; // stack at byte 16
    c.wave.lanes[0].addr = base_dw << 18 | 8;
    c.wave.lanes[0].data0[0] = INVALID; // no last node
    c.wave.lanes[0].data1[..4].copy_from_slice(&[0x10, 0x11, INVALID, 0x13]);
    let out = run(DsOp::BvhStackRtnB32, 0, 0, &c);
    assert_eq!(out.vdst[0][0], 0x10, "the first child is returned");
    // Size 8: index 8 is slot 0 (0x13 pushed first, then 0x11).
    assert_eq!([out.lds.word(16), out.lds.word(16 + 128)], [0x13, 0x11]);
    assert_eq!(out.addr[0], base_dw << 18 | 10);
    // Size 16 (OFFSET1 = 0x10): index 8 is its own slot.
    let out = run(DsOp::BvhStackRtnB32, 0, 0x10, &c);
    assert_eq!(out.lds.word(16 + 8 * 128), 0x13);
}

const INVALID: u32 = bvh::INVALID_NODE;

#[test]
fn nop_changes_nothing() {
    let mut c = case(16, u32::MAX);
    c.lds.set_word(0, 1);
    let out = run(DsOp::Nop, 0, 0, &c);
    assert_eq!(out.lds, c.lds);
    assert!(out.vdst.iter().all(|v| *v == [SENTINEL; 4]));
}

#[test]
fn the_32_bit_atomic_fast_path_equals_the_per_lane_step() {
    let mut checked = 0;
    for op in ds_isa::ds::runnable_ops(Generation::Gfx11) {
        for (name, v, c) in snapshot::snapshot_corpus(op) {
            let mut c = c;
            // Words past the operand width must not matter: fill them with noise.
            for (i, l) in c.wave.lanes.iter_mut().enumerate() {
                for k in 1..4 {
                    l.data0[k] ^= 0x9e37_79b9u32.rotate_left((i + k) as u32);
                    l.data1[k] ^= 0x7f4a_7c15u32.rotate_left((i * k) as u32);
                }
            }
            let fast = execute(DEFAULT, &v.inst(), v.mode, &c).unwrap();
            let plan = Plan::new(DEFAULT, &v.inst(), v.mode).unwrap();
            if !matches!(plan.info.family, Family::Rmw(_)) {
                continue;
            }
            let mut lds = c.lds.clone();
            let mut vdst: Vec<[u32; 4]> = c.wave.lanes.iter().map(|l| l.vdst).collect();
            let mut addr: Vec<u32> = c.wave.lanes.iter().map(|l| l.addr).collect();
            for i in c.wave.active_lanes() {
                let mem = lds.bytes_mut();
                plan.step(
                    i,
                    &c.wave.lanes[i],
                    c.wave.m0,
                    mem,
                    &mut vdst[i],
                    &mut addr[i],
                );
            }
            assert_eq!(
                fast,
                Outcome {
                    lds,
                    vdst,
                    addr,
                    data0: None,
                    data1: None,
                },
                "{op} {name}"
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
}

/// The one rule near 2^32 (ASSUMPTIONS.md A3), swept over every multi-dword access: b64, b96 and
/// b128 loads and stores, every pair form, the 64-bit atomics and exchanges. For each final address
/// 0xfffffff0..=0xffffffff the expectation comes from a byte oracle written here, not from the
/// model: the address (`ADDR + offset`, `ADDR + offsetN * scale`) wraps at 2^32, the bytes of one
/// element never do, and a byte at or past 2^32 reads as 0 and is never written. The LDS is the
/// largest allocation, filled with non-zero bytes, so a wrapped byte would show as a non-zero read
/// or as a write near address 0.
#[test]
fn every_multi_dword_access_near_2_32_follows_one_rule() {
    const SIZE: u32 = 65536;
    let pattern = |i: usize| (i as u8).wrapping_mul(13) | 0x80;
    let initial = Lds::from_bytes((0..SIZE as usize).map(pattern).collect());
    let multi_dword = |info: &OpInfo| {
        matches!(
            info.family,
            Family::Load(_) | Family::Store(_) | Family::Rmw(_)
        ) && (info.elem.bytes() >= 8 || (info.two_addresses() && info.elem.bytes() >= 4))
    };
    let ops: Vec<DsOp> = ds_isa::ds::runnable_ops(Generation::Gfx11)
        .filter(|op| multi_dword(op.info()))
        .collect();
    assert!(ops.len() >= 40, "only {} multi-dword ops swept", ops.len());
    let mut wrapped_elements = 0;
    for &op in &ops {
        let info = op.info();
        let eb = info.elem.bytes();
        // Pair forms: both elements at the final address, then the second one element (or one
        // stride) further on, where the address wraps to the bottom of the LDS.
        let offsets: &[(u8, u8)] = if info.two_addresses() {
            &[(0, 0), (0, 1)]
        } else {
            &[(0, 0)]
        };
        for &(o0, o1) in offsets {
            for fin in 0xffff_fff0u32..=0xffff_ffff {
                let mut c = case(SIZE, 1);
                c.lds = initial.clone();
                let lane = &mut c.wave.lanes[0];
                lane.addr = fin;
                lane.data0 = [0x0102_0304, 0x0506_0708, 0x090a_0b0c, 0x0d0e_0f10];
                lane.data1 = [
                    0x1112_1314,
                    0x1516_1718,
                    0x191a_1b1c,
                    0x1d1e_1f20,
                    0,
                    0,
                    0,
                    0,
                ];
                let lane = *lane;
                let scale = info.offset_scale();
                // (final address, bytes, data) of each element.
                let elements: Vec<(u32, u32, [u32; 4])> = if info.two_addresses() {
                    vec![
                        (fin.wrapping_add(u32::from(o0) * scale), eb, lane.data0),
                        (
                            fin.wrapping_add(u32::from(o1) * scale),
                            eb,
                            lane.data1_low(),
                        ),
                    ]
                } else {
                    vec![(fin, eb, lane.data0)]
                };
                let in_range = |at: u32, k: u32| u64::from(at) + u64::from(k) < u64::from(SIZE);
                let mut want_lds = initial.clone();
                let mut want_vdst = [SENTINEL; 4];
                for (j, &(at, n, data)) in elements.iter().enumerate() {
                    let old: Vec<u8> = (0..n)
                        .map(|k| {
                            if in_range(at, k) {
                                initial.bytes()[(at + k) as usize]
                            } else {
                                0
                            }
                        })
                        .collect();
                    if (0..n).any(|k| in_range(at, k)) {
                        wrapped_elements += 1;
                        assert!(at < 0x400, "{op} {at:#x}: in range only after address wrap");
                    }
                    let returns = match info.family {
                        Family::Load(_) => true,
                        Family::Store(_) => false,
                        Family::Rmw(rmw) => {
                            assert!(
                                !info.two_addresses() || rmw == Rmw::Xchg,
                                "{op}: pair atomics are exchanges"
                            );
                            // A single-address element near 2^32 is wholly out of range, so
                            // an atomic neither reads nor writes memory: it returns 0.
                            assert!(info.two_addresses() || (0..n).all(|k| !in_range(at, k)));
                            info.returns()
                        }
                        _ => unreachable!(),
                    };
                    let writes = !matches!(info.family, Family::Load(_));
                    if writes && info.two_addresses() {
                        let bytes: Vec<u8> = data.iter().flat_map(|d| d.to_le_bytes()).collect();
                        for k in 0..n {
                            if in_range(at, k) {
                                want_lds.bytes_mut()[(at + k) as usize] = bytes[k as usize];
                            }
                        }
                    }
                    if returns {
                        let first = j as u32 * n / 4;
                        for (w, chunk) in old.chunks(4).enumerate() {
                            want_vdst[first as usize + w] =
                                u32::from_le_bytes(chunk.try_into().expect("4 bytes"));
                        }
                    }
                }
                let out = run(op, o0, o1, &c);
                let what = format!("{op} offset0={o0} offset1={o1} at {fin:#010x}");
                assert_eq!(out.vdst[0], want_vdst, "{what}: vdst");
                if let Some(at) = (0..SIZE)
                    .step_by(4)
                    .find(|&at| out.lds.word(at) != want_lds.word(at))
                {
                    panic!(
                        "{what}: LDS dword {at:#x} is {:#010x}, the rule says {:#010x}",
                        out.lds.word(at),
                        want_lds.word(at)
                    );
                }
            }
        }
    }
    // The second element of a pair form wrapped to the bottom of the LDS in some cases: the
    // address wraps, the bytes do not.
    assert!(wrapped_elements > 0);
}

#[test]
fn bpermute_fi_reads_inactive_lanes_where_bpermute_reads_zero() {
    // Lanes 0 and 2 inactive; lane 1 reads lane 0, lane 3 reads lane 2 (addresses are lane * 4).
    let mut c = case(0, 0b1010);
    for (i, l) in c.wave.lanes.iter_mut().enumerate().take(4) {
        l.data0[0] = 0xa0 + i as u32;
        l.addr = 4 * (i as u32 ^ 1);
    }
    let fi = run(DsOp::BpermuteFiB32, 0, 0, &c);
    let plain = run(DsOp::BpermuteB32, 0, 0, &c);
    assert_eq!((fi.vdst[1][0], fi.vdst[3][0]), (0xa0, 0xa2));
    assert_eq!((plain.vdst[1][0], plain.vdst[3][0]), (0, 0));
    // Inactive lanes keep their vdst either way.
    assert_eq!((fi.vdst[0][0], fi.vdst[2][0]), (SENTINEL, SENTINEL));
    // The offset is added before the lane is taken from bits [6:2], as for ds_bpermute_b32.
    let shifted = run(DsOp::BpermuteFiB32, 4, 0, &c);
    assert_eq!(shifted.vdst[1][0], 0xa1, "lane 1: (0 + 4) names lane 1");
}

#[test]
fn gfx12_push8_forms_run_with_eight_data1_dwords() {
    // All three forms run; push8 reads DATA1[4..8] too (push4 pushes 0x10 and pops it back).
    let mut c = case(512, 1);
    c.wave.lanes[0].addr = 1 << 15;
    c.wave.lanes[0].data0[0] = u32::MAX;
    c.wave.lanes[0].data1 = [
        0x10,
        u32::MAX,
        u32::MAX,
        u32::MAX,
        0x20,
        0x28,
        u32::MAX,
        0x30,
    ];
    for (op, top) in [
        (DsOp::BvhStackPush4Pop1RtnB32, 0x10),
        (DsOp::BvhStackPush8Pop1RtnB32, 0x10),
        (DsOp::BvhStackPush8Pop2RtnB64, 0x20),
    ] {
        let o = run(op, 16, 0, &c);
        assert_eq!(o.vdst[0][0], top, "{op}");
    }
    let o = run(DsOp::BvhStackPush8Pop1RtnB32, 16, 0, &c);
    // 0x30, 0x28, 0x20, 0x10 pushed (slots 0..3), 0x10 popped: ring 3, three entries valid.
    assert_eq!(o.addr[0], 1 << 15 | 3 << 10 | 3 << 5 | 3);
    assert_eq!(o.lds.word(4 + 2 * 128), 0x20);
}

#[test]
fn an_op_the_targets_generation_lacks_is_unmodelled_with_the_reason() {
    let c = case(512, 1);
    let mut checked = 0;
    for t in ds_isa::target::TARGETS {
        for op in DsOp::all(Generation::Gfx11)
            .chain(DsOp::all(Generation::Gfx12))
            .filter(|op| !op.info().on(t) && op.info().hip_runnable())
        {
            let e = execute(t, &inst(op, 0, 0), mode(), &c).unwrap_err();
            assert_eq!(e.op, op);
            assert!(
                e.why.contains("generation has no such opcode"),
                "{t} {op}: {e}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// A generation whose compare-store takes the compare value in DATA0 (gfx9 and gfx10, whose rows
/// are not in the target table yet) gets the same update with the operands swapped: on every path
/// (the 32-bit hot loop, the per-lane step of the 64-bit forms, the legal search's operands).
#[test]
fn a_compare_value_first_generation_swaps_the_cmpstore_operands() {
    let ops = DsOp::all(DEFAULT.generation)
        .filter(|op| op.info().family == Family::Rmw(Rmw::CmpStore) && op.info().hip_runnable());
    let mut checked = 0;
    for op in ops {
        let words = op.info().elem.bytes() as usize / 4;
        let mut c = case(64, 0b111);
        // Lane 0 and 2 match (memory = compare value), lane 1 does not.
        for (i, l) in c.wave.lanes.iter_mut().enumerate().take(3) {
            l.addr = 16 * i as u32;
            l.data0[..words].fill(0x3f80_0000 + i as u32); // new
            l.data1[..words].fill(if i == 1 { 7 } else { 0x4000_0000 + i as u32 });
            // compare
        }
        for i in [0, 2] {
            for w in 0..words as u32 {
                c.lds.set_word(16 * i + 4 * w, 0x4000_0000 + i);
            }
        }
        let plan = Plan::new(DEFAULT, &inst(op, 0, 0), mode()).unwrap();
        assert!(!plan.cmpst_swap, "gfx11 and gfx12 take the new value first");
        let run = |plan: &Plan, c: &Case| {
            let mut lds = c.lds.clone();
            let mut vdst: Vec<[u32; 4]> = c.wave.lanes.iter().map(|l| l.vdst).collect();
            let mut addr: Vec<u32> = c.wave.lanes.iter().map(|l| l.addr).collect();
            plan.run(&c.wave, &mut lds, &mut vdst, &mut addr);
            (lds, vdst)
        };
        let want = run(&plan, &c);
        assert_ne!(want.0, c.lds, "{op}: lanes 0 and 2 store");
        let mut swapped = c.clone();
        for l in swapped.wave.lanes.iter_mut() {
            l.swap_data();
        }
        let compare_first = Plan {
            cmpst_swap: true,
            ..plan
        };
        assert_eq!(run(&compare_first, &swapped), want, "{op}");
        assert_eq!(
            compare_first.rmw_data(&swapped.wave.lanes[0]),
            plan.rmw_data(&c.wave.lanes[0]),
            "{op}: the legal search's operands"
        );
        checked += 1;
    }
    assert_eq!(checked, 8, "the 8 compare-stores of gfx11");
}
