//! Objects kubectl and controllers can use: pods with a spec and a status
//! on Nodes that exist, workloads with a status, the scale subresource,
//! the kubelet's subresources, protobuf creates, the clock.

use serde_json::{Value, json};

use super::Request;
use super::protobuf::tests::len_field;
use super::state::Served;
use super::tests::{send, served};
use crate::sim::{Key, Sim, scenario};

fn get(s: &mut Served, path: &str) -> Value {
    let r = send(s, &Request::new("GET", path));
    assert_eq!(r.code, 200, "GET {path}: {:?}", r.value());
    r.value()
}

fn body(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
    Request {
        content_type: content_type.into(),
        body: serde_json::to_vec(body).expect("json"),
        ..Request::new(method, path)
    }
}

fn key(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Key {
    Key {
        group: group.into(),
        kind: kind.into(),
        namespace: namespace.map(str::to_string),
        name: name.into(),
    }
}

const PODS: &str = "/api/v1/namespaces/shop/pods";
const POD: &str = "/api/v1/namespaces/shop/pods/web-7d9f8c6b5-4xk2p";
const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";

#[test]
fn a_scenario_pod_has_a_spec_and_runs_on_a_node_that_exists() {
    let mut s = served();
    let pod = get(&mut s, POD);
    let c = &pod["spec"]["containers"][0];
    assert_eq!(c["name"], "web", "named after its Deployment");
    assert_eq!(c["image"], super::complete::DEFAULT_IMAGE);
    assert_eq!(c["imagePullPolicy"], "IfNotPresent");
    assert_eq!(pod["spec"]["restartPolicy"], "Always");
    assert_eq!(pod["spec"]["terminationGracePeriodSeconds"], 30);
    assert_eq!(pod["spec"]["nodeName"], "node-1");
    let node = get(&mut s, "/api/v1/nodes/node-1");
    assert_eq!(node["status"]["conditions"][0]["type"], "Ready");
    assert_eq!(node["status"]["conditions"][0]["status"], "True");
    let st = &pod["status"];
    assert_eq!(st["phase"], "Running");
    assert_eq!(st["qosClass"], "BestEffort");
    let ready: Vec<(&str, &str)> = st["conditions"]
        .as_array()
        .expect("conditions")
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap_or(""),
                c["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(ready.contains(&("Ready", "True")), "{ready:?}");
    assert_eq!(st["containerStatuses"][0]["name"], "web");
    assert_eq!(st["containerStatuses"][0]["ready"], true);
    assert!(st["containerStatuses"][0]["state"]["running"]["startedAt"].is_string());
    // What is sent is added; what is stored is the scenario's.
    let stored = s
        .sim
        .get(&key("", "Pod", Some("shop"), "web-7d9f8c6b5-4xk2p"))
        .expect("stored");
    assert!(stored.value_at(&["status", "containerStatuses"]).is_none());
}

#[test]
fn a_created_pod_starts_pending_and_keeps_its_containers() {
    let mut s = served();
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"nodeName": "ghost",
                 "containers": [{"name": "a", "image": "busybox:1.36"}, {"name": "b", "image": "busybox"}]},
        "status": {"phase": "Running"}});
    let r = send(&mut s, &body("POST", PODS, "application/json", &pod));
    assert_eq!(r.code, 201, "{:?}", r.value());
    let got = get(&mut s, &format!("{PODS}/p"));
    assert_eq!(
        got["status"]["phase"], "Pending",
        "the API server resets it"
    );
    assert!(
        got["status"].get("conditions").is_none(),
        "no Node: nothing ran"
    );
    assert_eq!(got["spec"]["containers"][0]["name"], "a");
    assert_eq!(got["spec"]["containers"][1]["imagePullPolicy"], "Always");
}

#[test]
fn logs_and_exec_answer_as_for_a_kubelet_out_of_reach() {
    let mut s = served();
    let mut create = |name: &str, node: Option<&str>, containers: &[&str]| {
        let cs: Vec<Value> = containers
            .iter()
            .map(|c| json!({"name": c, "image": "x:1"}))
            .collect();
        let mut spec = json!({"containers": cs});
        if let Some(n) = node {
            spec["nodeName"] = json!(n);
        }
        let pod =
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec});
        let r = send(&mut s, &body("POST", PODS, "application/json", &pod));
        assert_eq!(r.code, 201, "{:?}", r.value());
    };
    create("unbound", None, &["c"]);
    create("lost", Some("ghost"), &["c"]);
    create("two", Some("node-1"), &["a", "b"]);
    let cases: [(&str, &str, u16, &str); 8] = [
        ("GET", "unbound/log", 204, ""),
        (
            "POST",
            "unbound/exec?command=ls",
            400,
            "pod unbound does not have a host assigned",
        ),
        ("GET", "lost/log", 404, "pods \"ghost\" not found"),
        (
            "GET",
            "lost/log?container=zz",
            400,
            "container zz is not valid for pod lost",
        ),
        (
            "GET",
            "two/log",
            400,
            "a container name must be specified for pod two, choose one of: [a b]",
        ),
        ("GET", "nope/log", 404, "pods \"nope\" not found"),
        (
            "POST",
            "web-7d9f8c6b5-4xk2p/exec?command=ls",
            500,
            "runs no kubelet on node \"node-1\"",
        ),
        (
            "GET",
            "two/log?container=b",
            500,
            "containerLogs/shop/two/b",
        ),
    ];
    for (method, path, code, words) in cases {
        let r = send(&mut s, &Request::new(method, &format!("{PODS}/{path}")));
        assert_eq!(r.code, code, "{method} {path}: {:?}", r.value());
        if code == 204 {
            assert!(r.body.is_empty());
            continue;
        }
        let v = r.value();
        assert_eq!(v["kind"], "Status", "{path}");
        assert!(
            v["message"].as_str().is_some_and(|m| m.contains(words)),
            "{path}: {v}"
        );
        assert_eq!(v.get("reason").is_none(), code == 500, "{path}: {v}");
    }
}

#[test]
fn workloads_have_a_status_counted_from_their_pods() {
    let mut s = served();
    let d = get(&mut s, DEPLOY);
    let st = &d["status"];
    assert_eq!(
        (
            &st["replicas"],
            &st["readyReplicas"],
            &st["availableReplicas"],
            &st["updatedReplicas"]
        ),
        (&json!(3), &json!(3), &json!(3), &json!(3))
    );
    assert_eq!(st["observedGeneration"], d["metadata"]["generation"]);
    assert_eq!(st["conditions"][0]["type"], "Available");
    assert_eq!(st["conditions"][0]["status"], "True");
    assert_eq!(st["conditions"][1]["reason"], "NewReplicaSetAvailable");
    let rs = get(
        &mut s,
        "/apis/apps/v1/namespaces/shop/replicasets/web-7d9f8c6b5",
    );
    assert_eq!(rs["status"]["readyReplicas"], 3);
    // A pod going no longer counts.
    let r = send(&mut s, &Request::new("DELETE", POD));
    assert_eq!(r.code, 200, "{:?}", r.value());
    let st = get(&mut s, DEPLOY)["status"].clone();
    assert_eq!(
        (&st["replicas"], &st["readyReplicas"]),
        (&json!(2), &json!(2))
    );
    assert_eq!(st["unavailableReplicas"], 1);
    // A status sent back with the object is not stored.
    let mut d = get(&mut s, DEPLOY);
    d["status"]["readyReplicas"] = json!(7);
    let r = send(&mut s, &body("PUT", DEPLOY, "application/json", &d));
    assert_eq!(r.code, 200, "{:?}", r.value());
    let stored = s
        .sim
        .get(&key("apps", "Deployment", Some("shop"), "web"))
        .expect("stored");
    assert!(stored.value_at(&["status", "readyReplicas"]).is_none());
}

#[test]
fn a_created_workloads_answer_has_the_status_its_strategy_left() {
    // As the control plane answered each create (1.20.2): the status
    // reset, its fields without omitempty at zero; a GET then counts.
    let mut s = served();
    let template = json!({"metadata": {"labels": {"app": "x"}},
                          "spec": {"containers": [{"name": "c", "image": "i:1"}]}});
    let selector = json!({"matchLabels": {"app": "x"}});
    let cases = [
        ("deployments", "Deployment", json!({})),
        ("replicasets", "ReplicaSet", json!({"replicas": 0})),
        ("statefulsets", "StatefulSet", json!({"replicas": 0})),
        (
            "daemonsets",
            "DaemonSet",
            json!({"currentNumberScheduled": 0, "numberMisscheduled": 0,
                   "desiredNumberScheduled": 0, "numberReady": 0}),
        ),
    ];
    for (plural, kind, status) in cases {
        let path = format!("/apis/apps/v1/namespaces/shop/{plural}");
        let made = json!({"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "x"},
                          "spec": {"replicas": 1, "serviceName": "x", "selector": selector,
                                   "template": template}});
        let mut req = body("POST", &path, "application/json", &made);
        req.query = vec![("dryRun".into(), "All".into())];
        let r = send(&mut s, &req);
        assert_eq!(r.code, 201, "{kind} dry run: {:?}", r.value());
        assert_eq!(r.value()["status"], status, "{kind}, dry run");
        let r = send(&mut s, &body("POST", &path, "application/json", &made));
        assert_eq!(r.code, 201, "{kind}: {:?}", r.value());
        assert_eq!(r.value()["status"], status, "{kind}");
        let read = get(&mut s, &format!("{path}/x"));
        assert_eq!(
            read["status"]["observedGeneration"], 1,
            "{kind}: a GET reads the status the controller writes"
        );
    }
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                     "spec": {"template": {"spec": {"restartPolicy": "Never",
                              "containers": [{"name": "c", "image": "i:1"}]}}}});
    let r = send(
        &mut s,
        &body(
            "POST",
            "/apis/batch/v1/namespaces/shop/jobs",
            "application/json",
            &job,
        ),
    );
    assert_eq!(r.value()["status"], json!({}), "a Job");
}

#[test]
fn the_scale_subresource_reads_and_writes_replicas() {
    let mut s = served();
    let scale = format!("{DEPLOY}/scale");
    let sc = get(&mut s, &scale);
    assert_eq!(sc["kind"], "Scale");
    assert_eq!(sc["apiVersion"], "autoscaling/v1");
    assert_eq!(sc["spec"]["replicas"], 3);
    assert_eq!(sc["status"], json!({"replicas": 3, "selector": "app=web"}));
    let patch = body(
        "PATCH",
        &scale,
        "application/merge-patch+json",
        &json!({"spec": {"replicas": 1}}),
    );
    let r = send(&mut s, &patch);
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["spec"]["replicas"], 1);
    assert_eq!(get(&mut s, DEPLOY)["spec"]["replicas"], 1);
    let mut put = get(&mut s, &scale);
    put["spec"]["replicas"] = json!(-1);
    let r = send(&mut s, &body("PUT", &scale, "application/json", &put));
    assert_eq!(r.code, 422);
    assert_eq!(
        r.value()["message"],
        "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
    );
    put["spec"]["replicas"] = json!(2);
    put["metadata"]["resourceVersion"] = json!("1");
    let r = send(&mut s, &body("PUT", &scale, "application/json", &put));
    assert_eq!(r.code, 409, "{:?}", r.value());
    assert_eq!(r.value()["reason"], "Conflict");
    let r = send(
        &mut s,
        &Request::new(
            "GET",
            "/apis/apps/v1/namespaces/shop/deployments/nope/scale",
        ),
    );
    assert_eq!(r.code, 404);
    assert_eq!(
        r.value()["message"],
        "deployments/scale.apps \"nope\" not found"
    );
    let r = send(
        &mut s,
        &Request::new("GET", "/apis/apps/v1/namespaces/shop/daemonsets/x/scale"),
    );
    assert_eq!(r.code, 404, "a DaemonSet has no scale");
}

#[test]
fn a_typed_create_in_protobuf_is_read() {
    let mut s = served();
    let label = [len_field(1, b"app"), len_field(2, b"x")].concat();
    let meta = [
        len_field(1, b"proto"),
        len_field(3, b""),
        len_field(11, &label),
    ]
    .concat();
    let entry = [len_field(1, b"a"), len_field(2, b"b")].concat();
    let cm = [len_field(1, &meta), len_field(2, &entry)].concat();
    let type_meta = [len_field(1, b"v1"), len_field(2, b"ConfigMap")].concat();
    let mut raw = b"k8s\0".to_vec();
    raw.extend([len_field(1, &type_meta), len_field(2, &cm)].concat());
    let req = Request {
        content_type: super::protobuf::MEDIA.into(),
        body: raw,
        ..Request::new("POST", "/api/v1/namespaces/shop/configmaps")
    };
    let r = send(&mut s, &req);
    assert_eq!(r.code, 201, "{:?}", r.value());
    let got = get(&mut s, "/api/v1/namespaces/shop/configmaps/proto");
    assert_eq!(got["metadata"]["labels"], json!({"app": "x"}));
    let req = Request {
        content_type: super::protobuf::MEDIA.into(),
        body: b"k8s\0\x0a\x02\x0a\x00".to_vec(),
        ..Request::new("POST", "/api/v1/namespaces/shop/configmaps")
    };
    assert_eq!(send(&mut s, &req).code, 415, "a kind it does not read");
}

#[test]
fn openapi_v2_is_served_in_json_and_in_protobuf() {
    let mut s = served();
    let v2 = get(&mut s, "/openapi/v2");
    assert_eq!(v2["swagger"], "2.0");
    assert!(
        v2["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"].is_object()
    );
    // kubectl before 1.27 asks for protobuf: gnostic's Document, swagger
    // "2.0" first (read back whole in tests/serve/openapi_v2.rs).
    let req = Request {
        accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf".into(),
        ..Request::new("GET", "/openapi/v2")
    };
    let r = send(&mut s, &req);
    assert_eq!(
        (r.code, r.content_type.as_str()),
        (200, "application/octet-stream")
    );
    assert!(r.body.starts_with(b"\n\x032.0\x12"), "{:?}", &r.body[..8]);
    // Another protobuf is not served, as on kube-apiserver 1.20.
    let req = Request {
        accept: "application/vnd.kubernetes.protobuf".into(),
        ..Request::new("GET", "/openapi/v2")
    };
    assert_eq!(send(&mut s, &req).code, 406);
    let v3 = get(&mut s, "/openapi/v3/api/v1");
    let pod = &v3["components"]["schemas"]["io.k8s.api.core.v1.Pod"];
    assert_eq!(pod["x-kubernetes-group-version-kind"][0]["kind"], "Pod");
    assert_eq!(send(&mut s, &Request::new("GET", "/openapi/v4")).code, 404);
}

#[test]
fn a_scenario_started_now_keeps_its_times_apart() {
    let mut sc = scenario::bundled("dead-node").expect("bundled");
    let now: jiff::Timestamp = "2030-06-01T12:00:00Z".parse().expect("t");
    sc.start_at(now);
    let sim = Sim::load(sc).expect("loads");
    assert_eq!(sim.now(), now);
    let lease = sim
        .get(&key(
            "coordination.k8s.io",
            "Lease",
            Some("kube-node-lease"),
            "node-1",
        ))
        .expect("lease");
    let renewed: jiff::Timestamp = lease
        .str_at(&["spec", "renewTime"])
        .expect("renewTime")
        .parse()
        .expect("a time");
    assert_eq!(
        now.duration_since(renewed).as_secs(),
        40,
        "as in the scenario"
    );
    let node = sim.get(&key("", "Node", None, "node-1")).expect("node");
    assert_eq!(
        node.value_at(&["status", "conditions"])
            .expect("conditions")[0]["lastTransitionTime"],
        json!(now.to_string())
    );
    let pod_created = sim
        .objects()
        .find(|o| o.kind == "Pod")
        .and_then(|o| o.metadata.creation_timestamp);
    assert_eq!(pod_created, Some(now));
}

/// A controller or kubelet writes a pod's status through `/status`: the
/// status and labels are the request's, the spec and owner references the
/// stored ones (1.20's pod status strategy); a stale resource version is a
/// conflict, and the object's own PUT still keeps the stored status.
#[test]
fn a_pods_status_is_written_through_its_status_subresource() {
    let mut s = served();
    let before = get(&mut s, POD);
    let mut sent = before.clone();
    sent["status"] = json!({"phase": "Failed"});
    sent["spec"]["nodeName"] = json!("elsewhere");
    sent["metadata"]["labels"]["written"] = json!("by-status");
    sent["metadata"]["ownerReferences"] = json!([]);
    let r = send(
        &mut s,
        &body("PUT", &format!("{POD}/status"), "application/json", &sent),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    let after = get(&mut s, POD);
    assert_eq!(after["status"]["phase"], "Failed");
    assert_eq!(after["metadata"]["labels"]["written"], "by-status");
    assert_eq!(after["spec"]["nodeName"], before["spec"]["nodeName"]);
    assert_eq!(
        after["metadata"]["ownerReferences"],
        before["metadata"]["ownerReferences"]
    );

    let patch = json!({"status": {"phase": "Running"}, "spec": {"nodeName": "elsewhere"}});
    let r = send(
        &mut s,
        &body(
            "PATCH",
            &format!("{POD}/status"),
            "application/merge-patch+json",
            &patch,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    let after = get(&mut s, POD);
    assert_eq!(after["status"]["phase"], "Running");
    assert_eq!(after["spec"]["nodeName"], before["spec"]["nodeName"]);

    // The whole object's PUT keeps the stored status.
    let mut whole = after.clone();
    whole["status"] = json!({"phase": "Succeeded"});
    let r = send(&mut s, &body("PUT", POD, "application/json", &whole));
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(get(&mut s, POD)["status"]["phase"], "Running");

    sent["metadata"]["resourceVersion"] = json!("1");
    let r = send(
        &mut s,
        &body("PUT", &format!("{POD}/status"), "application/json", &sent),
    );
    assert_eq!(
        (r.code, r.value()["reason"].clone()),
        (409, json!("Conflict"))
    );
    let missing = format!("{PODS}/nope/status");
    let r = send(
        &mut s,
        &body("PATCH", &missing, "application/merge-patch+json", &patch),
    );
    assert_eq!(
        (r.code, r.value()["reason"].clone()),
        (404, json!("NotFound"))
    );
    let r = send(&mut s, &Request::new("DELETE", &format!("{POD}/status")));
    assert_eq!(r.code, 405);
}

#[test]
fn a_typed_lists_items_carry_no_kind_and_a_custom_resources_do() {
    // kube-apiserver encodes a built-in kind's list typed: its items
    // without `kind` and `apiVersion`, which the list says once. A custom
    // resource's list is unstructured, each item whole.
    let mut s = served();
    let pods = get(&mut s, PODS);
    assert_eq!(pods["kind"], "PodList");
    assert_eq!(pods["apiVersion"], "v1");
    let items = pods["items"].as_array().expect("items");
    assert!(!items.is_empty());
    for item in items {
        assert!(item.get("kind").is_none(), "{item}");
        assert!(item.get("apiVersion").is_none(), "{item}");
    }
    let one = get(&mut s, POD);
    assert_eq!(
        (&one["kind"], &one["apiVersion"]),
        (&json!("Pod"), &json!("v1"))
    );
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.ex.com"},
        "spec": {"group": "ex.com", "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": true, "storage": true}],
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"}}});
    let r = send(
        &mut s,
        &body(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            &crd,
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    let widgets = "/apis/ex.com/v1/namespaces/shop/widgets";
    let cr = json!({"apiVersion": "ex.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
    let r = send(&mut s, &body("POST", widgets, "application/json", &cr));
    assert_eq!(r.code, 201, "{:?}", r.value());
    let list = get(&mut s, widgets);
    assert_eq!(list["kind"], "WidgetList");
    assert_eq!(list["items"][0]["kind"], "Widget");
    assert_eq!(list["items"][0]["apiVersion"], "ex.com/v1");
}

/// A webhook configuration created with only what v1 requires reads back
/// with 1.20's defaults (as the test control plane answered the same
/// create), so a JSON patch may `replace` them, and a PUT of it as read
/// is no change of its webhooks.
#[test]
fn a_webhook_configuration_is_stored_with_its_defaults() {
    let mut s = served();
    let path = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
    let created = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration", "metadata": {"name": "wd"},
        "webhooks": [{"name": "a.wd.example.com", "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"namespace": "wd", "name": "svc"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""],
                       "apiVersions": ["v1"], "resources": ["pods"]}]}]});
    let r = send(&mut s, &body("POST", path, "application/json", &created));
    assert_eq!(r.code, 201, "{:?}", r.value());
    let one = format!("{path}/wd");
    let read = get(&mut s, &one);
    assert_eq!(
        read["webhooks"],
        json!([{"admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": "svc", "namespace": "wd", "port": 443}},
            "failurePolicy": "Fail", "matchPolicy": "Equivalent", "name": "a.wd.example.com",
            "namespaceSelector": {}, "objectSelector": {}, "reinvocationPolicy": "Never",
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                       "resources": ["pods"], "scope": "*"}],
            "sideEffects": "None", "timeoutSeconds": 10}])
    );
    let put = send(&mut s, &body("PUT", &one, "application/json", &read));
    assert_eq!(put.code, 200, "{:?}", put.value());
    assert_eq!(put.value()["metadata"]["generation"], json!(1));
    let patch = json!([{"op": "replace", "path": "/webhooks/0/timeoutSeconds", "value": 5}]);
    let r = send(
        &mut s,
        &body("PATCH", &one, "application/json-patch+json", &patch),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["webhooks"][0]["timeoutSeconds"], json!(5));
    assert_eq!(r.value()["metadata"]["generation"], json!(2));
}

/// kube-apiserver stores `creationTimestamp` and `deletionTimestamp` in
/// whole seconds (`...:37Z`); serve's clock runs by the millisecond, and
/// what it stamps is cut to the second as `ownerscope serve` runs it.
#[test]
fn creation_and_deletion_times_are_whole_seconds() {
    let mut sc = scenario::bundled("deployment").expect("bundled");
    sc.settings.whole_second_stamps = true;
    let mut s = Served::new(Sim::load(sc).expect("loads"));
    s.paused = true;
    s.sim.advance(1_500);
    let path = "/api/v1/namespaces/shop/configmaps";
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "ws", "finalizers": ["example.com/hold"]}});
    let r = send(&mut s, &body("POST", path, "application/json", &cm));
    assert_eq!(r.code, 201, "{:?}", r.value());
    let whole = |t: &Value| {
        let t = t.as_str().expect("a time");
        assert!(
            t.ends_with('Z') && !t.contains('.') && t.len() == 20,
            "{t} is not RFC 3339 in whole seconds"
        );
        t.to_string()
    };
    let created = whole(&r.value()["metadata"]["creationTimestamp"]);
    s.sim.advance(1_250);
    let r = send(&mut s, &Request::new("DELETE", &format!("{path}/ws")));
    assert_eq!(r.code, 200, "{:?}", r.value());
    let deleted = whole(&r.value()["metadata"]["deletionTimestamp"]);
    assert!(created < deleted, "{created} then {deleted}");
    let read = get(&mut s, &format!("{path}/ws"));
    assert_eq!(whole(&read["metadata"]["creationTimestamp"]), created);
    assert_eq!(whole(&read["metadata"]["deletionTimestamp"]), deleted);
}

/// A Terminating namespace forced through `/finalize`, as on the 1.20
/// test control plane (`kubectl replace --raw
/// /api/v1/namespaces/NS/finalize -f -`): only `spec.finalizers` is
/// taken, the writer owns it in `managedFields`; with none left the
/// namespace goes at once and what it held stays behind; any other
/// method is not allowed.
#[test]
fn a_namespace_is_forced_through_finalize() {
    let mut s = served();
    let json = "application/json";
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "stuck"}});
    assert_eq!(
        send(&mut s, &body("POST", "/api/v1/namespaces", json, &ns)).code,
        201
    );
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "held", "finalizers": ["example.com/hold"]}});
    let cms = "/api/v1/namespaces/stuck/configmaps";
    assert_eq!(send(&mut s, &body("POST", cms, json, &cm)).code, 201);
    let path = "/api/v1/namespaces/stuck";
    assert_eq!(send(&mut s, &Request::new("DELETE", path)).code, 200);
    s.sim.advance(5_000);
    let mut stuck = get(&mut s, path);
    assert_eq!(stuck["status"]["phase"], "Terminating");
    assert_eq!(stuck["spec"]["finalizers"], json!(["kubernetes"]));
    let finalize = format!("{path}/finalize");
    stuck["spec"]["finalizers"] = json!(["example.com/x"]);
    stuck["metadata"]["labels"] = json!({"ignored": "yes"});
    let mut put = body("PUT", &finalize, json, &stuck);
    put.user_agent = "kubectl/v1.32.4 (linux/amd64) kubernetes/abc".into();
    let r = send(&mut s, &put);
    assert_eq!(r.code, 200, "{:?}", r.value());
    let v = r.value();
    assert_eq!(v["spec"]["finalizers"], json!(["example.com/x"]));
    assert!(v["metadata"].get("labels").is_none(), "{v}");
    let mine = v["metadata"]["managedFields"]
        .as_array()
        .expect("managed")
        .iter()
        .find(|e| e["manager"] == "kubectl")
        .cloned()
        .expect("kubectl's entry");
    // 1.20 owns the list whole (`{"f:spec":{"f:finalizers":{}}}`: a
    // Namespace's `spec.finalizers` is atomic); serve tells list kinds by
    // field name and owns it as the set `metadata.finalizers` is.
    assert!(
        mine["fieldsV1"]["f:spec"]["f:finalizers"].is_object(),
        "{mine}"
    );
    assert_eq!(
        send(&mut s, &body("POST", &finalize, json, &stuck)).code,
        405
    );
    // Sent with the resource version read before: a conflict.
    stuck["spec"]["finalizers"] = json!([]);
    assert_eq!(
        send(&mut s, &body("PUT", &finalize, json, &stuck)).code,
        409
    );
    let mut stuck = get(&mut s, path);
    stuck["spec"]["finalizers"] = json!([]);
    let r = send(&mut s, &body("PUT", &finalize, json, &stuck));
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["spec"], json!({}), "an empty list is no field");
    assert_eq!(send(&mut s, &Request::new("GET", path)).code, 404);
    assert_eq!(
        send(&mut s, &Request::new("GET", &format!("{cms}/held"))).code,
        200,
        "left behind"
    );
    let r = send(
        &mut s,
        &body("PUT", "/api/v1/namespaces/nope/finalize", json, &stuck),
    );
    assert_eq!(r.code, 404);
}

/// A custom resource's `scale`, as the 1.20 test control plane serves a
/// CRD declaring `scale` at `.spec.replicas` and `.status.replicas`: the
/// replicas read there (status 0 when absent), a GET of one without the
/// spec's field a 500 naming it, a PUT writing it; no `managedFields`
/// change (1.20 records none for a scale write).
#[test]
fn a_custom_resources_scale_reads_and_writes_the_crds_paths() {
    let mut s = served();
    let json = "application/json";
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.disco.example.com"},
        "spec": {"group": "disco.example.com", "scope": "Namespaced",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    assert_eq!(send(&mut s, &body("POST", crds, json, &crd)).code, 201);
    let gizmos = "/apis/disco.example.com/v1/namespaces/shop/gizmos";
    for (name, spec) in [("g1", json!({"replicas": 2})), ("g2", json!({}))] {
        let g = json!({"apiVersion": "disco.example.com/v1", "kind": "Gizmo",
            "metadata": {"name": name}, "spec": spec});
        assert_eq!(send(&mut s, &body("POST", gizmos, json, &g)).code, 201);
    }
    let managed = get(&mut s, &format!("{gizmos}/g1"))["metadata"]["managedFields"].clone();
    let scale = get(&mut s, &format!("{gizmos}/g1/scale"));
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["apiVersion"], "autoscaling/v1");
    assert_eq!(scale["spec"], json!({"replicas": 2}));
    assert_eq!(scale["status"], json!({"replicas": 0}));
    let r = send(&mut s, &Request::new("GET", &format!("{gizmos}/g2/scale")));
    assert_eq!(r.code, 500);
    assert_eq!(
        r.value()["message"],
        "Internal error occurred: the spec replicas field \".spec.replicas\" does not exist"
    );
    let put = json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": "g2", "namespace": "shop"}, "spec": {"replicas": 1}});
    let r = send(
        &mut s,
        &body("PUT", &format!("{gizmos}/g2/scale"), json, &put),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(
        get(&mut s, &format!("{gizmos}/g2"))["spec"],
        json!({"replicas": 1})
    );
    let patch = body(
        "PATCH",
        &format!("{gizmos}/g1/scale"),
        "application/merge-patch+json",
        &json!({"spec": {"replicas": 5}}),
    );
    let r = send(&mut s, &patch);
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.value()["spec"]["replicas"], 5);
    let g1 = get(&mut s, &format!("{gizmos}/g1"));
    assert_eq!(g1["spec"]["replicas"], 5);
    assert_eq!(g1["metadata"]["managedFields"], managed);
    let r = send(
        &mut s,
        &Request::new("GET", &format!("{gizmos}/nope/scale")),
    );
    assert_eq!(r.code, 404);
    assert_eq!(
        r.value()["message"],
        "gizmos.disco.example.com \"nope\" not found"
    );
}
