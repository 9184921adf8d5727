//! The rows of the conformance table about fields the simulator does not
//! keep itself: a ConfigMap's `data` and `binaryData`, a Secret's `data`,
//! `stringData` and `type`, a Deployment's whole pod template. What a
//! client wrote is what it reads back, as from kube-apiserver, and the
//! same writes are refused.

use super::*;

fn configmap(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

fn secret(name: &str, fields: Value) -> Value {
    let mut s = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}});
    if let (Some(m), Value::Object(f)) = (s.as_object_mut(), fields) {
        m.extend(f);
    }
    s
}

/// A Deployment with a pod template that names more than the simulator
/// keeps (environment, ports, DNS policy, annotations) and a strategy; its
/// port names no protocol (the API server defaults it to TCP).
fn full_deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "full"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "full"}},
                 "strategy": {"type": "Recreate"},
                 "template": {
                     "metadata": {"labels": {"app": "full"}, "annotations": {"note": "kept"}},
                     "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                              "env": [{"name": "A", "value": "1"}],
                                              "ports": [{"containerPort": 80}]}],
                              "dnsPolicy": "Default"}}}})
}

const DEPLOYMENT_PROBES: &[&str] = &[
    "/spec/strategy",
    "/spec/template/metadata",
    "/spec/template/spec/containers/0/env",
    "/spec/template/spec/containers/0/ports",
    "/spec/template/spec/dnsPolicy",
    // What kube-apiserver defaults, in a write's answer as in a GET.
    "/spec/template/spec/restartPolicy",
    "/spec/template/spec/containers/0/imagePullPolicy",
    "/spec/template/spec/containers/0/terminationMessagePath",
    "/spec/revisionHistoryLimit",
    "/spec/progressDeadlineSeconds",
    "/spec/replicas",
];

const CMS: &str = "/api/v1/namespaces/{ns}/configmaps";
const SECRETS: &str = "/api/v1/namespaces/{ns}/secrets";

pub fn rows() -> Vec<Row> {
    vec![
        probing(
            with(
                row("configmap with data", "POST", CMS),
                JSON,
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "with-data"},
                       "data": {"a": "b", "k.conf": "x=1\n"}, "binaryData": {"bin": "AAE="},
                       "immutable": false}),
            ),
            &["/data", "/binaryData", "/immutable"],
        ),
        probing(
            row(
                "configmap with data, read",
                "GET",
                "/api/v1/namespaces/{ns}/configmaps/with-data",
            ),
            &["/data", "/binaryData", "/immutable"],
        ),
        probing(
            with(
                row(
                    "configmap data, merge patch",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/with-data?fieldManager=m",
                ),
                "application/merge-patch+json",
                json!({"data": {"a": null, "c": "d"}}),
            ),
            &["/data", "/metadata/managedFields"],
        ),
        probing(
            with(
                row("configmap, bad data key", "POST", CMS),
                JSON,
                configmap("bad-key", json!({"a b": "1"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("configmap, data key '..'", "POST", CMS),
                JSON,
                configmap("dots", json!({"..": "1"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("configmap, data key 254 characters", "POST", CMS),
                JSON,
                configmap("long-key", json!({"k".repeat(254): "1"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("configmap, a key in data and binaryData", "POST", CMS),
                JSON,
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dup"},
                       "data": {"k": "1"}, "binaryData": {"k": "AAE="}}),
            ),
            &["/message", "/details/causes"],
        ),
        with(
            row("configmap, binaryData not base64", "POST", CMS),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not-b64"},
                   "binaryData": {"k": "not base64!"}}),
        ),
        probing(
            with(
                row("secret with stringData", "POST", SECRETS),
                JSON,
                secret(
                    "s",
                    json!({"stringData": {"x": "hello"}, "data": {"x": "b2xk", "y": "b2xk"}}),
                ),
            ),
            &["/data", "/stringData", "/type"],
        ),
        probing(
            row(
                "secret with stringData, read",
                "GET",
                "/api/v1/namespaces/{ns}/secrets/s",
            ),
            &["/data", "/stringData", "/type"],
        ),
        probing(
            with(
                row(
                    "secret stringData, merge patch",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/secrets/s",
                ),
                "application/merge-patch+json",
                json!({"stringData": {"z": "new"}}),
            ),
            &["/data", "/stringData", "/type"],
        ),
        probing(
            with(
                row("secret of a type", "POST", SECRETS),
                JSON,
                secret(
                    "typed",
                    json!({"type": "example.com/kind", "data": {"k": "AAE="}}),
                ),
            ),
            &["/data", "/type"],
        ),
        probing(
            with(
                row("secret, bad stringData key", "POST", SECRETS),
                JSON,
                secret("bad-key", json!({"stringData": {"a/b": "x"}})),
            ),
            &["/message", "/details/causes"],
        ),
        with(
            row("secret, data not base64", "POST", SECRETS),
            JSON,
            secret("not-b64", json!({"data": {"k": "not base64!"}})),
        ),
        probing(
            with(
                row("secret, a service account token unnamed", "POST", SECRETS),
                JSON,
                secret("sa", json!({"type": "kubernetes.io/service-account-token"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, a docker config without it", "POST", SECRETS),
                JSON,
                secret("dc", json!({"type": "kubernetes.io/dockerconfigjson"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, a docker config not JSON", "POST", SECRETS),
                JSON,
                secret(
                    "dc",
                    json!({"type": "kubernetes.io/dockerconfigjson",
                           "stringData": {".dockerconfigjson": "not json"}}),
                ),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, a docker config", "POST", SECRETS),
                JSON,
                secret(
                    "dc",
                    json!({"type": "kubernetes.io/dockerconfigjson",
                           "stringData": {".dockerconfigjson": "{\"auths\":{}}"}}),
                ),
            ),
            &["/type", "/data"],
        ),
        probing(
            with(
                row("secret, tls without its key", "POST", SECRETS),
                JSON,
                secret(
                    "tls",
                    json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "YQ=="}}),
                ),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, basic auth with neither", "POST", SECRETS),
                JSON,
                secret("ba", json!({"type": "kubernetes.io/basic-auth"})),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, ssh auth without a key", "POST", SECRETS),
                JSON,
                secret(
                    "ssh",
                    json!({"type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": ""}}),
                ),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row("secret, tls whole", "POST", SECRETS),
                JSON,
                secret(
                    "tls",
                    json!({"type": "kubernetes.io/tls", "data": {"tls.crt": "YQ==", "tls.key": "Yg=="}}),
                ),
            ),
            &["/type", "/data"],
        ),
        probing(
            with(
                row(
                    "secret, tls, its key taken out",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/secrets/tls",
                ),
                "application/merge-patch+json",
                json!({"data": {"tls.key": null}}),
            ),
            &["/message", "/details/causes"],
        ),
        with(
            row("immutable configmap", "POST", CMS),
            JSON,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "frozen"},
                   "data": {"a": "b"}, "immutable": true}),
        ),
        probing(
            with(
                row(
                    "immutable configmap, data changed",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/frozen",
                ),
                "application/merge-patch+json",
                json!({"data": {"a": "c"}, "immutable": false}),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "immutable configmap, labels changed",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/frozen",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"l": "1"}}}),
            ),
            &["/data", "/immutable", "/metadata/labels"],
        ),
        probing(
            with(
                row(
                    "secret, type changed",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/secrets/s",
                ),
                "application/merge-patch+json",
                json!({"type": "example.com/other"}),
            ),
            &["/message", "/details/causes"],
        ),
        probing(
            with(
                row(
                    "deployment with a full pod template",
                    "POST",
                    "/apis/apps/v1/namespaces/{ns}/deployments",
                ),
                JSON,
                full_deployment(),
            ),
            DEPLOYMENT_PROBES,
        ),
        probing(
            with(
                row(
                    "service, defaulted in the answer",
                    "POST",
                    "/api/v1/namespaces/{ns}/services",
                ),
                JSON,
                json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                       "spec": {"selector": {"app": "full"}, "ports": [{"port": 80}]}}),
            ),
            &["/spec/type", "/spec/sessionAffinity", "/spec/ports"],
        ),
        probing(
            row(
                "deployment with a full pod template, read",
                "GET",
                "/apis/apps/v1/namespaces/{ns}/deployments/full",
            ),
            DEPLOYMENT_PROBES,
        ),
        probing(
            with(
                row(
                    "deployment, a template's env changed",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/merge-patch+json",
                json!({"spec": {"template": {"spec": {"containers": [
                    {"name": "c", "image": "busybox:1.36", "env": [{"name": "A", "value": "2"}]}]}}}}),
            ),
            &[
                "/metadata/generation",
                "/spec/template/spec/containers/0/env",
            ],
        ),
        probing(
            with(
                row(
                    "deployment, a label changed",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"l": "1"}}}),
            ),
            &["/metadata/generation"],
        ),
        probing(
            with(
                row(
                    "deployment, an annotation changed",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/merge-patch+json",
                json!({"metadata": {"annotations": {"a": "1"}}}),
            ),
            &["/metadata/generation"],
        ),
        probing(
            with(
                row(
                    "deployment, json patch tests the server's defaults",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/json-patch+json",
                json!([{"op": "test", "path": "/spec/template/spec/restartPolicy", "value": "Always"},
                       {"op": "test", "path": "/spec/revisionHistoryLimit", "value": 10},
                       {"op": "test", "path": "/spec/template/spec/containers/0/imagePullPolicy",
                        "value": "IfNotPresent"}]),
            ),
            &["/metadata/generation"],
        ),
        probing(
            with(
                row(
                    "deployment, json patch replaces a default",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/json-patch+json",
                json!([{"op": "replace", "path": "/spec/template/spec/containers/0/imagePullPolicy",
                        "value": "Never"},
                       {"op": "add", "path": "/spec/template/spec/securityContext/runAsUser",
                        "value": 1000}]),
            ),
            &[
                "/metadata/generation",
                "/spec/template/spec/containers/0/imagePullPolicy",
                "/spec/template/spec/securityContext",
                "/spec/template/spec/dnsPolicy",
            ],
        ),
        probing(
            with(
                row(
                    "deployment, json patch test of a default that does not hold",
                    "PATCH",
                    "/apis/apps/v1/namespaces/{ns}/deployments/full",
                ),
                "application/json-patch+json",
                json!([{"op": "test", "path": "/spec/progressDeadlineSeconds", "value": 60}]),
            ),
            &[],
        ),
        probing(
            with(
                row(
                    "configmap data changed, its generation",
                    "PATCH",
                    "/api/v1/namespaces/{ns}/configmaps/with-data",
                ),
                "application/merge-patch+json",
                json!({"data": {"c": "e"}}),
            ),
            &["/metadata/generation", "/data"],
        ),
        // A typed list's items carry no `kind` or `apiVersion`: the list
        // says them once.
        probing(
            row(
                "deployments, listed",
                "GET",
                "/apis/apps/v1/namespaces/{ns}/deployments",
            ),
            &[
                "/kind",
                "/apiVersion",
                "/items/0/kind",
                "/items/0/apiVersion",
                "/items/0/metadata/name",
            ],
        ),
    ]
}
