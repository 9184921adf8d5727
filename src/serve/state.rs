//! The served simulator: one [`Sim`] driven by real time (scaled, or
//! paused), and a bounded history of its changes for watches to resume
//! from (older resource versions answer 410 Gone, as a compacted etcd
//! does).

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use super::events;
use super::index::Index;
use super::journal::{Op, Record};
use crate::model::Object;
use crate::sim::timeline::{Entry, What};
use crate::sim::{Change, Key, Sim};

/// Who the server's own requests are from on the timeline.
const ACTOR: &str = "ownerscope serve";

/// How many changes a watch can resume across.
pub const HISTORY: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Added,
    Modified,
    Deleted,
}

impl EventKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Added => "ADDED",
            EventKind::Modified => "MODIFIED",
            EventKind::Deleted => "DELETED",
        }
    }
}

/// One stored change, with the resource version it made.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub rv: u64,
    pub kind: EventKind,
    pub object: Arc<Object>,
    /// The object before a modification (a watch with a selector sees an
    /// object that leaves it as deleted).
    pub old: Option<Arc<Object>>,
}

/// The simulator and what watches need of its past. It starts with the
/// namespaces its objects need and the bootstrap RBAC policy
/// ([`super::policy`]), as a fresh cluster has them.
#[derive(Debug)]
pub struct Served {
    pub sim: Sim,
    /// The store in list order ([`Index`]), kept from the changes.
    pub index: Index,
    history: VecDeque<Event>,
    /// Every change after this resource version is in `history`.
    oldest: u64,
    cap: usize,
    /// Virtual seconds per real second.
    pub speed: f64,
    pub paused: bool,
    carry: f64,
    /// How much of the simulator's timeline has been looked at for events
    /// to record ([`super::events`]).
    recorded: usize,
    /// With `--state-dir`: the changes not yet handed to the journal
    /// ([`super::journal`]), and the last record's number.
    journal: Option<Vec<Record>>,
    journal_seq: u64,
    /// The OpenAPI documents built ([`super::openapi`]).
    pub openapi: super::openapi::Answers,
}

/// The namespaces a real cluster has, and every one the objects use:
/// kubectl lists them, and creates into them.
#[must_use]
pub fn missing_namespaces(sim: &Sim) -> Vec<String> {
    let have: BTreeSet<&str> = sim
        .objects()
        .filter(|o| o.kind == "Namespace" && o.group().is_empty())
        .map(Object::name)
        .collect();
    let mut want: BTreeSet<&str> = ["default", "kube-system", "kube-public"].into();
    want.extend(sim.objects().filter_map(Object::namespace));
    want.into_iter()
        .filter(|n| !have.contains(n))
        .map(str::to_string)
        .collect()
}

/// The Nodes the pods are bound to that the store lacks: a real cluster's
/// pods run only on Nodes that exist (a scenario rarely lists them).
#[must_use]
pub fn missing_nodes(sim: &Sim) -> Vec<String> {
    let have: BTreeSet<&str> = sim
        .objects()
        .filter(|o| o.kind == "Node" && o.group().is_empty())
        .map(Object::name)
        .collect();
    let want: BTreeSet<&str> = sim
        .objects()
        .filter(|o| o.kind == "Pod" && o.group().is_empty())
        .filter_map(|o| o.str_at(&["spec", "nodeName"]))
        .filter(|n| !n.is_empty())
        .collect();
    want.difference(&have).map(|n| (*n).to_string()).collect()
}

/// A Node whose kubelet posts ready status, as a fresh cluster's.
fn ready_node(name: &str, now: jiff::Timestamp) -> Object {
    let mut node = Object::new("v1", "Node", None, name);
    node.status = serde_json::json!({"conditions": [{
        "type": "Ready", "status": "True", "reason": "KubeletReady",
        "message": "kubelet is posting ready status",
        "lastHeartbeatTime": now.to_string(), "lastTransitionTime": now.to_string(),
    }]})
    .into();
    node
}

impl Served {
    /// Serves `sim`, creating the namespaces its objects live in, the
    /// Nodes its pods are bound to, and each namespace's
    /// `kube-root-ca.crt` when the simulator has a CA.
    #[must_use]
    pub fn new(mut sim: Sim) -> Served {
        sim.set_user_actor(ACTOR);
        for ns in missing_namespaces(&sim) {
            sim.create(Object::new("v1", "Namespace", None, &ns));
        }
        for node in missing_nodes(&sim) {
            let now = sim.now();
            sim.create(ready_node(&node, now));
        }
        for o in super::policy::bootstrap() {
            let present = sim
                .objects()
                .any(|x| x.kind == o.kind && x.group() == o.group() && x.name() == o.name());
            if !present {
                sim.create(o);
            }
        }
        sim.publish_root_ca();
        sim.take_watch_changes();
        let oldest = sim.resource_version();
        Served {
            index: Index::new(sim.shared_objects()),
            sim,
            history: VecDeque::new(),
            oldest,
            cap: HISTORY,
            speed: 1.0,
            paused: false,
            carry: 0.0,
            recorded: 0,
            journal: None,
            journal_seq: 0,
            openapi: super::openapi::Answers::default(),
        }
    }

    /// Records every change from now on for the journal, numbered after
    /// `last`.
    pub fn enable_journal(&mut self, last: u64) {
        self.journal = Some(Vec::new());
        self.journal_seq = last;
    }

    /// The changes recorded since the last call, in order.
    pub fn take_journal(&mut self) -> Vec<Record> {
        self.journal
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The last journal record's number.
    #[must_use]
    pub fn journal_seq(&self) -> u64 {
        self.journal_seq
    }

    /// Keeps at most `cap` changes (tests make it small).
    #[must_use]
    pub fn with_history(mut self, cap: usize) -> Served {
        self.cap = cap.max(1);
        self
    }

    /// The store's resource version now.
    #[must_use]
    pub fn resource_version(&self) -> u64 {
        self.sim.resource_version()
    }

    /// Moves the simulator's changes into the history. Returns whether
    /// there were any.
    pub fn pump(&mut self) -> bool {
        self.record_events();
        let changes = self.sim.take_watch_changes();
        let any = !changes.is_empty();
        for ch in changes {
            if let Some(journal) = &mut self.journal {
                self.journal_seq += 1;
                let op = match &ch {
                    Change::Added(o) | Change::Modified { new: o, .. } => Op::Put(Arc::clone(o)),
                    Change::Deleted(o) => Op::Delete(Key::of(o)),
                };
                journal.push(Record {
                    seq: self.journal_seq,
                    rv: self.sim.resource_version(),
                    now_ms: self.sim.now_ms(),
                    op,
                });
            }
            match &ch {
                Change::Added(o) | Change::Modified { new: o, .. } => self.index.put(o),
                Change::Deleted(o) => self.index.remove(o),
            }
            let (kind, object, old) = match ch {
                Change::Added(o) => (EventKind::Added, o, None),
                Change::Modified { old, new } => (EventKind::Modified, new, Some(old)),
                Change::Deleted(o) => (EventKind::Deleted, o, None),
            };
            let rv = object
                .metadata
                .resource_version
                .as_deref()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| self.sim.resource_version());
            self.history.push_back(Event {
                rv,
                kind,
                object,
                old,
            });
            while self.history.len() > self.cap {
                if let Some(e) = self.history.pop_front() {
                    self.oldest = e.rv;
                }
            }
        }
        any
    }

    /// Posts the events the simulator's controllers reported since the
    /// last look as Event objects (or raises a stored one's count), each as
    /// its reporter. A post the store refuses (its namespace is going) is
    /// dropped, as a recorder drops it.
    fn record_events(&mut self) {
        let timeline = self.sim.timeline();
        let new: Vec<Entry> = timeline
            .since(self.recorded)
            .filter(|e| matches!(e.what, What::Event { .. }))
            .cloned()
            .collect();
        self.recorded = timeline.len();
        if new.is_empty() {
            return;
        }
        let (now, now_ms) = (self.sim.now(), self.sim.now_ms());
        for e in &new {
            let at = events::entry_time(e, now, now_ms);
            // The Events about the entry's object, from the graph's index of
            // them: a controller's event costs what was said of its object,
            // not a look at every object in the store.
            let recorded = if e.object.uid.is_empty() {
                let stored = self
                    .sim
                    .objects()
                    .filter(|o| o.kind == "Event" && o.group().is_empty());
                events::record(e, at, stored)
            } else {
                events::record(e, at, self.sim.graph().events_about(&e.object.uid))
            };
            let Some(recorded) = recorded else {
                continue;
            };
            self.sim.set_user_actor(&e.by);
            match recorded {
                events::Recorded::New(o) => self.sim.create(o),
                events::Recorded::Repeat(o) => self.sim.update(o),
            };
        }
        self.sim.set_user_actor(ACTOR);
    }

    /// Lets `elapsed` real time pass on the virtual clock.
    pub fn tick(&mut self, elapsed: Duration) {
        if !self.paused {
            self.carry += elapsed.as_secs_f64() * 1000.0 * self.speed;
            let whole = self.carry.floor();
            if whole >= 1.0 {
                self.carry -= whole;
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                self.sim.advance(whole as u64);
            }
        }
        self.pump();
    }

    /// The changes after resource version `rv`, or `Err(oldest)` when some
    /// of them are no longer kept.
    ///
    /// # Errors
    /// `rv` is older than the history reaches.
    pub fn since(&self, rv: u64) -> Result<Vec<&Event>, u64> {
        if rv < self.oldest {
            return Err(self.oldest);
        }
        Ok(self.history.iter().filter(|e| e.rv > rv).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario;

    #[test]
    fn history_is_bounded_and_says_when_it_is() {
        let sim = Sim::new(&scenario::bundled("deployment").expect("bundled")).expect("sim");
        let mut s = Served::new(sim).with_history(2);
        assert!(
            s.sim
                .objects()
                .any(|o| o.kind == "Namespace" && o.name() == "shop")
        );
        let start = s.resource_version();
        assert!(s.since(start).expect("kept").is_empty());
        for name in ["a", "b", "c"] {
            s.sim
                .create(Object::new("v1", "ConfigMap", Some("shop"), name));
        }
        s.pump();
        assert_eq!(s.since(start), Err(start + 1));
        let kept = s.since(start + 1).expect("kept");
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].object.name(), "b");
    }

    /// The history is not kept across a restart: a watch from before it
    /// is told to relist (410), as by a server whose etcd compacted.
    #[test]
    fn a_watch_from_before_a_restart_is_gone() {
        let sc = scenario::bundled("deployment").expect("bundled");
        let mut before = Served::new(Sim::new(&sc).expect("sim"));
        let from = before.resource_version();
        before
            .sim
            .create(Object::new("v1", "ConfigMap", Some("shop"), "a"));
        before.pump();
        assert_eq!(before.since(from).expect("kept").len(), 1);
        let after = Served::new(Sim::resume(sc, before.sim.saved()).expect("resumes"));
        assert_eq!(after.resource_version(), before.resource_version());
        assert!(after.since(from).is_err());
        assert!(
            after
                .since(after.resource_version())
                .expect("now")
                .is_empty()
        );
    }

    #[test]
    fn paused_time_does_not_pass() {
        let sim = Sim::new(&scenario::bundled("deployment").expect("bundled")).expect("sim");
        let mut s = Served::new(sim);
        s.paused = true;
        s.tick(Duration::from_secs(3));
        assert_eq!(s.sim.now_ms(), 0);
        s.paused = false;
        s.speed = 2.0;
        s.tick(Duration::from_millis(1500));
        assert_eq!(s.sim.now_ms(), 3000);
    }
}
