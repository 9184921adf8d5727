//! Steps and user actions: the requests a user (or a scenario step) makes
//! of the simulated API server, recorded on the timeline.

use super::*;

impl Sim {
    pub(super) fn run_step(&mut self, i: usize) {
        self.next_step = self.next_step.max(i + 1);
        let Some(Step { action, .. }) = self.scenario.steps.get(i).cloned() else {
            return;
        };
        self.actor = self.user_actor.clone();
        match action {
            StepAction::Delete { target, options } => {
                self.delete(&target, &options);
            }
            StepAction::RemoveFinalizer { target, finalizer } => {
                self.remove_finalizer(&target, &finalizer);
            }
            StepAction::AddFinalizer { target, finalizer } => {
                self.add_finalizer(&target, &finalizer);
            }
            StepAction::Controller { finalizer, online } => self.set_controller(&finalizer, online),
            StepAction::Create { object } => {
                self.create(*object);
            }
            StepAction::SetPhase { target, phase } => {
                self.set_phase(&target, &phase);
            }
            StepAction::Api {
                group_version,
                available,
            } => self.set_api_available(&group_version, available),
            StepAction::Scale { target, replicas } => {
                self.patch(&target, &format!("spec.replicas={replicas}"), |o| {
                    o.set_at(&["spec", "replicas"], Value::from(replicas));
                });
            }
        }
    }

    /// The discovery of a group version fails or recovers (an aggregated
    /// API's backend goes down or comes back). Recovered, every namespace
    /// waiting on it is looked at again.
    pub fn set_api_available(&mut self, group_version: &str, available: bool) {
        self.prime();
        self.api
            .kinds_mut()
            .set_discovery_failing(group_version, !available);
        if available {
            let waiting: Vec<String> = self
                .api
                .objects()
                .filter(|o| o.kind == "Namespace" && o.group().is_empty() && o.is_terminating())
                .map(|o| o.name().to_string())
                .collect();
            for name in waiting {
                self.schedule_once(self.settings.controller_delay.0, Task::NamespaceSync(name));
            }
        }
    }

    /// Resolves what a user typed to a key: kind by name, plural or short
    /// name; with no namespace, the one namespace that has an object of that
    /// kind and name.
    ///
    /// # Errors
    /// Unknown or ambiguous kind; a name found in several namespaces.
    pub fn resolve(&self, target: &Target) -> Result<Key, String> {
        resolve_target(self.api.kinds(), self.api.objects(), target)
    }

    pub(super) fn respond(&mut self, object: ObjRef, request: String, resp: &ApiResponse) {
        self.timeline.push(Entry {
            t_ms: self.now_ms,
            object,
            by: self.actor.clone(),
            what: What::Response {
                request,
                code: resp.code,
                message: resp.message.clone(),
                warnings: resp.warnings.clone(),
            },
        });
    }

    pub(super) fn target_ref(&self, key: &Key) -> ObjRef {
        match self.api.get(key) {
            Some(o) => o.obj_ref(),
            None => ObjRef {
                api_version: self
                    .api
                    .kinds()
                    .get(&key.group, &key.kind)
                    .map(crate::model::KindInfo::api_version)
                    .unwrap_or_default(),
                kind: key.kind.clone(),
                namespace: key.namespace.clone(),
                name: key.name.clone(),
                uid: String::new(),
            },
        }
    }

    pub(super) fn unresolved(
        &mut self,
        target: &Target,
        request: String,
        msg: String,
    ) -> ApiResponse {
        let resp = ApiResponse {
            code: 404,
            message: msg,
            warnings: Vec::new(),
            object: None,
            removed: false,
        };
        let object = ObjRef {
            kind: target.kind.clone(),
            namespace: target.namespace.clone(),
            name: target.name.clone(),
            ..ObjRef::default()
        };
        self.respond(object, request, &resp);
        resp
    }

    /// DELETE as the user.
    pub fn delete(&mut self, target: &Target, options: &DeleteOptions) -> ApiResponse {
        self.prime();
        match self.resolve(target) {
            Ok(key) => self.delete_key(&key, options),
            Err(msg) => self.unresolved(target, options.describe(), msg),
        }
    }

    /// DELETE as the user, by key.
    pub fn delete_key(&mut self, key: &Key, options: &DeleteOptions) -> ApiResponse {
        self.prime();
        let object = self.target_ref(key);
        let resp = self.api.delete(key, options);
        self.respond(object, options.describe(), &resp);
        self.dispatch();
        resp
    }

    /// Removes one finalizer, as `kubectl patch` would (GET, then PUT).
    pub fn remove_finalizer(&mut self, target: &Target, finalizer: &str) -> ApiResponse {
        self.prime();
        let request = format!("PATCH remove finalizer {finalizer}");
        match self.resolve(target) {
            Ok(key) => self.remove_finalizer_key(&key, None, finalizer),
            Err(msg) => self.unresolved(target, request, msg),
        }
    }

    /// Removes one finalizer by key, optionally only from the object with
    /// that uid (409 otherwise).
    pub fn remove_finalizer_key(
        &mut self,
        key: &Key,
        uid: Option<&str>,
        finalizer: &str,
    ) -> ApiResponse {
        self.prime();
        let request = format!("PATCH remove finalizer {finalizer}");
        let object = self.target_ref(key);
        let user = self.user.clone();
        let resp = match self.api.get(key) {
            Some(o) if uid.is_some_and(|u| u != o.uid()) => ApiResponse {
                code: 409,
                message: format!(
                    "Operation cannot be fulfilled on {} \"{}\": the object was deleted and recreated (uid {})",
                    key.kind,
                    key.name,
                    o.uid()
                ),
                warnings: Vec::new(),
                object: None,
                removed: false,
            },
            Some(o) if !o.has_finalizer(finalizer) => ApiResponse {
                code: 422,
                message: format!(
                    "{} \"{}\" has no finalizer {finalizer:?}",
                    key.kind, key.name
                ),
                warnings: Vec::new(),
                object: None,
                removed: false,
            },
            _ => self.api.patch(key, &user, |o| {
                o.metadata.finalizers.retain(|f| f != finalizer)
            }),
        };
        self.respond(object, request, &resp);
        self.dispatch();
        resp
    }

    /// Adds a finalizer (422 while the object is terminating, R22).
    pub fn add_finalizer(&mut self, target: &Target, finalizer: &str) -> ApiResponse {
        self.prime();
        let request = format!("PATCH add finalizer {finalizer}");
        let key = match self.resolve(target) {
            Ok(k) => k,
            Err(msg) => return self.unresolved(target, request, msg),
        };
        let object = self.target_ref(&key);
        let user = self.user.clone();
        let resp = self.api.patch(&key, &user, |o| {
            if !o.has_finalizer(finalizer) {
                o.metadata.finalizers.push(finalizer.to_string());
            }
        });
        self.respond(object, request, &resp);
        self.dispatch();
        resp
    }

    /// PUT as the user: `object` replaces the stored object of its kind,
    /// namespace and name (R19, R21-R23 apply).
    pub fn update(&mut self, object: Object) -> ApiResponse {
        self.prime();
        let key = Key::of(&object);
        let obj_ref = self.target_ref(&key);
        let user = self.user.clone();
        let resp = self.api.update(object, &user);
        self.respond(obj_ref, "PUT".into(), &resp);
        self.dispatch();
        resp
    }

    /// PUT of a namespace's `/finalize` as the user: its
    /// `spec.finalizers` from `ns`; the namespace goes when it is
    /// terminating and both finalizer lists are empty (R58.7).
    pub fn finalize_namespace(&mut self, ns: &Object) -> ApiResponse {
        self.prime();
        let key = Key::of(ns);
        let obj_ref = self.target_ref(&key);
        let user = self.user.clone();
        let resp = self.api.finalize_namespace_as(ns, &user);
        self.respond(obj_ref, "PUT finalize".into(), &resp);
        self.dispatch();
        resp
    }

    /// PATCH as the user: `change` edits the stored object (GET, change,
    /// PUT); `request` describes the patch in the timeline.
    pub fn patch(
        &mut self,
        target: &Target,
        request: &str,
        change: impl FnOnce(&mut Object),
    ) -> ApiResponse {
        self.prime();
        let request = format!("PATCH {request}");
        let key = match self.resolve(target) {
            Ok(k) => k,
            Err(msg) => return self.unresolved(target, request, msg),
        };
        let object = self.target_ref(&key);
        let user = self.user.clone();
        let resp = self.api.patch(&key, &user, change);
        self.respond(object, request, &resp);
        self.dispatch();
        resp
    }

    /// PATCH as the user, by key: `change` edits the stored object.
    pub fn patch_key(
        &mut self,
        key: &Key,
        request: &str,
        change: impl FnOnce(&mut Object),
    ) -> ApiResponse {
        self.prime();
        let object = self.target_ref(key);
        let user = self.user.clone();
        let resp = self.api.patch(key, &user, change);
        self.respond(object, format!("PATCH {request}"), &resp);
        self.dispatch();
        resp
    }

    /// Puts on the timeline a request answered outside the store (a
    /// dry run, a request refused before it reached the rules).
    pub fn record_response(&mut self, object: ObjRef, request: String, resp: &ApiResponse) {
        self.respond(object, request, resp);
    }

    /// Sets a pod's `status.phase`.
    pub fn set_phase(&mut self, target: &Target, phase: &str) -> ApiResponse {
        self.prime();
        let request = format!("PUT status.phase={phase}");
        let key = match self.resolve(target) {
            Ok(k) => k,
            Err(msg) => return self.unresolved(target, request, msg),
        };
        let object = self.target_ref(&key);
        let mut status = self
            .api
            .get(&key)
            .map(|o| (*o.status).clone())
            .unwrap_or(Value::Null);
        if !status.is_object() {
            status = serde_json::json!({});
        }
        status["phase"] = Value::from(phase);
        let user = self.user.clone();
        let resp = self.api.update_status(&key, status, &user);
        self.respond(object, request, &resp);
        self.dispatch();
        resp
    }

    /// POST as the user. Owner references without a uid take the uid of the
    /// owner of that kind and name that exists now.
    pub fn create(&mut self, mut object: Object) -> ApiResponse {
        self.prime();
        let ns = object.namespace().unwrap_or("default").to_string();
        for r in &mut object.metadata.owner_references {
            if r.uid.is_empty() {
                let key = Key {
                    group: group_of(&r.api_version).to_string(),
                    kind: r.kind.clone(),
                    namespace: Some(ns.clone()),
                    name: r.name.clone(),
                };
                if let Some(o) = self.api.get(&key) {
                    r.uid = o.uid().to_string();
                }
            }
        }
        let user = self.user.clone();
        let resp = self.api.create(object.clone(), &user, false);
        let obj_ref = resp
            .object
            .as_ref()
            .map_or_else(|| object.obj_ref(), |o| o.obj_ref());
        self.respond(obj_ref, "POST".into(), &resp);
        self.dispatch();
        resp
    }

    /// Takes a scenario controller online or offline (one is created,
    /// removing after 1s, if the scenario had none for that finalizer).
    pub fn set_controller(&mut self, finalizer: &str, online: bool) {
        self.prime();
        let state = self
            .controllers
            .entry(finalizer.to_string())
            .or_insert_with(|| ControllerState {
                finalizer: finalizer.to_string(),
                online,
                after: Millis(1000),
                workload: None,
            });
        // A controller that runs as a workload goes on or off with it.
        if let Some(w) = state.workload.clone() {
            self.scale_controller_workload(&w, online);
            return;
        }
        state.online = online;
        if online {
            let waiting: Vec<Object> = self
                .api
                .objects()
                .filter(|o| o.is_terminating() && o.has_finalizer(finalizer))
                .cloned()
                .collect();
            for o in waiting {
                self.maybe_schedule_finalizer_controllers(&o);
            }
        }
    }

    /// Names who the next user requests come from on the timeline (a
    /// served request's client, e.g. `kubectl`); `user` by default.
    pub fn set_user_actor(&mut self, actor: &str) {
        actor.clone_into(&mut self.user_actor);
        actor.clone_into(&mut self.actor);
    }

    /// The store's resource version now (what a list answers with).
    #[must_use]
    pub fn resource_version(&self) -> u64 {
        self.api.resource_version()
    }

    /// Sets the caller the user's requests are made as (R6 tests).
    pub fn set_user(&mut self, caller: Caller) {
        self.user = caller;
    }
}

/// See [`Sim::resolve`].
///
/// # Errors
/// As [`Sim::resolve`].
pub fn resolve_target<'a>(
    kinds: &KindTable,
    objects: impl Iterator<Item = &'a Object>,
    target: &Target,
) -> Result<Key, String> {
    let hits = kinds.resolve(&target.kind);
    let info = match hits.as_slice() {
        [] => {
            return Err(format!(
                "the server doesn't have a resource type {:?}",
                target.kind
            ));
        }
        [one] => (*one).clone(),
        many => {
            let names: Vec<String> = many.iter().map(|k| k.resource()).collect();
            return Err(format!(
                "{:?} is ambiguous: {}",
                target.kind,
                names.join(", ")
            ));
        }
    };
    if !info.namespaced {
        return Ok(Key {
            group: info.group,
            kind: info.kind,
            namespace: None,
            name: target.name.clone(),
        });
    }
    let namespace = match &target.namespace {
        Some(ns) => ns.clone(),
        None => {
            let found: BTreeSet<String> = objects
                .filter(|o| {
                    o.group() == info.group && o.kind == info.kind && o.name() == target.name
                })
                .filter_map(|o| o.namespace().map(str::to_string))
                .collect();
            match found.len() {
                0 => "default".to_string(),
                1 => found.into_iter().next().unwrap_or_default(),
                _ => {
                    let list: Vec<String> = found.into_iter().collect();
                    return Err(format!(
                        "{}/{} exists in several namespaces ({}): name one with -n",
                        info.kind,
                        target.name,
                        list.join(", ")
                    ));
                }
            }
        }
    };
    Ok(Key {
        group: info.group,
        kind: info.kind,
        namespace: Some(namespace),
        name: target.name.clone(),
    })
}
