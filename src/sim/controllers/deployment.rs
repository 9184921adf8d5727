//! Follows upstream `pkg/controller/deployment/deployment_controller.go`
//! (`syncDeployment`, `getReplicaSetsForDeployment`) and `sync.go`
//! (`getNewReplicaSet`): at the level of ownership, a Deployment keeps one
//! ReplicaSet named `<deployment>-<pod-template-hash>`. It adopts a
//! matching orphan ReplicaSet; when the one it controls is gone it creates
//! it again (same name, new uid, `spec.replicas` of the Deployment), which
//! then creates or adopts the pods. Not while it is Terminating (R72).
//! Rollouts (a changed template, old ReplicaSets scaled down) are not
//! modelled: the simulator never edits a template.

use crate::model::Object;
use crate::model::workload::{
    Controller, POD_TEMPLATE_HASH, is_managed_by, new_replicaset, replicas, template_hash,
};

use super::controller_ref_manager::claim;
use super::index::WorkloadIndex;
use super::{Intent, Op, intent};
use crate::sim::api::{ApiServer, Key};

/// One sync of a Deployment.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, owner: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, owner, c);
    let mut out = claimed.intents;
    // Any ReplicaSet it controls, Terminating ones included (upstream keeps
    // them in its list; a new one by the same name would be refused).
    if owner.is_terminating() || !is_managed_by(owner, index.selector(owner.uid())) {
        return out;
    }
    if !claimed.children.is_empty() {
        // Scaled (`kubectl scale`): the ReplicaSet of its current template
        // follows (upstream `sync.go` `scale`). Older ones are left as
        // they are: rollouts are not modelled.
        let hash = template_hash(owner.peek_at(&["spec", "template"]).as_ref());
        let want = replicas(owner);
        for rs in claimed.children.iter().filter(|rs| {
            !rs.is_terminating()
                && rs.metadata.labels.get(POD_TEMPLATE_HASH) == Some(&hash)
                && replicas(rs) != want
        }) {
            out.push(intent(
                c.actor,
                Op::Scale {
                    key: Key::of(rs),
                    uid: rs.metadata.uid.clone(),
                    replicas: i64::try_from(want).unwrap_or(i64::MAX),
                },
            ));
        }
        return out;
    }
    let rs = new_replicaset(owner, index.last_replicaset(owner.uid()));
    out.push(intent(
        c.actor,
        Op::Create {
            object: Box::new(rs),
            generate_name: None,
        },
    ));
    out
}
