//! What the workload controllers' informers give them, kept from the
//! store's changes so that no sync scans the store: each controller's
//! children by controller uid (upstream: the owner-reference lookups of
//! `controller_ref_manager.go`), the orphans a controller may adopt by
//! namespace and kind, the workloads per namespace and kind (upstream's
//! listers), the nodes, and the last ReplicaSet each Deployment controlled
//! (so that a deleted one is re-created with its name).
//!
//! Every update costs O(log n); a sync costs what its owner's children and
//! its namespace's orphans and workloads of one kind cost.

use std::collections::BTreeSet;
use std::sync::Arc;

/// Hashed with foldhash, as the ownership graph's indexes: the index is
/// told of every change the simulator makes.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

use crate::model::selector::Selector;
use crate::model::workload::{self, controller_ref};
use crate::model::{Object, Uid};

use super::super::api::Change;

/// (namespace, group, kind)
type NsKind = (String, String, String);

#[derive(Clone, Debug, Default)]
pub struct WorkloadIndex {
    /// controller uid -> uids of the objects whose controller ref names it
    controlled: HashMap<Uid, BTreeSet<Uid>>,
    /// object uid -> the controller uid it is indexed under
    controller_of: HashMap<Uid, Uid>,
    /// objects of a child kind with no controller ref
    orphans: HashMap<NsKind, BTreeSet<Uid>>,
    /// workloads (objects of a controller kind)
    workloads: HashMap<NsKind, BTreeSet<Uid>>,
    nodes: BTreeSet<String>,
    /// Deployment uid -> the last ReplicaSet it controlled (the stored
    /// object, shared: not a copy of each ReplicaSet seen)
    last_replicaset: HashMap<Uid, Arc<Object>>,
    /// workload uid -> its selector, parsed once per change (an orphan's
    /// event tests every workload of its namespace)
    selectors: HashMap<Uid, Selector>,
}

fn ns_kind(o: &Object) -> NsKind {
    (
        o.namespace().unwrap_or_default().to_string(),
        o.group().to_string(),
        o.kind.clone(),
    )
}

impl WorkloadIndex {
    /// Room made at once for what an initial list of `objects` is about
    /// to add: every object with a controller, every workload's selector
    /// and (mostly workloads) every controller's set. Grown a doubling at
    /// a time, those maps were a quarter of the index's first look at
    /// 300k objects.
    pub fn reserve_for<'o>(&mut self, objects: impl Iterator<Item = &'o Object>) {
        let (mut controlled, mut workloads) = (0, 0);
        for o in objects {
            controlled += usize::from(controller_ref(o).is_some());
            workloads += usize::from(workload::controller_of_kind(o.group(), &o.kind).is_some());
        }
        self.controller_of.reserve(controlled);
        self.selectors.reserve(workloads);
        self.controlled.reserve(workloads);
    }

    /// Follows one change. Returns the controller uid the object was
    /// indexed under before, when it changed (a released or orphaned child:
    /// its old controller looks again).
    pub fn observe(&mut self, ch: &Change) -> Option<Uid> {
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let workload_kind = workload::controller_of_kind(obj.group(), &obj.kind).is_some();
        let child_kind = workload::is_child_kind(obj.group(), &obj.kind);
        let node = obj.kind == "Node" && obj.group().is_empty();
        // Neither a workload, a child kind, a node nor controlled, now or
        // before (an Event, most ConfigMaps): nothing of it is indexed.
        let indexed = workload_kind
            || child_kind
            || node
            || controller_ref(obj).is_some()
            || self.controller_of.contains_key(obj.uid());
        if !indexed {
            return None;
        }
        let uid = obj.uid();
        if node {
            if deleted {
                self.nodes.remove(obj.name());
            } else {
                self.nodes.insert(obj.name().to_string());
            }
        }
        if workload_kind {
            let set = self.workloads.entry(ns_kind(obj)).or_default();
            if deleted {
                set.remove(uid);
                self.selectors.remove(uid);
            } else {
                set.insert(uid.to_string());
                self.selectors
                    .insert(uid.to_string(), workload::selector(obj));
            }
        }
        let before = self.controller_of.remove(uid);
        if let Some(c) = &before
            && let Some(set) = self.controlled.get_mut(c)
        {
            set.remove(uid);
            if set.is_empty() {
                self.controlled.remove(c);
            }
        }
        // An object is among its kind's orphans only while it has no
        // controller, and an added one is new (a uid is never used
        // again): only then is its namespace and kind looked up (three
        // strings copied for the key, per pod of a load).
        let was_orphan = before.is_none() && child_kind && !matches!(ch, Change::Added(_));
        if was_orphan && let Some(set) = self.orphans.get_mut(&ns_kind(obj)) {
            set.remove(uid);
        }
        let now = if deleted { None } else { controller_ref(obj) };
        match now {
            Some(c) => {
                match self.controlled.get_mut(c.uid.as_str()) {
                    Some(set) => {
                        set.insert(uid.to_string());
                    }
                    None => {
                        let set = BTreeSet::from([uid.to_string()]);
                        self.controlled.insert(c.uid.clone(), set);
                    }
                }
                self.controller_of.insert(uid.to_string(), c.uid.clone());
                if obj.kind == "ReplicaSet" && obj.group() == "apps" {
                    self.last_replicaset
                        .insert(c.uid.clone(), Arc::clone(ch.shared()));
                }
            }
            None if !deleted && child_kind => {
                self.orphans
                    .entry(ns_kind(obj))
                    .or_default()
                    .insert(uid.to_string());
            }
            None => {}
        }
        if deleted && workload_kind {
            self.last_replicaset.remove(uid);
        }
        before.filter(|b| now.is_none_or(|c| &c.uid != b))
    }

    /// The objects controlled by `owner`.
    pub fn controlled(&self, owner: &str) -> impl Iterator<Item = &Uid> {
        self.controlled.get(owner).into_iter().flatten()
    }

    /// Objects of a kind in a namespace that have no controller.
    pub fn orphans(&self, ns: &str, group: &str, kind: &str) -> impl Iterator<Item = &Uid> {
        self.orphans
            .get(&(ns.to_string(), group.to_string(), kind.to_string()))
            .into_iter()
            .flatten()
    }

    /// A workload's selector (selects nothing for an unknown uid).
    #[must_use]
    pub fn selector(&self, workload: &str) -> &Selector {
        const NOTHING: &Selector = &Selector::Nothing;
        self.selectors.get(workload).unwrap_or(NOTHING)
    }

    /// Workloads of a kind in a namespace.
    pub fn workloads(&self, ns: &str, group: &str, kind: &str) -> impl Iterator<Item = &Uid> {
        self.workloads
            .get(&(ns.to_string(), group.to_string(), kind.to_string()))
            .into_iter()
            .flatten()
    }

    /// Every DaemonSet, any namespace (a node came or went).
    #[must_use]
    pub fn daemonsets(&self) -> Vec<Uid> {
        let mut out: Vec<Uid> = self
            .workloads
            .iter()
            .filter(|((_, g, k), _)| g == "apps" && k == "DaemonSet")
            .flat_map(|(_, s)| s.iter().cloned())
            .collect();
        out.sort();
        out
    }

    #[must_use]
    pub fn nodes(&self) -> &BTreeSet<String> {
        &self.nodes
    }

    /// The last ReplicaSet the Deployment controlled.
    #[must_use]
    pub fn last_replicaset(&self, deployment: &str) -> Option<&Object> {
        self.last_replicaset.get(deployment).map(|o| &**o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(uid: &str, controller: Option<&str>) -> Arc<Object> {
        let mut o = Object::new("v1", "Pod", Some("shop"), &format!("pod-{uid}"));
        o.metadata.uid = uid.into();
        if let Some(c) = controller {
            let mut rs = Object::new("apps/v1", "ReplicaSet", Some("shop"), &format!("rs-{c}"));
            rs.metadata.uid = c.into();
            o.metadata
                .owner_references
                .push(rs.reference(Some(true), Some(true)));
        }
        Arc::new(o)
    }

    fn orphans(ix: &WorkloadIndex) -> Vec<&str> {
        ix.orphans("shop", "", "Pod").map(String::as_str).collect()
    }

    fn controlled<'i>(ix: &'i WorkloadIndex, owner: &str) -> Vec<&'i str> {
        ix.controlled(owner).map(String::as_str).collect()
    }

    /// A pod is among its namespace's orphans exactly while it has no
    /// controller, through release, adoption and deletion; the controller
    /// it left is answered when it changes.
    #[test]
    fn a_pod_is_an_orphan_exactly_while_it_has_no_controller() {
        let mut ix = WorkloadIndex::default();
        let (owned, loose) = (pod("p1", Some("rs1")), pod("p2", None));
        assert_eq!(ix.observe(&Change::Added(Arc::clone(&owned))), None);
        assert_eq!(ix.observe(&Change::Added(Arc::clone(&loose))), None);
        assert_eq!(orphans(&ix), ["p2"]);
        assert_eq!(controlled(&ix, "rs1"), ["p1"]);

        // Released: an orphan, and its controller looks again.
        let released = pod("p1", None);
        let change = Change::Modified {
            old: owned,
            new: Arc::clone(&released),
        };
        assert_eq!(ix.observe(&change), Some("rs1".to_string()));
        assert_eq!(orphans(&ix), ["p1", "p2"]);
        assert!(controlled(&ix, "rs1").is_empty());

        // Adopted: no longer an orphan.
        let adopted = pod("p1", Some("rs2"));
        let change = Change::Modified {
            old: released,
            new: Arc::clone(&adopted),
        };
        assert_eq!(ix.observe(&change), None);
        assert_eq!(orphans(&ix), ["p2"]);
        assert_eq!(controlled(&ix, "rs2"), ["p1"]);

        // Deleted, owned or not: nowhere.
        ix.observe(&Change::Deleted(adopted));
        ix.observe(&Change::Deleted(loose));
        assert!(orphans(&ix).is_empty());
        assert!(controlled(&ix, "rs2").is_empty());
    }
}
