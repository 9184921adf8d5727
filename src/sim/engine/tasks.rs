//! What each scheduled task does: a GC batch, the kubelet confirming a
//! pod's deletion, a finalizer's controller, the CRD and namespace
//! controllers; and carrying out the intents they return.

use super::*;

impl Sim {
    /// Runs the task at `key`; a workload's sync may have been computed
    /// `ahead`.
    pub(super) fn run_task(&mut self, key: (u64, u64), task: Task, ahead: &mut Ahead) {
        match task {
            Task::Step(i) => self.run_step(i),
            Task::GcBatch => {
                self.gc_rest = self.gc.take_batch().into();
                self.run_gc_batch();
            }
            Task::GcBatchRest => self.run_gc_batch(),
            Task::GcRetry(work) => {
                self.gc.requeue(work);
                self.after_dispatch();
            }
            Task::GcObserve(uid) => self.run_gc_observe(&uid),
            Task::Kubelet(uid) => self.run_kubelet(&uid),
            Task::RemoveFinalizer { uid, finalizer } | Task::RetryFinalizer { uid, finalizer } => {
                self.run_finalizer_controller(&uid, &finalizer);
            }
            Task::JobSync => {
                let intents = controllers::sync_job_tracking(&self.api);
                self.carry_out(intents);
            }
            Task::Workload(uid) => {
                let synced = ahead.take(key).unwrap_or_else(|| {
                    self.api
                        .get_uid(&uid)
                        .map(|owner| controllers::sync_workload(&self.api, &self.workloads, owner))
                });
                ahead.ran(synced.as_ref().is_none_or(Vec::is_empty));
                if let Some(intents) = synced {
                    self.carry_out(intents);
                }
            }
            Task::EndpointSlice(owner) => {
                let intents = controllers::endpoint::replace_slice(&self.api, &owner);
                self.carry_out(intents);
            }
            Task::Endpoints(ns, name) => {
                let intents = controllers::endpoint::sync(&self.api, &ns, &name);
                self.carry_out(intents);
            }
            Task::VolumeSync => {
                let intents = controllers::sync_volume_protection(&self.api);
                self.carry_out(intents);
            }
            Task::CrdSync(name) => self.run_crd(&name),
            Task::TtlAfterFinished(uid) => {
                if let Some(job) = self.api.get_uid(&uid) {
                    let intents = controllers::ttl_after_finished::sync(job, self.now());
                    if intents.is_empty() {
                        self.schedule_ttl(&uid);
                    }
                    self.carry_out(intents);
                }
            }
            Task::NamespaceSync(name) => self.run_namespace(&name),
            Task::ApiServices => self.run_apiservices(),
            Task::TokenSecret(uid) => {
                let intents = controllers::tokens::sync_secret(&self.api, &uid);
                self.carry_out(intents);
            }
            Task::CronJob(uid) | Task::CronTick(uid) => self.run_cronjob(&uid),
            Task::RootCa(ns) => {
                if let Some(ca) = self.settings.root_ca.as_deref() {
                    let intents = controllers::root_ca_cert_publisher::sync(&self.api, &ns, ca);
                    self.carry_out(intents);
                }
            }
            Task::PodGcTerminated => {
                let threshold = self.settings.terminated_pod_gc_threshold;
                let intents = controllers::podgc::terminated(&self.api, threshold);
                self.carry_out(intents);
            }
            Task::PodSucceeds(uid) => {
                let Some(pod) = self.api.get_uid(&uid) else {
                    return;
                };
                if pod.is_terminating() || !crate::model::workload::is_active_pod(pod) {
                    return;
                }
                // Only a kubelet that reports says so: a pod on a node that
                // is not Ready, or gone, runs on for all the API knows
                // (R76, STUCK-CAUSES C8).
                use crate::model::nodes::{NodeHealth, of_pod};
                if matches!(
                    of_pod(self.api.graph(), pod),
                    NodeHealth::NotReady { .. } | NodeHealth::Gone { .. }
                ) {
                    return;
                }
                let mut status = (*pod.status).clone();
                if !status.is_object() {
                    status = serde_json::json!({});
                }
                status["phase"] = Value::from("Succeeded");
                let key = Key::of(pod);
                self.actor = "kubelet".into();
                let kubelet = Caller {
                    name: self.actor.clone(),
                    ..Caller::default()
                };
                self.api.update_status(&key, status, &kubelet);
                self.dispatch();
                self.actor = self.user_actor.clone();
            }
            Task::PodGc(node) => {
                let intents = controllers::podgc::sync(&self.api, &node);
                self.carry_out(intents);
            }
        }
    }

    /// The root CA publisher's pass over every namespace now, not at the
    /// clock's first tick: a server that starts holds what its controller
    /// manager published before, paused or not. Nothing without
    /// [`Settings::root_ca`].
    pub fn publish_root_ca(&mut self) {
        self.prime();
        let Some(ca) = self.settings.root_ca.clone() else {
            return;
        };
        let namespaces: Vec<String> = self
            .api
            .graph()
            .objects()
            .filter(|o| o.kind == "Namespace" && o.group().is_empty())
            .map(|o| o.name().to_string())
            .collect();
        for ns in namespaces {
            let intents = controllers::root_ca_cert_publisher::sync(&self.api, &ns, &ca);
            self.carry_out(intents);
        }
    }

    /// The CronJob controller's sync; then a timer for its next schedule
    /// time (upstream v2 requeues the CronJob for then).
    pub(super) fn run_cronjob(&mut self, uid: &str) {
        let Some(cj) = self.api.get_uid(uid) else {
            return;
        };
        let now = self.now();
        let sync = controllers::cronjob::sync(&self.api, &self.workloads, cj, now);
        self.carry_out(sync.intents);
        if let Some(next) = sync.next {
            let wait = u64::try_from(next.duration_since(now).as_millis()).unwrap_or(0);
            self.schedule_once(
                wait + self.settings.controller_delay.0,
                Task::CronTick(uid.to_string()),
            );
        }
    }

    /// Works through the batch taken ([`Sim::gc_rest`]); a bounded run
    /// stops between two items once its time is up, leaving the rest
    /// there for [`Task::GcBatchRest`].
    pub(super) fn run_gc_batch(&mut self) {
        // In queue order, as upstream's FIFO workqueue hands items to its
        // workers: a foreground owner's dependents are queued before the
        // owner itself (processTransitions), so they are decided while the
        // owner still waits for them (R43).
        while let Some(work) = self.gc_rest.pop_front() {
            self.actor = GC_ACTOR.into();
            let result = self.gc.process(work.clone(), &mut self.api);
            self.dispatch();
            if let PassResult::Retry { after_ms, .. } = result {
                self.schedule_at(self.now_ms + after_ms, Task::GcRetry(work));
            }
            if self.out_of_time() {
                break;
            }
        }
        self.actor = self.user_actor.clone();
    }

    /// The GC's informer catches up with an object it had not observed: the
    /// GC sees it as it is now (R47 fault mode).
    pub(super) fn run_gc_observe(&mut self, uid: &str) {
        if !self.gc.unobserved.remove(uid) {
            return;
        }
        if let Some(obj) = self.api.graph().get_shared(uid).cloned() {
            self.gc.observe(&Change::Added(obj), self.api.kinds());
        }
        self.after_dispatch();
    }

    pub(super) fn run_kubelet(&mut self, uid: &str) {
        self.kubelet_scheduled.remove(uid);
        let Some(pod) = self.api.get_uid(uid).cloned() else {
            return;
        };
        // A node that stopped reporting meanwhile confirms nothing (R76).
        if !pod.is_terminating() || !crate::model::nodes::of_pod(self.api.graph(), &pod).confirms()
        {
            return;
        }
        let opts = DeleteOptions {
            grace_period_seconds: Some(0),
            preconditions: crate::sim::api::Preconditions {
                uid: Some(uid.to_string()),
                resource_version: None,
            },
            ..DeleteOptions::default()
        };
        self.actor = "kubelet".into();
        self.api.delete(&Key::of(&pod), &opts);
        self.dispatch();
        self.actor = self.user_actor.clone();
    }

    pub(super) fn run_finalizer_controller(&mut self, uid: &str, finalizer: &str) {
        self.finalizer_scheduled
            .remove(&(uid.to_string(), finalizer.to_string()));
        if !self.controllers.get(finalizer).is_some_and(|c| c.online) {
            return;
        }
        let Some(obj) = self.api.get_uid(uid).cloned() else {
            return;
        };
        let denial = (uid.to_string(), finalizer.to_string());
        if !obj.is_terminating() || !obj.has_finalizer(finalizer) {
            self.finalizer_denials.remove(&denial);
            return;
        }
        self.actor = format!("controller of {finalizer}");
        let caller = Caller {
            name: self.actor.clone(),
            ..Caller::default()
        };
        let resp = self.api.patch(&Key::of(&obj), &caller, |o| {
            if o.uid() == uid {
                o.metadata.finalizers.retain(|f| f != finalizer);
            }
        });
        if resp.is_success() {
            self.finalizer_denials.remove(&denial);
        } else {
            // Refused (an admission webhook that nothing answers,
            // STUCK-CAUSES C6): the controller requeues it and tries again,
            // as a reconcile that returned an error does. The answer is on
            // the timeline once, and again only if it changes.
            if self.finalizer_denials.get(&denial) != Some(&resp.message) {
                self.respond(
                    obj.obj_ref(),
                    format!("PATCH remove finalizer {finalizer}"),
                    &resp,
                );
                self.finalizer_denials.insert(denial, resp.message.clone());
            }
            self.schedule_once(
                FINALIZER_RETRY_MS,
                Task::RetryFinalizer {
                    uid: uid.to_string(),
                    finalizer: finalizer.to_string(),
                },
            );
        }
        self.dispatch();
        self.actor = self.user_actor.clone();
    }

    /// The aggregator: each aggregated APIService Available or not; a
    /// group version turns unavailable or back (R80).
    pub(super) fn run_apiservices(&mut self) {
        let services: Vec<Object> = self
            .apiservices
            .keys()
            .filter_map(|uid| self.api.get_uid(uid).cloned())
            .collect();
        for a in services {
            let Some((gv, state)) = controllers::apiservice::availability(&self.api, &a) else {
                continue;
            };
            let was_down = self.unavailable_apis.contains(&gv);
            match state {
                Ok(()) if was_down => {
                    self.unavailable_apis.remove(&gv);
                    self.set_api_available(&gv, true);
                }
                Err(detail) => {
                    if !was_down {
                        self.unavailable_apis.insert(gv.clone());
                        self.set_api_available(&gv, false);
                    }
                    self.api.kinds_mut().set_discovery_detail(&gv, &detail);
                }
                Ok(()) => {}
            }
        }
    }

    pub(super) fn run_crd(&mut self, name: &str) {
        let key = Key {
            group: "apiextensions.k8s.io".into(),
            kind: "CustomResourceDefinition".into(),
            namespace: None,
            name: name.to_string(),
        };
        let Some(crd) = self.api.get(&key).cloned() else {
            return;
        };
        let (intents, again) = controllers::sync_crd(&self.api, &crd);
        self.carry_out(intents);
        if again && self.api.get(&key).is_some() {
            // Upstream polls every 5 s for the instances to be gone.
            self.schedule_once(5_000, Task::CrdSync(name.to_string()));
        }
    }

    pub(super) fn run_namespace(&mut self, name: &str) {
        let key = Key::namespace(name);
        let Some(ns) = self.api.get(&key).cloned() else {
            return;
        };
        let since = ns.metadata.deletion_timestamp.map_or(0, |t| {
            u64::try_from(self.api.now().duration_since(t).as_millis()).unwrap_or(0)
        });
        let pass = controllers::sync_namespace(&self.api, &ns, since);
        self.carry_out(pass.intents);
        if let Some(ms) = pass.requeue_ms
            && self.api.get(&key).is_some()
        {
            self.schedule_once(ms, Task::NamespaceSync(name.to_string()));
        }
    }

    /// Sends the controllers' requests under their names.
    pub(super) fn carry_out(&mut self, intents: Vec<Intent>) {
        for Intent { actor, op } in intents {
            self.actor = actor;
            let caller = Caller {
                name: self.actor.clone(),
                ..Caller::default()
            };
            match op {
                Op::RemoveFinalizer {
                    key,
                    uid,
                    finalizer,
                } => {
                    self.api.patch(&key, &caller, |o| {
                        if o.uid() == uid {
                            o.metadata.finalizers.retain(|f| *f != finalizer);
                        }
                    });
                }
                Op::Adopt {
                    key,
                    uid,
                    owner,
                    finalizer,
                } => {
                    let owner_uid = owner.uid.clone();
                    let taken = self.api.get(&key).is_none_or(|o| {
                        o.uid() != uid
                            || o.metadata
                                .owner_references
                                .iter()
                                .any(|r| r.is_controller())
                    });
                    if taken {
                        // Another controller got there first: this one
                        // counts again without it.
                        self.schedule_once(
                            self.settings.controller_delay.0,
                            Task::Workload(owner_uid),
                        );
                    }
                    self.api.patch(&key, &caller, |o| {
                        if o.uid() == uid
                            && !o
                                .metadata
                                .owner_references
                                .iter()
                                .any(|r| r.is_controller())
                        {
                            o.metadata.owner_references.push(owner);
                            if let Some(f) = finalizer
                                && !o.has_finalizer(&f)
                            {
                                o.metadata.finalizers.push(f);
                            }
                        }
                    });
                }
                Op::Delete { key, options } => {
                    self.api.delete(&key, &options);
                }
                Op::Create {
                    object,
                    generate_name,
                } => {
                    self.create_as(*object, generate_name.as_deref(), &caller);
                }
                Op::Release {
                    key,
                    uid,
                    owner_uid,
                } => {
                    self.api.patch(&key, &caller, |o| {
                        if o.uid() == uid {
                            o.metadata.owner_references.retain(|r| r.uid != owner_uid);
                        }
                    });
                }
                Op::SetData { key, uid, data } => {
                    self.api.patch(&key, &caller, |o| {
                        if o.uid() == uid {
                            let mut rest = crate::model::unkept::of(o)
                                .filter(Value::is_object)
                                .unwrap_or_else(|| serde_json::json!({}));
                            rest["data"] = data;
                            crate::model::unkept::set(o, Some(&rest));
                        }
                    });
                }
                Op::Scale { key, uid, replicas } => {
                    self.api.patch(&key, &caller, |o| {
                        if o.uid() == uid {
                            o.set_at(&["spec", "replicas"], Value::from(replicas));
                        }
                    });
                }
                Op::SetStatus { key, status } => {
                    self.api.update_status(&key, status, &caller);
                }
                Op::FinalizeNamespace { name } => {
                    // R58: the controller removes its own entry only; a
                    // namespace with another spec finalizer stays
                    // Terminating holding just that one.
                    let key = Key::namespace(&name);
                    let rest: Vec<String> = self
                        .api
                        .get(&key)
                        .map(|ns| ns.strings_at(&["spec", "finalizers"]))
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|f| f != "kubernetes")
                        .collect();
                    self.api.finalize_namespace(&name, rest, &caller);
                }
            }
            self.dispatch();
        }
        self.actor = self.user_actor.clone();
    }

    /// A controller's POST. With `generate_name` the name is the prefix and
    /// five characters drawn from the simulator's seed, drawn again on a
    /// clash as the API server's `generateName` retries.
    pub(super) fn create_as(
        &mut self,
        mut object: Object,
        generate_name: Option<&str>,
        caller: &Caller,
    ) {
        if let Some(prefix) = generate_name {
            for _ in 0..8 {
                let name = format!(
                    "{prefix}{}",
                    crate::model::workload::name_suffix(self.api.uids().next_u64())
                );
                object.metadata.name = name;
                if self.api.get(&Key::of(&object)).is_none() {
                    break;
                }
            }
        }
        self.api.create(object, caller, false);
    }
}
