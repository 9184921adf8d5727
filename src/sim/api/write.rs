//! Create, update and patch (GC-SEMANTICS sections A and B).

use super::*;

impl ApiServer {
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
        // A restored object shared with what it is restored from (a reset
        // restores what the first start stored): changed in a copy, and
        // the copy is stored only if restoring changed something, so the
        // store and the scenario kept to reset from share each object.
        let kept = (restore && Arc::strong_count(&shared) > 1).then(|| Arc::clone(&shared));
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
                    kind: crate::sim::validation::FieldErrorKind::Invalid("\"\"".into()),
                    detail: "name or generateName is required".into(),
                }],
            );
        }
        let namespaced = match self.store.kinds().namespaced(group, &obj.kind) {
            Some(known) => known,
            None => {
                let guess = obj.namespace().is_some();
                self.store_mut()
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
        if !restore && let Err(resp) = self.call_webhooks(obj, Operation::Create) {
            return resp;
        }
        if restore {
            if obj.metadata.uid.is_empty() {
                obj.metadata.uid = self.uids.next_uid();
            }
            // Whether its uid is taken is asked as it is stored, below.
            let now = self.stamp(self.now);
            obj.metadata.creation_timestamp.get_or_insert(now);
        } else {
            // R19: system fields are wiped on create.
            obj.metadata.uid = self.uids.next_uid();
            obj.metadata.deletion_timestamp = None;
            obj.metadata.deletion_grace_period_seconds = None;
            obj.metadata.creation_timestamp = Some(self.stamp(self.now));
        }
        if generation::tracks_generation(obj) && (!restore || obj.metadata.generation.is_none()) {
            obj.metadata.generation = Some(1);
        }
        Self::apply_create_defaults(obj);
        if !restore {
            Self::generate_job_selector(obj);
        }
        if !restore {
            self.record(caller, None, obj);
        }
        let crd = KindInfo::of_crd(obj);
        self.stamp_rv(&mut obj.metadata.resource_version);
        let obj = match kept {
            Some(kept) if *kept == *shared => kept,
            _ => shared,
        };
        if restore {
            // Loading, not a request: no change is recorded, the loader
            // shows each restored object to the watchers itself (a change
            // per object would hold a second copy of the whole store at
            // once), from the stored object the answer shares.
            if let Err(taken) = self.store_mut().insert_new(Arc::clone(&obj)) {
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
            self.store_mut().kinds_mut().declare(info);
        }
        ApiResponse {
            code: 201,
            warnings,
            ..ApiResponse::ok(obj)
        }
    }

    /// The answer to creating an object whose kind, namespace and name
    /// another one has.
    pub(super) fn already_exists(&self, obj: &Object, terminating: bool) -> ApiResponse {
        let resource = self.resource_name(obj.group(), &obj.kind);
        let msg = format!("{} \"{}\" already exists", resource, obj.name());
        if terminating {
            ApiResponse::err(409, format!("object is being deleted: {msg}"))
        } else {
            ApiResponse::err(409, msg)
        }
    }

    /// The answer to restoring an object whose uid another one has.
    pub(super) fn uid_taken(obj: &Object) -> ApiResponse {
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
        if let Err(resp) = self.call_webhooks(&obj, Operation::Update) {
            return resp;
        }
        if self.raises_generation(&old, &obj)
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
        self.record(caller, Some(&old), &mut obj);
        let stored = self.store_update(old, obj);
        ApiResponse {
            warnings,
            ..ApiResponse::ok(stored)
        }
    }

    pub(super) fn should_delete_during_update(&self, obj: &Object) -> bool {
        obj.is_terminating()
            && obj.metadata.finalizers.is_empty()
            && obj.metadata.deletion_grace_period_seconds.unwrap_or(0) == 0
            && !Self::namespace_spec_finalizers_remain(obj)
    }

    pub(super) fn namespace_spec_finalizers_remain(obj: &Object) -> bool {
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
    pub fn finalize_namespace(
        &mut self,
        name: &str,
        spec_finalizers: Vec<String>,
        caller: &Caller,
    ) -> ApiResponse {
        let key = Key::namespace(name);
        let Some(old) = self.get_shared(&key).cloned() else {
            return self.not_found(&key);
        };
        let mut new = Object::clone(&old);
        new.set_at(&["spec", "finalizers"], Value::from(spec_finalizers));
        self.finalize_to(old, new, caller)
    }

    /// The `/finalize` subresource as a client writes it: of `ns`, only
    /// `spec.finalizers` is taken (and what serve keeps beside the
    /// object, its `managedFields`), as the namespace's finalize strategy.
    pub fn finalize_namespace_as(&mut self, ns: &Object, caller: &Caller) -> ApiResponse {
        let key = Key::namespace(ns.name());
        let Some(old) = self.get_shared(&key).cloned() else {
            return self.not_found(&key);
        };
        let mut new = Object::clone(&old);
        match ns.value_at(&["spec", "finalizers"]) {
            Some(f) if !f.is_null() => new.set_at(&["spec", "finalizers"], f.clone()),
            _ => {
                if let Some(spec) = new.spec.as_object_mut() {
                    spec.remove("finalizers");
                }
            }
        }
        new.extra.clone_from(&ns.extra);
        self.finalize_to(old, new, caller)
    }

    fn finalize_to(&mut self, old: Arc<Object>, mut new: Object, caller: &Caller) -> ApiResponse {
        if new == *old {
            return ApiResponse::ok(old);
        }
        if self.should_delete_during_update(&new) {
            self.remove_stored(old.uid());
            return ApiResponse {
                removed: true,
                ..ApiResponse::ok(new)
            };
        }
        self.record(caller, Some(&old), &mut new);
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }

    /// Updates `status` (the status subresource: metadata untouched).
    pub fn update_status(&mut self, key: &Key, status: Value, caller: &Caller) -> ApiResponse {
        let Some(old) = self.get_shared(key).cloned() else {
            return self.not_found(key);
        };
        let mut new = Object::clone(&old);
        new.status = status.into();
        if new == *old {
            return ApiResponse::ok(old);
        }
        self.record(caller, Some(&old), &mut new);
        let stored = self.store_update(old, new);
        ApiResponse::ok(stored)
    }
}
