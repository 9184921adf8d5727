//! Nodes, the kubelet and the pod GC (GC-SEMANTICS R76, R77; STUCK-CAUSES
//! C8), as the 1.20 test control plane was seen to act: a pod on a Node
//! with no kubelet stays Terminating for ever; deleting the Node has the
//! pod GC force-delete its pods ~40 s later (45-47 s seen), and what waited
//! on them follows (a claim's pvc-protection); a DELETE with grace period
//! 0 removes the pod at once. The simulator, `plan` and `why` say the same.
//!
//! Version differences: none for these rules between 1.20 and current
//! releases (the out-of-service taint, 1.26+, is named as a fix only).

mod common;

use common::*;
use ownerscope::model::diagnosis::diagnose;
use ownerscope::model::preview::{self, Outcome, Wait};
use ownerscope::sim::api::DeleteOptions;

/// A StatefulSet-like pod on `node`, using a claim, with a Node `n1`
/// whose Ready condition is `ready`, and a healthy `n2`.
fn scenario(ready: &str) -> String {
    format!(
        r#"
name: dead-node
objects:
  - apiVersion: v1
    kind: Node
    metadata: {{name: n1}}
    status:
      conditions:
        - {{type: Ready, status: "{ready}", reason: NodeStatusUnknown, message: Kubelet stopped posting node status., lastTransitionTime: "2026-01-01T00:00:00Z"}}
  - apiVersion: v1
    kind: Node
    metadata: {{name: n2}}
    status:
      conditions:
        - {{type: Ready, status: "True"}}
  - apiVersion: v1
    kind: Pod
    metadata: {{name: db-0, namespace: shop}}
    spec:
      nodeName: n1
      volumes: [{{name: data, persistentVolumeClaim: {{claimName: data-db-0}}}}]
  - apiVersion: v1
    kind: Pod
    metadata: {{name: web-0, namespace: shop}}
    spec: {{nodeName: n2}}
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {{name: data-db-0, namespace: shop, finalizers: [kubernetes.io/pvc-protection]}}
"#
    )
}

#[test]
fn a_pod_on_a_node_that_does_not_report_stays_terminating() {
    let mut sim = sim(&scenario("Unknown"));
    sim.delete(&t("Pod", "shop", "db-0"), &background());
    sim.delete(&t("Pod", "shop", "web-0"), &background());
    sim.advance(600_000);
    assert!(
        sim.terminating("Pod", "shop", "db-0"),
        "no kubelet on n1 ends it"
    );
    assert!(
        !sim.exists("Pod", "shop", "web-0"),
        "the kubelet of the Ready n2 does"
    );
    let uid = sim.uid_of("Pod", "shop", "db-0");
    let d = diagnose(sim.graph(), &uid, sim.now(), &sim.controller_map());
    assert!(
        d.causes[0].starts_with(
            "Pod/db-0 waits for the kubelet of Node/n1, which is not reporting: Ready is Unknown for "
        ),
        "{:?}",
        d.causes
    );
    assert!(
        d.causes[1].starts_with("fix, safest first: bring Node/n1 back; or, once the machine is surely gone, delete the Node object"),
        "{:?}",
        d.causes
    );
    assert!(d.causes[2].contains("a StatefulSet identity can run twice"));
    assert_eq!(d.grace_left, None, "no grace period is said to run");
}

#[test]
fn a_node_back_to_ready_ends_what_waited() {
    let mut sim = sim(&scenario("Unknown"));
    sim.delete(&t("Pod", "shop", "db-0"), &background());
    sim.advance(60_000);
    assert!(sim.terminating("Pod", "shop", "db-0"));
    let r = sim.patch(&t("Node", "", "n1"), "status Ready=True", |n| {
        n.status = serde_json::json!({"conditions": [{"type": "Ready", "status": "True"}]}).into();
    });
    assert!(r.is_success(), "{}", r.message);
    sim.advance(60_000);
    assert!(!sim.exists("Pod", "shop", "db-0"));
}

#[test]
fn deleting_the_node_has_the_pod_gc_force_delete_its_pods() {
    let mut sim = sim(&scenario("Unknown"));
    let plan = preview::plan(
        sim.graph(),
        &sim.uid_of("Node", "", "n1"),
        None,
        &sim.controller_map(),
    );
    sim.delete(&t("Pod", "shop", "db-0"), &background());
    sim.delete(
        &t("PersistentVolumeClaim", "shop", "data-db-0"),
        &background(),
    );
    sim.advance(10_000);
    assert!(sim.terminating("PersistentVolumeClaim", "shop", "data-db-0"));
    let at = sim.now_ms();
    sim.delete(&t("Node", "", "n1"), &background());
    sim.advance(39_000);
    assert!(sim.exists("Pod", "shop", "db-0"), "quarantine: 40 s");
    sim.advance(5_000);
    let (gone, by) = sim.removed("Pod", "db-0").expect("force-deleted");
    assert_eq!(by, "pod-garbage-collector");
    assert_eq!(gone - at, 40_000);
    sim.advance(10_000);
    assert!(
        !sim.exists("PersistentVolumeClaim", "shop", "data-db-0"),
        "its claim follows"
    );
    // `plan --delete node/n1` says the same of the live pod.
    let pod = plan
        .entries
        .iter()
        .find(|e| e.object.name() == "db-0")
        .expect("the pod is in the plan");
    assert!(
        matches!(pod.outcome, Outcome::Deleted { .. }),
        "{:?}",
        pod.outcome
    );
    assert!(plan.entries.iter().all(|e| e.object.name() != "web-0"));
}

/// A snapshot taken after a Node was deleted still holds its pods: the
/// pod GC's first look finds them bound to a Node that is gone, and
/// force-deletes them once the quarantine is over, as after the Node's
/// DELETE (R77). A pod of a Node that is there is not touched.
#[test]
fn a_snapshot_with_pods_of_a_gone_node_has_the_pod_gc_delete_them() {
    let text = scenario("True").replace(
        "    kind: Node\n    metadata: {name: n1}",
        "    kind: ConfigMap\n    metadata: {name: was-n1, namespace: shop}",
    );
    assert!(!text.contains("name: n1}"), "n1 is gone");
    let mut sim = sim(&text);
    sim.advance(39_000);
    assert!(sim.exists("Pod", "shop", "db-0"), "quarantine: 40 s");
    sim.advance(5_000);
    let (gone, by) = sim.removed("Pod", "db-0").expect("force-deleted");
    assert_eq!((gone, by.as_str()), (40_000, "pod-garbage-collector"));
    sim.advance(600_000);
    assert!(sim.exists("Pod", "shop", "web-0"), "n2 is there");
}

#[test]
fn plan_says_a_pod_on_a_node_that_does_not_report_waits_for_its_kubelet() {
    let sim = sim(&scenario("Unknown"));
    let plan = preview::plan(
        sim.graph(),
        &sim.uid_of("Pod", "shop", "db-0"),
        None,
        &sim.controller_map(),
    );
    match &plan.entries[0].outcome {
        Outcome::Waiting { on } => {
            assert!(matches!(on[0], Wait::Kubelet { .. }), "{on:?}");
            assert!(
                on[0]
                    .text()
                    .starts_with("the kubelet of Node/n1, which is not reporting (Ready Unknown)")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_force_delete_does_not_wait_for_the_kubelet() {
    let mut sim = sim(&scenario("Unknown"));
    let force = DeleteOptions {
        grace_period_seconds: Some(0),
        ..DeleteOptions::default()
    };
    sim.delete(&t("Pod", "shop", "db-0"), &force);
    assert!(!sim.exists("Pod", "shop", "db-0"));
}

#[test]
fn without_node_objects_a_nodes_kubelet_is_taken_to_work() {
    // A scenario that does not model nodes (a namespace snapshot): the
    // pod's node is out of view, and taken to be Ready.
    let mut sim = sim(
        "name: no-nodes\nobjects:\n  - {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {nodeName: n1}}\n",
    );
    sim.delete(&t("Pod", "a", "p"), &background());
    sim.advance(60_000);
    assert!(!sim.exists("Pod", "a", "p"));
}

#[test]
fn plan_and_the_bundled_story_of_a_dead_node() {
    // `plan --force` on the stranded pod: it goes now.
    let mut sim = sim(&scenario("Unknown"));
    sim.delete(&t("Pod", "shop", "db-0"), &background());
    sim.advance(60_000);
    let uid = sim.uid_of("Pod", "shop", "db-0");
    let graceful = preview::plan(sim.graph(), &uid, None, &sim.controller_map());
    assert!(
        matches!(graceful.entries[0].outcome, Outcome::Waiting { .. }),
        "{:?}",
        graceful.entries[0].outcome
    );
    let forced = preview::plan_with(sim.graph(), &uid, None, &sim.controller_map(), true);
    assert_eq!(forced.entries[0].outcome, Outcome::Deleted { wave: 0 });

    // The bundled scenario: the namespace waits on db-0 until the Node is
    // deleted at 90 s; then everything goes.
    let sc = ownerscope::sim::scenario::bundled("dead-node").expect("bundled");
    let mut sim = ownerscope::sim::Sim::new(&sc).expect("loads");
    sim.advance(80_000);
    assert!(sim.terminating("Pod", "data", "db-0"));
    assert!(sim.terminating("Namespace", "", "data"));
    let d = diagnose(
        sim.graph(),
        &sim.uid_of("Namespace", "", "data"),
        sim.now(),
        &sim.controller_map(),
    );
    assert!(
        d.causes[0].starts_with("Pod/db-0 waits for the kubelet of Node/node-1"),
        "the stranded pod first: {:?}",
        d.causes
    );
    sim.advance(60_000);
    assert!(!sim.exists("Namespace", "", "data"));
    assert!(!sim.exists("PersistentVolume", "", "pv-data-db-0"));
}

/// Upstream's `gcTerminated`: above `--terminated-pod-gc-threshold`, the
/// oldest terminated pods are force-deleted down to it at the pod GC's
/// next look; running pods, and terminated ones within the threshold, are
/// kept. Threshold 0 turns it off. Seen on the 1.20 test control plane
/// restarted with `--terminated-pod-gc-threshold=3`: with five Failed pods
/// of one namespace and one of another, "garbage collecting 3 pods" and
/// "PodGC is force deleting Pod" for the three oldest across the cluster,
/// the others kept. (Not in the rehearsal suite: the shared cluster keeps
/// the default threshold, 12,500.)
#[test]
fn the_pod_gc_deletes_the_oldest_terminated_pods_above_its_threshold() {
    let pod = |name: &str, created: &str, phase: &str| {
        format!(
            "  - {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: ns, creationTimestamp: '{created}'}}, status: {{phase: {phase}}}}}\n"
        )
    };
    let mut yaml =
        String::from("name: terminated\nsettings: {terminatedPodGcThreshold: 2}\nobjects:\n");
    for (name, created, phase) in [
        ("old-done", "2025-12-31T20:00:00Z", "Succeeded"),
        ("old-failed", "2025-12-31T21:00:00Z", "Failed"),
        ("running", "2025-12-31T19:00:00Z", "Running"),
        ("new-done", "2025-12-31T22:00:00Z", "Succeeded"),
        ("newest-done", "2025-12-31T23:00:00Z", "Succeeded"),
    ] {
        yaml.push_str(&pod(name, created, phase));
    }
    let mut s = sim(&yaml);
    s.settle(3_600_000);
    let mut left: Vec<&str> = s
        .objects()
        .filter(|o| o.is_pod())
        .map(|o| o.name())
        .collect();
    left.sort_unstable();
    assert_eq!(left, ["new-done", "newest-done", "running"]);
    let by: Vec<(String, u64)> = s
        .timeline()
        .iter()
        .filter(|e| e.what == ownerscope::sim::What::Deleted)
        .map(|e| (e.by.clone(), e.t_ms))
        .collect();
    assert_eq!(
        by,
        [
            ("pod-garbage-collector".to_string(), 20_000),
            ("pod-garbage-collector".to_string(), 20_000)
        ]
    );

    let mut off = sim(&yaml.replace("terminatedPodGcThreshold: 2", "terminatedPodGcThreshold: 0"));
    off.settle(3_600_000);
    assert_eq!(off.objects().filter(|o| o.is_pod()).count(), 5);
    // The default threshold (12,500) keeps a handful.
    let mut default = sim(&yaml.replace("settings: {terminatedPodGcThreshold: 2}\n", ""));
    default.settle(3_600_000);
    assert_eq!(default.objects().filter(|o| o.is_pod()).count(), 5);
}

#[test]
fn a_job_pod_succeeds_only_where_a_kubelet_reports() {
    // `jobPodsSucceedAfter` is the kubelet saying so: a pod on a node whose
    // kubelet does not report runs on for all the API knows (R76).
    let on = |ready: &str| {
        let mut sim = sim(&format!(
            r#"
name: job-pods
settings: {{jobPodsSucceedAfter: 20s}}
objects:
  - apiVersion: v1
    kind: Node
    metadata: {{name: n1}}
    status: {{conditions: [{{type: Ready, status: "{ready}"}}]}}
  - apiVersion: batch/v1
    kind: Job
    metadata: {{name: j, namespace: ns}}
    spec:
      selector: {{matchLabels: {{job-name: j}}}}
      template: {{metadata: {{labels: {{job-name: j}}}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: j-1
      namespace: ns
      labels: {{job-name: j}}
      ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: j, controller: true}}]
    spec: {{nodeName: n1}}
    status: {{phase: Running}}
"#
        ));
        sim.advance(30_000);
        sim.objects()
            .find(|o| o.is_pod() && o.name() == "j-1")
            .and_then(|p| p.str_at(&["status", "phase"]).map(str::to_string))
    };
    assert_eq!(on("True").as_deref(), Some("Succeeded"));
    assert_eq!(on("Unknown").as_deref(), Some("Running"));
}
