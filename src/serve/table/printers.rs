//! The columns kube-apiserver 1.20 prints for each kind, and their cells
//! (`pkg/printers/internalversion/printers.go`; the aggregator's for
//! APIServices), read from the object as it is sent (what a client would
//! GET, [`super::super::complete`] included). The server always prints the
//! wide form (`GenerateOptions{Wide: true}`): the columns of priority 1 are
//! those kubectl shows with `-o wide`. A built-in kind without a printer
//! gets the default table convertor's `Name`, `Created At`; a custom
//! resource `Name`, `Age` (a CRD's default `additionalPrinterColumns`).

use jiff::Timestamp;
use serde_json::{Value, json};

use super::cells::*;

/// One column: its name, its type, whether only `-o wide` shows it, and
/// its cell of an object (`v` as sent, at `now`).
pub struct Column {
    pub name: &'static str,
    pub kind: &'static str,
    pub wide: bool,
    pub cell: fn(&Value, Timestamp) -> Value,
}

const fn col(
    name: &'static str,
    kind: &'static str,
    cell: fn(&Value, Timestamp) -> Value,
) -> Column {
    Column {
        name,
        kind,
        wide: false,
        cell,
    }
}

const fn wide(
    name: &'static str,
    kind: &'static str,
    cell: fn(&Value, Timestamp) -> Value,
) -> Column {
    Column {
        name,
        kind,
        wide: true,
        cell,
    }
}

/// The columns after `Name` for `kind` of `group`; `builtin` is false for
/// a custom resource.
#[must_use]
pub fn columns(group: &str, kind: &str, builtin: bool) -> Vec<Column> {
    const AGE: fn(&Value, Timestamp) -> Value = age;
    match (group, kind) {
        ("", "Pod") => vec![
            col("Ready", "string", pod_ready),
            col("Status", "string", pod_reason),
            col("Restarts", "integer", pod_restarts),
            col("Age", "string", AGE),
            wide("IP", "string", pod_ip),
            wide("Node", "string", |v, _| or_none(s(v, "/spec/nodeName"))),
            wide("Nominated Node", "string", |v, _| {
                or_none(s(v, "/status/nominatedNodeName"))
            }),
            wide("Readiness Gates", "string", readiness_gates),
        ],
        ("", "Node") => vec![
            col("Status", "string", node_status),
            col("Roles", "string", node_roles),
            col("Age", "string", AGE),
            col("Version", "string", |v, _| {
                json!(s(v, "/status/nodeInfo/kubeletVersion"))
            }),
            wide("Internal-IP", "string", |v, _| {
                node_address(v, "InternalIP")
            }),
            wide("External-IP", "string", |v, _| {
                node_address(v, "ExternalIP")
            }),
            wide("OS-Image", "string", |v, _| {
                or_unknown(s(v, "/status/nodeInfo/osImage"))
            }),
            wide("Kernel-Version", "string", |v, _| {
                or_unknown(s(v, "/status/nodeInfo/kernelVersion"))
            }),
            wide("Container-Runtime", "string", |v, _| {
                or_unknown(s(v, "/status/nodeInfo/containerRuntimeVersion"))
            }),
        ],
        ("", "Namespace") => vec![
            col("Status", "string", |v, _| json!(s(v, "/status/phase"))),
            col("Age", "string", AGE),
        ],
        ("", "Service") => vec![
            col("Type", "string", |v, _| json!(s(v, "/spec/type"))),
            col("Cluster-IP", "string", cluster_ip),
            col("External-IP", "string", external_ip),
            col("Port(s)", "string", service_ports),
            col("Age", "string", AGE),
            wide("Selector", "string", |v, _| {
                format_labels(v.pointer("/spec/selector"))
            }),
        ],
        ("", "ConfigMap") => vec![
            col("Data", "integer", |v, _| {
                json!(len(v, "/data") + len(v, "/binaryData"))
            }),
            col("Age", "string", AGE),
        ],
        ("", "Secret") => vec![
            col("Type", "string", |v, _| json!(s(v, "/type"))),
            col("Data", "integer", |v, _| json!(len(v, "/data"))),
            col("Age", "string", AGE),
        ],
        ("", "ServiceAccount") => vec![
            col("Secrets", "string", |v, _| json!(len(v, "/secrets"))),
            col("Age", "string", AGE),
        ],
        ("", "Endpoints") => vec![
            col("Endpoints", "string", endpoints),
            col("Age", "string", AGE),
        ],
        ("" | "events.k8s.io", "Event") => vec![
            col("Last Seen", "string", event_last_seen),
            col("Type", "string", |v, _| json!(s(v, "/type"))),
            col("Reason", "string", |v, _| json!(s(v, "/reason"))),
            col("Object", "string", event_object),
            wide("Subobject", "string", |v, _| {
                json!(s(v, "/involvedObject/fieldPath"))
            }),
            wide("Source", "string", event_source),
            col("Message", "string", |v, _| json!(s(v, "/message").trim())),
            wide("First Seen", "string", event_first_seen),
            wide("Count", "string", event_count),
            wide("Name", "string", |v, _| json!(s(v, "/metadata/name"))),
        ],
        ("", "PersistentVolume") => vec![
            col("Capacity", "string", |v, _| {
                json!(s(v, "/spec/capacity/storage"))
            }),
            col("Access Modes", "string", |v, _| {
                access_modes(v, "/spec/accessModes")
            }),
            col("Reclaim Policy", "string", |v, _| {
                json!(s(v, "/spec/persistentVolumeReclaimPolicy"))
            }),
            col("Status", "string", volume_phase),
            col("Claim", "string", pv_claim),
            col("StorageClass", "string", storage_class),
            col("Reason", "string", |v, _| json!(s(v, "/status/reason"))),
            col("Age", "string", AGE),
            wide("VolumeMode", "string", volume_mode),
        ],
        ("", "PersistentVolumeClaim") => vec![
            col("Status", "string", volume_phase),
            col("Volume", "string", |v, _| json!(s(v, "/spec/volumeName"))),
            col("Capacity", "string", pvc_capacity),
            col("Access Modes", "string", pvc_access_modes),
            col("StorageClass", "string", storage_class),
            col("Age", "string", AGE),
            wide("VolumeMode", "string", volume_mode),
        ],
        ("", "ReplicationController") => {
            replicas_columns(|v, _| format_labels(v.pointer("/spec/selector")))
        }
        ("apps", "ReplicaSet") => {
            replicas_columns(|v, _| format_label_selector(v.pointer("/spec/selector"), true))
        }
        ("", "ResourceQuota") => vec![
            col("Age", "string", AGE),
            col("Request", "string", |v, _| quota(v, false)),
            col("Limit", "string", |v, _| quota(v, true)),
        ],
        ("apps", "Deployment") => vec![
            col("Ready", "string", |v, _| {
                ready_of(v, "/status/readyReplicas")
            }),
            col("Up-to-date", "integer", |v, _| {
                json!(n(v, "/status/updatedReplicas"))
            }),
            col("Available", "integer", |v, _| {
                json!(n(v, "/status/availableReplicas"))
            }),
            col("Age", "string", AGE),
            wide("Containers", "string", |v, _| {
                containers(v, "/spec/template/spec", "name")
            }),
            wide("Images", "string", |v, _| {
                containers(v, "/spec/template/spec", "image")
            }),
            wide("Selector", "string", |v, _| {
                format_label_selector(v.pointer("/spec/selector"), false)
            }),
        ],
        ("apps", "StatefulSet") => vec![
            col("Ready", "string", |v, _| {
                ready_of(v, "/status/readyReplicas")
            }),
            col("Age", "string", AGE),
            wide("Containers", "string", |v, _| {
                containers(v, "/spec/template/spec", "name")
            }),
            wide("Images", "string", |v, _| {
                containers(v, "/spec/template/spec", "image")
            }),
        ],
        ("apps", "DaemonSet") => vec![
            col("Desired", "integer", |v, _| {
                json!(n(v, "/status/desiredNumberScheduled"))
            }),
            col("Current", "integer", |v, _| {
                json!(n(v, "/status/currentNumberScheduled"))
            }),
            col("Ready", "integer", |v, _| {
                json!(n(v, "/status/numberReady"))
            }),
            col("Up-to-date", "integer", |v, _| {
                json!(n(v, "/status/updatedNumberScheduled"))
            }),
            col("Available", "integer", |v, _| {
                json!(n(v, "/status/numberAvailable"))
            }),
            col("Node Selector", "string", |v, _| {
                format_labels(v.pointer("/spec/template/spec/nodeSelector"))
            }),
            col("Age", "string", AGE),
            wide("Containers", "string", |v, _| {
                containers(v, "/spec/template/spec", "name")
            }),
            wide("Images", "string", |v, _| {
                containers(v, "/spec/template/spec", "image")
            }),
            wide("Selector", "string", |v, _| {
                format_label_selector(v.pointer("/spec/selector"), true)
            }),
        ],
        ("batch", "Job") => vec![
            col("Completions", "string", job_completions),
            col("Duration", "string", job_duration),
            col("Age", "string", AGE),
            wide("Containers", "string", |v, _| {
                containers(v, "/spec/template/spec", "name")
            }),
            wide("Images", "string", |v, _| {
                containers(v, "/spec/template/spec", "image")
            }),
            wide("Selector", "string", |v, _| {
                format_label_selector(v.pointer("/spec/selector"), true)
            }),
        ],
        ("batch", "CronJob") => vec![
            col("Schedule", "string", |v, _| json!(s(v, "/spec/schedule"))),
            col("Suspend", "boolean", |v, _| {
                json!(
                    v.pointer("/spec/suspend")
                        .and_then(Value::as_bool)
                        .unwrap_or(false)
                )
            }),
            col("Active", "integer", |v, _| json!(len(v, "/status/active"))),
            col("Last Schedule", "string", |v, now| {
                v.pointer("/status/lastScheduleTime")
                    .and_then(Value::as_str)
                    .map_or_else(|| json!("<none>"), |t| since(t, now))
            }),
            col("Age", "string", AGE),
            wide("Containers", "string", |v, _| {
                containers(v, "/spec/jobTemplate/spec/template/spec", "name")
            }),
            wide("Images", "string", |v, _| {
                containers(v, "/spec/jobTemplate/spec/template/spec", "image")
            }),
            wide("Selector", "string", |v, _| {
                format_label_selector(v.pointer("/spec/jobTemplate/spec/selector"), true)
            }),
        ],
        ("coordination.k8s.io", "Lease") => vec![
            col("Holder", "string", |v, _| {
                json!(s(v, "/spec/holderIdentity"))
            }),
            col("Age", "string", AGE),
        ],
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => vec![
            col("Role", "string", |v, _| {
                json!(format!(
                    "{}/{}",
                    s(v, "/roleRef/kind"),
                    s(v, "/roleRef/name")
                ))
            }),
            col("Age", "string", AGE),
            wide("Users", "string", |v, _| subjects(v, "User")),
            wide("Groups", "string", |v, _| subjects(v, "Group")),
            wide("ServiceAccounts", "string", |v, _| {
                subjects(v, "ServiceAccount")
            }),
        ],
        (
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration",
        ) => {
            vec![
                col("Webhooks", "integer", |v, _| json!(len(v, "/webhooks"))),
                col("Age", "string", AGE),
            ]
        }
        ("apiregistration.k8s.io", "APIService") => vec![
            col("Service", "string", |v, _| {
                match v.pointer("/spec/service") {
                    Some(svc) if svc.is_object() => {
                        json!(format!("{}/{}", s(svc, "/namespace"), s(svc, "/name")))
                    }
                    _ => json!("Local"),
                }
            }),
            col("Available", "string", api_service_available),
            col("Age", "string", AGE),
        ],
        ("policy", "PodDisruptionBudget") => vec![
            col("Min Available", "string", |v, _| {
                int_or_string(v, "/spec/minAvailable")
            }),
            col("Max Unavailable", "string", |v, _| {
                int_or_string(v, "/spec/maxUnavailable")
            }),
            col("Allowed Disruptions", "integer", |v, _| {
                json!(n(v, "/status/disruptionsAllowed"))
            }),
            col("Age", "string", AGE),
        ],
        ("networking.k8s.io" | "extensions", "Ingress") => vec![
            col("Class", "string", |v, _| {
                or_none(s(v, "/spec/ingressClassName"))
            }),
            col("Hosts", "string", ingress_hosts),
            col("Address", "string", |v, _| {
                json!(load_balancer(v.pointer("/status/loadBalancer/ingress")))
            }),
            col("Ports", "string", |v, _| {
                json!(if len(v, "/spec/tls") > 0 {
                    "80, 443"
                } else {
                    "80"
                })
            }),
            col("Age", "string", AGE),
        ],
        ("storage.k8s.io", "VolumeAttachment") => vec![
            col("Attacher", "string", |v, _| json!(s(v, "/spec/attacher"))),
            col("PV", "string", |v, _| {
                json!(s(v, "/spec/source/persistentVolumeName"))
            }),
            col("Node", "string", |v, _| json!(s(v, "/spec/nodeName"))),
            col("Attached", "boolean", |v, _| {
                json!(
                    v.pointer("/status/attached")
                        .and_then(Value::as_bool)
                        .unwrap_or(false)
                )
            }),
            col("Age", "string", AGE),
        ],
        _ if builtin => vec![col("Created At", "date", |v, _| {
            json!(s(v, "/metadata/creationTimestamp"))
        })],
        _ => vec![col("Age", "string", AGE)],
    }
}

/// Desired, current, ready, age and the template of a ReplicaSet or a
/// ReplicationController; `selector` prints the selector (a label
/// selector for the one, a map of labels for the other).
fn replicas_columns(selector: fn(&Value, Timestamp) -> Value) -> Vec<Column> {
    vec![
        col("Desired", "integer", |v, _| json!(replicas(v))),
        col("Current", "integer", |v, _| json!(n(v, "/status/replicas"))),
        col("Ready", "integer", |v, _| {
            json!(n(v, "/status/readyReplicas"))
        }),
        col("Age", "string", age),
        wide("Containers", "string", |v, _| {
            containers(v, "/spec/template/spec", "name")
        }),
        wide("Images", "string", |v, _| {
            containers(v, "/spec/template/spec", "image")
        }),
        wide("Selector", "string", selector),
    ]
}
