//! The simulator behind the [`Backend`] interface: real time drives the
//! virtual clock (scaled by a speed, or paused), store changes become
//! updates, the timeline becomes happenings.

use std::time::Duration;

use jiff::Timestamp;

use super::starting::Starting;
use super::story::{self, Story};
use super::{
    Backend, Clock, Command, Connection, ControllerInfo, Happening, Reply, SimCommand,
    SourceStatus, Update,
};
use crate::sim::api::{Change, Key, Preconditions};
use crate::sim::scenario::{self, Scenario};
use crate::sim::timeline::What;
use crate::sim::{DeleteOptions, Sim};

/// Speeds offered, in virtual seconds per real second.
pub const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0];
/// The real time one poll gives the simulator's work at most: the rest of
/// what is due waits for the next poll ([`crate::sim::Sim::advance_for`]),
/// so a long cascade never holds the UI's loop for longer.
pub const POLL_BUDGET: Duration = Duration::from_millis(25);
/// 1x: where a scenario starts, and starts again after a reset or a load.
const DEFAULT_SPEED: usize = 2;

/// The simulator as a backend.
#[derive(Debug)]
pub struct SimBackend {
    sim: Sim,
    speed_index: usize,
    paused: bool,
    /// Virtual ms owed to the clock (sub-millisecond carry).
    carry: f64,
    timeline_seen: usize,
    /// Steps already put on the timeline.
    steps_told: usize,
    /// The story last sent.
    story: Option<Story>,
    out: Vec<Update>,
    /// The last poll's run stopped inside an instant (its budget spent).
    unfinished: bool,
    /// Virtual ms given to the clock that it has not reached yet.
    behind: u64,
    /// The real time a poll works at most ([`POLL_BUDGET`]); `None`: a
    /// poll runs everything due, however long it takes (a scripted
    /// session, whose screens must not depend on the machine's load).
    budget: Option<Duration>,
}

impl SimBackend {
    /// Starts on a loaded scenario, running at 1x.
    ///
    /// # Errors
    /// The scenario's objects are rejected by the API server.
    pub fn new(scenario: &Scenario) -> Result<Self, crate::sim::LoadError> {
        Self::from_scenario(scenario.clone())
    }

    /// As [`SimBackend::new`], taking the scenario (kept once, for reset).
    ///
    /// # Errors
    /// As [`SimBackend::new`].
    pub fn from_scenario(scenario: Scenario) -> Result<Self, crate::sim::LoadError> {
        let mut b = Self::on(Sim::resettable(scenario)?);
        b.push_reset();
        Ok(b)
    }

    /// As [`SimBackend::from_scenario`], with the first updates (the
    /// loaded objects, a status whose clock is starting) given at once,
    /// before the simulator's controllers take their first look at them
    /// (the garbage collector's graph, the workload index: a fifth of the
    /// UI's load of a large file). The look runs on a thread of its own
    /// from the first poll on ([`Starting`]): the UI builds and draws its
    /// tree first. The objects are the same before that look and after: it
    /// changes none at time zero, it only schedules. What it records (the
    /// collector's warnings) and the status it leaves come with the first
    /// poll once it is done, as after [`SimBackend::from_scenario`].
    ///
    /// # Errors
    /// As [`SimBackend::new`].
    pub fn starting(scenario: Scenario) -> Result<(Starting, Vec<Update>), crate::sim::LoadError> {
        let b = Self::on(Sim::resettable_deferred(scenario)?);
        // The clock at zero, starting; the controllers are not known
        // before their look (one whose Deployment has no replicas is
        // offline).
        let mut status = b.status();
        if let Some(c) = &mut status.clock {
            c.starting = true;
        }
        status.controllers.clear();
        let first = vec![b.reset_update(), Update::status(status)];
        let now = b.sim.now();
        let starting = Starting::spawn(b, now, |b| {
            // The UI shares the store's graph: the simulator's own copy is
            // made here, on the look's thread, not at its first write (a
            // user's delete, waited for on the UI's).
            b.sim.own_store();
            b.sim.prime();
            b.timeline_seen = 0;
            b.push_status();
        });
        Ok((starting, first))
    }

    /// A backend on a started simulator, with nothing pushed yet.
    fn on(sim: Sim) -> Self {
        SimBackend {
            paused: sim.settings().starts_paused,
            sim,
            speed_index: DEFAULT_SPEED,
            carry: 0.0,
            timeline_seen: 0,
            steps_told: 0,
            story: None,
            out: Vec::new(),
            unfinished: false,
            behind: 0,
            budget: Some(POLL_BUDGET),
        }
    }

    /// Polls that run everything due at once, for a scripted session: what
    /// a screen shows after a given virtual time is then the same on a
    /// loaded machine as on an idle one.
    #[must_use]
    pub fn unbounded(mut self) -> Self {
        self.budget = None;
        self
    }

    /// Whether the last poll's budget ran out before the clock got where
    /// it was given: the next poll goes on from there.
    #[must_use]
    pub fn catching_up(&self) -> bool {
        self.unfinished || self.behind > 0
    }

    /// The simulator, for tests.
    #[must_use]
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The store's objects, all at once, in the store's graph: a copy of
    /// it shares every object and is built without hashing or comparing
    /// anything (the UI's own build of it from the objects was a sixth of
    /// the load of a 300k-object file).
    fn reset_update(&self) -> Update {
        Update::ResetGraph(self.sim.shared_graph())
    }

    fn push_reset(&mut self) {
        self.sim.take_watch_changes();
        let reset = self.reset_update();
        self.out.push(reset);
        // What happened while the scenario loaded (the garbage collector's
        // warnings about references it cannot resolve) follows the reset.
        self.timeline_seen = 0;
        self.push_status();
    }

    fn status(&self) -> SourceStatus {
        SourceStatus {
            kind: "SIMULATOR".into(),
            name: self.sim.scenario().name.clone(),
            scope: "all namespaces".into(),
            connection: Connection::Connected,
            clock: Some(Clock {
                now_ms: self.sim.now_ms(),
                paused: self.paused,
                speed: SPEEDS[self.speed_index],
                starting: false,
            }),
            missing_kinds: Vec::new(),
            syncing: Vec::new(),
            controllers: self.sim.controllers().map(controller_info).collect(),
        }
    }

    fn push_status(&mut self) {
        let s = self.status();
        self.out.push(Update::status(s));
        let story = story::story(&self.sim);
        if self.story.as_ref() != Some(&story) {
            self.story = Some(story.clone());
            self.out.push(Update::story(story));
        }
    }

    fn collect(&mut self) {
        // A step's own entry goes before what it caused.
        let run = self.sim.steps_run();
        for i in self.steps_told..run {
            if let Some(h) = story::step_happening(&self.sim, i) {
                self.out.push(Update::happened(h));
            }
        }
        self.steps_told = run;
        for ch in self.sim.take_watch_changes() {
            self.out.push(match ch {
                Change::Added(o) | Change::Modified { new: o, .. } => Update::Upsert(o),
                Change::Deleted(o) => Update::Remove(o.metadata.uid.clone()),
            });
        }
        let entries = self.sim.timeline().since(self.timeline_seen);
        self.out
            .extend(entries.map(|e| Update::happened(happening(e))));
        self.timeline_seen = self.sim.timeline().len();
    }

    fn reply(&mut self, command: Command, resp: &crate::sim::ApiResponse) {
        // A refusal by an admission webhook says which configuration and
        // what to do, before the server's words (STUCK-CAUSES C6).
        let message = match crate::model::webhooks::explain_refusal(self.sim.graph(), &resp.message)
        {
            Some(why) if !resp.is_success() => format!("{why} (the server: {})", resp.message),
            _ => resp.message.clone(),
        };
        self.out.push(Update::replied(Reply {
            command,
            code: resp.code,
            message,
            warnings: resp.warnings.clone(),
        }));
    }

    fn load(&mut self, scenario: &Scenario) -> Result<(), String> {
        let sim = Sim::new(scenario).map_err(|e| e.to_string())?;
        self.replace(sim);
        Ok(())
    }

    fn restart(&mut self) -> Result<(), String> {
        let sim = self.sim.restarted().map_err(|e| e.to_string())?;
        self.replace(sim);
        Ok(())
    }

    /// A scenario (re)started: its clock at 0, at 1x, paused if it says
    /// so, whatever the one before was doing.
    fn replace(&mut self, sim: Sim) {
        self.sim = sim;
        self.carry = 0.0;
        self.speed_index = DEFAULT_SPEED;
        self.paused = self.sim.settings().starts_paused;
        self.steps_told = 0;
        self.unfinished = false;
        self.behind = 0;
        self.push_reset();
    }

    /// What a (re)started scenario says of itself, for the status line.
    fn started(&self) -> String {
        let sc = self.sim.scenario();
        let clock = if self.paused {
            "clock at 0, speed x1, PAUSED (it starts paused: Space runs it)"
        } else {
            "clock at 0, speed x1, running"
        };
        if sc.description.is_empty() {
            clock.to_string()
        } else {
            format!("{clock}. {}", sc.description)
        }
    }
}

/// A timeline entry as the UI's timeline shows it; warnings are Events and
/// refused requests.
#[must_use]
pub fn happening(e: &crate::sim::timeline::Entry) -> Happening {
    let warning = match &e.what {
        What::Event { .. } => true,
        What::Response { code, .. } => !(200..300).contains(code),
        _ => false,
    };
    Happening {
        t: e.seconds(),
        object: e.object.clone(),
        verb: e.verb().to_string(),
        detail: e.detail(),
        by: e.by.clone(),
        warning,
    }
}

/// The simulator's answer to a namespace switch, and `ui --serve`'s: it
/// holds every namespace of its scenario, so there is nothing to watch
/// anew; one namespace is a filter of the tree.
#[must_use]
pub fn namespaces_held(ns: Option<&str>) -> String {
    match ns {
        None => "every namespace of the scenario is in view".into(),
        Some(ns) => format!(
            "the simulator holds every namespace of its scenario: :ns {ns} filters the tree when {ns} is in it"
        ),
    }
}

/// A simulated controller as the UI shows it (the simulator and `serve`).
#[must_use]
pub fn controller_info(c: &crate::sim::engine::ControllerState) -> ControllerInfo {
    ControllerInfo {
        finalizer: c.finalizer.clone(),
        online: c.online,
        after_ms: c.after.0,
        workload: c.workload.as_ref().map(|w| {
            format!(
                "{} {}/{}",
                w.kind,
                w.namespace.as_deref().unwrap_or_default(),
                w.name
            )
        }),
    }
}

impl Backend for SimBackend {
    fn send(&mut self, cmd: Command) {
        match &cmd {
            Command::Delete { target, policy } => {
                let key = Key::from_ref(target);
                let opts = DeleteOptions {
                    preconditions: Preconditions {
                        uid: Some(target.uid.clone()),
                        resource_version: None,
                    },
                    ..DeleteOptions::policy(*policy)
                };
                let resp = self.sim.delete_key(&key, &opts);
                self.reply(cmd, &resp);
            }
            Command::ForceDelete { target } => {
                let key = Key::from_ref(target);
                let resp = self
                    .sim
                    .delete_key(&key, &DeleteOptions::forced(&target.uid));
                self.reply(cmd, &resp);
            }
            Command::RemoveFinalizer { target, finalizer } => {
                let key = Key::from_ref(target);
                let resp = self
                    .sim
                    .remove_finalizer_key(&key, Some(&target.uid), finalizer);
                self.reply(cmd, &resp);
            }
            Command::SwitchContext(_) => self.out.push(Update::replied(Reply {
                command: cmd.clone(),
                code: 0,
                message: "the simulator has no contexts: :scenario NAME opens another scenario"
                    .into(),
                warnings: Vec::new(),
            })),
            Command::SwitchNamespace(ns) => self.out.push(Update::replied(Reply {
                command: cmd.clone(),
                code: if ns.is_none() { 200 } else { 0 },
                message: namespaces_held(ns.as_deref()),
                warnings: Vec::new(),
            })),
            Command::Reconnect => self.out.push(Update::replied(Reply {
                command: cmd.clone(),
                code: 0,
                message: "nothing to reconnect: the simulator runs in this process".into(),
                warnings: Vec::new(),
            })),
            // The store holds every object there is: nothing more to read.
            Command::ReadEvidence(_) => {}
            Command::Sim(s) => {
                match s {
                    SimCommand::Pause => self.paused = true,
                    SimCommand::Resume => self.paused = false,
                    SimCommand::Step => {
                        #[allow(clippy::cast_precision_loss)]
                        let message = if self.sim.step() {
                            format!(
                                "ran what was due at t={:.1}s",
                                self.sim.now_ms() as f64 / 1000.0
                            )
                        } else {
                            "nothing is scheduled: every step ran and nothing is pending"
                                .to_string()
                        };
                        self.out.push(Update::replied(Reply {
                            command: cmd.clone(),
                            code: 200,
                            message,
                            warnings: Vec::new(),
                        }));
                    }
                    SimCommand::Faster => {
                        self.speed_index = (self.speed_index + 1).min(SPEEDS.len() - 1)
                    }
                    SimCommand::Slower => self.speed_index = self.speed_index.saturating_sub(1),
                    SimCommand::SetController { finalizer, online } => {
                        self.sim.set_controller(finalizer, *online);
                        let h = story::switch_happening(&self.sim, finalizer, *online);
                        self.out.push(Update::happened(h));
                    }
                    SimCommand::Reset | SimCommand::Load(_) => {
                        let done = match s {
                            SimCommand::Load(name) => scenario::load(name)
                                .map_err(|e| e.to_string())
                                .and_then(|sc| self.load(&sc)),
                            _ => self.restart(),
                        };
                        // The answer replaces "loading scenario": it says
                        // where the clock and the speed are now.
                        let (code, message) = match done {
                            Ok(()) => (200, self.started()),
                            Err(e) => (0, e),
                        };
                        self.out.push(Update::replied(Reply {
                            command: cmd.clone(),
                            code,
                            message,
                            warnings: Vec::new(),
                        }));
                    }
                }
                self.push_status();
            }
        }
        self.collect();
    }

    fn poll(&mut self, elapsed: Duration) -> Vec<Update> {
        let mut ms = 0;
        if !self.paused {
            self.carry += elapsed.as_secs_f64() * 1000.0 * SPEEDS[self.speed_index];
            let whole = self.carry.floor();
            if whole >= 1.0 {
                self.carry -= whole;
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                {
                    ms = whole as u64;
                }
            }
        }
        // At most POLL_BUDGET of work a poll: a cascade's 100k changes are
        // worked through over many polls, the UI drawing and reading keys
        // in between, and the virtual time a poll did not reach is owed to
        // the next ones. Paused, only an instant cut short is finished
        // (the clock stays where it is).
        if !self.paused {
            ms += std::mem::take(&mut self.behind);
        }
        if ms > 0 || self.unfinished {
            let target = self.sim.now_ms() + ms;
            self.unfinished = match self.budget {
                Some(budget) => !self.sim.advance_for(ms, budget),
                None => {
                    self.sim.advance(ms);
                    false
                }
            };
            self.behind += target - self.sim.now_ms();
        }
        self.collect();
        self.push_status();
        std::mem::take(&mut self.out)
    }

    fn now(&self) -> Timestamp {
        self.sim.now()
    }

    fn is_simulator(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Policy;

    fn delete_the_deployment(b: &mut SimBackend, policy: Policy) {
        let target = b
            .sim()
            .objects()
            .find(|o| o.kind == "Deployment")
            .expect("deployment")
            .obj_ref();
        b.send(Command::Delete { target, policy });
    }

    #[test]
    fn a_delete_flows_back_as_updates_and_a_reply() {
        let sc = scenario::bundled("deployment").expect("bundled");
        let mut b = SimBackend::new(&sc).expect("loads");
        let first = b.poll(Duration::ZERO);
        assert!(matches!(first[0], Update::ResetGraph(ref g) if g.len() == 5));
        delete_the_deployment(&mut b, Policy::Foreground);
        let ups = b.poll(Duration::ZERO);
        assert!(
            ups.iter()
                .any(|u| matches!(u, Update::Replied(r) if r.code == 200))
        );
        assert!(
            ups.iter()
                .any(|u| matches!(u, Update::Upsert(o) if o.is_terminating()))
        );
        // Paused: no virtual time passes.
        b.send(Command::Sim(SimCommand::Pause));
        let before = b.sim().now_ms();
        b.poll(Duration::from_secs(5));
        assert_eq!(b.sim().now_ms(), before);
        b.send(Command::Sim(SimCommand::Resume));
        b.poll(Duration::from_secs(60));
        // A poll works POLL_BUDGET at most: what was due goes on at the
        // next polls, with no time given.
        for _ in 0..10_000 {
            if !b.catching_up() {
                break;
            }
            b.poll(Duration::ZERO);
        }
        assert!(!b.catching_up());
        assert_eq!(b.sim().now_ms(), before + 60_000);
        assert_eq!(b.sim().objects().count(), 0);
    }

    /// The controllers' first look taken beside the UI's, or before it:
    /// the same updates, at load and after.
    #[test]
    fn a_load_beside_the_ui_gives_what_a_load_before_it_gives() {
        for (name, _) in scenario::BUNDLED {
            let sc = scenario::bundled(name).expect("bundled");
            let mut before = SimBackend::new(&sc).expect("loads").unbounded();
            let (beside, mut first) = SimBackend::starting(sc).expect("loads");
            let mut beside = beside.into_ready().unbounded();
            // The status drawn while the controllers look: the clock at
            // zero, starting; no controller said to be online or not yet.
            let Update::Status(starting) = first.remove(1) else {
                panic!("{name}: the status second");
            };
            let clock = starting.clock.expect("a clock");
            assert!(clock.starting && clock.now_ms == 0, "{name}");
            assert!(starting.controllers.is_empty(), "{name}");
            let mut seen = first;
            let mut expected = Vec::new();
            for elapsed in [Duration::ZERO, Duration::from_secs(30)] {
                expected.extend(before.poll(elapsed));
                seen.extend(beside.poll(elapsed));
            }
            assert!(
                expected.len() > 2,
                "{name}: the load is more than the objects and a status"
            );
            assert_eq!(seen, expected, "{name}");
        }
    }

    /// The store's graph handed to the UI at a load is shared, not
    /// copied, and is the UI's alone once the controllers' first look is
    /// done: the simulator made its own copy on the look's thread. So the
    /// UI folds the simulator's changes into the graph it was given, with
    /// no copy of a whole graph on its thread, and what the simulator
    /// writes reaches the UI only as updates.
    #[test]
    fn the_graph_handed_to_the_ui_is_its_own_once_the_look_is_done() {
        use crate::app::{App, Options};
        let sc = scenario::bundled("deployment").expect("bundled");
        let mut reset = SimBackend::new(&sc).expect("loads");
        let Some(Update::ResetGraph(shared)) = reset.poll(Duration::ZERO).into_iter().next() else {
            panic!("the store's graph first");
        };
        assert!(std::ptr::eq(&*shared, reset.sim().graph()), "not copied");
        let mut app = App::new(Options::default());
        let (starting, first) = SimBackend::starting(sc).expect("loads");
        app.apply_all(first);
        let given: *const crate::model::OwnershipGraph = app.graph();
        let loaded = app.graph().clone();
        let mut b = starting.into_ready();
        assert!(!std::ptr::eq(b.sim().graph(), given), "the store is a copy");
        delete_the_deployment(&mut b, Policy::Background);
        let updates = b.poll(Duration::from_secs(60));
        assert_eq!(app.graph(), &loaded, "the simulator's writes are its own");
        assert!(updates.iter().any(|u| matches!(u, Update::Remove(_))));
        for u in updates {
            app.apply_all(vec![u]);
            assert!(std::ptr::eq(app.graph(), given), "folded in place");
        }
        assert_eq!(app.graph(), b.sim().graph());
        assert_ne!(app.graph(), &loaded);
    }

    /// The store's graph handed to the UI at a reset shows what the UI's
    /// own build from the same objects shows: the same rows, problems and
    /// selector relations, for every bundled scenario and for a cluster
    /// large enough to have its selector index built beside the tree.
    #[test]
    fn the_stores_graph_given_to_the_ui_shows_what_its_objects_show() {
        use crate::app::{Action, App, Options};
        let mut scenarios: Vec<Scenario> = scenario::BUNDLED
            .iter()
            .map(|(name, _)| scenario::bundled(name).expect("bundled"))
            .collect();
        scenarios.push(crate::tools::bench_scale::scenario(
            crate::tools::generate::cluster(21_000),
        ));
        for sc in scenarios {
            let name = sc.name.clone();
            let mut b = SimBackend::from_scenario(sc).expect("loads").unbounded();
            let given = b.poll(Duration::ZERO);
            let Some(Update::ResetGraph(graph)) = given.first() else {
                panic!("{name}: the store's graph first");
            };
            let mut built = given.clone();
            built[0] = Update::Reset {
                objects: graph.shared_objects().cloned().collect(),
                kinds: Box::new(graph.kinds().clone()),
            };
            let app = |first: Vec<Update>| {
                let mut app = App::new(Options::default());
                app.set_viewport(40);
                app.apply_all(first);
                app.update(Action::ExpandAll);
                app
            };
            let (mut a, mut b) = (app(given), app(built));
            assert!(a.rows().len() > 3, "{name}");
            assert_eq!(a.rows(), b.rows(), "{name}");
            assert_eq!(a.graph(), b.graph(), "{name}");
            assert_eq!(
                a.index().terminating_count(),
                b.index().terminating_count(),
                "{name}"
            );
            for _ in 0..a.rows().len().min(300) {
                assert_eq!(a.relations(), b.relations(), "{name}");
                a.update(Action::Down);
                b.update(Action::Down);
            }
        }
    }

    #[test]
    fn a_reset_starts_the_same_scenario_over_with_the_same_seed() {
        let sc = scenario::bundled("deployment").expect("bundled");
        // Unbounded: the 60 s poll below runs to its end however loaded
        // the machine is (the budget is tested above).
        let mut b = SimBackend::new(&sc).expect("loads").unbounded();
        let Some(Update::ResetGraph(first)) = b.poll(Duration::ZERO).into_iter().next() else {
            panic!("a reset first");
        };
        delete_the_deployment(&mut b, Policy::Background);
        b.poll(Duration::from_secs(60));
        assert_eq!(b.sim().objects().count(), 0);
        b.send(Command::Sim(SimCommand::Reset));
        let Some(Update::ResetGraph(again)) = b.poll(Duration::ZERO).into_iter().next() else {
            panic!("a reset after the reset command");
        };
        // The same objects, uids and resource versions included, and the
        // same clock.
        assert_eq!(again, first);
        assert_eq!(b.sim().now_ms(), 0);
    }

    #[test]
    fn a_step_says_what_it_did() {
        let sc = scenario::bundled("wrong-uid").expect("bundled");
        let mut b = SimBackend::new(&sc).expect("loads");
        b.poll(Duration::ZERO);
        let mut said = Vec::new();
        for _ in 0..5 {
            b.send(Command::Sim(SimCommand::Step));
            for u in b.poll(Duration::ZERO) {
                if let Update::Replied(r) = u {
                    said.push(r.message);
                }
            }
        }
        assert_eq!(said[0], "ran what was due at t=0.2s");
        assert_eq!(
            said.last().map(String::as_str),
            Some("nothing is scheduled: every step ran and nothing is pending")
        );
    }

    #[test]
    fn a_stale_uid_is_refused() {
        let sc = scenario::bundled("deployment").expect("bundled");
        let mut b = SimBackend::new(&sc).expect("loads");
        let mut dep = b
            .sim()
            .objects()
            .find(|o| o.kind == "Deployment")
            .expect("deployment")
            .obj_ref();
        dep.uid = "not-the-uid".into();
        b.send(Command::Delete {
            target: dep,
            policy: Policy::Background,
        });
        let ups = b.poll(Duration::ZERO);
        assert!(
            ups.iter()
                .any(|u| matches!(u, Update::Replied(r) if r.code == 409))
        );
    }
}
