//! Every key of the tree's key table is in the README's key table, so the
//! documentation cannot drift from what the keys do.

use ownerscope::keymap::{self, NORMAL};

#[test]
fn every_tree_key_is_documented() {
    let readme = include_str!("../README.md");
    let keys_section = readme
        .split("### Keys")
        .nth(1)
        .expect("README has a Keys section");
    for b in NORMAL {
        for k in b.keys {
            let label = format!("`{}`", keymap::key_label(k));
            assert!(
                keys_section.contains(&label),
                "{label} ({}) is missing from the README's Keys section",
                b.desc
            );
        }
    }
}
