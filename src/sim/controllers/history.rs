//! Follows upstream `pkg/controller/history/controller_history.go`
//! (`NewControllerRevision`, `ControllerRevisionName`) as the StatefulSet
//! controller (`stateful_set_utils.go` `newRevision`) and the DaemonSet
//! controller (`update.go` `snapshot`) call it: a workload's pod template
//! is kept in a ControllerRevision `<owner>-<hash>`, controlled by the
//! workload, labelled with the template's labels and the hash, annotated
//! with the workload's annotations, its `data` the template as a
//! strategic patch (`$patch: replace`), `revision` 1. The workload's pods
//! name it in their `controller-revision-hash` label. As observed on the
//! test control plane (1.20): a StatefulSet's revision carries the hash
//! as `controller.kubernetes.io/hash` and its pods the revision's whole
//! name; a DaemonSet's revision carries it as `controller-revision-hash`
//! with `deprecated.daemonset.template.generation`, and its pods the hash
//! alone with `pod-template-generation`.
//!
//! Not modelled: a new revision when the template changes (the simulator
//! never rolls a workload out), adopting an orphaned revision, the
//! revision history limit. The hash is the simulator's
//! ([`template_hash`]), not upstream's hash of the Go struct. A workload
//! that controls a revision already (a snapshot of a cluster) keeps it.

use serde_json::{Map, Value, json};

use super::{Intent, Op, intent};
use crate::model::workload::template_hash;
use crate::model::{Object, unkept};
use crate::sim::api::{ApiServer, Key};

/// The label of a StatefulSet's revision that holds its hash.
pub const STATEFUL_SET_HASH: &str = "controller.kubernetes.io/hash";
/// A DaemonSet's revision's hash label, and every such workload's pods'.
pub const REVISION_HASH: &str = "controller-revision-hash";
/// A DaemonSet pod's label: the DaemonSet's generation.
pub const POD_TEMPLATE_GENERATION: &str = "pod-template-generation";
/// A DaemonSet revision's annotation: the DaemonSet's generation.
const DAEMON_GENERATION: &str = "deprecated.daemonset.template.generation";

/// The workload's current revision: its name and hash, and the object to
/// create when there is none yet.
pub struct Revision {
    pub name: String,
    pub hash: String,
    pub create: Option<Object>,
}

impl Revision {
    /// The create of the revision, when there is none yet, by `actor`.
    #[must_use]
    pub fn create_intent(&mut self, actor: &str) -> Option<Intent> {
        self.create.take().map(|r| {
            intent(
                actor,
                Op::Create {
                    object: Box::new(r),
                    generate_name: None,
                },
            )
        })
    }
}

fn is_daemon_set(owner: &Object) -> bool {
    owner.kind == "DaemonSet"
}

/// The revision `owner` (a StatefulSet or a DaemonSet) controls, or the
/// one to make of its template.
#[must_use]
pub fn current(api: &ApiServer, owner: &Object) -> Revision {
    let hash_label = if is_daemon_set(owner) {
        REVISION_HASH
    } else {
        STATEFUL_SET_HASH
    };
    let controlled = api
        .graph()
        .dependents(owner.uid())
        .into_iter()
        .filter(|(_, r)| r.controller == Some(true))
        .filter_map(|(uid, _)| api.get_uid(&uid))
        .filter(|o| o.kind == "ControllerRevision" && !o.is_terminating())
        .max_by_key(|o| o.value_at(&["revision"]).and_then(Value::as_i64));
    if let Some(r) = controlled {
        let hash = r
            .metadata
            .labels
            .get(hash_label)
            .cloned()
            .unwrap_or_else(|| {
                r.name()
                    .strip_prefix(&format!("{}-", owner.name()))
                    .unwrap_or(r.name())
                    .to_string()
            });
        return Revision {
            name: r.name().to_string(),
            hash,
            create: None,
        };
    }
    let template = if owner.extra().unkept_text().is_some() {
        unkept::full_at(owner, &["spec", "template"])
    } else {
        owner.value_at(&["spec", "template"]).cloned()
    }
    .unwrap_or_else(|| json!({}));
    let hash = template_hash(Some(&template));
    // `ControllerRevisionName`: the prefix cut to 223.
    let prefix: String = owner.name().chars().take(223).collect();
    let name = format!("{prefix}-{hash}");
    let key = Key {
        group: "apps".into(),
        kind: "ControllerRevision".into(),
        namespace: owner.namespace().map(str::to_string),
        name: name.clone(),
    };
    if api.get(&key).is_some() {
        return Revision {
            name,
            hash,
            create: None,
        };
    }
    let mut labels: Map<String, Value> = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    labels.insert(hash_label.into(), json!(hash));
    let mut annotations: Map<String, Value> = owner
        .metadata
        .annotations
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    if is_daemon_set(owner) {
        annotations.insert(
            DAEMON_GENERATION.into(),
            json!(owner.metadata.generation.unwrap_or(1).to_string()),
        );
    }
    let mut data = template;
    if let Some(m) = data.as_object_mut() {
        let mut with_patch = Map::new();
        with_patch.insert("$patch".into(), json!("replace"));
        with_patch.extend(std::mem::take(m));
        *m = with_patch;
    }
    let mut metadata = json!({
        "name": name,
        "labels": labels,
        "ownerReferences": [owner.reference(Some(true), Some(true))],
    });
    if !annotations.is_empty() {
        metadata["annotations"] = Value::Object(annotations);
    }
    if let Some(ns) = owner.namespace() {
        metadata["namespace"] = json!(ns);
    }
    let create = unkept::object_of(&json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": metadata,
        "data": {"spec": {"template": data}},
        "revision": 1,
    }))
    .ok();
    Revision { name, hash, create }
}
