//! The conformance comparison (issue 26, item 6): one table of requests
//! (methods, paths, users, bodies, query parameters) sent to the test
//! control plane (Kubernetes 1.20, `.ci/test-cluster.sh`) and to
//! `ownerscope serve` (an empty scenario, the same users), comparing each
//! answer's status code and, for a `Status`, its reason. Every difference
//! left is listed in [`DIFFERENCES`] by rule, with why it stays; a listed
//! difference that no longer differs fails too, so the list stays true.

#[path = "serve_conformance/data.rs"]
mod data;
#[path = "serve_conformance/generation.rs"]
mod generation;
mod live_support;
#[path = "serve_conformance/status.rs"]
mod status;
#[path = "serve_conformance/tables.rs"]
mod tables;
#[path = "serve_conformance/templates.rs"]
mod templates;

use live_support::{Env, Target, env_of, options};
use serde_json::{Value, json};

/// Who sends a request.
#[derive(Clone, Copy, Debug)]
enum Who {
    Admin,
    Restricted,
    /// No credentials: `system:anonymous` on both.
    Anonymous,
}

/// One request of the table; `{ns}` in the path is the test's namespace.
struct Row {
    label: &'static str,
    who: Who,
    method: &'static str,
    path: &'static str,
    content_type: &'static str,
    body: Option<Value>,
    /// JSON pointers into the answer whose values are compared too.
    probes: &'static [&'static str],
}

const JSON: &str = "application/json";

fn row(label: &'static str, method: &'static str, path: &'static str) -> Row {
    Row {
        label,
        who: Who::Admin,
        method,
        path,
        content_type: JSON,
        body: None,
        probes: &[],
    }
}

/// Compares the values at `probes` in the answers too.
fn probing(mut r: Row, probes: &'static [&'static str]) -> Row {
    r.probes = probes;
    r
}

fn with(mut r: Row, content_type: &'static str, body: Value) -> Row {
    r.content_type = content_type;
    r.body = Some(body);
    r
}

fn restricted(mut r: Row) -> Row {
    r.who = Who::Restricted;
    r
}

fn anonymous(mut r: Row) -> Row {
    r.who = Who::Anonymous;
    r
}

/// The differences that stay: (row label, why).
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "unknown group",
        "kube-apiserver answers a group it does not serve with a text/plain `404 page not found`; serve's 404 is a Status saying what it serves (kubectl reads both as NotFound)",
    ),
    (
        "openapi v3",
        "kube-apiserver 1.20 has no /openapi/v3 (404); serve answers it as 1.27 and later do, for kubectl's fieldValidation check and explain",
    ),
    (
        "create, an unknown field, fieldValidation=Strict",
        "kube-apiserver 1.20 has no server-side field validation (1.25 and later): it takes the create and drops the field (201); serve answers as 1.25 and later (400, strict decoding error), since its /openapi/v3 tells kubectl 1.27 and later that it validates, and kubectl then leaves it to serve",
    ),
    (
        "merge patch, an unknown field, fieldValidation=Strict",
        "the same rule for a patch: 1.20 takes it (200), 1.25 and later refuse it (422, strict decoding error), as serve does",
    ),
    (
        "create, fieldValidation of another value",
        "1.20 does not know the parameter and ignores it (201); 1.25 and later refuse a value that is not Strict, Warn or Ignore (422 of CreateOptions), as serve does",
    ),
    (
        "server-side apply, another kind in the body",
        "kube-apiserver fails to merge objects of two types with a 500 (\"failed to merge config\"); serve answers 400, as for a create of the wrong kind",
    ),
];

fn cm(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"conf": "1"}}})
}

/// A ConfigMap for the deletecollection rows, labelled `dc`.
fn dc(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"dc": "1"}}})
}

fn table() -> Vec<Row> {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                     "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}});
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
    let mut stale = cm("a");
    stale["metadata"]["resourceVersion"] = json!("1");
    let big = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                     "data": {"k": "x".repeat(3 * 1024 * 1024 + 10)}});
    let mut rows = vec![
        row("version", "GET", "/version"),
        row("healthz", "GET", "/healthz"),
        row("core discovery", "GET", "/api/v1"),
        // A built-in kind's entry as 1.20 lists it: no singular name, its
        // verbs in upstream's order, the hash of its storage version.
        probing(
            row("apps discovery", "GET", "/apis/apps/v1"),
            &[
                "/resources/0/name",
                "/resources/0/singularName",
                "/resources/0/verbs",
                "/resources/0/storageVersionHash",
            ],
        ),
        row("unknown group", "GET", "/apis/nope.example.com/v1"),
        row("openapi v3", "GET", "/openapi/v3"),
        probing(
            row("openapi v2", "GET", "/openapi/v2"),
            &[
                "/swagger",
                "/definitions/io.k8s.api.core.v1.Container/properties/image/description",
                "/definitions/io.k8s.api.apps.v1.DeploymentSpec/properties/strategy",
            ],
        ),
        with(
            row("create namespace", "POST", "/api/v1/namespaces"),
            JSON,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "{ns}"}}),
        ),
        probing(
            with(
                row("create", "POST", "/api/v1/namespaces/{ns}/configmaps"),
                JSON,
                cm("a"),
            ),
            &["/metadata/managedFields"],
        ),
        with(
            row("create again", "POST", "/api/v1/namespaces/{ns}/configmaps"),
            JSON,
            cm("a"),
        ),
        with(
            row(
                "create, no such namespace",
                "POST",
                "/api/v1/namespaces/serve-conf-none/configmaps",
            ),
            JSON,
            cm("a"),
        ),
        with(
            row(
                "create, bad name",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            cm("A_B"),
        ),
        with(
            row("create, cluster-wide path", "POST", "/api/v1/configmaps"),
            JSON,
            cm("w"),
        ),
        with(
            row(
                "create, kind mismatch",
                "POST",
                "/api/v1/namespaces/{ns}/secrets",
            ),
            JSON,
            cm("m"),
        ),
        with(
            row(
                "create, not JSON",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            json!("not an object"),
        ),
        with(
            row(
                "create, too large",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            big,
        ),
        with(
            row(
                "dry-run create",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps?dryRun=All",
            ),
            JSON,
            cm("dry"),
        ),
        row(
            "dry run left nothing",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/dry",
        ),
        with(
            row(
                "dryRun typo",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps?dryRun=true",
            ),
            JSON,
            cm("typo"),
        ),
        probing(
            with(
                row(
                    "fieldManager too long",
                    "POST",
                    "/api/v1/namespaces/{ns}/configmaps?fieldManager=mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm",
                ),
                JSON,
                cm("fm-long"),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "fieldManager with ESC and a bidi mark",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/a?fieldManager=a%1Bb%E2%80%AE",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"fm": "1"}}}),
            ),
            &["/message", "/details/causes"],
        ),
        row("get", "GET", "/api/v1/namespaces/{ns}/configmaps/a"),
        row(
            "get missing",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/nope",
        ),
        row(
            "get, name ..",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/..",
        ),
        row(
            "list",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=conf%3D1&limit=1",
        ),
        row(
            "list, bad label selector",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=a%20%3D%3D%3D%20b",
        ),
        row(
            "list, unknown field selector",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps?fieldSelector=spec.x%3D1",
        ),
        row(
            "list, bad limit",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps?limit=x",
        ),
        row(
            "list, bad continue",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps?limit=1&continue=%21%21",
        ),
        row("unknown resource", "GET", "/api/v1/namespaces/{ns}/widgets"),
        with(
            row(
                "update, stale resourceVersion",
                "PUT",
                "/api/v1/namespaces/{ns}/configmaps/a",
            ),
            JSON,
            stale,
        ),
        with(
            row(
                "update, name mismatch",
                "PUT",
                "/api/v1/namespaces/{ns}/configmaps/a",
            ),
            JSON,
            cm("b"),
        ),
        probing(
            with(
                row(
                    "merge patch",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/a",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"x": "y"}}}),
            ),
            &["/metadata/managedFields"],
        ),
        with(
            row(
                "json patch, failing test",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/a",
            ),
            "application/json-patch+json",
            json!([{"op": "test", "path": "/metadata/labels/x", "value": "no"}]),
        ),
        with(
            row(
                "patch, missing object",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/nope",
            ),
            "application/merge-patch+json",
            json!({"metadata": {"labels": {"x": "y"}}}),
        ),
        probing(
            with(
                row(
                    "server-side apply",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                cm("ssa"),
            ),
            &["/metadata/managedFields"],
        ),
        probing(
            with(
                row(
                    "server-side apply again",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"conf": "2"}}}),
            ),
            &["/metadata/managedFields"],
        ),
        probing(
            with(
                row(
                    "server-side apply, another manager's field",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=u",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"conf": "3"}}}),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "server-side apply, forced",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=u&force=true",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"conf": "3"}}}),
            ),
            &["/metadata/managedFields", "/metadata/labels"],
        ),
        probing(
            with(
                row(
                    "update by another manager",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=curl",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"other": "1"}}}),
            ),
            &["/metadata/managedFields"],
        ),
        probing(
            with(
                row(
                    "server-side apply, an updater's field",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"other": "2"}}}),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "server-side apply, shared value",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"other": "1", "a": "1"}}}),
            ),
            &["/metadata/managedFields", "/metadata/labels"],
        ),
        probing(
            with(
                row(
                    "server-side apply, fields left out",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "labels": {"b": "1"}}}),
            ),
            &["/metadata/managedFields", "/metadata/labels"],
        ),
        probing(
            with(
                row(
                    "server-side apply, a ConfigMap's data",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa-data?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-data"}, "data": {"k": "v"}}),
            ),
            &["/metadata/managedFields", "/data"],
        ),
        probing(
            with(
                row(
                    "server-side apply, another manager's data key",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa-data?fieldManager=u",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-data"}, "data": {"k": "w"}}),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "server-side apply, a data key of its own beside another's",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa-data?fieldManager=u",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-data"}, "data": {"j": "x"}}),
            ),
            &["/metadata/managedFields", "/data"],
        ),
        probing(
            with(
                row(
                    "server-side apply, a data key left out",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa-data?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-data"}, "data": {"i": "y"}}),
            ),
            &["/metadata/managedFields", "/data"],
        ),
        with(
            row(
                "server-side apply, no fieldManager",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa",
            ),
            "application/apply-patch+yaml",
            cm("ssa"),
        ),
        with(
            row(
                "server-side apply, name mismatch",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
            ),
            "application/apply-patch+yaml",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}),
        ),
        with(
            row(
                "server-side apply, another version",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
            ),
            "application/apply-patch+yaml",
            json!({"apiVersion": "v2", "kind": "ConfigMap", "metadata": {"name": "ssa"}}),
        ),
        with(
            row(
                "server-side apply, another kind in the body",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa?fieldManager=t",
            ),
            "application/apply-patch+yaml",
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "ssa"}}),
        ),
        // An unknown field: server-side apply types the object and refuses
        // it whatever `fieldValidation` says, in 1.20 as later.
        probing(
            with(
                row(
                    "server-side apply, an unknown field",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/ssa-typo?fieldManager=t",
                ),
                "application/apply-patch+yaml",
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa-typo"},
                       "data": {"a": "b"}, "spek": {"a": 1}}),
            ),
            &["/message", "/reason"],
        ),
        // fieldValidation (1.25 and later): absent it warns, Ignore takes
        // the field silently; both create on 1.20 as on serve.
        with(
            row(
                "create, an unknown field, no fieldValidation",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typo-warn"}, "spek": 1}),
        ),
        with(
            row(
                "create, an unknown field, fieldValidation=Ignore",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps?fieldValidation=Ignore",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typo-ignore"}, "spek": 1}),
        ),
        with(
            row(
                "create, an unknown field, fieldValidation=Strict",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typo-strict", "lables": {}}}),
        ),
        with(
            row(
                "merge patch, an unknown field, fieldValidation=Strict",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/typo-warn?fieldValidation=Strict",
            ),
            "application/merge-patch+json",
            json!({"spek": 2}),
        ),
        with(
            row(
                "create, fieldValidation of another value",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps?fieldValidation=strict",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "typo-other"}}),
        ),
        with(
            row(
                "server-side apply, dry run",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa-dry?fieldManager=t&dryRun=All",
            ),
            "application/apply-patch+yaml",
            cm("ssa-dry"),
        ),
        row(
            "server-side apply dry run left nothing",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/ssa-dry",
        ),
        with(
            row(
                "force with a merge patch",
                "PATCH",
                "/api/v1/namespaces/{ns}/configmaps/ssa?force=true",
            ),
            "application/merge-patch+json",
            json!({}),
        ),
        row(
            "percent-encoded path",
            "GET",
            "/api/v1/namespaces/{ns}/config%6Daps/%61",
        ),
        row(
            "percent-encoded slash",
            "GET",
            "/api/v1/namespaces/{ns}%2Fconfigmaps/a",
        ),
        row(
            "delete, dryRun typo",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps/a?dryRun=true",
        ),
        with(
            row(
                "delete, dryRun typo in the body",
                "DELETE",
                "/api/v1/namespaces/{ns}/configmaps/a",
            ),
            JSON,
            json!({"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["Some"]}),
        ),
        row(
            "dry-run delete",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps/a?dryRun=All",
        ),
        row(
            "dry run deleted nothing",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/a",
        ),
        row(
            "delete missing",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps/nope",
        ),
        with(
            row(
                "create deployment",
                "POST",
                "/apis/apps/v1/namespaces/{ns}/deployments",
            ),
            JSON,
            deploy,
        ),
        row(
            "get scale",
            "GET",
            "/apis/apps/v1/namespaces/{ns}/deployments/web/scale",
        ),
        with(
            row(
                "patch scale",
                "PATCH",
                "/apis/apps/v1/namespaces/{ns}/deployments/web/scale",
            ),
            "application/merge-patch+json",
            json!({"spec": {"replicas": 2}}),
        ),
        with(
            row(
                "patch scale below zero",
                "PATCH",
                "/apis/apps/v1/namespaces/{ns}/deployments/web/scale",
            ),
            "application/merge-patch+json",
            json!({"spec": {"replicas": -1}}),
        ),
        row(
            "scale of a missing deployment",
            "GET",
            "/apis/apps/v1/namespaces/{ns}/deployments/nope/scale",
        ),
        row(
            "scale of a daemonset",
            "GET",
            "/apis/apps/v1/namespaces/{ns}/daemonsets/x/scale",
        ),
        with(
            row("create pod", "POST", "/api/v1/namespaces/{ns}/pods"),
            JSON,
            pod,
        ),
        row(
            "log of an unscheduled pod",
            "GET",
            "/api/v1/namespaces/{ns}/pods/p/log",
        ),
        row(
            "log, unknown container",
            "GET",
            "/api/v1/namespaces/{ns}/pods/p/log?container=zz",
        ),
        row(
            "exec in an unscheduled pod",
            "POST",
            "/api/v1/namespaces/{ns}/pods/p/exec?command=ls&stdout=1",
        ),
        row(
            "log of a missing pod",
            "GET",
            "/api/v1/namespaces/{ns}/pods/nope/log",
        ),
        with(
            row(
                "pod status write",
                "PUT",
                "/api/v1/namespaces/{ns}/pods/p/status",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}),
        ),
        with(
            row(
                "pod status patch",
                "PATCH",
                "/api/v1/namespaces/{ns}/pods/p/status",
            ),
            "application/merge-patch+json",
            json!({"status": {"phase": "Running"}, "spec": {"activeDeadlineSeconds": 5}}),
        ),
        with(
            row(
                "pod status strategic patch",
                "PATCH",
                "/api/v1/namespaces/{ns}/pods/p/status",
            ),
            "application/strategic-merge-patch+json",
            json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        ),
        with(
            row(
                "pod status write, stale resourceVersion",
                "PUT",
                "/api/v1/namespaces/{ns}/pods/p/status",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}}),
        ),
        with(
            row(
                "pod status write, name mismatch",
                "PUT",
                "/api/v1/namespaces/{ns}/pods/p/status",
            ),
            JSON,
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"}}),
        ),
        with(
            row(
                "pod status write, missing pod",
                "PATCH",
                "/api/v1/namespaces/{ns}/pods/nope/status",
            ),
            "application/merge-patch+json",
            json!({"status": {"phase": "Running"}}),
        ),
        row(
            "pod status delete",
            "DELETE",
            "/api/v1/namespaces/{ns}/pods/p/status",
        ),
    ];
    rows.extend(status::rows());
    rows.extend(data::rows());
    rows.extend(vec![
        row(
            "deletecollection",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=nothing%3Dhere",
        ),
        with(
            row(
                "create for deletecollection 1",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            dc("dc1"),
        ),
        with(
            row(
                "create for deletecollection 2",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            dc("dc2"),
        ),
        row(
            "deletecollection, dry run",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=dc%3D1&dryRun=All",
        ),
        row(
            "deletecollection dry run left them",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/dc1",
        ),
        row(
            "deletecollection, dryRun typo",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=dc%3D1&dryRun=yes",
        ),
        row(
            "deletecollection, bad label selector",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=a%20%3D%3D%3D%20b",
        ),
        row(
            "deletecollection in every namespace",
            "DELETE",
            "/api/v1/configmaps?labelSelector=dc%3D1",
        ),
        row(
            "deletecollection by field",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?fieldSelector=metadata.name%3Ddc2",
        ),
        row(
            "deletecollection by label",
            "DELETE",
            "/api/v1/namespaces/{ns}/configmaps?labelSelector=dc%3D1",
        ),
        row(
            "deletecollection deleted them",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/dc1",
        ),
        row(
            "deletecollection left the rest",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps/a",
        ),
        restricted(row("restricted: version", "GET", "/version")),
        restricted(row(
            "restricted: list",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps",
        )),
        restricted(with(
            row(
                "restricted: create",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            cm("r"),
        )),
        restricted(with(
            row(
                "restricted: access review",
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            ),
            JSON,
            json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                   "spec": {"resourceAttributes": {"verb": "list", "resource": "secrets"}}}),
        )),
        restricted(with(
            row(
                "restricted: subject access review refused",
                "POST",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            ),
            JSON,
            json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                   "spec": {"user": "admin", "resourceAttributes": {"verb": "list", "resource": "secrets"}}}),
        )),
        probing(
            with(
                row(
                    "subject access review for the restricted user",
                    "POST",
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"user": "restricted", "groups": ["ownerscope-restricted"],
                                "resourceAttributes": {"verb": "list", "resource": "configmaps",
                                                       "namespace": "{ns}"}}}),
            ),
            &["/kind", "/status/allowed"],
        ),
        probing(
            with(
                row(
                    "subject access review, restricted user's secrets",
                    "POST",
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"user": "restricted", "groups": ["ownerscope-restricted"],
                                "resourceAttributes": {"verb": "delete", "resource": "secrets",
                                                       "namespace": "kube-system"}}}),
            ),
            &["/status/allowed"],
        ),
        probing(
            with(
                row(
                    "subject access review, a master",
                    "POST",
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"user": "someone", "groups": ["system:masters"],
                                "nonResourceAttributes": {"verb": "get", "path": "/metrics"}}}),
            ),
            &["/status/allowed"],
        ),
        probing(
            with(
                row(
                    "access review without attributes",
                    "POST",
                    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                       "spec": {}}),
            ),
            &["/message"],
        ),
        probing(
            with(
                row(
                    "subject access review without anything",
                    "POST",
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {}}),
            ),
            &["/message"],
        ),
        probing(
            with(
                row(
                    "subject access review without user or group",
                    "POST",
                    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                ),
                JSON,
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                       "spec": {"resourceAttributes": {"verb": "list", "resource": "pods"}}}),
            ),
            &["/message"],
        ),
        // RBAC escalation: the restricted user may create RoleBindings
        // and Roles in the namespace, and holds nothing more there.
        with(
            row(
                "role to bind and make roles",
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
            ),
            JSON,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "binder"},
                   "rules": [{"apiGroups": ["rbac.authorization.k8s.io"],
                              "resources": ["rolebindings", "roles"], "verbs": ["create"]}]}),
        ),
        with(
            row(
                "binding the restricted user to it",
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
            ),
            JSON,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "binder"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "binder"},
                   "subjects": [{"kind": "User", "name": "restricted", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        restricted(probing(
            with(
            row(
                "restricted: binds itself to cluster-admin",
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
            ),
            JSON,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                   "metadata": {"name": "escalate"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                   "subjects": [{"kind": "User", "name": "restricted", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
            &["/message"],
        )),
        restricted(probing(
            with(
            row(
                "restricted: a role with '*'",
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
            ),
            JSON,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "star"},
                   "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}),
        ),
            &["/message"],
        )),
        restricted(with(
            row(
                "restricted: a role within what it holds",
                "POST",
                "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
            ),
            JSON,
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "within"},
                   "rules": [{"apiGroups": ["rbac.authorization.k8s.io"],
                              "resources": ["roles"], "verbs": ["create"]}]}),
        )),
        restricted(row(
            "restricted: impersonation refused",
            "GET",
            "/api/v1/namespaces",
        )),
        anonymous(row("anonymous: version", "GET", "/version")),
        anonymous(row("anonymous: healthz", "GET", "/healthz")),
        anonymous(row("anonymous: core group list", "GET", "/api")),
        anonymous(row("anonymous: group list", "GET", "/apis")),
        anonymous(row(
            "anonymous: list",
            "GET",
            "/api/v1/namespaces/{ns}/configmaps",
        )),
        anonymous(with(
            row(
                "anonymous: create",
                "POST",
                "/api/v1/namespaces/{ns}/configmaps",
            ),
            JSON,
            cm("anon"),
        )),
        row("delete", "DELETE", "/api/v1/namespaces/{ns}/configmaps/a"),
        row("delete namespace", "DELETE", "/api/v1/namespaces/{ns}"),
    ]);
    rows
}

/// What an answer is compared by: its code, a `Status`'s reason, and how
/// many items a list holds (a deletecollection answers what it listed).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Answer {
    code: u16,
    reason: String,
    items: Option<usize>,
    /// The values at the row's probes.
    probed: Vec<Value>,
}

/// A client of the admin kubeconfig's server with no credentials: its
/// user entries emptied (no token, no client certificate).
async fn anonymous_client(env: &Env) -> kube::Client {
    use kube::config::{AuthInfo, Config, KubeConfigOptions, Kubeconfig};
    let mut kc = Kubeconfig::read_from(&env.admin).expect("the admin kubeconfig");
    for named in &mut kc.auth_infos {
        named.auth_info = Some(AuthInfo::default());
    }
    let config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .expect("a config without credentials");
    kube::Client::try_from(config).expect("an anonymous client")
}

async fn send(env: &Env, who: Who, r: &Row, ns: &str) -> Answer {
    let client = match who {
        Who::Admin | Who::Restricted => {
            let kubeconfig = match who {
                Who::Admin => &env.admin,
                _ => &env.restricted,
            };
            ownerscope::cluster::connect(&options(kubeconfig, "default"))
                .await
                .expect("client")
                .client
        }
        Who::Anonymous => anonymous_client(env).await,
    };
    let body = r
        .body
        .as_ref()
        .map(|b| b.to_string().replace("{ns}", ns).into_bytes())
        .unwrap_or_default();
    // A new CRD's resources are served once it is established: a create
    // of a custom resource is tried again while it answers 404.
    let settles = r.label.starts_with("custom resource: create");
    let mut tries = 0;
    let resp = loop {
        let mut req = http::Request::builder()
            .method(r.method)
            .uri(r.path.replace("{ns}", ns))
            .header(http::header::CONTENT_TYPE, r.content_type)
            .header(http::header::ACCEPT, JSON);
        if r.label == "restricted: impersonation refused" {
            req = req.header("Impersonate-User", "admin");
        }
        let req = req
            .body(kube::client::Body::from(body.clone()))
            .expect("request");
        let resp = client.send(req).await.expect("an answer");
        tries += 1;
        if !(settles && resp.status().as_u16() == 404 && tries < 40) {
            break resp;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    };
    let code = resp.status().as_u16();
    let mut v: Value = live_support::json_body(resp).await;
    // When a manager wrote is not compared, and neither is the order that
    // time gives: both servers sort entries by operation, then by the
    // second they were written, then by manager (`sortEncodedManagedFields`),
    // so two applies a moment apart list in either order depending on
    // whether a second boundary fell between them. Entries are compared
    // sorted by operation and manager.
    if let Some(entries) = v
        .pointer_mut("/metadata/managedFields")
        .and_then(Value::as_array_mut)
    {
        for e in entries.iter_mut().filter_map(Value::as_object_mut) {
            e.remove("time");
        }
        entries.sort_by(|p, q| {
            let key = |e: &Value| (e["operation"].to_string(), e["manager"].to_string());
            key(p).cmp(&key(q))
        });
    }
    let reason = if v["kind"] == "Status" {
        v["reason"].as_str().unwrap_or_default().to_string()
    } else {
        String::new()
    };
    let items = v["items"].as_array().map(Vec::len);
    let probed = r
        .probes
        .iter()
        .map(|p| v.pointer(p).cloned().unwrap_or(Value::Null))
        .collect();
    Answer {
        code,
        reason,
        items,
        probed,
    }
}

/// A namespace of the run's own on both servers: `PREFIX-<ms>`.
fn unique_namespace(prefix: &str) -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() % 1_000_000)
        .unwrap_or(0);
    format!("{prefix}-{ms}")
}

#[test]
fn serve_answers_the_request_table_as_the_control_plane_does() {
    let _g = live_support::shared();
    let real = env_of(Target::Cluster);
    let served = env_of(Target::Serve);
    let ns = unique_namespace("serve-conf");
    let rows = table();
    let answers: Vec<(Answer, Answer)> = live_support::rt().block_on(async {
        let mut out = Vec::new();
        for r in &rows {
            let a = send(real, r.who, r, &ns).await;
            let b = send(served, r.who, r, &ns).await;
            out.push((a, b));
        }
        out
    });
    // The anonymous rows went without credentials: the control plane
    // refuses `system:anonymous` a list.
    let anon = rows
        .iter()
        .position(|r| r.label == "anonymous: list")
        .expect("the table has an anonymous list");
    assert_eq!(
        answers[anon].0,
        Answer {
            code: 403,
            reason: "Forbidden".into(),
            items: None,
            probed: Vec::new(),
        },
        "the anonymous rows must be sent with no credentials"
    );
    let mut unexplained = Vec::new();
    let mut gone = Vec::new();
    for (r, (a, b)) in rows.iter().zip(&answers) {
        let listed = DIFFERENCES.iter().any(|(l, _)| *l == r.label);
        match (a == b, listed) {
            (false, false) => unexplained.push(format!(
                "{} ({} {}): control plane {a:?}, serve {b:?}",
                r.label, r.method, r.path
            )),
            (true, true) => gone.push(r.label),
            _ => {}
        }
    }
    assert!(
        unexplained.is_empty(),
        "differences not listed in DIFFERENCES:\n{}",
        unexplained.join("\n")
    );
    assert!(
        gone.is_empty(),
        "listed in DIFFERENCES but answered alike now (take them out): {gone:?}"
    );
    for (label, _) in DIFFERENCES {
        assert!(
            rows.iter().any(|r| r.label == *label),
            "DIFFERENCES names {label:?}, which the table lacks"
        );
    }
}
