//! The garbage collector as a state machine: a dependency graph fed by watch
//! changes (the graph builder) and two work queues (attempt to delete,
//! attempt to orphan) whose items are processed against the API server
//! (GC-SEMANTICS sections D-H: R30-R50).
//!
//! The sim feeds every store change to [`GarbageCollector::observe`] and
//! calls [`GarbageCollector::process`] for each queued item; what the GC does
//! to objects goes through the [`ApiServer`] like any other client.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use super::api::{ApiServer, Caller, Change, DeleteOptions, Key, Preconditions};

mod identity;
use crate::model::{FOREGROUND, KindTable, ORPHAN, Object, OwnerReference, Policy, Uid, group_of};
pub use identity::Identity;

/// The GC's maps and sets, keyed by uids and identities: hashed with
/// foldhash (as the ownership graph's indexes) instead of SipHash, which was
/// 7% of a simulated 10k-object cascade. Seeded per process.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The name the GC acts under, in timelines and events.
pub const GC_ACTOR: &str = "garbage-collector";

/// No dependents: one empty set shared by every node that has none (most
/// objects), changed copy-on-write as any node's; an empty set of each
/// node's own was an allocation per object the collector observes.
fn no_dependents() -> Arc<BTreeSet<Uid>> {
    static NONE: std::sync::LazyLock<Arc<BTreeSet<Uid>>> = std::sync::LazyLock::new(Arc::default);
    Arc::clone(&NONE)
}

#[derive(Clone, Debug)]
struct Node {
    identity: Identity,
    /// The object as last observed, shared with the store (not a copy of
    /// its owner references per node); `None` for a virtual node.
    object: Option<Arc<Object>>,
    /// Shared, so that copying a node (each pass works on a copy) does not
    /// copy an owner's 200,000 dependents: that made the graph quadratic
    /// in fan-out. Changed copy-on-write.
    dependents: Arc<BTreeSet<Uid>>,
    being_deleted: bool,
    deleting_dependents: bool,
    observed: bool,
}

/// One queued item.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Work {
    Delete(Uid),
    Orphan(Uid),
}

/// A Warning event the GC raised on an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcEvent {
    pub object: Identity,
    pub reason: String,
    pub message: String,
}

/// What a pass asks of the scheduler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassResult {
    Done,
    /// Requeue after this many milliseconds (errors, unobserved items).
    Retry {
        after_ms: u64,
        reason: String,
    },
}

/// A decision the GC took, for the timeline and for tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcAction {
    pub object: Identity,
    pub action: String,
}

#[derive(Clone, Debug, Default)]
pub struct GarbageCollector {
    nodes: HashMap<Uid, Node>,
    absent: HashSet<Identity>,
    delete_queue: VecDeque<Uid>,
    orphan_queue: VecDeque<Uid>,
    queued: HashSet<Work>,
    failures: HashMap<Work, u32>,
    events: Vec<GcEvent>,
    actions: Vec<GcAction>,
    /// Objects whose changes the GC does not observe (yet): R47 fault mode.
    pub unobserved: HashSet<Uid>,
    caller: Caller,
}

impl Node {
    /// The owner references last observed (none for a virtual node).
    fn owners(&self) -> &[OwnerReference] {
        self.object
            .as_ref()
            .map_or(&[], |o| o.metadata.owner_references.as_slice())
    }
}

enum Classified {
    Solid,
    Dangling,
    Waiting,
}

enum PassError {
    VirtualDeleteEnqueued,
    NamespacedOwnerOfClusterScoped,
    Retry(String),
}

fn is_event_kind(o: &Object) -> bool {
    o.kind == "Event" && (o.group().is_empty() || o.group() == "events.k8s.io")
}

impl GarbageCollector {
    #[must_use]
    pub fn new() -> Self {
        GarbageCollector {
            caller: Caller {
                name: "system:serviceaccount:kube-system:generic-garbage-collector".into(),
                ..Caller::default()
            },
            ..GarbageCollector::default()
        }
    }

    /// Room made at once for the nodes of `objects`, which an initial
    /// list is about to add. Grown a doubling at a time, the map of a
    /// 300k-object list moved every node it held at each doubling, into
    /// fresh pages: 192 of the 334 profile samples of the collector's
    /// first look.
    pub fn reserve_for<'o>(&mut self, objects: impl Iterator<Item = &'o Object>) {
        self.nodes
            .reserve(objects.filter(|o| !is_event_kind(o)).count());
    }

    fn enqueue(&mut self, work: Work) {
        if self.queued.insert(work.clone()) {
            match work {
                Work::Delete(u) => self.delete_queue.push_back(u),
                Work::Orphan(u) => self.orphan_queue.push_back(u),
            }
        }
    }

    fn enqueue_delete(&mut self, uid: &str) {
        self.enqueue(Work::Delete(uid.to_string()));
    }

    /// Puts an item back after its retry delay.
    pub fn requeue(&mut self, work: Work) {
        self.enqueue(work);
    }

    #[must_use]
    pub fn has_work(&self) -> bool {
        !self.queued.is_empty()
    }

    /// Everything queued now, orphan work first; later additions wait for
    /// the next batch.
    pub fn take_batch(&mut self) -> Vec<Work> {
        let mut out: Vec<Work> = self.orphan_queue.drain(..).map(Work::Orphan).collect();
        out.extend(self.delete_queue.drain(..).map(Work::Delete));
        self.queued.clear();
        out
    }

    pub fn take_events(&mut self) -> Vec<GcEvent> {
        std::mem::take(&mut self.events)
    }

    pub fn take_actions(&mut self) -> Vec<GcAction> {
        std::mem::take(&mut self.actions)
    }

    /// Whether the GC's graph holds the object (for tests and diagnosis).
    #[must_use]
    pub fn knows(&self, uid: &str) -> bool {
        self.nodes.get(uid).is_some_and(|n| n.observed)
    }

    /// Whether the object is marked as deleting its dependents.
    #[must_use]
    pub fn is_deleting_dependents(&self, uid: &str) -> bool {
        self.nodes.get(uid).is_some_and(|n| n.deleting_dependents)
    }

    // ---------------------------------------------------------------
    // Graph builder
    // ---------------------------------------------------------------

    /// Feeds one watch change to the graph builder (R30, R31, R35, R8).
    /// It reads nothing of the store but which kinds are namespaced, so
    /// that it can run beside the controllers' handlers (the initial list).
    pub fn observe(&mut self, change: &Change, kinds: &KindTable) {
        let obj = change.object();
        if is_event_kind(obj) || self.unobserved.contains(obj.uid()) {
            return;
        }
        match change {
            Change::Added(o) => self.observe_upsert(None, o, kinds),
            Change::Modified { old, new } => self.observe_upsert(Some(&**old), new, kinds),
            Change::Deleted(o) => self.observe_delete(o, false),
        }
    }

    fn observe_upsert(&mut self, old: Option<&Object>, obj: &Arc<Object>, kinds: &KindTable) {
        let uid = obj.uid().to_string();
        let Some(existing) = self.nodes.get(&uid).cloned() else {
            let node = Node {
                identity: Identity::of(obj),
                object: Some(Arc::clone(obj)),
                dependents: no_dependents(),
                being_deleted: obj.is_terminating(),
                deleting_dependents: obj.is_deleting_dependents(),
                observed: true,
            };
            self.nodes.insert(uid.clone(), node);
            self.add_dependent_to_owners(&uid, &obj.metadata.owner_references, kinds);
            self.process_transitions(old, obj, &uid);
            return;
        };
        let mut node = existing;
        if !node.observed {
            let observed = Identity::of(obj);
            if observed != node.identity {
                let (_, invalid) = self.partition_dependents(&node.dependents, &observed);
                for dep in invalid {
                    let dep_ns = self
                        .nodes
                        .get(&dep)
                        .map(|d| d.identity.namespace().to_string())
                        .unwrap_or_default();
                    if !observed.namespace().is_empty() && dep_ns != observed.namespace() {
                        self.report_invalid_namespace_owner_ref(&dep, observed.uid());
                    }
                    self.enqueue_delete(&dep);
                }
                node.identity = observed;
            }
            node.observed = true;
        }
        let (added, removed, changed) =
            references_diffs(node.owners(), &obj.metadata.owner_references);
        let owners_changed = !added.is_empty() || !removed.is_empty() || !changed.is_empty();
        if obj.is_terminating() {
            node.being_deleted = true;
        }
        // Unchanged owners read the same from the new copy.
        node.object = Some(Arc::clone(obj));
        self.nodes.insert(uid.clone(), node);
        if owners_changed {
            self.add_unblocked_owners_to_delete_queue(&removed, &changed);
            self.add_dependent_to_owners(&uid, &added, kinds);
            for r in &removed {
                if let Some(owner) = self.nodes.get_mut(&r.uid) {
                    Arc::make_mut(&mut owner.dependents).remove(&uid);
                }
            }
        }
        self.process_transitions(old, obj, &uid);
    }

    fn add_dependent_to_owners(
        &mut self,
        dep_uid: &str,
        owners: &[OwnerReference],
        kinds: &KindTable,
    ) {
        // The dependent's namespace, not a copy of its node; each owner's
        // node is read in place (the first look at a large cluster copied
        // both, for every object with an owner).
        let Some(dep_namespace) = self
            .nodes
            .get(dep_uid)
            .map(|d| d.identity.namespace().to_string())
        else {
            return;
        };
        let mut potentially_invalid = false;
        for r in owners {
            let exists = self.nodes.contains_key(&r.uid);
            if !exists {
                self.nodes.insert(
                    r.uid.clone(),
                    Node {
                        identity: Identity::of_ref(r, &dep_namespace),
                        object: None,
                        dependents: no_dependents(),
                        being_deleted: false,
                        deleting_dependents: false,
                        observed: false,
                    },
                );
            }
            let Some(owner) = self.nodes.get_mut(&r.uid) else {
                continue;
            };
            Arc::make_mut(&mut owner.dependents).insert(dep_uid.to_string());
            if !exists {
                self.enqueue_delete(&r.uid);
            } else if !potentially_invalid {
                let owner = &*owner;
                let owner_namespaced = !owner.identity.namespace().is_empty()
                    && kinds.namespaced(
                        group_of(owner.identity.api_version()),
                        owner.identity.kind(),
                    ) != Some(false);
                if owner_namespaced && owner.identity.namespace() != dep_namespace {
                    if owner.observed {
                        self.report_invalid_namespace_owner_ref(dep_uid, &r.uid);
                    }
                    potentially_invalid = true;
                } else if !owner.identity.matches_ref(r)
                    || (!owner_namespaced
                        && owner.identity.namespace() != dep_namespace
                        && !owner.observed)
                {
                    // Coordinates that disagree with the observed owner, or
                    // a virtual cluster-scoped owner named from another
                    // namespace (possibly a namespaced kind): verify.
                    potentially_invalid = true;
                }
            }
        }
        if potentially_invalid {
            self.enqueue_delete(dep_uid);
        }
    }

    fn report_invalid_namespace_owner_ref(&mut self, dep_uid: &str, owner_uid: &str) {
        let Some(dep) = self.nodes.get(dep_uid) else {
            return;
        };
        let Some(r) = dep.owners().iter().find(|r| r.uid == owner_uid) else {
            return;
        };
        let invalid = Identity::of_ref(r, dep.identity.namespace());
        self.events.push(GcEvent {
            object: dep.identity.clone(),
            reason: "OwnerRefInvalidNamespace".into(),
            message: format!(
                "ownerRef {invalid} does not exist in namespace {:?}",
                dep.identity.namespace()
            ),
        });
    }

    fn add_unblocked_owners_to_delete_queue(
        &mut self,
        removed: &[OwnerReference],
        changed: &[(OwnerReference, OwnerReference)],
    ) {
        let mut owners: Vec<Uid> = removed
            .iter()
            .filter(|r| r.blocks())
            .map(|r| r.uid.clone())
            .collect();
        owners.extend(
            changed
                .iter()
                .filter(|(old, new)| old.blocks() && !new.blocks())
                .map(|(_, new)| new.uid.clone()),
        );
        for o in owners {
            if self.nodes.contains_key(&o) {
                self.enqueue_delete(&o);
            }
        }
    }

    fn process_transitions(&mut self, old: Option<&Object>, new: &Object, uid: &str) {
        let starts = |f: &str| {
            new.is_terminating()
                && new.has_finalizer(f)
                && !old.is_some_and(|o| o.is_terminating() && o.has_finalizer(f))
        };
        if starts(ORPHAN) {
            self.enqueue(Work::Orphan(uid.to_string()));
            return;
        }
        if starts(FOREGROUND) {
            let deps = match self.nodes.get_mut(uid) {
                Some(n) => {
                    n.deleting_dependents = true;
                    n.dependents.clone()
                }
                None => return,
            };
            for d in deps.iter() {
                self.enqueue_delete(d);
            }
            // Its dependents are decided before it is (R43): an owner
            // queued earlier (its virtual node seen before it, as the
            // order of a file has it) goes behind them, so that no answer
            // depends on the order of the objects in the input.
            let work = Work::Delete(uid.to_string());
            if self.queued.remove(&work) {
                self.delete_queue.retain(|u| u != uid);
            }
            self.enqueue(work);
        }
    }

    fn observe_delete(&mut self, obj: &Arc<Object>, is_virtual: bool) {
        let identity = Identity::of(obj);
        self.process_delete(&identity, is_virtual);
    }

    /// A delete event (observed, or synthesised after a GET proved the owner
    /// absent).
    fn process_delete(&mut self, deleted: &Identity, is_virtual: bool) {
        let Some(existing) = self.nodes.get(deleted.uid()).cloned() else {
            return;
        };
        let mut remove = true;
        if is_virtual {
            if !existing.observed {
                let (matching, nonmatching) =
                    self.partition_dependents(&existing.dependents, deleted);
                if !nonmatching.is_empty() {
                    remove = false;
                    if !matching.is_empty() {
                        self.absent.insert(deleted.clone());
                        for d in &matching {
                            self.enqueue_delete(d);
                        }
                    }
                    if existing.identity == *deleted
                        && let Some(replacement) =
                            self.alternate_owner_identity(&nonmatching, deleted)
                    {
                        if let Some(n) = self.nodes.get_mut(deleted.uid()) {
                            n.identity = replacement;
                        }
                        self.enqueue_delete(deleted.uid());
                    }
                }
            } else if existing.identity != *deleted {
                remove = false;
                let (matching, _) = self.partition_dependents(&existing.dependents, deleted);
                if !matching.is_empty() {
                    self.absent.insert(deleted.clone());
                    for d in &matching {
                        self.enqueue_delete(d);
                    }
                }
            }
        }
        if !remove {
            return;
        }
        self.nodes.remove(deleted.uid());
        for r in existing.owners() {
            if let Some(owner) = self.nodes.get_mut(&r.uid) {
                Arc::make_mut(&mut owner.dependents).remove(deleted.uid());
            }
        }
        if !existing.dependents.is_empty() {
            self.absent.insert(deleted.clone());
        }
        for d in existing.dependents.iter() {
            self.enqueue_delete(d);
        }
        for r in existing.owners() {
            if self
                .nodes
                .get(&r.uid)
                .is_some_and(|o| o.deleting_dependents)
            {
                self.enqueue_delete(&r.uid);
            }
        }
    }

    fn partition_dependents(&self, deps: &BTreeSet<Uid>, owner: &Identity) -> (Vec<Uid>, Vec<Uid>) {
        let owner_namespaced = !owner.namespace().is_empty();
        let mut matching = Vec::new();
        let mut nonmatching = Vec::new();
        for d in deps {
            let Some(dep) = self.nodes.get(d) else {
                continue;
            };
            let (mut m, mut nm) = (false, false);
            if owner_namespaced && owner.namespace() != dep.identity.namespace() {
                nm = true;
            } else {
                for r in dep.owners().iter().filter(|r| r.uid == owner.uid()) {
                    if owner.matches_ref(r) {
                        m = true;
                    } else {
                        nm = true;
                    }
                }
            }
            if m {
                matching.push(d.clone());
            }
            if nm {
                nonmatching.push(d.clone());
            }
        }
        (matching, nonmatching)
    }

    fn alternate_owner_identity(&self, deps: &[Uid], absent: &Identity) -> Option<Identity> {
        let absent_cluster = absent.namespace().is_empty();
        // An identity is hashed by its strings, which never change (the
        // object it may hold is immutable but for what it reads lazily).
        #[allow(clippy::mutable_key_type)]
        let mut seen: HashSet<Identity> = HashSet::from_iter([absent.clone()]);
        let mut first: Option<Identity> = None;
        for d in deps {
            let Some(dep) = self.nodes.get(d) else {
                continue;
            };
            for r in dep.owners().iter().filter(|r| r.uid == absent.uid()) {
                if absent.matches_ref(r)
                    && (absent_cluster || absent.namespace() == dep.identity.namespace())
                {
                    continue;
                }
                let same_kind = r.api_version == absent.api_version() && r.kind == absent.kind();
                let candidate = Identity::of_ref(
                    r,
                    if absent_cluster && same_kind {
                        ""
                    } else {
                        dep.identity.namespace()
                    },
                );
                if !seen.insert(candidate.clone()) {
                    continue;
                }
                match &first {
                    Some(f) if candidate.to_string() >= f.to_string() => {}
                    _ => first = Some(candidate),
                }
            }
        }
        first
    }

    // ---------------------------------------------------------------
    // Workers
    // ---------------------------------------------------------------

    fn backoff(&mut self, work: &Work) -> u64 {
        let n = self.failures.entry(work.clone()).or_insert(0);
        let ms = 5u64.saturating_mul(1u64 << (*n).min(30)).min(1_000_000);
        *n += 1;
        ms
    }

    /// Runs one queued item against the API server.
    pub fn process(&mut self, work: Work, api: &mut ApiServer) -> PassResult {
        let result = match &work {
            Work::Delete(uid) => self.attempt_to_delete_worker(uid, api),
            Work::Orphan(uid) => self.attempt_to_orphan(uid, api),
        };
        match result {
            Ok(()) => {
                self.failures.remove(&work);
                // Requeue items not yet observed through a watch.
                if let Work::Delete(uid) = &work
                    && self.nodes.get(uid).is_some_and(|n| !n.observed)
                {
                    let after_ms = self.backoff(&work);
                    return PassResult::Retry {
                        after_ms,
                        reason: "owner not observed yet".into(),
                    };
                }
                PassResult::Done
            }
            Err(PassError::VirtualDeleteEnqueued | PassError::NamespacedOwnerOfClusterScoped) => {
                self.failures.remove(&work);
                PassResult::Done
            }
            Err(PassError::Retry(reason)) => {
                let after_ms = self.backoff(&work);
                PassResult::Retry { after_ms, reason }
            }
        }
    }

    fn attempt_to_delete_worker(
        &mut self,
        uid: &str,
        api: &mut ApiServer,
    ) -> Result<(), PassError> {
        let Some(item) = self.nodes.get(uid).cloned() else {
            return Ok(());
        };
        self.attempt_to_delete_item(&item, api)
    }

    fn get_object(api: &ApiServer, id: &Identity) -> Result<Option<Arc<Object>>, PassError> {
        let group = group_of(id.api_version());
        let mapped = api.kinds().maps(id.api_version(), id.kind());
        let Some(namespaced) = api.kinds().namespaced(group, id.kind()).filter(|_| mapped) else {
            return Err(PassError::Retry(format!(
                "unable to get REST mapping for {}/{}",
                id.api_version(),
                id.kind()
            )));
        };
        let key = Key {
            group: group.to_string(),
            kind: id.kind().to_string(),
            namespace: namespaced.then(|| id.namespace().to_string()),
            name: id.name().to_string(),
        };
        Ok(api.get_shared(&key).cloned())
    }

    /// R34.
    fn attempt_to_delete_item(
        &mut self,
        item: &Node,
        api: &mut ApiServer,
    ) -> Result<(), PassError> {
        if item.being_deleted && !item.deleting_dependents {
            return Ok(());
        }
        let latest = Self::get_object(api, &item.identity)?;
        let latest = match latest {
            Some(l) if l.uid() == item.identity.uid() => l,
            _ => {
                let id = item.identity.clone();
                self.process_delete(&id, true);
                return Err(PassError::VirtualDeleteEnqueued);
            }
        };
        if item.deleting_dependents {
            return self.process_deleting_dependents(item, api);
        }
        let refs = &latest.metadata.owner_references;
        if refs.is_empty() {
            return Ok(());
        }
        let (mut solid, mut dangling, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
        for r in refs {
            match self.classify(r, item, api)? {
                Classified::Solid => solid.push(r.uid.clone()),
                Classified::Dangling => dangling.push(r.uid.clone()),
                Classified::Waiting => waiting.push(r.uid.clone()),
            }
        }
        if !solid.is_empty() {
            if dangling.is_empty() && waiting.is_empty() {
                return Ok(());
            }
            let gone: Vec<Uid> = dangling.into_iter().chain(waiting).collect();
            self.act(
                item,
                format!(
                    "removes owner references to {} (a solid owner remains)",
                    gone.join(", ")
                ),
            );
            let resp = api.patch(&key_of(&latest), &self.caller, |o| {
                o.metadata
                    .owner_references
                    .retain(|r| !gone.contains(&r.uid));
            });
            return Self::expect_ok(resp.code, &resp.message);
        }
        let policy = if !waiting.is_empty() && !item.dependents.is_empty() {
            let cycle = item
                .dependents
                .iter()
                .any(|d| self.nodes.get(d).is_some_and(|n| n.deleting_dependents));
            if cycle {
                self.act(
                    item,
                    "sets blockOwnerDeletion=false on its references (cycle guard)".into(),
                );
                let resp = api.patch(&key_of(&latest), &self.caller, |o| {
                    for r in &mut o.metadata.owner_references {
                        if r.blocks() {
                            r.block_owner_deletion = Some(false);
                        }
                    }
                });
                Self::expect_ok(resp.code, &resp.message)?;
            }
            Policy::Foreground
        } else if latest.has_finalizer(ORPHAN) {
            Policy::Orphan
        } else if latest.has_finalizer(FOREGROUND) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        self.act(item, format!("deletes it ({policy}): no owner left"));
        let opts = DeleteOptions {
            preconditions: Preconditions {
                uid: Some(latest.uid().to_string()),
                resource_version: latest.metadata.resource_version.clone(),
            },
            ..DeleteOptions::policy(policy)
        };
        let resp = api.delete(&key_of(&latest), &opts);
        if resp.code == 404 {
            return Ok(());
        }
        Self::expect_ok(resp.code, &resp.message)
    }

    fn act(&mut self, item: &Node, action: String) {
        self.actions.push(GcAction {
            object: item.identity.clone(),
            action,
        });
    }

    fn expect_ok(code: u16, message: &str) -> Result<(), PassError> {
        if (200..300).contains(&code) {
            Ok(())
        } else {
            Err(PassError::Retry(format!("{code}: {message}")))
        }
    }

    /// R32 and R33.
    fn classify(
        &mut self,
        r: &OwnerReference,
        item: &Node,
        api: &ApiServer,
    ) -> Result<Classified, PassError> {
        // A cluster-scoped dependent naming a namespaced owner is never
        // collected, whatever is known of an owner of that uid (seen on
        // 1.20: never deleted, never retried; S19). Checked before the
        // absent owners: the virtual owner made for it, looked up with no
        // namespace, is never found, and must not make it dangling.
        if item.identity.namespace().is_empty()
            && api.kinds().maps(&r.api_version, &r.kind)
            && api.kinds().namespaced(group_of(&r.api_version), &r.kind) == Some(true)
        {
            return Err(PassError::NamespacedOwnerOfClusterScoped);
        }
        let key = Identity::of_ref(r, "");
        if self.absent.contains(&key) {
            return Ok(Classified::Dangling);
        }
        let key = key.in_namespace(item.identity.namespace());
        if self.absent.contains(&key) {
            return Ok(Classified::Dangling);
        }
        let group = group_of(&r.api_version);
        // R32: a version the server does not serve cannot be mapped either.
        let mapped = api.kinds().maps(&r.api_version, &r.kind);
        let Some(namespaced) = api.kinds().namespaced(group, &r.kind).filter(|_| mapped) else {
            return Err(PassError::Retry(format!(
                "unable to get REST mapping for {}/{}",
                r.api_version, r.kind
            )));
        };
        let key = if namespaced {
            key
        } else {
            key.in_namespace("")
        };
        if item.identity.namespace().is_empty() && namespaced {
            return Err(PassError::NamespacedOwnerOfClusterScoped);
        }
        let lookup = Key {
            group: group.to_string(),
            kind: r.kind.clone(),
            namespace: namespaced.then(|| item.identity.namespace().to_string()),
            name: r.name.clone(),
        };
        match api.get(&lookup) {
            None => {
                self.absent.insert(key);
                Ok(Classified::Dangling)
            }
            Some(owner) if owner.uid() != r.uid => {
                self.absent.insert(key);
                Ok(Classified::Dangling)
            }
            Some(owner) if owner.is_deleting_dependents() => Ok(Classified::Waiting),
            Some(_) => Ok(Classified::Solid),
        }
    }

    /// R41.
    fn process_deleting_dependents(
        &mut self,
        item: &Node,
        api: &mut ApiServer,
    ) -> Result<(), PassError> {
        let blocking: Vec<Uid> = item
            .dependents
            .iter()
            .filter(|d| {
                self.nodes.get(*d).is_some_and(|n| {
                    n.owners()
                        .iter()
                        .any(|r| r.uid == item.identity.uid() && r.blocks())
                })
            })
            .cloned()
            .collect();
        if blocking.is_empty() {
            return self.remove_finalizer(item, FOREGROUND, api);
        }
        for d in blocking {
            if !self.nodes.get(&d).is_some_and(|n| n.deleting_dependents) {
                self.enqueue_delete(&d);
            }
        }
        Ok(())
    }

    fn remove_finalizer(
        &mut self,
        item: &Node,
        finalizer: &str,
        api: &mut ApiServer,
    ) -> Result<(), PassError> {
        let Some(latest) = Self::get_object(api, &item.identity)? else {
            return Ok(());
        };
        if !latest.has_finalizer(finalizer) {
            return Ok(());
        }
        self.act(item, format!("removes finalizer {finalizer}"));
        let resp = api.patch(&key_of(&latest), &self.caller, |o| {
            o.metadata.finalizers.retain(|f| f != finalizer);
        });
        if resp.code == 404 {
            return Ok(());
        }
        Self::expect_ok(resp.code, &resp.message)
    }

    /// R46.
    fn attempt_to_orphan(&mut self, uid: &str, api: &mut ApiServer) -> Result<(), PassError> {
        let Some(owner) = self.nodes.get(uid).cloned() else {
            return Ok(());
        };
        let mut failed = None;
        for d in owner.dependents.iter() {
            let Some(dep) = self.nodes.get(d).cloned() else {
                continue;
            };
            let Some(latest) = Self::get_object(api, &dep.identity)? else {
                continue;
            };
            if latest.uid() != dep.identity.uid()
                || !latest
                    .metadata
                    .owner_references
                    .iter()
                    .any(|r| r.uid == uid)
            {
                continue;
            }
            self.act(
                &dep,
                format!(
                    "orphans it: removes its reference to {}/{}",
                    owner.identity.kind(),
                    owner.identity.name()
                ),
            );
            let resp = api.patch(&key_of(&latest), &self.caller, |o| {
                o.metadata.owner_references.retain(|r| r.uid != uid);
            });
            if resp.code != 404 && !(200..300).contains(&resp.code) {
                failed = Some(format!(
                    "orphaning {} failed: {}",
                    dep.identity, resp.message
                ));
            }
        }
        if let Some(reason) = failed {
            return Err(PassError::Retry(reason));
        }
        self.remove_finalizer(&owner, ORPHAN, api)
    }
}

fn key_of(o: &Object) -> Key {
    Key::of(o)
}

type RefDiff = (
    Vec<OwnerReference>,
    Vec<OwnerReference>,
    Vec<(OwnerReference, OwnerReference)>,
);

fn references_diffs(old: &[OwnerReference], new: &[OwnerReference]) -> RefDiff {
    let mut added = Vec::new();
    let mut changed = Vec::new();
    for n in new {
        match old.iter().find(|o| o.uid == n.uid) {
            None => added.push(n.clone()),
            Some(o) if o != n => changed.push((o.clone(), n.clone())),
            Some(_) => {}
        }
    }
    let removed = old
        .iter()
        .filter(|o| !new.iter().any(|n| n.uid == o.uid))
        .cloned()
        .collect();
    (added, removed, changed)
}
