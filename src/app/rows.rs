//! The flat pre-order list of visible rows, rebuilt when the graph, the
//! expansion or the filters change (never per frame), so that drawing a
//! frame costs what the visible window costs.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::index::ForestIndex;
use crate::model::ObjRef;

/// Identity of a row: a hash of its path from the group down (an object
/// shown under two owners has two rows with two keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey(pub u64);

fn fnv(bytes: &[u8]) -> u64 {
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
        let h = fnv(uid.as_bytes());
        RowKey(mix(self.0.rotate_left(29) ^ h).wrapping_add(h))
    }
}

/// What a row shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowNode {
    /// `namespace shop` or `cluster-scoped`, with its number of roots.
    Group {
        namespace: Option<Rc<str>>,
        roots: usize,
    },
    /// An object, under `parent` (its owner in this row's path).
    Object {
        uid: Rc<str>,
        parent: Option<Rc<str>>,
        /// Appears again below itself.
        cycle: bool,
    },
    /// An object that was just deleted, kept on screen for a moment.
    Ghost { object: ObjRef },
}

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
    /// The object's uid, for object rows.
    #[must_use]
    pub fn uid(&self) -> Option<&str> {
        match &self.node {
            RowNode::Object { uid, .. } => Some(uid),
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
    toggled: HashSet<RowKey>,
}

impl Expansion {
    #[must_use]
    pub fn new(default_open: bool) -> Self {
        Expansion {
            default_open,
            toggled: HashSet::new(),
        }
    }

    #[must_use]
    pub fn is_open(&self, key: RowKey, group: bool) -> bool {
        let default = group || self.default_open;
        default != self.toggled.contains(&key)
    }

    pub fn set(&mut self, key: RowKey, group: bool, open: bool) {
        let default = group || self.default_open;
        if open == default {
            self.toggled.remove(&key);
        } else {
            self.toggled.insert(key);
        }
    }

    /// Every object row open (`true`) or closed; groups open.
    pub fn reset_all(&mut self, open: bool) {
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

    fn matches(&self, index: &ForestIndex, uid: &str) -> bool {
        match self.only {
            Only::All => true,
            Only::Terminating => index.is_terminating(uid),
            Only::Problems => index.is_problem(uid),
        }
    }
}

/// One object position in the full forest, as [`walk`] visits it.
pub struct Visit<'a> {
    pub key: RowKey,
    pub uid: &'a str,
    /// Keys of the group and every owner above, outermost first.
    pub ancestors: &'a [RowKey],
}

/// A row to visit: uid, owner in this path, key, depth.
type Pending = (Rc<str>, Option<Rc<str>>, RowKey, u16);

/// Rows under the current expansion and filters.
#[must_use]
pub fn build(index: &ForestIndex, expansion: &Expansion, filters: &Filters) -> Vec<Row> {
    let keep = (filters.only != Only::All).then(|| Keep::compute(index, filters));
    let mut rows: Vec<Row> = Vec::new();
    let mut group: Option<(String, usize)> = None;
    let mut group_open = false;
    let mut stack: Vec<Pending> = Vec::new();
    let mut path: Vec<Rc<str>> = Vec::new();
    for rk in index.roots() {
        if !filters.scope.admits(&rk.namespace) {
            continue;
        }
        if let Some(k) = &keep
            && !k.shows(&rk.uid)
        {
            continue;
        }
        let ns = (!rk.namespace.is_empty()).then_some(rk.namespace.as_str());
        if group.as_ref().is_none_or(|(g, _)| *g != rk.namespace) {
            let key = RowKey::group(ns);
            group_open = keep.is_some() || expansion.is_open(key, true);
            group = Some((rk.namespace.clone(), rows.len()));
            rows.push(Row {
                key,
                depth: 0,
                node: RowNode::Group {
                    namespace: ns.map(Rc::from),
                    roots: 0,
                },
                has_children: true,
                open: group_open,
            });
        }
        if let Some((_, at)) = &group
            && let Some(Row {
                node: RowNode::Group { roots, .. },
                ..
            }) = rows.get_mut(*at)
        {
            *roots += 1;
        }
        if !group_open {
            continue;
        }
        let gkey = RowKey::group(ns);
        stack.push((rk.uid.clone(), None, gkey.child(&rk.uid), 1));
        while let Some((uid, parent, key, depth)) = stack.pop() {
            path.truncate(usize::from(depth) - 1);
            let cycle = path.contains(&uid);
            let children = index.children(&uid);
            let has_children = !cycle
                && match &keep {
                    Some(k) => children.iter().any(|c| k.shows(c)),
                    None => !children.is_empty(),
                };
            let open = has_children && (keep.is_some() || expansion.is_open(key, false));
            path.push(uid.clone());
            if open {
                for c in children.iter().rev() {
                    if keep.as_ref().is_none_or(|k| k.shows(c)) {
                        stack.push((c.clone(), Some(uid.clone()), key.child(c), depth + 1));
                    }
                }
            }
            rows.push(Row {
                key,
                depth,
                node: RowNode::Object { uid, parent, cycle },
                has_children,
                open,
            });
        }
    }
    rows
}

/// Which objects a filtered view shows: matches and everything above them.
struct Keep {
    shows: HashMap<Rc<str>, bool>,
}

impl Keep {
    fn compute(index: &ForestIndex, filters: &Filters) -> Keep {
        let mut shows: HashMap<Rc<str>, bool> = HashMap::new();
        // Post-order without recursion; a node on the current path counts
        // as not shown (a cycle adds nothing).
        for rk in index.roots() {
            let mut stack: Vec<(Rc<str>, bool)> = vec![(rk.uid.clone(), false)];
            let mut on_path: HashSet<Rc<str>> = HashSet::new();
            while let Some((uid, expanded)) = stack.pop() {
                if expanded {
                    on_path.remove(&uid);
                    let any_child = index
                        .children(&uid)
                        .iter()
                        .any(|c| shows.get(c).copied().unwrap_or(false));
                    shows.insert(uid.clone(), any_child || filters.matches(index, &uid));
                    continue;
                }
                if shows.contains_key(&uid) || on_path.contains(&uid) {
                    continue;
                }
                on_path.insert(uid.clone());
                stack.push((uid.clone(), true));
                for c in index.children(&uid) {
                    stack.push((c.clone(), false));
                }
            }
        }
        Keep { shows }
    }

    fn shows(&self, uid: &str) -> bool {
        self.shows.get(uid).copied().unwrap_or(false)
    }
}

/// Visits every object position of the whole forest (all rows open) in
/// display order, within the scope filter, until `f` returns `true`.
pub fn walk(index: &ForestIndex, scope: &Scope, mut f: impl FnMut(&Visit<'_>) -> bool) {
    let mut ancestors: Vec<RowKey> = Vec::new();
    let mut path: Vec<Rc<str>> = Vec::new();
    let mut stack: Vec<(Rc<str>, RowKey, usize)> = Vec::new();
    for rk in index.roots() {
        if !scope.admits(&rk.namespace) {
            continue;
        }
        let ns = (!rk.namespace.is_empty()).then_some(rk.namespace.as_str());
        let gkey = RowKey::group(ns);
        ancestors.clear();
        ancestors.push(gkey);
        stack.push((rk.uid.clone(), gkey.child(&rk.uid), 1));
        while let Some((uid, key, depth)) = stack.pop() {
            ancestors.truncate(depth);
            path.truncate(depth - 1);
            let cycle = path.contains(&uid);
            if f(&Visit {
                key,
                uid: &uid,
                ancestors: &ancestors,
            }) {
                return;
            }
            if cycle {
                continue;
            }
            ancestors.push(key);
            path.push(uid.clone());
            for c in index.children(&uid).iter().rev() {
                stack.push((c.clone(), key.child(c), depth + 1));
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

    fn names(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| match &r.node {
                RowNode::Group { namespace, roots } => format!(
                    "{}{}:{roots}",
                    " ".repeat(usize::from(r.depth)),
                    namespace.as_deref().unwrap_or("<cluster>")
                ),
                RowNode::Object { uid, .. } => {
                    format!("{}{uid}", " ".repeat(usize::from(r.depth)))
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
            names(&rows),
            vec![
                "<cluster>:1",
                " ns",
                "a:2",
                " d",
                "  c",
                "  r",
                "   p",
                " e",
                "  c"
            ]
        );
        let mut exp = Expansion::new(true);
        exp.set(rows[3].key, false, false);
        let rows2 = build(&ix, &exp, &Filters::default());
        assert_eq!(
            names(&rows2),
            vec!["<cluster>:1", " ns", "a:2", " d", " e", "  c"]
        );
        let closed = build(&ix, &Expansion::new(false), &Filters::default());
        assert_eq!(
            names(&closed),
            vec!["<cluster>:1", " ns", "a:2", " d", " e"]
        );
        // The two rows of the shared ConfigMap have different keys.
        assert_ne!(rows[4].key, rows[8].key);
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
        assert_eq!(names(&rows), vec!["a:1", " d", "  r", "   p"]);
        let ns = Filters {
            only: Only::All,
            scope: Scope::ClusterScoped,
        };
        assert_eq!(
            names(&build(&ix, &Expansion::new(true), &ns)),
            vec!["<cluster>:1", " ns"]
        );
    }

    #[test]
    fn walk_sees_everything_with_ancestors() {
        let ix = ForestIndex::build(&graph());
        let mut seen = Vec::new();
        walk(&ix, &Scope::All, |v| {
            seen.push((v.uid.to_string(), v.ancestors.len()));
            false
        });
        let uids: Vec<&str> = seen.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(uids, vec!["ns", "d", "c", "r", "p", "e", "c"]);
        assert_eq!(seen[4].1, 3, "p has the group, d and r above it");
    }
}
