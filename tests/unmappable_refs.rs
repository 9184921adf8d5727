//! R32 as a real control plane was seen to do it: an owner reference
//! through an apiVersion the server does not serve (`apps/v1beta1`) cannot
//! be mapped; the garbage collector retries it forever, never deletes the
//! dependent and never removes the reference, even once an owner of that
//! name is gone; the same reference through `apps/v1` is collected at once.
//! The tree, `why` and the preview say so.

mod common;

use common::*;
use ownerscope::model::{RefStatus, diagnosis, preview};

const SCENARIO: &str = r#"
name: unmappable
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ns, uid: 00000000-0000-4000-8000-0000000000d1}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: legacy
      namespace: ns
      ownerReferences:
        - {apiVersion: apps/v1beta1, kind: Deployment, name: web, uid: 00000000-0000-4000-8000-0000000000d1}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: current
      namespace: ns
      ownerReferences:
        - {apiVersion: apps/v1, kind: Deployment, name: web, uid: 00000000-0000-4000-8000-0000000000d1}
"#;

#[test]
fn a_reference_through_an_unserved_version_is_never_collected() {
    let mut sim = sim(SCENARIO);
    let graph = sim.graph();
    let legacy = sim.uid_of("ConfigMap", "ns", "legacy");
    let status = &graph.owners(&legacy)[0].1;
    assert_eq!(
        *status,
        RefStatus::Unmappable {
            api_version: "apps/v1beta1".into()
        }
    );
    assert_eq!(status.label(), "unmappable");
    let d = diagnosis::diagnose(graph, &legacy, sim.now(), &sim.controller_map());
    assert!(
        d.causes[0].contains("cannot resolve apps/v1beta1")
            && d.causes[0].contains("never collected"),
        "{:?}",
        d.causes
    );
    let web = sim.uid_of("Deployment", "ns", "web");
    let plan = preview::plan(graph, &web, None, &sim.controller_map());
    let outcome = |name: &str| {
        plan.entries
            .iter()
            .find(|e| e.object.name() == name)
            .map(|e| e.outcome.clone())
    };
    assert!(
        matches!(
            outcome("legacy"),
            Some(preview::Outcome::NeverCollected { .. })
        ),
        "{:?}",
        outcome("legacy")
    );
    assert!(matches!(
        outcome("current"),
        Some(preview::Outcome::Deleted { .. })
    ));

    sim.delete(&t("Deployment", "ns", "web"), &background());
    sim.advance(600_000);
    assert!(
        !sim.exists("ConfigMap", "ns", "current"),
        "apps/v1: collected"
    );
    let kept = sim.must("ConfigMap", "ns", "legacy");
    assert!(!kept.is_terminating(), "never deleted");
    assert_eq!(
        kept.metadata.owner_references[0].api_version, "apps/v1beta1",
        "the reference is never patched away"
    );
    assert!(
        sim.pending_gc_retries()
            .iter()
            .any(|(_, w)| format!("{w:?}").contains(&legacy)),
        "the garbage collector keeps retrying: {:?}",
        sim.pending_gc_retries()
    );
}

/// An older server that still serves the version (1.20 serves
/// batch/v1beta1) maps it: discovery marks it served.
#[test]
fn a_version_discovery_says_is_served_maps() {
    let mut kinds = ownerscope::model::KindTable::builtin();
    assert!(!kinds.serves("batch/v1beta1"));
    kinds.mark_served("batch/v1beta1");
    assert!(kinds.serves("batch/v1beta1"));
    assert!(kinds.serves("apps/v1"));
    assert!(!kinds.serves("apps/v1beta2"));
}

/// R32 for custom resources, as 1.20 was seen to do it: a reference through
/// a version the CRD does not serve (`v1alpha1` when only `v1` is) is never
/// resolved; its dependent stays, even once the owner is deleted. The same
/// reference through `v1` is collected.
#[test]
fn a_custom_resource_referred_to_through_an_unserved_version_keeps_its_dependent() {
    let mut sim = sim(r#"
name: cr-unserved
objects:
  - apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: widgets.example.com}
    spec:
      group: example.com
      names: {kind: Widget, plural: widgets}
      scope: Namespaced
      versions:
        - {name: v1, served: true, storage: true}
        - {name: v1alpha1, served: false, storage: false}
  - apiVersion: example.com/v1
    kind: Widget
    metadata: {name: w, namespace: ns, uid: 00000000-0000-4000-8000-0000000000e1}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: through-alpha
      namespace: ns
      ownerReferences:
        - {apiVersion: example.com/v1alpha1, kind: Widget, name: w, uid: 00000000-0000-4000-8000-0000000000e1}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: through-v1
      namespace: ns
      ownerReferences:
        - {apiVersion: example.com/v1, kind: Widget, name: w, uid: 00000000-0000-4000-8000-0000000000e1}
"#);
    let alpha = sim.uid_of("ConfigMap", "ns", "through-alpha");
    assert_eq!(
        sim.graph().owners(&alpha)[0].1,
        RefStatus::Unmappable {
            api_version: "example.com/v1alpha1".into()
        }
    );
    let w = sim.uid_of("Widget", "ns", "w");
    let plan = preview::plan(sim.graph(), &w, None, &sim.controller_map());
    let kept = plan
        .entries
        .iter()
        .find(|e| e.object.name() == "through-alpha")
        .expect("in the plan");
    assert!(
        matches!(kept.outcome, preview::Outcome::NeverCollected { .. }),
        "{:?}",
        kept.outcome
    );
    sim.delete(&t("Widget", "ns", "w"), &background());
    sim.advance(120_000);
    assert!(!sim.exists("Widget", "ns", "w"));
    assert!(!sim.exists("ConfigMap", "ns", "through-v1"));
    assert!(
        sim.exists("ConfigMap", "ns", "through-alpha"),
        "never collected"
    );
}

/// S19 with the owner absent (a snapshot without it): a cluster-scoped
/// dependent naming a namespaced owner is never collected by the real GC,
/// nor by the simulator; `plan` and `why` agree.
#[test]
fn a_cluster_scoped_dependent_of_an_absent_namespaced_owner_stays() {
    let mut sim = sim(r#"
name: cluster-scoped-dependent
objects:
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata:
      name: dep
      ownerReferences:
        - {apiVersion: v1, kind: ConfigMap, name: owner, uid: 00000000-0000-4000-8000-0000000000aa}
"#);
    sim.advance(120_000);
    assert!(sim.exists("ClusterRole", "", "dep"), "never collected");
    let uid = sim.uid_of("ClusterRole", "", "dep");
    let d = diagnosis::diagnose(sim.graph(), &uid, sim.now(), &sim.controller_map());
    assert!(d.causes[0].contains("is never collected"), "{:?}", d.causes);
}
