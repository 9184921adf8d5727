//! The deletion preview against the simulator on graphs where the workload
//! controllers act (re-create, replace, re-adopt, delete the surplus, a
//! DaemonSet's pods, nodes deleted under it, the endpoints controller):
//! every object, every policy.

mod plan_check;

use ownerscope::model::{Object, Policy};
use ownerscope::sim::Sim;
use ownerscope::sim::scenario;

use plan_check::{LIMIT_MS, check};

const GRAPHS: &[(&str, &str)] = &[
    (
        "deployment with templates and a service",
        r#"
name: d
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ns}
    spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}}}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata:
      name: web-h
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true, blockOwnerDeletion: true}]
    spec: {replicas: 2, selector: {matchLabels: {app: web, pod-template-hash: h}}, template: {metadata: {labels: {app: web, pod-template-hash: h}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-h-aaaaa
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-h-bbbbb
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}]
    status: {phase: Pending}
  - {apiVersion: v1, kind: Service, metadata: {name: web, namespace: ns}, spec: {selector: {app: web}}}
  - {apiVersion: v1, kind: Endpoints, metadata: {name: web, namespace: ns}}
"#,
    ),
    (
        "a Deployment that wants fewer pods than its ReplicaSet has",
        r#"
name: surplus
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: ns}
    spec: {replicas: 1, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}}}
  - apiVersion: apps/v1
    kind: ReplicaSet
    metadata:
      name: web-h
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true, blockOwnerDeletion: true}]
    spec: {replicas: 3, selector: {matchLabels: {app: web, pod-template-hash: h}}, template: {metadata: {labels: {app: web, pod-template-hash: h}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-h-aaaaa
      namespace: ns
      creationTimestamp: "2025-12-01T00:00:00Z"
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-h-bbbbb
      namespace: ns
      creationTimestamp: "2025-12-02T00:00:00Z"
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1}
    status: {phase: Running}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web-h-ccccc
      namespace: ns
      labels: {app: web, pod-template-hash: h}
      ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-h, controller: true, blockOwnerDeletion: true}]
    status: {phase: Pending}
"#,
    ),
    (
        "statefulset, job",
        r#"
name: sts-job
objects:
  - apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db, namespace: ns}
    spec: {replicas: 1, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: db-0
      namespace: ns
      labels: {app: db}
      ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true, blockOwnerDeletion: true}]
    spec: {nodeName: n1}
    status: {phase: Running}
  - apiVersion: batch/v1
    kind: Job
    metadata: {name: j, namespace: ns}
    spec: {selector: {matchLabels: {job-name: j}}, template: {metadata: {labels: {job-name: j}}}}
  - apiVersion: v1
    kind: Pod
    metadata:
      name: j-aaaaa
      namespace: ns
      labels: {job-name: j}
      finalizers: [batch.kubernetes.io/job-tracking]
      ownerReferences: [{apiVersion: batch/v1, kind: Job, name: j, controller: true, blockOwnerDeletion: true}]
    status: {phase: Pending}
"#,
    ),
    (
        "a DaemonSet on two nodes (its pods created at load)",
        r#"
name: ds
objects:
  - {apiVersion: v1, kind: Node, metadata: {name: n1}}
  - {apiVersion: v1, kind: Node, metadata: {name: n2}}
  - apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent, namespace: ns}
    spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}}}
"#,
    ),
    (
        "a DaemonSet's pod in a snapshot without nodes",
        r#"
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
    spec: {nodeName: n1}
    status: {phase: Running}
"#,
    ),
];

#[test]
fn plan_agrees_with_simulate_where_controllers_act() {
    let mut errors = Vec::new();
    let mut cases = 0;
    for (name, text) in GRAPHS {
        let sc = scenario::parse("t.yaml", text).expect("parses");
        let mut base = Sim::new(&sc).expect("loads");
        base.settle(LIMIT_MS);
        let targets: Vec<Object> = base.objects().cloned().collect();
        for target in &targets {
            for policy in [
                None,
                Some(Policy::Background),
                Some(Policy::Foreground),
                Some(Policy::Orphan),
            ] {
                cases += 1;
                errors.extend(check(name, &base, target, policy));
            }
        }
    }
    assert!(cases >= 80, "only {cases} cases");
    assert!(
        errors.is_empty(),
        "{} disagreements in {cases} cases:\n{}",
        errors.len(),
        errors.join("\n")
    );
}
