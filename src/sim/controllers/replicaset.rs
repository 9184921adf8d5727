//! Follows upstream `pkg/controller/replicaset/replica_set.go`
//! (`syncReplicaSet`, `manageReplicas`, `getPodsToDelete`); the
//! ReplicationController is the same code (`pkg/controller/replication`).
//! It keeps `spec.replicas` active pods matching its selector: it creates
//! missing ones from its template (name `<rs>-<5 random>` through
//! `generateName`) and deletes the surplus, first those
//! [`deletion_order`] ranks first. Not while it is Terminating (R72).

use serde_json::{Value, json};

use crate::model::workload::{
    Controller, deletion_order, is_active_pod, is_managed_by, replicas, template_labels,
};
use crate::model::{Object, unkept};

use super::controller_ref_manager::claim;
use super::index::WorkloadIndex;
use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

/// One sync of a ReplicaSet or ReplicationController.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, owner: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, owner, c);
    let mut out = claimed.intents;
    if owner.is_terminating() || !is_managed_by(owner, index.selector(owner.uid())) {
        return out;
    }
    let active: Vec<&Object> = claimed
        .children
        .into_iter()
        .filter(|p| is_active_pod(p))
        .collect();
    let want = usize::try_from(replicas(owner)).unwrap_or(usize::MAX);
    if active.len() < want {
        for _ in active.len()..want {
            out.push(intent(
                c.actor,
                Op::Create {
                    object: Box::new(pod_from_template(owner, None)),
                    generate_name: Some(format!("{}-", owner.name())),
                },
            ));
        }
    } else if active.len() > want {
        let n = active.len() - want;
        out.extend(delete_surplus(active, n, c.actor));
    }
    out
}

/// A pod as a workload's template describes it (upstream
/// `controller_utils.go`, `GetPodFromTemplate`): the template's labels,
/// annotations and finalizers, `generateName` `<owner>-`, a controller
/// reference to the owner, the template's spec; Pending (the simulator
/// has no scheduler). The template is copied whole: what the simulator
/// keeps of it and, for a workload `ownerscope serve` was sent, what it
/// keeps beside it ([`crate::model::unkept`]: env, ports, resources,
/// probes, volumes...), so the pod reads as the real controller's would.
#[must_use]
pub fn pod_from_template(owner: &Object, name: Option<&str>) -> Object {
    if owner.extra().unkept_text().is_some()
        && let Some(pod) = whole_pod(owner, name)
    {
        return pod;
    }
    let mut pod = Object::new("v1", "Pod", owner.namespace(), name.unwrap_or_default());
    pod.metadata.labels = template_labels(owner);
    pod.metadata
        .owner_references
        .push(owner.reference(Some(true), Some(true)));
    pod.spec = owner
        .value_at(&["spec", "template", "spec"])
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}))
        .into();
    pod.status = json!({"phase": "Pending"}).into();
    // `generateName`, which the model does not keep, beside it.
    unkept::set(
        &mut pod,
        Some(&json!({"metadata": {"generateName": format!("{}-", owner.name())}})),
    );
    pod
}

/// The pod from the owner's whole template, kept and unkept fields
/// alike, split again as a pod's: a template's `volumes` or
/// `terminationGracePeriodSeconds` the simulator reads on a pod.
fn whole_pod(owner: &Object, name: Option<&str>) -> Option<Object> {
    let template = unkept::full_at(owner, &["spec", "template"]).unwrap_or_else(|| json!({}));
    let meta = |k: &str| {
        template
            .pointer(&format!("/metadata/{k}"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let spec = template
        .get("spec")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    let mut metadata = json!({
        "name": name.unwrap_or_default(),
        "generateName": format!("{}-", owner.name()),
        "labels": meta("labels"),
        "annotations": meta("annotations"),
        "finalizers": meta("finalizers"),
        "ownerReferences": [owner.reference(Some(true), Some(true))],
    });
    if let Some(ns) = owner.namespace() {
        metadata["namespace"] = json!(ns);
    }
    if let Some(m) = metadata.as_object_mut() {
        m.retain(|_, v| !v.is_null());
    }
    unkept::object_of(&json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Pending"},
    }))
    .ok()
}

/// Deletes the surplus: `n` pods in [`deletion_order`].
#[must_use]
pub fn delete_surplus(pods: Vec<&Object>, n: usize, actor: &str) -> Vec<Intent> {
    deletion_order(pods)
        .into_iter()
        .take(n)
        .map(|p| {
            intent(
                actor,
                Op::Delete {
                    key: Key::of(p),
                    options: DeleteOptions::default(),
                },
            )
        })
        .collect()
}
