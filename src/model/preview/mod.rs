//! The deletion preview: what a DELETE with a given policy will do, computed
//! from the ownership graph before anything is sent.
//!
//! It runs the garbage collector's decisions (GC-SEMANTICS R11-R17, R33-R50,
//! R58, R63-R64, R73) over an abstract copy of the affected objects until
//! nothing changes, and reports per object: deleted (in which wave),
//! orphaned, kept (and why), or left Terminating and waiting on what.
//!
//! Finalizers are assumed to be released when the garbage collector owns
//! them, when a built-in controller removes them (job tracking, volume
//! protection once unused), or when `controllers` says the finalizer's
//! controller is online; any other finalizer is predicted to wait.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use serde_json::Value;

use super::finalizers;
use super::graph::{OwnershipGraph, RefStatus};
use super::kinds::{DefaultPolicy, Partial};
use super::object::{FOREGROUND, ORPHAN, ObjRef, Object, OwnerReference, Policy, Uid};

mod api;
mod controllers;
mod gc;
mod index;
mod nodes;
mod outcome;
mod release;
mod report;
#[cfg(test)]
mod tests;
mod tokens;
mod webhooks;

pub use api::effective_policy;
use index::UidIndex;
pub use outcome::{EitherWay, Outcome, Plan, PlanEntry, PlanObject, Wait};

/// Namespaces the API server never deletes.
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

/// Built-in finalizers a running control plane removes by itself.
const JOB_TRACKING: &str = "batch.kubernetes.io/job-tracking";
const PVC_PROTECTION: &str = "kubernetes.io/pvc-protection";
const PV_PROTECTION: &str = "kubernetes.io/pv-protection";
const CRD_CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";
/// The namespace controller's `spec.finalizers` entry, tracked as a
/// finalizer here.
const NAMESPACE_CONTENT: &str = "kubernetes";
/// A pod's grace period, tracked as a finalizer the kubelet releases.
const GRACE: &str = "(grace period)";

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Alive,
    Terminating,
    Gone(u32),
}

#[derive(Clone, Debug)]
struct Item<'a> {
    /// The object as the graph has it.
    orig: &'a Arc<Object>,
    /// The graph's until the plan changes its owner references (copy on
    /// write). Its finalizers and deletion timestamp are not kept up to
    /// date: `finalizers` and `state` are.
    obj: Working<'a>,
    /// The current finalizers, held here so that a DELETE does not copy
    /// the whole object (at 100k objects the copies were a third of the
    /// preview's time).
    finalizers: Vec<String>,
    /// `Terminating`: the object has a deletion timestamp.
    state: State,
    /// sticky, like the GC node flag
    deleting_dependents: bool,
    /// What kind of object it is, for the passes that look for one kind
    /// among all items ([`Kind`]): read once, so that such a pass does not
    /// follow each item to its object (at 100k objects, a wait on memory
    /// an item, every pass).
    kind: Kind,
    /// What happens to few objects, boxed: the working set stays small
    /// (at 100k objects its size was felt).
    more: Option<Box<More>>,
}

/// An object as the plan has it: borrowed from the graph until the plan
/// changes it, then its own copy. Borrowed rather than shared: counting
/// references wrote to every object of the working set on the way in and
/// again on the way out, at 100k objects a few milliseconds of waiting on
/// memory.
#[derive(Clone, Debug)]
enum Working<'a> {
    Graph(&'a Object),
    Changed(Arc<Object>),
}

impl std::ops::Deref for Working<'_> {
    type Target = Object;

    fn deref(&self) -> &Object {
        match self {
            Working::Graph(o) => o,
            Working::Changed(o) => o,
        }
    }
}

impl Working<'_> {
    /// The plan's own copy, to change.
    fn to_mut(&mut self) -> &mut Object {
        if let Working::Graph(o) = *self {
            *self = Working::Changed(Arc::new(o.clone()));
        }
        match self {
            Working::Changed(o) => Arc::make_mut(o),
            Working::Graph(_) => unreachable!("copied above"),
        }
    }

    /// Still the graph's copy.
    fn unchanged(&self) -> bool {
        matches!(self, Working::Graph(_))
    }
}

/// The kinds the passes over every item look for (a kind never changes
/// in a plan: only references and finalizers do).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Kind(u8);

impl Kind {
    const POD: u8 = 1;
    /// A core/v1 Service.
    const SERVICE: u8 = 1 << 1;
    /// An apps/v1 ReplicaSet.
    const REPLICA_SET: u8 = 1 << 2;
    /// A core/v1 ServiceAccount.
    const SERVICE_ACCOUNT: u8 = 1 << 3;
    /// A service account token Secret.
    const TOKEN: u8 = 1 << 4;
    /// Kind `PersistentVolume`, of any group.
    const PERSISTENT_VOLUME: u8 = 1 << 5;

    fn of(o: &Object) -> Kind {
        let flag = |yes: bool, bit: u8| if yes { bit } else { 0 };
        Kind(
            flag(o.is_pod(), Self::POD)
                | flag(is_service(o), Self::SERVICE)
                | flag(
                    o.kind == "ReplicaSet" && o.group() == "apps",
                    Self::REPLICA_SET,
                )
                | flag(
                    o.kind == "ServiceAccount" && o.group().is_empty(),
                    Self::SERVICE_ACCOUNT,
                )
                | flag(o.is_service_account_token(), Self::TOKEN)
                | flag(o.kind == "PersistentVolume", Self::PERSISTENT_VOLUME),
        )
    }

    fn is(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// What happens to an object beyond its state.
#[derive(Clone, Debug, Default)]
struct More {
    orphaned_from: Vec<String>,
    stripped: Vec<String>,
    never: Option<String>,
    /// Adopted by this re-created owner.
    adopted_by: Option<String>,
    /// Why a controller deleted it.
    deleted_by: Option<String>,
}

/// Nothing more.
static NO_MORE: More = More {
    orphaned_from: Vec::new(),
    stripped: Vec::new(),
    never: None,
    adopted_by: None,
    deleted_by: None,
};

/// How the garbage collector takes an owner reference in a pass.
enum RefClass {
    /// The owner is there (or may be, unseen): it holds the dependent.
    Solid,
    /// Gone, or never there: the reference is dangling.
    Dangling,
    /// The owner waits in foreground for its dependents.
    Waiting,
    /// The dependent is never collected, for this reason.
    Never(String),
}

/// An object's place in the working set: its index in `Planner::items`,
/// which are in uid order, so that a pass in id order is a pass in uid
/// order (the order the garbage collector's passes are predicted in).
type Id = usize;

struct Planner<'a> {
    graph: &'a OwnershipGraph,
    controllers: &'a BTreeMap<String, bool>,
    /// The working set, in uid order.
    items: Vec<Item<'a>>,
    /// Each item's id by uid.
    ids: UidIndex<'a>,
    /// Per item, the items that hold a reference to it, in id order: the
    /// graph's reverse index, looked up once.
    referrers: Vec<Vec<Id>>,
    queue: VecDeque<Id>,
    /// What is in `queue`, so that enqueueing stays O(1) on a cascade of
    /// 100k objects (a scan of the queue made the preview quadratic).
    queued: Vec<bool>,
    wave: u32,
    /// ReplicaSets gone that their Deployment re-creates.
    recreated: BTreeSet<Id>,
    /// Every item that may be Terminating with `orphan` (a superset: each
    /// wave keeps those that are), so that a wave looks for the GC's
    /// orphan work among these and not among all items: a chain is as
    /// many waves as it is long, and a scan of the working set each wave
    /// made the preview of a 100k chain quadratic (38 s).
    orphaning: BTreeSet<Id>,
    /// Items looked at by the passes of `run`: linear in the working set
    /// on a chain as on a fan-out (counted for the tests, which say so
    /// without timing anything).
    work: Cell<u64>,
    /// The last namespace `then` asked about, and whether it ends
    /// (`Planner::namespace_ends`).
    last_namespace: Cell<Option<(&'a str, bool)>>,
    /// Owners that turned to wait in foreground while another finalizer
    /// holds them: whether the garbage collector drops `foregroundDeletion`
    /// before or after it looks at their dependents is a race (R40, R41).
    races: Vec<Id>,
    /// Objects looked at in the same batch as an owner that the batch
    /// deletes in foreground (R34.4): the collector's workers take them
    /// at once, and whether that DELETE lands before the object's pass
    /// decides whether the owner counts as present (it keeps the object)
    /// or as waiting (the object goes in foreground).
    siblings: Vec<Id>,
    /// Per item, the wave whose batch it was looked at in, and the wave
    /// its DELETE was sent in (0: none), for `siblings`.
    batch_wave: Vec<u32>,
    deleted_wave: Vec<u32>,
    /// (object, solid owner) pairs of this batch, checked when it ends:
    /// a race if that owner was deleted in the same batch.
    sibling_candidates: Vec<(Id, Id)>,
    /// Objects the cycle guard (R44) patched before deleting them: the
    /// DELETE that follows races the owners it woke (R34, 1.34+).
    guarded: Vec<Id>,
    /// The other side of those races: what is queued together is looked at
    /// in reverse (a foreground owner's own pass before its dependents',
    /// siblings the other way round), and a DELETE after the cycle guard's
    /// patch is retried once, after the owners it woke.
    owner_first: bool,
    /// A third order, for siblings (R34.4): in each batch the passes of
    /// owners waiting in foreground first, the rest in id order.
    owners_first: bool,
}

/// The orders a race is planned in besides the usual one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Reverse,
    OwnersFirst,
}

/// Predicts what `DELETE target` with `policy` (`None`: no policy in the
/// request) will do.
#[must_use]
pub fn plan(
    graph: &OwnershipGraph,
    target_uid: &str,
    policy: Option<Policy>,
    controllers: &BTreeMap<String, bool>,
) -> Plan {
    plan_with(graph, target_uid, policy, controllers, false)
}

/// As [`plan`]; `force`: the DELETE has grace period 0 (`kubectl delete
/// --force --grace-period=0`), so a pod does not wait for its kubelet
/// (R76); finalizers still hold it.
#[must_use]
pub fn plan_with(
    graph: &OwnershipGraph,
    target_uid: &str,
    policy: Option<Policy>,
    controllers: &BTreeMap<String, bool>,
    force: bool,
) -> Plan {
    let Some(target) = graph.get_shared(target_uid) else {
        return Plan {
            target: ObjRef {
                uid: target_uid.to_string(),
                ..ObjRef::default()
            },
            requested: policy,
            policy: policy.unwrap_or(Policy::Background),
            policy_note: Some("the object no longer exists".into()),
            entries: Vec::new(),
            partial: Partial::of(graph.kinds()),
        };
    };
    plan_counted(graph, target, policy, controllers, force).0
}

/// [`plan_with`] of an object of the graph, and the items its passes
/// looked at.
fn plan_counted(
    graph: &OwnershipGraph,
    target: &Arc<Object>,
    policy: Option<Policy>,
    controllers: &BTreeMap<String, bool>,
    force: bool,
) -> (Plan, u64) {
    let (effective, mut note) = effective_policy(graph, target, policy);
    if force && target.is_pod() {
        note = Some(if target.is_terminating() {
            "grace period 0: it goes now, without its kubelet, once no finalizer holds it".into()
        } else {
            "grace period 0: no kubelet is waited for".into()
        });
    }
    let (mut p, root) = Planner::new(graph, controllers, target);
    // The API server refuses to delete these namespaces (403).
    let immortal = target.kind == "Namespace"
        && target.group().is_empty()
        && IMMORTAL_NAMESPACES.contains(&target.name());
    if immortal {
        note = Some(format!(
            "refused: the API server answers 403, namespaces {:?} is forbidden: this namespace may not be deleted",
            target.name()
        ));
    } else {
        p.delete_with(root, policy, force);
        p.run();
    }
    let partial = Partial::of(graph.kinds());
    let unseen_short = {
        let u = graph.kinds().unlisted();
        match u {
            [] => String::new(),
            [one] => one.resource.clone(),
            [first, rest @ ..] => format!("{} and {} more", first.resource, rest.len()),
        }
    };
    let mine = outcomes(&p, &partial, &unseen_short);
    // Where the real garbage collector's workers race, the plan is made
    // again with the other order, and what differs may go either way.
    // (A woken owner with no finalizer of its own is gone whichever pass
    // comes first: the cycle guard's retry matters only beside a race
    // owner.)
    // Siblings race in one more order: the foreground owners' own passes
    // first in each batch, the rest as before (an owner may finish in the
    // batch after the one its dependent kept it in).
    let mut orders = Vec::new();
    if !p.races.is_empty() || !p.siblings.is_empty() {
        orders.push(Order::Reverse);
    }
    if !p.siblings.is_empty() {
        orders.push(Order::OwnersFirst);
    }
    let alts: Vec<Vec<Option<Outcome>>> = orders
        .into_iter()
        .map(|order| {
            let (mut alt, root) = Planner::new(graph, controllers, target);
            alt.owner_first = order == Order::Reverse;
            alt.owners_first = order == Order::OwnersFirst;
            alt.delete_with(root, policy, force);
            alt.run();
            p.count(usize::try_from(alt.work.get()).unwrap_or(usize::MAX));
            outcomes(&alt, &partial, &unseen_short)
        })
        .collect();
    let reason = (!alts.is_empty()).then(|| race_reason(&p));
    let mut entries: Vec<PlanEntry> = Vec::with_capacity(p.items.len());
    for (id, (i, outcome)) in p.items.iter().zip(mine).enumerate() {
        let differing = alts
            .iter()
            .map(|o| &o[id])
            .find(|other| !same_outcome(outcome.as_ref(), other.as_ref()))
            .or_else(|| alts.first().map(|o| &o[id]));
        let other = differing.zip(reason.as_ref());
        let (outcome, either_way) = match (outcome, other) {
            (Some(o), Some((other, reason))) if !same_outcome(Some(&o), other.as_ref()) => (
                o,
                Some(EitherWay {
                    reason: reason.clone(),
                    otherwise: other.clone(),
                }),
            ),
            (None, Some((Some(other), reason))) => (
                other.clone(),
                Some(EitherWay {
                    reason: reason.clone(),
                    otherwise: None,
                }),
            ),
            (Some(o), _) => (o, None),
            (None, _) => continue,
        };
        entries.push(PlanEntry {
            object: PlanObject(Arc::clone(i.orig)),
            then: p.then(id),
            outcome,
            either_way,
        });
    }
    // The target first, then by wave, namespace, kind and name; ties in
    // id (uid) order, the order they were made in (a stable sort, fast on
    // the runs that order leaves). Sorted on the entries' own copies of
    // the names, just made and close together in memory (on the objects'
    // own, each comparison waited on memory).
    let key = |e: &PlanEntry| {
        let wave = match e.outcome {
            Outcome::Deleted { wave } | Outcome::Unsure { wave, .. } => wave,
            _ => u32::MAX,
        };
        (!Arc::ptr_eq(&e.object.0, target), wave)
    };
    entries.sort_by(|a, b| {
        key(a).cmp(&key(b)).then_with(|| {
            let (a, b) = (&a.object, &b.object);
            (a.namespace(), a.kind(), a.name()).cmp(&(b.namespace(), b.kind(), b.name()))
        })
    });
    let plan = Plan {
        target: target.obj_ref(),
        requested: policy,
        policy: effective,
        policy_note: note,
        entries,
        partial,
    };
    (plan, p.work.get())
}

/// Each item's reported outcome (`None`: the delete leaves it as it was),
/// waves numbered from 1 without gaps.
fn outcomes(p: &Planner, partial: &Partial, unseen_short: &str) -> Vec<Option<Outcome>> {
    let parked = p.parked();
    // Waves numbered from 1 without gaps: a round of work that deleted
    // nothing (a controller releasing a finalizer, an orphaning) is no wave
    // a reader needs to count.
    let mut waves: BTreeSet<u32> = BTreeSet::new();
    let mut last = 0;
    for i in &p.items {
        if let State::Gone(w) = i.state
            && w != last
        {
            waves.insert(w);
            last = w;
        }
    }
    waves.remove(&0);
    // Each wave's number looked up, not searched for: a chain has as many
    // waves as objects, and a search of them for each object was
    // quadratic.
    let numbers: HashMap<u32, u32> = waves
        .iter()
        .enumerate()
        .map(|(i, &w)| (w, u32::try_from(i + 1).unwrap_or(w)))
        .collect();
    let number = |w: u32| numbers.get(&w).copied().unwrap_or(w);
    p.items
        .iter()
        .enumerate()
        .map(|(id, i)| {
            let mut outcome = match p.outcome(i) {
                Some(o) => o,
                None => parked.get(&id)?.clone(),
            };
            // An owner that waited in foreground went once its visible
            // blocking dependents were gone; one of a kind that could not
            // be listed would hold it.
            if let Outcome::Deleted { wave } = outcome
                && i.deleting_dependents
                && partial.is_partial()
            {
                outcome = Outcome::Unsure {
                    wave,
                    unless: format!(
                        "it waits in foreground for its dependents, and a blocking one of a kind you cannot list ({unseen_short}) would keep it Terminating"
                    ),
                };
            }
            if let Outcome::Deleted { wave } | Outcome::Unsure { wave, .. } = &mut outcome {
                *wave = number(*wave);
            }
            Some(outcome)
        })
        .collect()
}

/// The same outcome but for the waves it comes in.
fn same_outcome(a: Option<&Outcome>, b: Option<&Outcome>) -> bool {
    let flat = |o: Option<&Outcome>| {
        o.cloned().map(|mut o| {
            if let Outcome::Deleted { wave } | Outcome::Unsure { wave, .. } = &mut o {
                *wave = 0;
            }
            o
        })
    };
    flat(a) == flat(b)
}

/// Why the outcomes that differ between the two orders of a race may go
/// either way.
fn race_reason(p: &Planner) -> String {
    let names = |ids: &[Id]| {
        let mut v: Vec<String> = ids.iter().map(|&id| name_of(&p.items[id].obj)).collect();
        v.sort();
        v.dedup();
        v.join(", ")
    };
    let mut why = Vec::new();
    if !p.races.is_empty() {
        why.push(format!(
            "{} waits in foreground while its own finalizer holds it; if the collector drops foregroundDeletion before it looks at this object, or looks at it before a sibling's DELETE lands, an owner counts as present and keeps it",
            names(&p.races)
        ));
    }
    if !p.siblings.is_empty() {
        why.push(format!(
            "the collector looks at {} and at an owner of it in the same batch; if that owner's foreground DELETE lands first, the owner counts as waiting and the object goes in foreground, if not, the owner counts as present and the waiting reference is dropped",
            names(&p.siblings)
        ));
    }
    if !p.guarded.is_empty() {
        why.push(format!(
            "the cycle guard patches {} to non-blocking before deleting it; from 1.34 that DELETE fails on the changed resourceVersion and is retried, and the owner it woke may drop foregroundDeletion first and keep it (1.20 to 1.33 delete at once)",
            names(&p.guarded)
        ));
    }
    format!("a race in the garbage collector: {}", why.join("; "))
}

pub(super) fn name_of(o: &Object) -> String {
    format!("{}/{}", o.kind, o.name())
}

impl Item<'_> {
    fn has_finalizer(&self, f: &str) -> bool {
        self.finalizers.iter().any(|x| x == f)
    }

    fn more(&self) -> &More {
        self.more.as_deref().unwrap_or(&NO_MORE)
    }

    fn more_mut(&mut self) -> &mut More {
        self.more.get_or_insert_with(Box::default)
    }
}

fn is_crd(o: &Object) -> bool {
    o.kind == "CustomResourceDefinition" && o.group() == "apiextensions.k8s.io"
}

/// The instances a CustomResourceDefinition serves.
fn crd_instances<'g>(graph: &'g OwnershipGraph, crd: &Object) -> Vec<&'g str> {
    let group = crd.str_at(&["spec", "group"]).unwrap_or_default();
    let kind = crd.str_at(&["spec", "names", "kind"]).unwrap_or_default();
    if group.is_empty() || kind.is_empty() {
        return Vec::new();
    }
    graph
        .objects()
        .filter(|o| o.group() == group && o.kind == kind)
        .map(Object::uid)
        .collect()
}

/// The PersistentVolumes bound to a claim (`spec.claimRef`).
fn bound_volumes<'g>(graph: &'g OwnershipGraph, pvc: &Object) -> Vec<&'g Arc<Object>> {
    graph
        .shared_objects()
        .filter(|v| v.kind == "PersistentVolume" && v.group().is_empty())
        .filter(|v| {
            v.str_at(&["spec", "claimRef", "name"]) == Some(pvc.name())
                && v.str_at(&["spec", "claimRef", "namespace"]) == pvc.namespace()
        })
        .collect()
}

pub(super) fn is_service(o: &Object) -> bool {
    o.kind == "Service" && o.group().is_empty()
}

fn is_namespace(o: &Object) -> bool {
    o.kind == "Namespace" && o.group().is_empty()
}
