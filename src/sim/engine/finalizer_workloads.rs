//! Finalizer controllers that run as workloads (STUCK-CAUSES C1; issue of
//! a controller scaled to 0): a scenario's controller may name the
//! Deployment (StatefulSet, DaemonSet) it runs as. It is online while that
//! workload exists with `spec.replicas` above 0: scaling it to 0 or
//! deleting it takes the controller offline, scaling it up brings it back
//! and it removes what it had left. Taking the controller offline from the
//! UI (`c`) or a step scales the workload, as an operator would.

use serde_json::Value;

use super::Sim;
use crate::model::Object;
use crate::sim::scenario::Target;

/// Whether a workload runs at least one replica (a DaemonSet: whether it
/// exists).
fn runs(w: &Object) -> bool {
    w.kind == "DaemonSet"
        || w.value_at(&["spec", "replicas"])
            .and_then(Value::as_i64)
            .unwrap_or(1)
            > 0
}

impl Sim {
    /// Whether `target` names `obj`.
    fn names(&self, target: &Target, obj: &Object) -> bool {
        self.resolve(target).is_ok_and(|k| {
            k.name == obj.name() && k.kind == obj.kind && k.namespace.as_deref() == obj.namespace()
        })
    }

    /// A controller's workload changed (or appeared, or went): its
    /// controller follows.
    pub(super) fn follow_controller_workloads(&mut self, obj: &Object) {
        if !matches!(
            obj.kind.as_str(),
            "Deployment" | "StatefulSet" | "DaemonSet"
        ) {
            return;
        }
        let affected: Vec<(String, Target)> = self
            .controllers
            .values()
            .filter_map(|c| Some((c.finalizer.clone(), c.workload.clone()?)))
            .filter(|(_, w)| self.names(w, obj))
            .collect();
        for (finalizer, w) in affected {
            let online = self
                .resolve(&w)
                .ok()
                .and_then(|k| self.api.get(&k))
                .is_some_and(|o| !o.is_terminating() && runs(o));
            let was = self.controllers.get(&finalizer).is_some_and(|c| c.online);
            if let Some(c) = self.controllers.get_mut(&finalizer) {
                c.online = online;
            }
            if online && !was {
                let waiting: Vec<Object> = self
                    .api
                    .objects()
                    .filter(|o| o.is_terminating() && o.has_finalizer(&finalizer))
                    .cloned()
                    .collect();
                for o in waiting {
                    self.maybe_schedule_finalizer_controllers(&o);
                }
            }
        }
    }

    /// Brings a controller's workload to 1 replica, or to 0.
    pub(super) fn scale_controller_workload(&mut self, w: &Target, online: bool) {
        let replicas = i64::from(online);
        let resp = self.patch(w, &format!("spec.replicas={replicas}"), |o| {
            o.set_at(&["spec", "replicas"], Value::from(replicas));
        });
        if !resp.is_success() {
            tracing::info!("scaling {}/{}: {}", w.kind, w.name, resp.message);
        }
    }

    /// The controllers' first look at their workloads, as the scenario
    /// starts.
    pub(super) fn settle_controller_workloads(&mut self) {
        let workloads: Vec<Target> = self
            .controllers
            .values()
            .filter_map(|c| c.workload.clone())
            .collect();
        for w in workloads {
            match self
                .resolve(&w)
                .ok()
                .and_then(|k| self.api.get(&k).cloned())
            {
                Some(o) => self.follow_controller_workloads(&o),
                None => {
                    for c in self.controllers.values_mut() {
                        if c.workload.as_ref() == Some(&w) {
                            c.online = false;
                        }
                    }
                }
            }
        }
    }
}
