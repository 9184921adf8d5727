//! `metadata.generation` after each kind of change, the value compared
//! with the control plane's: a custom resource with the status
//! subresource (`widgets`, made by [`super::status`]) and one without
//! (`gadgets`), and both webhook configurations. 1.20 raises a custom
//! resource's on any change but metadata (its status aside when the CRD
//! has the subresource), a webhook configuration's on a change of its
//! webhooks.

use serde_json::json;

use super::{JSON, Row, probing, row, with};

const MERGE: &str = "application/merge-patch+json";
const GENERATION: &[&str] = &["/metadata/generation"];

/// Rows to run while `widgets/w` and `gadgets/g` exist.
pub(crate) fn rows() -> Vec<Row> {
    let change =
        |label, path, patch| probing(with(row(label, "PATCH", path), MERGE, patch), GENERATION);
    let widget = "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w";
    let gadget = "/apis/{ns}.example.com/v1/namespaces/{ns}/gadgets/g";
    let mut rows = vec![
        change(
            "generation: cr label",
            widget,
            json!({"metadata": {"labels": {"g": "1"}}}),
        ),
        change("generation: cr spec", widget, json!({"spec": {"a": 1}})),
        change(
            "generation: cr other field",
            widget,
            json!({"data": {"b": 1}}),
        ),
        change(
            "generation: cr status kept",
            widget,
            json!({"status": {"phase": "C"}}),
        ),
        change(
            "generation: cr status write",
            "/apis/{ns}.example.com/v1/namespaces/{ns}/widgets/w/status",
            json!({"status": {"phase": "D"}}),
        ),
        change(
            "generation: cr no subresource, label",
            gadget,
            json!({"metadata": {"labels": {"g": "1"}}}),
        ),
        change(
            "generation: cr no subresource, spec",
            gadget,
            json!({"spec": {"a": 1}}),
        ),
        change(
            "generation: cr no subresource, other field",
            gadget,
            json!({"data": {"b": 1}}),
        ),
        change(
            "generation: cr no subresource, status",
            gadget,
            json!({"status": {"phase": "C"}}),
        ),
    ];
    let webhooks = |timeout: i64| {
        json!([{"name": "a.{ns}.example.com",
            "clientConfig": {"url": "https://127.0.0.1:1/x"},
            "rules": [{"operations": ["CREATE"], "apiGroups": ["{ns}.example.com"],
                       "apiVersions": ["v1"], "resources": ["nothings"]}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], "failurePolicy": "Ignore",
            "timeoutSeconds": timeout}])
    };
    for (collection, one, kind) in [
        (
            "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
            "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/{ns}-gen",
            "ValidatingWebhookConfiguration",
        ),
        (
            "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
            "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/{ns}-gen",
            "MutatingWebhookConfiguration",
        ),
    ] {
        let body = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": "{ns}-gen"}, "webhooks": webhooks(10)});
        rows.extend([
            probing(
                with(
                    row("generation: webhooks create", "POST", collection),
                    JSON,
                    body,
                ),
                GENERATION,
            ),
            change(
                "generation: webhooks label",
                one,
                json!({"metadata": {"labels": {"g": "1"}}}),
            ),
            change(
                "generation: webhooks timeout",
                one,
                json!({"webhooks": webhooks(5)}),
            ),
            change(
                "generation: webhooks the same",
                one,
                json!({"webhooks": webhooks(5)}),
            ),
            row("generation: webhooks delete", "DELETE", one),
        ]);
    }
    rows
}
