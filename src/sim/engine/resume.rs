//! A simulator saved and resumed, as an API server restarts on etcd's
//! data: the objects exactly as they were (uids, resource versions,
//! deletion state), the resource version counter, the uid sequence, the
//! virtual clock, which steps ran and what they switched (controllers,
//! failing discovery). What lived in memory (the garbage collector's
//! graph, the controllers' queues) is rebuilt by listing, as restarted
//! controllers relist.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{ControllerState, Millis, Sim};
use crate::model::Object;
use crate::sim::scenario::Scenario;

/// What a restart keeps of a running simulator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Saved {
    /// The scenario's name: a simulator resumes on the scenario it ran.
    pub scenario: String,
    pub seed: u64,
    /// The last resource version given out.
    pub resource_version: u64,
    /// Where the uid sequence is.
    pub uid_state: u64,
    /// Virtual milliseconds since the start.
    pub now_ms: u64,
    /// Virtual time zero, when it was not [`super::EPOCH`] (a served
    /// simulator's start on the real clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<jiff::Timestamp>,
    /// How many of the scenario's steps ran.
    pub steps_run: usize,
    /// Finalizer -> whether its controller is online.
    pub controllers: BTreeMap<String, bool>,
    /// Group versions whose discovery fails.
    pub unavailable_apis: Vec<String>,
    /// Every object, as stored.
    pub objects: Vec<Object>,
}

/// The order objects are put back in: definitions first (their kinds are
/// then declared when their instances come), then namespaces, then the
/// rest as saved.
fn rank(o: &Object) -> u8 {
    match (o.group(), o.kind.as_str()) {
        ("apiextensions.k8s.io", "CustomResourceDefinition") => 0,
        ("", "Namespace") => 1,
        _ => 2,
    }
}

impl Sim {
    /// What a restart keeps: see [`Saved`].
    #[must_use]
    pub fn saved(&self) -> Saved {
        Saved {
            scenario: self.scenario.name.clone(),
            seed: self.settings.seed,
            resource_version: self.api.resource_version(),
            uid_state: self.api.uid_state(),
            now_ms: self.now_ms,
            epoch: (self.epoch != super::epoch()).then_some(self.epoch),
            steps_run: self.next_step,
            controllers: self.controller_map(),
            unavailable_apis: self
                .api
                .kinds()
                .discovery_failing()
                .into_iter()
                .map(str::to_string)
                .collect(),
            objects: self.objects().cloned().collect(),
        }
    }

    /// The simulator `saved` was taken from, restarted: its store as it
    /// was, the clock where it stood, the steps not yet run scheduled,
    /// and the initial list run again so that the garbage collector and
    /// the controllers pick up where the store is (a cascade under way
    /// goes on). The scenario's objects are not used (the store has its
    /// own), nor is its `unobservedByGc` (the collector relisted).
    ///
    /// # Errors
    /// `saved` is of another scenario, counts more steps than it has, or
    /// holds an object the store refuses (named by its place).
    pub fn resume(mut scenario: Scenario, saved: Saved) -> Result<Sim, String> {
        if saved.scenario != scenario.name {
            return Err(format!(
                "saved from scenario {:?}, not {:?}",
                saved.scenario, scenario.name
            ));
        }
        if saved.steps_run > scenario.steps.len() {
            return Err(format!(
                "{} steps ran, but scenario {:?} has {}",
                saved.steps_run,
                scenario.name,
                scenario.steps.len()
            ));
        }
        scenario.objects = Vec::new();
        scenario.settings.epoch = saved.epoch;
        let scenario = Arc::new(scenario);
        let mut sim = Self::shell(&scenario, saved.seed);
        sim.api
            .resume_counters(saved.resource_version, saved.uid_state);
        sim.set_now(saved.now_ms);
        for gv in &scenario.settings.unavailable_apis {
            sim.api.kinds_mut().set_discovery_failing(gv, false);
        }
        for gv in &saved.unavailable_apis {
            sim.api.kinds_mut().set_discovery_failing(gv, true);
        }
        for (finalizer, online) in saved.controllers {
            sim.controllers
                .entry(finalizer.clone())
                .or_insert_with(|| ControllerState {
                    finalizer,
                    online,
                    after: Millis(1000),
                    workload: None,
                })
                .online = online;
        }
        let mut objects: Vec<(usize, Object)> = saved.objects.into_iter().enumerate().collect();
        objects.sort_by_key(|(i, o)| (rank(o), *i));
        let mut order = Vec::with_capacity(objects.len());
        for (i, obj) in objects {
            let what = format!(
                "objects[{i}] ({} {}{})",
                obj.kind,
                obj.namespace().map(|n| format!("{n}/")).unwrap_or_default(),
                obj.name()
            );
            let uid = obj.uid().to_string();
            let resp = sim.api.resume_object(obj);
            if !resp.is_success() {
                return Err(format!("{what}: {}", resp.message));
            }
            order.push(uid);
        }
        let order = order
            .iter()
            .filter_map(|uid: &String| sim.api.graph().get_shared(uid).cloned())
            .collect();
        sim.initial_list(order);
        sim.schedule_steps(saved.steps_run);
        Ok(sim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario;

    fn objects(sim: &Sim) -> Vec<Object> {
        sim.objects().cloned().collect()
    }

    /// Which objects are there, by kind, namespace and name.
    fn names(sim: &Sim) -> Vec<String> {
        sim.objects()
            .map(|o| format!("{}/{:?}/{}", o.kind, o.namespace(), o.name()))
            .collect()
    }

    #[test]
    fn a_resumed_simulator_is_the_saved_one_and_goes_on_the_same_way() {
        let sc = scenario::bundled("foreground-blocked").expect("bundled");
        let mut sim = Sim::new(&sc).expect("loads");
        // The foreground delete (at 1 s) ran; its finalizer's controller
        // comes online at 30 s.
        sim.advance(10_000);
        assert_eq!(sim.steps_run(), 1);
        assert!(sim.objects().any(Object::is_terminating));
        let saved = sim.saved();
        let mut resumed = Sim::resume(sc.clone(), saved.clone()).expect("resumes");
        assert_eq!(
            objects(&resumed),
            objects(&sim),
            "resource versions included"
        );
        assert_eq!(resumed.resource_version(), sim.resource_version());
        assert_eq!(resumed.now_ms(), sim.now_ms());
        assert_eq!(resumed.steps_run(), 1);
        assert_eq!(resumed.saved(), saved, "saved again, the same");
        // The same uid comes next: none repeats one given out before.
        assert_eq!(
            resumed.api.uids().next_uid(),
            sim.api.clone().uids().next_uid()
        );

        sim.settle(600_000);
        resumed.settle(600_000);
        assert_eq!(resumed.steps_run(), sc.steps.len());
        assert_eq!(names(&resumed), names(&sim));
        assert!(
            !resumed.objects().any(|o| o.kind == "Deployment"),
            "the cascade completed after the restart: {:?}",
            names(&resumed)
        );
    }

    #[test]
    fn a_foreign_or_damaged_save_is_refused_by_name() {
        let sc = scenario::bundled("foreground-blocked").expect("bundled");
        let sim = Sim::new(&sc).expect("loads");
        let other = scenario::bundled("deployment").expect("bundled");
        let err = Sim::resume(other, sim.saved()).expect_err("another scenario");
        assert!(err.contains("\"foreground-blocked\""), "{err}");

        let mut too_new = sim.saved();
        too_new.resource_version -= 1;
        let err = Sim::resume(sc.clone(), too_new).expect_err("a version never given out");
        assert!(
            err.contains("objects[") && err.contains("resourceVersion"),
            "{err}"
        );

        let mut steps = sim.saved();
        steps.steps_run = 99;
        assert!(Sim::resume(sc.clone(), steps).is_err());

        let mut twice = sim.saved();
        let first = twice.objects[0].clone();
        twice.objects.push(first);
        let err = Sim::resume(sc, twice).expect_err("an object twice");
        assert!(err.contains("objects["), "{err}");
    }
}
