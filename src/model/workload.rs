//! What the workload controllers are, as ownership sees them: who controls
//! which kind, by which selector, how many replicas they keep, which pods
//! they delete first, and what they re-create. One table read by the
//! simulator's controllers and by the deletion preview, so that the two
//! cannot disagree about it.
//!
//! A workload is *managed* (its controller creates and deletes) only when
//! its `spec.template` is known: a metadata-only snapshot or a scenario
//! that gives no template says nothing about what would be created, so
//! such a workload only adopts (R72), as before.

use std::cmp::Reverse;

use serde_json::{Value, json};

use super::object::{Object, OwnerReference};
use super::selector::Selector;

/// One workload controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Controller {
    pub group: &'static str,
    pub kind: &'static str,
    /// What it controls.
    pub child_group: &'static str,
    pub child_kind: &'static str,
    /// Its name on the timeline (the upstream event source).
    pub actor: &'static str,
    /// How the preview names it ("the Deployment controller").
    pub title: &'static str,
}

pub const DEPLOYMENT: Controller = Controller {
    group: "apps",
    kind: "Deployment",
    child_group: "apps",
    child_kind: "ReplicaSet",
    actor: "deployment-controller",
    title: "the Deployment controller",
};
pub const REPLICASET: Controller = Controller {
    group: "apps",
    kind: "ReplicaSet",
    child_group: "",
    child_kind: "Pod",
    actor: "replicaset-controller",
    title: "the ReplicaSet controller",
};
pub const REPLICATIONCONTROLLER: Controller = Controller {
    group: "",
    kind: "ReplicationController",
    child_group: "",
    child_kind: "Pod",
    actor: "replicationcontroller-controller",
    title: "the ReplicationController controller",
};
pub const STATEFULSET: Controller = Controller {
    group: "apps",
    kind: "StatefulSet",
    child_group: "",
    child_kind: "Pod",
    actor: "statefulset-controller",
    title: "the StatefulSet controller",
};
pub const DAEMONSET: Controller = Controller {
    group: "apps",
    kind: "DaemonSet",
    child_group: "",
    child_kind: "Pod",
    actor: "daemonset-controller",
    title: "the DaemonSet controller",
};
pub const JOB: Controller = Controller {
    group: "batch",
    kind: "Job",
    child_group: "",
    child_kind: "Pod",
    actor: "job-controller",
    title: "the Job controller",
};

/// Every workload controller, in the order the adoption used to run.
pub const CONTROLLERS: &[Controller] = &[
    DEPLOYMENT,
    REPLICASET,
    REPLICATIONCONTROLLER,
    STATEFULSET,
    DAEMONSET,
    JOB,
];

/// The controller of objects of this kind, if it is a workload.
#[must_use]
pub fn controller_of_kind(group: &str, kind: &str) -> Option<&'static Controller> {
    CONTROLLERS
        .iter()
        .find(|c| c.group == group && c.kind == kind)
}

/// Whether objects of this kind are controlled by some workload.
#[must_use]
pub fn is_child_kind(group: &str, kind: &str) -> bool {
    CONTROLLERS
        .iter()
        .any(|c| c.child_group == group && c.child_kind == kind)
}

/// The owner's selector: a ReplicationController's plain map, everyone
/// else's LabelSelector.
#[must_use]
pub fn selector(owner: &Object) -> Selector {
    // Read without making the owner's spec a value: asked of every
    // workload as it is first seen.
    let sel = owner.peek_at(&["spec", "selector"]);
    if owner.kind == "ReplicationController" && owner.group().is_empty() {
        // An RC without a selector defaults to its template's labels.
        if sel.is_none() {
            let labels = owner.peek_at(&["spec", "template", "metadata", "labels"]);
            return Selector::from_map(labels.as_ref());
        }
        return Selector::from_map(sel.as_ref());
    }
    Selector::from_label_selector(sel.as_ref())
}

/// Whether the controller creates and deletes for this owner: its template
/// is known (see the module comment) and its selector selects the
/// template's labels (the API server refuses a workload whose selector does
/// not; one loaded anyway would create pods it can never count).
#[must_use]
pub fn is_managed(owner: &Object) -> bool {
    controller_of_kind(owner.group(), &owner.kind).is_some()
        && selects_template(owner, &selector(owner))
}

/// [`is_managed`], given the owner's selector as already read (the
/// controllers' index keeps each workload's).
#[must_use]
pub fn is_managed_by(owner: &Object, selector: &Selector) -> bool {
    controller_of_kind(owner.group(), &owner.kind).is_some() && selects_template(owner, selector)
}

/// Whether the owner has a template and `selector` selects its labels.
/// The labels are read from the kept text alone: the whole template (a
/// pod's spec) was made a value for them at every sync of every workload.
fn selects_template(owner: &Object, selector: &Selector) -> bool {
    let labels = owner.peek_at(&["spec", "template", "metadata", "labels"]);
    // With labels, the template is an object; without, it must be one.
    if labels.is_none()
        && !owner
            .peek_at(&["spec", "template"])
            .is_some_and(|t| t.is_object())
    {
        return false;
    }
    selector.matches(&labels_of(labels))
}

/// `spec.replicas`, defaulting to 1 as the API server does.
#[must_use]
pub fn replicas(owner: &Object) -> u64 {
    owner
        .peek_at(&["spec", "replicas"])
        .and_then(|r| r.as_u64())
        .unwrap_or(1)
}

/// The template's labels: what a created pod (or ReplicaSet) carries.
#[must_use]
pub fn template_labels(owner: &Object) -> crate::model::object::StringMap {
    labels_of(owner.peek_at(&["spec", "template", "metadata", "labels"]))
}

/// A map of labels as strings (others skipped); empty for anything else.
fn labels_of(labels: Option<Value>) -> crate::model::object::StringMap {
    match labels {
        Some(Value::Object(m)) => m
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::String(s) => Some((k, s)),
                _ => None,
            })
            .collect(),
        _ => crate::model::object::StringMap::default(),
    }
}

/// The controller reference of `obj`, if any.
#[must_use]
pub fn controller_ref(obj: &Object) -> Option<&OwnerReference> {
    obj.metadata
        .owner_references
        .iter()
        .find(|r| r.is_controller())
}

/// A pod that counts toward replicas: not Terminating, not finished
/// (upstream `FilterActivePods`).
#[must_use]
pub fn is_active_pod(pod: &Object) -> bool {
    // Read without making the pod's status a value: asked of every pod
    // of a ReplicaSet at each of its syncs.
    !pod.is_terminating()
        && !matches!(
            pod.peek_at(&["status", "phase"])
                .as_ref()
                .and_then(Value::as_str),
            Some("Succeeded" | "Failed")
        )
}

/// Running, and Ready unless the status says otherwise (scenarios rarely
/// carry conditions).
#[must_use]
pub fn is_running_and_ready(pod: &Object) -> bool {
    if pod
        .peek_at(&["status", "phase"])
        .as_ref()
        .and_then(Value::as_str)
        != Some("Running")
    {
        return false;
    }
    let conditions = pod.peek_at(&["status", "conditions"]);
    let ready = conditions
        .as_ref()
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        })
        .and_then(|c| c.get("status").and_then(Value::as_str));
    ready.is_none_or(|s| s == "True")
}

/// The order in which a ReplicaSet deletes surplus pods, first first
/// (upstream `controller.ActivePods` as `getPodsToDelete` sorts them):
/// unscheduled before scheduled, Pending before Unknown before Running,
/// not ready before ready, newer before older; then by name, so that the
/// order is total and the simulator and the preview pick the same pods.
#[must_use]
pub fn deletion_order(mut pods: Vec<&Object>) -> Vec<&Object> {
    pods.sort_by_key(|p| {
        let scheduled = p.is_scheduled();
        let phase = match p.str_at(&["status", "phase"]) {
            Some("Pending") | None => 0,
            Some("Unknown") => 1,
            Some("Running") => 2,
            Some(_) => 3,
        };
        (
            scheduled,
            phase,
            is_running_and_ready(p),
            Reverse(p.metadata.creation_timestamp),
            p.name().to_string(),
        )
    });
    pods
}

/// The alphabet of generated name suffixes (apimachinery `rand.String`).
pub const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Five characters from `seed`, as the API server's `generateName` adds.
#[must_use]
pub fn name_suffix(mut seed: u64) -> String {
    let n = NAME_ALPHABET.len() as u64;
    (0..5)
        .map(|_| {
            let c = NAME_ALPHABET[usize::try_from(seed % n).unwrap_or(0)];
            seed /= n;
            char::from(c)
        })
        .collect()
}

/// What becomes of a workload's child that goes while its controller
/// stays: a sentence for the preview, or `None` when nothing replaces it.
/// `owner` is the child's controller as it will be once the DELETE has
/// played out (alive and not Terminating), `child` the object that goes.
#[must_use]
pub fn replacement(owner: &Object, child: &Object) -> Option<String> {
    if owner.kind == "Service" && child.kind == "EndpointSlice" {
        let managed = child
            .metadata
            .labels
            .get("endpointslice.kubernetes.io/managed-by")
            .is_some_and(|m| m == "endpointslice-controller.k8s.io");
        return (managed && service_selects(owner))
            .then(|| "replaced by the EndpointSlice controller (a new slice)".to_string());
    }
    let c = controller_of_kind(owner.group(), &owner.kind)?;
    if !is_managed(owner) || owner.is_terminating() || child.kind != c.child_kind {
        return None;
    }
    if c.kind == "Deployment" {
        return Some(format!(
            "re-created by {} (same name, new uid), with new pods",
            c.title
        ));
    }
    if c.kind == "Job" && job_finished(owner) {
        return None;
    }
    if c.kind == "StatefulSet" {
        return Some(format!("re-created by {} (same name, new uid)", c.title));
    }
    Some(format!("replaced by {} (a new pod)", c.title))
}

/// A Service whose endpoints the controllers keep: it has a selector and
/// is not being deleted.
#[must_use]
pub fn service_selects(svc: &Object) -> bool {
    svc.kind == "Service"
        && svc.group().is_empty()
        && !svc.is_terminating()
        && !Selector::from_map(svc.value_at(&["spec", "selector"])).is_nothing()
}

/// The node a daemon pod is for: `spec.nodeName`, else the node its
/// required node affinity names (`metadata.name`), as the DaemonSet
/// controller pins it.
#[must_use]
pub fn node_of(pod: &Object) -> Option<String> {
    if let Some(n) = pod.str_at(&["spec", "nodeName"]).filter(|n| !n.is_empty()) {
        return Some(n.to_string());
    }
    pod.value_at(&["spec", "affinity", "nodeAffinity"])?
        .pointer("/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")?
        .as_array()?
        .iter()
        .flat_map(|t| {
            t.get("matchFields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .find(|f| f.get("key").and_then(Value::as_str) == Some("metadata.name"))
        .and_then(|f| f.pointer("/values/0"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A Job's `Complete` or `Failed` condition that is True, if it finished
/// (upstream `IsJobFinished`, `getFinishedStatus`).
#[must_use]
pub fn job_finished_condition(job: &Object) -> Option<&Value> {
    job.value_at(&["status", "conditions"])
        .and_then(Value::as_array)?
        .iter()
        .find(|c| {
            matches!(
                c.get("type").and_then(Value::as_str),
                Some("Complete" | "Failed")
            ) && c.get("status").and_then(Value::as_str) == Some("True")
        })
}

/// A Job with a Complete or Failed condition.
#[must_use]
pub fn job_finished(job: &Object) -> bool {
    job_finished_condition(job).is_some()
}

/// When the Job finished: the `lastTransitionTime` of its `Complete` or
/// `Failed` condition that is True (upstream `jobFinishTime`); `None` when
/// it has not finished or does not say when.
#[must_use]
pub fn job_finished_at(job: &Object) -> Option<jiff::Timestamp> {
    job_finished_condition(job)
        .and_then(|c| c.get("lastTransitionTime").and_then(Value::as_str))
        .and_then(|t| t.parse().ok())
}

/// When the TTL-after-finished controller deletes the Job (R71) (`None`: never: no TTL, not
/// finished, already being deleted, not a batch Job).
#[must_use]
pub fn job_ttl_expires_at(job: &Object) -> Option<jiff::Timestamp> {
    if job.kind != "Job" || job.group() != "batch" || job.is_terminating() {
        return None;
    }
    let ttl = job
        .value_at(&["spec", "ttlSecondsAfterFinished"])
        .and_then(Value::as_i64)?;
    job_finished_at(job)?
        .checked_add(jiff::SignedDuration::from_secs(ttl))
        .ok()
}

pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// The ReplicaSet a Deployment creates: the hash of the one it had (a
/// scenario's or snapshot's, whose name came from the real controller), or
/// of its template.
#[must_use]
pub fn new_replicaset(d: &Object, last: Option<&Object>) -> Object {
    let hash = last
        .and_then(|rs| rs.metadata.labels.get(POD_TEMPLATE_HASH).cloned())
        .or_else(|| {
            last.and_then(|rs| {
                rs.name()
                    .strip_prefix(&format!("{}-", d.name()))
                    .map(str::to_string)
            })
        })
        .unwrap_or_else(|| template_hash(d.value_at(&["spec", "template"])));
    let mut rs = Object::new(
        "apps/v1",
        "ReplicaSet",
        d.namespace(),
        &format!("{}-{hash}", d.name()),
    );
    let mut template = d
        .value_at(&["spec", "template"])
        .cloned()
        .unwrap_or_else(|| json!({}));
    template["metadata"]["labels"][POD_TEMPLATE_HASH] = json!(hash);
    let mut selector = d
        .value_at(&["spec", "selector"])
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    selector["matchLabels"][POD_TEMPLATE_HASH] = json!(hash);
    rs.metadata.labels = template["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    rs.metadata
        .owner_references
        .push(d.reference(Some(true), Some(true)));
    rs.spec = json!({
        "replicas": replicas(d),
        "selector": selector,
        "template": template,
    })
    .into();
    if d.extra().unkept_text().is_some() {
        return whole_replicaset(d, rs, &hash);
    }
    rs
}

/// The ReplicaSet with the Deployment's whole template, as upstream's
/// `getNewReplicaSet` copies it (`d.Spec.Template.DeepCopy()`, the hash
/// label added) with `minReadySeconds`: what the simulator keeps of the
/// template and what `ownerscope serve` keeps beside it
/// ([`super::unkept`]: env, ports, resources, annotations...), split again
/// as the ReplicaSet's.
fn whole_replicaset(d: &Object, rs: Object, hash: &str) -> Object {
    let Ok(mut v) = serde_json::to_value(&rs) else {
        return rs;
    };
    let mut template = super::unkept::full_at(d, &["spec", "template"])
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    template["metadata"]["labels"][POD_TEMPLATE_HASH] = json!(hash);
    v["spec"]["template"] = template;
    if let Some(m) = super::unkept::full_at(d, &["spec", "minReadySeconds"]) {
        v["spec"]["minReadySeconds"] = m;
    }
    super::unkept::object_of(&v).unwrap_or(rs)
}

/// `pod-template-hash` for a template the simulator has not seen hashed:
/// FNV-1a (32 bits) of the template's JSON, its decimal digits mapped
/// through the name alphabet as upstream's `rand.SafeEncodeString` does.
/// Upstream hashes the Go struct, so the value differs from a real
/// cluster's; its shape is the same.
#[must_use]
pub fn template_hash(template: Option<&Value>) -> String {
    let text = template.map(Value::to_string).unwrap_or_default();
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_string()
        .bytes()
        .map(|d| char::from(NAME_ALPHABET[usize::from(d) % NAME_ALPHABET.len()]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload is managed when it has a template whose labels its
    /// selector selects: labels read alone, from the kept text or from a
    /// spec already made a value, and a template with no labels at all
    /// still a template.
    #[test]
    fn a_workload_is_managed_when_its_selector_selects_its_templates_labels() {
        let rs = |spec: serde_json::Value| {
            let mut o = Object::new("apps/v1", "ReplicaSet", Some("shop"), "web");
            o.spec = spec.into();
            o
        };
        let selects = serde_json::json!({"matchLabels": {"app": "web"}});
        let cases = [
            (
                serde_json::json!({"selector": selects, "template": {"metadata": {"labels": {"app": "web", "x": "1"}}, "spec": {"containers": []}}}),
                true,
            ),
            (
                serde_json::json!({"selector": selects, "template": {"metadata": {"labels": {"app": "db"}}}}),
                false,
            ),
            (serde_json::json!({"selector": selects}), false),
            (
                serde_json::json!({"selector": selects, "template": "web"}),
                false,
            ),
            (
                serde_json::json!({"selector": {}, "template": {"spec": {}}}),
                true,
            ),
            (serde_json::json!({"selector": {}}), false),
            (
                serde_json::json!({"selector": {}, "template": "web"}),
                false,
            ),
            (
                serde_json::json!({"selector": selects, "template": {"spec": {}}}),
                false,
            ),
        ];
        for (spec, managed) in cases {
            let text = rs(spec.clone());
            // As read from a file: the spec kept as text.
            let read: Object = serde_json::from_value(serde_json::to_value(&text).expect("JSON"))
                .expect("an object");
            for o in [&text, &read] {
                assert_eq!(is_managed(o), managed, "{spec}");
                assert_eq!(is_managed_by(o, &selector(o)), managed, "{spec}");
            }
        }
        let mut pod = rs(serde_json::json!({"selector": {}, "template": {}}));
        pod.kind = "Pod".into();
        pod.api_version = "v1".into();
        assert!(!is_managed(&pod), "not a workload");
    }

    #[test]
    fn name_suffixes_are_five_characters_of_the_alphabet() {
        let a = name_suffix(0);
        assert_eq!(a, "bbbbb");
        let b = name_suffix(u64::MAX);
        assert_eq!(b.len(), 5);
        assert!(b.bytes().all(|c| NAME_ALPHABET.contains(&c)));
        assert_ne!(name_suffix(1), name_suffix(2));
    }
}
