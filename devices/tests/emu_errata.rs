//! The emulated device is as strict as RDNA 1 hardware about its scalar-write-after-vector-memory
//! hazard (`ds_isa::errata::Errata::VMEM_SCALAR_WRITE`): a gfx1010-1013 code object whose
//! kernel writes EXEC right after a DS or vector memory instruction read it, with nothing in
//! between, is refused at load naming the instruction; the kernel the generator builds (with its
//! `s_waitcnt_depctr`) loads; the same stripped kernel built for a target without the erratum
//! loads too.

use ds_devices::emu::EmuDevice;
use ds_devices::Device;
use ds_isa::ds::DsOp;
use ds_isa::errata::Errata;
use ds_isa::inst::{encode_into, Inst, SoppOp};
use ds_isa::target::TARGETS;
use ds_kernels::code_object;
use ds_kernels::generator::{generate_for, Kernel};
use ds_reference::wave::{FpMode, Variant, WaveSize};

/// `k` without its `s_waitcnt_depctr` instructions (none sits inside a loop, so no branch moves).
fn stripped(mut k: Kernel) -> (Kernel, usize) {
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
    let removed = before - k.insts.len();
    k.code.clear();
    for (i, _) in &k.insts {
        encode_into(k.gen, i, &mut k.code).unwrap();
    }
    (k, removed)
}

#[test]
fn an_rdna1_kernel_without_its_fence_is_refused_and_with_it_loads() {
    let v = Variant {
        op: DsOp::AddRtnU32,
        offset0: 0,
        offset1: 0,
        lds_size: 512,
        mode: FpMode::default(),
        wave: WaveSize::Wave32,
        regs: None,
        acc: false,
    };
    let mut refused = 0;
    for t in TARGETS
        .iter()
        .filter(|t| ds_kernels::check_target(t).is_ok())
    {
        let v = Variant {
            wave: ds_kernels::wave_sizes(t)[0],
            ..v
        };
        let k = generate_for(t, &v).unwrap();
        let mut dev = EmuDevice::for_target(t);
        dev.load(&code_object::write(t, std::slice::from_ref(&k)))
            .unwrap_or_else(|e| panic!("{t}: the generator's kernel is refused: {e}"));
        let (bare, removed) = stripped(k);
        let result = EmuDevice::for_target(t).load(&code_object::write(t, &[bare]));
        if t.errata.contains(Errata::VMEM_SCALAR_WRITE) {
            assert!(removed > 0, "{t}: the generator put no fence in");
            let err = result
                .expect_err("a kernel with the hazard is refused")
                .to_string();
            assert!(
                err.contains("s_mov_b32 exec_lo") && err.contains("s_waitcnt_depctr 0xffe3"),
                "{t}: {err}"
            );
            refused += 1;
        } else {
            assert_eq!(removed, 0, "{t}: a fence without the erratum");
            result.unwrap_or_else(|e| panic!("{t}: {e}"));
        }
    }
    assert!(refused >= 4, "every RDNA 1 target is checked ({refused})");
}
