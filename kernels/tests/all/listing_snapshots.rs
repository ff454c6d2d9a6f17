//! The listing of one kernel per operand shape (which of vdst/addr/data0/data1 the op uses and how
//! wide, and its offset form), pinned as insta snapshots in `snapshots/kernels/<gen>/` (gfx11's on the default target).

use crate::common;

use ds_isa::ds::{runnable_ops, DsOp};
use ds_isa::gen::Generation;
use ds_kernels::generator::generate_for;

/// Pins `text` as the snapshot `name` in `snapshots/kernels/<folder>/`.
fn pin(folder: &str, name: &str, text: &str) {
    let dir = format!(
        "{}/../snapshots/kernels/{folder}",
        env!("CARGO_MANIFEST_DIR")
    );
    insta::with_settings!({
        snapshot_path => dir,
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

/// A load and the first runnable op of `gen` of every operand shape and family that `older`
/// lacks, in table order, with their listings as `gen` builds them.
fn new_shapes(gen: Generation, older: Generation) -> Vec<(DsOp, ds_kernels::generator::Kernel)> {
    let mut seen = Vec::new();
    let mut ops = vec![DsOp::LoadB32];
    for op in runnable_ops(gen).filter(|op| !op.info().in_generation(older)) {
        let shape = (op.info().operands, op.info().family);
        if !seen.contains(&shape) {
            seen.push(shape);
            ops.push(op);
        }
    }
    assert!(ops.len() >= 6, "{gen}: {ops:?}");
    ops.into_iter()
        .map(|op| {
            (
                op,
                ds_kernels::generator::generate_in(gen, &common::variant(op)).unwrap(),
            )
        })
        .collect()
}

/// The first runnable op of every operand shape, in table order.
fn one_op_per_shape() -> Vec<DsOp> {
    let mut seen = Vec::new();
    let mut ops = Vec::new();
    for op in runnable_ops(Generation::Gfx11) {
        let info = op.info();
        let shape = (info.operands, info.offset);
        if !seen.contains(&shape) {
            seen.push(shape);
            ops.push(op);
        }
    }
    ops
}

#[test]
fn one_listing_per_operand_shape() {
    let ops = one_op_per_shape();
    assert!(ops.len() >= 15, "only {} shapes", ops.len());
    for op in ops {
        let v = common::variant(op);
        let k = generate_for(ds_isa::target::DEFAULT, &v).unwrap();
        let o = op.info().operands;
        let header = format!(
            "kernel {}\nshape: vdst {} addr {} data0 {} data1 {}, offset {:?}; LDS {} bytes; {} bytes of code\n\n",
            k.name,
            o.vdst,
            o.addr,
            o.data0,
            o.data1,
            op.info().offset,
            v.lds_size,
            k.code.len()
        );
        pin(
            "gfx11",
            &format!("listing_{}", op.name()),
            &(header + &k.annotated()),
        );
    }
}

/// The gfx12 template, one listing per operand shape of the ops gfx12 added (and one load), pinned
/// in `snapshots/kernels/gfx12/`: the split wait counters, gfx12 SMEM and VGLOBAL are visible in it.
#[test]
fn gfx12_listings_per_new_operand_shape() {
    let gen = Generation::Gfx12;
    for (op, k) in new_shapes(gen, Generation::Gfx11) {
        let header = format!(
            "kernel {} ({gen})\n{} bytes of code\n\n",
            k.name,
            k.code.len()
        );
        pin(
            "gfx12",
            &format!("listing_{}", op.name()),
            &(header + &k.annotated()),
        );
    }
}

/// The gfx1250 template, one listing per operand shape of the ops gfx1250 added to gfx12's (and
/// one load), pinned in `snapshots/kernels/gfx12.5/`: LLVM's MODE prologue and the workgroup id
/// computed from ttmp9, ttmp6 and IB_STS2 are visible in them.
#[test]
fn gfx1250_listings_per_new_operand_shape() {
    let gen = Generation::Gfx12_5;
    for (op, k) in new_shapes(gen, Generation::Gfx12) {
        let text = k.annotated();
        assert!(text.contains("s_setreg_imm32_b32 hwreg(HW_REG_WAVE_MODE, 25, 1), 1"));
        assert!(text.contains("s_getreg_b32 s4, hwreg(HW_REG_IB_STS2, 6, 4)"));
        let header = format!(
            "kernel {} ({gen})\n{} bytes of code\n\n",
            k.name,
            k.code.len()
        );
        pin(
            "gfx12.5",
            &format!("listing_{}", op.name()),
            &(header + &text),
        );
    }
}

/// The gfx10 template, pinned in `snapshots/kernels/gfx10/`: a load, a store, a returning atomic
/// and a two-address op in wave32, and the atomic in wave64; the gfx10 spellings
/// (`s_load_dwordx8`, `global_load_dword`, `ds_write_b32`), gfx10's `s_waitcnt` fields and the
/// `s_waitcnt_vscnt null, 0x0` around the copy loops' branches are visible in them.
#[test]
fn gfx10_listings() {
    use ds_isa::ds::Generation;
    use ds_kernels::generator::generate_in;
    use ds_reference::wave::{Variant, WaveSize};
    let gen = Generation::Gfx10;
    let ops = [
        (DsOp::LoadB32, WaveSize::Wave32),
        (DsOp::StoreB32, WaveSize::Wave32),
        (DsOp::AddRtnU32, WaveSize::Wave32),
        (DsOp::StorexchgRtnB32, WaveSize::Wave32),
        (DsOp::Load2addrB64, WaveSize::Wave32),
        (DsOp::AddRtnU32, WaveSize::Wave64),
    ];
    for (op, wave) in ops {
        let v = Variant {
            wave,
            ..common::variant(op)
        };
        let k = generate_in(gen, &v).unwrap();
        let header = format!(
            "kernel {} ({gen}, {wave})\n{} bytes of code\n\n",
            k.name,
            k.code.len()
        );
        pin(
            "gfx10",
            &format!("listing_{}", k.name),
            &(header + &k.annotated()),
        );
    }
}

/// Kernels whose operands share registers (`variant.regs`): the listing shows the real registers,
/// the template's own registers moved out of their way, and every operand register dumped.
#[test]
fn aliasing_listings() {
    use ds_reference::regs::Alias;
    for (name, alias) in [
        ("ds_load_2addr_b32", Alias::AddrFirstVdst),
        (
            "ds_storexchg_2addr_stride64_rtn_b64",
            Alias::AddrInVdstData0Data1,
        ),
        ("ds_load_2addr_b64", Alias::AddrLastVdst),
    ] {
        let op = DsOp::from_name(name).unwrap();
        let v = ds_reference::wave::Variant {
            regs: alias.regs(op),
            ..common::variant(op)
        };
        let k = generate_for(ds_isa::target::DEFAULT, &v).unwrap();
        let header = format!(
            "kernel {}\naliasing: {}; {} VGPRs; {} bytes of code\n\n",
            k.name,
            alias.name(),
            k.vgpr_count,
            k.code.len()
        );
        pin(
            "gfx11",
            &format!("listing_{}_{}", name, alias.name()),
            &(header + &k.annotated()),
        );
    }
}

/// The gfx9 template, pinned in `snapshots/kernels/gfx9/`, on gfx942 (CDNA 3): a load, a store,
/// a returning atomic, an exchange, a two-address op and a packed 16-bit add, and the atomic on
/// gfx900 (Vega) and gfx90a (CDNA 2); all wave64, gfx9's only size. Visible in them: the gfx9
/// spellings (`s_load_dwordx8 ... 0x0`, `global_load_dword`, `v_add_u32`, `ds_write_b32`), gfx9's
/// `s_waitcnt` fields, the work-item id mask (packed ids on gfx90a and gfx942, v0 whole on
/// gfx900) and the descriptor's fields (no GFX10 bits; VGPR granules of 8 and ACCUM_OFFSET on
/// gfx90a and gfx942).
#[test]
fn gfx9_listings() {
    use ds_isa::target::Target;
    use ds_kernels::generator::generate_for;
    use ds_reference::wave::{Variant, WaveSize};
    let on = |name: &str, ops: &[DsOp]| -> Vec<(&'static Target, DsOp)> {
        let t = Target::by_name(name).unwrap();
        ops.iter().map(|&op| (t, op)).collect()
    };
    let mut kernels = on(
        "gfx942",
        &[
            DsOp::LoadB32,
            DsOp::StoreB32,
            DsOp::AddRtnU32,
            DsOp::StorexchgRtnB32,
            DsOp::Load2addrB64,
            DsOp::PkAddRtnF16,
        ],
    );
    kernels.extend(on("gfx900", &[DsOp::AddRtnU32]));
    kernels.extend(on("gfx90a", &[DsOp::AddRtnU32]));
    for (t, op) in kernels {
        let v = Variant {
            wave: WaveSize::Wave64,
            ..common::variant(op)
        };
        let k = generate_for(t, &v).unwrap();
        let d = &k.descriptor;
        let header = format!(
            "kernel {} ({t}, {})\n{} bytes of code\ncompute_pgm_rsrc1 {:#010x}, rsrc2 {:#010x}, \
             rsrc3 {:#010x}, kernel_code_properties {:#06x}\n\n",
            k.name,
            v.wave,
            k.code.len(),
            d.compute_pgm_rsrc1,
            d.compute_pgm_rsrc2,
            d.compute_pgm_rsrc3,
            d.kernel_code_properties
        );
        pin(
            "gfx9",
            &format!("listing_{t}_{}", k.name),
            &(header + &k.annotated()),
        );
    }
}
