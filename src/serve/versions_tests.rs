//! A CRD serving several versions through serve, against what the 1.20
//! test control plane answered the same requests (a CRD `gizmos` serving
//! `v1alpha1` and `v1`, `v1` the storage version, `v2` not served).

use serde_json::{Value, json};

use super::super::handler::handle;
use super::super::state::Served;
use super::super::tests::{send, served, with_body as body};
use super::super::{Outcome, Request, Response, watch};
use crate::sim::Key;

const G: &str = "/apis/crdver.example.com";

fn get(s: &mut Served, path: &str) -> Response {
    send(s, &Request::new("GET", path))
}

fn post(s: &mut Served, path: &str, v: &Value) -> Response {
    send(s, &body("POST", path, "application/json", v))
}

fn merge(s: &mut Served, path: &str, v: &Value) -> Response {
    send(s, &body("PATCH", path, "application/merge-patch+json", v))
}

fn version(name: &str, served: bool, storage: bool) -> Value {
    json!({"name": name, "served": served, "storage": storage,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "string"}, "replicas": {"type": "integer"}}},
            "status": {"type": "object", "properties": {"phase": {"type": "string"}, "replicas": {"type": "integer"}}}}}},
        "subresources": {"status": {},
            "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}})
}

/// Serve with the test's CRD (`versions` as given) and its namespace.
fn with_crd(versions: &[Value]) -> Served {
    let mut s = served();
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.crdver.example.com"},
        "spec": {"group": "crdver.example.com", "scope": "Namespaced", "versions": versions,
                 "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "shortNames": ["gz"]}}});
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let r = post(&mut s, path, &crd);
    assert_eq!(r.code, 201, "{:?}", r.value());
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "crdver"}});
    let r = post(&mut s, "/api/v1/namespaces", &ns);
    assert_eq!(r.code, 201, "{:?}", r.value());
    s
}

/// `v1alpha1` and `v1` served, `v1` stored, `v2` not served.
fn three() -> Served {
    with_crd(&[
        version("v1alpha1", true, false),
        version("v1", true, true),
        version("v2", false, false),
    ])
}

fn gizmo(version: &str, name: &str) -> Value {
    json!({"apiVersion": format!("crdver.example.com/{version}"), "kind": "Gizmo",
        "metadata": {"name": name, "namespace": "crdver"}, "spec": {"size": "small", "replicas": 1}})
}

fn collection(version: &str) -> String {
    format!("{G}/{version}/namespaces/crdver/gizmos")
}

/// The apiVersion the store holds the object in.
fn stored_version(s: &Served, name: &str) -> String {
    let key = Key {
        group: "crdver.example.com".into(),
        kind: "Gizmo".into(),
        namespace: Some("crdver".into()),
        name: name.into(),
    };
    s.sim.get(&key).expect("stored").api_version.clone()
}

/// `/apis`, `/apis/G` and `/apis/G/V` as the control plane answered them:
/// both served versions, `v1` preferred, the resources of each with the
/// storage version's hash; `v2` not listed and not served.
#[test]
fn discovery_lists_every_served_version() {
    let mut s = three();
    let want_versions = json!([
        {"groupVersion": "crdver.example.com/v1", "version": "v1"},
        {"groupVersion": "crdver.example.com/v1alpha1", "version": "v1alpha1"}
    ]);
    let preferred = json!({"groupVersion": "crdver.example.com/v1", "version": "v1"});
    let apis = get(&mut s, "/apis").value();
    let group = apis["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["name"] == "crdver.example.com")
        .cloned()
        .expect("the group listed");
    assert_eq!(group["versions"], want_versions);
    assert_eq!(group["preferredVersion"], preferred);
    let doc = get(&mut s, G).value();
    assert_eq!(doc["versions"], want_versions);
    assert_eq!(doc["preferredVersion"], preferred);
    for v in ["v1alpha1", "v1"] {
        let list = get(&mut s, &format!("{G}/{v}")).value();
        assert_eq!(
            list["resources"],
            json!([
                {"name": "gizmos", "singularName": "gizmo", "namespaced": true, "kind": "Gizmo",
                 "verbs": ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"],
                 "shortNames": ["gz"], "storageVersionHash": "+G6sOzlUjK0="},
                {"name": "gizmos/status", "singularName": "", "namespaced": true, "kind": "Gizmo",
                 "verbs": ["get", "patch", "update"]},
                {"name": "gizmos/scale", "singularName": "", "namespaced": true, "group": "autoscaling",
                 "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}
            ]),
            "{v}"
        );
    }
    assert_eq!(get(&mut s, &format!("{G}/v2")).code, 404);
    // Aggregated discovery (1.26 and later): the versions in the same
    // order, each with the resource in its version.
    let agg = send(
        &mut s,
        &Request {
            accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList".into(),
            ..Request::new("GET", "/apis")
        },
    )
    .value();
    let item = agg["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["metadata"]["name"] == "crdver.example.com")
        .cloned()
        .expect("listed");
    let kinds: Vec<(&str, &str)> = item["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            (
                v["version"].as_str().unwrap_or_default(),
                v["resources"][0]["responseKind"]["version"]
                    .as_str()
                    .unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(kinds, [("v1", "v1"), ("v1alpha1", "v1alpha1")]);
}

/// Create, get, list, merge patch and PUT in the version that is not
/// stored: each answer in the version asked, the object stored in `v1`,
/// the writer's `managedFields` entry in the version it wrote in; `v2`
/// answers 404 for every verb.
#[test]
fn an_object_is_served_in_each_version_and_stored_in_one() {
    let mut s = three();
    let r = post(&mut s, &collection("v1alpha1"), &gizmo("v1alpha1", "a"));
    assert_eq!(r.code, 201, "{:?}", r.value());
    let created = r.value();
    assert_eq!(created["apiVersion"], "crdver.example.com/v1alpha1");
    assert_eq!(stored_version(&s, "a"), "crdver.example.com/v1");
    assert_eq!(
        created["metadata"]["managedFields"][0]["apiVersion"],
        "crdver.example.com/v1alpha1"
    );
    for v in ["v1alpha1", "v1"] {
        let one = get(&mut s, &format!("{}/a", collection(v))).value();
        assert_eq!(one["apiVersion"], format!("crdver.example.com/{v}"));
        // Nothing else changes (conversion strategy None).
        let mut same = one.clone();
        same["apiVersion"] = created["apiVersion"].clone();
        assert_eq!(same, created, "{v}");
        let list = get(&mut s, &collection(v)).value();
        assert_eq!(list["apiVersion"], format!("crdver.example.com/{v}"));
        assert_eq!(list["kind"], "GizmoList");
        assert_eq!(
            list["items"][0]["apiVersion"],
            format!("crdver.example.com/{v}")
        );
    }
    let patch = json!({"spec": {"size": "big"}});
    let r = merge(&mut s, &format!("{}/a", collection("v1alpha1")), &patch);
    assert_eq!(r.code, 200, "{:?}", r.value());
    let patched = r.value();
    assert_eq!(patched["apiVersion"], "crdver.example.com/v1alpha1");
    assert_eq!(patched["spec"]["size"], "big");
    assert_eq!(patched["metadata"]["generation"], 2);
    assert_eq!(stored_version(&s, "a"), "crdver.example.com/v1");
    // A PUT of the object as read in v1, then in v1alpha1.
    for v in ["v1", "v1alpha1"] {
        let path = format!("{}/a", collection(v));
        let mut obj = get(&mut s, &path).value();
        obj["spec"]["replicas"] = json!(if v == "v1" { 2 } else { 3 });
        let r = send(&mut s, &body("PUT", &path, "application/json", &obj));
        assert_eq!(r.code, 200, "{v}: {:?}", r.value());
        assert_eq!(r.value()["apiVersion"], format!("crdver.example.com/{v}"));
        assert_eq!(stored_version(&s, "a"), "crdver.example.com/v1");
    }
    // The body's version must be the path's, in the control plane's words.
    let r = post(&mut s, &collection("v1"), &gizmo("v1alpha1", "x"));
    assert_eq!(r.code, 400);
    assert_eq!(
        r.value()["message"],
        "the API version in the data (crdver.example.com/v1alpha1) does not match the expected API version (crdver.example.com/v1), or the kind (Gizmo) is not Gizmo"
    );
    // v2 is not served: 404 for every verb, nothing written.
    for (method, path) in [
        ("GET", format!("{}/a", collection("v2"))),
        ("GET", collection("v2")),
        ("POST", collection("v2")),
        ("DELETE", format!("{}/a", collection("v2"))),
        ("PATCH", format!("{}/a", collection("v2"))),
    ] {
        let r = send(
            &mut s,
            &body(
                method,
                &path,
                "application/merge-patch+json",
                &gizmo("v2", "b"),
            ),
        );
        assert_eq!(r.code, 404, "{method} {path}");
    }
    assert_eq!(get(&mut s, &format!("{}/a", collection("v1"))).code, 200);
}

/// The status and scale subresources in the version not stored, and a
/// watch in each version: each event's object in the watch's version.
#[test]
fn subresources_and_watches_answer_in_the_version_asked() {
    let mut s = three();
    let r = post(&mut s, &collection("v1"), &gizmo("v1", "a"));
    assert_eq!(r.code, 201);
    let status = format!("{}/a/status", collection("v1alpha1"));
    let r = merge(
        &mut s,
        &status,
        &json!({"status": {"phase": "Ready", "replicas": 1}}),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["apiVersion"], "crdver.example.com/v1alpha1");
    assert_eq!(r.value()["status"]["phase"], "Ready");
    assert_eq!(stored_version(&s, "a"), "crdver.example.com/v1");
    let scale = format!("{}/a/scale", collection("v1alpha1"));
    let r = merge(&mut s, &scale, &json!({"spec": {"replicas": 3}}));
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["apiVersion"], "autoscaling/v1");
    let one = get(&mut s, &format!("{}/a", collection("v1"))).value();
    assert_eq!(one["spec"]["replicas"], 3);
    assert_eq!(one["status"]["phase"], "Ready");
    for v in ["v1alpha1", "v1"] {
        let Outcome::Watch(mut w) = handle(
            &mut s,
            &Request::new("GET", &format!("{}?watch=true", collection(v))),
            "x",
        ) else {
            panic!("not a watch");
        };
        let at = format!("crdver.example.com/{v}");
        assert_eq!(w.initial.len(), 1);
        assert_eq!(w.initial[0]["type"], "ADDED");
        assert_eq!(w.initial[0]["object"]["apiVersion"], at.as_str());
        let r = merge(
            &mut s,
            &format!("{}/a", collection("v1alpha1")),
            &json!({"spec": {"size": v}}),
        );
        assert_eq!(r.code, 200);
        let lines = watch::next(&s, &mut w, s.resource_version()).expect("in history");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["type"], "MODIFIED");
        assert_eq!(lines[0]["object"]["apiVersion"], at.as_str());
    }
}

/// Server-side apply in the version not stored creates, then updates;
/// the applier's entry names that version.
#[test]
fn an_apply_in_another_version_is_stored_in_the_storage_version() {
    let mut s = three();
    let path = format!("{}/c?fieldManager=kubectl", collection("v1alpha1"));
    for size in ["tiny", "huge"] {
        let mut applied = gizmo("v1alpha1", "c");
        applied["spec"] = json!({"size": size});
        let r = send(
            &mut s,
            &body("PATCH", &path, "application/apply-patch+yaml", &applied),
        );
        assert!(r.code == 201 || r.code == 200, "{size}: {:?}", r.value());
        let v = r.value();
        assert_eq!(v["apiVersion"], "crdver.example.com/v1alpha1");
        assert_eq!(v["spec"]["size"], size);
        assert_eq!(
            v["metadata"]["managedFields"][0]["apiVersion"],
            "crdver.example.com/v1alpha1"
        );
        assert_eq!(stored_version(&s, "c"), "crdver.example.com/v1");
    }
}

/// Owner references through each version of the owner: the garbage
/// collector matches the owner by uid, so a dependent naming it through
/// `v1alpha1` or `v1` is collected with it; one naming it through `v2`,
/// a version not served, is never resolved and stays (as on the control
/// plane: its collector cannot map `v2`).
#[test]
fn owner_references_through_any_served_version_resolve() {
    let mut s = three();
    let r = send(
        &mut s,
        &body(
            "POST",
            &collection("v1"),
            "application/json",
            &gizmo("v1", "o"),
        ),
    );
    let uid = r.value()["metadata"]["uid"]
        .as_str()
        .expect("uid")
        .to_string();
    for v in ["v1alpha1", "v2", "v1"] {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("dep-{v}"), "ownerReferences": [
                {"apiVersion": format!("crdver.example.com/{v}"), "kind": "Gizmo", "name": "o", "uid": uid}]}});
        let r = post(&mut s, "/api/v1/namespaces/crdver/configmaps", &cm);
        assert_eq!(r.code, 201, "{v}: {:?}", r.value());
    }
    let deps = |s: &mut Served| -> Vec<String> {
        get(s, "/api/v1/namespaces/crdver/configmaps").value()["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
            .filter(|n| n.starts_with("dep-"))
            .collect()
    };
    // The owner there: no reference is dangling, whatever its version.
    s.sim.advance(30_000);
    s.pump();
    assert_eq!(deps(&mut s), ["dep-v1", "dep-v1alpha1", "dep-v2"]);
    let r = send(
        &mut s,
        &Request::new("DELETE", &format!("{}/o", collection("v1alpha1"))),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    s.sim.advance(30_000);
    s.pump();
    assert_eq!(deps(&mut s), ["dep-v2"]);
}

/// A CRD whose preferred version is not its storage version (`v2` served,
/// `v1` stored): `v2` is preferred, writes in it are stored in `v1`, and
/// the hash is of `v1` in both versions' lists.
#[test]
fn the_preferred_version_need_not_be_the_stored_one() {
    let mut s = with_crd(&[version("v1", true, true), version("v2", true, false)]);
    let doc = get(&mut s, G).value();
    assert_eq!(doc["preferredVersion"]["version"], "v2");
    assert_eq!(doc["versions"][1]["version"], "v1");
    let hashes: Vec<Value> = ["v1", "v2"]
        .iter()
        .map(|v| {
            get(&mut s, &format!("{G}/{v}")).value()["resources"][0]["storageVersionHash"].clone()
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
    let r = post(&mut s, &collection("v2"), &gizmo("v2", "a"));
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert_eq!(r.value()["apiVersion"], "crdver.example.com/v2");
    assert_eq!(stored_version(&s, "a"), "crdver.example.com/v1");
}
