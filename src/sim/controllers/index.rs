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
    /// Follows one change. Returns the controller uid the object was
    /// indexed under before, when it changed (a released or orphaned child:
    /// its old controller looks again).
    pub fn observe(&mut self, ch: &Change) -> Option<Uid> {
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let workload_kind = workload::controller_of_kind(obj.group(), &obj.kind).is_some();
        // Neither a workload, a child kind, a node nor controlled, now or
        // before (an Event, most ConfigMaps): nothing of it is indexed.
        let indexed = workload_kind
            || workload::is_child_kind(obj.group(), &obj.kind)
            || (obj.kind == "Node" && obj.group().is_empty())
            || controller_ref(obj).is_some()
            || self.controller_of.contains_key(obj.uid());
        if !indexed {
            return None;
        }
        let uid = obj.uid().to_string();
        let nk = ns_kind(obj);
        if obj.kind == "Node" && obj.group().is_empty() {
            if deleted {
                self.nodes.remove(obj.name());
            } else {
                self.nodes.insert(obj.name().to_string());
            }
        }
        if workload_kind {
            let set = self.workloads.entry(nk.clone()).or_default();
            if deleted {
                set.remove(&uid);
                self.selectors.remove(&uid);
            } else {
                set.insert(uid.clone());
                self.selectors.insert(uid.clone(), workload::selector(obj));
            }
        }
        let before = self.controller_of.remove(&uid);
        if let Some(c) = &before
            && let Some(set) = self.controlled.get_mut(c)
        {
            set.remove(&uid);
            if set.is_empty() {
                self.controlled.remove(c);
            }
        }
        if let Some(set) = self.orphans.get_mut(&nk) {
            set.remove(&uid);
        }
        let now = if deleted {
            None
        } else {
            controller_ref(obj).map(|r| r.uid.clone())
        };
        match &now {
            Some(c) => {
                self.controlled
                    .entry(c.clone())
                    .or_default()
                    .insert(uid.clone());
                self.controller_of.insert(uid.clone(), c.clone());
                if obj.kind == "ReplicaSet" && obj.group() == "apps" {
                    self.last_replicaset
                        .insert(c.clone(), Arc::clone(ch.shared()));
                }
            }
            None if !deleted && workload::is_child_kind(obj.group(), &obj.kind) => {
                self.orphans.entry(nk).or_default().insert(uid.clone());
            }
            None => {}
        }
        if deleted && workload_kind {
            self.last_replicaset.remove(&uid);
        }
        before.filter(|b| now.as_ref() != Some(b))
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
