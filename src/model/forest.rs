//! The forest: roots grouped by namespace (cluster-scoped roots in their own
//! group), dependents under their owners, an object with several owners
//! under each of them. Used by `tree` (text and JSON) and the UI.

use std::collections::{BTreeMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;

use super::badges::{Badge, edge_badges, object_badges_under};
use super::graph::OwnershipGraph;
use super::object::{ObjRef, Object, OwnerReference, Uid};

mod write;
use write::label;
pub use write::to_text;

/// One node of the forest.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForestNode {
    pub object: ObjRef,
    /// The reference from this object to the owner it is shown under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge: Option<OwnerReference>,
    pub badges: Vec<Badge>,
    pub children: Vec<ForestNode>,
}

/// The roots of one namespace, or of the cluster scope.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForestGroup {
    /// `None` for cluster-scoped roots.
    pub namespace: Option<String>,
    pub roots: Vec<ForestNode>,
}

impl ForestGroup {
    /// `namespace shop` or `cluster-scoped`.
    #[must_use]
    pub fn label(&self) -> String {
        label(self.namespace.as_deref())
    }
}

/// Levels drawn below a root. Real ownership is a few levels deep; a file
/// can hold a chain of thousands, which would overflow the stack of every
/// walk of the nested tree (building, printing, JSON, dropping).
pub const MAX_TREE_DEPTH: usize = 200;

/// Nodes drawn before an object already drawn stops being expanded again
/// under its other owners: a "diamond ladder" of shared dependents doubles
/// at every rung.
fn node_budget(objects: usize) -> usize {
    objects.saturating_mul(4).max(100_000)
}

/// Builds the whole forest.
#[must_use]
pub fn build(graph: &OwnershipGraph, now: Timestamp) -> Vec<ForestGroup> {
    Forest::of(graph, now).groups()
}

/// The tree of one object, as `kubectl tree KIND/NAME` shows it: its
/// dependents down and, above it, its owners up to their roots (each owner
/// shows only the branch that leads to the object).
#[must_use]
pub fn focus(graph: &OwnershipGraph, uid: &str, now: Timestamp) -> Vec<ForestGroup> {
    Forest::focus(graph, uid, now).groups()
}

/// The forest as a walk of the graph lays it out, borrowed from the
/// graph: each group's nodes in pre-order. `tree` prints it from here
/// without building the nested [`ForestNode`]s, which copied every
/// object's identity and owner reference (a second copy of the metadata
/// of a million objects before the first line was printed).
pub struct Forest<'g> {
    graph: &'g OwnershipGraph,
    now: Timestamp,
    /// In print order: namespaces first, cluster-scoped last.
    groups: Vec<(Option<&'g str>, Vec<Row<'g>>)>,
}

/// One node of the forest, in pre-order: 32 bytes, a row for every
/// object drawn (a [`Badge`] held here made it 112).
struct Row<'g> {
    object: &'g Object,
    /// The reference from the object to the owner it is shown under.
    edge: Option<&'g OwnerReference>,
    /// Under [`MAX_TREE_DEPTH`] levels (and one more for the cycle's mark).
    depth: u32,
    children: u32,
    /// Why its dependents are not drawn here.
    stop: Option<Stop>,
}

impl Row<'_> {
    fn depth(&self) -> usize {
        self.depth as usize
    }

    fn children(&self) -> usize {
        self.children as usize
    }
}

/// Why a row's dependents are not drawn under it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stop {
    /// It is its own owner, through the rows above it.
    Cycle,
    /// [`MAX_TREE_DEPTH`] levels down.
    TooDeep,
    /// Drawn under another owner, and the walk's node budget is spent.
    ShownAbove,
}

impl Stop {
    /// The badge that says it.
    fn badge(self) -> Badge {
        match self {
            Stop::Cycle => Badge::Cycle,
            Stop::TooDeep => Badge::NotExpanded {
                why: format!("deeper than {MAX_TREE_DEPTH} levels: tree KIND/NAME from here"),
            },
            Stop::ShownAbove => Badge::NotExpanded {
                why: "dependents shown above".to_string(),
            },
        }
    }
}

/// A count kept in a row's 32 bits (a graph holds fewer objects).
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'g> Forest<'g> {
    /// The whole forest.
    #[must_use]
    pub fn of(graph: &'g OwnershipGraph, now: Timestamp) -> Self {
        let links = Links::of(graph);
        let mut walk = Walk::new(graph, Some(&links));
        let mut groups: BTreeMap<Option<&str>, Vec<Row>> = BTreeMap::new();
        for (ns, roots) in &links.roots {
            let rows = groups.entry(*ns).or_default();
            for root in roots {
                if !walk.seen(root) {
                    walk.node(rows, root, None);
                }
            }
        }
        walk.cycles(&mut groups);
        Forest::in_order(graph, now, groups)
    }

    /// The tree of one object: see [`focus`].
    #[must_use]
    pub fn focus(graph: &'g OwnershipGraph, uid: &str, now: Timestamp) -> Self {
        // Every owner above the object, through any chain.
        let mut above: HashSet<Uid> = HashSet::new();
        let mut stack = vec![uid.to_string()];
        while let Some(u) = stack.pop() {
            for o in graph.resolved_owners(&u) {
                if o != uid && above.insert(o.clone()) {
                    stack.push(o);
                }
            }
        }
        let mut tops: Vec<&Object> = above
            .iter()
            .filter(|a| graph.resolved_owners(a).iter().all(|o| !above.contains(o)))
            .filter_map(|a| graph.get(a))
            .collect();
        if tops.is_empty() {
            tops.extend(graph.get(uid));
        }
        tops.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
        let mut walk = Walk::new(graph, None);
        let mut groups: BTreeMap<Option<&str>, Vec<Row>> = BTreeMap::new();
        for top in tops {
            let rows = groups.entry(top.namespace()).or_default();
            if top.uid() == uid {
                walk.node(rows, top, None);
            } else {
                walk.above(rows, top, None, uid, &above);
            }
        }
        Forest::in_order(graph, now, groups)
    }

    /// Namespaces first, cluster-scoped last: with -A a cluster's hundreds
    /// of RBAC and APIService roots would otherwise come before any
    /// workload.
    fn in_order(
        graph: &'g OwnershipGraph,
        now: Timestamp,
        groups: BTreeMap<Option<&'g str>, Vec<Row<'g>>>,
    ) -> Self {
        let mut groups: Vec<_> = groups.into_iter().collect();
        let cluster_first = groups.first().is_some_and(|g| g.0.is_none());
        groups.rotate_left(usize::from(cluster_first));
        Forest { graph, now, groups }
    }

    /// A node's badges: of the edge it is shown under, its own, and why
    /// its dependents are not drawn.
    fn badges(&self, row: &Row) -> Vec<Badge> {
        let mut badges = row.edge.map(edge_badges).unwrap_or_default();
        // The edge was found resolving in this graph as the forest was
        // made: not resolved again.
        badges.extend(object_badges_under(
            self.graph, row.object, self.now, row.edge,
        ));
        badges.extend(row.stop.map(Stop::badge));
        badges
    }

    /// The nested nodes, for what walks or draws them.
    #[must_use]
    pub fn groups(&self) -> Vec<ForestGroup> {
        self.groups
            .iter()
            .map(|(ns, rows)| {
                let mut at = 0;
                let mut roots = Vec::new();
                while at < rows.len() {
                    roots.push(self.nested(rows, &mut at));
                }
                ForestGroup {
                    namespace: ns.map(str::to_string),
                    roots,
                }
            })
            .collect()
    }

    /// The node at `rows[*at]` with its subtree; `at` moves past it.
    fn nested(&self, rows: &[Row], at: &mut usize) -> ForestNode {
        let row = &rows[*at];
        *at += 1;
        ForestNode {
            object: row.object.obj_ref(),
            edge: row.edge.cloned(),
            badges: self.badges(row),
            children: (0..row.children()).map(|_| self.nested(rows, at)).collect(),
        }
    }

    /// Nothing to show: no object at all, or in one namespace nothing but
    /// the Namespace itself (`scope`).
    #[must_use]
    pub fn is_empty_in(&self, scope: &str) -> bool {
        self.groups.iter().all(|(ns, rows)| {
            rows.is_empty()
                || (ns.is_none()
                    && !scope.is_empty()
                    && rows.iter().all(|r| {
                        r.depth == 0
                            && r.object.kind == "Namespace"
                            && r.object.name() == scope
                            && r.children == 0
                    }))
        })
    }
}

/// (namespace, kind, name, uid): the display order.
fn sort_key(o: &Object) -> (&str, &str, &str, &str) {
    (
        o.namespace().unwrap_or_default(),
        o.kind.as_str(),
        o.name(),
        o.uid(),
    )
}

/// Every object with no resolving owner, in display order: what
/// [`OwnershipGraph::roots`] answers, read from the objects themselves
/// rather than looked up again by uid. (The forest's own walk finds them
/// with [`Links`]; this is what that is checked against.)
#[cfg(test)]
fn roots(graph: &OwnershipGraph) -> Vec<&Object> {
    let mut out: Vec<&Object> = graph
        .objects()
        .filter(|o| {
            !o.metadata
                .owner_references
                .iter()
                .any(|r| graph.resolve(o, r).is_ok())
        })
        .collect();
    out.sort_unstable_by(|a, b| sort_key(a).cmp(&sort_key(b)));
    out
}

/// A dependent shown under an owner, with the reference it is shown by.
type Dependent<'g> = (&'g Object, &'g OwnerReference);

/// Every reference of the graph that resolves, each resolved once: the
/// roots (objects with no owner that resolves) by namespace, and each
/// owner's dependents, both in display order. The whole forest's walk
/// reads these instead of asking the graph, per object, which of its
/// references resolve and, per owner, which referrers resolve to it (each
/// reference resolved twice: a look-up of its kind, of its owner by name
/// and namespace, and of the owner's referrers by uid, all of them
/// objects gone cold in a large graph).
struct Links<'g> {
    /// By namespace, in namespace order (cluster-scoped first, as `None`
    /// sorts): the order of [`roots`] cut where the namespace changes.
    roots: Vec<(Option<&'g str>, Vec<&'g Object>)>,
    /// Each owner's dependents, by the owner's address: a run of `edges`.
    by_owner: ByOwner,
    /// Every edge, by owner, each owner's dependents in display order.
    edges: Vec<Edge<'g>>,
}

/// (owner's address, dependent, reference): a reference that resolves.
type Edge<'g> = (usize, &'g Object, &'g OwnerReference);

/// Each owner's run of edges, by the owner's address.
type ByOwner = std::collections::HashMap<usize, (usize, usize), foldhash::fast::RandomState>;

/// Objects by namespace.
type RootsByNamespace<'g> =
    std::collections::HashMap<Option<&'g str>, Vec<&'g Object>, foldhash::fast::RandomState>;

impl<'g> Links<'g> {
    fn of(graph: &'g OwnershipGraph) -> Self {
        // Each object's references resolved (a look-up of its kind and of
        // its owner by name, most of this), the second half of the objects
        // on another thread when there are many, in the order they lie in
        // memory. What comes out does not depend on the order: the sorts
        // below order keys that end with each dependent's uid, and
        // `resolved` keeps one edge per dependent and owner.
        let half = graph.len() / 2;
        let apart = half >= LINKS_APART_FROM;
        let (edges, roots) = if apart {
            let objects = graph.in_memory_order();
            let (first, second) = objects.split_at(half);
            let ((mut edges, mut roots), (more_edges, more_roots)) = crate::threads::both(
                || resolved(first.iter().map(|o| &***o), graph),
                || resolved(second.iter().map(|o| &***o), graph),
            );
            edges.extend(more_edges);
            for (ns, objects) in more_roots {
                roots.entry(ns).or_default().extend(objects);
            }
            (edges, roots)
        } else {
            resolved(graph.objects(), graph)
        };
        let ((edges, by_owner), roots) = if apart {
            // The two sorts at once (at 300k objects, 29 and 20 ms).
            crate::threads::both(|| by_owner(edges), || in_display_order(roots))
        } else {
            (by_owner(edges), in_display_order(roots))
        };
        Links {
            roots,
            by_owner,
            edges,
        }
    }

    /// The dependents of `owner`, in display order.
    fn dependents(&self, owner: &Object) -> impl ExactSizeIterator<Item = Dependent<'g>> + '_ {
        let (from, to) = self
            .by_owner
            .get(&address(owner))
            .copied()
            .unwrap_or_default();
        self.edges[from..to].iter().map(|&(_, d, r)| (d, r))
    }
}

/// The edges by owner: the owners' addresses compared first, so that the
/// names are compared only between dependents of one owner; and where
/// each owner's run of them is.
fn by_owner<'g>(mut edges: Vec<Edge<'g>>) -> (Vec<Edge<'g>>, ByOwner) {
    edges.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| sort_key(a.1).cmp(&sort_key(b.1)))
    });
    let mut by_owner = ByOwner::default();
    let mut from = 0;
    for (i, e) in edges.iter().enumerate() {
        if edges.get(i + 1).is_none_or(|next| next.0 != e.0) {
            by_owner.insert(e.0, (from, i + 1));
            from = i + 1;
        }
    }
    (edges, by_owner)
}

/// The roots by namespace, in namespace order, each namespace's in
/// display order. One sort per namespace: the namespace, the first of the
/// display order's keys, is not compared again for every pair of roots
/// (at 300k objects, 160k roots in 1,700 namespaces: 31 ms comparing it
/// too, 20 without).
fn in_display_order<'g>(roots: RootsByNamespace<'g>) -> Vec<(Option<&'g str>, Vec<&'g Object>)> {
    let mut roots: Vec<(Option<&str>, Vec<&Object>)> = roots.into_iter().collect();
    roots.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (_, objects) in &mut roots {
        objects.sort_unstable_by(|a, b| {
            (a.kind.as_str(), a.name(), a.uid()).cmp(&(b.kind.as_str(), b.name(), b.uid()))
        });
    }
    roots
}

/// A graph of twice this many objects or more has its references resolved
/// for the forest, and its links sorted, on two threads (in tests, every
/// graph of two or more).
const LINKS_APART_FROM: usize = if cfg!(test) { 1 } else { 20_000 };

/// Every (owner's address, dependent, reference) of `objects` whose
/// reference resolves (the first to each owner, as [`dependents`] takes
/// it), and the objects none of whose references resolves (the roots), by
/// namespace: both in the order of `objects`.
type Resolved<'g> = (Vec<Edge<'g>>, RootsByNamespace<'g>);

fn resolved<'g>(
    objects: impl Iterator<Item = &'g Object>,
    graph: &'g OwnershipGraph,
) -> Resolved<'g> {
    let (mut edges, mut roots): Resolved<'g> = Default::default();
    for o in objects {
        let before = edges.len();
        for r in &o.metadata.owner_references {
            if let Ok(owner) = graph.resolve(o, r) {
                let owner = address(owner);
                if !edges[before..].iter().any(|e| e.0 == owner) {
                    edges.push((owner, o, r));
                }
            }
        }
        if edges.len() == before {
            roots.entry(o.namespace()).or_default().push(o);
        }
    }
    (edges, roots)
}

/// The objects holding a reference that resolves to `owner`, each with
/// the first such reference, in display order: what
/// [`OwnershipGraph::dependents`] answers, borrowed instead of copied.
fn dependents<'g>(
    graph: &'g OwnershipGraph,
    owner: &Object,
) -> Vec<(&'g Object, &'g OwnerReference)> {
    let uid = owner.uid();
    let mut out: Vec<(&Object, &OwnerReference)> = graph
        .shared_referrers(uid)
        .filter_map(|dep| {
            dep.metadata
                .owner_references
                .iter()
                .find(|r| r.uid == uid && graph.resolve(dep, r).is_ok())
                .map(|r| (&**dep, r))
        })
        .collect();
    out.sort_by(|a, b| sort_key(a.0).cmp(&sort_key(b.0)));
    out
}

/// One walk down the graph, laying out rows: what has been drawn (by the
/// object's address: each is stored once, in its `Arc`), the chain above
/// the node being laid out, and the nodes left before anything drawn
/// already is drawn again.
struct Walk<'g, 'l> {
    graph: &'g OwnershipGraph,
    /// The whole graph's links, when the whole forest is walked; else
    /// each owner's dependents are asked of the graph.
    links: Option<&'l Links<'g>>,
    seen: HashSet<usize, foldhash::fast::RandomState>,
    path: Vec<&'g Object>,
    budget: usize,
}

impl<'g, 'l> Walk<'g, 'l> {
    fn new(graph: &'g OwnershipGraph, links: Option<&'l Links<'g>>) -> Self {
        // The whole forest sees every object: its set is made at its size
        // once, not grown through every doubling.
        let seen = match links {
            Some(_) => HashSet::with_capacity_and_hasher(graph.len(), Default::default()),
            None => HashSet::default(),
        };
        Walk {
            graph,
            links,
            seen,
            path: Vec::new(),
            budget: node_budget(graph.len()),
        }
    }

    fn seen(&self, obj: &Object) -> bool {
        self.seen.contains(&address(obj))
    }

    fn on_path(&self, obj: &Object) -> bool {
        self.path.iter().any(|p| std::ptr::eq(*p, obj))
    }

    /// Adds a row; returns its index, to count its children into.
    fn push(
        &self,
        rows: &mut Vec<Row<'g>>,
        object: &'g Object,
        edge: Option<&'g OwnerReference>,
        stop: Option<Stop>,
    ) -> usize {
        rows.push(Row {
            object,
            edge,
            stop,
            depth: count(self.path.len()),
            children: 0,
        });
        rows.len() - 1
    }

    /// An owner above the focused object: only the children on the way
    /// down to it; the object itself with all its dependents.
    fn above(
        &mut self,
        rows: &mut Vec<Row<'g>>,
        owner: &'g Object,
        edge: Option<&'g OwnerReference>,
        target: &str,
        above: &HashSet<Uid>,
    ) {
        if self.on_path(owner) || self.path.len() >= MAX_TREE_DEPTH {
            self.push(rows, owner, edge, None);
            return;
        }
        let at = self.push(rows, owner, edge, None);
        self.path.push(owner);
        for (d, r) in dependents(self.graph, owner) {
            if d.uid() == target {
                self.node(rows, d, Some(r));
            } else if above.contains(d.uid()) {
                self.above(rows, d, Some(r), target, above);
            } else {
                continue;
            }
            rows[at].children += 1;
        }
        self.path.pop();
    }

    /// Objects that only own each other have no root: each such cycle is
    /// started from its first object not drawn yet, so that nothing is
    /// hidden.
    fn cycles(&mut self, groups: &mut BTreeMap<Option<&'g str>, Vec<Row<'g>>>) {
        let graph = self.graph;
        // Every object seen (only the graph's are): no cycle, and no need
        // to look each one up again (at 300k objects, a fiftieth of
        // `tree`, on one core).
        if self.seen.len() == graph.len() {
            return;
        }
        let mut rest: Vec<&Object> = graph.objects().filter(|o| !self.seen(o)).collect();
        rest.sort_unstable_by(|a, b| sort_key(a).cmp(&sort_key(b)));
        for start in rest {
            if !self.seen(start) {
                self.node(groups.entry(start.namespace()).or_default(), start, None);
            }
        }
    }

    fn node(&mut self, rows: &mut Vec<Row<'g>>, obj: &'g Object, edge: Option<&'g OwnerReference>) {
        self.budget = self.budget.saturating_sub(1);
        let drawn_before = !self.seen.insert(address(obj));
        if self.on_path(obj) {
            self.push(rows, obj, edge, Some(Stop::Cycle));
            return;
        }
        // The whole forest's dependents are read where the links hold
        // them, not copied for each node.
        match self.links {
            Some(links) => self.expand(rows, obj, edge, drawn_before, links.dependents(obj)),
            None => {
                let dependents = dependents(self.graph, obj);
                self.expand(rows, obj, edge, drawn_before, dependents.into_iter());
            }
        }
    }

    /// Lays out the row of `obj` under `edge`, then its dependents' rows,
    /// unless they stop here (too deep, or drawn before once the budget
    /// is spent).
    fn expand(
        &mut self,
        rows: &mut Vec<Row<'g>>,
        obj: &'g Object,
        edge: Option<&'g OwnerReference>,
        drawn_before: bool,
        dependents: impl ExactSizeIterator<Item = Dependent<'g>>,
    ) {
        let stop = if dependents.len() == 0 {
            None
        } else if self.path.len() >= MAX_TREE_DEPTH {
            Some(Stop::TooDeep)
        } else if drawn_before && self.budget == 0 {
            Some(Stop::ShownAbove)
        } else {
            None
        };
        if stop.is_some() {
            self.push(rows, obj, edge, stop);
            return;
        }
        let at = self.push(rows, obj, edge, None);
        rows[at].children = count(dependents.len());
        self.path.push(obj);
        for (dep, r) in dependents {
            self.node(rows, dep, Some(r));
        }
        self.path.pop();
    }
}

/// An object's identity for the walk: its address in the graph.
fn address(obj: &Object) -> usize {
    std::ptr::from_ref(obj) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KindTable, Object};

    fn obj(kind: &str, name: &str, uid: &str, owners: &[(&str, &str, &str)]) -> Object {
        let api = if kind == "Pod" || kind == "ConfigMap" {
            "v1"
        } else {
            "apps/v1"
        };
        let mut o = Object::new(api, kind, Some("shop"), name);
        o.metadata.uid = uid.into();
        for (k, n, u) in owners {
            o.metadata.owner_references.push(OwnerReference {
                api_version: "apps/v1".into(),
                kind: (*k).into(),
                name: (*n).into(),
                uid: (*u).into(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            });
        }
        o
    }

    #[test]
    fn shared_dependents_appear_under_each_owner() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj("Deployment", "a", "1", &[]));
        g.upsert(obj("Deployment", "b", "2", &[]));
        g.upsert(obj(
            "ConfigMap",
            "c",
            "3",
            &[("Deployment", "a", "1"), ("Deployment", "b", "2")],
        ));
        let f = build(&g, Timestamp::UNIX_EPOCH);
        assert_eq!(f.len(), 1);
        let text = to_text(&f);
        assert_eq!(text.matches("ConfigMap/c").count(), 2, "{text}");
        assert!(text.contains("shared:2"), "{text}");
    }

    /// A Deployment, its two ReplicaSets and their three pods, and
    /// another Deployment, uids 1 to 7.
    fn web() -> OwnershipGraph {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj("Deployment", "web", "1", &[]));
        g.upsert(obj(
            "ReplicaSet",
            "web-a",
            "2",
            &[("Deployment", "web", "1")],
        ));
        g.upsert(obj(
            "ReplicaSet",
            "web-b",
            "3",
            &[("Deployment", "web", "1")],
        ));
        g.upsert(obj("Pod", "web-a-1", "4", &[("ReplicaSet", "web-a", "2")]));
        g.upsert(obj("Pod", "web-a-2", "5", &[("ReplicaSet", "web-a", "2")]));
        g.upsert(obj("Pod", "web-b-1", "6", &[("ReplicaSet", "web-b", "3")]));
        g.upsert(obj("Deployment", "other", "7", &[]));
        g
    }

    #[test]
    fn focus_shows_the_owners_branch_and_every_dependent() {
        let g = web();
        let text = to_text(&focus(&g, "2", Timestamp::UNIX_EPOCH));
        assert_eq!(
            text,
            "namespace shop\n  Deployment/web\n  └─ ReplicaSet/web-a  <ctrl block>\n     \
             ├─ Pod/web-a-1  <ctrl block>\n     └─ Pod/web-a-2  <ctrl block>\n"
        );
        // A root: just its own tree.
        let text = to_text(&focus(&g, "7", Timestamp::UNIX_EPOCH));
        assert_eq!(text, "namespace shop\n  Deployment/other\n");
    }

    /// `tree` prints from the rows: the same text as the nested nodes'
    /// and the same JSON as serde writes of them, for roots in several
    /// namespaces and the cluster scope, a shared dependent, a cycle with
    /// no root, a dangling reference, and an object's focus.
    #[test]
    fn rows_print_what_the_nested_nodes_print() {
        let mut g = web();
        g.upsert(obj(
            "ConfigMap",
            "shared",
            "70",
            &[("ReplicaSet", "web-a", "2"), ("ReplicaSet", "web-b", "3")],
        ));
        g.upsert(obj("Deployment", "a", "8", &[("Deployment", "b", "9")]));
        g.upsert(obj("Deployment", "b", "9", &[("Deployment", "a", "8")]));
        g.upsert(obj("Pod", "orphan", "10", &[("ReplicaSet", "gone", "11")]));
        let mut other = obj("Deployment", "api", "12", &[]);
        other.metadata.namespace = Some("other".into());
        g.upsert(other);
        g.upsert(Object::new("v1", "Namespace", None, "shop"));
        // Names that need escaping (each for one reason), and one that
        // does not but for letters beyond ASCII: in objects, edges and
        // badges.
        g.upsert(obj("ConfigMap", "back\\slash", "13", &[]));
        g.upsert(obj(
            "Secret",
            "réglé",
            "14",
            &[("ConfigMap", "back\\slash", "13")],
        ));
        g.upsert(obj(
            "Secret",
            "\"quoted\"",
            "15",
            &[("Secret", "réglé", "14")],
        ));
        g.upsert(obj(
            "Pod",
            "bell\u{7}",
            "16",
            &[("ReplicaSet", "gone\n", "17")],
        ));
        let now = Timestamp::UNIX_EPOCH;
        for forest in [Forest::of(&g, now), Forest::focus(&g, "2", now)] {
            let groups = forest.groups();
            assert_eq!(text_of(&forest), to_text(&groups));
            let partial = crate::model::Partial::default();
            let expected =
                serde_json::to_string(&serde_json::json!({"groups": groups, "partial": partial}))
                    .expect("serialises");
            // Handed on whole, and a few bytes at a time.
            for flush_at in [1 << 16, 1] {
                let mut json = Vec::new();
                forest
                    .write_json_in(&mut json, &partial, flush_at)
                    .expect("writes");
                assert_eq!(String::from_utf8(json).expect("UTF-8"), expected);
            }
        }
        let text = to_text(&build(&g, now));
        assert!(text.contains("cycle"), "{text}");
        assert_eq!(text.matches("ConfigMap/shared").count(), 2, "{text}");
        assert!(text.starts_with("namespace other\n"), "{text}");
        assert!(
            text.contains("\ncluster-scoped\n  Namespace/shop\n"),
            "{text}"
        );
    }

    /// The whole forest as it was walked before [`Links`]: the roots and
    /// each owner's dependents asked of the graph, object by object.
    fn of_scanning(graph: &OwnershipGraph, now: Timestamp) -> Forest<'_> {
        let mut walk = Walk::new(graph, None);
        let mut groups: BTreeMap<Option<&str>, Vec<Row>> = BTreeMap::new();
        for root in roots(graph) {
            if !walk.seen(root) {
                walk.node(groups.entry(root.namespace()).or_default(), root, None);
            }
        }
        walk.cycles(&mut groups);
        Forest::in_order(graph, now, groups)
    }

    fn text_of(forest: &Forest) -> String {
        let mut text = String::new();
        forest
            .write_text(|s| {
                text.push_str(s);
                Ok::<(), ()>(())
            })
            .expect("writes");
        text
    }

    /// A write that fails ends the text there, with its error, the other
    /// thread's formatting stopped with it (not waited for forever).
    #[test]
    fn a_failed_write_ends_the_text_with_its_error() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for i in 0..12 {
            g.upsert(obj("Pod", &format!("p{i:02}"), &format!("{i}"), &[]));
        }
        let forest = Forest::of(&g, Timestamp::UNIX_EPOCH);
        let mut pieces = Vec::new();
        let written = forest.write_text(|s| {
            pieces.push(s.to_string());
            if pieces.len() == 2 {
                Err("closed")
            } else {
                Ok(())
            }
        });
        assert_eq!(written, Err("closed"));
        // Rows 0-2 here, then rows 3-5 from the other thread, and no more.
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].ends_with("Pod/p02\n"), "{pieces:?}");
        assert!(pieces[1].starts_with("  Pod/p03\n"), "{pieces:?}");
    }

    #[test]
    fn a_failed_write_ends_the_json_with_its_error() {
        /// Takes what is written until its third write, which fails.
        struct Closing(Vec<Vec<u8>>);
        impl std::io::Write for Closing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.push(buf.to_vec());
                if self.0.len() == 3 {
                    Err(std::io::ErrorKind::BrokenPipe.into())
                } else {
                    Ok(buf.len())
                }
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for i in 0..12 {
            g.upsert(obj("Pod", &format!("p{i:02}"), &format!("{i}"), &[]));
        }
        let forest = Forest::of(&g, Timestamp::UNIX_EPOCH);
        let mut w = Closing(Vec::new());
        // Handed on at every run: the opening, rows 0-2 from this thread,
        // rows 3-5 from the other (refused), and no more.
        let written = forest.write_json_in(&mut w, &false, 1);
        assert!(written.is_err_and(|e| e.is_io()));
        assert_eq!(w.0.len(), 3, "{:?}", w.0);
        let [first, second] = [1, 2].map(|i| String::from_utf8_lossy(&w.0[i]).to_string());
        assert!(
            first.contains("\"p00\"") && first.contains("\"p02\""),
            "{first}"
        );
        assert!(
            second.contains("\"p03\"") && second.contains("\"p05\""),
            "{second}"
        );
        assert!(!second.contains("\"p06\""), "{second}");
    }

    proptest::proptest! {
        /// The forest walked from its links is the forest walked by asking
        /// the graph: the same rows in the same order, on graphs with
        /// shared dependents, cycles, several references to one owner,
        /// references to an owner of another name, kind or namespace,
        /// dangling ones, and cluster-scoped owners.
        #[test]
        fn the_forest_from_its_links_is_the_forest_asked_of_the_graph(
            objects in proptest::collection::vec(
                (0usize..4, 0usize..3, 0usize..3, proptest::collection::vec((0usize..12, 0usize..4), 0..4)),
                1..12,
            )
        ) {
            const KINDS: [(&str, &str); 4] = [
                ("apps/v1", "Deployment"),
                ("apps/v1", "ReplicaSet"),
                ("v1", "Pod"),
                ("v1", "Node"),
            ];
            let mut g = OwnershipGraph::new(KindTable::builtin());
            let n = objects.len();
            for (i, (kind, ns, name, refs)) in objects.iter().enumerate() {
                let (api, kind) = KINDS[*kind];
                let ns = (kind != "Node").then(|| ["a", "b", "c"][*ns]);
                let mut o = Object::new(api, kind, ns, &format!("o{name}-{i}"));
                o.metadata.uid = format!("u{i}");
                for (to, how) in refs {
                    // An owner by its own identity, or one piece of it
                    // changed: the name, the uid (dangling), the kind.
                    let (oi, (okind, _, oname, _)) = (to % n, &objects[to % n]);
                    let (oapi, okind_name) = KINDS[if *how == 3 { (okind + 1) % 4 } else { *okind }];
                    o.metadata.owner_references.push(OwnerReference {
                        api_version: oapi.into(),
                        kind: okind_name.into(),
                        name: if *how == 1 { "gone".into() } else { format!("o{oname}-{oi}") },
                        uid: if *how == 2 { format!("x{oi}") } else { format!("u{oi}") },
                        controller: Some(*how == 0),
                        block_owner_deletion: None,
                    });
                }
                g.upsert(o);
            }
            let now = Timestamp::UNIX_EPOCH;
            let forest = Forest::of(&g, now);
            proptest::prop_assert_eq!(text_of(&forest), text_of(&of_scanning(&g, now)));
            // Written in runs of three rows, on two threads in turn: the
            // text of the nested nodes, written in one pass.
            proptest::prop_assert_eq!(text_of(&forest), to_text(&forest.groups()));
            // And the JSON, as serde writes the nested nodes.
            let partial = crate::model::Partial::default();
            let mut json = Vec::new();
            proptest::prop_assert!(forest.write_json(&mut json, &partial).is_ok());
            proptest::prop_assert_eq!(
                String::from_utf8(json).unwrap_or_default(),
                serde_json::json!({"groups": forest.groups(), "partial": partial}).to_string()
            );
            // Each row's badges, its edge not resolved again, are those of
            // every reference resolved.
            for forest in [Forest::of(&g, now), Forest::focus(&g, &format!("u{}", n / 2), now)] {
                for (_, rows) in &forest.groups {
                    for row in rows {
                        let mut full = row.edge.map(edge_badges).unwrap_or_default();
                        full.extend(super::super::badges::object_badges(&g, row.object, now));
                        full.extend(row.stop.map(Stop::badge));
                        proptest::prop_assert_eq!(forest.badges(row), full, "{}", row.object.uid());
                    }
                }
            }
        }
    }

    #[test]
    fn cycles_terminate() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj("Deployment", "a", "1", &[("Deployment", "b", "2")]));
        g.upsert(obj("Deployment", "b", "2", &[("Deployment", "a", "1")]));
        g.upsert(obj("Deployment", "root", "0", &[]));
        // Neither a nor b is a root; the cycle is still shown, once, and
        // marked where it closes.
        let f = build(&g, Timestamp::UNIX_EPOCH);
        let text = to_text(&f);
        assert_eq!(f[0].roots.len(), 2, "{text}");
        assert!(text.contains("cycle"), "{text}");
    }
}
