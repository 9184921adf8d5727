//! Shared by the preview-vs-simulator tests: plan a delete, do it in the
//! simulator, and list every disagreement.

use std::collections::BTreeMap;

use ownerscope::model::preview::{self, Outcome, Wait};
use ownerscope::model::{FOREGROUND, Object, Policy};
use ownerscope::sim::{DeleteOptions, Key, Sim};

pub const LIMIT_MS: u64 = 3_600_000;

/// Plans `DELETE target` on `base`, carries it out on a copy, settles, and
/// returns what the plan got wrong.
pub fn check(name: &str, base: &Sim, target: &Object, policy: Option<Policy>) -> Vec<String> {
    let graph = base.graph();
    let plan = preview::plan(graph, target.uid(), policy, &base.controller_map());
    let mut after = base.clone();
    let opts = policy.map_or_else(DeleteOptions::default, DeleteOptions::policy);
    after.delete_key(&Key::of(target), &opts);
    after.settle(after.now_ms() + LIMIT_MS);
    let now: BTreeMap<&str, &Object> = after.objects().map(|o| (o.uid(), o)).collect();
    let ctx = format!(
        "{name}: DELETE {}/{} policy {:?}",
        target.kind,
        target.name(),
        policy
    );
    let mut errors = Vec::new();
    for before in base.objects() {
        let uid = before.uid();
        let entry = plan.entries.iter().find(|e| e.object.uid() == uid);
        let actual = now.get(uid);
        let who = format!("{}/{}", before.kind, before.name());
        match (entry.map(|e| &e.outcome), actual) {
            (Some(Outcome::Deleted { .. }), None) => {}
            (Some(Outcome::Deleted { .. }), Some(o)) => {
                errors.push(format!(
                    "{ctx}: {who} predicted deleted, still there (finalizers {:?})",
                    o.metadata.finalizers
                ));
            }
            // Deleted, unless a dependent of a kind that could not be
            // listed blocks it: either is right.
            (Some(Outcome::Unsure { .. }), None) => {}
            (Some(Outcome::Unsure { .. }), Some(o)) => {
                if !o.has_finalizer(FOREGROUND) {
                    errors.push(format!(
                        "{ctx}: {who} predicted deleted unless blocked, still there without foregroundDeletion: {:?}",
                        o.metadata.finalizers
                    ));
                }
            }
            (Some(other), None) => errors.push(format!(
                "{ctx}: {who} predicted {other:?}, but it was deleted"
            )),
            (Some(Outcome::Waiting { on }), Some(o)) => {
                if !o.is_terminating() {
                    errors.push(format!(
                        "{ctx}: {who} predicted waiting, but it is not terminating"
                    ));
                }
                for w in on {
                    match w {
                        // A namespace's own finalizers live in spec.finalizers.
                        Wait::Finalizer { name, .. }
                            if !o.has_finalizer(name)
                                && !o.strings_at(&["spec", "finalizers"]).contains(name) =>
                        {
                            errors.push(format!(
                                "{ctx}: {who} predicted waiting on {name}, has {:?}",
                                o.metadata.finalizers
                            ));
                        }
                        Wait::BlockingDependents { .. } if !o.has_finalizer(FOREGROUND) => {
                            errors.push(format!(
                                "{ctx}: {who} predicted waiting on dependents, has {:?}",
                                o.metadata.finalizers
                            ));
                        }
                        _ => {}
                    }
                }
            }
            (Some(Outcome::Orphaned { .. } | Outcome::KeptByOtherOwner { .. }), Some(o)) => {
                if o.is_terminating() {
                    errors.push(format!(
                        "{ctx}: {who} predicted kept, but it is terminating"
                    ));
                }
                if o.metadata.owner_references.len() >= before.metadata.owner_references.len() {
                    errors.push(format!(
                        "{ctx}: {who} predicted to lose an owner reference, kept them all"
                    ));
                }
            }
            (Some(Outcome::Adopted { by, .. }), Some(o)) => {
                // Kept, and now controlled by a new object of the same
                // kind and name as the one it was orphaned from.
                let new_owner = o
                    .metadata
                    .owner_references
                    .iter()
                    .find(|r| r.is_controller())
                    .filter(|r| {
                        before
                            .metadata
                            .owner_references
                            .iter()
                            .all(|b| b.uid != r.uid)
                    })
                    .filter(|r| by.starts_with(&format!("{}/{} ", r.kind, r.name)));
                if o.is_terminating() || new_owner.is_none() {
                    errors.push(format!(
                        "{ctx}: {who} predicted adopted by {by}, has {:?} (terminating {})",
                        o.metadata.owner_references,
                        o.is_terminating()
                    ));
                }
            }
            // Untouched while its owner waits on its own finalizer.
            (Some(Outcome::Parked { .. }), Some(o)) => {
                let same = !o.is_terminating()
                    && o.metadata.owner_references == before.metadata.owner_references;
                if !same {
                    errors.push(format!(
                        "{ctx}: {who} predicted untouched behind its Terminating owner, but it changed: {:?}",
                        o.metadata
                    ));
                }
            }
            (Some(Outcome::NeverCollected { .. }), Some(o)) => {
                if o.is_terminating() {
                    errors.push(format!(
                        "{ctx}: {who} predicted never collected, but it is terminating"
                    ));
                }
            }
            (None, None) => {
                errors.push(format!("{ctx}: {who} not in the plan, but it was deleted"))
            }
            (None, Some(o)) => {
                let same = o.is_terminating() == before.is_terminating()
                    && o.metadata.owner_references == before.metadata.owner_references;
                if !same {
                    errors.push(format!(
                        "{ctx}: {who} not in the plan, but it changed: {:?}",
                        o.metadata
                    ));
                }
            }
        }
        // What the plan says a controller does afterwards.
        if let Some(then) = entry.and_then(|e| e.then.as_deref()) {
            let new_ones: Vec<&Object> = after
                .objects()
                .filter(|o| base.objects().all(|b| b.uid() != o.uid()))
                .collect();
            let same_name = new_ones.iter().any(|o| {
                o.kind == before.kind
                    && o.namespace() == before.namespace()
                    && o.name() == before.name()
            });
            let ok = if then.starts_with("re-created") {
                same_name
            } else if then.starts_with("replaced") {
                new_ones.iter().any(|o| o.kind == before.kind)
            } else {
                // A controller's DELETE: gone, or Terminating on a finalizer.
                now.get(uid).is_none_or(|o| o.is_terminating())
            };
            if !ok {
                errors.push(format!(
                    "{ctx}: {who} predicted {then:?}, new objects: {:?}",
                    new_ones
                        .iter()
                        .map(|o| format!("{}/{}", o.kind, o.name()))
                        .collect::<Vec<_>>()
                ));
            }
        }
    }
    errors.extend(parked_then(&ctx, &plan, &after));
    errors
}

/// What waits behind an owner left Terminating is deleted by the garbage
/// collector once that owner (and any owner between) goes: remove the
/// finalizers of what is Terminating by hand, settle, again until nothing
/// changes, and check (when no other owner keeps it).
fn parked_then(ctx: &str, plan: &preview::Plan, after: &Sim) -> Vec<String> {
    let parked: Vec<(&str, &str, bool)> = plan
        .entries
        .iter()
        .filter_map(|e| match &e.outcome {
            Outcome::Parked {
                behind,
                other_owners,
                ..
            } => Some((e.object.uid(), behind.as_str(), other_owners.is_empty())),
            _ => None,
        })
        .collect();
    if parked.is_empty() {
        return Vec::new();
    }
    let mut released = after.clone();
    // A webhook that refuses the removals is lifted first, as a user
    // would (STUCK-CAUSES C6).
    let configs: Vec<Object> = released
        .objects()
        .filter(|o| ownerscope::model::webhooks::is_configuration(o))
        .cloned()
        .collect();
    for c in &configs {
        released.delete_key(&Key::of(c), &DeleteOptions::default());
    }
    for _ in 0..20 {
        let stuck: Vec<Object> = released
            .objects()
            .filter(|o| o.is_terminating() && !o.metadata.finalizers.is_empty())
            .cloned()
            .collect();
        if stuck.is_empty() {
            break;
        }
        for o in &stuck {
            for f in &o.metadata.finalizers {
                released.remove_finalizer_key(&Key::of(o), Some(o.uid()), f);
            }
        }
        released.settle(released.now_ms() + LIMIT_MS);
    }
    parked
        .iter()
        .filter(|(uid, _, collected)| *collected && released.objects().any(|o| o.uid() == *uid))
        .map(|(uid, behind, _)| {
            format!(
                "{ctx}: {uid} predicted deleted once {behind} is gone, still there after it went"
            )
        })
        .collect()
}
