//! Follows upstream `pkg/controller/replicaset/replica_set.go`
//! (`syncReplicaSet`, `manageReplicas`, `getPodsToDelete`); the
//! ReplicationController is the same code (`pkg/controller/replication`).
//! It keeps `spec.replicas` active pods matching its selector: it creates
//! missing ones from its template (name `<rs>-<5 random>` through
//! `generateName`) and deletes the surplus, first those
//! [`deletion_order`] ranks first. Not while it is Terminating (R72).

use serde_json::{Value, json};

use crate::model::Object;
use crate::model::workload::{
    Controller, deletion_order, is_active_pod, is_managed, replicas, template_labels,
};

use super::controller_ref_manager::claim;
use super::index::WorkloadIndex;
use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

/// One sync of a ReplicaSet or ReplicationController.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, owner: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, owner, c);
    let mut out = claimed.intents;
    if owner.is_terminating() || !is_managed(owner) {
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

/// A pod as a workload's template describes it: the template's labels,
/// a controller reference to the owner, the template's spec; Pending (the
/// simulator has no scheduler).
#[must_use]
pub fn pod_from_template(owner: &Object, name: Option<&str>) -> Object {
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
    pod
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
