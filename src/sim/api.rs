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
use crate::model::{
    DefaultPolicy, FOREGROUND, KindInfo, KindTable, ORPHAN, ObjRef, Object, OwnershipGraph, Policy,
    Taken, Uid, group_of,
};

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
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            garbage_collector: true,
            owner_references_permission_enforcement: false,
        }
    }
}

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
    /// reader gets it without a copy.
    store: OwnershipGraph,
    rv: u64,
    uids: UidGen,
    now: Timestamp,
    pub config: ApiConfig,
    changes: Vec<Change>,
}

/// The immortal namespaces (R56).
const IMMORTAL_NAMESPACES: [&str; 3] = ["default", "kube-system", "kube-public"];

impl ApiServer {
    #[must_use]
    pub fn new(kinds: KindTable, seed: u64, now: Timestamp) -> Self {
        ApiServer {
            store: OwnershipGraph::new(kinds),
            rv: 1000,
            uids: UidGen::new(seed),
            now,
            config: ApiConfig::default(),
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

    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.now
    }

    #[must_use]
    pub fn kinds(&self) -> &KindTable {
        self.store.kinds()
    }

    pub fn kinds_mut(&mut self) -> &mut KindTable {
        self.store.kinds_mut()
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
    /// `end_restore`.
    pub fn begin_restore(&mut self, expected: usize) {
        self.store.reserve(expected);
        self.store.begin_bulk(expected);
    }

    /// The load begun by [`ApiServer::begin_restore`] is complete.
    ///
    /// # Errors
    /// The place among the restored objects of the first one whose uid
    /// another object has, and the error answer its create would have
    /// had; none of them is then stored.
    pub fn end_restore(&mut self) -> Result<(), (usize, ApiResponse)> {
        self.store
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
        self.store.upsert(obj);
    }

    fn remove_stored(&mut self, uid: &str) -> Option<Arc<Object>> {
        let obj = self.store.remove(uid)?;
        // A definition gone: its kind is no longer served.
        if let Some(info) = KindInfo::of_crd(&obj) {
            self.store.kinds_mut().remove(&info.group, &info.kind);
        }
        // As on a real server, the deletion has a resource version of its
        // own: a watch's DELETED event carries it.
        let mut gone = Object::clone(&obj);
        self.stamp_rv(&mut gone.metadata.resource_version);
        self.changes.push(Change::Deleted(Arc::new(gone)));
        Some(obj)
    }

    fn store_update(&mut self, old: Arc<Object>, mut new: Object) -> Arc<Object> {
        self.stamp_rv(&mut new.metadata.resource_version);
        let new = Arc::new(new);
        self.index(Arc::clone(&new));
        self.changes.push(Change::Modified {
            old,
            new: Arc::clone(&new),
        });
        new
    }

    /// Checks shared by create and update: owner references (R1-R3, R5, R6)
    /// and finalizers (R21). Returns warnings or the error answer (returned
    /// as it is sent, not boxed).
    #[allow(clippy::result_large_err)]
    fn admit_metadata(
        &self,
        obj: &mut Object,
        old: Option<&Object>,
        caller: &Caller,
    ) -> Result<Vec<String>, ApiResponse> {
        let mut warnings = Vec::new();
        let mut errs = validate_owner_references(&obj.metadata.owner_references);
        errs.extend(validate_finalizers(&obj.metadata.finalizers));
        if let Some(old) = old
            && let Some(e) = validate_no_new_finalizers(old, &obj.metadata.finalizers)
        {
            errs.push(e);
        }
        if !errs.is_empty() {
            return Err(Self::invalid(obj.group(), &obj.kind, obj.name(), &errs));
        }
        if let Some(w) = dedup_owner_references(&mut obj.metadata.owner_references) {
            warnings.push(w);
        }
        // (Warnings are about finalizers: none, nothing to ask.)
        if !obj.metadata.finalizers.is_empty() && !KindTable::is_builtin(obj.group(), &obj.kind) {
            let old_f = old
                .map(|o| o.metadata.finalizers.clone())
                .unwrap_or_default();
            warnings.extend(finalizer_warnings(&old_f, &obj.metadata.finalizers));
        }
        self.admit_owner_ref_permissions(obj, old, caller)?;
        Ok(warnings)
    }

    /// R6, when the admission plugin is enabled.
    #[allow(clippy::result_large_err)]
    fn admit_owner_ref_permissions(
        &self,
        obj: &Object,
        old: Option<&Object>,
        caller: &Caller,
    ) -> Result<(), ApiResponse> {
        if !self.config.owner_references_permission_enforcement {
            return Ok(());
        }
        let old_refs = old
            .map(|o| o.metadata.owner_references.clone())
            .unwrap_or_default();
        if old_refs == obj.metadata.owner_references {
            return Ok(());
        }
        let resource = self.resource_name(obj.group(), &obj.kind);
        let forbidden = |msg: String| {
            ApiResponse::err(
                403,
                format!("{} \"{}\" is forbidden: {}", resource, obj.name(), msg),
            )
        };
        if !caller.may("delete", &resource) {
            return Err(forbidden(format!(
                "cannot set an ownerRef on a resource you can't delete: User \"{}\" cannot delete resource \"{}\"",
                caller.name, resource
            )));
        }
        for r in &obj.metadata.owner_references {
            let was_blocking = old_refs.iter().any(|o| o.uid == r.uid && o.blocks());
            if r.blocks() && !was_blocking {
                let owner_resource =
                    format!("{}/finalizers", self.resource_name(r.group(), &r.kind));
                if !caller.may("update", &owner_resource) {
                    return Err(forbidden(format!(
                        "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: User \"{}\" cannot update resource \"{}\"",
                        caller.name, owner_resource
                    )));
                }
            }
        }
        Ok(())
    }

    /// Defaults the API server applies to new objects (R55, R62).
    fn apply_create_defaults(obj: &mut Object) {
        match (obj.group(), obj.kind.as_str()) {
            ("", "Namespace") => {
                let mut fins: Vec<Value> = obj
                    .value_at(&["spec", "finalizers"])
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if !fins.iter().any(|f| f == "kubernetes") {
                    fins.push(Value::from("kubernetes"));
                }
                obj.set_at(&["spec", "finalizers"], Value::Array(fins));
                if !obj.is_terminating() {
                    obj.set_at(&["status", "phase"], Value::from("Active"));
                }
            }
            // The apiextensions controllers accept a new definition's names
            // and establish it (within milliseconds on a real server):
            // `kubectl wait --for=condition=Established` waits for this.
            ("apiextensions.k8s.io", "CustomResourceDefinition") if !obj.is_terminating() => {
                let mut conditions: Vec<Value> = obj
                    .value_at(&["status", "conditions"])
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for (kind, reason, message) in [
                    ("NamesAccepted", "NoConflicts", "no conflicts found"),
                    (
                        "Established",
                        "InitialNamesAccepted",
                        "the initial names have been accepted",
                    ),
                ] {
                    if !conditions.iter().any(|c| c["type"] == kind) {
                        conditions.push(serde_json::json!({
                            "type": kind,
                            "status": "True",
                            "reason": reason,
                            "message": message,
                        }));
                    }
                }
                obj.set_at(&["status", "conditions"], Value::Array(conditions));
            }
            ("", "PersistentVolumeClaim") | ("", "PersistentVolume") if !obj.is_terminating() => {
                let f = if obj.kind == "PersistentVolume" {
                    "kubernetes.io/pv-protection"
                } else {
                    "kubernetes.io/pvc-protection"
                };
                if !obj.has_finalizer(f) {
                    obj.metadata.finalizers.push(f.to_string());
                }
            }
            _ => {}
        }
    }

    /// POST. The object's uid is generated unless `restore` is set, in which
    /// case the object is loaded as stored (uid, timestamps and deletion
    /// state kept), as a scenario or a snapshot needs.
    pub fn create(
        &mut self,
        obj: impl Into<Arc<Object>>,
        caller: &Caller,
        restore: bool,
    ) -> ApiResponse {
        // Changed in place when not shared (a restored object read from a
        // file: stored in the allocation it was read into).
        let mut shared: Arc<Object> = obj.into();
        let obj = Arc::make_mut(&mut shared);
        // Borrowed from the object's own field, not copied (an allocation
        // per restored object).
        let group = group_of(&obj.api_version);
        if obj.metadata.name.is_empty() {
            return Self::invalid(
                group,
                &obj.kind,
                "",
                &[FieldError {
                    field: "metadata.name".into(),
                    kind: super::validation::FieldErrorKind::Invalid("\"\"".into()),
                    detail: "name or generateName is required".into(),
                }],
            );
        }
        let namespaced = match self.store.kinds().namespaced(group, &obj.kind) {
            Some(known) => known,
            None => {
                let guess = obj.namespace().is_some();
                self.store
                    .kinds_mut()
                    .learn(&obj.api_version, &obj.kind, guess);
                guess
            }
        };
        if !namespaced {
            obj.metadata.namespace = None;
        } else if obj.namespace().is_none() {
            obj.metadata.namespace = Some("default".into());
        }
        // R57: no new content in a terminating namespace (a restored
        // object is already there: not asked, and not looked up).
        if !restore && let Some(ns) = obj.namespace() {
            let ns_key = Key::namespace(ns);
            if self.get(&ns_key).is_some_and(Object::is_terminating) {
                return ApiResponse::err(
                    403,
                    format!(
                        "{} \"{}\" is forbidden: unable to create new content in namespace {} because it is being terminated",
                        self.resource_name(group, &obj.kind),
                        obj.name(),
                        ns
                    ),
                );
            }
        }
        // R75: no new instance of a custom resource whose definition is
        // being deleted. 1.36 answers 403 (modelled); 1.20 answered 405
        // MethodNotAllowed with the same message.
        if !restore
            && self
                .crd_of(group, &obj.kind)
                .is_some_and(Object::is_terminating)
        {
            return ApiResponse::err(
                403,
                "create not allowed while custom resource definition is terminating",
            );
        }
        // Its scope settled above: looked up as stored, without a key. (A
        // restored object's name is looked up as it is stored, below.)
        if !restore
            && let Some(existing) = self
                .store
                .find(group, &obj.kind, obj.namespace(), obj.name())
        {
            return self.already_exists(obj, existing.is_terminating());
        }
        let warnings = match self.admit_metadata(obj, None, caller) {
            Ok(w) => w,
            Err(resp) => return resp,
        };
        if restore {
            if obj.metadata.uid.is_empty() {
                obj.metadata.uid = self.uids.next_uid();
            }
            // Whether its uid is taken is asked as it is stored, below.
            obj.metadata.creation_timestamp.get_or_insert(self.now);
        } else {
            // R19: system fields are wiped on create.
            obj.metadata.uid = self.uids.next_uid();
            obj.metadata.deletion_timestamp = None;
            obj.metadata.deletion_grace_period_seconds = None;
            obj.metadata.creation_timestamp = Some(self.now);
        }
        if obj.metadata.generation.is_none() && !obj.spec.is_null() {
            obj.metadata.generation = Some(1);
        }
        Self::apply_create_defaults(obj);
        let crd = KindInfo::of_crd(obj);
        self.stamp_rv(&mut obj.metadata.resource_version);
        let obj = shared;
        if restore {
            // Loading, not a request: no change is recorded, the loader
            // shows each restored object to the watchers itself (a change
            // per object would hold a second copy of the whole store at
            // once), from the stored object the answer shares.
            if let Err(taken) = self.store.insert_new(Arc::clone(&obj)) {
                self.rv -= 1;
                return match taken {
                    Taken::Uid => Self::uid_taken(&obj),
                    Taken::Name { terminating } => self.already_exists(&obj, terminating),
                };
            }
        } else {
            self.index(Arc::clone(&obj));
            self.changes.push(Change::Added(Arc::clone(&obj)));
        }
        // A definition makes its kind served (discovery, REST mapping); a
        // kind a scenario already declares keeps what it declares.
        if let Some(info) = crd {
            self.store.kinds_mut().declare(info);
        }
        ApiResponse {
            code: 201,
            warnings,
            ..ApiResponse::ok(obj)
        }
    }

    /// The answer to creating an object whose kind, namespace and name
    /// another one has.
    fn already_exists(&self, obj: &Object, terminating: bool) -> ApiResponse {
        let resource = self.resource_name(obj.group(), &obj.kind);
        let msg = format!("{} \"{}\" already exists", resource, obj.name());
        if terminating {
            ApiResponse::err(409, format!("object is being deleted: {msg}"))
        } else {
            ApiResponse::err(409, msg)
        }
    }

    /// The answer to restoring an object whose uid another one has.
    fn uid_taken(obj: &Object) -> ApiResponse {
        ApiResponse::err(
            409,
            format!("uid {} is already taken by another object", obj.uid()),
        )
    }

    /// PUT (and, through [`ApiServer::patch`], PATCH). Applies R19, R21-R23.
    pub fn update(&mut self, mut obj: Object, caller: &Caller) -> ApiResponse {
        let key = Key::of(&obj);
        let Some(old) = self.get_shared(&key).cloned() else {
            return self.not_found(&key);
        };
        if !obj.metadata.uid.is_empty() && obj.metadata.uid != old.metadata.uid {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {} \"{}\": Precondition failed: UID in precondition: {}, UID in object meta: {}",
                    self.resource_name(&key.group, &key.kind),
                    key.name,
                    obj.metadata.uid,
                    old.metadata.uid
                ),
            );
        }
        if let Some(rv) = &obj.metadata.resource_version
            && Some(rv) != old.metadata.resource_version.as_ref()
        {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                    self.resource_name(&key.group, &key.kind),
                    key.name
                ),
            );
        }
        // R19: deletion fields and identity come from storage.
        if old.metadata.deletion_timestamp.is_none()
            && let Some(ts) = obj.metadata.deletion_timestamp
        {
            let err = deletion_timestamp_immutable(&format!("\"{ts}\""));
            return Self::invalid(&key.group, &key.kind, &key.name, &[err]);
        }
        obj.metadata.uid = old.metadata.uid.clone();
        obj.metadata.creation_timestamp = old.metadata.creation_timestamp;
        obj.metadata.deletion_timestamp = old.metadata.deletion_timestamp;
        obj.metadata.deletion_grace_period_seconds = old.metadata.deletion_grace_period_seconds;
        obj.metadata.generation = old.metadata.generation;
        if old.kind == "Namespace" && old.group().is_empty() {
            // R55: spec.finalizers change only through /finalize.
            let keep = old
                .value_at(&["spec", "finalizers"])
                .cloned()
                .unwrap_or(Value::Null);
            obj.set_at(&["spec", "finalizers"], keep);
        }
        let warnings = match self.admit_metadata(&mut obj, Some(&old), caller) {
            Ok(w) => w,
            Err(resp) => return resp,
        };
        if obj.spec != old.spec
            && let Some(g) = obj.metadata.generation.as_mut()
        {
            *g += 1;
        }
        // R23: the last finalizer removed from a terminating object.
        if self.should_delete_during_update(&obj) {
            self.remove_stored(old.uid());
            return ApiResponse {
                warnings,
                removed: true,
                ..ApiResponse::ok(obj)
            };
        }
        if obj == *old {
            return ApiResponse {
                warnings,
                ..ApiResponse::ok(old)
            };
        }
        let stored = self.store_update(old, obj);
        ApiResponse {
            warnings,
            ..ApiResponse::ok(stored)
        }
    }

    fn should_delete_during_update(&self, obj: &Object) -> bool {
        obj.is_terminating()
            && obj.metadata.finalizers.is_empty()
            && obj.metadata.deletion_grace_period_seconds.unwrap_or(0) == 0
            && !Self::namespace_spec_finalizers_remain(obj)
    }

    fn namespace_spec_finalizers_remain(obj: &Object) -> bool {
        obj.kind == "Namespace"
            && obj.group().is_empty()
            && obj
                .value_at(&["spec", "finalizers"])
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
    }

    /// GET, change, PUT: the shape of a patch.
    pub fn patch(
        &mut self,
        key: &Key,
        caller: &Caller,
        f: impl FnOnce(&mut Object),
    ) -> ApiResponse {
        let Some(mut obj) = self.get(key).cloned() else {
            return self.not_found(key);
        };
        obj.metadata.resource_version = None;
        f(&mut obj);
        self.update(obj, caller)
    }

    /// The namespace `/finalize` subresource: sets `spec.finalizers`; the
    /// namespace goes when both lists are empty (R58.7).
    pub fn finalize_namespace(&mut self, name: &str, spec_finalizers: Vec<String>) -> ApiResponse {
        let key = Key::namespace(name);
        let Some(old) = self.get_shared(&key).cloned() else {
            return self.not_found(&key);
        };
        let mut new = Object::clone(&old);
        new.set_at(&["spec", "finalizers"], Value::from(spec_finalizers));
        if self.should_delete_during_update(&new) {
            self.remove_stored(old.uid());
            return ApiResponse {
                removed: true,
                ..ApiResponse::ok(new)
            };
        }
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }

    /// Updates `status` (the status subresource: metadata untouched).
    pub fn update_status(&mut self, key: &Key, status: Value) -> ApiResponse {
        let Some(old) = self.get_shared(key).cloned() else {
            return self.not_found(key);
        };
        let mut new = Object::clone(&old);
        new.status = status.into();
        if new == *old {
            return ApiResponse::ok(old);
        }
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }

    /// R11: which GC finalizer a DELETE leaves on the object.
    fn gc_finalizers(&self, obj: &Object, opts: &DeleteOptions) -> Vec<String> {
        let mut list: Vec<String> = obj
            .metadata
            .finalizers
            .iter()
            .filter(|f| *f != ORPHAN && *f != FOREGROUND)
            .cloned()
            .collect();
        if !self.config.garbage_collector {
            return obj.metadata.finalizers.clone();
        }
        let default = self
            .kind_info(obj.group(), &obj.kind)
            .map_or(DefaultPolicy::Policy(Policy::Background), |k| {
                k.default_policy
            });
        let chosen: Option<&str> = if default == DefaultPolicy::Unsupported {
            None
        } else if let Some(orphan) = opts.orphan_dependents {
            orphan.then_some(ORPHAN)
        } else if let Some(p) = opts.propagation_policy.as_deref() {
            match p {
                "Orphan" => Some(ORPHAN),
                "Foreground" => Some(FOREGROUND),
                _ => None,
            }
        } else if obj.has_finalizer(ORPHAN) {
            Some(ORPHAN)
        } else if obj.has_finalizer(FOREGROUND) {
            Some(FOREGROUND)
        } else if default == DefaultPolicy::Policy(Policy::Orphan) {
            Some(ORPHAN)
        } else {
            None
        };
        if let Some(c) = chosen {
            list.push(c.to_string());
        }
        list
    }

    /// R15: the grace period a DELETE gives a pod; 0 for other kinds.
    fn grace_period(obj: &Object, opts: &DeleteOptions) -> i64 {
        if obj.kind != "Pod" || !obj.group().is_empty() {
            return 0;
        }
        let mut grace = opts.grace_period_seconds.unwrap_or_else(|| {
            obj.value_at(&["spec", "terminationGracePeriodSeconds"])
                .and_then(Value::as_i64)
                .unwrap_or(30)
        });
        let node = obj.str_at(&["spec", "nodeName"]).unwrap_or_default();
        let phase = obj.str_at(&["status", "phase"]).unwrap_or_default();
        if node.is_empty() || phase == "Succeeded" || phase == "Failed" {
            grace = 0;
        }
        if grace < 0 {
            grace = 1;
        }
        grace
    }

    /// DELETE (R9-R18, R56).
    pub fn delete(&mut self, key: &Key, opts: &DeleteOptions) -> ApiResponse {
        // R9
        if opts.orphan_dependents.is_some() && opts.propagation_policy.is_some() {
            return ApiResponse::err(
                422,
                format!(
                    "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: {:?}: orphanDependents and deletionPropagation cannot be both set",
                    opts.propagation_policy.clone().unwrap_or_default()
                ),
            );
        }
        if let Some(p) = &opts.propagation_policy
            && Policy::parse(p).is_none_or(|parsed| parsed.as_str() != p)
        {
            return ApiResponse::err(
                422,
                format!(
                    "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
                ),
            );
        }
        let Some(obj) = self.get_shared(key).cloned() else {
            return self.not_found(key);
        };
        let resource = self.resource_name(obj.group(), &obj.kind);
        let is_namespace = obj.kind == "Namespace" && obj.group().is_empty();
        if is_namespace && IMMORTAL_NAMESPACES.contains(&obj.name()) {
            return ApiResponse::err(
                403,
                format!(
                    "namespaces \"{}\" is forbidden: this namespace may not be deleted",
                    obj.name()
                ),
            );
        }
        // R10
        if let Some(uid) = &opts.preconditions.uid
            && uid != obj.uid()
        {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {resource} \"{}\": the UID in the precondition ({uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
                    obj.name(),
                    obj.uid()
                ),
            );
        }
        if let Some(rv) = &opts.preconditions.resource_version
            && Some(rv) != obj.metadata.resource_version.as_ref()
        {
            return ApiResponse::err(
                409,
                format!(
                    "Operation cannot be fulfilled on {resource} \"{}\": the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
                    obj.name(),
                    obj.metadata.resource_version.clone().unwrap_or_default()
                ),
            );
        }
        let mut warnings = Vec::new();
        if obj.group() == "batch"
            && obj.kind == "Job"
            && opts.orphan_dependents.is_none()
            && opts.propagation_policy.is_none()
        {
            warnings.push("child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning".to_string());
        }
        let is_crd =
            obj.kind == "CustomResourceDefinition" && obj.group() == "apiextensions.k8s.io";
        let mut resp = if is_namespace {
            self.delete_namespace(obj, opts)
        } else if is_crd && !obj.is_terminating() {
            self.delete_crd(obj)
        } else {
            self.delete_object(obj, opts)
        };
        resp.warnings.splice(0..0, warnings);
        if resp.code == 200 && !resp.removed && opts.orphan_dependents == Some(false) {
            resp.code = 202; // R16
        }
        resp
    }

    /// The CustomResourceDefinition serving `group`/`kind`, if any.
    #[must_use]
    pub fn crd_of(&self, group: &str, kind: &str) -> Option<&Object> {
        if group.is_empty() || !group.contains('.') {
            return None;
        }
        self.objects().find(|c| {
            c.kind == "CustomResourceDefinition"
                && c.group() == "apiextensions.k8s.io"
                && c.str_at(&["spec", "group"]) == Some(group)
                && c.str_at(&["spec", "names", "kind"]) == Some(kind)
        })
    }

    /// R75: the first DELETE of a CRD ignores any propagation policy: it
    /// adds the cleanup finalizer and the Terminating condition; the CRD
    /// finalizer controller deletes the instances, then lets it go.
    fn delete_crd(&mut self, obj: Arc<Object>) -> ApiResponse {
        let mut new = Object::clone(&obj);
        new.metadata
            .finalizers
            .retain(|f| f != ORPHAN && f != FOREGROUND);
        if !new.has_finalizer(CRD_CLEANUP) {
            new.metadata.finalizers.push(CRD_CLEANUP.into());
        }
        new.metadata.deletion_timestamp = Some(self.now);
        new.metadata.deletion_grace_period_seconds = Some(0);
        new.status = crd_terminating(
            &new.status,
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        )
        .into();
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }

    fn names_policy(opts: &DeleteOptions) -> bool {
        opts.orphan_dependents.is_some() || opts.propagation_policy.is_some()
    }

    fn delete_object(&mut self, obj: Arc<Object>, opts: &DeleteOptions) -> ApiResponse {
        let grace = Self::grace_period(&obj, opts);
        let now = self.now;
        if let Some(ts) = obj.metadata.deletion_timestamp {
            let pending = obj.metadata.deletion_grace_period_seconds.unwrap_or(0);
            if pending > 0 {
                // R18
                if grace >= pending {
                    return ApiResponse::ok(obj);
                }
                let mut new = Object::clone(&obj);
                let start = ts - SignedDuration::from_secs(pending);
                let mut new_ts = start + SignedDuration::from_secs(grace);
                let mut new_grace = grace;
                if new_ts < now {
                    new_ts = now;
                    if new_grace != 0 {
                        new_grace = 1;
                    }
                }
                new.metadata.deletion_timestamp = Some(new_ts);
                new.metadata.deletion_grace_period_seconds = Some(new_grace);
                new.metadata.finalizers = self.gc_finalizers(&obj, opts);
                return self.finish_delete(obj, new);
            }
            // R17
            if !Self::names_policy(opts) {
                return ApiResponse::ok(obj);
            }
            let mut new = Object::clone(&obj);
            new.metadata.finalizers = self.gc_finalizers(&obj, opts);
            return self.finish_delete(obj, new);
        }
        let mut new = Object::clone(&obj);
        new.metadata.finalizers = self.gc_finalizers(&obj, opts);
        if grace > 0 {
            // R15
            new.metadata.deletion_timestamp = Some(now + SignedDuration::from_secs(grace));
            new.metadata.deletion_grace_period_seconds = Some(grace);
        } else {
            if new.metadata.finalizers.is_empty() {
                // R13. A pod is a graceful kind: even at grace 0 a watch
                // sees it MODIFIED (deletionTimestamp, grace 0), then
                // DELETED, as on a real control plane.
                if obj.is_pod() {
                    let mut marked = new.clone();
                    marked.metadata.deletion_timestamp = Some(now);
                    marked.metadata.deletion_grace_period_seconds = Some(0);
                    let stored = self.store_update(obj, marked);
                    self.remove_stored(stored.uid());
                    return Self::removed_status(stored);
                }
                self.remove_stored(obj.uid());
                return Self::removed_status(new);
            }
            // R14
            new.metadata.deletion_timestamp = Some(now);
            new.metadata.deletion_grace_period_seconds = Some(0);
        }
        if let Some(g) = new.metadata.generation.as_mut()
            && *g > 0
        {
            *g += 1;
        }
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }

    /// Stores `new` after a repeat DELETE, or removes the object when no
    /// finalizer and no grace is left.
    fn finish_delete(&mut self, old: Arc<Object>, new: Object) -> ApiResponse {
        if new.metadata.finalizers.is_empty()
            && new.metadata.deletion_grace_period_seconds.unwrap_or(0) == 0
        {
            self.remove_stored(old.uid());
            return Self::removed_status(new);
        }
        if new == *old {
            return ApiResponse::ok(old);
        }
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }

    fn removed_status(obj: impl Into<Arc<Object>>) -> ApiResponse {
        ApiResponse {
            removed: true,
            ..ApiResponse::ok(obj)
        }
    }

    /// R56: namespaces.
    fn delete_namespace(&mut self, obj: Arc<Object>, opts: &DeleteOptions) -> ApiResponse {
        if obj.is_terminating() {
            return ApiResponse::ok(obj);
        }
        let mut new = Object::clone(&obj);
        new.metadata.deletion_timestamp = Some(self.now);
        new.set_at(&["status", "phase"], Value::from("Terminating"));
        if Self::names_policy(opts) {
            new.metadata.finalizers = self.gc_finalizers(&obj, opts);
        }
        if new.metadata.finalizers.is_empty() && !Self::namespace_spec_finalizers_remain(&new) {
            self.remove_stored(obj.uid());
            return Self::removed_status(new);
        }
        let stored = self.store_update(obj, new);
        ApiResponse::ok(stored)
    }
}

/// A CRD's status with its `Terminating` condition set (R75): True, with
/// the reason of the stage the deletion is at.
#[must_use]
pub fn crd_terminating(status: &Value, reason: &str, message: &str) -> Value {
    let mut status = if status.is_object() {
        status.clone()
    } else {
        serde_json::json!({})
    };
    let mut conditions: Vec<Value> = status["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c["type"] != "Terminating")
        .collect();
    conditions.push(serde_json::json!({
        "type": "Terminating", "status": "True", "reason": reason, "message": message
    }));
    status["conditions"] = Value::from(conditions);
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ApiServer {
        ApiServer::new(KindTable::builtin(), 1, Timestamp::UNIX_EPOCH)
    }

    #[test]
    fn uids_are_deterministic_per_seed() {
        let a: Vec<Uid> = (0..3).map(|_| UidGen::new(7).next_uid()).collect();
        assert_eq!(a[0], a[1]);
        let mut g = UidGen::new(7);
        assert_ne!(g.next_uid(), g.next_uid());
        assert_ne!(UidGen::new(7).next_uid(), UidGen::new(8).next_uid());
    }

    #[test]
    fn delete_of_plain_object_removes_it_with_200() {
        let mut api = server();
        let c = Caller::default();
        let resp = api.create(Object::new("v1", "ConfigMap", Some("a"), "x"), &c, false);
        assert_eq!(resp.code, 201);
        let key = Key {
            group: String::new(),
            kind: "ConfigMap".into(),
            namespace: Some("a".into()),
            name: "x".into(),
        };
        let resp = api.delete(&key, &DeleteOptions::policy(Policy::Background));
        assert_eq!((resp.code, resp.removed), (200, true));
        assert_eq!(
            api.delete(&key, &DeleteOptions::default()).message,
            "configmaps \"x\" not found"
        );
    }
}
