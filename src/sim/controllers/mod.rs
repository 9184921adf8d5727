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
