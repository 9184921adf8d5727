//! The simulated API server: an object store with the API server's rules for
//! create, update and DELETE (GC-SEMANTICS sections A-C). Every call answers
//! with an [`ApiResponse`] value; every stored change is recorded as a
//! [`Change`] for the watchers (garbage collector, controllers, timeline).

use std::collections::BTreeSet;
use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::validation::{
    FieldError, dedup_owner_references, deletion_timestamp_immutable, finalizer_warnings,
    validate_finalizers, validate_no_new_finalizers, validate_owner_references,
};
use crate::model::webhooks::{self, Operation};
use crate::model::{
    DefaultPolicy, FOREGROUND, KindInfo, KindTable, Names, ORPHAN, ObjRef, Object, OwnershipGraph,
    Policy, Taken, Uid, group_of,
};

mod admission;
mod delete;
pub mod generation;
#[cfg(test)]
mod tests;
mod write;

pub use delete::crd_terminating;

/// The finalizer a CRD's DELETE adds (R75).
pub const CRD_CLEANUP: &str = "customresourcecleanup.apiextensions.k8s.io";

/// The answer to one API request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiResponse {
    pub code: u16,
    /// Empty for success; the server's message otherwise.
    pub message: String,
    pub warnings: Vec<String>,
    /// The object returned, when the server returns one.
    #[serde(skip)]
    pub object: Option<Arc<Object>>,
    /// Whether the request removed the object from the store.
    #[serde(skip)]
    pub removed: bool,
}

impl ApiResponse {
    fn ok(object: impl Into<Arc<Object>>) -> Self {
        ApiResponse {
            code: 200,
            message: String::new(),
            warnings: Vec::new(),
            object: Some(object.into()),
            removed: false,
        }
    }

    fn err(code: u16, message: impl Into<String>) -> Self {
        ApiResponse {
            code,
            message: message.into(),
            warnings: Vec::new(),
            object: None,
            removed: false,
        }
    }

    #[must_use]
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.code)
    }

    /// `200 OK`, `409 Conflict`, ...
    #[must_use]
    pub fn status_line(&self) -> String {
        super::timeline::status_text(self.code)
    }
}

/// A change to the store, as a watcher sees it. It shares the stored
/// copies: a change costs a reference count, not a copy of the object.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Added(Arc<Object>),
    Modified { old: Arc<Object>, new: Arc<Object> },
    Deleted(Arc<Object>),
}

impl Change {
    #[must_use]
    pub fn object(&self) -> &Object {
        match self {
            Change::Added(o) | Change::Deleted(o) | Change::Modified { new: o, .. } => o,
        }
    }

    /// The object, as stored (shared, for a reader that keeps it).
    #[must_use]
    pub fn shared(&self) -> &Arc<Object> {
        match self {
            Change::Added(o) | Change::Deleted(o) | Change::Modified { new: o, .. } => o,
        }
    }
}

/// DELETE options as the API takes them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteOptions {
    /// `Foreground`, `Background` or `Orphan`; anything else is rejected (R9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagation_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphan_dependents: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Preconditions::is_empty")]
    pub preconditions: Preconditions,
}

impl DeleteOptions {
    #[must_use]
    pub fn policy(p: Policy) -> Self {
        DeleteOptions {
            propagation_policy: Some(p.as_str().to_string()),
            ..DeleteOptions::default()
        }
    }

    /// A force delete of the object with this uid: Background, grace
    /// period 0 (`kubectl delete --force --grace-period=0`), the uid as a
    /// precondition.
    #[must_use]
    pub fn forced(uid: &str) -> Self {
        DeleteOptions {
            grace_period_seconds: Some(0),
            preconditions: Preconditions {
                uid: Some(uid.to_string()),
                resource_version: None,
            },
            ..DeleteOptions::policy(Policy::Background)
        }
    }

    /// `DELETE propagationPolicy=Foreground gracePeriodSeconds=0`, for logs.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut parts = vec!["DELETE".to_string()];
        if let Some(p) = &self.propagation_policy {
            parts.push(format!("propagationPolicy={p}"));
        }
        if let Some(o) = self.orphan_dependents {
            parts.push(format!("orphanDependents={o}"));
        }
        if let Some(g) = self.grace_period_seconds {
            parts.push(format!("gracePeriodSeconds={g}"));
        }
        if let Some(u) = &self.preconditions.uid {
            parts.push(format!("preconditions.uid={u}"));
        }
        if let Some(rv) = &self.preconditions.resource_version {
            parts.push(format!("preconditions.resourceVersion={rv}"));
        }
        parts.join(" ")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Preconditions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<Uid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

impl Preconditions {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.uid.is_none() && self.resource_version.is_none()
    }
}

/// Who sends a request. The simulator allows everything except the
/// (verb, resource) pairs listed in `denied`, e.g.
/// `("update", "deployments.apps/finalizers")`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caller {
    pub name: String,
    pub denied: BTreeSet<(String, String)>,
}

impl Caller {
    fn may(&self, verb: &str, resource: &str) -> bool {
        !self
            .denied
            .contains(&(verb.to_string(), resource.to_string()))
    }
}

/// Switches of the simulated API server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiConfig {
    /// `--enable-garbage-collector` (R11: no GC finalizers when false).
    pub garbage_collector: bool,
    /// Admission plugin `OwnerReferencesPermissionEnforcement` (R6).
    pub owner_references_permission_enforcement: bool,
    /// [`crate::sim::scenario::Settings::whole_second_stamps`].
    #[serde(default)]
    pub whole_second_stamps: bool,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            garbage_collector: true,
            owner_references_permission_enforcement: false,
            whole_second_stamps: false,
        }
    }
}

/// How a write by one of the simulator's own components records its
/// field manager in `metadata.managedFields`: the manager
/// ([`crate::sim::controllers::field_manager`]), the time, the stored
/// object (none on a create) and the one about to be stored.
pub type RecordFn = fn(manager: &str, now: Timestamp, old: Option<&Object>, new: &mut Object);

/// What records the components' writes
/// ([`crate::sim::scenario::Settings::field_recorder`]): `ownerscope
/// serve` sets it, so a Pod the ReplicaSet controller creates reads as
/// on a real cluster; offline none is, and no object changes.
#[derive(Clone, Copy, Default)]
pub struct FieldRecorder(pub Option<RecordFn>);

impl std::fmt::Debug for FieldRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "FieldRecorder(on)"
        } else {
            "FieldRecorder(off)"
        })
    }
}

/// Two recorders are alike when both record or neither does (a function
/// is no value to compare).
impl PartialEq for FieldRecorder {
    fn eq(&self, other: &Self) -> bool {
        self.0.is_some() == other.0.is_some()
    }
}

impl Eq for FieldRecorder {}

/// Identifies an object by kind and name, as a request path does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Key {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl Key {
    /// The key of the Namespace `name`.
    #[must_use]
    pub fn namespace(name: &str) -> Key {
        Key {
            group: String::new(),
            kind: "Namespace".into(),
            namespace: None,
            name: name.to_string(),
        }
    }

    #[must_use]
    pub fn of(o: &Object) -> Key {
        Key {
            group: o.group().to_string(),
            kind: o.kind.clone(),
            namespace: o.namespace().map(str::to_string),
            name: o.name().to_string(),
        }
    }

    #[must_use]
    pub fn from_ref(r: &ObjRef) -> Key {
        Key {
            group: group_of(&r.api_version).to_string(),
            kind: r.kind.clone(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
        }
    }

    /// `Deployment "web" not found in namespace shop`, for errors.
    #[must_use]
    pub fn not_found(&self) -> String {
        match &self.namespace {
            Some(ns) => format!(
                "{} \"{}\" not found in namespace {ns}",
                self.kind, self.name
            ),
            None => format!("{} \"{}\" not found", self.kind, self.name),
        }
    }
}

/// Deterministic uid generator (splitmix64), formatted as a UUID.
#[derive(Clone, Debug)]
pub struct UidGen {
    state: u64,
}

impl UidGen {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        UidGen {
            state: seed ^ 0x6f77_6e65_7273_636f,
        }
    }

    /// Where the sequence is (saved across a restart: the uids made after
    /// it must not repeat the ones before).
    #[must_use]
    pub fn state(&self) -> u64 {
        self.state
    }

    /// The sequence from a saved [`UidGen::state`].
    #[must_use]
    pub fn resumed(state: u64) -> Self {
        UidGen { state }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn next_uid(&mut self) -> Uid {
        let a = self.next_u64();
        let b = self.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0x0fff,
            ((b >> 48) & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        )
    }
}

/// The store and the request rules.
#[derive(Clone, Debug)]
pub struct ApiServer {
    /// The store: objects by uid (iterated in uid order), by name, and who
    /// refers to whom. The ownership graph is the store's own index, so a
    /// reader gets it without a copy. Shared with the UI handed it
    /// ([`ApiServer::shared_graph`]) until either changes it: the first
    /// write then makes this server a copy of its own.
    store: Arc<OwnershipGraph>,
    rv: u64,
    uids: UidGen,
    now: Timestamp,
    pub config: ApiConfig,
    /// Records the components' writes' field manager (none offline).
    pub recorder: FieldRecorder,
    changes: Vec<Change>,
}

/// The immortal namespaces (R56).
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

impl ApiServer {
    #[must_use]
    pub fn new(kinds: KindTable, seed: u64, now: Timestamp) -> Self {
        ApiServer {
            store: Arc::new(OwnershipGraph::new(kinds)),
            rv: 1000,
            uids: UidGen::new(seed),
            now,
            config: ApiConfig::default(),
            recorder: FieldRecorder::default(),
            changes: Vec::new(),
        }
    }

    /// The last resource version given out.
    #[must_use]
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    pub fn set_now(&mut self, now: Timestamp) {
        self.now = now;
    }

    /// `t` as an object's creation or deletion time records it: without
    /// its fraction of a second under
    /// [`ApiConfig::whole_second_stamps`].
    #[must_use]
    pub(crate) fn stamp(&self, t: Timestamp) -> Timestamp {
        if self.config.whole_second_stamps {
            Timestamp::from_second(t.as_second()).unwrap_or(t)
        } else {
            t
        }
    }

    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.now
    }

    #[must_use]
    pub fn kinds(&self) -> &KindTable {
        self.store.kinds()
    }

    pub fn kinds_mut(&mut self) -> &mut KindTable {
        self.store_mut().kinds_mut()
    }

    /// The store, to change: a copy of its own first if the graph handed
    /// out by [`ApiServer::shared_graph`] is still held.
    fn store_mut(&mut self) -> &mut OwnershipGraph {
        Arc::make_mut(&mut self.store)
    }

    /// The store's ownership graph, shared: no copy is made until the
    /// store or the holder changes it.
    #[must_use]
    pub fn shared_graph(&self) -> Arc<OwnershipGraph> {
        Arc::clone(&self.store)
    }

    /// Makes the store this server's own, copied now if a graph handed
    /// out by [`ApiServer::shared_graph`] is still held, rather than at
    /// the next write (which may be a user's request, waited for).
    pub fn own_store(&mut self) {
        self.store_mut();
    }

    /// Where the uid sequence is (see [`UidGen::state`]).
    #[must_use]
    pub fn uid_state(&self) -> u64 {
        self.uids.state()
    }

    pub fn uids(&mut self) -> &mut UidGen {
        &mut self.uids
    }

    /// The changes recorded since the last call.
    pub fn take_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.store.objects()
    }

    #[must_use]
    pub fn get_uid(&self, uid: &str) -> Option<&Object> {
        self.store.get(uid)
    }

    /// The ownership graph of what is stored.
    #[must_use]
    pub fn graph(&self) -> &OwnershipGraph {
        &self.store
    }

    /// GET by kind, namespace and name. For a cluster-scoped kind the
    /// namespace is ignored, as the request path would have none.
    #[must_use]
    pub fn get(&self, key: &Key) -> Option<&Object> {
        self.get_shared(key).map(|o| &**o)
    }

    /// As [`ApiServer::get`], the stored copy itself.
    #[must_use]
    pub fn get_shared(&self, key: &Key) -> Option<&Arc<Object>> {
        let namespace = if self.store.kinds().namespaced(&key.group, &key.kind) == Some(false) {
            None
        } else {
            key.namespace.as_deref()
        };
        self.store
            .find(&key.group, &key.kind, namespace, &key.name)
            .and_then(|o| self.store.get_shared(o.uid()))
    }

    fn kind_info(&self, group: &str, kind: &str) -> Option<&KindInfo> {
        self.store.kinds().get(group, kind)
    }

    fn resource_name(&self, group: &str, kind: &str) -> String {
        self.kind_info(group, kind).map_or_else(
            || format!("{}s", kind.to_ascii_lowercase()),
            KindInfo::resource,
        )
    }

    fn qualified_kind(group: &str, kind: &str) -> String {
        if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        }
    }

    fn not_found(&self, key: &Key) -> ApiResponse {
        ApiResponse::err(
            404,
            format!(
                "{} \"{}\" not found",
                self.resource_name(&key.group, &key.kind),
                key.name
            ),
        )
    }

    fn invalid(group: &str, kind: &str, name: &str, errs: &[FieldError]) -> ApiResponse {
        let list = if errs.len() == 1 {
            errs[0].to_string()
        } else {
            let parts: Vec<String> = errs.iter().map(ToString::to_string).collect();
            format!("[{}]", parts.join(", "))
        };
        ApiResponse::err(
            422,
            format!(
                "{} \"{}\" is invalid: {}",
                Self::qualified_kind(group, kind),
                name,
                list
            ),
        )
    }

    /// Loads an object saved from a running store (a restart): as a
    /// restoring [`ApiServer::create`], keeping the resource version it
    /// had, which must not be newer than the store's counter.
    pub fn resume_object(&mut self, obj: Object) -> ApiResponse {
        let saved = obj
            .metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok());
        let Some(rv) = saved.filter(|rv| *rv <= self.rv) else {
            return ApiResponse::err(
                422,
                format!(
                    "{} {:?}: resourceVersion {:?} is not a version this store gave out (at most {})",
                    obj.kind,
                    obj.name(),
                    obj.metadata.resource_version.as_deref().unwrap_or(""),
                    self.rv
                ),
            );
        };
        if obj.uid().is_empty() {
            return ApiResponse::err(422, format!("{} {:?}: no uid", obj.kind, obj.name()));
        }
        let uid = obj.uid().to_string();
        let counter = self.rv;
        let resp = self.create(obj, &Caller::default(), true);
        self.rv = counter;
        if resp.is_success()
            && let Some(stored) = self.store.get(&uid)
        {
            let mut o = stored.clone();
            o.metadata.resource_version = Some(rv.to_string());
            self.index(o);
        }
        resp
    }

    /// Sets the resource version counter and the uid sequence saved from a
    /// running store, before its objects are resumed.
    pub fn resume_counters(&mut self, resource_version: u64, uid_state: u64) {
        self.rv = resource_version;
        self.uids = UidGen::resumed(uid_state);
    }

    /// A load of about `expected` objects restored with
    /// [`ApiServer::create`] begins: room is made for them in the store's
    /// indexes, and they are put in uid order together at
    /// [`ApiServer::end_restore`]. Until then a restored object is found
    /// by name and by its owners only, and a uid taken twice is found by
    /// `end_restore`. With `index_events`, the Events' index is built with
    /// the others (see [`OwnershipGraph::index_events`]).
    pub fn begin_restore(&mut self, expected: usize, index_events: bool) {
        let store = self.store_mut();
        if index_events {
            store.index_events();
        }
        store.reserve(expected);
        store.reserve_owners(expected);
        store.begin_bulk(expected);
    }

    /// In a load begun by [`ApiServer::begin_restore`]: the store's index
    /// by name, to be built elsewhere from each object restored from now
    /// on, in turn (see [`OwnershipGraph::names_apart`]); given back with
    /// [`ApiServer::restore_names_back`] before [`ApiServer::end_restore`].
    pub fn restore_names_apart(&mut self) -> Names {
        self.store_mut().names_apart()
    }

    /// The index by name given back.
    ///
    /// # Errors
    /// The place among the objects restored since
    /// [`ApiServer::restore_names_apart`] of the first one whose name
    /// another object has, and the error answer its create would have had.
    pub fn restore_names_back(&mut self, names: Names) -> Result<(), (usize, ApiResponse)> {
        self.store_mut()
            .names_back(names)
            .map_err(|(at, obj, terminating)| (at, self.already_exists(&obj, terminating)))
    }

    /// The load begun by [`ApiServer::begin_restore`] is complete.
    ///
    /// # Errors
    /// The place among the restored objects of the first one whose uid
    /// another object has, and the error answer its create would have
    /// had; none of them is then stored.
    pub fn end_restore(&mut self) -> Result<(), (usize, ApiResponse)> {
        self.store_mut()
            .end_bulk()
            .map_err(|(at, obj)| (at, Self::uid_taken(&obj)))
    }

    /// The next resource version, written into `slot` (into the string
    /// already there, if any: a restored object keeps the allocation of
    /// the version it was read with).
    fn stamp_rv(&mut self, slot: &mut Option<String>) {
        self.rv += 1;
        let rv = slot.get_or_insert_with(String::new);
        rv.clear();
        rv.push_str(itoa::Buffer::new().format(self.rv));
    }

    fn index(&mut self, obj: impl Into<Arc<Object>>) {
        self.store_mut().upsert(obj);
    }

    fn remove_stored(&mut self, uid: &str) -> Option<Arc<Object>> {
        let obj = self.store_mut().remove(uid)?;
        // A definition gone: its kind is no longer served.
        if let Some(info) = KindInfo::of_crd(&obj) {
            self.store_mut().kinds_mut().remove(&info.group, &info.kind);
        }
        // As on a real server, the deletion has a resource version of its
        // own: a watch's DELETED event carries it.
        let mut gone = Object::clone(&obj);
        self.stamp_rv(&mut gone.metadata.resource_version);
        self.changes.push(Change::Deleted(Arc::new(gone)));
        Some(obj)
    }

    /// Records `caller`'s write of `new` over `old` (none: a create) in
    /// `new`'s `managedFields` when a recorder is set and the caller is one
    /// of the simulator's components. Every write of a component passes
    /// here: a create, an update or patch, a status update, a namespace's
    /// finalize.
    fn record(&self, caller: &Caller, old: Option<&Object>, new: &mut Object) {
        if let Some(record) = self.recorder.0
            && let Some(manager) = crate::sim::controllers::field_manager(&caller.name)
        {
            record(manager, self.now, old, new);
        }
    }

    fn store_update(&mut self, old: Arc<Object>, mut new: Object) -> Arc<Object> {
        self.stamp_rv(&mut new.metadata.resource_version);
        // A definition changed: the versions it serves now are served, as
        // the apiextensions server follows an update of the CRD.
        if let Some(info) = KindInfo::of_crd(&new) {
            self.store_mut().kinds_mut().declare(info);
        }
        let new = Arc::new(new);
        self.index(Arc::clone(&new));
        self.changes.push(Change::Modified {
            old,
            new: Arc::clone(&new),
        });
        new
    }
}
