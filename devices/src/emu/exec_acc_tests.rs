//! The AccVGPR file of the emulated wave: `v_accvgpr_write/read_b32` move between the files over
//! the active lanes, a DS instruction with the acc bit reads data from and writes vdst to
//! AccVGPRs, and the broken device that ignores the bit reads the VGPRs of those numbers.

use super::*;
use crate::emu::code::Code;
use crate::emu::descriptor::Descriptor;
use crate::emu::memory::Memory;
use crate::emu::{Program, Quirks, Run};
use ds_isa::ds::{DsInst, DsOp, Field};
use ds_isa::ds_features::DsFeatures;
use ds_isa::inst::acc::AccMove;
use ds_isa::inst::Inst;
use ds_isa::target::{Target, TARGETS};
use ds_kernels::entry::{delivery, Request};
use ds_reference::wave::FpMode;
use std::sync::Arc;

fn acc_target() -> &'static Target {
    TARGETS
        .iter()
        .find(|t| t.ds_features.contains(DsFeatures::ACC))
        .expect("a target with ACC")
}

fn program(text: &[u8], agprs: u32) -> Program {
    let target = acc_target();
    let desc = Descriptor {
        lds_size: 256,
        entry_offset: 0,
        vgprs: 16,
        mode: FpMode::default(),
        request: Request {
            user_sgprs: 2,
            user_fields: 1 << 3,
            workgroup_ids: [true, false, false],
            workitem_dims: 0,
        },
        wave32: false,
    };
    Program {
        delivery: delivery(target, desc.wave_size(), &desc.request),
        target,
        desc,
        code: Arc::new(Code::decode(target, text, 0, 0, 16, agprs)),
        agprs,
    }
}

/// A wave64 with every register defined, v1 = lane * 4 (the address), v5 = 0x5000 + lane, a5 =
/// 0xa000 + lane.
fn wave_of(agprs: u32) -> WaveState {
    let mut w = WaveState::with_agprs(16, agprs, 256, WaveSize::Wave64);
    w.exec = u64::MAX;
    let (g, seed) = (w.generation, w.seed);
    for r in 0..16 {
        w.v.define(r, g, seed);
    }
    for r in 0..agprs as usize {
        w.a.define(r, g, seed);
    }
    for lane in 0..64 {
        w.v.row_mut(1)[lane] = 4 * lane as u32;
        w.v.row_mut(5)[lane] = 0x5000 + lane as u32;
        if agprs > 5 {
            w.a.row_mut(5)[lane] = 0xa000 + lane as u32;
        }
    }
    w
}

fn wave() -> WaveState {
    wave_of(16)
}

/// Runs `inst` alone on `w`, decoded as the loaded code of a program with `w`'s files would be.
fn step(w: &mut WaveState, inst: Inst, quirks: &Quirks) -> Result<(), String> {
    let text = ds_isa::inst::encode(acc_target(), &inst).unwrap();
    let prog = program(&text, w.a.len() as u32);
    let mem = Memory { regions: vec![] };
    let run = Run::new(1000, 1, quirks, 1);
    match w.step(&prog.code.ops[0], &mem, &prog, &run) {
        Ok(_) => Ok(()),
        Err(e) if e.is_empty() => Err(prog.code.explain(0).unwrap().2.unwrap()),
        Err(e) => Err(e),
    }
}

fn ds(name: &str, acc: bool) -> Inst {
    let mut d = DsInst::new(DsOp::from_name(name).unwrap());
    d.acc = acc;
    d.set_reg(Field::Addr, 1);
    let ops = d.info().operands;
    if ops.data0 > 0 {
        d.set_reg(Field::Data0, 5);
    }
    if ops.vdst > 0 {
        d.set_reg(Field::Vdst, 6);
    }
    Inst::Ds(d)
}

#[test]
fn accvgpr_moves_copy_between_the_files_in_active_lanes_only() {
    let mut w = wave();
    w.exec = 0xffff_0000_0000_00ff;
    let old = w.a.row(7).to_vec();
    step(&mut w, Inst::Acc(AccMove::write(7, 5)), &Quirks::default()).unwrap();
    for (lane, &before) in old.iter().enumerate().take(64) {
        let want = if w.exec >> lane & 1 == 1 {
            w.v.row(5)[lane]
        } else {
            before
        };
        assert_eq!(w.a.row(7)[lane], want, "lane {lane}");
    }
    step(&mut w, Inst::Acc(AccMove::read(9, 5)), &Quirks::default()).unwrap();
    assert_eq!(w.v.row(9)[3], 0xa003);
    let e = step(&mut w, Inst::Acc(AccMove::read(2, 40)), &Quirks::default()).unwrap_err();
    assert!(e.contains("a40") && e.contains("16"), "{e}");
}

#[test]
fn ds_with_the_acc_bit_uses_accvgprs_and_the_broken_device_does_not() {
    let store = ds("ds_store_b32", true);
    let mut w = wave();
    step(&mut w, store, &Quirks::default()).unwrap();
    assert_eq!(w.lds.word(4 * 9), 0xa009, "data0 from a5");
    let mut w = wave();
    let broken = Quirks {
        ignore_acc: true,
        ..Quirks::default()
    };
    step(&mut w, store, &broken).unwrap();
    assert_eq!(w.lds.word(4 * 9), 0x5009, "the broken device reads v5");
    // A load with acc lands in a6 and leaves v6 alone.
    let mut w = wave();
    w.lds.set_word(4 * 2, 0x1234);
    let v6 = w.v.row(6).to_vec();
    step(&mut w, ds("ds_load_b32", true), &Quirks::default()).unwrap();
    assert_eq!(w.a.row(6)[2], 0x1234);
    assert_eq!(w.v.row(6), &v6[..]);
    // Without acc the VGPRs, as before.
    let mut w = wave();
    step(&mut w, ds("ds_store_b32", false), &Quirks::default()).unwrap();
    assert_eq!(w.lds.word(4 * 9), 0x5009);
}

#[test]
fn an_acc_operand_past_the_accvgprs_is_refused() {
    let mut w = wave_of(4);
    let e = step(&mut w, ds("ds_store_b32", true), &Quirks::default()).unwrap_err();
    assert!(e.contains("AccVGPRs past the 4"), "{e}");
}

#[test]
fn the_acc_bit_and_accvgpr_moves_decode_only_on_targets_with_acc() {
    let mut d = DsInst::new(DsOp::from_name("ds_store_b32").unwrap());
    d.acc = true;
    let bytes = ds_isa::inst::encode(acc_target(), &Inst::Ds(d)).unwrap();
    let mv = AccMove::write(3, 17).words();
    let mv: Vec<u8> = mv.iter().flat_map(|w| w.to_le_bytes()).collect();
    for t in TARGETS
        .iter()
        .filter(|t| t.generation == acc_target().generation)
    {
        let has = t.ds_features.contains(DsFeatures::ACC);
        let got = ds_isa::inst::acc::decode_on(t, &bytes);
        assert_eq!(got.is_ok(), has, "{}: {got:?}", t.name);
        if has {
            assert_eq!(got.unwrap().0, Inst::Ds(d));
            let m = ds_isa::inst::acc::decode_on(t, &mv).unwrap();
            assert_eq!(m, (Inst::Acc(AccMove::write(3, 17)), 8));
        }
    }
}
