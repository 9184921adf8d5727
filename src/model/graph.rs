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
use bulk::Bulk;
pub use bulk::Names;
pub use few::ControllersSeen;
use few::{Few, is_node, is_workload};
use ordered::Ordered;
use uid_set::UidSet;

mod bulk;
mod by_address;
mod few;
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

/// `objects` in the order they lie in memory ([`OwnershipGraph::in_memory_order`]).
pub fn in_memory_order<'a>(objects: impl Iterator<Item = &'a Arc<Object>>) -> Vec<&'a Arc<Object>> {
    by_address::sort(objects.map(|o| (Arc::as_ptr(o) as usize, o)).collect())
}

/// The parts an object is found by name with; no namespace and an empty
/// one are the same.
type NameParts<'a> = (&'a str, &'a str, &'a str, &'a str);

/// Where `obj`'s names lead in the index by name: to the object found by
/// them, or to the slot for one.
fn name_entry<'t>(
    by_name: &'t mut HashTable<Arc<Object>>,
    hasher: &Hasher,
    obj: &Object,
) -> hashbrown::hash_table::Entry<'t, Arc<Object>> {
    let parts = name_parts(obj);
    by_name.entry(
        hasher.hash_one(parts),
        |o| name_parts(o) == parts,
        |o| hasher.hash_one(name_parts(o)),
    )
}

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
    /// name only, and whether its uid is taken is answered by `end_bulk`;
    /// while the names are apart ([`OwnershipGraph::names_apart`]), not
    /// even by its name, and whether that is taken is answered by
    /// [`OwnershipGraph::names_back`].
    ///
    /// # Errors
    /// What another object already has, the object unstored.
    pub fn insert_new(&mut self, obj: Arc<Object>) -> Result<(), Taken> {
        debug_assert!(
            obj.kind.is_empty() || self.kinds.get(obj.group(), &obj.kind).is_some(),
            "insert_new: the kind of {} is not known",
            obj.kind
        );
        if let Some(bulk) = &mut self.bulk
            && bulk.names_apart
        {
            bulk.add(obj);
            return Ok(());
        }
        let name_slot = match name_entry(&mut self.by_name, &self.hasher, &obj) {
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
        match name_entry(by_name, hasher, obj) {
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
