//! The request logic without sockets: a request in, the answer out.

use serde_json::{Value, json};

use super::handler::handle;
use super::state::Served;
use super::{Outcome, Request, Response, watch};
use crate::sim::{Sim, scenario};

pub(super) fn served() -> Served {
    let sc = scenario::bundled("deployment").expect("bundled");
    let mut s = Served::new(Sim::load(sc).expect("loads"));
    s.paused = true;
    s
}

pub(super) fn send(s: &mut Served, req: &Request) -> Response {
    match handle(s, req, "127.0.0.1:1") {
        Outcome::Reply(r) => r,
        Outcome::Watch(w) => panic!("a watch: {w:?}"),
    }
}

fn get(s: &mut Served, path: &str) -> Response {
    send(s, &Request::new("GET", path))
}

pub(super) fn with_body(method: &str, path: &str, content_type: &str, body: &Value) -> Request {
    Request {
        content_type: content_type.into(),
        body: serde_json::to_vec(body).expect("json"),
        user_agent: "kubectl/v1.32.4 (linux/amd64) kubernetes/abc".into(),
        ..Request::new(method, path)
    }
}

fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

const PODS: &str = "/api/v1/namespaces/shop/pods";
const DEPLOY: &str = "/apis/apps/v1/namespaces/shop/deployments/web";

#[test]
fn lists_page_and_select() {
    let mut s = served();
    let first = get(&mut s, &format!("{PODS}?limit=2")).value();
    assert_eq!(
        names(&first),
        ["web-7d9f8c6b5-4xk2p", "web-7d9f8c6b5-9wq7d"]
    );
    assert_eq!(first["metadata"]["remainingItemCount"], 1);
    let token = first["metadata"]["continue"].as_str().expect("continue");
    let second = get(&mut s, &format!("{PODS}?limit=2&continue={token}")).value();
    assert_eq!(names(&second), ["web-7d9f8c6b5-lm5vz"]);
    assert!(second["metadata"].get("continue").is_none());
    let sel = get(
        &mut s,
        "/api/v1/pods?fieldSelector=metadata.name%3Dweb-7d9f8c6b5-9wq7d&labelSelector=app%3Dweb",
    )
    .value();
    assert_eq!(names(&sel), ["web-7d9f8c6b5-9wq7d"]);
    assert_eq!(
        names(&get(&mut s, &format!("{PODS}?labelSelector=app%3Ddb")).value()),
        Vec::<String>::new()
    );
    let elsewhere = get(&mut s, &format!("{PODS}?fieldSelector=spec.nodeName%3Dx"));
    assert_eq!((elsewhere.code, names(&elsewhere.value()).len()), (200, 0));
    let bad = get(&mut s, &format!("{PODS}?fieldSelector=spec.replicas%3Dx"));
    assert_eq!(bad.code, 400);
}

#[test]
fn tables_and_metadata_are_served_as_asked() {
    let mut s = served();
    let table = send(
        &mut s,
        &Request {
            accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json".into(),
            ..Request::new("GET", PODS)
        },
    );
    assert_eq!(table.content_type, super::negotiate::TABLE_TYPE);
    let t = table.value();
    assert_eq!(t["kind"], "Table");
    assert_eq!(t["rows"][0]["cells"][0], "web-7d9f8c6b5-4xk2p");
    assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    let meta = send(
        &mut s,
        &Request {
            accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1".into(),
            ..Request::new("GET", PODS)
        },
    )
    .value();
    assert_eq!(meta["kind"], "PartialObjectMetadataList");
    assert!(meta["items"][0].get("spec").is_none());
    let proto = send(
        &mut s,
        &Request {
            accept: "application/vnd.kubernetes.protobuf".into(),
            ..Request::new("GET", PODS)
        },
    );
    assert_eq!(
        (proto.code, proto.value()["reason"].clone()),
        (406, json!("NotAcceptable"))
    );
}

#[test]
fn a_dry_run_answers_without_doing_and_is_on_the_timeline() {
    let mut s = served();
    let req = with_body(
        "DELETE",
        &format!("{DEPLOY}?dryRun=All"),
        "application/json",
        &json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"}),
    );
    let r = send(&mut s, &req);
    assert_eq!(r.code, 200);
    assert_eq!(
        r.value()["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let after = get(&mut s, DEPLOY).value();
    assert!(after["metadata"].get("deletionTimestamp").is_none());
    let last = s.sim.timeline().last().expect("entry");
    assert_eq!(last.by, "kubectl");
    assert!(last.to_text().contains("dryRun=All"), "{}", last.to_text());
}

#[test]
fn preconditions_and_policies_come_from_body_or_query() {
    let mut s = served();
    let wrong = with_body(
        "DELETE",
        DEPLOY,
        "application/json",
        &json!({"preconditions": {"uid": "not-it"}}),
    );
    let r = send(&mut s, &wrong);
    assert_eq!(r.code, 409);
    assert_eq!(r.value()["reason"], "Conflict");
    let bad = send(
        &mut s,
        &Request::new("DELETE", &format!("{DEPLOY}?propagationPolicy=Sideways")),
    );
    assert_eq!(bad.code, 422);
    let orphan = send(
        &mut s,
        &Request::new("DELETE", &format!("{DEPLOY}?propagationPolicy=Orphan")),
    );
    assert_eq!(orphan.code, 200);
    assert_eq!(orphan.value()["metadata"]["finalizers"], json!(["orphan"]));
    let gone = send(
        &mut s,
        &Request::new("DELETE", "/api/v1/namespaces/shop/configmaps/none"),
    );
    assert_eq!(
        (gone.code, gone.value()["message"].clone()),
        (404, json!("configmaps \"none\" not found"))
    );
}

#[test]
fn a_removed_object_answers_with_a_success_status() {
    let mut s = served();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "c-"}});
    let created = send(
        &mut s,
        &with_body(
            "POST",
            "/api/v1/namespaces/shop/configmaps",
            "application/json",
            &cm,
        ),
    );
    assert_eq!(created.code, 201);
    let name = created.value()["metadata"]["name"]
        .as_str()
        .expect("named")
        .to_string();
    assert!(name.starts_with("c-") && name.len() == 7, "{name}");
    let r = send(
        &mut s,
        &Request::new(
            "DELETE",
            &format!("/api/v1/namespaces/shop/configmaps/{name}"),
        ),
    );
    let v = r.value();
    assert_eq!(
        (r.code, v["kind"].clone(), v["status"].clone()),
        (200, json!("Status"), json!("Success"))
    );
    let missing_ns = send(
        &mut s,
        &with_body(
            "POST",
            "/api/v1/namespaces/nowhere/configmaps",
            "application/json",
            &cm,
        ),
    );
    assert_eq!(missing_ns.code, 404);
    let wrong_kind = send(&mut s, &with_body("POST", PODS, "application/json", &cm));
    assert_eq!(wrong_kind.code, 400);
}

#[test]
fn watches_resume_select_and_expire() {
    let mut s = served().with_history(3);
    let list = get(&mut s, PODS).value();
    let rv: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .expect("rv");
    let Outcome::Watch(mut w) = handle(
        &mut s,
        &Request::new(
            "GET",
            &format!("{PODS}?watch=true&resourceVersion={rv}&labelSelector=app%3Dweb"),
        ),
        "x",
    ) else {
        panic!("not a watch");
    };
    assert!(w.initial.is_empty());
    // A pod whose label changes leaves the selection: DELETED for this watch.
    let patch = Request {
        content_type: "application/merge-patch+json".into(),
        body: br#"{"metadata":{"labels":{"app":"other"}}}"#.to_vec(),
        ..Request::new("PATCH", &format!("{PODS}/web-7d9f8c6b5-4xk2p"))
    };
    assert_eq!(send(&mut s, &patch).code, 200);
    let lines = watch::next(&s, &mut w, s.resource_version()).expect("in history");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "DELETED");
    assert_eq!(
        watch::bookmark(&w, w.cursor)["object"]["metadata"]["resourceVersion"],
        w.cursor.to_string()
    );
    // Too old: the history keeps three changes.
    for name in ["a", "b", "c", "d"] {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
        send(
            &mut s,
            &with_body(
                "POST",
                "/api/v1/namespaces/shop/configmaps",
                "application/json",
                &cm,
            ),
        );
    }
    let Outcome::Watch(old) = handle(
        &mut s,
        &Request::new("GET", &format!("{PODS}?watch=1&resourceVersion={rv}")),
        "x",
    ) else {
        panic!("not a watch");
    };
    assert!(old.ended);
    assert_eq!(old.initial[0]["type"], "ERROR");
    assert_eq!(old.initial[0]["object"]["code"], 410);
    assert_eq!(
        watch::next(&s, &mut w, s.resource_version()).expect_err("fell behind")["object"]["reason"],
        "Expired"
    );
    // From now: the current objects first.
    let Outcome::Watch(fresh) = handle(
        &mut s,
        &Request::new("GET", &format!("{PODS}?watch=true")),
        "x",
    ) else {
        panic!("not a watch");
    };
    assert_eq!(fresh.initial.len(), 3);
    assert_eq!(fresh.initial[0]["type"], "ADDED");
}

#[test]
fn what_is_not_served_says_so() {
    let mut s = served();
    let cases = [
        ("GET", "/api/v1/namespaces/shop/widgets", 404),
        ("GET", "/apis/nope.example.com/v1", 404),
        // deletecollection of a namespaced kind in every namespace at once.
        ("DELETE", "/api/v1/pods", 405),
        ("POST", "/version", 405),
        ("GET", "/openapi/v1", 404),
        ("PUT", "/api/v1/namespaces/shop/configmaps/x/status", 404),
        ("DELETE", &format!("{DEPLOY}/status"), 405),
        ("GET", "/api/v1/pods/web-7d9f8c6b5-4xk2p", 404),
        ("GET", "/api/v1/namespaces/shop/namespaces", 404),
        (
            "GET",
            "/apis/apps/v1/namespaces/shop/deployments?limit=x",
            400,
        ),
        (
            "GET",
            &format!("{PODS}?watch=true&resourceVersion=abc"),
            400,
        ),
    ];
    for (method, path, code) in cases {
        let r = send(&mut s, &Request::new(method, path));
        assert_eq!(r.code, code, "{method} {path}: {:?}", r.value());
        assert_eq!(r.value()["kind"], "Status", "{method} {path}");
    }
    let ssar = send(
        &mut s,
        &with_body(
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            "application/json",
            &json!({"spec": {"resourceAttributes": {"verb": "delete", "resource": "pods"}}}),
        ),
    );
    assert_eq!(ssar.code, 201);
    assert_eq!(ssar.value()["status"]["allowed"], true);
    let proto = send(
        &mut s,
        &Request {
            content_type: "application/vnd.kubernetes.protobuf".into(),
            body: vec![0x6b, 0x38, 0, 0],
            ..Request::new("POST", "/api/v1/namespaces/shop/configmaps")
        },
    );
    assert_eq!(proto.code, 415);
}

#[test]
fn hostile_requests_never_panic() {
    let mut s = served();
    let paths = [
        "",
        "/",
        "//",
        "/api/v1/namespaces//pods",
        "/apis/apps/v1/namespaces/shop/deployments/web/x/y",
        "/api/v1/namespaces/shop/pods/%ff",
        "/apis/apps",
        "/api/v1?watch=true",
        "/api/v1/nodes/n/status",
        "/api/v1/namespaces/shop/pods?limit=-1&continue=e30=",
    ];
    let bodies: [&[u8]; 5] = [b"", b"{", b"[]", b"null", br#"{"metadata":{"name":7}}"#];
    let types = [
        "application/json",
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "text/plain",
    ];
    for p in paths {
        for m in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
            for b in bodies {
                for t in types {
                    let req = Request {
                        content_type: t.into(),
                        body: b.to_vec(),
                        ..Request::new(m, p)
                    };
                    let _ = handle(&mut s, &req, "x");
                }
            }
        }
    }
    assert!(s.sim.objects().any(|o| o.kind == "Deployment"));
}

/// The garbage collector's warning on a dependent whose owner is in
/// another namespace is stored as a core/v1 Event in the dependent's
/// namespace, served as `v1` and `events.k8s.io/v1` (list, get, selected
/// on the involved object, watched), and goes with the namespace (R58).
#[test]
fn gc_warnings_are_served_as_events_and_go_with_their_namespace() {
    let mut s = served();
    s.paused = false;
    for ns in ["evt", "other"] {
        let r = send(
            &mut s,
            &with_body(
                "POST",
                "/api/v1/namespaces",
                "application/json",
                &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
            ),
        );
        assert_eq!(r.code, 201, "{:?}", r.value());
    }
    let owner = send(
        &mut s,
        &with_body(
            "POST",
            "/api/v1/namespaces/other/configmaps",
            "application/json",
            &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner"}}),
        ),
    )
    .value();
    let uid = owner["metadata"]["uid"].as_str().expect("uid").to_string();
    let start = s.resource_version();
    let dep = send(
        &mut s,
        &with_body("POST", "/api/v1/namespaces/evt/configmaps", "application/json",
            &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dep",
                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid}]}})),
    )
    .value();
    let dep_uid = dep["metadata"]["uid"].as_str().expect("uid").to_string();
    s.tick(std::time::Duration::from_secs(30));
    let core = get(&mut s, "/api/v1/namespaces/evt/events").value();
    let items = core["items"].as_array().expect("items");
    let ev = items
        .iter()
        .find(|e| e["reason"] == "OwnerRefInvalidNamespace")
        .unwrap_or_else(|| panic!("no GC warning in {core}"));
    assert_eq!(ev["involvedObject"]["uid"], dep_uid.as_str());
    assert_eq!(ev["involvedObject"]["name"], "dep");
    assert_eq!(ev["type"], "Warning");
    assert_eq!(ev["source"]["component"], "garbage-collector-controller");
    assert!(ev["count"].as_i64().expect("count") >= 1);
    assert!(ev["firstTimestamp"].is_string() && ev["lastTimestamp"].is_string());
    let name = ev["metadata"]["name"].as_str().expect("name").to_string();
    // By name, in both versions.
    let one = get(
        &mut s,
        &format!("/apis/events.k8s.io/v1/namespaces/evt/events/{name}"),
    )
    .value();
    assert_eq!(one["apiVersion"], "events.k8s.io/v1");
    assert_eq!(one["regarding"], ev["involvedObject"]);
    assert_eq!(one["note"], ev["message"]);
    assert_eq!(one["reportingController"], "garbage-collector-controller");
    assert_eq!(one["deprecatedCount"], ev["count"]);
    let listed = get(&mut s, "/apis/events.k8s.io/v1/namespaces/evt/events").value();
    assert_eq!(listed["kind"], "EventList");
    assert_eq!(names(&listed), names(&core));
    // kubectl describe's selection, and a selection that misses.
    let described = get(
        &mut s,
        &format!("/api/v1/namespaces/evt/events?fieldSelector=involvedObject.name%3Ddep,involvedObject.uid%3D{dep_uid}"),
    )
    .value();
    assert_eq!(names(&described), names(&core));
    let missed = get(
        &mut s,
        "/api/v1/namespaces/evt/events?fieldSelector=involvedObject.name%3Dnope",
    )
    .value();
    assert!(names(&missed).is_empty());
    assert_eq!(
        get(
            &mut s,
            "/api/v1/namespaces/evt/configmaps?fieldSelector=reason%3Dx"
        )
        .code,
        400
    );
    // Not in the other namespace; written only through core/v1.
    assert!(names(&get(&mut s, "/api/v1/namespaces/other/events").value()).is_empty());
    let post = send(
        &mut s,
        &with_body(
            "POST",
            "/apis/events.k8s.io/v1/namespaces/evt/events",
            "application/json",
            &json!({}),
        ),
    );
    assert_eq!(post.code, 405);
    // A watch from before sees it added, in the version it asked for.
    let req = Request::new(
        "GET",
        &format!("/apis/events.k8s.io/v1/namespaces/evt/events?watch=1&resourceVersion={start}"),
    );
    let Outcome::Watch(mut w) = handle(&mut s, &req, "127.0.0.1:1") else {
        panic!("a watch");
    };
    let lines = watch::next(&s, &mut w, s.resource_version()).expect("lines");
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "ADDED" && l["object"]["regarding"]["name"] == "dep"),
        "{lines:?}"
    );
    // The namespace goes, and its events with it.
    assert_eq!(
        send(&mut s, &Request::new("DELETE", "/api/v1/namespaces/evt")).code,
        200
    );
    s.tick(std::time::Duration::from_secs(60));
    assert_eq!(get(&mut s, "/api/v1/namespaces/evt").code, 404);
    assert!(
        !s.sim
            .objects()
            .any(|o| o.kind == "Event" && o.namespace() == Some("evt")),
        "the namespace's events are gone with it"
    );
}

const RBAC_V1: &str = "/apis/rbac.authorization.k8s.io/v1";

/// `esc-user` may create ClusterRoleBindings and nothing else; `with_bind`
/// also lets it `bind` cluster-admin.
fn escalation_policy(s: &mut Served, with_bind: bool) {
    let mut rules = vec![json!({"apiGroups": ["rbac.authorization.k8s.io"],
        "resources": ["clusterrolebindings", "clusterroles"], "verbs": ["create", "update", "patch"]})];
    if with_bind {
        rules.push(
            json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"],
            "resourceNames": ["cluster-admin"], "verbs": ["bind"]}),
        );
    }
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "crb-creator"}, "rules": rules});
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "crb-creator"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "crb-creator"},
        "subjects": [{"kind": "User", "name": "esc-user"}]});
    let r = send(
        s,
        &with_body(
            "POST",
            &format!("{RBAC_V1}/clusterroles"),
            "application/json",
            &role,
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    let r = send(
        s,
        &with_body(
            "POST",
            &format!("{RBAC_V1}/clusterrolebindings"),
            "application/json",
            &binding,
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
}

fn as_esc_user(mut req: Request) -> Request {
    req.user = super::rbac::User::authenticated("esc-user", &["g1"]);
    req
}

fn bind_to_admin() -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "esc-bind"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "User", "name": "esc-user"}]})
}

/// The escalation of issue 26: a user allowed only to create
/// ClusterRoleBindings binds itself to cluster-admin. kube-apiserver 1.20
/// refuses it in these words (sent to the test control plane).
#[test]
fn a_binding_to_more_than_one_holds_is_refused_unless_bind_is_allowed() {
    let mut s = served();
    escalation_policy(&mut s, false);
    let crbs = format!("{RBAC_V1}/clusterrolebindings");
    let r = send(
        &mut s,
        &as_esc_user(with_body(
            "POST",
            &crbs,
            "application/json",
            &bind_to_admin(),
        )),
    );
    assert_eq!(r.code, 403);
    let v = r.value();
    assert_eq!(
        v["message"],
        "clusterrolebindings.rbac.authorization.k8s.io \"esc-bind\" is forbidden: user \"esc-user\" (groups=[\"g1\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}"
    );
    assert_eq!(
        (v["reason"].as_str(), v["details"]["kind"].as_str()),
        (Some("Forbidden"), Some("clusterrolebindings"))
    );
    // Nothing was stored: the user still cannot list secrets.
    let secrets = as_esc_user(Request::new("GET", "/api/v1/namespaces/shop/secrets"));
    assert_eq!(send(&mut s, &secrets).code, 403);
    // Nor with dryRun, nor to a role that does not exist (upstream's 404).
    let dry = format!("{crbs}?dryRun=All");
    assert_eq!(
        send(
            &mut s,
            &as_esc_user(with_body(
                "POST",
                &dry,
                "application/json",
                &bind_to_admin()
            ))
        )
        .code,
        403
    );
    let mut nope = bind_to_admin();
    nope["roleRef"]["name"] = json!("nope");
    let r = send(
        &mut s,
        &as_esc_user(with_body("POST", &crbs, "application/json", &nope)),
    );
    assert_eq!(
        (r.code, r.value()["message"].as_str()),
        (
            404,
            Some("clusterroles.rbac.authorization.k8s.io \"nope\" not found")
        )
    );

    // A ClusterRole with `*` is the same escalation.
    let star = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "esc-star"}, "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]});
    let r = send(
        &mut s,
        &as_esc_user(with_body(
            "POST",
            &format!("{RBAC_V1}/clusterroles"),
            "application/json",
            &star,
        )),
    );
    assert_eq!(r.code, 403);
    assert_eq!(
        r.value()["message"],
        "clusterroles.rbac.authorization.k8s.io \"esc-star\" is forbidden: user \"esc-user\" (groups=[\"g1\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}"
    );
    // A role within what the user holds is created.
    let within = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "esc-within"}, "rules": [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["create"]}]});
    let r = send(
        &mut s,
        &as_esc_user(with_body(
            "POST",
            &format!("{RBAC_V1}/clusterroles"),
            "application/json",
            &within,
        )),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    // Widening it by a patch is refused as a create is.
    let widen = Request {
        content_type: "application/merge-patch+json".into(),
        body: br#"{"rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]}"#
            .to_vec(),
        ..Request::new("PATCH", &format!("{RBAC_V1}/clusterroles/esc-within"))
    };
    let r = send(&mut s, &as_esc_user(widen));
    assert_eq!(r.code, 403, "{:?}", r.value());
    assert!(
        r.value()["message"]
            .as_str()
            .unwrap_or_default()
            .ends_with("{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"list\"]}")
    );

    // With `bind` on cluster-admin the same binding is created, and then
    // the user holds what it grants.
    let mut s = served();
    escalation_policy(&mut s, true);
    let r = send(
        &mut s,
        &as_esc_user(with_body(
            "POST",
            &crbs,
            "application/json",
            &bind_to_admin(),
        )),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert_eq!(send(&mut s, &secrets).code, 200);
}

/// `escalate` on roles lets a user write any role; a change of owner
/// references and finalizers alone is never an escalation.
#[test]
fn escalate_allows_any_role_and_gc_fields_are_never_refused() {
    let mut s = served();
    let admin_role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "wide"}, "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}]});
    assert_eq!(
        send(
            &mut s,
            &with_body(
                "POST",
                &format!("{RBAC_V1}/clusterroles"),
                "application/json",
                &admin_role
            )
        )
        .code,
        201
    );
    escalation_policy(&mut s, false);
    let patch = |body: &str| {
        as_esc_user(Request {
            content_type: "application/merge-patch+json".into(),
            body: body.as_bytes().to_vec(),
            ..Request::new("PATCH", &format!("{RBAC_V1}/clusterroles/wide"))
        })
    };
    let r = send(
        &mut s,
        &patch(r#"{"metadata": {"finalizers": ["example.com/keep"]}}"#),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    let r = send(&mut s, &patch(r#"{"metadata": {"labels": {"a": "b"}}}"#));
    assert_eq!(r.code, 403, "a label is not a GC field: {:?}", r.value());
    let escalate = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "escalator"}, "rules": [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["escalate"]}]});
    assert_eq!(
        send(
            &mut s,
            &with_body(
                "POST",
                &format!("{RBAC_V1}/clusterroles"),
                "application/json",
                &escalate
            )
        )
        .code,
        201
    );
    let b = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": "escalator"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "escalator"},
        "subjects": [{"kind": "User", "name": "esc-user"}]});
    assert_eq!(
        send(
            &mut s,
            &with_body(
                "POST",
                &format!("{RBAC_V1}/clusterrolebindings"),
                "application/json",
                &b
            )
        )
        .code,
        201
    );
    let r = send(&mut s, &patch(r#"{"metadata": {"labels": {"a": "b"}}}"#));
    assert_eq!(r.code, 200, "{:?}", r.value());
}

/// Hostile strings through create, update and patch: whatever
/// kube-apiserver refuses (control, bidi and zero-width characters, names
/// too long) is answered 422 and never stored.
#[test]
fn hostile_strings_are_refused_and_never_stored() {
    let mut s = served();
    let cms = "/api/v1/namespaces/shop/configmaps";
    let cm = |meta: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta});
    assert_eq!(
        send(
            &mut s,
            &with_body(
                "POST",
                cms,
                "application/json",
                &cm(json!({"name": "target"}))
            )
        )
        .code,
        201
    );
    let hostile = [
        "a\u{1b}[31mb".to_string(),
        "a\u{202e}b".to_string(),
        "a\u{200b}b".to_string(),
        "a\u{7}b".to_string(),
        "a\nb".to_string(),
        "x".repeat(300),
    ];
    for h in &hostile {
        let tries = [
            (
                "POST",
                cms.to_string(),
                "application/json",
                cm(json!({"name": h})),
            ),
            (
                "POST",
                cms.to_string(),
                "application/json",
                cm(json!({"generateName": h})),
            ),
            (
                "POST",
                cms.to_string(),
                "application/json",
                cm(json!({"name": "l", "labels": {"k": h}})),
            ),
            (
                "POST",
                cms.to_string(),
                "application/json",
                cm(json!({"name": "a", "annotations": {h.as_str(): "v"}})),
            ),
            (
                "PUT",
                format!("{cms}/target"),
                "application/json",
                cm(json!({"name": "target", "labels": {"k": h}})),
            ),
            (
                "PATCH",
                format!("{cms}/target"),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {"k": h}}}),
            ),
            (
                "PATCH",
                format!("{cms}/target"),
                "application/merge-patch+json",
                json!({"metadata": {"labels": {h.as_str(): "v"}}}),
            ),
        ];
        for (method, path, ct, body) in tries {
            let r = send(&mut s, &with_body(method, &path, ct, &body));
            assert_eq!(r.code, 422, "{method} {path} {body}: {:?}", r.value());
            let message = r.value()["message"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(
                !message
                    .chars()
                    .any(|c| c.is_control() || ('\u{200b}'..='\u{202e}').contains(&c)),
                "the message carries the raw character: {message:?}"
            );
        }
        let stored = s.sim.objects().any(|o| {
            o.name().contains(h.as_str())
                || o.metadata
                    .labels
                    .iter()
                    .any(|(k, v)| k.contains(h.as_str()) || v.contains(h.as_str()))
                || o.metadata
                    .annotations
                    .keys()
                    .any(|k| k.contains(h.as_str()))
        });
        assert!(!stored, "{h:?} was stored");
    }
}

/// Requests kube-apiserver 1.20 answers in its own way (each sent to the
/// test control plane): the anonymous user, `//` and `..` in paths, a
/// create on the cluster-wide path of a namespaced kind, the protobuf
/// access review `kubectl auth can-i` sends.
#[test]
fn odd_requests_are_answered_as_the_api_server_answers_them() {
    let mut s = served();
    let anonymous = |method: &str, path: &str| Request {
        user: super::rbac::User {
            name: super::rbac::ANONYMOUS.into(),
            groups: vec![super::rbac::UNAUTHENTICATED.into()],
        },
        ..Request::new(method, path)
    };
    let r = send(
        &mut s,
        &anonymous("GET", "/api/v1/namespaces/default/configmaps"),
    );
    assert_eq!(
        (r.code, r.value()["message"].as_str()),
        (
            403,
            Some(
                "configmaps is forbidden: User \"system:anonymous\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\""
            )
        )
    );
    let r = send(&mut s, &anonymous("GET", "/api"));
    assert_eq!(
        r.value()["message"],
        "forbidden: User \"system:anonymous\" cannot get path \"/api\""
    );
    for open in ["/version", "/healthz", "/readyz", "/livez"] {
        assert_eq!(send(&mut s, &anonymous("GET", open)).code, 200, "{open}");
    }
    for odd in [
        "//api/v1/namespaces",
        "/api//v1/namespaces",
        "/api/v1/namespaces/../namespaces",
    ] {
        assert_eq!(get(&mut s, odd).code, 404, "{odd}");
    }
    let r = get(&mut s, "/api/v1/namespaces/shop/configmaps/..");
    assert_eq!(
        (r.code, r.value()["message"].as_str()),
        (400, Some("Name parameter invalid: \"..\": may not be '..'"))
    );
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cw", "namespace": "shop"}});
    let r = send(
        &mut s,
        &with_body("POST", "/api/v1/configmaps", "application/json", &cm),
    );
    assert_eq!(
        (r.code, r.value()["message"].as_str()),
        (
            405,
            Some("the server does not allow this method on the requested resource")
        )
    );
    // `kubectl auth can-i list secrets -n shop`, as its bytes.
    let mut body = b"k8s\0\x0a\x32\x0a\x17authorization.k8s.io/v1\x12\x17SelfSubjectAccessReview\x12\x1b\x0a\x00\x12\x17\x0a\x15\x0a\x04shop\x12\x04list\x2a\x07secrets".to_vec();
    let review = Request {
        content_type: "application/vnd.kubernetes.protobuf".into(),
        body: std::mem::take(&mut body),
        ..Request::new(
            "POST",
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        )
    };
    let r = send(&mut s, &review);
    assert_eq!(
        (r.code, &r.value()["status"]["allowed"]),
        (201, &json!(true)),
        "{:?}",
        r.value()
    );
    let other = Request {
        content_type: "application/vnd.kubernetes.protobuf".into(),
        body: b"k8s\0\x0a\x02\x12\x00".to_vec(),
        ..Request::new("POST", "/api/v1/namespaces/shop/configmaps")
    };
    assert_eq!(send(&mut s, &other).code, 415);
}
