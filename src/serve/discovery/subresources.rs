//! The subresources discovery lists after their kind (`pods/status`,
//! `deployments/scale`, `namespaces/finalize`, ...), as kube-apiserver
//! 1.20 lists them in `/api/v1` and `/apis/G/V` (checked on the 1.20 test
//! control plane, `kubectl get --raw` of every group version, and a CRD
//! declaring `status` and `scale`).
//!
//! Rules:
//! - `status` for every kind that has one ([`has_status`]:
//!   the built-in kinds whose registry serves it, a custom resource whose
//!   CRD declares it for the version); `scale` for Deployments,
//!   ReplicaSets, StatefulSets, ReplicationControllers and a custom
//!   resource whose CRD declares it. Both with the verbs `get`, `patch`,
//!   `update`; `scale`'s kind is `autoscaling/v1` `Scale`, named in the
//!   entry's `group` and `version`, the others' kind is the resource's
//!   own with no `group` and `version`.
//! - The built-in kinds' others as 1.20 has them ([`OTHERS`]), listed
//!   whether serve answers them or not, as long as a client that reads
//!   discovery does the same with the entry as without it: `pods/log`,
//!   `exec`, `attach`, `portforward` answer as for a kubelet that cannot be
//!   reached, the `proxy` ones as for an address that cannot be reached,
//!   `namespaces/finalize` and a custom resource's `scale` as
//!   kube-apiserver, `pods/binding` and `serviceaccounts/token` a 405 that
//!   says serve does not serve them; kubectl (`auth can-i
//!   --subresource`, `scale`, `patch --subresource`), client-go's scale
//!   client and k9s send their requests and read the answer either way.
//! - `pods/eviction` is left out: `kubectl drain` reads discovery for it
//!   and evicts when it is listed, deletes when it is not; serve evaluates
//!   no PodDisruptionBudget, so the delete is what it can answer truly.
//!
//! Differences by version: 1.20 lists `pods/eviction` as `policy/v1beta1`
//! `Eviction` (1.22 and later `policy/v1`); later versions add
//! `pods/ephemeralcontainers` (1.23), `pods/resize` (1.33),
//! `servicecidrs/status` and `resourceclaims/status` with their kinds,
//! and aggregated discovery (1.26) carries the same entries as each
//! resource's `subresources`.

use serde_json::{Value, json};

use crate::model::{KindInfo, KindTable};
use crate::serve::status_subresource::{crd_declares, has_status};
use crate::serve::subresource::scalable;
use crate::sim::Sim;

const GET_PATCH_UPDATE: &[&str] = &["get", "patch", "update"];
const CREATE_GET: &[&str] = &["create", "get"];
const CREATE: &[&str] = &["create"];
const PROXY: &[&str] = &["create", "delete", "get", "patch", "update"];

/// One subresource of a kind, as discovery lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subresource {
    /// `status`, `scale`, `log`, ...
    pub name: &'static str,
    /// The kind its requests or answers carry; `None`: the resource's own.
    pub kind: Option<&'static str>,
    /// The group and version of that kind, when not the resource's.
    pub group_version: Option<(&'static str, &'static str)>,
    pub verbs: &'static [&'static str],
}

const fn sub(
    name: &'static str,
    kind: Option<&'static str>,
    verbs: &'static [&'static str],
) -> Subresource {
    Subresource {
        name,
        kind,
        group_version: None,
        verbs,
    }
}

/// `status`: the resource's own kind.
pub const STATUS: Subresource = sub("status", None, GET_PATCH_UPDATE);

/// `scale`: an `autoscaling/v1` `Scale`.
pub const SCALE: Subresource = Subresource {
    name: "scale",
    kind: Some("Scale"),
    group_version: Some(("autoscaling", "v1")),
    verbs: GET_PATCH_UPDATE,
};

/// The built-in kinds' subresources besides `status` and `scale`, as 1.20
/// lists them (core group, kind, subresource); `pods/eviction` is left
/// out (see the module's rules).
pub const OTHERS: &[(&str, &str, Subresource)] = &[
    ("", "Namespace", sub("finalize", None, &["update"])),
    ("", "Node", sub("proxy", Some("NodeProxyOptions"), PROXY)),
    (
        "",
        "Pod",
        sub("attach", Some("PodAttachOptions"), CREATE_GET),
    ),
    ("", "Pod", sub("binding", Some("Binding"), CREATE)),
    ("", "Pod", sub("exec", Some("PodExecOptions"), CREATE_GET)),
    ("", "Pod", sub("log", None, &["get"])),
    (
        "",
        "Pod",
        sub("portforward", Some("PodPortForwardOptions"), CREATE_GET),
    ),
    ("", "Pod", sub("proxy", Some("PodProxyOptions"), PROXY)),
    (
        "",
        "ServiceAccount",
        Subresource {
            name: "token",
            kind: Some("TokenRequest"),
            group_version: Some(("authentication.k8s.io", "v1")),
            verbs: CREATE,
        },
    ),
    (
        "",
        "Service",
        sub("proxy", Some("ServiceProxyOptions"), PROXY),
    ),
];

/// `kind`'s subresources, given whether it has `status` and `scale`: a
/// built-in kind's by name, a custom resource's `status` then `scale`, as
/// apiextensions-apiserver appends them.
#[must_use]
pub fn of(kind: &KindInfo, status: bool, scale: bool) -> Vec<Subresource> {
    let mut subs: Vec<Subresource> = OTHERS
        .iter()
        .filter(|(g, k, _)| *g == kind.group && *k == kind.kind)
        .map(|(_, _, s)| *s)
        .collect();
    subs.extend(status.then_some(STATUS));
    subs.extend(scale.then_some(SCALE));
    if KindTable::is_builtin(&kind.group, &kind.kind) {
        subs.sort_by_key(|s| s.name);
    }
    subs
}

/// A subresource's entry in `/api/v1` or `/apis/G/V`.
#[must_use]
pub fn entry(kind: &KindInfo, s: &Subresource) -> Value {
    let mut r = json!({
        "name": format!("{}/{}", kind.plural, s.name),
        "singularName": "",
        "namespaced": kind.namespaced,
    });
    if let Some((group, version)) = s.group_version {
        r["group"] = json!(group);
        r["version"] = json!(version);
    }
    r["kind"] = json!(s.kind.unwrap_or(&kind.kind));
    r["verbs"] = json!(s.verbs);
    r
}

/// A subresource in aggregated discovery (a resource's `subresources`):
/// the same facts, its kind as `responseKind` with the group and version
/// empty where the classic entry has none, as kube-apiserver converts it.
#[must_use]
pub fn aggregated(kind: &KindInfo, s: &Subresource) -> Value {
    let (group, version) = s.group_version.unwrap_or(("", ""));
    json!({
        "subresource": s.name,
        "responseKind": {"group": group, "version": version, "kind": s.kind.unwrap_or(&kind.kind)},
        "verbs": s.verbs,
    })
}

/// `kind`'s subresources as the store has them: its `status` as
/// [`has_status`] says, its `scale` a built-in scalable kind's or what
/// its CRD declares.
#[must_use]
pub fn listed(sim: &Sim, kind: &KindInfo) -> Vec<Subresource> {
    let scale = if KindTable::is_builtin(&kind.group, &kind.kind) {
        scalable(kind)
    } else {
        crd_declares(sim, kind, "scale")
    };
    of(kind, has_status(sim, kind), scale)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::serve::Request;
    use crate::serve::tests::{send, served};

    fn post(path: &str, body: &Value) -> Request {
        Request {
            content_type: "application/json".into(),
            body: serde_json::to_vec(body).expect("json"),
            ..Request::new("POST", path)
        }
    }

    fn names(doc: &Value) -> Vec<&str> {
        doc["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect()
    }

    // A CRD declaring `status` and `scale`, another `status` only, as the
    // 1.20 test control plane lists them: each custom resource followed by
    // its `status` then its `scale`, with apiextensions-apiserver's verbs.
    #[test]
    fn a_crds_subresources_follow_its_resource() {
        let mut s = served();
        let crd = |plural: &str, kind: &str, scope: &str, subs: Value| {
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": format!("{plural}.disco.example.com")},
                "spec": {"group": "disco.example.com", "scope": scope,
                    "names": {"plural": plural, "singular": kind.to_ascii_lowercase(), "kind": kind},
                    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": subs,
                        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})
        };
        let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
        let scaled = json!({"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}});
        for body in [
            crd("gizmos", "Gizmo", "Namespaced", scaled),
            crd("apples", "Apple", "Cluster", json!({"status": {}})),
        ] {
            assert_eq!(send(&mut s, &post(path, &body)).code, 201);
        }
        let doc = send(&mut s, &Request::new("GET", "/apis/disco.example.com/v1")).value();
        assert_eq!(
            names(&doc),
            [
                "apples",
                "apples/status",
                "gizmos",
                "gizmos/status",
                "gizmos/scale"
            ]
        );
        let r = &doc["resources"];
        assert_eq!(
            r[2]["verbs"],
            json!([
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "create",
                "update",
                "watch"
            ])
        );
        assert_eq!(
            r[1],
            json!({"name": "apples/status", "singularName": "", "namespaced": false, "kind": "Apple", "verbs": ["get", "patch", "update"]})
        );
        assert_eq!(
            r[4],
            json!({"name": "gizmos/scale", "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]})
        );
    }

    // Every subresource discovery lists is answered, never with the 404 of
    // a path not served: with what kube-apiserver answers, or a Status
    // that says what serve does not serve.
    #[test]
    fn every_listed_subresource_is_answered() {
        let mut s = served();
        let objects = [
            ("pods", "/api/v1/namespaces/shop/pods/web-7d9f8c6b5-4xk2p"),
            ("namespaces", "/api/v1/namespaces/shop"),
            ("nodes", "/api/v1/nodes/node-1"),
            (
                "deployments",
                "/apis/apps/v1/namespaces/shop/deployments/web",
            ),
            (
                "replicasets",
                "/apis/apps/v1/namespaces/shop/replicasets/web-7d9f8c6b5",
            ),
        ];
        for list in ["/api/v1", "/apis/apps/v1"] {
            let doc = send(&mut s, &Request::new("GET", list)).value();
            for r in doc["resources"].as_array().expect("resources") {
                let name = r["name"].as_str().expect("name");
                let Some((plural, sub)) = name.split_once('/') else {
                    continue;
                };
                let Some((_, object)) = objects.iter().find(|(p, _)| *p == plural) else {
                    continue;
                };
                let method = match r["verbs"][0].as_str() {
                    Some("create") => "POST",
                    Some("update") => "PUT",
                    _ => "GET",
                };
                let path = format!("{object}/{sub}");
                let mut req = Request::new(method, &path);
                req.content_type = "application/json".into();
                req.body = b"{}".to_vec();
                let resp = send(&mut s, &req);
                let v = resp.value();
                assert!(
                    v["message"] != "the server could not find the requested resource",
                    "{method} {path}: {v}"
                );
                assert!(resp.code != 404, "{method} {path}: {v}");
                if resp.code >= 400 {
                    assert_eq!(v["kind"], "Status", "{method} {path}");
                }
            }
        }
    }
}
