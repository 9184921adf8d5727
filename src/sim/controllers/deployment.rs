//! Follows upstream `pkg/controller/deployment/deployment_controller.go`
//! (`syncDeployment`, `getReplicaSetsForDeployment`) and `sync.go`
//! (`getNewReplicaSet`): at the level of ownership, a Deployment keeps one
//! ReplicaSet named `<deployment>-<pod-template-hash>`. It adopts a
//! matching orphan ReplicaSet; when the one it controls is gone it creates
//! it again (same name, new uid, `spec.replicas` of the Deployment), which
//! then creates or adopts the pods. Not while it is Terminating (R72).
//! Rollouts (a changed template, old ReplicaSets scaled down) are not
//! modelled: the simulator never edits a template.

use serde_json::{Value, json};

use crate::model::Object;
use crate::model::workload::{Controller, NAME_ALPHABET, is_managed, replicas};

use super::controller_ref_manager::claim;
use super::index::WorkloadIndex;
use super::{Intent, Op, intent};
use crate::sim::api::ApiServer;

pub const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// One sync of a Deployment.
#[must_use]
pub fn sync(api: &ApiServer, index: &WorkloadIndex, owner: &Object, c: &Controller) -> Vec<Intent> {
    let claimed = claim(api, index, owner, c);
    let mut out = claimed.intents;
    // Any ReplicaSet it controls, Terminating ones included (upstream keeps
    // them in its list; a new one by the same name would be refused).
    if owner.is_terminating() || !is_managed(owner) || !claimed.children.is_empty() {
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

/// The ReplicaSet a Deployment creates: the hash of the one it had (a
/// scenario's or snapshot's, whose name came from the real controller), or
/// of its template.
fn new_replicaset(d: &Object, last: Option<&Object>) -> Object {
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
    });
    rs
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
