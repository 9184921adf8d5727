//! Objects of a few kinds the graph keeps track of as they are stored and
//! removed (Nodes, workloads, webhook configurations, and the Events by the
//! object they are about), so that a question about them reads those
//! objects, not every object.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::{Hasher, UidSet};
use crate::model::object::{Object, Uid};

/// Objects of a few kinds, kept track of as they are stored and removed.
#[derive(Clone, Debug, Default)]
pub(super) struct Few {
    /// The Node objects stored: whether nodes are in view at all (a pod
    /// bound to a node that is not there then means the node is gone, R77;
    /// with none, nodes are simply not part of this view), and the cloud
    /// that runs them.
    pub(super) nodes: BTreeSet<Uid>,
    /// The Deployments, StatefulSets and DaemonSets stored: where a
    /// finalizer's controller is looked for (STUCK-CAUSES C1), with no scan
    /// of every object when a Terminating object is selected.
    pub(super) workloads: BTreeSet<Uid>,
    /// The admission webhook configurations stored, by uid: few, and read
    /// for every request the simulated API server admits.
    pub(super) webhook_configurations: BTreeSet<Uid>,
    /// The uid of an Event's involved object -> the Events about it (a
    /// controller's warnings on a stuck object, STUCK-CAUSES C2), the
    /// Events themselves: no uid copied per Event, none looked up again.
    /// Made at the first question about them (or before a bulk load that
    /// is to build it with the other indexes, [`OwnershipGraph::index_events`]),
    /// then kept with every change: `tree`, `plan` and `simulate` never
    /// ask, and at 300k objects (144k Events) it was 60 ms of their CPU,
    /// 35 ms of the simulator's start.
    pub(super) events: std::sync::OnceLock<HashMap<Uid, UidSet, Hasher>>,
    /// The workloads and the Nodes' clouds, as [`OwnershipGraph::controllers_seen`]
    /// gives them, kept from one look until a workload or a Node changes:
    /// the diagnosis of every Terminating object selected looks at them,
    /// and a look at tens of thousands of workloads was most of a key at
    /// 1M objects.
    pub(super) seen: std::sync::OnceLock<Arc<ControllersSeen>>,
}

/// The Deployments, StatefulSets and DaemonSets stored, and the cloud
/// providers the Nodes name: where a finalizer's controller is looked for.
#[derive(Debug, Default)]
pub struct ControllersSeen {
    pub workloads: Vec<Arc<Object>>,
    pub providers: Vec<String>,
}

impl Few {
    pub(super) fn add(&mut self, o: &Arc<Object>) {
        self.add_kinds(o);
        if let Some(events) = self.events.get_mut() {
            Self::add_event(events, o);
        }
    }

    /// Whether [`Few::add_kinds`] keeps the object.
    pub(super) fn keeps(o: &Object) -> bool {
        is_node(o) || is_workload(o) || crate::model::webhooks::is_configuration(o)
    }

    /// [`Few::add`] but for the index of Events.
    pub(super) fn add_kinds(&mut self, o: &Arc<Object>) {
        if is_node(o) || is_workload(o) {
            self.seen = std::sync::OnceLock::new();
        }
        if is_node(o) {
            self.nodes.insert(o.metadata.uid.clone());
        }
        if is_workload(o) {
            self.workloads.insert(o.metadata.uid.clone());
        }
        if crate::model::webhooks::is_configuration(o) {
            self.webhook_configurations.insert(o.metadata.uid.clone());
        }
    }

    /// An Event, indexed by the uid of the object it is about.
    pub(super) fn add_event(events: &mut HashMap<Uid, UidSet, Hasher>, o: &Arc<Object>) {
        if crate::model::events::is_event(o) {
            Self::add_known_event(events, o);
        }
    }

    /// [`Few::add_event`] of an object already known to be an Event.
    pub(super) fn add_known_event(events: &mut HashMap<Uid, UidSet, Hasher>, o: &Arc<Object>) {
        if let Some(about) = crate::model::events::event_involved_uid(o) {
            events
                .entry(about)
                .and_modify(|set| set.replace(Arc::clone(o)))
                .or_insert_with(|| UidSet::one(Arc::clone(o)));
        }
    }

    pub(super) fn remove(&mut self, o: &Object) {
        if is_node(o) || is_workload(o) {
            self.seen = std::sync::OnceLock::new();
        }
        if is_node(o) {
            self.nodes.remove(o.uid());
        }
        if is_workload(o) {
            self.workloads.remove(o.uid());
        }
        if crate::model::webhooks::is_configuration(o) {
            self.webhook_configurations.remove(o.uid());
        }
        if let Some(events) = self.events.get_mut()
            && let Some(about) = crate::model::events::involved_uid(o)
            && let Some(set) = events.get_mut(&about)
        {
            set.remove(o.uid());
            if set.is_empty() {
                events.remove(&about);
            }
        }
    }
}

/// A Node (core group), counted as it is indexed.
pub(super) fn is_node(o: &Object) -> bool {
    o.kind == "Node" && o.api_version == "v1"
}

/// A Deployment, StatefulSet or DaemonSet (`apps`).
pub(super) fn is_workload(o: &Object) -> bool {
    matches!(o.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet") && o.group() == "apps"
}
