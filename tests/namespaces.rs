//! The namespace controller (R58, R59) as a real control plane was seen to
//! run it (REAL-CLUSTER-NOTES.md, second round): it deletes every object it
//! lists, Terminating ones included, with Background; Events are content;
//! it removes only its own spec finalizer; its first pass comes
//! `namespaceDeletionGracePeriod` (5 s) after the DELETE; the conditions
//! count what really remains. Each test also checks the deletion preview
//! against what the simulator did.

mod common;

use common::*;
use ownerscope::model::{FOREGROUND, preview};

/// Namespace n: owner o waits in foreground on d, held by example.com/x;
/// an Event and an events.k8s.io Event; spec finalizers as given.
fn namespace(spec_finalizers: &str) -> String {
    format!(
        r#"
name: ns
objects:
  - apiVersion: v1
    kind: Namespace
    metadata: {{name: n}}
    spec: {{finalizers: {spec_finalizers}}}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {{name: o, namespace: n}}
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: d
      namespace: n
      finalizers: [example.com/x]
      ownerReferences: [{{apiVersion: v1, kind: ConfigMap, name: o, blockOwnerDeletion: true}}]
  - apiVersion: v1
    kind: Event
    metadata: {{name: o.1, namespace: n}}
  - apiVersion: events.k8s.io/v1
    kind: Event
    metadata: {{name: o.2, namespace: n}}
"#
    )
}

#[test]
fn an_owner_waiting_in_foreground_goes_with_its_namespace_its_held_dependent_stays() {
    let mut sim = sim(&namespace("[kubernetes]"));
    assert_pending(&sim.delete(&t("ConfigMap", "n", "o"), &foreground()), 200);
    sim.step_until(20, |s| s.terminating("ConfigMap", "n", "d"));
    assert_eq!(
        sim.finalizers("ConfigMap", "n", "o"),
        strings(&[FOREGROUND])
    );
    sim.advance(30_000);
    assert!(sim.exists("ConfigMap", "n", "o"), "o waits on d");

    let graph = sim.graph();
    let ns_uid = sim.uid_of("Namespace", "", "n");
    let plan = preview::plan(graph, &ns_uid, None, &sim.controller_map());
    let deleted_at = sim.now_ms();
    sim.delete(&t("Namespace", "", "n"), &background());
    // namespaceDeletionGracePeriod: nothing is touched for 5 s.
    sim.advance(4_900);
    assert!(sim.exists("ConfigMap", "n", "o"));
    assert!(sim.exists("Event", "n", "o.1"));
    // (The namespace controller's passes are polls: time is advanced.)
    sim.advance(1_000);
    let (o_gone, by) = sim.removed("ConfigMap", "o").expect("o gone");
    assert_eq!(
        by, "namespace-controller",
        "R17: its Background DELETE drops foregroundDeletion"
    );
    assert!(
        o_gone >= deleted_at + 5_000,
        "first pass after 5 s: {o_gone} vs {deleted_at}"
    );
    // Events are content.
    assert!(!sim.exists("Event", "n", "o.1"));
    assert!(sim.objects().all(|o| o.name() != "o.2"));
    // d stays, held; the conditions count only what remains.
    sim.advance(30_000);
    assert!(sim.terminating("ConfigMap", "n", "d"));
    assert!(sim.terminating("Namespace", "", "n"));
    let (status, message) = namespace_condition(&sim, "n", "NamespaceContentRemaining");
    assert_eq!(status, "True");
    assert_eq!(
        message,
        "Some resources are remaining: configmaps. has 1 resource instances"
    );
    let (status, message) = namespace_condition(&sim, "n", "NamespaceFinalizersRemaining");
    assert_eq!(status, "True");
    assert_eq!(
        message,
        "Some content in the namespace has finalizers remaining: example.com/x in 1 resource instances"
    );
    // The preview said the same.
    let outcome = |name: &str| {
        plan.entries
            .iter()
            .find(|e| e.object.name() == name)
            .map(|e| e.outcome.clone())
            .unwrap_or_else(|| panic!("{name} in the plan"))
    };
    assert!(
        matches!(outcome("o"), preview::Outcome::Deleted { .. }),
        "{:?}",
        outcome("o")
    );
    assert!(matches!(outcome("d"), preview::Outcome::Waiting { .. }));
    assert!(matches!(outcome("n"), preview::Outcome::Waiting { .. }));

    assert_removed(&sim.remove_finalizer(&t("ConfigMap", "n", "d"), "example.com/x"));
    sim.advance(30_000);
    assert!(!sim.exists("Namespace", "", "n"));
}

#[test]
fn another_spec_finalizer_keeps_the_namespace_holding_just_that_one() {
    let mut sim = sim(&namespace("[kubernetes, example.com/spec-hold]"));
    let live = sim.remove_finalizer(&t("ConfigMap", "n", "d"), "example.com/x");
    assert_eq!(live.code, 200);
    let graph = sim.graph();
    let ns_uid = sim.uid_of("Namespace", "", "n");
    let plan = preview::plan(graph, &ns_uid, None, &sim.controller_map());
    sim.delete(&t("Namespace", "", "n"), &background());
    sim.advance(120_000);
    assert!(
        sim.objects().all(|o| o.namespace() != Some("n")),
        "content gone"
    );
    let ns = sim.must("Namespace", "", "n");
    assert!(ns.is_terminating());
    assert_eq!(
        ns.strings_at(&["spec", "finalizers"]),
        strings(&["example.com/spec-hold"]),
        "only kubernetes removed"
    );
    let n = plan
        .entries
        .iter()
        .find(|e| e.object.name() == "n")
        .expect("namespace in the plan");
    match &n.outcome {
        preview::Outcome::Waiting { on } => assert!(
            on.iter()
                .any(|w| w.text().contains("example.com/spec-hold")),
            "{on:?}"
        ),
        other => panic!("the preview says {other:?}"),
    }
}

/// `plan` on a namespace already Terminating: it stays while its content
/// is held (it was said to be deleted in wave 1).
#[test]
fn plan_on_a_terminating_namespace_waits_for_its_content() {
    let sc = ownerscope::sim::scenario::bundled("namespace-stuck").expect("bundled");
    let mut sim = ownerscope::sim::Sim::new(&sc).expect("loads");
    sim.advance(30_000);
    let uid = sim.uid_of("Namespace", "", "legacy");
    for policy in [None, Some(ownerscope::model::Policy::Background)] {
        let plan =
            ownerscope::model::preview::plan(sim.graph(), &uid, policy, &sim.controller_map());
        assert!(
            matches!(
                plan.entries[0].outcome,
                ownerscope::model::preview::Outcome::Waiting { .. }
            ),
            "{policy:?}: {:?}",
            plan.entries[0].outcome
        );
    }
    sim.advance(600_000);
    assert!(sim.terminating("Namespace", "", "legacy"), "and so it does");
}
