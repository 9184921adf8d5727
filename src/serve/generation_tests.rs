//! `metadata.generation` through serve, change by change, against what
//! the 1.20 test control plane answered the same requests (merge patches
//! of a custom resource whose CRD declares the status subresource and of
//! one whose CRD does not, and of both webhook configurations).

use serde_json::{Value, json};

use super::Request;
use super::state::Served;
use super::tests::{send, served};

fn request(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
    Request {
        content_type: content_type.into(),
        body: serde_json::to_vec(body).expect("json"),
        ..Request::new(method, path)
    }
}

/// PATCHes `path` with `patch` (a merge patch): the generation after.
fn patched(s: &mut Served, path: &str, patch: &Value) -> i64 {
    let r = send(
        s,
        &request("PATCH", path, "application/merge-patch+json", patch),
    );
    assert_eq!(r.code, 200, "{path} {patch}: {:?}", r.value());
    let v = r.value();
    // A write of `/status` answers the object, generation included.
    v["metadata"]["generation"].as_i64().expect("generation")
}

fn created(s: &mut Served, path: &str, body: &Value) -> i64 {
    let r = send(s, &request("POST", path, "application/json", body));
    assert_eq!(r.code, 201, "{path}: {:?}", r.value());
    r.value()["metadata"]["generation"]
        .as_i64()
        .expect("generation")
}

fn crd(plural: &str, kind: &str, status: bool) -> Value {
    let mut version = json!({"name": "v1", "served": true, "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
    if status {
        version["subresources"] = json!({"status": {}});
    }
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.sg.example.com")},
        "spec": {"group": "sg.example.com", "scope": "Namespaced", "versions": [version],
                 "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind}}})
}

/// (what changes, the merge patch, whether the generation rises) for a
/// custom resource whose CRD declares `subresources.status` or not.
fn custom_resource_table(status: bool) -> Vec<(&'static str, Value, bool)> {
    vec![
        (
            "a label",
            json!({"metadata": {"labels": {"l": "1"}}}),
            false,
        ),
        (
            "an annotation",
            json!({"metadata": {"annotations": {"a": "1"}}}),
            false,
        ),
        (
            "a finalizer",
            json!({"metadata": {"finalizers": ["a/b"]}}),
            false,
        ),
        ("spec", json!({"spec": {"a": 2}}), true),
        ("another top-level field", json!({"data": {"b": 2}}), true),
        // With the subresource a write of the object keeps the stored
        // status: nothing changes, nothing rises.
        (
            "status, through the object",
            json!({"status": {"c": 2}}),
            !status,
        ),
        ("the same again", json!({"data": {"b": 2}}), false),
    ]
}

#[test]
fn a_custom_resource_raises_its_generation_on_any_change_but_metadata() {
    let mut s = served();
    for (plural, kind, status) in [("plains", "Plain", false), ("stats", "Stat", true)] {
        let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        created(&mut s, crds, &crd(plural, kind, status));
        let path = format!("/apis/sg.example.com/v1/namespaces/shop/{plural}");
        let body = json!({"apiVersion": "sg.example.com/v1", "kind": kind,
            "metadata": {"name": "x"}, "spec": {"a": 1}, "data": {"b": 1}});
        let mut generation = created(&mut s, &path, &body);
        assert_eq!(generation, 1);
        let one = format!("{path}/x");
        for (what, patch, rises) in custom_resource_table(status) {
            let after = patched(&mut s, &one, &patch);
            let want = generation + i64::from(rises);
            assert_eq!(after, want, "{kind} (status subresource: {status}): {what}");
            generation = after;
        }
        if status {
            let after = patched(
                &mut s,
                &format!("{one}/status"),
                &json!({"status": {"c": 3}}),
            );
            assert_eq!(after, generation, "{kind}: a write of /status");
        }
    }
}

#[test]
fn a_webhook_configuration_raises_its_generation_on_a_change_of_its_webhooks() {
    let mut s = served();
    for (plural, kind) in [
        (
            "validatingwebhookconfigurations",
            "ValidatingWebhookConfiguration",
        ),
        (
            "mutatingwebhookconfigurations",
            "MutatingWebhookConfiguration",
        ),
    ] {
        let path = format!("/apis/admissionregistration.k8s.io/v1/{plural}");
        let webhook = |timeout: Option<i64>| {
            let mut w = json!({"name": "a.sg.example.com",
                "clientConfig": {"url": "https://127.0.0.1:1/x"},
                "rules": [{"operations": ["CREATE"], "apiGroups": ["sg.example.com"],
                           "apiVersions": ["v1"], "resources": ["nothings"]}],
                "sideEffects": "None", "admissionReviewVersions": ["v1"], "failurePolicy": "Ignore"});
            if let Some(t) = timeout {
                w["timeoutSeconds"] = json!(t);
            }
            json!([w])
        };
        let body = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": "sg-x"}, "webhooks": webhook(None)});
        assert_eq!(created(&mut s, &path, &body), 1);
        let one = format!("{path}/sg-x");
        let table = [
            ("a label", json!({"metadata": {"labels": {"l": "1"}}}), 1),
            (
                "a webhook's timeout",
                json!({"webhooks": webhook(Some(5))}),
                2,
            ),
            (
                "the same webhooks",
                json!({"webhooks": webhook(Some(5))}),
                2,
            ),
            (
                "a finalizer",
                json!({"metadata": {"finalizers": ["a/b"]}}),
                2,
            ),
        ];
        for (what, patch, want) in table {
            assert_eq!(patched(&mut s, &one, &patch), want, "{kind}: {what}");
        }
    }
}
