//! The simulator engine: a virtual clock and a task queue that drive the API
//! server, the garbage collector and the controllers, recording a timeline.
//! Deterministic for a scenario and a seed.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use self::ahead::Ahead;
use super::api::{ApiResponse, ApiServer, Caller, Change, DeleteOptions, Key};
use super::controllers::{self, Intent, Op};
use super::gc::{GC_ACTOR, GarbageCollector, PassResult, Work};
use super::scenario::{
    ControllerSpec, LoadError, Millis, Scenario, Settings, Step, StepAction, Target,
};
use super::timeline::{Entry, Timeline, What};
use crate::model::{KindTable, ObjRef, Object, OwnershipGraph, group_of};

mod ahead;
#[cfg(test)]
mod bounded_tests;
mod finalizer_workloads;
mod requests;
#[cfg(test)]
mod reset_tests;
mod resume;
mod tasks;
#[cfg(test)]
mod watch_tests;
mod watchers;

pub use requests::resolve_target;

pub use resume::Saved;

/// Hashed with foldhash, as the ownership graph's indexes.
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// How long polling (GC retries, a namespace waiting on its content) is
/// tried without changing anything before a run counts as settled.
const POLL_WINDOW_MS: u64 = 60_000;

/// How soon a simulated finalizer controller tries a refused removal again.
const FINALIZER_RETRY_MS: u64 = 10_000;

/// Virtual time zero, as a wall-clock instant (objects' timestamps).
pub const EPOCH: &str = "2026-01-01T00:00:00Z";

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Task {
    Step(usize),
    GcBatch,
    /// The rest of a GC batch that a bounded run ([`Sim::advance_for`])
    /// cut short: [`Sim::gc_rest`], put back under the batch's own place
    /// in the queue, so that it runs before anything the batch's first
    /// part scheduled for the same instant.
    GcBatchRest,
    GcRetry(Work),
    // The GC's informer delivers an object it had not observed (R47).
    GcObserve(String),
    Kubelet(String),
    RemoveFinalizer {
        uid: String,
        finalizer: String,
    },
    /// A finalizer's controller tries again after its removal was refused
    /// (polling: it may be refused forever).
    RetryFinalizer {
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
    /// The token controller's look at the token Secret with this uid (R78).
    TokenSecret(String),
    /// The aggregator's look at every aggregated APIService (R80).
    ApiServices,
    /// The pod GC's look at terminated pods (`gcTerminated`).
    PodGcTerminated,
    /// The kubelet reports the Job's pod with this uid `Succeeded`
    /// ([`Settings::job_pods_succeed_after`]).
    PodSucceeds(String),
    /// The CronJob controller's sync of the CronJob with this uid, after a
    /// change to it or to one of its Jobs.
    CronJob(String),
    /// The same at the CronJob's next schedule time: a timer that never
    /// keeps a run from settling (a CronJob schedules forever).
    CronTick(String),
    /// The root CA publisher's look at the namespace with this name.
    RootCa(String),
}

impl Task {
    /// Polling that may go on forever (GC retries for an unknown owner
    /// kind, a namespace waiting on finalizers) does not keep a run from
    /// settling.
    fn keeps_busy(&self) -> bool {
        !matches!(
            self,
            Task::GcRetry(_)
                | Task::NamespaceSync(_)
                | Task::CrdSync(_)
                | Task::RetryFinalizer { .. }
                | Task::CronTick(_)
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
    /// The tasks scheduled once ([`Sim::schedule_once`]) and not run yet:
    /// only asked whether a task is in it, so hashed (as an ordered set,
    /// its string comparisons were 1.6% of `simulate` on a 100k List).
    pending: HashSet<Task>,
    next_step: usize,
    timeline: Timeline,
    kubelet_scheduled: BTreeSet<String>,
    /// (uid, finalizer) -> the last refusal of a simulated controller's
    /// removal of that finalizer, on the timeline once.
    finalizer_denials: BTreeMap<(String, String), String>,
    /// The aggregated APIServices stored (uid -> group version), and the
    /// group versions the aggregator found unavailable.
    apiservices: BTreeMap<String, String>,
    unavailable_apis: BTreeSet<String>,
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
    /// The items of the GC batch being run that are not processed yet
    /// (empty but inside [`Task::GcBatch`] or [`Task::GcBatchRest`]).
    gc_rest: VecDeque<Work>,
    /// When a bounded run ([`Sim::advance_for`]) stops: between two tasks
    /// or two items of a GC batch, never inside one. `None`: unbounded.
    deadline: Option<Instant>,
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

/// An initial list of this many objects or more is taken by the garbage
/// collector, the workload index and the controllers' handlers on three
/// threads (in tests, every list of two or more, so that the tests run
/// that way).
const INITIAL_LIST_APART_FROM: usize = if cfg!(test) { 2 } else { 20_000 };

/// A restore of this many objects or more has its index by name built on
/// another thread while its objects are restored (in tests, every restore
/// of two or more, in batches of two: both ways, and a batch sent before
/// the last, are tried).
const NAMES_APART_FROM: usize = if cfg!(test) { 2 } else { 20_000 };
const NAMES_BATCH: usize = if cfg!(test) { 2 } else { 1024 };

#[cfg(test)]
thread_local! {
    /// Set by a test: this thread's initial lists are taken on it alone,
    /// whatever their length, to compare with the lists taken apart.
    static LIST_ON_ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether an initial list of `len` objects is taken apart.
fn list_apart(len: usize) -> bool {
    #[cfg(test)]
    if LIST_ON_ONE_THREAD.get() {
        return false;
    }
    len >= INITIAL_LIST_APART_FROM
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
        Self::start(Arc::new(scenario.clone()), seed, Objects::Copied, true).map(Self::primed)
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
            true,
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
        Self::start(Arc::new(scenario), seed, Objects::Copied, true).map(Self::primed)
    }

    /// As [`Sim::resettable`], with the controllers' first look left for
    /// [`Sim::prime`], as [`Sim::load_deferred`] leaves it: the UI takes
    /// the loaded objects in while it is taken.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn resettable_deferred(scenario: Scenario) -> Result<Sim, LoadError> {
        let seed = scenario.settings.seed;
        Self::start(Arc::new(scenario), seed, Objects::Copied, true)
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
        Self::start(Arc::new(scenario), seed, Objects::Moved, false).map(Self::primed)
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
        Self::start(Arc::new(scenario), seed, Objects::Moved, false)
    }

    /// As [`Sim::load_deferred`], for a command that asks about Events
    /// (a diagnosis quotes an object's warnings): their index is built
    /// with the load's others, at once on the machine's cores, rather
    /// than at the first question, on one.
    ///
    /// # Errors
    /// As [`Sim::new`].
    pub fn load_deferred_to_diagnose(scenario: Scenario, seed: u64) -> Result<Sim, LoadError> {
        Self::start(Arc::new(scenario), seed, Objects::Moved, true)
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
    /// With `index_events`, the Events' index is built with the load's
    /// others, at once on the machine's cores (see
    /// [`crate::model::OwnershipGraph::index_events`]): a simulator that
    /// can be reset is the UI's, which asks about Events at once (the
    /// details of the first object selected), and `why` and `stuck` ask
    /// for it ([`Sim::load_deferred_to_diagnose`]); any other's is made at
    /// its first question, if any (`serve`'s at the first Event it
    /// records).
    fn start(
        mut scenario: Arc<Scenario>,
        seed: u64,
        objects: Objects,
        index_events: bool,
    ) -> Result<Sim, LoadError> {
        // Taken from a scenario no one else holds, and restored in place.
        // Copied: the scenario then keeps what was stored (shared with the
        // store, not a second copy of every object), and a reset restores
        // that again, which changes nothing but what the run changed.
        let moved = Arc::get_mut(&mut scenario).map(|sc| std::mem::take(&mut sc.objects));
        let keep = matches!(objects, Objects::Copied) && moved.is_some();
        // Objects whose uid the store generates: kept without it, so that
        // a reset generates the same uids in the same order.
        let mut generated = Vec::new();
        let mut sim = Self::shell(&scenario, seed);
        sim.api.begin_restore(
            moved.as_ref().map_or(scenario.objects.len(), Vec::len),
            index_events,
        );
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
        let expected = restored.size_hint().0;
        let mut order: Vec<Arc<Object>> = Vec::with_capacity(expected);
        let looped = if expected >= NAMES_APART_FROM {
            sim.restore_beside_names(restored, &mut order, &mut generated)
        } else {
            sim.restore_each(restored, &mut order, &mut generated, |_| {})
        };
        looped.map_err(|(i, resp)| refused(i, resp))?;
        sim.api
            .end_restore()
            .map_err(|(i, resp)| refused(i, resp))?;
        if keep {
            let mut kept = order.clone();
            for i in generated {
                Arc::make_mut(&mut kept[i]).metadata.uid.clear();
            }
            drop(scenario);
            if let Some(sc) = Arc::get_mut(&mut sim.scenario) {
                sc.objects = kept;
            }
        }
        sim.unprimed = Some(order);
        Ok(sim)
    }

    /// [`Sim::restore_each`] with the store's index by name built on
    /// the other core meanwhile (it was a third of the loop, and that core
    /// idle): each object stored is given to it in turn, in batches.
    ///
    /// # Errors
    /// As [`Sim::restore_each`]: the first object refused, by its place,
    /// for its name or in the loop, whichever came first, as one by one.
    fn restore_beside_names(
        &mut self,
        restored: impl Iterator<Item = Arc<Object>>,
        order: &mut Vec<Arc<Object>>,
        generated: &mut Vec<usize>,
    ) -> Result<(), (usize, ApiResponse)> {
        let names = self.api.restore_names_apart();
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Arc<Object>>>(16);
        let (looped, names) = crate::threads::both(
            || {
                // Moved in: dropped, and the other thread's loop ended,
                // however this one ends.
                let tx = tx;
                let mut batch = Vec::with_capacity(NAMES_BATCH);
                let looped = self.restore_each(restored, order, generated, |s| {
                    batch.push(Arc::clone(s));
                    if batch.len() == NAMES_BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(NAMES_BATCH));
                        // Refused only if the other thread panicked,
                        // which `both` raises again here.
                        let _ = tx.send(full);
                    }
                });
                let _ = tx.send(batch);
                looped
            },
            move || {
                let mut names = names;
                for batch in rx {
                    for obj in batch {
                        names.add(obj);
                    }
                }
                names
            },
        );
        // The first object refused, by its place: for its name (told
        // apart) or in the loop, whichever came first, as one by one.
        match (looped, self.api.restore_names_back(names)) {
            (Err(a), Err(b)) => Err(if b.0 < a.0 { b } else { a }),
            (Err(first), Ok(())) | (Ok(()), Err(first)) => Err(first),
            (Ok(()), Ok(())) => Ok(()),
        }
    }

    /// Restores each object in turn, each one stored pushed on `order`
    /// and shown to `stored`; the place of each whose uid the store
    /// generates pushed on `generated`.
    ///
    /// # Errors
    /// The place of the first object refused, and the answer.
    fn restore_each(
        &mut self,
        restored: impl Iterator<Item = Arc<Object>>,
        order: &mut Vec<Arc<Object>>,
        generated: &mut Vec<usize>,
        mut stored: impl FnMut(&Arc<Object>),
    ) -> Result<(), (usize, ApiResponse)> {
        for (i, mut obj) in restored.enumerate() {
            if obj.metadata.uid.is_empty() {
                generated.push(i);
                Arc::make_mut(&mut obj).metadata.uid = self.api.uids().next_uid();
            }
            let mut resp = self.api.create(obj, &Caller::default(), true);
            match resp.object.take() {
                Some(s) if resp.is_success() => {
                    stored(&s);
                    order.push(s);
                }
                _ => return Err((i, resp)),
            }
            super::progress::indexed_one();
        }
        Ok(())
    }

    /// A simulator with the scenario's settings, kinds and controllers and
    /// an empty store, at time zero.
    fn shell(scenario: &Arc<Scenario>, seed: u64) -> Sim {
        let epoch = scenario.settings.epoch.unwrap_or_else(epoch);
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
        api.config.whole_second_stamps = settings.whole_second_stamps;
        api.recorder = settings.field_recorder;
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
            pending: HashSet::default(),
            next_step: 0,
            timeline: Timeline::default(),
            kubelet_scheduled: BTreeSet::new(),
            finalizer_denials: BTreeMap::new(),
            apiservices: BTreeMap::new(),
            unavailable_apis: BTreeSet::new(),
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
            gc_rest: VecDeque::new(),
            deadline: None,
        }
    }

    /// The initial list, in the order given: watchers (the garbage
    /// collector, the controllers) see every object, the timeline does
    /// not.
    ///
    /// A long list is given to the garbage collector's graph builder and
    /// to the workload controllers' index on other threads meanwhile: the
    /// first reads nothing of the store but which kinds are namespaced,
    /// the second nothing at all, and the controllers' handlers nothing
    /// either keeps ([`watchers::Index::Elsewhere`]), so each sees every
    /// object in the same order as one after the other would (at 300k
    /// objects this first look was a fifth of `simulate`, on one core;
    /// then, with the collector apart, the handlers took 310 ms against
    /// its 117, nearly half of it building the index).
    fn initial_list(&mut self, order: Vec<Arc<Object>>) {
        let changes: Vec<Change> = order.into_iter().map(Change::Added).collect();
        if list_apart(changes.len()) {
            let mut gc = std::mem::take(&mut self.gc);
            let mut index = std::mem::take(&mut self.workloads);
            let kinds = self.api.kinds().clone();
            let changes = &changes;
            let ((), (built, indexed)) = crate::threads::both(
                || {
                    for ch in changes {
                        self.react_controllers(ch, watchers::Index::Elsewhere);
                    }
                },
                move || {
                    crate::threads::both(
                        || {
                            gc.reserve_for(changes.iter().map(Change::object));
                            for ch in changes {
                                gc.observe(ch, &kinds);
                            }
                            gc
                        },
                        || {
                            index.reserve_for(changes.iter().map(Change::object));
                            for ch in changes {
                                index.observe(ch);
                            }
                            index
                        },
                    )
                },
            );
            self.gc = built;
            self.workloads = indexed;
        } else {
            self.gc.reserve_for(changes.iter().map(Change::object));
            self.workloads
                .reserve_for(changes.iter().map(Change::object));
            for ch in &changes {
                self.react(ch);
            }
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

    /// The store's graph, shared with the caller until one of them
    /// changes it (see [`ApiServer::shared_graph`]).
    #[must_use]
    pub fn shared_graph(&self) -> Arc<OwnershipGraph> {
        self.api.shared_graph()
    }

    /// Makes the store the simulator's own now (see
    /// [`ApiServer::own_store`]).
    pub fn own_store(&mut self) {
        self.api.own_store();
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
    pub fn timeline(&self) -> &Timeline {
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

    /// finalizer -> the name of the workload its controller runs as, for
    /// the controllers that run as one (looked for as on a cluster:
    /// [`crate::model::diagnosis::Diagnosis::add_removers`]).
    #[must_use]
    pub fn controller_workloads(&self) -> BTreeMap<String, Vec<String>> {
        self.controllers
            .values()
            .filter_map(|c| Some((c.finalizer.clone(), vec![c.workload.as_ref()?.name.clone()])))
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
        // Looked up before it is copied: most requests find their task
        // pending (each of a load's pods asks for its ReplicaSet's sync).
        if !self.pending.contains(&task) {
            self.pending.insert(task.clone());
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
                // changed something. A CronJob's next schedule time is no
                // poll: what it starts is not the settling of this run.
                let mut trial = self.clone();
                let ticks: Vec<((u64, u64), Task)> = self
                    .tasks
                    .iter()
                    .filter(|(_, t)| matches!(t, Task::CronTick(_)))
                    .map(|(k, t)| (*k, t.clone()))
                    .collect();
                trial.tasks.retain(|_, t| !matches!(t, Task::CronTick(_)));
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
                self.tasks.extend(ticks);
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

    /// As [`Sim::advance`], but for about `budget` of real time at most:
    /// a run that has not reached the end of `ms` when the budget is spent
    /// stops between two tasks, or between two items of the garbage
    /// collector's batch, with the clock at the instant it was running;
    /// the next call goes on from there. What runs, in which order and at
    /// which virtual instant is the same as in one [`Sim::advance`] (the
    /// rest of a batch keeps the batch's place in the queue): only the
    /// real time it is spread over differs, so that the UI can draw and
    /// read keys while a 100k-object cascade is worked through. Returns
    /// whether it got to the end of `ms`; if not, the clock is where it
    /// stopped, and the caller asks again for the rest.
    pub fn advance_for(&mut self, ms: u64, budget: Duration) -> bool {
        self.prime();
        let target = self.now_ms + ms;
        self.deadline = Some(Instant::now() + budget);
        let mut done = true;
        while let Some((&(at, _), _)) = self.tasks.iter().next() {
            if at > target {
                break;
            }
            if !self.run_due(at) {
                done = false;
                break;
            }
        }
        self.deadline = None;
        if done {
            self.set_now(target);
        }
        done
    }

    /// Whether a bounded run's time is up.
    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
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

    /// Runs every task due at `at`. Returns false when a bounded run
    /// ([`Sim::advance_for`]) stopped before the last of them.
    fn run_due(&mut self, at: u64) -> bool {
        self.set_now(at.max(self.now_ms));
        // Never kept past this run: what changes the state between two
        // runs is not a sync.
        let mut ahead = Ahead::new(self.deadline.is_some());
        while let Some((&key, first)) = self.tasks.iter().next() {
            if key.0 > at {
                break;
            }
            if matches!(first, Task::Workload(_)) {
                ahead.prepare(&self.tasks, at, &self.api, &self.workloads);
            }
            if let Some(task) = self.tasks.remove(&key) {
                self.pending.remove(&task);
                self.run_task(key, task, &mut ahead);
                if !self.gc_rest.is_empty() {
                    self.tasks.insert(key, Task::GcBatchRest);
                    return false;
                }
                if self.out_of_time() {
                    return false;
                }
            }
        }
        true
    }
}
