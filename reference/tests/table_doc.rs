//! The DS table's documentation (the table rendered as markdown) is pinned by an insta
//! snapshot, so any change to a row shows up as a reviewed diff of the docs.

use ds_reference::isa::{render_markdown, DS_OPS};

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
