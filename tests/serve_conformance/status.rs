//! The status subresource's rows of the conformance table: what a write
//! of each kind's `/status` keeps (as each kind's status strategy in
//! 1.20), the 404 of a kind without one, and custom resources with and
//! without it.

use super::*;

/// A change of a status write that the status strategies take or leave:
/// labels, annotations, `spec` and `status`.
fn status_change(spec: Value, status: Value) -> Value {
    json!({"metadata": {"labels": {"b": "2"}, "annotations": {"b": "2"}}, "spec": spec, "status": status})
}

fn workload(api_version: &str, kind: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind,
           "metadata": {"name": name, "labels": {"a": "1"}}, "spec": spec})
}

fn template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app}},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}})
}

/// A CRD in the group `{ns}.example.com`, with or without the status
/// subresource.
fn crd(plural: &str, kind: &str, status: bool) -> Value {
    let mut version = json!({"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
    if status {
        version["subresources"] = json!({"status": {}});
    }
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": format!("{plural}.{{ns}}.example.com")},
           "spec": {"group": "{ns}.example.com", "scope": "Namespaced",
                    "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind},
                    "versions": [version]}})
}

/// The status subresource of each kind that has one (what a write of it
/// keeps, as each kind's status strategy), its 404 for one that has not,
/// and custom resources with and without it. The probes read the answer
/// of the write itself, before a controller of the control plane acts.
#[allow(clippy::too_many_lines)]
pub(crate) fn rows() -> Vec<Row> {
    const MERGE: &str = "application/merge-patch+json";
    const TOUCHED: &[&str] = &["/metadata/labels/b", "/metadata/annotations/b"];
    let ready = json!({"replicas": 1, "readyReplicas": 1});
    let creates = [
        (
            "/apis/apps/v1/namespaces/{ns}/replicasets",
            workload(
                "apps/v1",
                "ReplicaSet",
                "rs",
                json!({"replicas": 0,
                "selector": {"matchLabels": {"app": "rs"}}, "template": template("rs")}),
            ),
        ),
        (
            "/apis/apps/v1/namespaces/{ns}/statefulsets",
            workload(
                "apps/v1",
                "StatefulSet",
                "sts",
                json!({"replicas": 0, "serviceName": "sts",
                "selector": {"matchLabels": {"app": "sts"}}, "template": template("sts")}),
            ),
        ),
        (
            "/apis/apps/v1/namespaces/{ns}/daemonsets",
            workload(
                "apps/v1",
                "DaemonSet",
                "ds",
                json!({
                "selector": {"matchLabels": {"app": "ds"}}, "template": template("ds")}),
            ),
        ),
        (
            "/apis/batch/v1/namespaces/{ns}/jobs",
            workload(
                "batch/v1",
                "Job",
                "job",
                json!({"parallelism": 0, "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox:1.36"}]}}}),
            ),
        ),
        (
            "/api/v1/namespaces/{ns}/persistentvolumeclaims",
            workload(
                "v1",
                "PersistentVolumeClaim",
                "pvc",
                json!({"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "none"}),
            ),
        ),
        (
            "/api/v1/namespaces/{ns}/services",
            workload(
                "v1",
                "Service",
                "svc",
                json!({"ports": [{"port": 80}], "selector": {"app": "x"}}),
            ),
        ),
        (
            "/api/v1/namespaces/{ns}/replicationcontrollers",
            workload(
                "v1",
                "ReplicationController",
                "rc",
                json!({"replicas": 0,
                "selector": {"app": "rc"}, "template": template("rc")}),
            ),
        ),
        (
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            crd("widgets", "Widget", true),
        ),
        (
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            crd("gadgets", "Gadget", false),
        ),
    ];
    let mut rows: Vec<Row> = creates
        .into_iter()
        .map(|(path, body)| {
            // The create's answer: the status its strategy left, and
            // the kind's own defaults (not a CRD's: serve's is
            // Established at once, as the simulator's definitions are).
            let probes: &'static [&'static str] = if path.contains("customresourcedefinitions") {
                &[]
            } else {
                &[
                    "/status",
                    "/spec/backoffLimit",
                    "/spec/completions",
                    "/spec/parallelism",
                ]
            };
            probing(
                with(row("status: create", "POST", path), JSON, body),
                probes,
            )
        })
        .collect();
    let mut more = vec![
        probing(
            with(
                row(
                    "status: deployment",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/web/status",
                ),
                MERGE,
                status_change(
                    json!({"replicas": 5}),
                    json!({"conditions": [{"type": "X", "status": "True"}]}),
                ),
            ),
            &[
                "/metadata/labels/b",
                "/metadata/annotations/b",
                "/spec/replicas",
                "/status/conditions/0/type",
            ],
        ),
        probing(
            with(
                row(
                    "status: replicaset",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/replicasets/rs/status",
                ),
                MERGE,
                status_change(json!({"replicas": 3}), ready.clone()),
            ),
            &[
                "/metadata/labels/b",
                "/metadata/annotations/b",
                "/spec/replicas",
                "/status/readyReplicas",
            ],
        ),
        probing(
            with(
                row(
                    "status: statefulset",
                    "PUT",
                    "/apis/apps/v1/namespaces/{ns}/statefulsets/sts/status",
                ),
                JSON,
                {
                    let mut b = workload("apps/v1", "StatefulSet", "sts", json!({"replicas": 4}));
                    b["metadata"]["labels"]["b"] = json!("2");
                    // A StatefulSet's status validation refuses a
                    // collisionCount lower than the stored one.
                    b["status"] = json!({"replicas": 1, "readyReplicas": 1, "collisionCount": 0});
                    b
                },
            ),
            &[
                "/metadata/labels/b",
                "/spec/replicas",
                "/status/readyReplicas",
            ],
        ),
        probing(
            with(
                row(
                    "status: daemonset",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/daemonsets/ds/status",
                ),
                MERGE,
                status_change(
                    json!({"minReadySeconds": 5}),
                    json!({"currentNumberScheduled": 0, "numberMisscheduled": 0,
                           "desiredNumberScheduled": 2, "numberReady": 0}),
                ),
            ),
            &[
                "/metadata/labels/b",
                "/spec/minReadySeconds",
                "/status/desiredNumberScheduled",
            ],
        ),
        probing(
            with(
                row(
                    "status: job",
                    "PATCH",
                    "/apis/batch/v1/namespaces/{ns}/jobs/job/status",
                ),
                MERGE,
                status_change(json!({"parallelism": 1}), json!({"active": 1})),
            ),
            &["/metadata/labels/b", "/spec/parallelism", "/status/active"],
        ),
        probing(
            with(
                row(
                    "status: persistentvolumeclaim",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/persistentvolumeclaims/pvc/status",
                ),
                MERGE,
                status_change(json!({"volumeName": "v"}), json!({"phase": "Bound"})),
            ),
            &["/metadata/labels/b", "/spec/volumeName", "/status/phase"],
        ),
        probing(
            with(
                row(
                    "status: service",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/services/svc/status",
                ),
                MERGE,
                status_change(
                    json!({"selector": {"app": "y"}}),
                    json!({"loadBalancer": {}}),
                ),
            ),
            TOUCHED,
        ),
        probing(
            with(
                row(
                    "status: replicationcontroller",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/replicationcontrollers/rc/status",
                ),
                MERGE,
                status_change(json!({"replicas": 3}), ready),
            ),
            &[
                "/metadata/labels/b",
                "/spec/replicas",
                "/status/readyReplicas",
            ],
        ),
        probing(
            with(
                row(
                    "status: namespace",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/status",
                ),
                MERGE,
                json!({"metadata": {"labels": {"b": "2"}},
                       "status": {"conditions": [{"type": "X", "status": "True"}]}}),
            ),
            &[
                "/metadata/labels/b",
                "/status/phase",
                "/status/conditions/0/type",
            ],
        ),
        probing(
            with(
                row(
                    "status: a namespace's write keeps it",
                    "PATCH",
                    "/api/v1/namespaces/{ns}",
                ),
                MERGE,
                json!({"status": {"phase": "Terminating"}}),
            ),
            &["/status/phase"],
        ),
        probing(
            row(
                "status: get",
                "GET",
                "/apis/apps/v1/namespaces/{ns}/replicasets/rs/status",
            ),
            // Not the status itself: the control plane's ReplicaSet
            // controller has written it again by now.
            &["/kind", "/metadata/name"],
        ),
        with(
            row(
                "status: missing object",
                "PATCH",
                "/apis/apps/v1/namespaces/{ns}/deployments/nope/status",
            ),
            MERGE,
            json!({"status": {"readyReplicas": 1}}),
        ),
        row(
            "status: deployment, POST",
            "POST",
            "/apis/apps/v1/namespaces/{ns}/deployments/web/status",
        ),
        row(
            "status: configmap has none",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/a/status",
        ),
        with(
            row(
                "status: configmap has none, PATCH",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/a/status",
            ),
            MERGE,
            json!({"status": {"phase": "x"}}),
        ),
        probing(
            with(
                row(
                    "custom resource: create, status subresource",
                    "POST",
                    "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets",
                ),
                JSON,
                json!({"apiVersion": "{ns}.example.com/v1", "kind": "Widget",
                       "metadata": {"name": "w"}, "status": {"phase": "A"}}),
            ),
            &["/status"],
        ),
        probing(
            with(
                row(
                    "custom resource: status write",
                    "PATCH",
                    "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w/status",
                ),
                MERGE,
                json!({"metadata": {"labels": {"b": "2"}}, "status": {"phase": "A"}}),
            ),
            &["/metadata/labels/b", "/status/phase"],
        ),
        probing(
            with(
                row(
                    "custom resource: a write keeps its status",
                    "PATCH",
                    "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w",
                ),
                MERGE,
                json!({"metadata": {"labels": {"c": "3"}}, "status": {"phase": "B"}}),
            ),
            &["/metadata/labels/c", "/status/phase"],
        ),
        with(
            row(
                "custom resource: PUT without resourceVersion",
                "PUT",
                "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w",
            ),
            JSON,
            json!({"apiVersion": "{ns}.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}),
        ),
        probing(
            row(
                "custom resource: get status",
                "GET",
                "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w/status",
            ),
            &["/status/phase"],
        ),
        probing(
            with(
                row(
                    "custom resource: create, no status subresource",
                    "POST",
                    "/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets",
                ),
                JSON,
                json!({"apiVersion": "{ns}.example.com/v1", "kind": "Gadget",
                       "metadata": {"name": "g"}, "status": {"phase": "A"}}),
            ),
            &["/status/phase"],
        ),
        row(
            "custom resource: no status subresource",
            "GET",
            "/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets/g/status",
        ),
        probing(
            with(
                row(
                    "custom resource: a write sets status without the subresource",
                    "PATCH",
                    "/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets/g",
                ),
                MERGE,
                json!({"status": {"phase": "B"}}),
            ),
            &["/status/phase", "/metadata/generation"],
        ),
    ];
    // While both custom resources exist.
    more.extend(super::generation::rows());
    more.extend([
        row(
            "status: delete crd widgets",
            "DELETE",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.{ns}.example.com",
        ),
        row(
            "status: delete crd gadgets",
            "DELETE",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.{ns}.example.com",
        ),
    ]);
    rows.append(&mut more);
    rows
}
