//! Every key of the tree's key table is in the key reference
//! (`docs/keys.md`, which the README links), so the documentation cannot
//! drift from what the keys do.

use ownerscope::keymap::{self, NORMAL};

#[test]
fn every_tree_key_is_documented() {
    let keys = include_str!("../docs/keys.md");
    let table = keys
        .split("| keys | in the tree |")
        .nth(1)
        .expect("docs/keys.md has the tree's key table");
    for b in NORMAL {
        for k in b.keys {
            let label = format!("`{}`", keymap::key_label(k));
            assert!(
                table.contains(&label),
                "{label} ({}) is missing from the tree's key table in docs/keys.md",
                b.desc
            );
        }
    }
}

#[test]
fn the_readme_links_the_key_reference() {
    let readme = include_str!("../README.md");
    assert!(
        readme.contains("(docs/keys.md)"),
        "the README links docs/keys.md"
    );
}
