//! Follows upstream `pkg/controller/podgc/gc_controller.go`, `gcOrphaned`
//! (GC-SEMANTICS R77, STUCK-CAUSES C8): every pod bound to a Node object
//! that no longer exists is force-deleted (grace period 0) once the node
//! has been gone for the quarantine (40 s upstream). Deleting the Node is
//! the documented fix for pods stuck on a machine that is gone; what waited
//! on those pods (a claim's pvc-protection, a foreground owner, a
//! namespace) follows. Finalizers still hold a force-deleted pod.
//!
//! `gcTerminated` too: once more pods have terminated (Succeeded, Failed)
//! than `--terminated-pod-gc-threshold` (12,500 by default; the scenario
//! setting `terminatedPodGcThreshold`), the oldest are force-deleted down
//! to it, at the controller's next look (every 20 s).
//!
//! Not modelled: `gcUnscheduledTerminating`.

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
        .filter(|o| !force_deleted(o))
        .map(force_delete)
        .collect()
}

fn force_deleted(pod: &crate::model::Object) -> bool {
    pod.is_terminating() && pod.metadata.deletion_grace_period_seconds == Some(0)
}

/// `deletePod`: a DELETE with grace period 0, for this pod only (its uid).
fn force_delete(pod: &crate::model::Object) -> Intent {
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
}

/// Upstream's default `--terminated-pod-gc-threshold`.
pub const TERMINATED_THRESHOLD: u64 = 12_500;

/// How often upstream's pod GC looks (`gcCheckPeriod`).
pub const CHECK_PERIOD_MS: u64 = 20_000;

/// Whether a pod has terminated for the pod GC (`isPodTerminated`): any
/// phase but Pending, Running and Unknown.
#[must_use]
pub fn is_terminated(pod: &crate::model::Object) -> bool {
    pod.is_pod()
        && !matches!(
            pod.peek_at(&["status", "phase"])
                .as_ref()
                .and_then(serde_json::Value::as_str),
            None | Some("Pending" | "Running" | "Unknown")
        )
}

/// `gcTerminated`: when more pods have terminated than `threshold` (0:
/// never), the oldest by creation (then by name, as upstream's
/// `byCreationTimestamp` sorts; then by namespace, where upstream's
/// unstable sort picks either) are force-deleted down to it.
/// Finalizers still hold them (the Job controller's tracking finalizer
/// goes once a pod is Terminating).
#[must_use]
pub fn terminated(api: &ApiServer, threshold: u64) -> Vec<Intent> {
    if threshold == 0 {
        return Vec::new();
    }
    let mut pods: Vec<&crate::model::Object> =
        api.graph().objects().filter(|o| is_terminated(o)).collect();
    let over = pods
        .len()
        .saturating_sub(usize::try_from(threshold).unwrap_or(usize::MAX));
    if over == 0 {
        return Vec::new();
    }
    pods.sort_by(|a, b| {
        (a.metadata.creation_timestamp, a.name(), a.namespace()).cmp(&(
            b.metadata.creation_timestamp,
            b.name(),
            b.namespace(),
        ))
    });
    pods.into_iter()
        .take(over)
        .filter(|p| !force_deleted(p))
        .map(force_delete)
        .collect()
}
