//! `metadata.generation`: which kinds kube-apiserver 1.20 gives one on
//! create, and which updates raise it (each strategy's `PrepareForCreate`
//! and `PrepareForUpdate`), as the test control plane (1.20.2) showed:
//!
//! | kind | raised by |
//! |---|---|
//! | most kinds with a generation | a change of `spec` |
//! | Deployment | the same, or of its annotations |
//! | custom resource, CRD without the status subresource | a change of anything but `metadata` (`spec`, `status`, any other top-level field) |
//! | custom resource, CRD with it | the same but `status` (kept from the stored object by a write of the object; a write of `/status` raises nothing) |
//! | Validating/MutatingWebhookConfiguration | a change of `webhooks` |
//!
//! Labels, annotations (but a Deployment's) and finalizers never raise
//! it; a graceful DELETE does (`BeforeDelete`, in `delete.rs`).

use serde_json::Value;

use super::{ApiServer, Key};
use crate::model::object::version_of;
use crate::model::{KindTable, Object, unkept};

/// Whether kube-apiserver 1.20 gives the kind `metadata.generation` 1 on
/// create (its strategy's `PrepareForCreate`): the workloads of `apps`
/// and the ReplicationController, Ingress, IngressClass, NetworkPolicy,
/// PodDisruptionBudget, the webhook configurations, the flow-control
/// kinds, CustomResourceDefinitions and every custom resource. A Pod, a
/// Job, a CronJob, a Service, a claim, a Namespace and the rest get none
/// (checked on the test control plane); a client's own is kept on those.
pub(super) fn tracks_generation(obj: &Object) -> bool {
    let (group, kind) = (obj.group(), obj.kind.as_str());
    if !crate::model::KindTable::is_builtin(group, kind) {
        return true;
    }
    matches!(
        (group, kind),
        (
            "apps",
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
        ) | (
            "extensions",
            "Deployment" | "ReplicaSet" | "DaemonSet" | "Ingress" | "NetworkPolicy"
        ) | ("", "ReplicationController")
            | (
                "networking.k8s.io",
                "Ingress" | "IngressClass" | "NetworkPolicy"
            )
            | ("policy", "PodDisruptionBudget")
            | ("apiextensions.k8s.io", "CustomResourceDefinition")
            | (
                "admissionregistration.k8s.io",
                "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
            )
            | (
                "flowcontrol.apiserver.k8s.io",
                "FlowSchema" | "PriorityLevelConfiguration"
            )
    )
}

/// Whether the stored CustomResourceDefinition `crd` declares the status
/// subresource for `version` (`spec.versions[].subresources.status` in
/// `apiextensions.k8s.io/v1`, `spec.subresources.status` in v1beta1).
#[must_use]
pub fn crd_declares_status(crd: &Object, version: &str) -> bool {
    crd_declares(crd, version, "status")
}

/// Whether the stored CustomResourceDefinition `crd` declares the
/// subresource `sub` (`status`, `scale`) for `version`, per version or
/// for all of them (v1beta1's `spec.subresources`).
#[must_use]
pub fn crd_declares(crd: &Object, version: &str, sub: &str) -> bool {
    let spec: &Value = &crd.spec;
    let per_version = spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == version)
        .and_then(|v| v["subresources"].get(sub));
    per_version
        .or_else(|| spec["subresources"].get(sub))
        .is_some_and(|s| !s.is_null())
}

/// `o`'s top-level fields but `metadata` (and `apiVersion`, `kind`), the
/// ones only `ownerscope serve` keeps merged in: what a custom resource's
/// strategy compares (`copyNonMetadata`).
fn content(o: &Object) -> Value {
    let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        for k in ["metadata", "apiVersion", "kind", "managedFields"] {
            m.remove(k);
        }
    }
    if let Some(mut rest) = unkept::of(o) {
        if let Some(m) = rest.as_object_mut() {
            m.remove("metadata");
        }
        unkept::merge(&mut v, &rest);
    }
    v
}

impl ApiServer {
    /// Whether the CRD of the custom resource `o` (in the store) declares
    /// the status subresource for `o`'s version.
    fn crd_has_status(&self, o: &Object) -> bool {
        let Some(plural) = self
            .kinds()
            .get(o.group(), &o.kind)
            .map(|k| k.plural.clone())
        else {
            return false;
        };
        let key = Key {
            group: "apiextensions.k8s.io".into(),
            kind: "CustomResourceDefinition".into(),
            namespace: None,
            name: format!("{plural}.{}", o.group()),
        };
        self.get(&key)
            .is_some_and(|crd| crd_declares_status(crd, version_of(&o.api_version)))
    }

    /// Whether the update of `old` to `new` raises `metadata.generation`
    /// (the table above). A Deployment's annotations count "because
    /// annotations are copied from deployments to their replica sets"
    /// (`pkg/registry/apps/deployment/strategy.go`).
    pub(super) fn raises_generation(&self, old: &Object, new: &Object) -> bool {
        let (group, kind) = (new.group(), new.kind.as_str());
        if !KindTable::is_builtin(group, kind) {
            let (mut a, mut b) = (content(old), content(new));
            if self.crd_has_status(new)
                && let (Some(a), Some(b)) = (a.as_object_mut(), b.as_object_mut())
            {
                a.remove("status");
                b.remove("status");
            }
            return a != b;
        }
        match (group, kind) {
            (
                "admissionregistration.k8s.io",
                "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
            ) => content(old).get("webhooks") != content(new).get("webhooks"),
            ("apps", "Deployment") => {
                new.spec_differs(old) || new.metadata.annotations != old.metadata.annotations
            }
            _ => new.spec_differs(old),
        }
    }
}
