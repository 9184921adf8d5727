//! The `status` subresource: which kinds have one, and what a write of the
//! object or of its status keeps of the stored object, as kube-apiserver
//! 1.20's strategies do (`PrepareForUpdate` of each kind's strategy and
//! status strategy in `pkg/registry/.../strategy.go`, kube-aggregator's
//! for APIServices, apiextensions-apiserver's for CRDs and custom
//! resources). Checked against the 1.20 test control plane: a merge
//! patch of `/status` changing labels, annotations, finalizers, `spec`
//! and `status` of each kind, and a write of the object changing `status`.
//!
//! - A write of `/status` takes `status` from the request and keeps the
//!   stored `spec`; of metadata, what the kind's status strategy resets:
//!   a Deployment its labels, a Pod its owner references and deletion
//!   time, a CRD its labels, annotations and owner references, an
//!   APIService and a custom resource all of it; other kinds take
//!   labels, annotations and finalizers from the request.
//! - A write of the object keeps the stored `status` for a kind with the
//!   subresource; a create starts it afresh (a Pod `Pending`, a Namespace
//!   `Active`, a custom resource without one). A kind without it (a
//!   ConfigMap, a custom resource whose CRD does not declare it) writes
//!   `status` like any field, and its `/status` path answers 404.

use serde_json::json;

use crate::model::fields::Fields;
use crate::model::{KindInfo, Object};
use crate::sim::Sim;

/// The group of CustomResourceDefinitions.
const APIEXTENSIONS: &str = "apiextensions.k8s.io";

/// Whether `kind` has a `status` subresource: the built-in kinds whose
/// registry serves `.../status`, and a custom resource whose CRD (in the
/// store) declares `subresources.status` for the served version.
#[must_use]
pub fn has_status(sim: &Sim, kind: &KindInfo) -> bool {
    match builtin_has_status(kind) {
        Some(has) => has,
        None => crd_declares(sim, kind, "status"),
    }
}

/// `Some(has it)` for a kind kube-apiserver itself serves, `None` for one
/// a CRD (or the scenario) defines.
fn builtin_has_status(kind: &KindInfo) -> Option<bool> {
    let k = kind.kind.as_str();
    let has = match kind.group.as_str() {
        "" => matches!(
            k,
            "Pod"
                | "Node"
                | "Namespace"
                | "PersistentVolume"
                | "PersistentVolumeClaim"
                | "Service"
                | "ReplicationController"
                | "ResourceQuota"
        ),
        "apps" => matches!(k, "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"),
        "batch" => matches!(k, "Job" | "CronJob"),
        APIEXTENSIONS => k == "CustomResourceDefinition",
        "apiregistration.k8s.io" => k == "APIService",
        "policy" => k == "PodDisruptionBudget",
        "autoscaling" => k == "HorizontalPodAutoscaler",
        "networking.k8s.io" => matches!(k, "Ingress" | "ServiceCIDR"),
        "storage.k8s.io" => k == "VolumeAttachment",
        "certificates.k8s.io" => k == "CertificateSigningRequest",
        "resource.k8s.io" => k == "ResourceClaim",
        // CRDs on a real cluster: what the stored CRD says.
        "snapshot.storage.k8s.io" => return None,
        "flowcontrol.apiserver.k8s.io" => matches!(k, "FlowSchema" | "PriorityLevelConfiguration"),
        _ if crate::model::KindTable::is_builtin(&kind.group, k) => false,
        _ => return None,
    };
    Some(has)
}

/// Whether a PUT without a resource version is taken: not for a custom
/// resource (apiextensions' `customResourceStrategy`).
#[must_use]
pub fn unconditional_update(kind: &KindInfo) -> bool {
    builtin_has_status(kind).is_some()
}

/// Whether the stored CRD of `kind` declares the subresource `sub`
/// (`status`, `scale`) for the version served
/// (`spec.versions[].subresources` in `apiextensions.k8s.io/v1`,
/// `spec.subresources` in v1beta1).
#[must_use]
pub fn crd_declares(sim: &Sim, kind: &KindInfo, sub: &str) -> bool {
    super::versions::crd(sim, kind)
        .is_some_and(|crd| crate::sim::api::generation::crd_declares(crd, &kind.version, sub))
}

/// What a PUT or PATCH writes: the object, or its status subresource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Object,
    /// `/status`, of a kind that has it ([`has_status`]).
    Status,
}

/// `obj`'s status as the API server keeps it on a create of a kind with
/// the subresource.
pub fn on_create(sim: &Sim, kind: &KindInfo, obj: &mut Object) {
    if !has_status(sim, kind) {
        return;
    }
    let builtin = builtin_has_status(kind).is_some();
    obj.status = match kind.kind.as_str() {
        "Pod" if kind.group.is_empty() => json!({"phase": "Pending"}).into(),
        "Namespace" if kind.group.is_empty() => json!({"phase": "Active"}).into(),
        // A PersistentVolume and a claim start Pending (their strategies'
        // PrepareForCreate).
        "PersistentVolume" | "PersistentVolumeClaim" if kind.group.is_empty() => {
            json!({"phase": "Pending"}).into()
        }
        _ if builtin => Fields::default(),
        // A custom resource: dropped.
        _ => Fields::default(),
    };
}

/// What a write of `part` keeps of the stored object `old` in `new`.
pub fn keep(sim: &Sim, part: Part, kind: &KindInfo, new: &mut Object, old: &Object) {
    match part {
        Part::Object => {
            if has_status(sim, kind) {
                new.status = old.status.clone();
            }
        }
        Part::Status => status_write(kind, new, old),
    }
}

/// A write of `/status`: the request's status over the stored object, as
/// the kind's status strategy leaves it.
fn status_write(kind: &KindInfo, new: &mut Object, old: &Object) {
    new.spec = old.spec.clone();
    new.metadata.deletion_timestamp = old.metadata.deletion_timestamp;
    let m = &mut new.metadata;
    let o = &old.metadata;
    match (kind.group.as_str(), kind.kind.as_str()) {
        // podStatusStrategy.
        ("", "Pod") => m.owner_references.clone_from(&o.owner_references),
        // deploymentStatusStrategy.
        ("apps", "Deployment") => m.labels.clone_from(&o.labels),
        // apiextensions' statusStrategy: finalizers are the request's.
        (APIEXTENSIONS, "CustomResourceDefinition") => {
            m.labels.clone_from(&o.labels);
            m.annotations.clone_from(&o.annotations);
            m.owner_references.clone_from(&o.owner_references);
        }
        // kube-aggregator's apiServerStatusStrategy keeps the whole
        // ObjectMeta, as does a custom resource's statusStrategy (the old
        // object with the new status).
        ("apiregistration.k8s.io", "APIService") => keep_metadata(new, old),
        _ if builtin_has_status(kind).is_none() => keep_metadata(new, old),
        _ => {}
    }
}

/// Every stored metadata field but the resource version (a precondition).
fn keep_metadata(new: &mut Object, old: &Object) {
    let rv = new.metadata.resource_version.take();
    new.metadata = old.metadata.clone();
    new.metadata.resource_version = rv;
    new.extra.clone_from(&old.extra);
}

#[cfg(test)]
mod tests {
    use super::super::Request;
    use super::super::tests::{send, served};
    use super::*;
    use crate::model::KindTable;
    use serde_json::Value;

    fn kind(group: &str, k: &str) -> KindInfo {
        KindTable::builtin()
            .iter()
            .find(|i| i.group == group && i.kind == k)
            .cloned()
            .unwrap_or_else(|| panic!("{group}/{k}"))
    }

    #[test]
    fn builtin_kinds_with_and_without_status() {
        for (g, k) in [
            ("apps", "Deployment"),
            ("apps", "DaemonSet"),
            ("batch", "CronJob"),
            ("", "Node"),
            ("", "PersistentVolume"),
            ("", "Service"),
            (APIEXTENSIONS, "CustomResourceDefinition"),
        ] {
            assert_eq!(builtin_has_status(&kind(g, k)), Some(true), "{g}/{k}");
        }
        for (g, k) in [
            ("", "ConfigMap"),
            ("", "Secret"),
            ("apps", "ControllerRevision"),
            ("rbac.authorization.k8s.io", "Role"),
            ("coordination.k8s.io", "Lease"),
        ] {
            assert_eq!(builtin_has_status(&kind(g, k)), Some(false), "{g}/{k}");
        }
        let mut cr = kind("apps", "Deployment");
        cr.group = "example.com".into();
        cr.kind = "Widget".into();
        assert_eq!(builtin_has_status(&cr), None);
    }

    fn request(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
        Request {
            content_type: content_type.into(),
            body: body.to_string().into_bytes(),
            ..Request::new(method, path)
        }
    }

    const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";
    const MERGE: &str = "application/merge-patch+json";

    #[test]
    fn status_writes_through_the_served_api() {
        let mut s = served();
        let before = send(&mut s, &Request::new("GET", DEPLOY)).value();
        let change = json!({"metadata": {"labels": {"b": "2"}, "annotations": {"b": "2"}},
                            "spec": {"replicas": 9}, "status": {"readyReplicas": 7}});
        let r = send(
            &mut s,
            &request("PATCH", &format!("{DEPLOY}/status"), MERGE, &change),
        );
        assert_eq!(r.code, 200, "{:?}", r.value());
        let after = send(&mut s, &Request::new("GET", DEPLOY)).value();
        assert_eq!(after["status"]["readyReplicas"], 7);
        assert_eq!(after["spec"]["replicas"], before["spec"]["replicas"]);
        assert_eq!(after["metadata"]["labels"], before["metadata"]["labels"]);
        assert_eq!(after["metadata"]["annotations"]["b"], "2");
        // A write of the object keeps the stored status.
        let r = send(
            &mut s,
            &request(
                "PATCH",
                DEPLOY,
                MERGE,
                &json!({"status": {"readyReplicas": 1}}),
            ),
        );
        assert_eq!(r.code, 200);
        assert_eq!(r.value()["status"]["readyReplicas"], 7);
        // A kind without the subresource: 404; a method it does not take: 405.
        let cm = "/api/v1/namespaces/shop/configmaps";
        let made = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        assert_eq!(
            send(&mut s, &request("POST", cm, "application/json", &made)).code,
            201
        );
        let r = send(&mut s, &Request::new("GET", &format!("{cm}/c/status")));
        assert_eq!(r.code, 404);
        assert_eq!(
            r.value()["message"],
            "the server could not find the requested resource"
        );
        let r = send(&mut s, &Request::new("POST", &format!("{DEPLOY}/status")));
        assert_eq!(r.code, 405);
    }

    #[test]
    fn a_custom_resource_has_status_when_its_crd_says_so() {
        let mut s = served();
        let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        for (plural, kind, sub) in [("widgets", "Widget", true), ("gadgets", "Gadget", false)] {
            let mut version = json!({"name": "v1", "served": true, "storage": true});
            if sub {
                version["subresources"] = json!({"status": {}});
            }
            let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("{plural}.ex.com")},
                "spec": {"group": "ex.com", "scope": "Namespaced", "versions": [version],
                         "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind}}});
            let r = send(&mut s, &request("POST", crds, "application/json", &crd));
            assert_eq!(r.code, 201, "{:?}", r.value());
            let cr = json!({"apiVersion": "ex.com/v1", "kind": kind, "metadata": {"name": "x"},
                            "status": {"phase": "A"}});
            let path = format!("/apis/ex.com/v1/namespaces/shop/{plural}");
            let r = send(&mut s, &request("POST", &path, "application/json", &cr));
            assert_eq!(r.code, 201, "{:?}", r.value());
            // Dropped on create with the subresource, kept without it.
            let created = r.value()["status"]["phase"].clone();
            assert_eq!(
                created,
                if sub { Value::Null } else { json!("A") },
                "{plural}"
            );
            let status = format!("{path}/x/status");
            let r = send(
                &mut s,
                &request(
                    "PATCH",
                    &status,
                    MERGE,
                    &json!({"metadata": {"labels": {"b": "2"}}, "status": {"phase": "B"}}),
                ),
            );
            if !sub {
                assert_eq!(r.code, 404);
                assert_eq!(r.value()["message"], "gadgets.ex.com \"x\" not found");
                continue;
            }
            assert_eq!(r.code, 200, "{:?}", r.value());
            // Only the status: a custom resource's metadata is kept whole.
            assert_eq!(r.value()["status"]["phase"], "B");
            assert!(r.value()["metadata"]["labels"].is_null());
            let r = send(
                &mut s,
                &request(
                    "PATCH",
                    &format!("{path}/x"),
                    MERGE,
                    &json!({"status": {"phase": "C"}}),
                ),
            );
            assert_eq!(r.value()["status"]["phase"], "B");
            // No PUT without a resource version.
            let r = send(
                &mut s,
                &request("PUT", &format!("{path}/x"), "application/json", &cr),
            );
            assert_eq!(r.code, 422, "{:?}", r.value());
        }
    }

    fn obj(labels: &[(&str, &str)], spec: Value, status: Value) -> Object {
        let mut o: Object = serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "n", "finalizers": ["a/b"],
                         "annotations": {"x": "1"}},
            "spec": spec, "status": status,
        }))
        .expect("an object");
        for (k, v) in labels {
            o.metadata.labels.insert((*k).into(), (*v).into());
        }
        o
    }

    #[test]
    fn a_status_write_keeps_spec_and_what_the_strategy_resets() {
        let old = obj(
            &[("a", "1")],
            json!({"replicas": 1}),
            json!({"readyReplicas": 0}),
        );
        let mut new = obj(
            &[("b", "2")],
            json!({"replicas": 5}),
            json!({"readyReplicas": 3}),
        );
        new.metadata.finalizers.clear();
        let deploy = kind("apps", "Deployment");
        status_write(&deploy, &mut new, &old);
        assert_eq!(new.spec["replicas"], 1);
        assert_eq!(new.status["readyReplicas"], 3);
        // deploymentStatusStrategy keeps the labels; finalizers are the
        // request's.
        assert_eq!(new.metadata.labels, old.metadata.labels);
        assert!(new.metadata.finalizers.is_empty());

        let mut new = obj(
            &[("b", "2")],
            json!({"replicas": 5}),
            json!({"readyReplicas": 3}),
        );
        status_write(&kind("apps", "ReplicaSet"), &mut new, &old);
        assert_eq!(new.metadata.labels.get("b").map(String::as_str), Some("2"));
        assert_eq!(new.spec["replicas"], 1);

        // A custom resource keeps all of its metadata.
        let mut cr = deploy.clone();
        cr.group = "example.com".into();
        cr.kind = "Widget".into();
        let mut new = obj(&[("b", "2")], json!({}), json!({"phase": "B"}));
        new.metadata.resource_version = Some("9".into());
        new.metadata.finalizers.clear();
        status_write(&cr, &mut new, &old);
        assert_eq!(new.metadata.labels, old.metadata.labels);
        assert_eq!(new.metadata.finalizers, old.metadata.finalizers);
        assert_eq!(new.metadata.resource_version.as_deref(), Some("9"));
        assert_eq!(new.status["phase"], "B");
    }
}
