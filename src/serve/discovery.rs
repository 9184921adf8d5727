//! Discovery: `/version`, the classic `/api`, `/apis`, `/apis/G`,
//! `/apis/G/V` documents, and aggregated discovery (1.26+, what kubectl and
//! kube-rs ask for first) built from the simulator's kind table.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::{KindInfo, KindTable};

/// Every verb served for every kind, in 1.20's order.
pub const VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// The group the access reviews live in (served for `kubectl auth can-i`
/// and the live backend's checks).
pub const AUTHZ: &str = "authorization.k8s.io";

/// `/version`.
#[must_use]
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0-ownerscope",
        "gitCommit": "ownerscope-simulator",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.24",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// group -> version -> kinds, the core group as `""`.
#[must_use]
pub fn groups(kinds: &KindTable) -> BTreeMap<String, BTreeMap<String, Vec<&KindInfo>>> {
    let mut g: BTreeMap<String, BTreeMap<String, Vec<&KindInfo>>> = BTreeMap::new();
    for k in kinds.iter() {
        g.entry(k.group.clone())
            .or_default()
            .entry(k.version.clone())
            .or_default()
            .push(k);
    }
    g.entry(AUTHZ.into())
        .or_default()
        .entry("v1".into())
        .or_default();
    g
}

/// The kind served at this group, version and plural.
#[must_use]
pub fn find<'a>(
    kinds: &'a KindTable,
    group: &str,
    version: &str,
    plural: &str,
) -> Option<&'a KindInfo> {
    kinds
        .iter()
        .find(|k| k.group == group && k.version == version && k.plural == plural)
}

/// The kinds `kubectl get all` shows (their `all` category upstream).
/// The kind's own categories (a CRD's), and `all` and `api-extensions`
/// for the kinds a real server puts in them.
fn categories(k: &KindInfo) -> Option<Value> {
    let all = matches!(
        (k.group.as_str(), k.kind.as_str()),
        ("", "Pod" | "Service" | "ReplicationController")
            | (
                "apps",
                "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
            )
            | ("batch", "Job" | "CronJob")
    );
    let extensions = matches!(
        (k.group.as_str(), k.kind.as_str()),
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration"
        ) | ("apiextensions.k8s.io", "CustomResourceDefinition")
    );
    let mut names = k.categories.clone();
    for (is, name) in [(all, "all"), (extensions, "api-extensions")] {
        if is && !names.iter().any(|c| c == name) {
            names.push(name.into());
        }
    }
    (!names.is_empty()).then(|| json!(names))
}

/// The group and version 1.20 stores a built-in kind in where they are
/// not those served (its `storageVersionHash` is of them).
fn stored_as(k: &KindInfo) -> (&str, &str) {
    match (k.group.as_str(), k.kind.as_str()) {
        ("events.k8s.io", "Event") => ("", "v1"),
        (
            g @ ("networking.k8s.io"
            | "storage.k8s.io"
            | "admissionregistration.k8s.io"
            | "apiextensions.k8s.io"
            | "coordination.k8s.io"),
            "Ingress"
            | "IngressClass"
            | "CSIDriver"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
            | "CustomResourceDefinition"
            | "Lease",
        ) => (g, "v1beta1"),
        _ => (&k.group, &k.version),
    }
}

/// `storageVersionHash`: the first 8 bytes of the SHA-256 of the stored
/// `group/version/kind`, base64, as kube-apiserver computes it.
fn storage_version_hash(k: &KindInfo) -> String {
    use base64::Engine as _;
    let (group, version) = stored_as(k);
    let gvk = format!("{group}/{version}/{}", k.kind);
    let sum = ring::digest::digest(&ring::digest::SHA256, gvk.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&sum.as_ref()[..8])
}

/// The verbs of a kind: all of [`VERBS`], but 1.20 serves no
/// `deletecollection` of namespaces and services.
fn verbs(k: &KindInfo) -> Vec<&'static str> {
    let no_collection = k.group.is_empty() && matches!(k.kind.as_str(), "Namespace" | "Service");
    VERBS
        .into_iter()
        .filter(|v| !(no_collection && *v == "deletecollection"))
        .collect()
}

/// A kind's entry in `/api/v1` or `/apis/G/V`, as 1.20 lists it: a
/// built-in kind's `singularName` empty (kubectl guesses the singular
/// from the kind), a custom resource's its singular.
fn resource(k: &KindInfo) -> Value {
    let builtin = KindTable::is_builtin(&k.group, &k.kind);
    let singular = if builtin {
        String::new()
    } else {
        k.kind.to_ascii_lowercase()
    };
    let mut r = json!({
        "name": k.plural,
        "singularName": singular,
        "namespaced": k.namespaced,
        "kind": k.kind,
        "verbs": verbs(k),
    });
    if !k.short_names.is_empty() {
        r["shortNames"] = json!(k.short_names);
    }
    if let Some(c) = categories(k) {
        r["categories"] = c;
    }
    r["storageVersionHash"] = json!(storage_version_hash(k));
    r
}

/// The access reviews served, as 1.20 lists them: (resource, kind,
/// namespaced).
pub const REVIEWS: &[(&str, &str, bool)] = &[
    (
        "localsubjectaccessreviews",
        "LocalSubjectAccessReview",
        true,
    ),
    ("selfsubjectaccessreviews", "SelfSubjectAccessReview", false),
    ("selfsubjectrulesreviews", "SelfSubjectRulesReview", false),
    ("subjectaccessreviews", "SubjectAccessReview", false),
];

/// Whether `group`'s `plural` is an access review served in a namespace
/// (`namespaces/x/localsubjectaccessreviews`).
#[must_use]
pub fn is_namespaced_review(group: &str, plural: &str) -> bool {
    group == AUTHZ && REVIEWS.iter().any(|(p, _, ns)| *ns && *p == plural)
}

fn access_reviews() -> impl Iterator<Item = Value> {
    REVIEWS.iter().map(|(plural, kind, namespaced)| {
        json!({
            "name": plural,
            "singularName": "",
            "namespaced": namespaced,
            "kind": kind,
            "verbs": ["create"],
        })
    })
}

/// `/api/v1`, `/apis/G/V`: `None` when the version is not served.
#[must_use]
pub fn resource_list(kinds: &KindTable, group: &str, version: &str) -> Option<Value> {
    let all = groups(kinds);
    let list = all.get(group)?.get(version)?;
    let mut resources: Vec<Value> = list.iter().map(|k| resource(k)).collect();
    if group == AUTHZ && version == "v1" {
        resources.extend(access_reviews());
    }
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": resources,
    }))
}

/// `/api`.
#[must_use]
pub fn api_versions(server: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server}],
    })
}

fn group_doc(name: &str, versions: &BTreeMap<String, Vec<&KindInfo>>) -> Value {
    let vs: Vec<Value> = versions
        .keys()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    let preferred = vs.first().cloned().unwrap_or(Value::Null);
    json!({"name": name, "versions": vs, "preferredVersion": preferred})
}

/// `/apis`.
#[must_use]
pub fn group_list(kinds: &KindTable) -> Value {
    let groups: Vec<Value> = groups(kinds)
        .iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(g, vs)| group_doc(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/G`.
#[must_use]
pub fn group(kinds: &KindTable, name: &str) -> Option<Value> {
    let all = groups(kinds);
    let vs = all.get(name).filter(|_| !name.is_empty())?;
    let mut doc = group_doc(name, vs);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

/// Aggregated discovery of the core group (`core`) or of the others.
#[must_use]
pub fn aggregated(kinds: &KindTable, core: bool, version: &str) -> Value {
    let items: Vec<Value> = groups(kinds)
        .iter()
        .filter(|(g, _)| g.is_empty() == core)
        .map(|(g, vs)| {
            let versions: Vec<Value> = vs
                .iter()
                .map(|(v, list)| {
                    let mut resources: Vec<Value> = list
                        .iter()
                        .map(|k| {
                            let mut r = json!({
                                "resource": k.plural,
                                "responseKind": {"group": k.group, "version": k.version, "kind": k.kind},
                                "scope": if k.namespaced { "Namespaced" } else { "Cluster" },
                                "singularResource": k.kind.to_ascii_lowercase(),
                                "verbs": verbs(k),
                            });
                            if !k.short_names.is_empty() {
                                r["shortNames"] = json!(k.short_names);
                            }
                            if let Some(c) = categories(k) {
                                r["categories"] = c;
                            }
                            r
                        })
                        .collect();
                    if g == AUTHZ && v == "v1" {
                        resources.extend(REVIEWS.iter().map(|(plural, kind, namespaced)| json!({
                            "resource": plural,
                            "responseKind": {"group": AUTHZ, "version": "v1", "kind": kind},
                            "scope": if *namespaced { "Namespaced" } else { "Cluster" },
                            "singularResource": plural.trim_end_matches('s'),
                            "verbs": ["create"],
                        })));
                    }
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": g}, "versions": versions})
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_lists_the_kinds_of_the_table() {
        let k = KindTable::builtin();
        let core = resource_list(&k, "", "v1").expect("core");
        let names: Vec<&str> = core["resources"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"pods") && names.contains(&"namespaces"));
        assert!(resource_list(&k, "apps", "v9").is_none());
        let apis = group_list(&k);
        assert!(
            apis["groups"]
                .as_array()
                .expect("groups")
                .iter()
                .any(|g| g["name"] == "apps")
        );
        assert!(group(&k, "").is_none());
        let agg = aggregated(&k, true, "v2");
        assert_eq!(agg["items"][0]["metadata"]["name"], "");
        let authz = resource_list(&k, AUTHZ, "v1").expect("authz");
        let names: Vec<&str> = authz["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "localsubjectaccessreviews",
                "selfsubjectaccessreviews",
                "selfsubjectrulesreviews",
                "subjectaccessreviews"
            ]
        );
        assert_eq!(authz["resources"][0]["namespaced"], true);
    }

    fn entry(k: &KindTable, group: &str, version: &str, name: &str) -> Value {
        resource_list(k, group, version).expect("served")["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
            .expect("listed")
    }

    // Entries as the 1.20 test control plane lists them (`kubectl get
    // --raw /apis/apps/v1`, `/api/v1`, ...): a built-in kind's
    // `singularName` empty, its verbs in upstream's order, its
    // `storageVersionHash` of the version it is stored in.
    #[test]
    fn entries_read_as_1_20_lists_them() {
        let k = KindTable::builtin();
        assert_eq!(
            entry(&k, "apps", "v1", "deployments"),
            json!({"name": "deployments", "singularName": "", "namespaced": true,
                "kind": "Deployment",
                "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
                "shortNames": ["deploy"], "categories": ["all"], "storageVersionHash": "8aSe+NMegvE="})
        );
        assert_eq!(
            entry(&k, "", "v1", "pods")["storageVersionHash"],
            "xPOwRZ+Yhw8="
        );
        let ns = entry(&k, "", "v1", "namespaces");
        assert_eq!(
            ns["verbs"],
            json!([
                "create", "delete", "get", "list", "patch", "update", "watch"
            ])
        );
        assert_eq!(ns["storageVersionHash"], "Q3oi5N2YM8M=");
        let hook = entry(
            &k,
            "admissionregistration.k8s.io",
            "v1",
            "validatingwebhookconfigurations",
        );
        assert_eq!(
            hook["storageVersionHash"], "P9NhrezfnWE=",
            "stored as v1beta1"
        );
        assert_eq!(hook["categories"], json!(["api-extensions"]));
        assert_eq!(
            entry(&k, "events.k8s.io", "v1", "events")["storageVersionHash"],
            "r2yiGXH7wu8=",
            "stored as core v1"
        );
        assert_eq!(
            entry(&k, AUTHZ, "v1", "subjectaccessreviews")["singularName"],
            ""
        );
    }

    #[test]
    fn a_custom_resource_keeps_its_singular_name() {
        let mut k = KindTable::builtin();
        let crd: crate::model::Object = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": true, "storage": true}]}}))
        .expect("crd");
        k.insert(KindInfo::of_crd(&crd).expect("kind"));
        assert_eq!(
            entry(&k, "example.com", "v1", "widgets")["singularName"],
            "widget"
        );
    }
}
