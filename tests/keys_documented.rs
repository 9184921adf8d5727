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

/// The other way: every key the tree's table documents is bound in the
/// tree (a key moved elsewhere, such as `d` from delete to describe, must
/// have its row rewritten).
#[test]
fn every_documented_tree_key_is_bound() {
    let keys = include_str!("../docs/keys.md");
    let table = keys
        .split("| keys | in the tree |")
        .nth(1)
        .and_then(|t| t.split("\n\n").next())
        .expect("docs/keys.md has the tree's key table");
    let bound: Vec<String> = NORMAL
        .iter()
        .flat_map(|b| b.keys.iter().map(keymap::key_label))
        .collect();
    for row in table.lines().skip(2) {
        let first = row.split(" | ").next().unwrap_or_default();
        for key in first.split('`').skip(1).step_by(2) {
            assert!(
                bound.iter().any(|b| b == key),
                "docs/keys.md documents `{key}` in the tree, which no tree key is: {row}"
            );
        }
    }
}

/// What sends a request takes only Enter, and the key reference says so.
#[test]
fn the_reference_says_only_enter_sends() {
    use ownerscope::app::Action;
    let keys = include_str!("../docs/keys.md");
    assert!(!keys.contains("`Enter`/`y`"), "y never confirms");
    for table in [keymap::DELETE, keymap::CONFIRM, keymap::FINALIZER_TYPE] {
        let confirm: Vec<String> = table
            .iter()
            .filter(|b| b.action == Action::Confirm)
            .flat_map(|b| b.keys.iter().map(keymap::key_label))
            .collect();
        assert_eq!(confirm, ["Enter"]);
    }
    assert!(keys.contains("takes only `Enter`"), "{keys}");
}
