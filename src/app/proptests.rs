//! Properties of the forest index and the rows on random ownership graphs:
//! the index kept incrementally equals one built from scratch after any
//! sequence of upserts and removals, and fully expanded rows list the same
//! objects in the same order as the model's forest.

use proptest::prelude::*;

use super::index::ForestIndex;
use super::rows::{self, Expansion, Filters, RowNode};
use crate::model::forest::{self, ForestNode};
use crate::model::{KindTable, Object, OwnerReference, OwnershipGraph};

/// An object: namespace (0-1, 2 = cluster-scoped ConfigMap-like kinds are
/// namespaced, so cluster objects are Namespaces), owners by index and
/// whether each reference carries the right uid.
#[derive(Clone, Debug)]
struct Spec {
    ns: u8,
    owners: Vec<(usize, bool)>,
}

fn object(i: usize, spec: &Spec) -> Object {
    let (api, kind, ns) = match spec.ns {
        0 => ("v1", "ConfigMap", Some("a")),
        1 => ("v1", "ConfigMap", Some("b")),
        _ => ("v1", "Namespace", None),
    };
    let mut o = Object::new(api, kind, ns, &format!("o{i:02}"));
    o.metadata.uid = format!("u{i:02}");
    for (j, right_uid) in &spec.owners {
        o.metadata.owner_references.push(OwnerReference {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: format!("o{j:02}"),
            uid: if *right_uid {
                format!("u{j:02}")
            } else {
                format!("x{j:02}")
            },
            controller: None,
            block_owner_deletion: Some(true),
        });
    }
    o
}

fn specs(acyclic: bool) -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(
        (
            0u8..3,
            prop::collection::vec((0usize..10, prop::bool::weighted(0.85)), 0..3),
        ),
        1..10,
    )
    .prop_map(move |v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (ns, owners))| Spec {
                ns,
                owners: owners
                    .into_iter()
                    .filter(|(j, _)| !acyclic || *j < i)
                    .collect(),
            })
            .collect()
    })
}

/// Roots, children and search label by object, problems, Terminating.
type Shape = (
    Vec<String>,
    Vec<(String, Vec<String>, String)>,
    usize,
    usize,
);

/// The index's shape, by uid.
fn shape(ix: &ForestIndex) -> Shape {
    let roots: Vec<String> = ix.roots().map(|k| k.uid.to_string()).collect();
    let mut kids: Vec<(String, Vec<String>, String)> = (0..10)
        .map(|i| format!("u{i:02}"))
        .filter_map(|u| ix.id(&u).map(|id| (u, id)))
        .map(|(u, id)| {
            let c = ix.children(&u).map(str::to_string).collect();
            let label = ix.label(id).to_string();
            (u, c, label)
        })
        .collect();
    kids.sort();
    (roots, kids, ix.problem_count(), ix.terminating_count())
}

/// Fully expanded, every object has a row, cycles included.
fn nothing_hidden(g: &OwnershipGraph, ix: &ForestIndex) -> bool {
    let rows = rows::build(ix, &Expansion::new(true), &Filters::default());
    let shown: std::collections::HashSet<&str> = rows
        .iter()
        .filter_map(|r| r.id().map(|id| ix.uid(id)))
        .collect();
    g.objects().all(|o| shown.contains(o.uid()))
}

fn flatten(nodes: &[ForestNode], depth: u16, out: &mut Vec<(u16, String)>) {
    for n in nodes {
        out.push((depth, n.object.uid.clone()));
        flatten(&n.children, depth + 1, out);
    }
}

proptest! {
    #[test]
    fn incremental_index_equals_a_rebuild(
        specs in specs(false),
        removals in prop::collection::vec(0usize..10, 0..6),
        updates in prop::collection::vec((0usize..10, any::<bool>()), 0..6),
    ) {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let mut ix = ForestIndex::build(&g);
        for (i, s) in specs.iter().enumerate() {
            let o = object(i, s);
            let uid = o.uid().to_string();
            g.upsert(o);
            ix.touch(&g, &uid, &[]);
            prop_assert_eq!(shape(&ix), shape(&ForestIndex::build(&g)));
            prop_assert!(nothing_hidden(&g, &ix));
        }
        // Updates: a finalizer added (the owners kept: nothing moves), or
        // the owner references dropped (the object moves to the roots).
        for (u, keep_owners) in updates {
            let uid = format!("u{u:02}");
            let Some(mut o) = g.get(&uid).cloned() else { continue };
            let owners: Vec<String> =
                o.metadata.owner_references.iter().map(|r| r.uid.clone()).collect();
            if keep_owners {
                o.metadata.finalizers.push("example.com/f".into());
            } else {
                o.metadata.owner_references.clear();
            }
            g.upsert(o);
            // Its identity kept: its referrers are looked at again only
            // when it moved or its root mark changed.
            ix.touch_with(&g, &uid, &owners, true);
            prop_assert_eq!(shape(&ix), shape(&ForestIndex::build(&g)));
            prop_assert!(nothing_hidden(&g, &ix));
        }
        for r in removals {
            let uid = format!("u{r:02}");
            if let Some(old) = g.remove(&uid) {
                let owners: Vec<String> =
                    old.metadata.owner_references.iter().map(|r| r.uid.clone()).collect();
                ix.touch(&g, &uid, &owners);
                prop_assert_eq!(shape(&ix), shape(&ForestIndex::build(&g)));
                prop_assert!(nothing_hidden(&g, &ix));
            }
        }
    }

    #[test]
    fn expanded_rows_follow_the_models_forest(specs in specs(true)) {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for (i, s) in specs.iter().enumerate() {
            g.upsert(object(i, s));
        }
        let ix = ForestIndex::build(&g);
        let rows = rows::build(&ix, &Expansion::new(true), &Filters::default());
        let ours: Vec<(u16, String)> = rows
            .iter()
            .filter_map(|r| match r.node {
                RowNode::Object { id, .. } => Some((r.depth - 1, ix.uid(id).to_string())),
                _ => None,
            })
            .collect();
        let mut theirs = Vec::new();
        for group in forest::build(&g, jiff::Timestamp::UNIX_EPOCH) {
            flatten(&group.roots, 0, &mut theirs);
        }
        prop_assert_eq!(ours, theirs);
    }
}

/// An object of the patch test: one of the specs, or (past them) a new
/// one owned by an earlier one.
/// An App on `specs`, the rows at `closed` collapsed, scoped to namespace
/// `a` or not.
fn app_of(specs: &[Spec], closed: &[usize], scoped: bool) -> super::App {
    use super::{App, Options, Scope};
    use crate::backend::Update;
    let mut app = App::new(Options::default());
    app.apply(Update::Reset {
        objects: specs
            .iter()
            .enumerate()
            .map(|(i, s)| object(i, s).into())
            .collect(),
        kinds: Box::new(KindTable::builtin()),
    });
    for &c in closed {
        if let Some(r) = app.rows.get(c) {
            let (key, group) = (r.key, r.depth == 0);
            app.expansion.set(key, group, false);
        }
    }
    if scoped {
        app.filters.scope = Scope::Namespace("a".into());
    }
    app.rebuild();
    app
}

fn nth(specs: &[Spec], i: usize) -> Spec {
    specs.get(i).cloned().unwrap_or_else(|| Spec {
        ns: u8::try_from(i % 3).unwrap_or(0),
        owners: vec![(i % 7, true)],
    })
}

proptest! {
    /// The rows the App patches where the forest changed shape (after
    /// upserts, removals and ghosts ending) are the rows a full build
    /// gives, ghosts put back alike, whatever is collapsed and whatever
    /// namespace is in scope.
    #[test]
    fn patched_rows_equal_a_rebuild(
        specs in specs(false),
        ops in prop::collection::vec((0usize..12, 0u8..5), 1..30),
        batch in 1usize..4,
        closed in prop::collection::vec(0usize..30, 0..4),
        scoped in any::<bool>(),
    ) {
        use crate::backend::Update;
        let mut app = app_of(&specs, &closed, scoped);
        for chunk in ops.chunks(batch) {
            let mut updates = Vec::new();
            for (i, op) in chunk {
                let uid = format!("u{i:02}");
                match op {
                    0 => updates.push(Update::Remove(uid)),
                    1 => updates.push(Update::Upsert(object(*i, &nth(&specs, *i)).into())),
                    2 => {
                        let mut o = object(*i, &nth(&specs, *i));
                        o.metadata.owner_references.clear();
                        updates.push(Update::Upsert(o.into()));
                    }
                    3 => {
                        let mut o = object(*i, &nth(&specs, *i));
                        o.metadata.finalizers.push("example.com/f".into());
                        updates.push(Update::Upsert(o.into()));
                    }
                    _ => {
                        app.apply_all(std::mem::take(&mut updates));
                        app.tick(std::time::Duration::from_millis(1_500));
                    }
                }
            }
            app.apply_all(updates);
            let mut full = app
                .flashes
                .with_ghosts(rows::build(&app.index, &app.expansion, &app.filters));
            rows::recount_groups(&mut full);
            prop_assert_eq!(&app.rows, &full);
        }
    }
}

proptest! {
    /// Rows opened and closed from the keyboard (one row, a row and all
    /// below it, a jump that opens the rows above what it finds) are
    /// made again where they changed: the rows a full build gives, whatever
    /// was collapsed, whatever namespace is in scope, with changes and
    /// ghost rows in between or not.
    #[test]
    fn rows_opened_and_closed_equal_a_rebuild(
        specs in specs(false),
        closed in prop::collection::vec(0usize..30, 0..4),
        keys in prop::collection::vec((0usize..30, 0u8..8, 0usize..12), 1..12),
        scoped in any::<bool>(),
    ) {
        let mut app = app_of(&specs, &closed, scoped);
        for (row, op, wanted) in keys {
            if app.rows.is_empty() {
                break;
            }
            app.select(row);
            match op {
                0 => app.toggle(),
                1 => app.left(),
                2 => app.right(),
                3 => app.set_below(true),
                4 => app.set_below(false),
                // A change in between: the rows made again with it (its
                // ghost, a new owner's subtree), then the ghost gone.
                5 => {
                    use crate::backend::Update;
                    let uid = format!("u{wanted:02}");
                    if wanted % 2 == 0 {
                        app.apply_all(vec![Update::Remove(uid)]);
                    } else {
                        let o = object(wanted, &nth(&specs, wanted));
                        app.apply_all(vec![Update::Upsert(o.into())]);
                    }
                }
                6 => {
                    app.tick(std::time::Duration::from_millis(1_500));
                }
                _ => {
                    let index = app.index.clone();
                    let pred = |id| {
                        let uid = index.uid(id);
                        uid[1..].parse::<usize>().is_ok_and(|i| i % 10 == wanted)
                    };
                    if let Some(f) = app.find(true, false, pred) {
                        app.reveal(&f);
                        prop_assert_eq!(app.selected_key, Some(f.key));
                    }
                }
            }
            let mut full = app
                .flashes
                .with_ghosts(rows::build(&app.index, &app.expansion, &app.filters));
            rows::recount_groups(&mut full);
            prop_assert_eq!(&app.rows, &full);
        }
    }
}

proptest! {
    /// A jump or a search looked for from the rows (each row, then what it
    /// hides) lands where a walk of the whole forest from its top lands,
    /// forward and backward, from any selection, whatever is collapsed and
    /// whatever namespace is in scope; a match on a shown row opens
    /// nothing, one inside a closed row opens the same rows.
    #[test]
    fn a_find_from_the_rows_lands_where_a_walk_does(
        specs in specs(false),
        closed in prop::collection::vec(0usize..12, 0..6),
        wanted in prop::collection::vec(any::<bool>(), 10),
        selected in 0usize..14,
        forward in any::<bool>(),
        inclusive in any::<bool>(),
        scoped in any::<bool>(),
    ) {
        let mut app = app_of(&specs, &closed, scoped);
        if !app.rows.is_empty() {
            app.select(selected);
        }
        let index = app.index.clone();
        let pred = |id| {
            let uid = index.uid(id);
            uid[1..].parse::<usize>().is_ok_and(|i| wanted[i % 10])
        };
        let ours = app.find_from_rows(forward, inclusive, &pred);
        let walked = app.find_by_walk(forward, inclusive, pred);
        prop_assert_eq!(ours.as_ref().map(|f| f.key), walked.as_ref().map(|f| f.key));
        if let (Some(o), Some(w)) = (ours, walked) {
            if o.ancestors.is_empty() {
                prop_assert!(app.rows.iter().any(|r| r.key == o.key));
            } else {
                prop_assert_eq!(o.ancestors, w.ancestors);
            }
        }
    }
}

proptest! {
    /// Updates folded in a time's worth at a time (one by one, with a
    /// budget of nothing) leave the forest as folding them all at once
    /// does: the same index and the same rows, but for the ghosts of what
    /// was added and removed between two rounds (it was on screen for a
    /// moment).
    #[test]
    fn folding_in_rounds_equals_folding_at_once(
        specs in specs(false),
        ops in prop::collection::vec((0usize..12, 0u8..4), 1..30),
        closed in prop::collection::vec(0usize..30, 0..4),
        scoped in any::<bool>(),
    ) {
        use crate::backend::Update;
        let mut once = app_of(&specs, &closed, scoped);
        let mut rounds = once.clone();
        let updates: Vec<Update> = ops
            .iter()
            .map(|(i, op)| {
                let uid = format!("u{i:02}");
                let mut o = object(*i, &nth(&specs, *i));
                match op {
                    0 => return Update::Remove(uid),
                    2 => o.metadata.owner_references.clear(),
                    3 => o.metadata.finalizers.push("example.com/f".into()),
                    _ => {}
                }
                Update::Upsert(o.into())
            })
            .collect();
        once.apply_all(updates.clone());
        let mut queue: std::collections::VecDeque<Update> = updates.into();
        while !queue.is_empty() {
            let before = queue.len();
            rounds.apply_for(&mut queue, Some(std::time::Duration::ZERO));
            prop_assert_eq!(queue.len(), before - 1);
        }
        prop_assert_eq!(shape(&rounds.index), shape(&once.index));
        let objects = |app: &super::App| -> Vec<(u16, String)> {
            app.rows
                .iter()
                .filter_map(|r| r.id().map(|id| (r.depth, app.index.uid(id).to_string())))
                .collect()
        };
        prop_assert_eq!(objects(&rounds), objects(&once));
    }
}

/// A row deep in an ownership cycle closed and opened again: its rows made
/// again where they are mark the cycle where a full build does (the ids
/// above the row count, not only those below it).
#[test]
fn a_row_inside_a_cycle_opened_again_marks_the_cycle_as_a_build_does() {
    let owned_by = |j: usize| Spec {
        ns: 0,
        owners: vec![(j, true)],
    };
    // o00 <- o01 <- o02 <- o00 (each owned by the one before), and o03 a
    // dependent of o02 so that the cycle hangs below a root.
    let specs = vec![owned_by(2), owned_by(0), owned_by(1), owned_by(2)];
    let mut app = app_of(&specs, &[], false);
    let deep: Vec<usize> = (0..app.rows.len())
        .filter(|&i| app.rows[i].depth >= 2 && app.rows[i].has_children)
        .collect();
    assert!(!deep.is_empty(), "{:?}", app.rows);
    for i in deep {
        app.select(i);
        app.toggle();
        app.toggle();
        let mut full =
            app.flashes
                .with_ghosts(rows::build(&app.index, &app.expansion, &app.filters));
        rows::recount_groups(&mut full);
        assert_eq!(app.rows, full, "row {i}");
    }
    assert!(
        app.rows
            .iter()
            .any(|r| matches!(r.node, RowNode::Object { cycle: true, .. })),
        "a cycle row: {:?}",
        app.rows
    );
}

/// Opening all below an object of a cycle whose objects have two owners
/// each ends, and opens what a build then shows: every path down stops
/// where an object comes round again.
#[test]
fn opening_all_below_a_cycle_of_many_owners_ends() {
    let owned_by = |a: usize, b: usize| Spec {
        ns: 0,
        owners: vec![(a, true), (b, true)],
    };
    let specs = vec![
        owned_by(1, 2),
        owned_by(2, 3),
        owned_by(3, 0),
        owned_by(0, 1),
    ];
    let mut app = app_of(&specs, &[], false);
    for i in 0..app.rows.len().min(4) {
        app.select(i);
        app.set_below(false);
        app.set_below(true);
        let mut full =
            app.flashes
                .with_ghosts(rows::build(&app.index, &app.expansion, &app.filters));
        rows::recount_groups(&mut full);
        assert_eq!(app.rows, full, "row {i}");
    }
}

/// An object row as a walk one row at a time makes it: id, owner in its
/// path, key, depth, cycle, has children, open.
type Walked = (u32, Option<u32>, rows::RowKey, u16, bool, bool, bool);

/// The object rows under `id`, one recursive step per row: what
/// [`rows::build`] gives, without its shortcuts.
fn walked(
    ix: &ForestIndex,
    expansion: &Expansion,
    (id, parent, key, depth): (u32, Option<u32>, rows::RowKey, u16),
    path: &mut Vec<u32>,
    out: &mut Vec<Walked>,
) {
    let cycle = path.contains(&id);
    let children = ix.children_of(id);
    let has_children = !cycle && !children.is_empty();
    let open = has_children && expansion.is_open(key, false);
    out.push((id, parent, key, depth, cycle, has_children, open));
    if open {
        path.push(id);
        for c in children {
            let child = (*c, Some(id), key.child_hash(ix.uid_hash(*c)), depth + 1);
            walked(ix, expansion, child, path, out);
        }
        path.pop();
    }
}

proptest! {
    /// Every object row of a build (the leaves of an opened row emitted
    /// at once among them) is the row a walk one row at a time makes, in
    /// its order, with its key, owner, depth and marks, whatever is open
    /// or closed, cycles included.
    #[test]
    fn built_rows_equal_a_walk_one_row_at_a_time(
        specs in specs(false),
        default_open in any::<bool>(),
        toggled in prop::collection::vec(0usize..40, 0..6),
    ) {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for (i, s) in specs.iter().enumerate() {
            g.upsert(object(i, s));
        }
        let ix = ForestIndex::build(&g);
        let mut expansion = Expansion::new(default_open);
        let all = rows::build(&ix, &Expansion::new(true), &Filters::default());
        for t in toggled {
            if let Some(r) = all.get(t).filter(|r| r.id().is_some()) {
                let open = expansion.is_open(r.key, false);
                expansion.set(r.key, false, !open);
            }
        }
        let built: Vec<Walked> = rows::build(&ix, &expansion, &Filters::default())
            .iter()
            .filter_map(|r| match r.node {
                RowNode::Object { id, parent, cycle } => {
                    Some((id, parent, r.key, r.depth, cycle, r.has_children, r.open))
                }
                _ => None,
            })
            .collect();
        let mut theirs = Vec::new();
        for rk in ix.roots() {
            let ns = (!rk.namespace.is_empty()).then_some(&*rk.namespace);
            let key = rows::RowKey::group(ns).child_hash(ix.uid_hash(rk.id));
            walked(&ix, &expansion, (rk.id, None, key, 1), &mut Vec::new(), &mut theirs);
        }
        prop_assert_eq!(built, theirs);
    }
}

/// What a kind starting or stopping being seen touches, found by a look at
/// every object (as it was before the referrers index was used for it).
fn touched_by_a_scan(g: &OwnershipGraph, moved: &[(String, String)]) -> Vec<(String, Vec<String>)> {
    let is_moved = |group: &str, kind: &str| moved.iter().any(|(gr, k)| k == kind && gr == group);
    g.objects()
        .filter(|o| {
            (is_moved(o.group(), &o.kind) && g.referrers(o.uid()).next().is_some())
                || o.metadata
                    .owner_references
                    .iter()
                    .any(|r| is_moved(crate::model::group_of(&r.api_version), &r.kind))
        })
        .map(|o| {
            let owners = o.metadata.owner_references.iter().map(|r| r.uid.clone());
            (o.uid().to_string(), owners.collect())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The objects judged again when kinds come to be seen (or stop being
    /// seen) are those a look at every object finds, in the same order,
    /// on graphs with references that resolve, dangle or loop.
    #[test]
    fn what_a_kind_seen_touches_equals_a_look_at_every_object(
        specs in specs(false),
        removals in prop::collection::vec(0usize..10, 0..4),
        moved in prop::sample::subsequence(vec![("", "ConfigMap"), ("", "Namespace"), ("", "Pod")], 0..=3),
    ) {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for (i, s) in specs.iter().enumerate() {
            g.upsert(object(i, s));
        }
        for r in removals {
            g.remove(&format!("u{r:02}"));
        }
        let moved: Vec<(String, String)> = moved
            .into_iter()
            .map(|(g, k)| (g.to_string(), k.to_string()))
            .collect();
        prop_assert_eq!(
            super::feed::touched_when_seen(&g, &moved),
            touched_by_a_scan(&g, &moved)
        );
    }
}
