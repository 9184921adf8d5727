//! What holds a PersistentVolume or a VolumeAttachment that does not go
//! (STUCK-CAUSES C12; FINALIZERS.md: `kubernetes.io/pv-protection`,
//! `external-attacher/<driver>`).
//!
//! - `kubernetes.io/pv-protection`: upstream's pv-protection controller
//!   (`pkg/controller/volume/pvprotection`) removes it once the volume's
//!   `status.phase` is no longer `Bound`: the claim it is bound to is what
//!   holds it, and the pods that use that claim hold the claim (C11).
//! - `external-attacher/<driver>` on a PV: the CSI external-attacher
//!   removes it once no VolumeAttachment of the volume is left; on a
//!   VolumeAttachment, once the volume is detached from its node
//!   (`kubernetes-csi/external-attacher:pkg/controller/util.go`). A detach
//!   that fails says so in `status.detachError`; a node that no longer
//!   reports never unmounts.
//!
//! The right fix is the one the sidecars wait for (detach and delete in
//! the storage backend); stripping the finalizers first leaks the disk or
//! leaves it attached.

use jiff::Timestamp;

use super::finalizers::Held;
use super::graph::OwnershipGraph;
use super::nodes::{self, NodeHealth};
use super::object::Object;

pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";
/// The prefix of a CSI attacher's finalizer (`external-attacher/<driver>`,
/// the driver's name with `.` and `/` written `-`).
pub const ATTACHER_PREFIX: &str = "external-attacher/";

/// The VolumeAttachments of the volume named `pv`.
fn attachments<'g>(graph: &'g OwnershipGraph, pv: &str) -> Vec<&'g Object> {
    let mut out: Vec<&Object> = graph
        .objects()
        .filter(|o| o.kind == "VolumeAttachment" && o.group() == "storage.k8s.io")
        .filter(|o| o.str_at(&["spec", "source", "persistentVolumeName"]) == Some(pv))
        .collect();
    out.sort_by_key(|o| o.name().to_string());
    out
}

/// A node's state as a detach sees it: `; Node/n1 does not report
/// (Ready Unknown)`.
fn node_state(graph: &OwnershipGraph, node: &str) -> String {
    match graph.find("", "Node", None, node) {
        Some(n) => match nodes::of_node(n) {
            NodeHealth::NotReady { status, .. } => {
                format!("; Node/{node} does not report (Ready {status}): nothing unmounts it there")
            }
            _ => String::new(),
        },
        None if graph.has_nodes() => format!("; Node/{node} is gone"),
        None => String::new(),
    }
}

/// One attachment: `VolumeAttachment/csi-1 on node n1 (attached),
/// detachError: "..."`.
fn attachment_state(graph: &OwnershipGraph, va: &Object) -> String {
    format!(
        "VolumeAttachment/{} {}",
        va.name(),
        attachment_detail(graph, va)
    )
}

/// Where and how one attachment stands: `on node n1 (attached),
/// detachError: "..."`.
fn attachment_detail(graph: &OwnershipGraph, va: &Object) -> String {
    let node = va.str_at(&["spec", "nodeName"]).unwrap_or("?");
    let attached = match va
        .value_at(&["status", "attached"])
        .and_then(|v| v.as_bool())
    {
        Some(true) => "attached",
        Some(false) => "not attached",
        None => "attachment not reported",
    };
    let mut s = format!(
        "on node {node} ({attached}{}{})",
        if va.is_terminating() {
            ", Terminating"
        } else {
            ""
        },
        node_state(graph, node)
    );
    for field in ["detachError", "attachError"] {
        if let Some(m) = va.str_at(&["status", field, "message"]) {
            s.push_str(&format!(", {field}: \"{m}\""));
        }
    }
    s
}

/// The driver of an attacher finalizer, as the PV or attachment names it
/// (`spec.csi.driver`, `spec.attacher`), else from the finalizer.
fn driver(obj: &Object, finalizer: &str) -> String {
    obj.str_at(&["spec", "csi", "driver"])
        .or_else(|| obj.str_at(&["spec", "attacher"]))
        .map_or_else(
            || finalizer.trim_start_matches(ATTACHER_PREFIX).to_string(),
            str::to_string,
        )
}

/// What holds each volume finalizer of a Terminating PV or
/// VolumeAttachment. `claim_users` names the pods that use a claim.
#[must_use]
pub fn held(
    graph: &OwnershipGraph,
    obj: &Object,
    now: Timestamp,
    claim_users: impl Fn(&Object, Timestamp) -> Vec<String>,
) -> Vec<Held> {
    let is_pv = obj.kind == "PersistentVolume" && obj.group().is_empty();
    let is_va = obj.kind == "VolumeAttachment" && obj.group() == "storage.k8s.io";
    if !obj.is_terminating() || !(is_pv || is_va) {
        return Vec::new();
    }
    let who = format!("{}/{}", obj.kind, obj.name());
    let mut out = Vec::new();
    for f in &obj.metadata.finalizers {
        if is_pv && f == PV_PROTECTION {
            out.push(pv_protection(graph, obj, &who, now, &claim_users));
        } else if f.starts_with(ATTACHER_PREFIX) {
            let driver = driver(obj, f);
            let (by, fix) = if is_pv {
                let vas = attachments(graph, obj.name());
                if vas.is_empty() {
                    (
                        format!(
                            "no VolumeAttachment of {who} is left: the external-attacher of {driver} removes {f} on its next pass; if it does not, the driver's controller (its attacher sidecar) is not running"
                        ),
                        format!(
                            "bring the CSI driver {driver}'s controller back; remove {f} by hand only once the disk is detached in the storage backend"
                        ),
                    )
                } else {
                    let states: Vec<String> =
                        vas.iter().map(|va| attachment_state(graph, va)).collect();
                    (
                        format!(
                            "{who} is still attached: {}; the external-attacher of {driver} removes {f} once the volume is detached",
                            states.join("; ")
                        ),
                        format!(
                            "let the attacher detach it: the pods using it gone from the node, the node reporting (or its Node object deleted); fix what the detach error says. Removing {f} by hand, or the VolumeAttachment's, leaves the disk attached to the node or leaks it"
                        ),
                    )
                }
            } else {
                let pv = obj
                    .str_at(&["spec", "source", "persistentVolumeName"])
                    .unwrap_or("?");
                (
                    format!(
                        "it attaches PersistentVolume/{pv} {}: the external-attacher of {driver} removes {f} once the volume is detached",
                        attachment_detail(graph, obj)
                    ),
                    format!(
                        "let the attacher detach it: the pods using PersistentVolume/{pv} gone from the node, the node reporting; fix what the detach error says. Removing {f} by hand leaves the disk attached to the node"
                    ),
                )
            };
            out.push(Held {
                finalizer: f.clone(),
                by,
                fix,
            });
        }
    }
    out
}

/// `kubernetes.io/pv-protection`: the claim the volume is still bound to.
fn pv_protection(
    graph: &OwnershipGraph,
    pv: &Object,
    who: &str,
    now: Timestamp,
    claim_users: &impl Fn(&Object, Timestamp) -> Vec<String>,
) -> Held {
    let f = PV_PROTECTION;
    let phase = pv.str_at(&["status", "phase"]).unwrap_or("unknown");
    let claim_ns = pv.str_at(&["spec", "claimRef", "namespace"]);
    let claim_name = pv.str_at(&["spec", "claimRef", "name"]);
    let fix_quick =
        format!("Removing {f} by hand lets the volume go while a claim is still bound to it");
    if phase != "Bound" {
        return Held {
            finalizer: f.into(),
            by: format!(
                "{who} is {phase}, no longer Bound: the pv-protection controller (kube-controller-manager) removes {f} on its next pass"
            ),
            fix: format!("nothing to do if kube-controller-manager runs. {fix_quick}"),
        };
    }
    let (Some(ns), Some(name)) = (claim_ns, claim_name) else {
        return Held {
            finalizer: f.into(),
            by: format!(
                "{who} is Bound, to no claim it names: the PV controller (kube-controller-manager) releases it on its next sync"
            ),
            fix: format!("nothing to do if kube-controller-manager runs. {fix_quick}"),
        };
    };
    let claim = graph.find("", "PersistentVolumeClaim", Some(ns), name);
    let by = match claim {
        Some(c) => {
            let users = claim_users(c, now);
            format!(
                "{who} is Bound to claim {ns}/{name}{}{}: the pv-protection controller removes {f} once the claim is gone and the volume released",
                if c.is_terminating() {
                    ", itself Terminating"
                } else {
                    ""
                },
                if users.is_empty() {
                    String::new()
                } else {
                    format!(", used by {}", users.join(", "))
                }
            )
        }
        None => format!(
            "{who} is still Bound to claim {ns}/{name}, which is not there: the PV controller (kube-controller-manager) marks the volume Released on its next sync, then the pv-protection controller removes {f}"
        ),
    };
    Held {
        finalizer: f.into(),
        by,
        fix: format!(
            "delete the claim {ns}/{name} (and first the pods that use it); the volume then goes by its reclaim policy. {fix_quick}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    fn obj(v: serde_json::Value) -> Object {
        serde_json::from_value(v).expect("object")
    }

    fn no_users(_: &Object, _: Timestamp) -> Vec<String> {
        Vec::new()
    }

    #[test]
    fn a_bound_volume_names_its_claim_and_an_attached_one_its_attachment() {
        let now: Timestamp = "2026-01-01T00:10:00Z".parse().expect("time");
        let mut g = OwnershipGraph::new(KindTable::builtin());
        let pv = obj(
            serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "pv1", "uid": "pv1", "deletionTimestamp": "2026-01-01T00:00:00Z",
                         "finalizers": [PV_PROTECTION, "external-attacher/csi-example-com"]},
            "spec": {"claimRef": {"namespace": "shop", "name": "data"}, "csi": {"driver": "csi.example.com"}},
            "status": {"phase": "Bound"}}),
        );
        g.upsert(pv.clone());
        g.upsert(obj(
            serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "shop", "uid": "c",
                         "deletionTimestamp": "2026-01-01T00:00:00Z"}}),
        ));
        g.upsert(obj(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "uid": "n1"},
            "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})));
        g.upsert(obj(serde_json::json!({"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
            "metadata": {"name": "va1", "uid": "va1"},
            "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv1"}},
            "status": {"attached": true, "detachError": {"message": "timeout"}}})));
        let users = |_: &Object, _: Timestamp| vec!["Pod/db (Running on n1)".to_string()];
        let h = held(&g, &pv, now, users);
        assert_eq!(h.len(), 2);
        assert_eq!(
            h[0].by,
            "PersistentVolume/pv1 is Bound to claim shop/data, itself Terminating, used by Pod/db (Running on n1): the pv-protection controller removes kubernetes.io/pv-protection once the claim is gone and the volume released"
        );
        assert_eq!(
            h[1].by,
            "PersistentVolume/pv1 is still attached: VolumeAttachment/va1 on node n1 (attached; Node/n1 does not report (Ready Unknown): nothing unmounts it there), detachError: \"timeout\"; the external-attacher of csi.example.com removes external-attacher/csi-example-com once the volume is detached"
        );
        // The attachment gone, the attacher has nothing left to wait on.
        g.remove("va1");
        let h = held(&g, &pv, now, no_users);
        assert!(
            h[1].by
                .starts_with("no VolumeAttachment of PersistentVolume/pv1 is left"),
            "{}",
            h[1].by
        );
        // Released: the pv-protection controller lets it go.
        let mut released = pv.clone();
        released.status = serde_json::json!({"phase": "Released"}).into();
        let h = held(&g, &released, now, no_users);
        assert!(
            h[0].by.contains("is Released, no longer Bound"),
            "{}",
            h[0].by
        );
    }
}
