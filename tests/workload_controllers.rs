//! The workload controllers at the level of ownership (GC-SEMANTICS R70,
//! R72, R73; S3 with a Deployment, S26), as the real control plane showed
//! them (REAL-CLUSTER-NOTES "More observations"): what they create, adopt,
//! release and delete, with which owner references, names and actors,
//! as sequences of states.

mod common;

use common::*;
use ownerscope::model::{Object, OwnerReference};
use ownerscope::sim::{Sim, What};

/// Deployment web -> ReplicaSet web-h -> scheduled pods p1, p2, all with
/// templates (so the controllers manage them).
const DEPLOYMENT: &str = r#"
name: deployment-with-templates
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ns, labels: {app: web}}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template: {metadata: {labels: {app: web}}}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata:
      name: web-h
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences:
        - {apiVersion: apps/v1, kind: Deployment, name: web, controller: true, blockOwnerDeletion: true}
    spec:
      replicas: 2
      selector: {matchLabels: {app: web, pod-template-hash: h}}
      template: {metadata: {labels: {app: web, pod-template-hash: h}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: p1
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences:
        - {apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}
    spec: {nodeName: node-1, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: p2
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences:
        - {apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}
    spec: {nodeName: node-2, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
"#;

fn pods(sim: &Sim) -> Vec<Object> {
    sim.objects().filter(|o| o.is_pod()).cloned().collect()
}

fn controller(o: &Object) -> &OwnerReference {
    o.metadata
        .owner_references
        .iter()
        .find(|r| r.is_controller())
        .unwrap_or_else(|| panic!("{} has no controller", o.name()))
}

/// (time, actor) of the creation of `kind/name`, the last one.
fn created(sim: &Sim, kind: &str, name: &str) -> Vec<(u64, String)> {
    sim.timeline()
        .iter()
        .filter(|e| e.object.kind == kind && e.object.name == name && e.what == What::Created)
        .map(|e| (e.t_ms, e.by.clone()))
        .collect()
}

fn assert_generated(name: &str, prefix: &str) {
    let suffix = name
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{name} should start with {prefix}"));
    assert_eq!(suffix.len(), 5, "{name}");
    assert!(
        suffix
            .bytes()
            .all(|c| b"bcdfghjklmnpqrstvwxz2456789".contains(&c)),
        "{name}"
    );
}

#[test]
fn a_loaded_graph_that_is_already_right_is_left_alone() {
    let mut sim = sim(DEPLOYMENT);
    sim.settle(600_000);
    assert!(
        sim.timeline().is_empty(),
        "nothing to do: {:?}",
        sim.timeline()
    );
}

#[test]
fn replicaset_deleted_in_background_is_recreated_by_its_deployment() {
    let mut sim = sim(DEPLOYMENT);
    let old = sim.uid_of("ReplicaSet", "ns", "web-h");
    let d = sim.uid_of("Deployment", "ns", "web");
    assert_removed(&sim.delete(&t("ReplicaSet", "ns", "web-h"), &background()));
    sim.settle(600_000);
    // Same name, new uid, by the Deployment controller, with a controller
    // reference to the Deployment (R70).
    let rs = sim.must("ReplicaSet", "ns", "web-h");
    assert_ne!(rs.uid(), old);
    let c = controller(&rs);
    assert_eq!(c.uid, d);
    assert!(c.blocks());
    assert_eq!(
        rs.metadata.labels.get("pod-template-hash"),
        Some(&"h".into())
    );
    let made = created(&sim, "ReplicaSet", "web-h");
    assert_eq!(made.len(), 1, "{made:?}");
    assert_eq!(made[0].1, "deployment-controller");
    // The old pods name the old uid: dangling (R32), collected; the new
    // ReplicaSet creates two pods of its own.
    assert!(!sim.exists("Pod", "ns", "p1") && !sim.exists("Pod", "ns", "p2"));
    let now = pods(&sim);
    assert_eq!(now.len(), 2, "{now:?}");
    for p in &now {
        assert_generated(p.name(), "web-h-");
        let c = controller(p);
        assert_eq!(c.uid, rs.uid());
        assert!(c.blocks());
        assert_eq!(p.metadata.labels.get("app"), Some(&"web".into()));
        assert_eq!(created(&sim, "Pod", p.name())[0].1, "replicaset-controller");
        // No scheduler in the simulator, as on the test control plane.
        assert_eq!(p.str_at(&["status", "phase"]), Some("Pending"));
    }
    // The re-creation comes right after the removal, before the old pods go.
    let rs_back = made[0].0;
    assert!(rs_back <= sim.removed_at("Pod", "p1"));
}

#[test]
fn s03_orphaned_replicaset_recreated_adopts_the_same_pods() {
    let mut sim = sim(DEPLOYMENT);
    let old = sim.uid_of("ReplicaSet", "ns", "web-h");
    let p_uids = [sim.uid_of("Pod", "ns", "p1"), sim.uid_of("Pod", "ns", "p2")];
    assert_eq!(
        sim.delete(&t("ReplicaSet", "ns", "web-h"), &orphan()).code,
        200
    );
    sim.settle(600_000);
    let rs = sim.must("ReplicaSet", "ns", "web-h");
    assert_ne!(rs.uid(), old);
    for (p, uid) in ["p1", "p2"].iter().zip(&p_uids) {
        let pod = sim.must("Pod", "ns", p);
        assert_eq!(pod.uid(), uid, "{p}: the same pod");
        assert!(!pod.is_terminating());
        assert_eq!(pod.metadata.owner_references.len(), 1);
        let c = controller(&pod);
        assert_eq!(c.uid, rs.uid(), "{p}: owned by the new uid");
        assert!(c.blocks());
        let ups = sim.updates("Pod", p);
        assert_eq!(ups.len(), 2, "{ups:?}");
        assert_eq!(ups[0].1, "garbage-collector", "orphaned first");
        assert_eq!(ups[1].1, "replicaset-controller", "then adopted");
    }
    assert_eq!(pods(&sim).len(), 2, "no pod created");
}

#[test]
fn one_pod_deleted_is_replaced_and_the_replacement_is_on_the_timeline() {
    let mut sim = sim(DEPLOYMENT);
    let rs = sim.uid_of("ReplicaSet", "ns", "web-h");
    assert_eq!(sim.delete(&t("Pod", "ns", "p1"), &background()).code, 200);
    // Terminating pods do not count: the replacement comes while p1 is in
    // its grace period.
    sim.step_until(10, |s| pods(s).len() == 3);
    assert!(sim.terminating("Pod", "ns", "p1"));
    sim.settle(600_000);
    assert!(!sim.exists("Pod", "ns", "p1"));
    let now = pods(&sim);
    assert_eq!(now.len(), 2);
    let new = now.iter().find(|p| p.name() != "p2").expect("replacement");
    assert_generated(new.name(), "web-h-");
    assert_eq!(controller(new).uid, rs);
    let made = created(&sim, "Pod", new.name());
    assert_eq!(made[0].1, "replicaset-controller");
    assert!(made[0].0 < sim.removed_at("Pod", "p1"));
}

#[test]
fn foreground_delete_of_the_replicaset_creates_nothing_until_it_is_gone() {
    let mut sim = sim(DEPLOYMENT);
    let old = sim.uid_of("ReplicaSet", "ns", "web-h");
    assert_eq!(
        sim.delete(&t("ReplicaSet", "ns", "web-h"), &foreground())
            .code,
        200
    );
    sim.step_until(40, |s| {
        !s.exists("Pod", "ns", "p1") && !s.exists("Pod", "ns", "p2")
    });
    // R72: a Terminating ReplicaSet does not replace its pods.
    assert!(sim.terminating("ReplicaSet", "ns", "web-h"));
    assert!(pods(&sim).is_empty());
    sim.settle(600_000);
    let rs = sim.must("ReplicaSet", "ns", "web-h");
    assert_ne!(rs.uid(), old);
    assert_eq!(pods(&sim).len(), 2);
}

#[test]
fn deleting_the_deployment_recreates_nothing_in_any_policy() {
    for (opts, rs_left) in [
        (background(), false),
        (foreground(), false),
        (orphan(), true),
    ] {
        let mut sim = sim(DEPLOYMENT);
        sim.delete(&t("Deployment", "ns", "web"), &opts);
        sim.settle(600_000);
        assert!(!sim.exists("Deployment", "ns", "web"));
        assert_eq!(sim.exists("ReplicaSet", "ns", "web-h"), rs_left, "{opts:?}");
        let creations = sim
            .timeline()
            .iter()
            .filter(|e| e.what == What::Created)
            .count();
        assert_eq!(creations, 0, "{opts:?}: {:?}", sim.timeline());
        let n = if rs_left { 2 } else { 0 };
        assert_eq!(pods(&sim).len(), n, "{opts:?}");
    }
}

#[test]
fn orphans_adopted_by_a_smaller_replicaset_then_the_surplus_deleted() {
    let mut sim = sim(r#"
name: adopt-surplus
objects:
  - {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: ns, labels: {app: x}, creationTimestamp: "2025-12-01T00:00:00Z"}, spec: {nodeName: n1}, status: {phase: Running}}
  - {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: ns, labels: {app: x}, creationTimestamp: "2025-12-02T00:00:00Z"}, spec: {nodeName: n1}, status: {phase: Running}}
  - {apiVersion: v1, kind: Pod, metadata: {name: c, namespace: ns, labels: {app: x}, creationTimestamp: "2025-12-03T00:00:00Z"}, spec: {nodeName: n1}, status: {phase: Running}}
  - {apiVersion: v1, kind: Pod, metadata: {name: other, namespace: ns, labels: {app: y}}}
"#);
    let mut rs = Object::new("apps/v1", "ReplicaSet", Some("ns"), "x");
    rs.spec = serde_json::json!({
        "replicas": 1,
        "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]},
        "template": {"metadata": {"labels": {"app": "x"}}},
    })
    .into();
    assert_eq!(sim.create(rs).code, 201);
    let rs_uid = sim.uid_of("ReplicaSet", "ns", "x");
    sim.settle(600_000);
    // All three adopted (matchExpressions), `other` not.
    for p in ["a", "b", "c"] {
        let ups = sim.updates("Pod", p);
        assert_eq!(ups[0].1, "replicaset-controller", "{p}: {ups:?}");
        assert_eq!(ups[0].2.owner_references_added[0].uid, rs_uid);
    }
    assert!(sim.updates("Pod", "other").is_empty());
    // Then the surplus deleted, newest first: c and b go, a stays.
    assert!(sim.exists("Pod", "ns", "a"));
    assert_eq!(controller(&sim.must("Pod", "ns", "a")).uid, rs_uid);
    for p in ["b", "c"] {
        let ups = sim.updates("Pod", p);
        assert_eq!(ups[1].1, "replicaset-controller", "{p}: {ups:?}");
        assert!(ups[1].2.deletion_timestamp.is_some(), "{p}");
        assert!(ups[0].0 <= ups[1].0, "adopted, then deleted");
    }
    assert_eq!(
        sim.objects()
            .filter(|o| o.is_pod() && o.metadata.labels.get("app") == Some(&"x".into()))
            .filter(|o| !o.is_terminating())
            .count(),
        1
    );
}

#[test]
fn a_child_that_stops_matching_is_released() {
    let mut sim = sim(DEPLOYMENT);
    let resp = sim.patch(&t("Pod", "ns", "p1"), "relabel", |o| {
        o.metadata.labels.insert("app".into(), "debug".into());
    });
    assert_eq!(resp.code, 200);
    sim.settle(600_000);
    let p1 = sim.must("Pod", "ns", "p1");
    assert!(p1.metadata.owner_references.is_empty(), "released");
    assert_eq!(
        sim.updates("Pod", "p1").last().expect("released").1,
        "replicaset-controller"
    );
    // And replaced: the ReplicaSet counts one pod fewer.
    assert_eq!(pods(&sim).len(), 3);
}

#[test]
fn names_come_from_the_seed() {
    let names = |seed: u64| {
        let s = ownerscope::sim::scenario::parse("t.yaml", DEPLOYMENT).expect("parses");
        let mut sim = Sim::with_seed(&s, seed).expect("loads");
        sim.delete(&t("ReplicaSet", "ns", "web-h"), &background());
        sim.settle(600_000);
        let mut n: Vec<String> = pods(&sim).iter().map(|p| p.name().to_string()).collect();
        n.sort();
        n
    };
    assert_eq!(names(7), names(7));
    assert_ne!(names(7), names(8));
}

const STATEFULSET: &str = r#"
name: statefulset
objects:
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db, namespace: ns}
    spec:
      replicas: 2
      serviceName: db
      selector: {matchLabels: {app: db}}
      template: {metadata: {labels: {app: db}}}
      POLICY
  - apiVersion: v1
    kind: Pod
    metadata:
      name: db-0
      namespace: ns
      labels: {app: db}
      ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: db-1
      namespace: ns
      labels: {app: db}
      ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1, terminationGracePeriodSeconds: 30}
    status: {phase: Running}
"#;

#[test]
fn statefulset_pod_deleted_comes_back_with_the_same_name() {
    let mut sim = sim(&STATEFULSET.replace("POLICY", ""));
    let set = sim.uid_of("StatefulSet", "ns", "db");
    let old = sim.uid_of("Pod", "ns", "db-1");
    sim.delete(&t("Pod", "ns", "db-1"), &background());
    sim.settle(600_000);
    let pod = sim.must("Pod", "ns", "db-1");
    assert_ne!(pod.uid(), old);
    assert_eq!(controller(&pod).uid, set);
    let made = created(&sim, "Pod", "db-1");
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].1, "statefulset-controller");
    // Only once the old one is gone (the name is held until then).
    assert!(made[0].0 >= sim.removed_at("Pod", "db-1"));
}

#[test]
fn statefulset_ordered_ready_creates_one_pod_at_a_time_parallel_all() {
    let ordered = STATEFULSET.replace("POLICY", "");
    let parallel = STATEFULSET.replace("POLICY", "podManagementPolicy: Parallel");
    for (text, expect) in [(ordered, 1), (parallel, 2)] {
        let text = text.replace("replicas: 2", "replicas: 4");
        let mut sim = sim(&text);
        sim.settle(600_000);
        // db-2 is Pending (no kubelet), so OrderedReady stops after it.
        let new: Vec<String> = pods(&sim)
            .iter()
            .map(|p| p.name().to_string())
            .filter(|n| n != "db-0" && n != "db-1")
            .collect();
        assert_eq!(new.len(), expect, "{new:?}");
        assert!(new.contains(&"db-2".to_string()));
    }
}

#[test]
fn s26_statefulset_claims_follow_the_retention_policy() {
    let with_claims = |retention: &str| {
        let text = STATEFULSET
            .replace(
                "POLICY",
                &format!("volumeClaimTemplates: [{{metadata: {{name: data}}, spec: {{accessModes: [ReadWriteOnce]}}}}]\n      {retention}"),
            )
            .replace("replicas: 2", "replicas: 3")
            .replace("\n      podManagementPolicy", "");
        let mut sim = sim(&text);
        sim.settle(600_000);
        sim
    };
    // whenDeleted: Delete: the claim of the new ordinal has a controller
    // reference to the set, and goes with it (after its pod, R63).
    let mut sim = with_claims(
        "persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}",
    );
    let set = sim.uid_of("StatefulSet", "ns", "db");
    let pvc = sim.must("PersistentVolumeClaim", "ns", "data-db-2");
    assert_eq!(controller(&pvc).uid, set);
    assert!(controller(&pvc).blocks());
    assert_eq!(
        created(&sim, "PersistentVolumeClaim", "data-db-2")[0].1,
        "statefulset-controller"
    );
    assert!(
        created(&sim, "PersistentVolumeClaim", "data-db-2")[0].0
            <= created(&sim, "Pod", "db-2")[0].0,
        "the claim before its pod"
    );
    sim.delete(&t("StatefulSet", "ns", "db"), &background());
    sim.settle(600_000);
    assert!(!sim.exists("PersistentVolumeClaim", "ns", "data-db-2"));
    assert!(pods(&sim).is_empty());
    // Default (Retain): no reference, the claim stays.
    let mut sim = with_claims("");
    let pvc = sim.must("PersistentVolumeClaim", "ns", "data-db-2");
    assert!(pvc.metadata.owner_references.is_empty());
    sim.delete(&t("StatefulSet", "ns", "db"), &background());
    sim.settle(600_000);
    assert!(sim.exists("PersistentVolumeClaim", "ns", "data-db-2"));
}

#[test]
fn daemonset_runs_one_pod_per_node_and_drops_a_gone_nodes_pod_at_its_next_sync() {
    let mut sim = sim(r#"
name: daemonset
objects:
  - {apiVersion: v1, kind: Node, metadata: {name: n1}}
  - {apiVersion: v1, kind: Node, metadata: {name: n2}}
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent, namespace: ns}
    spec:
      selector: {matchLabels: {app: agent}}
      template: {metadata: {labels: {app: agent}}}
"#);
    sim.settle(600_000);
    let ds = sim.uid_of("DaemonSet", "ns", "agent");
    let node_of = |p: &Object| {
        p.value_at(&["spec", "affinity", "nodeAffinity"])
            .and_then(|a| {
                a.pointer("/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchFields/0/values/0")
            })
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .expect("pinned to a node")
    };
    let mut nodes: Vec<String> = pods(&sim).iter().map(node_of).collect();
    nodes.sort();
    assert_eq!(nodes, ["n1", "n2"]);
    for p in pods(&sim) {
        assert_generated(p.name(), "agent-");
        assert_eq!(controller(&p).uid, ds);
        assert_eq!(created(&sim, "Pod", p.name())[0].1, "daemonset-controller");
    }
    assert_eq!(sim.create(Object::new("v1", "Node", None, "n3")).code, 201);
    sim.settle(600_000);
    assert_eq!(pods(&sim).len(), 3);
    // A node deleted: upstream has no handler for node deletes, so its pod
    // stays until the DaemonSet syncs for another reason (observed on the
    // test control plane); then it is deleted.
    sim.delete(&t("Node", "", "n1"), &background());
    sim.settle(600_000);
    assert_eq!(pods(&sim).len(), 3);
    let on_n2 = pods(&sim)
        .into_iter()
        .find(|p| node_of(p) == "n2")
        .expect("n2's pod");
    sim.patch(&t("Pod", "ns", on_n2.name()), "label", |o| {
        o.metadata.labels.insert("poke".into(), "1".into());
    });
    sim.settle(600_000);
    let mut nodes: Vec<String> = pods(&sim).iter().map(node_of).collect();
    nodes.sort();
    assert_eq!(nodes, ["n2", "n3"], "the pod for the gone node is deleted");
}

const JOB: &str = r#"
name: job
objects:
  - apiVersion: batch/v1
    kind: Job
    metadata: {name: report, namespace: ns, uid: 0b000000-0000-4000-8000-000000000001}
    spec:
      parallelism: 1
      selector: {matchLabels: {controller-uid: 0b000000-0000-4000-8000-000000000001}}
      template: {metadata: {labels: {controller-uid: 0b000000-0000-4000-8000-000000000001, job-name: report}}}
    STATUS
  - apiVersion: v1
    kind: Pod
    metadata:
      name: report-abcde
      namespace: ns
      labels: {controller-uid: 0b000000-0000-4000-8000-000000000001, job-name: report}
      finalizers: [batch.kubernetes.io/job-tracking]
      ownerReferences: [{apiVersion: batch/v1, kind: Job, name: report, controller: true, blockOwnerDeletion: true}]
    status: {phase: PHASE}
"#;

#[test]
fn job_replaces_a_deleted_pod_until_it_has_finished() {
    let mut sim = sim(&JOB.replace("STATUS", "").replace("PHASE", "Running"));
    sim.delete(&t("Pod", "ns", "report-abcde"), &background());
    sim.settle(600_000);
    let now = pods(&sim);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_generated(now[0].name(), "report-");
    assert_eq!(created(&sim, "Pod", now[0].name())[0].1, "job-controller");
    // R73: created with the tracking finalizer.
    assert!(now[0].has_finalizer("batch.kubernetes.io/job-tracking"));
    assert_eq!(
        now[0].metadata.labels.get("job-name"),
        Some(&"report".into())
    );
    // Finished: nothing replaced.
    let mut sim = common::sim(
        &JOB.replace(
            "STATUS",
            "status: {conditions: [{type: Complete, status: \"True\"}]}",
        )
        .replace("PHASE", "Succeeded"),
    );
    sim.delete(&t("Pod", "ns", "report-abcde"), &background());
    sim.settle(600_000);
    assert!(pods(&sim).is_empty());
}

#[test]
fn deleting_a_service_deletes_its_endpoints_and_its_slices() {
    let mut sim = sim(r#"
name: service
objects:
  - {apiVersion: v1, kind: Service, metadata: {name: web, namespace: ns}, spec: {selector: {app: web}}}
  - {apiVersion: v1, kind: Endpoints, metadata: {name: web, namespace: ns}}
  - {apiVersion: v1, kind: Endpoints, metadata: {name: other, namespace: ns}}
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata:
      name: web-abcde
      namespace: ns
      ownerReferences: [{apiVersion: v1, kind: Service, name: web, controller: true, blockOwnerDeletion: true}]
"#);
    sim.delete(&t("Service", "ns", "web"), &background());
    sim.settle(600_000);
    assert!(!sim.exists("Endpoints", "ns", "web"));
    assert_eq!(
        sim.removed("Endpoints", "web").map(|r| r.1),
        Some("endpoint-controller".into())
    );
    assert_eq!(
        sim.removed("EndpointSlice", "web-abcde").map(|r| r.1),
        Some("garbage-collector".into())
    );
    assert!(sim.exists("Endpoints", "ns", "other"));
}

#[test]
fn no_controller_creates_in_a_terminating_namespace() {
    let text = format!(
        "{}\n  - {{apiVersion: v1, kind: Namespace, metadata: {{name: ns}}}}\n",
        DEPLOYMENT.trim_end()
    );
    let mut sim = sim(&text);
    sim.delete(&t("Namespace", "", "ns"), &background());
    sim.settle(3_600_000);
    assert!(!sim.exists("Namespace", "", "ns"));
    let created: Vec<_> = sim
        .timeline()
        .iter()
        .filter(|e| e.what == What::Created)
        .collect();
    assert!(created.is_empty(), "{created:?}");
}

#[test]
fn an_owner_without_a_selector_keeps_what_it_controls() {
    // A metadata-only snapshot carries no selector: nothing is released
    // (the shop demo's Job and its unlabelled pod).
    let mut sim = sim(r#"
name: metadata-only
objects:
  - {apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: ns}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: j-abcde
      namespace: ns
      ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, controller: true, blockOwnerDeletion: true}]
    status: {phase: Running}
"#);
    let job = sim.uid_of("Job", "ns", "j");
    sim.settle(600_000);
    assert_eq!(sim.owner_uids("Pod", "ns", "j-abcde"), vec![job]);
    assert!(sim.timeline().is_empty(), "{:?}", sim.timeline());
}

#[test]
fn endpoints_and_slices_deleted_while_their_service_lives_come_back() {
    let mut sim = sim(r#"
name: service-lives
objects:
  - {apiVersion: v1, kind: Service, metadata: {name: web, namespace: ns}, spec: {selector: {app: web}}}
  - {apiVersion: v1, kind: Service, metadata: {name: manual, namespace: ns}}
  - {apiVersion: v1, kind: Endpoints, metadata: {name: web, namespace: ns}}
  - {apiVersion: v1, kind: Endpoints, metadata: {name: manual, namespace: ns}}
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata:
      name: web-abcde
      namespace: ns
      labels: {kubernetes.io/service-name: web, endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io}
      ownerReferences: [{apiVersion: v1, kind: Service, name: web, controller: true, blockOwnerDeletion: true}]
"#);
    let svc = sim.uid_of("Service", "ns", "web");
    let old_ep = sim.uid_of("Endpoints", "ns", "web");
    sim.delete(&t("Endpoints", "ns", "web"), &background());
    sim.delete(&t("EndpointSlice", "ns", "web-abcde"), &background());
    // A Service without a selector: its Endpoints are the user's.
    sim.delete(&t("Endpoints", "ns", "manual"), &background());
    sim.settle(600_000);
    let ep = sim.must("Endpoints", "ns", "web");
    assert_ne!(ep.uid(), old_ep);
    assert_eq!(
        created(&sim, "Endpoints", "web")[0].1,
        "endpoint-controller"
    );
    assert!(!sim.exists("Endpoints", "ns", "manual"));
    let slices: Vec<Object> = sim
        .objects()
        .filter(|o| o.kind == "EndpointSlice")
        .cloned()
        .collect();
    assert_eq!(slices.len(), 1);
    assert_generated(slices[0].name(), "web-");
    assert_eq!(controller(&slices[0]).uid, svc);
    assert_eq!(
        created(&sim, "EndpointSlice", slices[0].name())[0].1,
        "endpointslice-controller"
    );
}

#[test]
fn a_daemonset_without_any_node_objects_is_left_alone() {
    // A snapshot of one namespace carries no Node: its DaemonSet's pods
    // are neither deleted nor multiplied.
    let mut sim = sim(r#"
name: ds-no-nodes
objects:
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent, namespace: ns}
    spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: agent-abcde
      namespace: ns
      labels: {app: agent}
      ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, controller: true, blockOwnerDeletion: true}]
    spec: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}}}}
"#);
    sim.settle(600_000);
    assert!(sim.timeline().is_empty(), "{:?}", sim.timeline());
    sim.delete(&t("Pod", "ns", "agent-abcde"), &background());
    sim.settle(600_000);
    assert!(pods(&sim).is_empty(), "not replaced: no node known");
}
