//! The ownership graph: objects indexed by uid and by name, with the reverse
//! index of owner references, kept incrementally from upserts and removals.
//!
//! Edges are never stored as resolved: whether a reference resolves is
//! answered on demand by [`OwnershipGraph::classify`], so that an owner that
//! appears, disappears or is recreated under the same name changes every
//! answer at once.

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;

use serde::{Deserialize, Serialize};

use super::kinds::KindTable;
use super::object::{Object, OwnerReference, Uid, group_of};
use ordered::Ordered;
use uid_set::UidSet;

mod ordered;
mod uid_set;

/// What one owner reference points at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum RefStatus {
    /// The owner exists: same kind, name, scope and uid.
    Resolves { owner: Uid },
    /// No object of that kind and name where the reference points.
    OwnerAbsent,
    /// An object of that kind and name exists with another uid: the owner
    /// was deleted and recreated; the reference counts as dangling (R32).
    UidMismatch { found: Uid },
    /// A namespaced owner with that uid lives in another namespace; owners
    /// are only looked up in the dependent's namespace (R7a), so this is
    /// dangling.
    CrossNamespace { owner_namespace: String },
    /// A cluster-scoped dependent naming a namespaced kind: the garbage
    /// collector never resolves it and never deletes the dependent (R7d).
    Unresolvable,
    /// A kind the server does not know (e.g. an uninstalled CRD): the
    /// garbage collector retries and keeps the dependent.
    UnknownKind,
    /// The owner's kind could not be listed (forbidden, or the list
    /// failed): whether it exists is not known, so nothing is concluded.
    Unverified { resource: String, reason: String },
    /// An apiVersion the server does not serve (`apps/v1beta1`): the
    /// garbage collector cannot map it, retries forever, and never deletes
    /// the dependent nor removes the reference (R32).
    Unmappable { api_version: String },
}

impl RefStatus {
    #[must_use]
    pub fn resolves(&self) -> bool {
        matches!(self, RefStatus::Resolves { .. })
    }

    /// Dangling in the garbage collector's sense: it will treat the owner as
    /// gone.
    #[must_use]
    pub fn is_dangling(&self) -> bool {
        matches!(
            self,
            RefStatus::OwnerAbsent
                | RefStatus::UidMismatch { .. }
                | RefStatus::CrossNamespace { .. }
        )
    }

    /// A short label for badges and text output.
    #[must_use]
    pub fn label(&self) -> &'static str {
        match self {
            RefStatus::Resolves { .. } => "resolves",
            RefStatus::OwnerAbsent => "owner-gone",
            RefStatus::UidMismatch { .. } => "uid-mismatch",
            RefStatus::CrossNamespace { .. } => "cross-namespace",
            RefStatus::Unresolvable => "unresolvable",
            RefStatus::UnknownKind => "unknown-kind",
            RefStatus::Unverified { .. } => "unverified",
            RefStatus::Unmappable { .. } => "unmappable",
        }
    }
}

/// The hasher of the graph's indexes: foldhash (already in the tree through
/// hashbrown) instead of SipHash, whose cost on uids and names was a tenth
/// of the deletion preview at 100k objects. Seeded per process.
type Hasher = foldhash::fast::RandomState;

/// From how many objects added in bulk their owners are indexed on a
/// thread of their own (every bulk in the tests, so that both ways run).
const BULK_APART_FROM: usize = if cfg!(test) { 2 } else { 20_000 };

/// Objects, their names and who refers to whom.
#[derive(Clone, Debug, Default)]
pub struct OwnershipGraph {
    kinds: KindTable,
    /// In uid order, so that whatever walks every object (the simulator's
    /// controllers) does so in the same order every run. Shared: the
    /// simulator's store, its change log and the UI's mirror hold the same
    /// copy of an object (a change replaces it, never edits it in place).
    /// Each object is its own key: a copy of every uid as the key was an
    /// allocation per object and three times the room in the tree's nodes
    /// (about 60 bytes an object, 19 MB at 300k); beside it, the first
    /// bytes of its uid, which order it without reading it.
    objects: BTreeSet<Ordered>,
    /// The same objects found by uid with one hash, not a walk down the
    /// ordered index comparing uids (the simulator's controllers and
    /// garbage collector look objects up by uid at every step: those
    /// comparisons were 3% of `simulate` on a 100k List). Keyed by each
    /// object's own uid, as `by_name` is by its names.
    by_uid: HashTable<Arc<Object>>,
    /// The object of each (group, kind, namespace, name), keyed by those
    /// parts of the object itself: a lookup hashes borrowed parts, with no
    /// key to build, and finds the object without a second lookup by uid
    /// (resolving every owner reference of a 100k-object cascade did both).
    by_name: HashTable<Arc<Object>>,
    hasher: Hasher,
    /// referenced uid -> the objects with a reference to it, in uid order
    /// The referring objects themselves are kept, so that a walk down a
    /// cascade (the diagnosis, the preview) does not look each one up
    /// again among every object.
    referrers: HashMap<Uid, UidSet, Hasher>,
    /// Objects added since [`OwnershipGraph::begin_bulk`], in the order
    /// added: found by name already, by uid and by their owners once
    /// [`OwnershipGraph::end_bulk`] has put them in those indexes at once.
    bulk: Option<Bulk>,
    /// Objects of a few kinds, found without a scan.
    few: Few,
}

/// Two graphs are equal when they hold equal objects of the same kinds:
/// everything else they keep is found from those.
impl PartialEq for OwnershipGraph {
    fn eq(&self, other: &Self) -> bool {
        // The whole objects, not only their uids (as the set compares).
        self.kinds == other.kinds
            && self.objects.len() == other.objects.len()
            && self
                .objects
                .iter()
                .zip(&other.objects)
                .all(|(a, b)| a.obj == b.obj)
    }
}

/// Objects of a few kinds, kept track of as they are stored and removed.
#[derive(Clone, Debug, Default)]
struct Few {
    /// The Node objects stored: whether nodes are in view at all (a pod
    /// bound to a node that is not there then means the node is gone, R77;
    /// with none, nodes are simply not part of this view), and the cloud
    /// that runs them.
    nodes: BTreeSet<Uid>,
    /// The Deployments, StatefulSets and DaemonSets stored: where a
    /// finalizer's controller is looked for (STUCK-CAUSES C1), with no scan
    /// of every object when a Terminating object is selected.
    workloads: BTreeSet<Uid>,
    /// The admission webhook configurations stored, by uid: few, and read
    /// for every request the simulated API server admits.
    webhook_configurations: BTreeSet<Uid>,
    /// The uid of an Event's involved object -> the Events about it (a
    /// controller's warnings on a stuck object, STUCK-CAUSES C2), the
    /// Events themselves: no uid copied per Event, none looked up again.
    /// Made at the first question about them (or before a bulk load that
    /// is to build it with the other indexes, [`OwnershipGraph::index_events`]),
    /// then kept with every change: `tree`, `plan` and `simulate` never
    /// ask, and at 300k objects (144k Events) it was 60 ms of their CPU,
    /// 35 ms of the simulator's start.
    events: std::sync::OnceLock<HashMap<Uid, UidSet, Hasher>>,
    /// The workloads and the Nodes' clouds, as [`OwnershipGraph::controllers_seen`]
    /// gives them, kept from one look until a workload or a Node changes:
    /// the diagnosis of every Terminating object selected looks at them,
    /// and a look at tens of thousands of workloads was most of a key at
    /// 1M objects.
    seen: std::sync::OnceLock<Arc<ControllersSeen>>,
}

/// The Deployments, StatefulSets and DaemonSets stored, and the cloud
/// providers the Nodes name: where a finalizer's controller is looked for.
#[derive(Debug, Default)]
pub struct ControllersSeen {
    pub workloads: Vec<Arc<Object>>,
    pub providers: Vec<String>,
}

impl Few {
    fn add(&mut self, o: &Arc<Object>) {
        self.add_kinds(o);
        if let Some(events) = self.events.get_mut() {
            Self::add_event(events, o);
        }
    }

    /// Whether [`Few::add_kinds`] keeps the object.
    fn keeps(o: &Object) -> bool {
        is_node(o) || is_workload(o) || super::webhooks::is_configuration(o)
    }

    /// [`Few::add`] but for the index of Events.
    fn add_kinds(&mut self, o: &Arc<Object>) {
        if is_node(o) || is_workload(o) {
            self.seen = std::sync::OnceLock::new();
        }
        if is_node(o) {
            self.nodes.insert(o.metadata.uid.clone());
        }
        if is_workload(o) {
            self.workloads.insert(o.metadata.uid.clone());
        }
        if super::webhooks::is_configuration(o) {
            self.webhook_configurations.insert(o.metadata.uid.clone());
        }
    }

    /// An Event, indexed by the uid of the object it is about.
    fn add_event(events: &mut HashMap<Uid, UidSet, Hasher>, o: &Arc<Object>) {
        if super::events::is_event(o) {
            Self::add_known_event(events, o);
        }
    }

    /// [`Few::add_event`] of an object already known to be an Event.
    fn add_known_event(events: &mut HashMap<Uid, UidSet, Hasher>, o: &Arc<Object>) {
        if let Some(about) = super::events::event_involved_uid(o) {
            events
                .entry(about)
                .and_modify(|set| set.replace(Arc::clone(o)))
                .or_insert_with(|| UidSet::one(Arc::clone(o)));
        }
    }

    fn remove(&mut self, o: &Object) {
        if is_node(o) || is_workload(o) {
            self.seen = std::sync::OnceLock::new();
        }
        if is_node(o) {
            self.nodes.remove(o.uid());
        }
        if is_workload(o) {
            self.workloads.remove(o.uid());
        }
        if super::webhooks::is_configuration(o) {
            self.webhook_configurations.remove(o.uid());
        }
        if let Some(events) = self.events.get_mut()
            && let Some(about) = super::events::involved_uid(o)
            && let Some(set) = events.get_mut(&about)
        {
            set.remove(o.uid());
            if set.is_empty() {
                events.remove(&about);
            }
        }
    }
}

/// A Node (core group), counted as it is indexed.
fn is_node(o: &Object) -> bool {
    o.kind == "Node" && o.api_version == "v1"
}

/// A Deployment, StatefulSet or DaemonSet (`apps`).
fn is_workload(o: &Object) -> bool {
    matches!(o.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet") && o.group() == "apps"
}

/// The objects added in bulk, in the order added, with what their places
/// in the uid index are made of, taken when each was added (while it was
/// in the cache).
#[derive(Clone, Debug, Default)]
struct Bulk {
    /// Each object, its own key in the index by uid.
    added: Vec<Arc<Object>>,
    /// What they are sorted by: small, so that the sort moves 24 bytes an
    /// object (it moved each object's whole entry, 64 bytes: an eighth of
    /// the load's first-level cache misses) and seldom follows a pointer.
    places: Vec<Place>,
    /// Which of them (their places in `added`) hold owner references, are
    /// Events, and are of the few kinds [`Few`] keeps: told as each was
    /// added, in the cache, so that [`OwnershipGraph::end_bulk`] reads
    /// only those again for those indexes, not every object.
    owned: Vec<usize>,
    events: Vec<usize>,
    few: Vec<usize>,
}

impl Bulk {
    fn add(&mut self, obj: Arc<Object>) {
        let at = self.added.len();
        self.places.push(place_of(obj.uid(), at));
        if !obj.metadata.owner_references.is_empty() {
            self.owned.push(at);
        }
        if super::events::is_event(&obj) {
            self.events.push(at);
        }
        if Few::keeps(&obj) {
            self.few.push(at);
        }
        self.added.push(obj);
    }
}

/// `objects` in the order they lie in memory ([`OwnershipGraph::in_memory_order`]).
pub fn in_memory_order<'a>(objects: impl Iterator<Item = &'a Arc<Object>>) -> Vec<&'a Arc<Object>> {
    let mut objects: Vec<&Arc<Object>> = objects.collect();
    objects.sort_unstable_by_key(|o| Arc::as_ptr(o) as usize);
    objects
}

/// The first 16 bytes of a uid, in two halves compared as numbers, and
/// the object's place among those added.
#[derive(Clone, Copy, Debug)]
struct Place {
    prefix: ordered::Prefix,
    at: usize,
}

fn place_of(uid: &str, at: usize) -> Place {
    Place {
        prefix: ordered::prefix_of(uid),
        at,
    }
}

/// The parts an object is found by name with; no namespace and an empty
/// one are the same.
type NameParts<'a> = (&'a str, &'a str, &'a str, &'a str);

/// Why [`OwnershipGraph::insert_new`] refused an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Another object has its uid.
    Uid,
    /// Another object has its kind, namespace and name; whether that one
    /// is being deleted.
    Name { terminating: bool },
}

fn name_parts(o: &Object) -> NameParts<'_> {
    (
        o.group(),
        &o.kind,
        o.namespace().unwrap_or_default(),
        o.name(),
    )
}

impl OwnershipGraph {
    #[must_use]
    pub fn new(kinds: KindTable) -> Self {
        OwnershipGraph {
            kinds,
            ..OwnershipGraph::default()
        }
    }

    #[must_use]
    pub fn kinds(&self) -> &KindTable {
        &self.kinds
    }

    /// Only the objects a label selector matches (`-l app=web`), with the
    /// selection marked in the kinds: an owner outside it is unverified,
    /// never gone, and counts drawn from it are lower bounds.
    #[must_use]
    pub fn select(&self, selector: &super::selector::Selector, typed: &str) -> OwnershipGraph {
        let mut kinds = self.kinds.clone();
        kinds.mark_selection(typed);
        let mut g = OwnershipGraph::new(kinds);
        for o in self
            .objects()
            .filter(|o| selector.matches(&o.metadata.labels))
        {
            g.upsert(o.clone());
        }
        g
    }

    pub fn kinds_mut(&mut self) -> &mut KindTable {
        &mut self.kinds
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Whether any Node object is stored: nodes are part of this view (a
    /// whole-cluster snapshot, a scenario that models them, a live view
    /// that read the nodes its pods use).
    #[must_use]
    pub fn has_nodes(&self) -> bool {
        !self.few.nodes.is_empty()
    }

    /// The Node objects stored, in uid order.
    pub fn nodes(&self) -> impl Iterator<Item = &Object> {
        self.few
            .nodes
            .iter()
            .filter_map(|uid| self.get(uid))
            .filter(|o| is_node(o))
    }

    /// The Deployments, StatefulSets and DaemonSets stored, in uid order.
    pub fn workloads(&self) -> impl Iterator<Item = &Object> {
        self.few
            .workloads
            .iter()
            .filter_map(|uid| self.get(uid))
            .filter(|o| is_workload(o))
    }

    /// The workloads and the clouds the Nodes name, looked at once until
    /// one of them changes.
    #[must_use]
    pub fn controllers_seen(&self) -> &ControllersSeen {
        self.few.seen.get_or_init(|| {
            Arc::new(ControllersSeen {
                workloads: self
                    .few
                    .workloads
                    .iter()
                    .filter_map(|uid| self.get_shared(uid))
                    .filter(|o| is_workload(o))
                    .cloned()
                    .collect(),
                providers: super::cloud::node_providers(self),
            })
        })
    }

    /// The admission webhook configurations stored (validating and
    /// mutating), in uid order.
    pub fn webhook_configurations(&self) -> impl Iterator<Item = &Object> {
        self.few
            .webhook_configurations
            .iter()
            .filter_map(|uid| self.get(uid))
    }

    /// Makes the Events' index now if it was not made yet (it is made at
    /// the first question otherwise): for a graph that will be asked soon
    /// and is about to take a bulk load, whose indexes are built at once
    /// on the machine's cores.
    pub fn index_events(&mut self) {
        self.events();
    }

    /// The Events' index, made now if it was not yet.
    fn events(&self) -> &HashMap<Uid, UidSet, Hasher> {
        self.few.events.get_or_init(|| {
            let mut events = HashMap::default();
            for o in self.in_memory_order() {
                Few::add_event(&mut events, o);
            }
            events
        })
    }

    /// The Events stored whose involved object is `uid`, in uid order.
    pub fn events_about(&self, uid: &str) -> impl Iterator<Item = &Object> {
        self.events().get(uid).into_iter().flatten().map(|e| &**e)
    }

    /// Room for `additional` more objects in the indexes by uid and by
    /// name, so that a load of many does not rehash them (each object read
    /// again) as they grow.
    pub fn reserve(&mut self, additional: usize) {
        let hasher = &self.hasher;
        self.by_uid
            .reserve(additional, |o| hasher.hash_one(o.uid()));
        self.by_name
            .reserve(additional, |o| hasher.hash_one(name_parts(o)));
    }

    /// Room for `additional` more owners named by references (a load of a
    /// whole cluster, where most objects are owners too).
    pub fn reserve_owners(&mut self, additional: usize) {
        self.referrers.reserve(additional);
    }

    /// The graph of `objects`, as a list or a snapshot brings them: the
    /// same graph as [`OwnershipGraph::upsert`] of each in turn (a later
    /// copy of a uid, or of a name, is the one kept, or found by the name),
    /// built in bulk: the objects put in the index by uid once, in uid
    /// order, not each at a random place in it (upserting a 300k-object
    /// snapshot one by one was a fifth of the UI's load).
    #[must_use]
    pub fn from_objects(kinds: KindTable, objects: &[Arc<Object>]) -> Self {
        let mut g = OwnershipGraph::new(kinds);
        g.reserve(objects.len());
        g.begin_bulk(objects.len());
        // A name taken twice in one list (a live list that saw an object
        // deleted and made again under a new uid): the later copy is
        // upserted after, to be the one found by the name, as in turn.
        let mut later = Vec::new();
        for (at, o) in objects.iter().enumerate() {
            g.kinds
                .learn(&o.api_version, &o.kind, o.namespace().is_some());
            if g.insert_new(Arc::clone(o)).is_err() {
                later.push(at);
            }
        }
        // A uid twice (the later copy replaces the earlier, whatever its
        // name), or a copy set aside for its name with another copy of its
        // uid after it: in turn, each copy replacing the one before.
        if g.end_bulk().is_err() || Self::set_aside_too_soon(objects, &later) {
            let mut g = OwnershipGraph::new(g.kinds);
            for o in objects {
                g.upsert(Arc::clone(o));
            }
            return g;
        }
        for at in later {
            g.upsert(Arc::clone(&objects[at]));
        }
        g
    }

    /// Whether an object set aside (at a place in `later`) has another
    /// copy of its uid after it in `objects`.
    fn set_aside_too_soon(objects: &[Arc<Object>], later: &[usize]) -> bool {
        if later.is_empty() {
            return false;
        }
        let last: HashMap<&str, usize> = objects
            .iter()
            .enumerate()
            .map(|(at, o)| (o.uid(), at))
            .collect();
        later
            .iter()
            .any(|&at| last.get(objects[at].uid()).is_some_and(|&l| l > at))
    }

    /// Adds or replaces an object (by uid).
    pub fn upsert(&mut self, obj: impl Into<Arc<Object>>) {
        let obj: Arc<Object> = obj.into();
        if let Some(Ordered { obj: old, .. }) = self.objects.take(obj.uid()) {
            self.unindex(&old);
        }
        self.kinds
            .learn(&obj.api_version, &obj.kind, obj.namespace().is_some());
        Self::index_new(&mut self.by_name, &mut self.referrers, &self.hasher, &obj);
        self.few.add(&obj);
        self.index_uid(&obj);
        self.objects.insert(Ordered::new(obj));
    }

    /// Adds an object whose kind, namespace and name no stored object has,
    /// and whose uid is not stored yet: one search of the name index (it
    /// both answers whether the name is taken and makes the room) and one
    /// of the uid index (an upsert searches each twice), without learning
    /// its kind: the caller (the simulated API server) has settled it.
    ///
    /// Between [`OwnershipGraph::begin_bulk`] and
    /// [`OwnershipGraph::end_bulk`] the object is kept aside, found by its
    /// name only, and whether its uid is taken is answered by `end_bulk`.
    ///
    /// # Errors
    /// What another object already has, the object unstored.
    pub fn insert_new(&mut self, obj: Arc<Object>) -> Result<(), Taken> {
        debug_assert!(
            obj.kind.is_empty() || self.kinds.get(obj.group(), &obj.kind).is_some(),
            "insert_new: the kind of {} is not known",
            obj.kind
        );
        let parts = name_parts(&obj);
        let hash = self.hasher.hash_one(parts);
        let hasher = &self.hasher;
        let name_slot = match self.by_name.entry(
            hash,
            |o| name_parts(o) == parts,
            |o| hasher.hash_one(name_parts(o)),
        ) {
            hashbrown::hash_table::Entry::Vacant(slot) => slot,
            hashbrown::hash_table::Entry::Occupied(named) => {
                return Err(Taken::Name {
                    terminating: named.get().is_terminating(),
                });
            }
        };
        if let Some(bulk) = &mut self.bulk {
            name_slot.insert(Arc::clone(&obj));
            bulk.add(obj);
            return Ok(());
        }
        // Whether the uid is taken, from the index by uid: one hash, not
        // a walk down the ordered index.
        let hash = self.hasher.hash_one(obj.uid());
        if self.by_uid.find(hash, |o| o.uid() == obj.uid()).is_some() {
            return Err(Taken::Uid);
        }
        name_slot.insert(Arc::clone(&obj));
        Self::index_owners(&mut self.referrers, &obj);
        self.few.add(&obj);
        let hasher = &self.hasher;
        self.by_uid
            .insert_unique(hash, Arc::clone(&obj), |o| hasher.hash_one(o.uid()));
        self.objects.insert(Ordered::new(obj));
        Ok(())
    }

    /// A new object found by its name and by its owners.
    fn index_new(
        by_name: &mut HashTable<Arc<Object>>,
        referrers: &mut HashMap<Uid, UidSet, Hasher>,
        hasher: &Hasher,
        obj: &Arc<Object>,
    ) {
        Self::index_name_in(by_name, hasher, obj);
        Self::index_owners(referrers, obj);
    }

    /// A new object found by its owners.
    fn index_owners(referrers: &mut HashMap<Uid, UidSet, Hasher>, obj: &Arc<Object>) {
        for r in &obj.metadata.owner_references {
            match referrers.get_mut(r.uid.as_str()) {
                // The latest copy replaces an earlier one of the same uid.
                Some(set) => set.replace(Arc::clone(obj)),
                None => {
                    referrers.insert(r.uid.clone(), UidSet::one(Arc::clone(obj)));
                }
            }
        }
    }

    /// From now on [`OwnershipGraph::insert_new`] keeps the objects aside
    /// and [`OwnershipGraph::end_bulk`] puts them in uid order all at once:
    /// a load of many objects in no particular uid order (a real cluster's
    /// uids are random) inserted them one by one into the ordered index,
    /// each a walk to a random place in it, a fifth of the load at 100k.
    /// Until `end_bulk`, only finding by name sees them.
    pub fn begin_bulk(&mut self, expected: usize) {
        self.bulk.get_or_insert_with(|| Bulk {
            added: Vec::with_capacity(expected),
            places: Vec::with_capacity(expected),
            ..Bulk::default()
        });
    }

    /// Puts the objects added since [`OwnershipGraph::begin_bulk`] in the
    /// index by uid.
    ///
    /// # Errors
    /// The first object, in the order added, whose uid another object
    /// already has (stored before, or added earlier), with its place among
    /// those added; none of those added is then in the graph.
    pub fn end_bulk(&mut self) -> Result<(), (usize, Arc<Object>)> {
        let Some(Bulk {
            added,
            mut places,
            owned,
            events: events_at,
            few: few_at,
        }) = self.bulk.take()
        else {
            return Ok(());
        };
        // In uid order: by the prefix held in each place, then by the whole
        // uid (seldom: only when two prefixes are the same), then by place.
        let uid = |p: &Place| added[p.at].uid();
        places.sort_unstable_by(|a, b| {
            a.prefix
                .cmp(&b.prefix)
                .then_with(|| uid(a).cmp(uid(b)))
                .then(a.at.cmp(&b.at))
        });
        // A uid taken twice: the later of the two is the one refused.
        let mut taken: Option<usize> = None;
        for pair in places.windows(2) {
            if pair[0].prefix == pair[1].prefix
                && uid(&pair[0]) == uid(&pair[1])
                && taken.is_none_or(|t| pair[1].at < t)
            {
                taken = Some(pair[1].at);
            }
        }
        if !self.objects.is_empty() {
            for (at, o) in added.iter().enumerate() {
                if taken.is_none_or(|t| at < t) && self.get_shared(o.uid()).is_some() {
                    taken = Some(at);
                }
            }
        }
        if let Some(t) = taken {
            let refused = (t, Arc::clone(&added[t]));
            // Only their names were indexed.
            for obj in &added {
                self.unindex_name(obj);
            }
            return Err(refused);
        }
        // Each uid is new: checked above. The index by uid (with the few
        // kinds'), the one by owner and the Events' built at once, when
        // there are many: they touch nothing in common. The Events' is
        // kept here only once it was made: a load's first one is made at
        // the first question about an Event.
        let (hasher, new) = (&self.hasher, &added);
        let (uids, referrers, few) = (&mut self.by_uid, &mut self.referrers, &mut self.few);
        // The Events' index only if it was made already (see `Few::events`).
        let mut events = few.events.take();
        // The few kinds' with the index by uid: the index by owner is the
        // longer of the two. Each reads again only the objects it indexes,
        // told apart as they were added. Reading every object's kind again
        // (a cache miss each) took the index by uid and the few kinds' 30
        // ms at 300k objects, 25 now; at 1M objects with 480k Events, the
        // Events' index (the longest of the three) 260-280 ms, 226-257 now,
        // with each Event's kind not read a second time.
        let mut by_uid = move || {
            uids.reserve(new.len(), |o| hasher.hash_one(o.uid()));
            for o in new {
                uids.insert_unique(hasher.hash_one(o.uid()), Arc::clone(o), |o| {
                    hasher.hash_one(o.uid())
                });
            }
            for &at in &few_at {
                few.add_kinds(&new[at]);
            }
        };
        let mut by_owner = move || {
            for &at in &owned {
                Self::index_owners(referrers, &new[at]);
            }
        };
        let mut by_event = || {
            if let Some(events) = events.as_mut() {
                for &at in &events_at {
                    Few::add_known_event(events, &new[at]);
                }
            }
        };
        if new.len() >= BULK_APART_FROM {
            crate::threads::both(by_uid, || crate::threads::both(by_owner, by_event));
        } else {
            by_uid();
            by_owner();
            by_event();
        }
        if let Some(events) = events {
            self.few.events = std::sync::OnceLock::from(events);
        }
        // The ordered index, built from sorted entries in one pass
        // (`collect` finds them sorted), not by a search per object. Each
        // object moved into it, not shared again: sharing raises a count
        // in each object, read from memory in uid order, which is no
        // order in memory; and compared by the prefix beside it, which
        // its place already holds. At 300k objects this index took 59 ms
        // of a 0.65 s `tree`, on a thread of its own while the others were
        // built, and they waited for it; 4-5 ms now, after them. Keyed by
        // uid: what `spec` and `status` read lazily is not part of it.
        let mut added: Vec<Option<Arc<Object>>> = added.into_iter().map(Some).collect();
        #[allow(clippy::mutable_key_type)]
        let mut sorted: BTreeSet<Ordered> = places
            .iter()
            .filter_map(|p| Some(Ordered::with_prefix(p.prefix, added[p.at].take()?)))
            .collect();
        self.objects.append(&mut sorted);
        Ok(())
    }

    /// Removes an object; returns it if it was there.
    pub fn remove(&mut self, uid: &str) -> Option<Arc<Object>> {
        let old = self.objects.take(uid)?.obj;
        if let Ok(e) = self
            .by_uid
            .find_entry(self.hasher.hash_one(uid), |o| o.uid() == uid)
        {
            e.remove();
        }
        self.unindex(&old);
        Some(old)
    }

    /// The object is the one found by its uid from now on.
    fn index_uid(&mut self, obj: &Arc<Object>) {
        let uid = obj.uid();
        let hasher = &self.hasher;
        match self.by_uid.entry(
            hasher.hash_one(uid),
            |o| o.uid() == uid,
            |o| hasher.hash_one(o.uid()),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = Arc::clone(obj),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(Arc::clone(obj));
            }
        }
    }

    /// The object is the one found by its name from now on.
    fn index_name_in(by_name: &mut HashTable<Arc<Object>>, hasher: &Hasher, obj: &Arc<Object>) {
        let parts = name_parts(obj);
        let hash = hasher.hash_one(parts);
        match by_name.entry(
            hash,
            |o| name_parts(o) == parts,
            |o| hasher.hash_one(name_parts(o)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = Arc::clone(obj),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(Arc::clone(obj));
            }
        }
    }

    fn unindex(&mut self, old: &Object) {
        self.few.remove(old);
        self.unindex_name(old);
        for r in &old.metadata.owner_references {
            if let Some(set) = self.referrers.get_mut(&r.uid) {
                set.remove(old.uid());
                if set.is_empty() {
                    self.referrers.remove(&r.uid);
                }
            }
        }
    }

    /// The object is no longer found by its name.
    fn unindex_name(&mut self, old: &Object) {
        let parts = name_parts(old);
        let hash = self.hasher.hash_one(parts);
        if let Ok(e) = self
            .by_name
            .find_entry(hash, |o| name_parts(o) == parts && o.uid() == old.uid())
        {
            e.remove();
        }
    }

    #[must_use]
    pub fn get(&self, uid: &str) -> Option<&Object> {
        self.get_shared(uid).map(|o| &**o)
    }

    /// The stored copy itself, to share it instead of copying it.
    #[must_use]
    pub fn get_shared(&self, uid: &str) -> Option<&Arc<Object>> {
        self.by_uid
            .find(self.hasher.hash_one(uid), |o| o.uid() == uid)
    }

    /// Finds an object by kind (group + kind), namespace and name.
    #[must_use]
    pub fn find(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Object> {
        self.find_shared(group, kind, namespace, name).map(|o| &**o)
    }

    /// [`Self::find`], the stored copy itself, to share it.
    #[must_use]
    pub fn find_shared(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Arc<Object>> {
        let parts = (group, kind, namespace.unwrap_or_default(), name);
        self.by_name
            .find(self.hasher.hash_one(parts), |o| name_parts(o) == parts)
    }

    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.objects.iter().map(|o| &*o.obj)
    }

    /// Every stored copy in the order the objects lie in memory: the order
    /// a snapshot was read in, a namespace's objects together and owners
    /// near their dependents. A pass over every object that reads each
    /// one (and the owner found for it) goes this way, not in uid order:
    /// a snapshot's uids are random, and in their order each object was a
    /// cache miss of its own (at 300k objects, the forest's links took 90
    /// ms in uid order and 56 in this one; at 1M, the UI's forest index
    /// 1.5 s more). For a pass whose result does not depend on the order.
    #[must_use]
    pub fn in_memory_order(&self) -> Vec<&Arc<Object>> {
        in_memory_order(self.shared_objects())
    }

    /// Every stored copy, in uid order, to share them instead of copying.
    pub fn shared_objects(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.objects.iter().map(|o| &o.obj)
    }

    /// Where `r`, a reference held by `dependent`, points.
    #[must_use]
    pub fn classify(&self, dependent: &Object, r: &OwnerReference) -> RefStatus {
        match self.resolve(dependent, r) {
            Ok(_) => RefStatus::Resolves {
                owner: r.uid.clone(),
            },
            Err(status) => status,
        }
    }

    /// The owner `r`, a reference held by `dependent`, resolves to; else
    /// where it points ([`Self::classify`] without copying the uid of an
    /// owner that resolves, which is what a walk down a cascade meets).
    ///
    /// # Errors
    /// The reference does not resolve: its status, never
    /// [`RefStatus::Resolves`].
    pub fn resolve(&self, dependent: &Object, r: &OwnerReference) -> Result<&Object, RefStatus> {
        let group = group_of(&r.api_version);
        if !self.kinds.maps(&r.api_version, &r.kind) {
            return Err(RefStatus::Unmappable {
                api_version: r.api_version.clone(),
            });
        }
        let Some(namespaced) = self.kinds.namespaced(group, &r.kind) else {
            return Err(RefStatus::UnknownKind);
        };
        if namespaced && dependent.namespace().is_none() {
            return Err(RefStatus::Unresolvable);
        }
        let ns = if namespaced {
            dependent.namespace()
        } else {
            None
        };
        // An owner of a kind not seen now (not listable, not synced) may
        // exist unseen; a dependent of such a kind may be stale (gone, or
        // pointing elsewhere by now): neither is a conclusion.
        let unlisted = self
            .kinds
            .unlisted_kind(group, &r.kind)
            .or_else(|| self.kinds.unlisted_kind(dependent.group(), &dependent.kind));
        if let Some(found) = self.find(group, &r.kind, ns, &r.name) {
            return if found.uid() == r.uid {
                Ok(found)
            } else if let Some(u) = unlisted {
                // What is seen of a kind not synced may be an older
                // object of that name: the owner may exist all the same.
                Err(RefStatus::Unverified {
                    resource: u.resource.clone(),
                    reason: u.reason.clone(),
                })
            } else {
                Err(RefStatus::UidMismatch {
                    found: found.uid().to_string(),
                })
            };
        }
        if let Some(u) = unlisted {
            return Err(RefStatus::Unverified {
                resource: u.resource.clone(),
                reason: u.reason.clone(),
            });
        }
        if namespaced
            && let Some(other) = self.get_shared(&r.uid)
            && other.group() == group
            && other.kind == r.kind
            && let Some(other_ns) = other.namespace()
        {
            return Err(RefStatus::CrossNamespace {
                owner_namespace: other_ns.to_string(),
            });
        }
        Err(RefStatus::OwnerAbsent)
    }

    /// Each owner reference of `uid` with its status.
    #[must_use]
    pub fn owners(&self, uid: &str) -> Vec<(OwnerReference, RefStatus)> {
        let Some(obj) = self.get_shared(uid) else {
            return Vec::new();
        };
        obj.metadata
            .owner_references
            .iter()
            .map(|r| (r.clone(), self.classify(obj, r)))
            .collect()
    }

    /// The owners `uid` resolves to (deduplicated, in reference order).
    #[must_use]
    pub fn resolved_owners(&self, uid: &str) -> Vec<Uid> {
        let mut out: Vec<Uid> = Vec::new();
        for (_, status) in self.owners(uid) {
            if let RefStatus::Resolves { owner } = status
                && !out.contains(&owner)
            {
                out.push(owner);
            }
        }
        out
    }

    /// Objects holding a reference that resolves to `owner`, with that
    /// reference, sorted by kind, namespace and name.
    #[must_use]
    pub fn dependents(&self, owner: &str) -> Vec<(Uid, OwnerReference)> {
        let Some(set) = self.referrers.get(owner) else {
            return Vec::new();
        };
        let mut out: Vec<(Uid, OwnerReference)> = set
            .iter()
            .filter_map(|dep| {
                dep.metadata
                    .owner_references
                    .iter()
                    .find(|r| r.uid == owner && self.classify(dep, r).resolves())
                    .map(|r| (dep.metadata.uid.clone(), r.clone()))
            })
            .collect();
        out.sort_by(|a, b| self.sort_key(&a.0).cmp(&self.sort_key(&b.0)));
        out
    }

    /// The uids some object holds a reference to, stored or not, in no
    /// particular order.
    pub fn referenced(&self) -> impl Iterator<Item = &Uid> {
        self.referrers
            .iter()
            .filter(|(_, by)| !by.is_empty())
            .map(|(uid, _)| uid)
    }

    /// Uids of objects that hold any reference to `uid`, resolving or not.
    pub fn referrers(&self, uid: &str) -> impl Iterator<Item = &Uid> {
        self.referrers
            .get(uid)
            .into_iter()
            .flatten()
            .map(|o| &o.metadata.uid)
    }

    /// The stored copies of the objects that hold any reference to `uid`,
    /// resolving or not, in uid order, to share them.
    pub fn shared_referrers(&self, uid: &str) -> impl Iterator<Item = &Arc<Object>> {
        self.referrers.get(uid).into_iter().flatten()
    }

    /// The objects that hold any reference to `uid`, resolving or not, in
    /// uid order.
    pub fn referrer_objects(&self, uid: &str) -> impl Iterator<Item = &Object> {
        self.referrers.get(uid).into_iter().flatten().map(|o| &**o)
    }

    /// Whether the object has no resolving owner (a root of the forest).
    #[must_use]
    pub fn is_root(&self, uid: &str) -> bool {
        let Some(obj) = self.get_shared(uid) else {
            return false;
        };
        !obj.metadata
            .owner_references
            .iter()
            .any(|r| self.classify(obj, r).resolves())
    }

    /// Every root, sorted by namespace, kind and name.
    #[must_use]
    pub fn roots(&self) -> Vec<Uid> {
        let mut keyed: Vec<(&str, &str, &str, &str)> = self
            .objects
            .iter()
            .filter(|o| self.is_root(o.obj.uid()))
            .map(|Ordered { obj: o, .. }| {
                (
                    o.namespace().unwrap_or_default(),
                    o.kind.as_str(),
                    o.name(),
                    o.uid(),
                )
            })
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|k| k.3.to_string()).collect()
    }

    /// (namespace, kind, name, uid): the display order, borrowed.
    #[must_use]
    pub fn sort_key<'a>(&'a self, uid: &'a str) -> (&'a str, &'a str, &'a str, &'a str) {
        match self.get_shared(uid) {
            Some(o) => (
                o.namespace().unwrap_or_default(),
                o.kind.as_str(),
                o.name(),
                uid,
            ),
            None => ("", "", "", uid),
        }
    }

    /// Whether any reference of the object fails to resolve.
    #[must_use]
    pub fn has_problem(&self, uid: &str) -> bool {
        self.owners(uid).iter().any(|(_, s)| !s.resolves())
    }
}

#[cfg(test)]
mod tests;
