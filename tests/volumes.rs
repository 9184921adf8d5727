//! The PV controller's reclaim policy as a real control plane was seen to
//! apply it: a Bound PersistentVolume whose claim goes turns Released; with
//! `persistentVolumeReclaimPolicy: Delete` the controller then deletes it,
//! with Retain it stays Released. The deletion preview says the same.

mod common;

use common::*;
use ownerscope::model::preview;

fn scenario(policy: &str) -> String {
    format!(
        r#"
name: reclaim
objects:
  - apiVersion: v1
    kind: PersistentVolume
    metadata: {{name: vol}}
    spec:
      persistentVolumeReclaimPolicy: {policy}
      claimRef: {{namespace: ns, name: data}}
    status: {{phase: Bound}}
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {{name: data, namespace: ns}}
    spec: {{volumeName: vol}}
    status: {{phase: Bound}}
"#
    )
}

fn plan_for_claim(sim: &ownerscope::sim::Sim) -> preview::Plan {
    let graph = sim.graph();
    let uid = sim.uid_of("PersistentVolumeClaim", "ns", "data");
    preview::plan(graph, &uid, None, &sim.controller_map())
}

#[test]
fn a_released_volume_with_policy_delete_is_deleted() {
    let mut sim = sim(&scenario("Delete"));
    let plan = plan_for_claim(&sim);
    sim.delete(&t("PersistentVolumeClaim", "ns", "data"), &background());
    sim.advance(30_000);
    assert!(!sim.exists("PersistentVolumeClaim", "ns", "data"));
    assert!(
        !sim.exists("PersistentVolume", "", "vol"),
        "reclaimed: deleted"
    );
    let (_, by) = sim.removed("PersistentVolume", "vol").expect("gone");
    assert_eq!(by, "pv-protection-controller");
    let vol = plan
        .entries
        .iter()
        .find(|e| e.object.name() == "vol")
        .expect("the volume is in the preview");
    assert!(
        matches!(vol.outcome, preview::Outcome::Deleted { .. }),
        "{:?}",
        vol.outcome
    );
}

#[test]
fn a_released_volume_with_policy_retain_stays_released() {
    let mut sim = sim(&scenario("Retain"));
    let plan = plan_for_claim(&sim);
    sim.delete(&t("PersistentVolumeClaim", "ns", "data"), &background());
    sim.advance(30_000);
    let vol = sim.must("PersistentVolume", "", "vol");
    assert!(!vol.is_terminating());
    assert_eq!(vol.str_at(&["status", "phase"]), Some("Released"));
    assert!(
        plan.entries.iter().all(|e| e.object.name() != "vol"),
        "the preview leaves it alone: {:?}",
        plan.entries
    );
}

/// STUCK-CAUSES C11: a claim kept by pvc-protection names the pods that
/// use it, and the fix is theirs; removing the protection is named for what
/// it skips.
#[test]
fn a_claim_in_use_names_the_pods_that_use_it() {
    let sc = ownerscope::sim::scenario::bundled("volume-protection").expect("bundled");
    let mut sim = ownerscope::sim::Sim::new(&sc).expect("loads");
    sim.advance(5_000);
    let uid = sim.uid_of("PersistentVolumeClaim", "data", "data-db-0");
    let d =
        ownerscope::model::diagnosis::diagnose(sim.graph(), &uid, sim.now(), &sim.controller_map());
    assert_eq!(d.claim_users, ["Pod/db-0 (Running on Node/node-1)"]);
    assert!(
        d.causes[0].starts_with("PersistentVolumeClaim/data-db-0 is still used by Pod/db-0 (Running on Node/node-1): the claim goes once no scheduled pod uses it"),
        "{:?}",
        d.causes
    );
    assert!(d.causes[0].ends_with("lets the volume go under a pod that may still mount it"));
}
