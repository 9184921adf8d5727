//! The field manager of the simulator's controllers' writes, against what
//! the 1.20 test control plane shows for the same situation (a
//! Deployment created by `kubectl create deployment`, its ReplicaSet and
//! Pods made by kube-controller-manager, then an orphaning delete of the
//! Deployment): every write of a controller is an `Update` by
//! `kube-controller-manager`, in the object's `apiVersion`, `FieldsV1`,
//! at a whole second, with no `subresource` (1.22 and later add it, and
//! keep a status update apart); the fields it set are its own.
//!
//! The defaults kube-apiserver sets as it decodes a write are the
//! writer's (a Pod's `dnsPolicy`, `restartPolicy`, a container's
//! `imagePullPolicy`, ...), and so is the `generateName` the controller
//! sets on its Pods; a pod spec's `containers`, there in the Go zero
//! value, carries no `.` of its own.
//!
//! Differences from 1.20 that stay, by rule (see
//! [`super::ownership::record_component`]): the fields serve adds as it
//! sends an object (a Deployment's and a ReplicaSet's status and rollout
//! annotations) were never written, so no entry names them.

use serde_json::{Value, json};

use super::tests::send;
use super::{Request, Served};
use crate::sim::api::FieldRecorder;
use crate::sim::{Sim, scenario};

fn served(recorded: bool) -> Served {
    let mut sc = scenario::bundled("deployment").expect("bundled");
    sc.settings.whole_second_stamps = true;
    if recorded {
        sc.settings.field_recorder = FieldRecorder(Some(super::ownership::record_component));
    }
    let mut s = Served::new(Sim::load(sc).expect("loads"));
    s.paused = true;
    s
}

fn post(path: &str, body: &Value) -> Request {
    Request {
        content_type: "application/json".into(),
        body: serde_json::to_vec(body).expect("json"),
        user_agent: "kubectl-create/v1.32.4 (linux/amd64) kubernetes/abc".into(),
        ..Request::new("POST", path)
    }
}

fn items(s: &mut Served, path: &str) -> Vec<Value> {
    send(s, &Request::new("GET", path)).value()["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The Deployment `d2`, created by kubectl, and time for its controllers.
fn deployed(s: &mut Served) -> Value {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "d2", "labels": {"app": "d2"}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d2"}},
                 "template": {"metadata": {"labels": {"app": "d2"}},
                              "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}});
    let r = send(s, &post("/apis/apps/v1/namespaces/shop/deployments", &d));
    assert_eq!(r.code, 201, "{:?}", r.value());
    s.sim.advance(3_000);
    r.value()
}

fn of_d2(list: Vec<Value>) -> Vec<Value> {
    list.into_iter()
        .filter(|o| {
            o["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("d2-"))
        })
        .collect()
}

fn whole_second(t: &Value) -> bool {
    t.as_str()
        .is_some_and(|t| t.len() == 20 && t.ends_with('Z') && !t.contains('.'))
}

#[test]
fn a_controllers_writes_name_the_controller_manager() {
    let mut s = served(true);
    let deploy = deployed(&mut s);
    let sets = of_d2(items(&mut s, "/apis/apps/v1/namespaces/shop/replicasets"));
    assert_eq!(sets.len(), 1);
    let rs = &sets[0];
    let pods = of_d2(items(&mut s, "/api/v1/namespaces/shop/pods"));
    assert_eq!(pods.len(), 2);
    for (o, owner, api_version) in [
        (rs, &deploy, "apps/v1"),
        (&pods[0], rs, "v1"),
        (&pods[1], rs, "v1"),
    ] {
        let entries = o["metadata"]["managedFields"].as_array().expect("managed");
        assert_eq!(entries.len(), 1, "{entries:?}");
        let e = &entries[0];
        assert_eq!(e["manager"], "kube-controller-manager");
        assert_eq!(e["operation"], "Update");
        assert_eq!(e["apiVersion"], api_version);
        assert_eq!(e["fieldsType"], "FieldsV1");
        assert!(e.get("subresource").is_none(), "1.20 has none: {e}");
        assert!(whole_second(&e["time"]), "{}", e["time"]);
        let f = &e["fieldsV1"];
        let uid = owner["metadata"]["uid"].as_str().expect("uid");
        assert_eq!(
            f["f:metadata"]["f:ownerReferences"][format!("k:{{\"uid\":\"{uid}\"}}")],
            json!({".": {}, "f:apiVersion": {}, "f:blockOwnerDeletion": {}, "f:controller": {},
                   "f:kind": {}, "f:name": {}, "f:uid": {}})
        );
        assert_eq!(
            f["f:metadata"]["f:labels"],
            json!({".": {}, "f:app": {}, "f:pod-template-hash": {}})
        );
        // A create's status is the strategy's (a Pod Pending): no one's.
        assert!(f.get("f:status").is_none(), "{f}");
    }
    // The pod spec as 1.20's controller manager owns it: what it sent
    // and what decoding defaulted, on the Pods and the ReplicaSet's
    // template alike (a Pod's `enableServiceLinks` is the Pod's only).
    let container = json!({"k:{\"name\":\"c\"}": {".": {}, "f:image": {}, "f:imagePullPolicy": {},
        "f:name": {}, "f:resources": {}, "f:terminationMessagePath": {},
        "f:terminationMessagePolicy": {}}});
    let spec = json!({"f:containers": container, "f:dnsPolicy": {}, "f:enableServiceLinks": {},
        "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {},
        "f:terminationGracePeriodSeconds": {}});
    for p in &pods {
        let f = &p["metadata"]["managedFields"][0]["fieldsV1"];
        assert_eq!(f["f:spec"], spec, "{p}");
        assert_eq!(f["f:metadata"]["f:generateName"], json!({}), "{f}");
        let rs_name = rs["metadata"]["name"].as_str().expect("name");
        assert_eq!(p["metadata"]["generateName"], format!("{rs_name}-"));
    }
    let mut template = spec;
    template
        .as_object_mut()
        .expect("map")
        .remove("f:enableServiceLinks");
    let rs_spec = &rs["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"];
    assert_eq!(rs_spec["f:template"]["f:spec"], template, "{rs_spec}");
    assert_eq!(rs_spec["f:replicas"], json!({}));
    // The Deployment is kubectl's alone.
    let d = send(
        &mut s,
        &Request::new("GET", "/apis/apps/v1/namespaces/shop/deployments/d2"),
    )
    .value();
    let managers: Vec<&Value> = d["metadata"]["managedFields"]
        .as_array()
        .expect("managed")
        .iter()
        .map(|e| &e["manager"])
        .collect();
    assert_eq!(managers, [&json!("kubectl-create")]);
}

/// The garbage collector orphaning the ReplicaSet removes its owner
/// reference: no longer the controller manager's, whose entry keeps its
/// time (the write took no field), as on 1.20.
#[test]
fn the_garbage_collectors_orphaning_leaves_the_entry_its_time() {
    let mut s = served(true);
    deployed(&mut s);
    let rs_before = of_d2(items(&mut s, "/apis/apps/v1/namespaces/shop/replicasets"))
        .pop()
        .expect("rs");
    s.sim.advance(2_000);
    let mut del = Request::new("DELETE", "/apis/apps/v1/namespaces/shop/deployments/d2");
    del.query = vec![("propagationPolicy".into(), "Orphan".into())];
    assert_eq!(send(&mut s, &del).code, 200);
    s.sim.advance(3_000);
    let rs = of_d2(items(&mut s, "/apis/apps/v1/namespaces/shop/replicasets"))
        .pop()
        .expect("rs");
    assert!(rs["metadata"].get("ownerReferences").is_none(), "{rs}");
    let (before, after) = (
        &rs_before["metadata"]["managedFields"][0],
        &rs["metadata"]["managedFields"][0],
    );
    assert_eq!(after["manager"], "kube-controller-manager");
    assert!(
        after["fieldsV1"]["f:metadata"]
            .get("f:ownerReferences")
            .is_none(),
        "{after}"
    );
    assert!(
        before["fieldsV1"]["f:metadata"]
            .get("f:ownerReferences")
            .is_some()
    );
    assert_eq!(after["time"], before["time"]);
}

/// Offline (a scenario the UI plays) no recorder is set: the objects the
/// controllers make carry no managed fields, as before.
#[test]
fn offline_the_controllers_record_nothing() {
    let mut s = served(false);
    deployed(&mut s);
    for o in of_d2(items(&mut s, "/api/v1/namespaces/shop/pods")) {
        assert!(o["metadata"].get("managedFields").is_none(), "{o}");
    }
}

/// What a DaemonSet's and a StatefulSet's controller write into the pods
/// they create is theirs, as on 1.20: `generateName` (`<ds>-`, and a
/// StatefulSet's `<set>-` beside its fixed name), the daemon pod's node
/// affinity and tolerations, the set pod's `hostname` and `subdomain`.
#[test]
fn what_a_controller_writes_into_its_pods_is_its_own() {
    let mut s = served(true);
    let template = json!({"metadata": {"labels": {"app": "x"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"},
        "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": template}});
    let st = json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "st"},
        "spec": {"serviceName": "st", "replicas": 1, "selector": {"matchLabels": {"app": "x"}},
                 "template": template}});
    for (path, body) in [("daemonsets", &ds), ("statefulsets", &st)] {
        let r = send(
            &mut s,
            &post(&format!("/apis/apps/v1/namespaces/shop/{path}"), body),
        );
        assert_eq!(r.code, 201, "{:?}", r.value());
    }
    s.sim.advance(3_000);
    let pods = items(&mut s, "/api/v1/namespaces/shop/pods");
    let of = |owner: &str| -> Vec<&Value> {
        pods.iter()
            .filter(|p| p["metadata"]["ownerReferences"][0]["name"] == owner)
            .collect()
    };
    let (daemon, set) = (of("ds"), of("st"));
    assert!(!daemon.is_empty() && set.len() == 1, "{pods:?}");
    for p in daemon {
        assert_eq!(p["metadata"]["generateName"], "ds-");
        let f = &p["metadata"]["managedFields"][0]["fieldsV1"];
        assert_eq!(f["f:metadata"]["f:generateName"], json!({}), "{f}");
        assert_eq!(f["f:spec"]["f:tolerations"], json!({}), "{f}");
        assert_eq!(
            f["f:spec"]["f:affinity"],
            json!({".": {}, "f:nodeAffinity": {".": {},
                   "f:requiredDuringSchedulingIgnoredDuringExecution": {".": {}, "f:nodeSelectorTerms": {}}}})
        );
        assert_eq!(p["spec"]["tolerations"].as_array().map(Vec::len), Some(6));
    }
    let p = set[0];
    assert_eq!(p["metadata"]["name"], "st-0");
    assert_eq!(p["metadata"]["generateName"], "st-");
    assert_eq!(
        (&p["spec"]["hostname"], &p["spec"]["subdomain"]),
        (&json!("st-0"), &json!("st"))
    );
    let f = &p["metadata"]["managedFields"][0]["fieldsV1"];
    for field in ["f:hostname", "f:subdomain"] {
        assert_eq!(f["f:spec"][field], json!({}), "{f}");
    }
    assert_eq!(f["f:metadata"]["f:generateName"], json!({}), "{f}");
}
