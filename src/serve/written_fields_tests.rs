//! A client's writes and the fields they own, against what the 1.20 test
//! control plane wrote for the same manifests (a Pod with a port, a
//! Deployment, a Service; `kubectl create -f`, `kubectl apply
//! --server-side`): the field sets below are 1.20's, as
//! `kubectl get -o json --show-managed-fields` printed them.
//!
//! An update (a create, a client-side apply, a PATCH) owns the defaults
//! kube-apiserver sets as it decodes the write; an apply owns only what
//! its configuration names (the defaults are set after it). What
//! admission and allocation add (a Pod's `priority` and tolerations, a
//! Service's cluster IP) is no one's.
//!
//! 1.20 against later versions, by rule: a Service port applied without
//! its `protocol` is refused with 1.20's 500 (its schema has no default
//! for that key; later schemas default it, and the apply is taken); from
//! 1.22 a status write is an entry of its own (`subresource: status`),
//! which 1.20 does not write.

use serde_json::{Value, json};

use super::tests::{send, served};
use super::{Request, Served};

const NS: &str = "/api/v1/namespaces/shop";

fn write(method: &str, path: &str, content_type: &str, body: String, agent: &str) -> Request {
    Request {
        content_type: content_type.into(),
        body: body.into_bytes(),
        user_agent: format!("{agent}/v1.32.4 (linux/amd64) kubernetes/abc"),
        ..Request::new(method, path)
    }
}

fn create(s: &mut Served, path: &str, body: &Value) -> Value {
    let r = send(
        s,
        &write(
            "POST",
            path,
            "application/json",
            body.to_string(),
            "kubectl-create",
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    r.value()
}

fn apply(s: &mut Served, path: &str, body: &Value, manager: &str) -> (u16, Value) {
    let req = write(
        "PATCH",
        &format!("{path}?fieldManager={manager}"),
        "application/apply-patch+yaml",
        body.to_string(),
        "kubectl",
    );
    let r = send(s, &req);
    (r.code, r.value())
}

/// The entry of `manager` in `o`'s `managedFields`: its operation and set.
fn entry(o: &Value, manager: &str) -> Option<(String, Value)> {
    o["metadata"]["managedFields"]
        .as_array()?
        .iter()
        .find(|e| e["manager"] == manager)
        .map(|e| {
            (
                e["operation"].as_str().unwrap_or_default().to_string(),
                e["fieldsV1"].clone(),
            )
        })
}

fn set(text: &str) -> Value {
    serde_json::from_str(text).expect("a field set")
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "p"}},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36",
                                    "ports": [{"containerPort": 80}]}]}})
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
           "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

fn service(name: &str, port: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
           "spec": {"selector": {"app": "p"}, "ports": [port]}})
}

const POD_CREATED: &str = r#"{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}"#;

#[test]
fn a_create_owns_the_defaults_of_its_decoding() {
    let mut s = served();
    let p = create(&mut s, &format!("{NS}/pods"), &pod("p"));
    assert_eq!(
        entry(&p, "kubectl-create"),
        Some(("Update".into(), set(POD_CREATED)))
    );
    // Admission's fields are in the object, no one's.
    assert_eq!(p["spec"]["priority"], 0);
    assert_eq!(p["spec"]["tolerations"].as_array().map(Vec::len), Some(2));
    let d = create(
        &mut s,
        "/apis/apps/v1/namespaces/shop/deployments",
        &deployment("d"),
    );
    assert_eq!(
        entry(&d, "kubectl-create").map(|e| e.1),
        Some(set(
            r#"{"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}"#
        ))
    );
    let svc = create(
        &mut s,
        &format!("{NS}/services"),
        &service("s", json!({"port": 80})),
    );
    // The cluster IP is allocated after the field manager ran.
    assert!(svc["spec"]["clusterIP"].is_string());
    assert_eq!(
        entry(&svc, "kubectl-create").map(|e| e.1),
        Some(set(
            r#"{"f:spec":{"f:ports":{".":{},"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:selector":{".":{},"f:app":{}},"f:sessionAffinity":{},"f:type":{}}}"#
        ))
    );
}

#[test]
fn an_apply_owns_what_it_names_not_the_defaults() {
    let mut s = served();
    let (code, p) = apply(&mut s, &format!("{NS}/pods/p"), &pod("p"), "kubectl");
    assert_eq!(code, 201, "{p}");
    assert_eq!(
        entry(&p, "kubectl"),
        Some((
            "Apply".into(),
            set(
                r#"{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}"#
            )
        ))
    );
    assert_eq!(
        p["spec"]["dnsPolicy"], "ClusterFirst",
        "defaulted, no one's"
    );
    let (code, d) = apply(
        &mut s,
        "/apis/apps/v1/namespaces/shop/deployments/d",
        &deployment("d"),
        "kubectl",
    );
    assert_eq!(code, 201, "{d}");
    assert_eq!(
        entry(&d, "kubectl").map(|e| e.1),
        Some(set(
            r#"{"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}}}"#
        ))
    );
    let port = json!({"port": 80, "protocol": "TCP"});
    let (code, svc) = apply(
        &mut s,
        &format!("{NS}/services/s"),
        &service("s", port),
        "kubectl",
    );
    assert_eq!(code, 201, "{svc}");
    assert_eq!(
        entry(&svc, "kubectl").map(|e| e.1),
        Some(set(
            r#"{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:port":{},"f:protocol":{}}},"f:selector":{"f:app":{}}}}"#
        ))
    );
}

/// 1.20's schema gives a Service port's `protocol`, a key of the list, no
/// default: the apply cannot be typed, and nothing is created.
#[test]
fn a_service_port_applied_without_its_protocol_is_refused_as_1_20_refuses_it() {
    let mut s = served();
    let (code, status) = apply(
        &mut s,
        &format!("{NS}/services/s2"),
        &service("s2", json!({"port": 80})),
        "kubectl",
    );
    assert_eq!(code, 500);
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": "failed to create typed patch object: .spec.ports: element 0: associative list with keys has an element that omits key field \"protocol\" (and doesn't have default value)",
               "code": 500})
    );
    assert_eq!(
        send(&mut s, &Request::new("GET", &format!("{NS}/services/s2"))).code,
        404
    );
}

/// As on 1.20: an apply naming a defaulted field with the value it has
/// shares it; with another value, it conflicts with the creator.
#[test]
fn a_default_is_shared_or_conflicts_as_any_field_of_its_writer() {
    let mut s = served();
    create(&mut s, &format!("{NS}/pods"), &pod("p"));
    let mut mine = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"dnsPolicy": "ClusterFirst", "containers": [{"name": "c", "image": "busybox:1.36"}]}});
    let (code, p) = apply(&mut s, &format!("{NS}/pods/p"), &mine, "alice");
    assert_eq!(code, 200, "{p}");
    let dns = |o: &Value, m: &str| {
        entry(o, m).is_some_and(|(_, f)| f["f:spec"].get("f:dnsPolicy").is_some())
    };
    assert!(dns(&p, "alice") && dns(&p, "kubectl-create"), "shared: {p}");
    mine["spec"]["dnsPolicy"] = json!("Default");
    let (code, status) = apply(&mut s, &format!("{NS}/pods/p"), &mine, "alice");
    assert_eq!(code, 409, "{status}");
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: .spec.dnsPolicy"
    );
}

/// As on 1.20: a merge patch that sends a default's value changes
/// nothing; one that changes it takes it from the creator.
#[test]
fn a_patch_takes_a_default_only_where_it_changes_it() {
    let mut s = served();
    let deployments = "/apis/apps/v1/namespaces/shop/deployments";
    create(&mut s, deployments, &deployment("d"));
    let patch = |body: &str| {
        write(
            "PATCH",
            &format!("{deployments}/d?fieldManager=bob"),
            "application/merge-patch+json",
            body.to_string(),
            "kubectl",
        )
    };
    let r = send(&mut s, &patch(r#"{"spec":{"revisionHistoryLimit":10}}"#));
    assert_eq!(r.code, 200);
    assert_eq!(entry(&r.value(), "bob"), None);
    let r = send(&mut s, &patch(r#"{"spec":{"revisionHistoryLimit":5}}"#));
    let d = r.value();
    assert_eq!(
        entry(&d, "bob").map(|e| e.1),
        Some(json!({"f:spec": {"f:revisionHistoryLimit": {}}}))
    );
    let kept = entry(&d, "kubectl-create").expect("creator").1;
    assert!(kept["f:spec"].get("f:revisionHistoryLimit").is_none());
    assert!(kept["f:spec"].get("f:progressDeadlineSeconds").is_some());
}
