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
use serde_json::Value;

use super::fields::Fields;
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
/// A pod's containers, by name and image: `ownerscope serve` answers
/// `kubectl logs -c` and `describe` with them.
const CONTAINERS: Keep = Keep::Fields(&[("name", Keep::All), ("image", Keep::All)]);

/// `spec`: who reads each field.
pub const SPEC: Keep = Keep::Fields(&[
    // Pods: kubelet and PVC protection (R15, R63), scheduling.
    ("nodeName", Keep::All),
    ("terminationGracePeriodSeconds", Keep::All),
    ("containers", CONTAINERS),
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
    // CSI volumes and their attachments: the attacher's finalizer
    // (STUCK-CAUSES C12).
    ("csi", Keep::Fields(&[("driver", Keep::All)])),
    ("attacher", Keep::All),
    (
        "source",
        Keep::Fields(&[("persistentVolumeName", Keep::All)]),
    ),
    // Nodes: the cloud that runs them (load-balancer cleanup, C17).
    ("providerID", Keep::All),
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
            // Whether its custom resources have `status` and `scale`
            // subresources (`ownerscope serve`).
            ("subresources", Keep::All),
        ]),
    ),
    // The same in `apiextensions.k8s.io/v1beta1`.
    ("subresources", Keep::All),
    // Workload controllers: what they select, how many, what they create
    // (R70, R72).
    ("selector", Keep::All),
    ("replicas", Keep::All),
    (
        "template",
        Keep::Fields(&[
            ("metadata", LABELS),
            ("spec", Keep::Fields(&[("containers", CONTAINERS)])),
        ]),
    ),
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
    // CronJobs: when they start a Job, how many finished ones they keep,
    // and the Job they start (the CronJob controller).
    ("schedule", Keep::All),
    ("timeZone", Keep::All),
    ("startingDeadlineSeconds", Keep::All),
    ("concurrencyPolicy", Keep::All),
    ("successfulJobsHistoryLimit", Keep::All),
    ("failedJobsHistoryLimit", Keep::All),
    (
        "jobTemplate",
        Keep::Fields(&[
            (
                "metadata",
                Keep::Fields(&[("labels", Keep::All), ("annotations", Keep::All)]),
            ),
            (
                "spec",
                Keep::Fields(&[
                    ("completions", Keep::All),
                    ("parallelism", Keep::All),
                    ("ttlSecondsAfterFinished", Keep::All),
                    (
                        "template",
                        Keep::Fields(&[
                            ("metadata", LABELS),
                            ("spec", Keep::Fields(&[("containers", CONTAINERS)])),
                        ]),
                    ),
                ]),
            ),
        ]),
    ),
    // Services (endpoints) and LoadBalancer cleanup.
    ("type", Keep::All),
    // APIServices: the name is `version.group` (validation), and the
    // Service behind it (R80, STUCK-CAUSES C4).
    ("version", Keep::All),
    // A node's Lease: when its kubelet last reported (STUCK-CAUSES C8).
    ("renewTime", Keep::All),
    (
        "service",
        Keep::Fields(&[("namespace", Keep::All), ("name", Keep::All)]),
    ),
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
    // Jobs' start (CronJob history), CronJobs' schedule.
    ("startTime", Keep::All),
    ("lastScheduleTime", Keep::All),
    ("lastSuccessfulTime", Keep::All),
    // Workloads: whether a finalizer's controller runs (STUCK-CAUSES C1).
    ("readyReplicas", Keep::All),
    ("desiredNumberScheduled", Keep::All),
    ("numberReady", Keep::All),
    // VolumeAttachments (STUCK-CAUSES C12).
    ("attached", Keep::All),
    ("detachError", Keep::Fields(&[("message", Keep::All)])),
    ("attachError", Keep::Fields(&[("message", Keep::All)])),
]);

/// What is kept of a value, written as compact JSON into `out` as it is
/// read: no `Value` is made ([`super::fields`] makes it when asked).
struct Write<'o> {
    keep: Keep,
    out: &'o mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for Write<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Write<'_> {
    fn json<T: serde::Serialize + ?Sized, E: serde::de::Error>(self, v: &T) -> Result<(), E> {
        serde_json::to_writer(&mut *self.out, v).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for Write<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<(), E> {
        self.json(&v)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<(), E> {
        self.json(&v)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<(), E> {
        self.json(&v)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        // As `Value::from(f64)`: a number JSON cannot hold is null.
        self.json(&Value::from(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        string(self.out, v).map_err(E::custom)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let keep = self.keep;
        self.out.push(b'[');
        while seq
            .next_element_seed(Write {
                keep,
                out: &mut *self.out,
            })?
            .is_some()
        {
            self.out.push(b',');
        }
        close(self.out, b']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.out.push(b'{');
        match self.keep {
            Keep::All => {
                while map.next_key_seed(Key(&mut *self.out))?.is_some() {
                    self.out.push(b':');
                    map.next_value_seed(Write {
                        keep: Keep::All,
                        out: &mut *self.out,
                    })?;
                    self.out.push(b',');
                }
            }
            Keep::Fields(fields) => {
                while let Some(field) = map.next_key_seed(FieldOf(fields))? {
                    let Some((name, keep)) = field else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    // A name of the table: nothing to escape.
                    self.out.push(b'"');
                    self.out.extend_from_slice(name.as_bytes());
                    self.out.extend_from_slice(b"\":");
                    map.next_value_seed(Write {
                        keep,
                        out: &mut *self.out,
                    })?;
                    self.out.push(b',');
                }
            }
        }
        close(self.out, b'}');
        Ok(())
    }
}

/// Ends a list or a map whose every element was followed by a comma.
fn close(out: &mut Vec<u8>, bracket: u8) {
    if out.last() == Some(&b',') {
        out.pop();
    }
    out.push(bracket);
}

/// A map key written as read.
struct Key<'o>(&'o mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<(), E> {
        string(self.0, key).map_err(E::custom)
    }
}

/// A JSON string: copied between quotes when nothing in it needs an
/// escape (names, labels, phases: nearly always), else as serde_json
/// escapes it.
fn string(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return Ok(());
    }
    serde_json::to_writer(out, s)
}

/// `spec` or `status` read keeping `keep`: compact JSON, or null.
fn kept<'de, D: Deserializer<'de>>(keep: Keep, d: D) -> Result<Fields, D::Error> {
    thread_local! {
        /// Written into, then copied out at its length: one allocation
        /// of exactly the text an object, none grown.
        static OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Taken out while written (a deserializer could, in principle, read
    // another object's fields meanwhile: it then gets a buffer of its own).
    let mut out = OUT.with(std::cell::RefCell::take);
    out.clear();
    let written = Write {
        keep,
        out: &mut out,
    }
    .deserialize(d);
    let text = match written {
        Ok(()) if out == b"null" => Ok(None),
        // Strings were copied from `&str`s, the rest is ASCII.
        Ok(()) => std::str::from_utf8(&out)
            .map(|t| Some(t.to_owned()))
            .map_err(serde::de::Error::custom),
        Err(e) => Err(e),
    };
    OUT.with(|b| b.replace(out));
    Ok(text?.map_or_else(Fields::default, Fields::from_text))
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
pub fn spec<'de, D: Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
    kept(SPEC, d)
}

/// `deserialize_with` for `status`.
///
/// # Errors
/// As [`spec`].
pub fn status<'de, D: Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
    kept(STATUS, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec_of(v: &Value) -> Value {
        spec(v.clone()).expect("prunes").into_value()
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
        let text = r#"{"type":"ClusterIP","suspend":false,"containers":[{"name":"x","args":["a"]}],
            "parallelism":2,"completions":3,"replicas":4,"podManagementPolicy":"Parallel",
            "image":"skipped","serviceName":"s","nodeName":"n","volumeName":"v"}"#;
        let order = [
            "type",
            "suspend",
            "containers",
            "parallelism",
            "completions",
            "replicas",
            "podManagementPolicy",
            "serviceName",
            "nodeName",
            "volumeName",
        ];
        let from_text = spec(&mut serde_json::Deserializer::from_str(text))
            .expect("prunes")
            .into_value();
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
        assert_eq!(from_text["containers"], json!([{"name": "x"}]));
    }

    #[test]
    fn a_pod_keeps_what_the_rules_and_serve_read_and_nothing_else() {
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
                "containers": [{"name": "main", "image": "x"}],
                "volumes": [
                    {"name": "data", "persistentVolumeClaim": {"claimName": "c1"}},
                    {"name": "scratch", "ephemeral": {}},
                    {"name": "token"}
                ]
            })
        );
    }

    #[test]
    fn a_workload_keeps_its_selector_replicas_and_template_labels_and_containers() {
        let rs = json!({
            "replicas": 3,
            "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
            "template": {"metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
                         "spec": {"containers": [{"name": "main", "ports": [{"containerPort": 80}]}],
                                  "dnsPolicy": "None"}}
        });
        assert_eq!(
            spec_of(&rs),
            json!({
                "replicas": 3,
                "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
                "template": {"metadata": {"labels": {"app": "web"}},
                             "spec": {"containers": [{"name": "main"}]}}
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
            status(st).expect("prunes").into_value(),
            json!({"phase": "Running", "conditions": [{"type": "Ready"}]})
        );
    }

    #[test]
    fn a_crd_keeps_names_and_served_versions_not_its_schema() {
        let crd = json!({
            "group": "example.com", "scope": "Namespaced", "names": {"kind": "Database", "plural": "databases"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}},
                          "subresources": {"status": {}}}]
        });
        assert_eq!(
            spec_of(&crd),
            json!({
                "group": "example.com", "scope": "Namespaced", "names": {"kind": "Database", "plural": "databases"},
                "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}}]
            })
        );
    }
}
