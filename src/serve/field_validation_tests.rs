use serde_json::{Value, json};

use super::super::read;
use super::super::tests::{send, served};
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
