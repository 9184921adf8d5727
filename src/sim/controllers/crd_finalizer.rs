//! Follows apiextensions-apiserver `pkg/controller/finalizer/crd_finalizer.go`
//! (R75): a Terminating CRD's instances are deleted, then its cleanup
//! finalizer removed.

use super::{Intent, Op, intent, remove_finalizer};
use crate::model::{Object, Policy};
use crate::sim::api::{ApiServer, DeleteOptions, Key};

/// R75: one pass of the CRD finalizer controller (apiextensions'
/// `crd_finalizer.go`) over a Terminating CRD: it marks
/// InstanceDeletionInProgress, deletes every instance (Background), and once
/// none is left marks InstanceDeletionCompleted and removes its finalizer.
/// Returns the requests and whether to look again (instances remain).
#[must_use]
pub fn sync_crd(api: &ApiServer, crd: &Object) -> (Vec<Intent>, bool) {
    const ACTOR: &str = "apiextensions-crd-finalizer";
    if !crd.is_terminating() || !crd.has_finalizer(crate::sim::api::CRD_CLEANUP) {
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
    let status = crate::sim::api::crd_terminating(&crd.status, reason, &message);
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
            remove_finalizer(crd, crate::sim::api::CRD_CLEANUP),
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
