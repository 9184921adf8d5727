//! R75 (S28) as the test control plane was seen to do it: a CRD's DELETE
//! adds `customresourcecleanup.apiextensions.k8s.io` and the Terminating
//! condition whatever the policy; every instance is deleted (one with its own
//! finalizer stays Terminating, its dependents with it); the garbage
//! collector collects the instances' dependents; creating an instance is
//! refused meanwhile (1.36: 403, modelled; 1.20 answered 405
//! MethodNotAllowed with the same message); the CRD goes right after its
//! last instance. The preview says the same.

mod common;

use common::*;
use ownerscope::model::{Object, preview};

const SCENARIO: &str = r#"
name: crd
kinds:
  - {apiVersion: example.com/v1, kind: Database, plural: databases, namespaced: true}
objects:
  - apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: databases.example.com}
    spec:
      group: example.com
      names: {kind: Database, plural: databases}
      scope: Namespaced
  - apiVersion: example.com/v1
    kind: Database
    metadata: {name: r1, namespace: ns}
  - apiVersion: example.com/v1
    kind: Database
    metadata: {name: r2, namespace: ns, finalizers: [example.com/g]}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: r1-config
      namespace: ns
      ownerReferences: [{apiVersion: example.com/v1, kind: Database, name: r1}]
  - apiVersion: v1
    kind: Secret
    metadata:
      name: r2-secret
      namespace: ns
      ownerReferences: [{apiVersion: example.com/v1, kind: Database, name: r2}]
"#;

const CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

#[test]
fn deleting_a_crd_deletes_its_instances_and_waits_for_the_last() {
    let mut sim = sim(SCENARIO);
    let graph = sim.graph();
    let crd_uid = sim.uid_of("CustomResourceDefinition", "", "databases.example.com");
    let plan = preview::plan(graph, &crd_uid, None, &sim.controller_map());

    let resp = sim.delete(
        &t("CustomResourceDefinition", "", "databases.example.com"),
        &orphan(),
    );
    assert_eq!(resp.code, 200);
    let crd = sim.must("CustomResourceDefinition", "", "databases.example.com");
    assert_eq!(
        crd.metadata.finalizers,
        strings(&[CLEANUP]),
        "the policy is ignored"
    );
    let cond = crd
        .value_at(&["status", "conditions"])
        .and_then(|c| c.as_array().cloned())
        .unwrap_or_default();
    assert!(
        cond.iter()
            .any(|c| c["type"] == "Terminating" && c["status"] == "True")
    );

    let mut r3 = Object::new("example.com/v1", "Database", Some("ns"), "r3");
    r3.metadata.uid = "r3-uid".into();
    let created = sim.create(r3);
    assert_eq!(created.code, 403);
    assert_eq!(
        created.message,
        "create not allowed while custom resource definition is terminating"
    );

    sim.advance(30_000);
    assert!(!sim.exists("Database", "ns", "r1"));
    assert!(
        !sim.exists("ConfigMap", "ns", "r1-config"),
        "collected with r1"
    );
    assert!(sim.terminating("Database", "ns", "r2"));
    assert_eq!(
        sim.finalizers("Database", "ns", "r2"),
        strings(&["example.com/g"])
    );
    assert!(
        sim.exists("Secret", "ns", "r2-secret"),
        "r2 still exists: it keeps its dependent"
    );
    assert!(sim.terminating("CustomResourceDefinition", "", "databases.example.com"));

    assert_removed(&sim.remove_finalizer(&t("Database", "ns", "r2"), "example.com/g"));
    let last = sim.now_ms();
    sim.advance(10_000);
    assert!(!sim.exists("Secret", "ns", "r2-secret"));
    let (gone, by) = sim
        .removed("CustomResourceDefinition", "databases.example.com")
        .expect("gone");
    assert_eq!(by, "apiextensions-crd-finalizer");
    assert!(
        gone - last <= 2_000,
        "right after its last instance: {}ms",
        gone - last
    );

    // The preview, made before the DELETE.
    let outcome = |name: &str| {
        plan.entries
            .iter()
            .find(|e| e.object.name() == name)
            .map(|e| e.outcome.clone())
    };
    assert!(matches!(
        outcome("r1"),
        Some(preview::Outcome::Deleted { .. })
    ));
    assert!(matches!(
        outcome("r1-config"),
        Some(preview::Outcome::Deleted { .. })
    ));
    assert!(matches!(
        outcome("r2"),
        Some(preview::Outcome::Waiting { .. })
    ));
    match outcome("databases.example.com") {
        Some(preview::Outcome::Waiting { on }) => {
            assert!(on.iter().any(|w| w.text().contains(CLEANUP)), "{on:?}");
        }
        other => panic!("the CRD waits on its cleanup: {other:?}"),
    }
}
