//! API objects to the model's [`Object`], and core/v1 Events to timeline
//! entries.

use jiff::Timestamp;
use kube::api::{DynamicObject, PartialObjectMeta};
use kube::core::ApiResource;
use serde_json::Value;

use crate::backend::Happening;
use crate::model::{ObjRef, Object, ObjectMeta};

/// The metadata as the model keeps it (large annotations dropped while
/// reading: `model::kept`).
fn meta_from(value: Value) -> Option<ObjectMeta> {
    let meta: ObjectMeta = serde_json::from_value(value).ok()?;
    (!meta.uid.is_empty()).then_some(meta)
}

/// A metadata-only object (the server answers with kind
/// `PartialObjectMetadata`; the resource gives the real kind).
#[must_use]
pub fn from_partial(ar: &ApiResource, pom: &PartialObjectMeta<DynamicObject>) -> Option<Object> {
    let metadata = meta_from(serde_json::to_value(&pom.metadata).ok()?)?;
    Some(Object {
        api_version: ar.api_version.clone(),
        kind: ar.kind.clone(),
        metadata,
        ..Object::default()
    })
}

/// A full object, keeping of `spec` and `status` only what the rules read
/// ([`kept_fields`]).
#[must_use]
pub fn from_dynamic(ar: &ApiResource, obj: &DynamicObject) -> Option<Object> {
    let metadata = meta_from(serde_json::to_value(&obj.metadata).ok()?)?;
    let (spec, status) = kept_fields(
        &ar.group,
        &ar.kind,
        obj.data.get("spec").unwrap_or(&Value::Null),
        obj.data.get("status").unwrap_or(&Value::Null),
    );
    let mut o = Object {
        api_version: ar.api_version.clone(),
        kind: ar.kind.clone(),
        metadata,
        spec: spec.into(),
        status: status.into(),
        ..Object::default()
    };
    if crate::model::webhooks::is_configuration(&o)
        && let Some(ws) = obj.data.get("webhooks")
    {
        o.extra_mut().webhooks = Some(Box::new(kept_webhooks(ws)));
    }
    Some(o)
}

/// What is kept of a webhook configuration's `webhooks`: which requests
/// each is called for and where (not its CA bundle).
pub(crate) fn kept_webhooks(ws: &Value) -> Value {
    let kept: Vec<Value> = ws
        .as_array()
        .map(|ws| {
            ws.iter()
                .map(|w| {
                    pick(
                        w,
                        &[
                            &["name"],
                            &["failurePolicy"],
                            &["matchPolicy"],
                            &["rules"],
                            &["namespaceSelector"],
                            &["objectSelector"],
                            &["clientConfig", "service"],
                            &["clientConfig", "url"],
                        ],
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Value::Array(kept)
}

/// Kinds read in full (then pruned): the rules need more than metadata.
/// Pods only where asked (`pods`): a one-shot list (`snapshot`, `plan
/// --live`), not the UI's watches, which would carry every pod's spec.
#[must_use]
pub fn needs_fields(group: &str, kind: &str, pods: bool) -> bool {
    matches!(
        (group, kind),
        (
            "",
            "Namespace"
                | "Node"
                | "ReplicationController"
                | "Service"
                | "PersistentVolume"
                | "PersistentVolumeClaim"
        ) | ("apiextensions.k8s.io", "CustomResourceDefinition")
            | (
                "apps",
                "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
            )
            | ("batch", "Job" | "CronJob")
            | (
                "admissionregistration.k8s.io",
                "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
            )
            | ("coordination.k8s.io", "Lease")
            | ("storage.k8s.io", "VolumeAttachment")
            | ("apiregistration.k8s.io", "APIService")
    ) || (pods && group.is_empty() && kind == "Pod")
}

/// The `status.conditions` that `keep` accepts, each with the listed
/// paths only.
fn conditions_with(status: &Value, keep: impl Fn(&Value) -> bool, paths: &[&[&str]]) -> Vec<Value> {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter(|c| keep(c))
                .map(|c| pick(c, paths))
                .collect()
        })
        .unwrap_or_default()
}

/// Copies the listed paths of `from` (absent ones skipped).
fn pick(from: &Value, paths: &[&[&str]]) -> Value {
    let mut out = Value::Null;
    for path in paths {
        let mut cur = from;
        let mut found = true;
        for p in *path {
            match cur.get(p) {
                Some(v) => cur = v,
                None => {
                    found = false;
                    break;
                }
            }
        }
        if !found {
            continue;
        }
        let mut slot = &mut out;
        for p in *path {
            if !slot.is_object() {
                *slot = Value::Object(serde_json::Map::new());
            }
            slot = &mut slot[*p];
        }
        *slot = cur.clone();
    }
    out
}

/// What a snapshot keeps of `spec` and `status`, per kind, and why:
/// - Namespace: all (`spec.finalizers`, `status.phase` and the conditions,
///   R58-R59);
/// - Deployment, ReplicaSet, ReplicationController, StatefulSet, DaemonSet,
///   Job: `replicas`, `selector`, the pod template's *labels* only (never its
///   spec: containers, env, commands), `podManagementPolicy`, the names of
///   `volumeClaimTemplates` and their claims' spec minus any data source,
///   `persistentVolumeClaimRetentionPolicy`, `parallelism`, `completions`,
///   `managedBy`; a Job's status conditions (type and status): what the
///   workload controllers create, adopt and delete (R70-R73);
/// - Service: `spec.selector`: whether the endpoints and EndpointSlice
///   controllers keep its Endpoints and slices;
/// - Pod: `nodeName`, `terminationGracePeriodSeconds`, the volumes' names
///   and claim names, the required node affinity's `matchFields` (the node
///   a daemon pod is pinned to before it is scheduled), `status.phase` and
///   the conditions' type and status: graceful deletion (R15), claims in
///   use (R63), which pods a ReplicaSet deletes first, which node a
///   DaemonSet's pod is for;
/// - PersistentVolume: `claimRef` (namespace, name, uid),
///   `persistentVolumeReclaimPolicy`, `status.phase`: PV protection (R64)
///   and what the PV controller does once the claim is gone;
/// - PersistentVolumeClaim: `volumeName`, `status.phase`: which volume it
///   binds (R64);
/// - CustomResourceDefinition: `group`, `names`, `scope`, each version's
///   `name`, `served`, `storage`, and the condition types and statuses:
///   which instances its deletion removes (R75) and which references map
///   (R32).
///
/// Everything else is dropped; annotations are dropped elsewhere.
#[must_use]
pub fn kept_fields(group: &str, kind: &str, spec: &Value, status: &Value) -> (Value, Value) {
    let conditions = |status: &Value| -> Value {
        let cs: Vec<Value> = status
            .get("conditions")
            .and_then(Value::as_array)
            .map(|cs| {
                cs.iter()
                    .map(|c| pick(c, &[&["type"], &["status"]]))
                    .collect()
            })
            .unwrap_or_default();
        if cs.is_empty() {
            Value::Null
        } else {
            serde_json::json!({"conditions": cs})
        }
    };
    match (group, kind) {
        ("", "Namespace") => (spec.clone(), status.clone()),
        ("", "Service") => (pick(spec, &[&["selector"], &["type"]]), Value::Null),
        // R80, STUCK-CAUSES C4: the group version it serves, the Service
        // behind it, and whether it is Available (and why not).
        ("apiregistration.k8s.io", "APIService") => {
            let cs = conditions_with(
                status,
                |_| true,
                &[&["type"], &["status"], &["reason"], &["message"]],
            );
            (
                pick(
                    spec,
                    &[
                        &["group"],
                        &["version"],
                        &["service", "namespace"],
                        &["service", "name"],
                    ],
                ),
                if cs.is_empty() {
                    Value::Null
                } else {
                    serde_json::json!({"conditions": cs})
                },
            )
        }
        // STUCK-CAUSES C12: which volume, on which node, detached or not.
        ("storage.k8s.io", "VolumeAttachment") => (
            pick(
                spec,
                &[
                    &["attacher"],
                    &["nodeName"],
                    &["source", "persistentVolumeName"],
                ],
            ),
            pick(
                status,
                &[
                    &["attached"],
                    &["detachError", "message"],
                    &["attachError", "message"],
                ],
            ),
        ),
        ("coordination.k8s.io", "Lease") => (pick(spec, &[&["renewTime"]]), Value::Null),
        ("", "Pod") => {
            let mut kept = pick(spec, &[&["nodeName"], &["terminationGracePeriodSeconds"]]);
            if let Some(vols) = spec.get("volumes").and_then(Value::as_array) {
                let vols: Vec<Value> = vols
                    .iter()
                    .map(|v| {
                        let mut k = pick(v, &[&["name"], &["persistentVolumeClaim", "claimName"]]);
                        if v.get("ephemeral").is_some() {
                            k["ephemeral"] = serde_json::json!({});
                        }
                        k
                    })
                    .collect();
                kept["volumes"] = Value::Array(vols);
            }
            // A daemon pod is pinned to its node by a required node
            // affinity on `metadata.name` until the scheduler binds it.
            let terms = spec
                .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
                .and_then(Value::as_array);
            if let Some(terms) = terms {
                let terms: Vec<Value> =
                    terms.iter().map(|t| pick(t, &[&["matchFields"]])).collect();
                kept["affinity"] = serde_json::json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}});
            }
            let mut st = conditions(status);
            if let Some(p) = status.get("phase") {
                st["phase"] = p.clone();
            }
            (kept, st)
        }
        ("", "PersistentVolume") => {
            let kept = pick(
                spec,
                &[
                    &["claimRef", "namespace"],
                    &["claimRef", "name"],
                    &["claimRef", "uid"],
                    &["persistentVolumeReclaimPolicy"],
                    &["csi", "driver"],
                ],
            );
            (kept, pick(status, &[&["phase"]]))
        }
        // R76: whether the node's kubelet reports (its Ready condition,
        // since when and why), STUCK-CAUSES C8.
        ("", "Node") => {
            let cs = conditions_with(
                status,
                |c| c.get("type").and_then(Value::as_str) == Some("Ready"),
                &[
                    &["type"],
                    &["status"],
                    &["reason"],
                    &["message"],
                    &["lastTransitionTime"],
                    &["lastHeartbeatTime"],
                ],
            );
            // The cloud that runs it (load-balancer cleanup, C17).
            (
                pick(spec, &[&["providerID"]]),
                serde_json::json!({"conditions": cs}),
            )
        }
        // The CronJob controller: when it starts a Job, from which template,
        // and how many finished ones it keeps (as `model::kept` keeps them
        // from a file).
        ("batch", "CronJob") => {
            let mut kept = pick(
                spec,
                &[
                    &["schedule"],
                    &["timeZone"],
                    &["suspend"],
                    &["startingDeadlineSeconds"],
                    &["concurrencyPolicy"],
                    &["successfulJobsHistoryLimit"],
                    &["failedJobsHistoryLimit"],
                    &["jobTemplate", "metadata", "labels"],
                    &["jobTemplate", "spec", "completions"],
                    &["jobTemplate", "spec", "parallelism"],
                    &["jobTemplate", "spec", "ttlSecondsAfterFinished"],
                    &["jobTemplate", "spec", "template", "metadata", "labels"],
                ],
            );
            // A template is known even when it has no labels: the Jobs it
            // starts make pods.
            if spec.pointer("/jobTemplate/spec/template").is_some()
                && kept.pointer("/jobTemplate/spec/template").is_none()
            {
                kept["jobTemplate"]["spec"]["template"] = serde_json::json!({});
            }
            (
                kept,
                pick(
                    status,
                    &[&["lastScheduleTime"], &["lastSuccessfulTime"], &["active"]],
                ),
            )
        }
        ("", "PersistentVolumeClaim") => {
            (pick(spec, &[&["volumeName"]]), pick(status, &[&["phase"]]))
        }
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            let mut kept = pick(spec, &[&["group"], &["names"], &["scope"]]);
            if let Some(vs) = spec.get("versions").and_then(Value::as_array) {
                let vs: Vec<Value> = vs
                    .iter()
                    .map(|v| pick(v, &[&["name"], &["served"], &["storage"]]))
                    .collect();
                kept["versions"] = Value::Array(vs);
            }
            (kept, conditions(status))
        }
        _ if needs_fields(group, kind, false) => {
            let mut kept = pick(
                spec,
                &[
                    &["replicas"],
                    &["selector"],
                    &["template", "metadata", "labels"],
                    &["podManagementPolicy"],
                    &["persistentVolumeClaimRetentionPolicy"],
                    &["parallelism"],
                    &["completions"],
                    &["managedBy"],
                    &["suspend"],
                    &["ttlSecondsAfterFinished"],
                ],
            );
            // A template is known even when it has no labels.
            if spec.get("template").is_some() && kept.get("template").is_none() {
                kept["template"] = serde_json::json!({});
            }
            if let Some(ts) = spec.get("volumeClaimTemplates").and_then(Value::as_array) {
                let ts: Vec<Value> = ts
                    .iter()
                    .map(|t| {
                        pick(
                            t,
                            &[
                                &["metadata", "name"],
                                &["spec", "accessModes"],
                                &["spec", "storageClassName"],
                                &["spec", "resources"],
                            ],
                        )
                    })
                    .collect();
                kept["volumeClaimTemplates"] = Value::Array(ts);
            }
            let st = if kind == "Job" {
                // Finished or not, and since when: a CronJob's history
                // (oldest first) and the TTL after finishing.
                let mut st = conditions(status);
                let times = pick(
                    status,
                    &[
                        &["startTime"],
                        &["completionTime"],
                        &["active"],
                        &["succeeded"],
                        &["failed"],
                    ],
                );
                if let Some(times) = times.as_object() {
                    if st.is_null() {
                        st = serde_json::json!({});
                    }
                    for (k, v) in times {
                        st[k] = v.clone();
                    }
                }
                st
            } else {
                // Whether it runs: a finalizer's controller is one
                // (STUCK-CAUSES C1).
                let mut st = pick(
                    status,
                    &[
                        &["readyReplicas"],
                        &["desiredNumberScheduled"],
                        &["numberReady"],
                    ],
                );
                if st.is_null() && status.is_object() {
                    st = serde_json::json!({});
                }
                st
            };
            (kept, st)
        }
        _ => (Value::Null, Value::Null),
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str().filter(|s| !s.is_empty())
}

/// An event as a timeline entry on the object it concerns; `t` is seconds
/// since `started` (0 for events older than the session).
#[must_use]
pub fn event_happening(
    ev: &k8s_openapi::api::core::v1::Event,
    started: Timestamp,
) -> Option<Happening> {
    let v = serde_json::to_value(ev).ok()?;
    let inv = v.get("involvedObject")?;
    let object = ObjRef {
        api_version: str_at(inv, &["apiVersion"]).unwrap_or_default().to_string(),
        kind: str_at(inv, &["kind"])?.to_string(),
        namespace: str_at(inv, &["namespace"]).map(str::to_string),
        name: str_at(inv, &["name"]).unwrap_or_default().to_string(),
        uid: str_at(inv, &["uid"]).unwrap_or_default().to_string(),
    };
    let when = str_at(&v, &["lastTimestamp"])
        .or_else(|| str_at(&v, &["eventTime"]))
        .or_else(|| str_at(&v, &["metadata", "creationTimestamp"]))
        .and_then(|s| s.parse::<Timestamp>().ok());
    // Its own time, before the session's start too (negative).
    let t = when
        .unwrap_or_else(Timestamp::now)
        .duration_since(started)
        .as_secs_f64();
    let reason = str_at(&v, &["reason"]).unwrap_or("Event");
    let message = str_at(&v, &["message"]).unwrap_or_default();
    let count = v.get("count").and_then(Value::as_i64).unwrap_or(1);
    let by = str_at(&v, &["source", "component"])
        .filter(|c| !c.is_empty())
        .or_else(|| str_at(&v, &["reportingComponent"]).filter(|c| !c.is_empty()))
        .unwrap_or("unknown")
        .to_string();
    Some(Happening {
        t,
        object,
        verb: "event".into(),
        detail: if count > 1 {
            format!("{reason}: {message} (x{count})")
        } else {
            format!("{reason}: {message}")
        },
        by,
        warning: str_at(&v, &["type"]) == Some("Warning"),
    })
}

/// Timeline entries for what changed between two versions of an object
/// seen by the watch (`None`: just created).
#[must_use]
/// Who last changed an object and when, as its managedFields record it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The field manager: `kubectl-client-side-apply`, `kube-controller-manager`...
    pub manager: String,
    pub at: Timestamp,
}

/// The newest managedFields entry (by time) that names its manager.
#[must_use]
pub fn last_change(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Option<Change> {
    meta.managed_fields
        .as_ref()?
        .iter()
        .filter_map(|m| {
            let manager = m.manager.as_ref().filter(|s| !s.is_empty())?;
            let at = m.time.as_ref()?.0;
            Some(Change {
                manager: manager.clone(),
                at,
            })
        })
        .max_by_key(|c| c.at)
}

pub fn changes(old: Option<&Object>, new: &Object, t: f64, by: &str) -> Vec<Happening> {
    let entry = |verb: &str, detail: String| Happening {
        t,
        object: new.obj_ref(),
        verb: verb.into(),
        detail,
        by: by.into(),
        warning: false,
    };
    let Some(old) = old else {
        return vec![entry("created", String::new())];
    };
    let mut out = Vec::new();
    let (o, n) = (&old.metadata, &new.metadata);
    if o.deletion_timestamp.is_none() && n.deletion_timestamp.is_some() {
        // A DELETE leaves no managedFields entry: who sent it is unknown.
        out.push(Happening {
            by: "cluster".into(),
            ..entry(
                "deleting",
                if n.finalizers.is_empty() {
                    "deletionTimestamp set".into()
                } else {
                    format!(
                        "deletionTimestamp set; finalizers: {}",
                        n.finalizers.join(", ")
                    )
                },
            )
        });
    }
    for f in &o.finalizers {
        if !n.finalizers.contains(f) {
            out.push(entry("finalizer removed", f.clone()));
        }
    }
    for f in &n.finalizers {
        if !o.finalizers.contains(f) {
            out.push(entry("finalizer added", f.clone()));
        }
    }
    for r in &o.owner_references {
        if !n.owner_references.iter().any(|x| x.uid == r.uid) {
            out.push(entry(
                "owner reference removed",
                format!("{}/{}", r.kind, r.name),
            ));
        }
    }
    out
}

#[cfg(test)]
mod kept_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn workloads_keep_selectors_and_template_labels_never_the_pod_spec() {
        let spec = json!({
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "env": [{"name": "PASSWORD", "value": "hunter2"}]}]},
            },
            "strategy": {"type": "RollingUpdate"},
        });
        let (kept, status) = kept_fields(
            "apps",
            "Deployment",
            &spec,
            &json!({"replicas": 3, "readyReplicas": 2, "conditions": [{"type": "Available"}]}),
        );
        assert_eq!(
            kept,
            json!({"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}}})
        );
        assert!(!kept.to_string().contains("hunter2"));
        // Of the status, only whether it runs (a finalizer's controller).
        assert_eq!(status, json!({"readyReplicas": 2}));
    }

    #[test]
    fn pods_keep_node_grace_claims_phase_and_conditions() {
        let spec = json!({
            "nodeName": "n1",
            "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "c", "env": [{"name": "TOKEN", "value": "s3cret"}]}],
            "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
                {"name": "cfg", "secret": {"secretName": "x"}},
            ],
        });
        let status = json!({"phase": "Running", "podIP": "10.0.0.1", "conditions": [{"type": "Ready", "status": "True", "message": "m"}]});
        let (kept, st) = kept_fields("", "Pod", &spec, &status);
        assert_eq!(
            kept,
            json!({"nodeName": "n1", "terminationGracePeriodSeconds": 30, "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
                {"name": "scratch", "ephemeral": {}},
                {"name": "cfg"},
            ]})
        );
        assert!(!kept.to_string().contains("s3cret"));
        let pinned = json!({"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}],
                "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
            }]},
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}],
        }, "podAntiAffinity": {}}});
        let (kept_pinned, _) = kept_fields("", "Pod", &pinned, &Value::Null);
        let mut o = crate::model::Object::new("v1", "Pod", Some("ns"), "p");
        o.spec = kept_pinned.clone().into();
        assert_eq!(crate::model::workload::node_of(&o).as_deref(), Some("n2"));
        assert!(!kept_pinned.to_string().contains("zone"), "{kept_pinned}");
        assert!(!kept_pinned.to_string().contains("weight"), "{kept_pinned}");
        assert_eq!(
            st,
            json!({"conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"})
        );
    }

    #[test]
    fn volumes_claims_and_crds_keep_what_their_rules_read() {
        let spec = json!({
            "capacity": {"storage": "1Gi"},
            "hostPath": {"path": "/srv/secret-path"},
            "claimRef": {"namespace": "shop", "name": "data", "uid": "u1", "resourceVersion": "9"},
            "persistentVolumeReclaimPolicy": "Delete",
        });
        let (kept, st) = kept_fields(
            "",
            "PersistentVolume",
            &spec,
            &json!({"phase": "Bound", "message": "m"}),
        );
        assert_eq!(
            (kept, st),
            (
                json!({"claimRef": {"namespace": "shop", "name": "data", "uid": "u1"}, "persistentVolumeReclaimPolicy": "Delete"}),
                json!({"phase": "Bound"})
            )
        );
        let (kept, st) = kept_fields(
            "",
            "PersistentVolumeClaim",
            &json!({"volumeName": "pv1", "resources": {"requests": {"storage": "1Gi"}}}),
            &json!({"phase": "Bound", "capacity": {"storage": "1Gi"}}),
        );
        assert_eq!(
            (kept, st),
            (json!({"volumeName": "pv1"}), json!({"phase": "Bound"}))
        );
        let crd = json!({
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}],
            "conversion": {"strategy": "None"},
        });
        let status = json!({"conditions": [{"type": "Terminating", "status": "True", "reason": "InstanceDeletionInProgress", "message": "m"}], "acceptedNames": {}});
        let (kept, st) = kept_fields(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            &crd,
            &status,
        );
        assert_eq!(
            kept,
            json!({"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"}, "versions": [{"name": "v1", "served": true, "storage": true}]})
        );
        assert_eq!(
            st,
            json!({"conditions": [{"type": "Terminating", "status": "True"}]})
        );
    }

    #[test]
    fn cronjobs_and_jobs_keep_what_the_cronjob_controller_reads() {
        // Without them a snapshot's CronJob never started a Job in
        // `simulate` (found by the whole-cluster CronJob rehearsal).
        assert!(needs_fields("batch", "CronJob", false));
        let spec = json!({
            "schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid", "suspend": false,
            "successfulJobsHistoryLimit": 1, "startingDeadlineSeconds": 30,
            "jobTemplate": {"metadata": {"labels": {"app": "report"}, "annotations": {"token": "s3cret"}},
                "spec": {"parallelism": 1, "template": {"metadata": {"labels": {"app": "report"}},
                    "spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "PASSWORD", "value": "s3cret"}]}]}}}},
        });
        let status = json!({"lastScheduleTime": "2026-11-26T06:00:00Z", "active": [{"kind": "Job", "name": "report-1", "uid": "j1"}]});
        let (kept, st) = kept_fields("batch", "CronJob", &spec, &status);
        let (bare, _) = kept_fields(
            "batch",
            "CronJob",
            &json!({"schedule": "@daily", "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}),
            &Value::Null,
        );
        assert_eq!(
            bare,
            json!({"schedule": "@daily", "jobTemplate": {"spec": {"template": {}}}})
        );
        assert_eq!(
            kept,
            json!({"schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid", "suspend": false,
                "successfulJobsHistoryLimit": 1, "startingDeadlineSeconds": 30,
                "jobTemplate": {"metadata": {"labels": {"app": "report"}},
                    "spec": {"parallelism": 1, "template": {"metadata": {"labels": {"app": "report"}}}}}})
        );
        assert_eq!(st, status);
        let (kept, st) = kept_fields(
            "batch",
            "Job",
            &json!({"parallelism": 1, "ttlSecondsAfterFinished": 60, "template": {"spec": {}}}),
            &json!({"startTime": "2026-11-26T06:00:01Z", "completionTime": "2026-11-26T06:00:09Z", "succeeded": 1,
                "conditions": [{"type": "Complete", "status": "True", "lastProbeTime": "x"}]}),
        );
        assert_eq!(
            (kept, st),
            (
                json!({"parallelism": 1, "ttlSecondsAfterFinished": 60, "template": {}}),
                json!({"startTime": "2026-11-26T06:00:01Z", "completionTime": "2026-11-26T06:00:09Z", "succeeded": 1,
                    "conditions": [{"type": "Complete", "status": "True"}]})
            )
        );
    }

    #[test]
    fn other_kinds_keep_nothing() {
        let (a, b) = kept_fields("", "Secret", &json!({"x": 1}), &json!({"y": 2}));
        assert_eq!((a, b), (Value::Null, Value::Null));
        assert!(needs_fields("", "Pod", true) && !needs_fields("", "Pod", false));
    }

    #[test]
    fn events_keep_their_own_time_and_name_their_reporter() {
        let started: Timestamp = "2024-05-01T10:00:00Z".parse().expect("time");
        let ev: k8s_openapi::api::core::v1::Event = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "e", "namespace": "shop", "uid": "e1"},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"},
            "reason": "Killing", "message": "Stopping container",
            "eventTime": "2024-05-01T09:55:00.000000Z",
            "source": {}, "reportingComponent": "kubelet-x", "reportingInstance": "node-1",
        }))
        .expect("event");
        let h = super::event_happening(&ev, started).expect("happening");
        assert!((h.t - -300.0).abs() < 1e-6, "{}", h.t);
        assert_eq!(h.by, "kubelet-x");
    }

    #[test]
    fn the_newest_managed_fields_entry_names_the_change() {
        let meta: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta =
            serde_json::from_value(serde_json::json!({
                "name": "x",
                "managedFields": [
                    {"manager": "kubectl-create", "operation": "Update", "time": "2024-05-01T10:00:00Z"},
                    {"manager": "my-operator", "operation": "Update", "time": "2024-05-01T10:05:00Z"},
                    {"manager": "", "operation": "Update", "time": "2024-05-01T10:09:00Z"},
                ],
            }))
            .expect("meta");
        let c = super::last_change(&meta).expect("change");
        assert_eq!(c.manager, "my-operator");
        assert_eq!(
            c.at,
            "2024-05-01T10:05:00Z".parse::<Timestamp>().expect("t")
        );
    }
}
