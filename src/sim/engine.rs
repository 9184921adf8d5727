//! The simulator engine: a virtual clock and a task queue that drive the API
//! server, the garbage collector and the controllers, recording a timeline.
//! Deterministic for a scenario and a seed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::api::{ApiResponse, ApiServer, Caller, Change, DeleteOptions, Key};
use super::controllers::{self, Intent, Op};
use super::gc::{GC_ACTOR, GarbageCollector, PassResult, Work};
use super::scenario::{
    ControllerSpec, LoadError, Millis, Scenario, Settings, Step, StepAction, Target,
};
use super::timeline::{Entry, What};
use crate::model::{KindTable, ObjRef, Object, OwnershipGraph, group_of};

mod finalizer_workloads;
mod resume;

pub use resume::Saved;

/// How long polling (GC retries, a namespace waiting on its content) is
/// tried without changing anything before a run counts as settled.
const POLL_WINDOW_MS: u64 = 60_000;

/// Virtual time zero, as a wall-clock instant (objects' timestamps).
pub const EPOCH: &str = "2026-01-01T00:00:00Z";

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Task {
    Step(usize),
    GcBatch,
    GcRetry(Work),
    // The GC's informer delivers an object it had not observed (R47).
    GcObserve(String),
    Kubelet(String),
    RemoveFinalizer {
        uid: String,
        finalizer: String,
    },
    JobSync,
    /// One sync of a workload controller for the workload with this uid.
    Workload(String),
    /// The endpoints controller's sync of the Service (namespace, name).
    Endpoints(String, String),
    /// The EndpointSlice controller: a slice of this Service went.
    EndpointSlice(controllers::endpoint::SliceOwner),
    VolumeSync,
    NamespaceSync(String),
    CrdSync(String),
    /// The TTL-after-finished controller's look at the Job with this uid.
    TtlAfterFinished(String),
    /// The pod GC's look at the pods of the Node with this name (R77).
    PodGc(String),
}

impl Task {
    /// Polling that may go on forever (GC retries for an unknown owner
    /// kind, a namespace waiting on finalizers) does not keep a run from
    /// settling.
    fn keeps_busy(&self) -> bool {
        !matches!(
            self,
            Task::GcRetry(_) | Task::NamespaceSync(_) | Task::CrdSync(_)
        )
    }
}

/// A scenario finalizer controller's live state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerState {
    pub finalizer: String,
    pub online: bool,
    pub after: Millis,
    /// The workload it runs as, if the scenario says (see
    /// [`finalizer_workloads`]).
    pub workload: Option<Target>,
}

/// The simulator.
#[derive(Clone, Debug)]
pub struct Sim {
    /// Shared, not copied: kept for `reset` and the steps.
    scenario: Arc<Scenario>,
    settings: Settings,
    api: ApiServer,
    gc: GarbageCollector,
    controllers: BTreeMap<String, ControllerState>,
    epoch: Timestamp,
    now_ms: u64,
    seq: u64,
    tasks: BTreeMap<(u64, u64), Task>,
    pending: BTreeSet<Task>,
    next_step: usize,
    timeline: Vec<Entry>,
    kubelet_scheduled: BTreeSet<String>,
    finalizer_scheduled: BTreeSet<(String, String)>,
    actor: String,
    /// Who the user's requests are from on the timeline (`user`, or the
    /// client a served request names, `kubectl`).
    user_actor: String,
    user: Caller,
    /// Every change since the last [`Sim::take_watch_changes`], for a
    /// watcher outside the simulator (the UI backend).
    watch: Vec<Change>,
    /// Whether anyone takes [`Sim::watch`] (a headless run keeps nothing).
    watched: bool,
    /// What the workload controllers' informers hold.
    workloads: controllers::WorkloadIndex,
    /// The objects (as stored, in the order they were restored) that the
    /// garbage collector and the controllers have not looked at yet: a
    /// simulator from [`Sim::load_deferred`] gives them their first look
    /// at the first call that runs it ([`Sim::prime`]), before which
    /// nothing changes the store. Empty once primed.
    unprimed: Option<Vec<Arc<Object>>>,
}

/// The namespace controller's `namespaceDeletionGracePeriod`.
const NAMESPACE_DELETION_GRACE_MS: u64 = 5_000;

fn epoch() -> Timestamp {
    EPOCH.parse().unwrap_or(Timestamp::UNIX_EPOCH)
}

/// Whether [`Sim::start`] copies the scenario's objects (to reset from
/// later) or moves them into the store.
#[derive(Clone, Copy)]
enum Objects {
    Copied,
    Moved,
}

impl Sim {
    /// Loads a scenario: its objects are restored as stored, its controllers
    /// set up and its steps scheduled.
    ///
    /// # Errors
    /// An object the API server rejects (e.g. two controller references),
    /// named by its line.
    pub fn new(scenario: &Scenario) -> Result<Sim, LoadError> {
        Self::with_seed(scenario, scenario.settings.seed)
    }

    /// As [`Sim::new`], with another seed.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn with_seed(scenario: &Scenario, seed: u64) -> Result<Sim, LoadError> {
        Self::start(Arc::new(scenario.clone()), seed, Objects::Copied).map(Self::primed)
    }

    /// The same scenario from its start again, with the same seed (a
    /// reset): the scenario kept is shared, not copied. For a simulator
    /// that kept its scenario ([`Sim::new`], [`Sim::resettable`]), not one
    /// whose objects moved into the store ([`Sim::load`]).
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn restarted(&self) -> Result<Sim, LoadError> {
        Self::start(
            Arc::clone(&self.scenario),
            self.settings.seed,
            Objects::Copied,
        )
        .map(Self::primed)
    }

    /// As [`Sim::new`], taking the scenario: it is kept (not copied) to
    /// reset from.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn resettable(scenario: Scenario) -> Result<Sim, LoadError> {
        let seed = scenario.settings.seed;
        Self::start(Arc::new(scenario), seed, Objects::Copied).map(Self::primed)
    }

    /// As [`Sim::new`], for a run that is never reset (the headless
    /// commands): the scenario's objects move into the store instead of
    /// being copied, and [`Sim::scenario`] keeps none.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn load(scenario: Scenario) -> Result<Sim, LoadError> {
        let seed = scenario.settings.seed;
        Self::load_with_seed(scenario, seed)
    }

    /// As [`Sim::load`], with another seed.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn load_with_seed(scenario: Scenario, seed: u64) -> Result<Sim, LoadError> {
        Self::start(Arc::new(scenario), seed, Objects::Moved).map(Self::primed)
    }

    /// As [`Sim::load_with_seed`], but the garbage collector's and the
    /// controllers' first look at the objects (their informers' initial
    /// list: the GC's graph, the workload index, the first syncs) waits
    /// for the first call that runs the simulator or changes it, as
    /// [`Sim::prime`] says. A command that only reads what was loaded
    /// (`tree`, `why`, `plan` without `--at`) never pays for it: at 100k
    /// objects that is a third of the load. What is read before then
    /// ([`Sim::graph`], [`Sim::get`], [`Sim::now`]) is what it would be
    /// after: the first look changes no object at time zero, it only
    /// schedules.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn load_deferred(scenario: Scenario, seed: u64) -> Result<Sim, LoadError> {
        Self::start(Arc::new(scenario), seed, Objects::Moved)
    }

    /// The garbage collector's and the controllers' first look at the
    /// restored objects, then the scenario's steps scheduled, if that has
    /// not happened yet. Every constructor but [`Sim::load_deferred`] does
    /// it at once; every call that runs the simulator or changes an
    /// object does it first, and so do the readers of what is scheduled
    /// ([`Sim::is_settled`] and the like take `&self`: call this before
    /// them on a deferred simulator).
    pub fn prime(&mut self) {
        if let Some(order) = self.unprimed.take() {
            let scenario = Arc::clone(&self.scenario);
            for t in &scenario.settings.unobserved_by_gc {
                if let Ok(key) = self.resolve(t)
                    && let Some(o) = self.api.get(&key)
                {
                    let uid = o.uid().to_string();
                    self.gc.unobserved.insert(uid.clone());
                    self.schedule_at(self.settings.unobserved_for.0, Task::GcObserve(uid));
                }
            }
            self.initial_list(order);
            self.settle_controller_workloads();
            self.schedule_steps(0);
        }
    }

    fn primed(mut self) -> Sim {
        self.prime();
        self
    }

    /// Restores the scenario's objects into the store; [`Sim::prime`]
    /// then gives the controllers their first look.
    fn start(mut scenario: Arc<Scenario>, seed: u64, objects: Objects) -> Result<Sim, LoadError> {
        let moved = match (objects, Arc::get_mut(&mut scenario)) {
            (Objects::Moved, Some(sc)) => Some(std::mem::take(&mut sc.objects)),
            _ => None,
        };
        let mut sim = Self::shell(&scenario, seed);
        sim.api
            .begin_restore(moved.as_ref().map_or(scenario.objects.len(), Vec::len));
        // Moved: each object is stored in the allocation it was read into.
        // Copied: shared with the scenario until the store changes it.
        let restored: Box<dyn Iterator<Item = Arc<Object>>> = match moved {
            Some(objects) => Box::new(objects.into_iter()),
            None => Box::new(scenario.objects.iter().cloned()),
        };
        let refused = |i: usize, resp: ApiResponse| {
            scenario.error_at(
                scenario.object_line(i),
                &format!("objects[{i}]"),
                resp.message,
            )
        };
        let mut order: Vec<Arc<Object>> = Vec::with_capacity(restored.size_hint().0);
        for (i, mut obj) in restored.enumerate() {
            if obj.metadata.uid.is_empty() {
                Arc::make_mut(&mut obj).metadata.uid = sim.api.uids().next_uid();
            }
            let mut resp = sim.api.create(obj, &Caller::default(), true);
            match resp.object.take() {
                Some(stored) if resp.is_success() => order.push(stored),
                _ => return Err(refused(i, resp)),
            }
            super::progress::indexed_one();
        }
        sim.api
            .end_restore()
            .map_err(|(i, resp)| refused(i, resp))?;
        sim.unprimed = Some(order);
        Ok(sim)
    }

    /// A simulator with the scenario's settings, kinds and controllers and
    /// an empty store, at time zero.
    fn shell(scenario: &Arc<Scenario>, seed: u64) -> Sim {
        let epoch = epoch();
        let settings = Settings {
            seed,
            ..scenario.settings.clone()
        };
        let mut api = ApiServer::new(scenario.kind_table(), seed, epoch);
        for gv in &settings.unavailable_apis {
            api.kinds_mut().set_discovery_failing(gv, true);
        }
        api.config.garbage_collector = settings.garbage_collector;
        api.config.owner_references_permission_enforcement =
            settings.owner_references_permission_enforcement;
        let controllers = scenario
            .controllers
            .iter()
            .map(|c: &ControllerSpec| {
                (
                    c.finalizer.clone(),
                    ControllerState {
                        finalizer: c.finalizer.clone(),
                        online: c.online,
                        after: c.after,
                        workload: c.workload.clone(),
                    },
                )
            })
            .collect();
        Sim {
            scenario: Arc::clone(scenario),
            settings,
            api,
            gc: GarbageCollector::new(),
            controllers,
            epoch,
            now_ms: 0,
            seq: 0,
            tasks: BTreeMap::new(),
            pending: BTreeSet::new(),
            next_step: 0,
            timeline: Vec::new(),
            kubelet_scheduled: BTreeSet::new(),
            finalizer_scheduled: BTreeSet::new(),
            actor: "scenario".into(),
            user_actor: "user".into(),
            user: Caller {
                name: "user".into(),
                ..Caller::default()
            },
            watch: Vec::new(),
            watched: true,
            workloads: controllers::WorkloadIndex::default(),
            unprimed: None,
        }
    }

    /// The initial list, in the order given: watchers (the garbage
    /// collector, the controllers) see every object, the timeline does
    /// not. One object's copy at a time.
    fn initial_list(&mut self, order: Vec<Arc<Object>>) {
        for obj in order {
            self.react(&Change::Added(obj));
        }
        self.after_dispatch();
    }

    /// Schedules the scenario's steps from the `from`th on (the ones
    /// before have run), and hands the clock to the user.
    fn schedule_steps(&mut self, from: usize) {
        let scenario = Arc::clone(&self.scenario);
        for (i, step) in scenario.steps.iter().enumerate().skip(from) {
            self.schedule_at(step.at.0, Task::Step(i));
        }
        self.next_step = from;
        self.actor = self.user_actor.clone();
    }

    // ------------------------------------------------------------------
    // Reading
    // ------------------------------------------------------------------

    #[must_use]
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Virtual milliseconds since the start.
    #[must_use]
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The virtual wall clock.
    #[must_use]
    pub fn now(&self) -> Timestamp {
        self.api.now()
    }

    #[must_use]
    pub fn api(&self) -> &ApiServer {
        &self.api
    }

    #[must_use]
    pub fn kinds(&self) -> &KindTable {
        self.api.kinds()
    }

    /// Every object, in uid order.
    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.api.objects()
    }

    /// Every stored copy, in uid order, to share instead of copying.
    pub fn shared_objects(&self) -> impl Iterator<Item = &Arc<Object>> {
        self.api.graph().shared_objects()
    }

    /// The ownership graph of the current state.
    #[must_use]
    pub fn graph(&self) -> &OwnershipGraph {
        self.api.graph()
    }

    #[must_use]
    pub fn get(&self, key: &Key) -> Option<&Object> {
        self.api.get(key)
    }

    /// How many of the scenario's steps have run (they run in order).
    #[must_use]
    pub fn steps_run(&self) -> usize {
        self.next_step
    }

    #[must_use]
    pub fn timeline(&self) -> &[Entry] {
        &self.timeline
    }

    /// The changes since the last call, in order.
    /// For a run with no watcher outside the simulator (the headless
    /// commands): changes are not kept for [`Sim::take_watch_changes`],
    /// which then answers nothing.
    #[must_use]
    pub fn unwatched(mut self) -> Self {
        self.watched = false;
        self.watch = Vec::new();
        self
    }

    pub fn take_watch_changes(&mut self) -> Vec<Change> {
        self.prime();
        std::mem::take(&mut self.watch)
    }

    /// The scenario's finalizer controllers.
    pub fn controllers(&self) -> impl Iterator<Item = &ControllerState> {
        self.controllers.values()
    }

    /// Finalizer -> whether its simulated controller is online, as the
    /// diagnosis and the preview take it.
    #[must_use]
    pub fn controller_map(&self) -> BTreeMap<String, bool> {
        self.controllers
            .values()
            .map(|c| (c.finalizer.clone(), c.online))
            .collect()
    }

    #[must_use]
    pub fn controller(&self, finalizer: &str) -> Option<&ControllerState> {
        self.controllers.get(finalizer)
    }

    /// Whether the GC has observed the object (R37, R47).
    #[must_use]
    pub fn gc_knows(&self, uid: &str) -> bool {
        self.gc.knows(uid)
    }

    /// The garbage collector's scheduled retries: (virtual ms due, item), in
    /// due order (R36).
    #[must_use]
    pub fn pending_gc_retries(&self) -> Vec<(u64, Work)> {
        self.tasks
            .iter()
            .filter_map(|((at, _), t)| match t {
                Task::GcRetry(w) => Some((*at, w.clone())),
                _ => None,
            })
            .collect()
    }

    /// Nothing left to do but retries, and every step has run.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.tasks.values().all(|t| !t.keeps_busy())
    }

    /// Virtual time of the next task that keeps the simulation busy.
    #[must_use]
    pub fn next_event_ms(&self) -> Option<u64> {
        self.tasks
            .iter()
            .find(|(_, t)| t.keeps_busy())
            .map(|((at, _), _)| *at)
    }

    // ------------------------------------------------------------------
    // Scheduling
    // ------------------------------------------------------------------

    fn schedule_at(&mut self, at_ms: u64, task: Task) {
        self.seq += 1;
        self.tasks.insert((at_ms.max(self.now_ms), self.seq), task);
    }

    /// Schedules a task once: a second request while it is pending is
    /// dropped.
    fn schedule_once(&mut self, delay_ms: u64, task: Task) {
        if self.pending.insert(task.clone()) {
            self.schedule_at(self.now_ms + delay_ms, task);
        }
    }

    fn set_now(&mut self, ms: u64) {
        self.now_ms = ms;
        let now = self.epoch + SignedDuration::from_millis(i64::try_from(ms).unwrap_or(i64::MAX));
        self.api.set_now(now);
    }

    /// Runs until settled, or until `limit_ms`. Settled: every step has
    /// run, nothing but polling is pending (GC retries, a namespace waiting
    /// on its content), and the next poll would change nothing. The clock
    /// stops at the last change (or at `limit_ms`).
    pub fn settle(&mut self, limit_ms: u64) {
        self.prime();
        while let Some((&(at, _), _)) = self.tasks.iter().next() {
            if at > limit_ms {
                self.set_now(limit_ms);
                return;
            }
            if self.is_settled() {
                // Poll on a copy for a while; keep it only if some poll
                // changed something.
                let mut trial = self.clone();
                let before = self.timeline.len();
                let horizon = at.max(self.now_ms) + POLL_WINDOW_MS;
                while let Some((&(t, _), _)) = trial.tasks.iter().next() {
                    if t > horizon || t > limit_ms || trial.timeline.len() > before {
                        break;
                    }
                    trial.run_due(t);
                }
                if trial.timeline.len() == before {
                    return;
                }
                *self = trial;
                continue;
            }
            self.run_due(at);
        }
    }

    /// Advances the clock by `ms`, running what falls due.
    pub fn advance(&mut self, ms: u64) {
        self.prime();
        let target = self.now_ms + ms;
        while let Some((&(at, _), _)) = self.tasks.iter().next() {
            if at > target {
                break;
            }
            self.run_due(at);
        }
        self.set_now(target);
    }

    /// Runs everything at the next point in time that has work. Returns
    /// false when nothing is left.
    pub fn step(&mut self) -> bool {
        self.prime();
        match self.next_event_ms() {
            Some(at) => {
                self.run_due(at);
                true
            }
            None => false,
        }
    }

    fn run_due(&mut self, at: u64) {
        self.set_now(at.max(self.now_ms));
        while let Some((&key, _)) = self.tasks.iter().next() {
            if key.0 > at {
                break;
            }
            if let Some(task) = self.tasks.remove(&key) {
                self.pending.remove(&task);
                self.run_task(task);
            }
        }
    }

    fn run_task(&mut self, task: Task) {
        match task {
            Task::Step(i) => self.run_step(i),
            Task::GcBatch => self.run_gc_batch(),
            Task::GcRetry(work) => {
                self.gc.requeue(work);
                self.after_dispatch();
            }
            Task::GcObserve(uid) => self.run_gc_observe(&uid),
            Task::Kubelet(uid) => self.run_kubelet(&uid),
            Task::RemoveFinalizer { uid, finalizer } => {
                self.run_finalizer_controller(&uid, &finalizer)
            }
            Task::JobSync => {
                let intents = controllers::sync_job_tracking(&self.api);
                self.carry_out(intents);
            }
            Task::Workload(uid) => {
                if let Some(owner) = self.api.get_uid(&uid) {
                    let intents = controllers::sync_workload(&self.api, &self.workloads, owner);
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
            Task::PodGc(node) => {
                let intents = controllers::podgc::sync(&self.api, &node);
                self.carry_out(intents);
            }
        }
    }

    fn run_gc_batch(&mut self) {
        // In queue order, as upstream's FIFO workqueue hands items to its
        // workers: a foreground owner's dependents are queued before the
        // owner itself (processTransitions), so they are decided while the
        // owner still waits for them (R43).
        let batch = self.gc.take_batch();
        for work in batch {
            self.actor = GC_ACTOR.into();
            let result = self.gc.process(work.clone(), &mut self.api);
            self.dispatch();
            if let PassResult::Retry { after_ms, .. } = result {
                self.schedule_at(self.now_ms + after_ms, Task::GcRetry(work));
            }
        }
        self.actor = self.user_actor.clone();
    }

    /// The GC's informer catches up with an object it had not observed: the
    /// GC sees it as it is now (R47 fault mode).
    fn run_gc_observe(&mut self, uid: &str) {
        if !self.gc.unobserved.remove(uid) {
            return;
        }
        if let Some(obj) = self.api.graph().get_shared(uid).cloned() {
            self.gc.observe(&Change::Added(obj), &self.api);
        }
        self.after_dispatch();
    }

    fn run_kubelet(&mut self, uid: &str) {
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
            preconditions: super::api::Preconditions {
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

    fn run_finalizer_controller(&mut self, uid: &str, finalizer: &str) {
        self.finalizer_scheduled
            .remove(&(uid.to_string(), finalizer.to_string()));
        if !self.controllers.get(finalizer).is_some_and(|c| c.online) {
            return;
        }
        let Some(obj) = self.api.get_uid(uid).cloned() else {
            return;
        };
        if !obj.is_terminating() || !obj.has_finalizer(finalizer) {
            return;
        }
        self.carry_out(vec![Intent {
            actor: format!("controller {finalizer}"),
            op: Op::RemoveFinalizer {
                key: Key::of(&obj),
                uid: uid.to_string(),
                finalizer: finalizer.to_string(),
            },
        }]);
    }

    fn run_crd(&mut self, name: &str) {
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

    fn run_namespace(&mut self, name: &str) {
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
    fn carry_out(&mut self, intents: Vec<Intent>) {
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
                Op::SetStatus { key, status } => {
                    self.api.update_status(&key, status);
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
                    self.api.finalize_namespace(&name, rest);
                }
            }
            self.dispatch();
        }
        self.actor = self.user_actor.clone();
    }

    /// A controller's POST. With `generate_name` the name is the prefix and
    /// five characters drawn from the simulator's seed, drawn again on a
    /// clash as the API server's `generateName` retries.
    fn create_as(&mut self, mut object: Object, generate_name: Option<&str>, caller: &Caller) {
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

    // ------------------------------------------------------------------
    // Watchers
    // ------------------------------------------------------------------

    /// Hands the store's changes to the timeline, the GC and the
    /// controllers.
    fn dispatch(&mut self) {
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

    fn after_dispatch(&mut self) {
        for ev in self.gc.take_events() {
            let object = ObjRef {
                api_version: ev.object.api_version.clone(),
                kind: ev.object.kind.clone(),
                namespace: Some(ev.object.namespace.clone()).filter(|n| !n.is_empty()),
                name: ev.object.name.clone(),
                uid: ev.object.uid.clone(),
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

    fn react(&mut self, ch: &Change) {
        self.gc.observe(ch, &self.api);
        self.follow_controller_workloads(ch.object());
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let delay = self.settings.controller_delay.0;
        self.react_workloads(ch, delay);
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
                if !deleted && obj.is_terminating() {
                    self.maybe_schedule_kubelet(obj);
                }
                if !deleted
                    && let crate::model::nodes::NodeHealth::Gone { node } =
                        crate::model::nodes::of_pod(self.api.graph(), obj)
                {
                    self.schedule_once(
                        crate::model::nodes::POD_GC_QUARANTINE_SECS * 1000,
                        Task::PodGc(node),
                    );
                }
                if obj.has_finalizer(controllers::JOB_TRACKING) {
                    self.schedule_once(delay, Task::JobSync);
                }
                self.schedule_once(delay, Task::VolumeSync);
            }
            ("batch", "Job") => {
                self.schedule_once(delay, Task::JobSync);
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
    fn schedule_ttl(&mut self, uid: &str) {
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

    fn react_workloads(&mut self, ch: &Change, delay: u64) {
        use crate::model::workload;
        let before = self.workloads.observe(ch);
        let obj = ch.object();
        let deleted = matches!(ch, Change::Deleted(_));
        let mut sync: Vec<String> = Vec::new();
        if workload::controller_of_kind(obj.group(), &obj.kind).is_some() && !deleted {
            sync.push(obj.uid().to_string());
        }
        // Upstream's DaemonSet controller handles node adds and updates, not
        // deletes: the pods of a gone node go at the DaemonSet's next sync
        // (any of its pods changing), as observed on the test control plane.
        if obj.kind == "Node" && obj.group().is_empty() && matches!(ch, Change::Added(_)) {
            sync.extend(self.workloads.daemonsets());
        }
        if workload::is_child_kind(obj.group(), &obj.kind) {
            sync.extend(before);
            match workload::controller_ref(obj) {
                Some(r) => sync.push(r.uid.clone()),
                // An orphan: every workload of its namespace that controls
                // its kind and selects it may adopt it (upstream
                // getPodReplicaSets and friends).
                None if !deleted && !obj.is_terminating() => {
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
        for uid in sync {
            if self.api.get_uid(&uid).is_some() {
                self.schedule_once(delay, Task::Workload(uid));
            }
        }
    }

    /// R76: only the kubelet of a Ready node (or of a node out of view)
    /// ends a graceful pod deletion; on a node that does not report, the
    /// pod stays Terminating until the node is back, its Node object is
    /// deleted (the pod GC, R77), or it is force-deleted.
    fn maybe_schedule_kubelet(&mut self, pod: &Object) {
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
    fn terminating_since_ms(&self, obj: &Object) -> u64 {
        let Some(ts) = obj.metadata.deletion_timestamp else {
            return self.now_ms;
        };
        let start =
            ts - SignedDuration::from_secs(obj.metadata.deletion_grace_period_seconds.unwrap_or(0));
        u64::try_from(start.duration_since(self.epoch).as_millis()).unwrap_or(0)
    }

    fn maybe_schedule_finalizer_controllers(&mut self, obj: &Object) {
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

    // ------------------------------------------------------------------
    // Steps and user actions
    // ------------------------------------------------------------------

    fn run_step(&mut self, i: usize) {
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

    fn respond(&mut self, object: ObjRef, request: String, resp: &ApiResponse) {
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

    fn target_ref(&self, key: &Key) -> ObjRef {
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

    fn unresolved(&mut self, target: &Target, request: String, msg: String) -> ApiResponse {
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
        let resp = self.api.update_status(&key, status);
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

#[cfg(test)]
mod watch_tests {
    use super::*;

    fn deleted_deployment(sim: Sim) -> Sim {
        let mut sim = sim;
        let target = Target {
            kind: "deployment".into(),
            namespace: Some("shop".into()),
            name: "web".into(),
        };
        let resp = sim.delete(&target, &DeleteOptions::default());
        assert!(resp.is_success(), "{}", resp.message);
        sim.settle(60_000);
        sim
    }

    #[test]
    fn a_headless_run_keeps_no_changes_for_watchers() {
        let sc = crate::sim::scenario::bundled("deployment").expect("bundled");
        let mut watched = deleted_deployment(Sim::new(&sc).expect("sim"));
        assert!(!watched.take_watch_changes().is_empty());
        let mut headless = deleted_deployment(Sim::load(sc).expect("sim").unwatched());
        assert!(headless.take_watch_changes().is_empty());
        assert_eq!(watched.timeline().len(), headless.timeline().len());
    }

    /// Objects restored together are put in uid order at the end; a uid
    /// given twice is still refused, naming the later object and its line,
    /// whether the two are next to each other or not, and the objects
    /// restored are then found by uid, name and owner as if one by one.
    #[test]
    fn a_uid_given_twice_is_refused_at_the_later_object() {
        let cm = |name: &str, uid: &str| {
            format!(
                "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: {name}, namespace: shop, uid: {uid}}}\n"
            )
        };
        let text = format!(
            "name: t\nobjects:\n{}{}{}{}",
            cm("a", "u-3"),
            cm("b", "u-1"),
            cm("c", "u-2"),
            cm("d", "u-1")
        );
        // From a file: an error finds the object's line in it again.
        let path =
            std::env::temp_dir().join(format!("ownerscope-uid-twice-{}.yaml", std::process::id()));
        std::fs::write(&path, &text).expect("write");
        let sc = crate::sim::scenario::load(&path.to_string_lossy()).expect("parses");
        let e = Sim::load(sc).expect_err("refused");
        std::fs::remove_file(&path).ok();
        assert_eq!(e.field, "objects[3]");
        assert_eq!(e.line, 12);
        assert!(e.message.contains("uid u-1 is already taken"), "{e}");

        let text = format!(
            "name: t\nobjects:\n{}{}- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n    namespace: shop\n    uid: u-0\n    ownerReferences: [{{apiVersion: v1, kind: ConfigMap, name: b, uid: u-1}}]\n",
            cm("a", "u-3"),
            cm("b", "u-1"),
        );
        let sim = Sim::load(crate::sim::scenario::parse("t.yaml", &text).expect("parses"))
            .expect("loads");
        let uids: Vec<&str> = sim.objects().map(Object::uid).collect();
        assert_eq!(uids, ["u-0", "u-1", "u-3"], "in uid order");
        let g = sim.graph();
        assert_eq!(g.get("u-1").map(Object::name), Some("b"));
        assert_eq!(
            g.find("", "ConfigMap", Some("shop"), "a").map(Object::uid),
            Some("u-3")
        );
        assert_eq!(
            g.shared_referrers("u-1")
                .map(|o| o.name())
                .collect::<Vec<_>>(),
            ["p"]
        );
    }

    /// A deferred simulator reads as a primed one, and runs as one: for
    /// every bundled scenario, the same objects before its first call,
    /// and the same timeline and objects after the same run.
    #[test]
    fn a_deferred_start_reads_and_runs_as_an_eager_one() {
        for (name, _) in crate::sim::scenario::BUNDLED {
            let sc = crate::sim::scenario::bundled(name).expect("bundled");
            let seed = sc.settings.seed;
            let mut eager = Sim::load(sc.clone()).expect("sim");
            let mut deferred = Sim::load_deferred(sc, seed).expect("sim");
            assert!(deferred.unprimed.is_some(), "{name}");
            let objects = |s: &Sim| s.objects().cloned().collect::<Vec<_>>();
            assert_eq!(objects(&eager), objects(&deferred), "{name}: as loaded");
            eager.settle(120_000);
            deferred.settle(120_000);
            assert!(deferred.unprimed.is_none(), "{name}");
            assert_eq!(eager.timeline(), deferred.timeline(), "{name}: timeline");
            assert_eq!(objects(&eager), objects(&deferred), "{name}: settled");
            assert_eq!(eager.now_ms(), deferred.now_ms(), "{name}: clock");
        }
    }
}
