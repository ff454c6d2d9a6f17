//! docs/architecture.md carries the kernels' entry-state table ([`ds_kernels::entry::markdown_table`])
//! word for word, so the document cannot drift from what the template, the descriptor and the
//! emulated device read.

#[test]
fn the_architecture_doc_carries_the_entry_state_table() {
    let table = ds_kernels::entry::markdown_table();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/architecture.md");
    let doc = std::fs::read_to_string(path).expect("docs/architecture.md");
    assert!(
        doc.contains(&table),
        "docs/architecture.md does not carry the entry-state table; paste this in:\n{table}"
    );
}
