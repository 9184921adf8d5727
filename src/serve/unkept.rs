//! The fields a client wrote that the simulator does not keep: a
//! ConfigMap's `data`, a Secret's `data`, a pod template's every field
//! but the containers' names and images, `metadata.generateName`, and
//! any part of `spec` and `status` that [`crate::model::kept`] leaves
//! out. kube-apiserver returns what it stored; so does serve, merging
//! them back into every object it sends.
//!
//! They are kept in the object itself, beside its `managedFields` (the
//! slot serve already owns in [`crate::model::object::Extra`]): that
//! list's entries, then the unkept fields as one JSON string, last. So
//! they go wherever the object goes, with nothing to keep in step: the
//! store's change history (watches), the journal and the snapshot of
//! `--state-dir`, a dry run's copy, and the simulator's own equality
//! (a write that changes only `data` is a change, with a new resource
//! version and a watch event). An object without such fields carries
//! nothing more; one with them, their JSON text (a string, not a tree of
//! values: a ConfigMap's `{"data":{"k":"v"}}` costs its 18 bytes and one
//! allocation). The split and the merge are the model's
//! ([`crate::model::unkept`]): the simulator's controllers copy a
//! template whole with them.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::managed::{self, Entry};
use crate::model::{KindInfo, Object};

pub use crate::model::unkept::{managed_fields, merge, object_of, of, set, split};

/// The object's unkept fields as their JSON text.
#[must_use]
pub fn text_of(o: &Object) -> Option<&str> {
    o.extra().unkept_text()
}

/// The object's `managedFields` entries.
#[must_use]
pub fn entries_of(o: &Object) -> Vec<Entry> {
    managed::entries(managed_fields(o).as_ref())
}

/// Sets the object's `managedFields` entries, its unkept fields kept.
pub fn set_entries(o: &mut Object, entries: &[Entry]) {
    let text = text_of(o).map(str::to_string);
    let managed = (!entries.is_empty()).then(|| managed::to_value(entries));
    crate::model::unkept::fill_slot(o, managed, text);
}

/// `rest` with its `status` taken from `from` (a write whose status is
/// not its own: the stored one's stays; a write of `/status`: the other
/// way round).
#[must_use]
pub fn with_status_of(rest: Option<Value>, from: Option<&Value>) -> Option<Value> {
    let mut m = match rest {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    m.remove("status");
    if let Some(s) = from.and_then(|f| f.get("status")) {
        m.insert("status".into(), s.clone());
    }
    (!m.is_empty()).then_some(Value::Object(m))
}

/// A data value that is not base64: 400, as kube-apiserver's decoder.
fn not_base64(kind: &str, field: &str, e: &base64::DecodeError) -> String {
    let at = match e {
        base64::DecodeError::InvalidByte(i, _) | base64::DecodeError::InvalidLastSymbol(i, _) => {
            format!(" at input byte {i}")
        }
        _ => String::new(),
    };
    format!(
        "{kind} in version \"v1\" cannot be handled as a {kind}: v1.{kind}.{field}: decode base64: illegal base64 data{at}"
    )
}

/// Checks that every value of `v[field]` is base64.
fn base64_values(kind: &str, v: &Value, field: &str) -> Result<(), String> {
    let Some(m) = v.get(field).and_then(Value::as_object) else {
        return Ok(());
    };
    for value in m.values() {
        if let Some(s) = value.as_str() {
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|e| {
                    let mut f = field.to_string();
                    if let Some(c) = f.get_mut(..1) {
                        c.make_ascii_uppercase();
                    }
                    not_base64(kind, &f, &e)
                })?;
        }
    }
    Ok(())
}

/// What kube-apiserver's decoding and defaulting make of a written
/// Secret or ConfigMap: a Secret's `stringData` merged into `data`
/// (base64; it wins over a `data` key of the same name) and never stored,
/// its `type` `Opaque` when unset; the base64 fields checked; a webhook
/// configuration's defaults ([`super::webhook_defaults`]).
///
/// # Errors
/// A base64 field that is not (the 400's message).
pub fn normalize(kind: &KindInfo, v: &mut Value) -> Result<(), String> {
    super::webhook_defaults::fill(kind, v);
    if !kind.group.is_empty() {
        return Ok(());
    }
    match kind.kind.as_str() {
        "ConfigMap" => base64_values("ConfigMap", v, "binaryData"),
        "Secret" => {
            base64_values("Secret", v, "data")?;
            let Some(m) = v.as_object_mut() else {
                return Ok(());
            };
            if let Some(Value::Object(strings)) = m.remove("stringData") {
                let data = m.entry("data").or_insert_with(|| Value::Object(Map::new()));
                if !data.is_object() {
                    *data = Value::Object(Map::new());
                }
                if let Value::Object(d) = data {
                    for (k, s) in strings {
                        let text = s.as_str().unwrap_or_default();
                        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
                        d.insert(k, Value::String(encoded));
                    }
                }
            }
            if m.get("type")
                .is_none_or(|t| t.as_str().is_none_or(str::is_empty))
            {
                m.insert("type".into(), Value::from("Opaque"));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(k: &str) -> KindInfo {
        crate::model::KindTable::builtin()
            .iter()
            .find(|i| i.group.is_empty() && i.kind == k)
            .cloned()
            .expect("builtin")
    }

    #[test]
    fn what_the_simulator_drops_is_split_off_and_merged_back_whole() {
        let body = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "generateName": "w-", "labels": {"a": "1"}},
            "spec": {
                "replicas": 2,
                "strategy": {"type": "Recreate"},
                "template": {
                    "metadata": {"labels": {"app": "web"}, "annotations": {"x": "y"}},
                    "spec": {"containers": [
                        {"name": "c", "image": "i", "env": [{"name": "A", "value": "1"}]},
                        {"name": "d", "image": "j"}
                    ], "dnsPolicy": "None"}
                }
            },
            "status": {"readyReplicas": 1, "collisionCount": 3},
        });
        let rest = split(&body).expect("some");
        assert_eq!(rest["metadata"], json!({"generateName": "w-"}));
        assert_eq!(rest["spec"]["strategy"], json!({"type": "Recreate"}));
        assert!(rest["spec"].get("replicas").is_none());
        assert_eq!(
            rest["spec"]["template"]["spec"]["containers"],
            json!([{"env": [{"name": "A", "value": "1"}]}, {}])
        );
        assert_eq!(rest["status"], json!({"collisionCount": 3}));
        let o = object_of(&body).expect("object");
        let mut v = serde_json::to_value(&o).expect("value");
        v.as_object_mut().expect("map").remove("managedFields");
        merge(&mut v, &of(&o).expect("kept"));
        assert_eq!(v, body, "what was written is what is read");
    }

    /// `kubectl apply`'s `last-applied-configuration`, which the model
    /// drops, is kept with the unkept fields and read back with the
    /// object's other annotations, as written.
    #[test]
    fn the_last_applied_configuration_is_read_back_as_written() {
        let last =
            r#"{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"a"}}"#;
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": last, "note": "x"}},
            "data": {"k": "v"}});
        let rest = split(&body).expect("some");
        assert_eq!(
            rest["metadata"],
            json!({"annotations": {"kubectl.kubernetes.io/last-applied-configuration": last}})
        );
        let o = object_of(&body).expect("object");
        assert_eq!(
            o.metadata.annotations.len(),
            1,
            "the model keeps the note only"
        );
        let mut v = serde_json::to_value(&o).expect("value");
        v.as_object_mut().expect("map").remove("managedFields");
        merge(&mut v, &of(&o).expect("kept"));
        assert_eq!(v, body, "what was written is what is read");
        // Only that annotation: the others are the model's.
        let plain = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "annotations": {"note": "x"}}});
        assert_eq!(split(&plain), None);
    }

    #[test]
    fn an_object_without_unkept_fields_carries_nothing_more() {
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
                          "metadata": {"name": "a", "labels": {"x": "y"}}});
        assert_eq!(split(&body), None);
        let o = object_of(&body).expect("object");
        assert!(o.extra.is_none());
    }

    #[test]
    fn entries_and_unkept_fields_share_the_slot_without_losing_each_other() {
        let mut o = object_of(&json!({"apiVersion": "v1", "kind": "ConfigMap",
                                      "metadata": {"name": "a"}, "data": {"k": "v"}}))
        .expect("object");
        assert_eq!(text_of(&o), Some(r#"{"data":{"k":"v"}}"#));
        let e = Entry {
            manager: "m".into(),
            operation: "Update".into(),
            api_version: "v1".into(),
            time: "2026-01-01T00:00:00Z".into(),
            set: managed::FieldSet::from_v1(&json!({"f:data": {"f:k": {}}})),
        };
        set_entries(&mut o, std::slice::from_ref(&e));
        assert_eq!(entries_of(&o).len(), 1);
        assert_eq!(of(&o), Some(json!({"data": {"k": "v"}})));
        set(&mut o, None);
        assert_eq!(entries_of(&o).len(), 1);
        assert_eq!(of(&o), None);
        set_entries(&mut o, &[]);
        assert!(o.extra.is_none());
    }

    #[test]
    fn a_templates_null_creation_time_is_no_field_written() {
        // What a client that read a Deployment writes back.
        let body = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"},
            "spec": {"template": {"metadata": {"creationTimestamp": null, "labels": {"a": "1"}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}]}},
                     "jobTemplate": {"metadata": {"creationTimestamp": null, "generateName": "j-"},
                                     "spec": {"template": {"metadata": {"creationTimestamp": null}}}}}});
        assert_eq!(
            split(&body),
            Some(json!({"spec": {"jobTemplate": {"metadata": {"generateName": "j-"}}}}))
        );
        let only = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"},
                          "spec": {"template": {"metadata": {"creationTimestamp": null}}}});
        assert_eq!(split(&only), None, "nothing else written, nothing kept");
        // A timestamp that is one is the client's.
        let set = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"},
                         "spec": {"template": {"metadata": {"creationTimestamp": "2020-01-01T00:00:00Z"}}}});
        assert!(split(&set).is_some());
    }

    #[test]
    fn a_list_the_simulator_changed_the_length_of_is_its_own() {
        let mut v = json!({"spec": {"containers": [{"name": "a"}]}});
        merge(
            &mut v,
            &json!({"spec": {"containers": [{"env": []}, {"env": []}]}}),
        );
        assert_eq!(v, json!({"spec": {"containers": [{"name": "a"}]}}));
    }

    #[test]
    fn a_secrets_string_data_becomes_data_and_its_type_defaults() {
        let mut v = json!({"stringData": {"x": "hello"}, "data": {"x": "b2xk", "y": "b2xk"}});
        normalize(&kind("Secret"), &mut v).expect("valid");
        assert_eq!(
            v,
            json!({"data": {"x": "aGVsbG8=", "y": "b2xk"}, "type": "Opaque"})
        );
        let mut bad = json!({"data": {"k": "not base64!"}});
        let e = normalize(&kind("Secret"), &mut bad).expect_err("refused");
        assert_eq!(
            e,
            "Secret in version \"v1\" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 3"
        );
        let mut typed = json!({"type": "kubernetes.io/tls"});
        normalize(&kind("Secret"), &mut typed).expect("valid");
        assert_eq!(typed["type"], "kubernetes.io/tls");
    }
}
