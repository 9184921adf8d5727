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
            claim_users: Vec::new(),
            removers: Vec::new(),
            rewrites: Vec::new(),
            webhooks: Vec::new(),
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
        claim_users: Vec::new(),
        removers: Vec::new(),
        rewrites: Vec::new(),
        webhooks: Vec::new(),
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
                    Some(t) => format!(
                        "Terminating {}",
                        human_duration(now.duration_since(t).as_secs())
                    ),
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

/// R32: what a reference through an unserved apiVersion means.
#[must_use]
pub fn never_mapped(api_version: &str, owner: &str) -> String {
    format!(
        "the garbage collector cannot resolve {api_version} (its reference to {owner}) and keeps retrying; this object is never collected"
    )
}

fn unlisted_names(p: &Partial) -> String {
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

fn causes(d: &Diagnosis) -> Vec<String> {
    let who = format!("{}/{}", d.object.kind, d.object.name);
    let mut out = Vec::new();
    match &d.fate {
        Fate::Terminating => {}
        Fate::Root => {
            return vec![match d.ttl_deletion_at {
                Some(at) => format!(
                    "{who} has no owner, and has finished: the TTL-after-finished controller deletes it (Foreground, its pods first) at {at} (ttlSecondsAfterFinished)"
                ),
                None => format!("{who} has no owner: it stays until someone deletes it"),
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
            super::wording::count(d.releasing.len(), "dependent")
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
                super::wording::count(ns.remaining.len(), "object")
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

impl Diagnosis {
    /// Looks for the controller of each third-party finalizer on this
    /// Terminating object ([`super::remover`]): `writers` maps a finalizer
    /// to the field managers that wrote it (`managedFields`, read for this
    /// object), `whole_cluster` says whether every namespace's workloads
    /// are in `graph`. The causes then say whether it runs.
    pub fn add_removers(
        &mut self,
        graph: &OwnershipGraph,
        writers: &BTreeMap<String, Vec<String>>,
        whole_cluster: bool,
    ) {
        if self.terminating_since.is_none() {
            return;
        }
        self.add_removers_among(&super::remover::workloads(graph), writers, whole_cluster);
    }

    /// As [`Self::add_removers`], among workloads taken once.
    pub fn add_removers_among(
        &mut self,
        workloads: &[&Object],
        writers: &BTreeMap<String, Vec<String>>,
        whole_cluster: bool,
    ) {
        if self.terminating_since.is_none() {
            return;
        }
        self.removers = self
            .finalizers
            .iter()
            .filter(|f| {
                // A simulated controller that is offline is looked for too
                // when its workload is named (`writers`).
                (f.controller_online.is_none()
                    || (f.controller_online == Some(false) && writers.contains_key(&f.info.name)))
                    && matches!(f.info.origin, Origin::KnownThirdParty | Origin::Unknown)
            })
            .map(|f| {
                super::remover::find(
                    workloads,
                    &f.info.name,
                    self.object.namespace.as_deref(),
                    writers.get(&f.info.name).cloned().unwrap_or_default(),
                    whole_cluster,
                )
            })
            .collect();
        self.causes = causes(self);
    }

    /// Looks again at the admission webhooks holding this object, with
    /// `evidence` (a webhook Service `namespace/name` -> whether anything
    /// answers, read for this object) and, in the simulator, its pods taken
    /// as ready (`pods_ready`).
    pub fn add_webhooks(
        &mut self,
        graph: &OwnershipGraph,
        evidence: &BTreeMap<String, super::webhooks::Backend>,
        pods_ready: bool,
    ) {
        let Some(obj) = graph.get(&self.object.uid) else {
            return;
        };
        self.webhooks = super::webhooks::holding(graph, obj, evidence, pods_ready);
        self.causes = causes(self);
    }

    /// STUCK-CAUSES C23: each finalizer's last write (`managedFields`),
    /// when it came after the deletion started, is said after the causes.
    pub fn add_rewrites(&mut self, last: &BTreeMap<String, super::remover::Written>) {
        let Some(deleted_at) = self.terminating_since else {
            return;
        };
        self.rewrites = last
            .iter()
            .filter_map(|(f, w)| super::remover::rewritten(f, w, deleted_at))
            .collect();
        self.causes = causes(self);
    }

    /// The removers were looked for by the names of their workloads (a
    /// scenario's controllers), not by who wrote the finalizers: no field
    /// manager is quoted.
    pub fn removers_named_not_written(&mut self) {
        for r in &mut self.removers {
            r.writers.clear();
        }
        self.causes = causes(self);
    }

    /// One line: the state and the first cause.
    #[must_use]
    pub fn headline(&self) -> String {
        let cause = self.causes.first().cloned().unwrap_or_default();
        match self.terminating_seconds {
            Some(s) if s < 0 => format!("Terminating (grace period, {}s left): {cause}", -s),
            Some(s) => format!("Terminating for {}: {cause}", human_duration(s)),
            None => cause,
        }
    }

    /// What really holds a foreground deletion up: the first listed
    /// blocker (most telling first) that carries a finalizer other than the
    /// garbage collector's, with that finalizer. Removing the owner's own
    /// `foregroundDeletion` is never the fix: it lets the owner go and
    /// leaves the dependents.
    #[must_use]
    pub fn held_by(&self) -> Option<(ObjRef, String)> {
        fn walk(bs: &[Blocker]) -> Option<(ObjRef, String)> {
            for b in bs {
                if let Some(f) = b
                    .finalizers
                    .iter()
                    .find(|f| f.info.name != FOREGROUND && f.info.name != ORPHAN)
                {
                    return Some((b.object.clone(), f.info.name.clone()));
                }
                if let Some(found) = walk(&b.blocked_by) {
                    return Some(found);
                }
            }
            None
        }
        walk(&self.blockers)
    }

    /// "3 blocking dependents" or, when the tree is larger than what is
    /// listed, what it holds: "29,700 blocking dependents (29,400
    /// Terminating, 29,100 in their grace period, 300 not deleted yet;
    /// finalizer example.com/hold on 2)".
    #[must_use]
    pub fn waiting_summary(&self) -> String {
        let Some(c) = &self.waiting_on else {
            return format!("{} blocking dependents", self.blockers.len());
        };
        let noun = if c.total == 1 {
            "dependent"
        } else {
            "dependents"
        };
        let mut parts = Vec::new();
        if c.terminating > 0 {
            parts.push(format!("{} Terminating", c.terminating));
        }
        if c.in_grace > 0 {
            parts.push(format!("{} in their grace period", c.in_grace));
        }
        if c.pending > 0 {
            parts.push(format!("{} not deleted yet", c.pending));
        }
        let fins: Vec<String> = c
            .by_finalizer
            .iter()
            .map(|(f, n)| format!("finalizer {f} on {n}"))
            .collect();
        let mut out = format!("{} blocking {noun}", c.total);
        if !parts.is_empty() || !fins.is_empty() {
            out.push_str(" (");
            out.push_str(&parts.join(", "));
            if !fins.is_empty() {
                if !parts.is_empty() {
                    out.push_str("; ");
                }
                out.push_str(&fins.join(", "));
            }
            out.push(')');
        }
        out
    }

    /// The full answer, as lines of text.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![self.headline()];
        // Every cause, and the fixes, first: what an on-call engineer
        // reads before the details.
        if self.causes.len() > 1 {
            out.push("Causes:".into());
            for c in &self.causes {
                out.push(format!("  - {c}"));
            }
        }
        out.push(String::new());
        if let (Some(ts), Some(s)) = (self.terminating_since, self.terminating_seconds) {
            out.push(format!(
                "deletionTimestamp {ts} ({} ago)",
                human_duration(s)
            ));
        }
        if !self.finalizers.is_empty() {
            out.push(if self.terminating_since.is_some() {
                "Finalizers still present:".into()
            } else {
                "Finalizers (they act only once the object is deleted):".into()
            });
            for f in &self.finalizers {
                out.push(format!("  {}: {}", f.info.name, f.info.meaning));
                out.push(format!("    removed by: {}", f.info.removed_by));
                let refused = self.webhooks.iter().any(|h| h.backend.is_down());
                match f.controller_online {
                    Some(true) if refused => out.push(
                        "    controller: online (simulated); its removal is refused by an admission webhook (below)".into(),
                    ),
                    Some(true) => out.push("    controller: online (simulated); it will remove it".into()),
                    Some(false) if self.terminating_since.is_none() => out.push(
                        "    controller: OFFLINE (simulated); a DELETE would leave the object Terminating until it is back online".into(),
                    ),
                    Some(false) => out.push(
                        "    controller: OFFLINE (simulated); nothing removes it until it is back online or the finalizer is removed by hand".into(),
                    ),
                    None => {}
                }
                if f.info.name == FOREGROUND {
                    if self.blockers.is_empty() && self.partial.is_partial() {
                        out.push(format!(
                            "    no blocking dependent visible; you cannot list {}, so it may be waiting on one of those",
                            unlisted_names(&self.partial)
                        ));
                    } else if self.blockers.is_empty() {
                        out.push("    no blocking dependent left".into());
                    } else {
                        out.push(format!("    waiting on {}:", self.waiting_summary()));
                        for b in &self.blockers {
                            blocker_lines(b, 6, &mut out);
                        }
                        if self.more_blockers > 0 {
                            out.push(format!("      … and {} more", self.more_blockers));
                        }
                    }
                }
                if f.info.name == ORPHAN && !self.releasing.is_empty() {
                    out.push(format!("    releasing: {}", self.releasing.join(", ")));
                }
            }
        }
        if !self.webhooks.is_empty() {
            out.push("Admission webhooks called for the UPDATE that removes a finalizer (failurePolicy Fail):".into());
            for h in &self.webhooks {
                let (state, detail) = match &h.backend {
                    super::webhooks::Backend::Up(s) => ("answering", s),
                    super::webhooks::Backend::Down(s) => ("NOT ANSWERING", s),
                    super::webhooks::Backend::Unknown(s) => ("not known", s),
                };
                out.push(format!(
                    "  {} ({}) at {}: {state}: {detail}",
                    h.webhook.name,
                    h.webhook.configuration_ref(),
                    h.webhook.address()
                ));
            }
        }
        if let Some(ns) = &self.namespace {
            out.push(format!(
                "Namespace phase {}, spec.finalizers [{}]",
                ns.phase,
                ns.spec_finalizers.join(", ")
            ));
            for c in &ns.conditions {
                out.push(format!(
                    "  {}={} {}: {}",
                    c.kind, c.status, c.reason, c.message
                ));
            }
            if ns.remaining.is_empty() && self.partial.is_partial() {
                out.push("  no content seen (some of it cannot be listed: see above)".into());
            } else if ns.remaining.is_empty() {
                out.push("  no content left".into());
            } else {
                out.push(format!(
                    "  remaining content ({}): {}",
                    ns.remaining.len(),
                    ns.remaining.join(", ")
                ));
            }
            for (f, objs) in &ns.remaining_by_finalizer {
                out.push(format!("  held by finalizer {f}: {}", objs.join(", ")));
            }
        }
        if !self.blocks.is_empty() {
            out.push(format!(
                "It blocks the foreground deletion of {}",
                self.blocks.join(", ")
            ));
        }
        if !self.owners.is_empty() {
            out.push("Owners:".into());
            for o in &self.owners {
                let r = &o.reference;
                let mut flags = Vec::new();
                if r.is_controller() {
                    flags.push("controller");
                }
                if r.blocks() {
                    flags.push("blockOwnerDeletion");
                }
                let state = o.owner_state.as_deref().unwrap_or(o.status.label());
                out.push(format!(
                    "  {}/{} [{}]: {}",
                    r.kind,
                    r.name,
                    if flags.is_empty() {
                        "-".to_string()
                    } else {
                        flags.join(" ")
                    },
                    state
                ));
            }
        }
        if let Fate::Protected { dropped, .. } = &self.fate
            && !dropped.is_empty()
        {
            out.push(format!(
                "The garbage collector will remove the references to {}",
                dropped.join(", ")
            ));
        }
        out
    }
}

fn blocker_lines(b: &Blocker, indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    out.push(format!(
        "{pad}{}/{}: {}",
        b.object.kind, b.object.name, b.state
    ));
    for f in &b.finalizers {
        let who = match f.controller_online {
            Some(true) => "its controller is online and will remove it".to_string(),
            Some(false) => "its controller is OFFLINE: nothing removes it".to_string(),
            None => format!("removed by {}", f.info.removed_by),
        };
        out.push(format!("{pad}  finalizer {}: {who}", f.info.name));
    }
    if let Some(g) = b.grace_left {
        out.push(format!("{pad}  grace period: {g}s left"));
    }
    if let Some(s) = &b.stranded {
        out.extend(s.explanation.iter().map(|l| format!("{pad}  {l}")));
    }
    if !b.other_owners.is_empty() {
        out.push(format!(
            "{pad}  also owned by {}",
            b.other_owners.join(", ")
        ));
    }
    for c in &b.blocked_by {
        blocker_lines(c, indent + 4, out);
    }
    if b.more > 0 {
        out.push(format!("{pad}    … and {} more", b.more));
    }
}
