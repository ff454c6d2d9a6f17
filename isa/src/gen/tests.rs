//! The generations' data hangs together: each module is its generation's, its fields sit where
//! the guides put them, and what the old per-generation code answered the data answers.

use super::*;

#[test]
fn each_generation_is_its_own_module_in_table_order() {
    for (i, gen) in Generation::ALL.into_iter().enumerate() {
        assert_eq!(gen.column(), i);
        assert_eq!(gen.to_string(), gen.spec().name);
        assert!(gen.name().starts_with("gfx"));
    }
    assert_eq!(Generation::COUNT, Generation::ALL.len());
}

#[test]
fn the_rules_each_generation_chooses() {
    use Generation::*;
    let span: Vec<PermuteSpan> = Generation::ALL.map(|g| g.permute_span()).to_vec();
    assert_eq!(
        span,
        [
            PermuteSpan::Wave,
            PermuteSpan::Halves,
            PermuteSpan::Halves,
            PermuteSpan::Wave,
            PermuteSpan::Wave
        ]
    );
    let cmpst: Vec<CmpstData0> = Generation::ALL.map(|g| g.cmpst_data0()).to_vec();
    assert_eq!(
        cmpst,
        [
            CmpstData0::CompareValue,
            CmpstData0::CompareValue,
            CmpstData0::NewValue,
            CmpstData0::NewValue,
            CmpstData0::NewValue
        ]
    );
    assert!(Generation::ALL.iter().all(|g| g.swizzle_group() == 32));
    assert_eq!(
        Generation::ALL.map(|g| g.has_gds()),
        [true, true, true, false, false]
    );
    assert_eq!(
        Generation::ALL.map(|g| g.gfx9_mnemonics()),
        [true, true, false, false, false]
    );
    // Every rule of every generation is said in words, with its sources, by the rule's method.
    for gen in Generation::ALL {
        for rule in Rule::ALL {
            let t = gen.rule(rule);
            assert_eq!((t.rule, t.method), (rule, rule.method()));
            assert!(!t.choice.is_empty(), "{gen} {rule:?}");
            assert!(
                t.why.contains("LLVM") || t.why.contains("guides"),
                "{gen} {rule:?}"
            );
        }
    }
    assert!(Gfx11
        .rule(Rule::PermuteSpan)
        .choice
        .contains("32-lane half"));
    assert!(Gfx12
        .rule(Rule::PermuteSpan)
        .choice
        .contains("whole wave64"));
}

#[test]
fn the_ds_layouts_are_the_guides() {
    let l = Generation::Gfx9.ds_layout();
    assert_eq!(
        (l.op_shift, l.gds_bit, l.acc_bit, l.reserved_bit),
        (17, 16, Some(25), 25)
    );
    for gen in [
        Generation::Gfx10,
        Generation::Gfx11,
        Generation::Gfx12,
        Generation::Gfx12_5,
    ] {
        let l = gen.ds_layout();
        assert_eq!(
            (l.op_shift, l.gds_bit, l.acc_bit, l.reserved_bit),
            (18, 17, None, 16)
        );
    }
}

#[test]
fn waitcnt_layouts_leave_the_bits_the_guides_leave_unused() {
    let unused = Generation::ALL.map(|g| g.spec().waitcnt.unused());
    assert_eq!(unused, [0x3080, 0x0080, 0x0008, 0x0008, 0x0008]);
    for gen in Generation::ALL {
        let w = gen.spec().waitcnt;
        assert_eq!(w.vm_max(), 63, "{gen}");
        assert_eq!(w.exp.max(), 7, "{gen}");
    }
    assert_eq!(Generation::Gfx9.spec().waitcnt.lgkm.max(), 15);
    assert_eq!(Generation::Gfx10.spec().waitcnt.lgkm.max(), 63);
}

#[test]
fn the_global_formats_reserve_the_bits_the_decoder_refused() {
    // The masks the per-generation decoder used to test, now derived from the fields.
    let reserved = |g: Generation| {
        let f = g.spec().global;
        (0..f.dwords).map(|w| f.reserved(w)).collect::<Vec<u32>>()
    };
    assert_eq!(reserved(Generation::Gfx9), [0x0203_2000, 0x0080_0000]);
    assert_eq!(reserved(Generation::Gfx10), [0x0203_3000, 0x0080_0000]);
    assert_eq!(reserved(Generation::Gfx11), [0x0200_e000, 0x0080_0000]);
    assert_eq!(reserved(Generation::Gfx12), [0x00c0_3f80, 0x807f_ff00, 0]);
    assert_eq!(reserved(Generation::Gfx12_5), reserved(Generation::Gfx12));
}

#[test]
fn operand_codes_swap_m0_and_null_where_the_guides_do() {
    let c = Generation::ALL.map(|g| {
        let o = g.spec().operands;
        (o.m0, o.null, o.sgprs, o.off)
    });
    assert_eq!(
        c,
        [
            (124, None, 102, 0x7f),
            (124, Some(125), 106, 125),
            (125, Some(124), 106, 124),
            (125, Some(124), 106, 124),
            (125, Some(124), 106, 124)
        ]
    );
}

#[test]
fn bits_read_write_and_sign_extend() {
    let f = Bits::at(1, 8, 12);
    let mut w = [0u32; 2];
    f.put(&mut w, 0xabcd);
    assert_eq!(w, [0, 0xbcd00]);
    assert_eq!(f.get(&w), 0xbcd);
    assert_eq!(f.get_signed(&w), 0xbcd - 0x1000);
    assert!(f.fits_signed(-2048) && f.fits_signed(2047));
    assert!(!f.fits_signed(2048) && !f.fits_signed(-2049));
    assert_eq!((f.mask(), f.max()), (0x000f_ff00, 0xfff));
}

/// What only GFX 12.5 says of itself: workgroup clusters, the hardware registers its template
/// names, 16-VGPR descriptor granules; every older generation says none of it.
#[test]
fn only_gfx1250_has_clusters_hwreg_names_and_16_vgpr_granules() {
    let g = Generation::Gfx12_5;
    let c = g.clusters().expect("gfx1250 has clusters");
    assert_eq!((c.place_ttmp, c.dispatch_field), (6, (28, 6, 4)));
    assert_eq!((c.id_x.mask(), c.max_id_x.mask()), (0xf, 0xf000));
    assert_eq!(g.hwreg_name(1), Some("HW_REG_WAVE_MODE"));
    assert_eq!(g.hwreg_name(28), Some("HW_REG_IB_STS2"));
    assert_eq!(g.hwreg_name(2), None);
    assert_eq!(g.spec().vgpr_granule32, 16);
    for old in g.others() {
        assert!(
            old.clusters().is_none() && old.spec().hwregs.is_empty(),
            "{old}"
        );
        assert_eq!(old.spec().vgpr_granule32, 8, "{old}");
    }
    // Its formats are gfx12's, its DS layout gfx12's (no gds bit).
    let (a, b) = (g.spec(), Generation::Gfx12.spec());
    assert_eq!(
        (a.ds, a.smem, a.vop3, a.global),
        (b.ds, b.smem, b.vop3, b.global)
    );
    assert_eq!((a.operands, a.waitcnt), (b.operands, b.waitcnt));
}
