//! The forest index the tree is drawn from: for every object its resolving
//! dependents (sorted), whether it is a root, Terminating or has a problem,
//! kept up to date incrementally from upserts and removals so that a change
//! costs what it touches, not what the cluster holds.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use crate::model::{Object, OwnershipGraph};

/// Display order of roots: (namespace or "" for cluster-scoped, kind, name,
/// uid). Cluster-scoped roots sort first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RootKey {
    pub namespace: String,
    pub kind: String,
    pub name: String,
    pub uid: Rc<str>,
}

#[derive(Clone, Debug, Default)]
struct Node {
    uid: Rc<str>,
    children: Vec<Rc<str>>,
    root: Option<RootKey>,
    problem: bool,
    terminating: bool,
}

/// Children, roots and flags of every object in a graph.
#[derive(Clone, Debug, Default)]
pub struct ForestIndex {
    nodes: HashMap<Rc<str>, Node>,
    roots: BTreeSet<RootKey>,
    /// Objects that only own each other (a cycle no root reaches): the
    /// first of each cycle is drawn as if it were a root.
    cycle_starts: BTreeSet<RootKey>,
    problems: usize,
    terminating: usize,
}

fn root_key(o: &Object, uid: &Rc<str>) -> RootKey {
    RootKey {
        namespace: o.namespace().unwrap_or_default().to_string(),
        kind: o.kind.clone(),
        name: o.name().to_string(),
        uid: uid.clone(),
    }
}

impl ForestIndex {
    /// Indexes every object of `graph`.
    #[must_use]
    pub fn build(graph: &OwnershipGraph) -> Self {
        let mut ix = ForestIndex::default();
        let uids: Vec<String> = graph.objects().map(|o| o.uid().to_string()).collect();
        for u in &uids {
            ix.refresh_node(graph, u);
        }
        for u in &uids {
            ix.refresh_children(graph, u);
        }
        ix.check_cycles(graph, uids.iter().map(String::as_str));
        ix
    }

    /// Brings the index up to date after `uid` was upserted or removed.
    /// `old_owners` are the owner uids the object referred to before.
    pub fn touch(&mut self, graph: &OwnershipGraph, uid: &str, old_owners: &[String]) {
        let mut owners: HashSet<String> = old_owners.iter().cloned().collect();
        if let Some(o) = graph.get(uid) {
            owners.extend(o.metadata.owner_references.iter().map(|r| r.uid.clone()));
        }
        let referrers: Vec<String> = graph.referrers(uid).cloned().collect();
        self.refresh_node(graph, uid);
        self.refresh_children(graph, uid);
        for o in &owners {
            self.refresh_children(graph, o);
        }
        for r in &referrers {
            self.refresh_node(graph, r);
        }
        let candidates = std::iter::once(uid)
            .chain(referrers.iter().map(String::as_str))
            .chain(owners.iter().map(String::as_str));
        self.check_cycles(graph, candidates);
    }

    fn refresh_node(&mut self, graph: &OwnershipGraph, uid: &str) {
        let Some(obj) = graph.get(uid) else {
            if let Some(old) = self.nodes.remove(uid) {
                self.forget(&old);
            }
            return;
        };
        let statuses: Vec<bool> = obj
            .metadata
            .owner_references
            .iter()
            .map(|r| graph.classify(obj, r).resolves())
            .collect();
        let is_root = !statuses.iter().any(|s| *s);
        let problem = statuses.iter().any(|s| !*s);
        let terminating = obj.is_terminating();
        let rc: Rc<str> = match self.nodes.get(uid) {
            Some(n) => n.uid.clone(),
            None => Rc::from(uid),
        };
        let root = is_root.then(|| root_key(obj, &rc));
        let children = self
            .nodes
            .get_mut(uid)
            .map(|n| std::mem::take(&mut n.children))
            .unwrap_or_default();
        let new = Node {
            uid: rc.clone(),
            children,
            root,
            problem,
            terminating,
        };
        if let Some(old) = self.nodes.insert(rc, new) {
            self.forget(&old);
        }
        let Some(new) = self.nodes.get(uid) else {
            return;
        };
        if let Some(k) = &new.root {
            self.roots.insert(k.clone());
        }
        self.problems += usize::from(new.problem);
        self.terminating += usize::from(new.terminating);
    }

    fn forget(&mut self, old: &Node) {
        if let Some(k) = &old.root {
            self.roots.remove(k);
        }
        self.cycle_starts.retain(|k| k.uid != old.uid);
        self.problems -= usize::from(old.problem);
        self.terminating -= usize::from(old.terminating);
    }

    fn refresh_children(&mut self, graph: &OwnershipGraph, owner: &str) {
        if !self.nodes.contains_key(owner) {
            return;
        }
        let mut kids: Vec<&Object> = graph
            .referrers(owner)
            .filter_map(|d| graph.get(d))
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
        let children: Vec<Rc<str>> = kids
            .iter()
            .map(|k| match self.nodes.get(k.uid()) {
                Some(n) => n.uid.clone(),
                None => Rc::from(k.uid()),
            })
            .collect();
        if let Some(n) = self.nodes.get_mut(owner) {
            n.children = children;
        }
    }

    /// Finds objects no root reaches (only owned inside a cycle) among
    /// `candidates`, and re-checks the cycles already known.
    fn check_cycles<'a>(
        &mut self,
        graph: &OwnershipGraph,
        candidates: impl Iterator<Item = &'a str>,
    ) {
        let known: Vec<Rc<str>> = self.cycle_starts.iter().map(|k| k.uid.clone()).collect();
        self.cycle_starts.clear();
        let mut done: HashSet<String> = HashSet::new();
        for uid in candidates
            .map(str::to_string)
            .chain(known.iter().map(|u| u.to_string()))
        {
            if done.contains(&uid)
                || self
                    .nodes
                    .get(uid.as_str())
                    .is_none_or(|n| n.root.is_some())
            {
                continue;
            }
            let (reaches_root, closure) = self.upward(graph, &uid);
            done.extend(closure.iter().cloned());
            if reaches_root {
                continue;
            }
            let start = closure
                .iter()
                .filter_map(|u| Some(root_key(graph.get(u)?, &self.nodes.get(u.as_str())?.uid)))
                .min();
            if let Some(k) = start {
                self.cycle_starts.insert(k);
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
            if self.nodes.get(u.as_str()).is_some_and(|n| n.root.is_some()) {
                reaches = true;
            }
            stack.extend(graph.resolved_owners(&u));
        }
        (reaches, seen.into_iter().collect())
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

    /// Resolving dependents of `uid`, sorted by namespace, kind, name.
    #[must_use]
    pub fn children(&self, uid: &str) -> &[Rc<str>] {
        self.nodes.get(uid).map_or(&[], |n| n.children.as_slice())
    }

    #[must_use]
    pub fn is_problem(&self, uid: &str) -> bool {
        self.nodes.get(uid).is_some_and(|n| n.problem)
    }

    #[must_use]
    pub fn is_terminating(&self, uid: &str) -> bool {
        self.nodes.get(uid).is_some_and(|n| n.terminating)
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
        self.nodes.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
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
        g.remove("d");
        ix.touch(&g, "d", &[]);
        let fresh = ForestIndex::build(&g);
        assert_eq!(root_uids(&ix), root_uids(&fresh));
        assert_eq!(root_uids(&ix), vec!["q", "r"]);
        assert_eq!(ix.problem_count(), 2);
        assert_eq!(fresh.problem_count(), 2);
    }

    #[test]
    fn a_pure_cycle_gets_a_start() {
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(obj("Deployment", "a", "1", Some(("Deployment", "b", "2"))));
        g.upsert(obj("Deployment", "b", "2", Some(("Deployment", "a", "1"))));
        let ix = ForestIndex::build(&g);
        assert_eq!(root_uids(&ix), vec!["1"]);
    }
}
