//! What a watch shows, as a real control plane sends it: an unscheduled
//! pod deleted is MODIFIED (deletionTimestamp, grace 0) then DELETED; a
//! scheduled one is MODIFIED (deletionTimestamp in the future, its grace)
//! and DELETED by the kubelet when the grace period ends.

mod common;

use common::*;
use ownerscope::sim::What;

const PODS: &str = r#"
name: pods
objects:
  - apiVersion: v1
    kind: Pod
    metadata: {name: pending, namespace: ns}
  - apiVersion: v1
    kind: Pod
    metadata: {name: running, namespace: ns}
    spec: {nodeName: node-1, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
"#;

fn kinds(sim: &ownerscope::sim::Sim, name: &str) -> Vec<&'static str> {
    sim.entries("Pod", name)
        .iter()
        .filter_map(|e| match &e.what {
            What::Updated { .. } => Some("modified"),
            What::Deleted => Some("deleted"),
            _ => None,
        })
        .collect()
}

#[test]
fn pod_deletions_are_modified_then_deleted() {
    let mut sim = sim(PODS);
    let resp = sim.delete(&t("Pod", "ns", "pending"), &background());
    assert_eq!(resp.code, 200);
    assert_eq!(kinds(&sim, "pending"), vec!["modified", "deleted"]);

    sim.delete(&t("Pod", "ns", "running"), &background());
    let pod = sim.must("Pod", "ns", "running");
    assert_eq!(pod.metadata.deletion_grace_period_seconds, Some(30));
    assert_eq!(kinds(&sim, "running"), vec!["modified"]);
    sim.advance(60_000);
    assert_eq!(kinds(&sim, "running"), vec!["modified", "deleted"]);
}
