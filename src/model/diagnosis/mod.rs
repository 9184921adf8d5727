//! "Why is this still here?": a structured answer for one object, rendered
//! by the UI, the CLI and the JSON output alike.
//!
//! For a Terminating object: since when, each finalizer with its meaning and
//! who removes it (and, in the simulator, whether that controller is
//! online), the dependents a foreground deletion waits on (recursively down
//! to what holds each of them), the dependents an orphan deletion is
//! releasing, a pod's grace period, a namespace's conditions and remaining
//! content grouped by finalizer. For a live object: whether the garbage
//! collector will collect it, never can, or is kept from it by an owner.

use std::collections::{BTreeMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;

use super::badges::human_duration;
use super::finalizers::{self, FinalizerInfo, Origin};
use super::graph::{OwnershipGraph, RefStatus};
use super::kinds::Partial;
use super::nodes::{self, NodeHealth};
use super::object::{FOREGROUND, ORPHAN, ObjRef, Object, OwnerReference};

use super::blockers::{BlockerCounts, LIST_LIMIT, MAX_DEPTH, NODE_BUDGET, Scan};

mod causes;
mod evidence;
mod text;

pub use causes::never_mapped;
use causes::{causes, unlisted_names};

/// One finalizer still on the object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalizerStatus {
    pub info: FinalizerInfo,
    /// The simulated controller's state: `Some(false)` offline, `Some(true)`
    /// online, `None` unknown.
    pub controller_online: Option<bool>,
}

/// A dependent a foreground deletion waits on, and what holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocker {
    pub object: ObjRef,
    /// `Terminating 11s`, `not deleted yet`, ...
    pub state: String,
    pub finalizers: Vec<FinalizerStatus>,
    /// Seconds left in a pod's grace period (none when no kubelet will end
    /// it: see `stranded`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_left: Option<i64>,
    /// A pod whose node will never end its deletion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stranded: Option<Stranded>,
    /// Other owners that keep it (the GC will drop the reference instead of
    /// deleting it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_owners: Vec<String>,
    /// What it waits on itself, when it is deleting its own dependents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<Blocker>,
    /// Its blocking dependents not listed in `blocked_by` (beyond the
    /// listing limits), counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A Terminating pod no kubelet will finish (R76, R77, STUCK-CAUSES C8):
/// its node, and what to do, safest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stranded {
    pub node: NodeHealth,
    /// The cause, then the fixes in order, then what a force delete risks.
    pub explanation: Vec<String>,
}

fn stranded(graph: &OwnershipGraph, obj: &Object, now: Timestamp) -> Option<Stranded> {
    let node = nodes::stranded(graph, obj)?;
    let lease = node.node().and_then(|n| nodes::lease_renewed(graph, n));
    let explanation = nodes::explain(&name_of(obj), &node, now, lease);
    Some(Stranded { node, explanation })
}

/// One namespace condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    pub kind: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// A Terminating namespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceStatus {
    pub phase: String,
    pub spec_finalizers: Vec<String>,
    pub conditions: Vec<Condition>,
    /// Objects still in the namespace.
    pub remaining: Vec<String>,
    /// finalizer -> objects in the namespace holding it
    pub remaining_by_finalizer: BTreeMap<String, Vec<String>>,
    /// Pods in the namespace that no kubelet will finish, each with its
    /// node's state.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stranded_pods: Vec<String>,
}

/// Where a live object stands with the garbage collector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "fate", rename_all = "camelCase")]
pub enum Fate {
    /// No owner references: it stays until someone deletes it.
    Root,
    /// Kept alive by owners that exist (R33, R49, R50).
    Protected {
        owners: Vec<String>,
        /// Owners that are themselves Terminating without
        /// `foregroundDeletion`: they still protect it until they are gone.
        stuck_owners: Vec<String>,
        /// References the GC will remove (dangling or to foreground owners).
        dropped: Vec<String>,
    },
    /// Every owner is gone, or the only owners wait for their dependents:
    /// the garbage collector will delete it.
    WillBeCollected { reason: String },
    /// The garbage collector can never decide about it.
    NeverCollected { reason: String },
    /// What the garbage collector will do cannot be told from here: an
    /// owner is of a kind that could not be listed.
    Unknown { reason: String },
    /// Already being deleted: see the finalizers.
    Terminating,
}

/// An owner reference and where it points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerView {
    pub reference: OwnerReference,
    pub status: RefStatus,
    /// `live`, `Terminating (waits for dependents)`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_state: Option<String>,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub object: ObjRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminating_since: Option<Timestamp>,
    /// Seconds since the deletionTimestamp (negative while a pod's grace
    /// period runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminating_seconds: Option<i64>,
    pub finalizers: Vec<FinalizerStatus>,
    /// `foregroundDeletion`: the dependents it waits on (the most telling
    /// ones: see [`super::blockers`]).
    pub blockers: Vec<Blocker>,
    /// Blocking dependents not listed in `blockers`, counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_blockers: usize,
    /// Everything the foreground deletion waits on, down the whole tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_on: Option<BlockerCounts>,
    /// `orphan`: the dependents still referring to it, being released.
    pub releasing: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_left: Option<i64>,
    /// A pod whose node will never end its deletion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stranded: Option<Stranded>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<NamespaceStatus>,
    /// Foreground deletions this object holds up (as a blocking
    /// dependent).
    pub blocks: Vec<String>,
    pub owners: Vec<OwnerView>,
    pub fate: Fate,
    /// A finished Job with `ttlSecondsAfterFinished`: when the
    /// TTL-after-finished controller deletes it (R71).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_deletion_at: Option<Timestamp>,
    /// Its namespace, when that namespace is being deleted: the namespace
    /// controller deletes what is in it (R58), owner or none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_terminating: Option<String>,
    /// A claim held by `kubernetes.io/pvc-protection`: the pods that use
    /// it, each with its state (STUCK-CAUSES C11).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claim_users: Vec<String>,
    /// Who removes each third-party finalizer, and whether it runs (live
    /// views and files; the simulator says it through `controller_online`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removers: Vec<super::remover::Remover>,
    /// Finalizers written again after the deletion started (STUCK-CAUSES
    /// C23), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rewrites: Vec<String>,
    /// Admission webhooks called for the UPDATE that would remove a
    /// finalizer, failing closed (STUCK-CAUSES C6).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub webhooks: Vec<super::webhooks::Holding>,
    /// Finalizers of the storage and cloud controllers, each with what in
    /// view holds it and its fix (STUCK-CAUSES C12, C17).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<super::finalizers::Held>,
    /// The object's own Warning Events, newest first (STUCK-CAUSES C2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<super::events::Quoted>,
    /// Evidence that could not be read, and why (a live source's
    /// `managedFields` or Events, forbidden or unanswered).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// What, at the bottom, keeps things from moving on.
    pub causes: Vec<String>,
    /// What could not be seen (kinds that could not be listed).
    pub partial: Partial,
}

fn name_of(o: &Object) -> String {
    format!("{}/{}", o.kind, o.name())
}

fn finalizer_statuses(obj: &Object, controllers: &BTreeMap<String, bool>) -> Vec<FinalizerStatus> {
    obj.metadata
        .finalizers
        .iter()
        .map(|f| FinalizerStatus {
            info: finalizers::describe(f),
            controller_online: controllers.get(f).copied(),
        })
        .collect()
}

fn grace_left(obj: &Object, now: Timestamp) -> Option<i64> {
    let grace = obj.metadata.deletion_grace_period_seconds.unwrap_or(0);
    let ts = obj.metadata.deletion_timestamp?;
    (grace > 0).then(|| ts.duration_since(now).as_secs().max(0))
}

/// Diagnoses one object. `controllers` maps a finalizer to whether its
/// (simulated) controller is online; empty for a live cluster.
#[must_use]
pub fn diagnose(
    graph: &OwnershipGraph,
    uid: &str,
    now: Timestamp,
    controllers: &BTreeMap<String, bool>,
) -> Diagnosis {
    let Some(obj) = graph.get(uid) else {
        return Diagnosis {
            object: ObjRef {
                uid: uid.to_string(),
                ..ObjRef::default()
            },
            terminating_since: None,
            terminating_seconds: None,
            finalizers: Vec::new(),
            blockers: Vec::new(),
            more_blockers: 0,
            waiting_on: None,
            releasing: Vec::new(),
            grace_left: None,
            stranded: None,
            namespace: None,
            blocks: Vec::new(),
            owners: Vec::new(),
            fate: Fate::WillBeCollected {
                reason: "it is gone".into(),
            },
            ttl_deletion_at: None,
            namespace_terminating: None,
            claim_users: Vec::new(),
            removers: Vec::new(),
            rewrites: Vec::new(),
            webhooks: Vec::new(),
            held: Vec::new(),
            events: Vec::new(),
            unread: Vec::new(),
            causes: vec!["the object no longer exists".into()],
            partial: Partial::of(graph.kinds()),
        };
    };
    let owners = owner_views(graph, obj);
    let mut d = Diagnosis {
        object: obj.obj_ref(),
        terminating_since: obj.metadata.deletion_timestamp,
        terminating_seconds: obj
            .metadata
            .deletion_timestamp
            .map(|t| now.duration_since(t).as_secs()),
        finalizers: finalizer_statuses(obj, controllers),
        blockers: Vec::new(),
        more_blockers: 0,
        waiting_on: None,
        releasing: Vec::new(),
        grace_left: grace_left(obj, now),
        stranded: stranded(graph, obj, now),
        namespace: None,
        blocks: blocks(graph, obj),
        fate: Fate::Terminating,
        owners,
        ttl_deletion_at: super::workload::job_ttl_expires_at(obj),
        namespace_terminating: obj
            .namespace()
            .filter(|ns| {
                graph
                    .find("", "Namespace", None, ns)
                    .is_some_and(|n| n.is_terminating())
            })
            .map(str::to_string),
        claim_users: Vec::new(),
        removers: Vec::new(),
        rewrites: Vec::new(),
        webhooks: Vec::new(),
        held: Vec::new(),
        events: super::events::warnings(graph, uid, now),
        unread: Vec::new(),
        causes: Vec::new(),
        partial: Partial::of(graph.kinds()),
    };
    if obj.is_terminating() {
        if obj.has_finalizer(FOREGROUND) {
            let mut walk = Walk {
                scan: Scan::new(graph, controllers),
                graph,
                now,
                controllers,
                budget: NODE_BUDGET,
                path: HashSet::from([obj.uid()]),
            };
            let mut counts = BlockerCounts::default();
            (d.blockers, d.more_blockers) = walk.blockers(obj, 0, Some(&mut counts));
            d.waiting_on = Some(counts);
        }
        if obj.has_finalizer(ORPHAN) {
            let mut names: Vec<String> = graph.referrer_objects(uid).map(name_of).collect();
            names.sort();
            d.releasing = names;
        }
        if obj.kind == "Namespace" && obj.group().is_empty() {
            d.namespace = Some(namespace_status(graph, obj, now));
        }
        if d.stranded.is_some() {
            d.grace_left = None;
        }
        if obj.kind == "PersistentVolumeClaim"
            && obj.group().is_empty()
            && obj.has_finalizer(PVC_PROTECTION)
        {
            d.claim_users = claim_users(graph, obj, now);
        }
        d.webhooks = super::webhooks::holding(graph, obj, &BTreeMap::new(), false);
        d.held = super::volumes::held(graph, obj, now, |c, now| claim_users(graph, c, now));
    } else {
        d.fate = fate(graph, obj);
    }
    d.causes = causes(&d);
    d
}

const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// The pods that keep `claim` in use (R63: scheduled, in any phase,
/// finished ones included), each with its state.
fn claim_users(graph: &OwnershipGraph, claim: &Object, now: Timestamp) -> Vec<String> {
    let mut pods: Vec<&Object> = graph
        .objects()
        .filter(|p| p.is_pod() && p.namespace() == claim.namespace())
        .filter(|p| p.holds_claim(claim.name()))
        .collect();
    pods.sort_by_key(|p| p.name().to_string());
    pods.into_iter()
        .map(|p| {
            let node = p.str_at(&["spec", "nodeName"]).unwrap_or_default();
            let phase = p.str_at(&["status", "phase"]).unwrap_or("Pending");
            let state = match stranded(graph, p, now) {
                Some(_) => format!("Terminating, and Node/{node} does not report"),
                None if p.is_terminating() => "Terminating".to_string(),
                None if matches!(phase, "Succeeded" | "Failed") => {
                    format!("{phase}: a finished pod still holds it until it is deleted")
                }
                None => format!("{phase} on Node/{node}"),
            };
            format!("{} ({state})", name_of(p))
        })
        .collect()
}

fn owner_views(graph: &OwnershipGraph, obj: &Object) -> Vec<OwnerView> {
    graph
        .owners(obj.uid())
        .into_iter()
        .map(|(reference, status)| {
            let owner_state = match &status {
                RefStatus::Resolves { owner } => graph.get(owner).map(|o| {
                    if o.is_deleting_dependents() {
                        "Terminating, waiting for its dependents (foreground)".to_string()
                    } else if o.has_finalizer(ORPHAN) && o.is_terminating() {
                        "Terminating, releasing its dependents (orphan)".to_string()
                    } else if o.is_terminating() {
                        format!(
                            "Terminating, held by finalizers {}",
                            o.metadata.finalizers.join(", ")
                        )
                    } else {
                        "live".to_string()
                    }
                }),
                _ => None,
            };
            OwnerView {
                reference,
                status,
                owner_state,
            }
        })
        .collect()
}

/// Foreground owners (by uid, as the garbage collector's graph has them)
/// this object blocks.
fn blocks(graph: &OwnershipGraph, obj: &Object) -> Vec<String> {
    obj.metadata
        .owner_references
        .iter()
        .filter(|r| r.blocks())
        .filter_map(|r| graph.get(&r.uid))
        .filter(|o| o.is_deleting_dependents())
        .map(name_of)
        .collect()
}

/// Lists the blocker tree within the limits of [`super::blockers`].
struct Walk<'g> {
    scan: Scan<'g>,
    graph: &'g OwnershipGraph,
    now: Timestamp,
    controllers: &'g BTreeMap<String, bool>,
    /// Blockers that may still be listed.
    budget: usize,
    /// The owners above, so that a cycle is listed once.
    path: HashSet<&'g str>,
}

impl<'g> Walk<'g> {
    /// The blockers of `owner` worth listing, and how many more there are.
    fn blockers(
        &mut self,
        owner: &'g Object,
        depth: usize,
        counts: Option<&mut BlockerCounts>,
    ) -> (Vec<Blocker>, usize) {
        let (graph, now, controllers) = (self.graph, self.now, self.controllers);
        let limit = LIST_LIMIT.min(self.budget);
        let (deps, more) = self.scan.pick(owner, depth, limit, counts);
        self.budget = self.budget.saturating_sub(deps.len());
        let listed = deps
            .into_iter()
            .map(|dep| {
                let other_owners: Vec<String> = graph
                    .resolved_owners(dep.uid())
                    .iter()
                    .filter(|u| *u != owner.uid())
                    .filter_map(|u| graph.get(u))
                    .filter(|o| !o.is_deleting_dependents())
                    .map(name_of)
                    .collect();
                let state = match dep.metadata.deletion_timestamp {
                    Some(t) => super::badges::terminating(now.duration_since(t).as_secs()),
                    None if !other_owners.is_empty() => {
                        "not deleted: another owner keeps it".to_string()
                    }
                    None => "not deleted yet: the garbage collector deletes it next".to_string(),
                };
                let (blocked_by, more) = if dep.is_deleting_dependents()
                    && depth < MAX_DEPTH
                    && self.path.insert(dep.uid())
                {
                    let b = self.blockers(dep, depth + 1, None);
                    self.path.remove(dep.uid());
                    b
                } else {
                    (Vec::new(), 0)
                };
                let stranded = stranded(self.graph, dep, now);
                Blocker {
                    object: dep.obj_ref(),
                    state,
                    finalizers: finalizer_statuses(dep, controllers),
                    grace_left: grace_left(dep, now).filter(|_| stranded.is_none()),
                    stranded,
                    other_owners,
                    blocked_by,
                    more,
                }
            })
            .collect();
        (listed, more)
    }
}

fn namespace_status(graph: &OwnershipGraph, ns: &Object, now: Timestamp) -> NamespaceStatus {
    let conditions = ns
        .value_at(&["status", "conditions"])
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let s = |k: &str| {
                        c.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    Condition {
                        kind: s("type"),
                        status: s("status"),
                        reason: s("reason"),
                        message: s("message"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let spec_finalizers = ns.strings_at(&["spec", "finalizers"]);
    let mut remaining: Vec<String> = Vec::new();
    let mut by_finalizer: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut content: Vec<&Object> = graph
        .objects()
        .filter(|o| o.namespace() == Some(ns.name()))
        .collect();
    content.sort_by_key(|o| (o.kind.clone(), o.name().to_string()));
    let mut stranded_pods = Vec::new();
    for o in content {
        remaining.push(name_of(o));
        if let Some(s) = stranded(graph, o, now)
            && let Some(cause) = s.explanation.first()
        {
            stranded_pods.push(cause.clone());
        }
        for f in &o.metadata.finalizers {
            by_finalizer.entry(f.clone()).or_default().push(name_of(o));
        }
    }
    NamespaceStatus {
        phase: ns
            .str_at(&["status", "phase"])
            .unwrap_or("Terminating")
            .to_string(),
        spec_finalizers,
        conditions,
        remaining,
        remaining_by_finalizer: by_finalizer,
        stranded_pods,
    }
}

fn fate(graph: &OwnershipGraph, obj: &Object) -> Fate {
    let owners = graph.owners(obj.uid());
    if owners.is_empty() {
        return Fate::Root;
    }
    let (mut solid, mut stuck, mut dropped, mut waiting, mut unverified) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (r, status) in &owners {
        let label = format!("{}/{}", r.kind, r.name);
        match status {
            RefStatus::Unresolvable => {
                return Fate::NeverCollected {
                    reason: format!(
                        "it is cluster-scoped but names a namespaced owner ({label}): the garbage collector cannot look such an owner up and never deletes it"
                    ),
                };
            }
            RefStatus::Unmappable { api_version } => {
                return Fate::NeverCollected {
                    reason: never_mapped(api_version, &label),
                };
            }
            RefStatus::UnknownKind => {
                return Fate::NeverCollected {
                    reason: format!(
                        "its owner {label} is of kind {} ({}), which the server does not serve: the garbage collector retries with backoff and keeps it",
                        r.kind, r.api_version
                    ),
                };
            }
            RefStatus::Resolves { owner } => match graph.get(owner) {
                Some(o) if o.is_deleting_dependents() => waiting.push(label),
                Some(o) if o.is_terminating() => {
                    stuck.push(format!(
                        "{label} (Terminating, held by {})",
                        o.metadata.finalizers.join(", ")
                    ));
                    solid.push(label);
                }
                _ => solid.push(label),
            },
            RefStatus::OwnerAbsent => dropped.push(format!("{label} (gone)")),
            RefStatus::UidMismatch { .. } => {
                dropped.push(format!("{label} (recreated with another uid)"))
            }
            RefStatus::CrossNamespace { owner_namespace } => {
                dropped.push(format!("{label} (lives in namespace {owner_namespace})"));
            }
            RefStatus::Unverified { resource, reason } => {
                unverified.push(format!("{label} ({resource}: {reason})"));
            }
        }
    }
    if solid.is_empty() && !unverified.is_empty() {
        return Fate::Unknown {
            reason: format!(
                "its owner {} is of a kind not seen now (not listable, or its watch not synced): whether it exists, and so whether the garbage collector deletes this object, cannot be told from here",
                unverified.join(", ")
            ),
        };
    }
    if !solid.is_empty() {
        dropped.extend(
            waiting
                .iter()
                .map(|w| format!("{w} (deleting in foreground)")),
        );
        return Fate::Protected {
            owners: solid,
            stuck_owners: stuck,
            dropped,
        };
    }
    if !waiting.is_empty() {
        return Fate::WillBeCollected {
            reason: format!(
                "its only owners are being deleted in foreground ({}): the garbage collector deletes it so they can go",
                waiting.join(", ")
            ),
        };
    }
    Fate::WillBeCollected {
        reason: format!("every owner is gone: {}", dropped.join(", ")),
    }
}
