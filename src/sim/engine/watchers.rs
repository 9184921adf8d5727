//! Watch events delivered: the garbage collector and the controllers
//! react to each change the API server made.

use super::*;

/// Who keeps the workload controllers' index up with a change.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Index {
    /// The handler, as it reacts.
    Here,
    /// Another thread, meanwhile: the initial list's (see
    /// [`Sim::initial_list`]). The handler reads nothing of the index and
    /// misses nothing by it: no object of the list was seen before (none
    /// had a controller before), and every workload an orphan or a new
    /// Node would have it sync was listed before that object, so its sync
    /// is pending already (nothing runs while the list is handed out).
    Elsewhere,
}

impl Sim {
    /// Hands the store's changes to the timeline, the GC and the
    /// controllers.
    pub(super) fn dispatch(&mut self) {
        loop {
            let changes = self.api.take_changes();
            if changes.is_empty() {
                break;
            }
            for ch in &changes {
                if let Some(e) = Entry::from_change(self.now_ms, &self.actor, ch) {
                    self.timeline.push(e);
                }
                self.react(ch);
            }
            if self.watched {
                self.watch.extend(changes);
            }
        }
        self.after_dispatch();
    }

    pub(super) fn after_dispatch(&mut self) {
        for ev in self.gc.take_events() {
            let object = ObjRef {
                api_version: ev.object.api_version().to_string(),
                kind: ev.object.kind().to_string(),
                namespace: Some(ev.object.namespace().to_string()).filter(|n| !n.is_empty()),
                name: ev.object.name().to_string(),
                uid: ev.object.uid().to_string(),
            };
            self.timeline.push(Entry {
                t_ms: self.now_ms,
                object,
                by: "garbage-collector-controller".into(),
                what: What::Event {
                    reason: ev.reason,
                    message: ev.message,
                },
            });
        }
        self.gc.take_actions();
        if self.gc.has_work() {
            self.schedule_once(self.settings.gc_delay.0, Task::GcBatch);
        }
    }

    pub(super) fn react(&mut self, ch: &Change) {
        self.gc.observe(ch, self.api.kinds());
        self.react_controllers(ch, Index::Here);
    }

    /// [`Sim::react`] but for the garbage collector: the controllers'
    /// handlers, which read nothing the collector keeps.
    pub(super) fn react_controllers(&mut self, ch: &Change, index: Index) {
        self.follow_controller_workloads(ch.object());
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let delay = self.settings.controller_delay.0;
        self.react_workloads(ch, delay, index);
        if self.settings.root_ca.is_some()
            && let Some(ns) =
                controllers::root_ca_cert_publisher::watches(obj, matches!(ch, Change::Added(_)))
        {
            // Upstream's queue has no delay: on the test control plane the
            // ConfigMap was there by the next request.
            let ns = ns.to_string();
            self.schedule_once(0, Task::RootCa(ns));
        }
        if !deleted && obj.kind == "Job" && obj.group() == "batch" {
            let uid = obj.uid().to_string();
            self.schedule_ttl(&uid);
        }
        // An instance of a custom resource whose definition is being
        // deleted went: the CRD finalizer looks again (the CRD goes right
        // after its last instance).
        if deleted
            && !crate::model::KindTable::is_builtin(obj.group(), &obj.kind)
            && let Some(crd) = self
                .api
                .crd_of(obj.group(), &obj.kind)
                .filter(|c| c.is_terminating())
        {
            let name = crd.name().to_string();
            self.schedule_once(delay, Task::CrdSync(name));
        }
        match (obj.group(), obj.kind.as_str()) {
            ("", "Pod") => {
                if !self.apiservices.is_empty() {
                    self.schedule_once(delay, Task::ApiServices);
                }
                if !deleted && obj.is_terminating() {
                    self.maybe_schedule_kubelet(obj);
                }
                if !deleted
                    && let Some(node) = crate::model::nodes::gone_node(self.api.graph(), obj)
                {
                    self.schedule_once(
                        crate::model::nodes::POD_GC_QUARANTINE_SECS * 1000,
                        Task::PodGc(node),
                    );
                }
                if obj.has_finalizer(controllers::JOB_TRACKING) {
                    self.schedule_once(delay, Task::JobSync);
                }
                if !deleted
                    && self.settings.terminated_pod_gc_threshold > 0
                    && !self.pending.contains(&Task::PodGcTerminated)
                    && controllers::podgc::is_terminated(obj)
                {
                    self.schedule_once(controllers::podgc::CHECK_PERIOD_MS, Task::PodGcTerminated);
                }
                if let (Change::Added(_), Some(after)) = (ch, self.settings.job_pods_succeed_after)
                    && crate::model::workload::controller_ref(obj)
                        .is_some_and(|r| r.kind == "Job" && r.group() == "batch")
                {
                    self.schedule_once(after.0, Task::PodSucceeds(obj.uid().to_string()));
                }
                self.schedule_once(delay, Task::VolumeSync);
            }
            ("batch", "Job") => {
                self.schedule_once(delay, Task::JobSync);
                if let Some(r) = crate::model::workload::controller_ref(obj)
                    .filter(|r| r.kind == "CronJob" && r.group() == "batch")
                {
                    self.schedule_once(delay, Task::CronJob(r.uid.clone()));
                }
            }
            ("batch", "CronJob") if !deleted => {
                self.schedule_once(delay, Task::CronJob(obj.uid().to_string()));
            }
            // R80: the aggregator follows its APIServices, and what serves
            // them.
            ("apiregistration.k8s.io", "APIService") => {
                match (deleted, controllers::apiservice::aggregated(obj)) {
                    (false, Some((gv, _))) => {
                        self.apiservices.insert(obj.uid().to_string(), gv);
                    }
                    (_, found) => {
                        self.apiservices.remove(obj.uid());
                        // Deleted (or no longer aggregated): its group
                        // version is no longer served, and fails no more.
                        if let Some((gv, _)) = found
                            && self.unavailable_apis.remove(&gv)
                        {
                            self.set_api_available(&gv, true);
                        }
                    }
                }
                self.schedule_once(delay, Task::ApiServices);
            }
            ("", "Service" | "Endpoints") if !self.apiservices.is_empty() => {
                self.schedule_once(delay, Task::ApiServices);
            }
            // R78: the token controller.
            ("", "Secret") if !deleted && controllers::tokens::is_token(obj) => {
                self.schedule_once(delay, Task::TokenSecret(obj.uid().to_string()));
            }
            ("", "ServiceAccount") if deleted => {
                let intents = controllers::tokens::deleted_account(&self.api, obj);
                for i in intents {
                    if let Op::Delete { key, .. } = &i.op
                        && let Some(s) = self.api.get(key)
                    {
                        let uid = s.uid().to_string();
                        self.schedule_once(delay, Task::TokenSecret(uid));
                    }
                }
            }
            ("", "Node") if deleted => {
                self.schedule_once(
                    crate::model::nodes::POD_GC_QUARANTINE_SECS * 1000,
                    Task::PodGc(obj.name().to_string()),
                );
            }
            // A node back to Ready: its kubelet ends the deletions it had
            // left waiting.
            // Only on the turn to Ready: a load of many Ready nodes
            // scans nothing.
            ("", "Node")
                if crate::model::nodes::of_node(obj).confirms()
                    && matches!(ch, Change::Modified { old, .. }
                        if !crate::model::nodes::of_node(old).confirms()) =>
            {
                let node = obj.name().to_string();
                let waiting: Vec<Object> = self
                    .api
                    .graph()
                    .objects()
                    .filter(|p| {
                        p.is_pod()
                            && p.is_terminating()
                            && p.str_at(&["spec", "nodeName"]) == Some(node.as_str())
                    })
                    .cloned()
                    .collect();
                for p in &waiting {
                    self.maybe_schedule_kubelet(p);
                }
            }
            ("", "Service" | "Endpoints") if deleted => {
                let ns = obj.namespace().unwrap_or_default().to_string();
                self.schedule_once(delay, Task::Endpoints(ns, obj.name().to_string()));
            }
            ("discovery.k8s.io", "EndpointSlice") if deleted => {
                if let Some(owner) = controllers::endpoint::slice_service(obj) {
                    self.schedule_once(delay, Task::EndpointSlice(owner));
                }
            }
            ("", "PersistentVolumeClaim" | "PersistentVolume") => {
                self.schedule_once(delay, Task::VolumeSync);
            }
            ("apiextensions.k8s.io", "CustomResourceDefinition")
                if !deleted && obj.is_terminating() =>
            {
                self.schedule_once(delay, Task::CrdSync(obj.name().to_string()));
            }
            ("", "Namespace") if !deleted && obj.is_terminating() => {
                // namespaceDeletionGracePeriod: the first pass comes 5 s
                // after the DELETE.
                let since = self.now_ms.saturating_sub(self.terminating_since_ms(obj));
                let wait = NAMESPACE_DELETION_GRACE_MS.saturating_sub(since);
                self.schedule_once(wait.max(delay), Task::NamespaceSync(obj.name().to_string()));
            }
            _ => {}
        }
        if !deleted && obj.is_terminating() {
            self.maybe_schedule_finalizer_controllers(obj);
        }
    }

    /// The workload controllers' event handlers (upstream `addPod`,
    /// `updatePod`, `deletePod`, `addReplicaSet`, ...): which workloads to
    /// sync for this change, found through the index, never by a scan.
    /// R71: the TTL-after-finished controller looks at a finished Job when
    /// its time is up (upstream requeues it for then).
    pub(super) fn schedule_ttl(&mut self, uid: &str) {
        let Some(at) = self
            .api
            .get_uid(uid)
            .and_then(controllers::ttl_after_finished::expires_at)
        else {
            return;
        };
        let wait = at.duration_since(self.now()).as_millis().max(0);
        let delay = u64::try_from(wait).unwrap_or(u64::MAX / 2) + self.settings.controller_delay.0;
        self.schedule_once(delay, Task::TtlAfterFinished(uid.to_string()));
    }

    pub(super) fn react_workloads(&mut self, ch: &Change, delay: u64, index: Index) {
        use crate::model::workload;
        let here = index == Index::Here;
        let before = if here {
            self.workloads.observe(ch)
        } else {
            None
        };
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let mut sync: Vec<String> = Vec::new();
        if workload::controller_of_kind(obj.group(), &obj.kind).is_some() && !deleted {
            sync.push(obj.uid().to_string());
        }
        // Upstream's DaemonSet controller handles node adds and updates, not
        // deletes: the pods of a gone node go at the DaemonSet's next sync
        // (any of its pods changing), as observed on the test control plane.
        if here && obj.kind == "Node" && obj.group().is_empty() && matches!(ch, Change::Added(_)) {
            sync.extend(self.workloads.daemonsets());
        }
        if workload::is_child_kind(obj.group(), &obj.kind) {
            sync.extend(before);
            match workload::controller_ref(obj) {
                Some(r) => sync.push(r.uid.clone()),
                // An orphan: every workload of its namespace that controls
                // its kind and selects it may adopt it (upstream
                // getPodReplicaSets and friends).
                None if here && !deleted && !obj.is_terminating() => {
                    let ns = obj.namespace().unwrap_or_default();
                    for c in workload::CONTROLLERS
                        .iter()
                        .filter(|c| c.child_group == obj.group() && c.child_kind == obj.kind)
                    {
                        for uid in self.workloads.workloads(ns, c.group, c.kind) {
                            if self.workloads.selector(uid).matches(&obj.metadata.labels) {
                                sync.push(uid.clone());
                            }
                        }
                    }
                }
                None => {}
            }
        }
        for task in sync.into_iter().map(Task::Workload) {
            // Looked for among the pending first: most are (each of a
            // load's pods asks for its ReplicaSet's sync), and then the
            // store is not asked.
            if !self.pending.contains(&task)
                && matches!(&task, Task::Workload(uid) if self.api.get_uid(uid).is_some())
            {
                self.schedule_once(delay, task);
            }
        }
    }

    /// R76: only the kubelet of a Ready node (or of a node out of view)
    /// ends a graceful pod deletion; on a node that does not report, the
    /// pod stays Terminating until the node is back, its Node object is
    /// deleted (the pod GC, R77), or it is force-deleted.
    pub(super) fn maybe_schedule_kubelet(&mut self, pod: &Object) {
        let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
        let node = pod.str_at(&["spec", "nodeName"]).unwrap_or_default();
        if grace <= 0
            || node.is_empty()
            || !crate::model::nodes::of_pod(self.api.graph(), pod).confirms()
            || !self.kubelet_scheduled.insert(pod.uid().to_string())
        {
            return;
        }
        let grace_ms = u64::try_from(grace).unwrap_or(0) * 1000;
        let delay = self.settings.kubelet_shutdown.0.min(grace_ms);
        self.schedule_at(self.now_ms + delay, Task::Kubelet(pod.uid().to_string()));
    }

    /// When the object became Terminating, in virtual ms.
    pub(super) fn terminating_since_ms(&self, obj: &Object) -> u64 {
        let Some(ts) = obj.metadata.deletion_timestamp else {
            return self.now_ms;
        };
        let start =
            ts - SignedDuration::from_secs(obj.metadata.deletion_grace_period_seconds.unwrap_or(0));
        u64::try_from(start.duration_since(self.epoch).as_millis()).unwrap_or(0)
    }

    pub(super) fn maybe_schedule_finalizer_controllers(&mut self, obj: &Object) {
        let since = self.terminating_since_ms(obj);
        for f in obj.metadata.finalizers.clone() {
            let Some(c) = self.controllers.get(&f) else {
                continue;
            };
            if !c.online {
                continue;
            }
            let at = since + c.after.0;
            if self
                .finalizer_scheduled
                .insert((obj.uid().to_string(), f.clone()))
            {
                self.schedule_at(
                    at,
                    Task::RemoveFinalizer {
                        uid: obj.uid().to_string(),
                        finalizer: f,
                    },
                );
            }
        }
    }
}
