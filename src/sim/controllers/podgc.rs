//! Follows upstream `pkg/controller/podgc/gc_controller.go`, `gcOrphaned`
//! (GC-SEMANTICS R77, STUCK-CAUSES C8): every pod bound to a Node object
//! that no longer exists is force-deleted (grace period 0) once the node
//! has been gone for the quarantine (40 s upstream). Deleting the Node is
//! the documented fix for pods stuck on a machine that is gone; what waited
//! on those pods (a claim's pvc-protection, a foreground owner, a
//! namespace) follows. Finalizers still hold a force-deleted pod.
//!
//! Not modelled: `gcTerminated` (terminated pods above
//! `--terminated-pod-gc-threshold`, 12,500 by default) and
//! `gcUnscheduledTerminating`.

use super::{Intent, Op, intent};
use crate::model::nodes::{self, NodeHealth};
use crate::sim::api::{ApiServer, DeleteOptions, Key, Preconditions};

pub const ACTOR: &str = "pod-garbage-collector";

/// The pods bound to `node`, force-deleted, when the Node object is gone.
/// Called only for a node seen to go (its DELETE, or a pod bound to it
/// while other nodes are in view): when the deleted Node was the last one
/// in view, its pods still go (seen on 1.20, a namespace's snapshot
/// carrying the one Node its pod uses).
#[must_use]
pub fn sync(api: &ApiServer, node: &str) -> Vec<Intent> {
    let graph = api.graph();
    if graph.find("", "Node", None, node).is_some() {
        return Vec::new();
    }
    graph
        .objects()
        .filter(|o| o.is_pod() && o.str_at(&["spec", "nodeName"]) == Some(node))
        .filter(|o| {
            matches!(
                nodes::of_pod(graph, o),
                NodeHealth::Gone { .. } | NodeHealth::Unseen { .. }
            )
        })
        .filter(|o| !(o.is_terminating() && o.metadata.deletion_grace_period_seconds == Some(0)))
        .map(|pod| {
            intent(
                ACTOR,
                Op::Delete {
                    key: Key::of(pod),
                    options: DeleteOptions {
                        grace_period_seconds: Some(0),
                        preconditions: Preconditions {
                            uid: Some(pod.uid().to_string()),
                            resource_version: None,
                        },
                        ..DeleteOptions::default()
                    },
                },
            )
        })
        .collect()
}
