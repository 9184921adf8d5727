//! The flat pre-order list of visible rows, rebuilt when the graph, the
//! expansion or the filters change (never per frame), so that drawing a
//! frame costs what the visible window costs.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::index::{Dirty, ForestIndex, NodeId};
use crate::model::ObjRef;

/// Identity of a row: a hash of its path from the group down (an object
/// shown under two owners has two rows with two keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey(pub u64);

/// FNV-1a, for uids.
#[must_use]
pub fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RowKey {
    /// The key of a namespace group (`None`: cluster-scoped).
    #[must_use]
    pub fn group(namespace: Option<&str>) -> RowKey {
        match namespace {
            Some(ns) => RowKey(mix(fnv(ns.as_bytes()) ^ 0x6e73)),
            None => RowKey(mix(0x0063_6c75_7374_6572)),
        }
    }

    /// The key of `uid` shown under this row.
    #[must_use]
    pub fn child(self, uid: &str) -> RowKey {
        self.child_hash(fnv(uid.as_bytes()))
    }

    /// The same, from the uid's hash.
    #[must_use]
    pub fn child_hash(self, h: u64) -> RowKey {
        RowKey(mix(self.0.rotate_left(29) ^ h).wrapping_add(h))
    }
}

/// Row keys are already well mixed: hash them as they are.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(*b) ^ (self.0 >> 56);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A set of row keys.
pub type KeySet = HashSet<RowKey, BuildHasherDefault<KeyHasher>>;

/// A set of node ids as a bitset: looked up once per row in the passes
/// over a million rows, where a hashed probe per row was most of the pass.
#[derive(Clone, Debug, Default)]
pub struct IdSet(Vec<u64>);

impl IdSet {
    pub fn insert(&mut self, id: NodeId) {
        let (w, b) = (id as usize / 64, id % 64);
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        self.0[w] |= 1 << b;
    }

    #[must_use]
    pub fn contains(&self, id: NodeId) -> bool {
        self.0
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }
}

impl<'a> FromIterator<&'a NodeId> for IdSet {
    fn from_iter<I: IntoIterator<Item = &'a NodeId>>(iter: I) -> Self {
        let mut s = IdSet::default();
        for id in iter {
            s.insert(*id);
        }
        s
    }
}

/// A filter before a probe of a set of row keys: a row whose key's bit is
/// clear is surely not in the set (one bit test instead of a hashed probe
/// per row; a set bit is then looked up).
#[derive(Clone, Debug)]
pub struct KeyFilter(Vec<u64>);

impl KeyFilter {
    const BITS: u64 = 1 << 16;

    #[must_use]
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a RowKey>) -> Self {
        let mut v = vec![0u64; usize::try_from(Self::BITS / 64).unwrap_or(1024)];
        for k in keys {
            let b = k.0 % Self::BITS;
            v[usize::try_from(b / 64).unwrap_or(0)] |= 1 << (b % 64);
        }
        KeyFilter(v)
    }

    #[must_use]
    pub fn may_contain(&self, key: RowKey) -> bool {
        let b = key.0 % Self::BITS;
        self.0
            .get(usize::try_from(b / 64).unwrap_or(0))
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    }
}

/// What a row shows. Kept to 16 bytes (a row to 32): a fully expanded
/// million rows is written whole at `E`, and most of that build was the
/// kernel handing out and zeroing fresh pages for them (perf of `bench
/// --objects 1000000 --part app`), so the row's size is the build's cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowNode {
    /// `namespace shop` or `cluster-scoped`, with its number of roots
    /// (one pointer, not a `str`'s two words: the largest variant sets
    /// every row's size).
    Group {
        namespace: Option<Arc<String>>,
        roots: u32,
    },
    /// An object, under `parent` (its owner in this row's path).
    Object {
        id: NodeId,
        parent: Option<NodeId>,
        /// Appears again below itself.
        cycle: bool,
    },
    /// An object that was just deleted, kept on screen for a moment.
    Ghost { object: Box<ObjRef> },
}

// What a row costs at a million of them ([`RowNode`]).
const _: () = assert!(std::mem::size_of::<Row>() <= 32);

/// One visible row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub key: RowKey,
    pub depth: u16,
    pub node: RowNode,
    pub has_children: bool,
    pub open: bool,
}

impl Row {
    /// The object's id, for object rows.
    #[must_use]
    pub fn id(&self) -> Option<NodeId> {
        match &self.node {
            RowNode::Object { id, .. } => Some(*id),
            _ => None,
        }
    }
}

/// Which rows are open: a default plus the rows toggled away from it, so
/// that "expand all" and "collapse all" cost nothing and new objects follow
/// the default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Whether object rows are open unless toggled. Groups are open unless
    /// toggled.
    pub default_open: bool,
    toggled: KeySet,
    /// Set by the App for the tree's size, nothing opened or closed by
    /// the user since: the App may set it again as the tree grows.
    automatic: bool,
}

impl Expansion {
    /// Chosen by the App, not by the user (see [`Expansion::is_automatic`]).
    #[must_use]
    pub fn new(default_open: bool) -> Self {
        Expansion {
            default_open,
            toggled: KeySet::default(),
            automatic: true,
        }
    }

    /// This, with the group `key` closed, still the App's choice.
    #[must_use]
    pub fn with_group_closed(mut self, key: RowKey) -> Self {
        self.set(key, true, false);
        self.automatic = true;
        self
    }

    /// Nothing opened or closed by the user since the App set it.
    #[must_use]
    pub fn is_automatic(&self) -> bool {
        self.automatic
    }

    #[must_use]
    pub fn is_open(&self, key: RowKey, group: bool) -> bool {
        let default = group || self.default_open;
        // No probe per row while nothing is toggled (after `E` or `Z`).
        default != (!self.toggled.is_empty() && self.toggled.contains(&key))
    }

    pub fn set(&mut self, key: RowKey, group: bool, open: bool) {
        self.automatic = false;
        let default = group || self.default_open;
        if open == default {
            self.toggled.remove(&key);
        } else {
            self.toggled.insert(key);
        }
    }

    /// Every object row open (`true`) or closed; groups open.
    pub fn reset_all(&mut self, open: bool) {
        self.automatic = false;
        self.default_open = open;
        self.toggled.clear();
    }
}

/// Only some objects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Only {
    #[default]
    All,
    Terminating,
    Problems,
}

/// Which namespaces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    All,
    Namespace(String),
    ClusterScoped,
}

impl Scope {
    fn admits(&self, namespace: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Namespace(ns) => ns == namespace,
            Scope::ClusterScoped => namespace.is_empty(),
        }
    }
}

/// The view filters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub only: Only,
    pub scope: Scope,
}

impl Filters {
    #[must_use]
    pub fn is_active(&self) -> bool {
        *self != Filters::default()
    }

    /// `only Terminating, namespace shop`.
    #[must_use]
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        match self.only {
            Only::All => {}
            Only::Terminating => parts.push("only Terminating".to_string()),
            Only::Problems => parts.push("only problems".to_string()),
        }
        match &self.scope {
            Scope::All => {}
            Scope::Namespace(ns) => parts.push(format!("namespace {ns}")),
            Scope::ClusterScoped => parts.push("cluster-scoped".to_string()),
        }
        parts.join(", ")
    }

    fn matches(&self, index: &ForestIndex, id: NodeId) -> bool {
        match self.only {
            Only::All => true,
            Only::Terminating => index.is_terminating_id(id),
            Only::Problems => index.is_problem_id(id),
        }
    }
}

/// One object position in the full forest, as [`walk`] visits it.
pub struct Visit<'a> {
    pub key: RowKey,
    pub id: NodeId,
    /// Keys of the group and every owner above, outermost first.
    pub ancestors: &'a [RowKey],
}

/// A row to visit: node, owner in this path, key, depth.
type Pending = (NodeId, Option<NodeId>, RowKey, u16);

/// Rows under the current expansion and filters.
#[must_use]
pub fn build(index: &ForestIndex, expansion: &Expansion, filters: &Filters) -> Vec<Row> {
    let mut rows = Vec::new();
    build_into(&mut rows, index, expansion, filters);
    rows
}

/// [`build`] into `rows`, emptied first: its room kept.
pub fn build_into(
    rows: &mut Vec<Row>,
    index: &ForestIndex,
    expansion: &Expansion,
    filters: &Filters,
) {
    let keep = (filters.only != Only::All).then(|| Keep::compute(index, filters));
    let shows = |id: NodeId| keep.as_ref().is_none_or(|k| k.shows(id));
    rows.clear();
    rows.reserve(room(index, expansion, filters));
    let mut group: Option<(&str, usize)> = None;
    let mut group_open = false;
    let mut path: Vec<NodeId> = Vec::new();
    for rk in index.roots() {
        if !filters.scope.admits(&rk.namespace) || !shows(rk.id) {
            continue;
        }
        let ns = (!rk.namespace.is_empty()).then_some(&*rk.namespace);
        if group.is_none_or(|(g, _)| *g != *rk.namespace) {
            let key = RowKey::group(ns);
            group_open = keep.is_some() || expansion.is_open(key, true);
            group = Some((&*rk.namespace, rows.len()));
            rows.push(Row {
                key,
                depth: 0,
                node: RowNode::Group {
                    namespace: ns.map(|n| Arc::new(n.to_string())),
                    roots: 0,
                },
                has_children: true,
                open: group_open,
            });
        }
        if let Some((_, at)) = group
            && let Some(Row {
                node: RowNode::Group { roots, .. },
                ..
            }) = rows.get_mut(at)
        {
            *roots += 1;
        }
        if !group_open {
            continue;
        }
        let gkey = RowKey::group(ns);
        path.clear();
        let start = (rk.id, None, gkey.child_hash(index.uid_hash(rk.id)), 1);
        project(rows, index, expansion, keep.as_ref(), &mut path, start);
    }
}

/// Room for the rows [`build`] makes, asked for once when they will be
/// about one per object (everything open, nothing filtered out): grown by
/// doubling to a million rows, the list asked the kernel for about twice
/// its size in fresh pages and copied itself over at each step. Room
/// asked for and not written costs no page. A view that shows less grows
/// as it goes.
fn room(index: &ForestIndex, expansion: &Expansion, filters: &Filters) -> usize {
    if expansion.default_open && *filters == Filters::default() {
        room_for_all(index)
    } else {
        0
    }
}

/// Rows of the whole tree opened, about: groups and objects shown under
/// two owners make a little more than one per object (and [`patch`] asks
/// for 64 more than the rows it patches).
#[must_use]
pub fn room_for_all(index: &ForestIndex) -> usize {
    let n = index.len();
    n + n / 8 + 1024
}

/// Emits the row `start` and, as far as it is open, everything under it,
/// in pre-order; `path` holds the objects above it (a cycle check).
fn project(
    rows: &mut Vec<Row>,
    index: &ForestIndex,
    expansion: &Expansion,
    keep: Option<&Keep>,
    path: &mut Vec<NodeId>,
    start: Pending,
) {
    let shows = |id: NodeId| keep.is_none_or(|k| k.shows(id));
    let mut stack: Vec<Pending> = vec![start];
    while let Some((id, parent, key, depth)) = stack.pop() {
        path.truncate(usize::from(depth) - 1);
        let cycle = path.contains(&id);
        let children = index.children_of(id);
        let has_children = !cycle
            && match keep {
                Some(k) => children.iter().any(|c| k.shows(*c)),
                None => !children.is_empty(),
            };
        let open = has_children && (keep.is_some() || expansion.is_open(key, false));
        path.push(id);
        rows.push(Row {
            key,
            depth,
            node: RowNode::Object { id, parent, cycle },
            has_children,
            open,
        });
        if !open {
            continue;
        }
        if keep.is_none() && children.iter().all(|c| index.children_of(*c).is_empty()) {
            // Children with none of their own (a ReplicaSet's pods, most
            // rows of a large tree) are their rows at once, in order: no
            // round through the stack, no look for a cycle (an object in
            // its own path has children).
            rows.extend(children.iter().map(|c| Row {
                key: key.child_hash(index.uid_hash(*c)),
                depth: depth + 1,
                node: RowNode::Object {
                    id: *c,
                    parent: Some(id),
                    cycle: false,
                },
                has_children: false,
                open: false,
            }));
            continue;
        }
        for c in children.iter().rev() {
            if shows(*c) {
                stack.push((*c, Some(id), key.child_hash(index.uid_hash(*c)), depth + 1));
            }
        }
    }
}

/// The rows again after the forest changed shape where `dirty` says,
/// from the `old` rows built before it did, into `out` (emptied first, its
/// room kept; `old` is left empty, its room too): every row outside the
/// changed places is taken over as it was, the rows of each changed
/// object's subtree and of each changed group are made again from the
/// index. What [`build`] gives, at the cost of the changed places and one
/// pass over the rows (no walk of the forest). Ghost rows are dropped: put
/// them back after ([`super::flash::Flashes::with_ghosts`]). `false`, and
/// nothing touched, when only [`build`] can say: the cycle starts changed,
/// or a filter keeps only some objects (what it keeps depends on
/// everything below).
#[must_use]
pub fn patch(
    old: &mut Vec<Row>,
    out: &mut Vec<Row>,
    index: &ForestIndex,
    expansion: &Expansion,
    filters: &Filters,
    dirty: &Dirty,
) -> bool {
    if dirty.all || filters.only != Only::All {
        return false;
    }
    out.clear();
    out.reserve(old.len() + 64);
    let mut groups = dirty
        .groups
        .iter()
        .filter(|(_, ns)| filters.scope.admits(ns))
        .peekable();
    let owners: IdSet = dirty.owners.iter().collect();
    let mut path: Vec<NodeId> = Vec::new();
    let mut it = old.drain(..).peekable();
    while let Some(r) = it.next() {
        match &r.node {
            RowNode::Ghost { .. } => {}
            RowNode::Group { namespace, .. } => {
                let here = (
                    namespace.is_none(),
                    namespace.as_deref().cloned().unwrap_or_default(),
                );
                while let Some((cs, ns)) = groups.next_if(|g| **g < here) {
                    project_group(out, index, expansion, *cs, ns);
                }
                path.clear();
                if groups.next_if(|g| **g == here).is_some() {
                    while it.next_if(|x| x.depth > 0).is_some() {}
                    project_group(out, index, expansion, here.0, &here.1);
                } else {
                    out.push(r);
                }
            }
            RowNode::Object { id, parent, cycle } => {
                let (id, parent, depth) = (*id, *parent, r.depth);
                path.truncate(usize::from(depth).saturating_sub(1));
                if !cycle && owners.contains(id) {
                    // Its old subtree, ghosts within it included: a ghost
                    // put back at its old place may sit between the
                    // object and children it gained since.
                    while it
                        .next_if(|x| x.depth > depth || matches!(x.node, RowNode::Ghost { .. }))
                        .is_some()
                    {}
                    let start = (id, parent, r.key, depth);
                    project(out, index, expansion, None, &mut path, start);
                } else {
                    path.push(id);
                    out.push(r);
                }
            }
        }
    }
    drop(it);
    for (cs, ns) in groups {
        project_group(out, index, expansion, *cs, ns);
    }
    true
}

/// The rows of the row at `at` made again where they are, after it (or
/// rows below it) opened or closed and nothing else changed: an object's
/// subtree, or a group's header and rows, replaced in place, every other
/// row left as it is (one move of the rows after them, no pass over the
/// rest). What [`build`] gives then. Returns how many rows were replaced
/// and how many took their place (from `at`), or `None` where it cannot say: a ghost or cycle row,
/// ghosts anywhere (`ghosts`: they hang on their neighbours), a filter that
/// keeps some objects only, a group with no roots left.
#[must_use]
pub fn reproject(
    rows: &mut Vec<Row>,
    at: usize,
    index: &ForestIndex,
    expansion: &Expansion,
    filters: &Filters,
    ghosts: bool,
) -> Option<(usize, usize)> {
    if ghosts || filters.only != Only::All {
        return None;
    }
    let row = rows.get(at)?;
    let depth = row.depth;
    let end = rows[at + 1..]
        .iter()
        .position(|r| r.depth <= depth)
        .map_or(rows.len(), |n| at + 1 + n);
    let mut made = Vec::new();
    match &row.node {
        RowNode::Group { namespace, .. } => {
            let ns = namespace.as_deref().map_or("", String::as_str);
            project_group(&mut made, index, expansion, namespace.is_none(), ns);
            if made.is_empty() {
                return None;
            }
        }
        RowNode::Object {
            id,
            parent,
            cycle: false,
        } => {
            // The ids above it, one a depth, for the cycle marks below it.
            let mut path = vec![0; usize::from(depth).saturating_sub(1)];
            let mut want = depth;
            for r in rows[..at].iter().rev() {
                if want <= 1 {
                    break;
                }
                if r.depth == want - 1 {
                    let RowNode::Object { id, .. } = r.node else {
                        return None;
                    };
                    path[usize::from(want) - 2] = id;
                    want -= 1;
                }
            }
            let start = (*id, *parent, row.key, depth);
            project(&mut made, index, expansion, None, &mut path, start);
        }
        RowNode::Object { .. } | RowNode::Ghost { .. } => return None,
    }
    let n = made.len();
    rows.splice(at..end, made);
    if depth == 0 {
        recount_groups(&mut rows[at..at + n]);
    }
    Some((end - at, n))
}

/// A group's header and, if it is open, its roots' rows, as [`build`]
/// makes them (nothing for a group with no roots left).
fn project_group(
    rows: &mut Vec<Row>,
    index: &ForestIndex,
    expansion: &Expansion,
    cluster_scoped: bool,
    namespace: &str,
) {
    let roots: Vec<NodeId> = index
        .roots_of(cluster_scoped, namespace)
        .map(|k| k.id)
        .collect();
    if roots.is_empty() {
        return;
    }
    let ns = (!namespace.is_empty()).then_some(namespace);
    let gkey = RowKey::group(ns);
    let open = expansion.is_open(gkey, true);
    rows.push(Row {
        key: gkey,
        depth: 0,
        node: RowNode::Group {
            namespace: ns.map(|n| Arc::new(n.to_string())),
            roots: u32::try_from(roots.len()).unwrap_or(u32::MAX),
        },
        has_children: true,
        open,
    });
    if !open {
        return;
    }
    let mut path = Vec::new();
    for id in roots {
        path.clear();
        let start = (id, None, gkey.child_hash(index.uid_hash(id)), 1);
        project(rows, index, expansion, None, &mut path, start);
    }
}

/// Each open group's header counts the roots drawn under it (a root just
/// deleted, still shown for a moment, included): the header counts what it
/// heads.
pub fn recount_groups(rows: &mut [Row]) {
    let mut at: Option<usize> = None;
    let mut n: u32 = 0;
    let set = |rows: &mut [Row], at: Option<usize>, n: u32| {
        if let Some(Row {
            node: RowNode::Group { roots, .. },
            open: true,
            ..
        }) = at.and_then(|i| rows.get_mut(i))
        {
            *roots = n;
        }
    };
    for i in 0..rows.len() {
        match rows[i].depth {
            0 => {
                set(rows, at, n);
                at = Some(i);
                n = 0;
            }
            1 => n = n.saturating_add(1),
            _ => {}
        }
    }
    set(rows, at, n);
}

/// Which objects a filtered view shows: matches and everything above them.
struct Keep {
    /// By id: 0 unknown, 1 on the current path, 2 hidden, 3 shown.
    state: Vec<u8>,
}

impl Keep {
    fn compute(index: &ForestIndex, filters: &Filters) -> Keep {
        let mut state: Vec<u8> = Vec::new();
        let get = |state: &Vec<u8>, id: NodeId| state.get(id as usize).copied().unwrap_or(0);
        let set = |state: &mut Vec<u8>, id: NodeId, v: u8| {
            let i = id as usize;
            if state.len() <= i {
                state.resize(i + 1, 0);
            }
            state[i] = v;
        };
        // Post-order without recursion; a node on the current path counts
        // as hidden (a cycle adds nothing).
        for rk in index.roots() {
            let mut stack: Vec<(NodeId, bool)> = vec![(rk.id, false)];
            while let Some((id, expanded)) = stack.pop() {
                if expanded {
                    let any_child = index.children_of(id).iter().any(|c| get(&state, *c) == 3);
                    let shown = any_child || filters.matches(index, id);
                    set(&mut state, id, if shown { 3 } else { 2 });
                    continue;
                }
                if get(&state, id) != 0 {
                    continue;
                }
                set(&mut state, id, 1);
                stack.push((id, true));
                for c in index.children_of(id) {
                    stack.push((*c, false));
                }
            }
        }
        Keep { state }
    }

    fn shows(&self, id: NodeId) -> bool {
        self.state.get(id as usize).copied() == Some(3)
    }
}

/// Visits every object position of the whole forest (all rows open) in
/// display order, within the scope filter, until `f` returns `true`.
pub fn walk(index: &ForestIndex, scope: &Scope, mut f: impl FnMut(&Visit<'_>) -> bool) {
    let mut ancestors: Vec<RowKey> = Vec::new();
    let mut path: Vec<NodeId> = Vec::new();
    let mut stack: Vec<(NodeId, RowKey, usize)> = Vec::new();
    for rk in index.roots() {
        if !scope.admits(&rk.namespace) {
            continue;
        }
        let ns = (!rk.namespace.is_empty()).then_some(&*rk.namespace);
        let gkey = RowKey::group(ns);
        ancestors.clear();
        ancestors.push(gkey);
        stack.push((rk.id, gkey.child_hash(index.uid_hash(rk.id)), 1));
        while let Some((id, key, depth)) = stack.pop() {
            ancestors.truncate(depth);
            path.truncate(depth - 1);
            let cycle = path.contains(&id);
            if f(&Visit {
                key,
                id,
                ancestors: &ancestors,
            }) {
                return;
            }
            if cycle {
                continue;
            }
            ancestors.push(key);
            path.push(id);
            for c in index.children_of(id).iter().rev() {
                stack.push((*c, key.child_hash(index.uid_hash(*c)), depth + 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KindTable, Object, OwnerReference, OwnershipGraph};

    fn graph() -> OwnershipGraph {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let mut add =
            |kind: &str, ns: Option<&str>, name: &str, uid: &str, owner: &[(&str, &str)]| {
                let api = if kind == "Deployment" || kind == "ReplicaSet" {
                    "apps/v1"
                } else {
                    "v1"
                };
                let mut o = Object::new(api, kind, ns, name);
                o.metadata.uid = uid.into();
                for (k, u) in owner {
                    o.metadata.owner_references.push(OwnerReference {
                        api_version: "apps/v1".into(),
                        kind: (*k).into(),
                        name: (*u).into(),
                        uid: (*u).into(),
                        controller: None,
                        block_owner_deletion: None,
                    });
                }
                g.upsert(o);
            };
        add("Namespace", None, "a", "ns", &[]);
        add("Deployment", Some("a"), "d", "d", &[]);
        add("Deployment", Some("a"), "e", "e", &[]);
        add("ReplicaSet", Some("a"), "r", "r", &[("Deployment", "d")]);
        add("Pod", Some("a"), "p", "p", &[("ReplicaSet", "r")]);
        add(
            "ConfigMap",
            Some("a"),
            "c",
            "c",
            &[("Deployment", "d"), ("Deployment", "e")],
        );
        g
    }

    fn names(ix: &ForestIndex, rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| match &r.node {
                RowNode::Group { namespace, roots } => format!(
                    "{}{}:{roots}",
                    " ".repeat(usize::from(r.depth)),
                    namespace.as_deref().map_or("<cluster>", String::as_str)
                ),
                RowNode::Object { id, .. } => {
                    format!("{}{}", " ".repeat(usize::from(r.depth)), ix.uid(*id))
                }
                RowNode::Ghost { object } => object.name.clone(),
            })
            .collect()
    }

    #[test]
    fn open_closed_and_shared() {
        let g = graph();
        let ix = ForestIndex::build(&g);
        let rows = build(&ix, &Expansion::new(true), &Filters::default());
        assert_eq!(
            names(&ix, &rows),
            vec![
                "a:2",
                " d",
                "  c",
                "  r",
                "   p",
                " e",
                "  c",
                "<cluster>:1",
                " ns"
            ]
        );
        let mut exp = Expansion::new(true);
        exp.set(rows[1].key, false, false);
        let rows2 = build(&ix, &exp, &Filters::default());
        assert_eq!(
            names(&ix, &rows2),
            vec!["a:2", " d", " e", "  c", "<cluster>:1", " ns"]
        );
        let closed = build(&ix, &Expansion::new(false), &Filters::default());
        assert_eq!(
            names(&ix, &closed),
            vec!["a:2", " d", " e", "<cluster>:1", " ns"]
        );
        // The two rows of the shared ConfigMap have different keys.
        assert_ne!(rows[2].key, rows[6].key);
    }

    #[test]
    fn filters_keep_matches_and_their_owners() {
        let mut g = graph();
        let mut p = g.get("p").cloned().expect("p");
        p.metadata.deletion_timestamp = Some(jiff::Timestamp::UNIX_EPOCH);
        g.upsert(p);
        let ix = ForestIndex::build(&g);
        let f = Filters {
            only: Only::Terminating,
            scope: Scope::All,
        };
        let rows = build(&ix, &Expansion::new(false), &f);
        assert_eq!(names(&ix, &rows), vec!["a:1", " d", "  r", "   p"]);
        let ns = Filters {
            only: Only::All,
            scope: Scope::ClusterScoped,
        };
        assert_eq!(
            names(&ix, &build(&ix, &Expansion::new(true), &ns)),
            vec!["<cluster>:1", " ns"]
        );
    }

    #[test]
    fn walk_sees_everything_with_ancestors() {
        let ix = ForestIndex::build(&graph());
        let mut seen = Vec::new();
        walk(&ix, &Scope::All, |v| {
            seen.push((ix.uid(v.id).to_string(), v.ancestors.len()));
            false
        });
        let uids: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(uids, vec!["d", "c", "r", "p", "e", "c", "ns"]);
        assert_eq!(seen[3].1, 3, "p has the group, d and r above it");
    }
}
