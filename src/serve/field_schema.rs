//! What the built-in kinds' schemas say of a field, as structured-merge-diff
//! reads them to build field sets ([`super::managed`]), told by the
//! field's name and the field that holds it (the model has no schema):
//! which fields are maps of their own keys, which lists are keyed and by
//! what, which structs are owned whole, and which fields a Go zero value
//! already has (an object's `spec`, a pod spec's `containers`), so that a
//! write that fills them did not add them.
//!
//! Checked against the 1.20 test control plane: a container's `ports` are
//! keyed by `containerPort` and `protocol`, a Service's by `port` and
//! `protocol`; a Service's (and a ReplicationController's) `selector` is a
//! map where a workload's is a `LabelSelector`, owned whole.

use serde_json::{Map, Value};

/// What a list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Replaced whole, owned as one field.
    Atomic,
    /// Scalars, each owned (`v:"x"`).
    Set,
    /// Maps keyed by these fields (`k:{"name":"c"}`).
    Keyed(&'static [&'static str]),
}

/// A container's `ports`, as [`qualify`] names them.
const CONTAINER_PORTS: &str = "containers.ports";
/// A Service's `spec.ports`.
const SERVICE_PORTS: &str = "spec.ports";

/// The name the schema functions know the field `name` by, where its
/// parent field (for a list's element, the list) is `parent`: `ports` of
/// a container or of a Service's spec are two lists.
#[must_use]
pub fn qualify<'a>(parent: &str, name: &'a str) -> &'a str {
    match (parent, name) {
        ("containers" | "initContainers" | "ephemeralContainers", "ports") => CONTAINER_PORTS,
        ("spec", "ports") => SERVICE_PORTS,
        _ => name,
    }
}

/// The list `name` holds, as the built-in kinds' schemas say.
#[must_use]
pub fn list_kind(name: &str) -> ListKind {
    match name {
        "finalizers" => ListKind::Set,
        "ownerReferences" => ListKind::Keyed(&["uid"]),
        "containers" | "initContainers" | "ephemeralContainers" | "volumes" | "env" => {
            ListKind::Keyed(&["name"])
        }
        "conditions" => ListKind::Keyed(&["type"]),
        "volumeMounts" => ListKind::Keyed(&["mountPath"]),
        CONTAINER_PORTS => ListKind::Keyed(&["containerPort", "protocol"]),
        SERVICE_PORTS => ListKind::Keyed(&["port", "protocol"]),
        _ => ListKind::Atomic,
    }
}

/// A map whose every value is a string: a Service's `selector`, not a
/// `LabelSelector` (whose fields are a map and a list).
fn string_map(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.values().all(Value::is_string))
}

/// Whether the field `name` holding `v` is a map of its own keys (each
/// key a field owned on its own), not a struct.
#[must_use]
pub fn is_map(name: &str, v: &Value) -> bool {
    match name {
        "labels" | "annotations" | "data" | "binaryData" | "stringData" | "matchLabels"
        | "nodeSelector" => true,
        "selector" => string_map(v),
        _ => false,
    }
}

/// Whether the field `name` holding `v` is owned whole (a struct of the
/// atomic kind: a `LabelSelector`, a `roleRef`).
#[must_use]
pub fn is_atomic_struct(name: &str, v: &Value) -> bool {
    match name {
        "roleRef" => true,
        "selector" => !string_map(v),
        _ => false,
    }
}

/// Whether the Go zero value of the struct holding the field `name` has
/// it (a struct that is no pointer, a list without `omitempty`): a write
/// that fills it did not add it, so it is not a member (`.`) of the
/// write's set. A pod spec's `containers` is `null` in the zero value; an
/// object's `spec`, a workload's `template` and `strategy`, a container's
/// `resources` are there, empty. Not told apart: a ReplicationController's
/// `template`, a pointer where every other workload's is not.
#[must_use]
pub fn in_zero_value(name: &str) -> bool {
    matches!(
        name,
        "metadata"
            | "spec"
            | "status"
            | "template"
            | "jobTemplate"
            | "strategy"
            | "updateStrategy"
            | "resources"
            | "loadBalancer"
            | "containers"
    )
}

/// The value of the key `key` of an element of the keyed list `list`
/// that does not name it, as 1.20 finds it: a container port's
/// `protocol` has the schema's default, `TCP`; a Service port's has
/// none, and an element without it cannot be typed (its Go field is
/// `omitempty`); any other key is a Go field the decoding always has, at
/// its zero value (a container without a name is keyed `""`, and found
/// invalid later).
#[must_use]
pub fn key_default(list: &str, key: &str) -> Option<Value> {
    match (list, key) {
        (CONTAINER_PORTS, "protocol") => Some(Value::from("TCP")),
        (SERVICE_PORTS, "protocol") => None,
        (_, "containerPort" | "port") => Some(Value::from(0)),
        _ => Some(Value::from("")),
    }
}

/// The path element of an element of the keyed list `list`:
/// `k:{"name":"c"}`. A key missing takes its default, as
/// structured-merge-diff fills it; one without: none.
#[must_use]
pub fn key_element(item: &Value, list: &str, keys: &[&str]) -> Option<String> {
    let mut m = Map::new();
    for k in keys {
        let v = match item.get(*k) {
            Some(v) => v.clone(),
            None => key_default(list, k)?,
        };
        m.insert((*k).to_string(), v);
    }
    Some(format!("k:{}", Value::Object(m)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ports_are_keyed_as_their_holder_says() {
        assert_eq!(
            list_kind(qualify("containers", "ports")),
            ListKind::Keyed(&["containerPort", "protocol"])
        );
        assert_eq!(
            list_kind(qualify("spec", "ports")),
            ListKind::Keyed(&["port", "protocol"])
        );
        // An Endpoints subset's ports are atomic.
        assert_eq!(list_kind(qualify("subsets", "ports")), ListKind::Atomic);
        let container = qualify("containers", "ports");
        assert_eq!(
            key_element(
                &json!({"containerPort": 80}),
                container,
                &["containerPort", "protocol"]
            )
            .as_deref(),
            Some(r#"k:{"containerPort":80,"protocol":"TCP"}"#)
        );
        // 1.20's schema has no default for a Service port's protocol.
        let service = qualify("spec", "ports");
        assert_eq!(
            key_element(&json!({"port": 80}), service, &["port", "protocol"]),
            None
        );
        assert_eq!(
            key_element(&json!({"x": 1}), "containers", &["name"]).as_deref(),
            Some(r#"k:{"name":""}"#)
        );
    }

    #[test]
    fn a_services_selector_is_a_map_a_workloads_is_owned_whole() {
        let service = json!({"app": "web"});
        let workload = json!({"matchLabels": {"app": "web"}});
        assert!(is_map("selector", &service) && !is_atomic_struct("selector", &service));
        assert!(!is_map("selector", &workload) && is_atomic_struct("selector", &workload));
    }
}
