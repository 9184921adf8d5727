//! Simulated controllers besides the garbage collector: the built-in
//! controllers whose work shows in ownership. The workload controllers
//! (one file each, named and opening as upstream's) create, adopt, release
//! and delete (R70, R72, R73); so do namespace deletion (R58-R59), volume
//! protection (R62-R64), the CRD finalizer (R75) and the TTL-after-finished
//! controller (R71), and the CronJob controller, which starts Jobs and
//! deletes finished ones beyond its history limits. The root CA
//! publisher keeps a ConfigMap in every namespace when it is given a CA.
//!
//! Each controller reads the store (and, for the workload controllers, the
//! [`WorkloadIndex`] their informers would give them) and returns
//! [`Intent`]s; the engine carries them out through the API server under
//! the controller's name.

pub mod apiservice;
pub mod controller_ref_manager;
pub mod crd_finalizer;
pub mod cronjob;
pub mod daemon;
pub mod deployment;
pub mod endpoint;
pub mod history;
pub mod index;
pub mod job;
pub mod namespace;
pub mod podgc;
pub mod replicaset;
pub mod root_ca_cert_publisher;
pub mod stateful_set;
pub mod tokens;
pub mod ttl_after_finished;
pub mod volume_protection;

pub use crd_finalizer::sync_crd;
pub use index::WorkloadIndex;
pub use job::sync_job_tracking;
pub use namespace::{NamespacePass, sync_namespace};
pub use volume_protection::sync_volume_protection;

use serde_json::Value;

use super::api::{ApiServer, DeleteOptions, Key};
use crate::model::{Object, OwnerReference, Uid, workload};

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
    /// Sets a workload's `spec.replicas` (a Deployment scaling its current
    /// ReplicaSet).
    Scale {
        key: Key,
        uid: Uid,
        replicas: i64,
    },
    /// Replaces a ConfigMap's `data` whole, the rest of it kept (an update
    /// of the object read).
    SetData {
        key: Key,
        uid: Uid,
        data: Value,
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

/// The kube-controller-manager's controllers and the garbage collector,
/// by the names the simulator writes under (its timeline's actors, the
/// garbage collector's service account).
const CONTROLLER_MANAGER: &[&str] = &[
    "deployment-controller",
    "replicaset-controller",
    "replicationcontroller-controller",
    "statefulset-controller",
    "daemonset-controller",
    "job-controller",
    cronjob::ACTOR,
    ttl_after_finished::ACTOR,
    podgc::ACTOR,
    tokens::ACTOR,
    endpoint::ACTOR,
    "endpointslice-controller",
    "namespace-controller",
    root_ca_cert_publisher::ACTOR,
    "pvc-protection-controller",
    "pv-protection-controller",
    "persistentvolume-binder-controller",
    crate::sim::gc::GC_ACTOR,
    "system:serviceaccount:kube-system:generic-garbage-collector",
];

/// The field manager a write by `actor` records in `managedFields` on a
/// 1.20 cluster: `kube-controller-manager` for its controllers and the
/// garbage collector (one manager for all of them: kube-controller-manager
/// names its clients by program, not by controller), `kube-apiserver`
/// for the CRD finalizer (apiextensions-apiserver runs in it), `kubelet`
/// for the kubelet; `None` for a user (whose requests name their own
/// manager) and an external controller (whose name the simulator does not
/// know).
#[must_use]
pub fn field_manager(actor: &str) -> Option<&'static str> {
    match actor {
        "kubelet" => Some("kubelet"),
        "apiextensions-crd-finalizer" => Some("kube-apiserver"),
        a if CONTROLLER_MANAGER.contains(&a) => Some("kube-controller-manager"),
        _ => None,
    }
}

#[cfg(test)]
mod field_manager_tests {
    use super::*;

    #[test]
    fn every_workload_controller_writes_as_the_controller_manager() {
        for c in workload::CONTROLLERS {
            assert_eq!(
                field_manager(c.actor),
                Some("kube-controller-manager"),
                "{}",
                c.actor
            );
        }
        assert_eq!(field_manager("user"), None);
        assert_eq!(field_manager("controller of example.com/hold"), None);
        assert_eq!(field_manager("kubelet"), Some("kubelet"));
    }
}
