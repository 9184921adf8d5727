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
use serde::Serialize;
use serde_json::Value;

use super::finalizers;
use super::graph::{OwnershipGraph, RefStatus};
use super::kinds::{DefaultPolicy, Partial};
use super::object::{FOREGROUND, ORPHAN, ObjRef, Object, OwnerReference, Policy, Uid};

mod controllers;
mod nodes;

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

/// Why an object will still be Terminating when everything else settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "on", rename_all = "camelCase")]
pub enum Wait {
    /// A finalizer nobody (known to be running) removes.
    Finalizer {
        name: String,
        /// `Some(false)`: its simulated controller is offline; `None`:
        /// unknown (a live cluster, or no controller declared).
        controller_online: Option<bool>,
        removed_by: String,
    },
    /// `foregroundDeletion` waits on these dependents, which wait
    /// themselves.
    BlockingDependents { dependents: Vec<String> },
    /// `kubernetes.io/pvc-protection`: a scheduled pod still uses the claim.
    InUse { by: Vec<String> },
    /// A namespace waits on its remaining content.
    NamespaceContent { remaining: Vec<String> },
    /// A namespace is never finalized while the discovery of these group
    /// versions fails (R58.6).
    DiscoveryFailing { group_versions: Vec<String> },
    /// A pod's grace period, which only the kubelet of its node ends, and
    /// that node is not reporting (R76).
    Kubelet {
        node: crate::model::nodes::NodeHealth,
    },
}

impl Wait {
    /// `finalizer example.com/x (controller offline)`.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Wait::Finalizer {
                name,
                controller_online,
                ..
            } => match controller_online {
                Some(false) => format!("finalizer {name} (controller offline)"),
                Some(true) => format!("finalizer {name}"),
                None => format!("finalizer {name} (no controller known to remove it)"),
            },
            Wait::BlockingDependents { dependents } => {
                format!("blocking dependents {}", dependents.join(", "))
            }
            Wait::InUse { by } => format!("still used by {}", by.join(", ")),
            Wait::NamespaceContent { remaining } => {
                format!("remaining content {}", remaining.join(", "))
            }
            Wait::DiscoveryFailing { group_versions } => format!(
                "the discovery of {} ({}): the namespace controller finalizes no namespace until it recovers",
                group_versions.join(", "),
                crate::model::kinds::DISCOVERY_FAILED
            ),
            Wait::Kubelet { node } => match node {
                crate::model::nodes::NodeHealth::NotReady { node, status, .. } => format!(
                    "the kubelet of Node/{node}, which is not reporting (Ready {status}): delete the Node object once the machine is gone, and the pod GC force-deletes the pod"
                ),
                other => format!("the kubelet of Node/{}", other.node().unwrap_or_default()),
            },
        }
    }
}

/// What happens to one object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum Outcome {
    /// Gone; `wave` 0 is the DELETE itself, each later wave a round of the
    /// garbage collector or a controller.
    Deleted { wave: u32 },
    /// Kept running; these owner references are removed (orphan policy).
    Orphaned { references_removed: Vec<String> },
    /// Kept running: orphaned from these references, then adopted by
    /// `by`, re-created by its own controller (R72).
    Adopted {
        references_removed: Vec<String>,
        by: String,
    },
    /// Kept: another owner still holds it; these references are removed.
    KeptByOtherOwner {
        owners: Vec<String>,
        references_removed: Vec<String>,
    },
    /// Kept for good: the garbage collector never deletes it (unresolvable
    /// or unknown-kind owner reference).
    NeverCollected { reason: String },
    /// Left Terminating.
    Waiting { on: Vec<Wait> },
    /// Deleted in foreground in that wave as far as can be seen; but kinds
    /// that could not be listed may hold a dependent that blocks it.
    Unsure { wave: u32, unless: String },
    /// Untouched for now: an owner up its chain, `behind`, is left
    /// Terminating, and the garbage collector deletes a dependent only once
    /// its owners are gone (a background delete parked behind the owner's
    /// own finalizer). `other_owners`: owners not being deleted, which keep
    /// it then.
    Parked {
        behind: String,
        /// Its owner that waits behind `behind` in turn, if not `behind`.
        #[serde(skip_serializing_if = "Option::is_none")]
        via: Option<String>,
        other_owners: Vec<String>,
    },
}

/// One affected object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlanEntry {
    pub object: PlanObject,
    pub outcome: Outcome,
    /// What a controller does about it afterwards: `re-created by the
    /// Deployment controller (same name, new uid)`, `replaced by the
    /// ReplicaSet controller (a new pod)`, `deleted by the endpoints
    /// controller`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub then: Option<String>,
}

/// The object an entry is about: the graph's copy when the plan was made,
/// shared rather than its names copied (five allocations an entry, a fifth
/// of the preview at 100k objects). Compared, shown and serialized as its
/// [`ObjRef`].
#[derive(Clone)]
pub struct PlanObject(Arc<Object>);

/// An [`ObjRef`], borrowed.
#[derive(PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjRefView<'a> {
    api_version: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
    name: &'a str,
    uid: &'a str,
}

impl PlanObject {
    #[must_use]
    pub fn api_version(&self) -> &str {
        &self.0.api_version
    }

    #[must_use]
    pub fn kind(&self) -> &str {
        &self.0.kind
    }

    /// `None` for a cluster-scoped object.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.0.namespace()
    }

    #[must_use]
    pub fn name(&self) -> &str {
        self.0.name()
    }

    #[must_use]
    pub fn uid(&self) -> &str {
        self.0.uid()
    }

    #[must_use]
    pub fn obj_ref(&self) -> ObjRef {
        self.0.obj_ref()
    }

    fn view(&self) -> ObjRefView<'_> {
        ObjRefView {
            api_version: self.api_version(),
            kind: self.kind(),
            namespace: self.namespace(),
            name: self.name(),
            uid: self.uid(),
        }
    }
}

impl PartialEq for PlanObject {
    fn eq(&self, other: &Self) -> bool {
        self.view() == other.view()
    }
}

impl Eq for PlanObject {}

impl std::fmt::Debug for PlanObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjRef")
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .field("uid", &self.uid())
            .finish()
    }
}

impl std::fmt::Display for PlanObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.namespace() {
            Some(ns) => write!(f, "{}/{} -n {}", self.kind(), self.name(), ns),
            None => write!(f, "{}/{}", self.kind(), self.name()),
        }
    }
}

impl Serialize for PlanObject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(s)
    }
}

/// The predicted outcome of one DELETE.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub target: ObjRef,
    /// The policy as requested (`None`: the type default).
    pub requested: Option<Policy>,
    /// The policy the API server will apply.
    pub policy: Policy,
    /// Why that policy, when not requested.
    pub policy_note: Option<String>,
    /// The target first, then the rest by wave, namespace, kind, name.
    pub entries: Vec<PlanEntry>,
    /// What could not be seen: the counts are then lower bounds.
    pub partial: Partial,
}

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
    p.delete_with(root, policy, force);
    p.run();
    let parked = p.parked();
    let partial = Partial::of(graph.kinds());
    let unseen_short = {
        let u = graph.kinds().unlisted();
        match u {
            [] => String::new(),
            [one] => one.resource.clone(),
            [first, rest @ ..] => format!("{} and {} more", first.resource, rest.len()),
        }
    };
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
    let mut entries: Vec<PlanEntry> = Vec::with_capacity(p.items.len());
    entries.extend(p.items.iter().enumerate().filter_map(|(id, i)| {
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
        Some(PlanEntry {
            object: PlanObject(Arc::clone(i.orig)),
            then: p.then(id),
            outcome,
        })
    }));
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

/// The policy the API server applies (R11): the requested one, else the
/// GC finalizer the object already carries, else the kind's default.
#[must_use]
pub fn effective_policy(
    graph: &OwnershipGraph,
    obj: &Object,
    policy: Option<Policy>,
) -> (Policy, Option<String>) {
    if let Some(p) = policy {
        return (p, None);
    }
    if obj.is_terminating() {
        let carried = if obj.has_finalizer(ORPHAN) {
            Policy::Orphan
        } else if obj.has_finalizer(FOREGROUND) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        return (
            carried,
            Some("already Terminating: a DELETE without a policy changes nothing".into()),
        );
    }
    if obj.has_finalizer(ORPHAN) {
        return (
            Policy::Orphan,
            Some("no policy given: the object already carries orphan".into()),
        );
    }
    if obj.has_finalizer(FOREGROUND) {
        return (
            Policy::Foreground,
            Some("no policy given: the object already carries foregroundDeletion".into()),
        );
    }
    match graph
        .kinds()
        .get(obj.group(), &obj.kind)
        .map(|k| k.default_policy)
    {
        Some(DefaultPolicy::Policy(Policy::Orphan)) => (
            Policy::Orphan,
            Some(format!(
                "no policy given: {} defaults to Orphan (its dependents are kept)",
                obj.kind
            )),
        ),
        Some(DefaultPolicy::Unsupported) => (
            Policy::Background,
            Some(format!(
                "{} never gets garbage-collector finalizers",
                obj.kind
            )),
        ),
        _ => (
            Policy::Background,
            Some(format!(
                "no policy given: {} defaults to Background",
                obj.kind
            )),
        ),
    }
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

/// R58 with R17: the namespace controller's Background DELETE changes an
/// object that is live, or Terminating with a GC finalizer it drops.
fn namespace_deletes(i: &Item) -> bool {
    match i.state {
        State::Alive => true,
        State::Terminating => i.has_finalizer(FOREGROUND) || i.has_finalizer(ORPHAN),
        State::Gone(_) => false,
    }
}

/// A DELETE that ignores the policy and holds the object with a
/// controller's own finalizer (a namespace's content, a CRD's instances).
fn mark_terminating(item: &mut Item, finalizer: &str) {
    item.state = State::Terminating;
    item.finalizers.retain(|f| f != ORPHAN && f != FOREGROUND);
    if !item.has_finalizer(finalizer) {
        item.finalizers.push(finalizer.into());
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

/// Each item's id by uid: the graph's strings (which outlive the plan)
/// with their hashes, so that growing the table and probing it seldom
/// reads a uid again (at 100k objects, each read of a uid is a wait on
/// memory).
#[derive(Default)]
struct UidIndex<'a> {
    table: HashTable<(u64, &'a str, Id)>,
    hasher: foldhash::fast::RandomState,
}

impl<'a> UidIndex<'a> {
    fn get(&self, uid: &str) -> Option<Id> {
        let hash = self.hasher.hash_one(uid);
        self.table
            .find(hash, |e| e.0 == hash && e.1 == uid)
            .map(|e| e.2)
    }

    /// The id of `uid`, `next` (added) if it has none.
    fn get_or_insert(&mut self, uid: &'a str, next: Id) -> Id {
        let hash = self.hasher.hash_one(uid);
        self.table
            .entry(hash, |e| e.0 == hash && e.1 == uid, |e| e.0)
            .or_insert((hash, uid, next))
            .get()
            .2
    }
}

/// The working set as [`Planner::new`] finds it.
#[derive(Default)]
struct Found<'a> {
    /// Each object's place in `items` by uid.
    ids: UidIndex<'a>,
    /// The items, in the order found: made at the first sight of each
    /// object, while it is at hand.
    items: Vec<Item<'a>>,
    /// Each one's uid sort key, taken at the same time.
    keys: Vec<UidKey>,
    /// Per object, the places of the objects that refer to it.
    referrers: Vec<Vec<Id>>,
    /// The places still to walk from.
    todo: Vec<Id>,
}

impl<'a> Found<'a> {
    /// The object's place, added (and to walk from) if new.
    fn add(&mut self, o: &'a Arc<Object>) -> Id {
        let next = self.items.len();
        let at = self.ids.get_or_insert(o.uid(), next);
        if at == next {
            self.keys.push(uid_key(o.uid()));
            let mut finalizers = o.metadata.finalizers.clone();
            // A Terminating namespace waits on its spec finalizers (its
            // content first, R56/R58), whoever sent the DELETE.
            if is_namespace(o) && o.is_terminating() {
                finalizers.extend(o.strings_at(&["spec", "finalizers"]));
            }
            // A pod deleted gracefully waits for its kubelet (R76), past
            // its grace period too.
            if o.is_pod()
                && o.is_terminating()
                && o.metadata.deletion_grace_period_seconds.unwrap_or(0) > 0
            {
                finalizers.push(GRACE.to_string());
            }
            self.items.push(Item {
                orig: o,
                obj: Working::Graph(o),
                finalizers,
                state: if o.is_terminating() {
                    State::Terminating
                } else {
                    State::Alive
                },
                deleting_dependents: o.is_deleting_dependents(),
                more: None,
            });
            self.referrers.push(Vec::new());
            self.todo.push(at);
        }
        at
    }
}

/// The first 40 bytes of a uid, zero-padded, as numbers: ordered as the
/// uids are, except that uids equal there are told apart by the rest.
type UidKey = (u128, u128, u64);

fn uid_key(uid: &str) -> UidKey {
    let mut b = [0u8; 40];
    let n = uid.len().min(40);
    b[..n].copy_from_slice(&uid.as_bytes()[..n]);
    let (hi, rest) = b.split_at(16);
    let (mid, lo) = rest.split_at(16);
    (
        <[u8; 16]>::try_from(hi).map_or(0, u128::from_be_bytes),
        <[u8; 16]>::try_from(mid).map_or(0, u128::from_be_bytes),
        <[u8; 8]>::try_from(lo).map_or(0, u64::from_be_bytes),
    )
}

impl<'a> Planner<'a> {
    /// A planner over the target, everything that refers to it
    /// (transitively, by uid), and for a namespace its content; and the
    /// target's id.
    fn new(
        graph: &'a OwnershipGraph,
        controllers: &'a BTreeMap<String, bool>,
        target: &'a Arc<Object>,
    ) -> (Self, Id) {
        // The working set in the order found, each object with the places
        // of the objects referring to it (in the graph's uid order): the
        // graph's reverse index is read once, and its objects are shared,
        // never looked up again by uid.
        let mut found = Found::default();
        let target_at = found.add(target);
        if is_crd(target) {
            for u in crd_instances(graph, target) {
                if let Some(o) = graph.get_shared(u) {
                    found.add(o);
                }
            }
        }
        if is_namespace(target) {
            for o in graph
                .shared_objects()
                .filter(|o| o.namespace() == Some(target.name()))
            {
                found.add(o);
            }
        }
        while let Some(at) = found.todo.pop() {
            let o = found.items[at].orig;
            for d in graph.shared_referrers(o.uid()) {
                let d = found.add(d);
                found.referrers[at].push(d);
            }
            // The endpoints controller deletes a Service's Endpoints.
            if is_service(o)
                && let Some(ep) = graph.find_shared("", "Endpoints", o.namespace(), o.name())
            {
                found.add(ep);
            }
            // The pod GC force-deletes the pods of a Node that goes (R77).
            if nodes::is_node(o) {
                for p in graph
                    .shared_objects()
                    .filter(|p| p.is_pod() && p.str_at(&["spec", "nodeName"]) == Some(o.name()))
                {
                    found.add(p);
                }
            }
            // A claim's volume is reclaimed when the claim goes.
            if o.kind == "PersistentVolumeClaim" && o.group().is_empty() {
                for v in bound_volumes(graph, o) {
                    found.add(v);
                }
            }
        }
        let Found {
            mut ids,
            items,
            keys,
            mut referrers,
            ..
        } = found;
        // Ids in uid order. The sort compares the first 40 bytes of each
        // uid held beside it (a uid has 36), so that it seldom follows a
        // pointer to the uid itself.
        let mut order: Vec<(UidKey, Id)> = keys.into_iter().zip(0..).collect();
        order.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| items[a.1].orig.uid().cmp(items[b.1].orig.uid()))
        });
        let mut id_of = vec![0; items.len()];
        for (id, &(_, at)) in order.iter().enumerate() {
            id_of[at] = id;
        }
        for e in &mut ids.table {
            e.2 = id_of[e.2];
        }
        // Still in uid order: ids are.
        for r in &mut referrers {
            for d in r.iter_mut() {
                *d = id_of[*d];
            }
        }
        let referrers = order
            .iter()
            .map(|&(_, at)| std::mem::take(&mut referrers[at]))
            .collect();
        let mut items: Vec<Option<Item>> = items.into_iter().map(Some).collect();
        let items: Vec<Item> = order
            .iter()
            .filter_map(|&(_, at)| items[at].take())
            .collect();
        let orphaning = (0..items.len())
            .filter(|&id| items[id].state == State::Terminating && items[id].has_finalizer(ORPHAN))
            .collect();
        let planner = Planner {
            graph,
            controllers,
            orphaning,
            work: Cell::new(0),
            queued: vec![false; items.len()],
            items,
            ids,
            referrers,
            queue: VecDeque::new(),
            wave: 0,
            recreated: BTreeSet::new(),
        };
        (planner, id_of[target_at])
    }

    /// The id of an object in the working set.
    fn id(&self, uid: &str) -> Option<Id> {
        self.ids.get(uid)
    }

    /// Whether an object (in the working set or not) is gone.
    fn is_gone(&self, uid: &str) -> bool {
        match self.id(uid) {
            Some(id) => matches!(self.items[id].state, State::Gone(_)),
            None => self.graph.get(uid).is_none(),
        }
    }

    /// Current version of an object, working set first.
    fn current(&self, uid: &str) -> Option<&Object> {
        match self.id(uid).map(|id| &self.items[id]) {
            Some(i) if matches!(i.state, State::Gone(_)) => None,
            Some(i) => Some(&i.obj),
            None => self.graph.get(uid),
        }
    }

    /// Whether an object (in the working set or not) is Terminating.
    fn is_terminating(&self, uid: &str) -> bool {
        match self.id(uid) {
            Some(id) => self.items[id].state == State::Terminating,
            None => self.graph.get(uid).is_some_and(Object::is_terminating),
        }
    }

    /// Objects referring to `id` (by uid) that still exist, in id order.
    fn referrers(&self, id: Id) -> Vec<Id> {
        let uid = self.items[id].obj.uid();
        self.referrers[id]
            .iter()
            .copied()
            .filter(|&d| {
                let i = &self.items[d];
                // Its references as the graph has them (the reverse index
                // says one points here) unless the plan changed them.
                !matches!(i.state, State::Gone(_))
                    && (i.obj.unchanged()
                        || i.obj.metadata.owner_references.iter().any(|r| r.uid == uid))
            })
            .collect()
    }

    fn enqueue(&mut self, id: Id) {
        if !self.queued[id] {
            self.queued[id] = true;
            self.queue.push_back(id);
        }
    }

    /// R11-R17 and R56 for a DELETE (user's or the garbage collector's).
    fn delete(&mut self, id: Id, policy: Option<Policy>) {
        self.delete_with(id, policy, false);
    }

    /// A DELETE; `force`: with grace period 0 (no kubelet waited for).
    fn delete_with(&mut self, id: Id, policy: Option<Policy>, force: bool) {
        let graph = self.graph;
        let item = &self.items[id];
        if matches!(item.state, State::Gone(_)) {
            return;
        }
        let obj = item.obj.clone();
        let was_terminating = item.state == State::Terminating;
        if is_namespace(&obj) {
            self.delete_namespace(id);
            return;
        }
        if is_crd(&obj) && !was_terminating {
            self.delete_crd(id);
            return;
        }
        // Asked only when a finalizer would be added: most DELETEs of a
        // cascade are Background, and the kind table wants the kind's name,
        // one more wait on memory an object.
        let unsupported = || {
            graph
                .kinds()
                .get(obj.group(), &obj.kind)
                .is_some_and(|k| k.default_policy == DefaultPolicy::Unsupported)
        };
        let mut fins: Vec<String> = item
            .finalizers
            .iter()
            .filter(|f| *f != ORPHAN && *f != FOREGROUND && *f != GRACE)
            .cloned()
            .collect();
        let keep_grace = item.has_finalizer(GRACE);
        // R18: grace period 0 ends a running one.
        if force && keep_grace {
            self.remove_finalizer(id, GRACE);
            if self.gone_if_done(id) {
                return;
            }
        }
        if was_terminating && policy.is_none() {
            return; // R17: no policy, no change
        }
        let chosen = if was_terminating || policy.is_some() {
            match policy {
                Some(Policy::Orphan) => Some(ORPHAN),
                Some(Policy::Foreground) => Some(FOREGROUND),
                _ => None,
            }
        } else {
            match effective_policy(graph, &obj, None).0 {
                Policy::Orphan => Some(ORPHAN),
                Policy::Foreground => Some(FOREGROUND),
                Policy::Background => None,
            }
        };
        if let Some(c) = chosen.filter(|_| !unsupported()) {
            fins.push(c.to_string());
        }
        // R15: scheduled pods get a grace period the kubelet ends.
        // (Read only when it matters: a pod's spec is a JSON map.)
        let scheduled = || {
            obj.is_pod()
                && !obj
                    .str_at(&["spec", "nodeName"])
                    .unwrap_or_default()
                    .is_empty()
                && !matches!(
                    obj.str_at(&["status", "phase"]),
                    Some("Succeeded" | "Failed")
                )
        };
        let grace = || {
            obj.value_at(&["spec", "terminationGracePeriodSeconds"])
                .and_then(Value::as_i64)
                .unwrap_or(30)
        };
        if !force && (keep_grace || (!was_terminating && scheduled() && grace() != 0)) {
            fins.push(GRACE.to_string());
        }
        let wave = self.wave;
        let item = &mut self.items[id];
        item.finalizers = fins;
        if item.finalizers.is_empty() {
            item.state = State::Gone(wave);
            self.on_gone(id);
            return;
        }
        item.state = State::Terminating;
        if item.has_finalizer(ORPHAN) {
            self.orphaning.insert(id);
        }
        if item.has_finalizer(FOREGROUND) && !item.deleting_dependents {
            // R40: dependents first, then the owner (processTransitions);
            // an owner queued before goes behind them, as the simulator's
            // GC has it (no answer depends on the order of a file).
            item.deleting_dependents = true;
            for d in self.referrers(id) {
                self.enqueue(d);
            }
            if self.queued[id] {
                self.queue.retain(|&q| q != id);
                self.queued[id] = false;
            }
            self.enqueue(id);
        }
    }

    /// R75: the DELETE adds the cleanup finalizer whatever the policy; the
    /// CRD finalizer deletes every instance (Background) and lets the CRD go
    /// once none is left.
    fn delete_crd(&mut self, id: Id) {
        let item = &mut self.items[id];
        mark_terminating(item, CRD_CLEANUP);
        let crd = item.obj.clone();
        let mut instances: Vec<Id> = crd_instances(self.graph, &crd)
            .into_iter()
            .filter_map(|u| self.id(u))
            .collect();
        instances.sort_unstable();
        for u in instances {
            if self.items[u].state == State::Alive {
                self.delete(u, Some(Policy::Background));
            }
        }
    }

    /// R56/R58: the namespace controller deletes all content (Background);
    /// the namespace goes once nothing is left.
    fn delete_namespace(&mut self, id: Id) {
        let item = &mut self.items[id];
        if item.state == State::Alive {
            mark_terminating(item, NAMESPACE_CONTENT);
            // R58: spec finalizers other than the controller's own stay
            // until their owners remove them.
            let extra: Vec<String> = item
                .obj
                .strings_at(&["spec", "finalizers"])
                .into_iter()
                .filter(|f| f != NAMESPACE_CONTENT)
                .collect();
            item.finalizers.extend(extra);
            if item.has_finalizer(ORPHAN) {
                self.orphaning.insert(id);
            }
        }
        let ns = item.obj.name().to_string();
        self.delete_namespace_content(&ns);
    }

    /// One pass of the namespace controller over its content (R58): the
    /// pods first, and nothing else while any pod remains
    /// (OrderedNamespaceDeletion, GA in 1.34; the simulator's namespace
    /// controller does the same). Whether it deleted anything.
    fn delete_namespace_content(&mut self, ns: &str) -> bool {
        let in_ns = |i: &Item| i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_));
        let pods_left = !self.ids_where(|i| in_ns(i) && i.obj.is_pod()).is_empty();
        let todo =
            self.ids_where(|i| in_ns(i) && namespace_deletes(i) && (!pods_left || i.obj.is_pod()));
        for &u in &todo {
            self.delete(u, Some(Policy::Background));
        }
        !todo.is_empty()
    }

    fn on_gone(&mut self, id: Id) {
        for d in self.referrers(id) {
            self.enqueue(d);
        }
        // (A handle on the object, not a list of ids: no allocation.)
        let obj = self.items[id].obj.clone();
        for r in &obj.metadata.owner_references {
            if let Some(o) = self.id(&r.uid)
                && self.items[o].deleting_dependents
            {
                self.enqueue(o);
            }
        }
    }

    fn releasable(&self, obj: &Object, f: &str) -> bool {
        match f {
            GRACE => self.kubelet_confirms(obj),
            JOB_TRACKING => true,
            PVC_PROTECTION => self.pvc_users(obj).is_empty(),
            PV_PROTECTION => {
                // R64: released once not Bound; the PV controller releases a
                // volume whose claim is gone.
                let claim_gone = match (
                    obj.str_at(&["spec", "claimRef", "namespace"]),
                    obj.str_at(&["spec", "claimRef", "name"]),
                ) {
                    (Some(ns), Some(name)) => self
                        .graph
                        .find("", "PersistentVolumeClaim", Some(ns), name)
                        .is_none_or(|c| self.is_gone(c.uid())),
                    _ => false,
                };
                obj.str_at(&["status", "phase"]) != Some("Bound") || claim_gone
            }
            NAMESPACE_CONTENT => {
                let ns = obj.name();
                self.graph.kinds().discovery_failing().is_empty()
                    && !self.items.iter().any(|i| {
                        i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_))
                    })
            }
            CRD_CLEANUP => crd_instances(self.graph, obj)
                .into_iter()
                .all(|u| self.is_gone(u)),
            FOREGROUND | ORPHAN => false,
            _ => self.controllers.get(f) == Some(&true),
        }
    }

    /// R63: scheduled pods that use a claim.
    fn pvc_users(&self, pvc: &Object) -> Vec<String> {
        let mut pods: Vec<&Object> = self
            .graph
            .objects()
            .filter(|p| p.is_pod() && p.namespace() == pvc.namespace())
            .filter_map(|p| self.current(p.uid()))
            .filter(|p| p.holds_claim(pvc.name()))
            .collect();
        pods.sort_by_key(|p| p.name().to_string());
        pods.iter().map(|p| name_of(p)).collect()
    }

    /// Blocking dependents of a foreground owner (R41): still there, with
    /// a blocking reference to it.
    fn blockers(&self, id: Id) -> Vec<Id> {
        let uid = self.items[id].obj.uid();
        self.referrers(id)
            .into_iter()
            .filter(|&d| {
                self.items[d]
                    .obj
                    .metadata
                    .owner_references
                    .iter()
                    .any(|r| r.uid == uid && r.blocks())
            })
            .collect()
    }

    /// Rounds of garbage-collector and controller work until nothing
    /// changes. The GC reacts within a fraction of a second, controllers and
    /// kubelets in seconds: each round runs the GC's orphan work and its
    /// delete queue (FIFO, as upstream's workqueue) until they are idle,
    /// then lets the other controllers release their finalizers.
    fn run(&mut self) {
        for _ in 0..10_000 {
            let mut changed = false;
            loop {
                self.wave += 1;
                let mut gc_changed = false;
                // In id order, as a scan would find them; those that no
                // longer are (orphan_dependents drops `orphan`) leave the
                // set, a DELETE that adds it again puts them back.
                let candidates = std::mem::take(&mut self.orphaning);
                self.count(candidates.len());
                for id in candidates {
                    let i = &self.items[id];
                    if i.state == State::Terminating && i.has_finalizer(ORPHAN) {
                        gc_changed |= self.orphan_dependents(id);
                    }
                }
                let queued: Vec<Id> = self.queue.drain(..).collect();
                self.count(queued.len());
                for &id in &queued {
                    self.queued[id] = false;
                }
                for id in queued {
                    gc_changed |= self.gc_pass(id);
                }
                changed |= gc_changed;
                if !gc_changed && self.queue.is_empty() {
                    break;
                }
            }
            for id in self.ids_where(|i| i.state == State::Terminating) {
                changed |= self.release_finalizers(id);
            }
            for id in
                self.ids_where(|i| i.state == State::Alive && i.obj.kind == "PersistentVolume")
            {
                changed |= self.reclaim(id);
            }
            changed |= self.workload_controllers();
            changed |= self.pod_gc();
            if !changed && self.queue.is_empty() {
                break;
            }
        }
    }

    /// Counts `n` items looked at.
    fn count(&self, n: usize) {
        self.work
            .set(self.work.get() + u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// The items that satisfy `f`, in id (so uid) order.
    fn ids_where(&self, f: impl Fn(&Item) -> bool) -> Vec<Id> {
        self.count(self.items.len());
        (0..self.items.len())
            .filter(|&id| f(&self.items[id]))
            .collect()
    }

    /// R46: strip the owner's references from its dependents, then drop
    /// `orphan`.
    fn orphan_dependents(&mut self, id: Id) -> bool {
        let owner = name_of(&self.items[id].obj);
        let uid = self.items[id].obj.uid().to_string();
        for d in self.referrers(id) {
            let dep = &mut self.items[d];
            dep.obj
                .to_mut()
                .metadata
                .owner_references
                .retain(|r| r.uid != uid);
            dep.more_mut().orphaned_from.push(owner.clone());
        }
        self.remove_finalizer(id, ORPHAN);
        self.gone_if_done(id);
        true
    }

    /// Finalizers controllers and the kubelet release (GC-owned ones are
    /// handled by the GC passes); the namespace controller's content
    /// deletion.
    fn release_finalizers(&mut self, id: Id) -> bool {
        let obj = self.items[id].obj.clone();
        let mut changed = false;
        for f in &self.items[id].finalizers.clone() {
            if f != ORPHAN && f != FOREGROUND && self.releasable(&obj, f) {
                self.remove_finalizer(id, f);
                changed = true;
            }
        }
        if is_namespace(&obj) {
            changed |= self.delete_namespace_content(obj.name());
        }
        changed | self.gone_if_done(id)
    }

    /// The PV controller: a volume whose claim is gone is Released; with
    /// reclaim policy Delete it deletes the PersistentVolume.
    fn reclaim(&mut self, id: Id) -> bool {
        let pv = self.items[id].obj.clone();
        let claim_gone = match (
            pv.str_at(&["spec", "claimRef", "namespace"]),
            pv.str_at(&["spec", "claimRef", "name"]),
        ) {
            (Some(ns), Some(name)) => self
                .graph
                .find("", "PersistentVolumeClaim", Some(ns), name)
                .is_none_or(|c| self.is_gone(c.uid())),
            _ => false,
        };
        let delete = pv.str_at(&["spec", "persistentVolumeReclaimPolicy"]) == Some("Delete");
        if claim_gone && delete && pv.str_at(&["status", "phase"]) == Some("Bound") {
            self.delete(id, Some(Policy::Background));
            return true;
        }
        false
    }

    /// R23: a Terminating object whose last finalizer went is removed.
    fn gone_if_done(&mut self, id: Id) -> bool {
        let wave = self.wave;
        let item = &mut self.items[id];
        if item.state == State::Terminating && item.finalizers.is_empty() {
            item.state = State::Gone(wave);
            self.on_gone(id);
            return true;
        }
        false
    }

    /// R41: a foreground owner's pass.
    fn process_deleting_dependents(&mut self, id: Id) -> bool {
        let blockers = self.blockers(id);
        if blockers.is_empty() {
            let had = self.items[id].has_finalizer(FOREGROUND);
            self.remove_finalizer(id, FOREGROUND);
            return self.gone_if_done(id) || had;
        }
        for b in blockers {
            if !self.items[b].deleting_dependents {
                self.enqueue(b);
            }
        }
        false
    }

    fn remove_finalizer(&mut self, id: Id, f: &str) {
        self.items[id].finalizers.retain(|x| x != f);
    }

    /// How the garbage collector takes a reference `obj` holds.
    fn ref_class(&self, obj: &Object, r: &OwnerReference) -> RefClass {
        match self.graph.resolve(obj, r) {
            Ok(owner) => {
                let (gone, foreground) = match self.id(&r.uid) {
                    Some(o) => {
                        let o = &self.items[o];
                        (
                            matches!(o.state, State::Gone(_)),
                            o.state == State::Terminating && o.has_finalizer(FOREGROUND),
                        )
                    }
                    None => (
                        false,
                        owner.is_terminating() && owner.has_finalizer(FOREGROUND),
                    ),
                };
                if gone {
                    RefClass::Dangling
                } else if foreground {
                    RefClass::Waiting
                } else {
                    RefClass::Solid
                }
            }
            Err(RefStatus::Unmappable { api_version }) => RefClass::Never(
                super::diagnosis::never_mapped(&api_version, &format!("{}/{}", r.kind, r.name)),
            ),
            Err(RefStatus::Unresolvable) => RefClass::Never(format!(
                "cluster-scoped, but its owner reference names a namespaced {}: the garbage collector never resolves it",
                r.kind
            )),
            Err(RefStatus::UnknownKind) => RefClass::Never(format!(
                "its owner reference names kind {} ({}), which the server does not serve: the garbage collector retries and keeps it",
                r.kind, r.api_version
            )),
            // Not seen, so not known to be gone: counted as an owner
            // that exists (never "deleted" on a guess).
            Err(RefStatus::Unverified { .. }) => RefClass::Solid,
            Err(_) => RefClass::Dangling,
        }
    }

    /// One `attemptToDeleteItem` (R34) over the working copy.
    fn gc_pass(&mut self, id: Id) -> bool {
        let graph = self.graph;
        let item = &self.items[id];
        if item.deleting_dependents && item.state == State::Terminating {
            return self.process_deleting_dependents(id);
        }
        if item.state != State::Alive {
            return false; // R34.0: terminating items wait for their finalizers
        }
        let obj = item.obj.clone();
        if obj.metadata.owner_references.is_empty() {
            return false;
        }
        // Counted first, listed only when some are stripped: a cascade
        // resolves one reference per object, and a list each was an
        // allocation each.
        let (mut solid, mut dangling, mut waiting) = (false, false, false);
        for r in &obj.metadata.owner_references {
            match self.ref_class(&obj, r) {
                RefClass::Solid => solid = true,
                RefClass::Dangling => dangling = true,
                RefClass::Waiting => waiting = true,
                RefClass::Never(reason) => {
                    self.items[id].more_mut().never = Some(reason);
                    return false;
                }
            }
        }
        if solid {
            if !dangling && !waiting {
                return false;
            }
            let (mut dangling, mut waiting) = (Vec::new(), Vec::new());
            for r in &obj.metadata.owner_references {
                match self.ref_class(&obj, r) {
                    RefClass::Dangling => dangling.push(r),
                    RefClass::Waiting => waiting.push(r),
                    RefClass::Solid | RefClass::Never(_) => {}
                }
            }
            let gone: BTreeSet<&str> = dangling
                .iter()
                .chain(&waiting)
                .map(|r| r.uid.as_str())
                .collect();
            let names: Vec<String> = dangling
                .iter()
                .chain(&waiting)
                .map(|r| format!("{}/{}", r.kind, r.name))
                .collect();
            let i = &mut self.items[id];
            i.obj
                .to_mut()
                .metadata
                .owner_references
                .retain(|r| !gone.contains(r.uid.as_str()));
            i.more_mut().stripped.extend(names);
            // R35: dropping a blocking reference wakes its owner.
            let unblocked: Vec<Id> = dangling
                .iter()
                .chain(&waiting)
                .filter(|r| r.blocks())
                .filter_map(|r| self.id(&r.uid))
                .collect();
            for o in unblocked {
                self.enqueue(o);
            }
            return true;
        }
        // R34.5 asks whether it has dependents; in a partial view one of a
        // kind that could not be listed may exist: assumed, so that the
        // answer is "deleted unless an unseen dependent blocks", never a
        // plain "deleted" on a guess.
        let dependents = self.referrers(id);
        let has_dependents = !dependents.is_empty() || !graph.kinds().unlisted().is_empty();
        let policy = if waiting && has_dependents {
            let cycle = dependents
                .iter()
                .any(|&d| self.items[d].deleting_dependents);
            let mut unblocked = Vec::new();
            if cycle {
                for r in &mut self.items[id].obj.to_mut().metadata.owner_references {
                    if r.blocks() {
                        r.block_owner_deletion = Some(false);
                        unblocked.push(r.uid.clone());
                    }
                }
            }
            // R35: a reference flipped to non-blocking wakes its owner.
            for o in unblocked {
                if let Some(o) = self.id(&o) {
                    self.enqueue(o);
                }
            }
            Policy::Foreground
        } else if self.items[id].has_finalizer(ORPHAN) {
            Policy::Orphan
        } else if self.items[id].has_finalizer(FOREGROUND) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        self.delete(id, Some(policy));
        true
    }

    /// The reported outcome; `None` for objects the delete leaves as they
    /// were.
    fn outcome(&self, item: &Item) -> Option<Outcome> {
        match item.state {
            State::Gone(wave) => return Some(Outcome::Deleted { wave }),
            State::Terminating => {
                return Some(Outcome::Waiting {
                    on: self.waits(item),
                });
            }
            State::Alive => {}
        }
        let more = item.more();
        if let Some(by) = &more.adopted_by {
            return Some(Outcome::Adopted {
                references_removed: more.orphaned_from.clone(),
                by: by.clone(),
            });
        }
        if !more.orphaned_from.is_empty() {
            return Some(Outcome::Orphaned {
                references_removed: more.orphaned_from.clone(),
            });
        }
        if !more.stripped.is_empty() {
            let owners = item
                .obj
                .metadata
                .owner_references
                .iter()
                .map(|r| format!("{}/{}", r.kind, r.name))
                .collect();
            return Some(Outcome::KeptByOtherOwner {
                owners,
                references_removed: more.stripped.clone(),
            });
        }
        if let Some(reason) = &more.never {
            return Some(Outcome::NeverCollected {
                reason: reason.clone(),
            });
        }
        None
    }

    /// Objects left alone by this delete whose owner, or an owner up their
    /// chain, is left Terminating: the garbage collector deletes nothing
    /// while its owner is still there, so they wait behind it. Once it is
    /// gone, what no other owner keeps is deleted in turn.
    fn parked(&self) -> HashMap<Id, Outcome> {
        // Every object below a Terminating one, through references the
        // garbage collector resolves, that this delete leaves alone.
        let roots = self.ids_where(|i| i.state == State::Terminating);
        let mut candidates: Vec<Id> = Vec::new();
        let mut seen: HashSet<Id> = HashSet::new();
        let mut queue: VecDeque<Id> = roots.iter().copied().collect();
        while let Some(id) = queue.pop_front() {
            for d in self.referrers(id) {
                let item = &self.items[d];
                if item.state != State::Alive || self.outcome(item).is_some() || !seen.insert(d) {
                    continue;
                }
                candidates.push(d);
                queue.push_back(d);
            }
        }
        // Whether an owner reference holds the object once the Terminating
        // owners and what goes with them are gone.
        let owners_of = |id: Id| -> Vec<(Uid, String, RefStatus)> {
            self.graph
                .owners(self.items[id].obj.uid())
                .into_iter()
                .map(|(r, st)| (r.uid.clone(), format!("{}/{}", r.kind, r.name), st))
                .collect()
        };
        let goes = |owner: &Uid, st: &RefStatus, doomed: &HashSet<Id>| match st {
            RefStatus::Resolves { .. } => self
                .id(owner)
                .is_some_and(|o| doomed.contains(&o) || self.items[o].state == State::Terminating),
            // A dangling reference holds nothing.
            RefStatus::OwnerAbsent | RefStatus::UidMismatch { .. } => true,
            _ => false,
        };
        let mut doomed: HashSet<Id> = HashSet::new();
        loop {
            let before = doomed.len();
            for &c in &candidates {
                if !doomed.contains(&c)
                    && owners_of(c).iter().all(|(o, _, st)| goes(o, st, &doomed))
                {
                    doomed.insert(c);
                }
            }
            if doomed.len() == before {
                break;
            }
        }
        // Which Terminating owner each one waits behind, and through whom.
        let mut behind: HashMap<Id, (String, Option<String>)> = HashMap::new();
        let mut queue: VecDeque<(Id, String, Option<String>)> = roots
            .iter()
            .map(|&id| (id, name_of(&self.items[id].obj), None))
            .collect();
        while let Some((id, root, via)) = queue.pop_front() {
            let uid = self.items[id].obj.uid();
            for d in self.referrers(id) {
                if !seen.contains(&d) || behind.contains_key(&d) {
                    continue;
                }
                let resolves = self
                    .graph
                    .owners(self.items[d].obj.uid())
                    .iter()
                    .any(|(r, st)| r.uid == uid && matches!(st, RefStatus::Resolves { .. }));
                if !resolves {
                    continue;
                }
                behind.insert(d, (root.clone(), via.clone()));
                if doomed.contains(&d) {
                    let me = Some(name_of(&self.items[d].obj));
                    queue.push_back((d, root.clone(), me));
                }
            }
        }
        behind
            .into_iter()
            .map(|(id, (root, via))| {
                let other_owners = owners_of(id)
                    .into_iter()
                    .filter(|(o, _, st)| !goes(o, st, &doomed))
                    .map(|(_, name, _)| name)
                    .collect();
                (
                    id,
                    Outcome::Parked {
                        behind: root,
                        via,
                        other_owners,
                    },
                )
            })
            .collect()
    }

    fn waits(&self, item: &Item) -> Vec<Wait> {
        let obj = &item.obj;
        let mut out = Vec::new();
        for f in &item.finalizers {
            match f.as_str() {
                FOREGROUND => {
                    let mut deps: Vec<String> = self
                        .id(obj.uid())
                        .map(|id| self.blockers(id))
                        .unwrap_or_default()
                        .into_iter()
                        .map(|d| name_of(&self.items[d].obj))
                        .collect();
                    deps.sort();
                    out.push(Wait::BlockingDependents { dependents: deps });
                }
                GRACE => {
                    let node = self.node_health(obj);
                    if !node.confirms() {
                        out.push(Wait::Kubelet { node });
                    }
                }
                PVC_PROTECTION => out.push(Wait::InUse {
                    by: self.pvc_users(obj),
                }),
                NAMESPACE_CONTENT => {
                    let ns = obj.name();
                    let mut remaining: Vec<String> = self
                        .items
                        .iter()
                        .filter(|i| {
                            i.obj.namespace() == Some(ns) && !matches!(i.state, State::Gone(_))
                        })
                        .map(|i| name_of(&i.obj))
                        .collect();
                    remaining.sort();
                    if !remaining.is_empty() {
                        out.push(Wait::NamespaceContent { remaining });
                    }
                    let failing = self.graph.kinds().discovery_failing();
                    if !failing.is_empty() {
                        out.push(Wait::DiscoveryFailing {
                            group_versions: failing.iter().map(|g| (*g).to_string()).collect(),
                        });
                    }
                }
                _ => out.push(Wait::Finalizer {
                    name: f.clone(),
                    controller_online: self.controllers.get(f).copied(),
                    removed_by: finalizers::describe(f).removed_by,
                }),
            }
        }
        out
    }
}

impl Outcome {
    /// For [`Outcome::Parked`]: `untouched while Database/orders is
    /// Terminating; deleted by the garbage collector once it is gone`.
    #[must_use]
    pub fn parked_text(&self) -> String {
        let Outcome::Parked {
            behind,
            via,
            other_owners,
        } = self
        else {
            return String::new();
        };
        let gone = match via {
            None => "it is gone".to_string(),
            Some(v) => format!("its owner {v} is gone in turn"),
        };
        if other_owners.is_empty() {
            format!(
                "untouched while {behind} is Terminating; deleted by the garbage collector once {gone}"
            )
        } else {
            format!(
                "untouched while {behind} is Terminating; once {gone}, still owned by {}",
                other_owners.join(", ")
            )
        }
    }
}

impl Plan {
    /// The policy the API server will apply.
    #[must_use]
    pub fn effective_policy(&self) -> Policy {
        self.policy
    }

    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.entries.iter().filter(|e| f(&e.outcome)).count()
    }

    /// `4 deleted, 1 orphaned, 1 left waiting`.
    #[must_use]
    pub fn summary(&self) -> String {
        let deleted = self.count(|o| matches!(o, Outcome::Deleted { .. }));
        let orphaned = self.count(|o| matches!(o, Outcome::Orphaned { .. }));
        let adopted = self.count(|o| matches!(o, Outcome::Adopted { .. }));
        let recreated = self
            .entries
            .iter()
            .filter(|e| {
                e.then
                    .as_deref()
                    .is_some_and(|t| t.starts_with("re-created") || t.starts_with("replaced"))
            })
            .count();
        let kept = self.count(|o| {
            matches!(
                o,
                Outcome::KeptByOtherOwner { .. } | Outcome::NeverCollected { .. }
            )
        });
        let waiting = self.count(|o| matches!(o, Outcome::Waiting { .. }));
        let parked = self.count(|o| matches!(o, Outcome::Parked { .. }));
        let unsure = self.count(|o| matches!(o, Outcome::Unsure { .. }));
        let mut parts = Vec::new();
        if !self.partial.is_partial() {
            parts.push(format!("{deleted} deleted"));
        } else if deleted > 0 || unsure == 0 {
            parts.push(format!("at least {deleted} deleted"));
        }
        if unsure > 0 {
            parts.push(format!(
                "{unsure} deleted unless an unseen dependent blocks"
            ));
        }
        if orphaned > 0 {
            parts.push(format!("{orphaned} orphaned"));
        }
        if adopted > 0 {
            parts.push(format!("{adopted} orphaned then re-adopted"));
        }
        if recreated > 0 {
            parts.push(format!(
                "{recreated} re-created or replaced by their controller"
            ));
        }
        if kept > 0 {
            parts.push(format!("{kept} kept"));
        }
        if waiting > 0 {
            parts.push(format!("{waiting} left waiting"));
        }
        if parked > 0 {
            parts.push(format!("{parked} waiting behind it"));
        }
        parts.join(", ")
    }

    /// Human-readable lines, one per affected object.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "DELETE {} with propagationPolicy={}{}: {}",
            self.target,
            self.policy,
            self.policy_note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default(),
            self.summary()
        )];
        out.extend(crate::model::kinds::unseen_lines(
            &self.partial.unlisted,
            "counts are lower bounds; objects of those kinds may also be deleted, orphaned or hold things up",
        ));
        for e in &self.entries {
            let who = format!("{}/{}", e.object.kind(), e.object.name());
            let line = match &e.outcome {
                Outcome::Deleted { wave: 0 } => format!("deleted now        {who}"),
                Outcome::Deleted { wave } => format!("deleted (wave {wave:>2}) {who}"),
                Outcome::Orphaned { references_removed } => {
                    format!(
                        "orphaned           {who}: keeps running, loses its reference to {}",
                        references_removed.join(", ")
                    )
                }
                Outcome::Adopted {
                    references_removed,
                    by,
                } => format!(
                    "adopted            {who}: keeps running, loses its reference to {}, then adopted by {by}",
                    references_removed.join(", ")
                ),
                Outcome::KeptByOtherOwner {
                    owners,
                    references_removed,
                } => format!(
                    "kept               {who}: still owned by {}; loses its reference to {}",
                    owners.join(", "),
                    references_removed.join(", ")
                ),
                Outcome::NeverCollected { reason } => format!("kept               {who}: {reason}"),
                Outcome::Waiting { on } => {
                    let w: Vec<String> = on.iter().map(Wait::text).collect();
                    format!("left Terminating   {who}: waits on {}", w.join("; "))
                }
                Outcome::Unsure { wave, unless } => {
                    format!(
                        "deleted? (wave {wave:>2}) {who}: unless an unseen dependent blocks: {unless}"
                    )
                }
                Outcome::Parked { .. } => {
                    format!("waits behind       {who}: {}", e.outcome.parked_text())
                }
            };
            match &e.then {
                Some(t) => out.push(format!("{line}; {t}")),
                None => out.push(line),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KindTable;

    /// `n` ConfigMaps, each owned by the one before (blocking), the first
    /// owned by the last too when `cycle`; or all owned by the first.
    fn shape(n: usize, chain: bool, cycle: bool) -> OwnershipGraph {
        let uid = |i: usize| format!("00000000-0000-4000-9000-{i:012x}");
        let cms: Vec<Object> = (0..n)
            .map(|i| {
                let mut o = Object::new("v1", "ConfigMap", Some("big"), &format!("cm-{i:06}"));
                o.metadata.uid = uid(i);
                o
            })
            .collect();
        let mut graph = OwnershipGraph::new(KindTable::builtin());
        for i in 0..n {
            let owner = match i {
                0 if cycle => Some(n - 1),
                0 => None,
                _ if chain => Some(i - 1),
                _ => Some(0),
            };
            let mut o = cms[i].clone();
            if let Some(w) = owner {
                o.metadata
                    .owner_references
                    .push(cms[w].reference(None, Some(true)));
            }
            graph.upsert(o);
        }
        graph
    }

    fn counted(graph: &OwnershipGraph, policy: Policy) -> (Plan, u64) {
        let root = graph
            .get_shared("00000000-0000-4000-9000-000000000000")
            .expect("the root");
        plan_counted(graph, root, Some(policy), &BTreeMap::new(), false)
    }

    /// The passes look at each object of a chain or a cycle a bounded
    /// number of times, as on a fan-out of the same size: a scan of every
    /// object each wave (a chain is as many waves as it is long) counts
    /// n² here, thousands of times the bound.
    #[test]
    fn the_work_on_a_chain_or_a_cycle_is_linear_like_a_fan_out() {
        let n = 3000;
        let bound = 20 * n as u64;
        for policy in [Policy::Foreground, Policy::Background, Policy::Orphan] {
            let (fan, fan_work) = counted(&shape(n, false, false), policy);
            assert!(fan_work <= bound, "{policy} fan-out: {fan_work}");
            for cycle in [false, true] {
                let (plan, work) = counted(&shape(n, true, cycle), policy);
                // (An orphan delete of a chain stops at the first link.)
                if policy != Policy::Orphan {
                    assert_eq!(plan.entries.len(), fan.entries.len());
                }
                assert!(
                    work <= bound && work <= 2 * fan_work,
                    "{policy} {}: {work} items looked at for {n} objects (fan-out: {fan_work})",
                    if cycle { "cycle" } else { "chain" }
                );
            }
        }
    }

    /// A Background delete of a chain's root: one wave per link, numbered
    /// from the root's dependent on; a Foreground one the other way round.
    #[test]
    fn a_chain_goes_one_wave_a_link() {
        let n = 50;
        let graph = shape(n, true, false);
        let wave_of = |plan: &Plan, name: &str| {
            plan.entries
                .iter()
                .find(|e| e.object.name() == name)
                .map(|e| e.outcome.clone())
        };
        let (bg, _) = counted(&graph, Policy::Background);
        for i in 0..n {
            let wave = u32::try_from(i).expect("small");
            assert_eq!(
                wave_of(&bg, &format!("cm-{i:06}")),
                Some(Outcome::Deleted { wave })
            );
        }
        let (fg, _) = counted(&graph, Policy::Foreground);
        assert_eq!(fg.entries.len(), n);
        let last = u32::try_from(n - 1).expect("small");
        assert_eq!(
            wave_of(&fg, "cm-000000"),
            Some(Outcome::Deleted { wave: last })
        );
        assert_eq!(
            wave_of(&fg, &format!("cm-{:06}", n - 1)),
            Some(Outcome::Deleted { wave: 1 })
        );
    }
}
