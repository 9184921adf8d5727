//! The protobuf `/openapi/v2`'s pieces as kube-apiserver 1.20 writes them
//! (the whole document read back, and against the control plane's:
//! `tests/serve/openapi_v2.rs`).

use super::*;
use serde_json::json;

#[test]
fn a_kind_is_found_by_its_group_version_kind_in_yaml() {
    let doc = json!({"swagger": "2.0", "definitions": {"io.k8s.api.apps.v1.Deployment": {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}],
        "properties": {"spec": {"x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-map-keys": ["a", "b"]}}
    }}});
    let pb = document(&doc);
    let bytes = |s: &str| s.as_bytes().to_vec();
    let found = |needle: &[u8]| pb.windows(needle.len()).any(|w| w == needle);
    // As kube-apiserver 1.20 writes them (read from its answer).
    assert!(found(&bytes(
        "- group: apps\n  kind: Deployment\n  version: v1\n"
    )));
    assert!(found(&bytes("merge\n")));
    assert!(found(&bytes("[\"a\",\"b\"]\n")));
}

#[test]
fn yaml_quotes_what_would_not_read_back() {
    assert_eq!(yaml(&json!("merge")), "merge\n");
    assert_eq!(yaml(&json!("true")), "\"true\"\n");
    assert_eq!(yaml(&json!("a: b")), "\"a: b\"\n");
    assert_eq!(yaml(&json!("")), "\"\"\n");
    assert_eq!(yaml(&json!(3)), "3\n");
    assert_eq!(yaml(&json!(true)), "true\n");
    assert_eq!(yaml(&json!([{"a": "x y"}])), "- a: \"x y\"\n");
    assert_eq!(yaml(&json!([{"a": {"b": 1}}])), "[{\"a\":{\"b\":1}}]\n");
}

#[test]
fn the_form_is_picked_as_kube_openapi_picks_it() {
    assert_eq!(form(""), Some(V2Form::Json));
    assert_eq!(form("application/json"), Some(V2Form::Json));
    assert_eq!(form("*/*"), Some(V2Form::Json));
    assert_eq!(form(MEDIA), Some(V2Form::Protobuf));
    assert_eq!(
        form(&format!("{MEDIA}, application/json")),
        Some(V2Form::Protobuf)
    );
    // Answered 406 by kube-apiserver 1.20.
    assert_eq!(
        form("application/com.github.proto-openapi.spec.v2.v1.0+protobuf"),
        None
    );
    assert_eq!(form("application/vnd.kubernetes.protobuf"), None);
}
