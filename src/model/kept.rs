//! Which fields of `spec` and `status` ownerscope keeps.
//!
//! Metadata is kept whole (less what [`super::object`] drops); of `spec` and
//! `status` only the fields that a deletion rule, a controller or the UI
//! reads. Everything else is skipped while the file or the list is read, so
//! a pod's containers, a CRD's schema or a Deployment's pod template never
//! reach memory: a 100k-object `kubectl get -o json` List costs what its
//! metadata costs.
//!
//! The table is by field name, the same for every kind (a field name means
//! the same wherever the rules read it). To let a rule read a new field, add
//! its path here; `tests` below keeps the list honest.

use serde::Deserializer;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::object::StringMap;
use std::fmt;

/// What to keep of a value.
#[derive(Clone, Copy, Debug)]
pub enum Keep {
    /// The whole value.
    All,
    /// Of a map, these fields (each with what to keep of it); of a list, the
    /// same for each element; a scalar whole.
    Fields(&'static [(&'static str, Keep)]),
}

const LABELS: Keep = Keep::Fields(&[("labels", Keep::All)]);
const NAME_AND_LABELS: Keep = Keep::Fields(&[("name", Keep::All), ("labels", Keep::All)]);

/// `spec`: who reads each field.
pub const SPEC: Keep = Keep::Fields(&[
    // Pods: kubelet and PVC protection (R15, R63), scheduling.
    ("nodeName", Keep::All),
    ("terminationGracePeriodSeconds", Keep::All),
    (
        "volumes",
        Keep::Fields(&[
            ("name", Keep::All),
            ("persistentVolumeClaim", Keep::All),
            // Only whether it is there: the claim is `<pod>-<volume>`.
            ("ephemeral", Keep::Fields(&[])),
        ]),
    ),
    // Namespaces (R56, R58).
    ("finalizers", Keep::All),
    // PersistentVolumes (R64, reclaim) and claims.
    (
        "claimRef",
        Keep::Fields(&[
            ("namespace", Keep::All),
            ("name", Keep::All),
            ("uid", Keep::All),
        ]),
    ),
    ("persistentVolumeReclaimPolicy", Keep::All),
    ("volumeName", Keep::All),
    // CustomResourceDefinitions (R32, R75).
    ("group", Keep::All),
    ("names", Keep::All),
    ("scope", Keep::All),
    (
        "versions",
        Keep::Fields(&[
            ("name", Keep::All),
            ("served", Keep::All),
            ("storage", Keep::All),
        ]),
    ),
    // Workload controllers: what they select, how many, what they create
    // (R70, R72).
    ("selector", Keep::All),
    ("replicas", Keep::All),
    ("template", Keep::Fields(&[("metadata", LABELS)])),
    ("serviceName", Keep::All),
    // StatefulSets: one pod at a time or all at once.
    ("podManagementPolicy", Keep::All),
    // Daemon pods: the node they are pinned to.
    (
        "affinity",
        Keep::Fields(&[(
            "nodeAffinity",
            Keep::Fields(&[(
                "requiredDuringSchedulingIgnoredDuringExecution",
                Keep::Fields(&[(
                    "nodeSelectorTerms",
                    Keep::Fields(&[("matchFields", Keep::All)]),
                )]),
            )]),
        )]),
    ),
    (
        "volumeClaimTemplates",
        Keep::Fields(&[("metadata", NAME_AND_LABELS)]),
    ),
    ("persistentVolumeClaimRetentionPolicy", Keep::All),
    // Jobs (R71, R73).
    ("completions", Keep::All),
    ("parallelism", Keep::All),
    ("suspend", Keep::All),
    ("managedBy", Keep::All),
    ("ttlSecondsAfterFinished", Keep::All),
    // Services (endpoints) and LoadBalancer cleanup.
    ("type", Keep::All),
]);

/// `status`: who reads each field.
pub const STATUS: Keep = Keep::Fields(&[
    // Pods (R15, R63), PVs and PVCs (R64), namespaces (R56).
    ("phase", Keep::All),
    // Namespaces (R59), CRDs (R75), Jobs (R73).
    ("conditions", Keep::All),
    ("succeeded", Keep::All),
    ("failed", Keep::All),
    ("active", Keep::All),
    ("completionTime", Keep::All),
]);

impl<'de> DeserializeSeed<'de> for Keep {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self {
            Keep::All => serde::Deserialize::deserialize(d),
            Keep::Fields(fields) => d.deserialize_any(Pruner(fields)),
        }
    }
}

/// Reads a map keeping these fields (a list: the same for each element).
struct Pruner(&'static [(&'static str, Keep)]);

impl<'de> Visitor<'de> for Pruner {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Keep::Fields(self.0).deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Keep::Fields(self.0))? {
            out.push(v);
        }
        out.shrink_to_fit();
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // The kept fields are gathered first, so that the map is made at
        // exactly their number: a map grown one key at a time reserves
        // room for more, several hundred bytes an object at 100k.
        let mut kept: Vec<(&'static str, Value)> = Vec::new();
        while let Some(field) = map.next_key_seed(FieldOf(self.0))? {
            match field {
                Some((name, keep)) => kept.push((name, map.next_value_seed(keep)?)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let mut out = Map::with_capacity(kept.len());
        for (name, v) in kept {
            out.insert(name.to_string(), v);
        }
        Ok(Value::Object(out))
    }
}

/// A map key read as one of the fields to keep (its name and what to keep
/// of its value), or `None` for a field to skip: a skipped key is compared
/// where it lies in the input, never copied.
#[derive(Clone, Copy)]
struct FieldOf(&'static [(&'static str, Keep)]);

impl<'de> DeserializeSeed<'de> for FieldOf {
    type Value = Option<(&'static str, Keep)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldOf {
    type Value = Option<(&'static str, Keep)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().find(|(k, _)| *k == key).copied())
    }
}

/// Annotations never kept: large, read by no rule, and able to hold secret
/// values (`last-applied-configuration` is a whole manifest, a Secret's
/// data included).
pub const DROPPED_ANNOTATIONS: &[&str] = &["kubectl.kubernetes.io/last-applied-configuration"];

/// `deserialize_with` for `metadata.annotations`: all but
/// [`DROPPED_ANNOTATIONS`], whose values are skipped unread.
///
/// # Errors
/// An annotation value that is not a string.
pub fn annotations<'de, D: Deserializer<'de>>(d: D) -> Result<StringMap, D::Error> {
    d.deserialize_any(Strings {
        dropped: DROPPED_ANNOTATIONS,
    })
}

/// `deserialize_with` for `metadata.labels`.
///
/// # Errors
/// A label value that is not a string.
pub fn labels<'de, D: Deserializer<'de>>(d: D) -> Result<StringMap, D::Error> {
    d.deserialize_any(Strings { dropped: &[] })
}

/// A map of strings read into a [`StringMap`] of exactly its size (the
/// pairs are gathered, then sorted once, a repeated key keeping its last
/// value as a `BTreeMap` would: never an insertion per key, which would be
/// quadratic in a hostile file's million labels).
struct Strings {
    dropped: &'static [&'static str],
}

impl<'de> Visitor<'de> for Strings {
    type Value = StringMap;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of strings")
    }
    fn visit_unit<E>(self) -> Result<StringMap, E> {
        Ok(StringMap::new())
    }
    fn visit_none<E>(self) -> Result<StringMap, E> {
        Ok(StringMap::new())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringMap, A::Error> {
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(4);
        while let Some(key) = map.next_key::<String>()? {
            if self.dropped.contains(&key.as_str()) {
                map.next_value::<IgnoredAny>()?;
            } else {
                let v = map.next_value::<String>()?;
                pairs.push((key, v));
            }
        }
        // An API server writes a map's keys in order (Go's encoding sorts
        // them): then the pairs are the map as they are, made exactly
        // their length. Otherwise collected again, sorted, the last of a
        // repeated key kept.
        if pairs.windows(2).all(|w| w[0].0 < w[1].0) {
            pairs.shrink_to_fit();
            return Ok(StringMap::from_sorted_store_unchecked(pairs));
        }
        Ok(pairs.into_iter().collect())
    }
}

/// `deserialize_with` for `spec`.
///
/// # Errors
/// A kept field that is not valid JSON/YAML.
pub fn spec<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    SPEC.deserialize(d)
}

/// `deserialize_with` for `status`.
///
/// # Errors
/// As [`spec`].
pub fn status<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
    STATUS.deserialize(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec_of(v: &Value) -> Value {
        spec(v.clone()).expect("prunes")
    }

    /// Labels and annotations read in any order come out in key order, a
    /// repeated key with its last value (as a `BTreeMap` had them), from
    /// JSON text as from a YAML value.
    #[test]
    fn string_maps_are_sorted_and_a_repeated_key_keeps_its_last_value() {
        let text = r#"{"name":"x","labels":{"tier":"web","app":"a","tier":"db"},
            "annotations":{"z":"1","kubectl.kubernetes.io/last-applied-configuration":"{}","b":"2"}}"#;
        let meta: crate::model::object::ObjectMeta = serde_json::from_str(text).expect("reads");
        let labels: Vec<_> = meta.labels.iter().collect();
        assert_eq!(
            labels,
            [
                (&"app".to_string(), &"a".to_string()),
                (&"tier".to_string(), &"db".to_string())
            ]
        );
        assert_eq!(meta.annotations.keys().collect::<Vec<_>>(), ["b", "z"]);
        // In order already, as a server writes them: found by key; and a
        // key repeated next to itself still keeps its last value.
        let text =
            r#"{"name":"x","labels":{"a":"1","b":"2","c":"3"},"annotations":{"k":"1","k":"2"}}"#;
        let meta: crate::model::object::ObjectMeta = serde_json::from_str(text).expect("reads");
        assert_eq!(meta.labels.get("b").map(String::as_str), Some("2"));
        assert_eq!(meta.labels.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(meta.annotations.len(), 1);
        assert_eq!(meta.annotations.get("k").map(String::as_str), Some("2"));
        let from_value: crate::model::object::ObjectMeta = serde_json::from_value(json!({
            "name": "x", "labels": {"b": "2", "a": "1"}
        }))
        .expect("reads");
        assert_eq!(from_value.labels.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(from_value.labels.get("b").map(String::as_str), Some("2"));
        // Reversed, a hundred thousand labels: sorted once, not inserted one
        // by one.
        let many: serde_json::Map<String, Value> = (0..100_000)
            .rev()
            .map(|i| (format!("k{i:06}"), json!("v")))
            .collect();
        let meta: crate::model::object::ObjectMeta =
            serde_json::from_value(json!({"name": "x", "labels": many})).expect("reads");
        assert_eq!(meta.labels.len(), 100_000);
        assert_eq!(
            meta.labels.first().map(|(k, _)| k.as_str()),
            Some("k000000")
        );
    }

    /// However many fields are kept, all are, in the order read, among
    /// skipped ones, from text as from a value.
    #[test]
    fn every_kept_field_is_kept_in_the_order_read() {
        let text = r#"{"type":"ClusterIP","suspend":false,"containers":[{"name":"x"}],
            "parallelism":2,"completions":3,"replicas":4,"podManagementPolicy":"Parallel",
            "image":"skipped","serviceName":"s","nodeName":"n","volumeName":"v"}"#;
        let order = [
            "type",
            "suspend",
            "parallelism",
            "completions",
            "replicas",
            "podManagementPolicy",
            "serviceName",
            "nodeName",
            "volumeName",
        ];
        let from_text = spec(&mut serde_json::Deserializer::from_str(text)).expect("prunes");
        let from_value = spec_of(&serde_json::from_str(text).expect("json"));
        for kept in [&from_text, &from_value] {
            let keys: Vec<&str> = kept
                .as_object()
                .expect("a map")
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(keys, order);
        }
        assert_eq!(from_text, from_value);
        assert_eq!(from_text["volumeName"], "v");
    }

    #[test]
    fn a_pod_keeps_what_the_rules_read_and_nothing_else() {
        let pod = json!({
            "nodeName": "n1",
            "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "main", "image": "x", "env": [{"name": "TOKEN", "value": "s3cret"}]}],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "c1"}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "x"}}}},
                {"name": "token", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}}
            ]
        });
        assert_eq!(
            spec_of(&pod),
            json!({
                "nodeName": "n1",
                "terminationGracePeriodSeconds": 30,
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "c1"}},
                    {"name": "scratch", "ephemeral": {}},
                    {"name": "token"}
                ]
            })
        );
    }

    #[test]
    fn a_workload_keeps_its_selector_replicas_and_template_labels() {
        let rs = json!({
            "replicas": 3,
            "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
            "template": {"metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
                         "spec": {"containers": [{"name": "main"}]}}
        });
        assert_eq!(
            spec_of(&rs),
            json!({
                "replicas": 3,
                "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                "template": {"metadata": {"labels": {"app": "web"}}}
            })
        );
    }

    #[test]
    fn a_statefulset_keeps_its_policy_and_a_daemon_pod_its_node() {
        let sts =
            json!({"podManagementPolicy": "Parallel", "updateStrategy": {"type": "OnDelete"}});
        assert_eq!(spec_of(&sts), json!({"podManagementPolicy": "Parallel"}));
        let pod = json!({"affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
                 "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
            "podAntiAffinity": {"x": 1}}});
        assert_eq!(
            spec_of(&pod),
            json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}})
        );
    }

    #[test]
    fn last_applied_configuration_is_never_kept() {
        let meta: crate::model::ObjectMeta = serde_json::from_value(json!({
            "name": "s",
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"hunter2\"}}",
                "team": "payments"
            }
        }))
        .expect("meta");
        assert_eq!(meta.annotations.len(), 1);
        assert_eq!(
            meta.annotations.get("team").map(String::as_str),
            Some("payments")
        );
    }

    #[test]
    fn status_keeps_phase_and_conditions_only() {
        let st =
            json!({"phase": "Running", "podIP": "10.0.0.1", "conditions": [{"type": "Ready"}]});
        assert_eq!(
            status(st).expect("prunes"),
            json!({"phase": "Running", "conditions": [{"type": "Ready"}]})
        );
    }

    #[test]
    fn a_crd_keeps_names_and_served_versions_not_its_schema() {
        let crd = json!({
            "group": "example.com", "scope": "Namespaced", "names": {"kind": "Database", "plural": "databases"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]
        });
        assert_eq!(
            spec_of(&crd),
            json!({
                "group": "example.com", "scope": "Namespaced", "names": {"kind": "Database", "plural": "databases"},
                "versions": [{"name": "v1", "served": true, "storage": true}]
            })
        );
    }
}
