//! The defaults kube-apiserver 1.20 sets on an object as it decodes it
//! (the `SetDefaults_*` functions of `pkg/apis/*/v1/defaults.go`), before
//! the field manager runs: a pod spec's and a workload template's
//! ([`super::pod_defaults`]), a Pod's own `SetDefaults_Pod`, a
//! workload's replicas and strategies, a Job's counts, a Service's type,
//! session affinity and ports, a claim's volume mode. So they are the
//! writer's: an update (a create by kubectl, the controller manager's
//! pod) owns them in its `managedFields` ([`super::ownership`]), where an
//! apply does not (its configuration names them not). What is set later
//! is not here: admission (a pod's priority, its tolerations of not-ready
//! Nodes), allocation (a cluster IP, a node port), status
//! ([`super::complete`] adds those as the object is sent). A field the
//! object has is never replaced.

use serde_json::{Value, json};

use super::complete::{DEFAULT_IMAGE, fill, section};
use super::pod_defaults;
use crate::model::Object;
use crate::model::workload::controller_ref;

/// Sets on `v`, the object `o` as written, the defaults of its decoding.
pub fn defaults(v: &mut Value, o: &Object) {
    match (o.group(), o.kind.as_str()) {
        ("", "Pod") => pod(v, o),
        ("apps", "Deployment") => {
            replicated(v, o);
            let spec = section(v, "spec");
            // apps/v1's `SetDefaults_Deployment`.
            fill(
                spec,
                "strategy",
                json!({"type": "RollingUpdate",
                       "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}),
            );
            fill(spec, "revisionHistoryLimit", json!(10));
            fill(spec, "progressDeadlineSeconds", json!(600));
        }
        ("apps", "ReplicaSet") | ("", "ReplicationController") => replicated(v, o),
        ("apps", "StatefulSet") => {
            replicated(v, o);
            let spec = section(v, "spec");
            fill(
                spec,
                "updateStrategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
            );
            fill(spec, "podManagementPolicy", json!("OrderedReady"));
            fill(spec, "revisionHistoryLimit", json!(10));
        }
        ("apps", "DaemonSet") => {
            template(v, o);
            let spec = section(v, "spec");
            fill(
                spec,
                "updateStrategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}),
            );
            fill(spec, "revisionHistoryLimit", json!(10));
        }
        ("batch", "Job") => {
            template(v, o);
            // `SetDefaults_Job`: neither count set, both 1; parallelism
            // 1; six retries.
            let spec = section(v, "spec");
            if !spec.contains_key("completions") && !spec.contains_key("parallelism") {
                spec.insert("completions".into(), json!(1));
            }
            fill(spec, "parallelism", json!(1));
            fill(spec, "backoffLimit", json!(6));
        }
        ("", "Service") => service(v),
        // `SetDefaults_PersistentVolumeClaim`.
        ("", "PersistentVolumeClaim") => {
            fill(section(v, "spec"), "volumeMode", json!("Filesystem"));
        }
        _ => {}
    }
}

/// A Pod: its spec's defaults (a Job's pod restarts `Never`), then
/// `SetDefaults_Pod`'s.
fn pod(v: &mut Value, o: &Object) {
    let owned_by_job = controller_ref(o).is_some_and(|r| r.kind == "Job");
    let spec = section(v, "spec");
    pod_defaults::pod_spec(
        spec,
        || default_container(o),
        DEFAULT_IMAGE,
        if owned_by_job { "Never" } else { "Always" },
    );
    pod_defaults::pod_decoded(spec);
}

/// `SetDefaults_Service`: `type: ClusterIP`, `sessionAffinity: None`, a
/// port's protocol `TCP` and its `targetPort` its port.
fn service(v: &mut Value) {
    let spec = section(v, "spec");
    fill(spec, "type", json!("ClusterIP"));
    fill(spec, "sessionAffinity", json!("None"));
    if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            fill(p, "protocol", json!("TCP"));
            if let Some(port) = p.get("port").cloned() {
                fill(p, "targetPort", port);
            }
        }
    }
}

/// `spec.replicas` defaulted, the template completed.
fn replicated(v: &mut Value, o: &Object) {
    fill(section(v, "spec"), "replicas", json!(1));
    template(v, o);
}

/// The name of the workload a pod or template belongs to: a ReplicaSet's
/// `-<pod-template-hash>` taken off (`web-7d9f8c6b5` -> `web`).
fn workload_name(name: &str, o: &Object) -> String {
    o.metadata
        .labels
        .get("pod-template-hash")
        .and_then(|h| name.strip_suffix(&format!("-{h}")))
        .unwrap_or(name)
        .to_string()
}

/// The container a pod runs when nothing names one: named after its
/// workload (its controller's name), or itself.
fn default_container(o: &Object) -> Value {
    let name = match o.kind.as_str() {
        "Pod" => {
            controller_ref(o).map_or_else(|| o.name().to_string(), |r| workload_name(&r.name, o))
        }
        _ => workload_name(o.name(), o),
    };
    json!({"name": name, "image": DEFAULT_IMAGE})
}

/// A workload's pod template, with a pod spec's defaults.
fn template(v: &mut Value, o: &Object) {
    let restart = if o.kind == "Job" { "Never" } else { "Always" };
    let spec = section(v, "spec");
    let t = spec.entry("template").or_insert_with(|| json!({}));
    if !t.is_object() {
        *t = json!({});
    }
    let Some(t) = t.as_object_mut() else { return };
    fill(t, "metadata", json!({}));
    let s = t.entry("spec").or_insert_with(|| json!({}));
    if let Some(s) = s.as_object_mut() {
        pod_defaults::pod_spec(s, || default_container(o), DEFAULT_IMAGE, restart);
    }
}
