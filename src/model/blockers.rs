//! What a foreground deletion waits on, bounded.
//!
//! Mid-cascade, the root of a 100k-object foreground delete waits on every
//! object below it. Listing them all is neither readable nor cheap (the UI
//! recomputes the answer on every change), so the blocker tree is walked
//! once without allocating, to count what it holds and to rank each
//! dependent by the worst thing in its subtree; then only the most telling
//! blockers are listed ([`LIST_LIMIT`] under one owner, [`NODE_BUDGET`] in
//! all): a finalizer whose controller is offline first, then any other
//! finalizer, then what waits in foreground on those, then grace periods,
//! then what is simply not deleted yet. Everything not listed is counted.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::graph::OwnershipGraph;
use super::object::{FOREGROUND, ORPHAN, Object};

/// Blockers listed under one owner; the rest are counted.
pub const LIST_LIMIT: usize = 20;
/// Blockers listed in the whole tree.
pub const NODE_BUDGET: usize = 200;
/// How deep the blocker chain is followed.
pub const MAX_DEPTH: usize = 8;

/// How telling a blocker is; lower is listed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// Holds a finalizer whose (simulated) controller is offline.
    Offline,
    /// Holds another finalizer (not the garbage collector's own).
    Finalizer,
    /// Terminating: a grace period, or waiting on its own dependents.
    Terminating,
    /// Not deleted yet: the garbage collector deletes it next.
    Pending,
}

/// Everything a foreground deletion waits on, down the whole tree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockerCounts {
    /// Blocking dependents, at every depth.
    pub total: usize,
    /// Of those, Terminating.
    pub terminating: usize,
    /// Of those, pods in their grace period.
    pub in_grace: usize,
    /// Of those, not deleted yet.
    pub pending: usize,
    /// Finalizers (other than the garbage collector's) and how many of the
    /// blockers hold each.
    pub by_finalizer: BTreeMap<String, usize>,
}

fn own_rank(o: &Object, controllers: &BTreeMap<String, bool>) -> Rank {
    let mut rank = if o.is_terminating() {
        Rank::Terminating
    } else {
        Rank::Pending
    };
    for f in &o.metadata.finalizers {
        if f == FOREGROUND || f == ORPHAN {
            continue;
        }
        if controllers.get(f) == Some(&false) {
            return Rank::Offline;
        }
        rank = Rank::Finalizer;
    }
    rank
}

/// The dependents of `owner` that block it (a reference to it with
/// `blockOwnerDeletion: true`).
pub fn blocking_dependents<'g>(
    graph: &'g OwnershipGraph,
    owner: &'g Object,
) -> impl Iterator<Item = &'g Object> + 'g {
    let uid = owner.uid();
    graph.referrer_objects(uid).filter(move |d| {
        d.metadata
            .owner_references
            .iter()
            .any(|r| r.uid == uid && r.blocks())
    })
}

/// A walk of the blocker tree that allocates nothing per object.
pub struct Scan<'g> {
    graph: &'g OwnershipGraph,
    controllers: &'g BTreeMap<String, bool>,
    path: HashSet<&'g str>,
}

impl<'g> Scan<'g> {
    #[must_use]
    pub fn new(graph: &'g OwnershipGraph, controllers: &'g BTreeMap<String, bool>) -> Self {
        Scan {
            graph,
            controllers,
            path: HashSet::new(),
        }
    }

    /// The worst rank in `o`'s blocker subtree (itself included), adding
    /// what it finds to `counts` when given.
    pub fn rank(
        &mut self,
        o: &'g Object,
        depth: usize,
        mut counts: Option<&mut BlockerCounts>,
    ) -> Rank {
        let mut rank = own_rank(o, self.controllers);
        if let Some(c) = counts.as_deref_mut() {
            c.total += 1;
            if o.is_terminating() {
                c.terminating += 1;
                if o.metadata.deletion_grace_period_seconds.unwrap_or(0) > 0 {
                    c.in_grace += 1;
                }
            } else {
                c.pending += 1;
            }
            for f in &o.metadata.finalizers {
                if f != FOREGROUND && f != ORPHAN {
                    *c.by_finalizer.entry(f.clone()).or_default() += 1;
                }
            }
        }
        if o.is_deleting_dependents() && depth < MAX_DEPTH && self.path.insert(o.uid()) {
            for d in blocking_dependents(self.graph, o) {
                let r = self.rank(d, depth + 1, counts.as_deref_mut());
                rank = rank.min(r);
            }
            self.path.remove(o.uid());
        }
        rank
    }

    /// Counts everything `owner` waits on.
    pub fn count(&mut self, owner: &'g Object) -> BlockerCounts {
        let mut c = BlockerCounts::default();
        self.path.insert(owner.uid());
        for d in blocking_dependents(self.graph, owner) {
            self.rank(d, 1, Some(&mut c));
        }
        self.path.remove(owner.uid());
        c
    }

    /// The blocking dependents of `owner` to list, most telling first (at
    /// most `limit`), and how many are left out; counts the whole tree into
    /// `counts` on the way when given (one walk for both).
    pub fn pick(
        &mut self,
        owner: &'g Object,
        depth: usize,
        limit: usize,
        mut counts: Option<&mut BlockerCounts>,
    ) -> (Vec<&'g Object>, usize) {
        self.path.insert(owner.uid());
        let mut ranked: Vec<(Rank, &'g Object)> = blocking_dependents(self.graph, owner)
            .map(|d| (Rank::Pending, d))
            .collect();
        for entry in &mut ranked {
            entry.0 = self.rank(entry.1, depth + 1, counts.as_deref_mut());
        }
        self.path.remove(owner.uid());
        fn key<'a>(e: &(Rank, &'a Object)) -> (Rank, &'a str, &'a str) {
            (e.0, e.1.kind.as_str(), e.1.name())
        }
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit, |a, b| key(a).cmp(&key(b)));
        }
        let more = ranked.len().saturating_sub(limit);
        ranked.truncate(limit);
        ranked.sort_by(|a, b| key(a).cmp(&key(b)));
        (ranked.into_iter().map(|(_, o)| o).collect(), more)
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    use super::*;
    use crate::model::KindTable;

    fn obj(kind: &str, name: &str, owner: Option<&Object>) -> Object {
        let mut o = Object::new("v1", kind, Some("ns"), name);
        o.metadata.uid = format!("uid-{name}");
        if let Some(w) = owner {
            o.metadata
                .owner_references
                .push(w.reference(Some(true), Some(true)));
        }
        o
    }

    fn deleting_fg(mut o: Object) -> Object {
        o.metadata.deletion_timestamp = Some(Timestamp::UNIX_EPOCH);
        o.metadata.finalizers.push(FOREGROUND.into());
        o
    }

    /// A root waiting on 50 owners of 10 pods each; one pod deep in the
    /// last owner holds a finalizer whose controller is offline. It is
    /// listed first although its owner sorts last by name; everything is
    /// counted; no more than the limits are listed.
    #[test]
    fn the_stuck_leaf_is_listed_first_and_everything_is_counted() {
        let root = deleting_fg(obj("ConfigMap", "root", None));
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(root.clone());
        for i in 0..50 {
            let mid = deleting_fg(obj("ConfigMap", &format!("mid-{i:02}"), Some(&root)));
            g.upsert(mid.clone());
            for p in 0..10 {
                let mut pod = obj("Pod", &format!("pod-{i:02}-{p}"), Some(&mid));
                if i == 49 && p == 7 {
                    pod.metadata.finalizers.push("example.com/hold".into());
                }
                g.upsert(pod);
            }
        }
        let controllers = BTreeMap::from([("example.com/hold".to_string(), false)]);
        let root = g.get("uid-root").expect("root").clone();
        let mut scan = Scan::new(&g, &controllers);
        let counts = scan.count(&root);
        assert_eq!(counts.total, 550);
        assert_eq!(counts.terminating, 50);
        assert_eq!(counts.pending, 500);
        assert_eq!(counts.by_finalizer.get("example.com/hold"), Some(&1));
        let mut same = BlockerCounts::default();
        let (shown, more) = scan.pick(&root, 0, LIST_LIMIT, Some(&mut same));
        assert_eq!(same, counts, "picking counts the same tree");
        assert_eq!(shown.len(), LIST_LIMIT);
        assert_eq!(more, 30);
        assert_eq!(shown[0].name(), "mid-49");
        let mid = g.get("uid-mid-49").expect("mid").clone();
        let (under, more) = scan.pick(&mid, 1, LIST_LIMIT, None);
        assert_eq!(under[0].name(), "pod-49-7");
        assert_eq!(more, 0);
    }

    #[test]
    fn a_cycle_of_foreground_owners_ends() {
        let mut a = deleting_fg(obj("ConfigMap", "a", None));
        let b = deleting_fg(obj("ConfigMap", "b", Some(&a)));
        a.metadata
            .owner_references
            .push(b.reference(Some(true), Some(true)));
        let mut g = OwnershipGraph::new(KindTable::builtin());
        g.upsert(a.clone());
        g.upsert(b);
        let none = BTreeMap::new();
        let mut scan = Scan::new(&g, &none);
        let c = scan.count(&a);
        assert_eq!(c.total, 2, "b, then a again through b, then stop");
    }
}
