//! Discovery: `/version`, the classic `/api`, `/apis`, `/apis/G`,
//! `/apis/G/V` documents, and aggregated discovery (1.26+, what kubectl and
//! kube-rs ask for first) built from the simulator's kind table.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::versions;
use crate::model::{KindInfo, KindTable};
use crate::sim::Sim;

pub mod subresources;

use subresources::Subresource;

/// What discovery asks the store of a kind: a custom resource's
/// subresources and storage version come from its CRD.
pub trait Store {
    /// The subresources listed after the kind (in its version).
    fn subresources(&self, k: &KindInfo) -> Vec<Subresource>;
    /// The version its objects are stored in (its `storageVersionHash`
    /// is of it).
    fn storage_version(&self, k: &KindInfo) -> String;
}

impl Store for Sim {
    fn subresources(&self, k: &KindInfo) -> Vec<Subresource> {
        subresources::listed(self, k)
    }

    fn storage_version(&self, k: &KindInfo) -> String {
        versions::storage(self, k)
    }
}

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

/// group -> version -> kinds as served in that version, the core group
/// as `""`: a custom resource in each version its CRD serves
/// ([`versions::served`]).
#[must_use]
pub fn groups(kinds: &KindTable) -> BTreeMap<String, BTreeMap<String, Vec<KindInfo>>> {
    let mut g: BTreeMap<String, BTreeMap<String, Vec<KindInfo>>> = BTreeMap::new();
    for k in kinds.iter() {
        for v in versions::served(k) {
            g.entry(k.group.clone())
                .or_default()
                .entry(v.to_string())
                .or_default()
                .push(versions::at(k, v));
        }
    }
    g.entry(AUTHZ.into())
        .or_default()
        .entry("v1".into())
        .or_default();
    g
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
            | ("autoscaling", "HorizontalPodAutoscaler")
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

/// The group and version 1.20 stores a kind in (its `storageVersionHash`
/// is of them): a built-in kind's where they are not those served, a
/// custom resource's storage version whatever version is listed.
fn stored_as<'a>(k: &'a KindInfo, store: &dyn Store) -> (&'a str, String) {
    if versions::is_custom(k) {
        return (&k.group, store.storage_version(k));
    }
    let (g, v) = builtin_stored_as(k);
    (g, v.to_string())
}

fn builtin_stored_as(k: &KindInfo) -> (&str, &str) {
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
fn storage_version_hash(k: &KindInfo, store: &dyn Store) -> String {
    use base64::Engine as _;
    let (group, version) = stored_as(k, store);
    let gvk = format!("{group}/{version}/{}", k.kind);
    let sum = ring::digest::digest(&ring::digest::SHA256, gvk.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&sum.as_ref()[..8])
}

/// The verbs of a custom resource, in apiextensions-apiserver's order.
const CUSTOM_VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

/// The verbs of a kind: all of [`VERBS`], but 1.20 serves no
/// `deletecollection` of namespaces and services; a custom resource's
/// all of them in apiextensions-apiserver's order ([`CUSTOM_VERBS`]).
fn verbs(k: &KindInfo) -> Vec<&'static str> {
    if !KindTable::is_builtin(&k.group, &k.kind) {
        return CUSTOM_VERBS.to_vec();
    }
    let no_collection = k.group.is_empty() && matches!(k.kind.as_str(), "Namespace" | "Service");
    VERBS
        .into_iter()
        .filter(|v| !(no_collection && *v == "deletecollection"))
        .collect()
}

/// A kind's entry in `/api/v1` or `/apis/G/V`, as 1.20 lists it: a
/// built-in kind's `singularName` empty (kubectl guesses the singular
/// from the kind), a custom resource's its singular.
fn resource(k: &KindInfo, store: &dyn Store) -> Value {
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
    r["storageVersionHash"] = json!(storage_version_hash(k, store));
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

/// `/api/v1`, `/apis/G/V`: `None` when the version is not served. In
/// 1.20's order: the built-in kinds and their subresources by name (the
/// order kube-apiserver installs their paths in), then each custom
/// resource followed by its `status` and `scale` (kept in plural order
/// here; apiextensions-apiserver lists them in its cache's order).
#[must_use]
pub fn resource_list(
    kinds: &KindTable,
    store: &dyn Store,
    group: &str,
    version: &str,
) -> Option<Value> {
    let all = groups(kinds);
    let list = all.get(group)?.get(version)?;
    let (builtin, custom): (Vec<&KindInfo>, Vec<&KindInfo>) = list
        .iter()
        .partition(|k| KindTable::is_builtin(&k.group, &k.kind));
    let with_subs = |k: &KindInfo| {
        let mut entries = vec![resource(k, store)];
        entries.extend(
            store
                .subresources(k)
                .iter()
                .map(|s| subresources::entry(k, s)),
        );
        entries
    };
    let mut resources: Vec<Value> = builtin.into_iter().flat_map(with_subs).collect();
    resources.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let mut custom = custom;
    custom.sort_by(|a, b| a.plural.cmp(&b.plural));
    resources.extend(custom.into_iter().flat_map(with_subs));
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

/// A group's versions, highest priority first ([`versions::by_priority`]):
/// the first is the preferred one.
fn by_priority<V>(all: &BTreeMap<String, V>) -> Vec<(&String, &V)> {
    let mut vs: Vec<(&String, &V)> = all.iter().collect();
    versions::by_priority(&mut vs, |(v, _)| v.as_str());
    vs
}

fn group_doc(name: &str, versions: &BTreeMap<String, Vec<KindInfo>>) -> Value {
    let vs: Vec<Value> = by_priority(versions)
        .into_iter()
        .map(|(v, _)| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    let preferred = vs.first().cloned().unwrap_or(Value::Null);
    json!({"name": name, "versions": vs, "preferredVersion": preferred})
}

/// The built-in groups in the order kube-apiserver 1.20 lists them in
/// `/apis`: by the group priority its aggregator gives each
/// (`apiVersionPriorities` in `cmd/kube-apiserver/app/aggregator.go`),
/// highest first, a tie by name. `kubectl api-resources` prints them in
/// this order. A group not in it (a custom resource's, whose APIService
/// gets priority 1000, or a group 1.20 does not have) comes after, by
/// name.
const GROUP_ORDER: &[&str] = &[
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "extensions",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
];

/// The named groups served, in 1.20's order ([`GROUP_ORDER`]).
fn in_order<V>(all: &BTreeMap<String, V>) -> Vec<(&String, &V)> {
    let rank = |g: &str| {
        GROUP_ORDER
            .iter()
            .position(|x| *x == g)
            .unwrap_or(GROUP_ORDER.len())
    };
    let mut named: Vec<(&String, &V)> = all.iter().filter(|(g, _)| !g.is_empty()).collect();
    // Stable: a tie of rank stays in name order.
    named.sort_by_key(|(g, _)| rank(g));
    named
}

/// `/apis`.
#[must_use]
pub fn group_list(kinds: &KindTable) -> Value {
    let groups: Vec<Value> = in_order(&groups(kinds))
        .into_iter()
        .map(|(g, vs)| group_doc(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/G`.
#[must_use]
pub fn group(kinds: &KindTable, name: &str) -> Option<Value> {
    let all = groups(kinds);
    let vs = all.get(name).filter(|_| !name.is_empty())?;
    // `kind` and `apiVersion` first, as kube-apiserver sends them.
    let mut doc = json!({"kind": "APIGroup", "apiVersion": "v1"});
    if let (Some(m), Value::Object(rest)) = (doc.as_object_mut(), group_doc(name, vs)) {
        m.extend(rest);
    }
    Some(doc)
}

/// Aggregated discovery of the core group (`core`) or of the others.
#[must_use]
pub fn aggregated(kinds: &KindTable, store: &dyn Store, core: bool, version: &str) -> Value {
    let all = groups(kinds);
    let listed: Vec<(&String, &BTreeMap<String, Vec<KindInfo>>)> = if core {
        all.iter().filter(|(g, _)| g.is_empty()).collect()
    } else {
        in_order(&all)
    };
    let items: Vec<Value> = listed
        .into_iter()
        .map(|(g, vs)| {
            let versions: Vec<Value> = by_priority(vs)
                .into_iter()
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
                            let listed = store.subresources(k);
                            if !listed.is_empty() {
                                r["subresources"] = listed
                                    .iter()
                                    .map(|s| subresources::aggregated(k, s))
                                    .collect();
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
    use crate::sim::{Sim, scenario};

    /// A store with no CRD: the built-in kinds' subresources.
    fn sim() -> Sim {
        Sim::new(&scenario::bundled("deployment").expect("bundled")).expect("sim")
    }

    fn list(k: &KindTable, group: &str, version: &str) -> Option<Value> {
        let sim = sim();
        resource_list(k, &sim, group, version)
    }

    /// `/apis` (and aggregated discovery) list the groups in 1.20's order,
    /// as the test control plane does (`kubectl get --raw /apis`), not by
    /// name; a custom resource's group comes after the built-in ones, even
    /// when its name sorts first.
    #[test]
    fn groups_are_listed_in_1_20s_order() {
        let mut k = KindTable::builtin();
        let crd: crate::model::Object = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.aaa.example.com"},
            "spec": {"group": "aaa.example.com", "scope": "Namespaced",
                     "names": {"kind": "Widget", "plural": "widgets"},
                     "versions": [{"name": "v1", "served": true, "storage": true}]}}))
        .expect("crd");
        k.declare(KindInfo::of_crd(&crd).expect("a CRD"));
        let names = |v: &Value, list: &str, at: &[&str]| -> Vec<String> {
            v[list]
                .as_array()
                .expect("list")
                .iter()
                .filter_map(|g| {
                    g.pointer(&format!("/{}", at.join("/")))?
                        .as_str()
                        .map(str::to_string)
                })
                .collect()
        };
        let apis = names(&group_list(&k), "groups", &["name"]);
        let agg = names(
            &aggregated(&k, &sim(), false, "v2"),
            "items",
            &["metadata", "name"],
        );
        assert_eq!(apis, agg);
        let at = |g: &str| {
            apis.iter()
                .position(|x| x == g)
                .unwrap_or_else(|| panic!("{g} listed"))
        };
        // 1.20.2's /apis: apiregistration.k8s.io (not served here), apps,
        // events.k8s.io, authentication.k8s.io, authorization.k8s.io,
        // autoscaling, batch, certificates.k8s.io, networking.k8s.io,
        // extensions, policy, rbac.authorization.k8s.io, storage.k8s.io,
        // admissionregistration.k8s.io, apiextensions.k8s.io,
        // scheduling.k8s.io, coordination.k8s.io, node.k8s.io,
        // discovery.k8s.io, flowcontrol.apiserver.k8s.io.
        let seen: Vec<&str> = [
            "apps",
            "events.k8s.io",
            "authorization.k8s.io",
            "autoscaling",
            "batch",
            "networking.k8s.io",
            "policy",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "scheduling.k8s.io",
            "coordination.k8s.io",
            "discovery.k8s.io",
        ]
        .into_iter()
        .filter(|g| apis.iter().any(|x| x == g))
        .collect();
        assert!(seen.len() >= 10, "{apis:?}");
        assert!(seen.windows(2).all(|w| at(w[0]) < at(w[1])), "{apis:?}");
        assert!(at("aaa.example.com") > at("discovery.k8s.io"), "{apis:?}");
        assert!(!apis.iter().any(String::is_empty));
    }

    #[test]
    fn discovery_lists_the_kinds_of_the_table() {
        let k = KindTable::builtin();
        let core = list(&k, "", "v1").expect("core");
        let names: Vec<&str> = core["resources"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|r| r["name"].as_str())
            .collect();
        assert!(names.contains(&"pods") && names.contains(&"namespaces"));
        assert!(list(&k, "apps", "v9").is_none());
        let apis = group_list(&k);
        assert!(
            apis["groups"]
                .as_array()
                .expect("groups")
                .iter()
                .any(|g| g["name"] == "apps")
        );
        assert!(group(&k, "").is_none());
        let agg = aggregated(&k, &sim(), true, "v2");
        assert_eq!(agg["items"][0]["metadata"]["name"], "");
        let authz = list(&k, AUTHZ, "v1").expect("authz");
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
        list(k, group, version).expect("served")["resources"]
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

    fn names(k: &KindTable, group: &str, version: &str) -> Vec<String> {
        list(k, group, version).expect("served")["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["name"].as_str().map(str::to_string))
            .collect()
    }

    // The subresources as the 1.20 test control plane lists them (`kubectl
    // get --raw /api/v1`, `/apis/apps/v1`, ...), each after its kind, by
    // name; what serve does not serve left out of 1.20's lists
    // (`bindings`, `componentstatuses`) and `pods/eviction` by rule
    // (see `subresources`).
    #[test]
    fn subresources_are_listed_as_1_20_lists_them() {
        let k = KindTable::builtin();
        assert_eq!(
            names(&k, "", "v1"),
            [
                "configmaps",
                "endpoints",
                "events",
                "limitranges",
                "namespaces",
                "namespaces/finalize",
                "namespaces/status",
                "nodes",
                "nodes/proxy",
                "nodes/status",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "persistentvolumes",
                "persistentvolumes/status",
                "pods",
                "pods/attach",
                "pods/binding",
                "pods/exec",
                "pods/log",
                "pods/portforward",
                "pods/proxy",
                "pods/status",
                "podtemplates",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "replicationcontrollers/status",
                "resourcequotas",
                "resourcequotas/status",
                "secrets",
                "serviceaccounts",
                "serviceaccounts/token",
                "services",
                "services/proxy",
                "services/status"
            ]
        );
        assert_eq!(
            names(&k, "apps", "v1"),
            [
                "controllerrevisions",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status"
            ]
        );
        assert_eq!(names(&k, "batch", "v1")[2..], ["jobs", "jobs/status"]);
        assert_eq!(
            names(&k, "apiextensions.k8s.io", "v1"),
            [
                "customresourcedefinitions",
                "customresourcedefinitions/status"
            ]
        );
        assert_eq!(
            names(&k, "storage.k8s.io", "v1")[3..],
            ["volumeattachments", "volumeattachments/status"]
        );
        assert_eq!(names(&k, "events.k8s.io", "v1"), ["events"]);
        // Entries byte for byte as 1.20's.
        for (group, name, want) in [
            (
                "",
                "pods/log",
                json!({"name": "pods/log", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": ["get"]}),
            ),
            (
                "",
                "namespaces/finalize",
                json!({"name": "namespaces/finalize", "singularName": "", "namespaced": false, "kind": "Namespace", "verbs": ["update"]}),
            ),
            (
                "",
                "nodes/proxy",
                json!({"name": "nodes/proxy", "singularName": "", "namespaced": false, "kind": "NodeProxyOptions", "verbs": ["create", "delete", "get", "patch", "update"]}),
            ),
            (
                "",
                "pods/exec",
                json!({"name": "pods/exec", "singularName": "", "namespaced": true, "kind": "PodExecOptions", "verbs": ["create", "get"]}),
            ),
            (
                "",
                "serviceaccounts/token",
                json!({"name": "serviceaccounts/token", "singularName": "", "namespaced": true, "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest", "verbs": ["create"]}),
            ),
            (
                "apps",
                "deployments/scale",
                json!({"name": "deployments/scale", "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}),
            ),
            (
                "apps",
                "deployments/status",
                json!({"name": "deployments/status", "singularName": "", "namespaced": true, "kind": "Deployment", "verbs": ["get", "patch", "update"]}),
            ),
        ] {
            assert_eq!(entry(&k, group, "v1", name), want, "{name}");
        }
        // Aggregated discovery carries them as each resource's
        // `subresources`, as kube-apiserver 1.26 and later convert them.
        let sim = sim();
        let agg = aggregated(&k, &sim, false, "v2");
        let apps = agg["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|g| g["metadata"]["name"] == "apps")
            .expect("apps");
        let deployments = apps["versions"][0]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .find(|r| r["resource"] == "deployments")
            .expect("deployments");
        assert_eq!(
            deployments["subresources"],
            json!([
                {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"}, "verbs": ["get", "patch", "update"]},
                {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Deployment"}, "verbs": ["get", "patch", "update"]}
            ])
        );
    }

    // Short names as 1.20 gives them in every group version serve
    // serves: `ev` for core and `events.k8s.io` Events both; the kinds
    // serve serves in a later version (HorizontalPodAutoscaler in
    // `autoscaling/v2`, EndpointSlice in `discovery.k8s.io/v1`,
    // PodDisruptionBudget in `policy/v1`) as 1.20 names them in its
    // versions (`v2beta2`, `v1beta1`). HorizontalPodAutoscalers are in
    // `all` too.
    #[test]
    fn short_names_are_1_20s_in_every_group_version() {
        let k = KindTable::builtin();
        let short = |group: &str, version: &str, name: &str| {
            entry(&k, group, version, name)["shortNames"].clone()
        };
        for (group, version, name, want) in [
            ("", "v1", "events", json!(["ev"])),
            ("events.k8s.io", "v1", "events", json!(["ev"])),
            ("", "v1", "configmaps", json!(["cm"])),
            ("", "v1", "limitranges", json!(["limits"])),
            ("", "v1", "resourcequotas", json!(["quota"])),
            ("", "v1", "secrets", Value::Null),
            ("", "v1", "podtemplates", Value::Null),
            ("apps", "v1", "controllerrevisions", Value::Null),
            ("batch", "v1", "jobs", Value::Null),
            ("batch", "v1", "cronjobs", json!(["cj"])),
            (
                "autoscaling",
                "v2",
                "horizontalpodautoscalers",
                json!(["hpa"]),
            ),
            ("policy", "v1", "poddisruptionbudgets", json!(["pdb"])),
            ("discovery.k8s.io", "v1", "endpointslices", Value::Null),
            ("networking.k8s.io", "v1", "ingresses", json!(["ing"])),
            (
                "networking.k8s.io",
                "v1",
                "networkpolicies",
                json!(["netpol"]),
            ),
            ("storage.k8s.io", "v1", "storageclasses", json!(["sc"])),
            ("scheduling.k8s.io", "v1", "priorityclasses", json!(["pc"])),
            (
                "apiextensions.k8s.io",
                "v1",
                "customresourcedefinitions",
                json!(["crd", "crds"]),
            ),
        ] {
            assert_eq!(
                short(group, version, name),
                want,
                "{group}/{version} {name}"
            );
        }
        assert_eq!(
            entry(&k, "autoscaling", "v2", "horizontalpodautoscalers")["categories"],
            json!(["all"])
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
