//! Follows upstream `pkg/controller/daemon/daemon_controller.go`
//! (`manage`, `podsShouldBeOnNode`, `getUnscheduledPodsWithoutNode`): one
//! pod per Node object (no taints or node selectors are modelled), named
//! through `generateName` `<ds>-`, pinned to its node by a required node
//! affinity on `metadata.name` (the scheduler binds it; the simulator has
//! none, so it stays Pending). Surplus pods on a node and unscheduled pods
//! for a node that no longer exists are deleted - at the DaemonSet's next
//! sync: upstream watches node adds and updates, not deletes (observed on
//! the test control plane: the pod of a deleted node stays until one of the
//! DaemonSet's pods changes). Not while the DaemonSet is Terminating (R72).
//! Its template is kept in its ControllerRevision ([`history`]); its pods
//! carry the hash and the DaemonSet's generation as labels.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::model::workload::{Controller, is_active_pod, is_managed, node_of};
use crate::model::{Object, unkept};

use super::controller_ref_manager::claim;
use super::history;
use super::index::WorkloadIndex;
use super::replicaset::pod_from_template;
use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

/// One sync of a DaemonSet.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, ds: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, ds, c);
    let mut out = claimed.intents;
    // No Node objects at all (a snapshot of one namespace lists none):
    // nothing is known about the nodes, so nothing is created or deleted.
    if ds.is_terminating() || !is_managed(ds) || index.nodes().is_empty() {
        return out;
    }
    let mut revision = history::current(api, ds);
    out.extend(revision.create_intent(c.actor));
    let mut by_node: BTreeMap<String, Vec<&Object>> = BTreeMap::new();
    let delete = |p: &Object| {
        intent(
            c.actor,
            Op::Delete {
                key: Key::of(p),
                options: DeleteOptions::default(),
            },
        )
    };
    for p in claimed.children.iter().filter(|p| is_active_pod(p)) {
        match node_of(p) {
            Some(n) if index.nodes().contains(&n) => by_node.entry(n).or_default().push(p),
            // A pod for a node that is gone: unscheduled ones are the
            // DaemonSet's to delete (scheduled ones are PodGC's).
            _ if !p.is_scheduled() => out.push(delete(p)),
            _ => {}
        }
    }
    for node in index.nodes() {
        match by_node.get(node) {
            None => {
                let mut pod = pod_from_template(ds, None);
                pod.metadata
                    .labels
                    .insert(history::REVISION_HASH.into(), revision.hash.clone());
                pod.metadata.labels.insert(
                    history::POD_TEMPLATE_GENERATION.into(),
                    ds.metadata.generation.unwrap_or(1).to_string(),
                );
                pod.spec["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}});
                let pod = unkept::rewritten(pod, |v| {
                    if let Some(spec) = v["spec"].as_object_mut() {
                        tolerations(spec);
                    }
                });
                out.push(intent(
                    c.actor,
                    Op::Create {
                        object: Box::new(pod),
                        generate_name: Some(format!("{}-", ds.name())),
                    },
                ));
            }
            Some(pods) if pods.len() > 1 => {
                // Keeps the oldest.
                let mut pods = pods.clone();
                pods.sort_by_key(|p| (p.metadata.creation_timestamp, p.name().to_string()));
                out.extend(pods.iter().skip(1).map(|p| delete(p)));
            }
            Some(_) => {}
        }
    }
    out
}

/// What the DaemonSet controller adds to its pods' spec before it
/// creates them (`AddOrUpdateDaemonPodTolerations`, 1.20's
/// `daemonset_util.go`): tolerations, without end, of the node problems
/// it must run through, each added unless the same is there; so
/// `DefaultTolerationSeconds` then adds none. Written with the pod, so its
/// create owns them.
pub fn tolerations(spec: &mut Map<String, Value>) {
    let host_network = spec.get("hostNetwork") == Some(&Value::Bool(true));
    let mut wanted = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if host_network {
        wanted.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    let Some(list) = tolerations.as_array_mut() else {
        return;
    };
    for (key, effect) in wanted {
        let t = json!({"key": key, "operator": "Exists", "effect": effect});
        if !list.contains(&t) {
            list.push(t);
        }
    }
}
