//! The DS table's documentation (the table rendered as markdown) is pinned by an insta
//! snapshot, so any change to a row shows up as a reviewed diff of the docs.

use ds_reference::isa::{render_markdown, render_markdown_in, DsOp, Generation, DS_OPS};

#[test]
fn table_renders_as_markdown_docs() {
    let md = render_markdown();
    // One table line per op, each naming its mnemonic.
    for row in DS_OPS {
        assert!(
            md.contains(&format!("| `{}` |", row.name)),
            "{} missing",
            row.name
        );
    }
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference"),
        prepend_module_to_snapshot => false,
        description => "reference::isa::render_markdown(): the DS table as markdown",
    }, {
        insta::assert_snapshot!("ds_table", md);
    });
}

#[test]
fn gfx12_table_renders_as_markdown_docs() {
    let md = render_markdown_in(Generation::Gfx12);
    for op in DsOp::all_in(Generation::Gfx12) {
        assert!(md.contains(&format!("| `{}` |", op.name())), "{op} missing");
    }
    // No gfx11-only op, no gds column.
    assert!(!md.contains("ds_gws") && !md.contains("| `0x12` | `ds_min_f32` |"));
    assert!(md.contains("| `0x12` | `ds_min_num_f32` | `ds_min_f32` |"));
    assert!(md.contains("123 opcodes (119 known to LLVM 19, 4 only to LLVM 22)"));
    assert!(md.contains("`ds_subrev_u32` (ds_rsub_u32)"));
    insta::with_settings!({
        snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/reference"),
        prepend_module_to_snapshot => false,
        description => "reference::isa::render_markdown_in(Gfx12): the gfx12 DS table as markdown",
    }, {
        insta::assert_snapshot!("ds_table_gfx12", md);
    });
}
