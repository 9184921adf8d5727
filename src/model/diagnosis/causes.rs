//! The causes of a diagnosis: what, at the bottom, keeps things from
//! moving on, in the order an on-call engineer acts on them.

use super::*;

/// R32: what a reference through an unserved apiVersion means.
#[must_use]
pub fn never_mapped(api_version: &str, owner: &str) -> String {
    format!(
        "the garbage collector cannot resolve {api_version} (its reference to {owner}) and keeps retrying; this object is never collected"
    )
}

pub(super) fn unlisted_names(p: &Partial) -> String {
    let names: Vec<&str> = p.unlisted.iter().map(|u| u.resource.as_str()).collect();
    names.join(", ")
}

fn finalizer_cause(who: &str, f: &FinalizerStatus, refused: bool) -> Option<String> {
    let name = &f.info.name;
    match f.info.origin {
        Origin::GarbageCollector => None,
        _ => Some(match f.controller_online {
            Some(false) => format!("{who} holds finalizer {name} and its controller is offline"),
            Some(true) if refused => format!(
                "{who} holds finalizer {name}; its controller is online, and its removal is refused by the webhook above"
            ),
            Some(true) => {
                format!("{who} holds finalizer {name}; its controller is online and will remove it")
            }
            None => format!("{who} holds finalizer {name}: {}", f.info.removed_by),
        }),
    }
}

/// The fix for a conversion webhook that cannot be reached (STUCK-CAUSES
/// C5), naming the CRD and the Service from the namespace controller's
/// message (`conversion webhook for GROUP/VERSION, Kind=KIND failed: Post
/// "https://SERVICE.NAMESPACE.svc:PORT/...": ...`).
fn conversion_fix(message: &str, partial: &Partial) -> String {
    let after = |marker: &str| message.find(marker).map(|i| &message[i + marker.len()..]);
    let crd = after("conversion webhook for ").and_then(|rest| {
        let (gv, rest) = rest.split_once(", Kind=")?;
        let kind = rest.split_whitespace().next()?;
        let group = gv.split_once('/').map_or(gv, |(g, _)| g);
        let plural = partial
            .unlisted
            .iter()
            .find_map(|u| {
                let (res, g) = u.resource.split_once('.')?;
                (g == group && u.kind == kind).then(|| res.to_string())
            })
            .unwrap_or_else(|| format!("{}s", kind.to_ascii_lowercase()));
        Some(format!("CustomResourceDefinition {plural}.{group}"))
    });
    let service = after("Post \"https://").and_then(|rest| {
        let host = rest.split(['/', ':', '"']).next()?;
        let (name, rest) = host.split_once('.')?;
        let namespace = rest
            .strip_suffix(".svc")
            .unwrap_or(rest)
            .split('.')
            .next()?;
        Some(format!("Service {namespace}/{name}"))
    });
    format!(
        "fix, safest first: restore {} (the conversion webhook of {}), or make the CRD serve one version with no conversion; deleting the CRD or finalizing the namespace leaves the stored objects behind",
        service
            .as_deref()
            .unwrap_or("the conversion webhook's Service (or its endpoints)"),
        crd.as_deref().unwrap_or("the CRD")
    )
}

fn blocker_causes(b: &Blocker, out: &mut Vec<String>) {
    let who = format!("{}/{}", b.object.kind, b.object.name);
    let before = out.len();
    for f in &b.finalizers {
        if let Some(c) = finalizer_cause(&who, f, false) {
            out.push(c);
        }
    }
    if let Some(s) = &b.stranded {
        out.extend(s.explanation.iter().cloned());
    } else if let Some(g) = b.grace_left {
        out.push(format!("{who} is in its grace period ({}s left)", g));
    }
    for c in &b.blocked_by {
        blocker_causes(c, out);
    }
    if out.len() == before {
        if b.other_owners.is_empty() {
            out.push(format!("{who}: {}", b.state));
        } else {
            out.push(format!(
                "{who} is also owned by {}: the garbage collector drops its reference",
                b.other_owners.join(", ")
            ));
        }
    }
}

pub(super) fn causes(d: &Diagnosis) -> Vec<String> {
    let who = format!("{}/{}", d.object.kind, d.object.name);
    let mut out = Vec::new();
    match &d.fate {
        Fate::Terminating => {}
        Fate::Root => {
            return vec![match d.ttl_deletion_at {
                Some(at) => format!(
                    "{who} has no owner, and has finished: the TTL-after-finished controller deletes it (Foreground, its pods first) at {at} (ttlSecondsAfterFinished)"
                ),
                None => match &d.namespace_terminating {
                    Some(ns) => format!(
                        "{who} has no owner, and its namespace {ns} is being deleted: the namespace controller deletes it"
                    ),
                    None => format!("{who} has no owner: it stays until someone deletes it"),
                },
            }];
        }
        Fate::Protected {
            owners,
            stuck_owners,
            ..
        } => {
            if stuck_owners.is_empty() {
                return vec![format!("{who} is kept by its owner {}", owners.join(", "))];
            }
            return vec![format!(
                "{who} is kept by its owner {}, itself stuck Terminating: an owner keeps protecting its dependents until it is gone",
                stuck_owners.join(", ")
            )];
        }
        Fate::WillBeCollected { reason } => {
            return vec![format!(
                "{who} will be deleted by the garbage collector: {reason}"
            )];
        }
        Fate::NeverCollected { reason } => {
            return vec![format!("{who} is never collected: {reason}")];
        }
        Fate::Unknown { reason } => {
            return vec![format!("cannot tell what happens to {who}: {reason}")];
        }
    }
    // STUCK-CAUSES C6: a webhook that refuses the UPDATE removing a
    // finalizer stops everything else from mattering; named first, with
    // its fix.
    for h in d.webhooks.iter().filter(|h| h.backend.is_down()) {
        out.extend(h.cause());
        out.push(h.fix());
    }
    for b in &d.blockers {
        blocker_causes(b, &mut out);
    }
    if d.blockers.is_empty()
        && d.finalizers.iter().any(|f| f.info.name == FOREGROUND)
        && d.partial.is_partial()
    {
        out.push(format!(
            "{who} waits on dependents; none is visible, but you cannot list {}, so it may be waiting on one of those",
            unlisted_names(&d.partial)
        ));
    }
    if !d.releasing.is_empty() {
        out.push(format!(
            "the garbage collector is releasing {} from {who} (orphan)",
            crate::model::wording::count(d.releasing.len(), "dependent")
        ));
    }
    if let Some(ns) = &d.namespace {
        // A pod no kubelet ends is the root of what else remains.
        out.extend(ns.stranded_pods.iter().cloned());
        for (f, objs) in &ns.remaining_by_finalizer {
            out.push(format!(
                "namespace content holds finalizer {f}: {}",
                objs.join(", ")
            ));
        }
        // R58.6: a group whose discovery fails (often an aggregated API
        // whose backend is down) keeps the namespace however empty it is.
        if let Some(c) = ns
            .conditions
            .iter()
            .find(|c| c.kind == "NamespaceDeletionDiscoveryFailure" && c.status == "True")
        {
            out.push(format!(
                "the namespace controller does not finalize {who} while discovery fails: {}",
                c.message
            ));
            // STUCK-CAUSES C4: the APIService, its Service, the fix.
            for u in d.partial.unlisted.iter().filter(|u| u.is_unavailable_api()) {
                let apiservice = match u.resource.split_once('/') {
                    Some((group, version)) => format!("{version}.{group}"),
                    None => format!("{}.", u.resource),
                };
                if !u.detail.is_empty() {
                    out.push(u.detail.clone());
                }
                out.push(format!(
                    "fix, safest first: bring back what serves APIService {apiservice} (its Service's pods and endpoints); if that API is no longer wanted, delete the APIService object: the namespace then finishes by itself. Finalizing the namespace by hand (/finalize) leaves whatever that API held behind"
                ));
            }
        }
        // The namespace controller's other failures (R59): a conversion
        // webhook that cannot be reached (STUCK-CAUSES C5), a group version
        // it cannot parse. It retries; the namespace never goes meanwhile.
        for c in ns.conditions.iter().filter(|c| {
            c.status == "True"
                && matches!(
                    c.kind.as_str(),
                    "NamespaceDeletionContentFailure"
                        | "NamespaceDeletionGroupVersionParsingFailure"
                )
        }) {
            out.push(format!(
                "the namespace controller cannot delete the content of {who}: {}",
                c.message
            ));
            if c.message.contains("conversion webhook") {
                out.push(conversion_fix(&c.message, &d.partial));
            }
        }
        if ns.remaining_by_finalizer.is_empty()
            && ns.stranded_pods.is_empty()
            && !ns.remaining.is_empty()
        {
            out.push(format!(
                "the namespace controller is still deleting {}",
                crate::model::wording::count(ns.remaining.len(), "object")
            ));
        }
    }
    for f in &d.finalizers {
        if f.info.name == PVC_PROTECTION && !d.claim_users.is_empty() {
            // STUCK-CAUSES C11: expected behaviour; the pods are the fix.
            out.push(format!(
                "{who} is still used by {}: the claim goes once no scheduled pod uses it; delete or finish those pods (and what re-creates them). Removing {PVC_PROTECTION} lets the volume go under a pod that may still mount it",
                d.claim_users.join(", ")
            ));
            continue;
        }
        // A volume's or a load balancer's finalizer: what in view holds it
        // (STUCK-CAUSES C12, C17), and the fix its controller waits for.
        if let Some(h) = d.held.iter().find(|h| h.finalizer == f.info.name) {
            out.push(format!("{who} holds finalizer {}: {}", h.finalizer, h.by));
            out.push(format!("fix, safest first: {}", h.fix));
            continue;
        }
        match d.removers.iter().find(|r| r.finalizer == f.info.name) {
            // Who should remove it, and whether it runs (STUCK-CAUSES C1).
            Some(r) => out.push(format!(
                "{who} holds finalizer {}: {}",
                f.info.name,
                r.sentence()
            )),
            None => {
                let refused = d.webhooks.iter().any(|h| h.backend.is_down());
                if let Some(c) = finalizer_cause(&who, f, refused) {
                    out.push(c);
                }
            }
        }
    }
    for h in d.webhooks.iter().filter(|h| !h.backend.is_down()) {
        out.extend(h.cause());
    }
    // What its controllers said about it (STUCK-CAUSES C2).
    if !d.events.is_empty() {
        let said: Vec<String> = d.events.iter().map(|e| e.sentence()).collect();
        out.push(format!(
            "its own Warning Events, newest first: {}",
            said.join("; ")
        ));
    }
    out.extend(d.rewrites.iter().cloned());
    if let Some(s) = &d.stranded {
        out.extend(s.explanation.iter().cloned());
    } else if let Some(g) = d.grace_left {
        out.push(format!("{who} is in its grace period ({g}s left): the kubelet deletes it when its containers stop"));
    }
    if out.is_empty() {
        if d.finalizers.iter().any(|f| f.info.name == FOREGROUND) {
            out.push("no blocking dependent is left: the garbage collector removes foregroundDeletion on its next pass".into());
        } else {
            out.push(format!("{who} is about to go"));
        }
    }
    out
}
