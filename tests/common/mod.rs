//! Helpers shared by the conformance and property tests: loading inline
//! scenarios, naming objects, and reading the timeline.
#![allow(dead_code)]

use ownerscope::model::{Object, OwnerReference, Policy};
use ownerscope::sim::api::{ApiResponse, DeleteOptions, Key};
use ownerscope::sim::scenario;
use ownerscope::sim::timeline::{Diff, Entry, What};
use ownerscope::sim::{Sim, Target};

/// A simulator on an inline scenario.
pub fn sim(yaml: &str) -> Sim {
    let s = scenario::parse("test.yaml", yaml).expect("scenario parses");
    Sim::new(&s).expect("scenario loads")
}

/// `kind/name` in `ns` (`""` for cluster-scoped kinds).
pub fn t(kind: &str, ns: &str, name: &str) -> Target {
    Target {
        kind: kind.to_string(),
        namespace: (!ns.is_empty()).then(|| ns.to_string()),
        name: name.to_string(),
    }
}

pub fn policy(p: Policy) -> DeleteOptions {
    DeleteOptions::policy(p)
}

pub fn background() -> DeleteOptions {
    policy(Policy::Background)
}

pub fn foreground() -> DeleteOptions {
    policy(Policy::Foreground)
}

pub fn orphan() -> DeleteOptions {
    policy(Policy::Orphan)
}

/// Reading the simulator by kind, namespace and name.
pub trait SimExt {
    fn key(&self, kind: &str, ns: &str, name: &str) -> Key;
    fn obj(&self, kind: &str, ns: &str, name: &str) -> Option<Object>;
    fn must(&self, kind: &str, ns: &str, name: &str) -> Object;
    fn exists(&self, kind: &str, ns: &str, name: &str) -> bool;
    fn uid_of(&self, kind: &str, ns: &str, name: &str) -> String;
    /// Whether the object exists with a deletionTimestamp.
    fn terminating(&self, kind: &str, ns: &str, name: &str) -> bool;
    /// The object's finalizers (panics when it is gone).
    fn finalizers(&self, kind: &str, ns: &str, name: &str) -> Vec<String>;
    /// The uids of its owner references (panics when it is gone).
    fn owner_uids(&self, kind: &str, ns: &str, name: &str) -> Vec<String>;
    /// When the object (by kind and name) left the store, and who removed it.
    fn removed(&self, kind: &str, name: &str) -> Option<(u64, String)>;
    fn removed_at(&self, kind: &str, name: &str) -> u64;
    /// Every update of the object (by kind and name): time, actor, diff.
    fn updates(&self, kind: &str, name: &str) -> Vec<(u64, String, Diff)>;
    /// Every timeline entry about the object (by kind and name).
    fn entries(&self, kind: &str, name: &str) -> Vec<Entry>;
    /// Position in the timeline of the first entry about the object (by
    /// kind and name) that matches `what`.
    fn seq(&self, kind: &str, name: &str, what: impl Fn(&What) -> bool) -> usize;
    /// Position in the timeline of the object's removal.
    fn removed_seq(&self, kind: &str, name: &str) -> usize;
    /// Warning events: (object name, reason, message).
    fn events(&self) -> Vec<(String, String, String)>;
    /// Runs `step()` until `done` holds (at most `max` steps).
    fn step_until(&mut self, max: usize, done: impl Fn(&Self) -> bool);
}

impl SimExt for Sim {
    fn key(&self, kind: &str, ns: &str, name: &str) -> Key {
        self.resolve(&t(kind, ns, name)).expect("kind resolves")
    }

    fn obj(&self, kind: &str, ns: &str, name: &str) -> Option<Object> {
        self.get(&self.key(kind, ns, name)).cloned()
    }

    fn must(&self, kind: &str, ns: &str, name: &str) -> Object {
        self.obj(kind, ns, name)
            .unwrap_or_else(|| panic!("{kind}/{name} -n {ns:?} should exist"))
    }

    fn exists(&self, kind: &str, ns: &str, name: &str) -> bool {
        self.obj(kind, ns, name).is_some()
    }

    fn uid_of(&self, kind: &str, ns: &str, name: &str) -> String {
        self.must(kind, ns, name).metadata.uid
    }

    fn terminating(&self, kind: &str, ns: &str, name: &str) -> bool {
        self.obj(kind, ns, name)
            .is_some_and(|o| o.metadata.deletion_timestamp.is_some())
    }

    fn finalizers(&self, kind: &str, ns: &str, name: &str) -> Vec<String> {
        self.must(kind, ns, name).metadata.finalizers
    }

    fn owner_uids(&self, kind: &str, ns: &str, name: &str) -> Vec<String> {
        self.must(kind, ns, name)
            .metadata
            .owner_references
            .iter()
            .map(|r| r.uid.clone())
            .collect()
    }

    fn removed(&self, kind: &str, name: &str) -> Option<(u64, String)> {
        self.timeline()
            .iter()
            .find(|e| e.object.kind == kind && e.object.name == name && e.what == What::Deleted)
            .map(|e| (e.t_ms, e.by.clone()))
    }

    fn removed_at(&self, kind: &str, name: &str) -> u64 {
        self.removed(kind, name)
            .unwrap_or_else(|| panic!("{kind}/{name} should have been removed"))
            .0
    }

    fn updates(&self, kind: &str, name: &str) -> Vec<(u64, String, Diff)> {
        self.timeline()
            .iter()
            .filter(|e| e.object.kind == kind && e.object.name == name)
            .filter_map(|e| match &e.what {
                What::Updated { changes } => Some((e.t_ms, e.by.clone(), changes.clone())),
                _ => None,
            })
            .collect()
    }

    fn entries(&self, kind: &str, name: &str) -> Vec<Entry> {
        self.timeline()
            .iter()
            .filter(|e| e.object.kind == kind && e.object.name == name)
            .cloned()
            .collect()
    }

    fn seq(&self, kind: &str, name: &str, what: impl Fn(&What) -> bool) -> usize {
        self.timeline()
            .iter()
            .position(|e| e.object.kind == kind && e.object.name == name && what(&e.what))
            .unwrap_or_else(|| panic!("no such entry for {kind}/{name}"))
    }

    fn removed_seq(&self, kind: &str, name: &str) -> usize {
        self.seq(kind, name, |w| *w == What::Deleted)
    }

    fn events(&self) -> Vec<(String, String, String)> {
        self.timeline()
            .iter()
            .filter_map(|e| match &e.what {
                What::Event { reason, message } => {
                    Some((e.object.name.clone(), reason.clone(), message.clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn step_until(&mut self, max: usize, done: impl Fn(&Self) -> bool) {
        for _ in 0..max {
            if done(self) {
                return;
            }
            assert!(self.step(), "the simulation ran out of work first");
        }
        assert!(done(self), "condition not reached within {max} steps");
    }
}

/// A successful DELETE that removed the object (200 with a Status).
pub fn assert_removed(resp: &ApiResponse) {
    assert_eq!((resp.code, resp.removed), (200, true), "{resp:?}");
}

/// A successful DELETE that left the object Terminating; returns it.
pub fn assert_pending(resp: &ApiResponse, code: u16) -> Object {
    assert_eq!((resp.code, resp.removed), (code, false), "{resp:?}");
    let o = Object::clone(resp.object.as_ref().expect("the object is returned"));
    assert!(o.metadata.deletion_timestamp.is_some(), "{o:?}");
    o
}

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

/// A reference to `owner`.
pub fn owner_ref(owner: &Object, controller: bool, block: Option<bool>) -> OwnerReference {
    owner.reference(controller.then_some(true), block)
}

/// A ConfigMap with these owner references.
pub fn configmap(ns: &str, name: &str, refs: Vec<OwnerReference>) -> Object {
    let mut o = Object::new("v1", "ConfigMap", Some(ns), name);
    o.metadata.owner_references = refs;
    o
}

/// The condition `kind` of Namespace `name`: (status, message).
pub fn namespace_condition(sim: &Sim, name: &str, kind: &str) -> (String, String) {
    let ns = sim.must("Namespace", "", name);
    let c = ns
        .value_at(&["status", "conditions"])
        .and_then(|v| v.as_array())
        .and_then(|cs| cs.iter().find(|c| c["type"] == kind).cloned())
        .unwrap_or_else(|| panic!("condition {kind}: {:?}", ns.status));
    (
        c["status"].as_str().unwrap_or_default().to_string(),
        c["message"].as_str().unwrap_or_default().to_string(),
    )
}
