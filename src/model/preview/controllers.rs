//! The preview's reading of the controllers that act after a DELETE
//! (model/workload.rs is the table both it and the simulator read): the
//! endpoints controller, a Deployment re-creating its ReplicaSet, which
//! adopts the orphaned pods and deletes the surplus; and the `then`
//! sentence of each entry.

use super::{Id, Kind, Planner, State, name_of};
use crate::model::object::Object;
use crate::model::workload;

impl<'a> Planner<'a> {
    /// The controllers that act on what went (model/workload.rs): the
    /// endpoints controller deletes a gone Service's Endpoints; a
    /// Deployment re-creates its gone ReplicaSet, which adopts the pods
    /// orphaned from the old one and deletes those past `spec.replicas`.
    /// Replacement pods are new objects, outside the plan; `then` names
    /// them.
    pub(super) fn workload_controllers(&mut self) -> bool {
        let mut changed = false;
        for id in self.ids_where(|i| matches!(i.state, State::Gone(_)) && i.kind.is(Kind::SERVICE))
        {
            let svc = &self.items[id].obj;
            let Some(ep) = self
                .graph
                .find("", "Endpoints", svc.namespace(), svc.name())
                .and_then(|e| self.id(e.uid()))
            else {
                continue;
            };
            if self.items[ep].state == State::Alive {
                self.items[ep].more_mut().deleted_by =
                    Some("deleted by the endpoints controller once its Service is gone".into());
                self.delete(ep, None);
                changed = true;
            }
        }
        for id in
            self.ids_where(|i| matches!(i.state, State::Gone(_)) && i.kind.is(Kind::REPLICA_SET))
        {
            let uid = self.items[id].obj.uid();
            if self.recreated.contains(&id) || self.recreator(uid).is_none() {
                continue;
            }
            self.recreated.insert(id);
            changed = true;
            let (Some(rs), Some(d)) = (self.graph.get(uid).cloned(), self.recreator(uid).cloned())
            else {
                continue;
            };
            // The one the Deployment creates, as the simulator does.
            let sel = workload::selector(&workload::new_replicaset(&d, Some(&rs)));
            let from = name_of(&rs);
            let orphans: Vec<Object> = self
                .items
                .iter()
                .filter(|i| i.state == State::Alive && i.kind.is(Kind::POD))
                .filter(|i| i.more().orphaned_from.contains(&from))
                .filter(|i| workload::controller_ref(&i.obj).is_none())
                .filter(|i| workload::is_active_pod(&i.obj) && sel.matches(&i.obj.metadata.labels))
                .map(|i| Object::clone(&i.obj))
                .collect();
            let want = usize::try_from(workload::replicas(&d)).unwrap_or(usize::MAX);
            let surplus: Vec<Id> = workload::deletion_order(orphans.iter().collect())
                .into_iter()
                .take(orphans.len().saturating_sub(want))
                .filter_map(|p| self.id(p.uid()))
                .collect();
            for p in &orphans {
                if let Some(p) = self.id(p.uid()) {
                    self.items[p].more_mut().adopted_by = Some(format!("{from} (re-created)"));
                }
            }
            for p in surplus {
                self.items[p].more_mut().deleted_by = Some(format!(
                    "adopted by the re-created {from}, then deleted: more pods than its {want} replicas"
                ));
                self.delete(p, None);
            }
        }
        changed
    }

    /// The Deployment that re-creates the gone ReplicaSet `uid`: its
    /// controller, still there and not Terminating, managed (template
    /// known), and controlling no other ReplicaSet that is not gone.
    fn recreator(&self, uid: &str) -> Option<&Object> {
        let rs = self.graph.get(uid)?;
        let r = workload::controller_ref(rs)?;
        let d = self.current(&r.uid)?;
        if d.kind != "Deployment" || d.group() != "apps" || self.is_terminating(d.uid()) {
            return None;
        }
        if !workload::is_managed(d) {
            return None;
        }
        let others = self.graph.referrers(d.uid()).any(|o| {
            o != uid
                && !self.is_gone(o)
                && self.current(o).is_some_and(|x| {
                    x.kind == "ReplicaSet"
                        && workload::controller_ref(x).is_some_and(|c| c.uid == d.uid())
                })
        });
        (!others).then_some(d)
    }

    /// What a controller does about an object that goes (or is left
    /// Terminating) while its controller stays.
    pub(super) fn then(&self, id: Id) -> Option<String> {
        let item = &self.items[id];
        if let Some(why) = &item.more().deleted_by {
            return Some(why.clone());
        }
        if item.state == State::Alive {
            return None;
        }
        let orig = item.orig;
        let gone = matches!(item.state, State::Gone(_));
        // Nothing is created in a namespace being deleted: the API server
        // refuses it (R58), so no controller replaces what goes there.
        if orig.namespace().is_some_and(|n| self.namespace_ends(n)) {
            return None;
        }
        if self.recreated.contains(&id) {
            let want = self.recreator(orig.uid()).map_or(0, workload::replicas);
            let adopts = self.items.iter().any(|i| {
                i.more().adopted_by.is_some() && i.more().orphaned_from.contains(&name_of(orig))
            });
            let pods = if adopts {
                "it adopts the orphaned pods"
            } else if want == 0 {
                "it creates no pods (spec.replicas 0)"
            } else {
                "it creates new pods"
            };
            return Some(format!(
                "re-created by {} (same name, new uid); {pods}",
                workload::DEPLOYMENT.title
            ));
        }
        // Already Terminating before this DELETE: its controller has
        // already stopped counting it (and replaced it).
        if orig.is_terminating() {
            return None;
        }
        // Same name again only once the old one is gone (a Terminating one
        // holds the name).
        if orig.kind == "Endpoints" && orig.group().is_empty() {
            let svc = self
                .graph
                .find("", "Service", orig.namespace(), orig.name())
                .and_then(|s| self.current(s.uid()))?;
            // The working copy's deletion timestamp is its state.
            let selects = !self.is_terminating(svc.uid()) && workload::service_selects(svc);
            return (gone && selects).then(|| {
                "re-created by the endpoints controller (same name, new uid)".to_string()
            });
        }
        let r = workload::controller_ref(orig)?;
        if !self.recreated.is_empty()
            && self
                .id(&r.uid)
                .is_some_and(|id| self.recreated.contains(&id))
            && orig.is_pod()
        {
            let wants = self
                .recreator(&r.uid)
                .is_some_and(|d| workload::replicas(d) > 0);
            return wants.then(|| {
                format!(
                    "replaced by a new pod of the re-created {}/{}",
                    r.kind, r.name
                )
            });
        }
        let owner = self.current(&r.uid)?;
        // A Terminating owner replaces nothing (`workload::replacement`
        // reads the deletion timestamp, which the working copy keeps as its
        // state).
        if self.is_terminating(owner.uid()) {
            return None;
        }
        match owner.kind.as_str() {
            // Only through `recreated`: a Deployment re-creates a
            // ReplicaSet only when it controls no other.
            "Deployment" => return None,
            "ReplicaSet" | "ReplicationController" if workload::replicas(owner) == 0 => {
                return None;
            }
            "Job"
                if owner
                    .value_at(&["spec", "parallelism"])
                    .and_then(serde_json::Value::as_u64)
                    == Some(0) =>
            {
                return None;
            }
            "StatefulSet" if !gone || !self.stateful_set_recreates(owner, orig) => return None,
            // A DaemonSet replaces a pod only for a node that is there.
            "DaemonSet" => {
                let node = workload::node_of(orig)?;
                let there = self
                    .graph
                    .find("", "Node", None, &node)
                    .is_some_and(|n| !self.is_gone(n.uid()));
                if !there {
                    return None;
                }
            }
            _ => {}
        }
        workload::replacement(owner, orig)
    }

    /// Whether the namespace `ns` is Terminating or gone once the plan has
    /// run. Asked for each entry; the last namespace's answer is kept (a
    /// cascade's entries share one: a look-up by name each was a wait on
    /// memory each).
    fn namespace_ends(&self, ns: &'a str) -> bool {
        if let Some((last, ends)) = self.last_namespace.get()
            && last == ns
        {
            return ends;
        }
        let ends = self
            .graph
            .find("", "Namespace", None, ns)
            .is_some_and(|n| self.is_terminating(n.uid()) || self.is_gone(n.uid()));
        self.last_namespace.set(Some((ns, ends)));
        ends
    }

    /// Whether the StatefulSet creates `pod`'s ordinal again: below
    /// `replicas`, and with OrderedReady every lower ordinal there, Running
    /// and Ready (as the simulator's controller waits).
    fn stateful_set_recreates(&self, set: &Object, pod: &Object) -> bool {
        let Some(i) = pod
            .name()
            .strip_prefix(set.name())
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.parse::<u64>().ok())
        else {
            return false;
        };
        if i >= workload::replicas(set) {
            return false;
        }
        if set.str_at(&["spec", "podManagementPolicy"]) == Some("Parallel") {
            return true;
        }
        (0..i).all(|j| {
            self.graph
                .find("", "Pod", set.namespace(), &format!("{}-{j}", set.name()))
                .and_then(|p| self.current(p.uid()))
                .is_some_and(|p| !self.is_terminating(p.uid()) && workload::is_running_and_ready(p))
        })
    }
}
