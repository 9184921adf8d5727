//! Follows upstream `pkg/controller/controller_ref_manager.go`
//! (`ClaimObject`, `ClaimPods`, `ClaimReplicaSets`): a workload claims the
//! objects its selector matches. It keeps those it controls and still
//! matches, releases those it controls that stopped matching, and adopts
//! matching orphans (R72) - neither while it is itself Terminating. An
//! owner without a selector (a metadata-only snapshot or scenario) neither
//! releases nor adopts.

use crate::model::Object;
use crate::model::workload::Controller;

use super::index::WorkloadIndex;
use super::{Intent, JOB_TRACKING, Op, intent};
use crate::sim::api::{ApiServer, Key};

/// What a claim found and what it asks for.
pub struct Claimed<'a> {
    /// Controlled by the owner once the claim's patches are done.
    pub children: Vec<&'a Object>,
    pub intents: Vec<Intent>,
}

/// Claims the owner's children of the controller's child kind.
#[must_use]
pub fn claim<'a>(
    api: &'a ApiServer,
    index: &WorkloadIndex,
    owner: &Object,
    c: &Controller,
) -> Claimed<'a> {
    // The owner's selector as the index parsed it at its last change
    // (the owner synced is the stored one, which the index has seen),
    // not read again from its spec at each sync.
    let sel = index.selector(owner.uid());
    let mut out = Claimed {
        children: Vec::new(),
        intents: Vec::new(),
    };
    let ns = owner.namespace().unwrap_or_default();
    for uid in index.controlled(owner.uid()) {
        let Some(child) = api.get_uid(uid) else {
            continue;
        };
        if child.group() != c.child_group || child.kind != c.child_kind {
            continue;
        }
        // A selector the object does not carry (metadata only) says
        // nothing: what it controls stays controlled.
        if sel.is_nothing() || sel.matches(&child.metadata.labels) {
            out.children.push(child);
        } else if !owner.is_terminating() {
            out.intents.push(intent(
                c.actor,
                Op::Release {
                    key: Key::of(child),
                    uid: child.uid().to_string(),
                    owner_uid: owner.uid().to_string(),
                },
            ));
        }
    }
    if owner.is_terminating() || sel.is_nothing() || sel.is_everything() {
        return out;
    }
    for uid in index.orphans(ns, c.child_group, c.child_kind) {
        let Some(child) = api.get_uid(uid) else {
            continue;
        };
        if child.is_terminating() || !sel.matches(&child.metadata.labels) {
            continue;
        }
        out.intents.push(intent(
            c.actor,
            Op::Adopt {
                key: Key::of(child),
                uid: child.uid().to_string(),
                owner: owner.reference(Some(true), Some(true)),
                finalizer: (c.kind == "Job").then(|| JOB_TRACKING.to_string()),
            },
        ));
        out.children.push(child);
    }
    out
}
