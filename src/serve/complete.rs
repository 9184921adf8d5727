//! What a real cluster would have written into an object the simulator
//! keeps only in part ([`crate::model::kept`]), added as the object is
//! sent: kube-apiserver's defaults of its decoding ([`super::decoded`]:
//! a pod spec's, a container from the pod's or its controller's template
//! or one named after its workload), what admission and allocation add
//! (a pod's priority and tolerations, a Service's cluster IP), the kubelet's status for a pod on a Node that exists, and the workload
//! controllers' status (replicas, ready, available, observedGeneration,
//! conditions) counted from the pods in the store. So `kubectl logs`,
//! `describe` and `rollout status` read as on a real cluster. A field the
//! stored object has is never replaced: the scenario's word stands.

use serde_json::{Map, Value, json};

use super::pod_defaults;
use crate::model::workload::{controller_ref, is_active_pod, is_running_and_ready, selector};
use crate::model::{Object, OwnershipGraph};

/// The image of a container that neither the pod nor its controller's
/// template names.
pub const DEFAULT_IMAGE: &str = "registry.k8s.io/pause:3.2";

/// Where a workload's templates keep their `ObjectMeta`.
const TEMPLATES: &[&str] = &[
    "/spec/template",
    "/spec/jobTemplate",
    "/spec/jobTemplate/spec/template",
];

/// A template's zero creation time, as kube-apiserver encodes every
/// workload it sends: `ObjectMeta` is no pointer in a template, so its
/// metadata is there, with `creationTimestamp: null`.
fn zero_times(v: &mut Value, o: &Object) {
    let workload = matches!(
        (o.group(), o.kind.as_str()),
        (
            "apps",
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
        ) | ("batch", "Job" | "CronJob")
            | ("", "ReplicationController")
    );
    if !workload {
        return;
    }
    for at in TEMPLATES {
        let Some(t) = v.pointer_mut(at).and_then(Value::as_object_mut) else {
            continue;
        };
        let meta = t.entry("metadata").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            fill(meta, "creationTimestamp", Value::Null);
        }
    }
}

/// Adds to `v`, the object `o` as sent, what a real cluster would show.
pub fn complete(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    super::decoded::defaults(v, o);
    match (o.group(), o.kind.as_str()) {
        ("", "Pod") => pod(v, o, g),
        ("apps", "Deployment") => deployment(v, o, g),
        ("apps", "ReplicaSet") | ("", "ReplicationController") => replica_set(v, o, g),
        ("apps", "StatefulSet") => stateful_set(v, o, g),
        ("apps", "DaemonSet") => daemon_set(v, o, g),
        ("", "Service") => service(v, o),
        ("batch", "Job") => {
            if let Some(t) = created(o) {
                fill(section(v, "status"), "startTime", json!(t));
            }
        }
        _ => {}
    }
    zero_times(v, o);
}

/// A workload's status in the answer to its create: what its strategy's
/// `PrepareForCreate` leaves (the status reset, its fields without
/// `omitempty` at zero), as kube-apiserver answers before the controller
/// has run (`status: {}` for a Deployment, `{replicas: 0}` for a
/// ReplicaSet), under what the stored object has; `None` for other kinds,
/// whose answer is as a GET's.
#[must_use]
pub fn status_on_create(o: &Object, stored: &Value) -> Option<Value> {
    let mut zero = match (o.group(), o.kind.as_str()) {
        ("apps", "Deployment") | ("batch", "Job" | "CronJob") => json!({}),
        ("apps", "ReplicaSet" | "StatefulSet") | ("", "ReplicationController") => {
            json!({"replicas": 0})
        }
        ("apps", "DaemonSet") => json!({"currentNumberScheduled": 0, "numberMisscheduled": 0,
                                        "desiredNumberScheduled": 0, "numberReady": 0}),
        _ => return None,
    };
    let mut status = stored.get("status").cloned().filter(Value::is_object);
    match status.as_mut() {
        Some(s) => super::unkept::merge(s, &zero),
        None => status = Some(zero.take()),
    }
    status
}

/// `v[key]` as a map, made one if it was absent or null.
pub(super) fn section<'v>(v: &'v mut Value, key: &str) -> &'v mut Map<String, Value> {
    if !v[key].is_object() {
        v[key] = json!({});
    }
    match &mut v[key] {
        Value::Object(m) => m,
        _ => unreachable!("made a map above"),
    }
}

/// Sets `key` unless the map has it.
pub(super) fn fill(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.entry(key).or_insert(value);
}

/// Sets a count unless the map has it; zero is left out, as the API's
/// `omitempty` counts are.
fn count(map: &mut Map<String, Value>, key: &str, n: usize) {
    if n > 0 {
        fill(map, key, json!(n));
    }
}

fn created(o: &Object) -> Option<String> {
    o.metadata.creation_timestamp.map(|t| t.to_string())
}

/// The Node a pod is bound to, if it exists.
fn node<'g>(pod: &Object, g: &'g OwnershipGraph) -> Option<&'g Object> {
    let name = pod.str_at(&["spec", "nodeName"])?;
    g.find("", "Node", None, name)
}

/// Ready as its workload counts it: running and ready on a Node that
/// exists, and not going.
fn ready(pod: &Object, g: &OwnershipGraph) -> bool {
    is_active_pod(pod) && is_running_and_ready(pod) && node(pod, g).is_some()
}

fn pod(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    let spec = section(v, "spec");
    match controller_ref(o).filter(|r| r.group() == "apps") {
        Some(r) if r.kind == "DaemonSet" => crate::sim::controllers::daemon::tolerations(spec),
        // `initIdentity`: a StatefulSet's pod is its own host in the
        // set's service's domain.
        Some(r) if r.kind == "StatefulSet" => {
            fill(spec, "hostname", json!(o.name()));
            if let Some(service) = g
                .get(&r.uid)
                .and_then(|set| set.peek_at(&["spec", "serviceName"]))
            {
                fill(spec, "subdomain", service);
            }
        }
        _ => {}
    }
    pod_defaults::pod_admitted(spec);
    let qos = pod_defaults::qos_class(&v["spec"]);
    let containers: Vec<(String, String)> = v["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
            (s("name").to_string(), s("image").to_string())
        })
        .collect();
    let phase = o.str_at(&["status", "phase"]).unwrap_or("Pending");
    let is_ready = ready(o, g);
    let on_node = node(o, g).is_some();
    let at = created(o).map_or(Value::Null, Value::String);
    let status = section(v, "status");
    fill(status, "phase", json!(phase));
    fill(status, "qosClass", json!(qos));
    if !on_node {
        return;
    }
    fill(status, "startTime", at.clone());
    let word = if is_ready { "True" } else { "False" };
    let condition = |t: &str, s: &str| json!({"type": t, "status": s, "lastProbeTime": null, "lastTransitionTime": at});
    fill(
        status,
        "conditions",
        json!([
            condition("Initialized", "True"),
            condition("Ready", word),
            condition("ContainersReady", word),
            condition("PodScheduled", "True"),
        ]),
    );
    let state = match phase {
        "Running" => json!({"running": {"startedAt": at}}),
        "Succeeded" => json!({"terminated": {"exitCode": 0, "reason": "Completed",
                                              "startedAt": at, "finishedAt": at}}),
        "Failed" => json!({"terminated": {"exitCode": 1, "reason": "Error",
                                           "startedAt": at, "finishedAt": at}}),
        _ => json!({"waiting": {"reason": "ContainerCreating"}}),
    };
    let statuses: Vec<Value> = containers
        .into_iter()
        .map(|(name, image)| {
            json!({
                "name": name, "image": image, "imageID": "",
                "ready": is_ready, "started": phase == "Running",
                "restartCount": 0, "state": state, "lastState": {},
            })
        })
        .collect();
    fill(status, "containerStatuses", json!(statuses));
}

/// The pods whose controller is `owner`.
fn pods_of<'g>(owner: &Object, g: &'g OwnershipGraph) -> Vec<&'g Object> {
    g.referrer_objects(owner.uid())
        .filter(|p| p.kind == "Pod" && p.group().is_empty())
        .filter(|p| controller_ref(p).is_some_and(|r| r.uid == owner.uid()))
        .collect()
}

fn spec_replicas(v: &Value) -> u64 {
    v["spec"]["replicas"].as_u64().unwrap_or(1)
}

/// What a workload's status counts of its pods.
struct Counts {
    /// Active pods (not Terminating, not finished).
    replicas: usize,
    ready: usize,
}

fn counts(pods: &[&Object], g: &OwnershipGraph) -> Counts {
    Counts {
        replicas: pods.iter().filter(|p| is_active_pod(p)).count(),
        ready: pods.iter().filter(|p| ready(p, g)).count(),
    }
}

fn observed(status: &mut Map<String, Value>, o: &Object) {
    fill(
        status,
        "observedGeneration",
        json!(o.metadata.generation.unwrap_or(1)),
    );
}

/// What `SetNewReplicaSetAnnotations` copies from a Deployment to its
/// ReplicaSets: every annotation but these (`deployment_util.go`,
/// `annotationsToSkip`).
const NOT_COPIED: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

const REVISION: &str = "deployment.kubernetes.io/revision";

/// The annotations the deployment controller writes on a ReplicaSet it
/// made (`SetNewReplicaSetAnnotations`, `SetReplicasAnnotations`): the
/// Deployment's own, its revision (`1`: the simulator never rolls one
/// out), the replicas it wants and the most a rollout may run (`maxSurge`
/// above them, a percentage rounded up).
fn rollout_annotations(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    let Some(d) = controller_ref(o)
        .filter(|r| r.kind == "Deployment" && r.group() == "apps")
        .and_then(|r| g.get(&r.uid))
    else {
        return;
    };
    let want = d
        .peek_at(&["spec", "replicas"])
        .and_then(|r| r.as_u64())
        .unwrap_or(1);
    let surge = match d
        .peek_at(&["spec", "strategy"])
        .or_else(|| super::unkept::of(d).and_then(|u| u.pointer("/spec/strategy").cloned()))
    {
        Some(s) if s["type"] == "Recreate" => 0,
        Some(s) => scaled(&s["rollingUpdate"]["maxSurge"], want),
        None => scaled(&Value::Null, want),
    };
    let meta = section(v, "metadata");
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    let Some(a) = annotations.as_object_mut() else {
        return;
    };
    for (k, value) in &d.metadata.annotations {
        if !NOT_COPIED.contains(&k.as_str()) {
            fill(a, k, json!(value));
        }
    }
    fill(a, REVISION, json!("1"));
    fill(
        a,
        "deployment.kubernetes.io/desired-replicas",
        json!(want.to_string()),
    );
    fill(
        a,
        "deployment.kubernetes.io/max-replicas",
        json!((want + surge).to_string()),
    );
}

/// An int-or-percent of `of`, a percentage rounded up
/// (`GetScaledValueFromIntOrPercent`); unset: 25%.
fn scaled(v: &Value, of: u64) -> u64 {
    if let Some(n) = v.as_u64() {
        return n;
    }
    let pct = v
        .as_str()
        .and_then(|s| s.strip_suffix('%'))
        .and_then(|p| p.parse::<u64>().ok())
        .unwrap_or(25);
    (of * pct).div_ceil(100)
}

fn replica_set(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    rollout_annotations(v, o, g);
    let c = counts(&pods_of(o, g), g);
    let status = section(v, "status");
    fill(status, "replicas", json!(c.replicas));
    count(status, "fullyLabeledReplicas", c.replicas);
    count(status, "readyReplicas", c.ready);
    count(status, "availableReplicas", c.ready);
    observed(status, o);
}

fn deployment(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    let want = spec_replicas(v);
    let sets: Vec<&Object> = g
        .referrer_objects(o.uid())
        .filter(|r| r.kind == "ReplicaSet" && r.group() == "apps")
        .filter(|r| controller_ref(r).is_some_and(|c| c.uid == o.uid()))
        .collect();
    let pods: Vec<&Object> = sets.iter().flat_map(|rs| pods_of(rs, g)).collect();
    let c = counts(&pods, g);
    let want_n = usize::try_from(want).unwrap_or(usize::MAX);
    // maxUnavailable 25%, rounded down: the fewest available that count.
    let least = want_n - want_n / 4;
    let at = created(o).map_or(Value::Null, Value::String);
    let newest = sets
        .iter()
        .max_by_key(|rs| rs.metadata.creation_timestamp)
        .map(|rs| rs.name().to_string());
    if newest.is_some() {
        // The revision of its newest ReplicaSet (`syncDeploymentStatus`).
        let meta = section(v, "metadata");
        let a = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Some(a) = a.as_object_mut() {
            fill(a, REVISION, json!("1"));
        }
    }
    let (p_reason, p_message) = match &newest {
        Some(rs) if c.ready >= want_n && c.replicas == want_n => (
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{rs}\" has successfully progressed."),
        ),
        Some(rs) => (
            "ReplicaSetUpdated",
            format!("ReplicaSet \"{rs}\" is progressing."),
        ),
        None => (
            "NewReplicaSetCreated",
            "Created new replica set.".to_string(),
        ),
    };
    let (a_status, a_reason, a_message) = if c.ready >= least {
        (
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
        )
    } else {
        (
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
        )
    };
    let status = section(v, "status");
    observed(status, o);
    count(status, "replicas", c.replicas);
    count(status, "updatedReplicas", c.replicas);
    count(status, "readyReplicas", c.ready);
    count(status, "availableReplicas", c.ready);
    count(
        status,
        "unavailableReplicas",
        c.replicas.max(want_n).saturating_sub(c.ready),
    );
    let condition = |t: &str, s: &str, r: &str, m: &str| {
        json!({"type": t, "status": s, "lastUpdateTime": at, "lastTransitionTime": at,
               "reason": r, "message": m})
    };
    fill(
        status,
        "conditions",
        json!([
            condition("Available", a_status, a_reason, a_message),
            condition("Progressing", "True", p_reason, &p_message),
        ]),
    );
}

/// A revision name for a workload that is never rolled: its name and a
/// piece of its uid.
fn revision(o: &Object) -> String {
    let short: String = o
        .uid()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(10)
        .collect();
    format!("{}-{short}", o.name())
}

fn stateful_set(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    let c = counts(&pods_of(o, g), g);
    let rev = revision(o);
    let status = section(v, "status");
    observed(status, o);
    fill(status, "replicas", json!(c.replicas));
    count(status, "readyReplicas", c.ready);
    count(status, "currentReplicas", c.replicas);
    count(status, "updatedReplicas", c.replicas);
    fill(status, "currentRevision", json!(rev));
    fill(status, "updateRevision", json!(rev));
    fill(status, "collisionCount", json!(0));
}

fn daemon_set(v: &mut Value, o: &Object, g: &OwnershipGraph) {
    let c = counts(&pods_of(o, g), g);
    // The graph's own index of Nodes: a DaemonSet read costs its pods and
    // the Nodes, not a look at every object in the store.
    let nodes = g.nodes().filter(|n| !n.is_terminating()).count();
    let status = section(v, "status");
    observed(status, o);
    fill(status, "currentNumberScheduled", json!(c.replicas));
    fill(status, "desiredNumberScheduled", json!(nodes));
    fill(status, "numberMisscheduled", json!(0));
    fill(status, "numberReady", json!(c.ready));
    count(status, "numberAvailable", c.ready);
    count(status, "updatedNumberScheduled", c.replicas);
    let unavailable = status
        .get("desiredNumberScheduled")
        .and_then(Value::as_u64)
        .and_then(|d| usize::try_from(d).ok())
        .unwrap_or(nodes)
        .saturating_sub(c.ready);
    count(status, "numberUnavailable", unavailable);
}

/// A Service as kube-apiserver allocates it, its defaults set
/// ([`super::decoded`]): a cluster IP of the service range
/// (10.96.0.0/12) and a node port (30000-32767) where one is due and the
/// object names none, each drawn from the uid, so an object keeps them;
/// `clusterIPs` as 1.20 fills it.
fn service(v: &mut Value, o: &Object) {
    // No load balancer yet (the API server's zero `LoadBalancerStatus`).
    fill(section(v, "status"), "loadBalancer", json!({}));
    let seed = o
        .metadata
        .uid
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    let spec = section(v, "spec");
    let kind = spec["type"].as_str().unwrap_or_default().to_string();
    if kind != "ExternalName" {
        // Not .0, nor .1 (the `kubernetes` Service).
        let n = 2 + seed % ((1 << 20) - 3);
        let ip = format!("10.{}.{}.{}", 96 + (n >> 16), (n >> 8) & 0xff, n & 0xff);
        fill(spec, "clusterIP", json!(ip));
        let ip = spec["clusterIP"].clone();
        fill(spec, "clusterIPs", json!([ip]));
    }
    let node_ports = kind == "NodePort" || kind == "LoadBalancer";
    if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
        for (i, p) in ports.iter_mut().enumerate() {
            let Some(p) = p.as_object_mut() else { continue };
            if node_ports {
                let i = u64::try_from(i).unwrap_or_default();
                fill(p, "nodePort", json!(30000 + (seed / 7 + i) % 2768));
            }
        }
    }
}

/// The label selector of a workload as a string (the Scale's
/// `status.selector`).
#[must_use]
pub fn selector_string(o: &Object) -> String {
    let s = selector(o);
    if s.is_everything() || s.is_nothing() {
        String::new()
    } else {
        s.to_string()
    }
}
