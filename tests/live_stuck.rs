//! What stalls deletions in production, built on the real control plane
//! (kube-apiserver and kube-controller-manager 1.20, `.ci/test-cluster.sh`)
//! and read with the headless commands as an on-call engineer would: each
//! test asserts the sentence a user reads (STUCK-CAUSES C4, C8).
//!
//! Version differences by rule: none of these answers differs between 1.20
//! and current releases, except that 1.26+ also offers the
//! `node.kubernetes.io/out-of-service` taint (named as a fix, not used).

mod live_support;

use std::time::{Duration, Instant};

use live_support::*;
use ownerscope::backend::{Backend, Command};

const LONG: Duration = Duration::from_secs(60);

fn admin() -> String {
    env().admin.to_str().expect("path").to_string()
}

/// `ownerscope ARGS --kubeconfig ADMIN`: stdout, stderr, and how long it
/// took.
fn run(args: &[&str]) -> (String, String, Duration) {
    let admin = admin();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--kubeconfig", admin.as_str()]);
    let start = Instant::now();
    let o = ownerscope(&all);
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
        start.elapsed(),
    )
}

fn wait_for(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// An APIService whose Service has no endpoints, removed when dropped (it
/// keeps every namespace of the cluster from being deleted meanwhile).
struct DeadApi;

impl DeadApi {
    fn create() -> DeadApi {
        kubectl(
            &["apply", "-f", "-"],
            Some(
                r#"
apiVersion: v1
kind: Service
metadata: {name: dead-metrics, namespace: kube-system}
spec:
  ports: [{port: 443, targetPort: 4443}]
  selector: {app: no-such-pod}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: dead-metrics, namespace: kube-system}
"#,
            ),
        );
        wait_for(
            "the APIService is not Available",
            Duration::from_secs(30),
            || {
                kubectl(
                    &[
                        "get",
                        "apiservice",
                        "v1beta1.metrics.k8s.io",
                        "-o",
                        "jsonpath={.status.conditions[0].reason}",
                    ],
                    None,
                ) == "MissingEndpoints"
            },
        );
        // The aggregator serves the group (answering 503) a moment later;
        // until then it answers 404, as for an API that is not there.
        wait_for("the group answers 503", Duration::from_secs(30), || {
            try_kubectl(&["get", "--raw", "/apis/metrics.k8s.io/v1beta1"], None)
                .is_err_and(|e| e.contains("ServiceUnavailable"))
        });
        DeadApi
    }
}

impl Drop for DeadApi {
    fn drop(&mut self) {
        let _ = try_kubectl(
            &[
                "delete",
                "apiservice",
                "v1beta1.metrics.k8s.io",
                "--wait=false",
            ],
            None,
        );
        let _ = try_kubectl(
            &[
                "delete",
                "service",
                "-n",
                "kube-system",
                "dead-metrics",
                "--wait=false",
            ],
            None,
        );
    }
}

/// STUCK-CAUSES C4, GC-SEMANTICS R80: one unavailable aggregated API
/// neither slows nor stops a live command; it is named as unavailable, with
/// what its APIService says, never as a permission problem; a namespace it
/// holds names it and the fix, safest first.
#[test]
fn an_unavailable_aggregated_api_is_named_and_stops_nothing() {
    let _g = exclusive();
    let ns = format!(
        "dead-api-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() % 1_000_000)
            .unwrap_or(0)
    );
    let api = DeadApi::create();
    kubectl(&["create", "namespace", &ns], None);
    kubectl(&["create", "configmap", "-n", &ns, "a"], None);

    // Every headless command answers within about a second.
    for args in [
        vec!["tree", "--live", "-A"],
        vec!["tree", "--live", "-n", &ns],
        vec!["why", "--live", "-n", &ns, "configmap/a"],
        vec!["plan", "--live", "-n", &ns, "--delete", "configmap/a"],
    ] {
        let (out, err, took) = run(&args);
        assert!(
            took < Duration::from_secs(5),
            "{args:?} took {took:?}: {err}"
        );
        assert!(!out.is_empty(), "{args:?}: {err}");
        if args[0] == "tree" {
            let first = out.lines().next().unwrap_or_default();
            assert!(
                first.starts_with(
                    "unavailable API metrics.k8s.io/v1beta1: APIService v1beta1.metrics.k8s.io (Service kube-system/dead-metrics) is not Available: MissingEndpoints: "
                ),
                "{out}"
            );
            assert!(!out.contains("you cannot list metrics"), "{out}");
        }
    }

    // The namespace it holds.
    kubectl(&["delete", "namespace", &ns, "--wait=false"], None);
    wait_for(
        "NamespaceDeletionDiscoveryFailure",
        Duration::from_secs(30),
        || {
            kubectl(
                &[
                    "get",
                    "namespace",
                    &ns,
                    "-o",
                    "jsonpath={.status.conditions[?(@.type==\"NamespaceDeletionDiscoveryFailure\")].status}",
                ],
                None,
            ) == "True"
        },
    );
    let (out, err, _) = run(&["why", "--live", &format!("namespace/{ns}")]);
    assert!(
        out.contains(&format!(
            "the namespace controller does not finalize Namespace/{ns} while discovery fails"
        )),
        "{out}{err}"
    );
    assert!(
        out.contains("  - APIService v1beta1.metrics.k8s.io (Service kube-system/dead-metrics) is not Available: MissingEndpoints"),
        "{out}"
    );
    assert!(
        out.contains(
            "  - fix, safest first: bring back what serves APIService v1beta1.metrics.k8s.io"
        ),
        "{out}"
    );

    // The first command of an incident says the same.
    let (md, err, _) = run(&["stuck", "--live", "-A", "-o", "markdown"]);
    assert!(
        md.contains("## Holding others up\n\n- unavailable API metrics.k8s.io/v1beta1: APIService v1beta1.metrics.k8s.io (Service kube-system/dead-metrics) is not Available: MissingEndpoints"),
        "{md}{err}"
    );
    assert!(
        md.contains(&format!("| `Namespace/{ns}` | the namespace controller does not finalize Namespace/{ns} while discovery fails")),
        "{md}"
    );

    // Deleting the APIService lets the namespace go by itself.
    drop(api);
    wait_for("the namespace goes", Duration::from_secs(60), || {
        try_kubectl(&["get", "namespace", &ns], None).is_err()
    });
}

/// STUCK-CAUSES C8, GC-SEMANTICS R76, R77: a pod bound to a Node with no
/// kubelet stays Terminating, and `why` names the node and the fixes; once
/// the Node object is deleted, the pod GC force-deletes the pod (~40 s).
#[test]
fn a_pod_on_a_node_with_no_kubelet_names_the_node_and_goes_with_it() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "dead-node"));
    let node = format!("{ns}-node");
    kubectl(
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Node
metadata: {{name: {node}}}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {{name: {node}, namespace: kube-node-lease}}
spec: {{holderIdentity: {node}, leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z"}}
---
apiVersion: v1
kind: Pod
metadata: {{name: db-0, namespace: {ns}}}
spec:
  nodeName: {node}
  containers: [{{name: c, image: busybox}}]
"#
        )),
    );
    kubectl(&["delete", "pod", "-n", &ns, "db-0", "--wait=false"], None);
    let (out, err, took) = run(&["why", "--live", "-n", &ns, "pod/db-0"]);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(
        out.contains(&format!(
            "Pod/db-0 waits for the kubelet of Node/{node}, which is not reporting: Ready is "
        )),
        "{out}{err}"
    );
    assert!(
        out.contains(&format!("fix, safest first: bring Node/{node} back; or, once the machine is surely gone, delete the Node object")),
        "{out}"
    );
    assert!(!out.contains("the kubelet deletes it when"), "{out}");
    // Its heartbeat, read for this pod only (a namespace view lists no
    // Leases).
    assert!(
        out.contains(&format!(
            "its Lease kube-node-lease/{node} was last renewed "
        )),
        "{out}"
    );

    let (stuck, err, _) = run(&["stuck", "--live", "-A"]);
    let group = stuck
        .find("node not reporting (no kubelet ends the pod) (")
        .unwrap_or_else(|| panic!("{stuck}{err}"));
    assert!(
        stuck[group..].contains(&format!(
            "Pod/db-0 -n {ns}  Pod/db-0 waits for the kubelet of Node/{node}"
        )),
        "{stuck}"
    );

    // The plan of the fix: deleting the Node takes the pod with it.
    let (plan, err, _) = run(&["plan", "--live", "-A", "--delete", &format!("node/{node}")]);
    let pod_line = plan
        .lines()
        .find(|l| l.contains("Pod/db-0"))
        .unwrap_or_else(|| panic!("{plan}{err}"));
    assert!(pod_line.starts_with("deleted"), "{plan}");

    kubectl(&["delete", "node", &node], None);
    kubectl(
        &[
            "delete",
            "lease",
            "-n",
            "kube-node-lease",
            &node,
            "--ignore-not-found",
        ],
        None,
    );
    let start = Instant::now();
    wait_for(
        "the pod GC deletes the pod",
        Duration::from_secs(120),
        || try_kubectl(&["get", "pod", "-n", &ns, "db-0"], None).is_err(),
    );
    assert!(
        start.elapsed() >= Duration::from_secs(20),
        "not before the pod GC's quarantine: {:?}",
        start.elapsed()
    );
    kubectl(&["delete", "namespace", &ns, "--wait=false"], None);
}

/// GC-SEMANTICS R79 on 1.20: CronJob is served only as `batch/v1beta1`
/// (`batch/v1` is preferred). A snapshot lists it all the same; its Jobs
/// are drawn under it, not as unmappable; `plan` with no policy predicts
/// what a raw DELETE with no policy does for real: the Jobs are orphaned.
/// (1.21+ serve `batch/v1` CronJobs, whose default is Background.)
#[test]
fn a_cronjob_served_only_in_an_older_version_is_snapshotted_and_rehearsed() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "cronjob"));
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(
            r#"
apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "0 0 1 1 *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"#,
        ),
    );
    let uid = kubectl(
        &[
            "get",
            "cronjob",
            "-n",
            &ns,
            "cj",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(&format!(
            r#"
apiVersion: batch/v1
kind: Job
metadata:
  name: cj-1
  ownerReferences: [{{apiVersion: batch/v1beta1, kind: CronJob, name: cj, uid: {uid}, controller: true, blockOwnerDeletion: true}}]
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox}}]
"#
        )),
    );
    let (snap, err, _) = run(&["snapshot", "--live", "-n", &ns]);
    assert!(snap.contains("\"kind\": \"CronJob\""), "{err}");
    let file = std::env::temp_dir().join(format!("{ns}.json"));
    std::fs::write(&file, &snap).expect("write");
    let file = file.to_str().expect("path");
    let tree = String::from_utf8_lossy(&ownerscope(&["tree", file]).stdout).to_string();
    assert!(tree.contains("CronJob/cj\n  └─ Job/cj-1"), "{tree}");
    assert!(!tree.contains("unmappable"), "{tree}");
    let plan = String::from_utf8_lossy(
        &ownerscope(&["plan", file, "-n", &ns, "--delete", "cronjob/cj"]).stdout,
    )
    .to_string();
    assert!(plan.contains("CronJob defaults to Orphan"), "{plan}");
    assert!(plan.contains("orphaned           Job/cj-1"), "{plan}");

    // The same raw DELETE, with no policy, for real.
    kubectl(
        &[
            "delete",
            "--raw",
            &format!("/apis/batch/v1beta1/namespaces/{ns}/cronjobs/cj"),
        ],
        None,
    );
    let refs = || {
        kubectl(
            &[
                "get",
                "job",
                "-n",
                &ns,
                "cj-1",
                "-o",
                "jsonpath={.metadata.ownerReferences}",
            ],
            None,
        )
    };
    wait_for(
        "the Job loses its reference",
        Duration::from_secs(30),
        || refs().is_empty(),
    );
    kubectl(&["delete", "namespace", &ns, "--wait=false"], None);
}

/// STUCK-CAUSES C1: a finalizer whose controller is scaled to 0. Its
/// controller is found by the field manager that wrote the finalizer
/// (`managedFields`), or by the catalogue (FINALIZERS.md); its workload's
/// replicas say whether it runs.
#[test]
fn a_finalizers_controller_scaled_to_zero_is_named_with_its_workload() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "remover"));
    kubectl(
        &["apply", "-n", &ns, "-f", "-"],
        Some(
            r#"
apiVersion: apps/v1
kind: Deployment
metadata: {name: cleanup-operator}
spec:
  replicas: 0
  selector: {matchLabels: {app: cleanup-operator}}
  template:
    metadata: {labels: {app: cleanup-operator}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: argocd-application-controller}
spec:
  replicas: 0
  serviceName: argocd
  selector: {matchLabels: {app: argocd}}
  template:
    metadata: {labels: {app: argocd}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pending-operator}
spec:
  replicas: 1
  selector: {matchLabels: {app: pending-operator}}
  template:
    metadata: {labels: {app: pending-operator}}
    spec: {containers: [{name: c, image: busybox}]}
"#,
        ),
    );
    // Written by the operator's field manager, as a controller adds it.
    kubectl(
        &[
            "create",
            "-n",
            &ns,
            "--field-manager=cleanup-operator",
            "-f",
            "-",
        ],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: by-manager, finalizers: [example.com/cleanup]}\n",
        ),
    );
    kubectl(
        &[
            "create",
            "-n",
            &ns,
            "--field-manager=pending-operator",
            "-f",
            "-",
        ],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pending, finalizers: [example.com/pending]}\n",
        ),
    );
    // Argo CD's finalizer has no domain part: a built-in kind refuses it,
    // a custom resource takes it (as an Application does).
    let group = format!("{ns}.example.com");
    kubectl(
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: apps.{group}}}
spec:
  group: {group}
  names: {{kind: App, plural: apps}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
"#
        )),
    );
    wait_for("the CRD is served", Duration::from_secs(30), || {
        try_kubectl(&["get", &format!("apps.{group}"), "-n", &ns], None).is_ok()
    });
    kubectl(
        &["create", "-n", &ns, "-f", "-"],
        Some(&format!(
            "apiVersion: {group}/v1\nkind: App\nmetadata: {{name: app, finalizers: [resources-finalizer.argocd.argoproj.io]}}\n"
        )),
    );
    kubectl(
        &[
            "create",
            "-n",
            &ns,
            "--field-manager=gone-operator",
            "-f",
            "-",
        ],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: orphaned, finalizers: [example.com/gone]}\n",
        ),
    );
    for cm in ["by-manager", "pending", "orphaned"] {
        kubectl(
            &["delete", "configmap", "-n", &ns, cm, "--wait=false"],
            None,
        );
    }
    kubectl(
        &[
            "delete",
            &format!("apps.{group}"),
            "-n",
            &ns,
            "app",
            "--wait=false",
        ],
        None,
    );
    let why = |name: &str| {
        let (out, err, _) = run(&[
            "why",
            "--live",
            "-A",
            "-n",
            &ns,
            &format!("configmap/{name}"),
        ]);
        assert!(!out.is_empty(), "{err}");
        out
    };
    let out = why("by-manager");
    assert!(
        out.contains(&format!("ConfigMap/by-manager holds finalizer example.com/cleanup: cleanup-operator (Deployment {ns}/cleanup-operator) is scaled to 0: nothing will remove example.com/cleanup (written by field manager cleanup-operator)")),
        "{out}"
    );
    let (out, err, _) = run(&[
        "why",
        "--live",
        "-A",
        "-n",
        &ns,
        &format!("apps.{group}/app"),
    ]);
    assert!(!out.is_empty(), "{err}");
    assert!(
        out.contains(&format!("argocd-application-controller (StatefulSet {ns}/argocd-application-controller) is scaled to 0: nothing will remove resources-finalizer.argocd.argoproj.io")),
        "{out}"
    );
    let out = why("pending");
    assert!(
        out.contains(&format!(
            "pending-operator (Deployment {ns}/pending-operator) is not running: 0/1 ready"
        )),
        "{out}"
    );
    let out = why("orphaned");
    assert!(
        out.contains("no workload of gone-operator found in the cluster: the controller of example.com/gone seems uninstalled"),
        "{out}"
    );
    kubectl(
        &[
            "patch",
            &format!("apps.{group}"),
            "-n",
            &ns,
            "app",
            "--type=merge",
            "-p",
            "{\"metadata\":{\"finalizers\":null}}",
        ],
        None,
    );
    kubectl(
        &["delete", "crd", &format!("apps.{group}"), "--wait=false"],
        None,
    );
    for cm in ["by-manager", "pending", "orphaned"] {
        kubectl(
            &[
                "patch",
                "configmap",
                "-n",
                &ns,
                cm,
                "--type=merge",
                "-p",
                "{\"metadata\":{\"finalizers\":null}}",
            ],
            None,
        );
    }
    kubectl(&["delete", "namespace", &ns, "--wait=false"], None);
}

/// Issue of whole-cluster rehearsals: `snapshot --live -A` of the test
/// cluster (every system object: the APIService `v1.`, RBAC's `system:`
/// names, the node leases...) loads, and simulating it with no DELETE
/// changes nothing the real cluster leaves alone: whatever goes was
/// Terminating already, in a Terminating namespace, or owned by something
/// that goes.
#[test]
fn a_whole_cluster_snapshot_loads_and_a_simulation_without_delete_keeps_it() {
    let _g = exclusive();
    let (snap, err, _) = run(&["snapshot", "--live", "-A"]);
    assert!(
        snap.contains("\"name\": \"v1.\""),
        "the core APIService is there: {err}"
    );
    let file = std::env::temp_dir().join(format!("whole-{}.json", std::process::id()));
    std::fs::write(&file, &snap).expect("write");
    let file = file.to_str().expect("path");
    let tree = ownerscope(&["tree", file]);
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let sim = ownerscope(&["simulate", file, "--until", "600", "-o", "json"]);
    assert!(
        sim.status.success(),
        "{}",
        String::from_utf8_lossy(&sim.stderr)
    );
    let out = String::from_utf8_lossy(&sim.stdout);
    let last = out.lines().last().expect("a final line");
    let fin: serde_json::Value = serde_json::from_str(last).expect("json");
    let uids = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
        v.as_array()
            .expect("objects")
            .iter()
            .filter_map(|o| o.pointer("/metadata/uid").and_then(|u| u.as_str()))
            .map(str::to_string)
            .collect()
    };
    let after = uids(&fin["final"]);
    let before: serde_json::Value = serde_json::from_str(&snap).expect("snapshot json");
    let objects = before["objects"].as_array().expect("objects");
    let terminating_ns: std::collections::BTreeSet<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "Namespace" && o.pointer("/metadata/deletionTimestamp").is_some())
        .filter_map(|o| o.pointer("/metadata/name").and_then(|n| n.as_str()))
        .collect();
    let gone: Vec<&serde_json::Value> = objects
        .iter()
        .filter(|o| {
            o.pointer("/metadata/uid")
                .and_then(|u| u.as_str())
                .is_some_and(|u| !after.contains(u))
        })
        .collect();
    let gone_uids: std::collections::BTreeSet<&str> = gone
        .iter()
        .filter_map(|o| o.pointer("/metadata/uid").and_then(|u| u.as_str()))
        .collect();
    let nodes: std::collections::BTreeSet<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o.pointer("/metadata/name").and_then(|n| n.as_str()))
        .collect();
    for o in &gone {
        // A pod bound to a Node that is gone: the real pod GC deletes it
        // too (R77), within a minute of the snapshot.
        let on_gone_node = o["kind"] == "Pod"
            && o.pointer("/spec/nodeName")
                .and_then(|n| n.as_str())
                .is_some_and(|n| !nodes.contains(n));
        let explained = on_gone_node
            || o.pointer("/metadata/deletionTimestamp").is_some()
            || o.pointer("/metadata/namespace")
                .and_then(|n| n.as_str())
                .is_some_and(|n| terminating_ns.contains(n))
            || o.pointer("/metadata/ownerReferences")
                .and_then(|r| r.as_array())
                .is_some_and(|rs| {
                    rs.iter()
                        .any(|r| r["uid"].as_str().is_some_and(|u| gone_uids.contains(u)))
                });
        assert!(
            explained,
            "the simulation deleted what the real cluster left alone: {}/{} {}",
            o["kind"],
            o.pointer("/metadata/name")
                .unwrap_or(&serde_json::Value::Null),
            o.pointer("/metadata/namespace")
                .unwrap_or(&serde_json::Value::Null)
        );
    }
    eprintln!(
        "whole-cluster snapshot: {} objects, {} gone in the simulation, each Terminating, in a Terminating namespace, owned by what goes, or on a Node that is gone",
        objects.len(),
        gone.len()
    );
}

/// STUCK-CAUSES C6: a validating webhook that fails closed, with nothing
/// behind its Service, refuses the UPDATE that would remove a finalizer.
/// `why --live` names it before anyone tries; the removal through the
/// backend is refused and explained; deleting the configuration lets it
/// through. The webhook matches only the test's namespace (by label), so
/// that it holds nothing else of the shared control plane.
///
/// Version difference: none for the answer. The transport error at the
/// end of the server's message depends on how the API server reaches
/// Services (1.20 here dials the Service's address; with
/// `--enable-aggregator-routing` it says "no endpoints available"): the
/// test reads the webhook's name, which every version prints.
#[test]
fn a_failing_admission_webhook_is_named_before_the_finalizer_removal_it_refuses() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "webhook"));
    kubectl(
        &[
            "label",
            "namespace",
            &ns,
            &format!("ownerscope-webhook={ns}"),
        ],
        None,
    );
    let config = format!("{ns}-guard");
    kubectl(
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Service
metadata: {{name: guard, namespace: {ns}}}
spec: {{selector: {{app: guard}}, ports: [{{port: 443, targetPort: 8443}}]}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {{name: {config}}}
webhooks:
- name: guard.{ns}.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {{service: {{namespace: {ns}, name: guard, path: /validate}}}}
  rules: [{{operations: [UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}}]
  namespaceSelector: {{matchLabels: {{ownerscope-webhook: {ns}}}}}
"#
        )),
    );
    // Created with its finalizer: the webhook is called for UPDATE only.
    kubectl(
        &["create", "-n", &ns, "-f", "-"],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/hold]}\n",
        ),
    );
    kubectl(
        &["delete", "-n", &ns, "configmap", "held", "--wait=false"],
        None,
    );

    let (out, err, took) = run(&["why", "--live", "configmap/held", "-n", &ns]);
    let webhook = format!("guard.{ns}.example.com");
    assert!(
        out.contains("Terminating for")
            && out.contains(&format!(
            "admission webhook {webhook} (ValidatingWebhookConfiguration/{config}, failurePolicy Fail) refuses every UPDATE of configmaps: no endpoints available for service \"guard\". Nobody can remove a finalizer (its controller, F, kubectl patch) until it answers"
        )),
        "{out}{err}"
    );
    assert!(
        out.contains(&format!(
            "fix, safest first: bring back what serves webhook {webhook} (Service {ns}/guard: its pods and endpoints)"
        )),
        "{out}"
    );
    assert!(took < Duration::from_secs(5), "why took {took:?}");

    // The removal, as `F` sends it, is refused and explained.
    let mut live = Live::start(&options(&env().admin, &ns));
    live.wait("held", LONG, |l| {
        l.graph
            .objects()
            .any(|o| o.name() == "held" && o.is_terminating())
    });
    let held = live
        .graph
        .objects()
        .find(|o| o.name() == "held")
        .expect("held")
        .obj_ref();
    live.backend.send(Command::RemoveFinalizer {
        target: held.clone(),
        finalizer: "example.com/hold".into(),
    });
    live.wait("the refusal", LONG, |l| !l.replies.is_empty());
    let r = &live.replies[0];
    assert!(!r.is_success(), "{r:?}");
    assert!(
        r.message.starts_with(&format!(
            "webhook {webhook} of ValidatingWebhookConfiguration/{config} could not be called and fails closed: bring back what serves it (Service {ns}/guard), then try again"
        )) && r.message.contains(&format!("(the server: Internal error occurred: failed calling webhook \"{webhook}\"")),
        "{}",
        r.message
    );

    // Without the configuration the same removal goes through.
    kubectl(&["delete", "validatingwebhookconfiguration", &config], None);
    live.replies.clear();
    wait_for("the removal", Duration::from_secs(30), || {
        live.backend.send(Command::RemoveFinalizer {
            target: held.clone(),
            finalizer: "example.com/hold".into(),
        });
        live.wait("a reply", LONG, |l| !l.replies.is_empty());
        let ok = live.replies.iter().any(|r| r.is_success());
        live.replies.clear();
        ok
    });
    rt.block_on(delete_namespace(&client, &ns));
}

/// GC-SEMANTICS R78 on the real control plane: a token Secret (no owner
/// reference, only the annotations naming its ServiceAccount) goes with
/// its ServiceAccount, an Opaque Secret with the same annotations stays.
/// A namespace snapshot marks the token Secret as such (a metadata list
/// does not carry a Secret's type), and a simulation of the same DELETE
/// on it agrees.
#[test]
fn a_service_account_token_secret_goes_with_its_account_in_a_rehearsal_too() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "tokens"));
    kubectl(&["create", "-n", &ns, "serviceaccount", "builder"], None);
    let sa_uid = kubectl(
        &[
            "get",
            "-n",
            &ns,
            "serviceaccount",
            "builder",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    for (name, kind) in [
        ("builder-token", "kubernetes.io/service-account-token"),
        ("builder-notes", "Opaque"),
    ] {
        kubectl(
            &["create", "-n", &ns, "-f", "-"],
            Some(&format!(
                "apiVersion: v1\nkind: Secret\ntype: {kind}\nmetadata:\n  name: {name}\n  annotations: {{kubernetes.io/service-account.name: builder, kubernetes.io/service-account.uid: {sa_uid}}}\n"
            )),
        );
    }
    let (snap, err, _) = run(&["snapshot", "--live", "-n", &ns]);
    assert!(
        snap.contains("\"type\":\"kubernetes.io/service-account-token\"")
            || snap.contains("\"type\": \"kubernetes.io/service-account-token\""),
        "the snapshot marks the token Secret: {err}"
    );
    let file = std::env::temp_dir().join(format!("ownerscope-tokens-{ns}.json"));
    std::fs::write(&file, &snap).expect("snapshot file");
    // Left alone while its ServiceAccount is there.
    let idle = ownerscope(&["simulate", file.to_str().expect("path")]);
    let idle = String::from_utf8_lossy(&idle.stdout).to_string();
    assert!(!idle.contains("deleted   Secret/builder-token"), "{idle}");
    let sim = ownerscope(&[
        "simulate",
        file.to_str().expect("path"),
        "--delete",
        "serviceaccount/builder",
        "-n",
        &ns,
    ]);
    let sim = String::from_utf8_lossy(&sim.stdout).to_string();
    let final_state = sim.split("final state").nth(1).unwrap_or_default();
    assert!(
        sim.contains("deleted   Secret/builder-token") && sim.contains("(by tokens-controller)"),
        "{sim}"
    );
    assert!(final_state.contains("Secret/builder-notes"), "{sim}");

    kubectl(&["delete", "-n", &ns, "serviceaccount", "builder"], None);
    wait_for("the token Secret gone", Duration::from_secs(30), || {
        try_kubectl(&["get", "-n", &ns, "secret", "builder-token"], None).is_err()
    });
    std::thread::sleep(Duration::from_secs(3));
    kubectl(&["get", "-n", &ns, "secret", "builder-notes"], None);
    rt.block_on(delete_namespace(&client, &ns));
}

/// STUCK-CAUSES C5 on the real control plane: a CRD whose conversion
/// webhook's Service is gone keeps a namespace Terminating
/// (`NamespaceDeletionContentFailure`). `why` reads that condition first,
/// names the Service and the CRD in its fix, and the kind that cannot be
/// listed is said to fail, not to be forbidden. Restoring one version
/// with no conversion lets the namespace go.
///
/// Version differences: none for this answer (the condition exists since
/// 1.16).
#[test]
fn a_dead_conversion_webhook_is_read_from_the_namespace_condition_and_named_in_the_fix() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "conversion"));
    let group = format!("{ns}.example.com");
    let crd = |conversion: &str| {
        format!(
            r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: gadgets.{group}}}
spec:
  group: {group}
  scope: Namespaced
  names: {{kind: Gadget, plural: gadgets, singular: gadget}}
  {conversion}
  versions:
  - {{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}
  - {{name: v2, served: true, storage: false, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}
"#
        )
    };
    kubectl(
        &["apply", "-f", "-"],
        Some(&crd(&format!(
            "conversion: {{strategy: Webhook, webhook: {{conversionReviewVersions: [v1], clientConfig: {{service: {{namespace: {ns}, name: converter, path: /convert}}}}}}}}"
        ))),
    );
    wait_for("the CRD served", Duration::from_secs(30), || {
        try_kubectl(
            &["create", "-n", &ns, "-f", "-"],
            Some(&format!(
                "apiVersion: {group}/v1\nkind: Gadget\nmetadata: {{name: g1}}\n"
            )),
        )
        .is_ok()
    });
    kubectl(&["delete", "namespace", &ns, "--wait=false"], None);
    let mut out = String::new();
    wait_for("the content failure", Duration::from_secs(60), || {
        out = run(&["why", "--live", &format!("namespace/{ns}")]).0;
        out.contains("cannot delete the content")
    });
    assert!(
        out.contains(&format!(
            "the namespace controller cannot delete the content of Namespace/{ns}: Failed to delete all resource types, 1 remaining: conversion webhook for {group}/v1, Kind=Gadget failed"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "fix, safest first: restore Service {ns}/converter (the conversion webhook of CustomResourceDefinition gadgets.{group})"
        )),
        "{out}"
    );
    // The fix: one version, no conversion; the namespace then goes.
    let fixed = crd("conversion: {strategy: None}").replace(
        "  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}\n",
        "",
    );
    kubectl(&["apply", "-f", "-"], Some(&fixed));
    wait_for("the namespace gone", Duration::from_secs(120), || {
        try_kubectl(&["get", "namespace", &ns], None).is_err()
    });
    kubectl(
        &["delete", "crd", &format!("gadgets.{group}"), "--wait=false"],
        None,
    );
}

/// STUCK-CAUSES C1/C23 on the real control plane: the manager that added
/// a finalizer wrote the object again after its deletion started (the API
/// server lets no new finalizer in then, so it was another field): `why`
/// says that controller is alive and working on it, from `managedFields`.
#[test]
fn a_finalizers_writer_still_writing_after_the_deletion_is_said_alive() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "alive"));
    kubectl(
        &[
            "create",
            "-n",
            &ns,
            "--field-manager=cleanup-operator",
            "-f",
            "-",
        ],
        Some(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [example.com/cleanup]}\n",
        ),
    );
    kubectl(
        &["delete", "-n", &ns, "configmap", "held", "--wait=false"],
        None,
    );
    // managedFields times are in seconds.
    std::thread::sleep(Duration::from_millis(1500));
    kubectl(
        &[
            "patch",
            "-n",
            &ns,
            "configmap",
            "held",
            "--field-manager=cleanup-operator",
            "--type=merge",
            "-p",
            r#"{"metadata":{"labels":{"cleanup":"running"}}}"#,
        ],
        None,
    );
    let (out, err, _) = run(&["why", "--live", "-n", &ns, "configmap/held"]);
    assert!(
        out.contains("field manager cleanup-operator, which added finalizer example.com/cleanup, wrote this object at ")
            && out.contains("after its deletion started"),
        "{out}{err}"
    );
    // The UI's source reads the same evidence for the selected object:
    // the writer of each finalizer, and the object's Events.
    kubectl(
        &["create", "-n", &ns, "-f", "-"],
        Some(&format!(
            "apiVersion: v1\nkind: Event\nmetadata: {{name: held.1}}\ninvolvedObject: {{apiVersion: v1, kind: ConfigMap, name: held, namespace: {ns}, uid: '{}'}}\ntype: Warning\nreason: CleanupFailed\nmessage: bucket not empty\nsource: {{component: cleanup-operator}}\n",
            kubectl(
                &[
                    "get",
                    "-n",
                    &ns,
                    "configmap",
                    "held",
                    "-o",
                    "jsonpath={.metadata.uid}"
                ],
                None
            )
        )),
    );
    let mut live = Live::start(&options(&env().admin, &ns));
    let target = live.find("ConfigMap", "held").expect("held").obj_ref();
    live.backend.send(Command::ReadEvidence(target.clone()));
    live.wait("the evidence", LONG, |l| !l.evidence.is_empty());
    let e = &live.evidence[0];
    assert_eq!(e.uid, target.uid);
    assert_eq!(
        e.writers.get("example.com/cleanup").map(Vec::as_slice),
        Some(&["cleanup-operator".to_string()][..]),
        "{e:?}"
    );
    assert!(
        e.events.iter().any(|ev| ev.name() == "held.1") && e.missing.is_empty(),
        "{e:?}"
    );
    kubectl(
        &[
            "patch",
            "-n",
            &ns,
            "configmap",
            "held",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ],
        None,
    );
    rt.block_on(delete_namespace(&client, &ns));
}

/// STUCK-CAUSES C11, C12, C17 and C2 on the control plane: a claim used by
/// a scheduled pod, the volume bound to it, a CSI volume whose detach
/// fails, and a LoadBalancer Service with no cloud controller, each
/// deleted and read with `why --live` as an on-call engineer would. The
/// Service's own Warning Event is quoted.
///
/// 1.20 and current releases answer alike here; 1.20's admission adds no
/// `pv-protection` to a PV created with finalizers of its own, so the
/// test writes it, as the admission plugin does on a plain create.
#[test]
fn volumes_and_load_balancers_name_what_holds_them_and_quote_their_events() {
    let _g = shared();
    let rt = rt();
    let client = rt.block_on(admin_client());
    let ns = rt.block_on(namespace(&client, "volumes"));
    let (pv, pva, va) = (format!("{ns}-pv"), format!("{ns}-pva"), format!("{ns}-va"));
    kubectl(
        &["apply", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {pv}, finalizers: [kubernetes.io/pv-protection]}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {{path: /tmp/{pv}}}
  claimRef: {{namespace: {ns}, name: data}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data, namespace: {ns}}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: {pv}
  resources: {{requests: {{storage: 1Gi}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: db, namespace: {ns}}}
spec:
  nodeName: {ns}-node
  containers: [{{name: c, image: busybox, volumeMounts: [{{name: d, mountPath: /d}}]}}]
  volumes: [{{name: d, persistentVolumeClaim: {{claimName: data}}}}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {pva}, finalizers: [external-attacher/csi-example-com]}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  csi: {{driver: csi.example.com, volumeHandle: vol-{ns}}}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {{name: {va}, finalizers: [external-attacher/csi-example-com]}}
spec:
  attacher: csi.example.com
  nodeName: {ns}-node
  source: {{persistentVolumeName: {pva}}}
---
apiVersion: v1
kind: Service
metadata: {{name: lb, namespace: {ns}, finalizers: [service.kubernetes.io/load-balancer-cleanup]}}
spec:
  type: LoadBalancer
  ports: [{{port: 80}}]
"#
        )),
    );
    kubectl(
        &[
            "patch",
            "volumeattachment",
            &va,
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"attached":true,"detachError":{"message":"rpc error: could not detach from the instance","time":"2026-01-01T00:00:00Z"}}}"#,
        ],
        None,
    );
    // The PV controller binds the claim to its pre-bound volume.
    wait_for("the claim is Bound", LONG, || {
        kubectl(
            &[
                "get",
                "-n",
                &ns,
                "pvc",
                "data",
                "-o",
                "jsonpath={.status.phase}",
            ],
            None,
        ) == "Bound"
    });
    let svc_uid = kubectl(
        &[
            "get",
            "-n",
            &ns,
            "svc",
            "lb",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
        None,
    );
    kubectl(
        &["create", "-f", "-"],
        Some(&format!(
            r#"
apiVersion: v1
kind: Event
metadata: {{name: lb.1, namespace: {ns}}}
involvedObject: {{apiVersion: v1, kind: Service, name: lb, namespace: {ns}, uid: "{svc_uid}"}}
type: Warning
reason: DeleteLoadBalancerFailed
message: "Error deleting load balancer: AccessDenied"
source: {{component: service-controller}}
count: 3
"#
        )),
    );
    kubectl(&["delete", "-n", &ns, "pvc", "data", "--wait=false"], None);
    kubectl(&["delete", "-n", &ns, "svc", "lb", "--wait=false"], None);
    kubectl(&["delete", "pv", &pv, &pva, "--wait=false"], None);
    kubectl(&["delete", "volumeattachment", &va, "--wait=false"], None);

    let (out, err, _) = run(&["why", "--live", "-n", &ns, "pvc/data"]);
    assert!(
        out.contains("PersistentVolumeClaim/data is still used by Pod/db"),
        "{out}{err}"
    );
    let (out, err, _) = run(&["why", "--live", &format!("pv/{pv}")]);
    assert!(
        out.contains(&format!(
            "PersistentVolume/{pv} holds finalizer kubernetes.io/pv-protection: PersistentVolume/{pv} is Bound to claim {ns}/data, itself Terminating, used by Pod/db"
        )) && out.contains(&format!("fix, safest first: delete the claim {ns}/data")),
        "{out}{err}"
    );
    let (out, err, _) = run(&["why", "--live", &format!("pv/{pva}")]);
    assert!(
        out.contains(&format!(
            "PersistentVolume/{pva} is still attached: VolumeAttachment/{va} on node {ns}-node (attached, Terminating"
        )) && out.contains("detachError: \"rpc error: could not detach from the instance\"")
            && out.contains("the external-attacher of csi.example.com removes external-attacher/csi-example-com once the volume is detached"),
        "{out}{err}"
    );
    let (out, err, _) = run(&["why", "--live", &format!("volumeattachment/{va}")]);
    assert!(
        out.contains(&format!(
            "it attaches PersistentVolume/{pva} on node {ns}-node"
        )),
        "{out}{err}"
    );
    let (out, err, _) = run(&["why", "--live", "-A", "svc/lb"]);
    // Whether a cloud controller is in sight depends on the cluster; the
    // test control plane has none, and its Nodes name no provider.
    assert!(
        out.contains("Service/lb holds finalizer service.kubernetes.io/load-balancer-cleanup: no cloud controller in sight")
            && out.contains("its own Warning Events, newest first: DeleteLoadBalancerFailed from service-controller, 3 times")
            && out.contains("\"Error deleting load balancer: AccessDenied\""),
        "{out}{err}"
    );

    kubectl(
        &[
            "delete",
            "-n",
            &ns,
            "pod",
            "db",
            "--grace-period=0",
            "--force",
        ],
        None,
    );
    for (kind, name) in [
        ("pv", pv.as_str()),
        ("pv", pva.as_str()),
        ("volumeattachment", va.as_str()),
    ] {
        let _ = try_kubectl(
            &[
                "patch",
                kind,
                name,
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ],
            None,
        );
    }
    for kind in ["svc/lb", "pvc/data"] {
        let _ = try_kubectl(
            &[
                "patch",
                "-n",
                &ns,
                kind,
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":null}}"#,
            ],
            None,
        );
    }
    rt.block_on(delete_namespace(&client, &ns));
}
