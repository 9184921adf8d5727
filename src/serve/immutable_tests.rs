//! What a client's update may not change (`admit::immutable`), through
//! the served API: every way of writing (PUT, merge, strategic and JSON
//! patch, server-side apply) is refused alike, a status write and the
//! simulator's own controllers are not checked, and metadata stays free.

use serde_json::{Value, json};

use super::Request;
use super::state::Served;
use super::tests::{send, served};

const POD: &str = "/api/v1/namespaces/shop/pods/web-7d9f8c6b5-4xk2p";
const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";
const MERGE: &str = "application/merge-patch+json";
const STRATEGIC: &str = "application/strategic-merge-patch+json";

fn write(
    s: &mut Served,
    method: &str,
    path: &str,
    content_type: &str,
    body: &Value,
) -> (u16, Value) {
    let r = send(
        s,
        &Request {
            content_type: content_type.into(),
            body: serde_json::to_vec(body).expect("json"),
            ..Request::new(method, path)
        },
    );
    (r.code, r.value())
}

fn get(s: &mut Served, path: &str) -> Value {
    let r = send(s, &Request::new("GET", path));
    assert_eq!(r.code, 200, "{:?}", r.value());
    r.value()
}

fn message(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

const FORBIDDEN_START: &str = "Pod \"web-7d9f8c6b5-4xk2p\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)\n  core.PodSpec{\n";

#[test]
fn a_pod_spec_change_is_refused_by_every_way_of_writing() {
    let mut s = served();
    let before = get(&mut s, POD);
    let change = json!({"spec": {"terminationGracePeriodSeconds": 5}});
    let (code, v) = write(&mut s, "PATCH", POD, MERGE, &change);
    assert_eq!(code, 422, "{v:?}");
    assert_eq!(v["reason"], "Invalid");
    assert!(message(&v).starts_with(FORBIDDEN_START), "{}", message(&v));
    assert!(
        message(&v).contains(
            "- \tTerminationGracePeriodSeconds: &5,\n+ \tTerminationGracePeriodSeconds: &30,"
        ),
        "{}",
        message(&v)
    );
    assert_eq!(v["details"]["causes"][0]["field"], "spec");
    let (code, _) = write(&mut s, "PATCH", POD, STRATEGIC, &change);
    assert_eq!(code, 422);
    let json_patch = json!([{"op": "replace", "path": "/spec/restartPolicy", "value": "Never"}]);
    let (code, v) = write(
        &mut s,
        "PATCH",
        POD,
        "application/json-patch+json",
        &json_patch,
    );
    assert_eq!(code, 422);
    assert!(
        message(&v).contains("- \tRestartPolicy:"),
        "{}",
        message(&v)
    );
    let mut put = before.clone();
    put["spec"]["dnsPolicy"] = json!("Default");
    let (code, _) = write(&mut s, "PUT", POD, "application/json", &put);
    assert_eq!(code, 422);
    let apply = json!({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": "web-7d9f8c6b5-4xk2p", "namespace": "shop"},
                       "spec": {"nodeName": "elsewhere"}});
    let (code, v) = write(
        &mut s,
        "PATCH",
        &format!("{POD}?fieldManager=t&force=true"),
        "application/apply-patch+yaml",
        &apply,
    );
    assert_eq!(code, 422, "{v:?}");
    // Nothing was stored.
    assert_eq!(get(&mut s, POD)["spec"], before["spec"]);
}

#[test]
fn a_pod_takes_an_image_a_deadline_tolerations_and_any_metadata() {
    let mut s = served();
    let before = get(&mut s, POD);
    let name = before["spec"]["containers"][0]["name"].clone();
    let change = json!({"metadata": {"labels": {"new": "1"}, "annotations": {"a": "b"},
                                     "finalizers": ["example.com/hold"]},
                        "spec": {"containers": [{"name": name, "image": "nginx:2"}],
                                 "activeDeadlineSeconds": 60,
                                 "tolerations": before["spec"]["tolerations"].as_array().expect("tolerations")
                                     .iter().cloned().chain([json!({"key": "k", "operator": "Exists"})])
                                     .collect::<Vec<_>>()}});
    let (code, v) = write(&mut s, "PATCH", POD, STRATEGIC, &change);
    assert_eq!(code, 200, "{v:?}");
    assert_eq!(v["spec"]["containers"][0]["image"], "nginx:2");
    // A PUT of the object as read is no change at all.
    let read = get(&mut s, POD);
    let (code, v) = write(&mut s, "PUT", POD, "application/json", &read);
    assert_eq!(code, 200, "{v:?}");
    // Raising the deadline is not lowering it.
    let (code, v) = write(
        &mut s,
        "PATCH",
        POD,
        MERGE,
        &json!({"spec": {"activeDeadlineSeconds": 90}}),
    );
    assert_eq!(code, 422);
    assert_eq!(
        message(&v),
        "Pod \"web-7d9f8c6b5-4xk2p\" is invalid: spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value"
    );
    // The status subresource keeps the spec: nothing of it is checked.
    let (code, v) = write(
        &mut s,
        "PATCH",
        &format!("{POD}/status"),
        MERGE,
        &json!({"spec": {"restartPolicy": "Never"}, "status": {"message": "m"}}),
    );
    assert_eq!(code, 200, "{v:?}");
}

#[test]
fn a_deployment_keeps_its_selector_and_still_scales_and_goes() {
    let mut s = served();
    let d = get(&mut s, DEPLOY);
    let labels = d["spec"]["selector"]["matchLabels"].clone();
    let mut moved = labels.clone();
    moved["extra"] = json!("1");
    let change = json!({"spec": {"selector": {"matchLabels": moved},
                                 "template": {"metadata": {"labels": moved}}}});
    let (code, v) = write(&mut s, "PATCH", DEPLOY, MERGE, &change);
    assert_eq!(code, 422, "{v:?}");
    assert!(
        message(&v).starts_with("Deployment.apps \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"),
        "{}",
        message(&v)
    );
    assert!(
        message(&v)
            .ends_with("MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable")
    );
    // Scaling is a change of the spec it allows; the controllers act on it.
    let (code, v) = write(
        &mut s,
        "PATCH",
        DEPLOY,
        MERGE,
        &json!({"spec": {"replicas": 1}}),
    );
    assert_eq!(code, 200, "{v:?}");
    assert_eq!(get(&mut s, DEPLOY)["spec"]["replicas"], 1);
    // Its status: the collision count may go up, not down.
    let status = format!("{DEPLOY}/status");
    let (code, v) = write(
        &mut s,
        "PATCH",
        &status,
        MERGE,
        &json!({"status": {"collisionCount": 5}}),
    );
    assert_eq!(code, 200, "{v:?}");
    let (code, v) = write(
        &mut s,
        "PATCH",
        &status,
        MERGE,
        &json!({"status": {"collisionCount": 2}}),
    );
    assert_eq!(code, 422, "{v:?}");
    assert_eq!(
        message(&v),
        "Deployment.apps \"web\" is invalid: status.collisionCount: Invalid value: 2: cannot be decremented"
    );
    // A foreground delete: the simulator sets the deletion timestamp and
    // finalizer, the garbage collector takes the dependents, none of it
    // refused.
    let r = send(
        &mut s,
        &Request::new("DELETE", &format!("{DEPLOY}?propagationPolicy=Foreground")),
    );
    assert!(r.code == 200 || r.code == 202, "{:?}", r.value());
    s.sim.settle(600_000);
    let r = send(&mut s, &Request::new("GET", DEPLOY));
    assert_eq!(r.code, 404, "{:?}", r.value());
}
