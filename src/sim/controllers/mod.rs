//! Simulated controllers besides the garbage collector: the built-in
//! controllers whose work shows in ownership. The workload controllers
//! (one file each, named and opening as upstream's) create, adopt, release
//! and delete (R70, R72, R73); namespace deletion (R58-R59), volume
//! protection (R62-R64) and the CRD finalizer (R75) are here.
//!
//! Each controller reads the store (and, for the workload controllers, the
//! [`WorkloadIndex`] their informers would give them) and returns
//! [`Intent`]s; the engine carries them out through the API server under
//! the controller's name.

pub mod controller_ref_manager;
pub mod daemon;
pub mod deployment;
pub mod endpoint;
pub mod index;
pub mod job;
pub mod replicaset;
pub mod stateful_set;

use std::collections::BTreeMap;

pub use index::WorkloadIndex;
pub use job::sync_job_tracking;

use serde_json::{Value, json};

use super::api::{ApiServer, DeleteOptions, Key, Preconditions};
use crate::model::{FOREGROUND, ORPHAN, Object, OwnerReference, Policy, Uid, workload};

pub const JOB_TRACKING: &str = "batch.kubernetes.io/job-tracking";
pub const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
pub const PV_PROTECTION: &str = "kubernetes.io/pv-protection";

/// A request a controller wants sent.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    RemoveFinalizer {
        key: Key,
        uid: Uid,
        finalizer: String,
    },
    Adopt {
        key: Key,
        uid: Uid,
        owner: OwnerReference,
        finalizer: Option<String>,
    },
    Delete {
        key: Key,
        options: DeleteOptions,
    },
    SetStatus {
        key: Key,
        status: Value,
    },
    FinalizeNamespace {
        name: String,
    },
    /// POST; with `generate_name`, the name is that prefix and five random
    /// characters from the simulator's seed (the API server's
    /// `generateName`).
    Create {
        object: Box<Object>,
        generate_name: Option<String>,
    },
    /// Patches out the owner's reference (a child that stopped matching).
    Release {
        key: Key,
        uid: Uid,
        owner_uid: Uid,
    },
}

/// An [`Op`] and who sends it.
#[derive(Clone, Debug, PartialEq)]
pub struct Intent {
    pub actor: String,
    pub op: Op,
}

pub(crate) fn intent(actor: &str, op: Op) -> Intent {
    Intent {
        actor: actor.to_string(),
        op,
    }
}

pub(crate) fn remove_finalizer(o: &Object, f: &str) -> Op {
    Op::RemoveFinalizer {
        key: Key::of(o),
        uid: o.uid().to_string(),
        finalizer: f.to_string(),
    }
}

/// One sync of the workload `owner` (its controller chosen by its kind).
#[must_use]
pub fn sync_workload(api: &ApiServer, index: &WorkloadIndex, owner: &Object) -> Vec<Intent> {
    let Some(c) = workload::controller_of_kind(owner.group(), &owner.kind) else {
        return Vec::new();
    };
    match c.kind {
        "Deployment" => deployment::sync(api, index, owner, c),
        "StatefulSet" => stateful_set::sync(api, index, owner, c),
        "DaemonSet" => daemon::sync(api, index, owner, c),
        "Job" => job::sync(api, index, owner, c),
        _ => replicaset::sync(api, index, owner, c),
    }
}

/// R62-R64: the PVC and PV protection controllers, and the PV controller
/// releasing a volume whose claim is gone.
#[must_use]
pub fn sync_volume_protection(api: &ApiServer) -> Vec<Intent> {
    let mut out = Vec::new();
    for pvc in api.objects().filter(|o| {
        o.kind == "PersistentVolumeClaim"
            && o.group().is_empty()
            && o.is_terminating()
            && o.has_finalizer(PVC_PROTECTION)
    }) {
        if !pvc_in_use(api, pvc) {
            out.push(intent(
                "pvc-protection-controller",
                remove_finalizer(pvc, PVC_PROTECTION),
            ));
        }
    }
    for pv in api
        .objects()
        .filter(|o| o.kind == "PersistentVolume" && o.group().is_empty())
    {
        let phase = pv.str_at(&["status", "phase"]).unwrap_or_default();
        if phase == "Bound" {
            let claim_ns = pv.str_at(&["spec", "claimRef", "namespace"]);
            let claim_name = pv.str_at(&["spec", "claimRef", "name"]);
            if let (Some(ns), Some(name)) = (claim_ns, claim_name) {
                let key = Key {
                    group: String::new(),
                    kind: "PersistentVolumeClaim".into(),
                    namespace: Some(ns.to_string()),
                    name: name.to_string(),
                };
                if api.get(&key).is_none() {
                    let mut status = pv.status.clone();
                    if !status.is_object() {
                        status = json!({});
                    }
                    status["phase"] = json!("Released");
                    out.push(intent(
                        "persistentvolume-binder-controller",
                        Op::SetStatus {
                            key: Key::of(pv),
                            status,
                        },
                    ));
                }
            }
        } else if phase == "Released"
            && !pv.is_terminating()
            && pv.str_at(&["spec", "persistentVolumeReclaimPolicy"]) == Some("Delete")
        {
            // The PV controller reclaims a Released volume whose policy is
            // Delete: it deletes the PersistentVolume (observed within
            // 0.1 s); Retain keeps it Released.
            out.push(intent(
                "persistentvolume-binder-controller",
                Op::Delete {
                    key: Key::of(pv),
                    options: DeleteOptions::policy(Policy::Background),
                },
            ));
        } else if pv.is_terminating() && pv.has_finalizer(PV_PROTECTION) {
            out.push(intent(
                "pv-protection-controller",
                remove_finalizer(pv, PV_PROTECTION),
            ));
        }
    }
    out
}

/// R63.
fn pvc_in_use(api: &ApiServer, pvc: &Object) -> bool {
    api.objects()
        .any(|pod| pod.namespace() == pvc.namespace() && pod.holds_claim(pvc.name()))
}

/// The outcome of one namespace controller pass.
#[derive(Clone, Debug, PartialEq)]
pub struct NamespacePass {
    pub intents: Vec<Intent>,
    /// Run again after this many milliseconds (None: done).
    pub requeue_ms: Option<u64>,
}

fn condition(kind: &str, status: bool, reason: &str, message: &str) -> Value {
    json!({"type": kind, "status": if status { "True" } else { "False" }, "reason": reason, "message": message})
}

/// R59: the status is written only when it changed.
fn push_status(intents: &mut Vec<Intent>, ns: &Object, status: Value) {
    if status != ns.status {
        intents.push(intent(
            "namespace-controller",
            Op::SetStatus {
                key: Key::of(ns),
                status,
            },
        ));
    }
}

/// R58-R59: one pass of the namespace controller over `ns`.
#[must_use]
pub fn sync_namespace(api: &ApiServer, ns: &Object, now_ms_since_deletion: u64) -> NamespacePass {
    const ACTOR: &str = "namespace-controller";
    let spec_finalizers = ns.strings_at(&["spec", "finalizers"]);
    if !ns.is_terminating() || !spec_finalizers.iter().any(|f| f == "kubernetes") {
        return NamespacePass {
            intents: Vec::new(),
            requeue_ms: None,
        };
    }
    let name = ns.name();
    // Everything in the namespace, Events (core and events.k8s.io)
    // included: they are content, deleted with the rest.
    let content: Vec<&Object> = api
        .objects()
        .filter(|o| o.namespace() == Some(name))
        .collect();
    // The controller deletes every object it lists, Terminating ones too,
    // with Background: that drops foregroundDeletion and orphan (R17), so an
    // owner waiting in foreground goes at once while its held dependent
    // stays. On any other Terminating object the DELETE changes nothing
    // (R17/R18), so it is not sent.
    let needs_delete = |o: &Object| {
        !o.is_terminating()
            || o.metadata
                .finalizers
                .iter()
                .any(|f| f == FOREGROUND || f == ORPHAN)
    };
    // What holds an object once this pass's deletes are done.
    let holding = |o: &Object| -> Vec<String> {
        o.metadata
            .finalizers
            .iter()
            .filter(|f| *f != FOREGROUND && *f != ORPHAN)
            .cloned()
            .collect()
    };
    let mut intents = Vec::new();
    let bg = DeleteOptions::policy(Policy::Background);
    let delete = |o: &Object| {
        intent(
            ACTOR,
            Op::Delete {
                key: Key::of(o),
                options: DeleteOptions {
                    preconditions: Preconditions::default(),
                    ..bg.clone()
                },
            },
        )
    };
    let pods: Vec<&&Object> = content
        .iter()
        .filter(|o| o.kind == "Pod" && o.group().is_empty())
        .collect();
    let status_with = |content_remaining: Value, finalizers_remaining: Value| {
        let mut status = ns.status.clone();
        if !status.is_object() {
            status = json!({});
        }
        status["phase"] = json!("Terminating");
        status["conditions"] = json!([
            condition(
                "NamespaceDeletionDiscoveryFailure",
                false,
                "ResourcesDiscovered",
                "All resources successfully discovered"
            ),
            condition(
                "NamespaceDeletionGroupVersionParsingFailure",
                false,
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed"
            ),
            condition(
                "NamespaceDeletionContentFailure",
                false,
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization"
            ),
            content_remaining,
            finalizers_remaining,
        ]);
        status
    };
    let ok_remaining = condition(
        "NamespaceContentRemaining",
        false,
        "ContentRemoved",
        "All content successfully removed",
    );
    let ok_finalizers = condition(
        "NamespaceFinalizersRemaining",
        false,
        "ContentHasNoFinalizers",
        "All content-preserving finalizers finished",
    );
    if !pods.is_empty() {
        for p in pods.iter().filter(|p| needs_delete(p)) {
            intents.push(delete(p));
        }
        // R58.3: pods remain; stop here (⚠ conditions written as False).
        let status = status_with(ok_remaining, ok_finalizers);
        push_status(&mut intents, ns, status);
        let grace = pods
            .iter()
            .filter(|p| !matches!(p.str_at(&["status", "phase"]), Some("Succeeded" | "Failed")))
            .map(|p| {
                p.value_at(&["spec", "terminationGracePeriodSeconds"])
                    .and_then(Value::as_u64)
                    .unwrap_or(30)
            })
            .max()
            .unwrap_or(0);
        let estimate_ms = (grace * 1000).saturating_sub(now_ms_since_deletion);
        return NamespacePass {
            intents,
            requeue_ms: Some(estimate_ms / 2 + 1000),
        };
    }
    for o in content.iter().filter(|o| needs_delete(o)) {
        intents.push(delete(o));
    }
    // What will remain after this pass: objects holding finalizers other
    // than the garbage collector's (those the Background DELETE drops).
    let remaining: Vec<&&Object> = content.iter().filter(|o| !holding(o).is_empty()).collect();
    if remaining.is_empty() {
        let status = status_with(ok_remaining, ok_finalizers);
        push_status(&mut intents, ns, status);
        intents.push(intent(
            ACTOR,
            Op::FinalizeNamespace {
                name: name.to_string(),
            },
        ));
        return NamespacePass {
            intents,
            requeue_ms: None,
        };
    }
    let kinds = api.kinds();
    let mut by_resource: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_finalizer: BTreeMap<String, usize> = BTreeMap::new();
    for o in &remaining {
        let res = kinds.get(o.group(), &o.kind).map_or_else(
            || format!("{}s.{}", o.kind.to_ascii_lowercase(), o.group()),
            |k| format!("{}.{}", k.plural, k.group),
        );
        *by_resource.entry(res).or_default() += 1;
        for f in holding(o) {
            *by_finalizer.entry(f).or_default() += 1;
        }
    }
    let res_msg: Vec<String> = by_resource
        .iter()
        .map(|(r, n)| format!("{r} has {n} resource instances"))
        .collect();
    let fin_msg: Vec<String> = by_finalizer
        .iter()
        .map(|(f, n)| format!("{f} in {n} resource instances"))
        .collect();
    let status = status_with(
        condition(
            "NamespaceContentRemaining",
            true,
            "SomeResourcesRemain",
            &format!("Some resources are remaining: {}", res_msg.join(", ")),
        ),
        condition(
            "NamespaceFinalizersRemaining",
            true,
            "SomeFinalizersRemain",
            &format!(
                "Some content in the namespace has finalizers remaining: {}",
                fin_msg.join(", ")
            ),
        ),
    );
    push_status(&mut intents, ns, status);
    NamespacePass {
        intents,
        requeue_ms: Some(15_000 / 2 + 1000),
    }
}

/// R75: one pass of the CRD finalizer controller (apiextensions'
/// `crd_finalizer.go`) over a Terminating CRD: it marks
/// InstanceDeletionInProgress, deletes every instance (Background), and once
/// none is left marks InstanceDeletionCompleted and removes its finalizer.
/// Returns the requests and whether to look again (instances remain).
#[must_use]
pub fn sync_crd(api: &ApiServer, crd: &Object) -> (Vec<Intent>, bool) {
    const ACTOR: &str = "apiextensions-crd-finalizer";
    if !crd.is_terminating() || !crd.has_finalizer(super::api::CRD_CLEANUP) {
        return (Vec::new(), false);
    }
    let group = crd.str_at(&["spec", "group"]).unwrap_or_default();
    let kind = crd.str_at(&["spec", "names", "kind"]).unwrap_or_default();
    let instances: Vec<&Object> = api
        .objects()
        .filter(|o| o.group() == group && o.kind == kind)
        .collect();
    let mut intents = Vec::new();
    let (reason, message) = if instances.is_empty() {
        (
            "InstanceDeletionCompleted",
            "removed all instances".to_string(),
        )
    } else {
        (
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress".to_string(),
        )
    };
    let status = super::api::crd_terminating(&crd.status, reason, &message);
    if status != crd.status {
        intents.push(intent(
            ACTOR,
            Op::SetStatus {
                key: Key::of(crd),
                status,
            },
        ));
    }
    if instances.is_empty() {
        intents.push(intent(
            ACTOR,
            remove_finalizer(crd, super::api::CRD_CLEANUP),
        ));
        return (intents, false);
    }
    for o in instances.iter().filter(|o| !o.is_terminating()) {
        intents.push(intent(
            ACTOR,
            Op::Delete {
                key: Key::of(o),
                options: DeleteOptions::policy(Policy::Background),
            },
        ));
    }
    (intents, true)
}
