//! The check against records written the way a device would write them: a device that delivers
//! what the template relies on, and devices that break one assumption each.

use super::*;
use crate::contract::canary::RECORD_DWORDS;
use ds_isa::inst::Operand;

/// What a simulated device gets wrong.
#[derive(Clone, Copy, Default)]
struct Wrong {
    /// The id every workgroup reads (instead of its own).
    id: Option<u32>,
    /// Lanes at entry (instead of the wave's).
    exec: Option<u64>,
    /// Every lane reads this work-item id.
    lane: Option<u32>,
    m0: Option<u32>,
    magic3: Option<u32>,
    /// LDS loads read this instead of the neighbour's dword.
    lds: Option<u32>,
    /// Nothing arrives through kernarg address 0.
    nothing: bool,
}

/// Runs the canary's semantics (kernels/src/generator/canary.rs) on `launch`, as a device
/// that gets `w` wrong would.
fn simulate(wave: WaveSize, launch: &mut Launch, w: Wrong) {
    let lanes = wave.lanes();
    let full = exec(wave, lanes);
    let on = w.exec.unwrap_or(full);
    for g in 0..WORKGROUPS {
        if w.nothing {
            break;
        }
        let id = w.id.unwrap_or(g);
        let mut lds = vec![0xabab_abab_u32; lanes];
        let lane_id = |l: usize| w.lane.unwrap_or(l as u32);
        for l in (0..lanes).filter(|l| on >> l & 1 == 1) {
            lds[lane_id(l) as usize & (lanes - 1)] = LDS_TAG + lane_id(l);
        }
        for l in (0..lanes).filter(|l| on >> l & 1 == 1) {
            let lane = lane_id(l);
            let slot = lane as usize & (lanes - 1);
            let mut r = [0u32; RECORD_DWORDS];
            r[AT_MARKER] = MARKER;
            r[AT_LANE] = lane;
            r[AT_GROUP] = id;
            r[AT_EXEC_LO] = on as u32;
            r[AT_EXEC_HI] = if wave.is_wave32() {
                0
            } else {
                (on >> 32) as u32
            };
            r[AT_M0] = w.m0.unwrap_or(M0_VALUE);
            r[AT_NEIGHBOUR] = w.lds.unwrap_or(lds[(slot + 1) % lanes]);
            for i in 0..4 {
                r[AT_MAGIC + i] = MAGIC + i as u32 + 1;
            }
            if let Some(m) = w.magic3 {
                r[AT_MAGIC + 2] = m;
            }
            r[AT_END] = END;
            let at = ((id & (WORKGROUPS - 1)) as usize * lanes + slot) * RECORD_BYTES as usize;
            for (k, x) in r.iter().enumerate() {
                launch.buffers[0].bytes[at + 4 * k..at + 4 * k + 4]
                    .copy_from_slice(&x.to_le_bytes());
            }
        }
    }
}

fn run(t: &'static Target, wave: WaveSize, w: Wrong) -> Vec<Assumption> {
    let mut l = launch(wave);
    simulate(wave, &mut l, w);
    check(t, wave, &l)
}

fn by_name<'a>(a: &'a [Assumption], name: &str) -> &'a Assumption {
    a.iter().find(|x| x.name == name).unwrap()
}

fn broken(a: &[Assumption]) -> Vec<&'static str> {
    a.iter().filter(|x| !x.held()).map(|x| x.name).collect()
}

fn gfx12() -> &'static Target {
    crate::kernel_targets()
        .find(|t| t.architected_sgprs)
        .unwrap()
}

fn gfx11() -> &'static Target {
    crate::kernel_targets()
        .find(|t| !t.architected_sgprs)
        .unwrap()
}

#[test]
fn a_device_that_delivers_the_entry_state_holds_every_assumption() {
    for t in crate::kernel_targets() {
        for wave in crate::wave_sizes(t) {
            let a = run(t, wave, Wrong::default());
            assert_eq!(a.iter().map(|x| x.name).collect::<Vec<_>>(), ALL);
            assert!(a.iter().all(Assumption::held), "{t} {wave}: {a:#?}");
        }
    }
}

#[test]
fn every_workgroup_seeing_0_names_the_register_and_where_the_target_delivers_it() {
    let a = run(
        gfx12(),
        WaveSize::Wave32,
        Wrong {
            id: Some(0),
            ..Wrong::default()
        },
    );
    assert_eq!(broken(&a), [WORKGROUP_ID]);
    let d = &by_name(&a, WORKGROUP_ID).detail;
    assert!(
        d.starts_with("every workgroup saw 0 (records 1..3 never written)"),
        "{d}"
    );
    assert!(
        d.contains("the kernel reads it from ttmp9, where")
            && d.contains("delivers it (architected SGPRs"),
        "{d}"
    );
}

#[test]
fn a_planted_read_of_s2_on_gfx12_is_named_with_the_register_the_target_uses() {
    let t = gfx12();
    let wave = WaveSize::Wave32;
    let real = KernelEntry::of(t, wave);
    let planted = KernelEntry {
        workgroup_id_x: crate::entry::Slot {
            reg: Operand::Sgpr(2),
            ..real.workgroup_id_x
        },
        ..real
    };
    // s2 holds whatever the last wave left: garbage ids, clamped into blocks.
    let mut l = launch(wave);
    simulate(
        wave,
        &mut l,
        Wrong {
            id: Some(0x7f3a_9c01),
            ..Wrong::default()
        },
    );
    let a = check_reading(t, wave, &planted, &l);
    let d = &by_name(&a, WORKGROUP_ID).detail;
    assert_eq!(by_name(&a, WORKGROUP_ID).verdict, Verdict::Broken);
    assert!(d.contains("every workgroup saw 0x7f3a9c01"), "{d}");
    assert!(d.contains("records 0, 2..3 never written"), "{d}");
    assert!(
        d.contains("the kernel reads it from s2, but") && d.contains("delivers it in ttmp9"),
        "{d}"
    );
}

#[test]
fn half_a_wave64_names_the_lanes_that_never_ran_and_exec() {
    let half = Wrong {
        exec: Some(0xffff_ffff),
        ..Wrong::default()
    };
    let a = run(gfx11(), WaveSize::Wave64, half);
    assert_eq!(broken(&a), [EXEC, LANES], "{a:#?}");
    assert_eq!(by_name(&a, LANES).detail, "wave64: lanes 32..63 never ran");
    let e = &by_name(&a, EXEC).detail;
    assert!(
        e.contains("EXEC at entry was 0x00000000ffffffff")
            && e.contains("needs 0xffffffffffffffff"),
        "{e}"
    );
}

#[test]
fn a_lane_id_that_is_not_the_lanes_own_is_named() {
    let a = run(
        gfx11(),
        WaveSize::Wave32,
        Wrong {
            lane: Some(0),
            ..Wrong::default()
        },
    );
    assert!(broken(&a).contains(&LANE_ID), "{a:#?}");
    let d = &by_name(&a, LANE_ID).detail;
    assert!(
        d.contains("lanes 1..31 were in EXEC at entry but no record is theirs"),
        "{d}"
    );
    assert!(d.contains("v0 [9:0]"), "{d}");
    let a = run(
        gfx11(),
        WaveSize::Wave32,
        Wrong {
            lane: Some(0x401),
            ..Wrong::default()
        },
    );
    assert!(by_name(&a, LANE_ID)
        .detail
        .contains("record 1 holds lane id 0x401"));
}

#[test]
fn m0_lds_and_the_kernarg_segment_are_each_named() {
    let t = gfx11();
    let a = run(
        t,
        WaveSize::Wave32,
        Wrong {
            m0: Some(0),
            ..Wrong::default()
        },
    );
    assert_eq!(broken(&a), [M0]);
    assert!(by_name(&a, M0)
        .detail
        .contains("read back 0x0 after the kernel wrote 0x4d30ca7a"));
    let a = run(
        t,
        WaveSize::Wave32,
        Wrong {
            lds: Some(7),
            ..Wrong::default()
        },
    );
    assert_eq!(broken(&a), [LDS]);
    assert!(by_name(&a, LDS)
        .detail
        .starts_with("lane 0 read 0x7 where lane 1 stored"));
    let a = run(
        t,
        WaveSize::Wave32,
        Wrong {
            magic3: Some(5),
            ..Wrong::default()
        },
    );
    assert_eq!(broken(&a), [KERNARG]);
    let d = &by_name(&a, KERNARG).detail;
    assert!(
        d.contains("kernarg address 3 (at 0x18 in the segment) read 0x5"),
        "{d}"
    );
    let a = run(
        t,
        WaveSize::Wave32,
        Wrong {
            nothing: true,
            ..Wrong::default()
        },
    );
    assert_eq!(by_name(&a, KERNARG).verdict, Verdict::Broken);
    assert!(a
        .iter()
        .filter(|x| x.name != KERNARG)
        .all(|x| x.verdict == Verdict::Unknown));
}

#[test]
fn the_launch_passes_what_the_metadata_declares() {
    for t in crate::kernel_targets() {
        for wave in crate::wave_sizes(t) {
            let c = Canary::new(t, wave).unwrap();
            let co = code_object::read(&c.code_object()).unwrap();
            let k = co.kernel(&c.kernel.name).unwrap();
            let l = c.launch();
            assert_eq!(l.kernel, k.name);
            assert_eq!(k.meta.kernarg_segment_size as usize, l.kernarg_size());
            assert_eq!(k.meta.args.len(), l.buffers.len());
            for (i, a) in k.meta.args.iter().enumerate() {
                assert_eq!((a.offset, a.size), (8 * i as u32, 8));
            }
            assert_eq!(k.meta.wavefront_size as usize, wave.lanes());
            assert_eq!(l.workgroup_size as usize, wave.lanes());
            assert_eq!(
                k.descriptor.user_sgpr_count(),
                u32::from(c.entry.user_sgprs)
            );
            assert!(k.descriptor.group_segment_fixed_size as usize >= 4 * wave.lanes());
        }
    }
}

#[test]
fn ranges_compress_runs() {
    assert_eq!(ranges(&[1, 2, 3, 5, 7, 8, 9]), "1..3, 5, 7..9");
    assert_eq!(ranges(&[32]), "32");
}
