use serde_json::{Value, json};

use super::super::read;
use super::super::tests::{send, served, with_body};
use super::*;
use crate::model::KindTable;
use crate::sim::scenario;

fn kind(group: &str, version: &str, k: &str) -> KindInfo {
    let mut info = KindTable::builtin()
        .iter()
        .find(|x| x.group == group && x.kind == k)
        .cloned()
        .unwrap_or_else(|| panic!("{group} {k} is built in"));
    info.version = version.into();
    info
}

fn unknown_in(group: &str, version: &str, k: &str, obj: &Value) -> Vec<String> {
    let sim = served().sim;
    Schema::of(&sim, &kind(group, version, k)).unknown_fields(obj)
}

fn deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [
                                  {"name": "a", "image": "nginx", "ports": [{"containerPort": 80}]},
                                  {"name": "b", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}]}}}})
}

#[test]
fn a_well_formed_object_has_no_unknown_field() {
    assert_eq!(
        unknown_in("apps", "v1", "Deployment", &deployment()),
        Vec::<String>::new()
    );
}

#[test]
fn unknown_fields_are_found_at_any_depth_sorted_by_path() {
    let mut d = deployment();
    d["spec"]["replica"] = json!(3);
    d["spec"]["template"]["spec"]["containers"][1]["imagePullPolicyy"] = json!("Always");
    d["spec"]["template"]["spec"]["containers"][0]["ports"][0]["hostPortt"] = json!(1);
    d["metadata"]["lables"] = json!({"a": "b"});
    d["spek"] = json!({});
    assert_eq!(
        unknown_in("apps", "v1", "Deployment", &d),
        [
            "metadata.lables",
            "spec.replica",
            "spec.template.spec.containers[0].ports[0].hostPortt",
            "spec.template.spec.containers[1].imagePullPolicyy",
            "spek",
        ]
    );
}

#[test]
fn a_map_takes_any_key_and_walks_its_values() {
    // ConfigMap.data: a map of strings; labels too.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "annotations": {"any/key": "v"}},
        "data": {"whatever": "x"}, "binaryData": {"b": "eA=="}});
    assert!(unknown_in("", "v1", "ConfigMap", &cm).is_empty());
    // A CRD's `properties`: a map of schemas, each walked, named `[key]`.
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "dbs.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "dbs", "kind": "Db"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                         "spec": {"type": "object", "typo": true,
                                  "x-kubernetes-preserve-unknown-fields": true}}}}}]}});
    assert_eq!(
        unknown_in(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            &crd
        ),
        ["spec.versions[0].schema.openAPIV3Schema.properties[spec].typo"]
    );
}

#[test]
fn a_free_form_field_takes_anything() {
    // ControllerRevision.data is a RawExtension.
    let rev = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": "r"}, "revision": 1, "data": {"spec": {"anything": [1, {"x": 2}]}}});
    assert!(unknown_in("apps", "v1", "ControllerRevision", &rev).is_empty());
}

#[test]
fn a_kind_1_20_lacks_in_the_version_is_checked_at_its_top_level_only() {
    // batch/v1 CronJob came in 1.21.
    let cron = json!({"apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "c", "lables": {}}, "spec": {"schedulee": "x"}, "extra": 1});
    assert_eq!(
        unknown_in("batch", "v1", "CronJob", &cron),
        ["extra", "metadata.lables"]
    );
}

fn crd_of(schema: &Value) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "databases.fv.example.com"},
        "spec": {"group": "fv.example.com", "scope": "Namespaced",
                 "names": {"plural": "databases", "singular": "database", "kind": "Database"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": schema}}]}})
}

/// The unknown fields of `obj`, a Database of a CRD created with
/// `schema` through serve.
fn custom_unknown(schema: &Value, obj: &Value) -> Vec<String> {
    let mut s = served();
    let mut req = Request::new(
        "POST",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    );
    req.content_type = "application/json".into();
    req.body = serde_json::to_vec(&crd_of(schema)).expect("json");
    let r = send(&mut s, &req);
    assert_eq!(r.code, 201, "{:?}", r.value());
    let k = s
        .sim
        .kinds()
        .iter()
        .find(|k| k.kind == "Database")
        .cloned()
        .expect("the CRD's kind is served");
    Schema::of(&s.sim, &k).unknown_fields(obj)
}

#[test]
fn a_custom_resource_is_checked_against_its_crd_schema() {
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "integer"},
            "port": {"x-kubernetes-int-or-string": true},
            "replicas": {"type": "array", "items": {"type": "object", "properties": {"zone": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "properties": {"spec": {"type": "object"}}}}},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}});
    let db = json!({"apiVersion": "fv.example.com/v1", "kind": "Database",
        "metadata": {"name": "d", "lables": {}},
        "spec": {"size": 1, "port": "http", "sise": 2,
                 "replicas": [{"zone": "a"}, {"zonee": "b"}],
                 "labels": {"any": "x"},
                 "config": {"free": {"form": true}},
                 "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "x": 1},
                              "spec": {"anything": 1}, "other": 1}},
        "status": {"phase": "Ready", "phasee": "x"}});
    assert_eq!(
        custom_unknown(&schema, &db),
        [
            "metadata.lables",
            "spec.replicas[1].zonee",
            "spec.sise",
            "spec.template.metadata.x",
            "spec.template.other",
            "status.phasee",
        ]
    );
}

#[test]
fn a_crd_that_keeps_unknown_fields_takes_any_but_in_metadata() {
    let schema = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let db = json!({"apiVersion": "fv.example.com/v1", "kind": "Database",
        "metadata": {"name": "d", "lables": {}}, "spec": {"a": 1}, "data": 2});
    assert_eq!(custom_unknown(&schema, &db), ["metadata.lables"]);
}

fn with_query(query: &str) -> Request {
    Request::new(
        "POST",
        &format!("/api/v1/namespaces/shop/configmaps{query}"),
    )
}

#[test]
fn the_directive_is_warn_when_absent_and_another_value_is_refused() {
    assert_eq!(
        directive(&with_query(""), "CreateOptions").ok(),
        Some(Directive::Warn)
    );
    assert_eq!(
        directive(&with_query("?fieldValidation=Strict"), "CreateOptions").ok(),
        Some(Directive::Strict)
    );
    assert_eq!(
        directive(&with_query("?fieldValidation=Ignore"), "CreateOptions").ok(),
        Some(Directive::Ignore)
    );
    let refused = directive(&with_query("?fieldValidation=strict"), "CreateOptions")
        .expect_err("case matters");
    assert_eq!(refused.code, 422);
    assert_eq!(
        refused.value()["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""
    );
}

#[test]
fn an_apply_names_list_items_by_their_merge_key() {
    let sim = served().sim;
    let mut d = deployment();
    d["spec"]["replica"] = json!(3);
    d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = json!("Always");
    let r = check_applied(&sim, &kind("apps", "v1", "Deployment"), &d).expect_err("refused");
    assert_eq!(r.code, 500);
    let v = r.value();
    assert_eq!(
        v["message"],
        "failed to create typed patch object: errors:\n  .spec.replica: field not declared in schema\n  .spec.template.spec.containers[name=\"a\"].imagePullPolicyy: field not declared in schema"
    );
    assert!(v.get("reason").is_none(), "{v}");
    assert!(check_applied(&sim, &kind("apps", "v1", "Deployment"), &deployment()).is_ok());
}

/// What serve sends of every object of every bundled scenario passes its
/// own check: a patch of it under `Strict` is refused only for what the
/// patch adds.
#[test]
fn what_serve_sends_has_no_unknown_field() {
    for (name, _) in scenario::BUNDLED {
        let sim = Sim::load(scenario::bundled(name).expect("bundled")).expect("loads");
        for o in sim.objects() {
            let Some(k) = sim
                .kinds()
                .iter()
                .find(|k| k.group == o.group() && k.kind == o.kind)
            else {
                continue;
            };
            let v = read::completed_value(o, sim.graph());
            let found = Schema::of(&sim, k).unknown_fields(&v);
            assert!(
                found.is_empty(),
                "{name}: {} {}: {found:?}",
                o.kind,
                o.name()
            );
        }
    }
}

/// A request of `body` (the text as sent, repeats and all) under
/// `fieldValidation=directive` (none when empty).
fn raw_request(
    method: &str,
    path: &str,
    directive: &str,
    content_type: &str,
    body: &str,
) -> Request {
    let query = if directive.is_empty() {
        String::new()
    } else {
        format!("?fieldValidation={directive}")
    };
    Request {
        content_type: content_type.into(),
        body: body.as_bytes().to_vec(),
        ..Request::new(method, &format!("{path}{query}"))
    }
}

/// The message of the 400 of a create of `body` at `path` under
/// `Strict`.
fn refused_create(s: &mut crate::serve::state::Served, path: &str, body: &str) -> String {
    let r = send(
        s,
        &raw_request("POST", path, "Strict", "application/json", body),
    );
    assert_eq!(r.code, 400, "{:?}", r.value());
    r.value()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The message of the 422 of a patch of `body` (`media`) at `path`
/// under `Strict`.
fn refused_patch(
    s: &mut crate::serve::state::Served,
    path: &str,
    media: &str,
    body: &str,
) -> String {
    let r = send(s, &raw_request("PATCH", path, "Strict", media, body));
    assert_eq!(r.code, 422, "{media}: {:?}", r.value());
    r.value()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Upstream's `invalidBodyJSON` (test/integration/apiserver/
/// field_validation_test.go): unknown fields, repeated ones, one both.
fn invalid_deployment(name: &str) -> String {
    format!(
        r#"{{
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {{
            "name": "{name}",
            "name": "{name}",
            "unknownMeta": "metaVal",
            "labels": {{"app": "nginx"}}
        }},
        "spec": {{
            "unknown1": "val1",
            "unknownDupe": "valDupe",
            "unknownDupe": "valDupe2",
            "paused": true,
            "paused": false,
            "selector": {{"matchLabels": {{"app": "nginx"}}}},
            "template": {{
                "metadata": {{"labels": {{"app": "nginx"}}}},
                "spec": {{
                    "containers": [{{
                        "name": "nginx",
                        "image": "nginx:latest",
                        "unknownNested": "val1",
                        "imagePullPolicy": "Always",
                        "imagePullPolicy": "Never"
                    }}]
                }}
            }}
        }}
    }}"#
    )
}

/// What upstream's test expects of it, for a create and an update: a
/// typed object's errors in the body's order, `unknownDupe` once.
const INVALID_DEPLOYMENT: [&str; 7] = [
    r#"duplicate field "metadata.name""#,
    r#"unknown field "metadata.unknownMeta""#,
    r#"unknown field "spec.unknown1""#,
    r#"unknown field "spec.unknownDupe""#,
    r#"duplicate field "spec.paused""#,
    r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
    r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
];

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/shop/deployments";

#[test]
fn a_create_or_update_names_repeated_fields_with_unknown_ones_in_body_order() {
    let mut s = served();
    // The invalid Deployment `name`, sent with a fieldValidation directive.
    let send_invalid = |s: &mut crate::serve::state::Served,
                        method: &str,
                        path: &str,
                        directive: &str,
                        name: &str| {
        send(
            s,
            &raw_request(
                method,
                path,
                directive,
                "application/json",
                &invalid_deployment(name),
            ),
        )
    };
    // The Deployment updated: made first with the same selector, which an
    // update may not change (as upstream's test updates the one it made).
    let made = send_invalid(&mut s, "POST", DEPLOYMENTS, "Ignore", "kept");
    assert_eq!(made.code, 201, "{:?}", made.value());
    for (method, path, name) in [
        ("POST", DEPLOYMENTS.to_string(), "dup"),
        ("PUT", format!("{DEPLOYMENTS}/kept"), "kept"),
    ] {
        let r = send_invalid(&mut s, method, &path, "Strict", name);
        assert_eq!(r.code, 400, "{method}: {:?}", r.value());
        assert_eq!(
            r.value()["message"],
            format!(
                "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: {}",
                INVALID_DEPLOYMENT.join(", ")
            ),
            "{method}"
        );
        // Warn, and a client that says nothing: taken, each one warned.
        for directive in ["Warn", ""] {
            let r = send_invalid(&mut s, method, &path, directive, name);
            assert!(
                r.code == 200 || r.code == 201,
                "{method} {directive}: {:?}",
                r.value()
            );
            assert_eq!(r.warnings, INVALID_DEPLOYMENT, "{method} {directive}");
            if method == "POST" {
                let d = send(
                    &mut s,
                    &Request::new("DELETE", &format!("{DEPLOYMENTS}/dup")),
                );
                assert_eq!(d.code, 200, "{:?}", d.value());
            }
        }
    }
    // Ignore: taken silently, the last of each repeated value kept, as
    // Go's decoding keeps it.
    let r = send_invalid(&mut s, "POST", DEPLOYMENTS, "Ignore", "dup");
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let v = r.value();
    assert_eq!(v["spec"]["paused"], false);
    assert_eq!(
        v["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"],
        "Never"
    );
    assert!(v["spec"].get("unknownDupe").is_none(), "{v}");
}

#[test]
fn a_repeat_inside_an_unknown_or_free_form_field_is_not_named_of_a_typed_object() {
    let mut s = served();
    // `spec.extra` is unknown: its value is skipped whole. A label's key
    // is a map's entry: named. A ControllerRevision's `data` is a
    // RawExtension, decoded apart: not looked into.
    let deployment = r#"{"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "maps", "labels": {"app": "a", "app": "b"}},
        "spec": {"extra": {"x": 1, "x": 2},
                 "selector": {"matchLabels": {"app": "b"}},
                 "template": {"metadata": {"labels": {"app": "b"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}}"#;
    let r = send(
        &mut s,
        &raw_request("POST", DEPLOYMENTS, "Warn", "application/json", deployment),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert_eq!(
        r.warnings,
        [
            r#"duplicate field "metadata.labels.app""#,
            r#"unknown field "spec.extra""#
        ]
    );
    let revision = r#"{"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": "r"}, "revision": 1, "revision": 2,
        "data": {"spec": {"a": 1, "a": 2}}}"#;
    let r = send(
        &mut s,
        &raw_request(
            "POST",
            "/apis/apps/v1/namespaces/shop/controllerrevisions",
            "Warn",
            "application/json",
            revision,
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert_eq!(r.warnings, [r#"duplicate field "revision""#]);
    assert_eq!(r.value()["revision"], 2);
}

#[test]
fn an_unknown_field_set_to_null_is_unknown() {
    let mut s = served();
    let body = r#"{"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "n", "lables": null}, "data": {"a": "b"}, "extra": null}"#;
    assert_eq!(
        refused_create(&mut s, "/api/v1/namespaces/shop/configmaps", body),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"metadata.lables\", unknown field \"extra\""
    );
    // A patch of a kind without a `spec` finds none in the patched object.
    let cm = r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}}"#;
    let cms = "/api/v1/namespaces/shop/configmaps";
    let r = send(
        &mut s,
        &raw_request("POST", cms, "Strict", "application/json", cm),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    for media in [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    ] {
        let r = send(
            &mut s,
            &raw_request(
                "PATCH",
                &format!("{cms}/n"),
                "Strict",
                media,
                r#"{"data": {"a": "b"}}"#,
            ),
        );
        assert_eq!(r.code, 200, "{media}: {:?}", r.value());
        assert!(r.warnings.is_empty(), "{media}: {:?}", r.warnings);
        assert!(r.value().get("spec").is_none(), "{media}: {:?}", r.value());
    }
    // A JSON patch that adds one: the patched object carries it.
    let patch = r#"[{"op": "add", "path": "/spec/extra", "value": null}]"#;
    let r = send(
        &mut s,
        &raw_request(
            "PATCH",
            &format!("{DEPLOYMENTS}/web"),
            "Warn",
            "application/json-patch+json",
            patch,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.warnings, [r#"unknown field "spec.extra""#]);
    // A merge patch's null takes a field out: nothing unknown is left.
    let r = send(
        &mut s,
        &raw_request(
            "PATCH",
            &format!("{DEPLOYMENTS}/web"),
            "Strict",
            "application/merge-patch+json",
            r#"{"spec": {"extra": null}}"#,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// Upstream's `mergePatchBody`, also sent as a strategic merge patch.
const MERGE_PATCH: &str = r#"{
    "spec": {
        "unknown1": "val1",
        "unknownDupe": "valDupe",
        "unknownDupe": "valDupe2",
        "paused": true,
        "paused": false,
        "template": {
            "spec": {
                "containers": [{
                    "name": "nginx",
                    "image": "nginx:latest",
                    "unknownNested": "val1",
                    "imagePullPolicy": "Always",
                    "imagePullPolicy": "Never"
                }]
            }
        }
    }
}"#;

#[test]
fn a_merge_patch_names_every_key_it_repeats_before_the_unknown_fields() {
    // Decoded as a map: `unknownDupe` is repeated and unknown both.
    let expected = [
        r#"duplicate field "spec.unknownDupe""#,
        r#"duplicate field "spec.paused""#,
        r#"duplicate field "spec.template.spec.containers[0].imagePullPolicy""#,
        r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
        r#"unknown field "spec.unknown1""#,
        r#"unknown field "spec.unknownDupe""#,
    ];
    for media in [
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
    ] {
        let mut s = served();
        let path = format!("{DEPLOYMENTS}/web");
        let message = refused_patch(&mut s, &path, media, MERGE_PATCH);
        assert!(
            message.ends_with(&format!("strict decoding error: {}", expected.join(", "))),
            "{media}: {message}"
        );
        let r = send(
            &mut s,
            &raw_request("PATCH", &path, "Warn", media, MERGE_PATCH),
        );
        assert_eq!(r.code, 200, "{media}: {:?}", r.value());
        assert_eq!(r.warnings, expected, "{media}");
        assert_eq!(r.value()["spec"]["paused"], false, "{media}");
        // A patch that only repeats a field is refused for that alone.
        let only = r#"{"spec": {"paused": true, "paused": false}}"#;
        let message = refused_patch(&mut s, &path, media, only);
        assert!(
            message.ends_with(r#"strict decoding error: duplicate field "spec.paused""#),
            "{media}: {message}"
        );
        let r = send(
            &mut s,
            &raw_request("PATCH", &path, "Ignore", media, MERGE_PATCH),
        );
        assert_eq!(r.code, 200, "{media}: {:?}", r.value());
        assert!(r.warnings.is_empty(), "{media}: {:?}", r.warnings);
    }
}

#[test]
fn a_json_patch_names_its_operations_fields_and_the_patched_object_s() {
    // Upstream's `jsonPatchBody`: the repeated `path` of an operation is
    // named, the last one taken; what repeats in the object is not seen.
    let patch = r#"[
        {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo": "bar"},
        {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
        {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
        {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
        {"op": "add", "path": "/spec/paused", "value": true},
        {"op": "add", "path": "/spec/paused", "value": false},
        {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
        {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
        {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
    ]"#;
    let expected = [
        r#"json patch unknown field "[0].foo""#,
        r#"json patch duplicate field "[1].path""#,
        r#"unknown field "spec.template.spec.containers[0].unknownNested""#,
        r#"unknown field "spec.unknown1""#,
        r#"unknown field "spec.unknown3""#,
        r#"unknown field "spec.unknownDupe""#,
    ];
    let mut s = served();
    let path = format!("{DEPLOYMENTS}/web");
    let media = "application/json-patch+json";
    let message = refused_patch(&mut s, &path, media, patch);
    assert!(
        message.ends_with(&format!("strict decoding error: {}", expected.join(", "))),
        "{message}"
    );
    let r = send(&mut s, &raw_request("PATCH", &path, "Warn", media, patch));
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.warnings, expected);
    // A repeat inside an operation's value is named from the operation.
    let r = send(
        &mut s,
        &raw_request(
            "PATCH",
            &path,
            "Warn",
            media,
            r#"[{"op": "add", "path": "/metadata/labels", "value": {"a": "1", "a": "2"}}]"#,
        ),
    );
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert_eq!(r.warnings, [r#"json patch duplicate field "[0].value.a""#]);
    assert_eq!(r.value()["metadata"]["labels"]["a"], "2");
}

#[test]
fn a_custom_resource_s_repeats_come_first_at_any_depth() {
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "knownField1": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "ports": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "hostPort": {"type": "integer"}}}}}}}});
    let mut s = served();
    let r = send(
        &mut s,
        &with_body(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            &crd_of(&schema),
        ),
    );
    assert_eq!(r.code, 201, "{:?}", r.value());
    // Read as a map: a repeat is named wherever it is, known or not.
    let body = r#"{"apiVersion": "fv.example.com/v1", "kind": "Database",
        "metadata": {"name": "d", "name": "d", "unknownMeta": 1},
        "spec": {"unknown1": "v", "unknownDupe": 1, "unknownDupe": 2,
                 "knownField1": "a", "knownField1": "b",
                 "free": {"x": 1, "x": 2},
                 "ports": [{"name": "p", "hostPort": 1, "hostPort": 2, "unknownNested": 1}]}}"#;
    assert_eq!(
        refused_create(
            &mut s,
            "/apis/fv.example.com/v1/namespaces/shop/databases",
            body
        ),
        "Database in version \"v1\" cannot be handled as a Database: strict decoding error: duplicate field \"metadata.name\", duplicate field \"spec.unknownDupe\", duplicate field \"spec.knownField1\", duplicate field \"spec.free.x\", duplicate field \"spec.ports[0].hostPort\", unknown field \"metadata.unknownMeta\", unknown field \"spec.ports[0].unknownNested\", unknown field \"spec.unknown1\", unknown field \"spec.unknownDupe\""
    );
}

/// Upstream's `applyInvalidBody`: JSON, read as YAML, two keys repeated
/// (on its lines 10 and 27).
const APPLY_INVALID: &str = r#"{
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "applied",
        "labels": {"app": "nginx"}
    },
    "spec": {
        "paused": false,
        "paused": true,
        "selector": {
            "matchLabels": {
                "app": "nginx"
            }
        },
        "template": {
            "metadata": {
                "labels": {
                    "app": "nginx"
                }
            },
            "spec": {
                "containers": [{
                    "name":  "nginx",
                    "image": "nginx:latest",
                    "imagePullPolicy": "Never",
                    "imagePullPolicy": "Always"
                }]
            }
        }
    }
}"#;

#[test]
fn an_apply_names_the_keys_its_yaml_repeats_by_line() {
    let mut s = served();
    let path = format!("{DEPLOYMENTS}/applied?fieldManager=mgr&");
    let apply = |directive: &str| Request {
        content_type: "application/apply-patch+yaml".into(),
        body: APPLY_INVALID.as_bytes().to_vec(),
        ..Request::new("PATCH", &format!("{path}fieldValidation={directive}"))
    };
    let lines = [
        r#"line 10: key "paused" already set in map"#,
        r#"line 27: key "imagePullPolicy" already set in map"#,
    ];
    let refused = |r: &Response| {
        assert_eq!(r.code, 400, "{:?}", r.value());
        assert_eq!(
            r.value()["message"],
            format!(
                "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
                lines.join("\n  ")
            )
        );
    };
    // Create, then update: refused under Strict, warned under Warn.
    refused(&send(&mut s, &apply("Strict")));
    assert_eq!(
        send(
            &mut s,
            &Request::new("GET", &format!("{DEPLOYMENTS}/applied"))
        )
        .code,
        404
    );
    let r = send(&mut s, &apply("Warn"));
    assert_eq!(r.code, 201, "{:?}", r.value());
    assert_eq!(r.warnings, lines);
    assert_eq!(r.value()["spec"]["paused"], true);
    refused(&send(&mut s, &apply("Strict")));
    let r = send(&mut s, &apply("Ignore"));
    assert_eq!(r.code, 200, "{:?}", r.value());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}
