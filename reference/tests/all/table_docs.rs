//! The DS table's documentation (the table rendered as markdown) is pinned by an insta
//! snapshot, so any change to a row shows up as a reviewed diff of the docs.

use ds_isa::ds::{render_markdown, DsOp, Generation};

#[test]
fn table_renders_as_markdown_docs() {
    let md = render_markdown(Generation::Gfx11);
    // One table line per op, each naming its mnemonic.
    for op in DsOp::all(Generation::Gfx11) {
        assert!(md.contains(&format!("| `{}` |", op.name())), "{op} missing");
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx11"),
        prepend_module_to_snapshot => false,
        description => "ds_isa::ds::render_markdown(Gfx11): the gfx11 DS table as markdown",
    }, {
        insta::assert_snapshot!("ds_table", md);
    });
}

#[test]
fn gfx12_table_renders_as_markdown_docs() {
    let md = render_markdown(Generation::Gfx12);
    for op in DsOp::all(Generation::Gfx12) {
        assert!(md.contains(&format!("| `{}` |", op.name())), "{op} missing");
    }
    // No gfx11-only op, no gds column.
    assert!(!md.contains("ds_gws") && !md.contains("| `0x12` | `ds_min_f32` |"));
    assert!(md.contains("| `0x12` | `ds_min_num_f32` | `ds_min_f32` |"));
    assert!(md.contains("123 opcodes (119 known to LLVM 19, 4 only to LLVM 22)"));
    assert!(md.contains("`ds_subrev_u32` (ds_rsub_u32)"));
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference/gfx12"),
        prepend_module_to_snapshot => false,
        description => "ds_isa::ds::render_markdown(Gfx12): the gfx12 DS table as markdown",
    }, {
        insta::assert_snapshot!("ds_table", md);
    });
}

/// The gfx9 and gfx10 tables render for every target (each example is legal there) and for the
/// generation, in the gfx9 spellings, with exactly the target's ops.
#[test]
fn gfx9_and_gfx10_tables_render_for_every_target_in_their_spelling() {
    use ds_isa::ds::Isa;
    use ds_isa::target::TARGETS;
    for t in TARGETS.iter().filter(|t| t.generation.gfx9_mnemonics()) {
        let md = render_markdown(t);
        for op in DsOp::all(t.generation) {
            let row = format!("| `{}` |", op.mnemonic(t.generation));
            assert_eq!(md.contains(&row), op.info().on(t), "{t}: {op}");
        }
        assert!(md.contains("| `ds_write_b32` | `ds_store_b32` |"), "{t}");
        let mnemonics: Vec<&str> = md.lines().filter_map(|l| l.split('|').nth(2)).collect();
        assert!(!mnemonics.contains(&" `ds_store_b32` "), "{t}");
        assert!(md.starts_with(&format!("# {t} DS instructions")));
    }
    let gfx90a = render_markdown(ds_isa::target::Target::by_name("gfx90a").unwrap());
    assert!(
        gfx90a.contains("a[") && gfx90a.contains("lacks") && gfx90a.contains("ds_add_src2_u32")
    );
    let gfx9 = render_markdown(Generation::Gfx9);
    assert!(gfx9.contains("the ops every gfx9 target has"));
    assert_eq!(
        DsOp::all_on(Isa::common(Generation::Gfx9)).count(),
        gfx9.lines().filter(|l| l.starts_with("| `0x")).count()
    );
}

/// Every other generation's table pinned in its own snapshot folder
/// (`snapshots/reference/<generation>/ds_table.snap`), as gfx11's and gfx12's are above.
#[test]
fn every_generation_s_table_is_pinned_in_its_folder() {
    let pinned_above = [Generation::Gfx11, Generation::Gfx12];
    for gen in Generation::ALL
        .into_iter()
        .filter(|g| !pinned_above.contains(g))
    {
        // A row per op every target of the generation has (which, in which spelling: the test
        // above, for gfx9 and gfx10).
        let md = render_markdown(gen);
        assert_eq!(
            DsOp::all_on(ds_isa::ds::Isa::common(gen)).count(),
            md.lines().filter(|l| l.starts_with("| `0x")).count(),
            "{gen}"
        );
        let dir = format!(
            "{}/../snapshots/reference/{gen}",
            env!("CARGO_MANIFEST_DIR")
        );
        insta::with_settings!({
            snapshot_path => dir,
            prepend_module_to_snapshot => false,
            description => format!("ds_isa::ds::render_markdown({gen}): the {gen} DS table as markdown"),
        }, {
            insta::assert_snapshot!("ds_table", md);
        });
    }
}
