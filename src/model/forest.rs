//! The forest: roots grouped by namespace (cluster-scoped roots in their own
//! group), dependents under their owners, an object with several owners
//! under each of them. Used by `tree` (text and JSON) and the UI.

use std::collections::{BTreeMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;

use super::badges::{Badge, edge_badges, object_badges};
use super::graph::OwnershipGraph;
use super::object::{ObjRef, OwnerReference, Uid};

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
        match &self.namespace {
            Some(ns) => format!("namespace {ns}"),
            None => "cluster-scoped".to_string(),
        }
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
    let mut groups: BTreeMap<Option<String>, Vec<ForestNode>> = BTreeMap::new();
    let mut seen: HashSet<Uid> = HashSet::new();
    let mut budget = node_budget(graph.len());
    let mut starts = graph.roots();
    // Objects that only own each other have no root: start from the first
    // of each such cycle so that nothing is hidden.
    let mut rest: Vec<Uid> = Vec::new();
    loop {
        for root in std::mem::take(&mut starts) {
            if seen.contains(&root) {
                continue;
            }
            let Some(obj) = graph.get(&root) else {
                continue;
            };
            let ns = obj.namespace().map(str::to_string);
            let mut path = Vec::new();
            let node = build_node(graph, &root, None, now, &mut path, &mut seen, &mut budget);
            groups.entry(ns).or_default().push(node);
        }
        if rest.is_empty() {
            rest = graph
                .objects()
                .map(|o| o.uid().to_string())
                .filter(|u| !seen.contains(u))
                .collect();
            rest.sort_by(|a, b| graph.sort_key(a).cmp(&graph.sort_key(b)));
            rest.reverse();
        }
        match rest.pop() {
            Some(u) if !seen.contains(&u) => starts.push(u),
            Some(_) => {}
            None => break,
        }
    }
    in_order(groups)
}

/// Namespaces first, cluster-scoped last: with -A a cluster's hundreds of
/// RBAC and APIService roots would otherwise come before any workload.
fn in_order(groups: BTreeMap<Option<String>, Vec<ForestNode>>) -> Vec<ForestGroup> {
    let mut out: Vec<ForestGroup> = groups
        .into_iter()
        .map(|(namespace, roots)| ForestGroup { namespace, roots })
        .collect();
    let cluster_first = out.first().is_some_and(|g| g.namespace.is_none());
    out.rotate_left(usize::from(cluster_first));
    out
}

/// A node's object and badges (of the edge it is shown under, and its own).
fn head(
    graph: &OwnershipGraph,
    uid: &str,
    edge: Option<&OwnerReference>,
    now: Timestamp,
) -> (ObjRef, Vec<Badge>) {
    let object = graph
        .get(uid)
        .map(super::object::Object::obj_ref)
        .unwrap_or_default();
    let mut badges = edge.map(edge_badges).unwrap_or_default();
    if let Some(obj) = graph.get(uid) {
        badges.extend(object_badges(graph, obj, now));
    }
    (object, badges)
}

/// The tree of one object, as `kubectl tree KIND/NAME` shows it: its
/// dependents down and, above it, its owners up to their roots (each owner
/// shows only the branch that leads to the object).
#[must_use]
pub fn focus(graph: &OwnershipGraph, uid: &str, now: Timestamp) -> Vec<ForestGroup> {
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
    let mut tops: Vec<Uid> = above
        .iter()
        .filter(|a| graph.resolved_owners(a).iter().all(|o| !above.contains(o)))
        .cloned()
        .collect();
    if tops.is_empty() {
        tops.push(uid.to_string());
    }
    tops.sort_by(|a, b| graph.sort_key(a).cmp(&graph.sort_key(b)));
    let mut groups: BTreeMap<Option<String>, Vec<ForestNode>> = BTreeMap::new();
    let mut seen: HashSet<Uid> = HashSet::new();
    let mut budget = node_budget(graph.len());
    for top in tops {
        let ns = graph
            .get(&top)
            .and_then(|o| o.namespace().map(str::to_string));
        let mut path = Vec::new();
        let node = if top == uid {
            build_node(graph, &top, None, now, &mut path, &mut seen, &mut budget)
        } else {
            build_above(
                graph,
                &top,
                None,
                uid,
                &above,
                now,
                &mut path,
                &mut seen,
                &mut budget,
            )
        };
        groups.entry(ns).or_default().push(node);
    }
    in_order(groups)
}

/// An owner above the focused object: only the children on the way down
/// to it; the object itself with all its dependents.
#[allow(clippy::too_many_arguments)]
fn build_above(
    graph: &OwnershipGraph,
    owner: &Uid,
    edge: Option<OwnerReference>,
    target: &str,
    above: &HashSet<Uid>,
    now: Timestamp,
    path: &mut Vec<Uid>,
    seen: &mut HashSet<Uid>,
    budget: &mut usize,
) -> ForestNode {
    let (object, badges) = head(graph, owner, edge.as_ref(), now);
    if path.contains(owner) || path.len() >= MAX_TREE_DEPTH {
        return ForestNode {
            object,
            edge,
            badges,
            children: Vec::new(),
        };
    }
    path.push(owner.clone());
    let children = graph
        .dependents(owner)
        .into_iter()
        .filter(|(d, _)| d == target || above.contains(d))
        .map(|(d, r)| {
            if d == target {
                build_node(graph, &d, Some(r), now, path, seen, budget)
            } else {
                build_above(graph, &d, Some(r), target, above, now, path, seen, budget)
            }
        })
        .collect();
    path.pop();
    ForestNode {
        object,
        edge,
        badges,
        children,
    }
}

fn build_node(
    graph: &OwnershipGraph,
    uid: &Uid,
    edge: Option<OwnerReference>,
    now: Timestamp,
    path: &mut Vec<Uid>,
    seen: &mut HashSet<Uid>,
    budget: &mut usize,
) -> ForestNode {
    *budget = budget.saturating_sub(1);
    let drawn_before = !seen.insert(uid.clone());
    let (object, mut badges) = head(graph, uid, edge.as_ref(), now);
    if path.contains(uid) {
        badges.push(Badge::Cycle);
        return ForestNode {
            object,
            edge,
            badges,
            children: Vec::new(),
        };
    }
    let dependents = graph.dependents(uid);
    let stop = if dependents.is_empty() {
        None
    } else if path.len() >= MAX_TREE_DEPTH {
        Some(format!(
            "deeper than {MAX_TREE_DEPTH} levels: tree KIND/NAME from here"
        ))
    } else if drawn_before && *budget == 0 {
        Some("dependents shown above".to_string())
    } else {
        None
    };
    if let Some(why) = stop {
        badges.push(Badge::NotExpanded { why });
        return ForestNode {
            object,
            edge,
            badges,
            children: Vec::new(),
        };
    }
    path.push(uid.clone());
    let children = dependents
        .into_iter()
        .map(|(dep, r)| build_node(graph, &dep, Some(r), now, path, seen, budget))
        .collect();
    path.pop();
    ForestNode {
        object,
        edge,
        badges,
        children,
    }
}

/// Renders the forest like `kubectl tree`:
///
/// ```text
/// namespace shop
///   Deployment/web
///   └─ ReplicaSet/web-7d9f  [ctrl block]
///      ├─ Pod/web-7d9f-a  [ctrl block] [Terminating 3s fin:1]
/// ```
#[must_use]
pub fn to_text(groups: &[ForestGroup]) -> String {
    let mut out = String::new();
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&g.label());
        out.push('\n');
        for root in &g.roots {
            write_node(&mut out, root, "  ", None);
        }
    }
    out
}

fn badge_text(node: &ForestNode) -> String {
    let (edge, own): (Vec<&Badge>, Vec<&Badge>) = node
        .badges
        .iter()
        .partition(|b| matches!(b, Badge::Controller | Badge::BlockOwnerDeletion));
    let mut s = String::new();
    if !edge.is_empty() {
        let t: Vec<String> = edge.iter().map(|b| b.text()).collect();
        s.push_str(&format!("  <{}>", t.join(" ")));
    }
    if !own.is_empty() {
        let t: Vec<String> = own.iter().map(|b| b.text()).collect();
        s.push_str(&format!("  [{}]", t.join(" ")));
    }
    s
}

fn write_node(out: &mut String, node: &ForestNode, prefix: &str, last: Option<bool>) {
    let branch = match last {
        None => "",
        Some(true) => "└─ ",
        Some(false) => "├─ ",
    };
    out.push_str(&format!(
        "{prefix}{branch}{}/{}{}\n",
        node.object.kind,
        node.object.name,
        badge_text(node)
    ));
    let child_prefix = match last {
        None => prefix.to_string(),
        Some(true) => format!("{prefix}   "),
        Some(false) => format!("{prefix}│  "),
    };
    for (i, c) in node.children.iter().enumerate() {
        write_node(out, c, &child_prefix, Some(i + 1 == node.children.len()));
    }
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

    #[test]
    fn focus_shows_the_owners_branch_and_every_dependent() {
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
