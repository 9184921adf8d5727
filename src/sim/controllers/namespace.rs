//! Follows upstream `pkg/controller/namespace/deletion/namespaced_resources_deleter.go`
//! and `status_condition_utils.go` (R58-R59): one pass deletes the content
//! of a Terminating namespace (pods first), writes the five conditions, and
//! removes its own `kubernetes` spec finalizer once nothing is left.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Intent, Op, intent};
use crate::model::{FOREGROUND, ORPHAN, Object, Policy};
use crate::sim::api::{ApiServer, DeleteOptions, Key, Preconditions};

/// How soon a pass that failed on discovery runs again (upstream's
/// rate-limited requeue backs off up to minutes; a steady poll here).
const DISCOVERY_RETRY_MS: u64 = 10_000;

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
    // R58.6: discovery errors are not fatal to the pass: what could be
    // discovered is deleted; but the pass fails, so the namespace is never
    // finalized while a group's discovery fails.
    let failing = api.kinds().discovery_failing();
    let discovery = if failing.is_empty() {
        condition(
            "NamespaceDeletionDiscoveryFailure",
            false,
            "ResourcesDiscovered",
            "All resources successfully discovered",
        )
    } else {
        let each: Vec<String> = failing
            .iter()
            .map(|gv| format!("{gv}: {}", crate::model::kinds::DISCOVERY_FAILED))
            .collect();
        condition(
            "NamespaceDeletionDiscoveryFailure",
            true,
            "DiscoveryFailed",
            &format!(
                "Discovery failed for some groups, {} failing: unable to retrieve the complete list of server APIs: {}",
                failing.len(),
                each.join(", ")
            ),
        )
    };
    let status_with = |content_remaining: Value, finalizers_remaining: Value| {
        let mut status = (*ns.status).clone();
        if !status.is_object() {
            status = json!({});
        }
        status["phase"] = json!("Terminating");
        status["conditions"] = json!([
            discovery.clone(),
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
    if remaining.is_empty() && !failing.is_empty() {
        // The pass failed: requeued (rate-limited upstream), not finalized.
        let status = status_with(ok_remaining, ok_finalizers);
        push_status(&mut intents, ns, status);
        return NamespacePass {
            intents,
            requeue_ms: Some(DISCOVERY_RETRY_MS),
        };
    }
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
