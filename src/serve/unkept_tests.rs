//! Every field a client wrote comes back ([`super::unkept`]): on a GET, a
//! list, a watch, after a patch, an update and an apply, and after a
//! restart; with field ownership over them.

use serde_json::{Value, json};

use super::handler::handle;
use super::state::Served;
use super::tests::{send, served};
use super::{Outcome, Request, watch};
use crate::sim::{Saved, Sim, scenario};

const CMS: &str = "/api/v1/namespaces/shop/configmaps";
const SECRETS: &str = "/api/v1/namespaces/shop/secrets";
const DEPLOYS: &str = "/apis/apps/v1/namespaces/shop/deployments";

fn req(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
    Request {
        content_type: content_type.into(),
        body: serde_json::to_vec(body).expect("json"),
        ..Request::new(method, path)
    }
}

fn post(s: &mut Served, path: &str, body: &Value) -> Value {
    let r = send(s, &req("POST", path, "application/json", body));
    assert_eq!(r.code, 201, "POST {path}: {:?}", r.value());
    r.value()
}

fn get(s: &mut Served, path: &str) -> Value {
    let r = send(s, &Request::new("GET", path));
    assert_eq!(r.code, 200, "GET {path}: {:?}", r.value());
    r.value()
}

fn cm(name: &str, data: &Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

fn rv(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|r| r.parse().ok())
        .expect("resourceVersion")
}

#[test]
fn a_configmaps_data_is_read_listed_and_watched_as_written() {
    let mut s = served();
    let list = get(&mut s, CMS);
    let from = rv(&list);
    let Outcome::Watch(mut w) = handle(
        &mut s,
        &Request::new("GET", &format!("{CMS}?watch=1&resourceVersion={from}")),
        "x",
    ) else {
        panic!("not a watch");
    };
    let made = post(
        &mut s,
        CMS,
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "x-"},
                "data": {"a": "b"}, "binaryData": {"bin": "AAE="}, "immutable": false}),
    );
    assert_eq!(made["data"], json!({"a": "b"}));
    assert_eq!(made["metadata"]["generateName"], "x-");
    let name = made["metadata"]["name"]
        .as_str()
        .expect("named")
        .to_string();
    let one = get(&mut s, &format!("{CMS}/{name}"));
    assert_eq!(one["data"], json!({"a": "b"}));
    assert_eq!(one["binaryData"], json!({"bin": "AAE="}));
    assert_eq!(one["immutable"], false);
    let listed = get(&mut s, CMS);
    let item = listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["metadata"]["name"] == name.as_str())
        .expect("listed");
    assert_eq!(item["data"], json!({"a": "b"}));
    // A PUT that changes only the data is a change: a new resource
    // version, and a MODIFIED event that carries it.
    let mut changed = one.clone();
    changed["data"] = json!({"a": "c"});
    let r = send(
        &mut s,
        &req(
            "PUT",
            &format!("{CMS}/{name}"),
            "application/json",
            &changed,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert!(rv(&r.value()) > rv(&one), "a data-only update is stored");
    let lines = watch::next(&s, &mut w, s.resource_version()).expect("in history");
    let kinds: Vec<(&str, &Value)> = lines
        .iter()
        .map(|l| (l["type"].as_str().unwrap_or_default(), &l["object"]["data"]))
        .collect();
    assert_eq!(
        kinds,
        [
            ("ADDED", &json!({"a": "b"})),
            ("MODIFIED", &json!({"a": "c"}))
        ]
    );
    // Deleted: the event still carries what it held.
    let r = send(&mut s, &Request::new("DELETE", &format!("{CMS}/{name}")));
    assert_eq!(r.code, 200);
    let lines = watch::next(&s, &mut w, s.resource_version()).expect("in history");
    assert_eq!(lines[0]["type"], "DELETED");
    assert_eq!(lines[0]["object"]["data"], json!({"a": "c"}));
}

#[test]
fn patches_change_data_keys_and_keep_the_others() {
    let mut s = served();
    post(&mut s, CMS, &cm("p", &json!({"a": "1", "b": "2"})));
    let path = format!("{CMS}/p");
    let merge = req(
        "PATCH",
        &path,
        "application/merge-patch+json",
        &json!({"data": {"a": null, "c": "3"}}),
    );
    assert_eq!(send(&mut s, &merge).code, 200);
    let json_patch = req(
        "PATCH",
        &path,
        "application/json-patch+json",
        &json!([{"op": "replace", "path": "/data/b", "value": "two"}]),
    );
    assert_eq!(send(&mut s, &json_patch).code, 200);
    assert_eq!(get(&mut s, &path)["data"], json!({"b": "two", "c": "3"}));
    // A dry run answers the change and stores nothing.
    let dry = req(
        "PATCH",
        &format!("{path}?dryRun=All"),
        "application/merge-patch+json",
        &json!({"data": {"b": "dry"}}),
    );
    let r = send(&mut s, &dry);
    assert_eq!(r.value()["data"]["b"], "dry");
    assert_eq!(get(&mut s, &path)["data"]["b"], "two");
}

#[test]
fn a_secrets_string_data_is_merged_into_data_and_never_returned() {
    let mut s = served();
    let made = post(
        &mut s,
        SECRETS,
        &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                "stringData": {"x": "hello"}, "data": {"x": "b2xk", "y": "b2xk"}}),
    );
    assert_eq!(made["data"], json!({"x": "aGVsbG8=", "y": "b2xk"}));
    assert_eq!(made["type"], "Opaque");
    assert!(made.get("stringData").is_none());
    let patch = req(
        "PATCH",
        &format!("{SECRETS}/s"),
        "application/merge-patch+json",
        &json!({"stringData": {"z": "new"}}),
    );
    let r = send(&mut s, &patch);
    assert_eq!(r.code, 200, "{:?}", r.value());
    let got = get(&mut s, &format!("{SECRETS}/s"));
    assert_eq!(got["data"]["z"], "bmV3");
    assert!(got.get("stringData").is_none());
    let bad = send(
        &mut s,
        &req(
            "POST",
            SECRETS,
            "application/json",
            &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"},
                    "data": {"k": "not base64!"}}),
        ),
    );
    assert_eq!(bad.code, 400);
    let bad_key = send(
        &mut s,
        &req(
            "POST",
            SECRETS,
            "application/json",
            &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"},
                    "stringData": {"a/b": "x"}}),
        ),
    );
    assert_eq!(bad_key.code, 422);
    assert!(
        bad_key.value()["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Secret \"b\" is invalid: data[a/b]: Invalid value: \"a/b\""),
        "{:?}",
        bad_key.value()
    );
}

#[test]
fn a_deployments_whole_pod_template_survives_and_its_status_stays_the_servers() {
    let mut s = served();
    let template = json!({
        "metadata": {"labels": {"app": "full"}, "annotations": {"note": "kept"}},
        "spec": {
            "containers": [{"name": "c", "image": "busybox:1.36",
                            "env": [{"name": "A", "value": "1"}],
                            "ports": [{"containerPort": 80, "protocol": "TCP"}]}],
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default"
        }
    });
    post(
        &mut s,
        DEPLOYS,
        &json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "full"},
                "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "full"}},
                         "strategy": {"type": "Recreate"}, "template": template},
                "status": {"collisionCount": 7}}),
    );
    let path = format!("{DEPLOYS}/full");
    let got = get(&mut s, &path);
    // Every field written, with the defaults a real server adds beside.
    let mut written = got["spec"]["template"].clone();
    super::unkept::merge(&mut written, &template);
    assert_eq!(got["spec"]["template"], written);
    assert_eq!(
        got["spec"]["template"]["spec"]["containers"][0]["env"],
        json!([{"name": "A", "value": "1"}])
    );
    assert_eq!(
        got["spec"]["template"]["metadata"]["annotations"]["note"],
        "kept"
    );
    assert_eq!(got["spec"]["strategy"], json!({"type": "Recreate"}));
    assert!(
        got["status"].get("collisionCount").is_none(),
        "a create's status is not kept"
    );
    // A write of /status keeps the spec; a write of the object keeps the
    // status.
    let mut status = got.clone();
    status["status"]["collisionCount"] = json!(2);
    status["spec"]["strategy"] = json!({"type": "RollingUpdate"});
    let r = send(
        &mut s,
        &req(
            "PUT",
            &format!("{path}/status"),
            "application/json",
            &status,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    let got = get(&mut s, &path);
    assert_eq!(got["status"]["collisionCount"], 2);
    assert_eq!(got["spec"]["strategy"]["type"], "Recreate");
    let mut object = got.clone();
    object["status"]["collisionCount"] = json!(9);
    object["spec"]["template"]["spec"]["dnsPolicy"] = json!("Default");
    let r = send(&mut s, &req("PUT", &path, "application/json", &object));
    assert_eq!(r.code, 200, "{:?}", r.value());
    let got = get(&mut s, &path);
    assert_eq!(got["status"]["collisionCount"], 2);
    assert_eq!(got["spec"]["template"]["spec"]["dnsPolicy"], "Default");
}

fn apply(s: &mut Served, manager: &str, force: bool, data: &Value) -> super::Response {
    let body = cm("ssa", data);
    let mut path = format!("{CMS}/ssa?fieldManager={manager}");
    if force {
        path.push_str("&force=true");
    }
    send(s, &req("PATCH", &path, super::apply::APPLY, &body))
}

#[test]
fn data_keys_have_owners_and_an_apply_over_anothers_key_conflicts() {
    let mut s = served();
    assert_eq!(apply(&mut s, "alice", false, &json!({"a": "1"})).code, 201);
    let got = get(&mut s, &format!("{CMS}/ssa"));
    let fields = &got["metadata"]["managedFields"][0];
    assert_eq!(fields["manager"], "alice");
    assert_eq!(fields["fieldsV1"]["f:data"]["f:a"], json!({}));
    let r = apply(&mut s, "bob", false, &json!({"a": "2"}));
    assert_eq!(r.code, 409, "{:?}", r.value());
    assert_eq!(
        r.value()["details"]["causes"][0]["field"],
        ".data.a",
        "{:?}",
        r.value()
    );
    assert_eq!(apply(&mut s, "bob", false, &json!({"b": "2"})).code, 200);
    assert_eq!(
        get(&mut s, &format!("{CMS}/ssa"))["data"],
        json!({"a": "1", "b": "2"})
    );
    // alice's next apply leaves `a` out: hers alone, it goes.
    assert_eq!(apply(&mut s, "alice", false, &json!({"c": "3"})).code, 200);
    assert_eq!(
        get(&mut s, &format!("{CMS}/ssa"))["data"],
        json!({"b": "2", "c": "3"})
    );
    // An update owns the keys it changed.
    let r = send(
        &mut s,
        &req(
            "PATCH",
            &format!("{CMS}/ssa?fieldManager=carol"),
            "application/merge-patch+json",
            &json!({"data": {"b": "x"}}),
        ),
    );
    assert_eq!(r.code, 200);
    let carol = r.value()["metadata"]["managedFields"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["manager"] == "carol")
        .cloned()
        .expect("carol's");
    assert_eq!(carol["fieldsV1"], json!({"f:data": {"f:b": {}}}));
}

/// The store as a restart finds it (the snapshot of `--state-dir` is
/// the simulator's saved state, written as JSON and read back).
#[test]
fn what_was_written_is_there_after_a_restart() {
    let sc = scenario::bundled("deployment").expect("bundled");
    let mut before = Served::new(Sim::load(sc.clone()).expect("loads"));
    before.paused = true;
    post(&mut before, CMS, &cm("kept", &json!({"k": "v"})));
    let text = serde_json::to_string(&before.sim.saved()).expect("written");
    let saved: Saved = serde_json::from_str(&text).expect("read");
    let mut after = Served::new(Sim::resume(sc, saved).expect("resumes"));
    after.paused = true;
    let got = get(&mut after, &format!("{CMS}/kept"));
    assert_eq!(got["data"], json!({"k": "v"}));
    assert_eq!(
        got["metadata"]["managedFields"][0]["fieldsV1"]["f:data"]["f:k"],
        json!({})
    );
}
