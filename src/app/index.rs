//! The forest index the tree is drawn from: for every object its resolving
//! dependents (sorted), whether it is a root, Terminating or has a problem,
//! kept up to date incrementally from upserts and removals so that a change
//! costs what it touches, not what the cluster holds.
//!
//! Objects get dense ids for as long as they live, so that walking the
//! forest touches small records in one vector instead of hashing strings.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::rows::fnv;
use super::uids::Uids;
use crate::model::relations::{self, SelectorIndex};
use crate::model::{Object, OwnershipGraph, RefStatus};

/// A dense id, valid while the object exists.
pub type NodeId = u32;

/// Display order of roots: (cluster-scoped, namespace or "" for
/// cluster-scoped, kind, name, uid). Cluster-scoped roots sort last: the
/// tree opens on workloads, not on a cluster's hundreds of RBAC roots.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RootKey {
    pub cluster_scoped: bool,
    /// The namespace and the kind shared by every root of them
    /// ([`Names`]): a root's key was three strings copied twice, and the
    /// roots of a 1M snapshot are hundreds of thousands.
    pub namespace: Arc<str>,
    pub kind: Arc<str>,
    pub name: Arc<str>,
    pub uid: Arc<str>,
    pub id: NodeId,
}

impl RootKey {
    fn of(obj: &Object, id: NodeId, names: &mut Names) -> RootKey {
        RootKey {
            cluster_scoped: obj.namespace().is_none(),
            namespace: names.get(obj.namespace().unwrap_or_default()),
            kind: names.get(&obj.kind),
            name: Arc::from(obj.name()),
            uid: Arc::from(obj.uid()),
            id,
        }
    }
}

/// Namespaces and kinds, one copy of each, for the roots' keys.
#[derive(Clone, Debug, Default)]
struct Names(HashSet<Arc<str>, foldhash::fast::RandomState>);

impl Names {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return Arc::clone(a);
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(Arc::clone(&a));
        a
    }
}

/// What a walk of the forest needs, small and contiguous.
#[derive(Clone, Debug, Default)]
struct Node {
    children: Vec<NodeId>,
    uid_hash: u64,
    live: bool,
    root: bool,
    problem: bool,
    terminating: bool,
}

/// Children, roots and flags of every object in a graph.
#[derive(Clone, Debug, Default)]
pub struct ForestIndex {
    /// Ids by uid, and each id's uid and `kind/name` in lower case (for
    /// search).
    ids: Uids,
    nodes: Vec<Node>,
    /// Each id's key among the roots, if it is one. Boxed: most objects
    /// are not roots, and a million records of a hundred bytes were paged
    /// in and copied as the index grew.
    root_keys: Vec<Option<Box<RootKey>>>,
    free: Vec<NodeId>,
    roots: BTreeSet<RootKey>,
    /// The namespaces and kinds the roots' keys share.
    names: Names,
    /// Objects that only own each other (a cycle no root reaches): the
    /// first of each cycle is drawn as if it were a root.
    cycle_starts: BTreeSet<RootKey>,
    problems: usize,
    terminating: usize,
    /// Pods and what selects them, by namespace and labels: a selection
    /// change finds its selector relations here, not among every object.
    selectors: SelectorIndex,
    /// While the selector index of a large graph is built on a thread of
    /// its own ([`ForestIndex::build_leaving_selectors`]): the uids that
    /// changed since, for their copies then to be filed in it.
    selectors_since: Option<Vec<String>>,
    /// What changed shape since [`ForestIndex::take_dirty`], for the rows
    /// to be patched where it changed instead of rebuilt.
    dirty: Dirty,
    /// Where an object's label is written to be compared with its last.
    scratch: String,
    /// Changes with the labels (an id given, freed or its label changed),
    /// to a number no index had before: the search's kept matches hold
    /// while it stays.
    label_stamp: u64,
}

/// Where the forest changed shape: the rows outside are as they were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirty {
    /// Objects whose list of children changed (an id may have been freed
    /// and given again meanwhile: its rows are then drawn anew too).
    pub owners: HashSet<NodeId>,
    /// The groups whose roots changed, as (cluster-scoped, namespace).
    pub groups: BTreeSet<(bool, String)>,
    /// The cycle starts changed: the rows are built again.
    pub all: bool,
}

impl Dirty {
    /// Nothing changed shape.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !self.all && self.owners.is_empty() && self.groups.is_empty()
    }
}

/// A number no index has had: a stamp of one index is never that of
/// another, so what was kept against an index replaced is not taken for
/// its successor's.
fn next_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A graph of this many objects or more has its ids and its references
/// indexed on two threads (in tests, every graph).
const APART_FROM: usize = if cfg!(test) { 1 } else { 20_000 };

/// Each object's references resolved, for [`ForestIndex::build_with`]:
/// objects by their ids, the ids given in the order of their addresses.
struct Resolved {
    /// (owner, dependent), for each reference that resolves.
    edges: Vec<(NodeId, NodeId)>,
    /// Each object's (root: no reference resolves; problem: one is
    /// invalid, dangling or unresolvable).
    flags: Vec<(bool, bool)>,
    /// The roots' keys, in the order of their ids.
    roots: Vec<RootKey>,
    names: Names,
}

impl Resolved {
    fn of(graph: &OwnershipGraph, objects: &[&Arc<Object>]) -> Resolved {
        let mut out = Resolved {
            edges: Vec::with_capacity(objects.len()),
            flags: Vec::with_capacity(objects.len()),
            roots: Vec::new(),
            names: Names::default(),
        };
        // An owner's id is its place among the objects, in address order.
        let id_at = |owner: &Object| {
            let at = std::ptr::from_ref(owner) as usize;
            objects
                .binary_search_by_key(&at, |o| Arc::as_ptr(o) as usize)
                .ok()
                .map(id_of)
        };
        for (i, obj) in objects.iter().enumerate() {
            let (mut resolving, mut problem) = (false, false);
            for r in &obj.metadata.owner_references {
                match graph.resolve(obj, r) {
                    Ok(owner) => {
                        resolving = true;
                        if let Some(o) = id_at(owner) {
                            out.edges.push((o, id_of(i)));
                        }
                    }
                    // Of a kind not seen (not listable, not synced): not
                    // known to be wrong, so not counted as a problem.
                    Err(RefStatus::Unverified { .. }) => {}
                    Err(_) => problem = true,
                }
            }
            out.flags.push((!resolving, problem));
            if !resolving {
                out.roots.push(RootKey::of(obj, id_of(i), &mut out.names));
            }
        }
        out
    }
}

/// An object's label for search, `kind/name` in lower case, written into
/// `out`.
fn write_label(out: &mut String, obj: &Object) {
    out.clear();
    out.push_str(&obj.kind);
    out.push('/');
    out.push_str(obj.name());
    if out.is_ascii() {
        out.make_ascii_lowercase();
    } else {
        *out = out.to_lowercase();
    }
}

/// Room made in the ids' text for each object: a uid of 36 bytes and a
/// label of a kind and a name.
const TEXT_PER_OBJECT: usize = 80;

/// The id of the object at `i` in a build.
fn id_of(i: usize) -> NodeId {
    NodeId::try_from(i).unwrap_or(NodeId::MAX)
}

fn idx(id: NodeId) -> usize {
    id as usize
}

impl ForestIndex {
    /// Indexes every object of `graph`, all at once: ids in the order the
    /// objects lie in memory, each reference resolved once, each list of
    /// children sorted once, the roots put in their set in one pass; the
    /// same index as every object refreshed in turn (`touch`), marked as
    /// changed wholly (rows are built from it afresh). Refreshing each
    /// object in turn was a third of the UI's load of a 300k-object file.
    #[must_use]
    pub fn build(graph: &OwnershipGraph) -> Self {
        Self::build_with(graph, || SelectorIndex::build(graph.shared_objects()))
    }

    /// [`ForestIndex::build`] with the selector index of the same objects,
    /// built elsewhere (on a thread of its own, beside the graph and this
    /// index: it needs the objects only) and asked for when the rest is
    /// done.
    #[must_use]
    pub fn build_with(graph: &OwnershipGraph, selectors: impl FnOnce() -> SelectorIndex) -> Self {
        let (mut ix, _) = Self::build_apart_from(graph, false);
        ix.selectors = selectors();
        ix
    }

    /// [`ForestIndex::build`] but for the selector index, with the objects
    /// (shared, in the order they lie in memory) to build it from
    /// elsewhere: it is pending ([`ForestIndex::selectors`] is `None`)
    /// until it is given ([`ForestIndex::set_selectors`]). The tree is
    /// drawn meanwhile: at 300k objects the selector index took as much
    /// CPU as the forest index, on the same two cores.
    #[must_use]
    pub fn build_leaving_selectors(graph: &OwnershipGraph) -> (Self, Vec<Arc<Object>>) {
        let (mut ix, objects) = Self::build_apart_from(graph, true);
        ix.selectors_since = Some(Vec::new());
        (ix, objects)
    }

    /// The index but for its selectors, and the objects the selector
    /// index files ([`relations::takes_part`]) shared when `share` (taken
    /// as each is read for its id: a pass of its own would read every
    /// object again).
    fn build_apart_from(graph: &OwnershipGraph, share: bool) -> (Self, Vec<Arc<Object>>) {
        let mut ix = ForestIndex::default();
        // Ids given in the order the objects lie in memory. Nothing below
        // depends on the order: the roots are sorted, each owner's
        // children too, and a cycle's start is the least of its keys.
        let objects = graph.in_memory_order();
        // The ids and labels, and each object's references resolved: apart
        // from each other (an owner's id is its place among the objects,
        // found by its address, not by its uid among the ids), on two
        // threads when there are many. At 300k objects they were 71 ms and
        // 112 ms one after the other on the UI's thread, while the selector
        // index was built on the other core in less than the two; with the
        // selector index's objects read in address order too, the UI's
        // indexes took 226-249 ms against 259-277 (five runs each).
        let named = || {
            let mut ids = Uids::default();
            // Not the selector index's room: it is given whole below.
            ids.reserve(objects.len(), objects.len() * TEXT_PER_OBJECT);
            let mut scratch = String::new();
            let mut nodes = Vec::with_capacity(objects.len());
            let mut shared = Vec::with_capacity(if share { objects.len() } else { 0 });
            for (i, obj) in objects.iter().enumerate() {
                // Only what the selector index files: each share is a
                // locked add on the object's first line as it is first
                // read, which the reads after it wait for (at 1M objects,
                // sharing each one was a fifth of this thread's work).
                if share && relations::takes_part(obj) {
                    shared.push(Arc::clone(obj));
                }
                let uid = obj.uid();
                write_label(&mut scratch, obj);
                ids.insert(uid, &scratch, id_of(i));
                nodes.push(Node {
                    uid_hash: fnv(uid.as_bytes()),
                    live: true,
                    terminating: obj.is_terminating(),
                    ..Node::default()
                });
            }
            (ids, nodes, shared)
        };
        let resolved = || Resolved::of(graph, &objects);
        let ((ids, nodes, shared), resolved) = if objects.len() >= APART_FROM {
            crate::threads::both(named, resolved)
        } else {
            (named(), resolved())
        };
        (ix.ids, ix.nodes) = (ids, nodes);
        let Resolved {
            edges,
            flags,
            roots,
            names,
        } = resolved;
        ix.names = names;
        for (owner, child) in edges {
            ix.nodes[idx(owner)].children.push(child);
        }
        ix.root_keys.resize(objects.len(), None);
        for (n, (root, problem)) in ix.nodes.iter_mut().zip(flags) {
            n.root = root;
            n.problem = problem;
            ix.problems += usize::from(problem);
            ix.terminating += usize::from(n.terminating);
        }
        for key in &roots {
            ix.root_keys[idx(key.id)] = Some(Box::new(key.clone()));
        }
        let roots_sorted = move || roots.into_iter().collect();
        // Each owner's children in display order, once each (two
        // references to the same owner make one child).
        let nodes = &mut ix.nodes;
        let children_sorted = || {
            for n in nodes {
                if n.children.len() > 1 {
                    n.children.sort_unstable_by(|a, b| {
                        let (a, b) = (objects[idx(*a)], objects[idx(*b)]);
                        (a.namespace(), &a.kind, a.name(), a.uid()).cmp(&(
                            b.namespace(),
                            &b.kind,
                            b.name(),
                            b.uid(),
                        ))
                    });
                    n.children.dedup();
                }
            }
        };
        // The two sorts apart, when there are many: at 1M objects each was
        // a sixth of the index's build, one after the other on the UI's
        // thread while the other core waited.
        ix.roots = if objects.len() >= APART_FROM {
            crate::threads::both(roots_sorted, children_sorted).0
        } else {
            children_sorted();
            roots_sorted()
        };
        // Whatever no root reaches is in a cycle.
        let mut reached = vec![false; ix.nodes.len()];
        let mut stack: Vec<NodeId> = ix.roots.iter().map(|k| k.id).collect();
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut reached[idx(id)], true) {
                continue;
            }
            stack.extend(&ix.nodes[idx(id)].children);
        }
        let unreached: Vec<String> = (0..ix.nodes.len())
            .filter(|i| ix.nodes[*i].live && !reached[*i])
            .map(|i| ix.ids.uid(id_of(i)).to_string())
            .collect();
        ix.check_cycles(graph, unreached.iter().map(String::as_str));
        ix.label_stamp = next_stamp();
        // Every row is to be built from it.
        ix.dirty = Dirty {
            all: true,
            ..Dirty::default()
        };
        (ix, shared)
    }

    /// The selector index built apart from the objects
    /// [`ForestIndex::build_leaving_selectors`] gave: the objects changed
    /// since are filed again, as they are in `graph` now.
    pub fn set_selectors(&mut self, mut built: SelectorIndex, graph: &OwnershipGraph) {
        let mut since = self.selectors_since.take().unwrap_or_default();
        // Each once, as it is now (a pod may change many times meanwhile).
        since.sort_unstable();
        since.dedup();
        for uid in since {
            built.update(&uid, graph.get_shared(&uid));
        }
        self.selectors = built;
    }

    /// Makes room for `additional` more objects at once: a million records
    /// grown by doubling were copied, and their pages zeroed, again and
    /// again.
    pub fn reserve(&mut self, additional: usize) {
        self.ids
            .reserve(additional, additional.saturating_mul(TEXT_PER_OBJECT));
        self.nodes.reserve(additional);
        self.root_keys.reserve(additional);
        if self.selectors_since.is_none() {
            self.selectors.reserve(additional);
        }
    }

    /// Brings the index up to date after `uid` was upserted or removed.
    /// `old_owners` are the owner uids the object referred to before.
    /// Returns whether the forest's shape may have changed: false when the
    /// object was there and still is, under the same owners (its row stays
    /// where it is; only what is drawn on it changes).
    pub fn touch(&mut self, graph: &OwnershipGraph, uid: &str, old_owners: &[String]) -> bool {
        self.touch_with(graph, uid, old_owners, false)
    }

    /// [`ForestIndex::touch`], told whether the object was there before
    /// with the same identity (group, kind, namespace and name: what an
    /// owner reference is resolved by). Then, when its owners and its own
    /// root mark are as they were, what refers to it resolves as before,
    /// and its referrers are not looked at again: a ReplicaSet turning
    /// Terminating under a cascade does not refresh its 100 pods (that
    /// was half a millisecond per ReplicaSet, 65-190 ms a batch).
    pub fn touch_with(
        &mut self,
        graph: &OwnershipGraph,
        uid: &str,
        old_owners: &[String],
        identity_kept: bool,
    ) -> bool {
        let old: HashSet<&str> = old_owners.iter().map(String::as_str).collect();
        let now: HashSet<&str> = graph.get(uid).map_or_else(HashSet::new, |o| {
            o.metadata
                .owner_references
                .iter()
                .map(|r| r.uid.as_str())
                .collect()
        });
        // An update that keeps the object's owners moves no edge: its
        // place under each owner (sorted by namespace, kind and name, which
        // never change) stays, and no sibling list needs sorting again
        // (that was 18% of a 100k-object cascade). Its row, its dependents'
        // badges and the cycle marks are refreshed as always.
        // Its id before a removal frees it: its place in its owners' lists.
        let was = self.ids.get(uid);
        let same_place = was.is_some() && graph.get(uid).is_some() && old == now;
        let owners: Vec<String> = old.union(&now).map(|s| (*s).to_string()).collect();
        let root = |ix: &Self| was.map(|id| ix.nodes[idx(id)].root);
        let root_before = root(self);
        match &mut self.selectors_since {
            Some(since) => since.push(uid.to_string()),
            None => self.selectors.update(uid, graph.get_shared(uid)),
        }
        self.refresh_node(graph, uid);
        if !same_place {
            self.refresh_children(graph, uid);
            for o in &owners {
                self.refresh_child_of(graph, o, uid, was);
            }
        }
        let quiet = same_place && identity_kept && root(self) == root_before;
        let referrers: Vec<String> = if quiet {
            Vec::new()
        } else {
            graph.referrers(uid).cloned().collect()
        };
        for r in &referrers {
            self.refresh_node(graph, r);
        }
        // An object no object names as its owner is on no cycle, and its
        // own edges change no other object's reach from a root (reach runs
        // from owners down): there is nothing to look for. That is every
        // pod; the walk up from each was a sixth of folding in a million
        // objects listed late.
        if referrers.is_empty() && graph.referrers(uid).next().is_none() {
            return !same_place;
        }
        let candidates = std::iter::once(uid)
            .chain(referrers.iter().map(String::as_str))
            .chain(owners.iter().map(String::as_str));
        self.check_cycles(graph, candidates);
        !same_place
    }

    fn alloc(&mut self, uid: &str) -> NodeId {
        if let Some(id) = self.ids.get(uid) {
            return id;
        }
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.nodes.push(Node::default());
                self.root_keys.push(None);
                NodeId::try_from(self.nodes.len() - 1).unwrap_or(NodeId::MAX)
            }
        };
        self.nodes[idx(id)] = Node {
            uid_hash: fnv(uid.as_bytes()),
            live: true,
            ..Node::default()
        };
        self.root_keys[idx(id)] = None;
        // Labelled as it is refreshed.
        self.ids.insert(uid, "", id);
        id
    }

    fn refresh_node(&mut self, graph: &OwnershipGraph, uid: &str) {
        let was_root = self
            .ids
            .get(uid)
            .and_then(|id| self.root_keys[idx(id)].clone());
        self.refresh_node_flags(graph, uid);
        let is_root = self
            .ids
            .get(uid)
            .and_then(|id| self.root_keys[idx(id)].as_ref());
        if was_root.as_ref() != is_root {
            for k in [was_root.as_ref(), is_root].into_iter().flatten() {
                self.dirty
                    .groups
                    .insert((k.cluster_scoped, k.namespace.to_string()));
            }
        }
    }

    fn refresh_node_flags(&mut self, graph: &OwnershipGraph, uid: &str) {
        let Some(obj) = graph.get(uid) else {
            if let Some(id) = self.ids.remove(uid) {
                self.forget(id);
                self.nodes[idx(id)] = Node::default();
                self.root_keys[idx(id)] = None;
                self.free.push(id);
                self.label_stamp = next_stamp();
            }
            return;
        };
        let mut resolving = false;
        let mut problem = false;
        for r in &obj.metadata.owner_references {
            match graph.classify(obj, r) {
                RefStatus::Resolves { .. } => resolving = true,
                // Of a kind not seen (not listable, not synced): not known
                // to be wrong, so not counted as a problem.
                RefStatus::Unverified { .. } => {}
                _ => problem = true,
            }
        }
        let id = self.alloc(uid);
        self.forget(id);
        let key = (!resolving).then(|| RootKey::of(obj, id, &mut self.names));
        if let Some(k) = &key {
            self.roots.insert(k.clone());
        }
        let n = &mut self.nodes[idx(id)];
        n.root = !resolving;
        n.problem = problem;
        n.terminating = obj.is_terminating();
        self.problems += usize::from(problem);
        self.terminating += usize::from(n.terminating);
        self.root_keys[idx(id)] = key.map(Box::new);
        // Written where the last one was, and kept only when it changed:
        // a label seldom changes.
        write_label(&mut self.scratch, obj);
        if self.ids.set_label(id, &self.scratch) {
            self.label_stamp = next_stamp();
        }
    }

    /// Takes a node's flags out of the totals and sets.
    fn forget(&mut self, id: NodeId) {
        let n = &self.nodes[idx(id)];
        self.problems -= usize::from(n.problem);
        self.terminating -= usize::from(n.terminating);
        let n = &mut self.nodes[idx(id)];
        n.problem = false;
        n.terminating = false;
        n.root = false;
        if let Some(k) = self.root_keys[idx(id)].take() {
            self.roots.remove(&*k);
        }
        let starts = self.cycle_starts.len();
        self.cycle_starts.retain(|k| k.id != id);
        self.dirty.all |= self.cycle_starts.len() != starts;
    }

    fn refresh_children(&mut self, graph: &OwnershipGraph, owner: &str) {
        let Some(oid) = self.ids.get(owner) else {
            return;
        };
        let mut kids: Vec<&Object> = graph
            .referrer_objects(owner)
            .filter(|dep| {
                dep.metadata
                    .owner_references
                    .iter()
                    .any(|r| r.uid == owner && graph.classify(dep, r).resolves())
            })
            .collect();
        kids.sort_by(|a, b| {
            (a.namespace(), &a.kind, a.name(), a.uid()).cmp(&(
                b.namespace(),
                &b.kind,
                b.name(),
                b.uid(),
            ))
        });
        let children: Vec<NodeId> = kids.iter().map(|k| self.alloc(k.uid())).collect();
        if self.nodes[idx(oid)].children != children {
            self.dirty.owners.insert(oid);
            self.nodes[idx(oid)].children = children;
        }
    }

    /// Whether `child` is now among `owner`'s children, put in or taken
    /// out of its sorted list: only `child` changed, so the other children
    /// stay as they are. A Deployment's 1,000 ReplicaSets deleted one by
    /// one looked at all the others, and resolved their references, each
    /// time (most of a 100k cascade's updates in the UI).
    fn refresh_child_of(
        &mut self,
        graph: &OwnershipGraph,
        owner: &str,
        child: &str,
        was: Option<NodeId>,
    ) {
        let Some(oid) = self.ids.get(owner) else {
            return;
        };
        let dep = graph.get(child).filter(|dep| {
            dep.metadata
                .owner_references
                .iter()
                .any(|r| r.uid == owner && graph.classify(dep, r).resolves())
        });
        let at = was
            .or_else(|| self.ids.get(child))
            .and_then(|c| self.nodes[idx(oid)].children.iter().position(|x| *x == c));
        match (dep, at) {
            (Some(_), Some(_)) | (None, None) => {}
            (None, Some(i)) => {
                self.nodes[idx(oid)].children.remove(i);
                self.dirty.owners.insert(oid);
            }
            (Some(dep), None) => {
                let key = (dep.namespace(), &dep.kind, dep.name(), dep.uid());
                let i = self.nodes[idx(oid)].children.partition_point(|c| {
                    graph
                        .get(self.ids.uid(*c))
                        .is_some_and(|o| (o.namespace(), &o.kind, o.name(), o.uid()) < key)
                });
                let id = self.alloc(child);
                self.nodes[idx(oid)].children.insert(i, id);
                self.dirty.owners.insert(oid);
            }
        }
    }

    fn root_key_of(&mut self, graph: &OwnershipGraph, uid: &str) -> Option<RootKey> {
        let o = graph.get(uid)?;
        let id = self.ids.get(uid)?;
        Some(RootKey::of(o, id, &mut self.names))
    }

    /// Finds objects no root reaches (owned, through any chain, only by a
    /// cycle) above `candidates`, re-checks the cycles already known, and
    /// picks for each such group a start on the cycle itself, from which
    /// everything in it is drawn.
    fn check_cycles<'a>(
        &mut self,
        graph: &OwnershipGraph,
        candidates: impl Iterator<Item = &'a str>,
    ) {
        let known: Vec<String> = self
            .cycle_starts
            .iter()
            .map(|k| k.uid.to_string())
            .collect();
        let before = std::mem::take(&mut self.cycle_starts);
        self.check_cycles_from(graph, known, candidates);
        self.dirty.all |= self.cycle_starts != before;
    }

    fn check_cycles_from<'a>(
        &mut self,
        graph: &OwnershipGraph,
        known: Vec<String>,
        candidates: impl Iterator<Item = &'a str>,
    ) {
        let mut done: HashSet<String> = HashSet::new();
        let mut pool: HashSet<String> = HashSet::new();
        for uid in candidates.map(str::to_string).chain(known) {
            let Some(id) = self.ids.get(uid.as_str()) else {
                continue;
            };
            if done.contains(&uid) || self.nodes[idx(id)].root {
                continue;
            }
            let (reaches_root, closure) = self.upward(graph, &uid);
            // Only a closure with no root in it is wholly unreached: one
            // that met a root may hold objects that reach none.
            if !reaches_root {
                pool.extend(closure.iter().cloned());
                done.extend(closure);
            }
        }
        // Each object of the pool has everything above it in the pool.
        // Those whose every owner above can climb back to them sit on a
        // cycle nothing else owns: the first of each such cycle, in display
        // order, is the start; everything else hangs below one.
        let ups: HashMap<&str, HashSet<String>> = pool
            .iter()
            .map(|u| (u.as_str(), self.upward(graph, u).1.into_iter().collect()))
            .collect();
        for (x, up) in &ups {
            let on_top = up
                .iter()
                .all(|y| ups.get(y.as_str()).is_some_and(|uy| uy.contains(*x)));
            if on_top
                && let Some(start) = up.iter().filter_map(|u| self.root_key_of(graph, u)).min()
            {
                self.cycle_starts.insert(start);
            }
        }
    }

    /// Walks up resolving owners: whether a root is reached, and every
    /// object visited.
    fn upward(&self, graph: &OwnershipGraph, uid: &str) -> (bool, Vec<String>) {
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack = vec![uid.to_string()];
        let mut reaches = false;
        while let Some(u) = stack.pop() {
            if !seen.insert(u.clone()) {
                continue;
            }
            if self
                .ids
                .get(u.as_str())
                .is_some_and(|id| self.nodes[idx(id)].root)
            {
                reaches = true;
                break;
            }
            stack.extend(graph.resolved_owners(&u));
        }
        (reaches, seen.into_iter().collect())
    }

    /// Where the forest changed shape since the last call.
    pub fn take_dirty(&mut self) -> Dirty {
        std::mem::take(&mut self.dirty)
    }

    /// The roots (and cycle starts) of one group, in display order.
    pub fn roots_of(
        &self,
        cluster_scoped: bool,
        namespace: &str,
    ) -> impl Iterator<Item = &RootKey> + '_ {
        let from = RootKey {
            cluster_scoped,
            namespace: Arc::from(namespace),
            kind: Arc::from(""),
            name: Arc::from(""),
            uid: Arc::from(""),
            id: 0,
        };
        let ns = namespace.to_string();
        let in_group =
            move |k: &&RootKey| k.cluster_scoped == cluster_scoped && *k.namespace == *ns;
        let roots = self
            .roots
            .range(from.clone()..)
            .take_while(in_group.clone());
        let starts = self.cycle_starts.range(from..).take_while(in_group);
        let mut all: Vec<&RootKey> = roots.chain(starts).collect();
        if !self.cycle_starts.is_empty() {
            all.sort();
        }
        all.into_iter()
    }

    /// Roots (and cycle starts) in display order.
    pub fn roots(&self) -> Box<dyn Iterator<Item = &RootKey> + '_> {
        if self.cycle_starts.is_empty() {
            Box::new(self.roots.iter())
        } else {
            let mut all: Vec<&RootKey> = self.roots.iter().chain(&self.cycle_starts).collect();
            all.sort();
            Box::new(all.into_iter())
        }
    }

    /// Pods and what selects them ([`crate::model::relations::relations_indexed`]);
    /// `None` while that index is built elsewhere.
    #[must_use]
    pub fn selectors(&self) -> Option<&SelectorIndex> {
        self.selectors_since.is_none().then_some(&self.selectors)
    }

    /// The id of an object.
    #[must_use]
    pub fn id(&self, uid: &str) -> Option<NodeId> {
        self.ids.get(uid)
    }

    /// The uid of a live id (empty for a free one).
    #[must_use]
    pub fn uid(&self, id: NodeId) -> &str {
        self.ids.uid(id)
    }

    /// `kind/name` in lower case.
    #[must_use]
    pub fn label(&self, id: NodeId) -> &str {
        self.ids.label(id)
    }

    /// A hash of the uid, for row keys.
    #[must_use]
    pub fn uid_hash(&self, id: NodeId) -> u64 {
        self.nodes.get(idx(id)).map_or(0, |n| n.uid_hash)
    }

    /// Resolving dependents, sorted by namespace, kind, name.
    #[must_use]
    pub fn children_of(&self, id: NodeId) -> &[NodeId] {
        self.nodes
            .get(idx(id))
            .map_or(&[], |n| n.children.as_slice())
    }

    /// Resolving dependents of `uid`, as uids.
    pub fn children(&self, uid: &str) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        let kids = self.id(uid).map_or(&[][..], |id| self.children_of(id));
        kids.iter().map(|c| self.uid(*c))
    }

    #[must_use]
    pub fn is_problem_id(&self, id: NodeId) -> bool {
        self.nodes.get(idx(id)).is_some_and(|n| n.problem)
    }

    #[must_use]
    pub fn is_terminating_id(&self, id: NodeId) -> bool {
        self.nodes.get(idx(id)).is_some_and(|n| n.terminating)
    }

    #[must_use]
    pub fn is_problem(&self, uid: &str) -> bool {
        self.id(uid).is_some_and(|id| self.is_problem_id(id))
    }

    #[must_use]
    pub fn is_terminating(&self, uid: &str) -> bool {
        self.id(uid).is_some_and(|id| self.is_terminating_id(id))
    }

    /// Changes when any label does (an object added, removed or renamed).
    #[must_use]
    pub fn label_stamp(&self) -> u64 {
        self.label_stamp
    }

    /// The ids of the live objects, in order.
    pub fn live_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.live)
            .filter_map(|(i, _)| NodeId::try_from(i).ok())
    }

    /// Whether any live object satisfies `pred` (a flat scan, no walk).
    pub fn any(&self, pred: impl Fn(NodeId) -> bool) -> bool {
        (0..self.nodes.len())
            .filter_map(|i| NodeId::try_from(i).ok())
            .any(|id| self.nodes[idx(id)].live && pred(id))
    }

    /// Objects with an owner reference that does not resolve.
    #[must_use]
    pub fn problem_count(&self) -> usize {
        self.problems
    }

    #[must_use]
    pub fn terminating_count(&self) -> usize {
        self.terminating
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KindTable, OwnerReference};

    fn obj(kind: &str, name: &str, uid: &str, owner: Option<(&str, &str, &str)>) -> Object {
        let mut o = Object::new("apps/v1", kind, Some("a"), name);
        o.metadata.uid = uid.into();
        if let Some((k, n, u)) = owner {
            o.metadata.owner_references.push(OwnerReference {
                api_version: "apps/v1".into(),
                kind: k.into(),
                name: n.into(),
                uid: u.into(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            });
        }
        o
    }

    fn root_uids(ix: &ForestIndex) -> Vec<String> {
        ix.roots().map(|k| k.uid.to_string()).collect()
    }

    #[test]
    fn incremental_matches_a_rebuild() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let mut ix = ForestIndex::build(&g);
        let steps = [
            obj("ReplicaSet", "r", "r", Some(("Deployment", "d", "d"))),
            obj("Deployment", "d", "d", None),
            obj("ReplicaSet", "q", "q", Some(("Deployment", "d", "d"))),
        ];
        for o in steps {
            let uid = o.uid().to_string();
            g.upsert(o);
            ix.touch(&g, &uid, &[]);
        }
        assert_eq!(root_uids(&ix), vec!["d"]);
        assert_eq!(ix.children("d").len(), 2);
        assert_eq!(ix.problem_count(), 0);
        assert_eq!(ix.label(ix.id("q").expect("q")), "replicaset/q");
        g.remove("d");
        ix.touch(&g, "d", &[]);
        let fresh = ForestIndex::build(&g);
        assert_eq!(root_uids(&ix), root_uids(&fresh));
        assert_eq!(root_uids(&ix), vec!["q", "r"]);
        assert_eq!(ix.problem_count(), 2);
        assert_eq!(fresh.problem_count(), 2);
        assert_eq!(ix.len(), 2);
        // The freed id is reused.
        g.upsert(obj("Deployment", "e", "e", None));
        ix.touch(&g, "e", &[]);
        assert_eq!(ix.nodes.len(), 3);
    }

    /// A selector index built elsewhere from the objects as they were,
    /// while objects changed: given back, it answers for every object as
    /// one built from the graph as it is now.
    #[test]
    fn selectors_built_apart_take_in_what_changed_meanwhile() {
        use crate::model::relations::{SelectorIndex, relations_indexed};
        let pod = |name: &str, app: &str| {
            let mut p = Object::new("v1", "Pod", Some("a"), name);
            p.metadata.uid = name.into();
            p.metadata.labels.insert("app".into(), app.into());
            p
        };
        let mut svc = Object::new("v1", "Service", Some("a"), "web");
        svc.metadata.uid = "svc".into();
        svc.spec = serde_json::json!({"selector": {"app": "web"}}).into();
        let mut g = OwnershipGraph::new(KindTable::builtin());
        for o in [svc, pod("p1", "web"), pod("p2", "web"), pod("p3", "db")] {
            g.upsert(o);
        }
        let (mut ix, objects) = ForestIndex::build_leaving_selectors(&g);
        assert!(ix.selectors().is_none(), "pending until given");
        assert_eq!(objects.len(), 4);
        // Meanwhile: one pod relabelled into the selection, one out, one
        // gone, one new.
        for (o, gone) in [
            (pod("p3", "web"), None),
            (pod("p1", "db"), None),
            (pod("p4", "web"), None),
            (pod("p2", "web"), Some("p2")),
        ] {
            let uid = o.uid().to_string();
            match gone {
                Some(u) => drop(g.remove(u)),
                None => g.upsert(o),
            }
            ix.touch(&g, &uid, &[]);
        }
        ix.set_selectors(SelectorIndex::build(objects.iter()), &g);
        let fresh = ForestIndex::build(&g);
        let (given, fresh) = (
            ix.selectors().expect("given"),
            fresh.selectors().expect("built"),
        );
        for o in g.objects() {
            assert_eq!(
                relations_indexed(&g, given, o),
                relations_indexed(&g, fresh, o),
                "{}",
                o.name()
            );
        }
        let svc = g.get("svc").expect("svc");
        let relations = relations_indexed(&g, given, svc);
        let selected: Vec<String> = relations
            .selects
            .expect("a known selector")
            .iter()
            .map(|p| p.name.to_string())
            .collect();
        assert_eq!(selected, ["p3", "p4"]);
    }

    #[test]
    fn a_pure_cycle_gets_a_start() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj("Deployment", "a", "1", Some(("Deployment", "b", "2"))));
        g.upsert(obj("Deployment", "b", "2", Some(("Deployment", "a", "1"))));
        let ix = ForestIndex::build(&g);
        assert_eq!(root_uids(&ix), vec!["1"]);
        let mut g2 = g.clone();
        let mut ix2 = ForestIndex::build(&OwnershipGraph::new(KindTable::builtin()));
        for u in ["1", "2"] {
            ix2.touch(&g2, u, &[]);
        }
        assert_eq!(root_uids(&ix2), vec!["1"]);
        g2.remove("2");
        ix2.touch(&g2, "2", &["1".to_string()]);
        assert_eq!(root_uids(&ix2), vec!["1"], "now a plain root");
    }
}
